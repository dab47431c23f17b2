//! The front half: finding clang + llvm-spirv, validating and translating build options, running
//! the two tools as subprocesses (stdin → stdout pipes, a timeout), `-O2` with retries when the
//! translator rejects optimised IR (for `freeze`: -O2 with LLVM's pass pipeline cut before the
//! pass that inserted it; otherwise, or if that fails, -O0), and the build log.
//!
//! Discovery order: `VENTUS_CLANG` + `VENTUS_LLVM_SPIRV` (both set), then `clang-15` +
//! `llvm-spirv-15`, then `clang-14` + `llvm-spirv-14`, searched on `PATH` and in
//! `/usr/lib/llvm-N/bin`. Versions are never mixed.

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
    /// A build option we do not accept.
    BadOption(String),
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
            ToolError::BadOption(o) => write!(f, "invalid build option: {o}"),
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
    let path = std::env::var_os("PATH").unwrap_or_default();
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
            (std::env::var_os("VENTUS_CLANG"), std::env::var_os("VENTUS_LLVM_SPIRV"), std::env::var_os("PATH"));
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
        let mut searched = Vec::new();
        if let (Ok(c), Ok(s)) = (std::env::var("VENTUS_CLANG"), std::env::var("VENTUS_LLVM_SPIRV")) {
            searched.push(format!("VENTUS_CLANG={c} + VENTUS_LLVM_SPIRV={s}"));
            if let (Some(clang), Some(llvm_spirv)) = (find(&c, &[]), find(&s, &[])) {
                let version = first_line(&clang);
                return Ok(Toolchain { clang, llvm_spirv, version });
            }
        }
        for v in [15, 14] {
            let dir = format!("/usr/lib/llvm-{v}/bin");
            let (c, s) = (format!("clang-{v}"), format!("llvm-spirv-{v}"));
            searched.push(format!("{c} + {s}"));
            let clang = find(&c, &[&dir]).or_else(|| find("clang", &[&dir]).filter(|p| p.starts_with(&dir)));
            let spirv = find(&s, &[&dir]).or_else(|| find("llvm-spirv", &[&dir]).filter(|p| p.starts_with(&dir)));
            if let (Some(clang), Some(llvm_spirv)) = (clang, spirv) {
                let version = first_line(&clang);
                return Ok(Toolchain { clang, llvm_spirv, version });
            }
        }
        Err(ToolError::NotFound { searched })
    }
}

/// Options we pass through to clang, after validation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// clang arguments derived from the user's options.
    pub clang_args: Vec<String>,
    /// `-cl-std` given by the user (else CL1.2).
    pub cl_std: Option<String>,
    /// Options that affect our back end.
    pub fast_relaxed_math: bool,
    pub werror: bool,
    /// `-cl-opt-disable`: clang runs at -O0.
    pub opt_disable: bool,
}

/// Splits an options string like a shell would (quotes group words).
fn split_options(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Validates `clBuildProgram`/`clCompileProgram` options (OpenCL 3.0 §5.8.6).
pub fn parse_options(options: &str) -> Result<BuildOptions, ToolError> {
    let words = split_options(options);
    let mut o = BuildOptions::default();
    let mut it = words.into_iter().peekable();
    while let Some(w) = it.next() {
        let take = |it: &mut std::iter::Peekable<std::vec::IntoIter<String>>, w: &str| {
            it.next().ok_or_else(|| ToolError::BadOption(format!("{w} needs an argument")))
        };
        match w.as_str() {
            "-D" | "-I" | "-U" => {
                let v = take(&mut it, &w)?;
                o.clang_args.push(w.clone());
                o.clang_args.push(v);
            }
            s if s.starts_with("-D") || s.starts_with("-I") || s.starts_with("-U") => o.clang_args.push(w.clone()),
            s if s.starts_with("-cl-std=") => {
                let v = &s[8..];
                if !["CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"].contains(&v) {
                    return Err(ToolError::BadOption(w.clone()));
                }
                o.cl_std = Some(v.to_string());
            }
            "-cl-fast-relaxed-math" => {
                o.fast_relaxed_math = true;
                o.clang_args.push(w.clone());
            }
            "-cl-opt-disable" => {
                o.opt_disable = true;
                o.clang_args.push(w.clone());
            }
            "-cl-single-precision-constant"
            | "-cl-denorms-are-zero"
            | "-cl-fp32-correctly-rounded-divide-sqrt"
            | "-cl-mad-enable"
            | "-cl-no-signed-zeros"
            | "-cl-unsafe-math-optimizations"
            | "-cl-finite-math-only"
            | "-cl-uniform-work-group-size"
            | "-cl-no-subgroup-ifp" => o.clang_args.push(w.clone()),
            "-cl-strict-aliasing" => {}
            "-cl-kernel-arg-info" => {}
            "-w" => o.clang_args.push(w.clone()),
            "-Werror" => {
                o.werror = true;
                o.clang_args.push(w.clone());
            }
            s if s.starts_with("-g") => {}
            s if s.starts_with("-O") && matches!(&s[2..], "" | "0" | "1" | "2" | "3" | "s") => {}
            "-create-library" | "-enable-link-options" => {}
            _ => return Err(ToolError::BadOption(w)),
        }
    }
    Ok(o)
}

/// Output of the front half.
#[derive(Debug, Clone)]
pub struct FrontOutput {
    pub spirv: Vec<u32>,
    /// clang's diagnostics (warnings on success) and notes about retries.
    pub log: String,
}

const TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `cmd` with `input` on stdin; returns (exit success, stdout, stderr).
fn run_piped(cmd: &mut Command, tool: &str, input: &[u8]) -> Result<(bool, Vec<u8>, String), ToolError> {
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
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ToolError::Timeout { tool: tool.into(), seconds: TIMEOUT.as_secs() });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(err) => return Err(ToolError::Spawn { tool: tool.into(), error: err.to_string() }),
        }
    };
    let _ = w.join();
    let out = o.join().unwrap_or_default();
    let err = String::from_utf8_lossy(&e.join().unwrap_or_default()).into_owned();
    Ok((status.success(), out, err))
}

