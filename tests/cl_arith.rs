//! Compiler acceptance corpus: 8/16/32-bit integer and float scalar arithmetic, comparisons and
//! conversions, each kernel built from source through the ICD loader and checked against Rust.
//! Some kernels also run unoptimized (`-cl-opt-disable`).

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

/// 256 work-items in 4 groups: every char value once.
const N: usize = 256;

both_opt_levels!(
    char_arithmetic_shifts_and_compares,
    char_arithmetic_shifts_and_compares_unoptimized,
    char_arithmetic_shifts_and_compares_with
);

fn char_arithmetic_shifts_and_compares_with(options: &str) {
    let src = "__kernel void k(__global const char *a, __global const char *b, __global char *out) {
        int i = get_global_id(0);
        char x = a[i], y = b[i];
        __global char *o = out + 8 * i;
        o[0] = x + y;
        o[1] = x - y;
        o[2] = x * y;
        o[3] = x / y;
        o[4] = x % y;
        o[5] = x >> (y & 7);
        o[6] = (x < y) | ((x == y) << 1) | ((x >= y) << 2) | ((x != 0) << 3);
        char c = x; c += 3; c *= y; c ^= 0x5a;
        o[7] = c;
    }";
    let a: Vec<i8> = (0..N).map(|i| i as u8 as i8).collect();
    let mut r = Rng(11);
    // Divisors: never 0, and never -1 (so that -128 / -1 does not overflow).
    let b: Vec<i8> =
        (0..N).map(|_| (r.next_u32() % 120 + 2) as i8 * if r.next_u32() & 1 == 0 { 1 } else { -1 }).collect();
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), buf(&b), zeros(8 * N)]);
    let got: Vec<i8> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i] as i32, b[i] as i32);
        let c = ((x + 3) as i8 as i32 * y) as i8 ^ 0x5a;
        let want = [
            (x + y) as i8,
            (x - y) as i8,
            (x * y) as i8,
            (x / y) as i8,
            (x % y) as i8,
            (x >> (y & 7)) as i8,
            ((x < y) as i32 | ((x == y) as i32) << 1 | ((x >= y) as i32) << 2 | ((x != 0) as i32) << 3) as i8,
            c,
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "x={x} y={y}");
    }
}

#[test]
fn uchar_arithmetic_wraps_and_shifts_logically() {
    let src = "__kernel void k(__global const uchar *a, __global const uchar *b, __global uchar *out) {
        int i = get_global_id(0);
        uchar x = a[i], y = b[i];
        __global uchar *o = out + 8 * i;
        o[0] = x + y;
        o[1] = x - y;
        o[2] = x * y;
        o[3] = x / y;
        o[4] = x % y;
        o[5] = (uchar)(x << 3) >> (y & 7);
        uchar d = x - y;
        o[6] = (d > 100) | ((x > y) << 1) | ((uchar)~x < 128) << 2;
        o[7] = (x & y) | (x ^ 0xf0);
    }";
    let a: Vec<u8> = (0..N).map(|i| i as u8).collect();
    let mut r = Rng(12);
    let b: Vec<u8> = (0..N).map(|_| (r.next_u32() % 255 + 1) as u8).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(8 * N)]);
    let got: Vec<u8> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x / y,
            x % y,
            (x << 3) >> (y & 7),
            (x.wrapping_sub(y) > 100) as u8 | ((x > y) as u8) << 1 | ((!x < 128) as u8) << 2,
            (x & y) | (x ^ 0xf0),
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "x={x} y={y}");
    }
}

