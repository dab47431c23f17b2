//! Clean-ups: one exit block, constant folding (with the ISA's own semantics), copy propagation,
//! dead-code elimination, and CFG simplification (empty blocks, straight-line merges).

use super::super::ir::*;
use crate::isa::semantics as s;
use std::collections::HashMap;

/// Gives the kernel exactly one `ret` block; `unreachable` blocks trap (`__builtin_trap()`, or
/// undefined behaviour reached) and then branch to it, so that the CFG keeps one exit.
pub fn unreachable_to_return(f: &mut Func) {
    let exits: Vec<usize> =
        (0..f.blocks.len()).filter(|&b| matches!(f.blocks[b].term, Term::Ret | Term::Unreachable)).collect();
    if exits.len() <= 1 && exits.iter().all(|&b| f.blocks[b].term == Term::Ret) {
        return;
    }
    let r = f.new_block();
    f.block_mut(r).term = Term::Ret;
    for b in exits {
        if f.blocks[b].term == Term::Unreachable {
            let loc = std::mem::replace(&mut f.loc, f.blocks[b].term_loc);
            f.push_void(BlockId(b as u32), Op::Trap);
            f.loc = loc;
        }
        f.blocks[b].term = Term::Br(r);
    }
}

/// Replaces every use of values in `map` (transitively).
pub fn replace_uses(f: &mut Func, map: &HashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    let resolve = |mut v: Value| {
        let mut n = 0;
        while let Some(&w) = map.get(&v) {
            v = w;
            n += 1;
            if n > 1000 {
                break;
            }
        }
        v
    };
    for b in &mut f.blocks {
        for i in &mut b.insts {
            i.op.map_operands(resolve);
        }
        if let Term::CondBr { cond, .. } = &mut b.term {
            *cond = resolve(*cond);
        }
    }
}

fn sext(v: u64, t: Ty) -> i64 {
    let b = t.bits();
    if b >= 64 {
        v as i64
    } else {
        ((v << (64 - b)) as i64) >> (64 - b)
    }
}

/// Folds one operation on constants (32-bit and narrower types only).
fn fold_op(f: &Func, op: &Op, consts: &HashMap<Value, u64>, ty: Ty) -> Option<u64> {
    let c = |v: &Value| consts.get(v).copied();
    if ty == Ty::I64 {
        return None;
    }
    let m = ty.mask();
    Some(match op {
        Op::Bin(o, a, b) => {
            let (x, y) = (c(a)?, c(b)?);
            let t = f.ty(*a);
            let (xs, ys) = (sext(x, t) as i32 as u32, sext(y, t) as i32 as u32);
            let (xu, yu) = (x as u32, y as u32);
            let r: u32 = match o {
                BinOp::Add => xu.wrapping_add(yu),
                BinOp::Sub => xu.wrapping_sub(yu),
                BinOp::Mul => xu.wrapping_mul(yu),
                BinOp::And => xu & yu,
                BinOp::Or => xu | yu,
                BinOp::Xor => xu ^ yu,
                BinOp::Shl => xu.wrapping_shl(yu),
                BinOp::ShrL => xu.wrapping_shr(yu),
                BinOp::ShrA => (xs as i32).wrapping_shr(yu) as u32,
                BinOp::DivU if t.bits() == 32 && yu != 0 => xu / yu,
                BinOp::RemU if t.bits() == 32 && yu != 0 => xu % yu,
                BinOp::DivS if t.bits() == 32 && ys != 0 => s::div(xs, ys),
                BinOp::RemS if t.bits() == 32 && ys != 0 => s::rem(xs, ys),
                BinOp::MulHiU if t.bits() == 32 => s::mulhu(xu, yu),
                BinOp::MulHiS if t.bits() == 32 => s::mulh(xu, yu),
                BinOp::MinU => xu.min(yu),
                BinOp::MaxU => xu.max(yu),
                BinOp::MinS => s::min(xs, ys),
                BinOp::MaxS => s::max(xs, ys),
                BinOp::FAdd => s::fadd(xu, yu),
                BinOp::FSub => s::fsub(xu, yu),
                BinOp::FMul => s::fmul(xu, yu),
                BinOp::FDiv => s::fdiv(xu, yu),
                _ => return None,
            };
            r as u64 & m
        }
        Op::Cmp(o, a, b) => {
            let (x, y) = (c(a)?, c(b)?);
            let t = f.ty(*a);
            let (xs, ys) = (sext(x, t), sext(y, t));
            let (fx, fy) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
            (match o {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::LtS => xs < ys,
                CmpOp::LeS => xs <= ys,
                CmpOp::GtS => xs > ys,
                CmpOp::GeS => xs >= ys,
                CmpOp::LtU => x < y,
                CmpOp::LeU => x <= y,
                CmpOp::GtU => x > y,
                CmpOp::GeU => x >= y,
                CmpOp::FEq => fx == fy,
                // Ordered not-equal: false when either is NaN (so not `fx != fy`).
                CmpOp::FNe => {
                    matches!(fx.partial_cmp(&fy), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Greater))
                }
                CmpOp::FLt => fx < fy,
                CmpOp::FLe => fx <= fy,
                CmpOp::FGt => fx > fy,
                CmpOp::FGe => fx >= fy,
                CmpOp::FUno => fx.is_nan() || fy.is_nan(),
                CmpOp::FOrd => !(fx.is_nan() || fy.is_nan()),
            }) as u64
        }
        Op::Un(UnOp::Not, a) => !c(a)? & m,
        Op::Un(UnOp::Neg, a) => c(a)?.wrapping_neg() & m,
        Op::Select(cd, a, b) => {
            if c(cd)? != 0 {
                c(a)?
            } else {
                c(b)?
            }
        }
        Op::Conv(ConvOp::ZExt | ConvOp::Trunc | ConvOp::Bitcast, a) => c(a)? & m,
        Op::Conv(ConvOp::SExt, a) => (sext(c(a)?, f.ty(*a)) as u64) & m,
        _ => return None,
    })
}

