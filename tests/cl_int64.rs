//! Compiler acceptance corpus: 64-bit integers (`long`, `ulong`, their vectors), built from
//! source through the ICD loader and checked against Rust over edge and random inputs.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

/// Work-items per run (8 groups of 64).
const N: usize = 512;

fn rand64(r: &mut Rng) -> i64 {
    let hi = r.next_u32() as u64;
    let lo = r.next_u32() as u64;
    match r.next_u32() % 4 {
        0 => ((hi << 32) | lo) as i64,
        1 => (lo as i32) as i64,
        2 => (((hi & 0xff) << 32) | lo) as i64,
        _ => -((((hi & 0xffff) << 32) | lo) as i64),
    }
}

const EDGES: [i64; 22] = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    i64::MIN,
    i64::MAX,
    i64::MIN + 1,
    u32::MAX as i64,
    1 << 32,
    (1 << 32) + 1,
    -(1 << 32),
    i32::MIN as i64,
    i32::MAX as i64,
    0x8000_0000,
    0xffff_ffff_0000_0000u64 as i64,
    0x0000_0001_ffff_ffff,
    63,
    64,
    0x1234_5678_9abc_def0,
    -0x1234_5678_9abc_def0,
];

/// `N` operand pairs: every pair of edge values, then random values.
fn pairs(seed: u32) -> (Vec<i64>, Vec<i64>) {
    let mut r = Rng(seed);
    let mut a = Vec::new();
    let mut b = Vec::new();
    for x in EDGES {
        for y in EDGES {
            a.push(x);
            b.push(y);
        }
    }
    a.truncate(N / 2);
    b.truncate(N / 2);
    while a.len() < N {
        a.push(rand64(&mut r));
        b.push(rand64(&mut r));
    }
    (a, b)
}

/// Runs `body` (OpenCL statements over `x`, `y` of type `ty`, writing `o[0..m]` as longs) on
/// every pair and checks each result with `want` (`None` = any value is accepted).
#[track_caller]
fn binop(ty: &str, seed: u32, m: usize, body: &str, want: impl Fn(i64, i64) -> Vec<Option<i64>>) {
    let src = format!(
        "__kernel void k(__global const {ty} *a, __global const {ty} *b, __global long *out) {{
            int i = get_global_id(0);
            {ty} x = a[i], y = b[i];
            __global long *o = out + {m} * i;
            {body}
        }}"
    );
    let (a, b) = pairs(seed);
    let out = run1(&src, "k", N, 64, &[buf(&a), buf(&b), zeros(8 * m * N)]);
    let got: Vec<i64> = read(&out[2]);
    for i in 0..N {
        let w = want(a[i], b[i]);
        assert_eq!(w.len(), m);
        for (j, wj) in w.iter().enumerate() {
            if let Some(wj) = wj {
                assert_eq!(got[m * i + j], *wj, "result {j} for x={:#x} y={:#x}\n{body}", a[i], b[i]);
            }
        }
    }
}

fn all(v: Vec<i64>) -> Vec<Option<i64>> {
    v.into_iter().map(Some).collect()
}

#[test]
fn long_add_sub_mul_bitwise() {
    binop(
        "long",
        1,
        9,
        "o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = x & y; o[4] = x | y; o[5] = x ^ y;
        o[6] = ~x; o[7] = -x; long c = x; c += 7; c *= y; c -= x; o[8] = c;",
        |x, y| {
            all(vec![
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                x & y,
                x | y,
                x ^ y,
                !x,
                x.wrapping_neg(),
                x.wrapping_add(7).wrapping_mul(y).wrapping_sub(x),
            ])
        },
    );
}

#[test]
fn ulong_add_sub_mul_carries() {
    binop("ulong", 2, 4, "o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = (x + 0xffffffffUL) * 3;", |x, y| {
        let (x, y) = (x as u64, y as u64);
        all(vec![
            x.wrapping_add(y) as i64,
            x.wrapping_sub(y) as i64,
            x.wrapping_mul(y) as i64,
            x.wrapping_add(0xffff_ffff).wrapping_mul(3) as i64,
        ])
    });
}

