//! `double` (cl_khr_fp64) in software. A double lives in the IR as its IEEE bit pattern in a
//! `Ty::I64` (so loads, stores, moves, φs, selects and bit-casts need nothing special, and
//! `pass::legalize64` keeps it in a 32-bit register pair); every operation that *computes* on
//! doubles is lowered here to a call of the soft-double library (`compiler/softlib/fp64.cl`):
//! from a kernel an out-of-line subroutine call (`Op::Call`, one shared body per program, see
//! `target::call`), inside the library an inlined call of the same call level. Cheap bit
//! operations (neg, fabs, copysign, classification) stay inline.
//!
//! Contract: [`Lowerer::lower_f64`] handles every SPIR-V instruction that does floating-point
//! work with a double operand or result and returns `None` for the type-agnostic ones, which
//! the ordinary paths then translate. An OpenCL.std built-in on doubles maps to the library's
//! `__vt_d_<name>` (elementwise, scalars broadcast); one the library lacks is reported as
//! unsupported, naming it.

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;
use super::types::SType;
use super::{id_operand, invalid};
use crate::abi::subroutine::F64Primitive;
use rspirv::dr::{Instruction, Operand};
use spirv::FPRoundingMode as M;
use spirv::Op as S;
use spirv::OpenclStd100Op as C;

const SIGN: u64 = 1 << 63;

/// Rounding-mode argument of the library's conversions.
fn mode_arg(m: Option<M>, default: i32) -> i32 {
    match m {
        Some(M::RTE) => 0,
        Some(M::RTZ) => 1,
        Some(M::RTP) => 2,
        Some(M::RTN) => 3,
        None => default,
    }
}

/// SPIR-V instructions that do floating-point work (with a `half` or `double` operand or result
/// they go to `fp16.rs` / this file; everything else about such values is type-agnostic).
pub(super) fn is_float_op(op: S) -> bool {
    matches!(
        op,
        S::FAdd
            | S::FSub
            | S::FMul
            | S::FDiv
            | S::FRem
            | S::FMod
            | S::FNegate
            | S::IsNan
            | S::IsInf
            | S::IsFinite
            | S::IsNormal
            | S::SignBitSet
            | S::LessOrGreater
            | S::Ordered
            | S::Unordered
            | S::ConvertFToU
            | S::ConvertFToS
            | S::ConvertSToF
            | S::ConvertUToF
            | S::FConvert
            | S::Dot
            | S::VectorTimesScalar
            | S::ExtInst
    ) || super::denormals::compares(op)
}

