//! Assembler directives, handled in pass 1.
//!
//! Contract: `.text` is ignored; `.globl`/`.global NAME[, NAME…]` record each name (first
//! declaration order, no duplicates) in `globals` for [`super::Program::globals`] — whether the
//! name is defined is the caller's business; `.equ`/`.set` define a symbol whose value
//! must be computable at that point; `.word` and the alignment directives return the body and
//! its size in words, fixed here so every later label is known before pass 2. Alignment pads
//! with `nop` up to 2^16 bytes.

use super::ctx::Ctx;
use super::expr::{Sym, Symbols};
use super::lexer::is_ident;
use super::{AsmError, Body, Res};

/// Largest `.align` exponent accepted (64 KiB).
const MAX_ALIGN_LOG2: i64 = 16;

/// Pass-1 handling of a directive: `Some((body, size in words))` if it emits words.
pub(super) fn directive(
    syms: &mut Symbols,
    globals: &mut Vec<String>,
    line: usize,
    pc: u32,
    d: &str,
    ops: &[String],
) -> Res<Option<(Body, u32)>> {
    let c = Ctx::new(line, pc, syms, d);
    match d {
        ".text" => Ok(None),
        ".globl" | ".global" if !ops.is_empty() => {
            for name in ops {
                if !is_ident(name) {
                    return Err(c.syntax(format!("`{name}` is not a symbol name")));
                }
                if !globals.contains(name) {
                    globals.push(name.clone());
                }
            }
            Ok(None)
        }
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
                return Err(c.syntax(format!("`{}` is not a symbol name", ops[0])));
            }
            let v = c.eval(&ops[1])?;
            syms.define(line, &ops[0], Sym::Equ(v))?;
            Ok(None)
        }
        ".word" | ".align" | ".p2align" | ".balign" | ".equ" | ".set" | ".globl" | ".global" => {
            let expected = match d {
                ".word" => "value[, value…]",
                ".globl" | ".global" => "NAME[, NAME…]",
                ".equ" | ".set" => "NAME, VALUE",
                _ => "N",
            };
            Err(c.count(expected, ops.len()))
        }
        _ => Err(AsmError::UnknownDirective { line, directive: d.to_string() }),
    }
}
