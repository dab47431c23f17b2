//! The runtime-library subroutine contract between the compiler, which emits the library
//! (`compiler/softlib`) and the calls to it (`compiler::target::call`: register partitioning by
//! call level), and the emulator, which runs some routines natively (`emulator::hostcall`,
//! `VENTUS_NATIVE_FP64`): how routines are named, found in an ELF, and where their argument and
//! result words travel.
//!
//! * Level 2 are the soft-double primitives (`__vt_f64_*`), level 1 the double math built-ins
//!   (`__vt_d_*`); a kernel is level 0.
//! * A level-`n` routine takes its argument words (at most [`MAX_WORDS`], [`MAX_WORDS_LEVEL2`]
//!   at level 2) in consecutive vector registers from [`args`]`(n)`, low word first, and leaves
//!   its result words there.
//! * Our ELFs label each routine's entry `LABEL_PREFIX + name` (a local symbol); a routine's
//!   uniform variant (arguments and result uniform, scalar code run once per warp) is named
//!   `name + UNIFORM_SUFFIX`.
//! * [`F64Primitive`] lists the level-2 primitives the emulator may run natively, by name.
//! * Level 3 ([`CHECK_LEVEL`]) are the *checker hooks* (`__vt_chk_*`, [`CHECK_PREFIX`]):
//!   routines a library calls where the program's behaviour is undefined (an image access
//!   outside its image, [`IMAGE_OUTSIDE`]). Their code returns 0 ("skip the access") and does
//!   nothing else; under the memory checker the emulator's host call at their entry stops the
//!   launch with a report instead. The compiler never removes a call of one (its result may go
//!   unused). Only kernels call them, and they call nothing: their few registers lie at the top
//!   of the file, so a kernel that calls only hooks keeps v4–v31 (no `regext` prefix).

/// The call level of the checker hooks.
pub const CHECK_LEVEL: u8 = 3;
/// Name prefix of the checker hooks ([`CHECK_LEVEL`]).
pub const CHECK_PREFIX: &str = "__vt_chk_";
/// The image library's hook for an access outside its image (`compiler/softlib/images.cl`):
/// argument words `(descriptor, x, y, z, write)` — the descriptor's address, the pixel's grid
/// position (the layer in `y` for 1D arrays, in `z` for 2D arrays) and 1 for a write, 0 for a read.
pub const IMAGE_OUTSIDE: &str = "__vt_chk_image_outside";

/// Prefix of the local symbol at each routine's entry (`.Lsub___vt_f64_add`).
pub const LABEL_PREFIX: &str = ".Lsub_";
/// What a routine's name has appended in its uniform variant.
pub const UNIFORM_SUFFIX: &str = "__u";
/// Name prefix of the level-1 routines (double math built-ins).
pub const LEVEL1_PREFIX: &str = "__vt_d_";
/// Name prefix of the level-2 routines (soft-double primitives).
pub const LEVEL2_PREFIX: &str = "__vt_f64_";
/// First vector register of a level-1 routine's argument and result words.
pub const LEVEL1_ARGS: u8 = 232;
/// First vector register of a level-2 routine's argument and result words (below v32: no
/// `regext` prefix in the hot primitives).
pub const LEVEL2_ARGS: u8 = 26;
/// First vector register of a checker hook's argument and result words (the same as level 1's:
/// a hook never runs while a level-1 routine does).
pub const CHECK_ARGS: u8 = 232;
/// Most 32-bit argument (and result) words of a routine.
pub const MAX_WORDS: usize = 8;
/// Most argument words of a level-2 routine (its registers v26–v31).
pub const MAX_WORDS_LEVEL2: usize = 6;

/// The one NaN the soft-double library produces (`VT_QNAN` in `compiler/softlib/fp64.cl`):
/// every double arithmetic or conversion NaN result is this quiet NaN, whether the library's code
/// or the emulator's native evaluation computes it.
pub const CANONICAL_NAN_F64: u64 = 0x7ff8_0000_0000_0000;

/// The call level of a routine by name (`None`: not a library routine).
pub fn level_of(name: &str) -> Option<u8> {
    if is_check(name) {
        Some(CHECK_LEVEL)
    } else if name.starts_with(LEVEL2_PREFIX) {
        Some(2)
    } else if name.starts_with(LEVEL1_PREFIX) {
        Some(1)
    } else {
        None
    }
}

/// Whether routine `name` (or its uniform variant) is a checker hook, whose calls are never
/// removed.
pub fn is_check(name: &str) -> bool {
    name.starts_with(CHECK_PREFIX)
}

