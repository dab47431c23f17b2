//! The calling convention of out-of-line runtime-library subroutines (the soft-double library,
//! `compiler/softlib`): pure functions of up to eight 32-bit words, called with `jal` from a
//! kernel or from another subroutine.
//!
//! Registers are *partitioned by call level* instead of saved (the hot level-2 primitives get
//! the registers below 32, which need no `regext` prefix): a kernel (level 0) calls level-1
//! subroutines (`__vt_d_*` math built-ins) and level-2 ones (`__vt_f64_*` primitives); level 1
//! calls level 2; level 2 calls nothing. Each level allocates only from its own vector and scalar
//! ranges, so a call clobbers nothing its caller keeps — no save/restore, no clobber modelling in
//! the allocator. Arguments are copied into the callee level's argument registers
//! ([`Level::args`]) right before the `jal`; the callee copies them out at entry and leaves its
//! result words in the same registers before `ret`. A caller that calls saves `ra` in its
//! level's [`Level::ra_save`] register at entry and restores it before returning.
//!
//! Spill slots of a level lie above those of the levels that call it (private memory for vector
//! slots, the warp stack for scalar slots): `compiler::compile_spirv_modules` allocates kernels
//! first, then level 1, then level 2, each with the end of the previous as its base, and gives
//! every kernel enough private memory for the deepest frame. Shared by every level and never
//! live across an instruction: the zero vector v0, the spill scratch v1–v3 / x7, x28, x29, the
//! slot bases v241–v255 / x63 (constants, re-set by any function that needs them), x62 and the
//! `setrpc` scratch x6.
//!
//! **Uniform variants.** A subroutine whose results are uniform when its arguments are (the
//! uniformity analysis with uniform parameters says so) also exists as a *uniform variant*,
//! [`uniform_name`], compiled from the same function with its parameters in scalar registers:
//! a call whose arguments are all uniform (e.g. double arithmetic on kernel arguments) runs on
//! the scalar unit once per warp instead of in every lane. Its words travel in the same vector
//! argument registers: the caller broadcasts each scalar word into the active lanes
//! (`vmv.v.x`), the callee reads it back with `vmv.x.s` (the highest active lane's element, see
//! the ISA notes) and returns its result words the same way. No lane is inactive at one end and
//! active at the other: the callee's own branches are uniform, and any divergence inside it
//! reconverges before it returns.

/// Register ranges of one call level.
pub struct Level {
    /// First of the 8 vector registers that carry this level's arguments and results.
    pub args: u8,
    /// Vector registers the allocator may use, in order of preference.
    pub vpool: Vec<u8>,
    /// Scalar registers the allocator may use.
    pub spool: Vec<u8>,
    /// Where `ra` is kept in a function of this level that calls.
    pub ra_save: u8,
}

use crate::abi::subroutine::args;
pub use crate::abi::subroutine::{level_of, MAX_WORDS, MAX_WORDS_LEVEL2};

/// The register ranges of `level` (0 = a kernel that calls subroutines).
pub fn level(level: u8) -> Level {
    match level {
        0 => Level {
            args: args(0),
            vpool: (32..=139).collect(),
            spool: [5, 9, 30, 31].into_iter().chain(32..=45).collect(),
            ra_save: 58,
        },
        1 => Level { args: args(1), vpool: (180..=231).collect(), spool: (46..=57).collect(), ra_save: 59 },
        // The registers below 32 first; v140–v179 rather than spilling.
        _ => {
            Level { args: args(2), vpool: (4..=25).chain(140..=179).collect(), spool: (10..=27).collect(), ra_save: 60 }
        }
    }
}

/// The register ranges of a kernel whose calls all go to level-2 routines: level 0's and level
/// 1's together (a level-2 routine calls nothing, so no level-1 register is in use while one
/// runs). Image kernels, which call only the image library's checker hook, keep most of a leaf
/// kernel's registers this way.
pub fn kernel_calling_level2_only() -> Level {
    let (l0, l1) = (level(0), level(1));
    let vpool = l0.vpool.iter().copied().chain(l1.vpool.iter().copied()).chain(l1.args..=240).collect();
    let spool = l0.spool.iter().copied().chain(l1.spool.iter().copied()).collect();
    Level { vpool, spool, ..l0 }
}

/// The name of the uniform variant of subroutine `name` (same call level).
pub fn uniform_name(name: &str) -> String {
    format!("{name}{}", crate::abi::UNIFORM_SUFFIX)
}

/// The assembly label of subroutine `name`.
pub fn label(name: &str) -> String {
    format!("{}{name}", crate::abi::SUBROUTINE_LABEL_PREFIX)
}
