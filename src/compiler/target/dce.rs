//! Dead machine instructions: instruction selection emits some values no instruction reads
//! (an address `p + 4` whose load folded the offset into its immediate, a broadcast a `.vf`
//! form made unnecessary). Before register allocation, every side-effect-free instruction whose
//! result is a virtual register read nowhere in the function is removed, to a fixed point.
//!
//! Side-effect-free: `li`, `la` of .rodata, and the table's ALU formats (scalar integer and FP,
//! vector arithmetic, moves, merges, `vid`) — never loads, stores, atomics, CSR accesses,
//! `vsetvl`, branches, SIMT instructions (`setrpc`, `join`, `barrier`) or calls.

use super::mir::{MFunc, MInst, MOp, Reg};
use crate::isa::format::Fmt;
use crate::isa::Op;
use std::collections::HashMap;

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
        let mut uses: HashMap<Reg, u32> = HashMap::new();
        for i in m.blocks.iter().flat_map(|b| &b.insts) {
            for r in i.uses() {
                *uses.entry(r).or_default() += 1;
            }
        }
        let dead = |i: &MInst| {
            pure(i) && {
                let defs = i.defs();
                !defs.is_empty() && defs.iter().all(|r| r.is_virtual() && !uses.contains_key(r))
            }
        };
        let before: usize = m.blocks.iter().map(|b| b.insts.len()).sum();
        for b in &mut m.blocks {
            b.insts.retain(|i| !dead(i));
        }
        if m.blocks.iter().map(|b| b.insts.len()).sum::<usize>() == before {
            return;
        }
    }
}
