//! One warp's turn: the instructions a warp runs before the work-group runner
//! ([`super::workgroup`]) moves on to the next warp. A turn runs one instruction, then — when
//! allowed more than one — the warp's following instructions up to (not including) the next one
//! that is shared with other warps or the host ([`Sharing`](super::program::Sharing)), or one that
//! changes the flow of the work-group (barrier, `endprg`, print, host call) or traps.
//!
//! This is the interpreter's hot loop. Untraced turns ([`turn_fast_avx2`],
//! [`turn_fast_baseline`]; a whole pass of them in one call, [`pass_fast_avx2`], while no trap
//! is pending) dispatch through the handler tables of [`exec::handlers`] — or, where the
//! launch uses the translator ([`super::jit`], AVX2 hosts), call the function compiled from the
//! entry at the warp's pc, which runs a straight-line run (with a shared instruction before it
//! as a turn's first, a branch after it, the iterations of a loop) and says how many entries it
//! ran, whether the last ended the turn and whether the next may run; traced
//! ones ([`turn_impl`]) inline every instruction's body and call the tracer's hooks. Each is
//! compiled twice: once for the baseline target and
//! once for AVX2/FMA/BMI ([`turn_avx2`]: 32-lane loops in 256-bit vectors, `f32::mul_add` one
//! instruction instead of a library call per lane, mask counts one instruction); the runner
//! picks one per launch. Keeping it out of the runner keeps the scheduler's state out of its
//! registers.

use super::exec::handlers::{self, Handler};
use super::exec::{self, private, Ctx, Flow};
use super::fault::Trap;
#[cfg(target_arch = "x86_64")]
use super::jit;
use super::program::{Decoded, NO_EXT};
use super::trace::Tracer;
use super::warp::Warp;
use std::ops::Deref;

/// How a turn ended.
pub struct TurnEnd {
    /// Instructions executed (at least one).
    pub executed: u64,
    /// Σ active lanes over them.
    pub lanes: u64,
    /// The pc of the last one executed (when the turn stopped before an instruction it may
    /// not run: that one's).
    pub pc: u32,
    /// Its outcome: `Ok(Flow::Next)` when the turn ended before an instruction it may not run.
    pub result: Result<Flow, Trap>,
}

/// What an untraced turn needs: the executor's [`Ctx`] and, when the launch runs translated
/// code ([`RunOptions::translated`](super::RunOptions::translated)), the program's translation.
/// Derefs to the [`Ctx`], so it goes wherever the executor wants one.
pub struct TurnCtx<'a> {
    pub exec: Ctx<'a>,
    #[cfg(target_arch = "x86_64")]
    pub jit: Option<&'a jit::Jit>,
}

impl<'a> Deref for TurnCtx<'a> {
    type Target = Ctx<'a>;
    fn deref(&self) -> &Ctx<'a> {
        &self.exec
    }
}

/// How an untraced turn ended: as [`TurnEnd`], except that the outcome of an instruction that
/// ended the turn (`stopped`) is in the caller's slot, which the turn leaves alone otherwise
/// (the outcome then is `Ok(Flow::Next)`). Returned in registers: copying a just-written
/// outcome out of memory whole stalls on store forwarding (the handler wrote a few of its
/// bytes), a read of its discriminant does not.
pub struct FastEnd {
    pub executed: u64,
    pub lanes: u64,
    pub pc: u32,
    pub stopped: bool,
}

/// Runs one turn of warp `wi` of at most `most` (≥ 1) instructions. A trap of the first
/// instruction, a fetch fault included, ends the turn with it; a later instruction that cannot
/// be fetched is left for the next turn, so its fault is reported in its round-robin place.
#[inline(always)]
pub fn turn_impl<T: Tracer>(w: &mut Warp, wi: usize, most: u64, ctx: &Ctx, t: &mut T) -> TurnEnd {
    let mut executed = 0u64;
    let mut lanes = 0u64;
    loop {
        // An opaque copy of the pointer per instruction: otherwise the optimiser computes the
        // address of every warp field any handler uses before the loop and keeps them on the
        // stack (tens of instructions per turn, and turns are often a few instructions long).
        let w: &mut Warp = std::hint::black_box(&mut *w);
        let pc = w.pc;
        let result = match exec::peek(w, ctx.prog) {
            Ok(d) if executed == 0 || (executed < most && private(w, d, ctx)) => {
                w.ext = NO_EXT;
                if T::ENABLED {
                    t.begin(wi as u32, pc, d.word);
                }
                exec::step(w, d, ctx, t)
            }
            Err(e) if executed == 0 => Err(e),
            _ => return TurnEnd { executed, lanes, pc, result: Ok(Flow::Next) },
        };
        executed += 1;
        lanes += u64::from(w.mask.count_ones());
        w.csr.instret += 1;
        match result {
            Ok(Flow::Next) => {
                if T::ENABLED {
                    t.end();
                }
            }
            result => return TurnEnd { executed, lanes, pc, result },
        }
    }
}

