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
//! * Also accepted: labels `name:`, comments (`#`, `//`, `;`), directives `.text`, `.globl`,
//!   `.global` (ignored), `.word`, `.align`/`.p2align N` (pad to 2^N bytes with `nop`),
//!   `.balign N`, `.equ`/`.set NAME, VALUE` (the value must be computable where it is defined);
//!   the pseudo-instructions listed in [`PSEUDOS`] (plus `jal target`, `jalr rs`, `fence`
//!   without operands or with `pred, succ`, `fence.i`, and `join`, `endprg`, `barrier`,
//!   `barriersub` without operands meaning all-zero operands).
//! * Never panics; every problem is an [`AsmError`] carrying its 1-based line number.
//!
//! Labels are resolved in two passes. `li` with a value known in pass 1 (numbers, earlier
//! symbols) takes one word when possible; with a forward reference it is always `lui`+`addi`.

use super::format::{Fmt, ImmKind};
use super::regs::{parse_csr, parse_f, parse_v, parse_x, RM_NAMES};
use super::{encode, EncodeError, Inst, Op, TABLE};
use once_cell::sync::Lazy;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// An assembled program: `words[i]` lives at `base + 4 * i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub base: u32,
    pub words: Vec<u32>,
    /// Every label with its absolute address (`.equ` symbols are not included).
    pub labels: BTreeMap<String, u32>,
}

/// An assembly error; every variant carries the 1-based source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsmError {
    /// Malformed line (unbalanced parentheses, empty operand, bad label name, …).
    Syntax {
        line: usize,
        message: String,
    },
    UnknownMnemonic {
        line: usize,
        mnemonic: String,
    },
    UnknownDirective {
        line: usize,
        directive: String,
    },
    OperandCount {
        line: usize,
        mnemonic: String,
        expected: &'static str,
        found: usize,
    },
    /// `operand` is not a register of the `expected` kind.
    BadRegister {
        line: usize,
        operand: String,
        expected: &'static str,
    },
    /// A register above 31 (`x40`, `v33`): encode it with an explicit `regext` prefix.
    RegisterNeedsRegext {
        line: usize,
        operand: String,
    },
    BadCsr {
        line: usize,
        operand: String,
    },
    /// Not a valid number/expression (or arithmetic overflow).
    BadImmediate {
        line: usize,
        operand: String,
    },
    ImmediateOutOfRange {
        line: usize,
        mnemonic: String,
        value: i64,
    },
    /// A branch/jump target that the instruction cannot reach (or an odd offset).
    TargetOutOfRange {
        line: usize,
        mnemonic: String,
        target: u32,
        offset: i64,
    },
    UndefinedSymbol {
        line: usize,
        name: String,
    },
    DuplicateSymbol {
        line: usize,
        name: String,
        first_line: usize,
    },
}

impl AsmError {
    /// The 1-based source line of the error.
    pub fn line(&self) -> usize {
        use AsmError::*;
        match self {
            Syntax { line, .. }
            | UnknownMnemonic { line, .. }
            | UnknownDirective { line, .. }
            | OperandCount { line, .. }
            | BadRegister { line, .. }
            | RegisterNeedsRegext { line, .. }
            | BadCsr { line, .. }
            | BadImmediate { line, .. }
            | ImmediateOutOfRange { line, .. }
            | TargetOutOfRange { line, .. }
            | UndefinedSymbol { line, .. }
            | DuplicateSymbol { line, .. } => *line,
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AsmError::*;
        write!(f, "line {}: ", self.line())?;
        match self {
            Syntax { message, .. } => write!(f, "syntax error: {message}"),
            UnknownMnemonic { mnemonic, .. } => write!(f, "unknown instruction `{mnemonic}`"),
            UnknownDirective { directive, .. } => write!(f, "unknown directive `{directive}`"),
            OperandCount {
                mnemonic,
                expected,
                found,
                ..
            } => {
                write!(
                    f,
                    "`{mnemonic}` expects `{expected}`, found {found} operand(s)"
                )
            }
            BadRegister {
                operand, expected, ..
            } => {
                write!(f, "`{operand}` is not {expected}")
            }
            RegisterNeedsRegext { operand, .. } => {
                write!(
                    f,
                    "register `{operand}` is above 31; write an explicit `regext` prefix"
                )
            }
            BadCsr { operand, .. } => write!(f, "unknown CSR `{operand}`"),
            BadImmediate { operand, .. } => write!(f, "bad immediate or expression `{operand}`"),
            ImmediateOutOfRange {
                mnemonic, value, ..
            } => {
                write!(f, "immediate {value} out of range for `{mnemonic}`")
            }
            TargetOutOfRange {
                mnemonic,
                target,
                offset,
                ..
            } => write!(
                f,
                "target {target:#x} (offset {offset}) out of range or misaligned for `{mnemonic}`"
            ),
            UndefinedSymbol { name, .. } => write!(f, "undefined symbol `{name}`"),
            DuplicateSymbol {
                name, first_line, ..
            } => {
                write!(f, "symbol `{name}` already defined on line {first_line}")
            }
        }
    }
}

impl std::error::Error for AsmError {}

type Res<T> = Result<T, AsmError>;

/// Assembles a whole source text placed at `base`.
pub fn assemble(source: &str, base: u32) -> Result<Program, AsmError> {
    let mut syms = Symbols::default();
    let mut stmts = Vec::new();
    let mut pc = base;
    // Pass 1: split lines, define symbols, fix every statement's size.
    for (idx, raw) in source.lines().enumerate() {
        let line = idx + 1;
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
            match directive(&mut syms, line, pc, &mnem, &ops)? {
                Some(emits) => emits,
                None => continue,
            }
        } else {
            (Body::Inst, inst_words(&syms, line, pc, &mnem, &ops))
        };
        stmts.push(Stmt {
            line,
            pc,
            mnem,
            ops,
            body,
            words,
        });
        pc = pc.wrapping_add(words.wrapping_mul(4));
    }
    // Pass 2: encode with every symbol known.
    let mut words = Vec::new();
    for s in &stmts {
        let c = Ctx {
            line: s.line,
            pc: s.pc,
            syms: &syms,
            mnem: &s.mnem,
        };
        match &s.body {
            Body::Inst => words.extend(c.instruction(&s.ops, s.words)?),
            Body::Words => {
                for o in &s.ops {
                    let v = c.eval(o)?;
                    if !(-(1i64 << 31)..1i64 << 32).contains(&v) {
                        return Err(c.out_of_range(v));
                    }
                    words.push(v as u32);
                }
            }
            Body::Pad(n) => words.extend(std::iter::repeat(NOP).take(*n as usize)),
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
    })
}

/// Assembles one line (no labels needed; absolute targets are relative to `pc`).
pub fn assemble_line(line: &str, pc: u32) -> Result<Vec<u32>, AsmError> {
    assemble(line, pc).map(|p| p.words)
}

/// `addi zero, zero, 0`.
const NOP: u32 = 0x0000_0013;
/// Largest `.align` exponent accepted (64 KiB).
const MAX_ALIGN_LOG2: i64 = 16;

#[derive(Debug, Clone, Copy)]
enum Sym {
    Label(u32),
    Equ(i64),
}

#[derive(Default)]
struct Symbols {
    /// name → (value, line of definition)
    map: HashMap<String, (Sym, usize)>,
}

impl Symbols {
    fn define(&mut self, line: usize, name: &str, s: Sym) -> Res<()> {
        if let Some(&(_, first_line)) = self.map.get(name) {
            return Err(AsmError::DuplicateSymbol {
                line,
                name: name.to_string(),
                first_line,
            });
        }
        self.map.insert(name.to_string(), (s, line));
        Ok(())
    }
    fn get(&self, name: &str) -> Option<i64> {
        self.map.get(name).map(|(s, _)| match *s {
            Sym::Label(a) => a as i64,
            Sym::Equ(v) => v,
        })
    }
}

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

fn strip_comment(s: &str) -> &str {
    let end = [s.find('#'), s.find("//"), s.find(';')]
        .into_iter()
        .flatten()
        .min();
    &s[..end.unwrap_or(s.len())]
}

fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || "_.$".contains(c))
        && cs.all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c))
}

/// `name: rest` → `(name, rest)` when `name` is an identifier.
fn split_label(s: &str) -> Option<(&str, &str)> {
    let (name, rest) = s.split_once(':')?;
    is_ident(name.trim_end()).then(|| (name.trim_end(), rest))
}

