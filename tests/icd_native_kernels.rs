//! `clEnqueueNativeKernel` (OpenCL 3.0 §5.10) through Debian's ICD loader: the device reports
//! `CL_EXEC_NATIVE_KERNEL`; a native kernel gets a copy of its argument block with every listed
//! memory object replaced by a pointer to its contents, runs on the queue's worker in command
//! order (its side effects between the kernels around it), and the spec's error clauses hold.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_void, CString};
use std::mem::size_of;
use std::ptr::{null, null_mut};

/// Calls a loader entry point. Contract of every use in this file: handles are valid or
/// deliberately invalid (the driver must reject them), and every pointer argument is NULL or
/// points to live memory at least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

const N: usize = 256;

/// The argument block of [`scale_and_tag`]: two buffers (replaced by pointers) and a factor.
#[repr(C)]
struct ScaleArgs {
    data: *mut i32,
    tags: *mut i32,
    factor: i32,
    count: i32,
}

/// `data[i] *= factor; tags[i] = data[i] + 1` over `count` elements.
extern "C" fn scale_and_tag(args: *mut c_void) {
    // SAFETY: the driver passes its copy of a `ScaleArgs` block with both pointers replaced by
    // pointers to buffers of `count` ints (the test enqueues it so).
    unsafe {
        let a = &*(args as *const ScaleArgs);
        for i in 0..a.count as usize {
            let v = *a.data.add(i) * a.factor;
            *a.data.add(i) = v;
            *a.tags.add(i) = v + 1;
        }
    }
}

fn build(ctx: cl_context, dev: cl_device_id, src: &str) -> cl_program {
    let text = CString::new(src).unwrap();
    let mut err = 0;
    let mut strings = [text.as_ptr()];
    let p = call!(clCreateProgramWithSource(ctx, 1, strings.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clBuildProgram(p, 1, &dev, null(), None, null_mut())), "clBuildProgram");
    p
}

fn buffer(ctx: cl_context, bytes: usize) -> cl_mem {
    let mut err = 0;
    let m = call!(clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, null_mut(), &mut err));
    check(err, "clCreateBuffer");
    m
}

fn read_ints(q: cl_command_queue, m: cl_mem) -> Vec<i32> {
    let mut out = vec![0i32; N];
    let code = call!(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4 * N, out.as_mut_ptr().cast(), 0, null(), null_mut()));
    check(code, "clEnqueueReadBuffer");
    out
}

#[test]
fn the_device_reports_native_kernels() {
    let caps: cl_device_exec_capabilities =
        info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_EXECUTION_CAPABILITIES);
    assert_eq!(caps, CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL);
}

