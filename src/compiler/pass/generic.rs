//! The generic address space (OpenCL C 2.0+ unqualified pointers).
//!
//! A generic pointer holds the address of a global, local or private object unchanged: the memory
//! map keeps the three apart (`abi`): private addresses (a work-item's private byte offset, small)
//! lie below `LDS_BASE`, local ones in `[LDS_BASE, PROGRAM_BASE)`, global ones at `PROGRAM_BASE`
//! and above. Casts to and from the generic space are therefore copies, and `to_global` /
//! `to_local` / `to_private` / `get_fence` are range checks ([`in_space`]).
//!
//! Contract of [`run`] (after `legalize64`, so every access is at most 32 bits wide):
//! 1. **Inference** — a generic pointer derived only from pointers of one named space (through
//!    copies, `+`/`-`, bit casts, selects and φs; NULL fits any space) is retyped to that space,
//!    so its accesses compile as before (most code: the front end casts named pointers to
//!    generic ones at calls that are then inlined).
//! 2. **Expansion** — every remaining access through a generic pointer (load, store, atomic,
//!    compare-exchange) goes through the *physical* address of its byte: private addresses are
//!    turned into the word-interleaved location `vlw.v`/`vsw.v` use (ventus-isa.md §3.3:
//!    `PDS + (a & ~3)·N + (a & 3) + 4·(TID + lane)`), the others are used as they are, so one
//!    flat access serves all three spaces without branching.

use super::super::ir::*;
use crate::abi::{LDS_BASE, PROGRAM_BASE};
use crate::isa::regs::csr;

/// Appends to `b` the test "generic pointer `p` addresses space `s`" (an `I1`).
pub fn in_space(f: &mut Func, b: BlockId, p: Value, s: Space) -> Value {
    let a = f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, p));
    match s {
        Space::Private => {
            let lds = f.push(b, Ty::I32, Op::Const(LDS_BASE as u64));
            f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, a, lds))
        }
        Space::Local => {
            let lds = f.push(b, Ty::I32, Op::Const(LDS_BASE as u64));
            let size = f.push(b, Ty::I32, Op::Const((PROGRAM_BASE - LDS_BASE) as u64));
            let off = f.push(b, Ty::I32, Op::Bin(BinOp::Sub, a, lds));
            f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, off, size))
        }
        Space::Global | Space::Constant | Space::Generic => {
            let top = f.push(b, Ty::I32, Op::Const(PROGRAM_BASE as u64 - 1));
            f.push(b, Ty::I1, Op::Cmp(CmpOp::GtU, a, top))
        }
    }
}

/// Infers and expands generic pointers (see the module doc); whether anything changed.
pub fn run(f: &mut Func) -> bool {
    if !f.types.contains(&Ty::Ptr(Space::Generic)) {
        return false;
    }
    infer(f) | expand(f)
}

/// What is known of a generic pointer's space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Known {
    /// Nothing yet (optimistic start; also NULL, which fits any space).
    Any,
    One(Space),
    /// More than one space, or not derivable.
    Many,
}

fn meet(a: Known, b: Known) -> Known {
    match (a, b) {
        (Known::Any, x) | (x, Known::Any) => x,
        (Known::One(s), Known::One(t)) if s == t => a,
        _ => Known::Many,
    }
}

