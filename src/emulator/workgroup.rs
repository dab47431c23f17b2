//! Runs one work-group in the reference simulator's order (ventus-isa.md §9): round-robin,
//! instruction k of every warp in round k, warps in index order; barrier flags and counter,
//! `endprg`, traps.
//!
//! A warp's turn ([`super::turn`]) may run more than one instruction: after the first, the
//! warp's private instructions (untraced; see [`Sharing`](super::program::Sharing)), which no
//! other warp can observe. Turns are taken by round — each pass runs the warps whose round is
//! the lowest, in index order — so every shared instruction runs exactly in its round-robin
//! place. A trap of a later instruction of a turn is held (`pending`) until every earlier place
//! has run: an earlier trap of another warp is reported instead, and in spike-compatible mode
//! exactly the shared instructions before it have run.

use super::exec::{Ctx, Flow};
use super::fault::{Fault, FaultKind, Trap};
use super::memcheck::Explanation;
use super::trace::Tracer;
use super::turn::TurnCtx;
#[cfg(target_arch = "x86_64")]
use super::turn::{pass_fast_avx2, turn_avx2, turn_fast_avx2};
use super::turn::{pass_fast_baseline, turn_baseline, turn_fast_baseline};
use super::turn::{FastEnd, Pass, TurnEnd};
use super::warp::{Csrs, Warp};
use super::{LaunchParams, RunOptions, TrapMode};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How often (in scheduler rounds) the watchdog and cancellation are checked.
const CHECK_EVERY: u64 = 4096;
/// The most instructions one warp runs in one turn (untraced; see `run_group_impl`).
const TURN: u64 = 256;
/// The most instructions a lone warp ([`Ctx::lone`](super::exec::Ctx)) runs in one turn.
const LONE_TURN: u64 = 4096;

