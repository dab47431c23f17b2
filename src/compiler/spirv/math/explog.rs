//! Exponentials, logarithms, powers, hyperbolic functions and `cbrt`.

use super::super::super::ir::*;
use super::{split, E};
use std::f64::consts::{LN_10, LN_2, LOG10_2, LOG2_E};

/// Coefficients of the musl/FreeBSD `logf` kernel (2·atanh(s) tail in s²).
const LG1: f64 = 0xaaaaaa as f64 / 16777216.0;
const LG2: f64 = 0xccce13 as f64 / 33554432.0;
const LG3: f64 = 0x91e9ee as f64 / 33554432.0;
const LG4: f64 = 0xf89e26 as f64 / 67108864.0;

impl E<'_, '_> {
    /// `e^s * 2^j` for |s| <= ~0.36 and j in [-151, 129].
    fn exp_core(&mut self, s: Value, j: Value) -> Value {
        let p = self.poly(s, &[1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0]);
        self.scale2(p, j)
    }

    fn clamp(&mut self, x: Value, lo: f32, hi: f32) -> Value {
        let l = self.c(lo);
        let h = self.c(hi);
        let m = self.fmax(x, l);
        self.fmin(m, h)
    }

    /// Cody–Waite reduction by ln 2: (j as float, s) with x = j·ln2 + s.
    fn reduce_ln2(&mut self, x: Value) -> (Value, Value) {
        let t = self.mulc(x, LOG2_E as f32);
        let j = self.rint(t);
        let nj = self.neg(j);
        let (hi, lo) = split(LN_2);
        let r = self.fmac(nj, hi, x);
        let s = self.fmac(nj, lo, r);
        (j, s)
    }

