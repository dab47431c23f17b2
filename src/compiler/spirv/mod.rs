//! SPIR-V front end: reads an OpenCL (Kernel-capability, Physical32 or Physical64) module with `rspirv` and
//! lowers each entry point into one [`ir::Func`](super::ir::Func), inlining every call.
//!
//! Contract: never panics on malformed input — every lookup is fallible and reports
//! [`CompileError::InvalidSpirv`]; constructs outside the supported subset report
//! [`CompileError::Unsupported`] naming the construct (and source line when the module has
//! `OpLine`).
//!
//! Module-scope variables: `UniformConstant` ones (program-scope `constant` data, string
//! literals) go to `.rodata` ([`Module::const_data`]); `CrossWorkgroup` ones (program-scope
//! `global` variables) to the program's globals image ([`Module::global_data`], combined per
//! module by [`lower_modules`]), which kernels address through the hidden globals-block argument
//! of [`crate::abi::globals`]; `Workgroup` ones are the kernel's static `__local` area.

mod async_copy;
mod convert;
mod denormals;
mod fp16;
mod fp64;
mod groups;
mod half;
mod image;
mod integer;
mod lower;
mod math;
mod ops;
mod printf;
mod subgroup_ext;
pub mod types;

use super::ir::{Func, Space};
use super::CompileError;
use crate::abi::globals;
use crate::abi::kernel_info::{self, AddressSpace, ArgInfo, KernelInfo};
use crate::abi::subroutine::F64Primitive;
use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};
use std::collections::HashMap;
use types::{SType, Types};

/// A module-scope variable.
#[derive(Debug, Clone)]
pub struct Global {
    pub space: Space,
    pub pointee: u32,
    pub initializer: Option<u32>,
    pub builtin: Option<spirv::BuiltIn>,
}

/// The scanned module.
pub struct Module {
    pub types: Types,
    /// Constants: id → (type id, defining instruction).
    pub constants: HashMap<u32, Instruction>,
    pub globals: HashMap<u32, Global>,
    /// `OpSpecConstantOp`s (only address arithmetic on module-scope variables is supported:
    /// [`Module::const_address`]).
    pub spec_ops: HashMap<u32, Instruction>,
    pub names: HashMap<u32, String>,
    pub decorations: HashMap<u32, Vec<(Decoration, Vec<Operand>)>>,
    pub functions: HashMap<u32, dr::Function>,
    pub strings: Vec<String>,
    /// `OpString` contents by id (the file names of `OpLine`).
    pub string_ids: HashMap<u32, String>,
    /// Result id → type id for every instruction with a result.
    pub id_types: HashMap<u32, u32>,
    pub opencl_std: Option<u32>,
    /// The module declares `GenericPointer`: a private object never sits at address 0, so that
    /// NULL stays distinct from every private address a generic pointer can hold.
    pub generic_pointers: bool,
    pub entry_points: Vec<(u32, String, Vec<u32>)>,
    pub execution_modes: Vec<(u32, spirv::ExecutionMode, Vec<u32>)>,
}

/// Program-scope constant data laid out for `.rodata`.
#[derive(Debug, Default, Clone)]
pub struct ConstData {
    pub bytes: Vec<u8>,
    pub offsets: HashMap<u32, u32>,
    /// Pointer-valued initialisers (`constant char *constant names[] = {"a", "b"};`), as in
    /// [`GlobalData::relocs`].
    pub relocs: Vec<(u32, u32, i32)>,
}

/// Program-scope `global` variables of one module laid out for the globals block
/// ([`crate::abi::globals`]): every defined `CrossWorkgroup` variable, initialised from its
/// constant initialiser or zero. Imports (`extern global`) take no space here.
#[derive(Debug, Default, Clone)]
pub struct GlobalData {
    pub bytes: Vec<u8>,
    /// Variable id → byte offset in `bytes`.
    pub offsets: HashMap<u32, u32>,
    /// Pointer-valued initialisers: (byte position in `bytes`, variable whose address plus the
    /// addend is stored, addend).
    pub relocs: Vec<(u32, u32, i32)>,
}

/// One lowered kernel.
pub struct Kernel {
    pub func: Func,
    pub info: KernelInfo,
}

/// A lowered program.
pub struct Program {
    pub kernels: Vec<Kernel>,
    pub rodata: Vec<u8>,
    /// Initial contents of the program's globals block (size 0: the program has none).
    pub globals: crate::abi::globals::GlobalsImage,
    /// Words of `rodata` and of `globals.init` holding an offset in `.rodata` (an initializer
    /// pointing to `constant` data): the linker adds the address of `.rodata`.
    pub rodata_relocs: Vec<u32>,
    pub globals_rodata_relocs: Vec<u32>,
    /// printf call sites of every kernel (ids are program-wide).
    pub printf: crate::abi::printf::PrintfTable,
    /// Library subroutines the kernels call out of line, with their call level
    /// (`target::call`), callers before callees.
    pub subs: Vec<(u8, Func)>,
}

fn invalid(m: impl Into<String>) -> CompileError {
    CompileError::InvalidSpirv(m.into())
}

fn id_operand(i: &Instruction, k: usize) -> Result<u32, CompileError> {
    match i.operands.get(k) {
        Some(Operand::IdRef(x) | Operand::IdScope(x) | Operand::IdMemorySemantics(x)) => Ok(*x),
        other => Err(invalid(format!("{:?}: operand {k} is not an id ({other:?})", i.class.opcode))),
    }
}

fn lit_operand(i: &Instruction, k: usize) -> Result<u32, CompileError> {
    match i.operands.get(k) {
        Some(Operand::LiteralBit32(x)) => Ok(*x),
        other => Err(invalid(format!("{:?}: operand {k} is not a literal ({other:?})", i.class.opcode))),
    }
}

fn space_of(sc: StorageClass) -> Result<Space, CompileError> {
    Ok(match sc {
        StorageClass::CrossWorkgroup => Space::Global,
        StorageClass::UniformConstant => Space::Constant,
        StorageClass::Workgroup => Space::Local,
        StorageClass::Function | StorageClass::Private => Space::Private,
        StorageClass::Input => Space::Private,
        StorageClass::Generic => Space::Generic,
        other => return Err(invalid(format!("storage class {other:?} in an OpenCL kernel"))),
    })
}

