//! Entry points of extensions the Ventus device does not offer (GL/D3D/DX9/EGL interop, the
//! `cl_ext_device_fission` partitioning, …; images, pipes and SVM are in [`super::image`]): each answers `CL_INVALID_OPERATION` (the spec's code for a feature no
//! device of the context supports), through `errcode_ret` for the object-creating ones.

#![allow(non_snake_case, unused_variables, unused_imports)]

use crate::cl::*;
use libc::{intptr_t, size_t};
use std::ffi::{c_char, c_void};

pub extern "C" fn clCreateFromGLBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    bufobj: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromGLTexture2D(
    context: cl_context,
    flags: cl_mem_flags,
    target: cl_GLenum,
    miplevel: cl_GLint,
    texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromGLTexture3D(
    context: cl_context,
    flags: cl_mem_flags,
    target: cl_GLenum,
    miplevel: cl_GLint,
    texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromGLRenderbuffer(
    context: cl_context,
    flags: cl_mem_flags,
    renderbuffer: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clGetGLObjectInfo(
    memobj: cl_mem,
    gl_object_type: *mut cl_gl_object_type,
    gl_object_name: *mut cl_GLuint,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetGLTextureInfo(
    memobj: cl_mem,
    param_name: cl_gl_texture_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueAcquireGLObjects(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueReleaseGLObjects(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetGLContextInfoKHR(
    properties: *const cl_context_properties,
    param_name: cl_gl_context_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetDeviceIDsFromD3D10KHR(
    platform: cl_platform_id,
    d3d_device_source: cl_d3d10_device_source_khr,
    d3d_object: *mut c_void,
    d3d_device_set: cl_d3d10_device_set_khr,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateFromD3D10BufferKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D10Buffer_ptr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromD3D10Texture2DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D10Texture2D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromD3D10Texture3DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D10Texture3D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clEnqueueAcquireD3D10ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueReleaseD3D10ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateSubDevicesEXT(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property_ext,
    num_entries: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clRetainDeviceEXT(device: cl_device_id) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clReleaseDeviceEXT(device: cl_device_id) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateEventFromGLsyncKHR(
    context: cl_context,
    sync: cl_GLsync,
    errcode_ret: *mut cl_int,
) -> cl_event {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromGLTexture(
    context: cl_context,
    flags: cl_mem_flags,
    target: cl_GLenum,
    miplevel: cl_GLint,
    texture: cl_GLuint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clGetDeviceIDsFromD3D11KHR(
    platform: cl_platform_id,
    d3d_device_source: cl_d3d11_device_source_khr,
    d3d_object: *mut c_void,
    d3d_device_set: cl_d3d11_device_set_khr,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateFromD3D11BufferKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D11Buffer_ptr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromD3D11Texture2DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D11Texture2D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromD3D11Texture3DKHR(
    context: cl_context,
    flags: cl_mem_flags,
    resource: ID3D11Texture3D_ptr,
    subresource: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clCreateFromDX9MediaSurfaceKHR(
    context: cl_context,
    flags: cl_mem_flags,
    adapter_type: cl_dx9_media_adapter_type_khr,
    surface_info: *mut c_void,
    plane: cl_uint,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clEnqueueAcquireD3D11ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueReleaseD3D11ObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetDeviceIDsFromDX9MediaAdapterKHR(
    platform: cl_platform_id,
    num_media_adapters: cl_uint,
    media_adapter_type: *mut cl_dx9_media_adapter_type_khr,
    media_adapters: *mut c_void,
    media_adapter_set: cl_dx9_media_adapter_set_khr,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueAcquireDX9MediaSurfacesKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueReleaseDX9MediaSurfacesKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateFromEGLImageKHR(
    context: cl_context,
    egldisplay: CLeglDisplayKHR,
    eglimage: CLeglImageKHR,
    flags: cl_mem_flags,
    properties: *const cl_egl_image_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}

pub extern "C" fn clEnqueueAcquireEGLObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueReleaseEGLObjectsKHR(
    command_queue: cl_command_queue,
    num_objects: cl_uint,
    mem_objects: *const cl_mem,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateEventFromEGLSyncKHR(
    context: cl_context,
    sync: CLeglSyncKHR,
    display: CLeglDisplayKHR,
    errcode_ret: *mut cl_int,
) -> cl_event {
    super::object(errcode_ret, || Err(CL_INVALID_OPERATION))
}