#[test]
fn mul_hi_and_mad_hi_signed_and_unsigned() {
    binop(
        "long",
        3,
        4,
        "o[0] = mul_hi(x, y); o[1] = as_long(mul_hi(as_ulong(x), as_ulong(y)));
         o[2] = mad_hi(x, y, x); o[3] = as_long(mad_hi(as_ulong(x), as_ulong(y), as_ulong(y)));",
        |x, y| {
            let hs = ((x as i128 * y as i128) >> 64) as i64;
            let hu = ((x as u64 as u128 * y as u64 as u128) >> 64) as u64;
            all(vec![hs, hu as i64, hs.wrapping_add(x), hu.wrapping_add(y as u64) as i64])
        },
    );
}

#[test]
fn signed_division_and_remainder() {
    binop("long", 4, 3, "o[0] = x / y; o[1] = x % y; o[2] = (x / 7) + (x % -5);", |x, y| {
        let ok = y != 0 && !(x == i64::MIN && y == -1);
        let (q, r) = if ok { (Some(x / y), Some(x % y)) } else { (None, None) };
        vec![q, r, Some(x / 7 + x % -5)]
    });
}

#[test]
fn unsigned_division_and_remainder() {
    binop("ulong", 5, 3, "o[0] = x / y; o[1] = x % y; o[2] = x / 10 + x % 1000000007UL;", |x, y| {
        let (x, y) = (x as u64, y as u64);
        let (q, r) = (x.checked_div(y).map(|q| q as i64), x.checked_rem(y).map(|r| r as i64));
        vec![q, r, Some((x / 10 + x % 1_000_000_007) as i64)]
    });
}

#[test]
fn division_by_zero_and_overflow_do_not_fault() {
    let src = "__kernel void k(__global long *a, __global long *b) {
        int i = get_global_id(0);
        long x = a[i], y = b[i];
        a[i] = x / y + x % y;
        b[i] = (long)((ulong)x / (ulong)y + (ulong)x % (ulong)y);
    }";
    let a: Vec<i64> = (0..64).map(|i| if i % 2 == 0 { i64::MIN } else { i }).collect();
    let b: Vec<i64> = (0..64).map(|i| if i % 4 < 2 { -1 } else { 0 }).collect();
    run1(src, "k", 64, 64, &[buf(&a), buf(&b)]);
}

#[test]
fn shifts_by_variable_amounts_are_masked() {
    binop(
        "long",
        6,
        6,
        "int n = (int)(y & 0xff);
         o[0] = x << n; o[1] = x >> n; o[2] = as_long(as_ulong(x) >> n);
         o[3] = x << y; o[4] = x >> (n & 63); o[5] = (x << 3) >> 40;",
        |x, y| {
            let n = (y & 0xff) as u32;
            all(vec![
                x.wrapping_shl(n),
                x.wrapping_shr(n),
                (x as u64).wrapping_shr(n) as i64,
                x.wrapping_shl(y as u32),
                x >> (n & 63),
                x.wrapping_shl(3) >> 40,
            ])
        },
    );
}

#[test]
fn rotate_long_and_ulong() {
    binop(
        "long",
        7,
        3,
        "o[0] = rotate(x, y); o[1] = as_long(rotate(as_ulong(x), (ulong)(y & 7))); o[2] = rotate(x, 32L);",
        |x, y| {
            all(vec![x.rotate_left((y & 63) as u32), (x as u64).rotate_left((y & 7) as u32) as i64, x.rotate_left(32)])
        },
    );
}

#[test]
fn signed_and_unsigned_compares() {
    binop(
        "long",
        8,
        3,
        "o[0] = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5;
         ulong u = x, v = y;
         o[1] = (u < v) | (u <= v) << 1 | (u > v) << 2 | (u >= v) << 3;
         o[2] = x < 0 ? 1 : (x > 0x100000000L ? 2 : 3);",
        |x, y| {
            let (u, v) = (x as u64, y as u64);
            let s = (x < y) as i64
                | ((x <= y) as i64) << 1
                | ((x > y) as i64) << 2
                | ((x >= y) as i64) << 3
                | ((x == y) as i64) << 4
                | ((x != y) as i64) << 5;
            let w = (u < v) as i64 | ((u <= v) as i64) << 1 | ((u > v) as i64) << 2 | ((u >= v) as i64) << 3;
            all(vec![
                s,
                w,
                if x < 0 {
                    1
                } else if x > 0x1_0000_0000 {
                    2
                } else {
                    3
                },
            ])
        },
    );
}

