//! Writer for Ventus kernel ELFs in the official layout (driver-abi §6.1), the format our
//! assembler/linker (and later the compiler) emits and [`super::elf::VentusElf`] reads.
//!
//! Contract:
//! * Output: ELF32, little-endian, `EM_RISCV`, `ET_EXEC`, `e_flags` 0, entry `0x8000_0000`.
//! * Memory layout ([`Layout`]), as the official linker script places it:
//!   `.text` at `0x8000_0000` (the caller puts crt0 `_start` first); `.tohost` (0x48 bytes:
//!   `tohost` at +0, `fromhost` at +0x40, 64-byte aligned) at the next page boundary after text;
//!   `.rodata` at the next page after `.tohost`; `.data` at the next page after that; `.bss`
//!   right after `.data` (4-byte aligned). `_edata` = end of `.data`, `_end` = end of `.bss`
//!   rounded up to 4, `__bss_start` = start of `.bss`, `__global_pointer$` = `.data + 0x800`.
//!   Everything must end inside the program window (`0x8000_0000..0x9000_0000`).
//! * Program headers: `PT_LOAD` text (R E), `PT_LOAD` tohost (RW), `PT_LOAD` rodata (R, only if
//!   `.rodata` is non-empty), `PT_LOAD` data+bss (RW, `p_memsz` covers `.bss`; only if there is
//!   data or bss), then `PT_GNU_STACK` (RW) — all `PT_LOAD`s with alignment 0x1000 and file
//!   offsets congruent to their addresses modulo 0x1000, like LLD's output.
//! * Sections: `.text`, `.tohost`, `.rodata`, `.data`, `.bss` (empty ones omitted, except
//!   `.text` and `.tohost`), `.riscv.attributes` (`Tag_RISCV_arch` = [`RISCV_ARCH`], the official
//!   string), `.ventus.kernel_info` (non-alloc, [`kernel_info::encode`]; only when
//!   [`ElfImage::kernels`] is non-empty), one `.ventus.resource.<kernel>` per
//!   [`ElfImage::resources`] entry (non-alloc, flag W, 8-aligned, the 56-byte generation-3
//!   record of §6.4: `u32` version 3, `u32` flags 0, six `u64` with `u64::MAX` for unknown),
//!   the [`ElfImage::notes`] (non-alloc), `.ventus.lines` (non-alloc, [`super::lines`]; only
//!   when [`ElfImage::lines`] is set), `.symtab`, `.shstrtab`, `.strtab`.
//! * Symbols: the caller's [`ElfImage::symbols`] (locals first in `.symtab`, each group in the
//!   given order) plus the layout symbols the writer defines itself — `tohost`, `fromhost`,
//!   `__global_pointer$`, `_edata`, `__bss_start`, `_end` (all `NOTYPE GLOBAL`). A caller symbol
//!   belongs to the section whose address range holds it (an address equal to a section's end
//!   belongs to that section; otherwise `SHN_ABS`).
//! * Errors instead of panics: empty text, a layout beyond the program window, a caller symbol
//!   that is empty, contains NUL, or reuses a layout symbol name, a kernel/resource name that is
//!   empty or contains NUL.

use super::elf::ResourceUsage;
use super::kernel_info::{self, KernelInfo};
use super::{PAGE_SIZE, PROGRAM_BASE, PROGRAM_SIZE};
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;
use object::Endianness;
use std::fmt;

