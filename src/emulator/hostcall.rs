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
//! lane and the address. [`HostCall::ImageOutside`] is the image library's checker hook: under
//! the memory checker it stops the launch with the pixel (read from the hook's argument words of
//! the first active lane) at the call site; otherwise it declines and the hook's code runs.

use super::fault::{FaultKind, Trap};
use super::memory::MemView;
pub use super::program::{install_checks, install_native_fp64, F64Op, HostCall, CHECK_ARGS, F64_ARGS, MATH_ARGS};
use super::warp::{Warp, MAX_LANES};
use crate::abi::printf::legacy;

/// Receives `CSR_PRINT` writes and host-formatted text while the kernel runs (called on the
/// emulator thread).
pub trait PrintHook: Send + Sync {
    fn on_print(&self, work_group: u32, warp: u32, value: u32);
    /// Text printed by a host call ((this module)) of warp `warp` of `work_group`; by default it
    /// goes to standard output.
    fn on_text(&self, work_group: u32, warp: u32, text: &[u8]) {
        let _ = (work_group, warp);
        write_stdout(text);
    }
}

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
        canonical_bits(match self {
            F64Op::Add => x + y,
            F64Op::Sub => x - y,
            F64Op::Mul => x * y,
            F64Op::Div => x / y,
            F64Op::Fma => x.mul_add(y, z),
            F64Op::Sqrt => x.sqrt(),
        })
    }

    /// [`F64Op::eval`] of the operands `[a, b, c]`.
    #[inline]
    fn eval_words(self, [a, b, c]: [u64; 3]) -> u64 {
        self.eval(a, b, c)
    }
}

use crate::abi::subroutine::CANONICAL_NAN_F64;

/// The bits of a primitive's result, a NaN made canonical (the library's NaN).
#[inline(always)]
fn canonical_bits(r: f64) -> u64 {
    if r.is_nan() {
        CANONICAL_NAN_F64
    } else {
        r.to_bits()
    }
}

/// Writes double results `bits[lane]` to v26/v27 (low word first) in the lanes of `lanes`.
#[inline(always)]
fn set_f64_lanes(w: &mut Warp, lanes: u32, bits: &[u64; MAX_LANES]) {
    let (lo, hi) = w.v.split_at_mut(F64_ARGS + 1);
    let (lo, hi) = (&mut lo[F64_ARGS], &mut hi[0]);
    for l in 0..MAX_LANES {
        if lanes >> l & 1 == 1 {
            lo[l] = bits[l] as u32;
            hi[l] = (bits[l] >> 32) as u32;
        }
    }
}

