//! Exact functions: remainders (integer long division on the mantissas), decomposition and
//! scaling by powers of two, `nextafter`, and `hypot`.

use super::super::super::ir::*;
use super::E;

impl E<'_, '_> {
    /// (integer mantissa, biased exponent clamped to >= 1) with a = m · 2^(e - 150).
    fn mant_exp(&mut self, a: Value) -> (Value, Value) {
        let b = self.f2b(a);
        let be = self.shri(b, 23);
        let mt = self.andi(b, 0x007f_ffff);
        let z = self.ci(0);
        let isn = self.ine(be, z);
        let imp = self.ci(0x0080_0000);
        let h = self.sel(isn, imp, z);
        let m = self.or(mt, h);
        let one = self.ci(1);
        (m, self.imax(be, one))
    }

    /// `ax mod ay` for finite non-negative ax and positive ay (ay may be +inf): the mantissas'
    /// long division, 8 exponent steps per `remu` after the first 0–7. Floats differ in
    /// exponent by at most 253 (32 steps); halves widened to float by at most 39 (4 steps).
    fn fmod_abs(&mut self, ax: Value, ay: Value) -> Value {
        let (mx, ex) = self.mant_exp(ax);
        let (my, ey) = self.mant_exp(ay);
        let d = self.isub(ex, ey);
        let z = self.ci(0);
        let d = self.imax(d, z);
        let mut r = self.remu(mx, my);
        let s0 = self.andi(d, 7);
        let t = self.shl(r, s0);
        r = self.remu(t, my);
        let n8 = self.shri(d, 3);
        let steps = if self.l.half_operands { 4 } else { 32 };
        for k in 0..steps {
            let kk = self.ci(k);
            // Steps past the difference shift by 0: r < my, so the remainder keeps r.
            let c = self.ilt(kk, n8);
            let c = self.push(Ty::I32, Op::Conv(ConvOp::ZExt, c));
            let s = self.shli(c, 3);
            let t = self.shl(r, s);
            r = self.remu(t, my);
        }
        let rf = self.u2f(r);
        let n = self.addi(ey, -150);
        let res = self.scale2(rf, n);
        let lt = self.flt(ax, ay);
        self.sel(lt, ax, res)
    }

    /// NaN operands, infinite x or zero y.
    fn rem_invalid(&mut self, x: Value, y: Value) -> Value {
        let nx = self.isnan(x);
        let ny = self.isnan(y);
        let ix = self.isinf(x);
        let y0 = self.iszero(y);
        let a = self.or(nx, ny);
        let b = self.or(ix, y0);
        self.or(a, b)
    }

    pub fn fmod(&mut self, x: Value, y: Value) -> Value {
        let ax = self.abs(x);
        let ay = self.abs(y);
        let r = self.fmod_abs(ax, ay);
        let r = self.cs(r, x);
        let bad = self.rem_invalid(x, y);
        let nan = self.nan();
        self.sel(bad, nan, r)
    }

