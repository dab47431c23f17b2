//! The device seam's launch: one path from a loaded [`Executable`], an [`NdRange`] and packed
//! arguments to a completed (or stopped) run, for every user of the device — the OpenCL runtime,
//! `ventus-run elf`, the compiler tests and the benchmarks.
//!
//! Contract:
//! * [`Launch`] names the kernel by its [`KernelDef`] in the executable, the NDRange, the packed
//!   arguments ([`ArgBuffer`], packed once by the caller — the OpenCL runtime at enqueue, where
//!   it also checks that they fit), the program-scope variables' block (the hidden last
//!   argument, [`crate::abi::globals`]) and the launch's [`Printer`].
//! * [`run`] stages the launch, runs it on the backend with [`LaunchOptions`] and returns the
//!   backend's counters as [`LaunchStats`]. A run that stops (a fault, the watchdog, the
//!   timeout, a cancel) is a [`LaunchError::Stopped`] whose message names work-group, warp,
//!   lane, pc, instruction, source line and address, and the work-item of a one-lane fault in
//!   OpenCL terms ([`WorkItem`]); a backend panic is [`LaunchError::Panicked`] — the process and
//!   the device memory stay usable either way.
//! * Nothing here names a backend type: a second backend (e.g. the official simulator loaded
//!   as a shared library) is a sibling of [`super::emulated`], chosen inside this module.

use super::emulated::{self, DeviceError, KernelLaunch};
use super::executable::{Executable, KernelDef};
use super::memory::{Memory, MemoryError};
use super::print::Printer;
use crate::abi::launch::{local_id, ArgBuffer, ArgError, NdRange};
use crate::emulator::{LaunchError as RunError, RunOptions, RunStats, TrapMode};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// One launch of a kernel of a loaded executable.
pub struct Launch<'a> {
    pub exec: &'a Executable,
    pub kernel: &'a KernelDef,
    pub range: NdRange,
    /// The packed arguments, without the hidden globals pointer ([`Launch::globals`] adds it).
    pub args: &'a ArgBuffer,
    /// The program-scope variables' block ([`Executable::stage_globals`]); `None` when the
    /// program has none.
    pub globals: Option<u32>,
    /// Lanes per warp (`CSR_NUMT`).
    pub threads_per_warp: u32,
    /// OpenCL semantics (lanes that are not work-items start inactive); `false`: every lane of
    /// every warp runs, as on the reference stack (`ventus-run`, official traces).
    pub mask_lanes: bool,
    /// Where printf output goes; `None`: the launch has no print buffer.
    pub printer: Option<&'a Printer>,
    /// How the device groups the work-items.
    pub grouping: Grouping,
}

/// How the device groups a launch's work-items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Grouping {
    /// As the NDRange says.
    #[default]
    AsGiven,
    /// In work-groups of `local` work-items, which the kernel cannot tell: it is grouping-free
    /// ([`crate::abi::kernel_info::KernelInfo::grouping_free`]), or — `single_item` — the
    /// NDRange's work-groups have one work-item each and the launch runs the kernel's
    /// single-item variant ([`KernelDef::single_item_entry`]; without one, the kernel as
    /// given). Results are the same; the statistics count the device's work-groups; a fault
    /// names the NDRange's work-group and local id of the work-item, and the device's
    /// grouping (its warp and lane are the device's).
    Regrouped { local: [u32; 3], single_item: bool },
}

/// What the device does when an instruction traps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrapPolicy {
    /// Stop the launch and report where (default).
    #[default]
    Stop,
    /// The reference simulator's behaviour: the trapping work-group ends silently.
    EndWorkGroup,
}

/// How to run a launch. [`LaunchOptions::from_env`] gives the `VENTUS_…` settings
/// (docs/using.md); `Default` is "no limits, one default thread pool, stop on traps".
#[derive(Clone, Default)]
pub struct LaunchOptions {
    /// Host threads (0 = the configured default).
    pub threads: usize,
    /// The first of them among the machine's threads (a sub-device's share; 0 for the whole
    /// device): launches on disjoint shares never share helper threads.
    pub first_thread: usize,
    /// Instruction budget per work-group (warp instructions; 0 = unlimited).
    pub watchdog: u64,
    /// Host CPU seconds one work-group may use (0 = unlimited).
    pub watchdog_seconds: u32,
    /// Host seconds the whole launch may take (0 = unlimited).
    pub timeout_seconds: u32,
    pub on_trap: TrapPolicy,
    /// Set to cancel a running launch.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Check every access against the launch's exact extents (the memory checker).
    pub memcheck: bool,
    /// Emulator tuning (results are identical either way): run the baseline interpreter, not
    /// its AVX2 copy (`VENTUS_SIMD=0`); interpret instead of translating (`VENTUS_JIT=0`).
    pub baseline_interpreter: bool,
    pub no_jit: bool,
}

