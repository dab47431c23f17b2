//! Half-precision values between operations: the front end lowers every half operation as
//! `FloatToHalf(op(HalfToFloat(a), HalfToFloat(b)))` ([`ConvOp::HalfToFloat`],
//! [`ConvOp::FloatToHalf`]: a half is its IEEE bits in an `i16`); this pass keeps the values of
//! a chain of half operations in float registers and then expands what conversions remain into
//! 32-bit integer and float operations (the device has no half arithmetic).
//!
//! Contract: runs in [`super::run`] after mem2reg; afterwards no `HalfToFloat`, `FloatToHalf` or
//! [`ConvOp::RoundHalf`] is left. Every rewrite gives the same bits as the expansion of the
//! original conversions:
//! 1. An `i16` φ whose every use is a `HalfToFloat` or another such φ becomes an `f32` φ of its
//!    incoming values' `HalfToFloat` (placed at the end of each predecessor); the old φs go.
//! 2. `HalfToFloat(FloatToHalf(x))` is `RoundHalf(x)`: `x` rounded to half precision in the
//!    float domain, in about half the operations of the two conversions.
//! 3. A `HalfToFloat` of a value defined in the entry block (a kernel argument, a constant)
//!    moves to the end of the entry block, so a loop converts it once (CSE merges copies).
//!
//! Expansions (bit for bit what `spirv::half` describes): half → float is exact, one float
//! multiply by 2^112 rebiasing normals and subnormals alike, ∞/NaN keeping their payload;
//! float → half rounds to nearest even, overflow to ∞, a NaN keeps its sign and top payload bits
//! and becomes quiet; `RoundHalf(x)` adds and subtracts `C = 2^(e+13)` (`e` the exponent of `x`,
//! at least −14, so half subnormals round at 2^−24; at most 114): the float unit's nearest-even
//! rounding at exactly the half's quantum (the sum stays in `[C, 2C]`, the subtraction is
//! exact); a result of 2^16 or more (and every `|x| ≥ 65520`) is ∞; the sign is `x`'s; a NaN
//! is `x` made quiet with its low 13 bits cleared (nothing to do when `x` is a result of float
//! arithmetic: its NaN is already the canonical one).

use super::super::ir::*;
use std::collections::{HashMap, HashSet};

/// Applies the rewrites and expands every half conversion of `f`; whether anything changed.
pub fn run(f: &mut Func) -> bool {
    if !rewrite(f) {
        return false;
    }
    expand(f);
    true
}

/// The rewrites alone (the filetests' `half_rewrite`); whether `f` has half conversions.
pub fn rewrite(f: &mut Func) -> bool {
    let any = f.blocks.iter().flat_map(|b| &b.insts).any(|i| matches!(i.op, Op::Conv(o, _) if is_half(o)));
    if any {
        float_phis(f);
        fuse_and_hoist(f);
    }
    any
}

fn is_half(o: ConvOp) -> bool {
    matches!(o, ConvOp::HalfToFloat | ConvOp::FloatToHalf | ConvOp::RoundHalf)
}

