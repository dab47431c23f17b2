//! OpenCL C math built-ins for `float` (exp/log/pow, trigonometric, hyperbolic, remainders,
//! decomposition…) through the ICD loader, against f64 host references rounded to float, within
//! the OpenCL 3.0 full-profile ULP bounds (exact where the specification requires it).

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;
use std::f64::consts::PI;

/// Safe wrappers of the host C library's (double-precision) math functions used as references.
mod libm {
    mod ffi {
        extern "C" {
            pub fn remainder(x: f64, y: f64) -> f64;
            pub fn frexp(x: f64, e: *mut i32) -> f64;
            pub fn ldexp(x: f64, e: i32) -> f64;
            pub fn logb(x: f64) -> f64;
            pub fn nextafterf(x: f32, y: f32) -> f32;
            pub fn erf(x: f64) -> f64;
            pub fn erfc(x: f64) -> f64;
            pub fn tgamma(x: f64) -> f64;
            pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        }
    }

    /// Wraps C functions that take and return plain numbers.
    macro_rules! pure {
        ($($f:ident($($a:ident: $t:ty),*) -> $r:ty;)*) => {$(
            pub fn $f($($a: $t),*) -> $r {
                // SAFETY: a C99 math function of plain values: no pointers, defined for every
                // input (NaNs and infinities included); it only may set errno.
                unsafe { ffi::$f($($a),*) }
            }
        )*};
    }
    pure! {
        remainder(x: f64, y: f64) -> f64;
        ldexp(x: f64, e: i32) -> f64;
        logb(x: f64) -> f64;
        nextafterf(x: f32, y: f32) -> f32;
        erf(x: f64) -> f64;
        erfc(x: f64) -> f64;
        tgamma(x: f64) -> f64;
    }

    /// `frexp`: the mantissa and the exponent.
    pub fn frexp(x: f64) -> (f64, i32) {
        let mut e = 0;
        // SAFETY: `e` is a live local `int` the function writes the exponent to.
        let m = unsafe { ffi::frexp(x, &mut e) };
        (m, e)
    }

    /// `lgamma_r`: log|Γ(x)| and the sign of Γ(x).
    pub fn lgamma_r(x: f64) -> (f64, i32) {
        let mut s = 0;
        // SAFETY: `s` is a live local `int` the function writes the sign to; the reentrant form
        // touches no global state.
        let l = unsafe { ffi::lgamma_r(x, &mut s) };
        (l, s)
    }
}
use libm::*;

type Ref = fn(f32, f32, i32) -> f64;

/// One checked expression: OpenCL C text over `a`, `b` (float) and `n` (int), the bound in ulps
/// and the reference.
struct Case {
    expr: &'static str,
    ulp: u32,
    r: Ref,
}

fn c(expr: &'static str, ulp: u32, r: Ref) -> Case {
    Case { expr, ulp, r }
}

/// Edge cases for single-argument functions.
fn edges() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        1e-40,
        -3e-39,
        1e-30,
        f32::MAX,
        -f32::MAX,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        1.0 + f32::EPSILON,
        1.0 - f32::EPSILON / 2.0,
        0.999,
        1.001,
        0.25,
        1.5,
        3.0,
        10.0,
        -10.0,
        88.72,
        88.7228,
        89.0,
        -87.3,
        -103.0,
        -104.0,
        -150.0,
        127.9,
        128.0,
        38.5,
        -45.0,
        1e6,
        -1e6,
        1e30,
        -1e30,
        3.0e38,
        12345.678,
        16777215.0,
        16777216.0,
        8388609.0,
        1e-4,
        -1e-4,
        1e-8,
        0.1,
        4096.0,
        9.5,
        0.54,
        0.26,
    ];
    for k in 1..40 {
        let t = (k as f64 * PI / 2.0) as f32;
        v.extend([t, -t, f32::from_bits(t.to_bits() + 1), f32::from_bits(t.to_bits() - 1)]);
    }
    for k in [102_940.0f32, 205_880.0, 1_029_413.0, 6.283_185_5e5] {
        v.push(k);
    }
    v
}

/// Edges plus random values: uniform in [-10, 10], in [-100, 100], and random finite bit patterns.
fn unary_inputs(seed: u32) -> Vec<f32> {
    let mut r = Rng(seed);
    let mut v = edges();
    v.extend(r.f32s(700, -10.0, 10.0));
    v.extend(r.f32s(300, -100.0, 100.0));
    v.extend(r.f32s(200, -1.0, 1.0));
    while v.len() < 1700 {
        let x = f32::from_bits(r.next_u32());
        if x.is_finite() {
            v.push(x);
        }
    }
    v
}