/// Splits at top-level commas (parentheses may nest).
fn split_operands(s: &str, line: usize) -> Res<Vec<String>> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let syntax = |m: &str| AsmError::Syntax {
        line,
        message: m.to_string(),
    };
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| syntax("unbalanced `)`"))?
            }
            ',' if depth == 0 => {
                out.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(syntax("unbalanced `(`"));
    }
    out.push(s[start..].trim().to_string());
    if out.iter().any(String::is_empty) {
        return Err(syntax("empty operand"));
    }
    Ok(out)
}

/// Pass-1 handling of a directive: `Some((body, size in words))` if it emits words.
fn directive(
    syms: &mut Symbols,
    line: usize,
    pc: u32,
    d: &str,
    ops: &[String],
) -> Res<Option<(Body, u32)>> {
    let c = Ctx {
        line,
        pc,
        syms,
        mnem: d,
    };
    match d {
        ".text" | ".globl" | ".global" => Ok(None),
        ".word" if !ops.is_empty() => Ok(Some((Body::Words, ops.len() as u32))),
        ".align" | ".p2align" | ".balign" if ops.len() == 1 => {
            let n = c.eval(&ops[0])?;
            let bytes: u64 = if d == ".balign" {
                if n <= 0 || n > 1 << MAX_ALIGN_LOG2 || n & (n - 1) != 0 {
                    return Err(c.out_of_range(n));
                }
                n as u64
            } else {
                if !(0..=MAX_ALIGN_LOG2).contains(&n) {
                    return Err(c.out_of_range(n));
                }
                1 << n
            };
            let pad = (bytes - pc as u64 % bytes) % bytes;
            let n = pad.div_ceil(4) as u32;
            Ok(Some((Body::Pad(n), n)))
        }
        ".equ" | ".set" if ops.len() == 2 => {
            if !is_ident(&ops[0]) {
                let message = format!("`{}` is not a symbol name", ops[0]);
                return Err(AsmError::Syntax { line, message });
            }
            let v = c.eval(&ops[1])?;
            syms.define(line, &ops[0], Sym::Equ(v))?;
            Ok(None)
        }
        ".word" | ".align" | ".p2align" | ".balign" | ".equ" | ".set" => {
            let expected = match d {
                ".word" => "value[, value…]",
                ".equ" | ".set" => "NAME, VALUE",
                _ => "N",
            };
            Err(AsmError::OperandCount {
                line,
                mnemonic: d.to_string(),
                expected,
                found: ops.len(),
            })
        }
        _ => Err(AsmError::UnknownDirective {
            line,
            directive: d.to_string(),
        }),
    }
}

/// Pass-1 size of an instruction line in words (errors are reported in pass 2).
fn inst_words(syms: &Symbols, line: usize, pc: u32, mnem: &str, ops: &[String]) -> u32 {
    match (mnem, ops.len()) {
        ("li", 2) => {
            let c = Ctx {
                line,
                pc,
                syms,
                mnem,
            };
            match c.eval(&ops[1]) {
                Ok(v) => li_split(v as u32).len() as u32,
                Err(_) => 2,
            }
        }
        ("la" | "lla", 2) | ("call" | "tail", 1) => 2,
        _ => 1,
    }
}

/// The `li` expansion of a value: `[addi]`, `[lui]` or `[lui, addi]` as (op, imm) pairs.
fn li_split(v: u32) -> Vec<(Op, i32)> {
    if ImmKind::I12.insert(v as i32).is_some() {
        return vec![(Op::Addi, v as i32)];
    }
    let (hi, lo) = hi_lo(v);
    if lo == 0 {
        vec![(Op::Lui, hi as i32)]
    } else {
        vec![(Op::Lui, hi as i32), (Op::Addi, lo)]
    }
}

/// Splits a value into an upper part (bits 31:12, as placed by `lui`/`auipc`) and a signed
/// 12-bit lower part such that `hi + lo == v` (mod 2^32).
fn hi_lo(v: u32) -> (u32, i32) {
    let hi = v.wrapping_add(0x800) & 0xffff_f000;
    (hi, v.wrapping_sub(hi) as i32)
}

/// Pseudo-instructions (beyond the table rows) and their operand syntax.
pub const PSEUDOS: &[(&str, &str)] = &[
    ("nop", ""),
    ("li", "rd, imm32"),
    ("la", "rd, symbol"),
    ("lla", "rd, symbol"),
    ("call", "symbol"),
    ("tail", "symbol"),
    ("mv", "rd, rs"),
    ("not", "rd, rs"),
    ("neg", "rd, rs"),
    ("seqz", "rd, rs"),
    ("snez", "rd, rs"),
    ("sltz", "rd, rs"),
    ("sgtz", "rd, rs"),
    ("beqz", "rs, target"),
    ("bnez", "rs, target"),
    ("bltz", "rs, target"),
    ("bgez", "rs, target"),
    ("blez", "rs, target"),
    ("bgtz", "rs, target"),
    ("bgt", "rs1, rs2, target"),
    ("ble", "rs1, rs2, target"),
    ("bgtu", "rs1, rs2, target"),
    ("bleu", "rs1, rs2, target"),
    ("j", "target"),
    ("jr", "rs"),
    ("ret", ""),
    ("csrr", "rd, csr"),
    ("csrw", "csr, rs"),
    ("csrs", "csr, rs"),
    ("csrc", "csr, rs"),
    ("csrwi", "csr, uimm5"),
    ("csrsi", "csr, uimm5"),
    ("csrci", "csr, uimm5"),
    ("frflags", "rd"),
    ("frrm", "rd"),
    ("frcsr", "rd"),
    ("rdcycle", "rd"),
    ("rdtime", "rd"),
    ("rdinstret", "rd"),
    ("rdcycleh", "rd"),
    ("rdinstreth", "rd"),
    ("fmv.s", "rd, rs"),
    ("fneg.s", "rd, rs"),
    ("fabs.s", "rd, rs"),
    ("fence.tso", ""),
    ("unimp", ""),
    ("vnot.v", "vd, vs[, v0.t]"),
    ("vneg.v", "vd, vs[, v0.t]"),
    ("vfneg.v", "vd, vs[, v0.t]"),
    ("vfabs.v", "vd, vs[, v0.t]"),
    ("vmsge.vi", "vd, vs2, imm[, v0.t]"),
    ("vmslt.vi", "vd, vs2, imm[, v0.t]"),
    ("vmsgeu.vi", "vd, vs2, imm[, v0.t]"),
    ("vmsltu.vi", "vd, vs2, imm[, v0.t]"),
];

/// Mnemonic → row (row mnemonics are unique; checked by the tests).
static BY_NAME: Lazy<HashMap<&'static str, Op>> =
    Lazy::new(|| TABLE.iter().map(|d| (d.mnemonic, d.op)).collect());

/// Operand syntax of a format (for error messages).
fn syntax(fmt: Fmt) -> &'static str {
    use Fmt::*;
    match fmt {
        U => "rd, imm20",
        J => "rd, target",
        Jalr | Load => "rd, imm(rs1)",
        Store => "rs2, imm(rs1)",
        B => "rs1, rs2, target",
        I | Shamt | Prefix | Fence => "rd, rs1, imm",
        R | X3 => "rd, rs1, rs2",
        Bare => "(no operands)",
        Csr => "rd, csr, rs1",
        CsrI => "rd, csr, uimm5",
        Lr => "rd, (rs1)",
        Amo => "rd, rs2, (rs1)",
        R4 => "rd, rs1, rs2, rs3[, rm]",
        FRm => "rd, rs1, rs2[, rm]",
        F1Rm => "rd, rs1[, rm]",
        F1 => "rd, rs1",
        Vsetvli => "rd, rs1, e32, m1, ta, ma",
        Vsetivli => "rd, uimm5, e32, m1, ta, ma",
        VLoad => "vd, (rs1)[, v0.t]",
        VLoadStride => "vd, (rs1), rs2[, v0.t]",
        VLoadIndex => "vd, (rs1), vs2[, v0.t]",
        VV => "vd, vs2, vs1[, v0.t]",
        VX => "vd, vs2, rs1[, v0.t]",
        VF => "vd, vs2, fs1[, v0.t]",
        VI | VIu => "vd, vs2, imm5[, v0.t]",
        VMacV => "vd, vs1, vs2[, v0.t]",
        VMacX => "vd, rs1, vs2[, v0.t]",
        VMacF => "vd, fs1, vs2[, v0.t]",
        VMvV => "vd, vs1",
        VMvX => "vd, rs1",
        VMvF => "vd, fs1",
        VMvI => "vd, imm5",
        VMerge => "vd, vs2, vs1|rs1|imm5|fs1, v0",
        VMvXS => "rd, vs2",
        VUnary => "vd, vs2[, v0.t]",
        VId => "vd[, v0.t]",
        VI12 => "vd, vs1, imm12",
        Barrier => "rd, rs2, uimm5",
        PLoad | VLoad12 => "vd, imm(vs1)",
        PStore | VStore12 => "vs2, imm(vs1)",
        VBranch => "vs2, vs1, target",
        Join => "rs2, rs1, offset",
    }
}

