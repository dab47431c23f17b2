//! Spec clauses and behaviours that the Khronos CTS (`api`, `computeinfo`, `basic`,
//! `math_brute_force`) and pocl's tests found wrong, each checked through the ICD loader:
//! argument validation of the image, sampler, pipe and SVM entry points (the last two on a
//! device without those features), device types and context properties, sub-device properties, kernel
//! arguments that do not keep memory objects alive, stale handles, `float3` arguments of size
//! 12, work-item built-ins with a constant out-of-range dimension, `atan2pi` on the axes and the
//! quotient bits of `remquo`.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;

use cl::*;
use clrun::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Calls a loader entry point: `call!(clFoo(args))`. Contract of every use in this file: handles
/// are live objects or deliberately invalid ones (which the driver must reject), and every
/// pointer argument is NULL or points to live memory at least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

fn buffer(ctx: cl_context, size: usize) -> cl_mem {
    let mut err = 0;
    let m = call!(clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, null_mut(), &mut err));
    check(err, "clCreateBuffer");
    m
}

/// Builds `src` in `ctx` and creates kernel `name`.
fn kernel(ctx: cl_context, src: &str, name: &str) -> (cl_program, cl_kernel) {
    let (text, mut err) = (CString::new(src).unwrap(), 0);
    let mut ptrs = [text.as_ptr()];
    let p = call!(clCreateProgramWithSource(ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clBuildProgram(p, 0, null(), null(), None, null_mut())), "clBuildProgram");
    let name = CString::new(name).unwrap();
    let k = call!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    (p, k)
}

