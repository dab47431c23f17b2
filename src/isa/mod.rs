//! The Ventus ISA — the single source of truth for encodings and per-lane semantics.
//!
//! * [`table`]: one row per instruction (mnemonic, match/mask, operand format); [`Op`] is generated
//!   from it.
//! * [`mod@format`]: where each operand lives in the word.
//! * [`decode`] / [`encode`]: word ⇄ [`Inst`], both driven by the table (`encode(decode(w)) == w`).
//! * [`disasm`]: llvm-objdump-compatible text; [`asm`]: a text assembler built on the same rows.
//! * [`regs`]: register and CSR names; [`semantics`]: pure per-lane functions shared by the emulator
//!   and (later) the compiler's constant folder.
//!
//! Contract: `decode` never panics; every `u32` decodes to exactly one row or to `None` (illegal).

pub mod asm;
pub mod disasm;
pub mod format;
pub mod mem_class;
pub mod prefix;
pub mod regs;
pub mod roles;
pub mod semantics;
pub mod table;

pub use format::{Fmt, ImmKind};
pub use roles::{Class, Role, Roles};
pub use table::{InstDesc, Op, Unit, ALL_OPS, OP_COUNT, TABLE};

use once_cell::sync::Lazy;

/// A decoded instruction: the row plus raw operand fields (5-bit register numbers as encoded;
/// `regext` extensions are applied by the consumer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    pub op: Op,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub rs3: u8,
    /// Immediate as defined by the format's [`ImmKind`] (sign- or zero-extended).
    pub imm: i32,
    /// RVV `vm` bit (true = unmasked). True for formats without the bit.
    pub vm: bool,
    /// Rounding mode (FP) or aq/rl bits (AMO); 0 otherwise.
    pub aux: u8,
}

impl Inst {
    /// An instruction with all operand fields zero (and `vm` set).
    pub const fn new(op: Op) -> Inst {
        Inst { op, rd: 0, rs1: 0, rs2: 0, rs3: 0, imm: 0, vm: true, aux: 0 }
    }
}

/// Rows grouped by major opcode (bits 6:0) for decoding.
static BY_OPCODE: Lazy<Vec<Vec<u16>>> = Lazy::new(|| {
    let mut v = vec![Vec::new(); 128];
    for (i, d) in TABLE.iter().enumerate() {
        v[(d.match_bits & 0x7f) as usize].push(i as u16);
    }
    v
});

/// Finds the table row of a word, or `None` for an illegal instruction.
pub fn lookup(word: u32) -> Option<&'static InstDesc> {
    BY_OPCODE[(word & 0x7f) as usize].iter().map(|&i| &TABLE[i as usize]).find(|d| word & d.mask == d.match_bits)
}

/// Decodes one 32-bit instruction word.
pub fn decode(word: u32) -> Option<Inst> {
    let d = lookup(word)?;
    let fl = d.fmt.fields();
    let field = |lo: u32| ((word >> lo) & 0x1f) as u8;
    Some(Inst {
        op: d.op,
        rd: if fl.rd { field(7) } else { 0 },
        rs1: if fl.rs1 { field(15) } else { 0 },
        rs2: if fl.rs2 { field(20) } else { 0 },
        rs3: if fl.rs3 { field(27) } else { 0 },
        imm: fl.imm.extract(word),
        vm: if fl.vm { word & (1 << 25) != 0 } else { true },
        aux: if fl.rm {
            ((word >> 12) & 7) as u8
        } else if fl.aqrl {
            ((word >> 25) & 3) as u8
        } else {
            0
        },
    })
}

/// Why an [`Inst`] cannot be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// A register number does not fit the 5-bit field (use `regext`).
    RegisterOutOfRange { op: Op, reg: u8 },
    /// The immediate does not fit (or is misaligned for a branch/jump).
    ImmediateOutOfRange { op: Op, imm: i32 },
    /// The rounding-mode / aq-rl field is out of range.
    AuxOutOfRange { op: Op, aux: u8 },
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::RegisterOutOfRange { op, reg } => {
                write!(f, "{}: register {reg} does not fit a 5-bit field", op.mnemonic())
            }
            EncodeError::ImmediateOutOfRange { op, imm } => {
                write!(f, "{}: immediate {imm} out of range", op.mnemonic())
            }
            EncodeError::AuxOutOfRange { op, aux } => write!(f, "{}: field value {aux} out of range", op.mnemonic()),
        }
    }
}
impl std::error::Error for EncodeError {}

