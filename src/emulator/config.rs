//! Emulator configuration from the environment, parsed once.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `VENTUS_THREADS` | host threads running work-groups, 1–256 | available cores |
//! | `VENTUS_WATCHDOG` | instruction budget per work-group (warp instructions), 0 = off | 2^38 |
//! | `VENTUS_WATCHDOG_SECONDS` | host CPU seconds one work-group may use, storing or not, 0 = off (a context's `CL_CONTEXT_WATCHDOG_SECONDS_VENTUS` overrides it) | 120 |
//! | `VENTUS_TIMEOUT` | host-time budget of a whole launch in seconds, 0 = off | 0 |
//! | `VENTUS_TRAP` | `fault` (report) or `end-group` (reference-simulator behaviour) | `fault` |
//! | `VENTUS_MEMCHECK` | `1`: check every access against byte-exact extents (see [`super::memcheck`]); `2`: also report loads of buffer bytes never written by the host or a kernel | `0` |
//! | `NUM_THREAD` / `VENTUS_NUM_THREAD` | threads per warp, 1–32 (official stack's variable) | 32 |
//! | `NUM_WARP` / `VENTUS_NUM_WARP` | warps per work-group slot, 1–32 (official stack's variable) | 8 |
//! | `VENTUS_PRINTF_BUFFER_SIZE` | bytes of printf records per launch (`CL_DEVICE_PRINTF_BUFFER_SIZE`), 64 B–256 MiB | 1 MiB |
//! | `VENTUS_LEGACY_PRINTF` | `1`: the 2023 libclc `printf` in official binaries runs on the host (it prints); `0`: its code runs as compiled (and traps, as in the reference) | `1` |
//! | `VENTUS_SIMD` | `0`: run the baseline x86-64 copy of the interpreter even when the host has AVX2/FMA (see [`super::simd`]; results are identical, only speed differs) | `1` |
//! | `VENTUS_JIT` | `0`: interpret straight-line code instead of running it translated to x86-64 code (see [`super::jit`]; AVX2 hosts only; results are identical, only speed differs) | `1` |
//! | `VENTUS_PERF_MAP` | `1`: the translator appends each function it compiles to `/tmp/perf-<pid>.map`, named by its text address, for `perf report` (a developer aid) | `0` |
//!
//! A value out of range or not a number is ignored with a warning; every variable is also
//! validated, once, against `crate::util::env::VARIABLES` (unknown `VENTUS_*` names included).

use crate::util::env::{bounded, var};
use once_cell::sync::OnceCell;

/// What to do when an instruction traps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrapMode {
    /// Stop the launch and report a [`Fault`](super::Fault) (default).
    #[default]
    Fault,
    /// Reference-simulator behaviour: the trapping work-group ends silently (`mtvec = spike_end`)
    /// and the next one runs. The trap is logged as a warning.
    EndWorkGroup,
}

/// Parsed configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub threads: usize,
    pub watchdog: u64,
    pub watchdog_seconds: u32,
    pub timeout_seconds: u32,
    pub trap_mode: TrapMode,
    pub threads_per_warp: u32,
    pub warps_per_group: u32,
    pub printf_buffer_size: u32,
    pub legacy_printf: bool,
    /// `VENTUS_NATIVE_FP64` (default 1): untraced runs execute the soft-double library's
    /// arithmetic primitives natively ([`super::hostcall::HostCall::F64`]).
    pub native_fp64: bool,
    pub memcheck: bool,
    /// `VENTUS_MEMCHECK=2`: buffers record which bytes were written.
    pub memcheck_uninit: bool,
    /// `VENTUS_SIMD` (default on): use the interpreter copy compiled for the host's AVX2/FMA.
    pub simd: bool,
    /// `VENTUS_JIT` (default on): run straight-line code translated to host code.
    pub jit: bool,
    /// `VENTUS_PERF_MAP` (default off): name translated code for `perf` (`jit::perf_map`).
    pub perf_map: bool,
}

static CONFIG: OnceCell<Config> = OnceCell::new();

