//! Trigonometric functions: Payne–Hanek reduction (exact for every float argument), Taylor
//! kernels on [-π/4, π/4], and minimax polynomials for the inverse functions.

use super::super::super::ir::*;
use super::{split, E};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// Bits of 2/π: word k (k ≥ 1) holds bits 32(k-1)+1 ..= 32k after the binary point.
const TWO_OVER_PI: [u32; 9] =
    [0, 0xa2f9_836e, 0x4e44_1529, 0xfc27_57d1, 0xf534_ddc0, 0xdb62_9599, 0x3c43_9041, 0xfe51_63ab, 0xdebb_c561];

/// atan(t) = t + t·z·P(z), z = t², t in [0, 1] (minimax, relative error 3e-9).
const ATAN_P: [f64; 9] = [
    -0.333332896232605,
    0.19998300075531006,
    -0.14261575043201447,
    0.10938290506601334,
    -0.08363232761621475,
    0.057276997715234756,
    -0.030507974326610565,
    0.010559366084635258,
    -0.0017151477513834834,
];

/// asin(t) = t + t·z·P(z), z = t² in [0, 1/4] (minimax, relative error 3e-10).
const ASIN_P: [f64; 6] = [
    0.16666659712791443,
    0.07500510662794113,
    0.0445157028734684,
    0.03181776776909828,
    0.014402009546756744,
    0.03756603226065636,
];

impl E<'_, '_> {
    /// Reduces |x| (`ax`) by π/2: (quadrant as i32, remainder in [-π/4, π/4]).
    fn reduce_pio2(&mut self, ax: Value) -> (Value, Value) {
        let bits = self.f2b(ax);
        let be = self.shri(bits, 23);
        let mant = self.andi(bits, 0x007f_ffff);
        let imp = self.ci(0x0080_0000);
        let m = self.or(mant, imp);
        // Window of 96 bits of 2/π starting at bit be - 151 (position 2^(1-s), s = be - 150).
        let g = self.addi(be, -120);
        let i = self.srai(g, 5);
        let e = self.andi(g, 31);
        let words: Vec<Value> = TWO_OVER_PI.iter().map(|w| self.ci(*w as i32)).collect();
        let conds: Vec<Value> = (0..4)
            .map(|k| {
                let c = self.ci(k);
                self.ieq(i, c)
            })
            .collect();
        let mut w = Vec::new();
        for t in 0..4 {
            let mut v = words[4 + t];
            for k in (0..4).rev() {
                v = self.sel(conds[k], words[k + t], v);
            }
            w.push(v);
        }
        let c31 = self.ci(31);
        let inv = self.isub(c31, e);
        let sh = |s: &mut Self, a: Value, b: Value| {
            let h = s.shl(a, e);
            let l = s.shri(b, 1);
            let l = s.shr(l, inv);
            s.or(h, l)
        };
        let w0 = sh(self, w[0], w[1]);
        let w1 = sh(self, w[1], w[2]);
        let w2 = sh(self, w[2], w[3]);
        let hi2 = self.mulhu(m, w2);
        let lo1 = self.imul(m, w1);
        let hi1 = self.mulhu(m, w1);
        let lo0 = self.imul(m, w0);
        let wd1 = self.iadd(lo1, hi2);
        let carry = self.iltu(wd1, lo1);
        let (one, zero) = (self.ci(1), self.ci(0));
        let c1 = self.sel(carry, one, zero);
        let q0 = self.iadd(lo0, hi1);
        let qq = self.iadd(q0, c1);
        let qr = self.addi(qq, 0x2000_0000);
        let q = self.shri(qr, 30);
        // Signed 64-bit fraction of a quadrant (units 2^-64).
        let h = self.shli(qq, 2);
        let f30 = self.shri(wd1, 30);
        let hi = self.or(h, f30);
        let lo = self.shli(wd1, 2);
        let neg = self.ilt(hi, zero);
        let nlo = self.isub(zero, lo);
        let nhi = self.not(hi);
        let lz0 = self.ieq(lo, zero);
        let inc = self.sel(lz0, one, zero);
        let nhi = self.iadd(nhi, inc);
        let hi = self.sel(neg, nhi, hi);
        let lo = self.sel(neg, nlo, lo);
        let hz = self.ieq(hi, zero);
        let hi2 = self.sel(hz, lo, hi);
        let lo2 = self.sel(hz, zero, lo);
        let c32 = self.ci(32);
        let extra = self.sel(hz, c32, zero);
        let lz = self.clz(hi2);
        let sh_l = self.shl(hi2, lz);
        let inv = self.isub(c31, lz);
        let l1 = self.shri(lo2, 1);
        let l2 = self.shr(l1, inv);
        let hn = self.or(sh_l, l2);
        let ah = self.andi(hn, 0xffff_ff00);
        let al = self.andi(hn, 0xff);
        let af = self.u2f(ah);
        let bf = self.u2f(al);
        let (ph, pl) = split(FRAC_PI_2);
        let t = self.mulc(af, ph);
        let nt = self.neg(t);
        let te = self.fmac(af, ph, nt);
        let te = self.fmac(af, pl, te);
        let te = self.fmac(bf, ph, te);
        let r = self.add(t, te);
        let r = self.mulc(r, 2.0f32.powi(-32));
        let tot = self.iadd(lz, extra);
        let ntot = self.isub(zero, tot);
        let sc = self.pow2i(ntot);
        let r = self.mul(r, sc);
        let nr = self.neg(r);
        let r = self.sel(neg, nr, r);
        let pio4 = self.c(FRAC_PI_4 as f32);
        let small = self.fle(ax, pio4);
        let r = self.sel(small, ax, r);
        let q = self.sel(small, zero, q);
        (q, r)
    }

