//! Loads no store of another warp can reach: barrier intervals without stores.
//!
//! A global or local load is shared ([`Sharing::Shared`](super::program::Sharing::Shared)): its value may depend on another
//! warp's store, so it runs in its round-robin place. But warps of a work-group meet at every
//! work-group barrier: all of them finish their k-th interval (the code between their
//! (k−1)-th and k-th barrier, or `endprg`) before any starts the next. If no code any warp can
//! run in the same interval as a load stores to memory, the load reads the same values in any
//! order — it may run ahead of the other warps like a private instruction. That is the tiled
//! kernels' phase after `barrier()` (a matmul's loop over its `__local` tiles): one turn instead
//! of one per load.
//!
//! The analysis ([`private_loads`]) is static and conservative:
//! * The text's control flow: branches and jumps to their targets; a call (`jal`/`jalr` with a
//!   link) also to its return site; a return (`ret`) to every return site; a call through a
//!   register (crt0's `jalr` to the kernel) to every entry point given (the ELF's symbols in
//!   the text); a `join` to its next word and to both paths of every divergent branch whose
//!   reconvergence point it is (`auipc t1, 0; setrpc zero, t1, D` before the branch: the
//!   compiler protocol; a branch without it counts for every `join`). Any other jump through a
//!   register, or `mret`, and nothing is made private.
//! * Regions: from the text's entry and from each work-group `barrier`, what is reachable
//!   without passing another `barrier`; the region graph links a region to the regions of the
//!   barriers it reaches. At dynamic barrier count k each warp is in one region of the set S_k
//!   (S_0 = {entry}, S_k+1 = the successors of S_k): a load is private when every S_k that
//!   holds one of its regions holds no region with a writer. (S_k is eventually periodic; the
//!   sets are followed until one repeats, at most [`MAX_SETS`] of them: beyond, every region
//!   of that kernel counts as beside a writer.)
//! * Writers: every store to global or local memory (scalar, `vsw12.v` and narrower, RVV
//!   stores), atomics and `lr`/`sc`, and CSR writes to `CSR_PRINT`. Private stores
//!   (`vsw.v`…) are not: no other warp reads a lane's private words. Scalar stores count even
//!   when they go to the warp's own stack at run time (compiled code's spills): the analysis
//!   cannot tell.
//! * Loads made private: scalar loads, `vl*12.v` and the RVV loads (`vle32.v`, strided,
//!   indexed), plain and as the variant a prefix selects.
//! * Memory classes ([`crate::abi::mem_class`], our compiler's table; `Unknown` without one):
//!   the writers' classes are collected per interval ([`Writes`]; a `CSR_PRINT` write is of
//!   class `Print`), and [`PrivateLoads::disjoint`] also holds the loads whose class is known
//!   and written by no store beside them, none of which is of unknown class — private only in
//!   a launch whose pointer arguments name different memory objects (the caller picks the
//!   program, [`privatize_interval_loads`]). A text without a barrier is then one interval
//!   (analysed only when it has classes).
//! * Cost: the barriers' regions once per program, then per kernel only what its entry region
//!   reaches and the regions its intervals reach (a program may hold thousands of kernels).
//!
//! Traced runs run one instruction per turn whatever the sharing, so commit logs are unchanged.

use super::program::{prefixed_variants, Decoded, Program};
use crate::abi::mem_class::MemClass;
use crate::isa::{Fmt, Op};
use std::collections::{HashMap, HashSet};

/// Which loads of a text may run as private instructions, per entry (plain, or as any variant
/// a prefix selects).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateLoads {
    /// In every launch: no store runs in their intervals.
    pub always: Vec<bool>,
    /// In a launch whose pointer arguments point into pairwise different memory objects: every
    /// store in their intervals has a known [`MemClass`] different from theirs.
    pub disjoint: Vec<bool>,
}

/// For every entry of `ops` (text at `text_base`, 4 bytes each): whether the load there may
/// run as a private instruction (see the module documentation). `ext`: the program's extended
/// variants; `start`: where every warp starts; `entries`: addresses a call through a register
/// may reach; `classes`: the memory class of each entry's access (`Unknown` when not known).
pub(super) fn private_loads(
    ops: &[Decoded],
    ext: &[Decoded],
    text_base: u32,
    start: u32,
    entries: &[u32],
    classes: &[MemClass],
) -> PrivateLoads {
    private_loads_within(ops, ext, text_base, start, entries, classes, MAX_SETS)
}

