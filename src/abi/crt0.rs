//! Our crt0 (start-up code, variant D of driver-abi §4.2) and the linker that turns hand-written
//! Ventus assembly into an official-format ELF ([`super::elf_writer`]).
//!
//! crt0 contract ([`crt0_source`], at `0x8000_0000`, executed by every warp of every work-group):
//! `gp = __global_pointer$`; `vsetvli` e32/m1 with AVL 32 (so `vl = numt`); `mstatus.FS` =
//! Initial; `sp = CSR_LDS + CSR_WID·S` (per-warp uniform stack, grows up; S =
//! [`COMPILED_WARP_STACK_BYTES`], 32 KiB, where the official crt0 has 1 KiB);
//! `tp = 0` (private stack); `s0 = CSR_LDS + CSR_NUMW·S` (work-group local data after the
//! warp stacks); clears `.bss` (`_edata..._end`, words); reads the metadata buffer at `CSR_KNL`:
//! `t1 = [0]` (entry), `a0 = [4]` (argument buffer), stores `[48]`/`[52]` (print buffer address
//! and size) into the `.data` words `BUFFER_ADDR`/`BUFFER_SIZE`; `mtvec = spike_end`;
//! `jalr t1` (the kernel returns with `ret`); `endprg`. `spike_end` stores 1 to `tohost` (the
//! reference simulator's end-of-work-group / trap path) and then spins, so it never falls into
//! kernel code. Registers a kernel may rely on at entry: `a0`, `sp`, `tp`, `s0`, `gp`, `ra`,
//! `vl = numt`, FP enabled; everything else is unspecified.
//!
//! The linker emits only the parts of that crt0 the user code can observe ([`Crt0Needs`]):
//! `gp`, `sp`, `tp` and `s0` when some instruction reads that register, the `BUFFER_ADDR`/
//! `BUFFER_SIZE` stores when the text names a data-layout symbol, the `.bss` loop when there
//! is a `.bss`. Every warp runs crt0, so for a short kernel this is a third of its instructions:
//! a kernel that reads none of them is called after 11 instructions instead of 35.
//!
//! Linker contract ([`link`], [`link_image`]):
//! * The user assembly (our assembler's syntax, see [`crate::isa::asm`]) is placed right after
//!   crt0. Kernels are the labels declared with `.globl`/`.global`; each becomes a `FUNC GLOBAL`
//!   symbol whose size reaches the next global label (or the end of text). Other labels become
//!   local symbols. A global that is not a label is [`LinkError::UndefinedGlobal`].
//! * The user code may refer to the layout symbols `_start`, `spike_end`, `BUFFER_ADDR`,
//!   `BUFFER_SIZE`, `tohost`, `fromhost`, `_edata`, `__bss_start`, `_end`, `__global_pointer$`
//!   (and `WARP_STACK_BYTES` = S); defining a label with one of these names is
//!   [`LinkError::ReservedSymbol`]. Assembly error line numbers are those of the user text.
//! * Sections: `.data` holds exactly `BUFFER_ADDR` and `BUFFER_SIZE` (8 bytes, zero); there is no
//!   `.rodata` and no `.bss` (the assembler only produces text).
//! * `kernels` (argument metadata, e.g. from [`parse_kernel_decls`]) goes into
//!   `.ventus.kernel_info`; every entry must name a global label ([`LinkError::UnknownKernel`]),
//!   at most once. For each entry a generation-3 `.ventus.resource.<kernel>` record is written:
//!   registers unknown, `lds_static = local_bytes`, `pds_static = private_bytes`,
//!   `lds_stack` = S (the crt0 warp stack), `pds_stack` unknown. With no `kernels`, neither
//!   section is written (the driver then treats the file like an official one).
//! * `.file`/`.loc` directives in the user text become the ELF's source-line table
//!   ([`super::lines`], section `.ventus.lines`); without them there is none.
//!
//! Kernel declaration format ([`parse_kernel_decls`]), OpenCL C prototypes without bodies:
//! `[__]kernel [void] NAME(PARAM, ...) [ATTRIBUTES] [;]`, any number per text, free line
//! breaks, comments `#`, `//`, `/* */`. A PARAM is `[address space] [const|volatile] TYPE [*]
//! [restrict|const] NAME`; address spaces `global constant local private` (with or without
//! `__`); a pointer must have `global`, `constant` or `local`. Scalar and vector types:
//! `char uchar short ushort int uint long ulong float double half` (also `unsigned int` etc.),
//! their vectors `float4`…(2, 3, 4, 8, 16; 3 is padded to 4), `size_t ptrdiff_t intptr_t
//! uintptr_t` (4 bytes: the device is 32-bit); pointers are 4 bytes to anything (`struct s*`).
//! Attributes (before the name or after `)`, plain or inside `__attribute__((…))`):
//! `reqd_work_group_size(X,Y,Z)`, `work_group_size_hint(X,Y,Z)`, `vec_type_hint(T)` (these
//! also form `CL_KERNEL_ATTRIBUTES`), and the Ventus extras `local_bytes(N)` (static `__local`
//! bytes at `s0`) and `private_bytes(N)`.

use super::elf::ResourceUsage;
use super::elf_writer::{write_elf, ElfImage, ElfSymbol, ElfWriteError, Layout, SymbolKind};
use super::kernel_info::{qualifier, Access, AddressSpace, ArgInfo, ArgKind, KernelInfo};
use super::{COMPILED_WARP_STACK_BYTES, PROGRAM_BASE};
use crate::isa::asm::{assemble, AsmError, Listing, ListingError, Program};
use std::fmt;

/// Bytes of `.data`: `BUFFER_ADDR` at +0, `BUFFER_SIZE` at +4.
pub const DATA_BYTES: u32 = 8;

/// Names the linker defines for the user code (see the module documentation).
pub const RESERVED_SYMBOLS: [&str; 12] = [
    "_start",
    "spike_end",
    "BUFFER_ADDR",
    "BUFFER_SIZE",
    "tohost",
    "fromhost",
    "_edata",
    "__bss_start",
    "_end",
    "__global_pointer$",
    "WARP_STACK_BYTES",
    RODATA_SYMBOL,
];

/// Symbol at the start of `.rodata` (program-scope constant data of compiled programs).
pub const RODATA_SYMBOL: &str = "__ventus_rodata";

