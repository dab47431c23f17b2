//! The translator's gathers and scatters: vector loads and stores whose lanes address one
//! block of memory the view remembers (a buffer of its gather table, or its LDS block) at
//! scattered places — a full warp's words as four host gathers (`vpgatherdd`, [`gather`]), a
//! partial warp's as masked ones ([`gather_masked`]), bytes and halfwords as gathers of the
//! words holding them ([`gather_narrow`]), stores as one host store per active lane in lane
//! order ([`scatter`]). Each checks every (active) lane's alignment and bounds first and leaves
//! the access to its handler, unchanged, when one fails; each counts the bytes as the
//! interpreter's one-step path does.

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
/// ymm7–ymm10 (the offsets) and ymm15.
///
/// [`MemView::load_lanes`]: crate::emulator::memory::MemView::load_lanes
pub(super) fn gather(a: &mut Assembler, d: &Decoded, slow: DynamicLabel, done: DynamicLabel) {
    in_either_block(a, d, false, slow, |a, miss, moved, _| gather_from(a, d, false, miss, done, moved));
}

/// [`gather`] (or with `masked` [`gather_masked`]) from the block at rdx (rcx = the view),
/// counting at `moved` in the view.
fn gather_from(a: &mut Assembler, d: &Decoded, masked: bool, miss: DynamicLabel, done: DynamicLabel, moved: i32) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    check_lanes(a, d, 4, masked, miss);
    dynasm!(a ; .arch x64 ; mov rax, [rdx + l.words as i32]);
    count(a, 4, masked, moved);
    if masked {
        for j in 0..4u8 {
            dynasm!(a
                ; .arch x64
                ; vmovdqu ymm1, [r15 + v(d.rd, i32::from(j))]
                ; vmovdqa ymm0, Ry(11 + j)
                ; vpgatherdd ymm1, [rax + Ry(7 + j) * 1], ymm0
                ; vmovdqu [r15 + v(d.rd, i32::from(j))], ymm1
            );
        }
        dynasm!(a ; .arch x64 ; jmp =>done);
        return;
    }
    // Runs of 8 consecutive words (the rows of a 2D work-group 8 or 16 items wide): four
    // 32-byte loads instead. ymm5 = 0, 4, …, 28; ymm3 (zero after the checks) = the bits in
    // which an offset differs from its run's first + 4 i.
    let gathers = a.new_dynamic_label();
    dynasm!(a
        ; .arch x64
        ; mov r8, QWORD IOTA.0.as_ptr() as i64
        ; vmovdqu ymm5, [r8]
        ; vpslld ymm5, ymm5, 2
    );
    for j in 0..4u8 {
        dynasm!(a
            ; .arch x64
            ; vpbroadcastd ymm0, Rx(7 + j)
            ; vpaddd ymm0, ymm0, ymm5
            ; vpxor ymm0, ymm0, Ry(7 + j)
            ; vpor ymm3, ymm3, ymm0
        );
    }
    dynasm!(a ; .arch x64 ; vptest ymm3, ymm3 ; jnz =>gathers);
    for j in 0..4u8 {
        dynasm!(a
            ; .arch x64
            ; vmovd r8d, Rx(7 + j)
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
            ; vpgatherdd ymm1, [rax + Ry(7 + j) * 1], ymm0
            ; vmovdqu [r15 + v(d.rd, i32::from(j))], ymm1
        );
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// The access in one of two blocks: `body(a, miss, moved, local)` for the block of the
/// gather table's slot of the first lane's address ([`first_slot`]), then, where that one
/// misses, for the view's LDS block (`local`), then to `slow` — with rdx = the block, rcx =
/// the view, and `moved` the view's counter of the block's bytes.
fn in_either_block(
    a: &mut Assembler,
    d: &Decoded,
    masked: bool,
    slow: DynamicLabel,
    mut body: impl FnMut(&mut Assembler, DynamicLabel, i32, bool),
) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let local = a.new_dynamic_label();
    first_slot(a, d, masked, slow);
    body(a, local, l.moved_global as i32, false);
    dynasm!(a ; .arch x64 ; =>local ; lea rdx, [rcx + l.lds as i32]);
    body(a, slow, l.moved_local as i32, true);
}

