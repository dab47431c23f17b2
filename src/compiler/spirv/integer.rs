//! OpenCL.std integer built-ins that need more than one IR operation, for every integer width
//! (8, 16, 32 and 64 bits; 64-bit IR is legalized later by `pass::legalize64`): `abs_diff`,
//! `add_sat`, `sub_sat`, `hadd`, `rhadd`, `mul_hi`, `mad_hi`, `mad_sat`, `upsample`, `clz`, `ctz`.
//!
//! Contract: [`Lowerer::ext_integer`] returns `Ok(None)` for instructions it does not handle, so
//! the caller can fall through to its other cases. Signedness comes from the `s_`/`u_` opcode.

use super::super::ir::*;
use super::super::CompileError;
use super::invalid;
use super::lower::Lowerer;
use spirv::OpenclStd100Op as C;

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Lowerer<'_> {
    pub(super) fn ext_integer(&mut self, b: BlockId, op: C, t: Ty, x: &[Value]) -> Result<Option<Value>, CompileError> {
        let n = match op {
            C::clz | C::ctz => 1,
            C::s_abs_diff | C::u_abs_diff | C::s_add_sat | C::u_add_sat | C::s_sub_sat | C::u_sub_sat => 2,
            C::s_hadd | C::u_hadd | C::s_rhadd | C::u_rhadd | C::s_mul_hi | C::u_mul_hi => 2,
            C::s_upsample | C::u_upsample => 2,
            C::s_mad_hi | C::u_mad_hi | C::s_mad_sat | C::u_mad_sat => 3,
            _ => return Ok(None),
        };
        if x.len() < n {
            return Err(invalid(format!("{op:?}: too few operands")));
        }
        if !matches!(t, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64) {
            return Err(self.err(&format!("`{op:?}` on a non-integer type")));
        }
        let bits = t.bits();
        let bin = |s: &mut Self, o: BinOp, p: Value, q: Value| s.f.push(b, t, Op::Bin(o, p, q));
        let cmp = |s: &mut Self, o: CmpOp, p: Value, q: Value| s.f.push(b, Ty::I1, Op::Cmp(o, p, q));
        let sel = |s: &mut Self, c: Value, p: Value, q: Value| s.f.push(b, t, Op::Select(c, p, q));
        let smin = mask(bits - 1) + 1; // bit pattern of the most negative value
        Ok(Some(match op {
            C::clz => {
                if t == Ty::I32 || t == Ty::I64 {
                    self.f.push(b, t, Op::Un(UnOp::Clz, x[0]))
                } else {
                    let w = self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, x[0]));
                    let c = self.f.push(b, Ty::I32, Op::Un(UnOp::Clz, w));
                    let k = self.const_val(Ty::I32, (32 - bits) as u64);
                    let c = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, c, k));
                    self.f.push(b, t, Op::Conv(ConvOp::Trunc, c))
                }
            }
            C::ctz => {
                // popcount((x & -x) - 1): the trailing zeros become ones (all ones for x = 0).
                let neg = self.f.push(b, t, Op::Un(UnOp::Neg, x[0]));
                let low = bin(self, BinOp::And, x[0], neg);
                let one = self.const_val(t, 1);
                let m = bin(self, BinOp::Sub, low, one);
                self.f.push(b, t, Op::Un(UnOp::Popcount, m))
            }
            C::s_abs_diff | C::u_abs_diff => {
                let (mx, mn) =
                    if op == C::s_abs_diff { (BinOp::MaxS, BinOp::MinS) } else { (BinOp::MaxU, BinOp::MinU) };
                let hi = bin(self, mx, x[0], x[1]);
                let lo = bin(self, mn, x[0], x[1]);
                bin(self, BinOp::Sub, hi, lo)
            }
            C::u_add_sat => {
                let s = bin(self, BinOp::Add, x[0], x[1]);
                let ovf = cmp(self, CmpOp::LtU, s, x[0]);
                let m = self.const_val(t, mask(bits));
                sel(self, ovf, m, s)
            }
            C::u_sub_sat => {
                let d = bin(self, BinOp::Sub, x[0], x[1]);
                let under = cmp(self, CmpOp::LtU, x[0], x[1]);
                let z = self.const_val(t, 0);
                sel(self, under, z, d)
            }
            C::s_add_sat | C::s_sub_sat => {
                let add = op == C::s_add_sat;
                let r = bin(self, if add { BinOp::Add } else { BinOp::Sub }, x[0], x[1]);
                // Overflow: add — both operands differ in sign from the result; sub — the
                // operands differ in sign and the result's sign differs from x.
                let p = bin(self, BinOp::Xor, r, x[0]);
                let q = if add { bin(self, BinOp::Xor, r, x[1]) } else { bin(self, BinOp::Xor, x[0], x[1]) };
                let o = bin(self, BinOp::And, p, q);
                let z = self.const_val(t, 0);
                let ovf = cmp(self, CmpOp::LtS, o, z);
                let neg = cmp(self, CmpOp::LtS, x[0], z);
                let (mn, mx) = (self.const_val(t, smin), self.const_val(t, mask(bits - 1)));
                let s = sel(self, neg, mn, mx);
                sel(self, ovf, s, r)
            }
            C::s_hadd | C::u_hadd | C::s_rhadd | C::u_rhadd => {
                let sh = if matches!(op, C::s_hadd | C::s_rhadd) { BinOp::ShrA } else { BinOp::ShrL };
                let one = self.const_val(t, 1);
                let a = bin(self, sh, x[0], one);
                let c = bin(self, sh, x[1], one);
                let s = bin(self, BinOp::Add, a, c);
                let lsb = if matches!(op, C::s_hadd | C::u_hadd) { BinOp::And } else { BinOp::Or };
                let l = bin(self, lsb, x[0], x[1]);
                let l = bin(self, BinOp::And, l, one);
                bin(self, BinOp::Add, s, l)
            }
            C::s_mul_hi | C::u_mul_hi => self.mul_hi(b, t, x[0], x[1], op == C::s_mul_hi),
            C::s_mad_hi | C::u_mad_hi => {
                let h = self.mul_hi(b, t, x[0], x[1], op == C::s_mad_hi);
                bin(self, BinOp::Add, h, x[2])
            }
            C::s_mad_sat | C::u_mad_sat => self.mad_sat(b, t, x, op == C::s_mad_sat),
            C::s_upsample | C::u_upsample => {
                let half = self.f.ty(x[0]).bits();
                let h = self.f.push(b, t, Op::Conv(ConvOp::ZExt, x[0]));
                let l = self.f.push(b, t, Op::Conv(ConvOp::ZExt, x[1]));
                let k = self.const_val(t, half as u64);
                let h = bin(self, BinOp::Shl, h, k);
                bin(self, BinOp::Or, h, l)
            }
            _ => return Ok(None),
        }))
    }

    /// High half of the full product (narrow types through a 32-bit product).
    fn mul_hi(&mut self, b: BlockId, t: Ty, p: Value, q: Value, signed: bool) -> Value {
        if t == Ty::I32 || t == Ty::I64 {
            return self.f.push(b, t, Op::Bin(if signed { BinOp::MulHiS } else { BinOp::MulHiU }, p, q));
        }
        let (wp, wq) = (self.resize(b, p, Ty::I32, signed), self.resize(b, q, Ty::I32, signed));
        let m = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, wp, wq));
        let k = self.const_val(Ty::I32, t.bits() as u64);
        let h = self.f.push(b, Ty::I32, Op::Bin(if signed { BinOp::ShrA } else { BinOp::ShrL }, m, k));
        self.f.push(b, t, Op::Conv(ConvOp::Trunc, h))
    }

    /// `x*y + z` saturated to the type: exactly, in twice the width (128-bit for longs).
    fn mad_sat(&mut self, b: BlockId, t: Ty, x: &[Value], signed: bool) -> Value {
        let bits = t.bits();
        if bits <= 32 {
            let w = if bits == 32 { Ty::I64 } else { Ty::I32 };
            let v: Vec<Value> = x[..3].iter().map(|v| self.resize(b, *v, w, signed)).collect();
            let p = self.f.push(b, w, Op::Bin(BinOp::Mul, v[0], v[1]));
            let s = self.f.push(b, w, Op::Bin(BinOp::Add, p, v[2]));
            // The exact sum fits in w (|x*y + z| < 2^(2*bits)); clamp it to the type.
            return self.clamp_int(b, s, signed, t, signed);
        }
        let bin = |s: &mut Self, o: BinOp, p: Value, q: Value| s.f.push(b, t, Op::Bin(o, p, q));
        let cmp = |s: &mut Self, o: CmpOp, p: Value, q: Value| s.f.push(b, Ty::I1, Op::Cmp(o, p, q));
        let sel = |s: &mut Self, c: Value, p: Value, q: Value| s.f.push(b, t, Op::Select(c, p, q));
        let lo = bin(self, BinOp::Mul, x[0], x[1]);
        let hi = bin(self, if signed { BinOp::MulHiS } else { BinOp::MulHiU }, x[0], x[1]);
        let slo = bin(self, BinOp::Add, lo, x[2]);
        let carry = cmp(self, CmpOp::LtU, slo, lo);
        let carry = self.f.push(b, t, Op::Conv(ConvOp::ZExt, carry));
        let max = self.const_val(t, if signed { i64::MAX as u64 } else { u64::MAX });
        if !signed {
            // 128-bit sum hi:slo fits iff hi + carry == 0.
            let h = bin(self, BinOp::Add, hi, carry);
            let z = self.const_val(t, 0);
            let fits = cmp(self, CmpOp::Eq, h, z);
            return sel(self, fits, slo, max);
        }
        let k63 = self.const_val(t, 63);
        let zs = bin(self, BinOp::ShrA, x[2], k63);
        let h = bin(self, BinOp::Add, hi, zs);
        let h = bin(self, BinOp::Add, h, carry);
        let sign = bin(self, BinOp::ShrA, slo, k63);
        let fits = cmp(self, CmpOp::Eq, h, sign);
        let z = self.const_val(t, 0);
        let neg = cmp(self, CmpOp::LtS, h, z);
        let min = self.const_val(t, i64::MIN as u64);
        let s = sel(self, neg, min, max);
        sel(self, fits, slo, s)
    }
}
