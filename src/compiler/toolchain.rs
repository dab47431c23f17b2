//! The front half: finding clang + llvm-spirv, turning the parsed options ([`FrontOptions`]) into
//! clang arguments (with the `__opencl_c_*` feature macros made to match the device), running
//! the two tools as subprocesses (stdin → stdout pipes, a timeout), `-O2` with retries when the
//! translator rejects optimised IR (for `freeze`: -O2 with LLVM's pass pipeline cut before the
//! pass that inserted it; otherwise, or if that fails, -O0), the build log, and the list of files
//! the preprocessor read (clang's `-MD` dependency output, for the build cache).
//!
//! Discovery: `VENTUS_CLANG` and `VENTUS_LLVM_SPIRV` each name one tool (a path, or a name
//! searched on `PATH`); a variable that is set but names nothing is an error, never a silent
//! fallback. A tool without its variable is `clang-15`/`llvm-spirv-15`, then `-14`, searched on
//! `PATH` and in `/usr/lib/llvm-N/bin`; the versions of discovered tools are never mixed.

use super::env;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A usable clang/llvm-spirv pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub llvm_spirv: PathBuf,
    /// `clang --version` first line (part of the cache key).
    pub version: String,
}

/// Why the front half failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// No clang/llvm-spirv pair was found.
    NotFound { searched: Vec<String> },
    /// clang reported errors (the diagnostics are in the build log).
    CompileFailed,
    /// llvm-spirv failed at both -O2 and -O0.
    TranslateFailed,
    /// A tool ran longer than the timeout.
    Timeout { tool: String, seconds: u64 },
    /// A tool could not be started or crashed.
    Spawn { tool: String, error: String },
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::NotFound { searched } => write!(
                f,
                "the OpenCL C front end is not installed (looked for {}); install it with: \
                 apt-get install -y --no-install-recommends clang-15 llvm-spirv-15",
                searched.join(", ")
            ),
            ToolError::CompileFailed => write!(f, "OpenCL C compilation failed"),
            ToolError::TranslateFailed => write!(f, "SPIR-V translation failed"),
            ToolError::Timeout { tool, seconds } => write!(f, "{tool} did not finish within {seconds} s"),
            ToolError::Spawn { tool, error } => write!(f, "cannot run {tool}: {error}"),
        }
    }
}
impl std::error::Error for ToolError {}

fn find(name: &str, extra_dirs: &[&str]) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = super::env::search_path();
    std::env::split_paths(&path).chain(extra_dirs.iter().map(PathBuf::from)).map(|d| d.join(name)).find(|c| c.is_file())
}

fn first_line(cmd: &Path) -> String {
    Command::new(cmd)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_default()
}

impl Toolchain {
    /// Finds a toolchain (see the module doc for the order).
    /// [`Toolchain::discover_now`], memoised per (`VENTUS_CLANG`, `VENTUS_LLVM_SPIRV`, `PATH`):
    /// a cached build then costs no subprocess.
    pub fn discover() -> Result<Toolchain, ToolError> {
        use parking_lot::Mutex;
        type Key = (Option<std::ffi::OsString>, Option<std::ffi::OsString>, Option<std::ffi::OsString>);
        static MEMO: Mutex<Option<(Key, Result<Toolchain, ToolError>)>> = Mutex::new(None);
        let key: Key =
            (env::tool_variable("VENTUS_CLANG"), env::tool_variable("VENTUS_LLVM_SPIRV"), Some(env::search_path()));
        let mut memo = MEMO.lock();
        if let Some((k, r)) = memo.as_ref() {
            if *k == key {
                return r.clone();
            }
        }
        let r = Toolchain::discover_now();
        *memo = Some((key, r.clone()));
        r
    }

