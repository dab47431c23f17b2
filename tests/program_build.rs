//! Building, compiling and linking programs through Debian's ICD loader, beyond single-source
//! builds (see `program_binaries.rs` for those):
//!
//! * libraries: `clCompileProgram` + `clLinkProgram -create-library`, programs linked against one
//!   or several libraries, objects with several embedded headers;
//! * serialised compiled objects and libraries: their `CL_PROGRAM_BINARIES` reloaded with
//!   `clCreateProgramWithBinary` keep their `CL_PROGRAM_BINARY_TYPE` and link; malformed object
//!   containers are `CL_INVALID_BINARY`;
//! * build status, options and log after compile and link; the `-cl-*` optimisation options;
//!   `__opencl_c_*` feature macros equal to `CL_DEVICE_OPENCL_C_FEATURES`;
//! * specialization constants of SPIR-V programs; the build cache and `#include`d headers;
//!   empty sources; `clCreateProgramWithBinary` device-list errors.
//!
//! Needs clang-15 and llvm-spirv-15 (the driver's front end; `bash .ci/run` installs them).

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_char, c_void, CString};
use std::io::Write;
use std::mem::size_of;
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

/// A context and an in-order queue on our device.
struct Env {
    ctx: cl_context,
    q: cl_command_queue,
}

impl Drop for Env {
    fn drop(&mut self) {
        call!(clFinish(self.q));
        call!(clReleaseCommandQueue(self.q));
        call!(clReleaseContext(self.ctx));
    }
}

impl Env {
    fn new() -> Env {
        let ctx = context();
        Env { ctx, q: queue(ctx, 0) }
    }

    fn source(&self, src: &str) -> cl_program {
        // NUL-terminated: a length of 0 (an empty source) means "read up to the NUL".
        let c = CString::new(src).unwrap();
        let (mut text, len, mut err) = (c.as_ptr(), src.len(), 0);
        let p = call!(clCreateProgramWithSource(self.ctx, 1, &mut text, &len, &mut err));
        check(err, "clCreateProgramWithSource");
        p
    }

    /// `clCreateProgramWithBinary` for our device: (program, error, binary status).
    fn binary(&self, bin: &[u8]) -> (cl_program, cl_int, cl_int) {
        let (d, len, mut ptr, mut status, mut err) = (device(), bin.len(), bin.as_ptr(), 1, 0);
        let p = call!(clCreateProgramWithBinary(self.ctx, 1, &d, &len, &mut ptr, &mut status, &mut err));
        (p, err, status)
    }

    /// Reloads `bin`, asserting success.
    fn reload(&self, bin: &[u8]) -> cl_program {
        let (p, err, status) = self.binary(bin);
        check(err, "clCreateProgramWithBinary");
        check(status, "binary_status");
        p
    }

    fn il(&self, il: &[u8]) -> cl_program {
        let mut err = 0;
        let p = call!(clCreateProgramWithIL(self.ctx, il.as_ptr() as *const c_void, il.len(), &mut err));
        check(err, "clCreateProgramWithIL");
        p
    }

    /// `clLinkProgram(inputs, options)`: the program (possibly non-NULL on failure) and the error.
    fn link(&self, inputs: &[cl_program], options: &str) -> (cl_program, cl_int) {
        let (o, mut err) = (CString::new(options).unwrap(), 0);
        let n = inputs.len() as u32;
        let p = call!(clLinkProgram(self.ctx, 0, null(), o.as_ptr(), n, inputs.as_ptr(), None, null_mut(), &mut err));
        (p, err)
    }

    #[track_caller]
    fn link_ok(&self, inputs: &[cl_program], options: &str) -> cl_program {
        let (p, err) = self.link(inputs, options);
        let log = if p.is_null() { String::new() } else { log(p) };
        assert_eq!(err, CL_SUCCESS, "clLinkProgram({options:?}): {}\n{log}", err_name(err));
        p
    }

    /// Runs `name` of `p` over `n` work-items (groups of `local`) with one int buffer holding
    /// `input`; returns the buffer afterwards.
    fn run(&self, p: cl_program, name: &str, input: &[i32], local: usize) -> Vec<i32> {
        let mut err = 0;
        let cname = CString::new(name).unwrap();
        let k = call!(clCreateKernel(p, cname.as_ptr(), &mut err));
        check(err, &format!("clCreateKernel({name})"));
        let bytes = 4 * input.len();
        let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
        let m = call!(clCreateBuffer(self.ctx, flags, bytes, input.as_ptr() as *mut c_void, &mut err));
        check(err, "clCreateBuffer");
        check(call!(clSetKernelArg(k, 0, size_of::<cl_mem>(), &m as *const cl_mem as *const c_void)), "arg 0");
        let (global, local) = (input.len(), local);
        let code = call!(clEnqueueNDRangeKernel(self.q, k, 1, null(), &global, &local, 0, null(), null_mut()));
        check(code, "clEnqueueNDRangeKernel");
        let mut out = vec![0i32; input.len()];
        let dst = out.as_mut_ptr() as *mut c_void;
        check(call!(clEnqueueReadBuffer(self.q, m, CL_TRUE, 0, bytes, dst, 0, null(), null_mut())), "read");
        call!(clReleaseMemObject(m));
        call!(clReleaseKernel(k));
        out
    }
}

fn release(p: cl_program) {
    check(call!(clReleaseProgram(p)), "clReleaseProgram");
}

