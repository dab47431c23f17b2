//! `cl_khr_command_buffer` (0.9.8) through Debian's ICD loader: the extension is reported with
//! its provisional version and its entry points resolve; a recorded buffer replays 1,000 times
//! with the arguments captured at recording; sync points, states, queries, queue substitution
//! and the error clauses; a faulting kernel inside a buffer fails only that enqueue.

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

/// Calls an extension entry point of [`Ext`] under the same contract as [`call!`].
macro_rules! ext {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = ext().$f;
        // SAFETY: the contract of `call!`; the pointer was resolved by the driver for this name.
        unsafe { f($($a),*) }
    }};
}

type CommandBuffer = *mut c_void;
type Sync = cl_uint;

/// The extension's entry points (signatures of `cl_ext.h`, cl_khr_command_buffer 0.9.8).
struct Ext {
    create: unsafe extern "C" fn(cl_uint, *const cl_command_queue, *const cl_ulong, *mut cl_int) -> CommandBuffer,
    finalize: unsafe extern "C" fn(CommandBuffer) -> cl_int,
    retain: unsafe extern "C" fn(CommandBuffer) -> cl_int,
    release: unsafe extern "C" fn(CommandBuffer) -> cl_int,
    enqueue: unsafe extern "C" fn(
        cl_uint,
        *mut cl_command_queue,
        CommandBuffer,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
    barrier: unsafe extern "C" fn(
        CommandBuffer,
        cl_command_queue,
        *const cl_ulong,
        cl_uint,
        *const Sync,
        *mut Sync,
        *mut *mut c_void,
    ) -> cl_int,
    copy: unsafe extern "C" fn(
        CommandBuffer,
        cl_command_queue,
        *const cl_ulong,
        cl_mem,
        cl_mem,
        usize,
        usize,
        usize,
        cl_uint,
        *const Sync,
        *mut Sync,
        *mut *mut c_void,
    ) -> cl_int,
    fill: unsafe extern "C" fn(
        CommandBuffer,
        cl_command_queue,
        *const cl_ulong,
        cl_mem,
        *const c_void,
        usize,
        usize,
        usize,
        cl_uint,
        *const Sync,
        *mut Sync,
        *mut *mut c_void,
    ) -> cl_int,
    ndrange: unsafe extern "C" fn(
        CommandBuffer,
        cl_command_queue,
        *const cl_ulong,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const Sync,
        *mut Sync,
        *mut *mut c_void,
    ) -> cl_int,
    info: unsafe extern "C" fn(CommandBuffer, cl_uint, usize, *mut c_void, *mut usize) -> cl_int,
}

fn lookup(name: &str) -> *mut c_void {
    let c = CString::new(name).unwrap();
    let f = call!(clGetExtensionFunctionAddressForPlatform(platform(), c.as_ptr()));
    assert!(!f.is_null(), "{name} resolves");
    f
}

/// The entry point `name` as a function pointer of type `F`.
///
/// # Safety
/// `F` is the function-pointer type of the entry point called `name`.
unsafe fn resolve<F: Copy>(name: &str) -> F {
    assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
    let p = lookup(name);
    // SAFETY: the caller's contract; both are pointer-sized.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
}

fn ext() -> &'static Ext {
    static EXT: std::sync::OnceLock<Ext> = std::sync::OnceLock::new();
    EXT.get_or_init(|| {
        // SAFETY: each name resolves to the driver's entry point of the matching signature.
        unsafe {
            Ext {
                create: resolve("clCreateCommandBufferKHR"),
                finalize: resolve("clFinalizeCommandBufferKHR"),
                retain: resolve("clRetainCommandBufferKHR"),
                release: resolve("clReleaseCommandBufferKHR"),
                enqueue: resolve("clEnqueueCommandBufferKHR"),
                barrier: resolve("clCommandBarrierWithWaitListKHR"),
                copy: resolve("clCommandCopyBufferKHR"),
                fill: resolve("clCommandFillBufferKHR"),
                ndrange: resolve("clCommandNDRangeKernelKHR"),
                info: resolve("clGetCommandBufferInfoKHR"),
            }
        }
    })
}