    /// Finds the tools now (runs `clang --version`).
    pub fn discover_now() -> Result<Toolchain, ToolError> {
        // Each variable is independent; one that is set must name a tool (no silent fallback).
        let user = |var: &str| {
            env::tool_variable(var).map(|v| {
                let v = v.to_string_lossy().into_owned();
                (find(&v, &[]), format!("{var}={v}"))
            })
        };
        let (user_clang, user_spirv) = (user("VENTUS_CLANG"), user("VENTUS_LLVM_SPIRV"));
        let missing: Vec<String> = [&user_clang, &user_spirv]
            .into_iter()
            .flatten()
            .filter(|(p, _)| p.is_none())
            .map(|(_, what)| format!("{what} (not an executable file, nor found on PATH)"))
            .collect();
        if !missing.is_empty() {
            return Err(ToolError::NotFound { searched: missing });
        }
        let mut searched = Vec::new();
        for v in [15, 14] {
            let dir = format!("/usr/lib/llvm-{v}/bin");
            let (c, s) = (format!("clang-{v}"), format!("llvm-spirv-{v}"));
            // The user's tool, else this version's (by its versioned name or in its directory).
            let mut pick = |user: &Option<(Option<PathBuf>, String)>, name: &str, generic: &str| match user {
                Some((p, what)) => {
                    searched.push(what.clone());
                    p.clone()
                }
                None => {
                    searched.push(name.to_string());
                    find(name, &[&dir]).or_else(|| find(generic, &[&dir]).filter(|p| p.starts_with(&dir)))
                }
            };
            let clang = pick(&user_clang, &c, "clang");
            let spirv = pick(&user_spirv, &s, "llvm-spirv");
            if let (Some(clang), Some(llvm_spirv)) = (clang, spirv) {
                let version = first_line(&clang);
                return Ok(Toolchain { clang, llvm_spirv, version });
            }
        }
        searched.dedup();
        Err(ToolError::NotFound { searched })
    }
}

/// What the front end is told: the typed result of the driver's option parser
/// (`core::program::BuildOptions::parse`, the only parser of option strings), plus the device's
/// OpenCL version and OpenCL C features. `Default` is OpenCL C 1.2 with no optional features on
/// an OpenCL 3.0 device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontOptions {
    /// clang arguments from the user's options, in order (`-D`, `-U`, `-I`, `-w`, `-Werror` and
    /// the `-cl-*` flags clang implements).
    pub clang_args: Vec<String>,
    /// `-cl-std=` (else CL1.2).
    pub cl_std: Option<String>,
    /// `-cl-opt-disable` (or `-O0`): clang runs at -O0.
    pub opt_disable: bool,
    /// `-g0`: no source-line information. Otherwise clang runs with `-gline-tables-only`, whose
    /// `OpLine`s become the ELF's line table (fault messages and disassembly name source lines;
    /// the generated code is the same either way).
    pub no_line_info: bool,
    /// The OpenCL C 3.0 optional features the device reports (`CL_DEVICE_OPENCL_C_FEATURES`):
    /// with `-cl-std=CL3.0` exactly these `__opencl_c_*` feature macros are defined.
    pub features: Vec<String>,
    /// The extensions the device reports (`CL_DEVICE_EXTENSIONS`): with `-cl-std=CL3.0` the
    /// extension macros clang-15 defines regardless (see [`EXTENSION_MACROS`]) are undefined
    /// unless listed here.
    pub extensions: Vec<String>,
    /// The device's OpenCL version × 100: `__OPENCL_VERSION__`, whatever `-cl-std` says (OpenCL C
    /// 3.0 §6.12: "an integer reflecting the version number of the OpenCL supported by the
    /// OpenCL device"; `__OPENCL_C_VERSION__` is the one that follows `-cl-std`).
    pub opencl_version: u32,
    /// `-cl-denorms-are-zero`: the SPIR-V asks for single-precision denormals to be flushed
    /// ([`crate::compiler::build::flush_denormals`]).
    pub denorms_are_zero: bool,
}

impl Default for FrontOptions {
    fn default() -> FrontOptions {
        FrontOptions {
            clang_args: Vec::new(),
            cl_std: None,
            opt_disable: false,
            no_line_info: false,
            features: Vec::new(),
            extensions: Vec::new(),
            opencl_version: 300,
            denorms_are_zero: false,
        }
    }
}

impl FrontOptions {
    /// A canonical text of everything here (part of the build cache key).
    pub fn key(&self) -> String {
        let mut k = format!(
            "std={:?};O0={};g0={};cl={};daz={};",
            self.cl_std, self.opt_disable, self.no_line_info, self.opencl_version, self.denorms_are_zero
        );
        for a in &self.clang_args {
            k.push_str(&format!("{}:{a};", a.len()));
        }
        k.push_str(&self.features.join(","));
        k.push(';');
        k.push_str(&self.extensions.join(","));
        k
    }
}

