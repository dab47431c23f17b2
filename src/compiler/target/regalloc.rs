//! Register allocation: liveness over the machine CFG (including the SIMT edges that model a
//! warp executing both sides of a divergent branch), one live interval per virtual register, and
//! linear scan per register class. Scalar registers beyond x31 and vector registers beyond v31
//! are used through `regext` (the emitter adds the prefixes). Values that do not fit are spilled:
//! scalars to the warp's uniform stack (`sp`), vectors to private memory (`vsw.v`/`vlw.v` off the
//! all-zero vector register, i.e. the work-item's private base).

use super::mir::*;
use crate::compiler::CompileError;
use crate::isa::Op as I;
use std::collections::HashMap;

/// x63 holds `sp + 4096` (set at entry when used): the base of scalar spill slots past the
/// 12-bit offset reach of `sp`.
const SCALAR_FAR_BASE: u8 = 63;
const SCALAR_FAR_OFFSET: i64 = 4096;
/// x62 is the address register of slots beyond the reach of x63 (`lui`/`addi`/`add` per access).
const SCALAR_ADDR: u8 = 62;
/// Scalar spill slots: `sp` reaches 0..2044, `x63` 2048..6140, anything above is addressed
/// through x62, up to the size of the warp stack ([`crate::abi::COMPILED_WARP_STACK_BYTES`]).
const SCALAR_NEAR_END: i64 = SCALAR_FAR_OFFSET + 2048;
const SCALAR_SCRATCH: [u8; 3] = [7, 28, 29];
/// v0 is the zero vector; v1–v3 are spill scratch; v241–v255 hold 1024, 2048, … 15360 (the bases
/// of spill slots beyond the 11-bit offset of `vlw.v`/`vsw.v`, set at entry when used).
/// In a function with `amocas.d`, v20–v23 are its fixed operand pairs ([`CAS64_EXPECTED`],
/// [`CAS64_DESIRED`]) and not allocated either.
/// Functions that take part in subroutine calls allocate only from their call level's ranges
/// (`target::call`).
pub(super) fn vector_pool(m: &MFunc) -> Vec<u8> {
    let cas64 = m.blocks.iter().flat_map(|b| &b.insts).any(|i| i.op == MOp::I(I::AmocasD));
    let fixed = CAS64_EXPECTED..CAS64_DESIRED + 2;
    let pool = call_level(m).vpool;
    pool.into_iter().filter(|r| !(cas64 && fixed.contains(r))).collect()
}

fn scalar_pool_of(m: &MFunc) -> Vec<u8> {
    call_level(m).spool
}

/// The register ranges of a function: its level's, or for a kernel those left by the levels it
/// calls ([`super::call::kernel`]; a kernel that calls nothing has the whole file).
fn call_level(m: &MFunc) -> super::call::Level {
    if m.level != 0 {
        return super::call::level(m.level);
    }
    let mut called: Vec<u8> = m
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match &i.op {
            MOp::Call(n) => super::call::level_of(n),
            _ => None,
        })
        .collect();
    called.sort_unstable();
    called.dedup();
    super::call::kernel(&called)
}

/// What a function's frame uses: private bytes per work-item (IR data and vector spill slots)
/// and bytes of the warp stack (scalar spill slots), each counted from 0.
#[derive(Debug, Clone, Copy, Default)]
pub struct Frame {
    pub private: u32,
    pub stack: u32,
}
const VECTOR_SCRATCH: [u8; 3] = [1, 2, 3];
/// Registers holding `k · SLOT_WINDOW` (k = 1…14) in every lane, set once at entry: vector slots
/// in the first 15 KiB of private memory are one `vlw.v`/`vsw.v` away.
const VECTOR_SLOT_BASES: [u8; 14] = [241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254];
/// The base register of slots past the fixed windows (behind large private arrays), set
/// before each such access (`li x62, window; vmv.v.x v255, x62`).
const VECTOR_FAR_BASE: u8 = 255;
/// Bytes of private memory one slot base register reaches.
const SLOT_WINDOW: i64 = 1024;

#[derive(Debug, Clone, Copy)]
struct Interval {
    reg: Reg,
    start: usize,
    end: usize,
}

