//! Reader for kernel ELF files produced by the Ventus LLVM fork (driver-abi §6).
//!
//! Contract:
//! * Accepted input: `ELFCLASS32`, little-endian, `EM_RISCV` (243), `ET_EXEC`, with at least one
//!   `PT_LOAD` program header. Every `PT_LOAD` must have its file range inside the file,
//!   `p_filesz <= p_memsz`, and `p_vaddr + p_memsz <= 0xFFFF_FFFF` (the end address must be
//!   representable as a `u32`). Anything else is an [`ElfError`]; malformed input never panics.
//! * Loading follows the official loaders (§6.3): program headers only. [`Segment::data`] holds the
//!   `p_filesz` bytes; the loader zero-fills up to [`Segment::mem_size`].
//! * Section headers and the symbol table are optional (a stripped file parses with no symbols),
//!   but if present they must be well formed (header table, name table and symbol table inside the
//!   file). Section contents are copied for every section except `SHT_NULL`; `SHT_NOBITS`
//!   sections have empty contents.
//! * Resource records (§6.4) are read from sections named `.ventus.resource.<kernel>`: 8 bytes =
//!   generation 1 (4 × u16: vgpr, sgpr, lds, pds), 56 bytes with version word 3 = generation 3
//!   (u32 version, u32 flags, 6 × u64; `u64::MAX` = unknown → `None`). Records of any other shape,
//!   and the nameless single-section `.rodata.ventus.resource` form, are ignored: a missing or
//!   unrecognised record is never an error (the driver falls back to the official defaults).

use super::elf_writer::RESOURCE_PREFIX;
use goblin::container::{Container, Ctx, Endian};
use goblin::elf::header::{EM_RISCV, ET_EXEC};
use goblin::elf::program_header::{PF_W, PF_X, PT_LOAD};
use goblin::elf::section_header::{SHF_EXECINSTR, SHN_UNDEF, SHT_NOBITS, SHT_NULL, SHT_SYMTAB};
use goblin::elf::sym::{STB_GLOBAL, STT_FILE, STT_FUNC, STT_SECTION};
use goblin::elf::{Elf, ProgramHeader, SectionHeader, Sym, Symtab};
use std::fmt;

/// Size of the ELF32 file header.
const EHDR32_SIZE: usize = 52;
/// Size of one ELF32 program header.
const PHDR32_SIZE: usize = 32;
/// Size of one ELF32 section header.
const SHDR32_SIZE: usize = 40;
/// Size of one ELF32 symbol.
const SYM32_SIZE: usize = 16;

/// One `PT_LOAD` program header with its file bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Device address the segment is loaded at.
    pub vaddr: u32,
    /// The `p_filesz` bytes from the file.
    pub data: Vec<u8>,
    /// `p_memsz`: bytes reserved at `vaddr` (the tail after `data` is zero).
    pub mem_size: u32,
    /// `PF_X` is set.
    pub executable: bool,
    /// `PF_W` is set.
    pub writable: bool,
}

/// One named, defined symbol from `.symtab` (file and section symbols are omitted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Symbol name.
    pub name: String,
    /// `st_value`.
    pub addr: u32,
    /// `st_size`.
    pub size: u32,
    /// `STT_FUNC`.
    pub is_func: bool,
    /// `STB_GLOBAL` (weak symbols are not global).
    pub is_global: bool,
    /// Defined in a section with `SHF_EXECINSTR` (e.g. `.text`).
    pub in_text: bool,
}

/// Per-kernel resource usage record (§6.4). `None` = not recorded / unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResourceUsage {
    /// Vector registers used.
    pub vgprs: Option<u64>,
    /// Scalar registers used.
    pub sgprs: Option<u64>,
    /// Static local-memory bytes.
    pub lds_bytes: Option<u64>,
    /// Static private-memory bytes.
    pub pds_bytes: Option<u64>,
    /// Local-memory stack bytes (generation 3 only).
    pub lds_stack: Option<u64>,
    /// Private-memory stack bytes (generation 3 only).
    pub pds_stack: Option<u64>,
}