/// Every OpenCL C 3.0 feature macro (the specification's list, plus the `cl_ext_float_atomics`
/// ones clang-15 defines for SPIR targets): those the device does not report are undefined.
///
/// (clang-15 declares a built-in function only if the feature macros it requires are defined
/// where it is used: the C11 atomics with implicit order and scope need
/// `__opencl_c_atomic_order_seq_cst` and `__opencl_c_atomic_scope_device`, which the device
/// reports.)
const FEATURE_MACROS: &[&str] = &[
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
    "__opencl_c_kernel_clock_scope_device",
    "__opencl_c_kernel_clock_scope_work_group",
    "__opencl_c_kernel_clock_scope_sub_group",
    "__opencl_c_ext_image_unorm_int_2_101010",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_min_max",
];

/// Extension macros clang-15's `opencl-c-base.h` defines for SPIR targets in OpenCL C 2.0 and
/// 3.0 whatever `-cl-ext` says (the compiler implements none of them).
const EXTENSION_MACROS: &[&str] = &[
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

/// Features clang-15 knows as `-cl-ext` names (others, e.g. `__opencl_c_fp16`, exist only as
/// macros we define).
const CLANG_FEATURES: &[&str] = &[
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_device_enqueue",
    "__opencl_c_generic_address_space",
    "__opencl_c_fp64",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
];

/// The text of the file clang pre-includes for OpenCL C 3.0 so that the `__opencl_c_*` macros
/// are exactly `features`. (clang-15's `opencl-c-base.h` defines several feature macros for
/// SPIR targets unconditionally, after `-D`/`-U` are processed; a `-include` file comes after
/// it.)
fn feature_prelude(features: &[String], extensions: &[String]) -> String {
    let mut s = String::from("/* ventus-icd: the device's OpenCL C features and extensions */\n");
    for m in FEATURE_MACROS {
        s.push_str(&format!("#undef {m}\n"));
    }
    for f in features {
        s.push_str(&format!("#define {f} 1\n"));
    }
    for e in EXTENSION_MACROS.iter().filter(|e| !extensions.iter().any(|x| x == *e)) {
        s.push_str(&format!("#undef {e}\n"));
    }
    s
}

/// Writes `text` once to a file named by its hash in the temporary directory; its path.
fn prelude_file(text: &str) -> Option<PathBuf> {
    let path = std::env::temp_dir().join(format!("ventus-icd-prelude-{}.h", super::cache::key(&[text.as_bytes()])));
    if std::fs::read(&path).ok().as_deref() == Some(text.as_bytes()) {
        return Some(path);
    }
    let tmp = unique_temp_path("prelude", "h.tmp");
    std::fs::write(&tmp, text).ok()?;
    std::fs::rename(&tmp, &path).ok()?;
    Some(path)
}

/// Output of the front half.
#[derive(Debug, Clone)]
pub struct FrontOutput {
    pub spirv: Vec<u32>,
    /// clang's diagnostics (warnings on success) and notes about retries.
    pub log: String,
    /// Every file the preprocessor read (headers found through `-I`, the current directory or
    /// the embedded-header directory, and clang's own headers), from clang's `-MD` output.
    pub deps: Vec<PathBuf>,
}

/// The files of a Makefile dependency rule as clang writes it (`target: dep dep \` lines;
/// spaces in names escaped as `\ `, `#` as `\#`, `$` as `$$`).
pub fn parse_depfile(text: &str) -> Vec<PathBuf> {
    let (mut words, mut cur, mut chars) = (Vec::new(), String::new(), text.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek().copied() {
                // A line continuation.
                Some('\n' | '\r') => words.push(std::mem::take(&mut cur)),
                Some(n @ (' ' | '#' | '\\')) => {
                    chars.next();
                    cur.push(n);
                }
                _ => cur.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                cur.push('$');
            }
            c if c.is_whitespace() => words.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    words.push(cur);
    words.retain(|w| !w.is_empty());
    // Everything after the target (`target:`).
    let first = words.iter().position(|w| w.ends_with(':')).map_or(0, |i| i + 1);
    words.drain(first..).map(PathBuf::from).collect()
}

/// A path in the temporary directory no other build of any process uses.
pub fn unique_temp_path(what: &str, ext: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("ventus-icd-{what}-{}-{n}.{ext}", std::process::id()))
}

/// A fresh path for clang's dependency file.
fn depfile_path() -> PathBuf {
    unique_temp_path("deps", "d")
}

/// Runs `cmd` with `input` on stdin; returns (exit success, stdout, stderr).
fn run_piped(cmd: &mut Command, tool: &str, input: &[u8]) -> Result<(bool, Vec<u8>, String), ToolError> {
    // Limits of one tool run (`VENTUS_TOOL_TIMEOUT`, `VENTUS_TOOL_MEMORY`, see [`env`]): a tool
    // over its time is killed and the build fails with a log saying so; a tool over its memory
    // fails its allocation and ends (its crash is named in the log).
    let limits = env::CompilerEnv::get();
    if let Some(bytes) = limits.tool_memory {
        use std::os::unix::process::CommandExt;
        let lim = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
        // SAFETY: the closure runs in the child between fork and exec and only calls
        // `setrlimit`, which is async-signal-safe, on a value captured by copy.
        unsafe {
            cmd.pre_exec(move || {
                libc::setrlimit(libc::RLIMIT_AS, &lim);
                Ok(())
            });
        }
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ToolError::Spawn { tool: tool.into(), error: e.to_string() })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let input = input.to_vec();
    // Feed stdin and drain both outputs on threads so no pipe can fill up and deadlock.
    let w = std::thread::spawn(move || {
        block_sigpipe();
        // A tool that ends without reading all of its input: EPIPE here, its status below.
        let _ = stdin.write_all(&input);
    });
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > limits.tool_timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ToolError::Timeout { tool: tool.into(), seconds: limits.tool_timeout.as_secs() });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(err) => return Err(ToolError::Spawn { tool: tool.into(), error: err.to_string() }),
        }
    };
    let _ = w.join();
    let out = o.join().unwrap_or_default();
    let mut err = String::from_utf8_lossy(&e.join().unwrap_or_default()).into_owned();
    if let Some(how) = abnormal_end(&status) {
        if !err.is_empty() && !err.ends_with('\n') {
            err.push('\n');
        }
        // llvm-spirv's failures are retried (a note in the log unless every attempt fails, which
        // `ToolError::TranslateFailed` reports); clang's end the build.
        let severity = if tool == "llvm-spirv" { "note" } else { "error" };
        err.push_str(&format!("{severity}: {tool} ({}) {how}\n", cmd.get_program().to_string_lossy()));
    }
    // clang's driver reports its front end's crash itself (and exits with status 1).
    if !status.success() && (err.contains("command failed with exit code") || err.contains("killed by signal")) {
        if let Some(bytes) = limits.tool_memory {
            err.push_str(&format!(
                "note: the front-end tools run with at most {} MiB of address space (VENTUS_TOOL_MEMORY)\n",
                bytes >> 20
            ));
        }
    }
    Ok((status.success(), out, err))
}

