//! Uniformity (divergence) analysis for SIMT code generation.
//!
//! A value is *uniform* when every active lane of a warp holds the same value, so it can live in a
//! scalar register; otherwise it is *divergent* (a vector register). Sources of divergence: the
//! lane id, atomics, private-memory loads and loads through divergent pointers. Divergence
//! propagates through data dependences, through φs at the join points of divergent branches
//! (sync dependence: a block entered from both sides of a divergent branch before its immediate
//! post-dominator), to the loop-carried values of a loop containing a divergent branch that only
//! reconverges outside it (lanes then run different iterations), and to values that leave a loop
//! with a divergent exit (lanes leave in different iterations). The analysis iterates to a fixed
//! point.
//!
//! It also reports each divergent branch with its reconvergence block (immediate post-dominator,
//! or the exit block), and whether a barrier lies between a divergent branch and its
//! reconvergence point. Such a barrier is accepted: the analysis is conservative (e.g. a φ that
//! receives the same value along both sides of a branch through a loop counts as divergent), and
//! OpenCL C requires every work-item of a work-group to reach each barrier, so in a valid program
//! the lanes do not actually diverge there and the generated code runs the barrier with the whole
//! warp. The compiler warns about it in the build log; should the lanes really diverge (an
//! invalid program), the barrier counts the warp once, which cannot hang the device.

use super::super::ir::*;
use super::super::CompileError;
use super::cfg;

pub struct Uniformity {
    pub divergent: Vec<bool>,
    /// (branch block, reconvergence block) of every divergent branch.
    pub branches: Vec<(BlockId, BlockId)>,
    /// Blocks that start with a `join`.
    pub joins: Vec<bool>,
    /// A barrier lies between a divergent branch and its reconvergence point.
    pub barrier_in_divergent_flow: bool,
}

/// Blocks reachable from `start` without entering `stop`.
fn region(f: &Func, start: BlockId, stop: BlockId) -> Vec<bool> {
    let mut seen = vec![false; f.blocks.len()];
    if start == stop {
        return seen;
    }
    let mut stack = vec![start];
    while let Some(b) = stack.pop() {
        if seen[b.0 as usize] || b == stop {
            continue;
        }
        seen[b.0 as usize] = true;
        stack.extend(f.block(b).term.successors());
    }
    seen
}

pub fn analyze(f: &Func) -> Result<Uniformity, CompileError> {
    let n = f.blocks.len();
    let pdom = cfg::post_dominators(f);
    let dom = cfg::dominators(f);
    let loops = cfg::loops(f, &dom);
    let exit_block = (0..n).find(|&b| f.blocks[b].term == Term::Ret).map(|b| BlockId(b as u32)).unwrap_or(BlockId(0));
    let preds = f.preds();
    let mut def_block = vec![usize::MAX; f.types.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            if let Some(r) = i.result {
                def_block[r.0 as usize] = bi;
            }
        }
    }
    let mut div = vec![false; f.types.len()];
    let mut join_div = vec![false; n];
    let order = f.rpo();
    loop {
        let mut changed = false;
        // Data dependences (and φs at divergent joins).
        for &b in &order {
            for i in &f.block(b).insts {
                let Some(r) = i.result else { continue };
                if div[r.0 as usize] {
                    continue;
                }
                let d = match &i.op {
                    Op::LaneId | Op::Atomic { .. } | Op::CmpXchg { .. } => true,
                    Op::Load(p) => f.ty(*p) == Ty::Ptr(Space::Private) || div[p.0 as usize],
                    Op::Phi(_) => join_div[b.0 as usize] || i.op.operands().iter().any(|v| div[v.0 as usize]),
                    op => op.operands().iter().any(|v| div[v.0 as usize]),
                };
                if d {
                    div[r.0 as usize] = true;
                    changed = true;
                }
            }
        }
        // Divergent branches and their join blocks.
        for (bi, blk) in f.blocks.iter().enumerate() {
            let Term::CondBr { cond, then_, else_ } = blk.term else { continue };
            if !div[cond.0 as usize] {
                continue;
            }
            let p = pdom.ipdom(BlockId(bi as u32)).unwrap_or(exit_block);
            // Temporal divergence: when the branch reconverges only outside a loop that contains
            // it, lanes can be in different iterations of that loop, so its loop-carried values
            // (the header's φs) differ per lane.
            for l in &loops {
                if l.body[bi] && !l.body[p.0 as usize] && !join_div[l.header.0 as usize] {
                    join_div[l.header.0 as usize] = true;
                    changed = true;
                }
            }
            let r1 = region(f, then_, p);
            let r2 = region(f, else_, p);
            for x in 0..n {
                let from = |side: &Vec<bool>, s: BlockId| {
                    preds[x]
                        .iter()
                        .filter(|q| side[q.0 as usize] || (q.0 as usize == bi && s.0 as usize == x))
                        .copied()
                        .collect::<Vec<_>>()
                };
                let (a, c) = (from(&r1, then_), from(&r2, else_));
                let joined = a.iter().any(|p1| c.iter().any(|p2| p1 != p2))
                    || (x == p.0 as usize && (!a.is_empty() || !c.is_empty()));
                if joined && !join_div[x] {
                    join_div[x] = true;
                    changed = true;
                }
            }
        }
        // Values leaving loops with a divergent exit.
        for l in &loops {
            let div_exit = (0..n).any(|b| {
                l.body[b]
                    && matches!(f.blocks[b].term, Term::CondBr { cond, then_, else_ }
                        if div[cond.0 as usize] && (!l.body[then_.0 as usize] || !l.body[else_.0 as usize]))
            });
            if !div_exit {
                continue;
            }
            for (bi, blk) in f.blocks.iter().enumerate() {
                if l.body[bi] {
                    continue;
                }
                let mut uses: Vec<Value> = blk.insts.iter().flat_map(|i| i.op.operands()).collect();
                if let Term::CondBr { cond, .. } = blk.term {
                    uses.push(cond);
                }
                for v in uses {
                    let db = def_block[v.0 as usize];
                    if db != usize::MAX && l.body[db] && !div[v.0 as usize] {
                        div[v.0 as usize] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut branches = Vec::new();
    let mut joins = vec![false; n];
    let mut barrier_in_divergent_flow = false;
    for (bi, blk) in f.blocks.iter().enumerate() {
        let Term::CondBr { cond, then_, else_ } = blk.term else { continue };
        if !div[cond.0 as usize] {
            continue;
        }
        let p = pdom.ipdom(BlockId(bi as u32)).unwrap_or(exit_block);
        branches.push((BlockId(bi as u32), p));
        joins[p.0 as usize] = true;
        if !barrier_in_divergent_flow {
            barrier_in_divergent_flow = [region(f, then_, p), region(f, else_, p)].iter().any(|side| {
                side.iter()
                    .enumerate()
                    .any(|(x, inside)| *inside && f.blocks[x].insts.iter().any(|i| matches!(i.op, Op::Barrier { .. })))
            });
        }
    }
    Ok(Uniformity { divergent: div, branches, joins, barrier_in_divergent_flow })
}
