//! Error and gamma functions. `tgamma`/`lgamma` use Stirling's series in double-float (two
//! floats) arithmetic after shifting the argument to >= 8, and the reflection formula for
//! negative arguments.

use super::super::super::ir::*;
use super::{split, E};
use std::f64::consts::{LN_2, LOG2_E, PI};

/// erf(x) = x·P(x²) on |x| < 1 (minimax, relative error 1e-10).
const ERF_P: [f64; 8] = [
    1.128379225730896,
    -0.37612637877464294,
    0.11283790320158005,
    -0.02686585672199726,
    0.005222125444561243,
    -0.0008498752140440047,
    0.00011365011596353725,
    -9.932939974532928e-06,
];

/// erfc(x)·e^(x²)·x as a polynomial in 1/x - c: for 1/x in [0.4, 1] (c = 0.7) and in
/// [1/10.1, 0.4] (c = 0.24950495).
const ERFC_A: [f64; 10] = [
    0.4766766428947449,
    -0.17068712413311005,
    0.012497950345277786,
    0.05137389525771141,
    -0.06055096536874771,
    0.043051958084106445,
    -0.0177532397210598,
    -0.005356072913855314,
    0.025690114125609398,
    -0.028982840478420258,
];
const ERFC_B: [f64; 10] = [
    0.5480569005012512,
    -0.11928064376115799,
    -0.16811223328113556,
    0.2195681631565094,
    -0.02741483971476555,
    -0.2740308344364166,
    0.41215434670448303,
    -0.09100283682346344,
    -0.756629467010498,
    1.3267741203308105,
];

type DD = (Value, Value);

const EULER_GAMMA: f32 = 0.577_215_7;

impl E<'_, '_> {
    fn two_sum(&mut self, a: Value, b: Value) -> DD {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let t = self.sub(s, bb);
        let ea = self.sub(a, t);
        let eb = self.sub(b, bb);
        (s, self.add(ea, eb))
    }

    fn renorm(&mut self, h: Value, l: Value) -> DD {
        let s = self.add(h, l);
        let d = self.sub(s, h);
        (s, self.sub(l, d))
    }

    fn dd_add(&mut self, a: DD, b: DD) -> DD {
        let (s, e) = self.two_sum(a.0, b.0);
        let l = self.add(a.1, b.1);
        let e = self.add(e, l);
        self.renorm(s, e)
    }

    fn dd_neg(&mut self, a: DD) -> DD {
        (self.neg(a.0), self.neg(a.1))
    }

    fn dd_mul(&mut self, a: DD, b: DD) -> DD {
        let p = self.mul(a.0, b.0);
        let np = self.neg(p);
        let e = self.fma(a.0, b.0, np);
        let c = self.mul(a.0, b.1);
        let c = self.fma(a.1, b.0, c);
        let e = self.add(e, c);
        self.renorm(p, e)
    }

    fn dd_const(&mut self, v: f64) -> DD {
        let (h, l) = split(v);
        (self.c(h), self.c(l))
    }

    /// log2 of a positive double-float.
    fn log2_of_dd(&mut self, a: DD) -> DD {
        let (h, l) = self.log2_dd(a.0);
        let d = self.mulc(a.0, LN_2 as f32);
        let q = self.div(a.1, d);
        let l = self.add(l, q);
        self.renorm(h, l)
    }

