//! Memory objects: buffers and sub-buffers (OpenCL 3.0 §5.2, §5.5), and the host side of their
//! transfers (read, write, copy, fill, their rectangular forms, map/unmap).
//!
//! Contracts:
//! * A buffer owns one device [`Buffer`] block allocated in the device heap (zeroed, 4 KiB aligned);
//!   a sub-buffer shares its parent's block at `offset` and holds a strong reference to the
//!   parent, so the parent (and the device memory) outlives every sub-buffer.
//! * Dropping a buffer (last application reference released *and* no pending command holding it)
//!   runs the destructor callbacks, most recently registered first, then frees the device memory
//!   (the spec's order: "the user callback functions are called and then the memory objects
//!   resources are freed").
//! * Every transfer method checks its range against the object and returns `CL_INVALID_VALUE`
//!   instead of touching memory outside it; nothing here panics on bad input. The `api` layer
//!   validates the spec's error clauses before a command is enqueued.
//! * Application memory reaches `core` only as [`HostMemory`] (`CL_MEM_USE_HOST_PTR` storage and
//!   mapping targets), created by the `api` layer under an explicit safety contract, or as Rust
//!   slices that live no longer than one command.
//!
//! `CL_MEM_USE_HOST_PTR` policy: the device works on its own copy, made at creation from
//! `host_ptr`. The application memory is brought up to date (a) when a region is mapped (unless
//! `CL_MAP_WRITE_INVALIDATE_REGION`), where the returned pointer is `host_ptr + offset`, (b) after
//! every command that writes the buffer on the device: write, copy, fill and their rect forms
//! update the bytes they wrote ([`Mem::sync_host`], [`Mem::sync_rect`]), kernels call
//! [`Mem::after_device_write`] for the whole buffer.
//! Host-side changes reach the device when a region mapped for writing is unmapped (and only
//! then, as the spec requires the application to use map/unmap to change `host_ptr` contents).
//!
//! Mappings of a buffer and of its sub-buffers live in one table shared by all of them, so that
//! overlapping write mappings through different sub-buffers are detected
//! (`CL_INVALID_OPERATION`, §5.5.3 "Accessing mapped regions of a memory object").

use super::context::Context;
use super::device::MEM_BASE_ADDR_ALIGN_BITS;
use super::platform;
use crate::cl::object::Ref;
use crate::cl::*;
use crate::device::{Buffer, Placement};
use parking_lot::Mutex;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bytes: sub-buffer origins must be multiples of it.
pub const BASE_ADDR_ALIGN: usize = (MEM_BASE_ADDR_ALIGN_BITS / 8) as usize;

/// Bytes moved per step when a transfer goes through a temporary buffer.
const CHUNK: usize = 64 << 10;

/// Alignment of map staging allocations (the largest OpenCL vector type, `long16`).
const STAGING_ALIGN: usize = 128;

/// A destructor callback (`clSetMemObjectDestructorCallback`), already bound to its handle.
pub type Destructor = Box<dyn FnOnce() + Send>;

/// Application (or staging) memory that a memory object keeps using after the call that gave it:
/// an address and a length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostMemory {
    addr: usize,
    len: usize,
}

impl HostMemory {
    /// Wraps `len` bytes at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes for as long as any memory object or
    /// mapping holding this value (or a [`HostMemory::sub`] of it) exists — the OpenCL contract for
    /// `CL_MEM_USE_HOST_PTR` storage. Concurrent access by the application is its own business, as
    /// the spec makes such accesses undefined.
    pub unsafe fn new(ptr: *mut u8, len: usize) -> HostMemory {
        HostMemory { addr: ptr as usize, len }
    }

    /// The first byte's address.
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// The number of bytes.
    pub fn size(&self) -> usize {
        self.len
    }

    /// The `len` bytes at `offset`, if inside.
    pub fn sub(&self, offset: usize, len: usize) -> Option<HostMemory> {
        let end = offset.checked_add(len)?;
        (end <= self.len).then_some(HostMemory { addr: self.addr + offset, len })
    }

    /// Copies `data` to `offset` (nothing if out of range).
    fn store(&self, offset: usize, data: &[u8]) {
        if let Some(dst) = self.sub(offset, data.len()) {
            // SAFETY: `dst` lies inside memory valid for writes by the constructor's contract;
            // `data` is a Rust buffer of ours, so the two cannot overlap.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst.addr as *mut u8, data.len()) };
        }
    }