/// Retypes generic pointers whose space is known (contract point 1).
fn infer(f: &mut Func) -> bool {
    let generic = Ty::Ptr(Space::Generic);
    let known_of = |f: &Func, k: &[Known], v: Value| match f.ty(v) {
        Ty::Ptr(Space::Generic) => k[v.0 as usize],
        Ty::Ptr(s) => Known::One(s),
        _ => Known::Any, // an integer operand of `+`
    };
    let mut k: Vec<Known> = f.types.iter().map(|_| Known::Any).collect();
    // Generic values not derived from pointers (loaded, parameters, integers cast to pointers)
    // may be anything.
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        let Some(r) = i.result else { continue };
        if f.ty(r) != generic {
            continue;
        }
        let derived = match &i.op {
            Op::Copy(_) | Op::Bin(BinOp::Add | BinOp::Sub, ..) | Op::Select(..) | Op::Phi(_) => true,
            Op::Conv(ConvOp::Bitcast, p) => matches!(f.ty(*p), Ty::Ptr(_)),
            Op::Const(0) => true,
            _ => false,
        };
        if !derived {
            k[r.0 as usize] = Known::Many;
        }
    }
    loop {
        let mut changed = false;
        for i in f.blocks.iter().flat_map(|b| &b.insts) {
            let Some(r) = i.result else { continue };
            if f.ty(r) != generic || k[r.0 as usize] == Known::Many {
                continue;
            }
            let new = match &i.op {
                Op::Copy(p) | Op::Conv(ConvOp::Bitcast, p) => known_of(f, &k, *p),
                Op::Bin(_, p, q) => meet(known_of(f, &k, *p), known_of(f, &k, *q)),
                Op::Select(_, p, q) => meet(known_of(f, &k, *p), known_of(f, &k, *q)),
                Op::Phi(ins) => ins.iter().fold(Known::Any, |acc, (_, v)| meet(acc, known_of(f, &k, *v))),
                _ => Known::Any,
            };
            let new = meet(k[r.0 as usize], new);
            if new != k[r.0 as usize] {
                k[r.0 as usize] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut changed = false;
    for (v, known) in k.iter().enumerate() {
        if let (Known::One(s), true) = (known, f.types[v] == generic) {
            f.types[v] = Ty::Ptr(*s);
            changed = true;
        }
    }
    changed
}

/// Rewrites the accesses through generic pointers to physical addresses (contract point 2).
fn expand(f: &mut Func) -> bool {
    let generic = Ty::Ptr(Space::Generic);
    let mut changed = false;
    for b in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for mut inst in insts {
            let ptr = match &mut inst.op {
                Op::Load(p) => Some(p),
                Op::Store { ptr, .. }
                | Op::Atomic { ptr, .. }
                | Op::CmpXchg { ptr, .. }
                | Op::CmpXchg64 { ptr, .. } => Some(ptr),
                _ => None,
            };
            if let Some(p) = ptr {
                if f.types[p.0 as usize] == generic {
                    *p = physical(f, &mut out, *p);
                    changed = true;
                }
            }
            out.push(inst);
        }
        f.blocks[b].insts = out;
    }
    changed
}

/// Emits into `out` the physical address of the byte generic pointer `p` addresses.
fn physical(f: &mut Func, out: &mut Vec<Inst>, p: Value) -> Value {
    let mut emit = |f: &mut Func, ty: Ty, op: Op| {
        let v = f.new_value(ty);
        out.push(Inst::new(Some(v), op));
        v
    };
    let a = emit(f, Ty::I32, Op::Conv(ConvOp::Bitcast, p));
    let lds = emit(f, Ty::I32, Op::Const(LDS_BASE as u64));
    let private = emit(f, Ty::I1, Op::Cmp(CmpOp::LtU, a, lds));
    let (numw, numt) = (emit(f, Ty::I32, Op::Csr(csr::NUMW)), emit(f, Ty::I32, Op::Csr(csr::NUMT)));
    let n = emit(f, Ty::I32, Op::Bin(BinOp::Mul, numw, numt));
    let (m3, m4) = (emit(f, Ty::I32, Op::Const(!3u32 as u64)), emit(f, Ty::I32, Op::Const(3)));
    let word = emit(f, Ty::I32, Op::Bin(BinOp::And, a, m3));
    let byte = emit(f, Ty::I32, Op::Bin(BinOp::And, a, m4));
    let rows = emit(f, Ty::I32, Op::Bin(BinOp::Mul, word, n));
    let lane = emit(f, Ty::I32, Op::LaneId);
    let two = emit(f, Ty::I32, Op::Const(2));
    let column = emit(f, Ty::I32, Op::Bin(BinOp::Shl, lane, two));
    let pds = emit(f, Ty::I32, Op::Csr(csr::PDS));
    let s1 = emit(f, Ty::I32, Op::Bin(BinOp::Add, pds, rows));
    let s2 = emit(f, Ty::I32, Op::Bin(BinOp::Add, s1, byte));
    let phys = emit(f, Ty::I32, Op::Bin(BinOp::Add, s2, column));
    let chosen = emit(f, Ty::I32, Op::Select(private, phys, a));
    emit(f, Ty::Ptr(Space::Global), Op::Conv(ConvOp::Bitcast, chosen))
}
