//! `cl_khr_fp16` (half computed through float), through the ICD loader: add/sub/mul/div/sqrt/fma
//! bit-exact on every one of the 65536 halves against edge operands plus seeded random triples,
//! comparisons and classification, conversions to and from every integer type, float and double
//! in every rounding mode (with `_sat`), half vectors, math built-ins within OpenCL's half bounds,
//! and `printf` of a half.
//!
//! The host reference has no f16: a half is decoded exactly into an integer times a power of two,
//! exact results (sums, products, fma) are formed in i128, and a value is rounded to half by
//! [`round_half`] (all four IEEE modes, subnormals, overflow). Division and square root round
//! the f64 result (53 ≥ 2·11 + 2 bits: double rounding is innocuous).
//!
//! NaN rule: a NaN produced by arithmetic is the canonical quiet NaN 0x7e00 (the float unit's
//! canonical NaN narrowed); the references apply it too.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use cl::*;
use clrun::*;
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::Mutex;

const QNAN: u16 = 0x7e00;
const PRAGMA: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}
const MODES: [Mode; 4] = [Mode::Rte, Mode::Rtz, Mode::Rtp, Mode::Rtn];

fn is_nan(h: u16) -> bool {
    h & 0x7fff > 0x7c00
}

/// The value of a finite half: (negative, integer m, exponent e) with |value| = m · 2^e.
fn decode(h: u16) -> (bool, u128, i32) {
    let neg = h & 0x8000 != 0;
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as u128;
    if e == 0 {
        (neg, m, -24)
    } else {
        (neg, m | 0x400, e - 25)
    }
}

