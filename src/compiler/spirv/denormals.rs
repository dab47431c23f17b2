//! Single-precision denormals flushed to zero: what `-cl-denorms-are-zero` asks for, carried to
//! the back end as the SPIR-V execution mode `DenormFlushToZero 32` of each kernel
//! (`compiler::build::flush_denormals` adds it; a module built elsewhere may carry it too).
//!
//! Contract: in such a kernel, the program's own `float` arithmetic — the SPIR-V instructions
//! add, subtract, multiply and divide, and the OpenCL.std functions `fma`, `mad`, `sqrt`,
//! `fmin` and `fmax` — reads each denormal operand as a zero of the same sign and returns a
//! zero of the same sign instead of a denormal result, and every `float` comparison reads
//! denormal operands as zero (x86's DAZ and FTZ together). The lowering applies [`flush`] to
//! those instructions' operands and results as it translates them ([`flushes_op`],
//! [`flushes_ext`]); the float code the compiler itself generates — half and double
//! conversions, the other built-in functions — keeps its exact results, so a `half` denormal
//! still widens to its exact float value and `exp(-100.0f)` still returns its denormal. Moves
//! are not arithmetic: loads, stores, copies, selects, bit casts, negation, `fabs`, `copysign`
//! and conversions keep their bits, as IEEE 754 says of non-arithmetic operations. The flush is
//! integer code (`exponent == 0 ? sign : bits`, four vector instructions) because the Ventus FPU,
//! like RISC-V's, has no flush-to-zero mode; clean-up passes merge repeated flushes of one
//! value. Doubles and halves keep their denormals (OpenCL allows either).

use crate::compiler::ir::{BinOp, BlockId, CmpOp, ConvOp, Func, Op, Ty, Value};
use spirv::Op as S;

/// Whether SPIR-V instruction `op` on floats flushes its operands (and, unless it
/// [`compares`], its result).
pub fn flushes_op(op: S) -> bool {
    matches!(op, S::FAdd | S::FSub | S::FMul | S::FDiv) || compares(op)
}

/// Whether `op` is a float comparison (operands flushed, the result is a boolean).
pub fn compares(op: S) -> bool {
    matches!(
        op,
        S::FOrdEqual
            | S::FOrdNotEqual
            | S::FOrdLessThan
            | S::FOrdLessThanEqual
            | S::FOrdGreaterThan
            | S::FOrdGreaterThanEqual
            | S::FUnordEqual
            | S::FUnordNotEqual
            | S::FUnordLessThan
            | S::FUnordLessThanEqual
            | S::FUnordGreaterThan
            | S::FUnordGreaterThanEqual
    )
}

/// Whether OpenCL.std instruction `code` flushes its operands and result.
pub fn flushes_ext(code: u32) -> bool {
    use spirv::OpenclStd100Op as C;
    matches!(C::from_u32(code), Some(C::fma | C::mad | C::sqrt | C::fmin | C::fmax))
}

/// Appends to block `b` the instructions computing float `v` with a denormal replaced by a
/// zero of its sign; the flushed value.
pub fn flush(f: &mut Func, b: BlockId, v: Value) -> Value {
    let bits = f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v));
    let exp_mask = f.push(b, Ty::I32, Op::Const(0x7f80_0000));
    let sign_mask = f.push(b, Ty::I32, Op::Const(0x8000_0000));
    let zero = f.push(b, Ty::I32, Op::Const(0));
    let exp = f.push(b, Ty::I32, Op::Bin(BinOp::And, bits, exp_mask));
    let tiny = f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, exp, zero));
    let sign = f.push(b, Ty::I32, Op::Bin(BinOp::And, bits, sign_mask));
    let kept = f.push(b, Ty::I32, Op::Select(tiny, sign, bits));
    f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::ir::{Space, Term};

    /// The stored value of `flush(x)` after constant folding.
    fn folded(x: u32) -> u64 {
        let mut f = Func::new("t");
        let e = f.entry();
        let a = f.push(e, Ty::F32, Op::Const(x as u64));
        let r = flush(&mut f, e, a);
        let p = f.push(e, Ty::Ptr(Space::Global), Op::Const(0));
        f.push_void(e, Op::Store { ptr: p, value: r });
        f.block_mut(e).term = Term::Ret;
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
    fn denormals_become_signed_zeros_and_the_rest_is_kept() {
        assert_eq!(folded(64), 0);
        assert_eq!(folded(0x8000_0040), 0x8000_0000);
        assert_eq!(folded(0x007f_ffff), 0);
        for kept in [0, 0x8000_0000, 0x0080_0000, 1f32.to_bits(), f32::INFINITY.to_bits(), 0x7fc0_0000] {
            assert_eq!(folded(kept), kept as u64, "{kept:#x}");
        }
    }

    #[test]
    fn which_instructions_flush() {
        assert!(flushes_op(S::FAdd) && flushes_op(S::FOrdLessThan) && !flushes_op(S::FNegate));
        assert!(compares(S::FUnordEqual) && !compares(S::FMul));
        assert!(flushes_ext(spirv::OpenclStd100Op::fma as u32) && !flushes_ext(spirv::OpenclStd100Op::exp as u32));
    }
}
