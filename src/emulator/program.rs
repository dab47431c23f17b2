//! A loaded program: its load segments (to (re)fill the program window) and its text predecoded
//! once into [`Decoded`] entries, with `regext`/`regexti` prefixes fused into extended variants of
//! the instruction that follows them.
//!
//! Prefix model (ventus-isa.md §2.4): a prefix applies to the dynamically next instruction of the
//! warp, which is always the sequentially next one (a prefix never jumps). Executing a prefix at
//! index `i` therefore selects `ext[prefix.next_ext]` — the word at `i+1` decoded with the extension —
//! for the warp's next step; a jump that lands on `i+1` directly uses the plain entry.
//!
//! A program from one of our ELFs also keeps the ELF's source-line table ([`crate::abi::lines`]),
//! so that faults can name the OpenCL C line of their pc ([`Program::source_location`]); a
//! malformed table is ignored with a warning (the program runs, its faults name no line).

use super::memory::ProgramPage;
use crate::abi::{self, elf::VentusElf, image::LaunchImage};
use crate::isa::regs::csr;
use crate::isa::{self, Fmt, Op};

/// No extended successor.
pub const NO_EXT: u32 = u32::MAX;

/// One predecoded instruction. Register numbers are final (0..=255, extension applied) and the
/// immediate is final (including `regexti`'s 11-bit immediates).
#[derive(Debug, Clone, Copy)]
pub struct Decoded {
    /// `None` = illegal instruction word.
    pub op: Option<Op>,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub rs3: u8,
    pub imm: i32,
    pub vm: bool,
    pub aux: u8,
    pub word: u32,
    /// For prefixes: index into the extended table of the following instruction's variant.
    pub next_ext: u32,
    /// A host call installed here: index + 1 into the program's host calls (0 = none). Such an
    /// entry has `op == None`, so only the illegal-instruction path looks at it.
    pub host_call: u8,
    /// Whether what this instruction does can be seen by, or depends on, other warps or the
    /// host ([`Sharing`]); the work-group runner may run a warp's private instructions ahead of
    /// the other warps' turns ([`super::turn`]).
    pub sharing: Sharing,
    /// The straight-line run that starts here ([`Program::runs`]): how many entries from this
    /// one on (this one included, at most [`MAX_RUN`]) are plain — an operation that is not
    /// shared ([`Sharing::Shared`]), not a host call, and continues at the next word without
    /// changing the warp's mask (no jump, branch, SIMT, barrier or system instruction) — or a
    /// prefix whose extended variant is plain ([`paired`]): in a run, the entry after such a
    /// prefix stands for that variant (what the warp runs there), so the run goes on after it.
    /// 0: this entry is not plain. Extended variants always have 0.
    pub run: u16,
}

/// The register file `d` writes and the registers it writes (ending at most at 256): its
/// destination, or two for `amocas.d`, which writes the pair `vd`, `vd + 1`
/// (no other instruction writes more than its destination: a `vtype` with LMUL > 1 is
/// illegal, so there are no register groups). The AMOs are encoded as scalar A instructions
/// but act per lane on vector registers (`exec::scalar`): their destination is a `v`
/// register, as is that of a read of a per-lane work-item CSR. `None`: it writes no register.
pub(super) fn written(d: &Decoded) -> Option<(crate::isa::roles::Class, std::ops::Range<usize>)> {
    use crate::isa::roles::Class;
    let op = d.op?;
    let rd = op.desc().roles.rd;
    if !rd.writes() {
        return None;
    }
    let (class, n) = match op {
        Op::AmocasD => (Class::V, 2),
        // Every AMO but `sc.w`, which writes its scalar result.
        _ if op.desc().fmt == Fmt::Amo && op != Op::ScW => (Class::V, 1),
        // A read of a per-lane work-item CSR writes the vector register `v[rd]` (`exec::csr`).
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci
            if (csr::GL_ID_X..=csr::LC_ID_Z).contains(&(d.imm as u16)) =>
        {
            (Class::V, 1)
        }
        _ => (rd.class()?, 1),
    };
    Some((class, d.rd as usize..(d.rd as usize + n).min(256)))
}

/// Write sets (an inherent impl here: `regset` knows nothing of decoded instructions).
impl RegBounds {
    /// Adds the registers `d` writes ([`written`]), and those of the extended
    /// variants a prefix selects when the caller walks them too.
    pub(super) fn add_writes(&mut self, d: &Decoded) {
        match written(d) {
            Some((crate::isa::roles::Class::X, w)) => self.x = self.x.max(w.end),
            Some((crate::isa::roles::Class::V, w)) => self.v.insert_range(w.start, w.end),
            _ => {}
        }
    }
}

/// The longest run [`Decoded::run`] records.
pub const MAX_RUN: u16 = 64;

/// Whether `d` may be part of a straight-line run ([`Decoded::run`]).
fn plain(d: &Decoded) -> bool {
    d.sharing != Sharing::Shared && straight(d)
}

/// The extended variant `d` selects, when `d` is a prefix (a host-call marker has no operation,
/// so it is none).
pub(super) fn selected<'e>(d: &Decoded, ext: &'e [Decoded]) -> Option<&'e Decoded> {
    matches!(d.op, Some(Op::Regext | Op::Regexti)).then(|| ext.get(d.next_ext as usize)).flatten()
}

