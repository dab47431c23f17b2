//! Source lines of compiled code: the table that maps a pc to the OpenCL C `file:line:column`
//! it was compiled from, carried in the ELF section [`SECTION`] (not allocated: official tools
//! and loaders ignore it; binaries from the official Ventus LLVM have none).
//!
//! Contract:
//! * **Producer.** Our compiler emits `.file`/`.loc` directives with the assembly
//!   ([`crate::isa::asm`]); the linker ([`super::crt0`]) turns the assembler's rows into a
//!   [`LineTable`] and [`super::elf_writer`] writes it. A row applies from its pc up to the next
//!   row's pc (the last row to the end of the text); code before the first row (crt0) and rows
//!   with line 0 have no location. Rows are sorted by strictly increasing pc.
//! * **Files** are named as the compiler reports them to the user: clang's file name, with the
//!   source string of `clCreateProgramWithSource` called `<source>` (as in the build log).
//! * **Source text.** For files that exist nowhere on disk (`<source>`) the table may carry the
//!   text of the lines its rows name ([`LineTable::texts`]), so a disassembly of the binary can
//!   show them; other files are read from disk by whoever wants their text.
//! * **Consumers** ([`LineTable::decode`], [`super::elf::VentusElf::line_table`]) validate
//!   everything and never panic: a malformed table is an error value, which the emulator
//!   ignores (faults are then reported without a source line).
//!
//! Section format (little-endian): `b"VLN1"`; `u32` file count, each file `u32` byte length +
//! UTF-8 name; `u32` row count, each row 12 bytes: `u32 pc`, `u16 file` (index), `u16 column`
//! (0 = unknown, saturated at 65535), `u32 line` (0 = no location); `u32` text count, each
//! `u16 file`, `u32 line`, `u32` byte length + UTF-8 text of that line (sorted by file, then
//! line, no duplicates). No trailing bytes.

use super::bytes::{put_str, put_u16, put_u32, ReadError, Reader};
use std::fmt;

/// ELF section holding the encoded table.
pub const SECTION: &str = ".ventus.lines";

const MAGIC: &[u8; 4] = b"VLN1";

/// The name under which the source string of `clCreateProgramWithSource` appears (clang calls
/// it `<stdin>`; the build log says `<source>` too).
pub const SOURCE_STRING_NAME: &str = "<source>";

/// A resolved source location.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub col: u32,
}

impl fmt::Display for SourceLoc {
    /// `file:line`, or `file:line:col` when the column is known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.col != 0 {
            write!(f, ":{}", self.col)?;
        }
        Ok(())
    }
}

/// One row: from `pc` on, code comes from `line` (0 = no location) of `files[file]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub pc: u32,
    pub file: u16,
    pub col: u16,
    pub line: u32,
}

/// The decoded table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineTable {
    pub files: Vec<String>,
    /// Sorted by strictly increasing `pc`.
    pub rows: Vec<Row>,
    /// `(file, line, text)`, sorted by `(file, line)`, unique.
    pub texts: Vec<(u16, u32, String)>,
}

/// Why a section cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinesError {
    BadMagic,
    Truncated,
    /// A name or text that is not UTF-8.
    BadText,
    /// Rows out of order, or a file index without a file.
    BadRow,
    TrailingBytes,
}

impl fmt::Display for LinesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            LinesError::BadMagic => "bad magic",
            LinesError::Truncated => "truncated",
            LinesError::BadText => "a name or text is not UTF-8",
            LinesError::BadRow => "rows out of order or naming a missing file",
            LinesError::TrailingBytes => "trailing bytes",
        };
        write!(f, "line table: {what}")
    }
}
impl std::error::Error for LinesError {}

impl LineTable {
    /// Appends a row at `pc` (≥ every earlier row's pc): a row at the pc of the previous one
    /// replaces it, a row repeating the previous location is dropped.
    pub fn push(&mut self, row: Row) {
        if let Some(last) = self.rows.last_mut() {
            if last.pc == row.pc {
                *last = row;
                let n = self.rows.len();
                if n >= 2 && same_place(&self.rows[n - 2], &row) {
                    self.rows.pop();
                }
                return;
            }
            if same_place(last, &row) {
                return;
            }
        } else if row.line == 0 {
            // Nothing before the first row has a location either.
            return;
        }
        self.rows.push(row);
    }