/// Size of the `.tohost` section (`tohost` dword, padding, `fromhost` dword).
pub const TOHOST_SIZE: u32 = 0x48;
/// Offset of `fromhost` inside `.tohost`.
pub const FROMHOST_OFFSET: u32 = 0x40;
/// `__global_pointer$` minus the start of `.data` (no small-data sections: `.data + 0x800`).
pub const GLOBAL_POINTER_OFFSET: u32 = 0x800;
/// The `Tag_RISCV_arch` string of the official binaries (driver-abi §6.1).
pub const RISCV_ARCH: &str = "rv32i2p0_m2p0_a2p0_zfinx1p0_zdinx1p0_zve32f1p0_zve32x1p0_zvl32b1p0_zhinx1p0";
/// Name prefix of the per-kernel resource sections.
pub const RESOURCE_PREFIX: &str = ".ventus.resource.";
/// Size of a generation-3 resource record.
pub const RESOURCE_RECORD_SIZE: usize = 56;
/// Symbols the writer defines from the layout; callers may not define them.
pub const LAYOUT_SYMBOLS: [&str; 6] = ["tohost", "fromhost", "__global_pointer$", "_edata", "__bss_start", "_end"];

/// `Tag_RISCV_stack_align` and `Tag_RISCV_arch` (RISC-V psABI attribute tags).
const TAG_RISCV_STACK_ALIGN: u64 = 4;
const TAG_RISCV_ARCH: u64 = 5;
/// `Tag_File` of the ELF attributes format.
const TAG_FILE: u8 = 1;

/// `st_type` of a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// `STT_FUNC` (kernels, `_start`, `spike_end`).
    Func,
    /// `STT_OBJECT` (data).
    Object,
    /// `STT_NOTYPE` (labels, `BUFFER_ADDR`, …).
    NoType,
}

/// A symbol to put into `.symtab`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfSymbol {
    pub name: String,
    pub addr: u32,
    pub size: u32,
    pub kind: SymbolKind,
    /// `STB_GLOBAL` (else `STB_LOCAL`).
    pub global: bool,
}

impl ElfSymbol {
    /// A global symbol.
    pub fn global(name: impl Into<String>, addr: u32, size: u32, kind: SymbolKind) -> ElfSymbol {
        ElfSymbol { name: name.into(), addr, size, kind, global: true }
    }
    /// A local `NOTYPE` symbol of size 0 (a label).
    pub fn label(name: impl Into<String>, addr: u32) -> ElfSymbol {
        ElfSymbol { name: name.into(), addr, size: 0, kind: SymbolKind::NoType, global: false }
    }
}

/// Everything that goes into one ELF. Addresses follow [`Layout::of`] for this image.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ElfImage {
    /// Instruction words from `0x8000_0000` (crt0 `_start` first).
    pub text: Vec<u32>,
    /// Bytes of `.rodata` (at [`Layout::rodata`]).
    pub rodata: Vec<u8>,
    /// Bytes of `.data` (at [`Layout::data`]).
    pub data: Vec<u8>,
    /// Bytes of `.bss` (zero-initialised, after `.data`).
    pub bss_size: u32,
    /// Caller symbols (see the module documentation for the ones the writer adds).
    pub symbols: Vec<ElfSymbol>,
    /// Argument metadata for `.ventus.kernel_info` (no section when empty).
    pub kernels: Vec<KernelInfo>,
    /// `(kernel, record)` written as `.ventus.resource.<kernel>`.
    pub resources: Vec<(String, ResourceUsage)>,
    /// Extra non-allocated sections `(name, bytes)`, e.g. the printf table `.ventus.printf`.
    pub notes: Vec<(String, Vec<u8>)>,
    /// Source lines of the text, written as [`super::lines::SECTION`] (no section when `None`).
    pub lines: Option<super::lines::LineTable>,
}

/// Addresses of every part of an image (see the module documentation for the rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `.text` start (`0x8000_0000`) and end (exclusive).
    pub text: u32,
    pub text_end: u32,
    /// `.tohost` start (= `tohost`); `fromhost` is at `tohost + 0x40`.
    pub tohost: u32,
    /// `.rodata` start and end.
    pub rodata: u32,
    pub rodata_end: u32,
    /// `.data` start and end (= `_edata`).
    pub data: u32,
    pub data_end: u32,
    /// `.bss` start (= `__bss_start`) and `_end`.
    pub bss: u32,
    pub end: u32,
    /// `__global_pointer$`.
    pub global_pointer: u32,
}

