//! OpenCL C `printf`: the call-site table, the device record format and the host-side formatter.
//!
//! Contract between the compiler, the device and the driver:
//! * The compiler lowers every `printf` call site into a [`PrintfSite`] (format string and one
//!   [`PrintfArg`] per argument, described from its SPIR-V type) and stores all sites of a program as
//!   a [`PrintfTable`] ([`PrintfTable::encode`], a versioned little-endian format starting with
//!   `VPF1`) in the ELF section [`PRINTF_SECTION`]. Call-site id = index in the table + 1.
//! * At run time each call writes one *record* into the device print buffer: a header word
//!   [`record_header`]`(len, id)` (`len` = total record bytes including the header, id 0 means "not
//!   yet committed"), followed by the argument bytes. Both fields are 16 bits wide, so a usable table
//!   has at most `0xFFFF` sites and records of at most `0xFFFF` bytes; [`PrintfTable::decode`]
//!   rejects anything else.
//! * Argument bytes, back to back from offset 0, every argument 4-byte aligned: an integer or float
//!   element of at most 4 bytes occupies a 4-byte slot holding its raw bits zero-extended (a `char`
//!   -1 is `0x000000FF`, a `half` its 16 raw bits); an 8-byte element occupies 8 bytes, low word
//!   first. A vector is `lanes` slots, element 0 first (3-element vectors have exactly 3 slots). A
//!   pointer is 4 bytes; a literal string ([`PrintfArg::Str`]) lives in the table and occupies
//!   nothing in the record.
//! * The host formats a record with [`format_record`] (OpenCL C 3.0 §6.15.14 semantics, output
//!   byte-identical to the host C library's `printf` for the same values) or, when the id has no
//!   table entry, with [`format_unknown`]. Neither ever panics, whatever the bytes; see
//!   [`format_record`] for how mismatched, missing and truncated arguments are printed.

mod format;
mod table;

pub use format::{format_record, format_unknown, vararg_types, MAX_FIELD};
pub mod legacy;

use std::fmt;

/// Name of the ELF section holding the encoded [`PrintfTable`].
pub const PRINTF_SECTION: &str = ".ventus.printf";

/// Largest record (header included) a header word can describe.
pub const MAX_RECORD_BYTES: u32 = 0xFFFF;

/// Bytes of the overflow scratch area the host allocates right after the usable print buffer: a
/// record that does not fit in the buffer is written there (and dropped). It bounds the largest
/// record a call site may have, so the compiler rejects sites with `record_bytes()` above it
/// (it is below [`MAX_RECORD_BYTES`], so such a record's length always fits its header).
pub const PRINT_SCRATCH_BYTES: u32 = 4096;

/// Largest number of call sites (ids are 16 bits and 0 is reserved).
pub const MAX_SITES: u32 = 0xFFFF;

/// Call-site id of a print-buffer "skip to the end" record, written by a printf whose record
/// started inside the buffer but did not fit (see `device::print`). Compiled programs use ids
/// below it.
pub const PRINT_SKIP_ID: u32 = 0xFFFF;

/// One argument of a printf call site, described from its SPIR-V type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrintfArg {
    /// Integer scalar (lanes == 1) or vector (lanes 2,3,4,8,16) with `bytes` = 1, 2, 4 or 8 per
    /// element.
    Int { bytes: u8, lanes: u8 },
    /// Float scalar/vector, `bytes` = 2 (half), 4 (float) or 8 (double) per element.
    Float { bytes: u8, lanes: u8 },
    /// A pointer (32-bit device address), for `%p`.
    Ptr,
    /// A literal constant string (for `%s`), stored in the table, occupies 0 bytes in the record.
    Str(Vec<u8>),
}

impl PrintfArg {
    /// Bytes this argument occupies in a record: `lanes * slot` with slot = 8 for 8-byte elements
    /// and 4 otherwise; 4 for [`PrintfArg::Ptr`]; 0 for [`PrintfArg::Str`].
    pub fn record_bytes(&self) -> u32 {
        match self {
            Self::Int { bytes, lanes } | Self::Float { bytes, lanes } => u32::from(*lanes) * slot_bytes(*bytes),
            Self::Ptr => 4,
            Self::Str(_) => 0,
        }
    }
}

/// Record slot size of one element of `bytes` bytes.
pub(crate) fn slot_bytes(bytes: u8) -> u32 {
    if bytes == 8 {
        8
    } else {
        4
    }
}

/// One `printf` call site: its format string and argument descriptors.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PrintfSite {
    /// The format string, without the terminating NUL.
    pub format: Vec<u8>,
    /// The arguments after the format string, in order.
    pub args: Vec<PrintfArg>,
}