    /// The row that covers `pc`, if any (also a row with line 0).
    pub fn row(&self, pc: u32) -> Option<&Row> {
        let k = self.rows.partition_point(|r| r.pc <= pc);
        k.checked_sub(1).map(|k| &self.rows[k])
    }

    /// The source location of the code at `pc`.
    pub fn lookup(&self, pc: u32) -> Option<SourceLoc> {
        self.resolve(self.row(pc)?)
    }

    /// The location a row names (`None` for line 0 or a missing file).
    pub fn resolve(&self, r: &Row) -> Option<SourceLoc> {
        if r.line == 0 {
            return None;
        }
        let file = self.files.get(usize::from(r.file))?.clone();
        Some(SourceLoc { file, line: r.line, col: u32::from(r.col) })
    }

    /// The embedded text of `line` of file `file`, if the table carries it.
    pub fn text(&self, file: u16, line: u32) -> Option<&str> {
        let k = self.texts.binary_search_by(|(f, l, _)| (*f, *l).cmp(&(file, line))).ok()?;
        Some(self.texts[k].2.as_str())
    }

    /// Embeds, for file `file`, the text of every line a row names, taken from `source`.
    pub fn embed_source(&mut self, file: u16, source: &str) {
        let mut wanted: Vec<u32> = self.rows.iter().filter(|r| r.file == file && r.line != 0).map(|r| r.line).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let lines: Vec<&str> = source.lines().collect();
        for l in wanted {
            if let Some(t) = lines.get(l as usize - 1) {
                self.texts.push((file, l, t.to_string()));
            }
        }
        self.texts.sort_by_key(|(f, l, _)| (*f, *l));
        self.texts.dedup_by_key(|(f, l, _)| (*f, *l));
    }

    /// Encodes the `VLN1` section.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        put_u32(&mut out, self.files.len() as u32);
        for f in &self.files {
            put_str(&mut out, f);
        }
        put_u32(&mut out, self.rows.len() as u32);
        for r in &self.rows {
            put_u32(&mut out, r.pc);
            put_u16(&mut out, r.file);
            put_u16(&mut out, r.col);
            put_u32(&mut out, r.line);
        }
        put_u32(&mut out, self.texts.len() as u32);
        for (f, l, t) in &self.texts {
            put_u16(&mut out, *f);
            put_u32(&mut out, *l);
            put_str(&mut out, t);
        }
        out
    }

    /// Decodes and validates a `VLN1` section (never panics, allocates no more than the input
    /// justifies).
    pub fn decode(bytes: &[u8]) -> Result<LineTable, LinesError> {
        let mut r = Reader::new(bytes.strip_prefix(MAGIC).ok_or(LinesError::BadMagic)?);
        let mut t = LineTable::default();
        let n = r.count(4)?;
        for _ in 0..n {
            t.files.push(r.string()?);
        }
        let n = r.count(12)?;
        t.rows.reserve(n);
        for _ in 0..n {
            let (pc, file, col, line) = (r.u32()?, r.u16()?, r.u16()?, r.u32()?);
            let ordered = t.rows.last().is_none_or(|p| p.pc < pc);
            if !ordered || (line != 0 && usize::from(file) >= t.files.len()) {
                return Err(LinesError::BadRow);
            }
            t.rows.push(Row { pc, file, col, line });
        }
        let n = r.count(10)?;
        for _ in 0..n {
            let (file, line) = (r.u16()?, r.u32()?);
            let text = r.string()?;
            let ordered = t.texts.last().is_none_or(|(f, l, _)| (*f, *l) < (file, line));
            if !ordered || usize::from(file) >= t.files.len() {
                return Err(LinesError::BadRow);
            }
            t.texts.push((file, line, text));
        }
        if !r.rest().is_empty() {
            return Err(LinesError::TrailingBytes);
        }
        Ok(t)
    }
}

