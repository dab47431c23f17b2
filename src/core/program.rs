//! Program objects (OpenCL 3.0 §5.8) and their builds.
//!
//! Contract:
//! * A program has an [`Origin`]: OpenCL C source, SPIR-V IL, a binary, or the result of
//!   `clLinkProgram`. This module owns building, compiling and linking ([`Program::build`],
//!   [`Program::compile`], [`Program::link`]); the API layer only checks pointers and the spec's
//!   error clauses.
//! * Options: [`BuildOptions::parse`] is the one parser of option strings (build, compile and
//!   link). It never panics, reports the offending token in an [`OptionsError`], and produces
//!   one typed value: the flags the driver acts on and the front end's [`FrontOptions`].
//! * Binaries (`CL_PROGRAM_BINARIES`, `clCreateProgramWithBinary`) are either a Ventus ELF
//!   executable (loaded by the device layer, [`Executable::load`]), or
//!   an [`ObjectBinary`]: the SPIR-V modules of a compiled object or a library, what linking
//!   needs. Anything else, or a malformed container, is `CL_INVALID_BINARY`.
//! * `CL_PROGRAM_BINARY_TYPE` is NONE until something is built, COMPILED_OBJECT after
//!   `clCompileProgram`, LIBRARY after `clLinkProgram -create-library`, EXECUTABLE after a
//!   build or link; a program created from a binary has the type of that binary.
//! * Build state is per program (the platform has one device): status, options, log, binary type,
//!   and whether a successful executable exists. Builds are synchronous; a build that overlaps
//!   another one on the same program, or a build while kernel objects exist, is refused with
//!   `CL_INVALID_OPERATION` ([`Program::build`] returns [`Refused`], [`Program::kernels_attached`]).
//! * Specialization constants set on an IL program ([`Program::set_spec_constant`]) are compiled
//!   into the module at the next build or compile ([`crate::compiler::build::specialize`]).
//! * Program-scope variables ([`crate::abi::globals`]): an executable whose ELF carries a
//!   globals image gets one block per program object and device ([`Program::globals_base`]),
//!   allocated and initialised at its first launch on that device, shared by all its kernels,
//!   persisting across launches, and freed when the program is released or rebuilt. Each
//!   device of the program — a sub-device too — has its own variables, as the spec's
//!   per-device program executables do.

use super::context::Context;
use super::device::Device;
use crate::cl::object::{handle_type, Ref};
use crate::cl::*;
use crate::compiler::build::{self as compiler, BuildOutput};
pub use crate::compiler::build::{spec_constants as spirv_spec_constants, spirv_words};
pub use crate::compiler::toolchain::FrontOptions;
pub use crate::device::executable::{Executable, KernelDef, LoadError};
use crate::device::MemoryError;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

handle_type!(Program, Program, cl_program, CL_INVALID_PROGRAM);

/// How a program object was created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `clCreateProgramWithSource`: the concatenated source.
    Source(String),
    /// `clCreateProgramWithIL`: the SPIR-V module.
    Il(Vec<u8>),
    /// `clCreateProgramWithBinary`.
    Binary,
    /// `clLinkProgram`.
    Linked,
}

/// Which entry point options are parsed for (they accept different sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionsFor {
    Build,
    Compile,
    Link,
}

/// A parsed option string: what the driver acts on, and what the front end is told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// `-cl-uniform-work-group-size`: the global size must be a multiple of the local size.
    pub uniform_work_groups: bool,
    /// `-create-library` (link only).
    pub create_library: bool,
    /// `-enable-link-options` (link only, with `-create-library`).
    pub enable_link_options: bool,
    /// `-cl-kernel-arg-info` (build and compile): `clGetKernelArgInfo` answers for the program's
    /// kernels ([`Program::arg_info`]).
    pub kernel_arg_info: bool,
    /// The front end's options (build and compile).
    pub front: FrontOptions,
}

/// `options` followed by `VENTUS_BUILD_OPTIONS` when set (e.g. `-cl-std=CL3.0` for a program
/// that expects a newer default than the spec's OpenCL C 1.x).
pub fn with_extra_options(mut options: String) -> String {
    if let Some(extra) = &crate::compiler::env::CompilerEnv::get().extra_options {
        if !options.is_empty() {
            options.push(' ');
        }
        options.push_str(extra);
    }
    options
}

impl BuildOptions {
    /// Whether source is compiled as OpenCL C 1.x (no `-cl-std`, or `CL1.0`–`CL1.2`): its
    /// NDRanges must consist of uniform work-groups (non-uniform ones need OpenCL C 2.0+).
    pub fn is_opencl_c_1x(&self) -> bool {
        self.front.cl_std.as_deref().is_none_or(|v| v.starts_with("CL1"))
    }
}