/// What the user code of an image needs crt0 to set up beyond the always-present part
/// (`vsetvli`, FP on, `mtvec`, the metadata reads, `jalr`, `endprg`). Each item is set only
/// when some instruction of the user code could observe it, so a kernel that reads none of
/// them is called after 11 instructions instead of 35.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crt0Needs {
    /// `gp` (`x3`) is read.
    pub gp: bool,
    /// `sp` (`x2`) is read: the per-warp uniform stack.
    pub sp: bool,
    /// `tp` (`x4`) is read: the private stack offset.
    pub tp: bool,
    /// `s0` (`x8`) is read: the work-group local data.
    pub s0: bool,
    /// The text names `BUFFER_ADDR`/`BUFFER_SIZE` (or another layout symbol through which it
    /// could reach them): crt0 stores the print buffer's address and size there.
    pub print_words: bool,
    /// `.bss` is not empty: crt0 clears it.
    pub bss: bool,
}

impl Crt0Needs {
    /// Everything (the full variant-D start-up).
    pub const ALL: Crt0Needs = Crt0Needs { gp: true, sp: true, tp: true, s0: true, print_words: true, bss: true };

    /// What `user` needs (`names_data_layout`: its source names `BUFFER_ADDR`, `BUFFER_SIZE`,
    /// `_edata`, `__bss_start` or `_end`). Conservative: a word that does not decode
    /// (data in the text) needs everything; a register field counts whatever `regext` prefix
    /// may extend it (an extended field is a higher register, never a lower one).
    pub fn of(user: &Program, names_data_layout: bool) -> Crt0Needs {
        let mut n = Crt0Needs { gp: false, sp: false, tp: false, s0: false, print_words: false, bss: false };
        for &word in &user.words {
            let Some(inst) = crate::isa::decode(word) else { return Crt0Needs::ALL };
            let r = inst.op.desc().roles;
            for (role, field) in [(r.rd, inst.rd), (r.rs1, inst.rs1), (r.rs2, inst.rs2), (r.rs3, inst.rs3)] {
                if role.reads() && role.class() == Some(crate::isa::roles::Class::X) {
                    match field {
                        2 => n.sp = true,
                        3 => n.gp = true,
                        4 => n.tp = true,
                        8 => n.s0 = true,
                        _ => {}
                    }
                }
            }
        }
        n.print_words = names_data_layout;
        n
    }
}

/// The full crt0 source (variant D, [`Crt0Needs::ALL`]), in our assembler's syntax. The
/// layout symbols it uses are supplied by the linker as `.equ` lines appended after it.
pub fn crt0_source() -> String {
    crt0_source_for(Crt0Needs::ALL)
}

/// The crt0 source that sets up what `needs` says (see the module documentation).
pub fn crt0_source_for(needs: Crt0Needs) -> String {
    // (included?, text); `{stack}` is the warp stack size.
    let parts: [(bool, &str); 10] = [
        (true, "# crt0, variant D (driver-abi 4.2): every warp of every work-group starts here.\n_start:\n"),
        (needs.gp, "    la      gp, __global_pointer$\n"),
        (
            true,
            "    li      t4, 32
    vsetvli t4, t4, e32, m1, ta, ma      # vl = min(32, numt)
    lui     t4, 2
    csrrs   t4, mstatus, t4              # mstatus.FS = Initial: FP on\n",
        ),
        (needs.sp || needs.s0, "    csrr    t2, lds\n    li      t3, {stack}\n"),
        (
            needs.sp,
            "    csrr    t1, wid
    mul     t1, t1, t3
    add     sp, t1, t2                   # sp = LDS + wid * {stack}: this warp's uniform stack\n",
        ),
        (needs.tp, "    li      tp, 0                        # private stack offset\n"),
        (
            needs.s0,
            "    csrr    t5, numw
    mul     t5, t5, t3
    add     s0, t2, t5                   # s0 = LDS + numw * {stack}: work-group local data\n",
        ),
        (
            needs.bss,
            "    la      a0, _edata
    la      a2, _end
    bgeu    a0, a2, .Lcrt0_meta
.Lcrt0_bss:
    .mem    data
    sw      zero, 0(a0)
    addi    a0, a0, 4
    bltu    a0, a2, .Lcrt0_bss
.Lcrt0_meta:\n",
        ),
        (
            true,
            "    csrr    t0, knl                      # kernel metadata buffer
    lw      t1, {md_entry}(t0)                    # KNL_ENTRY
    lw      a0, {md_arg_base}(t0)                    # KNL_ARG_BASE: the kernel's argument buffer\n",
        ),
        (
            needs.print_words,
            "    lw      t2, {md_print_addr}(t0)                   # KNL_PRINT_ADDR
    lw      t3, {md_print_size}(t0)                   # KNL_PRINT_SIZE
    la      t4, BUFFER_ADDR
    .mem    data
    sw      t2, 0(t4)
    la      t4, BUFFER_SIZE
    .mem    data
    sw      t3, 0(t4)\n",
        ),
    ];
    let tail = "    la      t6, spike_end
    csrw    mtvec, t6                    # traps end the work-group (reference simulator)
    jalr    t1                           # call the kernel; it returns with `ret`
    endprg  x0, x0, x0
    j       spike_end
spike_end:
    li      t1, 1
    la      t0, tohost
    .mem    data
    sw      t1, 0(t0)                    # tell the host: work-group finished
.Lcrt0_halt:
    j       .Lcrt0_halt
";
    let body: String = parts.iter().filter(|(on, _)| *on).map(|(_, text)| *text).collect();
    // Metadata offsets come from their one definition (`abi::launch::md`).
    use super::launch::md;
    [
        ("{stack}", COMPILED_WARP_STACK_BYTES),
        ("{md_entry}", md::ENTRY),
        ("{md_arg_base}", md::ARG_BASE),
        ("{md_print_addr}", md::PRINT_ADDR),
        ("{md_print_size}", md::PRINT_SIZE),
    ]
    .iter()
    .fold(body + tail, |text, (name, value)| text.replace(name, &value.to_string()))
}