fn h2f64(h: u16) -> f64 {
    if is_nan(h) {
        return f64::NAN;
    }
    if h & 0x7fff == 0x7c00 {
        return if h & 0x8000 != 0 { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    let (neg, m, e) = decode(h);
    let v = m as f64 * 2f64.powi(e);
    if neg {
        -v
    } else {
        v
    }
}

/// Rounds ±m·2^e (exact) to half with `mode`: subnormals, overflow to ∞ or the largest finite.
fn round_half(neg: bool, m: u128, e: i32, mode: Mode) -> u16 {
    let s: u16 = if neg { 0x8000 } else { 0 };
    if m == 0 {
        return s;
    }
    let top = 127 - m.leading_zeros() as i32 + e; // floor(log2 |value|)
    let k = (top - 10).max(-24); // the quantum of the result's binade
    let (mut q, rem_cmp, inexact) = if e >= k {
        (m << (e - k), std::cmp::Ordering::Equal, false)
    } else {
        let sh = (k - e) as u32;
        if sh >= 127 {
            (0, std::cmp::Ordering::Less, true)
        } else {
            let q = m >> sh;
            let rem = m & ((1u128 << sh) - 1);
            (q, rem.cmp(&(1u128 << (sh - 1))), rem != 0)
        }
    };
    let up = match mode {
        Mode::Rte => {
            rem_cmp == std::cmp::Ordering::Greater || (rem_cmp == std::cmp::Ordering::Equal && inexact && q & 1 == 1)
        }
        Mode::Rtz => false,
        Mode::Rtp => inexact && !neg,
        Mode::Rtn => inexact && neg,
    };
    q += up as u128;
    let mut k = k;
    if q >= 2048 {
        q >>= 1;
        k += 1;
    }
    let biased = if q >= 1024 { k + 25 } else { 0 };
    if biased >= 31 {
        let to_inf = match mode {
            Mode::Rte => true,
            Mode::Rtz => false,
            Mode::Rtp => !neg,
            Mode::Rtn => neg,
        };
        return s | if to_inf { 0x7c00 } else { 0x7bff };
    }
    let bits = if biased == 0 { q as u16 } else { ((biased as u16) << 10) | (q as u16 & 0x3ff) };
    s | bits
}

/// An f64 rounded to half (NaN: canonical; infinities kept).
fn f64_to_half(x: f64, mode: Mode) -> u16 {
    if x.is_nan() {
        return QNAN;
    }
    if x.is_infinite() {
        return if x < 0.0 { 0xfc00 } else { 0x7c00 };
    }
    let b = x.to_bits();
    let neg = b >> 63 != 0;
    let e = ((b >> 52) & 0x7ff) as i32;
    let f = (b & ((1 << 52) - 1)) as u128;
    if e == 0 {
        round_half(neg, f, -1074, mode)
    } else {
        round_half(neg, f | 1 << 52, e - 1075, mode)
    }
}

/// Exact ±(a·b + c) of halves (all finite) rounded to half, or None when an operand is not finite.
fn fma_ref(a: u16, b: u16, c: u16) -> Option<u16> {
    if [a, b, c].iter().any(|h| h & 0x7fff >= 0x7c00) {
        return None;
    }
    let (na, ma, ea) = decode(a);
    let (nb, mb, eb) = decode(b);
    let (nc, mc, ec) = decode(c);
    // Everything as a multiple of 2^-48.
    let p = (ma * mb) << (ea + eb + 48) as u32;
    let p = if na != nb { -(p as i128) } else { p as i128 };
    let z = (mc << (ec + 48) as u32) as i128;
    let z = if nc { -z } else { z };
    let s = p + z;
    if s == 0 {
        // Exact zero: +0 unless both addends are -0 (or -x·y + -0 style zero products).
        let pz_neg = na != nb;
        let neg = if ma * mb == 0 && mc == 0 { pz_neg && nc } else { false };
        return Some(if neg { 0x8000 } else { 0 });
    }
    Some(round_half(s < 0, s.unsigned_abs(), -48, Mode::Rte))
}

fn canon(h: u16) -> u16 {
    if is_nan(h) {
        QNAN
    } else {
        h
    }
}

/// Edge operands: zeros, subnormals, normal edges, around 1, large, infinities, NaN.
fn edges() -> Vec<u16> {
    let v = [
        0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x3bff, 0x4000, 0x3555, 0x7bff, 0x7c00, 0x7e00, 0x5800, 0x1400,
    ];
    let mut out: Vec<u16> = v.to_vec();
    out.extend(v.iter().map(|x| x | 0x8000));
    out
}

const ARITH: &str = r#"
__kernel void arith(__global const ushort *e, uint ne, __global ushort *o) {
    uint i = get_global_id(0), n = get_global_size(0);
    half x = as_half((ushort)i);
    half z = as_half((ushort)(i * 40503u >> 3));
    for (uint k = 0; k < ne; k++) {
        half y = as_half(e[k]);
        __global ushort *r = o + 6 * (k * n + i);
        r[0] = as_ushort(x + y);
        r[1] = as_ushort(x - y);
        r[2] = as_ushort(x * y);
        r[3] = as_ushort(x / y);
        r[4] = as_ushort(fma(x, y, z));
        r[5] = as_ushort(fma(y, z, x));
    }
    o[6 * ne * n + i] = as_ushort(sqrt(x));
    o[6 * ne * n + n + i] = as_ushort(-x);
}
"#;

fn binop_ref(k: usize, x: u16, y: u16) -> u16 {
    let (fx, fy) = (h2f64(x), h2f64(y));
    canon(match k {
        0 => f64_to_half(fx + fy, Mode::Rte),
        1 => f64_to_half(fx - fy, Mode::Rte),
        2 => f64_to_half(fx * fy, Mode::Rte),
        _ => f64_to_half(fx / fy, Mode::Rte),
    })
}

fn fma_full(a: u16, b: u16, c: u16) -> u16 {
    match fma_ref(a, b, c) {
        Some(r) => r,
        None => f64_to_half(h2f64(a).mul_add(h2f64(b), h2f64(c)), Mode::Rte),
    }
}

#[test]
fn arithmetic_on_every_half_is_bit_exact() {
    let e = edges();
    let n = 65536usize;
    let src = format!("{PRAGMA}{ARITH}");
    let out = run_source(
        &src,
        "",
        "arith",
        &[n],
        Some(&[64]),
        None,
        &[buf(&e), val(e.len() as u32), zeros((6 * e.len() + 2) * n * 2)],
    );
    let o: Vec<u16> = read(&out[2]);
    let names = ["add", "sub", "mul", "div", "fma(x,y,z)", "fma(y,z,x)"];
    let mut bad = 0;
    let mut report = |what: String| {
        bad += 1;
        if bad < 12 {
            eprintln!("{what}");
        }
    };
    for (k, &y) in e.iter().enumerate() {
        for i in 0..n {
            let x = i as u16;
            let z = ((i as u32).wrapping_mul(40503) >> 3) as u16;
            let r = &o[6 * (k * n + i)..6 * (k * n + i) + 6];
            for op in 0..6 {
                let want = match op {
                    0..=3 => binop_ref(op, x, y),
                    4 => canon(fma_full(x, y, z)),
                    _ => canon(fma_full(y, z, x)),
                };
                if r[op] != want {
                    report(format!("{}({x:#06x}, {y:#06x}, z={z:#06x}) = {:#06x}, want {want:#06x}", names[op], r[op]));
                }
            }
        }
    }
    for i in 0..n {
        let x = i as u16;
        let s = o[6 * e.len() * n + i];
        let want = canon(f64_to_half(h2f64(x).sqrt(), Mode::Rte));
        if s != want {
            report(format!("sqrt({x:#06x}) = {s:#06x}, want {want:#06x}"));
        }
        let neg = o[6 * e.len() * n + n + i];
        if neg != x ^ 0x8000 {
            report(format!("-{x:#06x} = {neg:#06x}"));
        }
    }
    assert_eq!(bad, 0, "{bad} half results differ from the correctly rounded reference");
}

/// Random triples (biased to close exponents, subnormals and few mantissa bits).
fn rand_half(r: &mut Rng) -> u16 {
    let b = r.next_u32() as u16;
    match r.next_u32() % 6 {
        0 => (b & 0x83ff) | ((15 + (r.next_u32() % 5) as u16 - 2) << 10),
        1 => b & 0x83ff,
        2 => b & 0xfff0,
        _ => b,
    }
}

const TRIPLES: &str = r#"
__kernel void tri(__global const ushort *a, __global const ushort *b, __global const ushort *c,
                  __global ushort *o) {
    uint i = get_global_id(0), n = get_global_size(0);
    half x = as_half(a[i]), y = as_half(b[i]), z = as_half(c[i]);
    o[i] = as_ushort(x + y);
    o[n + i] = as_ushort(x - y);
    o[2 * n + i] = as_ushort(x * y);
    o[3 * n + i] = as_ushort(x / y);
    o[4 * n + i] = as_ushort(fma(x, y, z));
    o[5 * n + i] = as_ushort(mad(x, y, z));
}
"#;

#[test]
fn random_triples_are_bit_exact() {
    let mut r = Rng(0x05ee_df16);
    let n = 16384;
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        let x = rand_half(&mut r);
        // A third of the pairs share the exponent (cancellation).
        let y = if k % 3 == 0 { (x & 0xfc00) | (rand_half(&mut r) & 0x3ff) } else { rand_half(&mut r) };
        // fma addends near -x·y: cancellation in the sum.
        let z = if k % 4 == 0 {
            f64_to_half(-h2f64(x) * h2f64(y), Mode::Rtz) ^ (r.next_u32() as u16 & 3)
        } else {
            rand_half(&mut r)
        };
        a.push(x);
        b.push(y);
        c.push(z);
    }
    let src = format!("{PRAGMA}{TRIPLES}");
    // OpenCL C 1.2 (the default) and 3.0 builds.
    for options in ["", "-cl-std=CL3.0"] {
        let out =
            run_source(&src, options, "tri", &[n], Some(&[64]), None, &[buf(&a), buf(&b), buf(&c), zeros(6 * n * 2)]);
        check_triples(&a, &b, &c, &read(&out[3]));
    }
}

fn check_triples(a: &[u16], b: &[u16], c: &[u16], o: &[u16]) {
    let n = a.len();
    let mut bad = 0;
    for i in 0..n {
        let want = [
            binop_ref(0, a[i], b[i]),
            binop_ref(1, a[i], b[i]),
            binop_ref(2, a[i], b[i]),
            binop_ref(3, a[i], b[i]),
            canon(fma_full(a[i], b[i], c[i])),
            canon(fma_full(a[i], b[i], c[i])),
        ];
        for (k, w) in want.iter().enumerate() {
            if o[k * n + i] != *w {
                bad += 1;
                if bad < 12 {
                    eprintln!(
                        "op {k} ({:#06x}, {:#06x}, {:#06x}) = {:#06x}, want {w:#06x}",
                        a[i],
                        b[i],
                        c[i],
                        o[k * n + i]
                    );
                }
            }
        }
    }
    assert_eq!(bad, 0, "{bad} results differ");
}

// ---- comparisons, classification and bit built-ins -------------------------------------------

const CMP: &str = r#"
__kernel void cmp(__global const ushort *e, uint ne, __global int *o, __global ushort *m) {
    uint i = get_global_id(0), n = get_global_size(0);
    half x = as_half((ushort)i);
    for (uint k = 0; k < ne; k++) {
        half y = as_half(e[k]);
        int r = (x == y) | (x != y) << 1 | (x < y) << 2 | (x <= y) << 3 | (x > y) << 4 | (x >= y) << 5
            | isnan(x) << 6 | isinf(x) << 7 | isfinite(x) << 8 | isnormal(x) << 9 | signbit(x) << 10
            | isunordered(x, y) << 11 | islessgreater(x, y) << 12 | isordered(x, y) << 13
            | (!(x < y)) << 14 | isgreaterequal(x, y) << 15 | isnotequal(x, y) << 16;
        o[k * n + i] = r;
        __global ushort *q = m + 4 * (k * n + i);
        q[0] = as_ushort(fmin(x, y));
        q[1] = as_ushort(fmax(x, y));
        q[2] = as_ushort(copysign(x, y));
        q[3] = as_ushort(nextafter(x, y));
    }
    m[4 * ne * n + i] = as_ushort(fabs(x));
}
"#;

fn nextafter_ref(x: u16, y: u16) -> u16 {
    let (fx, fy) = (h2f64(x), h2f64(y));
    if fx.is_nan() || fy.is_nan() {
        return QNAN;
    }
    if fx == fy {
        return y;
    }
    if fx == 0.0 {
        return (y & 0x8000) | 1;
    }
    if (fx < fy) == (fx > 0.0) {
        x + 1
    } else {
        x - 1
    }
}

#[test]
fn comparisons_classification_and_bit_built_ins() {
    let e = edges();
    let n = 65536usize;
    let src = format!("{PRAGMA}{CMP}");
    let out = run_source(
        &src,
        "",
        "cmp",
        &[n],
        Some(&[64]),
        None,
        &[buf(&e), val(e.len() as u32), zeros(e.len() * n * 4), zeros((4 * e.len() + 1) * n * 2)],
    );
    let o: Vec<i32> = read(&out[2]);
    let m: Vec<u16> = read(&out[3]);
    let mut bad = 0;
    let mut report = |what: String| {
        bad += 1;
        if bad < 12 {
            eprintln!("{what}");
        }
    };
    use std::cmp::Ordering::{Greater, Less};
    for (k, &y) in e.iter().enumerate() {
        let fy = h2f64(y);
        for i in 0..n {
            let x = i as u16;
            let fx = h2f64(x);
            let ex = (x >> 10) & 0x1f;
            let bits = [
                fx == fy,
                fx != fy,
                fx < fy,
                fx <= fy,
                fx > fy,
                fx >= fy,
                fx.is_nan(),
                fx.is_infinite(),
                fx.is_finite(),
                ex != 0 && ex != 31,
                x & 0x8000 != 0,
                fx.is_nan() || fy.is_nan(),
                matches!(fx.partial_cmp(&fy), Some(Less | Greater)),
                !fx.is_nan() && !fy.is_nan(),
                fx.partial_cmp(&fy) != Some(Less),
                fx >= fy,
                fx != fy,
            ];
            let want = bits.iter().enumerate().fold(0, |acc, (b, v)| acc | (*v as i32) << b);
            let got = o[k * n + i];
            if got != want {
                report(format!("compare/classify {x:#06x} vs {y:#06x}: bits {got:#x}, want {want:#x}"));
            }
            let q = &m[4 * (k * n + i)..4 * (k * n + i) + 4];
            // fmin/fmax: the other operand for one NaN, either zero for ±0.
            let minmax = |r: u16, want: f64| -> bool {
                if fx.is_nan() && fy.is_nan() {
                    is_nan(r)
                } else if want == 0.0 {
                    h2f64(r) == 0.0
                } else {
                    h2f64(r) == want
                }
            };
            let (mn, mx) = if fx.is_nan() {
                (fy, fy)
            } else if fy.is_nan() {
                (fx, fx)
            } else {
                (fx.min(fy), fx.max(fy))
            };
            if !minmax(q[0], mn) || !minmax(q[1], mx) {
                report(format!("fmin/fmax({x:#06x}, {y:#06x}) = {:#06x}/{:#06x}", q[0], q[1]));
            }
            if q[2] != (x & 0x7fff) | (y & 0x8000) {
                report(format!("copysign({x:#06x}, {y:#06x}) = {:#06x}", q[2]));
            }
            if q[3] != nextafter_ref(x, y) {
                report(format!("nextafter({x:#06x}, {y:#06x}) = {:#06x}, want {:#06x}", q[3], nextafter_ref(x, y)));
            }
        }
    }
    for i in 0..n {
        if m[4 * e.len() * n + i] != i as u16 & 0x7fff {
            report(format!("fabs({i:#06x}) = {:#06x}", m[4 * e.len() * n + i]));
        }
    }
    assert_eq!(bad, 0, "{bad} comparison/classification results differ");
}

// ---- conversions ---------------------------------------------------------------------------------

const FROM_HALF: &str = r#"
__kernel void from_half(__global int *oi, __global long *ol, __global uint *of, __global ulong *od) {
    uint i = get_global_id(0), n = get_global_size(0);
    half x = as_half((ushort)i);
    of[i] = as_uint((float)x);
    od[i] = as_ulong((double)x);
    oi[0 * n + i] = convert_int(x);
    oi[1 * n + i] = convert_int_rte(x);
    oi[2 * n + i] = convert_int_rtp(x);
    oi[3 * n + i] = convert_int_rtn(x);
    oi[4 * n + i] = convert_int_sat(x);
    oi[5 * n + i] = convert_char_sat(x);
    oi[6 * n + i] = convert_uchar_sat_rte(x);
    oi[7 * n + i] = convert_short_sat_rtp(x);
    oi[8 * n + i] = convert_ushort_sat_rtn(x);
    oi[9 * n + i] = (int)convert_uint_sat(x);
    oi[10 * n + i] = convert_short(x);
    oi[11 * n + i] = (int)convert_uint_rte(x);
    oi[12 * n + i] = convert_char_rtn(x);
    oi[13 * n + i] = convert_uchar(x);
    ol[0 * n + i] = convert_long_sat(x);
    ol[1 * n + i] = (long)convert_ulong_sat_rtp(x);
    ol[2 * n + i] = convert_long_rtn(x);
    ol[3 * n + i] = (long)convert_ulong(x);
}
"#;

/// `v` rounded to an integer with `mode`, then saturated to [lo, hi] (NaN → 0) or, without
/// `sat`, None when out of range (undefined in OpenCL).
fn to_int(v: f64, mode: Mode, lo: i128, hi: i128, sat: bool) -> Option<i128> {
    if v.is_nan() {
        return sat.then_some(0);
    }
    let r = match mode {
        Mode::Rte => v.round_ties_even(),
        Mode::Rtz => v.trunc(),
        Mode::Rtp => v.ceil(),
        Mode::Rtn => v.floor(),
    };
    if r < lo as f64 {
        return sat.then_some(lo);
    }
    if r > hi as f64 {
        return sat.then_some(hi);
    }
    Some(r as i128)
}

/// A conversion case: (rounding mode, destination range, saturating, device value → integer).
type Case<T> = (Mode, (i128, i128), bool, fn(T) -> i128);

#[test]
fn conversions_from_every_half() {
    let n = 65536usize;
    let src = format!("{PRAGMA}{FROM_HALF}");
    let out = run_source(
        &src,
        "",
        "from_half",
        &[n],
        Some(&[64]),
        None,
        &[zeros(14 * n * 4), zeros(4 * n * 8), zeros(n * 4), zeros(n * 8)],
    );
    let oi: Vec<i32> = read(&out[0]);
    let ol: Vec<i64> = read(&out[1]);
    let of: Vec<u32> = read(&out[2]);
    let od: Vec<u64> = read(&out[3]);
    let (i8r, u8r, i16r, u16r) = ((-128, 127), (0, 255), (-32768, 32767), (0, 65535));
    let (i32r, u32r) = ((i32::MIN as i128, i32::MAX as i128), (0, u32::MAX as i128));
    let (i64r, u64r) = ((i64::MIN as i128, i64::MAX as i128), (0, u64::MAX as i128));
    use Mode::*;
    // (mode, range, sat, how the device value is read back)
    let int_cases: [Case<i32>; 14] = [
        (Rtz, i32r, false, |v| v as i128),
        (Rte, i32r, false, |v| v as i128),
        (Rtp, i32r, false, |v| v as i128),
        (Rtn, i32r, false, |v| v as i128),
        (Rtz, i32r, true, |v| v as i128),
        (Rtz, i8r, true, |v| v as i128),
        (Rte, u8r, true, |v| v as i128),
        (Rtp, i16r, true, |v| v as i128),
        (Rtn, u16r, true, |v| v as i128),
        (Rtz, u32r, true, |v| v as u32 as i128),
        (Rtz, i16r, false, |v| v as i128),
        (Rte, u32r, false, |v| v as u32 as i128),
        (Rtn, i8r, false, |v| v as i128),
        (Rtz, u8r, false, |v| v as i128),
    ];
    let long_cases: [Case<i64>; 4] = [
        (Rtz, i64r, true, |v| v as i128),
        (Rtp, u64r, true, |v| v as u64 as i128),
        (Rtn, i64r, false, |v| v as i128),
        (Rtz, u64r, false, |v| v as u64 as i128),
    ];
    let mut bad = 0;
    let mut report = |what: String| {
        bad += 1;
        if bad < 12 {
            eprintln!("{what}");
        }
    };
    for i in 0..n {
        let x = i as u16;
        let v = h2f64(x);
        // half → float and → double are exact (NaN payloads kept: compare NaN-ness).
        let f = f32::from_bits(of[i]);
        if !(f.to_bits() == (v as f32).to_bits() || (f.is_nan() && v.is_nan())) {
            report(format!("(float){x:#06x} = {:#010x}", of[i]));
        }
        let d = f64::from_bits(od[i]);
        if !(d.to_bits() == v.to_bits() || (d.is_nan() && v.is_nan())) {
            report(format!("(double){x:#06x} = {:#018x}", od[i]));
        }
        for (k, (mode, (lo, hi), sat, get)) in int_cases.iter().enumerate() {
            if let Some(w) = to_int(v, *mode, *lo, *hi, *sat) {
                let got = get(oi[k * n + i]);
                // Narrow results are stored in an int: compare modulo the range's width.
                let got = if *lo < 0 { got } else { got.rem_euclid(*hi + 1) };
                if got != w {
                    report(format!("int case {k} ({mode:?}, sat {sat}) of {x:#06x} ({v}): {got}, want {w}"));
                }
            }
        }
        for (k, (mode, (lo, hi), sat, get)) in long_cases.iter().enumerate() {
            if let Some(w) = to_int(v, *mode, *lo, *hi, *sat) {
                let got = get(ol[k * n + i]);
                if got != w {
                    report(format!("long case {k} ({mode:?}, sat {sat}) of {x:#06x} ({v}): {got}, want {w}"));
                }
            }
        }
    }
    assert_eq!(bad, 0, "{bad} conversions from half differ");
}

const TO_HALF: &str = r#"
__kernel void to_half(__global const int *a, __global const long *l, __global const uint *fb,
                      __global const ulong *db, __global ushort *o) {
    uint i = get_global_id(0), n = get_global_size(0);
    int x = a[i];
    long y = l[i];
    float f = as_float(fb[i]);
    double d = as_double(db[i]);
    o[0 * n + i] = as_ushort(convert_half(x));
    o[1 * n + i] = as_ushort(convert_half_rtz(x));
    o[2 * n + i] = as_ushort(convert_half_rtp(x));
    o[3 * n + i] = as_ushort(convert_half_rtn(x));
    o[4 * n + i] = as_ushort(convert_half((uint)x));
    o[5 * n + i] = as_ushort(convert_half_rtp((uint)x));
    o[6 * n + i] = as_ushort(convert_half_rte(y));
    o[7 * n + i] = as_ushort(convert_half_rtz(y));
    o[8 * n + i] = as_ushort(convert_half_rtn((ulong)y));
    o[9 * n + i] = as_ushort(convert_half_rtp((short)x));
    o[10 * n + i] = as_ushort(convert_half_rtz((uchar)x));
    o[11 * n + i] = as_ushort(convert_half_rtn((char)x));
    o[12 * n + i] = as_ushort(convert_half(f));
    o[13 * n + i] = as_ushort(convert_half_rtz(f));
    o[14 * n + i] = as_ushort(convert_half_rtp(f));
    o[15 * n + i] = as_ushort(convert_half_rtn(f));
    o[16 * n + i] = as_ushort((half)d);
    o[17 * n + i] = as_ushort(convert_half_rtz(d));
    o[18 * n + i] = as_ushort(convert_half_rtp(d));
    o[19 * n + i] = as_ushort(convert_half_rtn(d));
    o[20 * n + i] = as_ushort(convert_half_rte(d));
}
"#;

fn int_to_half(v: i128, mode: Mode) -> u16 {
    round_half(v < 0, v.unsigned_abs(), 0, mode)
}

/// Halfway points between neighbouring halves (exact in float and double), for tie cases.
fn half_midpoint(r: &mut Rng) -> f64 {
    let h = (r.next_u32() % 0x7bff) as u16;
    let m = (h2f64(h) + h2f64(h + 1)) / 2.0;
    if r.next_u32() % 2 == 0 {
        -m
    } else {
        m
    }
}

#[test]
fn conversions_to_half_in_every_rounding_mode() {
    let mut r = Rng(0xc0ffee);
    let mut ints: Vec<i32> = vec![
        0,
        1,
        -1,
        2047,
        2048,
        2049,
        2050,
        2051,
        4097,
        4098,
        4099,
        65504,
        65505,
        65519,
        65520,
        65521,
        65535,
        65536,
        131071,
        131072,
        131073,
        1 << 20,
        i32::MAX,
        i32::MIN,
        -65520,
        -65519,
        -2049,
        -4099,
        255,
        127,
        -128,
        32767,
    ];
    let mut longs: Vec<i64> =
        vec![0, 1, -1, 2049, -2049, 65520, -65520, 65519, i64::MAX, i64::MIN, 1 << 40, -(1 << 40), 4099];
    let mut floats: Vec<u32> = vec![
        0,
        0x8000_0000,
        0x3380_0000,
        0x3300_0000,
        0x3300_0001,
        0x33c0_0000,
        0x477f_e000,
        0x477f_f000,
        0x477f_efff,
        0x477f_f001,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x3880_0000,
        0x387f_ffff,
        0x0000_0001,
        0x8000_0001,
        0x7f7f_ffff,
    ];
    let mut doubles: Vec<u64> = floats.iter().map(|f| (f32::from_bits(*f) as f64).to_bits()).collect();
    doubles.extend([0x0000_0000_0000_0001, 0x8000_0000_0000_0001, 0x7fef_ffff_ffff_ffff, 0x3e70_0000_0000_0001]);
    while ints.len() < 4096 {
        let v = r.next_u32() as i32;
        ints.push(match r.next_u32() % 3 {
            0 => v >> (r.next_u32() % 31),
            1 => v % 70000,
            _ => v,
        });
    }
    while longs.len() < 4096 {
        let v = ((r.next_u32() as u64) << 32 | r.next_u32() as u64) as i64;
        longs.push(v >> (r.next_u32() % 63));
    }
    while floats.len() < 4096 {
        let m = half_midpoint(&mut r);
        floats.push(match r.next_u32() % 4 {
            0 => (m as f32).to_bits(),
            1 => (m as f32).to_bits() + 1,
            2 => (m as f32).to_bits().wrapping_sub(1),
            _ => (r.next_u32() & 0x87ff_ffff) | ((r.next_u32() % 40 + 97) << 23),
        });
    }
    while doubles.len() < 4096 {
        let m = half_midpoint(&mut r);
        doubles.push(match r.next_u32() % 5 {
            0 => m.to_bits(),
            1 => m.to_bits() + 1,
            2 => m.to_bits() - 1,
            // Just above the tie by far less than a float ulp: only a sticky bit can tell.
            3 => (m + m * 2f64.powi(-40)).to_bits(),
            _ => {
                ((r.next_u32() as u64) << 32 | r.next_u32() as u64) & 0x800f_ffff_ffff_ffff
                    | ((r.next_u32() % 40 + 999) as u64) << 52
            }
        });
    }
    let n = 4096;
    let src = format!("{PRAGMA}{TO_HALF}");
    let out = run_source(
        &src,
        "",
        "to_half",
        &[n],
        Some(&[64]),
        None,
        &[buf(&ints), buf(&longs), buf(&floats), buf(&doubles), zeros(21 * n * 2)],
    );
    let o: Vec<u16> = read(&out[4]);
    let mut bad = 0;
    let mut check = |k: usize, i: usize, want: u16, what: String| {
        let got = o[k * n + i];
        if got != want && !(is_nan(got) && is_nan(want)) {
            bad += 1;
            if bad < 12 {
                eprintln!("case {k}: {what} = {got:#06x}, want {want:#06x}");
            }
        }
    };
    use Mode::*;
    for i in 0..n {
        let (x, y) = (ints[i] as i128, longs[i] as i128);
        let (ux, uy) = (ints[i] as u32 as i128, longs[i] as u64 as i128);
        let (f, d) = (f32::from_bits(floats[i]) as f64, f64::from_bits(doubles[i]));
        for (k, m) in MODES.iter().enumerate() {
            check(k, i, int_to_half(x, *m), format!("int {x} {m:?}"));
        }
        check(4, i, int_to_half(ux, Rte), format!("uint {ux}"));
        check(5, i, int_to_half(ux, Rtp), format!("uint {ux} rtp"));
        check(6, i, int_to_half(y, Rte), format!("long {y} rte"));
        check(7, i, int_to_half(y, Rtz), format!("long {y} rtz"));
        check(8, i, int_to_half(uy, Rtn), format!("ulong {uy} rtn"));
        check(9, i, int_to_half(ints[i] as i16 as i128, Rtp), format!("short {} rtp", ints[i] as i16));
        check(10, i, int_to_half(ints[i] as u8 as i128, Rtz), format!("uchar {} rtz", ints[i] as u8));
        check(11, i, int_to_half(ints[i] as i8 as i128, Rtn), format!("char {} rtn", ints[i] as i8));
        for (k, m) in MODES.iter().enumerate() {
            check(12 + k, i, f64_to_half(f, *m), format!("float {:#010x} {m:?}", floats[i]));
        }
        check(16, i, f64_to_half(d, Rte), format!("double {:#018x}", doubles[i]));
        for (k, m) in [Rtz, Rtp, Rtn, Rte].iter().enumerate() {
            check(17 + k, i, f64_to_half(d, *m), format!("double {:#018x} {m:?}", doubles[i]));
        }
    }
    assert_eq!(bad, 0, "{bad} conversions to half differ");
}

// ---- vectors and by-value halves -----------------------------------------------------------------

const VEC: &str = r#"
#pragma OPENCL FP_CONTRACT OFF
__kernel void vec(__global const half *a, __global const half *b, __global half *o, __global short *c,
                  __global float *f, half s, half4 v) {
    uint i = get_global_id(0);
    half8 x = vload8(i, a), y = vload8(i, b);
    vstore8(x + y, 8 * i, o);
    vstore8(x * y, 8 * i + 1, o);
    vstore8(x / y, 8 * i + 2, o);
    vstore8(fma(x, y, (half8)s), 8 * i + 3, o);
    vstore8(fmax(x, y) - s, 8 * i + 4, o);
    half4 lo = x.lo * v;
    half4 hi = y.hi + v.wzyx;
    vstore8((half8)(lo, hi), 8 * i + 5, o);
    vstore8(convert_half8(convert_int8_rtn(x)), 8 * i + 6, o);
    half8 d = 0;
    d.s0 = dot(x.lo, y.lo);
    d.s1 = -x.s7;
    d.s2 = sqrt(y.s3);
    vstore8(d, 8 * i + 7, o);
    vstore8(x < y, i, c);
    vstore4(convert_float4(y.even), i, f);
}
"#;

#[test]
fn half_vectors_and_by_value_halves() {
    let mut r = Rng(0xabcdef);
    let groups = 512;
    let n = groups * 8;
    let a: Vec<u16> = (0..n).map(|_| rand_half(&mut r)).collect();
    let b: Vec<u16> = (0..n).map(|_| rand_half(&mut r)).collect();
    let s: u16 = 0x3e00; // 1.5
    let v: [u16; 4] = [0x4000, 0xbc00, 0x3555, 0x0001]; // 2, -1, 1/3, tiny
    let src = format!("{PRAGMA}{VEC}");
    let out = run_source(
        &src,
        "",
        "vec",
        &[groups],
        Some(&[64]),
        None,
        &[buf(&a), buf(&b), zeros(8 * n * 2), zeros(n * 2), zeros(groups * 4 * 4), val(s), val_vec(&v)],
    );
    let o: Vec<u16> = read(&out[2]);
    let c: Vec<i16> = read(&out[3]);
    let f: Vec<f32> = read(&out[4]);
    let h = |x: f64| canon(f64_to_half(x, Mode::Rte));
    let mut bad = 0;
    for g in 0..groups {
        let x = &a[8 * g..8 * g + 8];
        let y = &b[8 * g..8 * g + 8];
        let (fx, fy): (Vec<f64>, Vec<f64>) =
            (x.iter().map(|q| h2f64(*q)).collect(), y.iter().map(|q| h2f64(*q)).collect());
        let fs = h2f64(s);
        let mut want = [0u16; 64];
        #[allow(clippy::needless_range_loop)] // lanes of several arrays
        for k in 0..8 {
            want[k] = binop_ref(0, x[k], y[k]);
            want[8 + k] = binop_ref(2, x[k], y[k]);
            want[16 + k] = binop_ref(3, x[k], y[k]);
            want[24 + k] = canon(fma_full(x[k], y[k], s));
            let mx = if fx[k].is_nan() {
                y[k]
            } else if fy[k].is_nan() || fx[k] >= fy[k] {
                x[k]
            } else {
                y[k]
            };
            want[32 + k] = h(h2f64(mx) - fs);
            want[40 + k] = if k < 4 { binop_ref(2, x[k], v[k]) } else { binop_ref(0, y[k], v[7 - k]) };
            want[48 + k] = match to_int(fx[k], Mode::Rtn, i32::MIN as i128, i32::MAX as i128, false) {
                Some(i) => int_to_half(i, Mode::Rte),
                None => o[8 * (8 * g + 6) + k], // undefined: not compared
            };
        }
        // dot in float (exact products, one float sum per step), rounded once.
        let mut acc = (fx[0] * fy[0]) as f32;
        for k in 1..4 {
            acc = (fx[k] as f32).mul_add(fy[k] as f32, acc);
        }
        want[56] = canon(f64_to_half(acc as f64, Mode::Rte));
        want[57] = x[7] ^ 0x8000;
        want[58] = canon(f64_to_half(fy[3].sqrt(), Mode::Rte));
        for k in 0..64 {
            let got = o[64 * g + k];
            if got != want[k] {
                bad += 1;
                if bad < 12 {
                    eprintln!("group {g} result {k}: {got:#06x}, want {:#06x} (x {:04x?} y {:04x?})", want[k], x, y);
                }
            }
        }
        for k in 0..8 {
            let lt = if fx[k] < fy[k] { -1 } else { 0 };
            assert_eq!(c[8 * g + k], lt, "x < y lane {k} of group {g}");
        }
        for k in 0..4 {
            let w = h2f64(y[2 * k]) as f32;
            assert!(f[4 * g + k].to_bits() == w.to_bits() || (w.is_nan() && f[4 * g + k].is_nan()), "convert_float4");
        }
    }
    assert_eq!(bad, 0, "{bad} vector results differ");
}

// ---- math built-ins --------------------------------------------------------------------------------

const MATH: &str = r#"
__kernel void math(__global const ushort *py, __global ushort *o, __global int *oi) {
    uint i = get_global_id(0), n = get_global_size(0);
    half x = as_half((ushort)i);
    half y = as_half(py[i]);
    o[0 * n + i] = as_ushort(exp(x));
    o[1 * n + i] = as_ushort(sin(x));
    o[2 * n + i] = as_ushort(log(x));
    o[3 * n + i] = as_ushort(pow(x, y));
    half ip;
    o[4 * n + i] = as_ushort(fract(x, &ip));
    o[5 * n + i] = as_ushort(ip);
    int e;
    o[6 * n + i] = as_ushort(frexp(x, &e));
    oi[0 * n + i] = e;
    o[7 * n + i] = as_ushort(ldexp(x, 3));
    o[8 * n + i] = as_ushort(floor(x));
    o[9 * n + i] = as_ushort(rint(x));
    oi[1 * n + i] = ilogb(x);
    o[10 * n + i] = as_ushort(cos(x));
    o[11 * n + i] = as_ushort(exp2(x));
}
"#;

/// Distance in half ulps of two halves of the same sign class (finite or infinite).
fn half_ulps(a: u16, b: u16) -> u32 {
    let key = |h: u16| if h & 0x8000 != 0 { -((h & 0x7fff) as i32) } else { h as i32 };
    (key(a) - key(b)).unsigned_abs()
}

#[test]
fn math_built_ins_within_half_bounds() {
    let n = 65536usize;
    let mut r = Rng(0x9e37_79b9);
    // pow exponents: small integers, halves, random halves of moderate size.
    let py: Vec<u16> = (0..n)
        .map(|k| match k % 4 {
            0 => [0x0000, 0x3c00, 0x4000, 0xbc00, 0x3800, 0x4200, 0xc000, 0x7c00, 0xfc00, 0x7e00]
                [r.next_u32() as usize % 10],
            1 => (r.next_u32() as u16 & 0x83ff) | ((r.next_u32() % 6 + 12) << 10) as u16,
            _ => rand_half(&mut r),
        })
        .collect();
    let src = format!("{PRAGMA}{MATH}");
    let out = run_source(&src, "", "math", &[n], Some(&[64]), None, &[buf(&py), zeros(12 * n * 2), zeros(2 * n * 4)]);
    let o: Vec<u16> = read(&out[1]);
    let oi: Vec<i32> = read(&out[2]);
    // OpenCL 3.0 half-precision bounds (full profile): exp/exp2/log/sin/cos 2 ulp... pow 4 ulp.
    // (name, index, bound, reference)
    type Ref = fn(f64, f64) -> f64;
    let approx: [(&str, usize, u32, Ref); 6] = [
        ("exp", 0, 2, |x, _| x.exp()),
        ("sin", 1, 2, |x, _| x.sin()),
        ("log", 2, 2, |x, _| x.ln()),
        ("pow", 3, 4, |x, y| x.powf(y)),
        ("cos", 10, 2, |x, _| x.cos()),
        ("exp2", 11, 2, |x, _| x.exp2()),
    ];
    let mut bad = 0;
    let mut worst = [0u32; 12];
    let mut report = |what: String| {
        bad += 1;
        if bad < 16 {
            eprintln!("{what}");
        }
    };
    for i in 0..n {
        let x = i as u16;
        let (fx, fy) = (h2f64(x), h2f64(py[i]));
        for (name, k, bound, f) in approx {
            let want = f64_to_half(f(fx, fy), Mode::Rte);
            let got = o[k * n + i];
            let ok = if is_nan(want) {
                is_nan(got)
            } else if is_nan(got) {
                false
            } else if got & 0x7fff == 0 && want & 0x7fff == 0 {
                true
            } else {
                let d = if (got ^ want) & 0x8000 != 0 { u32::MAX } else { half_ulps(got, want) };
                worst[k] = worst[k].max(d);
                d <= bound
            };
            if !ok {
                report(format!("{name}({x:#06x}, {:#06x}) = {got:#06x}, want {want:#06x}", py[i]));
            }
        }
        // Exact built-ins.
        let exact = |v: f64| canon(f64_to_half(v, Mode::Rte));
        let fl = fx.floor();
        // fract: ±0 and ±∞ give ±0 (OpenCL 7.5.1); never 1.0 (the largest half below it instead).
        let (fr, ipv) = if fx.is_infinite() || fx == 0.0 {
            (0.0f64.copysign(fx), fx)
        } else {
            ((fx - fl).min(0.999_511_718_75), fl)
        };
        let checks = [
            (4, if fx.is_nan() { QNAN } else { exact(fr) }, "fract"),
            (5, if fx.is_nan() { QNAN } else { exact(ipv) }, "fract iptr"),
            (7, exact(fx * 8.0), "ldexp"),
            (8, exact(fl), "floor"),
            (9, exact(fx.round_ties_even()), "rint"),
        ];
        for (k, want, name) in checks {
            let got = o[k * n + i];
            if got != want && !(is_nan(got) && is_nan(want)) {
                report(format!("{name}({x:#06x}) = {got:#06x}, want {want:#06x}"));
            }
        }
        if fx.is_finite() && fx != 0.0 {
            let e = fx.abs().log2().floor() as i32 + 1;
            let m = fx / 2f64.powi(e);
            if o[6 * n + i] != exact(m) || oi[i] != e {
                report(format!("frexp({x:#06x}) = {:#06x}, {}; want {:#06x}, {e}", o[6 * n + i], oi[i], exact(m)));
            }
            if oi[n + i] != e - 1 {
                report(format!("ilogb({x:#06x}) = {}, want {}", oi[n + i], e - 1));
            }
        }
    }
    eprintln!(
        "worst ulps: exp {} sin {} log {} pow {} cos {} exp2 {}",
        worst[0], worst[1], worst[2], worst[3], worst[10], worst[11]
    );
    assert_eq!(bad, 0, "{bad} math results outside the half bounds");
}

// ---- printf -------------------------------------------------------------------------------------

const CL_PRINTF_CALLBACK_ARM: cl_context_properties = 0x40B0;

macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: handles are live objects created in `printed`; pointers are NULL or point to
        // live memory at least as large as the size passed with them.
        unsafe { f($($a),*) }
    }};
}