/// Constant folding, constant de-duplication and copy propagation, to a fixed point.
pub fn fold(f: &mut Func) {
    loop {
        let mut folded = false;
        let mut consts: HashMap<Value, u64> = HashMap::new();
        let mut canon: HashMap<(u32, u64), Value> = HashMap::new();
        let mut repl: HashMap<Value, Value> = HashMap::new();
        for bi in 0..f.blocks.len() {
            for ii in 0..f.blocks[bi].insts.len() {
                let (res, op) = {
                    let i = &f.blocks[bi].insts[ii];
                    (i.result, i.op.clone())
                };
                let Some(r) = res else { continue };
                let ty = f.ty(r);
                match &op {
                    Op::Const(v) => {
                        let key = (ty_key(ty), *v);
                        if bi == 0 {
                            if let Some(&c) = canon.get(&key) {
                                repl.insert(r, c);
                            } else {
                                canon.insert(key, r);
                            }
                        }
                        consts.insert(r, *v);
                    }
                    Op::Copy(a) => {
                        repl.insert(r, *a);
                    }
                    _ => {
                        if let Some(v) = fold_op(f, &op, &consts, ty) {
                            f.blocks[bi].insts[ii].op = Op::Const(v);
                            consts.insert(r, v);
                            folded = true;
                        } else if let Some(same) = identity(&op, &consts, ty) {
                            repl.insert(r, same);
                        } else if let Some(cheaper) = boolean_select(&op, &consts, ty) {
                            f.blocks[bi].insts[ii].op = cheaper;
                            folded = true;
                        }
                    }
                }
            }
        }
        repl.retain(|k, v| k != v);
        let changed_terms = fold_branches(f, &consts);
        if repl.is_empty() && !changed_terms && !folded {
            break;
        }
        replace_uses(f, &repl);
        // Replaced definitions are now unused: neutralise them so they are not found again.
        for b in &mut f.blocks {
            for i in &mut b.insts {
                if i.result.is_some_and(|r| repl.contains_key(&r)) {
                    i.op = Op::Undef;
                }
            }
        }
    }
}

fn ty_key(t: Ty) -> u32 {
    match t {
        Ty::I1 => 1,
        Ty::I8 => 2,
        Ty::I16 => 3,
        Ty::I32 => 4,
        Ty::I64 => 5,
        Ty::F32 => 6,
        Ty::Ptr(Space::Global) => 7,
        Ty::Ptr(Space::Constant) => 8,
        Ty::Ptr(Space::Local) => 9,
        Ty::Ptr(Space::Private) => 10,
        Ty::Ptr(Space::Generic) => 11,
    }
}