/// Runs every case over the inputs in one kernel; returns the outputs per case.
fn run_cases(cases: &[Case], a: &[f32], b: &[f32], n: &[i32]) -> Vec<Vec<f32>> {
    let k = cases.len();
    let mut body = String::new();
    for (j, cs) in cases.iter().enumerate() {
        body += &format!("        o[{j}] = {};\n", cs.expr);
    }
    let src = format!(
        "__kernel void k(__global const float *A, __global const float *B, __global const int *N, __global float *O) {{
        int i = get_global_id(0);
        float a = A[i], b = B[i];
        int n = N[i];
        float t0 = 0.0f; int ti = 0;
        __global float *o = O + {k} * i;
{body}    }}"
    );
    let len = a.len().next_multiple_of(64);
    let pad = |v: &[f32]| {
        let mut w = v.to_vec();
        w.resize(len, 1.0);
        w
    };
    let mut nn = n.to_vec();
    nn.resize(len, 1);
    let out = run1(&src, "k", len, 64, &[buf(&pad(a)), buf(&pad(b)), buf(&nn), zeros(4 * k * len)]);
    let got: Vec<f32> = read(&out[3]);
    (0..k).map(|j| (0..a.len()).map(|i| got[k * i + j]).collect()).collect()
}

/// Checks every case; prints and returns the maximum ulp error of each.
fn check(cases: &[Case], a: &[f32], b: &[f32], n: &[i32]) {
    let got = run_cases(cases, a, b, n);
    let mut fails = Vec::new();
    for (j, cs) in cases.iter().enumerate() {
        let mut worst = 0u32;
        for i in 0..a.len() {
            let g = got[j][i];
            let w = (cs.r)(a[i], b[i], n[i]) as f32;
            let what = format!("{} with a={:e} ({:#x}) b={:e} n={}", cs.expr, a[i], a[i].to_bits(), b[i], n[i]);
            let ok = if w.is_nan() || g.is_nan() {
                w.is_nan() && g.is_nan()
            } else if !w.is_finite() || !g.is_finite() || cs.ulp == 0 {
                g.to_bits() == w.to_bits()
            } else {
                let d = ulps(g, w);
                worst = worst.max(d);
                d <= cs.ulp && ((g == 0.0) == (w == 0.0) || w.abs() < f32::MIN_POSITIVE)
            };
            if !ok && fails.len() < 40 {
                fails.push(format!("{what}: got {g:e} ({:#x}), want {w:e} ({:#x})", g.to_bits(), w.to_bits()));
            }
        }
        println!("{:<40} max {worst} ulp (bound {})", cs.expr, cs.ulp);
    }
    assert!(fails.is_empty(), "{} mismatches:\n{}", fails.len(), fails.join("\n"));
}

fn check_unary(cases: &[Case], seed: u32) {
    let a = unary_inputs(seed);
    let b = vec![0.0; a.len()];
    let n = vec![0; a.len()];
    check(cases, &a, &b, &n);
}

fn d(x: f32) -> f64 {
    x as f64
}

#[test]
fn exponentials_and_logarithms() {
    check_unary(
        &[
            c("exp(a)", 3, |a, _, _| d(a).exp()),
            c("exp2(a)", 3, |a, _, _| d(a).exp2()),
            c("exp10(a)", 3, |a, _, _| 10f64.powf(d(a))),
            c("expm1(a)", 3, |a, _, _| d(a).exp_m1()),
            c("log(a)", 3, |a, _, _| d(a).ln()),
            c("log2(a)", 3, |a, _, _| d(a).log2()),
            c("log10(a)", 3, |a, _, _| d(a).log10()),
            c("log1p(a)", 2, |a, _, _| d(a).ln_1p()),
            c("half_exp(a)", 3, |a, _, _| d(a).exp()),
            c("native_log2(a)", 3, |a, _, _| d(a).log2()),
            c("cbrt(a)", 2, |a, _, _| d(a).cbrt()),
        ],
        101,
    );
}

#[test]
fn logarithms_near_one_and_positive_ranges() {
    let mut r = Rng(7);
    let mut a: Vec<f32> = r.f32s(600, 0.5, 2.0);
    a.extend(r.f32s(400, 0.95, 1.05));
    a.extend((0..400).map(|_| f32::from_bits(r.next_u32() & 0x7fff_ffff)).filter(|x| x.is_finite()));
    let b = vec![0.0; a.len()];
    let n = vec![0; a.len()];
    check(
        &[
            c("log(a)", 3, |a, _, _| d(a).ln()),
            c("log2(a)", 3, |a, _, _| d(a).log2()),
            c("log10(a)", 3, |a, _, _| d(a).log10()),
            c("log1p(a - 1.0f)", 2, |a, _, _| d(a - 1.0).ln_1p()),
            c("expm1(a - 1.0f)", 3, |a, _, _| d(a - 1.0).exp_m1()),
        ],
        &a,
        &b,
        &n,
    );
}