    /// Copies the bytes at `offset` into `out` (nothing if out of range).
    fn load(&self, offset: usize, out: &mut [u8]) {
        if let Some(src) = self.sub(offset, out.len()) {
            // SAFETY: `src` lies inside memory valid for reads by the constructor's contract;
            // `out` is a Rust buffer of ours, so the two cannot overlap.
            unsafe { std::ptr::copy_nonoverlapping(src.addr as *const u8, out.as_mut_ptr(), out.len()) };
        }
    }
}

/// A host allocation backing a mapping of a buffer without `CL_MEM_USE_HOST_PTR`.
struct Staging {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the allocation is plain bytes owned by this value; all access goes through raw copies
// (`HostMemory`) whose races with the application are undefined by the spec, not by Rust here.
unsafe impl Send for Staging {}
// SAFETY: as above — `&Staging` only exposes the address.
unsafe impl Sync for Staging {}

impl Staging {
    /// A zeroed allocation of `len > 0` bytes, or `None` if the host is out of memory.
    fn new(len: usize) -> Option<Staging> {
        let layout = Layout::from_size_align(len.max(1), STAGING_ALIGN).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        Some(Staging { ptr, layout })
    }

    fn memory(&self) -> HostMemory {
        // SAFETY: the allocation is valid for `layout.size()` bytes until `self` is dropped, and
        // every `Mapping` holding this `HostMemory` also holds an `Arc` to `self`.
        unsafe { HostMemory::new(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with exactly this layout, freed once.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// An active mapping (`clEnqueueMapBuffer` until `clEnqueueUnmapMemObject`).
#[derive(Clone)]
pub struct Mapping {
    id: u64,
    owner: u64,
    /// Offset in the owning memory object.
    pub offset: usize,
    /// Offset in the shared device region (for overlap checks across sub-buffers).
    abs_offset: usize,
    pub len: usize,
    pub flags: cl_map_flags,
    /// What the application sees: `host_ptr + offset` or a staging allocation.
    target: HostMemory,
    _staging: Option<Arc<Staging>>,
}

impl Mapping {
    /// The pointer handed to the application.
    pub fn ptr(&self) -> usize {
        self.target.addr()
    }

    /// Mapped for writing (`CL_MAP_WRITE`, `CL_MAP_WRITE_INVALIDATE_REGION`, or no flag at all,
    /// which is treated as read + write).
    pub fn writes(&self) -> bool {
        map_writes(self.flags)
    }

    fn overlaps(&self, abs_offset: usize, len: usize) -> bool {
        self.abs_offset < abs_offset + len && abs_offset < self.abs_offset + self.len
    }
}

/// Whether `flags` maps for writing (0 counts as read + write).
pub fn map_writes(flags: cl_map_flags) -> bool {
    flags == 0 || flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0
}

/// One side of a rectangular transfer: origin (bytes, rows, slices) and pitches (already
/// defaulted as the spec describes, never 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RectSide {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl RectSide {
    /// Byte offset of the first byte of row `y` of slice `z` of the region (no overflow check:
    /// valid for rows inside a region whose [`RectSide::extent`] succeeded).
    pub fn row_offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch + (self.origin[1] + y) * self.row_pitch + self.origin[0]
    }

    /// `[first, end)`: the bytes a transfer of `region` touches; `None` on arithmetic overflow or
    /// an empty region.
    pub fn extent(&self, region: [usize; 3]) -> Option<(usize, usize)> {
        if region.contains(&0) {
            return None;
        }
        let first = self.origin[2]
            .checked_mul(self.slice_pitch)?
            .checked_add(self.origin[1].checked_mul(self.row_pitch)?)?
            .checked_add(self.origin[0])?;
        let last_row =
            (region[2] - 1).checked_mul(self.slice_pitch)?.checked_add((region[1] - 1).checked_mul(self.row_pitch)?)?;
        let end = first.checked_add(last_row)?.checked_add(region[0])?;
        Some((first, end))
    }

    /// Offsets of every row of `region`, slice by slice.
    pub fn rows(self, region: [usize; 3]) -> impl Iterator<Item = usize> {
        (0..region[2]).flat_map(move |z| (0..region[1]).map(move |y| self.row_offset(y, z)))
    }
}

/// Whether two rectangular transfers of `region` inside one address range overlap. `a` and `b`
/// give row starts as absolute offsets (`base + origin`), each with its own pitches. Exact; when
/// pitches differ and the region has very many rows it answers conservatively (`true`) if the
/// bounding ranges overlap.
pub fn rects_overlap(a_base: usize, a: &RectSide, b_base: usize, b: &RectSide, region: [usize; 3]) -> bool {
    let (Some((a0, a1)), Some((b0, b1))) = (a.extent(region), b.extent(region)) else {
        return true;
    };
    let (a0, a1, b0, b1) = (a_base + a0, a_base + a1, b_base + b0, b_base + b1);
    if a1 <= b0 || b1 <= a0 {
        return false;
    }
    let w = region[0] as i128;
    if a.row_pitch == b.row_pitch && a.slice_pitch == b.slice_pitch {
        return same_pitch_overlap(b0 as i128 - a0 as i128, a.row_pitch as i128, a.slice_pitch as i128, region, w);
    }
    const BUDGET: usize = 1 << 24;
    let work = region[1].saturating_mul(region[2]).saturating_mul(region[2]);
    if work > BUDGET {
        return true;
    }
    let b_rows = region[1] as i128;
    a.rows(region).map(|r| (a_base + r) as i128).any(|row| {
        (0..region[2]).any(|z| {
            let base = (b_base + b.row_offset(0, z)) as i128;
            lattice_hit(row - base, b.row_pitch as i128, b_rows, w)
        })
    })
}

/// Is there a `j` in `0..n` with `|j*pitch - t| < w`? If any qualifies, so does the in-range
/// multiple of `pitch` nearest to `t`, which is one of the two multiples around `t`, clamped.
fn lattice_hit(t: i128, pitch: i128, n: i128, w: i128) -> bool {
    if n <= 0 {
        return false;
    }
    if pitch <= 0 {
        return t.abs() < w;
    }
    let j0 = t.div_euclid(pitch);
    [j0, j0 + 1].iter().map(|&j| j.clamp(0, n - 1)).any(|j| (j * pitch - t).abs() < w)
}

/// Overlap of two row lattices with equal pitches whose first rows are `d` bytes apart: is there
/// a row difference `(dj, dk)` with `|d + dj*row + dk*slice| < w`?
fn same_pitch_overlap(d: i128, row: i128, slice: i128, region: [usize; 3], w: i128) -> bool {
    let (r1, r2) = (region[1] as i128, region[2] as i128);
    (-(r2 - 1)..r2).any(|dk| {
        let e = d + dk * slice;
        // dj in -(r1-1)..r1  <=>  j = dj + (r1-1) in 0..2*r1-1, target -e shifted likewise.
        lattice_hit(-e + (r1 - 1) * row, row, 2 * r1 - 1, w)
    })
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub struct Mem {
    pub context: Ref<Context>,
    /// `CL_MEM_FLAGS`: as given, plus (for sub-buffers) the qualifiers inherited from the parent.
    pub flags: cl_mem_flags,
    pub size: usize,
    /// Offset inside `region` (non-zero for sub-buffers).
    pub offset: usize,
    pub parent: Option<Ref<Mem>>,
    /// The device block (shared with the parent for sub-buffers).
    pub region: Buffer,
    /// `CL_MEM_USE_HOST_PTR`: the application memory mirroring this object's bytes.
    pub host: Option<HostMemory>,
    /// The storage is an SVM allocation's (a `CL_MEM_USE_HOST_PTR` buffer over SVM memory,
    /// [`Mem::over_svm`]): the allocation owns and counts it, the buffer never frees it.
    svm: bool,
    /// `CL_MEM_PROPERTIES` as given (empty when the list was NULL or the object has none).
    pub properties: Vec<cl_mem_properties>,
    /// An image's format and shape (`None` for buffers; see `core::image`).
    pub image: Option<super::image::Image>,
    id: u64,
    maps: Arc<Mutex<Vec<Mapping>>>,
    destructors: Mutex<Vec<Destructor>>,
}

impl Mem {
    /// A new buffer of `size` bytes in device memory, initialised from `init` if given
    /// (`CL_MEM_COPY_HOST_PTR` / `CL_MEM_USE_HOST_PTR`). `CL_MEM_OBJECT_ALLOCATION_FAILURE` when the
    /// device heap is exhausted.
    pub fn buffer(
        context: Ref<Context>,
        flags: cl_mem_flags,
        size: usize,
        init: Option<&[u8]>,
        host: Option<HostMemory>,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Mem> {
        let bytes = u32::try_from(size).map_err(|_| CL_INVALID_BUFFER_SIZE)?;
        charge(size as u64)?;
        // Under the context's memory checker, unmapped redzones around the buffer make an
        // overflow or underflow into a neighbour fault (`VENTUS_MEMCHECK` guards every one).
        let memory = &platform::device().memory;
        let placement = if context.memcheck() { Placement::Guarded } else { Placement::Plain };
        let region = memory.alloc(bytes, placement);
        let region = region.map_err(|_| {
            refund(size as u64);
            CL_MEM_OBJECT_ALLOCATION_FAILURE
        })?;
        if let Some(data) = init {
            region.write(region.base(), &data[..size.min(data.len())]);
        }
        Ok(Mem {
            context,
            flags,
            size,
            offset: 0,
            parent: None,
            region,
            host,
            properties,
            image: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            maps: Arc::new(Mutex::new(Vec::new())),
            destructors: Mutex::new(Vec::new()),
            svm: false,
        })
    }

    /// A `CL_MEM_USE_HOST_PTR` buffer over `size` bytes of SVM memory at `host` (inside one
    /// allocation of `context`, checked by the caller): it shares the allocation's storage, so
    /// kernels and the application see one copy of the bytes (the `host` mirroring of other
    /// `CL_MEM_USE_HOST_PTR` buffers then copies bytes onto themselves).
    pub fn over_svm(
        context: Ref<Context>,
        flags: cl_mem_flags,
        host: HostMemory,
        properties: Vec<cl_mem_properties>,
    ) -> CLResult<Mem> {
        let (block, base) = context.svm.block(host.addr()).ok_or(CL_INVALID_HOST_PTR)?;
        let (offset, size) = (host.addr() - base, host.size());
        Ok(Mem {
            context,
            flags,
            size,
            offset,
            parent: None,
            region: block,
            host: Some(host),
            properties,
            image: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            maps: Arc::new(Mutex::new(Vec::new())),
            destructors: Mutex::new(Vec::new()),
            svm: true,
        })
    }

    /// A sub-buffer of `parent` covering `[origin, origin + size)` (validated by the caller;
    /// `CL_INVALID_VALUE` if not inside).
    pub fn sub_buffer(parent: &Ref<Mem>, flags: cl_mem_flags, origin: usize, size: usize) -> CLResult<Mem> {
        if parent.parent.is_some() {
            return Err(CL_INVALID_VALUE);
        }
        Mem::alias(parent, flags, origin, size)
    }

    /// A memory object sharing `parent`'s storage at `[origin, origin + size)` (a sub-buffer, or
    /// the pixels of an image created from a buffer); `CL_INVALID_VALUE` if not inside.
    pub fn alias(parent: &Ref<Mem>, flags: cl_mem_flags, origin: usize, size: usize) -> CLResult<Mem> {
        let end = origin.checked_add(size).ok_or(CL_INVALID_VALUE)?;
        if end > parent.size {
            return Err(CL_INVALID_VALUE);
        }
        let host = match parent.host {
            Some(h) => Some(h.sub(origin, size).ok_or(CL_INVALID_VALUE)?),
            None => None,
        };
        Ok(Mem {
            context: parent.context.clone(),
            flags,
            size,
            offset: parent.offset + origin,
            parent: Some(parent.clone()),
            region: parent.region.clone(),
            host,
            properties: Vec::new(),
            image: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            maps: parent.maps.clone(),
            destructors: Mutex::new(Vec::new()),
            svm: parent.svm,
        })
    }

    /// Whether the object was created over SVM memory (`CL_MEM_USES_SVM_POINTER`; a
    /// sub-buffer of such a buffer too).
    pub fn uses_svm(&self) -> bool {
        self.svm
    }

    /// What a kernel argument naming this object receives: the device address of the first
    /// byte, or an image's descriptor address.
    pub fn kernel_address(&self) -> u32 {
        match &self.image {
            Some(i) => i.descriptor.base(),
            None => self.device_address(),
        }
    }

    /// The device address of the first byte (what a kernel receives for this argument).
    pub fn device_address(&self) -> u32 {
        self.region.base() + self.offset as u32
    }

    /// True when `other` shares this object's device storage (same buffer or same parent).
    pub fn same_storage(&self, other: &Mem) -> bool {
        self.region.same_block(&other.region)
    }

    /// Device address of `[off, off + len)`, or `CL_INVALID_VALUE` if that is not inside.
    fn span(&self, off: usize, len: usize) -> CLResult<u32> {
        match off.checked_add(len) {
            // Wrapping: `off == size` with `len == 0` may name the first byte past the 32-bit
            // space for a buffer at the top of the heap; nothing is accessed there.
            Some(end) if end <= self.size => Ok(self.device_address().wrapping_add(off as u32)),
            _ => Err(CL_INVALID_VALUE),
        }
    }

    /// Called after a command may have written the buffer on the device (kernel, copy, fill):
    /// makes `CL_MEM_USE_HOST_PTR` host memory reflect the device contents.
    pub fn after_device_write(&self) {
        let _ = self.sync_host(0, self.size);
    }

    /// Copies device bytes `[off, off + len)` to the `CL_MEM_USE_HOST_PTR` memory, if any. Called
    /// after host-to-device writes once the source slice is gone (it may alias that memory).
    pub fn sync_host(&self, off: usize, len: usize) -> CLResult<()> {
        let Some(host) = self.host else { return Ok(()) };
        let addr = self.span(off, len)?;
        device_to_host(&self.region, addr, &host, off, len);
        Ok(())
    }

    /// Reads `out.len()` bytes at `off`.
    pub fn read(&self, off: usize, out: &mut [u8]) -> CLResult<()> {
        let addr = self.span(off, out.len())?;
        self.region.read(addr, out);
        Ok(())
    }

    /// Writes `data` at `off` to the device; the caller then calls [`Mem::sync_host`] (not done
    /// here: `data` may be the `CL_MEM_USE_HOST_PTR` memory itself).
    pub fn write(&self, off: usize, data: &[u8]) -> CLResult<()> {
        let addr = self.span(off, data.len())?;
        self.region.write(addr, data);
        Ok(())
    }

    /// Copies `len` bytes from `src` at `src_off` to `dst` at `dst_off` (regions must not overlap
    /// when both share storage; the caller checks `CL_MEM_COPY_OVERLAP`).
    pub fn copy(src: &Mem, src_off: usize, dst: &Mem, dst_off: usize, len: usize) -> CLResult<()> {
        let (from, to) = (src.span(src_off, len)?, dst.span(dst_off, len)?);
        let mut buf = vec![0u8; len.min(CHUNK)];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(CHUNK);
            src.region.read(from + done as u32, &mut buf[..n]);
            dst.region.write(to + done as u32, &buf[..n]);
            done += n;
        }
        dst.sync_host(dst_off, len)
    }

    /// Fills `[off, off + len)` with `pattern` repeated (`len` a multiple of the pattern size, a
    /// power of two up to 128, as validated by the caller).
    pub fn fill(&self, off: usize, len: usize, pattern: &[u8]) -> CLResult<()> {
        let addr = self.span(off, len)?;
        if pattern.is_empty() || len % pattern.len() != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let unit = (CHUNK / pattern.len()).max(1) * pattern.len();
        let chunk: Vec<u8> = pattern.iter().copied().cycle().take(unit.min(len)).collect();
        let mut done = 0;
        while done < len {
            let n = (len - done).min(chunk.len());
            self.region.write(addr + done as u32, &chunk[..n]);
            done += n;
        }
        self.sync_host(off, len)
    }

    /// `clEnqueueReadBufferRect`: rows of `region` at `buf` are copied to `out`, which holds the
    /// host bytes starting at offset `host_base` of the host rectangle `host`.
    pub fn read_rect(
        &self,
        buf: &RectSide,
        host: &RectSide,
        host_base: usize,
        region: [usize; 3],
        out: &mut [u8],
    ) -> CLResult<()> {
        for (b, h) in buf.rows(region).zip(host.rows(region)) {
            let h = h.checked_sub(host_base).ok_or(CL_INVALID_VALUE)?;
            let dst = out.get_mut(h..h + region[0]).ok_or(CL_INVALID_VALUE)?;
            self.read(b, dst)?;
        }
        Ok(())
    }

    /// `clEnqueueWriteBufferRect`: the converse of [`Mem::read_rect`]; the caller then calls
    /// [`Mem::sync_rect`].
    pub fn write_rect(
        &self,
        buf: &RectSide,
        host: &RectSide,
        host_base: usize,
        region: [usize; 3],
        data: &[u8],
    ) -> CLResult<()> {
        for (b, h) in buf.rows(region).zip(host.rows(region)) {
            let h = h.checked_sub(host_base).ok_or(CL_INVALID_VALUE)?;
            let src = data.get(h..h + region[0]).ok_or(CL_INVALID_VALUE)?;
            let addr = self.span(b, src.len())?;
            self.region.write(addr, src);
        }
        Ok(())
    }

    /// `clEnqueueCopyBufferRect` (overlap checked by the caller).
    pub fn copy_rect(src: &Mem, s: &RectSide, dst: &Mem, d: &RectSide, region: [usize; 3]) -> CLResult<()> {
        let mut row = vec![0u8; region[0]];
        for (so, dof) in s.rows(region).zip(d.rows(region)) {
            src.read(so, &mut row)?;
            let addr = dst.span(dof, row.len())?;
            dst.region.write(addr, &row);
        }
        dst.sync_rect(d, region)
    }

    /// Updates `CL_MEM_USE_HOST_PTR` memory over the bounding range of a rectangle just written.
    pub fn sync_rect(&self, side: &RectSide, region: [usize; 3]) -> CLResult<()> {
        match side.extent(region) {
            Some((lo, hi)) if self.host.is_some() => self.sync_host(lo, hi - lo),
            _ => Ok(()),
        }
    }

    /// Registers a mapping of `[off, off + len)` and returns it (its pointer is valid at once; its
    /// contents once [`Mem::complete_map`] has run). `CL_INVALID_OPERATION` if it would overlap a
    /// mapping of this buffer or of a buffer sharing its storage while either maps for writing.
    pub fn map(&self, off: usize, len: usize, flags: cl_map_flags) -> CLResult<Mapping> {
        self.span(off, len)?;
        let abs = self.offset + off;
        let mut maps = self.maps.lock();
        if maps.iter().any(|m| m.overlaps(abs, len) && (m.writes() || map_writes(flags))) {
            return Err(CL_INVALID_OPERATION);
        }
        let (target, staging) = match self.host {
            Some(h) => (h.sub(off, len).ok_or(CL_INVALID_VALUE)?, None),
            None => {
                let no_memory =
                    if self.flags & CL_MEM_ALLOC_HOST_PTR != 0 { CL_OUT_OF_HOST_MEMORY } else { CL_MAP_FAILURE };
                let s = Arc::new(Staging::new(len).ok_or(no_memory)?);
                (s.memory(), Some(s))
            }
        };
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let m = Mapping { id, owner: self.id, offset: off, abs_offset: abs, len, flags, target, _staging: staging };
        maps.push(m.clone());
        Ok(m)
    }

    /// The map command: brings the mapped bytes up to date (skipped for
    /// `CL_MAP_WRITE_INVALIDATE_REGION`).
    pub fn complete_map(&self, m: &Mapping) -> CLResult<()> {
        if m.flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 {
            return Ok(());
        }
        let addr = self.span(m.offset, m.len)?;
        device_to_host(&self.region, addr, &m.target, 0, m.len);
        Ok(())
    }

    /// Forgets a mapping that will never be handed out (a failed blocking map).
    pub fn discard_map(&self, m: &Mapping) {
        self.maps.lock().retain(|x| x.id != m.id);
    }

    /// Removes the mapping of this object whose pointer is `ptr` (`CL_INVALID_VALUE` if none):
    /// the map count drops at once; [`Mem::complete_unmap`] does the write-back.
    pub fn take_map(&self, ptr: usize) -> CLResult<Mapping> {
        let mut maps = self.maps.lock();
        let i = maps.iter().position(|m| m.owner == self.id && m.ptr() == ptr).ok_or(CL_INVALID_VALUE)?;
        Ok(maps.remove(i))
    }

    /// The unmap command: a region mapped for writing is copied back to the device.
    pub fn complete_unmap(&self, m: &Mapping) -> CLResult<()> {
        if !m.writes() {
            return Ok(());
        }
        let addr = self.span(m.offset, m.len)?;
        host_to_device(&m.target, &self.region, addr, m.len);
        Ok(())
    }

    /// `CL_MEM_MAP_COUNT`: active mappings of this object.
    pub fn map_count(&self) -> u32 {
        self.maps.lock().iter().filter(|m| m.owner == self.id).count() as u32
    }

    /// `clSetMemObjectDestructorCallback`.
    pub fn add_destructor(&self, f: Destructor) {
        self.destructors.lock().push(f);
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        let callbacks = std::mem::take(&mut *self.destructors.lock());
        for f in callbacks.into_iter().rev() {
            f();
        }
        self.maps.lock().retain(|m| m.owner != self.id);
        if let Some(i) = &self.image {
            platform::device().memory.free(i.descriptor.base());
        }
        if self.parent.is_none() && !self.svm {
            platform::device().memory.free(self.region.base());
            refund(self.size as u64);
        }
    }
}

/// Bytes of the device's memory objects alive now: at most `CL_DEVICE_GLOBAL_MEM_SIZE`.
static ALLOCATED: AtomicU64 = AtomicU64::new(0);

/// Counts `size` more bytes of memory objects, or `CL_MEM_OBJECT_ALLOCATION_FAILURE` if that
/// would exceed `CL_DEVICE_GLOBAL_MEM_SIZE`. The device heap (1.75 GiB of address space) is
/// larger: what remains holds the launches' own allocations (arguments, private memory, printf
/// buffers, program-scope variables), so an application that stays within the reported size
/// never finds the heap exhausted at a later launch.
pub(super) fn charge(size: u64) -> CLResult<()> {
    ALLOCATED
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            now.checked_add(size).filter(|&total| total <= super::device::GLOBAL_MEM_SIZE)
        })
        .map(|_| ())
        .map_err(|_| CL_MEM_OBJECT_ALLOCATION_FAILURE)
}

/// Undoes [`charge`].
pub(super) fn refund(size: u64) {
    ALLOCATED.fetch_sub(size, Ordering::AcqRel);
}

/// Copies `len` region bytes at `addr` to `host` at `host_off`.
fn device_to_host(r: &Buffer, addr: u32, host: &HostMemory, host_off: usize, len: usize) {
    let mut buf = vec![0u8; len.min(CHUNK)];
    let mut done = 0;
    while done < len {
        let n = (len - done).min(CHUNK);
        r.read(addr + done as u32, &mut buf[..n]);
        host.store(host_off + done, &buf[..n]);
        done += n;
    }
}

/// Copies the first `len` bytes of `host` to the region at `addr`.
fn host_to_device(host: &HostMemory, r: &Buffer, addr: u32, len: usize) {
    let mut buf = vec![0u8; len.min(CHUNK)];
    let mut done = 0;
    while done < len {
        let n = (len - done).min(CHUNK);
        host.load(done, &mut buf[..n]);
        r.write(addr + done as u32, &buf[..n]);
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cl::object::Obj;

    fn context() -> Ref<Context> {
        Obj::new(Context::new(vec![platform::device().clone()], Vec::new(), None))
    }

    fn buffer(size: usize) -> Ref<Mem> {
        Obj::new(Mem::buffer(context(), 0, size, None, None, Vec::new()).unwrap())
    }

    #[test]
    fn read_write_fill_copy() {
        let b = buffer(1000);
        let data: Vec<u8> = (0..=255).cycle().take(1000).collect();
        b.write(0, &data).unwrap();
        let mut out = vec![0u8; 997];
        b.read(3, &mut out).unwrap();
        assert_eq!(out, data[3..]);
        b.fill(8, 16, &[1, 2, 3, 4]).unwrap();
        let mut f = [0u8; 20];
        b.read(6, &mut f).unwrap();
        assert_eq!(f, [6, 7, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 24, 25]);
        let c = buffer(10);
        Mem::copy(&b, 7, &c, 1, 9).unwrap();
        let mut g = [0u8; 10];
        c.read(0, &mut g).unwrap();
        assert_eq!(g, [0, 7, 1, 2, 3, 4, 1, 2, 3, 4]);
        assert_eq!(b.read(999, &mut [0u8; 2]), Err(CL_INVALID_VALUE));
        assert_eq!(b.write(usize::MAX, &[1]), Err(CL_INVALID_VALUE));
    }

    #[test]
    fn sub_buffers_alias_and_keep_the_parent_alive() {
        let p = buffer(4096);
        let base = p.region.base();
        let gone = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let g = gone.clone();
        p.add_destructor(Box::new(move || g.store(true, Ordering::SeqCst)));
        let s = Obj::new(Mem::sub_buffer(&p, 0, 256, 128).unwrap());
        assert_eq!(s.device_address(), base + 256);
        s.write(0, &[9; 4]).unwrap();
        let mut out = [0u8; 6];
        p.read(255, &mut out).unwrap();
        assert_eq!(out, [0, 9, 9, 9, 9, 0]);
        assert!(Mem::sub_buffer(&p, 0, 4000, 128).is_err());
        drop(Obj::<Mem>::release(p.handle()).unwrap());
        drop(p);
        // The sub-buffer still holds the parent.
        assert!(!gone.load(Ordering::SeqCst));
        let mut again = [0u8; 2];
        s.read(2, &mut again).unwrap();
        assert_eq!(again, [9, 9]);
        drop(Obj::<Mem>::release(s.handle()).unwrap());
        drop(s);
        assert!(gone.load(Ordering::SeqCst));
    }

    #[test]
    fn destructors_run_in_reverse_order() {
        let b = buffer(16);
        let order = Arc::new(Mutex::new(Vec::new()));
        for i in 0..3 {
            let o = order.clone();
            b.add_destructor(Box::new(move || o.lock().push(i)));
        }
        drop(Obj::<Mem>::release(b.handle()).unwrap());
        assert!(order.lock().is_empty());
        drop(b);
        assert_eq!(*order.lock(), vec![2, 1, 0]);
    }

    #[test]
    fn use_host_ptr_mirrors_device_writes() {
        let mut host = vec![5u8; 64];
        // SAFETY: `host` outlives the buffer (dropped at the end of the test, after `b`).
        let h = unsafe { HostMemory::new(host.as_mut_ptr(), host.len()) };
        let init = host.clone();
        let b = Mem::buffer(context(), CL_MEM_USE_HOST_PTR, 64, Some(&init), Some(h), Vec::new()).unwrap();
        b.fill(0, 8, &[7, 7]).unwrap();
        b.write(60, &[1, 2, 3, 4]).unwrap();
        b.sync_host(60, 4).unwrap();
        drop(b);
        assert_eq!(&host[..9], &[7, 7, 7, 7, 7, 7, 7, 7, 5]);
        assert_eq!(&host[60..], &[1, 2, 3, 4]);
    }

    #[test]
    fn maps_stage_and_write_back() {
        let b = buffer(64);
        b.write(0, &[1; 64]).unwrap();
        let m = b.map(8, 8, CL_MAP_READ | CL_MAP_WRITE).unwrap();
        b.complete_map(&m).unwrap();
        assert_eq!(b.map_count(), 1);
        assert_eq!(b.map(12, 8, CL_MAP_READ).err(), Some(CL_INVALID_OPERATION));
        let r = b.map(16, 8, CL_MAP_READ).unwrap();
        let mut seen = [0u8; 8];
        m.target.load(0, &mut seen);
        assert_eq!(seen, [1; 8]);
        m.target.store(0, &[2; 8]);
        let taken = b.take_map(m.ptr()).unwrap();
        b.complete_unmap(&taken).unwrap();
        assert_eq!(b.take_map(m.ptr()).err(), Some(CL_INVALID_VALUE));
        b.discard_map(&r);
        assert_eq!(b.map_count(), 0);
        let mut out = [0u8; 10];
        b.read(7, &mut out).unwrap();
        assert_eq!(out, [1, 2, 2, 2, 2, 2, 2, 2, 2, 1]);
    }

    #[test]
    fn rect_extent_and_rows() {
        let s = RectSide { origin: [1, 2, 1], row_pitch: 10, slice_pitch: 100 };
        assert_eq!(s.extent([3, 2, 2]), Some((121, 121 + 100 + 10 + 3)));
        assert_eq!(s.rows([3, 2, 2]).collect::<Vec<_>>(), vec![121, 131, 221, 231]);
        assert_eq!(s.extent([0, 1, 1]), None);
        let huge = RectSide { origin: [0, 0, usize::MAX], row_pitch: 1, slice_pitch: 2 };
        assert_eq!(huge.extent([1, 1, 1]), None);
    }

    /// Brute force: byte sets of both rectangles intersect.
    fn overlap_slow(a_base: usize, a: &RectSide, b_base: usize, b: &RectSide, region: [usize; 3]) -> bool {
        let bytes = |base: usize, s: &RectSide| -> std::collections::HashSet<usize> {
            s.rows(region).flat_map(|r| (0..region[0]).map(move |x| base + r + x)).collect()
        };
        !bytes(a_base, a).is_disjoint(&bytes(b_base, b))
    }

    #[test]
    fn rect_overlap_matches_brute_force() {
        let mut seed = 0x1234_5678u64;
        let mut rnd = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..3000 {
            let region = [1 + rnd(6), 1 + rnd(4), 1 + rnd(3)];
            let side = |rnd: &mut dyn FnMut(usize) -> usize| {
                let rp = region[0] + rnd(5);
                let sp = match rnd(4) {
                    0 => rp * (1 + rnd(region[1])),
                    1 => rp * region[1] + rnd(3),
                    _ => rp * (region[1] + rnd(3)),
                };
                RectSide { origin: [rnd(8), rnd(4), rnd(3)], row_pitch: rp, slice_pitch: sp }
            };
            let a = side(&mut rnd);
            let b = if rnd(2) == 0 { RectSide { origin: [rnd(8), rnd(4), rnd(3)], ..a } } else { side(&mut rnd) };
            let (ab, bb) = (rnd(3) * 16, rnd(3) * 16);
            assert_eq!(
                rects_overlap(ab, &a, bb, &b, region),
                overlap_slow(ab, &a, bb, &b, region),
                "{a:?} @{ab} vs {b:?} @{bb}, region {region:?}"
            );
        }
    }
}