/// [`turn_impl`] without tracing, dispatching through a handler table
/// ([`exec::handlers`]): one short function per instruction instead of every body inlined here.
/// The outcome of an instruction that ends the turn goes to `out` ([`FastEnd`]).
#[inline(always)]
fn turn_table(
    w: &mut Warp,
    most: u64,
    ctx: &TurnCtx,
    table: &[[Handler; 16]; handlers::ROWS],
    out: &mut Result<Flow, Trap>,
) -> FastEnd {
    let mut executed = 0u64;
    let mut lanes = 0u64;
    loop {
        let pc = w.pc;
        let next = match exec::peek(w, ctx.prog) {
            Ok(d) if executed == 0 || (executed < most && private(w, d, ctx)) => {
                #[cfg(target_arch = "x86_64")]
                if let Some((f, _, head)) = ctx
                    .jit
                    .and_then(|j| match w.ext {
                        NO_EXT if d.run >= 1 || executed == 0 || ctx.lone => {
                            j.entry((pc.wrapping_sub(ctx.prog.text_base()) >> 2) as usize)
                        }
                        NO_EXT => None,
                        // A variant a prefix selected: only a head (a shared access).
                        x if executed == 0 || ctx.lone => j.ext_entry(x as usize),
                        _ => None,
                    })
                    .filter(|&(_, len, _)| len <= most - executed)
                {
                    // A head is shared: it never passes `private` (but in a lone warp's
                    // work-group), only a turn's start.
                    debug_assert!(!head || executed == 0 || ctx.lone);
                    // The interpreter clears a pending selection before running the variant.
                    w.ext = NO_EXT;
                    // SAFETY: `f` was compiled from `d`, the entry at the warp's pc (the plain
                    // one when `w.ext` was clear, else the extended variant it selected; the
                    // selection is cleared above, as before an interpreted step), with `len`
                    // entries left in the turn and, for a head, as the turn's first
                    // instruction; its handlers are the AVX2 ones, and `ctx.jit` is only set
                    // when the host has the features (`RunOptions::translated`).
                    let r = unsafe {
                        f(w, &ctx.exec, out, ctx.prog.ops().as_ptr(), most - executed, ctx.prog.ext().as_ptr())
                    };
                    let n = r & jit::EXECUTED;
                    executed += n;
                    lanes += n * u64::from(w.mask.count_ones());
                    w.csr.instret += n;
                    if r & jit::STOPPED != 0 {
                        let pc = w.stop_pc;
                        return FastEnd { executed, lanes, pc, stopped: true };
                    }
                    if r & jit::TURN_OVER != 0 && !ctx.lone {
                        return FastEnd { executed, lanes, pc: w.pc, stopped: false };
                    }
                    continue;
                }
                w.ext = NO_EXT;
                if d.run > 1 {
                    // SAFETY: `d` is a plain entry of the program's text (a run is never an
                    // extended variant: those have `run == 0`), followed by `d.run - 1` more;
                    // `w.ext` was just cleared.
                    let (n, stop) = unsafe { run(w, d, ctx, table, most - executed, out) };
                    executed += n;
                    lanes += n * u64::from(w.mask.count_ones());
                    w.csr.instret += n;
                    if let Some(pc) = stop {
                        return FastEnd { executed, lanes, pc, stopped: true };
                    }
                    continue;
                }
                let h = handlers::handler(table, d);
                // SAFETY: `h` is `d`'s handler; the caller chose a table the host can run.
                unsafe { h(w, d, ctx, out) }
            }
            Err(e) if executed == 0 => {
                *out = Err(e);
                false
            }
            _ => return FastEnd { executed, lanes, pc, stopped: false },
        };
        executed += 1;
        lanes += u64::from(w.mask.count_ones());
        w.csr.instret += 1;
        if !next {
            return FastEnd { executed, lanes, pc, stopped: true };
        }
    }
}

/// How a pass of untraced turns ended ([`pass_fast_avx2`]).
pub struct PassEnd {
    /// The index in the run list of the warp whose turn stopped (its outcome in the caller's
    /// slot, see [`FastEnd`]), or the list's length when every turn of the pass ran on.
    pub ci: usize,
    /// The stopped turn's instructions and pc ([`FastEnd`]).
    pub executed: u64,
    pub pc: u32,
    /// Σ instructions and Σ active lanes over the pass's turns, the stopped one included.
    pub instructions: u64,
    pub lanes: u64,
}

/// One scheduler pass ([`pass_fast_avx2`]): from `run[ci]` on, each warp of `run` (indices into
/// `warps`) whose round (`rounds`) is `r` takes a turn of at most `most` instructions.
pub struct Pass<'p> {
    pub warps: &'p mut [Warp],
    pub run: &'p [usize],
    pub rounds: &'p mut [u64],
    pub ci: usize,
    pub r: u64,
    pub most: u64,
}