/// Result: where each virtual register lives.
enum Loc {
    Reg(Reg),
    /// Spill slot byte offset (stack for scalars, private memory for vectors).
    Slot(i64),
}

/// Dense numbering of virtual registers (scalars first) for the live sets; with
/// [`VIndex::with_words`] also of the physical word registers (`call::is_word_register`), whose
/// liveness then includes what calls and returns read and write of them implicitly
/// (`call::implicit_words`).
pub(super) struct VIndex {
    scalars: u32,
    /// Virtual vector registers, when the word registers are numbered after them.
    words_after: Option<u32>,
    level: u8,
}

impl VIndex {
    pub(super) fn new(m: &MFunc) -> VIndex {
        VIndex { scalars: m.next_s, words_after: None, level: m.level }
    }
    /// Numbers the word registers too (for copy coalescing).
    pub(super) fn with_words(m: &MFunc) -> VIndex {
        VIndex { words_after: Some(m.next_v), ..VIndex::new(m) }
    }
    pub(super) fn of(&self, r: Reg) -> Option<usize> {
        match r {
            Reg::S(n) => Some(n as usize),
            Reg::V(n) => Some((self.scalars + n) as usize),
            Reg::PV(p) if super::call::is_word_register(p) => {
                self.words_after.map(|v| (self.scalars + v) as usize + usize::from(p))
            }
            _ => None,
        }
    }
    pub(super) fn reg(&self, i: usize) -> Reg {
        let i = i as u32;
        match self.words_after {
            Some(v) if i >= self.scalars + v => Reg::PV((i - self.scalars - v) as u8),
            _ if i < self.scalars => Reg::S(i),
            _ => Reg::V(i - self.scalars),
        }
    }
    /// The registers `i` reads and writes that this numbering tracks, implicit ones included.
    pub(super) fn effects(&self, i: &MInst) -> (Vec<Reg>, Vec<Reg>) {
        let (mut uses, mut defs) = (i.uses(), i.defs());
        if self.words_after.is_some() {
            let (u, d) = super::call::implicit_words(i, self.level);
            uses.extend(u);
            defs.extend_from_slice(d);
        }
        uses.retain(|r| self.of(*r).is_some());
        defs.retain(|r| self.of(*r).is_some());
        (uses, defs)
    }
}

/// A set of [`VIndex`] numbers as a sorted vector: live sets are small compared with the number
/// of virtual registers (most values die in the block that defines them), so this stays
/// proportional to the real liveness even for huge kernels.
#[derive(Clone, Default, PartialEq, Eq)]
pub(super) struct Set(pub(super) Vec<u32>);

impl Set {
    fn from_unsorted(mut v: Vec<u32>) -> Set {
        v.sort_unstable();
        v.dedup();
        Set(v)
    }
    /// `self ∪ other`.
    fn union(&self, other: &Set) -> Set {
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len().max(b.len()));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => {
                    out.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push(a[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Set(out)
    }
    /// `self − other`.
    fn minus(&self, other: &Set) -> Set {
        let mut out = Vec::with_capacity(self.0.len());
        let mut j = 0;
        for &x in &self.0 {
            while j < other.0.len() && other.0[j] < x {
                j += 1;
            }
            if j >= other.0.len() || other.0[j] != x {
                out.push(x);
            }
        }
        Set(out)
    }
}

/// Blocks in postorder of a depth-first walk from the entry, then any unreachable ones.
fn postorder(m: &MFunc) -> Vec<usize> {
    let n = m.blocks.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        stack.push((root, 0));
        while let Some((b, k)) = stack.last_mut() {
            let (b, k0) = (*b, *k);
            match m.blocks[b].succs.get(k0) {
                Some(&s) => {
                    *k += 1;
                    let s = s as usize;
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                }
                None => {
                    order.push(b);
                    stack.pop();
                }
            }
        }
    }
    order
}

/// Live-in and live-out virtual registers of every block (backward data flow in postorder).
pub(super) fn liveness(m: &MFunc, ix: &VIndex) -> (Vec<Set>, Vec<Set>) {
    let n = m.blocks.len();
    let mut gen = Vec::with_capacity(n);
    let mut kill = Vec::with_capacity(n);
    for blk in &m.blocks {
        let mut defined = std::collections::HashSet::new();
        let mut g = Vec::new();
        for i in &blk.insts {
            let (uses, defs) = ix.effects(i);
            for u in uses.into_iter().filter_map(|r| ix.of(r)) {
                if !defined.contains(&u) {
                    g.push(u as u32);
                }
            }
            for d in defs.into_iter().filter_map(|r| ix.of(r)) {
                defined.insert(d);
            }
        }
        gen.push(Set::from_unsorted(g));
        kill.push(Set::from_unsorted(defined.into_iter().map(|d| d as u32).collect()));
    }
    let mut live_in = vec![Set::default(); n];
    let mut live_out = vec![Set::default(); n];
    let order = postorder(m);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let mut out = Set::default();
            for s in &m.blocks[b].succs {
                out = out.union(&live_in[*s as usize]);
            }
            let inn = out.minus(&kill[b]).union(&gen[b]);
            if inn != live_in[b] || out != live_out[b] {
                live_in[b] = inn;
                live_out[b] = out;
                changed = true;
            }
        }
    }
    (live_in, live_out)
}

