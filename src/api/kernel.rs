//! Entry points of `kernel` (stubs until implemented).

#![allow(non_snake_case, unused_variables, unused_imports)]

use crate::cl::*;
use libc::{intptr_t, size_t};
use std::ffi::{c_char, c_void};

pub extern "C" fn clCreateKernel(program: cl_program, kernel_name: *const c_char, errcode_ret: *mut cl_int) -> cl_kernel {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clCreateKernelsInProgram(program: cl_program, num_kernels: cl_uint, kernels: *mut cl_kernel, num_kernels_ret: *mut cl_uint) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clRetainKernel(kernel: cl_kernel) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clReleaseKernel(kernel: cl_kernel) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clSetKernelArg(kernel: cl_kernel, arg_index: cl_uint, arg_size: size_t, arg_value: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetKernelInfo(kernel: cl_kernel, param_name: cl_kernel_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetKernelWorkGroupInfo(kernel: cl_kernel, device: cl_device_id, param_name: cl_kernel_work_group_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetKernelArgInfo(kernel: cl_kernel, arg_index: cl_uint, param_name: cl_kernel_arg_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clSetKernelArgSVMPointer(kernel: cl_kernel, arg_index: cl_uint, arg_value: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clSetKernelExecInfo(kernel: cl_kernel, param_name: cl_kernel_exec_info, param_value_size: size_t, param_value: *const c_void) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clGetKernelSubGroupInfoKHR(in_kernel: cl_kernel, in_device: cl_device_id, param_name: cl_kernel_sub_group_info, input_value_size: size_t, input_value: *const c_void, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clCloneKernel(source_kernel: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel {
    if !errcode_ret.is_null() {
        // SAFETY: the application passes a valid pointer or NULL.
        unsafe { *errcode_ret = CL_INVALID_OPERATION };
    }
    std::ptr::null_mut()
}

pub extern "C" fn clGetKernelSubGroupInfo(kernel: cl_kernel, device: cl_device_id, param_name: cl_kernel_sub_group_info, input_value_size: size_t, input_value: *const c_void, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int {
    CL_INVALID_OPERATION
}
