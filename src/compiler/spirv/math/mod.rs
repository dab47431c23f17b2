//! OpenCL.std math, common and relational built-ins for `float`, lowered to branch-free IR
//! sequences (range reduction, polynomials, `Select` for special values). Accuracy targets are the
//! OpenCL 3.0 full-profile ULP bounds; special values follow C99 Annex F.
//!
//! Entry point: [`Lowerer::lower_math`], called first by `lower_ext`; it returns `None` for the
//! instructions it does not handle (they fall through to `ops.rs`).

mod explog;
mod rem;
mod special;
mod trig;

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;
use spirv::OpenclStd100Op as C;

/// An instruction builder appending to one block.
pub(super) struct E<'a, 'm> {
    pub l: &'a mut Lowerer<'m>,
    pub b: BlockId,
}

/// Splits an f64 constant into a float and the float of the remainder.
pub(super) fn split(v: f64) -> (f32, f32) {
    let hi = v as f32;
    (hi, (v - hi as f64) as f32)
}

#[allow(dead_code)]
impl E<'_, '_> {
    fn push(&mut self, t: Ty, op: Op) -> Value {
        self.l.f.push(self.b, t, op)
    }
    pub fn c(&mut self, v: f32) -> Value {
        self.l.const_val(Ty::F32, v.to_bits() as u64)
    }
    pub fn cb(&mut self, bits: u32) -> Value {
        self.l.const_val(Ty::F32, bits as u64)
    }
    pub fn ci(&mut self, v: i32) -> Value {
        self.l.const_val(Ty::I32, v as u32 as u64)
    }
    fn fb(&mut self, o: BinOp, a: Value, b: Value) -> Value {
        self.push(Ty::F32, Op::Bin(o, a, b))
    }
    fn fu(&mut self, o: UnOp, a: Value) -> Value {
        self.push(Ty::F32, Op::Un(o, a))
    }
    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FAdd, a, b)
    }
    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FSub, a, b)
    }
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FMul, a, b)
    }
    pub fn div(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FDiv, a, b)
    }
    pub fn fmin(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FMin, a, b)
    }
    pub fn fmax(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FMax, a, b)
    }
    pub fn cs(&mut self, a: Value, b: Value) -> Value {
        self.fb(BinOp::FCopySign, a, b)
    }
    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.push(Ty::F32, Op::Fma(a, b, c))
    }
    pub fn neg(&mut self, a: Value) -> Value {
        self.fu(UnOp::FNeg, a)
    }
    pub fn abs(&mut self, a: Value) -> Value {
        self.fu(UnOp::FAbs, a)
    }
    pub fn sqrt(&mut self, a: Value) -> Value {
        self.fu(UnOp::FSqrt, a)
    }
    pub fn floor(&mut self, a: Value) -> Value {
        self.fu(UnOp::FFloor, a)
    }
    pub fn trunc(&mut self, a: Value) -> Value {
        self.fu(UnOp::FTrunc, a)
    }
    pub fn rint(&mut self, a: Value) -> Value {
        self.fu(UnOp::FRint, a)
    }
    fn cmp(&mut self, o: CmpOp, a: Value, b: Value) -> Value {
        self.push(Ty::I1, Op::Cmp(o, a, b))
    }
    pub fn flt(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::FLt, a, b)
    }
    pub fn fle(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::FLe, a, b)
    }
    pub fn fgt(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::FGt, a, b)
    }
    pub fn fge(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::FGe, a, b)
    }
    pub fn feq(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::FEq, a, b)
    }
    pub fn isnan(&mut self, a: Value) -> Value {
        self.cmp(CmpOp::FUno, a, a)
    }
    /// `a` is ±0.
    pub fn iszero(&mut self, a: Value) -> Value {
        let z = self.c(0.0);
        self.feq(a, z)
    }
    /// |a| is infinite.
    pub fn isinf(&mut self, a: Value) -> Value {
        let ab = self.abs(a);
        let inf = self.c(f32::INFINITY);
        self.feq(ab, inf)
    }
    /// Sign bit of a float.
    pub fn signbit(&mut self, a: Value) -> Value {
        let bits = self.f2b(a);
        let z = self.ci(0);
        self.ilt(bits, z)
    }
    pub fn icmp(&mut self, o: CmpOp, a: Value, b: Value) -> Value {
        self.cmp(o, a, b)
    }
    pub fn ieq(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::Eq, a, b)
    }
    pub fn ine(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::Ne, a, b)
    }
    pub fn ilt(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::LtS, a, b)
    }
    pub fn iltu(&mut self, a: Value, b: Value) -> Value {
        self.cmp(CmpOp::LtU, a, b)
    }
    fn ib(&mut self, o: BinOp, a: Value, b: Value) -> Value {
        let t = self.l.f.ty(a);
        self.push(t, Op::Bin(o, a, b))
    }
    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::And, a, b)
    }
    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::Or, a, b)
    }
    pub fn xor(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::Xor, a, b)
    }
    pub fn not(&mut self, a: Value) -> Value {
        let t = self.l.f.ty(a);
        self.push(t, Op::Un(UnOp::Not, a))
    }
    pub fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::Add, a, b)
    }
    pub fn isub(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::Sub, a, b)
    }
    pub fn imul(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::Mul, a, b)
    }
    pub fn mulhu(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::MulHiU, a, b)
    }
    pub fn divu(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::DivU, a, b)
    }
    pub fn remu(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::RemU, a, b)
    }
    pub fn imax(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::MaxS, a, b)
    }
    pub fn imin(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::MinS, a, b)
    }
    pub fn shl(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::Shl, a, b)
    }
    pub fn shr(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::ShrL, a, b)
    }
    pub fn sra(&mut self, a: Value, b: Value) -> Value {
        self.ib(BinOp::ShrA, a, b)
    }
    pub fn shli(&mut self, a: Value, k: i32) -> Value {
        let c = self.ci(k);
        self.shl(a, c)
    }
    pub fn shri(&mut self, a: Value, k: i32) -> Value {
        let c = self.ci(k);
        self.shr(a, c)
    }
    pub fn srai(&mut self, a: Value, k: i32) -> Value {
        let c = self.ci(k);
        self.sra(a, c)
    }
    pub fn andi(&mut self, a: Value, k: u32) -> Value {
        let c = self.ci(k as i32);
        self.and(a, c)
    }
    pub fn addi(&mut self, a: Value, k: i32) -> Value {
        let c = self.ci(k);
        self.iadd(a, c)
    }
    pub fn clz(&mut self, a: Value) -> Value {
        self.push(Ty::I32, Op::Un(UnOp::Clz, a))
    }
    pub fn sel(&mut self, c: Value, a: Value, b: Value) -> Value {
        let t = self.l.f.ty(a);
        self.push(t, Op::Select(c, a, b))
    }
    pub fn f2b(&mut self, a: Value) -> Value {
        self.push(Ty::I32, Op::Conv(ConvOp::Bitcast, a))
    }
    pub fn b2f(&mut self, a: Value) -> Value {
        self.push(Ty::F32, Op::Conv(ConvOp::Bitcast, a))
    }
    pub fn s2f(&mut self, a: Value) -> Value {
        self.push(Ty::F32, Op::Conv(ConvOp::SToF, a))
    }
    pub fn u2f(&mut self, a: Value) -> Value {
        self.push(Ty::F32, Op::Conv(ConvOp::UToF, a))
    }
    pub fn f2s(&mut self, a: Value) -> Value {
        self.push(Ty::I32, Op::Conv(ConvOp::FToS, a))
    }
    /// `a * k` for a float constant.
    pub fn mulc(&mut self, a: Value, k: f32) -> Value {
        let c = self.c(k);
        self.mul(a, c)
    }
    pub fn addc(&mut self, a: Value, k: f32) -> Value {
        let c = self.c(k);
        self.add(a, c)
    }
    /// `a*k + b` (fused) for a float constant `k`.
    pub fn fmac(&mut self, a: Value, k: f32, b: Value) -> Value {
        let c = self.c(k);
        self.fma(a, c, b)
    }
    /// `a * (hi + lo)` for an f64 constant, with the rounding of one product.
    pub fn mul_dd(&mut self, a: Value, k: f64) -> Value {
        let (hi, lo) = split(k);
        let l = self.mulc(a, lo);
        self.fmac(a, hi, l)
    }
    /// Horner evaluation with fused multiply-adds; `c[0]` is the constant term.
    pub fn poly(&mut self, x: Value, c: &[f64]) -> Value {
        let n = c.len() - 1;
        let mut p = self.c(c[n] as f32);
        for k in (0..n).rev() {
            let ck = self.c(c[k] as f32);
            p = self.fma(p, x, ck);
        }
        p
    }
    /// 2^n as a float for an i32 `n` in [-126, 127].
    pub fn pow2i(&mut self, n: Value) -> Value {
        let e = self.addi(n, 127);
        let s = self.shli(e, 23);
        self.b2f(s)
    }
    /// `x * 2^n` for `n` in [-252, 254] with one final rounding (two exact steps).
    pub fn scale2(&mut self, x: Value, n: Value) -> Value {
        let n1 = self.srai(n, 1);
        let n2 = self.isub(n, n1);
        let f1 = self.pow2i(n1);
        let f2 = self.pow2i(n2);
        let t = self.mul(x, f1);
        self.mul(t, f2)
    }
    /// `x == 0 ? x : r` (keeps the sign of zero arguments).
    pub fn keep_zero(&mut self, x: Value, r: Value) -> Value {
        let z = self.iszero(x);
        self.sel(z, x, r)
    }
    /// `isnan(x) ? x : r`.
    pub fn keep_nan(&mut self, x: Value, r: Value) -> Value {
        let n = self.isnan(x);
        self.sel(n, x, r)
    }
    pub fn nan(&mut self) -> Value {
        self.cb(0x7fc0_0000)
    }
    pub fn store(&mut self, ptr: Value, value: Value) {
        self.l.f.push_void(self.b, Op::Store { ptr, value });
    }
}