fn intervals(m: &MFunc) -> Vec<Interval> {
    let ix = VIndex::new(m);
    let (live_in, live_out) = liveness(m, &ix);
    let mut span: HashMap<Reg, (usize, usize)> = HashMap::new();
    let mut touch = |r: Reg, p: usize| {
        let e = span.entry(r).or_insert((p, p));
        e.0 = e.0.min(p);
        e.1 = e.1.max(p);
    };
    let mut pos = 0;
    for (b, blk) in m.blocks.iter().enumerate() {
        let start = pos;
        for &r in &live_in[b].0 {
            touch(ix.reg(r as usize), start);
        }
        for i in &blk.insts {
            pos += 2;
            for u in i.uses() {
                if u.is_virtual() {
                    touch(u, pos);
                }
            }
            for d in i.defs() {
                if d.is_virtual() {
                    touch(d, pos + 1);
                }
            }
        }
        pos += 2;
        for &r in &live_out[b].0 {
            touch(ix.reg(r as usize), pos);
        }
    }
    let mut v: Vec<Interval> = span.into_iter().map(|(reg, (start, end))| Interval { reg, start, end }).collect();
    // The register breaks ties: the map's order differs from process to process, and the
    // generated code must not (reproducible builds).
    v.sort_by_key(|i| (i.start, i.end, i.reg));
    v
}

/// Linear scan of the intervals of one register class over `pool`. Spilled intervals are
/// returned separately (their slots are assigned by [`assign_slots`]).
/// Free registers are taken in `pool` order (the ones that need no `regext` prefix first).
/// `hint`: a register that should get a given pool register when it is free at its start.
fn scan(ints: &[Interval], pool: &[u8], vector: bool, hint: Option<(Reg, u8)>) -> (HashMap<Reg, Loc>, Vec<Interval>) {
    let rank: HashMap<u8, usize> = pool.iter().enumerate().map(|(i, r)| (*r, i)).collect();
    let mut free = FreeRegs { set: pool.iter().enumerate().map(|(i, r)| (i, *r)).collect(), rank };
    let mut active: Vec<(Interval, u8)> = Vec::new();
    let mut out = HashMap::new();
    let mut spilled = Vec::new();
    for it in ints.iter().filter(|i| i.reg.is_vector() == vector) {
        active.retain(|(a, r)| {
            if a.end < it.start {
                free.push(*r);
                false
            } else {
                true
            }
        });
        let hinted = hint.filter(|h| h.0 == it.reg).and_then(|(_, r)| free.take(r));
        if let Some(r) = hinted.or_else(|| free.pop()) {
            active.push((*it, r));
            out.insert(it.reg, Loc::Reg(if vector { Reg::PV(r) } else { Reg::X(r) }));
            continue;
        }
        // Spill the interval that ends last.
        let (k, _) =
            active.iter().enumerate().max_by_key(|(_, (a, _))| a.end).expect("non-empty when no register is free");
        if active[k].0.end > it.end {
            let (victim, r) = active.remove(k);
            spilled.push(victim);
            active.push((*it, r));
            out.insert(it.reg, Loc::Reg(if vector { Reg::PV(r) } else { Reg::X(r) }));
        } else {
            spilled.push(*it);
        }
    }
    (out, spilled)
}