#[test]
fn min_max_clamp_abs_and_abs_diff() {
    binop(
        "long",
        9,
        9,
        "ulong u = x, v = y;
         o[0] = min(x, y); o[1] = max(x, y); o[2] = (long)min(u, v); o[3] = (long)max(u, v);
         o[4] = clamp(x, -1000L, 1L << 40); o[5] = (long)clamp(u, 5UL, 1UL << 63);
         o[6] = (long)abs(x); o[7] = (long)abs_diff(x, y); o[8] = (long)abs_diff(u, v);",
        |x, y| {
            let (u, v) = (x as u64, y as u64);
            all(vec![
                x.min(y),
                x.max(y),
                u.min(v) as i64,
                u.max(v) as i64,
                x.clamp(-1000, 1 << 40),
                u.clamp(5, 1 << 63) as i64,
                x.unsigned_abs() as i64,
                x.abs_diff(y) as i64,
                u.abs_diff(v) as i64,
            ])
        },
    );
}

#[test]
fn saturating_add_sub_and_halving_adds() {
    binop(
        "long",
        10,
        8,
        "ulong u = x, v = y;
         o[0] = add_sat(x, y); o[1] = sub_sat(x, y); o[2] = (long)add_sat(u, v); o[3] = (long)sub_sat(u, v);
         o[4] = hadd(x, y); o[5] = rhadd(x, y); o[6] = (long)hadd(u, v); o[7] = (long)rhadd(u, v);",
        |x, y| {
            let (u, v) = (x as u64, y as u64);
            all(vec![
                x.saturating_add(y),
                x.saturating_sub(y),
                u.saturating_add(v) as i64,
                u.saturating_sub(v) as i64,
                ((x as i128 + y as i128) >> 1) as i64,
                ((x as i128 + y as i128 + 1) >> 1) as i64,
                ((u as u128 + v as u128) >> 1) as i64,
                ((u as u128 + v as u128 + 1) >> 1) as i64,
            ])
        },
    );
}

#[test]
fn mad_sat_long_ulong_and_int() {
    binop(
        "long",
        11,
        4,
        "ulong u = x, v = y;
         o[0] = mad_sat(x, y, x); o[1] = (long)mad_sat(u, v, u);
         o[2] = mad_sat((int)x, (int)y, (int)(x >> 32)); o[3] = mad_sat((uint)x, (uint)y, (uint)(y >> 32));",
        |x, y| {
            let (u, v) = (x as u64, y as u64);
            let s = (x as i128 * y as i128 + x as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            let us = (u as u128 * v as u128 + u as u128).min(u64::MAX as u128) as u64;
            let (xi, yi, zi) = (x as i32 as i64, y as i32 as i64, (x >> 32) as i32 as i64);
            let si = (xi * yi + zi).clamp(i32::MIN as i64, i32::MAX as i64);
            let (xu, yu, zu) = (x as u32 as u64, y as u32 as u64, (y >> 32) as u32 as u64);
            let su = (xu * yu + zu).min(u32::MAX as u64);
            all(vec![s, us as i64, si, su as i64])
        },
    );
}

#[test]
fn clz_popcount_upsample() {
    binop(
        "long",
        12,
        6,
        "o[0] = clz(x); o[1] = popcount(x); o[2] = (long)clz(as_ulong(y));
         o[3] = upsample((int)x, (uint)y); o[4] = (long)upsample((uint)y, (uint)x);
         o[5] = upsample((char)x, (uchar)y);",
        |x, y| {
            all(vec![
                x.leading_zeros() as i64,
                x.count_ones() as i64,
                y.leading_zeros() as i64,
                (((x as i32 as i64) << 32) | (y as u32 as i64)),
                (((y as u32 as u64) << 32) | (x as u32 as u64)) as i64,
                (((x as i8 as i16) << 8) | (y as u8 as i16)) as i64,
            ])
        },
    );
}

#[test]
fn ctz_in_opencl_2() {
    let src = "__kernel void k(__global const long *a, __global long *o) {
        int i = get_global_id(0);
        o[3 * i] = ctz(a[i]);
        o[3 * i + 1] = ctz((int)a[i]);
        o[3 * i + 2] = ctz((uchar)a[i]);
    }";
    let (a, _) = pairs(13);
    let out = run_source(src, "-cl-std=CL2.0", "k", &[N], Some(&[64]), None, &[buf(&a), zeros(24 * N)]);
    let got: Vec<i64> = read(&out[1]);
    for i in 0..N {
        let want =
            [a[i].trailing_zeros() as i64, (a[i] as i32).trailing_zeros() as i64, (a[i] as u8).trailing_zeros() as i64];
        assert_eq!(&got[3 * i..3 * i + 3], &want, "x={:#x}", a[i]);
    }
}

