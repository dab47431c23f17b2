//! Pseudo-instructions ([`PSEUDOS`] plus operand-less and short forms of some rows).
//!
//! Contract: [`Ctx::inst_words`] (pass 1) and [`Ctx::pseudo`] (pass 2) agree on every
//! expansion's size: `la`/`lla`/`call`/`tail` are two words, `li` one or two (two whenever its
//! value is unknown in pass 1), everything else one. A mnemonic/operand count that is not a
//! pseudo-instruction falls through to the table rows.

use super::ctx::{inst, Ctx};
use super::expr::hi_lo;
use super::lexer::split_mask;
use super::Res;
use crate::isa::format::ImmKind;
use crate::isa::{Inst, Op};

/// Pseudo-instructions (beyond the table rows) and their operand syntax.
pub const PSEUDOS: &[(&str, &str)] = &[
    ("nop", ""),
    ("li", "rd, imm32"),
    ("la", "rd, symbol"),
    ("lla", "rd, symbol"),
    ("call", "symbol"),
    ("tail", "symbol"),
    ("mv", "rd, rs"),
    ("not", "rd, rs"),
    ("neg", "rd, rs"),
    ("seqz", "rd, rs"),
    ("snez", "rd, rs"),
    ("sltz", "rd, rs"),
    ("sgtz", "rd, rs"),
    ("beqz", "rs, target"),
    ("bnez", "rs, target"),
    ("bltz", "rs, target"),
    ("bgez", "rs, target"),
    ("blez", "rs, target"),
    ("bgtz", "rs, target"),
    ("bgt", "rs1, rs2, target"),
    ("ble", "rs1, rs2, target"),
    ("bgtu", "rs1, rs2, target"),
    ("bleu", "rs1, rs2, target"),
    ("j", "target"),
    ("jr", "rs"),
    ("ret", ""),
    ("csrr", "rd, csr"),
    ("csrw", "csr, rs"),
    ("csrs", "csr, rs"),
    ("csrc", "csr, rs"),
    ("csrwi", "csr, uimm5"),
    ("csrsi", "csr, uimm5"),
    ("csrci", "csr, uimm5"),
    ("frflags", "rd"),
    ("frrm", "rd"),
    ("frcsr", "rd"),
    ("rdcycle", "rd"),
    ("rdtime", "rd"),
    ("rdinstret", "rd"),
    ("rdcycleh", "rd"),
    ("rdinstreth", "rd"),
    ("fmv.s", "rd, rs"),
    ("fneg.s", "rd, rs"),
    ("fabs.s", "rd, rs"),
    ("fence.tso", ""),
    ("unimp", ""),
    ("vnot.v", "vd, vs[, v0.t]"),
    ("vneg.v", "vd, vs[, v0.t]"),
    ("vfneg.v", "vd, vs[, v0.t]"),
    ("vfabs.v", "vd, vs[, v0.t]"),
    ("vmsge.vi", "vd, vs2, imm[, v0.t]"),
    ("vmslt.vi", "vd, vs2, imm[, v0.t]"),
    ("vmsgeu.vi", "vd, vs2, imm[, v0.t]"),
    ("vmsltu.vi", "vd, vs2, imm[, v0.t]"),
];

/// The operand syntax of a pseudo-instruction in [`PSEUDOS`].
pub(super) fn pseudo_syntax(mnem: &str) -> Option<&'static str> {
    PSEUDOS.iter().find(|(n, _)| *n == mnem).map(|&(_, s)| s)
}

/// The `li` expansion of a value: `[addi]`, `[lui]` or `[lui, addi]` as (op, imm) pairs.
pub(super) fn li_split(v: u32) -> Vec<(Op, i32)> {
    if ImmKind::I12.insert(v as i32).is_some() {
        return vec![(Op::Addi, v as i32)];
    }
    let mut parts = lui_addi(v);
    if parts[1].1 == 0 {
        parts.pop();
    }
    parts
}

/// The two-word `li` expansion `[lui, addi]` (used whatever the value is).
fn lui_addi(v: u32) -> Vec<(Op, i32)> {
    let (hi, lo) = hi_lo(v);
    vec![(Op::Lui, hi as i32), (Op::Addi, lo)]
}