/// `clBuildProgram(p, options)`: the result code.
fn build(p: cl_program, options: &str) -> cl_int {
    let o = CString::new(options).unwrap();
    call!(clBuildProgram(p, 0, null(), o.as_ptr(), None, null_mut()))
}

#[track_caller]
fn build_ok(p: cl_program, options: &str) {
    let code = build(p, options);
    assert_eq!(code, CL_SUCCESS, "clBuildProgram({options:?}): {}\n{}", err_name(code), log(p));
}

/// `clCompileProgram(p, options, headers)` where `headers` are (include name, header program).
fn compile(p: cl_program, options: &str, headers: &[(&str, cl_program)]) -> cl_int {
    let o = CString::new(options).unwrap();
    let names: Vec<CString> = headers.iter().map(|(n, _)| CString::new(*n).unwrap()).collect();
    let mut name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let progs: Vec<cl_program> = headers.iter().map(|(_, p)| *p).collect();
    let (n, hp, hn) = if headers.is_empty() {
        (0, null(), null_mut())
    } else {
        (headers.len() as u32, progs.as_ptr(), name_ptrs.as_mut_ptr())
    };
    call!(clCompileProgram(p, 0, null(), o.as_ptr(), n, hp, hn, None, null_mut()))
}

#[track_caller]
fn compile_ok(p: cl_program, options: &str, headers: &[(&str, cl_program)]) {
    let code = compile(p, options, headers);
    assert_eq!(code, CL_SUCCESS, "clCompileProgram({options:?}): {}\n{}", err_name(code), log(p));
}

