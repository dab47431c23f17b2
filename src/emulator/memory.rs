//! Device memory: a sparse 32-bit physical address space made of regions.
//!
//! * **Global regions** (device buffers from 0x9000_0000 up, and anything else the host maps) are
//!   shared by all host threads. Policy for racy accesses: every global access is a relaxed atomic
//!   on the containing 32-bit word (byte/halfword stores are compare-and-swap loops; a full
//!   warp's unit-stride word access, [`MemView::unit_stride`], moves its 32 words in one opaque
//!   `asm!` block that moves each aligned word in one piece, see `super::bulk`), so Rust stays
//!   defined and kernels' real atomics (AMOs) are true read-modify-write atomics. The 64-bit
//!   compare-and-swap (`amocas.d`, [`Region::cas64`]) updates its two words under an
//!   address-striped lock, so the memory stays made of 32-bit atomics.
//! * **Per-slot windows**: each host worker thread owns one LDS window (0x7000_0000, 256 MiB) and one
//!   program window (0x8000_0000, 256 MiB), both lazily zeroed (untouched pages cost nothing). A work
//!   group sees the windows of the thread running it — the same addresses the reference simulator
//!   uses for every work-group, without sharing between concurrently running work-groups.
//!   A launch maps only part of each window ([`LdsMap`], [`ProgramPage`]): in the LDS window the
//!   pages of the warp stacks and static `__local` data (from the bottom) and of the `__local`
//!   arguments (from the top); in the program window the pages of the program's load segments,
//!   writable only where the segment is (text and read-only data are not).
//! * Anything else is unmapped: an access faults.
//! * With a [`MemCheck`] attached (`VENTUS_MEMCHECK=1`), every access is also checked against
//!   byte-exact extents (a buffer's requested size, each `__local` argument, the static local
//!   data, a work-item's private frame); a violation is [`MemError::Checked`].
//!
//! Contract: no access panics; an access outside every mapped page, misaligned for its width, a
//! store to a read-only page or (with a checker) outside every exact extent returns a
//! [`MemError`].

mod device_memory;
pub mod memcheck;
mod region;
mod storage;
use crate::abi;
pub use device_memory::{redzone_for, DeviceMemory, MapError};
use memcheck::MemCheck;
pub use region::{MemError, Region};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

/// Which part of the LDS window a launch maps: `[LDS_BASE, low_end)` (warp stacks and static
/// `__local` data) and `[high_start, LDS_BASE + LDS_SIZE)` (`__local` arguments, placed from the
/// top), each in whole pages. Everything between faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LdsMap {
    pub low_end: u32,
    pub high_start: u32,
    /// Bytes of each warp's uniform stack at the bottom of the window (`sp = LDS + wid ×
    /// warp_stack`, crt0's), when the launch knows them from the kernel's resource record; 0:
    /// unknown ([`MemView::in_warp_stack`]).
    pub warp_stack: u32,
}

impl LdsMap {
    const END: u32 = abi::LDS_BASE + abi::LDS_SIZE;
    /// The whole window (launch images, whose `__local` extents are not recorded).
    pub const WHOLE: LdsMap = LdsMap { low_end: Self::END, high_start: Self::END, warp_stack: 0 };

    /// The pages holding `low_bytes` from the bottom of the window and everything from
    /// `high_start` (rounded down to a page) to its top.
    pub fn new(low_bytes: u64, high_start: u32) -> LdsMap {
        let page = abi::PAGE_SIZE as u64;
        let low_end = (abi::LDS_BASE as u64 + low_bytes.next_multiple_of(page)).min(Self::END as u64) as u32;
        let high_start = (high_start & !(abi::PAGE_SIZE - 1)).clamp(abi::LDS_BASE, Self::END);
        LdsMap { low_end, high_start, warp_stack: 0 }
    }

    /// The same map, with each warp's uniform stack `bytes` long ([`LdsMap::warp_stack`]).
    pub fn with_warp_stack(self, bytes: u32) -> LdsMap {
        LdsMap { warp_stack: bytes, ..self }
    }

    #[inline(always)]
    fn maps(&self, addr: u32) -> bool {
        addr < self.low_end || addr >= self.high_start
    }
}

/// Pages of the program window a launch maps: `[start, end)` (page-aligned), writable or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgramPage {
    pub start: u32,
    pub end: u32,
    pub writable: bool,
}

/// Global regions a [`MemView`] remembers (see `MemView::recent`).
const RECENT: usize = 4;

/// What one work-group sees: its thread's windows plus the global regions.
pub struct MemView<'a> {
    pub lds: &'a Region,
    pub program: &'a Region,
    /// Per-slot private memory overlaid on the launch's private block (`CSR_PDS`), so that
    /// concurrently running work-groups never share private storage.
    pub private: Option<&'a Region>,
    pub global: &'a [Arc<Region>],
    lds_map: LdsMap,
    /// Mapped pages of the program window; empty = the whole window, writable.
    program_pages: &'a [ProgramPage],
    /// The launch's exact extents (for reports), and the same when every access is checked.
    extents: Option<&'a MemCheck>,
    check: Option<&'a MemCheck>,
    /// Indexes into `global` of the regions the latest accesses found, most recent first
    /// (`usize::MAX`: none). Kernels alternate between a few buffers (saxpy: x, y, y), so a
    /// one-entry cache would miss on most accesses.
    recent: [std::cell::Cell<usize>; RECENT],
    /// Bytes moved by successful accesses, by address space ([`Space`] order).
    moved: [std::cell::Cell<u64>; 3],
    /// Some access through this view wrote to the private overlay / the LDS window.
    private_written: std::cell::Cell<bool>,
    lds_written: std::cell::Cell<bool>,
    /// Whether an access wrote to the program window since [`Self::take_program_written`].
    program_written: std::cell::Cell<bool>,
    /// 32-word copies in 256-bit moves ([`Self::with_wide_copies`]).
    wide: bool,
    /// Read-only blocks [`Self::is_read_only`] found lately, most recent first.
    read_only_words: [std::cell::Cell<RecentReadOnly<'a>>; 2],
    /// The global buffers the latest full-warp unit-stride load (0) and store (1) found
    /// ([`Self::unit_stride`]), for the translator's inline copies ([`ViewLayout`]).
    unit_stride_blocks: [std::cell::Cell<RecentBlock>; 2],
    /// The private overlay as a block of 32-word spans (`n` = 0: none, or a checker or
    /// written-byte bits watch it), for the translator's private accesses ([`ViewLayout`]).
    private_block: RecentBlock,
    /// The writable global buffers vector accesses found ([`Self::file_gather`]), filed under bits
    /// [`GATHER_SHIFT`].. of the first active lane's address, for the translator's gathers: a block's
    /// `n` counts the word addresses inside it (at most `i32::MAX`: the host gather's offsets
    /// are signed).
    gather_blocks: [std::cell::Cell<RecentBlock>; GATHER_SLOTS],
    /// The mapped bottom of the LDS window (the warp stacks, static `__local` data) as a block
    /// of words (`n` = 0 under a checker), for the translator's warp-stack loads.
    lds_block: RecentBlock,
}

