//! Where a region's words live: the heap for small regions, an anonymous mapping for large
//! ones, or a mapping at a fixed host address (shared virtual memory).

use std::alloc::{alloc_zeroed, Layout};
use std::sync::atomic::AtomicU32;

/// Word storage: the heap for small regions, an anonymous mapping for large ones (pages are
/// committed by the OS on first touch and read as zero until then).
pub(super) enum Words {
    Heap(Box<[AtomicU32]>),
    Map(memmap2::MmapMut),
    /// Mapped at the host address equal to the region's device address (shared virtual memory:
    /// a pointer means the same bytes to the host and to kernels).
    Fixed(FixedMap),
}

/// An anonymous read-write mapping at a fixed host address, unmapped when dropped.
pub(super) struct FixedMap {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

impl FixedMap {
    /// Maps `len` zeroed bytes at host address `addr`, only if nothing is mapped there
    /// (`MAP_FIXED_NOREPLACE`): `None` when the range is taken or the kernel refuses.
    pub(super) fn at(addr: usize, len: usize) -> Option<FixedMap> {
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE;
        // SAFETY: a new anonymous mapping that may not replace any existing one: it touches no
        // memory the process uses; the result is checked below.
        let p = unsafe { libc::mmap(addr as *mut libc::c_void, len, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
        if p == libc::MAP_FAILED {
            return None;
        }
        if p as usize != addr {
            // A kernel older than 4.17 treats the flag as a hint and maps elsewhere.
            // SAFETY: the mapping just made, of `len` bytes, used by nothing.
            unsafe { libc::munmap(p, len) };
            return None;
        }
        Some(FixedMap { ptr: std::ptr::NonNull::new(p as *mut u8)?, len })
    }
}

impl Drop for FixedMap {
    fn drop(&mut self) {
        // SAFETY: the mapping this value made and owns; nothing refers to it any more (its
        // region is being dropped).
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
    }
}

impl Words {
    /// Regions of at least this many bytes are mapped.
    const MAP_FROM: usize = 64 * 1024;
    /// Mapped regions of at least this many bytes ask for transparent huge pages.
    const HUGE_FROM: usize = 2 << 20;

    pub(super) fn zeroed(n: usize) -> Words {
        if n * 4 >= Self::MAP_FROM {
            if let Ok(m) = memmap2::MmapMut::map_anon(n * 4) {
                if n * 4 >= Self::HUGE_FROM {
                    // Transparent huge pages where the host allows them on request: a 16 MiB
                    // buffer then takes 8 page faults on first touch instead of 4,096 (on a VM,
                    // several µs each). Best effort: a refusal leaves 4 KiB pages.
                    let _ = m.advise(memmap2::Advice::HugePage);
                }
                return Words::Map(m);
            }
        }
        let layout = Layout::array::<AtomicU32>(n).expect("region size fits a Layout");
        // SAFETY: `layout` has non-zero size (n >= 1). An all-zero bit pattern is a valid
        // `AtomicU32`, so the zeroed allocation is an initialised `[AtomicU32; n]`; ownership of the
        // allocation (made with the global allocator and this exact layout) moves into the Box.
        let words = unsafe {
            let p = alloc_zeroed(layout) as *mut AtomicU32;
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
        };
        Words::Heap(words)
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU32];
    #[inline(always)]
    fn deref(&self) -> &[AtomicU32] {
        match self {
            Words::Heap(b) => b,
            // SAFETY: the mapping is page-aligned (so aligned for AtomicU32), `len / 4` whole words
            // long, zero-initialised by the OS and only ever accessed through these atomics; it
            // lives as long as `self`.
            Words::Map(m) => unsafe { std::slice::from_raw_parts(m.as_ptr() as *const AtomicU32, m.len() / 4) },
            // SAFETY: as for `Map`: a page-aligned, zero-initialised mapping of `len` bytes owned
            // by `self`. The application reaches the same bytes through plain pointers; those
            // accesses are its own (as any memory it shares with a running kernel), ours are
            // atomic.
            Words::Fixed(m) => unsafe { std::slice::from_raw_parts(m.ptr.as_ptr() as *const AtomicU32, m.len / 4) },
        }
    }
}
