//! The calling convention of out-of-line runtime-library subroutines (the soft-double library,
//! `compiler/softlib`): pure functions of up to eight 32-bit words, called with `jal` from a
//! kernel or from another subroutine.
//!
//! Registers are *partitioned by call level* instead of saved (the hot level-2 primitives get
//! the registers below 32, which need no `regext` prefix): a kernel (level 0) calls level-1
//! subroutines (`__vt_d_*` math built-ins), level-2 ones (`__vt_f64_*` primitives) and the
//! checker hooks (`__vt_chk_*`, level 3); level 1 calls level 2; levels 2 and 3 call nothing.
//! Each level allocates only from its own vector and scalar ranges, and a kernel from what the
//! levels it calls (and those they call) leave ([`kernel`]), so a call clobbers nothing its
//! caller keeps — no save/restore, no clobber modelling in the allocator. Arguments are copied
//! into the callee level's argument registers ([`Level::args`]) right before the `jal`; the callee copies them out at entry and leaves its
//! result words in the same registers before `ret`. A caller that calls saves `ra` in its
//! level's [`Level::ra_save`] register at entry and restores it before returning.
//!
//! Spill slots of a level lie above those of the levels that call it (private memory for vector
//! slots, the warp stack for scalar slots): `compiler::compile_spirv_modules` allocates kernels
//! first, then level 1, then level 2, then level 3, each with the end of the previous as its
//! base, and gives every kernel enough private memory for the deepest frame. Shared by every level and never
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

use super::mir::{MInst, MOp, Reg, RA, ZERO};
use crate::abi::subroutine::{args, max_words, CHECK_LEVEL};
pub use crate::abi::subroutine::{level_of, may_call, MAX_WORDS};

/// Where a kernel that calls keeps `ra`: a register no routine level uses, above x31 (its save
/// and restore take a `regext` prefix once per warp, while the registers below x32 serve the
/// kernel's loops without one).
const KERNEL_RA_SAVE: u8 = 61;

/// The register ranges of a kernel that calls nothing: every vector register but the zero
/// vector, the spill scratch and the slot bases; every scalar register but the reserved ones
/// (zero, ra, sp, gp, tp, the `setrpc` scratch, the work-group local base, the spill scratch
/// and the slot address registers, see `regalloc`).
pub fn leaf() -> Level {
    let spool = [5, 9].into_iter().chain(10..=27).chain([30, 31]).chain(32..=61).collect();
    Level { args: args(0), vpool: (4..=240).collect(), spool, ra_save: KERNEL_RA_SAVE }
}

/// The register ranges of `level` (1, 2 or the checker hooks' [`CHECK_LEVEL`]; a kernel's are
/// [`kernel`]'s).
pub fn level(level: u8) -> Level {
    match level {
        0 => kernel(&[1]),
        1 => Level { args: args(1), vpool: (180..=231).collect(), spool: (46..=57).collect(), ra_save: 59 },
        // The registers below 32 first; v140–v179 rather than spilling.
        2 => {
            Level { args: args(2), vpool: (4..=25).chain(140..=179).collect(), spool: (10..=27).collect(), ra_save: 60 }
        }
        // The hooks call nothing (no `ra` to keep) and are tiny: a few registers at the top.
        _ => Level { args: args(CHECK_LEVEL), vpool: (224..=231).collect(), spool: (50..=57).collect(), ra_save: 60 },
    }
}

/// The levels whose registers are in use while a routine of `level` runs: its own and those
/// of every level it may call.
fn reached(level: u8) -> impl Iterator<Item = u8> {
    (level..=CHECK_LEVEL).filter(move |&l| l == level || may_call(level, l))
}

/// The register ranges of a kernel that calls routines of the levels `called`: a leaf kernel's
/// ([`leaf`]) minus every register a called routine — or a routine it calls in turn — may
/// write (its pools, its argument words, its `ra` save). A kernel that calls only the checker
/// hooks or only level-2 primitives keeps v4–v31 or most of the file that way.
pub fn kernel(called: &[u8]) -> Level {
    let leaf = leaf();
    let (mut vbusy, mut sbusy) = (vec![false; 256], vec![false; 64]);
    sbusy[usize::from(leaf.ra_save)] = !called.is_empty();
    for l in called.iter().flat_map(|&c| reached(c)) {
        let lv = level(l);
        let words = usize::from(lv.args)..usize::from(lv.args) + max_words(l);
        for r in lv.vpool.iter().map(|&r| usize::from(r)).chain(words) {
            vbusy[r] = true;
        }
        let calls = (l + 1..=CHECK_LEVEL).any(|c| may_call(l, c));
        for &r in lv.spool.iter().chain(Some(&lv.ra_save).filter(|_| calls)) {
            sbusy[usize::from(r)] = true;
        }
    }
    Level {
        vpool: leaf.vpool.into_iter().filter(|&r| !vbusy[usize::from(r)]).collect(),
        spool: leaf.spool.into_iter().filter(|&r| !sbusy[usize::from(r)]).collect(),
        ..leaf
    }
}

/// Whether physical vector register `p` carries routine argument and result words (level 2's
/// v26–v31, level 1's and the checker hooks' v232–v239). No function allocates them; copy
/// coalescing may place a value in one (`target::coalesce`).
pub fn is_word_register(p: u8) -> bool {
    let (l2, l1) = (args(2), args(1));
    (l2..l2 + max_words(2) as u8).contains(&p) || (l1..l1 + MAX_WORDS as u8).contains(&p)
}

