//! The same OpenCL C kernels through our ICD and through pocl (when Debian's `pocl-opencl-icd` is
//! installed), side by side, through the ICD loader exactly as an application runs them.
//!
//! Figures (each the median of [`runs()`] interleaved runs: ours, pocl, ours, pocl, …):
//! * kernel time (`CL_PROFILING_COMMAND_START` → `END`) of compute-bound kernels (an ALU loop,
//!   a matmul with `__local` tiles, n-body) and memory-bound ones (saxpy, a 5-point stencil), and
//!   the ratio ours / pocl;
//! * an empty 1-work-group launch, `clEnqueueNDRangeKernel` to event complete (wall time);
//! * a loop of 1,000 small launches (256 work-items each) and one `clFinish` (wall time);
//! * the same 1,000 launches recorded once in a command buffer (`cl_khr_command_buffer`) and
//!   replayed by one `clEnqueueCommandBufferKHR` + `clFinish` (wall time, recording excluded;
//!   ours only: the installed pocl's command buffers predate the 0.9.8 signatures);
//! * work-group sums of 1 M ints in groups of 256, written with `__local` memory and barriers
//!   (both drivers) and with `work_group_reduce_add` (ours only: pocl 3.1 cannot build it);
//! * a cold build of a small kernel (a source no cache has seen; wall time, see [`cold_build`]);
//! * emulated lane-instructions per second of the ALU loop, from our launch statistics
//!   (`CL_EVENT_STATISTICS_VENTUS`), per emulator thread.
//!
//! Every result is checked against a host computation (a wrong kernel would make the figures
//! meaningless). Run with `cargo bench --bench vs_pocl`; `VENTUS_THREADS` selects our emulator
//! threads (default: all cores). Prints a table; asserts nothing about time.
#![allow(clippy::missing_safety_doc)]

#[path = "../tests/common/cl.rs"]
#[allow(unused_imports)]
mod cl;

#[path = "common/pair.rs"]
#[allow(dead_code)]
mod pair;

use cl::*;
use pair::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

/// Interleaved runs per figure (`VS_POCL_RUNS` overrides it, e.g. for a profile of one workload;
/// `VS_POCL_ALL=1` prints every run's time, not only the medians).
fn runs() -> usize {
    std::env::var("VS_POCL_RUNS").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(5)
}

const SOURCE: &str = r#"
kernel void wg_sum_local(global const int *in, global int *out, local int *s) {
    int l = get_local_id(0), n = get_local_size(0);
    s[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = n / 2; stride > 0; stride >>= 1) {
        if (l < stride) s[l] += s[l + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = s[0];
}
kernel void alu(global float *out, int iters) {
    int i = get_global_id(0);
    float a = (float)i * 0.001f, b = 1.0f, c = 0.5f;
    int k = i;
    for (int n = 0; n < iters; n++) {
        a = a * 0.5f + 1.0f;
        b = b * 0.75f + a * 0.125f;
        c = c * 0.875f - b * 0.0625f;
        k = (k * 1103515245 + 12345) ^ (k >> 7);
    }
    out[i] = a + b + c + (float)(k & 0xff);
}

#define TILE 16
kernel void matmul(global const float *A, global const float *B, global float *C, int n) {
    local float As[TILE][TILE], Bs[TILE][TILE];
    int row = get_global_id(1), col = get_global_id(0);
    int ly = get_local_id(1), lx = get_local_id(0);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ly][lx] = A[row * n + t + lx];
        Bs[ly][lx] = B[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}

kernel void nbody(global const float4 *pos, global float4 *acc_out, int n, float eps2) {
    int i = get_global_id(0);
    float4 p = pos[i];
    float3 a = (float3)(0.0f);
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float r2 = dot(d, d) + eps2;
        float inv = rsqrt(r2);
        a += d * (q.w * inv * inv * inv);
    }
    acc_out[i] = (float4)(a, 0.0f);
}

kernel void saxpy(global const float *x, global float *y, float alpha) {
    int i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}

kernel void stencil(global const float *in, global float *out, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[y * w + x] = in[y * w + x];
        return;
    }
    out[y * w + x] = 0.2f * (in[y * w + x] + in[y * w + x - 1] + in[y * w + x + 1]
                             + in[(y - 1) * w + x] + in[(y + 1) * w + x]);
}

