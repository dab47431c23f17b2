//! Kernel `printf` end to end through the ICD loader: OpenCL C source → our compiler → print
//! buffer → host drain → text. Output is captured with the `cl_arm_printf` callback
//! (`CL_PRINTF_CALLBACK_ARM`) and compared byte for byte with what the host C library's `printf`
//! prints for the same values (computed here with `libc::snprintf`, independently of the driver's
//! formatter). Also: many work-items printing at once keep each work-item's lines in program
//! order; output streams while the kernel runs (a kernel waits for the host to see its line);
//! `CL_DEVICE_PRINTF_BUFFER_SIZE`; a tiny buffer reports lost records instead of crashing.

#[path = "common/cl.rs"]
mod cl;
use cl::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::{Condvar, Mutex};

const CL_PRINTF_CALLBACK_ARM: cl_context_properties = 0x40B0;
const CL_PRINTF_BUFFERSIZE_ARM: cl_context_properties = 0x40B1;

macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: handles are live objects created in this file; pointers are NULL or point to
        // live memory at least as large as the size passed with them.
        unsafe { f($($a),*) }
    }};
}

/// What the callbacks of one context collected.
#[derive(Default)]
struct Sink {
    text: Mutex<Vec<u8>>,
    changed: Condvar,
    errors: Mutex<Vec<String>>,
}

unsafe extern "C" fn on_printf(buf: *const c_char, len: usize, _final: usize, user: *mut c_void) {
    // SAFETY: `user` is the `Sink` passed at context creation (alive until the context is
    // released); `buf` holds `len` bytes for the duration of the call.
    let (sink, bytes) = unsafe { (&*(user as *const Sink), std::slice::from_raw_parts(buf as *const u8, len)) };
    sink.text.lock().unwrap().extend_from_slice(bytes);
    sink.changed.notify_all();
}

unsafe extern "C" fn on_error(msg: *const c_char, _: *const c_void, _: usize, user: *mut c_void) {
    // SAFETY: as in `on_printf`; `msg` is a C string valid for the call.
    let (sink, s) = unsafe { (&*(user as *const Sink), CStr::from_ptr(msg)) };
    sink.errors.lock().unwrap().push(s.to_string_lossy().into_owned());
}

/// A context whose printf output goes to a [`Sink`].
struct Ctx {
    sink: Box<Sink>,
    ctx: cl_context,
}

impl Ctx {
    fn new(buffer_size: Option<usize>) -> Ctx {
        std::env::set_var("VENTUS_CACHE", "0");
        let sink: Box<Sink> = Box::default();
        let user = &*sink as *const Sink as *mut c_void;
        let cb = on_printf as unsafe extern "C" fn(*const c_char, usize, usize, *mut c_void);
        let mut props = vec![CL_PRINTF_CALLBACK_ARM, cb as usize as cl_context_properties];
        if let Some(n) = buffer_size {
            props.extend([CL_PRINTF_BUFFERSIZE_ARM, n as cl_context_properties]);
        }
        props.push(0);
        let (d, mut err) = (device(), 0);
        let ctx = call!(clCreateContext(props.as_ptr(), 1, &d, Some(on_error), user, &mut err));
        check(err, "clCreateContext with CL_PRINTF_CALLBACK_ARM");
        Ctx { sink, ctx }
    }

    fn build(&self, src: &str) -> cl_program {
        let (text, mut err) = (CString::new(src).unwrap(), 0);
        let mut ptrs = [text.as_ptr()];
        let p = call!(clCreateProgramWithSource(self.ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
        check(err, "clCreateProgramWithSource");
        let code = call!(clBuildProgram(p, 0, null(), null(), None, null_mut()));
        if code != CL_SUCCESS {
            let d = device();
            let log = info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, s, v, r)));
            panic!("build failed: {}\n{}\n--- source ---\n{src}", err_name(code), String::from_utf8_lossy(&log));
        }
        p
    }

    fn take_text(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.sink.text.lock().unwrap())).expect("UTF-8 output")
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        call!(clReleaseContext(self.ctx));
    }
}

