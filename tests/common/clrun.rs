//! Source-to-result runner for the compiler acceptance corpus (`tests/cl_*.rs`): builds OpenCL C
//! through the ICD loader (`clCreateProgramWithSource` + `clBuildProgram`), sets the arguments,
//! runs one NDRange and reads every buffer back. Host-side references live in the tests.
//!
//! Include it after the loader harness:
//! ```ignore
//! #[path = "common/cl.rs"]
//! mod cl;
//! #[path = "common/clrun.rs"]
//! mod clrun;
//! use clrun::*;
//! ```
//!
//! * A build failure panics with the build log (`CL_PROGRAM_BUILD_LOG`), so "unsupported by the
//!   Ventus compiler: …" messages appear in the test output.
//! * A failed launch (negative event status) panics with the context's error-callback messages
//!   (the driver reports faults there: work-group, warp, lane, pc, instruction, address).
//! * The compiler cache is disabled for the process (`VENTUS_CACHE=0`, unless the variable is
//!   already set) so every run exercises the current compiler, and the emulator watchdog is
//!   lowered (`VENTUS_WATCHDOG`, unless set) so a miscompiled loop fails instead of hanging.
#![allow(dead_code)]

use crate::cl::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::fmt::Debug;
use std::ptr::{null, null_mut};
use std::sync::{Mutex, Once};

/// Warp instructions per work-group before the watchdog stops a kernel (corpus kernels need far
/// fewer; a runaway loop then fails in about a second).
const WATCHDOG: &str = "50000000";

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

/// A kernel argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A `__global` or `__constant` buffer with these initial bytes (read back after the run).
    Buf(Vec<u8>),
    /// A by-value argument (scalar, vector or struct), as raw bytes.
    Val(Vec<u8>),
    /// A `__local` pointer argument of this many bytes.
    Local(usize),
    /// The buffer of the earlier argument at this index (the kernel's pointers alias; read back
    /// as that argument).
    Same(usize),
}

/// A scalar element type of buffers and by-value arguments (little-endian bytes).
pub trait Elem: Copy + Debug + PartialEq {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    )*};
}
elem!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// The bytes of `v`.
pub fn bytes<T: Elem>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    v.iter().for_each(|x| x.put(&mut out));
    out
}

/// A buffer holding `v`.
pub fn buf<T: Elem>(v: &[T]) -> Arg {
    Arg::Buf(bytes(v))
}

/// A zero-filled buffer of `n` bytes.
pub fn zeros(n: usize) -> Arg {
    Arg::Buf(vec![0; n])
}

/// A buffer of `n` elements of `T`, each `x`.
pub fn filled<T: Elem>(n: usize, x: T) -> Arg {
    buf(&vec![x; n])
}

/// A by-value scalar argument.
pub fn val<T: Elem>(x: T) -> Arg {
    Arg::Val(bytes(&[x]))
}

/// A by-value vector argument (`int4`, `float3` → 4 elements, …).
pub fn val_vec<T: Elem>(v: &[T]) -> Arg {
    Arg::Val(bytes(v))
}

/// The elements of a returned buffer.
#[track_caller]
pub fn read<T: Elem>(b: &[u8]) -> Vec<T> {
    assert_eq!(b.len() % T::SIZE, 0, "buffer size is not a multiple of the element size");
    b.chunks_exact(T::SIZE).map(T::get).collect()
}

/// Builds the bytes of a C struct field by field, with the OpenCL C (natural) alignment.
#[derive(Default)]
pub struct Packer(Vec<u8>);

impl Packer {
    pub fn new() -> Packer {
        Packer(Vec::new())
    }
    /// Pads to a multiple of `n` bytes.
    pub fn align(mut self, n: usize) -> Packer {
        while self.0.len() % n != 0 {
            self.0.push(0);
        }
        self
    }
    /// Appends a field (aligned to its size).
    pub fn push<T: Elem>(self, x: T) -> Packer {
        let mut p = self.align(T::SIZE);
        x.put(&mut p.0);
        p
    }
    /// Appends an array (or vector) field, aligned to `align` bytes.
    pub fn push_all<T: Elem>(self, v: &[T], align: usize) -> Packer {
        let mut p = self.align(align);
        v.iter().for_each(|x| x.put(&mut p.0));
        p
    }
    /// The struct's bytes, padded to `align` (the struct's alignment).
    pub fn finish(self, align: usize) -> Vec<u8> {
        self.align(align).0
    }
}

/// Messages a context's error callback received.
type Messages = Mutex<Vec<String>>;

