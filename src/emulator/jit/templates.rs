//! The translator's templates ([`super`]): what a translated entry becomes in x86-64 code, and
//! the layout facts they rely on (field offsets of [`Warp`], the constant tables).
//!
//! Register conventions of the code around them ([`super::emit_run`]): `rbx` = the warp,
//! `r12` = the context, `r13` = the outcome slot, `r14` = the program's entries, `r15` = the
//! vector register file (`v[r][lane]`, 128 bytes per register), `rbp` = entries run by earlier
//! iterations of a loop, `[rsp]` = the turn's budget. A template may use rax, rcx, rdx, r8,
//! r9, r11 and ymm0–ymm10 and ymm15 freely; r10d and ymm11–ymm14 hold the partial-state
//! copy's lane masks ([`masked_lanes`], which uses ymm15 to compute them); no
//! emulated register stays in a host register after a template.

use super::plan::{CMP_EQ_OQ, CMP_UNORD_Q};
use super::{FAlu, VAlu, B};
use crate::emulator::program::Decoded;
use crate::emulator::warp::{Csrs, Warp};
use crate::isa::regs::csr;
use crate::isa::Op;
use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use std::mem::{offset_of, size_of};

/// Lanes `0, 1, …, 31` (`vid.v`).
#[repr(C, align(32))]
pub(super) struct Iota(pub(super) [u32; 32]);
pub(super) static IOTA: Iota = Iota({
    let mut a = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        a[i] = i as u32;
        i += 1;
    }
    a
});

/// Bit `l` in lane `l`: expands a 32-bit lane mask into lane-wide masks ([`store_chunk`]).
#[repr(C, align(32))]
pub(super) struct LaneBits(pub(super) [u32; 32]);
pub(super) static LANE_BITS: LaneBits = LaneBits({
    let mut a = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        a[i] = 1 << i;
        i += 1;
    }
    a
});

/// Before the masked templates ([`store_chunk`], [`vbranch`], [`unit_stride_masked`]):
/// r10d = the lanes an unmasked (`vm = 1`) vector instruction writes, `Warp::vmask` (active
/// and below `vl`), and ymm11 + j = those of lanes `8 j ..` as lane-wide masks (all ones or
/// zero); `slow`: to there while `vtype` is illegal (the handler then traps). They stay valid
/// until a call (which clobbers them) or a change of `vl` — the function emitter tracks that
/// ([`super::emit_body`]) and computes them again only then (`slow` = `None` after a handler
/// that cannot have changed `vtype`).
pub(super) fn masked_lanes(a: &mut Assembler, slow: Option<DynamicLabel>) {
    if let Some(slow) = slow {
        dynasm!(a
            ; .arch x64
            ; cmp BYTE [rbx + VILL], 0
            ; jne =>slow
        );
    }
    dynasm!(a
        ; .arch x64
        ; mov ecx, [rbx + VL]
        ; bzhi r10d, [rbx + MASK], ecx
        ; vmovd xmm15, r10d
        ; vpbroadcastd ymm15, xmm15
        ; mov r11, QWORD LANE_BITS.0.as_ptr() as i64
    );
    for j in 0..4 {
        dynasm!(a
            ; .arch x64
            ; vpand Ry(11 + j as u8), ymm15, [r11 + 32 * j]
            ; vpcmpeqd Ry(11 + j as u8), Ry(11 + j as u8), [r11 + 32 * j]
        );
    }
}

/// Stores ymm0 as lanes `8 j ..` of vector register `vd`: all eight, or (`masked`) those
/// [`masked_lanes`] selected, the others keeping their value — the interpreter's blend of a
/// result into the active lanes. Uses ymm8.
pub(super) fn store_chunk(a: &mut Assembler, vd: u8, j: i32, masked: bool) {
    if masked {
        dynasm!(a
            ; .arch x64
            ; vmovdqu ymm8, [r15 + v(vd, j)]
            ; vpblendvb ymm0, ymm8, ymm0, Ry(11 + j as u8)
        );
    }
    dynasm!(a ; .arch x64 ; vmovdqu [r15 + v(vd, j)], ymm0);
}

/// For the FP templates' NaN canonicalisation: 8 lanes each of the canonical NaN, the
/// magnitude mask and the bits of +∞.
#[repr(C, align(32))]
struct FpConsts([u32; 24]);
static FP_CONSTS: FpConsts = FpConsts({
    let mut a = [0u32; 24];
    let mut i = 0;
    while i < 8 {
        a[i] = crate::isa::semantics::CANONICAL_NAN;
        a[8 + i] = 0x7fff_ffff;
        a[16 + i] = 0x7f80_0000;
        i += 1;
    }
    a
});

