//! Uniformity (divergence) analysis for SIMT code generation.
//!
//! A value is *uniform* when every active lane of a warp holds the same value, so it can live in a
//! scalar register; otherwise it is *divergent* (a vector register). Sources of divergence: the
//! lane id, atomics, private-memory loads, loads through divergent pointers, the results of
//! subroutine calls (unless every argument is uniform and the callee has a uniform variant,
//! [`Assumptions`]) and the parameters of a subroutine's vector variant. Divergence
//! propagates through data dependences, through φs at the join points of divergent branches
//! (sync dependence: a block entered from both sides of a divergent branch before its immediate
//! post-dominator — unless the φ receives the same uniform value, computed before the branch, on
//! every path from it, see [`same_on_both_sides`]), to the loop-carried values of a loop containing a divergent branch that only
//! reconverges outside it (lanes then run different iterations), and to values that leave a loop
//! with a divergent exit (lanes leave in different iterations; constants excepted: they are the
//! same in every iteration). The analysis iterates to a fixed
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
use std::rc::Rc;

/// A divergent branch and the blocks reachable from either of its successors before its
/// reconvergence point.
struct Split {
    branch: usize,
    sides: Rc<Vec<bool>>,
}

/// Whether the φ with incoming `ins` receives one and the same uniform value on every path from
/// the divergent branch of `split`. Incoming values that are themselves φs inside the sides are
/// followed along the edges that come from the sides (paths entering from elsewhere do not start
/// at this branch). The common value must be computed before the branch (its block dominates
/// the branch), so every lane holds the same one. Then the lanes that split there agree here.
fn same_on_both_sides(
    f: &Func,
    ins: &[(BlockId, Value)],
    split: &Split,
    div: &[bool],
    def_block: &[usize],
    dom: &cfg::DomTree,
) -> bool {
    let inside = |b: usize| split.sides[b];
    let from_paths = |q: BlockId| inside(q.0 as usize) || q.0 as usize == split.branch;
    let phi_inside = |v: Value| -> Option<&[(BlockId, Value)]> {
        let b = *def_block.get(v.0 as usize).filter(|&&b| b != usize::MAX && inside(b))?;
        f.blocks[b].insts.iter().find(|i| i.result == Some(v)).and_then(|i| match &i.op {
            Op::Phi(ins) => Some(ins.as_slice()),
            _ => None,
        })
    };
    let mut found: Option<Value> = None;
    let mut stack: Vec<Value> = ins.iter().filter(|(q, _)| from_paths(*q)).map(|(_, v)| *v).collect();
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        if let Some(inner) = phi_inside(v) {
            stack.extend(inner.iter().filter(|(q, _)| from_paths(*q)).map(|(_, w)| *w));
            continue;
        }
        match found {
            None => found = Some(v),
            Some(w) if w == v => {}
            Some(_) => return false,
        }
    }
    let Some(v) = found else { return false };
    let db = def_block[v.0 as usize];
    !div[v.0 as usize] && (db == usize::MAX || dom.dominates(db, split.branch))
}

pub struct Uniformity {
    pub divergent: Vec<bool>,
    /// (branch block, reconvergence block) of every divergent branch.
    pub branches: Vec<(BlockId, BlockId)>,
    /// Blocks that start with a `join`.
    pub joins: Vec<bool>,
    /// A barrier lies between a divergent branch and its reconvergence point.
    pub barrier_in_divergent_flow: bool,
    /// The results of the [`Op::Call`]s that call a subroutine's uniform variant: every
    /// argument is uniform and the callee has one ([`Assumptions::uniform_callee`]). (Their
    /// results are uniform unless a loop's divergent exit makes a lane-wise copy of them.)
    pub uniform_calls: std::collections::HashSet<Value>,
}

/// What the analysis may assume about the function's surroundings.
pub struct Assumptions<'a> {
    /// The function's parameters ([`Op::Param`]) are uniform: the uniform variant of a
    /// subroutine (`target::call`), called only with uniform arguments.
    pub params_uniform: bool,
    /// Whether a subroutine (by name) has a uniform variant, whose results are uniform when its
    /// arguments are.
    pub uniform_callee: &'a dyn Fn(&str) -> bool,
}

impl Default for Assumptions<'_> {
    /// Parameters divergent, no uniform variants (every call runs on vector registers).
    fn default() -> Self {
        Assumptions { params_uniform: false, uniform_callee: &|_| false }
    }
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

