//! `half` arithmetic (cl_khr_fp16). A half lives in the IR as its IEEE bit pattern in a `Ty::I16`
//! (zero-extended in a 32-bit register), so loads, stores, moves, φs, selects, shuffles and
//! bit-casts need nothing special; every operation that *computes* on halves is lowered here:
//! the operands are widened to float (exact, [`Lowerer::half_to_float`]), the float operation is
//! performed and the result is rounded once back to half ([`Lowerer::float_to_half`], nearest
//! even unless a conversion says otherwise).
//!
//! Accuracy:
//! * `+ - * /` and `sqrt` are correctly rounded: float has 24 ≥ 2·11 + 2 significand bits, so
//!   rounding the correctly rounded float result to half is innocuous double rounding.
//! * `fma`/`mad`: the product of two halves is exact in float; the sum is made *round-to-odd*
//!   (TwoSum error as a sticky bit) before the final rounding, which is then correct.
//! * `double → half` likewise rounds to odd through float (the soft-double library's
//!   round-toward-zero conversion plus an inexact bit); `int → half` clamps to ±2^17 (beyond
//!   which every rounding mode gives the same half) and converts exactly through float.
//! * Math built-ins evaluate the float built-in on the widened value and round: within OpenCL's
//!   half ULP bounds (the float results are far more accurate than half needs).
//! * NaN results of arithmetic are the canonical quiet NaN `0x7e00` (the float unit's canonical
//!   NaN, narrowed); `fabs`, `copysign`, negation and conversions keep payloads.
//!
//! Contract: [`Lowerer::wants_f16`] is true for every SPIR-V instruction that does
//! floating-point work with a half operand or result, and [`Lowerer::lower_f16`] lowers each of
//! them (the type-agnostic built-ins — printf, vloadn/vstoren, shuffle, select, bitselect — are
//! left to the ordinary paths).

use super::super::ir::*;
use super::super::CompileError;
use super::half::HalfRound;
use super::lower::Lowerer;
use super::types::SType;
use super::{id_operand, invalid};
use rspirv::dr::{Instruction, Operand};
use spirv::FPRoundingMode as M;
use spirv::Op as S;
use spirv::OpenclStd100Op as C;

const SIGN: u64 = 0x8000;
const QNAN: u64 = 0x7e00;

fn round_of(m: Option<M>) -> HalfRound {
    match m {
        Some(M::RTZ) => HalfRound::Rtz,
        Some(M::RTP) => HalfRound::Rtp,
        Some(M::RTN) => HalfRound::Rtn,
        _ => HalfRound::Rte,
    }
}