/// [`private_loads`] following at most `max_sets` interval sets.
fn private_loads_within(
    ops: &[Decoded],
    ext: &[Decoded],
    text_base: u32,
    start: u32,
    entries: &[u32],
    classes: &[MemClass],
    max_sets: usize,
) -> PrivateLoads {
    let n = ops.len();
    let none = PrivateLoads { always: vec![false; n], disjoint: vec![false; n] };
    let views = views(ops, ext);
    let class = |i: usize| classes.get(i).copied().unwrap_or_default();
    // Without a work-group barrier the whole kernel is one interval, and it stores: only loads
    // of a known class may be private.
    if !views.iter().flatten().any(|d| d.op == Some(Op::Barrier)) && (0..n).all(|i| class(i) == MemClass::Unknown) {
        return none;
    }
    let index = |pc: u32| text_index(text_base, n, pc);
    let pc_of = |i: usize| text_base.wrapping_add(4 * i as u32);
    let entry_idx: Vec<usize> = entries.iter().filter_map(|&a| index(a)).collect();
    // Return sites, reconvergence targets.
    let mut returns = Vec::new();
    let mut join_paths: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut any_join_paths = Vec::new();
    for (i, view) in views.iter().enumerate() {
        for d in view {
            match d.op {
                Some(Op::Jal | Op::Jalr) if d.rd != 0 => returns.push(i + 1),
                Some(Op::Mret) => return none,
                Some(Op::Jalr) if !(d.rd == 0 && d.rs1 == 1 && d.imm == 0) => return none,
                _ => {}
            }
            if d.op.is_some_and(|o| o.desc().fmt == Fmt::VBranch) {
                let paths: Vec<usize> = [index(pc_of(i).wrapping_add(d.imm as u32)), Some(i + 1)]
                    .into_iter()
                    .flatten()
                    .filter(|&k| k < n)
                    .collect();
                match reconvergence(ops, i, text_base) {
                    Some(j) => join_paths.entry(j).or_default().extend(paths),
                    None => any_join_paths.extend(paths),
                }
            }
        }
    }
    let flow = Flow {
        views: &views,
        classes,
        text_base,
        returns: &returns,
        join_paths: &join_paths,
        any_join_paths: &any_join_paths,
        max_sets,
    };
    let Some(first) = index(start) else { return none };
    // The barriers' regions do not depend on the kernel unless one calls through a register
    // (crt0's call, in the entry region): then they are found again for each kernel.
    let mut barriers = flow.regions(first, None);
    // Per kernel a launch may run (a call through a register goes there): whether each entry
    // is reached, and whether it runs in an interval with a writer.
    // (Work per kernel follows the code it reaches, not the text's size: a program may hold
    // thousands of kernels.)
    let (mut reached, mut beside) = (vec![false; n], vec![Writes::default(); n]);
    let mut seen = vec![usize::MAX; n];
    for &e in &entry_idx {
        if let Some(b) = barriers.as_mut() {
            flow.enter_kernel(b, first, e, &mut seen);
        }
        let fresh = match barriers {
            Some(_) => None,
            None => Some(flow.regions(first, Some(e)).expect("a kernel given")),
        };
        let Some(regions) = fresh.as_ref().or(barriers.as_ref()) else { return none };
        let (in_sets, tainted) = flow.intervals(regions);
        for r in (0..in_sets.len()).filter(|&r| in_sets[r]) {
            for &i in &regions.members[r] {
                reached[i] = true;
                beside[i].merge(&tainted[r]);
            }
        }
        if let Some(b) = barriers.as_mut() {
            b.leave_kernel(&mut seen);
        }
    }
    let load = |i: usize| reached[i] && views[i].iter().any(|d| d.op.is_some_and(is_load));
    PrivateLoads {
        always: (0..n).map(|i| load(i) && beside[i].is_empty()).collect(),
        disjoint: (0..n).map(|i| load(i) && beside[i].spare(class(i))).collect(),
    }
}