/// Per-statement context for pass 2 (and pass-1 evaluation).
struct Ctx<'a> {
    line: usize,
    pc: u32,
    syms: &'a Symbols,
    mnem: &'a str,
}

fn inst(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Inst {
    Inst {
        rd,
        rs1,
        rs2,
        imm,
        ..Inst::new(op)
    }
}

impl Ctx<'_> {
    // ---- errors ----------------------------------------------------------------------------
    fn out_of_range(&self, value: i64) -> AsmError {
        AsmError::ImmediateOutOfRange {
            line: self.line,
            mnemonic: self.mnem.to_string(),
            value,
        }
    }
    fn count(&self, expected: &'static str, found: usize) -> AsmError {
        AsmError::OperandCount {
            line: self.line,
            mnemonic: self.mnem.to_string(),
            expected,
            found,
        }
    }
    fn bad_imm(&self, t: &str) -> AsmError {
        AsmError::BadImmediate {
            line: self.line,
            operand: t.to_string(),
        }
    }
    fn syntax(&self, message: String) -> AsmError {
        AsmError::Syntax {
            line: self.line,
            message,
        }
    }

    // ---- operands --------------------------------------------------------------------------
    fn reg(&self, t: &str, parse: fn(&str) -> Option<u8>, expected: &'static str) -> Res<u8> {
        let lower = t.trim().to_ascii_lowercase();
        match parse(&lower) {
            Some(n) if n < 32 => Ok(n),
            Some(_) => Err(AsmError::RegisterNeedsRegext {
                line: self.line,
                operand: t.to_string(),
            }),
            None => Err(AsmError::BadRegister {
                line: self.line,
                operand: t.to_string(),
                expected,
            }),
        }
    }
    fn x(&self, t: &str) -> Res<u8> {
        self.reg(t, parse_x, "an x register")
    }
    fn v(&self, t: &str) -> Res<u8> {
        self.reg(t, parse_v, "a vector register")
    }
    fn f(&self, t: &str) -> Res<u8> {
        self.reg(t, parse_f, "an FP register")
    }
    fn csr(&self, t: &str) -> Res<i32> {
        parse_csr(t).map(i32::from).ok_or_else(|| AsmError::BadCsr {
            line: self.line,
            operand: t.to_string(),
        })
    }
    /// An immediate that must fit `i32` (the encoder checks the field range).
    fn imm(&self, t: &str) -> Res<i32> {
        let v = self.eval(t)?;
        i32::try_from(v).map_err(|_| self.out_of_range(v))
    }
    /// A 5-bit unsigned value stored in a register field (csr immediates, vsetivli AVL).
    fn uimm5(&self, t: &str) -> Res<u8> {
        let v = self.eval(t)?;
        u8::try_from(v)
            .ok()
            .filter(|&u| u < 32)
            .ok_or_else(|| self.out_of_range(v))
    }
    /// An absolute target, returned as the offset from this instruction.
    fn target(&self, t: &str) -> Res<i32> {
        let v = self.eval(t)?;
        if !(-(1i64 << 31)..1i64 << 32).contains(&v) {
            return Err(self.out_of_range(v));
        }
        Ok((v as u32).wrapping_sub(self.pc) as i32)
    }
    /// `imm(reg)` or `(reg)` → (imm, reg text).
    fn mem<'t>(&self, t: &'t str) -> Res<(i32, &'t str)> {
        let bad = || self.syntax(format!("expected `imm(reg)`, found `{t}`"));
        let inner = t.strip_suffix(')').ok_or_else(bad)?;
        let open = inner.rfind('(').ok_or_else(bad)?;
        let (imm, reg) = (inner[..open].trim(), &inner[open + 1..]);
        Ok((if imm.is_empty() { 0 } else { self.imm(imm)? }, reg))
    }
    /// `(reg)` or `0(reg)` (atomics).
    fn mem0<'t>(&self, t: &'t str) -> Res<&'t str> {
        match self.mem(t)? {
            (0, r) => Ok(r),
            (v, _) => Err(self.out_of_range(v as i64)),
        }
    }
    fn want(&self, ops: &[String], n: usize, fmt: Fmt) -> Res<()> {
        if ops.len() == n {
            Ok(())
        } else {
            Err(self.count(syntax(fmt), ops.len()))
        }
    }

    // ---- expressions -----------------------------------------------------------------------
    fn eval(&self, t: &str) -> Res<i64> {
        let toks = tokenize(t).ok_or_else(|| self.bad_imm(t))?;
        let mut p = Parser {
            toks: &toks,
            pos: 0,
            depth: 0,
        };
        let v = self.expr(&mut p, t)?;
        if p.pos != toks.len() {
            return Err(self.bad_imm(t));
        }
        Ok(v)
    }
    fn expr(&self, p: &mut Parser, t: &str) -> Res<i64> {
        let mut v = self.unary(p, t)?;
        while let Some(&Tok::Op(c @ ('+' | '-'))) = p.peek() {
            p.pos += 1;
            let r = self.unary(p, t)?;
            v = if c == '+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or_else(|| self.bad_imm(t))?;
        }
        Ok(v)
    }
    fn unary(&self, p: &mut Parser, t: &str) -> Res<i64> {
        p.depth += 1;
        if p.depth > 64 {
            return Err(self.bad_imm(t));
        }
        let r = match p.next() {
            Some(Tok::Op('-')) => self
                .unary(p, t)?
                .checked_neg()
                .ok_or_else(|| self.bad_imm(t)),
            Some(Tok::Op('+')) => self.unary(p, t),
            Some(Tok::Num(n)) => Ok(*n),
            Some(Tok::Ident(name)) => {
                self.syms
                    .get(name)
                    .ok_or_else(|| AsmError::UndefinedSymbol {
                        line: self.line,
                        name: name.clone(),
                    })
            }
            Some(Tok::Op('(')) => {
                let v = self.expr(p, t)?;
                p.close().ok_or_else(|| self.bad_imm(t))?;
                Ok(v)
            }
            Some(Tok::Reloc(hi)) => {
                let hi = *hi;
                p.open().ok_or_else(|| self.bad_imm(t))?;
                let v = self.expr(p, t)?;
                p.close().ok_or_else(|| self.bad_imm(t))?;
                let (h, l) = hi_lo(v as u32);
                Ok(if hi { (h >> 12) as i64 } else { l as i64 })
            }
            _ => Err(self.bad_imm(t)),
        };
        p.depth -= 1;
        r
    }

    // ---- instructions ----------------------------------------------------------------------
    fn enc(&self, i: &Inst) -> Res<u32> {
        encode(i).map_err(|e| match e {
            EncodeError::RegisterOutOfRange { reg, .. } => AsmError::RegisterNeedsRegext {
                line: self.line,
                operand: reg.to_string(),
            },
            EncodeError::ImmediateOutOfRange { imm, op } => {
                let fl = op.desc().fmt.fields();
                if matches!(fl.imm, ImmKind::B13 | ImmKind::J21) && op != Op::Join {
                    let target = self.pc.wrapping_add(imm as u32);
                    AsmError::TargetOutOfRange {
                        line: self.line,
                        mnemonic: self.mnem.to_string(),
                        target,
                        offset: imm as i64,
                    }
                } else if op == Op::Join {
                    self.out_of_range(imm as i64 / 2)
                } else {
                    self.out_of_range(imm as i64)
                }
            }
            EncodeError::AuxOutOfRange { aux, .. } => self.out_of_range(aux as i64),
        })
    }
    fn one(&self, i: Inst) -> Res<Vec<u32>> {
        Ok(vec![self.enc(&i)?])
    }

    /// One instruction line → its words (`words` = the size fixed in pass 1).
    fn instruction(&self, ops: &[String], words: u32) -> Res<Vec<u32>> {
        if let Some(w) = self.pseudo(ops, words)? {
            return Ok(w);
        }
        // `vfexp.v` is the ISA notes' spelling of LLVM's `vfexp`.
        let m = if self.mnem == "vfexp.v" {
            "vfexp"
        } else {
            self.mnem
        };
        let (op, aux) = match BY_NAME.get(m) {
            Some(&op) => (op, None),
            None => {
                let suffixed = [(".aqrl", 3u8), (".aq", 2), (".rl", 1)]
                    .into_iter()
                    .find_map(|(s, a)| {
                        let op = *BY_NAME.get(m.strip_suffix(s)?)?;
                        matches!(op.desc().fmt, Fmt::Lr | Fmt::Amo).then_some((op, Some(a)))
                    });
                match (suffixed, PSEUDOS.iter().find(|(n, _)| *n == m)) {
                    (Some(x), _) => x,
                    (None, Some(&(_, expected))) => return Err(self.count(expected, ops.len())),
                    (None, None) => {
                        return Err(AsmError::UnknownMnemonic {
                            line: self.line,
                            mnemonic: m.to_string(),
                        })
                    }
                }
            }
        };
        let mut i = self.operands(op, ops)?;
        if let Some(a) = aux {
            i.aux = a;
        }
        self.one(i)
    }

    /// Parses the operands of a table row, in the order the disassembler prints them.
    fn operands(&self, op: Op, ops: &[String]) -> Res<Inst> {
        use Fmt::*;
        let fmt = op.desc().fmt;
        let fl = fmt.fields();
        let mut i = Inst::new(op);
        let mut o = ops;
        if fl.vm {
            if let Some((last, rest)) = o.split_last() {
                if last.eq_ignore_ascii_case("v0.t") {
                    i.vm = false;
                    o = rest;
                }
            }
        }
        if fl.rm {
            i.aux = 7;
            let n = match fmt {
                R4 => 4,
                FRm => 3,
                _ => 2,
            };
            if o.len() == n + 1 {
                let rm = o[n].to_ascii_lowercase();
                let pos = RM_NAMES.iter().position(|r| *r == rm);
                i.aux = pos
                    .ok_or_else(|| self.syntax(format!("`{}` is not a rounding mode", o[n])))?
                    as u8;
                o = &o[..n];
            }
        }
        // FP scalar rows also accept FP register names (the disassembler prints zfinx x names).
        let fp = op.mnemonic().starts_with('f') && !matches!(op, Op::Fence | Op::FenceI);
        let sx = |t: &str| if fp { self.f(t) } else { self.x(t) };
        match fmt {
            U => {
                self.want(o, 2, fmt)?;
                let v = self.eval(&o[1])?;
                if !(0..1 << 20).contains(&v) {
                    return Err(self.out_of_range(v));
                }
                i.rd = self.x(&o[0])?;
                i.imm = ((v as u32) << 12) as i32;
            }
            J => {
                self.want(o, 2, fmt)?;
                (i.rd, i.imm) = (self.x(&o[0])?, self.target(&o[1])?);
            }
            Jalr | Load => {
                self.want(o, 2, fmt)?;
                let (imm, r) = self.mem(&o[1])?;
                (i.rd, i.rs1, i.imm) = (sx(&o[0])?, self.x(r)?, imm);
            }
            Store => {
                self.want(o, 2, fmt)?;
                let (imm, r) = self.mem(&o[1])?;
                (i.rs2, i.rs1, i.imm) = (sx(&o[0])?, self.x(r)?, imm);
            }
            B => {
                self.want(o, 3, fmt)?;
                (i.rs1, i.rs2, i.imm) = (self.x(&o[0])?, self.x(&o[1])?, self.target(&o[2])?);
            }
            I | Shamt | Prefix | Fence => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1, i.imm) = (self.x(&o[0])?, self.x(&o[1])?, self.imm(&o[2])?);
            }
            R | X3 => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1, i.rs2) = (sx(&o[0])?, sx(&o[1])?, sx(&o[2])?);
            }
            Bare => self.want(o, 0, fmt)?,
            Csr => {
                self.want(o, 3, fmt)?;
                (i.rd, i.imm, i.rs1) = (self.x(&o[0])?, self.csr(&o[1])?, self.x(&o[2])?);
            }
            CsrI => {
                self.want(o, 3, fmt)?;
                (i.rd, i.imm, i.rs1) = (self.x(&o[0])?, self.csr(&o[1])?, self.uimm5(&o[2])?);
            }
            Lr => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs1) = (self.x(&o[0])?, self.x(self.mem0(&o[1])?)?);
            }
            Amo => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs2, i.rs1) = (self.x(&o[0])?, self.x(&o[1])?, self.x(self.mem0(&o[2])?)?);
            }
            R4 => {
                self.want(o, 4, fmt)?;
                (i.rd, i.rs1, i.rs2, i.rs3) = (sx(&o[0])?, sx(&o[1])?, sx(&o[2])?, sx(&o[3])?);
            }
            FRm => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1, i.rs2) = (sx(&o[0])?, sx(&o[1])?, sx(&o[2])?);
            }
            F1Rm | F1 => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs1) = (sx(&o[0])?, sx(&o[1])?);
            }
            Vsetvli | Vsetivli => {
                if !(3..=6).contains(&o.len()) {
                    return Err(self.count(syntax(fmt), o.len()));
                }
                i.rd = self.x(&o[0])?;
                i.rs1 = if fmt == Vsetvli {
                    self.x(&o[1])?
                } else {
                    self.uimm5(&o[1])?
                };
                i.imm = self.vtype(&o[2..])?;
            }
            VLoad => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs1) = (self.v(&o[0])?, self.x(self.mem0(&o[1])?)?);
            }
            VLoadStride | VLoadIndex => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1) = (self.v(&o[0])?, self.x(self.mem0(&o[1])?)?);
                i.rs2 = if fmt == VLoadStride {
                    self.x(&o[2])?
                } else {
                    self.v(&o[2])?
                };
            }
            VV | VX | VF | VI | VIu | VMerge => {
                let n = if fmt == VMerge { 4 } else { 3 };
                self.want(o, n, fmt)?;
                if fmt == VMerge && !o[3].eq_ignore_ascii_case("v0") {
                    return Err(self.syntax(format!(
                        "expected `v0` as the mask operand, found `{}`",
                        o[3]
                    )));
                }
                (i.rd, i.rs2) = (self.v(&o[0])?, self.v(&o[1])?);
                match (fmt, op) {
                    (VV, _) | (VMerge, Op::VmergeVvm) => i.rs1 = self.v(&o[2])?,
                    (VX, _) | (VMerge, Op::VmergeVxm) => i.rs1 = self.x(&o[2])?,
                    (VF, _) | (VMerge, Op::VfmergeVfm) => i.rs1 = self.f(&o[2])?,
                    (VMerge, _) => {
                        let v = self.imm(&o[2])?;
                        let field = ImmKind::Simm5
                            .insert(v)
                            .ok_or_else(|| self.out_of_range(v as i64))?;
                        i.rs1 = (field >> 15) as u8;
                    }
                    _ => i.imm = self.imm(&o[2])?,
                }
            }
            VMacV | VMacX | VMacF => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs2) = (self.v(&o[0])?, self.v(&o[2])?);
                i.rs1 = match fmt {
                    VMacV => self.v(&o[1])?,
                    VMacX => self.x(&o[1])?,
                    _ => self.f(&o[1])?,
                };
            }
            VMvV | VMvX | VMvF | VMvI => {
                self.want(o, 2, fmt)?;
                i.rd = self.v(&o[0])?;
                match fmt {
                    VMvV => i.rs1 = self.v(&o[1])?,
                    VMvX => i.rs1 = self.x(&o[1])?,
                    VMvF => i.rs1 = self.f(&o[1])?,
                    _ => i.imm = self.imm(&o[1])?,
                }
            }
            VMvXS => {
                self.want(o, 2, fmt)?;
                i.rd = if op == Op::VfmvFS {
                    self.f(&o[0])?
                } else {
                    self.x(&o[0])?
                };
                i.rs2 = self.v(&o[1])?;
            }
            VUnary => {
                self.want(o, 2, fmt)?;
                (i.rd, i.rs2) = (self.v(&o[0])?, self.v(&o[1])?);
            }
            VId => {
                self.want(o, 1, fmt)?;
                i.rd = self.v(&o[0])?;
            }
            VI12 => {
                // LLVM prints and parses an unsigned 12-bit value; negative values are accepted too.
                self.want(o, 3, fmt)?;
                (i.rd, i.rs1) = (self.v(&o[0])?, self.v(&o[1])?);
                let v = self.imm(&o[2])?;
                i.imm = if (2048..4096).contains(&v) {
                    v - 4096
                } else {
                    v
                };
            }
            Barrier => {
                self.want(o, 3, fmt)?;
                (i.rd, i.rs2, i.imm) = (self.x(&o[0])?, self.x(&o[1])?, self.imm(&o[2])?);
            }
            PLoad | VLoad12 | PStore | VStore12 => {
                self.want(o, 2, fmt)?;
                let (imm, r) = self.mem(&o[1])?;
                (i.rs1, i.imm) = (self.v(r)?, imm);
                if matches!(fmt, PLoad | VLoad12) {
                    i.rd = self.v(&o[0])?;
                } else {
                    i.rs2 = self.v(&o[0])?;
                }
            }
            VBranch => {
                self.want(o, 3, fmt)?;
                (i.rs2, i.rs1, i.imm) = (self.v(&o[0])?, self.v(&o[1])?, self.target(&o[2])?);
            }
            Join => {
                // The third operand is the raw 12-bit field (branch offset / 2), as LLVM prints it.
                self.want(o, 3, fmt)?;
                (i.rs2, i.rs1) = (self.x(&o[0])?, self.x(&o[1])?);
                let v = self.imm(&o[2])?;
                i.imm = v
                    .checked_mul(2)
                    .ok_or_else(|| self.out_of_range(v as i64))?;
            }
        }
        Ok(i)
    }

    /// `vtype` operands: `e32, m1, ta, ma` (LMUL and policies optional, default `m1, tu, mu`)
    /// or one number.
    fn vtype(&self, parts: &[String]) -> Res<i32> {
        if parts.len() == 1 && !parts[0].starts_with(['e', 'E']) {
            return self.imm(&parts[0]);
        }
        let bad = |t: &str| self.syntax(format!("`{t}` is not a vtype field"));
        let p: Vec<String> = parts.iter().map(|s| s.to_ascii_lowercase()).collect();
        let sew = ["e8", "e16", "e32", "e64"]
            .iter()
            .position(|s| *s == p[0])
            .ok_or_else(|| bad(&p[0]))?;
        let mut v = (sew as i32) << 3;
        let mut rest = &p[1..];
        const LMUL: [&str; 8] = ["m1", "m2", "m4", "m8", "", "mf8", "mf4", "mf2"];
        if let Some(l) = rest
            .first()
            .and_then(|t| LMUL.iter().position(|s| !s.is_empty() && s == t))
        {
            v |= l as i32;
            rest = &rest[1..];
        }
        for (bit, on, off) in [(0x40, "ta", "tu"), (0x80, "ma", "mu")] {
            match rest.first().map(String::as_str) {
                Some(t) if t == on => v |= bit,
                Some(t) if t == off => {}
                _ => continue,
            }
            rest = &rest[1..];
        }
        match rest.first() {
            Some(t) => Err(bad(t)),
            None => Ok(v),
        }
    }

    /// `fence` predecessor/successor set (`iorw` letters or `0`).
    fn fence_set(&self, t: &str) -> Res<i32> {
        if t == "0" {
            return Ok(0);
        }
        let mut v = 0;
        for ch in t.chars() {
            let b = match ch {
                'i' => 8,
                'o' => 4,
                'r' => 2,
                'w' => 1,
                _ => return Err(self.syntax(format!("`{t}` is not a fence set"))),
            };
            if v & b != 0 {
                return Err(self.syntax(format!("`{t}` is not a fence set")));
            }
            v |= b;
        }
        Ok(v)
    }

    fn li(&self, ops: &[String], words: u32) -> Res<Vec<u32>> {
        let rd = self.x(&ops[0])?;
        let v = self.eval(&ops[1])?;
        if !(-(1i64 << 31)..1i64 << 32).contains(&v) {
            return Err(self.out_of_range(v));
        }
        let mut parts = li_split(v as u32);
        if words == 2 && parts.len() == 1 {
            // A forward reference in pass 1 fixed the two-word size.
            let (hi, lo) = hi_lo(v as u32);
            parts = vec![(Op::Lui, hi as i32), (Op::Addi, lo)];
        }
        if parts.len() != words as usize {
            // Unreachable: pass 1 saw the same value (symbols never change once defined).
            return Err(self.out_of_range(v));
        }
        let rs1 = if parts.len() == 2 { rd } else { 0 };
        parts
            .into_iter()
            .map(|(op, imm)| self.enc(&inst(op, rd, rs1, 0, imm)))
            .collect()
    }

    /// `auipc rd, hi` + `second` with `lo`, for a pc-relative target.
    fn pcrel(&self, t: &str, rd: u8, second: Inst) -> Res<Vec<u32>> {
        let (hi, lo) = hi_lo(self.target(t)? as u32);
        Ok(vec![
            self.enc(&inst(Op::Auipc, rd, 0, 0, hi as i32))?,
            self.enc(&Inst { imm: lo, ..second })?,
        ])
    }

    /// Pseudo-instructions; `Ok(None)` when `mnem`/operand count is not one (then the table
    /// decides). The list with operand syntax is [`PSEUDOS`].
    fn pseudo(&self, o: &[String], words: u32) -> Res<Option<Vec<u32>>> {
        use Op::*;
        let m = self.mnem;
        let r = |op, rd, rs1, rs2, imm| self.one(inst(op, rd, rs1, rs2, imm));
        let res = match (m, o.len()) {
            ("nop", 0) => r(Addi, 0, 0, 0, 0),
            ("li", 2) => self.li(o, words),
            ("la" | "lla", 2) => {
                let rd = self.x(&o[0])?;
                self.pcrel(&o[1], rd, inst(Addi, rd, rd, 0, 0))
            }
            ("call", 1) => self.pcrel(&o[0], 1, inst(Jalr, 1, 1, 0, 0)),
            ("tail", 1) => self.pcrel(&o[0], 6, inst(Jalr, 0, 6, 0, 0)),
            ("mv" | "not" | "neg" | "seqz" | "snez" | "sltz" | "sgtz", 2) => {
                let (rd, rs) = (self.x(&o[0])?, self.x(&o[1])?);
                match m {
                    "mv" => r(Addi, rd, rs, 0, 0),
                    "not" => r(Xori, rd, rs, 0, -1),
                    "neg" => r(Sub, rd, 0, rs, 0),
                    "seqz" => r(Sltiu, rd, rs, 0, 1),
                    "snez" => r(Sltu, rd, 0, rs, 0),
                    "sltz" => r(Slt, rd, rs, 0, 0),
                    _ => r(Slt, rd, 0, rs, 0),
                }
            }
            ("beqz" | "bnez" | "bltz" | "bgez" | "blez" | "bgtz", 2) => {
                let (rs, off) = (self.x(&o[0])?, self.target(&o[1])?);
                match m {
                    "beqz" => r(Beq, 0, rs, 0, off),
                    "bnez" => r(Bne, 0, rs, 0, off),
                    "bltz" => r(Blt, 0, rs, 0, off),
                    "bgez" => r(Bge, 0, rs, 0, off),
                    "blez" => r(Bge, 0, 0, rs, off),
                    _ => r(Blt, 0, 0, rs, off),
                }
            }
            ("bgt" | "ble" | "bgtu" | "bleu", 3) => {
                let (a, b, off) = (self.x(&o[0])?, self.x(&o[1])?, self.target(&o[2])?);
                let op = match m {
                    "bgt" => Blt,
                    "ble" => Bge,
                    "bgtu" => Bltu,
                    _ => Bgeu,
                };
                r(op, 0, b, a, off)
            }
            ("j", 1) => r(Jal, 0, 0, 0, self.target(&o[0])?),
            ("jal", 1) => r(Jal, 1, 0, 0, self.target(&o[0])?),
            ("jr", 1) => r(Jalr, 0, self.x(&o[0])?, 0, 0),
            ("jalr", 1) => r(Jalr, 1, self.x(&o[0])?, 0, 0),
            ("ret", 0) => r(Jalr, 0, 1, 0, 0),
            ("csrr", 2) => r(Csrrs, self.x(&o[0])?, 0, 0, self.csr(&o[1])?),
            ("csrw" | "csrs" | "csrc", 2) => {
                let op = match m {
                    "csrw" => Csrrw,
                    "csrs" => Csrrs,
                    _ => Csrrc,
                };
                r(op, 0, self.x(&o[1])?, 0, self.csr(&o[0])?)
            }
            ("csrwi" | "csrsi" | "csrci", 2) => {
                let op = match m {
                    "csrwi" => Csrrwi,
                    "csrsi" => Csrrsi,
                    _ => Csrrci,
                };
                r(op, 0, self.uimm5(&o[1])?, 0, self.csr(&o[0])?)
            }
            (
                "frflags" | "frrm" | "frcsr" | "rdcycle" | "rdtime" | "rdinstret" | "rdcycleh"
                | "rdinstreth",
                1,
            ) => {
                let csr = match m {
                    "frflags" => 0x001,
                    "frrm" => 0x002,
                    "frcsr" => 0x003,
                    "rdcycle" => 0xc00,
                    "rdtime" => 0xc01,
                    "rdinstret" => 0xc02,
                    "rdcycleh" => 0xc80,
                    _ => 0xc82,
                };
                r(Csrrs, self.x(&o[0])?, 0, 0, csr)
            }
            ("fmv.s" | "fneg.s" | "fabs.s", 2) => {
                let (rd, rs) = (self.f(&o[0])?, self.f(&o[1])?);
                let op = match m {
                    "fmv.s" => FsgnjS,
                    "fneg.s" => FsgnjnS,
                    _ => FsgnjxS,
                };
                r(op, rd, rs, rs, 0)
            }
            ("fence", 0) => r(Fence, 0, 0, 0, 0xff),
            ("fence", 2) => r(
                Fence,
                0,
                0,
                0,
                self.fence_set(&o[0])? << 4 | self.fence_set(&o[1])?,
            ),
            ("fence.tso", 0) => r(Fence, 0, 0, 0, 0x833),
            ("fence.i", 0) => r(FenceI, 0, 0, 0, 0),
            ("unimp", 0) => r(Csrrw, 0, 0, 0, 0xc00),
            ("vnot.v" | "vneg.v" | "vfneg.v" | "vfabs.v", 2 | 3) => self.vector_alias(o),
            ("vmsge.vi" | "vmslt.vi" | "vmsgeu.vi" | "vmsltu.vi", 3 | 4) => self.vector_alias(o),
            ("join", 0) => r(Join, 0, 0, 0, 0),
            ("endprg", 0) => r(Endprg, 0, 0, 0, 0),
            ("barrier", 0) => r(Barrier, 0, 0, 0, 0),
            ("barriersub", 0) => r(Barriersub, 0, 0, 0, 0),
            _ => return Ok(None),
        };
        res.map(Some)
    }

    /// Vector aliases with an optional trailing `v0.t`.
    fn vector_alias(&self, o: &[String]) -> Res<Vec<u32>> {
        use Op::*;
        let (o, vm) = match o.split_last() {
            Some((last, rest)) if last.eq_ignore_ascii_case("v0.t") => (rest, false),
            _ => (o, true),
        };
        let m = self.mnem;
        let cmp = m.starts_with("vms");
        if o.len() != 2 + cmp as usize {
            return Err(self.count(
                if cmp {
                    "vd, vs2, imm[, v0.t]"
                } else {
                    "vd, vs[, v0.t]"
                },
                o.len(),
            ));
        }
        let (vd, vs) = (self.v(&o[0])?, self.v(&o[1])?);
        let mut i = match m {
            "vnot.v" => inst(VxorVi, vd, 0, vs, -1),
            "vneg.v" => inst(VrsubVx, vd, 0, vs, 0),
            "vfneg.v" => inst(VfsgnjnVv, vd, vs, vs, 0),
            "vfabs.v" => inst(VfsgnjxVv, vd, vs, vs, 0),
            _ => {
                // vmsge.vi x, i ≡ vmsgt.vi x, i-1 (and likewise for the others); the unsigned
                // forms with i = 0 are "always true/false" compares of vs with itself.
                let imm = self.imm(&o[2])?;
                let unsigned = m.ends_with("u.vi");
                let ge = m.starts_with("vmsge");
                match (unsigned, ge, imm) {
                    (true, true, 0) => inst(VmseqVv, vd, vs, vs, 0),
                    (true, false, 0) => inst(VmsneVv, vd, vs, vs, 0),
                    _ => {
                        let op = [[VmsleVi, VmsgtVi], [VmsleuVi, VmsgtuVi]][unsigned as usize]
                            [ge as usize];
                        let i = inst(
                            op,
                            vd,
                            0,
                            vs,
                            imm.checked_sub(1)
                                .ok_or_else(|| self.out_of_range(imm as i64))?,
                        );
                        if op.desc().fmt.fields().imm.insert(i.imm).is_none() {
                            return Err(self.out_of_range(imm as i64));
                        }
                        i
                    }
                }
            }
        };
        i.vm = vm;
        self.one(i)
    }
}

