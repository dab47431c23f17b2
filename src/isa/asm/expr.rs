//! Symbol table and immediate expressions.
//!
//! Contract: an expression is terms (decimal, `0x`, `0b`, symbols, parenthesised expressions,
//! `%hi(expr)`, `%lo(expr)`, unary `+`/`-`) joined by `+`/`-`, evaluated in `i64`; overflow,
//! nesting deeper than 64 or trailing tokens give [`AsmError::BadImmediate`], an unknown name
//! [`AsmError::UndefinedSymbol`]. `%hi`/`%lo` follow [`hi_lo`], so `(%hi(v) << 12) + %lo(v) == v`
//! (mod 2^32).

use super::ctx::Ctx;
use super::{AsmError, Res};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy)]
pub(super) enum Sym {
    Label(u32),
    Equ(i64),
}

/// Labels and `.equ`/`.set` symbols; a name is defined at most once.
#[derive(Default)]
pub(super) struct Symbols {
    /// name → (value, line of definition)
    pub(super) map: HashMap<String, (Sym, usize)>,
}

impl Symbols {
    pub(super) fn define(&mut self, line: usize, name: &str, s: Sym) -> Res<()> {
        if let Some(&(_, first_line)) = self.map.get(name) {
            return Err(AsmError::DuplicateSymbol { line, name: name.to_string(), first_line });
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

/// Splits a value into an upper part (bits 31:12, as placed by `lui`/`auipc`) and a signed
/// 12-bit lower part such that `hi + lo == v` (mod 2^32).
pub(super) fn hi_lo(v: u32) -> (u32, i32) {
    let hi = v.wrapping_add(0x800) & 0xffff_f000;
    (hi, v.wrapping_sub(hi) as i32)
}

impl Ctx<'_> {
    /// Evaluates an expression operand.
    pub(super) fn eval(&self, t: &str) -> Res<i64> {
        let toks = tokenize(t).ok_or_else(|| self.bad_imm(t))?;
        let mut p = Parser { toks: &toks, pos: 0, depth: 0 };
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
            v = if c == '+' { v.checked_add(r) } else { v.checked_sub(r) }.ok_or_else(|| self.bad_imm(t))?;
        }
        Ok(v)
    }
    fn unary(&self, p: &mut Parser, t: &str) -> Res<i64> {
        p.depth += 1;
        if p.depth > 64 {
            return Err(self.bad_imm(t));
        }
        let r = match p.next() {
            Some(Tok::Op('-')) => self.unary(p, t)?.checked_neg().ok_or_else(|| self.bad_imm(t)),
            Some(Tok::Op('+')) => self.unary(p, t),
            Some(Tok::Num(n)) => Ok(*n),
            Some(Tok::Ident(name)) => {
                self.syms.get(name).ok_or_else(|| AsmError::UndefinedSymbol { line: self.line, name: name.clone() })
            }
            Some(Tok::Op('(')) => self.group(p, t),
            Some(&Tok::Reloc(hi)) => {
                p.expect('(').ok_or_else(|| self.bad_imm(t))?;
                let (h, l) = hi_lo(self.group(p, t)? as u32);
                Ok(if hi { (h >> 12) as i64 } else { l as i64 })
            }
            _ => Err(self.bad_imm(t)),
        };
        p.depth -= 1;
        r
    }
    /// The rest of a parenthesised expression, after its `(`.
    fn group(&self, p: &mut Parser, t: &str) -> Res<i64> {
        let v = self.expr(p, t)?;
        p.expect(')').ok_or_else(|| self.bad_imm(t))?;
        Ok(v)
    }
}

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