fn sinpi_ref(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    if x.fract() == 0.0 {
        return 0f64.copysign(x);
    }
    let r = x - 2.0 * (x / 2.0).round();
    (r * PI).sin()
}

fn cospi_ref(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    if x.fract().abs() == 0.5 {
        return 0.0;
    }
    let r = x - 2.0 * (x / 2.0).round();
    (r * PI).cos()
}

fn tanpi_ref(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    if x.fract() == 0.0 {
        let odd = (x / 2.0).fract() != 0.0;
        return 0f64.copysign(if odd { -x } else { x });
    }
    if x.fract().abs() == 0.5 {
        let nf = x.floor();
        let odd = (nf / 2.0).fract() != 0.0;
        return if odd { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    let r = x - x.round();
    (r * PI).tan()
}

#[test]
fn trigonometric_functions() {
    check_unary(
        &[
            c("sin(a)", 4, |a, _, _| d(a).sin()),
            c("cos(a)", 4, |a, _, _| d(a).cos()),
            c("tan(a)", 5, |a, _, _| d(a).tan()),
            c("sincos(a, &t0)", 4, |a, _, _| d(a).sin()),
            c("t0", 4, |a, _, _| d(a).cos()),
            c("native_sin(a)", 4, |a, _, _| d(a).sin()),
            c("half_cos(a)", 4, |a, _, _| d(a).cos()),
            c("sinpi(a)", 4, |a, _, _| sinpi_ref(d(a))),
            c("cospi(a)", 4, |a, _, _| cospi_ref(d(a))),
            c("tanpi(a)", 6, |a, _, _| tanpi_ref(d(a))),
        ],
        202,
    );
}

#[test]
fn trigonometric_half_integers_and_huge_arguments() {
    let mut r = Rng(33);
    let mut a: Vec<f32> = (-40..40).map(|k| k as f32 * 0.5).collect();
    a.extend((0..600).map(|_| {
        f32::from_bits((r.next_u32() & 0x0fff_ffff) | 0x4000_0000) * if r.next_u32() & 1 == 0 { 1.0 } else { -1.0 }
    }));
    a.extend((0..400).map(|_| f32::from_bits(r.next_u32() % 0x7f00_0000)));
    let b = vec![0.0; a.len()];
    let n = vec![0; a.len()];
    check(
        &[
            c("sin(a)", 4, |a, _, _| d(a).sin()),
            c("cos(a)", 4, |a, _, _| d(a).cos()),
            c("tan(a)", 5, |a, _, _| d(a).tan()),
            c("sinpi(a)", 4, |a, _, _| sinpi_ref(d(a))),
            c("cospi(a)", 4, |a, _, _| cospi_ref(d(a))),
            c("tanpi(a)", 6, |a, _, _| tanpi_ref(d(a))),
        ],
        &a,
        &b,
        &n,
    );
}

#[test]
fn inverse_trigonometric_functions() {
    let mut a = unary_inputs(303);
    let mut r = Rng(5);
    a.extend(r.f32s(800, -1.0, 1.0));
    a.extend([0.5, -0.5, 0.4999, 0.5001, 0.975, -0.975, 0.99999, -0.99999]);
    let mut b = Rng(9).f32s(a.len(), -3.0, 3.0);
    for (i, y) in [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0, -1.0, 1e-40, 1e30].iter().enumerate()
    {
        for k in 0..12 {
            b[i * 12 + k] = *y;
        }
    }
    let n = vec![0; a.len()];
    check(
        &[
            c("asin(a)", 4, |a, _, _| d(a).asin()),
            c("acos(a)", 4, |a, _, _| d(a).acos()),
            c("atan(a)", 5, |a, _, _| d(a).atan()),
            c("asinpi(a)", 5, |a, _, _| d(a).asin() / PI),
            c("acospi(a)", 5, |a, _, _| d(a).acos() / PI),
            c("atanpi(a)", 5, |a, _, _| d(a).atan() / PI),
            c("atan2(a, b)", 6, |a, b, _| d(a).atan2(d(b))),
            c("atan2(b, a)", 6, |a, b, _| d(b).atan2(d(a))),
            c("atan2pi(a, b)", 6, |a, b, _| d(a).atan2(d(b)) / PI),
        ],
        &a,
        &b,
        &n,
    );
}

/// atan within 1 ulp of the correctly rounded result across its reduction ranges (pyopencl's
/// `test_atan` allows an absolute 2e-7 over [-10, 10]: 2 ulp near 1.3 fails it), and atan2 /
/// atan2pi, which share the reduction.
#[test]
fn atan_within_one_ulp_across_its_reduction_ranges() {
    let a: Vec<f32> = (0..24_000).map(|i| -12.0 + i as f32 * 0.001).collect();
    let b: Vec<f32> = a.iter().map(|x| 1.0 + x.abs() * 0.37).collect();
    let n = vec![0; a.len()];
    check(
        &[
            c("atan(a)", 1, |a, _, _| d(a).atan()),
            c("atan2(a, b)", 2, |a, b, _| d(a).atan2(d(b))),
            c("atan2(b, a)", 2, |a, b, _| d(b).atan2(d(a))),
        ],
        &a,
        &b,
        &n,
    );
}

#[test]
fn hyperbolic_functions() {
    let mut a = unary_inputs(404);
    a.extend(Rng(6).f32s(400, -1.0, 1.0));
    a.extend(Rng(8).f32s(300, 1.0, 3.0));
    a.extend([88.0, 89.0, 89.4, 89.5, -89.4, 9.0, 9.2, 0.5493, 0.2554, 2.0, 4096.0, 4095.9, 0.9999, -0.9999]);
    let b = vec![0.0; a.len()];
    let n = vec![0; a.len()];
    check(
        &[
            c("sinh(a)", 4, |a, _, _| d(a).sinh()),
            c("cosh(a)", 4, |a, _, _| d(a).cosh()),
            c("tanh(a)", 4, |a, _, _| d(a).tanh()),
            c("asinh(a)", 4, |a, _, _| d(a).asinh()),
            c("acosh(a)", 4, |a, _, _| d(a).acosh()),
            c("atanh(a)", 4, |a, _, _| d(a).atanh()),
        ],
        &a,
        &b,
        &n,
    );
}

fn powr_ref(x: f64, y: f64) -> f64 {
    if x < 0.0 || x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if ((x == 0.0 || x.is_infinite()) && y == 0.0) || (x == 1.0 && y.is_infinite()) {
        return f64::NAN;
    }
    x.abs().powf(y)
}

fn rootn_ref(x: f64, n: i32) -> f64 {
    let odd = n % 2 != 0;
    if n == 0 || (x < 0.0 && !odd) || x.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return if n < 0 {
            if odd {
                f64::INFINITY.copysign(x)
            } else {
                f64::INFINITY
            }
        } else if odd {
            x
        } else {
            0.0
        };
    }
    let r = x.abs().powf(1.0 / n as f64);
    if x < 0.0 {
        -r
    } else {
        r
    }
}

#[test]
fn powers() {
    let mut r = Rng(505);
    let special = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        3.0,
        -3.0,
        1e30,
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut n = Vec::new();
    for x in special {
        for y in special.iter().chain(&[2.5f32, -2.5, 1e10, -7.0]) {
            a.push(x);
            b.push(*y);
            n.push(y.clamp(-9.0, 9.0) as i32);
        }
    }
    for _ in 0..700 {
        a.push(r.f32s(1, 0.0, 10.0)[0]);
        b.push(r.f32s(1, -30.0, 30.0)[0]);
        n.push(r.i32s(1, -40, 40)[0]);
    }
    for _ in 0..400 {
        a.push(-r.f32s(1, 0.0, 10.0)[0]);
        b.push(r.i32s(1, -30, 30)[0] as f32);
        n.push(r.i32s(1, -40, 40)[0]);
    }
    for _ in 0..400 {
        a.push(r.f32s(1, 0.9, 1.1)[0]);
        b.push(r.f32s(1, -1000.0, 1000.0)[0]);
        n.push(r.i32s(1, -1000, 1000)[0]);
    }
    for _ in 0..300 {
        // Results near overflow and in the denormal range.
        a.push(r.f32s(1, 1.5, 3.0)[0]);
        b.push(r.f32s(1, -150.0, 150.0)[0]);
        n.push(r.i32s(1, -150, 150)[0]);
    }
    for _ in 0..400 {
        let x = f32::from_bits(r.next_u32() & 0x7fff_ffff);
        a.push(if x.is_finite() { x } else { 3.5 });
        b.push(r.f32s(1, -4.0, 4.0)[0]);
        n.push(r.i32s(1, -5, 5)[0]);
    }
    check(
        &[
            c("pow(a, b)", 16, |a, b, _| d(a).powf(d(b))),
            c("powr(a, b)", 16, |a, b, _| powr_ref(d(a), d(b))),
            c("pown(a, n)", 16, |a, _, n| if n == 0 { 1.0 } else { d(a).powf(n as f64) }),
            c("rootn(a, n)", 16, |a, _, n| rootn_ref(d(a), n)),
            c("half_powr(a, b)", 16, |a, b, _| powr_ref(d(a), d(b))),
        ],
        &a,
        &b,
        &n,
    );
}

/// Pairs of operands for the two-argument exact functions.
fn pairs(seed: u32) -> (Vec<f32>, Vec<f32>, Vec<i32>) {
    let mut r = Rng(seed);
    let special = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        1.5,
        -2.5,
        3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        f32::MAX,
        f32::MIN_POSITIVE,
        7.0,
    ];
    let (mut a, mut b, mut n) = (Vec::new(), Vec::new(), Vec::new());
    for x in special {
        for y in special {
            a.push(x);
            b.push(y);
            n.push(0);
        }
    }
    for _ in 0..600 {
        a.push(r.f32s(1, -100.0, 100.0)[0]);
        b.push(r.f32s(1, -10.0, 10.0)[0]);
        n.push(r.i32s(1, -300, 300)[0]);
    }
    for _ in 0..600 {
        let (x, y) = (f32::from_bits(r.next_u32()), f32::from_bits(r.next_u32()));
        a.push(if x.is_finite() { x } else { 1.25 });
        b.push(if y.is_finite() { y } else { -0.75 });
        n.push(r.i32s(1, -300, 300)[0]);
    }
    for k in 0..200 {
        // Integer multiples and exact halves (ties of `remainder`).
        let y = r.f32s(1, 0.5, 4.0)[0];
        a.push(y * (k as f32 - 100.0) * 0.5);
        b.push(y);
        n.push(k);
    }
    (a, b, n)
}

