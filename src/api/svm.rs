//! Pipes, shared virtual memory and device-side queues: features the Ventus device does not
//! offer (`CL_DEVICE_PIPE_SUPPORT`, `CL_DEVICE_SVM_CAPABILITIES` and
//! `CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES` say so).
//!
//! Contract: each entry point still validates its arguments in the spec's order and returns the
//! spec's code for the first bad one — an invalid context or queue — and only then the code for
//! the missing feature (`CL_INVALID_OPERATION`). No memory object is a pipe
//! (`CL_INVALID_MEM_OBJECT`); `clSVMAlloc` returns NULL.

#![allow(unused_variables)]

use super::{object, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::queue::Queue;
use libc::size_t;
use std::ffi::c_void;

fn context_arg(c: cl_context) -> CLResult<()> {
    Obj::<Context>::get(c).map(|_| ())
}

fn queue_arg(q: cl_command_queue) -> CLResult<()> {
    Obj::<Queue>::get(q).map(|_| ())
}

pub extern "C" fn clCreatePipe(
    context: cl_context,
    flags: cl_mem_flags,
    pipe_packet_size: cl_uint,
    pipe_max_packets: cl_uint,
    properties: *const cl_pipe_properties,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        context_arg(context)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clGetPipeInfo(
    pipe: cl_mem,
    param_name: cl_pipe_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    // No memory object is a pipe.
    status(|| Err(CL_INVALID_MEM_OBJECT))
}

pub extern "C" fn clSVMAlloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: size_t,
    alignment: cl_uint,
) -> *mut c_void {
    std::ptr::null_mut()
}

pub extern "C" fn clSVMFree(context: cl_context, svm_pointer: *mut c_void) {}

pub extern "C" fn clEnqueueSVMFree(
    command_queue: cl_command_queue,
    num_svm_pointers: cl_uint,
    svm_pointers: *mut *mut c_void,
    pfn_free_func: Option<
        unsafe extern "C" fn(
            queue: cl_command_queue,
            num_svm_pointers: cl_uint,
            svm_pointers: *mut *mut c_void,
            user_data: *mut c_void,
        ),
    >,
    user_data: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        Err(CL_INVALID_OPERATION)
    })
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
        queue_arg(command_queue)?;
        Err(CL_INVALID_OPERATION)
    })
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
        queue_arg(command_queue)?;
        Err(CL_INVALID_OPERATION)
    })
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
        queue_arg(command_queue)?;
        Err(CL_INVALID_OPERATION)
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
        queue_arg(command_queue)?;
        Err(CL_INVALID_OPERATION)
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
        queue_arg(command_queue)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clSetDefaultDeviceCommandQueue(
    context: cl_context,
    device: cl_device_id,
    command_queue: cl_command_queue,
) -> cl_int {
    status(|| {
        context_arg(context)?;
        Obj::<Device>::get(device)?;
        // "CL_INVALID_OPERATION if device does not support a replaceable default on-device
        // queue" — before the queue is looked at (no queue could be an on-device one).
        Err(CL_INVALID_OPERATION)
    })
}
