//! Element-loop helpers for vector instructions. Results are computed for all 32 lanes (the
//! per-lane functions are total) and blended into the destination under the lane mask, which keeps
//! the loops branch-free and vectorisable; inactive elements stay unchanged (mask-undisturbed).

use super::super::trace::Tracer;
use super::super::warp::{Warp, MAX_LANES};

pub type Lanes = [u32; MAX_LANES];

/// `[f(0), f(1), …, f(31)]` as a plain loop the optimiser always inlines and vectorises
/// (`std::array::from_fn` is not always inlined, which costs a call per lane in the hot loop).
#[inline(always)]
pub fn lanes(mut f: impl FnMut(usize) -> u32) -> Lanes {
    let mut r = [0u32; MAX_LANES];
    for (i, x) in r.iter_mut().enumerate() {
        *x = f(i);
    }
    r
}

/// `dst[i] = res[i]` for the lanes of `m`. One select per lane, also when every lane is set:
/// the compiler vectorises it into loads and stores of the same width and alignment as the
/// ones that just wrote `res`, where a plain copy became a memcpy aligned to `dst` whose
/// loads straddled those stores (no store forwarding: ~15 cycles per load).
#[inline(always)]
pub fn blend(dst: &mut Lanes, res: &Lanes, m: u32) {
    if m == u32::MAX {
        *dst = *res;
        return;
    }
    for i in 0..MAX_LANES {
        let keep = 0u32.wrapping_sub((m >> i) & 1);
        dst[i] = (res[i] & keep) | (dst[i] & !keep);
    }
}

#[inline(always)]
pub fn trace_v<T: Tracer>(w: &Warp, t: &mut T, vd: u8) {
    if T::ENABLED {
        let n = (w.csr.numt as usize).min(MAX_LANES);
        t.v_write(vd, &w.v[vd as usize][..n]);
    }
}

/// `vd[i] = f(vs2[i], vs1[i])`.
#[inline(always)]
pub fn vv<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, vs2: u8, vs1: u8, f: impl Fn(u32, u32) -> u32) {
    let a = w.v[vs2 as usize];
    let b = w.v[vs1 as usize];
    let r: Lanes = lanes(|i| f(a[i], b[i]));
    blend(&mut w.v[vd as usize], &r, m);
    trace_v(w, t, vd);
}

/// `vd[i] = f(vs2[i], s)` (scalar or immediate second operand).
#[inline(always)]
pub fn vs<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, vs2: u8, s: u32, f: impl Fn(u32, u32) -> u32) {
    let a = w.v[vs2 as usize];
    let r: Lanes = lanes(|i| f(a[i], s));
    blend(&mut w.v[vd as usize], &r, m);
    trace_v(w, t, vd);
}

/// `vd[i] = f(vd[i], b[i], c[i])` for multiply-add forms (`b`, `c` already selected by the caller).
#[inline(always)]
pub fn vmac<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    b: &Lanes,
    c: &Lanes,
    f: impl Fn(u32, u32, u32) -> u32,
) {
    let d = w.v[vd as usize];
    let r: Lanes = lanes(|i| f(d[i], b[i], c[i]));
    blend(&mut w.v[vd as usize], &r, m);
    trace_v(w, t, vd);
}

/// `vd[i] = f(vs2[i])`.
#[inline(always)]
pub fn vunary<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, vs2: u8, f: impl Fn(u32) -> u32) {
    let a = w.v[vs2 as usize];
    let r: Lanes = lanes(|i| f(a[i]));
    blend(&mut w.v[vd as usize], &r, m);
    trace_v(w, t, vd);
}

/// Broadcast-style writes: `vd[i] = f(i)`.
#[inline(always)]
pub fn vgen<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, f: impl Fn(usize) -> u32) {
    let r: Lanes = lanes(f);
    blend(&mut w.v[vd as usize], &r, m);
    trace_v(w, t, vd);
}

/// Mask of lanes `0..vl` (for instructions that ignore the SIMT mask).
#[inline(always)]
pub fn vl_mask(w: &Warp) -> u32 {
    if w.csr.vl >= 32 {
        u32::MAX
    } else {
        (1u32 << w.csr.vl) - 1
    }
}

/// RVV `v0.t` mask bit of lane `i` (v0 read as a packed bit vector).
#[inline(always)]
pub fn v0_bit(w: &Warp, i: u32) -> bool {
    (w.v[0][(i / 32) as usize] >> (i % 32)) & 1 != 0
}

