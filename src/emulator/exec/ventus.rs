//! The Ventus custom unit: SIMT control (divergent branches, `join`, `setrpc`, `barrier`,
//! `endprg`), `regext` prefixes, private- and flat-memory vector accesses and the 12-bit
//! immediate vector add/subtract.

use super::*;

/// Executes `d` (an instruction of this unit) for warp `w`.
#[inline(always)]
pub(super) fn ventus<T: Tracer>(w: &mut Warp, d: &Decoded, ctx: &Ctx, t: &mut T, op: Op) -> Result<Flow, Trap> {
    let pc = w.pc;
    let mut next = pc.wrapping_add(4);
    let (rd, rs1, rs2) = (d.rd, d.rs1, d.rs2);
    let x1 = w.x[rs1 as usize];
    let imm = d.imm as u32;
    let mut flow = Flow::Next;
    match op {
        // ---- Ventus custom ----------------------------------------------------------------------------
        Op::Vadd12Vi => {
            let m = w.vmask();
            let s1 = w.v[rs1 as usize];
            vgen(w, t, m, rd, |i| s1[i].wrapping_add(imm))
        }
        Op::Vsub12Vi => {
            let m = w.vmask();
            let s1 = w.v[rs1 as usize];
            vgen(w, t, m, rd, |i| s1[i].wrapping_sub(imm))
        }
        Op::Regext | Op::Regexti => w.ext = d.next_ext,
        Op::Endprg => flow = Flow::Endprg,
        Op::Barrier => flow = Flow::Barrier,
        Op::Barriersub => {}
        Op::VfttaVv => {
            let m = vector_lanes(w, d)?;
            memops::vftta(w, t, m, rd, rs2, rs1);
        }
        Op::VfexpV => {
            let m = vector_lanes(w, d)?;
            vunary(w, t, m, rd, rs2, s::fexp)
        }
        Op::VlbV | Op::VlhV | Op::VlwV | Op::VlbuV | Op::VlhuV => {
            memops::private_load(w, ctx.mem, t, d, op)?;
        }
        Op::VsbV | Op::VshV | Op::VswV => memops::private_store(w, ctx.mem, t, d, op)?,
        Op::Vlb12V | Op::Vlh12V | Op::Vlw12V | Op::Vlbu12V | Op::Vlhu12V => {
            memops::flat_load(w, ctx.mem, t, d, op)?;
        }
        Op::Vsb12V | Op::Vsh12V | Op::Vsw12V => memops::flat_store(w, ctx.mem, t, d, op)?,
        Op::Vbeq | Op::Vbne | Op::Vblt | Op::Vbge | Op::Vbltu | Op::Vbgeu => {
            need_v(w, d)?;
            let a = w.v[rs2 as usize];
            let b = w.v[rs1 as usize];
            let taken_lane = |i: usize| match op {
                Op::Vbeq => a[i] == b[i],
                Op::Vbne => a[i] != b[i],
                Op::Vblt => (a[i] as i32) < (b[i] as i32),
                Op::Vbge => (a[i] as i32) >= (b[i] as i32),
                Op::Vbltu => a[i] < b[i],
                _ => a[i] >= b[i],
            };
            let r_mask = w.mask;
            let active = w.vmask();
            let mut taken = 0u32;
            for i in 0..32 {
                if (active >> i) & 1 != 0 && taken_lane(i) {
                    taken |= 1 << i;
                }
            }
            let fall = !taken & r_mask;
            let target = pc.wrapping_add(imm);
            let rpc = w.csr.rpc;
            let wm = w.width_mask;
            if taken & wm == 0 {
                w.mask = fall & wm;
            } else if fall & wm == 0 {
                w.mask = taken & wm;
                next = target;
            } else {
                w.divergent_branches += 1;
                w.simt_push(SimtEntry { r_pc: rpc, else_pc: rpc, else_mask: r_mask });
                if fall.count_ones() < taken.count_ones() {
                    w.simt_push(SimtEntry { r_pc: rpc, else_pc: target, else_mask: taken });
                    w.mask = fall & wm;
                } else {
                    w.simt_push(SimtEntry { r_pc: rpc, else_pc: next, else_mask: fall });
                    w.mask = taken & wm;
                    next = target;
                }
            }
        }
        Op::Join => {
            if let Some(top) = w.simt_top() {
                if top.r_pc == pc {
                    next = top.else_pc;
                    w.mask = top.else_mask;
                    w.simt_pop();
                }
            }
        }
        Op::Setrpc => {
            let v = x1.wrapping_add(imm);
            w.csr.rpc = v;
            set_x(w, t, rd, v);
            if T::ENABLED {
                t.csr_write(crate::isa::regs::csr::RPC, v);
            }
        }
        _ => return Err(Trap::illegal(d.word)), // not this unit's (the dispatcher never sends one)
    }
    w.pc = next;
    Ok(flow)
}