/// The extended variant a prefix `d` selects ([`selected`]), when it is plain and no prefix
/// itself: then the prefix and its variant are two entries of a straight-line run
/// ([`Decoded::run`]).
pub(super) fn paired<'e>(d: &Decoded, ext: &'e [Decoded]) -> Option<&'e Decoded> {
    selected(d, ext).filter(|v| plain(v))
}

/// Whether `d` is an operation that continues at the next word without changing the warp's
/// mask: not a host call, no jump, branch, SIMT, prefix, barrier or system instruction
/// ([`Decoded::run`]'s condition, sharing aside).
pub(super) fn straight(d: &Decoded) -> bool {
    let Some(op) = d.op else { return false };
    d.host_call == 0
        && !matches!(
            op.desc().fmt,
            Fmt::J | Fmt::Jalr | Fmt::B | Fmt::Bare | Fmt::Prefix | Fmt::X3 | Fmt::Barrier | Fmt::VBranch | Fmt::Join
        )
}

/// How an instruction relates to other warps and the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// It changes only its own warp's registers, pc, CSRs and SIMT stack, or its lanes' words of
    /// private memory (`vlw.v`/`vsw.v` and the narrower forms: each lane's words are its own,
    /// [`super::exec`]'s `private_addr`, so no other warp can observe or change them).
    Private,
    /// It accesses global or local memory (loads too: their values depend on other warps'
    /// stores), is an
    /// atomic, a fence, a barrier or `endprg` (in a text with a barrier: see [`Program::new`]),
    /// writes `CSR_PRINT`, reads a per-lane CSR (from
    /// the metadata buffer), is a host call that does more than change registers
    /// ([`HostCall::registers_only`]) or is illegal.
    Shared,
    /// A scalar load: shared, unless its address is one no kernel store can change
    /// ([`super::memory::MemView::is_read_only`]: the argument and metadata buffers,
    /// read-only program data) or in the warp's own uniform stack
    /// ([`super::memory::MemView::in_warp_stack`]).
    ScalarLoad,
    /// A scalar store: shared, unless its address is in the warp's own uniform stack (spills
    /// and uniform temporaries of compiled code, `sw …(sp)`).
    ScalarStore,
}

impl Sharing {
    /// Whether [`super::exec`]'s `private` decides from the address (a scalar load or store),
    /// so that a straight-line run checks the entry before running it.
    #[inline(always)]
    pub fn by_address(self) -> bool {
        matches!(self, Sharing::ScalarLoad | Sharing::ScalarStore)
    }
}

/// [`Decoded::sharing`] of an instruction.
fn sharing(op: Op, imm: i32) -> Sharing {
    let shared = match op.desc().fmt {
        Fmt::Load => return Sharing::ScalarLoad,
        Fmt::Store => return Sharing::ScalarStore,
        Fmt::Csr | Fmt::CsrI => {
            let num = imm as u16;
            num == csr::PRINT || (csr::GL_ID_X..=csr::LC_ID_Z).contains(&num)
        }
        Fmt::Lr
        | Fmt::Amo
        | Fmt::Fence
        | Fmt::Bare
        | Fmt::X3
        | Fmt::Barrier
        | Fmt::VLoad
        | Fmt::VLoadStride
        | Fmt::VLoadIndex
        | Fmt::VLoad12
        | Fmt::VStore12 => true,
        _ => false,
    };
    if shared {
        Sharing::Shared
    } else {
        Sharing::Private
    }
}

/// Accumulated prefix state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Ext {
    rd: u8,
    rs1: u8,
    rs2: u8,
    rs3: u8,
    imm_hi: u32,
    validi: bool,
}

pub use super::regset::{RegBounds, VRegSet};

/// A loadable segment of the program window.
#[derive(Debug, Clone)]
pub struct LoadSegment {
    pub vaddr: u32,
    pub data: Vec<u8>,
    pub mem_size: u32,
    /// Kernels may store into the segment's pages (`PF_W`); text and read-only data may not.
    pub writable: bool,
}

/// Why a program cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramError {
    /// A segment lies outside the program window 0x8000_0000..0x9000_0000.
    SegmentOutsideWindow { vaddr: u32, mem_size: u32 },
    /// No executable bytes.
    NoText,
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgramError::SegmentOutsideWindow { vaddr, mem_size } => write!(
                f,
                "segment {vaddr:#010x}+{mem_size:#x} lies outside the program window {:#010x}..{:#010x}",
                abi::PROGRAM_BASE,
                abi::PROGRAM_BASE as u64 + abi::PROGRAM_SIZE as u64
            ),
            ProgramError::NoText => write!(f, "program has no executable segment"),
        }
    }
}
impl std::error::Error for ProgramError {}

/// [`Program::launch_reg_bounds`] results by (start, entry). A clone starts empty (host calls
/// installed on it change what its code writes).
#[derive(Default)]
struct LaunchBoundsCache(parking_lot::Mutex<Vec<(u32, u32, RegBounds)>>);
impl Clone for LaunchBoundsCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}
impl std::fmt::Debug for LaunchBoundsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LaunchBoundsCache")
    }
}

