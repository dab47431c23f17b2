//! Buffer transfer commands (OpenCL 3.0 §5.2.2 read, write, copy and their rectangular forms,
//! §5.2.3 fill, §5.2.4 map, §5.5.2 unmap, §5.5.4 migrate).
//!
//! Contracts:
//! * Every spec error clause is checked before the command is enqueued (each check quotes its
//!   clause); the command itself then cannot fail except through its wait list.
//! * Application pointers of read/write commands travel inside the command as plain addresses
//!   and become slices only while the command runs: the spec guarantees that memory stays valid
//!   until the command completes, and no Rust reference outlives the command.
//! * Blocking calls wait for their own event; if it failed (e.g. an event of the wait list
//!   failed, `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`) they return its status and hand out
//!   no event.
//! * A zero `size` is valid for read, write, copy and fill (OpenCL ≥ 2.1): the command completes
//!   without touching memory. A map of size 0 is `CL_INVALID_VALUE`, as the spec says.
//! * `CL_MEM_COPY_OVERLAP` is reported for any two buffers that share storage (same buffer, a
//!   buffer and its sub-buffer, or two sub-buffers of one buffer) whose regions overlap.
//! * `map_flags == 0` is accepted and treated as read + write.

use super::{check, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::command_buffer::Op;
use crate::core::context::Context;
use crate::core::event::Event;
use crate::core::memory::{rects_overlap, Mem, RectSide, BASE_ADDR_ALIGN};
use crate::core::queue::{Ordering, Queue, Work};
use libc::size_t;
use std::ffi::c_void;
use std::sync::Arc;

/// Looks up the queue and buffer of a command (an image is not a buffer).
fn queue_and_mem(queue: cl_command_queue, mem: cl_mem) -> CLResult<(Ref<Queue>, Ref<Mem>)> {
    let (q, m) = queue_and_object(queue, mem)?;
    check(m.image.is_none(), CL_INVALID_MEM_OBJECT)?;
    Ok((q, m))
}

/// Looks up the queue and memory object (buffer or image) of a command.
fn queue_and_object(queue: cl_command_queue, mem: cl_mem) -> CLResult<(Ref<Queue>, Ref<Mem>)> {
    // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
    let q = Obj::<Queue>::get(queue)?;
    // Spec: "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object."
    let m = Obj::<Mem>::get(mem)?;
    // Spec: "CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not
    // the same".
    check(Arc::ptr_eq(&q.context, &m.context), CL_INVALID_CONTEXT)?;
    Ok((q, m))
}

/// Whether `[offset, offset + size)` lies inside `m`.
fn in_bounds(m: &Mem, offset: usize, size: usize) -> bool {
    offset.checked_add(size).is_some_and(|end| end <= m.size)
}

/// Spec: "CL_MISALIGNED_SUB_BUFFER_OFFSET if buffer is a sub-buffer object and offset specified
/// when the sub-buffer object is created is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN value
/// for device associated with queue." (Sub-buffers are only created aligned, so this holds.)
fn check_sub_alignment(m: &Mem) -> CLResult<()> {
    check(m.offset % BASE_ADDR_ALIGN == 0, CL_MISALIGNED_SUB_BUFFER_OFFSET)
}

/// Spec: "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
/// with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS" (and the same for the rect form).
fn check_host_read(m: &Mem) -> CLResult<()> {
    check(m.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) == 0, CL_INVALID_OPERATION)
}

/// Spec: "CL_INVALID_OPERATION if clEnqueueWriteBuffer is called on buffer which has been
/// created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS" (and the same for the rect form).
fn check_host_write(m: &Mem) -> CLResult<()> {
    check(m.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) == 0, CL_INVALID_OPERATION)
}

/// Enqueues `work` as a normal command.
pub(super) fn enqueue(q: &Ref<Queue>, command: cl_command_type, deps: Vec<Ref<Event>>, work: Work) -> Ref<Event> {
    Queue::enqueue(q, command, deps, Ordering::Command, work)
}

/// Waits for a blocking command, then hands its event to the application.
pub(super) fn finish(e: Ref<Event>, blocking: cl_bool, event: *mut cl_event) -> CLResult<()> {
    if blocking != CL_FALSE {
        // Spec: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the read and write operations
        // are blocking and the execution status of any of the events in event_wait_list is a
        // negative integer value."
        let st = e.wait();
        if st < 0 {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            unsafe { ptr::return_event(std::ptr::null_mut(), &e) };
            return Err(st);
        }
    }
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { ptr::return_event(event, &e) };
    Ok(())
}