#[test]
fn short_arithmetic_shifts_and_compares() {
    let src = "__kernel void k(__global const short *a, __global const short *b, __global short *out) {
        int i = get_global_id(0);
        short x = a[i], y = b[i];
        __global short *o = out + 8 * i;
        o[0] = x + y;
        o[1] = x - y;
        o[2] = x * y;
        o[3] = x / y;
        o[4] = x % y;
        o[5] = x >> (y & 15);
        o[6] = (short)(x << 4) + (x <= y) - (x > y) * 2;
        short s = x; s -= y; s <<= 1; s |= 1;
        o[7] = s;
    }";
    let mut r = Rng(13);
    let a: Vec<i16> = (0..N).map(|_| r.next_u32() as i16).collect();
    let b: Vec<i16> =
        (0..N).map(|_| (r.next_u32() % 30000 + 2) as i16 * if r.next_u32() & 1 == 0 { 1 } else { -1 }).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(16 * N)]);
    let got: Vec<i16> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i] as i32, b[i] as i32);
        let want = [
            (x + y) as i16,
            (x - y) as i16,
            (x * y) as i16,
            (x / y) as i16,
            (x % y) as i16,
            (x >> (y & 15)) as i16,
            ((x << 4) as i16 as i32 + (x <= y) as i32 - (x > y) as i32 * 2) as i16,
            ((((x - y) as i16 as i32) << 1) | 1) as i16,
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "x={x} y={y}");
    }
}

#[test]
fn ushort_arithmetic_wraps_and_shifts_logically() {
    let src = "__kernel void k(__global const ushort *a, __global const ushort *b, __global ushort *out) {
        int i = get_global_id(0);
        ushort x = a[i], y = b[i];
        __global ushort *o = out + 6 * i;
        o[0] = x + y;
        o[1] = x * y;
        o[2] = x / y;
        o[3] = x % y;
        o[4] = x >> (y & 15);
        o[5] = ((ushort)(x - y) > 40000) | ((x < y) << 1);
    }";
    let mut r = Rng(14);
    let a: Vec<u16> = (0..N).map(|_| r.next_u32() as u16).collect();
    let b: Vec<u16> = (0..N).map(|_| (r.next_u32() % 65535 + 1) as u16).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(12 * N)]);
    let got: Vec<u16> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_mul(y),
            x / y,
            x % y,
            x >> (y & 15),
            (x.wrapping_sub(y) > 40000) as u16 | ((x < y) as u16) << 1,
        ];
        assert_eq!(&got[6 * i..6 * i + 6], &want, "x={x} y={y}");
    }
}

#[test]
fn int_arithmetic_division_and_shifts() {
    let src = "__kernel void k(__global const int *a, __global const int *b, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], y = b[i];
        __global int *o = out + 10 * i;
        o[0] = x + y;
        o[1] = x - y;
        o[2] = (x >> 16) * (y >> 15);
        o[3] = x / y;
        o[4] = x % y;
        o[5] = x << (y & 31);
        o[6] = x >> (y & 31);
        o[7] = (x & y) ^ (x | ~y);
        o[8] = -x + (x < y) + ((x <= y) << 1) + ((x > y) << 2) + ((x >= y) << 3) + ((x == y) << 4) + ((x != y) << 5);
        o[9] = x > y ? x - y : y - x;
    }";
    let mut r = Rng(15);
    // |x|, |y| < 2^30: no signed overflow (undefined in C) in any expression.
    let mut a: Vec<i32> = (0..N).map(|_| r.next_u32() as i32 >> (1 + r.next_u32() % 24)).collect();
    let b: Vec<i32> = (0..N).map(|_| (r.next_u32() as i32 >> (1 + r.next_u32() % 30)) | 2).collect();
    a[2] = b[2];
    a[3] = -b[3];
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(40 * N)]);
    let got: Vec<i32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let cmp = (x < y) as i32
            + (((x <= y) as i32) << 1)
            + (((x > y) as i32) << 2)
            + (((x >= y) as i32) << 3)
            + (((x == y) as i32) << 4)
            + (((x != y) as i32) << 5);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            (x >> 16) * (y >> 15),
            x / y,
            x % y,
            x << (y & 31),
            x >> (y & 31),
            (x & y) ^ (x | !y),
            x.wrapping_neg().wrapping_add(cmp),
            if x > y { x.wrapping_sub(y) } else { y.wrapping_sub(x) },
        ];
        assert_eq!(&got[10 * i..10 * i + 10], &want, "x={x} y={y}");
    }
}