/// Time since an arbitrary start on the host's coarse monotonic clock (`CLOCK_MONOTONIC_COARSE`:
/// a memory read, resolution a few milliseconds), for the watchdog and the launch time-out,
/// whose limits are whole seconds (reading the precise clock at every work-group's start took
/// a few percent of a launch of many small work-groups).
pub fn coarse_now() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    if rc != 0 {
        // No coarse clock on this host: the precise one.
        // SAFETY: as above.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    }
    Duration::new(ts.tv_sec.max(0) as u64, ts.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// The coarse clock's resolution ([`coarse_now`] lags the true time by up to this much, so an
/// interval measured on it may read up to this much longer than it was).
pub fn coarse_resolution() -> Duration {
    static RES: once_cell::sync::Lazy<Duration> = once_cell::sync::Lazy::new(|| {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec for the call's duration.
        let rc = unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
        if rc != 0 {
            return Duration::from_millis(10);
        }
        Duration::new(ts.tv_sec.max(0) as u64, ts.tv_nsec.clamp(0, 999_999_999) as u32)
    });
    *RES
}

/// Whether more than `seconds` (0 = no limit) have passed between `start` and `now`, both read
/// from [`coarse_now`]: only once the interval exceeds the limit by the clock's resolution, so a
/// limit never fires early.
pub fn over_limit(start: Duration, now: Duration, seconds: u32) -> bool {
    seconds != 0 && now.saturating_sub(start) > Duration::from_secs(seconds.into()) + coarse_resolution()
}

/// The CPU time the calling host thread has used (`CLOCK_THREAD_CPUTIME_ID`, nanosecond
/// resolution), for the per-work-group budget: a work-group runs on one host thread from start
/// to end, so this measures its own work, unaffected by other processes competing for the CPU
/// (a loaded machine does not make a work-group look slower). A system call (~1 µs): read at
/// the watchdog's checks only, never per instruction or per short work-group.
pub fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        // No per-thread clock (never on Linux): the coarse wall clock.
        return coarse_now();
    }
    Duration::new(ts.tv_sec.max(0) as u64, ts.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// Whether a work-group that started at `start` and reads `now` on [`thread_cpu_now`] has used
/// more than `seconds` of CPU time (0 = no limit). The clock is exact, so the limit never fires
/// early.
pub fn over_cpu_budget(start: Duration, now: Duration, seconds: u32) -> bool {
    seconds != 0 && now.saturating_sub(start) > Duration::from_secs(seconds.into())
}

/// Result of one work-group.
pub struct GroupStats {
    pub instructions: u64,
    pub lane_instructions: u64,
    pub divergent_branches: u64,
    pub barriers: u64,
    /// Host CPU time of the work-group from its first watchdog check (after
    /// [`CHECK_EVERY`] rounds) to its end; zero for a work-group that ended before it (a few
    /// milliseconds at most).
    pub cpu: Duration,
}

/// Reusable per-host-thread warp storage.
#[derive(Default)]
pub struct WarpPool {
    warps: Vec<Warp>,
    run: Vec<usize>,
    rounds: Vec<u64>,
    flags: Vec<u8>,
    parking: Parking,
}

/// The round of a parked warp ([`run_group_impl`]): above every real one, so no pass runs it
/// and the lowest round is the other warps'.
const PARKED: u64 = u64::MAX;

/// The warps parked at a barrier ([`run_group_impl`]): a parked warp's round is [`PARKED`] and
/// `next[wi]` holds the round it would run next; `count` is how many are parked.
#[derive(Default)]
struct Parking {
    next: Vec<u64>,
    count: usize,
}

impl Parking {
    /// Empty, for a work-group of `numw` warps.
    fn reset(&mut self, numw: usize) {
        self.next.clear();
        self.next.resize(numw, 0);
        self.count = 0;
    }

    /// Parks warp `wi`, whose next round is `rounds[wi]`.
    fn park(&mut self, wi: usize, rounds: &mut [u64]) {
        self.next[wi] = rounds[wi];
        rounds[wi] = PARKED;
        self.count += 1;
    }

    /// Puts every parked warp back in the round-robin: a warp spinning at a barrier
    /// re-executes it in every round, so at place (`r`, run position `pos`) — that of the
    /// instruction warp `last` just ran, the last of its turn (its round is
    /// `rounds[last] - 1`) — it has spun through round `r` when it comes before `pos` in the
    /// run list, else through `r - 1`; its next round is the one after. Each spin is one
    /// instruction of the warp's active lanes, counted as the turn loop would
    /// ([`super::turn`]: instructions, lanes, `instret`). Returns the spins' instructions and
    /// lane instructions (none when no warp is parked).
    fn release(
        &mut self,
        warps: &mut [Warp],
        run: &[usize],
        rounds: &mut [u64],
        last: usize,
        pos: usize,
    ) -> (u64, u64) {
        if self.count == 0 {
            return (0, 0);
        }
        self.count = 0;
        let r = rounds[last] - 1;
        let (mut instructions, mut lanes) = (0, 0);
        for (p, &wi) in run.iter().enumerate() {
            if rounds[wi] != PARKED {
                continue;
            }
            let next = if p < pos { r + 1 } else { r }.max(self.next[wi]);
            let spins = next - self.next[wi];
            let w = &mut warps[wi];
            instructions += spins;
            lanes += spins * u64::from(w.mask.count_ones());
            w.csr.instret += spins;
            rounds[wi] = next;
        }
        (instructions, lanes)
    }

    /// The spins parked warps have run before round `r` (as [`Parking::release`] would count
    /// them at the start of a pass at `r`).
    fn spins(&self, run: &[usize], rounds: &[u64], r: u64) -> u64 {
        run.iter().filter(|&&wi| rounds[wi] == PARKED).map(|&wi| r.saturating_sub(self.next[wi])).sum()
    }
}

/// Initial CSRs of warp `w` of work-group `g` (driver-abi §2.3), whose id is `gid`.
fn csrs(p: &LaunchParams, g: u32, gid: [u32; 3], w: u32) -> Csrs {
    Csrs {
        tid: w * p.threads_per_warp,
        numw: p.warps_per_group,
        numt: p.threads_per_warp,
        knl: p.metadata_addr,
        wgid: g,
        wid: w,
        lds: crate::abi::LDS_BASE,
        pds: p.pds_base,
        gid,
        ..Csrs::default()
    }
}

/// For an access fault, the nearest exact extent (buffers by their requested size; `__local`
/// extents only under the memory checker); for an image access outside its image, the image.
fn explain_miss(ctx: &Ctx, trap: &Trap) -> Option<Box<Explanation>> {
    let addr = trap.addr?;
    let bytes = match trap.kind {
        FaultKind::MemCheck { bytes, .. } => u32::from(bytes),
        FaultKind::LoadAccess | FaultKind::StoreAccess => 1,
        FaultKind::ImageOutside { .. } => {
            return ctx.mem.extents().map(|c| Box::new(Explanation::Image(c.image(ctx.mem, addr))));
        }
        _ => return None,
    };
    let miss = match ctx.mem.extents() {
        Some(c) => c.explain(ctx.mem, addr, bytes),
        None => super::memcheck::MemCheck::default().explain(ctx.mem, addr, bytes),
    };
    miss.map(|m| Box::new(Explanation::Nearest(m)))
}

/// Runs work-group `g` to completion, in the copy of the interpreter compiled for the host
/// CPU's vector extensions when it has them ([`super::simd`]).
pub fn run_group<T: Tracer>(
    g: u32,
    p: &LaunchParams,
    opts: &RunOptions,
    launch_start: Duration,
    ctx: &TurnCtx,
    pool: &mut WarpPool,
    t: &mut T,
) -> Result<GroupStats, Fault> {
    #[cfg(target_arch = "x86_64")]
    if opts.avx2_interpreter() {
        return run_group_impl::<T, true>(g, p, opts, launch_start, ctx, pool, t);
    }
    run_group_impl::<T, false>(g, p, opts, launch_start, ctx, pool, t)
}

/// The work-group runner behind [`run_group`]; `AVX2`: turns run in [`turn_avx2`] (only
/// chosen when the host has the features).
fn run_group_impl<T: Tracer, const AVX2: bool>(
    g: u32,
    p: &LaunchParams,
    opts: &RunOptions,
    launch_start: Duration,
    ctx: &TurnCtx,
    pool: &mut WarpPool,
    t: &mut T,
) -> Result<GroupStats, Fault> {
    let numw = p.warps_per_group as usize;
    let [nx, ny, _] = p.num_groups;
    let gid = [g % nx, (g / nx) % ny, g / (nx * ny)];
    pool.warps.truncate(numw);
    let bounds = p.reg_bounds.unwrap_or_else(|| ctx.prog.reg_bounds());
    for w in 0..numw {
        let c = csrs(p, g, gid, w as u32);
        if let Some(warp) = pool.warps.get_mut(w) {
            warp.reset(p.start_pc, p.threads_per_warp, c, bounds);
        } else {
            pool.warps.push(Warp::new(p.start_pc, p.threads_per_warp, c, bounds));
        }
        pool.warps[w].fflags_unread = !ctx.prog.reads_fflags();
    }
    if let Some(wi) = &p.work_items {
        let warps = &mut pool.warps;
        wi.lane_masks(gid, p.threads_per_warp, 0..numw as u32, |w, m| warps[w as usize].mask = m);
    }
    let warps = &mut pool.warps;
    // Warps still running, in index order, and the round each one is at: round-robin runs
    // instruction k of every warp in round k, warps in index order (finished warps drop out).
    let run = &mut pool.run;
    run.clear();
    run.extend(0..numw);
    let rounds = &mut pool.rounds;
    rounds.clear();
    rounds.resize(numw, 0);
    // Barrier state: 0 = not arrived, 1 = arrived, 2 = finished.
    let flags = &mut pool.flags;
    flags.clear();
    flags.resize(numw, 0);
    // Untraced, a warp waiting at a barrier is parked instead of re-executing it every round:
    // its round is `PARKED` and `parking` holds the round it would run next; when the barrier
    // releases (or a trap is held or reported) `release` counts the spins it would have run and
    // puts it back at its place, where it re-executes the barrier as before. The instructions,
    // lanes, `instret` and every later place are exactly a spinning warp's. While every other
    // warp is parked, the one left runs as a lone warp (every instruction private, long turns):
    // its accesses have no other warp's to keep an order with until it reaches the barrier or
    // ends, and the round of the instruction that ends its turn is its own count.
    let parking = &mut pool.parking;
    parking.reset(numw);
    let lone_ctx = TurnCtx {
        exec: Ctx { lone: true, ..ctx.exec },
        #[cfg(target_arch = "x86_64")]
        jit: ctx.jit,
    };
    let mut nonzero = 0usize;
    let mut counter = 0usize;
    let mut instructions = 0u64;
    let mut lane_instructions = 0u64;
    let mut barriers = 0u64;
    let fault = |w: &Warp, wi: usize, trap: Trap| Fault {
        kind: trap.kind,
        work_group: g,
        group_id: gid,
        warp: wi as u32,
        // A scalar instruction's trap with one active lane is that lane's (a divergent branch's
        // uniform store, one-lane warps).
        lane: trap
            .lane
            .or_else(|| (trap.kind.of_instruction() && w.mask.count_ones() == 1).then(|| w.mask.trailing_zeros())),
        pc: w.pc,
        addr: trap.addr,
        instruction: ctx.prog.fetch(w.pc).and_then(|d| crate::isa::disasm::disassemble(d.word, w.pc)),
        miss: explain_miss(ctx, &trap),
        source: ctx.prog.source_location(w.pc),
    };
    let group_start = coarse_now();
    // The work-group's CPU-time budget counts from the first check: reading the thread's CPU
    // clock costs a system call, which a short work-group never pays.
    let mut cpu_start: Option<Duration> = None;
    let over = over_limit;
    if over(launch_start, group_start, opts.timeout_seconds) {
        let kind = FaultKind::Timeout { seconds: opts.timeout_seconds };
        return Err(fault(&warps[0], 0, Trap::new(kind)));
    }
    // A turn runs one instruction, then (untraced) the warp's following instructions up to the
    // next one shared with other warps or the host (see `Decoded::sharing`), at most
    // `TURN` in all: those change only the warp's own state, so running them ahead of the other
    // warps' turns is invisible, while every shared instruction still runs in its round-robin
    // place. A trap ahead of its place waits (`pending`) until every earlier place has run: an
    // earlier trap of another warp wins, and the same shared instructions have run.
    // A lone warp (no other warp to keep an order with) takes longer turns: fewer returns to
    // this loop, more iterations of a compiled loop per call.
    let turn = if T::ENABLED {
        1
    } else if ctx.lone {
        LONE_TURN
    } else {
        TURN
    };
    // The outcome of the instruction that ended the latest turn (see `FastEnd`).
    let mut out: Result<Flow, Trap> = Ok(Flow::Next);
    let mut pending: Option<(u64, usize, Fault)> = None;
    let mut next_check = CHECK_EVERY;
    let report =
        |f: Fault, instructions: u64, lane_instructions: u64, barriers: u64, warps: &[Warp]| match opts.trap_mode {
            TrapMode::Fault => Err(f),
            TrapMode::EndWorkGroup => {
                log::warn!("work-group ended by a trap (spike-compatible mode): {f}");
                let divergent_branches = warps.iter().map(|w| w.divergent_branches).sum();
                Ok(GroupStats { instructions, lane_instructions, divergent_branches, barriers, cpu: Duration::ZERO })
            }
        };
    // Each pass runs the round furthest behind.
    while let Some(r) = run.iter().map(|&wi| rounds[wi]).min() {
        debug_assert!(r != PARKED, "a barrier with every running warp parked");
        if r >= next_check {
            next_check = r + CHECK_EVERY;
            let now = coarse_now();
            let cpu = thread_cpu_now();
            let started = *cpu_start.get_or_insert(cpu);
            let kind = if over_cpu_budget(started, cpu, opts.watchdog_seconds) {
                Some(FaultKind::WatchdogTime { seconds: opts.watchdog_seconds })
            } else if over(launch_start, now, opts.timeout_seconds) {
                Some(FaultKind::Timeout { seconds: opts.timeout_seconds })
            } else if opts.watchdog != 0 && instructions + parking.spins(run, rounds, r) > opts.watchdog {
                Some(FaultKind::Watchdog { instructions: opts.watchdog })
            } else if opts.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                Some(FaultKind::Cancelled)
            } else {
                None
            };
            if let Some(kind) = kind {
                let wi = run[0];
                return Err(fault(&warps[wi], wi, Trap::new(kind)));
            }
        }
        let mut ran = false;
        let mut ci = 0;
        while ci < run.len() {
            let (wi, n, pc);
            if !T::ENABLED && pending.is_none() {
                // The common case: the pass's turns in one call, up to one that stops. A warp
                // whose every companion is parked runs as a lone one: no other warp has a
                // place before the barrier it is heading for. (Only then: a warp left alone by
                // companions that ended gains nothing measurable as a lone one. It lost up to
                // 50 % in session 39, when a lone warp's scalar loads skipped the sharing check
                // that remembers read-only blocks and all went through the handler; loads now
                // remember them — `MemView::load`.)
                let alone = parking.count > 0 && parking.count + 1 == run.len();
                let (c, most) = if alone { (&lone_ctx, LONE_TURN) } else { (ctx, turn) };
                let pass = Pass { warps, run, rounds, ci, r, most };
                let e = match AVX2 {
                    // SAFETY: `AVX2` is only set when the host has the features (`run_group`).
                    #[cfg(target_arch = "x86_64")]
                    true => unsafe { pass_fast_avx2(pass, c, &mut out) },
                    _ => pass_fast_baseline(pass, c, &mut out),
                };
                instructions += e.instructions;
                lane_instructions += e.lanes;
                ran |= e.instructions > 0;
                ci = e.ci;
                let Some(&w) = run.get(ci) else { break };
                (wi, n, pc) = (w, e.executed, e.pc);
            } else {
                wi = run[ci];
                if rounds[wi] != r {
                    ci += 1;
                    continue;
                }
                let most = match &pending {
                    None => turn,
                    // Only places before a pending trap's may run.
                    Some((at, pw, _)) => match if wi < *pw { Some(*at) } else { at.checked_sub(1) } {
                        Some(last) if r <= last => (last - r).saturating_add(1).min(turn),
                        _ => {
                            ci += 1;
                            continue;
                        }
                    },
                };
                ran = true;
                let w = &mut warps[wi];
                let end = match AVX2 {
                    // SAFETY: `AVX2` is only set when the host has the features (`run_group`).
                    #[cfg(target_arch = "x86_64")]
                    true if !T::ENABLED => unsafe { turn_fast_avx2(w, most, ctx, &mut out) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as above.
                    true => traced_end(unsafe { turn_avx2(w, wi, most, ctx, t) }, &mut out),
                    _ if !T::ENABLED => turn_fast_baseline(w, most, ctx, &mut out),
                    _ => traced_end(turn_baseline(w, wi, most, ctx, t), &mut out),
                };
                (n, pc) = (end.executed, end.pc);
                lane_instructions += end.lanes;
                instructions += n;
                rounds[wi] += n;
                if !end.stopped {
                    // The common case, first: the outcome is `Ok(Flow::Next)`.
                    ci += 1;
                    continue;
                }
            }
            let w = &mut warps[wi];
            // The outcome, variant by variant (see `FastEnd`); a trap is taken out of the slot.
            // A host call runs here, with the hook and the work-group context at hand.
            let result = match &out {
                Ok(Flow::Next) => Ok(Flow::Next),
                Ok(Flow::Barrier) => Ok(Flow::Barrier),
                Ok(Flow::Endprg) => Ok(Flow::Endprg),
                Ok(Flow::Print(v)) => Ok(Flow::Print(*v)),
                Err(_) => std::mem::replace(&mut out, Ok(Flow::Next)),
                // A traced run executes the code the call stands for (the record for this pc
                // is open; the word is the same); so does an untraced one whose call on
                // registers declines (a math built-in on a NaN, say).
                &Ok(Flow::HostCall(id)) => match ctx.prog.host_call(id) {
                    Some(call) if !T::ENABLED || call.traced_natively() => {
                        let hook = opts.print_hook.as_deref();
                        match super::hostcall::run(call, w, ctx.mem, hook, g, wi as u32) {
                            Ok(true) => Ok(Flow::Next),
                            Ok(false) => super::exec::host_call_code(w, id, ctx, t),
                            Err(e) => Err(e),
                        }
                    }
                    _ => super::exec::host_call_code(w, id, ctx, t),
                },
            };
            match result {
                Ok(Flow::Next) | Ok(Flow::HostCall(_)) => {}
                Ok(Flow::Barrier) => {
                    if flags[wi] == 0 {
                        nonzero += 1;
                    }
                    flags[wi] = 1;
                    if nonzero == numw {
                        if counter < numw - 1 {
                            counter += 1;
                        } else {
                            barriers += 1;
                            for f in flags.iter_mut().filter(|f| **f == 1) {
                                *f = 0;
                                nonzero -= 1;
                            }
                            counter = 0;
                        }
                        let (i, l) = parking.release(warps, run, rounds, wi, ci);
                        (instructions, lane_instructions) = (instructions + i, lane_instructions + l);
                    } else {
                        w.pc = pc; // spin: the barrier re-executes on the warp's next turn
                        if !T::ENABLED && pending.is_none() {
                            parking.park(wi, rounds);
                        }
                    }
                }
                Ok(Flow::Endprg) => {
                    if flags[wi] == 0 {
                        nonzero += 1;
                    }
                    flags[wi] = 2;
                    w.done = true;
                    if T::ENABLED {
                        t.end();
                    }
                    if nonzero == numw {
                        let (i, l) = parking.release(warps, run, rounds, wi, ci);
                        (instructions, lane_instructions) = (instructions + i, lane_instructions + l);
                    }
                    run.remove(ci);
                    continue;
                }
                Ok(Flow::Print(v)) => {
                    if let Some(h) = &opts.print_hook {
                        h.on_print(g, wi as u32, v);
                    }
                }
                Err(trap) => {
                    let f = fault(w, wi, trap);
                    let (i, l) = parking.release(warps, run, rounds, wi, ci);
                    (instructions, lane_instructions) = (instructions + i, lane_instructions + l);
                    if n == 1 {
                        // At its place: every earlier place has run and none trapped.
                        return report(f, instructions, lane_instructions, barriers, warps);
                    }
                    pending = Some((r + n - 1, wi, f));
                    run.remove(ci);
                    continue;
                }
            }
            if T::ENABLED {
                t.end();
            }
            ci += 1;
        }
        if !ran {
            // Only places after the pending trap's are left.
            break;
        }
    }
    debug_assert_eq!(parking.count, 0, "a warp still parked at the work-group's end");
    if let Some((_, _, f)) = pending {
        return report(f, instructions, lane_instructions, barriers, warps);
    }
    if cfg!(debug_assertions) && g == 0 {
        warps.iter().for_each(Warp::check_bounds);
    }
    let divergent_branches = warps.iter().map(|w| w.divergent_branches).sum();
    let cpu = cpu_start.map_or(Duration::ZERO, |s| thread_cpu_now().saturating_sub(s));
    Ok(GroupStats { instructions, lane_instructions, divergent_branches, barriers, cpu })
}

/// A traced turn's end as an untraced one's: its outcome, when not `Ok(Flow::Next)`, in `out`.
#[inline(always)]
fn traced_end(e: TurnEnd, out: &mut Result<Flow, Trap>) -> FastEnd {
    let stopped = !matches!(e.result, Ok(Flow::Next));
    if stopped {
        *out = e.result;
    }
    FastEnd { executed: e.executed, lanes: e.lanes, pc: e.pc, stopped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_never_fire_before_they_have_passed() {
        let (start, res) = (Duration::from_secs(100), coarse_resolution());
        assert!(res > Duration::ZERO && res < Duration::from_secs(1), "{res:?}");
        // An interval that reads exactly one second on the coarse clock may have been shorter.
        assert!(!over_limit(start, start + Duration::from_secs(1), 1));
        assert!(!over_limit(start, start + Duration::from_secs(1) + res, 1));
        assert!(over_limit(start, start + Duration::from_secs(1) + res + Duration::from_nanos(1), 1));
        assert!(!over_limit(start, start + Duration::from_secs(1000), 0), "0 = no limit");
        assert!(!over_cpu_budget(start, start + Duration::from_secs(30), 30));
        assert!(over_cpu_budget(start, start + Duration::from_secs(30) + Duration::from_nanos(1), 30));
        assert!(!over_cpu_budget(start, start + Duration::from_secs(1000), 0), "0 = no limit");
    }

    #[test]
    fn the_thread_cpu_clock_counts_this_threads_work_only() {
        let a = thread_cpu_now();
        std::thread::sleep(Duration::from_millis(50));
        let b = thread_cpu_now();
        assert!(b >= a);
        assert!(b - a < Duration::from_millis(40), "sleeping used {:?} of CPU time", b - a);
        let mut x = 0u64;
        while thread_cpu_now() - b < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(x > 0);
    }
}
