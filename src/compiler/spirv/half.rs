//! `half` storage: `vload_half[n]`, `vloada_half[n]`, `vstore_half[n][_rte|_rtz|_rtp|_rtn]`,
//! `vstorea_half[n]…` (OpenCL C §6.15.8). The device has no half arithmetic; values are converted
//! with branch-free integer sequences:
//! * half → float is exact (inf/NaN keep their payload) and float → half to nearest even (the
//!   default) are the IR's [`ConvOp::HalfToFloat`]/[`ConvOp::FloatToHalf`], expanded by
//!   `pass::half` (which keeps chains of half arithmetic in floats);
//! * float → half in the directed modes rounds as requested; NaN stays a quiet NaN with its sign
//!   and top payload bits, overflow follows the rounding mode (∞ or the largest finite).

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;

/// Rounding mode of a half store (SPIR-V FPRoundingMode numbering).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum HalfRound {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

impl HalfRound {
    pub fn from_spirv(mode: u32) -> Option<HalfRound> {
        Some(match mode {
            0 => HalfRound::Rte,
            1 => HalfRound::Rtz,
            2 => HalfRound::Rtp,
            3 => HalfRound::Rtn,
            _ => return None,
        })
    }
}

impl Lowerer<'_> {
    fn k(&mut self, x: u32) -> Value {
        self.const_val(Ty::I32, x as u64)
    }
    fn bin32(&mut self, b: BlockId, o: BinOp, x: Value, y: Value) -> Value {
        self.f.push(b, Ty::I32, Op::Bin(o, x, y))
    }
    fn cmp32(&mut self, b: BlockId, o: CmpOp, x: Value, y: Value) -> Value {
        self.f.push(b, Ty::I1, Op::Cmp(o, x, y))
    }
    fn sel32(&mut self, b: BlockId, c: Value, x: Value, y: Value) -> Value {
        self.f.push(b, Ty::I32, Op::Select(c, x, y))
    }

    /// The float value of the half whose bits are the low 16 bits of `h` (an i32 or i16):
    /// [`ConvOp::HalfToFloat`], exact (`pass::half` expands it).
    pub(super) fn half_to_float(&mut self, b: BlockId, h: Value) -> Value {
        self.f.push(b, Ty::F32, Op::Conv(ConvOp::HalfToFloat, h))
    }

    /// The half bits (in an i16) of `f` rounded with `mode`: to nearest even a
    /// [`ConvOp::FloatToHalf`] (which `pass::half` expands, keeping chains of half operations
    /// in floats), the directed modes integer sequences built here.
    pub(super) fn float_to_half(&mut self, b: BlockId, f: Value, mode: HalfRound) -> Value {
        if mode == HalfRound::Rte {
            return self.f.push(b, Ty::I16, Op::Conv(ConvOp::FloatToHalf, f));
        }
        let x = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, f));
        let (c13, c16) = (self.k(13), self.k(16));
        let sgn_mask = self.k(0x8000);
        let s16 = self.bin32(b, BinOp::ShrL, x, c16);
        let sign = self.bin32(b, BinOp::And, s16, sgn_mask);
        let absmask = self.k(0x7fff_ffff);
        let a = self.bin32(b, BinOp::And, x, absmask);
        let inf = self.k(0x7f80_0000);
        let is_nan = self.cmp32(b, CmpOp::GtU, a, inf);
        let is_inf = self.cmp32(b, CmpOp::Eq, a, inf);
        // Truncated magnitude and inexactness, for the directed modes.
        let min_normal = self.k(0x3880_0000); // 2^-14
        let is_sub = self.cmp32(b, CmpOp::LtU, a, min_normal);
        let rebias = self.k(112 << 23);
        let an = self.bin32(b, BinOp::Sub, a, rebias);
        let tn = self.bin32(b, BinOp::ShrL, an, c13);
        let lowmask = self.k(0x1fff);
        let lost_n = self.bin32(b, BinOp::And, a, lowmask);
        let fa = self.f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, a));
        let s24 = self.const_val(Ty::F32, (2f32).powi(24).to_bits() as u64);
        let scaled = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, fa, s24));
        let ts = self.f.push(b, Ty::I32, Op::Conv(ConvOp::FToU, scaled));
        let back = self.f.push(b, Ty::F32, Op::Conv(ConvOp::UToF, ts));
        let inexact_s = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FNe, back, scaled));
        let zero = self.k(0);
        let inexact_n = self.cmp32(b, CmpOp::Ne, lost_n, zero);
        let t = self.sel32(b, is_sub, ts, tn);
        let inexact = self.f.push(b, Ty::I1, Op::Select(is_sub, inexact_s, inexact_n));
        let maxf = self.k(0x7bff);
        let big = self.k(0x4780_0000); // 65536: beyond the largest finite half's rounding range
        let over = self.cmp32(b, CmpOp::GeU, a, big);
        let t = self.sel32(b, over, maxf, t);
        let inexact = {
            let one = self.const_val(Ty::I1, 1);
            self.f.push(b, Ty::I1, Op::Select(over, one, inexact))
        };
        // Toward zero: the truncated magnitude; toward ±∞: one more when inexact on that side.
        let mag = if matches!(mode, HalfRound::Rtp | HalfRound::Rtn) {
            let neg = self.cmp32(b, CmpOp::Ne, sign, zero);
            let away = if mode == HalfRound::Rtn { neg } else { self.f.push(b, Ty::I1, Op::Un(UnOp::Not, neg)) };
            let bump = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, away, inexact));
            let one = self.k(1);
            let t1 = self.bin32(b, BinOp::Add, t, one);
            self.sel32(b, bump, t1, t)
        } else {
            t
        };
        // The directed modes clamped ∞ to the largest finite half.
        let hinf = self.k(0x7c00);
        let mag = self.sel32(b, is_inf, hinf, mag);
        let qnan = self.k(0x7e00);
        let payload = self.bin32(b, BinOp::ShrL, a, c13);
        let m3ff = self.k(0x3ff);
        let payload = self.bin32(b, BinOp::And, payload, m3ff);
        let nan = self.bin32(b, BinOp::Or, qnan, payload);
        let mag = self.sel32(b, is_nan, nan, mag);
        let h = self.bin32(b, BinOp::Or, mag, sign);
        self.f.push(b, Ty::I16, Op::Conv(ConvOp::Trunc, h))
    }

    /// `vload_half[n]` / `vloada_half[n]`: `n` halves at `p + offset × stride` (stride = n, or 4
    /// for the aligned 3-element form) as floats.
    pub(super) fn vload_half(
        &mut self,
        b: BlockId,
        off: Value,
        p: Value,
        n: u32,
        aligned: bool,
    ) -> Result<Vec<Value>, CompileError> {
        let stride = if aligned && n == 3 { 4 } else { n };
        let pty = self.f.ty(p);
        let base = self.index(b, p, off, 2 * stride, pty)?;
        let mut out = Vec::new();
        for k in 0..n {
            let a = self.offset_ptr(b, base, 2 * k);
            let h = self.f.push(b, Ty::I16, Op::Load(a));
            out.push(self.half_to_float(b, h));
        }
        Ok(out)
    }

    /// `vstore_half[n][_r]` / `vstorea_half[n][_r]`.
    #[allow(clippy::too_many_arguments)] // mirrors the built-in's operands
    pub(super) fn vstore_half(
        &mut self,
        b: BlockId,
        data: &[Value],
        off: Value,
        p: Value,
        aligned: bool,
        mode: HalfRound,
    ) -> Result<(), CompileError> {
        let n = data.len() as u32;
        let stride = if aligned && n == 3 { 4 } else { n };
        let pty = self.f.ty(p);
        let base = self.index(b, p, off, 2 * stride, pty)?;
        for (k, &v) in data.iter().enumerate() {
            if self.f.ty(v) != Ty::F32 {
                return Err(CompileError::unsupported("vstore_half of double values"));
            }
            let h = self.float_to_half(b, v, mode);
            let a = self.offset_ptr(b, base, 2 * k as u32);
            self.f.push_void(b, Op::Store { ptr: a, value: h });
        }
        Ok(())
    }
}