/// Why an option string is invalid (`CL_INVALID_{BUILD,COMPILER,LINKER}_OPTIONS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsError {
    /// An option this entry point does not know.
    Unknown(String),
    /// `-D`/`-U`/`-I` at the end of the string.
    MissingValue(String),
    /// `-cl-std=` with a version the device does not compile.
    BadStd(String),
    /// A quote that is never closed.
    UnclosedQuote,
    /// `-enable-link-options` without `-create-library`.
    EnableLinkOptionsWithoutLibrary,
}

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionsError::Unknown(o) => write!(f, "invalid option: {o}"),
            OptionsError::MissingValue(o) => write!(f, "option {o} needs a value"),
            OptionsError::BadStd(v) => write!(f, "unsupported OpenCL C version: -cl-std={v}"),
            OptionsError::UnclosedQuote => write!(f, "unclosed quote in the options"),
            OptionsError::EnableLinkOptionsWithoutLibrary => {
                write!(f, "-enable-link-options must be specified with -create-library")
            }
        }
    }
}

/// `-cl-*` flags valid for building and compiling (§5.8.6) that clang-15 implements: passed on.
const CLANG_FLAGS: &[&str] = &[
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-opt-disable",
    "-cl-uniform-work-group-size",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-w",
    "-Werror",
];
/// Flags valid for building and compiling that clang-15 rejects or warns about: accepted, not
/// passed on (`-cl-denorms-are-zero` and `-cl-kernel-arg-info` are acted on by the driver; the
/// compiler always records argument information, the option decides whether the API gives it).
const DRIVER_FLAGS: &[&str] = &["-cl-strict-aliasing", "-cl-no-subgroup-ifp", "-g"];
/// Program linking options (§5.8.7) besides `-create-library` and `-enable-link-options`.
const LINK_FLAGS: &[&str] = &[
    "-cl-denorms-are-zero",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-no-subgroup-ifp",
];
/// `-cl-std=` values (`CL_DEVICE_OPENCL_C_ALL_VERSIONS`).
const CL_STD: &[&str] = &["CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"];

/// Splits an option string at whitespace; double or single quotes group (and are removed).
fn tokens(s: &str) -> Result<Vec<String>, OptionsError> {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            None => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quote.is_some() {
        return Err(OptionsError::UnclosedQuote);
    }
    if any {
        out.push(cur);
    }
    Ok(out)
}

impl BuildOptions {
    /// Parses and validates `s` for `what`.
    pub fn parse(s: &str, what: OptionsFor) -> Result<BuildOptions, OptionsError> {
        let mut o = BuildOptions::default();
        o.front.features = super::device::OPENCL_C_FEATURES.iter().map(|f| f.to_string()).collect();
        o.front.extensions = super::device::EXTENSIONS.iter().map(|e| e.to_string()).collect();
        o.front.opencl_version = super::device::OPENCL_VERSION;
        let toks = tokens(s)?;
        let mut it = toks.into_iter();
        while let Some(t) = it.next() {
            if what == OptionsFor::Link {
                match t.as_str() {
                    "-create-library" => o.create_library = true,
                    "-enable-link-options" => o.enable_link_options = true,
                    "-cl-denorms-are-zero" => o.front.denorms_are_zero = true,
                    f if LINK_FLAGS.contains(&f) => {}
                    _ => return Err(OptionsError::Unknown(t)),
                }
                continue;
            }
            match t.as_str() {
                "-D" | "-U" | "-I" => {
                    let v = it.next().ok_or_else(|| OptionsError::MissingValue(t.clone()))?;
                    o.front.clang_args.extend([t, v]);
                }
                f if ["-D", "-U", "-I"].iter().any(|p| f.starts_with(p)) => o.front.clang_args.push(t),
                f if f.starts_with("-cl-std=") => {
                    let v = &f["-cl-std=".len()..];
                    if !CL_STD.contains(&v) {
                        return Err(OptionsError::BadStd(v.into()));
                    }
                    o.front.cl_std = Some(v.to_string());
                }
                f if CLANG_FLAGS.contains(&f) => {
                    match f {
                        "-cl-opt-disable" => o.front.opt_disable = true,
                        "-cl-uniform-work-group-size" => o.uniform_work_groups = true,
                        _ => {}
                    }
                    o.front.clang_args.push(t);
                }
                "-cl-denorms-are-zero" => o.front.denorms_are_zero = true,
                "-cl-kernel-arg-info" => o.kernel_arg_info = true,
                // Source lines are always compiled in (`-g` changes nothing); `-g0` leaves them out.
                "-g0" => o.front.no_line_info = true,
                f if DRIVER_FLAGS.contains(&f) => {}
                // Optimisation levels (not OpenCL options, but common): -O0 disables optimisation.
                "-O0" => o.front.opt_disable = true,
                "-O" | "-O1" | "-O2" | "-O3" | "-Os" => {}
                _ => return Err(OptionsError::Unknown(t)),
            }
        }
        // `-enable-link-options` "must be specified with the create-library option".
        if o.enable_link_options && !o.create_library {
            return Err(OptionsError::EnableLinkOptionsWithoutLibrary);
        }
        Ok(o)
    }
}

/// What a compiled object or library binary holds (`CL_PROGRAM_BINARIES` of such a program).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    CompiledObject,
    Library,
}

impl ObjectKind {
    fn binary_type(self) -> cl_program_binary_type {
        match self {
            ObjectKind::CompiledObject => CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
            ObjectKind::Library => CL_PROGRAM_BINARY_TYPE_LIBRARY,
        }
    }
}