/// Blocks `SIGPIPE` in the calling thread, so that a write to a tool that exited without reading
/// its input fails with `EPIPE` instead of raising the signal, whose default action would end the
/// application: a Rust program ignores `SIGPIPE` from its start, but a C or Python host program
/// that loads the driver usually keeps the default. The signal a failed write then raises stays
/// pending for this thread alone and is discarded when the thread ends.
fn block_sigpipe() {
    // SAFETY: `set` is a local, initialised by `sigemptyset` before `sigaddset` reads it;
    // `pthread_sigmask` changes only the calling thread's mask (the old mask is not asked for).
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// How a tool ended if not by a normal exit (0, or 1 for diagnosed errors): killed by a signal
/// (a crash) or an unusual exit status, for the build log.
fn abnormal_end(status: &std::process::ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        let name = match sig {
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL: out of memory?)",
            11 => " (SIGSEGV)",
            15 => " (SIGTERM)",
            _ => "",
        };
        return Some(format!("was killed by signal {sig}{name}"));
    }
    status.code().filter(|&c| c > 1).map(|c| format!("exited with status {c} (a crash or an internal failure)"))
}

/// Whether OpenCL C `source` calls sub-group functions (`sub_group_*`), whose calls the
/// optimizer must not move between branches (see `Toolchain::compile_with_depfile`).
fn uses_sub_group_functions(source: &str) -> bool {
    source.contains("sub_group_")
}

