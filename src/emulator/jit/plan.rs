//! How the translator ([`super`]) compiles each entry: the [`Plan`] of an instruction in the
//! copy of a function for a full or a partial vector state, and the operation kinds its
//! templates ([`super::templates`]) take.

use super::super::program::Decoded;
use super::templates::wg_csr;
use crate::isa::regs::csr;
use crate::isa::Op;

/// A vector integer operation with a template, `vd = a ⊕ b` lane by lane (`a` = vs2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum VAlu {
    Add,
    Sub,
    Rsub,
    And,
    Or,
    Xor,
    Mul,
    Sll,
    Srl,
    Sra,
    Min,
    Max,
    Minu,
    Maxu,
    Seq,
    Sne,
    /// Comparisons, lane = 1 when `a ⋚ b` (signed, or unsigned with `u`).
    Slt,
    Sltu,
    Sle,
    Sleu,
    Sgt,
    Sgtu,
    /// `vd = b · vd + a` (`vmadd`), `vd = a − b · vd` (`vnmsub`), `vd = b · a + vd`
    /// (`vmacc`), `vd = vd − b · a` (`vnmsac`).
    Madd,
    Nmsub,
    Macc,
    Nmsac,
}

/// A vector FP operation with a template (round-to-nearest-even, no flags, NaNs canonical).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FAlu {
    Add,
    Sub,
    Mul,
    /// `vd = b · vs2 + vd`, one rounding.
    Macc,
    /// `vd = b · vd + vs2`, one rounding (`vfmadd`).
    Madd,
    /// `vd = vs2 / b` (`vfdiv`), `vd = b / vs2` (`vfrdiv.vf`): correctly rounded on the host
    /// as in the interpreter (`semantics::fdiv_f`'s value: 0/0 a NaN, x/0 an infinity).
    Div,
    Rdiv,
    /// `vd = √vs2` (`vfsqrt.v`; `b` unused).
    Sqrt,
    /// A comparison, lane = 1 when `vs2 ⋚ b` (`vmfeq`, `vmfne`, `vmflt`, `vmfle`, `vmfgt.vf`,
    /// `vmfge.vf`): the host's `vcmpps` predicate (ordered and false on a NaN but for
    /// `vmfne`'s unordered one).
    Cmp(u8),
    /// Sign injection (`vfsgnj`, `vfsgnjn`, `vfsgnjx`): `vs2`'s magnitude with `b`'s sign, its
    /// opposite, or the two signs' exclusive or — bits, no NaN made canonical.
    Sgnj,
    Sgnjn,
    Sgnjx,
    /// RISC-V `fmin`/`fmax` (`vfmin`, `vfmax`): the number when one side is a NaN, the
    /// canonical NaN when both are, −0 below +0 (`semantics::fmin`/`fmax`).
    Min,
    Max,
}

impl FAlu {
    /// An arithmetic operation, whose NaN results are made canonical (not a comparison or a
    /// sign injection).
    pub(super) fn arithmetic(self) -> bool {
        !matches!(self, FAlu::Cmp(_) | FAlu::Sgnj | FAlu::Sgnjn | FAlu::Sgnjx)
    }
}

/// A vector template in the copy for a partial vector state ([`Plan::Masked`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Masked {
    Vector(VAlu, B),
    Fp(FAlu, B),
    Vid,
    Vmv(B),
}

/// `vcmpps` predicates ([`FAlu::Cmp`]): equal, not equal or unordered, less, less or equal,
/// greater, greater or equal (the ordered ones false on a NaN).
pub(super) const CMP_EQ_OQ: u8 = 0x00;
/// Unordered (a NaN on either side): `vfmin`/`vfmax`'s fix-up.
pub(super) const CMP_UNORD_Q: u8 = 0x03;
pub(super) const CMP_NEQ_UQ: u8 = 0x04;
pub(super) const CMP_LT_OQ: u8 = 0x11;
pub(super) const CMP_LE_OQ: u8 = 0x12;
pub(super) const CMP_GE_OQ: u8 = 0x1d;
pub(super) const CMP_GT_OQ: u8 = 0x1e;

/// The second operand of a [`VAlu`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum B {
    V(u8),
    X(u8),
    Imm(u32),
}

