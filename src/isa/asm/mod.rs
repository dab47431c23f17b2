//! Text assembler built on the instruction table (no second copy of any encoding).
//!
//! Contract:
//! * The accepted instruction syntax is exactly what [`super::disasm`] prints, so
//!   `assemble_line(&disassemble(w, pc), pc) == Ok(vec![w])` for every decodable word
//!   (`tests/isa.rs` checks the official dumps and millions of random words).
//! * Branch and jump targets are absolute: a label, a `.equ` symbol or a number (`0x80000054`).
//!   `join`'s third operand is its raw 12-bit field (offset / 2; that is what LLVM prints), and
//!   `vadd12.vi`/`vsub12.vi` take 0..4095 (as LLVM prints them) or -2048..-1.
//! * Registers: ABI names, `xN`, `vN` (and FP names for FP operands). Numbers above 31 are an
//!   error — the caller writes `regext` explicitly.
//! * Immediates: decimal, `0x` hex or `0b` binary, negative allowed, `+`/`-` between terms,
//!   symbols, `%hi(expr)` and `%lo(expr)`.
//! * Also accepted: labels `name:`, comments (`#`, `//`, `;`), directives `.text`,
//!   `.globl`/`.global NAME[, NAME…]` (recorded in [`Program::globals`]; no effect on the
//!   words), `.word`, `.align`/`.p2align N` (pad to 2^N bytes with `nop`),
//!   `.balign N`, `.equ`/`.set NAME, VALUE` (the value must be computable where it is defined),
//!   `.file N "NAME"` and `.loc N LINE [COL]` (source lines, recorded in [`Program::lines`]; no
//!   effect on the words; see [`SourceRow`]);
//!   the pseudo-instructions listed in [`PSEUDOS`] (plus `jal target`, `jalr rs`, `fence`
//!   without operands or with `pred, succ`, `fence.i`, and `join`, `endprg`, `barrier`,
//!   `barriersub` without operands meaning all-zero operands).
//! * Never panics; every problem is an [`AsmError`] carrying its 1-based line number.
//!
//! Labels are resolved in two passes. `li` with a value known in pass 1 (numbers, earlier
//! symbols) takes one word when possible; with a forward reference it is always `lui`+`addi`.
//!
//! Layout: this file holds the public API and the two-pass driver; `lexer` splits lines,
//! `expr` evaluates expressions over the symbol table, `ctx` parses operands and encodes,
//! `instr` handles table rows, `pseudo` pseudo-instructions, `directive` directives.

mod ctx;
mod directive;
mod error;
mod expr;
mod instr;
mod lexer;
mod listing;
mod pseudo;
#[cfg(test)]
mod tests;

pub use directive::file_directive;
pub use error::AsmError;
pub use listing::{Item, Listing, ListingError};
pub use pseudo::PSEUDOS;

use ctx::Ctx;
use directive::directive;
use expr::{Sym, Symbols};
use lexer::{split_label, split_operands, strip_comment};
use std::collections::BTreeMap;

type Res<T> = Result<T, AsmError>;

/// An assembled program: `words[i]` lives at `base + 4 * i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub base: u32,
    pub words: Vec<u32>,
    /// Every label with its absolute address (`.equ` symbols are not included).
    pub labels: BTreeMap<String, u32>,
    /// Names declared with `.globl`/`.global`, in first-declaration order without duplicates.
    /// Not checked against `labels` (a linker decides what an undefined global means).
    pub globals: Vec<String>,
    /// Source files named by `.file`, in definition order ([`SourceRow::file`] indexes them).
    pub files: Vec<String>,
    /// One row per `.loc`, in text order, at the pc of the next word emitted.
    pub lines: Vec<SourceRow>,
    /// One row per `.mem CLASS`, in text order: the class of the memory the word at `pc` (the
    /// next word emitted) may access ([`crate::isa::mem_class`]).
    pub mem: Vec<(u32, crate::isa::mem_class::MemClass)>,
}

/// A `.loc N LINE [COL]` directive: the code from `pc` on comes from `line` (0 = no source
/// location; then `file` is meaningless) of `files[file]`. `.file N "NAME"` defines file
/// number `N` (any `u32`, as in GNU as; a later definition of the same number wins for later
/// `.loc`s); `.loc` of an undefined number is an error. NAME is a double-quoted string with `\"`
/// and `\\` escapes, and may contain comment characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceRow {
    pub pc: u32,
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// Per-word annotations of one assembly: source lines (`.file` numbers → [`Program::files`]
/// indices) and memory classes (`.mem`).
#[derive(Default)]
pub(super) struct Lines {
    files: Vec<String>,
    numbers: std::collections::HashMap<u32, u32>,
    rows: Vec<SourceRow>,
    mem: Vec<(u32, crate::isa::mem_class::MemClass)>,
}