/// First vector register of the argument words of a level-`level` routine (1, 2 or
/// [`CHECK_LEVEL`]; 0 for a kernel, which takes no words this way).
pub fn args(level: u8) -> u8 {
    match level {
        0 => 0,
        1 => LEVEL1_ARGS,
        2 => LEVEL2_ARGS,
        _ => CHECK_ARGS,
    }
}

/// Most argument (and result) words of a level-`level` routine.
pub fn max_words(level: u8) -> usize {
    if level == 2 {
        MAX_WORDS_LEVEL2
    } else {
        MAX_WORDS
    }
}

/// Whether a function of level `caller` may call a routine of level `callee`: only a deeper
/// level, and a checker hook only from a kernel.
pub fn may_call(caller: u8, callee: u8) -> bool {
    callee > caller && (callee != CHECK_LEVEL || caller == 0)
}

/// The soft-double primitives (level 2) with an IEEE meaning the host can compute: operands
/// and result are doubles as two words each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F64Primitive {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Sqrt,
}

impl F64Primitive {
    pub const ALL: [F64Primitive; 6] = [
        F64Primitive::Add,
        F64Primitive::Sub,
        F64Primitive::Mul,
        F64Primitive::Div,
        F64Primitive::Fma,
        F64Primitive::Sqrt,
    ];

    /// The routine's name in the library.
    pub fn name(self) -> &'static str {
        match self {
            F64Primitive::Add => "__vt_f64_add",
            F64Primitive::Sub => "__vt_f64_sub",
            F64Primitive::Mul => "__vt_f64_mul",
            F64Primitive::Div => "__vt_f64_div",
            F64Primitive::Fma => "__vt_f64_fma",
            F64Primitive::Sqrt => "__vt_f64_sqrt",
        }
    }

    /// The primitive named `name` (without the uniform suffix).
    pub fn from_name(name: &str) -> Option<F64Primitive> {
        F64Primitive::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Double operands it takes.
    pub fn operands(self) -> usize {
        match self {
            F64Primitive::Sqrt => 1,
            F64Primitive::Fma => 3,
            _ => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_are_level_2_routines_that_fit_their_registers() {
        for p in F64Primitive::ALL {
            assert_eq!(level_of(p.name()), Some(2), "{p:?}");
            assert_eq!(F64Primitive::from_name(p.name()), Some(p));
            assert!(2 * p.operands() <= MAX_WORDS_LEVEL2);
        }
        assert_eq!(F64Primitive::from_name("__vt_f64_add__u"), None, "the suffix is the caller's to strip");
        assert_eq!(level_of("__vt_d_exp"), Some(1));
        assert_eq!(level_of("exp"), None);
        assert_eq!(level_of(IMAGE_OUTSIDE), Some(CHECK_LEVEL));
        assert_eq!(level_of("__vt_chk_image_outside__u"), Some(CHECK_LEVEL));
        assert!(may_call(0, 1) && may_call(1, 2) && may_call(0, 2) && may_call(0, CHECK_LEVEL));
        assert!(!may_call(1, CHECK_LEVEL) && !may_call(2, CHECK_LEVEL) && !may_call(2, 1) && !may_call(1, 1));
        // A hook's words fit its registers: (descriptor, x, y, z, write).
        assert!(CHECK_ARGS as usize + max_words(CHECK_LEVEL) <= 241);
        assert!(is_check(IMAGE_OUTSIDE) && !is_check("__vt_f64_add"));
        // Level 2's words stay below v32 and clear of level 1's.
        assert!(LEVEL2_ARGS as usize + MAX_WORDS_LEVEL2 <= 32);
        assert!(LEVEL1_ARGS as usize + MAX_WORDS <= 256);
    }

    /// The library's own definition of its NaN is the contract's.
    #[test]
    fn the_library_defines_the_canonical_nan() {
        let lib = include_str!("../compiler/softlib/fp64.cl");
        let line = lib.lines().find(|l| l.starts_with("#define VT_QNAN ")).expect("fp64.cl defines VT_QNAN");
        let value = line.trim_start_matches("#define VT_QNAN ").trim().trim_end_matches("UL");
        assert_eq!(u64::from_str_radix(value.trim_start_matches("0x"), 16), Ok(CANONICAL_NAN_F64));
        assert!(f64::from_bits(CANONICAL_NAN_F64).is_nan());
    }
}
