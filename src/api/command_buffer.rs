//! `cl_khr_command_buffer` 0.9.8 entry points (reached through
//! `clGetExtensionFunctionAddressForPlatform`): create, record, finalize, enqueue, query.
//!
//! Contracts:
//! * One queue per command buffer (no `cl_khr_command_buffer_multi_device`); the recording
//!   functions take `command_queue` NULL (the buffer's queue), as the base extension requires.
//! * Each recording function checks the same clauses as its `clEnqueue*` counterpart (the
//!   shared `*_op` functions of `transfer` and `launch::checked_launch`), then the sync-point
//!   wait list and the buffer's state; mutable handles and command properties are refused
//!   (`cl_khr_command_buffer_mutable_dispatch` is not offered).
//! * Enqueueing runs the recorded commands in order as one command on the queue
//!   ([`crate::core::command_buffer`]); a queue other than the buffer's may be given when it
//!   has the same device and context ("compatible": in-order and out-of-order queues, with
//!   or without profiling, substitute for each other).
//! * SVM copies and fills are recorded too (`clCommandSVMMemcpyKHR`/`MemFillKHR`: the device
//!   has buffer SVM, `crate::api::svm`).

use super::image::{copy_buffer_to_image_op, copy_image_op, copy_image_to_buffer_op, fill_image_op};
use super::launch::checked_launch;
use super::transfer::{copy_buffer_op, copy_buffer_rect_op, fill_buffer_op};
use super::{check, info, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::command_buffer::{CommandBuffer, Op};
use crate::core::launch::Prepared;
use crate::core::queue::Queue;
use libc::size_t;
use std::ffi::c_void;
use std::sync::Arc;

/// Queue properties a command buffer's queue may have
/// (`CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR`).
pub(crate) const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties =
    (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) as cl_command_queue_properties;

/// `CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR`: recorded kernels may call `printf`.
pub(crate) const CAPABILITIES: cl_device_command_buffer_capabilities_khr =
    CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR;

/// The entry points by name, for `clGetExtensionFunctionAddress`.
pub(crate) fn function(name: &str) -> Option<*mut c_void> {
    Some(match name {
        "clCreateCommandBufferKHR" => clCreateCommandBufferKHR as *mut c_void,
        "clFinalizeCommandBufferKHR" => clFinalizeCommandBufferKHR as *mut c_void,
        "clRetainCommandBufferKHR" => clRetainCommandBufferKHR as *mut c_void,
        "clReleaseCommandBufferKHR" => clReleaseCommandBufferKHR as *mut c_void,
        "clEnqueueCommandBufferKHR" => clEnqueueCommandBufferKHR as *mut c_void,
        "clCommandBarrierWithWaitListKHR" => clCommandBarrierWithWaitListKHR as *mut c_void,
        "clCommandCopyBufferKHR" => clCommandCopyBufferKHR as *mut c_void,
        "clCommandCopyBufferRectKHR" => clCommandCopyBufferRectKHR as *mut c_void,
        "clCommandFillBufferKHR" => clCommandFillBufferKHR as *mut c_void,
        "clCommandCopyImageKHR" => clCommandCopyImageKHR as *mut c_void,
        "clCommandCopyImageToBufferKHR" => clCommandCopyImageToBufferKHR as *mut c_void,
        "clCommandCopyBufferToImageKHR" => clCommandCopyBufferToImageKHR as *mut c_void,
        "clCommandFillImageKHR" => clCommandFillImageKHR as *mut c_void,
        "clCommandSVMMemcpyKHR" => clCommandSVMMemcpyKHR as *mut c_void,
        "clCommandSVMMemFillKHR" => clCommandSVMMemFillKHR as *mut c_void,
        "clCommandNDRangeKernelKHR" => clCommandNDRangeKernelKHR as *mut c_void,
        "clGetCommandBufferInfoKHR" => clGetCommandBufferInfoKHR as *mut c_void,
        _ => return None,
    })
}

/// "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if the properties of command_queue do not contain the
/// minimum properties specified by CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR" or
/// include one not in `..._SUPPORTED_QUEUE_PROPERTIES_KHR` (none is required).
fn check_queue_properties(q: &Queue) -> CLResult<()> {
    check(q.properties & !SUPPORTED_QUEUE_PROPERTIES == 0, CL_INCOMPATIBLE_COMMAND_QUEUE_KHR)
}

pub extern "C" fn clCreateCommandBufferKHR(
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    properties: *const cl_command_buffer_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    object(errcode_ret, || {
        // "CL_INVALID_VALUE if queues is NULL, or if num_queues is not one" (without the
        // multi-device extension).
        check(!queues.is_null() && num_queues == 1, CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let q = unsafe { ptr::handles::<Queue>(queues, 1, CL_INVALID_VALUE) }?.remove(0);
        let list = super::context::property_pairs(properties)?;
        // "CL_INVALID_VALUE if values specified in properties are not valid, or if the same
        // property name is specified more than once": the one property is
        // CL_COMMAND_BUFFER_FLAGS_KHR, and the base extension defines no flag.
        let mut seen = Vec::new();
        for pair in list.chunks_exact(2) {
            check(!seen.contains(&pair[0]), CL_INVALID_VALUE)?;
            seen.push(pair[0]);
            check(pair[0] == CL_COMMAND_BUFFER_FLAGS_KHR && pair[1] == 0, CL_INVALID_VALUE)?;
        }
        check_queue_properties(&q)?;
        Ok(Obj::new(CommandBuffer::new(q, list)).handle())
    })
}

pub extern "C" fn clFinalizeCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    status(|| {
        let cb = Obj::<CommandBuffer>::get(command_buffer)?;
        // "CL_INVALID_OPERATION if command_buffer has already been finalized."
        cb.finalize().map_err(cl_int::from)
    })
}

pub extern "C" fn clRetainCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    status(|| Obj::<CommandBuffer>::retain(command_buffer))
}