/// The memory classes the stores of some code write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Writes {
    /// A store of unknown class.
    unknown: bool,
    /// The known classes, sorted.
    classes: Vec<MemClass>,
}

impl Writes {
    fn is_empty(&self) -> bool {
        !self.unknown && self.classes.is_empty()
    }
    fn add(&mut self, c: MemClass) {
        if c == MemClass::Unknown {
            self.unknown = true;
        } else if let Err(k) = self.classes.binary_search(&c) {
            self.classes.insert(k, c);
        }
    }
    fn merge(&mut self, o: &Writes) {
        self.unknown |= o.unknown;
        for &c in &o.classes {
            self.add(c);
        }
    }
    /// Whether these stores cannot reach an access of class `c` when the launch's memory
    /// objects are disjoint.
    fn spare(&self, c: MemClass) -> bool {
        c != MemClass::Unknown && !self.unknown && !self.classes.contains(&c)
    }
}

/// The most interval sets followed before the analysis gives up (nothing private): the
/// sequence's period is the least common multiple of the barrier graph's cycle lengths.
const MAX_SETS: usize = 10_000;

/// The regions of a text (see [`Flow::regions`]).
struct Regions {
    /// Each region's first entry.
    starts: Vec<usize>,
    /// The region starting at an entry.
    start_of: HashMap<usize, usize>,
    /// Each region's entries.
    members: Vec<Vec<usize>>,
    /// What the region's members write that another warp may read.
    dirty: Vec<Writes>,
    /// The regions that follow each one (those of the barriers it reaches).
    next: Vec<Vec<usize>>,
}

impl Regions {
    /// Empties region 0 again (undoes [`Flow::enter_kernel`], its marks in `seen` included):
    /// work per kernel follows the kernel's own code, not the barrier regions' (no copy).
    fn leave_kernel(&mut self, seen: &mut [usize]) {
        for &i in &self.members[0] {
            seen[i] = usize::MAX;
        }
        self.members[0].clear();
        self.dirty[0] = Writes::default();
        self.next[0].clear();
    }
}

/// The text's control flow (see the module documentation).
struct Flow<'a> {
    views: &'a [Vec<&'a Decoded>],
    /// The memory class of each entry's access.
    classes: &'a [MemClass],
    text_base: u32,
    returns: &'a [usize],
    join_paths: &'a HashMap<usize, Vec<usize>>,
    any_join_paths: &'a [usize],
    max_sets: usize,
}