pub(super) const PC: i32 = offset_of!(Warp, pc) as i32;
pub(super) const X: i32 = offset_of!(Warp, x) as i32;
pub(super) const V: i32 = offset_of!(Warp, v) as i32;
pub(super) const MASK: i32 = offset_of!(Warp, mask) as i32;
pub(super) const WIDTH: i32 = offset_of!(Warp, width_mask) as i32;
pub(super) const JOIN_AT: i32 = offset_of!(Warp, join_at) as i32;
pub(super) const CSR: i32 = offset_of!(Warp, csr) as i32;
pub(super) const VL: i32 = CSR + offset_of!(Csrs, vl) as i32;
pub(super) const VILL: i32 = CSR + offset_of!(Csrs, vill) as i32;
pub(super) const VTYPE: i32 = CSR + offset_of!(Csrs, vtype) as i32;
pub(super) const NUMT: i32 = CSR + offset_of!(Csrs, numt) as i32;
pub(super) const MSTATUS: i32 = CSR + offset_of!(Csrs, mstatus) as i32;
pub(super) const MTVEC: i32 = CSR + offset_of!(Csrs, mtvec) as i32;
pub(super) const RPC: i32 = CSR + offset_of!(Csrs, rpc) as i32;
pub(super) const EXT: i32 = offset_of!(Warp, ext) as i32;
pub(super) const STOP_PC: i32 = offset_of!(Warp, stop_pc) as i32;
pub(super) const RESUME_MASK: i32 = offset_of!(Warp, resume_mask) as i32;
/// `Ctx::lone` (from r12).
pub(super) const LONE: i32 = offset_of!(crate::emulator::exec::Ctx<'static>, lone) as i32;
pub(super) const ENTRY: usize = size_of::<Decoded>();

pub(super) fn x(r: u8) -> i32 {
    X + 4 * i32::from(r)
}
/// Bytes `32 j ..` of vector register `r` (from the register file's base).
pub(super) fn v(r: u8, j: i32) -> i32 {
    128 * i32::from(r) + 32 * j
}

/// The field of a work-group CSR (`tid` … `gidz`).
pub(super) fn wg_csr(num: u16) -> Option<i32> {
    let f = match num {
        csr::TID => offset_of!(Csrs, tid),
        csr::NUMW => offset_of!(Csrs, numw),
        csr::NUMT => offset_of!(Csrs, numt),
        csr::KNL => offset_of!(Csrs, knl),
        csr::WGID => offset_of!(Csrs, wgid),
        csr::WID => offset_of!(Csrs, wid),
        csr::LDS => offset_of!(Csrs, lds),
        csr::PDS => offset_of!(Csrs, pds),
        csr::GIDX..=csr::GIDZ => offset_of!(Csrs, gid) + 4 * usize::from(num - csr::GIDX),
        _ => return None,
    };
    Some(CSR + f as i32)
}

/// A scalar template (`rd != 0`).
pub(super) fn scalar(a: &mut Assembler, d: &Decoded, op: Op, pc: u32) {
    let (rd, rs1, rs2) = (x(d.rd), x(d.rs1), x(d.rs2));
    let imm = d.imm;
    match op {
        Op::Lui => return dynasm!(a ; .arch x64 ; mov DWORD [rbx + rd], imm),
        Op::Auipc => return dynasm!(a ; .arch x64 ; mov DWORD [rbx + rd], pc.wrapping_add(imm as u32) as i32),
        _ => {}
    }
    dynasm!(a ; .arch x64 ; mov eax, [rbx + rs1]);
    let sh = (imm & 31) as i8;
    match op {
        Op::Addi => dynasm!(a ; .arch x64 ; add eax, imm),
        Op::Xori => dynasm!(a ; .arch x64 ; xor eax, imm),
        Op::Ori => dynasm!(a ; .arch x64 ; or eax, imm),
        Op::Andi => dynasm!(a ; .arch x64 ; and eax, imm),
        Op::Slli => dynasm!(a ; .arch x64 ; shl eax, sh),
        Op::Srli => dynasm!(a ; .arch x64 ; shr eax, sh),
        Op::Srai => dynasm!(a ; .arch x64 ; sar eax, sh),
        Op::Add => dynasm!(a ; .arch x64 ; add eax, [rbx + rs2]),
        Op::Sub => dynasm!(a ; .arch x64 ; sub eax, [rbx + rs2]),
        Op::Xor => dynasm!(a ; .arch x64 ; xor eax, [rbx + rs2]),
        Op::Or => dynasm!(a ; .arch x64 ; or eax, [rbx + rs2]),
        Op::And => dynasm!(a ; .arch x64 ; and eax, [rbx + rs2]),
        Op::Mul => dynasm!(a ; .arch x64 ; imul eax, [rbx + rs2]),
        // x86 masks a 32-bit shift count to 5 bits, as RV32 does.
        Op::Sll => dynasm!(a ; .arch x64 ; mov ecx, [rbx + rs2] ; shl eax, cl),
        Op::Srl => dynasm!(a ; .arch x64 ; mov ecx, [rbx + rs2] ; shr eax, cl),
        Op::Sra => dynasm!(a ; .arch x64 ; mov ecx, [rbx + rs2] ; sar eax, cl),
        Op::Slti => dynasm!(a ; .arch x64 ; xor ecx, ecx ; cmp eax, imm ; setl cl ; mov eax, ecx),
        Op::Sltiu => dynasm!(a ; .arch x64 ; xor ecx, ecx ; cmp eax, imm ; setb cl ; mov eax, ecx),
        Op::Slt => dynasm!(a ; .arch x64 ; xor ecx, ecx ; cmp eax, [rbx + rs2] ; setl cl ; mov eax, ecx),
        Op::Sltu => dynasm!(a ; .arch x64 ; xor ecx, ecx ; cmp eax, [rbx + rs2] ; setb cl ; mov eax, ecx),
        _ => unreachable!("no scalar template for {op:?}"),
    }
    dynasm!(a ; .arch x64 ; mov [rbx + rd], eax);
}

/// Loads chunk `j` (lanes 8j..8j+8) of operand `b` into ymm`reg` (a scalar or immediate is
/// broadcast: the same for every chunk).
pub(super) fn operand(a: &mut Assembler, b: B, j: i32, reg: u8) {
    match b {
        B::V(r) => dynasm!(a ; .arch x64 ; vmovdqu Ry(reg), [r15 + v(r, j)]),
        B::X(r) if j == 0 => dynasm!(a ; .arch x64 ; vpbroadcastd Ry(reg), [rbx + x(r)]),
        B::Imm(c) if j == 0 => dynasm!(a
            ; .arch x64
            ; mov eax, c as i32
            ; vmovd Rx(reg), eax
            ; vpbroadcastd Ry(reg), Rx(reg)
        ),
        _ => {}
    }
}

/// A vector template: `vd = vs2 ⊕ b` on all 32 lanes (`masked`: on the lanes of r10d, see
/// [`store_chunk`]), in four 8-lane chunks (each chunk reads its sources before writing its
/// destination, so `vd` may be a source).
pub(super) fn vector(a: &mut Assembler, d: &Decoded, alu: VAlu, b: B, masked: bool) {
    let (vd, vs2) = (d.rd, d.rs2);
    let shift = matches!(alu, VAlu::Sll | VAlu::Srl | VAlu::Sra);
    if shift {
        match b {
            // A vector of counts is masked to 5 bits lane by lane (ymm3 = 31s).
            B::V(_) => dynasm!(a
                ; .arch x64
                ; mov eax, 31
                ; vmovd xmm3, eax
                ; vpbroadcastd ymm3, xmm3
            ),
            // One count for all lanes, masked to 5 bits, in xmm1.
            B::X(r) => dynasm!(a
                ; .arch x64
                ; mov eax, [rbx + x(r)]
                ; and eax, 31
                ; vmovd xmm1, eax
            ),
            B::Imm(_) => {}
        }
    }
    if matches!(alu, VAlu::Sne | VAlu::Sle | VAlu::Sleu) {
        // ymm2 = all ones (to invert a comparison).
        dynasm!(a ; .arch x64 ; vpcmpeqd ymm2, ymm2, ymm2);
    }
    let unsigned = matches!(alu, VAlu::Sltu | VAlu::Sleu | VAlu::Sgtu);
    if unsigned {
        // ymm3 = sign bits: an unsigned comparison is the signed one of both flipped.
        dynasm!(a
            ; .arch x64
            ; mov eax, i32::MIN
            ; vmovd xmm3, eax
            ; vpbroadcastd ymm3, xmm3
        );
    }
    for j in 0..4 {
        dynasm!(a ; .arch x64 ; vmovdqu ymm0, [r15 + v(vs2, j)]);
        if shift {
            match b {
                B::V(r) => {
                    dynasm!(a ; .arch x64 ; vpand ymm1, ymm3, [r15 + v(r, j)]);
                    match alu {
                        VAlu::Sll => dynasm!(a ; .arch x64 ; vpsllvd ymm0, ymm0, ymm1),
                        VAlu::Srl => dynasm!(a ; .arch x64 ; vpsrlvd ymm0, ymm0, ymm1),
                        _ => dynasm!(a ; .arch x64 ; vpsravd ymm0, ymm0, ymm1),
                    }
                }
                B::X(_) => match alu {
                    VAlu::Sll => dynasm!(a ; .arch x64 ; vpslld ymm0, ymm0, xmm1),
                    VAlu::Srl => dynasm!(a ; .arch x64 ; vpsrld ymm0, ymm0, xmm1),
                    _ => dynasm!(a ; .arch x64 ; vpsrad ymm0, ymm0, xmm1),
                },
                B::Imm(c) => {
                    let c = (c & 31) as i8;
                    match alu {
                        VAlu::Sll => dynasm!(a ; .arch x64 ; vpslld ymm0, ymm0, c),
                        VAlu::Srl => dynasm!(a ; .arch x64 ; vpsrld ymm0, ymm0, c),
                        _ => dynasm!(a ; .arch x64 ; vpsrad ymm0, ymm0, c),
                    }
                }
            }
        } else {
            operand(a, b, j, 1);
            // The comparisons' second operand: ymm1, or unsigned ymm4, flipped (ymm1 may be a
            // broadcast kept for the next chunk).
            let c = if unsigned { 4 } else { 1 };
            if unsigned {
                dynasm!(a
                    ; .arch x64
                    ; vpxor ymm0, ymm0, ymm3
                    ; vpxor ymm4, ymm1, ymm3
                );
            }
            match alu {
                VAlu::Slt | VAlu::Sltu => dynasm!(a ; .arch x64 ; vpcmpgtd ymm0, Ry(c), ymm0 ; vpsrld ymm0, ymm0, 31),
                VAlu::Sgt | VAlu::Sgtu => dynasm!(a ; .arch x64 ; vpcmpgtd ymm0, ymm0, Ry(c) ; vpsrld ymm0, ymm0, 31),
                VAlu::Sle | VAlu::Sleu => dynasm!(a
                    ; .arch x64
                    ; vpcmpgtd ymm0, ymm0, Ry(c)
                    ; vpxor ymm0, ymm0, ymm2
                    ; vpsrld ymm0, ymm0, 31
                ),
                VAlu::Madd => dynasm!(a
                    ; .arch x64
                    ; vpmulld ymm4, ymm1, [r15 + v(vd, j)]
                    ; vpaddd ymm0, ymm0, ymm4
                ),
                VAlu::Nmsub => dynasm!(a
                    ; .arch x64
                    ; vpmulld ymm4, ymm1, [r15 + v(vd, j)]
                    ; vpsubd ymm0, ymm0, ymm4
                ),
                VAlu::Macc => dynasm!(a
                    ; .arch x64
                    ; vpmulld ymm0, ymm0, ymm1
                    ; vpaddd ymm0, ymm0, [r15 + v(vd, j)]
                ),
                VAlu::Nmsac => dynasm!(a
                    ; .arch x64
                    ; vpmulld ymm0, ymm0, ymm1
                    ; vmovdqu ymm4, [r15 + v(vd, j)]
                    ; vpsubd ymm0, ymm4, ymm0
                ),
                VAlu::Add => dynasm!(a ; .arch x64 ; vpaddd ymm0, ymm0, ymm1),
                VAlu::Sub => dynasm!(a ; .arch x64 ; vpsubd ymm0, ymm0, ymm1),
                VAlu::Rsub => dynasm!(a ; .arch x64 ; vpsubd ymm0, ymm1, ymm0),
                VAlu::And => dynasm!(a ; .arch x64 ; vpand ymm0, ymm0, ymm1),
                VAlu::Or => dynasm!(a ; .arch x64 ; vpor ymm0, ymm0, ymm1),
                VAlu::Xor => dynasm!(a ; .arch x64 ; vpxor ymm0, ymm0, ymm1),
                VAlu::Mul => dynasm!(a ; .arch x64 ; vpmulld ymm0, ymm0, ymm1),
                VAlu::Min => dynasm!(a ; .arch x64 ; vpminsd ymm0, ymm0, ymm1),
                VAlu::Max => dynasm!(a ; .arch x64 ; vpmaxsd ymm0, ymm0, ymm1),
                VAlu::Minu => dynasm!(a ; .arch x64 ; vpminud ymm0, ymm0, ymm1),
                VAlu::Maxu => dynasm!(a ; .arch x64 ; vpmaxud ymm0, ymm0, ymm1),
                // Lane = 1 when equal (all ones >> 31), else 0.
                VAlu::Seq => dynasm!(a ; .arch x64 ; vpcmpeqd ymm0, ymm0, ymm1 ; vpsrld ymm0, ymm0, 31),
                VAlu::Sne => dynasm!(a
                    ; .arch x64
                    ; vpcmpeqd ymm0, ymm0, ymm1
                    ; vpxor ymm0, ymm0, ymm2
                    ; vpsrld ymm0, ymm0, 31
                ),
                VAlu::Sll | VAlu::Srl | VAlu::Sra => unreachable!(),
            }
        }
        store_chunk(a, vd, j, masked);
    }
}

/// `vcmpps ymm{dst}, ymm{src1}, ymm{src2}, pred` (registers below 8), encoded here because
/// dynasm 3.2 puts `vcmpps`'s register operands in the wrong fields (and drops a memory
/// operand): a two-byte VEX prefix (R̄ set, vvvv = ¬src1, L = 256 bits, no implied prefix),
/// opcode 0xC2, a register-direct ModRM, the predicate.
fn vcmpps(a: &mut Assembler, dst: u8, src1: u8, src2: u8, pred: u8) {
    debug_assert!(dst < 8 && src1 < 8 && src2 < 8);
    let vex = 0x80 | ((!src1 & 0xf) << 3) | 0x04;
    let modrm = 0xc0 | (dst << 3) | src2;
    dynasm!(a ; .arch x64 ; .bytes [0xc5u8, vex, 0xc2, modrm, pred]);
}

/// An FP template: `vd = vs2 ⊕ b` (or `b · vs2 + vd`, `b / vs2`, `√vs2`) on all 32 lanes in
/// round-to-nearest-even,
/// then every NaN result replaced by the canonical NaN — what the interpreter computes when no
/// flag can be seen (`vector::unflagged`). Host FP leaves subnormals alone (no FTZ/DAZ).
/// `masked`: only the lanes of r10d change ([`store_chunk`]; the others' results, computed
/// too, are dropped).
pub(super) fn fp(a: &mut Assembler, d: &Decoded, f: FAlu, b: B, masked: bool) {
    let (vd, vs2) = (d.rd, d.rs2);
    // ymm4 = canonical NaN, ymm5 = magnitude mask, ymm6 = +∞'s bits.
    dynasm!(a
        ; .arch x64
        ; mov rax, QWORD FP_CONSTS.0.as_ptr() as i64
        ; vmovdqu ymm4, [rax]
        ; vmovdqu ymm5, [rax + 32]
        ; vmovdqu ymm6, [rax + 64]
    );
    if f == FAlu::Sgnjn {
        // ymm7 = the sign bit in every lane.
        dynasm!(a
            ; .arch x64
            ; vpcmpeqd ymm7, ymm7, ymm7
            ; vpslld ymm7, ymm7, 31
        );
    }
    for j in 0..4 {
        if f != FAlu::Sqrt {
            operand(a, b, j, 1);
        }
        match f {
            FAlu::Div => dynasm!(a ; .arch x64 ; vmovups ymm0, [r15 + v(vs2, j)] ; vdivps ymm0, ymm0, ymm1),
            FAlu::Rdiv => dynasm!(a ; .arch x64 ; vdivps ymm0, ymm1, [r15 + v(vs2, j)]),
            FAlu::Sqrt => dynasm!(a ; .arch x64 ; vsqrtps ymm0, [r15 + v(vs2, j)]),
            FAlu::Cmp(p) => {
                dynasm!(a ; .arch x64 ; vmovups ymm0, [r15 + v(vs2, j)]);
                vcmpps(a, 0, 0, 1, p);
                dynasm!(a ; .arch x64 ; vpsrld ymm0, ymm0, 31);
            }
            // ymm2 = b's sign bit (¬magnitude ∧ b); ymm0 = vs2's magnitude, or vs2 (`x`).
            FAlu::Sgnj | FAlu::Sgnjn => {
                dynasm!(a ; .arch x64 ; vpandn ymm2, ymm5, ymm1);
                if f == FAlu::Sgnjn {
                    dynasm!(a ; .arch x64 ; vpxor ymm2, ymm2, ymm7);
                }
                dynasm!(a
                    ; .arch x64
                    ; vpand ymm0, ymm5, [r15 + v(vs2, j)]
                    ; vpor ymm0, ymm0, ymm2
                );
            }
            FAlu::Sgnjx => dynasm!(a
                ; .arch x64
                ; vpandn ymm2, ymm5, ymm1
                ; vpxor ymm0, ymm2, [r15 + v(vs2, j)]
            ),
            // The host's `vminps b, a` is `b < a ? b : a` — `a` when either is a NaN or the
            // two are equal; then `b` where `a` is a NaN (both NaNs: made canonical below) and
            // `a | b` (`a & b` for max) where they are equal, which orders −0 below +0.
            FAlu::Min | FAlu::Max => {
                dynasm!(a ; .arch x64 ; vmovups ymm0, [r15 + v(vs2, j)]);
                if f == FAlu::Min {
                    dynasm!(a ; .arch x64 ; vminps ymm2, ymm1, ymm0);
                } else {
                    dynasm!(a ; .arch x64 ; vmaxps ymm2, ymm1, ymm0);
                }
                vcmpps(a, 3, 0, 0, CMP_UNORD_Q);
                dynasm!(a ; .arch x64 ; vblendvps ymm2, ymm2, ymm1, ymm3);
                vcmpps(a, 3, 0, 1, CMP_EQ_OQ);
                if f == FAlu::Min {
                    dynasm!(a ; .arch x64 ; vorps ymm0, ymm0, ymm1);
                } else {
                    dynasm!(a ; .arch x64 ; vandps ymm0, ymm0, ymm1);
                }
                dynasm!(a ; .arch x64 ; vblendvps ymm0, ymm2, ymm0, ymm3);
            }
            FAlu::Add => dynasm!(a ; .arch x64 ; vmovups ymm0, [r15 + v(vs2, j)] ; vaddps ymm0, ymm0, ymm1),
            FAlu::Sub => dynasm!(a ; .arch x64 ; vmovups ymm0, [r15 + v(vs2, j)] ; vsubps ymm0, ymm0, ymm1),
            FAlu::Mul => dynasm!(a ; .arch x64 ; vmovups ymm0, [r15 + v(vs2, j)] ; vmulps ymm0, ymm0, ymm1),
            FAlu::Macc => dynasm!(a
                ; .arch x64
                ; vmovups ymm0, [r15 + v(vd, j)]
                ; vmovups ymm2, [r15 + v(vs2, j)]
                ; vfmadd231ps ymm0, ymm1, ymm2
            ),
            FAlu::Madd => dynasm!(a
                ; .arch x64
                ; vmovups ymm0, [r15 + v(vd, j)]
                ; vmovups ymm2, [r15 + v(vs2, j)]
                ; vfmadd213ps ymm0, ymm1, ymm2
            ),
        }
        // NaN ⟺ |bits| > +∞'s bits (as signed integers, both non-negative).
        if f.arithmetic() {
            dynasm!(a
                ; .arch x64
                ; vpand ymm2, ymm0, ymm5
                ; vpcmpgtd ymm2, ymm2, ymm6
                ; vblendvps ymm0, ymm0, ymm4, ymm2
            );
        }
        store_chunk(a, vd, j, masked);
    }
}

/// `vsetvli`/`vsetivli` (`exec::vsetvl`): a legal `vtype` (e32, m1, any tail/mask policy) sets
/// `vl = min(AVL, numt)`; another sets `vill` with `vl = 0`, `vtype = 0`. Either way
/// `mstatus.VS` becomes dirty and `x[rd] = vl`.
pub(super) fn vsetvli(a: &mut Assembler, d: &Decoded) {
    let vtype = d.imm as u32;
    if vtype & !0xc0 == 0x10 {
        match d.op {
            Some(Op::Vsetivli) => dynasm!(a ; .arch x64 ; mov eax, i32::from(d.rs1)),
            _ if d.rs1 != 0 => dynasm!(a ; .arch x64 ; mov eax, [rbx + x(d.rs1)]),
            _ if d.rd != 0 => dynasm!(a ; .arch x64 ; mov eax, -1),
            _ => dynasm!(a ; .arch x64 ; mov eax, [rbx + VL]),
        }
        dynasm!(a
            ; .arch x64
            ; mov ecx, [rbx + NUMT]
            ; cmp eax, ecx
            ; cmova eax, ecx
            ; mov DWORD [rbx + VTYPE], vtype as i32
            ; mov BYTE [rbx + VILL], 0
        );
    } else {
        dynasm!(a
            ; .arch x64
            ; xor eax, eax
            ; mov DWORD [rbx + VTYPE], 0
            ; mov BYTE [rbx + VILL], 1
        );
    }
    dynasm!(a
        ; .arch x64
        ; mov [rbx + VL], eax
        ; or DWORD [rbx + MSTATUS], 3 << 9
    );
    if d.rd != 0 {
        dynasm!(a ; .arch x64 ; mov [rbx + x(d.rd)], eax);
    }
}

/// A CSR instruction on `mstatus` (`csr_op` with `Warp::read_csr`/`write_csr`): the value read
/// has SD set when FS or VS is dirty; a write keeps MIE/MPIE/MPP, VS and FS
/// (`& 0x7f88`) and makes a non-zero FS dirty. `csrrs`/`csrrc` with a zero source only read.
pub(super) fn mstatus(a: &mut Assembler, d: &Decoded, op: Op) {
    const FS: i32 = 3 << 13;
    const VS: i32 = 3 << 9;
    // eax = the value read.
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + MSTATUS]
        ; mov ecx, eax
        ; and ecx, FS
        ; cmp ecx, FS
        ; sete dl
        ; mov ecx, eax
        ; and ecx, VS
        ; cmp ecx, VS
        ; sete cl
        ; or cl, dl
        ; movzx ecx, cl
        ; shl ecx, 31
        ; or eax, ecx
    );
    let immediate = matches!(op, Op::Csrrwi | Op::Csrrsi | Op::Csrrci);
    let writes = matches!(op, Op::Csrrw | Op::Csrrwi) || d.rs1 != 0;
    if writes {
        // edx = the source, then the new value.
        if immediate {
            dynasm!(a ; .arch x64 ; mov edx, i32::from(d.rs1));
        } else {
            dynasm!(a ; .arch x64 ; mov edx, [rbx + x(d.rs1)]);
        }
        match op {
            Op::Csrrs | Op::Csrrsi => dynasm!(a ; .arch x64 ; or edx, eax),
            Op::Csrrc | Op::Csrrci => dynasm!(a ; .arch x64 ; not edx ; and edx, eax),
            _ => {}
        }
        let keep = a.new_dynamic_label();
        dynasm!(a
            ; .arch x64
            ; and edx, 0x7f88
            ; test edx, FS
            ; jz =>keep
            ; or edx, FS
            ; =>keep
            ; mov [rbx + MSTATUS], edx
        );
    }
    if d.rd != 0 {
        dynasm!(a ; .arch x64 ; mov [rbx + x(d.rd)], eax);
    }
}