    /// log2 Γ(y) for a positive double-float y (finite, below ~2^23).
    fn log2_gamma(&mut self, y: DD) -> DD {
        let eight = self.c(8.0);
        let d = self.sub(eight, y.0);
        let k = self.fu_ceil(d);
        let z = self.c(0.0);
        let k = self.fmax(k, z);
        let k = self.fmin(k, eight);
        let (zh, zl) = self.two_sum(y.0, k);
        let zl = self.add(zl, y.1);
        let zz = self.renorm(zh, zl);
        // P = Π_{i<k} (y + i).
        let one = self.c(1.0);
        let mut p = (one, z);
        for i in 0..8 {
            let ci = self.c(i as f32);
            let (fh, fl) = self.two_sum(y.0, ci);
            let fl = self.add(fl, y.1);
            let used = self.flt(ci, k);
            let fh = self.sel(used, fh, one);
            let fl = self.sel(used, fl, z);
            p = self.dd_mul(p, (fh, fl));
        }
        // Stirling: (z - 1/2)·log2 z - z·log2 e + log2 √(2π) + S(z)·log2 e.
        let lz = self.log2_of_dd(zz);
        let wh = self.addc(zz.0, -0.5);
        let a = self.dd_mul((wh, zz.1), lz);
        let l2e = self.dd_const(LOG2_E);
        let b = self.dd_mul(zz, l2e);
        let c = self.dd_const(0.5 * (2.0 * PI).log2());
        let iz = self.div(one, zz.0);
        let iz2 = self.mul(iz, iz);
        let s = self.poly(iz2, &[1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0]);
        let s = self.mul(s, iz);
        let s = self.mulc(s, LOG2_E as f32);
        let nb = self.dd_neg(b);
        let e = self.dd_add(a, nb);
        let e = self.dd_add(e, c);
        let e = self.dd_add(e, (s, z));
        let lp = self.log2_of_dd(p);
        let nlp = self.dd_neg(lp);
        self.dd_add(e, nlp)
    }

    fn fu_ceil(&mut self, a: Value) -> Value {
        self.l.f.push(self.b, Ty::F32, Op::Un(UnOp::FCeil, a))
    }

    /// (log2|Γ(x)|, sinpi(x)) for finite x, using reflection for x < 0; `xc` bounds the
    /// argument of the positive branch.
    fn log2_gamma_any(&mut self, x: Value, lo: f32, hi: f32) -> (DD, Value) {
        let z = self.c(0.0);
        let one = self.c(1.0);
        let (l, h) = (self.c(lo), self.c(hi));
        let xc = self.fmax(x, l);
        let xc = self.fmin(xc, h);
        let neg = self.flt(x, z);
        let nx = self.neg(xc);
        let (rh, rl) = self.two_sum(one, nx);
        let yh = self.sel(neg, rh, xc);
        let yl = self.sel(neg, rl, z);
        let e = self.log2_gamma((yh, yl));
        let s = self.sinpi(x);
        let as_ = self.abs(s);
        let ls = self.log2_dd(as_);
        let lpi = self.dd_const(PI.log2());
        let nls = self.dd_neg(ls);
        let r = self.dd_add(lpi, nls);
        let ne = self.dd_neg(e);
        let r = self.dd_add(r, ne);
        let eh = self.sel(neg, r.0, e.0);
        let el = self.sel(neg, r.1, e.1);
        ((eh, el), s)
    }

    pub fn tgamma(&mut self, x: Value) -> Value {
        let ((eh, el), s) = self.log2_gamma_any(x, -60.0, 40.0);
        let r = self.exp2_dd(eh, el);
        let z = self.c(0.0);
        let neg = self.flt(x, z);
        let sneg = self.flt(s, z);
        let flip = self.and(neg, sneg);
        let nr = self.neg(r);
        let r = self.sel(flip, nr, r);
        // Tiny negative x: 1/x - γ.
        let one = self.c(1.0);
        let ix = self.div(one, x);
        let tv = self.addc(ix, -EULER_GAMMA);
        let tiny = self.tiny_negative(x);
        let r = self.sel(tiny, tv, r);
        // Poles and infinities: ±0 → ±inf, negative integers and -inf → NaN.
        let inf = self.c(f32::INFINITY);
        let zi = self.cs(inf, x);
        let x0 = self.feq(x, z);
        let r = self.sel(x0, zi, r);
        let s0 = self.feq(s, z);
        let pole = self.and(neg, s0);
        let ninf = self.c(f32::NEG_INFINITY);
        let mi = self.feq(x, ninf);
        let bad = self.or(pole, mi);
        let nan = self.nan();
        let r = self.sel(bad, nan, r);
        let pi = self.feq(x, inf);
        let r = self.sel(pi, inf, r);
        self.keep_nan(x, r)
    }

    /// -2^-20 < x < 0.
    fn tiny_negative(&mut self, x: Value) -> Value {
        let z = self.c(0.0);
        let lo = self.c(-(2.0f32.powi(-20)));
        let a = self.flt(x, z);
        let b = self.fgt(x, lo);
        self.and(a, b)
    }