/// Algebraic identities that return an existing value.
fn identity(op: &Op, consts: &HashMap<Value, u64>, ty: Ty) -> Option<Value> {
    let c = |v: &Value| consts.get(v).copied();
    if ty == Ty::F32 {
        return None;
    }
    match op {
        Op::Bin(BinOp::Add | BinOp::Sub | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::ShrL | BinOp::ShrA, a, b)
            if c(b) == Some(0) =>
        {
            Some(*a)
        }
        Op::Bin(BinOp::Add | BinOp::Or | BinOp::Xor, a, b) if c(a) == Some(0) => Some(*b),
        Op::Bin(BinOp::Mul | BinOp::DivU | BinOp::DivS, a, b) if c(b) == Some(1) => Some(*a),
        Op::Bin(BinOp::Mul, a, b) if c(a) == Some(1) => Some(*b),
        Op::Select(_, a, b) if a == b => Some(*a),
        // A constant condition picks its operand (legalised 64-bit shifts by constant amounts
        // leave these behind).
        Op::Select(k, a, b) if c(k).is_some() => Some(if c(k) != Some(0) { *a } else { *b }),
        // x & all-ones (of the value's width).
        Op::Bin(BinOp::And, a, b) if c(b).is_some_and(|k| k & ty.mask() == ty.mask()) => Some(*a),
        Op::Bin(BinOp::And, a, b) if c(a).is_some_and(|k| k & ty.mask() == ty.mask()) => Some(*b),
        Op::Bin(BinOp::Or | BinOp::Xor, a, b) if c(b) == Some(0) => Some(*a),
        Op::Phi(ins) if !ins.is_empty() && ins.iter().all(|(_, v)| *v == ins[0].1) => Some(ins[0].1),
        _ => None,
    }
}

/// A boolean `select` with a constant arm is a logic operation (`a && b` and `a || b` reach
/// the IR as `select(a, b, false)` and `select(a, true, b)`): one instruction instead of a
/// bitwise select.
fn boolean_select(op: &Op, consts: &HashMap<Value, u64>, ty: Ty) -> Option<Op> {
    let c = |v: &Value| consts.get(v).copied();
    match op {
        Op::Select(k, a, b) if ty == Ty::I1 && c(b) == Some(0) => Some(Op::Bin(BinOp::And, *k, *a)),
        Op::Select(k, a, b) if ty == Ty::I1 && c(a) == Some(1) => Some(Op::Bin(BinOp::Or, *k, *b)),
        _ => None,
    }
}

/// Branches on constants become jumps (φs of the dropped edge are updated).
fn fold_branches(f: &mut Func, consts: &HashMap<Value, u64>) -> bool {
    let mut changed = false;
    for bi in 0..f.blocks.len() {
        if let Term::CondBr { cond, then_, else_ } = f.blocks[bi].term.clone() {
            if let Some(c) = consts.get(&cond) {
                let (keep, drop) = if *c != 0 { (then_, else_) } else { (else_, then_) };
                f.blocks[bi].term = Term::Br(keep);
                if keep != drop {
                    remove_phi_edge(f, drop, BlockId(bi as u32));
                }
                changed = true;
            }
        }
    }
    changed
}

/// Removes the incoming entry of `pred` from the φs of `block`.
pub fn remove_phi_edge(f: &mut Func, block: BlockId, pred: BlockId) {
    for i in &mut f.block_mut(block).insts {
        if let Op::Phi(ins) = &mut i.op {
            ins.retain(|(b, _)| *b != pred);
        }
    }
}

/// Removes side-effect-free instructions whose results are unused, and unreachable blocks' code.
pub fn dce(f: &mut Func) {
    let reach = {
        let mut r = vec![false; f.blocks.len()];
        for b in f.rpo() {
            r[b.0 as usize] = true;
        }
        r
    };
    for (bi, live) in reach.iter().enumerate() {
        if !live {
            let succ = f.blocks[bi].term.successors();
            f.blocks[bi].insts.clear();
            f.blocks[bi].term = Term::Unreachable;
            for s in succ {
                remove_phi_edge(f, s, BlockId(bi as u32));
            }
        }
    }
    loop {
        let mut used = vec![false; f.types.len()];
        for b in &f.blocks {
            for i in &b.insts {
                for v in i.op.operands() {
                    used[v.0 as usize] = true;
                }
            }
            if let Term::CondBr { cond, .. } = b.term {
                used[cond.0 as usize] = true;
            }
        }
        // A checker hook's call stays even when its result is unused (`abi::subroutine`).
        let hooks: Vec<bool> = f.callees.iter().map(|n| crate::abi::subroutine::is_check(n)).collect();
        let hook = |op: &Op| matches!(op, Op::Call { sub, .. } if hooks.get(*sub as usize) == Some(&true));
        let mut removed = false;
        for b in &mut f.blocks {
            let before = b.insts.len();
            b.insts.retain(|i| i.op.has_side_effects() || hook(&i.op) || i.result.is_some_and(|r| used[r.0 as usize]));
            removed |= b.insts.len() != before;
        }
        if !removed {
            break;
        }
    }
}

