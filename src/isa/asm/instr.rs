//! Table rows: mnemonic lookup and operand parsing for every row of [`TABLE`].
//!
//! Contract: operands are read in the order and spelling [`crate::isa::disasm`] prints them
//! (plus FP register names for FP rows, an optional rounding mode, `.aq`/`.rl`/`.aqrl` on
//! atomics, a trailing `v0.t` on maskable rows); a wrong count is an
//! [`AsmError::OperandCount`] quoting the row's syntax. Pseudo-instructions are tried first.

use super::ctx::Ctx;
use super::lexer::split_mask;
use super::pseudo::pseudo_syntax;
use super::{AsmError, Res};
use crate::isa::format::{Fmt, ImmKind};
use crate::isa::regs::RM_NAMES;
use crate::isa::{Inst, Op, TABLE};
use once_cell::sync::Lazy;
use std::collections::HashMap;

/// Mnemonic → row (row mnemonics are unique; checked by the tests).
static BY_NAME: Lazy<HashMap<&'static str, Op>> = Lazy::new(|| TABLE.iter().map(|d| (d.mnemonic, d.op)).collect());

/// Operand syntax of a format (for error messages).
fn syntax(fmt: Fmt) -> &'static str {
    use Fmt::*;
    match fmt {
        U => "rd, imm20",
        J => "rd, target",
        Jalr | Load => "rd, imm(rs1)",
        Store => "rs2, imm(rs1)",
        B => "rs1, rs2, target",
        I | Shamt | Prefix | Fence => "rd, rs1, imm",
        R | X3 => "rd, rs1, rs2",
        Bare => "(no operands)",
        Csr => "rd, csr, rs1",
        CsrI => "rd, csr, uimm5",
        Lr => "rd, (rs1)",
        Amo => "rd, rs2, (rs1)",
        R4 => "rd, rs1, rs2, rs3[, rm]",
        FRm => "rd, rs1, rs2[, rm]",
        F1Rm => "rd, rs1[, rm]",
        F1 => "rd, rs1",
        Vsetvli => "rd, rs1, e32, m1, ta, ma",
        Vsetivli => "rd, uimm5, e32, m1, ta, ma",
        VLoad => "vd, (rs1)[, v0.t]",
        VLoadStride => "vd, (rs1), rs2[, v0.t]",
        VLoadIndex => "vd, (rs1), vs2[, v0.t]",
        VV => "vd, vs2, vs1[, v0.t]",
        VX => "vd, vs2, rs1[, v0.t]",
        VF => "vd, vs2, fs1[, v0.t]",
        VI | VIu => "vd, vs2, imm5[, v0.t]",
        VMacV => "vd, vs1, vs2[, v0.t]",
        VMacX => "vd, rs1, vs2[, v0.t]",
        VMacF => "vd, fs1, vs2[, v0.t]",
        VMvV => "vd, vs1",
        VMvX => "vd, rs1",
        VMvF => "vd, fs1",
        VMvI => "vd, imm5",
        VMerge => "vd, vs2, vs1|rs1|imm5|fs1, v0",
        VMvXS => "rd, vs2",
        VUnary => "vd, vs2[, v0.t]",
        VId => "vd[, v0.t]",
        VI12 => "vd, vs1, imm12",
        Barrier => "rd, rs2, uimm5",
        PLoad | VLoad12 => "vd, imm(vs1)",
        PStore | VStore12 => "vs2, imm(vs1)",
        VBranch => "vs2, vs1, target",
        Join => "rs2, rs1, offset",
    }
}

