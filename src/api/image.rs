//! Images, samplers, pipes, SVM and device-side queues: features the Ventus device does not
//! offer (`CL_DEVICE_IMAGE_SUPPORT`, `CL_DEVICE_PIPE_SUPPORT`, `CL_DEVICE_SVM_CAPABILITIES` and
//! `CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES` all say so).
//!
//! Contract: each entry point still validates its arguments in the spec's order and returns the
//! spec's code for the first bad one — an invalid context or queue, invalid flags, a NULL format
//! or descriptor — and only then the code for the missing feature (`CL_INVALID_OPERATION`).
//! Queries that can succeed do: `clGetSupportedImageFormats` reports zero formats. No memory
//! object is an image or a pipe and no sampler exists, so such handles are always invalid
//! (`CL_INVALID_MEM_OBJECT`, `CL_INVALID_SAMPLER`).

#![allow(unused_variables)]

use super::{check, memory, object, ptr, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::memory::Mem;
use crate::core::queue::Queue;
use libc::size_t;
use std::ffi::c_void;

/// Image object types of `clGetSupportedImageFormats`.
const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];
/// Sampler addressing modes.
const ADDRESSING: [cl_addressing_mode; 5] =
    [CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT];
/// Sampler filter modes.
const FILTERS: [cl_filter_mode; 2] = [CL_FILTER_NEAREST, CL_FILTER_LINEAR];

fn context_arg(c: cl_context) -> CLResult<()> {
    Obj::<Context>::get(c).map(|_| ())
}

fn queue_arg(q: cl_command_queue) -> CLResult<()> {
    Obj::<Queue>::get(q).map(|_| ())
}

/// An image argument: none is valid (a buffer is not an image).
fn image_arg(m: cl_mem) -> CLResult<()> {
    Err(CL_INVALID_MEM_OBJECT)
}

pub extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    status(|| {
        context_arg(context)?;
        memory::check_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE)?;
        check(IMAGE_TYPES.contains(&image_type), CL_INVALID_VALUE)?;
        check(num_entries != 0 || image_formats.is_null(), CL_INVALID_VALUE)?;
        // No format is supported: zero entries, and nothing written to `image_formats`.
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(num_image_formats, 0) };
        Ok(())
    })
}

pub extern "C" fn clGetImageInfo(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| image_arg(image))
}

pub extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    object(errcode_ret, || {
        context_arg(context)?;
        check(normalized_coords == CL_TRUE || normalized_coords == CL_FALSE, CL_INVALID_VALUE)?;
        check(ADDRESSING.contains(&addressing_mode), CL_INVALID_VALUE)?;
        check(FILTERS.contains(&filter_mode), CL_INVALID_VALUE)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clRetainSampler(sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

pub extern "C" fn clReleaseSampler(sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

pub extern "C" fn clGetSamplerInfo(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    CL_INVALID_SAMPLER
}

pub extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const size_t,
    region: *const size_t,
    row_pitch: size_t,
    slice_pitch: size_t,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        image_arg(image)
    })
}

pub extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const size_t,
    region: *const size_t,
    input_row_pitch: size_t,
    input_slice_pitch: size_t,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        image_arg(image)
    })
}

pub extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        image_arg(src_image)?;
        image_arg(dst_image)
    })
}

pub extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    region: *const size_t,
    dst_offset: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        image_arg(src_image)?;
        Obj::<Mem>::get(dst_buffer).map(|_| ())
    })
}

pub extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        Obj::<Mem>::get(src_buffer)?;
        image_arg(dst_image)
    })
}

pub extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const size_t,
    region: *const size_t,
    image_row_pitch: *mut size_t,
    image_slice_pitch: *mut size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        queue_arg(command_queue)?;
        image_arg(image)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: size_t,
    image_height: size_t,
    image_row_pitch: size_t,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        context_arg(context)?;
        memory::check_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE)?;
        check(!image_format.is_null(), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: size_t,
    image_height: size_t,
    image_depth: size_t,
    image_row_pitch: size_t,
    image_slice_pitch: size_t,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        context_arg(context)?;
        memory::check_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE)?;
        check(!image_format.is_null(), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        context_arg(context)?;
        memory::check_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE)?;
        check(!image_format.is_null(), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
        check(!image_desc.is_null(), CL_INVALID_IMAGE_DESCRIPTOR)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const size_t,
    region: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        queue_arg(command_queue)?;
        image_arg(image)
    })
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

pub extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    sampler_properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    object(errcode_ret, || {
        context_arg(context)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let list = unsafe { ptr::property_list(sampler_properties) }?;
        for pair in list.chunks(2).take_while(|p| p[0] != 0) {
            let value = *pair.get(1).ok_or(CL_INVALID_VALUE)?;
            let ok = match pair[0] as cl_sampler_info {
                CL_SAMPLER_NORMALIZED_COORDS => value == CL_TRUE as cl_sampler_properties || value == 0,
                CL_SAMPLER_ADDRESSING_MODE => ADDRESSING.contains(&(value as cl_addressing_mode)),
                CL_SAMPLER_FILTER_MODE => FILTERS.contains(&(value as cl_filter_mode)),
                _ => false,
            };
            check(ok, CL_INVALID_VALUE)?;
        }
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

pub extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        context_arg(context)?;
        memory::check_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        check(unsafe { ptr::property_list(properties) }?.first().is_none_or(|&p| p == 0), CL_INVALID_PROPERTY)?;
        check(!image_format.is_null(), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
        check(!image_desc.is_null(), CL_INVALID_IMAGE_DESCRIPTOR)?;
        Err(CL_INVALID_OPERATION)
    })
}