/// The integral quotient of `a / b` (finite, b > 0, a ≥ 0) rounded to nearest even, modulo 128,
/// exactly: with a = ma·2^ea and b = mb·2^eb, `ma·2^(ea−eb) mod 128·mb` holds the quotient's low
/// 7 bits (×mb) and the remainder, as a long division on integers.
fn quotient_mod_128(a: f32, b: f32) -> u64 {
    let split = |x: f32| {
        let (bits, e) = (x.to_bits(), (x.to_bits() >> 23) as i32);
        let m = (bits & 0x7f_ffff) as u64 | if e == 0 { 0 } else { 0x80_0000 };
        (m, e.max(1))
    };
    let ((ma, ea), (mb, eb)) = (split(a), split(b));
    let k = ea - eb;
    let (q, r, den) = if k >= 0 {
        let modulus = 128 * mb;
        let mut x = ma % modulus;
        for _ in 0..k {
            x = (x << 1) % modulus;
        }
        (x / mb, x % mb, mb)
    } else if -k > 40 {
        (0, ma, u64::MAX) // a/b < 2^-16: rounds to 0
    } else {
        let den = mb << -k; // a/b < 2^24: ma / (mb·2^-k) directly
        (ma / den, ma % den, den)
    };
    let up = 2 * r as u128 > den as u128 || (2 * r as u128 == den as u128 && q % 2 == 1);
    (q + up as u64) % 128
}