#[test]
fn uint_arithmetic_division_and_unsigned_compares() {
    let src = "__kernel void k(__global const uint *a, __global const uint *b, __global uint *out) {
        int i = get_global_id(0);
        uint x = a[i], y = b[i];
        __global uint *o = out + 7 * i;
        o[0] = x * y + 7u;
        o[1] = x / y;
        o[2] = x % y;
        o[3] = x >> (y & 31);
        o[4] = (x < y) | ((x >= y) << 1) | ((x > 0x80000000u) << 2);
        o[5] = x - y;
        o[6] = max(x, y) - min(x, y);
    }";
    let mut r = Rng(16);
    let a = r.u32s(N);
    let b: Vec<u32> = (0..N).map(|_| (r.next_u32() >> (r.next_u32() % 31)) | 1).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), zeros(28 * N)]);
    let got: Vec<u32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_mul(y).wrapping_add(7),
            x / y,
            x % y,
            x >> (y & 31),
            (x < y) as u32 | ((x >= y) as u32) << 1 | ((x > 0x8000_0000) as u32) << 2,
            x.wrapping_sub(y),
            x.max(y) - x.min(y),
        ];
        assert_eq!(&got[7 * i..7 * i + 7], &want, "x={x} y={y}");
    }
}

#[test]
fn integer_division_by_constants() {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i];
        uint u = (uint)x;
        __global int *o = out + 8 * i;
        o[0] = x / 7;
        o[1] = x % 10;
        o[2] = x / -3;
        o[3] = x / 16;
        o[4] = x % 16;
        o[5] = (int)(u / 3u);
        o[6] = (int)(u % 1000u);
        o[7] = (int)(u / 65536u);
    }";
    let mut r = Rng(17);
    let mut a: Vec<i32> = r.u32s(N).into_iter().map(|v| v as i32).collect();
    a[..8].copy_from_slice(&[0, -1, 1, i32::MIN, i32::MAX, -7, 7, -16]);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(32 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for i in 0..N {
        let (x, u) = (a[i], a[i] as u32);
        let want = [x / 7, x % 10, x / -3, x / 16, x % 16, (u / 3) as i32, (u % 1000) as i32, (u / 65536) as i32];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "x={x}");
    }
}

/// Float inputs: ordinary values plus signed zeros, infinities and a NaN.
fn float_inputs(seed: u32) -> (Vec<f32>, Vec<f32>) {
    let mut r = Rng(seed);
    let mut a = r.f32s(N, -1000.0, 1000.0);
    let mut b = r.f32s(N, -50.0, 50.0);
    let special = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0, -1.0, 3.0];
    for (i, s) in special.iter().enumerate() {
        a[i] = *s;
        b[N - 1 - i] = *s;
        a[8 + i] = *s;
        b[8 + i] = special[(i + 3) % 8];
    }
    (a, b)
}

#[test]
fn float_add_sub_mul_div_are_correctly_rounded() {
    let src = "__kernel void k(__global const float *a, __global const float *b, __global float *out) {
        int i = get_global_id(0);
        float x = a[i], y = b[i];
        __global float *o = out + 6 * i;
        o[0] = x + y;
        o[1] = x - y;
        o[2] = x * y;
        o[3] = x / y;
        o[4] = -x;
        o[5] = (x * 0.5f - y) / 3.0f;
    }";
    let (a, b) = float_inputs(21);
    let out = run_source(
        src,
        "-cl-fp32-correctly-rounded-divide-sqrt",
        "k",
        &[N],
        Some(&[64]),
        None,
        &[buf(&a), buf(&b), zeros(24 * N)],
    );
    let got: Vec<f32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = [x + y, x - y, x * y, x / y, -x, (x * 0.5 - y) / 3.0];
        for (k, w) in want.iter().enumerate() {
            assert_bits(got[6 * i + k], *w, format_args!("op {k} of x={x:e} y={y:e}"));
        }
    }
}

