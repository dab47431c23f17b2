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
//! ymm0–ymm5 (the copy for a full state keeps nothing in them between entries), no stack.

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

/// `vpshufd` selectors of the low and the high words of two doubles per 128-bit half.
const LOW_WORDS: i8 = 0x88u8 as i8;
const HIGH_WORDS: i8 = 0xddu8 as i8;
/// `vpermq` selector of the first qword of each 128-bit half (into the low half).
const FIRST_QWORDS: i8 = 0x08;

/// Loads the doubles of lanes `4 j .. 4 j + 4` of the operand in `v(lo)`/`v(lo + 1)` into
/// `Ry(dst)` (`tmp` is clobbered).
fn operand(a: &mut Assembler, lo: u8, j: i32, dst: u8, tmp: u8) {
    dynasm!(a
        ; .arch x64
        ; vpmovzxdq Ry(dst), [r15 + v(lo, 0) + 16 * j]
        ; vpmovzxdq Ry(tmp), [r15 + v(lo + 1, 0) + 16 * j]
        ; vpsllq Ry(tmp), Ry(tmp), 32
        ; vpor Ry(dst), Ry(dst), Ry(tmp)
    );
}

/// Primitive `op` of v26–v31 on all 32 lanes into v26/v27 (see the module documentation).
fn full(a: &mut Assembler, op: F64Op) {
    let base = LEVEL2_ARGS;
    dynasm!(a
        ; .arch x64
        ; mov rax, QWORD CANONICAL_NAN_F64 as i64
        ; vmovq xmm5, rax
        ; vpbroadcastq ymm5, xmm5
    );
    for j in 0..8 {
        // a in ymm0, b in ymm2, c in ymm4.
        operand(a, base, j, 0, 1);
        if op != F64Op::Sqrt {
            operand(a, base + 2, j, 2, 3);
        }
        match op {
            F64Op::Add => dynasm!(a ; .arch x64 ; vaddpd ymm0, ymm0, ymm2),
            F64Op::Sub => dynasm!(a ; .arch x64 ; vsubpd ymm0, ymm0, ymm2),
            F64Op::Mul => dynasm!(a ; .arch x64 ; vmulpd ymm0, ymm0, ymm2),
            F64Op::Div => dynasm!(a ; .arch x64 ; vdivpd ymm0, ymm0, ymm2),
            F64Op::Sqrt => dynasm!(a ; .arch x64 ; vsqrtpd ymm0, ymm0),
            F64Op::Fma => {
                operand(a, base + 4, j, 4, 3);
                // vfmadd213pd ymm0, ymm2, ymm4 (ymm0 = ymm0 · ymm2 + ymm4, one rounding):
                // dynasm encodes this form without VEX.W (as the single-precision one).
                dynasm!(a ; .arch x64 ; .bytes [0xc4, 0xe2, 0xed, 0xa8, 0xc4]);
            }
        }
        dynasm!(a
            ; .arch x64
            // A NaN becomes the canonical one.
            ; vcmppd ymm1, ymm0, ymm0, 3
            ; vblendvpd ymm0, ymm0, ymm5, ymm1
            ; vpshufd ymm1, ymm0, LOW_WORDS
            ; vpermq ymm1, ymm1, FIRST_QWORDS
            ; vmovdqu [r15 + v(base, 0) + 16 * j], xmm1
            ; vpshufd ymm1, ymm0, HIGH_WORDS
            ; vpermq ymm1, ymm1, FIRST_QWORDS
            ; vmovdqu [r15 + v(base + 1, 0) + 16 * j], xmm1
        );
    }
}
