//! Per-statement context [`Ctx`]: error constructors, operand parsers and the encoder bridge.
//!
//! Contract: every parser returns a value that fits its field's container (registers 0..=31,
//! `i32` immediates, 5-bit unsigned values, 32-bit words) or an [`AsmError`] for this line;
//! the exact field range is left to [`encode`], whose errors [`Ctx::enc`] maps back to
//! source terms (branch targets, `join`'s halved field, `regext` hints).

use super::expr::Symbols;
use super::{AsmError, Res};
use crate::isa::format::ImmKind;
use crate::isa::regs::{parse_csr, parse_f, parse_v, parse_x};
use crate::isa::{encode, EncodeError, Inst, Op};

/// Per-statement context for pass 2 (and pass-1 evaluation).
pub(super) struct Ctx<'a> {
    pub(super) line: usize,
    pub(super) pc: u32,
    pub(super) syms: &'a Symbols,
    /// The lower-cased mnemonic or directive.
    pub(super) mnem: &'a str,
}

/// An instruction with the given fields (others zero, `vm` set).
pub(super) fn inst(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Inst {
    Inst { rd, rs1, rs2, imm, ..Inst::new(op) }
}

impl<'a> Ctx<'a> {
    pub(super) fn new(line: usize, pc: u32, syms: &'a Symbols, mnem: &'a str) -> Self {
        Ctx { line, pc, syms, mnem }
    }

    // ---- errors ----------------------------------------------------------------------------
    pub(super) fn out_of_range(&self, value: i64) -> AsmError {
        AsmError::ImmediateOutOfRange { line: self.line, mnemonic: self.mnem.to_string(), value }
    }
    pub(super) fn count(&self, expected: &'static str, found: usize) -> AsmError {
        AsmError::OperandCount { line: self.line, mnemonic: self.mnem.to_string(), expected, found }
    }
    pub(super) fn bad_imm(&self, t: &str) -> AsmError {
        AsmError::BadImmediate { line: self.line, operand: t.to_string() }
    }
    pub(super) fn syntax(&self, message: String) -> AsmError {
        AsmError::Syntax { line: self.line, message }
    }

    // ---- operands --------------------------------------------------------------------------
    fn reg(&self, t: &str, parse: fn(&str) -> Option<u8>, expected: &'static str) -> Res<u8> {
        let lower = t.trim().to_ascii_lowercase();
        match parse(&lower) {
            Some(n) if n < 32 => Ok(n),
            Some(_) => Err(AsmError::RegisterNeedsRegext { line: self.line, operand: t.to_string() }),
            None => Err(AsmError::BadRegister { line: self.line, operand: t.to_string(), expected }),
        }
    }
    pub(super) fn x(&self, t: &str) -> Res<u8> {
        self.reg(t, parse_x, "an x register")
    }
    pub(super) fn v(&self, t: &str) -> Res<u8> {
        self.reg(t, parse_v, "a vector register")
    }
    pub(super) fn f(&self, t: &str) -> Res<u8> {
        self.reg(t, parse_f, "an FP register")
    }
    pub(super) fn csr(&self, t: &str) -> Res<i32> {
        parse_csr(t).map(i32::from).ok_or_else(|| AsmError::BadCsr { line: self.line, operand: t.to_string() })
    }
    /// An immediate that must fit `i32` (the encoder checks the field range).
    pub(super) fn imm(&self, t: &str) -> Res<i32> {
        let v = self.eval(t)?;
        i32::try_from(v).map_err(|_| self.out_of_range(v))
    }
    /// A 5-bit unsigned value stored in a register field (csr immediates, vsetivli AVL).
    pub(super) fn uimm5(&self, t: &str) -> Res<u8> {
        let v = self.eval(t)?;
        u8::try_from(v).ok().filter(|&u| u < 32).ok_or_else(|| self.out_of_range(v))
    }
    /// A 32-bit value written signed or unsigned (-2^31..2^32), as its bit pattern
    /// (`.word`, `li`, absolute targets).
    pub(super) fn word(&self, t: &str) -> Res<u32> {
        self.to_word(self.eval(t)?)
    }
    /// The range check of [`Ctx::word`] on an evaluated value.
    pub(super) fn to_word(&self, v: i64) -> Res<u32> {
        if !(-(1i64 << 31)..1i64 << 32).contains(&v) {
            return Err(self.out_of_range(v));
        }
        Ok(v as u32)
    }
    /// An absolute target, returned as the offset from this instruction.
    pub(super) fn target(&self, t: &str) -> Res<i32> {
        Ok(self.word(t)?.wrapping_sub(self.pc) as i32)
    }
    /// `imm(reg)` or `(reg)` → (imm, reg text).
    pub(super) fn mem<'t>(&self, t: &'t str) -> Res<(i32, &'t str)> {
        let bad = || self.syntax(format!("expected `imm(reg)`, found `{t}`"));
        let inner = t.strip_suffix(')').ok_or_else(bad)?;
        let open = inner.rfind('(').ok_or_else(bad)?;
        let (imm, reg) = (inner[..open].trim(), &inner[open + 1..]);
        Ok((if imm.is_empty() { 0 } else { self.imm(imm)? }, reg))
    }
    /// `(reg)` or `0(reg)` (atomics).
    pub(super) fn mem0<'t>(&self, t: &'t str) -> Res<&'t str> {
        match self.mem(t)? {
            (0, r) => Ok(r),
            (v, _) => Err(self.out_of_range(v as i64)),
        }
    }

    // ---- encoding --------------------------------------------------------------------------
    /// Encodes `i`, reporting field overflows in source terms.
    pub(super) fn enc(&self, i: &Inst) -> Res<u32> {
        encode(i).map_err(|e| match e {
            EncodeError::RegisterOutOfRange { reg, .. } => {
                AsmError::RegisterNeedsRegext { line: self.line, operand: reg.to_string() }
            }
            // The source operand of `join` is the field itself (offset / 2).
            EncodeError::ImmediateOutOfRange { imm, op: Op::Join } => self.out_of_range(imm as i64 / 2),
            EncodeError::ImmediateOutOfRange { imm, op }
                if matches!(op.desc().fmt.fields().imm, ImmKind::B13 | ImmKind::J21) =>
            {
                AsmError::TargetOutOfRange {
                    line: self.line,
                    mnemonic: self.mnem.to_string(),
                    target: self.pc.wrapping_add(imm as u32),
                    offset: imm as i64,
                }
            }
            EncodeError::ImmediateOutOfRange { imm, .. } => self.out_of_range(imm as i64),
            EncodeError::AuxOutOfRange { aux, .. } => self.out_of_range(aux as i64),
        })
    }
    /// One encoded instruction.
    pub(super) fn one(&self, i: Inst) -> Res<Vec<u32>> {
        Ok(vec![self.enc(&i)?])
    }
}