/// Rewrite 1 (see the module documentation).
fn float_phis(f: &mut Func) {
    let mut cand: HashSet<Value> = HashSet::new();
    for b in &f.blocks {
        for i in &b.insts {
            if let (Op::Phi(_), Some(r)) = (&i.op, i.result) {
                if f.ty(r) == Ty::I16 {
                    cand.insert(r);
                }
            }
        }
    }
    // Drop φs with another use, to a fixed point (a φ feeding a dropped φ is used as bits).
    loop {
        let mut bad = Vec::new();
        for b in &f.blocks {
            for i in &b.insts {
                let keeps = match i.op {
                    Op::Conv(ConvOp::HalfToFloat, _) => true,
                    Op::Phi(_) => i.result.is_some_and(|r| cand.contains(&r)),
                    _ => false,
                };
                if !keeps {
                    bad.extend(i.op.operands().into_iter().filter(|v| cand.contains(v)));
                }
            }
            if let Term::CondBr { cond, .. } = b.term {
                if cand.contains(&cond) {
                    bad.push(cond);
                }
            }
        }
        if bad.is_empty() {
            break;
        }
        for v in bad {
            cand.remove(&v);
        }
    }
    if cand.is_empty() {
        return;
    }
    let floats: HashMap<Value, Value> = {
        let mut order: Vec<Value> = cand.iter().copied().collect();
        order.sort_by_key(|v| v.0);
        order.into_iter().map(|p| (p, f.new_value(Ty::F32))).collect()
    };
    for bi in 0..f.blocks.len() {
        let mut k = 0;
        while k < f.blocks[bi].insts.len() {
            let i = &f.blocks[bi].insts[k];
            let (Some(r), Op::Phi(ins), loc) = (i.result, i.op.clone(), i.loc) else {
                k += 1;
                continue;
            };
            let Some(&pf) = floats.get(&r) else {
                k += 1;
                continue;
            };
            let mut fins = Vec::new();
            for (pred, v) in ins {
                let fv = match floats.get(&v) {
                    Some(&fv) => fv,
                    None => {
                        let fv = f.new_value(Ty::F32);
                        f.block_mut(pred).insts.push(Inst::at(Some(fv), Op::Conv(ConvOp::HalfToFloat, v), loc));
                        fv
                    }
                };
                fins.push((pred, fv));
            }
            // The old φ goes (its every use is replaced below); the float one takes its place.
            f.blocks[bi].insts[k] = Inst::at(Some(pf), Op::Phi(fins), loc);
            k += 1;
        }
    }
    for b in &mut f.blocks {
        for i in &mut b.insts {
            if let Op::Conv(ConvOp::HalfToFloat, v) = i.op {
                if let Some(&pf) = floats.get(&v) {
                    i.op = Op::Copy(pf);
                }
            }
        }
    }
}

/// Rewrites 2 and 3 (see the module documentation).
fn fuse_and_hoist(f: &mut Func) {
    let entry = f.entry();
    let mut narrowed: HashMap<Value, Value> = HashMap::new();
    let mut in_entry: HashSet<Value> = HashSet::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            if let Some(r) = i.result {
                if let Op::Conv(ConvOp::FloatToHalf, x) = i.op {
                    narrowed.insert(r, x);
                }
                if bi == entry.0 as usize {
                    in_entry.insert(r);
                }
            }
        }
    }
    let mut hoisted = Vec::new();
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let mut kept = Vec::with_capacity(b.insts.len());
        for mut i in std::mem::take(&mut b.insts) {
            if let Op::Conv(ConvOp::HalfToFloat, v) = i.op {
                if let Some(&x) = narrowed.get(&v) {
                    i.op = Op::Conv(ConvOp::RoundHalf, x);
                } else if bi != entry.0 as usize && in_entry.contains(&v) {
                    hoisted.push(i);
                    continue;
                }
            }
            kept.push(i);
        }
        b.insts = kept;
    }
    f.block_mut(entry).insts.extend(hoisted);
}

/// Expands every remaining half conversion in place.
fn expand(f: &mut Func) {
    let arithmetic = arithmetic_values(f);
    for bi in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let mut x = Ex { f, out: Vec::with_capacity(insts.len()), loc: SrcLoc::NONE };
        for i in insts {
            match (i.op, i.result) {
                (Op::Conv(o, a), Some(r)) if is_half(o) => {
                    x.loc = i.loc;
                    let v = match o {
                        ConvOp::HalfToFloat => x.half_to_float(a),
                        ConvOp::FloatToHalf => x.float_to_half(a),
                        _ => x.round_half(a, arithmetic.contains(&a)),
                    };
                    x.out.push(Inst::at(Some(r), Op::Copy(v), i.loc));
                }
                (op, result) => x.out.push(Inst { op, result, loc: i.loc }),
            }
        }
        f.blocks[bi].insts = x.out;
    }
}