fn same_place(a: &Row, b: &Row) -> bool {
    (a.line == 0 && b.line == 0) || (a.file, a.line, a.col) == (b.file, b.line, b.col)
}

impl From<ReadError> for LinesError {
    fn from(e: ReadError) -> LinesError {
        match e {
            ReadError::Truncated => LinesError::Truncated,
            ReadError::BadText => LinesError::BadText,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pc: u32, file: u16, line: u32, col: u16) -> Row {
        Row { pc, file, col, line }
    }

    fn sample() -> LineTable {
        let mut t = LineTable { files: vec!["<source>".into(), "inc/h.h".into()], ..LineTable::default() };
        t.push(row(0x8000_0000, 0, 0, 0)); // no location before the first row: dropped
        t.push(row(0x8000_0100, 0, 3, 5));
        t.push(row(0x8000_0108, 0, 3, 5)); // same place: dropped
        t.push(row(0x8000_0110, 1, 7, 0));
        t.push(row(0x8000_0110, 0, 4, 2)); // same pc: replaces
        t.push(row(0x8000_0120, 0, 0, 0)); // end of located code
        t.push(row(0x8000_0130, 0, 9, 1));
        t.embed_source(0, "a\nb\nline three\nline four\n5\n6\n7\n8\nline nine");
        t
    }

    #[test]
    fn push_lookup_and_display() {
        let t = sample();
        assert_eq!(t.rows.len(), 4, "{:?}", t.rows);
        assert_eq!(t.lookup(0x8000_0000), None, "before the first row");
        assert_eq!(t.lookup(0x8000_0100).unwrap().to_string(), "<source>:3:5");
        assert_eq!(t.lookup(0x8000_010c).unwrap().to_string(), "<source>:3:5");
        assert_eq!(t.lookup(0x8000_0110).unwrap().to_string(), "<source>:4:2");
        assert_eq!(t.lookup(0x8000_0124), None, "a row with line 0");
        assert_eq!(t.lookup(0x8fff_fffc).unwrap().to_string(), "<source>:9:1", "the last row runs on");
        let l = SourceLoc { file: "k.cl".into(), line: 17, col: 0 };
        assert_eq!(l.to_string(), "k.cl:17");
        assert_eq!(t.text(0, 3), Some("line three"));
        assert_eq!(t.text(0, 9), Some("line nine"));
        assert_eq!(t.text(0, 5), None, "only lines that rows name");
        assert_eq!(t.text(1, 7), None);
    }

    #[test]
    fn round_trip_and_garbage_never_panics() {
        let t = sample();
        let bytes = t.encode();
        assert_eq!(LineTable::decode(&bytes), Ok(t.clone()));
        for n in 0..bytes.len() {
            assert!(LineTable::decode(&bytes[..n]).is_err(), "prefix {n}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(LineTable::decode(&long), Err(LinesError::TrailingBytes));
        assert_eq!(LineTable::decode(b"VLN2"), Err(LinesError::BadMagic));
        // Rows out of order, a missing file, a huge count.
        let bad = LineTable { rows: vec![row(8, 0, 1, 0), row(4, 0, 2, 0)], ..t.clone() };
        assert_eq!(LineTable::decode(&bad.encode()), Err(LinesError::BadRow));
        let bad = LineTable { rows: vec![row(8, 5, 1, 0)], ..t.clone() };
        assert_eq!(LineTable::decode(&bad.encode()), Err(LinesError::BadRow));
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(LineTable::decode(&huge), Err(LinesError::Truncated));
        // Every single-byte corruption decodes or fails, without panicking.
        for k in 0..bytes.len() {
            for x in [0x00, 0x7f, 0xff] {
                let mut b = bytes.clone();
                b[k] ^= x;
                let _ = LineTable::decode(&b);
            }
        }
        assert_eq!(LineTable::decode(&LineTable::default().encode()), Ok(LineTable::default()));
    }
}
