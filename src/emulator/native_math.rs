//! The soft-double library's level-1 math built-ins (`__vt_d_sin`, `__vt_d_pow`, …) compiled for
//! the host (build.rs compiles `compiler/softlib/host.c`, the library's own source, and generates
//! the table [`NATIVE_MATH`]), for [`super::hostcall::HostCall::F64Math`].
//!
//! Contract of [`eval`]: the result words the function's device code would leave in its
//! argument registers, or `None` — the caller then runs the code — when the host's bits could
//! differ from the library's: an operand is NaN or infinite (a NaN operand's payload may flow
//! into the result). A NaN result of finite operands is the canonical NaN: the device's
//! primitives return it for every NaN they produce and the library's own invalid cases return
//! it, while the host's SSE2 arithmetic gives another (its sign and payload are all that
//! differs: both are correctly rounded IEEE-754 binary64, and the C is compiled without
//! contraction, with wrapping integer arithmetic). `tests/native_math.rs` compares every
//! function native against compiled on edge and random operands, NaN results included.

/// A math built-in's C signature: result, then parameters (`D` double, `I` int).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy)]
pub enum MathFn {
    D_D(unsafe extern "C" fn(f64) -> f64),
    D_DD(unsafe extern "C" fn(f64, f64) -> f64),
    D_DDD(unsafe extern "C" fn(f64, f64, f64) -> f64),
    D_DDDD(unsafe extern "C" fn(f64, f64, f64, f64) -> f64),
    D_DI(unsafe extern "C" fn(f64, i32) -> f64),
    D_DID(unsafe extern "C" fn(f64, i32, f64) -> f64),
    I_D(unsafe extern "C" fn(f64) -> i32),
    I_DD(unsafe extern "C" fn(f64, f64) -> i32),
    I_DDDD(unsafe extern "C" fn(f64, f64, f64, f64) -> i32),
}

include!(concat!(env!("OUT_DIR"), "/softlib_natives.rs"));

/// The index in [`NATIVE_MATH`] of the built-in named `name` (`__vt_d_sin`).
pub fn lookup(name: &str) -> Option<u16> {
    NATIVE_MATH.iter().position(|(n, _)| *n == name).and_then(|i| u16::try_from(i).ok())
}

/// Argument words of a level-1 call, in order (a double: low word, high word; an int: one).
pub const MAX_WORDS: usize = crate::abi::subroutine::MAX_WORDS;

/// Runs built-in `index` on the argument words `w` (see the module contract): the result
/// (a double's bits, or an int's zero-extended) and whether it is a double (two words).
#[inline]
pub fn eval(index: u16, w: &[u32; MAX_WORDS]) -> Option<(u64, bool)> {
    let (_, f) = NATIVE_MATH.get(usize::from(index))?;
    let d = |k: usize| -> Option<f64> {
        let x = f64::from_bits(u64::from(w[k]) | u64::from(w[k + 1]) << 32);
        x.is_finite().then_some(x)
    };
    let i = |k: usize| w[k] as i32;
    // SAFETY: the functions are the library's pure C functions of their value arguments (no
    // pointers, no global state), with exactly these C signatures (build.rs read them from the
    // definitions it compiled).
    let r = unsafe {
        match *f {
            MathFn::D_D(f) => (f(d(0)?).to_bits(), true),
            MathFn::D_DD(f) => (f(d(0)?, d(2)?).to_bits(), true),
            MathFn::D_DDD(f) => (f(d(0)?, d(2)?, d(4)?).to_bits(), true),
            MathFn::D_DDDD(f) => (f(d(0)?, d(2)?, d(4)?, d(6)?).to_bits(), true),
            MathFn::D_DI(f) => (f(d(0)?, i(2)).to_bits(), true),
            MathFn::D_DID(f) => (f(d(0)?, i(2), d(3)?).to_bits(), true),
            MathFn::I_D(f) => (u64::from(f(d(0)?) as u32), false),
            MathFn::I_DD(f) => (u64::from(f(d(0)?, d(2)?) as u32), false),
            MathFn::I_DDDD(f) => (u64::from(f(d(0)?, d(2)?, d(4)?, d(6)?) as u32), false),
        }
    };
    // A NaN from finite operands: the library's code produces it with its primitives (which
    // return only the canonical NaN) or returns the canonical NaN itself.
    let nan = r.1 && f64::from_bits(r.0).is_nan();
    Some(if nan { (crate::abi::subroutine::CANONICAL_NAN_F64, true) } else { r })
}
