//! A region: a contiguous, word-backed piece of the device address space, and the errors of an
//! access to one (see the parent module for the memory model: every access is a relaxed atomic
//! on its 32-bit word, the 64-bit compare-and-swap takes an address-striped lock).

use super::storage::Words;
use parking_lot::Mutex;
use std::sync::atomic::{
    AtomicU32,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

/// Number of locks that serialise [`Region::cas64`] (chosen by address).
const CAS64_STRIPES: usize = 64;
static CAS64_LOCKS: [Mutex<()>; CAS64_STRIPES] = [const { Mutex::new(()) }; CAS64_STRIPES];

/// A contiguous, word-backed piece of the address space.
pub struct Region {
    pub(super) base: u32,
    /// Size in bytes (multiple of 4).
    pub(super) size: u32,
    /// Bytes the owner asked for (≤ `size`; allocations are rounded up to whole pages): what
    /// the memory checker allows.
    pub(super) len: u32,
    /// One bit per byte, set once the byte has been written (by the host or a kernel); only
    /// when the checker looks for reads of never-written bytes (`VENTUS_MEMCHECK=2`).
    pub(super) written: Option<Box<[AtomicU32]>>,
    /// The words of `_storage`, as a slice pointer taken once (the hot path indexes it without
    /// asking which kind of storage it is).
    pub(super) words: std::ptr::NonNull<[AtomicU32]>,
    pub(super) _storage: Words,
    /// Address space only, no storage ([`super::DeviceMemory::reserve`]): never in a snapshot, never
    /// accessed.
    pub(super) reservation: bool,
    /// Kernels may only load from its first `len` bytes (the host writes them before the
    /// launch): a kernel store or atomic there faults ([`super::DeviceMemory::alloc_read_only`]). The
    /// rest of its last page stays writable, as in the reference (the 2023 printf library of
    /// the official toolchain stores into such padding).
    pub(super) read_only: bool,
    /// Heap addresses kept unmapped on each side of the region (its redzones; 0 = none): under
    /// the memory checker an overflow or underflow of a buffer lands in no region and faults,
    /// reported against the nearest buffer ([`super::DeviceMemory::alloc_guarded`]).
    pub(super) redzone: u32,
}

// SAFETY: `words` points into `_storage`, which the region owns and never moves or frees while it
// lives (a heap box or a mapping); the words are atomics, so sharing and sending the region
// across threads is as safe as sharing a `Box<[AtomicU32]>`.
unsafe impl Send for Region {}
// SAFETY: as above: every access through `words` is an atomic operation.
unsafe impl Sync for Region {}
impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Region({:#010x}+{:#x})", self.base, self.size)
    }
}

/// Why a memory access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemError {
    /// No region contains the address (access fault).
    Unmapped(u32),
    /// The address is not naturally aligned for the access width.
    Misaligned(u32),
    /// A store or atomic update to a mapped page that is not writable (program text, read-only
    /// data).
    ReadOnly(u32),
    /// The memory checker found the access outside every exact extent (the page is mapped).
    Checked { addr: u32, bytes: u8 },
    /// The memory checker found a load of bytes nobody has written (`VENTUS_MEMCHECK=2`).
    Unwritten { addr: u32, bytes: u8 },
}

impl Region {
    /// A zero-filled region; `size` is rounded up to a multiple of 4. Large regions are allocated
    /// lazily by the OS (zeroed pages), so a 256 MiB window costs only what is touched.
    pub fn zeroed(base: u32, size: u32) -> Region {
        let size = (size.max(4) + 3) & !3;
        Region::with_storage(base, size, Words::zeroed((size / 4) as usize), false)
    }

    /// Address space only, no storage ([`super::DeviceMemory::reserve`]).
    pub(super) fn reservation(base: u32, size: u32) -> Region {
        Region::with_storage(base, size, Words::Heap(Box::new([])), true)
    }

    /// A region of `size` bytes (a multiple of 4) over `storage` (that many bytes, or none for a
    /// reservation).
    pub(super) fn with_storage(base: u32, size: u32, storage: Words, reservation: bool) -> Region {
        let words = std::ptr::NonNull::from(&*storage);
        Region {
            base,
            size,
            len: size,
            written: None,
            words,
            _storage: storage,
            reservation,
            read_only: false,
            redzone: 0,
        }
    }

    /// Starts recording which bytes get written ([`Region::all_written`]); until now none was.
    pub fn track_writes(&mut self) {
        self.written = Some((0..self.size.div_ceil(32)).map(|_| AtomicU32::new(0)).collect());
    }

    /// Records that `[addr, addr + n)` (inside the region) was written.
    #[inline(always)]
    fn mark(&self, addr: u32, n: u32) {
        if let Some(bits) = &self.written {
            Self::set_bits(bits, addr.wrapping_sub(self.base) as u64, n as u64, true);
        }
    }