/// Why assembly + linking failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// The user assembly does not assemble (line numbers are the user text's).
    Asm(AsmError),
    /// The user assembly defines a label the linker reserves.
    ReservedSymbol { name: String, line: usize },
    /// `.globl NAME` without a label `NAME:`.
    UndefinedGlobal(String),
    /// The user assembly declares no `.globl` label, so the ELF would have no kernel.
    NoKernels,
    /// Kernel metadata names a kernel that is not a global label.
    UnknownKernel(String),
    /// Kernel metadata lists a kernel twice.
    DuplicateKernel(String),
    /// The typed assembly ([`link_listing`]) does not assemble.
    Listing(ListingError),
    /// The ELF writer failed.
    Elf(ElfWriteError),
    /// crt0 failed to assemble or the layout changed the code size (a bug).
    Internal(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Asm(e) => write!(f, "{e}"),
            Self::ReservedSymbol { name, line } => {
                write!(f, "line {line}: `{name}` is defined by crt0/the linker and cannot be a label")
            }
            Self::UndefinedGlobal(n) => write!(f, "`.globl {n}` but no label `{n}:`"),
            Self::NoKernels => write!(f, "no kernel: declare each kernel entry label with `.globl NAME`"),
            Self::UnknownKernel(n) => write!(f, "kernel info for `{n}`, which is not a `.globl` label"),
            Self::DuplicateKernel(n) => write!(f, "kernel `{n}` described twice"),
            Self::Listing(e) => write!(f, "{e}"),
            Self::Elf(e) => write!(f, "{e}"),
            Self::Internal(m) => write!(f, "internal linker error: {m}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// The layout symbols' values for code assembled at any base.
fn layout_symbols(layout: &Layout, start: u32, spike_end: u32) -> [(&'static str, u32); 12] {
    [
        ("_start", start),
        ("spike_end", spike_end),
        ("BUFFER_ADDR", layout.data),
        ("BUFFER_SIZE", layout.data + 4),
        ("tohost", layout.tohost),
        ("fromhost", layout.fromhost()),
        ("_edata", layout.data_end),
        ("__bss_start", layout.bss),
        ("_end", layout.end),
        ("__global_pointer$", layout.global_pointer),
        ("WARP_STACK_BYTES", COMPILED_WARP_STACK_BYTES),
        (RODATA_SYMBOL, layout.rodata),
    ]
}

/// `.equ` lines defining the layout symbols for code assembled at any base.
fn layout_equs(layout: &Layout, start: u32, spike_end: u32) -> String {
    layout_symbols(layout, start, spike_end).iter().map(|(n, v)| format!("\n.equ {n}, {v:#x}")).collect()
}

/// The layout symbols that lead to the print-buffer words (see [`Crt0Needs::print_words`]).
const DATA_LAYOUT_SYMBOLS: [&str; 5] = ["BUFFER_ADDR", "BUFFER_SIZE", "_edata", "__bss_start", "_end"];

/// The user code of an image: assembly text or typed assembly.
#[derive(Clone, Copy)]
enum UserCode<'a> {
    Text(&'a str),
    Listing(&'a Listing),
}

impl UserCode<'_> {
    /// Assembles the user code at `base` behind `crt0`.
    fn assemble(self, base: u32, layout: &Layout, crt0: &Program) -> Result<Program, LinkError> {
        match self {
            UserCode::Text(src) => assemble_user(src, base, layout, crt0),
            UserCode::Listing(l) => {
                let label = |n: &str| crt0.labels.get(n).copied().unwrap_or(0);
                let values = layout_symbols(layout, label("_start"), label("spike_end"));
                let external = |n: &str| values.iter().find(|(k, _)| *k == n).map(|&(_, v)| v);
                l.assemble(base, &external).map_err(|e| match e {
                    ListingError::DuplicateLabel(name) if RESERVED_SYMBOLS.contains(&name.as_str()) => {
                        LinkError::ReservedSymbol { name, line: 0 }
                    }
                    e => LinkError::Listing(e),
                })
            }
        }
    }

    /// Whether the code names a layout symbol that reaches the print-buffer words.
    fn names_data_layout(self) -> bool {
        match self {
            UserCode::Text(src) => DATA_LAYOUT_SYMBOLS.iter().any(|s| src.contains(s)),
            UserCode::Listing(l) => l.external_symbols().iter().any(|s| DATA_LAYOUT_SYMBOLS.contains(s)),
        }
    }
}

/// Assembles crt0 for `layout`.
fn assemble_crt0(layout: &Layout, needs: Crt0Needs) -> Result<Program, LinkError> {
    // `_start`/`spike_end` are crt0's own labels; only the other symbols come from outside.
    let equs: String = layout_equs(layout, 0, 0)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(".equ _start,") && !l.starts_with(".equ spike_end,"))
        .map(|l| format!("\n{l}"))
        .collect();
    assemble(&(crt0_source_for(needs) + &equs), PROGRAM_BASE).map_err(|e| LinkError::Internal(format!("crt0: {e}")))
}

/// Assembles the user text at `base`, mapping errors to user line numbers.
fn assemble_user(src: &str, base: u32, layout: &Layout, crt0: &Program) -> Result<Program, LinkError> {
    let user_lines = src.lines().count();
    let label = |n: &str| crt0.labels.get(n).copied().unwrap_or(0);
    let equs = layout_equs(layout, label("_start"), label("spike_end"));
    // `str::lines` drops one trailing newline; a separator line keeps the count exact.
    let full = format!("{src}\n{equs}");
    assemble(&full, base).map_err(|e| match e {
        AsmError::DuplicateSymbol { line, name, first_line } if line > user_lines => {
            LinkError::ReservedSymbol { name, line: first_line }
        }
        AsmError::DuplicateSymbol { line, name, .. } if RESERVED_SYMBOLS.contains(&name.as_str()) => {
            LinkError::ReservedSymbol { name, line }
        }
        other => LinkError::Asm(other),
    })
}

/// Assembles crt0 + `kernel_asm` and builds the ELF image (see the module documentation).
pub fn link_image(kernel_asm: &str, kernels: &[KernelInfo]) -> Result<ElfImage, LinkError> {
    link_image_with_rodata(kernel_asm, kernels, &[])
}

/// As [`link_image`], with `.rodata` contents (addressed by the code through [`RODATA_SYMBOL`]).
pub fn link_image_with_rodata(kernel_asm: &str, kernels: &[KernelInfo], rodata: &[u8]) -> Result<ElfImage, LinkError> {
    link_user(UserCode::Text(kernel_asm), kernels, rodata)
}

/// As [`link_image_with_rodata`] for typed assembly (the compiler's output): the same image as
/// linking the listing's text, without printing and parsing it. A label named like a layout
/// symbol is [`LinkError::ReservedSymbol`] with line 0; other problems are
/// [`LinkError::Listing`].
pub fn link_listing(listing: &Listing, kernels: &[KernelInfo], rodata: &[u8]) -> Result<ElfImage, LinkError> {
    link_user(UserCode::Listing(listing), kernels, rodata)
}

fn link_user(code: UserCode<'_>, kernels: &[KernelInfo], rodata: &[u8]) -> Result<ElfImage, LinkError> {
    let rodata_bytes = u32::try_from(rodata.len())
        .map_err(|_| LinkError::Elf(ElfWriteError::TooLarge { end: rodata.len() as u64 }))?;
    // Pass A: sizes (every layout-dependent expansion has a fixed size; see `assemble`).
    let provisional = Layout::new(4, rodata_bytes, DATA_BYTES, 0).map_err(LinkError::Elf)?;
    // The user code behind the full crt0: its size and what it needs of crt0 do not depend on
    // where it is placed.
    let full = assemble_crt0(&provisional, Crt0Needs::ALL)?;
    let user = code.assemble(PROGRAM_BASE + 4 * full.words.len() as u32, &provisional, &full)?;
    let needs =
        Crt0Needs { bss: provisional.end > provisional.data_end, ..Crt0Needs::of(&user, code.names_data_layout()) };
    let crt0 = assemble_crt0(&provisional, needs)?;
    let user_base = PROGRAM_BASE + 4 * crt0.words.len() as u32;
    let text_words = crt0.words.len() + user.words.len();
    let text_bytes = u32::try_from(text_words * 4).map_err(|_| LinkError::Elf(ElfWriteError::TooLarge { end: 0 }))?;
    let layout = Layout::new(text_bytes, rodata_bytes, DATA_BYTES, 0).map_err(LinkError::Elf)?;
    // Pass B: final addresses.
    let crt0_final = assemble_crt0(&layout, needs)?;
    let user_final = code.assemble(user_base, &layout, &crt0_final)?;
    if crt0_final.words.len() != crt0.words.len() || user_final.words.len() != user.words.len() {
        return Err(LinkError::Internal("code size depends on the layout".into()));
    }
    let (crt0, user) = (crt0_final, user_final);

    // Globals = kernels (and any other exported entry).
    let mut globals = Vec::new();
    for g in &user.globals {
        let addr = *user.labels.get(g).ok_or_else(|| LinkError::UndefinedGlobal(g.clone()))?;
        globals.push((g.clone(), addr));
    }
    if globals.is_empty() {
        return Err(LinkError::NoKernels);
    }
    for (i, k) in kernels.iter().enumerate() {
        if !globals.iter().any(|(g, _)| *g == k.name) {
            return Err(LinkError::UnknownKernel(k.name.clone()));
        }
        if kernels[..i].iter().any(|o| o.name == k.name) {
            return Err(LinkError::DuplicateKernel(k.name.clone()));
        }
    }

    let mut symbols = Vec::new();
    let start = crt0.labels["_start"];
    let spike_end = crt0.labels["spike_end"];
    for (name, &addr) in &crt0.labels {
        if name != "_start" && name != "spike_end" {
            symbols.push(ElfSymbol::label(name.clone(), addr));
        }
    }
    for (name, &addr) in &user.labels {
        if !user.globals.contains(name) {
            symbols.push(ElfSymbol::label(name.clone(), addr));
        }
    }
    symbols.push(ElfSymbol::global("_start", start, spike_end - start, SymbolKind::Func));
    symbols.push(ElfSymbol::global("spike_end", spike_end, 0, SymbolKind::Func));
    let text_end = layout.text_end;
    let mut starts: Vec<u32> = globals.iter().map(|&(_, a)| a).collect();
    starts.sort_unstable();
    for (name, addr) in &globals {
        let next = starts.iter().copied().find(|&a| a > *addr).unwrap_or(text_end);
        symbols.push(ElfSymbol::global(name.clone(), *addr, next - addr, SymbolKind::Func));
    }
    symbols.push(ElfSymbol::global("BUFFER_ADDR", layout.data, 0, SymbolKind::NoType));
    symbols.push(ElfSymbol::global("BUFFER_SIZE", layout.data + 4, 0, SymbolKind::NoType));

    let resources = kernels
        .iter()
        .map(|k| {
            let usage = ResourceUsage {
                vgprs: None,
                sgprs: None,
                lds_bytes: Some(k.local_bytes.into()),
                pds_bytes: Some(k.private_bytes.into()),
                lds_stack: Some(COMPILED_WARP_STACK_BYTES.into()),
                pds_stack: None,
            };
            (k.name.clone(), usage)
        })
        .collect();
    let lines = line_table(&user);
    // What memory each access may reach (crt0's and the code's `.mem` rows).
    // (None when the code has no rows: crt0's alone make no load private.)
    let mem: Vec<_> = crt0.mem.iter().chain(&user.mem).copied().collect();
    let notes = if user.mem.is_empty() {
        Vec::new()
    } else {
        vec![(super::mem_class::SECTION.to_string(), super::mem_class::encode(&mem))]
    };
    let mut text = crt0.words;
    text.extend(user.words);
    Ok(ElfImage {
        text,
        rodata: rodata.to_vec(),
        data: vec![0; DATA_BYTES as usize],
        bss_size: 0,
        symbols,
        kernels: kernels.to_vec(),
        resources,
        notes,
        lines,
    })
}

/// The source-line table of the user text's `.file`/`.loc` directives (`None` without rows).
fn line_table(user: &Program) -> Option<super::lines::LineTable> {
    if user.lines.is_empty() {
        return None;
    }
    let mut t = super::lines::LineTable { files: user.files.clone(), ..Default::default() };
    for r in &user.lines {
        let Ok(file) = u16::try_from(r.file) else { continue };
        let col = u16::try_from(r.col).unwrap_or(u16::MAX);
        t.push(super::lines::Row { pc: r.pc, file, col, line: r.line });
    }
    Some(t)
}

/// Assembles crt0 + `kernel_asm` into ELF bytes (see the module documentation).
pub fn link(kernel_asm: &str, kernels: &[KernelInfo]) -> Result<Vec<u8>, LinkError> {
    write_elf(&link_image(kernel_asm, kernels)?).map_err(LinkError::Elf)
}

// ---- kernel declarations ----------------------------------------------------------------------

/// Why a kernel declaration text cannot be parsed. Lines are 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclError {
    /// Malformed text.
    Syntax { line: usize, message: String },
    /// A by-value parameter type whose size is unknown.
    UnknownType { line: usize, ty: String },
    /// A pointer parameter without `global`, `constant` or `local`.
    MissingAddressSpace { line: usize, param: String },
    /// The same kernel declared twice.
    DuplicateKernel { line: usize, name: String },
}

impl fmt::Display for DeclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax { line, message } => write!(f, "line {line}: {message}"),
            Self::UnknownType { line, ty } => write!(f, "line {line}: unknown by-value type `{ty}`"),
            Self::MissingAddressSpace { line, param } => {
                write!(f, "line {line}: pointer parameter `{param}` needs global, constant or local")
            }
            Self::DuplicateKernel { line, name } => write!(f, "line {line}: kernel `{name}` declared twice"),
        }
    }
}