/// Reads a 3-element `size_t` array (origin or region).
pub(super) fn triple(p: *const size_t) -> CLResult<[usize; 3]> {
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let s = unsafe { ptr::slice(p, 3, CL_INVALID_VALUE) }?;
    Ok([s[0], s[1], s[2]])
}

/// One side of a rect command with its pitches defaulted and checked.
fn rect_side(origin: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> CLResult<RectSide> {
    // Spec: "CL_INVALID_VALUE if buffer_row_pitch is not 0 and is less than region[0]" (the same
    // for host_row_pitch, src_row_pitch and dst_row_pitch).
    check(row == 0 || row >= region[0], CL_INVALID_VALUE)?;
    let row_pitch = if row == 0 { region[0] } else { row };
    let min_slice = region[1].checked_mul(row_pitch).ok_or(CL_INVALID_VALUE)?;
    if slice != 0 {
        // Spec (3.0, read/write and copy rect alike): CL_INVALID_VALUE "if buffer_slice_pitch is
        // not equal to zero and is less than region[1] times buffer_row_pitch" and "if
        // buffer_slice_pitch is not equal to zero and is not a multiple of buffer_row_pitch"
        // (the same for host_, src_ and dst_slice_pitch). Older texts of the read/write clause
        // joined the two with "and"; the current one lists them apart.
        check(slice >= min_slice && slice % row_pitch == 0, CL_INVALID_VALUE)?;
    }
    let slice_pitch = if slice == 0 { min_slice } else { slice };
    Ok(RectSide { origin, row_pitch, slice_pitch })
}

/// The origins and region of a rect command: `CL_INVALID_VALUE` for NULL arrays or a 0 in region.
fn rect_arrays(
    a: *const size_t,
    b: *const size_t,
    region: *const size_t,
) -> CLResult<([usize; 3], [usize; 3], [usize; 3])> {
    let (a, b, region) = (triple(a)?, triple(b)?, triple(region)?);
    // Spec: "CL_INVALID_VALUE if any region array element is 0."
    check(!region.contains(&0), CL_INVALID_VALUE)?;
    Ok((a, b, region))
}

/// The buffer side of a rect command must lie inside `m`.
fn check_rect_bounds(m: &Mem, side: &RectSide, region: [usize; 3]) -> CLResult<()> {
    // Spec: "CL_INVALID_VALUE if the region being read or written specified by (buffer_origin,
    // region, buffer_row_pitch, buffer_slice_pitch) is out of bounds."
    let (_, end) = side.extent(region).ok_or(CL_INVALID_VALUE)?;
    check(end <= m.size, CL_INVALID_VALUE)
}

/// The host bytes `[lo, hi)` of a rect transfer as an address range: `(ptr + lo, hi - lo)`.
fn host_span(p: usize, side: &RectSide, region: [usize; 3]) -> CLResult<(usize, usize, usize)> {
    // Spec: "CL_INVALID_VALUE if ptr is a NULL value."
    check(p != 0, CL_INVALID_VALUE)?;
    let (lo, hi) = side.extent(region).ok_or(CL_INVALID_VALUE)?;
    check(p.checked_add(hi).is_some(), CL_INVALID_VALUE)?;
    Ok((p + lo, hi - lo, lo))
}

pub extern "C" fn clEnqueueReadBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    offset: size_t,
    size: size_t,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let (q, m) = queue_and_mem(command_queue, buffer)?;
        // Spec: "CL_INVALID_VALUE if the region being read or written specified by (offset,
        // size) is out of bounds or if ptr is a NULL value."
        check(in_bounds(&m, offset, size) && !ptr.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        check_sub_alignment(&m)?;
        check_host_read(&m)?;
        let addr = ptr as usize;
        let work: Work = Box::new(move || {
            // The spec keeps `ptr` valid (and untouched by the application) until this command
            // completes; the slice lives only while the command runs.
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            let out = unsafe { ptr::slice_mut(addr as *mut c_void, size, CL_INVALID_VALUE) }?;
            m.read(offset, out)
        });
        finish(enqueue(&q, CL_COMMAND_READ_BUFFER, deps, work), blocking_read, event)
    })
}

