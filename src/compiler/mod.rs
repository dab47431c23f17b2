//! The OpenCL C compiler: OpenCL C → (clang-15 + llvm-spirv-15 subprocesses) → SPIR-V → our SSA IR
//! → passes → Ventus assembly → Ventus ELF in the official format.
//!
//! * [`toolchain`]: finding and running clang/llvm-spirv, build options, the build log, the cache;
//!   [`includes`]: what a source may `#include` (never a device, a FIFO or a huge file).
//! * [`spirv`]: the front end (rspirv), which inlines every call and splits vectors/aggregates.
//! * [`ir`]: the SSA IR; [`pass`]: optimisation, uniformity, reconvergence; [`target`]: Ventus code.
//!
//! Source lines: clang runs with `-gline-tables-only`; the `OpLine`s become an [`ir::SrcLoc`] on
//! every IR instruction, which instruction selection copies to the machine instructions and
//! emission writes as `.file`/`.loc` directives; the linker turns them into the ELF's
//! [`crate::abi::lines`] table (with the text of the `<source>` lines the table names). Line
//! information never changes the generated code.

pub mod build;
pub mod cache;
pub mod digest;
pub mod env;
#[cfg(test)]
mod filetest;
pub mod includes;
pub mod ir;
pub mod pass;
pub mod softlib;
pub mod source_hints;
pub mod spirv;
pub mod target;
pub mod toolchain;

/// The code generator's revision, part of every cache key: a digest of the sources that determine
/// generated code, computed by `build.rs` ([`digest`]).
pub const BACKEND_REVISION: &str = concat!("ventus-cc-", env!("BUILD_BACKEND_DIGEST"));

/// Why a build failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// A construct we do not support yet (named for the build log), with its source location if
    /// known.
    Unsupported { construct: String, location: Option<String> },
    /// The SPIR-V module is malformed or uses something that cannot appear in OpenCL SPIR-V.
    InvalidSpirv(String),
    /// The kernel does not fit the device (registers, private or local memory).
    Resources(String),
    /// A compiler bug caught by an internal check.
    Internal(String),
    /// A call to a function, or a use of an `extern global` variable, that no module of the
    /// program defines (legal in a compiled object: `clLinkProgram` resolves it; an error in an
    /// executable).
    Unresolved(String),
    /// A function or variable defined by more than one linked program.
    Duplicate(String),
}

impl CompileError {
    pub fn unsupported(what: &str) -> CompileError {
        CompileError::Unsupported { construct: what.to_string(), location: None }
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Unsupported { construct, location: Some(l) } => {
                write!(f, "{l}: error: unsupported by the Ventus compiler: {construct}")
            }
            CompileError::Unsupported { construct, location: None } => {
                write!(f, "error: unsupported by the Ventus compiler: {construct}")
            }
            CompileError::InvalidSpirv(m) => write!(f, "error: invalid SPIR-V: {m}"),
            CompileError::Resources(m) => write!(f, "error: kernel exceeds device resources: {m}"),
            CompileError::Internal(m) => write!(f, "internal compiler error: {m}"),
            CompileError::Duplicate(name) => {
                write!(f, "error: symbol `{name}` is defined in more than one linked program")
            }
            CompileError::Unresolved(name) => {
                write!(f, "error: undefined symbol `{name}` (not defined in any linked program)")
            }
        }
    }
}
impl std::error::Error for CompileError {}

/// A compiled program.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The Ventus ELF (official format plus our `.ventus.kernel_info`).
    pub elf: Vec<u8>,
    pub kernels: Vec<crate::abi::kernel_info::KernelInfo>,
    /// The generated code as typed assembly (what the linker assembled).
    pub listing: crate::isa::asm::Listing,
    /// Warnings for the build log, one line each.
    pub warnings: Vec<String>,
}

impl Compiled {
    /// The generated assembly as text (for `VENTUS_DUMP_ASM` and tests).
    pub fn asm(&self) -> String {
        self.listing.to_string()
    }
}

fn label_prefix(name: &str, k: usize) -> String {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("{clean}_{k}")
}

/// SPIR-V → Ventus ELF.
pub fn compile_spirv(words: &[u32]) -> Result<Compiled, CompileError> {
    compile_spirv_modules(&[words.to_vec()])
}

/// SPIR-V made from `source` → Ventus ELF; the source supplies what SPIR-V cannot carry
/// ([`source_hints`]).
pub fn compile_spirv_from_source(words: &[u32], source: &str) -> Result<Compiled, CompileError> {
    compile_spirv_modules_with(&[words.to_vec()], Some(source))
}

