//! Device memory as the runtime sees it: a heap of buffers at 32-bit device addresses, read and
//! written by the host while kernels may run.
//!
//! Contract:
//! * [`Memory`] is the device's global memory (one per device); [`Memory::alloc`] gives a zeroed
//!   [`Buffer`] in the heap (from 0x9000_0000), guarded by unmapped redzones when asked (the
//!   memory checker's contexts) — the allocator itself is the backend's.
//! * [`Buffer::read`]/[`Buffer::write`] copy whole aligned words where they can, so a host copy
//!   concurrent with a kernel never tears a word the kernel reads or writes atomically; the
//!   bytes must lie inside the buffer (the caller checks, as the OpenCL layer does).
//! * Freeing is by base address ([`Memory::free`]); a [`Buffer`] handle outliving its block
//!   keeps the storage alive but is no longer reachable by kernels.
//!
//! The OpenCL runtime (`core`) reaches device memory only through these types; the emulated
//! backend's memory is inside them (`tests/architecture.rs`: `core` names no emulator type).

use crate::emulator::memory::{DeviceMemory, MapError, Region};
use std::sync::Arc;

/// Why a memory operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryError {
    /// The heap has no room for `size` bytes.
    Exhausted { size: u32 },
    /// A host transfer of `len` bytes at `addr` is not inside one buffer.
    OutOfBounds { addr: u32, len: usize },
    /// The backend refused the request (an invalid size or an overlap: a driver bug).
    Refused { base: u32, size: u32 },
}

impl std::fmt::Display for MemoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryError::Exhausted { size } => write!(f, "device heap exhausted allocating {size:#x} bytes"),
            MemoryError::OutOfBounds { addr, len } => {
                write!(f, "{len} bytes at {addr:#010x} are not inside one buffer")
            }
            MemoryError::Refused { base, size } => write!(f, "invalid device memory block {base:#010x}+{size:#x}"),
        }
    }
}
impl std::error::Error for MemoryError {}

impl From<MapError> for MemoryError {
    fn from(e: MapError) -> MemoryError {
        match e {
            MapError::OutOfMemory { size } => MemoryError::Exhausted { size },
            MapError::OutOfBounds { addr, len } => MemoryError::OutOfBounds { addr, len },
            MapError::Overlap { base, size } | MapError::BadRange { base, size } => MemoryError::Refused { base, size },
        }
    }
}

/// How [`Memory::alloc`] places a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// The official allocator's placement (addresses match official traces); redzones only when
    /// `VENTUS_MEMCHECK` asks for them everywhere.
    #[default]
    Plain,
    /// With unmapped redzones on both sides, so an overflow or underflow into a neighbour faults.
    Guarded,
    /// Kernels may only read it (launch metadata and argument buffers).
    ReadOnly,
    /// At the host address equal to its device address (shared virtual memory): the host
    /// reaches its bytes through the pointer `base as *mut u8` as well.
    Shared,
}

/// A device's global memory.
pub struct Memory {
    inner: DeviceMemory,
}

impl Default for Memory {
    fn default() -> Memory {
        Memory::new()
    }
}

impl Memory {
    /// Empty device memory (the memory checker's settings from the environment).
    pub fn new() -> Memory {
        Memory { inner: DeviceMemory::new() }
    }

    /// The emulated backend's view (for the device layer's launch staging).
    pub(in crate::device) fn emulated(&self) -> &DeviceMemory {
        &self.inner
    }

    /// A zeroed block of `size` bytes.
    pub fn alloc(&self, size: u32, placement: Placement) -> Result<Buffer, MemoryError> {
        let region = match placement {
            Placement::Plain => self.inner.alloc(size),
            Placement::Guarded => self.inner.alloc_guarded(size),
            Placement::ReadOnly => self.inner.alloc_read_only(size),
            Placement::Shared => self.inner.alloc_shared(size),
        }?;
        Ok(Buffer { region })
    }

    /// Frees the block at `base`; whether there was one.
    pub fn free(&self, base: u32) -> bool {
        self.inner.unmap(base)
    }