/// The three double operands of `lane` (v26–v31, low word first; unused ones are ignored).
fn f64_operands(w: &Warp, lane: usize) -> [u64; 3] {
    let word = |r: usize| u64::from(w.v[F64_ARGS + r][lane]);
    [0, 2, 4].map(|r| word(r) | word(r + 1) << 32)
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
        HostCall::ImageOutside => {
            // Without the memory checker the hook's code runs (the access is skipped).
            let lanes = w.vmask();
            if !mem.checking() || lanes == 0 {
                return Ok(false);
            }
            let lane = lanes.trailing_zeros() as usize;
            let word = |k: usize| w.v[CHECK_ARGS + k][lane];
            let [x, y, z] = [1, 2, 3].map(|k| word(k) as i32);
            let kind = FaultKind::ImageOutside { write: word(4) != 0, x, y, z };
            // Reported at the call (the `jal` before `ra`): the image built-in's own place.
            w.pc = w.x[1].wrapping_sub(4);
            return Err(Trap { kind, addr: Some(word(0)), lane: Some(lane as u32) });
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
    let done = match call {
        HostCall::F64Math(f) => per_lane(w, false, math(f), set_math_result),
        HostCall::F64MathUniform(f) => per_lane(w, true, math(f), set_math_result),
        HostCall::F64(op) => {
            f64_lanes(w, op);
            true
        }
        HostCall::F64Uniform(op) => {
            f64_uniform(w, op);
            true
        }
        HostCall::LegacyPrintf | HostCall::ImageOutside => false,
    };
    if done {
        w.pc = w.x[1];
    }
    done
}

/// [`HostCall::F64`]: primitive `op` on every active lane — what [`per_lane`] does with it (a
/// primitive never declines), over whole registers: each operand's 32 lanes are read row by row,
/// one loop per operation computes every lane (vectorised; compiled for AVX2/FMA when the host
/// has them; inactive lanes' results are dropped), and the active lanes get theirs. Bit for bit
/// [`F64Op::eval`] (IEEE operations, NaNs canonical).
fn f64_lanes(w: &mut Warp, op: F64Op) {
    #[cfg(target_arch = "x86_64")]
    if super::simd::host_has_avx2() {
        // SAFETY: the host has the features `f64_lanes_avx2` is compiled for.
        unsafe { f64_lanes_avx2(w, op) };
        return;
    }
    f64_lanes_body(w, op);
}

/// [`HostCall::F64Uniform`]: primitive `op` of the highest active lane's operands, its result
/// in every active lane — [`per_lane`]'s uniform case without its per-lane bookkeeping.
fn f64_uniform(w: &mut Warp, op: F64Op) {
    let lanes = w.vmask();
    if lanes == 0 {
        return;
    }
    let r = op.eval_words(f64_operands(w, 31 - lanes.leading_zeros() as usize));
    set_f64_lanes(w, lanes, &[r; MAX_LANES]);
}

/// [`f64_lanes`] compiled for AVX2 and FMA.
///
/// # Safety
/// The host must have those features ([`super::simd::host_has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn f64_lanes_avx2(w: &mut Warp, op: F64Op) {
    f64_lanes_body(w, op);
}

/// The 32 lanes of the double operand in v(26 + `r`)/v(27 + `r`).
#[inline(always)]
fn f64_operand(w: &Warp, r: usize) -> [f64; MAX_LANES] {
    let (lo, hi) = (&w.v[F64_ARGS + r], &w.v[F64_ARGS + r + 1]);
    let mut x = [0f64; MAX_LANES];
    for l in 0..MAX_LANES {
        x[l] = f64::from_bits(u64::from(lo[l]) | u64::from(hi[l]) << 32);
    }
    x
}

/// Plain loops, no closures: a closure is a function of its own, compiled without the caller's
/// target features (its `mul_add` would call the C library's `fma` instead of one `vfmadd`).
#[inline(always)]
fn f64_lanes_body(w: &mut Warp, op: F64Op) {
    let lanes = w.vmask();
    if lanes == 0 {
        return;
    }
    let (a, b) = (f64_operand(w, 0), f64_operand(w, 2));
    let mut r = [0f64; MAX_LANES];
    match op {
        F64Op::Add => {
            for l in 0..MAX_LANES {
                r[l] = a[l] + b[l];
            }
        }
        F64Op::Sub => {
            for l in 0..MAX_LANES {
                r[l] = a[l] - b[l];
            }
        }
        F64Op::Mul => {
            for l in 0..MAX_LANES {
                r[l] = a[l] * b[l];
            }
        }
        F64Op::Div => {
            for l in 0..MAX_LANES {
                r[l] = a[l] / b[l];
            }
        }
        F64Op::Sqrt => {
            for l in 0..MAX_LANES {
                r[l] = a[l].sqrt();
            }
        }
        F64Op::Fma => {
            let c = f64_operand(w, 4);
            for l in 0..MAX_LANES {
                r[l] = a[l].mul_add(b[l], c[l]);
            }
        }
    }
    let mut bits = [0u64; MAX_LANES];
    for l in 0..MAX_LANES {
        bits[l] = canonical_bits(r[l]);
    }
    set_f64_lanes(w, lanes, &bits);
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
