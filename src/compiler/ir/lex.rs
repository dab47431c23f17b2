//! Tokens of the IR text form ([`super::parse`]): identifiers, `%N` values, `@name` globals,
//! numbers, punctuation and line ends, each with its 1-based line and column. `;` starts a
//! comment that runs to the end of the line.

use super::parse::ParseError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_.$]*`: keywords, mnemonics, types, block labels.
    Ident(String),
    /// `%N`.
    Value(u32),
    /// `@name` or `@"quoted name"`.
    Global(String),
    /// An integer literal (`42`, `-3`, `+4`, `0x1f`).
    Int(i128),
    /// A float literal (`1.5`, `-2e3`, `inf`), kept as text.
    Float(String),
    /// One of `: = , [ ] # !`.
    Punct(char),
    /// End of a line.
    Eol,
    Eof,
}

impl Tok {
    /// For error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Value(v) => format!("`%{v}`"),
            Tok::Global(g) => format!("`@{g}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Float(s) => format!("`{s}`"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Eol => "end of line".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
}

/// Splits `text` into tokens.
pub fn lex(text: &str) -> Result<Vec<Spanned>, ParseError> {
    let mut out = Vec::new();
    for (li, line) in text.split('\n').enumerate() {
        let line_no = li as u32 + 1;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let col = i as u32 + 1;
            let err = |msg: String| ParseError { line: line_no, col, msg };
            let start = i;
            let tok = if c == ';' {
                break;
            } else if c.is_whitespace() {
                i += 1;
                continue;
            } else if is_ident_start(c) {
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
                let s: String = chars[start..i].iter().collect();
                if s == "inf" || s == "nan" {
                    Tok::Float(s)
                } else {
                    Tok::Ident(s)
                }
            } else if c == '%' {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let s: String = chars[start + 1..i].iter().collect();
                Tok::Value(s.parse().map_err(|_| err("expected a value number after `%`".into()))?)
            } else if c == '@' {
                i += 1;
                if chars.get(i) == Some(&'"') {
                    let (name, end) = quoted(&chars, i).ok_or_else(|| err("unterminated quoted name".into()))?;
                    i = end;
                    Tok::Global(name)
                } else {
                    while i < chars.len() && is_ident_char(chars[i]) {
                        i += 1;
                    }
                    if i == start + 1 {
                        return Err(err("expected a name after `@`".into()));
                    }
                    Tok::Global(chars[start + 1..i].iter().collect())
                }
            } else if c.is_ascii_digit() || ((c == '-' || c == '+') && i + 1 < chars.len()) {
                let (tok, end) =
                    number(&chars, i).ok_or_else(|| err(format!("malformed number starting with `{c}`")))?;
                i = end;
                tok
            } else if matches!(c, ':' | '=' | ',' | '[' | ']' | '#' | '!') {
                i += 1;
                Tok::Punct(c)
            } else {
                return Err(err(format!("unexpected character `{c}`")));
            };
            out.push(Spanned { tok, line: line_no, col });
        }
        out.push(Spanned { tok: Tok::Eol, line: line_no, col: chars.len() as u32 + 1 });
    }
    let last = out.last().map_or(1, |s| s.line);
    out.push(Spanned { tok: Tok::Eof, line: last, col: 1 });
    Ok(out)
}

/// A `"…"` string with `\"` and `\\` escapes starting at `chars[i]`; returns it and the index
/// past the closing quote.
fn quoted(chars: &[char], mut i: usize) -> Option<(String, usize)> {
    let mut s = String::new();
    i += 1;
    while i < chars.len() {
        match chars[i] {
            '"' => return Some((s, i + 1)),
            '\\' => {
                s.push(*chars.get(i + 1)?);
                i += 2;
            }
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    None
}

/// An integer or float literal starting at `chars[i]`; returns it and the index past it.
fn number(chars: &[char], start: usize) -> Option<(Tok, usize)> {
    let mut i = start;
    let neg = chars[i] == '-';
    if matches!(chars[i], '-' | '+') {
        i += 1;
    }
    let rest: String = chars[i..].iter().take(3).collect();
    if rest == "inf" || rest == "nan" {
        return Some((Tok::Float(chars[start..i + 3].iter().collect()), i + 3));
    }
    if chars.get(i) == Some(&'0') && matches!(chars.get(i + 1), Some('x' | 'X')) {
        let d0 = i + 2;
        let mut j = d0;
        while j < chars.len() && (chars[j].is_ascii_hexdigit() || chars[j] == '_') {
            j += 1;
        }
        let digits: String = chars[d0..j].iter().filter(|c| **c != '_').collect();
        let v = i128::from_str_radix(&digits, 16).ok()?;
        return Some((Tok::Int(if neg { -v } else { v }), j));
    }
    let d0 = i;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    if i == d0 {
        return None;
    }
    let mut float = false;
    if chars.get(i) == Some(&'.') {
        float = true;
        i += 1;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        float = true;
        i += 1;
        if matches!(chars.get(i), Some('-' | '+')) {
            i += 1;
        }
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
    }
    let text: String = chars[start..i].iter().collect();
    if float {
        return Some((Tok::Float(text), i));
    }
    Some((Tok::Int(text.parse().ok()?), i))
}