#[test]
fn remainders_and_exact_functions() {
    let (a, b, n) = pairs(606);
    check(
        &[
            c("fmod(a, b)", 0, |a, b, _| d(a) % d(b)),
            c("remainder(a, b)", 0, |a, b, _| remainder(d(a), d(b))),
            c("remquo(a, b, &ti)", 0, |a, b, _| remainder(d(a), d(b))),
            // OpenCL keeps at least 7 quotient bits (C only 3: glibc's remquo is no reference
            // for them), signed as x/y; a zero quotient has no sign in `ti`.
            c("(float)(abs(ti) & 127) * (ti < 0 ? -1.0f : 1.0f)", 0, |a, b, _| {
                if a.is_nan() || b.is_nan() || a.is_infinite() || b == 0.0 || b.is_infinite() {
                    return 0.0;
                }
                let m = quotient_mod_128(a.abs(), b.abs()) as f64;
                if m != 0.0 && (a < 0.0) != (b < 0.0) {
                    -m
                } else {
                    m
                }
            }),
            c("hypot(a, b)", 4, |a, b, _| d(a).hypot(d(b))),
            c("nextafter(a, b)", 0, |a, b, _| nextafterf(a, b) as f64),
            c("maxmag(a, b)", 0, |a, b, _| {
                if a.abs() > b.abs() {
                    d(a)
                } else if b.abs() > a.abs() {
                    d(b)
                } else if a == 0.0 && b == 0.0 {
                    d(if a.is_sign_positive() { a } else { b })
                } else {
                    d(a.max(b))
                }
            }),
            c("minmag(a, b)", 0, |a, b, _| {
                if a.abs() < b.abs() {
                    d(a)
                } else if b.abs() < a.abs() {
                    d(b)
                } else if a == 0.0 && b == 0.0 {
                    d(if a.is_sign_negative() { a } else { b })
                } else {
                    d(a.min(b))
                }
            }),
            c("fdim(a, b)", 0, |a, b, _| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else if a > b {
                    d(a - b)
                } else {
                    0.0
                }
            }),
            c("ldexp(a, n)", 0, |a, _, n| ldexp(d(a), n)),
            c("ldexp(b, n - 150)", 0, |_, b, n| ldexp(d(b), n - 150)),
        ],
        &a,
        &b,
        &n,
    );
}