/// Runs `kernel` of `src` over `global`/`local` with one `__global float*` argument holding
/// `data`, and returns everything it printed.
fn run_printing(src: &str, kernel: &str, global: usize, local: usize, data: &[f32]) -> String {
    let c = Ctx::new(None);
    let out = run_in(&c, src, kernel, global, local, data);
    assert!(c.sink.errors.lock().unwrap().is_empty(), "driver errors: {:?}", c.sink.errors.lock().unwrap());
    out
}

fn run_in(c: &Ctx, src: &str, kernel: &str, global: usize, local: usize, data: &[f32]) -> String {
    let p = c.build(src);
    let (name, mut err) = (CString::new(kernel).unwrap(), 0);
    let k = call!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let mut data = data.to_vec();
    if data.is_empty() {
        data.push(0.0);
    }
    let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    let m = call!(clCreateBuffer(c.ctx, flags, 4 * data.len(), data.as_mut_ptr() as *mut c_void, &mut err));
    check(err, "clCreateBuffer");
    check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg");
    let q = queue(c.ctx, 0);
    let mut e = null_mut();
    check(call!(clEnqueueNDRangeKernel(q, k, 1, null(), &global, &local, 0, null(), &mut e)), "enqueue");
    check(call!(clWaitForEvents(1, &e)), "clWaitForEvents");
    assert_eq!(event_status(e), CL_COMPLETE, "errors: {:?}", c.sink.errors.lock().unwrap());
    call!(clReleaseEvent(e));
    call!(clReleaseCommandQueue(q));
    call!(clReleaseMemObject(m));
    call!(clReleaseKernel(k));
    call!(clReleaseProgram(p));
    c.take_text()
}

// ---- host references ---------------------------------------------------------------------------

