//! Function translation: SPIR-V blocks → IR blocks, calls inlined, φs patched after all blocks of
//! a function are translated (their operands may be defined later along back edges).

use super::super::ir::*;
use super::super::CompileError;
use super::denormals;
use super::types::SType;
use super::{id_operand, invalid, ConstData, Module};
use crate::abi::lines::SOURCE_STRING_NAME;
use crate::abi::subroutine::F64Primitive;
use rspirv::dr::{Instruction, Operand};
use spirv::Op as S;
use std::collections::HashMap;

/// Maximum inlining depth (OpenCL forbids recursion; this catches it).
const MAX_DEPTH: usize = 64;
/// Largest kernel (IR values) the front end builds: beyond it, register allocation could not
/// succeed anyway and memory use would grow into gigabytes.
const MAX_VALUES: usize = 1_000_000;

/// The program's globals block as the kernels see it.
pub(super) struct ProgramGlobals<'m> {
    /// (module index, variable id) → byte offset in the block, for every `global` variable a
    /// module defines or imports from another module.
    pub offsets: &'m HashMap<(usize, u32), u32>,
    /// The program has a globals block: every kernel takes the hidden trailing argument
    /// ([`crate::abi::globals`]), even one that does not use it.
    pub present: bool,
}

pub(super) struct Lowerer<'m> {
    pub m: &'m Module,
    pub consts: &'m ConstData,
    /// Every module of the program (for calls to functions imported from another module), with
    /// their constant data and its offset in the combined `.rodata`.
    all: &'m [(Module, ConstData, u32)],
    /// Index of `m` in `all`, and its constant-data base.
    mod_idx: usize,
    const_base: u32,
    globals: &'m ProgramGlobals<'m>,
    /// The hidden globals-block argument, loaded in the prelude on first use.
    globals_base: Option<Value>,
    /// Its offset in the argument buffer (set by `lower_args` when the program has globals).
    globals_arg: Option<u32>,
    pub f: Func,
    /// Block 0: constants, arguments and work-item values, hoisted so they dominate everything.
    pub prelude: BlockId,
    const_cache: HashMap<(usize, u32), Vec<Value>>,
    wi_cache: HashMap<(WorkItem, u32), Value>,
    local_offsets: HashMap<u32, u32>,
    depth: usize,
    /// Current source location from `OpLine`, for error messages.
    pub line: Option<String>,
    /// The location of the call being inlined: what code without an `OpLine` of its own is
    /// attributed to (`SrcLoc::NONE` in the kernel itself). The current location is
    /// `self.f.loc`.
    call_loc: SrcLoc,
    /// printf call sites found in this kernel; their ids follow `printf_first_id`.
    pub printf_sites: Vec<crate::abi::printf::PrintfSite>,
    pub printf_first_id: u32,
    /// Top of the private-memory stack: an inlined call's variables live above the caller's and
    /// their space is reused once the call returns (`f.private_bytes` keeps the high-water mark).
    private_top: u32,
    /// Byte offset of the work-group/sub-group collectives' scratch in the static `__local`
    /// data, once a collective needs it (`spirv::groups`).
    pub(super) group_scratch: Option<u32>,
    /// Index in `all` of the soft-double library module (present when a module uses `double`),
    /// and its exported functions by name.
    lib: Option<usize>,
    lib_fns: HashMap<String, u32>,
    /// Call level of the function being built (0: kernel, 1 and 2: library subroutines, see
    /// `target::call`): library functions of a deeper level are called out of line.
    pub(super) level: u8,
    /// The float built-in being lowered computes a `half` one (`spirv::fp16`): its operands are
    /// halves widened to float, which lets the exact remainders take fewer reduction steps.
    pub half_operands: bool,
    /// The kernel flushes single-precision denormals (`DenormFlushToZero 32`, see
    /// [`super::denormals`]): set while its body is lowered.
    flush_f32: bool,
}

/// The alignment an `OpLoad`/`OpStore` guarantees through its `Aligned` memory operand (the
/// operand list starts at `k`), when that is less than natural.
fn aligned_operand(i: &Instruction, k: usize) -> Option<u32> {
    match (i.operands.get(k), i.operands.get(k + 1)) {
        (Some(Operand::MemoryAccess(m)), Some(Operand::LiteralBit32(a)))
            if m.contains(spirv::MemoryAccess::ALIGNED) && a.is_power_of_two() && *a < 8 =>
        {
            Some(*a)
        }
        _ => None,
    }
}

/// The alignment of a leaf at byte offset `off` from an `align`-aligned base.
fn leaf_align(align: u32, off: u32) -> u32 {
    if off == 0 {
        align
    } else {
        align.min(1 << off.trailing_zeros())
    }
}

/// The integer type of an aligned piece of `bytes` bytes.
fn piece_ty(bytes: u32) -> Ty {
    match bytes {
        1 => Ty::I8,
        2 => Ty::I16,
        _ => Ty::I32,
    }
}

/// Per-inlined-call state.
pub(super) struct Frame {
    pub(super) vals: HashMap<u32, Vec<Value>>,
    labels: HashMap<u32, BlockId>,
    /// IR predecessor blocks of each SPIR-V edge (from label, to label).
    edges: HashMap<(u32, u32), Vec<BlockId>>,
    phis: Vec<PendingPhi>,
    rets: Vec<(BlockId, Vec<Value>)>,
    cont: BlockId,
}

struct PendingPhi {
    block: BlockId,
    label: u32,
    results: Vec<Value>,
    incoming: Vec<(u32, u32)>,
}

pub(super) fn lower_kernel(
    all: &[(Module, ConstData, u32)],
    mod_idx: usize,
    fid: u32,
    name: &str,
    iface: &[u32],
    globals: &ProgramGlobals,
    printf: &mut crate::abi::printf::PrintfTable,
) -> Result<Func, CompileError> {
    let m = &all[mod_idx].0;
    let mut lw = Lowerer::new(all, mod_idx, name, globals, 0, printf.sites.len() as u32);
    // Static __local variables of this kernel, in interface order.
    for id in iface {
        if let Some(g) = m.globals.get(id) {
            if g.space == Space::Local {
                let align = m.types.align(g.pointee)?.max(4);
                let off = lw.f.local_bytes.next_multiple_of(align);
                lw.local_offsets.insert(*id, off);
                lw.f.local_bytes = off + m.types.size(g.pointee)?;
            }
        }
    }
    // `-cl-denorms-are-zero` (or a module asking for it): the kernel's float arithmetic,
    // inlined callees included, flushes single-precision denormals.
    lw.flush_f32 = m.execution_modes.iter().any(|(f, mode, lits)| {
        *f == fid && *mode == spirv::ExecutionMode::DenormFlushToZero && lits.first() == Some(&32)
    });
    let args = lw.lower_args(fid)?;
    let body = lw.f.new_block();
    lw.f.block_mut(BlockId(0)).term = Term::Br(body);
    let (exit, _) = lw.inline(fid, args, body)?;
    lw.f.block_mut(exit).term = Term::Ret;
    printf.sites.append(&mut lw.printf_sites);
    Ok(lw.f)
}

/// Lowers the library function `name` (module `mod_idx`, function `fid`) as an out-of-line
/// subroutine of call `level`: its arguments arrive as 32-bit words ([`Op::Param`]) and its
/// result leaves as words ([`Op::Return`]); `i64` values travel as (low, high) word pairs.
pub(super) fn lower_subroutine(
    all: &[(Module, ConstData, u32)],
    mod_idx: usize,
    fid: u32,
    name: &str,
    level: u8,
    globals: &ProgramGlobals,
) -> Result<Func, CompileError> {
    let m = &all[mod_idx].0;
    let mut lw = Lowerer::new(all, mod_idx, name, globals, level, 0);
    let func = m.functions.get(&fid).ok_or(invalid("subroutine missing"))?;
    let mut word = 0u32;
    let mut args = Vec::new();
    for p in &func.parameters {
        let t = m.types.scalar(p.result_type.ok_or(invalid("parameter without type"))?)?;
        let b = lw.prelude;
        let v = match t {
            Ty::I64 => {
                let lo = lw.f.push(b, Ty::I32, Op::Param(word));
                let hi = lw.f.push(b, Ty::I32, Op::Param(word + 1));
                word += 2;
                lw.join64(b, lo, hi)
            }
            Ty::I32 | Ty::F32 => {
                word += 1;
                lw.f.push(b, t, Op::Param(word - 1))
            }
            other => return Err(CompileError::Internal(format!("subroutine {name}: parameter of type {other:?}"))),
        };
        args.push(vec![v]);
    }
    let body = lw.f.new_block();
    lw.f.block_mut(BlockId(0)).term = Term::Br(body);
    let (exit, ret) = lw.inline(fid, args, body)?;
    let mut words = Vec::new();
    for v in ret {
        words.extend(lw.split64(exit, v));
    }
    lw.f.push_void(exit, Op::Return(words));
    lw.f.block_mut(exit).term = Term::Ret;
    Ok(lw.f)
}