/// A compiled object or a library: its SPIR-V modules (one per compiled source), linked by
/// `clLinkProgram`.
///
/// Binary form (little-endian): the magic `b"VNTSPVO\0"`, `u32` format version (1), `u32` kind
/// (1 compiled object, 2 library), `u32` flags (bit 0: compiled with
/// `-cl-uniform-work-group-size`), `u32` module count (≥ 1), then per module its length in
/// words and the words. Nothing may follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectBinary {
    pub kind: ObjectKind,
    pub uniform_work_groups: bool,
    pub modules: Vec<Vec<u32>>,
}

/// Why bytes are not an [`ObjectBinary`] (→ `CL_INVALID_BINARY`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectBinaryError {
    Truncated,
    Version(u32),
    Kind(u32),
    Flags(u32),
    NoModules,
    TrailingBytes,
    /// Module `index` is not a usable SPIR-V module.
    Module {
        index: usize,
        reason: crate::compiler::CompileError,
    },
}

impl std::fmt::Display for ObjectBinaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjectBinaryError::Truncated => write!(f, "object binary: truncated"),
            ObjectBinaryError::Version(v) => write!(f, "object binary: unknown format version {v}"),
            ObjectBinaryError::Kind(k) => write!(f, "object binary: unknown kind {k}"),
            ObjectBinaryError::Flags(x) => write!(f, "object binary: unknown flags {x:#x}"),
            ObjectBinaryError::NoModules => write!(f, "object binary: no modules"),
            ObjectBinaryError::TrailingBytes => write!(f, "object binary: bytes after the last module"),
            ObjectBinaryError::Module { index, reason } => write!(f, "object binary: module {index}: {reason}"),
        }
    }
}
impl std::error::Error for ObjectBinaryError {}

impl ObjectBinary {
    pub const MAGIC: &'static [u8; 8] = b"VNTSPVO\0";
    const VERSION: u32 = 1;

    /// Whether `bytes` claim to be an object binary (the magic number).
    pub fn is_object_binary(bytes: &[u8]) -> bool {
        bytes.starts_with(Self::MAGIC)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Self::MAGIC.to_vec();
        let kind = match self.kind {
            ObjectKind::CompiledObject => 1u32,
            ObjectKind::Library => 2,
        };
        let words = [Self::VERSION, kind, self.uniform_work_groups as u32, self.modules.len() as u32];
        out.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        for m in &self.modules {
            out.extend((m.len() as u32).to_le_bytes());
            out.extend(m.iter().flat_map(|w| w.to_le_bytes()));
        }
        out
    }

    /// Parses and validates an object binary: the framing, and each module as a compiled object
    /// the back end accepts (unresolved functions allowed).
    pub fn decode(bytes: &[u8]) -> Result<ObjectBinary, ObjectBinaryError> {
        let body = bytes.strip_prefix(Self::MAGIC.as_slice()).ok_or(ObjectBinaryError::Truncated)?;
        if body.len() % 4 != 0 {
            return Err(ObjectBinaryError::Truncated);
        }
        let words: Vec<u32> = body.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let [version, kind, flags, count, rest @ ..] = words.as_slice() else {
            return Err(ObjectBinaryError::Truncated);
        };
        if *version != Self::VERSION {
            return Err(ObjectBinaryError::Version(*version));
        }
        let kind = match kind {
            1 => ObjectKind::CompiledObject,
            2 => ObjectKind::Library,
            k => return Err(ObjectBinaryError::Kind(*k)),
        };
        if flags & !1 != 0 {
            return Err(ObjectBinaryError::Flags(*flags));
        }
        if *count == 0 {
            return Err(ObjectBinaryError::NoModules);
        }
        let (mut rest, mut modules) = (rest, Vec::new());
        for index in 0..*count as usize {
            let (&len, tail) = rest.split_first().ok_or(ObjectBinaryError::Truncated)?;
            let module = tail.get(..len as usize).ok_or(ObjectBinaryError::Truncated)?;
            compiler::check_object(module).map_err(|reason| ObjectBinaryError::Module { index, reason })?;
            modules.push(module.to_vec());
            rest = &tail[len as usize..];
        }
        if !rest.is_empty() {
            return Err(ObjectBinaryError::TrailingBytes);
        }
        Ok(ObjectBinary { kind, uniform_work_groups: flags & 1 != 0, modules })
    }
}

/// What `clCreateProgramWithBinary` was given.
pub enum LoadedBinary {
    Executable(Box<Executable>),
    Object(ObjectBinary),
}

/// Why a binary was refused (`CL_INVALID_BINARY`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BinaryError {
    Executable(LoadError),
    Object(ObjectBinaryError),
}

impl std::fmt::Display for BinaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BinaryError::Executable(e) => e.fmt(f),
            BinaryError::Object(e) => e.fmt(f),
        }
    }
}

impl LoadedBinary {
    /// A Ventus ELF executable, or an [`ObjectBinary`].
    pub fn load(bytes: &[u8]) -> Result<LoadedBinary, BinaryError> {
        if ObjectBinary::is_object_binary(bytes) {
            ObjectBinary::decode(bytes).map(LoadedBinary::Object).map_err(BinaryError::Object)
        } else {
            Executable::load(bytes).map(|e| LoadedBinary::Executable(Box::new(e))).map_err(BinaryError::Executable)
        }
    }
}

/// `clBuildProgram`/`clCompileProgram` did not start: another build of the program is running
/// (`CL_INVALID_OPERATION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

