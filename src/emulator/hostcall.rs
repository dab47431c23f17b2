//! Host calls: functions of a program that the emulator executes natively instead of running
//! their code.
//!
//! A host call is installed at a function's entry address ([`super::Program::install_host_call`]);
//! the predecoded entry there is replaced by a marker (an "illegal" entry, so
//! [`super::exec::step`] pays nothing for it on other instructions). A call that touches only the
//! warp's registers ([`HostCall::registers_only`]) runs in place inside an untraced turn, like a
//! private instruction; the others end the turn and run in the work-group runner, with the
//! print hook at hand. The call runs for the warp's active lanes, writes its result
//! (`v0`; `v26`/`v27` for the soft-double primitives, `v232`/`v233` for its math built-ins) and
//! returns to `ra` (`x1`), as the
//! function's own `ret` would. Nothing else of the warp changes (`sp`/`tp` are untouched,
//! exactly as after the function's epilogue; registers the function's code would have used as
//! scratch keep their values — by the calling convention no caller reads them).
//!
//! [`HostCall::F64`] runs the soft-double library's arithmetic primitives natively in untraced
//! runs (a traced run executes the replaced instruction and the code after it, see
//! [`super::Program::host_call_original`]); [`HostCall::F64Math`] its math built-ins, compiled
//! for the host ([`super::native_math`]), declining — the lanes concerned then run the code
//! from the replaced instruction — where the host's bits could differ from the library's.
//! [`HostCall::LegacyPrintf`] is the 2023 libclc `printf` of official binaries
//! (see [`crate::abi::printf::legacy`] for why it cannot run on the device and how its arguments
//! are read). Its text goes to the launch's [`PrintHook::on_text`] (standard output without a
//! hook), so it appears while the kernel runs; each call returns 0 in `v0` (success, as OpenCL's
//! `printf` specifies). An unreadable format string is a load-access fault at the call, naming the
//! lane and the address.

use super::fault::{FaultKind, Trap};
use super::memory::MemView;
use super::warp::{Warp, MAX_LANES};
use super::PrintHook;
use crate::abi::printf::legacy;

/// A natively executed function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCall {
    /// The 2023 libclc device-side `printf`.
    LegacyPrintf,
    /// A primitive of our soft-double library (`compiler/softlib/fp64.cl`), level-2 calling
    /// convention (`compiler::target::call`): the operands' words in v26–v31 (low word first),
    /// the result's in v26/v27, per active lane. The library is correctly rounded
    /// (round-to-nearest-even, subnormals kept) and returns the canonical NaN for every NaN
    /// result, which is what the host's IEEE-754 arithmetic gives after canonicalisation, so
    /// the results are the library's bit for bit (`tests/native_fp64.rs` compares them). Only
    /// untraced runs use it: a traced run executes the library's code, so its commit log is
    /// the code's ([`HostCall::traced_natively`]).
    F64(F64Op),
    /// The uniform variant of a primitive (`…__u`, `compiler::target::call`): the operands are
    /// read from the highest active lane (the code's `vmv.x.s`) and the result is written to
    /// every active lane (its `vmv.v.x`); nothing happens without an active lane.
    F64Uniform(F64Op),
    /// A level-1 math built-in of the library (`__vt_d_sin` …, entry of
    /// [`super::native_math::NATIVE_MATH`]) compiled for the host, level-1 calling convention:
    /// argument words from v232 (a double low word first, an int one word), the result's in
    /// v232/v233, per active lane. Untraced runs only; lanes whose native result could differ
    /// from the library's ([`super::native_math::eval`] declines) run the code, with the warp's
    /// mask narrowed to them until it returns ([`Warp::resume_mask`]).
    F64Math(u16),
    /// The uniform variant of a math built-in (as [`HostCall::F64Uniform`]).
    F64MathUniform(u16),
}

/// The soft-double primitives run natively ([`HostCall::F64`]): the ABI's list.
pub use crate::abi::subroutine::F64Primitive as F64Op;

/// The host's IEEE evaluation of the primitives.
trait Eval {
    fn eval(self, a: u64, b: u64, c: u64) -> u64;
    fn eval_words(self, ops: [u64; 3]) -> u64;
}

impl Eval for F64Op {
    /// The result for operand bit patterns `a`, `b`, `c` (unused ones ignored).
    #[inline]
    fn eval(self, a: u64, b: u64, c: u64) -> u64 {
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let r = match self {
            F64Op::Add => x + y,
            F64Op::Sub => x - y,
            F64Op::Mul => x * y,
            F64Op::Div => x / y,
            F64Op::Fma => x.mul_add(y, z),
            F64Op::Sqrt => x.sqrt(),
        };
        if r.is_nan() {
            CANONICAL_NAN_F64
        } else {
            r.to_bits()
        }
    }

