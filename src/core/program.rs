//! Program objects (OpenCL 3.0 §5.8).
//!
//! Contract:
//! * A program has an [`Origin`]: OpenCL C source, SPIR-V IL, a Ventus ELF binary, or the result of
//!   `clLinkProgram`. Only binaries can become executables today: building source or IL fails with
//!   a build log saying the compiler is not available yet (a later issue adds it).
//! * A binary is a Ventus ELF ([`Executable::load`]): `ELFCLASS32`, `EM_RISCV`, `ET_EXEC`, entry
//!   and every `PT_LOAD` segment in the program window at `0x8000_0000`. Kernels are the symbols
//!   [`VentusElf::kernel_names`] finds; argument metadata comes from the optional
//!   [`kernel_info::SECTION`] (official ELFs have none: arguments are then accepted by size).
//! * Build state is per program (the platform has one device): status, options, log, binary type,
//!   and whether a successful executable exists. Builds are synchronous; a build that overlaps
//!   another one on the same program, or a build while kernel objects exist, is refused by the API
//!   layer with `CL_INVALID_OPERATION` ([`Program::begin_build`], [`Program::kernels_attached`]).
//! * [`BuildOptions::parse`] validates option strings for build, compile and link; it never
//!   panics and reports the offending token in an [`OptionsError`].
//! * Program-scope variables ([`crate::abi::globals`]): an executable whose ELF carries a
//!   globals image gets one device block per program object ([`Program::globals_base`]),
//!   allocated and initialised at its first launch, shared by all its kernels, persisting across
//!   launches, and freed when the program is released or rebuilt.
//! * [`spirv_spec_constants`] scans a SPIR-V module for its specialization constants (id → size).

use super::context::Context;
use super::device::Device;
use crate::abi::elf::{ElfError, ResourceUsage, VentusElf};
use crate::abi::globals::{GlobalsError, GlobalsImage};
use crate::abi::kernel_info::{self, KernelInfo, KernelInfoError};
use crate::cl::object::{handle_type, Ref};
use crate::cl::*;
use crate::emulator::config::Config;
use crate::emulator::hostcall::HostCall;
use crate::emulator::memory::MapError;
use crate::emulator::program::ProgramError;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

handle_type!(Program, Program, cl_program, CL_INVALID_PROGRAM);

/// Builds run by the compiler (re-exported so the API layer reaches the compiler through `core`).
pub use crate::compiler::build::{
    build_source, build_spirv, build_spirv_modules, compile_source, BuildError, BuildOutput,
};

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

/// One kernel of an executable.
#[derive(Debug, Clone)]
pub struct KernelDef {
    pub name: String,
    /// `KNL_ENTRY`: the address of the kernel symbol.
    pub entry: u32,
    /// Argument metadata from [`kernel_info::SECTION`], when the ELF carries it.
    pub info: Option<KernelInfo>,
    /// The `.ventus.resource.<kernel>` record, when present.
    pub resources: Option<ResourceUsage>,
}

/// A loaded Ventus ELF: the bytes, the parsed file, the predecoded code and its kernels.
pub struct Executable {
    pub binary: Vec<u8>,
    pub elf: VentusElf,
    pub code: crate::emulator::Program,
    pub kernels: Vec<KernelDef>,
    /// printf call sites (`.ventus.printf`); `None` for binaries without printf support.
    pub printf: Option<Arc<crate::abi::printf::PrintfTable>>,
    /// Initial contents of the program-scope variables (`.ventus.globals`); `None` when the
    /// program has none (then its kernels take no hidden globals argument).
    pub globals: Option<GlobalsImage>,
}

