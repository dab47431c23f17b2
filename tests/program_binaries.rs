//! Programs built from OpenCL C, SPIR-V and binaries, through Debian's ICD loader:
//!
//! * binary round trips: each `cl-samples/kernels/*.cl` kernel is built from source, its
//!   `CL_PROGRAM_BINARIES` become a new program (`clCreateProgramWithBinary`), and both programs
//!   run the same launch with bit-identical results;
//! * IL: a SPIR-V module made here by `clang-15 | llvm-spirv-15` (the flags of
//!   `src/compiler/toolchain.rs`) goes through `clCreateProgramWithIL` and runs like the source;
//! * separate compilation: `clCompileProgram` with embedded headers, and two compiled objects (one
//!   calling a function the other defines) joined by `clLinkProgram`;
//! * build options (`-D`, `-I`, `-cl-std`, `-w`, `-Werror`) and the errors of invalid options,
//!   syntax errors, malformed SPIR-V and garbage binaries, with their build logs.
//!
//! Needs clang-15 and llvm-spirv-15 (the driver's front end; `bash .ci/run` installs them).

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_void, CString};
use std::io::Write;
use std::mem::size_of;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::ptr::{null, null_mut};

/// Calls a loader entry point: `call!(clFoo(args))`. Contract of every use in this file: handles
/// are valid (or deliberately invalid, to be rejected), and every pointer argument is NULL or
/// points to live memory at least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

/// A kernel argument for [`Env::run`].
#[derive(Clone)]
enum Arg {
    /// A read-write buffer initialised with these bytes (read back after the launch).
    Buf(Vec<u8>),
    /// A by-value argument (its bytes).
    Val(Vec<u8>),
}

fn bytes_of<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain numeric values; the slice is `size_of_val(v)` readable bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }.to_vec()
}
fn f32s(v: &[f32]) -> Arg {
    Arg::Buf(bytes_of(v))
}
fn i32s(v: &[i32]) -> Arg {
    Arg::Buf(bytes_of(v))
}
fn u32v(v: u32) -> Arg {
    Arg::Val(v.to_le_bytes().to_vec())
}
fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn floats(b: &[u8]) -> Vec<f32> {
    words(b).into_iter().map(f32::from_bits).collect()
}

/// A context and an in-order queue on our device.
struct Env {
    ctx: cl_context,
    q: cl_command_queue,
}

impl Env {
    fn new() -> Env {
        let ctx = context();
        Env { ctx, q: queue(ctx, 0) }
    }

    /// An unbuilt program from OpenCL C.
    fn source(&self, src: &str) -> cl_program {
        let (mut text, len, mut err) = (src.as_ptr() as *const std::ffi::c_char, src.len(), 0);
        let p = call!(clCreateProgramWithSource(self.ctx, 1, &mut text, &len, &mut err));
        check(err, "clCreateProgramWithSource");
        p
    }

    /// A program from a binary: the program, the create call's error and the binary status.
    fn binary(&self, bin: &[u8]) -> (cl_program, cl_int, cl_int) {
        let (d, len, mut ptr, mut status, mut err) = (device(), bin.len(), bin.as_ptr(), 1, 0);
        let p = call!(clCreateProgramWithBinary(self.ctx, 1, &d, &len, &mut ptr, &mut status, &mut err));
        (p, err, status)
    }

    /// A program from IL: the program and the create call's error.
    fn il(&self, il: &[u8]) -> (cl_program, cl_int) {
        let mut err = 0;
        let p = call!(clCreateProgramWithIL(self.ctx, il.as_ptr() as *const c_void, il.len(), &mut err));
        (p, err)
    }