impl Ctx<'_> {
    /// Pass-1 size of an instruction line in words (errors are reported in pass 2).
    pub(super) fn inst_words(&self, ops: &[String]) -> u32 {
        match (self.mnem, ops.len()) {
            ("li", 2) => match self.eval(&ops[1]) {
                Ok(v) => li_split(v as u32).len() as u32,
                Err(_) => 2,
            },
            ("la" | "lla", 2) | ("call" | "tail", 1) => 2,
            _ => 1,
        }
    }

    /// Pseudo-instructions; `Ok(None)` when `mnem`/operand count is not one (then the table
    /// decides). The list with operand syntax is [`PSEUDOS`].
    pub(super) fn pseudo(&self, o: &[String], words: u32) -> Res<Option<Vec<u32>>> {
        use Op::*;
        let m = self.mnem;
        let r = |op, rd, rs1, rs2, imm| self.one(inst(op, rd, rs1, rs2, imm));
        let res = match (m, o.len()) {
            ("nop", 0) => r(Addi, 0, 0, 0, 0),
            ("li", 2) => self.li(o, words),
            ("la" | "lla", 2) => {
                let rd = self.x(&o[0])?;
                self.pcrel(&o[1], rd, inst(Addi, rd, rd, 0, 0))
            }
            ("call", 1) => self.pcrel(&o[0], 1, inst(Jalr, 1, 1, 0, 0)),
            ("tail", 1) => self.pcrel(&o[0], 6, inst(Jalr, 0, 6, 0, 0)),
            ("mv" | "not" | "neg" | "seqz" | "snez" | "sltz" | "sgtz", 2) => {
                let (rd, rs) = (self.x(&o[0])?, self.x(&o[1])?);
                match m {
                    "mv" => r(Addi, rd, rs, 0, 0),
                    "not" => r(Xori, rd, rs, 0, -1),
                    "neg" => r(Sub, rd, 0, rs, 0),
                    "seqz" => r(Sltiu, rd, rs, 0, 1),
                    "snez" => r(Sltu, rd, 0, rs, 0),
                    "sltz" => r(Slt, rd, rs, 0, 0),
                    _ => r(Slt, rd, 0, rs, 0),
                }
            }
            ("beqz" | "bnez" | "bltz" | "bgez" | "blez" | "bgtz", 2) => {
                let (rs, off) = (self.x(&o[0])?, self.target(&o[1])?);
                match m {
                    "beqz" => r(Beq, 0, rs, 0, off),
                    "bnez" => r(Bne, 0, rs, 0, off),
                    "bltz" => r(Blt, 0, rs, 0, off),
                    "bgez" => r(Bge, 0, rs, 0, off),
                    "blez" => r(Bge, 0, 0, rs, off),
                    _ => r(Blt, 0, 0, rs, off),
                }
            }
            ("bgt" | "ble" | "bgtu" | "bleu", 3) => {
                let (a, b, off) = (self.x(&o[0])?, self.x(&o[1])?, self.target(&o[2])?);
                let op = match m {
                    "bgt" => Blt,
                    "ble" => Bge,
                    "bgtu" => Bltu,
                    _ => Bgeu,
                };
                r(op, 0, b, a, off)
            }
            ("j", 1) => r(Jal, 0, 0, 0, self.target(&o[0])?),
            ("jal", 1) => r(Jal, 1, 0, 0, self.target(&o[0])?),
            ("jr", 1) => r(Jalr, 0, self.x(&o[0])?, 0, 0),
            ("jalr", 1) => r(Jalr, 1, self.x(&o[0])?, 0, 0),
            ("ret", 0) => r(Jalr, 0, 1, 0, 0),
            ("csrr", 2) => r(Csrrs, self.x(&o[0])?, 0, 0, self.csr(&o[1])?),
            ("csrw" | "csrs" | "csrc", 2) => {
                let op = match m {
                    "csrw" => Csrrw,
                    "csrs" => Csrrs,
                    _ => Csrrc,
                };
                r(op, 0, self.x(&o[1])?, 0, self.csr(&o[0])?)
            }
            ("csrwi" | "csrsi" | "csrci", 2) => {
                let op = match m {
                    "csrwi" => Csrrwi,
                    "csrsi" => Csrrsi,
                    _ => Csrrci,
                };
                r(op, 0, self.uimm5(&o[1])?, 0, self.csr(&o[0])?)
            }
            ("frflags" | "frrm" | "frcsr" | "rdcycle" | "rdtime" | "rdinstret" | "rdcycleh" | "rdinstreth", 1) => {
                let csr = match m {
                    "frflags" => 0x001,
                    "frrm" => 0x002,
                    "frcsr" => 0x003,
                    "rdcycle" => 0xc00,
                    "rdtime" => 0xc01,
                    "rdinstret" => 0xc02,
                    "rdcycleh" => 0xc80,
                    _ => 0xc82,
                };
                r(Csrrs, self.x(&o[0])?, 0, 0, csr)
            }
            ("fmv.s" | "fneg.s" | "fabs.s", 2) => {
                let (rd, rs) = (self.f(&o[0])?, self.f(&o[1])?);
                let op = match m {
                    "fmv.s" => FsgnjS,
                    "fneg.s" => FsgnjnS,
                    _ => FsgnjxS,
                };
                r(op, rd, rs, rs, 0)
            }
            ("fence", 0) => r(Fence, 0, 0, 0, 0xff),
            ("fence", 2) => r(Fence, 0, 0, 0, self.fence_set(&o[0])? << 4 | self.fence_set(&o[1])?),
            ("fence.tso", 0) => r(Fence, 0, 0, 0, 0x833),
            ("fence.i", 0) => r(FenceI, 0, 0, 0, 0),
            ("unimp", 0) => r(Csrrw, 0, 0, 0, 0xc00),
            ("vnot.v" | "vneg.v" | "vfneg.v" | "vfabs.v", 2 | 3) => self.vector_alias(o),
            ("vmsge.vi" | "vmslt.vi" | "vmsgeu.vi" | "vmsltu.vi", 3 | 4) => self.vector_alias(o),
            ("join", 0) => r(Join, 0, 0, 0, 0),
            ("endprg", 0) => r(Endprg, 0, 0, 0, 0),
            ("barrier", 0) => r(Barrier, 0, 0, 0, 0),
            ("barriersub", 0) => r(Barriersub, 0, 0, 0, 0),
            _ => return Ok(None),
        };
        res.map(Some)
    }

    /// Vector aliases with an optional trailing `v0.t`.
    fn vector_alias(&self, o: &[String]) -> Res<Vec<u32>> {
        use Op::*;
        let (o, vm) = split_mask(o);
        let m = self.mnem;
        if o.len() != 2 + m.starts_with("vms") as usize {
            return Err(self.count(pseudo_syntax(m).unwrap_or_default(), o.len()));
        }
        let (vd, vs) = (self.v(&o[0])?, self.v(&o[1])?);
        let mut i = match m {
            "vnot.v" => inst(VxorVi, vd, 0, vs, -1),
            "vneg.v" => inst(VrsubVx, vd, 0, vs, 0),
            "vfneg.v" => inst(VfsgnjnVv, vd, vs, vs, 0),
            "vfabs.v" => inst(VfsgnjxVv, vd, vs, vs, 0),
            _ => {
                // vmsge.vi x, i ≡ vmsgt.vi x, i-1 (and likewise for the others); the unsigned
                // forms with i = 0 are "always true/false" compares of vs with itself.
                let imm = self.imm(&o[2])?;
                let unsigned = m.ends_with("u.vi");
                let ge = m.starts_with("vmsge");
                match (unsigned, ge, imm) {
                    (true, true, 0) => inst(VmseqVv, vd, vs, vs, 0),
                    (true, false, 0) => inst(VmsneVv, vd, vs, vs, 0),
                    _ => {
                        let op = [[VmsleVi, VmsgtVi], [VmsleuVi, VmsgtuVi]][unsigned as usize][ge as usize];
                        let field = imm
                            .checked_sub(1)
                            .filter(|&f| op.desc().fmt.fields().imm.insert(f).is_some())
                            .ok_or_else(|| self.out_of_range(imm as i64))?;
                        inst(op, vd, 0, vs, field)
                    }
                }
            }
        };
        i.vm = vm;
        self.one(i)
    }

    /// `fence` predecessor/successor set (`iorw` letters or `0`).
    fn fence_set(&self, t: &str) -> Res<i32> {
        if t == "0" {
            return Ok(0);
        }
        let bad = || self.syntax(format!("`{t}` is not a fence set"));
        let mut v = 0;
        for ch in t.chars() {
            let b = match ch {
                'i' => 8,
                'o' => 4,
                'r' => 2,
                'w' => 1,
                _ => return Err(bad()),
            };
            if v & b != 0 {
                return Err(bad());
            }
            v |= b;
        }
        Ok(v)
    }

    /// `li rd, value` in the `words` fixed by pass 1.
    fn li(&self, ops: &[String], words: u32) -> Res<Vec<u32>> {
        let rd = self.x(&ops[0])?;
        let v = self.eval(&ops[1])?;
        let w = self.to_word(v)?;
        // Two words: the value's own expansion or a forward reference seen in pass 1.
        let parts = if words == 2 { lui_addi(w) } else { li_split(w) };
        if parts.len() != words as usize {
            // Unreachable: pass 1 saw the same value (symbols never change once defined).
            return Err(self.out_of_range(v));
        }
        let rs1 = if parts.len() == 2 { rd } else { 0 };
        parts.into_iter().map(|(op, imm)| self.enc(&inst(op, rd, rs1, 0, imm))).collect()
    }

    /// `auipc rd, hi` + `second` with `lo`, for a pc-relative target.
    fn pcrel(&self, t: &str, rd: u8, second: Inst) -> Res<Vec<u32>> {
        let (hi, lo) = hi_lo(self.target(t)? as u32);
        Ok(vec![self.enc(&inst(Op::Auipc, rd, 0, 0, hi as i32))?, self.enc(&Inst { imm: lo, ..second })?])
    }
}