/// A parsed Ventus kernel ELF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VentusElf {
    /// `e_entry` (crt0 `_start`, normally `0x80000000`).
    pub entry: u32,
    /// `PT_LOAD` segments in program-header order.
    pub segments: Vec<Segment>,
    /// Named defined symbols in symbol-table order.
    pub symbols: Vec<Symbol>,
    /// `(kernel name, record)` for every recognised `.ventus.resource.<kernel>` section.
    pub resources: Vec<(String, ResourceUsage)>,
    /// `(name, sh_addr, contents)` of every non-null section, in section-header order.
    pub sections: Vec<(String, u32, Vec<u8>)>,
}

/// Why an ELF file was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElfError {
    /// Too short for an ELF header or wrong magic.
    NotElf,
    /// `EI_CLASS` is not `ELFCLASS32`.
    Not32Bit,
    /// `EI_DATA` is not `ELFDATA2LSB`.
    NotLittleEndian,
    /// `e_machine` is not `EM_RISCV`.
    NotRiscv(u16),
    /// `e_type` is not `ET_EXEC`.
    NotExecutable(u16),
    /// No `PT_LOAD` program header.
    NoLoadSegment,
    /// `PT_LOAD` number `index`: file range outside the file.
    SegmentOutOfRange { index: usize },
    /// `PT_LOAD` number `index`: `p_vaddr + p_memsz` does not fit in 32 bits.
    SegmentAddressOverflow { index: usize },
    /// `PT_LOAD` number `index`: `p_filesz > p_memsz`.
    SegmentFileSizeTooLarge { index: usize },
    /// Section `index`: contents outside the file.
    SectionOutOfRange { index: usize },
    /// Another structural problem; the text names it.
    Malformed(&'static str),
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotElf => write!(f, "not an ELF file"),
            Self::Not32Bit => write!(f, "not a 32-bit ELF file"),
            Self::NotLittleEndian => write!(f, "not a little-endian ELF file"),
            Self::NotRiscv(m) => write!(f, "not a RISC-V ELF file (e_machine {m})"),
            Self::NotExecutable(t) => write!(f, "not an executable ELF file (e_type {t})"),
            Self::NoLoadSegment => write!(f, "ELF file has no PT_LOAD segment"),
            Self::SegmentOutOfRange { index } => {
                write!(f, "PT_LOAD segment {index} lies outside the file")
            }
            Self::SegmentAddressOverflow { index } => {
                write!(f, "PT_LOAD segment {index} extends past the 32-bit address space")
            }
            Self::SegmentFileSizeTooLarge { index } => {
                write!(f, "PT_LOAD segment {index} has p_filesz > p_memsz")
            }
            Self::SectionOutOfRange { index } => {
                write!(f, "section {index} lies outside the file")
            }
            Self::Malformed(what) => write!(f, "malformed ELF file: {what}"),
        }
    }
}

impl std::error::Error for ElfError {}

impl VentusElf {
    /// Parses and validates a Ventus kernel ELF (see the module documentation).
    pub fn parse(bytes: &[u8]) -> Result<VentusElf, ElfError> {
        check_ident(bytes)?;
        let header = Elf::parse_header(bytes).map_err(|_| ElfError::NotElf)?;
        if header.e_machine != EM_RISCV {
            return Err(ElfError::NotRiscv(header.e_machine));
        }
        if header.e_type != ET_EXEC {
            return Err(ElfError::NotExecutable(header.e_type));
        }
        let entry = u32::try_from(header.e_entry).map_err(|_| ElfError::Malformed("e_entry"))?;
        let ctx = Ctx::new(Container::Little, Endian::Little);
        let segments = parse_segments(bytes, &header, ctx)?;
        let shdrs = parse_section_headers(bytes, &header, ctx)?;
        let names = section_names(bytes, &header, &shdrs)?;
        let sections = collect_sections(bytes, &shdrs, &names)?;
        let symbols = parse_symbols(bytes, &shdrs, ctx)?;
        let resources = collect_resources(&sections);
        Ok(VentusElf { entry, segments, symbols, resources, sections })
    }

