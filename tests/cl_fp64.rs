//! `cl_khr_fp64` (soft double precision), through the ICD loader: arithmetic bit-exact against
//! the host's IEEE double on edge cases and seeded random operands, comparisons and
//! classification, conversions in every rounding mode, vectors and by-value doubles, and the
//! math built-ins within the spec's ULP bounds (measured against the host's libm).
//!
//! NaN rule (docs/deviations.md): every NaN a double operation produces is the canonical quiet
//! NaN 0x7ff8000000000000 (RISC-V's rule, as the device's float unit); the references here apply
//! the same rule to the host result.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const QNAN: u64 = 0x7ff8_0000_0000_0000;

fn canon(x: f64) -> u64 {
    if x.is_nan() {
        QNAN
    } else {
        x.to_bits()
    }
}

/// Interesting doubles: zeros, subnormals, the normal range's edges, infinities, NaNs, values
/// around 1 and halfway cases.
fn edges() -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        0,
        1,
        2,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x3fe0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x3fef_ffff_ffff_ffff,
        0x4000_0000_0000_0000,
        0x4340_0000_0000_0000,
        0x4330_0000_0000_0001,
        0x7fef_ffff_ffff_ffff,
        0x7fe0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff8_dead_beef_0000,
        0x3ca0_0000_0000_0000,
        0x3cb0_0000_0000_0000,
        0x0000_0000_8000_0000,
    ];
    let neg: Vec<u64> = v.iter().map(|x| x | 1 << 63).collect();
    v.extend(neg);
    v
}

fn rand_f64(r: &mut Rng) -> u64 {
    let bits = (r.next_u32() as u64) << 32 | r.next_u32() as u64;
    match r.next_u32() % 8 {
        // Exponents near 1 (so sums and differences cancel and round).
        0 | 1 => (bits & 0x800f_ffff_ffff_ffff) | ((1023 + (r.next_u32() % 8) as u64 - 4) << 52),
        // Subnormals.
        2 => bits & 0x800f_ffff_ffff_ffff,
        // Few mantissa bits (exact results, ties).
        3 => bits & 0xfff0_0000_0000_0000 | (bits & 0x000f_f000_0000_0000),
        _ => bits,
    }
}

/// Operand pairs: every edge against every edge, then `n` random pairs (some with close exponents).
fn pairs(n: usize, seed: u32) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let e = edges();
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for x in &e {
        for y in &e {
            a.push(*x);
            b.push(*y);
            c.push(e[(a.len() * 7) % e.len()]);
        }
    }
    let mut r = Rng(seed);
    for k in 0..n {
        let x = rand_f64(&mut r);
        let y = if k % 3 == 0 {
            (x & 0xfff0_0000_0000_0000) | (rand_f64(&mut r) & 0x000f_ffff_ffff_ffff)
        } else {
            rand_f64(&mut r)
        };
        a.push(x);
        b.push(y);
        c.push(rand_f64(&mut r));
    }
    let pad = a.len().next_multiple_of(64);
    a.resize(pad, 0);
    b.resize(pad, 0);
    c.resize(pad, 0);
    (a, b, c)
}

const ARITH: &str = r#"
__kernel void arith(__global const ulong *a, __global const ulong *b, __global const ulong *c,
                    __global ulong *o) {
    size_t i = get_global_id(0), n = get_global_size(0);
    double x = as_double(a[i]), y = as_double(b[i]), z = as_double(c[i]);
    o[i] = as_ulong(x + y);
    o[n + i] = as_ulong(x - y);
    o[2 * n + i] = as_ulong(x * y);
    o[3 * n + i] = as_ulong(x / y);
    o[4 * n + i] = as_ulong(sqrt(x));
    o[5 * n + i] = as_ulong(fma(x, y, z));
    o[6 * n + i] = as_ulong(-x);
}
"#;

#[test]
fn arithmetic_is_bit_exact() {
    arithmetic_sweep(6000, 0x1234_5678);
}

/// The big sweep: 10^6 seeded random operand triples per operation (opt-in:
/// `cargo test --release --test cl_fp64 -- --ignored`).
#[test]
#[ignore]
fn arithmetic_is_bit_exact_on_a_million_operands() {
    arithmetic_sweep(1_000_000, 0x9e37_79b9);
}

