//! Memory classes: what memory a load or store may touch — which kernel argument's memory
//! object its address derives from, the warp's stack, the print buffer, static `__local` data,
//! read-only or writable program data. The assembler records them (`.mem NAME` before an
//! instruction, [`MemClass::parse`] names); `abi::mem_class` defines their meaning and carries
//! them in the ELF.

/// The memory an access may touch (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum MemClass {
    /// Any address.
    #[default]
    Unknown,
    /// The warp's own uniform stack.
    Stack,
    /// The print buffer.
    Print,
    /// The kernel's static `__local` data.
    StaticLocal,
    /// Read-only program data (`.rodata`).
    Rodata,
    /// The program window's writable data (crt0's `.data`/`.bss` words).
    ProgramData,
    /// The memory object of the pointer argument at this byte offset of the argument buffer
    /// (global, constant or `__local`).
    Arg(u32),
}

/// First code of [`MemClass::Arg`] (code = `ARG_CODE + offset`).
const ARG_CODE: u32 = 0x1_0000;

impl MemClass {
    /// The class's code in the table.
    pub fn code(self) -> u32 {
        match self {
            MemClass::Unknown => 0,
            MemClass::Stack => 1,
            MemClass::Print => 2,
            MemClass::StaticLocal => 3,
            MemClass::Rodata => 4,
            MemClass::ProgramData => 5,
            MemClass::Arg(k) => ARG_CODE + k,
        }
    }

    /// The class of a code (`None`: not a code [`MemClass::code`] gives).
    pub fn from_code(c: u32) -> Option<MemClass> {
        Some(match c {
            0 => MemClass::Unknown,
            1 => MemClass::Stack,
            2 => MemClass::Print,
            3 => MemClass::StaticLocal,
            4 => MemClass::Rodata,
            5 => MemClass::ProgramData,
            c if c >= ARG_CODE && c - ARG_CODE <= 0xffff => MemClass::Arg(c - ARG_CODE),
            _ => return None,
        })
    }

    /// The assembler's name of the class (`.mem NAME`): `unknown`, `stack`, `print`, `local`,
    /// `rodata`, `data`, `argN` (N the byte offset).
    pub fn name(self) -> String {
        match self {
            MemClass::Unknown => "unknown".into(),
            MemClass::Stack => "stack".into(),
            MemClass::Print => "print".into(),
            MemClass::StaticLocal => "local".into(),
            MemClass::Rodata => "rodata".into(),
            MemClass::ProgramData => "data".into(),
            MemClass::Arg(k) => format!("arg{k}"),
        }
    }

    /// The class named `s` ([`MemClass::name`]).
    pub fn parse(s: &str) -> Option<MemClass> {
        Some(match s {
            "unknown" => MemClass::Unknown,
            "stack" => MemClass::Stack,
            "print" => MemClass::Print,
            "local" => MemClass::StaticLocal,
            "rodata" => MemClass::Rodata,
            "data" => MemClass::ProgramData,
            _ => {
                let k: u32 = s.strip_prefix("arg")?.parse().ok()?;
                (k <= 0xffff).then_some(MemClass::Arg(k))?
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_a_name_and_a_code() {
        for c in [
            MemClass::Unknown,
            MemClass::Stack,
            MemClass::Print,
            MemClass::StaticLocal,
            MemClass::Rodata,
            MemClass::ProgramData,
            MemClass::Arg(0),
            MemClass::Arg(0xffff),
        ] {
            assert_eq!(MemClass::parse(&c.name()), Some(c));
            assert_eq!(MemClass::from_code(c.code()), Some(c));
        }
        assert_eq!(MemClass::parse("arg"), None);
        assert_eq!(MemClass::parse("arg70000"), None);
    }
}
