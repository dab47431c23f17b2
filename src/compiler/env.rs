//! The compiler's configuration from the environment: every variable the compiler reads is
//! read here (and bounded where it is a number, with one warning for a bad value).
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `VENTUS_CLANG`, `VENTUS_LLVM_SPIRV` | the front-end tools (read at each discovery, see [`super::toolchain`]) | discovered |
//! | `VENTUS_TOOL_TIMEOUT` | seconds a front-end tool may run, 1–3600 | 120 |
//! | `VENTUS_TOOL_MEMORY` | MiB of address space per tool run, 256–65536, 0 = no limit | 4096 |
//! | `VENTUS_CACHE` | `0` turns the on-disk build cache off (read at each build) | on |
//! | `VENTUS_CACHE_DIR` | the cache's directory (else `$XDG_CACHE_HOME/ventus-icd`, `~/.cache/ventus-icd`) | |
//! | `VENTUS_DUMP_IR`, `VENTUS_DUMP_ASM` | print each kernel's IR / assembly to stderr (developer aids) | off |
//! | `VENTUS_INLINE_SUBROUTINES` | inline the soft-double routines instead of calling them | off |
//! | `VENTUS_NO_MEM2REG` | skip promoting private variables to registers (developer aid) | off |
//! | `VENTUS_BUILD_OPTIONS` | options appended to every program build's and compile's own | none |
//!
//! Numbers and switches are read once per process; the tool paths and the cache settings each
//! time they are used (tests and tools change them between builds).

use crate::util::env::{bounded, var};
use once_cell::sync::Lazy;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Switches and limits, read once.
#[derive(Debug, Clone)]
pub struct CompilerEnv {
    pub tool_timeout: Duration,
    /// Address-space limit of a tool run in bytes (`None` = unlimited).
    pub tool_memory: Option<u64>,
    pub dump_ir: bool,
    pub dump_asm: bool,
    pub inline_subroutines: bool,
    pub no_mem2reg: bool,
    /// `VENTUS_BUILD_OPTIONS` (non-blank), appended to every build's options.
    pub extra_options: Option<String>,
}

impl CompilerEnv {
    /// The process-wide settings (read on first use).
    pub fn get() -> &'static CompilerEnv {
        static ENV: Lazy<CompilerEnv> = Lazy::new(CompilerEnv::from_env);
        &ENV
    }

    fn from_env() -> CompilerEnv {
        let set = |name: &str| std::env::var_os(name).is_some();
        let mib = match var::<u64>(&["VENTUS_TOOL_MEMORY"]) {
            Some(0) => 0,
            v => bounded("VENTUS_TOOL_MEMORY", v, 256..=65536, 4096),
        };
        CompilerEnv {
            tool_timeout: Duration::from_secs(bounded(
                "VENTUS_TOOL_TIMEOUT",
                var(&["VENTUS_TOOL_TIMEOUT"]),
                1..=3600,
                120,
            )),
            tool_memory: (mib != 0).then_some(mib << 20),
            dump_ir: set("VENTUS_DUMP_IR"),
            dump_asm: set("VENTUS_DUMP_ASM"),
            inline_subroutines: set("VENTUS_INLINE_SUBROUTINES"),
            no_mem2reg: set("VENTUS_NO_MEM2REG"),
            extra_options: var::<String>(&["VENTUS_BUILD_OPTIONS"]).filter(|o| !o.trim().is_empty()),
        }
    }
}

/// The value of a tool variable (`VENTUS_CLANG`, `VENTUS_LLVM_SPIRV`) now.
pub fn tool_variable(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// `PATH` now (tool discovery searches it).
pub fn search_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_default()
}

/// The build cache's directory now (`None` when `VENTUS_CACHE=0` or no home is known).
pub fn cache_dir() -> Option<PathBuf> {
    if std::env::var("VENTUS_CACHE").as_deref() == Ok("0") {
        return None;
    }
    if let Some(d) = std::env::var_os("VENTUS_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("ventus-icd"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("ventus-icd"))
}
