//! Operand formats: where each operand lives in the instruction word and how it is written in
//! assembly. A format is the only place that knows a bit layout; the decoder, encoder, disassembler
//! and assembler all read it from here.

use crate::util::sext;

/// Operand format of a table row (see [`super::table`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    U,
    J,
    Jalr,
    B,
    Load,
    Store,
    I,
    Shamt,
    R,
    Fence,
    Bare,
    Csr,
    CsrI,
    Lr,
    Amo,
    R4,
    FRm,
    F1Rm,
    F1,
    Vsetvli,
    Vsetivli,
    VLoad,
    VLoadStride,
    VLoadIndex,
    VV,
    VX,
    VF,
    VI,
    VIu,
    VMacV,
    VMacX,
    VMacF,
    VMvV,
    VMvX,
    VMvF,
    VMvI,
    VMerge,
    VMvXS,
    VUnary,
    VId,
    VI12,
    Prefix,
    X3,
    Barrier,
    PLoad,
    PStore,
    VBranch,
    Join,
    VLoad12,
    VStore12,
}

/// How the immediate of a format is stored in the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImmKind {
    None,
    /// bits 31:20, sign-extended.
    I12,
    /// bits 31:20, zero-extended (CSR numbers, fence fields, regext payloads).
    U12,
    /// {31:25, 11:7}, sign-extended.
    S12,
    /// B-type branch offset, sign-extended, bit 0 = 0.
    B13,
    /// bits 31:12 kept in place (value = word & 0xfffff000).
    U20,
    /// J-type offset.
    J21,
    /// bits 24:20 (shift amount).
    Shamt5,
    /// bits 19:15 sign-extended (vector `.vi`).
    Simm5,
    /// bits 19:15 zero-extended (unsigned `.vi`, barrier flags, csr immediates, vsetivli AVL).
    Uimm5,
    /// bits 30:20 (vsetvli vtype).
    Zimm11,
    /// bits 29:20 (vsetivli vtype).
    Zimm10,
    /// Private load: bits 30:20, sign bit 30.
    P11Load,
    /// Private store: {30:25, 11:7}, sign bit 30.
    P11Store,
}

/// Which fields a format uses.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub rd: bool,
    pub rs1: bool,
    pub rs2: bool,
    pub rs3: bool,
    pub vm: bool,
    /// bits 14:12 rounding mode (FP).
    pub rm: bool,
    /// bits 26:25 aq/rl (AMO).
    pub aqrl: bool,
    pub imm: ImmKind,
}

const fn f(rd: bool, rs1: bool, rs2: bool, imm: ImmKind) -> Fields {
    Fields { rd, rs1, rs2, rs3: false, vm: false, rm: false, aqrl: false, imm }
}
const fn fv(rd: bool, rs1: bool, rs2: bool, imm: ImmKind) -> Fields {
    Fields { vm: true, ..f(rd, rs1, rs2, imm) }
}

impl Fmt {
    /// The fields this format encodes.
    pub const fn fields(self) -> Fields {
        use ImmKind::*;
        match self {
            Fmt::U => f(true, false, false, U20),
            Fmt::J => f(true, false, false, J21),
            Fmt::Jalr | Fmt::Load | Fmt::I | Fmt::VI12 | Fmt::VLoad12 => f(true, true, false, I12),
            Fmt::Prefix | Fmt::Fence | Fmt::Csr => f(true, true, false, U12),
            Fmt::CsrI => f(true, true, false, U12),
            Fmt::B | Fmt::VBranch | Fmt::Join => f(false, true, true, B13),
            Fmt::Store | Fmt::VStore12 => f(false, true, true, S12),
            Fmt::Shamt => f(true, true, false, Shamt5),
            Fmt::R | Fmt::X3 => f(true, true, true, None),
            Fmt::Bare => f(false, false, false, None),
            Fmt::Lr => Fields { aqrl: true, ..f(true, true, false, None) },
            Fmt::Amo => Fields { aqrl: true, ..f(true, true, true, None) },
            Fmt::R4 => Fields { rs3: true, rm: true, ..f(true, true, true, None) },
            Fmt::FRm => Fields { rm: true, ..f(true, true, true, None) },
            Fmt::F1Rm => Fields { rm: true, ..f(true, true, false, None) },
            Fmt::F1 => f(true, true, false, None),
            Fmt::Vsetvli => f(true, true, false, Zimm11),
            Fmt::Vsetivli => f(true, true, false, Zimm10),
            Fmt::VLoad => fv(true, true, false, None),
            Fmt::VLoadStride | Fmt::VLoadIndex => fv(true, true, true, None),
            Fmt::VV | Fmt::VX | Fmt::VF | Fmt::VMacV | Fmt::VMacX | Fmt::VMacF => fv(true, true, true, None),
            Fmt::VI => fv(true, false, true, Simm5),
            Fmt::VIu => fv(true, false, true, Uimm5),
            Fmt::VMvV | Fmt::VMvX | Fmt::VMvF => f(true, true, false, None),
            Fmt::VMvI => f(true, false, false, Simm5),
            Fmt::VMerge => f(true, true, true, None),
            Fmt::VMvXS => f(true, false, true, None),
            Fmt::VUnary => fv(true, false, true, None),
            Fmt::VId => fv(true, false, false, None),
            Fmt::Barrier => f(true, false, true, Uimm5),
            Fmt::PLoad => f(true, true, false, P11Load),
            Fmt::PStore => f(false, true, true, P11Store),
        }
    }