/// [`analyze_with`] under the default [`Assumptions`].
pub fn analyze(f: &Func) -> Result<Uniformity, CompileError> {
    analyze_with(f, &Assumptions::default())
}

pub fn analyze_with(f: &Func, assume: &Assumptions) -> Result<Uniformity, CompileError> {
    let callee_uniform = |sub: u32| f.callees.get(sub as usize).is_some_and(|name| (assume.uniform_callee)(name));
    let n = f.blocks.len();
    let pdom = cfg::post_dominators(f);
    let dom = cfg::dominators(f);
    let loops = cfg::loops(f, &dom);
    let exit_block = (0..n).find(|&b| f.blocks[b].term == Term::Ret).map(|b| BlockId(b as u32)).unwrap_or(BlockId(0));
    let preds = f.preds();
    let mut def_block = vec![usize::MAX; f.types.len()];
    // Constants hold the same bits in every lane whenever they are computed, so a divergent
    // loop exit never makes them differ per lane (and instruction selection materialises them
    // at their uses: they have no register of their own to copy lane-wise).
    let mut constant = vec![false; f.types.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            if let Some(r) = i.result {
                def_block[r.0 as usize] = bi;
                constant[r.0 as usize] = matches!(i.op, Op::Const(_) | Op::Undef);
            }
        }
    }
    let mut div = vec![false; f.types.len()];
    // Loop headers whose φs differ per lane because lanes run different iterations.
    let mut temporal = vec![false; n];
    // Per block: the divergent branches whose two sides meet there.
    let mut sync: Vec<Vec<Split>> = (0..n).map(|_| Vec::new()).collect();
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
                    Op::LaneId | Op::Atomic { .. } | Op::CmpXchg { .. } | Op::CmpXchg64 { .. } | Op::CmpXchg64Hi(_) => {
                        true
                    }
                    // Subroutines run on vector registers (arguments and results per lane),
                    // unless uniform arguments go to the callee's uniform variant.
                    Op::Call { sub, .. } if !callee_uniform(*sub) => true,
                    Op::Param(_) => !assume.params_uniform,
                    Op::Load(p) => f.ty(*p) == Ty::Ptr(Space::Private) || div[p.0 as usize],
                    Op::Phi(ins) => {
                        temporal[b.0 as usize]
                            || i.op.operands().iter().any(|v| div[v.0 as usize])
                            || sync[b.0 as usize]
                                .iter()
                                .any(|split| !same_on_both_sides(f, ins, split, &div, &def_block, &dom))
                    }
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
                if l.body[bi] && !l.body[p.0 as usize] && !temporal[l.header.0 as usize] {
                    temporal[l.header.0 as usize] = true;
                    changed = true;
                }
            }
            let r1 = region(f, then_, p);
            let r2 = region(f, else_, p);
            let sides = Rc::new(r1.iter().zip(&r2).map(|(a, b)| *a || *b).collect::<Vec<bool>>());
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
                if joined && !sync[x].iter().any(|e| e.branch == bi) {
                    sync[x].push(Split { branch: bi, sides: sides.clone() });
                    changed = true;
                }
            }
        }
        // Values leaving loops with a divergent exit. An exit whose branch reconverges inside the
        // loop (its lanes come back before the others go on) keeps the lanes in step, so it does
        // not count: e.g. a loop rotated so that two back edges meet at the header.
        for l in &loops {
            let div_exit = (0..n).any(|b| {
                l.body[b]
                    && matches!(f.blocks[b].term, Term::CondBr { cond, then_, else_ }
                        if div[cond.0 as usize] && (!l.body[then_.0 as usize] || !l.body[else_.0 as usize]))
                    && pdom.ipdom(BlockId(b as u32)).is_none_or(|p| !l.body[p.0 as usize])
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
                    if db != usize::MAX && l.body[db] && !div[v.0 as usize] && !constant[v.0 as usize] {
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
    let uniform_calls = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match &i.op {
            Op::Call { sub, args } if callee_uniform(*sub) && args.iter().all(|a| !div[a.0 as usize]) => i.result,
            _ => None,
        })
        .collect();
    Ok(Uniformity { divergent: div, branches, joins, barrier_in_divergent_flow, uniform_calls })
}