pub extern "C" fn clEnqueueWriteBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    offset: size_t,
    size: size_t,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let (q, m) = queue_and_mem(command_queue, buffer)?;
        // Spec: "CL_INVALID_VALUE if the region being read or written specified by (offset,
        // size) is out of bounds or if ptr is a NULL value."
        check(in_bounds(&m, offset, size) && !ptr.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        check_sub_alignment(&m)?;
        check_host_write(&m)?;
        let addr = ptr as usize;
        let work: Work = Box::new(move || {
            // The spec keeps `ptr` valid and unchanged until this command completes; the slice
            // lives only while the command copies from it (it may alias CL_MEM_USE_HOST_PTR
            // memory, which is updated after it is gone).
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            m.write(offset, unsafe { ptr::slice(addr as *const u8, size, CL_INVALID_VALUE) }?)?;
            m.sync_host(offset, size)
        });
        finish(enqueue(&q, CL_COMMAND_WRITE_BUFFER, deps, work), blocking_write, event)
    })
}

/// Looks up the queue and both buffers of a copy command.
/// The source and destination buffers of a copy in `context`.
fn copy_objects_in(context: &Ref<Context>, src: cl_mem, dst: cl_mem) -> CLResult<(Ref<Mem>, Ref<Mem>)> {
    // Spec: "CL_INVALID_MEM_OBJECT if src_buffer and dst_buffer are not valid buffer objects."
    let (s, d) = (Obj::<Mem>::get(src)?, Obj::<Mem>::get(dst)?);
    check(s.image.is_none() && d.image.is_none(), CL_INVALID_MEM_OBJECT)?;
    // Spec: "CL_INVALID_CONTEXT if the context associated with command_queue, src_buffer and
    // dst_buffer are not the same".
    check(Arc::ptr_eq(context, &s.context) && Arc::ptr_eq(context, &d.context), CL_INVALID_CONTEXT)?;
    Ok((s, d))
}

/// A buffer copy in `context`, its error clauses checked (`clEnqueueCopyBuffer`,
/// `clCommandCopyBufferKHR`).
pub(super) fn copy_buffer_op(
    context: &Ref<Context>,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: size_t,
    dst_offset: size_t,
    size: size_t,
) -> CLResult<Op> {
    let (src, dst) = copy_objects_in(context, src_buffer, dst_buffer)?;
    // Spec: "CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or
    // dst_offset + size require accessing elements outside the src_buffer and dst_buffer
    // buffer objects respectively."
    check(in_bounds(&src, src_offset, size) && in_bounds(&dst, dst_offset, size), CL_INVALID_VALUE)?;
    check_sub_alignment(&src)?;
    check_sub_alignment(&dst)?;
    // Spec: "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or
    // sub-buffer object and the source and destination regions overlap or if src_buffer and
    // dst_buffer are different sub-buffers of the same associated buffer object and they
    // overlap."
    let (a, b) = (src.offset + src_offset, dst.offset + dst_offset);
    let overlap = src.same_storage(&dst) && size > 0 && a < b + size && b < a + size;
    check(!overlap, CL_MEM_COPY_OVERLAP)?;
    Ok(Box::new(move || Mem::copy(&src, src_offset, &dst, dst_offset, size)))
}

pub extern "C" fn clEnqueueCopyBuffer(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: size_t,
    dst_offset: size_t,
    size: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        let op = copy_buffer_op(&q.context, src_buffer, dst_buffer, src_offset, dst_offset, size)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_COPY_BUFFER, deps, Box::new(op)), CL_FALSE, event)
    })
}

pub extern "C" fn clEnqueueMapBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    offset: size_t,
    size: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        let (q, m) = queue_and_mem(command_queue, buffer)?;
        // Spec: "CL_INVALID_VALUE if region being mapped given by (offset, size) is out of bounds
        // or if size is 0 or if values specified in map_flags are not valid."
        check(size != 0 && in_bounds(&m, offset, size), CL_INVALID_VALUE)?;
        check(valid_map_flags(map_flags), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        check_sub_alignment(&m)?;
        check_map_access(&m, map_flags)?;
        // Spec: "CL_INVALID_OPERATION if mapping would lead to overlapping regions being mapped
        // for writing" (in `Mem::map`, across the buffer and its sub-buffers), and
        // "CL_MAP_FAILURE if there is a failure to map the requested region into the host
        // address space".
        let mapping = m.map(offset, size, map_flags)?;
        let (m2, mp) = (m.clone(), mapping.clone());
        let e = enqueue(&q, CL_COMMAND_MAP_BUFFER, deps, Box::new(move || m2.complete_map(&mp)));
        if let Err(st) = finish(e, blocking_map, event) {
            m.discard_map(&mapping);
            return Err(st);
        }
        Ok(mapping.ptr() as *mut c_void)
    })
}