/// A value for the host's `snprintf`.
#[derive(Clone, Copy)]
enum V {
    I(i32),
    U(u32),
    L(i64),
    F(f32),
    D(f64),
    S(&'static str),
    None,
}

/// What the host C library prints for `spec` (a C format with at most one conversion) and `v`.
fn host(spec: &str, v: V) -> String {
    let fmt = CString::new(spec).unwrap();
    let mut buf = vec![0u8; 512];
    let n = buf.len();
    let p = buf.as_mut_ptr() as *mut c_char;
    // SAFETY: `fmt` is NUL-terminated and written by the tests with exactly one conversion
    // matching `v`'s C type (int, unsigned, long long, double, char*), or none for V::None.
    let len = unsafe {
        match v {
            V::I(x) => libc::snprintf(p, n, fmt.as_ptr(), x as libc::c_int),
            V::U(x) => libc::snprintf(p, n, fmt.as_ptr(), x as libc::c_uint),
            V::L(x) => libc::snprintf(p, n, fmt.as_ptr(), x as libc::c_longlong),
            V::F(x) => libc::snprintf(p, n, fmt.as_ptr(), x as f64),
            V::D(x) => libc::snprintf(p, n, fmt.as_ptr(), x),
            V::S(s) => {
                let s = CString::new(s).unwrap();
                libc::snprintf(p, n, fmt.as_ptr(), s.as_ptr())
            }
            V::None => libc::snprintf(p, n, fmt.as_ptr()),
        }
    };
    assert!(len >= 0 && (len as usize) < n);
    String::from_utf8(buf[..len as usize].to_vec()).unwrap()
}

/// C string literal text for `s` (escapes quotes, backslashes and newlines).
fn c_literal(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// OpenCL C expression of `v`.
fn cl_expr(v: V) -> String {
    match v {
        V::I(x) => format!("((int)({x}))"),
        V::U(x) => format!("({x}u)"),
        V::L(x) => format!("({x}l)"),
        V::F(x) if x.is_nan() => {
            if x.is_sign_negative() {
                "(-NAN)".into()
            } else {
                "NAN".into()
            }
        }
        V::F(x) if x.is_infinite() => {
            if x > 0.0 {
                "INFINITY".into()
            } else {
                "(-INFINITY)".into()
            }
        }
        V::F(x) => format!("as_float({:#x}u)", x.to_bits()),
        V::D(x) => format!("as_double({:#x}ul)", x.to_bits()),
        V::S(s) => format!("\"{}\"", c_literal(s)),
        V::None => String::new(),
    }
}

/// Scalar cases: (OpenCL format, host format, value). The device passes `int`, `uint`, `float`
/// and literal strings (`long` arrives with 64-bit integer support).
fn scalar_cases() -> Vec<(&'static str, &'static str, V)> {
    use V::*;
    vec![
        ("%d", "%d", I(42)),
        ("%d", "%d", I(-7)),
        ("%i", "%i", I(i32::MIN)),
        ("%5d|", "%5d|", I(-12)),
        ("%-5d|", "%-5d|", I(12)),
        ("%05d", "%05d", I(-12)),
        ("%+d", "%+d", I(12)),
        ("% d", "% d", I(12)),
        ("%.3d", "%.3d", I(7)),
        ("%.0d|", "%.0d|", I(0)),
        ("%u", "%u", U(u32::MAX)),
        ("%o", "%o", U(8)),
        ("%#o", "%#o", U(8)),
        ("%x", "%x", U(0xdeadbeef)),
        ("%X", "%X", U(0xdeadbeef)),
        ("%#x", "%#x", U(255)),
        ("%#10.4X|", "%#10.4X|", U(255)),
        ("%hhd", "%hhd", I(300)),
        ("%hd", "%hd", I(70000)),
        ("%hu", "%hu", I(-1)),
        ("%hhx", "%hhx", I(-1)),
        ("%c", "%c", I(65)),
        ("%-3c|", "%-3c|", I(122)),
        ("%f", "%f", F(3.25)),
        ("%.2f", "%.2f", F(-1.005)),
        ("%10.3f|", "%10.3f|", F(2.5)),
        ("%-10.1f|", "%-10.1f|", F(2.5)),
        ("%+.1f", "%+.1f", F(2.0)),
        ("%08.2f", "%08.2f", F(-3.5)),
        ("%F", "%F", F(1.0e10)),
        ("%e", "%e", F(123456.0)),
        ("%.3E", "%.3E", F(0.000123)),
        ("%g", "%g", F(0.0001)),
        ("%g", "%g", F(1.0e20)),
        ("%#g", "%#g", F(1.0)),
        ("%G", "%G", F(1.0e-10)),
        ("%a", "%a", F(1.0)),
        ("%A", "%A", F(-0.1)),
        ("%.2a", "%.2a", F(3.0)),
        ("%f", "%f", F(-0.0)),
        ("%g", "%g", F(-0.0)),
        ("%f", "%f", F(f32::INFINITY)),
        ("%e", "%e", F(f32::NEG_INFINITY)),
        ("%5.1F|", "%5.1F|", F(f32::INFINITY)),
        ("%f", "%f", F(f32::NAN)),
        ("%E", "%E", F(-f32::NAN)),
        ("%f", "%f", F(f32::MAX)),
        ("%.10e", "%.10e", F(f32::MIN_POSITIVE)),
        ("%g", "%g", F(1.0e-45)),
        ("%f", "%f", D(std::f64::consts::PI)),
        ("%.17g", "%.17g", D(0.1)),
        ("%e", "%e", D(-1.0e300)),
        ("%a", "%a", D(1.0 / 3.0)),
        ("%.20f", "%.20f", D(5e-324)),
        ("%g", "%g", D(f64::MAX)),
        ("%f", "%f", D(f64::NEG_INFINITY)),
        ("%10.3e|", "%10.3e|", D(-0.0)),
        ("%s", "%s", S("hello")),
        ("%10s|", "%10s|", S("right")),
        ("%-10s|", "%-10s|", S("left")),
        ("%.3s|", "%.3s|", S("truncate")),
        ("%s", "%s", S("")),
        ("100%%", "100%%", None),
        ("tab\there", "tab\there", None),
    ]
}

/// Every scalar case, each in its own printf call of one work-item, in one kernel.
#[test]
fn scalar_conversions_match_the_host_c_library() {
    let cases = scalar_cases();
    let mut body = String::new();
    let mut want = String::new();
    for (k, (cl_fmt, host_fmt, v)) in cases.iter().enumerate() {
        let arg = cl_expr(*v);
        let sep = if arg.is_empty() { "" } else { ", " };
        body += &format!("    printf(\"#{k} {}\\n\"{sep}{arg});\n", c_literal(cl_fmt));
        want += &format!("#{k} {}\n", host(host_fmt, *v));
    }
    let src = format!("kernel void k(global float* data) {{\n{body}}}\n");
    let got = run_printing(&src, "k", 1, 1, &[]);
    assert_eq!(got, want);
    assert!(cases.len() >= 50);
}

/// Several arguments in one call, values computed at run time from a buffer.
#[test]
fn mixed_arguments_with_runtime_values() {
    let data = [1.5f32, -2.25, 1.0e-3, 7.0];
    let src = r#"kernel void k(global float* d) {
        int i = get_global_id(0);
        printf("i=%d f=%.3f e=%e s=%s c=%c x=%#x\n", i, d[i], d[i] * 10.0f, "lit", 'a' + i, (uint)i * 255u);
    }"#;
    let got = run_printing(src, "k", 4, 4, &data);
    let mut want = String::new();
    for (i, f) in data.iter().enumerate() {
        want += &format!(
            "i={i} f={} e={} s=lit c={} x={}\n",
            host("%.3f", V::F(*f)),
            host("%e", V::F(*f * 10.0)),
            (b'a' + i as u8) as char,
            host("%#x", V::U(i as u32 * 255))
        );
    }
    assert_eq!(got, want);
}

/// 64-bit integers (`long`, `ulong`, `long2`) with the `l` length modifier.
#[test]
fn long_arguments() {
    let src = r#"kernel void k(global float* d) {
        long big = (long)get_global_id(0) - 0x123456789abcl;
        printf("%ld|%lu|%lx|%+20ld|%-#18lX|\n", big, (ulong)big, (ulong)big * 3ul, 9223372036854775807l, 0xfedcba9876543210ul);
        printf("%v2ld %lo\n", (long2)(-9223372036854775807l - 1l, 42l), 01234567012345670ul);
    }"#;
    let got = run_printing(src, "k", 2, 2, &[]);
    let mut want = String::new();
    for g in 0..2i64 {
        let big = g - 0x123456789abc;
        want += &format!(
            "{}|{}|{}|{}|{}|\n",
            host("%lld", V::L(big)),
            host("%llu", V::L(big)),
            host("%llx", V::L((big as u64).wrapping_mul(3) as i64)),
            host("%+20lld", V::L(i64::MAX)),
            host("%-#18llX", V::L(0xfedcba9876543210u64 as i64))
        );
        want += &format!(
            "{},{} {}\n",
            host("%lld", V::L(i64::MIN)),
            host("%lld", V::L(42)),
            host("%llo", V::L(0o1234567012345670))
        );
    }
    // Work-items may interleave; compare as multisets of lines per work-item order.
    let mut g: Vec<&str> = got.lines().collect();
    let mut w: Vec<&str> = want.lines().collect();
    g.sort();
    w.sort();
    assert_eq!(g, w, "{got}");
}

