//! Copy coalescing before register allocation: the two registers of a copy
//! (`addi d, s, 0` / `vadd.vx d, s, zero`, made by φ elimination and instruction selection) become
//! one register when they never hold different values at the same time, and the copy disappears.
//! Both are virtual, or — for vector copies — one is a physical *word register* that carries a
//! routine's argument or result words (`call::is_word_register`): then the virtual register
//! becomes that physical one, so a value computed for a call is computed straight into its
//! argument word, a call's result is used where it arrives, and a routine uses its arguments
//! where they came (no function allocates the word registers, so nothing else is placed there).
//!
//! Interference is exact with respect to the allocator's own liveness
//! ([`super::regalloc::liveness`], which includes the SIMT edges of divergent branches, and for
//! the word registers what calls and returns read and write of them implicitly:
//! `call::implicit_words` — a call may write every word register): two registers interfere
//! when one is written while the other is live afterwards, except that a copy's destination
//! does not interfere with its source at that copy (they hold the same value). Coalescing is
//! aggressive (Chaitin): pairs are merged in program order while their merged interference sets
//! stay disjoint, and a class holds at most one physical register, which names it. The
//! linear-scan allocator gives every register one interval from its first to its last mention,
//! so a loop-carried φ and the value that feeds it would otherwise always overlap and cost a copy
//! per iteration.

use super::mir::*;
use super::regalloc::{liveness, VIndex};
use crate::isa::Op as I;
use std::collections::{HashMap, HashSet};

/// Functions above this many instructions are left alone (interference sets grow with the
/// product of instructions and live values).
const MAX_INSTS: usize = 200_000;

/// `(dst, src)` if `i` is a copy between two registers of one class that may be merged: two
/// virtual ones, or a virtual vector register and a word register outside `pool` (the
/// function's allocatable vector registers).
fn copy_of(i: &MInst, pool: &[u8]) -> Option<(Reg, Reg)> {
    let (d, s) = copy_regs(i)?;
    let word = |r: Reg| matches!(r, Reg::PV(p) if super::call::is_word_register(p) && !pool.contains(&p));
    let ok = match (d.is_virtual(), s.is_virtual()) {
        (true, true) => true,
        (true, false) => d.is_vector() && word(s),
        (false, true) => s.is_vector() && word(d),
        (false, false) => false,
    };
    ok.then_some((d, s))
}

/// `(dst, src)` of a plain copy (`addi d, s, 0` between scalar registers, `vadd.vx d, s, zero`
/// between vector registers).
fn copy_regs(i: &MInst) -> Option<(Reg, Reg)> {
    match i.op {
        MOp::I(I::Addi) if i.imm == 0 => {
            let (d, s) = (i.rd?, i.rs1?);
            (!d.is_vector() && !s.is_vector()).then_some((d, s))
        }
        MOp::I(I::VaddVx) if i.rs1 == Some(Reg::X(0)) => {
            let (d, s) = (i.rd?, i.rs2?);
            (d.is_vector() && s.is_vector()).then_some((d, s))
        }
        _ => None,
    }
}

struct Classes {
    parent: HashMap<Reg, Reg>,
}

impl Classes {
    fn find(&mut self, r: Reg) -> Reg {
        let mut x = r;
        while let Some(&p) = self.parent.get(&x) {
            x = p;
        }
        // Path compression.
        let mut y = r;
        while let Some(&p) = self.parent.get(&y) {
            if p == x {
                break;
            }
            self.parent.insert(y, x);
            y = p;
        }
        x
    }
}

/// Merges non-interfering copy pairs and deletes the copies that became `r := r`. Returns the
/// number of copies removed.
pub fn coalesce(m: &mut MFunc) -> usize {
    let total: usize = m.blocks.iter().map(|b| b.insts.len()).sum();
    if total > MAX_INSTS {
        return 0;
    }
    let pool = super::regalloc::vector_pool(m);
    let candidates: HashSet<Reg> =
        m.blocks.iter().flat_map(|b| &b.insts).filter_map(|i| copy_of(i, &pool)).flat_map(|(d, s)| [d, s]).collect();
    if candidates.is_empty() {
        return 0;
    }
    let ix = VIndex::with_words(m);
    let (_, live_out) = liveness(m, &ix);
    let mut adj: HashMap<Reg, HashSet<Reg>> = HashMap::new();
    for (b, blk) in m.blocks.iter().enumerate() {
        let mut live: HashSet<Reg> = live_out[b].0.iter().map(|&i| ix.reg(i as usize)).collect();
        for inst in blk.insts.iter().rev() {
            let copy = copy_regs(inst);
            let (uses, defs) = ix.effects(inst);
            for &d in defs.iter().filter(|d| candidates.contains(d)) {
                for &x in live.iter().filter(|x| **x != d && candidates.contains(x)) {
                    if copy.is_some_and(|(_, s)| s == x) || x.is_vector() != d.is_vector() {
                        continue;
                    }
                    adj.entry(d).or_default().insert(x);
                    adj.entry(x).or_default().insert(d);
                }
            }
            for d in &defs {
                live.remove(d);
            }
            live.extend(uses);
        }
    }
    let mut classes = Classes { parent: HashMap::new() };
    let copies: Vec<(Reg, Reg)> = m.blocks.iter().flat_map(|b| &b.insts).filter_map(|i| copy_of(i, &pool)).collect();
    for (d, s) in copies {
        let (mut a, mut b) = (classes.find(d), classes.find(s));
        if a == b || adj.get(&a).is_some_and(|n| n.contains(&b)) || !a.is_virtual() && !b.is_virtual() {
            continue;
        }
        // Merge b into a; a physical register names its class.
        if !b.is_virtual() {
            std::mem::swap(&mut a, &mut b);
        }
        classes.parent.insert(b, a);
        for n in adj.remove(&b).unwrap_or_default() {
            if let Some(set) = adj.get_mut(&n) {
                set.remove(&b);
                set.insert(a);
            }
            adj.entry(a).or_default().insert(n);
        }
    }
    if classes.parent.is_empty() {
        return 0;
    }
    let mut removed = 0;
    for blk in &mut m.blocks {
        for inst in &mut blk.insts {
            for r in inst.regs_mut().into_iter().flatten() {
                if r.is_virtual() {
                    *r = classes.find(*r);
                }
            }
        }
        let before = blk.insts.len();
        // Only copies this pass made identities (others, e.g. a `nop`, stay as written).
        let merged = |r: Reg| r.is_virtual() || matches!(r, Reg::PV(p) if super::call::is_word_register(p));
        blk.insts.retain(|i| copy_regs(i).is_none_or(|(d, s)| d != s || !merged(d)));
        removed += before - blk.insts.len();
    }
    removed
}