/// The OpenCL extensions we expose to clang (everything else is off).
const CL_EXT: &str = "-all,+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,+cl_khr_fp64,+cl_khr_fp16";

impl Toolchain {
    fn clang_command(&self, opts: &BuildOptions, opt_level: &str, headers: Option<&Path>) -> Command {
        let mut c = Command::new(&self.clang);
        let std = opts.cl_std.clone().unwrap_or_else(|| "CL1.2".into());
        let version = match std.as_str() {
            "CL1.0" => "100",
            "CL1.1" => "110",
            "CL2.0" => "200",
            "CL3.0" => "300",
            _ => "120",
        };
        c.args(["-x", "cl", &format!("-cl-std={std}"), "-target", "spir-unknown-unknown", opt_level])
            .args(["-cl-kernel-arg-info", "-fno-builtin-memset", "-U__IMAGE_SUPPORT__"])
            // Vectorising buys nothing (the back end scalarises) and emits `llvm.vector.reduce.*`
            // intrinsics that llvm-spirv 15 rejects.
            .args(["-fno-vectorize", "-fno-slp-vectorize"])
            // C99 `inline` emits no body for a function that is not inlined (always the case at
            // -O0); GNU semantics emit it, as other OpenCL compilers effectively do.
            .arg("-fgnu89-inline")
            // Without fp64, clang keeps printf's float arguments float and then warns that `%f`
            // expects a double — a false alarm for OpenCL C, where `%f` takes a float.
            .arg("-Wno-format")
            .arg(format!("-D__OPENCL_VERSION__={version}"))
            .args(["-Xclang", &format!("-cl-ext={CL_EXT}")])
            .arg("-fno-color-diagnostics");
        if std == "CL3.0" {
            c.args(["-Xclang", "-cl-ext=+__opencl_c_int64,-__opencl_c_generic_address_space,+__opencl_c_program_scope_global_variables,-__opencl_c_images,-__opencl_c_read_write_images,-__opencl_c_pipes,-__opencl_c_device_enqueue,-__opencl_c_3d_image_writes,+__opencl_c_fp64,-__opencl_c_subgroups,-__opencl_c_atomic_order_seq_cst,-__opencl_c_atomic_scope_device,-__opencl_c_atomic_scope_all_devices,-__opencl_c_work_group_collective_functions"]);
        }
        if let Some(h) = headers {
            c.arg("-I").arg(h);
            c.current_dir(h);
        }
        c.args(&opts.clang_args).args(["-emit-llvm", "-c", "-", "-o", "-"]);
        c
    }

    /// OpenCL C source → SPIR-V words. `headers` is a directory with embedded headers (from
    /// `clCompileProgram`) added to the include path.
    pub fn compile(
        &self,
        source: &str,
        opts: &BuildOptions,
        headers: Option<&Path>,
    ) -> Result<FrontOutput, (ToolError, String)> {
        let mut log = String::new();
        let clang = |extra: &[String], level: &str| {
            let mut c = self.clang_command(opts, level, headers);
            c.args(extra);
            run_piped(&mut c, "clang", source.as_bytes())
        };
        // -O2 first (-O0 for -cl-opt-disable, which clang only honours without an -O level).
        let level = if opts.opt_disable { "-O0" } else { "-O2" };
        let (ok, bc, err) = clang(&[], level).map_err(|e| (e, log.clone()))?;
        log.push_str(&err.replace("<stdin>", "<source>"));
        if !ok {
            return Err((ToolError::CompileFailed, log));
        }
        let reason = match self.translate(&bc).map_err(|e| (e, log.clone()))? {
            Ok(spirv) => return Ok(FrontOutput { spirv, log }),
            Err(reason) => reason,
        };
        log.push_str(&format!("note: llvm-spirv rejected the {level} module ({reason})"));
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
            return Ok(FrontOutput { spirv, log });
        }
        log.push_str("retrying at -O0\n");
        let (ok, bc, _) = clang(&[], "-O0").map_err(|e| (e, log.clone()))?;
        if ok {
            match self.translate(&bc).map_err(|e| (e, log.clone()))? {
                Ok(spirv) => return Ok(FrontOutput { spirv, log }),
                Err(reason) => log.push_str(&format!("note: llvm-spirv rejected the -O0 module ({reason})\n")),
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
        Ok(Err(err.trim().to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn options() {
        let o = parse_options("-D N=4 -DFOO -I /tmp/x -cl-std=CL1.2 -cl-fast-relaxed-math -w -Werror").unwrap();
        assert_eq!(o.clang_args, ["-D", "N=4", "-DFOO", "-I", "/tmp/x", "-cl-fast-relaxed-math", "-w", "-Werror"]);
        assert_eq!(o.cl_std.as_deref(), Some("CL1.2"));
        assert!(o.fast_relaxed_math && o.werror);
        assert_eq!(parse_options("-cl-std=CL9.9"), Err(ToolError::BadOption("-cl-std=CL9.9".into())));
        assert!(matches!(parse_options("--bogus"), Err(ToolError::BadOption(_))));
        assert!(matches!(parse_options("-D"), Err(ToolError::BadOption(_))));
        assert_eq!(split_options(r#"-D "A=1 2" -DB"#), vec!["-D", "A=1 2", "-DB"]);
    }
}
