//! [`AsmError`]: every way assembly can fail. Contract: each variant carries the 1-based
//! source line ([`AsmError::line`]) and `Display` prefixes the message with `line N: `.

use std::fmt;

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
            OperandCount { mnemonic, expected, found, .. } => {
                write!(f, "`{mnemonic}` expects `{expected}`, found {found} operand(s)")
            }
            BadRegister { operand, expected, .. } => {
                write!(f, "`{operand}` is not {expected}")
            }
            RegisterNeedsRegext { operand, .. } => {
                write!(f, "register `{operand}` is above 31; write an explicit `regext` prefix")
            }
            BadCsr { operand, .. } => write!(f, "unknown CSR `{operand}`"),
            BadImmediate { operand, .. } => write!(f, "bad immediate or expression `{operand}`"),
            ImmediateOutOfRange { mnemonic, value, .. } => {
                write!(f, "immediate {value} out of range for `{mnemonic}`")
            }
            TargetOutOfRange { mnemonic, target, offset, .. } => {
                write!(f, "target {target:#x} (offset {offset}) out of range or misaligned for `{mnemonic}`")
            }
            UndefinedSymbol { name, .. } => write!(f, "undefined symbol `{name}`"),
            DuplicateSymbol { name, first_line, .. } => {
                write!(f, "symbol `{name}` already defined on line {first_line}")
            }
        }
    }
}

impl std::error::Error for AsmError {}