#[test]
fn image_sampler_pipe_and_svm_arguments_are_validated() {
    let ctx = context();
    let q = queue(ctx, 0);
    let buf = buffer(ctx, 64);
    let (mut n, mut err) = (77u32, 0);
    let mut formats = [cl_image_format { image_channel_order: 0, image_channel_data_type: 0 }; 4];
    // Formats for every image type and access flag; at most `num_entries` are written.
    for ty in [CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D, CL_MEM_OBJECT_IMAGE2D_ARRAY] {
        for flags in [CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE, CL_MEM_KERNEL_READ_AND_WRITE] {
            n = 77;
            formats[3].image_channel_order = 0x5555;
            check(call!(clGetSupportedImageFormats(ctx, flags, ty, 3, formats.as_mut_ptr(), &mut n)), "formats");
            assert!(n > 3, "the formats offered");
            assert_eq!(formats[3].image_channel_order, 0x5555, "only num_entries formats are written");
        }
    }
    let code =
        call!(clGetSupportedImageFormats(null_mut(), CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, null_mut(), &mut n));
    expect_err(code, CL_INVALID_CONTEXT, "formats: NULL context");
    let code = call!(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER, 0, null_mut(), &mut n));
    expect_err(code, CL_INVALID_VALUE, "formats: buffer is not an image type");
    let code = call!(clGetSupportedImageFormats(ctx, 1 << 40, CL_MEM_OBJECT_IMAGE2D, 0, null_mut(), &mut n));
    expect_err(code, CL_INVALID_VALUE, "formats: unknown flag");
    let code = call!(clGetSupportedImageFormats(ctx, 0, CL_MEM_OBJECT_IMAGE2D, 0, formats.as_mut_ptr(), &mut n));
    expect_err(code, CL_INVALID_VALUE, "formats: 0 entries with an array");

    // Creation: invalid context and descriptors first.
    let fmt = cl_image_format { image_channel_order: CL_RGBA, image_channel_data_type: CL_UNORM_INT8 };
    // SAFETY: a plain C struct; all-zero is a valid (if meaningless) descriptor.
    let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 4;
    desc.image_height = 4;
    call!(clCreateImage(null_mut(), CL_MEM_READ_ONLY, &fmt, &desc, null_mut(), &mut err));
    expect_err(err, CL_INVALID_CONTEXT, "clCreateImage: NULL context");
    call!(clCreateImage(ctx, CL_MEM_READ_ONLY, null(), &desc, null_mut(), &mut err));
    expect_err(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "clCreateImage: NULL format");
    call!(clCreateImage(ctx, CL_MEM_READ_ONLY, &fmt, null(), null_mut(), &mut err));
    expect_err(err, CL_INVALID_IMAGE_DESCRIPTOR, "clCreateImage: NULL descriptor");
    let img = call!(clCreateImage(ctx, CL_MEM_READ_ONLY, &fmt, &desc, null_mut(), &mut err));
    check(err, "clCreateImage");
    call!(clReleaseMemObject(img));

    // A buffer is not an image; queues are checked first.
    let mut size = 0usize;
    let code = call!(clGetImageInfo(buf, CL_IMAGE_WIDTH, 8, &mut size as *mut usize as *mut c_void, null_mut()));
    expect_err(code, CL_INVALID_MEM_OBJECT, "clGetImageInfo(buffer)");
    let (origin, region) = ([0usize; 3], [1usize; 3]);
    let mut px = [0u8; 16];
    let mut read = |q, m| {
        call!(clEnqueueReadImage(
            q,
            m,
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            0,
            px.as_mut_ptr() as *mut c_void,
            0,
            null(),
            null_mut()
        ))
    };
    expect_err(read(null_mut(), buf), CL_INVALID_COMMAND_QUEUE, "read image: NULL queue");
    expect_err(read(q, buf), CL_INVALID_MEM_OBJECT, "read image of a buffer");
    let code =
        call!(clEnqueueCopyBufferToImage(q, buf, buf, 0, origin.as_ptr(), region.as_ptr(), 0, null(), null_mut()));
    expect_err(code, CL_INVALID_MEM_OBJECT, "copy buffer to a buffer as image");
    call!(clEnqueueMapImage(
        q,
        buf,
        CL_TRUE,
        CL_MAP_READ,
        origin.as_ptr(),
        region.as_ptr(),
        &mut size,
        null_mut(),
        0,
        null(),
        null_mut(),
        &mut err
    ));
    expect_err(err, CL_INVALID_MEM_OBJECT, "map a buffer as image");

    // Samplers: arguments; a buffer handle is not a sampler.
    call!(clCreateSampler(null_mut(), CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &mut err));
    expect_err(err, CL_INVALID_CONTEXT, "sampler: NULL context");
    call!(clCreateSampler(ctx, CL_FALSE, 0x1234, CL_FILTER_NEAREST, &mut err));
    expect_err(err, CL_INVALID_VALUE, "sampler: bad addressing mode");
    let smp = call!(clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &mut err));
    check(err, "clCreateSampler");
    check(call!(clReleaseSampler(smp)), "clReleaseSampler");
    let props = [CL_SAMPLER_FILTER_MODE as cl_sampler_properties, 0x9999, 0];
    call!(clCreateSamplerWithProperties(ctx, props.as_ptr(), &mut err));
    expect_err(err, CL_INVALID_VALUE, "sampler: bad filter property");
    expect_err(call!(clRetainSampler(buf as cl_sampler)), CL_INVALID_SAMPLER, "retain a buffer as sampler");
    expect_err(call!(clReleaseSampler(null_mut())), CL_INVALID_SAMPLER, "release NULL sampler");

    // Pipes and SVM.
    let code = call!(clGetPipeInfo(buf, CL_PIPE_PACKET_SIZE, 4, &mut n as *mut u32 as *mut c_void, null_mut()));
    expect_err(code, CL_INVALID_MEM_OBJECT, "clGetPipeInfo(buffer)");
    call!(clCreatePipe(null_mut(), 0, 4, 4, null(), &mut err));
    expect_err(err, CL_INVALID_CONTEXT, "pipe: NULL context");
    call!(clCreatePipe(ctx, 0, 4, 4, null(), &mut err));
    expect_err(err, CL_INVALID_OPERATION, "pipe: no pipe support");
    assert!(call!(clSVMAlloc(null_mut(), CL_MEM_READ_WRITE, 64, 0)).is_null(), "SVM: NULL context");
    let atomics = CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;
    assert!(call!(clSVMAlloc(ctx, atomics, 64, 0)).is_null(), "SVM atomics are not offered");
    let mut word = 0u32;
    let p = &mut word as *mut u32 as *mut c_void;
    expect_err(
        call!(clEnqueueSVMMemcpy(null_mut(), CL_TRUE, p, p, 4, 0, null(), null_mut())),
        CL_INVALID_COMMAND_QUEUE,
        "SVM memcpy: NULL queue",
    );
    expect_err(
        call!(clEnqueueSVMMemcpy(q, CL_TRUE, p, p, 4, 0, null(), null_mut())),
        CL_MEM_COPY_OVERLAP,
        "SVM memcpy onto itself",
    );

    // Device-side queues.
    let d = device();
    expect_err(
        call!(clSetDefaultDeviceCommandQueue(null_mut(), d, q)),
        CL_INVALID_CONTEXT,
        "default queue: NULL context",
    );
    expect_err(call!(clSetDefaultDeviceCommandQueue(ctx, d, q)), CL_INVALID_OPERATION, "default device queue");

    check(call!(clReleaseMemObject(buf)), "release");
    check(call!(clReleaseCommandQueue(q)), "release queue");
    check(call!(clReleaseContext(ctx)), "release context");
}