pub extern "C" fn clReleaseCommandBufferKHR(command_buffer: cl_command_buffer_khr) -> cl_int {
    status(|| Obj::<CommandBuffer>::release(command_buffer).map(|_| ()))
}

pub extern "C" fn clEnqueueCommandBufferKHR(
    num_queues: cl_uint,
    queues: *mut cl_command_queue,
    command_buffer: cl_command_buffer_khr,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let cb = Obj::<CommandBuffer>::get(command_buffer)?;
        // "CL_INVALID_OPERATION if command_buffer has not been finalized."
        check(cb.is_finalized(), CL_INVALID_OPERATION)?;
        // "CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or queues is not NULL and
        // num_queues is 0, or num_queues is > 0 and not the number of queues of the buffer."
        check(queues.is_null() == (num_queues == 0), CL_INVALID_VALUE)?;
        check(num_queues <= 1, CL_INVALID_VALUE)?;
        let q = if queues.is_null() {
            cb.queue.clone()
        } else {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            let q = unsafe { ptr::handles::<Queue>(queues, 1, CL_INVALID_VALUE) }?.remove(0);
            // "CL_INVALID_CONTEXT if any element of queues does not have the same context as
            // the command-queue set on command_buffer creation at the same list index."
            check(Arc::ptr_eq(&q.context, cb.context()), CL_INVALID_CONTEXT)?;
            // "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if any element of queues is not compatible
            // with the command-queue set on command_buffer creation at the same list index":
            // the same device, and properties a command buffer's queue may have (in-order and
            // out-of-order, with or without profiling, may substitute for each other).
            check(Arc::ptr_eq(&q.device, &cb.queue.device), CL_INCOMPATIBLE_COMMAND_QUEUE_KHR)?;
            check_queue_properties(&q)?;
            q
        };
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        let e = cb.enqueue(&q, deps).map_err(cl_int::from)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::return_event(event, &e) };
        Ok(())
    })
}

/// The checks every recording function makes before its own: the command buffer, the queue
/// argument (must be NULL), command properties (none is defined) and mutable handles (not
/// offered).
fn recording(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> CLResult<Ref<CommandBuffer>> {
    // "CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid command-buffer."
    let cb = Obj::<CommandBuffer>::get(command_buffer)?;
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not NULL" (single-queue buffers).
    check(command_queue.is_null(), CL_INVALID_COMMAND_QUEUE)?;
    // "CL_INVALID_VALUE if values specified in properties are not valid": no command property
    // is defined without the mutable-dispatch extension, so only an empty list is.
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    check(properties.is_null() || unsafe { *properties } == 0, CL_INVALID_VALUE)?;
    // "CL_INVALID_VALUE if mutable_handle is not NULL" (no mutable-dispatch extension).
    check(mutable_handle.is_null(), CL_INVALID_VALUE)?;
    Ok(cb)
}

/// Records `op` after the sync points of the wait list, returning the new sync point.
/// "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if sync_point_wait_list is NULL and
/// num_sync_points_in_wait_list is > 0, or sync_point_wait_list is not NULL and
/// num_sync_points_in_wait_list is 0, or if synchronization-point objects in
/// sync_point_wait_list are not valid synchronization-points." "CL_INVALID_OPERATION if
/// command_buffer has been finalized."
fn record(
    cb: &CommandBuffer,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    op: Op,
) -> CLResult<()> {
    let n = num_sync_points_in_wait_list as usize;
    check(sync_point_wait_list.is_null() == (n == 0), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR)?;
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let wait = unsafe { ptr::slice(sync_point_wait_list, n, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR) }?;
    let p = cb.record(wait, op).map_err(cl_int::from)?;
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { ptr::write_opt(sync_point, p) };
    Ok(())
}

/// The state check comes before the command's own: a finalized buffer takes no command.
fn still_recording(cb: &CommandBuffer) -> CLResult<()> {
    check(!cb.is_finalized(), CL_INVALID_OPERATION)
}

/// The shape of every recording function: [`recording`]'s checks, the command's own (`op`,
/// which validates and captures it), the buffer's state, then [`record`].
#[allow(clippy::too_many_arguments)]
fn command(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    mutable_handle: *mut cl_mutable_command_khr,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    op: impl FnOnce(&CommandBuffer) -> CLResult<Op>,
) -> cl_int {
    status(|| {
        let cb = recording(command_buffer, command_queue, properties, mutable_handle)?;
        let op = op(&cb)?;
        still_recording(&cb)?;
        record(&cb, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, op)
    })
}

pub extern "C" fn clCommandBarrierWithWaitListKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    // Commands run in recording order: a barrier has nothing left to order.
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |_| Ok(Box::new(|| Ok(()))),
    )
}

