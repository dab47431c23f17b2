//! Runs one work-group: its warps round-robin, one instruction per warp per turn, exactly like the
//! reference simulator (ventus-isa.md §9): barrier flags and counter, `endprg`, traps.

use super::exec::{self, Ctx, Flow};
use super::fault::{Fault, FaultKind, Trap};
use super::trace::Tracer;
use super::warp::{Csrs, Warp};
use super::{LaunchParams, RunOptions, TrapMode};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How often (in scheduler rounds) the watchdog and cancellation are checked.
const CHECK_EVERY: u64 = 4096;

/// Result of one work-group.
pub struct GroupStats {
    pub instructions: u64,
    pub lane_instructions: u64,
    pub divergent_branches: u64,
    pub barriers: u64,
}

/// Reusable per-host-thread warp storage.
#[derive(Default)]
pub struct WarpPool {
    warps: Vec<Warp>,
}

/// Initial CSRs of warp `w` of work-group `g` (driver-abi §2.3).
fn csrs(p: &LaunchParams, g: u32, w: u32) -> Csrs {
    let [nx, ny, _] = p.num_groups;
    Csrs {
        tid: w * p.threads_per_warp,
        numw: p.warps_per_group,
        numt: p.threads_per_warp,
        knl: p.metadata_addr,
        wgid: g,
        wid: w,
        lds: crate::abi::LDS_BASE,
        pds: p.pds_base,
        gid: [g % nx, (g / nx) % ny, g / (nx * ny)],
        ..Csrs::default()
    }
}

/// For an access fault, the nearest exact extent (buffers by their requested size; `__local`
/// extents only under the memory checker).
fn explain_miss(ctx: &Ctx, trap: &Trap) -> Option<Box<super::memcheck::Miss>> {
    let bytes = match trap.kind {
        FaultKind::MemCheck { bytes, .. } => u32::from(bytes),
        FaultKind::LoadAccess | FaultKind::StoreAccess => 1,
        _ => return None,
    };
    let addr = trap.addr?;
    let miss = match ctx.mem.extents() {
        Some(c) => c.explain(ctx.mem, addr, bytes),
        None => super::memcheck::MemCheck::default().explain(ctx.mem, addr, bytes),
    };
    miss.map(Box::new)
}

/// Runs work-group `g` to completion, in the copy of the interpreter compiled for the host
/// CPU's vector extensions when it has them ([`super::simd`]).
pub fn run_group<T: Tracer>(
    g: u32,
    p: &LaunchParams,
    opts: &RunOptions,
    launch_start: Instant,
    ctx: &Ctx,
    pool: &mut WarpPool,
    t: &mut T,
) -> Result<GroupStats, Fault> {
    #[cfg(target_arch = "x86_64")]
    if !opts.baseline_interpreter && super::simd::host_has_avx2() {
        // SAFETY: the host CPU has every feature `run_group_avx2` is compiled for (checked by
        // `host_has_avx2`), the only requirement of calling it.
        return unsafe { run_group_avx2(g, p, opts, launch_start, ctx, pool, t) };
    }
    run_group_impl(g, p, opts, launch_start, ctx, pool, t)
}

/// [`run_group_impl`] with the interpreter inlined and compiled for AVX2, FMA and the bit
/// instructions (`popcnt`, `lzcnt`, BMI): 32-lane loops use 256-bit vectors, `f32::mul_add`
/// is one instruction instead of a library call per lane, mask counts are one instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,lzcnt,bmi1,bmi2")]
fn run_group_avx2<T: Tracer>(
    g: u32,
    p: &LaunchParams,
    opts: &RunOptions,
    launch_start: Instant,
    ctx: &Ctx,
    pool: &mut WarpPool,
    t: &mut T,
) -> Result<GroupStats, Fault> {
    run_group_impl(g, p, opts, launch_start, ctx, pool, t)
}