/// The same operations on uniform operands: each work-group walks its share of the operand
/// list, every work-item reading the same element (so the values are uniform and the compiler
/// calls the soft-double routines' uniform variants, `target::call`), and work-item `k`
/// computes operation `k` inside a divergent branch.
const UNIFORM_ARITH: &str = r#"
__kernel void uarith(__global const ulong *a, __global const ulong *b, __global const ulong *c,
                     __global ulong *o, uint per) {
    size_t g = get_group_id(0), l = get_local_id(0), n = get_num_groups(0) * per;
    for (uint j = 0; j < per; j++) {
        size_t i = g * per + j;
        double x = as_double(a[i]), y = as_double(b[i]), z = as_double(c[i]);
        if (l == 0) o[i] = as_ulong(x + y);
        else if (l == 1) o[n + i] = as_ulong(x - y);
        else if (l == 2) o[2 * n + i] = as_ulong(x * y);
        else if (l == 3) o[3 * n + i] = as_ulong(x / y);
        else if (l == 4) o[4 * n + i] = as_ulong(sqrt(x));
        else if (l == 5) o[5 * n + i] = as_ulong(fma(x, y, z));
        else if (l == 6) o[6 * n + i] = as_ulong(-x);
    }
}
"#;

#[test]
fn uniform_arithmetic_is_bit_exact() {
    let (a, b, c) = pairs(3000, 0x0bad_cafe);
    let per = 64;
    let n = a.len();
    assert_eq!(n % per, 0);
    let out = run_source(
        UNIFORM_ARITH,
        "",
        "uarith",
        &[8 * n / per],
        Some(&[8]),
        None,
        &[buf(&a), buf(&b), buf(&c), zeros(7 * n * 8), val(per as u32)],
    );
    check_arithmetic(&a, &b, &c, &read(&out[3]));
}

fn arithmetic_sweep(count: usize, seed: u32) {
    let (a, b, c) = pairs(count, seed);
    let n = a.len();
    let out = run_source(ARITH, "", "arith", &[n], Some(&[64]), None, &[buf(&a), buf(&b), buf(&c), zeros(7 * n * 8)]);
    check_arithmetic(&a, &b, &c, &read(&out[3]));
}

/// `o` holds add, sub, mul, div, sqrt, fma and negation of the operand lists, one block each.
fn check_arithmetic(a: &[u64], b: &[u64], c: &[u64], o: &[u64]) {
    let n = a.len();
    let names = ["add", "sub", "mul", "div", "sqrt", "fma", "neg"];
    let mut bad = 0;
    for i in 0..n {
        let (x, y, z) = (f64::from_bits(a[i]), f64::from_bits(b[i]), f64::from_bits(c[i]));
        let want = [
            canon(x + y),
            canon(x - y),
            canon(x * y),
            canon(x / y),
            canon(x.sqrt()),
            canon(x.mul_add(y, z)),
            a[i] ^ 1 << 63,
        ];
        for (k, w) in want.iter().enumerate() {
            let got = o[k * n + i];
            if got != *w {
                bad += 1;
                if bad < 10 {
                    eprintln!(
                        "{}({:#018x}, {:#018x}, {:#018x}) = {got:#018x}, want {w:#018x}",
                        names[k], a[i], b[i], c[i]
                    );
                }
            }
        }
    }
    assert_eq!(bad, 0, "{bad} results differ from the host's IEEE double");
}

const CMP: &str = r#"
__kernel void cmp(__global const ulong *a, __global const ulong *b, __global int *o) {
    size_t i = get_global_id(0);
    double x = as_double(a[i]), y = as_double(b[i]);
    o[16 * i + 0] = x == y;
    o[16 * i + 1] = x != y;
    o[16 * i + 2] = x < y;
    o[16 * i + 3] = x <= y;
    o[16 * i + 4] = x > y;
    o[16 * i + 5] = x >= y;
    o[16 * i + 6] = isnan(x);
    o[16 * i + 7] = isinf(x);
    o[16 * i + 8] = isfinite(x);
    o[16 * i + 9] = isnormal(x);
    o[16 * i + 10] = signbit(x);
    o[16 * i + 11] = isunordered(x, y);
    o[16 * i + 12] = islessgreater(x, y);
    o[16 * i + 13] = !(x < y);
    o[16 * i + 14] = as_ulong(fmin(x, y)) == as_ulong(x) ? 1 : as_ulong(fmin(x, y)) == as_ulong(y) ? 2 : 3;
    o[16 * i + 15] = as_ulong(fmax(x, y)) == as_ulong(x) ? 1 : as_ulong(fmax(x, y)) == as_ulong(y) ? 2 : 3;
}
"#;

