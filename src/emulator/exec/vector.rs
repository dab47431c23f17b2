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

#[inline(always)]
pub fn blend(dst: &mut Lanes, res: &Lanes, m: u32) {
    if m == u32::MAX {
        *dst = *res;
    } else {
        for i in 0..MAX_LANES {
            if (m >> i) & 1 != 0 {
                dst[i] = res[i];
            }
        }
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

/// The fast variants of [`vvf`], [`vsf`] and [`vmacf`]: when no trace is recorded and either
/// `fflags` already holds NX or the program never reads the flags ([`Warp::fflags_unread`]),
/// an instruction whose active lanes all have [ordinary] results cannot change the flags in an
/// observable way, so they are not computed (`plain` gives the result and whether it is
/// ordinary); otherwise the flagged function `full` runs as before. Results are identical
/// either way; only an unread `fflags` may differ.
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
    if !T::ENABLED && (w.fflags_unread || w.csr.fflags & crate::isa::semantics::fflags::NX != 0) {
        if let Some(r) = plain_lanes(m, plain) {
            blend(&mut w.v[vd as usize], &r, m);
            return 0;
        }
    }
    flagged(w, t, m, vd, full)
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
    let a = w.v[vs2 as usize];
    let b = w.v[vs1 as usize];
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
    let a = w.v[vs2 as usize];
    plain_or_flagged(w, t, m, vd, |i| plain(a[i], s), |i| full(a[i], s))
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn vmacf_fast<T: Tracer>(
    w: &mut Warp,
    t: &mut T,
    m: u32,
    vd: u8,
    b: &Lanes,
    c: &Lanes,
    plain: impl Fn(u32, u32, u32) -> (u32, bool),
    full: impl Fn(u32, u32, u32) -> (u32, u32),
) -> u32 {
    let d = w.v[vd as usize];
    plain_or_flagged(w, t, m, vd, |i| plain(d[i], b[i], c[i]), |i| full(d[i], b[i], c[i]))
}

#[inline(always)]
fn flagged<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, f: impl Fn(usize) -> (u32, u32)) -> u32 {
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