impl PrintfSite {
    /// Total record size: the 4-byte header plus every argument's
    /// [`PrintfArg::record_bytes`] (saturating, so absurd sites cannot overflow).
    pub fn record_bytes(&self) -> u32 {
        self.args.iter().fold(4u32, |acc, a| acc.saturating_add(a.record_bytes()))
    }
}

/// All printf call sites of a program; call-site id = index + 1.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PrintfTable {
    /// The call sites, id 1 first.
    pub sites: Vec<PrintfSite>,
}

impl PrintfTable {
    /// The site with call-site id `id` (1-based); `None` for 0 or an id past the end.
    pub fn site(&self, id: u32) -> Option<&PrintfSite> {
        let index = usize::try_from(id.checked_sub(1)?).ok()?;
        self.sites.get(index)
    }

    /// Appends `site` and returns its call-site id, or `None` (table unchanged) if the table already
    /// holds [`MAX_SITES`] sites.
    pub fn push(&mut self, site: PrintfSite) -> Option<u32> {
        let id = u32::try_from(self.sites.len()).ok()?.checked_add(1)?;
        if id > MAX_SITES {
            return None;
        }
        self.sites.push(site);
        Some(id)
    }
}

/// The print buffer's layout, the one definition both sides use: the compiler's device-side
/// writer (`compiler::spirv::printf`) and the runtime's drain (`device::print`). The buffer's
/// address and usable size are the metadata words `launch::md::PRINT_ADDR`/`PRINT_SIZE`.
pub mod buffer {
    /// Word 0: the write offset in bytes, bumped by `amoadd.w` to reserve a record.
    pub const WRITE_OFFSET: u32 = 0;
    /// Word 1: records lost because the buffer was full.
    pub const LOST_RECORDS: u32 = 4;
    /// Offset of the first record (the write offset's initial value).
    pub const FIRST_RECORD: u32 = 8;
    /// A record's arguments start after its header word.
    pub const RECORD_ARGS: u32 = 4;
    /// The header's length field starts at this bit ([`super::record_header`]).
    pub const HEADER_LEN_SHIFT: u32 = 16;
}

/// Record header word: `(len << 16) | id`, both truncated to 16 bits. `id` 0 = "not yet
/// committed".
pub fn record_header(len: u32, id: u32) -> u32 {
    ((len & 0xFFFF) << buffer::HEADER_LEN_SHIFT) | (id & 0xFFFF)
}

/// Splits a record header word into `(len, id)`.
pub fn split_header(word: u32) -> (u32, u32) {
    (word >> buffer::HEADER_LEN_SHIFT, word & 0xFFFF)
}

/// Why an encoded [`PrintfTable`] was rejected by [`PrintfTable::decode`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrintfError {
    /// The bytes do not start with the `VPF1` magic (wrong format or unknown version).
    BadMagic,
    /// The encoding ends before a field that starts at byte `offset`.
    Truncated { offset: usize },
    /// Bytes remain after the last site, starting at `offset`.
    TrailingBytes { offset: usize },
    /// More than [`MAX_SITES`] sites.
    TooManySites { count: u32 },
    /// Argument `arg` of site `site` (0-based index) has an unknown kind tag.
    BadArgKind { site: usize, arg: usize, tag: u8 },
    /// Argument `arg` of site `site` has an element size not allowed for its kind.
    BadElementSize { site: usize, arg: usize, bytes: u8 },
    /// Argument `arg` of site `site` has a lane count other than 1, 2, 3, 4, 8 or 16.
    BadLanes { site: usize, arg: usize, lanes: u8 },
    /// Site `site`'s record would exceed [`MAX_RECORD_BYTES`].
    RecordTooLong { site: usize, bytes: u32 },
}

impl fmt::Display for PrintfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadMagic => write!(f, "printf table: missing VPF1 magic"),
            Self::Truncated { offset } => write!(f, "printf table: truncated at byte {offset}"),
            Self::TrailingBytes { offset } => {
                write!(f, "printf table: trailing bytes at byte {offset}")
            }
            Self::TooManySites { count } => {
                write!(f, "printf table: {count} call sites (at most {MAX_SITES})")
            }
            Self::BadArgKind { site, arg, tag } => {
                write!(f, "printf table: site {site} argument {arg}: unknown kind {tag}")
            }
            Self::BadElementSize { site, arg, bytes } => {
                write!(f, "printf table: site {site} argument {arg}: bad element size {bytes}")
            }
            Self::BadLanes { site, arg, lanes } => {
                write!(f, "printf table: site {site} argument {arg}: bad lane count {lanes}")
            }
            Self::RecordTooLong { site, bytes } => {
                write!(f, "printf table: site {site}: record of {bytes} bytes (at most {MAX_RECORD_BYTES})")
            }
        }
    }
}

impl std::error::Error for PrintfError {}