impl std::error::Error for DeclError {}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Num(u64),
    Punct(char),
}

/// Splits declaration text into tokens with their lines (comments removed).
fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>, DeclError> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '#' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '/' if text[i..].starts_with("//") => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '/' if text[i..].starts_with("/*") => {
                let start = line;
                chars.next();
                loop {
                    match chars.next() {
                        Some((j, '*')) if text[j..].starts_with("*/") => {
                            chars.next();
                            break;
                        }
                        Some((_, '\n')) => line += 1,
                        Some(_) => {}
                        None => {
                            return Err(DeclError::Syntax { line: start, message: "unterminated `/*` comment".into() })
                        }
                    }
                }
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut s = c.to_string();
                while let Some((_, c)) = chars.next_if(|&(_, c)| c.is_ascii_alphanumeric() || c == '_') {
                    s.push(c);
                }
                out.push((Tok::Ident(s), line));
            }
            c if c.is_ascii_digit() => {
                let mut s = c.to_string();
                while let Some((_, c)) = chars.next_if(|&(_, c)| c.is_ascii_alphanumeric()) {
                    s.push(c);
                }
                let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                    Some(h) => u64::from_str_radix(h, 16).ok(),
                    None => s.trim_end_matches(['u', 'U']).parse().ok(),
                };
                let v = v.ok_or_else(|| DeclError::Syntax { line, message: format!("bad number `{s}`") })?;
                out.push((Tok::Num(v), line));
            }
            '(' | ')' | ',' | '*' | ';' => out.push((Tok::Punct(c), line)),
            other => return Err(DeclError::Syntax { line, message: format!("unexpected character `{other}`") }),
        }
    }
    Ok(out)
}

