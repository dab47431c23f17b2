//! Programs, kernels and launches (OpenCL 3.0 §5.8–§5.10) through Debian's ICD loader.
//!
//! Kernels: the official `vecadd.riscv` (2023 toolchain, no argument metadata) and small kernels
//! of our own, assembled and linked with our crt0 (`ventus_icd::abi::crt0::link`, a pure function:
//! no driver state of this process is used — every OpenCL call goes through the loader to the
//! cdylib). Each kernel exists twice: with `.ventus.kernel_info` metadata and without (arguments
//! are then accepted "by size").
//!
//! Environment-dependent behaviour (`VENTUS_WATCHDOG`, `VENTUS_TRAP`, read once per process) is
//! tested in child processes running one `#[ignore]`d test of this file with the variable set.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::mem::size_of;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

/// Calls a loader entry point: `call!(clFoo(args))`. Contract of every use in this file: handles
/// are valid or deliberately invalid (the driver must reject them with an error), and every
/// pointer argument is NULL or points to live memory at least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

const KERNELS: &str = "
.globl vadd
vadd:                            # c[i] = a[i] + b[i]
    lw t0, 0(a0)
    lw t1, 4(a0)
    lw t2, 8(a0)
    csrr x3, gl_id_x             # v3 = global id x (per-lane CSR)
    vsll.vi v4, v3, 2
    vadd.vx v5, v4, t0
    vlw12.v v5, 0(v5)
    vadd.vx v6, v4, t1
    vlw12.v v6, 0(v6)
    vadd.vv v5, v5, v6
    vadd.vx v7, v4, t2
    vsw12.v v5, 0(v7)
    ret

.globl ids
ids:                             # out[gll] = gx + 1000 gy + 1e6 gz; lids[gll] = lx | ly<<8 | lz<<16
    lw t0, 0(a0)
    lw t1, 4(a0)
    lw t2, 8(a0)
    csrr x8, gll_id
    vsll.vi v8, v8, 2
    csrr x9, gl_id_x
    csrr x10, gl_id_y
    csrr x11, gl_id_z
    li t3, 1000
    vmul.vx v10, v10, t3
    li t3, 1000000
    vmul.vx v11, v11, t3
    vadd.vv v9, v9, v10
    vadd.vv v9, v9, v11
    vadd.vx v12, v8, t0
    vsw12.v v9, 0(v12)
    csrr x13, lc_id_x
    csrr x14, lc_id_y
    csrr x15, lc_id_z
    vsll.vi v14, v14, 8
    vsll.vi v15, v15, 16
    vor.vv v13, v13, v14
    vor.vv v13, v13, v15
    vadd.vx v12, v8, t1
    vsw12.v v13, 0(v12)
    csrr t3, knl                 # sizes[0..10] = metadata words 2..12
    addi t3, t3, 8
    li t5, 10
ids_copy:
    lw t4, 0(t3)
    sw t4, 0(t2)
    addi t3, t3, 4
    addi t2, t2, 4
    addi t5, t5, -1
    bnez t5, ids_copy
    ret

.globl scratch
scratch:                         # a[l] = l; b[l] = l + 7; barrier; out[g] = a[l'] + b[l'], l' = (l+1) % L
    lw t0, 0(a0)
    lw t1, 4(a0)
    lw t2, 8(a0)
    lw t6, 12(a0)
    sw t1, 0(t6)                 # ptrs[0..2] = the two __local addresses
    sw t2, 4(t6)
    csrr x3, lc_id_x
    vsll.vi v4, v3, 2
    vadd.vx v5, v4, t1
    vsw12.v v3, 0(v5)
    vadd.vx v6, v4, t2
    vadd.vi v7, v3, 7
    vsw12.v v7, 0(v6)
    barrier
    csrr t3, knl
    lw t4, 24(t3)
    vadd.vi v8, v3, 1
    vremu.vx v8, v8, t4
    vsll.vi v8, v8, 2
    vadd.vx v9, v8, t1
    vlw12.v v9, 0(v9)
    vadd.vx v10, v8, t2
    vlw12.v v10, 0(v10)
    vadd.vv v9, v9, v10
    csrr x11, gl_id_x
    vsll.vi v11, v11, 2
    vadd.vx v11, v11, t0
    vsw12.v v9, 0(v11)
    ret

.globl mix
mix:                             # out[0..4] = c, l (low, high), i
    lw t0, 0(a0)
    lb t1, 4(a0)
    sw t1, 0(t0)
    lw t1, 8(a0)
    sw t1, 4(t0)
    lw t1, 12(a0)
    sw t1, 8(t0)
    lw t1, 16(a0)
    sw t1, 12(t0)
    ret

.globl inc
inc:                             # p[i] += 1
    lw t0, 0(a0)
    csrr x3, gl_id_x
    vsll.vi v3, v3, 2
    vadd.vx v3, v3, t0
    vlw12.v v4, 0(v3)
    vadd.vi v4, v4, 1
    vsw12.v v4, 0(v3)
    ret

.globl fixed
fixed:
    j inc

.globl crash
crash:                           # store to an unmapped address
    li t0, 0x10
    sw zero, 0(t0)
    ret

.globl spin
spin:
    j spin
";

const DECLS: &str = "
kernel void vadd(global int* a, global int* b, global int* c);
kernel void ids(global uint* out, global uint* lids, global uint* sizes);
kernel void scratch(global uint* out, local uint* a, local uint* b, global uint* ptrs);
kernel void mix(global int* out, char c, long l, int i);
kernel void inc(global int* p);
kernel void fixed(global int* p) __attribute__((reqd_work_group_size(8, 2, 1)));
kernel void crash(global int* p);
kernel void spin(global int* p);
";

const ALL_KERNELS: &str = "vadd;ids;scratch;mix;inc;fixed;crash;spin";

/// Our test ELF, with or without argument metadata.
fn our_elf(metadata: bool) -> Vec<u8> {
    let decls = if metadata { ventus_icd::abi::crt0::parse_kernel_decls(DECLS).unwrap() } else { Vec::new() };
    ventus_icd::abi::crt0::link(KERNELS, &decls).unwrap()
}

fn official_elf() -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/testdata/ventus-official/vsw-vecadd-elf/vecadd.riscv");
    std::fs::read(p).unwrap()
}

/// Messages a context's error callback received.
type Messages = Mutex<Vec<String>>;

unsafe extern "C" fn record(msg: *const c_char, _: *const c_void, _: usize, user: *mut c_void) {
    // SAFETY: `user` is the leaked `Messages` given at context creation; `msg` is a C string
    // valid for the call.
    let (m, s) = unsafe { (&*(user as *const Messages), CStr::from_ptr(msg)) };
    m.lock().unwrap().push(s.to_string_lossy().into_owned());
}

struct Env {
    ctx: cl_context,
    q: cl_command_queue,
    messages: &'static Messages,
}

