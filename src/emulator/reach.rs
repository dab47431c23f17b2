//! Which registers a launch can write: the instructions reachable from crt0 and the kernel's
//! entry, walked over the predecoded text ([`Program::launch_reg_bounds`]). A program holding
//! several kernels then resets, per work-group, only the registers of the kernel it runs (the
//! reset clears what the previous work-group may have written, [`Warp::reset`]).
//!
//! The walk follows fall-through, branch targets (scalar and vector), `jal`, `auipc`+`jalr`
//! calls and jumps, returns (`jalr x0, 0(ra)`: no successor; a call continues after itself) and
//! reconvergence points (`auipc`+`setrpc`; `join` continues after itself or at a recorded
//! target). It gives up — the caller uses the whole program's bounds — at anything it cannot
//! follow: an indirect jump or call whose target is not an `auipc` pair (except in the code
//! reached from crt0's start, whose one indirect call is the kernel entry by the ABI,
//! driver-abi.md), a `setrpc` not paired with `auipc`, a CSR instruction on `rpc`, or
//! `mret` (`ecall`/`ebreak` trap: no successor). Debug builds check the result on every launch's first work-group
//! ([`Warp::check_bounds`]).
//!
//! [`Warp::reset`]: super::warp::Warp::reset
//! [`Warp::check_bounds`]: super::warp::Warp::check_bounds

use super::program::{Program, RegBounds};
use crate::isa::regs::csr;
use crate::isa::{Fmt, Op};

impl Program {
    /// The registers a launch can write that starts at `start` (crt0) and calls the kernel at
    /// `entry`: those written by the instructions reachable from them ([`walk`]), or
    /// [`Program::reg_bounds`] when the walk cannot follow the code. Computed once per
    /// (start, entry) and kept with the program.
    pub fn launch_reg_bounds(&self, start: u32, entry: u32) -> RegBounds {
        self.launch_reg_bounds_with(start, entry, || walk(self, start, entry))
    }
}

