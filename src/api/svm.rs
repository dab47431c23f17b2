//! Shared virtual memory entry points (OpenCL 3.0 §5.6.1–§5.6.2): `clSVMAlloc`/`clSVMFree` and
//! the SVM commands. The device offers coarse- and fine-grained buffer SVM
//! (`CL_DEVICE_SVM_CAPABILITIES`), no SVM atomics and no fine-grained system SVM.
//!
//! Contracts:
//! * An SVM allocation's host pointer is its device address ([`crate::core::svm`]): the
//!   commands work on plain host memory (SVM or not, as the spec allows for copies and fills),
//!   so map, unmap and migrate are ordering points that move nothing.
//! * Application pointers travel inside commands as plain addresses and are dereferenced only
//!   while the command runs (the spec keeps them valid until it completes). A range that starts
//!   inside an SVM allocation of the context must end inside it (`CL_INVALID_VALUE`); a range
//!   outside every allocation is the application's host memory.
//! * Each spec error clause is checked before the command is enqueued, in the spec's order.

use super::transfer::{enqueue, finish, valid_map_flags};
use super::{check, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::command_buffer::Op;
use crate::core::context::Context;
use crate::core::queue::Queue;
use crate::core::svm;
use libc::size_t;
use std::ffi::c_void;

/// `CL_DEVICE_SVM_CAPABILITIES`.
pub(crate) const CAPABILITIES: cl_device_svm_capabilities =
    (CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER) as cl_device_svm_capabilities;

pub extern "C" fn clSVMAlloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: size_t,
    alignment: cl_uint,
) -> *mut c_void {
    // No error code to report: NULL on failure.
    object(std::ptr::null_mut(), || {
        let ctx = Obj::<Context>::get(context)?;
        // "If values specified in flags are not valid": at most one access flag, fine grain
        // optional, atomics (which need fine grain) not supported.
        let access = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) as cl_svm_mem_flags;
        check(access.count_ones() <= 1, CL_INVALID_VALUE)?;
        let known = (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER)
            as cl_svm_mem_flags;
        check(flags & !known == 0, CL_INVALID_VALUE)?;
        // "size is 0 or > CL_DEVICE_MAX_MEM_ALLOC_SIZE value for any device in context."
        check(size != 0 && size as u64 <= crate::core::device::MAX_MEM_ALLOC_SIZE, CL_INVALID_VALUE)?;
        // "alignment is not a power of two or the OpenCL implementation cannot support the
        // specified alignment for at least one device in context."
        check(
            alignment == 0 || (alignment.is_power_of_two() && alignment as usize <= svm::MAX_ALIGNMENT),
            CL_INVALID_VALUE,
        )?;
        Ok(ctx.svm.alloc(size)? as *mut c_void)
    })
}

pub extern "C" fn clSVMFree(context: cl_context, svm_pointer: *mut c_void) {
    let _ = status(|| {
        let ctx = Obj::<Context>::get(context)?;
        // "If a NULL pointer is passed in svm_pointer, no action occurs."
        if !svm_pointer.is_null() {
            ctx.svm.free(svm_pointer as usize);
        }
        Ok(())
    });
}

/// `[p, p + len)` is host memory or lies inside one SVM allocation of `ctx`.
fn svm_range(ctx: &Context, p: usize, len: usize) -> CLResult<()> {
    let end = p.checked_add(len).ok_or(CL_INVALID_VALUE)?;
    match ctx.svm.find(p) {
        Some((base, size)) => check(end <= base + size, CL_INVALID_VALUE),
        None => Ok(()),
    }
}

/// A plain address the command dereferences later.
type Addr = usize;

type SvmFreeCallback = unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void);

pub extern "C" fn clEnqueueSVMFree(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<SvmFreeCallback>,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        // "CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is non-NULL, or if
        // svm_pointers is NULL and num_svm_pointers is not 0."
        check((num_svm_pointers == 0) == svm_pointers.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let list: Vec<Addr> = unsafe { ptr::slice(svm_pointers, num_svm_pointers as usize, CL_INVALID_VALUE) }?
            .iter()
            .map(|&p| p as Addr)
            .collect();
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        let (ctx, handle, data) = (q.context.clone(), command_queue as Addr, user_data as Addr);
        let work = Box::new(move || {
            match pfn_free_func {
                Some(f) => {
                    let mut ptrs: Vec<*mut c_void> = list.iter().map(|&p| p as *mut c_void).collect();
                    // SAFETY: the application's callback with the arguments the spec gives it;
                    // `ptrs` lives for the call.
                    unsafe {
                        f(handle as cl_command_queue, ptrs.len() as cl_uint, ptrs.as_mut_ptr(), data as *mut c_void)
                    };
                }
                None => {
                    for &p in &list {
                        ctx.svm.free(p);
                    }
                }
            }
            Ok(())
        });
        finish(enqueue(&q, CL_COMMAND_SVM_FREE, deps, work), CL_FALSE, event)
    })
}