impl Lowerer<'_> {
    /// Lowers the OpenCL.std instruction `op` (result leaf types `leaves`) when it is one of the
    /// math built-ins implemented here; `None` leaves it to the generic lowering.
    pub(super) fn lower_math(
        &mut self,
        b: BlockId,
        op: C,
        leaves: &[Ty],
        a: &[Vec<Value>],
    ) -> Result<Option<Vec<Value>>, CompileError> {
        if matches!(op, C::length | C::distance | C::normalize) {
            return self.lower_geometric(b, op, a).map(Some);
        }
        // Element-wise; pointer operands (sincos, fract, modf, frexp, remquo, lgamma_r) receive
        // one out value per element, at 4-byte steps.
        let out_ptr = matches!(op, C::sincos | C::fract | C::modf | C::frexp | C::remquo | C::lgamma_r);
        if !out_ptr && !handled(op) {
            return Ok(None);
        }
        // 64-bit integers: only the pure bit-logic built-ins (legalised later like any i64 op).
        let wide = leaves.contains(&Ty::I64) || a.iter().flatten().any(|v| self.f.ty(*v) == Ty::I64);
        if wide && !matches!(op, C::bitselect | C::select) {
            return Ok(None);
        }
        let n = leaves.len();
        let scalar = n == 1;
        let mut out = Vec::with_capacity(n);
        for (k, &lt) in leaves.iter().enumerate() {
            let mut x = Vec::with_capacity(a.len());
            for v in a {
                let e = if v.len() == 1 {
                    v[0]
                } else {
                    *v.get(k).ok_or(super::invalid("math operand of a different shape"))?
                };
                if matches!(self.f.ty(e), Ty::Ptr(_)) && v.len() == 1 {
                    x.push(self.offset_ptr(b, e, 4 * k as u32));
                } else {
                    x.push(e);
                }
            }
            if x.is_empty() {
                return Err(super::invalid(format!("{op:?}: too few operands")));
            }
            let need = match op {
                C::sincos | C::fract | C::modf | C::frexp | C::lgamma_r => 2,
                C::remquo | C::bitselect | C::select | C::smoothstep => 3,
                _ if two_args(op) => 2,
                _ => 1,
            };
            if x.len() < need {
                return Err(super::invalid(format!("{op:?}: too few operands")));
            }
            let mut e = E { l: self, b };
            let r = e.scalar(op, &x, lt, scalar);
            match r {
                Some(r) => out.push(r),
                None => return Err(self.err(&format!("the built-in function `{op:?}`"))),
            }
        }
        Ok(Some(out))
    }
}