#[test]
fn float_comparisons_follow_ieee_including_nan() {
    let src = "__kernel void k(__global const float *a, __global const float *b, __global int *out) {
        int i = get_global_id(0);
        float x = a[i], y = b[i];
        out[i] = (x < y) | ((x <= y) << 1) | ((x == y) << 2) | ((x != y) << 3) | ((x > y) << 4)
            | ((x >= y) << 5) | ((!(x < y)) << 6) | ((x < y || x != x) << 7);
        out[N + i] = x > y ? 1 : (x < y ? -1 : (x == y ? 0 : 7));
    }";
    let (a, b) = float_inputs(22);
    let out = run_source(src, &format!("-DN={N}"), "k", &[N], Some(&[64]), None, &[buf(&a), buf(&b), zeros(8 * N)]);
    let got: Vec<i32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // `!(x < y)` differs from `x >= y` for NaN
        let bits = [x < y, x <= y, x == y, x != y, x > y, x >= y, !(x < y), x < y || x.is_nan()];
        let want = bits.iter().enumerate().map(|(k, &c)| (c as i32) << k).sum::<i32>();
        assert_eq!(got[i], want, "x={x} y={y}");
        let want3 = if x > y {
            1
        } else if x < y {
            -1
        } else if x == y {
            0
        } else {
            7
        };
        assert_eq!(got[N + i], want3, "three-way x={x} y={y}");
    }
}

both_opt_levels!(
    int_and_float_conversions_truncate_and_round,
    int_and_float_conversions_truncate_and_round_unoptimized,
    int_and_float_conversions_truncate_and_round_with
);

fn int_and_float_conversions_truncate_and_round_with(options: &str) {
    let src = "__kernel void k(__global const float *f, __global const int *n, __global const uint *u,
                           __global int *oi, __global uint *ou, __global float *of) {
        int i = get_global_id(0);
        float x = f[i];
        oi[3 * i] = (int)x;
        oi[3 * i + 1] = (int)(x * 1000.0f);
        oi[3 * i + 2] = convert_int(-x);
        ou[2 * i] = (uint)fabs(x * 4000000.0f);
        ou[2 * i + 1] = convert_uint(fabs(x));
        of[3 * i] = (float)n[i];
        of[3 * i + 1] = (float)u[i];
        of[3 * i + 2] = convert_float(n[i] >> 4) * 0.25f;
    }";
    let mut r = Rng(23);
    let mut f = r.f32s(N, -1000.0, 1000.0);
    f[..6].copy_from_slice(&[0.0, -0.0, 0.999, -0.999, 2.5, -2.5]);
    let mut n: Vec<i32> = r.u32s(N).into_iter().map(|v| v as i32).collect();
    n[..4].copy_from_slice(&[16_777_217, -16_777_219, i32::MIN, i32::MAX]);
    let mut u = r.u32s(N);
    u[..3].copy_from_slice(&[u32::MAX, 0x8000_0001, 16_777_217]);
    let args = [buf(&f), buf(&n), buf(&u), zeros(12 * N), zeros(8 * N), zeros(12 * N)];
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &args);
    let (oi, ou, of): (Vec<i32>, Vec<u32>, Vec<f32>) = (read(&out[3]), read(&out[4]), read(&out[5]));
    for i in 0..N {
        let x = f[i];
        assert_eq!(&oi[3 * i..3 * i + 3], &[x as i32, (x * 1000.0) as i32, (-x) as i32], "float→int x={x}");
        assert_eq!(&ou[2 * i..2 * i + 2], &[(x * 4_000_000.0).abs() as u32, x.abs() as u32], "float→uint x={x}");
        let want = [n[i] as f32, u[i] as f32, (n[i] >> 4) as f32 * 0.25];
        for (k, w) in want.iter().enumerate() {
            assert_bits(of[3 * i + k], *w, format_args!("int→float {k}: n={} u={}", n[i], u[i]));
        }
    }
}

both_opt_levels!(
    small_integer_sign_and_zero_extension,
    small_integer_sign_and_zero_extension_unoptimized,
    small_integer_sign_and_zero_extension_with
);