impl Flow<'_> {
    fn index(&self, pc: u32) -> Option<usize> {
        text_index(self.text_base, self.views.len(), pc)
    }

    /// The class of what entry `i` writes that other warps may read (`None`: nothing).
    fn write_class(&self, i: usize) -> Option<MemClass> {
        let d = self.views[i].iter().find(|d| writer(d))?;
        let csr = matches!(d.op.map(|o| o.desc().fmt), Some(Fmt::Csr | Fmt::CsrI));
        Some(if csr { MemClass::Print } else { self.classes.get(i).copied().unwrap_or_default() })
    }

    fn barrier(&self, i: usize) -> bool {
        self.views[i].iter().any(|d| d.op == Some(Op::Barrier))
    }

    /// The entries control may go to after entry `i` (`called`: where a call through a
    /// register goes), into `out`.
    fn successors(&self, i: usize, called: usize, out: &mut Vec<usize>) {
        let n = self.views.len();
        let pc = self.text_base.wrapping_add(4 * i as u32);
        for d in &self.views[i] {
            let Some(op) = d.op else { continue };
            let target = || self.index(pc.wrapping_add(d.imm as u32));
            match op.desc().fmt {
                Fmt::J => {
                    out.extend(target());
                    if d.rd != 0 {
                        out.push(i + 1);
                    }
                }
                Fmt::Jalr if d.rd == 0 => out.extend(self.returns),
                Fmt::Jalr => out.extend([called, i + 1]),
                Fmt::B | Fmt::VBranch => {
                    out.extend(target());
                    out.push(i + 1);
                }
                Fmt::Join => {
                    out.push(i + 1);
                    out.extend(self.join_paths.get(&i).into_iter().flatten());
                    out.extend(self.any_join_paths);
                }
                Fmt::Bare | Fmt::X3 => {} // ecall/ebreak trap, endprg ends the warp
                Fmt::Barrier if op == Op::Barrier => {}
                _ => out.push(i + 1),
            }
        }
        out.retain(|&k| k < n);
    }

    /// The regions (see the module documentation) of the text whose warps start at `first`:
    /// region 0 from `first`, region `r` ≥ 1 from the entry after the text's `r`-th barrier.
    /// With `called` (where a call through a register goes, the kernel), all of them. Without
    /// it, the barriers' regions only (region 0 left empty, see [`Self::enter_kernel`]),
    /// or `None` when one of them calls through a register (they depend on the kernel then).
    fn regions(&self, first: usize, called: Option<usize>) -> Option<Regions> {
        let n = self.views.len();
        let mut starts = vec![first];
        starts.extend((0..n).filter(|&i| self.barrier(i) && i + 1 < n).map(|i| i + 1));
        let start_of: HashMap<usize, usize> = starts.iter().enumerate().rev().map(|(r, &s)| (s, r)).collect();
        let count = starts.len();
        let mut regions = Regions {
            starts,
            start_of,
            members: vec![Vec::new(); count],
            dirty: vec![Writes::default(); count],
            next: vec![Vec::new(); count],
        };
        let mut seen = vec![usize::MAX; n];
        let from = usize::from(called.is_none());
        for r in from..count {
            let calls = self.fill(&mut regions, r, called.unwrap_or(usize::MAX), &mut seen);
            if calls && called.is_none() {
                return None;
            }
        }
        Some(regions)
    }

    /// Fills region 0 of `barriers` (from [`Self::regions`] without a kernel, or after
    /// [`Regions::leave_kernel`]) — from `first`, for a launch of the kernel at `called`.
    /// `seen`: one mark per entry, none of them 0.
    fn enter_kernel(&self, barriers: &mut Regions, first: usize, called: usize, seen: &mut [usize]) {
        barriers.starts[0] = first;
        self.fill(barriers, 0, called, seen);
    }

    /// Finds region `r`'s members (what its start reaches without passing a barrier), whether
    /// one writes, and the regions that follow it; `seen` marks members by region. Returns
    /// whether a member calls through a register (goes to `called`).
    fn fill(&self, g: &mut Regions, r: usize, called: usize, seen: &mut [usize]) -> bool {
        let (mut stack, mut out) = (vec![g.starts[r]], Vec::new());
        seen[g.starts[r]] = r;
        let mut calls = false;
        while let Some(i) = stack.pop() {
            g.members[r].push(i);
            if let Some(c) = self.write_class(i) {
                g.dirty[r].add(c);
            }
            if self.barrier(i) {
                // The region of this barrier follows; nothing else from here.
                g.next[r].extend(g.start_of.get(&(i + 1)));
                continue;
            }
            calls |= self.views[i].iter().any(|d| d.op == Some(Op::Jalr) && d.rd != 0);
            out.clear();
            self.successors(i, called, &mut out);
            for &k in &out {
                if seen[k] != r {
                    seen[k] = r;
                    stack.push(k);
                }
            }
        }
        calls
    }

    /// Given the regions: which regions the warps reach, and what the code sharing an interval
    /// with each region writes.
    fn intervals(&self, g: &Regions) -> (Vec<bool>, Vec<Writes>) {
        let (dirty, next) = (&g.dirty, &g.next);
        let starts = &g.starts;
        // The S_k sequence until a set repeats: regions reached, and those with a writer
        // among their set.
        let (mut reached, mut tainted) = (vec![false; starts.len()], vec![Writes::default(); starts.len()]);
        let mut set: Vec<usize> = vec![0];
        let mut visited: HashSet<Vec<usize>> = HashSet::new();
        while !set.is_empty() && visited.insert(set.clone()) {
            if visited.len() > self.max_sets {
                // A pathological barrier graph (cycles of many different lengths): every
                // region counts as reached and as running beside a writer.
                reached.fill(true);
                tainted.fill(Writes { unknown: true, classes: Vec::new() });
                break;
            }
            let mut dirty_set = Writes::default();
            for &r in &set {
                dirty_set.merge(&dirty[r]);
            }
            for &r in &set {
                reached[r] = true;
                tainted[r].merge(&dirty_set);
            }
            let mut following: Vec<usize> = set.iter().flat_map(|&r| next[r].iter().copied()).collect();
            following.sort_unstable();
            following.dedup();
            set = following;
        }
        (reached, tainted)
    }
}