/// Values that are a number or the float unit's canonical NaN (`0x7fc00000`): results of float
/// arithmetic (the device's, like RISC-V's, returns that NaN), conversions from integers and
/// `RoundHalf`s of such values.
fn arithmetic_values(f: &Func) -> HashSet<Value> {
    let mut set = HashSet::new();
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        let Some(r) = i.result else { continue };
        let yes = match i.op {
            Op::Bin(o, ..) => {
                matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FMin | BinOp::FMax)
            }
            Op::Fma(..) | Op::Un(UnOp::FSqrt, _) | Op::Conv(ConvOp::SToF | ConvOp::UToF, _) => true,
            // Blocks are not in dominance order, but a RoundHalf's operand is defined first in
            // the common case (a chain within one block); missing one costs four instructions.
            Op::Conv(ConvOp::RoundHalf, x) => set.contains(&x),
            _ => false,
        };
        if yes {
            set.insert(r);
        }
    }
    set
}

/// An expansion's emitter: new instructions go to `out`.
struct Ex<'a> {
    f: &'a mut Func,
    out: Vec<Inst>,
    loc: SrcLoc,
}

impl Ex<'_> {
    fn e(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.f.new_value(ty);
        self.out.push(Inst::at(Some(v), op, self.loc));
        v
    }
    fn k(&mut self, c: u32) -> Value {
        self.e(Ty::I32, Op::Const(c as u64))
    }
    fn kf(&mut self, c: f32) -> Value {
        self.e(Ty::F32, Op::Const(c.to_bits() as u64))
    }
    fn bin(&mut self, o: BinOp, a: Value, b: Value) -> Value {
        let ty = if matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul) { Ty::F32 } else { Ty::I32 };
        self.e(ty, Op::Bin(o, a, b))
    }
    fn bin_k(&mut self, o: BinOp, a: Value, c: u32) -> Value {
        let c = self.k(c);
        self.bin(o, a, c)
    }
    fn cmp_k(&mut self, o: CmpOp, a: Value, c: u32) -> Value {
        let c = self.k(c);
        self.e(Ty::I1, Op::Cmp(o, a, c))
    }
    fn sel(&mut self, c: Value, a: Value, b: Value) -> Value {
        self.e(Ty::I32, Op::Select(c, a, b))
    }
    fn cast(&mut self, ty: Ty, v: Value) -> Value {
        self.e(ty, Op::Conv(ConvOp::Bitcast, v))
    }

    /// The float of the half in the low 16 bits of `h`: the exponent and mantissa moved into a
    /// float's fields read as a float 2^112 too small (subnormals included), one exact multiply
    /// rebiases them; an ∞ or NaN (exponent 31) gets 112 added to its exponent field instead.
    fn half_to_float(&mut self, h: Value) -> Value {
        let h = match self.f.ty(h) {
            Ty::I32 => h,
            _ => self.e(Ty::I32, Op::Conv(ConvOp::ZExt, h)),
        };
        let em = self.bin_k(BinOp::And, h, 0x7fff);
        let shifted = self.bin_k(BinOp::Shl, em, 13);
        let shifted = self.cast(Ty::F32, shifted);
        let scale = self.kf(2f32.powi(112));
        let mag = self.bin(BinOp::FMul, shifted, scale);
        let mag = self.cast(Ty::I32, mag);
        let special = self.cmp_k(CmpOp::GtU, em, 0x7bff);
        let special = self.e(Ty::I32, Op::Conv(ConvOp::ZExt, special));
        let adjust = self.bin_k(BinOp::Mul, special, 112 << 23);
        let mag = self.bin(BinOp::Add, mag, adjust);
        let sign = self.bin_k(BinOp::ShrL, h, 15);
        let sign = self.bin_k(BinOp::Shl, sign, 31);
        let bits = self.bin(BinOp::Or, mag, sign);
        self.cast(Ty::F32, bits)
    }

    /// The half bits (an `i16`) of `f` rounded to nearest even: normals add 0xfff plus the
    /// lowest kept bit and truncate; subnormals round in the float unit by adding 0.5.
    fn float_to_half(&mut self, f: Value) -> Value {
        let x = self.cast(Ty::I32, f);
        let s16 = self.bin_k(BinOp::ShrL, x, 16);
        let sign = self.bin_k(BinOp::And, s16, 0x8000);
        let a = self.bin_k(BinOp::And, x, 0x7fff_ffff);
        let is_nan = self.cmp_k(CmpOp::GtU, a, 0x7f80_0000);
        let is_sub = self.cmp_k(CmpOp::LtU, a, 0x3880_0000); // 2^-14
        let an = self.bin_k(BinOp::Sub, a, 112 << 23);
        let odd = self.bin_k(BinOp::ShrL, a, 13);
        let odd = self.bin_k(BinOp::And, odd, 1);
        let r = self.bin_k(BinOp::Add, an, 0xfff);
        let r = self.bin(BinOp::Add, r, odd);
        let rn = self.bin_k(BinOp::ShrL, r, 13);
        let fa = self.cast(Ty::F32, a);
        let magic = self.kf(0.5);
        let sum = self.bin(BinOp::FAdd, fa, magic);
        let sum = self.cast(Ty::I32, sum);
        let rs = self.bin_k(BinOp::Sub, sum, 0x3f00_0000);
        let r = self.sel(is_sub, rs, rn);
        let to_inf = self.cmp_k(CmpOp::GeU, a, 0x477f_f000); // ≥ 65520 rounds to infinity
        let hinf = self.k(0x7c00);
        let mag = self.sel(to_inf, hinf, r);
        let payload = self.bin_k(BinOp::ShrL, a, 13);
        let payload = self.bin_k(BinOp::And, payload, 0x3ff);
        let nan = self.bin_k(BinOp::Or, payload, 0x7e00);
        let mag = self.sel(is_nan, nan, mag);
        let h = self.bin(BinOp::Or, mag, sign);
        self.e(Ty::I16, Op::Conv(ConvOp::Trunc, h))
    }

    /// `HalfToFloat(FloatToHalf(f))` in the float domain (see the module documentation);
    /// `arithmetic`: `f` is a number or the canonical NaN (which the float operations here give
    /// back unchanged), so NaN payloads need no care.
    fn round_half(&mut self, f: Value, arithmetic: bool) -> Value {
        let x = self.cast(Ty::I32, f);
        let a = self.bin_k(BinOp::And, x, 0x7fff_ffff);
        let e = self.bin_k(BinOp::And, a, 0x7f80_0000);
        let c = self.bin_k(BinOp::Add, e, 13 << 23);
        let c = self.bin_k(BinOp::MaxU, c, 0x3f00_0000); // 2^-1: quantum 2^-24
        let c = self.bin_k(BinOp::MinU, c, 0x7f00_0000); // 2^127: no overflow of C
        let cf = self.cast(Ty::F32, c);
        let fa = self.cast(Ty::F32, a);
        let s = self.bin(BinOp::FAdd, fa, cf);
        let r = self.bin(BinOp::FSub, s, cf);
        // 2^16 and more overflow to ∞ (exactly: below 2^16 both products are exact).
        let up = self.kf(2f32.powi(112));
        let r = self.bin(BinOp::FMul, r, up);
        let down = self.kf(2f32.powi(-112));
        let r = self.bin(BinOp::FMul, r, down);
        let r = self.e(Ty::F32, Op::Bin(BinOp::FCopySign, r, f));
        if arithmetic {
            return r;
        }
        let r = self.cast(Ty::I32, r);
        let is_nan = self.cmp_k(CmpOp::GtU, a, 0x7f80_0000);
        let q = self.bin_k(BinOp::And, x, 0xffff_e000);
        let q = self.bin_k(BinOp::Or, q, 0x0040_0000);
        let r = self.sel(is_nan, q, r);
        self.cast(Ty::F32, r)
    }
}