/// rcx = the view (from the context at r12) and rdx = the gather-table slot of the address
/// of lane r8 of `imm(vs1)`: lane 0 (`masked` = false) or the first active one (r10d; none:
/// to `slow`).
fn first_slot(a: &mut Assembler, d: &Decoded, masked: bool, slow: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::{MemView, GATHER_SHIFT, GATHER_SLOTS};
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    if masked {
        dynasm!(a
            ; .arch x64
            ; test r10d, r10d
            ; jz =>slow
            ; tzcnt r8d, r10d
        );
    } else {
        dynasm!(a ; .arch x64 ; xor r8d, r8d);
    }
    dynasm!(a
        ; .arch x64
        ; mov rcx, [r12 + mem]
        ; mov edx, [r15 + r8 * 4 + v(d.rs1, 0)]
        ; add edx, d.imm
        ; shr edx, GATHER_SHIFT as i8
        ; and edx, (GATHER_SLOTS - 1) as i32
        ; imul edx, edx, l.block_size as i32
        ; lea rdx, [rcx + rdx + l.gather as i32]
    );
}

/// For an access at `imm(vs1)` to the block at rdx: ymm6 = the block's n − 1 (to `miss` when
/// it is empty), ymm5 = its base, ymm4 = the immediate. Uses eax.
fn block_consts(a: &mut Assembler, d: &Decoded, miss: DynamicLabel) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
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
    );
}

/// The lane checks of a `bytes`-wide access at `imm(vs1)` (every lane, or with `masked` the
/// active ones: ymm11–ymm14) against the block at rdx: to `miss` when the block is empty, an
/// address is not `bytes`-aligned or the word holding it lies outside the block. Leaves
/// ymm7 + j = the word offsets of lanes `8 j ..` from the block's base, ymm4 = the immediate
/// and ymm2 = every lane; uses ymm0–ymm6 and ymm15.
fn check_lanes(a: &mut Assembler, d: &Decoded, bytes: i32, masked: bool, miss: DynamicLabel) {
    // ymm3 collects the faults; for words, ymm15 the (active) addresses, whose low bits are
    // tested once at the end, else ymm15 = −4 (a word's offset).
    block_consts(a, d, miss);
    dynasm!(a
        ; .arch x64
        ; vpcmpeqd ymm2, ymm2, ymm2
        ; vpxor ymm3, ymm3, ymm3
    );
    if bytes == 4 {
        dynasm!(a ; .arch x64 ; vpxor ymm15, ymm15, ymm15);
    } else {
        dynasm!(a
            ; .arch x64
            ; mov eax, -4
            ; vmovd xmm15, eax
            ; vpbroadcastd ymm15, xmm15
        );
    }
    for j in 0..4u8 {
        let lanes = if masked { 11 + j } else { 2 };
        dynasm!(a ; .arch x64 ; vpaddd ymm1, ymm4, [r15 + v(d.rs1, i32::from(j))]);
        if bytes == 4 {
            // An aligned word's offset is its word's.
            dynasm!(a ; .arch x64 ; vpsubd Ry(7 + j), ymm1, ymm5);
        } else {
            dynasm!(a
                ; .arch x64
                ; vpsubd ymm0, ymm1, ymm5
                ; vpand Ry(7 + j), ymm0, ymm15
            );
        }
        dynasm!(a
            ; .arch x64
            ; vpmaxud ymm0, Ry(7 + j), ymm6
            ; vpcmpeqd ymm0, ymm0, ymm6
            ; vpandn ymm0, ymm0, Ry(lanes)
            ; vpor ymm3, ymm3, ymm0
        );
        if masked && bytes > 1 {
            dynasm!(a ; .arch x64 ; vpand ymm1, ymm1, Ry(lanes));
        }
        match bytes {
            4 => dynasm!(a ; .arch x64 ; vpor ymm15, ymm15, ymm1),
            2 => dynasm!(a
                ; .arch x64
                ; vpslld ymm1, ymm1, 31
                ; vpor ymm3, ymm3, ymm1
            ),
            _ => {}
        }
    }
    if bytes == 4 {
        dynasm!(a
            ; .arch x64
            ; vpslld ymm15, ymm15, 30
            ; vpor ymm3, ymm3, ymm15
        );
    }
    dynasm!(a
        ; .arch x64
        ; vptest ymm3, ymm3
        ; jnz =>miss
    );
}