/// The fast path of `vdivu.vx`/`vremu.vx` (full vector state): a divisor that is a power of two
/// divides by a shift and leaves the remainder by a mask, then jumps to `done`; any other
/// divisor (zero included) falls through to the general path.
pub(super) fn div_pow2(a: &mut Assembler, d: &Decoded, op: Op, done: DynamicLabel) {
    let general = a.new_dynamic_label();
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + x(d.rs1)]
        ; test eax, eax
        ; jz =>general
        ; lea ecx, [rax - 1]
        ; test eax, ecx
        ; jnz =>general
    );
    if op == Op::VremuVx {
        dynasm!(a ; .arch x64 ; vmovd xmm1, ecx ; vpbroadcastd ymm1, xmm1);
    } else {
        dynasm!(a ; .arch x64 ; tzcnt ecx, eax ; vmovd xmm1, ecx);
    }
    for j in 0..4 {
        dynasm!(a ; .arch x64 ; vmovdqu ymm0, [r15 + v(d.rs2, j)]);
        if op == Op::VremuVx {
            dynasm!(a ; .arch x64 ; vpand ymm0, ymm0, ymm1);
        } else {
            dynasm!(a ; .arch x64 ; vpsrld ymm0, ymm0, xmm1);
        }
        dynasm!(a ; .arch x64 ; vmovdqu [r15 + v(d.rd, j)], ymm0);
    }
    dynasm!(a ; .arch x64 ; jmp =>done ; =>general);
}