    pub fn exp(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -104.0, 89.0);
        let (j, s) = self.reduce_ln2(xc);
        let ji = self.f2s(j);
        let r = self.exp_core(s, ji);
        self.keep_nan(x, r)
    }

    pub fn exp2(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -152.0, 129.0);
        let j = self.rint(xc);
        let s0 = self.sub(xc, j);
        let s = self.mul_dd(s0, LN_2);
        let ji = self.f2s(j);
        let r = self.exp_core(s, ji);
        self.keep_nan(x, r)
    }

    pub fn exp10(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -46.0, 39.0);
        let t = self.mulc(xc, (LN_10 / LN_2) as f32);
        let j = self.rint(t);
        let nj = self.neg(j);
        let (hi, lo) = split(LOG10_2);
        let r = self.fmac(nj, hi, xc);
        let s0 = self.fmac(nj, lo, r);
        let s = self.mul_dd(s0, LN_10);
        let ji = self.f2s(j);
        let r = self.exp_core(s, ji);
        self.keep_nan(x, r)
    }

    pub fn expm1(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -30.0, 80.0);
        let (j, s) = self.reduce_ln2(xc);
        let q = self.poly(s, &[0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0]);
        let s2 = self.mul(s, s);
        let u = self.fma(s2, q, s);
        let ji = self.f2s(j);
        let t = self.pow2i(ji);
        let one = self.c(1.0);
        let tm1 = self.sub(t, one);
        let r = self.fma(t, u, tm1);
        let big = self.c(80.0);
        let isbig = self.fgt(x, big);
        let ex = self.exp(x);
        let r = self.sel(isbig, ex, r);
        let r = self.keep_nan(x, r);
        self.keep_zero(x, r)
    }

    /// x = 2^k · m with m in [√½, √2): returns (k as i32, f = m - 1) for positive finite x.
    fn log_reduce(&mut self, x: Value) -> (Value, Value) {
        let tiny = self.c(f32::MIN_POSITIVE);
        let is_tiny = self.flt(x, tiny);
        let xs = self.mulc(x, 33554432.0);
        let xs = self.sel(is_tiny, xs, x);
        let (a25, z) = (self.ci(-25), self.ci(0));
        let kadj = self.sel(is_tiny, a25, z);
        let ix = self.f2b(xs);
        let ix = self.addi(ix, 0x3f80_0000 - 0x3f35_04f3);
        let k = self.srai(ix, 23);
        let k = self.addi(k, -0x7f);
        let k = self.iadd(k, kadj);
        let m = self.andi(ix, 0x007f_ffff);
        let m = self.addi(m, 0x3f35_04f3);
        let m = self.b2f(m);
        let one = self.c(1.0);
        (k, self.sub(m, one))
    }

    /// (s, hfsq, R) of the logf kernel: log(1+f) = f - hfsq + s·(hfsq + R).
    fn log_kernel(&mut self, f: Value) -> (Value, Value, Value) {
        let two = self.c(2.0);
        let d = self.add(two, f);
        let s = self.div(f, d);
        let z = self.mul(s, s);
        let w = self.mul(z, z);
        let c2 = self.c(LG2 as f32);
        let t1 = self.fmac(w, LG4 as f32, c2);
        let t1 = self.mul(w, t1);
        let c1 = self.c(LG1 as f32);
        let t2 = self.fmac(w, LG3 as f32, c1);
        let t2 = self.mul(z, t2);
        let r = self.add(t2, t1);
        let hf = self.mulc(f, 0.5);
        let hfsq = self.mul(hf, f);
        (s, hfsq, r)
    }

    /// Natural (base 0), binary (2) or decimal (10) logarithm.
    pub fn log(&mut self, x: Value, base: u32) -> Value {
        let (k, f) = self.log_reduce(x);
        let dk = self.s2f(k);
        let (s, hfsq, rr) = self.log_kernel(f);
        let hr = self.add(hfsq, rr);
        let r = match base {
            0 => {
                let hi = f32::from_bits(0x3f31_7180);
                let lo = (LN_2 - hi as f64) as f32;
                let a = self.mulc(dk, lo);
                let t = self.fma(s, hr, a);
                let t = self.sub(t, hfsq);
                let t = self.add(t, f);
                self.fmac(dk, hi, t)
            }
            _ => {
                let hi0 = self.sub(f, hfsq);
                let hb = self.f2b(hi0);
                let hb = self.andi(hb, 0xffff_f000);
                let hi = self.b2f(hb);
                let fh = self.sub(f, hi);
                let fh = self.sub(fh, hfsq);
                let lo = self.fma(s, hr, fh);
                let sum = self.add(lo, hi);
                if base == 2 {
                    let ih = f32::from_bits(0x3fb8_b000);
                    let il = (LOG2_E - ih as f64) as f32;
                    let t = self.mulc(sum, il);
                    let t = self.fmac(lo, ih, t);
                    let t = self.fmac(hi, ih, t);
                    self.add(t, dk)
                } else {
                    let ih = f32::from_bits(0x3ede_6000);
                    let il = (std::f64::consts::LOG10_E - ih as f64) as f32;
                    let lh = f32::from_bits(0x3e9a_2080);
                    let ll = (LOG10_2 - lh as f64) as f32;
                    let t = self.mulc(dk, ll);
                    let t = self.fmac(sum, il, t);
                    let t = self.fmac(lo, ih, t);
                    let t = self.fmac(hi, ih, t);
                    self.fmac(dk, lh, t)
                }
            }
        };
        self.log_specials(x, r)
    }

    /// log of +inf, 0, negatives and NaN.
    fn log_specials(&mut self, x: Value, r: Value) -> Value {
        let inf = self.c(f32::INFINITY);
        let ninf = self.c(f32::NEG_INFINITY);
        let z = self.c(0.0);
        let isinf = self.feq(x, inf);
        let r = self.sel(isinf, inf, r);
        let is0 = self.feq(x, z);
        let r = self.sel(is0, ninf, r);
        let neg = self.flt(x, z);
        let nan = self.nan();
        let r = self.sel(neg, nan, r);
        self.keep_nan(x, r)
    }

    pub fn log1p(&mut self, x: Value) -> Value {
        let one = self.c(1.0);
        let u = self.add(one, x);
        let iu = self.f2b(u);
        let iu = self.addi(iu, 0x3f80_0000 - 0x3f35_04f3);
        let k = self.srai(iu, 23);
        let k = self.addi(k, -0x7f);
        let m = self.andi(iu, 0x007f_ffff);
        let m = self.addi(m, 0x3f35_04f3);
        let m = self.b2f(m);
        let fk = self.sub(m, one);
        // Correction c ≈ log(1+x) - log(u), divided by u.
        let umx = self.sub(u, x);
        let c_hi = self.sub(one, umx);
        let um1 = self.sub(u, one);
        let c_lo = self.sub(x, um1);
        let two = self.ci(2);
        let kge2 = self.icmp(CmpOp::GeS, k, two);
        let c = self.sel(kge2, c_hi, c_lo);
        let c = self.div(c, u);
        let k25 = self.ci(25);
        let kge25 = self.icmp(CmpOp::GeS, k, k25);
        let zf = self.c(0.0);
        let c = self.sel(kge25, zf, c);
        let zi = self.ci(0);
        let k0 = self.ieq(k, zi);
        let f = self.sel(k0, x, fk);
        let c = self.sel(k0, zf, c);
        let dk = self.s2f(k);
        let (s, hfsq, rr) = self.log_kernel(f);
        let hr = self.add(hfsq, rr);
        let hi = f32::from_bits(0x3f31_7180);
        let lo = (LN_2 - hi as f64) as f32;
        let a = self.fmac(dk, lo, c);
        let t = self.fma(s, hr, a);
        let t = self.sub(t, hfsq);
        let t = self.add(t, f);
        let r = self.fmac(dk, hi, t);
        // Specials: log1p(-1) = -inf, x < -1 → NaN, +inf → +inf, ±0 → ±0.
        let m1 = self.c(-1.0);
        let inf = self.c(f32::INFINITY);
        let ninf = self.c(f32::NEG_INFINITY);
        let isinf = self.feq(x, inf);
        let r = self.sel(isinf, inf, r);
        let ism1 = self.feq(x, m1);
        let r = self.sel(ism1, ninf, r);
        let lt = self.flt(x, m1);
        let nan = self.nan();
        let r = self.sel(lt, nan, r);
        let r = self.keep_nan(x, r);
        self.keep_zero(x, r)
    }

    /// log2(ax) as a double-float (hi, lo) for positive finite `ax`.
    pub(super) fn log2_dd(&mut self, ax: Value) -> (Value, Value) {
        let (k, f) = self.log_reduce(ax);
        let two = self.c(2.0);
        let u = self.add(two, f);
        let t = self.sub(two, u);
        let ul = self.add(t, f);
        let sh = self.div(f, u);
        let nsh = self.neg(sh);
        let rr = self.fma(nsh, u, f);
        let rr = self.fma(nsh, ul, rr);
        let sl = self.div(rr, u);
        let z = self.mul(sh, sh);
        let p = self.poly(z, &[2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0, 2.0 / 11.0]);
        let sz = self.mul(sh, z);
        let tail = self.mul(sz, p);
        let lh = self.mulc(sh, 2.0);
        let ll = self.fmac(sl, 2.0, tail);
        let h = self.add(lh, ll);
        let d = self.sub(h, lh);
        let l = self.sub(ll, d);
        let (eh, el) = split(LOG2_E);
        let th = self.mulc(h, eh);
        let nth = self.neg(th);
        let tl = self.fmac(h, eh, nth);
        let tl = self.fmac(h, el, tl);
        let tl = self.fmac(l, eh, tl);
        let kf = self.s2f(k);
        let hh = self.add(kf, th);
        let d = self.sub(kf, hh);
        let d = self.add(d, th);
        let lo = self.add(d, tl);
        (hh, lo)
    }

    /// 2^(ph + pl), overflowing to +inf and underflowing to 0.
    pub(super) fn exp2_dd(&mut self, ph: Value, pl: Value) -> Value {
        let p = self.add(ph, pl);
        let d = self.sub(p, ph);
        let pl2 = self.sub(pl, d);
        let (lo, hi) = (self.c(-151.0), self.c(129.0));
        let a = self.fge(p, lo);
        let b = self.fle(p, hi);
        let inr = self.and(a, b);
        let pc = self.clamp(p, -151.0, 129.0);
        let j = self.rint(pc);
        let r0 = self.sub(pc, j);
        let z = self.c(0.0);
        let plz = self.sel(inr, pl2, z);
        let r = self.add(r0, plz);
        let s = self.mul_dd(r, LN_2);
        let ji = self.f2s(j);
        self.exp_core(s, ji)
    }

    /// Shared `pow` family body: x^y with y = yh (+ ylo), `yodd` telling an odd integer
    /// exponent. Handles zeros, infinities and NaN operands; the callers add their own rules.
    fn pow_general(&mut self, x: Value, yh: Value, ylo: Option<Value>, yodd: Value) -> Value {
        let ax = self.abs(x);
        let (h, l) = self.log2_dd(ax);
        let ph = self.mul(yh, h);
        let nph = self.neg(ph);
        let pl = self.fma(yh, h, nph);
        let pl = self.fma(yh, l, pl);
        let pl = match ylo {
            Some(yl) => self.fma(yl, h, pl),
            None => pl,
        };
        let aph = self.abs(ph);
        let inf = self.c(f32::INFINITY);
        let fin = self.flt(aph, inf);
        let z = self.c(0.0);
        let pl = self.sel(fin, pl, z);
        let r = self.exp2_dd(ph, pl);
        let xneg = self.signbit(x);
        let flip = self.and(xneg, yodd);
        let nr = self.neg(r);
        let r = self.sel(flip, nr, r);
        let ylt0 = self.flt(yh, z);
        // x = ±0 and x = ±inf.
        let zr = self.sel(ylt0, inf, z);
        let nzr = self.neg(zr);
        let zr = self.sel(flip, nzr, zr);
        let ax0 = self.feq(ax, z);
        let r = self.sel(ax0, zr, r);
        let ir = self.sel(ylt0, z, inf);
        let nir = self.neg(ir);
        let ir = self.sel(flip, nir, ir);
        let axinf = self.feq(ax, inf);
        let r = self.sel(axinf, ir, r);
        // |x| = 1 with infinite y, and y = ±0 or x = 1: 1.
        let one = self.c(1.0);
        let ax1 = self.feq(ax, one);
        let yinf = self.isinf(yh);
        let c1 = self.and(ax1, yinf);
        let r = self.sel(c1, one, r);
        let nx = self.isnan(x);
        let ny = self.isnan(yh);
        let nn = self.or(nx, ny);
        let nan = self.nan();
        let r = self.sel(nn, nan, r);
        let y0 = self.feq(yh, z);
        let x1 = self.feq(x, one);
        let c1 = self.or(y0, x1);
        self.sel(c1, one, r)
    }

    /// (is an integer, is an odd integer) for a float.
    fn int_parity(&mut self, y: Value) -> (Value, Value) {
        let t = self.trunc(y);
        let yint = self.feq(t, y);
        let h = self.mulc(y, 0.5);
        let th = self.trunc(h);
        let ev = self.feq(th, h);
        let nev = self.not(ev);
        (yint, self.and(yint, nev))
    }

    pub fn pow(&mut self, x: Value, y: Value) -> Value {
        let (yint, yodd) = self.int_parity(y);
        let r = self.pow_general(x, y, None, yodd);
        // Finite negative x with a non-integer finite y: NaN.
        let z = self.c(0.0);
        let ninf = self.c(f32::NEG_INFINITY);
        let a = self.flt(x, z);
        let b = self.fgt(x, ninf);
        let nyint = self.not(yint);
        let ny = self.isnan(y);
        let nny = self.not(ny);
        let c = self.and(a, b);
        let c = self.and(c, nyint);
        let c = self.and(c, nny);
        let nan = self.nan();
        self.sel(c, nan, r)
    }

    pub fn powr(&mut self, x: Value, y: Value) -> Value {
        let ax = self.abs(x);
        let f = self.l.const_val(Ty::I1, 0);
        let r = self.pow_general(ax, y, None, f);
        let z = self.c(0.0);
        let one = self.c(1.0);
        let inf = self.c(f32::INFINITY);
        let xneg = self.flt(x, z);
        let x0 = self.feq(x, z);
        let y0 = self.feq(y, z);
        let xinf = self.feq(x, inf);
        let x1 = self.feq(x, one);
        let yinf = self.isinf(y);
        let a = self.and(x0, y0);
        let b = self.and(xinf, y0);
        let c = self.and(x1, yinf);
        let nx = self.isnan(x);
        let ny = self.isnan(y);
        let mut bad = xneg;
        for v in [a, b, c, nx, ny] {
            bad = self.or(bad, v);
        }
        let nan = self.nan();
        self.sel(bad, nan, r)
    }

    /// (y as float, y - float(y) as float, y odd) for an integer exponent.
    fn int_exponent(&mut self, n: Value) -> (Value, Value, Value) {
        let y = self.s2f(n);
        let back = self.f2s(y);
        let d = self.isub(n, back);
        let yl = self.s2f(d);
        let lo = self.andi(n, 1);
        let z = self.ci(0);
        let odd = self.ine(lo, z);
        (y, yl, odd)
    }

    pub fn pown(&mut self, x: Value, n: Value) -> Value {
        let (y, yl, odd) = self.int_exponent(n);
        self.pow_general(x, y, Some(yl), odd)
    }

    pub fn rootn(&mut self, x: Value, n: Value) -> Value {
        let nf = self.s2f(n);
        let one = self.c(1.0);
        let yh = self.div(one, nf);
        let nyh = self.neg(yh);
        let e = self.fma(nyh, nf, one);
        let yl = self.div(e, nf);
        let lo = self.andi(n, 1);
        let zi = self.ci(0);
        let odd = self.ine(lo, zi);
        let r = self.pow_general(x, yh, Some(yl), odd);
        let n0 = self.ieq(n, zi);
        let z = self.c(0.0);
        let xneg = self.flt(x, z);
        let even = self.not(odd);
        let c = self.and(xneg, even);
        let c = self.or(c, n0);
        let nan = self.nan();
        self.sel(c, nan, r)
    }

    pub fn sinh(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let c88 = self.c(88.0);
        let am = self.fmin(a, c88);
        let t = self.expm1(am);
        let one = self.c(1.0);
        let t1 = self.add(t, one);
        let tt = self.mul(t, t);
        let q = self.div(tt, t1);
        let nq = self.neg(q);
        let sm = self.fmac(t, 2.0, nq);
        let tq = self.div(t, t1);
        let mid = self.add(t, tq);
        let lt1 = self.flt(a, one);
        let r = self.sel(lt1, sm, mid);
        let r = self.mulc(r, 0.5);
        let ah = self.mulc(a, 0.5);
        let e = self.exp(ah);
        let eh = self.mulc(e, 0.5);
        let lg = self.mul(eh, e);
        let big = self.fgt(a, c88);
        let r = self.sel(big, lg, r);
        let r = self.cs(r, x);
        self.keep_nan(x, r)
    }

    pub fn cosh(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let c88 = self.c(88.0);
        let am = self.fmin(a, c88);
        let t = self.expm1(am);
        let one = self.c(1.0);
        let t1 = self.add(t, one);
        let d = self.mulc(t1, 2.0);
        let tt = self.mul(t, t);
        let q = self.div(tt, d);
        let sm = self.add(one, q);
        let e = self.exp(am);
        let half = self.c(0.5);
        let ie = self.div(half, e);
        let mid = self.fma(e, half, ie);
        let ln2 = self.c(LN_2 as f32);
        let small = self.flt(a, ln2);
        let r = self.sel(small, sm, mid);
        let ah = self.mulc(a, 0.5);
        let e2 = self.exp(ah);
        let eh = self.mulc(e2, 0.5);
        let lg = self.mul(eh, e2);
        let big = self.fgt(a, c88);
        let r = self.sel(big, lg, r);
        self.keep_nan(x, r)
    }

    pub fn tanh(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let c9 = self.c(9.1);
        let am = self.fmin(a, c9);
        let a2 = self.mulc(am, 2.0);
        let e2 = self.expm1(a2);
        let two = self.c(2.0);
        let one = self.c(1.0);
        let d = self.add(e2, two);
        let q = self.div(two, d);
        let big = self.sub(one, q);
        let mid = self.div(e2, d);
        let na2 = self.neg(a2);
        let en = self.expm1(na2);
        let dn = self.add(en, two);
        let sm = self.div(en, dn);
        let sm = self.neg(sm);
        let c1 = self.c(0.549_306_15);
        let c2 = self.c(0.255_412_8);
        let gt2 = self.fgt(a, c2);
        let r = self.sel(gt2, mid, sm);
        let gt1 = self.fgt(a, c1);
        let r = self.sel(gt1, big, r);
        let r = self.cs(r, x);
        let r = self.keep_nan(x, r);
        self.keep_zero(x, r)
    }

    pub fn asinh(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let one = self.c(1.0);
        let a2 = self.mul(a, a);
        let t = self.add(a2, one);
        let sq = self.sqrt(t);
        let sa = self.add(sq, a);
        let inv = self.div(one, sa);
        let larg = self.fmac(a, 2.0, inv);
        let c4096 = self.c(4096.0);
        let huge = self.fge(a, c4096);
        let arg = self.sel(huge, a, larg);
        let lg = self.log(arg, 0);
        let z = self.c(0.0);
        let ln2 = self.c(LN_2 as f32);
        let add = self.sel(huge, ln2, z);
        let rl = self.add(lg, add);
        let s1 = self.add(sq, one);
        let q = self.div(a2, s1);
        let sarg = self.add(a, q);
        let rs = self.log1p(sarg);
        let two = self.c(2.0);
        let ge2 = self.fge(a, two);
        let r = self.sel(ge2, rl, rs);
        let r = self.cs(r, x);
        let r = self.keep_nan(x, r);
        self.keep_zero(x, r)
    }

    pub fn acosh(&mut self, x: Value) -> Value {
        let one = self.c(1.0);
        let xm1 = self.sub(x, one);
        let t2 = self.mulc(xm1, 2.0);
        let t = self.fma(xm1, xm1, t2);
        let sq = self.sqrt(t);
        let s = self.add(xm1, sq);
        let s1 = self.log1p(s);
        let m1 = self.c(-1.0);
        let t = self.fma(x, x, m1);
        let sq = self.sqrt(t);
        let d = self.add(x, sq);
        let inv = self.div(one, d);
        let ninv = self.neg(inv);
        let larg = self.fmac(x, 2.0, ninv);
        let c4096 = self.c(4096.0);
        let huge = self.fge(x, c4096);
        let arg = self.sel(huge, x, larg);
        let lg = self.log(arg, 0);
        let z = self.c(0.0);
        let ln2 = self.c(LN_2 as f32);
        let add = self.sel(huge, ln2, z);
        let rl = self.add(lg, add);
        let two = self.c(2.0);
        let lt2 = self.flt(x, two);
        let r = self.sel(lt2, s1, rl);
        let lt1 = self.flt(x, one);
        let nan = self.nan();
        let r = self.sel(lt1, nan, r);
        self.keep_nan(x, r)
    }

    pub fn atanh(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let one = self.c(1.0);
        let d = self.sub(one, a);
        let q = self.div(a, d);
        let a2 = self.mulc(a, 2.0);
        let sm = self.fma(a2, q, a2);
        let bg = self.mulc(q, 2.0);
        let half = self.c(0.5);
        let lt = self.flt(a, half);
        let arg = self.sel(lt, sm, bg);
        let l = self.log1p(arg);
        let r = self.mulc(l, 0.5);
        let r = self.cs(r, x);
        let r = self.keep_nan(x, r);
        self.keep_zero(x, r)
    }

    pub fn cbrt(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let tiny = self.c(f32::MIN_POSITIVE);
        let is_tiny = self.flt(a, tiny);
        let sc = self.mulc(a, 16777216.0);
        let a_s = self.sel(is_tiny, sc, a);
        // Large arguments are scaled down so that r³ cannot overflow.
        let huge = self.c(2.0f32.powi(100));
        let is_huge = self.fgt(a, huge);
        let sd = self.mulc(a, 2.0f32.powi(-96));
        let a_s = self.sel(is_huge, sd, a_s);
        let ib = self.f2b(a_s);
        let three = self.ci(3);
        let q = self.divu(ib, three);
        let q = self.addi(q, 0x2a51_4067);
        let mut r = self.b2f(q);
        let third = self.c(1.0 / 3.0);
        for _ in 0..3 {
            let rr = self.mul(r, r);
            let d = self.div(a_s, rr);
            let t = self.fmac(r, 2.0, d);
            r = self.mul(t, third);
        }
        // Final correction from the (nearly exact) residual a - r³.
        let r2 = self.mul(r, r);
        let nr2 = self.neg(r2);
        let r2e = self.fma(r, r, nr2);
        let r3 = self.mul(r2, r);
        let nr3 = self.neg(r3);
        let r3e = self.fma(r2, r, nr3);
        let r3e = self.fma(r2e, r, r3e);
        let res = self.sub(a_s, r3);
        let res = self.sub(res, r3e);
        let d3 = self.mulc(r2, 3.0);
        let corr = self.div(res, d3);
        let r = self.add(r, corr);
        let (s8, o) = (self.c(1.0 / 256.0), self.c(1.0));
        let f = self.sel(is_tiny, s8, o);
        let s32 = self.c(2.0f32.powi(32));
        let f = self.sel(is_huge, s32, f);
        let r = self.mul(r, f);
        let r = self.cs(r, x);
        // 0, inf, NaN: x itself.
        let z = self.c(0.0);
        let inf = self.c(f32::INFINITY);
        let is0 = self.feq(a, z);
        let isinf = self.feq(a, inf);
        let nn = self.isnan(x);
        let c = self.or(is0, isinf);
        let c = self.or(c, nn);
        self.sel(c, x, r)
    }
}
