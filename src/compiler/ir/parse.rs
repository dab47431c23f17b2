//! Parser of the IR text form printed by [`super::print::print`]: text → [`Func`].
//!
//! `parse(print(f)) == f` for every function (value numbers, block numbers, unused value types
//! and the callee table are all explicit), so `print(parse(print(f))) == print(f)`. Errors carry
//! the line and column and say what was expected.
//!
//! # Grammar
//!
//! One function per text; line ends separate items, `;` starts a comment, blank lines are free.
//!
//! ```text
//! func      := header NL { callees NL | files NL | unused NL } block { block }
//! header    := ("func" | "kernel") global { attr }
//! attr      := ("values" | "local" | "private") "=" int
//! callees   := "callees" { global }
//! files     := "files" { global }
//! unused    := "unused" value ":" type { "," value ":" type }
//! block     := label ":" NL { inst NL } term [ loc ] NL
//! inst      := [ value ":" type "=" ] op [ loc ]
//! loc       := "!" "loc" int ":" int ":" int
//! term      := "br" label | "condbr" value "," label "," label | "ret" | "unreachable"
//! op        := "const" (int | float) | "undef" | "laneid" | "printnotify" | "trap" | "fence"
//!            | ("argword" | "metaword" | "localaddr" | "constaddr" | "privateaddr") offset
//!            | "bin." binop value "," value      | "un." unop value
//!            | "cmp." cmpop value "," value      | "conv." convop value
//!            | "select" value "," value "," value | "fma" value "," value "," value
//!            | "load" value | "store" value "," value   (pointer, then stored value)
//!            | "atomic." atomicop value "," value        (pointer, operand)
//!            | "cmpxchg" value "," value "," value       (pointer, expected, desired)
//!            | "cmpxchg64" value "," value "," value "," value "," value
//!                                         (pointer, expected lo, hi, desired lo, hi)
//!            | "cmpxchg64hi" value | "copy" value | "csr" int
//!            | "workitem." workitem int  (dimension)
//!            | "barrier" ("global" | "local")
//!            | "phi" { "[" label ":" value "]" [","] }
//!            | "call" (global | "#" int) [ value { "," value } ]
//!            | "callres" value "," int | "param" int | "return" [ value { "," value } ]
//! type      := "i1" | "i8" | "i16" | "i32" | "i64" | "f32"
//!            | "ptr.global" | "ptr.constant" | "ptr.local" | "ptr.private" | "ptr.generic"
//! value     := "%" digits            label := "b" digits
//! global    := "@" ident | "@" quoted-string
//! offset    := [ "+" ] int
//! int       := [ "-" | "+" ] ( digits | "0x" hexdigits )
//! float     := decimal with "." or exponent, "inf", "nan" (for `f32` results only)
//! ```
//!
//! Operation names are the lower-cased enum variants (`bin.mulhiu`, `cmp.lts`, `conv.ftos`,
//! `atomic.xchg`, `workitem.globalid`; see [`super::print::names`]).
//!
//! Meaning of the parts the instructions do not show:
//! * `values=N` is the number of value slots ([`Func::types`]); when omitted it is one more
//!   than the largest value number used. `local` / `private` default to 0.
//! * Blocks are numbered in order: the k-th block must be labelled `bk` (the entry is `b0`).
//! * `callees` lists [`Func::callees`] in index order; `call @name` refers to that list (a
//!   name not yet listed is appended), `call #k` to index k directly.
//! * `files` lists [`Func::files`], the source files of the instructions' locations; the
//!   optional `!loc F:L:C` suffix of an instruction (or terminator) is its [`SrcLoc`] (file
//!   index, line, column; without it the instruction has none).
//! * `unused` gives the types of value numbers no instruction defines; unlisted ones are `i32`.
//! * A negative integer constant is taken modulo 2^width of the result type; a float constant
//!   is the bit pattern of the `f32`.
//!
//! The parser checks syntax, block references and that a value has one type; the rest (single
//! definitions, defined operands, φ edges) is [`super::verify`]'s job.

use super::lex::{lex, Spanned, Tok};
use super::print::names;
use super::*;
use std::collections::HashMap;

/// A syntax error at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub msg: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl std::error::Error for ParseError {}