impl Layout {
    /// The layout of sections of these sizes (bytes).
    pub fn new(text_bytes: u32, rodata_bytes: u32, data_bytes: u32, bss_bytes: u32) -> Result<Layout, ElfWriteError> {
        let limit = PROGRAM_BASE as u64 + PROGRAM_SIZE as u64;
        let page = |a: u64| a.next_multiple_of(PAGE_SIZE as u64);
        let text = PROGRAM_BASE as u64;
        let text_end = text + text_bytes as u64;
        let tohost = page(text_end);
        let rodata = page(tohost + TOHOST_SIZE as u64);
        let rodata_end = rodata + rodata_bytes as u64;
        let data = page(rodata_end);
        let data_end = data + data_bytes as u64;
        let bss = data_end.next_multiple_of(4);
        let end = (bss + bss_bytes as u64).next_multiple_of(4);
        if end > limit {
            return Err(ElfWriteError::TooLarge { end });
        }
        let global_pointer = data + GLOBAL_POINTER_OFFSET as u64;
        // Every value is below `limit` (< 2^32) here; `global_pointer` may point past `_end`,
        // which is harmless (and it still fits: data ≤ end ≤ 0x9000_0000).
        Ok(Layout {
            text: text as u32,
            text_end: text_end as u32,
            tohost: tohost as u32,
            rodata: rodata as u32,
            rodata_end: rodata_end as u32,
            data: data as u32,
            data_end: data_end as u32,
            bss: bss as u32,
            end: end as u32,
            global_pointer: global_pointer as u32,
        })
    }

    /// The layout of `image`.
    pub fn of(image: &ElfImage) -> Result<Layout, ElfWriteError> {
        let len = |n: usize| u32::try_from(n).map_err(|_| ElfWriteError::TooLarge { end: n as u64 });
        let text = image.text.len().checked_mul(4).ok_or(ElfWriteError::TooLarge { end: u64::MAX })?;
        Layout::new(len(text)?, len(image.rodata.len())?, len(image.data.len())?, image.bss_size)
    }

    /// `fromhost`.
    pub fn fromhost(&self) -> u32 {
        self.tohost + FROMHOST_OFFSET
    }
}

/// Why an image cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElfWriteError {
    /// No text words.
    EmptyText,
    /// The image would end at `end`, beyond the program window.
    TooLarge { end: u64 },
    /// A caller symbol uses a name the writer defines (see [`LAYOUT_SYMBOLS`]).
    ReservedSymbol(String),
    /// A symbol, kernel or resource name is empty or contains NUL.
    BadName(String),
    /// The `object` crate rejected the file.
    Object(String),
}

impl fmt::Display for ElfWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyText => write!(f, "ELF image has no text"),
            Self::TooLarge { end } => {
                write!(f, "ELF image would end at {end:#x}, beyond the program window (0x80000000..0x90000000)")
            }
            Self::ReservedSymbol(n) => write!(f, "symbol `{n}` is defined by the ELF writer itself"),
            Self::BadName(n) => write!(f, "invalid symbol or section name {n:?}"),
            Self::Object(e) => write!(f, "ELF writer: {e}"),
        }
    }
}

impl std::error::Error for ElfWriteError {}

/// Encodes a generation-3 resource record (§6.4): version 3, flags 0, `None` → `u64::MAX`.
pub fn encode_resource(r: &ResourceUsage) -> [u8; RESOURCE_RECORD_SIZE] {
    let mut out = [0u8; RESOURCE_RECORD_SIZE];
    out[..4].copy_from_slice(&3u32.to_le_bytes());
    let fields = [r.vgprs, r.sgprs, r.lds_bytes, r.pds_bytes, r.lds_stack, r.pds_stack];
    for (i, v) in fields.iter().enumerate() {
        out[8 + 8 * i..16 + 8 * i].copy_from_slice(&v.unwrap_or(u64::MAX).to_le_bytes());
    }
    out
}