#[test]
fn int_long_extension_and_truncation() {
    binop(
        "long",
        14,
        8,
        "int s = (int)x; uint z = (uint)y; short h = (short)x; uchar c = (uchar)y;
         o[0] = s; o[1] = z; o[2] = h; o[3] = c;
         o[4] = (long)(s + 1) + (long)z; o[5] = (int)(x >> 16); o[6] = (ulong)(uint)(x * 3);
         o[7] = (char)(x ^ y);",
        |x, y| {
            all(vec![
                x as i32 as i64,
                y as u32 as i64,
                x as i16 as i64,
                y as u8 as i64,
                (x as i32).wrapping_add(1) as i64 + y as u32 as i64,
                (x >> 16) as i32 as i64,
                x.wrapping_mul(3) as u32 as i64,
                (x ^ y) as i8 as i64,
            ])
        },
    );
}

/// Values that stress int → float rounding: near powers of two, ties, random bit patterns.
fn float_inputs(seed: u32) -> Vec<i64> {
    let mut r = Rng(seed);
    let mut v: Vec<i64> = EDGES.to_vec();
    for sh in [24u32, 25, 31, 32, 33, 40, 52, 53, 62, 63] {
        let p = 1u64 << sh;
        for d in [-3i64, -1, 0, 1, 2, 3] {
            v.push((p as i64).wrapping_add(d));
            v.push((p as i64).wrapping_add(d).wrapping_neg());
        }
        // Exact ties and sticky bits below them.
        let tie = (1u64 << sh) | (1u64 << sh.saturating_sub(24));
        v.push(tie as i64);
        v.push((tie | 1) as i64);
        v.push((tie + (1u64 << sh.saturating_sub(23))) as i64);
    }
    while v.len() < N {
        v.push(rand64(&mut r));
    }
    v.truncate(N);
    v
}

#[test]
fn long_and_ulong_to_float_round_to_nearest_even() {
    let src = "__kernel void k(__global const long *a, __global float *o) {
        int i = get_global_id(0);
        o[2 * i] = (float)a[i];
        o[2 * i + 1] = (float)(ulong)a[i];
    }";
    let a = float_inputs(15);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(8 * N)]);
    let got: Vec<f32> = read(&out[1]);
    for i in 0..N {
        assert_bits(got[2 * i], a[i] as f32, format!("(float){:#x}", a[i]));
        assert_bits(got[2 * i + 1], a[i] as u64 as f32, format!("(float)(ulong){:#x}", a[i]));
    }
}

fn float_specials(seed: u32) -> Vec<f32> {
    let mut r = Rng(seed);
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        -2.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2f32.powi(31),
        -(2f32.powi(31)),
        2f32.powi(32),
        2f32.powi(62),
        2f32.powi(63),
        -(2f32.powi(63)),
        2f32.powi(64),
        -(2f32.powi(64)),
        1e30,
        -1e30,
        4294967040.0,
        9.2233715e18,
        -9.2233715e18,
        1.8446743e19,
        f32::MAX,
    ];
    while v.len() < N {
        let e = (r.next_u32() % 70) as i32 - 3;
        let m = 1.0 + (r.next_u32() >> 9) as f32 / (1u32 << 23) as f32;
        let s = if r.next_u32() & 1 == 0 { 1.0 } else { -1.0 };
        v.push(s * m * 2f32.powi(e));
    }
    v
}

