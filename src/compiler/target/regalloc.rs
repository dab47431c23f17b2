//! Register allocation: liveness over the machine CFG (including the SIMT edges that model a
//! warp executing both sides of a divergent branch), one live interval per virtual register, and
//! linear scan per register class. Scalar registers beyond x31 and vector registers beyond v31
//! are used through `regext` (the emitter adds the prefixes). Values that do not fit are spilled:
//! scalars to the warp's uniform stack (`sp`), vectors to private memory (`vsw.v`/`vlw.v` off the
//! all-zero vector register, i.e. the work-item's private base).

use super::mir::*;
use crate::compiler::CompileError;
use crate::isa::Op as I;
use std::collections::{HashMap, HashSet};

/// Scalar registers available to the allocator (x0–x4, t1, t2, s0, t3, t4 are reserved: zero,
/// ra, sp, gp, tp, the `setrpc` scratch, the work-group local base, and spill scratch).
fn scalar_pool() -> Vec<u8> {
    let mut v = vec![5, 9];
    v.extend(10..=27);
    v.extend([30, 31]);
    v.extend(32..=63);
    v
}
const SCALAR_SCRATCH: [u8; 3] = [7, 28, 29];
/// v0 is the zero vector; v1–v3 are spill scratch.
fn vector_pool() -> Vec<u8> {
    (4..=255).collect()
}
const VECTOR_SCRATCH: [u8; 3] = [1, 2, 3];

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

fn liveness(m: &MFunc) -> (Vec<HashSet<Reg>>, Vec<HashSet<Reg>>) {
    let n = m.blocks.len();
    let mut gen = vec![HashSet::new(); n];
    let mut kill = vec![HashSet::new(); n];
    for (b, blk) in m.blocks.iter().enumerate() {
        for i in &blk.insts {
            for u in i.uses() {
                if u.is_virtual() && !kill[b].contains(&u) {
                    gen[b].insert(u);
                }
            }
            for d in i.defs() {
                if d.is_virtual() {
                    kill[b].insert(d);
                }
            }
        }
    }
    let mut live_in: Vec<HashSet<Reg>> = vec![HashSet::new(); n];
    let mut live_out: Vec<HashSet<Reg>> = vec![HashSet::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = HashSet::new();
            for s in &m.blocks[b].succs {
                out.extend(live_in[*s as usize].iter().copied());
            }
            let mut inn: HashSet<Reg> = out.difference(&kill[b]).copied().collect();
            inn.extend(gen[b].iter().copied());
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
    let (live_in, live_out) = liveness(m);
    let mut span: HashMap<Reg, (usize, usize)> = HashMap::new();
    let mut touch = |r: Reg, p: usize| {
        let e = span.entry(r).or_insert((p, p));
        e.0 = e.0.min(p);
        e.1 = e.1.max(p);
    };
    let mut pos = 0;
    for (b, blk) in m.blocks.iter().enumerate() {
        let start = pos;
        for r in &live_in[b] {
            touch(*r, start);
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
        for r in &live_out[b] {
            touch(*r, pos);
        }
    }
    let mut v: Vec<Interval> = span.into_iter().map(|(reg, (start, end))| Interval { reg, start, end }).collect();
    v.sort_by_key(|i| (i.start, i.end));
    v
}

fn scan(
    ints: &[Interval],
    pool: &[u8],
    vector: bool,
    next_slot: &mut dyn FnMut() -> Result<i64, CompileError>,
) -> Result<HashMap<Reg, Loc>, CompileError> {
    let mut free: Vec<u8> = pool.iter().rev().copied().collect();
    let mut active: Vec<(Interval, u8)> = Vec::new();
    let mut out = HashMap::new();
    for it in ints.iter().filter(|i| i.reg.is_vector() == vector) {
        active.retain(|(a, r)| {
            if a.end < it.start {
                free.push(*r);
                false
            } else {
                true
            }
        });
        if let Some(r) = free.pop() {
            active.push((*it, r));
            out.insert(it.reg, Loc::Reg(if vector { Reg::PV(r) } else { Reg::X(r) }));
            continue;
        }
        // Spill the interval that ends last.
        let (k, _) =
            active.iter().enumerate().max_by_key(|(_, (a, _))| a.end).expect("non-empty when no register is free");
        if active[k].0.end > it.end {
            let (victim, r) = active.remove(k);
            out.insert(victim.reg, Loc::Slot(next_slot()?));
            active.push((*it, r));
            out.insert(it.reg, Loc::Reg(if vector { Reg::PV(r) } else { Reg::X(r) }));
        } else {
            out.insert(it.reg, Loc::Slot(next_slot()?));
        }
    }
    Ok(out)
}

/// Allocates registers in place; returns the private bytes per work-item used (IR frame plus
/// vector spill slots).
pub fn allocate(m: &mut MFunc) -> Result<u32, CompileError> {
    let ints = intervals(m);
    let mut sslot = 0i64;
    let mut next_s = || -> Result<i64, CompileError> {
        sslot += 4;
        if sslot > 1020 {
            return Err(CompileError::Resources("too many live scalar values (the warp stack is 1 KiB)".into()));
        }
        Ok(sslot - 4)
    };
    let smap = scan(&ints, &scalar_pool(), false, &mut next_s)?;
    let private_base = (m.private_bytes as i64 + 3) & !3;
    let mut vslot = private_base;
    let mut next_v = || -> Result<i64, CompileError> {
        vslot += 4;
        if vslot > 1020 {
            return Err(CompileError::Resources(
                "too many live vector values (spill slots exceed the 1 KiB private window)".into(),
            ));
        }
        Ok(vslot - 4)
    };
    let vmap = scan(&ints, &vector_pool(), true, &mut next_v)?;
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
                            reloads.push(spill_op(p, *off, true));
                        }
                        if defs.contains(r) {
                            stores.push(spill_op(p, *off, false));
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
            out.extend(reloads);
            out.push(inst);
            out.extend(stores);
        }
        blk.insts = out;
    }
    Ok(vslot.max(m.private_bytes as i64) as u32)
}

fn spill_op(p: Reg, off: i64, load: bool) -> MInst {
    let mut m;
    if p.is_vector() {
        m = MInst::new(MOp::I(if load { I::VlwV } else { I::VswV }));
        m.rs1 = Some(VZERO);
        if load {
            m.rd = Some(p);
        } else {
            m.rs2 = Some(p);
        }
    } else {
        m = MInst::new(MOp::I(if load { I::Lw } else { I::Sw }));
        m.rs1 = Some(SP);
        if load {
            m.rd = Some(p);
        } else {
            m.rs2 = Some(p);
        }
    }
    m.imm = off;
    m
}
