//! Program-scope global variables (OpenCL C 2.0/3.0), built from source through the ICD loader:
//! initialised scalars, arrays and structs read by work-items; storage that persists across
//! launches and is shared by every kernel of a program; independent storage per program object;
//! `static global` variables in functions; pointers to globals (in initialisers, through function
//! arguments, and as plain addresses carried from one launch to the next);
//! `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE` and the device queries; program binaries and
//! `clLinkProgram` (a variable defined in one object, `extern` in another).
//!
//! Needs clang-15 and llvm-spirv-15 (`bash .ci/run` installs them).

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_void, CString};
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

/// A kernel argument for [`Env::run`].
#[derive(Clone)]
enum Arg {
    /// A read-write buffer initialised with these bytes (read back after the launch).
    Buf(Vec<u8>),
    /// A by-value argument (its bytes).
    Val(Vec<u8>),
}

fn zeros(n: usize) -> Arg {
    Arg::Buf(vec![0; n])
}
fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn ints(b: &[u8]) -> Vec<i32> {
    words(b).into_iter().map(|w| w as i32).collect()
}
fn floats(b: &[u8]) -> Vec<f32> {
    words(b).into_iter().map(f32::from_bits).collect()
}

/// A context and an in-order queue on our device; programs are released with it.
struct Env {
    ctx: cl_context,
    q: cl_command_queue,
    programs: Vec<cl_program>,
}

impl Env {
    fn new() -> Env {
        // The build cache would hide compiler changes from these tests.
        std::env::set_var("VENTUS_CACHE", "0");
        let ctx = context();
        Env { ctx, q: queue(ctx, 0), programs: Vec::new() }
    }

    fn keep(&mut self, p: cl_program) -> cl_program {
        self.programs.push(p);
        p
    }

    /// A program built from `src` with `options` (panics with the build log on failure).
    #[track_caller]
    fn build(&mut self, src: &str, options: &str) -> cl_program {
        let p = self.source(src);
        let (code, log) = build(p, options);
        assert_eq!(code, CL_SUCCESS, "clBuildProgram({options:?}) failed: {}\n--- log\n{log}", err_name(code));
        p
    }

    fn source(&mut self, src: &str) -> cl_program {
        let (mut text, len, mut err) = (src.as_ptr() as *const std::ffi::c_char, src.len(), 0);
        let p = call!(clCreateProgramWithSource(self.ctx, 1, &mut text, &len, &mut err));
        check(err, "clCreateProgramWithSource");
        self.keep(p)
    }

    /// Creates buffers for `args`, runs `name` of `p` over `global` (`local`), waits, and returns
    /// the final contents of the buffers (empty for by-value arguments).
    #[track_caller]
    fn run(&self, p: cl_program, name: &str, args: &[Arg], global: usize, local: usize) -> Vec<Vec<u8>> {
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
                    mems.push(Some((m, b.len())));
                    let m = &mems.last().unwrap().unwrap().0;
                    call!(clSetKernelArg(k, i, size_of::<cl_mem>(), m as *const cl_mem as *const c_void))
                }
                Arg::Val(v) => {
                    mems.push(None);
                    call!(clSetKernelArg(k, i, v.len(), v.as_ptr() as *const c_void))
                }
            };
            check(code, &format!("clSetKernelArg({name}, {i})"));
        }
        let mut e = null_mut();
        let code = call!(clEnqueueNDRangeKernel(self.q, k, 1, null(), &global, &local, 0, null(), &mut e));
        check(code, "clEnqueueNDRangeKernel");
        call!(clWaitForEvents(1, &e));
        assert_eq!(event_status(e), CL_COMPLETE, "{name} did not complete");
        call!(clReleaseEvent(e));
        let out = mems
            .iter()
            .map(|m| {
                let Some((m, len)) = *m else { return Vec::new() };
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

    /// `CL_PROGRAM_BINARIES` of `p` as a new, built program.
    fn rebuild_from_binary(&mut self, p: cl_program) -> cl_program {
        let sizes: Vec<usize> = info_vec(cl().clGetProgramInfo, p, CL_PROGRAM_BINARY_SIZES);
        let mut bin = vec![0u8; sizes[0]];
        let mut ptrs = [bin.as_mut_ptr()];
        let size = size_of::<*mut u8>();
        let code = call!(clGetProgramInfo(p, CL_PROGRAM_BINARIES, size, ptrs.as_mut_ptr() as *mut c_void, null_mut()));
        check(code, "clGetProgramInfo(CL_PROGRAM_BINARIES)");
        let (d, len, mut ptr, mut status, mut err) = (device(), bin.len(), bin.as_ptr(), 1, 0);
        let q = call!(clCreateProgramWithBinary(self.ctx, 1, &d, &len, &mut ptr, &mut status, &mut err));
        check(err, "clCreateProgramWithBinary");
        check(status, "binary status");
        let q = self.keep(q);
        let (code, log) = build(q, "");
        assert_eq!(code, CL_SUCCESS, "building the binary failed: {log}");
        q
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        for &p in &self.programs {
            call!(clReleaseProgram(p));
        }
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

fn log(p: cl_program) -> String {
    let d = device();
    let mut b = info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, s, v, r)));
    b.pop();
    String::from_utf8_lossy(&b).into_owned()
}