    /// The symbol with exactly this name; a global one is preferred over locals of the same name.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        let mut matching = self.symbols.iter().filter(|s| s.name == name);
        let first = matching.next()?;
        if first.is_global {
            return Some(first);
        }
        Some(matching.find(|s| s.is_global).unwrap_or(first))
    }

    /// Kernel entry per §6.2: the address of a defined global function with exactly this name,
    /// or failing that of any defined symbol with this name in an executable section.
    pub fn kernel_entry(&self, name: &str) -> Option<u32> {
        let named = || self.symbols.iter().filter(move |s| s.name == name);
        named().find(|s| s.is_func && s.is_global).or_else(|| named().find(|s| s.in_text)).map(|s| s.addr)
    }

    /// Names of the kernels in this file, sorted by address.
    ///
    /// Rule: a kernel is a global `STT_FUNC` symbol in an executable section whose name is not a
    /// runtime or library name, where runtime/library names are: anything starting with `_`
    /// (crt0 `_start`, compiler-rt/libclc `__*`, mangled `_Z*` functions — OpenCL kernels are
    /// never mangled), `spike_end` (crt0), and the legacy device-side printf library linked into
    /// 2023 binaries (`printf`, `printf_*`, `print_ints_*`, `print_floats_*`,
    /// `generate_float_digits`, `errol*`). Additionally every name that has a recognised
    /// `.ventus.resource.<name>` record and is a function in `.text` is a kernel.
    pub fn kernel_names(&self) -> Vec<String> {
        let mut kernels: Vec<&Symbol> = self
            .symbols
            .iter()
            .filter(|s| s.is_func && s.in_text)
            .filter(|s| (s.is_global && !is_runtime_name(&s.name)) || self.resources.iter().any(|(k, _)| *k == s.name))
            .collect();
        kernels.sort_by(|a, b| (a.addr, &a.name).cmp(&(b.addr, &b.name)));
        kernels.dedup_by(|a, b| a.name == b.name);
        kernels.into_iter().map(|s| s.name.clone()).collect()
    }

    /// `(start, end)` (end exclusive) of every executable `PT_LOAD` segment, in file order.
    ///
    /// A range covers the segment's file bytes: its zero fill (`p_memsz` past `p_filesz`) holds
    /// no instructions, and a forged `p_memsz` of hundreds of megabytes must not make the
    /// emulator predecode that many words (a fetch there is outside the program text).
    pub fn text_ranges(&self) -> Vec<(u32, u32)> {
        self.segments
            .iter()
            .filter(|s| s.executable)
            .map(|s| {
                let file = u32::try_from(s.data.len()).unwrap_or(u32::MAX).min(s.mem_size);
                (s.vaddr, s.vaddr.saturating_add(file.next_multiple_of(4)))
            })
            .collect()
    }

    /// The source-line table ([`super::lines`]): `Ok(None)` when the file has none (every
    /// official binary), an error when the section is malformed.
    pub fn line_table(&self) -> Result<Option<super::lines::LineTable>, super::lines::LinesError> {
        let section = self.sections.iter().find(|(n, _, _)| n == super::lines::SECTION);
        section.map(|(_, _, data)| super::lines::LineTable::decode(data)).transpose()
    }

    /// The resource record of `kernel`, if the file has one.
    pub fn resource_usage(&self, kernel: &str) -> Option<&ResourceUsage> {
        self.resources.iter().find(|(k, _)| k == kernel).map(|(_, r)| r)
    }
}