    /// (remainder, quotient bits) of `remquo`; `remainder` is the first part.
    pub fn remquo(&mut self, x: Value, y: Value) -> (Value, Value) {
        let ax = self.abs(x);
        let ay = self.abs(y);
        // Reduce modulo 128·|y| first: the quotient's low 7 bits survive (OpenCL requires at
        // least 3; 7 is what C's remquo gives in practice). 128·|y| may overflow to +inf, and
        // then |x| < 128·|y| holds anyway.
        let ay8 = self.mulc(ay, 128.0);
        let r8 = self.fmod_abs(ax, ay8);
        let q = self.div(r8, ay);
        let k = self.trunc(q);
        let nk = self.neg(k);
        let r = self.fma(nk, ay, r8);
        let z = self.c(0.0);
        let one = self.c(1.0);
        let neg = self.flt(r, z);
        let over = self.fge(r, ay);
        let km = self.sub(k, one);
        let kp = self.add(k, one);
        let kc = self.sel(over, kp, k);
        let kc = self.sel(neg, km, kc);
        let nk = self.neg(kc);
        let r = self.fma(nk, ay, r8);
        let ki = self.f2s(kc);
        let r2 = self.add(r, r);
        let gt = self.fgt(r2, ay);
        let eq = self.feq(r2, ay);
        let lo = self.andi(ki, 1);
        let zi = self.ci(0);
        let odd = self.ine(lo, zi);
        let tie = self.and(eq, odd);
        let up = self.or(gt, tie);
        let rd = self.sub(r, ay);
        let r = self.sel(up, rd, r);
        let k1 = self.addi(ki, 1);
        let ki = self.sel(up, k1, ki);
        let xs = self.f2b(x);
        let sx = self.andi(xs, 0x8000_0000);
        let rb = self.f2b(r);
        let rb = self.xor(rb, sx);
        let r = self.b2f(rb);
        let qb = self.andi(ki, 0x7f);
        let ys = self.f2b(y);
        let sy = self.andi(ys, 0x8000_0000);
        let sdiff = self.xor(sx, sy);
        let sneg = self.ine(sdiff, zi);
        let nq = self.isub(zi, qb);
        let quo = self.sel(sneg, nq, qb);
        // y = ±inf (x finite): x, 0.
        let yi = self.isinf(y);
        let r = self.sel(yi, x, r);
        let quo = self.sel(yi, zi, quo);
        let bad = self.rem_invalid(x, y);
        let nan = self.nan();
        let r = self.sel(bad, nan, r);
        let quo = self.sel(bad, zi, quo);
        (r, quo)
    }

    /// (fract, floor) of `fract`.
    pub fn fract(&mut self, x: Value) -> (Value, Value) {
        let fl = self.floor(x);
        let d = self.sub(x, fl);
        let mx = self.cb(0x3f7f_ffff);
        let fr = self.fmin(d, mx);
        let z = self.c(0.0);
        let zi = self.cs(z, x);
        let inf = self.isinf(x);
        let fr = self.sel(inf, zi, fr);
        let fr = self.keep_zero(x, fr);
        (self.keep_nan(x, fr), fl)
    }

    /// (fractional part, integral part) of `modf`.
    pub fn modf(&mut self, x: Value) -> (Value, Value) {
        let ip = self.trunc(x);
        let d = self.sub(x, ip);
        let z = self.c(0.0);
        let inf = self.isinf(x);
        let d = self.sel(inf, z, d);
        (self.cs(d, x), ip)
    }

    /// Prescaled bits of x (denormals times 2^25) and the exponent adjustment.
    fn prescale(&mut self, x: Value) -> (Value, Value) {
        let a = self.abs(x);
        let tiny = self.c(f32::MIN_POSITIVE);
        let is_tiny = self.flt(a, tiny);
        let xs = self.mulc(x, 33554432.0);
        let xs = self.sel(is_tiny, xs, x);
        let (a25, z) = (self.ci(-25), self.ci(0));
        let adj = self.sel(is_tiny, a25, z);
        (self.f2b(xs), adj)
    }

    /// ±0, ±inf or NaN.
    fn not_finite_nonzero(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let z = self.c(0.0);
        let inf = self.c(f32::INFINITY);
        let lo = self.fgt(a, z);
        let hi = self.flt(a, inf);
        let ok = self.and(lo, hi);
        self.not(ok)
    }

    pub fn frexp(&mut self, x: Value) -> (Value, Value) {
        let (b, adj) = self.prescale(x);
        let be = self.shri(b, 23);
        let be = self.andi(be, 0xff);
        let e = self.addi(be, -126);
        let e = self.iadd(e, adj);
        let mb = self.andi(b, 0x807f_ffff);
        let half = self.ci(0x3f00_0000);
        let mb = self.or(mb, half);
        let m = self.b2f(mb);
        let sp = self.not_finite_nonzero(x);
        let z = self.ci(0);
        (self.sel(sp, x, m), self.sel(sp, z, e))
    }