impl<'m> Lowerer<'m> {
    /// A translator for function `name` of module `mod_idx` at call `level` (0: kernel), whose
    /// printf call sites get ids from `printf_first_id`.
    fn new(
        all: &'m [(Module, ConstData, u32)],
        mod_idx: usize,
        name: &str,
        globals: &'m ProgramGlobals<'m>,
        level: u8,
        printf_first_id: u32,
    ) -> Lowerer<'m> {
        let (m, consts, const_base) = (&all[mod_idx].0, &all[mod_idx].1, all[mod_idx].2);
        let mut lw = Lowerer {
            m,
            consts,
            all,
            mod_idx,
            const_base,
            globals,
            globals_base: None,
            globals_arg: None,
            f: Func::new(name),
            prelude: BlockId(0),
            const_cache: HashMap::new(),
            wi_cache: HashMap::new(),
            local_offsets: HashMap::new(),
            depth: 0,
            line: None,
            call_loc: SrcLoc::NONE,
            printf_sites: Vec::new(),
            printf_first_id,
            private_top: 0,
            group_scratch: None,
            lib: None,
            lib_fns: HashMap::new(),
            level,
            half_operands: false,
            flush_f32: false,
        };
        lw.find_lib();
        lw
    }

    /// Finds the soft-double library among the program's modules.
    fn find_lib(&mut self) {
        if let Some(k) = self.all.iter().position(|(m, _, _)| m.exported(F64Primitive::Add.name()).is_some()) {
            self.lib = Some(k);
            self.lib_fns = self.all[k].0.exports();
        }
    }

    /// `lo | hi << 32` as an `i64`.
    fn join64(&mut self, b: BlockId, lo: Value, hi: Value) -> Value {
        let l = self.f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, lo));
        let h = self.f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, hi));
        let k = self.const_val(Ty::I64, 32);
        let h = self.f.push(b, Ty::I64, Op::Bin(BinOp::Shl, h, k));
        self.f.push(b, Ty::I64, Op::Bin(BinOp::Or, l, h))
    }

    /// The 32-bit words of a subroutine argument or result (`i64`: low, high).
    fn split64(&mut self, b: BlockId, v: Value) -> Vec<Value> {
        match self.f.ty(v) {
            Ty::I64 => {
                let lo = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, v));
                let k = self.const_val(Ty::I64, 32);
                let h = self.f.push(b, Ty::I64, Op::Bin(BinOp::ShrL, v, k));
                vec![lo, self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, h))]
            }
            Ty::I1 | Ty::I8 | Ty::I16 => vec![self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, v))],
            _ => vec![v],
        }
    }

    /// Whether a call of library function `name` from here is made out of line.
    fn out_of_line(&self, name: &str) -> bool {
        crate::compiler::target::call::level_of(name)
            .is_some_and(|l| crate::compiler::target::call::may_call(self.level, l))
            && !crate::compiler::env::CompilerEnv::get().inline_subroutines
    }

    /// An out-of-line call of library function `name` (its result: one value, `i64` rebuilt from
    /// two words).
    fn call_sub(&mut self, b: BlockId, name: &str, args: &[Value]) -> Result<Value, CompileError> {
        // The soft-double library's routines by its export map; a hook by the module defining it.
        let found = self.lib.zip(self.lib_fns.get(name).copied()).or_else(|| super::exporter(self.all, name));
        let Some((k, fid)) = found else {
            return Err(CompileError::Internal(format!("library function {name} missing")));
        };
        let lib = &self.all[k].0;
        let def =
            lib.functions.get(&fid).and_then(|f| f.def.as_ref()).ok_or(invalid("library function without def"))?;
        let rt = lib.types.scalar(def.result_type.ok_or(invalid("function without type"))?)?;
        let mut words = Vec::new();
        for a in args {
            words.extend(self.split64(b, *a));
        }
        if words.len() > crate::compiler::target::call::MAX_WORDS {
            return Err(CompileError::Internal(format!("{name}: too many argument words")));
        }
        let sub = self.f.callee(name);
        let first_ty = if rt == Ty::F32 { Ty::F32 } else { Ty::I32 };
        let r0 = self.f.push(b, first_ty, Op::Call { sub, args: words });
        Ok(match rt {
            Ty::I64 => {
                let r1 = self.f.push(b, Ty::I32, Op::CallRes(r0, 1));
                self.join64(b, r0, r1)
            }
            _ => r0,
        })
    }

    pub fn err(&self, what: &str) -> CompileError {
        CompileError::Unsupported { construct: what.to_string(), location: self.line.clone() }
    }

    /// Loads the kernel parameters from the argument buffer ([`crate::abi::launch::ArgLayout`]).
    fn lower_args(&mut self, fid: u32) -> Result<Vec<Vec<Value>>, CompileError> {
        let f = self.m.functions.get(&fid).ok_or(invalid("kernel function missing"))?;
        let params: Vec<(u32, u32)> =
            f.parameters.iter().map(|p| (p.result_id.unwrap_or(0), p.result_type.unwrap_or(0))).collect();
        let mut layout = crate::abi::launch::ArgLayout::default();
        let mut out = Vec::new();
        for (id, ty) in params {
            match self.m.types.get(ty)?.clone() {
                SType::Pointer { space, pointee } if self.m.is_byval(id) => {
                    // By-value struct: copy it from the argument buffer into private memory.
                    let size = self.m.types.size(pointee)?;
                    let off = layout.value(size);
                    let slot = self.alloc_private(size.next_multiple_of(4), 4);
                    let dst = self.f.push(self.prelude, Ty::Ptr(Space::Private), Op::PrivateAddr { offset: slot });
                    for k in (0..size).step_by(4) {
                        let w = self.f.push(self.prelude, Ty::I32, Op::ArgWord { offset: off + k });
                        let a = self.offset_ptr(self.prelude, dst, k);
                        self.f.push_void(self.prelude, Op::Store { ptr: a, value: w });
                    }
                    let _ = space;
                    out.push(vec![dst]);
                }
                SType::Pointer { space, .. } => {
                    let off = layout.pointer();
                    let v = self.f.push(self.prelude, Ty::Ptr(space), Op::ArgWord { offset: off });
                    out.push(vec![v]);
                }
                SType::Sampler => {
                    // Its word (see `Module::kernel_info`).
                    let off = layout.value(4);
                    out.push(vec![self.f.push(self.prelude, Ty::I32, Op::ArgWord { offset: off })]);
                }
                SType::Image { .. } => {
                    // The descriptor's address, passed like a buffer.
                    let off = layout.pointer();
                    out.push(vec![self.f.push(self.prelude, Ty::Ptr(Space::Global), Op::ArgWord { offset: off })]);
                }
                SType::Opaque(what) => return Err(self.err(&format!("kernel arguments of type {what}"))),
                _ => {
                    let size = self.m.types.size(ty)?;
                    let off = layout.value(size);
                    let mut vals = Vec::new();
                    for (lo, lt) in self.m.types.leaves(ty)? {
                        vals.push(self.f.push(self.prelude, lt, Op::ArgWord { offset: off + lo }));
                    }
                    out.push(vals);
                }
            }
        }
        if self.globals.present {
            self.globals_arg = Some(crate::abi::globals::hidden_arg_offset(layout.end()));
        }
        Ok(out)
    }

    pub fn alloc_private(&mut self, size: u32, align: u32) -> u32 {
        let reserved = if self.m.generic_pointers { 4 } else { 0 };
        let off = self.private_top.max(reserved).next_multiple_of(align.max(1));
        self.private_top = off + size;
        self.f.private_bytes = self.f.private_bytes.max(self.private_top);
        off
    }

    /// `ptr + k` (k constant), as a pointer of the same space.
    pub fn offset_ptr(&mut self, b: BlockId, ptr: Value, k: u32) -> Value {
        if k == 0 {
            return ptr;
        }
        let c = self.const_val(Ty::I32, k as u64);
        let t = self.f.ty(ptr);
        self.f.push(b, t, Op::Bin(BinOp::Add, ptr, c))
    }

    /// A constant in the prelude.
    pub fn const_val(&mut self, ty: Ty, bits: u64) -> Value {
        self.f.push(self.prelude, ty, Op::Const(bits))
    }

    /// A work-item value (hoisted into the prelude, one per kind and dimension).
    pub fn work_item(&mut self, w: WorkItem, dim: u32) -> Value {
        if let Some(v) = self.wi_cache.get(&(w, dim)) {
            return *v;
        }
        let v = self.f.push(self.prelude, Ty::I32, Op::WorkItem(w, dim));
        self.wi_cache.insert((w, dim), v);
        v
    }

    /// The lowered scalars of an id: frame values, constants or module-scope variables.
    pub(super) fn get(&mut self, fr: &Frame, id: u32) -> Result<Vec<Value>, CompileError> {
        if let Some(v) = fr.vals.get(&id) {
            return Ok(v.clone());
        }
        if let Some(v) = self.const_cache.get(&(self.mod_idx, id)) {
            return Ok(v.clone());
        }
        if self.m.constants.contains_key(&id) {
            let v = self.materialize_constant(id)?;
            self.const_cache.insert((self.mod_idx, id), v.clone());
            return Ok(v);
        }
        if self.m.spec_ops.contains_key(&id) {
            // Address arithmetic on a module-scope variable folded by LLVM into a constant.
            let Some((var, off)) = self.m.const_address(id)? else {
                return Err(self.err("OpSpecConstantOp"));
            };
            let base = self.get1(fr, var)?;
            let p = self.offset_ptr(self.prelude, base, off as u32);
            self.const_cache.insert((self.mod_idx, id), vec![p]);
            return Ok(vec![p]);
        }
        if let Some(g) = self.m.globals.get(&id) {
            let v = match g.space {
                Space::Local => {
                    let off =
                        *self.local_offsets.get(&id).ok_or(invalid("__local variable not in the kernel interface"))?;
                    self.f.push(self.prelude, Ty::Ptr(Space::Local), Op::LocalAddr { offset: off })
                }
                Space::Constant => {
                    let offset = match self.consts.offsets.get(&id) {
                        Some(off) => self.const_base + off,
                        None => {
                            // `extern constant`: the definition another module exports.
                            let name = self.m.linkage_name(id).unwrap_or_else(|| format!("%{id}"));
                            let found = self.all.iter().enumerate().find_map(|(k, (other, consts, base))| {
                                (k != self.mod_idx).then(|| {
                                    other.exported_var(&name, Space::Constant).map(|v| base + consts.offsets[&v])
                                })?
                            });
                            found.ok_or(CompileError::Unresolved(name))?
                        }
                    };
                    self.f.push(self.prelude, Ty::Ptr(Space::Constant), Op::ConstAddr { offset })
                }
                _ if g.builtin.is_some() => return Err(invalid("built-in variable used other than by OpLoad")),
                Space::Global => {
                    let Some(&off) = self.globals.offsets.get(&(self.mod_idx, id)) else {
                        let name = self.m.linkage_name(id).unwrap_or_else(|| format!("%{id}"));
                        return Err(CompileError::Unresolved(name));
                    };
                    let base = match self.globals_base {
                        Some(b) => b,
                        None => {
                            let at = self
                                .globals_arg
                                .ok_or(CompileError::Internal("globals block without argument".into()))?;
                            let b = self.f.push(self.prelude, Ty::Ptr(Space::Global), Op::ArgWord { offset: at });
                            self.globals_base = Some(b);
                            b
                        }
                    };
                    self.offset_ptr(self.prelude, base, off)
                }
                _ => return Err(self.err("program-scope variables in this address space")),
            };
            self.const_cache.insert((self.mod_idx, id), vec![v]);
            return Ok(vec![v]);
        }
        Err(invalid(format!("use of undefined id %{id}")))
    }

    /// The SPIR-V type id of `id` (an instruction result, constant or module variable).
    pub(super) fn type_of(&self, id: u32) -> Result<u32, CompileError> {
        if let Some(t) = self.m.id_types.get(&id) {
            return Ok(*t);
        }
        if let Some(c) = self.m.constants.get(&id) {
            return c.result_type.ok_or(invalid("constant without type"));
        }
        Err(invalid(format!("no type for %{id}")))
    }

    /// Every module of the program with its constant data and `.rodata` base.
    pub(super) fn all_modules(&self) -> &[(Module, ConstData, u32)] {
        self.all
    }

    /// For an id defined by `OpSelect`/`OpPhi` (recursively), the lowered leaf values it may
    /// take (printf strings chosen at run time); empty for anything else.
    fn literal_choices(&mut self, fr: &Frame, id: u32, depth: u32) -> Vec<Value> {
        if depth > 8 {
            return Vec::new();
        }
        let def = self
            .m
            .functions
            .values()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .find(|i| i.result_id == Some(id));
        let leaves: Vec<u32> = match def {
            Some(i) if i.class.opcode == S::Select => (1..3).filter_map(|k| id_operand(i, k).ok()).collect(),
            Some(i) if i.class.opcode == S::Phi => {
                (0..i.operands.len()).step_by(2).filter_map(|k| id_operand(i, k).ok()).collect()
            }
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        for leaf in leaves {
            let inner = self.literal_choices(fr, leaf, depth + 1);
            if inner.is_empty() {
                // A leaf not lowered yet (defined along a back edge) cannot be a literal choice.
                match self.get(fr, leaf) {
                    Ok(v) => out.extend(v.first().copied()),
                    Err(_) => return Vec::new(),
                }
            } else {
                out.extend(inner);
            }
        }
        out
    }

    /// For an id defined by `OpFConvert` of a `float` (scalar or vector) to `double`: the float.
    fn float_promoted(&self, id: u32) -> Option<u32> {
        let def = self
            .m
            .functions
            .values()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .find(|i| i.result_id == Some(id))?;
        if def.class.opcode != S::FConvert || !self.is_f64_type(def.result_type?) {
            return None;
        }
        let src = id_operand(def, 0).ok()?;
        let st = self.type_of(src).ok()?;
        let elem = match self.m.types.get(st).ok()? {
            SType::Vector { elem, .. } => *elem,
            _ => st,
        };
        matches!(self.m.types.get(elem).ok()?, SType::Float { width: 32 }).then_some(src)
    }

    pub(super) fn get1(&mut self, fr: &Frame, id: u32) -> Result<Value, CompileError> {
        let v = self.get(fr, id)?;
        match v.as_slice() {
            [x] => Ok(*x),
            _ => Err(invalid(format!("%{id} is not a scalar"))),
        }
    }

    fn materialize_constant(&mut self, id: u32) -> Result<Vec<Value>, CompileError> {
        let c = self.m.constants[&id].clone();
        let ty = c.result_type.ok_or(invalid("constant without type"))?;
        match c.class.opcode {
            S::ConstantTrue | S::SpecConstantTrue => Ok(vec![self.const_val(Ty::I1, 1)]),
            S::ConstantFalse | S::SpecConstantFalse => Ok(vec![self.const_val(Ty::I1, 0)]),
            S::Constant | S::SpecConstant => {
                let t = self.m.types.scalar(ty)?;
                let v = self.m.constant_u64(id)?;
                Ok(vec![self.const_val(t, v)])
            }
            S::ConstantNull | S::Undef => {
                let leaves = self.m.types.leaves(ty)?;
                Ok(leaves
                    .into_iter()
                    .map(|(_, t)| {
                        let op = if c.class.opcode == S::Undef { Op::Undef } else { Op::Const(0) };
                        self.f.push(self.prelude, t, op)
                    })
                    .collect())
            }
            S::ConstantSampler => Ok(vec![self.constant_sampler(&c)?]),
            S::ConstantComposite | S::SpecConstantComposite => {
                let mut out = Vec::new();
                for k in 0..c.operands.len() {
                    let part = id_operand(&c, k)?;
                    let fr = Frame::empty();
                    out.extend(self.get(&fr, part)?);
                }
                Ok(out)
            }
            other => Err(self.err(&format!("constant {other:?}"))),
        }
    }

    /// Inlines function `fid` with `args`, starting at block `entry`; returns the block where
    /// execution continues after the call and the returned scalars.
    pub fn inline(
        &mut self,
        fid: u32,
        args: Vec<Vec<Value>>,
        entry: BlockId,
    ) -> Result<(BlockId, Vec<Value>), CompileError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("recursion (or calls nested deeper than 64)"));
        }
        if self.f.types.len() > MAX_VALUES {
            return Err(CompileError::Resources(format!(
                "the kernel is too large after inlining every call ({} IR values, limit {MAX_VALUES}); \
                 build with optimisation (not -cl-opt-disable) or split the kernel",
                self.f.types.len()
            )));
        }
        let func = self.m.functions.get(&fid).ok_or(invalid(format!("call of unknown function %{fid}")))?.clone();
        if func.blocks.is_empty() {
            let name = self
                .m
                .linkage_name(fid)
                .or_else(|| self.m.names.get(&fid).cloned())
                .unwrap_or_else(|| format!("%{fid}"));
            // An import: inline the definition exported by another module of the program.
            let found = self.all.iter().enumerate().find_map(|(k, (other, _, _))| {
                (k != self.mod_idx).then(|| other.exported(&name).map(|f| (k, f))).flatten()
            });
            let Some((k, target)) = found else {
                self.depth -= 1;
                return Err(CompileError::Unresolved(name));
            };
            let saved = (self.m, self.consts, self.mod_idx, self.const_base);
            let all = self.all;
            self.m = &all[k].0;
            self.consts = &all[k].1;
            self.mod_idx = k;
            self.const_base = all[k].2;
            let r = self.inline(target, args, entry);
            (self.m, self.consts, self.mod_idx, self.const_base) = saved;
            self.depth -= 1;
            return r;
        }
        // The callee's variables are dead once it returns: pop its frame afterwards.
        let frame_base = self.private_top;
        // Code of the callee without an `OpLine` belongs to the call.
        let (outer_call, at_call) = (self.call_loc, self.f.loc);
        self.call_loc = at_call;
        let mut fr = Frame::empty();
        if func.parameters.len() != args.len() {
            return Err(invalid("call with the wrong number of arguments"));
        }
        for (p, a) in func.parameters.iter().zip(args) {
            let id = p.result_id.ok_or(invalid("parameter without id"))?;
            let a = match self.m.types.get(p.result_type.unwrap_or(0))?.clone() {
                // A `ByVal` pointer parameter names the callee's own copy of the caller's object
                // (LLVM's `byval`: the copy is implicit at the call): the callee may change it,
                // the caller must not see that. Copy it into the callee's frame.
                SType::Pointer { pointee, .. } if self.m.is_byval(id) => {
                    let src = *a.first().ok_or(invalid("by-value argument without a pointer"))?;
                    vec![self.byval_copy(entry, src, pointee)?]
                }
                _ => a,
            };
            fr.vals.insert(id, a);
        }
        for b in &func.blocks {
            let l = b.label.as_ref().and_then(|l| l.result_id).ok_or(invalid("block without label"))?;
            let nb = self.f.new_block();
            fr.labels.insert(l, nb);
        }
        fr.cont = self.f.new_block();
        let first = func.blocks[0].label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        self.f.block_mut(entry).term = Term::Br(fr.labels[&first]);
        // Definitions must be translated before their uses: llvm-spirv may lay out a loop's exit
        // before its body, so blocks are visited in reverse post-order of the CFG.
        for bi in block_order(&func) {
            let b = &func.blocks[bi];
            let label = b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
            let mut cur = fr.labels[&label];
            // An `OpLine` applies to the end of its block.
            self.f.loc = at_call;
            for i in &b.instructions {
                self.inst(&mut fr, label, &mut cur, i)?;
            }
            // The location in effect at the end of the block is its terminator's.
            self.f.block_mut(cur).term_loc = self.f.loc;
        }
        (self.call_loc, self.f.loc) = (outer_call, at_call);
        // φs: incoming values per IR predecessor of each SPIR-V edge.
        for p in std::mem::take(&mut fr.phis) {
            for (k, r) in p.results.iter().enumerate() {
                let mut ins = Vec::new();
                for &(val, pred) in &p.incoming {
                    let vals = self.get(&fr, val)?;
                    let v = *vals.get(k).ok_or(invalid("phi operand has the wrong shape"))?;
                    for ir_pred in fr.edges.get(&(pred, p.label)).cloned().unwrap_or_default() {
                        // A switch whose cases share a target lists its block once per case
                        // (LLVM keeps one φ entry per edge, with the same value); the IR has one
                        // edge per block pair.
                        match ins.iter().find(|(b, _)| *b == ir_pred) {
                            Some(&(_, seen)) if seen != v => {
                                return Err(invalid("a phi gives two values for one predecessor"));
                            }
                            Some(_) => {}
                            None => ins.push((ir_pred, v)),
                        }
                    }
                }
                let inst = self
                    .f
                    .block_mut(p.block)
                    .insts
                    .iter_mut()
                    .find(|i| i.result == Some(*r))
                    .ok_or(CompileError::Internal("lost phi".into()))?;
                inst.op = Op::Phi(ins);
            }
        }
        // Return values: φs at the continuation block.
        let ret_ty = func.def.as_ref().and_then(|d| d.result_type).unwrap_or(0);
        let mut results = Vec::new();
        if !matches!(self.m.types.get(ret_ty), Ok(SType::Void)) && !fr.rets.is_empty() {
            let leaves = self.m.types.leaves(ret_ty)?;
            if fr.rets.iter().any(|(_, v)| v.len() != leaves.len()) {
                self.depth -= 1;
                return Err(invalid("a function returns a value that does not match its result type"));
            }
            for (k, (_, t)) in leaves.iter().enumerate() {
                if fr.rets.len() == 1 {
                    results.push(fr.rets[0].1[k]);
                } else {
                    let ins = fr.rets.iter().map(|(b, v)| (*b, v[k])).collect();
                    let v = self.f.new_value(*t);
                    self.f.push_def(fr.cont, v, Op::Phi(ins));
                    results.push(v);
                }
            }
        }
        self.depth -= 1;
        self.private_top = frame_base;
        Ok((fr.cont, results))
    }

    /// A private copy, in the current frame, of the object of type `ty` at `src` (a by-value
    /// argument): its address.
    fn byval_copy(&mut self, b: BlockId, src: Value, ty: u32) -> Result<Value, CompileError> {
        let size = self.m.types.size(ty)?;
        let align = self.m.types.align(ty)?;
        let off = self.alloc_private(size.max(1), align.max(1));
        let dst = self.f.push(self.prelude, Ty::Ptr(Space::Private), Op::PrivateAddr { offset: off });
        let align = self.type_align(ty)?;
        let vals = self.load_with(b, src, ty, align)?;
        self.store_with(b, dst, ty, &vals, align)?;
        Ok(dst)
    }

    pub(super) fn result(&self, i: &Instruction) -> Result<(u32, u32), CompileError> {
        Ok((i.result_id.ok_or(invalid("missing result id"))?, i.result_type.ok_or(invalid("missing result type"))?))
    }

    /// Translates one instruction, fencing atomics and memory barriers of device scope.
    ///
    /// Work-groups run concurrently on host threads, so an atomic access or fence of device (or
    /// wider) scope is put between two `fence` instructions (host sequentially consistent fences
    /// in the emulator): relaxed accesses separated by such fences are sequentially consistent,
    /// which covers every order up to `memory_order_seq_cst`. Work-group scope needs nothing: a
    /// work-group's warps run on one host thread, in one order.
    fn inst(&mut self, fr: &mut Frame, label: u32, cur: &mut BlockId, i: &Instruction) -> Result<(), CompileError> {
        let op = i.class.opcode;
        let scope_operand = match op {
            S::MemoryBarrier => Some(0),
            S::AtomicLoad
            | S::AtomicStore
            | S::AtomicExchange
            | S::AtomicCompareExchange
            | S::AtomicCompareExchangeWeak
            | S::AtomicIIncrement
            | S::AtomicIDecrement
            | S::AtomicIAdd
            | S::AtomicISub
            | S::AtomicSMin
            | S::AtomicUMin
            | S::AtomicSMax
            | S::AtomicUMax
            | S::AtomicAnd
            | S::AtomicOr
            | S::AtomicXor
            | S::AtomicFlagTestAndSet
            | S::AtomicFlagClear => Some(1),
            _ => None,
        };
        // Scope: CrossDevice = 0, Device = 1, Workgroup = 2, … (a non-constant scope: fenced).
        let fenced = scope_operand
            .and_then(|k| id_operand(i, k).ok())
            .is_some_and(|id| self.m.constant_u64(id).map_or(true, |scope| scope <= 1));
        if fenced {
            self.f.push_void(*cur, Op::Fence);
        }
        self.inst_unfenced(fr, label, cur, i)?;
        if fenced && op != S::MemoryBarrier {
            self.f.push_void(*cur, Op::Fence);
        }
        Ok(())
    }

    /// Translates one instruction; `cur` is the IR block being filled (calls may change it).
    fn inst_unfenced(
        &mut self,
        fr: &mut Frame,
        label: u32,
        cur: &mut BlockId,
        i: &Instruction,
    ) -> Result<(), CompileError> {
        let op = i.class.opcode;
        match op {
            S::Line => {
                if let (Ok(file), Some(Operand::LiteralBit32(line))) = (id_operand(i, 0), i.operands.get(1)) {
                    let name = self.m.string_ids.get(&file).map_or(SOURCE_STRING_NAME.into(), |s| source_name(s));
                    self.line = Some(format!("{name}:{line}"));
                    let col = match i.operands.get(2) {
                        Some(Operand::LiteralBit32(c)) => *c,
                        _ => 0,
                    };
                    self.f.loc =
                        if *line == 0 { self.call_loc } else { SrcLoc { file: self.f.file(&name), line: *line, col } };
                }
                Ok(())
            }
            S::NoLine => {
                self.f.loc = self.call_loc;
                Ok(())
            }
            S::SelectionMerge | S::LoopMerge | S::LifetimeStart | S::LifetimeStop | S::Nop | S::MemoryBarrier => Ok(()),
            S::Branch => {
                let t = id_operand(i, 0)?;
                self.branch_edge(fr, label, t, *cur);
                self.f.block_mut(*cur).term = Term::Br(self.target(fr, t)?);
                Ok(())
            }
            S::BranchConditional => {
                let c = self.get1(fr, id_operand(i, 0)?)?;
                let (t, e) = (id_operand(i, 1)?, id_operand(i, 2)?);
                self.branch_edge(fr, label, t, *cur);
                self.branch_edge(fr, label, e, *cur);
                let (tb, eb) = (self.target(fr, t)?, self.target(fr, e)?);
                self.f.block_mut(*cur).term =
                    if tb == eb { Term::Br(tb) } else { Term::CondBr { cond: c, then_: tb, else_: eb } };
                Ok(())
            }
            S::Switch => self.switch(fr, label, *cur, i),
            S::Return | S::ReturnValue => {
                let vals = if op == S::ReturnValue { self.get(fr, id_operand(i, 0)?)? } else { Vec::new() };
                fr.rets.push((*cur, vals));
                self.f.block_mut(*cur).term = Term::Br(fr.cont);
                Ok(())
            }
            S::Unreachable => {
                self.f.block_mut(*cur).term = Term::Unreachable;
                Ok(())
            }
            S::Kill | S::TerminateInvocation => Err(invalid("OpKill in a kernel")),
            S::Phi => {
                let (r, ty) = self.result(i)?;
                let leaves = self.m.types.leaves(ty)?;
                let mut results = Vec::new();
                for (_, t) in leaves {
                    let v = self.f.new_value(t);
                    self.f.push_def(*cur, v, Op::Phi(Vec::new()));
                    results.push(v);
                }
                let incoming = (0..i.operands.len() / 2)
                    .map(|k| Ok((id_operand(i, 2 * k)?, id_operand(i, 2 * k + 1)?)))
                    .collect::<Result<Vec<_>, CompileError>>()?;
                fr.phis.push(PendingPhi { block: *cur, label, results: results.clone(), incoming });
                fr.vals.insert(r, results);
                Ok(())
            }
            S::FunctionCall => {
                let (r, _) = self.result(i)?;
                let callee = id_operand(i, 0)?;
                let mut args = Vec::new();
                for k in 1..i.operands.len() {
                    args.push(self.get(fr, id_operand(i, k)?)?);
                }
                // The soft-double library calling one of its own subroutines of a deeper level,
                // or a library calling a checker hook (`abi::subroutine::CHECK_PREFIX`).
                let name = self.m.linkage_name(callee).filter(|n| self.out_of_line(n));
                if let Some(name) =
                    name.filter(|n| self.lib == Some(self.mod_idx) || crate::abi::subroutine::is_check(n))
                {
                    let flat: Vec<Value> = args.iter().flatten().copied().collect();
                    let v = self.call_sub(*cur, &name, &flat)?;
                    fr.vals.insert(r, vec![v]);
                    return Ok(());
                }
                let entry = self.f.new_block();
                self.f.block_mut(*cur).term = Term::Br(entry);
                let saved = self.line.clone();
                let (cont, ret) = self.inline(callee, args, entry)?;
                self.line = saved;
                *cur = cont;
                fr.vals.insert(r, ret);
                Ok(())
            }
            S::Variable => {
                let (r, ty) = self.result(i)?;
                let (_, pointee) = self.m.types.pointee(ty)?;
                let size = self.m.types.size(pointee)?;
                let align = self.m.types.align(pointee)?;
                let off = self.alloc_private(size.max(1), align);
                let p = self.f.push(self.prelude, Ty::Ptr(Space::Private), Op::PrivateAddr { offset: off });
                if let Ok(init) = id_operand(i, 1) {
                    let vals = self.get(fr, init)?;
                    self.store_leaves(*cur, p, pointee, &vals)?;
                }
                fr.vals.insert(r, vec![p]);
                Ok(())
            }
            S::Load | S::AtomicLoad => {
                let (r, ty) = self.result(i)?;
                let ptr_id = id_operand(i, 0)?;
                if let Some(b) = self.m.globals.get(&ptr_id).and_then(|g| g.builtin) {
                    let v = self.builtin(b, ty)?;
                    fr.vals.insert(r, v);
                    return Ok(());
                }
                let p = self.get1(fr, ptr_id)?;
                let leaves = self.m.types.leaves(ty)?;
                if op == S::AtomicLoad && matches!(leaves[..], [(0, Ty::I64)]) {
                    // Two word loads could tear: a 64-bit atomic load is a compare-exchange of
                    // 0 with 0 (it stores nothing new) that returns the current value.
                    let z = self.const_val(Ty::I64, 0);
                    let v = self.f.push(*cur, Ty::I64, Op::CmpXchg { ptr: p, expected: z, desired: z });
                    fr.vals.insert(r, vec![v]);
                    return Ok(());
                }
                let align = self.access_align(i, 1, op == S::Load, ty)?;
                let vals = self.load_with(*cur, p, ty, align)?;
                fr.vals.insert(r, vals);
                Ok(())
            }
            S::Store | S::AtomicStore => {
                let ptr_id = id_operand(i, 0)?;
                let val_id = id_operand(i, if op == S::Store { 1 } else { 3 })?;
                let p = self.get1(fr, ptr_id)?;
                let pty = *self.m.id_types.get(&ptr_id).ok_or(invalid("pointer without type"))?;
                let (_, pointee) = self.m.types.pointee(pty)?;
                let vals = self.get(fr, val_id)?;
                if op == S::AtomicStore && matches!(self.m.types.leaves(pointee)?[..], [(0, Ty::I64)]) {
                    // Likewise a 64-bit atomic store is an exchange whose old value is unused.
                    self.f.push(*cur, Ty::I64, Op::Atomic { op: AtomicOp::Xchg, ptr: p, value: vals[0] });
                    return Ok(());
                }
                let align = self.access_align(i, 2, op == S::Store, pointee)?;
                self.store_with(*cur, p, pointee, &vals, align)
            }
            S::AccessChain | S::InBoundsAccessChain | S::PtrAccessChain | S::InBoundsPtrAccessChain => {
                self.access_chain(fr, *cur, i)
            }
            S::CopyMemory | S::CopyMemorySized => self.copy_memory(fr, *cur, i),
            S::AtomicFlagClear => {
                let p = self.get1(fr, id_operand(i, 0)?)?;
                let zero = self.const_val(Ty::I32, 0);
                self.f.push(*cur, Ty::I32, Op::Atomic { op: AtomicOp::Xchg, ptr: p, value: zero });
                Ok(())
            }
            S::ControlBarrier => {
                let sem = self.m.constant_u64(id_operand(i, 2)?).unwrap_or(0) as u32;
                let exec = self.m.constant_u64(id_operand(i, 0)?).unwrap_or(2);
                if exec == 3 {
                    // `sub_group_barrier`: a warp's lanes run in lock-step (and its accesses
                    // in program order); only a global fence has work to do.
                    if sem & spirv::MemorySemantics::CROSS_WORKGROUP_MEMORY.bits() != 0 {
                        self.f.push_void(*cur, Op::Fence);
                    }
                    return Ok(());
                }
                if exec != 2 {
                    return Err(self.err("barriers of a scope other than the work-group or sub-group"));
                }
                let global = sem & (spirv::MemorySemantics::CROSS_WORKGROUP_MEMORY.bits()) != 0;
                self.f.push_void(*cur, Op::Barrier { global });
                Ok(())
            }
            S::GroupAsyncCopy => {
                let (r, _) = self.result(i)?;
                let dst_id = id_operand(i, 1)?;
                let (dst, src) = (self.get1(fr, dst_id)?, self.get1(fr, id_operand(i, 2)?)?);
                let (num, stride) = (self.get1(fr, id_operand(i, 3)?)?, self.get1(fr, id_operand(i, 4)?)?);
                let (space, elem) = self.m.types.pointee(self.type_of(dst_id)?)?;
                self.group_async_copy(cur, dst, src, num, stride, elem, space == Space::Local)?;
                let event = self.const_val(Ty::I32, 0);
                fr.vals.insert(r, vec![event]);
                Ok(())
            }
            S::GroupWaitEvents => {
                self.f.push_void(*cur, Op::Barrier { global: true });
                Ok(())
            }
            _ if super::image::is_image_op(op) => self.image_op(fr, cur, i),
            _ if super::groups::is_group_op(op) => self.group_op(fr, cur, i),
            _ if super::subgroup_ext::is_non_uniform_op(op) => self.non_uniform_op(fr, cur, i),
            _ if self.wants_f16(i) => {
                let (r, _) = self.result(i)?;
                let args: Vec<Option<Vec<Value>>> =
                    i.operands.iter().map(|o| o.id_ref_any().and_then(|id| self.get(fr, id).ok())).collect();
                let out = self.lower_f16(cur, i, &args)?;
                fr.vals.insert(r, out);
                Ok(())
            }
            _ if self.lib.is_some() && self.wants_f64(i) => {
                let (r, _) = self.result(i)?;
                let args: Vec<Option<Vec<Value>>> = i
                    .operands
                    .iter()
                    .map(|o| match o {
                        Operand::IdRef(id) if !self.m.types.map.contains_key(id) => self.get(fr, *id).ok(),
                        _ => None,
                    })
                    .collect();
                match self.lower_f64(cur, i, &args)? {
                    Some(out) => {
                        fr.vals.insert(r, out);
                        Ok(())
                    }
                    None if op == S::ExtInst => self.ext_inst(fr, *cur, i),
                    None => self.arith(fr, *cur, i),
                }
            }
            S::ExtInst => self.ext_inst(fr, *cur, i),
            _ => self.arith(fr, *cur, i),
        }
    }

    /// Whether the soft-double library exports `name`.
    pub(super) fn lib_has(&self, name: &str) -> bool {
        self.lib_fns.contains_key(name)
    }

    /// Inlines the function a library module of the program exports as `name` with `args`
    /// (one value list per parameter) at the end of `*cur`; `*cur` becomes the block after the
    /// call. Returns the result's values.
    pub(super) fn call_library(
        &mut self,
        cur: &mut BlockId,
        name: &str,
        args: Vec<Vec<Value>>,
    ) -> Result<Vec<Value>, CompileError> {
        let all = self.all;
        let (k, fid) =
            super::exporter(all, name).ok_or(CompileError::Internal(format!("library function {name} missing")))?;
        let entry = self.f.new_block();
        self.f.block_mut(*cur).term = Term::Br(entry);
        let saved = (self.m, self.consts, self.mod_idx, self.const_base, self.line.clone());
        (self.m, self.consts, self.mod_idx, self.const_base) = (&all[k].0, &all[k].1, k, all[k].2);
        let r = self.inline(fid, args, entry);
        (self.m, self.consts, self.mod_idx, self.const_base, self.line) = saved;
        let (cont, ret) = r?;
        *cur = cont;
        Ok(ret)
    }

    /// Calls (inlines) the soft-double library's `name` with scalar `args` at the end of `*cur`;
    /// `*cur` becomes the block after the call. Returns the single scalar result.
    pub(super) fn call_lib(&mut self, cur: &mut BlockId, name: &str, args: &[Value]) -> Result<Value, CompileError> {
        if self.out_of_line(name) {
            return self.call_sub(*cur, name, args);
        }
        let (Some(k), Some(&fid)) = (self.lib, self.lib_fns.get(name)) else {
            return Err(CompileError::Internal(format!("soft-double library function {name} missing")));
        };
        let entry = self.f.new_block();
        self.f.block_mut(*cur).term = Term::Br(entry);
        let saved = (self.m, self.consts, self.mod_idx, self.const_base, self.line.clone());
        let all = self.all;
        (self.m, self.consts, self.mod_idx, self.const_base) = (&all[k].0, &all[k].1, k, all[k].2);
        let r = self.inline(fid, args.iter().map(|a| vec![*a]).collect(), entry);
        (self.m, self.consts, self.mod_idx, self.const_base, self.line) = saved;
        let (cont, ret) = r?;
        *cur = cont;
        ret.first().copied().ok_or(CompileError::Internal(format!("{name} returned nothing")))
    }

    fn branch_edge(&mut self, fr: &mut Frame, from: u32, to: u32, ir: BlockId) {
        let e = fr.edges.entry((from, to)).or_default();
        if !e.contains(&ir) {
            e.push(ir);
        }
    }

    fn target(&self, fr: &Frame, label: u32) -> Result<BlockId, CompileError> {
        fr.labels.get(&label).copied().ok_or(invalid(format!("branch to unknown label %{label}")))
    }

    /// `OpSwitch` as a chain of equality tests.
    fn switch(&mut self, fr: &mut Frame, label: u32, cur: BlockId, i: &Instruction) -> Result<(), CompileError> {
        let sel = self.get1(fr, id_operand(i, 0)?)?;
        let default = id_operand(i, 1)?;
        let sty = self.f.ty(sel);
        let mut at = cur;
        let mut k = 2;
        while k + 1 < i.operands.len() {
            let lit = match &i.operands[k] {
                Operand::LiteralBit32(x) => *x as u64,
                Operand::LiteralBit64(x) => *x,
                _ => return Err(invalid("switch literal")),
            };
            let target = id_operand(i, k + 1)?;
            let c = self.const_val(sty, lit);
            let cond = self.f.push(at, Ty::I1, Op::Cmp(CmpOp::Eq, sel, c));
            let next = self.f.new_block();
            self.branch_edge(fr, label, target, at);
            let tb = self.target(fr, target)?;
            self.f.block_mut(at).term = Term::CondBr { cond, then_: tb, else_: next };
            at = next;
            k += 2;
        }
        self.branch_edge(fr, label, default, at);
        self.f.block_mut(at).term = Term::Br(self.target(fr, default)?);
        Ok(())
    }

    /// The alignment a plain (non-atomic) load or store of type `ty` may rely on, when it may be
    /// less than its leaves' own: the `Aligned` memory operand (operand `k`) if present, else the
    /// type's alignment — 1 for a `CPacked` struct, whose members sit at any offset. `None`: every
    /// leaf is naturally aligned.
    fn access_align(&self, i: &Instruction, k: usize, plain: bool, ty: u32) -> Result<Option<u32>, CompileError> {
        if !plain {
            return Ok(None);
        }
        match aligned_operand(i, k) {
            Some(a) => Ok(Some(a)),
            None => self.type_align(ty),
        }
    }

    /// The alignment of type `ty` when it may be less than its leaves' own (a `CPacked` struct:
    /// 1), `None` when every leaf is naturally aligned within it.
    fn type_align(&self, ty: u32) -> Result<Option<u32>, CompileError> {
        let a = self.m.types.align(ty)?;
        Ok((a < 8).then_some(a))
    }

    /// [`Self::load_leaves_aligned`] with `align`, else [`Self::load_leaves`].
    fn load_with(&mut self, b: BlockId, p: Value, ty: u32, align: Option<u32>) -> Result<Vec<Value>, CompileError> {
        match align {
            Some(a) => self.load_leaves_aligned(b, p, ty, a),
            None => self.load_leaves(b, p, ty),
        }
    }

    /// [`Self::store_leaves_aligned`] with `align`, else [`Self::store_leaves`].
    fn store_with(
        &mut self,
        b: BlockId,
        p: Value,
        ty: u32,
        vals: &[Value],
        align: Option<u32>,
    ) -> Result<(), CompileError> {
        match align {
            Some(a) => self.store_leaves_aligned(b, p, ty, vals, a),
            None => self.store_leaves(b, p, ty, vals),
        }
    }

    /// Loads a value of SPIR-V type `ty` from `p`, one scalar per leaf.
    pub fn load_leaves(&mut self, b: BlockId, p: Value, ty: u32) -> Result<Vec<Value>, CompileError> {
        let mut out = Vec::new();
        for (off, t) in self.m.types.leaves(ty)? {
            let a = self.offset_ptr(b, p, off);
            out.push(self.f.push(b, t, Op::Load(a)));
        }
        Ok(out)
    }

    /// As [`Self::load_leaves`] for an access the source only guarantees `align`-byte alignment
    /// (`Aligned` memory operand): a leaf wider than its guaranteed alignment is read in aligned
    /// pieces and reassembled (clang turns e.g. `vload2` of `char` at an odd offset into one
    /// 16-bit load with alignment 1; the hardware faults on a misaligned access).
    fn load_leaves_aligned(&mut self, b: BlockId, p: Value, ty: u32, align: u32) -> Result<Vec<Value>, CompileError> {
        let mut out = Vec::new();
        for (off, t) in self.m.types.leaves(ty)? {
            let a = self.offset_ptr(b, p, off);
            let piece = leaf_align(align, off);
            if t.bytes() <= piece || t == Ty::I1 {
                out.push(self.f.push(b, t, Op::Load(a)));
                continue;
            }
            let (pt, wt) = (piece_ty(piece), if t.bytes() == 8 { Ty::I64 } else { Ty::I32 });
            let mut acc = self.const_val(wt, 0);
            for k in 0..t.bytes() / piece {
                let pa = self.offset_ptr(b, a, k * piece);
                let v = self.f.push(b, pt, Op::Load(pa));
                let v = self.f.push(b, wt, Op::Conv(ConvOp::ZExt, v));
                let sh = self.const_val(wt, u64::from(8 * k * piece));
                let v = self.f.push(b, wt, Op::Bin(BinOp::Shl, v, sh));
                acc = self.f.push(b, wt, Op::Bin(BinOp::Or, acc, v));
            }
            out.push(match t {
                Ty::I16 | Ty::I8 => self.f.push(b, t, Op::Conv(ConvOp::Trunc, acc)),
                Ty::I32 | Ty::I64 => acc,
                _ => self.f.push(b, t, Op::Conv(ConvOp::Bitcast, acc)),
            });
        }
        Ok(out)
    }

    /// As [`Self::store_leaves`] for an access with only `align`-byte alignment guaranteed.
    fn store_leaves_aligned(
        &mut self,
        b: BlockId,
        p: Value,
        ty: u32,
        vals: &[Value],
        align: u32,
    ) -> Result<(), CompileError> {
        for (off, t, v) in self.stored_words(ty, vals)? {
            let a = self.offset_ptr(b, p, off);
            let piece = leaf_align(align, off);
            if t.bytes() <= piece || t == Ty::I1 {
                self.f.push_void(b, Op::Store { ptr: a, value: v });
                continue;
            }
            let (pt, wt) = (piece_ty(piece), if t.bytes() == 8 { Ty::I64 } else { Ty::I32 });
            let w = match t {
                Ty::I16 | Ty::I8 => self.f.push(b, wt, Op::Conv(ConvOp::ZExt, v)),
                Ty::I32 | Ty::I64 => v,
                _ => self.f.push(b, wt, Op::Conv(ConvOp::Bitcast, v)),
            };
            for k in 0..t.bytes() / piece {
                let sh = self.const_val(wt, u64::from(8 * k * piece));
                let s = self.f.push(b, wt, Op::Bin(BinOp::ShrL, w, sh));
                let s = self.f.push(b, pt, Op::Conv(ConvOp::Trunc, s));
                let pa = self.offset_ptr(b, a, k * piece);
                self.f.push_void(b, Op::Store { ptr: pa, value: s });
            }
        }
        Ok(())
    }

    pub fn store_leaves(&mut self, b: BlockId, p: Value, ty: u32, vals: &[Value]) -> Result<(), CompileError> {
        for (off, _, v) in self.stored_words(ty, vals)? {
            let a = self.offset_ptr(b, p, off);
            self.f.push_void(b, Op::Store { ptr: a, value: v });
        }
        Ok(())
    }

    /// What storing `vals` (the leaves of a value of type `ty`) writes: (byte offset, type,
    /// value) per leaf, plus, in a `Physical64` module, a zero word after each pointer (its
    /// upper half, see [`super::types::Types`]).
    fn stored_words(&mut self, ty: u32, vals: &[Value]) -> Result<Vec<(u32, Ty, Value)>, CompileError> {
        let leaves = self.m.types.leaves(ty)?;
        if leaves.len() != vals.len() {
            return Err(invalid("store of a value with the wrong shape"));
        }
        let mut out = Vec::with_capacity(leaves.len());
        for ((off, t), v) in leaves.into_iter().zip(vals) {
            out.push((off, t, *v));
            if self.m.types.wide_pointers && matches!(t, Ty::Ptr(_)) {
                out.push((off + 4, Ty::I32, self.const_val(Ty::I32, 0)));
            }
        }
        Ok(out)
    }

    fn access_chain(&mut self, fr: &mut Frame, b: BlockId, i: &Instruction) -> Result<(), CompileError> {
        let (r, rty) = self.result(i)?;
        let base_id = id_operand(i, 0)?;
        if self.m.globals.get(&base_id).and_then(|g| g.builtin).is_some() {
            return Err(self.err("access chains into built-in variables"));
        }
        let base = self.get1(fr, base_id)?;
        let bty = *self.m.id_types.get(&base_id).ok_or(invalid("access-chain base without type"))?;
        let (space, mut cur_ty) = self.m.types.pointee(bty)?;
        let ptr_ty = Ty::Ptr(self.m.types.pointee(rty).map(|(s, _)| s).unwrap_or(space));
        let mut p = base;
        let mut k = 1;
        if matches!(i.class.opcode, S::PtrAccessChain | S::InBoundsPtrAccessChain) {
            let idx = self.get1(fr, id_operand(i, 1)?)?;
            let stride = self.m.types.stride(cur_ty)?;
            p = self.index(b, p, idx, stride, ptr_ty)?;
            k = 2;
        }
        while k < i.operands.len() {
            let idx_id = id_operand(i, k)?;
            match self.m.types.get(cur_ty)?.clone() {
                SType::Struct { members, .. } => {
                    let m = self.m.constant_u64(idx_id)? as usize;
                    let offs = self.m.types.member_offsets(cur_ty)?;
                    let off = *offs.get(m).ok_or(invalid("struct index out of range"))?;
                    p = self.offset_ptr(b, p, off);
                    cur_ty = members[m];
                }
                SType::Array { elem, .. } | SType::RuntimeArray { elem } => {
                    let idx = self.get1(fr, idx_id)?;
                    p = self.index(b, p, idx, self.m.types.stride(elem)?, ptr_ty)?;
                    cur_ty = elem;
                }
                SType::Vector { elem, .. } => {
                    let idx = self.get1(fr, idx_id)?;
                    p = self.index(b, p, idx, self.m.types.size(elem)?, ptr_ty)?;
                    cur_ty = elem;
                }
                other => return Err(invalid(format!("access chain into {other:?}"))),
            }
            k += 1;
        }
        let p = if self.f.ty(p) != ptr_ty { self.f.push(b, ptr_ty, Op::Conv(ConvOp::Bitcast, p)) } else { p };
        fr.vals.insert(r, vec![p]);
        Ok(())
    }

    /// `p + idx * stride`.
    pub(super) fn index(
        &mut self,
        b: BlockId,
        p: Value,
        idx: Value,
        stride: u32,
        pty: Ty,
    ) -> Result<Value, CompileError> {
        let idx = match self.f.ty(idx) {
            Ty::I32 => idx,
            Ty::I64 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, idx)),
            Ty::I8 | Ty::I16 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::SExt, idx)),
            _ => return Err(invalid("non-integer index")),
        };
        let s = self.const_val(Ty::I32, stride as u64);
        let scaled = if stride == 1 { idx } else { self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, idx, s)) };
        Ok(self.f.push(b, pty, Op::Bin(BinOp::Add, p, scaled)))
    }

    fn copy_memory(&mut self, fr: &mut Frame, b: BlockId, i: &Instruction) -> Result<(), CompileError> {
        let (dst_id, src_id) = (id_operand(i, 0)?, id_operand(i, 1)?);
        let dst = self.get1(fr, dst_id)?;
        let src = self.get1(fr, src_id)?;
        let dty = *self.m.id_types.get(&dst_id).ok_or(invalid("copy target without type"))?;
        let (_, pointee) = self.m.types.pointee(dty)?;
        if i.class.opcode == S::CopyMemory {
            // Leaf by leaf, in pieces where the type does not align them (`CPacked` structs).
            let align = self.type_align(pointee)?;
            let vals = self.load_with(b, src, pointee, align)?;
            return self.store_with(b, dst, pointee, &vals, align);
        }
        let size = self.m.constant_u64(id_operand(i, 2)?).map_err(|_| self.err("memcpy with a non-constant size"))?;
        if size > 4096 {
            return Err(self.err("memcpy of more than 4096 bytes"));
        }
        // The pointers are usually `char *` (LLVM's memcpy); the `Aligned` memory operand then
        // says what the copied object guarantees. Copying a struct of 64-bit fields in 64-bit
        // pieces matches its field accesses, so mem2reg can keep it in registers.
        let declared = match (i.operands.get(3), i.operands.get(4)) {
            (Some(Operand::MemoryAccess(m)), Some(Operand::LiteralBit32(a)))
                if m.contains(spirv::MemoryAccess::ALIGNED) && a.is_power_of_two() =>
            {
                *a
            }
            _ => 1,
        };
        let align = self.m.types.align(pointee).unwrap_or(1).max(declared);
        let (step, t) = if align >= 8 && size % 8 == 0 {
            (8, Ty::I64)
        } else if align >= 4 && size % 4 == 0 {
            (4, Ty::I32)
        } else {
            (1, Ty::I8)
        };
        for off in (0..size as u32).step_by(step) {
            let s = self.offset_ptr(b, src, off);
            let d = self.offset_ptr(b, dst, off);
            let v = self.f.push(b, t, Op::Load(s));
            self.f.push_void(b, Op::Store { ptr: d, value: v });
        }
        Ok(())
    }

    fn builtin(&mut self, b: spirv::BuiltIn, ty: u32) -> Result<Vec<Value>, CompileError> {
        use spirv::BuiltIn as B;
        let w = match b {
            B::GlobalInvocationId => WorkItem::GlobalId,
            B::LocalInvocationId => WorkItem::LocalId,
            B::WorkgroupId => WorkItem::GroupId,
            B::GlobalSize => WorkItem::GlobalSize,
            B::WorkgroupSize => WorkItem::LocalSize,
            B::EnqueuedWorkgroupSize => WorkItem::EnqueuedLocalSize,
            B::NumWorkgroups => WorkItem::NumGroups,
            B::GlobalOffset => WorkItem::GlobalOffset,
            B::WorkDim => WorkItem::WorkDim,
            B::LocalInvocationIndex => WorkItem::LocalLinearId,
            B::GlobalLinearId => WorkItem::GlobalLinearId,
            other => {
                if let Some(v) = self.sub_group_builtin(other) {
                    return Ok(vec![v]);
                }
                return self.lane_mask(other).ok_or_else(|| self.err(&format!("built-in {other:?}")));
            }
        };
        let leaves = self.m.types.leaves(ty)?;
        if leaves.is_empty() || leaves.len() > 3 {
            return Err(invalid("a work-item built-in variable of more than 3 components"));
        }
        let mut out = Vec::new();
        for d in 0..leaves.len() as u32 {
            let v = self.work_item(w, d);
            let t = leaves[d as usize].1;
            out.push(match t {
                Ty::I32 => v,
                // `size_t` of a `Physical64` module: the 32-bit value zero-extended.
                Ty::I64 => self.f.push(self.prelude, Ty::I64, Op::Conv(ConvOp::ZExt, v)),
                _ => return Err(invalid("a work-item built-in variable that is not an integer")),
            });
        }
        Ok(out)
    }
}

