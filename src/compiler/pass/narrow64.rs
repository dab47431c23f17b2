//! Narrowing of 64-bit integer arithmetic whose upper half nothing observes, before
//! [`super::legalize64`] turns what remains into 32-bit pairs.
//!
//! Kernels are compiled for 64-bit `size_t` and pointers (`spir64`), so index arithmetic arrives
//! as `i64`: `get_global_id` zero-extended, `int` indices sign-extended for address
//! computations, offsets added and multiplied, then truncated back into a 32-bit address. Such
//! code needs only the low 32 bits of every value involved, and those bits depend only on the
//! low 32 bits of the operands for `+ - * & | ^`, a left shift by a constant below 32, `select`,
//! `φ` and copies.
//!
//! Contract: semantics-preserving rewrite of one function; afterwards an `i64` value that
//! only truncations and such operations (recursively) read is an `i32` value holding its low
//! half, computed by 32-bit operations. Its definition must be one the pass can rewrite —
//! constants, `undef`, argument words and loads (the low word, little-endian), zero/sign
//! extensions of 32-bit-or-narrower values, and the operations above; any other definition
//! stays 64-bit and its readers take its low half (a truncation the pair legalization makes
//! free). A comparison of two `i64` values that are both zero-extended (or both sign-extended)
//! from 32 bits or constants in that range compares their low halves instead (signed
//! comparisons of two zero-extended values become unsigned).
//!
//! A narrowed load reads 4 bytes instead of 8: the memory checker then sees (and faults on) only
//! the bytes the kernel's result depends on.

use super::super::ir::*;

/// How an `i64` value relates to its low half.
#[derive(Clone, Copy, PartialEq)]
enum Ext {
    /// Upper half zero.
    Zero,
    /// Upper half copies bit 31.
    Sign,
    /// A constant that is both (below 2^31).
    Both,
}

/// A use of value `o` by an instruction with result `r` (`None`: no result) reads only `o`'s low
/// half: always, when `r` is a narrowed value, or never.
enum Use {
    Low,
    IfNarrow(Value),
    Full,
}