/// The turns of one scheduler pass, untraced and with no trap pending, in list order (a warp's
/// round advances by what it ran), until one stops ([`FastEnd::stopped`]). One call per pass
/// instead of one per turn: a shared instruction ends a turn, so a memory-bound kernel's turns
/// are a few instructions long and the call and the work-group runner's bookkeeping were a
/// third of a turn's cost.
#[inline(always)]
fn pass_table(
    p: Pass,
    ctx: &TurnCtx,
    table: &[[Handler; 16]; handlers::ROWS],
    out: &mut Result<Flow, Trap>,
) -> PassEnd {
    let Pass { warps, run, rounds, mut ci, r, most } = p;
    let (mut instructions, mut lanes) = (0u64, 0u64);
    while let Some(&wi) = run.get(ci) {
        if rounds[wi] == r {
            let end = turn_table(&mut warps[wi], most, ctx, table, out);
            instructions += end.executed;
            lanes += end.lanes;
            rounds[wi] += end.executed;
            if end.stopped {
                return PassEnd { ci, executed: end.executed, pc: end.pc, instructions, lanes };
            }
        }
        ci += 1;
    }
    PassEnd { ci, executed: 0, pc: 0, instructions, lanes }
}

/// An untraced pass ([`pass_table`]) through the baseline handlers.
#[inline(never)]
pub fn pass_fast_baseline(p: Pass, ctx: &TurnCtx, out: &mut Result<Flow, Trap>) -> PassEnd {
    pass_table(p, ctx, &handlers::BASELINE, out)
}

/// An untraced pass ([`pass_table`]) through the AVX2 handlers.
///
/// # Safety
/// The host CPU must have the features ([`super::simd::host_has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,lzcnt,bmi1,bmi2")]
#[inline(never)]
pub unsafe fn pass_fast_avx2(p: Pass, ctx: &TurnCtx, out: &mut Result<Flow, Trap>) -> PassEnd {
    pass_table(p, ctx, &handlers::AVX2, out)
}

/// Runs the straight-line run that starts at `d` ([`Decoded::run`]), at most `most` (≥ 1)
/// of its entries: stops before a scalar load or store after the first whose address other
/// warps may see or store to (so it runs in its round-robin place) and after an entry whose handler ends
/// the turn (`false`, its outcome in `out`; the pc then is that entry's). Returns the
/// entries executed (≥ 1) and, when the turn ends, the pc of the entry that ended it. Run
/// entries keep the mask, so the caller counts lanes for all of them at once. After a
/// prefix the warp runs the extended variant it selected (`w.ext`), as the turn loop would.
///
/// # Safety
/// `d` is an entry of the program's plain text (`ctx.prog.ops()`), with `d.run` entries
/// from it on, `w.ext` is clear, and the table's handlers are runnable on this host.
#[inline(always)]
unsafe fn run(
    w: &mut Warp,
    d: &Decoded,
    ctx: &Ctx,
    table: &[[Handler; 16]; handlers::ROWS],
    most: u64,
    out: &mut Result<Flow, Trap>,
) -> (u64, Option<u32>) {
    let n = u64::from(d.run).min(most);
    let first: *const Decoded = d;
    for k in 0..n {
        // SAFETY: `k < d.run`: the run's entries are consecutive in the text array.
        let plain = unsafe { &*first.add(k as usize) };
        // After a prefix (the run's previous entry): its variant.
        let e = if w.ext == NO_EXT { plain } else { ctx.prog.extended(w.ext) };
        if k > 0 && e.sharing.by_address() && !private(w, e, ctx) {
            return (k, None);
        }
        w.ext = NO_EXT;
        let pc = w.pc;
        // SAFETY: `e`'s handler; the caller chose a table the host can run.
        if !unsafe { handlers::handler(table, e)(w, e, ctx, out) } {
            return (k + 1, Some(pc));
        }
    }
    (n, None)
}

/// An untraced turn through the baseline handlers.
#[inline(never)]
pub fn turn_fast_baseline(w: &mut Warp, most: u64, ctx: &TurnCtx, out: &mut Result<Flow, Trap>) -> FastEnd {
    turn_table(w, most, ctx, &handlers::BASELINE, out)
}

/// An untraced turn through the AVX2 handlers.
///
/// # Safety
/// The host CPU must have the features ([`super::simd::host_has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,lzcnt,bmi1,bmi2")]
#[inline(never)]
pub unsafe fn turn_fast_avx2(w: &mut Warp, most: u64, ctx: &TurnCtx, out: &mut Result<Flow, Trap>) -> FastEnd {
    turn_table(w, most, ctx, &handlers::AVX2, out)
}

/// [`turn_impl`] compiled for the baseline target.
#[inline(never)]
pub fn turn_baseline<T: Tracer>(w: &mut Warp, wi: usize, most: u64, ctx: &Ctx, t: &mut T) -> TurnEnd {
    turn_impl(w, wi, most, ctx, t)
}

/// [`turn_impl`] compiled for AVX2, FMA and the bit instructions (`popcnt`, `lzcnt`, BMI).
///
/// # Safety
/// The host CPU must have those features ([`super::simd::host_has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,lzcnt,bmi1,bmi2")]
#[inline(never)]
pub unsafe fn turn_avx2<T: Tracer>(w: &mut Warp, wi: usize, most: u64, ctx: &Ctx, t: &mut T) -> TurnEnd {
    turn_impl(w, wi, most, ctx, t)
}