#[test]
fn decomposition_functions() {
    check_unary(
        &[
            c("fract(a, &t0)", 0, |a, _, _| {
                if a.is_nan() {
                    f64::NAN
                } else if a.is_infinite() {
                    d(0f32.copysign(a))
                } else if a == 0.0 {
                    d(a)
                } else {
                    d((a - a.floor()).min(f32::from_bits(0x3f7f_ffff)))
                }
            }),
            c("t0", 0, |a, _, _| d(a.floor())),
            c(
                "modf(a, &t0)",
                0,
                |a, _, _| if a.is_infinite() { d(0f32.copysign(a)) } else { d((a - a.trunc()).copysign(a)) },
            ),
            c("t0", 0, |a, _, _| d(a.trunc())),
            c("frexp(a, &ti)", 0, |a, _, _| frexp(d(a)).0),
            c("(float)ti", 0, |a, _, _| {
                let e = frexp(d(a)).1;
                if a.is_finite() {
                    e as f64
                } else {
                    0.0
                }
            }),
            c("(float)ilogb(a)", 0, |a, _, _| {
                if a.is_nan() || a.is_infinite() {
                    i32::MAX as f32 as f64
                } else if a == 0.0 {
                    i32::MIN as f64
                } else {
                    logb(d(a))
                }
            }),
            c("logb(a)", 0, |a, _, _| logb(d(a))),
        ],
        707,
    );
}

#[test]
fn common_and_vector_forms() {
    let src =
        "__kernel void k(__global const float4 *A, __global const float4 *B, __global float4 *O, __global int4 *I) {
        int i = get_global_id(0);
        float4 a = A[i], b = B[i];
        float4 c; int4 e;
        O[8 * i + 0] = sincos(a, &c);
        O[8 * i + 1] = c;
        O[8 * i + 2] = pow(fabs(a), b);
        O[8 * i + 3] = frexp(a, &e);
        I[2 * i] = e;
        O[8 * i + 4] = smoothstep(-1.0f, 2.0f, a);
        O[8 * i + 5] = select(a, b, isgreater(a, b));
        O[8 * i + 6] = bitselect(a, b, (float4)(as_float(0xffff0000u)));
        float3 a3 = a.xyz, f3;
        O[8 * i + 7] = (float4)(fract(a3, &f3), nan(5u) != nan(5u) ? 1.0f : 0.0f);
        I[2 * i + 1] = convert_int4((float4)(f3, exp(a.w)) * 0.0f) + (int4)(ilogb(a.x), 0, 0, 0);
    }";
    let n = 256;
    let mut r = Rng(808);
    let a: Vec<f32> = r.f32s(4 * n, -3.0, 3.0);
    let b: Vec<f32> = r.f32s(4 * n, -3.0, 3.0);
    let out = run1(src, "k", n, 64, &[buf(&a), buf(&b), zeros(128 * n), zeros(32 * n)]);
    let o: Vec<f32> = read(&out[2]);
    let ii: Vec<i32> = read(&out[3]);
    for i in 0..n {
        for l in 0..4 {
            let (x, y) = (a[4 * i + l], b[4 * i + l]);
            let g = |k: usize| o[32 * i + 4 * k + l];
            let w = format!("lane {l} of item {i}: x={x} y={y}");
            assert_ulps(g(0), d(x).sin() as f32, 4, format!("sincos {w}"));
            assert_ulps(g(1), d(x).cos() as f32, 4, format!("sincos cos {w}"));
            assert_ulps(g(2), d(x).abs().powf(d(y)) as f32, 16, format!("pow {w}"));
            let (m, e) = frexp(d(x));
            let m = m as f32;
            assert_bits(g(3), m, format!("frexp {w}"));
            assert_eq!(ii[8 * i + l], e, "frexp exponent {w}");
            let t = ((x + 1.0) / 3.0).clamp(0.0, 1.0);
            assert_ulps(g(4), t * t * (3.0 - 2.0 * t), 4, format!("smoothstep {w}"));
            assert_bits(g(5), if x > y { y } else { x }, format!("select {w}"));
            assert_bits(
                g(6),
                f32::from_bits((x.to_bits() & 0xffff) | (y.to_bits() & 0xffff_0000)),
                format!("bitselect {w}"),
            );
            if l < 3 {
                assert_bits(g(7), (x - x.floor()).min(f32::from_bits(0x3f7f_ffff)), format!("fract {w}"));
            } else {
                assert_eq!(g(7), 1.0, "nan(5u) is a NaN");
            }
        }
        let x = a[4 * i];
        assert_eq!(ii[8 * i + 4], if x == 0.0 { i32::MIN } else { (d(x).abs().log2().floor()) as i32 }, "ilogb({x})");
    }
}