#[test]
fn float_to_long_conversions_truncate_and_saturate() {
    let src = "__kernel void k(__global const float *a, __global long *o) {
        int i = get_global_id(0);
        float f = a[i];
        o[4 * i] = convert_long_sat(f);
        o[4 * i + 1] = (long)convert_ulong_sat(f);
        o[4 * i + 2] = (long)f;
        o[4 * i + 3] = (long)(ulong)f;
    }";
    let a = float_specials(16);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(32 * N)]);
    let got: Vec<i64> = read(&out[1]);
    for i in 0..N {
        let f = a[i];
        // Rust `as` casts saturate and map NaN to 0, like convert_*_sat.
        assert_eq!(got[4 * i], f as i64, "convert_long_sat({f:e})");
        assert_eq!(got[4 * i + 1], f as u64 as i64, "convert_ulong_sat({f:e})");
        if f.is_finite() && f.abs() < 2f32.powi(63) {
            assert_eq!(got[4 * i + 2], f as i64, "(long){f:e}");
        }
        if f.is_finite() && f > -1.0 && f < 2f32.powi(64) {
            assert_eq!(got[4 * i + 3], f as u64 as i64, "(ulong){f:e}");
        }
    }
}

#[test]
fn saturating_integer_conversions_from_long_and_int() {
    binop(
        "long",
        17,
        10,
        "o[0] = convert_int_sat(x); o[1] = convert_uint_sat(x); o[2] = convert_char_sat(x);
         o[3] = convert_ushort_sat(x); o[4] = (long)convert_ulong_sat(x); o[5] = convert_long_sat(as_ulong(y));
         o[6] = convert_uint_sat(as_ulong(y)); o[7] = convert_char_sat((int)y); o[8] = convert_uchar_sat((int)y);
         o[9] = convert_short_sat((uint)y);",
        |x, y| {
            let c = |v: i128, lo: i128, hi: i128| v.clamp(lo, hi) as i64;
            let (xi, yu) = (x as i128, y as u64 as i128);
            all(vec![
                c(xi, i32::MIN as i128, i32::MAX as i128),
                c(xi, 0, u32::MAX as i128),
                c(xi, -128, 127),
                c(xi, 0, 65535),
                c(xi, 0, u64::MAX as i128) as u64 as i64,
                c(yu, 0, i64::MAX as i128),
                c(yu, 0, u32::MAX as i128),
                c(y as i32 as i128, -128, 127),
                c(y as i32 as i128, 0, 255),
                c(y as u32 as i128, 0, 32767),
            ])
        },
    );
}

#[test]
fn float_to_int_saturation_and_rounding_modes() {
    let src = "__kernel void k(__global const float *a, __global int *o, __global long *l) {
        int i = get_global_id(0);
        float f = a[i];
        o[8 * i] = convert_int_sat(f);
        o[8 * i + 1] = convert_char_sat(f);
        o[8 * i + 2] = convert_uchar_sat(f);
        o[8 * i + 3] = convert_int_sat_rte(f);
        o[8 * i + 4] = convert_int_sat_rtp(f);
        o[8 * i + 5] = convert_int_sat_rtn(f);
        o[8 * i + 6] = convert_short_sat_rtz(f);
        o[8 * i + 7] = (int)convert_uint_sat(f);
        l[2 * i] = convert_long_sat_rtp(f);
        l[2 * i + 1] = convert_long_sat_rte(f);
    }";
    let mut a = float_specials(18);
    let mut r = Rng(19);
    for x in a.iter_mut().skip(100).step_by(2) {
        *x = (r.next_u32() % 4001) as f32 / 4.0 - 500.0; // exact halves and quarters
    }
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(32 * N), zeros(16 * N)]);
    let got: Vec<i32> = read(&out[1]);
    let gl: Vec<i64> = read(&out[2]);
    for i in 0..N {
        let f = a[i];
        let rte = f.round_ties_even();
        let want = [
            f as i32,
            f as i8 as i32,
            f as u8 as i32,
            rte as i32,
            f.ceil() as i32,
            f.floor() as i32,
            f as i16 as i32,
            f as u32 as i32,
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "f={f:e}");
        assert_eq!(gl[2 * i], f.ceil() as i64, "convert_long_sat_rtp({f:e})");
        assert_eq!(gl[2 * i + 1], rte as i64, "convert_long_sat_rte({f:e})");
    }
}