#[test]
fn comparisons_and_classification() {
    let (a, b, _) = pairs(1000, 99);
    let n = a.len();
    let out = run_source(CMP, "", "cmp", &[n], Some(&[64]), None, &[buf(&a), buf(&b), zeros(16 * n * 4)]);
    let o: Vec<i32> = read(&out[2]);
    for i in 0..n {
        let (x, y) = (f64::from_bits(a[i]), f64::from_bits(b[i]));
        let pick = |r: f64| -> i32 {
            if r.is_nan() {
                3
            } else if r.to_bits() == x.to_bits() || (r == x && !y.is_nan() && r.to_bits() != y.to_bits()) {
                1
            } else {
                2
            }
        };
        let (mn, mx) = (x.min(y), x.max(y));
        let want = [
            (x == y) as i32,
            (x != y) as i32,
            (x < y) as i32,
            (x <= y) as i32,
            (x > y) as i32,
            (x >= y) as i32,
            x.is_nan() as i32,
            x.is_infinite() as i32,
            x.is_finite() as i32,
            x.is_normal() as i32,
            x.is_sign_negative() as i32,
            (x.is_nan() || y.is_nan()) as i32,
            matches!(x.partial_cmp(&y), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Greater)) as i32,
            (x.partial_cmp(&y) != Some(std::cmp::Ordering::Less)) as i32,
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(o[16 * i + k], *w, "comparison {k} of {x:e} ({:#x}) and {y:e} ({:#x})", a[i], b[i]);
        }
        // fmin/fmax: the other operand when one is NaN; either zero for ±0 pairs.
        for (k, r) in [(14, mn), (15, mx)] {
            if x == y && x == 0.0 {
                assert!(o[16 * i + k] != 3);
            } else if !(x.is_nan() && y.is_nan()) && x.to_bits() != y.to_bits() {
                assert_eq!(o[16 * i + k], pick(r), "fmin/fmax {k} of {x:e} and {y:e}");
            }
        }
    }
}

/// `f` rounded from `x` (exactly representable in f64) toward zero, +inf or -inf, given the
/// nearest-even result `rte`.
fn directed_f32(x: f64, rte: f32, mode: u32) -> f32 {
    if x.is_nan() || x.is_infinite() || (rte as f64) == x {
        return rte;
    }
    let up = |f: f32| {
        if f == f32::INFINITY {
            f
        } else {
            f32::from_bits(if f >= 0.0 {
                if f == 0.0 {
                    1
                } else {
                    f.to_bits() + 1
                }
            } else if f.to_bits() == 0x8000_0000 {
                1
            } else {
                f.to_bits() - 1
            })
        }
    };
    let down = |f: f32| -up(-f);
    let too_big = (rte as f64) > x;
    match mode {
        1 => {
            if (rte as f64).abs() > x.abs() {
                if x > 0.0 {
                    down(rte)
                } else {
                    up(rte)
                }
            } else {
                rte
            }
        }
        2 => {
            if too_big {
                rte
            } else {
                up(rte)
            }
        }
        _ => {
            if too_big {
                down(rte)
            } else {
                rte
            }
        }
    }
}

