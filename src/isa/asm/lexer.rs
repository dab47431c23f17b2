//! Line-level lexing: comments, labels, operand lists and the optional `v0.t` mask operand.
//!
//! Contract: pure text functions over one source line; operands come back trimmed and
//! non-empty, split at top-level commas only (`%lo(x)(a0)` stays one operand).

use super::{AsmError, Res};

/// Cuts the line at the first `#`, `//` or `;`.
pub(super) fn strip_comment(s: &str) -> &str {
    let end = [s.find('#'), s.find("//"), s.find(';')].into_iter().flatten().min();
    &s[..end.unwrap_or(s.len())]
}

/// A symbol name: a letter, `_`, `.` or `$`, then also digits.
pub(super) fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || "_.$".contains(c))
        && cs.all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c))
}

/// `name: rest` → `(name, rest)` when `name` is an identifier.
pub(super) fn split_label(s: &str) -> Option<(&str, &str)> {
    let (name, rest) = s.split_once(':')?;
    is_ident(name.trim_end()).then(|| (name.trim_end(), rest))
}

/// Splits at top-level commas (parentheses may nest).
pub(super) fn split_operands(s: &str, line: usize) -> Res<Vec<String>> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let syntax = |m: &str| AsmError::Syntax { line, message: m.to_string() };
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.checked_sub(1).ok_or_else(|| syntax("unbalanced `)`"))?,
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

/// Strips a trailing `v0.t` operand: `(other operands, vm)` with `vm == false` when it was there.
pub(super) fn split_mask(ops: &[String]) -> (&[String], bool) {
    match ops.split_last() {
        Some((last, rest)) if last.eq_ignore_ascii_case("v0.t") => (rest, false),
        _ => (ops, true),
    }
}
