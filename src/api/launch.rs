//! Entry points of `launch` (stubs until implemented).

#![allow(non_snake_case, unused_variables, unused_imports)]

use crate::cl::*;
use libc::{intptr_t, size_t};
use std::ffi::{c_char, c_void};

pub extern "C" fn clEnqueueNDRangeKernel(command_queue: cl_command_queue, kernel: cl_kernel, work_dim: cl_uint, global_work_offset: *const size_t, global_work_size: *const size_t, local_work_size: *const size_t, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueTask(command_queue: cl_command_queue, kernel: cl_kernel, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}

pub extern "C" fn clEnqueueNativeKernel(command_queue: cl_command_queue, user_func: Option<unsafe extern "C" fn(arg1: *mut c_void)>, args: *mut c_void, cb_args: size_t, num_mem_objects: cl_uint, mem_list: *const cl_mem, args_mem_loc: *mut *const c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int {
    CL_INVALID_OPERATION
}