#[test]
fn device_types_properties_and_partitions() {
    let (p, d) = (platform(), device());
    let (mut one, mut n, mut err) = (null_mut(), 0u32, 0);
    let code = call!(clGetDeviceIDs(p, 0, 1, &mut one, &mut n));
    expect_err(code, CL_INVALID_DEVICE_TYPE, "clGetDeviceIDs(type 0)");
    let props = [CL_CONTEXT_PLATFORM as cl_context_properties, p as cl_context_properties, 0];
    call!(clCreateContextFromType(props.as_ptr(), 0, None, null_mut(), &mut err));
    expect_err(err, CL_INVALID_DEVICE_TYPE, "clCreateContextFromType(type 0)");
    // CL_CONTEXT_INTEROP_USER_SYNC is a cl_bool.
    let sync = [CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties, 7, 0];
    call!(clCreateContext(sync.as_ptr(), 1, &d, None, null_mut(), &mut err));
    expect_err(err, CL_INVALID_PROPERTY, "INTEROP_USER_SYNC = 7");
    // Unknown or unsupported partition schemes are invalid values (tests/icd_sub_devices.rs
    // partitions).
    let (mut out, mut k) = ([null_mut(); 4], 0u32);
    let affinity =
        [CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NUMA as cl_device_partition_property, 0];
    for props in [[0x7777, 1, 0], affinity] {
        let code = call!(clCreateSubDevices(d, props.as_ptr(), 4, out.as_mut_ptr(), &mut k));
        expect_err(code, CL_INVALID_VALUE, &format!("clCreateSubDevices({:#x})", props[0]));
    }
}

static DESTROYED: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn on_destroy(_: cl_mem, _: *mut c_void) {
    DESTROYED.fetch_add(1, Ordering::SeqCst);
}

/// Setting a kernel argument does not retain the memory object: the application's last release
/// destroys it (its destructor callback runs) although the kernel still names it; launching the
/// kernel afterwards is then an argument error, not a use of freed memory.
#[test]
fn kernel_arguments_do_not_keep_buffers_alive() {
    let ctx = context();
    let (p, k) = kernel(ctx, "__kernel void t(__global int* d) { d[0] = 1; }", "t");
    let buf = buffer(ctx, 32);
    check(call!(clSetMemObjectDestructorCallback(buf, Some(on_destroy), null_mut())), "destructor");
    check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const c_void)), "arg");
    check(call!(clReleaseMemObject(buf)), "release");
    let start = Instant::now();
    while DESTROYED.load(Ordering::SeqCst) == 0 {
        assert!(start.elapsed() < Duration::from_secs(10), "the destructor callback never ran");
        std::thread::yield_now();
    }
    let q = queue(ctx, 0);
    let global = 1usize;
    let code = call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, null(), 0, null(), null_mut()));
    expect_err(code, CL_INVALID_KERNEL_ARGS, "launch with a destroyed buffer argument");
    for r in [
        call!(clReleaseKernel(k)),
        call!(clReleaseProgram(p)),
        call!(clReleaseCommandQueue(q)),
        call!(clReleaseContext(ctx)),
    ] {
        check(r, "release");
    }
}