/// Counts `bytes` per lane (every lane, or with `masked` those in r10d) at `moved` in the view
/// at rcx. Uses rdx.
fn count(a: &mut Assembler, bytes: i32, masked: bool, moved: i32) {
    if masked {
        dynasm!(a
            ; .arch x64
            ; popcnt edx, r10d
            ; imul edx, edx, bytes
            ; add [rcx + moved], rdx
        );
    } else {
        dynasm!(a ; .arch x64 ; add QWORD [rcx + moved], 32 * bytes);
    }
}

/// `vlw12.v vd, imm(vs1)` in the copy for a partial vector state, when the active lanes
/// ([`masked_lanes`](super::templates::masked_lanes): r10d, ymm11–ymm14; at least one) address
/// aligned words of one global buffer the view's gather table holds (filed under the first
/// active lane's address) or of the view's LDS block: four masked host gathers into the active
/// lanes, the others keeping their value (what [`MemView::load_lanes`] does then: 4 bytes per
/// active lane counted); anything else jumps to `slow` with nothing changed. Jumps to `done`
/// after a hit. Keeps r10d and ymm11–ymm14; also uses ymm7–ymm10 (the offsets) and ymm15.
///
/// [`MemView::load_lanes`]: crate::emulator::memory::MemView::load_lanes
pub(super) fn gather_masked(a: &mut Assembler, d: &Decoded, slow: DynamicLabel, done: DynamicLabel) {
    in_either_block(a, d, true, slow, |a, miss, moved, _| gather_from(a, d, true, miss, done, moved));
}

/// A byte or halfword load (`vlb12.v`, `vlbu12.v`, `vlh12.v`, `vlhu12.v` — `op`) of a full warp
/// (`masked` = false) or of the active lanes of a partial one (`masked`: r10d and ymm11–ymm14
/// from [`masked_lanes`](super::templates::masked_lanes), at least one lane), inline when the
/// lanes' (halfword-aligned) addresses lie in whole words of one global buffer the view's
/// gather table holds (filed under the first active lane's address) or of the view's LDS
/// block: four host gathers of the words holding them, each lane's byte or halfword shifted
/// out and sign- or zero-extended (what [`MemView::load_lanes`] does then: the bytes of the
/// active lanes counted; a partial warp's other lanes keep their value); anything else jumps
/// to `slow` with nothing changed. Jumps to `done` after a hit. Keeps r10d and ymm11–ymm14;
/// also uses r11, ymm7–ymm10 and ymm15.
///
/// [`MemView::load_lanes`]: crate::emulator::memory::MemView::load_lanes
pub(super) fn gather_narrow(
    a: &mut Assembler,
    d: &Decoded,
    op: crate::isa::Op,
    masked: bool,
    slow: DynamicLabel,
    done: DynamicLabel,
) {
    in_either_block(a, d, masked, slow, |a, miss, moved, _| gather_narrow_from(a, d, op, masked, miss, done, moved));
}