/// How one entry is translated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Plan {
    /// No effect (an arithmetic write to x0).
    Nothing,
    /// `x[rd] = x[rs1] ⊕ (x[rs2] or imm)`.
    Scalar(Op),
    /// `x[rd] = ` a work-group CSR's field.
    ReadCsr(i32),
    /// `vd = vs2 ⊕ b` on all 32 lanes.
    Vector(VAlu, B),
    /// In the copy for any other vector state: a vector template on the warp's active lanes
    /// below `vl` ([`super::templates::store_chunk`]), else (an illegal `vtype`) the handler.
    Masked(Masked),
    /// `vd = vs2 ⊕ b` (FP) on all 32 lanes.
    Fp(FAlu, B),
    /// `vd = 0, 1, …, 31`.
    Vid,
    /// `vd = b` on all lanes.
    Vmv(B),
    /// `vsetvli`/`vsetivli` (`vl`, `vtype`, `vill`, `mstatus.VS`, `x[rd]`).
    Vsetvli,
    /// `csrrw rd, mtvec, rs1`.
    WriteMtvec,
    /// `csrr{w,s,c}[i] rd, mstatus, …` (crt0 turns the FP unit on this way).
    Mstatus(Op),
    /// `lw` from a remembered read-only block, else the general path.
    LoadWord,
    /// A full warp's unit-stride `vlw12.v` (false) / `vsw12.v` (true) in the global buffer
    /// the view remembers, a `vlw12.v` also as a gather from a buffer of the view's gather
    /// table ([`super::gather::gather`]), a `vsw12.v` as runs of 8 words or one store per
    /// lane ([`super::gather::scatter`]), else the handler (only in the copy for a full vector
    /// state).
    UnitStride(bool),
    /// The same in the copy for any other vector state: the active lanes' consecutive words
    /// in that buffer ([`super::templates::unit_stride_masked`]), else a gather of the active
    /// lanes ([`super::gather::gather_masked`]) or one store per active lane
    /// ([`super::gather::scatter`]), else the handler.
    MaskedUnitStride(bool),
    /// A full warp's `vlb12.v`/`vlbu12.v`/`vlh12.v`/`vlhu12.v` (`vsb12.v`/`vsh12.v`) whose
    /// lanes address consecutive bytes (halfwords) in the global buffer the view remembers for
    /// loads (stores) ([`super::templates::narrow_load`], [`super::templates::narrow_store`]),
    /// lanes elsewhere as a gather ([`super::gather::gather_narrow`]) or one store per lane
    /// ([`super::gather::scatter`]), else the handler (only in the copy for a full vector
    /// state).
    Narrow(Op),
    /// [`Plan::Narrow`] in the copy for any other vector state: a gather of the active lanes'
    /// bytes or halfwords ([`super::gather::gather_narrow`]) or their stores one by one
    /// ([`super::gather::scatter`]), else the handler.
    MaskedNarrow(Op),
    /// A full warp's `vlw.v` (false) / `vsw.v` (true) with one address in every lane: 32
    /// consecutive words of the private overlay, else the handler (only in the copy for a
    /// full vector state).
    Private(bool),
    /// `vdivu.vx`/`vremu.vx` by a power of two (a shift, a mask), else the handler.
    DivPow2(Op),
    /// A scalar branch or `jal` ending the function (see [`super::emit_run`]).
    Jump(Op),
    /// A vector branch ending the function ([`super::templates::vbranch`]): on to the next entry
    /// when no lane takes it, to its target when all do; else the interpreter runs it.
    VBranch(Op),
    /// `join` ending the function: on to the next entry while the SIMT stack's top is for
    /// another pc, else the interpreter runs it.
    Join,
    /// `jalr` ending the function: its handler, then on into the function compiled where it
    /// went, looked up at run time ([`super::link_indirect`]).
    JumpReg,
    /// `setrpc`.
    Setrpc,
    /// A `jal ra` to an inline host call ([`super::Role::Link`]): `ra = pc + 4`.
    Link,
    /// The inline host call ([`super::Role::Call`]): its handler, which cannot stop the turn.
    HostCall,
    /// That call when it is a varying soft-double primitive, in the copy for a full vector
    /// state: compiled inline ([`super::fp64::Stubs`]).
    F64(super::F64Op),
    /// The handler.
    Call,
}