kernel void empty(void) {}

kernel void small(global int *buf, int k) {
    int i = get_global_id(0);
    buf[i] += k;
}
"#;

fn check_close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * w.abs().max(1.0), "{what}: element {i}: got {g}, want {w}");
    }
}

/// One measured run of a workload on a target: (time, lane-instructions if ours).
type Workload = fn(&Target) -> (Duration, Option<(u64, u64)>);

const ALU_ITEMS: usize = 8192;
const ALU_ITERS: i32 = 2000;
fn alu(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let k = t.kernel("alu");
    let out = t.buffer(&vec![0u8; ALU_ITEMS * 4]);
    set_arg(k, 0, &out);
    set_arg(k, 1, &ALU_ITERS);
    let ev = t.launch(k, &[ALU_ITEMS], Some(&[256]));
    let r = (kernel_time(ev), lane_instructions(ev));
    let got = to_floats(&t.read(out, ALU_ITEMS * 4));
    // Spot-check a few work-items against the host (float arithmetic in the same order).
    for i in [0usize, 1, 777, ALU_ITEMS - 1] {
        let (mut a, mut b, mut c, mut kk) = (i as f32 * 0.001, 1.0f32, 0.5f32, i as i32);
        for _ in 0..ALU_ITERS {
            a = a * 0.5 + 1.0;
            b = b * 0.75 + a * 0.125;
            c = c * 0.875 - b * 0.0625;
            kk = (kk.wrapping_mul(1103515245).wrapping_add(12345)) ^ (kk >> 7);
        }
        let want = a + b + c + (kk & 0xff) as f32;
        check_close("alu", &got[i..=i], &[want], 1e-3);
    }
    release(&[out], &[k], ev);
    r
}

const MM_N: usize = 256;
fn matmul(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let n = MM_N;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 * 0.25 - 1.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5 - 2.0).collect();
    let k = t.kernel("matmul");
    let (ba, bb, bc) = (t.buffer(&floats(&a)), t.buffer(&floats(&b)), t.buffer(&vec![0u8; n * n * 4]));
    set_arg(k, 0, &ba);
    set_arg(k, 1, &bb);
    set_arg(k, 2, &bc);
    set_arg(k, 3, &(n as i32));
    let ev = t.launch(k, &[n, n], Some(&[16, 16]));
    let r = (kernel_time(ev), lane_instructions(ev));
    let got = to_floats(&t.read(bc, n * n * 4));
    for &(row, col) in &[(0usize, 0usize), (17, 200), (255, 255), (128, 3)] {
        let want: f32 = (0..n).map(|x| a[row * n + x] * b[x * n + col]).sum();
        check_close("matmul", &got[row * n + col..=row * n + col], &[want], 1e-4);
    }
    release(&[ba, bb, bc], &[k], ev);
    r
}

const NB_N: usize = 2048;
fn nbody(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let n = NB_N;
    let pos: Vec<f32> = (0..n * 4)
        .map(|i| if i % 4 == 3 { 1.0 + (i % 7) as f32 * 0.1 } else { ((i * 37) % 101) as f32 * 0.05 - 2.5 })
        .collect();
    let k = t.kernel("nbody");
    let (bp, ba) = (t.buffer(&floats(&pos)), t.buffer(&vec![0u8; n * 16]));
    set_arg(k, 0, &bp);
    set_arg(k, 1, &ba);
    set_arg(k, 2, &(n as i32));
    set_arg(k, 3, &0.01f32);
    let ev = t.launch(k, &[n], Some(&[128]));
    let r = (kernel_time(ev), lane_instructions(ev));
    let got = to_floats(&t.read(ba, n * 16));
    for i in [0usize, 5, n - 1] {
        let mut acc = [0f64; 3];
        for j in 0..n {
            let d: Vec<f64> = (0..3).map(|c| (pos[j * 4 + c] - pos[i * 4 + c]) as f64).collect();
            let r2 = d.iter().map(|x| x * x).sum::<f64>() + 0.01;
            let s = pos[j * 4 + 3] as f64 / (r2 * r2.sqrt());
            (0..3).for_each(|c| acc[c] += d[c] * s);
        }
        let want: Vec<f32> = acc.iter().map(|&x| x as f32).collect();
        check_close("nbody", &got[i * 4..i * 4 + 3], &want, 1e-2);
    }
    release(&[bp, ba], &[k], ev);
    r
}