/// Applies the instruction's `vm` bit to a lane mask.
#[inline(always)]
pub fn with_vm(w: &Warp, m: u32, vm: bool) -> u32 {
    if vm {
        m
    } else {
        m & w.v[0][0]
    }
}

/// Flagged element loops for vector FP: like [`vv`]/[`vs`]/[`vunary`]/[`vmac`] but the per-lane
/// function also returns fflags bits, which are OR-ed over the active lanes and returned.
#[inline(always)]
pub fn vvf<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    vs2: u8,
    vs1: u8,
    f: impl Fn(u32, u32) -> (u32, u32),
) -> u32 {
    let a = w.v[vs2 as usize];
    let b = w.v[vs1 as usize];
    flagged(w, t, m, vd, |i| f(a[i], b[i]))
}

#[inline(always)]
pub fn vsf<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    vs2: u8,
    s: u32,
    f: impl Fn(u32, u32) -> (u32, u32),
) -> u32 {
    let a = w.v[vs2 as usize];
    flagged(w, t, m, vd, |i| f(a[i], s))
}

#[inline(always)]
pub fn vmacf<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    b: &Lanes,
    c: &Lanes,
    f: impl Fn(u32, u32, u32) -> (u32, u32),
) -> u32 {
    let d = w.v[vd as usize];
    flagged(w, t, m, vd, |i| f(d[i], b[i], c[i]))
}

#[inline(always)]
pub fn vunaryf<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, vs2: u8, f: impl Fn(u32) -> (u32, u32)) -> u32 {
    let a = w.v[vs2 as usize];
    flagged(w, t, m, vd, |i| f(a[i]))
}

/// The fast variants of [`vvf`], [`vsf`] and [`vmacf`]. When no trace is recorded and the
/// program never reads the flags ([`Warp::fflags_unread`]), the flags are not computed at all:
/// every lane's result is `plain`'s with NaNs canonicalised. When `fflags` already holds NX, an
/// instruction whose active lanes all have [ordinary] results cannot change the flags, so they
/// are not computed (`plain` gives the result and whether it is ordinary). Otherwise the
/// flagged function `full` runs. Results are identical either way; only an unread `fflags`
/// may differ.
///
/// [ordinary]: crate::isa::semantics::fadd_plain
#[inline(always)]
fn plain_or_flagged<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    plain: impl Fn(usize) -> (u32, bool),
    full: impl Fn(usize) -> (u32, u32),
) -> u32 {
    // (The callers took the unflagged case, `unflagged`, before copying their operands.)
    if !T::ENABLED && w.csr.fflags & crate::isa::semantics::fflags::NX != 0 {
        if let Some(r) = plain_lanes(m, plain) {
            blend(&mut w.v[vd as usize], &r, m);
            return 0;
        }
    }
    flagged(w, t, m, vd, full)
}

/// The case of [`plain_or_flagged`] where nothing can see the flags (untraced, and the program
/// never reads them): every lane's result is the host operation's (each `plain` computes what
/// its `full` does, in round-to-nearest-even), with NaNs canonical — zeros, subnormals,
/// infinities and NaNs included. `plain` reads its operands from the register file in place:
/// copies of them went through stack slots whose 256-bit reloads straddled cache lines.
#[inline(always)]
fn unflagged(w: &mut Warp, m: u32, vd: u8, plain: impl Fn(&[Lanes], usize) -> (u32, bool)) {
    let v = &w.v[..];
    let r = lanes(|i| crate::isa::semantics::canon(f32::from_bits(plain(v, i).0)));
    blend(&mut w.v[vd as usize], &r, m);
}

/// The results of `plain` for every lane, or `None` when an active lane's result is not
/// ordinary.
#[inline(always)]
fn plain_lanes(m: u32, plain: impl Fn(usize) -> (u32, bool)) -> Option<Lanes> {
    let mut odd = 0u32;
    let r = lanes(|i| {
        let (v, ok) = plain(i);
        odd |= u32::from(!ok) << i;
        v
    });
    (odd & m == 0).then_some(r)
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn vvf_fast<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    vs2: u8,
    vs1: u8,
    plain: impl Fn(u32, u32) -> (u32, bool),
    full: impl Fn(u32, u32) -> (u32, u32),
) -> u32 {
    let (vs2, vs1) = (vs2 as usize, vs1 as usize);
    if !T::ENABLED && w.fflags_unread {
        unflagged(w, m, vd, |v, i| plain(v[vs2][i], v[vs1][i]));
        return 0;
    }
    let a = w.v[vs2];
    let b = w.v[vs1];
    plain_or_flagged(w, t, m, vd, |i| plain(a[i], b[i]), |i| full(a[i], b[i]))
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn vsf_fast<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    vs2: u8,
    s: u32,
    plain: impl Fn(u32, u32) -> (u32, bool),
    full: impl Fn(u32, u32) -> (u32, u32),
) -> u32 {
    let vs2 = vs2 as usize;
    if !T::ENABLED && w.fflags_unread {
        unflagged(w, m, vd, |v, i| plain(v[vs2][i], s));
        return 0;
    }
    let a = w.v[vs2];
    plain_or_flagged(w, t, m, vd, |i| plain(a[i], s), |i| full(a[i], s))
}