// ---- expression tokens -------------------------------------------------------------------------

#[derive(Debug)]
enum Tok {
    Num(i64),
    Ident(String),
    /// `%hi` (true) or `%lo` (false).
    Reloc(bool),
    Op(char),
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
    depth: u32,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Option<&'a Tok> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }
    fn expect(&mut self, c: char) -> Option<()> {
        matches!(self.next(), Some(Tok::Op(x)) if *x == c).then_some(())
    }
    fn open(&mut self) -> Option<()> {
        self.expect('(')
    }
    fn close(&mut self) -> Option<()> {
        self.expect(')')
    }
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word_end = |mut j: usize| {
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b"_.$".contains(&b[j])) {
            j += 1;
        }
        j
    };
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b"+-()".contains(&c) {
            out.push(Tok::Op(c as char));
            i += 1;
        } else if c == b'%' {
            let j = word_end(i + 1);
            out.push(match &s[i + 1..j] {
                "hi" => Tok::Reloc(true),
                "lo" => Tok::Reloc(false),
                _ => return None,
            });
            i = j;
        } else if c.is_ascii_digit() {
            let j = word_end(i);
            let w = s[i..j].to_ascii_lowercase();
            let n = if let Some(h) = w.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok()?
            } else if let Some(bin) = w.strip_prefix("0b") {
                u64::from_str_radix(bin, 2).ok()?
            } else if w.bytes().all(|d| d.is_ascii_digit()) {
                w.parse().ok()?
            } else {
                return None;
            };
            out.push(Tok::Num(i64::try_from(n).ok()?));
            i = j;
        } else if c.is_ascii_alphabetic() || b"_.$".contains(&c) {
            let j = word_end(i);
            out.push(Tok::Ident(s[i..j].to_string()));
            i = j;
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::decode;

    fn one(line: &str) -> u32 {
        match assemble_line(line, 0x8000_0000) {
            Ok(w) if w.len() == 1 => w[0],
            other => panic!("{line}: {other:?}"),
        }
    }
    fn words(line: &str, pc: u32) -> Vec<u32> {
        assemble_line(line, pc).unwrap_or_else(|e| panic!("{line}: {e}"))
    }
    fn enc(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> u32 {
        encode(&inst(op, rd, rs1, rs2, imm)).unwrap()
    }
    fn err(src: &str) -> AsmError {
        assemble(src, 0x8000_0000).expect_err(src)
    }

    #[test]
    fn real_instructions_in_disassembler_syntax() {
        assert_eq!(one("auipc\tgp, 4"), 0x00004197);
        assert_eq!(one("vsetvli t4, t4, e32, m1, ta, ma"), 0x0d0efed7);
        assert_eq!(one("csrr t1, 2053"), 0x80502373);
        assert_eq!(one("csrr t1, wid"), 0x80502373);
        assert_eq!(one("csrrs t4, mstatus, t4"), 0x300eaef3);
        assert_eq!(one("vlw12.v v1, 0(v1)"), 0x0000a0fb);
        assert_eq!(one("vsw12.v v1, 0(v0)"), 0x0010607b);
        assert_eq!(one("regext zero, zero, 1"), 0x0010200b);
        assert_eq!(one("setrpc zero, t1, 100"), 0x0643305b);
        assert_eq!(one("barrier x0, x0, 1"), 0x0400c00b);
        assert_eq!(one("vmadd.vv v0, v2, v1"), 0xa6112057);
        assert_eq!(one("vsw.v v2, -4(v0)"), 0xfe202e2b);
        assert_eq!(one("vlw.v v1, -8(v0)"), 0x7f8020ab);
        assert_eq!(one("vmsne.vi v13, v12, 0"), 0x66c036d7);
        assert_eq!(one("amoadd.w.aqrl a0, a1, (a2)") >> 25 & 3, 3);
        assert_eq!(one("fadd.s a0, a1, a2, rtz") >> 12 & 7, 1);
        assert_eq!(
            one("fadd.s ft0, ft1, ft2"),
            enc(Op::FaddS, 0, 1, 2, 0) | 7 << 12
        );
        assert_eq!(one("vadd.vv v1, v2, v3, v0.t") & (1 << 25), 0);
        assert_eq!(one("VADD.VV V1, V2, V3"), one("vadd.vv v1, v2, v3"));
        assert_eq!(one("vadd12.vi v1, v2, 4095"), one("vadd12.vi v1, v2, -1"));
        assert_eq!(one("vfexp.v v1, v2"), one("vfexp v1, v2"));
        assert_eq!(one("join zero, zero, 3"), enc(Op::Join, 0, 0, 0, 6));
        assert_eq!(one("vfadd.vf v1, v2, fa0"), one("vfadd.vf v1, v2, a0"));
        assert_eq!(words("vbeq\tv2, v1, 0x8000028c", 0x800001c8), [0x0c20825b]);
    }

    #[test]
    fn every_pseudo_instruction() {
        use Op::*;
        let pc = 0x8000_0000;
        let cases: &[(&str, &[u32])] = &[
            ("nop", &[NOP]),
            ("li a0, 5", &[enc(Addi, 10, 0, 0, 5)]),
            ("li a0, -2048", &[enc(Addi, 10, 0, 0, -2048)]),
            ("li a0, 0x12345000", &[enc(Lui, 10, 0, 0, 0x12345000)]),
            (
                "li a0, 0x12345678",
                &[enc(Lui, 10, 0, 0, 0x12345000), enc(Addi, 10, 10, 0, 0x678)],
            ),
            ("li a0, 0xfffff800", &[enc(Addi, 10, 0, 0, -2048)]),
            (
                "li a0, 0x7ffff800",
                &[
                    enc(Lui, 10, 0, 0, -0x8000_0000),
                    enc(Addi, 10, 10, 0, -2048),
                ],
            ),
            ("li a0, 0xffffffff", &[enc(Addi, 10, 0, 0, -1)]),
            (
                "la a0, 0x80001234",
                &[enc(Auipc, 10, 0, 0, 0x1000), enc(Addi, 10, 10, 0, 0x234)],
            ),
            (
                "lla a0, 0x7ffffffc",
                &[enc(Auipc, 10, 0, 0, 0), enc(Addi, 10, 10, 0, -4)],
            ),
            (
                "call 0x80000800",
                &[enc(Auipc, 1, 0, 0, 0x1000), enc(Jalr, 1, 1, 0, -2048)],
            ),
            (
                "tail 0x80000010",
                &[enc(Auipc, 6, 0, 0, 0), enc(Jalr, 0, 6, 0, 0x10)],
            ),
            ("mv a0, a1", &[enc(Addi, 10, 11, 0, 0)]),
            ("not a0, a1", &[enc(Xori, 10, 11, 0, -1)]),
            ("neg a0, a1", &[enc(Sub, 10, 0, 11, 0)]),
            ("seqz a0, a1", &[enc(Sltiu, 10, 11, 0, 1)]),
            ("snez a0, a1", &[enc(Sltu, 10, 0, 11, 0)]),
            ("sltz a0, a1", &[enc(Slt, 10, 11, 0, 0)]),
            ("sgtz a0, a1", &[enc(Slt, 10, 0, 11, 0)]),
            ("beqz a0, 0x80000040", &[enc(Beq, 0, 10, 0, 64)]),
            ("bnez a0, 0x80000040", &[enc(Bne, 0, 10, 0, 64)]),
            ("bltz a0, 0x80000040", &[enc(Blt, 0, 10, 0, 64)]),
            ("bgez a0, 0x80000040", &[enc(Bge, 0, 10, 0, 64)]),
            ("blez a0, 0x80000040", &[enc(Bge, 0, 0, 10, 64)]),
            ("bgtz a0, 0x80000040", &[enc(Blt, 0, 0, 10, 64)]),
            ("bgt a0, a1, 0x80000040", &[enc(Blt, 0, 11, 10, 64)]),
            ("ble a0, a1, 0x80000040", &[enc(Bge, 0, 11, 10, 64)]),
            ("bgtu a0, a1, 0x80000040", &[enc(Bltu, 0, 11, 10, 64)]),
            ("bleu a0, a1, 0x80000040", &[enc(Bgeu, 0, 11, 10, 64)]),
            ("j 0x7ffffff0", &[enc(Jal, 0, 0, 0, -16)]),
            ("jal 0x80000040", &[enc(Jal, 1, 0, 0, 64)]),
            ("jal t0, 0x80000040", &[enc(Jal, 5, 0, 0, 64)]),
            ("jr a0", &[enc(Jalr, 0, 10, 0, 0)]),
            ("jalr a0", &[enc(Jalr, 1, 10, 0, 0)]),
            ("jalr t0, 8(a0)", &[enc(Jalr, 5, 10, 0, 8)]),
            ("ret", &[enc(Jalr, 0, 1, 0, 0)]),
            ("csrr a0, tid", &[enc(Csrrs, 10, 0, 0, 0x800)]),
            ("csrw rpc, a0", &[enc(Csrrw, 0, 10, 0, 0x80c)]),
            ("csrs mstatus, a0", &[enc(Csrrs, 0, 10, 0, 0x300)]),
            ("csrc 0x300, a0", &[enc(Csrrc, 0, 10, 0, 0x300)]),
            ("csrwi knl, 5", &[enc(Csrrwi, 0, 5, 0, 0x803)]),
            ("csrsi lds, 31", &[enc(Csrrsi, 0, 31, 0, 0x806)]),
            ("csrci pds, 0", &[enc(Csrrci, 0, 0, 0, 0x807)]),
            ("frflags a0", &[enc(Csrrs, 10, 0, 0, 1)]),
            ("rdcycle a0", &[enc(Csrrs, 10, 0, 0, 0xc00)]),
            ("fmv.s a0, a1", &[enc(FsgnjS, 10, 11, 11, 0)]),
            ("fneg.s fa0, fa1", &[enc(FsgnjnS, 10, 11, 11, 0)]),
            ("fabs.s a0, a1", &[enc(FsgnjxS, 10, 11, 11, 0)]),
            ("fence", &[enc(Fence, 0, 0, 0, 0xff)]),
            ("fence rw, w", &[enc(Fence, 0, 0, 0, 0x31)]),
            ("fence.tso", &[enc(Fence, 0, 0, 0, 0x833)]),
            ("fence.i", &[enc(FenceI, 0, 0, 0, 0)]),
            ("unimp", &[0xc0001073]),
            ("vnot.v v1, v2", &[enc(VxorVi, 1, 0, 2, -1) | 1 << 25]),
            (
                "vneg.v v1, v2, v0.t",
                &[enc(VrsubVx, 1, 0, 2, 0) & !(1 << 25)],
            ),
            ("vfneg.v v1, v2", &[enc(VfsgnjnVv, 1, 2, 2, 0) | 1 << 25]),
            ("vfabs.v v1, v2", &[enc(VfsgnjxVv, 1, 2, 2, 0) | 1 << 25]),
            (
                "vmsge.vi v1, v2, 16",
                &[enc(VmsgtVi, 1, 0, 2, 15) | 1 << 25],
            ),
            (
                "vmslt.vi v1, v2, -15",
                &[enc(VmsleVi, 1, 0, 2, -16) | 1 << 25],
            ),
            (
                "vmsgeu.vi v1, v2, 32",
                &[enc(VmsgtuVi, 1, 0, 2, 31) | 1 << 25],
            ),
            (
                "vmsltu.vi v1, v2, 1",
                &[enc(VmsleuVi, 1, 0, 2, 0) | 1 << 25],
            ),
            ("vmsgeu.vi v1, v2, 0", &[enc(VmseqVv, 1, 2, 2, 0) | 1 << 25]),
            ("vmsltu.vi v1, v2, 0", &[enc(VmsneVv, 1, 2, 2, 0) | 1 << 25]),
            ("vmv.v.v v1, v2", &[enc(VmvVV, 1, 2, 0, 0)]),
            ("vmv.v.x v1, a0", &[0x5e0540d7]),
            ("vmv.v.i v1, -3", &[enc(VmvVI, 1, 0, 0, -3)]),
            ("vbne v1, v2, 0x80000040", &[enc(Vbne, 0, 2, 1, 64)]),
            ("join", &[0x0000205b]),
            ("endprg", &[0x0000400b]),
            ("barrier", &[0x0400400b]),
            ("barriersub", &[0x0600400b]),
        ];
        for &(src, want) in cases {
            assert_eq!(words(src, pc), want, "{src}");
            for &w in want {
                assert!(decode(w).is_some(), "{src}: {w:#010x} must decode");
            }
        }
    }

    #[test]
    fn labels_directives_and_comments() {
        let src = "
            .text
            .globl main
            .equ N, 40          # a constant
            .set M, N + 2
        main:                   // entry
            li   a0, N ; comment
            li   a1, later      # forward reference: always lui+addi
            la   a2, data
            call func
        loop: bnez a0, loop
            vbeq v1, v2, done
            j    done
        func: ret
            .align 4
        data: .word 0x12345678, -1, M, data
        done: join
            lui  a0, %hi(data)
            addi a0, a0, %lo(data)
            lw   a1, %lo(data)(a0)
        .equ later, 0x10
        ";
        let p = assemble(src, 0x8000_0000).unwrap();
        let l = |n: &str| p.labels[n];
        assert_eq!(l("main"), 0x8000_0000);
        assert_eq!(l("loop"), 0x8000_0000 + 4 * 7);
        assert_eq!(l("func"), l("loop") + 12);
        assert_eq!(l("data") % 16, 0);
        assert!(!p.labels.contains_key("N"));
        let at = |a: u32| p.words[((a - p.base) / 4) as usize];
        assert_eq!(at(l("main")), enc(Op::Addi, 10, 0, 0, 40));
        assert_eq!(at(l("main") + 4), enc(Op::Lui, 11, 0, 0, 0));
        assert_eq!(at(l("main") + 8), enc(Op::Addi, 11, 11, 0, 0x10));
        assert_eq!(at(l("loop")), enc(Op::Bne, 0, 10, 0, 0));
        assert_eq!(
            at(l("loop") + 4),
            enc(Op::Vbeq, 0, 2, 1, (l("done") - l("loop") - 4) as i32)
        );
        assert_eq!(at(l("func") + 4), NOP, "padding is nop");
        assert_eq!(
            &p.words[((l("data") - p.base) / 4) as usize..][..4],
            &[0x12345678, u32::MAX, 42, l("data")]
        );
        assert_eq!(at(l("done")), 0x205b);
        // la/call resolve to the right absolute address.
        let (auipc, addi) = (at(l("main") + 12), at(l("main") + 16));
        let got = (l("main") + 12)
            .wrapping_add(auipc & 0xffff_f000)
            .wrapping_add((addi as i32 >> 20) as u32);
        assert_eq!(got, l("data"));
        let (hi, lo) = (at(l("done") + 4), at(l("done") + 8));
        assert_eq!(
            (hi & 0xffff_f000).wrapping_add((lo as i32 >> 20) as u32),
            l("data")
        );
        assert_eq!(p.words.len() as u32 * 4, l("done") + 16 - p.base);
    }

    #[test]
    fn errors_carry_the_line_number() {
        type Check = fn(&AsmError) -> bool;
        let cases: &[(&str, usize, Check)] = &[
            (
                "nop\nfrobnicate a0",
                2,
                |e| matches!(e, AsmError::UnknownMnemonic { mnemonic, .. } if mnemonic == "frobnicate"),
            ),
            (
                "nop\n\nadd a0, a1, q7",
                3,
                |e| matches!(e, AsmError::BadRegister { operand, .. } if operand == "q7"),
            ),
            ("vadd.vv v1, v2, a0", 1, |e| {
                matches!(e, AsmError::BadRegister { .. })
            }),
            (
                "add a0, a1, x40",
                1,
                |e| matches!(e, AsmError::RegisterNeedsRegext { operand, .. } if operand == "x40"),
            ),
            ("nop\nvadd.vv v1, v33, v2", 2, |e| {
                matches!(e, AsmError::RegisterNeedsRegext { .. })
            }),
            ("addi a0, a0, 2048", 1, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { value: 2048, .. })
            }),
            ("nop\nvadd.vi v1, v2, 16", 2, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { value: 16, .. })
            }),
            ("slli a0, a0, 32", 1, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { .. })
            }),
            ("li a0, 0x100000000", 1, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { .. })
            }),
            ("lui a0, 0x100000", 1, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { .. })
            }),
            ("csrwi tid, 32", 1, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { .. })
            }),
            (
                "nop\nnop\nj nowhere",
                3,
                |e| matches!(e, AsmError::UndefinedSymbol { name, .. } if name == "nowhere"),
            ),
            ("a:\nnop\na: nop", 3, |e| {
                matches!(e, AsmError::DuplicateSymbol { first_line: 1, .. })
            }),
            (".equ a, 1\na: nop", 2, |e| {
                matches!(e, AsmError::DuplicateSymbol { .. })
            }),
            ("beq a0, a1, 0x80002000", 1, |e| {
                matches!(e, AsmError::TargetOutOfRange { .. })
            }),
            ("beq a0, a1, 0x80000001", 1, |e| {
                matches!(e, AsmError::TargetOutOfRange { .. })
            }),
            ("nop\ncsrr a0, bogus", 2, |e| {
                matches!(e, AsmError::BadCsr { .. })
            }),
            ("add a0, a1", 1, |e| {
                matches!(e, AsmError::OperandCount { found: 2, .. })
            }),
            ("addi a0, a0, 1 +", 1, |e| {
                matches!(e, AsmError::BadImmediate { .. })
            }),
            ("addi a0, a0, 0xg", 1, |e| {
                matches!(e, AsmError::BadImmediate { .. })
            }),
            ("lw a0, 4(a1", 1, |e| matches!(e, AsmError::Syntax { .. })),
            ("add a0,, a1", 1, |e| matches!(e, AsmError::Syntax { .. })),
            ("nop\n.frob 1", 2, |e| {
                matches!(e, AsmError::UnknownDirective { .. })
            }),
            (".align 40", 1, |e| {
                matches!(e, AsmError::ImmediateOutOfRange { .. })
            }),
            ("vmerge.vvm v1, v2, v3, v1", 1, |e| {
                matches!(e, AsmError::Syntax { .. })
            }),
            ("fadd.s a0, a1, a2, up", 1, |e| {
                matches!(e, AsmError::Syntax { .. })
            }),
            ("vsetvli a0, a1, e33", 1, |e| {
                matches!(e, AsmError::Syntax { .. })
            }),
        ];
        for (src, line, ok) in cases {
            let e = err(src);
            assert_eq!(e.line(), *line, "{src}: {e}");
            assert!(ok(&e), "{src}: unexpected {e:?}");
            assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
        }
    }

    #[test]
    fn error_messages_are_clear() {
        assert_eq!(
            err("nop\nadd a0, a1, x40").to_string(),
            "line 2: register `x40` is above 31; write an explicit `regext` prefix"
        );
        assert_eq!(
            err("b: nop\nb: nop").to_string(),
            "line 2: symbol `b` already defined on line 1"
        );
        assert_eq!(
            err("add a0, a1").to_string(),
            "line 1: `add` expects `rd, rs1, rs2`, found 2 operand(s)"
        );
    }
}