    /// Creates buffers for `args`, runs `name` of `p` over `global` (`local`), waits, and returns
    /// the final contents of the buffers (in argument order).
    fn run(&self, p: cl_program, name: &str, args: &[Arg], global: &[usize], local: &[usize]) -> Vec<Vec<u8>> {
        let mut err = 0;
        let cname = CString::new(name).unwrap();
        let k = call!(clCreateKernel(p, cname.as_ptr(), &mut err));
        check(err, &format!("clCreateKernel({name})"));
        let mut mems = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let i = i as u32;
            let code = match a {
                Arg::Buf(b) => {
                    let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
                    let m = call!(clCreateBuffer(self.ctx, flags, b.len(), b.as_ptr() as *mut c_void, &mut err));
                    check(err, "clCreateBuffer");
                    mems.push((m, b.len()));
                    let m = &mems.last().unwrap().0;
                    call!(clSetKernelArg(k, i, size_of::<cl_mem>(), m as *const cl_mem as *const c_void))
                }
                Arg::Val(v) => call!(clSetKernelArg(k, i, v.len(), v.as_ptr() as *const c_void)),
            };
            check(code, &format!("clSetKernelArg({name}, {i})"));
        }
        assert_eq!(global.len(), local.len());
        let mut e = null_mut();
        let dim = global.len() as u32;
        let code =
            call!(clEnqueueNDRangeKernel(self.q, k, dim, null(), global.as_ptr(), local.as_ptr(), 0, null(), &mut e));
        check(code, "clEnqueueNDRangeKernel");
        call!(clWaitForEvents(1, &e));
        assert_eq!(event_status(e), CL_COMPLETE, "{name} did not complete");
        call!(clReleaseEvent(e));
        let out = mems
            .iter()
            .map(|&(m, len)| {
                let mut v = vec![0u8; len];
                let dst = v.as_mut_ptr() as *mut c_void;
                check(call!(clEnqueueReadBuffer(self.q, m, CL_TRUE, 0, len, dst, 0, null(), null_mut())), "read");
                call!(clReleaseMemObject(m));
                v
            })
            .collect();
        call!(clReleaseKernel(k));
        out
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        call!(clFinish(self.q));
        call!(clReleaseCommandQueue(self.q));
        call!(clReleaseContext(self.ctx));
    }
}

/// `clBuildProgram(p, options)`: the result code and the build log.
fn build(p: cl_program, options: &str) -> (cl_int, String) {
    let o = CString::new(options).unwrap();
    let code = call!(clBuildProgram(p, 0, null(), o.as_ptr(), None, null_mut()));
    (code, log(p))
}

/// Builds and asserts success, showing the log otherwise.
#[track_caller]
fn build_ok(p: cl_program, options: &str) -> String {
    let (code, log) = build(p, options);
    assert_eq!(code, CL_SUCCESS, "clBuildProgram({options:?}) failed: {}\n--- build log\n{log}", err_name(code));
    log
}

fn build_info(p: cl_program, param: cl_program_build_info) -> Vec<u8> {
    let d = device();
    info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, param, s, v, r)))
}
fn log(p: cl_program) -> String {
    let mut b = build_info(p, CL_PROGRAM_BUILD_LOG);
    assert_eq!(b.pop(), Some(0), "the build log is not NUL-terminated");
    String::from_utf8_lossy(&b).into_owned()
}
fn build_status(p: cl_program) -> cl_build_status {
    i32::from_ne_bytes(build_info(p, CL_PROGRAM_BUILD_STATUS).try_into().unwrap())
}
fn binary_type(p: cl_program) -> cl_program_binary_type {
    u32::from_ne_bytes(build_info(p, CL_PROGRAM_BINARY_TYPE).try_into().unwrap())
}

