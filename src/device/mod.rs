//! The device layer: the seam between the OpenCL runtime (`core`) and the machine that runs
//! kernels. Everything `core` (and `ventus-run elf`, the compiler tests, the benchmarks) does with
//! the device goes through the types owned here:
//!
//! * [`Memory`]/[`Buffer`] — the device's global memory ([`memory`]);
//! * [`Executable`] — a Ventus ELF loaded for running: code, kernels, printf table,
//!   program-scope variables ([`executable`]);
//! * [`Launch`] + [`run`] — one kernel launch over an [`NdRange`] with packed arguments and a
//!   [`Printer`], returning [`LaunchStats`] or a [`LaunchError`] ([`launch`], [`print`](mod@print));
//! * [`Limits`] — what the machine offers (warp width, warps, host threads, print buffer size).
//!
//! The seam names no backend type (`tests/architecture.rs`: `core` names no emulator type and
//! this module re-exports none). The embedded emulator is the one backend today
//! ([`emulated`]: staging into its memory, its options, its traces); a second one — e.g. the
//! official simulator loaded as a shared library through `libloading` — would be a sibling of
//! [`emulated`] chosen inside these types, with `core` unchanged.

pub mod emulated;
pub mod executable;
pub mod launch;
pub mod memory;
pub mod print;

pub use crate::abi::launch::{ArgBuffer, KernelArg, NdRange};
pub use executable::{Executable, KernelDef, LoadError, LoadOptions};
pub use launch::{run, Grouping, Launch, LaunchError, LaunchOptions, LaunchStats, TrapPolicy, WorkItem};
pub use memory::{Buffer, Memory, MemoryError, Placement};
pub use print::{PrintReport, Printer};

/// What the machine offers: its configuration (`NUM_THREAD`, `NUM_WARP`, `VENTUS_THREADS`,
/// `VENTUS_PRINTF_BUFFER_SIZE`; docs/using.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Lanes per warp (`CSR_NUMT`).
    pub threads_per_warp: u32,
    /// Warps per work-group at most.
    pub warps_per_group: u32,
    /// Host threads that run work-groups concurrently.
    pub host_threads: usize,
    /// Default print buffer size in bytes.
    pub printf_buffer_size: u32,
}

/// The machine's [`Limits`].
pub fn limits() -> Limits {
    let c = crate::emulator::config::Config::get();
    Limits {
        threads_per_warp: c.threads_per_warp,
        warps_per_group: c.warps_per_group,
        host_threads: c.threads,
        printf_buffer_size: c.printf_buffer_size,
    }
}

/// Writes kernel output to the process's standard output (flushed, so it interleaves with the
/// host program's own output); the default sink of a [`Printer`].
pub fn write_stdout(text: &[u8]) {
    crate::emulator::hostcall::write_stdout(text)
}
