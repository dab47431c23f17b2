//! Single-precision denormals flushed to zero: what `-cl-denorms-are-zero` asks for, carried to
//! the back end as the SPIR-V execution mode `DenormFlushToZero 32` of each kernel
//! (`compiler::build::flush_denormals` adds it; a module built elsewhere may carry it too).
//!
//! Contract: in a function this pass has run on, every `float` arithmetic operation — add,
//! subtract, multiply, divide, fused multiply-add, square root, exponent, min and max — reads
//! each denormal operand as a zero of the same sign and returns a zero of the same sign instead
//! of a denormal result, and every `float` comparison reads denormal operands as zero (x86's DAZ
//! and FTZ together). Moves are not arithmetic: loads, stores, copies, selects, bit casts,
//! negation, `fabs`, `copysign` and conversions keep their bits, as IEEE 754 says of
//! non-arithmetic operations; rounding to an integral value already turns a denormal into a zero.
//! The flush is integer code (`exponent == 0 ? sign : bits`, four vector instructions) because
//! the Ventus FPU, like RISC-V's, has no flush-to-zero mode; clean-up passes merge repeated
//! flushes of one value. Doubles and halves keep their denormals (OpenCL allows either).

use crate::compiler::ir::{BinOp, BlockId, CmpOp, ConvOp, Func, Inst, Op, Ty, UnOp, Value};

/// Whether `op` is `float` arithmetic that flushes its operands and result.
fn arithmetic(op: &Op) -> bool {
    match op {
        Op::Bin(b, _, _) => {
            matches!(b, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FMin | BinOp::FMax)
        }
        Op::Un(u, _) => matches!(u, UnOp::FSqrt | UnOp::FExp),
        Op::Fma(..) => true,
        _ => false,
    }
}

/// The `float` operands of `op` to flush.
fn operands(op: &mut Op) -> Vec<&mut Value> {
    match op {
        Op::Bin(_, a, b) | Op::Cmp(_, a, b) => vec![a, b],
        Op::Un(_, a) => vec![a],
        Op::Fma(a, b, c) => vec![a, b, c],
        _ => Vec::new(),
    }
}

/// Appends to `out` the instructions computing `v` with a denormal replaced by a signed zero,
/// defining `into` (a new value if `None`); the flushed value.
fn flush(f: &mut Func, out: &mut Vec<Inst>, v: Value, into: Option<Value>, at: &Inst) -> Value {
    let mut push = |f: &mut Func, ty: Ty, op: Op, res: Option<Value>| {
        let r = res.unwrap_or_else(|| f.new_value(ty));
        out.push(Inst::at(Some(r), op, at.loc));
        r
    };
    let bits = push(f, Ty::I32, Op::Conv(ConvOp::Bitcast, v), None);
    let exp_mask = push(f, Ty::I32, Op::Const(0x7f80_0000), None);
    let sign_mask = push(f, Ty::I32, Op::Const(0x8000_0000), None);
    let zero = push(f, Ty::I32, Op::Const(0), None);
    let exp = push(f, Ty::I32, Op::Bin(BinOp::And, bits, exp_mask), None);
    let tiny = push(f, Ty::I1, Op::Cmp(CmpOp::Eq, exp, zero), None);
    let sign = push(f, Ty::I32, Op::Bin(BinOp::And, bits, sign_mask), None);
    let kept = push(f, Ty::I32, Op::Select(tiny, sign, bits), None);
    push(f, Ty::F32, Op::Conv(ConvOp::Bitcast, kept), into)
}

/// Flushes `float` denormals in every arithmetic operation and comparison of `f` (see the module
/// docs); whether anything changed.
pub fn flush_f32(f: &mut Func) -> bool {
    let mut changed = false;
    for b in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.block_mut(BlockId(b as u32)).insts);
        let mut out = Vec::with_capacity(insts.len());
        for mut inst in insts {
            let is_cmp = matches!(&inst.op, Op::Cmp(c, x, _)
                if matches!(c, CmpOp::FEq | CmpOp::FNe | CmpOp::FLt | CmpOp::FLe | CmpOp::FGt | CmpOp::FGe)
                    && f.ty(*x) == Ty::F32);
            let result_f32 = inst.result.is_some_and(|r| f.ty(r) == Ty::F32);
            if !(is_cmp || (arithmetic(&inst.op) && result_f32)) {
                out.push(inst);
                continue;
            }
            changed = true;
            let at = inst.clone();
            for v in operands(&mut inst.op) {
                *v = flush(f, &mut out, *v, None, &at);
            }
            if is_cmp {
                out.push(inst);
                continue;
            }
            // The operation now defines a fresh value; its flushed form takes over its result.
            let Some(result) = inst.result else { unreachable!("result_f32 holds") };
            let raw = f.new_value(Ty::F32);
            inst.result = Some(raw);
            out.push(inst);
            flush(f, &mut out, raw, Some(result), &at);
        }
        f.block_mut(BlockId(b as u32)).insts = out;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::Term;

    /// `x + y` and `x < y` on arguments, flushed, then the operations interpreted by the
    /// constant folder on the arguments as constants.
    fn fold(op: fn(Value, Value) -> Op, ty: Ty, x: u32, y: u32) -> u64 {
        let mut f = Func::new("t");
        let e = f.entry();
        let a = f.push(e, Ty::F32, Op::Const(x as u64));
        let b = f.push(e, Ty::F32, Op::Const(y as u64));
        let r = f.push(e, ty, op(a, b));
        let p = f.push(e, Ty::Ptr(crate::compiler::ir::Space::Global), Op::Const(0));
        f.push_void(e, Op::Store { ptr: p, value: r });
        f.block_mut(e).term = Term::Ret;
        assert!(flush_f32(&mut f));
        crate::compiler::pass::simplify::fold(&mut f);
        let stored = f.blocks[0]
            .insts
            .iter()
            .find_map(|i| match i.op {
                Op::Store { value, .. } => Some(value),
                _ => None,
            })
            .unwrap();
        match f.def_op(stored) {
            Some(Op::Const(c)) => *c,
            other => panic!("not folded: {other:?}"),
        }
    }

    #[test]
    fn denormal_operands_and_results_become_signed_zeros() {
        let add = |a, b| Op::Bin(BinOp::FAdd, a, b);
        // 0 + denormal 64: 0 (was the denormal itself).
        assert_eq!(fold(add, Ty::F32, 0, 64), 0);
        // -0 + -denormal: -0.
        assert_eq!(fold(add, Ty::F32, 0x8000_0000, 0x8000_0040), 0x8000_0000);
        // Normal operands and results are unchanged: 1 + 2 = 3.
        assert_eq!(fold(add, Ty::F32, 1f32.to_bits(), 2f32.to_bits()), 3f32.to_bits() as u64);
        // A denormal result of normal operands: 2^-126 - 1.5·2^-127·... flushed.
        let tiny = f32::MIN_POSITIVE.to_bits();
        let mul = |a, b| Op::Bin(BinOp::FMul, a, b);
        assert_eq!(fold(mul, Ty::F32, tiny, 0.5f32.to_bits()), 0);
        // A denormal compares equal to zero.
        let eq = |a, b| Op::Cmp(CmpOp::FEq, a, b);
        assert_eq!(fold(eq, Ty::I1, 1, 0), 1);
    }
}