/// Free registers ordered by preference.
struct FreeRegs {
    set: std::collections::BTreeSet<(usize, u8)>,
    rank: HashMap<u8, usize>,
}

impl FreeRegs {
    fn pop(&mut self) -> Option<u8> {
        self.set.pop_first().map(|(_, r)| r)
    }
    fn push(&mut self, r: u8) {
        self.set.insert((self.rank[&r], r));
    }
    /// `r`, if it is free.
    fn take(&mut self, r: u8) -> Option<u8> {
        let rank = *self.rank.get(&r)?;
        self.set.remove(&(rank, r)).then_some(r)
    }
}

/// Gives every spilled interval a 4-byte slot `base + 4k`; intervals that do not overlap share
/// slots (as registers do). Returns the slots and the end of the slot area.
fn assign_slots(mut spilled: Vec<Interval>, base: i64) -> (HashMap<Reg, i64>, i64) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    spilled.sort_by_key(|i| (i.start, i.end, i.reg));
    // Lowest free slot first; active slots ordered by the end of their interval.
    let mut free: BinaryHeap<Reverse<i64>> = BinaryHeap::new();
    let mut active: BinaryHeap<Reverse<(usize, i64)>> = BinaryHeap::new();
    let mut next = base;
    let mut out = HashMap::new();
    for it in spilled {
        while let Some(&Reverse((end, slot))) = active.peek() {
            if end >= it.start {
                break;
            }
            active.pop();
            free.push(Reverse(slot));
        }
        let slot = match free.pop() {
            Some(Reverse(s)) => s,
            None => {
                next += 4;
                next - 4
            }
        };
        active.push(Reverse((it.end, slot)));
        out.insert(it.reg, slot);
    }
    (out, next)
}

/// A kernel's first instruction copies the argument-buffer address out of `a0`
/// (`addi argbase, a0, 0`); when that register gets `a0` itself (a0 is otherwise free then: no
/// other value is live at the entry), the copy is an identity and disappears (`mv t0, a0` in
/// every kernel otherwise). Nothing else reads `a0` as a fixed register in a kernel.
fn entry_copy_of_a0(m: &MFunc) -> Option<(Reg, u8)> {
    if m.level != 0 {
        return None;
    }
    let first = m.blocks.first()?.insts.first()?;
    match (&first.op, first.rd, first.rs1) {
        (&MOp::I(I::Addi), Some(d), Some(A0)) if first.imm == 0 && d.is_virtual() && !d.is_vector() => Some((d, 10)),
        _ => None,
    }
}