fn build_info(p: cl_program, param: cl_program_build_info) -> Vec<u8> {
    let d = device();
    info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, param, s, v, r)))
}
fn build_string(p: cl_program, param: cl_program_build_info) -> String {
    let mut b = build_info(p, param);
    assert_eq!(b.pop(), Some(0), "not NUL-terminated");
    String::from_utf8_lossy(&b).into_owned()
}
fn log(p: cl_program) -> String {
    build_string(p, CL_PROGRAM_BUILD_LOG)
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

const LIB_MUL: &str = "int lib_mul(int a, int b) { return a * b + 1; }\n";
const LIB_ADD: &str = "int lib_add(int a, int b) { return a + b - 3; }\n";
const MAIN: &str = "extern int lib_mul(int a, int b);\nextern int lib_add(int a, int b);\n\
    __kernel void k(__global int *p) { int i = get_global_id(0); p[i] = lib_add(lib_mul(p[i], 7), i); }\n";

fn expected_main(input: &[i32]) -> Vec<i32> {
    input.iter().enumerate().map(|(i, &x)| (x * 7 + 1) + i as i32 - 3).collect()
}

/// A compiled object of `src`, checked.
fn object(env: &Env, src: &str) -> cl_program {
    let p = env.source(src);
    assert_eq!(binary_type(p), CL_PROGRAM_BINARY_TYPE_NONE);
    compile_ok(p, "", &[]);
    assert_eq!(binary_type(p), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    p
}

#[test]
fn libraries_link_and_serialised_objects_reload() {
    let env = Env::new();
    let input: Vec<i32> = (0..64).map(|i| i * 5 - 100).collect();
    let (mul, add, main) = (object(&env, LIB_MUL), object(&env, LIB_ADD), object(&env, MAIN));

    // One library of two objects.
    let lib = env.link_ok(&[mul, add], "-create-library");
    assert_eq!(binary_type(lib), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    assert_eq!(build_status(lib), CL_BUILD_SUCCESS);
    let mut err = 0;
    call!(clCreateKernel(lib, c"k".as_ptr(), &mut err));
    expect_err(err, CL_INVALID_PROGRAM_EXECUTABLE, "a kernel of a library");
    let exe = env.link_ok(&[main, lib], "");
    assert_eq!(binary_type(exe), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(env.run(exe, "k", &input, 16), expected_main(&input));

    // Two libraries of one object each, and a library of a library.
    let (lib_mul, lib_add) = (env.link_ok(&[mul], "-create-library"), env.link_ok(&[add], "-create-library"));
    let nested = env.link_ok(&[lib_mul], "-create-library -enable-link-options");
    assert_eq!(binary_type(nested), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    let exe2 = env.link_ok(&[lib_add, main, nested], "");
    assert_eq!(env.run(exe2, "k", &input, 16), expected_main(&input));

    // Serialised: objects and libraries carry what linking needs, and keep their type.
    let obj_bin = binaries(main);
    assert!(!obj_bin.is_empty(), "CL_PROGRAM_BINARIES of a compiled object is empty");
    let lib_bin = binaries(lib);
    assert!(!lib_bin.is_empty(), "CL_PROGRAM_BINARIES of a library is empty");
    let main2 = env.reload(&obj_bin);
    assert_eq!(binary_type(main2), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "reloaded object");
    let lib2 = env.reload(&lib_bin);
    assert_eq!(binary_type(lib2), CL_PROGRAM_BINARY_TYPE_LIBRARY, "reloaded library");
    assert_eq!(binaries(lib2), lib_bin, "a reloaded library's binary is unchanged");
    let exe3 = env.link_ok(&[main2, lib2], "");
    assert_eq!(env.run(exe3, "k", &input, 16), expected_main(&input));
    // ... and an executable's binary reloads as an executable.
    let exe4 = env.reload(&binaries(exe3));
    assert_eq!(binary_type(exe4), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    build_ok(exe4, "");
    assert_eq!(env.run(exe4, "k", &input, 16), expected_main(&input));
    // A library relinked after reloading into a library again.
    let lib3 = env.link_ok(&[lib2, main2], "-create-library");
    let exe5 = env.link_ok(&[lib3], "");
    assert_eq!(env.run(exe5, "k", &input, 16), expected_main(&input));

    for p in [mul, add, main, lib, exe, lib_mul, lib_add, nested, exe2, main2, lib2, exe3, exe4, lib3, exe5] {
        release(p);
    }
}

#[test]
fn objects_with_several_embedded_headers_link_with_a_library() {
    let env = Env::new();
    let h1 = env.source("#define SCALE 3\n");
    let h2 = env.source("#define OFFSET 40\n");
    let h3 = env.source("int helper(int x);\n");
    let lib_src = env.source("#include \"h3.h\"\n#include \"dir/h1.h\"\nint helper(int x) { return x * SCALE; }\n");
    compile_ok(lib_src, "", &[("dir/h1.h", h1), ("h3.h", h3)]);
    let lib = env.link_ok(&[lib_src], "-create-library");
    let main = env.source(
        "#include \"h1.h\"\n#include \"h2.h\"\n#include \"h3.h\"\n\
         __kernel void k(__global int *p) { int i = get_global_id(0); p[i] = helper(p[i]) + OFFSET * SCALE; }\n",
    );
    compile_ok(main, "", &[("h1.h", h1), ("h2.h", h2), ("h3.h", h3)]);
    let exe = env.link_ok(&[main, lib], "");
    let input: Vec<i32> = (0..32).collect();
    let want: Vec<i32> = input.iter().map(|x| x * 3 + 120).collect();
    assert_eq!(env.run(exe, "k", &input, 32), want);
    for p in [h1, h2, h3, lib_src, lib, main, exe] {
        release(p);
    }
}

#[test]
fn malformed_object_binaries_are_invalid() {
    let env = Env::new();
    let main = object(&env, MAIN);
    let good = binaries(main);
    let lib = env.link_ok(&[main], "-create-library");
    let good_lib = binaries(lib);
    assert!(env.binary(&good).1 == CL_SUCCESS && env.binary(&good_lib).1 == CL_SUCCESS);
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    // Every proper prefix of both containers (at least the magic number).
    for bin in [&good, &good_lib] {
        for n in (1..bin.len()).step_by(3).chain([bin.len() - 1, bin.len() - 4]) {
            cases.push((format!("first {n} bytes"), bin[..n].to_vec()));
        }
    }
    let mut trailing = good.clone();
    trailing.extend([0, 0, 0, 0]);
    cases.push(("trailing word".into(), trailing));
    // Each header word replaced by garbage, and module lengths that overflow.
    for at in (8..28).step_by(4) {
        for v in [0u32, 3, 0xffff_ffff, 0x8000_0000] {
            if at == 16 && v == 0 {
                continue; // the flags word: 0 (no uniform work-group requirement) is valid
            }
            let mut b = good.clone();
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            cases.push((format!("word at {at} = {v:#x}"), b));
        }
    }
    // A well-framed container around modules that are not SPIR-V, or are broken SPIR-V.
    for body in [vec![0xdead_beefu32; 12], vec![0x0723_0203, 0x0001_0000, 0, 10, 0, 0x0004_0015, 1]] {
        let mut b = good[..24].to_vec();
        b.extend((body.len() as u32).to_le_bytes());
        b.extend(body.iter().flat_map(|w| w.to_le_bytes()));
        cases.push(("bad module".into(), b));
    }
    let mut flipped = good.clone();
    let mid = 28 + (flipped.len() - 28) / 2;
    flipped[mid..mid + 4].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    cases.push(("a module word flipped".into(), flipped));
    let mut tested = 0;
    for (what, bin) in cases {
        if bin == good || bin == good_lib {
            continue;
        }
        let (p, err, status) = env.binary(&bin);
        if what == "a module word flipped" && err == CL_SUCCESS {
            // Possibly still a valid module: then linking must fail or succeed, never crash.
            let (l, _) = env.link(&[p], "");
            for q in [p, l] {
                if !q.is_null() {
                    release(q);
                }
            }
            continue;
        }
        expect_err(err, CL_INVALID_BINARY, &format!("clCreateProgramWithBinary({what})"));
        expect_err(status, CL_INVALID_BINARY, &format!("binary_status({what})"));
        assert!(p.is_null(), "{what}: a program was returned");
        tested += 1;
    }
    assert!(tested > 100);
    release(main);
    release(lib);
}

#[test]
fn status_options_and_log_after_compile_and_link() {
    let env = Env::new();
    let main = env.source(MAIN);
    assert_eq!(build_status(main), CL_BUILD_NONE);
    assert_eq!(build_string(main, CL_PROGRAM_BUILD_OPTIONS), "");
    compile_ok(main, "-DUNUSED=1 -cl-mad-enable", &[]);
    assert_eq!(build_status(main), CL_BUILD_SUCCESS);
    assert_eq!(build_string(main, CL_PROGRAM_BUILD_OPTIONS), "-DUNUSED=1 -cl-mad-enable");
    let _ = log(main);
    let mul = object(&env, LIB_MUL);
    let add = object(&env, LIB_ADD);
    let lib = env.link_ok(&[mul, add], "-create-library");
    assert_eq!(build_status(lib), CL_BUILD_SUCCESS);
    assert_eq!(build_string(lib, CL_PROGRAM_BUILD_OPTIONS), "-create-library");
    let _ = log(lib);
    let exe = env.link_ok(&[main, lib], "-cl-fast-relaxed-math");
    assert_eq!(build_status(exe), CL_BUILD_SUCCESS);
    assert_eq!(build_string(exe, CL_PROGRAM_BUILD_OPTIONS), "-cl-fast-relaxed-math");
    let _ = log(exe);
    // A failed compile: status ERROR with clang's diagnostic, no binary.
    let bad = env.source("int f( { }\n");
    expect_err(compile(bad, "", &[]), CL_COMPILE_PROGRAM_FAILURE, "compiling a syntax error");
    assert_eq!(build_status(bad), CL_BUILD_ERROR);
    assert!(log(bad).contains("error"), "{}", log(bad));
    assert_eq!(binary_type(bad), CL_PROGRAM_BINARY_TYPE_NONE);
    assert!(binaries(bad).is_empty());
    for p in [main, mul, add, lib, exe, bad] {
        release(p);
    }
}

#[test]
fn optimisation_options_all_build() {
    let env = Env::new();
    let src = "__kernel void k(__global int *p) { int i = get_global_id(0); p[i] = p[i] * 3 + (int)(1.5f * i); }\n";
    let input: Vec<i32> = (0..16).collect();
    let want: Vec<i32> = input.iter().map(|&x| x * 3 + (1.5 * x as f32) as i32).collect();
    for opt in [
        "-cl-opt-disable",
        "-cl-mad-enable",
        "-cl-no-signed-zeros",
        "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only",
        "-cl-fast-relaxed-math",
        "-cl-denorms-are-zero",
        "-cl-strict-aliasing",
        "-cl-uniform-work-group-size",
        "-cl-no-subgroup-ifp",
        "-cl-single-precision-constant",
        "-cl-fp32-correctly-rounded-divide-sqrt",
        "-cl-kernel-arg-info",
        "-cl-no-subgroup-ifp -cl-denorms-are-zero -cl-strict-aliasing -Werror",
        "-cl-std=CL3.0 -cl-no-subgroup-ifp -Werror",
    ] {
        let p = env.source(src);
        build_ok(p, opt);
        assert_eq!(env.run(p, "k", &input, 16), want, "{opt}");
        release(p);
        // The same options for clCompileProgram.
        let p = env.source(src);
        compile_ok(p, opt, &[]);
        release(p);
    }
}

/// A refused option fails with the entry point's error code and the build log names it; a
/// program built before keeps its executable and its kernels still run.
#[test]
fn refused_options_name_themselves_in_the_log() {
    let env = Env::new();
    let src = "__kernel void k(__global int *p) { p[get_global_id(0)] += 1; }\n";
    let p = env.source(src);
    build_ok(p, "");
    for (opt, what) in [("-foo-bar", "-foo-bar"), ("-cl-std=CL9.9", "CL9.9"), ("-D", "-D")] {
        let code = build(p, opt);
        assert_eq!(code, CL_INVALID_BUILD_OPTIONS, "{opt}: {}", err_name(code));
        let l = log(p);
        assert!(l.contains("refused") && l.contains(what), "{opt}: build log {l:?}");
        assert_eq!(build_string(p, CL_PROGRAM_BUILD_OPTIONS), opt);
        let code = compile(p, opt, &[]);
        assert_eq!(code, CL_INVALID_COMPILER_OPTIONS, "compile {opt}: {}", err_name(code));
        assert!(log(p).contains(what), "compile {opt}: build log {:?}", log(p));
    }
    assert_eq!(build_status(p), CL_BUILD_SUCCESS, "the earlier build stands");
    assert_eq!(env.run(p, "k", &[1, 2], 2), vec![2, 3]);
    release(p);
}

/// Every OpenCL C feature macro the CTS and the specification name.
const FEATURES: &[&str] = &[
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_generic_address_space",
    "__opencl_c_fp16",
    "__opencl_c_fp64",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_ext_image_unorm_int_2_101010",
    "__opencl_c_ext_fp32_global_atomic_add",
];

#[test]
fn feature_macros_are_the_device_features() {
    let env = Env::new();
    // CL_DEVICE_OPENCL_C_FEATURES: cl_name_version records (a version, a 64-byte name).
    let raw = info_bytes(cl().clGetDeviceInfo, device(), CL_DEVICE_OPENCL_C_FEATURES);
    let reported: Vec<String> =
        raw.chunks_exact(4 + 64).map(|r| String::from_utf8_lossy(&r[4..]).trim_end_matches('\0').to_string()).collect();
    let mut src = String::from("__kernel void k(__global int *p) {\n");
    for (i, f) in FEATURES.iter().enumerate() {
        src.push_str(&format!("#ifdef {f}\n p[{i}] = 1;\n#else\n p[{i}] = 0;\n#endif\n"));
    }
    src.push_str("}\n");
    let p = env.source(&src);
    build_ok(p, "-cl-std=CL3.0");
    let out = env.run(p, "k", &vec![-1; FEATURES.len()], 1);
    let defined: Vec<&str> = FEATURES.iter().zip(&out).filter(|(_, &v)| v == 1).map(|(f, _)| *f).collect();
    let mut want: Vec<&str> = reported.iter().map(String::as_str).collect();
    want.sort();
    // Exactly the device's features (the implicit-order atomics need seq_cst and device scope,
    // which the device reports).
    let mut got = defined.clone();
    got.sort();
    assert_eq!(got, want, "feature macros defined vs CL_DEVICE_OPENCL_C_FEATURES");
    // The C11 atomics with implicit order and scope are declared and work.
    let p2 = env.source(
        "__kernel void k(volatile __global atomic_int *p) { atomic_fetch_add(p, 1); atomic_store(p, atomic_load(p) + 1); }\n",
    );
    build_ok(p2, "-cl-std=CL3.0");
    assert_eq!(env.run(p2, "k", &[5], 1), [7]);
    release(p2);
    release(p);
}

/// Extension macros clang-15 can define for SPIR targets.
const EXTENSION_MACROS: &[&str] = &[
    "cl_khr_byte_addressable_store",
    "cl_khr_fp16",
    "cl_khr_fp64",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "cl_khr_mipmap_image",
    "cl_khr_subgroups",
    "cl_ext_float_atomics",
    "cl_khr_extended_bit_ops",
    "cl_khr_integer_dot_product",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_rotate",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
];

#[test]
fn extension_macros_are_the_device_extensions() {
    let env = Env::new();
    let reported = info_string(cl().clGetDeviceInfo, device(), CL_DEVICE_EXTENSIONS);
    let reported: Vec<&str> = reported.split_whitespace().collect();
    let mut src = String::from("__kernel void k(__global int *p) {\n");
    for (i, e) in EXTENSION_MACROS.iter().enumerate() {
        src.push_str(&format!("#ifdef {e}\n p[{i}] = 1;\n#else\n p[{i}] = 0;\n#endif\n"));
    }
    src.push_str("}\n");
    for std in ["-cl-std=CL1.2", "-cl-std=CL3.0"] {
        let p = env.source(&src);
        build_ok(p, std);
        let out = env.run(p, "k", &vec![-1; EXTENSION_MACROS.len()], 1);
        for (e, v) in EXTENSION_MACROS.iter().zip(&out) {
            // The sub-group extensions need OpenCL C 2.0 or newer (clang-15 has no 1.x
            // declarations).
            let want = reported.contains(e) && !(e.starts_with("cl_khr_subgroup") && std == "-cl-std=CL1.2");
            assert_eq!(*v == 1, want, "{std}: macro {e} defined: {}, reported: {reported:?}", *v == 1);
        }
        release(p);
    }
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

/// SPIR-V of `source` (clang-15 | llvm-spirv-15, CL1.2, spir target).
fn spirv_words_of(source: &str) -> Vec<u32> {
    let args =
        ["-x", "cl", "-cl-std=CL1.2", "-target", "spir-unknown-unknown", "-O2", "-emit-llvm", "-c", "-", "-o", "-"];
    let bc = pipe("clang-15", &args, source.as_bytes());
    let spv = pipe("llvm-spirv-15", &["-", "-o", "-"], &bc);
    spv.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

const OP_CONSTANT: u32 = 43;
const OP_SPEC_CONSTANT: u32 = 50;
const OP_DECORATE: u32 = 71;
const DECORATION_SPEC_ID: u32 = 1;

/// Turns the `OpConstant` whose first literal word is `value` into an `OpSpecConstant` with
/// `SpecId` `spec_id` (the decoration inserted after the module's first `OpDecorate`).
fn make_spec_constant(words: &mut Vec<u32>, value: u32, spec_id: u32) {
    let (mut at, mut target, mut first_decorate) = (5, None, None);
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if op == OP_CONSTANT && words[at + 3] == value && target.is_none() {
            words[at] = (words[at] & 0xffff_0000) | OP_SPEC_CONSTANT;
            target = Some(words[at + 2]);
        }
        if op == OP_DECORATE && first_decorate.is_none() {
            first_decorate = Some(at);
        }
        at += count;
    }
    let target = target.unwrap_or_else(|| panic!("no OpConstant {value}"));
    let at = first_decorate.expect("an OpDecorate");
    words.splice(at..at, [(4 << 16) | OP_DECORATE, target, DECORATION_SPEC_ID, spec_id]);
}

#[test]
fn specialization_constants_are_compiled_in() {
    let env = Env::new();
    let mut words = spirv_words_of(
        "__kernel void k(__global int *p) { int i = get_global_id(0); p[i] = p[i] * 1234567 + 7654321; }\n",
    );
    make_spec_constant(&mut words, 1234567, 3);
    make_spec_constant(&mut words, 7654321, 8);
    let il: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let input: Vec<i32> = (0..16).map(|i| i - 4).collect();

    // Defaults.
    let p = env.il(&il);
    build_ok(p, "");
    let want: Vec<i32> = input.iter().map(|&x| x.wrapping_mul(1234567).wrapping_add(7654321)).collect();
    assert_eq!(env.run(p, "k", &input, 16), want, "default values");
    release(p);

    // Set values, then build (and compile + link).
    for linked in [false, true] {
        let p = env.il(&il);
        let (mul, add) = (5i32, -9i32);
        let set =
            |id: u32, v: i32| call!(clSetProgramSpecializationConstant(p, id, 4, &v as *const i32 as *const c_void));
        check(set(3, mul), "clSetProgramSpecializationConstant(3)");
        check(set(8, add), "clSetProgramSpecializationConstant(8)");
        expect_err(set(4, 1), CL_INVALID_SPEC_ID, "an unknown spec id");
        let exe = if linked {
            compile_ok(p, "", &[]);
            env.link_ok(&[p], "")
        } else {
            build_ok(p, "");
            p
        };
        let want: Vec<i32> = input.iter().map(|&x| x * mul + add).collect();
        assert_eq!(env.run(exe, "k", &input, 16), want, "specialised (linked: {linked})");
        if linked {
            release(exe);
        }
        release(p);
    }
}

#[test]
fn build_cache_sees_header_changes() {
    let env = Env::new();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("ventus-cache-inc-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    // A header that includes another: a change in either must be seen.
    std::fs::write(dir.join("outer.h"), "#include \"sub/inner.h\"\n#define OUTER 100\n").unwrap();
    let src = "#include \"outer.h\"\n__kernel void k(__global int *p) { p[get_global_id(0)] = OUTER + INNER; }\n";
    let options = format!("-I {}", dir.display());
    let result = || {
        let p = env.source(src);
        build_ok(p, &options);
        let out = env.run(p, "k", &[0; 4], 4);
        release(p);
        out[0]
    };
    std::fs::write(dir.join("sub/inner.h"), "#define INNER 1\n").unwrap();
    assert_eq!(result(), 101);
    assert_eq!(result(), 101, "a second build (from the cache)");
    std::fs::write(dir.join("sub/inner.h"), "#define INNER 2\n").unwrap();
    assert_eq!(result(), 102, "the nested header changed");
    std::fs::write(dir.join("outer.h"), "#include \"sub/inner.h\"\n#define OUTER 200\n").unwrap();
    assert_eq!(result(), 202, "the outer header changed");
    let _ = std::fs::remove_dir_all(&dir);

    // A relative include directory (resolved in the current directory, as clang does).
    let cwd = std::env::current_dir().unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-inc-rel-{nanos}"));
    std::fs::create_dir_all(&dir).unwrap();
    let rel = pathdiff(&dir, &cwd);
    let result = |value: i32| {
        std::fs::write(dir.join("inner.h"), format!("#define INNER {value}\n")).unwrap();
        let p = env.source("#include \"inner.h\"\n__kernel void k(__global int *p) { p[get_global_id(0)] = INNER; }\n");
        build_ok(p, &format!("-I {}", rel.display()));
        let out = env.run(p, "k", &[0; 4], 4);
        release(p);
        out[0]
    };
    assert_eq!(result(5), 5);
    assert_eq!(result(6), 6, "a header found through a relative -I changed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `path` relative to `base` (both absolute).
fn pathdiff(path: &std::path::Path, base: &std::path::Path) -> std::path::PathBuf {
    let (p, b): (Vec<_>, Vec<_>) = (path.components().collect(), base.components().collect());
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = std::path::PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}

#[test]
fn empty_sources_build_with_no_kernels() {
    let env = Env::new();
    for src in ["", "\n", "// nothing but a comment\n", "int helper(int x) { return x + 1; }\n"] {
        let p = env.source(src);
        build_ok(p, "");
        assert_eq!(build_status(p), CL_BUILD_SUCCESS, "{src:?}");
        assert_eq!(binary_type(p), CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "{src:?}");
        let n: usize = info_value(cl().clGetProgramInfo, p, CL_PROGRAM_NUM_KERNELS);
        assert_eq!(n, 0, "{src:?}");
        assert_eq!(info_string(cl().clGetProgramInfo, p, CL_PROGRAM_KERNEL_NAMES), "", "{src:?}");
        let mut err = 0;
        call!(clCreateKernel(p, c"k".as_ptr(), &mut err));
        expect_err(err, CL_INVALID_KERNEL_NAME, "no such kernel");
        // Its binary reloads.
        let q = env.reload(&binaries(p));
        build_ok(q, "");
        release(q);
        release(p);
    }
}

#[test]
fn binary_with_null_or_repeated_devices_is_invalid_device() {
    let env = Env::new();
    let p = env.source("__kernel void k(__global int *p) { p[0] = 1; }\n");
    build_ok(p, "");
    let bin = binaries(p);
    let d = device();
    let lens = [bin.len(), bin.len()];
    let mut ptrs = [bin.as_ptr(), bin.as_ptr()];
    let mut status = [1, 1];
    for (what, devs) in [("a repeated device", [d, d]), ("a NULL device", [d, null_mut()])] {
        let mut err = 0;
        let q = call!(clCreateProgramWithBinary(
            env.ctx,
            2,
            devs.as_ptr(),
            lens.as_ptr(),
            ptrs.as_mut_ptr(),
            status.as_mut_ptr(),
            &mut err
        ));
        expect_err(err, CL_INVALID_DEVICE, what);
        assert!(q.is_null(), "{what}");
    }
    let mut err = 0;
    let none: [cl_device_id; 1] = [null_mut()];
    let q = call!(clCreateProgramWithBinary(
        env.ctx,
        1,
        none.as_ptr(),
        lens.as_ptr(),
        ptrs.as_mut_ptr(),
        null_mut(),
        &mut err
    ));
    expect_err(err, CL_INVALID_DEVICE, "a NULL device");
    assert!(q.is_null());
    release(p);
}

// ---- piglit's program rules (issue 31) ------------------------------------------------------

/// `-cl-std`'s OpenCL C version and the kernel's `__OPENCL_VERSION__`/`__OPENCL_C_VERSION__`.
const VERSIONS: &str = "kernel void k(global int *o) { o[0] = __OPENCL_VERSION__; o[1] = __OPENCL_C_VERSION__; }";

#[test]
fn opencl_version_macro_is_the_devices_whatever_the_std() {
    // OpenCL C 3.0 §6.12: __OPENCL_VERSION__ is "the version number of the OpenCL supported by
    // the OpenCL device" (300, CL_DEVICE_VERSION); __OPENCL_C_VERSION__ follows -cl-std (without
    // it, the highest OpenCL C 1.x version: CL_DEVICE_OPENCL_C_VERSION).
    let env = Env::new();
    for (options, c_version) in
        [("", 120), ("-cl-std=CL1.1", 110), ("-cl-std=CL1.2", 120), ("-cl-std=CL2.0", 200), ("-cl-std=CL3.0", 300)]
    {
        let p = env.source(VERSIONS);
        build_ok(p, options);
        assert_eq!(env.run(p, "k", &[0, 0], 1), vec![300, c_version], "{options:?}");
        release(p);
    }
    let device_version = String::from_utf8(info_bytes(cl().clGetDeviceInfo, device(), CL_DEVICE_VERSION)).unwrap();
    assert!(device_version.starts_with("OpenCL 3.0 "), "{device_version}");
}

/// Work-item i: `x + 0.0f` for i < 3, `x * 0.5f` for i < 5, else `x == 0.0f`, where x is the
/// bit pattern of element i.
const DENORMS: &str = "kernel void k(global int *o) {
    int i = get_global_id(0);
    float x = as_float(o[i]);
    o[i] = i < 3 ? as_int(x + 0.0f) : i < 5 ? as_int(x * 0.5f) : (x == 0.0f);
}";
/// Denormal 64, -denormal 64, 1.0f; the smallest normal, 3.0f; denormal 5.
const DENORM_INPUT: [i32; 6] = [64, 0x8000_0040u32 as i32, 0x3f80_0000, 0x0080_0000, 0x4040_0000, 5];

#[test]
fn denorms_are_zero_flushes_single_precision_denormals() {
    let env = Env::new();
    let kept = [64, 0x8000_0040u32 as i32, 0x3f80_0000, 0x0040_0000, 0x3fc0_0000, 0];
    let flushed = [0, 0, 0x3f80_0000, 0, 0x3fc0_0000, 1];
    // From source: the option flushes; without it denormals are kept (CL_FP_DENORM).
    for (options, want) in
        [("", kept), ("-cl-denorms-are-zero", flushed), ("-cl-opt-disable -cl-denorms-are-zero", flushed)]
    {
        let p = env.source(DENORMS);
        build_ok(p, options);
        assert_eq!(env.run(p, "k", &DENORM_INPUT, 1), want, "{options:?}");
        release(p);
    }
    // From IL, and compiled objects linked with the option: the same.
    let il: Vec<u8> = spirv_words_of(DENORMS).iter().flat_map(|w| w.to_le_bytes()).collect();
    for (options, want) in [("", kept), ("-cl-denorms-are-zero", flushed)] {
        let p = env.il(&il);
        build_ok(p, options);
        assert_eq!(env.run(p, "k", &DENORM_INPUT, 1), want, "IL {options:?}");
        release(p);
        let o = env.source(DENORMS);
        compile_ok(o, "", &[]);
        let linked = env.link_ok(&[o], options);
        assert_eq!(env.run(linked, "k", &DENORM_INPUT, 1), want, "linked {options:?}");
        release(linked);
        release(o);
    }
    // Halves keep their denormals (piglit's amdgcn-f16-inline-immediates: 0 + the half 0x0040;
    // the float arithmetic that widens halves is the compiler's, not the program's).
    let half = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global int *o) { o[0] = as_ushort((half)(as_half((ushort)o[0]) + (half)0.0f)); }";
    for options in ["", "-cl-denorms-are-zero"] {
        let p = env.source(half);
        build_ok(p, options);
        assert_eq!(env.run(p, "k", &[0x40], 1), vec![0x40], "half denormal {options:?}");
        release(p);
    }
    // Compiled with the option: the object's kernels flush.
    let o = env.source(DENORMS);
    compile_ok(o, "-cl-denorms-are-zero", &[]);
    let linked = env.link_ok(&[o], "");
    assert_eq!(env.run(linked, "k", &DENORM_INPUT, 1), flushed, "compiled with the option");
}

#[test]
fn link_inputs_must_be_objects_and_symbols_defined_once() {
    // piglit's api@clLinkProgram shapes.
    let env = Env::new();
    let function = object(&env, "int get_number(void) { return 42; }\n");
    let kernel =
        object(&env, "int get_number(void);\nkernel void test_kernel(global int *o) { o[0] = get_number(); }\n");
    let linked = env.link_ok(&[function, kernel], "");
    assert_eq!(env.run(linked, "test_kernel", &[0], 1), vec![42]);
    // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or libraries as
    // described in input_programs argument above are not followed": an executable is neither.
    let (p, err) = env.link(&[linked, kernel], "");
    assert_eq!(err, CL_INVALID_OPERATION, "an executable as a link input");
    assert!(p.is_null());
    assert_eq!(env.link(&[linked], "").1, CL_INVALID_OPERATION, "an executable alone");
    let built = env.source("kernel void k(global int *o) { o[0] = 1; }");
    build_ok(built, "");
    assert_eq!(env.link(&[built], "-create-library").1, CL_INVALID_OPERATION, "a library of an executable");
    // Two definitions of one function: CL_LINK_PROGRAM_FAILURE with the symbol in the log.
    let other = object(
        &env,
        "int get_number(void);\nkernel void test_kernel(global int *o) { o[0] = get_number(); }\n\
         int get_number(void) { return 0; }\n",
    );
    let (p, err) = env.link(&[function, other], "");
    assert_eq!(err, CL_LINK_PROGRAM_FAILURE, "get_number defined twice");
    assert!(!p.is_null());
    assert_eq!(build_status(p), CL_BUILD_ERROR);
    let text = log(p);
    assert!(text.contains("`get_number` is defined in more than one linked program"), "{text}");
    // Likewise a program-scope variable (OpenCL C 2.0).
    let variable = |src: &str| {
        let p = env.source(src);
        compile_ok(p, "-cl-std=CL2.0", &[]);
        p
    };
    let v1 = variable("global int shared_v = 1;\nkernel void a(global int *o) { o[0] = shared_v; }\n");
    let v2 = variable("global int shared_v = 2;\nkernel void b(global int *o) { o[0] = shared_v; }\n");
    let (p, err) = env.link(&[v1, v2], "");
    assert_eq!(err, CL_LINK_PROGRAM_FAILURE, "shared_v defined twice");
    assert!(log(p).contains("`shared_v` is defined in more than one linked program"), "{}", log(p));
}

/// `CL_KERNEL_ARG_NAME` of argument 0 of kernel `k` of `p`: the name or the error.
fn arg_name(p: cl_program) -> Result<String, cl_int> {
    let mut err = 0;
    let k = call!(clCreateKernel(p, c"k".as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let mut buf = [0u8; 64];
    let mut len = 0;
    let code =
        call!(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, buf.len(), buf.as_mut_ptr() as *mut c_void, &mut len));
    call!(clReleaseKernel(k));
    if code != CL_SUCCESS {
        return Err(code);
    }
    Ok(String::from_utf8_lossy(&buf[..len.saturating_sub(1)]).into_owned())
}

#[test]
fn kernel_arg_info_only_for_source_built_with_the_option() {
    // OpenCL 3.0 clGetKernelArgInfo: "only available if the program object associated with
    // kernel is created with clCreateProgramWithSource and the program executable is built with
    // the -cl-kernel-arg-info option specified in the options argument to clBuildProgram or
    // clCompileProgram".
    let src = "kernel void k(global int *out_values, local uint *tmp, int n) { out_values[0] = n; }";
    let env = Env::new();
    let with = env.source(src);
    build_ok(with, "-cl-kernel-arg-info");
    assert_eq!(arg_name(with), Ok("out_values".to_string()));
    let mut err = 0;
    let k = call!(clCreateKernel(with, c"k".as_ptr(), &mut err));
    let q = |i: u32| -> cl_uint {
        let b = info_bytes_with(|s, v, r| call!(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, s, v, r)));
        cl_uint::from_ne_bytes(b.try_into().unwrap())
    };
    assert_eq!(
        [q(0), q(1), q(2)],
        [CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ADDRESS_PRIVATE]
    );
    call!(clReleaseKernel(k));
    let without = env.source(src);
    build_ok(without, "");
    assert_eq!(arg_name(without), Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), "built without the option");
    // A binary (of a program built with the option) carries no promise of argument information.
    let from_binary = env.reload(&binaries(with));
    build_ok(from_binary, "-cl-kernel-arg-info");
    assert_eq!(arg_name(from_binary), Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), "from a binary");
    // IL: not from source.
    let il: Vec<u8> = spirv_words_of(src).iter().flat_map(|w| w.to_le_bytes()).collect();
    let from_il = env.il(&il);
    build_ok(from_il, "-cl-kernel-arg-info");
    assert_eq!(arg_name(from_il), Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), "from IL");
    // Compiled with the option, then linked: available; an input compiled without: not.
    let (o1, o2) = (env.source(src), env.source("int helper(int x) { return x; }"));
    compile_ok(o1, "-cl-kernel-arg-info", &[]);
    compile_ok(o2, "-cl-kernel-arg-info", &[]);
    assert_eq!(arg_name(env.link_ok(&[o1, o2], "")), Ok("out_values".to_string()));
    let o3 = env.source("int helper(int x) { return x; }");
    compile_ok(o3, "", &[]);
    assert_eq!(arg_name(env.link_ok(&[o1, o3], "")), Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), "one input without");
}

#[test]
fn recovered_retries_are_notes_in_the_build_log() {
    // At -O2 LLVM sums this loop in an i33, which llvm-spirv 15 rejects: the driver retries with
    // part of LLVM's pipeline skipped and the build succeeds. A program that searches the log
    // for "error" must not find one.
    let src = "kernel void k(global int *o) { int g = get_global_id(0); int s = 0;
        for (int i = 0; i < o[g] + g; i++) s += i;
        o[g] = s; }";
    let env = Env::new();
    let p = env.source(src);
    build_ok(p, "");
    let text = log(p);
    assert!(text.contains("retried"), "the retry is reported: {text}");
    assert!(!text.to_lowercase().contains("error"), "{text}");
    assert_eq!(env.run(p, "k", &[4, 4, 4, 4], 1), vec![6, 10, 15, 21]);
}

#[test]
fn kernels_declaring_sampler_arguments_build() {
    // piglit's api@clSetKernelArg builds such a kernel on every device and sets the sampler only
    // where images are supported.
    let env = Env::new();
    let p = env.source("kernel void k(global int *o, sampler_t s, int n) { o[0] = n; }");
    build_ok(p, "-cl-kernel-arg-info");
    let mut err = 0;
    let k = call!(clCreateKernel(p, c"k".as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let n: cl_uint = info_value(cl().clGetKernelInfo, k, CL_KERNEL_NUM_ARGS);
    assert_eq!(n, 3);
    let ty = info_bytes_with(|s, v, r| call!(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME, s, v, r)));
    assert_eq!(ty, b"sampler_t\0");
    call!(clReleaseKernel(k));
}
