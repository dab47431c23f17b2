//! The entry points the driver calls: build from OpenCL C source or SPIR-V into a Ventus ELF,
//! with a build log, option validation, `-O2 → -O0` retry and the on-disk cache.

use super::toolchain::{parse_options, ToolError, Toolchain};
use super::{cache, compile_spirv, CompileError};
use std::path::PathBuf;

/// Why a build failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The options are invalid (`CL_INVALID_BUILD_OPTIONS`).
    Options(String),
    /// Compilation failed; the log explains (`CL_BUILD_PROGRAM_FAILURE`).
    Failed,
}

/// Result of a build attempt: the ELF (on success) and the build log either way.
#[derive(Debug, Clone)]
pub struct BuildOutput {
    pub result: Result<Vec<u8>, BuildError>,
    pub log: String,
    /// The SPIR-V the front end produced (source builds), for `clCompileProgram` objects.
    pub spirv: Option<Vec<u32>>,
}

fn failed(log: String) -> BuildOutput {
    BuildOutput { result: Err(BuildError::Failed), log, spirv: None }
}

/// Writes embedded headers (`clCompileProgram`'s `input_headers`) to a fresh directory.
fn header_dir(headers: &[(String, String)]) -> std::io::Result<Option<PathBuf>> {
    if headers.is_empty() {
        return Ok(None);
    }
    let d = std::env::temp_dir().join(format!(
        "ventus-icd-hdr-{}-{}",
        std::process::id(),
        cache::key(&[headers.iter().map(|(n, s)| format!("{n}\0{s}")).collect::<String>().as_bytes()])
    ));
    for (name, text) in headers {
        let p = d.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, text)?;
    }
    Ok(Some(d))
}

/// Appends the compiler's warnings to the build log.
fn warnings_to_log(c: &super::Compiled, log: &mut String) {
    for w in &c.warnings {
        log.push_str(w);
        log.push('\n');
    }
}

fn back_end(spirv: &[u32], log: &mut String) -> Result<Vec<u8>, BuildError> {
    match compile_spirv(spirv) {
        Ok(c) => {
            if std::env::var_os("VENTUS_DUMP_ASM").is_some() {
                eprintln!("{}", c.asm);
            }
            warnings_to_log(&c, log);
            Ok(c.elf)
        }
        Err(e) => {
            log.push_str(&e.to_string());
            log.push('\n');
            Err(BuildError::Failed)
        }
    }
}

/// Environment settings that change generated code (part of the cache key).
fn codegen_mode() -> &'static [u8] {
    if std::env::var_os("VENTUS_INLINE_SUBROUTINES").is_some() {
        b"inline-subroutines"
    } else {
        b""
    }
}

/// OpenCL C → Ventus ELF.
pub fn build_source(source: &str, options: &str, headers: &[(String, String)]) -> BuildOutput {
    let opts = match parse_options(options) {
        Ok(o) => o,
        Err(e) => {
            return BuildOutput { result: Err(BuildError::Options(e.to_string())), log: e.to_string(), spirv: None }
        }
    };
    let tc = match Toolchain::discover() {
        Ok(t) => t,
        Err(e) => return failed(format!("error: {e}\n")),
    };
    let hdr_key: String = headers.iter().map(|(n, s)| format!("{n}\0{s}\0")).collect();
    let key = cache::key(&[
        b"source",
        source.as_bytes(),
        options.as_bytes(),
        hdr_key.as_bytes(),
        tc.version.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
        crate::compiler::BACKEND_REVISION.as_bytes(),
        codegen_mode(),
    ]);
    if let (Some(elf), Some(log)) = (cache::get("elf", &key), cache::get("log", &key)) {
        return BuildOutput { result: Ok(elf), log: String::from_utf8_lossy(&log).into_owned(), spirv: None };
    }
    let dir = match header_dir(headers) {
        Ok(d) => d,
        Err(e) => return failed(format!("error: cannot write the embedded headers: {e}\n")),
    };
    let front = tc.compile(source, &opts, dir.as_deref());
    if let Some(d) = dir {
        let _ = std::fs::remove_dir_all(d);
    }
    let front = match front {
        Ok(f) => f,
        Err((e, mut log)) => {
            if !matches!(e, ToolError::CompileFailed) {
                log.push_str(&format!("error: {e}\n"));
            }
            return failed(log);
        }
    };
    let mut log = front.log.clone();
    let result = back_end(&front.spirv, &mut log);
    if let Ok(elf) = &result {
        cache::put("elf", &key, elf);
        cache::put("log", &key, log.as_bytes());
    }
    BuildOutput { result, log, spirv: Some(front.spirv) }
}