impl Lowerer<'_> {
    /// `length`, `distance` and `normalize` without intermediate overflow or underflow: the
    /// vector is scaled by a power of two taken from its largest component.
    fn lower_geometric(&mut self, b: BlockId, op: C, a: &[Vec<Value>]) -> Result<Vec<Value>, CompileError> {
        let need = if op == C::distance { 2 } else { 1 };
        if a.len() < need || a[..need].iter().any(|v| v.is_empty()) {
            return Err(super::invalid(format!("{op:?}: too few operands")));
        }
        let mut e = E { l: self, b };
        let mut v = a[0].clone();
        if op == C::distance {
            if a[1].len() != v.len() {
                return Err(super::invalid("distance of vectors of different sizes"));
            }
            v = v.iter().zip(&a[1]).map(|(x, y)| e.sub(*x, *y)).collect();
        }
        if op == C::normalize {
            // Infinite elements: normalize the vector of ±1 (infinite) and ±0 (finite) elements.
            let infs: Vec<Value> = v.iter().map(|x| e.isinf(*x)).collect();
            let mut any = infs[0];
            for i in &infs[1..] {
                any = e.or(any, *i);
            }
            let (one, zero) = (e.c(1.0), e.c(0.0));
            v = v
                .iter()
                .zip(&infs)
                .map(|(x, i)| {
                    let o = e.cs(one, *x);
                    let z = e.cs(zero, *x);
                    let w = e.sel(*i, o, z);
                    e.sel(any, w, *x)
                })
                .collect();
        }
        let mut m = e.abs(v[0]);
        for x in &v[1..] {
            let ax = e.abs(*x);
            m = e.fmax(m, ax);
        }
        let bm = e.f2b(m);
        let be = e.shri(bm, 23);
        let (lo, hi) = (e.ci(1), e.ci(253));
        let ex = e.imax(be, lo);
        let ex = e.imin(ex, hi);
        let c254 = e.ci(254);
        let fe = e.isub(c254, ex);
        let fb = e.shli(fe, 23);
        let factor = e.b2f(fb);
        let s: Vec<Value> = v.iter().map(|x| e.mul(*x, factor)).collect();
        let mut sum = e.mul(s[0], s[0]);
        for x in &s[1..] {
            sum = e.fma(*x, *x, sum);
        }
        let l = e.sqrt(sum);
        if op == C::normalize {
            let z = e.c(0.0);
            let l0 = e.feq(l, z);
            return Ok(s
                .iter()
                .zip(&v)
                .map(|(x, orig)| {
                    let q = e.div(*x, l);
                    e.sel(l0, *orig, q)
                })
                .collect());
        }
        let ib = e.shli(ex, 23);
        let inv = e.b2f(ib);
        Ok(vec![e.mul(l, inv)])
    }
}