/// Slots of [`MemView`]'s gather table (a power of two).
pub(crate) const GATHER_SLOTS: usize = 256;
/// The gather table's slot of a first lane address `a` is `(a >> GATHER_SHIFT) % GATHER_SLOTS`:
/// one slot per 64 KiB, so the neighbouring elements a stencil reads from one buffer share a
/// slot and a few dozen buffers accessed at the same index rarely collide.
pub(crate) const GATHER_SHIFT: u32 = 16;

/// A block of memory compiled code may access directly: a 4-aligned address `a` with
/// `a − base < n` starts an access inside it (`n` = 0: none); `words` is its first word (at
/// `base`). The translator's templates read these fields ([`ViewLayout`]).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct RecentBlock {
    base: u32,
    n: u32,
    words: *const AtomicU32,
}

impl Default for RecentBlock {
    fn default() -> Self {
        RecentBlock { base: 0, n: 0, words: std::ptr::null() }
    }
}

/// A read-only block [`MemView::is_read_only`] found (`n`: the 4-byte loads inside it) and
/// the region it is.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RecentReadOnly<'a> {
    block: RecentBlock,
    region: Option<&'a Region>,
}

/// Where compiled code finds, from a [`MemView`]'s address, what its inline paths read and
/// count (byte offsets): the checker (null = none); the two remembered read-only blocks of
/// [`MemView::load`]'s first path (`read_only`, each `read_only_stride` bytes apart); the global
/// buffers the latest full-warp unit-stride load and store found ([`MemView::unit_stride`]:
/// `unit_stride`, the store's `unit_stride_stride` bytes after the load's; `n` counts the
/// addresses that start 32 words inside; kept only without a checker, for stores only in a
/// buffer with no read-only part and no written-byte bits); the private overlay (`private`,
/// the same for its 32-word spans) and the flag a store there sets (`private_written`, a
/// `bool`); the gather table (`gather`, [`GATHER_SLOTS`] blocks `block_size` bytes apart,
/// `n` counting word addresses); the mapped bottom of the LDS window (`lds`, `n` counting
/// word addresses; the flag a store there sets: `lds_written`, a `bool`) and each warp's stack bytes (`warp_stack`, a `u32`, [`LdsMap::warp_stack`]);
/// in each, `base`, `n` and `words` of its [`RecentBlock`]; the global, local and private
/// bytes-moved counters.
pub(crate) struct ViewLayout {
    pub check: usize,
    pub read_only: usize,
    pub read_only_stride: usize,
    pub unit_stride: usize,
    pub unit_stride_stride: usize,
    pub private: usize,
    pub private_written: usize,
    pub lds_written: usize,
    pub gather: usize,
    pub block_size: usize,
    pub base: usize,
    pub n: usize,
    pub words: usize,
    pub lds: usize,
    pub warp_stack: usize,
    pub moved_global: usize,
    pub moved_local: usize,
    pub moved_private: usize,
}