/// A scalar branch `d` (`op`): to `not` when it is not taken, else on.
pub(super) fn branch_not_taken(a: &mut Assembler, d: &Decoded, op: Op, not: DynamicLabel) {
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + x(d.rs1)]
        ; cmp eax, [rbx + x(d.rs2)]
    );
    match op {
        Op::Beq => dynasm!(a ; .arch x64 ; jne =>not),
        Op::Bne => dynasm!(a ; .arch x64 ; je =>not),
        Op::Blt => dynasm!(a ; .arch x64 ; jge =>not),
        Op::Bge => dynasm!(a ; .arch x64 ; jl =>not),
        Op::Bltu => dynasm!(a ; .arch x64 ; jae =>not),
        _ => dynasm!(a ; .arch x64 ; jb =>not),
    }
}

/// A vector branch (`vbeq` … `vbgeu`: lane taken when `vs2 ⋚ vs1`) that does not change the
/// warp's mask: to `taken` when every lane the warp's state selects takes it, on (falling
/// through) when none does — the interpreter's two cases without a SIMT stack entry, whose
/// new mask (the taken or the falling lanes, within the warp's width) equals the old one. To
/// `bail` otherwise (lanes split, a mask outside the width — the interpreter then runs it).
/// `masked`: the state may be partial (the active lanes below `vl` in r10d, [`masked_lanes`]),
/// else every lane is known active.
pub(super) fn vbranch(a: &mut Assembler, d: &Decoded, op: Op, masked: bool, bail: DynamicLabel, taken: DynamicLabel) {
    let unsigned = matches!(op, Op::Vbltu | Op::Vbgeu);
    if unsigned {
        // ymm3 = sign bits: an unsigned comparison is the signed one of both flipped.
        dynasm!(a
            ; .arch x64
            ; mov eax, i32::MIN
            ; vmovd xmm3, eax
            ; vpbroadcastd ymm3, xmm3
        );
    }
    dynasm!(a ; .arch x64 ; xor edx, edx);
    for j in 0..4 {
        dynasm!(a
            ; .arch x64
            ; vmovdqu ymm0, [r15 + v(d.rs2, j)]
            ; vmovdqu ymm1, [r15 + v(d.rs1, j)]
        );
        if unsigned {
            dynasm!(a
                ; .arch x64
                ; vpxor ymm0, ymm0, ymm3
                ; vpxor ymm1, ymm1, ymm3
            );
        }
        match op {
            // Equal lanes all ones.
            Op::Vbeq | Op::Vbne => dynasm!(a ; .arch x64 ; vpcmpeqd ymm0, ymm0, ymm1),
            // Lanes with vs2 < vs1 all ones.
            _ => dynasm!(a ; .arch x64 ; vpcmpgtd ymm0, ymm1, ymm0),
        }
        // `vmovmskps eax, ymm0` (dynasm rejects its operand sizes).
        dynasm!(a ; .arch x64 ; .bytes [0xc5, 0xfc, 0x50, 0xc0]);
        if j > 0 {
            dynasm!(a ; .arch x64 ; shl eax, (8 * j) as i8);
        }
        dynasm!(a ; .arch x64 ; or edx, eax);
    }
    if matches!(op, Op::Vbne | Op::Vbge | Op::Vbgeu) {
        dynasm!(a ; .arch x64 ; not edx);
    }
    if masked {
        dynasm!(a ; .arch x64 ; and edx, r10d);
    }
    // edx = taken lanes, eax = the mask, ecx = the width's lanes.
    let some = a.new_dynamic_label();
    let on = a.new_dynamic_label();
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + MASK]
        ; mov ecx, [rbx + WIDTH]
        ; test edx, ecx
        ; jnz =>some
        // None taken: the new mask is the old one within the width (always, while every
        // path keeps the mask inside the width; checked all the same).
        ; and ecx, eax
        ; cmp ecx, eax
        ; jne =>bail
        ; jmp =>on
        ; =>some
        // Some taken: none may fall (within the width), and the taken ones within the width
        // are the old mask.
        ; mov r8d, edx
        ; not r8d
        ; and r8d, eax
        ; test r8d, ecx
        ; jnz =>bail
        ; and edx, ecx
        ; cmp edx, eax
        ; jne =>bail
        ; jmp =>taken
        ; =>on
    );
}