    /// sin(r), |r| <= π/4.
    fn sin_poly(&mut self, r: Value, z: Value) -> Value {
        let p = self.poly(z, &[-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0]);
        let rz = self.mul(r, z);
        self.fma(rz, p, r)
    }

    /// cos(r), z = r², |r| <= π/4.
    fn cos_poly(&mut self, z: Value) -> Value {
        let p = self.poly(z, &[-0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3628800.0]);
        let one = self.c(1.0);
        self.fma(z, p, one)
    }

    /// Flips the sign of `v` when bit 31 of `flip` is set.
    fn flip_sign(&mut self, v: Value, flip: Value) -> Value {
        let b = self.f2b(v);
        let x = self.xor(b, flip);
        self.b2f(x)
    }

    /// (sin part, cos part, quadrant) of a reduced argument, unsigned.
    fn sc_parts(&mut self, q: Value, r: Value) -> (Value, Value, Value) {
        let z = self.mul(r, r);
        let s = self.sin_poly(r, z);
        let c = self.cos_poly(z);
        let q1 = self.andi(q, 1);
        let zero = self.ci(0);
        let odd = self.ine(q1, zero);
        (s, c, odd)
    }

    fn sign_of(&mut self, x: Value) -> Value {
        let b = self.f2b(x);
        self.andi(b, 0x8000_0000)
    }

    /// `ax < inf ? v : NaN`.
    fn finite_or_nan(&mut self, ax: Value, v: Value) -> Value {
        let inf = self.c(f32::INFINITY);
        let fin = self.flt(ax, inf);
        let nan = self.nan();
        self.sel(fin, v, nan)
    }

    /// Signed sin and cos from a quadrant and remainder of |x|.
    fn sc_finish(&mut self, x: Value, ax: Value, q: Value, r: Value) -> (Value, Value) {
        let (s, c, odd) = self.sc_parts(q, r);
        let sv = self.sel(odd, c, s);
        let cv = self.sel(odd, s, c);
        let q2 = self.andi(q, 2);
        let sf = self.shli(q2, 30);
        let xs = self.sign_of(x);
        let sf = self.xor(sf, xs);
        let sin = self.flip_sign(sv, sf);
        let q1 = self.addi(q, 1);
        let q1 = self.andi(q1, 2);
        let cf = self.shli(q1, 30);
        let cos = self.flip_sign(cv, cf);
        (self.finite_or_nan(ax, sin), self.finite_or_nan(ax, cos))
    }

    pub fn sincos(&mut self, x: Value, _need_cos: bool) -> (Value, Value) {
        let ax = self.abs(x);
        let (q, r) = self.reduce_pio2(ax);
        self.sc_finish(x, ax, q, r)
    }

    /// tan from a quadrant and remainder: s/c or -c/s, signed like x.
    fn tan_finish(&mut self, x: Value, q: Value, r: Value) -> (Value, Value) {
        let (s, c, odd) = self.sc_parts(q, r);
        let t0 = self.div(s, c);
        let t1 = self.div(c, s);
        let t1 = self.neg(t1);
        let t = self.sel(odd, t1, t0);
        let xs = self.sign_of(x);
        (self.flip_sign(t, xs), xs)
    }

    pub fn tan(&mut self, x: Value) -> Value {
        let ax = self.abs(x);
        let (q, r) = self.reduce_pio2(ax);
        let (t, _) = self.tan_finish(x, q, r);
        self.finite_or_nan(ax, t)
    }