/// `CL_PROGRAM_BINARIES` of a one-device program (sized by `CL_PROGRAM_BINARY_SIZES`).
fn binaries(p: cl_program) -> Vec<u8> {
    let sizes: Vec<usize> = info_vec(cl().clGetProgramInfo, p, CL_PROGRAM_BINARY_SIZES);
    assert_eq!(sizes.len(), 1, "one device");
    let mut bin = vec![0u8; sizes[0]];
    let mut ptrs = [bin.as_mut_ptr()];
    let size = size_of::<*mut u8>();
    let code = call!(clGetProgramInfo(p, CL_PROGRAM_BINARIES, size, ptrs.as_mut_ptr() as *mut c_void, null_mut()));
    check(code, "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    bin
}

fn kernel_names(p: cl_program) -> String {
    info_string(cl().clGetProgramInfo, p, CL_PROGRAM_KERNEL_NAMES)
}

fn release(p: cl_program) {
    check(call!(clReleaseProgram(p)), "clReleaseProgram");
}

fn sample_kernel(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cl-samples/kernels").join(format!("{name}.cl"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A launch of one `cl-samples` kernel: name, build options, arguments, global and local size.
struct Case {
    name: &'static str,
    options: &'static str,
    args: Vec<Arg>,
    global: Vec<usize>,
    local: Vec<usize>,
}

fn cases() -> Vec<Case> {
    let n = 300usize;
    let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 10.0).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 0.5)).collect();
    let (m, nn, k) = (19usize, 21usize, 13usize);
    let ma: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.11).cos()).collect();
    let mb: Vec<f32> = (0..k * nn).map(|i| (i as f32 * 0.05).sin() - 0.3).collect();
    let data: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 % 37).collect();
    let ints: Vec<i32> = (0..n as i32).map(|i| if i % 11 == 0 { 0 } else { (i * 7919) % 4001 - 2000 }).collect();
    vec![
        Case {
            name: "vecadd",
            options: "",
            args: vec![f32s(&a), f32s(&b), f32s(&vec![0.0; n]), u32v(n as u32)],
            global: vec![320],
            local: vec![64],
        },
        Case {
            name: "saxpy",
            options: "",
            args: vec![f32s(&b), f32s(&a), Arg::Val(1.75f32.to_le_bytes().to_vec()), u32v(n as u32)],
            global: vec![320],
            local: vec![32],
        },
        Case {
            name: "matmul",
            options: "-DTILE=8",
            args: vec![f32s(&ma), f32s(&mb), f32s(&vec![0.0; m * nn]), u32v(m as u32), u32v(nn as u32), u32v(k as u32)],
            global: vec![24, 24],
            local: vec![8, 8],
        },
        Case {
            name: "histogram",
            options: "",
            args: vec![Arg::Buf(data), u32v(5000), Arg::Buf(vec![0; 256 * 4])],
            global: vec![256],
            local: vec![64],
        },
        Case {
            name: "divergence",
            options: "",
            args: vec![i32s(&ints), i32s(&vec![0; n]), u32v(n as u32)],
            global: vec![320],
            local: vec![64],
        },
    ]
}