/// `vd[i] = f(vd[i], b(v, i), vc[i])`; `b` reads lane `i` of its operand from the register
/// file `v` (a register's lane, or a `.vf` form's scalar: then it stays a broadcast register).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn vmacf_fast<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    b: impl Fn(&[Lanes], usize) -> u32,
    vc: u8,
    plain: impl Fn(u32, u32, u32) -> (u32, bool),
    full: impl Fn(u32, u32, u32) -> (u32, u32),
) -> u32 {
    let (d, c) = (vd as usize, vc as usize);
    if !T::ENABLED && w.fflags_unread {
        unflagged(w, m, vd, |v, i| plain(v[d][i], b(v, i), v[c][i]));
        return 0;
    }
    let (dv, cv) = (w.v[d], w.v[c]);
    let bv = lanes(|i| b(&w.v[..], i));
    plain_or_flagged(w, t, m, vd, |i| plain(dv[i], bv[i], cv[i]), |i| full(dv[i], bv[i], cv[i]))
}

/// Runs `f` (result, flags) on every lane, writes the active lanes' results to `vd` and returns
/// the active lanes' flags — or, untraced in a program that never reads the flags
/// ([`Warp::fflags_unread`]), only the results (the optimiser drops the flag computations).
#[inline(always)]
fn flagged<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, f: impl Fn(usize) -> (u32, u32)) -> u32 {
    if !T::ENABLED && w.fflags_unread {
        let r: Lanes = lanes(|i| f(i).0);
        blend(&mut w.v[vd as usize], &r, m);
        return 0;
    }
    let mut flags = 0;
    let r: Lanes = lanes(|i| {
        let (v, fl) = f(i);
        if (m >> i) & 1 != 0 {
            flags |= fl;
        }
        v
    });
    blend(&mut w.v[vd as usize], &r, m);
    trace_v(w, t, vd);
    flags
}

/// Unsigned division of every lane by one divisor (`vdivu.vx`/`vremu.vx`): the same results as
/// [`s::divu`](crate::isa::semantics::divu)/[`s::remu`](crate::isa::semantics::remu) per lane,
/// without a hardware division per lane. When every lane is below the divisor (a 1-D local id
/// `flat % size`, say) the quotient is 0 and the remainder the lane itself; a power-of-two
/// divisor is a shift and a mask; otherwise the divisor's 64-bit reciprocal `M = ⌊(2⁶⁴ − 1) / d⌋ + 1` gives both exactly for every 32-bit
/// dividend (Lemire, Kaser, Kurz, "Faster Remainder by Direct Computation", 2019): quotient
/// `⌊M·n / 2⁶⁴⌋`, remainder `⌊(M·n mod 2⁶⁴)·d / 2⁶⁴⌋`. Divisors 0 and 1 keep the plain form.
#[inline(always)]
pub fn divu_by(a: &Lanes, d: u32, rem: bool) -> Lanes {
    use crate::isa::semantics as s;
    let below = a.iter().fold(0u32, |m, &x| m.max(x)) < d;
    if below {
        return if rem { *a } else { [0; MAX_LANES] };
    }
    if d <= 1 {
        return lanes(|i| if rem { s::remu(a[i], d) } else { s::divu(a[i], d) });
    }
    if d.is_power_of_two() {
        // Work-group sizes usually are: a shift and a mask.
        let k = d.trailing_zeros();
        return lanes(|i| if rem { a[i] & (d - 1) } else { a[i] >> k });
    }
    let m = u64::MAX / u64::from(d) + 1;
    if rem {
        lanes(|i| ((u128::from(m.wrapping_mul(u64::from(a[i]))) * u128::from(d)) >> 64) as u32)
    } else {
        lanes(|i| ((u128::from(m) * u128::from(a[i])) >> 64) as u32)
    }
}