/// The decodings entry `i` runs as: its plain one and every variant a prefix (or a chain of
/// prefixes) before it selects.
fn views<'a>(ops: &'a [Decoded], ext: &'a [Decoded]) -> Vec<Vec<&'a Decoded>> {
    let mut v: Vec<Vec<&Decoded>> = ops.iter().map(|d| vec![d]).collect();
    for (k, x) in prefixed_variants(ops, ext) {
        v[k].push(&ext[x]);
    }
    v
}

/// The `join` a divergent branch at `i` reconverges at: `auipc rX, 0; setrpc zero, rX, D`
/// right before it (the compiler protocol; ventus-isa.md §4.4).
fn reconvergence(ops: &[Decoded], i: usize, text_base: u32) -> Option<usize> {
    let (a, s) = (ops.get(i.checked_sub(2)?)?, ops.get(i - 1)?);
    if a.op != Some(Op::Auipc) || a.imm != 0 || s.op != Some(Op::Setrpc) || s.rs1 != a.rd || a.rd == 0 {
        return None;
    }
    let rpc = text_base.wrapping_add(4 * (i as u32 - 2)).wrapping_add(s.imm as u32);
    text_index(text_base, ops.len(), rpc)
}

/// The index of the entry at `pc` in a text of `n` entries at `text_base`.
fn text_index(text_base: u32, n: usize, pc: u32) -> Option<usize> {
    let off = pc.wrapping_sub(text_base);
    (off % 4 == 0 && (off / 4) < n as u32).then_some((off / 4) as usize)
}

/// Whether `d` may change memory another warp reads (see the module documentation).
fn writer(d: &&Decoded) -> bool {
    let Some(op) = d.op else { return false };
    match op.desc().fmt {
        Fmt::Store | Fmt::VStore12 | Fmt::Amo | Fmt::Lr => true,
        Fmt::VLoad | Fmt::VLoadStride | Fmt::VLoadIndex => !is_load(op),
        Fmt::Csr | Fmt::CsrI => d.imm as u16 & 0xfff == crate::isa::regs::csr::PRINT,
        _ => false,
    }
}

/// A load from global or local memory (what [`private_loads`] may make private).
fn is_load(op: Op) -> bool {
    matches!(op.desc().fmt, Fmt::Load | Fmt::VLoad12)
        || matches!(op, Op::Vle32V | Op::Vlse32V | Op::Vluxei32V | Op::Vloxei32V)
}