/// True for symbol names that belong to crt0, compiler runtime or bundled libraries.
fn is_runtime_name(name: &str) -> bool {
    const EXACT: [&str; 3] = ["spike_end", "printf", "generate_float_digits"];
    const PREFIXES: [&str; 5] = ["_", "printf_", "print_ints_", "print_floats_", "errol"];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Checks magic, class and data encoding before handing the header to goblin.
fn check_ident(bytes: &[u8]) -> Result<(), ElfError> {
    if bytes.len() < EHDR32_SIZE || bytes[..4] != *b"\x7fELF" {
        return Err(ElfError::NotElf);
    }
    if bytes[4] != goblin::elf::header::ELFCLASS32 {
        return Err(ElfError::Not32Bit);
    }
    if bytes[5] != goblin::elf::header::ELFDATA2LSB {
        return Err(ElfError::NotLittleEndian);
    }
    Ok(())
}

/// Returns `bytes[offset..offset + len]` if that range is inside `bytes`.
fn slice_at(bytes: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let len = usize::try_from(len).ok()?;
    bytes.get(start..start.checked_add(len)?)
}

/// Checks that a header table of `count` entries of `entsize` bytes (expected `want`) fits.
fn check_table(
    bytes: &[u8],
    offset: u64,
    count: u16,
    entsize: u16,
    want: usize,
    what: &'static str,
) -> Result<(), ElfError> {
    if count == 0 {
        return Ok(());
    }
    if usize::from(entsize) != want {
        return Err(ElfError::Malformed(what));
    }
    let len = u64::from(count) * want as u64;
    slice_at(bytes, offset, len).map(|_| ()).ok_or(ElfError::Malformed(what))
}

/// Parses and validates all `PT_LOAD` program headers.
fn parse_segments(bytes: &[u8], header: &goblin::elf::Header, ctx: Ctx) -> Result<Vec<Segment>, ElfError> {
    let what = "program header table outside the file";
    check_table(bytes, header.e_phoff, header.e_phnum, header.e_phentsize, PHDR32_SIZE, what)?;
    let count = usize::from(header.e_phnum);
    let offset = usize::try_from(header.e_phoff).map_err(|_| ElfError::Malformed(what))?;
    let phdrs = if count == 0 {
        Vec::new()
    } else {
        ProgramHeader::parse(bytes, offset, count, ctx).map_err(|_| ElfError::Malformed(what))?
    };
    let segments = phdrs
        .iter()
        .filter(|p| p.p_type == PT_LOAD)
        .enumerate()
        .map(|(index, p)| load_segment(bytes, p, index))
        .collect::<Result<Vec<_>, _>>()?;
    if segments.is_empty() {
        return Err(ElfError::NoLoadSegment);
    }
    Ok(segments)
}

/// Validates one `PT_LOAD` header (`index` counts `PT_LOAD`s only) and copies its bytes.
fn load_segment(bytes: &[u8], p: &ProgramHeader, index: usize) -> Result<Segment, ElfError> {
    if p.p_filesz > p.p_memsz {
        return Err(ElfError::SegmentFileSizeTooLarge { index });
    }
    let vaddr = u32::try_from(p.p_vaddr).map_err(|_| ElfError::SegmentAddressOverflow { index })?;
    let mem_size = u32::try_from(p.p_memsz).map_err(|_| ElfError::SegmentAddressOverflow { index })?;
    vaddr.checked_add(mem_size).ok_or(ElfError::SegmentAddressOverflow { index })?;
    let data = slice_at(bytes, p.p_offset, p.p_filesz).ok_or(ElfError::SegmentOutOfRange { index })?.to_vec();
    Ok(Segment { vaddr, data, mem_size, executable: p.p_flags & PF_X != 0, writable: p.p_flags & PF_W != 0 })
}

/// Parses the section header table (empty when the file has none).
fn parse_section_headers(bytes: &[u8], header: &goblin::elf::Header, ctx: Ctx) -> Result<Vec<SectionHeader>, ElfError> {
    let what = "section header table outside the file";
    if header.e_shoff == 0 || header.e_shnum == 0 {
        return Ok(Vec::new());
    }
    check_table(bytes, header.e_shoff, header.e_shnum, header.e_shentsize, SHDR32_SIZE, what)?;
    let offset = usize::try_from(header.e_shoff).map_err(|_| ElfError::Malformed(what))?;
    SectionHeader::parse(bytes, offset, usize::from(header.e_shnum), ctx).map_err(|_| ElfError::Malformed(what))
}

/// Returns the contents of section `index` (empty for `SHT_NOBITS`), checked against the file.
fn section_bytes<'a>(bytes: &'a [u8], sh: &SectionHeader, index: usize) -> Result<&'a [u8], ElfError> {
    if sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL {
        return Ok(&[]);
    }
    slice_at(bytes, sh.sh_offset, sh.sh_size).ok_or(ElfError::SectionOutOfRange { index })
}

/// Reads the NUL-terminated string at `offset` of a string table (lossy UTF-8).
fn str_at(table: &[u8], offset: usize) -> Result<String, ElfError> {
    let tail = table.get(offset..).ok_or(ElfError::Malformed("string offset outside its table"))?;
    let len = tail.iter().position(|&b| b == 0).ok_or(ElfError::Malformed("unterminated string"))?;
    Ok(String::from_utf8_lossy(&tail[..len]).into_owned())
}

/// Names of all sections (empty strings when there is no section-name table).
fn section_names(bytes: &[u8], header: &goblin::elf::Header, shdrs: &[SectionHeader]) -> Result<Vec<String>, ElfError> {
    let index = usize::from(header.e_shstrndx);
    if shdrs.is_empty() || index == SHN_UNDEF as usize {
        return Ok(vec![String::new(); shdrs.len()]);
    }
    let sh = shdrs.get(index).ok_or(ElfError::Malformed("e_shstrndx out of range"))?;
    let table = section_bytes(bytes, sh, index)?;
    shdrs.iter().map(|s| str_at(table, s.sh_name)).collect()
}

