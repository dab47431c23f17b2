//! Lowers work-item functions to CSR reads, metadata-buffer words and the per-lane local id, the
//! way the Ventus runtime defines them (driver-abi §2.1, §4.4): the hardware lane number is
//! `CSR_TID + lane`; local ids decompose it by the enqueued local sizes; the local linear id
//! recombines them with the actual sizes; global id = group id × local size + local id
//! + global offset; `get_local_size` is the size of this (possibly partial) work-group.

use super::super::ir::*;
use crate::abi::launch::md;
use crate::isa::regs::csr;

struct Builder<'a> {
    f: &'a mut Func,
    out: Vec<Inst>,
    /// Location of the work-item query being expanded.
    loc: SrcLoc,
}

impl Builder<'_> {
    fn push(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.f.new_value(ty);
        self.out.push(Inst::at(Some(v), op, self.loc));
        v
    }
    fn c(&mut self, x: u32) -> Value {
        self.push(Ty::I32, Op::Const(x as u64))
    }
    fn bin(&mut self, o: BinOp, a: Value, b: Value) -> Value {
        self.push(Ty::I32, Op::Bin(o, a, b))
    }
    fn meta(&mut self, off: u32) -> Value {
        self.push(Ty::I32, Op::MetaWord { offset: off })
    }
    fn group_id(&mut self, d: u32) -> Value {
        self.push(Ty::I32, Op::Csr(csr::GIDX + d as u16))
    }
    fn enq(&mut self, d: u32) -> Value {
        self.meta(md::LC_SIZE + 4 * d)
    }
    fn local_id(&mut self, lane: Value, d: u32) -> Value {
        let lx = self.enq(0);
        match d {
            0 => self.bin(BinOp::RemU, lane, lx),
            1 => {
                let ly = self.enq(1);
                let q = self.bin(BinOp::DivU, lane, lx);
                self.bin(BinOp::RemU, q, ly)
            }
            _ => {
                let ly = self.enq(1);
                let xy = self.bin(BinOp::Mul, lx, ly);
                self.bin(BinOp::DivU, lane, xy)
            }
        }
    }
    /// The size of this (possibly partial) work-group in dimension `d`.
    fn local_size(&mut self, d: u32) -> Value {
        let (e, gs, g) = (self.enq(d), self.meta(md::GL_SIZE + 4 * d), self.group_id(d));
        let start = self.bin(BinOp::Mul, g, e);
        let rest = self.bin(BinOp::Sub, gs, start);
        self.bin(BinOp::MinU, e, rest)
    }
    /// `get_local_linear_id()`: local ids combined with the *actual* local sizes (it equals the
    /// hardware lane number except in partial work-groups of 2D/3D ranges).
    fn local_linear_id(&mut self, lane: Value) -> Value {
        let (x, y, z) = (self.local_id(lane, 0), self.local_id(lane, 1), self.local_id(lane, 2));
        let (sx, sy) = (self.local_size(0), self.local_size(1));
        let zy = self.bin(BinOp::Mul, z, sy);
        let zy = self.bin(BinOp::Add, zy, y);
        let t = self.bin(BinOp::Mul, zy, sx);
        self.bin(BinOp::Add, t, x)
    }
    fn global_id(&mut self, lane: Value, d: u32) -> Value {
        let g = self.group_id(d);
        let l = self.enq(d);
        let base = self.bin(BinOp::Mul, g, l);
        let lid = self.local_id(lane, d);
        let off = self.meta(md::GL_OFFSET + 4 * d);
        // group·size + offset first: both are uniform, so that sum is one scalar add and only
        // the last add is a vector one (wrapping adds: the same value in any order).
        let start = self.bin(BinOp::Add, base, off);
        self.bin(BinOp::Add, lid, start)
    }
}

/// Replaces every `WorkItem` instruction (they all live in the entry block).
pub fn lower(f: &mut Func) {
    let mut lane: Option<Value> = None;
    for bi in 0..f.blocks.len() {
        if !f.blocks[bi].insts.iter().any(|i| matches!(i.op, Op::WorkItem(..))) {
            continue;
        }
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let mut b = Builder { f, out: Vec::new(), loc: SrcLoc::NONE };
        for inst in insts {
            let Op::WorkItem(w, d) = inst.op else {
                b.out.push(inst);
                continue;
            };
            let r = inst.result.expect("work-item functions have results");
            b.loc = inst.loc;
            let l = *lane.get_or_insert_with(|| b.push(Ty::I32, Op::LaneId));
            let v = if d > 2 && !matches!(w, WorkItem::WorkDim | WorkItem::LocalLinearId | WorkItem::GlobalLinearId) {
                // Out-of-range dimensions: ids and offsets are 0, sizes are 1.
                let one = matches!(
                    w,
                    WorkItem::GlobalSize | WorkItem::LocalSize | WorkItem::EnqueuedLocalSize | WorkItem::NumGroups
                );
                b.c(one as u32)
            } else {
                match w {
                    WorkItem::LocalLinearId => b.local_linear_id(l),
                    WorkItem::LocalId => b.local_id(l, d),
                    WorkItem::GroupId => b.group_id(d),
                    WorkItem::GlobalId => b.global_id(l, d),
                    WorkItem::EnqueuedLocalSize => b.enq(d),
                    WorkItem::GlobalSize => b.meta(md::GL_SIZE + 4 * d),
                    WorkItem::GlobalOffset => b.meta(md::GL_OFFSET + 4 * d),
                    WorkItem::WorkDim => b.meta(md::WORK_DIM),
                    WorkItem::LocalSize => b.local_size(d),
                    WorkItem::NumGroups => {
                        let (e, gs) = (b.enq(d), b.meta(md::GL_SIZE + 4 * d));
                        let one = b.c(1);
                        let em1 = b.bin(BinOp::Sub, e, one);
                        let t = b.bin(BinOp::Add, gs, em1);
                        b.bin(BinOp::DivU, t, e)
                    }
                    WorkItem::GlobalLinearId => {
                        let mut acc = None;
                        for dim in (0..3).rev() {
                            let gid = b.global_id(l, dim);
                            let off = b.meta(md::GL_OFFSET + 4 * dim);
                            let rel = b.bin(BinOp::Sub, gid, off);
                            acc = Some(match acc {
                                None => rel,
                                Some(a) => {
                                    let gs = b.meta(md::GL_SIZE + 4 * dim);
                                    let m = b.bin(BinOp::Mul, a, gs);
                                    b.bin(BinOp::Add, m, rel)
                                }
                            });
                        }
                        acc.expect("three dimensions")
                    }
                }
            };
            b.out.push(Inst::at(Some(r), Op::Copy(v), b.loc));
        }
        let out = b.out;
        f.blocks[bi].insts = out;
    }
}

