//! One handler function per instruction: [`step`](super::step) instantiated with a constant
//! operation, so each is a short function of its own (the unit's `match` folds away) and the
//! untraced turn loop ([`crate::emulator::turn`]) dispatches through a table instead of
//! inlining every instruction's body into one large function, whose register pressure costs
//! every instruction spills and reloads.
//!
//! Two tables: [`BASELINE`] compiled for the baseline target, [`AVX2`] for AVX2/FMA/BMI (see
//! [`crate::emulator::simd`]). Index: [`index`] of the entry (`OP_COUNT` for an entry without an
//! operation: a host call or an illegal word). Handlers never trace.

use super::{not_an_op, step_op, Ctx, Flow};
use crate::emulator::fault::Trap;
use crate::emulator::program::Decoded;
use crate::emulator::trace::NoTrace;
use crate::emulator::warp::Warp;
use crate::isa::{Op, ALL_OPS, OP_COUNT};

/// Executes an entry for a warp whose pc is the entry's address: `true` when the outcome is
/// `Ok(Flow::Next)` (the common case, returned in a register), else `false` with the outcome
/// in the last argument.
///
/// On x86-64 the handlers have the platform's C calling convention (`sysv64`), so that the
/// translator's compiled runs ([`crate::emulator::jit`]) can call them. A handler does not
/// panic (every operation is total; faults are outcomes), and one that did would abort the
/// process rather than unwind through compiled code.
///
/// # Safety
/// The entry's [`index`] selected the handler, and for [`AVX2`] the host has its features.
#[cfg(target_arch = "x86_64")]
pub type Handler = unsafe extern "sysv64" fn(&mut Warp, &Decoded, &Ctx, &mut Result<Flow, Trap>) -> bool;
/// As on x86-64 (see there), with Rust's calling convention.
#[cfg(not(target_arch = "x86_64"))]
pub type Handler = unsafe fn(&mut Warp, &Decoded, &Ctx, &mut Result<Flow, Trap>) -> bool;

/// Table size: every operation, the entry without one, padded to whole rows of 16.
pub const ROWS: usize = (OP_COUNT + 1).div_ceil(16);

/// The handler index of `d`.
#[inline(always)]
pub fn index(d: &Decoded) -> usize {
    d.op.map_or(OP_COUNT, |op| op as usize)
}

/// The operation with number `n`, if there is one.
#[inline(always)]
const fn op_of(n: u16) -> Option<Op> {
    if (n as usize) < OP_COUNT {
        Some(ALL_OPS[n as usize])
    } else {
        None
    }
}

#[inline(always)]
fn run<const N: u16>(w: &mut Warp, d: &Decoded, ctx: &Ctx, out: &mut Result<Flow, Trap>) -> bool {
    let r = match const { op_of(N) } {
        Some(op) => step_op(w, d, ctx, &mut NoTrace, op),
        None => match ctx.prog.host_call(d.host_call) {
            // A call on registers only runs here, inside the turn (untraced: no record).
            Some(call) if call.registers_only() => {
                if crate::emulator::hostcall::run_registers_only(call, w) {
                    return true;
                }
                // Declined (see `run_registers_only`): run the function's code.
                super::host_call_code(w, d.host_call, ctx, &mut NoTrace)
            }
            _ => not_an_op(d),
        },
    };
    match r {
        Ok(Flow::Next) => true,
        r => {
            *out = r;
            false
        }
    }
}

/// Handler `N` for the baseline target.
///
/// # Safety
/// None beyond [`Handler`]'s (this one is safe to call).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
unsafe extern "sysv64" fn baseline<const N: u16>(
    w: &mut Warp,
    d: &Decoded,
    ctx: &Ctx,
    out: &mut Result<Flow, Trap>,
) -> bool {
    run::<N>(w, d, ctx, out)
}
/// Handler `N` for the baseline target.
///
/// # Safety
/// None beyond [`Handler`]'s (this one is safe to call).
#[cfg(not(target_arch = "x86_64"))]
#[inline(never)]
unsafe fn baseline<const N: u16>(w: &mut Warp, d: &Decoded, ctx: &Ctx, out: &mut Result<Flow, Trap>) -> bool {
    run::<N>(w, d, ctx, out)
}