/// The OpenCL extensions we expose to clang (everything else is off).
const CL_EXT: &str = "-all,+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,+cl_khr_fp64,+cl_khr_fp16,+cl_khr_3d_image_writes,+cl_khr_depth_images,+cl_khr_subgroups,+cl_khr_subgroup_extended_types,+cl_khr_subgroup_non_uniform_vote,+cl_khr_subgroup_ballot,+cl_khr_subgroup_non_uniform_arithmetic,+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative,+cl_khr_subgroup_clustered_reduce";

impl Toolchain {
    fn clang_command(&self, opts: &FrontOptions, opt_level: &str, headers: Option<&Path>, deps: &Path) -> Command {
        let mut c = Command::new(&self.clang);
        let std = opts.cl_std.clone().unwrap_or_else(|| "CL1.2".into());
        c.args(["-x", "cl", &format!("-cl-std={std}"), "-target", "spir64-unknown-unknown", opt_level])
            .args(["-cl-kernel-arg-info", "-fno-builtin-memset"])
            // Vectorising buys nothing (the back end scalarises) and emits `llvm.vector.reduce.*`
            // intrinsics that llvm-spirv 15 rejects.
            .args(["-fno-vectorize", "-fno-slp-vectorize"])
            // `spir64` index arithmetic (a zero/sign extension per index, which the back end
            // narrows away: `pass::narrow64`) makes LLVM's target-less cost model price a loop
            // body higher than the same loop for `spir`; this threshold (LLVM's default is 150)
            // restores the full unrolling of small fixed-count loops a 32-bit build gets, e.g.
            // a 16-step tile loop.
            .args(["-mllvm", "-unroll-threshold=200"])
            // C99 `inline` emits no body for a function that is not inlined (always the case at
            // -O0); GNU semantics emit it, as other OpenCL compilers effectively do.
            .arg("-fgnu89-inline")
            // Without fp64, clang keeps printf's float arguments float and then warns that `%f`
            // expects a double — a false alarm for OpenCL C, where `%f` takes a float.
            .arg("-Wno-format")
            .arg(format!("-D__OPENCL_VERSION__={}", opts.opencl_version))
            .args(["-Xclang", &format!("-cl-ext={CL_EXT}")])
            .arg("-fno-color-diagnostics");
        if std == "CL3.0" {
            // The optional features: the device's on, every other one clang knows off, and the
            // macros made to match exactly (see `feature_prelude`).
            let ext: Vec<String> = CLANG_FEATURES
                .iter()
                .map(|f| format!("{}{f}", if opts.features.iter().any(|g| g == f) { '+' } else { '-' }))
                .collect();
            c.args(["-Xclang", &format!("-cl-ext={}", ext.join(","))]);
            if let Some(p) = prelude_file(&feature_prelude(&opts.features, &opts.extensions)) {
                c.arg("-include").arg(p);
            }
        }
        if let Some(h) = headers {
            c.arg("-I").arg(h);
            c.current_dir(h);
        }
        // Every file the preprocessor reads, for the build cache (`FrontOutput::deps`).
        c.arg("-MD").arg("-MF").arg(deps);
        if !opts.no_line_info {
            c.arg("-gline-tables-only");
        }
        c.args(&opts.clang_args).args(["-emit-llvm", "-c", "-", "-o", "-"]);
        c
    }

    /// OpenCL C source → SPIR-V words. `headers` is a directory with embedded headers (from
    /// `clCompileProgram`) added to the include path.
    pub fn compile(
        &self,
        source: &str,
        opts: &FrontOptions,
        headers: Option<&Path>,
    ) -> Result<FrontOutput, (ToolError, String)> {
        let depfile = depfile_path();
        let result = self.compile_with_depfile(source, opts, headers, &depfile);
        let deps = std::fs::read_to_string(&depfile).map(|t| parse_depfile(&t)).unwrap_or_default();
        let _ = std::fs::remove_file(&depfile);
        let result = result.and_then(|(spirv, mut log)| {
            if !opts.denorms_are_zero {
                return Ok((spirv, log));
            }
            match super::build::flush_denormals(&spirv) {
                Ok(w) => Ok((w, log)),
                Err(e) => {
                    log.push_str(&format!("error: llvm-spirv's module: {e}\n"));
                    Err((ToolError::TranslateFailed, log))
                }
            }
        });
        result.map(|(spirv, log)| FrontOutput { spirv, log, deps })
    }