/// Vector conversions: each element formatted with the same flags, joined by commas.
#[test]
fn vector_conversions() {
    let src = r#"kernel void k(global float* d) {
        float4 f = (float4)(1.0f, -2.5f, d[0], 0.125f);
        printf("%v4hlf\n", f);
        printf("%v2hld|%v3hlx\n", (int2)(-1, 2), (uint3)(10, 11, 4095));
        printf("%#v4hhx\n", (uchar4)(1, 2, 254, 255));
        printf("%v8hd\n", (short8)(-1, 2, -3, 4, -5, 6, -7, 32767));
        printf("%6.2v2hlf|\n", (float2)(1.23456f, -0.0f));
        printf("%v16hhu\n", (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 255));
        printf("%v2hle\n", (float2)(INFINITY, 1e-3f));
    }"#;
    let got = run_printing(src, "k", 1, 1, &[7.75]);
    let join = |spec: &str, vals: &[V]| vals.iter().map(|v| host(spec, *v)).collect::<Vec<_>>().join(",");
    use V::*;
    let want = [
        join("%f", &[F(1.0), F(-2.5), F(7.75), F(0.125)]),
        format!("{}|{}", join("%d", &[I(-1), I(2)]), join("%x", &[U(10), U(11), U(4095)])),
        join("%#hhx", &[I(1), I(2), I(254), I(255)]),
        join("%hd", &[I(-1), I(2), I(-3), I(4), I(-5), I(6), I(-7), I(32767)]),
        format!("{}|", join("%6.2f", &[F(1.23456), F(-0.0)])),
        join("%hhu", &(0..15).map(I).chain([I(255)]).collect::<Vec<_>>()),
        join("%e", &[F(f32::INFINITY), F(1e-3)]),
    ]
    .map(|l| l + "\n")
    .concat();
    assert_eq!(got, want);
}

