//! Assembler directives, handled in pass 1.
//!
//! Contract: `.text` is ignored; `.globl`/`.global NAME[, NAME…]` record each name (first
//! declaration order, no duplicates) in `globals` for [`super::Program::globals`] — whether the
//! name is defined is the caller's business; `.equ`/`.set` define a symbol whose value
//! must be computable at that point; `.word` and the alignment directives return the body and
//! its size in words, fixed here so every later label is known before pass 2. Alignment pads
//! with `nop` up to 2^16 bytes. `.file N "NAME"` ([`file()`], read before comments are cut) and
//! `.loc N LINE [COL]` record source lines ([`super::SourceRow`]); `.mem CLASS` records the
//! memory class of the next word ([`crate::isa::mem_class::MemClass::parse`] names).

use super::ctx::Ctx;
use super::expr::{Sym, Symbols};
use super::lexer::is_ident;
use super::{AsmError, Body, Lines, Res};

/// Largest `.align` exponent accepted (64 KiB).
const MAX_ALIGN_LOG2: i64 = 16;

/// Pass-1 handling of a directive: `Some((body, size in words))` if it emits words.
pub(super) fn directive(
    syms: &mut Symbols,
    globals: &mut Vec<String>,
    lines: &mut Lines,
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
        ".loc" => {
            // GNU syntax separates the numbers with blanks; commas are accepted too.
            let parts: Vec<&str> = ops.iter().flat_map(|o| o.split_whitespace()).collect();
            if !(2..=3).contains(&parts.len()) {
                return Err(c.count("FILE LINE [COLUMN]", parts.len()));
            }
            let n = |k: usize| -> Res<u32> {
                let v = c.eval(parts[k])?;
                u32::try_from(v).map_err(|_| c.out_of_range(v))
            };
            let (number, src_line) = (n(0)?, n(1)?);
            let col = if parts.len() == 3 { n(2)? } else { 0 };
            lines
                .row(pc, number, src_line, col)
                .map_err(|()| c.syntax(format!("`.loc {number}` before `.file {number} \"NAME\"`")))?;
            Ok(None)
        }
        ".mem" if ops.len() == 1 => {
            let class = crate::isa::mem_class::MemClass::parse(&ops[0])
                .ok_or_else(|| c.syntax(format!("`{}` is not a memory class", ops[0])))?;
            lines.mem(pc, class);
            Ok(None)
        }
        ".word" | ".align" | ".p2align" | ".balign" | ".equ" | ".set" | ".globl" | ".global" | ".mem" => {
            let expected = match d {
                ".word" => "value[, value…]",
                ".globl" | ".global" => "NAME[, NAME…]",
                ".equ" | ".set" => "NAME, VALUE",
                ".mem" => "CLASS",
                _ => "N",
            };
            Err(c.count(expected, ops.len()))
        }
        _ => Err(AsmError::UnknownDirective { line, directive: d.to_string() }),
    }
}

/// `.file N "NAME"` (`args`: the text after `.file`).
pub(super) fn file(lines: &mut Lines, line: usize, args: &str) -> Res<()> {
    let syntax = |m: &str| AsmError::Syntax { line, message: m.to_string() };
    let args = args.trim_start();
    let end = args.find(|c: char| c.is_whitespace() || c == ',').unwrap_or(args.len());
    let number: u32 = args[..end].parse().map_err(|_| syntax("expected `.file N \"NAME\"`"))?;
    let rest = args[end..].trim_start().trim_start_matches(',').trim_start();
    let body = rest.strip_prefix('"').ok_or_else(|| syntax("expected a quoted file name"))?;
    let mut name = String::new();
    let mut chars = body.chars();
    loop {
        match chars.next() {
            None => return Err(syntax("unterminated file name")),
            Some('"') => break,
            Some('\\') => name.push(chars.next().ok_or_else(|| syntax("unterminated file name"))?),
            Some(ch) => name.push(ch),
        }
    }
    let tail = chars.as_str().trim();
    if !(tail.is_empty() || tail.starts_with('#') || tail.starts_with(';') || tail.starts_with("//")) {
        return Err(syntax("unexpected text after the file name"));
    }
    lines.define_file(number, &name);
    Ok(())
}

/// The `.file` directive text defining number `n` as `name` (quoted and escaped).
pub fn file_directive(n: u32, name: &str) -> String {
    let mut s = format!(".file {n} \"");
    for ch in name.chars() {
        if ch == '"' || ch == '\\' {
            s.push('\\');
        }
        s.push(ch);
    }
    s.push('"');
    s
}