    /// Sets (`on`) or clears the write bits of bytes `[off, off + n)` (offsets in the region).
    #[cold]
    fn set_bits(bits: &[AtomicU32], off: u64, n: u64, on: bool) {
        let (mut i, end) = (off, (off + n).min(bits.len() as u64 * 32));
        while i < end {
            let (w, b) = ((i / 32) as usize, (i % 32) as u32);
            let take = (32 - b as u64).min(end - i) as u32;
            let m = if take == 32 { u32::MAX } else { ((1u32 << take) - 1) << b };
            if on {
                bits[w].fetch_or(m, Relaxed);
            } else {
                bits[w].fetch_and(!m, Relaxed);
            }
            i += take as u64;
        }
    }

    /// True when every byte of `[addr, addr + n)` has been written, or writes are not tracked.
    pub fn all_written(&self, addr: u32, n: u32) -> bool {
        let Some(bits) = &self.written else { return true };
        let off = addr.wrapping_sub(self.base) as u64;
        (off..off + n as u64).all(|i| bits.get((i / 32) as usize).is_some_and(|w| w.load(Relaxed) >> (i % 32) & 1 != 0))
    }

    /// As [`Region::zeroed`], remembering that the owner asked for `len` bytes.
    pub fn with_len(base: u32, size: u32, len: u32) -> Region {
        let mut r = Region::zeroed(base, size);
        r.len = len.min(r.size);
        r
    }

    /// The region's words.
    #[inline(always)]
    pub(super) fn words(&self) -> &[AtomicU32] {
        // SAFETY: `words` was taken from `_storage`, which lives (unmoved: a box's heap block or a
        // mapping) as long as `self`; only shared references to the atomics are ever made.
        unsafe { self.words.as_ref() }
    }