/// The translator's product for this program ([`Program::translation`]), made on first use;
/// type-erased, so the decoded program knows nothing of the translator above it. A clone starts
/// without one (host calls installed on it change its runs).
#[derive(Default)]
struct JitCache(#[cfg(target_arch = "x86_64")] std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>);
impl Clone for JitCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}
impl std::fmt::Debug for JitCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JitCache")
    }
}

/// A predecoded program.
#[derive(Debug, Clone)]
pub struct Program {
    text_base: u32,
    ops: Vec<Decoded>,
    ext: Vec<Decoded>,
    segments: Vec<LoadSegment>,
    host_calls: Vec<HostCall>,
    /// The entries the host-call markers replaced, by host call.
    host_originals: Vec<Decoded>,
    /// No instruction writes a register at or above these (see [`Program::reg_bounds`]).
    reg_bounds: RegBounds,
    /// [`Program::launch_reg_bounds`] computed so far.
    launch_bounds: LaunchBoundsCache,
    /// The compiled runs ([`Program::jit`]).
    jit: JitCache,
    /// Some instruction accesses `fflags` or `fcsr` (see [`Program::reads_fflags`]).
    reads_fflags: bool,
    /// Unique per built program (clones share it): the scheduler's slots keep the read-only
    /// pages of the program they last loaded.
    id: u64,
    /// The pages of the program window the segments occupy (see [`Program::pages`]).
    pages: Vec<ProgramPage>,
    /// Source lines of the text (our ELFs only).
    lines: Option<std::sync::Arc<abi::lines::LineTable>>,
}

fn illegal(word: u32) -> Decoded {
    Decoded {
        op: None,
        rd: 0,
        rs1: 0,
        rs2: 0,
        rs3: 0,
        imm: 0,
        vm: true,
        aux: 0,
        word,
        next_ext: NO_EXT,
        host_call: 0,
        sharing: Sharing::Shared,
        run: 0,
    }
}

/// Decodes `word` under prefix state `e`.
fn decode_with(word: u32, e: Ext) -> Decoded {
    let Some(i) = isa::decode(word) else { return illegal(word) };
    let fmt = i.op.desc().fmt;
    let fl = fmt.fields();
    let x = |r: u8, ext: u8| r | (ext << 5);
    let mut d = Decoded {
        op: Some(i.op),
        rd: i.rd,
        rs1: i.rs1,
        rs2: i.rs2,
        rs3: i.rs3,
        imm: i.imm,
        vm: i.vm,
        aux: i.aux,
        word,
        next_ext: NO_EXT,
        host_call: 0,
        sharing: sharing(i.op, i.imm),
        run: 0,
    };
    if e == Ext::default() {
        return d;
    }
    // Operand roles (`isa::roles`): a destination field that is only read (the data register
    // of the standard RVV stores, bits 11:7) is extended through slot 3; fields holding
    // immediates and the unextended scalar FP operand of the `.vf` forms are not extended.
    let roles = i.op.desc().roles;
    let rd_slot = if roles.rd.reads() && !roles.rd.writes() { e.rs3 } else { e.rd };
    if fl.rd && roles.rd.extended() {
        d.rd = x(i.rd, rd_slot);
    }
    if fl.rs1 && roles.rs1.extended() {
        d.rs1 = x(i.rs1, e.rs1);
    }
    if fl.rs2 && roles.rs2.extended() {
        d.rs2 = x(i.rs2, e.rs2);
    }
    if fl.rs3 && roles.rs3.extended() {
        d.rs3 = x(i.rs3, e.rs3);
    }
    if e.validi {
        let field = (word >> 15) & 0x1f;
        match fmt {
            Fmt::VI | Fmt::VIu | Fmt::VMvI => d.imm = (field | (e.imm_hi << 5)) as i32,
            _ if i.op == Op::VmergeVim => d.rs1 = field as u8, // immediate re-derived at execution
            _ => {}
        }
    }
    d
}