/// Removes empty forwarding blocks and merges straight-line block pairs. Predecessor lists are
/// kept up to date as blocks change, and the φs removed by merging are replaced once at the end,
/// so the cost stays near-linear in the function size.
pub fn merge_blocks(f: &mut Func) {
    let mut preds = f.preds();
    let mut repl: HashMap<Value, Value> = HashMap::new();
    loop {
        let mut changed = false;
        // 1. An empty block `b: br s` (not the entry): redirect its predecessors to `s` when that
        //    keeps φs unambiguous.
        for b in 1..f.blocks.len() {
            let Term::Br(s) = f.blocks[b].term.clone() else { continue };
            if !f.blocks[b].insts.is_empty() || s.0 as usize == b || preds[b].is_empty() {
                continue;
            }
            let s_has_phis = f.block(s).insts.iter().any(|i| matches!(i.op, Op::Phi(_)));
            if s_has_phis && preds[b].iter().any(|p| preds[s.0 as usize].contains(p)) {
                continue;
            }
            let bid = BlockId(b as u32);
            let from = std::mem::take(&mut preds[b]);
            for p in &from {
                match &mut f.blocks[p.0 as usize].term {
                    Term::Br(t) if *t == bid => *t = s,
                    Term::CondBr { then_, else_, .. } => {
                        if *then_ == bid {
                            *then_ = s;
                        }
                        if *else_ == bid {
                            *else_ = s;
                        }
                    }
                    _ => {}
                }
            }
            for i in &mut f.block_mut(s).insts {
                if let Op::Phi(ins) = &mut i.op {
                    if let Some(k) = ins.iter().position(|(pb, _)| *pb == bid) {
                        let (_, v) = ins.remove(k);
                        for p in &from {
                            ins.push((*p, v));
                        }
                    }
                }
            }
            let sp = &mut preds[s.0 as usize];
            sp.retain(|x| *x != bid);
            for p in from {
                if !sp.contains(&p) {
                    sp.push(p);
                }
            }
            f.blocks[b].term = Term::Unreachable;
            changed = true;
        }
        // 2. `a: ...; br s` where `s` has `a` as its only predecessor: append `s` to `a`.
        for a in 0..f.blocks.len() {
            while let Term::Br(s) = f.blocks[a].term.clone() {
                let si = s.0 as usize;
                if si == a || si == 0 || preds[si].len() != 1 {
                    break;
                }
                let mut insts = std::mem::take(&mut f.blocks[si].insts);
                insts.retain(|i| match &i.op {
                    Op::Phi(ins) => {
                        if let (Some(r), Some((_, v))) = (i.result, ins.first()) {
                            repl.insert(r, *v);
                        }
                        false
                    }
                    _ => true,
                });
                let term = std::mem::replace(&mut f.blocks[si].term, Term::Unreachable);
                f.blocks[a].insts.extend(insts);
                f.blocks[a].term = term.clone();
                preds[si].clear();
                let ab = BlockId(a as u32);
                // φs in the successors of `s` now come from `a`.
                for t in term.successors() {
                    for i in &mut f.block_mut(t).insts {
                        if let Op::Phi(ins) = &mut i.op {
                            for (pb, _) in ins.iter_mut() {
                                if *pb == s {
                                    *pb = ab;
                                }
                            }
                        }
                    }
                    let tp = &mut preds[t.0 as usize];
                    tp.retain(|x| *x != s);
                    if !tp.contains(&ab) {
                        tp.push(ab);
                    }
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    replace_uses(f, &repl);
    compact(f);
}

/// Drops unreachable blocks and renumbers the rest in reverse post-order (entry first).
pub fn compact(f: &mut Func) {
    let order = f.rpo();
    let mut new_id = vec![None; f.blocks.len()];
    for (i, b) in order.iter().enumerate() {
        new_id[b.0 as usize] = Some(BlockId(i as u32));
    }
    let map = |b: BlockId| new_id[b.0 as usize].expect("reachable successor");
    let mut blocks = Vec::with_capacity(order.len());
    for b in &order {
        let mut blk = f.blocks[b.0 as usize].clone();
        blk.term = match blk.term {
            Term::Br(t) => Term::Br(map(t)),
            Term::CondBr { cond, then_, else_ } => Term::CondBr { cond, then_: map(then_), else_: map(else_) },
            t => t,
        };
        for i in &mut blk.insts {
            if let Op::Phi(ins) = &mut i.op {
                ins.retain(|(p, _)| new_id[p.0 as usize].is_some());
                for (p, _) in ins.iter_mut() {
                    *p = map(*p);
                }
            }
        }
        blocks.push(blk);
    }
    f.blocks = blocks;
}