/// A released handle stays invalid even when new objects of the same kind are created after it
/// (their handles never reuse its address while it is quarantined).
#[test]
fn stale_handles_stay_invalid() {
    let ctx = context();
    let stale = buffer(ctx, 16);
    check(call!(clReleaseMemObject(stale)), "release");
    let fresh: Vec<cl_mem> = (0..200).map(|_| buffer(ctx, 16)).collect();
    assert!(!fresh.contains(&stale), "a new buffer reuses a released handle's address");
    expect_err(call!(clRetainMemObject(stale)), CL_INVALID_MEM_OBJECT, "retain a released buffer");
    let mut size = 0usize;
    let code = call!(clGetMemObjectInfo(stale, CL_MEM_SIZE, 8, &mut size as *mut usize as *mut c_void, null_mut()));
    expect_err(code, CL_INVALID_MEM_OBJECT, "query a released buffer");
    for m in fresh {
        check(call!(clReleaseMemObject(m)), "release");
    }
    check(call!(clReleaseContext(ctx)), "release context");
    expect_err(call!(clRetainContext(ctx)), CL_INVALID_CONTEXT, "retain a released context");
}

/// A 3-component vector argument may be set with the size of 3 components (pocl and common
/// applications do); the fourth component is then zero.
#[test]
fn vec3_arguments_of_twelve_bytes() {
    let src = "__kernel void k(float3 v, int3 w, __global float* o) {
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = w.x + w.y + w.z; o[4] = vec_step(v); }";
    let v: Vec<u8> = [1.5f32, -2.0, 4.25].iter().flat_map(|x| x.to_le_bytes()).collect();
    let w: Vec<u8> = [10i32, 20, 30, 0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let out = run_source(src, "", "k", &[1], None, None, &[Arg::Val(v), Arg::Val(w), zeros(20)]);
    assert_eq!(read::<f32>(&out[2]), vec![1.5, -2.0, 4.25, 60.0, 4.0]);
}

/// `get_global_size(4)` and friends with a constant dimension past 2: the spec's defaults (1 for
/// sizes and group counts, 0 for ids and offsets), for constant and run-time dimensions.
#[test]
fn work_item_functions_out_of_range() {
    let src = "__kernel void k(__global uint* o, uint d) {
        o[0] = get_global_size(4); o[1] = get_global_id(4); o[2] = get_local_size(3);
        o[3] = get_local_id(5); o[4] = get_num_groups(7); o[5] = get_group_id(3);
        o[6] = get_global_offset(3); o[7] = get_global_size(d); o[8] = get_global_id(d);
        o[9] = get_local_size(d); o[10] = get_global_size(0); }";
    let out = run_source(src, "", "k", &[8], Some(&[4]), None, &[zeros(44), val(9u32)]);
    assert_eq!(read::<u32>(&out[0]), vec![1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 8]);
}

/// `atan2pi` is exact on the axes and diagonals at infinity; `remquo` keeps 7 quotient bits.
#[test]
fn atan2pi_axes_and_remquo_quotient_bits() {
    let src = "__kernel void k(__global float* r, __global int* q, __global const float* a) {
        int i = get_global_id(0); int qq;
        r[i] = atan2pi(a[2 * i], a[2 * i + 1]);
        r[i + 8] = remquo(a[2 * i], a[2 * i + 1], &qq); q[i] = qq; }";
    let inf = f32::INFINITY;
    let pairs = [
        (1.0f32, -0.0f32),
        (-1.0, -0.0),
        (1.0, 0.0),
        (-0.0, -2.0),
        (inf, inf),
        (-inf, -inf),
        (1000.0, 3.0),
        (-700.5, 1.5),
    ];
    let a: Vec<f32> = pairs.iter().flat_map(|&(y, x)| [y, x]).collect();
    let out = run_source(src, "", "k", &[8], None, None, &[zeros(64), zeros(32), buf(&a)]);
    let (r, q) = (read::<f32>(&out[0]), read::<i32>(&out[1]));
    assert_eq!(
        r[..6].iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [0.5f32, -0.5, 0.5, -1.0, 0.25, -0.75].map(f32::to_bits)
    );
    for (i, &(x, y)) in pairs.iter().enumerate().skip(6) {
        let n = (x / y).round_ties_even();
        let want_r = x - y * n;
        let mag = (n.abs() as i64 % 128) as i32;
        let want_q = if n < 0.0 { -mag } else { mag };
        assert_eq!((r[i + 8], q[i]), (want_r, want_q), "remquo({x}, {y})");
    }
}

type Messages = std::sync::Mutex<Vec<String>>;

