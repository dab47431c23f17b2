//! Typed assembly: the form in which a code generator hands a program to the assembler without
//! going through text.
//!
//! Contract:
//! * A [`Listing`] is a sequence of [`Item`]s with exactly the meaning of the text the
//!   [`Display`](std::fmt::Display) implementation prints for it (our assembler's syntax, as
//!   `VENTUS_DUMP_ASM` and the filetests show it): [`Listing::assemble`] at a base gives the same
//!   [`Program`] (words, labels, globals, source rows) as [`super::assemble`] of that text with
//!   the same external symbols defined by `.equ` — tests compare the two on compiled programs.
//! * Sizes are exact and known without symbol values: `li` one or two words (the value's own
//!   expansion, [`super::pseudo`]), `la`/`call`/`tail`/`setrpc` two, everything else one; so a
//!   listing is laid out in one pass and encoded in a second, and no expansion depends on where
//!   the code is placed.
//! * Targets name labels of the listing first, then the external symbols the caller supplies
//!   (the linker's layout symbols). Errors are [`ListingError`] values naming the item; nothing
//!   panics.

use super::expr::hi_lo;
use super::pseudo::li_split;
use super::{Lines, Program};
use crate::isa::disasm::format_inst;
use crate::isa::format::ImmKind;
use crate::isa::{encode, EncodeError, Fmt, Inst, Op};
use std::collections::BTreeMap;
use std::fmt;

/// One line of typed assembly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// `NAME:` (with `global`, preceded by `.globl NAME`).
    Label { name: String, global: bool },
    /// `.file NUMBER "NAME"`.
    File { number: u32, name: String },
    /// `.loc FILE LINE COL` (file 0 with line 0: no source location).
    Loc { file: u32, line: u32, col: u32 },
    /// `.mem CLASS`: the memory the next instruction may access ([`crate::isa::mem_class`]).
    Mem(crate::isa::mem_class::MemClass),
    /// One machine instruction with every field final (a `regext` prefix is one of these).
    Inst(Inst),
    /// `li rd, value`: `addi`, `lui` or `lui` + `addi`.
    Li { rd: u8, value: i32 },
    /// `la rd, SYMBOL + addend`: `auipc rd` + `addi rd, rd` (pc-relative).
    La { rd: u8, symbol: String, addend: i32 },
    /// `j`/`jal` (near: one `jal` reaching ±1 MiB) or `tail`/`call` (far: `auipc` + `jalr`,
    /// through `t1` for `tail`, `ra` for `call`) to `target`; `link` writes `ra`.
    Jump { target: String, link: bool, far: bool },
    /// A conditional branch (scalar `bXX` or divergent `vbXX`): `inst` with every field but the
    /// offset, which is `target`'s distance.
    Branch { inst: Inst, target: String },
    /// `auipc t1, %hi(target - here)` + `setrpc zero, t1, %lo(target - here)`, where `here` is
    /// the label (defined right before this item) the text measures from.
    SetRpc { target: String, here: String },
}

/// A program in typed assembly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub items: Vec<Item>,
}

/// Why a listing does not assemble.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListingError {
    /// A label defined twice (or a label named like an external symbol the caller reserves).
    DuplicateLabel(String),
    /// A target that is neither a label nor an external symbol.
    UndefinedSymbol(String),
    /// A branch or jump whose target lies beyond its reach.
    TargetOutOfRange { target: String, offset: i64 },
    /// `.loc` of a file number no `.file` defined.
    UndefinedFile(u32),
    /// An instruction whose fields do not fit its format (item index, the encoder's reason).
    Encode { item: usize, error: EncodeError },
}

impl fmt::Display for ListingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateLabel(n) => write!(f, "label `{n}` defined twice"),
            Self::UndefinedSymbol(n) => write!(f, "undefined symbol `{n}`"),
            Self::TargetOutOfRange { target, offset } => {
                write!(f, "target `{target}` is {offset} bytes away, out of the instruction's reach")
            }
            Self::UndefinedFile(n) => write!(f, "`.loc {n}` before `.file {n} \"NAME\"`"),
            Self::Encode { item, error } => write!(f, "item {item}: {error}"),
        }
    }
}