impl Env {
    fn new() -> Env {
        Env::with_queue(0)
    }
    fn with_queue(props: cl_command_queue_properties) -> Env {
        let messages: &'static Messages = Box::leak(Box::new(Mutex::new(Vec::new())));
        let (d, mut err) = (device(), 0);
        let user = messages as *const Messages as *mut c_void;
        let ctx = call!(clCreateContext(null(), 1, &d, Some(record), user, &mut err));
        check(err, "clCreateContext");
        Env { ctx, q: queue(ctx, props), messages }
    }
    fn messages(&self) -> Vec<String> {
        self.messages.lock().unwrap().clone()
    }
    /// A built program from `bytes`.
    fn program(&self, bytes: &[u8]) -> cl_program {
        let p = self.program_unbuilt(bytes);
        check(call!(clBuildProgram(p, 0, null(), null(), None, null_mut())), "clBuildProgram");
        p
    }
    fn program_unbuilt(&self, bytes: &[u8]) -> cl_program {
        let (d, len, mut ptr, mut status, mut err) = (device(), bytes.len(), bytes.as_ptr(), 1, 0);
        let p = call!(clCreateProgramWithBinary(self.ctx, 1, &d, &len, &mut ptr, &mut status, &mut err));
        check(err, "clCreateProgramWithBinary");
        assert_eq!(status, CL_SUCCESS);
        p
    }
    fn buffer(&self, words: &[u32]) -> cl_mem {
        let mut err = 0;
        let flags = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
        let m = call!(clCreateBuffer(self.ctx, flags, 4 * words.len(), words.as_ptr() as *mut c_void, &mut err));
        check(err, "clCreateBuffer");
        m
    }
    fn read(&self, m: cl_mem, n: usize) -> Vec<u32> {
        let mut out = vec![0u32; n];
        let dst = out.as_mut_ptr() as *mut c_void;
        check(call!(clEnqueueReadBuffer(self.q, m, CL_TRUE, 0, 4 * n, dst, 0, null(), null_mut())), "read");
        out
    }
    /// Enqueues `k` over `g` (offsets `o`, local size `l`) and waits; returns the final status.
    fn run(&self, k: cl_kernel, o: Option<&[usize]>, g: &[usize], l: Option<&[usize]>) -> cl_int {
        wait_status(self.launch(k, o, g, l).unwrap_or_else(|c| panic!("enqueue: {}", err_name(c))))
    }
    /// Enqueues `k` over `g` (work_dim = `g.len()`): the event, or the error code.
    fn launch(&self, k: cl_kernel, o: Option<&[usize]>, g: &[usize], l: Option<&[usize]>) -> Result<cl_event, cl_int> {
        let (mut e, p) = (null_mut(), |s: Option<&[usize]>| s.map_or(null(), |s| s.as_ptr()));
        let dim = g.len() as u32;
        let code = call!(clEnqueueNDRangeKernel(self.q, k, dim, p(o), g.as_ptr(), p(l), 0, null(), &mut e));
        if code == CL_SUCCESS {
            Ok(e)
        } else {
            Err(code)
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        call!(clFinish(self.q));
        call!(clReleaseCommandQueue(self.q));
        call!(clReleaseContext(self.ctx));
    }
}

fn wait_status(e: cl_event) -> cl_int {
    call!(clWaitForEvents(1, &e));
    let s = event_status(e);
    call!(clReleaseEvent(e));
    s
}

fn kernel(p: cl_program, name: &str) -> cl_kernel {
    let (n, mut err) = (CString::new(name).unwrap(), 0);
    let k = call!(clCreateKernel(p, n.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    k
}

fn set_raw(k: cl_kernel, i: u32, size: usize, value: *const c_void) -> cl_int {
    call!(clSetKernelArg(k, i, size, value))
}
fn set_mem(k: cl_kernel, i: u32, m: &cl_mem) {
    check(set_raw(k, i, size_of::<cl_mem>(), m as *const cl_mem as *const c_void), "clSetKernelArg(mem)");
}
fn set_val<T>(k: cl_kernel, i: u32, v: &T) {
    check(set_raw(k, i, size_of::<T>(), v as *const T as *const c_void), "clSetKernelArg(value)");
}
fn set_local(k: cl_kernel, i: u32, bytes: usize) {
    check(set_raw(k, i, bytes, null()), "clSetKernelArg(local)");
}

fn build_info(p: cl_program, param: cl_program_build_info) -> Vec<u8> {
    let d = device();
    info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, param, s, v, r)))
}