/// The `.riscv.attributes` contents: stack alignment 16 and [`RISCV_ARCH`].
fn riscv_attributes() -> Vec<u8> {
    let mut w = object::write::elf::AttributesWriter::new(Endianness::Little);
    w.start_subsection(b"riscv");
    w.start_subsubsection(TAG_FILE);
    w.write_attribute_tag(TAG_RISCV_STACK_ALIGN);
    w.write_attribute_integer(16);
    w.write_attribute_tag(TAG_RISCV_ARCH);
    w.write_attribute_string(RISCV_ARCH.as_bytes());
    w.end_subsubsection();
    w.end_subsection();
    w.data()
}

fn check_name(name: &str) -> Result<(), ElfWriteError> {
    if name.is_empty() || name.contains('\0') {
        return Err(ElfWriteError::BadName(name.to_string()));
    }
    Ok(())
}

/// One section with contents or `.bss`, as planned before writing.
struct Planned<'a> {
    name: &'a [u8],
    sh_type: u32,
    flags: u32,
    /// `sh_addr` (0 for non-allocated sections).
    addr: u32,
    align: u32,
    bytes: Vec<u8>,
    /// Size of a `SHT_NOBITS` section (`bytes` is then empty).
    nobits: u32,
    /// Filled in when the section is registered with the writer / placed in the file.
    name_id: Option<StringId>,
    index: SectionIndex,
    offset: usize,
}

impl<'a> Planned<'a> {
    fn new(name: &'a [u8], sh_type: u32, flags: u32, addr: u32, align: u32, bytes: Vec<u8>) -> Self {
        Planned {
            name,
            sh_type,
            flags,
            addr,
            align,
            bytes,
            nobits: 0,
            name_id: None,
            index: SectionIndex(0),
            offset: 0,
        }
    }
    fn size(&self) -> u32 {
        if self.sh_type == elf::SHT_NOBITS {
            self.nobits
        } else {
            self.bytes.len() as u32
        }
    }
    fn header(&self) -> SectionHeader {
        SectionHeader {
            name: self.name_id,
            sh_type: self.sh_type,
            sh_flags: self.flags as u64,
            sh_addr: self.addr as u64,
            sh_offset: self.offset as u64,
            sh_size: self.size() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: self.align as u64,
            sh_entsize: 0,
        }
    }
}

/// Which allocated sections exist, by role.
#[derive(Default)]
struct Roles {
    text: usize,
    tohost: usize,
    rodata: Option<usize>,
    data: Option<usize>,
    bss: Option<usize>,
}

/// A symbol ready for `.symtab`.
struct Entry<'s> {
    name: &'s str,
    addr: u32,
    size: u32,
    info: u8,
    section: Option<SectionIndex>,
}

