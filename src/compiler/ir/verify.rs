//! IR invariants: every value defined once, operands defined, φ incoming blocks are exactly the
//! predecessors, terminators target existing blocks.

use super::*;

/// A broken invariant (a compiler bug, reported as an internal error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError(pub String);

pub fn verify(f: &Func) -> Result<(), VerifyError> {
    let n = f.types.len();
    let mut defined = vec![false; n];
    let nb = f.blocks.len() as u32;
    for b in &f.blocks {
        for i in &b.insts {
            if let Some(r) = i.result {
                if r.0 as usize >= n || defined[r.0 as usize] {
                    return Err(VerifyError(format!("value %{} defined twice or unknown", r.0)));
                }
                defined[r.0 as usize] = true;
            }
        }
        for s in b.term.successors() {
            if s.0 >= nb {
                return Err(VerifyError(format!("branch to unknown block b{}", s.0)));
            }
        }
    }
    let preds = f.preds();
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut uses: Vec<Value> = b.insts.iter().flat_map(|i| i.op.operands()).collect();
        if let Term::CondBr { cond, .. } = b.term {
            uses.push(cond);
        }
        for v in uses {
            if v.0 as usize >= n || !defined[v.0 as usize] {
                return Err(VerifyError(format!("b{bi}: use of undefined value %{}", v.0)));
            }
        }
        for i in &b.insts {
            if let Op::Phi(ins) = &i.op {
                let mut from: Vec<BlockId> = ins.iter().map(|(b, _)| *b).collect();
                from.sort();
                let mut want = preds[bi].clone();
                want.sort();
                if from != want {
                    return Err(VerifyError(format!("b{bi}: phi incoming {from:?} != predecessors {want:?}")));
                }
            }
        }
    }
    Ok(())
}