/// OpenCL C → SPIR-V only (`clCompileProgram`).
pub fn compile_source(source: &str, options: &str, headers: &[(String, String)]) -> BuildOutput {
    let opts = match parse_options(options) {
        Ok(o) => o,
        Err(e) => {
            return BuildOutput { result: Err(BuildError::Options(e.to_string())), log: e.to_string(), spirv: None }
        }
    };
    let tc = match Toolchain::discover() {
        Ok(t) => t,
        Err(e) => return failed(format!("error: {e}\n")),
    };
    let dir = match header_dir(headers) {
        Ok(d) => d,
        Err(e) => return failed(format!("error: cannot write the embedded headers: {e}\n")),
    };
    let front = tc.compile(source, &opts, dir.as_deref());
    if let Some(d) = dir {
        let _ = std::fs::remove_dir_all(d);
    }
    match front {
        Ok(f) => {
            // Check that the back end accepts the module, so errors surface at compile time.
            let mut log = f.log.clone();
            match super::spirv::lower_module(&f.spirv) {
                // Calls to functions of other objects are resolved by clLinkProgram.
                Ok(_) | Err(super::CompileError::Unresolved(_)) => {
                    BuildOutput { result: Ok(Vec::new()), log, spirv: Some(f.spirv) }
                }
                Err(e) => {
                    log.push_str(&format!("{e}\n"));
                    failed(log)
                }
            }
        }
        Err((e, mut log)) => {
            if !matches!(e, ToolError::CompileFailed) {
                log.push_str(&format!("error: {e}\n"));
            }
            failed(log)
        }
    }
}

/// SPIR-V → Ventus ELF (`clCreateProgramWithIL`, or linking a compiled object).
pub fn build_spirv(spirv: &[u32], options: &str) -> BuildOutput {
    if let Err(e) = parse_options(options) {
        return BuildOutput { result: Err(BuildError::Options(e.to_string())), log: e.to_string(), spirv: None };
    }
    let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    let key = cache::key(&[
        b"spirv",
        &bytes,
        env!("CARGO_PKG_VERSION").as_bytes(),
        crate::compiler::BACKEND_REVISION.as_bytes(),
        codegen_mode(),
    ]);
    if let Some(elf) = cache::get("elf", &key) {
        return BuildOutput { result: Ok(elf), log: String::new(), spirv: Some(spirv.to_vec()) };
    }
    let mut log = String::new();
    let result = back_end(spirv, &mut log);
    if let Ok(elf) = &result {
        cache::put("elf", &key, elf);
    }
    BuildOutput { result, log, spirv: Some(spirv.to_vec()) }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Options(m) => write!(f, "invalid options: {m}"),
            BuildError::Failed => write!(f, "build failed"),
        }
    }
}
impl std::error::Error for BuildError {}

/// Maps a back-end error for callers that want the enum.
pub fn describe(e: &CompileError) -> String {
    e.to_string()
}

/// Several compiled objects → one Ventus ELF (functions imported by one module are taken from
/// the module that exports them).
pub fn build_spirv_modules(modules: &[Vec<u32>]) -> BuildOutput {
    let mut log = String::new();
    let result = match super::compile_spirv_modules(modules) {
        Ok(c) => {
            warnings_to_log(&c, &mut log);
            Ok(c.elf)
        }
        Err(e) => {
            log.push_str(&format!("{e}\n"));
            Err(BuildError::Failed)
        }
    };
    BuildOutput { result, log, spirv: None }
}