/// Token cursor.
struct Cursor {
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

impl Cursor {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }
    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map_or(1, |&(_, l)| l)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(t, _)| t.clone());
        self.pos += usize::from(t.is_some());
        t
    }
    fn err(&self, message: impl Into<String>) -> DeclError {
        DeclError::Syntax { line: self.line(), message: message.into() }
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(i)) if i == s)
    }
    fn expect(&mut self, c: char) -> Result<(), DeclError> {
        match self.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            _ => {
                self.pos = self.pos.saturating_sub(1);
                Err(self.err(format!("expected `{c}`")))
            }
        }
    }
    fn ident(&mut self, what: &str) -> Result<String, DeclError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.err(format!("expected {what}"))),
        }
    }
}

/// Attributes collected for one kernel.
#[derive(Default)]
struct Attrs {
    text: Vec<String>,
    reqd: Option<[u32; 3]>,
    hint: Option<[u32; 3]>,
    vec_hint: String,
    local_bytes: u32,
    private_bytes: u32,
}

/// True if the next tokens start an attribute (`__attribute__` or a known attribute name).
fn at_attribute(c: &Cursor) -> bool {
    const NAMES: [&str; 6] = [
        "__attribute__",
        "reqd_work_group_size",
        "work_group_size_hint",
        "vec_type_hint",
        "local_bytes",
        "private_bytes",
    ];
    matches!(c.peek(), Some(Tok::Ident(s)) if NAMES.contains(&s.as_str()))
}

/// Parses one attribute (plain or `__attribute__((a, b))`) into `attrs`.
fn attribute(c: &mut Cursor, attrs: &mut Attrs) -> Result<(), DeclError> {
    if c.is_ident("__attribute__") {
        c.next();
        c.expect('(')?;
        c.expect('(')?;
        loop {
            one_attribute(c, attrs)?;
            if c.is_punct(',') {
                c.next();
                continue;
            }
            break;
        }
        c.expect(')')?;
        return c.expect(')');
    }
    one_attribute(c, attrs)
}

fn u32_list(c: &mut Cursor, n: usize) -> Result<Vec<u32>, DeclError> {
    c.expect('(')?;
    let mut v = Vec::new();
    for i in 0..n {
        if i > 0 {
            c.expect(',')?;
        }
        match c.next() {
            Some(Tok::Num(x)) if x <= u32::MAX as u64 => v.push(x as u32),
            _ => return Err(c.err("expected a number")),
        }
    }
    c.expect(')')?;
    Ok(v)
}

fn one_attribute(c: &mut Cursor, attrs: &mut Attrs) -> Result<(), DeclError> {
    let name = c.ident("an attribute")?;
    match name.as_str() {
        "reqd_work_group_size" | "work_group_size_hint" => {
            let v = u32_list(c, 3)?;
            let dims = [v[0], v[1], v[2]];
            attrs.text.push(format!("{name}({},{},{})", v[0], v[1], v[2]));
            if name == "reqd_work_group_size" {
                attrs.reqd = Some(dims);
            } else {
                attrs.hint = Some(dims);
            }
        }
        "vec_type_hint" => {
            c.expect('(')?;
            let ty = c.ident("a type")?;
            c.expect(')')?;
            attrs.text.push(format!("vec_type_hint({ty})"));
            attrs.vec_hint = ty;
        }
        "local_bytes" => attrs.local_bytes = u32_list(c, 1)?[0],
        "private_bytes" => attrs.private_bytes = u32_list(c, 1)?[0],
        other => return Err(c.err(format!("unknown attribute `{other}`"))),
    }
    Ok(())
}