fn two_args(op: C) -> bool {
    matches!(
        op,
        C::pow
            | C::powr
            | C::pown
            | C::rootn
            | C::atan2
            | C::atan2pi
            | C::hypot
            | C::fmod
            | C::remainder
            | C::ldexp
            | C::nextafter
            | C::maxmag
            | C::minmag
            | C::half_powr
            | C::native_powr
    )
}

fn handled(op: C) -> bool {
    two_args(op)
        || matches!(
            op,
            C::exp
                | C::exp2
                | C::exp10
                | C::expm1
                | C::log
                | C::log2
                | C::log10
                | C::log1p
                | C::logb
                | C::ilogb
                | C::sin
                | C::cos
                | C::tan
                | C::sinpi
                | C::cospi
                | C::tanpi
                | C::asin
                | C::acos
                | C::atan
                | C::asinpi
                | C::acospi
                | C::atanpi
                | C::sinh
                | C::cosh
                | C::tanh
                | C::asinh
                | C::acosh
                | C::atanh
                | C::cbrt
                | C::erf
                | C::erfc
                | C::tgamma
                | C::lgamma
                | C::half_exp
                | C::half_exp2
                | C::half_exp10
                | C::half_log
                | C::half_log2
                | C::half_log10
                | C::half_sin
                | C::half_cos
                | C::half_tan
                | C::native_log
                | C::native_log2
                | C::native_log10
                | C::native_sin
                | C::native_cos
                | C::native_tan
                | C::smoothstep
                | C::bitselect
                | C::select
                | C::nan
        )
}