/// Checks the instruction framing before rspirv decodes it (its decoder slices past the end of
/// the stream when an instruction's word count does: a panic, not an error): after the 5-word
/// header, every instruction's word count is at least 1 and stays inside the module.
fn check_instruction_stream(words: &[u32]) -> Result<(), CompileError> {
    if words.len() < 5 {
        return Err(invalid("shorter than the 5-word header".to_string()));
    }
    // The header (SPIR-V §2.3): magic number, version 0x00MMmm00 of SPIR-V 1.0–1.6, generator,
    // id bound (every id is below it, so at least 1), schema 0.
    if words[0] != 0x0723_0203 {
        return Err(invalid(format!("magic number {:#010x}, not SPIR-V's 0x07230203", words[0])));
    }
    let (major, minor) = ((words[1] >> 16) & 0xff, (words[1] >> 8) & 0xff);
    if words[1] & 0xff00_00ff != 0 || major != 1 || minor > 6 {
        return Err(invalid(format!("version word {:#010x} is not SPIR-V 1.0–1.6", words[1])));
    }
    if words[3] == 0 {
        return Err(invalid("id bound 0 (every id must be below the bound)".to_string()));
    }
    if words[4] != 0 {
        return Err(invalid(format!("schema word {:#x} (reserved, must be 0)", words[4])));
    }
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(invalid(format!(
                "the instruction at word {at} (word count {count}) runs past the end of the module"
            )));
        }
        at += count;
    }
    Ok(())
}

/// The ids of the `OpExtInstImport`s of debug-information sets ([`is_debug_set`]). Call after
/// [`check_instruction_stream`].
fn debug_set_ids(words: &[u32]) -> Vec<u32> {
    const OP_EXT_INST_IMPORT: u32 = 11;
    let mut ids = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let inst = &words[at..at + count];
        if inst[0] & 0xffff == OP_EXT_INST_IMPORT && inst.len() > 2 {
            let bytes: Vec<u8> = inst[2..].iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
            if is_debug_set(&String::from_utf8_lossy(&bytes)) {
                ids.push(inst[1]);
            }
        }
        at += count;
    }
    ids
}

/// Prepares the words for rspirv:
/// * rspirv 0.13 decodes one operand per parameter of an `OpSpecConstantOp`'s opcode, ignoring
///   variadic ones (so `&t.v[1]`, an access chain with two indexes, does not parse): each
///   `OpSpecConstantOp` is replaced by an `OpUndef` of the same type and id for rspirv, and
///   returned decoded here (every operand after the opcode as an id).
/// * Debug information (clang's `-g`: `OpExtInst`s of `OpenCL.DebugInfo.100` such as
///   `DebugCompilationUnit` at module scope, which rspirv rejects there, and `DebugScope`,
///   `DebugValue`, `DebugDeclare` in functions) is removed: it has no effect on the code, and
///   its results (of type void) are used only by other debug instructions. `OpLine`s stay.
///
/// Call after [`check_instruction_stream`].
fn extract_spec_constant_ops(words: &[u32]) -> (Vec<u32>, Vec<Instruction>) {
    const OP_SPEC_CONSTANT_OP: u32 = 52;
    const OP_EXT_INST: u32 = 12;
    const OP_UNDEF: u32 = 1;
    let debug_sets = debug_set_ids(words);
    let mut out = words[..5.min(words.len())].to_vec();
    let mut ops = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let inst = &words[at..at + count];
        if inst[0] & 0xffff == OP_EXT_INST && inst.get(3).is_some_and(|set| debug_sets.contains(set)) {
            at += count;
            continue;
        }
        match (inst[0] & 0xffff, inst.get(3).and_then(|&op| Op::from_u32(op))) {
            (OP_SPEC_CONSTANT_OP, Some(op)) => {
                let mut operands = vec![Operand::LiteralSpecConstantOpInteger(op)];
                operands.extend(inst[4..].iter().map(|&w| Operand::IdRef(w)));
                ops.push(Instruction::new(Op::SpecConstantOp, Some(inst[1]), Some(inst[2]), operands));
                out.extend_from_slice(&[3 << 16 | OP_UNDEF, inst[1], inst[2]]);
            }
            _ => out.extend_from_slice(inst),
        }
        at += count;
    }
    (out, ops)
}

/// Extended instruction sets without semantics: debug information (what clang's `-g` makes
/// llvm-spirv emit) and, by the SPIR-V rules, every `NonSemantic.*` set.
fn is_debug_set(name: &str) -> bool {
    name.starts_with("OpenCL.DebugInfo") || name.starts_with("NonSemantic.") || name == "SPIRV.debug"
}