    /// (lgamma, sign of Γ as i32).
    pub fn lgamma(&mut self, x: Value) -> (Value, Value) {
        let big = 1073741824.0f32;
        let ((eh, el), s) = self.log2_gamma_any(x, -big, big);
        let (h, l) = split(LN_2);
        let t = self.mulc(eh, l);
        let t = self.fmac(el, h, t);
        let r = self.fmac(eh, h, t);
        // Huge |x|: x·(ln x - 1) (only the positive side is finite).
        let ax = self.abs(x);
        let lx = self.log(ax, 0);
        let lx1 = self.addc(lx, -1.0);
        let hv = self.mul(ax, lx1);
        let cb = self.c(big);
        let huge = self.fge(ax, cb);
        let r = self.sel(huge, hv, r);
        // Tiny negative x (sinpi(x) loses precision): -ln|x| - γ·x.
        let z = self.c(0.0);
        let tiny = self.tiny_negative(x);
        let nlx = self.neg(lx);
        let tv = self.fmac(x, -EULER_GAMMA, nlx);
        let r = self.sel(tiny, tv, r);
        let one = self.c(1.0);
        let two = self.c(2.0);
        let is1 = self.feq(x, one);
        let is2 = self.feq(x, two);
        let ex = self.or(is1, is2);
        let r = self.sel(ex, z, r);
        let inf = self.c(f32::INFINITY);
        let neg = self.flt(x, z);
        let s0 = self.feq(s, z);
        let pole = self.and(neg, s0);
        let x0 = self.feq(x, z);
        let xi = self.isinf(x);
        let p = self.or(pole, x0);
        let p = self.or(p, xi);
        let r = self.sel(p, inf, r);
        let r = self.keep_nan(x, r);
        // Sign: -1 for x < 0 with sinpi(x) < 0, and for -0.
        let sneg = self.flt(s, z);
        let sn = self.and(neg, sneg);
        let sb = self.signbit(x);
        let mz = self.and(x0, sb);
        let m = self.or(sn, mz);
        let (m1, p1) = (self.ci(-1), self.ci(1));
        (r, self.sel(m, m1, p1))
    }

    /// erfc(a)·(for a >= 1) from e^(-a²) and the fitted polynomial.
    fn erfc_big(&mut self, a: Value) -> Value {
        let cap = self.c(10.5);
        let ac = self.fmin(a, cap);
        let one = self.c(1.0);
        let t = self.div(one, ac);
        let c04 = self.c(0.4);
        let in1 = self.fge(t, c04);
        let (ca, cbb) = (self.c(0.7), self.c(0.249_504_95));
        let c = self.sel(in1, ca, cbb);
        let s = self.sub(t, c);
        let n = ERFC_A.len() - 1;
        let (pa, pb) = (self.c(ERFC_A[n] as f32), self.c(ERFC_B[n] as f32));
        let mut p = self.sel(in1, pa, pb);
        for k in (0..n).rev() {
            let (ka, kb) = (self.c(ERFC_A[k] as f32), self.c(ERFC_B[k] as f32));
            let ck = self.sel(in1, ka, kb);
            p = self.fma(p, s, ck);
        }
        let xh = self.mul(ac, ac);
        let nxh = self.neg(xh);
        let xl = self.fma(ac, ac, nxh);
        let e = self.exp(nxh);
        let ne = self.neg(e);
        let e = self.fma(ne, xl, e);
        let ht = self.mul(p, t);
        self.mul(e, ht)
    }

    pub fn erf(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let z = self.mul(x, x);
        let p = self.poly(z, &ERF_P);
        let ps = self.mul(x, p);
        let one = self.c(1.0);
        let am = self.fmax(a, one);
        let eb = self.erfc_big(am);
        let big = self.sub(one, eb);
        let big = self.cs(big, x);
        let small = self.flt(a, one);
        let r = self.sel(small, ps, big);
        self.keep_nan(x, r)
    }

    pub fn erfc(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let z = self.mul(x, x);
        let p = self.poly(z, &ERF_P);
        let one = self.c(1.0);
        let ps = self.mul(x, p);
        let sm = self.sub(one, ps);
        let am = self.fmax(a, one);
        let eb = self.erfc_big(am);
        let two = self.c(2.0);
        let nb = self.sub(two, eb);
        let zero = self.c(0.0);
        let xneg = self.flt(x, zero);
        let big = self.sel(xneg, nb, eb);
        let small = self.flt(a, one);
        let r = self.sel(small, sm, big);
        self.keep_nan(x, r)
    }
}