fn total_size(p: cl_program) -> usize {
    let d = device();
    let b = info_bytes_with(|s, v, r| {
        call!(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, s, v, r))
    });
    usize::from_ne_bytes(b.try_into().expect("size_t"))
}

const N: usize = 128;

const TABLES: &str = "
    global int scale = 3;
    global float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    typedef struct { int a; short b; float c; } S;
    global S s = {7, -2, 0.25f};
    global uint zeroed[8];
    kernel void read(global float *out, global int *iout) {
        int i = get_global_id(0);
        out[i] = table[i & 3] * scale + s.c;
        iout[i] = s.a + s.b + (int)zeroed[i & 7] + i;
    }";

fn check_tables(options: &str) {
    let mut env = Env::new();
    let p = env.build(TABLES, options);
    let out = env.run(p, "read", &[zeros(4 * N), zeros(4 * N)], N, 64);
    let (f, i) = (floats(&out[0]), ints(&out[1]));
    let table = [1.5f32, 2.5, 3.5, 4.5];
    for k in 0..N {
        assert_eq!(f[k], table[k & 3] * 3.0 + 0.25, "{options}: out[{k}]");
        assert_eq!(i[k], 5 + k as i32, "{options}: iout[{k}]");
    }
}

#[test]
fn initialised_scalars_arrays_and_structs_cl20() {
    check_tables("-cl-std=CL2.0");
    check_tables("-cl-std=CL2.0 -cl-opt-disable");
}

#[test]
fn initialised_scalars_arrays_and_structs_cl30() {
    check_tables("-cl-std=CL3.0");
    check_tables("-cl-std=CL3.0 -cl-opt-disable");
}

const COUNTER: &str = "
    global uint counter = 100;
    global uint launches;
    kernel void bump(void) {
        atomic_inc(&counter);
        if (get_global_id(0) == 0) launches++;
    }
    kernel void read(global uint *out) {
        out[0] = counter;
        out[1] = launches;
    }";

/// The counter incremented by one kernel in two launches is seen by another kernel of the same
/// program in a third launch.
#[test]
fn variables_persist_across_launches_and_kernels() {
    for options in ["-cl-std=CL3.0", "-cl-std=CL2.0 -cl-opt-disable"] {
        let mut env = Env::new();
        let p = env.build(COUNTER, options);
        env.run(p, "bump", &[], N, 64);
        env.run(p, "bump", &[], N, 32);
        let out = words(&env.run(p, "read", &[zeros(8)], 1, 1)[0]);
        assert_eq!(out, vec![100 + 2 * N as u32, 2], "{options}");
        env.run(p, "bump", &[], 64, 64);
        let out = words(&env.run(p, "read", &[zeros(8)], 1, 1)[0]);
        assert_eq!(out, vec![100 + 3 * N as u32 - 64, 3], "{options}");
        // Rebuilding the program gives it fresh variables.
        let (code, log) = build(p, options);
        assert_eq!(code, CL_SUCCESS, "rebuild: {log}");
        let out = words(&env.run(p, "read", &[zeros(8)], 1, 1)[0]);
        assert_eq!(out, vec![100, 0], "{options}: after a rebuild");
    }
}