impl Module {
    /// Parses and scans a module.
    pub fn parse(words: &[u32]) -> Result<Module, CompileError> {
        check_instruction_stream(words)?;
        let (words, spec_ops) = extract_spec_constant_ops(words);
        let words = &words[..];
        // rspirv's decoder can still panic on some malformed inputs; never let that reach the
        // application (the words are only read).
        let spv = std::panic::catch_unwind(|| rspirv::dr::load_words(words))
            .map_err(|_| invalid("cannot parse: malformed instruction stream".to_string()))?
            .map_err(|e| invalid(format!("cannot parse: {e}")))?;
        // Result ids are unique (a redefinition could, e.g., make a type contain itself).
        let mut ids = std::collections::HashSet::new();
        let bound = words[3];
        for i in spv.all_inst_iter() {
            if let Some(r) = i.result_id {
                if r == 0 || r >= bound {
                    return Err(invalid(format!("id %{r} is not below the header's id bound {bound}")));
                }
                if !ids.insert(r) {
                    return Err(invalid(format!("id %{r} is defined more than once")));
                }
            }
        }
        let mut m = Module {
            types: Types::default(),
            constants: HashMap::new(),
            globals: HashMap::new(),
            spec_ops: HashMap::new(),
            names: HashMap::new(),
            decorations: HashMap::new(),
            functions: HashMap::new(),
            strings: Vec::new(),
            string_ids: HashMap::new(),
            id_types: HashMap::new(),
            opencl_std: None,
            generic_pointers: false,
            entry_points: Vec::new(),
            execution_modes: Vec::new(),
        };
        for c in &spv.capabilities {
            if let Some(Operand::Capability(cap)) = c.operands.first() {
                use spirv::Capability as C;
                match cap {
                    C::Addresses | C::Linkage | C::Kernel | C::Int8 | C::Int16 | C::Int64 | C::Vector16 => {}
                    C::Float64 => {} // reported where a double is used
                    C::Float16 | C::Float16Buffer => {}
                    C::GenericPointer => m.generic_pointers = true,
                    C::Groups => {} // spirv/groups.rs
                    // spirv/subgroup_ext.rs
                    C::GroupNonUniform
                    | C::GroupNonUniformVote
                    | C::GroupNonUniformArithmetic
                    | C::GroupNonUniformBallot
                    | C::GroupNonUniformShuffle
                    | C::GroupNonUniformShuffleRelative
                    | C::GroupNonUniformClustered => {}
                    C::Int64Atomics => {} // compare-and-swap loops (pass::legalize64)
                    // SPV_KHR_float_controls: single-precision `DenormFlushToZero` is honoured
                    // (spirv/denormals.rs; other widths keep denormals, as OpenCL allows);
                    // preserving denormals, signed zeros, infinities and NaNs, and rounding to
                    // nearest even are what the device does anyway.
                    C::DenormFlushToZero | C::DenormPreserve | C::SignedZeroInfNanPreserve | C::RoundingModeRTE => {}
                    // Image code is reported where a kernel uses it (an unused helper is fine).
                    C::ImageBasic
                    | C::ImageReadWrite
                    | C::ImageMipmap
                    | C::LiteralSampler
                    | C::Sampled1D
                    | C::Image1D
                    | C::SampledBuffer
                    | C::ImageBuffer => {}
                    other => return Err(CompileError::unsupported(&format!("SPIR-V capability {other:?}"))),
                }
            }
        }
        match spv.memory_model.as_ref().and_then(|mm| mm.operands.first()) {
            Some(Operand::AddressingModel(spirv::AddressingModel::Physical32)) => {}
            // 64-bit pointers in memory (the device's `CL_DEVICE_ADDRESS_BITS`): addresses stay
            // 32-bit values, stored as 8 bytes with a zero upper half (see `types::Types`).
            Some(Operand::AddressingModel(spirv::AddressingModel::Physical64)) => m.types.wide_pointers = true,
            Some(Operand::AddressingModel(a)) => {
                return Err(CompileError::unsupported(&format!(
                    "addressing model {a:?} (Ventus takes Physical32 or Physical64)"
                )))
            }
            _ => return Err(invalid("missing OpMemoryModel")),
        }
        for e in &spv.ext_inst_imports {
            if let (Some(id), Some(Operand::LiteralString(name))) = (e.result_id, e.operands.first()) {
                if name == "OpenCL.std" {
                    m.opencl_std = Some(id);
                }
            }
        }
        for d in &spv.debug_names {
            if let (Ok(id), Some(Operand::LiteralString(n))) = (id_operand(d, 0), d.operands.get(1)) {
                if d.class.opcode == Op::Name {
                    m.names.insert(id, n.clone());
                }
            }
        }
        for d in &spv.debug_string_source {
            if d.class.opcode == Op::String {
                if let Some(Operand::LiteralString(s)) = d.operands.first() {
                    m.strings.push(s.clone());
                    if let Some(id) = d.result_id {
                        m.string_ids.insert(id, s.clone());
                    }
                }
            }
        }
        for a in &spv.annotations {
            if a.class.opcode == Op::Decorate {
                let target = id_operand(a, 0)?;
                if let Some(Operand::Decoration(d)) = a.operands.get(1) {
                    m.decorations.entry(target).or_default().push((*d, a.operands[2..].to_vec()));
                }
            }
        }
        for e in &spv.entry_points {
            if let (
                Some(Operand::ExecutionModel(spirv::ExecutionModel::Kernel)),
                Ok(f),
                Some(Operand::LiteralString(n)),
            ) = (e.operands.first(), id_operand(e, 1), e.operands.get(2))
            {
                let iface = e.operands[3..]
                    .iter()
                    .filter_map(|o| if let Operand::IdRef(x) = o { Some(*x) } else { None })
                    .collect();
                m.entry_points.push((f, n.clone(), iface));
            }
        }
        for e in &spv.execution_modes {
            if let (Ok(f), Some(Operand::ExecutionMode(mode))) = (id_operand(e, 0), e.operands.get(1)) {
                let lits = e.operands[2..]
                    .iter()
                    .filter_map(|o| if let Operand::LiteralBit32(x) = o { Some(*x) } else { None })
                    .collect();
                m.execution_modes.push((f, *mode, lits));
            }
        }
        for i in &spv.types_global_values {
            m.scan_global(i)?;
        }
        for i in spec_ops {
            let r = i.result_id.ok_or(invalid("constant without id"))?;
            m.constants.remove(&r);
            m.spec_ops.insert(r, i);
        }
        for f in &spv.functions {
            let def = f.def.as_ref().ok_or(invalid("function without OpFunction"))?;
            let id = def.result_id.ok_or(invalid("function without id"))?;
            for p in &f.parameters {
                if let (Some(r), Some(t)) = (p.result_id, p.result_type) {
                    m.id_types.insert(r, t);
                }
            }
            for b in &f.blocks {
                for i in &b.instructions {
                    if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                        m.id_types.insert(r, t);
                    }
                }
            }
            m.functions.insert(id, f.clone());
        }
        Ok(m)
    }

    /// A composite type may only use types declared before it (so the type graph has no cycles
    /// apart from pointers, whose pointee is never walked), and vectors have 2, 3, 4, 8 or 16
    /// scalar components.
    fn check_type(&self, t: &SType) -> Result<(), CompileError> {
        let defined =
            |id: u32| self.types.map.get(&id).ok_or(invalid(format!("type %{id} used before it is declared")));
        match t {
            SType::Vector { elem, count } => {
                if !matches!(defined(*elem)?, SType::Int { .. } | SType::Float { .. } | SType::Bool) {
                    return Err(invalid("a vector of non-scalar components".to_string()));
                }
                if ![2, 3, 4, 8, 16].contains(count) {
                    return Err(invalid(format!("a vector of {count} components")));
                }
            }
            SType::Array { elem, .. } | SType::RuntimeArray { elem } => {
                defined(*elem)?;
            }
            SType::Struct { members, .. } => {
                for m in members {
                    defined(*m)?;
                }
            }
            SType::Int { width, .. } if ![8, 16, 32, 64].contains(width) => {
                return Err(invalid(format!("a {width}-bit integer type")));
            }
            SType::Float { width } if ![16, 32, 64].contains(width) => {
                return Err(invalid(format!("a {width}-bit float type")));
            }
            _ => {}
        }
        Ok(())
    }

    fn scan_global(&mut self, i: &Instruction) -> Result<(), CompileError> {
        let r = i.result_id;
        let t = match i.class.opcode {
            Op::TypeVoid => Some(SType::Void),
            Op::TypeBool => Some(SType::Bool),
            Op::TypeInt => Some(SType::Int { width: lit_operand(i, 0)?, signed: lit_operand(i, 1)? != 0 }),
            Op::TypeFloat => Some(SType::Float { width: lit_operand(i, 0)? }),
            Op::TypeVector => Some(SType::Vector { elem: id_operand(i, 0)?, count: lit_operand(i, 1)? }),
            Op::TypeArray => {
                let len_id = id_operand(i, 1)?;
                let len = self.constant_u64(len_id)? as u32;
                Some(SType::Array { elem: id_operand(i, 0)?, len })
            }
            Op::TypeRuntimeArray => Some(SType::RuntimeArray { elem: id_operand(i, 0)? }),
            Op::TypeStruct => {
                let members = (0..i.operands.len()).map(|k| id_operand(i, k)).collect::<Result<_, _>>()?;
                let packed = r.is_some_and(|r| self.has_decoration(r, Decoration::CPacked));
                Some(SType::Struct { members, packed })
            }
            Op::TypePointer => {
                let sc = match i.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => return Err(invalid("OpTypePointer without storage class")),
                };
                // Generic pointers are reported when used; keep the type for scanning.
                let space = space_of(sc).unwrap_or(Space::Global);
                Some(SType::Pointer { space, pointee: id_operand(i, 1)? })
            }
            Op::TypeFunction => Some(SType::Function),
            Op::TypeEvent => Some(SType::Opaque("event_t")),
            Op::TypeImage => Some(image::image_type(i)?),
            Op::TypeSampledImage => Some(SType::SampledImage { image: id_operand(i, 0)? }),
            Op::TypeSampler => Some(SType::Sampler),
            Op::TypePipe | Op::TypeReserveId => Some(SType::Opaque("pipes")),
            Op::TypeQueue | Op::TypeDeviceEvent => Some(SType::Opaque("device-side enqueue")),
            Op::TypeOpaque => Some(SType::Opaque("opaque types")),
            Op::TypeForwardPointer => {
                // A pointer type declared ahead of its OpTypePointer so that a structure can
                // point to its own type (`struct Node { ...; struct Node *next; }`): a pointer
                // of that storage class is all the structure's layout needs; the OpTypePointer
                // that follows replaces this placeholder before any code uses the pointee.
                let id = id_operand(i, 0)?;
                let sc = match i.operands.get(1) {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => return Err(invalid("OpTypeForwardPointer without storage class")),
                };
                let space = space_of(sc).unwrap_or(Space::Global);
                self.types.map.insert(id, SType::Pointer { space, pointee: id });
                return Ok(());
            }
            _ => None,
        };
        if let Some(t) = t {
            let r = r.ok_or(invalid("type without id"))?;
            self.check_type(&t)?;
            self.types.map.insert(r, t);
            return Ok(());
        }
        match i.class.opcode {
            Op::Constant
            | Op::ConstantTrue
            | Op::ConstantFalse
            | Op::ConstantComposite
            | Op::ConstantNull
            | Op::Undef
            | Op::SpecConstant
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstantComposite
            | Op::ConstantSampler => {
                let r = r.ok_or(invalid("constant without id"))?;
                if let Some(t) = i.result_type {
                    self.id_types.insert(r, t);
                }
                self.constants.insert(r, i.clone());
            }
            // Replaced by `OpUndef` before parsing (`extract_spec_constant_ops`): not reached.
            Op::SpecConstantOp => return Err(invalid("OpSpecConstantOp")),
            Op::Variable => {
                let r = r.ok_or(invalid("variable without id"))?;
                let ty = i.result_type.ok_or(invalid("variable without type"))?;
                self.id_types.insert(r, ty);
                let sc = match i.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => return Err(invalid("OpVariable without storage class")),
                };
                let (_, pointee) = self.types.pointee(ty)?;
                let builtin = self.decorations.get(&r).and_then(|ds| {
                    ds.iter().find_map(|(d, ops)| match (d, ops.first()) {
                        (Decoration::BuiltIn, Some(Operand::BuiltIn(b))) => Some(*b),
                        _ => None,
                    })
                });
                let initializer = id_operand(i, 1).ok();
                let space = if sc == StorageClass::Input { Space::Private } else { space_of(sc)? };
                self.check_variable_size(r, space, pointee)?;
                self.globals.insert(r, Global { space, pointee, initializer, builtin });
            }
            Op::Line | Op::NoLine | Op::ExtInst | Op::String => {}
            other => return Err(invalid(format!("unexpected {other:?} at module scope"))),
        }
        Ok(())
    }

    /// A program-scope `global` or `constant` variable larger than the device takes fails the
    /// build as soon as the module is read, naming the variable and the limit — before its
    /// initializer (possibly millions of constants) is looked at.
    fn check_variable_size(&self, id: u32, space: Space, pointee: u32) -> Result<(), CompileError> {
        let (limit, what, query) = match space {
            Space::Global => (globals::MAX_VARIABLE_SIZE, "variable", "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE"),
            Space::Constant => (crate::abi::MAX_CONSTANT_BYTES, "constant", "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE"),
            _ => return Ok(()),
        };
        let size = self.types.size(pointee)?;
        if size <= limit {
            return Ok(());
        }
        let name = self.names.get(&id).cloned().unwrap_or_else(|| format!("%{id}"));
        Err(CompileError::Resources(format!("program-scope {what} `{name}` has {size} bytes ({query} is {limit})")))
    }

    /// The `LinkageAttributes` name of an id, if decorated.
    pub fn linkage_name(&self, id: u32) -> Option<String> {
        self.decorations.get(&id)?.iter().find_map(|(d, ops)| match (d, ops.first()) {
            (Decoration::LinkageAttributes, Some(Operand::LiteralString(n))) => Some(n.clone()),
            _ => None,
        })
    }

    /// Every function this module exports with a body, by name.
    pub fn exports(&self) -> HashMap<String, u32> {
        let mut out = HashMap::new();
        for (id, f) in &self.functions {
            if f.blocks.is_empty() {
                continue;
            }
            for (d, ops) in self.decorations.get(id).into_iter().flatten() {
                if let (
                    Decoration::LinkageAttributes,
                    Some(Operand::LiteralString(n)),
                    Some(Operand::LinkageType(spirv::LinkageType::Export)),
                ) = (d, ops.first(), ops.get(1))
                {
                    out.insert(n.clone(), *id);
                }
            }
        }
        out
    }

    /// Every symbol this module defines for other modules (functions with a body, variables;
    /// `LinkageAttributes … Export`), sorted.
    pub fn defined_symbols(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .decorations
            .iter()
            .filter(|(id, _)| {
                self.functions.get(id).is_some_and(|f| !f.blocks.is_empty()) || self.globals.contains_key(id)
            })
            .flat_map(|(_, ds)| ds)
            .filter_map(|(d, ops)| match (d, ops.first(), ops.get(1)) {
                (
                    Decoration::LinkageAttributes,
                    Some(Operand::LiteralString(n)),
                    Some(Operand::LinkageType(spirv::LinkageType::Export)),
                ) => Some(n.clone()),
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    /// Whether the module declares a 64-bit float type (and so needs the soft-double library).
    pub fn uses_double(&self) -> bool {
        self.types.map.values().any(|t| *t == SType::Float { width: 64 })
    }

    /// Whether the module reads, samples or writes an image (work for the image library; the
    /// size and format queries are descriptor loads and need none).
    pub fn uses_images(&self) -> bool {
        self.types.map.values().any(|t| matches!(t, SType::Image { .. }))
            && self
                .functions
                .values()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.instructions)
                .any(|i| matches!(i.class.opcode, Op::ImageRead | Op::ImageWrite | Op::ImageSampleExplicitLod))
    }

    /// The function this module exports under `name`.
    pub fn exported(&self, name: &str) -> Option<u32> {
        self.functions.iter().find_map(|(id, f)| {
            let export = self.decorations.get(id)?.iter().any(|(d, ops)| {
                *d == Decoration::LinkageAttributes
                    && matches!(ops.first(), Some(Operand::LiteralString(n)) if n == name)
                    && matches!(ops.get(1), Some(Operand::LinkageType(spirv::LinkageType::Export)))
            });
            (export && !f.blocks.is_empty()).then_some(*id)
        })
    }

    pub fn has_decoration(&self, id: u32, d: Decoration) -> bool {
        self.decorations.get(&id).is_some_and(|ds| ds.iter().any(|(x, _)| *x == d))
    }

    /// The value of an integer constant.
    pub fn constant_u64(&self, id: u32) -> Result<u64, CompileError> {
        let c = self.constants.get(&id).ok_or(invalid(format!("%{id} is not a constant")))?;
        match c.class.opcode {
            Op::Constant | Op::SpecConstant => match c.operands.first() {
                Some(Operand::LiteralBit32(x)) => Ok(*x as u64),
                Some(Operand::LiteralBit64(x)) => Ok(*x),
                _ => Err(invalid("constant without a literal")),
            },
            Op::ConstantNull => Ok(0),
            _ => Err(invalid(format!("%{id} is not an integer constant"))),
        }
    }

    /// Bytes of a constant of type `ty` (for `.rodata` initialisers).
    pub fn constant_bytes(&self, id: u32, ty: u32, out: &mut Vec<u8>) -> Result<(), CompileError> {
        self.constant_bytes_in(id, ty, out, None)
    }

    /// As [`Module::constant_bytes`]; with `relocs`, a component that is an address inside a
    /// program-scope `global` or `constant` variable ([`Module::const_address`]) becomes a zero
    /// word recorded as (position in `out`, variable, byte offset) for the caller to resolve.
    fn constant_bytes_in(
        &self,
        id: u32,
        ty: u32,
        out: &mut Vec<u8>,
        mut relocs: Option<&mut Vec<(u32, u32, i32)>>,
    ) -> Result<(), CompileError> {
        let start = out.len();
        let size = self.types.size(ty)? as usize;
        if let Some((var, addend)) = self.const_address(id)? {
            let g = &self.globals[&var];
            return match (g.space, relocs) {
                // The address word (and, for an 8-byte pointer, its zero upper half).
                (Space::Global | Space::Constant, Some(r))
                    if g.builtin.is_none() && size as u32 == self.types.pointer_bytes() =>
                {
                    r.push((start as u32, var, addend as i32));
                    out.resize(start + size, 0);
                    Ok(())
                }
                (Space::Global | Space::Constant, Some(_)) => {
                    Err(invalid(format!("pointer initializer %{id} of the wrong size")))
                }
                _ => Err(CompileError::unsupported(
                    "a program-scope pointer initialized with the address of a `local` or private variable",
                )),
            };
        }
        let c = self.constants.get(&id).ok_or(invalid(format!("initializer %{id} is not a constant")))?;
        match (c.class.opcode, self.types.get(ty)?.clone()) {
            (Op::ConstantNull | Op::Undef, _) => out.resize(start + size, 0),
            (Op::ConstantTrue | Op::SpecConstantTrue, _) => out.push(1),
            (Op::ConstantFalse | Op::SpecConstantFalse, _) => out.push(0),
            (Op::Constant | Op::SpecConstant, _) => {
                let v = self.constant_u64(id)?;
                out.extend_from_slice(&v.to_le_bytes()[..size.min(8)]);
            }
            (Op::ConstantComposite | Op::SpecConstantComposite, SType::Struct { members, .. }) => {
                let offs = self.types.member_offsets(ty)?;
                for (k, (m, o)) in members.iter().zip(offs).enumerate() {
                    out.resize(start + o as usize, 0);
                    self.constant_bytes_in(id_operand(c, k)?, *m, out, relocs.as_deref_mut())?;
                }
            }
            (
                Op::ConstantComposite | Op::SpecConstantComposite,
                SType::Vector { elem, .. } | SType::Array { elem, .. },
            ) => {
                let stride = if matches!(self.types.get(ty)?, SType::Vector { .. }) {
                    self.types.size(elem)?
                } else {
                    self.types.stride(elem)?
                };
                for k in 0..c.operands.len() {
                    out.resize(start + k * stride as usize, 0);
                    self.constant_bytes_in(id_operand(c, k)?, elem, out, relocs.as_deref_mut())?;
                }
            }
            (op, t) => return Err(invalid(format!("cannot serialise constant {op:?} of {t:?}"))),
        }
        out.resize(start + size, 0);
        Ok(())
    }

    /// Lays out every defined `UniformConstant` variable (program-scope constants, string
    /// literals) for `.rodata`; imports (`extern constant`) are another module's.
    pub fn const_data(&self) -> Result<ConstData, CompileError> {
        let mut d = ConstData::default();
        let mut ids: Vec<_> = self
            .globals
            .iter()
            .filter(|(id, g)| g.space == Space::Constant && !self.is_import(**id))
            .map(|(k, _)| *k)
            .collect();
        ids.sort();
        for id in ids {
            let g = &self.globals[&id];
            let align = self.types.align(g.pointee)?.max(4) as usize;
            let off = d.bytes.len().next_multiple_of(align);
            d.bytes.resize(off, 0);
            match g.initializer {
                Some(init) => self.constant_bytes_in(init, g.pointee, &mut d.bytes, Some(&mut d.relocs))?,
                None => d.bytes.resize(off + self.types.size(g.pointee)? as usize, 0),
            }
            d.offsets.insert(id, off as u32);
        }
        Ok(d)
    }

    /// A signed integer constant (sign-extended from its width).
    fn constant_i64(&self, id: u32) -> Result<i64, CompileError> {
        let v = self.constant_u64(id)?;
        let ty = self.constants.get(&id).and_then(|c| c.result_type).ok_or(invalid("constant without type"))?;
        Ok(match self.types.get(ty)? {
            SType::Int { width, .. } if *width < 64 => ((v << (64 - width)) as i64) >> (64 - width),
            _ => v as i64,
        })
    }

    /// A constant address: `id` is a module-scope variable, or an `OpSpecConstantOp` bitcast or
    /// access chain with constant indices over one (how llvm-spirv writes `&table[2]` in an
    /// initializer). Returns the variable and the byte offset from it; `None` for anything else.
    pub fn const_address(&self, id: u32) -> Result<Option<(u32, i64)>, CompileError> {
        self.const_address_at(id, 0)
    }

    fn const_address_at(&self, id: u32, depth: u32) -> Result<Option<(u32, i64)>, CompileError> {
        if self.globals.contains_key(&id) {
            return Ok(Some((id, 0)));
        }
        let Some(i) = self.spec_ops.get(&id) else { return Ok(None) };
        if depth > 64 {
            return Err(invalid("OpSpecConstantOp nested too deeply"));
        }
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = i.operands.first() else {
            return Err(invalid("OpSpecConstantOp without an opcode"));
        };
        let base_id = id_operand(i, 1)?;
        let Some((var, mut off)) = self.const_address_at(base_id, depth + 1)? else { return Ok(None) };
        let mut k = 2;
        let mut cur = match op {
            Op::Bitcast => return Ok(Some((var, off))),
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
                let bty = *self.id_types.get(&base_id).ok_or(invalid("access-chain base without type"))?;
                self.types.pointee(bty)?.1
            }
            _ => return Ok(None),
        };
        if matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
            off += self.constant_i64(id_operand(i, 2)?)? * self.types.stride(cur)? as i64;
            k = 3;
        }
        while k < i.operands.len() {
            let idx = id_operand(i, k)?;
            match self.types.get(cur)?.clone() {
                SType::Struct { members, .. } => {
                    let m = self.constant_u64(idx)? as usize;
                    off += *self.types.member_offsets(cur)?.get(m).ok_or(invalid("struct index out of range"))? as i64;
                    cur = members[m];
                }
                SType::Array { elem, .. } | SType::RuntimeArray { elem } => {
                    off += self.constant_i64(idx)? * self.types.stride(elem)? as i64;
                    cur = elem;
                }
                SType::Vector { elem, .. } => {
                    off += self.constant_i64(idx)? * self.types.size(elem)? as i64;
                    cur = elem;
                }
                other => return Err(invalid(format!("access chain into {other:?}"))),
            }
            k += 1;
        }
        Ok(Some((var, off)))
    }

    /// Whether variable `id` is an import (`extern global int x;`, defined by another module).
    pub fn is_import(&self, id: u32) -> bool {
        self.decorations.get(&id).is_some_and(|ds| {
            ds.iter().any(|(d, ops)| {
                *d == Decoration::LinkageAttributes
                    && matches!(ops.get(1), Some(Operand::LinkageType(spirv::LinkageType::Import)))
            })
        })
    }

    /// The defined program-scope variable of `space` this module exports under `name`.
    pub fn exported_var(&self, name: &str, space: Space) -> Option<u32> {
        self.globals.iter().find_map(|(id, g)| {
            (g.space == space
                && g.builtin.is_none()
                && !self.is_import(*id)
                && self.linkage_name(*id).as_deref() == Some(name))
            .then_some(*id)
        })
    }

    /// Lays out every defined program-scope `global` variable (in id order) for the globals
    /// block; a variable larger than [`globals::MAX_VARIABLE_SIZE`] is a build error.
    pub fn global_data(&self) -> Result<GlobalData, CompileError> {
        let mut d = GlobalData::default();
        let mut ids: Vec<_> = self
            .globals
            .iter()
            .filter(|(id, g)| g.space == Space::Global && g.builtin.is_none() && !self.is_import(**id))
            .map(|(k, _)| *k)
            .collect();
        ids.sort();
        for id in ids {
            let g = &self.globals[&id];
            let size = self.types.size(g.pointee)?;
            if size > globals::MAX_VARIABLE_SIZE {
                let name = self.names.get(&id).cloned().unwrap_or_else(|| format!("%{id}"));
                return Err(CompileError::Resources(format!(
                    "program-scope variable `{name}` has {size} bytes (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE is {})",
                    globals::MAX_VARIABLE_SIZE
                )));
            }
            let align = self.types.align(g.pointee)?.max(4) as usize;
            let off = d.bytes.len().next_multiple_of(align);
            d.bytes.resize(off, 0);
            match g.initializer {
                Some(init) => self.constant_bytes_in(init, g.pointee, &mut d.bytes, Some(&mut d.relocs))?,
                None => d.bytes.resize(off + size as usize, 0),
            }
            d.offsets.insert(id, off as u32);
        }
        Ok(d)
    }

    /// Argument reflection for kernel `name` (entry function `f`).
    fn kernel_info(
        &self,
        name: &str,
        f: &dr::Function,
        local_bytes: u32,
        private_bytes: u32,
    ) -> Result<KernelInfo, CompileError> {
        let type_names = self.kernel_strings("kernel_arg_type", name);
        let quals = self.kernel_strings("kernel_arg_type_qual", name);
        let mut args = Vec::new();
        for (k, p) in f.parameters.iter().enumerate() {
            let id = p.result_id.ok_or(invalid("parameter without id"))?;
            let ty = p.result_type.ok_or(invalid("parameter without type"))?;
            let (kind, access) = match self.types.get(ty)? {
                SType::Image { access, .. } => (
                    kernel_info::ArgKind::Image,
                    match access {
                        1 => kernel_info::Access::WriteOnly,
                        2 => kernel_info::Access::ReadWrite,
                        _ => kernel_info::Access::ReadOnly,
                    },
                ),
                SType::Sampler => (kernel_info::ArgKind::Sampler, kernel_info::Access::None),
                _ => (kernel_info::ArgKind::Plain, kernel_info::Access::None),
            };
            let (space, size) = match self.types.get(ty)? {
                SType::Pointer { space, pointee } => {
                    if self.has_decoration(id, Decoration::FuncParamAttr) && self.is_byval(id) {
                        (AddressSpace::Private, self.types.size(*pointee)?)
                    } else {
                        let s = match space {
                            Space::Global => AddressSpace::Global,
                            Space::Constant => AddressSpace::Constant,
                            Space::Local => AddressSpace::Local,
                            Space::Private => AddressSpace::Private,
                            // Not a valid kernel argument type (clang rejects it).
                            Space::Generic => AddressSpace::Global,
                        };
                        (s, 4)
                    }
                }
                // A sampler argument is a 32-bit word of sampler bits, an image argument the
                // address of its descriptor (`abi::image_desc`), in the global address space as
                // `CL_KERNEL_ARG_ADDRESS_QUALIFIER` reports it.
                SType::Sampler => (AddressSpace::Private, 4),
                SType::Image { .. } => (AddressSpace::Global, 4),
                SType::Opaque(what) => {
                    return Err(CompileError::unsupported(&format!("kernel arguments of type {what}")))
                }
                _ => (AddressSpace::Private, self.types.size(ty)?),
            };
            let q = quals.get(k).map(String::as_str).unwrap_or("");
            let mut tq = 0;
            for w in q.split_whitespace() {
                tq |= match w {
                    "const" => kernel_info::qualifier::CONST,
                    "restrict" => kernel_info::qualifier::RESTRICT,
                    "volatile" => kernel_info::qualifier::VOLATILE,
                    "pipe" => kernel_info::qualifier::PIPE,
                    _ => 0,
                };
            }
            args.push(ArgInfo {
                name: self.names.get(&id).cloned().unwrap_or_default(),
                type_name: type_names.get(k).cloned().unwrap_or_default(),
                address_space: space,
                access,
                type_qualifiers: tq,
                size,
                kind,
            });
        }
        let mut info = KernelInfo { name: name.to_string(), args, local_bytes, private_bytes, ..Default::default() };
        let fid = f.def.as_ref().and_then(|d| d.result_id).unwrap_or(0);
        let mut attrs = Vec::new();
        for (target, mode, lits) in &self.execution_modes {
            if *target != fid {
                continue;
            }
            match mode {
                spirv::ExecutionMode::LocalSize if lits.len() == 3 => {
                    info.reqd_work_group_size = Some([lits[0], lits[1], lits[2]]);
                    attrs.push(format!("reqd_work_group_size({},{},{})", lits[0], lits[1], lits[2]));
                }
                spirv::ExecutionMode::LocalSizeHint if lits.len() == 3 => {
                    info.work_group_size_hint = Some([lits[0], lits[1], lits[2]]);
                    attrs.push(format!("work_group_size_hint({},{},{})", lits[0], lits[1], lits[2]));
                }
                spirv::ExecutionMode::VecTypeHint if !lits.is_empty() => {
                    info.vec_type_hint = vec_type_hint(lits[0]);
                    attrs.push(format!("vec_type_hint({})", info.vec_type_hint));
                }
                _ => {}
            }
        }
        info.attributes = attrs.join(" ");
        Ok(info)
    }

    fn is_byval(&self, id: u32) -> bool {
        self.decorations.get(&id).is_some_and(|ds| {
            ds.iter().any(|(d, ops)| {
                *d == Decoration::FuncParamAttr
                    && matches!(
                        ops.first(),
                        Some(Operand::FunctionParameterAttribute(spirv::FunctionParameterAttribute::ByVal))
                    )
            })
        })
    }

    /// Splits `"<prefix>.<kernel>.a,b,c,"` into its items.
    fn kernel_strings(&self, prefix: &str, kernel: &str) -> Vec<String> {
        let head = format!("{prefix}.{kernel}.");
        self.strings
            .iter()
            .find_map(|s| s.strip_prefix(&head))
            .map(|rest| {
                let mut v: Vec<String> = rest.split(',').map(str::to_string).collect();
                if v.last().is_some_and(|l| l.is_empty()) {
                    v.pop();
                }
                v
            })
            .unwrap_or_default()
    }
}