/// Allocates registers in place. Scalar spill slots start at `stack_base` bytes of the warp
/// stack, vector slots above the IR's private data (`m.private_bytes`, which for a subroutine
/// already starts above its callers' frames). Returns the frame's extent.
pub fn allocate(m: &mut MFunc, stack_base: u32) -> Result<Frame, CompileError> {
    super::dce::remove_dead(m);
    super::coalesce::coalesce(m);
    let ints = intervals(m);
    let (mut smap, sspill) = scan(&ints, &scalar_pool_of(m), false, entry_copy_of_a0(m));
    let (sslots, send) = assign_slots(sspill, i64::from(stack_base.next_multiple_of(4)));
    let stack = i64::from(crate::abi::COMPILED_WARP_STACK_BYTES);
    if send > stack {
        return Err(CompileError::Resources(format!(
            "too many live uniform values: {send} bytes of spill slots (the warp stack holds {stack})"
        )));
    }
    smap.extend(sslots.into_iter().map(|(r, o)| (r, Loc::Slot(o))));
    let private_base = (m.private_bytes as i64 + 3) & !3;
    let (mut vmap, vspill) = scan(&ints, &vector_pool(m), true, None);
    let (vslots, vend) = assign_slots(vspill, private_base);
    if vend > i64::from(crate::abi::MAX_PRIVATE_BYTES_PER_ITEM) {
        return Err(CompileError::Resources(format!(
            "{vend} bytes of private memory per work-item ({} of private variables, the rest spilled \
             values; limit {})",
            m.private_bytes,
            crate::abi::MAX_PRIVATE_BYTES_PER_ITEM
        )));
    }
    vmap.extend(vslots.into_iter().map(|(r, o)| (r, Loc::Slot(o))));
    let vslot = vend;
    let loc = |r: Reg| -> Option<&Loc> {
        if r.is_vector() {
            vmap.get(&r)
        } else {
            smap.get(&r)
        }
    };
    for blk in &mut m.blocks {
        let mut out = Vec::with_capacity(blk.insts.len());
        for mut inst in std::mem::take(&mut blk.insts) {
            let defs = inst.defs();
            let uses = inst.uses();
            let mut scratch_s = SCALAR_SCRATCH.iter();
            let mut scratch_v = VECTOR_SCRATCH.iter();
            let mut assigned: HashMap<Reg, Reg> = HashMap::new();
            let mut reloads = Vec::new();
            let mut stores = Vec::new();
            for r in uses.iter().chain(defs.iter()) {
                if !r.is_virtual() || assigned.contains_key(r) {
                    continue;
                }
                match loc(*r) {
                    Some(Loc::Reg(p)) => {
                        assigned.insert(*r, *p);
                    }
                    Some(Loc::Slot(off)) => {
                        let p = if r.is_vector() {
                            Reg::PV(*scratch_v.next().ok_or(CompileError::Internal("out of vector scratch".into()))?)
                        } else {
                            Reg::X(*scratch_s.next().ok_or(CompileError::Internal("out of scalar scratch".into()))?)
                        };
                        assigned.insert(*r, p);
                        if uses.contains(r) {
                            reloads.extend(spill_op(p, *off, true));
                        }
                        if defs.contains(r) {
                            stores.extend(spill_op(p, *off, false));
                        }
                    }
                    None => {
                        // Never live (a definition whose value is unused): any scratch register.
                        let p = if r.is_vector() { Reg::PV(VECTOR_SCRATCH[0]) } else { Reg::X(SCALAR_SCRATCH[0]) };
                        assigned.insert(*r, p);
                    }
                }
            }
            for f in inst.regs_mut() {
                if let Some(r) = f {
                    if let Some(p) = assigned.get(r) {
                        *f = Some(*p);
                    }
                }
            }
            for m in reloads.iter_mut().chain(stores.iter_mut()) {
                m.loc = inst.loc;
            }
            out.extend(reloads);
            out.push(inst);
            out.extend(stores);
        }
        blk.insts = out;
    }
    // Slot base registers for spill slots past the reach of `sp` / the first KiB of private
    // memory, set once at entry (only scratch registers are involved, nothing is live there yet).
    let bases = (((vslot - 1).max(0) / SLOT_WINDOW) as usize).min(VECTOR_SLOT_BASES.len());
    if let Some(entry) = m.blocks.first_mut() {
        let mut init = Vec::new();
        let t = Reg::X(SCALAR_SCRATCH[0]);
        if send > 2048 {
            init.extend([MInst::li(t, SCALAR_FAR_OFFSET), MInst::rr(I::Add, Reg::X(SCALAR_FAR_BASE), SP, t, 0)]);
        }
        for (k, &v) in VECTOR_SLOT_BASES.iter().enumerate().take(bases) {
            init.extend([MInst::li(t, SLOT_WINDOW * (k as i64 + 1)), MInst::rr(I::VmvVX, Reg::PV(v), t, ZERO, 0)]);
        }
        entry.insts.splice(0..0, init);
    }
    // The kernel entry's `vmv.v.x v0, zero` is dead when nothing reads v0 (no private memory,
    // no vector spill slot in the first window, no callee relying on it).
    if m.level == 0 && !m.calls && !m.blocks.iter().flat_map(|b| &b.insts).any(|i| i.uses().contains(&VZERO)) {
        let zeroing = |i: &MInst| i.op == MOp::I(I::VmvVX) && i.defs() == [VZERO];
        for b in &mut m.blocks {
            b.insts.retain(|i| !zeroing(i));
        }
    }
    drop_repeated_li(m);
    Ok(Frame { private: vslot.max(m.private_bytes as i64) as u32, stack: send as u32 })
}