    /// Bytes currently allocated in the heap.
    pub fn heap_bytes(&self) -> u64 {
        self.inner.heap_bytes()
    }

    /// Host read of bytes inside one block.
    pub fn read(&self, addr: u32, out: &mut [u8]) -> Result<(), MemoryError> {
        Ok(self.inner.read(addr, out)?)
    }

    /// Host write of bytes inside one block.
    pub fn write(&self, addr: u32, data: &[u8]) -> Result<(), MemoryError> {
        Ok(self.inner.write(addr, data)?)
    }

    /// Host read of one little-endian word.
    pub fn read_u32(&self, addr: u32) -> Result<u32, MemoryError> {
        Ok(self.inner.read_u32(addr)?)
    }

    /// Host write of one little-endian word.
    pub fn write_u32(&self, addr: u32, value: u32) -> Result<(), MemoryError> {
        Ok(self.inner.write_u32(addr, value)?)
    }
}

/// One block of device memory.
#[derive(Clone)]
pub struct Buffer {
    region: Arc<Region>,
}

impl Buffer {
    /// The device address of the first byte.
    pub fn base(&self) -> u32 {
        self.region.base()
    }

    /// The block's size in bytes.
    pub fn size(&self) -> u32 {
        self.region.size()
    }

    /// Whether two handles name the same block.
    pub fn same_block(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.region, &other.region)
    }

    /// The backend's storage (for the device layer's print buffer).
    pub(in crate::device) fn region(&self) -> &Region {
        &self.region
    }

    /// Reads bytes at `addr` (inside the block) into `out`, a word at a time where aligned.
    /// Address arithmetic wraps, so a block ending at the top of the 32-bit space is fine.
    pub fn read(&self, addr: u32, out: &mut [u8]) {
        let r = &self.region;
        let (first, rest) = out.split_at_mut(head_len(addr, out.len()));
        let mut a = addr;
        for b in first {
            *b = r.load(a, 1) as u8;
            a = a.wrapping_add(1);
        }
        let mut words = rest.chunks_exact_mut(4);
        for w in &mut words {
            w.copy_from_slice(&r.load(a, 4).to_le_bytes());
            a = a.wrapping_add(4);
        }
        for b in words.into_remainder() {
            *b = r.load(a, 1) as u8;
            a = a.wrapping_add(1);
        }
    }

    /// Writes `data` at `addr` (inside the block), a word at a time where aligned. Address
    /// arithmetic wraps, like [`Buffer::read`].
    pub fn write(&self, addr: u32, data: &[u8]) {
        let r = &self.region;
        let (first, rest) = data.split_at(head_len(addr, data.len()));
        let mut a = addr;
        for &b in first {
            r.store(a, b as u32, 1);
            a = a.wrapping_add(1);
        }
        let mut words = rest.chunks_exact(4);
        for w in &mut words {
            r.store(a, u32::from_le_bytes([w[0], w[1], w[2], w[3]]), 4);
            a = a.wrapping_add(4);
        }
        for &b in words.remainder() {
            r.store(a, b as u32, 1);
            a = a.wrapping_add(1);
        }
    }
}

/// Bytes before `addr` reaches a word boundary, at most `len`.
fn head_len(addr: u32, len: usize) -> usize {
    (addr.wrapping_neg() & 3).min(len as u32) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_copy_unaligned_spans_and_free_by_base() {
        let mem = Memory::new();
        let b = mem.alloc(64, Placement::Plain).unwrap();
        let data: Vec<u8> = (1..=23).collect();
        b.write(b.base() + 3, &data);
        let mut back = vec![0u8; 23];
        b.read(b.base() + 3, &mut back);
        assert_eq!(back, data);
        assert_eq!(mem.read_u32(b.base()).unwrap(), 1 << 24, "byte 3 of word 0");
        assert!(mem.heap_bytes() >= 64);
        assert!(mem.free(b.base()));
        assert_eq!(mem.heap_bytes(), 0);
        assert!(matches!(mem.read_u32(b.base()), Err(MemoryError::OutOfBounds { .. })));
    }
}