fn small_integer_sign_and_zero_extension_with(options: &str) {
    let src = "__kernel void k(__global const char *c, __global const uchar *uc, __global const short *s,
                           __global const ushort *us, __global int *oi, __global uint *ou, __global short *os) {
        int i = get_global_id(0);
        oi[4 * i] = c[i];
        oi[4 * i + 1] = uc[i];
        oi[4 * i + 2] = s[i];
        oi[4 * i + 3] = us[i];
        ou[3 * i] = (uint)c[i];
        ou[3 * i + 1] = (uint)s[i] >> 4;
        ou[3 * i + 2] = (uint)(ushort)c[i];
        os[2 * i] = c[i];
        os[2 * i + 1] = (short)(ushort)uc[i] - 200;
    }";
    let mut r = Rng(24);
    let c: Vec<i8> = (0..N).map(|i| i as u8 as i8).collect();
    let uc: Vec<u8> = (0..N).map(|i| 255 - i as u8).collect();
    let s: Vec<i16> = (0..N).map(|_| r.next_u32() as i16).collect();
    let us: Vec<u16> = (0..N).map(|_| r.next_u32() as u16).collect();
    let args = [buf(&c), buf(&uc), buf(&s), buf(&us), zeros(16 * N), zeros(12 * N), zeros(4 * N)];
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &args);
    let (oi, ou, os): (Vec<i32>, Vec<u32>, Vec<i16>) = (read(&out[4]), read(&out[5]), read(&out[6]));
    for i in 0..N {
        assert_eq!(&oi[4 * i..4 * i + 4], &[c[i] as i32, uc[i] as i32, s[i] as i32, us[i] as i32], "i={i}");
        assert_eq!(&ou[3 * i..3 * i + 3], &[c[i] as u32, (s[i] as u32) >> 4, c[i] as u16 as u32], "i={i}");
        assert_eq!(&os[2 * i..2 * i + 2], &[c[i] as i16, uc[i] as i16 - 200], "i={i}");
    }
}

#[test]
fn narrowing_conversions_and_small_float_conversions() {
    let src = "__kernel void k(__global const int *n, __global const float *f, __global char *oc,
                           __global uchar *ouc, __global short *os, __global ushort *ous, __global float *of) {
        int i = get_global_id(0);
        int x = n[i];
        float y = f[i];
        oc[2 * i] = (char)x;
        oc[2 * i + 1] = (char)(y * 0.5f);
        ouc[2 * i] = (uchar)(uint)x;
        ouc[2 * i + 1] = (uchar)fabs(y);
        os[2 * i] = (short)x;
        os[2 * i + 1] = (short)(y * 100.0f);
        ous[2 * i] = (ushort)x;
        ous[2 * i + 1] = (ushort)(fabs(y) * 200.0f);
        of[4 * i] = (float)(char)x;
        of[4 * i + 1] = (float)(uchar)x;
        of[4 * i + 2] = (float)(short)x;
        of[4 * i + 3] = (float)(ushort)x;
    }";
    let mut r = Rng(25);
    let n: Vec<i32> = r.u32s(N).into_iter().map(|v| v as i32).collect();
    let mut f = r.f32s(N, -250.0, 250.0);
    f[..4].copy_from_slice(&[-0.9, 0.9, 127.5, -255.9]);
    let args = [buf(&n), buf(&f), zeros(2 * N), zeros(2 * N), zeros(4 * N), zeros(4 * N), zeros(16 * N)];
    let out = run1(src, "k", N, 64, &args);
    let (oc, ouc): (Vec<i8>, Vec<u8>) = (read(&out[2]), read(&out[3]));
    let (os, ous, of): (Vec<i16>, Vec<u16>, Vec<f32>) = (read(&out[4]), read(&out[5]), read(&out[6]));
    for i in 0..N {
        let (x, y) = (n[i], f[i]);
        assert_eq!(&oc[2 * i..2 * i + 2], &[x as i8, (y * 0.5) as i8], "char x={x} y={y}");
        assert_eq!(&ouc[2 * i..2 * i + 2], &[x as u8, y.abs() as u8], "uchar x={x} y={y}");
        assert_eq!(&os[2 * i..2 * i + 2], &[x as i16, (y * 100.0) as i16], "short x={x} y={y}");
        assert_eq!(&ous[2 * i..2 * i + 2], &[x as u16, (y.abs() * 200.0) as u16], "ushort x={x} y={y}");
        let want = [x as i8 as f32, x as u8 as f32, x as i16 as f32, x as u16 as f32];
        assert_eq!(&of[4 * i..4 * i + 4], &want, "to float x={x}");
    }
}