pub extern "C" fn clCommandCopyBufferKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: size_t,
    dst_offset: size_t,
    size: size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| copy_buffer_op(cb.context(), src_buffer, dst_buffer, src_offset, dst_offset, size),
    )
}

pub extern "C" fn clCommandCopyBufferRectKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    src_row_pitch: size_t,
    src_slice_pitch: size_t,
    dst_row_pitch: size_t,
    dst_slice_pitch: size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| {
            copy_buffer_rect_op(
                cb.context(),
                src_buffer,
                dst_buffer,
                src_origin,
                dst_origin,
                region,
                src_row_pitch,
                src_slice_pitch,
                dst_row_pitch,
                dst_slice_pitch,
            )
        },
    )
}

pub extern "C" fn clCommandFillBufferKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: size_t,
    offset: size_t,
    size: size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| fill_buffer_op(cb.context(), buffer, pattern, pattern_size, offset, size),
    )
}

pub extern "C" fn clCommandCopyImageKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| copy_image_op(cb.context(), src_image, dst_image, src_origin, dst_origin, region),
    )
}

pub extern "C" fn clCommandCopyImageToBufferKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    region: *const size_t,
    dst_offset: size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| copy_image_to_buffer_op(cb.context(), src_image, dst_buffer, src_origin, region, dst_offset),
    )
}

pub extern "C" fn clCommandCopyBufferToImageKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| copy_buffer_to_image_op(cb.context(), src_buffer, dst_image, src_offset, dst_origin, region),
    )
}

pub extern "C" fn clCommandFillImageKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const size_t,
    region: *const size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| fill_image_op(cb.context(), image, fill_color, origin, region),
    )
}

pub extern "C" fn clCommandSVMMemcpyKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    dst_ptr: *mut c_void,
    src_ptr: *const c_void,
    size: size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| super::svm::memcpy_op(cb.context(), dst_ptr, src_ptr, size),
    )
}

pub extern "C" fn clCommandSVMMemFillKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: size_t,
    size: size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| super::svm::memfill_op(cb.context(), svm_ptr, pattern, pattern_size, size),
    )
}

pub extern "C" fn clCommandNDRangeKernelKHR(
    command_buffer: cl_command_buffer_khr,
    command_queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const size_t,
    global_work_size: *const size_t,
    local_work_size: *const size_t,
    num_sync_points_in_wait_list: cl_uint,
    sync_point_wait_list: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    command(
        command_buffer,
        command_queue,
        properties,
        mutable_handle,
        num_sync_points_in_wait_list,
        sync_point_wait_list,
        sync_point,
        |cb| {
            let checked =
                checked_launch(&cb.queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size)?;
            Ok(match checked {
                Some((k, range, args, packed)) => {
                    let launch = Prepared::new(&cb.queue, k, range, args, packed);
                    Box::new(move || launch.run().map(|_| ()))
                }
                None => Box::new(|| Ok(())),
            })
        },
    )
}

pub extern "C" fn clGetCommandBufferInfoKHR(
    command_buffer: cl_command_buffer_khr,
    param_name: cl_command_buffer_info_khr,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let cb = Obj::<CommandBuffer>::get(command_buffer)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_COMMAND_BUFFER_QUEUES_KHR => info::write(&info::Ptrs(vec![cb.queue.handle()]), s, v, r),
            CL_COMMAND_BUFFER_NUM_QUEUES_KHR => info::write(&(1 as cl_uint), s, v, r),
            CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => info::write(&cb.api_ref_count(), s, v, r),
            CL_COMMAND_BUFFER_STATE_KHR => {
                let state = if cb.is_finalized() {
                    CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
                } else {
                    CL_COMMAND_BUFFER_STATE_RECORDING_KHR
                };
                info::write(&state, s, v, r)
            }
            CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => info::write(&cb.properties, s, v, r),
            CL_COMMAND_BUFFER_CONTEXT_KHR => info::write(&info::Ptr(cb.context().handle()), s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}