    /// Reduction of |x|·π: (quadrant, remainder·π, remainder) with the remainder in [-1/4, 1/4].
    fn reduce_pi(&mut self, ax: Value) -> (Value, Value, Value) {
        let big = self.c(16777216.0);
        let axc = self.fmin(ax, big);
        let t2 = self.mulc(axc, 2.0);
        let n = self.rint(t2);
        let t = self.fmac(n, -0.5, axc);
        let ni = self.f2s(n);
        let q = self.andi(ni, 3);
        let r = self.mul_dd(t, PI);
        (q, r, t)
    }

    pub fn sinpi(&mut self, x: Value) -> Value {
        let ax = self.abs(x);
        let (q, r, _) = self.reduce_pi(ax);
        let (s, _) = self.sc_finish(x, ax, q, r);
        let z = self.c(0.0);
        let is0 = self.feq(s, z);
        let sz = self.cs(z, x);
        self.sel(is0, sz, s)
    }

    pub fn cospi(&mut self, x: Value) -> Value {
        let ax = self.abs(x);
        let (q, r, _) = self.reduce_pi(ax);
        let (_, c) = self.sc_finish(x, ax, q, r);
        let z = self.c(0.0);
        let is0 = self.feq(c, z);
        self.sel(is0, z, c)
    }

    pub fn tanpi(&mut self, x: Value) -> Value {
        let ax = self.abs(x);
        let (q, r, t) = self.reduce_pi(ax);
        let (v, _) = self.tan_finish(x, q, r);
        // Exact integers and half-integers: flip the sign for quadrants 1 and 2.
        let z = self.c(0.0);
        let t0 = self.feq(t, z);
        let (c1, c2) = (self.ci(1), self.ci(2));
        let q1 = self.ieq(q, c1);
        let q2 = self.ieq(q, c2);
        let qq = self.or(q1, q2);
        let fl = self.and(t0, qq);
        let nv = self.neg(v);
        let v = self.sel(fl, nv, v);
        self.finite_or_nan(ax, v)
    }

    /// atan(t) for t ≥ 0 (+∞ included), reduced so the polynomial only sees |u| ≤ tan(π/8)
    /// (fdlibm's ranges): up to tan(π/8) directly; then atan(c) + atan(u) with c = ½ and
    /// u = (2t − 1)/(2 + t) below 11/16, c = 1 and u = (t − 1)/(t + 1) below 19/16, c = 3/2 and
    /// u = (t − 3/2)/(1 + 3t/2) below 39/16, and c = ∞ (π/2) with u = −1/t above. Each numerator
    /// is exact (Sterbenz), so every range stays within 1 ulp (one π/4 reduction over
    /// (tan(π/8), 1] with 1/t above 1 was 2 ulp where t − 1 or 1/t rounds).
    fn atan_poly(&mut self, t: Value) -> Value {
        let ks = [0.414_213_57f32, 0.6875, 1.1875, 2.4375];
        let [c1, c2, c3, c4] = ks.map(|k| {
            let k = self.c(k);
            self.fge(t, k)
        });
        let one = self.c(1.0);
        let two = self.c(2.0);
        let neg_one = self.c(-1.0);
        let three_halves = self.c(1.5);
        // Numerators and denominators of the four reduced ranges.
        let n1 = self.fma(t, two, neg_one);
        let d1 = self.add(t, two);
        let n2 = self.sub(t, one);
        let d2 = self.add(t, one);
        let n3 = self.sub(t, three_halves);
        let d3 = self.fma(t, three_halves, one);
        let pick = |e: &mut Self, a: Value, b: Value, c: Value, d: Value| {
            let x = e.sel(c2, b, a);
            let x = e.sel(c3, c, x);
            e.sel(c4, d, x)
        };
        let num = pick(self, n1, n2, n3, neg_one);
        let den = pick(self, d1, d2, d3, t);
        let r = self.div(num, den);
        let u = self.sel(c1, r, t);
        let z = self.mul(u, u);
        let p = self.poly(z, &ATAN_P);
        let uz = self.mul(u, z);
        let q = self.fma(uz, p, u);
        let offsets =
            [0.463_647_609_000_806_1, std::f64::consts::FRAC_PI_4, 0.982_793_723_247_329, std::f64::consts::FRAC_PI_2];
        let [(h1, l1), (h2, l2), (h3, l3), (h4, l4)] = offsets.map(split);
        let [h1, h2, h3, h4, l1, l2, l3, l4] = [h1, h2, h3, h4, l1, l2, l3, l4].map(|k| self.c(k));
        let h = pick(self, h1, h2, h3, h4);
        let l = pick(self, l1, l2, l3, l4);
        let s = self.add(h, q);
        let plus = self.add(s, l);
        self.sel(c1, plus, q)
    }

    /// `hi(k) - p + lo(k)` for an f64 constant `k`.
    fn const_minus(&mut self, k: f64, p: Value) -> Value {
        let (hi, lo) = split(k);
        let h = self.c(hi);
        let d = self.sub(h, p);
        self.addc(d, lo)
    }