/// [`gather_narrow`] from the block at rdx (rcx = the view), counting at `moved` in the view.
fn gather_narrow_from(
    a: &mut Assembler,
    d: &Decoded,
    op: crate::isa::Op,
    masked: bool,
    miss: DynamicLabel,
    done: DynamicLabel,
    moved: i32,
) {
    use crate::emulator::memory::MemView;
    use crate::isa::Op;
    let l = MemView::LAYOUT;
    let half = matches!(op, Op::Vlh12V | Op::Vlhu12V);
    let signed = matches!(op, Op::Vlb12V | Op::Vlh12V);
    let bytes: i32 = if half { 2 } else { 1 };
    check_lanes(a, d, bytes, masked, miss);
    dynasm!(a ; .arch x64 ; mov rax, [rdx + l.words as i32]);
    count(a, bytes, masked, moved);
    // ymm5 = 32 − 8 · bytes: a lane's value is its word shifted left by that less 8 × the
    // address's low two bits, then right by it (arithmetic when signed).
    let top = 32 - 8 * bytes;
    dynasm!(a
        ; .arch x64
        ; mov r11d, top
        ; vmovd xmm5, r11d
        ; vpbroadcastd ymm5, xmm5
    );
    for j in 0..4u8 {
        let lanes = if masked { 11 + j } else { 2 };
        dynasm!(a
            ; .arch x64
            ; vmovdqa ymm0, Ry(lanes)
            ; vpxor ymm1, ymm1, ymm1
            ; vpgatherdd ymm1, [rax + Ry(7 + j) * 1], ymm0
            ; vpaddd ymm0, ymm4, [r15 + v(d.rs1, i32::from(j))]
            ; vpslld ymm0, ymm0, 30
            ; vpsrld ymm0, ymm0, 27
            ; vpsubd ymm0, ymm5, ymm0
            ; vpsllvd ymm1, ymm1, ymm0
        );
        if signed {
            dynasm!(a ; .arch x64 ; vpsrad ymm1, ymm1, top as i8);
        } else {
            dynasm!(a ; .arch x64 ; vpsrld ymm1, ymm1, top as i8);
        }
        if masked {
            dynasm!(a
                ; .arch x64
                ; vmovdqu ymm0, [r15 + v(d.rd, i32::from(j))]
                ; vpblendvb ymm1, ymm0, ymm1, Ry(11 + j)
            );
        }
        dynasm!(a ; .arch x64 ; vmovdqu [r15 + v(d.rd, i32::from(j))], ymm1);
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// A store of words, halfwords or bytes (`vsw12.v`, `vsh12.v`, `vsb12.v` — `op`) of a full
/// warp (`masked` = false) or of the active lanes of a partial one (`masked`: r10d and
/// ymm11–ymm14 from [`masked_lanes`](super::templates::masked_lanes), at least one lane),
/// inline when every such lane's (aligned) address lies in whole words of one global buffer
/// the view's gather table holds (filed under the first active lane's address; only writable
/// buffers are filed) or of the view's LDS block (then the view's `lds_written` is set): one
/// host store per lane in lane order, so a later lane's value wins where two lanes address the
/// same bytes (what [`MemView::store_lanes`] does then: the bytes of the active lanes
/// counted); anything else jumps to `slow` with nothing changed. Jumps to `done` after a hit.
/// Keeps r10d and ymm11–ymm14; also uses r11, ymm7–ymm10 and ymm15.
///
/// [`MemView::store_lanes`]: crate::emulator::memory::MemView::store_lanes
pub(super) fn scatter(
    a: &mut Assembler,
    d: &Decoded,
    op: crate::isa::Op,
    masked: bool,
    slow: DynamicLabel,
    done: DynamicLabel,
) {
    use crate::emulator::memory::MemView;
    use crate::isa::Op;
    let l = MemView::LAYOUT;
    let bytes: i32 = match op {
        Op::Vsb12V => 1,
        Op::Vsh12V => 2,
        _ => 4,
    };
    in_either_block(a, d, masked, slow, |a, miss, moved, local| {
        scatter_to(a, d, bytes, masked, miss, done, moved, local.then_some(l.lds_written as i32))
    });
}

/// [`scatter`] to the block at rdx (rcx = the view), counting at `moved` in the view and
/// setting the flag at `written` there, if any.
#[allow(clippy::too_many_arguments)]
fn scatter_to(
    a: &mut Assembler,
    d: &Decoded,
    bytes: i32,
    masked: bool,
    miss: DynamicLabel,
    done: DynamicLabel,
    moved: i32,
    written: Option<i32>,
) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    check_lanes(a, d, bytes, masked, miss);
    // Count, then store lane by lane: r9d = the lanes left, r11d = the block's base.
    dynasm!(a
        ; .arch x64
        ; mov rax, [rdx + l.words as i32]
        ; mov r11d, [rdx + l.base as i32]
    );
    if let Some(flag) = written {
        dynasm!(a ; .arch x64 ; mov BYTE [rcx + flag], 1);
    }
    count(a, bytes, masked, moved);
    if masked {
        dynasm!(a ; .arch x64 ; mov r9d, r10d);
    } else {
        dynasm!(a ; .arch x64 ; mov r9d, -1);
    }
    let each = a.new_dynamic_label();
    dynasm!(a
        ; .arch x64
        ; =>each
        ; tzcnt r8d, r9d
        ; mov ecx, [r15 + r8 * 4 + v(d.rs1, 0)]
        ; add ecx, d.imm
        ; sub ecx, r11d
        ; mov edx, [r15 + r8 * 4 + v(d.rs2, 0)]
    );
    match bytes {
        1 => dynasm!(a ; .arch x64 ; mov [rax + rcx], dl),
        2 => dynasm!(a ; .arch x64 ; mov [rax + rcx], dx),
        _ => dynasm!(a ; .arch x64 ; mov [rax + rcx], edx),
    }
    dynasm!(a
        ; .arch x64
        ; blsr r9d, r9d
        ; jnz =>each
        ; jmp =>done
    );
}