impl Program {
    /// Builds a program from load segments; executable ranges are given separately.
    pub fn new(segments: Vec<LoadSegment>, text: &[(u32, u32)]) -> Result<Program, ProgramError> {
        for s in &segments {
            let end = s.vaddr as u64 + s.mem_size.max(s.data.len() as u32) as u64;
            if s.vaddr < abi::PROGRAM_BASE || end > abi::PROGRAM_BASE as u64 + abi::PROGRAM_SIZE as u64 {
                return Err(ProgramError::SegmentOutsideWindow { vaddr: s.vaddr, mem_size: s.mem_size });
            }
        }
        let lo = text.iter().map(|r| r.0).min().ok_or(ProgramError::NoText)? & !3;
        let hi = text.iter().map(|r| r.1).max().ok_or(ProgramError::NoText)?;
        if hi <= lo {
            return Err(ProgramError::NoText);
        }
        let n = (hi - lo).div_ceil(4) as usize;
        let mut words = vec![0u32; n];
        for s in &segments {
            for (k, b) in s.data.iter().enumerate() {
                let a = s.vaddr as u64 + k as u64;
                if a >= lo as u64 && a < lo as u64 + 4 * n as u64 {
                    let off = (a - lo as u64) as usize;
                    words[off / 4] |= (*b as u32) << ((off % 4) * 8);
                }
            }
        }
        let mut ops: Vec<Decoded> = words.iter().map(|&w| decode_with(w, Ext::default())).collect();
        let mut ext = Vec::new();
        for (idx, op) in ops.iter_mut().enumerate() {
            Self::link_prefix(&words, op, idx, Ext::default(), &mut ext);
        }
        // The written destination registers (extension applied).
        let mut reg_bounds = RegBounds::NONE;
        for d in ops.iter().chain(&ext) {
            reg_bounds.add_writes(d);
        }
        let reads_fflags = ops.iter().chain(&ext).any(|d| {
            matches!(d.op, Some(Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci))
                && matches!(d.imm as u16 & 0xfff, csr::FFLAGS | csr::FCSR)
        });
        // When a warp finishes is visible to the others only through barriers (a finished warp
        // counts as arrived): in a text without one, `endprg` may end a warp's turn where it
        // stands instead of waiting a turn for its round-robin place.
        if !ops.iter().chain(&ext).any(|d| matches!(d.op, Some(Op::Barrier | Op::Barriersub))) {
            for d in ops.iter_mut().chain(ext.iter_mut()).filter(|d| d.op == Some(Op::Endprg)) {
                d.sharing = Sharing::Private;
            }
        }
        Self::runs(&mut ops, &ext);
        let pages = Self::pages_of(&segments);
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Program {
            text_base: lo,
            ops,
            ext,
            segments,
            host_calls: Vec::new(),
            host_originals: Vec::new(),
            reg_bounds,
            launch_bounds: LaunchBoundsCache::default(),
            jit: JitCache::default(),
            reads_fflags,
            id,
            pages,
            lines: None,
        })
    }

    /// If `d` is a prefix, creates the extended variant of the following word (recursively for
    /// prefix chains) and links it.
    fn link_prefix(words: &[u32], d: &mut Decoded, idx: usize, before: Ext, ext: &mut Vec<Decoded>) {
        let Some(op @ (Op::Regext | Op::Regexti)) = d.op else { return };
        let Some(&next_word) = words.get(idx + 1) else { return };
        let imm = (d.word >> 20) & 0xfff;
        let after = if op == Op::Regext {
            let e = crate::isa::prefix::RegExt::decode(imm);
            Ext { rd: e.rd, rs1: e.rs1, rs2: e.rs2, rs3: e.rs3, imm_hi: 0, validi: before.validi }
        } else {
            let e = crate::isa::prefix::RegExtI::decode(imm);
            Ext { rd: e.rd, rs1: 0, rs2: e.rs2, rs3: 0, imm_hi: e.imm_hi, validi: true }
        };
        let mut next = decode_with(next_word, after);
        Self::link_prefix(words, &mut next, idx + 1, after, ext);
        d.next_ext = ext.len() as u32;
        ext.push(next);
    }

    /// Makes the entries `private` flags private — loads no other warp's store can reach
    /// (`emulator::intervals`) — plainly and as every variant a prefix before them selects, and
    /// recomputes the runs.
    pub(super) fn make_private(&mut self, private: &[bool]) {
        for (d, &p) in self.ops.iter_mut().zip(private) {
            if p {
                d.sharing = Sharing::Private;
            }
        }
        let variants: Vec<(usize, usize)> = prefixed_variants(&self.ops, &self.ext).collect();
        for (k, x) in variants {
            if private.get(k) == Some(&true) {
                self.ext[x].sharing = Sharing::Private;
            }
        }
        Self::runs(&mut self.ops, &self.ext);
    }

    /// A program from a Ventus ELF (PT_LOAD segments; text = executable segments).
    pub fn from_elf(elf: &VentusElf) -> Result<Program, ProgramError> {
        let segments = elf
            .segments
            .iter()
            .map(|s| LoadSegment { vaddr: s.vaddr, data: s.data.clone(), mem_size: s.mem_size, writable: s.writable })
            .collect();
        let mut p = Program::new(segments, &elf.text_ranges())?;
        p.lines = match elf.line_table() {
            Ok(t) => t.map(std::sync::Arc::new),
            Err(e) => {
                log::warn!("ignoring the ELF's source-line table: {e}");
                None
            }
        };
        Ok(p)
    }

    /// The source location (`file:line[:col]`) of the code at `pc`, when the program carries a
    /// line table that covers it.
    pub fn source_location(&self, pc: u32) -> Option<abi::lines::SourceLoc> {
        self.lines.as_ref()?.lookup(pc)
    }

    /// A program from a launch image: the buffer based at 0x8000_0000 holds the text words; every
    /// image buffer inside the program window is a writable segment (an image does not tell text
    /// from data, and crt0 stores into its `.data`/`.bss` buffers).
    pub fn from_image(img: &LaunchImage) -> Result<Program, ProgramError> {
        let b = img.buffers.iter().find(|b| b.base == abi::PROGRAM_BASE).ok_or(ProgramError::NoText)?;
        let window = abi::PROGRAM_BASE as u64..abi::PROGRAM_BASE as u64 + abi::PROGRAM_SIZE as u64;
        let segments = img
            .buffers
            .iter()
            .filter(|s| window.contains(&(s.base as u64)))
            .map(|s| LoadSegment {
                vaddr: s.base,
                data: s.data.clone(),
                mem_size: s.size.max(s.alloc_size).max(s.data.len() as u32),
                writable: true,
            })
            .collect();
        Program::new(segments, &[(b.base, b.base + b.size)])
    }

    /// A program made of instruction words placed at `base` (e.g. from the assembler).
    pub fn from_words(base: u32, words: &[u32]) -> Result<Program, ProgramError> {
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let end = base.wrapping_add(data.len() as u32);
        Program::new(
            vec![LoadSegment { vaddr: base, mem_size: data.len() as u32, data, writable: false }],
            &[(base, end)],
        )
    }

    pub fn text_base(&self) -> u32 {
        self.text_base
    }
    /// The scalar and vector registers the program can write: every written destination
    /// register of its predecoded instructions and those of its host calls (the legacy `printf`
    /// writes `v0`). Warps are reset by clearing only the registers the program they ran can write.
    #[inline]
    pub fn reg_bounds(&self) -> RegBounds {
        let host_calls = self.host_calls.iter().fold(VRegSet::EMPTY, |s, c| s.union(c.vregs()));
        RegBounds { x: self.reg_bounds.x, v: self.reg_bounds.v.union(host_calls) }
    }
    /// The cache of [`Program::launch_reg_bounds`] (defined by `reach`, which walks the code):
    /// the bounds for (start, entry), computed by `walk` on the first call (`None`: the walk
    /// cannot follow the code, so [`Program::reg_bounds`]).
    pub(super) fn launch_reg_bounds_with(
        &self,
        start: u32,
        entry: u32,
        walk: impl FnOnce() -> Option<RegBounds>,
    ) -> RegBounds {
        let mut cache = self.launch_bounds.0.lock();
        if let Some(&(_, _, b)) = cache.iter().find(|c| c.0 == start && c.1 == entry) {
            return b;
        }
        let b = walk().unwrap_or_else(|| self.reg_bounds());
        cache.push((start, entry, b));
        b
    }
    /// The predecoded text (entry `i` at `text_base() + 4 i`).
    pub(super) fn ops(&self) -> &[Decoded] {
        &self.ops
    }
    /// The translator's product for this program, made by `make` on the first call (the
    /// translator, `jit`, is the only caller: one type per program). `None` if an earlier call
    /// made a value of another type.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn translation<T: std::any::Any + Send + Sync>(&self, make: impl FnOnce(&Program) -> T) -> Option<&T> {
        self.jit.0.get_or_init(|| Box::new(make(self))).downcast_ref()
    }
    /// Whether any instruction reads or writes the accrued FP flags (`fflags`, `fcsr`). When
    /// none does, the flags are unobservable and untraced runs need not compute them.
    pub fn reads_fflags(&self) -> bool {
        self.reads_fflags
    }

    /// The pages of the program window this program maps, writable ones first (a page shared
    /// by a writable and a read-only segment is writable); stores to the others fault.
    pub fn pages(&self) -> &[ProgramPage] {
        &self.pages
    }

    fn pages_of(segments: &[LoadSegment]) -> Vec<ProgramPage> {
        let page = abi::PAGE_SIZE as u64;
        let mut pages: Vec<ProgramPage> = segments
            .iter()
            .map(|s| {
                let end = s.vaddr as u64 + s.mem_size.max(s.data.len() as u32) as u64;
                ProgramPage {
                    start: s.vaddr & !(abi::PAGE_SIZE - 1),
                    end: end.next_multiple_of(page).min(abi::PROGRAM_BASE as u64 + abi::PROGRAM_SIZE as u64) as u32,
                    writable: s.writable,
                }
            })
            .collect();
        pages.sort_by_key(|p| !p.writable);
        pages
    }

    /// A number no other program built in this process has (clones share it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Load segments (copied into the program window before every work-group).
    pub fn segments(&self) -> &[LoadSegment] {
        &self.segments
    }
    /// The plain entry for `pc`, if `pc` is an aligned text address.
    #[inline(always)]
    pub fn fetch(&self, pc: u32) -> Option<&Decoded> {
        let off = pc.wrapping_sub(self.text_base);
        if off & 3 != 0 {
            return None;
        }
        self.ops.get((off >> 2) as usize)
    }
    /// The extended variants created for prefixes ([`Decoded::next_ext`] indexes them).
    pub(super) fn ext(&self) -> &[Decoded] {
        &self.ext
    }
    /// An extended variant created for a prefix.
    #[inline(always)]
    pub fn extended(&self, idx: u32) -> &Decoded {
        &self.ext[idx as usize]
    }
    /// Makes the function at `pc` a host call (see [`super::hostcall`]): a warp reaching `pc`
    /// runs `call` natively and returns to its `ra`. `false` (nothing changed) if `pc` is not an
    /// aligned text address or 255 host calls are installed already.
    pub fn install_host_call(&mut self, pc: u32, call: HostCall) -> bool {
        let off = pc.wrapping_sub(self.text_base);
        let Some(d) = self.ops.get_mut((off >> 2) as usize).filter(|_| off & 3 == 0) else { return false };
        let Ok(id) = u8::try_from(self.host_calls.len() + 1) else { return false };
        self.host_calls.push(call);
        self.host_originals.push(*d);
        self.launch_bounds = LaunchBoundsCache::default();
        self.jit = JitCache::default();
        // A call that changes only the warp's registers runs inside a turn (untraced), like
        // any private instruction; the others end it. One that may decline and run its code
        // instead keeps its first instruction's place (so a shared one still runs in its
        // round-robin place).
        let sharing = match (call.registers_only(), call.may_decline(), d.sharing) {
            (true, false, _) | (true, true, Sharing::Private) => Sharing::Private,
            _ => Sharing::Shared,
        };
        *d = Decoded { op: None, host_call: id, sharing, ..illegal(d.word) };
        // Entry `at` is no longer plain: the runs that reached it end there.
        Self::runs(&mut self.ops, &self.ext);
        true
    }

    /// Sets every entry's [`Decoded::run`] (from the last entry backwards): a plain entry's run
    /// goes on with the next entry's, a [`paired`] prefix's with the run after its variant.
    fn runs(ops: &mut [Decoded], ext: &[Decoded]) {
        for i in (0..ops.len()).rev() {
            let after = |k: usize| ops.get(k).map_or(0, |d| d.run);
            let run = if plain(&ops[i]) {
                after(i + 1) + 1
            } else if paired(&ops[i], ext).is_some() && i + 1 < ops.len() {
                after(i + 2) + 2
            } else {
                0
            };
            ops[i].run = run.min(MAX_RUN);
        }
    }
    /// The host call of a [`Decoded::host_call`] marker.
    pub fn host_call(&self, id: u8) -> Option<HostCall> {
        self.host_calls.get(usize::from(id).checked_sub(1)?).copied()
    }
    /// The entry a host-call marker replaced (what a traced run executes for a call that does
    /// not run natively when traced, [`HostCall::traced_natively`]).
    pub fn host_call_original(&self, id: u8) -> Option<&Decoded> {
        self.host_originals.get(usize::from(id).checked_sub(1)?)
    }
    /// Number of predecoded text words.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