unsafe extern "C" fn on_printf(buf: *const c_char, len: usize, _final: usize, user: *mut c_void) {
    // SAFETY: `user` is the `Mutex<Vec<u8>>` given at context creation (alive until the context
    // is released); `buf` holds `len` bytes for the duration of the call.
    let (sink, bytes) =
        unsafe { (&*(user as *const Mutex<Vec<u8>>), std::slice::from_raw_parts(buf as *const u8, len)) };
    sink.lock().unwrap().extend_from_slice(bytes);
}

unsafe extern "C" fn on_error(msg: *const c_char, _: *const c_void, _: usize, _: *mut c_void) {
    // SAFETY: `msg` is a C string valid for the call.
    eprintln!("driver error: {}", unsafe { std::ffi::CStr::from_ptr(msg) }.to_string_lossy());
}

/// Runs one work-item of `kernel` with a `__global ushort*` argument holding `data` and returns
/// what it printed (captured with the cl_arm_printf callback).
fn printed(src: &str, kernel: &str, data: &[u16]) -> String {
    let sink: Box<Mutex<Vec<u8>>> = Box::default();
    let cb = on_printf as unsafe extern "C" fn(*const c_char, usize, usize, *mut c_void);
    let props = [CL_PRINTF_CALLBACK_ARM, cb as usize as cl_context_properties, 0];
    let (d, mut err) = (device(), 0);
    let user = &*sink as *const Mutex<Vec<u8>> as *mut c_void;
    let ctx = call!(clCreateContext(props.as_ptr(), 1, &d, Some(on_error), user, &mut err));
    check(err, "clCreateContext with CL_PRINTF_CALLBACK_ARM");
    let text = CString::new(src).unwrap();
    let mut ptrs = [text.as_ptr()];
    let p = call!(clCreateProgramWithSource(ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clBuildProgram(p, 0, null(), null(), None, null_mut())), "clBuildProgram");
    let name = CString::new(kernel).unwrap();
    let k = call!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let mut data = data.to_vec();
    let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    let m = call!(clCreateBuffer(ctx, flags, 2 * data.len(), data.as_mut_ptr() as *mut c_void, &mut err));
    check(err, "clCreateBuffer");
    check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg");
    let q = queue(ctx, 0);
    let (global, local) = (1usize, 1usize);
    let mut e = null_mut();
    check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, &local, 0, null(), &mut e)), "enqueue");
    check(call!(clWaitForEvents(1, &e)), "clWaitForEvents");
    assert_eq!(event_status(e), CL_COMPLETE);
    call!(clReleaseEvent(e));
    call!(clReleaseCommandQueue(q));
    call!(clReleaseMemObject(m));
    call!(clReleaseKernel(k));
    call!(clReleaseProgram(p));
    call!(clReleaseContext(ctx));
    let out = std::mem::take(&mut *sink.lock().unwrap());
    String::from_utf8(out).expect("UTF-8 output")
}