/// The float nearest `x` in the direction `dir` (-1 down, 0 toward zero, 1 up), exactly.
fn round_dir(x: i128, dir: i32) -> f32 {
    let exact = |f: f32| f as f64 as i128;
    let mut f = x as f32; // nearest even, then stepped one ulp if on the wrong side
    let below = |f: f32| f32::from_bits(if f > 0.0 { f.to_bits() - 1 } else { f.to_bits() + 1 });
    let above = |f: f32| f32::from_bits(if f >= 0.0 { f.to_bits() + 1 } else { f.to_bits() - 1 });
    let v = exact(f);
    match dir {
        -1 if v > x => f = below(f),
        1 if v < x => f = above(f),
        0 if v.abs() > x.abs() => f = if f > 0.0 { below(f) } else { above(f) },
        _ => {}
    }
    f
}

#[test]
fn int_and_long_to_float_rounding_modes() {
    let src = "__kernel void k(__global const long *a, __global float *o) {
        int i = get_global_id(0);
        long x = a[i];
        o[6 * i] = convert_float_rtz(x);
        o[6 * i + 1] = convert_float_rtn(x);
        o[6 * i + 2] = convert_float_rtp(as_ulong(x));
        o[6 * i + 3] = convert_float_rtz((int)x);
        o[6 * i + 4] = convert_float_rtp((int)x);
        o[6 * i + 5] = convert_float_rtn((uint)x);
    }";
    let a = float_inputs(20);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(24 * N)]);
    let got: Vec<f32> = read(&out[1]);
    for i in 0..N {
        let x = a[i];
        let want = [
            round_dir(x as i128, 0),
            round_dir(x as i128, -1),
            round_dir(x as u64 as i128, 1),
            round_dir(x as i32 as i128, 0),
            round_dir(x as i32 as i128, 1),
            round_dir(x as u32 as i128, -1),
        ];
        for j in 0..6 {
            assert_bits(got[6 * i + j], want[j], format!("conversion {j} of {x:#x}"));
        }
    }
}

#[test]
fn long2_and_long4_vectors() {
    let src =
        "__kernel void k(__global const long4 *a, __global const long4 *b, __global long4 *o, __global long2 *p) {
        int i = get_global_id(0);
        long4 x = a[i], y = b[i];
        o[3 * i] = x + y * (long4)(1, 2, 3, -4);
        o[3 * i + 1] = (x < y) + (x >> (y & 63)) ;
        o[3 * i + 2] = max(x, y).wzyx ^ min(x, y);
        long2 h = x.xy - y.zw;
        p[i] = h + vload2(0, (__global const long *)(b + i));
    }";
    let (a, b) = pairs(21);
    let out = run1(src, "k", N / 4, 32, &[buf(&a), buf(&b), zeros(8 * 3 * N), zeros(8 * N / 2)]);
    let got: Vec<i64> = read(&out[2]);
    let gp: Vec<i64> = read(&out[3]);
    for i in 0..N / 4 {
        let x = &a[4 * i..4 * i + 4];
        let y = &b[4 * i..4 * i + 4];
        let m = [1i64, 2, 3, -4];
        for l in 0..4 {
            assert_eq!(got[12 * i + l], x[l].wrapping_add(y[l].wrapping_mul(m[l])), "add lane {l}");
            assert_eq!(
                got[12 * i + 4 + l],
                (-((x[l] < y[l]) as i64)).wrapping_add(x[l] >> (y[l] & 63)),
                "cmp/shift lane {l}"
            );
            assert_eq!(got[12 * i + 8 + l], x[3 - l].max(y[3 - l]) ^ x[l].min(y[l]), "max/min lane {l}");
        }
        for l in 0..2 {
            assert_eq!(gp[2 * i + l], x[l].wrapping_sub(y[2 + l]).wrapping_add(y[l]), "long2 lane {l}");
        }
    }
}