/// Several SPIR-V modules (compiled objects) → one Ventus ELF.
pub fn compile_spirv_modules(modules: &[Vec<u32>]) -> Result<Compiled, CompileError> {
    compile_spirv_modules_with(modules, None)
}

fn compile_spirv_modules_with(modules: &[Vec<u32>], source: Option<&str>) -> Result<Compiled, CompileError> {
    // Malformed input must never take the application down: a compiler panic (a bug, or an
    // unchecked assumption about the SPIR-V) becomes a build error.
    std::panic::catch_unwind(|| compile_spirv_modules_inner(modules, source)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("panic");
        Err(CompileError::Internal(format!("the compiler stopped on this input: {what}")))
    })
}

/// The middle end for one function: passes, legalisation, critical edges split.
fn middle_end(f: &mut ir::Func) -> Result<(), CompileError> {
    pass::run(f)?;
    pass::legalize(f)?;
    pass::resolve_generic(f)?;
    pass::split_edges::split_critical_edges(f);
    ir::verify::verify(f).map_err(|e| CompileError::Internal(e.0))
}

/// The back end for one function (after [`middle_end`]): uniformity under `assume`, instruction
/// selection and register allocation (`stack_base`: where its scalar spill slots start).
fn back_end(
    f: &ir::Func,
    level: u8,
    stack_base: u32,
    assume: &pass::uniformity::Assumptions,
    warnings: &mut Vec<String>,
) -> Result<(target::mir::MFunc, target::regalloc::Frame), CompileError> {
    let u = pass::uniformity::analyze_with(f, assume)?;
    if u.barrier_in_divergent_flow {
        warnings.push(format!(
            "warning: kernel `{}`: a barrier may be reached in divergent control flow; this is only \
             correct if every work-item of a work-group reaches it, as OpenCL C requires",
            f.name
        ));
    }
    if env::CompilerEnv::get().dump_ir {
        let div: Vec<u32> = (0..f.types.len() as u32).filter(|v| u.divergent[*v as usize]).collect();
        eprintln!("{}divergent: {div:?}\nbranches: {:?}", ir::print::print(f), u.branches);
    }
    let mut m = target::isel::select(f, &u, level)?;
    let frame = target::regalloc::allocate(&mut m, stack_base)?;
    if frame.private > crate::abi::MAX_PRIVATE_BYTES_PER_ITEM {
        return Err(CompileError::Resources(format!(
            "{} needs {} bytes of private memory per work-item (limit {})",
            f.name,
            frame.private,
            crate::abi::MAX_PRIVATE_BYTES_PER_ITEM
        )));
    }
    Ok((m, frame))
}

/// The subroutines that have a uniform variant (`target::call`): analysed with uniform
/// parameters, every result word is uniform (given the variants of the deeper levels).
fn uniform_subroutines(subs: &[(u8, ir::Func)]) -> Result<std::collections::HashSet<String>, CompileError> {
    let mut uniform = std::collections::HashSet::new();
    for level in [crate::abi::subroutine::CHECK_LEVEL, 2, 1] {
        for (l, f) in subs {
            if *l != level {
                continue;
            }
            let u = {
                let known = |name: &str| uniform.contains(name);
                pass::uniformity::analyze_with(
                    f,
                    &pass::uniformity::Assumptions { params_uniform: true, uniform_callee: &known },
                )?
            };
            let results_uniform = f.blocks.iter().flat_map(|b| &b.insts).all(|i| match &i.op {
                ir::Op::Return(words) => words.iter().all(|w| !u.divergent[w.0 as usize]),
                _ => true,
            });
            if results_uniform {
                uniform.insert(f.name.clone());
            }
        }
    }
    Ok(uniform)
}

/// The subroutines (by assembly name, uniform variants included) that `m` calls.
fn callees_of(m: &target::mir::MFunc, into: &mut std::collections::HashSet<String>) {
    for b in &m.blocks {
        for i in &b.insts {
            if let target::mir::MOp::Call(name) = &i.op {
                into.insert(name.clone());
            }
        }
    }
}

