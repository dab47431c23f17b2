//! Entry points of `program` (stubs until implemented).

#![allow(non_snake_case, unused_variables, unused_imports)]

use crate::cl::*;
use libc::{intptr_t, size_t};
use std::ffi::{c_char, c_void};

pub extern "C" fn clCreateProgramWithSource(context: cl_context, count: cl_uint, strings: *mut *const c_char, lengths: *const size_t, errcode_ret: *mut cl_int) -> cl_program {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clCreateProgramWithBinary(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, lengths: *const size_t, binaries: *mut *const ::core::ffi::c_uchar, binary_status: *mut cl_int, errcode_ret: *mut cl_int) -> cl_program {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clRetainProgram(program: cl_program) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clReleaseProgram(program: cl_program) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clBuildProgram(program: cl_program, num_devices: cl_uint, device_list: *const cl_device_id, options: *const c_char, pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>, user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetProgramInfo(program: cl_program, param_name: cl_program_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetProgramBuildInfo(program: cl_program, device: cl_device_id, param_name: cl_program_build_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCreateProgramWithBuiltInKernels(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, kernel_names: *const c_char, errcode_ret: *mut cl_int) -> cl_program {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clCompileProgram(program: cl_program, num_devices: cl_uint, device_list: *const cl_device_id, options: *const c_char, num_input_headers: cl_uint, input_headers: *const cl_program, header_include_names: *mut *const c_char, pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>, user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clLinkProgram(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, options: *const c_char, num_input_programs: cl_uint, input_programs: *const cl_program, pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>, user_data: *mut c_void, errcode_ret: *mut cl_int) -> cl_program {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clCreateProgramWithIL(context: cl_context, il: *const c_void, length: size_t, errcode_ret: *mut cl_int) -> cl_program {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clSetProgramReleaseCallback(program: cl_program, pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>, user_data: *mut c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clSetProgramSpecializationConstant(program: cl_program, spec_id: cl_uint, spec_size: size_t, spec_value: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}