#[test]
fn long_kernel_arguments_by_value() {
    let src = "__kernel void k(__global long *o, int a, long b, char c, ulong d, long2 e, int f, long4 g) {
        int i = get_global_id(0);
        o[8 * i] = a + b;
        o[8 * i + 1] = b * i;
        o[8 * i + 2] = c + (long)d;
        o[8 * i + 3] = e.x;
        o[8 * i + 4] = e.y;
        o[8 * i + 5] = f;
        o[8 * i + 6] = g.x + g.y;
        o[8 * i + 7] = g.z ^ g.w;
    }";
    let (a, b, c, d) = (-7i32, 0x1234_5678_9abc_def0i64, -3i8, 0xfedc_ba98_7654_3210u64);
    let (e, f, g) = ([i64::MIN, -2], 0x5555_5555i32, [1i64 << 40, -(1i64 << 35), 0x0f0f_0f0f_0f0f_0f0f, -1]);
    let out =
        run1(src, "k", 64, 64, &[zeros(64 * 64), val(a), val(b), val(c), val(d), val_vec(&e), val(f), val_vec(&g)]);
    let got: Vec<i64> = read(&out[0]);
    for i in 0..64 {
        let want = [
            a as i64 + b,
            b.wrapping_mul(i as i64),
            (c as i64).wrapping_add(d as i64),
            e[0],
            e[1],
            f as i64,
            g[0] + g[1],
            g[2] ^ g[3],
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "work-item {i}");
    }
}

#[test]
fn loop_accumulating_in_long_with_divergent_trip_counts() {
    let src = "__kernel void k(__global const long *a, __global long *o) {
        int i = get_global_id(0);
        long acc = 0, x = a[i];
        ulong h = 1469598103934665603UL;
        for (int j = 0; j < (i & 15) + 3; j++) {
            acc += x * j + ((long)j << 40);
            h = (h ^ (ulong)(x >> j)) * 1099511628211UL;
        }
        o[2 * i] = acc;
        o[2 * i + 1] = (long)h;
    }";
    let (a, _) = pairs(22);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(16 * N)]);
    let got: Vec<i64> = read(&out[1]);
    for i in 0..N {
        let x = a[i];
        let (mut acc, mut h) = (0i64, 1469598103934665603u64);
        for j in 0..(i as i64 & 15) + 3 {
            acc = acc.wrapping_add(x.wrapping_mul(j)).wrapping_add(j << 40);
            h = (h ^ (x >> j) as u64).wrapping_mul(1099511628211);
        }
        assert_eq!(&got[2 * i..2 * i + 2], &[acc, h as i64], "x={x:#x}");
    }
}

#[test]
fn divergent_branches_on_long_compares() {
    binop(
        "long",
        23,
        2,
        "long r;
         if (x < y) { r = y / 3 - x; } else if (as_ulong(x) > 0x100000000UL) { r = x % 1000; } else { r = x * y; }
         o[0] = r;
         long s = 0;
         while (x > 0 && s < 5) { x >>= 13; s++; }
         o[1] = s * 100 + x;",
        |x, y| {
            let r = if x < y {
                (y / 3).wrapping_sub(x)
            } else if x as u64 > 0x1_0000_0000 {
                x % 1000
            } else {
                x.wrapping_mul(y)
            };
            let (mut xx, mut s) = (x, 0i64);
            while xx > 0 && s < 5 {
                xx >>= 13;
                s += 1;
            }
            all(vec![r.wrapping_sub(0), s * 100 + xx])
        },
    );
}

#[test]
fn long_in_private_and_local_memory() {
    let src = "__kernel void k(__global const long *a, __global long *o, __local long *tmp) {
        int i = get_global_id(0), l = get_local_id(0);
        long priv[8];
        for (int j = 0; j < 8; j++) priv[j] = a[i] * (j + 1) - j;
        tmp[l] = priv[(i + 3) & 7];
        barrier(CLK_LOCAL_MEM_FENCE);
        o[i] = tmp[63 - l] + priv[i & 7];
    }";
    let (a, _) = pairs(24);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(8 * N), Arg::Local(8 * 64)]);
    let got: Vec<i64> = read(&out[1]);
    let p = |i: usize, j: usize| a[i].wrapping_mul(j as i64 + 1).wrapping_sub(j as i64);
    for (i, &g) in got.iter().enumerate() {
        let l = i % 64;
        let other = i - l + 63 - l;
        assert_eq!(g, p(other, (other + 3) & 7).wrapping_add(p(i, i & 7)), "work-item {i}");
    }
}

