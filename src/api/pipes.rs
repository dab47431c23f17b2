//! Pipes and device-side queues: features the Ventus device does not offer
//! (`CL_DEVICE_PIPE_SUPPORT` and `CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES` say so).
//!
//! Contract: each entry point still validates its arguments in the spec's order and returns the
//! spec's code for the first bad one — an invalid context — and only then the code for the
//! missing feature (`CL_INVALID_OPERATION`). No memory object is a pipe (`CL_INVALID_MEM_OBJECT`).

#![allow(unused_variables)]

use super::{object, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::Device;
use libc::size_t;
use std::ffi::c_void;

fn context_arg(c: cl_context) -> CLResult<()> {
    Obj::<Context>::get(c).map(|_| ())
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