const SAXPY_N: usize = 1 << 21;
fn saxpy(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let x: Vec<f32> = (0..SAXPY_N).map(|i| (i % 1000) as f32).collect();
    let y: Vec<f32> = (0..SAXPY_N).map(|i| (i % 7) as f32).collect();
    let k = t.kernel("saxpy");
    let (bx, by) = (t.buffer(&floats(&x)), t.buffer(&floats(&y)));
    set_arg(k, 0, &bx);
    set_arg(k, 1, &by);
    set_arg(k, 2, &2.5f32);
    let ev = t.launch(k, &[SAXPY_N], Some(&[256]));
    let r = (kernel_time(ev), lane_instructions(ev));
    let got = to_floats(&t.read(by, SAXPY_N * 4));
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| 2.5 * a + b).collect();
    check_close("saxpy", &got, &want, 0.0);
    release(&[bx, by], &[k], ev);
    r
}

const ST_W: usize = 1024;
fn stencil(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let (w, h) = (ST_W, ST_W);
    let input: Vec<f32> = (0..w * h).map(|i| ((i * 31) % 97) as f32).collect();
    let k = t.kernel("stencil");
    let (bi, bo) = (t.buffer(&floats(&input)), t.buffer(&vec![0u8; w * h * 4]));
    set_arg(k, 0, &bi);
    set_arg(k, 1, &bo);
    set_arg(k, 2, &(w as i32));
    set_arg(k, 3, &(h as i32));
    let ev = t.launch(k, &[w, h], Some(&[32, 8]));
    let r = (kernel_time(ev), lane_instructions(ev));
    let got = to_floats(&t.read(bo, w * h * 4));
    for &(x, y) in &[(0usize, 0usize), (1, 1), (500, 300), (1022, 1022), (1023, 5)] {
        let at = |x: usize, y: usize| input[y * w + x];
        let want = if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            at(x, y)
        } else {
            0.2 * (at(x, y) + at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1))
        };
        check_close("stencil", &got[y * w + x..=y * w + x], &[want], 1e-6);
    }
    release(&[bi, bo], &[k], ev);
    r
}

/// Median wall time of one empty 1-work-group launch (enqueue → event complete), over 200.
fn empty_launch(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let k = t.kernel("empty");
    let mut times = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        let ev = t.launch(k, &[32], Some(&[32]));
        times.push(start.elapsed());
        // SAFETY: our event.
        unsafe { (cl_api().clReleaseEvent)(ev) };
    }
    // SAFETY: our kernel.
    unsafe { (cl_api().clReleaseKernel)(k) };
    times.sort();
    (times[times.len() / 2], None)
}

/// The work-group reduction of [`wg_sum`] with the built-in (OpenCL C 3.0; ours only).
const WG_SUM_BUILTIN: &str = "kernel void wg_sum_builtin(global const int *in, global int *out) {
    int s = work_group_reduce_add(in[get_global_id(0)]);
    if (get_local_id(0) == 0) out[get_group_id(0)] = s;
}";
const WG_N: usize = 1 << 20;
const WG_LOCAL: usize = 256;

/// A sum per work-group of 256 over 1 M ints, written with `work_group_reduce_add`.
fn wg_sum_builtin(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let program = t.build(WG_SUM_BUILTIN, c"-cl-std=CL3.0");
    let k = t.kernel_of(program, "wg_sum_builtin");
    let r = wg_sum(t, k, false);
    // SAFETY: our program.
    unsafe { (cl_api().clReleaseProgram)(program) };
    r
}