// ---- host calls: functions installed to run natively (run by `super::hostcall`) ----

/// A natively executed function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCall {
    /// The 2023 libclc device-side `printf`.
    LegacyPrintf,
    /// A primitive of our soft-double library (`compiler/softlib/fp64.cl`), level-2 calling
    /// convention (`compiler::target::call`): the operands' words in v26–v31 (low word first),
    /// the result's in v26/v27, per active lane. The library is correctly rounded
    /// (round-to-nearest-even, subnormals kept) and returns the canonical NaN for every NaN
    /// result, which is what the host's IEEE-754 arithmetic gives after canonicalisation, so
    /// the results are the library's bit for bit (`tests/native_fp64.rs` compares them). Only
    /// untraced runs use it: a traced run executes the library's code, so its commit log is
    /// the code's ([`HostCall::traced_natively`]).
    F64(F64Op),
    /// The uniform variant of a primitive (`…__u`, `compiler::target::call`): the operands are
    /// read from the highest active lane (the code's `vmv.x.s`) and the result is written to
    /// every active lane (its `vmv.v.x`); nothing happens without an active lane.
    F64Uniform(F64Op),
    /// A level-1 math built-in of the library (`__vt_d_sin` …, entry of
    /// [`super::native_math::NATIVE_MATH`]) compiled for the host, level-1 calling convention:
    /// argument words from v232 (a double low word first, an int one word), the result's in
    /// v232/v233, per active lane. Untraced runs only; lanes whose native result could differ
    /// from the library's ([`super::native_math::eval`] declines) run the code, with the warp's
    /// mask narrowed to them until it returns ([`super::warp::Warp::resume_mask`]).
    F64Math(u16),
    /// The uniform variant of a math built-in (as [`HostCall::F64Uniform`]).
    F64MathUniform(u16),
    /// The image library's checker hook ([`crate::abi::subroutine::IMAGE_OUTSIDE`], and its
    /// uniform variant): an access outside an image. Under the memory checker it stops the
    /// launch ([`super::fault::FaultKind::ImageOutside`]); otherwise it declines and the hook's
    /// code runs (it returns 0: the access is skipped).
    ImageOutside,
}

