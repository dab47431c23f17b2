//! Dead machine instructions: instruction selection emits some values no instruction reads
//! (an address `p + 4` whose load folded the offset into its immediate). Before register allocation, every side-effect-free instruction whose
//! result is a virtual register read nowhere in the function is removed, to a fixed point.
//!
//! Side-effect-free: `li`, `la` of .rodata, and the table's ALU formats (scalar integer and FP,
//! vector arithmetic, moves, merges, `vid`) — never loads, stores, atomics, CSR accesses,
//! `vsetvl`, branches, SIMT instructions (`setrpc`, `join`, `barrier`) or calls.

use super::mir::{MFunc, MInst, MOp, Reg};
use crate::isa::format::Fmt;
use crate::isa::Op;
use std::collections::HashSet;

fn pure(i: &MInst) -> bool {
    match i.op {
        MOp::Li | MOp::LaRodata => true,
        MOp::I(Op::Setrpc | Op::Vsetvl) => false,
        MOp::I(op) => matches!(
            op.desc().fmt,
            Fmt::U
                | Fmt::I
                | Fmt::Shamt
                | Fmt::R
                | Fmt::R4
                | Fmt::FRm
                | Fmt::F1Rm
                | Fmt::F1
                | Fmt::VV
                | Fmt::VX
                | Fmt::VF
                | Fmt::VI
                | Fmt::VIu
                | Fmt::VMacV
                | Fmt::VMacX
                | Fmt::VMacF
                | Fmt::VMvV
                | Fmt::VMvX
                | Fmt::VMvF
                | Fmt::VMvI
                | Fmt::VMerge
                | Fmt::VMvXS
                | Fmt::VUnary
                | Fmt::VId
                | Fmt::VI12
        ),
        _ => false,
    }
}

/// Removes the dead instructions of `m` (see the module doc).
pub fn remove_dead(m: &mut MFunc) {
    loop {
        let read: HashSet<Reg> = m.blocks.iter().flat_map(|b| &b.insts).flat_map(|i| i.uses()).collect();
        let dead = |i: &MInst| {
            pure(i) && {
                let defs = i.defs();
                !defs.is_empty() && defs.iter().all(|r| r.is_virtual() && !read.contains(r))
            }
        };
        let mut changed = false;
        for b in &mut m.blocks {
            let n = b.insts.len();
            b.insts.retain(|i| !dead(i));
            changed |= b.insts.len() != n;
        }
        if !changed {
            return;
        }
    }
}
