//! The device's memory limits are what can be allocated (issue 37): memory objects up to
//! `CL_DEVICE_GLOBAL_MEM_SIZE` in all, each up to `CL_DEVICE_MAX_MEM_ALLOC_SIZE`; past that
//! `clCreateBuffer` fails with `CL_MEM_OBJECT_ALLOCATION_FAILURE` (it used to accept 1,728 MiB
//! of a reported 1,024 and fail the next launch with "device heap exhausted"), and a launch
//! with the memory full still runs. One test in its own process: the budget is process-wide.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::{null, null_mut};

/// Calls a loader entry point: `call!(clFoo(args))`. Contract of every use in this file: handles
/// are live objects created here, and every pointer argument is NULL or points to live memory at
/// least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

fn create(ctx: cl_context, size: usize) -> (cl_mem, cl_int) {
    let mut err = 0;
    let m = call!(clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, null_mut(), &mut err));
    (m, err)
}

#[test]
fn allocations_stop_at_the_reported_global_memory_size() {
    let ctx = context();
    let q = queue(ctx, 0);
    let global: u64 = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_GLOBAL_MEM_SIZE);
    let max: u64 = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert!(max <= global && global % max == 0, "{global} {max}");
    let (_, err) = create(ctx, max as usize + 1);
    assert_eq!(err, CL_INVALID_BUFFER_SIZE, "one byte over CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    // Exactly global / max buffers of the largest size fit; one more byte does not.
    let mut bufs = Vec::new();
    for k in 0..global / max {
        let (m, err) = create(ctx, max as usize);
        check(err, &format!("buffer {k} of {max} bytes"));
        bufs.push(m);
    }
    let (m, err) = create(ctx, 1);
    assert!(m.is_null());
    assert_eq!(err, CL_MEM_OBJECT_ALLOCATION_FAILURE, "past CL_DEVICE_GLOBAL_MEM_SIZE");
    // A kernel still launches with the memory full: its own allocations are not the objects'.
    let src = std::ffi::CString::new("kernel void k(global int *o) { o[get_global_id(0)] += 1; }").unwrap();
    let mut err = 0;
    let mut text = src.as_ptr();
    let p = call!(clCreateProgramWithSource(ctx, 1, &mut text, null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clBuildProgram(p, 0, null(), null(), None, null_mut())), "clBuildProgram");
    let k = call!(clCreateKernel(p, c"k".as_ptr(), &mut err));
    check(err, "clCreateKernel");
    check(call!(clSetKernelArg(k, 0, size_of::<cl_mem>(), &bufs[0] as *const cl_mem as *const c_void)), "arg");
    let n = 1024usize;
    check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &n, null(), 0, null(), null_mut())), "launch");
    let mut out = vec![0i32; n];
    let dst = out.as_mut_ptr() as *mut c_void;
    check(call!(clEnqueueReadBuffer(q, bufs[0], CL_TRUE, 0, 4 * n, dst, 0, null(), null_mut())), "read");
    assert!(out.iter().all(|&x| x == 1));
    // Released memory can be allocated again.
    check(call!(clReleaseMemObject(bufs.pop().unwrap())), "release");
    let (m, err) = create(ctx, max as usize);
    check(err, "a buffer where one was released");
    bufs.push(m);
    for m in bufs {
        check(call!(clReleaseMemObject(m)), "release");
    }
    call!(clReleaseKernel(k));
    call!(clReleaseProgram(p));
    call!(clReleaseCommandQueue(q));
    call!(clReleaseContext(ctx));
}