/// What a program holds for its device.
#[derive(Clone, Default)]
enum Artifact {
    /// Nothing built or loaded (`CL_PROGRAM_BINARY_TYPE_NONE`).
    #[default]
    None,
    /// A compiled object or library.
    Object(Arc<ObjectBinary>),
    /// An executable (loaded from a binary, or built or linked).
    Executable(Arc<Executable>),
}

/// Build state (one device per program).
struct State {
    status: cl_build_status,
    options: String,
    log: String,
    artifact: Artifact,
    /// A successful executable exists (kernels may be created).
    built: bool,
    uniform_work_groups: bool,
    /// Kernel argument information may be returned ([`Program::arg_info`]).
    arg_info: bool,
}

pub struct Program {
    pub context: Ref<Context>,
    /// The devices the program is associated with.
    pub devices: Vec<Ref<Device>>,
    pub origin: Origin,
    state: Mutex<State>,
    /// Live kernel objects created from this program.
    kernels: AtomicUsize,
    /// Specialization constants set by `clSetProgramSpecializationConstant` (IL programs).
    spec_constants: Mutex<BTreeMap<u32, Vec<u8>>>,
    /// The globals blocks of the current executable: one per device a kernel of it was
    /// launched on.
    globals: Mutex<Vec<GlobalsBlock>>,
}

/// A program's device block for its program-scope variables ([`crate::abi::globals`]).
struct GlobalsBlock {
    /// The executable it was initialised for (a rebuild installs another one).
    exec: Arc<Executable>,
    device: Ref<Device>,
    base: u32,
}

/// A snapshot of the build state for queries.
#[derive(Debug, Clone)]
pub struct BuildInfo {
    pub status: cl_build_status,
    pub options: String,
    pub log: String,
    pub binary_type: cl_program_binary_type,
}

/// The largest source or IL module the driver builds (a larger one fails with a log line, before
/// any tool reads it).
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// `Err` with a build-log line if `what` of `len` bytes is over [`MAX_INPUT_BYTES`].
fn within_limit(what: &str, len: usize) -> Result<(), String> {
    if len <= MAX_INPUT_BYTES {
        return Ok(());
    }
    Err(format!("error: the {what} has {len} bytes, more than the {} MiB the driver builds\n", MAX_INPUT_BYTES >> 20))
}

/// The most bytes of a build log a program keeps (`CL_PROGRAM_BUILD_LOG`).
pub const MAX_LOG_BYTES: usize = 1 << 20;

/// `log`, cut to [`MAX_LOG_BYTES`] at a line boundary with a note saying how much was left out
/// (a program with a million diagnostics must not hand the application a huge string).
fn bounded_log(mut log: String) -> String {
    if log.len() <= MAX_LOG_BYTES {
        return log;
    }
    let total = log.len();
    let mut cut = MAX_LOG_BYTES;
    while !log.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(nl) = log[..cut].rfind('\n') {
        cut = nl + 1;
    }
    log.truncate(cut);
    log.push_str(&format!("note: the build log was truncated: {} of its {total} bytes are left out\n", total - cut));
    log
}

/// SPIR-V modules as the build options want them: with `-cl-denorms-are-zero`, every kernel
/// asks for single-precision denormals to be flushed ([`compiler::flush_denormals`]; source
/// builds get the same from the front end).
fn with_options(modules: Vec<Vec<u32>>, parsed: &BuildOptions) -> Result<Vec<Vec<u32>>, String> {
    if !parsed.front.denorms_are_zero {
        return Ok(modules);
    }
    modules.iter().map(|w| compiler::flush_denormals(w).map_err(|e| format!("error: invalid SPIR-V: {e}\n"))).collect()
}

/// Loads an ELF produced by our compiler (a failure is a compiler bug, reported in the log).
fn load_built(out: BuildOutput) -> Result<(Arc<Executable>, String), String> {
    match out.result {
        Ok(elf) => match Executable::load(&elf) {
            Ok(e) => Ok((Arc::new(e), out.log)),
            Err(e) => Err(format!("{}internal error: the generated ELF does not load: {e}\n", out.log)),
        },
        Err(_) => Err(out.log),
    }
}

impl Program {
    fn with(context: Ref<Context>, devices: Vec<Ref<Device>>, origin: Origin, artifact: Artifact) -> Program {
        let uniform_work_groups = matches!(&artifact, Artifact::Object(o) if o.uniform_work_groups);
        Program {
            context,
            devices,
            origin,
            state: Mutex::new(State {
                status: CL_BUILD_NONE,
                options: String::new(),
                log: String::new(),
                artifact,
                built: false,
                uniform_work_groups,
                arg_info: false,
            }),
            kernels: AtomicUsize::new(0),
            spec_constants: Mutex::new(BTreeMap::new()),
            globals: Mutex::new(Vec::new()),
        }
    }

    /// A program from OpenCL C source.
    pub fn from_source(context: Ref<Context>, devices: Vec<Ref<Device>>, source: String) -> Program {
        Program::with(context, devices, Origin::Source(source), Artifact::None)
    }

    /// A program from SPIR-V.
    pub fn from_il(context: Ref<Context>, devices: Vec<Ref<Device>>, il: Vec<u8>) -> Program {
        Program::with(context, devices, Origin::Il(il), Artifact::None)
    }