/// The soft-double primitives run natively ([`HostCall::F64`]): the ABI's list.
pub use crate::abi::subroutine::F64Primitive as F64Op;

/// First vector register of the level-2 argument words.
pub const F64_ARGS: usize = crate::abi::subroutine::LEVEL2_ARGS as usize;

/// First vector register of the level-1 argument words (`compiler::target::call::level(1)`).
pub const MATH_ARGS: usize = crate::abi::subroutine::LEVEL1_ARGS as usize;

/// First vector register of a checker hook's argument words.
pub const CHECK_ARGS: usize = crate::abi::subroutine::CHECK_ARGS as usize;

/// Installs [`HostCall::F64`] at the soft-double primitives of one of our ELFs, found by their
/// subroutine labels ([`crate::abi::SUBROUTINE_LABEL_PREFIX`]); other ELFs have none. Returns
/// how many were installed.
pub fn install_native_fp64(elf: &crate::abi::elf::VentusElf, prog: &mut super::Program) -> usize {
    let mut n = 0;
    for (addr, name) in routine_entries(elf) {
        let call = match name.strip_suffix(crate::abi::UNIFORM_SUFFIX) {
            Some(base) => F64Op::from_name(base)
                .map(HostCall::F64Uniform)
                .or_else(|| super::native_math::lookup(base).map(HostCall::F64MathUniform)),
            None => F64Op::from_name(name)
                .map(HostCall::F64)
                .or_else(|| super::native_math::lookup(name).map(HostCall::F64Math)),
        };
        if let Some(call) = call {
            n += usize::from(prog.install_host_call(addr, call));
        }
    }
    n
}

