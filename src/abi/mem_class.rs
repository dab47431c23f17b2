//! What memory each load and store of a compiled kernel may touch: the *class* of its address
//! (which kernel argument it derives from, or the warp's stack, the print buffer, static
//! `__local` data…), carried in the ELF section [`SECTION`] (not allocated; official tools
//! ignore it, and binaries without it — the official compiler's — lose nothing but the
//! emulator's use of it).
//!
//! Contract:
//! * The compiler writes one row per memory instruction it knows the class of: the
//!   instruction's address and its [`MemClass`]. An instruction without a row is
//!   [`MemClass::Unknown`]: it may access any address.
//! * A class is a promise about *defined* behaviour: an access of class [`MemClass::Arg`]`(k)`
//!   addresses the memory object whose address the kernel argument at byte offset `k` holds
//!   (pointer arithmetic stays inside its object, as OpenCL C requires); [`MemClass::Stack`]
//!   the warp's own uniform stack (the compiler's scalar spills); [`MemClass::Print`] the
//!   print buffer; [`MemClass::StaticLocal`] the kernel's static `__local` data;
//!   [`MemClass::Rodata`] the program's read-only data; [`MemClass::ProgramData`] the program
//!   window's writable data (crt0's own words). Two accesses of different classes therefore
//!   never touch the same byte when the launch's pointer arguments name disjoint memory
//!   objects (the emulator's `intervals` relies on exactly that, and a launch checks it).
//! * Encoding: little-endian `u32` pairs `(pc, code)`, sorted by pc, no duplicate pc; codes
//!   as [`MemClass::code`]. A malformed section is an error for the caller to report (the
//!   program still runs: every access is then `Unknown`).

/// ELF section holding the table.
pub const SECTION: &str = ".ventus.memclass";

pub use crate::isa::mem_class::MemClass;

/// Why a table does not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemClassError {
    /// The section's size is not a multiple of 8.
    Size(usize),
    /// A row's code is no class.
    Code { pc: u32, code: u32 },
    /// Rows not in strictly increasing pc order.
    Order { pc: u32 },
}

impl std::fmt::Display for MemClassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Size(n) => write!(f, "{SECTION}: {n} bytes is not a whole number of rows"),
            Self::Code { pc, code } => write!(f, "{SECTION}: row at {pc:#010x} has unknown class {code:#x}"),
            Self::Order { pc } => write!(f, "{SECTION}: row at {pc:#010x} out of order"),
        }
    }
}
impl std::error::Error for MemClassError {}

/// The rows `(pc, class)` in pc order.
pub fn encode(rows: &[(u32, MemClass)]) -> Vec<u8> {
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|r| r.0);
    sorted.dedup_by_key(|r| r.0);
    sorted.iter().flat_map(|&(pc, c)| pc.to_le_bytes().into_iter().chain(c.code().to_le_bytes())).collect()
}

/// The rows of a section's bytes (see the module documentation).
pub fn decode(data: &[u8]) -> Result<Vec<(u32, MemClass)>, MemClassError> {
    if data.len() % 8 != 0 {
        return Err(MemClassError::Size(data.len()));
    }
    let mut rows: Vec<(u32, MemClass)> = Vec::with_capacity(data.len() / 8);
    for row in data.chunks_exact(8) {
        let pc = u32::from_le_bytes([row[0], row[1], row[2], row[3]]);
        let code = u32::from_le_bytes([row[4], row[5], row[6], row[7]]);
        let class = MemClass::from_code(code).ok_or(MemClassError::Code { pc, code })?;
        if rows.last().is_some_and(|&(p, _)| p >= pc) {
            return Err(MemClassError::Order { pc });
        }
        rows.push((pc, class));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_bad_tables_are_errors() {
        let rows = [(0x8000_0010, MemClass::Arg(8)), (0x8000_0004, MemClass::Stack), (0x8000_0020, MemClass::Print)];
        let mut sorted = rows.to_vec();
        sorted.sort();
        assert_eq!(decode(&encode(&rows)).unwrap(), sorted);
        assert_eq!(decode(&[0; 7]), Err(MemClassError::Size(7)));
        let mut bad = encode(&rows);
        bad[4..8].copy_from_slice(&9u32.to_le_bytes());
        assert!(matches!(decode(&bad), Err(MemClassError::Code { code: 9, .. })));
        let swapped: Vec<u8> = encode(&rows).chunks(8).rev().flatten().copied().collect();
        assert!(matches!(decode(&swapped), Err(MemClassError::Order { .. })));
    }
}