/// Many work-items in several work-groups print several lines each; every line arrives, and
/// each work-item's lines keep their program order.
#[test]
fn many_work_items_keep_their_order() {
    let src = r#"kernel void k(global float* d) {
        int g = get_global_id(0);
        for (int j = 0; j < 3; j++)
            printf("wi %d line %d\n", g, j);
        if (g % 2)
            printf("wi %d odd\n", g);
    }"#;
    let n = 256;
    let got = run_printing(src, "k", n, 64, &[]);
    let mut seen = vec![Vec::new(); n];
    for line in got.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts[0], "wi", "{line}");
        let g: usize = parts[1].parse().unwrap();
        seen[g].push(parts[2..].join(" "));
    }
    for (g, lines) in seen.iter().enumerate() {
        let mut want: Vec<String> = (0..3).map(|j| format!("line {j}")).collect();
        if g % 2 == 1 {
            want.push("odd".into());
        }
        assert_eq!(lines, &want, "work-item {g}");
    }
}

/// printf in divergent code, and its return value (0 on success).
#[test]
fn divergent_printf_and_return_value() {
    let src = r#"kernel void k(global float* d) {
        int g = get_global_id(0);
        int r = 1;
        if (g == 3)
            r = printf("only three\n");
        else if (g > 5)
            r = printf("big %d\n", g);
        d[g] = r;
    }"#;
    let got = run_printing(src, "k", 8, 8, &[9.0; 8]);
    assert_eq!(got, "only three\nbig 6\nbig 7\n");
}

/// The line printed before a long loop reaches the host while the kernel still runs: the kernel
/// spins until the host, having received the line, writes a flag through a second queue.
#[test]
fn output_streams_while_the_kernel_runs() {
    let c = Ctx::new(None);
    let p = c.build(
        r#"kernel void k(volatile global int* flag) {
            printf("waiting for the host\n");
            while (atomic_add(flag, 0) == 0) {}
            printf("released\n");
        }"#,
    );
    let (name, mut err) = (CString::new("k").unwrap(), 0);
    let k = call!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let mut zero = 0i32;
    let m = call!(clCreateBuffer(
        c.ctx,
        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
        4,
        &mut zero as *mut i32 as *mut c_void,
        &mut err
    ));
    check(err, "clCreateBuffer");
    check(call!(clSetKernelArg(k, 0, std::mem::size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg");
    let (q1, q2) = (queue(c.ctx, 0), queue(c.ctx, 0));
    let mut e = null_mut();
    let one = 1usize;
    check(call!(clEnqueueNDRangeKernel(q1, k, 1, null(), &one, &one, 0, null(), &mut e)), "enqueue");
    call!(clFlush(q1));
    // Wait (up to a minute) for the first line, with the kernel still running.
    let text = c.sink.text.lock().unwrap();
    let (text, timeout) = c
        .sink
        .changed
        .wait_timeout_while(text, std::time::Duration::from_secs(60), |t| !t.ends_with(b"host\n"))
        .unwrap();
    assert!(!timeout.timed_out(), "the first line did not arrive while the kernel ran");
    drop(text);
    assert_ne!(event_status(e), CL_COMPLETE, "the kernel cannot finish before the flag is set");
    let flag = 1i32;
    check(
        call!(clEnqueueWriteBuffer(q2, m, CL_TRUE, 0, 4, &flag as *const i32 as *const c_void, 0, null(), null_mut())),
        "write flag",
    );
    check(call!(clWaitForEvents(1, &e)), "clWaitForEvents");
    assert_eq!(event_status(e), CL_COMPLETE, "errors: {:?}", c.sink.errors.lock().unwrap());
    assert_eq!(c.take_text(), "waiting for the host\nreleased\n");
    for q in [q1, q2] {
        call!(clReleaseCommandQueue(q));
    }
    call!(clReleaseEvent(e));
    call!(clReleaseMemObject(m));
    call!(clReleaseKernel(k));
    call!(clReleaseProgram(p));
}

/// A buffer too small for what one drain interval prints: the overflow is reported through the
/// context's error callback (never silent), printf returns -1 for lost records, the kernel
/// completes, and every record that was stored is printed whole.
#[test]
fn full_buffer_reports_lost_records() {
    let c = Ctx::new(Some(64));
    let src = r#"kernel void k(global float* d) {
        int g = get_global_id(0);
        d[g] = printf("%d %d %d %d\n", g, g, g, g);
    }"#;
    let out = run_in(&c, src, "k", 32, 32, &[0.0; 32]);
    let errors = c.sink.errors.lock().unwrap().clone();
    assert!(errors.iter().any(|e| e.contains("printf record(s) lost")), "{errors:?}");
    // Ctx::new(Some(64)) sets the size with the context property: the message names it.
    assert!(errors.iter().any(|e| e.contains("set by the context's CL_PRINTF_BUFFERSIZE_ARM")), "{errors:?}");
    for line in out.lines() {
        let v: Vec<&str> = line.split(' ').collect();
        assert!(v.len() == 4 && v.iter().all(|x| *x == v[0]), "{line}");
    }
    assert!(out.lines().count() < 32);
}

#[test]
fn printf_buffer_size_is_reported() {
    let size: usize = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_PRINTF_BUFFER_SIZE);
    let want = std::env::var("VENTUS_PRINTF_BUFFER_SIZE").ok().and_then(|v| v.parse().ok()).unwrap_or(1 << 20);
    assert_eq!(size, want);
    let ext = info_string(cl().clGetDeviceInfo, device(), CL_DEVICE_EXTENSIONS);
    assert!(ext.split(' ').any(|e| e == "cl_arm_printf"), "{ext}");
}