const CONV: &str = r#"
__kernel void conv(__global const ulong *a, __global const long *l, __global uint *f,
                   __global ulong *d, __global long *i) {
    size_t k = get_global_id(0);
    double x = as_double(a[k]);
    f[4 * k + 0] = as_uint(convert_float_rte(x));
    f[4 * k + 1] = as_uint(convert_float_rtz(x));
    f[4 * k + 2] = as_uint(convert_float_rtp(x));
    f[4 * k + 3] = as_uint(convert_float_rtn(x));
    d[8 * k + 0] = as_ulong((double)l[k]);
    d[8 * k + 1] = as_ulong((double)(ulong)l[k]);
    d[8 * k + 2] = as_ulong((double)as_float((uint)a[k]));
    d[8 * k + 3] = as_ulong(floor(x));
    d[8 * k + 4] = as_ulong(ceil(x));
    d[8 * k + 5] = as_ulong(trunc(x));
    d[8 * k + 6] = as_ulong(rint(x));
    d[8 * k + 7] = as_ulong(round(x));
    i[4 * k + 0] = convert_long_sat(x);
    i[4 * k + 1] = convert_long_sat_rte(x);
    i[4 * k + 2] = convert_int_sat(x);
    i[4 * k + 3] = convert_uint_sat_rtn(x);
}
"#;

#[test]
fn conversions_in_every_rounding_mode() {
    let (mut a, _, _) = pairs(3000, 7);
    a.truncate(a.len() / 2);
    let n = a.len().next_multiple_of(64);
    a.resize(n, 0x3ff8_0000_0000_0000);
    let mut r = Rng(5);
    let l: Vec<i64> =
        (0..n).map(|_| ((r.next_u32() as i64) << 32 | r.next_u32() as i64) >> (r.next_u32() % 64)).collect();
    let out = run_source(
        CONV,
        "",
        "conv",
        &[n],
        Some(&[64]),
        None,
        &[buf(&a), buf(&l), zeros(16 * n), zeros(64 * n), zeros(32 * n)],
    );
    let (f, d, iv): (Vec<u32>, Vec<u64>, Vec<i64>) = (read(&out[2]), read(&out[3]), read(&out[4]));
    for k in 0..n {
        let x = f64::from_bits(a[k]);
        let rte = x as f32;
        for m in 0..4u32 {
            let w = if m == 0 { rte } else { directed_f32(x, rte, m) };
            let wb = if w.is_nan() { 0x7fc0_0000 } else { w.to_bits() };
            assert_eq!(f[4 * k + m as usize], wb, "double {x:e} ({:#x}) to float, mode {m}", a[k]);
        }
        let fl = f32::from_bits(a[k] as u32);
        let round = x.round();
        let want = [
            canon(l[k] as f64),
            canon(l[k] as u64 as f64),
            canon(fl as f64),
            canon(x.floor()),
            canon(x.ceil()),
            canon(x.trunc()),
            canon(x.round_ties_even()),
            canon(round),
        ];
        for (j, w) in want.iter().enumerate() {
            assert_eq!(d[8 * k + j], *w, "conversion {j} of {x:e} / {} ({:#x})", l[k], a[k]);
        }
        let sat = |v: f64, lo: f64, hi: f64| if v.is_nan() { 0.0 } else { v.clamp(lo, hi) };
        assert_eq!(iv[4 * k], if x.is_nan() { 0 } else { x as i64 }, "convert_long_sat({x:e})");
        assert_eq!(
            iv[4 * k + 1],
            if x.is_nan() { 0 } else { x.round_ties_even() as i64 },
            "convert_long_sat_rte({x:e})"
        );
        assert_eq!(
            iv[4 * k + 2] as i32,
            sat(x.trunc(), i32::MIN as f64, i32::MAX as f64) as i32,
            "convert_int_sat({x:e})"
        );
        assert_eq!(iv[4 * k + 3] as u32, sat(x.floor(), 0.0, u32::MAX as f64) as u32, "convert_uint_sat_rtn({x:e})");
    }
}

