//! Sub-devices (OpenCL 3.0 §4.3) through Debian's ICD loader: `clCreateSubDevices` over the
//! emulator's host threads, the device queries of a sub-device, reference counting, contexts,
//! queues and programs on sub-devices, and launches that run on their own share of the threads
//! (observed through the launch statistics' `host_threads`, `include/CL/cl_ventus.h`).
//!
//! The partitioning tests need a device with several threads whatever `VENTUS_THREADS` the
//! suite runs with: each re-runs itself in a child test process with `VENTUS_THREADS=4`
//! ([`with_threads`]). The first test checks the device as configured.

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

/// `CL_EVENT_STATISTICS_VENTUS` (include/CL/cl_ventus.h).
const CL_EVENT_STATISTICS_VENTUS: cl_event_info = 0x7F10;

/// The environment variable that marks a child test process.
const CHILD: &str = "ICD_SUB_DEVICES_CHILD";

/// Runs `body` in a child process of this test binary whose device has `threads` host threads
/// (`VENTUS_THREADS`), and asserts that the child ran the test `name` and passed.
fn with_threads(name: &str, threads: usize, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        let units: cl_uint = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_COMPUTE_UNITS);
        assert_eq!(units as usize, threads, "the child's device has VENTUS_THREADS compute units");
        body();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("VENTUS_THREADS", threads.to_string())
        .output()
        .expect("run the test binary");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "child test `{name}` with {threads} threads failed:\n{text}");
    assert!(text.contains("test result: ok. 1 passed"), "child did not run `{name}`:\n{text}");
}

/// `clCreateSubDevices(parent, props)`: the error code, or the new sub-devices (the count
/// query first, then the creation, which must agree).
fn partition(parent: cl_device_id, props: &[cl_device_partition_property]) -> Result<Vec<cl_device_id>, cl_int> {
    let mut n = 0;
    let code = call!(clCreateSubDevices(parent, props.as_ptr(), 0, null_mut(), &mut n));
    if code != CL_SUCCESS {
        return Err(code);
    }
    let mut subs = vec![null_mut(); n as usize];
    let mut n2 = 0;
    check(call!(clCreateSubDevices(parent, props.as_ptr(), n, subs.as_mut_ptr(), &mut n2)), "clCreateSubDevices");
    assert_eq!(n, n2, "count query and creation agree");
    Ok(subs)
}

fn units(d: cl_device_id) -> cl_uint {
    info_value(cl().clGetDeviceInfo, d, CL_DEVICE_MAX_COMPUTE_UNITS)
}

fn parent(d: cl_device_id) -> cl_device_id {
    info_value(cl().clGetDeviceInfo, d, CL_DEVICE_PARENT_DEVICE)
}

fn ref_count(d: cl_device_id) -> cl_uint {
    info_value(cl().clGetDeviceInfo, d, CL_DEVICE_REFERENCE_COUNT)
}

fn partition_type(d: cl_device_id) -> Vec<cl_device_partition_property> {
    info_vec(cl().clGetDeviceInfo, d, CL_DEVICE_PARTITION_TYPE)
}

fn release_all(devices: &[cl_device_id]) {
    for &d in devices {
        check(call!(clReleaseDevice(d)), "clReleaseDevice");
    }
}

fn context_of(devices: &[cl_device_id]) -> cl_context {
    let mut err = 0;
    let c = call!(clCreateContext(null(), devices.len() as cl_uint, devices.as_ptr(), None, null_mut(), &mut err));
    check(err, "clCreateContext");
    c
}

fn queue(ctx: cl_context, d: cl_device_id) -> cl_command_queue {
    let mut err = 0;
    let q = call!(clCreateCommandQueueWithProperties(ctx, d, null(), &mut err));
    check(err, "clCreateCommandQueueWithProperties");
    q
}

fn program(ctx: cl_context, src: &str, options: &str) -> cl_program {
    let (text, opts) = (CString::new(src).unwrap(), CString::new(options).unwrap());
    let mut err = 0;
    let mut strings = [text.as_ptr()];
    let p = call!(clCreateProgramWithSource(ctx, 1, strings.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clBuildProgram(p, 0, null(), opts.as_ptr(), None, null_mut())), "clBuildProgram");
    p
}