/// The work-group runner behind [`run_group`].
#[inline(always)]
fn run_group_impl<T: Tracer>(
    g: u32,
    p: &LaunchParams,
    opts: &RunOptions,
    launch_start: Instant,
    ctx: &Ctx,
    pool: &mut WarpPool,
    t: &mut T,
) -> Result<GroupStats, Fault> {
    let numw = p.warps_per_group as usize;
    pool.warps.truncate(numw);
    for w in 0..numw {
        let c = csrs(p, g, w as u32);
        if let Some(warp) = pool.warps.get_mut(w) {
            warp.reset(p.start_pc, p.threads_per_warp, c, ctx.prog.reg_bounds());
        } else {
            pool.warps.push(Warp::new(p.start_pc, p.threads_per_warp, c, ctx.prog.reg_bounds()));
        }
        pool.warps[w].fflags_unread = !ctx.prog.reads_fflags();
    }
    if let Some(wi) = &p.work_items {
        let gid =
            [g % p.num_groups[0], (g / p.num_groups[0]) % p.num_groups[1], g / (p.num_groups[0] * p.num_groups[1])];
        for (w, warp) in pool.warps.iter_mut().enumerate() {
            warp.mask = wi.lane_mask(gid, w as u32, p.threads_per_warp);
        }
    }
    let warps = &mut pool.warps;
    let mut run: Vec<usize> = (0..numw).collect();
    // Barrier state: 0 = not arrived, 1 = arrived, 2 = finished.
    let mut flags = vec![0u8; numw];
    let mut nonzero = 0usize;
    let mut counter = 0usize;
    let mut instructions = 0u64;
    let mut lane_instructions = 0u64;
    let mut barriers = 0u64;
    let mut rounds = 0u64;
    let mut cur = 0usize;
    let fault = |w: &Warp, wi: usize, trap: Trap| Fault {
        kind: trap.kind,
        work_group: g,
        group_id: [
            g % p.num_groups[0],
            (g / p.num_groups[0]) % p.num_groups[1],
            g / (p.num_groups[0] * p.num_groups[1]),
        ],
        warp: wi as u32,
        lane: trap.lane,
        pc: w.pc,
        addr: trap.addr,
        instruction: ctx.prog.fetch(w.pc).and_then(|d| crate::isa::disasm::disassemble(d.word, w.pc)),
        miss: explain_miss(ctx, &trap),
        source: ctx.prog.source_location(w.pc),
    };
    let group_start = Instant::now();
    // The host-time watchdog measures time without progress: a work-group that stores to
    // global or local memory (or prints) is working, not spinning.
    let mut progress_at = group_start;
    let mut writes_seen = ctx.mem.shared_writes();
    let over = |start: Instant, now: Instant, seconds: u32| {
        seconds != 0 && now.duration_since(start) > Duration::from_secs(seconds.into())
    };
    if over(launch_start, group_start, opts.timeout_seconds) {
        let kind = FaultKind::Timeout { seconds: opts.timeout_seconds };
        return Err(fault(&warps[0], 0, Trap::new(kind)));
    }
    while !run.is_empty() {
        if cur >= run.len() {
            cur = 0;
            rounds += 1;
            if rounds % CHECK_EVERY == 0 {
                let now = Instant::now();
                let writes = ctx.mem.shared_writes();
                if writes != writes_seen {
                    writes_seen = writes;
                    progress_at = now;
                }
                let time_kind = if over(progress_at, now, opts.watchdog_seconds) {
                    Some(FaultKind::WatchdogTime { seconds: opts.watchdog_seconds })
                } else if over(launch_start, now, opts.timeout_seconds) {
                    Some(FaultKind::Timeout { seconds: opts.timeout_seconds })
                } else {
                    None
                };
                if let Some(kind) = time_kind {
                    let wi = run[0];
                    return Err(fault(&warps[wi], wi, Trap::new(kind)));
                }
                if opts.watchdog != 0 && instructions > opts.watchdog {
                    let wi = run[0];
                    let kind = FaultKind::Watchdog { instructions: opts.watchdog };
                    return Err(fault(&warps[wi], wi, Trap::new(kind)));
                }
                if opts.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                    let wi = run[0];
                    return Err(fault(&warps[wi], wi, Trap::new(FaultKind::Cancelled)));
                }
            }
        }
        let wi = run[cur];
        let w = &mut warps[wi];
        let pc = w.pc;
        // (A `match`, not a closure: a closure would be compiled once, outside the
        // AVX2 copy of this function.)
        let result = match exec::fetch(w, ctx.prog) {
            Ok(d) => {
                if T::ENABLED {
                    t.begin(wi as u32, pc, d.word);
                }
                exec::step(w, d, ctx, t)
            }
            Err(e) => Err(e),
        };
        instructions += 1;
        lane_instructions += w.mask.count_ones() as u64;
        w.csr.instret += 1;
        if let Ok(Flow::Next) = result {
            // The common case, first.
            if T::ENABLED {
                t.end();
            }
            cur += 1;
            continue;
        }
        // A host call runs here, with the hook and the work-group context at hand.
        let result = match result {
            Ok(Flow::HostCall(id)) => match ctx.prog.host_call(id) {
                Some(call) => {
                    let hook = opts.print_hook.as_deref();
                    super::hostcall::run(call, w, ctx.mem, hook, g, wi as u32).map(|()| Flow::Next)
                }
                None => Err(Trap::illegal(ctx.prog.fetch(pc).map_or(0, |d| d.word))),
            },
            r => r,
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
                } else {
                    w.pc = pc; // spin: the barrier re-executes on the warp's next turn
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
                run.remove(cur);
                continue;
            }
            Ok(Flow::Print(v)) => {
                if let Some(h) = &opts.print_hook {
                    h.on_print(g, wi as u32, v);
                }
            }
            Err(trap) => {
                let f = fault(w, wi, trap);
                return match opts.trap_mode {
                    TrapMode::Fault => Err(f),
                    TrapMode::EndWorkGroup => {
                        log::warn!("work-group ended by a trap (spike-compatible mode): {f}");
                        let divergent_branches = warps.iter().map(|w| w.divergent_branches).sum();
                        Ok(GroupStats { instructions, lane_instructions, divergent_branches, barriers })
                    }
                };
            }
        }
        if T::ENABLED {
            t.end();
        }
        cur += 1;
    }
    let divergent_branches = warps.iter().map(|w| w.divergent_branches).sum();
    Ok(GroupStats { instructions, lane_instructions, divergent_branches, barriers })
}
