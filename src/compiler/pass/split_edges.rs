//! Splits critical edges (from a block with several successors to a block with several
//! predecessors), so that φ copies can be placed on every edge. A conditional branch whose two
//! targets are the same block becomes an unconditional one first.

use super::super::ir::*;

pub fn split_critical_edges(f: &mut Func) {
    let preds = f.preds();
    for a in 0..f.blocks.len() {
        let Term::CondBr { cond, then_, else_ } = f.blocks[a].term.clone() else { continue };
        if then_ == else_ {
            // Both edges lead to the same block (and carry the same φ values): one edge.
            f.blocks[a].term = Term::Br(then_);
            continue;
        }
        let mut new_then = then_;
        let mut new_else = else_;
        for (target, slot) in [(then_, &mut new_then), (else_, &mut new_else)] {
            if preds[target.0 as usize].len() < 2 {
                continue;
            }
            let c = f.new_block();
            f.block_mut(c).term = Term::Br(target);
            for i in &mut f.block_mut(target).insts {
                if let Op::Phi(ins) = &mut i.op {
                    for (p, _) in ins.iter_mut() {
                        if p.0 as usize == a {
                            *p = c;
                        }
                    }
                }
            }
            *slot = c;
        }
        f.blocks[a].term = Term::CondBr { cond, then_: new_then, else_: new_else };
    }
}