/// `⌊a / b⌋` of 32-bit unsigned integers (`b ≠ 0`; any value for `b = 0`) in f64 arithmetic,
/// which vectorises where a hardware division per lane does not: the quotient rounded to the
/// nearest integer is `⌊a/b⌋` or one more (the correctly rounded `a/b` is within 2^-53 relative
/// of the true quotient, below 2^32), and the exact product `q·b` (below 2^33) tells which.
#[inline(always)]
fn divu_f64(a: u32, b: u32) -> u32 {
    const M: f64 = 4_503_599_627_370_496.0; // 2^52: x + M holds an integer x < 2^52 in its low bits
    let f = |x: u32| f64::from_bits(0x4330_0000_0000_0000 | u64::from(x)) - M;
    let (af, bf) = (f(a), f(b));
    let near = (af / bf + M) - M;
    let q = if near * bf > af { near - 1.0 } else { near };
    (q + M).to_bits() as u32
}

/// Per-lane `vdivu`/`vremu` (`rem`) and, with `signed`, `vdiv`/`vrem` of `a` by `b`, exactly the
/// scalar semantics (`x/0` = all ones, `x%0` = x, `MIN/−1` = MIN, `MIN%−1` = 0), through
/// [`divu_f64`] on the magnitudes.
#[inline(always)]
pub fn div_lanes(a: &Lanes, b: &Lanes, rem: bool, signed: bool) -> Lanes {
    lanes(|i| {
        let (x, y) = (a[i], b[i]);
        let (neg_x, neg_y) = (signed && (x as i32) < 0, signed && (y as i32) < 0);
        let (ux, uy) = (if neg_x { x.wrapping_neg() } else { x }, if neg_y { y.wrapping_neg() } else { y });
        let q = divu_f64(ux, uy);
        let r = ux.wrapping_sub(q.wrapping_mul(uy));
        let q = if neg_x != neg_y { q.wrapping_neg() } else { q };
        let r = if neg_x { r.wrapping_neg() } else { r };
        match (rem, y == 0) {
            (false, true) => u32::MAX,
            (false, false) => q,
            (true, true) => x,
            (true, false) => r,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::semantics as s;

    #[test]
    fn divisions_match_the_per_lane_semantics() {
        // Edge dividends and divisors (0, 1, powers of two and their neighbours, the extremes)
        // and a deterministic pseudo-random sweep.
        let mut edge: Vec<u32> = vec![0, 1, 2, 3, 5, 7, 255, 256, 257, 1000, 65535, 65536, 65537];
        for k in 0..32 {
            edge.extend([1u32 << k, (1u32 << k).wrapping_sub(1), (1u32 << k).wrapping_add(1)]);
        }
        edge.extend([u32::MAX, u32::MAX - 1, i32::MAX as u32, 0x8000_0001]);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        };
        let mut divisors = edge.clone();
        divisors.extend((0..2000).map(|_| next()));
        divisors.extend((0..2000).map(|_| next() >> (next() % 32)));
        for &d in &divisors {
            for chunk in 0..4 {
                let a: Lanes = lanes(|i| match chunk {
                    0 => edge[i % edge.len()],
                    1 => edge[(i + 32) % edge.len()],
                    2 => next(),
                    _ => next() % d.max(1), // every lane below the divisor
                });
                let q = divu_by(&a, d, false);
                let r = divu_by(&a, d, true);
                for i in 0..MAX_LANES {
                    assert_eq!(q[i], s::divu(a[i], d), "{} / {d}", a[i]);
                    assert_eq!(r[i], s::remu(a[i], d), "{} % {d}", a[i]);
                }
                // Per-lane divisors (`div_lanes`, the `.vv` forms): this one, the edges and
                // random ones around it, unsigned and signed.
                let b: Lanes = lanes(|i| match i % 4 {
                    0 => d,
                    1 => edge[(i * 7 + d as usize) % edge.len()],
                    2 => next(),
                    _ => d.wrapping_add(i as u32).wrapping_sub(16),
                });
                type Scalar = fn(u32, u32) -> u32;
                let ops: [(bool, bool, Scalar); 4] =
                    [(false, false, s::divu), (true, false, s::remu), (false, true, s::div), (true, true, s::rem)];
                for (rem, signed, f) in ops {
                    let got = div_lanes(&a, &b, rem, signed);
                    for i in 0..MAX_LANES {
                        assert_eq!(got[i], f(a[i], b[i]), "{} by {} (rem {rem}, signed {signed})", a[i], b[i]);
                    }
                }
            }
        }
    }
}