/// Map flags: known bits only, and `CL_MAP_WRITE_INVALIDATE_REGION` alone.
pub(crate) fn valid_map_flags(flags: cl_map_flags) -> bool {
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    // Memory Map Flags table: "CL_MAP_READ or CL_MAP_WRITE and CL_MAP_WRITE_INVALIDATE_REGION
    // are mutually exclusive."
    let invalidate = flags & CL_MAP_WRITE_INVALIDATE_REGION != 0;
    flags & !known == 0 && !(invalidate && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
}

/// The host-access clause of `clEnqueueMapBuffer`.
pub(super) fn check_map_access(m: &Mem, flags: cl_map_flags) -> CLResult<()> {
    // Spec: "CL_INVALID_OPERATION if buffer has been created with CL_MEM_HOST_WRITE_ONLY or
    // CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in map_flags or if buffer has been created
    // with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
    // CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags."
    let reads = flags & CL_MAP_READ != 0;
    let writes = flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
    let no_read = m.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) != 0;
    let no_write = m.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) != 0;
    let denied = (reads && no_read) || (writes && no_write);
    check(!denied, CL_INVALID_OPERATION)
}

pub extern "C" fn clEnqueueUnmapMemObject(
    command_queue: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let (q, m) = queue_and_object(command_queue, memobj)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        // Spec: "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
        // clEnqueueMapBuffer or clEnqueueMapImage for memobj." The map count drops now.
        let mapping = m.take_map(mapped_ptr as usize)?;
        let work: Work = Box::new(move || m.complete_unmap(&mapping));
        finish(enqueue(&q, CL_COMMAND_UNMAP_MEM_OBJECT, deps, work), CL_FALSE, event)
    })
}

/// The validated operands of a buffer ↔ host rectangle transfer (`clEnqueue{Read,Write}BufferRect`).
struct HostRect {
    q: Ref<Queue>,
    m: Ref<Mem>,
    b: RectSide,
    h: RectSide,
    region: [usize; 3],
    /// Host span: address, length, offset of the rectangle's origin within it.
    addr: usize,
    len: usize,
    base: usize,
    deps: Vec<Ref<Event>>,
}

impl HostRect {
    /// Every error clause the two rectangle transfers share, in the spec's order; the host
    /// access check (read or write) is the caller's.
    fn validate(
        queue: cl_command_queue,
        buffer: cl_mem,
        [buffer_origin, host_origin, region]: [*const size_t; 3],
        [buffer_row, buffer_slice, host_row, host_slice]: [usize; 4],
        host: usize,
        (num_events, wait_list): (cl_uint, *const cl_event),
    ) -> CLResult<HostRect> {
        let (q, m) = queue_and_mem(queue, buffer)?;
        let (bo, ho, region) = rect_arrays(buffer_origin, host_origin, region)?;
        let b = rect_side(bo, region, buffer_row, buffer_slice)?;
        let h = rect_side(ho, region, host_row, host_slice)?;
        check_rect_bounds(&m, &b, region)?;
        let (addr, len, base) = host_span(host, &h, region)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events, wait_list, &q.context) }?;
        check_sub_alignment(&m)?;
        Ok(HostRect { q, m, b, h, region, addr, len, base, deps })
    }
}

pub extern "C" fn clEnqueueReadBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    buffer_origin: *const size_t,
    host_origin: *const size_t,
    region: *const size_t,
    buffer_row_pitch: size_t,
    buffer_slice_pitch: size_t,
    host_row_pitch: size_t,
    host_slice_pitch: size_t,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let t = HostRect::validate(
            command_queue,
            buffer,
            [buffer_origin, host_origin, region],
            [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch],
            ptr as usize,
            (num_events_in_wait_list, event_wait_list),
        )?;
        let HostRect { q, m, b, h, region, addr, len, base, deps } = t;
        check_host_read(&m)?;
        let work: Work = Box::new(move || {
            // The spec keeps the host rectangle valid (and untouched by the application) until
            // this command completes; the slice covers exactly its bytes and lives only while
            // the command runs.
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            let out = unsafe { ptr::slice_mut(addr as *mut c_void, len, CL_INVALID_VALUE) }?;
            m.read_rect(&b, &h, base, region, out)
        });
        finish(enqueue(&q, CL_COMMAND_READ_BUFFER_RECT, deps, work), blocking_read, event)
    })
}

