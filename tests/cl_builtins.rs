//! Compiler acceptance corpus: the common/native math subset and the integer built-ins, built from
//! source through the ICD loader and checked against Rust. (The full float math library has its
//! own file, `cl_math.rs`.)
//!
//! Tolerances: results of exact or correctly rounded operations (fabs, fmin/fmax, clamp, copysign,
//! floor/ceil/trunc/rint/round, step, sign, fma, and sqrt under
//! `-cl-fp32-correctly-rounded-divide-sqrt`) are compared bit for bit; `mad` and `mix` may be
//! fused or not (OpenCL C §6.15.2/§6.15.4), so either exact result is accepted; `rsqrt` is allowed
//! 2 ulp (OpenCL 3.0 §7.4, full profile); `native_*` functions have implementation-defined
//! accuracy, so a relative error of 2^-10 (plus 2^-10 absolute near zero) is accepted.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const N: usize = 256;

/// Tolerance for `native_*` results.
#[track_caller]
fn assert_native(got: f32, want: f64, what: impl std::fmt::Display) {
    let tol = (want.abs() / 1024.0).max(1.0 / 1024.0);
    assert!(((got as f64) - want).abs() <= tol, "{what}: got {got:e}, want {want:e} (tolerance {tol:e})");
}

#[test]
fn fma_is_fused_and_mad_may_be_either() {
    let src = "__kernel void k(__global const float *a, __global const float *b, __global const float *c,
                           __global float *out) {
        int i = get_global_id(0);
        out[2 * i] = fma(a[i], b[i], c[i]);
        out[2 * i + 1] = mad(a[i], b[i], c[i]);
    }";
    let mut r = Rng(81);
    let (a, b) = (r.f32s(N, -3.0, 3.0), r.f32s(N, -3.0, 3.0));
    // c close to -a*b makes the fused and the unfused results differ.
    let c: Vec<f32> = (0..N).map(|i| if i % 2 == 0 { -(a[i] * b[i]) } else { r.f32s(1, -9.0, 9.0)[0] }).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), buf(&c), zeros(8 * N)]);
    let got: Vec<f32> = read(&out[3]);
    for i in 0..N {
        let (fused, plain) = (a[i].mul_add(b[i], c[i]), a[i] * b[i] + c[i]);
        assert_bits(got[2 * i], fused, format_args!("fma({}, {}, {})", a[i], b[i], c[i]));
        let m = got[2 * i + 1];
        assert!(
            m.to_bits() == fused.to_bits() || m.to_bits() == plain.to_bits(),
            "mad {i}: {m:e} vs {fused:e}/{plain:e}"
        );
    }
}

#[test]
fn sqrt_is_correctly_rounded_and_rsqrt_within_two_ulp() {
    let src = "__kernel void k(__global const float *a, __global float *out) {
        int i = get_global_id(0);
        out[2 * i] = sqrt(a[i]);
        out[2 * i + 1] = rsqrt(a[i]);
    }";
    let mut a = Rng(82).f32s(N, 0.0, 1e6);
    a[..8].copy_from_slice(&[0.0, 1.0, 2.0, 4.0, 1e-30, 3e30, f32::INFINITY, 0.25]);
    for (k, x) in a.iter_mut().enumerate().skip(8).step_by(5) {
        *x = (k * k) as f32;
    }
    let options = "-cl-fp32-correctly-rounded-divide-sqrt";
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), zeros(8 * N)]);
    let got: Vec<f32> = read(&out[1]);
    for i in 0..N {
        assert_bits(got[2 * i], a[i].sqrt(), format_args!("sqrt({:e})", a[i]));
        let want = (1.0 / (a[i] as f64).sqrt()) as f32;
        assert_ulps(got[2 * i + 1], want, 2, format_args!("rsqrt({:e})", a[i]));
    }
}