/// Narrows `f`'s 64-bit values where only their low half is observed; returns whether it
/// changed anything.
pub fn run(f: &mut Func) -> bool {
    let n = f.types.len();
    if !f.types.contains(&Ty::I64) {
        return false;
    }
    // Types before the rewrite (which retypes narrowed values as it goes).
    let ty = f.types.clone();
    let is64 = |v: Value| ty[v.0 as usize] == Ty::I64;
    let mut def: Vec<Option<Op>> = vec![None; n];
    for b in &f.blocks {
        for i in &b.insts {
            if let Some(r) = i.result {
                def[r.0 as usize] = Some(i.op.clone());
            }
        }
    }
    let ext = |v: Value| -> Option<Ext> {
        match def[v.0 as usize].as_ref()? {
            Op::Const(c) if *c < 1 << 31 => Some(Ext::Both),
            Op::Const(c) if *c <= u64::from(u32::MAX) => Some(Ext::Zero),
            Op::Const(c) if (*c as i64) >= i64::from(i32::MIN) && (*c as i64) < 0 => Some(Ext::Sign),
            Op::Conv(ConvOp::ZExt, x) if ty[x.0 as usize].bits() <= 32 => Some(Ext::Zero),
            Op::Conv(ConvOp::SExt, x) if ty[x.0 as usize].bits() <= 32 => Some(Ext::Sign),
            _ => None,
        }
    };
    // The comparison of `a` and `b` on their low halves, if exact.
    let narrow_cmp = |op: CmpOp, a: Value, b: Value| -> Option<CmpOp> {
        use CmpOp::*;
        if !matches!(op, Eq | Ne | LtS | LeS | GtS | GeS | LtU | LeU | GtU | GeU) {
            return None;
        }
        let (ea, eb) = (ext(a)?, ext(b)?);
        let zero = |e| matches!(e, Ext::Zero | Ext::Both);
        let sign = |e| matches!(e, Ext::Sign | Ext::Both);
        if zero(ea) && zero(eb) {
            // Both non-negative: signed order is unsigned order.
            Some(match op {
                CmpOp::LtS => CmpOp::LtU,
                CmpOp::LeS => CmpOp::LeU,
                CmpOp::GtS => CmpOp::GtU,
                CmpOp::GeS => CmpOp::GeU,
                o => o,
            })
        } else if sign(ea) && sign(eb) {
            // Sign extension preserves both signed and unsigned order.
            Some(op)
        } else {
            None
        }
    };
    let use_of = |op: &Op, r: Option<Value>, o: Value| -> Use {
        match (op, r) {
            (Op::Conv(ConvOp::Trunc, _), Some(r)) if ty[r.0 as usize].bits() <= 32 => Use::Low,
            (Op::Cmp(c, a, b), _) if narrow_cmp(*c, *a, *b).is_some() => Use::Low,
            (Op::Bin(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor, ..), Some(r)) => {
                Use::IfNarrow(r)
            }
            (Op::Bin(BinOp::Shl, a, s), Some(r)) if *a == o && *s != o && shift_below_32(&def, *s) => Use::IfNarrow(r),
            (Op::Select(c, ..), Some(r)) if *c != o => Use::IfNarrow(r),
            (Op::Phi(_) | Op::Copy(_), Some(r)) => Use::IfNarrow(r),
            _ => Use::Full,
        }
    };
    // full[v]: some reader needs v's upper half. `needs[r]`: the values whose upper half is
    // needed when r's is.
    let mut full = vec![false; n];
    let mut needs: Vec<Vec<Value>> = vec![Vec::new(); n];
    let mut work = Vec::new();
    for b in &f.blocks {
        for i in &b.insts {
            for o in i.op.operands() {
                if !is64(o) {
                    continue;
                }
                match use_of(&i.op, i.result, o) {
                    Use::Low => {}
                    Use::IfNarrow(r) => needs[r.0 as usize].push(o),
                    Use::Full => work.push(o),
                }
            }
        }
    }
    while let Some(v) = work.pop() {
        if std::mem::replace(&mut full[v.0 as usize], true) {
            continue;
        }
        work.extend(needs[v.0 as usize].iter().copied());
    }
    let rewritable = |v: Value| match def[v.0 as usize].as_ref() {
        Some(
            Op::Const(_)
            | Op::Undef
            | Op::ArgWord { .. }
            | Op::Load(_)
            | Op::Select(..)
            | Op::Phi(_)
            | Op::Copy(_)
            | Op::Bin(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor, ..),
        ) => true,
        Some(Op::Bin(BinOp::Shl, _, s)) => shift_below_32(&def, *s),
        Some(Op::Conv(ConvOp::ZExt | ConvOp::SExt, x)) => ty[x.0 as usize].bits() <= 32,
        _ => false,
    };
    let narrow: Vec<bool> = (0..n).map(|k| is64(Value(k as u32)) && !full[k] && rewritable(Value(k as u32))).collect();
    if !narrow.contains(&true) {
        return false;
    }
    // Rewrite. Readers of a 64-bit value that now need its low half get a truncation: before
    // the reader, or for a φ at the end of the incoming block.
    let mut tail: Vec<Vec<Inst>> = vec![Vec::new(); f.blocks.len()];
    let mut changed = false;
    for bi in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let mut out = Vec::with_capacity(insts.len());
        for mut i in insts {
            let loc = i.loc;
            let mut low = |f: &mut Func, o: Value, at: Option<BlockId>, out: &mut Vec<Inst>| -> Value {
                if narrow[o.0 as usize] || !is64(o) {
                    return o;
                }
                let t = f.new_value(Ty::I32);
                let inst = Inst::at(Some(t), Op::Conv(ConvOp::Trunc, o), loc);
                match at {
                    Some(p) => tail[p.0 as usize].push(inst),
                    None => out.push(inst),
                }
                t
            };
            let r = i.result;
            if let Some(r) = r.filter(|r| narrow[r.0 as usize]) {
                changed = true;
                i.op = match i.op {
                    Op::Const(c) => Op::Const(c & u64::from(u32::MAX)),
                    Op::Conv(c, x) => match f.ty(x) {
                        Ty::I32 => Op::Copy(x),
                        Ty::Ptr(_) => Op::Conv(ConvOp::Bitcast, x),
                        _ => Op::Conv(c, x),
                    },
                    Op::Phi(ins) => Op::Phi(ins.into_iter().map(|(p, v)| (p, low(f, v, Some(p), &mut out))).collect()),
                    Op::Bin(o, a, s) => {
                        let a = low(f, a, None, &mut out);
                        let s = low(f, s, None, &mut out);
                        Op::Bin(o, a, s)
                    }
                    Op::Select(c, a, b) => {
                        let a = low(f, a, None, &mut out);
                        let b = low(f, b, None, &mut out);
                        Op::Select(c, a, b)
                    }
                    Op::Copy(a) => Op::Copy(low(f, a, None, &mut out)),
                    op => op,
                };
                f.types[r.0 as usize] = Ty::I32;
            } else {
                match i.op {
                    Op::Conv(ConvOp::Trunc, x) if narrow[x.0 as usize] => {
                        changed = true;
                        i.op = if r.is_some_and(|r| f.ty(r) == Ty::I32) {
                            Op::Copy(x)
                        } else {
                            Op::Conv(ConvOp::Trunc, x)
                        };
                    }
                    Op::Cmp(c, a, b) if is64(a) => {
                        if let Some(c) = narrow_cmp(c, a, b) {
                            changed = true;
                            let a = low(f, a, None, &mut out);
                            let b = low(f, b, None, &mut out);
                            i.op = Op::Cmp(c, a, b);
                        }
                    }
                    _ => {}
                }
            }
            out.push(i);
        }
        f.blocks[bi].insts = out;
    }
    for (bi, t) in tail.into_iter().enumerate() {
        f.blocks[bi].insts.extend(t);
    }
    changed
}

/// `s` is a constant shift amount below 32 (the low half of `x << s` is then the low half of
/// `x` shifted).
fn shift_below_32(def: &[Option<Op>], s: Value) -> bool {
    matches!(def[s.0 as usize], Some(Op::Const(c)) if c < 32)
}