/// Writes `image` as a Ventus ELF (see the module documentation).
pub fn write_elf(image: &ElfImage) -> Result<Vec<u8>, ElfWriteError> {
    if image.text.is_empty() {
        return Err(ElfWriteError::EmptyText);
    }
    let layout = Layout::of(image)?;
    for s in &image.symbols {
        check_name(&s.name)?;
        if LAYOUT_SYMBOLS.contains(&s.name.as_str()) {
            return Err(ElfWriteError::ReservedSymbol(s.name.clone()));
        }
    }
    for k in &image.kernels {
        check_name(&k.name)?;
    }
    let resource_names: Vec<String> = image
        .resources
        .iter()
        .map(|(k, _)| check_name(k).map(|()| format!("{RESOURCE_PREFIX}{k}")))
        .collect::<Result<_, _>>()?;
    let text_bytes: Vec<u8> = image.text.iter().flat_map(|w| w.to_le_bytes()).collect();

    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, false, &mut buffer);

    // ---- sections, in header order ----------------------------------------------------------
    let (ax, wa, a) = (elf::SHF_ALLOC | elf::SHF_EXECINSTR, elf::SHF_WRITE | elf::SHF_ALLOC, elf::SHF_ALLOC);
    let progbits = elf::SHT_PROGBITS;
    let mut sections = vec![
        Planned::new(b".text", progbits, ax, layout.text, 4, text_bytes),
        Planned::new(b".tohost", progbits, wa, layout.tohost, 64, vec![0; TOHOST_SIZE as usize]),
    ];
    let mut roles = Roles { text: 0, tohost: 1, ..Roles::default() };
    if !image.rodata.is_empty() {
        roles.rodata = Some(sections.len());
        sections.push(Planned::new(b".rodata", progbits, a, layout.rodata, 8, image.rodata.clone()));
    }
    if !image.data.is_empty() {
        roles.data = Some(sections.len());
        sections.push(Planned::new(b".data", progbits, wa, layout.data, 4, image.data.clone()));
    }
    if image.bss_size > 0 {
        roles.bss = Some(sections.len());
        let mut bss = Planned::new(b".bss", elf::SHT_NOBITS, wa, layout.bss, 4, Vec::new());
        bss.nobits = layout.end - layout.bss;
        sections.push(bss);
    }
    let allocated = sections.len();
    sections.push(Planned::new(b".riscv.attributes", elf::SHT_RISCV_ATTRIBUTES, 0, 0, 1, riscv_attributes()));
    if !image.kernels.is_empty() {
        let table = kernel_info::encode(&image.kernels);
        sections.push(Planned::new(kernel_info::SECTION.as_bytes(), progbits, 0, 0, 4, table));
    }
    for (name, bytes) in &image.notes {
        sections.push(Planned::new(name.as_bytes(), progbits, 0, 0, 4, bytes.clone()));
    }
    if let Some(lines) = &image.lines {
        sections.push(Planned::new(super::lines::SECTION.as_bytes(), progbits, 0, 0, 4, lines.encode()));
    }
    for (name, (_, r)) in resource_names.iter().zip(&image.resources) {
        sections.push(Planned::new(name.as_bytes(), progbits, elf::SHF_WRITE, 0, 8, encode_resource(r).to_vec()));
    }
    for s in &mut sections {
        s.name_id = Some(w.add_section_name(s.name));
        s.index = w.reserve_section_index();
    }
    w.reserve_symtab_section_index();
    w.reserve_shstrtab_section_index();
    w.reserve_strtab_section_index();

    // ---- symbols ----------------------------------------------------------------------------
    let entries = symbol_entries(image, &layout, &sections[..allocated], &roles);
    let num_local = 1 + image.symbols.iter().filter(|s| !s.global).count() as u32;
    let names: Vec<StringId> = entries.iter().map(|e| w.add_string(e.name.as_bytes())).collect();
    w.reserve_null_symbol_index();
    for e in &entries {
        w.reserve_symbol_index(e.section);
    }

    // ---- file offsets -----------------------------------------------------------------------
    let data_segment = roles.data.is_some() || roles.bss.is_some();
    let loads = 2 + u32::from(roles.rodata.is_some()) + u32::from(data_segment);
    w.reserve_file_header();
    w.reserve_program_headers(loads + 1);
    let mut file_end = 0;
    for (i, s) in sections.iter_mut().enumerate() {
        s.offset = if s.sh_type == elf::SHT_NOBITS {
            file_end
        } else if i < allocated {
            // Loadable: page-aligned file offset, congruent with the address.
            w.reserve(s.bytes.len(), PAGE_SIZE as usize)
        } else {
            w.reserve(s.bytes.len(), s.align as usize)
        };
        file_end = s.offset + s.bytes.len();
    }
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    // ---- write ------------------------------------------------------------------------------
    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_EXEC,
        e_machine: elf::EM_RISCV,
        e_entry: PROGRAM_BASE as u64,
        e_flags: 0,
    })
    .map_err(|e| ElfWriteError::Object(e.to_string()))?;
    w.write_align_program_headers();
    let load = |flags: u32, offset: usize, vaddr: u32, filesz: u32, memsz: u32| ProgramHeader {
        p_type: elf::PT_LOAD,
        p_flags: flags,
        p_offset: offset as u64,
        p_vaddr: vaddr as u64,
        p_paddr: vaddr as u64,
        p_filesz: filesz as u64,
        p_memsz: memsz as u64,
        p_align: PAGE_SIZE as u64,
    };
    let whole = |i: usize, flags: u32| {
        let s = &sections[i];
        load(flags, s.offset, s.addr, s.size(), s.size())
    };
    w.write_program_header(&whole(roles.text, elf::PF_R | elf::PF_X));
    w.write_program_header(&whole(roles.tohost, elf::PF_R | elf::PF_W));
    if let Some(r) = roles.rodata {
        w.write_program_header(&whole(r, elf::PF_R));
    }
    if let Some(first) = roles.data.or(roles.bss) {
        let filesz = image.data.len() as u32;
        let ph = load(elf::PF_R | elf::PF_W, sections[first].offset, layout.data, filesz, layout.end - layout.data);
        w.write_program_header(&ph);
    }
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_GNU_STACK,
        p_flags: elf::PF_R | elf::PF_W,
        p_offset: 0,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: 0,
        p_memsz: 0,
        p_align: 0,
    });
    for s in sections.iter().filter(|s| s.sh_type != elf::SHT_NOBITS) {
        w.pad_until(s.offset);
        w.write(&s.bytes);
    }
    w.write_null_symbol();
    for (e, &name) in entries.iter().zip(&names) {
        w.write_symbol(&Sym {
            name: Some(name),
            section: e.section,
            st_info: e.info,
            st_other: elf::STV_DEFAULT,
            st_shndx: if e.section.is_some() { 0 } else { elf::SHN_ABS },
            st_value: e.addr as u64,
            st_size: e.size as u64,
        });
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    for s in &sections {
        w.write_section_header(&s.header());
    }
    w.write_symtab_section_header(num_local);
    w.write_shstrtab_section_header();
    w.write_strtab_section_header();
    debug_assert_eq!(w.reserved_len(), w.len());
    Ok(buffer)
}