const CL_COMMAND_BUFFER_FLAGS_KHR: cl_ulong = 0x1293;
const CL_INVALID_COMMAND_BUFFER_KHR: cl_int = -1138;
const CL_INVALID_SYNC_POINT_WAIT_LIST_KHR: cl_int = -1139;
const CL_INCOMPATIBLE_COMMAND_QUEUE_KHR: cl_int = -1140;
const CL_COMMAND_BUFFER_QUEUES_KHR: cl_uint = 0x1294;
const CL_COMMAND_BUFFER_NUM_QUEUES_KHR: cl_uint = 0x1295;
const CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR: cl_uint = 0x1296;
const CL_COMMAND_BUFFER_STATE_KHR: cl_uint = 0x1297;
const CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: cl_uint = 0x1298;
const CL_COMMAND_BUFFER_CONTEXT_KHR: cl_uint = 0x1299;
const CL_COMMAND_COMMAND_BUFFER_KHR: cl_command_type = 0x12A8;
const CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: cl_device_info = 0x12A9;
const CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR: cl_device_info = 0x129A;
const CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR: cl_device_info = 0x12AA;

fn queue(ctx: cl_context, props: cl_command_queue_properties) -> cl_command_queue {
    let mut err = 0;
    let q = call!(clCreateCommandQueue(ctx, device(), props, &mut err));
    check(err, "clCreateCommandQueue");
    q
}

fn buffer(ctx: cl_context, data: &[i32]) -> cl_mem {
    let mut err = 0;
    let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    let m = call!(clCreateBuffer(ctx, flags, 4 * data.len(), data.as_ptr() as *mut c_void, &mut err));
    check(err, "clCreateBuffer");
    m
}

fn read(q: cl_command_queue, m: cl_mem, n: usize) -> Vec<i32> {
    let mut out = vec![0i32; n];
    check(call!(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4 * n, out.as_mut_ptr().cast(), 0, null(), null_mut())), "read");
    out
}

fn kernel(ctx: cl_context, src: &str, name: &str) -> (cl_program, cl_kernel) {
    let text = CString::new(src).unwrap();
    let mut err = 0;
    let mut strings = [text.as_ptr()];
    let p = call!(clCreateProgramWithSource(ctx, 1, strings.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clBuildProgram(p, 0, null(), null(), None, null_mut())), "clBuildProgram");
    let name = CString::new(name).unwrap();
    let k = call!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    (p, k)
}

fn set_mem(k: cl_kernel, i: cl_uint, m: &cl_mem) {
    check(call!(clSetKernelArg(k, i, size_of::<cl_mem>(), m as *const cl_mem as *const c_void)), "clSetKernelArg");
}

fn create(q: cl_command_queue) -> CommandBuffer {
    let mut err = 0;
    let cb = ext!(create(1, &q, null(), &mut err));
    check(err, "clCreateCommandBufferKHR");
    cb
}

fn state(cb: CommandBuffer) -> cl_uint {
    info_value(ext().info, cb, CL_COMMAND_BUFFER_STATE_KHR)
}

const STEP: &str = "kernel void step(global int *acc, int k) {
    size_t i = get_global_id(0);
    acc[i] = acc[i] * 3 + (int)i + k;
}";

