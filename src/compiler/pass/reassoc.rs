//! Reassociation of integer address arithmetic, so that neighbouring accesses share their
//! per-work-item part: `in[i - 1]`, `in[i + 1]` and `in[(y - 1) * w + x]` become `&in[i]` plus
//! a uniform offset, which common-subexpression elimination ([`super::cse`]) then merges and
//! instruction selection folds into the load's immediate (a constant) or adds with one
//! vector-scalar instruction (a uniform value).
//!
//! Rewrites, on 32-bit integers and pointers (wrapping arithmetic: all are exact modulo 2³²), where
//! `d` is a per-work-item value, `u` a term computed from constants and kernel arguments only
//! (moving out a work-group id or the global offset would add it later instead of sooner, an
//! instruction more for nothing) and `m`, `k`, `p` uniform (also metadata words and the
//! work-group CSRs):
//! * `(d + u) · m` → `d·m + u·m` and `(d + u) << k` → `(d << k) + (u << k)`, `m`/`k` uniform;
//! * `(d + u) + e` and `e + (d + u)` → `(d + e) + u`, `e` per-work-item;
//! * `p + (d + u)` → `(p + d) + u` (`p` a base pointer, say).
//!
//! Every new instruction goes right before the one it rewrites, whose operands' definitions
//! dominate it. Blocks are visited in reverse post-order, so a rewritten definition is seen by its
//! later uses, and the rules compose (`((y - 1)·w + x)·4` becomes `(y·w + x)·4 + (-w)·4`). The
//! uniform parts are scalar instructions in the back end, computed once where CSE merges them.

use super::super::ir::*;
use crate::isa::regs::csr;
use std::collections::HashMap;

/// Per-value facts the rules need: the (possibly rewritten) definition and uniformity.
struct Facts {
    def: HashMap<Value, Op>,
    uniform: HashMap<Value, bool>,
    /// Computed from constants and kernel arguments only: the terms worth moving out (a
    /// work-group's id or the global offset would only be added later instead of sooner).
    pullable: HashMap<Value, bool>,
}

impl Facts {
    fn uni(&self, v: Value) -> bool {
        self.uniform.get(&v).copied().unwrap_or(false)
    }
    fn pull(&self, v: Value) -> bool {
        self.pullable.get(&v).copied().unwrap_or(false)
    }
    /// `Some((d, u))` when `v = d + u` (either order) with `d` per-work-item and `u` a term of
    /// constants and kernel arguments.
    fn split_add(&self, v: Value) -> Option<(Value, Value)> {
        match self.def.get(&v)? {
            Op::Bin(BinOp::Add, a, b) if !self.uni(*a) && self.pull(*b) => Some((*a, *b)),
            Op::Bin(BinOp::Add, a, b) if self.pull(*a) && !self.uni(*b) => Some((*b, *a)),
            _ => None,
        }
    }
    fn pullable_op(&self, op: &Op) -> bool {
        match op {
            Op::Const(_) | Op::ArgWord { .. } => true,
            Op::Bin(_, a, b) => self.pull(*a) && self.pull(*b),
            Op::Un(_, a) | Op::Conv(_, a) => self.pull(*a),
            _ => false,
        }
    }
    fn record(&mut self, v: Value, op: &Op) {
        self.uniform.insert(v, self.uniform_op(op));
        self.pullable.insert(v, self.pullable_op(op));
        self.def.insert(v, op.clone());
    }
    /// Uniform by construction: the operands of `op` are all uniform and `op` reads nothing
    /// that differs between work-items.
    fn uniform_op(&self, op: &Op) -> bool {
        match op {
            Op::Const(_) | Op::ArgWord { .. } | Op::MetaWord { .. } => true,
            Op::Csr(c) => matches!(
                *c,
                csr::NUMW | csr::NUMT | csr::KNL | csr::WGID | csr::LDS | csr::PDS | csr::GIDX | csr::GIDY | csr::GIDZ
            ),
            Op::Bin(_, a, b) => self.uni(*a) && self.uni(*b),
            Op::Un(_, a) | Op::Conv(_, a) => self.uni(*a),
            _ => false,
        }
    }
}

fn int_like(t: Ty) -> bool {
    matches!(t, Ty::I32 | Ty::Ptr(_))
}

/// Runs the rewrites; returns whether anything changed (the replaced operands may become dead).
pub fn run(f: &mut Func) -> bool {
    let mut facts = Facts { def: HashMap::new(), uniform: HashMap::new(), pullable: HashMap::new() };
    let mut changed = false;
    for b in f.rpo() {
        let insts = std::mem::take(&mut f.block_mut(b).insts);
        let mut out = Vec::with_capacity(insts.len());
        for mut inst in insts {
            if let Some(v) = inst.result {
                let ty = f.ty(v);
                if int_like(ty) {
                    let mut new = |f: &mut Func, facts: &mut Facts, op: Op, ty: Ty, loc: SrcLoc| -> Value {
                        let t = f.new_value(ty);
                        facts.record(t, &op);
                        out.push(Inst::at(Some(t), op, loc));
                        t
                    };
                    if let Some(op) = rewrite(f, &mut facts, &inst.op, ty, inst.loc, &mut new) {
                        inst.op = op;
                        changed = true;
                    }
                }
                facts.record(v, &inst.op);
            }
            out.push(inst);
        }
        f.block_mut(b).insts = out;
    }
    changed
}

/// The rewritten operation of an instruction of type `ty`, if a rule applies; `new` emits a
/// helper instruction before it.
fn rewrite(
    f: &mut Func,
    facts: &mut Facts,
    op: &Op,
    ty: Ty,
    loc: SrcLoc,
    new: &mut impl FnMut(&mut Func, &mut Facts, Op, Ty, SrcLoc) -> Value,
) -> Option<Op> {
    let Op::Bin(o, x, y) = *op else { return None };
    match o {
        // (d + u)·m → d·m + u·m;  (d + u) << k → (d << k) + (u << k).
        BinOp::Mul | BinOp::Shl if ty == Ty::I32 => {
            let (sum, m) = if facts.uni(y) {
                (x, y)
            } else if o == BinOp::Mul && facts.uni(x) {
                (y, x)
            } else {
                return None;
            };
            let (d, u) = facts.split_add(sum)?;
            let dm = new(f, facts, Op::Bin(o, d, m), ty, loc);
            let um = new(f, facts, Op::Bin(o, u, m), ty, loc);
            Some(Op::Bin(BinOp::Add, dm, um))
        }
        BinOp::Add => {
            let (tx, ty_y) = (f.ty(x), f.ty(y));
            // p + (d + u) → (p + d) + u, p uniform (pointer or integer).
            if facts.uni(x) && !facts.uni(y) && ty_y == Ty::I32 {
                let (d, u) = facts.split_add(y)?;
                let pd = new(f, facts, Op::Bin(BinOp::Add, x, d), ty, loc);
                return Some(Op::Bin(BinOp::Add, pd, u));
            }
            // (d + u) + e and e + (d + u) → (d + e) + u, e per-work-item (integers only).
            if ty == Ty::I32 && tx == Ty::I32 && ty_y == Ty::I32 && !facts.uni(x) && !facts.uni(y) {
                let (inner, e) = match (facts.split_add(x), facts.split_add(y)) {
                    (Some(s), _) => (s, y),
                    (None, Some(s)) => (s, x),
                    (None, None) => return None,
                };
                let (d, u) = inner;
                let de = new(f, facts, Op::Bin(BinOp::Add, d, e), ty, loc);
                return Some(Op::Bin(BinOp::Add, de, u));
            }
            None
        }
        _ => None,
    }
}