impl LaunchOptions {
    /// The environment's settings (`VENTUS_THREADS`, `VENTUS_WATCHDOG`,
    /// `VENTUS_WATCHDOG_SECONDS`, `VENTUS_TIMEOUT`, `VENTUS_TRAP`, `VENTUS_MEMCHECK`,
    /// `VENTUS_SIMD`, `VENTUS_JIT`).
    pub fn from_env() -> LaunchOptions {
        let o = RunOptions::from_env();
        LaunchOptions {
            threads: o.threads,
            first_thread: o.first_thread,
            watchdog: o.watchdog,
            watchdog_seconds: o.watchdog_seconds,
            timeout_seconds: o.timeout_seconds,
            on_trap: match o.trap_mode {
                TrapMode::Fault => TrapPolicy::Stop,
                TrapMode::EndWorkGroup => TrapPolicy::EndWorkGroup,
            },
            cancel: o.cancel,
            memcheck: o.memcheck,
            baseline_interpreter: o.baseline_interpreter,
            no_jit: o.no_jit,
        }
    }

    /// The emulator's options for these (with the launch's print hook).
    fn run_options(&self, printer: Option<&Printer>) -> RunOptions {
        RunOptions {
            threads: self.threads,
            first_thread: self.first_thread,
            watchdog: self.watchdog,
            watchdog_seconds: self.watchdog_seconds,
            timeout_seconds: self.timeout_seconds,
            trap_mode: match self.on_trap {
                TrapPolicy::Stop => TrapMode::Fault,
                TrapPolicy::EndWorkGroup => TrapMode::EndWorkGroup,
            },
            cancel: self.cancel.clone(),
            print_hook: printer.map(|p| p.hook()),
            memcheck: self.memcheck,
            baseline_interpreter: self.baseline_interpreter,
            no_jit: self.no_jit,
        }
    }
}

/// What a completed launch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchStats {
    pub work_groups: u64,
    /// Warp instructions executed (barrier spins included).
    pub instructions: u64,
    /// Σ active lanes over executed instructions ("thread instructions").
    pub lane_instructions: u64,
    /// Vector branches that split a warp.
    pub divergent_branches: u64,
    /// Work-group barriers completed (each counts once per work-group).
    pub barriers: u64,
    /// Bytes loaded, stored or updated atomically, by address space.
    pub global_bytes: u64,
    pub local_bytes: u64,
    pub private_bytes: u64,
    pub elapsed: Duration,
    /// The most host CPU time one work-group used (what `VENTUS_WATCHDOG_SECONDS` bounds).
    pub longest_group: Duration,
    /// The host threads the launch ran on (never more than the device's compute units).
    pub threads: u32,
}

impl From<RunStats> for LaunchStats {
    fn from(s: RunStats) -> LaunchStats {
        LaunchStats {
            work_groups: s.work_groups,
            instructions: s.instructions,
            lane_instructions: s.lane_instructions,
            divergent_branches: s.divergent_branches,
            barriers: s.barriers,
            global_bytes: s.global_bytes,
            local_bytes: s.local_bytes,
            private_bytes: s.private_bytes,
            elapsed: s.elapsed,
            longest_group: s.longest_group,
            threads: s.threads,
        }
    }
}

/// The OpenCL work-item a fault happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkItem {
    pub global: [u32; 3],
    pub local: [u32; 3],
}

/// Why a launch did not complete.
#[derive(Debug)]
pub enum LaunchError {
    /// The arguments cannot be packed.
    Args(ArgError),
    /// Staging needed device memory that is not there.
    Memory(MemoryError),
    /// The backend cannot run this launch (its shape) or stopped it (a fault, the watchdog, the
    /// timeout, a cancel): the backend's report and, for a fault in one lane, its work-item.
    /// `regrouped`: the device's work-group size when it ran the launch regrouped
    /// ([`Grouping::Regrouped`]).
    Stopped {
        report: Box<dyn std::error::Error + Send + Sync>,
        work_item: Option<WorkItem>,
        fault: bool,
        regrouped: Option<[u32; 3]>,
    },
    /// The backend panicked (a bug in it): the launch failed, nothing else did.
    Panicked,
}