fn vec_type_hint(code: u32) -> String {
    let base = match code & 0xffff {
        0 => "char",
        1 => "short",
        2 => "int",
        3 => "long",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => "int",
    };
    let n = code >> 16;
    if n <= 1 {
        base.to_string()
    } else {
        format!("{base}{n}")
    }
}

/// Lowers every kernel of a SPIR-V module.
pub fn lower_module(words: &[u32]) -> Result<Program, CompileError> {
    // As in `compiler::compile_spirv_modules`: a panic on malformed input becomes an error.
    std::panic::catch_unwind(|| lower_modules(&[words.to_vec()]))
        .unwrap_or_else(|_| Err(CompileError::Internal("the compiler stopped on this input".into())))
}

/// Lowers the kernels of several modules linked together (imports resolved by name).
///
/// Each module's `.rodata` constants and `global` variables get their own region of the
/// program's combined `.rodata` and globals block (16-byte aligned module bases); an
/// `extern global` declaration resolves by linkage name to the variable another module exports.
/// The module (index in `all`) defining function `name` for export, and the function's id (one
/// at most: the link rejects a symbol defined twice).
pub(super) fn exporter(all: &[(Module, ConstData, u32)], name: &str) -> Option<(usize, u32)> {
    all.iter().enumerate().find_map(|(k, (m, _, _))| Some((k, m.exported(name)?)))
}