#[test]
fn mixed_width_promotions() {
    let src = "__kernel void k(__global const uchar *a, __global const char *b, __global const ushort *c,
                           __global int *out) {
        int i = get_global_id(0);
        uchar x = a[i];
        char y = b[i];
        ushort z = c[i];
        out[5 * i] = x * y;
        out[5 * i + 1] = (x << 8) | (uchar)y;
        out[5 * i + 2] = (int)((uint)z * z);
        out[5 * i + 3] = y * z - x;
        out[5 * i + 4] = (x > y) + (z > y) * 2 + ((uint)y > z) * 4;
    }";
    let mut r = Rng(26);
    let a: Vec<u8> = (0..N).map(|_| r.next_u32() as u8).collect();
    let b: Vec<i8> = (0..N).map(|_| r.next_u32() as i8).collect();
    let c: Vec<u16> = (0..N).map(|_| r.next_u32() as u16).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&b), buf(&c), zeros(20 * N)]);
    let got: Vec<i32> = read(&out[3]);
    for i in 0..N {
        let (x, y, z) = (a[i] as i32, b[i] as i32, c[i] as i32);
        let want = [
            x * y,
            (x << 8) | (y as u8 as i32),
            (z as u32 * z as u32) as i32,
            y * z - x,
            (x > y) as i32 + (z > y) as i32 * 2 + ((y as u32 > z as u32) as i32) * 4,
        ];
        assert_eq!(&got[5 * i..5 * i + 5], &want, "x={x} y={y} z={z}");
    }
}

#[test]
fn reinterpreting_casts_and_selects() {
    let src = "__kernel void k(__global const float *f, __global const int *n, __global uint *ou, __global float *of) {
        int i = get_global_id(0);
        float x = f[i];
        uint bits = as_uint(x);
        ou[2 * i] = bits;
        ou[2 * i + 1] = (bits >> 23) & 0xff;
        of[3 * i] = as_float(bits & 0x7fffffffu);
        of[3 * i + 1] = as_float(as_int(x) ^ (n[i] & (int)0x80000000));
        of[3 * i + 2] = n[i] > 0 ? x : -x * 2.0f;
    }";
    let (f, _) = float_inputs(27);
    let n = Rng(28).u32s(N).into_iter().map(|v| v as i32).collect::<Vec<_>>();
    let out = run1(src, "k", N, 64, &[buf(&f), buf(&n), zeros(8 * N), zeros(12 * N)]);
    let (ou, of): (Vec<u32>, Vec<f32>) = (read(&out[2]), read(&out[3]));
    for i in 0..N {
        let (x, b) = (f[i], f[i].to_bits());
        assert_eq!(&ou[2 * i..2 * i + 2], &[b, (b >> 23) & 0xff], "x={x}");
        assert_bits(of[3 * i], f32::from_bits(b & 0x7fff_ffff), format_args!("abs bits x={x}"));
        assert_bits(of[3 * i + 1], f32::from_bits(b ^ (n[i] as u32 & 0x8000_0000)), format_args!("sign x={x}"));
        assert_bits(of[3 * i + 2], if n[i] > 0 { x } else { -x * 2.0 }, format_args!("select x={x}"));
    }
}

/// Fused multiply-adds in every operand position of a loop: a loop-carried value as the
/// multiplicand (accumulated in place with `vfmadd`), as the addend (`vfmacc`), with uniform
/// and divergent partners, bit-exact against the host's fused `mul_add`.
#[test]
fn fma_in_every_operand_position_of_a_loop() {
    let src = "__kernel void k(__global const float *x, __global float *out, float u, int n) {
        int i = get_global_id(0);
        float a = x[i], b = 1.0f, c = 0.25f, d = x[i] * 0.5f;
        for (int k = 0; k < n + (i & 3); k++) {
            a = fma(a, 0.5f, 1.0f);
            b = fma(b, 0.75f, a * 0.125f);
            c = fma(d, c, u);
            d = fma(x[i], u, d);
        }
        out[4 * i] = a; out[4 * i + 1] = b; out[4 * i + 2] = c; out[4 * i + 3] = d;
    }";
    let xs: Vec<f32> = (0..N).map(|i| (i as f32 - 100.0) * 0.0371).collect();
    let (u, n) = (0.3125f32, 7i32);
    let out = run_source(src, "", "k", &[N], Some(&[64]), None, &[buf(&xs), zeros(16 * N), val(u), val(n)]);
    let got: Vec<f32> = read(&out[1]);
    for (i, &x) in xs.iter().enumerate() {
        let (mut a, mut b, mut c, mut d) = (x, 1.0f32, 0.25f32, x * 0.5);
        for _ in 0..n + (i as i32 & 3) {
            a = a.mul_add(0.5, 1.0);
            b = b.mul_add(0.75, a * 0.125);
            c = d.mul_add(c, u);
            d = x.mul_add(u, d);
        }
        let want = [a, b, c, d];
        for k in 0..4 {
            assert_eq!(
                got[4 * i + k].to_bits(),
                want[k].to_bits(),
                "item {i} value {k}: {} vs {}",
                got[4 * i + k],
                want[k]
            );
        }
    }
}