/// kernel (data[i] = i) → native (data *= 3, tags = data + 1) → kernel (data[i] += tags[i]),
/// on an in-order and an out-of-order queue (there ordered by events): every side effect
/// lands in command order.
#[test]
fn a_native_kernel_runs_in_order_between_kernels() {
    let (ctx, dev) = (context(), device());
    let prog = build(
        ctx,
        dev,
        "__kernel void init(__global int *d) { d[get_global_id(0)] = get_global_id(0); }
         __kernel void add(__global int *d, __global const int *t) { size_t i = get_global_id(0); d[i] += t[i]; }",
    );
    let mut err = 0;
    let init = call!(clCreateKernel(prog, c"init".as_ptr(), &mut err));
    check(err, "clCreateKernel init");
    let add = call!(clCreateKernel(prog, c"add".as_ptr(), &mut err));
    check(err, "clCreateKernel add");
    for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
        let q = queue(ctx, props);
        let (data, tags) = (buffer(ctx, 4 * N), buffer(ctx, 4 * N));
        let arg = |k: cl_kernel, i: u32, m: &cl_mem| {
            check(call!(clSetKernelArg(k, i, size_of::<cl_mem>(), (m as *const cl_mem).cast())), "clSetKernelArg")
        };
        arg(init, 0, &data);
        arg(add, 0, &data);
        arg(add, 1, &tags);
        let global = N;
        let mut e1 = null_mut();
        check(call!(clEnqueueNDRangeKernel(q, init, 1, null(), &global, null(), 0, null(), &mut e1)), "init");
        let mut block = ScaleArgs { data: null_mut(), tags: null_mut(), factor: 3, count: N as i32 };
        let base = &block as *const ScaleArgs as *const u8;
        // SAFETY: field addresses inside `block`.
        let locs: [*const c_void; 2] = unsafe { [base.cast(), base.add(size_of::<*mut i32>()).cast()] };
        let mems = [data, tags];
        let mut e2 = null_mut();
        let code = call!(clEnqueueNativeKernel(
            q,
            Some(scale_and_tag),
            (&block as *const ScaleArgs).cast_mut().cast(),
            size_of::<ScaleArgs>(),
            2,
            mems.as_ptr(),
            locs.as_ptr().cast_mut(),
            1,
            &e1,
            &mut e2
        ));
        check(code, "clEnqueueNativeKernel");
        // The block was copied at enqueue: changing it now changes nothing.
        block.factor = 100;
        std::hint::black_box(&block);
        let mut e3 = null_mut();
        check(call!(clEnqueueNDRangeKernel(q, add, 1, null(), &global, null(), 1, &e2, &mut e3)), "add");
        check(call!(clWaitForEvents(1, &e3)), "clWaitForEvents");
        let ty: cl_command_type = info_value(cl().clGetEventInfo, e2, CL_EVENT_COMMAND_TYPE);
        assert_eq!(ty, CL_COMMAND_NATIVE_KERNEL);
        assert_eq!(event_status(e2), CL_COMPLETE);
        let want_tags: Vec<i32> = (0..N as i32).map(|i| 3 * i + 1).collect();
        let want_data: Vec<i32> = (0..N as i32).map(|i| 3 * i + 3 * i + 1).collect();
        assert_eq!(read_ints(q, tags), want_tags, "queue properties {props:#x}");
        assert_eq!(read_ints(q, data), want_data, "queue properties {props:#x}");
        for e in [e1, e2, e3] {
            check(call!(clReleaseEvent(e)), "clReleaseEvent");
        }
        for m in mems {
            check(call!(clReleaseMemObject(m)), "clReleaseMemObject");
        }
        check(call!(clReleaseCommandQueue(q)), "clReleaseCommandQueue");
    }
    call!(clReleaseKernel(init));
    call!(clReleaseKernel(add));
    call!(clReleaseProgram(prog));
    call!(clReleaseContext(ctx));
}

