//! Machine IR: Ventus instructions over virtual registers (scalar or vector class) and a few
//! pseudo-instructions whose final form depends on layout (branches, address materialisation).

use crate::abi::mem_class::MemClass;
use crate::compiler::ir::SrcLoc;
use crate::isa::Op;

/// A register: virtual (before allocation) or physical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    /// Virtual scalar (x) register.
    S(u32),
    /// Virtual vector register.
    V(u32),
    /// Physical scalar register x0..x255.
    X(u8),
    /// Physical vector register v0..v255.
    PV(u8),
}

impl Reg {
    pub fn is_vector(self) -> bool {
        matches!(self, Reg::V(_) | Reg::PV(_))
    }
    pub fn is_virtual(self) -> bool {
        matches!(self, Reg::S(_) | Reg::V(_))
    }
}

pub const ZERO: Reg = Reg::X(0);
pub const RA: Reg = Reg::X(1);
pub const SP: Reg = Reg::X(2);
pub const A0: Reg = Reg::X(10);
pub const S0: Reg = Reg::X(8);
/// Scratch for `auipc` + `setrpc` (clobbered by every divergent branch, as in Ventus LLVM), and
/// for a `.vf` operand above x31 (`emit`).
pub const T1: Reg = Reg::X(6);
/// The all-zero vector register (set at kernel entry).
pub const VZERO: Reg = Reg::PV(0);
/// `amocas.d` operands: the even/odd pairs v20/v21 (expected value in, old value out) and
/// v22/v23 (new value). Instruction selection copies into and out of them around each
/// `amocas.d`; the register allocator leaves v20–v23 alone in functions that contain one.
pub const CAS64_EXPECTED: u8 = 20;
pub const CAS64_DESIRED: u8 = 22;

/// What an instruction does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MOp {
    /// A real instruction: operands in `rd`/`rs1`/`rs2`/`rs3`/`imm` with `isa::Inst` meaning.
    I(Op),
    /// `rd = imm` (1 or 2 words).
    Li,
    /// `rd = address of .rodata + imm` (2 words).
    LaRodata,
    /// `CSR_RPC = address of block `target``: `auipc t1` + `setrpc zero, t1` with the
    /// pc-relative offset split between them, as the official compiler emits it (t1, the
    /// reserved scratch register, is clobbered; no allocatable register is written).
    SetRpc,
    /// Branch (scalar B-type or Ventus `vbXX`) to `target`.
    Branch(Op),
    /// `jal x0, target`.
    Jump,
    /// `jal ra, <subroutine>` (see `target::call`).
    Call(String),
}

/// One machine instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MInst {
    pub op: MOp,
    pub rd: Option<Reg>,
    pub rs1: Option<Reg>,
    pub rs2: Option<Reg>,
    pub rs3: Option<Reg>,
    pub imm: i64,
    /// Block target (branches, jumps, `SetRpc`).
    pub target: Option<u32>,
    /// The source location of the IR instruction it was selected for (file index into
    /// [`MFunc::files`]).
    pub loc: SrcLoc,
    /// For a global or local memory access: the memory its address may reach (the ELF's
    /// [`crate::abi::mem_class`] table; `Unknown` for everything else).
    pub mem: MemClass,
}

impl MInst {
    pub fn new(op: MOp) -> MInst {
        MInst {
            op,
            rd: None,
            rs1: None,
            rs2: None,
            rs3: None,
            imm: 0,
            target: None,
            loc: SrcLoc::NONE,
            mem: MemClass::Unknown,
        }
    }

    /// `op rd, rs1, rs2, imm` (unused register fields as `zero`).
    pub fn rr(op: Op, rd: Reg, rs1: Reg, rs2: Reg, imm: i64) -> MInst {
        MInst { rd: Some(rd), rs1: Some(rs1), rs2: Some(rs2), imm, ..MInst::new(MOp::I(op)) }
    }

    /// `li rd, v`.
    pub fn li(rd: Reg, v: i64) -> MInst {
        MInst { rd: Some(rd), imm: v, ..MInst::new(MOp::Li) }
    }

    /// Registers written (the table's operand roles, `isa::roles`).
    pub fn defs(&self) -> Vec<Reg> {
        match &self.op {
            MOp::Li | MOp::LaRodata => self.rd.into_iter().collect(),
            MOp::SetRpc | MOp::Branch(_) | MOp::Jump | MOp::Call(_) => vec![],
            MOp::I(op) => self.rd.filter(|_| op.desc().roles.rd.writes()).into_iter().collect(),
        }
    }

    /// Registers read (the table's operand roles for instructions; pseudo-instructions read
    /// the source fields they set).
    pub fn uses(&self) -> Vec<Reg> {
        match &self.op {
            MOp::I(op) | MOp::Branch(op) => {
                let r = op.desc().roles;
                [(self.rs1, r.rs1), (self.rs2, r.rs2), (self.rs3, r.rs3), (self.rd, r.rd)]
                    .into_iter()
                    .filter_map(|(reg, role)| reg.filter(|_| role.reads()))
                    .collect()
            }
            _ => [self.rs1, self.rs2, self.rs3].into_iter().flatten().collect(),
        }
    }

    /// All register fields, mutably (for rewriting after allocation).
    pub fn regs_mut(&mut self) -> [&mut Option<Reg>; 4] {
        [&mut self.rd, &mut self.rs1, &mut self.rs2, &mut self.rs3]
    }
}

/// A machine basic block.
#[derive(Debug, Clone, Default)]
pub struct MBlock {
    pub insts: Vec<MInst>,
    /// Successor blocks (for liveness), including the SIMT edges added by the back end.
    pub succs: Vec<u32>,
}

/// A machine function.
#[derive(Debug, Clone, Default)]
pub struct MFunc {
    pub name: String,
    pub blocks: Vec<MBlock>,
    pub next_s: u32,
    pub next_v: u32,
    /// Private bytes per work-item used by the IR (spill slots go above).
    pub private_bytes: u32,
    /// Call level (0: kernel; 1, 2: subroutines, see `target::call`).
    pub level: u8,
    /// Whether the function calls subroutines.
    pub calls: bool,
    /// Source files of the instructions' locations (the IR function's [`crate::compiler::ir::Func::files`]).
    pub files: Vec<String>,
}

impl MFunc {
    pub fn new_s(&mut self) -> Reg {
        self.next_s += 1;
        Reg::S(self.next_s - 1)
    }
    pub fn new_v(&mut self) -> Reg {
        self.next_v += 1;
        Reg::V(self.next_v - 1)
    }
}