/// Encodes an instruction; fields the format does not use are ignored.
pub fn encode(inst: &Inst) -> Result<u32, EncodeError> {
    let d = inst.op.desc();
    let fl = d.fmt.fields();
    let mut w = d.match_bits;
    let mut reg = |used: bool, r: u8, lo: u32| -> Result<(), EncodeError> {
        if !used {
            return Ok(());
        }
        if r > 31 {
            return Err(EncodeError::RegisterOutOfRange { op: inst.op, reg: r });
        }
        w |= (r as u32) << lo;
        Ok(())
    };
    reg(fl.rd, inst.rd, 7)?;
    reg(fl.rs1, inst.rs1, 15)?;
    reg(fl.rs2, inst.rs2, 20)?;
    reg(fl.rs3, inst.rs3, 27)?;
    if fl.vm && inst.vm {
        w |= 1 << 25;
    }
    if fl.rm {
        if inst.aux > 7 {
            return Err(EncodeError::AuxOutOfRange { op: inst.op, aux: inst.aux });
        }
        w |= (inst.aux as u32) << 12;
    }
    if fl.aqrl {
        if inst.aux > 3 {
            return Err(EncodeError::AuxOutOfRange { op: inst.op, aux: inst.aux });
        }
        w |= (inst.aux as u32) << 25;
    }
    w |= fl.imm.insert(inst.imm).ok_or(EncodeError::ImmediateOutOfRange { op: inst.op, imm: inst.imm })?;
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_in_op_order_and_cover_every_bit() {
        for (i, d) in TABLE.iter().enumerate() {
            assert_eq!(d.op as usize, i, "{}", d.mnemonic);
            assert_eq!(ALL_OPS[i], d.op, "{}", d.mnemonic);
            assert_eq!(d.match_bits & !d.mask, 0, "{}: match outside mask", d.mnemonic);
            let ops = d.fmt.operand_bits();
            assert_eq!(ops & d.mask, 0, "{}: operand bits overlap the mask", d.mnemonic);
            assert_eq!(ops | d.mask, u32::MAX, "{}: bits neither operand nor fixed", d.mnemonic);
        }
    }

    /// [`ImmKind::reach`] is what the encoder accepts: the largest even offsets inside it
    /// encode, the reach itself does not.
    #[test]
    fn branch_and_jump_reach_is_what_encodes() {
        for (op, kind) in [(Op::Jal, ImmKind::J21), (Op::Beq, ImmKind::B13)] {
            let r = kind.reach().unwrap() as i32;
            for (imm, ok) in [(r - 2, true), (-r, true), (r, false), (-r - 2, false)] {
                let i = Inst { imm, ..Inst::new(op) };
                assert_eq!(encode(&i).is_ok(), ok, "{op:?} {imm}");
            }
        }
        assert_eq!(ImmKind::I12.reach(), None);
    }

    #[test]
    fn worked_decodings_from_the_isa_notes() {
        let i = decode(0x04c3305b).unwrap();
        assert_eq!((i.op, i.rd, i.rs1, i.imm), (Op::Setrpc, 0, 6, 76));
        let i = decode(0x02100c5b).unwrap();
        assert_eq!((i.op, i.rs2, i.rs1, i.imm), (Op::Vbeq, 1, 0, 56));
        let i = decode(0xfe202e2b).unwrap();
        assert_eq!((i.op, i.rs2, i.rs1, i.imm), (Op::VswV, 2, 0, -4));
        let i = decode(0x7f8020ab).unwrap();
        assert_eq!((i.op, i.rd, i.rs1, i.imm), (Op::VlwV, 1, 0, -8));
        let i = decode(0xfc6392db).unwrap();
        assert_eq!((i.op, i.rs2, i.rs1, i.imm), (Op::Vbne, 6, 7, -60));
        assert_eq!(decode(0x0d0efed7).unwrap().op, Op::Vsetvli);
        assert_eq!(decode(0x5e004057).unwrap().op, Op::VmvVX);
        assert_eq!(decode(0x42006057).unwrap().op, Op::VmvSX);
        assert_eq!(decode(0x0401c00b).unwrap().imm, 3);
        assert!(decode(0x0000500b).is_none(), "custom-0 funct3 101 is illegal");
        assert!(decode(0).is_none());
    }
}