    fn compile_with_depfile(
        &self,
        source: &str,
        opts: &FrontOptions,
        headers: Option<&Path>,
        depfile: &Path,
    ) -> Result<(Vec<u32>, String), (ToolError, String)> {
        let mut log = String::new();
        let clang = |extra: &[String], level: &str| {
            let mut c = self.clang_command(opts, level, headers, depfile);
            if uses_sub_group_functions(source) {
                // LLVM's convergent semantics let SimplifyCFG hoist identical calls out of both
                // arms of a branch (or sink them below it); for the non-uniform sub-group
                // functions that changes which lanes take part, so a source that calls
                // sub-group functions keeps its calls where it wrote them.
                c.args(["-mllvm", "-simplifycfg-hoist-common=false", "-mllvm", "-simplifycfg-sink-common=false"]);
            }
            c.args(extra);
            run_piped(&mut c, "clang", source.as_bytes())
        };
        // -O2 first (-O0 for -cl-opt-disable, which clang only honours without an -O level).
        let level = if opts.opt_disable { "-O0" } else { "-O2" };
        if let Err(e) = super::includes::check(source, opts, headers) {
            log.push_str(&format!("<source>: error: {e}\n"));
            return Err((ToolError::CompileFailed, log));
        }
        let (ok, bc, err) = clang(&[], level).map_err(|e| (e, log.clone()))?;
        log.push_str(&err.replace("<stdin>", "<source>"));
        // A tool that ends without a word (a crash it does not report, a stand-in such as
        // /bin/false) is named: a failed build always says why.
        let clang_path = self.clang.to_string_lossy();
        if !ok {
            if err.trim().is_empty() {
                log.push_str(&format!("error: clang ({clang_path}) failed without a diagnostic\n"));
            }
            return Err((ToolError::CompileFailed, log));
        }
        if bc.is_empty() {
            log.push_str(&format!("error: clang ({clang_path}) ended successfully but wrote no module\n"));
            return Err((ToolError::CompileFailed, log));
        }
        let reason = match self.translate(&bc).map_err(|e| (e, log.clone()))? {
            Ok(spirv) => return Ok((spirv, log)),
            Err(reason) => reason,
        };
        if let Some(error) = untranslatable(&reason) {
            // No other optimisation level changes this: no retries (each is a clang run).
            log.push_str(&format!("{error}\nnote: llvm-spirv said: {}\n", brief(&reason)));
            return Err((ToolError::TranslateFailed, log));
        }
        log.push_str(&format!("note: llvm-spirv rejected the {level} module ({})", brief(&reason)));
        if opts.opt_disable {
            log.push('\n');
            return Err((ToolError::TranslateFailed, log));
        }
        log.push_str("; ");
        // llvm-spirv 15 cannot translate some constructs that optimisation passes introduce
        // (`freeze`, inserted e.g. by DivRemPairs when it splits a remainder into div/mul/sub;
        // odd-width integers such as i33 from induction-variable rewriting): keep -O2 but stop
        // LLVM's pass pipeline before the pass responsible.
        if let Some((limit, spirv)) = self.without_late_passes(&clang).map_err(|e| (e, log.clone()))? {
            log.push_str(&format!("retried at -O2 with LLVM's passes after #{limit} skipped (-opt-bisect-limit)\n"));
            return Ok((spirv, log));
        }
        log.push_str("retrying at -O0\n");
        let (ok, bc, _) = clang(&[], "-O0").map_err(|e| (e, log.clone()))?;
        if ok {
            match self.translate(&bc).map_err(|e| (e, log.clone()))? {
                Ok(spirv) => return Ok((spirv, log)),
                Err(reason) => {
                    log.push_str(&format!("note: llvm-spirv rejected the -O0 module ({})\n", brief(&reason)))
                }
            }
        }
        Err((ToolError::TranslateFailed, log))
    }