unsafe extern "C" fn record(msg: *const std::ffi::c_char, _: *const c_void, _: usize, user: *mut c_void) {
    // SAFETY: `user` is the test's `Messages`, alive until its context is released; `msg` is a C
    // string valid for the call.
    let (m, s) = unsafe { (&*(user as *const Messages), std::ffi::CStr::from_ptr(msg)) };
    m.lock().unwrap().push(s.to_string_lossy().into_owned());
}

/// `__builtin_trap()` reached at run time faults its work-group (the launch's event fails, the
/// context's callback names the kernel and the trap); lanes that do not reach it are unaffected
/// in a launch where no lane does.
#[test]
fn builtin_trap_faults_the_work_group() {
    let messages: Box<Messages> = Box::default();
    let (d, mut err) = (device(), 0);
    let user = &*messages as *const Messages as *mut c_void;
    let ctx = call!(clCreateContext(null(), 1, &d, Some(record), user, &mut err));
    check(err, "clCreateContext");
    let q = queue(ctx, 0);
    let (p, k) = kernel(
        ctx,
        "__kernel void t(__global int* d) { int i = get_global_id(0); if (d[i] == 7) __builtin_trap(); d[i] += 1; }",
        "t",
    );
    let m = buffer(ctx, 4 * 64);
    let launch = |data: &[i32]| {
        let code = call!(clEnqueueWriteBuffer(
            q,
            m,
            CL_TRUE,
            0,
            4 * 64,
            data.as_ptr() as *const c_void,
            0,
            null(),
            null_mut()
        ));
        check(code, "write");
        check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg");
        let (global, local, mut e) = (64usize, 32usize, null_mut());
        check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, &local, 0, null(), &mut e)), "launch");
        let _ = call!(clWaitForEvents(1, &e));
        let status = event_status(e);
        check(call!(clReleaseEvent(e)), "release event");
        status
    };
    let mut data: Vec<i32> = (0..64).map(|i| i * 10).collect();
    assert_eq!(launch(&data), CL_COMPLETE, "no lane traps");
    data[40] = 7;
    assert!(launch(&data) < 0, "a lane reaches __builtin_trap()");
    let msgs = messages.lock().unwrap().clone();
    assert!(
        msgs.len() == 1
            && msgs[0].contains("`t`")
            && msgs[0].contains("__builtin_trap")
            && msgs[0].contains("work-group 1"),
        "{msgs:?}"
    );
    for r in [
        call!(clReleaseMemObject(m)),
        call!(clReleaseKernel(k)),
        call!(clReleaseProgram(p)),
        call!(clReleaseCommandQueue(q)),
        call!(clReleaseContext(ctx)),
    ] {
        check(r, "release");
    }
}

/// `CL_EVENT_STATISTICS_VENTUS` (include/CL/cl_ventus.h): a completed launch reports its
/// work-groups, barriers, divergent branches and bytes; other events have no statistics.
#[test]
fn launch_statistics_through_the_vendor_query() {
    let ctx = context();
    let q = queue(ctx, 0);
    let src = "__kernel void s(__global int* d, __local int* l) {
        int i = get_local_id(0); l[i] = d[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);
        if (i & 1) d[get_global_id(0)] = l[63 - i]; }";
    let (p, k) = kernel(ctx, src, "s");
    let m = buffer(ctx, 4 * 128);
    check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg 0");
    check(call!(clSetKernelArg(k, 1, 4 * 64, null())), "arg 1");
    let (global, local, mut e) = (128usize, 64usize, null_mut());
    check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, &local, 0, null(), &mut e)), "launch");
    check(call!(clWaitForEvents(1, &e)), "wait");
    let mut st = [0u64; 12];
    let code = call!(clGetEventInfo(e, CL_EVENT_STATISTICS_VENTUS, 96, st.as_mut_ptr() as *mut c_void, null_mut()));
    check(code, "statistics");
    let [groups, warp_insts, lane_insts, width, divergent, barriers, global_b, local_b, _private, ns, longest, threads] =
        st;
    assert!(longest <= ns, "one work-group's CPU time within the launch's host time: {st:?}");
    let units: cl_uint = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_COMPUTE_UNITS);
    assert!((1..=u64::from(units.min(2))).contains(&threads), "2 work-groups on at most {units} threads: {st:?}");
    assert_eq!((groups, barriers, width), (2, 2, 32), "{st:?}");
    assert!(divergent >= 4, "each of the 4 warps splits at `i & 1`: {st:?}");
    assert!(lane_insts < warp_insts * width, "divergence lowers lane utilisation: {st:?}");
    // Local: 128 stores and 64 loads (odd lanes) of 4 bytes. Global: as many, plus the kernel's
    // own argument and metadata loads.
    assert_eq!(local_b, 128 * 4 + 64 * 4, "{st:?}");
    assert!(global_b >= 128 * 4 + 64 * 4, "{st:?}");
    let mut small = [0u64; 2];
    let code = call!(clGetEventInfo(e, CL_EVENT_STATISTICS_VENTUS, 16, small.as_mut_ptr() as *mut c_void, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "statistics into a too small buffer");
    let (mut w, word) = (null_mut(), 0u32);
    check(
        call!(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, &word as *const u32 as *const c_void, 0, null(), &mut w)),
        "write",
    );
    let code = call!(clGetEventInfo(w, CL_EVENT_STATISTICS_VENTUS, 96, st.as_mut_ptr() as *mut c_void, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "statistics of a buffer write");
    for r in [
        call!(clReleaseEvent(e)),
        call!(clReleaseEvent(w)),
        call!(clReleaseMemObject(m)),
        call!(clReleaseKernel(k)),
        call!(clReleaseProgram(p)),
        call!(clReleaseCommandQueue(q)),
        call!(clReleaseContext(ctx)),
    ] {
        check(r, "release");
    }
}

