//! Shared virtual memory (OpenCL 3.0 §5.6): the SVM allocations of a context.
//!
//! Contract: an SVM allocation is a block of device memory whose storage lives at the host
//! address equal to its device address ([`Placement::Shared`]), so a pointer into it means the
//! same bytes to the application and to kernels, whichever side stored it — coarse- and
//! fine-grained buffer sharing with no copies and nothing to synchronise but the commands
//! themselves (maps and unmaps are ordering points only). Device pointers are 32-bit: a
//! pointer the host stores for a kernel to follow must be stored as its low 32 bits (on a
//! little-endian host, the first 4 bytes of the host pointer), and structures shared with
//! kernels lay pointers out as 4 bytes (docs/using.md). Allocations count against
//! `CL_DEVICE_GLOBAL_MEM_SIZE` like buffers and are freed with their context at the latest.

use super::memory::{charge, refund};
use super::platform;
use crate::cl::*;
use crate::device::{Buffer, Placement};
use parking_lot::Mutex;
use std::collections::BTreeMap;

/// The largest alignment `clSVMAlloc` honours: allocations are page-aligned.
pub const MAX_ALIGNMENT: usize = crate::abi::PAGE_SIZE as usize;

/// One SVM allocation.
struct Allocation {
    block: Buffer,
    /// The bytes the application asked for.
    size: usize,
}

/// The SVM allocations of one context, by base address.
#[derive(Default)]
pub struct SvmAllocations {
    map: Mutex<BTreeMap<u32, Allocation>>,
}

impl SvmAllocations {
    /// A zeroed allocation of `size` bytes (1 ≤ size ≤ `u32::MAX`), page-aligned; its address
    /// as a host pointer value. `CL_MEM_OBJECT_ALLOCATION_FAILURE` past the device's global
    /// memory or when no host address range fits.
    pub fn alloc(&self, size: usize) -> CLResult<usize> {
        let bytes = u32::try_from(size).map_err(|_| CL_INVALID_BUFFER_SIZE)?;
        charge(size as u64)?;
        let block = platform::device().memory.alloc(bytes, Placement::Shared).map_err(|e| {
            log::warn!("clSVMAlloc of {size} bytes: {e}");
            refund(size as u64);
            CL_MEM_OBJECT_ALLOCATION_FAILURE
        })?;
        let base = block.base();
        self.map.lock().insert(base, Allocation { block, size });
        Ok(base as usize)
    }

    /// Frees the allocation starting at `ptr`; whether there was one.
    pub fn free(&self, ptr: usize) -> bool {
        let Ok(base) = u32::try_from(ptr) else { return false };
        let Some(a) = self.map.lock().remove(&base) else { return false };
        release(a);
        true
    }

    /// The allocation containing the byte at `ptr`: its base and size. (A pointer one past
    /// the end is inside no allocation.)
    pub fn find(&self, ptr: usize) -> Option<(usize, usize)> {
        containing(&self.map.lock(), ptr).map(|(base, a)| (base, a.size))
    }

    /// The device block of the allocation containing `ptr`, and its base.
    pub fn block(&self, ptr: usize) -> Option<(Buffer, usize)> {
        containing(&self.map.lock(), ptr).map(|(base, a)| (a.block.clone(), base))
    }

    /// Whether `[ptr, ptr + len)` lies inside one allocation.
    pub fn contains(&self, ptr: usize, len: usize) -> bool {
        self.find(ptr).is_some_and(|(base, size)| ptr.checked_add(len).is_some_and(|end| end <= base + size))
    }
}

/// The allocation of `map` containing the byte at `ptr`, with its base.
fn containing(map: &BTreeMap<u32, Allocation>, ptr: usize) -> Option<(usize, &Allocation)> {
    let addr = u32::try_from(ptr).ok()?;
    let (&base, a) = map.range(..=addr).next_back()?;
    (((addr - base) as usize) < a.size).then_some((base as usize, a))
}

fn release(a: Allocation) {
    platform::device().memory.free(a.block.base());
    refund(a.size as u64);
}

impl Drop for SvmAllocations {
    fn drop(&mut self) {
        for (_, a) in std::mem::take(&mut *self.map.lock()) {
            release(a);
        }
    }
}