impl std::error::Error for ListingError {}

/// The instruction `op rd, rs1, rs2, imm` (other fields zero, unmasked).
fn inst(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Inst {
    Inst { rd, rs1, rs2, imm, ..Inst::new(op) }
}

/// `t1`: the scratch of `tail` and `setrpc`.
const T1: u8 = 6;
/// `ra`.
const RA: u8 = 1;

impl Item {
    /// Size in words (exact; see the module contract).
    fn words(&self) -> u32 {
        match self {
            Item::Label { .. } | Item::File { .. } | Item::Loc { .. } | Item::Mem(_) => 0,
            Item::Li { value, .. } => li_split(*value as u32).len() as u32,
            Item::La { .. } | Item::SetRpc { .. } | Item::Jump { far: true, .. } => 2,
            Item::Inst(_) | Item::Branch { .. } | Item::Jump { far: false, .. } => 1,
        }
    }
}

impl Listing {
    /// The symbols the listing names (targets and `la` symbols) but does not define as labels:
    /// what the assembler must be given (deduplicated, sorted).
    pub fn external_symbols(&self) -> Vec<&str> {
        let defined: std::collections::HashSet<&str> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Label { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let mut v: Vec<&str> = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Jump { target, .. } | Item::Branch { target, .. } | Item::SetRpc { target, .. } => {
                    Some(target.as_str())
                }
                Item::La { symbol, .. } => Some(symbol.as_str()),
                _ => None,
            })
            .filter(|n| !defined.contains(n))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Assembles the listing at `base`; targets not defined by the listing are looked up in
    /// `external` (a label with an external symbol's name is [`ListingError::DuplicateLabel`]).
    pub fn assemble(&self, base: u32, external: &dyn Fn(&str) -> Option<u32>) -> Result<Program, ListingError> {
        // Pass 1: labels and source rows.
        let mut labels = BTreeMap::new();
        let mut globals = Vec::new();
        let mut lines = Lines::default();
        let mut pc = base;
        for item in &self.items {
            match item {
                Item::Label { name, global } => {
                    if external(name).is_some() || labels.insert(name.clone(), pc).is_some() {
                        return Err(ListingError::DuplicateLabel(name.clone()));
                    }
                    if *global && !globals.contains(name) {
                        globals.push(name.clone());
                    }
                }
                Item::File { number, name } => lines.define_file(*number, name),
                Item::Loc { file, line, col } => {
                    lines.row(pc, *file, *line, *col).map_err(|()| ListingError::UndefinedFile(*file))?
                }
                Item::Mem(class) => lines.mem(pc, *class),
                _ => {}
            }
            pc = pc.wrapping_add(4 * item.words());
        }
        // Pass 2: encoding.
        let resolve = |name: &str| -> Result<u32, ListingError> {
            labels
                .get(name)
                .copied()
                .or_else(|| external(name))
                .ok_or_else(|| ListingError::UndefinedSymbol(name.into()))
        };
        let mut words = Vec::with_capacity(((pc.wrapping_sub(base)) / 4) as usize);
        let mut pc = base;
        for (k, item) in self.items.iter().enumerate() {
            let enc = |i: &Inst, target: Option<&str>| -> Result<u32, ListingError> {
                encode(i).map_err(|error| match (error, target) {
                    (EncodeError::ImmediateOutOfRange { imm, .. }, Some(t))
                        if matches!(i.op.desc().fmt.fields().imm, ImmKind::B13 | ImmKind::J21) =>
                    {
                        ListingError::TargetOutOfRange { target: t.to_string(), offset: i64::from(imm) }
                    }
                    (error, _) => ListingError::Encode { item: k, error },
                })
            };
            let rel = |name: &str| -> Result<u32, ListingError> { Ok(resolve(name)?.wrapping_sub(pc)) };
            match item {
                Item::Label { .. } | Item::File { .. } | Item::Loc { .. } | Item::Mem(_) => {}
                Item::Inst(i) => words.push(enc(i, None)?),
                Item::Li { rd, value } => {
                    let parts = li_split(*value as u32);
                    let rs1 = if parts.len() == 2 { *rd } else { 0 };
                    for (op, imm) in parts {
                        words.push(enc(&inst(op, *rd, rs1, 0, imm), None)?);
                    }
                }
                Item::La { rd, symbol, addend } => {
                    let (hi, lo) = hi_lo(rel(symbol)?.wrapping_add(*addend as u32));
                    words.push(enc(&inst(Op::Auipc, *rd, 0, 0, hi as i32), None)?);
                    words.push(enc(&inst(Op::Addi, *rd, *rd, 0, lo), None)?);
                }
                Item::Jump { target, link, far: false } => words
                    .push(enc(&inst(Op::Jal, if *link { RA } else { 0 }, 0, 0, rel(target)? as i32), Some(target))?),
                Item::Jump { target, link, far: true } => {
                    let (hi, lo) = hi_lo(rel(target)?);
                    let (via, rd) = if *link { (RA, RA) } else { (T1, 0) };
                    words.push(enc(&inst(Op::Auipc, via, 0, 0, hi as i32), None)?);
                    words.push(enc(&inst(Op::Jalr, rd, via, 0, lo), None)?);
                }
                Item::Branch { inst: i, target } => {
                    words.push(enc(&Inst { imm: rel(target)? as i32, ..*i }, Some(target))?)
                }
                Item::SetRpc { target, .. } => {
                    let (hi, lo) = hi_lo(rel(target)?);
                    words.push(enc(&inst(Op::Auipc, T1, 0, 0, hi as i32), None)?);
                    words.push(enc(&inst(Op::Setrpc, 0, T1, 0, lo), None)?);
                }
            }
            pc = pc.wrapping_add(4 * item.words());
        }
        Ok(Program { base, words, labels, globals, files: lines.files, lines: lines.rows, mem: lines.mem })
    }
}

/// ABI name of `x` register `n` (0..=31).
fn xname(n: u8) -> &'static str {
    crate::isa::regs::X_ABI[n as usize & 31]
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Label { name, global: true } => write!(f, ".globl {name}\n{name}:"),
            Item::Label { name, global: false } => write!(f, "{name}:"),
            Item::File { number, name } => write!(f, "{}", super::file_directive(*number, name)),
            Item::Loc { file, line, col } => write!(f, ".loc {file} {line} {col}"),
            Item::Mem(class) => write!(f, ".mem {}", class.name()),
            Item::Inst(i) => write!(f, "    {}", format_inst(i, 0).replace('\t', " ")),
            Item::Li { rd, value } => write!(f, "    li {}, {value}", xname(*rd)),
            Item::La { rd, symbol, addend } => write!(f, "    la {}, {symbol} + {addend}", xname(*rd)),
            Item::Jump { target, link, far } => {
                let m = match (link, far) {
                    (false, false) => "j",
                    (true, false) => "jal",
                    (false, true) => "tail",
                    (true, true) => "call",
                };
                write!(f, "    {m} {target}")
            }
            Item::Branch { inst: i, target } => {
                if i.op.desc().fmt == Fmt::VBranch {
                    write!(f, "    {} v{}, v{}, {target}", i.op.mnemonic(), i.rs2, i.rs1)
                } else {
                    write!(f, "    {} {}, {}, {target}", i.op.mnemonic(), xname(i.rs1), xname(i.rs2))
                }
            }
            Item::SetRpc { target, here } => {
                write!(f, "    auipc t1, %hi({target} - {here})\n    setrpc zero, t1, %lo({target} - {here})")
            }
        }
    }
}

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            writeln!(f, "{item}")?;
        }
        Ok(())
    }
}