fn compile_spirv_modules_inner(modules: &[Vec<u32>], source: Option<&str>) -> Result<Compiled, CompileError> {
    use crate::abi::kernel_info;
    let mut prog = spirv::lower_modules(modules)?;
    let mut listing = crate::isa::asm::Listing::default();
    let mut kernels = Vec::new();
    let mut warnings = Vec::new();
    // Frames of the functions that call subroutines: a callee's frame starts above them.
    let mut top = target::regalloc::Frame::default();
    let mut calling = Vec::new();
    // Allocated functions and their label prefixes, emitted once the program's size is known.
    let mut funcs: Vec<(target::mir::MFunc, String)> = Vec::new();
    // Subroutines first through the middle end: which have uniform variants decides how the
    // kernels call them.
    let mut subs = std::mem::take(&mut prog.subs);
    for (_, f) in subs.iter_mut() {
        middle_end(f)?;
    }
    let uniform = uniform_subroutines(&subs)?;
    let has_uniform = |name: &str| uniform.contains(name);
    let kernel_assume = pass::uniformity::Assumptions { params_uniform: false, uniform_callee: &has_uniform };
    let mut called = std::collections::HashSet::new();
    for (k, mut kernel) in std::mem::take(&mut prog.kernels).into_iter().enumerate() {
        let no_local_args = kernel.info.args.iter().all(|a| a.address_space != kernel_info::AddressSpace::Local);
        let one_item = (!kernel.info.grouping_free && no_local_args)
            .then(|| {
                let name = kernel_info::single_item_symbol(&kernel.info.name);
                pass::workitems::single_item_variant(&kernel.func, name)
            })
            .flatten();
        middle_end(&mut kernel.func)?;
        let (m, frame) = back_end(&kernel.func, 0, 0, &kernel_assume, &mut warnings)?;
        callees_of(&m, &mut called);
        let mut calls = m.calls;
        let (mut private, mut stack) = (frame.private, frame.stack);
        funcs.push((m, label_prefix(&kernel.info.name, k)));
        // The single-item variant is an optimisation of launches with one-item work-groups:
        // one that does not compile is left out (those launches run the kernel itself).
        if let Some(mut v) = one_item {
            let mut ignored = Vec::new();
            match middle_end(&mut v).and_then(|()| back_end(&v, 0, 0, &kernel_assume, &mut ignored)) {
                Ok((m, frame)) => {
                    callees_of(&m, &mut called);
                    calls |= m.calls;
                    (private, stack) = (private.max(frame.private), stack.max(frame.stack));
                    funcs.push((m, label_prefix(&v.name, k)));
                }
                Err(e) => log::debug!("kernel `{}`: no single-item variant: {e}", kernel.info.name),
            }
        }
        if calls {
            top.private = top.private.max(private);
            top.stack = top.stack.max(stack);
            calling.push(kernels.len());
        }
        kernel.info.private_bytes = private;
        kernels.push(kernel.info);
    }
    if let Some(src) = source {
        source_hints::apply_vec_type_hints(&mut kernels, src);
    }
    // Subroutines that are called, level by level (`target::call`): level 1 above the kernels'
    // frames, level 2 above those of level 1, the checker hooks above those; each in its vector variant, its uniform variant
    // (parameters uniform) or both, as its callers need.
    for level in 1..=crate::abi::subroutine::CHECK_LEVEL {
        let base = top;
        for (k, (l, f)) in subs.iter_mut().enumerate() {
            if *l != level {
                continue;
            }
            let uname = target::call::uniform_name(&f.name);
            let (vector, scalar) = (called.contains(&f.name), called.contains(&uname));
            if !vector && !scalar {
                continue;
            }
            for b in &mut f.blocks {
                for i in &mut b.insts {
                    if let ir::Op::PrivateAddr { offset } = &mut i.op {
                        *offset += base.private.next_multiple_of(4);
                    }
                }
            }
            f.private_bytes += base.private.next_multiple_of(4);
            let mut variants = Vec::new();
            if vector {
                let (m, frame) = back_end(f, level, base.stack, &kernel_assume, &mut warnings)?;
                variants.push((m, frame, format!("sub{k}")));
            }
            if scalar {
                let mut fu = f.clone();
                fu.name = uname;
                let assume = pass::uniformity::Assumptions { params_uniform: true, uniform_callee: &has_uniform };
                let (m, frame) = back_end(&fu, level, base.stack, &assume, &mut warnings)?;
                variants.push((m, frame, format!("sub{k}u")));
            }
            for (m, frame, prefix) in variants {
                callees_of(&m, &mut called);
                top.private = top.private.max(frame.private);
                top.stack = top.stack.max(frame.stack);
                funcs.push((m, prefix));
            }
        }
    }
    // Jumps and calls of a program too large for `jal`'s reach use their long forms.
    let far = funcs.iter().map(|(m, _)| target::emit::upper_bytes(m)).sum::<u64>() > target::emit::FAR_CODE_BYTES;
    let mut lines = target::emit::LineState::default();
    for (m, prefix) in &funcs {
        target::emit::emit_with_lines(m, prefix, far, &mut lines, &mut listing)?;
    }
    // A kernel that calls gets private memory for the deepest frame.
    for k in calling {
        kernels[k].private_bytes = kernels[k].private_bytes.max(top.private);
    }
    // A program without kernels (e.g. an empty source) is a valid executable with none: the
    // linker wants an entry, so it gets one with a runtime name (never listed as a kernel).
    if kernels.is_empty() {
        use crate::isa::asm::Item;
        listing.items.push(Item::Label { name: "__ventus_no_kernels".into(), global: true });
        listing.items.push(Item::Inst(crate::isa::Inst { rs1: 1, ..crate::isa::Inst::new(crate::isa::Op::Jalr) }));
    }
    let elf = link(&listing, &kernels, &prog, source)?;
    Ok(Compiled { elf, kernels, listing, warnings })
}