/// Handler `N` compiled for AVX2, FMA and the bit instructions.
///
/// # Safety
/// The host must have those features ([`crate::emulator::simd::host_has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,lzcnt,bmi1,bmi2")]
#[inline(never)]
unsafe extern "sysv64" fn avx2<const N: u16>(
    w: &mut Warp,
    d: &Decoded,
    ctx: &Ctx,
    out: &mut Result<Flow, Trap>,
) -> bool {
    run::<N>(w, d, ctx, out)
}

macro_rules! row {
    ($f:ident, $r:expr) => {{
        const B: u16 = ($r * 16) as u16;
        [
            $f::<{ B }> as Handler,
            $f::<{ B + 1 }>,
            $f::<{ B + 2 }>,
            $f::<{ B + 3 }>,
            $f::<{ B + 4 }>,
            $f::<{ B + 5 }>,
            $f::<{ B + 6 }>,
            $f::<{ B + 7 }>,
            $f::<{ B + 8 }>,
            $f::<{ B + 9 }>,
            $f::<{ B + 10 }>,
            $f::<{ B + 11 }>,
            $f::<{ B + 12 }>,
            $f::<{ B + 13 }>,
            $f::<{ B + 14 }>,
            $f::<{ B + 15 }>,
        ]
    }};
}

macro_rules! rows {
    ($f:ident) => {{
        const ALL: [[Handler; 16]; 32] = [
            row!($f, 0),
            row!($f, 1),
            row!($f, 2),
            row!($f, 3),
            row!($f, 4),
            row!($f, 5),
            row!($f, 6),
            row!($f, 7),
            row!($f, 8),
            row!($f, 9),
            row!($f, 10),
            row!($f, 11),
            row!($f, 12),
            row!($f, 13),
            row!($f, 14),
            row!($f, 15),
            row!($f, 16),
            row!($f, 17),
            row!($f, 18),
            row!($f, 19),
            row!($f, 20),
            row!($f, 21),
            row!($f, 22),
            row!($f, 23),
            row!($f, 24),
            row!($f, 25),
            row!($f, 26),
            row!($f, 27),
            row!($f, 28),
            row!($f, 29),
            row!($f, 30),
            row!($f, 31),
        ];
        let mut t = [[not_an_op_handler as Handler; 16]; ROWS];
        let mut i = 0;
        while i < ROWS {
            t[i] = ALL[i];
            i += 1;
        }
        t
    }};
}

/// The entry without an operation (never selected: [`index`] maps it to `OP_COUNT`, whose
/// handler is `run::<OP_COUNT>`; this only fills the const array before the rows are copied).
///
/// # Safety
/// None beyond [`Handler`]'s (this one is safe to call).
#[cfg(target_arch = "x86_64")]
unsafe extern "sysv64" fn not_an_op_handler(_: &mut Warp, d: &Decoded, _: &Ctx, out: &mut Result<Flow, Trap>) -> bool {
    *out = not_an_op(d);
    false
}
/// As on x86-64.
///
/// # Safety
/// None beyond [`Handler`]'s (this one is safe to call).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn not_an_op_handler(_: &mut Warp, d: &Decoded, _: &Ctx, out: &mut Result<Flow, Trap>) -> bool {
    *out = not_an_op(d);
    false
}

const _: () = assert!(ROWS <= 32, "more than 511 instructions: extend `rows!`");

/// Handlers for the baseline target, by [`index`] (`[i / 16][i % 16]`).
pub static BASELINE: [[Handler; 16]; ROWS] = rows!(baseline);

/// Handlers compiled for AVX2/FMA/BMI, by [`index`].
#[cfg(target_arch = "x86_64")]
pub static AVX2: [[Handler; 16]; ROWS] = rows!(avx2);

/// The handler of `d` in `table`.
#[inline(always)]
pub fn handler(table: &[[Handler; 16]; ROWS], d: &Decoded) -> Handler {
    let i = index(d);
    table[i / 16][i % 16]
}
