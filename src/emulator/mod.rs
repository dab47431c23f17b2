//! The Ventus emulator: device memory, predecoded programs, warps with SIMT stacks, work-groups
//! scheduled on host threads, faults as values, and spike-compatible tracing.
//!
//! Entry point: [`run`] executes an NDRange of work-groups of a [`Program`] on a
//! [`DeviceMemory`]. Work-groups are handed to `threads` host threads (each with its own LDS,
//! program and private windows, see [`memory`]); the warps of one work-group run round-robin on one
//! thread, so a work-group is fully deterministic and results do not depend on the thread count
//! (for kernels without inter-work-group races).
//!
//! ## Layers
//! Each module names only modules of lower layers (`tests/architecture.rs` checks it); this
//! file only declares and re-exports.
//!
//! ```text
//! entry points         scheduler, images     run a launch on host threads; image launches
//! work-group runner    workgroup             warps round-robin, barriers, host calls, faults
//! launch description   launch                LaunchParams, RunOptions, LaunchError
//! turn loop            turn                  one warp's turn; TurnCtx = Ctx + the translation
//! translator           jit                   straight-line runs → host code calling exec's handlers
//! executor             exec                  Ctx, per-instruction semantics, handler tables
//! host services        hostcall              soft-double/math on the host, printf, PrintHook
//! analysis, state      reach, intervals,     launch register walk; loads of store-free barrier
//!                      warp                  intervals made private; a warp's registers, SIMT stack
//! decoded program      program, fault        predecoded text, runs, host-call sites; faults
//! memory model         memory (+ memcheck), trace
//! foundation           config (TrapMode), simd, affinity, bulk, native_math, commit_log, regset
//! ```

mod affinity;
mod bulk;
pub mod commit_log;
pub mod config;
pub mod exec;
pub mod fault;
pub mod hostcall;
pub mod images;
pub mod intervals;
#[cfg(target_arch = "x86_64")]
mod jit;
mod launch;
pub use memory::memcheck;
pub mod memory;
pub mod native_math;
pub mod program;
mod reach;
mod regset;
mod scheduler;
pub mod simd;
pub mod trace;
mod turn;
pub mod warp;
mod workgroup;

pub use config::TrapMode;
pub use fault::{Fault, FaultKind};
pub use hostcall::PrintHook;
pub use launch::{LaunchError, LaunchParams, RunOptions};
pub use memory::{DeviceMemory, LdsMap, Region};
pub use program::Program;
pub use scheduler::{run, run_traced, GroupTraces, RunStats};