extern "C" fn count_calls(args: *mut c_void) {
    // SAFETY: enqueued with a block holding one `u64` counter address (no memory objects).
    unsafe {
        let counter = *(args as *const *const std::sync::atomic::AtomicU64);
        (*counter).fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A native kernel without memory objects, and one with no arguments at all.
#[test]
fn native_kernels_without_memory_objects() {
    let ctx = context();
    let q = queue(ctx, 0);
    let counter = std::sync::atomic::AtomicU64::new(0);
    let block: *const std::sync::atomic::AtomicU64 = &counter;
    for _ in 0..10 {
        let code = call!(clEnqueueNativeKernel(
            q,
            Some(count_calls),
            (&block as *const *const std::sync::atomic::AtomicU64).cast_mut().cast(),
            size_of::<*const u64>(),
            0,
            null(),
            null_mut(),
            0,
            null(),
            null_mut()
        ));
        check(code, "clEnqueueNativeKernel");
    }
    check(call!(clFinish(q)), "clFinish");
    assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 10);
    extern "C" fn nothing(args: *mut c_void) {
        assert!(args.is_null(), "no argument block: NULL");
    }
    let code =
        call!(clEnqueueNativeKernel(q, Some(nothing), null_mut(), 0, 0, null(), null_mut(), 0, null(), null_mut()));
    check(code, "clEnqueueNativeKernel without arguments");
    check(call!(clFinish(q)), "clFinish");
    call!(clReleaseCommandQueue(q));
    call!(clReleaseContext(ctx));
}

/// The spec's error clauses (OpenCL 3.0 `clEnqueueNativeKernel`), plus a memory-object location
/// outside the argument block (`CL_INVALID_VALUE`: the driver would write outside its copy).
#[test]
fn native_kernel_error_clauses() {
    let ctx = context();
    let q = queue(ctx, 0);
    let m = buffer(ctx, 64);
    let mut block = [0u64; 2];
    let args = block.as_mut_ptr().cast::<c_void>();
    let loc: [*const c_void; 1] = [args.cast_const()];
    /// Never called: every enqueue below must be rejected.
    extern "C" fn ignore(_: *mut c_void) {}
    type NativeFn = Option<unsafe extern "C" fn(*mut c_void)>;
    let f: NativeFn = Some(ignore);
    let mem = [m];
    let enq = |q: cl_command_queue,
               f: NativeFn,
               args: *mut c_void,
               cb: usize,
               n: u32,
               mems: *const cl_mem,
               locs: *const *const c_void| {
        call!(clEnqueueNativeKernel(q, f, args, cb, n, mems, locs.cast_mut(), 0, null(), null_mut()))
    };
    expect_err(enq(null_mut(), f, args, 16, 0, null(), null()), CL_INVALID_COMMAND_QUEUE, "no queue");
    expect_err(enq(q, None, args, 16, 0, null(), null()), CL_INVALID_VALUE, "user_func NULL");
    expect_err(enq(q, f, null_mut(), 16, 0, null(), null()), CL_INVALID_VALUE, "args NULL, cb_args > 0");
    expect_err(enq(q, f, null_mut(), 0, 1, mem.as_ptr(), loc.as_ptr()), CL_INVALID_VALUE, "args NULL, objects");
    expect_err(enq(q, f, args, 0, 0, null(), null()), CL_INVALID_VALUE, "args, cb_args 0");
    expect_err(enq(q, f, args, 16, 1, null(), loc.as_ptr()), CL_INVALID_VALUE, "mem_list NULL");
    expect_err(enq(q, f, args, 16, 1, mem.as_ptr(), null()), CL_INVALID_VALUE, "args_mem_loc NULL");
    expect_err(enq(q, f, args, 16, 0, mem.as_ptr(), null()), CL_INVALID_VALUE, "mem_list without objects");
    expect_err(enq(q, f, args, 16, 0, null(), loc.as_ptr()), CL_INVALID_VALUE, "args_mem_loc without objects");
    let bad = [0x1234usize as cl_mem];
    expect_err(enq(q, f, args, 16, 1, bad.as_ptr(), loc.as_ptr()), CL_INVALID_MEM_OBJECT, "invalid object");
    // SAFETY: one past the block's end minus 4 bytes: a pointer would not fit.
    let outside: [*const c_void; 1] = [unsafe { args.cast::<u8>().add(12) }.cast()];
    expect_err(enq(q, f, args, 16, 1, mem.as_ptr(), outside.as_ptr()), CL_INVALID_VALUE, "location outside the block");
    // An image is not a buffer.
    let format = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_UNORM_INT8 };
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: 4,
        image_height: 4,
        image_depth: 1,
        image_array_size: 1,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: null_mut(),
    };
    let mut err = 0;
    let img = call!(clCreateImage(ctx, CL_MEM_READ_WRITE, &format, &desc, null_mut(), &mut err));
    check(err, "clCreateImage");
    let imgs = [img];
    expect_err(enq(q, f, args, 16, 1, imgs.as_ptr(), loc.as_ptr()), CL_INVALID_MEM_OBJECT, "an image");
    // A wait-list event of another context.
    let other = context();
    let foreign = user_event(other);
    let code = call!(clEnqueueNativeKernel(q, f, args, 16, 0, null(), null_mut(), 1, &foreign, null_mut()));
    expect_err(code, CL_INVALID_CONTEXT, "event of another context");
    call!(clSetUserEventStatus(foreign, CL_COMPLETE));
    call!(clReleaseEvent(foreign));
    call!(clReleaseContext(other));
    call!(clReleaseMemObject(img));
    call!(clReleaseMemObject(m));
    call!(clReleaseCommandQueue(q));
    call!(clReleaseContext(ctx));
}