pub extern "C" fn clEnqueueWriteBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    buffer_origin: *const size_t,
    host_origin: *const size_t,
    region: *const size_t,
    buffer_row_pitch: size_t,
    buffer_slice_pitch: size_t,
    host_row_pitch: size_t,
    host_slice_pitch: size_t,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let t = HostRect::validate(
            command_queue,
            buffer,
            [buffer_origin, host_origin, region],
            [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch],
            ptr as usize,
            (num_events_in_wait_list, event_wait_list),
        )?;
        let HostRect { q, m, b, h, region, addr, len, base, deps } = t;
        check_host_write(&m)?;
        let work: Work = Box::new(move || {
            // The spec keeps the host rectangle valid and unchanged until this command
            // completes; the slice covers exactly its bytes and lives only while the command
            // copies from it (CL_MEM_USE_HOST_PTR memory is updated after it is gone).
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            m.write_rect(&b, &h, base, region, unsafe { ptr::slice(addr as *const u8, len, CL_INVALID_VALUE) }?)?;
            m.sync_rect(&b, region)
        });
        finish(enqueue(&q, CL_COMMAND_WRITE_BUFFER_RECT, deps, work), blocking_write, event)
    })
}

/// A rectangular buffer copy in `context`, its error clauses checked
/// (`clEnqueueCopyBufferRect`, `clCommandCopyBufferRectKHR`).
#[allow(clippy::too_many_arguments)]
pub(super) fn copy_buffer_rect_op(
    context: &Ref<Context>,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    src_row_pitch: size_t,
    src_slice_pitch: size_t,
    dst_row_pitch: size_t,
    dst_slice_pitch: size_t,
) -> CLResult<Op> {
    let (src, dst) = copy_objects_in(context, src_buffer, dst_buffer)?;
    let (so, dso, region) = rect_arrays(src_origin, dst_origin, region)?;
    let s = rect_side(so, region, src_row_pitch, src_slice_pitch)?;
    let d = rect_side(dso, region, dst_row_pitch, dst_slice_pitch)?;
    // Spec: "CL_INVALID_VALUE if (src_origin, region, src_row_pitch, src_slice_pitch) or
    // (dst_origin, region, dst_row_pitch, dst_slice_pitch) require accessing elements outside
    // the src_buffer and dst_buffer buffer objects respectively."
    check_rect_bounds(&src, &s, region)?;
    check_rect_bounds(&dst, &d, region)?;
    // Spec: "CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and
    // src_slice_pitch is not equal to dst_slice_pitch and src_row_pitch is not equal to
    // dst_row_pitch."
    let same = Arc::ptr_eq(&src, &dst);
    check(!(same && s.slice_pitch != d.slice_pitch && s.row_pitch != d.row_pitch), CL_INVALID_VALUE)?;
    // Spec: "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or
    // sub-buffer object and the source and destination regions overlap or if src_buffer and
    // dst_buffer are different sub-buffers of the same associated buffer object and they
    // overlap." (Exact row-by-row test; see `rects_overlap`.)
    let overlap = src.same_storage(&dst) && rects_overlap(src.offset, &s, dst.offset, &d, region);
    check(!overlap, CL_MEM_COPY_OVERLAP)?;
    check_sub_alignment(&src)?;
    check_sub_alignment(&dst)?;
    Ok(Box::new(move || Mem::copy_rect(&src, &s, &dst, &d, region)))
}

pub extern "C" fn clEnqueueCopyBufferRect(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    src_row_pitch: size_t,
    src_slice_pitch: size_t,
    dst_row_pitch: size_t,
    dst_slice_pitch: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        let op = copy_buffer_rect_op(
            &q.context,
            src_buffer,
            dst_buffer,
            src_origin,
            dst_origin,
            region,
            src_row_pitch,
            src_slice_pitch,
            dst_row_pitch,
            dst_slice_pitch,
        )?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_COPY_BUFFER_RECT, deps, Box::new(op)), CL_FALSE, event)
    })
}