    /// [`F64Op::eval`] of the operands `[a, b, c]`.
    #[inline]
    fn eval_words(self, [a, b, c]: [u64; 3]) -> u64 {
        self.eval(a, b, c)
    }
}

/// The library's NaN result (`VT_QNAN`).
pub const CANONICAL_NAN_F64: u64 = 0x7ff8_0000_0000_0000;

/// First vector register of the level-2 argument words.
const F64_ARGS: usize = crate::abi::subroutine::LEVEL2_ARGS as usize;

/// First vector register of the level-1 argument words (`compiler::target::call::level(1)`).
pub const MATH_ARGS: usize = crate::abi::subroutine::LEVEL1_ARGS as usize;

/// The three double operands of `lane` (v26–v31, low word first; unused ones are ignored).
fn f64_operands(w: &Warp, lane: usize) -> [u64; 3] {
    let word = |r: usize| u64::from(w.v[F64_ARGS + r][lane]);
    [0, 2, 4].map(|r| word(r) | word(r + 1) << 32)
}

/// Stores a double result in `lane` of v26/v27 (low word first).
fn set_f64_result(w: &mut Warp, lane: usize, r: u64) {
    w.v[F64_ARGS][lane] = r as u32;
    w.v[F64_ARGS + 1][lane] = (r >> 32) as u32;
}

/// Installs [`HostCall::F64`] at the soft-double primitives of one of our ELFs, found by their
/// subroutine labels ([`crate::abi::SUBROUTINE_LABEL_PREFIX`]); other ELFs have none. Returns
/// how many were installed.
pub fn install_native_fp64(elf: &crate::abi::elf::VentusElf, prog: &mut super::Program) -> usize {
    let mut n = 0;
    for s in elf.symbols.iter().filter(|s| s.in_text) {
        let Some(name) = s.name.strip_prefix(crate::abi::SUBROUTINE_LABEL_PREFIX) else { continue };
        let call = match name.strip_suffix(crate::abi::UNIFORM_SUFFIX) {
            Some(base) => F64Op::from_name(base)
                .map(HostCall::F64Uniform)
                .or_else(|| super::native_math::lookup(base).map(HostCall::F64MathUniform)),
            None => F64Op::from_name(name)
                .map(HostCall::F64)
                .or_else(|| super::native_math::lookup(name).map(HostCall::F64Math)),
        };
        if let Some(call) = call {
            n += usize::from(prog.install_host_call(s.addr, call));
        }
    }
    n
}

impl HostCall {
    /// Whether the call reads and writes only the warp's registers (no memory, no host
    /// output): an untraced turn runs it in place ([`run_registers_only`]) without ending.
    pub fn registers_only(self) -> bool {
        !matches!(self, HostCall::LegacyPrintf)
    }

    /// Whether [`run_registers_only`] may decline the call (the warp then runs its code).
    pub fn may_decline(self) -> bool {
        matches!(self, HostCall::F64Math(_) | HostCall::F64MathUniform(_))
    }

    /// One past the highest vector register the call writes (`v0`; `v26`/`v27`).
    pub fn vreg_bound(self) -> usize {
        match self {
            HostCall::LegacyPrintf => 1,
            HostCall::F64(_) | HostCall::F64Uniform(_) => F64_ARGS + 2,
            HostCall::F64Math(_) | HostCall::F64MathUniform(_) => MATH_ARGS + 2,
        }
    }

    /// Whether a traced run also runs the call natively. The legacy `printf` cannot run on the
    /// device at all; a soft-double primitive can, and a trace records its code.
    pub fn traced_natively(self) -> bool {
        matches!(self, HostCall::LegacyPrintf)
    }
}

/// Reads a NUL-terminated string of at most [`legacy::MAX_STRING`] bytes; `None` if a byte is
/// unmapped. A string without NUL within the limit is cut there.
fn read_cstr(mem: &MemView, addr: u32) -> Option<Vec<u8>> {
    let mut s = Vec::new();
    for k in 0..legacy::MAX_STRING as u32 {
        match mem.load(addr.wrapping_add(k), 1).ok()? as u8 {
            0 => break,
            b => s.push(b),
        }
    }
    Some(s)
}