unsafe extern "C" fn record(msg: *const c_char, _: *const c_void, _: usize, user: *mut c_void) {
    // SAFETY: `user` is the `Messages` given at context creation, alive until the context is
    // released; `msg` is a C string valid for the call.
    let (m, s) = unsafe { (&*(user as *const Messages), CStr::from_ptr(msg)) };
    m.lock().unwrap().push(s.to_string_lossy().into_owned());
}

fn environment() {
    static ENV: Once = Once::new();
    ENV.call_once(|| {
        // Before the first loader/driver use: the driver reads these once per process. Other
        // tests of this process wait on this `Once` before they touch the loader.
        for (k, v) in [("VENTUS_CACHE", "0"), ("VENTUS_WATCHDOG", WATCHDOG)] {
            if std::env::var_os(k).is_none() {
                std::env::set_var(k, v);
            }
        }
    });
    cl();
}

/// The build log of `p`.
fn build_log(p: cl_program) -> String {
    let d = device();
    let b = info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, s, v, r)));
    String::from_utf8_lossy(&b).trim_end_matches('\0').to_string()
}

/// Owns the objects of one run and releases them in reverse order, also when a check panics.
struct Run {
    messages: Box<Messages>,
    ctx: cl_context,
    q: cl_command_queue,
    program: cl_program,
    kernel: cl_kernel,
    mems: Vec<cl_mem>,
}

impl Drop for Run {
    fn drop(&mut self) {
        for &m in &self.mems {
            call!(clReleaseMemObject(m));
        }
        if !self.kernel.is_null() {
            call!(clReleaseKernel(self.kernel));
        }
        if !self.program.is_null() {
            call!(clReleaseProgram(self.program));
        }
        call!(clFinish(self.q));
        call!(clReleaseCommandQueue(self.q));
        call!(clReleaseContext(self.ctx));
    }
}

/// Builds `src` with `options` and returns the build log, or panics with it if the build fails.
#[track_caller]
pub fn build_only(src: &str, options: &str) -> String {
    let mut run = Run::new();
    run.build(src, options);
    build_log(run.program)
}

impl Run {
    fn new() -> Run {
        Run::with_properties(&[])
    }

    /// A run in a context created with `props` (name/value pairs, without the terminating 0).
    fn with_properties(props: &[cl_context_properties]) -> Run {
        environment();
        let messages: Box<Messages> = Box::default();
        let (d, mut err) = (device(), 0);
        let user = &*messages as *const Messages as *mut c_void;
        let mut props = props.to_vec();
        props.push(0);
        let p = if props.len() > 1 { props.as_ptr() } else { null() };
        let ctx = call!(clCreateContext(p, 1, &d, Some(record), user, &mut err));
        check(err, "clCreateContext");
        let q = queue(ctx, 0);
        Run { messages, ctx, q, program: null_mut(), kernel: null_mut(), mems: Vec::new() }
    }