/// Many uniform float operands live at once (some held above x31) in `.vf` arithmetic, whose
/// scalar operand `regext` cannot extend: every result still matches the host.
#[test]
fn vf_forms_with_many_uniform_operands() {
    let src = "__kernel void k(__global float *out, float u0, float u1, float u2, float u3, float u4, float u5, float u6, float u7, float u8, float u9, float u10, float u11, float u12, float u13, float u14, float u15, float u16, float u17, float u18, float u19, float u20, float u21, float u22, float u23, float u24, float u25, float u26, float u27, float u28, float u29, float u30, float u31, float u32, float u33, float u34, float u35) {
        float a = (float)get_global_id(0) * 0.25f; a = a + u0; a = a + u1; a = a + u2; a = a + u3; a = a + u4; a = a + u5; a = a + u6; a = a + u7; a = a + u8; a = a + u9; a = a + u10; a = a + u11; a = a + u12; a = a + u13; a = a + u14; a = a + u15; a = a + u16; a = a + u17; a = a + u18; a = a + u19; a = a + u20; a = a + u21; a = a + u22; a = a + u23; a = a + u24; a = a + u25; a = a + u26; a = a + u27; a = a + u28; a = a + u29; a = a + u30; a = a + u31; a = a + u32; a = a + u33; a = a + u34; a = a + u35; a = a * u0; a = u0 - a; a = a * u1; a = u1 - a; a = a * u2; a = u2 - a; a = a * u3; a = u3 - a; a = a * u4; a = u4 - a; a = a * u5; a = u5 - a; a = a * u6; a = u6 - a; a = a * u7; a = u7 - a; a = a * u8; a = u8 - a; a = a * u9; a = u9 - a; a = a * u10; a = u10 - a; a = a * u11; a = u11 - a; a = a * u12; a = u12 - a; a = a * u13; a = u13 - a; a = a * u14; a = u14 - a; a = a * u15; a = u15 - a; a = a * u16; a = u16 - a; a = a * u17; a = u17 - a; a = a * u18; a = u18 - a; a = a * u19; a = u19 - a; a = a * u20; a = u20 - a; a = a * u21; a = u21 - a; a = a * u22; a = u22 - a; a = a * u23; a = u23 - a; a = a * u24; a = u24 - a; a = a * u25; a = u25 - a; a = a * u26; a = u26 - a; a = a * u27; a = u27 - a; a = a * u28; a = u28 - a; a = a * u29; a = u29 - a; a = a * u30; a = u30 - a; a = a * u31; a = u31 - a; a = a * u32; a = u32 - a; a = a * u33; a = u33 - a; a = a * u34; a = u34 - a; a = a * u35; a = u35 - a;
        out[get_global_id(0)] = a;
    }";
    let us: Vec<f32> = (0..36).map(|k| 0.5 + k as f32 * 0.03125).collect();
    let mut args = vec![zeros(4 * 64)];
    args.extend(us.iter().map(|&u| val(u)));
    let out = run_source(src, "", "k", &[64], Some(&[64]), None, &args);
    let got: Vec<f32> = read(&out[0]);
    for (i, g) in got.iter().enumerate() {
        let mut a = i as f32 * 0.25;
        for &u in &us {
            a += u;
        }
        for &u in &us {
            a *= u;
            a = u - a;
        }
        assert_eq!(g.to_bits(), a.to_bits(), "item {i}: {g} vs {a}");
    }
}