/// Removes a `li r, k` whose register still holds `k` from an earlier `li` of the same block
/// (constants are materialised per use, often into the same scratch register): the register's
/// known constant is forgotten when an instruction writes it, and all are at a call or a
/// reconvergence-address setup. Blocks start knowing nothing (they may be entered by a jump).
fn drop_repeated_li(m: &mut MFunc) {
    for blk in &mut m.blocks {
        let mut known: Vec<(Reg, i64)> = Vec::new();
        blk.insts.retain(|i| {
            match (&i.op, i.rd) {
                (MOp::Li, Some(r)) => {
                    if known.contains(&(r, i.imm)) {
                        return false;
                    }
                    known.retain(|(k, _)| *k != r);
                    known.push((r, i.imm));
                }
                (MOp::Call(_) | MOp::SetRpc, _) => known.clear(),
                _ => {
                    let defs = i.defs();
                    known.retain(|(k, _)| !defs.contains(k));
                }
            }
            true
        });
    }
}

/// The load (reload) or store of spilled `p` at slot `off`.
fn spill_op(p: Reg, off: i64, load: bool) -> Vec<MInst> {
    let mut out = Vec::new();
    let mut m;
    if p.is_vector() {
        m = MInst::new(MOp::I(if load { I::VlwV } else { I::VswV }));
        let window = off / SLOT_WINDOW;
        m.rs1 = Some(match window as usize {
            0 => VZERO,
            k if k <= VECTOR_SLOT_BASES.len() => Reg::PV(VECTOR_SLOT_BASES[k - 1]),
            _ => {
                let (a, far) = (Reg::X(SCALAR_ADDR), Reg::PV(VECTOR_FAR_BASE));
                out.extend([MInst::li(a, window * SLOT_WINDOW), MInst::rr(I::VmvVX, far, a, ZERO, 0)]);
                far
            }
        });
        m.imm = off - window * SLOT_WINDOW;
    } else {
        m = MInst::new(MOp::I(if load { I::Lw } else { I::Sw }));
        // The warp's own uniform stack: no other warp reaches it.
        m.mem = crate::abi::mem_class::MemClass::Stack;
        if off < 2048 {
            m.rs1 = Some(SP);
            m.imm = off;
        } else if off < SCALAR_NEAR_END {
            m.rs1 = Some(Reg::X(SCALAR_FAR_BASE));
            m.imm = off - SCALAR_FAR_OFFSET;
        } else {
            // x62 = sp + off (lui/addi), then 0(x62).
            let a = Reg::X(SCALAR_ADDR);
            let (hi, lo) = ((off + 0x800) >> 12, ((off & 0xfff) ^ 0x800) - 0x800);
            out.extend([
                MInst::rr(I::Lui, a, ZERO, ZERO, hi << 12),
                MInst::rr(I::Addi, a, a, ZERO, lo),
                MInst::rr(I::Add, a, a, SP, 0),
            ]);
            m.rs1 = Some(a);
            m.imm = 0;
        }
    }
    if load {
        m.rd = Some(p);
    } else {
        m.rs2 = Some(p);
    }
    out.push(m);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_still_in_its_register_is_not_loaded_again() {
        let (t0, a1) = (Reg::X(5), Reg::X(11));
        let insts = vec![
            MInst::li(t0, 7),
            MInst::rr(I::Add, a1, t0, t0, 0),
            MInst::li(t0, 7), // still 7: dropped
            MInst::li(a1, 7), // another register: kept
            MInst::li(t0, 9), // another constant: kept
            MInst::li(t0, 7), // t0 now holds 9: kept
            MInst::rr(I::Add, t0, a1, a1, 0),
            MInst::li(t0, 7), // t0 was written: kept
            MInst::new(MOp::Call("f".into())),
            MInst::li(t0, 7), // a call may clobber it: kept
            MInst::li(a1, 7), // likewise
        ];
        let block = MBlock { insts: insts.clone(), succs: vec![1] };
        let mut m = MFunc {
            name: "k".into(),
            blocks: vec![block.clone(), block],
            next_s: 0,
            next_v: 0,
            private_bytes: 0,
            level: 0,
            calls: true,
            files: Vec::new(),
        };
        drop_repeated_li(&mut m);
        let mut want = insts;
        want.remove(2);
        // Each block on its own (the second may be entered by a jump).
        assert_eq!(m.blocks[0].insts, want);
        assert_eq!(m.blocks[1].insts, want);
    }
}
