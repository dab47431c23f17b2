//! Promotes private-memory slots to SSA values (mem2reg).
//!
//! `-O0` SPIR-V (the translator fallback, `-cl-opt-disable`) keeps every local variable in a
//! `Function` variable, which the front end places in the work-item's private frame
//! (`PrivateAddr`). This pass turns such slots back into SSA values with φs at the iterated
//! dominance frontier of their stores (Cytron et al.), so they live in registers.
//!
//! Contract (conservative, sound):
//! * Nothing is promoted if any private pointer *escapes*: a pointer derived from `PrivateAddr`
//!   used other than as the address of a `Load`/`Store` or through `+ constant` (e.g. stored to
//!   memory, compared, selected, passed through a φ, indexed by a run-time value).
//! * A slot (byte offset) is promoted only if every access overlapping its bytes is a `Load` or
//!   `Store` at exactly that offset with the same type.
//! * A load before any store reads an undefined value (as the memory would hold garbage).

use super::super::ir::*;
use super::cfg::dominators;
use super::simplify::replace_uses;
use std::collections::HashMap;

/// Runs the promotion; returns whether anything changed.
pub fn promote(f: &mut Func) -> bool {
    let Some(slots) = promotable_slots(f) else {
        return false;
    };
    if slots.is_empty() {
        return false;
    }
    rename(f, &slots);
    true
}

/// The private byte offset of each pointer value derived from `PrivateAddr`.
fn private_offsets(f: &Func) -> HashMap<Value, u32> {
    let consts: HashMap<Value, u64> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match (i.result, &i.op) {
            (Some(r), Op::Const(c)) => Some((r, *c)),
            _ => None,
        })
        .collect();
    let mut offs = HashMap::new();
    // Definitions may appear in any block order: iterate to a fixed point.
    loop {
        let before = offs.len();
        for i in f.blocks.iter().flat_map(|b| &b.insts) {
            let Some(r) = i.result else { continue };
            if offs.contains_key(&r) {
                continue;
            }
            let o = match i.op {
                Op::PrivateAddr { offset } => Some(offset),
                Op::Copy(p) => offs.get(&p).copied(),
                Op::Bin(BinOp::Add, p, c) => match (offs.get(&p), consts.get(&c)) {
                    (Some(o), Some(c)) => Some(o.wrapping_add(*c as u32)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(o) = o {
                offs.insert(r, o);
            }
        }
        if offs.len() == before {
            return offs;
        }
    }
}

/// A promotable slot: byte offset and type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Slot {
    offset: u32,
    ty: Ty,
}

fn bytes_of(t: Ty) -> u32 {
    (t.bits() / 8).max(1)
}

/// `None` when a private pointer escapes; else the promotable slots.
fn promotable_slots(f: &Func) -> Option<Vec<Slot>> {
    let offs = private_offsets(f);
    if offs.is_empty() {
        return Some(Vec::new());
    }
    let mut accesses: Vec<(u32, Ty)> = Vec::new();
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        match &i.op {
            Op::Load(p) if offs.contains_key(p) => accesses.push((offs[p], f.ty(i.result?))),
            Op::Store { ptr, value } if offs.contains_key(ptr) => {
                if offs.contains_key(value) {
                    return None;
                }
                accesses.push((offs[ptr], f.ty(*value)));
            }
            Op::Bin(BinOp::Add, p, _) | Op::Copy(p)
                if offs.contains_key(p) && i.result.is_some_and(|r| offs.contains_key(&r)) => {}
            op => {
                if op.operands().iter().any(|v| offs.contains_key(v)) {
                    return None;
                }
            }
        }
    }
    // Every value derived from a private pointer must itself be a known offset (no run-time
    // indexing): checked above, since any other use of a private pointer escapes.
    let mut slots: Vec<Slot> = Vec::new();
    for &(o, t) in &accesses {
        let s = Slot { offset: o, ty: t };
        if slots.contains(&s) {
            continue;
        }
        let end = o + bytes_of(t);
        let clean = accesses.iter().all(|&(o2, t2)| {
            let end2 = o2 + bytes_of(t2);
            end2 <= o || o2 >= end || (o2 == o && t2 == t)
        });
        if clean {
            slots.push(s);
        }
    }
    Some(slots)
}

/// Dominance frontiers (Cooper–Harvey–Kennedy).
fn frontiers(f: &Func, idom: &[Option<usize>]) -> Vec<Vec<usize>> {
    let preds = f.preds();
    let mut df = vec![Vec::new(); f.blocks.len()];
    for (b, ps) in preds.iter().enumerate() {
        if ps.len() < 2 {
            continue;
        }
        let Some(db) = idom[b].or(if b == 0 { Some(0) } else { None }) else { continue };
        for p in ps {
            let mut r = p.0 as usize;
            if r != 0 && idom[r].is_none() {
                continue; // unreachable predecessor
            }
            while r != db {
                if !df[r].contains(&b) {
                    df[r].push(b);
                }
                match idom[r] {
                    Some(x) if x != r => r = x,
                    _ => break,
                }
            }
        }
    }
    df
}