    #[track_caller]
    fn build(&mut self, src: &str, options: &str) {
        let (text, mut err) = (CString::new(src).expect("source has a NUL"), 0);
        let mut ptrs = [text.as_ptr()];
        self.program = call!(clCreateProgramWithSource(self.ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
        check(err, "clCreateProgramWithSource");
        let opts = CString::new(options).expect("options have a NUL");
        let code = call!(clBuildProgram(self.program, 0, null(), opts.as_ptr(), None, null_mut()));
        if code != CL_SUCCESS {
            panic!(
                "clBuildProgram failed: {} ({code})\n--- build log ---\n{}\n--- source ---\n{src}",
                err_name(code),
                build_log(self.program)
            );
        }
    }
}

/// Builds `src` with `options`, runs `kernel` once over `global` (work_dim = `global.len()`) with
/// the optional `local` size and global `offset`, and returns the final contents of every
/// argument: one entry per argument, in order, empty for [`Arg::Val`] and [`Arg::Local`].
#[track_caller]
pub fn run_source(
    src: &str,
    options: &str,
    kernel: &str,
    global: &[usize],
    local: Option<&[usize]>,
    offset: Option<&[usize]>,
    args: &[Arg],
) -> Vec<Vec<u8>> {
    match try_run_source(&[], src, options, kernel, global, local, offset, args) {
        Ok(out) => out,
        Err(f) => {
            panic!("kernel {kernel} failed: {} ({}); driver messages: {:?}", err_name(f.status), f.status, f.messages)
        }
    }
}

/// A launch that did not complete: its event status and the context's error messages.
#[derive(Debug)]
pub struct Failed {
    pub status: cl_int,
    pub messages: Vec<String>,
}

/// As [`run_source`], in a context created with `props` (name/value pairs), returning a failed
/// launch instead of panicking.
#[track_caller]
#[allow(clippy::too_many_arguments)]
pub fn try_run_source(
    props: &[cl_context_properties],
    src: &str,
    options: &str,
    kernel: &str,
    global: &[usize],
    local: Option<&[usize]>,
    offset: Option<&[usize]>,
    args: &[Arg],
) -> Result<Vec<Vec<u8>>, Failed> {
    let mut run = Run::with_properties(props);
    run.build(src, options);
    launch(run, kernel, global, local, offset, args)
}

/// As [`run_source`] for a program created from SPIR-V (`clCreateProgramWithIL`, built without
/// options), with no global offset.
#[track_caller]
pub fn run_il(il: &[u8], kernel: &str, global: &[usize], local: Option<&[usize]>, args: &[Arg]) -> Vec<Vec<u8>> {
    let mut run = Run::new();
    let mut err = 0;
    run.program = call!(clCreateProgramWithIL(run.ctx, il.as_ptr() as *const c_void, il.len(), &mut err));
    check(err, "clCreateProgramWithIL");
    let code = call!(clBuildProgram(run.program, 0, null(), null(), None, null_mut()));
    assert_eq!(code, CL_SUCCESS, "clBuildProgram failed: {}\n{}", err_name(code), build_log(run.program));
    launch(run, kernel, global, local, None, args).unwrap_or_else(|f| {
        panic!("kernel {kernel} failed: {} ({}); driver messages: {:?}", err_name(f.status), f.status, f.messages)
    })
}

thread_local! {
    static LAST_STATS: std::cell::Cell<[u64; 12]> = const { std::cell::Cell::new([0; 12]) };
}

/// The `cl_ventus_launch_stats` words (include/CL/cl_ventus.h: work-groups, warp instructions,
/// lane instructions, ...) of this thread's last launch that completed.
#[allow(dead_code)] // not every test file reads them
pub fn last_stats() -> [u64; 12] {
    LAST_STATS.with(|s| s.get())
}

/// Runs `kernel` of the built program of `run` (see [`run_source`]).
#[track_caller]
fn launch(
    mut run: Run,
    kernel: &str,
    global: &[usize],
    local: Option<&[usize]>,
    offset: Option<&[usize]>,
    args: &[Arg],
) -> Result<Vec<Vec<u8>>, Failed> {
    let dim = global.len();
    assert!((1..=3).contains(&dim), "work_dim must be 1..3");
    assert!(local.is_none_or(|l| l.len() == dim) && offset.is_none_or(|o| o.len() == dim), "dimension mismatch");
    let (name, mut err) = (CString::new(kernel).unwrap(), 0);
    run.kernel = call!(clCreateKernel(run.program, name.as_ptr(), &mut err));
    check(err, &format!("clCreateKernel({kernel})"));
    let mut slots = Vec::new(); // (argument index, buffer, size)
    for (i, a) in args.iter().enumerate() {
        let i = i as u32;
        let code = match a {
            Arg::Buf(b) => {
                assert!(!b.is_empty(), "argument {i}: buffers must not be empty");
                let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
                let m = call!(clCreateBuffer(run.ctx, flags, b.len(), b.as_ptr() as *mut c_void, &mut err));
                check(err, "clCreateBuffer");
                run.mems.push(m);
                slots.push((i, m, b.len()));
                let size = std::mem::size_of::<cl_mem>();
                call!(clSetKernelArg(run.kernel, i, size, &m as *const cl_mem as *const c_void))
            }
            Arg::Val(v) => call!(clSetKernelArg(run.kernel, i, v.len(), v.as_ptr() as *const c_void)),
            Arg::Local(n) => call!(clSetKernelArg(run.kernel, i, *n, null())),
            Arg::Same(k) => {
                let &(_, m, _) = slots.iter().find(|s| s.0 == *k as u32).expect("Arg::Same names an earlier buffer");
                let size = std::mem::size_of::<cl_mem>();
                call!(clSetKernelArg(run.kernel, i, size, &m as *const cl_mem as *const c_void))
            }
        };
        check(code, &format!("clSetKernelArg({i}) of {kernel}"));
    }
    let p = |s: Option<&[usize]>| s.map_or(null(), |s| s.as_ptr());
    let mut e = null_mut();
    let code = call!(clEnqueueNDRangeKernel(
        run.q,
        run.kernel,
        dim as u32,
        p(offset),
        global.as_ptr(),
        p(local),
        0,
        null(),
        &mut e
    ));
    check(code, &format!("clEnqueueNDRangeKernel({kernel}, global {global:?}, local {local:?}, offset {offset:?})"));
    // A failed launch makes the wait return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST.
    let waited = call!(clWaitForEvents(1, &e));
    let status = event_status(e);
    if status >= 0 {
        check(waited, "clWaitForEvents");
    }
    if status == CL_COMPLETE {
        let mut words = [0u64; 12];
        let code = call!(clGetEventInfo(
            e,
            CL_EVENT_STATISTICS_VENTUS,
            size_of_val(&words),
            words.as_mut_ptr().cast(),
            null_mut()
        ));
        check(code, "clGetEventInfo(CL_EVENT_STATISTICS_VENTUS)");
        LAST_STATS.with(|s| s.set(words));
    }
    call!(clReleaseEvent(e));
    if status != CL_COMPLETE {
        return Err(Failed { status, messages: run.messages.lock().unwrap().clone() });
    }
    let mut out = vec![Vec::new(); args.len()];
    for (i, m, size) in slots {
        let mut b = vec![0u8; size];
        let code = call!(clEnqueueReadBuffer(
            run.q,
            m,
            CL_TRUE,
            0,
            size,
            b.as_mut_ptr() as *mut c_void,
            0,
            null(),
            null_mut()
        ));
        check(code, "clEnqueueReadBuffer");
        out[i as usize] = b;
    }
    Ok(out)
}

/// Build options that turn the optimizer off (clang `-O0`: every local variable in memory).
pub const NO_OPT: &str = "-cl-opt-disable";

/// Declares two tests that call `$with(options: &str)`: `$opt` with default options and `$unopt`
/// with [`NO_OPT`].
#[allow(unused_macros)] // not every corpus file has tests at both optimization levels
macro_rules! both_opt_levels {
    ($opt:ident, $unopt:ident, $with:ident) => {
        #[test]
        fn $opt() {
            $with("");
        }

        #[test]
        fn $unopt() {
            $with($crate::clrun::NO_OPT);
        }
    };
}
#[allow(unused_imports)] // likewise
pub(crate) use both_opt_levels;

/// [`run_source`] without options or offset, in 1D.
#[track_caller]
pub fn run1(src: &str, kernel: &str, global: usize, local: usize, args: &[Arg]) -> Vec<Vec<u8>> {
    run_source(src, "", kernel, &[global], Some(&[local]), None, args)
}

/// Distance in units in the last place between two finite floats of the same sign class.
pub fn ulps(a: f32, b: f32) -> u32 {
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN.wrapping_sub(i)
        } else {
            i
        }
    };
    (key(a) as i64 - key(b) as i64).unsigned_abs().min(u32::MAX as u64) as u32
}