/// An SVM copy in `ctx`, its error clauses checked (`clEnqueueSVMMemcpy`,
/// `clCommandSVMMemcpyKHR`).
pub(super) fn memcpy_op(ctx: &Context, dst_ptr: *mut c_void, src_ptr: *const c_void, size: size_t) -> CLResult<Op> {
    // "CL_INVALID_VALUE if dst_ptr or src_ptr is NULL."
    check(!dst_ptr.is_null() && !src_ptr.is_null(), CL_INVALID_VALUE)?;
    let (dst, src) = (dst_ptr as Addr, src_ptr as Addr);
    svm_range(ctx, dst, size)?;
    svm_range(ctx, src, size)?;
    // "CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and size result in an
    // overlapping copy."
    check(size == 0 || dst + size <= src || src + size <= dst, CL_MEM_COPY_OVERLAP)?;
    Ok(Box::new(move || {
        // SAFETY: the spec keeps both ranges valid until the command completes; they do not
        // overlap (checked above).
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, size) };
        Ok(())
    }))
}

pub extern "C" fn clEnqueueSVMMemcpy(
    command_queue: cl_command_queue,
    blocking_copy: cl_bool,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        let op = memcpy_op(&q.context, dst_ptr, src_ptr, size)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_SVM_MEMCPY, deps, Box::new(op)), blocking_copy, event)
    })
}

/// An SVM fill in `ctx`, its error clauses checked (`clEnqueueSVMMemFill`,
/// `clCommandSVMMemFillKHR`); the pattern is copied.
pub(super) fn memfill_op(
    ctx: &Context,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: size_t,
    size: size_t,
) -> CLResult<Op> {
    // "CL_INVALID_VALUE if svm_ptr is NULL", "if pattern is NULL or if pattern_size is 0 or if
    // pattern_size is not one of {1, 2, 4, 8, 16, 32, 64, 128}", "if svm_ptr is not aligned to
    // pattern_size bytes", "if size is not a multiple of pattern_size".
    check(!svm_ptr.is_null(), CL_INVALID_VALUE)?;
    check(!pattern.is_null() && pattern_size.is_power_of_two() && pattern_size <= 128, CL_INVALID_VALUE)?;
    let dst = svm_ptr as Addr;
    check(dst % pattern_size == 0 && size % pattern_size == 0, CL_INVALID_VALUE)?;
    svm_range(ctx, dst, size)?;
    // "The memory associated with pattern can be reused or freed after the function returns."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let bytes = unsafe { ptr::slice(pattern as *const u8, pattern_size, CL_INVALID_VALUE) }?.to_vec();
    Ok(Box::new(move || {
        for at in (dst..dst + size).step_by(bytes.len()) {
            // SAFETY: the spec keeps `[dst, dst + size)` valid until the command completes;
            // each copy stays inside it (size is a multiple of the pattern's).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), at as *mut u8, bytes.len()) };
        }
        Ok(())
    }))
}

pub extern "C" fn clEnqueueSVMMemFill(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: size_t,
    size: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        let op = memfill_op(&q.context, svm_ptr, pattern, pattern_size, size)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_SVM_MEMFILL, deps, Box::new(op)), CL_FALSE, event)
    })
}

/// An ordering-only command (map, unmap, migrate): the memory is already where both sides see it.
fn ordering_point(
    q: &Ref<Queue>,
    command: cl_command_type,
    blocking: cl_bool,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> CLResult<()> {
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
    finish(enqueue(q, command, deps, Box::new(|| Ok(()))), blocking, event)
}

pub extern "C" fn clEnqueueSVMMap(
    command_queue: cl_command_queue,
    blocking_map: cl_bool,
    flags: cl_map_flags,
    svm_ptr: *mut c_void,
    size: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        // "CL_INVALID_VALUE if svm_ptr is NULL", "if size is 0 or if values specified in
        // map_flags are not valid."
        check(!svm_ptr.is_null() && size != 0 && valid_map_flags(flags), CL_INVALID_VALUE)?;
        svm_range(&q.context, svm_ptr as Addr, size)?;
        ordering_point(&q, CL_COMMAND_SVM_MAP, blocking_map, num_events_in_wait_list, event_wait_list, event)
    })
}

pub extern "C" fn clEnqueueSVMUnmap(
    command_queue: cl_command_queue,
    svm_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        // "CL_INVALID_VALUE if svm_ptr is NULL."
        check(!svm_ptr.is_null(), CL_INVALID_VALUE)?;
        ordering_point(&q, CL_COMMAND_SVM_UNMAP, CL_FALSE, num_events_in_wait_list, event_wait_list, event)
    })
}

pub extern "C" fn clEnqueueSVMMigrateMem(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *const c_void,
    sizes: *const size_t,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        // "CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is NULL", "if flags is
        // not 0 or is not any of the values described", "if any pointer in svm_pointers is
        // NULL".
        check(num_svm_pointers != 0 && !svm_pointers.is_null(), CL_INVALID_VALUE)?;
        let known = (CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) as cl_mem_migration_flags;
        check(flags & !known == 0, CL_INVALID_VALUE)?;
        let n = num_svm_pointers as usize;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let list = unsafe { ptr::slice(svm_pointers as *const *const c_void, n, CL_INVALID_VALUE) }?;
        check(list.iter().all(|p| !p.is_null()), CL_INVALID_VALUE)?;
        // "sizes ... can be NULL"; a size of 0 means the whole allocation; "CL_INVALID_VALUE if
        // ... the region specified by the pointer and size is not contained in an allocation".
        if !sizes.is_null() {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            let sz = unsafe { ptr::slice(sizes, n, CL_INVALID_VALUE) }?;
            for (&p, &len) in list.iter().zip(sz) {
                svm_range(&q.context, p as Addr, len)?;
            }
        }
        ordering_point(&q, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE, num_events_in_wait_list, event_wait_list, event)
    })
}