/// Size of a by-value type written in canonical form (`uint`, `float4`, …).
fn value_size(ty: &str) -> Option<u32> {
    const SCALARS: [(&str, u32); 15] = [
        ("char", 1),
        ("uchar", 1),
        ("short", 2),
        ("ushort", 2),
        ("half", 2),
        ("int", 4),
        ("uint", 4),
        ("float", 4),
        ("long", 8),
        ("ulong", 8),
        ("double", 8),
        ("size_t", 4),
        ("ptrdiff_t", 4),
        ("intptr_t", 4),
        ("uintptr_t", 4),
    ];
    if let Some(&(_, s)) = SCALARS.iter().find(|(n, _)| *n == ty) {
        return Some(s);
    }
    let split = ty.find(|c: char| c.is_ascii_digit())?;
    let (base, n) = ty.split_at(split);
    let elem = SCALARS[..11].iter().find(|(b, _)| *b == base)?.1;
    let lanes: u32 = match n {
        "2" => 2,
        "3" | "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    Some(elem * lanes)
}

/// Canonical type name from C words (`unsigned int` → `uint`, `signed char` → `char`).
fn canonical_type(words: &[String]) -> String {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["unsigned"] => "uint".into(),
        ["unsigned", rest @ ..] => format!("u{}", rest.join(" ")),
        ["signed"] => "int".into(),
        ["signed", rest @ ..] => rest.join(" "),
        _ => w.join(" "),
    }
}

/// Parses one parameter from its tokens.
fn parameter(toks: &[(Tok, usize)], line: usize) -> Result<ArgInfo, DeclError> {
    let syntax = |m: String| DeclError::Syntax { line, message: m };
    let Some(((Tok::Ident(name), _), rest)) = toks.split_last() else {
        return Err(syntax("a parameter needs a name".into()));
    };
    let mut space = None;
    let mut quals = 0;
    let mut pointer = false;
    let mut ty = Vec::new();
    for (t, _) in rest {
        match t {
            Tok::Punct('*') if !pointer && !ty.is_empty() => pointer = true,
            Tok::Punct('*') => return Err(syntax(format!("unsupported pointer form in parameter `{name}`"))),
            Tok::Ident(w) => match w.trim_start_matches("__") {
                "global" => space = Some(AddressSpace::Global),
                "constant" => space = Some(AddressSpace::Constant),
                "local" => space = Some(AddressSpace::Local),
                "private" => space = Some(AddressSpace::Private),
                "const" if !pointer => quals |= qualifier::CONST,
                "volatile" if !pointer => quals |= qualifier::VOLATILE,
                "restrict" if pointer => quals |= qualifier::RESTRICT,
                "const" | "volatile" => {} // qualifies the pointer itself: not reported
                "restrict" => return Err(syntax(format!("`restrict` on a non-pointer `{name}`"))),
                _ if pointer => return Err(syntax(format!("unexpected `{w}` after `*` in `{name}`"))),
                _ => ty.push(w.clone()),
            },
            _ => return Err(syntax(format!("unexpected token in parameter `{name}`"))),
        }
    }
    if ty.is_empty() {
        return Err(syntax(format!("parameter `{name}` has no type")));
    }
    let base = canonical_type(&ty);
    let (address_space, type_name, size, type_qualifiers) = if pointer {
        let space = match space {
            Some(s @ (AddressSpace::Global | AddressSpace::Constant | AddressSpace::Local)) => s,
            _ => return Err(DeclError::MissingAddressSpace { line, param: name.clone() }),
        };
        let q = if space == AddressSpace::Constant { quals | qualifier::CONST } else { quals };
        (space, format!("{base}*"), 4, q)
    } else {
        if matches!(space, Some(AddressSpace::Global | AddressSpace::Constant | AddressSpace::Local)) {
            return Err(syntax(format!("by-value parameter `{name}` cannot be in an address space")));
        }
        let size = value_size(&base).ok_or(DeclError::UnknownType { line, ty: base.clone() })?;
        (AddressSpace::Private, base, size, 0)
    };
    Ok(ArgInfo {
        name: name.clone(),
        type_name,
        address_space,
        access: Access::None,
        type_qualifiers,
        size,
        kind: ArgKind::Plain,
    })
}