/// Parses one function.
pub fn parse(text: &str) -> Result<Func, ParseError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, at: 0, types: HashMap::new(), max_value: None, block_refs: Vec::new() };
    p.func()
}

struct Parser {
    toks: Vec<Spanned>,
    at: usize,
    /// Type of each value number seen in a definition or the `unused` line.
    types: HashMap<u32, Ty>,
    max_value: Option<u32>,
    /// Every block reference and where it was written.
    block_refs: Vec<(u32, u32, u32)>,
}

type R<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at.min(self.toks.len() - 1)].tok
    }

    fn here(&self) -> &Spanned {
        &self.toks[self.at.min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Spanned {
        let t = self.here().clone();
        if self.at < self.toks.len() - 1 {
            self.at += 1;
        }
        t
    }

    fn err_at<T>(&self, s: &Spanned, msg: String) -> R<T> {
        Err(ParseError { line: s.line, col: s.col, msg })
    }

    /// "expected X, found Y" at the current token.
    fn expected<T>(&self, what: &str) -> R<T> {
        let h = self.here();
        self.err_at(h, format!("expected {what}, found {}", h.tok.describe()))
    }

    fn skip_blank_lines(&mut self) {
        while *self.peek() == Tok::Eol {
            self.bump();
        }
    }

    fn eol(&mut self) -> R<()> {
        match self.peek() {
            Tok::Eol => {
                self.bump();
                self.skip_blank_lines();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => self.expected("end of line"),
        }
    }

    fn punct(&mut self, c: char) -> R<()> {
        if *self.peek() == Tok::Punct(c) {
            self.bump();
            Ok(())
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    fn ident(&mut self, what: &str) -> R<(String, Spanned)> {
        match self.peek().clone() {
            Tok::Ident(s) => Ok((s, self.bump())),
            _ => self.expected(what),
        }
    }

    fn value(&mut self) -> R<Value> {
        match *self.peek() {
            Tok::Value(v) => {
                self.bump();
                self.max_value = Some(self.max_value.map_or(v, |m| m.max(v)));
                Ok(Value(v))
            }
            _ => self.expected("a value (`%N`)"),
        }
    }

    /// `value { "," value }`, possibly empty (up to the end of the line).
    fn value_list(&mut self) -> R<Vec<Value>> {
        let mut vs = Vec::new();
        if !matches!(self.peek(), Tok::Value(_)) {
            return Ok(vs);
        }
        vs.push(self.value()?);
        while *self.peek() == Tok::Punct(',') {
            self.bump();
            vs.push(self.value()?);
        }
        Ok(vs)
    }

    fn int(&mut self, what: &str) -> R<i128> {
        match *self.peek() {
            Tok::Int(i) => {
                self.bump();
                Ok(i)
            }
            _ => self.expected(what),
        }
    }

    /// A non-negative integer that fits in `T`.
    fn uint<T: TryFrom<i128>>(&mut self, what: &str) -> R<T> {
        let s = self.here().clone();
        let i = self.int(what)?;
        T::try_from(i).or_else(|_| self.err_at(&s, format!("{what} out of range: {i}")))
    }

    fn label(&mut self) -> R<BlockId> {
        let s = self.here().clone();
        match &s.tok {
            Tok::Ident(l) if l.starts_with('b') && l.len() > 1 && l[1..].bytes().all(|c| c.is_ascii_digit()) => {
                let n: u32 = l[1..].parse().or_else(|_| self.err_at(&s, format!("block number out of range: {l}")))?;
                self.bump();
                self.block_refs.push((n, s.line, s.col));
                Ok(BlockId(n))
            }
            _ => self.expected("a block label (`bN`)"),
        }
    }

    fn ty(&mut self) -> R<Ty> {
        let s = self.here().clone();
        match &s.tok {
            Tok::Ident(t) => match names::find_ty(t) {
                Some(ty) => {
                    self.bump();
                    Ok(ty)
                }
                None => {
                    self.err_at(&s, format!("expected a type (i1, i8, i16, i32, i64, f32, ptr.<space>), found `{t}`"))
                }
            },
            _ => self.expected("a type"),
        }
    }

    /// Records the type of value `v` (a value has one type).
    fn set_type(&mut self, v: Value, t: Ty, at: &Spanned) -> R<()> {
        match self.types.insert(v.0, t) {
            Some(old) if old != t => self
                .err_at(at, format!("value %{} has type {} here but {} elsewhere", v.0, names::ty(t), names::ty(old))),
            _ => Ok(()),
        }
    }

    fn func(&mut self) -> R<Func> {
        self.skip_blank_lines();
        let (kw, s) = self.ident("`func`")?;
        if kw != "func" && kw != "kernel" {
            return self.err_at(&s, format!("expected `func`, found `{kw}`"));
        }
        let name = match self.peek().clone() {
            Tok::Global(g) => {
                self.bump();
                g
            }
            _ => return self.expected("the function name (`@name`)"),
        };
        let mut f = Func::new(&name);
        f.blocks.clear();
        let mut values: Option<(u32, Spanned)> = None;
        while let Tok::Ident(_) = self.peek() {
            let (attr, s) = self.ident("an attribute")?;
            self.punct('=')?;
            match attr.as_str() {
                "values" => values = Some((self.uint("a value count")?, s)),
                "local" => f.local_bytes = self.uint("a byte count")?,
                "private" => f.private_bytes = self.uint("a byte count")?,
                _ => return self.err_at(&s, format!("expected `values`, `local` or `private`, found `{attr}`")),
            }
        }
        self.eol()?;
        self.preamble(&mut f)?;
        while *self.peek() != Tok::Eof {
            self.block(&mut f)?;
        }
        if f.blocks.is_empty() {
            return self.expected("a block (`b0:`)");
        }
        for &(b, line, col) in &self.block_refs {
            if b as usize >= f.blocks.len() {
                return Err(ParseError { line, col, msg: format!("reference to undefined block b{b}") });
            }
        }
        let needed = self.max_value.map_or(0, |m| m + 1);
        let n = match values {
            Some((n, s)) if n < needed => {
                return self.err_at(&s, format!("values={n} but value %{} is used", needed - 1));
            }
            Some((n, _)) => n,
            None => needed,
        };
        f.types = (0..n).map(|v| self.types.get(&v).copied().unwrap_or(Ty::I32)).collect();
        Ok(f)
    }

    /// The `callees`, `files` and `unused` lines.
    fn preamble(&mut self, f: &mut Func) -> R<()> {
        loop {
            match self.peek() {
                Tok::Ident(s) if s == "callees" => {
                    self.bump();
                    while let Tok::Global(g) = self.peek().clone() {
                        self.bump();
                        f.callees.push(g);
                    }
                    self.eol()?;
                }
                Tok::Ident(s) if s == "files" => {
                    self.bump();
                    while let Tok::Global(g) = self.peek().clone() {
                        self.bump();
                        f.files.push(g);
                    }
                    self.eol()?;
                }
                Tok::Ident(s) if s == "unused" => {
                    self.bump();
                    loop {
                        let s = self.here().clone();
                        let v = self.value()?;
                        self.punct(':')?;
                        let t = self.ty()?;
                        self.set_type(v, t, &s)?;
                        if *self.peek() != Tok::Punct(',') {
                            break;
                        }
                        self.bump();
                    }
                    self.eol()?;
                }
                _ => return Ok(()),
            }
        }
    }

    fn block(&mut self, f: &mut Func) -> R<()> {
        let s = self.here().clone();
        let want = f.blocks.len() as u32;
        let b = self.label().or_else(|_| self.expected(&format!("block label `b{want}:`")))?;
        self.block_refs.pop();
        if b.0 != want {
            return self.err_at(&s, format!("expected block label `b{want}` (blocks are numbered in order)"));
        }
        self.punct(':')?;
        self.eol()?;
        let mut insts = Vec::new();
        loop {
            if let Some(term) = self.term()? {
                let term_loc = self.loc(f)?;
                self.eol()?;
                f.blocks.push(Block { insts, term, term_loc });
                return Ok(());
            }
            if *self.peek() == Tok::Eof {
                return self.expected(&format!("a terminator (`br`, `condbr`, `ret`, `unreachable`) ending b{want}"));
            }
            insts.push(self.inst(f)?);
            self.eol()?;
        }
    }

    fn term(&mut self) -> R<Option<Term>> {
        let Tok::Ident(kw) = self.peek().clone() else { return Ok(None) };
        let t = match kw.as_str() {
            "br" => {
                self.bump();
                Term::Br(self.label()?)
            }
            "condbr" => {
                self.bump();
                let cond = self.value()?;
                self.punct(',')?;
                let then_ = self.label()?;
                self.punct(',')?;
                Term::CondBr { cond, then_, else_: self.label()? }
            }
            "ret" => {
                self.bump();
                Term::Ret
            }
            "unreachable" => {
                self.bump();
                Term::Unreachable
            }
            _ => return Ok(None),
        };
        Ok(Some(t))
    }

    fn inst(&mut self, f: &mut Func) -> R<Inst> {
        let mut result = None;
        if let (Tok::Value(_), Some(Tok::Punct(':'))) = (self.peek(), self.toks.get(self.at + 1).map(|s| &s.tok)) {
            let s = self.here().clone();
            let r = self.value()?;
            self.punct(':')?;
            let t = self.ty()?;
            self.set_type(r, t, &s)?;
            self.punct('=')?;
            result = Some((r, t));
        }
        let op = self.op(f, result.map(|(_, t)| t))?;
        let loc = self.loc(f)?;
        Ok(Inst { result: result.map(|(r, _)| r), op, loc })
    }

    /// An optional `!loc file:line:col` suffix (the file an index into the `files` line).
    fn loc(&mut self, f: &Func) -> R<SrcLoc> {
        if *self.peek() != Tok::Punct('!') {
            return Ok(SrcLoc::NONE);
        }
        self.bump();
        let (kw, s) = self.ident("`loc`")?;
        if kw != "loc" {
            return self.err_at(&s, format!("expected `loc`, found `{kw}`"));
        }
        let s = self.here().clone();
        let file = self.uint("a file index")?;
        if file as usize >= f.files.len() {
            return self.err_at(&s, format!("file index {file} without an entry in the `files` line"));
        }
        self.punct(':')?;
        let line = self.uint("a line number")?;
        self.punct(':')?;
        let col = self.uint("a column")?;
        Ok(SrcLoc { file, line, col })
    }

    fn two(&mut self) -> R<(Value, Value)> {
        let a = self.value()?;
        self.punct(',')?;
        Ok((a, self.value()?))
    }

    fn three(&mut self) -> R<(Value, Value, Value)> {
        let (a, b) = self.two()?;
        self.punct(',')?;
        Ok((a, b, self.value()?))
    }

    /// `[+]N` byte offset.
    fn offset(&mut self) -> R<u32> {
        self.uint("a byte offset (`+N`)")
    }

    fn op(&mut self, f: &mut Func, ty: Option<Ty>) -> R<Op> {
        let (mn, s) = self.ident("an operation")?;
        let (family, variant) = mn.split_once('.').unwrap_or((mn.as_str(), ""));
        let bad_variant = |p: &Self, kinds: &str| p.err_at(&s, format!("unknown {kinds} `{variant}` in `{mn}`"));
        Ok(match family {
            "const" => self.constant(ty)?,
            "undef" => Op::Undef,
            "laneid" => Op::LaneId,
            "printnotify" => Op::PrintNotify,
            "trap" => Op::Trap,
            "fence" => Op::Fence,
            "argword" => Op::ArgWord { offset: self.offset()? },
            "metaword" => Op::MetaWord { offset: self.offset()? },
            "localaddr" => Op::LocalAddr { offset: self.offset()? },
            "constaddr" => Op::ConstAddr { offset: self.offset()? },
            "privateaddr" => Op::PrivateAddr { offset: self.offset()? },
            "bin" => {
                let Some(o) = names::find(names::BINOPS, variant) else { return bad_variant(self, "binary operation") };
                let (a, b) = self.two()?;
                Op::Bin(o, a, b)
            }
            "un" => {
                let Some(o) = names::find(names::UNOPS, variant) else { return bad_variant(self, "unary operation") };
                Op::Un(o, self.value()?)
            }
            "cmp" => {
                let Some(o) = names::find(names::CMPOPS, variant) else { return bad_variant(self, "comparison") };
                let (a, b) = self.two()?;
                Op::Cmp(o, a, b)
            }
            "conv" => {
                let Some(o) = names::find(names::CONVOPS, variant) else { return bad_variant(self, "conversion") };
                Op::Conv(o, self.value()?)
            }
            "atomic" => {
                let Some(op) = names::find(names::ATOMICOPS, variant) else {
                    return bad_variant(self, "atomic operation");
                };
                let (ptr, value) = self.two()?;
                Op::Atomic { op, ptr, value }
            }
            "workitem" => {
                let Some(w) = names::find(names::WORKITEMS, variant) else {
                    return bad_variant(self, "work-item function");
                };
                Op::WorkItem(w, self.uint("a dimension")?)
            }
            "select" => {
                let (c, a, b) = self.three()?;
                Op::Select(c, a, b)
            }
            "fma" => {
                let (a, b, c) = self.three()?;
                Op::Fma(a, b, c)
            }
            "load" => Op::Load(self.value()?),
            "store" => {
                let (ptr, value) = self.two()?;
                Op::Store { ptr, value }
            }
            "cmpxchg" => {
                let (ptr, expected, desired) = self.three()?;
                Op::CmpXchg { ptr, expected, desired }
            }
            "cmpxchg64" => {
                let (ptr, e0, e1) = self.three()?;
                self.punct(',')?;
                let (d0, d1) = self.two()?;
                Op::CmpXchg64 { ptr, expected: [e0, e1], desired: [d0, d1] }
            }
            "cmpxchg64hi" => Op::CmpXchg64Hi(self.value()?),
            "copy" => Op::Copy(self.value()?),
            "csr" => Op::Csr(self.uint("a CSR number")?),
            "barrier" => match self.ident("`global` or `local`")? {
                (g, _) if g == "global" => Op::Barrier { global: true },
                (l, _) if l == "local" => Op::Barrier { global: false },
                (other, s) => return self.err_at(&s, format!("expected `global` or `local`, found `{other}`")),
            },
            "phi" => self.phi()?,
            "call" => {
                let sub = match self.peek().clone() {
                    Tok::Global(g) => {
                        self.bump();
                        f.callee(&g)
                    }
                    Tok::Punct('#') => {
                        self.bump();
                        self.uint("a callee index")?
                    }
                    _ => return self.expected("the callee (`@name` or `#k`)"),
                };
                Op::Call { sub, args: self.value_list()? }
            }
            "callres" => {
                let c = self.value()?;
                self.punct(',')?;
                Op::CallRes(c, self.uint("a result word index")?)
            }
            "param" => Op::Param(self.uint("an argument word index")?),
            "return" => Op::Return(self.value_list()?),
            _ => return self.err_at(&s, format!("unknown operation `{mn}`")),
        })
    }

    fn constant(&mut self, ty: Option<Ty>) -> R<Op> {
        let s = self.here().clone();
        match self.peek().clone() {
            Tok::Int(i) => {
                self.bump();
                let bits = ty.map_or(64, |t| t.bits());
                if i < 0 {
                    if i < -(1i128 << (bits - 1)) {
                        return self.err_at(&s, format!("constant {i} does not fit in {bits} bits"));
                    }
                    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                    Ok(Op::Const(i as i64 as u64 & m))
                } else {
                    u64::try_from(i).map(Op::Const).or_else(|_| self.err_at(&s, format!("constant {i} is too large")))
                }
            }
            Tok::Float(text) => {
                self.bump();
                if ty != Some(Ty::F32) {
                    return self.err_at(&s, "a float constant needs an `f32` result".into());
                }
                match text.parse::<f32>() {
                    Ok(x) => Ok(Op::Const(x.to_bits() as u64)),
                    Err(_) => self.err_at(&s, format!("malformed float `{text}`")),
                }
            }
            _ => self.expected("an integer or float constant"),
        }
    }

    fn phi(&mut self) -> R<Op> {
        let mut ins = Vec::new();
        while *self.peek() == Tok::Punct('[') {
            self.bump();
            let b = self.label()?;
            self.punct(':')?;
            let v = self.value()?;
            self.punct(']')?;
            ins.push((b, v));
            if *self.peek() == Tok::Punct(',') {
                self.bump();
            }
        }
        if !matches!(self.peek(), Tok::Eol | Tok::Eof | Tok::Punct('!')) {
            return self.expected("`[bN: %V]` or end of line");
        }
        Ok(Op::Phi(ins))
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
