//! The shared (global) part of device memory: its regions, the official bump allocator, the
//! redzones of the memory checker and host transfers.

use super::storage::{FixedMap, Words};
use super::Region;
use crate::abi;
use parking_lot::RwLock;
use std::sync::Arc;

/// Errors of host-side memory management.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// The new region would overlap an existing one or the reserved windows.
    Overlap { base: u32, size: u32 },
    /// The region would wrap past the end of the 32-bit space, or is empty.
    BadRange { base: u32, size: u32 },
    /// A host transfer touches bytes outside one region.
    OutOfBounds { addr: u32, len: usize },
    /// The heap is exhausted.
    OutOfMemory { size: u32 },
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::Overlap { base, size } => write!(f, "region {base:#010x}+{size:#x} overlaps another"),
            MapError::BadRange { base, size } => write!(f, "invalid region {base:#010x}+{size:#x}"),
            MapError::OutOfBounds { addr, len } => write!(f, "{len} bytes at {addr:#010x} are not inside one region"),
            MapError::OutOfMemory { size } => write!(f, "device heap exhausted allocating {size:#x} bytes"),
        }
    }
}
impl std::error::Error for MapError {}

/// The shared (global) part of device memory, plus the official bump allocator.
#[derive(Default)]
pub struct DeviceMemory {
    /// Sorted by base, non-overlapping.
    regions: RwLock<Vec<Arc<Region>>>,
    /// Heap allocations record which bytes get written (`VENTUS_MEMCHECK=2`).
    track_writes: bool,
    /// Every heap allocation gets redzones (`VENTUS_MEMCHECK` ≥ 1; see [`redzone_for`]).
    redzones: bool,
}

/// The unmapped bytes kept on each side of a guarded allocation of `size` bytes: a page, and a
/// sixteenth of the size for larger blocks (up to 1 MiB), so that an access a few elements
/// before a buffer or past its end — or, for large buffers, a row or a plane away — lands in no
/// region. Address space only: a redzone has no storage and costs no host memory.
pub fn redzone_for(size: u32) -> u32 {
    let page = abi::PAGE_SIZE as u64;
    crate::util::align_up(u64::from(size) / 16, page).clamp(page, 1 << 20) as u32
}

fn in_windows(base: u32, size: u32) -> bool {
    let end = base as u64 + size as u64;
    end > abi::LDS_BASE as u64 && (base as u64) < (abi::PROGRAM_BASE as u64 + abi::PROGRAM_SIZE as u64)
}

impl DeviceMemory {
    /// Device memory; heap allocations get redzones when `VENTUS_MEMCHECK` is 1 or 2 and
    /// record writes when it is 2.
    pub fn new() -> DeviceMemory {
        let c = super::super::config::Config::get();
        DeviceMemory { track_writes: c.memcheck_uninit, redzones: c.memcheck, ..DeviceMemory::default() }
    }

    /// Device memory whose heap allocations record which bytes get written, whatever the
    /// environment says (so the checker can report loads of never-written bytes).
    pub fn with_write_tracking() -> DeviceMemory {
        DeviceMemory { track_writes: true, ..DeviceMemory::default() }
    }

    /// Maps a zeroed region at a fixed address.
    pub fn map(&self, base: u32, size: u32) -> Result<Arc<Region>, MapError> {
        if size == 0 || base as u64 + size as u64 > 1 << 32 {
            return Err(MapError::BadRange { base, size });
        }
        if in_windows(base, size) {
            return Err(MapError::Overlap { base, size });
        }
        let mut regions = self.regions.write();
        let end = base as u64 + size as u64;
        if regions.iter().any(|r| (r.base as u64) < end && (base as u64) < r.base as u64 + r.size as u64) {
            return Err(MapError::Overlap { base, size });
        }
        let r = Arc::new(Region::zeroed(base, size));
        let pos = regions.partition_point(|x| x.base < base);
        regions.insert(pos, r.clone());
        Ok(r)
    }

