//! CSR instructions (`csrrw`/`csrrs`/`csrrc` and immediate forms), including the per-lane
//! work-item CSRs that read the metadata buffer.

use super::super::fault::Trap;
use super::super::memory::MemView;
use super::super::trace::Tracer;
use super::super::warp::{CsrEffect, Warp};
use super::memops::load_trap;
use super::vector::{vgen, Lanes};
use super::{set_x, Ctx, Flow};
use crate::abi::launch::{self, md};
use crate::isa::regs::csr;
use crate::isa::Op;

/// Reads a local/global id component for the per-lane CSRs 0x80d..0x813 from the metadata buffer
/// (`abi::launch::md`), with the ABI's lane → work-item mapping.
fn lane_csr(w: &Warp, mem: &MemView, num: u16, lane: u32) -> Result<u32, Trap> {
    let md = |off: u32| mem.load(w.csr.knl.wrapping_add(off), 4).map_err(|e| load_trap(e, None));
    let words = |base: u32| -> Result<[u32; 3], Trap> { Ok([md(base)?, md(base + 4)?, md(base + 8)?]) };
    let local_size = words(md::LC_SIZE)?.map(|v| v.max(1));
    let local = launch::local_id(w.csr.tid + lane, local_size);
    let global = |offset: [u32; 3]| launch::global_id(w.csr.gid, local_size, local, offset);
    Ok(match num {
        csr::LC_ID_X => local[0],
        csr::LC_ID_Y => local[1],
        csr::LC_ID_Z => local[2],
        csr::GL_ID_X => global(words(md::GL_OFFSET)?)[0],
        csr::GL_ID_Y => global(words(md::GL_OFFSET)?)[1],
        csr::GL_ID_Z => global(words(md::GL_OFFSET)?)[2],
        _ => {
            // Global linear id: (gz * GY + gy) * GX + gx without offsets.
            let [gx, gy, _] = words(md::GL_SIZE)?;
            let g = global([0; 3]);
            (g[2].wrapping_mul(gy).wrapping_add(g[1])).wrapping_mul(gx).wrapping_add(g[0])
        }
    })
}

/// csrrw/csrrs/csrrc and their immediate forms.
#[inline(always)]
pub fn csr_op<T: Tracer>(w: &mut Warp, ctx: &Ctx, t: &mut T, d: &super::Decoded, op: Op) -> Result<Flow, Trap> {
    let num = d.imm as u16;
    let src = match op {
        Op::Csrrwi | Op::Csrrsi | Op::Csrrci => d.rs1 as u32,
        _ => w.x[d.rs1 as usize],
    };
    let writes = matches!(op, Op::Csrrw | Op::Csrrwi) || d.rs1 != 0;
    if (csr::GL_ID_X..=csr::LC_ID_Z).contains(&num) {
        // Per-lane "vector CSRs" of the newest ABI: read into v[rd]; writes are forbidden.
        if writes {
            return Err(Trap::illegal(d.word));
        }
        let m = w.mask;
        let mut vals: Lanes = [0; 32];
        for (i, v) in vals.iter_mut().enumerate() {
            if (m >> i) & 1 != 0 {
                *v = lane_csr(w, ctx.mem, num, i as u32)?;
            }
        }
        vgen(w, t, m, d.rd, |i| vals[i]);
        return Ok(Flow::Next);
    }
    let old = w.read_csr(num).ok_or(Trap::illegal(d.word))?;
    let mut flow = Flow::Next;
    if writes {
        let new = match op {
            Op::Csrrw | Op::Csrrwi => src,
            Op::Csrrs | Op::Csrrsi => old | src,
            _ => old & !src,
        };
        if num >> 10 == 3 {
            return Err(Trap::illegal(d.word)); // read-only CSR
        }
        if let CsrEffect::Print(v) = w.write_csr(num, new, d.word)? {
            flow = Flow::Print(v);
        }
        if T::ENABLED {
            t.csr_write(num, w.read_csr(num).unwrap_or(new));
        }
    }
    set_x(w, t, d.rd, old);
    Ok(flow)
}