    /// LLVM bitcode → SPIR-V words, or llvm-spirv's complaint.
    fn translate(&self, bc: &[u8]) -> Result<Result<Vec<u32>, String>, ToolError> {
        let mut tr = Command::new(&self.llvm_spirv);
        tr.args(["--preserve-ocl-kernel-arg-type-metadata-through-string", "-", "-o", "-"]);
        let (ok, spv, err) = run_piped(&mut tr, "llvm-spirv", bc)?;
        if ok && spv.len() % 4 == 0 && !spv.is_empty() {
            return Ok(Ok(spv.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()));
        }
        let path = self.llvm_spirv.to_string_lossy();
        Ok(Err(match (err.trim(), ok) {
            ("", false) => format!("llvm-spirv ({path}) failed without a message"),
            ("", true) => format!("llvm-spirv ({path}) wrote {} bytes, not a SPIR-V module", spv.len()),
            (text, _) => text.to_string(),
        }))
    }

    /// -O2 with LLVM's pass pipeline cut short (`-opt-bisect-limit`): first just before the first
    /// pass known to insert `freeze`, then (if that is not enough) the longest prefix found by
    /// bisection that llvm-spirv accepts. `None` when no prefix works.
    fn without_late_passes(&self, clang: &ClangRun) -> Result<Option<(u32, Vec<u32>)>, ToolError> {
        let limit_args = |k: u32| vec!["-mllvm".to_string(), format!("-opt-bisect-limit={k}")];
        // The pass list: with limit -1 every pass runs and is announced on stderr as
        // "BISECT: running pass (N) Name on ...".
        let (ok, _, listing) = clang(&["-mllvm".into(), "-opt-bisect-limit=-1".into()], "-O2")?;
        if !ok {
            return Ok(None);
        }
        let passes: Vec<(u32, &str)> = listing
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("BISECT: running pass (")?;
                let (n, rest) = rest.split_once(") ")?;
                Some((n.parse().ok()?, rest.split_whitespace().next()?))
            })
            .collect();
        let total = passes.iter().map(|p| p.0).max().unwrap_or(0);
        let attempt = |k: u32| -> Result<Option<Vec<u32>>, ToolError> {
            let (ok, bc, _) = clang(&limit_args(k), "-O2")?;
            if !ok {
                return Ok(None);
            }
            Ok(self.translate(&bc)?.ok())
        };
        let known = passes.iter().find(|(_, name)| FREEZE_PASSES.contains(name)).map(|p| p.0.saturating_sub(1));
        if let Some(k) = known {
            if let Some(spirv) = attempt(k)? {
                return Ok(Some((k, spirv)));
            }
        }
        // Bisection for the longest accepted prefix (at most ~log2(total) + 1 attempts).
        let (mut lo, mut hi) = (0u32, known.unwrap_or(total));
        let mut best = None;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            match attempt(mid)? {
                Some(spirv) => {
                    best = Some((mid, spirv));
                    lo = mid + 1;
                }
                None if mid == 0 => break,
                None => hi = mid - 1,
            }
        }
        Ok(best)
    }
}

/// What a tool run produced: success, standard output, standard error.
type ToolRun = (bool, Vec<u8>, String);

/// Runs clang on the source with extra arguments at an optimisation level.
type ClangRun<'a> = dyn Fn(&[String], &str) -> Result<ToolRun, ToolError> + 'a;

/// LLVM 15 passes that insert `freeze` (which llvm-spirv 15 cannot translate) in -O2 pipelines.
/// (Others, e.g. non-trivial loop unswitching, are found by the bisection.)
const FREEZE_PASSES: [&str; 1] = ["DivRemPairsPass"];

/// The most of one llvm-spirv complaint the build log keeps ([`brief`]).
const MAX_REASON_BYTES: usize = 1024;

/// llvm-spirv's complaint, cut for the build log: it may quote a whole LLVM value (a
/// two-million-element initializer makes a message of tens of megabytes).
fn brief(reason: &str) -> String {
    let reason = reason.trim();
    if reason.len() <= MAX_REASON_BYTES {
        return reason.to_string();
    }
    let mut end = MAX_REASON_BYTES;
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} … [{} more bytes]", &reason[..end], reason.len() - end)
}