/// Why bytes are not a usable Ventus executable (→ `CL_INVALID_BINARY`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    Elf(ElfError),
    /// `e_entry` is not the program window base.
    Entry(u32),
    Program(ProgramError),
    KernelInfo(KernelInfoError),
    Printf(crate::abi::printf::PrintfError),
    Globals(GlobalsError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Elf(e) => e.fmt(f),
            LoadError::Entry(a) => write!(f, "entry point {a:#010x} is not {:#010x}", crate::abi::PROGRAM_BASE),
            LoadError::Program(e) => e.fmt(f),
            LoadError::KernelInfo(e) => e.fmt(f),
            LoadError::Printf(e) => write!(f, "printf table: {e}"),
            LoadError::Globals(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for LoadError {}

impl Executable {
    /// Parses and validates a Ventus ELF executable (see the module documentation).
    pub fn load(bytes: &[u8]) -> Result<Executable, LoadError> {
        let elf = VentusElf::parse(bytes).map_err(LoadError::Elf)?;
        if elf.entry != crate::abi::PROGRAM_BASE {
            return Err(LoadError::Entry(elf.entry));
        }
        let mut code = crate::emulator::Program::from_elf(&elf).map_err(LoadError::Program)?;
        if let Some(pc) = crate::abi::printf::legacy::detect(&elf).filter(|_| Config::get().legacy_printf) {
            // The 2023 libclc printf cannot run on the device; the emulator runs it natively.
            code.install_host_call(pc, HostCall::LegacyPrintf);
        }
        let infos = match elf.sections.iter().find(|(n, _, _)| n == kernel_info::SECTION) {
            Some((_, _, data)) => kernel_info::decode(data).map_err(LoadError::KernelInfo)?,
            None => Vec::new(),
        };
        let kernels = elf
            .kernel_names()
            .into_iter()
            .filter_map(|name| {
                let entry = elf.kernel_entry(&name)?;
                let info = infos.iter().find(|k| k.name == name).cloned();
                let resources = elf.resource_usage(&name).copied();
                Some(KernelDef { name, entry, info, resources })
            })
            .collect();
        let printf = match elf.sections.iter().find(|(n, _, _)| n == crate::abi::printf::PRINTF_SECTION) {
            Some((_, _, data)) => {
                Some(Arc::new(crate::abi::printf::PrintfTable::decode(data).map_err(LoadError::Printf)?))
            }
            None => None,
        };
        let globals = GlobalsImage::from_elf(&elf).map_err(LoadError::Globals)?.filter(|g| g.size > 0);
        Ok(Executable { binary: bytes.to_vec(), elf, code, kernels, printf, globals })
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<usize> {
        self.kernels.iter().position(|k| k.name == name)
    }

    /// `CL_PROGRAM_KERNEL_NAMES`: semicolon-separated, in address order.
    pub fn kernel_names(&self) -> String {
        self.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(";")
    }
}

/// Which entry point options are parsed for (they accept different sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionsFor {
    Build,
    Compile,
    Link,
}

/// Options that change what the driver does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// `-cl-uniform-work-group-size`: the global size must be a multiple of the local size.
    pub uniform_work_groups: bool,
    /// `-create-library` (link only).
    pub create_library: bool,
}

/// Why an option string is invalid (`CL_INVALID_{BUILD,COMPILER,LINKER}_OPTIONS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsError {
    /// An option this entry point does not know.
    Unknown(String),
    /// `-D`/`-I` at the end of the string.
    MissingValue(String),
    /// `-cl-std=` with an unknown version.
    BadStd(String),
    /// A double quote that is never closed.
    UnclosedQuote,
    /// `-enable-link-options` without `-create-library`.
    EnableLinkOptionsWithoutLibrary,
}

/// Options valid for building and compiling (spec §5.8.6).
const COMPILE_FLAGS: &[&str] = &[
    "-cl-single-precision-constant",
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-opt-disable",
    "-cl-strict-aliasing",
    "-cl-uniform-work-group-size",
    "-cl-no-subgroup-ifp",
    "-cl-mad-enable",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-w",
    "-Werror",
    "-cl-kernel-arg-info",
    "-g",
];
/// Program linking options (spec §5.8.7).
const LINK_FLAGS: &[&str] = &[
    "-cl-denorms-are-zero",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-fast-relaxed-math",
    "-cl-no-subgroup-ifp",
];
const CL_STD: &[&str] = &["CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0", "CLC++", "CLC++1.0", "CLC++2021"];