/// Installs the checker hooks ([`HostCall::ImageOutside`]) of one of our ELFs, found by their
/// subroutine labels (a uniform variant too). Returns how many were installed.
pub fn install_checks(elf: &crate::abi::elf::VentusElf, prog: &mut super::Program) -> usize {
    let mut n = 0;
    for (addr, name) in routine_entries(elf) {
        if name.strip_suffix(crate::abi::UNIFORM_SUFFIX).unwrap_or(name) == crate::abi::subroutine::IMAGE_OUTSIDE {
            n += usize::from(prog.install_host_call(addr, HostCall::ImageOutside));
        }
    }
    n
}

/// The entry address and name of every library routine of one of our ELFs (by its subroutine
/// label, [`crate::abi::SUBROUTINE_LABEL_PREFIX`]).
fn routine_entries(elf: &crate::abi::elf::VentusElf) -> impl Iterator<Item = (u32, &str)> {
    let prefix = crate::abi::SUBROUTINE_LABEL_PREFIX;
    elf.symbols.iter().filter(|s| s.in_text).filter_map(move |s| Some((s.addr, s.name.strip_prefix(prefix)?)))
}

impl HostCall {
    /// Whether the call reads and writes only the warp's registers (no memory, no host
    /// output): an untraced turn runs it in place ([`super::hostcall::run_registers_only`]) without ending.
    pub fn registers_only(self) -> bool {
        !matches!(self, HostCall::LegacyPrintf | HostCall::ImageOutside)
    }

    /// Whether [`super::hostcall::run_registers_only`] may decline the call (the warp then runs its code).
    pub fn may_decline(self) -> bool {
        matches!(self, HostCall::F64Math(_) | HostCall::F64MathUniform(_))
    }

    /// The vector registers the call writes (`v0`; `v26`/`v27`; `v232`/`v233`).
    pub fn vregs(self) -> VRegSet {
        match self {
            HostCall::LegacyPrintf => VRegSet::range(0, 1),
            HostCall::ImageOutside => VRegSet::EMPTY,
            HostCall::F64(_) | HostCall::F64Uniform(_) => VRegSet::range(F64_ARGS, F64_ARGS + 2),
            HostCall::F64Math(_) | HostCall::F64MathUniform(_) => VRegSet::range(MATH_ARGS, MATH_ARGS + 2),
        }
    }

    /// Whether a traced run also runs the call natively. The legacy `printf` cannot run on the
    /// device at all; a soft-double primitive can, and a trace records its code. The checker
    /// hook runs natively (to stop the launch under the memory checker) and declines otherwise.
    pub fn traced_natively(self) -> bool {
        matches!(self, HostCall::LegacyPrintf | HostCall::ImageOutside)
    }

    /// Whether the function's own code never runs (the walk of reachable code stops here).
    pub fn replaces_code(self) -> bool {
        matches!(self, HostCall::LegacyPrintf)
    }
}

