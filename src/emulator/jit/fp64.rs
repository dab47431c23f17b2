//! Soft-double primitives compiled inline for a full vector state: the host's own IEEE-754
//! operation on the 32 lanes' operands, exactly what their host call
//! ([`HostCall::F64`](crate::emulator::hostcall::HostCall::F64), `hostcall::f64_lanes`)
//! computes — AVX2 double arithmetic in the default rounding mode (the host call's is compiled
//! to the same instructions), a NaN result replaced by the library's one NaN
//! ([`CANONICAL_NAN_F64`]) — without the call: no register saves, no dispatch, no mask.
//!
//! Contract: one routine per primitive per translation ([`Stubs`]), reached by `call` from the
//! copy of a function for a full vector state (every lane active, `vl` 32), where the call's
//! handler would write every lane; operands in v26–v31 (low word first, `a`, `b`, `c`), the
//! result in v26/v27, the others unchanged. The caller sets the pc to `ra`. Uses rax and
//! ymm0–ymm7 (the copy for a full state keeps nothing in them between entries), no stack.

use super::templates::v;
use crate::abi::subroutine::{CANONICAL_NAN_F64, LEVEL2_ARGS};
use crate::emulator::program::F64Op;
use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};

/// The primitives' routines of one translation: labels handed out while functions are
/// emitted, bodies emitted after them ([`Stubs::emit`]).
pub(super) struct Stubs {
    labels: [DynamicLabel; 6],
}

const OPS: [F64Op; 6] = [F64Op::Add, F64Op::Sub, F64Op::Mul, F64Op::Div, F64Op::Sqrt, F64Op::Fma];

impl Stubs {
    pub(super) fn new(a: &mut Assembler) -> Stubs {
        Stubs { labels: std::array::from_fn(|_| a.new_dynamic_label()) }
    }

    /// The routine of `op`.
    pub(super) fn of(&self, op: F64Op) -> DynamicLabel {
        let k = match op {
            F64Op::Add => 0,
            F64Op::Sub => 1,
            F64Op::Mul => 2,
            F64Op::Div => 3,
            F64Op::Sqrt => 4,
            F64Op::Fma => 5,
        };
        debug_assert_eq!(OPS[k], op);
        self.labels[k]
    }

    /// Emits every routine (once, after the functions).
    pub(super) fn emit(&self, a: &mut Assembler) {
        for (op, label) in OPS.into_iter().zip(self.labels) {
            dynasm!(a ; .arch x64 ; =>label);
            full(a, op);
            dynasm!(a ; .arch x64 ; ret);
        }
    }
}

/// `vshufps` selectors of the low and the high words of the doubles of two registers.
const LOW_WORDS: i8 = 0x88u8 as i8;
const HIGH_WORDS: i8 = 0xddu8 as i8;

/// Loads the doubles of lanes `8 j .. 8 j + 8` of the operand in `v(lo)`/`v(lo + 1)`: those of
/// lanes `8 j + {0, 1, 4, 5}` into `Ry(d0)`, of `8 j + {2, 3, 6, 7}` into `Ry(d1)` (the order of
/// `vpunpck[lh]dq`, which interleave within 128-bit halves; [`store`] undoes it). `Ry(tmp)` is
/// clobbered.
fn operand(a: &mut Assembler, lo: u8, j: i32, (d0, d1): (u8, u8), tmp: u8) {
    dynasm!(a
        ; .arch x64
        ; vmovdqu Ry(tmp), [r15 + v(lo, j)]
        ; vpunpckhdq Ry(d1), Ry(tmp), [r15 + v(lo + 1, j)]
        ; vpunpckldq Ry(d0), Ry(tmp), [r15 + v(lo + 1, j)]
    );
}

/// Stores the doubles in `Ry(r0)`/`Ry(r1)` (lanes in [`operand`]'s order) as lanes
/// `8 j .. 8 j + 8` of `v(lo)`/`v(lo + 1)`: `vshufps` picks the low (high) words of both, per
/// 128-bit half, back in lane order. `Ry(tmp)` is clobbered. (dynasm encodes `vshufps x, y, z`
/// with its sources swapped — as `vshufps x, z, y` — so the operands are written `r1, r0`.)
fn store(a: &mut Assembler, lo: u8, j: i32, (r0, r1): (u8, u8), tmp: u8) {
    dynasm!(a
        ; .arch x64
        ; vshufps Ry(tmp), Ry(r1), Ry(r0), LOW_WORDS
        ; vmovdqu [r15 + v(lo, j)], Ry(tmp)
        ; vshufps Ry(tmp), Ry(r1), Ry(r0), HIGH_WORDS
        ; vmovdqu [r15 + v(lo + 1, j)], Ry(tmp)
    );
}

/// Primitive `op` of v26–v31 on all 32 lanes into v26/v27 (see the module documentation).
/// Eight lanes at a time: `a` in ymm0/ymm1, `b` in ymm2/ymm3, `c` in ymm4/ymm6 (lanes in
/// [`operand`]'s order: the operation is lane-wise), the canonical NaN in ymm5.
fn full(a: &mut Assembler, op: F64Op) {
    let base = LEVEL2_ARGS;
    dynasm!(a
        ; .arch x64
        ; mov rax, QWORD CANONICAL_NAN_F64 as i64
        ; vmovq xmm5, rax
        ; vpbroadcastq ymm5, xmm5
    );
    for j in 0..4 {
        operand(a, base, j, (0, 1), 7);
        if op != F64Op::Sqrt {
            operand(a, base + 2, j, (2, 3), 7);
        }
        match op {
            F64Op::Add => dynasm!(a ; .arch x64 ; vaddpd ymm0, ymm0, ymm2 ; vaddpd ymm1, ymm1, ymm3),
            F64Op::Sub => dynasm!(a ; .arch x64 ; vsubpd ymm0, ymm0, ymm2 ; vsubpd ymm1, ymm1, ymm3),
            F64Op::Mul => dynasm!(a ; .arch x64 ; vmulpd ymm0, ymm0, ymm2 ; vmulpd ymm1, ymm1, ymm3),
            F64Op::Div => dynasm!(a ; .arch x64 ; vdivpd ymm0, ymm0, ymm2 ; vdivpd ymm1, ymm1, ymm3),
            F64Op::Sqrt => dynasm!(a ; .arch x64 ; vsqrtpd ymm0, ymm0 ; vsqrtpd ymm1, ymm1),
            F64Op::Fma => {
                operand(a, base + 4, j, (4, 6), 7);
                // vfmadd213pd ymm0, ymm2, ymm4 and ymm1, ymm3, ymm6 (x = x · y + z, one
                // rounding): dynasm encodes this form without VEX.W (as the single-precision
                // one).
                dynasm!(a ; .arch x64 ; .bytes [0xc4, 0xe2, 0xed, 0xa8, 0xc4] ; .bytes [0xc4, 0xe2, 0xe5, 0xa8, 0xce]);
            }
        }
        dynasm!(a
            ; .arch x64
            // A NaN becomes the canonical one.
            ; vcmppd ymm7, ymm0, ymm0, 3
            ; vblendvpd ymm0, ymm0, ymm5, ymm7
            ; vcmppd ymm7, ymm1, ymm1, 3
            ; vblendvpd ymm1, ymm1, ymm5, ymm7
        );
        store(a, base, j, (0, 1), 7);
    }
}