/// Splits an option string at whitespace; double quotes group (and are removed).
fn tokens(s: &str) -> Result<Vec<String>, OptionsError> {
    let (mut out, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quoted {
        return Err(OptionsError::UnclosedQuote);
    }
    if any {
        out.push(cur);
    }
    Ok(out)
}

impl BuildOptions {
    /// Validates `s` for `what`.
    pub fn parse(s: &str, what: OptionsFor) -> Result<BuildOptions, OptionsError> {
        let mut o = BuildOptions::default();
        let mut enable_link_options = false;
        let toks = tokens(s)?;
        let mut it = toks.iter();
        while let Some(t) = it.next() {
            let t = t.as_str();
            match what {
                OptionsFor::Link => match t {
                    "-create-library" => o.create_library = true,
                    "-enable-link-options" => enable_link_options = true,
                    t if LINK_FLAGS.contains(&t) => {}
                    t => return Err(OptionsError::Unknown(t.into())),
                },
                OptionsFor::Build | OptionsFor::Compile => match t {
                    "-D" | "-I" => {
                        it.next().ok_or_else(|| OptionsError::MissingValue(t.into()))?;
                    }
                    t if (t.starts_with("-D") || t.starts_with("-I")) && t.len() > 2 => {}
                    t if t.starts_with("-cl-std=") => {
                        let v = &t["-cl-std=".len()..];
                        if !CL_STD.contains(&v) {
                            return Err(OptionsError::BadStd(v.into()));
                        }
                    }
                    "-cl-uniform-work-group-size" => o.uniform_work_groups = true,
                    t if COMPILE_FLAGS.contains(&t) => {}
                    t => return Err(OptionsError::Unknown(t.into())),
                },
            }
        }
        // `-enable-link-options` "must be specified with the create-library option".
        if enable_link_options && !o.create_library {
            return Err(OptionsError::EnableLinkOptionsWithoutLibrary);
        }
        Ok(o)
    }
}

/// Build state (one device per program).
struct State {
    status: cl_build_status,
    options: String,
    log: String,
    binary_type: cl_program_binary_type,
    /// The loaded binary (binary programs from creation on; linked programs once linked).
    exec: Option<Arc<Executable>>,
    /// A successful executable exists (kernels may be created).
    built: bool,
    uniform_work_groups: bool,
    /// The SPIR-V of a compiled object (`clCompileProgram`) or of an IL program.
    compiled: Option<Vec<u32>>,
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
    /// The globals block of the current executable, once a kernel of it was launched.
    globals: Mutex<Option<GlobalsBlock>>,
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

impl Program {
    fn with(
        context: Ref<Context>,
        devices: Vec<Ref<Device>>,
        origin: Origin,
        exec: Option<Arc<Executable>>,
    ) -> Program {
        let binary_type = if exec.is_some() { CL_PROGRAM_BINARY_TYPE_EXECUTABLE } else { CL_PROGRAM_BINARY_TYPE_NONE };
        Program {
            context,
            devices,
            origin,
            state: Mutex::new(State {
                status: CL_BUILD_NONE,
                options: String::new(),
                log: String::new(),
                binary_type,
                exec,
                built: false,
                uniform_work_groups: false,
                compiled: None,
            }),
            kernels: AtomicUsize::new(0),
            spec_constants: Mutex::new(BTreeMap::new()),
            globals: Mutex::new(None),
        }
    }

    /// A program from OpenCL C source.
    pub fn from_source(context: Ref<Context>, devices: Vec<Ref<Device>>, source: String) -> Program {
        Program::with(context, devices, Origin::Source(source), None)
    }

    /// A program from SPIR-V.
    pub fn from_il(context: Ref<Context>, devices: Vec<Ref<Device>>, il: Vec<u8>) -> Program {
        Program::with(context, devices, Origin::Il(il), None)
    }

    /// A program from a loaded binary (not yet built).
    pub fn from_binary(context: Ref<Context>, devices: Vec<Ref<Device>>, exec: Arc<Executable>) -> Program {
        Program::with(context, devices, Origin::Binary, Some(exec))
    }

    /// The result of `clLinkProgram`: `exec` on success, otherwise a failed link with `log`.
    pub fn linked(
        context: Ref<Context>,
        devices: Vec<Ref<Device>>,
        exec: Result<Arc<Executable>, String>,
        options: String,
        parsed: &BuildOptions,
    ) -> Program {
        let ok = exec.is_ok();
        let p = Program::with(context, devices, Origin::Linked, exec.as_ref().ok().cloned());
        {
            let mut s = p.state.lock();
            s.options = options;
            s.uniform_work_groups = parsed.uniform_work_groups;
            if ok {
                s.status = CL_BUILD_SUCCESS;
                s.built = !parsed.create_library;
                if parsed.create_library {
                    s.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
                }
            } else {
                s.status = CL_BUILD_ERROR;
                s.log = exec.err().unwrap_or_default();
            }
        }
        p
    }

    /// Marks a build/compile as started; `false` if another one is still running.
    pub fn begin_build(&self, options: &str) -> bool {
        let mut s = self.state.lock();
        if s.status == CL_BUILD_IN_PROGRESS {
            return false;
        }
        s.status = CL_BUILD_IN_PROGRESS;
        s.options = options.to_string();
        s.log.clear();
        true
    }

    /// Ends a build: success makes the loaded binary the executable.
    pub fn finish_build(&self, ok: bool, log: String, parsed: &BuildOptions) {
        let mut s = self.state.lock();
        s.status = if ok { CL_BUILD_SUCCESS } else { CL_BUILD_ERROR };
        s.log = log;
        s.built = ok && s.exec.is_some();
        s.uniform_work_groups = parsed.uniform_work_groups;
        if s.built {
            s.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
        }
    }

    /// Installs the executable produced by compiling source or IL (before [`finish_build`]).
    /// The previous executable's globals block, if any, is freed (builds are refused while
    /// kernel objects, and so launches, exist).
    pub fn install_executable(&self, exec: Arc<Executable>) {
        self.state.lock().exec = Some(exec);
        self.free_globals();
    }

    /// The address of the globals block of `exec` (this program's executable) on `device`,
    /// or `None` if it has no program-scope variables. The block is allocated and initialised
    /// from the image on the first call and then lives, shared by every kernel of the program,
    /// until the program is released or rebuilt.
    pub fn globals_base(&self, exec: &Arc<Executable>, device: &Ref<Device>) -> Result<Option<u32>, MapError> {
        let Some(image) = &exec.globals else { return Ok(None) };
        let mut g = self.globals.lock();
        if let Some(b) = g.as_ref() {
            if Arc::ptr_eq(&b.exec, exec) && Arc::ptr_eq(&b.device, device) {
                return Ok(Some(b.base));
            }
        }
        if let Some(old) = g.take() {
            old.device.memory.unmap(old.base);
        }
        let base = crate::device::stage_globals(&device.memory, image)?;
        *g = Some(GlobalsBlock { exec: exec.clone(), device: device.clone(), base });
        Ok(Some(base))
    }

    /// `CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`: bytes of program-scope variables of the
    /// built executable (0 without one).
    pub fn global_variable_total_size(&self) -> usize {
        self.executable().and_then(|e| e.globals.as_ref().map(|g| g.size as usize)).unwrap_or(0)
    }

    fn free_globals(&self) {
        if let Some(old) = self.globals.lock().take() {
            old.device.memory.unmap(old.base);
        }
    }

    /// Records a compiled object (`clCompileProgram`): the SPIR-V, binary type COMPILED_OBJECT.
    pub fn finish_compile(&self, spirv: Option<Vec<u32>>, log: String) {
        let mut s = self.state.lock();
        s.status = if spirv.is_some() { CL_BUILD_SUCCESS } else { CL_BUILD_ERROR };
        s.log = log;
        if spirv.is_some() {
            s.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
        }
        s.compiled = spirv;
    }

    /// The compiled object's SPIR-V, if `clCompileProgram` succeeded.
    pub fn compiled(&self) -> Option<Vec<u32>> {
        self.state.lock().compiled.clone()
    }

    /// The loaded binary, if any (whether or not it was built).
    pub fn binary(&self) -> Option<Arc<Executable>> {
        self.state.lock().exec.clone()
    }

    /// The executable, if a build succeeded.
    pub fn executable(&self) -> Option<Arc<Executable>> {
        let s = self.state.lock();
        s.exec.clone().filter(|_| s.built)
    }

    /// Whether kernels must be launched with uniform work-groups (`-cl-uniform-work-group-size`).
    pub fn uniform_work_groups(&self) -> bool {
        self.state.lock().uniform_work_groups
    }

    pub fn build_info(&self) -> BuildInfo {
        let s = self.state.lock();
        BuildInfo { status: s.status, options: s.options.clone(), log: s.log.clone(), binary_type: s.binary_type }
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

    /// Records a specialization constant value (used by a future IL build).
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

const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The words of a SPIR-V module (either byte order), or `None` if `il` is not SPIR-V.
pub fn spirv_words(il: &[u8]) -> Option<Vec<u32>> {
    if il.len() < 20 || il.len() % 4 != 0 {
        return None;
    }
    let le: Vec<u32> = il.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    match le[0] {
        SPIRV_MAGIC => Some(le),
        m if m.swap_bytes() == SPIRV_MAGIC => Some(le.into_iter().map(u32::swap_bytes).collect()),
        _ => None,
    }
}

/// Specialization constants of a SPIR-V module: `SpecId` → size in bytes of the constant's type
/// (1 for booleans). `None` if `il` is not a well-formed SPIR-V instruction stream.
pub fn spirv_spec_constants(il: &[u8]) -> Option<BTreeMap<u32, u32>> {
    const OP_TYPE_BOOL: u32 = 20;
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_FLOAT: u32 = 22;
    const OP_SPEC_CONSTANT_TRUE: u32 = 48;
    const OP_SPEC_CONSTANT_FALSE: u32 = 49;
    const OP_SPEC_CONSTANT: u32 = 50;
    const OP_DECORATE: u32 = 71;
    const DECORATION_SPEC_ID: u32 = 1;
    let words = spirv_words(il)?;
    let (mut spec_ids, mut type_size, mut constant_type) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let mut i = 5;
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if count == 0 || i + count > words.len() {
            return None;
        }
        let w = &words[i + 1..i + count];
        match (op, w) {
            (OP_DECORATE, [target, DECORATION_SPEC_ID, id, ..]) => {
                spec_ids.insert(*target, *id);
            }
            (OP_TYPE_BOOL, [result, ..]) => {
                type_size.insert(*result, 1);
            }
            (OP_TYPE_INT | OP_TYPE_FLOAT, [result, width, ..]) => {
                type_size.insert(*result, width / 8);
            }
            (OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT, [ty, result, ..]) => {
                constant_type.insert(*result, *ty);
            }
            _ => {}
        }
        i += count;
    }
    Some(
        spec_ids
            .into_iter()
            .filter_map(|(target, id)| Some((id, *type_size.get(constant_type.get(&target)?)?)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_per_entry_point() {
        let b =
            BuildOptions::parse("-D X -DY=2 -I \"/a b\" -cl-std=CL3.0  -cl-uniform-work-group-size", OptionsFor::Build);
        assert_eq!(b, Ok(BuildOptions { uniform_work_groups: true, create_library: false }));
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
        let exec2 = exec_with(&image);
        p.install_executable(exec2.clone());
        assert!(dev.memory.read_u32(base).is_err(), "a rebuild frees the old block");
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

    #[test]
    fn spirv_specialization_constants() {
        // Header, OpTypeInt %1 32, OpTypeBool %2, OpSpecConstant %1 %3 7, OpSpecConstantTrue %2 %4,
        // OpDecorate %3 SpecId 5, OpDecorate %4 SpecId 9.
        let words: Vec<u32> = vec![
            SPIRV_MAGIC,
            0x0001_0000,
            0,
            10,
            0,
            (4 << 16) | 21,
            1,
            32,
            0,
            (2 << 16) | 20,
            2,
            (4 << 16) | 50,
            1,
            3,
            7,
            (3 << 16) | 48,
            2,
            4,
            (4 << 16) | 71,
            3,
            1,
            5,
            (4 << 16) | 71,
            4,
            1,
            9,
        ];
        let le: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        let want: BTreeMap<u32, u32> = [(5, 4), (9, 1)].into_iter().collect();
        assert_eq!(spirv_spec_constants(&le), Some(want.clone()));
        assert_eq!(spirv_spec_constants(&be), Some(want));
        assert_eq!(spirv_spec_constants(&le[..le.len() - 4]), None);
        assert_eq!(spirv_spec_constants(b"not spir-v at all!!!"), None);
    }
}