    /// A program from a loaded executable (not yet built).
    #[cfg(test)]
    pub fn from_binary(context: Ref<Context>, devices: Vec<Ref<Device>>, exec: Arc<Executable>) -> Program {
        Program::with(context, devices, Origin::Binary, Artifact::Executable(exec))
    }

    /// A program from a loaded binary of any kind.
    pub fn from_loaded(context: Ref<Context>, devices: Vec<Ref<Device>>, binary: LoadedBinary) -> Program {
        let artifact = match binary {
            LoadedBinary::Executable(e) => Artifact::Executable(Arc::new(*e)),
            LoadedBinary::Object(o) => Artifact::Object(Arc::new(o)),
        };
        Program::with(context, devices, Origin::Binary, artifact)
    }

    /// Records options that `clBuildProgram`/`clCompileProgram` refused: the build log names the
    /// option and why (`CL_PROGRAM_BUILD_OPTIONS` holds the string), so tools that print the
    /// log on failure show the reason. The build status and any executable stay as they were;
    /// nothing is recorded while a build is running.
    pub fn note_refused_options(&self, options: &str, err: &OptionsError) {
        let mut s = self.state.lock();
        if s.status != CL_BUILD_IN_PROGRESS {
            s.options = options.to_string();
            s.log = format!("error: build options refused: {err}\n");
        }
    }

    /// Marks a build/compile as started; [`Refused`] if another one is still running.
    fn begin_build(&self, options: &str) -> Result<(), Refused> {
        let mut s = self.state.lock();
        if s.status == CL_BUILD_IN_PROGRESS {
            return Err(Refused);
        }
        s.status = CL_BUILD_IN_PROGRESS;
        s.options = options.to_string();
        s.log.clear();
        Ok(())
    }

    /// Ends a build or compile: `artifact` on success (`None`: keep the current one), the log
    /// either way.
    fn finish(
        &self,
        result: Result<Option<Artifact>, String>,
        log_on_success: String,
        uniform: bool,
        arg_info: bool,
    ) -> bool {
        let ok = result.is_ok();
        {
            let mut s = self.state.lock();
            s.status = if ok { CL_BUILD_SUCCESS } else { CL_BUILD_ERROR };
            s.uniform_work_groups = uniform;
            s.arg_info = arg_info;
            match result {
                Ok(artifact) => {
                    s.log = bounded_log(log_on_success);
                    if let Some(a) = artifact {
                        s.artifact = a;
                    }
                }
                Err(log) => {
                    s.log = bounded_log(log);
                    // A failed build of source or IL leaves no binary; a loaded one stays.
                    if self.origin != Origin::Binary {
                        s.artifact = Artifact::None;
                    }
                }
            }
            s.built = ok && matches!(s.artifact, Artifact::Executable(_));
        }
        // A new executable (or none) replaces the old one's globals block (builds are refused
        // while kernel objects, and so launches, exist).
        self.free_globals();
        ok
    }

    /// The SPIR-V of an IL program with its specialization constants applied.
    fn specialized_il(&self) -> Result<Vec<u32>, String> {
        let Origin::Il(il) = &self.origin else { return Err("error: not an IL program\n".into()) };
        within_limit("IL module", il.len())?;
        let words = spirv_words(il).ok_or("error: not a SPIR-V module\n")?;
        compiler::specialize(&words, &self.spec_constants()).map_err(|e| format!("error: invalid SPIR-V: {e}\n"))
    }

    /// `clBuildProgram` (after the API's checks): builds the executable. `Ok(true)` on success,
    /// `Ok(false)` on a build failure (see the log), `Err` if another build is running.
    pub fn build(&self, options: &str, parsed: &BuildOptions) -> Result<bool, Refused> {
        self.begin_build(options)?;
        let current = self.state.lock().artifact.clone();
        let uniform = parsed.uniform_work_groups
            || matches!(&current, Artifact::Object(o) if o.uniform_work_groups)
            || (matches!(self.origin, Origin::Source(_)) && parsed.is_opencl_c_1x());
        let result = match (&self.origin, current) {
            // A loaded executable needs no work; an empty log (tools such as pyopencl warn about
            // any non-empty log of a successful build).
            (Origin::Binary, Artifact::Executable(_)) => Ok((None, String::new())),
            // A compiled object or library loaded from a binary: link it into an executable.
            (Origin::Binary, Artifact::Object(o)) => with_options(o.modules.clone(), parsed)
                .and_then(|modules| load_built(compiler::build_spirv_modules(&modules)))
                .map(|(e, log)| (Some(Artifact::Executable(e)), log)),
            (Origin::Source(src), _) => within_limit("source", src.len())
                .and_then(|()| load_built(compiler::build_source(src, &parsed.front, &[])))
                .map(|(e, log)| (Some(Artifact::Executable(e)), log)),
            (Origin::Il(_), _) => self
                .specialized_il()
                .and_then(|words| with_options(vec![words], parsed))
                .and_then(|modules| load_built(compiler::build_spirv_modules(&modules)))
                .map(|(e, log)| (Some(Artifact::Executable(e)), log)),
            (Origin::Binary, Artifact::None) | (Origin::Linked, _) => Err("error: nothing to build\n".into()),
        };
        let (result, log) = match result {
            Ok((a, log)) => (Ok(a), log),
            Err(log) => (Err(log), String::new()),
        };
        Ok(self.finish(result, log, uniform, self.arg_info_from(parsed)))
    }