#[test]
fn formats_and_strings_chosen_at_run_time() {
    // clang -O2 merges the two calls of an if/else into one printf on a select of the formats;
    // `%s` may take a conditional literal; a constant NULL `%s` prints "(null)" as in C.
    let src = "__kernel void k(__global float *d) {
        int x = (int)d[get_global_id(0)];
        if (x > 2) printf(\"big %d\\n\", x); else printf(\"small %d\\n\", x);
        printf(\"%s|%s|%s\\n\", x & 1 ? \"odd\" : \"even\", (constant char *)0,
               x > 3 ? (x > 5 ? \"A\" : \"B\") : \"C\");
    }";
    let data: Vec<f32> = (0..8).map(|i| i as f32).collect();
    let got = run_printing(src, "k", 8, 8, &data);
    let mut want = String::new();
    for x in 0..8 {
        want += &if x > 2 { format!("big {x}\n") } else { format!("small {x}\n") };
    }
    for x in 0..8 {
        let p = if x & 1 == 1 { "odd" } else { "even" };
        let q = if x > 3 {
            if x > 5 {
                "A"
            } else {
                "B"
            }
        } else {
            "C"
        };
        want += &format!("{p}|(null)|{q}\n");
    }
    assert_eq!(got, want);
}

/// Doubles computed at run time (soft double precision), printed exactly as the host C library.
#[test]
fn runtime_doubles() {
    let data = [1.5f32, -2.25, 1.0e-3, 7.0];
    let src = r#"kernel void k(global float* d) {
        int i = get_global_id(0);
        double x = (double)d[i] * 3.0 + 0.1;
        printf("%.17g %e %a %f\n", x, sqrt(fabs(x)), x / 7.0, (float)x);
    }"#;
    let got = run_printing(src, "k", 4, 4, &data);
    let mut want = String::new();
    for f in data {
        let x = f as f64 * 3.0 + 0.1;
        want += &format!(
            "{} {} {} {}\n",
            host("%.17g", V::D(x)),
            host("%e", V::D(x.abs().sqrt())),
            host("%a", V::D(x / 7.0)),
            host("%f", V::F(x as f32))
        );
    }
    assert_eq!(got, want);
}
