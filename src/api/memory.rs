//! Entry points of `memory` (stubs until implemented).

#![allow(non_snake_case, unused_variables, unused_imports)]

use crate::cl::*;
use libc::{intptr_t, size_t};
use std::ffi::{c_char, c_void};

pub extern "C" fn clCreateBuffer(context: cl_context, flags: cl_mem_flags, size: size_t, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clRetainMemObject(memobj: cl_mem) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clReleaseMemObject(memobj: cl_mem) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetMemObjectInfo(memobj: cl_mem, param_name: cl_mem_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateSubBuffer(buffer: cl_mem, flags: cl_mem_flags, buffer_create_type: cl_buffer_create_type, buffer_create_info: *const c_void, errcode_ret: *mut cl_int) -> cl_mem {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clSetMemObjectDestructorCallback(memobj: cl_mem, pfn_notify: Option<unsafe extern "C" fn(memobj: cl_mem, user_data: *mut c_void)>, user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateBufferWithProperties(context: cl_context, properties: *const cl_mem_properties, flags: cl_mem_flags, size: size_t, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}
