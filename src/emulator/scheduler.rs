//! Distributes work-groups over host threads. Each thread ("slot") owns an LDS window, a program
//! window (its writable segments hold the program's contents at the start of every work-group,
//! as the reference reloads the program: reloaded when a work-group wrote them) and a
//! private-memory overlay; work-group ids are claimed from a shared counter in linear order, a
//! few at a time. The fault reported is the one of the lowest work-group id: after a fault each
//! thread still runs the work-groups of its claim below the lowest faulting one, so every
//! work-group below it runs and the report does not depend on timing or the thread count. A
//! launch on N threads runs on the calling thread and N − 1 threads of a persistent pool (no
//! thread is created per launch), kept off the calling thread's CPU ([`affinity`]).

use super::affinity;
use super::exec::Ctx;
use super::fault::Fault;
use super::memory::{DeviceMemory, LdsMap, MemView, Region, Space};
use super::program::Program;
use super::trace::{NoTrace, Recorder, Tracer};
use super::turn::TurnCtx;
use super::workgroup::{run_group, WarpPool};
use super::{config::Config, LaunchError, LaunchParams, RunOptions};
use crate::abi;
use crate::emulator::commit_log::CommitRecord;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Commit records per work-group, in work-group order.
pub type GroupTraces = Vec<(u32, Vec<CommitRecord>)>;

/// Counters of a finished launch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStats {
    pub work_groups: u64,
    /// Warp instructions executed (barrier spins included).
    pub instructions: u64,
    /// Σ active lanes over executed instructions ("thread instructions").
    pub lane_instructions: u64,
    /// Vector branches that split a warp (some active lanes taken, some not).
    pub divergent_branches: u64,
    /// Work-group barriers completed (each counts once per work-group).
    pub barriers: u64,
    /// Bytes loaded, stored or updated atomically, by address space.
    pub global_bytes: u64,
    pub local_bytes: u64,
    pub private_bytes: u64,
    pub elapsed: Duration,
    /// The host threads the launch ran on (at most [`RunOptions::threads`], at most one per
    /// work-group).
    pub threads: u32,
    /// The most host CPU time one work-group used (counted from its first watchdog check, a
    /// few thousand rounds in, so work-groups shorter than a few milliseconds read zero) — what the per-work-group budget (`VENTUS_WATCHDOG_SECONDS`) is compared with.
    pub longest_group: Duration,
}

/// One host thread's private windows and warp storage. Slots outlive launches: a finished
/// launch returns its slots to [`SLOTS`] and the next one takes them back zeroed ([`Slot::take`]),
/// so a small launch does not map, fault in and unmap 512 MiB of windows per host thread.
struct Slot {
    lds: Region,
    /// The part of the LDS window the last launch on this slot could write (accesses outside
    /// its map fault), which is all a reuse has to zero.
    lds_used: LdsMap,
    program: Region,
    /// [`Program::id`] of the program whose read-only pages the program window holds (0: none).
    program_id: u64,
    private: Option<Region>,
    /// The last launch on this slot wrote to `lds` / `private` (otherwise they still hold
    /// only zeros and need no clearing).
    lds_dirty: bool,
    private_dirty: bool,
    pool: WarpPool,
}

/// Idle slots (at most [`MAX_IDLE_SLOTS`]).
static SLOTS: Mutex<Vec<Slot>> = Mutex::new(Vec::new());
const MAX_IDLE_SLOTS: usize = 64;

impl Slot {
    /// A slot for launch `p`: an idle one, zeroed, or a new one.
    fn take(p: &LaunchParams, prog: &Program) -> Slot {
        let private_size = p.private_bytes_per_thread as u64 * p.warps_per_group as u64 * p.threads_per_warp as u64;
        let private_size = (p.pds_base != 0 && private_size > 0 && p.pds_base as u64 + private_size <= 1 << 32)
            .then(|| private_size.min(u32::MAX as u64 & !3) as u32);
        let idle = SLOTS.lock().pop();
        let mut slot = match idle {
            Some(mut slot) => {
                if slot.lds_dirty {
                    let used = slot.lds_used;
                    slot.lds.reset_range(abi::LDS_BASE, used.low_end);
                    slot.lds.reset_range(used.high_start, u32::MAX);
                }
                slot
            }
            None => Slot {
                lds: Region::zeroed(abi::LDS_BASE, abi::LDS_SIZE),
                lds_used: LdsMap::WHOLE,
                program: Region::zeroed(abi::PROGRAM_BASE, abi::PROGRAM_SIZE),
                program_id: 0,
                private: None,
                lds_dirty: false,
                private_dirty: false,
                pool: WarpPool::default(),
            },
        };
        // Read-only pages cannot change (stores there fault), so they are loaded once per slot
        // and program; writable ones before the launch's first work-group on the slot and
        // after every work-group that wrote them (`load_writable`).
        if slot.program_id != prog.id() {
            slot.program.reset(abi::PROGRAM_BASE);
            for s in prog.segments().iter().filter(|s| !s.writable) {
                slot.program.write_bytes(s.vaddr, &s.data);
                let filled = s.data.len() as u32;
                if s.mem_size > filled {
                    slot.program.fill_zero(s.vaddr + filled, s.mem_size - filled);
                }
            }
            slot.program_id = prog.id();
        }
        slot.lds_used = p.lds_map;
        slot.private = match (slot.private.take(), private_size) {
            (Some(mut r), Some(n)) if r.size() == (n.max(4) + 3) & !3 => {
                if slot.private_dirty {
                    r.reset(p.pds_base);
                } else {
                    r.rebase(p.pds_base);
                }
                Some(r)
            }
            (_, n) => n.map(|n| Region::zeroed(p.pds_base, n)),
        };
        slot
    }

