//! THE instruction table: one row per instruction (mnemonic, match/mask, operand format).
//!
//! Everything else in [`crate::isa`] — the [`Op`] enum, decoder, encoder, disassembler and assembler —
//! is derived from these rows. Decoding follows spike's rule (a word is an instruction when
//! `word & mask == match`); `tests/isa.rs` proves that no two rows overlap, so every `u32` decodes to
//! at most one row. Words matching no row are illegal instructions.
//!
//! Coverage: RV32I + Zicsr + Zifencei, M, A, F as spike runs it for Ventus (zfinx with mirrored files),
//! the Ventus RVV subset (the operations Ventus LLVM knows, §6.1 of ventus-isa.md, SEW=32 memory ops)
//! and every Ventus custom instruction, plus two Zacas compare-and-swaps that only our compiler
//! emits (`amocas.w`, `amocas.d`: docs/deviations.md, items 12 and 15). Deliberately absent (decode as
//! illegal; listed in docs/deviations.md): RVC, D/Zfh, narrowing/widening/fixed-point-rounding vector ops, vector ops on EEW≠32 memory,
//! `vfrec7`/`vfrsqrt7`, reductions, permutations and mask-logical ops.

use super::format::Fmt;
use super::roles::{rows, Roles};

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct InstDesc {
    pub op: Op,
    pub mnemonic: &'static str,
    pub match_bits: u32,
    pub mask: u32,
    pub fmt: Fmt,
    /// What each register field is ([`super::roles`]): the format's default unless the row
    /// says otherwise (a sixth column).
    pub roles: Roles,
}

/// The sections of the table (marked `[Unit]` before their first row), which are also the
/// emulator's execution units: one handler each ([`Op::unit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// RV32I, Zicsr, M, A (including the per-lane vector AMOs) and F.
    Scalar,
    /// RVV configuration, memory and integer operations.
    VectorInt,
    /// RVV floating point.
    VectorFp,
    /// The Ventus custom instructions (SIMT control, private and flat memory, `regext`, …).
    Ventus,
}

// Standard RVV encodings are built from funct6 and funct3; constants keep the rows readable.
const OPIVV: u32 = 0;
const OPFVV: u32 = 1;
const OPMVV: u32 = 2;
const OPIVI: u32 = 3;
const OPIVX: u32 = 4;
const OPFVF: u32 = 5;
const OPMVX: u32 = 6;
const fn v(funct6: u32, funct3: u32) -> u32 {
    (funct6 << 26) | (funct3 << 12) | 0x57
}
/// funct6 + funct3 + opcode; vm, vs2, vs1/rs1/imm and vd are operands.
const VM: u32 = 0xfc00_707f;
/// As [`VM`] with the vs1 field fixed (unary ops selected by vs1).
const VU: u32 = 0xfc0f_f07f;
/// Unary op with vs1 selector: funct6 | vs1 | funct3 | opcode.
const fn vu(funct6: u32, funct3: u32, vs1: u32) -> u32 {
    v(funct6, funct3) | (vs1 << 15)
}
const R: u32 = 0xfe00_707f;
const I: u32 = 0x0000_707f;

macro_rules! table {
    ($( [$unit:ident] $( $variant:ident, $mnem:literal, $match:expr, $mask:expr, $fmt:ident $(, $roles:expr)?; )* )*) => {
        /// Every instruction of the table (variant names follow the mnemonic: `vadd.vv` → `VaddVv`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Op { $($($variant,)*)* }

        impl Op {
            /// The execution unit (table section) of this instruction.
            #[inline(always)]
            pub fn unit(self) -> Unit {
                match self {
                    $($(Op::$variant)|* => Unit::$unit,)*
                }
            }
        }

        /// Every [`Op`], by number (`ALL_OPS[op as usize] == op`).
        pub const ALL_OPS: &[Op] = &[$($(Op::$variant,)*)*];
        /// The number of instructions ([`Op`] values are `0..OP_COUNT`).
        pub const OP_COUNT: usize = ALL_OPS.len();

        /// The instruction table, in declaration order (`TABLE[op as usize].op == op`).
        pub static TABLE: &[InstDesc] = &[
            $($(InstDesc {
                op: Op::$variant,
                mnemonic: $mnem,
                match_bits: $match,
                mask: $mask,
                fmt: Fmt::$fmt,
                roles: table!(@roles $fmt $(, $roles)?),
            },)*)*
        ];
    };
    (@roles $fmt:ident) => { Fmt::$fmt.roles() };
    (@roles $fmt:ident, $roles:expr) => { $roles };
}