/// Links the generated assembly with crt0 into an ELF; words holding `.rodata` offsets (pointer
/// initialisers, [`spirv::Program::rodata_relocs`]) get the address of `.rodata` added. The
/// source string (`source`, the file `<source>` of the line table) has the lines the table names
/// embedded: it exists nowhere else once the program is built.
fn link(
    listing: &crate::isa::asm::Listing,
    kernels: &[crate::abi::kernel_info::KernelInfo],
    prog: &spirv::Program,
    source: Option<&str>,
) -> Result<Vec<u8>, CompileError> {
    use crate::abi::crt0::LinkError;
    use crate::isa::asm::ListingError;
    const JUMP_REACH: i64 = match crate::isa::ImmKind::J21.reach() {
        Some(r) => r,
        None => 0,
    };
    if prog.rodata.len() > crate::abi::MAX_CONSTANT_BYTES as usize {
        return Err(CompileError::Resources(format!(
            "{} bytes of __constant data exceed CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE ({} bytes)",
            prog.rodata.len(),
            crate::abi::MAX_CONSTANT_BYTES
        )));
    }
    let mut image = crate::abi::crt0::link_listing(listing, kernels, &prog.rodata).map_err(|e| match e {
        // A jump beyond ±1 MiB: the program's code is too large (e.g. many inlined double math
        // built-ins in one kernel).
        LinkError::Listing(ListingError::TargetOutOfRange { offset, .. }) if offset.abs() >= JUMP_REACH => {
            CompileError::Resources(format!(
                "the generated code is larger than a jump can span ({} KiB); split the kernel or use fewer \
                 double-precision math built-ins in one kernel",
                offset.unsigned_abs() >> 10
            ))
        }
        e => CompileError::Internal(format!("link: {e}")),
    })?;
    if let (Some(lines), Some(src)) = (&mut image.lines, source) {
        let main = lines.files.iter().position(|f| f == crate::abi::lines::SOURCE_STRING_NAME);
        if let Some(k) = main.and_then(|k| u16::try_from(k).ok()) {
            lines.embed_source(k, src);
        }
    }
    let layout = crate::abi::elf_writer::Layout::of(&image).map_err(|e| CompileError::Internal(format!("ELF: {e}")))?;
    let relocate = |bytes: &mut Vec<u8>, at: u32| {
        let at = at as usize;
        if bytes.len() < at + 4 {
            bytes.resize(at + 4, 0);
        }
        let w = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        bytes[at..at + 4].copy_from_slice(&w.wrapping_add(layout.rodata).to_le_bytes());
    };
    for &at in &prog.rodata_relocs {
        relocate(&mut image.rodata, at);
    }
    let mut globals = prog.globals.clone();
    for &at in &prog.globals_rodata_relocs {
        relocate(&mut globals.init, at);
    }
    let globals = globals.trimmed();
    if globals.size > 0 {
        image.notes.push((crate::abi::globals::SECTION.to_string(), globals.encode()));
    }
    if !prog.printf.sites.is_empty() {
        image.notes.push((crate::abi::printf::PRINTF_SECTION.to_string(), prog.printf.encode()));
    }
    crate::abi::elf_writer::write_elf(&image).map_err(|e| CompileError::Internal(format!("ELF: {e}")))
}