#[test]
fn error_and_gamma_functions() {
    let mut a = unary_inputs(909);
    let mut r = Rng(10);
    a.extend(r.f32s(400, -12.0, 12.0));
    a.extend(r.f32s(300, 0.0, 40.0));
    a.extend(r.f32s(300, -45.0, 0.0));
    a.extend([0.5, 1.5, 2.5, 3.0, 34.5, 35.0, 35.1, -0.5, -1.5, -2.0, -33.5, -41.7, 1e-3, 1e-30, 10.05, 10.1, -10.06]);
    let b = vec![0.0; a.len()];
    let n = vec![0; a.len()];
    check(
        &[
            c("erf(a)", 16, |a, _, _| erf(d(a))),
            c("erfc(a)", 16, |a, _, _| erfc(d(a))),
            c("tgamma(a)", 16, |a, _, _| tgamma(d(a))),
        ],
        &a,
        &b,
        &n,
    );
    // lgamma has no ULP bound in OpenCL: check 1e-6 relative (absolute near its zeros) accuracy.
    let got = run_cases(
        &[c("lgamma(a)", 0, |_, _, _| 0.0), c("lgamma_r(a, &ti)", 0, |_, _, _| 0.0), c("(float)ti", 0, |_, _, _| 0.0)],
        &a,
        &b,
        &n,
    );
    for (i, x) in a.iter().enumerate() {
        let (w, s) = lgamma_r(d(*x));
        for col in &got[..2] {
            let g = col[i] as f64;
            let ok = if w.is_nan() {
                g.is_nan()
            } else if w.is_infinite() || w as f32 == f32::INFINITY {
                g == f64::INFINITY
            } else {
                (g - w).abs() <= 1e-6 * w.abs().max(1.0)
            };
            assert!(ok, "lgamma({x:e}): got {g:e}, want {w:e}");
        }
        if x.is_finite() && !(*x <= 0.0 && x.fract() == 0.0) {
            assert_eq!(got[2][i], s as f32, "lgamma_r sign of {x:e}");
        }
    }
}

#[test]
fn geometric_functions_avoid_overflow() {
    let src = "__kernel void k(__global const float4 *A, __global const float4 *B, __global float *O) {
        int i = get_global_id(0);
        float4 a = A[i], b = B[i];
        __global float *o = O + 16 * i;
        o[0] = length(a);
        o[1] = length(a.xyz);
        o[2] = length(a.xy);
        o[3] = length(a.x);
        o[4] = distance(a, b);
        o[5] = distance(a.xyz, b.xyz);
        float4 n = normalize(a);
        o[6] = n.x; o[7] = n.y; o[8] = n.z; o[9] = n.w;
        float3 n3 = normalize(a.xyz);
        o[10] = n3.x; o[11] = n3.y; o[12] = n3.z;
        o[13] = fast_length(b);
    }";
    let mut r = Rng(1111);
    let mut a: Vec<f32> = Vec::new();
    let mut b: Vec<f32> = Vec::new();
    let scales = [1.0f32, 1e30, 1e-30, 1e-42, 8e37, 1.0];
    for i in 0..256 {
        let s = scales[i % scales.len()];
        for _ in 0..4 {
            a.push(r.f32s(1, -4.0, 4.0)[0] * s);
            b.push(r.f32s(1, -4.0, 4.0)[0] * if s > 1e37 { 1.0 } else { s });
        }
    }
    a[4..8].copy_from_slice(&[0.0, 0.0, 0.0, 0.0]);
    a[8..12].copy_from_slice(&[f32::INFINITY, 1.0, f32::NEG_INFINITY, 2.0]);
    let n = a.len() / 4;
    let out = run1(src, "k", n, 64, &[buf(&a), buf(&b), zeros(64 * n)]);
    let o: Vec<f32> = read(&out[2]);
    let len = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    for i in 0..n {
        let v: Vec<f64> = a[4 * i..4 * i + 4].iter().map(|x| *x as f64).collect();
        let w: Vec<f64> = b[4 * i..4 * i + 4].iter().map(|x| *x as f64).collect();
        let g = |k: usize| o[16 * i + k];
        let what = format!("item {i}: a={v:?} b={w:?}");
        assert_ulps(g(0), len(&v) as f32, 3, format!("length4 {what}"));
        assert_ulps(g(1), len(&v[..3]) as f32, 3, format!("length3 {what}"));
        assert_ulps(g(2), len(&v[..2]) as f32, 3, format!("length2 {what}"));
        assert_bits(g(3), a[4 * i].abs(), format!("length1 {what}"));
        let dv: Vec<f64> = (0..4).map(|k| (a[4 * i + k] - b[4 * i + k]) as f64).collect();
        assert_ulps(g(4), len(&dv) as f32, 3, format!("distance4 {what}"));
        assert_ulps(g(5), len(&dv[..3]) as f32, 3, format!("distance3 {what}"));
        if i == 2 {
            let s = 1.0 / 2f64.sqrt();
            for (k, want) in [s, 0.0, -s, 0.0].iter().enumerate() {
                assert_ulps(g(6 + k), *want as f32, 1, format!("normalize with infinities, lane {k}"));
            }
            continue;
        }
        let l4 = len(&v);
        let l3 = len(&v[..3]);
        for (k, &x) in v[..4].iter().enumerate() {
            let want = if l4 == 0.0 { x } else { x / l4 };
            assert_ulps(g(6 + k), want as f32, 4, format!("normalize4 lane {k} {what}"));
        }
        for (k, &x) in v[..3].iter().enumerate() {
            let want = if l3 == 0.0 { x } else { x / l3 };
            assert_ulps(g(10 + k), want as f32, 4, format!("normalize3 lane {k} {what}"));
        }
        if w.iter().all(|x| x.abs() < 1e18 && x.abs() > 1e-18) {
            assert_ulps(g(13), len(&w) as f32, 8, format!("fast_length {what}"));
        }
    }
}