/// Block indices of `func` in reverse post-order from the entry, then any unreachable blocks.
fn block_order(func: &rspirv::dr::Function) -> Vec<usize> {
    let n = func.blocks.len();
    let index: HashMap<u32, usize> =
        func.blocks.iter().enumerate().filter_map(|(k, b)| Some((b.label.as_ref()?.result_id?, k))).collect();
    let succs: Vec<Vec<usize>> = func
        .blocks
        .iter()
        .map(|b| {
            let Some(t) = b.instructions.last() else { return Vec::new() };
            let ids: Vec<u32> = match t.class.opcode {
                S::Branch => t.operands.first().and_then(|o| o.id_ref_any()).into_iter().collect(),
                S::BranchConditional => t.operands.iter().skip(1).take(2).filter_map(|o| o.id_ref_any()).collect(),
                S::Switch => t.operands.iter().skip(1).filter_map(|o| o.id_ref_any()).collect(),
                _ => Vec::new(),
            };
            ids.iter().filter_map(|l| index.get(l).copied()).collect()
        })
        .collect();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n > 0 {
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some((b, i)) = stack.pop() {
            if i < succs[b].len() {
                stack.push((b, i + 1));
                let s = succs[b][i];
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
    }
    post.reverse();
    post.extend((0..n).filter(|k| !seen[*k]));
    post
}

impl Frame {
    fn empty() -> Frame {
        Frame {
            vals: HashMap::new(),
            labels: HashMap::new(),
            edges: HashMap::new(),
            phis: Vec::new(),
            rets: Vec::new(),
            cont: BlockId(0),
        }
    }
}

// Arithmetic, conversions, composites and OpenCL.std live in `ops.rs`.

impl Lowerer<'_> {
    fn arith(&mut self, fr: &mut Frame, b: BlockId, i: &Instruction) -> Result<(), CompileError> {
        let (r, ty) = self.result(i)?;
        let args: Vec<Vec<Value>> = {
            let mut v = Vec::new();
            for o in &i.operands {
                if let Operand::IdRef(id) = o {
                    v.push(self.get(fr, *id)?);
                } else {
                    v.push(Vec::new());
                }
            }
            v
        };
        let op = i.class.opcode;
        let flush = self.flush_f32 && denormals::flushes_op(op);
        let args = if flush { self.flush_all(b, args) } else { args };
        let mut out = self.lower_arith(b, i, ty, &args)?;
        if flush && !denormals::compares(op) {
            out = self.flush_all(b, vec![out]).remove(0);
        }
        fr.vals.insert(r, out);
        Ok(())
    }

    /// The `float` values of `vals` with denormals flushed ([`denormals::flush`]).
    fn flush_all(&mut self, b: BlockId, vals: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
        vals.into_iter()
            .map(|v| {
                v.into_iter()
                    .map(|x| if self.f.ty(x) == Ty::F32 { denormals::flush(&mut self.f, b, x) } else { x })
                    .collect()
            })
            .collect()
    }

    fn ext_inst(&mut self, fr: &mut Frame, b: BlockId, i: &Instruction) -> Result<(), CompileError> {
        let (r, ty) = self.result(i)?;
        let set = id_operand(i, 0)?;
        if Some(set) != self.m.opencl_std {
            return Err(self.err("extended instruction sets other than OpenCL.std"));
        }
        let code = match i.operands.get(1) {
            Some(Operand::LiteralExtInstInteger(c)) => *c,
            _ => return Err(invalid("OpExtInst without an instruction number")),
        };
        if code == spirv::OpenclStd100Op::printf as u32 {
            let mut ops = Vec::new();
            for k in 2..i.operands.len() {
                let mut id = id_operand(i, k)?;
                // A float promoted to double for printf (clang does so with fp64): print the
                // float itself (widening is exact), no soft-double conversion on the device.
                if let Some(src) = self.float_promoted(id) {
                    id = src;
                }
                let ty = self.type_of(id)?;
                let vals = self.get(fr, id)?;
                let is_ptr = matches!(self.m.types.get(ty)?, super::types::SType::Pointer { .. });
                let choices = if is_ptr { self.literal_choices(fr, id, 0) } else { Vec::new() };
                ops.push(super::printf::PrintfOperand { ty, vals, choices });
            }
            let r_val = self.lower_printf(b, &ops)?;
            fr.vals.insert(r, vec![r_val]);
            return Ok(());
        }
        use spirv::OpenclStd100Op as C;
        // Literal operand k (rspirv decodes extended-instruction operands as ids).
        let lit = |k: usize| match i.operands.get(k) {
            Some(Operand::LiteralBit32(n)) | Some(Operand::IdRef(n)) => Some(*n),
            _ => None,
        };
        let (vload_half, vloada_half) = (C::vload_half as u32, C::vloada_halfn as u32);
        if code == vload_half || code == C::vload_halfn as u32 || code == vloada_half {
            let off = self.get1(fr, id_operand(i, 2)?)?;
            let p = self.get1(fr, id_operand(i, 3)?)?;
            let n = if code == vload_half { 1 } else { lit(4).ok_or(invalid("vload_halfn without a size"))? };
            let out = self.vload_half(b, off, p, n, code == vloada_half)?;
            fr.vals.insert(r, out);
            return Ok(());
        }
        let stores = [
            (C::vstore_half, false, false),
            (C::vstore_half_r, false, true),
            (C::vstore_halfn, false, false),
            (C::vstore_halfn_r, false, true),
            (C::vstorea_halfn, true, false),
            (C::vstorea_halfn_r, true, true),
        ];
        if let Some(&(_, aligned, rounded)) = stores.iter().find(|(c, _, _)| *c as u32 == code) {
            let data = self.get(fr, id_operand(i, 2)?)?;
            let off = self.get1(fr, id_operand(i, 3)?)?;
            let p = self.get1(fr, id_operand(i, 4)?)?;
            let mode = if rounded {
                let m = lit(5).ok_or(invalid("vstore_half_r without a rounding mode"))?;
                super::half::HalfRound::from_spirv(m).ok_or(invalid(format!("rounding mode {m}")))?
            } else {
                super::half::HalfRound::Rte
            };
            self.vstore_half(b, &data, off, p, aligned, mode)?;
            fr.vals.insert(r, Vec::new());
            return Ok(());
        }
        if code == C::vloadn as u32 || code == C::vstoren as u32 {
            // vloadn(offset, p, n) / vstoren(data, offset, p): element-aligned vector access.
            let load = code == C::vloadn as u32;
            let (off_k, p_k) = if load { (2, 3) } else { (3, 4) };
            let off = self.get1(fr, id_operand(i, off_k)?)?;
            let p_id = id_operand(i, p_k)?;
            let p = self.get1(fr, p_id)?;
            let (_, elem) = self.m.types.pointee(self.type_of(p_id)?)?;
            let es = self.m.types.size(elem)?;
            let data = if load { Vec::new() } else { self.get(fr, id_operand(i, 2)?)? };
            let n = match (load, i.operands.get(4)) {
                (true, Some(Operand::LiteralBit32(n))) => *n,
                // rspirv decodes extended-instruction operands as ids.
                (true, Some(Operand::IdRef(n))) => *n,
                (true, _) => return Err(invalid("vloadn without a literal size")),
                _ => data.len() as u32,
            };
            let pty = self.f.ty(p);
            let base = self.index(b, p, off, es * n, pty)?;
            let mut out = Vec::new();
            for k in 0..n {
                let a = self.offset_ptr(b, base, k * es);
                if load {
                    out.extend(self.load_leaves(b, a, elem)?);
                } else {
                    self.store_leaves(b, a, elem, &data[k as usize..k as usize + 1])?;
                }
            }
            fr.vals.insert(r, out);
            return Ok(());
        }
        let mut args = Vec::new();
        for k in 2..i.operands.len() {
            args.push(self.get(fr, id_operand(i, k)?)?);
        }
        let flush = self.flush_f32 && denormals::flushes_ext(code);
        let args = if flush { self.flush_all(b, args) } else { args };
        let mut out = self.lower_ext(b, code, ty, &args)?;
        if flush {
            out = self.flush_all(b, vec![out]).remove(0);
        }
        fr.vals.insert(r, out);
        Ok(())
    }
}

/// The file name of an `OpString` as the user knows it: clang calls the source string it reads
/// from standard input `<stdin>` (joined to the current directory by llvm-spirv), the build log
/// and the line table [`SOURCE_STRING_NAME`].
fn source_name(s: &str) -> String {
    if s == "<stdin>" || s.ends_with("/<stdin>") || s == "-" {
        SOURCE_STRING_NAME.to_string()
    } else {
        s.to_string()
    }
}