impl LaunchError {
    /// Whether the kernel itself stopped (a fault, watchdog, timeout or cancel), as opposed to
    /// a launch that could not start.
    pub fn is_fault(&self) -> bool {
        matches!(self, LaunchError::Stopped { fault: true, .. })
    }
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::Args(e) => e.fmt(f),
            LaunchError::Memory(e) => e.fmt(f),
            LaunchError::Stopped { report, work_item, regrouped, .. } => {
                report.fmt(f)?;
                if let Some(WorkItem { global: [gx, gy, gz], local: [x, y, z] }) = work_item {
                    write!(f, ", work-item ({gx},{gy},{gz}), local id ({x},{y},{z})")?;
                }
                if let Some([x, y, z]) = regrouped {
                    write!(f, " (the device ran this launch in work-groups of {x}×{y}×{z}: warp and lane are its)")?;
                }
                Ok(())
            }
            LaunchError::Panicked => write!(f, "internal error in the emulator"),
        }
    }
}
impl std::error::Error for LaunchError {}

impl From<MemoryError> for LaunchError {
    fn from(e: MemoryError) -> LaunchError {
        LaunchError::Memory(e)
    }
}

/// Runs `l` (see the module documentation).
pub fn run(mem: &Memory, l: &Launch, opts: &LaunchOptions) -> Result<LaunchStats, LaunchError> {
    staged(l, opts, |k, o| emulated::launch(mem.emulated(), k, o))
}

/// Stages `l` and runs it with `runner` (the backend's launch; see [`run`]).
pub(in crate::device) fn staged(
    l: &Launch,
    opts: &LaunchOptions,
    runner: impl FnOnce(&KernelLaunch, &RunOptions) -> Result<RunStats, DeviceError>,
) -> Result<LaunchStats, LaunchError> {
    let with_globals;
    let args = match l.globals {
        Some(base) => {
            let mut a = l.args.clone();
            a.push_pointer(base).map_err(LaunchError::Args)?;
            with_globals = a;
            &with_globals
        }
        None => l.args,
    };
    let (entry, range, regrouped) = match (l.grouping, l.kernel.single_item_entry) {
        (Grouping::Regrouped { local, single_item: false }, _) => (l.kernel.entry, NdRange { local, ..l.range }, true),
        (Grouping::Regrouped { local, single_item: true }, Some(entry)) if l.range.local == [1; 3] => {
            (entry, NdRange { local, ..l.range }, true)
        }
        _ => (l.kernel.entry, l.range, false),
    };
    let k = KernelLaunch {
        program: l.exec.code(),
        disjoint_program: l.exec.disjoint_code(),
        entry,
        range,
        args,
        threads_per_warp: l.threads_per_warp,
        print: l.printer.map_or((0, 0), |p| p.metadata()),
        mask_lanes: l.mask_lanes,
        private_bytes: l.kernel.info.as_ref().map_or(0, |i| i.private_bytes),
        resources: l.kernel.resources,
    };
    let o = opts.run_options(l.printer);
    // A backend bug must not unwind into the caller (a queue thread, or `extern "C"`).
    match std::panic::catch_unwind(AssertUnwindSafe(|| runner(&k, &o))) {
        Err(_) => Err(LaunchError::Panicked),
        Ok(Ok(stats)) => Ok(stats.into()),
        Ok(Err(DeviceError::Memory(e))) => Err(LaunchError::Memory(e.into())),
        Ok(Err(DeviceError::Launch(mut e))) => {
            let (work_item, fault) = match &mut e {
                RunError::Fault(f) => {
                    // The faulting lane's work-item (or, for the whole warp, its group's first).
                    let hw_local =
                        f.lane.map_or([0; 3], |lane| local_id(f.warp * l.threads_per_warp + lane, range.local));
                    let global = crate::abi::launch::global_id(f.group_id, range.local, hw_local, range.offset);
                    if regrouped {
                        // Named in the NDRange's grouping (the warp and lane stay the device's).
                        f.group_id = std::array::from_fn(|d| {
                            global[d].wrapping_sub(l.range.offset[d]) / l.range.local[d].max(1)
                        });
                        let [nx, ny, _] = l.range.num_groups();
                        let [x, y, z] = f.group_id;
                        f.work_group = (z.wrapping_mul(ny).wrapping_add(y)).wrapping_mul(nx).wrapping_add(x);
                    }
                    let local =
                        std::array::from_fn(|d| global[d].wrapping_sub(l.range.offset[d]) % l.range.local[d].max(1));
                    (f.lane.map(|_| WorkItem { global, local }), true)
                }
                _ => (None, false),
            };
            let regrouped = regrouped.then_some(range.local);
            Err(LaunchError::Stopped { report: Box::new(e), work_item, fault, regrouped })
        }
    }
}