#[test]
fn fabs_fmin_fmax_clamp_copysign_with_special_values() {
    let src = "__kernel void k(__global const float *a, __global const float *b, __global float *out) {
        int i = get_global_id(0);
        float x = a[i], y = b[i];
        __global float *o = out + 6 * i;
        o[0] = fabs(x);
        o[1] = fmin(x, y);
        o[2] = fmax(x, y);
        o[3] = clamp(x, -2.5f, 7.0f);
        o[4] = copysign(x, y);
        o[5] = clamp(y, x, x + 100.0f);
    }";
    let mut r = Rng(83);
    let (mut a, mut b) = (r.f32s(N, -10.0, 10.0), r.f32s(N, -10.0, 10.0));
    let specials = [(f32::NAN, 1.0), (2.0, f32::NAN), (-0.0, 3.0), (f32::INFINITY, -1.0), (-5.0, f32::NEG_INFINITY)];
    for (k, (x, y)) in specials.iter().enumerate() {
        (a[k], b[k]) = (*x, *y);
    }
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(24 * N)]);
    let got: Vec<f32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        #[allow(clippy::manual_clamp)] // OpenCL defines clamp as fmin(fmax(x, lo), hi), also for NaN x
        let want = [x.abs(), x.min(y), x.max(y), x.max(-2.5).min(7.0), x.copysign(y), y.max(x).min(x + 100.0)];
        for (k, w) in want.iter().enumerate() {
            if k == 5 && (x.is_nan() || y.is_nan()) {
                continue; // clamp with a NaN bound is undefined
            }
            assert_bits(got[6 * i + k], *w, format_args!("function {k} of ({x:e}, {y:e})"));
        }
    }
}

#[test]
fn rounding_functions_floor_ceil_trunc_rint_round() {
    let src = "__kernel void k(__global const float *a, __global float *out) {
        int i = get_global_id(0);
        float x = a[i];
        out[5 * i] = floor(x);
        out[5 * i + 1] = ceil(x);
        out[5 * i + 2] = trunc(x);
        out[5 * i + 3] = rint(x);
        out[5 * i + 4] = round(x);
    }";
    let mut a = Rng(84).f32s(N, -100.0, 100.0);
    let special = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.0, 0.0, -0.25, 0.49999997, 8388609.0, -8388607.5, 1e20, -3.0];
    a[..special.len()].copy_from_slice(&special);
    for (k, x) in a.iter_mut().enumerate().skip(32).step_by(4) {
        *x = (k as f32 - 120.0) * 0.5;
    }
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(20 * N)]);
    let got: Vec<f32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let want = [x.floor(), x.ceil(), x.trunc(), x.round_ties_even(), x.round()];
        for (k, (w, name)) in want.iter().zip(["floor", "ceil", "trunc", "rint", "round"]).enumerate() {
            assert_bits(got[5 * i + k], *w, format_args!("{name}({x:e})"));
        }
    }
}

#[test]
fn mix_step_sign() {
    let src = "__kernel void k(__global const float *a, __global const float *b, __global const float *t,
                           __global float *out) {
        int i = get_global_id(0);
        out[4 * i] = mix(a[i], b[i], t[i]);
        out[4 * i + 1] = step(a[i], b[i] - 3.0f);
        out[4 * i + 2] = sign(b[i] - a[i] * 2.0f);
        out[4 * i + 3] = sign(t[i] - 0.5f);
    }";
    let mut r = Rng(85);
    let (a, b, mut t) = (r.f32s(N, 1.0, 2.0), r.f32s(N, 3.0, 5.0), r.f32s(N, 0.0, 1.0));
    t[..3].copy_from_slice(&[0.5, f32::NAN, 1.0]);
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), buf(&t), zeros(16 * N)]);
    let got: Vec<f32> = read(&out[3]);
    let sign = |x: f32| {
        if x.is_nan() {
            0.0
        } else if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            x
        }
    };
    for i in 0..N {
        let (x, y, s) = (a[i], b[i], t[i]);
        if !s.is_nan() {
            let (fused, plain) = ((y - x).mul_add(s, x), x + (y - x) * s);
            let m = got[4 * i];
            assert!(m == fused || m == plain, "mix({x}, {y}, {s}) = {m:e}, want {fused:e} or {plain:e}");
        }
        assert_bits(got[4 * i + 1], if y - 3.0 < x { 0.0 } else { 1.0 }, format_args!("step({x}, {})", y - 3.0));
        assert_bits(got[4 * i + 2], sign(y - x * 2.0), format_args!("sign({})", y - x * 2.0));
        assert_bits(got[4 * i + 3], sign(s - 0.5), format_args!("sign({})", s - 0.5));
    }
}

