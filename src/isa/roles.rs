//! Operand roles: for each register field of an instruction (rd, rs1, rs2, rs3), whether it is
//! read, written or both, and from which register file — a column of the instruction table
//! ([`super::table`]). Each format has default roles ([`Fmt::roles`]); the few rows that differ
//! from their format's default (stores that reuse a load format and read their data through the
//! `rd` field, multiply-accumulate and compare-and-swap destinations that are also read, the
//! `vmerge` forms) say so in their row.
//!
//! Readers: the compiler's machine IR (`compiler::target::mir`: defs and uses for liveness and
//! register allocation) and the emulator's predecoder (which fields a `regext` prefix extends,
//! and through which slot).

use super::format::Fmt;

/// A register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The scalar file (`x0`–`x63`; floats live here too: the F extension runs as zfinx).
    X,
    /// The vector file (`v0`–`v255`).
    V,
}

/// What an instruction does with one operand field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No such field.
    None,
    /// The field holds (part of) an immediate, not a register.
    Imm,
    /// An encoded register field the instruction ignores (`endprg`, `barrier`, `join`, `fence`,
    /// `regext` payloads).
    Ignored,
    /// Read.
    Read(Class),
    /// Read, never through a `regext` extension (the scalar FP operand of the `.vf` forms).
    ReadUnextended(Class),
    /// Written.
    Write(Class),
    /// Read and written (accumulators, compare-and-swap's expected value).
    ReadWrite(Class),
}

impl Role {
    /// The instruction reads this operand.
    pub const fn reads(self) -> bool {
        matches!(self, Role::Read(_) | Role::ReadUnextended(_) | Role::ReadWrite(_))
    }
    /// The instruction writes this operand.
    pub const fn writes(self) -> bool {
        matches!(self, Role::Write(_) | Role::ReadWrite(_))
    }
    /// The register file, for register operands.
    pub const fn class(self) -> Option<Class> {
        match self {
            Role::Read(c) | Role::ReadUnextended(c) | Role::Write(c) | Role::ReadWrite(c) => Some(c),
            _ => None,
        }
    }
    /// A `regext` prefix extends this field (every encoded register field but the unextended
    /// reads; immediates never).
    pub const fn extended(self) -> bool {
        !matches!(self, Role::None | Role::Imm | Role::ReadUnextended(_))
    }
}

/// The roles of the four register fields of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roles {
    pub rd: Role,
    pub rs1: Role,
    pub rs2: Role,
    pub rs3: Role,
}

use Class::{V, X};
use Role::{Ignored, Imm, Read, ReadUnextended, ReadWrite, Write};

const fn r(rd: Role, rs1: Role, rs2: Role) -> Roles {
    Roles { rd, rs1, rs2, rs3: Role::None }
}
const N: Role = Role::None;

impl Roles {
    /// These roles with `rd` replaced.
    pub const fn rd(self, rd: Role) -> Roles {
        Roles { rd, ..self }
    }
    /// These roles with `rs1` replaced.
    pub const fn rs1(self, rs1: Role) -> Roles {
        Roles { rs1, ..self }
    }
    /// The data register of a vector store that reuses a load format (`vse32.v` and friends):
    /// the `rd` field is read; a `regext` prefix extends it through its third slot.
    pub const fn store_data_in_rd(self) -> Roles {
        self.rd(Read(V))
    }
}