pub fn lower_modules(modules: &[Vec<u32>]) -> Result<Program, CompileError> {
    let mut all = Vec::new();
    let mut rodata = Vec::new();
    let mut gbytes = Vec::new();
    let mut gdata = Vec::new();
    let mut parsed = modules.iter().map(|w| Module::parse(w)).collect::<Result<Vec<_>, _>>()?;
    // One definition per symbol: two modules defining the same function or variable do not link.
    let mut defined = std::collections::HashSet::new();
    for name in parsed.iter().flat_map(Module::defined_symbols) {
        if !defined.insert(name.clone()) {
            return Err(CompileError::Duplicate(name));
        }
    }
    // `double` is computed by the soft-double library: link it in when a module needs it.
    if parsed.iter().any(|m| m.uses_double()) && !parsed.iter().any(|m| m.exported(F64Primitive::Add.name()).is_some())
    {
        let lib = crate::compiler::softlib::fp64_module()?;
        parsed.push(Module::parse(&lib)?);
    }
    // Images are read and written by the image library: link it in when a module declares one.
    if parsed.iter().any(|m| m.uses_images()) && !parsed.iter().any(|m| m.exported(image::LIBRARY_MARKER).is_some()) {
        let lib = crate::compiler::softlib::images_module()?;
        parsed.push(Module::parse(&lib)?);
    }
    for m in parsed {
        let consts = m.const_data()?;
        let base = rodata.len().next_multiple_of(16);
        rodata.resize(base, 0);
        rodata.extend_from_slice(&consts.bytes);
        let g = m.global_data()?;
        let gbase = if g.bytes.is_empty() { gbytes.len() } else { gbytes.len().next_multiple_of(16) };
        gbytes.resize(gbase, 0);
        gbytes.extend_from_slice(&g.bytes);
        gdata.push((g, gbase as u32));
        all.push((m, consts, base as u32));
    }
    if gbytes.len() > globals::MAX_TOTAL_SIZE as usize {
        return Err(CompileError::Resources(format!(
            "program-scope variables need {} bytes (limit {})",
            gbytes.len(),
            globals::MAX_TOTAL_SIZE
        )));
    }
    // Block offset of every program-scope `global` variable of every module, imports included.
    let mut global_offsets = HashMap::new();
    for (k, (m, _, _)) in all.iter().enumerate() {
        for (id, g) in &m.globals {
            if g.space != Space::Global || g.builtin.is_some() {
                continue;
            }
            let off = match gdata[k].0.offsets.get(id) {
                Some(off) => gdata[k].1 + off,
                None => {
                    let name = m.linkage_name(*id).unwrap_or_else(|| format!("%{id}"));
                    let found = all.iter().enumerate().find_map(|(j, (other, _, _))| {
                        (j != k).then(|| {
                            other.exported_var(&name, Space::Global).map(|v| gdata[j].1 + gdata[j].0.offsets[&v])
                        })?
                    });
                    match found {
                        Some(off) => off,
                        // Reported if a kernel uses it (an unused declaration is harmless).
                        None => continue,
                    }
                }
            };
            global_offsets.insert((k, *id), off);
        }
    }
    // Pointer-valued initialisers: block offsets (relocated by the runtime) or `.rodata`
    // offsets (relocated by the linker).
    let name_of = |k: usize, var: u32| all[k].0.linkage_name(var).unwrap_or_else(|| format!("%{var}"));
    let rodata_offset = |k: usize, var: u32| -> Result<u32, CompileError> {
        let (_, consts, base) = &all[k];
        if let Some(o) = consts.offsets.get(&var) {
            return Ok(base + o);
        }
        let name = name_of(k, var);
        all.iter()
            .enumerate()
            .find_map(|(j, (other, consts, base))| {
                (j != k).then(|| other.exported_var(&name, Space::Constant).map(|v| base + consts.offsets[&v]))?
            })
            .ok_or(CompileError::Unresolved(name))
    };
    let (mut relocs, mut globals_rodata_relocs, mut rodata_relocs) = (Vec::new(), Vec::new(), Vec::new());
    for (k, (g, gbase)) in gdata.iter().enumerate() {
        for &(pos, var, addend) in &g.relocs {
            let target = if all[k].0.globals[&var].space == Space::Constant {
                globals_rodata_relocs.push(gbase + pos);
                rodata_offset(k, var)?
            } else {
                relocs.push(gbase + pos);
                *global_offsets.get(&(k, var)).ok_or_else(|| CompileError::Unresolved(name_of(k, var)))?
            };
            let at = (gbase + pos) as usize;
            gbytes[at..at + 4].copy_from_slice(&target.wrapping_add(addend as u32).to_le_bytes());
        }
    }
    for (k, (m, consts, base)) in all.iter().enumerate() {
        for &(pos, var, addend) in &consts.relocs {
            if m.globals[&var].space != Space::Constant {
                return Err(CompileError::unsupported(
                    "the address of a program-scope global variable in the initializer of a `constant` variable",
                ));
            }
            let at = (base + pos) as usize;
            rodata[at..at + 4].copy_from_slice(&rodata_offset(k, var)?.wrapping_add(addend as u32).to_le_bytes());
            rodata_relocs.push(base + pos);
        }
    }
    let globals = globals::GlobalsImage { size: gbytes.len() as u32, init: gbytes, relocs };
    let mut kernels = Vec::new();
    let mut printf = crate::abi::printf::PrintfTable::default();
    for (k, (m, _, _)) in all.iter().enumerate() {
        for (fid, name, iface) in &m.entry_points {
            if kernels.iter().any(|x: &Kernel| x.info.name == *name) {
                return Err(CompileError::InvalidSpirv(format!("kernel `{name}` is defined twice")));
            }
            let f = m.functions.get(fid).ok_or(invalid(format!("entry point {name} has no function")))?;
            let g = lower::ProgramGlobals { offsets: &global_offsets, present: globals.size > 0 };
            let func = lower::lower_kernel(&all, k, *fid, name, iface, &g, &mut printf)?;
            let mut info = m.kernel_info(name, f, func.local_bytes, func.private_bytes)?;
            info.grouping_free = !crate::compiler::pass::workitems::observes_grouping(&func)
                && info.args.iter().all(|a| a.address_space != AddressSpace::Local);
            kernels.push(Kernel { func, info });
        }
    }
    // Every library subroutine reachable from the kernels, lowered once.
    let mut subs: Vec<(u8, Func)> = Vec::new();
    let mut todo: Vec<String> = kernels.iter().flat_map(|k| k.func.callees.clone()).collect();
    while let Some(name) = todo.pop() {
        if subs.iter().any(|(_, f)| f.name == name) {
            continue;
        }
        let level = crate::compiler::target::call::level_of(&name)
            .ok_or(CompileError::Internal(format!("call of {name}, which is not a subroutine")))?;
        let (k, fid) = exporter(&all, &name).ok_or(CompileError::Internal(format!("subroutine {name} missing")))?;
        let g = lower::ProgramGlobals { offsets: &global_offsets, present: globals.size > 0 };
        let f = lower::lower_subroutine(&all, k, fid, &name, level, &g)?;
        todo.extend(f.callees.iter().cloned());
        subs.push((level, f));
    }
    subs.sort_by_key(|(l, _)| *l);
    Ok(Program { kernels, rodata, globals, rodata_relocs, globals_rodata_relocs, printf, subs })
}