/// Copies every non-null section as `(name, addr, contents)`.
fn collect_sections(
    bytes: &[u8],
    shdrs: &[SectionHeader],
    names: &[String],
) -> Result<Vec<(String, u32, Vec<u8>)>, ElfError> {
    let mut out = Vec::new();
    for (index, (sh, name)) in shdrs.iter().zip(names).enumerate() {
        if sh.sh_type == SHT_NULL {
            continue;
        }
        let addr = u32::try_from(sh.sh_addr).map_err(|_| ElfError::Malformed("sh_addr"))?;
        let data = section_bytes(bytes, sh, index)?.to_vec();
        out.push((name.clone(), addr, data));
    }
    Ok(out)
}

/// Parses the first `SHT_SYMTAB` section (no symbols if there is none).
fn parse_symbols(bytes: &[u8], shdrs: &[SectionHeader], ctx: Ctx) -> Result<Vec<Symbol>, ElfError> {
    let Some((index, sh)) = shdrs.iter().enumerate().find(|(_, s)| s.sh_type == SHT_SYMTAB) else {
        return Ok(Vec::new());
    };
    let table = section_bytes(bytes, sh, index)?;
    let link = sh.sh_link as usize;
    let strtab_sh = shdrs.get(link).ok_or(ElfError::Malformed("symbol table sh_link out of range"))?;
    let strtab = section_bytes(bytes, strtab_sh, link)?;
    let count = table.len() / SYM32_SIZE;
    let syms = Symtab::parse(table, 0, count, ctx).map_err(|_| ElfError::Malformed("symbol table"))?;
    let mut out = Vec::new();
    for sym in syms.iter() {
        if let Some(symbol) = convert_symbol(&sym, strtab, shdrs)? {
            out.push(symbol);
        }
    }
    Ok(out)
}

/// Converts a raw symbol; `None` for unnamed, undefined, file and section symbols.
fn convert_symbol(sym: &Sym, strtab: &[u8], shdrs: &[SectionHeader]) -> Result<Option<Symbol>, ElfError> {
    let kind = sym.st_type();
    if sym.st_name == 0 || sym.st_shndx == SHN_UNDEF as usize || kind == STT_FILE || kind == STT_SECTION {
        return Ok(None);
    }
    let name = str_at(strtab, sym.st_name)?;
    let in_text = shdrs.get(sym.st_shndx).is_some_and(|s| s.sh_flags & u64::from(SHF_EXECINSTR) != 0);
    Ok(Some(Symbol {
        name,
        addr: sym.st_value as u32,
        size: sym.st_size as u32,
        is_func: kind == STT_FUNC,
        is_global: sym.st_bind() == STB_GLOBAL,
        in_text,
    }))
}

/// Decodes every recognised `.ventus.resource.<kernel>` section.
fn collect_resources(sections: &[(String, u32, Vec<u8>)]) -> Vec<(String, ResourceUsage)> {
    sections
        .iter()
        .filter_map(|(name, _, data)| {
            let kernel = name.strip_prefix(RESOURCE_PREFIX)?;
            let usage = decode_resource(data)?;
            Some((kernel.to_string(), usage))
        })
        .collect()
}

/// Decodes a generation-1 (8 bytes) or generation-3 (56 bytes, version 3) record.
fn decode_resource(data: &[u8]) -> Option<ResourceUsage> {
    match data.len() {
        8 => Some(decode_gen1(data)),
        56 if le_u32(data, 0)? == 3 => decode_gen3(data),
        _ => None,
    }
}

/// Generation 1: 4 × u16 (vgpr, sgpr, lds, pds).
fn decode_gen1(data: &[u8]) -> ResourceUsage {
    let word = |i: usize| data.get(2 * i..2 * i + 2).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])));
    ResourceUsage {
        vgprs: word(0),
        sgprs: word(1),
        lds_bytes: word(2),
        pds_bytes: word(3),
        lds_stack: None,
        pds_stack: None,
    }
}