    /// `clCompileProgram` (after the API's checks): source or IL → compiled object. `headers`
    /// are the embedded headers (include name, text).
    pub fn compile(&self, options: &str, parsed: &BuildOptions, headers: &[(String, String)]) -> Result<bool, Refused> {
        self.begin_build(options)?;
        let uniform =
            parsed.uniform_work_groups || (matches!(self.origin, Origin::Source(_)) && parsed.is_opencl_c_1x());
        let spirv = match &self.origin {
            Origin::Source(src) => within_limit("source", src.len()).and_then(|()| {
                let out = compiler::compile_source(src, &parsed.front, headers);
                out.spirv.map(|s| (s, out.log.clone())).ok_or(out.log)
            }),
            Origin::Il(_) => self.specialized_il().and_then(|w| with_options(vec![w], parsed)).and_then(|mut w| {
                let w = w.remove(0);
                compiler::check_object(&w).map(|()| (w, String::new())).map_err(|e| format!("{e}\n"))
            }),
            _ => Err("error: the program has no source or IL\n".into()),
        };
        let (result, log) = match spirv {
            Ok((words, log)) => {
                let o = ObjectBinary {
                    kind: ObjectKind::CompiledObject,
                    uniform_work_groups: uniform,
                    modules: vec![words],
                };
                (Ok(Some(Artifact::Object(Arc::new(o)))), log)
            }
            Err(log) => (Err(log), String::new()),
        };
        Ok(self.finish(result, log, uniform, self.arg_info_from(parsed)))
    }

    /// Whether `clLinkProgram` can take this program as an input: it holds a compiled object or
    /// a library (an executable is neither: OpenCL links compiled binaries and libraries only).
    pub fn linkable(&self) -> bool {
        matches!(self.state.lock().artifact, Artifact::Object(_))
    }

    /// `clLinkProgram` (after the API's checks; every input is [`Program::linkable`]): the new
    /// program, a library with `-create-library`, else an executable; `(program, success)`.
    pub fn link(
        context: Ref<Context>,
        devices: Vec<Ref<Device>>,
        inputs: &[Ref<Program>],
        options: String,
        parsed: &BuildOptions,
    ) -> (Program, bool) {
        let artifacts: Vec<Artifact> = inputs.iter().map(|p| p.state.lock().artifact.clone()).collect();
        let mut modules: Vec<Vec<u32>> = Vec::new();
        let mut uniform = parsed.uniform_work_groups;
        for a in artifacts {
            if let Artifact::Object(o) = a {
                uniform |= o.uniform_work_groups;
                // The same object reached twice (e.g. through two libraries) is linked once.
                for m in &o.modules {
                    if !modules.contains(m) {
                        modules.push(m.clone());
                    }
                }
            }
        }
        let result: Result<(Artifact, String), String> = if parsed.create_library {
            let o = ObjectBinary { kind: ObjectKind::Library, uniform_work_groups: uniform, modules };
            Ok((Artifact::Object(Arc::new(o)), String::new()))
        } else {
            with_options(modules, parsed)
                .and_then(|modules| load_built(compiler::build_spirv_modules(&modules)))
                .map(|(e, log)| (Artifact::Executable(e), log))
        };
        let p = Program::with(context, devices, Origin::Linked, Artifact::None);
        let ok = result.is_ok();
        {
            let mut s = p.state.lock();
            s.options = options;
            s.uniform_work_groups = uniform;
            s.arg_info = inputs.iter().all(|p| p.arg_info());
            match result {
                Ok((artifact, log)) => {
                    s.status = CL_BUILD_SUCCESS;
                    s.built = matches!(artifact, Artifact::Executable(_));
                    s.artifact = artifact;
                    s.log = bounded_log(log);
                }
                Err(log) => {
                    s.status = CL_BUILD_ERROR;
                    s.log = bounded_log(log);
                }
            }
        }
        (p, ok)
    }

    /// Whether `clGetKernelArgInfo` answers for this program's kernels. OpenCL 3.0 §5.10.4:
    /// "Kernel argument information is only available if the program object associated with
    /// kernel is created with clCreateProgramWithSource and the program executable was built
    /// with the -cl-kernel-arg-info option specified in options argument to clBuildProgram or
    /// clCompileProgram" (a linked program: when every input was compiled so).
    pub fn arg_info(&self) -> bool {
        self.state.lock().arg_info
    }

    /// [`Program::arg_info`] for a build or compile of this program with `parsed`.
    fn arg_info_from(&self, parsed: &BuildOptions) -> bool {
        matches!(self.origin, Origin::Source(_)) && parsed.kernel_arg_info
    }

