//! Pure per-lane semantics shared by the emulator's scalar and vector paths (and, later, the
//! compiler's constant folder). Every function is total: no panics for any input.
//!
//! Floating point follows RISC-V: NaN results are the canonical NaN `0x7fc00000`, `fmin`/`fmax`
//! return the non-NaN operand and order −0 < +0, conversions saturate (NaN converts to the maximum).
//! Arithmetic is IEEE-754 single precision rounded to nearest-even (Rust's native `f32`, which is
//! bit-exact with softfloat for RNE); other static rounding modes are honoured for conversions.

/// Canonical quiet NaN.
pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

// ---- integer -------------------------------------------------------------------------------------

#[inline(always)]
pub fn mulh(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}
#[inline(always)]
pub fn mulhu(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}
#[inline(always)]
pub fn mulhsu(a: u32, b: u32) -> u32 {
    ((a as i32 as i64).wrapping_mul(b as u64 as i64) >> 32) as u32
}
/// Signed division: x/0 = −1, MIN/−1 = MIN.
#[inline(always)]
pub fn div(a: u32, b: u32) -> u32 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        u32::MAX
    } else {
        a.wrapping_div(b) as u32
    }
}
/// Unsigned division: x/0 = all ones.
#[inline(always)]
pub fn divu(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}
/// Signed remainder: x%0 = x, MIN%−1 = 0.
#[inline(always)]
pub fn rem(a: u32, b: u32) -> u32 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        a as u32
    } else {
        a.wrapping_rem(b) as u32
    }
}
/// Unsigned remainder: x%0 = x.
#[inline(always)]
pub fn remu(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(a)
}
#[inline(always)]
pub fn sll(a: u32, b: u32) -> u32 {
    a << (b & 31)
}
#[inline(always)]
pub fn srl(a: u32, b: u32) -> u32 {
    a >> (b & 31)
}
#[inline(always)]
pub fn sra(a: u32, b: u32) -> u32 {
    ((a as i32) >> (b & 31)) as u32
}
#[inline(always)]
pub fn slt(a: u32, b: u32) -> u32 {
    ((a as i32) < (b as i32)) as u32
}
#[inline(always)]
pub fn sltu(a: u32, b: u32) -> u32 {
    (a < b) as u32
}
#[inline(always)]
pub fn sadd(a: u32, b: u32) -> u32 {
    (a as i32).saturating_add(b as i32) as u32
}
#[inline(always)]
pub fn saddu(a: u32, b: u32) -> u32 {
    a.saturating_add(b)
}
#[inline(always)]
pub fn ssub(a: u32, b: u32) -> u32 {
    (a as i32).saturating_sub(b as i32) as u32
}
#[inline(always)]
pub fn ssubu(a: u32, b: u32) -> u32 {
    a.saturating_sub(b)
}
#[inline(always)]
pub fn min(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}
#[inline(always)]
pub fn max(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

// ---- floating point ------------------------------------------------------------------------------

/// Accrued-exception flag bits (fflags).
pub mod fflags {
    pub const NX: u32 = 1;
    pub const UF: u32 = 2;
    pub const OF: u32 = 4;
    pub const DZ: u32 = 8;
    pub const NV: u32 = 16;
}

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[inline(always)]
fn is_snan(x: u32) -> bool {
    x & 0x7f80_0000 == 0x7f80_0000 && x & 0x007f_ffff != 0 && x & 0x0040_0000 == 0
}
/// Canonicalises a NaN result.
#[inline(always)]
pub fn canon(r: f32) -> u32 {
    if r.is_nan() {
        CANONICAL_NAN
    } else {
        r.to_bits()
    }
}
#[inline(always)]
pub fn fadd(a: u32, b: u32) -> u32 {
    canon(f(a) + f(b))
}
#[inline(always)]
pub fn fsub(a: u32, b: u32) -> u32 {
    canon(f(a) - f(b))
}
#[inline(always)]
pub fn fmul(a: u32, b: u32) -> u32 {
    canon(f(a) * f(b))
}
#[inline(always)]
pub fn fdiv(a: u32, b: u32) -> u32 {
    canon(f(a) / f(b))
}
#[inline(always)]
pub fn fsqrt(a: u32) -> u32 {
    canon(f(a).sqrt())
}
/// Fused multiply-add `a*b + c` with a single rounding.
#[inline(always)]
pub fn fmadd(a: u32, b: u32, c: u32) -> u32 {
    canon(f(a).mul_add(f(b), f(c)))
}
#[inline(always)]
pub fn fneg(a: u32) -> u32 {
    a ^ 0x8000_0000
}
#[inline(always)]
pub fn fsgnj(a: u32, b: u32) -> u32 {
    (a & 0x7fff_ffff) | (b & 0x8000_0000)
}
#[inline(always)]
pub fn fsgnjn(a: u32, b: u32) -> u32 {
    (a & 0x7fff_ffff) | (!b & 0x8000_0000)
}
#[inline(always)]
pub fn fsgnjx(a: u32, b: u32) -> u32 {
    a ^ (b & 0x8000_0000)
}
/// RISC-V `fmin` (IEEE 754-2019 minimumNumber).
#[inline(always)]
pub fn fmin(a: u32, b: u32) -> u32 {
    let (x, y) = (f(a), f(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => a | b, // −0 vs +0: −0 wins
        _ if x < y => a,
        _ => b,
    }
}
/// RISC-V `fmax` (maximumNumber).
#[inline(always)]
pub fn fmax(a: u32, b: u32) -> u32 {
    let (x, y) = (f(a), f(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => a & b, // +0 wins
        _ if x > y => a,
        _ => b,
    }
}
#[inline(always)]
pub fn feq(a: u32, b: u32) -> u32 {
    (f(a) == f(b)) as u32
}
#[inline(always)]
pub fn flt(a: u32, b: u32) -> u32 {
    (f(a) < f(b)) as u32
}
#[inline(always)]
pub fn fle(a: u32, b: u32) -> u32 {
    (f(a) <= f(b)) as u32
}
/// Invalid-operation flag of a comparison: signaling compares (`flt`, `fle`) raise NV for any NaN,
/// quiet ones (`feq`) only for signaling NaNs.
pub fn compare_flags(a: u32, b: u32, signaling: bool) -> u32 {
    let nan = f(a).is_nan() || f(b).is_nan();
    if (signaling && nan) || is_snan(a) || is_snan(b) {
        fflags::NV
    } else {
        0
    }
}
/// `fclass` bit mask.
pub fn fclass(a: u32) -> u32 {
    let x = f(a);
    let neg = a >> 31 != 0;
    let bit = if x.is_nan() {
        if is_snan(a) {
            8
        } else {
            9
        }
    } else if x.is_infinite() {
        if neg {
            0
        } else {
            7
        }
    } else if x == 0.0 {
        if neg {
            3
        } else {
            4
        }
    } else if x.is_subnormal() {
        if neg {
            2
        } else {
            5
        }
    } else if neg {
        1
    } else {
        6
    };
    1 << bit
}

/// Rounds to an integral value with a RISC-V rounding mode (0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM).
#[inline(always)]
pub fn round_rm(x: f64, rm: u32) -> f64 {
    match rm {
        1 => x.trunc(),
        2 => x.floor(),
        3 => x.ceil(),
        4 => x.round(),
        _ => x.round_ties_even(),
    }
}
/// `fcvt.w.s`: float → i32 with saturation (NaN → i32::MAX).
pub fn fcvt_w_s(a: u32, rm: u32) -> (u32, u32) {
    let x = f(a);
    if x.is_nan() {
        return (i32::MAX as u32, fflags::NV);
    }
    let r = round_rm(x as f64, rm);
    if r < i32::MIN as f64 {
        (i32::MIN as u32, fflags::NV)
    } else if r > i32::MAX as f64 {
        (i32::MAX as u32, fflags::NV)
    } else {
        (r as i32 as u32, if r != x as f64 { fflags::NX } else { 0 })
    }
}
/// `fcvt.wu.s`: float → u32 with saturation (NaN → u32::MAX).
pub fn fcvt_wu_s(a: u32, rm: u32) -> (u32, u32) {
    let x = f(a);
    if x.is_nan() {
        return (u32::MAX, fflags::NV);
    }
    let r = round_rm(x as f64, rm);
    if r < 0.0 {
        (0, fflags::NV)
    } else if r > u32::MAX as f64 {
        (u32::MAX, fflags::NV)
    } else {
        (r as u32, if r != x as f64 { fflags::NX } else { 0 })
    }
}
/// Rounds an exactly representable f64 integer to f32 with a rounding mode.
fn f64_to_f32_rm(v: f64, rm: u32) -> u32 {
    let near = v as f32; // round to nearest even
    let back = near as f64;
    if back == v {
        return near.to_bits();
    }
    let (lo, hi) = if back < v { (near, next_up(near)) } else { (next_down(near), near) };
    let r = match rm {
        1 => {
            if v >= 0.0 {
                lo
            } else {
                hi
            }
        }
        2 => lo,
        3 => hi,
        4 => {
            let (dl, dh) = (v - lo as f64, hi as f64 - v);
            if dl < dh || (dl == dh && v < 0.0) {
                lo
            } else {
                hi
            }
        }
        _ => near,
    };
    r.to_bits()
}
fn next_up(x: f32) -> f32 {
    if x >= 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}
fn next_down(x: f32) -> f32 {
    -next_up(-x)
}
/// `fcvt.s.w`.
pub fn fcvt_s_w(a: u32, rm: u32) -> u32 {
    f64_to_f32_rm(a as i32 as f64, rm)
}
/// `fcvt.s.wu`.
pub fn fcvt_s_wu(a: u32, rm: u32) -> u32 {
    f64_to_f32_rm(a as f64, rm)
}
/// `vfexp`: host `exp` in double precision, rounded to single (what the simulator does).
pub fn fexp(a: u32) -> u32 {
    canon((f(a) as f64).exp() as f32)
}

// ---- exception flags ------------------------------------------------------------------------------
//
// Every flagged operation returns `(result, fflags)`. Inexactness is decided exactly: products of
// two f32 are exact in f64, and the rounding error of an f64 sum is recovered with TwoSum.

#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// Flags for a result `r` whose exact value is `s + err` (err = 0 when `s` is exact), computed
/// from finite inputs (`nan_in`: any input NaN, `snan_in`: any signaling NaN input).
#[inline(always)]
fn arith_flags(r: f32, s: f64, err: f64, inputs_finite: bool, nan_in: bool, snan_in: bool) -> u32 {
    if r.is_nan() {
        return if snan_in || !nan_in { fflags::NV } else { 0 };
    }
    let mut f = if snan_in { fflags::NV } else { 0 };
    if !inputs_finite {
        return f;
    }
    let inexact = err != 0.0 || r as f64 != s;
    if inexact {
        f |= fflags::NX;
        if r.is_infinite() {
            f |= fflags::OF;
        } else if (r.abs() < f32::MIN_POSITIVE) || (s.abs() < f32::MIN_POSITIVE as f64) {
            f |= fflags::UF;
        }
    }
    f
}

#[inline(always)]
fn classify(v: &[u32]) -> (bool, bool, bool) {
    let finite = v.iter().all(|&x| f(x).is_finite());
    let nan = v.iter().any(|&x| f(x).is_nan());
    let snan = v.iter().any(|&x| is_snan(x));
    (finite, nan, snan)
}

/// `fadd` with flags.
#[inline(always)]
pub fn fadd_f(a: u32, b: u32) -> (u32, u32) {
    let r = f(a) + f(b);
    let (s, e) = two_sum(f(a) as f64, f(b) as f64);
    let (fin, nan, snan) = classify(&[a, b]);
    (canon(r), arith_flags(r, s, e, fin, nan, snan))
}
/// An "ordinary" result of `fadd`/`fsub`/`fmul`/`fmadd`: a finite normal number above the
/// smallest normal (one unsigned compare of its magnitude). Such an operation can raise no flag
/// but NX: no NV or OF (an infinite or NaN input gives an infinite or NaN result in these four
/// operations, so its inputs were finite too), no UF (tininess is detected after rounding and
/// the result is above the smallest normal), no DZ. So once NX is set the flags need not be
/// computed ([`fadd_plain`] and friends).
#[inline(always)]
fn ordinary(r: f32) -> bool {
    const LOW: u32 = 0x0080_0001; // just above f32::MIN_POSITIVE
    const HIGH: u32 = 0x7f7f_ffff; // f32::MAX
    (r.to_bits() & 0x7fff_ffff).wrapping_sub(LOW) <= HIGH - LOW
}
/// `fadd` without flags: the result and whether it is [ordinary] (when it is not, the
/// caller uses [`fadd_f`]).
#[inline(always)]
pub fn fadd_plain(a: u32, b: u32) -> (u32, bool) {
    let r = f(a) + f(b);
    (r.to_bits(), ordinary(r))
}
/// `fmul` without flags (see [`fadd_plain`]).
#[inline(always)]
pub fn fmul_plain(a: u32, b: u32) -> (u32, bool) {
    let r = f(a) * f(b);
    (r.to_bits(), ordinary(r))
}
/// `fmadd` (`a·b + c`, one rounding) without flags (see [`fadd_plain`]).
#[inline(always)]
pub fn fmadd_plain(a: u32, b: u32, c: u32) -> (u32, bool) {
    let r = f(a).mul_add(f(b), f(c));
    (r.to_bits(), ordinary(r))
}
/// `fsub` with flags.
#[inline(always)]
pub fn fsub_f(a: u32, b: u32) -> (u32, u32) {
    fadd_f(a, fneg(b))
}
/// `fmul` with flags.
#[inline(always)]
pub fn fmul_f(a: u32, b: u32) -> (u32, u32) {
    let r = f(a) * f(b);
    let (fin, nan, snan) = classify(&[a, b]);
    (canon(r), arith_flags(r, f(a) as f64 * f(b) as f64, 0.0, fin, nan, snan))
}
/// `fdiv` with flags (DZ for a finite non-zero dividend over zero).
#[inline(always)]
pub fn fdiv_f(a: u32, b: u32) -> (u32, u32) {
    let (x, y) = (f(a), f(b));
    let r = x / y;
    let (fin, nan, snan) = classify(&[a, b]);
    if fin && y == 0.0 {
        return if x == 0.0 { (CANONICAL_NAN, fflags::NV) } else { (canon(r), fflags::DZ) };
    }
    if !fin || r.is_nan() {
        return (canon(r), arith_flags(r, 0.0, 0.0, false, nan, snan));
    }
    // r is exact iff r * y == x (the f64 product is exact).
    let exact = r as f64 * y as f64 == x as f64;
    let s = if exact { r as f64 } else { x as f64 / y as f64 };
    let f = if exact { 0 } else { arith_flags(r, s, 1.0, true, false, false) };
    (canon(r), f)
}
/// `fsqrt` with flags.
#[inline(always)]
pub fn fsqrt_f(a: u32) -> (u32, u32) {
    let x = f(a);
    let r = x.sqrt();
    if r.is_nan() {
        return (CANONICAL_NAN, if x.is_nan() && !is_snan(a) { 0 } else { fflags::NV });
    }
    let exact = !x.is_finite() || r as f64 * r as f64 == x as f64;
    (canon(r), if exact { 0 } else { fflags::NX })
}
/// `fma` (`a*b + c`, one rounding) with flags.
#[inline(always)]
pub fn fmadd_f(a: u32, b: u32, c: u32) -> (u32, u32) {
    let r = f(a).mul_add(f(b), f(c));
    let (fin, nan, snan) = classify(&[a, b, c]);
    let inf_times_zero = (f(a).is_infinite() && f(b) == 0.0) || (f(b).is_infinite() && f(a) == 0.0);
    if inf_times_zero {
        return (CANONICAL_NAN, fflags::NV);
    }
    let (s, e) = two_sum(f(a) as f64 * f(b) as f64, f(c) as f64);
    (canon(r), arith_flags(r, s, e, fin, nan, snan))
}
/// `fmin`/`fmax` flags: NV for a signaling NaN operand.
#[inline(always)]
pub fn minmax_flags(a: u32, b: u32) -> u32 {
    if is_snan(a) || is_snan(b) {
        fflags::NV
    } else {
        0
    }
}
/// `fcvt.s.w[u]` flags: NX when the integer is not representable.
#[inline(always)]
pub fn int_to_float_flags(r: u32, exact: f64) -> u32 {
    if f(r) as f64 == exact {
        0
    } else {
        fflags::NX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whenever a flag-free operation calls its result ordinary, the flagged one gives the same
    /// result and no flag but NX — over special values (zeros, subnormals, the smallest and
    /// largest normals, infinities, quiet and signalling NaNs) and a spread of ordinary ones.
    #[test]
    fn ordinary_results_raise_no_flag_but_inexact() {
        let mut vals: Vec<u32> = vec![
            0,
            0x8000_0000,
            1,
            0x007f_ffff,
            0x0080_0000,
            0x0080_0001,
            0x0100_0000,
            0x3f80_0000,
            0x3f80_0001,
            0x7f7f_ffff,
            0x7f00_0000,
            0x7f80_0000,
            0x7fc0_0000,
            0x7fa0_0000,
            0x3400_0000,
            0x4b80_0000,
        ];
        let mut x = 0x1234_5678u32;
        for _ in 0..40 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            vals.push(x);
        }
        let signed: Vec<u32> = vals.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
        let check = |what: &str, plain: (u32, bool), full: (u32, u32)| {
            if plain.1 {
                assert_eq!(plain.0, full.0, "{what}: results differ");
                assert_eq!(full.1 & !fflags::NX, 0, "{what}: ordinary result raised {:#x}", full.1);
            }
        };
        for &a in &signed {
            for &b in &signed {
                check(&format!("add {a:#x} {b:#x}"), fadd_plain(a, b), fadd_f(a, b));
                check(&format!("mul {a:#x} {b:#x}"), fmul_plain(a, b), fmul_f(a, b));
                for &c in signed.iter().step_by(7) {
                    check(&format!("fma {a:#x} {b:#x} {c:#x}"), fmadd_plain(a, b, c), fmadd_f(a, b, c));
                }
            }
        }
    }
    #[test]
    fn division_corner_cases() {
        assert_eq!(div(7, 0), u32::MAX);
        assert_eq!(div(i32::MIN as u32, u32::MAX), i32::MIN as u32);
        assert_eq!(rem(i32::MIN as u32, u32::MAX), 0);
        assert_eq!(remu(9, 0), 9);
        assert_eq!(divu(9, 0), u32::MAX);
        assert_eq!(mulhsu(u32::MAX, 2), u32::MAX);
        assert_eq!(mulh(0x8000_0000, 0x8000_0000), 0x4000_0000);
    }
    #[test]
    fn float_rules() {
        let one = 1.0f32.to_bits();
        assert_eq!(fadd(CANONICAL_NAN | 1, one), CANONICAL_NAN);
        assert_eq!(fmin(0x8000_0000, 0), 0x8000_0000);
        assert_eq!(fmax(0x8000_0000, 0), 0);
        assert_eq!(fmin(CANONICAL_NAN, one), one);
        assert_eq!(fcvt_w_s(CANONICAL_NAN, 1).0, i32::MAX as u32);
        assert_eq!(fcvt_w_s((-1e20f32).to_bits(), 1).0, i32::MIN as u32);
        assert_eq!(fcvt_w_s((-2.5f32).to_bits(), 0).0, -2i32 as u32);
        assert_eq!(fcvt_w_s((-2.5f32).to_bits(), 4).0, -3i32 as u32);
        assert_eq!(fcvt_wu_s((-1.0f32).to_bits(), 1), (0, fflags::NV));
        assert_eq!(fcvt_s_w(16_777_217, 0), 16_777_216f32.to_bits());
        assert_eq!(fcvt_s_w(16_777_217, 3), 16_777_218f32.to_bits());
        assert_eq!(fcvt_s_w(-16_777_217i32 as u32, 1), (-16_777_216f32).to_bits());
        assert_eq!(fclass(0x8000_0000), 1 << 3);
        assert_eq!(fclass(CANONICAL_NAN), 1 << 9);
        assert_eq!(fmadd(2f32.to_bits(), 3f32.to_bits(), one), 7f32.to_bits());
    }
    #[test]
    fn exception_flags() {
        let b = |x: f32| x.to_bits();
        assert_eq!(fadd_f(b(1.0), b(2.0)).1, 0);
        assert_eq!(fadd_f(b(1.0), b(1e-10)).1, fflags::NX);
        assert_eq!(fadd_f(b(f32::INFINITY), b(f32::NEG_INFINITY)), (CANONICAL_NAN, fflags::NV));
        assert_eq!(fmul_f(b(f32::MAX), b(2.0)).1, fflags::OF | fflags::NX);
        assert_eq!(fmul_f(b(f32::MIN_POSITIVE), b(0.5)).1, 0, "exact subnormal: no underflow");
        assert_eq!(fmul_f(b(f32::MIN_POSITIVE), b(1.0 / 3.0)).1, fflags::UF | fflags::NX);
        assert_eq!(fdiv_f(b(1.0), b(3.0)).1, fflags::NX);
        assert_eq!(fdiv_f(b(1.0), b(4.0)).1, 0);
        assert_eq!(fdiv_f(b(1.0), b(0.0)).1, fflags::DZ);
        assert_eq!(fdiv_f(b(0.0), b(0.0)), (CANONICAL_NAN, fflags::NV));
        assert_eq!(fsqrt_f(b(2.0)).1, fflags::NX);
        assert_eq!(fsqrt_f(b(4.0)).1, 0);
        assert_eq!(fsqrt_f(b(-1.0)), (CANONICAL_NAN, fflags::NV));
        assert_eq!(fmadd_f(b(1.0), b(1.0), b(1e-10)).1, fflags::NX);
        assert_eq!(fmadd_f(b(f32::INFINITY), b(0.0), b(1.0)), (CANONICAL_NAN, fflags::NV));
        assert_eq!(fadd_f(0x7f80_0001, b(1.0)).1, fflags::NV, "signaling NaN input");
        assert_eq!(fadd_f(CANONICAL_NAN, b(1.0)).1, 0, "quiet NaN input");
    }
}