const PRINT: &str = r#"
__kernel void print(__global const ushort *h) {
    for (int k = 0; k < 12; k++) {
        half x = as_half(h[k]);
        printf("%f|%.3f|%e\n", x, x * 2, x);
    }
    printf("%v4hf\n", vload4(0, (__global const half *)h));
    printf("%.2v2hf\n", (half2)(1.5h, -0.25h));
}
"#;

#[test]
fn printf_of_half_prints_its_value() {
    let h: Vec<u16> =
        vec![0x3c00, 0xc000, 0x3555, 0x7bff, 0x0001, 0x8000, 0x3e00, 0x7c00, 0xfc00, 0x4248, 0x2e66, 0x0400];
    let src = format!("{PRAGMA}{PRINT}");
    let text = printed(&src, "print", &h);
    // The expected text: C's %f/%.3f/%e of the exact value (through the host C library).
    let c = |spec: &str, v: f64| -> String {
        let mut buf = vec![0u8; 512];
        let fmt = CString::new(spec).unwrap();
        // SAFETY: `buf` has room for 512 bytes (snprintf truncates); `fmt` takes one double.
        let n = unsafe { libc::snprintf(buf.as_mut_ptr() as *mut c_char, buf.len(), fmt.as_ptr(), v) };
        String::from_utf8_lossy(&buf[..n as usize]).into_owned()
    };
    let mut want = String::new();
    for &x in &h {
        let v = h2f64(x);
        let twice = h2f64(f64_to_half(v * 2.0, Mode::Rte));
        want += &format!("{}|{}|{}\n", c("%f", v), c("%.3f", twice), c("%e", v));
    }
    let v4: Vec<String> = h[..4].iter().map(|x| c("%f", h2f64(*x))).collect();
    want += &format!("{}\n", v4.join(","));
    want += "1.50,-0.25\n";
    assert_eq!(text, want, "printf of halves");
}