fn kernel(p: cl_program, name: &str) -> cl_kernel {
    let name = CString::new(name).unwrap();
    let mut err = 0;
    let k = call!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    k
}

fn set_mem(k: cl_kernel, i: cl_uint, m: &cl_mem) {
    check(call!(clSetKernelArg(k, i, size_of::<cl_mem>(), m as *const cl_mem as *const c_void)), "clSetKernelArg");
}

/// Launches `k` over `global` work-items in work-groups of `local` and waits: the host threads
/// the launch ran on (from its statistics).
fn launch_threads(q: cl_command_queue, k: cl_kernel, global: usize, local: usize) -> u64 {
    let mut e = null_mut();
    check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, &local, 0, null(), &mut e)), "launch");
    check(call!(clWaitForEvents(1, &e)), "clWaitForEvents");
    let mut st = [0u64; 12];
    let code = call!(clGetEventInfo(e, CL_EVENT_STATISTICS_VENTUS, 96, st.as_mut_ptr() as *mut c_void, null_mut()));
    check(code, "statistics");
    check(call!(clReleaseEvent(e)), "clReleaseEvent");
    assert_eq!(st[0], (global / local) as u64, "work-groups: {st:?}");
    st[11]
}

const EQUALLY: cl_device_partition_property = CL_DEVICE_PARTITION_EQUALLY as _;
const BY_COUNTS: cl_device_partition_property = CL_DEVICE_PARTITION_BY_COUNTS as _;
const LIST_END: cl_device_partition_property = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END as _;