impl Ctx<'_> {
    /// One instruction line → its words (`words` = the size fixed in pass 1).
    pub(super) fn instruction(&self, ops: &[String], words: u32) -> Res<Vec<u32>> {
        if let Some(w) = self.pseudo(ops, words)? {
            return Ok(w);
        }
        // `vfexp.v` is the ISA notes' spelling of LLVM's `vfexp`.
        let m = if self.mnem == "vfexp.v" { "vfexp" } else { self.mnem };
        let (op, aux) = match BY_NAME.get(m) {
            Some(&op) => (op, None),
            None => {
                let suffixed = [(".aqrl", 3u8), (".aq", 2), (".rl", 1)].into_iter().find_map(|(s, a)| {
                    let op = *BY_NAME.get(m.strip_suffix(s)?)?;
                    matches!(op.desc().fmt, Fmt::Lr | Fmt::Amo).then_some((op, Some(a)))
                });
                match (suffixed, pseudo_syntax(m)) {
                    (Some(x), _) => x,
                    (None, Some(expected)) => return Err(self.count(expected, ops.len())),
                    (None, None) => return Err(AsmError::UnknownMnemonic { line: self.line, mnemonic: m.to_string() }),
                }
            }
        };
        let mut i = self.operands(op, ops)?;
        if let Some(a) = aux {
            i.aux = a;
        }
        self.one(i)
    }

    /// Parses the operands of a table row, in the order the disassembler prints them.
    fn operands(&self, op: Op, ops: &[String]) -> Res<Inst> {
        use Fmt::*;
        let fmt = op.desc().fmt;
        let fl = fmt.fields();
        let mut i = Inst::new(op);
        let mut o = ops;
        if fl.vm {
            (o, i.vm) = split_mask(o);
        }
        if fl.rm {
            i.aux = 7;
            let n = match fmt {
                R4 => 4,
                FRm => 3,
                _ => 2,
            };
            if o.len() == n + 1 {
                let rm = o[n].to_ascii_lowercase();
                let pos = RM_NAMES.iter().position(|r| *r == rm);
                i.aux = pos.ok_or_else(|| self.syntax(format!("`{}` is not a rounding mode", o[n])))? as u8;
                o = &o[..n];
            }
        }
        // FP scalar rows also accept FP register names (the disassembler prints zfinx x names).
        let fp = op.mnemonic().starts_with('f') && !matches!(op, Op::Fence | Op::FenceI);
        let sx = |t: &str| if fp { self.f(t) } else { self.x(t) };
        match fmt {
            U => {
                self.want(o, 2, fmt)?;
                let v = self.eval(&o[1])?;
                if !(0..1 << 20).contains(&v) {
                    return Err(self.out_of_range(v));
                }
                i.rd = self.x(&o[0])?;
                i.imm = ((v as u32) << 12) as i32;
            }
            J => {
                self.want(o, 2, fmt)?;
                (i.rd, i.imm) = (self.x(&o[0])?, self.target(&o[1])?);
            }
            Jalr | Load => {
                self.want(o, 2, fmt)?;
                let (imm, r) = self.mem(&o[1])?;
                (i.rd, i.rs1, i.imm) = (sx(&o[0])?, self.x(r)?, imm);
            }
            Store => {
                self.want(o, 2, fmt)?;
                let (imm, r) = self.mem(&o[1])?;
                (i.rs2, i.rs1, i.imm) = (sx(&o[0])?, self.x(r)?, imm);
            }
            B => {
                self.want(o, 3, fmt)?;
                (i.rs1, i.rs2, i.imm) = (self.x(&o[0])?, self.x(&o[1])?, self.target(&o[2])?);
            }
            I | Shamt | Prefix | Fence => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1, i.imm) = (self.x(&o[0])?, self.x(&o[1])?, self.imm(&o[2])?);
            }
            R | X3 => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1, i.rs2) = (sx(&o[0])?, sx(&o[1])?, sx(&o[2])?);
            }
            Bare => self.want(o, 0, fmt)?,
            Csr => {
                self.want(o, 3, fmt)?;
                (i.rd, i.imm, i.rs1) = (self.x(&o[0])?, self.csr(&o[1])?, self.x(&o[2])?);
            }
            CsrI => {
                self.want(o, 3, fmt)?;
                (i.rd, i.imm, i.rs1) = (self.x(&o[0])?, self.csr(&o[1])?, self.uimm5(&o[2])?);
            }
            Lr => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs1) = (self.x(&o[0])?, self.x(self.mem0(&o[1])?)?);
            }
            Amo => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs2, i.rs1) = (self.x(&o[0])?, self.x(&o[1])?, self.x(self.mem0(&o[2])?)?);
            }
            R4 => {
                self.want(o, 4, fmt)?;
                (i.rd, i.rs1, i.rs2, i.rs3) = (sx(&o[0])?, sx(&o[1])?, sx(&o[2])?, sx(&o[3])?);
            }
            FRm => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1, i.rs2) = (sx(&o[0])?, sx(&o[1])?, sx(&o[2])?);
            }
            F1Rm | F1 => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs1) = (sx(&o[0])?, sx(&o[1])?);
            }
            Vsetvli | Vsetivli => {
                if !(3..=6).contains(&o.len()) {
                    return Err(self.count(syntax(fmt), o.len()));
                }
                i.rd = self.x(&o[0])?;
                i.rs1 = if fmt == Vsetvli { self.x(&o[1])? } else { self.uimm5(&o[1])? };
                i.imm = self.vtype(&o[2..])?;
            }
            VLoad => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs1) = (self.v(&o[0])?, self.x(self.mem0(&o[1])?)?);
            }
            VLoadStride | VLoadIndex => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1) = (self.v(&o[0])?, self.x(self.mem0(&o[1])?)?);
                i.rs2 = if fmt == VLoadStride { self.x(&o[2])? } else { self.v(&o[2])? };
            }
            VV | VX | VF | VI | VIu | VMerge => {
                let n = if fmt == VMerge { 4 } else { 3 };
                self.want(o, n, fmt)?;
                if fmt == VMerge && !o[3].eq_ignore_ascii_case("v0") {
                    return Err(self.syntax(format!("expected `v0` as the mask operand, found `{}`", o[3])));
                }
                (i.rd, i.rs2) = (self.v(&o[0])?, self.v(&o[1])?);
                match (fmt, op) {
                    (VV, _) | (VMerge, Op::VmergeVvm) => i.rs1 = self.v(&o[2])?,
                    (VX, _) | (VMerge, Op::VmergeVxm) => i.rs1 = self.x(&o[2])?,
                    (VF, _) | (VMerge, Op::VfmergeVfm) => i.rs1 = self.f(&o[2])?,
                    (VMerge, _) => {
                        let v = self.imm(&o[2])?;
                        let field = ImmKind::Simm5.insert(v).ok_or_else(|| self.out_of_range(v as i64))?;
                        i.rs1 = (field >> 15) as u8;
                    }
                    _ => i.imm = self.imm(&o[2])?,
                }
            }
            VMacV | VMacX | VMacF => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs2) = (self.v(&o[0])?, self.v(&o[2])?);
                i.rs1 = match fmt {
                    VMacV => self.v(&o[1])?,
                    VMacX => self.x(&o[1])?,
                    _ => self.f(&o[1])?,
                };
            }
            VMvV | VMvX | VMvF | VMvI => {
                self.want(o, 2, fmt)?;
                i.rd = self.v(&o[0])?;
                match fmt {
                    VMvV => i.rs1 = self.v(&o[1])?,
                    VMvX => i.rs1 = self.x(&o[1])?,
                    VMvF => i.rs1 = self.f(&o[1])?,
                    _ => i.imm = self.imm(&o[1])?,
                }
            }
            VMvXS => {
                self.want(o, 2, fmt)?;
                i.rd = if op == Op::VfmvFS { self.f(&o[0])? } else { self.x(&o[0])? };
                i.rs2 = self.v(&o[1])?;
            }
            VUnary => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs2) = (self.v(&o[0])?, self.v(&o[1])?);
            }
            VId => {
                self.want(o, 1, fmt)?;
                i.rd = self.v(&o[0])?;
            }
            VI12 => {
                // LLVM prints and parses an unsigned 12-bit value; negative values are accepted too.
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1) = (self.v(&o[0])?, self.v(&o[1])?);
                let v = self.imm(&o[2])?;
                i.imm = if (2048..4096).contains(&v) { v - 4096 } else { v };
            }
            Barrier => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs2, i.imm) = (self.x(&o[0])?, self.x(&o[1])?, self.imm(&o[2])?);
            }
            PLoad | VLoad12 | PStore | VStore12 => {
                self.want(o, 2, fmt)?;
                let (imm, r) = self.mem(&o[1])?;
                (i.rs1, i.imm) = (self.v(r)?, imm);
                if matches!(fmt, PLoad | VLoad12) {
                    i.rd = self.v(&o[0])?;
                } else {
                    i.rs2 = self.v(&o[0])?;
                }
            }
            VBranch => {
                self.want(o, 3, fmt)?;
                (i.rs2, i.rs1, i.imm) = (self.v(&o[0])?, self.v(&o[1])?, self.target(&o[2])?);
            }
            Join => {
                // The third operand is the raw 12-bit field (branch offset / 2), as LLVM prints it.
                self.want(o, 3, fmt)?;
                (i.rs2, i.rs1) = (self.x(&o[0])?, self.x(&o[1])?);
                let v = self.imm(&o[2])?;
                i.imm = v.checked_mul(2).ok_or_else(|| self.out_of_range(v as i64))?;
            }
        }
        Ok(i)
    }

    /// `vtype` operands: `e32, m1, ta, ma` (LMUL and policies optional, default `m1, tu, mu`)
    /// or one number.
    fn vtype(&self, parts: &[String]) -> Res<i32> {
        if parts.len() == 1 && !parts[0].starts_with(['e', 'E']) {
            return self.imm(&parts[0]);
        }
        let bad = |t: &str| self.syntax(format!("`{t}` is not a vtype field"));
        let p: Vec<String> = parts.iter().map(|s| s.to_ascii_lowercase()).collect();
        let sew = ["e8", "e16", "e32", "e64"].iter().position(|s| *s == p[0]).ok_or_else(|| bad(&p[0]))?;
        let mut v = (sew as i32) << 3;
        let mut rest = &p[1..];
        const LMUL: [&str; 8] = ["m1", "m2", "m4", "m8", "", "mf8", "mf4", "mf2"];
        if let Some(l) = rest.first().and_then(|t| LMUL.iter().position(|s| !s.is_empty() && s == t)) {
            v |= l as i32;
            rest = &rest[1..];
        }
        for (bit, on, off) in [(0x40, "ta", "tu"), (0x80, "ma", "mu")] {
            match rest.first().map(String::as_str) {
                Some(t) if t == on => v |= bit,
                Some(t) if t == off => {}
                _ => continue,
            }
            rest = &rest[1..];
        }
        match rest.first() {
            Some(t) => Err(bad(t)),
            None => Ok(v),
        }
    }

    /// Checks that a row got exactly `n` operands.
    fn want(&self, ops: &[String], n: usize, fmt: Fmt) -> Res<()> {
        if ops.len() == n {
            Ok(())
        } else {
            Err(self.count(syntax(fmt), ops.len()))
        }
    }
}