/// A shared instruction worth a function of its own (a head with no run after it): one with
/// an inline path, which saves the handler call ([`Plan::UnitStride`], [`Plan::Narrow`]).
pub(super) fn inline_head(d: &Decoded) -> bool {
    matches!(plan(d, true, false), Plan::UnitStride(_) | Plan::Narrow(_))
}

/// Whether `op` may change what "the vector state is full" means (`vl`, `vtype`), or a CSR.
pub(super) fn changes_vector_state(d: &Decoded) -> bool {
    match d.op {
        Some(Op::Vsetvli | Op::Vsetivli | Op::Vsetvl) => true,
        Some(Op::Csrrw | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci) => true,
        Some(Op::Csrrs) => d.rs1 != 0,
        _ => false,
    }
}

/// Whether `d` reads `instret` (or `cycle`, `time`: the same counter).
pub(super) fn reads_counter(d: &Decoded) -> bool {
    let csr_op = matches!(d.op, Some(Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci));
    csr_op
        && matches!(
            d.imm as u16,
            csr::CYCLE | csr::TIME | csr::INSTRET | csr::CYCLEH | csr::INSTRETH | csr::MCYCLE | csr::MINSTRET
        )
}

/// A scalar branch or `jal`: continues at a known pc without changing the mask.
pub(super) fn is_jump(op: Op) -> bool {
    matches!(op, Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu | Op::Jal)
}