/// The same sums with `__local` memory and barriers (a tree reduction).
fn wg_sum_local(t: &Target) -> (Duration, Option<(u64, u64)>) {
    wg_sum(t, t.kernel("wg_sum_local"), true)
}

fn wg_sum(t: &Target, k: cl_kernel, local: bool) -> (Duration, Option<(u64, u64)>) {
    let x: Vec<i32> = (0..WG_N as i32).map(|i| (i * 7919) % 1001 - 500).collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let groups = WG_N / WG_LOCAL;
    let (bx, bo) = (t.buffer(&bytes), t.buffer(&vec![0u8; 4 * groups]));
    set_arg(k, 0, &bx);
    set_arg(k, 1, &bo);
    if local {
        set_local_arg(k, 2, 4 * WG_LOCAL);
    }
    let ev = t.launch(k, &[WG_N], Some(&[WG_LOCAL]));
    let r = (kernel_time(ev), lane_instructions(ev));
    let got = t.read(bo, 4 * groups);
    for (g, c) in got.chunks_exact(4).enumerate() {
        let want: i32 = x[g * WG_LOCAL..(g + 1) * WG_LOCAL].iter().sum();
        assert_eq!(i32::from_le_bytes(c.try_into().unwrap()), want, "work-group sum {g}");
    }
    release(&[bx, bo], &[k], ev);
    r
}

/// 1,000 launches of a 256-work-item kernel, then one clFinish (wall time).
fn launch_loop(t: &Target) -> (Duration, Option<(u64, u64)>) {
    let k = t.kernel("small");
    let buf = t.buffer(&vec![0u8; 256 * 4]);
    set_arg(k, 0, &buf);
    let start = Instant::now();
    for i in 0..1000i32 {
        set_arg(k, 1, &i);
        let g = [256usize];
        // SAFETY: one-dimensional sizes; no event requested.
        let code = unsafe {
            (cl_api().clEnqueueNDRangeKernel)(t.queue, k, 1, null(), g.as_ptr(), null(), 0, null(), null_mut())
        };
        check(code, "clEnqueueNDRangeKernel");
    }
    // SAFETY: our queue.
    check(unsafe { (cl_api().clFinish)(t.queue) }, "clFinish");
    let elapsed = start.elapsed();
    let got = t.read(buf, 1024);
    let want: i32 = (0..1000).sum();
    assert!(got.chunks_exact(4).all(|c| i32::from_le_bytes(c.try_into().unwrap()) == want), "launch loop result");
    release(&[buf], &[k], null_mut());
    (elapsed, None)
}