    /// Allocates a zeroed, 4 KiB-aligned region in the heap (from 0x9000_0000): the lowest gap
    /// that fits. While nothing is freed this is the official bump allocator (each block right
    /// after the previous one), so addresses match official traces; freed space is reused.
    pub fn alloc(&self, size: u32) -> Result<Arc<Region>, MapError> {
        self.alloc_with(size, false, self.redzones)
    }

    /// As [`Self::alloc`], with unmapped redzones of [`redzone_for`]`(size)` bytes on both sides
    /// of the block whatever the environment says (the driver allocates the buffers of a context
    /// under the memory checker this way; `VENTUS_MEMCHECK` makes every allocation guarded).
    /// Addresses then differ from the official allocator's.
    pub fn alloc_guarded(&self, size: u32) -> Result<Arc<Region>, MapError> {
        self.alloc_with(size, false, true)
    }

    /// As [`Self::alloc`], for a block kernels may only read (the host fills it through
    /// [`Region::write_bytes`] before the launch): a kernel store or atomic to its `size`
    /// bytes faults (the page padding after them stays writable), so
    /// what a kernel loads from it cannot depend on the order in which warps run
    /// ([`super::MemView::is_read_only`]). The driver allocates each launch's metadata and argument
    /// buffers this way.
    pub fn alloc_read_only(&self, size: u32) -> Result<Arc<Region>, MapError> {
        self.alloc_with(size, true, self.redzones)
    }

    /// As [`Self::alloc`], with the block's storage at the host address equal to its device
    /// address (shared virtual memory: the host reaches the bytes through the pointer
    /// `base as *mut u8`, kernels through `base`). Gaps whose host addresses are taken by
    /// other mappings of the process are skipped (a few tries); `OutOfMemory` when none fits.
    pub fn alloc_shared(&self, size: u32) -> Result<Arc<Region>, MapError> {
        const TRIES: usize = 16;
        let rounded = crate::util::align_up(size.max(1) as u64, abi::PAGE_SIZE as u64);
        let redzone = if self.redzones { redzone_for(size) } else { 0 };
        let mut regions = self.regions.write();
        // Host-occupied gaps found so far, as placeholder reservations for the search only.
        let mut taken: Vec<Arc<Region>> = Vec::new();
        for _ in 0..TRIES {
            let mut all: Vec<Arc<Region>> = regions.iter().chain(&taken).cloned().collect();
            all.sort_by_key(|r| r.base);
            let base = Self::heap_gap(&all, rounded, redzone).ok_or(MapError::OutOfMemory { size })?;
            let Some(map) = FixedMap::at(base as usize, rounded as usize) else {
                taken.push(Arc::new(Region::reservation(base, rounded as u32)));
                continue;
            };
            let r = Region::with_storage(base, rounded as u32, Words::Fixed(map), false);
            return Ok(self.insert(&mut regions, r, size, redzone));
        }
        Err(MapError::OutOfMemory { size })
    }

    fn alloc_with(&self, size: u32, read_only: bool, guarded: bool) -> Result<Arc<Region>, MapError> {
        let rounded = crate::util::align_up(size.max(1) as u64, abi::PAGE_SIZE as u64);
        let redzone = if guarded { redzone_for(size) } else { 0 };
        let mut regions = self.regions.write();
        let candidate = Self::heap_gap(&regions, rounded, redzone).ok_or(MapError::OutOfMemory { size })?;
        let mut r = Region::zeroed(candidate, rounded as u32);
        r.read_only = read_only;
        Ok(self.insert(&mut regions, r, size, redzone))
    }

    /// Completes a new heap block asked for `size` bytes (its checked length, redzone and write
    /// tracking) and inserts it in `regions`, kept sorted by base.
    fn insert(&self, regions: &mut Vec<Arc<Region>>, mut r: Region, size: u32, redzone: u32) -> Arc<Region> {
        r.len = size.max(1).min(r.size);
        r.redzone = redzone;
        if self.track_writes {
            r.track_writes();
        }
        let r = Arc::new(r);
        let pos = regions.partition_point(|x| x.base < r.base);
        regions.insert(pos, r.clone());
        r
    }