/// Parses kernel declarations (format in the module documentation).
pub fn parse_kernel_decls(text: &str) -> Result<Vec<KernelInfo>, DeclError> {
    let mut c = Cursor { toks: tokenize(text)?, pos: 0 };
    let mut out: Vec<KernelInfo> = Vec::new();
    loop {
        while c.is_punct(';') {
            c.next();
        }
        let Some(first) = c.peek() else { break };
        if !matches!(first, Tok::Ident(k) if k == "kernel" || k == "__kernel") {
            return Err(c.err("expected `kernel`"));
        }
        c.next();
        let mut attrs = Attrs::default();
        while at_attribute(&c) {
            attribute(&mut c, &mut attrs)?;
        }
        if c.is_ident("void") {
            c.next();
        }
        while at_attribute(&c) {
            attribute(&mut c, &mut attrs)?;
        }
        let line = c.line();
        let name = c.ident("a kernel name")?;
        c.expect('(')?;
        let mut args = Vec::new();
        if c.is_ident("void") && c.toks.get(c.pos + 1).map(|(t, _)| t) == Some(&Tok::Punct(')')) {
            c.next();
        }
        while !c.is_punct(')') {
            let start = c.pos;
            let pline = c.line();
            while c.peek().is_some() && !c.is_punct(',') && !c.is_punct(')') {
                c.next();
            }
            if c.peek().is_none() {
                return Err(c.err(format!("unterminated parameter list of `{name}`")));
            }
            args.push(parameter(&c.toks[start..c.pos], pline)?);
            if c.is_punct(',') {
                c.next();
                if c.is_punct(')') {
                    return Err(c.err("expected a parameter after `,`"));
                }
            }
        }
        c.expect(')')?;
        while at_attribute(&c) {
            attribute(&mut c, &mut attrs)?;
        }
        if out.iter().any(|k| k.name == name) {
            return Err(DeclError::DuplicateKernel { line, name });
        }
        out.push(KernelInfo {
            name,
            args,
            reqd_work_group_size: attrs.reqd,
            work_group_size_hint: attrs.hint,
            vec_type_hint: attrs.vec_hint,
            attributes: attrs.text.join(" "),
            private_bytes: attrs.private_bytes,
            local_bytes: attrs.local_bytes,
            // Hand-written code is not analysed.
            grouping_free: false,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::elf::VentusElf;

    const VECADD: &str = "
        .globl vecadd
    vecadd:
        lw      t0, 0(a0)
        ret
    ";

    #[test]
    fn crt0_has_the_variant_d_shape() {
        let layout = Layout::new(0x100, 0, DATA_BYTES, 0).unwrap();
        let p = assemble_crt0(&layout, Crt0Needs::ALL).unwrap();
        assert_eq!(p.labels["_start"], PROGRAM_BASE);
        // gp, vsetvli, FS, sp, tp, s0, bss loop, metadata, mtvec, jalr, endprg, j, spike_end.
        let text: Vec<String> = p
            .words
            .iter()
            .enumerate()
            .map(|(i, &w)| crate::isa::disasm::disassemble(w, PROGRAM_BASE + 4 * i as u32).unwrap())
            .collect();
        let has = |s: &str| text.iter().any(|t| t.contains(s));
        for want in ["vsetvli", "mstatus", "mul", "jalr", "endprg", "mtvec"] {
            assert!(has(want), "{want} missing from crt0: {text:#?}");
        }
        let spike_end = p.labels["spike_end"];
        assert_eq!(
            spike_end - PROGRAM_BASE,
            4 * (text.iter().position(|t| t.starts_with("li\tt1, 1")).unwrap() as u32)
        );
    }

    /// crt0 reads the metadata words at the offsets `abi::launch::md` defines (the runtime
    /// writes them there): the entry, the argument base and the print buffer's address and size.
    #[test]
    fn crt0_reads_the_metadata_where_the_runtime_writes_it() {
        use crate::abi::launch::{md, Metadata};
        let layout = Layout::new(0x100, 0, DATA_BYTES, 0).unwrap();
        let p = assemble_crt0(&layout, Crt0Needs::ALL).unwrap();
        let loads: Vec<(u8, u32)> = p
            .words
            .iter()
            .filter_map(|&w| crate::isa::decode(w))
            .filter(|i| i.op == crate::isa::Op::Lw && i.rs1 == 5) // lw _, off(t0): t0 = CSR_KNL
            .map(|i| (i.rd, i.imm as u32))
            .collect();
        // t1 = entry (the kernel crt0 calls), a0 = argument buffer, t2/t3 = print address/size.
        assert_eq!(loads, [(6, md::ENTRY), (10, md::ARG_BASE), (7, md::PRINT_ADDR), (28, md::PRINT_SIZE)]);
        let meta = Metadata {
            entry: 0x8000_0100,
            arg_base: 0x9000_0000,
            range: crate::abi::launch::NdRange::whole_groups(1, [1; 3], [1; 3], [0; 3]),
            print_addr: 0x9010_0000,
            print_size: 0x1000,
            pds_bytes_per_thread: 0x1000,
        };
        let bytes = meta.to_bytes();
        let word = |off: u32| u32::from_le_bytes(bytes[off as usize..off as usize + 4].try_into().unwrap());
        assert_eq!(
            [md::ENTRY, md::ARG_BASE, md::PRINT_ADDR, md::PRINT_SIZE].map(word),
            [meta.entry, meta.arg_base, meta.print_addr, meta.print_size]
        );
    }

    /// The start-up part of the crt0 of a linked image, disassembled: up to the kernel call.
    fn crt0_text(asm: &str) -> Vec<String> {
        let img = link_image(asm, &[]).unwrap();
        let elf = VentusElf::parse(&write_elf(&img).unwrap()).unwrap();
        let entry = elf.kernel_entry("k").unwrap();
        let n = ((entry - PROGRAM_BASE) / 4) as usize;
        let text: Vec<String> = img.text[..n]
            .iter()
            .enumerate()
            .map(|(i, &w)| crate::isa::disasm::disassemble(w, PROGRAM_BASE + 4 * i as u32).unwrap())
            .collect();
        // Up to the call of the kernel (`spike_end` after it stores to `tohost`).
        let call = text.iter().position(|t| t.starts_with("jalr")).unwrap();
        text[..=call].to_vec()
    }

    #[test]
    fn crt0_sets_up_only_what_the_code_reads() {
        let writes = |text: &[String], reg: &str| text.iter().any(|t| t.contains(&format!("\t{reg},")));
        let lean = crt0_text(".globl k\nk: lw t0, 0(a0)\n ret");
        for reg in ["sp", "s0", "tp", "gp"] {
            assert!(!writes(&lean, reg), "{reg} set up for code that never reads it: {lean:#?}");
        }
        assert!(!lean.iter().any(|t| t.starts_with("sw")), "print words stored: {lean:#?}");
        assert!(lean.iter().any(|t| t.contains("vsetvli")) && lean.iter().any(|t| t.contains("mtvec")));
        assert_eq!(lean.len(), 11, "{lean:#?}");
        for (code, reg) in
            [("addi sp, sp, -16", "sp"), ("lw t1, 0(s0)", "s0"), ("add t1, tp, a0", "tp"), ("mv t1, gp", "gp")]
        {
            let text = crt0_text(&format!(".globl k\nk: {code}\n ret"));
            assert!(writes(&text, reg), "{reg} not set up for `{code}`: {text:#?}");
        }
        // A vector instruction reading a scalar register counts too.
        assert!(writes(&crt0_text(".globl k\nk: vadd.vx v4, v4, s0\n ret"), "s0"));
        let print = crt0_text(".globl k\nk: la t0, BUFFER_ADDR\n ret");
        assert_eq!(print.iter().filter(|t| t.starts_with("sw")).count(), 2, "{print:#?}");
        // Data in the text: the full variant D.
        let data = crt0_text(".globl k\nk: ret\n .word 0x12345678");
        assert_eq!(data.len(), 30, "{data:#?}");
    }

    #[test]
    fn link_places_kernel_after_crt0_with_symbols() {
        let k = parse_kernel_decls("kernel vecadd(global float* a)").unwrap();
        let img = link_image(VECADD, &k).unwrap();
        let elf = VentusElf::parse(&write_elf(&img).unwrap()).unwrap();
        // `lw t0, 0(a0)` reads none of gp/sp/tp/s0: the lean crt0.
        let lean = Crt0Needs { gp: false, sp: false, tp: false, s0: false, print_words: false, bss: false };
        let crt0_len = assemble_crt0(&Layout::new(4, 0, 8, 0).unwrap(), lean).unwrap().words.len() as u32;
        assert_eq!(elf.kernel_entry("vecadd"), Some(PROGRAM_BASE + 4 * crt0_len));
        assert_eq!(elf.kernel_names(), vec!["vecadd".to_string()]);
        assert_eq!(elf.symbol("vecadd").unwrap().size, 8);
        let ru = elf.resource_usage("vecadd").unwrap();
        assert_eq!((ru.vgprs, ru.lds_stack), (None, Some(COMPILED_WARP_STACK_BYTES.into())));
    }

    #[test]
    fn the_memory_classes_of_crt0_and_the_code_reach_the_elf() {
        use crate::abi::mem_class::{decode, MemClass, SECTION};
        let k = parse_kernel_decls("kernel k(global int* a)").unwrap();
        let src = ".globl k\nk:\n    lw t0, 0(a0)\n.mem arg0\n    sw zero, 0(t0)\n    ret\n";
        let elf = VentusElf::parse(&write_elf(&link_image(src, &k).unwrap()).unwrap()).unwrap();
        let (_, _, data) = elf.sections.iter().find(|(n, _, _)| n == SECTION).expect("the table");
        let rows = decode(data).unwrap();
        let entry = elf.kernel_entry("k").unwrap();
        assert!(rows.contains(&(entry + 4, MemClass::Arg(0))), "{rows:x?}");
        // crt0's own store (`tohost`, after the kernel returns) is of its program data.
        assert!(rows.iter().any(|&(pc, c)| pc < entry && c == MemClass::ProgramData), "{rows:x?}");
        // The code's one row, and nothing else after the entry.
        assert!(rows.iter().filter(|r| r.0 >= entry).count() == 1);
    }

    #[test]
    fn link_errors() {
        assert_eq!(link_image("ret", &[]), Err(LinkError::NoKernels));
        assert_eq!(link_image(".globl k\nret", &[]), Err(LinkError::UndefinedGlobal("k".into())));
        let k = parse_kernel_decls("kernel other()").unwrap();
        assert_eq!(link_image(VECADD, &k), Err(LinkError::UnknownKernel("other".into())));
        assert_eq!(
            link_image(".globl k\nk: ret\ntohost: ret", &[]),
            Err(LinkError::ReservedSymbol { name: "tohost".into(), line: 3 })
        );
        match link_image(".globl k\nk: ret\n  bogus a0", &[]) {
            Err(LinkError::Asm(e)) => assert_eq!(e.line(), 3),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn user_code_sees_layout_symbols() {
        let img = link_image(".globl k\nk: la t0, BUFFER_ADDR\n li t1, tohost\n ret", &[]).unwrap();
        let layout = Layout::of(&img).unwrap();
        let elf = VentusElf::parse(&write_elf(&img).unwrap()).unwrap();
        assert_eq!(elf.symbol("BUFFER_ADDR").unwrap().addr, layout.data);
        assert_eq!(elf.symbol("tohost").unwrap().addr, layout.tohost);
    }

    #[test]
    fn declarations() {
        let text = "
            # two kernels
            __kernel void saxpy(__global float* y, global const float *x, float a, unsigned int n);
            kernel __attribute__((reqd_work_group_size(64, 1, 1))) void reduce(
                global const float* restrict in, /* partial sums */ global float* out,
                local float* scratch, uint4 v, size_t n) local_bytes(256)
            kernel void none(void)
        ";
        let ks = parse_kernel_decls(text).unwrap();
        assert_eq!(ks.len(), 3);
        let s = &ks[0];
        assert_eq!(s.name, "saxpy");
        let got: Vec<_> =
            s.args.iter().map(|a| (a.name.as_str(), a.type_name.as_str(), a.address_space, a.size)).collect();
        assert_eq!(
            got,
            vec![
                ("y", "float*", AddressSpace::Global, 4),
                ("x", "float*", AddressSpace::Global, 4),
                ("a", "float", AddressSpace::Private, 4),
                ("n", "uint", AddressSpace::Private, 4),
            ]
        );
        assert_eq!(s.args[1].type_qualifiers, qualifier::CONST);
        let r = &ks[1];
        assert_eq!(r.reqd_work_group_size, Some([64, 1, 1]));
        assert_eq!(r.attributes, "reqd_work_group_size(64,1,1)");
        assert_eq!(r.local_bytes, 256);
        assert_eq!(r.args[0].type_qualifiers, qualifier::CONST | qualifier::RESTRICT);
        assert_eq!(r.args[2].address_space, AddressSpace::Local);
        assert_eq!((r.args[3].type_name.as_str(), r.args[3].size), ("uint4", 16));
        assert_eq!(r.args[4].size, 4);
        assert!(ks[2].args.is_empty());
        assert!(value_size("float3") == Some(16) && value_size("float5").is_none());
    }

    #[test]
    fn declaration_errors() {
        let err = |t: &str| parse_kernel_decls(t).unwrap_err();
        assert!(matches!(err("kernel k(float* p)"), DeclError::MissingAddressSpace { line: 1, .. }));
        assert!(matches!(err("kernel k(\n mystruct s)"), DeclError::UnknownType { line: 2, .. }));
        assert!(matches!(err("kernel k() kernel k()"), DeclError::DuplicateKernel { .. }));
        assert!(matches!(err("void k()"), DeclError::Syntax { .. }));
        assert!(matches!(err("kernel k(int a,)"), DeclError::Syntax { .. }));
        assert!(matches!(err("kernel k(int)"), DeclError::Syntax { .. }));
        assert!(matches!(err("kernel k(int a"), DeclError::Syntax { .. }));
        assert!(matches!(err("kernel k() /* open"), DeclError::Syntax { .. }));
        assert!(matches!(err("kernel k() bogus(1)"), DeclError::Syntax { .. }));
        assert!(matches!(err("kernel k(global int a)"), DeclError::Syntax { .. }));
        assert!(parse_kernel_decls("").unwrap().is_empty());
    }
}