#[test]
fn native_sqrt_rsqrt_recip_divide_exp() {
    let src = "__kernel void k(__global const float *a, __global const float *b, __global float *out) {
        int i = get_global_id(0);
        float x = a[i], y = b[i];
        __global float *o = out + 7 * i;
        o[0] = native_sqrt(x);
        o[1] = native_rsqrt(x);
        o[2] = native_recip(y);
        o[3] = native_divide(x, y);
        o[4] = native_exp(y);
        o[5] = native_exp2(y);
        o[6] = native_exp10(y * 0.25f);
    }";
    let mut r = Rng(86);
    let (a, b) = (r.f32s(N, 0.01, 1000.0), r.f32s(N, -8.0, 8.0));
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(28 * N)]);
    let got: Vec<f32> = read(&out[2]);
    let names =
        ["native_sqrt", "native_rsqrt", "native_recip", "native_divide", "native_exp", "native_exp2", "native_exp10"];
    for i in 0..N {
        let (x, y) = (a[i] as f64, b[i] as f64);
        let want = [x.sqrt(), 1.0 / x.sqrt(), 1.0 / y, x / y, y.exp(), y.exp2(), 10f64.powf(b[i] as f64 * 0.25)];
        for k in 0..7 {
            assert_native(got[7 * i + k], want[k], format_args!("{}({x}, {y})", names[k]));
        }
    }
}

#[test]
fn native_log_and_trigonometry() {
    let src = "__kernel void k(__global const float *a, __global float *out) {
        int i = get_global_id(0);
        float x = a[i];
        __global float *o = out + 6 * i;
        o[0] = native_log(x);
        o[1] = native_log2(x);
        o[2] = native_log10(x);
        o[3] = native_sin(x);
        o[4] = native_cos(x);
        o[5] = native_powr(x, 0.75f);
    }";
    let a = Rng(87).f32s(N, 0.01, 6.0);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(24 * N)]);
    let got: Vec<f32> = read(&out[1]);
    let names = ["native_log", "native_log2", "native_log10", "native_sin", "native_cos", "native_powr"];
    for i in 0..N {
        let x = a[i] as f64;
        let want = [x.ln(), x.log2(), x.log10(), x.sin(), x.cos(), x.powf(0.75)];
        for k in 0..6 {
            assert_native(got[6 * i + k], want[k], format_args!("{}({x})", names[k]));
        }
    }
}

#[test]
fn integer_min_max_abs_clamp() {
    let src = "__kernel void k(__global const int *a, __global const int *b, __global int *out, __global uint *uout) {
        int i = get_global_id(0);
        int x = a[i], y = b[i];
        uint u = (uint)x, v = (uint)y;
        out[4 * i] = min(x, y);
        out[4 * i + 1] = max(x, y);
        out[4 * i + 2] = clamp(x, -1000, y | 1);
        out[4 * i + 3] = clamp(x, -5, 5);
        uout[4 * i] = abs(x);
        uout[4 * i + 1] = min(u, v);
        uout[4 * i + 2] = max(u, v);
        uout[4 * i + 3] = clamp(u, 100u, 0x80000000u);
    }";
    let mut r = Rng(88);
    let mut a: Vec<i32> = r.u32s(N).into_iter().map(|v| v as i32 >> (v % 24)).collect();
    let b: Vec<i32> = r.u32s(N).into_iter().map(|v| (v as i32 >> (v % 24)).abs().max(0) | 1).collect();
    a[..4].copy_from_slice(&[i32::MIN, i32::MAX, 0, -1]);
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(16 * N), zeros(16 * N)]);
    let (got, ugot): (Vec<i32>, Vec<u32>) = (read(&out[2]), read(&out[3]));
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        // clamp(x, lo, hi) is min(max(x, lo), hi); here lo <= hi always holds (y >= 1).
        let want = [x.min(y), x.max(y), x.max(-1000).min(y | 1), x.clamp(-5, 5)];
        assert_eq!(&got[4 * i..4 * i + 4], &want, "signed x={x} y={y}");
        let (u, v) = (x as u32, y as u32);
        let uwant = [x.unsigned_abs(), u.min(v), u.max(v), u.clamp(100, 0x8000_0000)];
        assert_eq!(&ugot[4 * i..4 * i + 4], &uwant, "unsigned x={x} y={y}");
    }
}