/// For a complaint no optimisation level can change, the build's error line: a constant with more
/// elements than one SPIR-V instruction can hold (a huge program-scope initializer), which is
/// also far larger than the device's program-scope limits.
fn untranslatable(reason: &str) -> Option<String> {
    if !reason.contains("InvalidWordCount") {
        return None;
    }
    // llvm-spirv quotes the value: `@name = … constant [N x T] […]`.
    let name = reason
        .split_once("Original LLVM value:")
        .and_then(|(_, v)| v.trim_start().strip_prefix('@'))
        .and_then(|v| v.split(|c: char| c.is_whitespace() || c == '=').next())
        .filter(|n| !n.is_empty() && n.len() <= 256);
    let what = name.map_or("a program-scope array or string".to_string(), |n| format!("program-scope `{n}`"));
    Some(format!(
        "<source>: error: {what} has an initializer of more than 65,532 elements, more than SPIR-V can \
         hold in one constant; the device takes at most {} bytes of __constant data \
         (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) and {} bytes per program-scope variable \
         (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE)",
        crate::abi::MAX_CONSTANT_BYTES,
        crate::abi::globals::MAX_VARIABLE_SIZE
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_initializers_are_named_and_not_retried() {
        let quoted = format!(
            "InvalidWordCount: Can't encode instruction with word count greater than 65535:\n Global \
             variable has a constant array initializer with a number of elements greater than \
             OpConstantComposite can have (65532). Should the array be split?\n Original LLVM value:\n\
             @table = local_unnamed_addr addrspace(2) constant [2000000 x i32] [{}]",
            "i32 7, ".repeat(2_000_000)
        );
        let e = untranslatable(&quoted).expect("not retried");
        assert!(e.contains("program-scope `table` has an initializer of more than 65,532 elements"), "{e}");
        assert!(e.contains("CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE"), "{e}");
        let b = brief(&quoted);
        assert!(b.len() < MAX_REASON_BYTES + 64 && b.ends_with("more bytes]"), "{}", b.len());
        assert!(untranslatable("Unsupported instruction: freeze").is_none(), "retried at other levels");
        assert_eq!(brief("short\n"), "short");
    }

    /// A tool that crashes is named in the log with how it ended, after its own stderr; a
    /// diagnosed error (exit status 1) adds nothing.
    #[test]
    fn crashed_tools_are_named_with_their_signal_or_status() {
        let mut c = Command::new("sh");
        c.args(["-c", "echo 'tool: internal error' >&2; kill -SEGV $$"]);
        let (ok, _, err) = run_piped(&mut c, "clang", b"").unwrap();
        assert!(!ok);
        assert!(err.starts_with("tool: internal error\n"), "{err}");
        assert!(err.contains("error: clang (sh) was killed by signal 11 (SIGSEGV)"), "{err}");
        let mut c = Command::new("sh");
        c.args(["-c", "exit 70"]);
        let (_, _, err) = run_piped(&mut c, "llvm-spirv", b"").unwrap();
        // llvm-spirv is retried: its end is a note (the build fails with an error only if every
        // attempt does).
        assert!(err.contains("note: llvm-spirv (sh) exited with status 70"), "{err}");
        let mut c = Command::new("sh");
        c.args(["-c", "echo 'x.cl:1: error: bad' >&2; exit 1"]);
        let (_, _, err) = run_piped(&mut c, "clang", b"").unwrap();
        assert_eq!(err, "x.cl:1: error: bad\n");
    }

    #[test]
    fn dependency_files() {
        let d = "-: /usr/lib/clang/15/include/opencl-c-base.h \\\n  /tmp/dep\\ dir/h.h /a/\\#b$$c.h\n";
        assert_eq!(
            parse_depfile(d),
            [
                PathBuf::from("/usr/lib/clang/15/include/opencl-c-base.h"),
                PathBuf::from("/tmp/dep dir/h.h"),
                PathBuf::from("/a/#b$c.h")
            ]
        );
        assert!(parse_depfile("").is_empty());
    }

    #[test]
    fn feature_macros_are_exactly_the_device_features() {
        let p = feature_prelude(&["__opencl_c_fp64".to_string()], &["cl_khr_subgroup_ballot".to_string()]);
        assert!(p.contains("#undef __opencl_c_read_write_images\n"));
        assert!(p.contains("#undef cl_khr_subgroup_shuffle\n") && !p.contains("#undef cl_khr_subgroup_ballot\n"));
        assert!(p.contains("#undef __opencl_c_atomic_scope_device\n"), "unless the device reports it");
        assert!(p.contains("#define __opencl_c_fp64 1\n"));
    }
}