/// Walks the code reachable from `start` (crt0) and `entry`; `None` when some control transfer
/// cannot be followed.
pub(super) fn walk(p: &Program, start: u32, entry: u32) -> Option<RegBounds> {
    let ops = p.ops();
    let n = ops.len();
    let index = |pc: u32| {
        let off = pc.wrapping_sub(p.text_base());
        (off & 3 == 0 && ((off >> 2) as usize) < n).then_some((off >> 2) as usize)
    };
    let mut seen = vec![false; n];
    let mut bounds = RegBounds::NONE;
    // Pass 0 from crt0 (its register call is the kernel entry), pass 1 from the entry.
    for (pass, root) in [start, entry].into_iter().enumerate() {
        let mut work: Vec<usize> = index(root).into_iter().collect();
        while let Some(i) = work.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            // A host call writes its result registers; one whose code may run (traced, or
            // after declining): walk the code as well.
            let d = match p.host_call(ops[i].host_call) {
                Some(call) => {
                    bounds.v = bounds.v.union(call.vregs());
                    if call.replaces_code() {
                        &ops[i]
                    } else {
                        p.host_call_original(ops[i].host_call).unwrap_or(&ops[i])
                    }
                }
                None => &ops[i],
            };
            let pc = p.text_base().wrapping_add(4 * i as u32);
            bounds.add_writes(d);
            let mut ext = d.next_ext;
            while ext != super::program::NO_EXT {
                let e = p.extended(ext);
                bounds.add_writes(e);
                ext = e.next_ext;
            }
            let Some(op) = d.op else { continue }; // a host call returns; an illegal word traps
            let next = (i + 1 < n).then_some(i + 1);
            // The target of an `auipc rs1` + this instruction pair.
            let paired = |rs1: u8, imm: i32| -> Option<u32> {
                if rs1 == 0 {
                    return Some(imm as u32);
                }
                let prev = ops.get(i.checked_sub(1)?)?;
                (prev.op == Some(Op::Auipc) && prev.rd == rs1)
                    .then(|| pc.wrapping_sub(4).wrapping_add(prev.imm as u32).wrapping_add(imm as u32))
            };
            match op.desc().fmt {
                Fmt::J => {
                    work.extend(index(pc.wrapping_add(d.imm as u32)));
                    if d.rd != 0 {
                        work.extend(next);
                    }
                }
                Fmt::Jalr => {
                    if d.rd == 0 && d.rs1 == 1 && d.imm == 0 {
                        continue; // return
                    }
                    match paired(d.rs1, d.imm) {
                        Some(t) => work.extend(index(t & !1)),
                        None if pass == 0 && d.rd != 0 => {}
                        None => return None,
                    }
                    if d.rd != 0 {
                        work.extend(next);
                    }
                }
                Fmt::B | Fmt::VBranch => {
                    work.extend(index(pc.wrapping_add(d.imm as u32)));
                    work.extend(next);
                }
                Fmt::Csr | Fmt::CsrI if d.imm as u16 & 0xfff == csr::RPC => return None,
                _ => match op {
                    Op::Setrpc => {
                        work.extend(index(paired(d.rs1, d.imm)?));
                        work.extend(next);
                    }
                    Op::Ecall | Op::Ebreak => {} // traps: the launch fails or the group ends
                    Op::Mret => return None,
                    _ => work.extend(next),
                },
            }
        }
    }
    Some(bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::program::{LoadSegment, VRegSet};

    /// Assembles `src` at 0x8000_0000; returns the program and its labels.
    fn asm(src: &str) -> (Program, std::collections::BTreeMap<String, u32>) {
        let a = crate::isa::asm::assemble(src, 0x8000_0000).unwrap();
        let data = a.words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>();
        let n = data.len() as u32;
        let seg = LoadSegment { vaddr: 0x8000_0000, data, mem_size: n, writable: false };
        (Program::new(vec![seg], &[(0x8000_0000, 0x8000_0000 + n)]).unwrap(), a.labels)
    }

    const CRT0: &str = "
        _start: lw t1, 0(a0)
                jalr t1
                endprg x0, x0, x0
        halt:   j halt
    ";

    #[test]
    fn kernels_of_one_program_get_their_own_bounds() {
        let (p, l) = asm(&format!(
            "{CRT0}
            small:  vadd.vv v2, v1, v1
                    call helper
                    beq a0, zero, ok
                    ebreak
            ok:     ret
            helper: vadd.vv v5, v1, v1
                    ret
            big:    vadd.vv v30, v1, v1
                    addi s11, zero, 1
                    ret"
        ));
        let b = p.launch_reg_bounds(0x8000_0000, l["small"]);
        let v = |regs: &[usize]| regs.iter().fold(VRegSet::EMPTY, |s, &r| s.union(VRegSet::range(r, r + 1)));
        assert_eq!(b, RegBounds { x: 6 + 1, v: v(&[2, 5]) }, "crt0's t1/ra/t0 (x6), v2 and the called helper's v5");
        let b = p.launch_reg_bounds(0x8000_0000, l["big"]);
        assert_eq!(b, RegBounds { x: 27 + 1, v: v(&[30]) });
        assert_eq!(p.reg_bounds(), RegBounds { x: 27 + 1, v: v(&[2, 5, 30]) });
    }

    #[test]
    fn branches_and_reconvergence_points_are_followed() {
        let (p, l) = asm(&format!(
            "{CRT0}
            k:      vbne v1, v0, else
                    vadd.vv v3, v1, v1
            rpc:    auipc t1, 0
                    setrpc zero, t1, 16
                    join
                    ret
                    vadd.vv v9, v1, v1
                    ret
            else:   beq a0, zero, far
                    join
            far:    vadd.vv v7, v1, v1
                    ret
            other:  vadd.vv v28, v1, v1
                    ret"
        ));
        let b = p.launch_reg_bounds(0x8000_0000, l["k"]);
        assert!(b.v.contains(9) && b.v.contains(3) && b.v.contains(7), "the setrpc target (auipc + 16) is reached");
        assert!(!b.v.contains(28), "`other` is not");
    }

    #[test]
    fn code_it_cannot_follow_gets_the_programs_bounds() {
        for body in ["jalr a5", "jr a5", "csrw 0x80c, a0", "auipc t1, 0\nsetrpc zero, a3, 8", "mret"] {
            let (p, l) = asm(&format!(
                "{CRT0}
                k:  {body}
                    ret
                x:  vadd.vv v28, v1, v1
                    ret"
            ));
            assert_eq!(p.launch_reg_bounds(0x8000_0000, l["k"]), p.reg_bounds(), "{body}");
        }
    }
}