/// Makes the loads of `prog`'s barrier intervals that no store can run in private (see the
/// module documentation): `start` is where warps start, `entries` where a call through a
/// register may go (crt0's call: every kernel entry a launch may give). Before host calls are
/// installed.
///
/// `classes`: the program's memory-class table (`(pc, class)` rows, [`crate::abi::mem_class`];
/// empty for binaries without one). Returns the variant for launches whose pointer arguments
/// point into pairwise different memory objects — `prog` with the loads no store of the same
/// class can reach made private too — when it differs from `prog`.
pub fn privatize_interval_loads(
    prog: &mut Program,
    start: u32,
    entries: &[u32],
    classes: &[(u32, MemClass)],
) -> Option<Program> {
    let mut by_entry = vec![MemClass::Unknown; prog.ops().len()];
    for &(pc, c) in classes {
        if let Some(i) = text_index(prog.text_base(), by_entry.len(), pc) {
            by_entry[i] = c;
        }
    }
    let p = private_loads(prog.ops(), prog.ext(), prog.text_base(), start, entries, &by_entry);
    if p.always.iter().any(|&p| p) {
        prog.make_private(&p.always);
    }
    let more = p.disjoint.iter().zip(&p.always).any(|(&d, &a)| d && !a);
    more.then(|| {
        let mut variant = prog.clone();
        variant.make_private(&p.disjoint);
        variant
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::program::LoadSegment;

    const BASE: u32 = 0x8000_0000;

    /// `src` assembled at [`BASE`] (crt0-like: warps start at its first word), with the
    /// addresses of `kernels`' labels as the entries; the private flag of every word, and the
    /// labels.
    fn analyse(src: &str, kernels: &[&str]) -> (Vec<bool>, std::collections::BTreeMap<String, u32>) {
        let (p, labels) = analyse_classes(src, kernels);
        (p.always, labels)
    }

    /// [`analyse`] with the memory classes of `src`'s `.mem` directives: both flag vectors.
    fn analyse_classes(src: &str, kernels: &[&str]) -> (PrivateLoads, std::collections::BTreeMap<String, u32>) {
        let (prog, labels, rows) = program_with_classes(src);
        let entries: Vec<u32> = kernels.iter().map(|k| labels[*k]).collect();
        let mut classes = vec![MemClass::Unknown; prog.ops().len()];
        for (pc, c) in rows {
            classes[((pc - BASE) / 4) as usize] = c;
        }
        (private_loads(prog.ops(), prog.ext(), BASE, BASE, &entries, &classes), labels)
    }

    /// `src` assembled at [`BASE`] as a program, and its labels.
    fn program(src: &str) -> (Program, std::collections::BTreeMap<String, u32>) {
        let (prog, labels, _) = program_with_classes(src);
        (prog, labels)
    }

    /// [`program`] and the rows of its `.mem` directives.
    #[allow(clippy::type_complexity)]
    fn program_with_classes(src: &str) -> (Program, std::collections::BTreeMap<String, u32>, Vec<(u32, MemClass)>) {
        let p = crate::isa::asm::assemble(src, BASE).expect("assembles");
        let data: Vec<u8> = p.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let n = data.len() as u32;
        let segment = LoadSegment { vaddr: BASE, data, mem_size: n, writable: false };
        (Program::new(vec![segment], &[(BASE, BASE + n)]).expect("program"), p.labels, p.mem)
    }

    fn at(flags: &[bool], labels: &std::collections::BTreeMap<String, u32>, label: &str) -> bool {
        flags[((labels[label] - BASE) / 4) as usize]
    }

    const CRT0: &str = "
        jalr t1
        endprg x0, x0, x0
    ";

    /// A kernel `k` storing, then loading `tile` between two barriers, then storing (no return).
    const TILE: &str = "
            k:
                vsw12.v v3, 0(v4)
                barrier x0, x0, 1
            tile: vlw12.v v5, 0(v2)
                barrier x0, x0, 1
                vsw12.v v5, 0(v4)
    ";

    #[test]
    fn loads_between_barriers_without_stores_are_private() {
        let src = format!(
            "{CRT0}
            k:
            first: vlw12.v v3, 0(v2)
                vsw12.v v3, 0(v4)
                barrier x0, x0, 1
            tile: vlw12.v v5, 0(v2)
            scalar: lw a0, 0(a1)
                vadd.vv v6, v5, v6
                barrier x0, x0, 1
                addi a2, a2, -1
                bnez a2, first
            last: vlw12.v v7, 0(v8)
                vsw12.v v6, 0(v8)
                ret
            "
        );
        let (f, l) = analyse(&src, &["k"]);
        assert!(at(&f, &l, "tile") && at(&f, &l, "scalar"), "the loads of the tile phase");
        assert!(!at(&f, &l, "first") && !at(&f, &l, "last"), "loads in intervals with stores");
        assert_eq!(f.iter().filter(|&&p| p).count(), 2, "nothing else");
    }

    #[test]
    fn loads_of_a_class_no_store_beside_them_has_are_private_when_objects_are_disjoint() {
        // No barrier: the whole kernel is one interval. `input` loads argument 0, which no
        // store writes (argument 4's store and a spill of class `stack` are beside it); `same`
        // loads what the store writes; `unclassed` has no class.
        let kernel = |extra: &str| {
            format!(
                "{CRT0}
            k:
                .mem arg0
            input: vlw12.v v3, 0(v2)
                .mem arg4
            same: vlw12.v v5, 0(v4)
            unclassed: vlw12.v v6, 0(v7)
                .mem arg4
                vsw12.v v3, 0(v4)
                .mem stack
                sw a0, 0(sp)
                {extra}
                ret
            "
            )
        };
        let (p, l) = analyse_classes(&kernel(""), &["k"]);
        assert!(at(&p.disjoint, &l, "input"));
        assert!(!at(&p.disjoint, &l, "same") && !at(&p.disjoint, &l, "unclassed"));
        assert!(p.always.iter().all(|&a| !a), "every load has a store beside it");
        // A store of unknown class may write anything.
        let (p, l) = analyse_classes(&kernel("vsw12.v v3, 0(v8)"), &["k"]);
        assert!(!at(&p.disjoint, &l, "input"));
        // So may an atomic of class `arg0`.
        let (p, l) = analyse_classes(&kernel(".mem arg0\n amoadd.w x9, x3, (x2)"), &["k"]);
        assert!(!at(&p.disjoint, &l, "input"));
    }

    #[test]
    fn stores_of_other_intervals_do_not_count_against_a_class() {
        // The unknown store runs before the barrier; after it only argument 4 is written.
        let src = format!(
            "{CRT0}
            k:
                vsw12.v v3, 0(v8)
                barrier x0, x0, 1
                .mem arg0
            tile: vlw12.v v5, 0(v2)
                .mem arg4
                vsw12.v v5, 0(v4)
                ret
            "
        );
        let (p, l) = analyse_classes(&src, &["k"]);
        assert!(at(&p.disjoint, &l, "tile") && !at(&p.always, &l, "tile"));
    }

    #[test]
    fn the_disjoint_variant_is_made_only_when_a_load_gains() {
        let src = format!(
            "{CRT0}
            k:
                .mem arg0
            input: vlw12.v v3, 0(v2)
                .mem arg4
                vsw12.v v3, 0(v4)
                ret
            "
        );
        let (mut prog, labels, rows) = program_with_classes(&src);
        let i = ((labels["input"] - BASE) / 4) as usize;
        let variant = privatize_interval_loads(&mut prog, BASE, &[labels["k"]], &rows).expect("a variant");
        assert_eq!(prog.ops()[i].sharing, crate::emulator::program::Sharing::Shared);
        assert_eq!(variant.ops()[i].sharing, crate::emulator::program::Sharing::Private);
        let (mut prog, labels, _) = program_with_classes(&src);
        assert!(privatize_interval_loads(&mut prog, BASE, &[labels["k"]], &[]).is_none(), "no table");
    }

    #[test]
    fn every_kernel_of_a_program_is_analysed_on_its_own() {
        // `other` stores before its barrier: a launch of `k` never runs it.
        let src = format!(
            "{CRT0}{TILE}    ret
            other:
                vsw12.v v3, 0(v4)
                barrier x0, x0, 1
                vsw12.v v3, 0(v4)
                ret
            "
        );
        let (f, l) = analyse(&src, &["k", "other"]);
        assert!(at(&f, &l, "tile"));
        // Merged into one launch (`k`'s first barrier interval beside `other`'s) it would not be.
    }

    #[test]
    fn a_call_through_a_register_after_a_barrier_is_followed_per_kernel() {
        // The warps meet at a barrier before the call: the barrier's region holds the called
        // kernel, so it is found again for each kernel (`a` only loads, `b` also stores).
        let src = "
                li t4, 32
                barrier x0, x0, 1
                jalr t1
                endprg x0, x0, x0
            a:
            load_a: vlw12.v v5, 0(v2)
                ret
            b:
            load_b: vlw12.v v5, 0(v2)
                vsw12.v v5, 0(v3)
                ret
            ";
        let (f, l) = analyse(src, &["a", "b"]);
        assert!(at(&f, &l, "load_a"));
        assert!(!at(&f, &l, "load_b"));
    }

    #[test]
    fn barriers_that_may_be_the_same_interval_share_its_stores() {
        // Warps taking either side meet at the two different barriers: the load after one
        // runs in the interval of the store after the other.
        let src = format!(
            "{CRT0}
            k:
                beqz a0, b
                barrier x0, x0, 1
            load: vlw12.v v5, 0(v2)
                j end
            b:  barrier x0, x0, 1
                vsw12.v v5, 0(v2)
            end:
                barrier x0, x0, 1
            after: vlw12.v v6, 0(v2)
                barrier x0, x0, 1
                ret
            "
        );
        let (f, l) = analyse(&src, &["k"]);
        assert!(!at(&f, &l, "load"));
        assert!(at(&f, &l, "after"));
    }

    #[test]
    fn a_join_goes_on_to_the_other_path_of_its_branch() {
        // The taken path (fewer lanes) meets a barrier and then the join, which runs the
        // fall-through path — with its store — in the barrier's interval.
        let src = format!(
            "{CRT0}
            k:
                auipc t1, 0
                setrpc zero, t1, 28
                vbne v5, v0, taken
                vsw12.v v5, 0(v2)
                j rejoin
            taken: barrier x0, x0, 1
            load: vlw12.v v6, 0(v2)
            rejoin: join zero, zero, 0
                barrier x0, x0, 1
                ret
            "
        );
        let (f, l) = analyse(&src, &["k"]);
        assert_eq!(l["rejoin"] - l["k"], 28, "the setrpc offset names the join");
        assert!(!at(&f, &l, "load"));
    }

    #[test]
    fn a_jump_through_a_register_or_without_a_barrier_leaves_everything_shared() {
        let (f, l) = analyse(&format!("{CRT0}{TILE}    ret\n"), &["k"]);
        assert!(at(&f, &l, "tile"));
        let (f, _) = analyse(&format!("{CRT0}{TILE}    jr t0\n"), &["k"]);
        assert!(f.iter().all(|&p| !p), "a computed jump");
        let (f, _) = analyse(&format!("{CRT0}{TILE}    ret\n"), &[]);
        assert!(f.iter().all(|&p| !p), "no kernel entry known");
        let (f, _) = analyse(&format!("{CRT0}k:\n vlw12.v v5, 0(v2)\n vadd.vv v5, v5, v5\n ret\n"), &["k"]);
        assert!(f.iter().all(|&p| !p), "no barrier");
    }

    #[test]
    fn a_barrier_graph_too_long_to_follow_leaves_everything_shared() {
        // The tile kernel's sets: {entry}, {after the first barrier}, {after the second}.
        let (prog, labels) = program(&format!("{CRT0}{TILE}    ret\n"));
        let tile = ((labels["tile"] - BASE) / 4) as usize;
        let with = |max| private_loads_within(prog.ops(), prog.ext(), BASE, BASE, &[labels["k"]], &[], max).always;
        assert!(with(3)[tile]);
        assert!(with(2).iter().all(|&p| !p));
        // `a` runs the tile load beside a store after its second barrier (four sets); given up
        // on, `a` still counts as running it beside a writer.
        let (prog, labels) = program(&format!(
            "{CRT0}{TILE}    ret
            a:  barrier x0, x0, 1
                barrier x0, x0, 1
                vsw12.v v5, 0(v4)
                j tile
            "
        ));
        let entries = [labels["k"], labels["a"]];
        let with = |max| private_loads_within(prog.ops(), prog.ext(), BASE, BASE, &entries, &[], max).always;
        assert!(with(4).iter().all(|&p| !p), "`a` runs it beside a store");
        assert!(with(3).iter().all(|&p| !p), "`a` given up on");
    }

    #[test]
    fn a_load_behind_a_prefix_is_private_as_its_variant() {
        let src = format!(
            "{CRT0}
            k:
                vsw12.v v3, 0(v4)
                barrier x0, x0, 1
                regext zero, zero, 8
            tile: vlw12.v v5, 0(v2)
                barrier x0, x0, 1
                vsw12.v v5, 0(v4)
                ret
            "
        );
        let (f, l) = analyse(&src, &["k"]);
        assert!(at(&f, &l, "tile"));
        let (mut prog, _) = program(&src);
        assert!(privatize_interval_loads(&mut prog, BASE, &[l["k"]], &[]).is_none());
        let i = ((l["tile"] - BASE) / 4) as usize;
        let prefix = &prog.ops()[i - 1];
        let variant = prog.ext()[prefix.next_ext as usize];
        assert_eq!(variant.op, Some(Op::Vlw12V));
        assert_eq!(variant.sharing, super::super::program::Sharing::Private);
        assert_eq!(prog.ops()[i].sharing, super::super::program::Sharing::Private);
        assert!(prefix.run >= 2, "the prefix and its variant are a run now");
    }
}