/// Generation 3: u32 version, u32 flags, then 6 × u64 with `u64::MAX` meaning unknown.
fn decode_gen3(data: &[u8]) -> Option<ResourceUsage> {
    let field = |i: usize| -> Option<Option<u64>> {
        let v = le_u64(data, 8 + 8 * i)?;
        Some((v != u64::MAX).then_some(v))
    };
    Some(ResourceUsage {
        vgprs: field(0)?,
        sgprs: field(1)?,
        lds_bytes: field(2)?,
        pds_bytes: field(3)?,
        lds_stack: field(4)?,
        pds_stack: field(5)?,
    })
}

/// Little-endian u32 at `offset`, if in range.
fn le_u32(data: &[u8], offset: usize) -> Option<u32> {
    let b = data.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

/// Little-endian u64 at `offset`, if in range.
fn le_u64(data: &[u8], offset: usize) -> Option<u64> {
    let b = data.get(offset..offset.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECADD: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/testdata/ventus-official/vsw-vecadd-elf/vecadd.riscv");

    fn vecadd_bytes() -> Vec<u8> {
        std::fs::read(VECADD).expect("vecadd.riscv test data")
    }

    fn vecadd() -> VentusElf {
        VentusElf::parse(&vecadd_bytes()).expect("vecadd.riscv parses")
    }

    /// Tiny deterministic PRNG for the mutation tests.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn vecadd_header_and_segments() {
        let elf = vecadd();
        assert_eq!(elf.entry, 0x8000_0000);
        let layout: Vec<_> =
            elf.segments.iter().map(|s| (s.vaddr, s.data.len(), s.mem_size, s.executable, s.writable)).collect();
        assert_eq!(
            layout,
            vec![
                (0x8000_0000, 0xdd08, 0xdd08, true, false),
                (0x8000_e000, 0x48, 0x48, false, true),
                (0x8000_f000, 0x26c8, 0x26c8, false, false),
                (0x8001_2000, 0x625c, 0x6284, false, true),
            ]
        );
        assert_eq!(elf.text_ranges(), vec![(0x8000_0000, 0x8000_dd08)]);
        // First instruction of _start: auipc gp, 25 (see vecadd.dump).
        assert_eq!(elf.segments[0].data[..4], [0x97, 0x91, 0x01, 0x00]);
    }

    #[test]
    fn vecadd_kernel_and_symbols() {
        let elf = vecadd();
        assert_eq!(elf.kernel_entry("vectorAdd"), Some(0x8000_0098));
        assert_eq!(elf.kernel_entry("_start"), Some(0x8000_0000));
        assert_eq!(elf.kernel_entry("tohost"), None);
        assert_eq!(elf.kernel_entry("vectoradd"), None);
        assert_eq!(elf.kernel_names(), vec!["vectorAdd".to_string()]);
        let k = elf.symbol("vectorAdd").unwrap();
        assert_eq!((k.size, k.is_func, k.is_global, k.in_text), (104, true, true, true));
        let tohost = elf.symbol("tohost").unwrap();
        assert_eq!((tohost.addr, tohost.in_text), (0x8000_e000, false));
        assert_eq!(elf.symbol("spike_end").unwrap().addr, 0x8000_0088);
        assert_eq!(elf.symbol("BUFFER_SIZE").unwrap().addr, 0x8001_2004);
        assert!(elf.resources.is_empty());
        assert!(elf.resource_usage("vectorAdd").is_none());
    }

    #[test]
    fn vecadd_sections() {
        let elf = vecadd();
        let find = |n: &str| elf.sections.iter().find(|(name, _, _)| name == n).unwrap();
        let (_, addr, data) = find(".text");
        assert_eq!((*addr, data.len()), (0x8000_0000, 0xdd08));
        let (_, addr, data) = find(".bss");
        assert_eq!((*addr, data.len()), (0x8001_8264, 0));
        let (_, _, data) = find(".riscv.attributes");
        let attrs = String::from_utf8_lossy(data);
        assert!(attrs.contains("rv32i2p0_m2p0_a2p0_zfinx1p0"));
        assert_eq!(elf.sections.len(), 14);
    }

    #[test]
    fn rejects_wrong_kinds() {
        let good = vecadd_bytes();
        assert_eq!(VentusElf::parse(&[]).err(), Some(ElfError::NotElf));
        assert_eq!(VentusElf::parse(&good[..51]).err(), Some(ElfError::NotElf));
        let mut b = good.clone();
        b[4] = 2;
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::Not32Bit));
        let mut b = good.clone();
        b[5] = 2;
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::NotLittleEndian));
        let mut b = good.clone();
        b[18] = 62;
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::NotRiscv(62)));
        let mut b = good.clone();
        b[16] = 1;
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::NotExecutable(1)));
    }

    /// Offset of field `field` of program header `i` in vecadd.riscv (e_phoff = 52).
    fn phdr_field(i: usize, field: usize) -> usize {
        52 + 32 * i + field
    }

    fn put_u32(b: &mut [u8], at: usize, v: u32) {
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn rejects_bad_segments() {
        let good = vecadd_bytes();
        let mut b = good.clone();
        put_u32(&mut b, phdr_field(3, 16), 0x7000); // p_filesz > p_memsz
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::SegmentFileSizeTooLarge { index: 3 }));
        let mut b = good.clone();
        put_u32(&mut b, phdr_field(1, 4), 0xffff_fff0); // p_offset
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::SegmentOutOfRange { index: 1 }));
        let mut b = good.clone();
        put_u32(&mut b, phdr_field(0, 8), 0xffff_8000); // p_vaddr + memsz overflows
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::SegmentAddressOverflow { index: 0 }));
        let mut b = good.clone();
        for i in 0..5 {
            put_u32(&mut b, phdr_field(i, 0), 6); // every header becomes PT_PHDR
        }
        assert_eq!(VentusElf::parse(&b).err(), Some(ElfError::NoLoadSegment));
    }

    #[test]
    fn truncations_are_errors() {
        let good = vecadd_bytes();
        // The last section header ends the file; any shorter file is malformed somewhere.
        let step = (good.len() / 997).max(1);
        for len in (0..good.len()).step_by(step).chain(good.len() - 64..good.len()) {
            assert!(VentusElf::parse(&good[..len]).is_err(), "len {len}");
        }
    }

    #[test]
    fn random_mutations_never_panic() {
        let good = vecadd_bytes();
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut accepted = 0;
        for round in 0..3000 {
            let mut b = good.clone();
            // Focus half the flips on the headers, where they matter most.
            let region = if round % 2 == 0 { 52 + 5 * 32 } else { b.len() };
            for _ in 0..1 + rng.below(8) {
                let at = if rng.below(4) == 0 {
                    151_912 + rng.below(b.len() - 151_912) // section header table
                } else {
                    rng.below(region)
                };
                b[at] ^= 1 << rng.below(8);
            }
            if VentusElf::parse(&b).is_ok() {
                accepted += 1;
            }
        }
        // Many flips land in code/data and are harmless; many others must be caught.
        assert!(accepted > 0 && accepted < 3000, "accepted {accepted}");
    }

    #[test]
    fn random_bytes_never_panic() {
        let good = vecadd_bytes();
        let mut rng = XorShift(12345);
        for _ in 0..2000 {
            let len = rng.below(400);
            let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            if len >= 52 && rng.below(2) == 0 {
                b[..24].copy_from_slice(&good[..24]); // valid ident, random rest
            }
            assert!(VentusElf::parse(&b).is_err());
        }
    }

    #[test]
    fn decodes_resource_records() {
        let gen1 = [10u8, 0, 20, 0, 0, 0x10, 0, 4];
        assert_eq!(
            decode_resource(&gen1),
            Some(ResourceUsage {
                vgprs: Some(10),
                sgprs: Some(20),
                lds_bytes: Some(4096),
                pds_bytes: Some(1024),
                lds_stack: None,
                pds_stack: None,
            })
        );
        let mut gen3 = vec![3, 0, 0, 0, 56, 0, 0, 0];
        for v in [32u64, 16, 0, 8, u64::MAX, 1024] {
            gen3.extend_from_slice(&v.to_le_bytes());
        }
        let r = decode_resource(&gen3).unwrap();
        assert_eq!(r.vgprs, Some(32));
        assert_eq!(r.pds_bytes, Some(8));
        assert_eq!(r.lds_stack, None);
        assert_eq!(r.pds_stack, Some(1024));
        gen3[0] = 2;
        assert_eq!(decode_resource(&gen3), None);
        assert_eq!(decode_resource(&gen1[..6]), None);
        let sections = vec![(".ventus.resource.k".to_string(), 0, gen1.to_vec())];
        assert_eq!(collect_resources(&sections)[0].0, "k");
    }
}