/// Asserts bit-exact equality (NaNs compare equal to NaNs; -0 differs from +0).
#[track_caller]
pub fn assert_bits(got: f32, want: f32, what: impl std::fmt::Display) {
    let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
    assert!(same, "{what}: got {got:e} ({:#010x}), want {want:e} ({:#010x})", got.to_bits(), want.to_bits());
}

/// Asserts `got` is within `max` ulps of `want` (infinities and NaNs must match exactly).
#[track_caller]
pub fn assert_ulps(got: f32, want: f32, max: u32, what: impl std::fmt::Display) {
    if !want.is_finite() || !got.is_finite() {
        return assert_bits(got, want, what);
    }
    let d = ulps(got, want);
    assert!(d <= max, "{what}: got {got:e}, want {want:e}: {d} ulps apart (at most {max} allowed)");
}

/// A deterministic pseudo-random sequence (xorshift32) for test inputs.
pub struct Rng(pub u32);

impl Rng {
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    /// `n` values.
    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }
    /// `n` values uniformly in `lo..hi`.
    pub fn i32s(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n).map(|_| lo + (self.next_u32() % (hi - lo) as u32) as i32).collect()
    }
    /// `n` floats in `lo..hi`, each with 16 random mantissa bits.
    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| lo + (hi - lo) * ((self.next_u32() >> 16) as f32 / 65536.0)).collect()
    }
}

/// Like [`run_source`] (without offset) for a kernel expected to fail: the event's status and the
/// messages the context's error callback received (`CL_COMPLETE` and none if it completed).
#[track_caller]
pub fn run_failing(src: &str, options: &str, kernel: &str, global: &[usize], args: &[Arg]) -> (cl_int, Vec<String>) {
    match try_run_source(&[], src, options, kernel, global, None, None, args) {
        Ok(_) => (CL_COMPLETE, Vec::new()),
        Err(f) => (f.status, f.messages),
    }
}