/// Two programs (same source, so the same variable names) have their own storage; so has a
/// program created from the binary of another, which starts from the initial values.
#[test]
fn programs_are_independent_and_binaries_keep_initialisers() {
    let mut env = Env::new();
    let a = env.build(COUNTER, "-cl-std=CL3.0");
    let b = env.build(COUNTER, "-cl-std=CL3.0");
    env.run(a, "bump", &[], N, 64);
    env.run(a, "bump", &[], N, 64);
    env.run(b, "bump", &[], N, 64);
    let c = env.rebuild_from_binary(a);
    let read = |p| words(&env.run(p, "read", &[zeros(8)], 1, 1)[0]);
    assert_eq!(read(a), vec![100 + 2 * N as u32, 2]);
    assert_eq!(read(b), vec![100 + N as u32, 1]);
    assert_eq!(read(c), vec![100, 0], "a binary's program starts from the initial values");
    env.run(c, "bump", &[], N, 64);
    assert_eq!(read(c), vec![100 + N as u32, 1]);
    assert_eq!(read(a), vec![100 + 2 * N as u32, 2]);

    // Initialised tables survive the binary round trip too.
    let t = env.build(TABLES, "-cl-std=CL2.0");
    let t2 = env.rebuild_from_binary(t);
    let out = env.run(t2, "read", &[zeros(4 * N), zeros(4 * N)], N, 64);
    assert_eq!(floats(&out[0])[..4], [4.75, 7.75, 10.75, 13.75]);
    assert_eq!(ints(&out[1])[..3], [5, 6, 7]);
    assert_eq!(total_size(t2), total_size(t));
}

/// `static global` variables inside functions: one instance per program, initialised once.
#[test]
fn static_globals_in_functions() {
    let src = "
        int ticket(void) { static global int next = 10; return atomic_add(&next, 1); }
        int calls(void) { static global int n; return n++; }
        kernel void take(global int *out) { out[get_global_id(0)] = ticket(); }
        kernel void peek(global int *out) {
            out[0] = ticket();
            out[1] = calls();
        }";
    for options in ["-cl-std=CL2.0", "-cl-std=CL3.0 -cl-opt-disable"] {
        let mut env = Env::new();
        let p = env.build(src, options);
        let mut got = ints(&env.run(p, "take", &[zeros(4 * N)], N, 64)[0]);
        got.sort();
        assert_eq!(got, (10..10 + N as i32).collect::<Vec<_>>(), "{options}: tickets");
        let out = ints(&env.run(p, "peek", &[zeros(8)], 1, 1)[0]);
        assert_eq!(out, vec![10 + N as i32, 0], "{options}");
        let out = ints(&env.run(p, "peek", &[zeros(8)], 1, 1)[0]);
        assert_eq!(out, vec![11 + N as i32, 1], "{options}");
    }
}