    /// The address of the globals block of `exec` (this program's executable) on `device`,
    /// or `None` if it has no program-scope variables. The block is allocated and initialised
    /// from the image on the first call for the device and then lives, shared by every kernel
    /// of the program, until the program is released or rebuilt.
    pub fn globals_base(&self, exec: &Arc<Executable>, device: &Ref<Device>) -> Result<Option<u32>, MemoryError> {
        if exec.globals.is_none() {
            return Ok(None);
        }
        let mut g = self.globals.lock();
        if g.iter().any(|b| !Arc::ptr_eq(&b.exec, exec)) {
            // Blocks of an earlier executable (the program was rebuilt).
            for old in g.drain(..) {
                old.device.memory.free(old.base);
            }
        }
        if let Some(b) = g.iter().find(|b| Arc::ptr_eq(&b.device, device)) {
            return Ok(Some(b.base));
        }
        let Some(base) = exec.stage_globals(&device.memory)? else { return Ok(None) };
        g.push(GlobalsBlock { exec: exec.clone(), device: device.clone(), base });
        Ok(Some(base))
    }

    /// `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`: bytes of program-scope variables of the
    /// built executable (0 without one).
    pub fn global_variable_total_size(&self) -> usize {
        self.executable().and_then(|e| e.globals.as_ref().map(|g| g.size as usize)).unwrap_or(0)
    }

    /// Installs `exec` as the built executable (tests of the globals block).
    #[cfg(test)]
    fn install_executable(&self, exec: Arc<Executable>) {
        let mut s = self.state.lock();
        s.artifact = Artifact::Executable(exec);
        s.built = true;
        drop(s);
        self.free_globals();
    }

    fn free_globals(&self) {
        for old in self.globals.lock().drain(..) {
            old.device.memory.free(old.base);
        }
    }

    /// `CL_PROGRAM_BINARIES` for the device: the ELF of an executable (built or loaded), the
    /// [`ObjectBinary`] of a compiled object or library, or nothing.
    pub fn binary_bytes(&self) -> Vec<u8> {
        match &self.state.lock().artifact {
            Artifact::None => Vec::new(),
            Artifact::Object(o) => o.encode(),
            Artifact::Executable(e) => e.binary.clone(),
        }
    }

    /// The executable, if a build succeeded.
    pub fn executable(&self) -> Option<Arc<Executable>> {
        let s = self.state.lock();
        match &s.artifact {
            Artifact::Executable(e) if s.built => Some(e.clone()),
            _ => None,
        }
    }

    /// Whether kernels must be launched with uniform work-groups (`-cl-uniform-work-group-size`).
    pub fn uniform_work_groups(&self) -> bool {
        self.state.lock().uniform_work_groups
    }

    pub fn build_info(&self) -> BuildInfo {
        let s = self.state.lock();
        let binary_type = match &s.artifact {
            Artifact::None => CL_PROGRAM_BINARY_TYPE_NONE,
            Artifact::Object(o) => o.kind.binary_type(),
            Artifact::Executable(_) => CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
        };
        BuildInfo { status: s.status, options: s.options.clone(), log: s.log.clone(), binary_type }
    }

    /// Number of live kernel objects (builds are refused while there are any).
    pub fn kernels_attached(&self) -> usize {
        self.kernels.load(Ordering::Acquire)
    }
    /// Called when a kernel object is created from this program.
    pub fn attach_kernel(&self) {
        self.kernels.fetch_add(1, Ordering::AcqRel);
    }
    /// Called when a kernel object of this program is destroyed.
    pub fn detach_kernel(&self) {
        self.kernels.fetch_sub(1, Ordering::AcqRel);
    }

    /// The specialization constants of an IL program: `SpecId` → size in bytes (`None` for
    /// other programs, or IL that is not a well-formed module).
    pub fn spec_constant_sizes(&self) -> Option<BTreeMap<u32, u32>> {
        let Origin::Il(il) = &self.origin else { return None };
        spirv_spec_constants(&spirv_words(il)?).ok()
    }

    /// Records a specialization constant value (compiled in by the next build or compile).
    pub fn set_spec_constant(&self, id: u32, value: Vec<u8>) {
        self.spec_constants.lock().insert(id, value);
    }
    /// The specialization constant values set so far.
    pub fn spec_constants(&self) -> BTreeMap<u32, Vec<u8>> {
        self.spec_constants.lock().clone()
    }
}