    /// Returns the slot for later launches.
    fn give_back(self) {
        let mut idle = SLOTS.lock();
        if idle.len() < MAX_IDLE_SLOTS {
            idle.push(self);
        }
    }
    /// Reloads the writable segments of the program window, as the reference reloads the
    /// program before every work-group: their data, then zeros to their memory size.
    fn load_writable(&self, prog: &Program) {
        for s in prog.segments().iter().filter(|s| s.writable) {
            self.program.write_bytes(s.vaddr, &s.data);
            let filled = s.data.len() as u32;
            if s.mem_size > filled {
                self.program.fill_zero(s.vaddr + filled, s.mem_size - filled);
            }
        }
    }
}

/// A persistent pool of `n` emulator threads (`ventus-emu-<i>`), created on first use and kept
/// for the process: a launch does not create threads. One pool per size and first thread
/// (launches may ask for different thread counts through [`RunOptions::threads`], and
/// sub-devices own disjoint shares through [`RunOptions::first_thread`]); a host with `T`
/// threads has at most `T²/2` such shares, and only a few are ever used.
/// `None` if the threads cannot be started.
fn helpers(n: usize, first: usize) -> Option<Arc<Helpers>> {
    /// (threads, first thread) → pool.
    type Pools = Vec<((usize, usize), Arc<Helpers>)>;
    static POOLS: Mutex<Pools> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock();
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == (n, first)) {
        return Some(p.clone());
    }
    let tids = Arc::new(Mutex::new(Vec::new()));
    let t = tids.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("ventus-emu-{}", i + 1))
        .start_handler(move |_| t.lock().push(affinity::this_thread()))
        .build();
    match pool {
        Ok(pool) => {
            // The threads record their ids as they start: wait for them (once per process),
            // so that the first launch places them too.
            let start = Instant::now();
            while tids.lock().len() < n && start.elapsed() < Duration::from_millis(100) {
                std::thread::sleep(Duration::from_micros(50));
            }
            let h = Arc::new(Helpers { pool, tids });
            pools.push(((n, first), h.clone()));
            Some(h)
        }
        Err(e) => {
            log::warn!("cannot start {n} emulator threads ({e}): running on one");
            None
        }
    }
}

/// A pool of helper threads and their kernel thread ids (for [`affinity`]).
struct Helpers {
    pool: rayon::ThreadPool,
    tids: Arc<Mutex<Vec<affinity::Tid>>>,
}

fn validate(p: &LaunchParams) -> Result<u64, LaunchError> {
    if !(1..=32).contains(&p.threads_per_warp) {
        return Err(LaunchError::BadWarpWidth(p.threads_per_warp));
    }
    let n = p.num_groups.iter().map(|&x| x as u64).product::<u64>();
    if n == 0 || p.warps_per_group == 0 {
        return Err(LaunchError::EmptyLaunch);
    }
    if n > u32::MAX as u64 {
        return Err(LaunchError::TooManyGroups);
    }
    Ok(n)
}

