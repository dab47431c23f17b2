//! What a launch is given: its geometry and addresses ([`LaunchParams`]), how to run it
//! ([`RunOptions`]) and why it could not start ([`LaunchError`]). Above the turn loop and below
//! the work-group runner in the emulator's layers (see the module docs of [`super`]).

use super::config::{self, TrapMode};
use super::fault::Fault;
use super::hostcall::PrintHook;
use super::memory::{memcheck, LdsMap};
use super::{program, simd};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Geometry and addresses of one launch (what the official driver passes to the device).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchParams {
    /// Work-groups per dimension.
    pub num_groups: [u32; 3],
    /// Warps per work-group (`CSR_NUMW`).
    pub warps_per_group: u32,
    /// Threads per warp (`CSR_NUMT`), 1..=32.
    pub threads_per_warp: u32,
    /// Address of the kernel metadata buffer (`CSR_KNL`).
    pub metadata_addr: u32,
    /// Base of the private block (`CSR_PDS`); each host thread overlays its own copy of the first
    /// `private_bytes_per_thread × threads per work-group` bytes.
    pub pds_base: u32,
    /// Private bytes per work-item (official: 4 KiB).
    pub private_bytes_per_thread: u32,
    /// First pc of every warp (0x8000_0000: crt0).
    pub start_pc: u32,
    /// When set, lanes that are not real work-items start inactive
    /// ([`NdRange::lane_masks`](crate::abi::launch::NdRange::lane_masks)): lanes past the
    /// work-group size in a partial last warp, and, for OpenCL 3.0 non-uniform NDRanges, lanes
    /// outside the actual (smaller) edge work-groups. `None` = the reference behaviour (all
    /// `numt` lanes active).
    pub work_items: Option<crate::abi::launch::NdRange>,
    /// The part of the LDS window the launch maps ([`LdsMap::WHOLE`] for launch images).
    pub lds_map: LdsMap,
    /// The launch's exact extents: fault reports name the nearest one (and its label), and with
    /// [`RunOptions::memcheck`] every access is checked against them.
    pub extents: Option<Arc<memcheck::MemCheck>>,
    /// The registers the launch's code can write ([`program::Program::launch_reg_bounds`]);
    /// `None` = the whole program's ([`program::Program::reg_bounds`]).
    pub reg_bounds: Option<program::RegBounds>,
}

impl LaunchParams {
    /// `groups` one-dimensional work-groups of `warps` full warps (32 lanes) starting at the
    /// program window's base, with no metadata or private block, every lane active, the whole
    /// LDS window, no extents and the program's register bounds: an assembled program's launch
    /// (tests and benchmarks set the fields they need on top).
    pub fn flat(groups: u32, warps: u32) -> LaunchParams {
        LaunchParams {
            num_groups: [groups, 1, 1],
            warps_per_group: warps,
            threads_per_warp: 32,
            metadata_addr: 0,
            pds_base: 0,
            private_bytes_per_thread: 0,
            start_pc: crate::abi::PROGRAM_BASE,
            work_items: None,
            lds_map: LdsMap::WHOLE,
            extents: None,
            reg_bounds: None,
        }
    }
}

/// How to run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Host threads (0 = the configured default, see [`config`]).
    pub threads: usize,
    /// Which threads: launches with different first threads (sub-devices with disjoint shares
    /// of the host threads) take their helper threads from different pools, so they never
    /// wait for each other's helpers. 0 for the whole device.
    pub first_thread: usize,
    /// Instruction budget per work-group (warp instructions; 0 = unlimited).
    pub watchdog: u64,
    /// Host CPU seconds one work-group may use, measured on the CPU clock of the host thread
    /// running it (0 = unlimited).
    pub watchdog_seconds: u32,
    /// Host-time budget of the whole launch in seconds (0 = unlimited).
    pub timeout_seconds: u32,
    pub trap_mode: TrapMode,
    /// Set to cancel a running launch (checked every few thousand rounds).
    pub cancel: Option<Arc<AtomicBool>>,
    pub print_hook: Option<Arc<dyn PrintHook>>,
    /// Check every access against byte-exact extents (`VENTUS_MEMCHECK=1`); the launch
    /// describes them in [`LaunchParams::extents`].
    pub memcheck: bool,
    /// Run the baseline x86-64 copy of the interpreter even when the host has AVX2/FMA
    /// (`VENTUS_SIMD=0`; see [`simd`]). Results are identical either way.
    pub baseline_interpreter: bool,
    /// Interpret straight-line code instead of running it translated to host code
    /// (`VENTUS_JIT=0`; see [`jit`](super::jit)). The translator runs only with the AVX2 copy of the
    /// interpreter; results are identical either way.
    pub no_jit: bool,
}

impl RunOptions {
    /// Options from the environment (`VENTUS_THREADS`, `VENTUS_WATCHDOG`,
    /// `VENTUS_WATCHDOG_SECONDS`, `VENTUS_TIMEOUT`, `VENTUS_TRAP`, `VENTUS_MEMCHECK`,
    /// `VENTUS_SIMD`, `VENTUS_JIT`).
    pub fn from_env() -> RunOptions {
        let c = config::Config::get();
        RunOptions {
            threads: c.threads,
            watchdog: c.watchdog,
            watchdog_seconds: c.watchdog_seconds,
            timeout_seconds: c.timeout_seconds,
            trap_mode: c.trap_mode,
            memcheck: c.memcheck,
            baseline_interpreter: !c.simd,
            no_jit: !c.jit,
            ..RunOptions::default()
        }
    }

    /// Whether launches run the interpreter's AVX2 copy: the host has the features
    /// ([`simd::host_has_avx2`]) and [`Self::baseline_interpreter`] is off.
    pub fn avx2_interpreter(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return !self.baseline_interpreter && simd::host_has_avx2();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Whether untraced launches run straight-line code translated to host code ([`jit`](super::jit)):
    /// the AVX2 interpreter runs and [`Self::no_jit`] is off.
    pub fn translated(&self) -> bool {
        !self.no_jit && self.avx2_interpreter()
    }
}

/// Why a launch could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaunchError {
    /// Threads per warp must be 1..=32.
    BadWarpWidth(u32),
    /// Zero warps or work-groups.
    EmptyLaunch,
    /// More than 2^32 - 1 work-groups.
    TooManyGroups,
    /// The run itself faulted.
    Fault(Box<Fault>),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::BadWarpWidth(n) => write!(f, "threads per warp must be 1..=32, not {n}"),
            LaunchError::EmptyLaunch => write!(f, "launch has no warps or no work-groups"),
            LaunchError::TooManyGroups => write!(f, "too many work-groups"),
            LaunchError::Fault(x) => x.fmt(f),
        }
    }
}
impl std::error::Error for LaunchError {}

impl From<Fault> for LaunchError {
    fn from(f: Fault) -> Self {
        LaunchError::Fault(Box::new(f))
    }
}