/// What instruction `i` of a function of call level `level` reads and writes of the word
/// registers ([`is_word_register`]) beyond its operand fields: a call (`MOp::Call`, `imm` =
/// its argument words) reads its argument words and may write every word register (its result
/// words and, through the routines it calls, theirs); a subroutine's return (`jalr zero, ra`)
/// reads its level's words (its results).
pub fn implicit_words(i: &MInst, level: u8) -> (Vec<Reg>, &'static [Reg]) {
    /// Every word register (what a call may write), listed once.
    static ALL_WORDS: std::sync::LazyLock<Vec<Reg>> =
        std::sync::LazyLock::new(|| (0..=255).filter(|&p| is_word_register(p)).map(Reg::PV).collect());
    match &i.op {
        MOp::Call(name) => {
            let base = level_of(name).map_or(0, args);
            let uses = (0..i.imm.clamp(0, MAX_WORDS as i64) as u8).map(|k| Reg::PV(base + k)).collect();
            (uses, &ALL_WORDS[..])
        }
        MOp::I(crate::isa::Op::Jalr) if level > 0 && i.rd == Some(ZERO) && i.rs1 == Some(RA) => {
            let base = args(level);
            ((0..max_words(level) as u8).map(|k| Reg::PV(base + k)).collect(), &[])
        }
        _ => (vec![], &[]),
    }
}

/// The name of the uniform variant of subroutine `name` (same call level).
pub fn uniform_name(name: &str) -> String {
    format!("{name}{}", crate::abi::UNIFORM_SUFFIX)
}

/// The assembly label of subroutine `name`.
pub fn label(name: &str) -> String {
    format!("{}{name}", crate::abi::SUBROUTINE_LABEL_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every register a routine may write while it runs (pools, argument words, `ra` save).
    fn writes(l: u8) -> (Vec<u8>, Vec<u8>) {
        let lv = level(l);
        let mut v = lv.vpool.clone();
        v.extend(lv.args..lv.args + max_words(l) as u8);
        let mut s = lv.spool.clone();
        if (l + 1..=CHECK_LEVEL).any(|c| may_call(l, c)) {
            s.push(lv.ra_save);
        }
        (v, s)
    }

    /// No call clobbers what its caller keeps: the ranges of a caller (a kernel calling any set
    /// of levels, or a routine) and of every level that may run during its call are disjoint.
    #[test]
    fn a_call_clobbers_nothing_its_caller_keeps() {
        let all: Vec<u8> = (1..=CHECK_LEVEL).collect();
        let mut callers: Vec<(u8, Level)> = (1..=CHECK_LEVEL).map(|l| (l, level(l))).collect();
        for mask in 0u32..1 << all.len() {
            let called: Vec<u8> = all.iter().copied().filter(|l| mask & 1 << (l - 1) != 0).collect();
            let k = kernel(&called);
            for &c in &called {
                for l in reached(c) {
                    let (v, s) = writes(l);
                    assert!(
                        v.iter().all(|r| !k.vpool.contains(r)),
                        "kernel calling {called:?}: v clash with level {l}"
                    );
                    assert!(
                        s.iter().all(|r| !k.spool.contains(r)),
                        "kernel calling {called:?}: x clash with level {l}"
                    );
                    assert!(!s.contains(&k.ra_save));
                }
            }
            callers.push((0, k));
        }
        for (caller, lv) in callers.iter().filter(|(c, _)| *c > 0) {
            for callee in (1..=CHECK_LEVEL).filter(|&c| may_call(*caller, c)).flat_map(reached) {
                let (v, s) = writes(callee);
                assert!(v.iter().all(|r| !lv.vpool.contains(r)), "level {caller} vs {callee}");
                assert!(s.iter().all(|r| !lv.spool.contains(r) && *r != lv.ra_save), "level {caller} vs {callee}");
            }
        }
    }

    /// What the partition is for: a kernel calling only the checker hooks or only level-2
    /// primitives keeps v4–v31 or v32–v139 and the level-1 range; one calling the double math
    /// built-ins keeps v32–v139.
    #[test]
    fn kernels_keep_the_registers_their_callees_leave() {
        let hooks = kernel(&[CHECK_LEVEL]);
        assert!((4..=31).all(|r| hooks.vpool.contains(&r)) && hooks.vpool.len() >= 220);
        assert!((10..=27).all(|r| hooks.spool.contains(&r)));
        let prims = kernel(&[2]);
        assert!((32..=139).chain(180..=240).all(|r| prims.vpool.contains(&r)) && !prims.vpool.contains(&4));
        let math = kernel(&[1, 2]);
        assert_eq!(math.vpool, (32..=139).chain([240]).collect::<Vec<u8>>());
        assert!(!math.spool.contains(&math.ra_save) && !hooks.spool.contains(&math.ra_save));
        assert!((10..=31).all(|r| hooks.spool.contains(&r) || [28, 29].contains(&r)), "{:?}", hooks.spool);
        assert_eq!((kernel(&[]).vpool, kernel(&[]).spool), (leaf().vpool, leaf().spool));
    }
}