#[test]
fn vectors_uniform_arguments_and_double_math_in_loops() {
    // Contraction off: the reference rounds every operation.
    let src = r#"
    #pragma OPENCL FP_CONTRACT OFF
    __kernel void v(__global const double4 *a, __global double *o, double s, int n) {
        size_t i = get_global_id(0);
        double4 x = a[i] * s + (double4)(1.0, 2.0, 3.0, 4.0);
        double acc = 0.0;
        for (int k = 0; k < n; k++)
            acc += x.s0 * k - x.s3 / (k + 1);
        o[4 * i + 0] = dot(x, x);
        o[4 * i + 1] = acc;
        o[4 * i + 2] = length(x.s012);
        o[4 * i + 3] = (double)(i & 1 ? x.s1 : x.s2);
    }"#;
    let mut r = Rng(77);
    let n = 128;
    let a: Vec<u64> = (0..4 * n).map(|_| ((r.next_u32() % 2000) as f64 / 7.0 - 100.0).to_bits()).collect();
    let out = run_source(
        src,
        "",
        "v",
        &[n],
        Some(&[64]),
        None,
        &[buf(&a), zeros(32 * n), val(0.375f64.to_bits()), val(9i32)],
    );
    let o: Vec<u64> = read(&out[1]);
    for i in 0..n {
        let x: Vec<f64> = (0..4).map(|k| f64::from_bits(a[4 * i + k]) * 0.375 + (k + 1) as f64).collect();
        let mut acc = 0.0;
        for k in 0..9 {
            acc += x[0] * k as f64 - x[3] / (k + 1) as f64;
        }
        let dot = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
        let len = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        let got: Vec<f64> = (0..4).map(|k| f64::from_bits(o[4 * i + k])).collect();
        assert!((got[0] - dot).abs() <= 4.0 * f64::EPSILON * dot, "dot {i}: {} vs {dot}", got[0]);
        assert_eq!(got[1], acc, "loop accumulation {i}");
        assert!((got[2] - len).abs() <= 4.0 * f64::EPSILON * len, "length {i}: {} vs {len}", got[2]);
        assert_eq!(got[3], if i & 1 == 1 { x[1] } else { x[2] });
    }
}

/// `normalize` of doubles near the overflow and underflow limits, with infinities (replaced by
/// ±1 and the rest by 0, as the spec says), zeros and NaNs (the CTS geometrics case
/// {1.33e308, -1.28e308}, whose length overflows).
#[test]
fn normalize_without_overflow_or_underflow() {
    let src = "__kernel void n(__global const double2 *a, __global double2 *o) {
        size_t i = get_global_id(0); o[i] = normalize(a[i]); }";
    let inf = f64::INFINITY;
    let cases: [(f64, f64); 8] = [
        (1.3291e308, -1.28466e308),
        (3.0, 4.0),
        (4e-320, -3e-320),
        (1e-300, 1e-300),
        (inf, 5.0),
        (-inf, inf),
        (0.0, -0.0),
        (f64::NAN, 1.0),
    ];
    let a: Vec<u64> = cases.iter().flat_map(|&(x, y)| [x.to_bits(), y.to_bits()]).collect();
    let out = run_source(src, "", "n", &[cases.len()], None, None, &[buf(&a), zeros(16 * cases.len())]);
    let o: Vec<f64> = read::<u64>(&out[1]).into_iter().map(f64::from_bits).collect();
    for (i, &(x, y)) in cases.iter().enumerate() {
        let (gx, gy) = (o[2 * i], o[2 * i + 1]);
        let want = if x.is_nan() || y.is_nan() {
            assert!(gx.is_nan() && gy.is_nan(), "case {i}: {gx} {gy}");
            continue;
        } else if x.is_infinite() || y.is_infinite() {
            let r = |v: f64| if v.is_infinite() { 1f64.copysign(v) } else { 0.0 };
            let (rx, ry) = (r(x), r(y));
            let l = (rx * rx + ry * ry).sqrt();
            (rx / l, ry / l)
        } else if x == 0.0 && y == 0.0 {
            (x, y)
        } else {
            // Scaled on the host too (exact power-of-two scaling), so the reference is finite.
            let e = x.abs().max(y.abs()).log2().floor() as i32;
            let scale = |v: f64| v * 2f64.powi(-e / 2) * 2f64.powi(-e - (-e / 2));
            let (sx, sy) = (scale(x), scale(y));
            let l = (sx * sx + sy * sy).sqrt();
            (sx / l, sy / l)
        };
        for (g, w) in [(gx, want.0), (gy, want.1)] {
            assert!((g - w).abs() <= 3.0 * f64::EPSILON * w.abs().max(f64::MIN_POSITIVE), "case {i}: {g} vs {w}");
            assert_eq!(g.is_sign_negative(), w.is_sign_negative(), "case {i}: sign of {g} vs {w}");
        }
    }
}