impl Lowerer<'_> {
    /// Whether `ty` is `half` or a vector of halves.
    pub(super) fn is_f16_type(&self, ty: u32) -> bool {
        self.is_float_type(ty, 16)
    }

    /// Whether instruction `i` must go through [`lower_f16`](Self::lower_f16). Memory,
    /// selection and bit built-ins are type-agnostic (a half is an i16 to them).
    pub(super) fn wants_f16(&self, i: &Instruction) -> bool {
        let agnostic = [
            C::printf,
            C::vloadn,
            C::vstoren,
            C::shuffle,
            C::shuffle2,
            C::select,
            C::bitselect,
            C::prefetch,
            C::vload_half,
            C::vload_halfn,
            C::vloada_halfn,
            C::vstore_half,
            C::vstore_halfn,
            C::vstore_half_r,
            C::vstore_halfn_r,
            C::vstorea_halfn,
            C::vstorea_halfn_r,
        ];
        self.float_work_of_width(i, 16, &agnostic)
    }

    /// The float value of a half.
    fn h2f(&mut self, b: BlockId, h: Value) -> Value {
        self.half_to_float(b, h)
    }

    /// A float rounded to the nearest half.
    fn f2h(&mut self, b: BlockId, f: Value) -> Value {
        self.float_to_half(b, f, HalfRound::Rte)
    }

    fn c16(&mut self, v: u64) -> Value {
        self.const_val(Ty::I16, v)
    }

    fn c32(&mut self, v: u32) -> Value {
        self.const_val(Ty::I32, v as u64)
    }

    fn cf(&mut self, v: f32) -> Value {
        self.const_val(Ty::F32, v.to_bits() as u64)
    }

    /// The bits of a half as an i32 (0..=0xffff).
    fn hbits(&mut self, b: BlockId, h: Value) -> Value {
        let w = self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, h));
        let m = self.c32(0xffff);
        self.f.push(b, Ty::I32, Op::Bin(BinOp::And, w, m))
    }

    /// Lowers a half operation; `args[k]` are the lowered scalars of operand `k` (`None` for
    /// operands that are not values).
    pub(super) fn lower_f16(
        &mut self,
        cur: &mut BlockId,
        i: &Instruction,
        args: &[Option<Vec<Value>>],
    ) -> Result<Vec<Value>, CompileError> {
        let op = i.class.opcode;
        let ty = i.result_type.ok_or(invalid("missing result type"))?;
        let arg = |k: usize| -> Result<Vec<Value>, CompileError> {
            args.get(k).cloned().flatten().ok_or(invalid(format!("{op:?}: operand {k} is not a value")))
        };
        let b = *cur;
        let widen = |me: &mut Self, v: Vec<Value>| -> Vec<Value> { v.into_iter().map(|h| me.h2f(b, h)).collect() };
        let two = |me: &mut Self| -> Result<(Vec<Value>, Vec<Value>), CompileError> {
            let (x, y) = (arg(0)?, arg(1)?);
            if x.len() != y.len() {
                return Err(invalid("operands of different shapes"));
            }
            Ok((widen(me, x), widen(me, y)))
        };
        let arith = |me: &mut Self, o: BinOp| -> Result<Vec<Value>, CompileError> {
            let (x, y) = two(me)?;
            Ok(x.iter()
                .zip(&y)
                .map(|(p, q)| {
                    let r = me.f.push(b, Ty::F32, Op::Bin(o, *p, *q));
                    me.f2h(b, r)
                })
                .collect())
        };
        let cmp = |me: &mut Self, c: CmpOp, negate: bool| -> Result<Vec<Value>, CompileError> {
            let (x, y) = two(me)?;
            Ok(x.iter()
                .zip(&y)
                .map(|(p, q)| {
                    let r = me.f.push(b, Ty::I1, Op::Cmp(c, *p, *q));
                    if negate {
                        me.f.push(b, Ty::I1, Op::Un(UnOp::Not, r))
                    } else {
                        r
                    }
                })
                .collect())
        };
        Ok(match op {
            S::FAdd => arith(self, BinOp::FAdd)?,
            S::FSub => arith(self, BinOp::FSub)?,
            S::FMul => arith(self, BinOp::FMul)?,
            S::FDiv => arith(self, BinOp::FDiv)?,
            S::FRem | S::FMod => {
                let (x, y) = two(self)?;
                let n = x.len();
                let r = self.float_builtin(b, C::fmod, &vec![Ty::F32; n], &[x, y.clone()], true)?;
                let mut out = Vec::new();
                for (k, mut v) in r.into_iter().enumerate() {
                    if op == S::FMod {
                        // The sign of the divisor: r ≠ 0 with the other sign gets y added (exact).
                        let z = self.cf(0.0);
                        let nz = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FNe, v, z));
                        let vb = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v));
                        let yb = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, y[k]));
                        let d = self.f.push(b, Ty::I32, Op::Bin(BinOp::Xor, vb, yb));
                        let zi = self.c32(0);
                        let diff = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtS, d, zi));
                        let fix = self.f.push(b, Ty::I1, Op::Bin(BinOp::And, nz, diff));
                        let s = self.f.push(b, Ty::F32, Op::Bin(BinOp::FAdd, v, y[k]));
                        v = self.f.push(b, Ty::F32, Op::Select(fix, s, v));
                    }
                    out.push(self.f2h(b, v));
                }
                out
            }
            S::FNegate => {
                let s = self.c16(SIGN);
                arg(0)?.into_iter().map(|v| self.f.push(b, Ty::I16, Op::Bin(BinOp::Xor, v, s))).collect()
            }
            S::FOrdEqual => cmp(self, CmpOp::FEq, false)?,
            S::FOrdNotEqual | S::LessOrGreater => cmp(self, CmpOp::FNe, false)?,
            S::FOrdLessThan => cmp(self, CmpOp::FLt, false)?,
            S::FOrdLessThanEqual => cmp(self, CmpOp::FLe, false)?,
            S::FOrdGreaterThan => cmp(self, CmpOp::FGt, false)?,
            S::FOrdGreaterThanEqual => cmp(self, CmpOp::FGe, false)?,
            S::FUnordEqual => cmp(self, CmpOp::FNe, true)?,
            S::FUnordNotEqual => cmp(self, CmpOp::FEq, true)?,
            S::FUnordLessThan => cmp(self, CmpOp::FGe, true)?,
            S::FUnordLessThanEqual => cmp(self, CmpOp::FGt, true)?,
            S::FUnordGreaterThan => cmp(self, CmpOp::FLe, true)?,
            S::FUnordGreaterThanEqual => cmp(self, CmpOp::FLt, true)?,
            S::Ordered => cmp(self, CmpOp::FOrd, false)?,
            S::Unordered => cmp(self, CmpOp::FUno, false)?,
            S::IsNan | S::IsInf | S::IsFinite | S::IsNormal | S::SignBitSet => {
                let mut out = Vec::new();
                for v in arg(0)? {
                    out.push(self.classify16(b, op, v));
                }
                out
            }
            S::ConvertSToF | S::ConvertUToF => {
                let (_, mode) = self.conv_mods(i);
                let signed = op == S::ConvertSToF;
                let mut out = Vec::new();
                for v in arg(0)? {
                    out.push(self.int_to_half(b, v, signed, round_of(mode)));
                }
                out
            }
            S::ConvertFToS | S::ConvertFToU => {
                let tys: Vec<Ty> = self.m.types.leaves(ty)?.into_iter().map(|(_, t)| t).collect();
                let x = arg(0)?;
                if x.len() != tys.len() {
                    return Err(invalid("a conversion whose operand and result have different component counts"));
                }
                let (sat, mode) = self.conv_mods(i);
                let mut out = Vec::new();
                for (v, t) in x.into_iter().zip(tys) {
                    let f = self.h2f(b, v);
                    out.push(self.float_to_int(b, f, t, op == S::ConvertFToS, sat, mode));
                }
                out
            }
            S::FConvert => {
                let (_, mode) = self.conv_mods(i);
                let to_half = self.is_f16_type(ty);
                let to_double = matches!(self.leaf_scalar16(ty)?, SType::Float { width: 64 });
                let mut out = Vec::new();
                for v in arg(0)? {
                    out.push(match (self.f.ty(v), to_half) {
                        (Ty::I16, true) => v,
                        (Ty::F32, true) => self.float_to_half(*cur, v, round_of(mode)),
                        (Ty::I64, true) => self.double_to_half(cur, v, round_of(mode))?,
                        (Ty::I16, false) if to_double => {
                            let f = self.h2f(*cur, v);
                            let bits = self.f.push(*cur, Ty::I32, Op::Conv(ConvOp::Bitcast, f));
                            self.call_lib(cur, "__vt_f64_from_f32", &[bits])?
                        }
                        (Ty::I16, false) => self.h2f(*cur, v),
                        _ => return Err(invalid("FConvert between these types")),
                    });
                }
                out
            }
            S::Dot => {
                let (x, y) = two(self)?;
                let mut acc = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, x[0], y[0]));
                for k in 1..x.len() {
                    acc = self.f.push(b, Ty::F32, Op::Fma(x[k], y[k], acc));
                }
                vec![self.f2h(b, acc)]
            }
            S::VectorTimesScalar => {
                let x = widen(self, arg(0)?);
                let s = widen(self, arg(1)?);
                let mut out = Vec::new();
                for v in x {
                    let p = self.f.push(b, Ty::F32, Op::Bin(BinOp::FMul, v, s[0]));
                    out.push(self.f2h(b, p));
                }
                out
            }
            S::ExtInst => {
                let code = match i.operands.get(1) {
                    Some(Operand::LiteralExtInstInteger(c)) => *c,
                    _ => return Err(invalid("OpExtInst without an instruction number")),
                };
                let c = C::from_u32(code).ok_or(invalid(format!("unknown OpenCL.std instruction {code}")))?;
                let a: Vec<Vec<Value>> = (2..i.operands.len()).map(arg).collect::<Result<_, _>>()?;
                let half: Vec<bool> =
                    (2..i.operands.len()).map(|k| id_operand(i, k).is_ok_and(|id| self.id_is_float(id, 16))).collect();
                self.ext_f16(b, c, i, ty, &a, &half)?
            }
            other => return Err(self.err(&format!("half-precision {other:?}"))),
        })
    }

    fn leaf_scalar16(&self, ty: u32) -> Result<SType, CompileError> {
        Ok(match self.m.types.get(ty)?.clone() {
            SType::Vector { elem, .. } => self.m.types.get(elem)?.clone(),
            t => t,
        })
    }

    /// isnan/isinf/isfinite/isnormal/signbit on the bits of a half.
    fn classify16(&mut self, b: BlockId, op: S, v: Value) -> Value {
        let h = self.hbits(b, v);
        let m = self.c32(0x7fff);
        let abs = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, h, m));
        let inf = self.c32(0x7c00);
        match op {
            S::IsNan => self.f.push(b, Ty::I1, Op::Cmp(CmpOp::GtU, abs, inf)),
            S::IsInf => self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, abs, inf)),
            S::IsFinite => self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, abs, inf)),
            S::IsNormal => {
                let min = self.c32(0x0400);
                let off = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, abs, min));
                let span = self.c32(0x7c00 - 0x0400);
                self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, off, span))
            }
            _ => {
                let s = self.c32(SIGN as u32);
                self.f.push(b, Ty::I1, Op::Cmp(CmpOp::GeU, h, s))
            }
        }
    }

    /// An integer (any width) converted to half with rounding `mode`: every magnitude beyond
    /// 2^17 rounds like 2^17 in every mode, and smaller ones are exact in float.
    fn int_to_half(&mut self, b: BlockId, v: Value, signed: bool, mode: HalfRound) -> Value {
        let t = self.f.ty(v);
        let v = if t == Ty::I1 { self.resize(b, v, Ty::I32, false) } else { v };
        let t = self.f.ty(v);
        let w = if t == Ty::I64 { Ty::I64 } else { Ty::I32 };
        let x = self.resize(b, v, w, signed);
        let lim = 1u64 << 17;
        let x = if signed {
            let mask = if w == Ty::I64 { u64::MAX } else { u32::MAX as u64 };
            let lo = self.const_val(w, lim.wrapping_neg() & mask);
            let hi = self.const_val(w, lim);
            let x = self.f.push(b, w, Op::Bin(BinOp::MaxS, x, lo));
            self.f.push(b, w, Op::Bin(BinOp::MinS, x, hi))
        } else {
            let hi = self.const_val(w, lim);
            self.f.push(b, w, Op::Bin(BinOp::MinU, x, hi))
        };
        let x = self.resize(b, x, Ty::I32, signed);
        let f = self.f.push(b, Ty::F32, Op::Conv(ConvOp::SToF, x));
        self.float_to_half(b, f, mode)
    }

    /// A double (bits) converted to half: rounded to odd into float (truncation plus a sticky
    /// bit, so the final rounding sees every inexact case), then rounded with `mode`.
    fn double_to_half(&mut self, cur: &mut BlockId, v: Value, mode: HalfRound) -> Result<Value, CompileError> {
        let rtz = self.c32(1);
        let f = self.call_lib(cur, "__vt_f64_to_f32", &[v, rtz])?;
        let back = self.call_lib(cur, "__vt_f64_from_f32", &[f])?;
        let b = *cur;
        let inexact = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Ne, back, v));
        let one = self.c32(1);
        let odd = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, f, one));
        let f = self.f.push(b, Ty::I32, Op::Select(inexact, odd, f));
        let f = self.f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, f));
        Ok(self.float_to_half(b, f, mode))
    }

    /// fma of three widened halves, correctly rounded to half: the product is exact in float,
    /// the sum is rounded to odd (TwoSum's error decides the sticky bit), then rounded to half.
    fn fma16(&mut self, b: BlockId, x: Value, y: Value, z: Value) -> Value {
        let fb = |me: &mut Self, o: BinOp, p: Value, q: Value| me.f.push(b, Ty::F32, Op::Bin(o, p, q));
        let p = fb(self, BinOp::FMul, x, y);
        let s = fb(self, BinOp::FAdd, p, z);
        let bb = fb(self, BinOp::FSub, s, p);
        let sb = fb(self, BinOp::FSub, s, bb);
        let e1 = fb(self, BinOp::FSub, p, sb);
        let e2 = fb(self, BinOp::FSub, z, bb);
        let err = fb(self, BinOp::FAdd, e1, e2);
        let zero = self.cf(0.0);
        // NaN/∞ operands make `err` NaN: ordered ≠ is false and `s` stays as it is.
        let inexact = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FNe, err, zero));
        let sbits = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, s));
        let ebits = self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, err));
        let d = self.f.push(b, Ty::I32, Op::Bin(BinOp::Xor, sbits, ebits));
        let zi = self.c32(0);
        let opposite = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::LtS, d, zi));
        // The exact sum lies between s and its neighbour toward zero: truncate, then set the
        // lowest bit.
        let one = self.c32(1);
        let down = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, sbits, one));
        let t = self.f.push(b, Ty::I32, Op::Select(opposite, down, sbits));
        let odd = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, t, one));
        let r = self.f.push(b, Ty::I32, Op::Select(inexact, odd, sbits));
        let r = self.f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, r));
        self.f2h(b, r)
    }

    /// The float built-in `c` computing a half one on widened operands; `half_operands`: its
    /// first two operands are halves (the exact remainders then take fewer reduction steps,
    /// [`Lowerer::half_operands`](super::lower::Lowerer)).
    fn float_builtin(
        &mut self,
        b: BlockId,
        c: C,
        tys: &[Ty],
        a: &[Vec<Value>],
        half_operands: bool,
    ) -> Result<Vec<Value>, CompileError> {
        self.half_operands = half_operands;
        let r = self.lower_ext_tys(b, c as u32, tys, false, a);
        self.half_operands = false;
        r
    }

    /// OpenCL.std built-ins with half operands or result. `half[k]` tells whether operand `k`
    /// (of `a`) is a half value.
    fn ext_f16(
        &mut self,
        b: BlockId,
        c: C,
        i: &Instruction,
        ty: u32,
        a: &[Vec<Value>],
        half: &[bool],
    ) -> Result<Vec<Value>, CompileError> {
        let res_tys: Vec<Ty> = self.m.types.leaves(ty)?.into_iter().map(|(_, t)| t).collect();
        let n = res_tys.len();
        let res_half = self.is_f16_type(ty);
        let pick = |v: &Vec<Value>, k: usize| if v.len() == 1 { v[0] } else { v[k] };
        let need = |m: usize| -> Result<(), CompileError> {
            if a.len() < m || a[..m].iter().any(|v| v.is_empty()) {
                Err(invalid(format!("{c:?}: too few operands")))
            } else {
                Ok(())
            }
        };
        // Built-ins on the bits.
        match c {
            C::fabs | C::copysign | C::nan | C::nextafter => {
                need(if c == C::copysign || c == C::nextafter { 2 } else { 1 })?;
                let mut out = Vec::new();
                for k in 0..n {
                    out.push(match c {
                        C::fabs => {
                            let m = self.c16(0x7fff);
                            self.f.push(b, Ty::I16, Op::Bin(BinOp::And, pick(&a[0], k), m))
                        }
                        C::copysign => {
                            let (m, s) = (self.c16(0x7fff), self.c16(SIGN));
                            let x = self.f.push(b, Ty::I16, Op::Bin(BinOp::And, pick(&a[0], k), m));
                            let y = self.f.push(b, Ty::I16, Op::Bin(BinOp::And, pick(&a[1], k), s));
                            self.f.push(b, Ty::I16, Op::Bin(BinOp::Or, x, y))
                        }
                        C::nan => {
                            // A quiet NaN carrying the low bits of the code in its payload.
                            let code = self.resize(b, pick(&a[0], k), Ty::I16, false);
                            let m = self.c16(0x1ff);
                            let code = self.f.push(b, Ty::I16, Op::Bin(BinOp::And, code, m));
                            let q = self.c16(QNAN);
                            self.f.push(b, Ty::I16, Op::Bin(BinOp::Or, code, q))
                        }
                        _ => self.nextafter16(b, pick(&a[0], k), pick(&a[1], k)),
                    });
                }
                return Ok(out);
            }
            C::fma | C::mad => {
                need(3)?;
                let mut out = Vec::new();
                for k in 0..n {
                    let x: Vec<Value> = (0..3).map(|j| self.h2f(b, pick(&a[j], k))).collect();
                    out.push(self.fma16(b, x[0], x[1], x[2]));
                }
                return Ok(out);
            }
            _ => {}
        }
        // Everything else: the float built-in on widened operands, rounded. Output pointers
        // (fract, modf, sincos, frexp, remquo, lgamma_r) get a private float/int scratch area,
        // copied (rounded to half where the pointee is half) after the call.
        let mut wide = Vec::new();
        let mut outs = Vec::new();
        for (k, v) in a.iter().enumerate() {
            if half[k] {
                wide.push(v.iter().map(|h| self.h2f(b, *h)).collect());
            } else if v.len() == 1 && matches!(self.f.ty(v[0]), Ty::Ptr(_)) {
                let id = id_operand(i, 2 + k)?;
                let pty = *self.m.id_types.get(&id).ok_or(invalid("pointer without type"))?;
                let (_, pointee) = self.m.types.pointee(pty)?;
                let off = self.alloc_private(4 * n as u32, 4);
                let scratch = self.f.push(self.prelude, Ty::Ptr(Space::Private), Op::PrivateAddr { offset: off });
                outs.push((v[0], pointee, scratch));
                wide.push(vec![scratch]);
            } else {
                wide.push(v.clone());
            }
        }
        let ftys: Vec<Ty> = res_tys.iter().map(|t| if res_half { Ty::F32 } else { *t }).collect();
        let halves = half.len() >= 2 && half[0] && half[1];
        let r = self.float_builtin(b, c, &ftys, &wide, halves)?;
        for (p, pointee, scratch) in outs {
            let leaves = self.m.types.leaves(pointee)?;
            let ph = self.is_f16_type(pointee);
            let mut vals = Vec::new();
            for (k, (_, lt)) in leaves.iter().enumerate() {
                let at = self.offset_ptr(b, scratch, 4 * k as u32);
                vals.push(if ph {
                    let f = self.f.push(b, Ty::F32, Op::Load(at));
                    self.f2h(b, f)
                } else {
                    self.f.push(b, *lt, Op::Load(at))
                });
            }
            self.store_leaves(b, p, pointee, &vals)?;
        }
        if !res_half {
            return Ok(r);
        }
        let mut out = Vec::new();
        for v in r {
            let mut h = self.f2h(b, v);
            if c == C::fract {
                // fract < 1: a float just below 1 rounds to 1.0 in half; use the largest half below.
                let one = self.c16(0x3c00);
                let below = self.c16(0x3bff);
                let is1 = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, h, one));
                h = self.f.push(b, Ty::I16, Op::Select(is1, below, h));
            }
            out.push(h);
        }
        Ok(out)
    }

    /// nextafter on half bits: NaN → the canonical NaN; equal → y; ±0 → the smallest subnormal
    /// with y's sign; otherwise one step of the bits toward y.
    fn nextafter16(&mut self, b: BlockId, x: Value, y: Value) -> Value {
        let (fx, fy) = (self.h2f(b, x), self.h2f(b, y));
        let xb = self.hbits(b, x);
        let yb = self.hbits(b, y);
        let nan = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FUno, fx, fy));
        let eq = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FEq, fx, fy));
        let zero = self.cf(0.0);
        let xz = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FEq, fx, zero));
        let s = self.c32(SIGN as u32);
        let ys = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, yb, s));
        let one = self.c32(1);
        let tiny = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, ys, one));
        // Moving away from zero increments the bits (either sign), toward zero decrements.
        let lt = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FLt, fx, fy));
        let pos = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::FGt, fx, zero));
        let differ = self.f.push(b, Ty::I1, Op::Bin(BinOp::Xor, lt, pos));
        let away = self.f.push(b, Ty::I1, Op::Un(UnOp::Not, differ));
        let up = self.f.push(b, Ty::I32, Op::Bin(BinOp::Add, xb, one));
        let down = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, xb, one));
        let r = self.f.push(b, Ty::I32, Op::Select(away, up, down));
        let r = self.f.push(b, Ty::I32, Op::Select(xz, tiny, r));
        let r = self.f.push(b, Ty::I32, Op::Select(eq, yb, r));
        let q = self.c32(QNAN as u32);
        let r = self.f.push(b, Ty::I32, Op::Select(nan, q, r));
        self.f.push(b, Ty::I16, Op::Conv(ConvOp::Trunc, r))
    }
}