impl Fmt {
    /// The default operand roles of this format's rows.
    pub const fn roles(self) -> Roles {
        match self {
            Fmt::U | Fmt::J => r(Write(X), N, N),
            Fmt::Jalr | Fmt::Load | Fmt::I | Fmt::Shamt | Fmt::Csr | Fmt::Lr | Fmt::F1Rm | Fmt::F1 | Fmt::Vsetvli => {
                r(Write(X), Read(X), N)
            }
            Fmt::CsrI | Fmt::Vsetivli => r(Write(X), Imm, N),
            Fmt::B | Fmt::Store => r(N, Read(X), Read(X)),
            Fmt::R | Fmt::Amo | Fmt::FRm => r(Write(X), Read(X), Read(X)),
            Fmt::R4 => Roles { rd: Write(X), rs1: Read(X), rs2: Read(X), rs3: Read(X) },
            Fmt::Fence | Fmt::Prefix => r(Ignored, Ignored, N),
            Fmt::Bare => r(N, N, N),
            Fmt::X3 => r(Ignored, Ignored, Ignored),
            Fmt::Barrier => r(Ignored, N, Ignored),
            Fmt::Join => r(N, Ignored, Ignored),
            Fmt::VLoad => r(Write(V), Read(X), N),
            Fmt::VLoadStride => r(Write(V), Read(X), Read(X)),
            Fmt::VLoadIndex => r(Write(V), Read(X), Read(V)),
            Fmt::VV => r(Write(V), Read(V), Read(V)),
            Fmt::VX => r(Write(V), Read(X), Read(V)),
            Fmt::VF => r(Write(V), ReadUnextended(X), Read(V)),
            Fmt::VI | Fmt::VIu | Fmt::VUnary => r(Write(V), N, Read(V)),
            Fmt::VMacV => r(ReadWrite(V), Read(V), Read(V)),
            Fmt::VMacX => r(ReadWrite(V), Read(X), Read(V)),
            Fmt::VMacF => r(ReadWrite(V), ReadUnextended(X), Read(V)),
            Fmt::VMvV | Fmt::VI12 | Fmt::PLoad | Fmt::VLoad12 => r(Write(V), Read(V), N),
            Fmt::VMvX => r(Write(V), Read(X), N),
            Fmt::VMvF => r(Write(V), ReadUnextended(X), N),
            Fmt::VMvI | Fmt::VId => r(Write(V), N, N),
            Fmt::VMerge => r(Write(V), Read(V), Read(V)),
            Fmt::VMvXS => r(Write(X), N, Read(V)),
            Fmt::PStore | Fmt::VStore12 | Fmt::VBranch => r(N, Read(V), Read(V)),
        }
    }
}

/// Roles of the rows that differ from their format's default.
pub mod rows {
    use super::*;
    /// Vector stores in a load format: the `rd` field is the data read.
    pub const VSTORE: Roles = Fmt::VLoad.roles().store_data_in_rd();
    pub const VSTORE_STRIDE: Roles = Fmt::VLoadStride.roles().store_data_in_rd();
    pub const VSTORE_INDEX: Roles = Fmt::VLoadIndex.roles().store_data_in_rd();
    /// Compare-and-swap: `rd` holds the expected value in and the old value out.
    pub const AMOCAS: Roles = Fmt::Amo.roles().rd(ReadWrite(X));
    /// `vftta.vv` accumulates into its destination.
    pub const VFTTA: Roles = Fmt::VV.roles().rd(ReadWrite(V));
    /// `vmerge.vxm`: a scalar operand.
    pub const VMERGE_X: Roles = Fmt::VMerge.roles().rs1(Read(X));
    /// `vmerge.vim`: the rs1 field is an immediate.
    pub const VMERGE_I: Roles = Fmt::VMerge.roles().rs1(Imm);
    /// `vfmerge.vfm`: a scalar FP operand, read unextended as in the other `.vf` forms.
    pub const VFMERGE: Roles = Fmt::VMerge.roles().rs1(ReadUnextended(X));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::TABLE;

    #[test]
    fn every_encoded_field_has_a_role_and_no_other() {
        for d in TABLE {
            let (f, r) = (d.fmt.fields(), d.roles);
            for (name, has, role) in
                [("rd", f.rd, r.rd), ("rs1", f.rs1, r.rs1), ("rs2", f.rs2, r.rs2), ("rs3", f.rs3, r.rs3)]
            {
                assert_eq!(has, role != Role::None, "{}: field {name} is {has} but its role is {role:?}", d.mnemonic);
            }
        }
    }

    #[test]
    fn overrides_are_the_documented_rows() {
        let differing: Vec<&str> = TABLE.iter().filter(|d| d.roles != d.fmt.roles()).map(|d| d.mnemonic).collect();
        assert_eq!(
            differing,
            [
                "amocas.w",
                "amocas.d",
                "vse32.v",
                "vsse32.v",
                "vsuxei32.v",
                "vsoxei32.v",
                "vmerge.vxm",
                "vmerge.vim",
                "vfmerge.vfm",
                "vftta.vv"
            ]
        );
        // Stores read their data; nothing that only reads is a destination elsewhere.
        for d in TABLE {
            if d.roles.rd.reads() && !d.roles.rd.writes() {
                assert!(d.mnemonic.starts_with("vs"), "{} reads its rd field", d.mnemonic);
            }
        }
    }
}