/// The default per-work-group CPU-time budget in seconds (`VENTUS_WATCHDOG_SECONDS`): over
/// twice the longest work-group measured in the conformance and test suites docs/conformance.md lists
/// (53 s: pocl's `test_rotate` with pocl's header macros, on a loaded machine, where CPU time
/// reads up to 45 % higher), far below the hours a forgotten loop update would otherwise run.
pub const DEFAULT_WATCHDOG_SECONDS: u32 = 120;

/// The default per-work-group instruction budget (`VENTUS_WATCHDOG`, warp instructions): a
/// backstop above what the CPU-time budget lets a work-group run (a lone warp's storing loop
/// runs ~2^28 warp instructions per second, a translated ALU loop several times that), so the
/// time budget is the one that stops a runaway kernel by default.
pub const DEFAULT_WATCHDOG: u64 = 1 << 38;

/// Most emulator host threads (`VENTUS_THREADS`, reported as compute units).
pub const MAX_THREADS: usize = 256;
/// Most warps per work-group (`NUM_WARP`): 32 warps of 32 lanes, 1,024 work-items.
pub const MAX_WARPS: u32 = 32;

impl Config {
    /// The process-wide configuration (read from the environment on first use).
    pub fn get() -> &'static Config {
        CONFIG.get_or_init(Config::from_env)
    }

    /// Reads the environment now.
    pub fn from_env() -> Config {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let trap_mode = match std::env::var("VENTUS_TRAP").as_deref() {
            Ok("end-group") | Ok("spike") => TrapMode::EndWorkGroup,
            Ok("fault") | Err(_) => TrapMode::Fault,
            Ok(other) => {
                log::warn!("ignoring VENTUS_TRAP={other:?}: expected `fault` or `end-group`");
                TrapMode::Fault
            }
        };
        let memcheck = bounded("VENTUS_MEMCHECK", var::<u8>(&["VENTUS_MEMCHECK"]), 0..=2, 0);
        let numt =
            bounded("NUM_THREAD (VENTUS_NUM_THREAD)", var::<u32>(&["VENTUS_NUM_THREAD", "NUM_THREAD"]), 1..=32, 32);
        Config {
            threads: bounded(
                "VENTUS_THREADS",
                var::<usize>(&["VENTUS_THREADS"]),
                1..=MAX_THREADS,
                cores.min(MAX_THREADS),
            ),
            watchdog: var::<u64>(&["VENTUS_WATCHDOG"]).unwrap_or(DEFAULT_WATCHDOG),
            watchdog_seconds: var::<u32>(&["VENTUS_WATCHDOG_SECONDS"]).unwrap_or(DEFAULT_WATCHDOG_SECONDS),
            timeout_seconds: var::<u32>(&["VENTUS_TIMEOUT"]).unwrap_or(0),
            trap_mode,
            threads_per_warp: numt,
            warps_per_group: bounded(
                "NUM_WARP (VENTUS_NUM_WARP)",
                var::<u32>(&["VENTUS_NUM_WARP", "NUM_WARP"]),
                1..=MAX_WARPS,
                8,
            ),
            printf_buffer_size: var::<u32>(&["VENTUS_PRINTF_BUFFER_SIZE"]).unwrap_or(1 << 20).clamp(64, 256 << 20) & !3,
            legacy_printf: var::<u8>(&["VENTUS_LEGACY_PRINTF"]).is_none_or(|v| v != 0),
            native_fp64: var::<u8>(&["VENTUS_NATIVE_FP64"]).is_none_or(|v| v != 0),
            memcheck: memcheck != 0,
            memcheck_uninit: memcheck >= 2,
            simd: var::<u8>(&["VENTUS_SIMD"]).is_none_or(|v| v != 0),
            jit: var::<u8>(&["VENTUS_JIT"]).is_none_or(|v| v != 0),
            perf_map: var::<u8>(&["VENTUS_PERF_MAP"]).is_some_and(|v| v != 0),
        }
    }
}