impl MemView<'static> {
    pub(crate) const LAYOUT: ViewLayout = ViewLayout {
        check: std::mem::offset_of!(MemView<'static>, check),
        read_only: std::mem::offset_of!(MemView<'static>, read_only_words)
            + std::mem::offset_of!(RecentReadOnly<'static>, block),
        read_only_stride: std::mem::size_of::<RecentReadOnly<'static>>(),
        unit_stride: std::mem::offset_of!(MemView<'static>, unit_stride_blocks),
        unit_stride_stride: std::mem::size_of::<RecentBlock>(),
        private: std::mem::offset_of!(MemView<'static>, private_block),
        private_written: std::mem::offset_of!(MemView<'static>, private_written),
        lds_written: std::mem::offset_of!(MemView<'static>, lds_written),
        gather: std::mem::offset_of!(MemView<'static>, gather_blocks),
        block_size: std::mem::size_of::<RecentBlock>(),
        base: std::mem::offset_of!(RecentBlock, base),
        n: std::mem::offset_of!(RecentBlock, n),
        words: std::mem::offset_of!(RecentBlock, words),
        lds: std::mem::offset_of!(MemView<'static>, lds_block),
        warp_stack: std::mem::offset_of!(MemView<'static>, lds_map) + std::mem::offset_of!(LdsMap, warp_stack),
        moved_global: std::mem::offset_of!(MemView<'static>, moved) + 8 * Space::Global as usize,
        moved_local: std::mem::offset_of!(MemView<'static>, moved) + 8 * Space::Local as usize,
        moved_private: std::mem::offset_of!(MemView<'static>, moved) + 8 * Space::Private as usize,
    };
}

/// The address spaces the statistics distinguish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// Buffers, constants, the metadata and argument buffers, the program window.
    Global = 0,
    /// The LDS window (`__local`).
    Local = 1,
    /// The private block (`CSR_PDS`).
    Private = 2,
}

impl<'a> MemView<'a> {
    /// A view mapping both windows whole (see [`MemView::with_lds_map`],
    /// [`MemView::with_program_pages`]) and no checker.
    pub fn new(
        lds: &'a Region,
        program: &'a Region,
        private: Option<&'a Region>,
        global: &'a [Arc<Region>],
    ) -> MemView<'a> {
        MemView {
            lds,
            program,
            private,
            global,
            lds_map: LdsMap::WHOLE,
            program_pages: &[],
            extents: None,
            check: None,
            recent: std::array::from_fn(|_| std::cell::Cell::new(usize::MAX)),
            moved: Default::default(),
            private_written: Default::default(),
            lds_written: Default::default(),
            program_written: Default::default(),
            wide: false,
            read_only_words: Default::default(),
            unit_stride_blocks: Default::default(),
            // Only an overlay in the heap (as `region_in` finds it: never in the LDS or program
            // window) with no written-byte bits; `with_extents` clears it under a checker.
            private_block: private.filter(|p| p.base >> 28 >= 9 && p.written.is_none()).map_or_else(
                RecentBlock::default,
                |p| RecentBlock { base: p.base, n: p.size.saturating_sub(127), words: p.words().as_ptr() },
            ),
            gather_blocks: std::array::from_fn(|_| Default::default()),
            lds_block: Self::lds_block(lds, LdsMap::WHOLE),
        }
    }

    /// [`MemView::lds_block`] for `map`.
    fn lds_block(lds: &Region, map: LdsMap) -> RecentBlock {
        let end = map.low_end.min(lds.base.wrapping_add(lds.size));
        match end.checked_sub(lds.base) {
            Some(bytes) if lds.base == abi::LDS_BASE && bytes >= 4 && lds.written.is_none() => {
                RecentBlock { base: lds.base, n: bytes - 3, words: lds.words().as_ptr() }
            }
            _ => RecentBlock::default(),
        }
    }

    /// Whether global region `r` overlaps the private overlay, whose addresses `region_in`
    /// resolves to the overlay instead (the launch's private block is a global region too).
    fn under_private(&self, r: &Region) -> bool {
        self.private.is_some_and(|p| {
            (p.base as u64) < r.base as u64 + r.size as u64 && (r.base as u64) < p.base as u64 + p.size as u64
        })
    }

    /// Lets full-warp unit-stride accesses move their 32 words in 256-bit moves (see
    /// `emulator/bulk.rs`) when `on` — the launch runs the interpreter's AVX2 copy
    /// ([`super::RunOptions::avx2_interpreter`]), whose vector registers those moves match —
    /// and the host has AVX2 (checked here too: the moves need it).
    pub fn with_wide_copies(mut self, on: bool) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            self.wide = on && super::simd::host_has_avx2();
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = on;
        self
    }

    /// Whether 32-word copies may use 256-bit moves ([`Self::with_wide_copies`]).
    #[inline(always)]
    pub fn wide_copies(&self) -> bool {
        self.wide
    }

    /// Maps only `map` of the LDS window.
    pub fn with_lds_map(mut self, map: LdsMap) -> Self {
        self.lds_map = map;
        if self.check.is_none() {
            self.lds_block = Self::lds_block(self.lds, map);
        }
        self
    }

    /// Maps only `pages` of the program window (an empty list maps it whole).
    pub fn with_program_pages(mut self, pages: &'a [ProgramPage]) -> Self {
        self.program_pages = pages;
        self
    }

    /// Knows the launch's exact extents (fault reports name the nearest), and checks every
    /// access against them when `check` is set.
    pub fn with_extents(mut self, extents: Option<&'a MemCheck>, check: bool) -> Self {
        self.extents = extents;
        self.check = extents.filter(|_| check);
        if self.check.is_some() {
            self.private_block = RecentBlock::default();
            self.lds_block = RecentBlock::default();
        }
        self
    }

    /// The launch's exact extents, if known.
    pub fn extents(&self) -> Option<&'a MemCheck> {
        self.extents
    }

    /// Whether every access is checked (the memory checker is on).
    pub fn checking(&self) -> bool {
        self.check.is_some()
    }

    /// Bytes moved so far through this view in `space` (loads, stores and atomics).
    pub fn bytes_moved(&self, space: Space) -> u64 {
        self.moved[space as usize].get()
    }

    /// The region containing `addr` (for reads: the mapped pages, writable or not).
    #[inline(always)]
    pub fn region(&self, addr: u32) -> Option<&Region> {
        self.region_in(addr, false).ok().map(|(r, _)| r)
    }

    /// The address space `addr` is mapped in (for reports), if any.
    pub fn space_of(&self, addr: u32) -> Option<Space> {
        self.region_in(addr, false).ok().map(|(_, s)| s)
    }

    /// The region containing `addr` and its address space; `write` asks for a writable page.
    #[inline(always)]
    fn region_in(&self, addr: u32, write: bool) -> Result<(&Region, Space), MemError> {
        match addr >> 28 {
            7 if self.lds_map.maps(addr) => {
                if write {
                    self.lds_written.set(true);
                }
                Ok((self.lds, Space::Local))
            }
            7 => Err(MemError::Unmapped(addr)),
            8 => {
                self.program_page(addr, write)?;
                if write {
                    self.program_written.set(true);
                }
                Ok((self.program, Space::Global))
            }
            _ => {
                if let Some(p) = self.private {
                    if p.contains(addr) {
                        if write {
                            self.private_written.set(true);
                        }
                        return Ok((p, Space::Private));
                    }
                }
                let r = self.global_at(addr).ok_or(MemError::Unmapped(addr))?;
                if write && r.read_only && addr.wrapping_sub(r.base) < r.len {
                    return Err(MemError::ReadOnly(addr));
                }
                Ok((r, Space::Global))
            }
        }
    }

    /// True when no kernel store can change the word at `addr`: it lies in a read-only block
    /// ([`DeviceMemory::alloc_read_only`]) or a read-only page of the program window. A load
    /// from there returns the same value whichever warps ran before it.
    /// Whether a scalar access of at most 4 bytes at `addr` stays inside the uniform stack of
    /// the warp with `CSR_LDS` = `lds` and `CSR_WID` = `wid` ([`LdsMap::warp_stack`]): words
    /// no other warp addresses (the compiler keeps spills and uniform temporaries there; a
    /// kernel's `__local` data starts after every warp's stack). Always `false` when the launch
    /// does not know the stacks.
    #[inline(always)]
    pub fn in_warp_stack(&self, lds: u32, wid: u32, addr: u32) -> bool {
        let bytes = self.lds_map.warp_stack;
        bytes >= 4 && addr.wrapping_sub(lds.wrapping_add(wid.wrapping_mul(bytes))) <= bytes - 4
    }

    #[inline(always)]
    pub fn is_read_only(&self, addr: u32) -> bool {
        // The blocks the latest answers found first: a kernel's scalar loads alternate between
        // its argument and metadata buffers.
        if self.remembered_read_only(addr).is_some() {
            return true;
        }
        match addr >> 28 {
            7 => false,
            8 => !self.program_pages.is_empty() && self.program_page(addr, true) == Err(MemError::ReadOnly(addr)),
            _ => match self.global_at(addr) {
                Some(r) if r.read_only && u64::from(addr.wrapping_sub(r.base)) + 4 <= u64::from(r.len) => {
                    // Remember where a 4-byte load stays inside the block (len ≥ 4 here).
                    self.read_only_words[1].set(self.read_only_words[0].get());
                    let block = RecentBlock { base: r.base, n: r.len - 3, words: r.words().as_ptr() };
                    self.read_only_words[0].set(RecentReadOnly { block, region: Some(r) });
                    true
                }
                _ => false,
            },
        }
    }

    /// The remembered read-only block ([`Self::is_read_only`]) in which a load of up to 4 bytes
    /// at `addr` lies, if any.
    #[inline(always)]
    fn remembered_read_only(&self, addr: u32) -> Option<&'a Region> {
        self.read_only_words.iter().find_map(|c| {
            let b = c.get();
            if addr.wrapping_sub(b.block.base) < b.block.n {
                b.region
            } else {
                None
            }
        })
    }

    #[inline(always)]
    fn program_page(&self, addr: u32, write: bool) -> Result<(), MemError> {
        if self.program_pages.is_empty() {
            return Ok(());
        }
        match self.program_pages.iter().find(|p| addr >= p.start && addr < p.end) {
            Some(p) if write && !p.writable => Err(MemError::ReadOnly(addr)),
            Some(_) => Ok(()),
            None => Err(MemError::Unmapped(addr)),
        }
    }

    /// `region_in`, checked (with a checker) and counting `bytes` moved when the access is allowed.
    #[inline(always)]
    fn access_in(&self, addr: u32, bytes: u32, write: bool) -> Result<(&Region, Space), MemError> {
        let (r, space) = self.region_in(addr, write)?;
        if let Some(c) = self.check {
            if !c.allows(r, space, addr, bytes) {
                return Err(MemError::Checked { addr, bytes: bytes as u8 });
            }
            if !write && !r.all_written(addr, bytes) {
                return Err(MemError::Unwritten { addr, bytes: bytes as u8 });
            }
        }
        let c = &self.moved[space as usize];
        c.set(c.get() + u64::from(bytes));
        Ok((r, space))
    }

    /// The region and space holding every address in `[lo, hi]`, when one region of one
    /// address space maps them all and no checker watches the accesses; `None` otherwise (the
    /// caller then accesses lane by lane, which also finds the exact fault). Program-window
    /// addresses always take the per-lane path (their pages have permissions).
    #[inline(always)]
    fn span_region(&self, lo: u32, hi: u32, write: bool) -> Option<(&Region, Space)> {
        // A span may cross a 256 MiB boundary inside one heap region (a buffer or the private
        // block straddling 0xa000_0000), but never into or out of the LDS and program windows.
        let touches_windows = lo >> 28 != hi >> 28 && lo >> 28 <= 8 && hi >> 28 >= 7;
        if self.check.is_some() || lo > hi || touches_windows {
            return None;
        }
        match lo >> 28 {
            7 => {
                let m = &self.lds_map;
                let mapped = hi < m.low_end || lo >= m.high_start;
                let ok = mapped && self.lds.contains(lo) && self.lds.contains(hi);
                if ok && write {
                    self.lds_written.set(true);
                }
                ok.then_some((self.lds, Space::Local))
            }
            8 => None,
            _ => {
                let (r, space) = self.region_in(lo, write).ok()?;
                r.contains(hi).then_some((r, space))
            }
        }
    }

    /// The lowest and highest address of the lanes in `m` and the OR of all of them.
    #[inline(always)]
    fn span(addrs: &[u32; 32], m: u32) -> (u32, u32, u32) {
        let (mut lo, mut hi, mut or) = (u32::MAX, 0u32, 0u32);
        for (i, &a) in addrs.iter().enumerate() {
            let on = (m >> i) & 1 != 0;
            lo = lo.min(if on { a } else { u32::MAX });
            hi = hi.max(if on { a } else { 0 });
            or |= if on { a } else { 0 };
        }
        (lo, hi, or)
    }

    /// For the translator's gathers and scatters (words, bytes, halfwords; full and masked
    /// warps): files region `r` of `space`, which a vector access whose first active lane
    /// addresses `first` found in one step (no checker: `span_region` found none), in the
    /// gather table — when it is a writable global buffer, so the same case for the other
    /// accesses of that buffer. `n` counts whole words (a byte or halfword access goes to the
    /// word holding it).
    #[inline(always)]
    fn file_gather(&self, r: &Region, space: Space, first: u32) {
        if space == Space::Global && !r.read_only && r.written.is_none() && !self.under_private(r) {
            let n = r.size.saturating_sub(3).min(i32::MAX as u32);
            let slot = (first >> GATHER_SHIFT) as usize % GATHER_SLOTS;
            self.gather_blocks[slot].set(RecentBlock { base: r.base, n, words: r.words().as_ptr() });
        }
    }

    /// Loads of `bytes` (1, 2 or 4, zero-extended) for every lane in `m` at `addrs[lane]` in
    /// one step, when all are aligned and lie in one mapped region ([`Self::span_region`]):
    /// the same values and byte counts as lane-by-lane [`Self::load`]s. `None` when the warp
    /// must take the per-lane path (nothing was loaded or counted). A full warp's unit-stride
    /// word access takes [`Self::unit_stride`] first.
    #[inline(always)]
    pub fn load_lanes(&self, addrs: &[u32; 32], m: u32, bytes: u32) -> Option<[u32; 32]> {
        let (lo, hi, or) = Self::span(addrs, m);
        if or & (bytes - 1) != 0 {
            return None;
        }
        let (r, space) = self.span_region(lo, hi, false)?;
        self.file_gather(r, space, addrs[m.trailing_zeros() as usize]);
        let mut out = [0u32; 32];
        if m == u32::MAX && bytes == 4 {
            for (o, &a) in out.iter_mut().zip(addrs) {
                // SAFETY: every lane is active, so `lo <= a <= hi`, and `span_region` found one
                // region containing both `lo` and `hi`.
                *o = unsafe { r.word_unchecked(a) }.load(Relaxed);
            }
        } else {
            // A partial warp's or a narrow load: the translator's masked unit-stride and
            // narrow-load templates may use the block.
            self.remember_unit_block(r, space, false);
            for (i, (o, &a)) in out.iter_mut().zip(addrs).enumerate() {
                if (m >> i) & 1 != 0 {
                    *o = r.load(a, bytes);
                }
            }
        }
        let c = &self.moved[space as usize];
        c.set(c.get() + u64::from(bytes) * u64::from(m.count_ones()));
        Some(out)
    }

    /// The 32 words a full warp's unit-stride word access addresses (lane `i` at
    /// `addrs[0] + 4i`, `addrs[0]` aligned: `a[get_global_id(0)]`), when one region holds them
    /// all under the conditions of [`Self::load_lanes`] (for a store, `write`, also those of
    /// [`Self::store_lanes`]'s word path). Counts the bytes moved (and for a store the shared
    /// writes) as 32 lane accesses would; the caller then moves all 32 words. `None`: nothing
    /// was counted, the caller takes `load_lanes`/`store_lanes`.
    #[inline(always)]
    pub fn unit_stride(&self, addrs: &[u32; 32], write: bool) -> Option<&[AtomicU32; 32]> {
        let lo = addrs[0];
        let off = addrs.iter().enumerate().fold(lo & 3, |d, (i, &a)| d | (a ^ lo.wrapping_add(4 * i as u32)));
        if off != 0 {
            return None;
        }
        let (r, space) = self.span_region(lo, lo.checked_add(124)?, write)?;
        if write && r.written.is_some() {
            return None;
        }
        let first = (lo.wrapping_sub(r.base) >> 2) as usize;
        let words = r.words().get(first..first + 32)?.try_into().ok()?;
        self.remember_unit_block(r, space, write);
        let c = &self.moved[space as usize];
        c.set(c.get() + 128);
        Some(words)
    }

    /// For the translator's unit-stride templates: region `r` (in `space`), which a load
    /// (`write`: a store) just reached in one step, is the block their accesses of that kind
    /// may use directly — every 32-word span in it is the same case (a global buffer, no
    /// checker: `span_region` found none; for a store, no written-byte bits and no read-only
    /// part; no private overlay over it; at least 128 bytes, so `n` + 127 is its size). The
    /// program window (also global space) never gets here.
    #[inline(always)]
    fn remember_unit_block(&self, r: &Region, space: Space, write: bool) {
        // Already the remembered block (the common case: a partial warp's accesses keep to one
        // buffer): nothing to check again.
        if self.unit_stride_blocks[usize::from(write)].get().words == r.words().as_ptr() {
            return;
        }
        let store_ok = !write || (!r.read_only && r.written.is_none());
        if space == Space::Global && store_ok && r.size >= 128 && !self.under_private(r) {
            let block = RecentBlock { base: r.base, n: r.size - 127, words: r.words().as_ptr() };
            self.unit_stride_blocks[usize::from(write)].set(block);
        }
    }

    /// Stores of `bytes` (1, 2 or 4) of `values[lane]` at `addrs[lane]` for every lane in `m`,
    /// in lane order, in one step under the conditions of [`Self::load_lanes`]; the same memory
    /// effects and counts as lane-by-lane [`Self::store`]s. `false` (nothing stored) when the
    /// warp must take the per-lane path.
    #[inline(always)]
    pub fn store_lanes(&self, addrs: &[u32; 32], values: &[u32; 32], m: u32, bytes: u32) -> bool {
        let (lo, hi, or) = Self::span(addrs, m);
        if or & (bytes - 1) != 0 {
            return false;
        }
        let Some((r, space)) = self.span_region(lo, hi, true) else { return false };
        self.file_gather(r, space, addrs[m.trailing_zeros() as usize]);
        // The translator's masked unit-stride template (a partial warp's) and its octet
        // template (a full warp's whose lanes address runs of 8 words) may use the block.
        self.remember_unit_block(r, space, true);
        if bytes == 4 && r.written.is_none() {
            for (i, (&a, &v)) in addrs.iter().zip(values).enumerate() {
                if (m >> i) & 1 != 0 {
                    // SAFETY: an active lane's address lies in `[lo, hi]`, and `span_region`
                    // found one region containing both ends.
                    unsafe { r.word_unchecked(a) }.store(v, Relaxed);
                }
            }
        } else {
            for (i, (&a, &v)) in addrs.iter().zip(values).enumerate() {
                if (m >> i) & 1 != 0 {
                    r.store(a, v, bytes);
                }
            }
        }
        let n = u64::from(m.count_ones());
        let c = &self.moved[space as usize];
        c.set(c.get() + u64::from(bytes) * n);
        true
    }

    /// Whether any access through this view has written to the private overlay (if not, the
    /// overlay still holds the zeros it started with).
    pub fn private_written(&self) -> bool {
        self.private_written.get()
    }

    /// Whether an access through this view wrote to the program window since the last call
    /// (clears it): the writable segments need reloading before the next work-group.
    pub fn take_program_written(&self) -> bool {
        self.program_written.replace(false)
    }

    /// Whether any access through this view has written to the LDS window.
    pub fn lds_written(&self) -> bool {
        self.lds_written.get()
    }

    /// The global region holding `addr`: one of those the latest accesses found, else a search.
    #[inline(always)]
    fn global_at(&self, addr: u32) -> Option<&'a Region> {
        for c in &self.recent {
            match self.global.get(c.get()) {
                Some(r) if r.contains(addr) => return Some(r),
                Some(_) => {}
                None => break,
            }
        }
        self.find_global(addr)
    }

    #[cold]
    fn find_global(&self, addr: u32) -> Option<&'a Region> {
        let i = self.global.partition_point(|r| r.base <= addr);
        let r = self.global.get(i.checked_sub(1)?)?;
        if r.contains(addr) {
            // Most recent first: shift the others down, dropping the oldest.
            for k in (1..RECENT).rev() {
                self.recent[k].set(self.recent[k - 1].get());
            }
            self.recent[0].set(i - 1);
            Some(r)
        } else {
            None
        }
    }

    /// Aligned load of 1/2/4 bytes (zero-extended).
    #[inline(always)]
    pub fn load(&self, addr: u32, bytes: u32) -> Result<u32, MemError> {
        if addr & (bytes - 1) != 0 {
            return Err(MemError::Misaligned(addr));
        }
        // A kernel's argument and metadata loads: the block its sharing check just found.
        if self.check.is_none() {
            if let Some(r) = self.remembered_read_only(addr) {
                let c = &self.moved[Space::Global as usize];
                c.set(c.get() + u64::from(bytes));
                return Ok(r.load(addr, bytes));
            }
        }
        let (r, _) = self.access_in(addr, bytes, false)?;
        if r.read_only && self.check.is_none() {
            // Remember the block for the next loads (a lone warp's loads are private without
            // the sharing check that would have remembered it).
            self.is_read_only(addr);
        }
        Ok(r.load(addr, bytes))
    }
    /// Aligned store of 1/2/4 bytes.
    #[inline(always)]
    pub fn store(&self, addr: u32, value: u32, bytes: u32) -> Result<(), MemError> {
        if addr & (bytes - 1) != 0 {
            return Err(MemError::Misaligned(addr));
        }
        self.access_in(addr, bytes, true).map(|(r, _)| r.store(addr, value, bytes))
    }
    /// Atomic read-modify-write of an aligned word; returns the old value.
    #[inline(always)]
    pub fn rmw(&self, addr: u32, f: impl Fn(u32) -> u32) -> Result<u32, MemError> {
        if addr & 3 != 0 {
            return Err(MemError::Misaligned(addr));
        }
        self.access_in(addr, 4, true).map(|(r, _)| r.rmw(addr, f))
    }
    /// Atomic 64-bit compare-and-swap of an 8-byte-aligned doubleword; returns the old value
    /// (see [`Region::cas64`]).
    #[inline(always)]
    pub fn cas64(&self, addr: u32, expected: u64, new: u64) -> Result<u64, MemError> {
        if addr & 7 != 0 {
            return Err(MemError::Misaligned(addr));
        }
        let (r, _) = self.access_in(addr, 8, true)?;
        if r.contains(addr.wrapping_add(4)) {
            Ok(r.cas64(addr, expected, new))
        } else {
            Err(MemError::Unmapped(addr.wrapping_add(4)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::storage::FixedMap;
    use super::*;

    /// Shared blocks live at the host address equal to their device address: the host's plain
    /// accesses and the region's atomic ones meet; a taken host range is skipped; unmapping
    /// releases the host mapping.
    #[test]
    fn shared_blocks_are_identity_mapped() {
        let mem = DeviceMemory::default();
        let a = mem.alloc_shared(100).unwrap();
        let host = a.base() as usize as *mut u32;
        // SAFETY: the block is mapped, readable and writable at this host address (what
        // `alloc_shared` promises), and at least 100 bytes long.
        unsafe {
            host.add(3).write_volatile(0xdead_beef);
            assert_eq!(a.load(a.base() + 12, 4), 0xdead_beef);
        }
        a.store(a.base() + 20, 77, 4);
        // SAFETY: as above.
        assert_eq!(unsafe { host.add(5).read_volatile() }, 77);
        // A host mapping in the way: the next block goes elsewhere.
        let next = crate::util::align_up(u64::from(a.base()) + u64::from(a.size()), abi::PAGE_SIZE as u64) as usize;
        let blocker = FixedMap::at(next, abi::PAGE_SIZE as usize).expect("the page after the block is free");
        let b = mem.alloc_shared(4096).unwrap();
        assert!(b.base() as usize >= next + abi::PAGE_SIZE as usize, "{:#x}", b.base());
        drop(blocker);
        let base = a.base();
        drop(a);
        assert!(mem.unmap(base));
        // The host range is free again: a new fixed mapping there succeeds.
        assert!(FixedMap::at(base as usize, abi::PAGE_SIZE as usize).is_some());
        assert!(mem.unmap(b.base()));
    }
    #[test]
    fn regions_bytes_halves_words() {
        let m = DeviceMemory::new();
        let a = m.alloc(10).unwrap();
        assert_eq!(a.base(), 0x9000_0000);
        let b = m.alloc(0x1001).unwrap();
        assert_eq!(b.base(), 0x9000_1000);
        assert_eq!(m.alloc(4).unwrap().base(), 0x9000_3000);
        m.write(0x9000_0001, &[1, 2, 3]).unwrap();
        assert_eq!(m.read_u32(0x9000_0000).unwrap(), 0x0302_0100);
        assert!(m.write(0x9000_0ffe, &[0; 4]).is_err());
        assert!(m.map(0x9000_1800, 16).is_err());
        assert!(m.map(0x7000_0000, 16).is_err());
        let lds = Region::zeroed(abi::LDS_BASE, abi::LDS_SIZE);
        let prog = Region::zeroed(abi::PROGRAM_BASE, abi::PROGRAM_SIZE);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        v.store(0x9000_1002, 0xbeef, 2).unwrap();
        assert_eq!(v.load(0x9000_1000, 4).unwrap(), 0xbeef_0000);
        assert_eq!(v.load(0x9000_1003, 1).unwrap(), 0xbe);
        assert_eq!(v.load(0x9000_1001, 2), Err(MemError::Misaligned(0x9000_1001)));
        assert_eq!(v.load(0x18, 4), Err(MemError::Unmapped(0x18)));
        assert_eq!(v.load(0x9000_4000, 4), Err(MemError::Unmapped(0x9000_4000)));
        v.store(0x7fff_fffc, 5, 4).unwrap();
        assert_eq!(lds.load(0x7fff_fffc, 4), 5);
        assert_eq!(v.rmw(0x9000_0000, |x| x + 1).unwrap(), 0x0302_0100);
        assert!(m.unmap(0x9000_3000));
        // Freed space is reused (lowest gap first).
        assert!(m.unmap(0x9000_0000));
        assert_eq!(m.alloc(0x1000).unwrap().base(), 0x9000_0000);
        assert_eq!(m.alloc(0x1000).unwrap().base(), 0x9000_3000);
        assert_eq!(m.heap_bytes(), 0x4000);
        assert!(matches!(m.alloc(0x7000_0000), Err(MapError::OutOfMemory { .. })));
    }

    #[test]
    fn guarded_allocations_keep_unmapped_redzones() {
        assert_eq!((redzone_for(1), redzone_for(0x1_0000), redzone_for(0x10_0000)), (0x1000, 0x1000, 0x1_0000));
        assert_eq!(redzone_for(u32::MAX), 1 << 20);
        let m = DeviceMemory::new();
        let a = m.alloc(0x1000).unwrap();
        assert_eq!(a.base(), 0x9000_0000);
        // A page of nothing on each side of a guarded block.
        let g = m.alloc_guarded(0x1000).unwrap();
        assert_eq!(g.base(), 0x9000_2000);
        let b = m.alloc(4).unwrap();
        assert_eq!(b.base(), 0x9000_4000, "an unguarded block keeps out of its neighbour's redzone");
        let lds = Region::zeroed(abi::LDS_BASE, abi::LDS_SIZE);
        let prog = Region::zeroed(abi::PROGRAM_BASE, abi::PROGRAM_SIZE);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        for addr in [0x9000_1ffc, 0x9000_1000, 0x9000_3000, 0x9000_3ffc] {
            assert_eq!(v.store(addr, 1, 4), Err(MemError::Unmapped(addr)), "{addr:#x} is in a redzone");
        }
        v.store(0x9000_2ffc, 1, 4).unwrap();
        // Freed space is reused only where a block and its redzones fit: not the page before `g`.
        assert!(m.unmap(a.base()));
        assert_eq!(m.alloc_guarded(0x1000).unwrap().base(), 0x9000_6000);
        assert_eq!(m.alloc(0x1000).unwrap().base(), 0x9000_0000);
        // Large blocks get larger redzones: a sixteenth of their size.
        let big = m.alloc_guarded(0x20_0000).unwrap();
        assert_eq!(big.base(), 0x9000_8000 + 0x2_0000);
        assert_eq!(m.alloc(4).unwrap().base(), big.base() + 0x20_0000 + 0x2_0000);
    }

    #[test]
    fn read_only_answers_stay_exact_when_remembered() {
        let m = DeviceMemory::new();
        let a = m.alloc_read_only(10).unwrap(); // words at +0 and +4; +8 holds only 2 bytes
        let w = m.alloc(16).unwrap();
        let b = m.alloc_read_only(8).unwrap();
        m.write(a.base(), &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap();
        let lds = Region::zeroed(abi::LDS_BASE, 16);
        let prog = Region::zeroed(abi::PROGRAM_BASE, 16);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        // Asked twice each (the second answer comes from the remembered blocks), interleaved.
        for _ in 0..2 {
            for (addr, want) in [
                (a.base(), true),
                (b.base() + 4, true),
                (a.base() + 6, true),
                (a.base() + 7, false), // its last byte is past the block's 10
                (a.base() + 8, false),
                (a.base().wrapping_sub(1), false),
                (w.base(), false),
                (b.base() + 5, false),
                (abi::LDS_BASE, false),
            ] {
                assert_eq!(v.is_read_only(addr), want, "{addr:#x}");
            }
        }
        // Loads through a remembered block read the block, and count like any load.
        let before = v.bytes_moved(Space::Global);
        assert_eq!(v.load(a.base() + 4, 4), Ok(0x0807_0605));
        assert_eq!(v.load(a.base() + 6, 2), Ok(0x0807));
        assert_eq!(v.load(a.base() + 9, 1), Ok(0x0a));
        assert_eq!(v.load(b.base() + 4, 4), Ok(0));
        assert_eq!(v.load(a.base() + 2, 4), Err(MemError::Misaligned(a.base() + 2)));
        assert_eq!(v.bytes_moved(Space::Global), before + 11);
    }

    #[test]
    fn a_load_from_a_read_only_block_remembers_it() {
        // A lone warp's scalar loads skip the sharing check (`is_read_only`), which is where a
        // block used to be remembered: its argument loads then never took the inline path.
        let m = DeviceMemory::new();
        let a = m.alloc_read_only(8).unwrap();
        let w = m.alloc(8).unwrap();
        m.write(a.base(), &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let lds = Region::zeroed(abi::LDS_BASE, 16);
        let prog = Region::zeroed(abi::PROGRAM_BASE, 16);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        assert!(v.remembered_read_only(a.base()).is_none());
        assert_eq!(v.load(w.base(), 4), Ok(0));
        assert!(v.remembered_read_only(w.base()).is_none(), "a writable block is never remembered");
        let before = v.bytes_moved(Space::Global);
        assert_eq!(v.load(a.base() + 4, 4), Ok(0x0807_0605));
        assert!(v.remembered_read_only(a.base()).is_some());
        // The next load reads through the remembered block, counted alike.
        assert_eq!(v.load(a.base(), 2), Ok(0x0201));
        assert_eq!(v.bytes_moved(Space::Global), before + 6);
    }

    #[test]
    fn one_step_accesses_cross_a_256_mib_boundary_inside_one_region() {
        // A buffer straddling 0xa000_0000 (the private block of a large launch often does):
        // a warp's strided words across the boundary load and store in one step.
        let m = DeviceMemory::new();
        m.map(0x9fff_f000, 0x2000).unwrap();
        let lds = Region::zeroed(abi::LDS_BASE, 0x1000);
        let prog = Region::zeroed(abi::PROGRAM_BASE, 16);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        let addrs: [u32; 32] = std::array::from_fn(|i| 0x9fff_ffc8 + 8 * i as u32);
        let values: [u32; 32] = std::array::from_fn(|i| 100 + i as u32);
        assert!(v.store_lanes(&addrs, &values, u32::MAX, 4));
        assert_eq!(v.load_lanes(&addrs, u32::MAX, 4), Some(values));
        assert_eq!(v.load(0xa000_0000, 4).ok(), Some(107));
        // Past the region's end: the per-lane path (which faults there).
        let out: [u32; 32] = std::array::from_fn(|i| 0xa000_0f80 + 8 * i as u32);
        assert_eq!(v.load_lanes(&out, u32::MAX, 4), None);
    }

    #[test]
    fn unit_stride_takes_only_whole_aligned_runs_inside_one_region() {
        let m = DeviceMemory::new();
        let buf = m.alloc(0x1000).unwrap();
        let ro = m.alloc_read_only(0x1000).unwrap();
        let lds = Region::zeroed(abi::LDS_BASE, 0x1000);
        let prog = Region::zeroed(abi::PROGRAM_BASE, 16);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        let run = |lo: u32| -> [u32; 32] { std::array::from_fn(|i| lo.wrapping_add(4 * i as u32)) };
        let b = buf.base();
        // The last whole run of the block; its words are the block's, in lane order.
        buf.store(b + 0xf80, 11, 4);
        buf.store(b + 0xffc, 22, 4);
        let words = v.unit_stride(&run(b + 0xf80), false).expect("inside the block");
        assert_eq!((words[0].load(Relaxed), words[31].load(Relaxed)), (11, 22));
        assert_eq!(v.bytes_moved(Space::Global), 128);
        // One word past the end, misaligned, not consecutive, lanes out of order: the per-lane path.
        assert!(v.unit_stride(&run(b + 0xf84), false).is_none());
        assert!(v.unit_stride(&run(b + 2), false).is_none());
        let mut gap = run(b);
        gap[31] += 4;
        assert!(v.unit_stride(&gap, false).is_none());
        let mut swapped = run(b);
        swapped.swap(3, 4);
        assert!(v.unit_stride(&swapped, false).is_none());
        // Wrapping past 2^32 and the program window (page permissions) are never taken.
        assert!(v.unit_stride(&run(0xffff_ffe0), false).is_none());
        assert!(v.unit_stride(&run(abi::PROGRAM_BASE), false).is_none());
        // A read-only block loads in one step but never stores.
        assert!(v.unit_stride(&run(ro.base()), false).is_some());
        assert!(v.unit_stride(&run(ro.base()), true).is_none());
        assert!(v.unit_stride(&run(b), true).is_some());
        // The LDS window, up to its end.
        assert!(v.unit_stride(&run(abi::LDS_BASE + 0x40), true).is_some());
        assert!(v.lds_written());
        assert!(v.unit_stride(&run(abi::LDS_BASE + 0xfe0), false).is_none());
        // Nothing was counted for the refusals.
        assert_eq!(v.bytes_moved(Space::Global), 128 * 3);
    }

    #[test]
    fn reservations_take_addresses_but_no_access_reaches_them() {
        let m = DeviceMemory::new();
        let a = m.alloc(16).unwrap();
        let r = m.reserve(0x3_0001).unwrap();
        assert_eq!((a.base(), r), (0x9000_0000, 0x9000_1000));
        // The next block goes after the whole (page-rounded) reservation.
        assert_eq!(m.alloc(4).unwrap().base(), 0x9003_2000);
        assert_eq!(m.read_u32(r), Err(MapError::OutOfBounds { addr: r, len: 4 }));
        assert!(m.write(r + 8, &[1]).is_err());
        let lds = Region::zeroed(abi::LDS_BASE, 16);
        let prog = Region::zeroed(abi::PROGRAM_BASE, 16);
        let snap = m.snapshot();
        assert_eq!(snap.len(), 2, "{snap:?}");
        let v = MemView::new(&lds, &prog, None, &snap);
        assert_eq!(v.load(r, 4), Err(MemError::Unmapped(r)));
        assert_eq!(v.store(r + 0x2_fffc, 1, 4), Err(MemError::Unmapped(r + 0x2_fffc)));
        // An overlay (a host thread's private storage) is what accesses there reach.
        let private = Region::zeroed(r, 64);
        let v = MemView::new(&lds, &prog, Some(&private), &snap);
        v.store(r + 4, 7, 4).unwrap();
        assert_eq!(private.load(r + 4, 4), 7);
        // Released like any block, its addresses are reused.
        assert!(m.unmap(r));
        assert_eq!(m.alloc(0x1000).unwrap().base(), 0x9000_1000);
    }

    #[test]
    fn reset_range_zeroes_exactly_the_range() {
        for size in [256u32, 1 << 20] {
            let mut r = Region::zeroed(0x7000_0000, size);
            r.track_writes();
            for a in (0..size).step_by(4) {
                r.store(0x7000_0000 + a, 0xffff_ffff, 4);
            }
            let (lo, hi) = (0x7000_0000 + size / 4 + 4, 0x7000_0000 + size - 8);
            r.reset_range(lo, hi);
            for a in (0..size).step_by(4) {
                let addr = 0x7000_0000 + a;
                let inside = (lo..hi).contains(&addr);
                assert_eq!(r.load(addr, 4), if inside { 0 } else { 0xffff_ffff }, "size {size:#x} at {addr:#x}");
                assert_eq!(r.all_written(addr, 4), !inside, "write bits, size {size:#x} at {addr:#x}");
            }
            // Clamped to the region; an empty or outside range is nothing.
            r.reset_range(0x7000_0000 + size - 4, u32::MAX);
            assert_eq!(r.load(0x7000_0000 + size - 4, 4), 0);
            r.reset_range(0x6000_0000, 0x6000_1000);
            r.reset_range(lo + 8, lo);
            assert_eq!(r.load(0x7000_0000, 4), 0xffff_ffff);
        }
    }

    #[test]
    fn cas64_compares_both_words_and_is_atomic_across_threads() {
        let m = DeviceMemory::new();
        m.map(0x9000_0000, 12).unwrap();
        let lds = Region::zeroed(abi::LDS_BASE, 16);
        let prog = Region::zeroed(abi::PROGRAM_BASE, 16);
        let snap = m.snapshot();
        let v = MemView::new(&lds, &prog, None, &snap);
        let a = 0x9000_0000;
        v.store(a, 7, 4).unwrap();
        v.store(a + 4, 1, 4).unwrap();
        let x = 1u64 << 32 | 7;
        assert_eq!(v.cas64(a, x ^ 1 << 32, 5), Ok(x), "high word differs: no store");
        assert_eq!(v.cas64(a, x ^ 1, 5), Ok(x), "low word differs: no store");
        assert_eq!(v.cas64(a, x, u64::MAX - 1), Ok(x));
        assert_eq!((v.load(a, 4), v.load(a + 4, 4)), (Ok(u32::MAX - 1), Ok(u32::MAX)));
        assert_eq!(v.cas64(a + 4, 0, 0), Err(MemError::Misaligned(a + 4)));
        assert_eq!(v.cas64(a + 8, 0, 0), Err(MemError::Unmapped(a + 12)), "high word outside the region");
        assert_eq!(v.cas64(0x18, 0, 0), Err(MemError::Unmapped(0x18)));
        // Four host threads increment one doubleword across bit 32 with CAS loops.
        let r = m.alloc(8).unwrap();
        let base = r.base();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..20_000 {
                        let mut old = 0;
                        loop {
                            let seen = r.cas64(base, old, old + 0xffff_ffff);
                            if seen == old {
                                break;
                            }
                            old = seen;
                        }
                    }
                });
            }
        });
        assert_eq!(u64::from(r.load(base, 4)) | u64::from(r.load(base + 4, 4)) << 32, 80_000 * 0xffff_ffff);
    }
}