/// The 1,000 launches of [`launch_loop`] recorded in a command buffer (one kernel command per
/// argument value), replayed by one `clEnqueueCommandBufferKHR`, then clFinish (wall time;
/// recording is not timed).
fn replay_loop(t: &Target) -> (Duration, Option<(u64, u64)>) {
    type Buf = *mut c_void;
    type Create = unsafe extern "C" fn(cl_uint, *const cl_command_queue, *const cl_ulong, *mut cl_int) -> Buf;
    type Record = unsafe extern "C" fn(
        Buf,
        cl_command_queue,
        *const cl_ulong,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const cl_uint,
        *mut cl_uint,
        *mut *mut c_void,
    ) -> cl_int;
    type One = unsafe extern "C" fn(Buf) -> cl_int;
    type Enqueue =
        unsafe extern "C" fn(cl_uint, *mut cl_command_queue, Buf, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    let f = |name: &std::ffi::CStr| {
        // SAFETY: a NUL-terminated name; our platform.
        let p = unsafe { (cl_api().clGetExtensionFunctionAddressForPlatform)(t.platform, name.as_ptr()) };
        assert!(!p.is_null(), "{name:?}");
        p
    };
    // SAFETY: each name resolves to the entry point of this signature (cl_khr_command_buffer 0.9.8).
    let (create, record, finalize, enqueue, release_cb) = unsafe {
        (
            std::mem::transmute::<*mut c_void, Create>(f(c"clCreateCommandBufferKHR")),
            std::mem::transmute::<*mut c_void, Record>(f(c"clCommandNDRangeKernelKHR")),
            std::mem::transmute::<*mut c_void, One>(f(c"clFinalizeCommandBufferKHR")),
            std::mem::transmute::<*mut c_void, Enqueue>(f(c"clEnqueueCommandBufferKHR")),
            std::mem::transmute::<*mut c_void, One>(f(c"clReleaseCommandBufferKHR")),
        )
    };
    let k = t.kernel("small");
    let buf = t.buffer(&vec![0u8; 256 * 4]);
    set_arg(k, 0, &buf);
    let mut err = 0;
    // SAFETY: one valid queue, no properties.
    let cb = unsafe { create(1, &t.queue, null(), &mut err) };
    check(err, "clCreateCommandBufferKHR");
    for i in 0..1000i32 {
        set_arg(k, 1, &i);
        let g = [256usize];
        // SAFETY: one-dimensional sizes; no sync points, handle or properties.
        let code = unsafe {
            record(cb, null_mut(), null(), k, 1, null(), g.as_ptr(), null(), 0, null(), null_mut(), null_mut())
        };
        check(code, "clCommandNDRangeKernelKHR");
    }
    // SAFETY: our command buffer.
    check(unsafe { finalize(cb) }, "clFinalizeCommandBufferKHR");
    let start = Instant::now();
    // SAFETY: the buffer's own queue, no events.
    check(unsafe { enqueue(0, null_mut(), cb, 0, null(), null_mut()) }, "clEnqueueCommandBufferKHR");
    // SAFETY: our queue.
    check(unsafe { (cl_api().clFinish)(t.queue) }, "clFinish");
    let elapsed = start.elapsed();
    let got = t.read(buf, 1024);
    let want: i32 = (0..1000).sum();
    assert!(got.chunks_exact(4).all(|c| i32::from_le_bytes(c.try_into().unwrap()) == want), "replay result");
    // SAFETY: our command buffer.
    check(unsafe { release_cb(cb) }, "clReleaseCommandBufferKHR");
    release(&[buf], &[k], null_mut());
    (elapsed, None)
}

/// A cold build of a small kernel: `clCreateProgramWithSource` + `clBuildProgram` +
/// `clCreateKernel` (wall time) of a source no earlier build saw (a constant from a nonce, so
/// neither our build cache nor pocl's kernel cache has it; what a build keeps per options set,
/// such as a precompiled OpenCL C header, may be warm). The kernel then runs once and its result
/// is checked.
fn cold_build(t: &Target) -> (Duration, Option<(u64, u64)>) {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    let nonce = (nanos ^ (u64::from(std::process::id()) << 32))
        .wrapping_add(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let (a, b) = ((nonce % 1_000_003) as i32 + 2, ((nonce / 1_000_003) % 1_000_033) as i32);
    let src = format!(
        "kernel void cold(global int *o, int k) {{\n    int i = get_global_id(0);\n    o[i] = (i + k) * {a} + {b};\n}}\n"
    );
    let cl = cl_api();
    let start = Instant::now();
    let mut err = 0;
    let mut p = src.as_ptr() as *const i8;
    let len = src.len();
    // SAFETY: one source string with its length.
    let program = unsafe { (cl.clCreateProgramWithSource)(t.ctx, 1, &mut p, &len, &mut err) };
    check(err, "clCreateProgramWithSource");
    // SAFETY: a valid program, every device of its context, NUL-terminated options.
    check(
        unsafe { (cl.clBuildProgram)(program, 0, null(), c"-cl-std=CL1.2".as_ptr(), None, null_mut()) },
        "clBuildProgram",
    );
    // SAFETY: a built program and a NUL-terminated name.
    let k = unsafe { (cl.clCreateKernel)(program, c"cold".as_ptr(), &mut err) };
    check(err, "clCreateKernel");
    let elapsed = start.elapsed();
    let buf = t.buffer(&vec![0u8; 64 * 4]);
    set_arg(k, 0, &buf);
    set_arg(k, 1, &3i32);
    let ev = t.launch(k, &[64], None);
    let got = t.read(buf, 64 * 4);
    for (i, c) in got.chunks_exact(4).enumerate() {
        let want = (i as i32 + 3).wrapping_mul(a).wrapping_add(b);
        assert_eq!(i32::from_le_bytes(c.try_into().unwrap()), want, "cold build result at {i}");
    }
    release(&[buf], &[k], ev);
    // SAFETY: our program, no longer used.
    unsafe { (cl.clReleaseProgram)(program) };
    (elapsed, None)
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let (ours, pocl) = open_pair(SOURCE, c"-cl-std=CL1.2");
    let threads = std::env::var("VENTUS_THREADS").unwrap_or_else(|_| "default".into());
    println!("vs_pocl: VENTUS_THREADS={threads}, {} interleaved runs, medians", runs());
    if pocl.is_none() {
        println!("(pocl is not installed: only our figures)");
    }
    let workloads: [(&str, &str, Workload, f64); 11] = [
        ("alu", "compute: ALU loop, 8192 items × 2000 iterations", alu, 10.0),
        ("matmul", "compute: matmul 256², __local 16×16 tiles", matmul, 10.0),
        ("nbody", "compute: n-body, 2048 bodies", nbody, 10.0),
        ("saxpy", "memory: saxpy, 2 M floats", saxpy, 20.0),
        ("stencil", "memory: 5-point stencil, 1024²", stencil, 20.0),
        ("empty", "latency: empty 1-group launch (wall, enqueue→complete)", empty_launch, 2.0),
        ("loop", "latency: 1,000 small launches + clFinish (wall)", launch_loop, 3.0),
        ("replay", "latency: the same 1,000, replayed from a command buffer", replay_loop, 1.0),
        ("wgsum_local", "work-group sums (1 M ints, groups of 256): __local tree", wg_sum_local, 10.0),
        ("wgsum_builtin", "the same with work_group_reduce_add (OpenCL C 3.0)", wg_sum_builtin, 1.0),
        ("build", "front end: cold build of a small kernel (wall)", cold_build, 1.0),
    ];
    println!("{:<58} {:>10} {:>10} {:>8} {:>7} {:>12}", "workload", "ours", "pocl", "ratio", "target", "warp instr.");
    for (key, what, f, target_ratio) in workloads {
        if !filter.is_empty() && !filter.iter().any(|x| x == key) {
            continue;
        }
        let (mut a, mut b, mut lanes) = (Vec::new(), Vec::new(), None);
        for _ in 0..runs() {
            let (d, l) = f(&ours);
            a.push(d);
            lanes = lanes.or(l);
            // Ours only (see the module documentation).
            if let Some(p) = pocl.as_ref().filter(|_| key != "replay" && key != "wgsum_builtin") {
                b.push(f(p).0);
            }
        }
        if std::env::var_os("VS_POCL_ALL").is_some() {
            let ms = |v: &[Duration]| {
                v.iter().map(|d| format!("{:.2}", d.as_secs_f64() * 1e3)).collect::<Vec<_>>().join(" ")
            };
            println!("  {key} runs (ms): ours {} | pocl {}", ms(&a), ms(&b));
        }
        let (ma, mb) = (median(a), (!b.is_empty()).then(|| median(b)));
        let ratio = mb.map_or("-".into(), |mb| format!("{:.1}×", ma.as_secs_f64() / mb.as_secs_f64()));
        println!(
            "{what:<58} {:>10} {:>10} {ratio:>8} {:>6}× {:>12}",
            fmt(ma),
            mb.map_or("-".into(), fmt),
            target_ratio,
            lanes.map_or("-".into(), |(w, _)| w.to_string())
        );
        if key == "alu" {
            if let Some((_, l)) = lanes {
                println!(
                    "  ALU loop: {:.0} M emulated lane-instructions/s (kernel time)",
                    l as f64 / ma.as_secs_f64() / 1e6
                );
            }
        }
    }
    let _ = (ours.name, pocl.as_ref().map(|p| p.name));
}