    pub fn ldexp(&mut self, x: Value, n: Value) -> Value {
        let (b, adj) = self.prescale(x);
        let be = self.shri(b, 23);
        let be = self.andi(be, 0xff);
        let (lo, hi) = (self.ci(-400), self.ci(400));
        let nc = self.imax(n, lo);
        let nc = self.imin(nc, hi);
        let e = self.iadd(be, nc);
        let e = self.iadd(e, adj);
        let c255 = self.ci(255);
        let big = self.icmp(CmpOp::GeS, e, c255);
        let m99 = self.ci(-99);
        let ec = self.imax(e, m99);
        let one = self.ci(1);
        let norm = self.icmp(CmpOp::GeS, ec, one);
        let e100 = self.addi(ec, 100);
        let field = self.sel(norm, ec, e100);
        let mb = self.andi(b, 0x807f_ffff);
        let fb = self.shli(field, 23);
        let nb = self.or(mb, fb);
        let v = self.b2f(nb);
        let (o, s) = (self.c(1.0), self.c(2.0f32.powi(-100)));
        let f = self.sel(norm, o, s);
        let v = self.mul(v, f);
        let inf = self.c(f32::INFINITY);
        let si = self.cs(inf, x);
        let v = self.sel(big, si, v);
        let sp = self.not_finite_nonzero(x);
        self.sel(sp, x, v)
    }

    /// Unbiased exponent of a finite non-zero x.
    fn exponent(&mut self, x: Value) -> Value {
        let (b, adj) = self.prescale(x);
        let be = self.shri(b, 23);
        let be = self.andi(be, 0xff);
        let e = self.addi(be, -127);
        self.iadd(e, adj)
    }

    pub fn ilogb(&mut self, x: Value) -> Value {
        let e = self.exponent(x);
        let z = self.iszero(x);
        let min = self.ci(i32::MIN);
        let max = self.ci(i32::MAX);
        let e = self.sel(z, min, e);
        let a = self.isinf(x);
        let n = self.isnan(x);
        let c = self.or(a, n);
        self.sel(c, max, e)
    }

    pub fn logb(&mut self, x: Value) -> Value {
        let e = self.exponent(x);
        let r = self.s2f(e);
        let z = self.iszero(x);
        let ninf = self.c(f32::NEG_INFINITY);
        let r = self.sel(z, ninf, r);
        let a = self.abs(x);
        let i = self.isinf(x);
        let r = self.sel(i, a, r);
        self.keep_nan(x, r)
    }

    pub fn nextafter(&mut self, x: Value, y: Value) -> Value {
        let b = self.f2b(x);
        let z = self.c(0.0);
        let lt = self.flt(x, y);
        let pos = self.fgt(x, z);
        let d = self.xor(lt, pos);
        let inc = self.not(d);
        let bp = self.addi(b, 1);
        let bm = self.addi(b, -1);
        let nb = self.sel(inc, bp, bm);
        let r = self.b2f(nb);
        let tiny = self.cb(1);
        let ty = self.cs(tiny, y);
        let x0 = self.feq(x, z);
        let r = self.sel(x0, ty, r);
        let eq = self.feq(x, y);
        let r = self.sel(eq, y, r);
        let nx = self.isnan(x);
        let ny = self.isnan(y);
        let nn = self.or(nx, ny);
        let nan = self.nan();
        self.sel(nn, nan, r)
    }

    pub fn hypot(&mut self, x: Value, y: Value) -> Value {
        let ax = self.abs(x);
        let ay = self.abs(y);
        let mx = self.fmax(ax, ay);
        let mn = self.fmin(ax, ay);
        let bm = self.f2b(mx);
        let be = self.shri(bm, 23);
        let (one, c253) = (self.ci(1), self.ci(253));
        let e = self.imax(be, one);
        let e = self.imin(e, c253);
        let c254 = self.ci(254);
        let fe = self.isub(c254, e);
        let fb = self.shli(fe, 23);
        let factor = self.b2f(fb);
        let ib = self.shli(e, 23);
        let inv = self.b2f(ib);
        let sx = self.mul(mx, factor);
        let sy = self.mul(mn, factor);
        let yy = self.mul(sy, sy);
        let s = self.fma(sx, sx, yy);
        let r = self.sqrt(s);
        let r = self.mul(r, inv);
        let nx = self.isnan(x);
        let ny = self.isnan(y);
        let nn = self.or(nx, ny);
        let nan = self.nan();
        let r = self.sel(nn, nan, r);
        let ix = self.isinf(x);
        let iy = self.isinf(y);
        let ii = self.or(ix, iy);
        let inf = self.c(f32::INFINITY);
        self.sel(ii, inf, r)
    }
}