impl Drop for Program {
    /// The program's storage for its program-scope variables ends with it.
    fn drop(&mut self) {
        self.free_globals();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_per_entry_point() {
        let b =
            BuildOptions::parse("-D X -DY=2 -I \"/a b\" -cl-std=CL3.0  -cl-uniform-work-group-size", OptionsFor::Build);
        let b = b.unwrap();
        assert!(b.uniform_work_groups && !b.create_library);
        assert_eq!(b.front.clang_args, ["-D", "X", "-DY=2", "-I", "/a b", "-cl-uniform-work-group-size"]);
        assert_eq!(b.front.cl_std.as_deref(), Some("CL3.0"));
        assert_eq!(b.front.features, crate::core::device::OPENCL_C_FEATURES);
        // Single quotes group as double quotes do; -U takes a value; -O0 disables optimisation.
        let b = BuildOptions::parse("-U 'A B' -UC -O0 -cl-no-subgroup-ifp -cl-denorms-are-zero", OptionsFor::Compile);
        let b = b.unwrap();
        assert_eq!(b.front.clang_args, ["-U", "A B", "-UC"], "flags clang rejects are not passed on");
        assert!(b.front.opt_disable && b.front.denorms_are_zero);
        assert_eq!(BuildOptions::parse("-cl-std=CLC++", OptionsFor::Build), Err(OptionsError::BadStd("CLC++".into())));
        assert_eq!(BuildOptions::parse("'-DX", OptionsFor::Build), Err(OptionsError::UnclosedQuote));
        assert_eq!(BuildOptions::parse("-cl-std=CL9", OptionsFor::Build), Err(OptionsError::BadStd("CL9".into())));
        assert_eq!(BuildOptions::parse("-D", OptionsFor::Compile), Err(OptionsError::MissingValue("-D".into())));
        assert_eq!(BuildOptions::parse("-bogus", OptionsFor::Build), Err(OptionsError::Unknown("-bogus".into())));
        assert_eq!(BuildOptions::parse("\"", OptionsFor::Build), Err(OptionsError::UnclosedQuote));
        assert!(BuildOptions::parse("-create-library", OptionsFor::Build).is_err());
        assert!(BuildOptions::parse("-create-library -enable-link-options", OptionsFor::Link).unwrap().create_library);
        assert_eq!(
            BuildOptions::parse("-enable-link-options", OptionsFor::Link),
            Err(OptionsError::EnableLinkOptionsWithoutLibrary)
        );
        assert!(BuildOptions::parse("-D X", OptionsFor::Link).is_err());
    }

    #[test]
    fn long_build_logs_are_cut_at_a_line_with_a_note() {
        let line = "warning: é unused variable\n";
        let log: String = line.repeat(MAX_LOG_BYTES / line.len() + 100);
        let cut = bounded_log(log.clone());
        assert!(cut.len() <= MAX_LOG_BYTES + 100, "{}", cut.len());
        let (kept, note) = cut.rsplit_once("note: ").unwrap();
        assert!(kept.ends_with('\n') && log.starts_with(kept));
        let want = format!("{} of its {} bytes are left out", log.len() - kept.len(), log.len());
        assert!(note.contains(&want), "{note}");
        assert_eq!(bounded_log("short\n".into()), "short\n");
    }

    /// The globals block: allocated and initialised once per executable, relocated, reused by
    /// later launches, replaced by a rebuild and freed with the program.
    #[test]
    fn globals_block_lifetime() {
        use crate::abi::globals::{GlobalsImage, SECTION};
        use crate::cl::object::Obj;
        let image = GlobalsImage { size: 12, init: vec![7, 0, 0, 0, 4], relocs: vec![4] };
        let exec_with = |g: &GlobalsImage| {
            let mut elf = crate::abi::crt0::link_image_with_rodata(".globl k\nk:\n    ret\n", &[], &[]).unwrap();
            elf.notes.push((SECTION.to_string(), g.encode()));
            Arc::new(Executable::load(&crate::abi::elf_writer::write_elf(&elf).unwrap()).unwrap())
        };
        let exec = exec_with(&image);
        assert_eq!(exec.globals, Some(image.clone()));
        // A device of its own, so other tests' allocations cannot interfere.
        let dev = Obj::new(Device::new());
        let ctx = Obj::new(Context::new(vec![dev.clone()], Vec::new(), None));
        let p = Program::from_binary(ctx, vec![dev.clone()], exec.clone());
        let base = p.globals_base(&exec, &dev).unwrap().unwrap();
        let mut got = [0u8; 12];
        dev.memory.read(base, &mut got).unwrap();
        let want: Vec<u8> = [7u32, base + 4, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(got.to_vec(), want);
        dev.memory.write_u32(base, 99).unwrap();
        assert_eq!(p.globals_base(&exec, &dev).unwrap(), Some(base), "one block per program");
        assert_eq!(dev.memory.read_u32(base).unwrap(), 99, "not re-initialised");
        // A sub-device (same memory) has variables of its own, initialised from the image.
        let sub = Obj::new(Device::sub_device(&dev, 0, 1, vec![0]));
        let sub_base = p.globals_base(&exec, &sub).unwrap().unwrap();
        assert_ne!(sub_base, base);
        assert_eq!(dev.memory.read_u32(sub_base).unwrap(), 7);
        assert_eq!(p.globals_base(&exec, &dev).unwrap(), Some(base), "both blocks live");
        let exec2 = exec_with(&image);
        p.install_executable(exec2.clone());
        assert!(dev.memory.read_u32(base).is_err(), "a rebuild frees the old block");
        assert!(dev.memory.read_u32(sub_base).is_err(), "a rebuild frees every device's block");
        let base2 = p.globals_base(&exec2, &dev).unwrap().unwrap();
        assert_eq!(dev.memory.read_u32(base2).unwrap(), 7);
        drop(p);
        assert!(dev.memory.read_u32(base2).is_err(), "released with the program");
        let plain =
            Arc::new(Executable::load(&crate::abi::crt0::link(".globl k\nk:\n    ret\n", &[]).unwrap()).unwrap());
        let q = Program::from_binary(
            Obj::new(Context::new(vec![dev.clone()], Vec::new(), None)),
            vec![dev.clone()],
            plain.clone(),
        );
        assert_eq!(q.globals_base(&plain, &dev).unwrap(), None);
        assert_eq!(dev.memory.heap_bytes(), 0);
    }
}