// ---- halves in memory: constant tables, private arrays, structs, program-scope globals ------------

const MEMORY: &str = r#"
constant half table[4] = {1.0h, 2.5h, -0.5h, 65504.0h};
typedef struct { char c; half h; half2 v; float f; } S;
__kernel void mem(__global const S *in, __global S *out, __global ushort *o) {
    uint i = get_global_id(0);
    half priv[8];
    for (int k = 0; k < 8; k++)
        priv[k] = table[k & 3] * (half)(k + (int)i);
    half acc = 0;
    for (int k = 0; k < 8; k++)
        acc += priv[(k * 3 + i) & 7];
    o[i] = as_ushort(acc);
    S s = in[i];
    s.h = s.h * s.v.x + s.v.y;
    s.v = s.v.yx;
    s.f = (float)s.h;
    out[i] = s;
}
"#;

#[test]
fn halves_in_constant_tables_private_arrays_and_structs() {
    let n = 64usize;
    let table = [0x3c00u16, 0x4100, 0xb800, 0x7bff];
    let mut r = Rng(77);
    // struct S { char c; half h; half2 v; float f; }: offsets 0, 2, 4, 8; size 12.
    let mut input = Vec::new();
    let mut src_vals = Vec::new();
    for _ in 0..n {
        let (h, v0, v1) = (rand_half(&mut r) & 0xbfff, rand_half(&mut r) & 0xbfff, rand_half(&mut r) & 0xbfff);
        src_vals.push((h, v0, v1));
        input.extend(Packer::new().push(7i8).push(h).push_all(&[v0, v1], 4).push(0f32).finish(4));
    }
    let src = format!("#pragma OPENCL FP_CONTRACT OFF\n{PRAGMA}{MEMORY}");
    let out = run_source(&src, "", "mem", &[n], Some(&[32]), None, &[Arg::Buf(input), zeros(12 * n), zeros(2 * n)]);
    let o: Vec<u16> = read(&out[2]);
    for i in 0..n {
        let priv_: Vec<u16> =
            (0..8).map(|k| binop_ref(2, table[k & 3], f64_to_half((k + i) as f64, Mode::Rte))).collect();
        let mut acc = 0u16;
        for k in 0..8 {
            acc = binop_ref(0, acc, priv_[(k * 3 + i) & 7]);
        }
        assert_eq!(o[i], acc, "sum of the private array of work-item {i}");
        let s = &out[1][12 * i..12 * i + 12];
        let (h, v0, v1) = src_vals[i];
        let want_h = binop_ref(0, binop_ref(2, h, v0), v1);
        assert_eq!(s[0] as i8, 7, "struct char of {i}");
        assert_eq!(u16::from_le_bytes([s[2], s[3]]), want_h, "struct half of {i}");
        assert_eq!(u16::from_le_bytes([s[4], s[5]]), v1, "struct half2 of {i}");
        assert_eq!(u16::from_le_bytes([s[6], s[7]]), v0, "struct half2 of {i}");
        let f = f32::from_le_bytes([s[8], s[9], s[10], s[11]]);
        let wf = h2f64(want_h) as f32;
        assert!(f.to_bits() == wf.to_bits() || (f.is_nan() && wf.is_nan()), "struct float of {i}: {f} vs {wf}");
    }
}