#[test]
fn source_binaries_round_trip_and_run_bit_identically() {
    let env = Env::new();
    for c in cases() {
        let src = sample_kernel(c.name);
        let ps = env.source(&src);
        build_ok(ps, c.options);
        assert_eq!(build_status(ps), CL_BUILD_SUCCESS);
        assert_eq!(binary_type(ps), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
        assert_eq!(kernel_names(ps), c.name);
        let bin = binaries(ps);
        assert!(bin.starts_with(b"\x7fELF"), "{}: CL_PROGRAM_BINARIES is not an ELF", c.name);

        let (pb, err, status) = env.binary(&bin);
        check(err, "clCreateProgramWithBinary");
        check(status, "binary_status");
        build_ok(pb, c.options);
        assert_eq!(binary_type(pb), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
        assert_eq!(kernel_names(pb), c.name);
        assert_eq!(binaries(pb), bin, "{}: the binary program's binary differs", c.name);

        let from_source = env.run(ps, c.name, &c.args, &c.global, &c.local);
        let from_binary = env.run(pb, c.name, &c.args, &c.global, &c.local);
        assert_eq!(from_source, from_binary, "{}: results differ between source and binary", c.name);
        // The launch did something (outputs differ from inputs somewhere).
        let inputs: Vec<&Vec<u8>> =
            c.args.iter().filter_map(|a| if let Arg::Buf(b) = a { Some(b) } else { None }).collect();
        assert!(from_source.iter().zip(inputs).any(|(o, i)| o != i), "{}: no output written", c.name);
        if c.name == "vecadd" {
            let (a, b, out) = (floats(&c.args_buf(0)), floats(&c.args_buf(1)), floats(&from_source[2]));
            assert!((0..300).all(|i| out[i].to_bits() == (a[i] + b[i]).to_bits()), "vecadd results");
        }
        if c.name == "histogram" {
            assert_eq!(words(&from_source[1]).iter().sum::<u32>(), 5000, "histogram total");
        }
        release(ps);
        release(pb);
    }
}

impl Case {
    fn args_buf(&self, i: usize) -> Vec<u8> {
        match &self.args[i] {
            Arg::Buf(b) => b.clone(),
            _ => panic!("argument {i} is not a buffer"),
        }
    }
}

/// Runs `clang-15 … | llvm-spirv-15 …` as `src/compiler/toolchain.rs` does (CL1.2, spir target,
/// -O2, the same extension set) and returns the SPIR-V module's bytes.
fn spirv_of(source: &str) -> Vec<u8> {
    let cl_ext = "-cl-ext=-all,+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,\
                  +cl_khr_global_int32_extended_atomics,+cl_khr_local_int32_base_atomics,\
                  +cl_khr_local_int32_extended_atomics,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,+cl_khr_fp64,+cl_khr_fp16";
    let clang_args = [
        "-x",
        "cl",
        "-cl-std=CL1.2",
        "-target",
        "spir-unknown-unknown",
        "-O2",
        "-cl-kernel-arg-info",
        "-fno-builtin-memset",
        "-Xclang",
        cl_ext,
        "-emit-llvm",
        "-c",
        "-",
        "-o",
        "-",
    ];
    let bc = pipe("clang-15", &clang_args, source.as_bytes());
    pipe("llvm-spirv-15", &["--preserve-ocl-kernel-arg-type-metadata-through-string", "-", "-o", "-"], &bc)
}

/// Runs `tool args` with `input` on stdin; returns stdout, asserting success.
fn pipe(tool: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {tool} ({e}); install clang-15 and llvm-spirv-15"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{tool} failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn spirv_from_clang_runs_through_create_program_with_il() {
    let env = Env::new();
    for c in cases().into_iter().filter(|c| ["divergence", "histogram", "saxpy"].contains(&c.name)) {
        let src = sample_kernel(c.name);
        let il = spirv_of(&src);
        assert_eq!(&il[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
        let (pi, err) = env.il(&il);
        check(err, "clCreateProgramWithIL");
        assert_eq!(info_bytes(cl().clGetProgramInfo, pi, CL_PROGRAM_IL), il, "CL_PROGRAM_IL");
        build_ok(pi, "");
        assert_eq!(binary_type(pi), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
        assert_eq!(kernel_names(pi), c.name);
        let ps = env.source(&src);
        build_ok(ps, "");
        let from_il = env.run(pi, c.name, &c.args, &c.global, &c.local);
        let from_source = env.run(ps, c.name, &c.args, &c.global, &c.local);
        assert_eq!(from_il, from_source, "{}: IL and source programs disagree", c.name);

        // IL → binary → program.
        let (pb, err, status) = env.binary(&binaries(pi));
        check(err, "clCreateProgramWithBinary");
        check(status, "binary_status");
        build_ok(pb, "");
        assert_eq!(env.run(pb, c.name, &c.args, &c.global, &c.local), from_il, "{}: IL binary", c.name);
        for p in [pi, ps, pb] {
            release(p);
        }
    }
}

/// `clCompileProgram(p, options, headers)` where `headers` are (include name, header program).
fn compile(p: cl_program, options: &str, headers: &[(&str, cl_program)]) -> (cl_int, String) {
    let o = CString::new(options).unwrap();
    let names: Vec<CString> = headers.iter().map(|(n, _)| CString::new(*n).unwrap()).collect();
    let mut name_ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let progs: Vec<cl_program> = headers.iter().map(|(_, p)| *p).collect();
    let (n, hp, hn) = if headers.is_empty() {
        (0, null(), null_mut())
    } else {
        (headers.len() as u32, progs.as_ptr(), name_ptrs.as_mut_ptr())
    };
    let code = call!(clCompileProgram(p, 0, null(), o.as_ptr(), n, hp, hn, None, null_mut()));
    (code, log(p))
}

/// `clLinkProgram(inputs, options)`: the program (possibly non-NULL on failure) and the error.
fn link(env: &Env, inputs: &[cl_program], options: &str) -> (cl_program, cl_int) {
    let (o, mut err) = (CString::new(options).unwrap(), 0);
    let n = inputs.len() as u32;
    let p = call!(clLinkProgram(env.ctx, 0, null(), o.as_ptr(), n, inputs.as_ptr(), None, null_mut(), &mut err));
    (p, err)
}

#[test]
fn compile_with_embedded_headers_then_link() {
    let env = Env::new();
    let h1 = env
        .source("#ifndef OPS_H\n#define OPS_H\n#define SCALE 3\nstatic int twice(int x) { return 2 * x; }\n#endif\n");
    let h2 = env.source("#include \"ops.h\"\n#define OFFSET (SCALE * 100)\n");
    let main = env.source(
        "#include \"ops.h\"\n#include \"util/offset.h\"\n\
         __kernel void k(__global int *p) { int i = get_global_id(0); p[i] = twice(p[i]) * SCALE + OFFSET; }\n",
    );
    // Without the headers the include fails, with a log naming the file.
    let bare = env.source("#include \"ops.h\"\n__kernel void k(__global int *p) { p[0] = SCALE; }\n");
    let (code, log) = compile(bare, "", &[]);
    expect_err(code, CL_COMPILE_PROGRAM_FAILURE, "compile without the header");
    assert!(log.contains("ops.h"), "the log should name the missing header:\n{log}");

    let (code, log) = compile(main, "", &[("ops.h", h1), ("util/offset.h", h2)]);
    assert_eq!(code, CL_SUCCESS, "clCompileProgram: {}\n{log}", err_name(code));
    assert_eq!(build_status(main), CL_BUILD_SUCCESS);
    assert_eq!(binary_type(main), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);

    let (linked, err) = link(&env, &[main], "");
    assert_eq!(err, CL_SUCCESS, "clLinkProgram: {}\n{}", err_name(err), log_of(linked));
    assert_eq!(binary_type(linked), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    let input: Vec<i32> = (0..64).map(|i| i - 20).collect();
    let out = env.run(linked, "k", &[i32s(&input)], &[64], &[32]);
    let got: Vec<i32> = words(&out[0]).into_iter().map(|w| w as i32).collect();
    let want: Vec<i32> = input.iter().map(|x| 2 * x * 3 + 300).collect();
    assert_eq!(got, want);
    for p in [h1, h2, main, bare, linked] {
        release(p);
    }
}

fn log_of(p: cl_program) -> String {
    if p.is_null() {
        "(no program)".into()
    } else {
        log(p)
    }
}

#[test]
fn two_compiled_objects_linked_call_across_modules() {
    let env = Env::new();
    let lib = env.source(
        "int mix(int a, int b) { return a * 31 + (b ^ 0x55); }\n\
         float lerp3(float a, float b, float t) { return a + (b - a) * t; }\n",
    );
    let main = env.source(
        "extern int mix(int a, int b);\nextern float lerp3(float a, float b, float t);\n\
         __kernel void k(__global int *p, __global float *f) {\n\
             int i = get_global_id(0);\n\
             p[i] = mix(p[i], i);\n\
             f[i] = lerp3(f[i], 10.0f, 0.25f);\n\
         }\n",
    );
    for p in [lib, main] {
        let (code, log) = compile(p, "", &[]);
        assert_eq!(code, CL_SUCCESS, "clCompileProgram: {}\n{log}", err_name(code));
    }
    // Alone, `main` lacks `mix`: linking it by itself must fail with a log.
    let (alone, err) = link(&env, &[main], "");
    expect_err(err, CL_LINK_PROGRAM_FAILURE, "linking an object with an unresolved function");
    assert!(!log_of(alone).trim().is_empty(), "the failed link has no log");

    let (linked, err) = link(&env, &[lib, main], "");
    assert_eq!(err, CL_SUCCESS, "clLinkProgram: {}\n{}", err_name(err), log_of(linked));
    assert_eq!(kernel_names(linked), "k");
    let p: Vec<i32> = (0..40).map(|i| i * 3 - 50).collect();
    let f: Vec<f32> = (0..40).map(|i| i as f32 * 0.5).collect();
    let out = env.run(linked, "k", &[i32s(&p), f32s(&f)], &[40], &[8]);
    let got_p: Vec<i32> = words(&out[0]).into_iter().map(|w| w as i32).collect();
    let want_p: Vec<i32> = (0..40).map(|i| p[i as usize].wrapping_mul(31) + (i ^ 0x55)).collect();
    assert_eq!(got_p, want_p);
    let got_f = floats(&out[1]);
    for i in 0..40 {
        let want = f[i] + (10.0 - f[i]) * 0.25;
        let fused = (10.0 - f[i]).mul_add(0.25, f[i]);
        assert!(got_f[i] == want || got_f[i] == fused, "f[{i}] = {}, expected {want}", got_f[i]);
    }
    for p in [lib, main, alone, linked] {
        if !p.is_null() {
            release(p);
        }
    }
}

/// A kernel writing `[VALUE + OTHER, __OPENCL_C_VERSION__, FROM_HEADER]`.
const OPTIONS_KERNEL: &str = "#include \"opt_test.h\"\n\
    __kernel void k(__global int *p) { p[0] = VALUE + OTHER; p[1] = __OPENCL_C_VERSION__; p[2] = FROM_HEADER; }\n";

#[test]
fn build_options_define_include_and_language_version() {
    let env = Env::new();
    let dir: PathBuf = std::env::temp_dir().join(format!("ventus-opt-test-{} dir", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("opt_test.h"), "#define FROM_HEADER 77\n").unwrap();
    let run = |options: &str| {
        let p = env.source(OPTIONS_KERNEL);
        build_ok(p, options);
        let out = env.run(p, "k", &[i32s(&[0; 3])], &[1], &[1]);
        release(p);
        words(&out[0])
    };
    // -D NAME=V and -DNAME=V, -I with a quoted path (the directory name has a space).
    let inc = format!("-I \"{}\"", dir.display());
    assert_eq!(run(&format!("-DVALUE=40 -D OTHER=2 {inc}")), [42, 120, 77]);
    assert_eq!(run(&format!("-DVALUE=1 -DOTHER=2 {inc} -cl-std=CL1.2")), [3, 120, 77]);
    assert_eq!(run(&format!("-DVALUE=1 -DOTHER=2 -I\"{}\" -cl-std=CL1.1", dir.display())).get(1), Some(&110));
    // Missing -I: the include fails.
    let p = env.source(OPTIONS_KERNEL);
    let (code, log) = build(p, "-DVALUE=1 -DOTHER=2");
    expect_err(code, CL_BUILD_PROGRAM_FAILURE, "build without -I");
    assert!(log.contains("opt_test.h"), "{log}");
    release(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kernel with a warning that clang reports by default (a constant that does not fit `int`).
const WARNING_KERNEL: &str =
    "__kernel void k(__global int *p) {\n    int big = 4294967297L;\n    p[get_global_id(0)] = big;\n}\n";

#[test]
fn warnings_w_and_werror() {
    let env = Env::new();
    let plain = env.source(WARNING_KERNEL);
    let log = build_ok(plain, "");
    assert!(log.contains("warning") && log.contains(":2:"), "the warning (line 2) should be in the log:\n{log}");
    let out = env.run(plain, "k", &[i32s(&[9; 4])], &[4], &[4]);
    assert_eq!(words(&out[0]), [1; 4], "4294967297 truncated to int is 1");

    let quiet = env.source(WARNING_KERNEL);
    let log = build_ok(quiet, "-w");
    assert!(!log.contains("warning"), "-w should silence the warning:\n{log}");

    let strict = env.source(WARNING_KERNEL);
    let (code, log) = build(strict, "-Werror");
    expect_err(code, CL_BUILD_PROGRAM_FAILURE, "a warning with -Werror");
    assert_eq!(build_status(strict), CL_BUILD_ERROR);
    assert!(log.contains("error") && log.contains(":2:"), "the promoted warning should be in the log:\n{log}");
    assert!(log.contains("-Werror"), "the log should say the error is a promoted warning:\n{log}");
    let mut err = 0;
    call!(clCreateKernel(strict, c"k".as_ptr(), &mut err));
    expect_err(err, CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed build");
    for p in [plain, quiet, strict] {
        release(p);
    }
}

#[test]
fn invalid_build_options_are_rejected() {
    let env = Env::new();
    let p = env.source("__kernel void k(__global int *p) { p[0] = 1; }");
    for bad in ["-cl-bogus", "--definitely-not-an-option", "-cl-std=CL9.9", "-D", "-I"] {
        let (code, _) = build(p, bad);
        expect_err(code, CL_INVALID_BUILD_OPTIONS, &format!("clBuildProgram({bad:?})"));
    }
    let (code, _) = compile(p, "-cl-bogus", &[]);
    expect_err(code, CL_INVALID_COMPILER_OPTIONS, "clCompileProgram(-cl-bogus)");
    // The program is still usable with valid options.
    build_ok(p, "-cl-std=CL1.2 -cl-mad-enable");
    release(p);
}

#[test]
fn syntax_error_fails_the_build_with_clangs_diagnostic() {
    let env = Env::new();
    let src = "__kernel void k(__global int *p) {\n    int x = 1;\n    p[0] = x +;\n}\n";
    let p = env.source(src);
    let (code, log) = build(p, "");
    expect_err(code, CL_BUILD_PROGRAM_FAILURE, "building a syntax error");
    assert_eq!(build_status(p), CL_BUILD_ERROR);
    assert!(log.contains(":3:") && log.contains("error"), "clang's diagnostic with line 3 expected:\n{log}");
    assert!(log.contains("expected expression"), "clang's message expected:\n{log}");
    assert_eq!(binary_type(p), CL_PROGRAM_BINARY_TYPE_NONE);
    let mut err = 0;
    call!(clCreateKernel(p, c"k".as_ptr(), &mut err));
    expect_err(err, CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed build");
    let (code, log) = compile(p, "", &[]);
    expect_err(code, CL_COMPILE_PROGRAM_FAILURE, "compiling a syntax error");
    assert!(log.contains(":3:"), "{log}");
    release(p);
}

#[test]
fn malformed_spirv_is_rejected_with_a_log() {
    let env = Env::new();
    // Not SPIR-V at all: "CL_INVALID_VALUE if ... il does not contain well-formed intermediate
    // language".
    for junk in [&b"this is not SPIR-V"[..], &b"\x03\x02\x23\x07\x00"[..], &[0u8; 64][..]] {
        let (_, err) = env.il(junk);
        expect_err(err, CL_INVALID_VALUE, "clCreateProgramWithIL(garbage)");
    }
    let good = spirv_of(&sample_kernel("saxpy"));
    let header = &good[..20];
    // A valid header followed by garbage, and a module cut in half: accepted by the (cheap) create
    // check or rejected as not well-formed; if accepted, the build must fail with a log.
    let mut garbage = header.to_vec();
    garbage.extend((0..64u32).flat_map(|i| (0xdead_0000u32 | i).to_le_bytes()));
    let truncated = good[..(good.len() / 2) & !3].to_vec();
    let mut bad_opcode = good.clone();
    // The first instruction after the header becomes an unknown opcode of the same length.
    let w = u32::from_le_bytes(bad_opcode[20..24].try_into().unwrap());
    bad_opcode[20..24].copy_from_slice(&((w & 0xffff_0000) | 0xfff0).to_le_bytes());
    for (what, il) in [("garbage body", garbage), ("truncated module", truncated), ("unknown opcode", bad_opcode)] {
        let (p, err) = env.il(&il);
        if err == CL_INVALID_VALUE {
            continue;
        }
        check(err, &format!("clCreateProgramWithIL({what})"));
        let (code, log) = build(p, "");
        expect_err(code, CL_BUILD_PROGRAM_FAILURE, &format!("building {what}"));
        assert_eq!(build_status(p), CL_BUILD_ERROR, "{what}");
        assert!(log.contains("SPIR-V"), "{what}: the build log should explain the SPIR-V problem:\n{log}");
        println!("{what}: {}", log.trim());
        release(p);
    }
}

#[test]
fn garbage_binaries_are_invalid() {
    let env = Env::new();
    let ps = env.source(&sample_kernel("vecadd"));
    build_ok(ps, "");
    let elf = binaries(ps);
    let mut wrong_machine = elf.clone();
    wrong_machine[18] ^= 0xff; // e_machine
    let spirv = spirv_of(&sample_kernel("vecadd"));
    let cases: [(&str, Vec<u8>); 5] = [
        ("random bytes", (0..1000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()),
        ("truncated ELF", elf[..elf.len() / 3].to_vec()),
        ("ELF header only", elf[..52].to_vec()),
        ("wrong e_machine", wrong_machine),
        ("a SPIR-V module", spirv),
    ];
    for (what, bin) in cases {
        let (p, err, status) = env.binary(&bin);
        expect_err(err, CL_INVALID_BINARY, &format!("clCreateProgramWithBinary({what})"));
        expect_err(status, CL_INVALID_BINARY, &format!("binary_status({what})"));
        assert!(p.is_null(), "{what}: a program was returned");
    }
    release(ps);
}