impl Lines {
    /// `.file number "name"`: a name seen before keeps its index.
    pub(super) fn define_file(&mut self, number: u32, name: &str) {
        let index = match self.files.iter().position(|f| f == name) {
            Some(k) => k as u32,
            None => {
                self.files.push(name.to_string());
                self.files.len() as u32 - 1
            }
        };
        self.numbers.insert(number, index);
    }

    /// `.loc number line col` at `pc`; `Err` when `number` names no file (allowed for line 0).
    pub(super) fn row(&mut self, pc: u32, number: u32, line: u32, col: u32) -> Result<(), ()> {
        let file = match self.numbers.get(&number) {
            Some(&f) => f,
            None if line == 0 => 0,
            None => return Err(()),
        };
        self.rows.push(SourceRow { pc, file, line, col });
        Ok(())
    }

    /// `.mem class` at `pc`.
    pub(super) fn mem(&mut self, pc: u32, class: crate::isa::mem_class::MemClass) {
        self.mem.push((pc, class));
    }
}

/// Assembles a whole source text placed at `base`.
pub fn assemble(source: &str, base: u32) -> Result<Program, AsmError> {
    let mut syms = Symbols::default();
    let mut stmts = Vec::new();
    let mut globals = Vec::new();
    let mut lines = Lines::default();
    let mut pc = base;
    // Pass 1: split lines, define symbols, fix every statement's size.
    for (idx, raw) in source.lines().enumerate() {
        let line = idx + 1;
        // `.file` names may contain comment characters: read before comments are cut.
        if let Some(args) = raw.trim_start().strip_prefix(".file") {
            if args.starts_with(char::is_whitespace) {
                directive::file(&mut lines, line, args)?;
                continue;
            }
        }
        let mut rest = strip_comment(raw).trim();
        while let Some((name, after)) = split_label(rest) {
            syms.define(line, name, Sym::Label(pc))?;
            rest = after.trim_start();
        }
        if rest.is_empty() {
            continue;
        }
        let (mnem, ops_text) = match rest.find(char::is_whitespace) {
            Some(i) => (&rest[..i], rest[i..].trim()),
            None => (rest, ""),
        };
        let mnem = mnem.to_ascii_lowercase();
        let ops = split_operands(ops_text, line)?;
        let (body, words) = if mnem.starts_with('.') {
            match directive(&mut syms, &mut globals, &mut lines, line, pc, &mnem, &ops)? {
                Some(emits) => emits,
                None => continue,
            }
        } else {
            (Body::Inst, Ctx::new(line, pc, &syms, &mnem).inst_words(&ops))
        };
        stmts.push(Stmt { line, pc, mnem, ops, body, words });
        pc = pc.wrapping_add(words.wrapping_mul(4));
    }
    // Pass 2: encode with every symbol known.
    let mut words = Vec::new();
    for s in &stmts {
        let c = Ctx::new(s.line, s.pc, &syms, &s.mnem);
        match &s.body {
            Body::Inst => words.extend(c.instruction(&s.ops, s.words)?),
            Body::Words => {
                for o in &s.ops {
                    words.push(c.word(o)?);
                }
            }
            Body::Pad(n) => words.extend(std::iter::repeat_n(NOP, *n as usize)),
        }
    }
    let labels = syms.map.into_iter().filter_map(|(k, (s, _))| match s {
        Sym::Label(a) => Some((k, a)),
        Sym::Equ(_) => None,
    });
    Ok(Program {
        base,
        words,
        labels: labels.collect(),
        globals,
        files: lines.files,
        lines: lines.rows,
        mem: lines.mem,
    })
}

/// Assembles one line (no labels needed; absolute targets are relative to `pc`).
pub fn assemble_line(line: &str, pc: u32) -> Result<Vec<u32>, AsmError> {
    assemble(line, pc).map(|p| p.words)
}

/// `addi zero, zero, 0`.
const NOP: u32 = 0x0000_0013;

/// What a statement emits in pass 2.
enum Body {
    Inst,
    Words,
    Pad(u32),
}

struct Stmt {
    line: usize,
    pc: u32,
    mnem: String,
    ops: Vec<String>,
    body: Body,
    /// Size in words, fixed in pass 1.
    words: u32,
}