/// Exact `fmod`, `remainder` and `remquo` of a half `x` (finite, `y` finite and not zero) in
/// units of 2^-24: (fmod, remainder, quotient bits).
fn rem_ref(x: u16, y: u16) -> (u16, u16, i32) {
    let ((nx, mx, ex), (ny, my, ey)) = (decode(x), decode(y));
    let (a, b) = (mx << (ex + 24), my << (ey + 24));
    let fm = round_half(nx, a % b, -24, Mode::Rte);
    let mut q = a / b;
    let mut r = (a % b) as i128;
    if 2 * r > b as i128 || (2 * r == b as i128 && q & 1 == 1) {
        r -= b as i128;
        q += 1;
    }
    let rem = round_half(nx != (r < 0), r.unsigned_abs(), -24, Mode::Rte);
    let bits = (q & 0x7f) as i32;
    (fm, rem, if nx != ny { -bits } else { bits })
}

/// Every half `x` against divisors across the whole range (the exponent difference reaches
/// 39, the most the reduction of halves widened to float may take; tiny odd divisors make every
/// reduction step count), bit-exact against integer arithmetic; NaN, infinite and zero operands
/// follow C99 Annex F.
#[test]
fn remainders_of_every_half_are_exact() {
    let ys: Vec<u16> = vec![
        0x0001, 0x0003, 0x0007, 0x8017, 0x0035, 0x00fb, 0x03ff, 0x0400, 0x0401, 0x1400, 0x3555, 0x3c00, 0xbc00, 0x3c01,
        0x4248, 0x5800, 0x7bff, 0xfbff, 0x0000, 0x7c00, 0xfc00, 0x7e00,
    ];
    let src = format!(
        "{PRAGMA}__kernel void k(__global const ushort *xs, __global const ushort *ys, __global ushort *o,
                                 __global int *q, uint ny) {{
            uint i = get_global_id(0);
            half x = as_half(xs[i / ny]), y = as_half(ys[i % ny]);
            int k;
            o[3 * i] = as_ushort(fmod(x, y));
            o[3 * i + 1] = as_ushort(remainder(x, y));
            o[3 * i + 2] = as_ushort(remquo(x, y, &k));
            q[i] = k;
        }}"
    );
    let xs: Vec<u16> = (0..=u16::MAX).collect();
    let n = xs.len() * ys.len();
    let out = run_source(
        &src,
        "",
        "k",
        &[n],
        Some(&[256]),
        None,
        &[buf(&xs), buf(&ys), zeros(6 * n), zeros(4 * n), val(ys.len() as u32)],
    );
    let (o, q): (Vec<u16>, Vec<i32>) = (read(&out[2]), read(&out[3]));
    let mut bad = Vec::new();
    for (i, (&x, &y)) in xs.iter().flat_map(|x| ys.iter().map(move |y| (x, y))).enumerate() {
        let finite = |h: u16| h & 0x7c00 != 0x7c00;
        let want = if !finite(x) || !finite(y) && is_nan(y) || y & 0x7fff == 0 {
            (QNAN, QNAN, QNAN, 0)
        } else if !finite(y) {
            (x, x, x, 0)
        } else {
            let (f, r, k) = rem_ref(x, y);
            (f, r, r, k)
        };
        let got = (o[3 * i], o[3 * i + 1], o[3 * i + 2], q[i]);
        if (canon(got.0), canon(got.1), canon(got.2), got.3) != want && bad.len() < 10 {
            bad.push(format!("x={x:#06x} y={y:#06x}: got {got:04x?}, want {want:04x?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