#[test]
fn long_bitcasts_and_pointer_casts() {
    let src = "__kernel void k(__global const long *a, __global long *o) {
        int i = get_global_id(0);
        long x = a[i];
        int2 w = as_int2(x);
        o[4 * i] = w.x;
        o[4 * i + 1] = w.y;
        o[4 * i + 2] = as_long((int2)(w.y, w.x));
        o[4 * i + 3] = (long)as_double_free(x);
    }"
    .replace("as_double_free(x)", "((ulong)(o + i) - (ulong)o)");
    let (a, _) = pairs(25);
    let out = run1(&src, "k", N, 64, &[buf(&a), zeros(32 * N)]);
    let got: Vec<i64> = read(&out[1]);
    for i in 0..N {
        let x = a[i];
        let want = [x as i32 as i64, (x >> 32) as i32 as i64, x.rotate_left(32), 8 * i as i64];
        assert_eq!(&got[4 * i..4 * i + 4], &want, "x={x:#x}");
    }
}

#[test]
fn bitselect_and_select_on_long_scalars_and_vectors() {
    binop(
        "long",
        9,
        6,
        "o[0] = bitselect(x, y, x ^ y ^ 0x0123456789abcdefL);
        o[1] = select(x, y, x - y);
        long2 v = select((long2)(x, y), (long2)(y, x), (long2)(x, -1));
        o[2] = v.x; o[3] = v.y;
        ulong u = bitselect((ulong)x, (ulong)y, 0xff00ff00ff00ff00UL); o[4] = (long)u;
        o[5] = select((long)7, (long)9, (ulong)y);",
        |x, y| {
            let m = x ^ y ^ 0x0123_4567_89ab_cdef;
            all(vec![
                (x & !m) | (y & m),
                if x.wrapping_sub(y) != 0 { y } else { x },
                if x < 0 { y } else { x },
                x,
                (x & !(0xff00_ff00_ff00_ff00u64 as i64)) | (y & (0xff00_ff00_ff00_ff00u64 as i64)),
                if y != 0 { 9 } else { 7 },
            ])
        },
    );
}

/// `size_t` is 64-bit on the device (`CL_DEVICE_ADDRESS_BITS` 64) and keeps 64-bit semantics
/// where its upper half is observed — wrap-around below 0, carries past 2^32, sign extension —
/// while index arithmetic that only feeds addresses is narrowed to 32 bits (`pass::narrow64`).
#[test]
fn size_t_is_64_bit_where_its_upper_half_shows() {
    let src = "__kernel void k(__global ulong *out, __global const int *a, uint n, int m) {
        size_t i = get_global_id(0);
        size_t before = i - 1;
        __global ulong *o = out + 8 * i;
        o[0] = before < n;
        o[1] = (i + 0xfffffffful) >> 32;
        o[2] = (size_t)(int)(i - 2);
        o[3] = sizeof(size_t) * 100 + sizeof(void *) * 10 + sizeof(ptrdiff_t);
        o[4] = (size_t)a[i] * 3 + i;
        o[5] = (long)(uint)a[i] < (long)m;
        o[6] = (i << 31) >> 31;
        o[7] = a[(i * 0x100000001ul) & 0xffffffff];
    }";
    let n = 64usize;
    let a: Vec<i32> = (0..n as i32).map(|x| x * 7 - 100).collect();
    let out = run1(src, "k", n, 16, &[zeros(8 * 8 * n), buf(&a), val(40u32), val(-5i32)]);
    let got: Vec<u64> = read(&out[0]);
    for i in 0..n as u64 {
        let ai = a[i as usize] as i64 as u64;
        let want = [
            (i.wrapping_sub(1) < 40) as u64,
            (i + 0xffff_ffff) >> 32,
            (i.wrapping_sub(2) as i32) as i64 as u64,
            8 * 100 + 8 * 10 + 8,
            ai.wrapping_mul(3).wrapping_add(i),
            (i64::from(a[i as usize] as u32) < -5) as u64,
            (i << 31) >> 31,
            a[i as usize] as i64 as u64,
        ];
        assert_eq!(&got[8 * i as usize..8 * i as usize + 8], &want, "work-item {i}");
    }
}