/// Error of `got` in ulps of the reference `want` (f64 reference rounded already: ±0.5 ulp).
fn ulp_err(got: f64, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if want.is_infinite() || got.is_infinite() {
        return if got == want { 0.0 } else { f64::INFINITY };
    }
    let e = if want == 0.0 { -1074 } else { (want.abs().log2().floor() as i32 - 52).max(-1074) };
    (got - want).abs() / 2f64.powi(e)
}

/// One math built-in per kernel (each is large in soft double), checked on `xs` against `reference`
/// within `bound` ulps (the spec's bound plus one for the host libm's own error).
fn check_math(call: &str, xs: &[f64], ys: &[f64], reference: impl Fn(f64, f64) -> f64, bound: f64) {
    let src = format!(
        "__kernel void m(__global const double *x, __global const double *y, __global double *o) {{
            size_t i = get_global_id(0); double a = x[i], b = y[i]; (void)b; o[i] = {call}; }}"
    );
    let n = xs.len();
    let xb: Vec<u64> = xs.iter().map(|v| v.to_bits()).collect();
    let yb: Vec<u64> = ys.iter().map(|v| v.to_bits()).collect();
    let out = run_source(&src, "", "m", &[n], Some(&[32]), None, &[buf(&xb), buf(&yb), zeros(8 * n)]);
    let o: Vec<u64> = read(&out[2]);
    let mut worst = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (got, want) = (f64::from_bits(o[i]), reference(xs[i], ys[i]));
        let e = ulp_err(got, want);
        if e > worst.0 {
            worst = (e, xs[i], got);
        }
    }
    assert!(worst.0 <= bound, "{call}: {} ulp at x = {:e} (got {:e})", worst.0, worst.1, worst.2);
}

fn spread(n: usize, lo: f64, hi: f64, seed: u32) -> Vec<f64> {
    let mut r = Rng(seed);
    let mut v: Vec<f64> = (0..n).map(|_| lo + (hi - lo) * (r.next_u32() as f64 / 4294967296.0)).collect();
    v[0] = lo;
    v
}

#[test]
fn exponentials_and_logarithms_within_bounds() {
    let x = spread(96, -700.0, 700.0, 1);
    let z = vec![0.0; 96];
    check_math("exp(a)", &x, &z, |a, _| a.exp(), 4.0);
    check_math("expm1(a)", &spread(96, -40.0, 40.0, 2), &z, |a, _| a.exp_m1(), 4.0);
    let p = spread(96, 1e-300, 1e300, 3).iter().map(|v| v * 1e-150).collect::<Vec<_>>();
    check_math("log(a)", &p, &z, |a, _| a.ln(), 4.0);
    check_math("log2(a)", &p, &z, |a, _| a.log2(), 4.0);
    check_math("log1p(a)", &spread(96, -0.99, 10.0, 4), &z, |a, _| a.ln_1p(), 3.0);
    check_math("pow(a, b)", &spread(96, 0.01, 100.0, 5), &spread(96, -50.0, 50.0, 6), |a, b| a.powf(b), 17.0);
    check_math("cbrt(a)", &spread(96, -1e6, 1e6, 7), &z, |a, _| a.cbrt(), 3.0);
}

#[test]
fn trigonometric_and_hyperbolic_within_bounds() {
    let z = vec![0.0; 96];
    check_math("sin(a)", &spread(96, -1e6, 1e6, 8), &z, |a, _| a.sin(), 5.0);
    check_math("cos(a)", &spread(96, -10.0, 10.0, 9), &z, |a, _| a.cos(), 5.0);
    check_math("tan(a)", &spread(96, -3.0, 3.0, 10), &z, |a, _| a.tan(), 6.0);
    check_math("atan2(a, b)", &spread(96, -5.0, 5.0, 11), &spread(96, -5.0, 5.0, 12), |a, b| a.atan2(b), 7.0);
    check_math("asin(a)", &spread(96, -1.0, 1.0, 13), &z, |a, _| a.asin(), 5.0);
    check_math("tanh(a)", &spread(96, -20.0, 20.0, 14), &z, |a, _| a.tanh(), 6.0);
    check_math("fmod(a, b)", &spread(96, -1e5, 1e5, 15), &spread(96, 0.1, 50.0, 16), |a, b| a % b, 0.0);
}