/// Pointers to globals: as initialisers of other globals, as function arguments (chosen at run
/// time per work-item), and as a plain address written out by one launch and used by the next.
#[test]
fn pointers_to_globals() {
    let src = "
        global int hits[8];
        global int misses = 1000;
        global int *target = &misses;
        void add(global int *p, int v) { atomic_add(p, v); }
        global int *pick(int i) { return (i & 1) ? &hits[i & 7] : target; }
        kernel void count(global uint *addr) {
            int i = get_global_id(0);
            add(pick(i), 1);
            if (i == 0) addr[0] = (uint)(size_t)&hits[2];
        }
        kernel void poke(uint addr, int v) { *(global int *)(size_t)addr += v; }
        kernel void read(global int *out) {
            for (int k = 0; k < 8; k++) out[k] = hits[k];
            out[8] = *target;
        }";
    for options in ["-cl-std=CL2.0", "-cl-std=CL3.0 -cl-opt-disable"] {
        let mut env = Env::new();
        let p = env.build(src, options);
        let addr = words(&env.run(p, "count", &[zeros(4)], N, 64)[0])[0];
        env.run(p, "poke", &[Arg::Val(addr.to_le_bytes().to_vec()), Arg::Val(5i32.to_le_bytes().to_vec())], 1, 1);
        let out = ints(&env.run(p, "read", &[zeros(36)], 1, 1)[0]);
        let per = (N / 8) as i32;
        assert_eq!(out, vec![0, per, 5, per, 0, per, 0, per, 1000 + (N / 2) as i32], "{options}");
    }
}

/// Initialisers that point inside other globals (`&data[2]`, an array decaying to a pointer, a
/// struct member, a pointer table): llvm-spirv writes them as constant access chains.
#[test]
fn pointer_initialisers_into_arrays_and_structs() {
    let src = "
        global int data[4] = {10, 20, 30, 40};
        typedef struct { int pad; int v[3]; } T;
        global T t = {1, {2, 3, 4}};
        global int *p2 = &data[2];
        global int *p0 = data;
        global int *pv = &t.v[1];
        global int *table[3] = {&data[3], &t.pad, &data[1]};
        typedef struct { global int *a; int n; } P;
        global P ps = {&data[1], 3};
        kernel void read(global int *out) {
            out[0] = *p2; out[1] = *p0; out[2] = *pv;
            for (int k = 0; k < 3; k++) out[3 + k] = *table[k];
            out[6] = ps.a[ps.n - 1];
            out[7] = p2 - p0;
            *p2 += 1;
        }";
    for options in ["-cl-std=CL3.0", "-cl-std=CL2.0 -cl-opt-disable"] {
        let mut env = Env::new();
        let p = env.build(src, options);
        let out = ints(&env.run(p, "read", &[zeros(32)], 1, 1)[0]);
        assert_eq!(out, vec![30, 10, 3, 40, 1, 20, 40, 2], "{options}");
        let out = ints(&env.run(p, "read", &[zeros(32)], 1, 1)[0]);
        assert_eq!(out, vec![31, 10, 3, 40, 1, 20, 40, 2], "{options}: second launch");
    }
}

#[test]
fn total_size_and_device_queries() {
    let mut env = Env::new();
    let p = env.build(
        "global int a[5]; global float b[11]; kernel void k(global int *o) { o[0] = a[1] + b[2]; }",
        "-cl-std=CL3.0",
    );
    assert_eq!(total_size(p), 64);
    let q = env.build("kernel void k(global int *o) { o[0] = 1; }", "-cl-std=CL3.0");
    assert_eq!(total_size(q), 0);
    let d = device();
    let max: usize = info_value(cl().clGetDeviceInfo, d, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE);
    assert_eq!(max, 64 * 1024);
    let pref: usize = info_value(cl().clGetDeviceInfo, d, CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE);
    assert!(pref >= max, "preferred total {pref}");
    let features = info_bytes(cl().clGetDeviceInfo, d, CL_DEVICE_OPENCL_C_FEATURES);
    let names: Vec<String> = features
        .chunks_exact(4 + CL_NAME_VERSION_MAX_NAME_SIZE)
        .map(|c| String::from_utf8_lossy(&c[4..]).trim_end_matches('\0').to_string())
        .collect();
    assert!(names.iter().any(|n| n == "__opencl_c_program_scope_global_variables"), "{names:?}");
    assert!(names.iter().any(|n| n == "__opencl_c_int64"), "{names:?}");

    // A variable beyond the limit is a build error naming it.
    let big = env.source("global int huge[16385]; kernel void k(global int *o) { o[0] = huge[get_global_id(0)]; }");
    let (code, log) = build(big, "-cl-std=CL3.0");
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE);
    assert!(log.contains("huge") && log.contains("CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE"), "{log}");
    // An `extern` variable nothing defines is an undefined symbol.
    let ext = env.source("extern global int nowhere; kernel void k(global int *o) { o[0] = nowhere; }");
    let (code, log) = build(ext, "-cl-std=CL3.0");
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE);
    assert!(log.contains("nowhere"), "{log}");
}