impl E<'_, '_> {
    /// One element; `t` is the result leaf type; `scalar` tells a scalar call (for `select`).
    fn scalar(&mut self, op: C, x: &[Value], t: Ty, scalar: bool) -> Option<Value> {
        Some(match op {
            C::exp | C::half_exp => self.exp(x[0]),
            C::exp2 | C::half_exp2 => self.exp2(x[0]),
            C::exp10 | C::half_exp10 => self.exp10(x[0]),
            C::expm1 => self.expm1(x[0]),
            C::log | C::half_log | C::native_log => self.log(x[0], 0),
            C::log2 | C::half_log2 | C::native_log2 => self.log(x[0], 2),
            C::log10 | C::half_log10 | C::native_log10 => self.log(x[0], 10),
            C::log1p => self.log1p(x[0]),
            C::pow => self.pow(x[0], x[1]),
            C::powr | C::half_powr | C::native_powr => self.powr(x[0], x[1]),
            C::pown => self.pown(x[0], x[1]),
            C::rootn => self.rootn(x[0], x[1]),
            C::sinh => self.sinh(x[0]),
            C::cosh => self.cosh(x[0]),
            C::tanh => self.tanh(x[0]),
            C::asinh => self.asinh(x[0]),
            C::acosh => self.acosh(x[0]),
            C::atanh => self.atanh(x[0]),
            C::cbrt => self.cbrt(x[0]),
            C::erf => self.erf(x[0]),
            C::erfc => self.erfc(x[0]),
            C::tgamma => self.tgamma(x[0]),
            C::lgamma => self.lgamma(x[0]).0,
            C::lgamma_r => {
                let (r, s) = self.lgamma(x[0]);
                self.store(x[1], s);
                r
            }
            C::sin | C::half_sin | C::native_sin => self.sincos(x[0], false).0,
            C::cos | C::half_cos | C::native_cos => self.sincos(x[0], true).1,
            C::sincos => {
                let (s, c) = self.sincos(x[0], true);
                self.store(x[1], c);
                s
            }
            C::tan | C::half_tan | C::native_tan => self.tan(x[0]),
            C::sinpi => self.sinpi(x[0]),
            C::cospi => self.cospi(x[0]),
            C::tanpi => self.tanpi(x[0]),
            C::asin => self.asin(x[0]),
            C::acos => self.acos(x[0]),
            C::atan => self.atan(x[0]),
            C::atan2 => self.atan2(x[0], x[1]),
            C::asinpi => {
                let r = self.asin(x[0]);
                self.mul_dd(r, std::f64::consts::FRAC_1_PI)
            }
            C::acospi => {
                let r = self.acos(x[0]);
                self.mul_dd(r, std::f64::consts::FRAC_1_PI)
            }
            C::atanpi => {
                let r = self.atan(x[0]);
                self.mul_dd(r, std::f64::consts::FRAC_1_PI)
            }
            C::atan2pi => self.atan2pi(x[0], x[1]),
            C::hypot => self.hypot(x[0], x[1]),
            C::fmod => self.fmod(x[0], x[1]),
            C::remainder => self.remquo(x[0], x[1]).0,
            C::remquo => {
                let (r, q) = self.remquo(x[0], x[1]);
                self.store(x[2], q);
                r
            }
            C::fract => {
                let (fr, fl) = self.fract(x[0]);
                self.store(x[1], fl);
                fr
            }
            C::modf => {
                let (fr, ip) = self.modf(x[0]);
                self.store(x[1], ip);
                fr
            }
            C::frexp => {
                let (m, ex) = self.frexp(x[0]);
                self.store(x[1], ex);
                m
            }
            C::ldexp => self.ldexp(x[0], x[1]),
            C::ilogb => self.ilogb(x[0]),
            C::logb => self.logb(x[0]),
            C::nextafter => self.nextafter(x[0], x[1]),
            C::maxmag | C::minmag => {
                let (ax, ay) = (self.abs(x[0]), self.abs(x[1]));
                let (gt, lt) = (self.fgt(ax, ay), self.flt(ax, ay));
                let (big, small) = if op == C::maxmag { (gt, lt) } else { (lt, gt) };
                let m = if op == C::maxmag { self.fmax(x[0], x[1]) } else { self.fmin(x[0], x[1]) };
                let r = self.sel(small, x[1], m);
                self.sel(big, x[0], r)
            }
            C::smoothstep => {
                // t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2t).
                let d = self.sub(x[2], x[0]);
                let w = self.sub(x[1], x[0]);
                let q = self.div(d, w);
                let (z, o) = (self.c(0.0), self.c(1.0));
                let q = self.fmax(q, z);
                let q = self.fmin(q, o);
                let three = self.c(3.0);
                let m = self.fmac(q, -2.0, three);
                let q2 = self.mul(q, q);
                self.mul(q2, m)
            }
            C::bitselect => {
                let f = t.is_float();
                let (a, bb, c) = if f { (self.f2b(x[0]), self.f2b(x[1]), self.f2b(x[2])) } else { (x[0], x[1], x[2]) };
                let nc = self.not(c);
                let p = self.and(a, nc);
                let q = self.and(bb, c);
                let r = self.or(p, q);
                if f {
                    self.b2f(r)
                } else {
                    r
                }
            }
            C::select => {
                // Scalar: c != 0; vector: the most significant bit of c.
                let c = x[2];
                let ct = self.l.f.ty(c);
                let cond = if scalar {
                    let z = self.l.const_val(ct, 0);
                    self.ine(c, z)
                } else {
                    let m = self.l.const_val(ct, 1u64 << (ct.bits() - 1));
                    let a = self.and(c, m);
                    let z = self.l.const_val(ct, 0);
                    self.ine(a, z)
                };
                self.sel(cond, x[1], x[0])
            }
            C::nan => {
                let m = self.andi(x[0], 0x003f_ffff);
                let q = self.ci(0x7fc0_0000);
                let r = self.or(m, q);
                self.b2f(r)
            }
            _ => return None,
        })
    }
}