    /// Bits of the word owned by this format's operands (the complement must be the row's mask).
    pub const fn operand_bits(self) -> u32 {
        let fl = self.fields();
        let mut m = 0;
        if fl.rd {
            m |= 0x1f << 7;
        }
        if fl.rs1 {
            m |= 0x1f << 15;
        }
        if fl.rs2 {
            m |= 0x1f << 20;
        }
        if fl.rs3 {
            m |= 0x1f << 27;
        }
        if fl.vm {
            m |= 1 << 25;
        }
        if fl.rm {
            m |= 0x7 << 12;
        }
        if fl.aqrl {
            m |= 0x3 << 25;
        }
        m | fl.imm.bits()
    }
}

impl ImmKind {
    /// How far a pc-relative target can be for a branch (`B13`) or jump (`J21`) offset: the
    /// offset's magnitude must stay below this (`None` for other immediates).
    pub const fn reach(self) -> Option<i64> {
        match self {
            ImmKind::B13 => Some(1 << 12),
            ImmKind::J21 => Some(1 << 20),
            _ => None,
        }
    }

    /// Bits of the word that hold this immediate.
    pub const fn bits(self) -> u32 {
        match self {
            ImmKind::None => 0,
            ImmKind::I12 | ImmKind::U12 => 0xfff0_0000,
            ImmKind::S12 | ImmKind::B13 => 0xfe00_0f80,
            ImmKind::U20 | ImmKind::J21 => 0xffff_f000,
            ImmKind::Shamt5 => 0x01f0_0000,
            ImmKind::Simm5 | ImmKind::Uimm5 => 0x000f_8000,
            ImmKind::Zimm11 => 0x7ff0_0000,
            ImmKind::Zimm10 => 0x3ff0_0000,
            ImmKind::P11Load => 0x7ff0_0000,
            ImmKind::P11Store => 0x7e00_0f80,
        }
    }

    /// Extracts the immediate from a word.
    pub const fn extract(self, w: u32) -> i32 {
        match self {
            ImmKind::None => 0,
            ImmKind::I12 => sext(w >> 20, 12),
            ImmKind::U12 => (w >> 20) as i32,
            ImmKind::S12 => sext(((w >> 25) << 5) | ((w >> 7) & 0x1f), 12),
            ImmKind::B13 => sext(
                ((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3f) << 5) | (((w >> 8) & 0xf) << 1),
                13,
            ),
            ImmKind::U20 => (w & 0xffff_f000) as i32,
            ImmKind::J21 => sext(
                ((w >> 31) << 20) | (((w >> 12) & 0xff) << 12) | (((w >> 20) & 1) << 11) | (((w >> 21) & 0x3ff) << 1),
                21,
            ),
            ImmKind::Shamt5 => ((w >> 20) & 0x1f) as i32,
            ImmKind::Simm5 => sext((w >> 15) & 0x1f, 5),
            ImmKind::Uimm5 => ((w >> 15) & 0x1f) as i32,
            ImmKind::Zimm11 => ((w >> 20) & 0x7ff) as i32,
            ImmKind::Zimm10 => ((w >> 20) & 0x3ff) as i32,
            ImmKind::P11Load => sext((w >> 20) & 0x7ff, 11),
            ImmKind::P11Store => sext((((w >> 25) & 0x3f) << 5) | ((w >> 7) & 0x1f), 11),
        }
    }

    /// Places an immediate into its bits; `None` when it does not fit.
    pub const fn insert(self, imm: i32) -> Option<u32> {
        let u = imm as u32;
        const fn fits_s(v: i32, bits: u32) -> bool {
            v >= -(1 << (bits - 1)) && v < (1 << (bits - 1))
        }
        const fn fits_u(v: i32, bits: u32) -> bool {
            v >= 0 && (v as u32) < (1u32 << bits)
        }
        match self {
            ImmKind::None => Some(0),
            ImmKind::I12 if fits_s(imm, 12) => Some((u & 0xfff) << 20),
            ImmKind::U12 if fits_u(imm, 12) => Some(u << 20),
            ImmKind::S12 if fits_s(imm, 12) => Some((((u >> 5) & 0x7f) << 25) | ((u & 0x1f) << 7)),
            ImmKind::B13 if fits_s(imm, 13) && imm & 1 == 0 => Some(
                (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (((u >> 1) & 0xf) << 8) | (((u >> 11) & 1) << 7),
            ),
            ImmKind::U20 if u & 0xfff == 0 => Some(u),
            ImmKind::J21 if fits_s(imm, 21) && imm & 1 == 0 => Some(
                (((u >> 20) & 1) << 31)
                    | (((u >> 1) & 0x3ff) << 21)
                    | (((u >> 11) & 1) << 20)
                    | (((u >> 12) & 0xff) << 12),
            ),
            ImmKind::Shamt5 if fits_u(imm, 5) => Some(u << 20),
            ImmKind::Simm5 if fits_s(imm, 5) => Some((u & 0x1f) << 15),
            ImmKind::Uimm5 if fits_u(imm, 5) => Some(u << 15),
            ImmKind::Zimm11 if fits_u(imm, 11) => Some(u << 20),
            ImmKind::Zimm10 if fits_u(imm, 10) => Some(u << 20),
            ImmKind::P11Load if fits_s(imm, 11) => Some((u & 0x7ff) << 20),
            ImmKind::P11Store if fits_s(imm, 11) => Some((((u >> 5) & 0x3f) << 25) | ((u & 0x1f) << 7)),
            _ => None,
        }
    }
}