    /// Reserves `size` bytes of heap addresses, like [`DeviceMemory::alloc`] but without
    /// storage: nothing can access them (a snapshot and host transfers leave reservations out),
    /// and [`DeviceMemory::unmap`] releases them. A launch's private block is one: every
    /// work-group addresses the same first bytes of it, which each host thread overlays with
    /// its own storage ([`super::MemView::private`]), so the block itself would be mapped for nothing.
    pub fn reserve(&self, size: u32) -> Result<u32, MapError> {
        let rounded = crate::util::align_up(size.max(1) as u64, abi::PAGE_SIZE as u64);
        let mut regions = self.regions.write();
        let base = Self::heap_gap(&regions, rounded, 0).ok_or(MapError::OutOfMemory { size })?;
        let mut r = Region::reservation(base, rounded as u32);
        r.len = size.max(1);
        let pos = regions.partition_point(|x| x.base < base);
        regions.insert(pos, Arc::new(r));
        Ok(base)
    }

    /// The lowest page-aligned heap address with `rounded` free bytes after it and `redzone`
    /// free bytes on each side, outside every region's own redzones.
    fn heap_gap(regions: &[Arc<Region>], rounded: u64, redzone: u32) -> Option<u32> {
        let page = abi::PAGE_SIZE as u64;
        let need = rounded + 2 * u64::from(redzone);
        // `candidate`: where the new block's leading redzone may start.
        let mut candidate = abi::HEAP_BASE as u64;
        for r in regions.iter().filter(|r| r.base as u64 + r.size as u64 > abi::HEAP_BASE as u64) {
            let (lo, hi) = (r.base as u64 - u64::from(r.redzone), r.base as u64 + r.size as u64);
            if lo >= candidate + need {
                break;
            }
            candidate = candidate.max(crate::util::align_up(hi, page) + u64::from(r.redzone));
        }
        (candidate + need <= 1 << 32).then_some((candidate + u64::from(redzone)) as u32)
    }

    /// Bytes currently mapped in the heap.
    pub fn heap_bytes(&self) -> u64 {
        self.regions.read().iter().filter(|r| r.base >= abi::HEAP_BASE).map(|r| r.size as u64).sum()
    }

    /// Removes the region starting at `base`; returns whether one was removed.
    pub fn unmap(&self, base: u32) -> bool {
        let mut regions = self.regions.write();
        let before = regions.len();
        regions.retain(|r| r.base != base);
        regions.len() != before
    }

    /// The base of the block (not a reservation) holding `addr`, if any.
    pub fn block_of(&self, addr: u32) -> Option<u32> {
        self.region_for(addr, 1).ok().map(|r| r.base)
    }

    /// A snapshot of the regions (sorted by base) for one launch.
    pub fn snapshot(&self) -> Vec<Arc<Region>> {
        self.regions.read().iter().filter(|r| !r.reservation).cloned().collect()
    }

    fn region_for(&self, addr: u32, len: usize) -> Result<Arc<Region>, MapError> {
        let regions = self.regions.read();
        regions
            .iter()
            .find(|r| !r.reservation && r.contains(addr) && (addr - r.base) as u64 + len as u64 <= r.size as u64)
            .cloned()
            .ok_or(MapError::OutOfBounds { addr, len })
    }

    /// Host write (must lie inside one region).
    pub fn write(&self, addr: u32, data: &[u8]) -> Result<(), MapError> {
        self.region_for(addr, data.len())?.write_bytes(addr, data);
        Ok(())
    }
    /// Host read (must lie inside one region).
    pub fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), MapError> {
        self.region_for(addr, out.len())?.read_bytes(addr, out);
        Ok(())
    }
    /// Host read of one little-endian word.
    pub fn read_u32(&self, addr: u32) -> Result<u32, MapError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    /// Host write of one little-endian word.
    pub fn write_u32(&self, addr: u32, value: u32) -> Result<(), MapError> {
        self.write(addr, &value.to_le_bytes())
    }
}