/// A buffer fill in `context`, its error clauses checked (`clEnqueueFillBuffer`,
/// `clCommandFillBufferKHR`); the pattern is copied.
pub(super) fn fill_buffer_op(
    context: &Ref<Context>,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: size_t,
    offset: size_t,
    size: size_t,
) -> CLResult<Op> {
    // Spec: "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object."
    let m = Obj::<Mem>::get(buffer)?;
    check(m.image.is_none(), CL_INVALID_MEM_OBJECT)?;
    // Spec: "CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not
    // the same".
    check(Arc::ptr_eq(context, &m.context), CL_INVALID_CONTEXT)?;
    // Spec: "CL_INVALID_VALUE if offset or offset + size require accessing elements outside
    // the buffer buffer object respectively."
    check(in_bounds(&m, offset, size), CL_INVALID_VALUE)?;
    // Spec: "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size
    // is not one of { 1, 2, 4, 8, 16, 32, 64, 128 }."
    check(!pattern.is_null() && pattern_size.is_power_of_two() && pattern_size <= 128, CL_INVALID_VALUE)?;
    // Spec: "CL_INVALID_VALUE if offset and size are not a multiple of pattern_size."
    check(offset % pattern_size == 0 && size % pattern_size == 0, CL_INVALID_VALUE)?;
    check_sub_alignment(&m)?;
    // "The memory associated with pattern can be reused or freed after the function returns."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let bytes = unsafe { ptr::slice(pattern as *const u8, pattern_size, CL_INVALID_VALUE) }?.to_vec();
    Ok(Box::new(move || m.fill(offset, size, &bytes)))
}

pub extern "C" fn clEnqueueFillBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: size_t,
    offset: size_t,
    size: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        let op = fill_buffer_op(&q.context, buffer, pattern, pattern_size, offset, size)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_FILL_BUFFER, deps, Box::new(op)), CL_FALSE, event)
    })
}

pub extern "C" fn clEnqueueMigrateMemObjects(
    command_queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        // Spec: "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL."
        check(num_mem_objects != 0 && !mem_objects.is_null(), CL_INVALID_VALUE)?;
        // Spec: "CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid
        // memory object."
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let mems = unsafe { ptr::handles::<Mem>(mem_objects, num_mem_objects as usize, CL_INVALID_VALUE) }?;
        // Spec: "CL_INVALID_CONTEXT if the context associated with command_queue and memory
        // objects in mem_objects are not the same".
        check(mems.iter().all(|m| Arc::ptr_eq(&m.context, &q.context)), CL_INVALID_CONTEXT)?;
        // Spec: "CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the
        // table above."
        let known = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        check(flags & !known == 0, CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        // One device whose memory the host reads directly: nothing moves. The command keeps the
        // objects alive until it completes, like any command using them.
        let work: Work = Box::new(move || {
            drop(mems);
            Ok(())
        });
        finish(enqueue(&q, CL_COMMAND_MIGRATE_MEM_OBJECTS, deps, work), CL_FALSE, event)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_flag_rules() {
        assert!(valid_map_flags(0));
        assert!(valid_map_flags(CL_MAP_READ | CL_MAP_WRITE));
        assert!(valid_map_flags(CL_MAP_WRITE_INVALIDATE_REGION));
        assert!(!valid_map_flags(CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ));
        assert!(!valid_map_flags(1 << 5));
    }

    #[test]
    fn rect_pitch_rules() {
        let s = rect_side([1, 2, 3], [4, 5, 6], 0, 0).unwrap();
        assert_eq!((s.row_pitch, s.slice_pitch), (4, 20));
        assert_eq!(rect_side([0; 3], [4, 5, 6], 3, 0), Err(CL_INVALID_VALUE));
        assert!(rect_side([0; 3], [4, 5, 6], 8, 40).is_ok());
        assert!(rect_side([0; 3], [4, 5, 6], 8, 48).is_ok());
        // 13 < 5 * 8 and not a multiple of 8; 16 < 40; 17 < 20 with rows of 4 (issue 37's case).
        assert_eq!(rect_side([0; 3], [4, 5, 6], 8, 13), Err(CL_INVALID_VALUE));
        assert_eq!(rect_side([0; 3], [4, 5, 6], 8, 16), Err(CL_INVALID_VALUE));
        assert_eq!(rect_side([0; 3], [4, 5, 6], 0, 17), Err(CL_INVALID_VALUE));
        // 41 >= 40 but not a multiple of 8.
        assert_eq!(rect_side([0; 3], [4, 5, 6], 8, 41), Err(CL_INVALID_VALUE));
        assert_eq!(rect_side([0; 3], [4, usize::MAX, 1], 8, 0), Err(CL_INVALID_VALUE));
    }
}