fn run_with<T: Tracer + Send, F: Fn() -> T + Sync>(
    mem: &DeviceMemory,
    prog: &Program,
    p: &LaunchParams,
    opts: &RunOptions,
    make_tracer: F,
) -> (Result<RunStats, LaunchError>, Vec<(u32, T)>) {
    let groups = match validate(p) {
        Ok(n) => n,
        Err(e) => return (Err(e), Vec::new()),
    };
    let start = Instant::now();
    let start_coarse = super::workgroup::coarse_now();
    let threads = if opts.threads == 0 { Config::get().threads } else { opts.threads };
    let workers = threads.clamp(1, groups.min(1024) as usize);
    // A claim of work-groups: about 1/64 of a worker's share, at most 16 (a worker that
    // finishes early then waits for at most 16 work-groups of another's).
    let chunk = (groups / (64 * workers as u64)).clamp(1, 16);
    let global = mem.snapshot();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let first_fault: Mutex<Option<Fault>> = Mutex::new(None);
    let totals = Mutex::new(RunStats::default());
    let traces: Mutex<Vec<(u32, T)>> = Mutex::new(Vec::new());
    let ran = AtomicU32::new(0);
    let worker = || {
        ran.fetch_add(1, Ordering::Relaxed);
        let mut slot = Slot::take(p, prog);
        let mut pool = std::mem::take(&mut slot.pool);
        let view = MemView::new(&slot.lds, &slot.program, slot.private.as_ref(), &global)
            .with_lds_map(p.lds_map)
            .with_program_pages(prog.pages())
            .with_extents(p.extents.as_deref(), opts.memcheck)
            .with_wide_copies(opts.avx2_interpreter());
        let ctx = TurnCtx {
            exec: Ctx { prog, mem: &view, lone: p.warps_per_group == 1 },
            #[cfg(target_arch = "x86_64")]
            jit: if opts.translated() { super::jit::Jit::of(prog) } else { None },
        };
        let mut local = RunStats::default();
        // Work-groups are claimed `chunk` at a time (each claim an atomic add on a line the
        // workers share), in linear order within a claim. After a fault no worker claims
        // more, but each still runs the work-groups of its claim below the lowest faulting
        // one, as when they were claimed one by one: every work-group below it runs, so the
        // fault reported is the same at any thread count. The writable segments are reloaded
        // before a work-group only when code wrote the program window since the last reload
        // (the first work-group of the launch always loads them).
        let (mut g, mut end) = (0, 0);
        let mut fresh = false;
        loop {
            // Acquire: the fault recorded before `stop` was set is seen here.
            if stop.load(Ordering::Acquire) {
                let lowest = first_fault.lock().as_ref().map_or(0, |f| u64::from(f.work_group));
                if g == end || g >= lowest {
                    break;
                }
            }
            if g == end {
                g = next.fetch_add(chunk, Ordering::Relaxed);
                end = (g + chunk).min(groups);
            }
            if g >= groups {
                break;
            }
            if !fresh || view.take_program_written() {
                slot.load_writable(prog);
                fresh = true;
            }
            let mut tracer = make_tracer();
            match run_group(g as u32, p, opts, start_coarse, &ctx, &mut pool, &mut tracer) {
                Ok(s) => {
                    local.work_groups += 1;
                    local.instructions += s.instructions;
                    local.lane_instructions += s.lane_instructions;
                    local.divergent_branches += s.divergent_branches;
                    local.barriers += s.barriers;
                    local.longest_group = local.longest_group.max(s.cpu);
                }
                Err(f) => {
                    let mut ff = first_fault.lock();
                    if ff.as_ref().is_none_or(|old| f.work_group < old.work_group) {
                        *ff = Some(f);
                    }
                    stop.store(true, Ordering::Release);
                }
            }
            if T::ENABLED {
                traces.lock().push((g as u32, tracer));
            }
            g += 1;
        }
        let mut t = totals.lock();
        t.work_groups += local.work_groups;
        t.instructions += local.instructions;
        t.lane_instructions += local.lane_instructions;
        t.divergent_branches += local.divergent_branches;
        t.barriers += local.barriers;
        t.longest_group = t.longest_group.max(local.longest_group);
        t.global_bytes += view.bytes_moved(Space::Global);
        t.local_bytes += view.bytes_moved(Space::Local);
        t.private_bytes += view.bytes_moved(Space::Private);
        drop(t);
        slot.lds_dirty = view.lds_written();
        slot.private_dirty = view.private_written();
        slot.pool = pool;
        slot.give_back();
    };
    if workers == 1 {
        worker();
    } else {
        // The calling thread is one of the workers; the others come from a persistent pool
        // (without one, the calling thread runs every work-group).
        match helpers(workers - 1, opts.first_thread) {
            Some(h) => h.pool.in_place_scope(|s| {
                // Wake-up placement would often queue a helper on this thread's CPU.
                affinity::keep_helpers_off_this_cpu(&h.tids.lock());
                for _ in 1..workers {
                    s.spawn(|_| worker());
                }
                worker();
            }),
            None => worker(),
        }
    }
    let mut traces = traces.into_inner();
    traces.sort_by_key(|(g, _)| *g);
    if let Some(f) = first_fault.into_inner() {
        return (Err(f.into()), traces);
    }
    let mut stats = totals.into_inner();
    stats.elapsed = start.elapsed();
    stats.threads = ran.into_inner();
    (Ok(stats), traces)
}

/// Runs a launch (fast path, no tracing).
pub fn run(mem: &DeviceMemory, prog: &Program, p: &LaunchParams, opts: &RunOptions) -> Result<RunStats, LaunchError> {
    run_with(mem, prog, p, opts, || NoTrace).0
}

/// Runs a launch recording a commit trace per work-group (in work-group order). On a fault the
/// traces recorded so far are returned with the error.
pub fn run_traced(
    mem: &DeviceMemory,
    prog: &Program,
    p: &LaunchParams,
    opts: &RunOptions,
) -> (Result<RunStats, LaunchError>, GroupTraces) {
    let (r, traces) = run_with(mem, prog, p, opts, Recorder::default);
    (r, traces.into_iter().map(|(g, t)| (g, t.records)).collect())
}