#[test]
fn mul_hi_rotate_clz_popcount() {
    let src = "__kernel void k(__global const int *a, __global const int *b, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], y = b[i];
        uint u = (uint)x, v = (uint)y;
        __global int *o = out + 7 * i;
        o[0] = mul_hi(x, y);
        o[1] = (int)mul_hi(u, v);
        o[2] = rotate(x, y);
        o[3] = (int)rotate(u, (uint)(i & 63));
        o[4] = clz(x);
        o[5] = (int)clz(u >> (i & 31));
        o[6] = popcount(x) + 100 * (int)popcount(v);
    }";
    let mut r = Rng(89);
    let mut a: Vec<i32> = r.u32s(N).into_iter().map(|v| v as i32).collect();
    let mut b: Vec<i32> = r.u32s(N).into_iter().map(|v| v as i32).collect();
    a[..4].copy_from_slice(&[0, -1, i32::MIN, 1]);
    b[..4].copy_from_slice(&[i32::MIN, -1, 32, -33]);
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(28 * N)]);
    let got: Vec<i32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let (u, v) = (x as u32, y as u32);
        let want = [
            ((x as i64 * y as i64) >> 32) as i32,
            ((u as u64 * v as u64) >> 32) as i32,
            x.rotate_left(y as u32 & 31),
            u.rotate_left(i as u32 & 31) as i32,
            x.leading_zeros() as i32,
            (u >> (i & 31)).leading_zeros() as i32,
            x.count_ones() as i32 + 100 * v.count_ones() as i32,
        ];
        assert_eq!(&got[7 * i..7 * i + 7], &want, "x={x} y={y} i={i}");
    }
}

#[test]
fn integer_builtins_on_8_and_16_bit_types() {
    let src =
        "__kernel void k(__global const char *c, __global const ushort *s, __global char *oc, __global ushort *os) {
        int i = get_global_id(0);
        char x = c[i], y = c[(i + 1) % N];
        ushort p = s[i], q = s[(i + 7) % N];
        oc[6 * i] = min(x, y);
        oc[6 * i + 1] = (char)abs(x);
        oc[6 * i + 2] = clz(x);
        oc[6 * i + 3] = popcount(x);
        oc[6 * i + 4] = rotate(x, (char)(i & 7));
        oc[6 * i + 5] = mul_hi(x, y);
        os[4 * i] = max(p, q);
        os[4 * i + 1] = clz(p);
        os[4 * i + 2] = mul_hi(p, q);
        os[4 * i + 3] = rotate(p, (ushort)3) ^ clamp(p, (ushort)100, (ushort)60000);
    }";
    let mut r = Rng(90);
    let c: Vec<i8> = (0..N).map(|i| i as u8 as i8).collect();
    let s: Vec<u16> = (0..N).map(|_| r.next_u32() as u16).collect();
    let args = [buf(&c), buf(&s), zeros(6 * N), zeros(8 * N)];
    let out = run_source(src, &format!("-DN={N}"), "k", &[N], Some(&[64]), None, &args);
    let (oc, os): (Vec<i8>, Vec<u16>) = (read(&out[2]), read(&out[3]));
    for i in 0..N {
        let (x, y) = (c[i], c[(i + 1) % N]);
        let want = [
            x.min(y),
            x.unsigned_abs() as i8,
            x.leading_zeros() as i8,
            x.count_ones() as i8,
            x.rotate_left(i as u32 & 7),
            ((x as i16 * y as i16) >> 8) as i8,
        ];
        assert_eq!(&oc[6 * i..6 * i + 6], &want, "char x={x} y={y}");
        let (p, q) = (s[i], s[(i + 7) % N]);
        let want = [
            p.max(q),
            p.leading_zeros() as u16,
            ((p as u32 * q as u32) >> 16) as u16,
            p.rotate_left(3) ^ p.clamp(100, 60000),
        ];
        assert_eq!(&os[4 * i..4 * i + 4], &want, "ushort p={p} q={q}");
    }
}

#[test]
fn abs_diff_on_signed_and_unsigned_ints() {
    let src = "__kernel void k(__global const int *a, __global uint *out) {
        int i = get_global_id(0);
        int x = a[i], y = a[(i + 1) % N];
        out[2 * i] = abs_diff(x, y);
        out[2 * i + 1] = abs_diff((uint)x, (uint)y);
    }";
    let mut a: Vec<i32> = Rng(91).u32s(N).into_iter().map(|v| v as i32).collect();
    a[..2].copy_from_slice(&[i32::MIN, i32::MAX]);
    let out = run_source(src, &format!("-DN={N}"), "k", &[N], Some(&[64]), None, &[buf(&a), zeros(8 * N)]);
    let got: Vec<u32> = read(&out[1]);
    for i in 0..N {
        let (x, y) = (a[i], a[(i + 1) % N]);
        assert_eq!(&got[2 * i..2 * i + 2], &[x.abs_diff(y), (x as u32).abs_diff(y as u32)], "x={x} y={y}");
    }
}