/// Two compiled objects linked: a variable one defines and the other declares `extern` is one
/// variable (also for `constant` data); same-named `static` variables of the two objects stay
/// distinct.
#[test]
fn linked_objects_share_extern_variables() {
    let mut env = Env::new();
    let compile = |env: &mut Env, src: &str| {
        let p = env.source(src);
        let o = c"-cl-std=CL3.0";
        let code = call!(clCompileProgram(p, 0, null(), o.as_ptr(), 0, null(), null_mut(), None, null_mut()));
        assert_eq!(code, CL_SUCCESS, "clCompileProgram: {}", log(p));
        p
    };
    let a = compile(
        &mut env,
        "global int shared = 5;
         constant int squares[4] = {0, 1, 4, 9};
         static global int own = 1;
         kernel void from_a(global int *out) { atomic_add(&shared, 10); out[0] = own; own += 2; }",
    );
    let b = compile(
        &mut env,
        "extern global int shared;
         extern constant int squares[4];
         static global int own = 50;
         kernel void from_b(global int *out) { out[0] = shared; out[1] = own++; out[2] = squares[3]; }",
    );
    let objs = [a, b];
    let mut err = 0;
    let linked = call!(clLinkProgram(env.ctx, 0, null(), null(), 2, objs.as_ptr(), None, null_mut(), &mut err));
    check(err, "clLinkProgram");
    let linked = env.keep(linked);
    let out = ints(&env.run(linked, "from_a", &[zeros(4)], 1, 1)[0]);
    assert_eq!(out, vec![1]);
    let out = ints(&env.run(linked, "from_b", &[zeros(12)], 1, 1)[0]);
    assert_eq!(out, vec![15, 50, 9]);
    let out = ints(&env.run(linked, "from_a", &[zeros(4)], 1, 1)[0]);
    assert_eq!(out, vec![3]);
    let out = ints(&env.run(linked, "from_b", &[zeros(12)], 1, 1)[0]);
    assert_eq!(out, vec![25, 51, 9]);
    assert_eq!(total_size(linked), 16 + 4, "module bases are 16-aligned");
}

/// Pointers to `constant` data (string literals, program-scope constants) in the initialisers
/// of `global` variables and of `constant` tables: the linker relocates them to `.rodata`.
#[test]
fn pointers_to_constant_data() {
    let src = "
        constant int primes[4] = {2, 3, 5, 7};
        constant char *global msg = \"hello\";
        constant int *global pp = &primes[1];
        constant char *constant names[3] = {\"zero\", \"one\", \"two\"};
        global int counter = 0;
        kernel void read(global int *out) {
            out[0] = msg[1];
            out[1] = pp[2];
            out[2] = names[2][1] + names[1][0];
            pp++;
            out[3] = *pp + counter++;
        }";
    for options in ["-cl-std=CL3.0", "-cl-std=CL2.0 -cl-opt-disable"] {
        let mut env = Env::new();
        let p = env.build(src, options);
        let out = ints(&env.run(p, "read", &[zeros(16)], 1, 1)[0]);
        assert_eq!(out, vec!['e' as i32, 7, 'w' as i32 + 'o' as i32, 5], "{options}");
        let out = ints(&env.run(p, "read", &[zeros(16)], 1, 1)[0]);
        assert_eq!(out[3], 8, "{options}: pp and counter persist");
    }
}
