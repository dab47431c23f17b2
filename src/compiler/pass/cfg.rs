//! CFG analyses: reverse post-order, dominators, post-dominators (with a virtual exit), natural
//! loops. Cooper–Harvey–Kennedy iterative dominators.

use super::super::ir::{BlockId, Func, Term};

/// Dominator (or post-dominator) tree as immediate-dominator links; `None` for unreachable nodes
/// and for the root.
pub struct DomTree {
    pub idom: Vec<Option<usize>>,
    /// Reverse post-order index of each node (usize::MAX if unreachable).
    order: Vec<usize>,
}

fn compute(n: usize, root: usize, succ: &dyn Fn(usize) -> Vec<usize>, pred: &dyn Fn(usize) -> Vec<usize>) -> DomTree {
    // Post-order from the root.
    let mut seen = vec![false; n];
    let mut post = Vec::new();
    let mut stack = vec![(root, 0usize)];
    seen[root] = true;
    while let Some((b, i)) = stack.pop() {
        let s = succ(b);
        if i < s.len() {
            stack.push((b, i + 1));
            if !seen[s[i]] {
                seen[s[i]] = true;
                stack.push((s[i], 0));
            }
        } else {
            post.push(b);
        }
    }
    let mut order = vec![usize::MAX; n];
    let rpo: Vec<usize> = post.iter().rev().copied().collect();
    for (i, b) in rpo.iter().enumerate() {
        order[*b] = i;
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[root] = Some(root);
    let intersect = |idom: &Vec<Option<usize>>, mut a: usize, mut b: usize| {
        while a != b {
            while order[a] > order[b] {
                a = idom[a].expect("processed");
            }
            while order[b] > order[a] {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<usize> = None;
            for p in pred(b) {
                if order[p] == usize::MAX || idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(x) => intersect(&idom, p, x),
                });
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[root] = None;
    DomTree { idom, order }
}

impl DomTree {
    /// Does `a` dominate `b`?
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x] {
                Some(p) if p != x => x = p,
                _ => return false,
            }
        }
    }
    pub fn reachable(&self, b: usize) -> bool {
        self.order[b] != usize::MAX
    }
}

/// Dominators of the function's CFG (root = entry).
pub fn dominators(f: &Func) -> DomTree {
    let preds = f.preds();
    let n = f.blocks.len();
    compute(n, 0, &|b| f.blocks[b].term.successors().iter().map(|s| s.0 as usize).collect(), &|b| {
        preds[b].iter().map(|p| p.0 as usize).collect()
    })
}

/// Post-dominators; node `blocks.len()` is the virtual exit (successor of every `ret` /
/// `unreachable` block). Blocks that cannot reach an exit get the virtual exit as ipdom.
pub struct PostDom {
    pub tree: DomTree,
    pub exit: usize,
}

impl PostDom {
    /// Immediate post-dominator of `b` (None = the virtual exit).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        match self.tree.idom[b.0 as usize] {
            Some(x) if x != self.exit => Some(BlockId(x as u32)),
            _ => None,
        }
    }
}

pub fn post_dominators(f: &Func) -> PostDom {
    let n = f.blocks.len();
    let exit = n;
    let preds = f.preds();
    let exits: Vec<usize> = (0..n).filter(|&b| matches!(f.blocks[b].term, Term::Ret | Term::Unreachable)).collect();
    // Reverse graph: successors = CFG predecessors; the exit's successors are the exit blocks.
    let rsucc = |b: usize| -> Vec<usize> {
        if b == exit {
            exits.clone()
        } else {
            preds[b].iter().map(|p| p.0 as usize).collect()
        }
    };
    let rpred = |b: usize| -> Vec<usize> {
        if b == exit {
            return vec![];
        }
        let mut v: Vec<usize> = f.blocks[b].term.successors().iter().map(|s| s.0 as usize).collect();
        if exits.contains(&b) {
            v.push(exit);
        }
        v
    };
    PostDom { tree: compute(n + 1, exit, &rsucc, &rpred), exit }
}

/// A natural loop: header and body (header included).
#[derive(Debug, Clone)]
pub struct Loop {
    pub header: BlockId,
    pub body: Vec<bool>,
}

/// Natural loops (one per header; bodies of several back edges to one header are merged).
pub fn loops(f: &Func, dom: &DomTree) -> Vec<Loop> {
    let n = f.blocks.len();
    let preds = f.preds();
    let mut out: Vec<Loop> = Vec::new();
    for a in 0..n {
        if !dom.reachable(a) {
            continue;
        }
        for h in f.blocks[a].term.successors() {
            let h = h.0 as usize;
            if !dom.dominates(h, a) {
                continue;
            }
            let idx = match out.iter().position(|l| l.header.0 as usize == h) {
                Some(i) => i,
                None => {
                    let mut body = vec![false; n];
                    body[h] = true;
                    out.push(Loop { header: BlockId(h as u32), body });
                    out.len() - 1
                }
            };
            let mut stack = vec![a];
            while let Some(x) = stack.pop() {
                if out[idx].body[x] {
                    continue;
                }
                out[idx].body[x] = true;
                for p in &preds[x] {
                    stack.push(p.0 as usize);
                }
            }
        }
    }
    out
}