impl Lowerer<'_> {
    /// Whether `ty` is a float of `width` bits or a vector of them.
    pub(super) fn is_float_type(&self, ty: u32, width: u32) -> bool {
        let scalar = |t: &SType| *t == SType::Float { width };
        match self.m.types.get(ty) {
            Ok(SType::Vector { elem, .. }) => self.m.types.get(*elem).is_ok_and(scalar),
            Ok(t) => scalar(t),
            _ => false,
        }
    }

    /// Whether the value `id` (an instruction result or a constant) is a float of `width` bits.
    pub(super) fn id_is_float(&self, id: u32, width: u32) -> bool {
        self.m
            .id_types
            .get(&id)
            .or_else(|| self.m.constants.get(&id).and_then(|c| c.result_type.as_ref()))
            .is_some_and(|t| self.is_float_type(*t, width))
    }

    /// Whether `ty` is `double` or a vector of doubles.
    pub(super) fn is_f64_type(&self, ty: u32) -> bool {
        self.is_float_type(ty, 64)
    }

    /// Whether `i` is floating-point work (see [`is_float_op`]) whose result or an operand is a
    /// float of `width` bits, and not an OpenCL.std built-in in `agnostic`.
    pub(super) fn float_work_of_width(&self, i: &Instruction, width: u32, agnostic: &[C]) -> bool {
        let op = i.class.opcode;
        if !is_float_op(op) {
            return false;
        }
        if op == S::ExtInst {
            let code = match i.operands.get(1) {
                Some(Operand::LiteralExtInstInteger(c)) => *c,
                _ => return false,
            };
            if agnostic.iter().any(|c| *c as u32 == code) {
                return false;
            }
        }
        i.result_type.is_some_and(|t| self.is_float_type(t, width))
            || i.operands.iter().any(|o| matches!(o, Operand::IdRef(id) if self.id_is_float(*id, width)))
    }

    /// Whether instruction `i` must go through [`lower_f64`](Self::lower_f64). Memory and
    /// selection built-ins are type-agnostic (a double is an i64 to them).
    pub(super) fn wants_f64(&self, i: &Instruction) -> bool {
        let agnostic = [C::printf, C::vloadn, C::vstoren, C::shuffle, C::shuffle2, C::select, C::prefetch];
        self.float_work_of_width(i, 64, &agnostic)
    }

    /// A call of the soft-double library returning one scalar.
    fn lib(&mut self, cur: &mut BlockId, name: &str, args: &[Value]) -> Result<Value, CompileError> {
        self.call_lib(cur, name, args)
    }

    fn ci(&mut self, v: i32) -> Value {
        self.const_val(Ty::I32, v as u32 as u64)
    }

    fn push(&mut self, b: BlockId, t: Ty, op: Op) -> Value {
        self.f.push(b, t, op)
    }

    /// Lowers a double operation; `args[k]` are the lowered scalars of operand `k` (`None` for
    /// operands that are not values). `None` when `i` is not handled here.
    pub(super) fn lower_f64(
        &mut self,
        cur: &mut BlockId,
        i: &Instruction,
        args: &[Option<Vec<Value>>],
    ) -> Result<Option<Vec<Value>>, CompileError> {
        let op = i.class.opcode;
        let ty = i.result_type.ok_or(invalid("missing result type"))?;
        let arg = |k: usize| -> Result<Vec<Value>, CompileError> {
            args.get(k).cloned().flatten().ok_or(invalid(format!("{op:?}: operand {k} is not a value")))
        };
        let n = self.m.types.leaves(ty).map_or(0, |l| l.len());
        let bin = |me: &mut Self, cur: &mut BlockId, name: &str| -> Result<Vec<Value>, CompileError> {
            let (x, y) = (arg(0)?, arg(1)?);
            if x.len() != y.len() {
                return Err(invalid("operands of different shapes"));
            }
            let mut out = Vec::new();
            for k in 0..x.len() {
                out.push(me.lib(cur, name, &[x[k], y[k]])?);
            }
            Ok(out)
        };
        // Comparisons: `name(x, y)` or its negation / swapped form, as I1.
        let cmp = |me: &mut Self, cur: &mut BlockId, name: &str, swap: bool, negate: bool| {
            let (x, y) = (arg(0)?, arg(1)?);
            let mut out = Vec::new();
            for k in 0..x.len() {
                let (a, b) = if swap { (y[k], x[k]) } else { (x[k], y[k]) };
                let r = me.lib(cur, name, &[a, b])?;
                let z = me.ci(0);
                let c = if negate { CmpOp::Eq } else { CmpOp::Ne };
                out.push(me.push(*cur, Ty::I1, Op::Cmp(c, r, z)));
            }
            Ok::<_, CompileError>(out)
        };
        let out = match op {
            S::FAdd => bin(self, cur, F64Primitive::Add.name())?,
            S::FSub => bin(self, cur, F64Primitive::Sub.name())?,
            S::FMul => bin(self, cur, F64Primitive::Mul.name())?,
            S::FDiv => bin(self, cur, F64Primitive::Div.name())?,
            S::FRem => bin(self, cur, "__vt_d_fmod")?,
            S::FMod => bin(self, cur, "__vt_d_fmod_floor")?,
            S::FNegate => {
                let x = arg(0)?;
                let s = self.const_val(Ty::I64, SIGN);
                x.iter().map(|v| self.push(*cur, Ty::I64, Op::Bin(BinOp::Xor, *v, s))).collect()
            }
            S::FOrdEqual => cmp(self, cur, "__vt_f64_eq", false, false)?,
            S::FOrdLessThan => cmp(self, cur, "__vt_f64_lt", false, false)?,
            S::FOrdLessThanEqual => cmp(self, cur, "__vt_f64_le", false, false)?,
            S::FOrdGreaterThan => cmp(self, cur, "__vt_f64_lt", true, false)?,
            S::FOrdGreaterThanEqual => cmp(self, cur, "__vt_f64_le", true, false)?,
            S::FOrdNotEqual => cmp(self, cur, "__vt_f64_one", false, false)?,
            S::LessOrGreater => cmp(self, cur, "__vt_f64_one", false, false)?,
            S::FUnordEqual => cmp(self, cur, "__vt_f64_one", false, true)?,
            S::FUnordNotEqual => cmp(self, cur, "__vt_f64_eq", false, true)?,
            S::FUnordLessThan => cmp(self, cur, "__vt_f64_le", true, true)?,
            S::FUnordLessThanEqual => cmp(self, cur, "__vt_f64_lt", true, true)?,
            S::FUnordGreaterThan => cmp(self, cur, "__vt_f64_le", false, true)?,
            S::FUnordGreaterThanEqual => cmp(self, cur, "__vt_f64_lt", false, true)?,
            S::Unordered => cmp(self, cur, "__vt_f64_unord", false, false)?,
            S::Ordered => cmp(self, cur, "__vt_f64_unord", false, true)?,
            S::IsNan | S::IsInf | S::IsFinite | S::IsNormal | S::SignBitSet => {
                let x = arg(0)?;
                let mut out = Vec::new();
                for v in x {
                    out.push(self.classify(*cur, op, v));
                }
                out
            }
            S::ConvertSToF | S::ConvertUToF => {
                let x = arg(0)?;
                let (_, mode) = self.conv_mods(i);
                let m = self.ci(mode_arg(mode, 0));
                let mut out = Vec::new();
                for v in x {
                    let signed = op == S::ConvertSToF;
                    let w = self.resize(*cur, v, Ty::I64, signed);
                    let r = if signed {
                        self.lib(cur, "__vt_f64_from_i64", &[w, m])?
                    } else {
                        let z = self.ci(0);
                        self.lib(cur, "__vt_f64_from_u64", &[w, z, m])?
                    };
                    out.push(r);
                }
                out
            }
            S::ConvertFToS | S::ConvertFToU => {
                let x = arg(0)?;
                let tys: Vec<Ty> = self.m.types.leaves(ty)?.into_iter().map(|(_, t)| t).collect();
                let (sat, mode) = self.conv_mods(i);
                let m = self.ci(mode_arg(mode, 1));
                let signed = op == S::ConvertFToS;
                let mut out = Vec::new();
                for (v, t) in x.into_iter().zip(tys) {
                    let name = if signed { "__vt_f64_to_i64" } else { "__vt_f64_to_u64" };
                    let r = self.lib(cur, name, &[v, m])?;
                    // The library saturates to 64 bits; narrower results saturate (sat) or wrap.
                    out.push(if t == Ty::I64 {
                        r
                    } else if sat || t.bits() <= 32 {
                        self.clamp_int(*cur, r, signed, t, signed)
                    } else {
                        self.resize(*cur, r, t, signed)
                    });
                }
                out
            }
            S::FConvert => {
                let x = arg(0)?;
                let (_, mode) = self.conv_mods(i);
                let mut out = Vec::new();
                for v in x {
                    out.push(match self.f.ty(v) {
                        Ty::F32 => {
                            let bits = self.push(*cur, Ty::I32, Op::Conv(ConvOp::Bitcast, v));
                            self.lib(cur, "__vt_f64_from_f32", &[bits])?
                        }
                        Ty::I64 if self.is_f64_type(ty) => v,
                        Ty::I64 => {
                            if !matches!(self.leaf_scalar(ty)?, SType::Float { width: 32 }) {
                                return Err(self.err("conversions between double and half"));
                            }
                            let m = self.ci(mode_arg(mode, 0));
                            let r = self.lib(cur, "__vt_f64_to_f32", &[v, m])?;
                            self.push(*cur, Ty::F32, Op::Conv(ConvOp::Bitcast, r))
                        }
                        _ => return Err(self.err("conversions between double and half")),
                    });
                }
                out
            }
            S::Dot => {
                let (x, y) = (arg(0)?, arg(1)?);
                vec![self.dot64(cur, &x, &y)?]
            }
            S::VectorTimesScalar => {
                let (x, s) = (arg(0)?, arg(1)?);
                let mut out = Vec::new();
                for v in x {
                    out.push(self.lib(cur, F64Primitive::Mul.name(), &[v, s[0]])?);
                }
                out
            }
            S::ExtInst => {
                let code = match i.operands.get(1) {
                    Some(Operand::LiteralExtInstInteger(c)) => *c,
                    _ => return Err(invalid("OpExtInst without an instruction number")),
                };
                let c = C::from_u32(code).ok_or(invalid(format!("unknown OpenCL.std instruction {code}")))?;
                // vstore_half of doubles: one rounding from double to half.
                let stores = [
                    (C::vstore_half, false, false),
                    (C::vstore_half_r, false, true),
                    (C::vstore_halfn, false, false),
                    (C::vstore_halfn_r, false, true),
                    (C::vstorea_halfn, true, false),
                    (C::vstorea_halfn_r, true, true),
                ];
                if let Some(&(_, aligned, rounded)) = stores.iter().find(|(s, _, _)| *s == c) {
                    let (data, off, p) = (arg(2)?, arg(3)?, arg(4)?);
                    let mode = if rounded {
                        match i.operands.get(5) {
                            Some(Operand::LiteralBit32(m) | Operand::IdRef(m)) => *m as i32,
                            _ => return Err(invalid("vstore_half_r without a rounding mode")),
                        }
                    } else {
                        0
                    };
                    self.vstore_half_f64(cur, &data, off[0], p[0], aligned, mode)?;
                    return Ok(Some(Vec::new()));
                }
                let a: Vec<Vec<Value>> = (2..i.operands.len()).map(arg).collect::<Result<_, _>>()?;
                let ptr_ty = |k: usize| -> Result<u32, CompileError> {
                    let id = id_operand(i, k)?;
                    let t = *self.m.id_types.get(&id).ok_or(invalid("pointer without type"))?;
                    Ok(self.m.types.pointee(t)?.1)
                };
                self.ext_f64(cur, c, ty, n, &a, ptr_ty)?
            }
            _ => return Ok(None),
        };
        Ok(Some(out))
    }

    /// `vstore_half[n][_r]` / `vstorea_half[n][_r]` of doubles (`mode`: SPIR-V rounding mode).
    fn vstore_half_f64(
        &mut self,
        cur: &mut BlockId,
        data: &[Value],
        off: Value,
        p: Value,
        aligned: bool,
        mode: i32,
    ) -> Result<(), CompileError> {
        let n = data.len() as u32;
        let stride = if aligned && n == 3 { 4 } else { n };
        let pty = self.f.ty(p);
        let base = self.index(*cur, p, off, 2 * stride, pty)?;
        let m = self.ci(mode);
        for (k, &v) in data.iter().enumerate() {
            let bits = self.lib(cur, "__vt_f64_to_f16", &[v, m])?;
            let h = self.push(*cur, Ty::I16, Op::Conv(ConvOp::Trunc, bits));
            let a = self.offset_ptr(*cur, base, 2 * k as u32);
            self.f.push_void(*cur, Op::Store { ptr: a, value: h });
        }
        Ok(())
    }

    fn leaf_scalar(&self, ty: u32) -> Result<SType, CompileError> {
        Ok(match self.m.types.get(ty)?.clone() {
            SType::Vector { elem, .. } => self.m.types.get(elem)?.clone(),
            t => t,
        })
    }

    /// isnan/isinf/isfinite/isnormal/signbit on the bits of a double, inline.
    fn classify(&mut self, b: BlockId, op: S, v: Value) -> Value {
        let mask = self.const_val(Ty::I64, !SIGN);
        let abs = self.push(b, Ty::I64, Op::Bin(BinOp::And, v, mask));
        let inf = self.const_val(Ty::I64, 0x7ff0_0000_0000_0000);
        match op {
            S::IsNan => self.push(b, Ty::I1, Op::Cmp(CmpOp::GtU, abs, inf)),
            S::IsInf => self.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, abs, inf)),
            S::IsFinite => self.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, abs, inf)),
            S::IsNormal => {
                let min = self.const_val(Ty::I64, 0x0010_0000_0000_0000);
                let off = self.push(b, Ty::I64, Op::Bin(BinOp::Sub, abs, min));
                let span = self.const_val(Ty::I64, 0x7ff0_0000_0000_0000 - 0x0010_0000_0000_0000);
                self.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, off, span))
            }
            _ => {
                let z = self.const_val(Ty::I64, 0);
                self.push(b, Ty::I1, Op::Cmp(CmpOp::LtS, v, z))
            }
        }
    }

    fn dot64(&mut self, cur: &mut BlockId, x: &[Value], y: &[Value]) -> Result<Value, CompileError> {
        let mut acc = self.lib(cur, F64Primitive::Mul.name(), &[x[0], y[0]])?;
        for k in 1..x.len().min(y.len()) {
            let p = self.lib(cur, F64Primitive::Mul.name(), &[x[k], y[k]])?;
            acc = self.lib(cur, F64Primitive::Add.name(), &[acc, p])?;
        }
        Ok(acc)
    }

    /// OpenCL.std built-ins on doubles.
    fn ext_f64(
        &mut self,
        cur: &mut BlockId,
        c: C,
        ty: u32,
        n: usize,
        a: &[Vec<Value>],
        ptr_ty: impl Fn(usize) -> Result<u32, CompileError>,
    ) -> Result<Vec<Value>, CompileError> {
        let name = format!("{c:?}");
        let pick = |v: &Vec<Value>, k: usize| if v.len() == 1 { v[0] } else { v[k] };
        match c {
            C::fabs | C::copysign | C::nan | C::bitselect => {
                let mut out = Vec::new();
                for k in 0..n {
                    let b = *cur;
                    out.push(match c {
                        C::fabs => {
                            let m = self.const_val(Ty::I64, !SIGN);
                            self.push(b, Ty::I64, Op::Bin(BinOp::And, pick(&a[0], k), m))
                        }
                        C::copysign => {
                            let (m, s) = (self.const_val(Ty::I64, !SIGN), self.const_val(Ty::I64, SIGN));
                            let x = self.push(b, Ty::I64, Op::Bin(BinOp::And, pick(&a[0], k), m));
                            let y = self.push(b, Ty::I64, Op::Bin(BinOp::And, pick(&a[1], k), s));
                            self.push(b, Ty::I64, Op::Bin(BinOp::Or, x, y))
                        }
                        C::nan => {
                            // A quiet NaN carrying the code in its payload (the canonical NaN
                            // is the quiet NaN with payload 0).
                            let code = self.resize(b, pick(&a[0], k), Ty::I64, false);
                            let q = self.const_val(Ty::I64, crate::abi::subroutine::CANONICAL_NAN_F64);
                            self.push(b, Ty::I64, Op::Bin(BinOp::Or, code, q))
                        }
                        _ => {
                            let (x, y, m) = (pick(&a[0], k), pick(&a[1], k), pick(&a[2], k));
                            let d = self.push(b, Ty::I64, Op::Bin(BinOp::Xor, x, y));
                            let d = self.push(b, Ty::I64, Op::Bin(BinOp::And, d, m));
                            self.push(b, Ty::I64, Op::Bin(BinOp::Xor, x, d))
                        }
                    });
                }
                Ok(out)
            }
            C::length | C::fast_length | C::distance | C::fast_distance | C::normalize | C::fast_normalize => {
                let mut v = a[0].clone();
                if matches!(c, C::distance | C::fast_distance) {
                    for k in 0..v.len() {
                        v[k] = self.lib(cur, F64Primitive::Sub.name(), &[a[0][k], a[1][k]])?;
                    }
                }
                let z = self.const_val(Ty::I64, 0);
                let mut comps = v.clone();
                comps.resize(4, z);
                if matches!(c, C::normalize | C::fast_normalize) {
                    // Scaled by 2^-ilogb(max |v_i|): no overflow or underflow in the length.
                    let e = self.lib(cur, "__vt_d_norm_exp", &comps)?;
                    let len = self.lib(cur, "__vt_d_norm_len", &comps)?;
                    let mut out = Vec::new();
                    for x in v {
                        out.push(self.lib(cur, "__vt_d_norm_comp", &[x, e, len])?);
                    }
                    return Ok(out);
                }
                Ok(vec![self.lib(cur, "__vt_d_length4", &comps)?])
            }
            C::cross => {
                let (x, y) = (&a[0], &a[1]);
                let mut out = Vec::new();
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let p = self.lib(cur, F64Primitive::Mul.name(), &[x[i], y[j]])?;
                    let q = self.lib(cur, F64Primitive::Mul.name(), &[x[j], y[i]])?;
                    out.push(self.lib(cur, F64Primitive::Sub.name(), &[p, q])?);
                }
                if x.len() == 4 {
                    out.push(self.const_val(Ty::I64, 0));
                }
                Ok(out)
            }
            // Built-ins with an output pointer: the value through a second library function.
            C::fract | C::modf | C::frexp | C::remquo | C::sincos | C::lgamma_r => {
                let (nargs, second) = match c {
                    C::fract => (1, "__vt_d_fract_floor"),
                    C::modf => (1, "__vt_d_modf_int"),
                    C::frexp => (1, "__vt_d_frexp_exp"),
                    C::remquo => (2, "__vt_d_remquo_q"),
                    C::sincos => (1, "__vt_d_cos"),
                    _ => (1, "__vt_d_lgamma_sign"),
                };
                let first = format!("__vt_d_{name}");
                let mut out = Vec::new();
                let mut stored = Vec::new();
                for k in 0..n {
                    let xs: Vec<Value> = a[..nargs].iter().map(|v| pick(v, k)).collect();
                    out.push(self.lib(cur, &first, &xs)?);
                    stored.push(self.lib(cur, second, &xs)?);
                }
                let p = a[nargs][0];
                let pointee = ptr_ty(2 + nargs)?;
                self.store_leaves(*cur, p, pointee, &stored)?;
                Ok(out)
            }
            // The library's `__vt_d_fma`, `__vt_d_mad` and `__vt_d_sqrt` only forward to these
            // primitives: called directly, they run natively over whole registers (the
            // emulator's `HostCall::F64`), not one lane at a time.
            C::fma | C::mad | C::sqrt => {
                let p = if c == C::sqrt { F64Primitive::Sqrt } else { F64Primitive::Fma };
                let mut out = Vec::new();
                for k in 0..n {
                    let xs: Vec<Value> = a.iter().map(|v| pick(v, k)).collect();
                    out.push(self.lib(cur, p.name(), &xs)?);
                }
                Ok(out)
            }
            _ => {
                let fname = format!("__vt_d_{name}");
                if !self.lib_has(&fname) {
                    return Err(self.err(&format!("the double-precision built-in `{name}`")));
                }
                let _ = ty;
                let mut out = Vec::new();
                for k in 0..n {
                    let xs: Vec<Value> = a.iter().map(|v| pick(v, k)).collect();
                    out.push(self.lib(cur, &fname, &xs)?);
                }
                Ok(out)
            }
        }
    }
}