/// Runs the `#[ignore]`d test `name` of this file in a child process with `vars` set; returns the
/// child's standard output.
fn run_child(name: &str, vars: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = std::process::Command::new(exe);
    cmd.args([name, "--exact", "--ignored", "--nocapture", "--test-threads=1"]).env("VENTUS_ICD_CHILD", name);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "child test {name} failed:\n{text}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// True when this process is the child started by [`run_child`] for `name`.
fn is_child(name: &str) -> bool {
    std::env::var("VENTUS_ICD_CHILD").as_deref() == Ok(name)
}

fn f32_words(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The official vecadd: A += B for 32 floats, then `printf("ddd%d 1", 2)` through the 2023 libclc
/// printf library (run on the host by default; with `VENTUS_LEGACY_PRINTF=0` its compiled code
/// runs and faults as in the reference).
fn official_vecadd(env: &Env) -> (cl_kernel, cl_mem, Vec<f32>) {
    let p = env.program(&official_elf());
    assert_eq!(info_string(cl().clGetProgramInfo, p, CL_PROGRAM_KERNEL_NAMES), "vectorAdd");
    let k = kernel(p, "vectorAdd");
    let a: Vec<f32> = (0..32).map(|i| i as f32 * 1.5).collect();
    let b: Vec<f32> = (0..32).map(|i| 100.0 - i as f32).collect();
    let (ma, mb) = (env.buffer(&f32_words(&a)), env.buffer(&f32_words(&b)));
    set_mem(k, 0, &ma);
    set_mem(k, 1, &mb);
    let sum = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    (k, ma, sum)
}

#[test]
fn official_vecadd_prints_through_its_legacy_printf() {
    let out = run_child("child_vecadd_legacy_printf", &[]);
    // One "ddd2 1" (no newline) per work-item, between the child's own markers.
    let printed = out.split("<<").nth(1).and_then(|s| s.split(">>").next()).unwrap_or_default();
    assert_eq!(printed, "ddd2 1".repeat(32), "{out}");
}

#[test]
#[ignore = "run by official_vecadd_prints_through_its_legacy_printf"]
fn child_vecadd_legacy_printf() {
    if !is_child("child_vecadd_legacy_printf") {
        return;
    }
    let env = Env::new();
    let (k, ma, sum) = official_vecadd(&env);
    assert_eq!(info_value::<cl_uint, _, _>(cl().clGetKernelInfo, k, CL_KERNEL_NUM_ARGS), 2);
    print_flushed("<<");
    assert_eq!(env.run(k, None, &[32], Some(&[32])), CL_COMPLETE);
    print_flushed(">>");
    assert_eq!(env.read(ma, 32), f32_words(&sum));
    assert!(env.messages().is_empty(), "{:?}", env.messages());
}

/// Writes to the process's standard output directly (not through the test harness's capture),
/// where the driver's printf output goes too.
fn print_flushed(s: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(s.as_bytes()).and_then(|_| o.flush()).unwrap();
}

#[test]
fn official_vecadd_faults_like_the_reference_without_legacy_printf() {
    run_child("child_vecadd_fault", &[("VENTUS_LEGACY_PRINTF", "0")]);
}

#[test]
#[ignore = "run by official_vecadd_faults_like_the_reference_without_legacy_printf"]
fn child_vecadd_fault() {
    if !is_child("child_vecadd_fault") {
        return;
    }
    let env = Env::new();
    let (k, ma, sum) = official_vecadd(&env);
    let status = env.run(k, None, &[32], Some(&[32]));
    assert_eq!(status, CL_OUT_OF_RESOURCES, "{}", err_name(status));
    assert_eq!(env.read(ma, 32), f32_words(&sum), "A holds A + B before printf faults");
    let msgs = env.messages();
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    let m = &msgs[0];
    // (Which warp reaches the printf first depends on the warp width and interleaving.)
    for want in ["`vectorAdd`", "work-group 0", "warp ", "pc 0x8000519c", "address 0x00000018"] {
        assert!(m.contains(want), "{want:?} missing in {m:?}");
    }
    // The same queue runs the next launch.
    let p = env.program(&our_elf(true));
    let inc = kernel(p, "inc");
    let m = env.buffer(&[5; 64]);
    set_mem(inc, 0, &m);
    assert_eq!(env.run(inc, None, &[64], None), CL_COMPLETE);
    assert_eq!(env.read(m, 64), vec![6; 64]);
}

#[test]
fn official_vecadd_completes_in_reference_trap_mode() {
    run_child("child_vecadd_end_group", &[("VENTUS_TRAP", "end-group"), ("VENTUS_LEGACY_PRINTF", "0")]);
}

#[test]
#[ignore = "run by official_vecadd_completes_in_reference_trap_mode with VENTUS_TRAP=end-group"]
fn child_vecadd_end_group() {
    if !is_child("child_vecadd_end_group") {
        return;
    }
    let env = Env::new();
    let (k, ma, sum) = official_vecadd(&env);
    assert_eq!(env.run(k, None, &[32], Some(&[32])), CL_COMPLETE);
    assert_eq!(env.read(ma, 32), f32_words(&sum));
    assert!(env.messages().is_empty());
}

#[test]
fn runaway_kernel_is_stopped_by_the_watchdog() {
    run_child("child_watchdog", &[("VENTUS_WATCHDOG", "200000")]);
}

/// `VENTUS_STATS=1` prints each kernel's summed launch statistics to stderr at exit.
#[test]
fn stats_are_printed_at_exit() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["child_stats", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env("VENTUS_ICD_CHILD", "child_stats")
        .env("VENTUS_STATS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed: {err}");
    let line = err.lines().find(|l| l.starts_with("ventus-icd stats: kernel `inc`")).unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("3 launch(es), 6 work-groups") && line.contains("lane utilisation 100.0%"), "{line}");
}

#[test]
#[ignore = "run by stats_are_printed_at_exit with VENTUS_STATS=1"]
fn child_stats() {
    if !is_child("child_stats") {
        return;
    }
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let inc = kernel(p, "inc");
    let m = env.buffer(&[0; 64]);
    set_mem(inc, 0, &m);
    for _ in 0..3 {
        assert_eq!(env.run(inc, None, &[64], Some(&[32])), CL_COMPLETE);
    }
}

/// A spinning kernel of many work-groups is stopped by the CPU-time watchdog (per work-group)
/// and by `VENTUS_TIMEOUT` (per launch) within their limits; the context then runs a correct
/// kernel.
#[test]
fn runaway_kernels_are_stopped_by_time_limits() {
    run_child("child_time_limit", &[("VENTUS_WATCHDOG_SECONDS", "1"), ("VENTUS_TEST_EXPECT", "watchdog")]);
    run_child(
        "child_time_limit",
        &[("VENTUS_WATCHDOG_SECONDS", "100"), ("VENTUS_TIMEOUT", "2"), ("VENTUS_TEST_EXPECT", "timeout")],
    );
}

#[test]
#[ignore = "run by runaway_kernels_are_stopped_by_time_limits with VENTUS_WATCHDOG_SECONDS / VENTUS_TIMEOUT"]
fn child_time_limit() {
    if !is_child("child_time_limit") {
        return;
    }
    let expect = std::env::var("VENTUS_TEST_EXPECT").unwrap();
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let (spin, inc) = (kernel(p, "spin"), kernel(p, "inc"));
    let m = env.buffer(&[0; 32]);
    set_mem(spin, 0, &m);
    set_mem(inc, 0, &m);
    let t0 = std::time::Instant::now();
    assert_eq!(env.run(spin, None, &[32 * 64], Some(&[32])), CL_OUT_OF_RESOURCES);
    // The upper bound only catches a limit that never fires: a loaded machine may take long to
    // give a work-group its 1 s of CPU time.
    let took = t0.elapsed().as_secs_f64();
    assert!(took < 60.0, "stopped after {took} s");
    let msgs = env.messages();
    assert!(msgs.len() == 1 && msgs[0].contains("spin") && msgs[0].contains(&expect), "{msgs:?}");
    assert_eq!(env.run(inc, None, &[32], None), CL_COMPLETE);
    assert_eq!(env.read(m, 32), vec![1; 32]);
}

#[test]
#[ignore = "run by runaway_kernel_is_stopped_by_the_watchdog with a small VENTUS_WATCHDOG"]
fn child_watchdog() {
    if !is_child("child_watchdog") {
        return;
    }
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let (spin, inc) = (kernel(p, "spin"), kernel(p, "inc"));
    let m = env.buffer(&[0; 32]);
    set_mem(spin, 0, &m);
    set_mem(inc, 0, &m);
    assert_eq!(env.run(spin, None, &[32], None), CL_OUT_OF_RESOURCES);
    let msgs = env.messages();
    assert!(msgs.len() == 1 && msgs[0].contains("spin") && msgs[0].contains("watchdog"), "{msgs:?}");
    assert_eq!(env.run(inc, None, &[32], None), CL_COMPLETE);
    assert_eq!(env.read(m, 32), vec![1; 32]);
}

#[test]
fn programs_from_binaries_answer_every_query() {
    let env = Env::new();
    let elf = our_elf(true);
    let p = env.program_unbuilt(&elf);
    let gpi = cl().clGetProgramInfo;
    // Before the build: the binary is there, kernels are not.
    assert_eq!(build_info(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_NONE.to_ne_bytes());
    assert_eq!(build_info(p, CL_PROGRAM_BUILD_LOG), b"\0");
    for q in [CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT] {
        let code = call!(clGetProgramInfo(p, q, 0, null_mut(), null_mut()));
        expect_err(code, CL_INVALID_PROGRAM_EXECUTABLE, "query before the build");
    }
    let mut err = 0;
    call!(clCreateKernel(p, c"inc".as_ptr(), &mut err));
    expect_err(err, CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel before the build");
    assert_eq!(info_vec::<usize, _, _>(gpi, p, CL_PROGRAM_BINARY_SIZES), vec![elf.len()]);
    let mut called = 0u32;
    unsafe extern "C" fn done(_: cl_program, user: *mut c_void) {
        // SAFETY: `user` points to the test's counter.
        unsafe { *(user as *mut u32) += 1 };
    }
    let opts = c"-cl-std=CL3.0 -D N=4 -cl-mad-enable";
    let code = call!(clBuildProgram(p, 0, null(), opts.as_ptr(), Some(done), &mut called as *mut u32 as *mut c_void));
    check(code, "clBuildProgram");
    assert_eq!(called, 1);
    assert_eq!(info_value::<usize, _, _>(gpi, p, CL_PROGRAM_NUM_KERNELS), 8);
    assert_eq!(info_string(gpi, p, CL_PROGRAM_KERNEL_NAMES), ALL_KERNELS);
    assert_eq!(info_value::<cl_bool, _, _>(gpi, p, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT), CL_FALSE);
    assert_eq!(info_value::<cl_uint, _, _>(gpi, p, CL_PROGRAM_NUM_DEVICES), 1);
    assert_eq!(info_value::<cl_device_id, _, _>(gpi, p, CL_PROGRAM_DEVICES), device());
    assert_eq!(info_value::<cl_context, _, _>(gpi, p, CL_PROGRAM_CONTEXT), env.ctx);
    assert_eq!(info_value::<cl_uint, _, _>(gpi, p, CL_PROGRAM_REFERENCE_COUNT), 1);
    assert_eq!(info_string(gpi, p, CL_PROGRAM_SOURCE), "");
    assert!(info_bytes(gpi, p, CL_PROGRAM_IL).is_empty());
    // CL_PROGRAM_BINARIES: one pointer per device, filled with the ELF; too small → INVALID_VALUE.
    let mut bin = vec![0u8; elf.len()];
    let mut ptrs = [bin.as_mut_ptr()];
    let (mut ret, dst, n) = (0, ptrs.as_mut_ptr() as *mut c_void, size_of::<*mut u8>());
    check(call!(clGetProgramInfo(p, CL_PROGRAM_BINARIES, n, dst, &mut ret)), "BINARIES");
    assert_eq!((ret, &bin), (size_of::<*mut u8>(), &elf));
    let code = call!(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 1, dst, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "BINARIES with a small buffer");
    // Build info.
    assert_eq!(build_info(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_SUCCESS.to_ne_bytes());
    assert_eq!(build_info(p, CL_PROGRAM_BUILD_OPTIONS), b"-cl-std=CL3.0 -D N=4 -cl-mad-enable\0");
    assert_eq!(build_info(p, CL_PROGRAM_BINARY_TYPE), CL_PROGRAM_BINARY_TYPE_EXECUTABLE.to_ne_bytes());
    // Loading an executable needs no work: the log is empty (tools warn about non-empty logs).
    assert_eq!(build_info(p, CL_PROGRAM_BUILD_LOG), b"\0");
    assert_eq!(build_info(p, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE), 0usize.to_ne_bytes());
    // The returned binary makes a new, working program.
    let p2 = env.program(&bin);
    let k = kernel(p2, "inc");
    let m = env.buffer(&[1; 8]);
    set_mem(k, 0, &m);
    assert_eq!(env.run(k, None, &[8], None), CL_COMPLETE);
    assert_eq!(env.read(m, 8), vec![2; 8]);
    // Builds are refused while kernels exist, allowed again once they are gone.
    let code = call!(clBuildProgram(p2, 0, null(), null(), None, null_mut()));
    expect_err(code, CL_INVALID_OPERATION, "build with an attached kernel");
    call!(clReleaseKernel(k));
    check(call!(clBuildProgram(p2, 0, null(), null(), None, null_mut())), "rebuild");
    check(call!(clRetainProgram(p)), "retain");
    check(call!(clReleaseProgram(p)), "release");
    check(call!(clReleaseProgram(p)), "release");
    expect_err(call!(clReleaseProgram(p)), CL_INVALID_PROGRAM, "release of a released program");
}

/// `clCreateProgramWithBinary` with raw arguments; returns (program, errcode, status).
fn create_with_binary(
    ctx: cl_context,
    d: cl_device_id,
    bin: Option<&[u8]>,
    len: usize,
) -> (cl_program, cl_int, cl_int) {
    let (mut status, mut err) = (12345, 0);
    let mut ptr = bin.map_or(null(), |b| b.as_ptr());
    let p = call!(clCreateProgramWithBinary(ctx, 1, &d, &len, &mut ptr, &mut status, &mut err));
    (p, err, status)
}

#[test]
fn invalid_binaries_and_creation_errors() {
    let env = Env::new();
    let d = device();
    let elf = our_elf(false);
    let garbage = b"definitely not an ELF file, just text".to_vec();
    let (p, err, st) = create_with_binary(env.ctx, d, Some(&garbage), garbage.len());
    assert_eq!((p.is_null(), err, st), (true, CL_INVALID_BINARY, CL_INVALID_BINARY));
    let mut wrong_entry = elf.clone();
    wrong_entry[24..28].copy_from_slice(&0x8000_0100u32.to_le_bytes());
    assert_eq!(create_with_binary(env.ctx, d, Some(&wrong_entry), elf.len()).1, CL_INVALID_BINARY);
    let mut not_riscv = elf.clone();
    not_riscv[18] = 0x3e; // EM_X86_64
    assert_eq!(create_with_binary(env.ctx, d, Some(&not_riscv), elf.len()).1, CL_INVALID_BINARY);
    let (_, err, st) = create_with_binary(env.ctx, d, Some(&elf), 0);
    assert_eq!((err, st), (CL_INVALID_VALUE, CL_INVALID_VALUE));
    assert_eq!(create_with_binary(env.ctx, d, None, 10).1, CL_INVALID_VALUE);
    assert_eq!(create_with_binary(env.ctx, 0x1234 as cl_device_id, Some(&elf), elf.len()).1, CL_INVALID_DEVICE);
    assert_eq!(create_with_binary(null_mut(), d, Some(&elf), elf.len()).1, CL_INVALID_CONTEXT);
    let mut err = 0;
    call!(clCreateProgramWithBinary(env.ctx, 0, &d, null(), null_mut(), null_mut(), &mut err));
    assert_eq!(err, CL_INVALID_VALUE);
    call!(clCreateProgramWithBinary(env.ctx, 1, &d, null(), null_mut(), null_mut(), &mut err));
    assert_eq!(err, CL_INVALID_VALUE);
    // Built-in kernels: the device has none.
    call!(clCreateProgramWithBuiltInKernels(env.ctx, 1, &d, c"fft".as_ptr(), &mut err));
    assert_eq!(err, CL_INVALID_VALUE);
    call!(clCreateProgramWithBuiltInKernels(env.ctx, 1, &(0x99 as cl_device_id), c"fft".as_ptr(), &mut err));
    assert_eq!(err, CL_INVALID_DEVICE);
}

/// A minimal SPIR-V module declaring `OpSpecConstant %int 7` with `SpecId 3` (the word layout is
/// all that `clCreateProgramWithIL`/`clSetProgramSpecializationConstant` look at).
fn spirv_module() -> Vec<u8> {
    let words: [u32; 17] = [
        0x0723_0203,
        0x0001_0000,
        0,
        8,
        0, // header
        (4 << 16) | 21,
        1,
        32,
        0, // OpTypeInt %1 32 0
        (4 << 16) | 50,
        1,
        2,
        7, // OpSpecConstant %1 %2 7
        (4 << 16) | 71,
        2,
        1,
        3, // OpDecorate %2 SpecId 3
    ];
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn source_and_il_programs_build_with_a_log_and_compile_link_follow_the_spec() {
    let env = Env::new();
    let d = device();
    let mut err = 0;
    let src = [c"kernel void k(global int* p) { p[0] = 1; }".as_ptr()];
    let ps = call!(clCreateProgramWithSource(env.ctx, 1, src.as_ptr() as *mut _, null(), &mut err));
    check(err, "clCreateProgramWithSource");
    assert_eq!(info_string(cl().clGetProgramInfo, ps, CL_PROGRAM_SOURCE), "kernel void k(global int* p) { p[0] = 1; }");
    call!(clCreateProgramWithSource(env.ctx, 0, src.as_ptr() as *mut _, null(), &mut err));
    assert_eq!(err, CL_INVALID_VALUE);
    let code = call!(clBuildProgram(ps, 0, null(), c"-cl-bogus".as_ptr(), None, null_mut()));
    expect_err(code, CL_INVALID_BUILD_OPTIONS, "unknown build option");
    let code = call!(clBuildProgram(ps, 0, null(), null(), None, 8 as *mut c_void));
    expect_err(code, CL_INVALID_VALUE, "user_data without pfn_notify");
    let code = call!(clBuildProgram(ps, 0, &d, null(), None, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "device list with count 0");
    let code = call!(clBuildProgram(ps, 1, &d, null(), None, null_mut()));
    check(code, "building source");
    assert_eq!(build_info(ps, CL_PROGRAM_BUILD_STATUS), CL_BUILD_SUCCESS.to_ne_bytes());
    assert_eq!(build_info(ps, CL_PROGRAM_BINARY_TYPE), CL_PROGRAM_BINARY_TYPE_EXECUTABLE.to_ne_bytes());
    let sizes = info_vec::<usize, _, _>(cl().clGetProgramInfo, ps, CL_PROGRAM_BINARY_SIZES);
    assert!(sizes.len() == 1 && sizes[0] > 64, "{sizes:?}");
    {
        let k = kernel(ps, "k");
        let m = env.buffer(&[0; 4]);
        set_mem(k, 0, &m);
        assert_eq!(env.run(k, None, &[1], None), CL_COMPLETE);
        assert_eq!(env.read(m, 4)[0], 1);
        call!(clReleaseKernel(k));
    }
    // A syntax error fails with the compiler's diagnostics in the log.
    let bad = [c"kernel void k(global int* p) { p[0] = ; }".as_ptr()];
    let pbad = call!(clCreateProgramWithSource(env.ctx, 1, bad.as_ptr() as *mut _, null(), &mut err));
    check(err, "clCreateProgramWithSource");
    let code = call!(clBuildProgram(pbad, 1, &d, null(), None, null_mut()));
    expect_err(code, CL_BUILD_PROGRAM_FAILURE, "building a syntax error");
    assert_eq!(build_info(pbad, CL_PROGRAM_BUILD_STATUS), CL_BUILD_ERROR.to_ne_bytes());
    assert!(String::from_utf8_lossy(&build_info(pbad, CL_PROGRAM_BUILD_LOG)).contains("expected expression"));
    assert_eq!(build_info(pbad, CL_PROGRAM_BINARY_TYPE), CL_PROGRAM_BINARY_TYPE_NONE.to_ne_bytes());
    assert_eq!(info_vec::<usize, _, _>(cl().clGetProgramInfo, pbad, CL_PROGRAM_BINARY_SIZES), vec![0]);
    let code = call!(clCompileProgram(pbad, 0, null(), null(), 0, null(), null_mut(), None, null_mut()));
    expect_err(code, CL_COMPILE_PROGRAM_FAILURE, "compiling a syntax error");
    let code = call!(clCompileProgram(ps, 0, null(), null(), 1, null(), null_mut(), None, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "headers count without lists");
    let code =
        call!(clCompileProgram(ps, 0, null(), c"-create-library".as_ptr(), 0, null(), null_mut(), None, null_mut()));
    expect_err(code, CL_INVALID_COMPILER_OPTIONS, "link option to the compiler");

    // IL: SPIR-V is accepted; this minimal module (no memory model, no kernels) fails to build
    // with a log; specialization constants are validated.
    let il = spirv_module();
    let pi = call!(clCreateProgramWithIL(env.ctx, il.as_ptr() as *const c_void, il.len(), &mut err));
    check(err, "clCreateProgramWithIL");
    assert_eq!(info_bytes(cl().clGetProgramInfo, pi, CL_PROGRAM_IL), il);
    call!(clCreateProgramWithIL(env.ctx, b"nope....".as_ptr() as *const c_void, 8, &mut err));
    assert_eq!(err, CL_INVALID_VALUE);
    let v: i32 = 42;
    let set = |p: cl_program, id: u32, size: usize| {
        call!(clSetProgramSpecializationConstant(p, id, size, &v as *const i32 as *const c_void))
    };
    check(set(pi, 3, 4), "clSetProgramSpecializationConstant");
    expect_err(set(pi, 4, 4), CL_INVALID_SPEC_ID, "unknown spec id");
    expect_err(set(pi, 3, 2), CL_INVALID_VALUE, "wrong spec size");
    expect_err(set(ps, 3, 4), CL_INVALID_PROGRAM, "spec constant on a source program");
    let code = call!(clBuildProgram(pi, 0, null(), null(), None, null_mut()));
    expect_err(code, CL_BUILD_PROGRAM_FAILURE, "building IL");
    let log = String::from_utf8_lossy(&build_info(pi, CL_PROGRAM_BUILD_LOG)).into_owned();
    assert!(log.contains("invalid SPIR-V: missing OpMemoryModel"), "{log}");
    // Release callbacks are not supported (no program-scope globals); NULL callback first.
    unsafe extern "C" fn never(_: cl_program, _: *mut c_void) {}
    expect_err(call!(clSetProgramReleaseCallback(pi, Some(never), null_mut())), CL_INVALID_OPERATION, "release cb");
    expect_err(call!(clSetProgramReleaseCallback(pi, None, null_mut())), CL_INVALID_VALUE, "NULL release cb");

    // Compile on a binary program; links.
    let pb = env.program(&our_elf(true));
    let code = call!(clCompileProgram(pb, 0, null(), null(), 0, null(), null_mut(), None, null_mut()));
    expect_err(code, CL_INVALID_OPERATION, "compiling a binary");
    let link = |inputs: &[cl_program], opts: &CStr| {
        let mut err = 0;
        let p = call!(clLinkProgram(
            env.ctx,
            0,
            null(),
            opts.as_ptr(),
            inputs.len() as u32,
            inputs.as_ptr(),
            None,
            null_mut(),
            &mut err,
        ));
        (p, err)
    };
    // Compiled objects link into an executable.
    let inc = [c"kernel void inc(global int *p) { p[get_global_id(0)] += 1; }".as_ptr()];
    let po = call!(clCreateProgramWithSource(env.ctx, 1, inc.as_ptr() as *mut _, null(), &mut err));
    check(err, "clCreateProgramWithSource");
    check(call!(clCompileProgram(po, 0, null(), null(), 0, null(), null_mut(), None, null_mut())), "compile");
    let (pl, err) = link(&[po], c"");
    check(err, "clLinkProgram");
    let k = kernel(pl, "inc");
    let m = env.buffer(&[7; 4]);
    set_mem(k, 0, &m);
    assert_eq!(env.run(k, None, &[4], None), CL_COMPLETE);
    assert_eq!(env.read(m, 4), vec![8; 4]);
    let code = call!(clBuildProgram(pl, 0, null(), null(), None, null_mut()));
    expect_err(code, CL_INVALID_OPERATION, "building a linked program");
    // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or libraries as
    // described in input_programs argument above are not followed": an executable (loaded, or
    // linked) is neither, alone, twice, beside an object or made into a library.
    assert_eq!(link(&[pb], c"").1, CL_INVALID_OPERATION);
    assert_eq!(link(&[pb, pb], c"").1, CL_INVALID_OPERATION);
    assert_eq!(link(&[pl, po], c"").1, CL_INVALID_OPERATION);
    assert_eq!(link(&[pb], c"-create-library -enable-link-options").1, CL_INVALID_OPERATION);
    assert_eq!(link(&[pbad], c"").1, CL_INVALID_OPERATION);
    assert_eq!(link(&[pb], c"-cl-bogus").1, CL_INVALID_LINKER_OPTIONS);
    assert_eq!(link(&[pb], c"-enable-link-options").1, CL_INVALID_LINKER_OPTIONS);
    assert_eq!(link(&[0x77 as cl_program], c"").1, CL_INVALID_PROGRAM);
    assert_eq!(link(&[], c"").1, CL_INVALID_VALUE);
}

#[test]
fn kernel_objects_and_their_queries() {
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let mut err = 0;
    call!(clCreateKernel(p, null(), &mut err));
    assert_eq!(err, CL_INVALID_VALUE);
    call!(clCreateKernel(p, c"nope".as_ptr(), &mut err));
    assert_eq!(err, CL_INVALID_KERNEL_NAME);
    call!(clCreateKernel(p, c"_start".as_ptr(), &mut err));
    assert_eq!(err, CL_INVALID_KERNEL_NAME);
    call!(clCreateKernel(null_mut(), c"inc".as_ptr(), &mut err));
    assert_eq!(err, CL_INVALID_PROGRAM);
    let mut n = 0;
    check(call!(clCreateKernelsInProgram(p, 0, null_mut(), &mut n)), "count");
    assert_eq!(n, 8);
    let mut ks = vec![null_mut(); 8];
    expect_err(call!(clCreateKernelsInProgram(p, 7, ks.as_mut_ptr(), null_mut())), CL_INVALID_VALUE, "too small");
    check(call!(clCreateKernelsInProgram(p, 8, ks.as_mut_ptr(), null_mut())), "create all");
    let names: Vec<String> =
        ks.iter().map(|&k| info_string(cl().clGetKernelInfo, k, CL_KERNEL_FUNCTION_NAME)).collect();
    assert_eq!(names.join(";"), ALL_KERNELS);
    for k in ks {
        check(call!(clReleaseKernel(k)), "release");
    }
    let gki = cl().clGetKernelInfo;
    let k = kernel(p, "scratch");
    assert_eq!(info_value::<cl_uint, _, _>(gki, k, CL_KERNEL_NUM_ARGS), 4);
    assert_eq!(info_value::<cl_context, _, _>(gki, k, CL_KERNEL_CONTEXT), env.ctx);
    assert_eq!(info_value::<cl_program, _, _>(gki, k, CL_KERNEL_PROGRAM), p);
    assert_eq!(info_value::<cl_uint, _, _>(gki, k, CL_KERNEL_REFERENCE_COUNT), 1);
    assert_eq!(info_string(gki, k, CL_KERNEL_ATTRIBUTES), "");
    let fixed = kernel(p, "fixed");
    assert!(info_string(gki, fixed, CL_KERNEL_ATTRIBUTES).contains("reqd_work_group_size(8,2,1)"));
    // The ELF's argument metadata gives the argument count, but a program from a binary gives
    // no argument information (OpenCL 3.0 clGetKernelArgInfo: only programs from source built
    // with -cl-kernel-arg-info; tests/program_build.rs checks those).
    let code = call!(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 0, null_mut(), null_mut()));
    expect_err(code, CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "arg info of a binary");
    let plain = env.program(&our_elf(false));
    let kp = kernel(plain, "scratch");
    let code = call!(clGetKernelArgInfo(kp, 0, CL_KERNEL_ARG_NAME, 0, null_mut(), null_mut()));
    expect_err(code, CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "no metadata");
    assert_eq!(info_value::<cl_uint, _, _>(gki, kp, CL_KERNEL_NUM_ARGS), 0);

    // Work-group info (NULL device allowed: the kernel has one device).
    let wgi = |k: cl_kernel, d: cl_device_id, q: cl_kernel_work_group_info| {
        info_bytes_with(|s, v, r| call!(clGetKernelWorkGroupInfo(k, d, q, s, v, r)))
    };
    let max: usize = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let warp: usize = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    assert_eq!(wgi(k, null_mut(), CL_KERNEL_WORK_GROUP_SIZE), max.to_ne_bytes());
    assert_eq!(wgi(k, device(), CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE), warp.to_ne_bytes());
    let reqd: Vec<u8> = [8usize, 2, 1].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(wgi(fixed, device(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE), reqd);
    assert_eq!(wgi(k, device(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE), vec![0u8; 3 * size_of::<usize>()]);
    assert_eq!(wgi(k, device(), CL_KERNEL_LOCAL_MEM_SIZE), 0u64.to_ne_bytes());
    set_local(k, 1, 100);
    set_local(k, 2, 28);
    assert_eq!(wgi(k, device(), CL_KERNEL_LOCAL_MEM_SIZE), 128u64.to_ne_bytes());
    assert_eq!(wgi(k, device(), CL_KERNEL_PRIVATE_MEM_SIZE), 0u64.to_ne_bytes());
    let code = call!(clGetKernelWorkGroupInfo(k, device(), CL_KERNEL_GLOBAL_WORK_SIZE, 0, null_mut(), null_mut()));
    expect_err(code, CL_INVALID_VALUE, "GLOBAL_WORK_SIZE on a GPU");
    let code =
        call!(clGetKernelWorkGroupInfo(k, 0x55 as cl_device_id, CL_KERNEL_WORK_GROUP_SIZE, 0, null_mut(), null_mut(),));
    expect_err(code, CL_INVALID_DEVICE, "bad device");
    // Clones keep the argument values.
    let m = env.buffer(&[0; 64]);
    let ptrs = env.buffer(&[0; 2]);
    set_mem(k, 0, &m);
    set_mem(k, 3, &ptrs);
    let c = call!(clCloneKernel(k, &mut err));
    check(err, "clCloneKernel");
    check(call!(clReleaseKernel(k)), "release the original");
    assert_eq!(env.run(c, None, &[32], Some(&[32])), CL_COMPLETE);
    assert_eq!(env.read(ptrs, 2), vec![0x7fff_f000, 0x7fff_e000]);
    // SVM arguments must point into an SVM allocation (tests/icd_svm.rs); fine-grained system
    // SVM and sub-groups are not supported.
    let stack = 0u32;
    let host = &stack as *const u32 as *const c_void;
    expect_err(call!(clSetKernelArgSVMPointer(c, 0, host)), CL_INVALID_ARG_VALUE, "SVM arg: host memory");
    let t: cl_bool = CL_TRUE;
    let tp = &t as *const cl_bool as *const c_void;
    expect_err(
        call!(clSetKernelExecInfo(c, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 4, tp)),
        CL_INVALID_OPERATION,
        "exec info",
    );
    expect_err(call!(clSetKernelExecInfo(c, 0x4321, 4, tp)), CL_INVALID_VALUE, "exec info param");
    let mut groups: usize = 0;
    let gp = &mut groups as *mut usize as *mut c_void;
    let code = call!(clGetKernelSubGroupInfo(c, device(), CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, null(), 8, gp, null_mut()));
    check(code, "sub-group info");
    assert!(groups >= 1, "CL_KERNEL_MAX_NUM_SUB_GROUPS = {groups}");
    let code = call!(clGetKernelSubGroupInfo(c, device(), 0x4321, 0, null(), 8, gp, null_mut()));
    expect_err(code, CL_INVALID_VALUE, "sub-group info param");
    expect_err(call!(clRetainKernel(null_mut())), CL_INVALID_KERNEL, "retain NULL");
    check(call!(clReleaseKernel(c)), "release clone");
    expect_err(call!(clReleaseKernel(c)), CL_INVALID_KERNEL, "release twice");
}

#[test]
fn kernel_arguments_with_metadata_are_validated() {
    let env = Env::new();
    let other = Env::new();
    let p = env.program(&our_elf(true));
    let k = kernel(p, "scratch");
    let m = env.buffer(&[0; 4]);
    let foreign = other.buffer(&[0; 4]);
    let mp = &m as *const cl_mem as *const c_void;
    let fp = &foreign as *const cl_mem as *const c_void;
    let bogus: cl_mem = 0x1000 as cl_mem;
    let four = 4u32;
    let vp = &four as *const u32 as *const c_void;
    let ms = size_of::<cl_mem>();
    expect_err(set_raw(k, 4, ms, mp), CL_INVALID_ARG_INDEX, "index past the declared arguments");
    expect_err(set_raw(k, 0, 4, mp), CL_INVALID_ARG_SIZE, "buffer with size 4");
    expect_err(set_raw(k, 0, ms, fp), CL_INVALID_MEM_OBJECT, "buffer of another context");
    expect_err(set_raw(k, 0, ms, &bogus as *const cl_mem as *const c_void), CL_INVALID_MEM_OBJECT, "garbage handle");
    expect_err(set_raw(k, 1, 16, vp), CL_INVALID_ARG_VALUE, "local with a value");
    expect_err(set_raw(k, 1, 0, null()), CL_INVALID_ARG_SIZE, "local of size 0");
    check(set_raw(k, 0, ms, null()), "NULL buffer");
    let null_mem: cl_mem = null_mut();
    check(set_raw(k, 3, ms, &null_mem as *const cl_mem as *const c_void), "pointer to a NULL cl_mem");
    let mix = kernel(p, "mix");
    expect_err(set_raw(mix, 1, 4, vp), CL_INVALID_ARG_SIZE, "char with 4 bytes");
    expect_err(set_raw(mix, 2, 8, null()), CL_INVALID_ARG_VALUE, "NULL by-value argument");
    expect_err(call!(clSetKernelArg(null_mut(), 0, 4, vp)), CL_INVALID_KERNEL, "NULL kernel");
    // An unset argument is reported at enqueue.
    set_mem(mix, 0, &m);
    set_val(mix, 1, &-3i8);
    set_val(mix, 3, &77i32);
    expect_err(env.launch(mix, None, &[1], None).unwrap_err(), CL_INVALID_KERNEL_ARGS, "unset argument");
    set_val(mix, 2, &0x1122_3344_5566_7788u64);
    assert_eq!(env.run(mix, None, &[1], None), CL_COMPLETE);
    assert_eq!(env.read(m, 4), vec![-3i32 as u32, 0x5566_7788, 0x1122_3344, 77]);
}

#[test]
fn kernel_arguments_without_metadata_are_taken_by_size() {
    let env = Env::new();
    let p = env.program(&our_elf(false));
    let mix = kernel(p, "mix");
    let m = env.buffer(&[0; 4]);
    set_mem(mix, 0, &m);
    set_val(mix, 1, &-3i8);
    set_val(mix, 3, &77i32);
    assert_eq!(info_value::<cl_uint, _, _>(cl().clGetKernelInfo, mix, CL_KERNEL_NUM_ARGS), 4);
    expect_err(env.launch(mix, None, &[1], None).unwrap_err(), CL_INVALID_KERNEL_ARGS, "hole at index 2");
    set_val(mix, 2, &0x1122_3344_5566_7788u64);
    assert_eq!(env.run(mix, None, &[1], None), CL_COMPLETE);
    assert_eq!(env.read(m, 4), vec![-3i32 as u32, 0x5566_7788, 0x1122_3344, 77]);
    // NULL value with a size is __local; a NULL cl_mem is a NULL pointer.
    let k = kernel(p, "scratch");
    let (out, ptrs) = (env.buffer(&[0; 64]), env.buffer(&[9; 2]));
    set_mem(k, 0, &out);
    set_local(k, 1, 4096);
    set_local(k, 2, 256);
    set_mem(k, 3, &ptrs);
    assert_eq!(env.run(k, None, &[64], Some(&[64])), CL_COMPLETE);
    // pocl placement: each __local argument takes (size / 4096 + 1) pages below 0x8000_0000.
    assert_eq!(env.read(ptrs, 2), vec![0x7fff_e000, 0x7fff_d000]);
    expect_err(set_raw(k, 0, 0, null()), CL_INVALID_ARG_SIZE, "size 0");
    expect_err(set_raw(k, 300, 4, &1u32 as *const u32 as *const c_void), CL_INVALID_ARG_INDEX, "index 300");
    let other = Env::new();
    let foreign = other.buffer(&[0]);
    expect_err(
        set_raw(k, 0, size_of::<cl_mem>(), &foreign as *const cl_mem as *const c_void),
        CL_INVALID_MEM_OBJECT,
        "foreign buffer",
    );
    let null_mem: cl_mem = null_mut();
    check(set_raw(k, 0, size_of::<cl_mem>(), &null_mem as *const cl_mem as *const c_void), "NULL buffer by size");
}

const SENTINEL: u32 = 0xdead_beef;

/// Runs `ids` and checks every work-item's global and local ids; returns the local size used.
fn check_ids(
    env: &Env,
    k: cl_kernel,
    dim: u32,
    offset: [usize; 3],
    global: [usize; 3],
    local: Option<[usize; 3]>,
) -> [usize; 3] {
    let n: usize = global[..dim as usize].iter().product();
    let (out, lids, sizes) =
        (env.buffer(&vec![SENTINEL; n + 40]), env.buffer(&vec![SENTINEL; n + 40]), env.buffer(&[0; 10]));
    set_mem(k, 0, &out);
    set_mem(k, 1, &lids);
    set_mem(k, 2, &sizes);
    let d = dim as usize;
    let status = env.run(k, Some(&offset[..d]), &global[..d], local.as_ref().map(|l| &l[..d]));
    assert_eq!(status, CL_COMPLETE, "{dim}D {global:?}/{local:?}");
    let s = env.read(sizes, 10);
    let g: [usize; 3] = std::array::from_fn(|i| if i < d { global[i] } else { 1 });
    let o: [usize; 3] = std::array::from_fn(|i| if i < d { offset[i] } else { 0 });
    let l: [usize; 3] = [s[4] as usize, s[5] as usize, s[6] as usize];
    assert_eq!(s[0], dim);
    assert_eq!(&s[1..4], &g.map(|x| x as u32), "metadata holds the real global size");
    assert_eq!(&s[7..10], &o.map(|x| x as u32));
    if let Some(want) = local {
        assert_eq!(&l[..d], &want[..d]);
    }
    let (ids, locals) = (env.read(out, n + 40), env.read(lids, n + 40));
    for z in 0..g[2] {
        for y in 0..g[1] {
            for x in 0..g[0] {
                let i = x + g[0] * (y + g[1] * z);
                let want = (o[0] + x) + 1000 * (o[1] + y) + 1_000_000 * (o[2] + z);
                assert_eq!(ids[i] as usize, want, "global id of ({x},{y},{z}) in {global:?}/{l:?}");
                let lw = (x % l[0]) | (y % l[1]) << 8 | (z % l[2]) << 16;
                assert_eq!(locals[i] as usize, lw, "local id of ({x},{y},{z}) in {global:?}/{l:?}");
            }
        }
    }
    assert!(ids[n..].iter().chain(&locals[n..]).all(|&v| v == SENTINEL), "writes outside the NDRange");
    l
}

#[test]
fn ndranges_in_1d_2d_3d_with_offsets_non_uniform_groups_and_chosen_sizes() {
    let env = Env::new();
    for metadata in [true, false] {
        let p = env.program(&our_elf(metadata));
        let k = kernel(p, "ids");
        check_ids(&env, k, 1, [5, 0, 0], [100, 1, 1], Some([32, 1, 1]));
        check_ids(&env, k, 1, [0, 0, 0], [96, 1, 1], Some([48, 1, 1]));
        check_ids(&env, k, 2, [3, 7, 0], [12, 6, 1], Some([8, 4, 1]));
        check_ids(&env, k, 3, [1, 2, 3], [5, 4, 3], Some([2, 2, 2]));
        check_ids(&env, k, 3, [0, 0, 9], [8, 4, 4], Some([4, 2, 2]));
        let max: usize = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_WORK_GROUP_SIZE);
        let warp: usize = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
        for (dim, global) in [(1, [1000, 1, 1]), (1, [97, 1, 1]), (2, [64, 64, 1]), (3, [6, 10, 7])] {
            let l = check_ids(&env, k, dim, [0; 3], global, None);
            assert!(l.iter().product::<usize>() <= max, "{l:?}");
            assert!((0..3).all(|d| global[d] % l[d] == 0), "chosen sizes divide the global size: {l:?}");
            if global[0] % warp == 0 && global[0] >= warp {
                assert_eq!(l[0] % warp, 0, "warp multiple preferred: {l:?}");
            }
        }
    }
    // A required work-group size is used when local_work_size is NULL, and enforced otherwise.
    let p = env.program(&our_elf(true));
    let fixed = kernel(p, "fixed");
    let m = env.buffer(&[0; 64]);
    set_mem(fixed, 0, &m);
    // `fixed` increments p[get_global_id(0)]; one row (the work-groups' second rows are masked).
    assert_eq!(env.run(fixed, None, &[16, 1], None), CL_COMPLETE);
    assert_eq!(env.run(fixed, None, &[16, 1], Some(&[8, 2])), CL_COMPLETE);
    let want: Vec<u32> = (0..64).map(|i| if i < 16 { 2 } else { 0 }).collect();
    assert_eq!(env.read(m, 64), want);
    expect_err(
        env.launch(fixed, None, &[16, 4], Some(&[4, 4])).unwrap_err(),
        CL_INVALID_WORK_GROUP_SIZE,
        "reqd mismatch",
    );
}

#[test]
fn local_arguments_are_shared_by_the_work_group() {
    let env = Env::new();
    for metadata in [true, false] {
        let p = env.program(&our_elf(metadata));
        let k = kernel(p, "scratch");
        let (out, ptrs) = (env.buffer(&[0; 128]), env.buffer(&[0; 2]));
        set_mem(k, 0, &out);
        set_local(k, 1, 64 * 4);
        set_local(k, 2, 64 * 4);
        set_mem(k, 3, &ptrs);
        assert_eq!(env.run(k, None, &[128], Some(&[64])), CL_COMPLETE);
        let want: Vec<u32> = (0..128).map(|g| 2 * ((g % 64 + 1) % 64) + 7).collect();
        assert_eq!(env.read(out, 128), want, "metadata: {metadata}");
        assert_eq!(env.read(ptrs, 2), vec![0x7fff_f000, 0x7fff_e000]);
    }
}

#[test]
fn every_ndrange_error_clause() {
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let k = kernel(p, "inc");
    let m = env.buffer(&[0; 64]);
    let max: usize = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let err = |r: Result<cl_event, cl_int>| r.map(wait_status).unwrap_or_else(|e| e);
    expect_err(err(env.launch(k, None, &[64], None)), CL_INVALID_KERNEL_ARGS, "unset argument");
    set_mem(k, 0, &m);
    for dim in [0, 4] {
        let code = call!(clEnqueueNDRangeKernel(env.q, k, dim, null(), [1; 4].as_ptr(), null(), 0, null(), null_mut()));
        expect_err(code, CL_INVALID_WORK_DIMENSION, "work_dim 0 and 4");
    }
    // size_t is 64-bit on the device, but its work-item ids are 32-bit.
    if usize::BITS > 32 {
        let huge = u32::MAX as usize + 1;
        expect_err(err(env.launch(k, None, &[huge], None)), CL_OUT_OF_RESOURCES, "global > 32 bits");
        let off = [u32::MAX as usize - 10];
        expect_err(err(env.launch(k, Some(&off), &[64], None)), CL_OUT_OF_RESOURCES, "offset + global > 32 bits");
        // An empty NDRange completes whatever its other sizes (no error clause applies).
        assert_eq!(err(env.launch(k, None, &[0, huge], None)), CL_COMPLETE, "empty range with a huge dimension");
    }
    let off = [usize::MAX - 10];
    expect_err(err(env.launch(k, Some(&off), &[64], None)), CL_INVALID_GLOBAL_OFFSET, "offset + global overflow");
    expect_err(err(env.launch(k, None, &[64], Some(&[max + 1]))), CL_INVALID_WORK_ITEM_SIZE, "local > max item size");
    expect_err(
        err(env.launch(k, None, &[64, 64], Some(&[max / 2, 4]))),
        CL_INVALID_WORK_GROUP_SIZE,
        "local > max group",
    );
    expect_err(err(env.launch(k, None, &[64], Some(&[0]))), CL_INVALID_WORK_GROUP_SIZE, "local 0");
    // Empty NDRanges complete without running (OpenCL >= 2.1).
    assert_eq!(err(env.launch(k, None, &[64, 0], None)), CL_COMPLETE);
    let mut e = null_mut();
    check(call!(clEnqueueNDRangeKernel(env.q, k, 1, null(), null(), null(), 0, null(), &mut e)), "NULL global");
    assert_eq!(wait_status(e), CL_COMPLETE);
    assert_eq!(env.read(m, 64), vec![0; 64]);
    // Handles, contexts and wait lists.
    let other = Env::new();
    let ue = user_event(other.ctx);
    let g = [64usize];
    let code = call!(clEnqueueNDRangeKernel(null_mut(), k, 1, null(), g.as_ptr(), null(), 0, null(), null_mut()));
    expect_err(code, CL_INVALID_COMMAND_QUEUE, "NULL queue");
    let code = call!(clEnqueueNDRangeKernel(env.q, null_mut(), 1, null(), g.as_ptr(), null(), 0, null(), null_mut()));
    expect_err(code, CL_INVALID_KERNEL, "NULL kernel");
    let code = call!(clEnqueueNDRangeKernel(other.q, k, 1, null(), g.as_ptr(), null(), 0, null(), null_mut()));
    expect_err(code, CL_INVALID_CONTEXT, "kernel of another context");
    let code = call!(clEnqueueNDRangeKernel(env.q, k, 1, null(), g.as_ptr(), null(), 1, &ue, null_mut()));
    expect_err(code, CL_INVALID_CONTEXT, "event of another context");
    let code = call!(clEnqueueNDRangeKernel(env.q, k, 1, null(), g.as_ptr(), null(), 1, null(), null_mut()));
    expect_err(code, CL_INVALID_EVENT_WAIT_LIST, "count without a list");
    check(call!(clSetUserEventStatus(ue, CL_COMPLETE)), "user event");
    // Too much __local memory.
    let s = kernel(p, "scratch");
    set_mem(s, 0, &m);
    set_mem(s, 3, &m);
    set_local(s, 1, 48 << 10);
    set_local(s, 2, 48 << 10);
    expect_err(err(env.launch(s, None, &[32], None)), CL_OUT_OF_RESOURCES, "__local above CL_DEVICE_LOCAL_MEM_SIZE");
    // Uniform work-groups required by -cl-uniform-work-group-size.
    let pu = env.program_unbuilt(&our_elf(true));
    check(call!(clBuildProgram(pu, 0, null(), c"-cl-uniform-work-group-size".as_ptr(), None, null_mut())), "build");
    let ku = kernel(pu, "inc");
    set_mem(ku, 0, &m);
    expect_err(
        err(env.launch(ku, None, &[60], Some(&[32]))),
        CL_INVALID_WORK_GROUP_SIZE,
        "non-uniform with -cl-uniform-work-group-size",
    );
    assert_eq!(err(env.launch(ku, None, &[64], Some(&[32]))), CL_COMPLETE);
    assert_eq!(env.read(m, 64), vec![1; 64]);
}

#[test]
fn tasks_native_kernels_and_argument_snapshots() {
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let k = kernel(p, "inc");
    let (a, b) = (env.buffer(&[0; 8]), env.buffer(&[0; 8]));
    set_mem(k, 0, &a);
    let mut e = null_mut();
    check(call!(clEnqueueTask(env.q, k, 0, null(), &mut e)), "clEnqueueTask");
    assert_eq!(info_value::<cl_command_type, _, _>(cl().clGetEventInfo, e, CL_EVENT_COMMAND_TYPE), CL_COMMAND_TASK);
    assert_eq!(wait_status(e), CL_COMPLETE);
    assert_eq!(env.read(a, 8), [1, 0, 0, 0, 0, 0, 0, 0]);
    let fixed = kernel(p, "fixed");
    set_mem(fixed, 0, &a);
    expect_err(
        call!(clEnqueueTask(env.q, fixed, 0, null(), null_mut())),
        CL_INVALID_WORK_GROUP_SIZE,
        "task with reqd (8,2,1)",
    );
    unsafe extern "C" fn native(_: *mut c_void) {}
    let code =
        call!(clEnqueueNativeKernel(env.q, Some(native), null_mut(), 0, 0, null(), null_mut(), 0, null(), null_mut()));
    check(code, "native kernel (tests/icd_native_kernels.rs has the rest)");
    // Arguments are captured at enqueue time; the kernel may be released while commands wait.
    let gate = user_event(env.ctx);
    let (mut e1, mut e2) = (null_mut(), null_mut());
    let g = [8usize];
    check(call!(clEnqueueNDRangeKernel(env.q, k, 1, null(), g.as_ptr(), null(), 1, &gate, &mut e1)), "first");
    set_mem(k, 0, &b);
    check(call!(clEnqueueNDRangeKernel(env.q, k, 1, null(), g.as_ptr(), null(), 1, &gate, &mut e2)), "second");
    check(call!(clReleaseKernel(k)), "release while enqueued");
    assert!(event_status(e1) >= CL_SUBMITTED, "waits for the gate");
    check(call!(clSetUserEventStatus(gate, CL_COMPLETE)), "open the gate");
    assert_eq!((wait_status(e1), wait_status(e2)), (CL_COMPLETE, CL_COMPLETE));
    assert_eq!(env.read(a, 8), [2, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(env.read(b, 8), [1; 8]);
}

#[test]
fn a_faulting_kernel_fails_only_its_event() {
    let env = Env::new();
    let p = env.program(&our_elf(true));
    let (crash, inc) = (kernel(p, "crash"), kernel(p, "inc"));
    let m = env.buffer(&[0; 32]);
    set_mem(crash, 0, &m);
    set_mem(inc, 0, &m);
    let e = env.launch(crash, None, &[64], Some(&[32])).unwrap();
    let mut after = null_mut();
    let g = [32usize];
    check(call!(clEnqueueNDRangeKernel(env.q, inc, 1, null(), g.as_ptr(), null(), 1, &e, &mut after)), "dependent");
    assert_eq!(wait_status(after), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(wait_status(e), CL_OUT_OF_RESOURCES);
    let msgs = env.messages();
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    for want in ["`crash`", "store access fault", "work-group 0", "warp 0", "pc 0x8", "address 0x00000010"] {
        assert!(msgs[0].contains(want), "{want:?} missing in {:?}", msgs[0]);
    }
    assert_eq!(env.run(inc, None, &[32], None), CL_COMPLETE);
    assert_eq!(env.read(m, 32), vec![1; 32]);
}

/// Handles cross threads as plain integers (the driver is thread-safe; raw pointers are not Send).
#[derive(Clone, Copy)]
struct H(usize);

#[test]
fn four_threads_enqueue_200_kernels_each_on_shared_and_separate_queues() {
    const THREADS: usize = 4;
    const LAUNCHES: u32 = 200;
    for shared in [true, false] {
        let env = Env::new();
        let p = H(env.program(&our_elf(true)) as usize);
        let (ctx, q) = (H(env.ctx as usize), H(env.q as usize));
        let bufs: Vec<H> = (0..THREADS).map(|_| H(env.buffer(&[0; 64]) as usize)).collect();
        std::thread::scope(|s| {
            for &b in &bufs {
                s.spawn(move || {
                    let k = kernel(p.0 as cl_program, "inc");
                    set_mem(k, 0, &(b.0 as cl_mem));
                    let q = if shared { q.0 as cl_command_queue } else { cl::queue(ctx.0 as cl_context, 0) };
                    let g = [64usize];
                    for _ in 0..LAUNCHES {
                        let code =
                            call!(clEnqueueNDRangeKernel(q, k, 1, null(), g.as_ptr(), null(), 0, null(), null_mut()));
                        check(code, "enqueue");
                    }
                    check(call!(clFinish(q)), "clFinish");
                    check(call!(clReleaseKernel(k)), "release");
                    if !shared {
                        check(call!(clReleaseCommandQueue(q)), "release queue");
                    }
                });
            }
        });
        // The shared queue interleaved the threads' commands; separate queues ran concurrently.
        // Either way each buffer saw exactly 200 increments.
        for b in bufs {
            assert_eq!(env.read(b.0 as cl_mem, 64), vec![LAUNCHES; 64], "shared queue: {shared}");
        }
        assert!(env.messages().is_empty());
    }
}

/// The front-end tools run under limits: a clang that does not finish within
/// `VENTUS_TOOL_TIMEOUT` is killed, one that exceeds `VENTUS_TOOL_MEMORY` ends; either way the
/// build fails with a log that says why.
#[test]
fn front_end_tools_run_under_time_and_memory_limits() {
    let dir = std::env::temp_dir().join(format!("ventus-tool-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let slow = dir.join("slow-clang.sh");
    std::fs::write(&slow, "#!/bin/sh\ncase \"$1\" in --version) exec clang-15 --version;; esac\nexec sleep 30\n")
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let slow = slow.to_string_lossy().into_owned();
    run_child(
        "child_tool_limits",
        &[
            ("VENTUS_TOOL_TIMEOUT", "1"),
            ("VENTUS_CLANG", &slow),
            ("VENTUS_LLVM_SPIRV", "llvm-spirv-15"),
            ("VENTUS_CACHE", "0"),
            ("VENTUS_TEST_EXPECT", "did not finish within 1 s"),
        ],
    );
    run_child(
        "child_tool_limits",
        &[("VENTUS_TOOL_MEMORY", "256"), ("VENTUS_CACHE", "0"), ("VENTUS_TEST_EXPECT", "VENTUS_TOOL_MEMORY")],
    );
    // VENTUS_CLANG alone is used (llvm-spirv is discovered as usual)...
    run_child(
        "child_tool_limits",
        &[
            ("VENTUS_TOOL_TIMEOUT", "1"),
            ("VENTUS_CLANG", &slow),
            ("VENTUS_CACHE", "0"),
            ("VENTUS_TEST_EXPECT", "did not finish within 1 s"),
        ],
    );
    // ...and one naming no tool is an error that says so, not a silent fallback to PATH.
    run_child(
        "child_tool_limits",
        &[
            ("VENTUS_LLVM_SPIRV", "/nonexistent/llvm-spirv"),
            ("VENTUS_CACHE", "0"),
            ("VENTUS_TEST_EXPECT", "VENTUS_LLVM_SPIRV=/nonexistent/llvm-spirv (not an executable file"),
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "run by front_end_tools_run_under_time_and_memory_limits"]
fn child_tool_limits() {
    if !is_child("child_tool_limits") {
        return;
    }
    let expect = std::env::var("VENTUS_TEST_EXPECT").unwrap();
    let env = Env::new();
    // A macro bomb: 4^14 copies of `x` (hundreds of MiB of tokens).
    let mut src = String::from("#define A0 x\n");
    for i in 1..16 {
        src += &format!("#define A{i} A{j} A{j} A{j} A{j}\n", j = i - 1);
    }
    src += "kernel void k(global int *a) { int x = 1; a[0] = A14; }\n";
    let c = std::ffi::CString::new(src).unwrap();
    let (mut ptr, mut err) = (c.as_ptr(), 0);
    let p = call!(clCreateProgramWithSource(env.ctx, 1, &mut ptr, null(), &mut err));
    check(err, "clCreateProgramWithSource");
    let d = device();
    let t0 = std::time::Instant::now();
    let code = call!(clBuildProgram(p, 1, &d, null(), None, null_mut()));
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{}", err_name(code));
    assert!(t0.elapsed().as_secs() < 25, "the limit did not stop the tool");
    let log = String::from_utf8_lossy(&build_info(p, CL_PROGRAM_BUILD_LOG)).into_owned();
    assert!(log.contains(&expect), "build log lacks {expect:?}:\n{log}");
    call!(clReleaseProgram(p));
}
