//! The translator's gathers: a full warp's word loads whose lanes address one block of memory
//! the view remembers, as four host gathers (`vpgatherdd`) — see [`gather`].

use super::templates::{v, IOTA};
use crate::emulator::program::Decoded;
use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use std::mem::offset_of;

/// A full warp's `vlw12.v vd, imm(vs1)` whose lanes address aligned words of one global
/// buffer the view's gather table holds (filed under lane 0's address,
/// [`GATHER_SHIFT`](crate::emulator::memory::GATHER_SHIFT)) or of the mapped bottom of the LDS
/// window (static `__local` data, the warp stacks: the view's LDS block), inline: four host
/// gathers (what [`MemView::load_lanes`] does then: 128 global or local bytes counted);
/// anything else jumps to `slow` with nothing changed (neither block is set under a checker).
/// Only in the copy for a full vector state. Jumps to `done` after a hit. Also uses
/// ymm9–ymm12 (the offsets).
///
/// [`MemView::load_lanes`]: crate::emulator::memory::MemView::load_lanes
pub(super) fn gather(a: &mut Assembler, d: &Decoded, slow: DynamicLabel, done: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::{MemView, GATHER_SHIFT, GATHER_SLOTS};
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    let local = a.new_dynamic_label();
    // rdx = lane 0's slot.
    dynasm!(a
        ; .arch x64
        ; mov rcx, [r12 + mem]
        ; mov edx, [r15 + v(d.rs1, 0)]
        ; add edx, d.imm
        ; shr edx, GATHER_SHIFT as i8
        ; and edx, (GATHER_SLOTS - 1) as i32
        ; imul edx, edx, l.block_size as i32
        ; lea rdx, [rcx + rdx + l.gather as i32]
    );
    gather_from(a, d, local, done, l.moved_global as i32);
    dynasm!(a
        ; .arch x64
        ; =>local
        ; lea rdx, [rcx + l.lds as i32]
    );
    gather_from(a, d, slow, done, l.moved_local as i32);
}

/// [`gather`] from the block at rdx (rcx = the view), counting at `moved` in the view.
fn gather_from(a: &mut Assembler, d: &Decoded, miss: DynamicLabel, done: DynamicLabel, moved: i32) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    // ymm6 = the block's n − 1, ymm5 = its base, ymm4 = the immediate.
    dynasm!(a
        ; .arch x64
        ; mov eax, [rdx + l.n as i32]
        ; sub eax, 1
        ; jb =>miss
        ; vmovd xmm6, eax
        ; vpbroadcastd ymm6, xmm6
        ; vpbroadcastd ymm5, [rdx + l.base as i32]
        ; mov eax, d.imm
        ; vmovd xmm4, eax
        ; vpbroadcastd ymm4, xmm4
        ; vpcmpeqd ymm3, ymm3, ymm3
        ; vpxor ymm2, ymm2, ymm2
    );
    // Per chunk: the addresses (their low bits ORed into ymm2), the offsets from the base
    // (ymm9 + j), and in ymm3 whether every offset is at most n − 1 (unsigned).
    for j in 0..4u8 {
        dynasm!(a
            ; .arch x64
            ; vpaddd ymm1, ymm4, [r15 + v(d.rs1, i32::from(j))]
            ; vpor ymm2, ymm2, ymm1
            ; vpsubd Ry(9 + j), ymm1, ymm5
            ; vpmaxud ymm0, Ry(9 + j), ymm6
            ; vpcmpeqd ymm0, ymm0, ymm6
            ; vpand ymm3, ymm3, ymm0
        );
    }
    let gathers = a.new_dynamic_label();
    dynasm!(a
        ; .arch x64
        ; vpslld ymm2, ymm2, 30
        ; vptest ymm2, ymm2
        ; jnz =>miss
        ; vpcmpeqd ymm0, ymm0, ymm0
        ; vptest ymm3, ymm0
        ; jnc =>miss
        ; mov rax, [rdx + l.words as i32]
        ; add QWORD [rcx + moved], 128
        // Runs of 8 consecutive words (the rows of a 2D work-group 8 or 16 items wide): four
        // 32-byte loads instead. ymm5 = 0, 4, …, 28; ymm2 = the bits in which an offset
        // differs from its run's first + 4 i.
        ; mov r8, QWORD IOTA.0.as_ptr() as i64
        ; vmovdqu ymm5, [r8]
        ; vpslld ymm5, ymm5, 2
    );
    for j in 0..4u8 {
        dynasm!(a
            ; .arch x64
            ; vpbroadcastd ymm0, Rx(9 + j)
            ; vpaddd ymm0, ymm0, ymm5
            ; vpxor ymm0, ymm0, Ry(9 + j)
            ; vpor ymm2, ymm2, ymm0
        );
    }
    dynasm!(a ; .arch x64 ; vptest ymm2, ymm2 ; jnz =>gathers);
    for j in 0..4u8 {
        dynasm!(a
            ; .arch x64
            ; vmovd r8d, Rx(9 + j)
            ; vmovdqu ymm0, [rax + r8]
            ; vmovdqu [r15 + v(d.rd, i32::from(j))], ymm0
        );
    }
    dynasm!(a ; .arch x64 ; jmp =>done ; =>gathers);
    for j in 0..4u8 {
        dynasm!(a
            ; .arch x64
            ; vpcmpeqd ymm0, ymm0, ymm0
            ; vpxor ymm1, ymm1, ymm1
            ; vpgatherdd ymm1, [rax + Ry(9 + j) * 1], ymm0
            ; vmovdqu [r15 + v(d.rd, i32::from(j))], ymm1
        );
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}
