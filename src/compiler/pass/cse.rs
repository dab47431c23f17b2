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

/// The value-numbering key of a pure instruction (operands already renamed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Const(u64, BlockId),
    ArgWord(u32),
    Bin(BinOp, Value, Value),
    Un(UnOp, Value),
    Cmp(CmpOp, Value, Value),
    Select(Value, Value, Value),
    Fma(Value, Value, Value),
    Conv(ConvOp, Value),
    Csr(u16),
    Meta(u32),
    LaneId,
    LocalAddr(u32),
    ConstAddr(u32),
    PrivateAddr(u32),
    Call(u32, Vec<Value>),
    CallRes(Value, u32),
}

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

fn key(op: &Op, block: BlockId) -> Option<Key> {
    Some(match op {
        Op::Const(c) => Key::Const(*c, block),
        Op::ArgWord { offset } => Key::ArgWord(*offset),
        Op::Bin(o, a, b) => {
            let (a, b) = if commutative(*o) && b < a { (*b, *a) } else { (*a, *b) };
            Key::Bin(*o, a, b)
        }
        Op::Un(o, a) => Key::Un(*o, *a),
        Op::Cmp(o, a, b) => Key::Cmp(*o, *a, *b),
        Op::Select(c, a, b) => Key::Select(*c, *a, *b),
        Op::Fma(a, b, c) => Key::Fma(*a, *b, *c),
        Op::Conv(o, a) => Key::Conv(*o, *a),
        Op::Csr(c) if read_only_csr(*c) => Key::Csr(*c),
        Op::MetaWord { offset } => Key::Meta(*offset),
        Op::LaneId => Key::LaneId,
        Op::LocalAddr { offset } => Key::LocalAddr(*offset),
        Op::ConstAddr { offset } => Key::ConstAddr(*offset),
        Op::PrivateAddr { offset } => Key::PrivateAddr(*offset),
        Op::Call { sub, args } => Key::Call(*sub, args.clone()),
        Op::CallRes(c, k) => Key::CallRes(*c, *k),
        _ => return None,
    })
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