/// `setrpc rd, rs1, imm`: the reconvergence pc and `x[rd]` = `x[rs1] + imm`.
pub(super) fn setrpc(a: &mut Assembler, d: &Decoded) {
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + x(d.rs1)]
        ; add eax, d.imm
        ; mov [rbx + RPC], eax
    );
    if d.rd != 0 {
        dynasm!(a ; .arch x64 ; mov [rbx + x(d.rd)], eax);
    }
}

/// `join` at `pc`: nothing when the SIMT stack's top is not for `pc` ([`Warp::join_at`]),
/// else to `bail` (the interpreter pops it).
pub(super) fn join(a: &mut Assembler, pc: u32, bail: DynamicLabel) {
    dynasm!(a
        ; .arch x64
        ; cmp DWORD [rbx + JOIN_AT], pc as i32
        ; je =>bail
    );
}

/// `lw rd, imm(rs1)` from one of the view's two remembered read-only blocks, inline (what
/// [`MemView::load`] of 4 bytes does there: an aligned address inside a block, no checker; the
/// word to rd, 4 bytes to the global bytes moved), or from the warp's own uniform stack in
/// the mapped bottom of the LDS window (`MemView::in_warp_stack`: words no other warp
/// addresses, so the load is private wherever it runs; 4 local bytes moved); anything else
/// jumps to `slow` with nothing changed. Jumps to `done` after a hit. Also uses r8 and r9.
///
/// [`MemView::load`]: crate::emulator::memory::MemView::load
pub(super) fn read_only_lw(a: &mut Assembler, d: &Decoded, slow: DynamicLabel, done: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    let block = |k: usize, field: usize| (l.read_only + k * l.read_only_stride + field) as i32;
    let (hit0, load, stack) = (a.new_dynamic_label(), a.new_dynamic_label(), a.new_dynamic_label());
    let stored = a.new_dynamic_label();
    let csr = |n| wg_csr(n).expect("a work-group CSR");
    dynasm!(a
        ; .arch x64
        ; mov eax, [rbx + x(d.rs1)]
        ; add eax, d.imm
        ; test al, 3
        ; jnz =>slow
        ; mov rcx, [r12 + mem]
        ; cmp QWORD [rcx + l.check as i32], 0
        ; jne =>slow
        ; mov edx, eax
        ; sub edx, [rcx + block(0, l.base)]
        ; cmp edx, [rcx + block(0, l.n)]
        ; jb =>hit0
        ; mov edx, eax
        ; sub edx, [rcx + block(1, l.base)]
        ; cmp edx, [rcx + block(1, l.n)]
        ; jae =>stack
        ; mov rax, [rcx + block(1, l.words)]
        ; jmp =>load
        // The warp's stack: addr − (lds + wid · bytes) ≤ bytes − 4, and inside the block.
        ; =>stack
        ; mov r8d, [rcx + l.warp_stack as i32]
        ; mov r9d, [rbx + csr(csr::WID)]
        ; imul r9d, r8d
        ; add r9d, [rbx + csr(csr::LDS)]
        ; mov edx, eax
        ; sub edx, r9d
        ; sub r8d, 4
        ; jb =>slow
        ; cmp edx, r8d
        ; ja =>slow
        ; mov edx, eax
        ; sub edx, [rcx + (l.lds + l.base) as i32]
        ; cmp edx, [rcx + (l.lds + l.n) as i32]
        ; jae =>slow
        ; mov rax, [rcx + (l.lds + l.words) as i32]
        ; add QWORD [rcx + l.moved_local as i32], 4
        ; mov eax, [rax + rdx]
        ; jmp =>stored
        ; =>hit0
        ; mov rax, [rcx + block(0, l.words)]
        ; =>load
        ; add QWORD [rcx + l.moved_global as i32], 4
        ; mov eax, [rax + rdx]
        ; =>stored
    );
    if d.rd != 0 {
        dynasm!(a ; .arch x64 ; mov [rbx + x(d.rd)], eax);
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// A full warp's `vlw12.v vd, imm(vs1)` (`store`: `vsw12.v vs2, imm(vs1)`) whose lanes address
/// 32 consecutive words of the global buffer the view's latest such access found, inline (what
/// [`MemView::unit_stride`] and the bulk copy do then: the 128 bytes moved whole and
/// counted); anything else jumps to `slow` with nothing
/// changed. Only in the copy for a full vector state (every lane active, `vl` ≥ 32). Jumps to
/// `done` after a hit.
///
/// [`MemView::unit_stride`]: crate::emulator::memory::MemView::unit_stride
pub(super) fn unit_stride(a: &mut Assembler, d: &Decoded, store: bool, slow: DynamicLabel, done: DynamicLabel) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let block = |field: usize| (l.unit_stride + usize::from(store) * l.unit_stride_stride + field) as i32;
    dynasm!(a ; .arch x64 ; mov eax, [r15 + v(d.rs1, 0)]);
    consecutive(a, d.rs1, false, slow);
    dynasm!(a ; .arch x64 ; add eax, d.imm);
    span_in_block(a, block(0), l.moved_global as i32, slow);
    move_words(a, d, store, done);
}

/// For [`narrow_load`] and [`narrow_store`]: to `slow` unless lane `i`'s address is `w i`
/// past lane 0's (w = 2 for `half`, else 1), lane 0's aligned to `w`, and the 32 w bytes from
/// it lie in the block the view remembers for loads (`store`: for stores; its n = size − 127, 0 when
/// none is remembered). Then rdx + rax = the first byte, and 32 w bytes counted.
fn narrow_span(a: &mut Assembler, d: &Decoded, half: bool, store: bool, slow: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    let block = |field: usize| (l.unit_stride + usize::from(store) * l.unit_stride_stride + field) as i32;
    let width: i32 = if half { 2 } else { 1 };
    dynasm!(a ; .arch x64 ; mov eax, [r15 + v(d.rs1, 0)]);
    consecutive_by(a, d.rs1, false, u8::from(half), slow);
    dynasm!(a
        ; .arch x64
        ; add eax, d.imm
        ; test eax, width - 1
        ; jnz =>slow
        ; mov rcx, [r12 + mem]
        ; mov r11d, [rcx + block(l.n)]
        ; test r11d, r11d
        ; jz =>slow
        ; add r11d, 128 - 32 * width
        ; sub eax, [rcx + block(l.base)]
        ; cmp eax, r11d
        ; jae =>slow
        ; mov rdx, [rcx + block(l.words)]
        ; add QWORD [rcx + l.moved_global as i32], 32 * width
    );
}

/// A full warp's `vlb12.v`/`vlbu12.v` (`vlh12.v`/`vlhu12.v`) `vd, imm(vs1)` whose lanes address
/// 32 consecutive bytes (aligned halfwords) — lane `i` at `A + i` (`A + 2 i`): a `char`
/// array indexed by the global id — inside the global buffer the view remembers for loads
/// (filed by unit-stride word loads and by the interpreter's partial-warp and narrow loads),
/// inline: four 8-byte (16-byte) loads widened to the lanes' words, sign- or
/// zero-extended as the instruction says, and 32 (64) bytes counted, as
/// [`MemView::load_lanes`] would; anything else jumps to `slow` with nothing changed. Only in
/// the copy for a full vector state. Jumps to `done` after a hit.
///
/// [`MemView::load_lanes`]: crate::emulator::memory::MemView::load_lanes
pub(super) fn narrow_load(a: &mut Assembler, d: &Decoded, op: Op, slow: DynamicLabel, done: DynamicLabel) {
    let half = matches!(op, Op::Vlh12V | Op::Vlhu12V);
    let width: i32 = if half { 2 } else { 1 };
    narrow_span(a, d, half, false, slow);
    for j in 0..4 {
        let at = 8 * width * j;
        match op {
            Op::Vlb12V => dynasm!(a ; .arch x64 ; vmovq xmm1, [rdx + rax + at] ; vpmovsxbd ymm0, xmm1),
            Op::Vlbu12V => dynasm!(a ; .arch x64 ; vmovq xmm1, [rdx + rax + at] ; vpmovzxbd ymm0, xmm1),
            Op::Vlh12V => dynasm!(a ; .arch x64 ; vpmovsxwd ymm0, [rdx + rax + at]),
            _ => dynasm!(a ; .arch x64 ; vpmovzxwd ymm0, [rdx + rax + at]),
        }
        dynasm!(a ; .arch x64 ; vmovdqu [r15 + v(d.rd, j)], ymm0);
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// Dword `i` of a packed byte vector to place at `i`: `vpackusdw` and `vpackuswb` work per
/// 128-bit half (see [`narrow_store`]).
#[repr(C, align(32))]
pub(super) struct PackOrder(pub(super) [u32; 8]);
pub(super) static PACK_ORDER: PackOrder = PackOrder([0, 4, 1, 5, 2, 6, 3, 7]);

/// A full warp's `vsb12.v` (`vsh12.v`) `vs2, imm(vs1)` whose lanes address 32 consecutive
/// bytes (aligned halfwords) inside the global buffer the view remembers for stores, inline:
/// the lanes' low bytes (halfwords) packed in lane order and stored with one (two) 32-byte
/// moves, 32 (64) bytes counted, as [`MemView::store_lanes`] would (no other byte is
/// written); anything else jumps to `slow` with nothing changed. Only in the copy for a full
/// vector state. Jumps to `done` after a hit.
///
/// [`MemView::store_lanes`]: crate::emulator::memory::MemView::store_lanes
pub(super) fn narrow_store(a: &mut Assembler, d: &Decoded, op: Op, slow: DynamicLabel, done: DynamicLabel) {
    let half = op == Op::Vsh12V;
    let width: i32 = if half { 2 } else { 1 };
    narrow_span(a, d, half, true, slow);
    dynasm!(a
        ; .arch x64
        // ymm4 = the element mask in every lane (the packs saturate: mask first).
        ; vpcmpeqd ymm4, ymm4, ymm4
        ; vpsrld ymm4, ymm4, (32 - 8 * width) as i8
    );
    for j in 0..4 {
        dynasm!(a ; .arch x64 ; vpand Ry(j as u8), ymm4, [r15 + v(d.rs2, j)]);
    }
    if half {
        // Words per 128-bit half: [0–3, 8–11 | 4–7, 12–15] → quadwords 0, 2, 1, 3.
        dynasm!(a
            ; .arch x64
            ; vpackusdw ymm0, ymm0, ymm1
            ; vpermq ymm0, ymm0, 0xd8u8 as i8
            ; vpackusdw ymm2, ymm2, ymm3
            ; vpermq ymm2, ymm2, 0xd8u8 as i8
            ; vmovdqu [rdx + rax], ymm0
            ; vmovdqu [rdx + rax + 32], ymm2
        );
    } else {
        // Bytes per 128-bit half: dwords [0–3, 8–11, 16–19, 24–27 | 4–7, 12–15, 20–23,
        // 28–31] → dwords 0, 4, 1, 5, 2, 6, 3, 7.
        dynasm!(a
            ; .arch x64
            ; vpackusdw ymm0, ymm0, ymm1
            ; vpackusdw ymm2, ymm2, ymm3
            ; vpackuswb ymm0, ymm0, ymm2
            ; mov rcx, QWORD PACK_ORDER.0.as_ptr() as i64
            ; vmovdqu ymm1, [rcx]
            ; vpermd ymm0, ymm1, ymm0
            ; vmovdqu [rdx + rax], ymm0
        );
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// A full warp's `vsw12.v vs2, imm(vs1)` whose lanes address four runs of 8 consecutive
/// words — lanes `8j … 8j + 7` at `A_j + 4 i` for aligned `A_j`: a 2D work-group 8 or 16
/// items wide, whose warps hold rows of 8 or 16 items — that all lie in the global buffer
/// the view's latest store of this kind found, inline: four 32-byte moves in lane order
/// (runs that overlap end as lane-by-lane stores would: the later lane's word), 128 bytes
/// counted, as [`MemView::store_lanes`] would; anything else jumps to `slow` with nothing
/// changed. Only in the copy for a full vector state. Jumps to `done` after a hit.
///
/// [`MemView::store_lanes`]: crate::emulator::memory::MemView::store_lanes
pub(super) fn octet_store(a: &mut Assembler, d: &Decoded, slow: DynamicLabel, done: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    let block = |field: usize| (l.unit_stride + l.unit_stride_stride + field) as i32;
    // rcx = the view, r11 = the block's size − 32 + 1 (a run may start below it; n = size −
    // 127, and 0 when no block is remembered), ymm4 = the immediate, ymm5 = 0, 4, …, 28.
    dynasm!(a
        ; .arch x64
        ; mov rcx, [r12 + mem]
        ; mov r11d, [rcx + block(l.n)]
        ; test r11d, r11d
        ; jz =>slow
        ; add r11d, 96
        ; mov eax, d.imm
        ; vmovd xmm4, eax
        ; vpbroadcastd ymm4, xmm4
        ; mov rax, QWORD IOTA.0.as_ptr() as i64
        ; vmovdqu ymm5, [rax]
        ; vpslld ymm5, ymm5, 2
        ; vpxor ymm3, ymm3, ymm3
    );
    // Per run: in ymm3 the bits in which a lane differs from its run's start + 4 i; the
    // start aligned and inside the block.
    for j in 0..4 {
        dynasm!(a
            ; .arch x64
            ; vpaddd ymm1, ymm4, [r15 + v(d.rs1, j)]
            ; vpbroadcastd ymm0, xmm1
            ; vpaddd ymm0, ymm0, ymm5
            ; vpxor ymm0, ymm0, ymm1
            ; vpor ymm3, ymm3, ymm0
            ; vmovd eax, xmm1
            ; test al, 3
            ; jnz =>slow
            ; sub eax, [rcx + block(l.base)]
            ; cmp eax, r11d
            ; jae =>slow
        );
    }
    dynasm!(a
        ; .arch x64
        ; vptest ymm3, ymm3
        ; jnz =>slow
        ; mov rdx, [rcx + block(l.words)]
        ; add QWORD [rcx + l.moved_global as i32], 128
    );
    for j in 0..4 {
        dynasm!(a
            ; .arch x64
            ; mov eax, [r15 + v(d.rs1, j)]
            ; add eax, d.imm
            ; sub eax, [rcx + block(l.base)]
            ; vmovdqu ymm0, [r15 + v(d.rs2, j)]
            ; vmovdqu [rdx + rax], ymm0
        );
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// To `slow` unless lane `i` of vector register `vs1` holds `eax + 4 i` — every lane, or
/// (`masked`) those [`masked_lanes`] selected. Keeps eax.
fn consecutive(a: &mut Assembler, vs1: u8, masked: bool, slow: DynamicLabel) {
    consecutive_by(a, vs1, masked, 2, slow);
}

/// [`consecutive`] for elements of `1 << shift` bytes: lane `i` at `eax + (i << shift)`.
fn consecutive_by(a: &mut Assembler, vs1: u8, masked: bool, shift: u8, slow: DynamicLabel) {
    // ymm0 = eax in every lane, ymm1 = it + (iota << shift), ymm3 = the bits in which a lane
    // differs.
    dynasm!(a
        ; .arch x64
        ; vmovd xmm0, eax
        ; vpbroadcastd ymm0, xmm0
        ; mov rcx, QWORD IOTA.0.as_ptr() as i64
        ; vpxor ymm3, ymm3, ymm3
    );
    for j in 0..4 {
        dynasm!(a ; .arch x64 ; vmovdqu ymm1, [rcx + 32 * j]);
        if shift > 0 {
            dynasm!(a ; .arch x64 ; vpslld ymm1, ymm1, shift as i8);
        }
        dynasm!(a
            ; .arch x64
            ; vpaddd ymm1, ymm1, ymm0
            ; vpxor ymm1, ymm1, [r15 + v(vs1, j)]
        );
        if masked {
            dynasm!(a ; .arch x64 ; vpand ymm1, ymm1, Ry(11 + j as u8));
        }
        dynasm!(a ; .arch x64 ; vpor ymm3, ymm3, ymm1);
    }
    dynasm!(a
        ; .arch x64
        ; vptest ymm3, ymm3
        ; jnz =>slow
    );
}

/// `vlw12.v vd, imm(vs1)` (`store`: `vsw12.v vs2, imm(vs1)`) in the copy for a partial vector
/// state: when the active lanes below `vl` ([`masked_lanes`]; at least one) address
/// consecutive words — lane `i` at `A + 4 i` for one aligned `A` — that all lie in the global
/// buffer the view's latest unit-stride access of this kind found, those lanes' words move
/// inline (masked host moves: no other word is read or written; a load leaves the other
/// lanes of `vd` alone) and `4 ·` their number of bytes are counted, as the per-lane path
/// would; anything else jumps to `slow` with nothing changed. Jumps to `done` after a hit.
pub(super) fn unit_stride_masked(a: &mut Assembler, d: &Decoded, store: bool, slow: DynamicLabel, done: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    let block = |field: usize| (l.unit_stride + usize::from(store) * l.unit_stride_stride + field) as i32;
    // r8 = the first active lane, eax = its address − 4 × its index (the address lane 0 would
    // have).
    dynasm!(a
        ; .arch x64
        ; test r10d, r10d
        ; jz =>slow
        ; tzcnt r8d, r10d
        ; mov eax, [r15 + r8 * 4 + v(d.rs1, 0)]
        ; lea edx, [r8 * 4]
        ; sub eax, edx
    );
    consecutive(a, d.rs1, true, slow);
    // The active span: from edx = A + imm + 4 × first (aligned), 4 × (last − first + 1) bytes,
    // inside the block (its size is n + 127 once one is remembered, n > 0). Then count, and
    // rax = lane 0's host address.
    dynasm!(a
        ; .arch x64
        ; add eax, d.imm
        ; lea edx, [rax + r8 * 4]
        ; test dl, 3
        ; jnz =>slow
        ; mov rcx, [r12 + mem]
        ; sub edx, [rcx + block(l.base)]
        ; lzcnt r9d, r10d
        ; neg r9d
        ; add r9d, 32
        ; sub r9d, r8d
        ; shl r9d, 2
        ; add r9, rdx
        ; mov r11d, [rcx + block(l.n)]
        // No block remembered yet (n = 0: the size below would be wrong).
        ; test r11d, r11d
        ; jz =>slow
        ; add r11, 127
        ; cmp r9, r11
        ; ja =>slow
        ; popcnt r9d, r10d
        ; shl r9d, 2
        ; add [rcx + l.moved_global as i32], r9
        ; mov rax, [rcx + block(l.words)]
        ; add rax, rdx
        ; shl r8d, 2
        ; sub rax, r8
    );
    for j in 0..4 {
        let m = 11 + j as u8;
        if store {
            dynasm!(a
                ; .arch x64
                ; vmovdqu ymm0, [r15 + v(d.rs2, j)]
                ; vpmaskmovd [rax + 32 * j], Ry(m), ymm0
            );
        } else {
            dynasm!(a
                ; .arch x64
                ; vpmaskmovd ymm0, Ry(m), [rax + 32 * j]
                ; vmovdqu ymm1, [r15 + v(d.rd, j)]
                ; vpblendvb ymm0, ymm1, ymm0, Ry(m)
                ; vmovdqu [r15 + v(d.rd, j)], ymm0
            );
        }
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// For a 32-word access at eax: to `slow` unless it is aligned and starts 32 words inside the
/// view's block at `block` (a [`MemView`](crate::emulator::memory::MemView) offset); then
/// rcx = the view, rax + rdx = the first word, and 128 bytes counted at `moved`.
fn span_in_block(a: &mut Assembler, block: i32, moved: i32, slow: DynamicLabel) {
    use crate::emulator::exec::Ctx;
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let mem = offset_of!(Ctx<'static>, mem) as i32;
    dynasm!(a
        ; .arch x64
        ; test al, 3
        ; jnz =>slow
        ; mov rcx, [r12 + mem]
        ; mov edx, eax
        ; sub edx, [rcx + block + l.base as i32]
        ; cmp edx, [rcx + block + l.n as i32]
        ; jae =>slow
        ; mov rax, [rcx + block + l.words as i32]
        ; add QWORD [rcx + moved], 128
    );
}

/// The 32 words at `rax + rdx` to vector register `vd` (`store`: from `vs2` to them), then a
/// jump to `done`.
fn move_words(a: &mut Assembler, d: &Decoded, store: bool, done: DynamicLabel) {
    for j in 0..4 {
        if store {
            dynasm!(a
                ; .arch x64
                ; vmovdqu ymm0, [r15 + v(d.rs2, j)]
                ; vmovdqu [rax + rdx + 32 * j], ymm0
            );
        } else {
            dynasm!(a
                ; .arch x64
                ; vmovdqu ymm0, [rax + rdx + 32 * j]
                ; vmovdqu [r15 + v(d.rd, j)], ymm0
            );
        }
    }
    dynasm!(a ; .arch x64 ; jmp =>done);
}

/// A full warp's private word access `vlw.v vd, imm(vs1)` (`store`: `vsw.v vs2, imm(vs1)`)
/// whose lanes all hold the same address, inline: lane `i`'s word is then
/// `pds + (a & !3) · numw · numt + 4 (tid + i)` (`exec::memops::private_addr`), 32 consecutive
/// words, moved whole when they lie in the view's private overlay (what
/// [`MemView::unit_stride`] does there: 128 private bytes counted, a store marks the overlay
/// written); anything else jumps to `slow` with nothing changed. Only in the copy for a full
/// vector state. Jumps to `done` after a hit.
///
/// [`MemView::unit_stride`]: crate::emulator::memory::MemView::unit_stride
pub(super) fn private_words(a: &mut Assembler, d: &Decoded, store: bool, slow: DynamicLabel, done: DynamicLabel) {
    use crate::emulator::memory::MemView;
    let l = MemView::LAYOUT;
    let block = |field: usize| (l.private + field) as i32;
    let csr = |n| wg_csr(n).expect("a work-group CSR");
    // Every lane's address register equal to lane 0's (ymm3: the bits in which any differs).
    dynasm!(a
        ; .arch x64
        ; mov eax, [r15 + v(d.rs1, 0)]
        ; vmovd xmm0, eax
        ; vpbroadcastd ymm0, xmm0
        ; vpxor ymm3, ymm3, ymm3
    );
    for j in 0..4 {
        dynasm!(a
            ; .arch x64
            ; vpxor ymm1, ymm0, [r15 + v(d.rs1, j)]
            ; vpor ymm3, ymm3, ymm1
        );
    }
    dynasm!(a
        ; .arch x64
        ; vptest ymm3, ymm3
        ; jnz =>slow
        ; add eax, d.imm
        ; and eax, -4
        ; mov ecx, [rbx + csr(csr::NUMW)]
        ; imul ecx, [rbx + csr(csr::NUMT)]
        ; imul eax, ecx
        ; add eax, [rbx + csr(csr::PDS)]
        ; mov ecx, [rbx + csr(csr::TID)]
        ; shl ecx, 2
        ; add eax, ecx
    );
    span_in_block(a, block(0), l.moved_private as i32, slow);
    if store {
        dynasm!(a ; .arch x64 ; mov BYTE [rcx + l.private_written as i32], 1);
    }
    move_words(a, d, store, done);
}