#[test]
fn the_extension_is_reported_with_its_version() {
    let d = device();
    let exts = info_string(cl().clGetDeviceInfo, d, CL_DEVICE_EXTENSIONS);
    assert!(exts.split(' ').any(|e| e == "cl_khr_command_buffer"), "{exts}");
    let versions = info_bytes(cl().clGetDeviceInfo, d, CL_DEVICE_EXTENSIONS_WITH_VERSION);
    let entry = versions
        .chunks_exact(4 + CL_NAME_VERSION_MAX_NAME_SIZE)
        .find(|c| c[4..].starts_with(b"cl_khr_command_buffer\0"))
        .expect("listed with a version");
    assert_eq!(u32::from_ne_bytes(entry[..4].try_into().unwrap()), (9 << 12) | 8, "version 0.9.8");
    let caps: cl_ulong = info_value(cl().clGetDeviceInfo, d, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR);
    assert_eq!(caps, 1, "kernel printf");
    let supported: cl_ulong =
        info_value(cl().clGetDeviceInfo, d, CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR);
    assert_eq!(supported, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    let required: cl_ulong =
        info_value(cl().clGetDeviceInfo, d, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR);
    assert_eq!(required, 0);
    for name in ["clCommandCopyBufferRectKHR", "clCommandCopyImageKHR", "clCommandFillImageKHR"] {
        lookup(name);
    }
    ext();
}

/// A buffer of a kernel, a copy and a fill, replayed 1,000 times: the result is the host's
/// 1,000 iterations; arguments set after recording do not reach the recorded kernel.
#[test]
fn a_recorded_buffer_replays_1000_times() {
    const N: usize = 256;
    let ctx = context();
    let q = queue(ctx, 0);
    let (p, k) = kernel(ctx, STEP, "step");
    let start: Vec<i32> = (0..N as i32).map(|i| i * 7 - 100).collect();
    let (acc, snap, other) = (buffer(ctx, &start), buffer(ctx, &[0; N]), buffer(ctx, &[5; N]));
    set_mem(k, 0, &acc);
    let kk = 11i32;
    check(call!(clSetKernelArg(k, 1, 4, &kk as *const i32 as *const c_void)), "arg 1");
    let cb = create(q);
    assert_eq!(state(cb), 0, "recording");
    let (global, local) = (N, 64usize);
    let mut s1 = 0;
    check(
        ext!(ndrange(cb, null_mut(), null(), k, 1, null(), &global, &local, 0, null(), &mut s1, null_mut())),
        "kernel",
    );
    let mut s2 = 0;
    check(ext!(copy(cb, null_mut(), null(), acc, snap, 0, 0, 4 * N, 1, &s1, &mut s2, null_mut())), "copy");
    let pattern = -1i32;
    let p4 = &pattern as *const i32 as *const c_void;
    let mut s3 = 0;
    let code = ext!(fill(cb, null_mut(), null(), other, p4, 4, 0, 4 * N, 1, &s2, &mut s3, null_mut()));
    check(code, "fill");
    assert_eq!((s1, s2, s3), (1, 2, 3), "sync points");
    // Later argument changes do not reach the recorded command.
    set_mem(k, 0, &other);
    check(ext!(finalize(cb)), "finalize");
    assert_eq!(state(cb), 1, "executable");
    let mut last = null_mut();
    for i in 0..1000 {
        let out = if i == 999 { &mut last as *mut cl_event } else { null_mut() };
        check(ext!(enqueue(0, null_mut(), cb, 0, null(), out)), "clEnqueueCommandBufferKHR");
    }
    check(call!(clWaitForEvents(1, &last)), "wait");
    let ty: cl_command_type = info_value(cl().clGetEventInfo, last, CL_EVENT_COMMAND_TYPE);
    assert_eq!(ty, CL_COMMAND_COMMAND_BUFFER_KHR);
    let mut want = start.clone();
    for _ in 0..1000 {
        for (i, w) in want.iter_mut().enumerate() {
            *w = w.wrapping_mul(3).wrapping_add(i as i32 + kk);
        }
    }
    assert_eq!(read(q, acc, N), want, "1,000 replays of the kernel");
    assert_eq!(read(q, snap, N), want, "the copy after the kernel");
    assert_eq!(read(q, other, N), vec![-1; N], "the fill; the later argument never reached the kernel");
    check(call!(clReleaseEvent(last)), "release event");
    check(ext!(release(cb)), "release");
    for m in [acc, snap, other] {
        check(call!(clReleaseMemObject(m)), "release mem");
    }
    check(call!(clReleaseKernel(k)), "release kernel");
    check(call!(clReleaseProgram(p)), "release program");
    check(call!(clReleaseCommandQueue(q)), "release queue");
    check(call!(clReleaseContext(ctx)), "release context");
}

/// Queries, states, queue substitution and the error clauses of recording and enqueueing.
#[test]
fn states_queries_and_error_clauses() {
    let ctx = context();
    let q = queue(ctx, 0);
    let ooo = queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    let m = buffer(ctx, &[1, 2, 3, 4]);
    let pattern = 9i32;
    let p4 = &pattern as *const i32 as *const c_void;
    let mut err = 0;
    // Creation: one queue; the one property is a flags word with no flag defined.
    assert!(ext!(create(0, null(), null(), &mut err)).is_null());
    expect_err(err, CL_INVALID_VALUE, "no queue");
    let qs = [q, q];
    assert!(ext!(create(2, qs.as_ptr(), null(), &mut err)).is_null());
    expect_err(err, CL_INVALID_VALUE, "two queues");
    let bad = [CL_COMMAND_BUFFER_FLAGS_KHR, 1, 0];
    assert!(ext!(create(1, &q, bad.as_ptr(), &mut err)).is_null());
    expect_err(err, CL_INVALID_VALUE, "an unknown flag");
    let twice = [CL_COMMAND_BUFFER_FLAGS_KHR, 0, CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0];
    assert!(ext!(create(1, &q, twice.as_ptr(), &mut err)).is_null());
    expect_err(err, CL_INVALID_VALUE, "a repeated property");
    let props = [CL_COMMAND_BUFFER_FLAGS_KHR, 0, 0];
    let cb = ext!(create(1, &q, props.as_ptr(), &mut err));
    check(err, "clCreateCommandBufferKHR");

    // Queries.
    let queues: Vec<cl_command_queue> = info_vec(ext().info, cb, CL_COMMAND_BUFFER_QUEUES_KHR);
    assert_eq!(queues, [q]);
    assert_eq!(info_value::<cl_uint, _, _>(ext().info, cb, CL_COMMAND_BUFFER_NUM_QUEUES_KHR), 1);
    assert_eq!(info_value::<cl_context, _, _>(ext().info, cb, CL_COMMAND_BUFFER_CONTEXT_KHR), ctx);
    assert_eq!(info_vec::<cl_ulong, _, _>(ext().info, cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR), props);
    check(ext!(retain(cb)), "retain");
    assert_eq!(info_value::<cl_uint, _, _>(ext().info, cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR), 2);
    check(ext!(release(cb)), "release");
    let mut v = 0u32;
    let code = ext!(info(cb, 0x7777, 4, &mut v as *mut u32 as *mut c_void, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "unknown query");

    // Recording: the queue argument must be NULL, no mutable handle, sync points name earlier
    // commands, and a wait list is NULL exactly when empty.
    let mut s = 0;
    let code = ext!(fill(cb, q, null(), m, p4, 4, 0, 16, 0, null(), &mut s, null_mut()));
    expect_err(code, CL_INVALID_COMMAND_QUEUE, "a queue given");
    let mut handle = null_mut();
    let code = ext!(fill(cb, null_mut(), null(), m, p4, 4, 0, 16, 0, null(), &mut s, &mut handle));
    expect_err(code, CL_INVALID_VALUE, "a mutable handle asked for");
    let code = ext!(fill(cb, null_mut(), null(), m, p4, 4, 0, 16, 1, null(), &mut s, null_mut()));
    expect_err(code, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, "NULL list of one");
    let future = 1;
    let code = ext!(fill(cb, null_mut(), null(), m, p4, 4, 0, 16, 1, &future, &mut s, null_mut()));
    expect_err(code, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR, "a sync point not yet recorded");
    let code = ext!(fill(cb, null_mut(), null(), m, p4, 3, 0, 16, 0, null(), &mut s, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "the fill's own clauses");
    check(ext!(fill(cb, null_mut(), null(), m, p4, 4, 0, 16, 0, null(), &mut s, null_mut())), "fill");
    let mut s2 = 0;
    check(ext!(barrier(cb, null_mut(), null(), 1, &s, &mut s2, null_mut())), "barrier");
    assert_eq!((s, s2), (1, 2));
    let mut e = null_mut();
    expect_err(ext!(enqueue(0, null_mut(), cb, 0, null(), &mut e)), CL_INVALID_OPERATION, "not finalized");
    check(ext!(finalize(cb)), "finalize");
    expect_err(ext!(finalize(cb)), CL_INVALID_OPERATION, "finalized twice");
    let code = ext!(fill(cb, null_mut(), null(), m, p4, 4, 0, 16, 0, null(), &mut s, null_mut()));
    expect_err(code, CL_INVALID_OPERATION, "recording after finalize");

    // Enqueueing: on its own queue, or a compatible one (out-of-order, profiling).
    let mut sub = ooo;
    check(ext!(enqueue(1, &mut sub, cb, 0, null(), &mut e)), "on an out-of-order queue");
    check(call!(clWaitForEvents(1, &e)), "wait");
    check(call!(clReleaseEvent(e)), "release event");
    assert_eq!(read(q, m, 4), [9; 4]);
    let mut none = null_mut();
    expect_err(ext!(enqueue(1, &mut none, cb, 0, null(), null_mut())), CL_INVALID_COMMAND_QUEUE, "NULL queue");
    expect_err(ext!(enqueue(1, null_mut(), cb, 0, null(), null_mut())), CL_INVALID_VALUE, "NULL list of one");
    let other_ctx = context();
    let mut foreign = queue(other_ctx, 0);
    expect_err(ext!(enqueue(1, &mut foreign, cb, 0, null(), null_mut())), CL_INVALID_CONTEXT, "other context");
    expect_err(ext!(enqueue(0, null_mut(), null_mut(), 0, null(), null_mut())), CL_INVALID_COMMAND_BUFFER_KHR, "NULL");
    let _ = CL_INCOMPATIBLE_COMMAND_QUEUE_KHR; // needs a second device (a sub-device queue)
    check(ext!(release(cb)), "release");
    expect_err(ext!(retain(cb)), CL_INVALID_COMMAND_BUFFER_KHR, "released");
    for q in [q, ooo, foreign] {
        check(call!(clReleaseCommandQueue(q)), "release queue");
    }
    check(call!(clReleaseMemObject(m)), "release mem");
    check(call!(clReleaseContext(other_ctx)), "release context");
    check(call!(clReleaseContext(ctx)), "release context");
}

/// A kernel that faults inside a buffer fails that enqueue's event (and the commands after it
/// in the buffer do not run); the next enqueue of a good buffer works.
#[test]
fn a_faulting_command_fails_only_its_enqueue() {
    let ctx = context();
    let q = queue(ctx, 0);
    let src = "kernel void poke(global int *p, uint bad) {
        if (get_global_id(0) == 0) *(global int *)(size_t)bad = 1;
        p[get_global_id(0)] = 7;
    }";
    let (p, k) = kernel(ctx, src, "poke");
    let m = buffer(ctx, &[0; 32]);
    set_mem(k, 0, &m);
    let bad = 0x10u32;
    check(call!(clSetKernelArg(k, 1, 4, &bad as *const u32 as *const c_void)), "arg 1");
    let failing = create(q);
    let global = 32usize;
    let mut s = 0;
    check(
        ext!(ndrange(failing, null_mut(), null(), k, 1, null(), &global, &global, 0, null(), &mut s, null_mut())),
        "k",
    );
    let pattern = 3i32;
    let p4 = &pattern as *const i32 as *const c_void;
    check(ext!(fill(failing, null_mut(), null(), m, p4, 4, 0, 128, 1, &s, null_mut(), null_mut())), "fill");
    check(ext!(finalize(failing)), "finalize");
    let mut e = null_mut();
    check(ext!(enqueue(0, null_mut(), failing, 0, null(), &mut e)), "enqueue");
    let _ = call!(clWaitForEvents(1, &e));
    let status: cl_int = info_value(cl().clGetEventInfo, e, CL_EVENT_COMMAND_EXECUTION_STATUS);
    assert!(status < 0, "the event fails: {status}");
    assert!(read(q, m, 32).iter().all(|&v| v != 3), "the fill after the fault did not run");
    let good = create(q);
    check(ext!(fill(good, null_mut(), null(), m, p4, 4, 0, 128, 0, null(), null_mut(), null_mut())), "fill");
    check(ext!(finalize(good)), "finalize");
    check(ext!(enqueue(0, null_mut(), good, 0, null(), null_mut())), "enqueue");
    assert_eq!(read(q, m, 32), [3; 32], "the context stays usable");
    check(call!(clReleaseEvent(e)), "release event");
    check(ext!(release(failing)), "release");
    check(ext!(release(good)), "release");
    check(call!(clReleaseMemObject(m)), "release mem");
    check(call!(clReleaseKernel(k)), "release kernel");
    check(call!(clReleaseProgram(p)), "release program");
    check(call!(clReleaseCommandQueue(q)), "release queue");
    check(call!(clReleaseContext(ctx)), "release context");
}

/// SVM fills and copies recorded in a buffer run at each replay.
#[test]
fn svm_commands_replay() {
    type SvmFill = unsafe extern "C" fn(
        CommandBuffer,
        cl_command_queue,
        *const cl_ulong,
        *mut c_void,
        *const c_void,
        usize,
        usize,
        cl_uint,
        *const Sync,
        *mut Sync,
        *mut *mut c_void,
    ) -> cl_int;
    type SvmCopy = unsafe extern "C" fn(
        CommandBuffer,
        cl_command_queue,
        *const cl_ulong,
        *mut c_void,
        *const c_void,
        usize,
        cl_uint,
        *const Sync,
        *mut Sync,
        *mut *mut c_void,
    ) -> cl_int;
    // SAFETY: the entry points of these signatures (cl_khr_command_buffer 0.9.8).
    let (fill, copy) =
        unsafe { (resolve::<SvmFill>("clCommandSVMMemFillKHR"), resolve::<SvmCopy>("clCommandSVMMemcpyKHR")) };
    let ctx = context();
    let q = queue(ctx, 0);
    let a = call!(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0)) as *mut u32;
    let b = call!(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0)) as *mut u32;
    assert!(!a.is_null() && !b.is_null());
    let cb = create(q);
    let pattern = 0x5151_5151u32;
    let mut s = 0;
    // SAFETY: both allocations hold 16 words; the pattern outlives the call (it is copied).
    unsafe {
        let code = fill(
            cb,
            null_mut(),
            null(),
            a.cast(),
            (&pattern as *const u32).cast(),
            4,
            64,
            0,
            null(),
            &mut s,
            null_mut(),
        );
        check(code, "clCommandSVMMemFillKHR");
        check(
            copy(cb, null_mut(), null(), b.cast(), a.cast(), 32, 1, &s, null_mut(), null_mut()),
            "clCommandSVMMemcpyKHR",
        );
    }
    check(ext!(finalize(cb)), "finalize");
    for round in 0..3 {
        // SAFETY: the allocations (no command runs now: the queue is idle).
        unsafe {
            a.write_bytes(0, 16);
            b.write_bytes(0, 16);
        }
        check(ext!(enqueue(0, null_mut(), cb, 0, null(), null_mut())), "enqueue");
        check(call!(clFinish(q)), "clFinish");
        // SAFETY: as above.
        let (av, bv) =
            unsafe { (std::slice::from_raw_parts(a, 16).to_vec(), std::slice::from_raw_parts(b, 16).to_vec()) };
        assert!(av.iter().all(|&w| w == pattern), "round {round}: {av:x?}");
        assert_eq!(bv[..8], [pattern; 8], "round {round}");
        assert_eq!(bv[8..], [0; 8], "round {round}");
    }
    check(ext!(release(cb)), "release");
    call!(clSVMFree(ctx, a.cast()));
    call!(clSVMFree(ctx, b.cast()));
    check(call!(clReleaseCommandQueue(q)), "release queue");
    check(call!(clReleaseContext(ctx)), "release context");
}