#[test]
fn device_reports_fp64() {
    let log = build_only(
        "#ifndef cl_khr_fp64\n#error no fp64\n#endif\n__kernel void k(__global double *d) { d[0] = 1.0; }",
        "",
    );
    assert!(!log.contains("error"), "{log}");
    let log = build_only(
        "#ifndef __opencl_c_fp64\n#error no fp64 feature\n#endif\n__kernel void k(__global double *d) { d[0] = 1.0; }",
        "-cl-std=CL3.0",
    );
    assert!(!log.contains("error"), "{log}");
}

/// Many math built-ins in one kernel (each is an out-of-line subroutine called from several
/// places), calls in divergent branches and in loops of per-lane trip counts, and a second
/// kernel of the same program that uses no double at all.
#[test]
fn subroutine_calls_in_divergent_code_and_shared_bodies() {
    let src = r#"
    __kernel void m(__global const double *x, __global double *o) {
        size_t i = get_global_id(0);
        double a = x[i], r = 0.0;
        if (i & 1)
            r = exp(a) + log(a + 2.0) * sin(a);
        else
            r = cos(a) - sqrt(a + 3.0) / atan(a + 0.5);
        for (int k = 0; k < (int)(i % 5); k++)
            r = r * 0.5 + pow(a + 1.5, 0.25 * k) - tanh(r);
        o[i] = r + cbrt(a) + erf(a) + fmod(a * 10.0, 3.0);
    }
    __kernel void plain(__global int *y) { y[get_global_id(0)] *= 3; }"#;
    let n = 96;
    let xs: Vec<f64> = (0..n).map(|i| -0.9 + 1.8 * i as f64 / n as f64).collect();
    let xb: Vec<u64> = xs.iter().map(|v| v.to_bits()).collect();
    let out = run_source(src, "", "m", &[n], Some(&[32]), None, &[buf(&xb), zeros(8 * n)]);
    let o: Vec<u64> = read(&out[1]);
    for i in 0..n {
        let a = xs[i];
        let mut r =
            if i & 1 == 1 { a.exp() + (a + 2.0).ln() * a.sin() } else { a.cos() - (a + 3.0).sqrt() / (a + 0.5).atan() };
        for k in 0..(i % 5) {
            r = r * 0.5 + (a + 1.5).powf(0.25 * k as f64) - r.tanh();
        }
        // erf from its series (the host's Rust std has none): enough terms for 1e-16 at |a| < 1.
        let mut erf = 0.0;
        let (mut term, mut sign) = (a, 1.0);
        for k in 0..40 {
            erf += sign * term / (2 * k + 1) as f64;
            term *= a * a / (k + 1) as f64;
            sign = -sign;
        }
        erf *= 2.0 / std::f64::consts::PI.sqrt();
        let want = r + a.cbrt() + erf + (a * 10.0) % 3.0;
        let got = f64::from_bits(o[i]);
        assert!((got - want).abs() <= 1e-13 * want.abs().max(1.0), "item {i}: {got} vs {want}");
    }
    let y: Vec<i32> = (0..64).collect();
    let out = run_source(src, "", "plain", &[64], Some(&[64]), None, &[buf(&y)]);
    assert_eq!(read::<i32>(&out[0]), (0..64).map(|v| v * 3).collect::<Vec<_>>());
}

