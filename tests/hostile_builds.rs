//! Builds that must not hurt the application that loaded the driver (issue 37): an `#include` of
//! a device or a FIFO fails at once with a log line (and the process stays small), and a
//! front-end tool that exits without reading its input leaves the application alive with a log
//! naming the tool — in a process that keeps `SIGPIPE`'s default action, as C and Python host
//! programs do (the Rust test harness ignores it, so those checks run in a child process).

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::CString;
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

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

/// Builds `src` in a new context: the build's result code and log.
fn build(src: &str) -> (cl_int, String) {
    build_with(src, "")
}

/// As [`build`], with build `options`.
fn build_with(src: &str, options: &str) -> (cl_int, String) {
    let ctx = context();
    let (text, mut err) = (CString::new(src).unwrap(), 0);
    let mut ptrs = [text.as_ptr()];
    let p = call!(clCreateProgramWithSource(ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    let options = CString::new(options).unwrap();
    let code = call!(clBuildProgram(p, 0, null(), options.as_ptr(), None, null_mut()));
    let d = device();
    let mut log = info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, s, v, r)));
    log.pop();
    call!(clReleaseProgram(p));
    call!(clReleaseContext(ctx));
    (code, String::from_utf8_lossy(&log).into_owned())
}

/// Runs the `#[ignore]`d test `name` of this file in a child process with `vars` set; the
/// child's output. Fails if the child did not pass (killed by a signal included).
fn run_child(name: &str, vars: &[(&str, &str)]) -> String {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--ignored", "--nocapture", "--test-threads=1"]).env("VENTUS_CACHE", "0");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "child {name} ended with {:?}:\n{text}", out.status);
    text
}

/// The peak resident set of this process (`VmHWM`), in MiB.
fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/self/status");
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() >> 10
}

#[test]
#[ignore = "run by includes_of_devices_and_fifos_fail_at_once in a child process"]
fn child_includes() {
    let fifo = std::env::var("FIFO").unwrap();
    for (src, what) in [
        ("#include \"/dev/zero\"\nkernel void k(global int *o) { o[0] = 1; }\n", "/dev/zero"),
        (&format!("#include \"{fifo}\"\nkernel void k(global int *o) {{ o[0] = 1; }}\n") as &str, fifo.as_str()),
    ] {
        let start = Instant::now();
        let (code, log) = build(src);
        let took = start.elapsed();
        assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{what}: {log}");
        assert!(log.contains(&format!("{what}, which is not a regular file")), "{what}: {log}");
        assert!(took < Duration::from_secs(10), "{what}: {took:?}");
    }
    let peak = peak_rss_mib();
    assert!(peak < 200, "peak RSS {peak} MiB");
    println!("peak RSS {peak} MiB");
}

#[test]
fn includes_of_devices_and_fifos_fail_at_once() {
    let dir = std::env::temp_dir().join(format!("ventus-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    run_child("child_includes", &[("FIFO", fifo.to_str().unwrap())]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A source large enough (about 1 MB, with a 160 KB constant table) that neither its text nor
/// its module fits in a pipe's buffer: a tool that does not read it makes the write fail.
fn large_source() -> String {
    let table: Vec<String> = (0..40_000).map(|i| ((i * 7919) % 100_003).to_string()).collect();
    format!(
        "/* {} */\nconstant int table[40000] = {{{}}};\nkernel void k(global int *o) {{ o[get_global_id(0)] = table[get_global_id(0)]; }}\n",
        "x".repeat(700_000),
        table.join(",")
    )
}

#[test]
#[ignore = "run by front_ends_that_exit_at_once_leave_the_application_alive in a child process"]
fn child_front_end_exits() {
    // What a C host program has: SIGPIPE's default action (termination).
    // SAFETY: restoring the default disposition of one signal; no handler is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let tool = std::env::var("TOOL").unwrap();
    let (code, log) = build(&large_source());
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{log}");
    assert!(log.contains(&tool), "the log names the tool: {log}");
    println!("log: {log}");
}

#[test]
fn front_ends_that_exit_at_once_leave_the_application_alive() {
    for (var, tool) in
        [("VENTUS_CLANG", "/bin/true"), ("VENTUS_CLANG", "/bin/false"), ("VENTUS_LLVM_SPIRV", "/bin/false")]
    {
        run_child("child_front_end_exits", &[(var, tool), ("TOOL", tool)]);
    }
}

#[test]
fn oversized_sources_fail_with_a_log_line() {
    let start = Instant::now();
    let src = format!("/*{}*/ kernel void k(global int *o) {{ o[0] = 1; }}", " ".repeat(65 << 20));
    let (code, log) = build(&src);
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{log}");
    assert!(log.contains("more than the 64 MiB the driver builds"), "{log}");
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
}

/// A program-scope array of `rows` × 1000 ints with an initializer for every element (nested,
/// so that llvm-spirv accepts it: one composite of more than 65,532 elements it refuses itself).
fn initialized_table(space: &str, rows: usize) -> String {
    let row = format!("{{{}}}", (0..1000).map(|i| (i % 97).to_string()).collect::<Vec<_>>().join(","));
    let rows = vec![row; rows].join(",\n");
    format!(
        "{space} int table[{n}][1000] = {{\n{rows}\n}};\n\
         kernel void k(global int *o) {{ o[get_global_id(0)] = table[get_global_id(0) % {n}][get_global_id(0) % 1000]; }}\n",
        n = rows.matches('{').count()
    )
}

/// A `constant` or `global` array larger than the device allows fails the build with a log line
/// naming the variable and the limit, found when the module is read (before the driver looks at
/// its 300,000 initial values).
#[test]
fn oversized_program_scope_initializers_fail_naming_the_variable() {
    for (space, query) in [
        ("constant", "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is 65536"),
        ("global", "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE is 65536"),
    ] {
        let (code, log) = build_with(&initialized_table(space, 300), "-cl-std=CL3.0");
        assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{space}: {log}");
        let what = if space == "constant" { "constant" } else { "variable" };
        assert!(log.contains(&format!("program-scope {what} `table` has 1200000 bytes ({query})")), "{space}: {log}");
        assert!(log.len() < 4096, "a short log: {log}");
    }
    // Within the limit, the same kind of table builds.
    let (code, log) = build(&initialized_table("constant", 16));
    assert_eq!(code, CL_SUCCESS, "{log}");
}

/// An initializer of more elements than one SPIR-V constant can hold (llvm-spirv refuses it,
/// quoting the whole value) fails at once: no retry at other optimisation levels (each a clang
/// run), and a short log naming the variable and the device's limits.
#[test]
fn initializers_too_large_for_spirv_fail_without_retries() {
    let values = (0..100_000).map(|i| (i % 89).to_string()).collect::<Vec<_>>().join(",");
    let src = format!(
        "constant int table[100000] = {{{values}}};\n\
         kernel void k(global int *o) {{ o[get_global_id(0)] = table[get_global_id(0)]; }}\n"
    );
    let (code, log) = build(&src);
    assert_eq!(code, CL_BUILD_PROGRAM_FAILURE, "{log}");
    assert!(log.contains("error: program-scope `table` has an initializer of more than 65,532 elements"), "{log}");
    assert!(log.contains("CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE"), "{log}");
    assert!(!log.contains("retr"), "no retries: {log}");
    assert!(log.len() < 8192, "{} bytes of log", log.len());
}