fn rename(f: &mut Func, slots: &[Slot]) {
    let dom = dominators(f);
    let idom = dom.idom.clone();
    let n = f.blocks.len();
    let reachable: Vec<bool> = (0..n).map(|b| b == 0 || dom.reachable(b)).collect();
    let df = frontiers(f, &idom);
    let offs = private_offsets(f);
    let slot_of = |p: &Value, t: Ty| -> Option<usize> {
        let o = offs.get(p)?;
        slots.iter().position(|s| s.offset == *o && s.ty == t)
    };

    // φ placement: iterated dominance frontier of each slot's store blocks.
    let mut phis: HashMap<(usize, usize), Value> = HashMap::new(); // (block, slot) → φ
    for (k, s) in slots.iter().enumerate() {
        let mut work: Vec<usize> = (0..n)
            .filter(|&b| {
                reachable[b]
                    && f.blocks[b]
                        .insts
                        .iter()
                        .any(|i| matches!(i.op, Op::Store { ptr, value } if slot_of(&ptr, f.ty(value)) == Some(k)))
            })
            .collect();
        let mut has = vec![false; n];
        while let Some(b) = work.pop() {
            for &d in &df[b] {
                if !has[d] {
                    has[d] = true;
                    let v = f.new_value(s.ty);
                    phis.insert((d, k), v);
                    work.push(d);
                }
            }
        }
    }
    // In a fixed order (the map's differs from process to process; the code must not).
    let mut placed: Vec<((usize, usize), Value)> = phis.iter().map(|(&k, &v)| (k, v)).collect();
    placed.sort_unstable_by_key(|&(k, _)| k);
    for ((b, _), v) in placed {
        f.blocks[b].insts.insert(0, Inst::new(Some(v), Op::Phi(Vec::new())));
    }
    // Undefined initial values, in the entry block.
    let undef: Vec<Value> = slots
        .iter()
        .map(|s| {
            let v = f.new_value(s.ty);
            f.blocks[0].insts.insert(0, Inst::new(Some(v), Op::Undef));
            v
        })
        .collect();

    // Renaming along the dominator tree.
    let mut children = vec![Vec::new(); n];
    for b in 1..n {
        if let Some(p) = idom[b] {
            if p != b && reachable[b] {
                children[p].push(b);
            }
        }
    }
    let mut replace: HashMap<Value, Value> = HashMap::new();
    let mut incoming: HashMap<Value, Vec<(BlockId, Value)>> = HashMap::new();
    let mut stack = vec![(0usize, undef.clone())];
    while let Some((b, mut cur)) = stack.pop() {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut kept = Vec::with_capacity(insts.len());
        for i in insts {
            match i.op {
                Op::Phi(_) if i.result.is_some_and(|r| phis.iter().any(|(&(pb, _), &v)| pb == b && v == r)) => {
                    let r = i.result.expect("φ result");
                    let k = phis.iter().find(|(&(pb, _), &v)| pb == b && v == r).map(|(&(_, k), _)| k).expect("slot");
                    cur[k] = r;
                    kept.push(i);
                }
                Op::Load(p) if i.result.is_some_and(|r| slot_of(&p, f.ty(r)).is_some()) => {
                    let r = i.result.expect("load result");
                    let k = slot_of(&p, f.ty(r)).expect("slot");
                    replace.insert(r, cur[k]);
                }
                Op::Store { ptr, value } if slot_of(&ptr, f.ty(value)).is_some() => {
                    let k = slot_of(&ptr, f.ty(value)).expect("slot");
                    cur[k] = *replace.get(&value).unwrap_or(&value);
                }
                _ => kept.push(i),
            }
        }
        f.blocks[b].insts = kept;
        for s in f.blocks[b].term.successors() {
            for (k, &v) in cur.iter().enumerate() {
                if let Some(&phi) = phis.get(&(s.0 as usize, k)) {
                    let list = incoming.entry(phi).or_default();
                    if !list.iter().any(|(p, _)| p.0 as usize == b) {
                        list.push((BlockId(b as u32), v));
                    }
                }
            }
        }
        for &c in &children[b] {
            stack.push((c, cur.clone()));
        }
    }
    // Fill the φs (unreachable predecessors get the undefined value).
    let preds = f.preds();
    for (&(b, k), &phi) in &phis {
        let mut list = incoming.remove(&phi).unwrap_or_default();
        for p in &preds[b] {
            if !list.iter().any(|(q, _)| q == p) {
                list.push((*p, undef[k]));
            }
        }
        if let Some(i) = f.blocks[b].insts.iter_mut().find(|i| i.result == Some(phi)) {
            i.op = Op::Phi(list);
        }
    }
    replace_uses(f, &replace);
}