/// Whether kernel `f` (as lowered from SPIR-V, before [`lower`]) can observe how its work-items
/// are grouped: it reads a local id, local or enqueued size, group id or group count, waits at a
/// barrier, addresses static `__local` memory, or reads a CSR, lane id or metadata word other
/// than the print buffer's (nothing the front end emits today; counted as observing). A kernel
/// that does none of these computes the same results under any decomposition of the NDRange
/// (its `__local` pointer arguments are checked by the caller).
pub fn observes_grouping(f: &Func) -> bool {
    f.blocks.iter().flat_map(|b| &b.insts).any(|i| match &i.op {
        Op::WorkItem(w, _) => !matches!(
            w,
            WorkItem::GlobalId
                | WorkItem::GlobalSize
                | WorkItem::GlobalOffset
                | WorkItem::WorkDim
                | WorkItem::GlobalLinearId
        ),
        Op::MetaWord { offset } => *offset != md::PRINT_ADDR && *offset != md::PRINT_SIZE,
        Op::Barrier { .. } | Op::LocalAddr { .. } | Op::Csr(_) | Op::LaneId => true,
        _ => false,
    })
}

/// The *single-item variant* of kernel `f` (as lowered from SPIR-V, before [`lower`]): the same
/// kernel specialised for work-groups of exactly one work-item, which cannot observe its
/// grouping — so a launch with local size 1×1×1 may run it with 32 of those work-groups as the
/// lanes of one warp (driver-abi: [`crate::abi::kernel_info::single_item_symbol`]). In a
/// one-item work-group the local ids and the local linear id are 0, every local size is 1, the
/// group id is the global id minus the offset, the group count is the global size, and a
/// barrier orders nothing (the work-item's own accesses are in program order anyway).
///
/// `None` when the kernel needs more than its work-item functions changed: it addresses
/// `__local` memory, reads a CSR, lane id or a metadata word other than the print buffer's
/// (sub-group and work-group collectives do), or is already grouping-free (it needs no
/// variant). The caller also declines kernels with `__local` pointer arguments.
pub fn single_item_variant(f: &Func, name: String) -> Option<Func> {
    let insts = || f.blocks.iter().flat_map(|b| &b.insts);
    let foreign = insts().any(|i| match &i.op {
        Op::MetaWord { offset } => *offset != md::PRINT_ADDR && *offset != md::PRINT_SIZE,
        Op::LocalAddr { .. } | Op::Csr(_) | Op::LaneId => true,
        _ => false,
    });
    if foreign || f.local_bytes != 0 || !observes_grouping(f) {
        return None;
    }
    let mut v = f.clone();
    v.name = name;
    for bi in 0..v.blocks.len() {
        let insts = std::mem::take(&mut v.blocks[bi].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            let (loc, r) = (inst.loc, inst.result);
            let op = match inst.op {
                Op::Barrier { .. } => continue,
                Op::WorkItem(WorkItem::LocalId | WorkItem::LocalLinearId, _) => Op::Const(0),
                Op::WorkItem(WorkItem::LocalSize | WorkItem::EnqueuedLocalSize, _) => Op::Const(1),
                Op::WorkItem(WorkItem::NumGroups, d) => Op::WorkItem(WorkItem::GlobalSize, d),
                Op::WorkItem(WorkItem::GroupId, d) => {
                    let ty = r.map_or(Ty::I32, |r| v.types[r.0 as usize]);
                    let (g, o) = (v.new_value(ty), v.new_value(ty));
                    out.push(Inst::at(Some(g), Op::WorkItem(WorkItem::GlobalId, d), loc));
                    out.push(Inst::at(Some(o), Op::WorkItem(WorkItem::GlobalOffset, d), loc));
                    Op::Bin(BinOp::Sub, g, o)
                }
                op => op,
            };
            out.push(Inst::at(r, op, loc));
        }
        v.blocks[bi].insts = out;
    }
    Some(v)
}