/// Runs `call` for warp `w` (index `warp` of work-group `group`) and returns to its `ra`:
/// `Ok(true)`; `Ok(false)` when a call on registers declines ([`run_registers_only`]: the warp
/// must run the function's code instead).
pub(super) fn run(
    call: HostCall,
    w: &mut Warp,
    mem: &MemView,
    hook: Option<&dyn PrintHook>,
    group: u32,
    warp: u32,
) -> Result<bool, Trap> {
    match call {
        HostCall::F64(_) | HostCall::F64Uniform(_) | HostCall::F64Math(_) | HostCall::F64MathUniform(_) => {
            return Ok(run_registers_only(call, w));
        }
        HostCall::LegacyPrintf => {
            let lanes = w.mask & w.width_mask;
            let mut out = Vec::new();
            for lane in (0..MAX_LANES).filter(|l| lanes >> l & 1 == 1) {
                let regs: [u32; legacy::ARG_REGS] = std::array::from_fn(|r| w.v[r][lane]);
                let format = read_cstr(mem, regs[0]).ok_or(Trap {
                    kind: FaultKind::LoadAccess,
                    addr: Some(regs[0]),
                    lane: Some(lane as u32),
                })?;
                legacy::format_call(&format, &regs, &mut |a| read_cstr(mem, a), &mut out);
                w.v[0][lane] = 0;
            }
            match hook {
                Some(h) => h.on_text(group, warp, &out),
                None => write_stdout(&out),
            }
        }
    }
    w.pc = w.x[1];
    Ok(true)
}

/// Runs a [`HostCall::registers_only`] call for warp `w` and returns to its `ra`: `true`.
/// `false` when the warp must run the function's code instead: a math built-in that
/// [`super::native_math::eval`] declines (see [`per_lane`]), and any other call.
#[inline]
pub(super) fn run_registers_only(call: HostCall, w: &mut Warp) -> bool {
    let math = |f| move |w: &Warp, lane| super::native_math::eval(f, &math_operands(w, lane));
    let prim = |op: F64Op| move |w: &Warp, lane| Some(op.eval_words(f64_operands(w, lane)));
    let done = match call {
        HostCall::F64Math(f) => per_lane(w, false, math(f), set_math_result),
        HostCall::F64MathUniform(f) => per_lane(w, true, math(f), set_math_result),
        HostCall::F64(op) => per_lane(w, false, prim(op), set_f64_result),
        HostCall::F64Uniform(op) => per_lane(w, true, prim(op), set_f64_result),
        HostCall::LegacyPrintf => false,
    };
    if done {
        w.pc = w.x[1];
    }
    done
}

/// For every active lane, `store`s `eval` of that lane's operands — of the highest active
/// lane's when `uniform` (the uniform variants' `vmv.x.s`, their result broadcast to the active
/// lanes) — and returns `true`. Where `eval` declines, the warp must run the function's code
/// (`false`): a uniform call, or a per-lane one every active lane declines, changes nothing; a
/// per-lane one some lanes decline stores the others' results and narrows the warp's mask to
/// the declined lanes until the code returns to `ra` ([`Warp::resume_mask`]). Level-1
/// functions call no level-1 function, so no such call is pending then (if one were, this one
/// declines wholly).
#[inline(always)]
fn per_lane<R: Copy + Default>(
    w: &mut Warp,
    uniform: bool,
    eval: impl Fn(&Warp, usize) -> Option<R>,
    store: impl Fn(&mut Warp, usize, R),
) -> bool {
    let lanes = w.vmask();
    if lanes == 0 {
        return true;
    }
    let each = |m: u32| (0..MAX_LANES).filter(move |l| m >> l & 1 == 1);
    let mut out = [R::default(); MAX_LANES];
    let mut declined = 0u32;
    if uniform {
        let Some(r) = eval(w, 31 - lanes.leading_zeros() as usize) else { return false };
        out = [r; MAX_LANES];
    } else {
        for lane in each(lanes) {
            match eval(w, lane) {
                Some(r) => out[lane] = r,
                None => declined |= 1 << lane,
            }
        }
        if declined == lanes || (declined != 0 && w.resume_mask != 0) {
            return false;
        }
    }
    let done = lanes & !declined;
    for lane in each(done) {
        store(w, lane, out[lane]);
    }
    if declined != 0 {
        w.resume_mask = w.mask;
        w.resume_ra = w.x[1];
        w.mask &= !done;
        return false;
    }
    true
}

/// The level-1 argument words of `lane`.
fn math_operands(w: &Warp, lane: usize) -> [u32; super::native_math::MAX_WORDS] {
    std::array::from_fn(|k| w.v[MATH_ARGS + k][lane])
}

/// Stores a level-1 result in `lane`: a double's two words, or an int's one.
fn set_math_result(w: &mut Warp, lane: usize, (r, double): (u64, bool)) {
    w.v[MATH_ARGS][lane] = r as u32;
    if double {
        w.v[MATH_ARGS + 1][lane] = (r >> 32) as u32;
    }
}

/// Writes `text` to standard output (flushed); a closed stdout is ignored.
pub fn write_stdout(text: &[u8]) {
    use std::io::Write;
    if !text.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text).and_then(|_| out.flush());
    }
}
