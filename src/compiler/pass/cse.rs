//! Common-subexpression elimination over the dominator tree (a scoped value numbering): a pure
//! instruction whose operation and (renamed) operands equal those of an instruction in a
//! dominating position is replaced by that instruction's value.
//!
//! Pure here: arithmetic, comparisons, selects, conversions, reads of the read-only launch state
//! (argument words, metadata words, the work-group CSRs, the lane id), addresses of `__local`,
//! constant and private data, and calls of the runtime library (pure functions of their
//! arguments) with their extra return words. Memory loads, atomics, φs and anything with a side
//! effect are never merged. Constants are merged only within a block: a constant is one cheap
//! instruction, and keeping it next to its uses keeps registers free.
//!
//! SIMT: a value computed in a dominating block was computed for every lane that reaches the
//! dominated use (the register allocator already keeps such values live across divergent
//! regions), so merging does not change what any lane observes.

use super::super::ir::*;
use super::cfg::dominators;
use crate::isa::regs::csr;
use std::collections::HashMap;

/// CSRs that stay constant while a kernel runs.
fn read_only_csr(c: u16) -> bool {
    matches!(
        c,
        csr::TID
            | csr::NUMW
            | csr::NUMT
            | csr::KNL
            | csr::WGID
            | csr::WID
            | csr::LDS
            | csr::PDS
            | csr::GIDX
            | csr::GIDY
            | csr::GIDZ
    )
}

fn commutative(o: BinOp) -> bool {
    matches!(
        o,
        BinOp::Add
            | BinOp::Mul
            | BinOp::MulHiS
            | BinOp::MulHiU
            | BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::MinS
            | BinOp::MinU
            | BinOp::MaxS
            | BinOp::MaxU
    )
}

/// A value-numbering key: the (normalised) operation and, for constants, their block.
type Key = (Op, Option<BlockId>);

/// The value-numbering key of a pure instruction (operands already renamed): the operation,
/// with the operands of commutative integer operations in a fixed order, and for constants the
/// block (they are merged only within one). `None` for anything that is not pure.
fn key(op: &Op, block: BlockId) -> Option<Key> {
    let pure = match op {
        Op::Csr(c) => read_only_csr(*c),
        Op::Const(_)
        | Op::ArgWord { .. }
        | Op::Bin(..)
        | Op::Un(..)
        | Op::Cmp(..)
        | Op::Select(..)
        | Op::Fma(..)
        | Op::Conv(..)
        | Op::MetaWord { .. }
        | Op::LaneId
        | Op::LocalAddr { .. }
        | Op::ConstAddr { .. }
        | Op::PrivateAddr { .. }
        | Op::Call { .. }
        | Op::CallRes(..) => true,
        _ => false,
    };
    if !pure {
        return None;
    }
    let op = match op {
        Op::Bin(o, a, b) if commutative(*o) && b < a => Op::Bin(*o, *b, *a),
        other => other.clone(),
    };
    let scope = matches!(op, Op::Const(_)).then_some(block);
    Some((op, scope))
}

/// Runs the elimination; returns whether anything was merged (the merged instructions become
/// dead copies for [`super::simplify::dce`]).
pub fn run(f: &mut Func) -> bool {
    let n = f.blocks.len();
    if n == 0 {
        return false;
    }
    let dom = dominators(f);
    let mut children = vec![Vec::new(); n];
    for b in 1..n {
        if let Some(p) = dom.idom[b] {
            children[p].push(b);
        }
    }
    let mut repl: HashMap<Value, Value> = HashMap::new();
    let mut table: HashMap<(Key, Ty), Value> = HashMap::new();
    // Scoped table: entries added while visiting a block are removed when its subtree is done.
    let mut added: Vec<Vec<(Key, Ty)>> = Vec::new();
    let mut stack: Vec<(usize, bool)> = vec![(0, false)];
    while let Some((b, leaving)) = stack.pop() {
        if leaving {
            for k in added.pop().unwrap_or_default() {
                table.remove(&k);
            }
            continue;
        }
        stack.push((b, true));
        let mut mine = Vec::new();
        for inst in &mut f.blocks[b].insts {
            if !matches!(inst.op, Op::Phi(_)) {
                inst.op.map_operands(|v| *repl.get(&v).unwrap_or(&v));
            }
            let Some(r) = inst.result else { continue };
            let Some(k) = key(&inst.op, BlockId(b as u32)) else { continue };
            let k = (k, f.types[r.0 as usize]);
            match table.get(&k) {
                Some(&same) => {
                    repl.insert(r, same);
                    inst.op = Op::Copy(same);
                }
                None => {
                    table.insert(k.clone(), r);
                    mine.push(k);
                }
            }
        }
        if let Term::CondBr { cond, .. } = &mut f.blocks[b].term {
            *cond = *repl.get(cond).unwrap_or(cond);
        }
        added.push(mine);
        for &c in children[b].iter().rev() {
            stack.push((c, false));
        }
    }
    if repl.is_empty() {
        return false;
    }
    // φ operands (and anything visited before its replacement was known).
    super::simplify::replace_uses(f, &repl);
    true
}