/// The extended variants prefixes select, as `(k, x)`: entry `k` of `ops` runs as `ext[x]`
/// after the prefix (or chain of prefixes) before it.
pub(super) fn prefixed_variants<'a>(
    ops: &'a [Decoded],
    ext: &'a [Decoded],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    ops.iter().enumerate().flat_map(move |(i, first)| {
        let (mut d, mut k) = (first, i + 1);
        std::iter::from_fn(move || {
            if !matches!(d.op, Some(Op::Regext | Op::Regexti)) || k >= ops.len() {
                return None;
            }
            let x = d.next_ext as usize;
            d = ext.get(x)?;
            k += 1;
            Some((k - 1, x))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    fn prog(words: &[u32]) -> Program {
        let data = words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>();
        let n = data.len() as u32;
        Program::new(
            vec![LoadSegment { vaddr: 0x8000_0000, data, mem_size: n, writable: false }],
            &[(0x8000_0000, 0x8000_0000 + n)],
        )
        .unwrap()
    }
    #[test]
    fn regext_fuses_into_next() {
        // regext zero,zero,72 (rs1+32, rs2+32) ; vmadd.vv v0, v2, v1
        let p = prog(&[0x0480200b, 0xa6112057]);
        let pre = p.fetch(0x8000_0000).unwrap();
        let e = p.extended(pre.next_ext);
        assert_eq!((e.op, e.rd, e.rs1, e.rs2), (Some(Op::VmaddVv), 0, 34, 33));
        let plain = p.fetch(0x8000_0004).unwrap();
        assert_eq!((plain.rs1, plain.rs2), (2, 1));
    }
    #[test]
    fn regexti_extends_vi_immediates_unsigned() {
        // regexti imm = imm_hi 0x3f (bits 11:6) ; vadd.vi v1, v2, -1 (field 0x1f)
        let p = prog(&[0xfc00300b, 0x022fb0d7]);
        let e = p.extended(p.fetch(0x8000_0000).unwrap().next_ext);
        assert_eq!(e.op, Some(Op::VaddVi));
        assert_eq!(e.imm, 0x7ff, "zero-extended 11-bit immediate");
        assert_eq!(p.fetch(0x8000_0004).unwrap().imm, -1);
    }
    #[test]
    fn register_bounds_cover_every_written_destination_per_file() {
        // vadd.vi v1, v2, -1: v1 only; no scalar destination.
        let v = |lo: usize, hi: usize| VRegSet::range(lo, hi);
        assert_eq!(prog(&[0x022fb0d7]).reg_bounds(), RegBounds { x: 0, v: v(1, 2) });
        // regext (rd + 3·32) ; vadd.vi v1, v2, -1 → v97; plain successor v1
        let p = prog(&[0x0030200b, 0x022fb0d7]);
        assert_eq!(p.extended(p.fetch(0x8000_0000).unwrap().next_ext).rd, 97);
        assert_eq!(p.reg_bounds().v, v(1, 2).union(v(97, 98)));
        // addi t6, zero, 1 (x31) and vmv.x.s a0, v3: scalar destinations only.
        assert_eq!(prog(&[0x00100f93, 0x42302557]).reg_bounds(), RegBounds { x: 31 + 1, v: v(0, 0) });
        // amocas.d writes a pair: amocas.d x20, x22, (x5) → v20 and v21.
        let amo = crate::isa::asm::assemble("amocas.d x20, x22, (x5)", 0x8000_0000).unwrap();
        assert_eq!(prog(&amo.words).reg_bounds(), RegBounds { x: 0, v: v(20, 22) });
        // The other AMOs write their (vector) destination: amoadd.w x7, x8, (x9) → v7.
        let amo = crate::isa::asm::assemble("amoadd.w x7, x8, (x9)", 0x8000_0000).unwrap();
        assert_eq!(prog(&amo.words).reg_bounds(), RegBounds { x: 0, v: v(7, 8) });
        // A per-lane CSR read writes v[rd]: csrr x3, gl_id_x (0x80d).
        let csrr = crate::isa::asm::assemble("csrr x3, 0x80d", 0x8000_0000).unwrap();
        assert_eq!(prog(&csrr.words).reg_bounds(), RegBounds { x: 0, v: v(3, 4) });
        // A store writes nothing: sw a0, 0(sp).
        assert_eq!(prog(&[0x00a12023]).reg_bounds(), RegBounds::NONE);
        // A host call writes v0.
        let mut p = prog(&[0x00000013, 0x00008067]);
        assert_eq!(p.reg_bounds(), RegBounds { x: 1, v: v(0, 0) });
        assert!(p.install_host_call(0x8000_0000, HostCall::LegacyPrintf));
        assert_eq!(p.reg_bounds().v, v(0, 1));
    }
    #[test]
    fn endprg_waits_for_its_place_only_in_a_text_with_a_barrier() {
        const ENDPRG: u32 = 0x0000_400b;
        const BARRIER: u32 = 0x0400_400b;
        const BARRIERSUB: u32 = 0x0600_400b;
        let sharing_of_endprg = |words: &[u32]| {
            let p = prog(words);
            let s: Vec<Sharing> = p.ops().iter().filter(|d| d.op == Some(Op::Endprg)).map(|d| d.sharing).collect();
            assert!(!s.is_empty());
            s
        };
        assert!(sharing_of_endprg(&[0x00000013, ENDPRG]).iter().all(|&s| s == Sharing::Private));
        for barrier in [BARRIER, BARRIERSUB] {
            // Anywhere in the text, before or after.
            assert!(sharing_of_endprg(&[barrier, ENDPRG]).iter().all(|&s| s == Sharing::Shared));
            assert!(sharing_of_endprg(&[ENDPRG, 0x00000013, barrier]).iter().all(|&s| s == Sharing::Shared));
        }
    }
    #[test]
    fn straight_line_runs_end_at_non_plain_entries_and_host_calls() {
        // 100 × addi t0, t0, 1, then ret (jalr: not plain).
        let mut words = vec![0x00128293u32; 100];
        words.push(0x00008067);
        let mut p = prog(&words);
        let runs = |p: &Program| p.ops().iter().map(|d| d.run).collect::<Vec<_>>();
        let want: Vec<u16> = (0..101).map(|i: u16| (100 - i).min(MAX_RUN)).collect();
        assert_eq!(runs(&p), want);
        // A host call at entry 70 ends the runs that reached it; the others are unchanged.
        assert!(p.install_host_call(0x8000_0000 + 4 * 70, HostCall::LegacyPrintf));
        let want: Vec<u16> =
            (0..101).map(|i: u16| if i < 70 { (70 - i).min(MAX_RUN) } else { (100 - i).min(MAX_RUN) }).collect();
        let mut want = want;
        want[70] = 0;
        assert_eq!(runs(&p), want);
        // The same as computing them afresh.
        let mut fresh = p.ops().to_vec();
        Program::runs(&mut fresh, &p.ext);
        assert_eq!(fresh.iter().map(|d| d.run).collect::<Vec<_>>(), want);
    }
    #[test]
    fn rejects_segments_outside_window() {
        let s = LoadSegment { vaddr: 0x1000, data: vec![0; 4], mem_size: 4, writable: false };
        assert!(matches!(Program::new(vec![s], &[(0x1000, 0x1004)]), Err(ProgramError::SegmentOutsideWindow { .. })));
    }
}