#[test]
fn relational_functions_on_special_values() {
    let src = "__kernel void k(__global const float4 *A, __global const float4 *B, __global int4 *V, __global int *S) {
        int i = get_global_id(0);
        float4 a = A[i], b = B[i];
        __global int4 *v = V + 14 * i;
        v[0] = isnan(a); v[1] = isinf(a); v[2] = isfinite(a); v[3] = isnormal(a); v[4] = signbit(a);
        v[5] = isordered(a, b); v[6] = isunordered(a, b); v[7] = isequal(a, b); v[8] = isnotequal(a, b);
        v[9] = isgreater(a, b); v[10] = isgreaterequal(a, b); v[11] = isless(a, b); v[12] = islessequal(a, b);
        v[13] = islessgreater(a, b);
        __global int *s = S + 14 * i;
        float x = a.x, y = b.x;
        s[0] = isnan(x); s[1] = isinf(x); s[2] = isfinite(x); s[3] = isnormal(x); s[4] = signbit(x);
        s[5] = isordered(x, y); s[6] = isunordered(x, y); s[7] = isequal(x, y); s[8] = isnotequal(x, y);
        s[9] = isgreater(x, y); s[10] = isgreaterequal(x, y); s[11] = isless(x, y); s[12] = islessequal(x, y);
        s[13] = islessgreater(x, y);
    }";
    let sp = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -1e-40,
        f32::MIN_POSITIVE,
        f32::MAX,
        2.5,
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in sp {
        for y in sp {
            a.push(x);
            b.push(y);
        }
    }
    while a.len() % 256 != 0 {
        a.push(1.5);
        b.push(-2.0);
    }
    let n = a.len() / 4;
    let out = run1(src, "k", n, 64, &[buf(&a), buf(&b), zeros(224 * n), zeros(56 * n)]);
    let v: Vec<i32> = read(&out[2]);
    let s: Vec<i32> = read(&out[3]);
    for i in 0..n {
        for l in 0..4 {
            let (x, y) = (a[4 * i + l], b[4 * i + l]);
            let want = [
                x.is_nan(),
                x.is_infinite(),
                x.is_finite(),
                x.is_normal(),
                x.is_sign_negative(),
                !x.is_nan() && !y.is_nan(),
                x.is_nan() || y.is_nan(),
                x == y,
                x != y,
                x > y,
                x >= y,
                x < y,
                x <= y,
                x.partial_cmp(&y).is_some_and(|o| o.is_ne()), // islessgreater: ordered, unequal
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(v[56 * i + 4 * k + l], if *w { -1 } else { 0 }, "vector relational {k} of x={x} y={y}");
                if l == 0 {
                    assert_eq!(s[14 * i + k], *w as i32, "scalar relational {k} of x={x} y={y}");
                }
            }
        }
    }
}