table! {
    [Scalar]
    // ---- RV32I -------------------------------------------------------------------------------
    Lui, "lui", 0x37, 0x7f, U;
    Auipc, "auipc", 0x17, 0x7f, U;
    Jal, "jal", 0x6f, 0x7f, J;
    Jalr, "jalr", 0x67, I, Jalr;
    Beq, "beq", 0x63, I, B;
    Bne, "bne", 0x1063, I, B;
    Blt, "blt", 0x4063, I, B;
    Bge, "bge", 0x5063, I, B;
    Bltu, "bltu", 0x6063, I, B;
    Bgeu, "bgeu", 0x7063, I, B;
    Lb, "lb", 0x03, I, Load;
    Lh, "lh", 0x1003, I, Load;
    Lw, "lw", 0x2003, I, Load;
    Lbu, "lbu", 0x4003, I, Load;
    Lhu, "lhu", 0x5003, I, Load;
    Sb, "sb", 0x23, I, Store;
    Sh, "sh", 0x1023, I, Store;
    Sw, "sw", 0x2023, I, Store;
    Addi, "addi", 0x13, I, I;
    Slti, "slti", 0x2013, I, I;
    Sltiu, "sltiu", 0x3013, I, I;
    Xori, "xori", 0x4013, I, I;
    Ori, "ori", 0x6013, I, I;
    Andi, "andi", 0x7013, I, I;
    Slli, "slli", 0x1013, R, Shamt;
    Srli, "srli", 0x5013, R, Shamt;
    Srai, "srai", 0x4000_5013, R, Shamt;
    Add, "add", 0x33, R, R;
    Sub, "sub", 0x4000_0033, R, R;
    Sll, "sll", 0x1033, R, R;
    Slt, "slt", 0x2033, R, R;
    Sltu, "sltu", 0x3033, R, R;
    Xor, "xor", 0x4033, R, R;
    Srl, "srl", 0x5033, R, R;
    Sra, "sra", 0x4000_5033, R, R;
    Or, "or", 0x6033, R, R;
    And, "and", 0x7033, R, R;
    Fence, "fence", 0x0f, I, Fence;
    FenceI, "fence.i", 0x100f, I, Fence;
    Ecall, "ecall", 0x73, 0xffff_ffff, Bare;
    Ebreak, "ebreak", 0x0010_0073, 0xffff_ffff, Bare;
    Mret, "mret", 0x3020_0073, 0xffff_ffff, Bare;
    Wfi, "wfi", 0x1050_0073, 0xffff_ffff, Bare;
    Csrrw, "csrrw", 0x1073, I, Csr;
    Csrrs, "csrrs", 0x2073, I, Csr;
    Csrrc, "csrrc", 0x3073, I, Csr;
    Csrrwi, "csrrwi", 0x5073, I, CsrI;
    Csrrsi, "csrrsi", 0x6073, I, CsrI;
    Csrrci, "csrrci", 0x7073, I, CsrI;
    // ---- M ---------------------------------------------------------------------------------------
    Mul, "mul", 0x0200_0033, R, R;
    Mulh, "mulh", 0x0200_1033, R, R;
    Mulhsu, "mulhsu", 0x0200_2033, R, R;
    Mulhu, "mulhu", 0x0200_3033, R, R;
    Div, "div", 0x0200_4033, R, R;
    Divu, "divu", 0x0200_5033, R, R;
    Rem, "rem", 0x0200_6033, R, R;
    Remu, "remu", 0x0200_7033, R, R;
    // ---- A (scalar, as the baseline simulator executes it) ---------------------------------------
    LrW, "lr.w", 0x1000_202f, 0xf9f0_707f, Lr;
    ScW, "sc.w", 0x1800_202f, 0xf800_707f, Amo;
    AmoswapW, "amoswap.w", 0x0800_202f, 0xf800_707f, Amo;
    AmoaddW, "amoadd.w", 0x0000_202f, 0xf800_707f, Amo;
    AmoxorW, "amoxor.w", 0x2000_202f, 0xf800_707f, Amo;
    AmoandW, "amoand.w", 0x6000_202f, 0xf800_707f, Amo;
    AmoorW, "amoor.w", 0x4000_202f, 0xf800_707f, Amo;
    AmominW, "amomin.w", 0x8000_202f, 0xf800_707f, Amo;
    AmomaxW, "amomax.w", 0xa000_202f, 0xf800_707f, Amo;
    AmominuW, "amominu.w", 0xc000_202f, 0xf800_707f, Amo;
    AmomaxuW, "amomaxu.w", 0xe000_202f, 0xf800_707f, Amo;
    // Zacas compare-and-swap (ventus-icd extension, executed per lane like the other AMOs).
    AmocasW, "amocas.w", 0x2800_202f, 0xf800_707f, Amo, rows::AMOCAS;
    // Zacas RV32 `amocas.d` (ventus-icd extension, per lane): 64-bit compare-and-swap on even/odd
    // vector register pairs — vd/vd+1 hold the expected value (low/high word) and receive the old
    // one, vs2/vs2+1 the new value; an odd vd or vs2 is an illegal instruction.
    AmocasD, "amocas.d", 0x2800_302f, 0xf800_707f, Amo, rows::AMOCAS;
    // ---- F (zfinx register names; spike's mirrored FP file) --------------------------------------
    Flw, "flw", 0x2007, I, Load;
    Fsw, "fsw", 0x2027, I, Store;
    FmaddS, "fmadd.s", 0x43, 0x0600_007f, R4;
    FmsubS, "fmsub.s", 0x47, 0x0600_007f, R4;
    FnmsubS, "fnmsub.s", 0x4b, 0x0600_007f, R4;
    FnmaddS, "fnmadd.s", 0x4f, 0x0600_007f, R4;
    FaddS, "fadd.s", 0x53, 0xfe00_007f, FRm;
    FsubS, "fsub.s", 0x0800_0053, 0xfe00_007f, FRm;
    FmulS, "fmul.s", 0x1000_0053, 0xfe00_007f, FRm;
    FdivS, "fdiv.s", 0x1800_0053, 0xfe00_007f, FRm;
    FsqrtS, "fsqrt.s", 0x5800_0053, 0xfff0_007f, F1Rm;
    FsgnjS, "fsgnj.s", 0x2000_0053, R, R;
    FsgnjnS, "fsgnjn.s", 0x2000_1053, R, R;
    FsgnjxS, "fsgnjx.s", 0x2000_2053, R, R;
    FminS, "fmin.s", 0x2800_0053, R, R;
    FmaxS, "fmax.s", 0x2800_1053, R, R;
    FcvtWS, "fcvt.w.s", 0xc000_0053, 0xfff0_007f, F1Rm;
    FcvtWuS, "fcvt.wu.s", 0xc010_0053, 0xfff0_007f, F1Rm;
    FmvXW, "fmv.x.w", 0xe000_0053, 0xfff0_707f, F1;
    FeqS, "feq.s", 0xa000_2053, R, R;
    FltS, "flt.s", 0xa000_1053, R, R;
    FleS, "fle.s", 0xa000_0053, R, R;
    FclassS, "fclass.s", 0xe000_1053, 0xfff0_707f, F1;
    FcvtSW, "fcvt.s.w", 0xd000_0053, 0xfff0_007f, F1Rm;
    FcvtSWu, "fcvt.s.wu", 0xd010_0053, 0xfff0_007f, F1Rm;
    FmvWX, "fmv.w.x", 0xf000_0053, 0xfff0_707f, F1;
    [VectorInt]
    // ---- RVV configuration and memory (EEW = 32) --------------------------------------------------
    Vsetvli, "vsetvli", 0x7057, 0x8000_707f, Vsetvli;
    Vsetivli, "vsetivli", 0xc000_7057, 0xc000_707f, Vsetivli;
    Vsetvl, "vsetvl", 0x8000_7057, R, R;
    Vle32V, "vle32.v", 0x6007, 0xfdf0_707f, VLoad;
    Vse32V, "vse32.v", 0x6027, 0xfdf0_707f, VLoad, rows::VSTORE;
    Vlse32V, "vlse32.v", 0x0800_6007, VM, VLoadStride;
    Vsse32V, "vsse32.v", 0x0800_6027, VM, VLoadStride, rows::VSTORE_STRIDE;
    Vluxei32V, "vluxei32.v", 0x0400_6007, VM, VLoadIndex;
    Vsuxei32V, "vsuxei32.v", 0x0400_6027, VM, VLoadIndex, rows::VSTORE_INDEX;
    Vloxei32V, "vloxei32.v", 0x0c00_6007, VM, VLoadIndex;
    Vsoxei32V, "vsoxei32.v", 0x0c00_6027, VM, VLoadIndex, rows::VSTORE_INDEX;
    // ---- RVV integer ---------------------------------------------------------------------------------
    VaddVv, "vadd.vv", v(0b000000, OPIVV), VM, VV;
    VaddVx, "vadd.vx", v(0b000000, OPIVX), VM, VX;
    VaddVi, "vadd.vi", v(0b000000, OPIVI), VM, VI;
    VsubVv, "vsub.vv", v(0b000010, OPIVV), VM, VV;
    VsubVx, "vsub.vx", v(0b000010, OPIVX), VM, VX;
    VrsubVx, "vrsub.vx", v(0b000011, OPIVX), VM, VX;
    VrsubVi, "vrsub.vi", v(0b000011, OPIVI), VM, VI;
    VminuVv, "vminu.vv", v(0b000100, OPIVV), VM, VV;
    VminuVx, "vminu.vx", v(0b000100, OPIVX), VM, VX;
    VminVv, "vmin.vv", v(0b000101, OPIVV), VM, VV;
    VminVx, "vmin.vx", v(0b000101, OPIVX), VM, VX;
    VmaxuVv, "vmaxu.vv", v(0b000110, OPIVV), VM, VV;
    VmaxuVx, "vmaxu.vx", v(0b000110, OPIVX), VM, VX;
    VmaxVv, "vmax.vv", v(0b000111, OPIVV), VM, VV;
    VmaxVx, "vmax.vx", v(0b000111, OPIVX), VM, VX;
    VandVv, "vand.vv", v(0b001001, OPIVV), VM, VV;
    VandVx, "vand.vx", v(0b001001, OPIVX), VM, VX;
    VandVi, "vand.vi", v(0b001001, OPIVI), VM, VI;
    VorVv, "vor.vv", v(0b001010, OPIVV), VM, VV;
    VorVx, "vor.vx", v(0b001010, OPIVX), VM, VX;
    VorVi, "vor.vi", v(0b001010, OPIVI), VM, VI;
    VxorVv, "vxor.vv", v(0b001011, OPIVV), VM, VV;
    VxorVx, "vxor.vx", v(0b001011, OPIVX), VM, VX;
    VxorVi, "vxor.vi", v(0b001011, OPIVI), VM, VI;
    VmvVV, "vmv.v.v", v(0b010111, OPIVV) | 1 << 25, 0xfff0_707f, VMvV;
    VmvVX, "vmv.v.x", v(0b010111, OPIVX) | 1 << 25, 0xfff0_707f, VMvX;
    VmvVI, "vmv.v.i", v(0b010111, OPIVI) | 1 << 25, 0xfff0_707f, VMvI;
    VmergeVvm, "vmerge.vvm", v(0b010111, OPIVV), 0xfe00_707f, VMerge;
    VmergeVxm, "vmerge.vxm", v(0b010111, OPIVX), 0xfe00_707f, VMerge, rows::VMERGE_X;
    VmergeVim, "vmerge.vim", v(0b010111, OPIVI), 0xfe00_707f, VMerge, rows::VMERGE_I;
    VmseqVv, "vmseq.vv", v(0b011000, OPIVV), VM, VV;
    VmseqVx, "vmseq.vx", v(0b011000, OPIVX), VM, VX;
    VmseqVi, "vmseq.vi", v(0b011000, OPIVI), VM, VI;
    VmsneVv, "vmsne.vv", v(0b011001, OPIVV), VM, VV;
    VmsneVx, "vmsne.vx", v(0b011001, OPIVX), VM, VX;
    VmsneVi, "vmsne.vi", v(0b011001, OPIVI), VM, VI;
    VmsltuVv, "vmsltu.vv", v(0b011010, OPIVV), VM, VV;
    VmsltuVx, "vmsltu.vx", v(0b011010, OPIVX), VM, VX;
    VmsltVv, "vmslt.vv", v(0b011011, OPIVV), VM, VV;
    VmsltVx, "vmslt.vx", v(0b011011, OPIVX), VM, VX;
    VmsleuVv, "vmsleu.vv", v(0b011100, OPIVV), VM, VV;
    VmsleuVx, "vmsleu.vx", v(0b011100, OPIVX), VM, VX;
    VmsleuVi, "vmsleu.vi", v(0b011100, OPIVI), VM, VIu;
    VmsleVv, "vmsle.vv", v(0b011101, OPIVV), VM, VV;
    VmsleVx, "vmsle.vx", v(0b011101, OPIVX), VM, VX;
    VmsleVi, "vmsle.vi", v(0b011101, OPIVI), VM, VI;
    VmsgtuVx, "vmsgtu.vx", v(0b011110, OPIVX), VM, VX;
    VmsgtuVi, "vmsgtu.vi", v(0b011110, OPIVI), VM, VIu;
    VmsgtVx, "vmsgt.vx", v(0b011111, OPIVX), VM, VX;
    VmsgtVi, "vmsgt.vi", v(0b011111, OPIVI), VM, VI;
    VsadduVv, "vsaddu.vv", v(0b100000, OPIVV), VM, VV;
    VsadduVx, "vsaddu.vx", v(0b100000, OPIVX), VM, VX;
    VsadduVi, "vsaddu.vi", v(0b100000, OPIVI), VM, VIu;
    VsaddVv, "vsadd.vv", v(0b100001, OPIVV), VM, VV;
    VsaddVx, "vsadd.vx", v(0b100001, OPIVX), VM, VX;
    VsaddVi, "vsadd.vi", v(0b100001, OPIVI), VM, VI;
    VssubuVv, "vssubu.vv", v(0b100010, OPIVV), VM, VV;
    VssubuVx, "vssubu.vx", v(0b100010, OPIVX), VM, VX;
    VssubVv, "vssub.vv", v(0b100011, OPIVV), VM, VV;
    VssubVx, "vssub.vx", v(0b100011, OPIVX), VM, VX;
    VsllVv, "vsll.vv", v(0b100101, OPIVV), VM, VV;
    VsllVx, "vsll.vx", v(0b100101, OPIVX), VM, VX;
    VsllVi, "vsll.vi", v(0b100101, OPIVI), VM, VIu;
    VsrlVv, "vsrl.vv", v(0b101000, OPIVV), VM, VV;
    VsrlVx, "vsrl.vx", v(0b101000, OPIVX), VM, VX;
    VsrlVi, "vsrl.vi", v(0b101000, OPIVI), VM, VIu;
    VsraVv, "vsra.vv", v(0b101001, OPIVV), VM, VV;
    VsraVx, "vsra.vx", v(0b101001, OPIVX), VM, VX;
    VsraVi, "vsra.vi", v(0b101001, OPIVI), VM, VIu;
    VmvXS, "vmv.x.s", v(0b010000, OPMVV) | 1 << 25, 0xfe0f_f07f, VMvXS;
    VmvSX, "vmv.s.x", v(0b010000, OPMVX) | 1 << 25, 0xfff0_707f, VMvX;
    VzextVf2, "vzext.vf2", vu(0b010010, OPMVV, 0b00110), VU, VUnary;
    VsextVf2, "vsext.vf2", vu(0b010010, OPMVV, 0b00111), VU, VUnary;
    VzextVf4, "vzext.vf4", vu(0b010010, OPMVV, 0b00100), VU, VUnary;
    VsextVf4, "vsext.vf4", vu(0b010010, OPMVV, 0b00101), VU, VUnary;
    VidV, "vid.v", vu(0b010100, OPMVV, 0b10001), 0xfdff_f07f, VId;
    VdivuVv, "vdivu.vv", v(0b100000, OPMVV), VM, VV;
    VdivuVx, "vdivu.vx", v(0b100000, OPMVX), VM, VX;
    VdivVv, "vdiv.vv", v(0b100001, OPMVV), VM, VV;
    VdivVx, "vdiv.vx", v(0b100001, OPMVX), VM, VX;
    VremuVv, "vremu.vv", v(0b100010, OPMVV), VM, VV;
    VremuVx, "vremu.vx", v(0b100010, OPMVX), VM, VX;
    VremVv, "vrem.vv", v(0b100011, OPMVV), VM, VV;
    VremVx, "vrem.vx", v(0b100011, OPMVX), VM, VX;
    VmulhuVv, "vmulhu.vv", v(0b100100, OPMVV), VM, VV;
    VmulhuVx, "vmulhu.vx", v(0b100100, OPMVX), VM, VX;
    VmulVv, "vmul.vv", v(0b100101, OPMVV), VM, VV;
    VmulVx, "vmul.vx", v(0b100101, OPMVX), VM, VX;
    VmulhsuVv, "vmulhsu.vv", v(0b100110, OPMVV), VM, VV;
    VmulhsuVx, "vmulhsu.vx", v(0b100110, OPMVX), VM, VX;
    VmulhVv, "vmulh.vv", v(0b100111, OPMVV), VM, VV;
    VmulhVx, "vmulh.vx", v(0b100111, OPMVX), VM, VX;
    VmaddVv, "vmadd.vv", v(0b101001, OPMVV), VM, VMacV;
    VmaddVx, "vmadd.vx", v(0b101001, OPMVX), VM, VMacX;
    VnmsubVv, "vnmsub.vv", v(0b101011, OPMVV), VM, VMacV;
    VnmsubVx, "vnmsub.vx", v(0b101011, OPMVX), VM, VMacX;
    VmaccVv, "vmacc.vv", v(0b101101, OPMVV), VM, VMacV;
    VmaccVx, "vmacc.vx", v(0b101101, OPMVX), VM, VMacX;
    VnmsacVv, "vnmsac.vv", v(0b101111, OPMVV), VM, VMacV;
    VnmsacVx, "vnmsac.vx", v(0b101111, OPMVX), VM, VMacX;
    [VectorFp]
    // ---- RVV floating point (SEW = 32) ------------------------------------------------------------
    VfaddVv, "vfadd.vv", v(0b000000, OPFVV), VM, VV;
    VfaddVf, "vfadd.vf", v(0b000000, OPFVF), VM, VF;
    VfsubVv, "vfsub.vv", v(0b000010, OPFVV), VM, VV;
    VfsubVf, "vfsub.vf", v(0b000010, OPFVF), VM, VF;
    VfminVv, "vfmin.vv", v(0b000100, OPFVV), VM, VV;
    VfminVf, "vfmin.vf", v(0b000100, OPFVF), VM, VF;
    VfmaxVv, "vfmax.vv", v(0b000110, OPFVV), VM, VV;
    VfmaxVf, "vfmax.vf", v(0b000110, OPFVF), VM, VF;
    VfsgnjVv, "vfsgnj.vv", v(0b001000, OPFVV), VM, VV;
    VfsgnjVf, "vfsgnj.vf", v(0b001000, OPFVF), VM, VF;
    VfsgnjnVv, "vfsgnjn.vv", v(0b001001, OPFVV), VM, VV;
    VfsgnjnVf, "vfsgnjn.vf", v(0b001001, OPFVF), VM, VF;
    VfsgnjxVv, "vfsgnjx.vv", v(0b001010, OPFVV), VM, VV;
    VfsgnjxVf, "vfsgnjx.vf", v(0b001010, OPFVF), VM, VF;
    VfmvFS, "vfmv.f.s", v(0b010000, OPFVV) | 1 << 25, 0xfe0f_f07f, VMvXS;
    VfmvSF, "vfmv.s.f", v(0b010000, OPFVF) | 1 << 25, 0xfff0_707f, VMvF;
    VfcvtXuFV, "vfcvt.xu.f.v", vu(0b010010, OPFVV, 0b00000), VU, VUnary;
    VfcvtXFV, "vfcvt.x.f.v", vu(0b010010, OPFVV, 0b00001), VU, VUnary;
    VfcvtFXuV, "vfcvt.f.xu.v", vu(0b010010, OPFVV, 0b00010), VU, VUnary;
    VfcvtFXV, "vfcvt.f.x.v", vu(0b010010, OPFVV, 0b00011), VU, VUnary;
    VfcvtRtzXuFV, "vfcvt.rtz.xu.f.v", vu(0b010010, OPFVV, 0b00110), VU, VUnary;
    VfcvtRtzXFV, "vfcvt.rtz.x.f.v", vu(0b010010, OPFVV, 0b00111), VU, VUnary;
    VfsqrtV, "vfsqrt.v", vu(0b010011, OPFVV, 0b00000), VU, VUnary;
    VfclassV, "vfclass.v", vu(0b010011, OPFVV, 0b10000), VU, VUnary;
    VfmvVF, "vfmv.v.f", v(0b010111, OPFVF) | 1 << 25, 0xfff0_707f, VMvF;
    VfmergeVfm, "vfmerge.vfm", v(0b010111, OPFVF), 0xfe00_707f, VMerge, rows::VFMERGE;
    VmfeqVv, "vmfeq.vv", v(0b011000, OPFVV), VM, VV;
    VmfeqVf, "vmfeq.vf", v(0b011000, OPFVF), VM, VF;
    VmfleVv, "vmfle.vv", v(0b011001, OPFVV), VM, VV;
    VmfleVf, "vmfle.vf", v(0b011001, OPFVF), VM, VF;
    VmfltVv, "vmflt.vv", v(0b011011, OPFVV), VM, VV;
    VmfltVf, "vmflt.vf", v(0b011011, OPFVF), VM, VF;
    VmfneVv, "vmfne.vv", v(0b011100, OPFVV), VM, VV;
    VmfneVf, "vmfne.vf", v(0b011100, OPFVF), VM, VF;
    VmfgtVf, "vmfgt.vf", v(0b011101, OPFVF), VM, VF;
    VmfgeVf, "vmfge.vf", v(0b011111, OPFVF), VM, VF;
    VfdivVv, "vfdiv.vv", v(0b100000, OPFVV), VM, VV;
    VfdivVf, "vfdiv.vf", v(0b100000, OPFVF), VM, VF;
    VfrdivVf, "vfrdiv.vf", v(0b100001, OPFVF), VM, VF;
    VfmulVv, "vfmul.vv", v(0b100100, OPFVV), VM, VV;
    VfmulVf, "vfmul.vf", v(0b100100, OPFVF), VM, VF;
    VfrsubVf, "vfrsub.vf", v(0b100111, OPFVF), VM, VF;
    VfmaddVv, "vfmadd.vv", v(0b101000, OPFVV), VM, VMacV;
    VfmaddVf, "vfmadd.vf", v(0b101000, OPFVF), VM, VMacF;
    VfnmaddVv, "vfnmadd.vv", v(0b101001, OPFVV), VM, VMacV;
    VfnmaddVf, "vfnmadd.vf", v(0b101001, OPFVF), VM, VMacF;
    VfmsubVv, "vfmsub.vv", v(0b101010, OPFVV), VM, VMacV;
    VfmsubVf, "vfmsub.vf", v(0b101010, OPFVF), VM, VMacF;
    VfnmsubVv, "vfnmsub.vv", v(0b101011, OPFVV), VM, VMacV;
    VfnmsubVf, "vfnmsub.vf", v(0b101011, OPFVF), VM, VMacF;
    VfmaccVv, "vfmacc.vv", v(0b101100, OPFVV), VM, VMacV;
    VfmaccVf, "vfmacc.vf", v(0b101100, OPFVF), VM, VMacF;
    VfnmaccVv, "vfnmacc.vv", v(0b101101, OPFVV), VM, VMacV;
    VfnmaccVf, "vfnmacc.vf", v(0b101101, OPFVF), VM, VMacF;
    VfmsacVv, "vfmsac.vv", v(0b101110, OPFVV), VM, VMacV;
    VfmsacVf, "vfmsac.vf", v(0b101110, OPFVF), VM, VMacF;
    VfnmsacVv, "vfnmsac.vv", v(0b101111, OPFVV), VM, VMacV;
    VfnmsacVf, "vfnmsac.vf", v(0b101111, OPFVF), VM, VMacF;
    [Ventus]
    // ---- Ventus custom-0 (0x0b) -------------------------------------------------------------------
    Vadd12Vi, "vadd12.vi", 0x0b, I, VI12;
    Vsub12Vi, "vsub12.vi", 0x100b, I, VI12;
    Regext, "regext", 0x200b, I, Prefix;
    Regexti, "regexti", 0x300b, I, Prefix;
    Endprg, "endprg", 0x400b, R, X3;
    Barrier, "barrier", 0x0400_400b, R, Barrier;
    Barriersub, "barriersub", 0x0600_400b, R, Barrier;
    VfttaVv, "vftta.vv", 0x0c00_400b, 0xfc00_707f, VV, rows::VFTTA;
    VfexpV, "vfexp", 0x0800_600b, 0xfc0f_f07f, VUnary;
    // ---- Ventus custom-1 (0x2b): private-memory vector loads/stores ------------------------------
    VlbV, "vlb.v", 0x2b, 0x8000_707f, PLoad;
    VlhV, "vlh.v", 0x102b, 0x8000_707f, PLoad;
    VlwV, "vlw.v", 0x202b, 0x8000_707f, PLoad;
    VlbuV, "vlbu.v", 0x402b, 0x8000_707f, PLoad;
    VlhuV, "vlhu.v", 0x502b, 0x8000_707f, PLoad;
    VsbV, "vsb.v", 0x8000_002b, 0x8000_707f, PStore;
    VshV, "vsh.v", 0x8000_102b, 0x8000_707f, PStore;
    VswV, "vsw.v", 0x8000_202b, 0x8000_707f, PStore;
    // ---- Ventus custom-2 (0x5b): divergent branches and reconvergence ----------------------------
    Vbeq, "vbeq", 0x5b, I, VBranch;
    Vbne, "vbne", 0x105b, I, VBranch;
    Join, "join", 0x205b, I, Join;
    Setrpc, "setrpc", 0x305b, I, I;
    Vblt, "vblt", 0x405b, I, VBranch;
    Vbge, "vbge", 0x505b, I, VBranch;
    Vbltu, "vbltu", 0x605b, I, VBranch;
    Vbgeu, "vbgeu", 0x705b, I, VBranch;
    // ---- Ventus custom-3 (0x7b): flat vector loads/stores with 12-bit offsets --------------------
    Vlb12V, "vlb12.v", 0x7b, I, VLoad12;
    Vlh12V, "vlh12.v", 0x107b, I, VLoad12;
    Vlw12V, "vlw12.v", 0x207b, I, VLoad12;
    Vsh12V, "vsh12.v", 0x307b, I, VStore12;
    Vlbu12V, "vlbu12.v", 0x407b, I, VLoad12;
    Vlhu12V, "vlhu12.v", 0x507b, I, VLoad12;
    Vsw12V, "vsw12.v", 0x607b, I, VStore12;
    Vsb12V, "vsb12.v", 0x707b, I, VStore12;
}

impl Op {
    /// The table row of this instruction.
    #[inline]
    pub fn desc(self) -> &'static InstDesc {
        &TABLE[self as usize]
    }
    /// The assembler mnemonic.
    pub fn mnemonic(self) -> &'static str {
        self.desc().mnemonic
    }
}