    pub fn atan(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let r = self.atan_poly(a);
        self.cs(r, x)
    }

    pub fn atan2(&mut self, y: Value, x: Value) -> Value {
        self.atan2_in(y, x, false)
    }

    /// `atan2pi`: the same reduction with the angle in units of π, so that the quadrant offsets
    /// (½, 1) are exact and the axis and infinity cases give exactly ±½, ±1, ±¼, ±¾.
    pub fn atan2pi(&mut self, y: Value, x: Value) -> Value {
        self.atan2_in(y, x, true)
    }

    fn atan2_in(&mut self, y: Value, x: Value, pi_units: bool) -> Value {
        let (half_turn, quarter_turn) = if pi_units { (1.0, 0.5) } else { (PI, FRAC_PI_2) };
        let ax = self.abs(x);
        let ay = self.abs(y);
        let mx = self.fmax(ax, ay);
        let mn = self.fmin(ax, ay);
        let t = self.div(mn, mx);
        let z = self.c(0.0);
        let one = self.c(1.0);
        let inf = self.c(f32::INFINITY);
        let m0 = self.feq(mx, z);
        let t = self.sel(m0, z, t);
        let xi = self.feq(ax, inf);
        let yi = self.feq(ay, inf);
        let bi = self.and(xi, yi);
        let t = self.sel(bi, one, t);
        let p = self.atan_poly(t);
        let p = if pi_units { self.mul_dd(p, std::f64::consts::FRAC_1_PI) } else { p };
        let swap = self.fgt(ay, ax);
        let ps = self.const_minus(quarter_turn, p);
        let p = self.sel(swap, ps, p);
        let xneg = self.signbit(x);
        let pn = self.const_minus(half_turn, p);
        let p = self.sel(xneg, pn, p);
        let r = self.cs(p, y);
        let nx = self.isnan(x);
        let ny = self.isnan(y);
        let nn = self.or(nx, ny);
        let nan = self.nan();
        self.sel(nn, nan, r)
    }

    /// R(z) = z·P(z) with asin(t) = t + t·R(t²).
    fn asin_r(&mut self, z: Value) -> Value {
        let p = self.poly(z, &ASIN_P);
        self.mul(z, p)
    }

    pub fn asin(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let one = self.c(1.0);
        let half = self.c(0.5);
        let big = self.fgt(a, half);
        let d = self.sub(one, a);
        let zb = self.mul(d, half);
        let zs = self.mul(a, a);
        let z = self.sel(big, zb, zs);
        let sq = self.sqrt(zb);
        let t = self.sel(big, sq, a);
        let r = self.asin_r(z);
        let p = self.fma(t, r, t);
        let (hi, lo) = split(FRAC_PI_2);
        let h = self.c(hi);
        let rb = self.fmac(p, -2.0, h);
        let rb = self.addc(rb, lo);
        let v = self.sel(big, rb, p);
        self.cs(v, x)
    }

    pub fn acos(&mut self, x: Value) -> Value {
        let (hi, lo) = split(FRAC_PI_2);
        let a = self.abs(x);
        let one = self.c(1.0);
        let half = self.c(0.5);
        let h = self.c(hi);
        let l = self.c(lo);
        // |x| <= 0.5: π/2 - (x + x·R(x²)).
        let zs = self.mul(x, x);
        let rs = self.asin_r(zs);
        let nx = self.neg(x);
        let t = self.fma(nx, rs, l);
        let t = self.sub(x, t);
        let small = self.sub(h, t);
        // |x| > 0.5: with s = sqrt((1-|x|)/2).
        let d = self.sub(one, a);
        let zb = self.mul(d, half);
        let s = self.sqrt(zb);
        let rb = self.asin_r(zb);
        let nl = self.neg(l);
        let w = self.fma(rb, s, nl);
        let sw = self.add(s, w);
        let neg = self.sub(h, sw);
        let neg = self.mulc(neg, 2.0);
        let sb = self.f2b(s);
        let sb = self.andi(sb, 0xffff_f000);
        let df = self.b2f(sb);
        let ndf = self.neg(df);
        let num = self.fma(ndf, df, zb);
        let den = self.add(s, df);
        let c = self.div(num, den);
        let w = self.fma(rb, s, c);
        let pos = self.add(df, w);
        let pos = self.mulc(pos, 2.0);
        let z = self.c(0.0);
        let xneg = self.flt(x, z);
        let bigv = self.sel(xneg, neg, pos);
        let le = self.fle(a, half);
        let r = self.sel(le, small, bigv);
        let x1 = self.feq(x, one);
        self.sel(x1, z, r)
    }
}