/// `CL_KERNEL_ATTRIBUTES` names the `vec_type_hint` type as written, signedness included
/// (SPIR-V does not carry it; the source does).
#[test]
fn vec_type_hint_keeps_its_signedness() {
    let ctx = context();
    for (ty, name) in [("uint4", "a"), ("int4", "b"), ("ulong2", "c"), ("uchar16", "d"), ("float8", "e")] {
        let src = format!(
            "__kernel __attribute__((vec_type_hint({ty}))) __attribute__((reqd_work_group_size(1,1,1))) void {name}(__global int* p) {{ p[0] = 1; }}"
        );
        let (p, k) = kernel(ctx, &src, name);
        let attrs = info_string(cl().clGetKernelInfo, k, CL_KERNEL_ATTRIBUTES);
        assert!(attrs.contains(&format!("vec_type_hint({ty})")), "{ty}: {attrs}");
        check(call!(clReleaseKernel(k)), "release");
        check(call!(clReleaseProgram(p)), "release");
    }
    check(call!(clReleaseContext(ctx)), "release");
}

/// Non-uniform work-groups need OpenCL C 2.0 or later: a program built as OpenCL C 1.x (the
/// default) rejects a global size that the local size does not divide.
#[test]
fn non_uniform_ndranges_need_opencl_c_2() {
    let ctx = context();
    let q = queue(ctx, 0);
    let m = buffer(ctx, 4 * 128);
    for (options, uniform_only) in
        [("", true), ("-cl-std=CL1.2", true), ("-cl-std=CL2.0", false), ("-cl-std=CL3.0", false)]
    {
        let (text, mut err) =
            (CString::new("__kernel void k(__global int* d) { d[get_global_id(0)] = 1; }").unwrap(), 0);
        let mut ptrs = [text.as_ptr()];
        let p = call!(clCreateProgramWithSource(ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
        let opts = CString::new(options).unwrap();
        check(call!(clBuildProgram(p, 0, null(), opts.as_ptr(), None, null_mut())), "build");
        let k = call!(clCreateKernel(p, c"k".as_ptr(), &mut err));
        check(err, "clCreateKernel");
        check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg");
        let (global, local) = (100usize, 32usize);
        let code = call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, &local, 0, null(), null_mut()));
        if uniform_only {
            expect_err(code, CL_INVALID_WORK_GROUP_SIZE, &format!("100 / 32 with {options:?}"));
        } else {
            check(code, &format!("100 / 32 with {options:?}"));
        }
        // Without a local size the driver picks one that divides the global size.
        check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, null(), 0, null(), null_mut())), "local NULL");
        check(call!(clFinish(q)), "finish");
        check(call!(clReleaseKernel(k)), "release");
        check(call!(clReleaseProgram(p)), "release");
    }
    check(call!(clReleaseMemObject(m)), "release");
    check(call!(clReleaseCommandQueue(q)), "release");
    check(call!(clReleaseContext(ctx)), "release");
}