    pub fn base(&self) -> u32 {
        self.base
    }
    pub fn size(&self) -> u32 {
        self.size
    }
    /// Bytes the owner asked for (the exact extent the memory checker allows).
    pub fn len(&self) -> u32 {
        self.len
    }
    /// True for a region with no requested bytes (never: regions are at least 4 bytes).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// True when `addr` lies inside the region.
    #[inline(always)]
    pub fn contains(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }
    #[inline(always)]
    fn word(&self, addr: u32) -> &AtomicU32 {
        &self.words()[(addr.wrapping_sub(self.base) >> 2) as usize]
    }
    /// The word holding `addr`, without the bounds check of [`Self::word`].
    ///
    /// # Safety
    /// `addr` must lie inside the region ([`Self::contains`]).
    #[inline(always)]
    pub(super) unsafe fn word_unchecked(&self, addr: u32) -> &AtomicU32 {
        // SAFETY: `addr - base < size` (the caller's contract) and `words` holds `size / 4` words.
        unsafe { self.words().get_unchecked((addr.wrapping_sub(self.base) >> 2) as usize) }
    }
    /// Loads a naturally aligned value of 1, 2 or 4 bytes (zero-extended). `addr` must be inside.
    #[inline(always)]
    pub fn load(&self, addr: u32, bytes: u32) -> u32 {
        let w = self.word(addr).load(Relaxed);
        match bytes {
            4 => w,
            2 => (w >> ((addr & 2) * 8)) & 0xffff,
            _ => (w >> ((addr & 3) * 8)) & 0xff,
        }
    }
    /// Stores a naturally aligned value of 1, 2 or 4 bytes. `addr` must be inside.
    #[inline(always)]
    pub fn store(&self, addr: u32, value: u32, bytes: u32) {
        self.mark(addr, bytes);
        let word = self.word(addr);
        if bytes == 4 {
            word.store(value, Relaxed);
            return;
        }
        let shift = (addr & 3) * 8;
        let m = if bytes == 2 { 0xffffu32 } else { 0xff } << shift;
        let v = (value << shift) & m;
        let mut cur = word.load(Relaxed);
        while let Err(now) = word.compare_exchange_weak(cur, (cur & !m) | v, Relaxed, Relaxed) {
            cur = now;
        }
    }
    /// Atomic read-modify-write of an aligned word; returns the old value. Acquire-release, so
    /// plain stores before an AMO are visible to a host thread that observes the AMO's result
    /// with [`Region::load_acquire`] (the printf record protocol relies on this).
    #[inline(always)]
    pub fn rmw(&self, addr: u32, f: impl Fn(u32) -> u32) -> u32 {
        self.mark(addr, 4);
        let word = self.word(addr);
        let mut cur = word.load(Relaxed);
        loop {
            match word.compare_exchange_weak(cur, f(cur), AcqRel, Acquire) {
                Ok(old) => return old,
                Err(now) => cur = now,
            }
        }
    }
    /// Atomic 64-bit compare-and-swap of the two words at `addr` (8-byte aligned, `addr + 4`
    /// inside the region): when they hold `expected` (low word first) they become `new`. Returns
    /// the old value.
    ///
    /// Atomic with respect to every other `cas64` in the process: the pair is updated under one
    /// of [`CAS64_STRIPES`] locks chosen by the host address of the low word (so the
    /// per-thread LDS windows, which share device addresses, do not contend). The words stay
    /// [`AtomicU32`]s and are read/written with acquire/release operations, so a plain 32-bit
    /// access racing with a `cas64` (a data race in the kernel) is still defined behaviour in
    /// Rust — which a 64-bit host atomic over the same bytes would not be (mixed-size atomic
    /// accesses are outside Rust's memory model), and it needs no 8-byte host alignment.
    pub fn cas64(&self, addr: u32, expected: u64, new: u64) -> u64 {
        let (lo, hi) = (self.word(addr), self.word(addr.wrapping_add(4)));
        let stripe = (lo as *const AtomicU32 as usize >> 3) % CAS64_STRIPES;
        let _guard = CAS64_LOCKS[stripe].lock();
        self.mark(addr, 8);
        let old = u64::from(lo.load(Acquire)) | u64::from(hi.load(Acquire)) << 32;
        if old == expected {
            lo.store(new as u32, Release);
            hi.store((new >> 32) as u32, Release);
        }
        old
    }
    /// Acquire load of an aligned word (host side of the printf protocol).
    pub fn load_acquire(&self, addr: u32) -> u32 {
        self.word(addr).load(Acquire)
    }
    /// Copies bytes out of the region (host path; bounds-checked by the caller).
    pub fn read_bytes(&self, addr: u32, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = self.load(addr.wrapping_add(i as u32), 1) as u8;
        }
    }
    /// Copies bytes into the region (host path; bounds-checked by the caller). Address
    /// arithmetic is done in 64 bits so a region ending at 2^32 is fine.
    pub fn write_bytes(&self, addr: u32, data: &[u8]) {
        self.mark(addr, data.len() as u32);
        let mut a = addr as u64;
        let mut rest = data;
        while !rest.is_empty() {
            if a & 3 == 0 && rest.len() >= 4 {
                self.word(a as u32).store(u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]), Relaxed);
                a += 4;
                rest = &rest[4..];
            } else {
                self.store(a as u32, rest[0] as u32, 1);
                a += 1;
                rest = &rest[1..];
            }
        }
    }
    /// Zeroes `[addr, addr+len)`.
    pub fn fill_zero(&self, addr: u32, len: u32) {
        self.mark(addr, len);
        let mut a = addr as u64;
        let end = addr as u64 + len as u64;
        while a < end {
            if a & 3 == 0 && end - a >= 4 {
                self.word(a as u32).store(0, Relaxed);
                a += 4;
            } else {
                self.store(a as u32, 0, 1);
                a += 1;
            }
        }
    }

    /// Zeroes the whole region for reuse (at `base`, which may differ from before). Large
    /// regions give their pages back to the OS, which reads them as zero on the next touch, so
    /// a 256 MiB window costs only the pages a launch touched — not a fresh mapping each time.
    pub fn reset(&mut self, base: u32) {
        self.base = base;
        self.zero_words(0, self.words().len());
    }

    /// Moves a region that holds only zeros to `base` (what [`Region::reset`] does, without
    /// the zeroing).
    pub fn rebase(&mut self, base: u32) {
        self.base = base;
    }

    /// Zeroes the bytes `[from, to)` (addresses, clamped to the region; word-aligned inward)
    /// for reuse, as [`Region::reset`] does for all of them (the base stays).
    pub fn reset_range(&mut self, from: u32, to: u32) {
        let lo = (from.max(self.base) - self.base).div_ceil(4) as usize;
        let end = (self.base as u64 + self.size as u64).min(to as u64);
        let hi = (end.saturating_sub(self.base as u64) / 4) as usize;
        if lo < hi {
            self.zero_words(lo, hi);
        }
    }

    /// Zeroes words `[lo, hi)` and clears their write bits: whole pages through the OS, the
    /// rest by stores. Takes `&mut self` so that no thread is accessing the words.
    fn zero_words(&mut self, lo: usize, hi: usize) {
        if let Some(bits) = &self.written {
            Self::set_bits(bits, lo as u64 * 4, (hi - lo) as u64 * 4, false);
        }
        const PAGE: usize = 4096;
        let words = &self.words()[lo..hi];
        let start = words.as_ptr() as usize;
        let end = start + words.len() * 4;
        let (inner_lo, inner_hi) = (start.next_multiple_of(PAGE), end & !(PAGE - 1));
        if inner_hi <= inner_lo || inner_hi - inner_lo < 16 * PAGE {
            words.iter().for_each(|w| w.store(0, Relaxed));
            return;
        }
        let (head, tail) = ((inner_lo - start) / 4, (end - inner_hi) / 4);
        let n = words.len();
        words[..head].iter().chain(&words[n - tail..]).for_each(|w| w.store(0, Relaxed));
        // SAFETY: [inner_lo, inner_hi) is a page-aligned range inside this region's own
        // allocation (anonymous memory from the global allocator or a private mapping), so no
        // other object lives there; `&mut self` means no thread is accessing the words.
        // MADV_DONTNEED on private anonymous memory makes the pages read as zero afterwards,
        // which is a valid `AtomicU32` value for every word.
        let r = unsafe { libc::madvise(inner_lo as *mut libc::c_void, inner_hi - inner_lo, libc::MADV_DONTNEED) };
        if r != 0 {
            words[head..n - tail].iter().for_each(|w| w.store(0, Relaxed));
        }
    }
}