/// Reference double → half (bits), rounding mode 0 rte, 1 rtz, 2 rtp, 3 rtn, on the magnitude
/// with exact f64 arithmetic (scaling by powers of two and integer rounding are exact).
fn f64_to_f16(x: f64, mode: u32) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Away from zero for rtp on positives and rtn on negatives; toward zero for the other pair.
    let up = (mode == 2 && sign == 0) || (mode == 3 && sign != 0);
    let round = |q: f64| match mode {
        0 => q.round_ties_even(),
        1 => q.trunc(),
        _ if up => q.ceil(),
        _ => q.trunc(),
    };
    let e = if a == 0.0 { -15 } else { a.log2().floor() as i32 };
    // Subnormal range: units of 2^-24; normal: 11 significant bits.
    let bits = if e < -14 {
        round(a * 2f64.powi(24)) as u32
    } else {
        let e = if a < 2f64.powi(e) {
            e - 1
        } else if a >= 2f64.powi(e + 1) {
            e + 1
        } else {
            e
        };
        let m = round(a / 2f64.powi(e - 10)) as u32;
        (((e + 14) as u32) << 10) + m
    };
    if bits >= 0x7c00 {
        let to_inf = mode == 0 || up;
        return sign | if to_inf { 0x7c00 } else { 0x7bff };
    }
    sign | bits as u16
}

#[test]
fn vstore_half_of_doubles_rounds_once() {
    let src = r#"
    __kernel void h(__global const ulong *a, __global half *o) {
        size_t i = get_global_id(0);
        double x = as_double(a[i]);
        vstore_half_rte(x, 4 * i, o);
        vstore_half_rtz(x, 4 * i + 1, o);
        vstore_half_rtp(x, 4 * i + 2, o);
        vstore_half_rtn(x, 4 * i + 3, o);
    }"#;
    let mut r = Rng(31);
    let mut a: Vec<u64> = edges();
    for _ in 0..2000 {
        let bits = (r.next_u32() as u64) << 32 | r.next_u32() as u64;
        // Exponents around the half range (subnormals, ties, overflow).
        a.push((bits & 0x800f_ffff_ffff_ffff) | ((1023 - 26 + (r.next_u32() % 44) as u64) << 52));
    }
    let n = a.len().next_multiple_of(64);
    a.resize(n, 0);
    let out = run_source(src, "", "h", &[n], Some(&[64]), None, &[buf(&a), zeros(8 * n)]);
    let o: Vec<u16> = read(&out[1]);
    for i in 0..n {
        let x = f64::from_bits(a[i]);
        for m in 0..4u32 {
            assert_eq!(o[4 * i + m as usize], f64_to_f16(x, m), "vstore_half mode {m} of {x:e} ({:#x})", a[i]);
        }
    }
}

/// Two loops with per-lane (divergent) exits that share double constants (common-subexpression
/// elimination keeps one `1e20` and one `2.0` for both, defined inside the first loop): the
/// constants stay uniform after the first loop. Once they were counted as values leaving a
/// divergent loop, got a vector register nothing wrote, and neither loop ever exited
/// (pyopencl's complex Bessel function was wrong for every |z| ≥ 1).
#[test]
fn loops_with_divergent_exits_share_constants() {
    let src = r#"
    __kernel void k(__global const double *zin, __global double *o, int v) {
        int i = get_global_id(0);
        double x = zin[i];
        int n = v; double s = 1;
        for (int k = 0; k < 200; k++) { s = s * 2 * n * x; n += 1; if (s > 1e20) break; }
        o[3 * i] = n;
        n = v; s = 1;
        for (int k = 0; k < 200; k++) { s = s * 2 * n * x; n += 1; if (s > 1e20) break; }
        o[3 * i + 1] = n;
        o[3 * i + 2] = s;
    }"#;
    let n = 64;
    let xs: Vec<f64> = (0..n).map(|i| 10f64.powf(-1.0 + 3.0 * i as f64 / (n - 1) as f64)).collect();
    let xb: Vec<u64> = xs.iter().map(|v| v.to_bits()).collect();
    let out = run_source(src, "", "k", &[n], Some(&[32]), None, &[buf(&xb), zeros(24 * n), val(3i32)]);
    let o: Vec<u64> = read(&out[1]);
    for (i, &x) in xs.iter().enumerate() {
        let (mut n, mut s) = (3i32, 1f64);
        for _ in 0..200 {
            s = s * 2.0 * n as f64 * x;
            n += 1;
            if s > 1e20 {
                break;
            }
        }
        let got: Vec<f64> = (0..3).map(|k| f64::from_bits(o[3 * i + k])).collect();
        assert_eq!(got, vec![n as f64, n as f64, s], "item {i} (x = {x})");
    }
}