/// The `.symtab` entries after the null symbol: caller locals, caller globals, layout symbols.
fn symbol_entries<'s>(image: &'s ElfImage, layout: &Layout, alloc: &[Planned], roles: &Roles) -> Vec<Entry<'s>> {
    let index = |i: Option<usize>| i.map(|i| alloc[i].index);
    let section_of = |addr: u32| -> Option<SectionIndex> {
        let inside = alloc.iter().find(|s| addr >= s.addr && addr - s.addr < s.size());
        inside.or_else(|| alloc.iter().rev().find(|s| addr == s.addr + s.size())).map(|s| s.index)
    };
    let st_type = |k: SymbolKind| match k {
        SymbolKind::Func => elf::STT_FUNC,
        SymbolKind::Object => elf::STT_OBJECT,
        SymbolKind::NoType => elf::STT_NOTYPE,
    };
    let mut entries = Vec::new();
    for global in [false, true] {
        let bind = if global { elf::STB_GLOBAL } else { elf::STB_LOCAL };
        for s in image.symbols.iter().filter(|s| s.global == global) {
            entries.push(Entry {
                name: &s.name,
                addr: s.addr,
                size: s.size,
                info: (bind << 4) | st_type(s.kind),
                section: section_of(s.addr),
            });
        }
    }
    let tohost = index(Some(roles.tohost));
    let data = index(roles.data.or(roles.bss));
    let bss = index(roles.bss.or(roles.data));
    let fixed: [(&'static str, u32, Option<SectionIndex>); 6] = [
        ("tohost", layout.tohost, tohost),
        ("fromhost", layout.fromhost(), tohost),
        ("__global_pointer$", layout.global_pointer, data),
        ("_edata", layout.data_end, data),
        ("__bss_start", layout.bss, bss),
        ("_end", layout.end, bss),
    ];
    for (name, addr, section) in fixed {
        entries.push(Entry { name, addr, size: 0, info: (elf::STB_GLOBAL << 4) | elf::STT_NOTYPE, section });
    }
    entries
}