/// The root device as configured: partitionable into one sub-device per thread when it has
/// several, not at all with one; the spec's error clauses either way.
#[test]
fn the_root_device_offers_partitions_its_threads_allow() {
    let root = device();
    let n = units(root);
    let props: Vec<cl_device_partition_property> = info_vec(cl().clGetDeviceInfo, root, CL_DEVICE_PARTITION_PROPERTIES);
    let max: cl_uint = info_value(cl().clGetDeviceInfo, root, CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    let domains: cl_device_affinity_domain =
        info_value(cl().clGetDeviceInfo, root, CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
    assert_eq!(domains, 0, "no affinity domains offered");
    assert!(parent(root).is_null());
    assert!(partition_type(root).is_empty(), "a root device has no partition type");
    if n >= 2 {
        assert_eq!((props, max), (vec![EQUALLY, BY_COUNTS], n));
        let subs = partition(root, &[EQUALLY, 1, 0]).unwrap();
        assert_eq!(subs.len(), n as usize);
        assert!(subs.iter().all(|&s| units(s) == 1 && parent(s) == root));
        release_all(&subs);
    } else {
        assert_eq!((props, max), (vec![0], 0));
        expect_err(partition(root, &[EQUALLY, 1, 0]).unwrap_err(), CL_DEVICE_PARTITION_FAILED, "one thread");
        expect_err(
            partition(root, &[BY_COUNTS, 1, LIST_END, 0]).unwrap_err(),
            CL_DEVICE_PARTITION_FAILED,
            "one thread",
        );
    }
    let affinity = [CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN as _, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE as _, 0];
    expect_err(partition(root, &affinity).unwrap_err(), CL_INVALID_VALUE, "affinity domains");
    expect_err(partition(root, &[0x7777, 1, 0]).unwrap_err(), CL_INVALID_VALUE, "an unknown scheme");
    let mut count = 0;
    expect_err(call!(clCreateSubDevices(root, null(), 0, null_mut(), &mut count)), CL_INVALID_VALUE, "NULL properties");
    // (The loader dispatches through the handle: only NULL can stand for an invalid device.)
    let props = [EQUALLY, 1, 0];
    let code = call!(clCreateSubDevices(null_mut(), props.as_ptr(), 0, null_mut(), &mut count));
    expect_err(code, CL_INVALID_DEVICE, "NULL device");
    // Root devices are not reference counted.
    check(call!(clRetainDevice(root)), "clRetainDevice(root)");
    check(call!(clReleaseDevice(root)), "clReleaseDevice(root)");
    assert_eq!(ref_count(root), 1);
    expect_err(call!(clReleaseDevice(null_mut())), CL_INVALID_DEVICE, "clReleaseDevice(NULL)");
    expect_err(call!(clRetainDevice(null_mut())), CL_INVALID_DEVICE, "clRetainDevice(NULL)");
}

/// Both schemes on a 4-thread device: the sub-devices' queries, nesting, reference counts and
/// every error clause of `clCreateSubDevices`.
#[test]
fn partitions_equally_and_by_counts() {
    with_threads("partitions_equally_and_by_counts", 4, || {
        let root = device();
        let halves = partition(root, &[EQUALLY, 2, 0]).unwrap();
        assert_eq!(halves.len(), 2);
        for &h in &halves {
            assert_eq!((units(h), parent(h), partition_type(h)), (2, root, vec![EQUALLY, 2, 0]));
            assert_eq!(ref_count(h), 1);
            let max: cl_uint = info_value(cl().clGetDeviceInfo, h, CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
            assert_eq!(max, 2);
        }
        assert_eq!(partition(root, &[EQUALLY, 3, 0]).unwrap().len(), 1, "one sub-device of 3 threads fits");
        check(call!(clRetainDevice(halves[0])), "clRetainDevice");
        assert_eq!(ref_count(halves[0]), 2);
        check(call!(clReleaseDevice(halves[0])), "clReleaseDevice");
        assert_eq!(ref_count(halves[0]), 1);
        release_all(&halves);
        expect_err(call!(clRetainDevice(halves[0])), CL_INVALID_DEVICE, "a released sub-device");

        let split = partition(root, &[BY_COUNTS, 1, 3, LIST_END, 0]).unwrap();
        assert_eq!(split.iter().map(|&d| units(d)).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(partition_type(split[1]), vec![BY_COUNTS, 1, 3, LIST_END]);
        // A one-thread sub-device cannot be partitioned; a three-thread one nests.
        let one: Vec<cl_device_partition_property> =
            info_vec(cl().clGetDeviceInfo, split[0], CL_DEVICE_PARTITION_PROPERTIES);
        assert_eq!(one, vec![0]);
        expect_err(partition(split[0], &[EQUALLY, 1, 0]).unwrap_err(), CL_DEVICE_PARTITION_FAILED, "1 thread");
        let inner = partition(split[1], &[EQUALLY, 1, 0]).unwrap();
        assert_eq!(inner.len(), 3);
        assert!(inner.iter().all(|&d| units(d) == 1 && parent(d) == split[1]));
        release_all(&inner);

        // The error clauses, in the CTS's order of precedence.
        expect_err(partition(root, &[EQUALLY, 4, 0]).unwrap_err(), CL_DEVICE_PARTITION_FAILED, "the whole device");
        expect_err(partition(root, &[BY_COUNTS, 4, LIST_END, 0]).unwrap_err(), CL_DEVICE_PARTITION_FAILED, "whole");
        expect_err(partition(root, &[EQUALLY, 5, 0]).unwrap_err(), CL_INVALID_DEVICE_PARTITION_COUNT, "5 of 4");
        expect_err(partition(root, &[EQUALLY, 0, 0]).unwrap_err(), CL_INVALID_VALUE, "0 per sub-device");
        expect_err(partition(root, &[EQUALLY, 1, 7]).unwrap_err(), CL_INVALID_VALUE, "unterminated");
        for counts in [&[2, 3][..], &[5], &[-1], &[1, 1, 1, 1, 1], &[]] {
            let mut props = vec![BY_COUNTS];
            props.extend_from_slice(counts);
            props.extend([LIST_END, 0]);
            expect_err(partition(root, &props).unwrap_err(), CL_INVALID_DEVICE_PARTITION_COUNT, &format!("{counts:?}"));
        }
        let props = [EQUALLY, 1, 0];
        let mut out = [null_mut(); 4];
        let code = call!(clCreateSubDevices(root, props.as_ptr(), 3, out.as_mut_ptr(), null_mut()));
        expect_err(code, CL_INVALID_VALUE, "room for 3 of 4 sub-devices");
        assert!(out.iter().all(|d| d.is_null()), "nothing written on error");
        release_all(&split);
    });
}

const BUMP: &str = "kernel void bump(global int *data, int k) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 3 + k;
}";

/// Launches run on their device's share of the host threads: a 64-work-group launch uses all
/// 4 on the root device, 1 and 3 on sub-devices of 1 and 3, 1 on a sub-device of a sub-device;
/// buffers and programs are shared by the devices of one context.
#[test]
fn launches_use_only_their_threads() {
    with_threads("launches_use_only_their_threads", 4, || {
        let root = device();
        let split = partition(root, &[BY_COUNTS, 1, 3, LIST_END, 0]).unwrap();
        let inner = partition(split[1], &[BY_COUNTS, 1, 2, LIST_END, 0]).unwrap();
        let devices = [root, split[0], split[1], inner[0], inner[1]];
        let ctx = context_of(&devices);
        let p = program(ctx, BUMP, "");
        let k = kernel(p, "bump");
        const N: usize = 64 * 32;
        let mut err = 0;
        let data: Vec<i32> = (0..N as i32).collect();
        let m = call!(clCreateBuffer(
            ctx,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            4 * N,
            data.as_ptr() as *mut c_void,
            &mut err
        ));
        check(err, "clCreateBuffer");
        set_mem(k, 0, &m);
        let mut want = data.clone();
        for (i, &d) in devices.iter().enumerate() {
            let q = queue(ctx, d);
            let kk = i as i32 + 1;
            check(call!(clSetKernelArg(k, 1, 4, &kk as *const i32 as *const c_void)), "arg 1");
            let threads = launch_threads(q, k, N, 32);
            assert_eq!(threads, u64::from(units(d)), "device {i} ({} compute units)", units(d));
            for w in &mut want {
                *w = w.wrapping_mul(3).wrapping_add(kk);
            }
            let mut got = vec![0i32; N];
            let code =
                call!(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4 * N, got.as_mut_ptr().cast(), 0, null(), null_mut()));
            check(code, "clEnqueueReadBuffer");
            assert_eq!(got, want, "after the launch on device {i}");
            check(call!(clReleaseCommandQueue(q)), "clReleaseCommandQueue");
        }
        check(call!(clReleaseMemObject(m)), "clReleaseMemObject");
        check(call!(clReleaseKernel(k)), "clReleaseKernel");
        check(call!(clReleaseProgram(p)), "clReleaseProgram");
        check(call!(clReleaseContext(ctx)), "clReleaseContext");
        release_all(&inner);
        release_all(&split);
    });
}

/// Two sub-devices' queues in one context, each ordered after the other's previous command by
/// events: both see one buffer; program-scope variables are per device.
#[test]
fn sub_device_queues_share_memory_and_keep_their_own_variables() {
    with_threads("sub_device_queues_share_memory_and_keep_their_own_variables", 4, || {
        let subs = partition(device(), &[EQUALLY, 2, 0]).unwrap();
        let ctx = context_of(&subs);
        let src = "global int launches;
            kernel void count(global int *out) {
                if (get_global_id(0) == 0) out[0] = ++launches;
            }";
        let p = program(ctx, src, "-cl-std=CL3.0");
        let k = kernel(p, "count");
        let mut err = 0;
        let m = call!(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, null_mut(), &mut err));
        check(err, "clCreateBuffer");
        set_mem(k, 0, &m);
        let qs = [queue(ctx, subs[0]), queue(ctx, subs[1])];
        // Launches on devices 0, 0, 1, 0, 1: each reads its own device's counter.
        let mut prev: cl_event = null_mut();
        let mut counts = Vec::new();
        for &d in &[0usize, 0, 1, 0, 1] {
            let (global, mut e) = (32usize, null_mut());
            let (deps, list) = if prev.is_null() { (0, null()) } else { (1, &prev as *const cl_event) };
            let code = call!(clEnqueueNDRangeKernel(qs[d], k, 1, null(), &global, &global, deps, list, &mut e));
            check(code, "launch");
            let mut v = 0i32;
            let code = call!(clEnqueueReadBuffer(
                qs[d],
                m,
                CL_TRUE,
                0,
                4,
                &mut v as *mut i32 as *mut c_void,
                1,
                &e,
                null_mut()
            ));
            check(code, "clEnqueueReadBuffer");
            counts.push(v);
            if !prev.is_null() {
                check(call!(clReleaseEvent(prev)), "clReleaseEvent");
            }
            prev = e;
        }
        assert_eq!(counts, [1, 2, 1, 3, 2], "a counter per device");
        check(call!(clReleaseEvent(prev)), "clReleaseEvent");
        for q in qs {
            check(call!(clReleaseCommandQueue(q)), "clReleaseCommandQueue");
        }
        check(call!(clReleaseMemObject(m)), "clReleaseMemObject");
        check(call!(clReleaseKernel(k)), "clReleaseKernel");
        check(call!(clReleaseProgram(p)), "clReleaseProgram");
        check(call!(clReleaseContext(ctx)), "clReleaseContext");
        release_all(&subs);
    });
}

/// A context holds its sub-devices: after the application releases its references the
/// handles `CL_CONTEXT_DEVICES` returns still work, until the context goes. Duplicates in
/// `clCreateContext` are ignored; a queue on a sub-device may serve a context made for its
/// parent (a deliberate leniency, as in pocl).
#[test]
fn contexts_keep_their_sub_devices() {
    with_threads("contexts_keep_their_sub_devices", 4, || {
        let subs = partition(device(), &[EQUALLY, 1, 0]).unwrap();
        let ctx = context_of(&[subs[0], subs[1], subs[0]]);
        let n: cl_uint = info_value(cl().clGetContextInfo, ctx, CL_CONTEXT_NUM_DEVICES);
        assert_eq!(n, 2, "duplicates ignored");
        assert_eq!(ref_count(subs[0]), 2, "the context's reference");
        release_all(&subs);
        let listed: Vec<cl_device_id> = info_vec(cl().clGetContextInfo, ctx, CL_CONTEXT_DEVICES);
        assert_eq!(listed, subs[..2]);
        assert_eq!(ref_count(listed[0]), 1);
        let q = queue(ctx, listed[1]);
        check(call!(clReleaseCommandQueue(q)), "clReleaseCommandQueue");
        check(call!(clReleaseContext(ctx)), "clReleaseContext");
        let mut u: cl_uint = 0;
        let code = call!(clGetDeviceInfo(
            subs[0],
            CL_DEVICE_MAX_COMPUTE_UNITS,
            4,
            &mut u as *mut cl_uint as *mut c_void,
            null_mut()
        ));
        expect_err(code, CL_INVALID_DEVICE, "a sub-device after its last context");

        // A context for the root device serves a queue on a sub-device of it, and kernels run.
        let root = device();
        let ctx = context_of(&[root]);
        let subs = partition(root, &[EQUALLY, 2, 0]).unwrap();
        let p = program(ctx, BUMP, "");
        let k = kernel(p, "bump");
        let mut err = 0;
        let mut data = [5i32; 64];
        let m = call!(clCreateBuffer(
            ctx,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            4 * 64,
            data.as_mut_ptr().cast(),
            &mut err
        ));
        check(err, "clCreateBuffer");
        set_mem(k, 0, &m);
        let one = 1i32;
        check(call!(clSetKernelArg(k, 1, 4, &one as *const i32 as *const c_void)), "arg 1");
        let q = queue(ctx, subs[1]);
        assert_eq!(launch_threads(q, k, 64, 32), 2);
        let code =
            call!(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4 * 64, data.as_mut_ptr().cast(), 0, null(), null_mut()));
        check(code, "clEnqueueReadBuffer");
        assert_eq!(data, [16; 64]);
        let mut wg = 0usize;
        let code = call!(clGetKernelWorkGroupInfo(
            k,
            subs[1],
            CL_KERNEL_WORK_GROUP_SIZE,
            size_of::<usize>(),
            &mut wg as *mut usize as *mut c_void,
            null_mut()
        ));
        check(code, "clGetKernelWorkGroupInfo on a sub-device of the program's device");
        assert!(wg >= 32);
        check(call!(clReleaseCommandQueue(q)), "clReleaseCommandQueue");
        check(call!(clReleaseMemObject(m)), "clReleaseMemObject");
        check(call!(clReleaseKernel(k)), "clReleaseKernel");
        check(call!(clReleaseProgram(p)), "clReleaseProgram");
        check(call!(clReleaseContext(ctx)), "clReleaseContext");
        release_all(&subs);
    });
}