/// How entry `d` is translated, in the copy for a full vector state (`vector_full`) or the
/// other; `flags_unread`: the program never reads the accrued FP flags, so untraced runs
/// compute none ([`Program::reads_fflags`](super::super::program::Program::reads_fflags)).
pub(super) fn plan(d: &Decoded, vector_full: bool, flags_unread: bool) -> Plan {
    let Some(op) = d.op else { return Plan::Call };
    let scalar = matches!(
        op,
        Op::Addi
            | Op::Slti
            | Op::Sltiu
            | Op::Xori
            | Op::Ori
            | Op::Andi
            | Op::Slli
            | Op::Srli
            | Op::Srai
            | Op::Add
            | Op::Sub
            | Op::Sll
            | Op::Slt
            | Op::Sltu
            | Op::Xor
            | Op::Srl
            | Op::Sra
            | Op::Or
            | Op::And
            | Op::Lui
            | Op::Auipc
            | Op::Mul
    );
    if scalar {
        return if d.rd == 0 { Plan::Nothing } else { Plan::Scalar(op) };
    }
    if is_jump(op) {
        return Plan::Jump(op);
    }
    if op == Op::Jalr {
        return Plan::JumpReg;
    }
    match op {
        Op::Vbeq | Op::Vbne | Op::Vblt | Op::Vbge | Op::Vbltu | Op::Vbgeu => return Plan::VBranch(op),
        Op::Join => return Plan::Join,
        Op::Setrpc => return Plan::Setrpc,
        _ => {}
    }
    if op == Op::Csrrs && d.rs1 == 0 {
        if let Some(f) = wg_csr(d.imm as u16) {
            return if d.rd == 0 { Plan::Nothing } else { Plan::ReadCsr(f) };
        }
    }
    match op {
        Op::Vsetvli | Op::Vsetivli => return Plan::Vsetvli,
        Op::Csrrw if d.imm as u16 == csr::MTVEC => return Plan::WriteMtvec,
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci if d.imm as u16 == csr::MSTATUS => {
            return Plan::Mstatus(op)
        }
        Op::Lw => return Plan::LoadWord,
        _ => {}
    }
    if !d.vm {
        return Plan::Call;
    }
    if !vector_full {
        // The lane-wise templates, writing only the lanes the warp's state selects.
        return match plan(d, true, flags_unread) {
            Plan::Vector(alu, b) => Plan::Masked(Masked::Vector(alu, b)),
            Plan::Fp(f, b) => Plan::Masked(Masked::Fp(f, b)),
            Plan::Vid => Plan::Masked(Masked::Vid),
            Plan::Vmv(b) => Plan::Masked(Masked::Vmv(b)),
            Plan::UnitStride(store) => Plan::MaskedUnitStride(store),
            Plan::Narrow(op) => Plan::MaskedNarrow(op),
            _ => Plan::Call,
        };
    }
    match op {
        Op::Vlw12V => return Plan::UnitStride(false),
        Op::Vsw12V => return Plan::UnitStride(true),
        Op::Vlb12V | Op::Vlbu12V | Op::Vlh12V | Op::Vlhu12V | Op::Vsb12V | Op::Vsh12V => return Plan::Narrow(op),
        Op::VlwV => return Plan::Private(false),
        Op::VswV => return Plan::Private(true),
        _ => {}
    }
    let (vv, vx, vi) = (B::V(d.rs1), B::X(d.rs1), B::Imm(d.imm as u32));
    // A copy (`vadd.vx vd, vs2, x0`, the compiler's register moves): the move alone.
    let identity = match op {
        Op::VaddVx | Op::VsubVx | Op::VorVx | Op::VxorVx => d.rs1 == 0,
        Op::VaddVi | Op::VorVi | Op::VxorVi => d.imm == 0,
        _ => false,
    };
    if identity {
        return Plan::Vmv(B::V(d.rs2));
    }
    // A `.vf` scalar comes from the zfinx mirror, where x0 reads as a NaN: those call.
    let vf = (d.rs1 != 0).then_some(vx);
    let fp = match op {
        Op::VfaddVv => Some((FAlu::Add, Some(vv))),
        Op::VfaddVf => Some((FAlu::Add, vf)),
        Op::VfsubVv => Some((FAlu::Sub, Some(vv))),
        Op::VfsubVf => Some((FAlu::Sub, vf)),
        Op::VfmulVv => Some((FAlu::Mul, Some(vv))),
        Op::VfmulVf => Some((FAlu::Mul, vf)),
        Op::VfmaccVv => Some((FAlu::Macc, Some(vv))),
        Op::VfmaccVf => Some((FAlu::Macc, vf)),
        Op::VfmaddVv => Some((FAlu::Madd, Some(vv))),
        Op::VfmaddVf => Some((FAlu::Madd, vf)),
        Op::VfdivVv => Some((FAlu::Div, Some(vv))),
        Op::VfdivVf => Some((FAlu::Div, vf)),
        Op::VfrdivVf => Some((FAlu::Rdiv, vf)),
        Op::VfsqrtV => Some((FAlu::Sqrt, Some(B::V(d.rs2)))),
        Op::VmfeqVv => Some((FAlu::Cmp(CMP_EQ_OQ), Some(vv))),
        Op::VmfeqVf => Some((FAlu::Cmp(CMP_EQ_OQ), vf)),
        Op::VmfneVv => Some((FAlu::Cmp(CMP_NEQ_UQ), Some(vv))),
        Op::VmfneVf => Some((FAlu::Cmp(CMP_NEQ_UQ), vf)),
        Op::VmfltVv => Some((FAlu::Cmp(CMP_LT_OQ), Some(vv))),
        Op::VmfltVf => Some((FAlu::Cmp(CMP_LT_OQ), vf)),
        Op::VmfleVv => Some((FAlu::Cmp(CMP_LE_OQ), Some(vv))),
        Op::VmfleVf => Some((FAlu::Cmp(CMP_LE_OQ), vf)),
        Op::VmfgtVf => Some((FAlu::Cmp(CMP_GT_OQ), vf)),
        Op::VmfgeVf => Some((FAlu::Cmp(CMP_GE_OQ), vf)),
        Op::VfsgnjVv => Some((FAlu::Sgnj, Some(vv))),
        Op::VfsgnjVf => Some((FAlu::Sgnj, vf)),
        Op::VfsgnjnVv => Some((FAlu::Sgnjn, Some(vv))),
        Op::VfsgnjnVf => Some((FAlu::Sgnjn, vf)),
        Op::VfsgnjxVv => Some((FAlu::Sgnjx, Some(vv))),
        Op::VfsgnjxVf => Some((FAlu::Sgnjx, vf)),
        Op::VfminVv => Some((FAlu::Min, Some(vv))),
        Op::VfminVf => Some((FAlu::Min, vf)),
        Op::VfmaxVv => Some((FAlu::Max, Some(vv))),
        Op::VfmaxVf => Some((FAlu::Max, vf)),
        _ => None,
    };
    if let Some((f, b)) = fp {
        return match b {
            Some(b) if flags_unread => Plan::Fp(f, b),
            _ => Plan::Call,
        };
    }
    let (alu, b) = match op {
        Op::VaddVv => (VAlu::Add, vv),
        Op::VaddVx => (VAlu::Add, vx),
        Op::VaddVi => (VAlu::Add, vi),
        Op::VsubVv => (VAlu::Sub, vv),
        Op::VsubVx => (VAlu::Sub, vx),
        Op::VrsubVx => (VAlu::Rsub, vx),
        Op::VrsubVi => (VAlu::Rsub, vi),
        Op::VandVv => (VAlu::And, vv),
        Op::VandVx => (VAlu::And, vx),
        Op::VandVi => (VAlu::And, vi),
        Op::VorVv => (VAlu::Or, vv),
        Op::VorVx => (VAlu::Or, vx),
        Op::VorVi => (VAlu::Or, vi),
        Op::VxorVv => (VAlu::Xor, vv),
        Op::VxorVx => (VAlu::Xor, vx),
        Op::VxorVi => (VAlu::Xor, vi),
        Op::VmulVv => (VAlu::Mul, vv),
        Op::VmulVx => (VAlu::Mul, vx),
        Op::VsllVv => (VAlu::Sll, vv),
        Op::VsllVx => (VAlu::Sll, vx),
        Op::VsllVi => (VAlu::Sll, vi),
        Op::VsrlVv => (VAlu::Srl, vv),
        Op::VsrlVx => (VAlu::Srl, vx),
        Op::VsrlVi => (VAlu::Srl, vi),
        Op::VsraVv => (VAlu::Sra, vv),
        Op::VsraVx => (VAlu::Sra, vx),
        Op::VsraVi => (VAlu::Sra, vi),
        Op::VminVv => (VAlu::Min, vv),
        Op::VminVx => (VAlu::Min, vx),
        Op::VmaxVv => (VAlu::Max, vv),
        Op::VmaxVx => (VAlu::Max, vx),
        Op::VminuVv => (VAlu::Minu, vv),
        Op::VminuVx => (VAlu::Minu, vx),
        Op::VmaxuVv => (VAlu::Maxu, vv),
        Op::VmaxuVx => (VAlu::Maxu, vx),
        Op::VmseqVv => (VAlu::Seq, vv),
        Op::VmseqVx => (VAlu::Seq, vx),
        Op::VmseqVi => (VAlu::Seq, vi),
        Op::VmsneVv => (VAlu::Sne, vv),
        Op::VmsneVx => (VAlu::Sne, vx),
        Op::VmsneVi => (VAlu::Sne, vi),
        Op::VmsltVv => (VAlu::Slt, vv),
        Op::VmsltVx => (VAlu::Slt, vx),
        Op::VmsltuVv => (VAlu::Sltu, vv),
        Op::VmsltuVx => (VAlu::Sltu, vx),
        Op::VmsleVv => (VAlu::Sle, vv),
        Op::VmsleVx => (VAlu::Sle, vx),
        Op::VmsleVi => (VAlu::Sle, vi),
        Op::VmsleuVv => (VAlu::Sleu, vv),
        Op::VmsleuVx => (VAlu::Sleu, vx),
        Op::VmsleuVi => (VAlu::Sleu, vi),
        Op::VmsgtVx => (VAlu::Sgt, vx),
        Op::VmsgtVi => (VAlu::Sgt, vi),
        Op::VmsgtuVx => (VAlu::Sgtu, vx),
        Op::VmsgtuVi => (VAlu::Sgtu, vi),
        Op::VmaddVv => (VAlu::Madd, vv),
        Op::VmaddVx => (VAlu::Madd, vx),
        Op::VnmsubVv => (VAlu::Nmsub, vv),
        Op::VnmsubVx => (VAlu::Nmsub, vx),
        Op::VmaccVv => (VAlu::Macc, vv),
        Op::VmaccVx => (VAlu::Macc, vx),
        Op::VnmsacVv => (VAlu::Nmsac, vv),
        Op::VnmsacVx => (VAlu::Nmsac, vx),
        Op::VidV => return Plan::Vid,
        Op::VdivuVx | Op::VremuVx => return Plan::DivPow2(op),
        Op::VmvVV => return Plan::Vmv(vv),
        Op::VmvVX | Op::VmvSX => return Plan::Vmv(vx),
        Op::VmvVI => return Plan::Vmv(vi),
        _ => return Plan::Call,
    };
    Plan::Vector(alu, b)
}
