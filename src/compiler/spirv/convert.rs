//! Numeric conversions of the front end (`convert_<type>[_sat][_<rounding>]`): integer resizing,
//! saturation (`SaturatedConversion` decoration, `OpSatConvert*`), and the `FPRoundingMode`
//! decoration on float ↔ integer conversions. Works for every integer width including 64-bit
//! (64-bit IR operations are legalized later by `pass::legalize64`).
//!
//! Contracts: float → integer truncates by default; with a rounding mode the float is rounded to
//! an integral value first (rte: nearest even, rtp: up, rtn: down). Saturating float → integer
//! conversions clamp to the destination range and map NaN to 0 (non-saturating out-of-range
//! results are unspecified in OpenCL; ours are the hardware's). Integer → float rounds to nearest
//! even, or toward zero / +inf / -inf as decorated (computed by stepping the nearest-even result
//! one ulp when it lies on the wrong side).

use super::super::ir::*;
use super::lower::Lowerer;
use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, FPRoundingMode as M};

impl Lowerer<'_> {
    /// (`SaturatedConversion`, `FPRoundingMode`) decorations of a conversion's result.
    pub(super) fn conv_mods(&self, i: &Instruction) -> (bool, Option<M>) {
        let Some(r) = i.result_id else { return (false, None) };
        let Some(ds) = self.m.decorations.get(&r) else { return (false, None) };
        let sat = ds.iter().any(|(d, _)| *d == Decoration::SaturatedConversion);
        let mode = ds.iter().find_map(|(d, ops)| match (d, ops.first()) {
            (Decoration::FPRoundingMode, Some(Operand::FPRoundingMode(m))) => Some(*m),
            _ => None,
        });
        (sat, mode)
    }

    /// Integer `v` resized to `to` (sign- or zero-extended, or truncated).
    pub(super) fn resize(&mut self, b: BlockId, v: Value, to: Ty, signed: bool) -> Value {
        let from = self.f.ty(v);
        if from == to {
            return v;
        }
        let c = if to.bits() < from.bits() {
            ConvOp::Trunc
        } else if to.bits() == from.bits() {
            ConvOp::Bitcast
        } else if signed {
            ConvOp::SExt
        } else {
            ConvOp::ZExt
        };
        self.f.push(b, to, Op::Conv(c, v))
    }

    /// Integer `v` (signed or unsigned) converted to `dst` with saturation.
    pub(super) fn clamp_int(&mut self, b: BlockId, v: Value, src_signed: bool, dst: Ty, dst_signed: bool) -> Value {
        let (sb, db) = (self.f.ty(v).bits(), dst.bits());
        let w = if sb.max(db) > 32 { Ty::I64 } else { Ty::I32 };
        let wb = w.bits();
        let mask = |bits: u32| if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let mut x = self.resize(b, v, w, src_signed);
        if src_signed {
            let lo = if dst_signed { (1u64 << (db - 1)).wrapping_neg() & mask(wb) } else { 0 };
            if dst_signed && db >= sb {
                // Every source value fits below.
            } else {
                let c = self.const_val(w, lo);
                x = self.f.push(b, w, Op::Bin(BinOp::MaxS, x, c));
            }
        }
        let hi = if dst_signed { mask(db - 1) } else { mask(db) };
        let fits = if src_signed == dst_signed { db >= sb } else { !src_signed && db > sb };
        if !fits {
            let o = if src_signed && dst_signed { BinOp::MinS } else { BinOp::MinU };
            let c = self.const_val(w, hi);
            x = self.f.push(b, w, Op::Bin(o, x, c));
        }
        self.resize(b, x, dst, false)
    }

    /// Float → integer of type `t`.
    pub(super) fn float_to_int(
        &mut self,
        b: BlockId,
        x: Value,
        t: Ty,
        signed: bool,
        sat: bool,
        mode: Option<M>,
    ) -> Value {
        let x = match mode {
            Some(M::RTE) => self.f.push(b, Ty::F32, Op::Un(UnOp::FRint, x)),
            Some(M::RTP) => self.f.push(b, Ty::F32, Op::Un(UnOp::FCeil, x)),
            Some(M::RTN) => self.f.push(b, Ty::F32, Op::Un(UnOp::FFloor, x)),
            _ => x,
        };
        let c = if signed { ConvOp::FToS } else { ConvOp::FToU };
        if t == Ty::I64 {
            // Saturating with NaN → 0 by construction (pass::legalize64).
            return self.f.push(b, t, Op::Conv(c, x));
        }
        let r = self.f.push(b, Ty::I32, Op::Conv(c, x));
        if !sat {
            return self.resize(b, r, t, signed);
        }
        // The hardware conversion saturates to 32 bits; NaN must give 0.
        let nan = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FUno, x, x));
        let z = self.const_val(Ty::I32, 0);
        let r = self.f.push(b, Ty::I32, Op::Select(nan, z, r));
        if t == Ty::I32 {
            r
        } else {
            self.clamp_int(b, r, signed, t, signed)
        }
    }

    /// Integer → float with an optional rounding mode (default: nearest even).
    pub(super) fn int_to_float(&mut self, b: BlockId, x: Value, signed: bool, mode: Option<M>) -> Value {
        let st = self.f.ty(x);
        let x = if matches!(st, Ty::I1 | Ty::I8 | Ty::I16) { self.resize(b, x, Ty::I32, signed) } else { x };
        let c = if signed { ConvOp::SToF } else { ConvOp::UToF };
        let f = self.f.push(b, Ty::F32, Op::Conv(c, x));
        let mode = match mode {
            Some(m @ (M::RTZ | M::RTP | M::RTN)) => m,
            _ => return f,
        };
        // Compare the nearest-even result with the exact value (both as 64-bit integers).
        let x64 = self.resize(b, x, Ty::I64, signed);
        let back = self.f.push(b, Ty::I64, Op::Conv(if signed { ConvOp::FToS } else { ConvOp::FToU }, f));
        let limit = self.const_val(Ty::F32, (if signed { 2f32.powi(63) } else { 2f32.powi(64) }).to_bits() as u64);
        let over = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGe, f, limit));
        let (lt, gt) = if signed { (CmpOp::LtS, CmpOp::GtS) } else { (CmpOp::LtU, CmpOp::GtU) };
        let g = self.f.push(b, Ty::I1, Op::Cmp(gt, back, x64));
        let above = self.f.push(b, Ty::I1, Op::Bin(BinOp::Or, over, g));
        let l = self.f.push(b, Ty::I1, Op::Cmp(lt, back, x64));
        let nover = self.f.push(b, Ty::I1, Op::Un(UnOp::Not, over));
        let below = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, nover, l));
        let z = self.const_val(Ty::F32, 0);
        let pos = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGt, f, z));
        // Step toward zero (bits - 1) or away from zero (bits + 1).
        let (toward, away) = match mode {
            // |f| too large: above for positive, below for negative.
            M::RTZ => {
                let npos = self.f.push(b, Ty::I1, Op::Un(UnOp::Not, pos));
                let a = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, pos, above));
                let n = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, npos, below));
                (self.f.push(b, Ty::I1, Op::Bin(BinOp::Or, a, n)), None)
            }
            // Too large: step down (toward zero if positive, away if negative).
            M::RTN => {
                let npos = self.f.push(b, Ty::I1, Op::Un(UnOp::Not, pos));
                let t = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, pos, above));
                (t, Some(self.f.push(b, Ty::I1, Op::Bin(BinOp::And, npos, above))))
            }
            // Too small: step up (away from zero if positive, toward if negative).
            _ => {
                let npos = self.f.push(b, Ty::I1, Op::Un(UnOp::Not, pos));
                let t = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, npos, below));
                (t, Some(self.f.push(b, Ty::I1, Op::Bin(BinOp::And, pos, below))))
            }
        };
        let bits = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, f));
        let one = self.const_val(Ty::I32, 1);
        let down = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, bits, one));
        let mut r = self.f.push(b, Ty::I32, Op::Select(toward, down, bits));
        if let Some(a) = away {
            let up = self.f.push(b, Ty::I32, Op::Bin(BinOp::Add, bits, one));
            r = self.f.push(b, Ty::I32, Op::Select(a, up, r));
        }
        self.f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, r))
    }
}
