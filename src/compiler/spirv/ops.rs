//! Instruction lowering for values: arithmetic, comparisons, conversions, composites, atomics and
//! the OpenCL.std extended instructions. Vector operations apply leaf by leaf.

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;
use super::types::SType;
use super::{invalid, lit_operand};
use rspirv::dr::{Instruction, Operand};
use spirv::Op as S;

fn lits(i: &Instruction, from: usize) -> Vec<u32> {
    i.operands[from..].iter().filter_map(|o| if let Operand::LiteralBit32(x) = o { Some(*x) } else { None }).collect()
}

/// Operand `k` of instruction `op` (its values, one per scalar leaf), or the build error naming
/// the instruction when the module left it out.
fn operand(op: S, a: &[Vec<Value>], k: usize) -> Result<&Vec<Value>, CompileError> {
    a.get(k).ok_or_else(|| invalid(format!("{op:?}: missing operand")))
}
impl Lowerer<'_> {
    /// Leaf types of the result type.
    fn leaf_types(&self, ty: u32) -> Result<Vec<Ty>, CompileError> {
        let l = self.m.types.leaves(ty)?;
        Ok(l.into_iter().map(|(_, t)| t).collect())
    }

    fn is_signed(&self, ty: u32) -> bool {
        let elem = match self.m.types.get(ty) {
            Ok(SType::Vector { elem, .. }) => *elem,
            _ => ty,
        };
        matches!(self.m.types.get(elem), Ok(SType::Int { signed: true, .. }))
    }

    /// Leafwise binary operation.
    fn zip2(
        &mut self,
        b: BlockId,
        tys: &[Ty],
        x: &[Value],
        y: &[Value],
        op: impl Fn(Value, Value) -> Op,
    ) -> Result<Vec<Value>, CompileError> {
        if x.len() != tys.len() || y.len() != tys.len() {
            return Err(invalid("operands of different shapes"));
        }
        Ok((0..tys.len()).map(|k| self.f.push(b, tys[k], op(x[k], y[k]))).collect())
    }

    fn zip1(
        &mut self,
        b: BlockId,
        tys: &[Ty],
        x: &[Value],
        op: impl Fn(Value) -> Op,
    ) -> Result<Vec<Value>, CompileError> {
        if x.len() != tys.len() {
            return Err(invalid("operand of a different shape"));
        }
        Ok((0..tys.len()).map(|k| self.f.push(b, tys[k], op(x[k]))).collect())
    }

    pub(super) fn lower_arith(
        &mut self,
        b: BlockId,
        i: &Instruction,
        ty: u32,
        a: &[Vec<Value>],
    ) -> Result<Vec<Value>, CompileError> {
        let op = i.class.opcode;
        let arg = |k: usize| operand(op, a, k);
        macro_rules! bin {
            ($o:expr) => {{
                let tys = self.leaf_types(ty)?;
                let (x, y) = (arg(0)?.clone(), arg(1)?.clone());
                self.zip2(b, &tys, &x, &y, |p, q| Op::Bin($o, p, q))
            }};
        }
        macro_rules! cmp {
            ($o:expr) => {{
                let tys = self.leaf_types(ty)?;
                let (x, y) = (arg(0)?.clone(), arg(1)?.clone());
                self.zip2(b, &tys, &x, &y, |p, q| Op::Cmp($o, p, q))
            }};
        }
        macro_rules! not_cmp {
            ($o:expr) => {{
                let c = cmp!($o)?;
                let tys = self.leaf_types(ty)?;
                self.zip1(b, &tys, &c, |p| Op::Un(UnOp::Not, p))
            }};
        }
        match op {
            S::IAdd => bin!(BinOp::Add),
            S::ISub => bin!(BinOp::Sub),
            S::IMul => bin!(BinOp::Mul),
            S::UDiv => bin!(BinOp::DivU),
            S::SDiv => bin!(BinOp::DivS),
            S::UMod => bin!(BinOp::RemU),
            S::SRem => bin!(BinOp::RemS),
            S::SMod => {
                // Result takes the sign of the divisor: r = rem(a, b); if r != 0 && (r ^ b) < 0 { r + b }.
                let tys = self.leaf_types(ty)?;
                let (x, y) = (arg(0)?.clone(), arg(1)?.clone());
                let mut out = Vec::new();
                for k in 0..tys.len() {
                    let t = tys[k];
                    let r = self.f.push(b, t, Op::Bin(BinOp::RemS, x[k], y[k]));
                    let z = self.const_val(t, 0);
                    let nz = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Ne, r, z));
                    let xr = self.f.push(b, t, Op::Bin(BinOp::Xor, r, y[k]));
                    let neg = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtS, xr, z));
                    let both = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, nz, neg));
                    let fixed = self.f.push(b, t, Op::Bin(BinOp::Add, r, y[k]));
                    out.push(self.f.push(b, t, Op::Select(both, fixed, r)));
                }
                Ok(out)
            }
            S::FAdd => bin!(BinOp::FAdd),
            S::FSub => bin!(BinOp::FSub),
            S::FMul => bin!(BinOp::FMul),
            S::FDiv => bin!(BinOp::FDiv),
            S::FRem | S::FMod => Err(self.err("floating-point remainder (fmod, %)")),
            S::ShiftLeftLogical => bin!(BinOp::Shl),
            S::ShiftRightLogical => bin!(BinOp::ShrL),
            S::ShiftRightArithmetic => bin!(BinOp::ShrA),
            S::BitwiseAnd | S::LogicalAnd => bin!(BinOp::And),
            S::BitwiseOr | S::LogicalOr => bin!(BinOp::Or),
            S::BitwiseXor | S::LogicalNotEqual => bin!(BinOp::Xor),
            S::LogicalEqual => not_cmp!(CmpOp::Ne),
            S::Not | S::LogicalNot => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                self.zip1(b, &tys, &x, |p| Op::Un(UnOp::Not, p))
            }
            S::SNegate => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                self.zip1(b, &tys, &x, |p| Op::Un(UnOp::Neg, p))
            }
            S::FNegate => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                self.zip1(b, &tys, &x, |p| Op::Un(UnOp::FNeg, p))
            }
            S::IEqual => cmp!(CmpOp::Eq),
            S::INotEqual => cmp!(CmpOp::Ne),
            S::ULessThan => cmp!(CmpOp::LtU),
            S::ULessThanEqual => cmp!(CmpOp::LeU),
            S::UGreaterThan => cmp!(CmpOp::GtU),
            S::UGreaterThanEqual => cmp!(CmpOp::GeU),
            S::SLessThan => cmp!(CmpOp::LtS),
            S::SLessThanEqual => cmp!(CmpOp::LeS),
            S::SGreaterThan => cmp!(CmpOp::GtS),
            S::SGreaterThanEqual => cmp!(CmpOp::GeS),
            S::FOrdEqual => cmp!(CmpOp::FEq),
            S::FOrdNotEqual => cmp!(CmpOp::FNe),
            S::FOrdLessThan => cmp!(CmpOp::FLt),
            S::FOrdLessThanEqual => cmp!(CmpOp::FLe),
            S::FOrdGreaterThan => cmp!(CmpOp::FGt),
            S::FOrdGreaterThanEqual => cmp!(CmpOp::FGe),
            S::FUnordEqual => not_cmp!(CmpOp::FNe),
            S::FUnordNotEqual => not_cmp!(CmpOp::FEq),
            S::FUnordLessThan => not_cmp!(CmpOp::FGe),
            S::FUnordLessThanEqual => not_cmp!(CmpOp::FGt),
            S::FUnordGreaterThan => not_cmp!(CmpOp::FLe),
            S::FUnordGreaterThanEqual => not_cmp!(CmpOp::FLt),
            S::Ordered => cmp!(CmpOp::FOrd),
            S::Unordered => cmp!(CmpOp::FUno),
            S::IsNan => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                self.zip2(b, &tys, &x, &x, |p, q| Op::Cmp(CmpOp::FUno, p, q))
            }
            S::IsInf | S::IsFinite => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                let inf = self.const_val(Ty::F32, f32::INFINITY.to_bits() as u64);
                let mut out = Vec::new();
                for &xk in &x[..tys.len()] {
                    let ab = self.f.push(b, Ty::F32, Op::Un(UnOp::FAbs, xk));
                    let c = if op == S::IsInf { CmpOp::FEq } else { CmpOp::FLt };
                    out.push(self.f.push(b, Ty::I1, Op::Cmp(c, ab, inf)));
                }
                Ok(out)
            }
            S::IsNormal => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                let (min, inf) = (
                    self.const_val(Ty::F32, f32::MIN_POSITIVE.to_bits() as u64),
                    self.const_val(Ty::F32, f32::INFINITY.to_bits() as u64),
                );
                let mut out = Vec::new();
                for xv in x.iter().take(tys.len()) {
                    let ab = self.f.push(b, Ty::F32, Op::Un(UnOp::FAbs, *xv));
                    let lo = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGe, ab, min));
                    let hi = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FLt, ab, inf));
                    out.push(self.f.push(b, Ty::I1, Op::Bin(BinOp::And, lo, hi)));
                }
                Ok(out)
            }
            S::SignBitSet => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                let mut out = Vec::new();
                for xv in x.iter().take(tys.len()) {
                    let bits = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, *xv));
                    let z = self.const_val(Ty::I32, 0);
                    out.push(self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtS, bits, z)));
                }
                Ok(out)
            }
            S::Any | S::All => {
                let x = arg(0)?.clone();
                let mut acc = *x.first().ok_or(invalid("any/all of an empty vector"))?;
                for v in &x[1..] {
                    let o = if op == S::Any { BinOp::Or } else { BinOp::And };
                    acc = self.f.push(b, Ty::I1, Op::Bin(o, acc, *v));
                }
                Ok(vec![acc])
            }
            S::Select => {
                let tys = self.leaf_types(ty)?;
                let (c, x, y) = (arg(0)?.clone(), arg(1)?.clone(), arg(2)?.clone());
                Ok((0..tys.len())
                    .map(|k| {
                        let ck = if c.len() == 1 { c[0] } else { c[k] };
                        self.f.push(b, tys[k], Op::Select(ck, x[k], y[k]))
                    })
                    .collect())
            }
            S::ConvertFToU
            | S::ConvertFToS
            | S::ConvertSToF
            | S::ConvertUToF
            | S::UConvert
            | S::SConvert
            | S::SatConvertSToU
            | S::SatConvertUToS
            | S::FConvert
            | S::ConvertPtrToU
            | S::ConvertUToPtr
            | S::Bitcast
            | S::PtrCastToGeneric
            | S::GenericCastToPtr
            | S::GenericCastToPtrExplicit => self.lower_convert(b, i, ty, a),
            // `get_fence`: the memory-semantics bit of the pointer's address space (llvm-spirv
            // turns it into `CLK_LOCAL_MEM_FENCE`/`CLK_GLOBAL_MEM_FENCE` by `>> 8`).
            S::GenericPtrMemSemantics => {
                let p = arg(0)?.first().copied().ok_or_else(|| invalid("OpGenericPtrMemSemantics: no pointer"))?;
                let sem = |s: Space| match s {
                    Space::Local => spirv::MemorySemantics::WORKGROUP_MEMORY.bits() as u64,
                    Space::Global | Space::Constant => spirv::MemorySemantics::CROSS_WORKGROUP_MEMORY.bits() as u64,
                    Space::Private | Space::Generic => 0,
                };
                match self.f.ty(p) {
                    Ty::Ptr(Space::Generic) => {
                        let local = super::super::pass::generic::in_space(&mut self.f, b, p, Space::Local);
                        let global = super::super::pass::generic::in_space(&mut self.f, b, p, Space::Global);
                        let (l, g, z) = (
                            self.const_val(Ty::I32, sem(Space::Local)),
                            self.const_val(Ty::I32, sem(Space::Global)),
                            self.const_val(Ty::I32, 0),
                        );
                        let other = self.f.push(b, Ty::I32, Op::Select(global, g, z));
                        Ok(vec![self.f.push(b, Ty::I32, Op::Select(local, l, other))])
                    }
                    Ty::Ptr(s) => Ok(vec![self.const_val(Ty::I32, sem(s))]),
                    _ => Err(invalid("OpGenericPtrMemSemantics of a non-pointer")),
                }
            }
            S::CopyObject => Ok(arg(0)?.clone()),
            S::Undef => {
                let tys = self.leaf_types(ty)?;
                Ok(tys.into_iter().map(|t| self.f.push(b, t, Op::Undef)).collect())
            }
            S::CompositeConstruct
            | S::CompositeExtract
            | S::CompositeInsert
            | S::VectorShuffle
            | S::VectorExtractDynamic
            | S::VectorInsertDynamic
            | S::Dot => self.lower_composite(b, i, ty, a),
            S::BitCount => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                self.zip1(b, &tys, &x, |p| Op::Un(UnOp::Popcount, p))
            }
            S::AtomicIAdd
            | S::AtomicISub
            | S::AtomicExchange
            | S::AtomicSMin
            | S::AtomicSMax
            | S::AtomicUMin
            | S::AtomicUMax
            | S::AtomicAnd
            | S::AtomicOr
            | S::AtomicXor
            | S::AtomicFlagTestAndSet
            | S::AtomicIIncrement
            | S::AtomicIDecrement
            | S::AtomicCompareExchange
            | S::AtomicCompareExchangeWeak => self.lower_atomic(b, i, ty, a),
            S::VectorTimesScalar => {
                // Float vectors only (double and half vectors are lowered by fp64/fp16).
                let (x, s) = (arg(0)?.clone(), arg(1)?.clone());
                let s = *s.first().ok_or_else(|| self.err("OpVectorTimesScalar without a scalar"))?;
                Ok(x.iter().map(|&v| self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, v, s))).collect())
            }
            other => Err(self.err(&format!("SPIR-V instruction {other:?}"))),
        }
    }

    /// Lowers the conversions between number types and pointers, bit casts (the rest of [`Self::lower_arith`]).
    fn lower_convert(
        &mut self,
        b: BlockId,
        i: &Instruction,
        ty: u32,
        a: &[Vec<Value>],
    ) -> Result<Vec<Value>, CompileError> {
        let op = i.class.opcode;
        let arg = |k: usize| operand(op, a, k);
        match op {
            S::ConvertFToU | S::ConvertFToS | S::ConvertSToF | S::ConvertUToF => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                if x.len() != tys.len() {
                    return Err(invalid("a conversion whose operand and result have different component counts"));
                }
                let (sat, mode) = self.conv_mods(i);
                let mut out = Vec::new();
                for k in 0..tys.len() {
                    out.push(match op {
                        S::ConvertFToU | S::ConvertFToS => {
                            self.float_to_int(b, x[k], tys[k], op == S::ConvertFToS, sat, mode)
                        }
                        _ => self.int_to_float(b, x[k], op == S::ConvertSToF, mode),
                    });
                }
                Ok(out)
            }
            S::UConvert | S::SConvert | S::SatConvertSToU | S::SatConvertUToS => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                if x.len() != tys.len() {
                    return Err(invalid("a conversion whose operand and result have different component counts"));
                }
                let (sat, _) = self.conv_mods(i);
                let sat = sat || matches!(op, S::SatConvertSToU | S::SatConvertUToS);
                let src_signed = matches!(op, S::SConvert | S::SatConvertSToU);
                let dst_signed = matches!(op, S::SConvert | S::SatConvertUToS);
                let mut out = Vec::new();
                for k in 0..tys.len() {
                    out.push(if sat {
                        self.clamp_int(b, x[k], src_signed, tys[k], dst_signed)
                    } else {
                        self.resize(b, x[k], tys[k], src_signed)
                    });
                }
                Ok(out)
            }
            S::FConvert => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                if x.iter().any(|v| self.f.ty(*v) != Ty::F32) || tys.iter().any(|t| *t != Ty::F32) {
                    return Err(self.err("conversions to or from double/half"));
                }
                Ok(x)
            }
            S::ConvertPtrToU | S::ConvertUToPtr => {
                // Pointers are 32-bit: zero-extend to / truncate from 64-bit integers.
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                Ok(tys.iter().zip(&x).map(|(t, v)| self.pointer_int(b, *t, *v)).collect())
            }
            S::Bitcast => self.bitcast(b, ty, arg(0)?.clone()),
            // The generic address space (see `pass::generic`): a cast keeps the address.
            S::PtrCastToGeneric | S::GenericCastToPtr => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                Ok(tys.iter().zip(&x).map(|(t, v)| self.f.push(b, *t, Op::Copy(*v))).collect())
            }
            // `to_global`/`to_local`/`to_private`: the address when it lies in that space, else
            // NULL.
            S::GenericCastToPtrExplicit => {
                let tys = self.leaf_types(ty)?;
                let x = arg(0)?.clone();
                let (&[t], &[p]) = (&tys[..], &x[..]) else {
                    return Err(invalid("OpGenericCastToPtrExplicit of a non-pointer"));
                };
                let Ty::Ptr(want) = t else {
                    return Err(invalid("OpGenericCastToPtrExplicit to a non-pointer"));
                };
                match self.f.ty(p) {
                    Ty::Ptr(s) if s == want => Ok(vec![self.f.push(b, t, Op::Copy(p))]),
                    Ty::Ptr(Space::Generic) => {
                        let inside = super::super::pass::generic::in_space(&mut self.f, b, p, want);
                        let null = self.f.push(b, t, Op::Const(0));
                        let q = self.f.push(b, t, Op::Copy(p));
                        Ok(vec![self.f.push(b, t, Op::Select(inside, q, null))])
                    }
                    _ => Ok(vec![self.f.push(b, t, Op::Const(0))]),
                }
            }
            other => Err(self.err(&format!("SPIR-V instruction {other:?}"))),
        }
    }

    /// Lowers the vectors and aggregates: construction, extraction, insertion, shuffles, dot products (the rest of [`Self::lower_arith`]).
    fn lower_composite(
        &mut self,
        b: BlockId,
        i: &Instruction,
        ty: u32,
        a: &[Vec<Value>],
    ) -> Result<Vec<Value>, CompileError> {
        let op = i.class.opcode;
        let arg = |k: usize| operand(op, a, k);
        match op {
            S::CompositeConstruct => Ok(a.iter().flatten().copied().collect()),
            S::CompositeExtract => {
                let src = super::id_operand(i, 0)?;
                let mut t = *self.m.id_types.get(&src).ok_or(invalid("composite without type"))?;
                let mut range = (0usize, arg(0)?.len());
                // `get_global_id(4)`: clang indexes the 3-vector of a work-item built-in past its
                // end; the value is the built-in's default.
                if let [idx] = lits(i, 1)[..] {
                    let x = arg(0)?;
                    if idx as usize >= x.len() {
                        let t = self.f.ty(x[0]);
                        if let Some(d) = self.work_item_default(x[0], t) {
                            return Ok(vec![d]);
                        }
                    }
                }
                for idx in lits(i, 1) {
                    let (start, n, et) = self.m.types.member_leaves(t, idx)?;
                    range = (range.0 + start, n);
                    t = et;
                }
                Ok(arg(0)?[range.0..range.0 + range.1].to_vec())
            }
            S::CompositeInsert => {
                let obj = arg(0)?.clone();
                let mut out = arg(1)?.clone();
                let mut t = ty;
                let mut start = 0usize;
                for idx in lits(i, 2) {
                    let (s, _, et) = self.m.types.member_leaves(t, idx)?;
                    start += s;
                    t = et;
                }
                if start + obj.len() > out.len() {
                    return Err(invalid("composite insert out of range"));
                }
                out[start..start + obj.len()].copy_from_slice(&obj);
                Ok(out)
            }
            S::VectorShuffle => {
                let (x, y) = (arg(0)?.clone(), arg(1)?.clone());
                let all: Vec<Value> = x.iter().chain(&y).copied().collect();
                let tys = self.leaf_types(ty)?;
                let comps = lits(i, 2);
                let mut out = Vec::new();
                for (k, c) in comps.iter().enumerate() {
                    out.push(match all.get(*c as usize) {
                        Some(v) => *v,
                        None => self.f.push(b, tys[k], Op::Undef),
                    });
                }
                Ok(out)
            }
            S::VectorExtractDynamic => {
                let (x, idx) = (arg(0)?.clone(), arg(1)?.clone());
                let t = self.f.ty(x[0]);
                let idx = idx[0];
                // A work-item vector (`get_global_id(d)` with a run-time `d`): dimensions past
                // the vector give the built-in's default.
                let default = self.work_item_default(x[0], t);
                Ok(vec![self.select_element(b, &x, idx, default)])
            }
            S::VectorInsertDynamic => {
                let (x, comp, idx) = (arg(0)?.clone(), arg(1)?.clone(), arg(2)?.clone());
                let mut out = Vec::new();
                for (k, v) in x.iter().enumerate() {
                    let it = self.f.ty(idx[0]);
                    let c = self.const_val(it, k as u64);
                    let eq = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, idx[0], c));
                    let t = self.f.ty(*v);
                    out.push(self.f.push(b, t, Op::Select(eq, comp[0], *v)));
                }
                Ok(out)
            }
            S::Dot => {
                let (x, y) = (arg(0)?.clone(), arg(1)?.clone());
                let mut acc = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, x[0], y[0]));
                for k in 1..x.len() {
                    let p = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, x[k], y[k]));
                    acc = self.f.push(b, Ty::F32, Op::Bin(BinOp::FAdd, acc, p));
                }
                Ok(vec![acc])
            }
            other => Err(self.err(&format!("SPIR-V instruction {other:?}"))),
        }
    }

    /// Lowers the atomic instructions (the rest of [`Self::lower_arith`]).
    fn lower_atomic(
        &mut self,
        b: BlockId,
        i: &Instruction,
        ty: u32,
        a: &[Vec<Value>],
    ) -> Result<Vec<Value>, CompileError> {
        let op = i.class.opcode;
        let arg = |k: usize| operand(op, a, k);
        match op {
            S::AtomicIAdd
            | S::AtomicISub
            | S::AtomicExchange
            | S::AtomicSMin
            | S::AtomicSMax
            | S::AtomicUMin
            | S::AtomicUMax
            | S::AtomicAnd
            | S::AtomicOr
            | S::AtomicXor => {
                let t = self.leaf_types(ty)?[0];
                let o = match op {
                    S::AtomicIAdd => AtomicOp::Add,
                    S::AtomicISub => AtomicOp::Sub,
                    S::AtomicExchange => AtomicOp::Xchg,
                    S::AtomicSMin => AtomicOp::MinS,
                    S::AtomicSMax => AtomicOp::MaxS,
                    S::AtomicUMin => AtomicOp::MinU,
                    S::AtomicUMax => AtomicOp::MaxU,
                    S::AtomicAnd => AtomicOp::And,
                    S::AtomicOr => AtomicOp::Or,
                    _ => AtomicOp::Xor,
                };
                Ok(vec![self.f.push(b, t, Op::Atomic { op: o, ptr: arg(0)?[0], value: arg(3)?[0] })])
            }
            // atomic_flag (a 32-bit int): test-and-set is an exchange with 1, clear one with 0.
            S::AtomicFlagTestAndSet => {
                let one = self.const_val(Ty::I32, 1);
                let old = self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::Xchg, ptr: arg(0)?[0], value: one });
                let zero = self.const_val(Ty::I32, 0);
                Ok(vec![self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Ne, old, zero))])
            }
            S::AtomicIIncrement | S::AtomicIDecrement => {
                let t = self.leaf_types(ty)?[0];
                let one = self.const_val(t, 1);
                let o = if op == S::AtomicIIncrement { AtomicOp::Add } else { AtomicOp::Sub };
                Ok(vec![self.f.push(b, t, Op::Atomic { op: o, ptr: arg(0)?[0], value: one })])
            }
            S::AtomicCompareExchange | S::AtomicCompareExchangeWeak => {
                let t = self.leaf_types(ty)?[0];
                Ok(vec![self.f.push(b, t, Op::CmpXchg { ptr: arg(0)?[0], expected: arg(5)?[0], desired: arg(4)?[0] })])
            }
            other => Err(self.err(&format!("SPIR-V instruction {other:?}"))),
        }
    }

    /// If `v` is the first component of a work-item built-in vector (`get_global_size` …), the
    /// value of a dimension past its end: 1 for sizes and group counts, 0 for ids and offsets
    /// (OpenCL C §6.15.1).
    fn work_item_default(&mut self, v: Value, t: Ty) -> Option<Value> {
        let def =
            |v: Value| self.f.block(self.prelude).insts.iter().find(|i| i.result == Some(v)).map(|i| i.op.clone());
        // A `Physical64` module's `size_t` built-ins are the 32-bit values zero-extended.
        let op = match def(v)? {
            Op::Conv(ConvOp::ZExt, x) => def(x)?,
            op => op,
        };
        let Op::WorkItem(w, 0) = op else { return None };
        let one =
            matches!(w, WorkItem::GlobalSize | WorkItem::LocalSize | WorkItem::EnqueuedLocalSize | WorkItem::NumGroups);
        Some(self.const_val(t, one as u64))
    }

    /// `elems[idx]` for a run-time `idx`, as a chain of selects; an index outside `elems` gives
    /// `default` (or `elems[0]` without one).
    fn select_element(&mut self, b: BlockId, elems: &[Value], idx: Value, default: Option<Value>) -> Value {
        let t = self.f.ty(elems[0]);
        let it = self.f.ty(idx);
        let (mut r, first) = match default {
            Some(d) => (d, 0),
            None => (elems[0], 1),
        };
        for (k, v) in elems.iter().enumerate().skip(first) {
            let c = self.const_val(it, k as u64);
            let eq = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, idx, c));
            r = self.f.push(b, t, Op::Select(eq, *v, r));
        }
        r
    }

    /// A pointer as an integer of type `t` or an integer as a pointer `t` (pointers are 32-bit
    /// values: zero-extended to a wider integer, truncated from one).
    fn pointer_int(&mut self, b: BlockId, t: Ty, v: Value) -> Value {
        let from = self.f.ty(v);
        if t == from {
            return v;
        }
        if t.bits() > from.bits() {
            return self.f.push(b, t, Op::Conv(ConvOp::ZExt, v));
        }
        if t.bits() == from.bits() {
            return self.f.push(b, t, Op::Conv(ConvOp::Bitcast, v));
        }
        // Narrower: through a 32-bit integer.
        let w = match from {
            Ty::Ptr(_) => self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v)),
            Ty::I32 => v,
            _ => self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, v)),
        };
        match t {
            Ty::Ptr(_) => self.f.push(b, t, Op::Conv(ConvOp::Bitcast, w)),
            Ty::I32 => w,
            _ => self.f.push(b, t, Op::Conv(ConvOp::Trunc, w)),
        }
    }

    /// Same-size reinterpretation, including vectors of different element counts.
    fn bitcast(&mut self, b: BlockId, ty: u32, x: Vec<Value>) -> Result<Vec<Value>, CompileError> {
        let tys = self.leaf_types(ty)?;
        // A pointer ↔ 64-bit integer bit-cast (`Physical64`): the 32-bit address zero-extended
        // or truncated.
        if let ([t], [v]) = (&tys[..], &x[..]) {
            if matches!(t, Ty::Ptr(_)) != matches!(self.f.ty(*v), Ty::Ptr(_)) && t.bits() != self.f.ty(*v).bits() {
                return Ok(vec![self.pointer_int(b, *t, *v)]);
            }
        }
        if tys.len() == x.len() && tys.iter().zip(&x).all(|(t, v)| t.bits() == self.f.ty(*v).bits()) {
            return Ok(tys
                .iter()
                .zip(&x)
                .map(|(t, v)| if *t == self.f.ty(*v) { *v } else { self.f.push(b, *t, Op::Conv(ConvOp::Bitcast, *v)) })
                .collect());
        }
        // Repack through 32-bit words: only narrow integer/float leaves.
        let src_bits: Vec<u32> = x.iter().map(|v| self.f.ty(*v).bits()).collect();
        let total: u32 = src_bits.iter().sum();
        if total != tys.iter().map(|t| t.bits()).sum::<u32>() || total % 8 != 0 {
            return Err(self.err("this bit-cast between vector types"));
        }
        // Extract the source as a list of bytes (each an i32 0..255), then assemble results.
        let mut bytes = Vec::new();
        for (v, bits) in x.iter().zip(&src_bits) {
            // 32-bit words of the leaf (a 64-bit leaf gives two, low first).
            let words = match self.f.ty(*v) {
                Ty::I32 => vec![*v],
                Ty::I64 => {
                    let lo = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, *v));
                    let k32 = self.const_val(Ty::I64, 32);
                    let h = self.f.push(b, Ty::I64, Op::Bin(BinOp::ShrL, *v, k32));
                    vec![lo, self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, h))]
                }
                t => {
                    let c = if t.is_float() || matches!(t, Ty::Ptr(_)) { ConvOp::Bitcast } else { ConvOp::ZExt };
                    vec![self.f.push(b, Ty::I32, Op::Conv(c, *v))]
                }
            };
            for k in 0..bits / 8 {
                let w = words[(k / 4) as usize];
                let sh = self.const_val(Ty::I32, 8 * (k % 4) as u64);
                let s = self.f.push(b, Ty::I32, Op::Bin(BinOp::ShrL, w, sh));
                let m = self.const_val(Ty::I32, 0xff);
                bytes.push(self.f.push(b, Ty::I32, Op::Bin(BinOp::And, s, m)));
            }
        }
        let mut out = Vec::new();
        let mut pos = 0;
        for t in tys {
            let n = (t.bits() / 8) as usize;
            let mut words = Vec::new();
            for w in 0..n.div_ceil(4) {
                let mut acc = bytes[pos + 4 * w];
                for k in 1..(n - 4 * w).min(4) {
                    let sh = self.const_val(Ty::I32, 8 * k as u64);
                    let s = self.f.push(b, Ty::I32, Op::Bin(BinOp::Shl, bytes[pos + 4 * w + k], sh));
                    acc = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, acc, s));
                }
                words.push(acc);
            }
            pos += n;
            let acc = words[0];
            out.push(match t {
                Ty::I64 => {
                    let lo = self.f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, words[0]));
                    let hi = self.f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, words[1]));
                    let k32 = self.const_val(Ty::I64, 32);
                    let hi = self.f.push(b, Ty::I64, Op::Bin(BinOp::Shl, hi, k32));
                    self.f.push(b, Ty::I64, Op::Bin(BinOp::Or, lo, hi))
                }
                Ty::I32 => acc,
                Ty::F32 | Ty::Ptr(_) => self.f.push(b, t, Op::Conv(ConvOp::Bitcast, acc)),
                _ => self.f.push(b, t, Op::Conv(ConvOp::Trunc, acc)),
            });
        }
        Ok(out)
    }

    /// OpenCL.std extended instructions (elementwise over vectors).
    pub(super) fn lower_ext(
        &mut self,
        b: BlockId,
        code: u32,
        ty: u32,
        a: &[Vec<Value>],
    ) -> Result<Vec<Value>, CompileError> {
        // `prefetch` returns void.
        let tys = if matches!(self.m.types.get(ty)?, SType::Void) { Vec::new() } else { self.leaf_types(ty)? };
        let signed = self.is_signed(ty);
        self.lower_ext_tys(b, code, &tys, signed, a)
    }

    /// [`lower_ext`](Self::lower_ext) given the result's leaf types (and whether an integer
    /// result is signed) instead of its SPIR-V type (`spirv::fp16` computes half built-ins on
    /// floats, a type the module may not declare).
    pub(super) fn lower_ext_tys(
        &mut self,
        b: BlockId,
        code: u32,
        tys: &[Ty],
        signed: bool,
        a: &[Vec<Value>],
    ) -> Result<Vec<Value>, CompileError> {
        use spirv::OpenclStd100Op as C;
        let op = C::from_u32(code).ok_or(invalid(format!("unknown OpenCL.std instruction {code}")))?;
        if let Some(r) = self.lower_math(b, op, tys, a)? {
            return Ok(r);
        }
        // Geometric functions reduce over the vector.
        match op {
            C::length | C::fast_length => {
                let d = self.dot(b, &a[0], &a[0]);
                return Ok(vec![self.f.push(b, Ty::F32, Op::Un(UnOp::FSqrt, d))]);
            }
            C::distance | C::fast_distance => {
                let diff: Vec<Value> = a[0]
                    .iter()
                    .zip(&a[1])
                    .map(|(x, y)| self.f.push(b, Ty::F32, Op::Bin(BinOp::FSub, *x, *y)))
                    .collect();
                let d = self.dot(b, &diff, &diff);
                return Ok(vec![self.f.push(b, Ty::F32, Op::Un(UnOp::FSqrt, d))]);
            }
            C::normalize | C::fast_normalize => {
                let d = self.dot(b, &a[0], &a[0]);
                let s = self.f.push(b, Ty::F32, Op::Un(UnOp::FSqrt, d));
                return Ok(a[0].iter().map(|x| self.f.push(b, Ty::F32, Op::Bin(BinOp::FDiv, *x, s))).collect());
            }
            // A hint; our memory has no cache to warm.
            C::prefetch => return Ok(Vec::new()),
            C::shuffle | C::shuffle2 => {
                // Element i = (x ++ y)[mask[i] mod (2^k)], using only the low bits of each mask element.
                let (src, mask): (Vec<Value>, &Vec<Value>) = match op {
                    C::shuffle => (a[0].clone(), &a[1]),
                    _ => (a[0].iter().chain(&a[1]).copied().collect(), &a[2]),
                };
                let n = src.len().next_power_of_two() as u64;
                let mut out = Vec::with_capacity(mask.len());
                for &m in mask {
                    let mt = self.f.ty(m);
                    let bits = self.const_val(mt, n - 1);
                    let idx = self.f.push(b, mt, Op::Bin(BinOp::And, m, bits));
                    out.push(self.select_element(b, &src, idx, None));
                }
                return Ok(out);
            }
            C::cross => {
                let (x, y) = (&a[0], &a[1]);
                let mut out = Vec::new();
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let p = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, x[i], y[j]));
                    let q = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, x[j], y[i]));
                    out.push(self.f.push(b, Ty::F32, Op::Bin(BinOp::FSub, p, q)));
                }
                if x.len() == 4 {
                    out.push(self.const_val(Ty::F32, 0));
                }
                return Ok(out);
            }
            C::printf => return Err(self.err("printf (it arrives with the printf work)")),
            _ => {}
        }
        let mut out = Vec::new();
        for k in 0..tys.len() {
            let t = tys[k];
            let x: Vec<Value> = a.iter().map(|v| if v.len() == 1 { v[0] } else { v[k] }).collect();
            out.push(self.ext_scalar(b, op, t, &x, signed)?);
        }
        Ok(out)
    }

    fn dot(&mut self, b: BlockId, x: &[Value], y: &[Value]) -> Value {
        let mut acc = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, x[0], y[0]));
        for k in 1..x.len().min(y.len()) {
            acc = self.f.push(b, Ty::F32, Op::Fma(x[k], y[k], acc));
        }
        acc
    }

    fn ext_scalar(
        &mut self,
        b: BlockId,
        op: spirv::OpenclStd100Op,
        t: Ty,
        x: &[Value],
        signed: bool,
    ) -> Result<Value, CompileError> {
        use spirv::OpenclStd100Op as C;
        let f = |s: &mut Self, o: Op| s.f.push(b, t, o);
        let cf = |s: &mut Self, v: f32| s.const_val(Ty::F32, v.to_bits() as u64);
        let need = |n: usize| -> Result<(), CompileError> {
            if x.len() < n {
                Err(invalid(format!("{op:?}: too few operands")))
            } else {
                Ok(())
            }
        };
        need(1)?;
        if let Some(v) = self.ext_integer(b, op, t, x)? {
            return Ok(v);
        }
        Ok(match op {
            C::fabs => f(self, Op::Un(UnOp::FAbs, x[0])),
            C::fmin | C::fmin_common => {
                need(2)?;
                f(self, Op::Bin(BinOp::FMin, x[0], x[1]))
            }
            C::fmax | C::fmax_common => {
                need(2)?;
                f(self, Op::Bin(BinOp::FMax, x[0], x[1]))
            }
            C::sqrt | C::native_sqrt | C::half_sqrt => f(self, Op::Un(UnOp::FSqrt, x[0])),
            C::rsqrt | C::native_rsqrt | C::half_rsqrt => {
                let s = f(self, Op::Un(UnOp::FSqrt, x[0]));
                let one = cf(self, 1.0);
                f(self, Op::Bin(BinOp::FDiv, one, s))
            }
            C::fma | C::mad => {
                need(3)?;
                f(self, Op::Fma(x[0], x[1], x[2]))
            }
            C::floor => f(self, Op::Un(UnOp::FFloor, x[0])),
            C::ceil => f(self, Op::Un(UnOp::FCeil, x[0])),
            C::trunc => f(self, Op::Un(UnOp::FTrunc, x[0])),
            C::rint => f(self, Op::Un(UnOp::FRint, x[0])),
            C::round => {
                // Half away from zero: t = trunc(x); |x - t| >= 0.5 ? t + copysign(1, x) : t.
                let tr = f(self, Op::Un(UnOp::FTrunc, x[0]));
                let d = f(self, Op::Bin(BinOp::FSub, x[0], tr));
                let ad = f(self, Op::Un(UnOp::FAbs, d));
                let half = cf(self, 0.5);
                let ge = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGe, ad, half));
                let one = cf(self, 1.0);
                let s = f(self, Op::Bin(BinOp::FCopySign, one, x[0]));
                let up = f(self, Op::Bin(BinOp::FAdd, tr, s));
                f(self, Op::Select(ge, up, tr))
            }
            C::copysign => {
                need(2)?;
                f(self, Op::Bin(BinOp::FCopySign, x[0], x[1]))
            }
            C::fclamp => {
                need(3)?;
                let lo = f(self, Op::Bin(BinOp::FMax, x[0], x[1]));
                f(self, Op::Bin(BinOp::FMin, lo, x[2]))
            }
            C::mix => {
                need(3)?;
                let d = f(self, Op::Bin(BinOp::FSub, x[1], x[0]));
                f(self, Op::Fma(d, x[2], x[0]))
            }
            C::step => {
                need(2)?;
                let lt = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FLt, x[1], x[0]));
                let (z, o) = (cf(self, 0.0), cf(self, 1.0));
                f(self, Op::Select(lt, z, o))
            }
            C::sign => {
                let (z, o) = (cf(self, 0.0), cf(self, 1.0));
                let gt = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGt, x[0], z));
                let lt = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FLt, x[0], z));
                let no = cf(self, -1.0);
                let s1 = f(self, Op::Select(lt, no, x[0]));
                // NaN stays NaN-free per spec: sign(NaN) = 0.
                let nan = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FUno, x[0], x[0]));
                let s2 = f(self, Op::Select(gt, o, s1));
                f(self, Op::Select(nan, z, s2))
            }
            C::degrees => {
                let c = cf(self, 57.295_78);
                f(self, Op::Bin(BinOp::FMul, x[0], c))
            }
            C::radians => {
                let c = cf(self, 0.017_453_292);
                f(self, Op::Bin(BinOp::FMul, x[0], c))
            }
            C::fdim => {
                need(2)?;
                let d = f(self, Op::Bin(BinOp::FSub, x[0], x[1]));
                let gt = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGt, x[0], x[1]));
                let z = cf(self, 0.0);
                let nan = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FUno, x[0], x[1]));
                let r = f(self, Op::Select(gt, d, z));
                f(self, Op::Select(nan, d, r))
            }
            C::native_divide | C::half_divide => {
                need(2)?;
                f(self, Op::Bin(BinOp::FDiv, x[0], x[1]))
            }
            C::native_recip | C::half_recip => {
                let one = cf(self, 1.0);
                f(self, Op::Bin(BinOp::FDiv, one, x[0]))
            }
            C::native_exp | C::half_exp | C::exp => f(self, Op::Un(UnOp::FExp, x[0])),
            C::native_exp2 | C::half_exp2 => {
                let c = cf(self, std::f32::consts::LN_2);
                let m = f(self, Op::Bin(BinOp::FMul, x[0], c));
                f(self, Op::Un(UnOp::FExp, m))
            }
            C::native_exp10 | C::half_exp10 => {
                let c = cf(self, std::f32::consts::LN_10);
                let m = f(self, Op::Bin(BinOp::FMul, x[0], c));
                f(self, Op::Un(UnOp::FExp, m))
            }
            C::s_abs => {
                let z = self.const_val(t, 0);
                let neg = f(self, Op::Un(UnOp::Neg, x[0]));
                let lt = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtS, x[0], z));
                f(self, Op::Select(lt, neg, x[0]))
            }
            C::u_abs => x[0],
            C::s_max => {
                need(2)?;
                f(self, Op::Bin(BinOp::MaxS, x[0], x[1]))
            }
            C::s_min => {
                need(2)?;
                f(self, Op::Bin(BinOp::MinS, x[0], x[1]))
            }
            C::u_max => {
                need(2)?;
                f(self, Op::Bin(BinOp::MaxU, x[0], x[1]))
            }
            C::u_min => {
                need(2)?;
                f(self, Op::Bin(BinOp::MinU, x[0], x[1]))
            }
            C::s_clamp | C::u_clamp => {
                need(3)?;
                let (mx, mn) = if op == C::s_clamp { (BinOp::MaxS, BinOp::MinS) } else { (BinOp::MaxU, BinOp::MinU) };
                let lo = f(self, Op::Bin(mx, x[0], x[1]));
                f(self, Op::Bin(mn, lo, x[2]))
            }
            C::s_mad24 | C::u_mad24 => {
                need(3)?;
                let p = f(self, Op::Bin(BinOp::Mul, x[0], x[1]));
                f(self, Op::Bin(BinOp::Add, p, x[2]))
            }
            C::s_mul24 | C::u_mul24 => {
                need(2)?;
                f(self, Op::Bin(BinOp::Mul, x[0], x[1]))
            }
            C::popcount => f(self, Op::Un(UnOp::Popcount, x[0])),
            C::rotate => {
                need(2)?;
                let w = self.const_val(t, t.bits() as u64);
                let m = self.const_val(t, (t.bits() - 1) as u64);
                let n = f(self, Op::Bin(BinOp::And, x[1], m));
                let l = f(self, Op::Bin(BinOp::Shl, x[0], n));
                let rn = f(self, Op::Bin(BinOp::Sub, w, n));
                let rn = f(self, Op::Bin(BinOp::And, rn, m));
                let r = f(self, Op::Bin(BinOp::ShrL, x[0], rn));
                let zero = self.const_val(t, 0);
                let is0 = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, n, zero));
                let o = f(self, Op::Bin(BinOp::Or, l, r));
                f(self, Op::Select(is0, x[0], o))
            }
            other => {
                let _ = signed;
                return Err(self.err(&format!("the built-in function `{other:?}`")));
            }
        })
    }
}

#[allow(dead_code)]
fn _lit(i: &Instruction) -> Result<u32, CompileError> {
    lit_operand(i, 0)
}
