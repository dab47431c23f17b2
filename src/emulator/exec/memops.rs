//! Memory instruction bodies: scalar and vector loads and stores, private-memory and
//! `vl*12`/`vs*12` forms, and the per-lane AMOs (kept out of the dispatch `match` for size).

use super::super::fault::{FaultKind, Trap};
use super::super::memory::{MemError, MemView};
use super::super::trace::Tracer;
use super::super::warp::Warp;
use super::vector::{blend, lanes, trace_v, vgen, Lanes};
use crate::isa::semantics as s;
use crate::isa::Op;

/// The trap of a failed access (`write`: a store or AMO write).
#[inline(always)]
fn access_trap(e: MemError, lane: Option<u32>, write: bool) -> Trap {
    let (kind, addr) = match e {
        MemError::Unmapped(a) => (if write { FaultKind::StoreAccess } else { FaultKind::LoadAccess }, a),
        MemError::Misaligned(a) => (if write { FaultKind::StoreMisaligned } else { FaultKind::LoadMisaligned }, a),
        // A read of a read-only page cannot fail for its permission; only writes can.
        MemError::ReadOnly(a) => (if write { FaultKind::StoreReadOnly } else { FaultKind::LoadAccess }, a),
        MemError::Checked { addr, bytes } => (FaultKind::MemCheck { write, bytes }, addr),
        MemError::Unwritten { addr, bytes } => (FaultKind::Unwritten { bytes }, addr),
    };
    Trap { kind, addr: Some(addr), lane }
}
#[inline(always)]
pub(super) fn load_trap(e: MemError, lane: Option<u32>) -> Trap {
    access_trap(e, lane, false)
}
#[inline(always)]
fn store_trap(e: MemError, lane: Option<u32>) -> Trap {
    access_trap(e, lane, true)
}

/// Scalar load (zero-extended; the caller sign-extends).
#[inline(always)]
pub fn load<T: Tracer>(mem: &MemView, t: &mut T, addr: u32, bytes: u32) -> Result<u32, Trap> {
    let v = mem.load(addr, bytes).map_err(|e| load_trap(e, None))?;
    if T::ENABLED {
        t.load(addr);
    }
    Ok(v)
}

/// Scalar store.
#[inline(always)]
pub fn store<T: Tracer>(mem: &MemView, t: &mut T, addr: u32, value: u32, bytes: u32) -> Result<(), Trap> {
    mem.store(addr, value, bytes).map_err(|e| store_trap(e, None))?;
    if T::ENABLED {
        let m = if bytes == 4 { u32::MAX } else { (1 << (8 * bytes)) - 1 };
        t.store(addr, value & m, bytes as u8);
    }
    Ok(())
}

/// Per-lane atomic read-modify-write: for each active lane in ascending order,
/// `old = mem[vs1[i]]; mem[vs1[i]] = op(old, vs2[i]); vd[i] = old`. `amocas.w` compares with the
/// old `vd[i]` and stores `vs2[i]` when equal.
pub fn vector_amo<T: Tracer>(w: &mut Warp, mem: &MemView, t: &mut T, d: &super::Decoded, op: Op) -> Result<(), Trap> {
    let m = w.vmask();
    let (rd, rs1, rs2) = (d.rd as usize, d.rs1 as usize, d.rs2 as usize);
    let mut result = Ok(());
    for i in active_lanes(m) {
        let lane = i as usize;
        let (addr, val, expected) = (w.v[rs1][lane], w.v[rs2][lane], w.v[rd][lane]);
        let f = move |o: u32| match op {
            Op::AmoswapW => val,
            Op::AmoaddW => o.wrapping_add(val),
            Op::AmoxorW => o ^ val,
            Op::AmoandW => o & val,
            Op::AmoorW => o | val,
            Op::AmominW => s::min(o, val),
            Op::AmomaxW => s::max(o, val),
            Op::AmominuW => o.min(val),
            Op::AmomaxuW => o.max(val),
            _ => {
                if o == expected {
                    val
                } else {
                    o
                }
            }
        };
        match mem.rmw(addr, f) {
            Ok(old) => {
                w.v[rd][lane] = old;
                if T::ENABLED {
                    t.load(addr);
                    t.store(addr, f(old), 4);
                }
            }
            Err(e) => {
                result = Err(store_trap(e, Some(i)));
                break;
            }
        }
    }
    trace_v(w, t, d.rd);
    result
}

/// Per-lane 64-bit compare-and-swap (`amocas.d vd, vs2, (vs1)`): for each active lane in
/// ascending order, `old = mem64[vs1[i]]; if old == vd:vd+1 { mem64[vs1[i]] = vs2:vs2+1 };
/// vd:vd+1 = old` (low word in the even register). The address must be 8-byte aligned (else a
/// misaligned store/AMO fault, as for the other AMOs); an odd `vd` or `vs2` is an illegal
/// instruction (Zacas reserves odd register pairs).
pub fn vector_amocas_d<T: Tracer>(w: &mut Warp, mem: &MemView, t: &mut T, d: &super::Decoded) -> Result<(), Trap> {
    let (rd, rs1, rs2) = (d.rd as usize, d.rs1 as usize, d.rs2 as usize);
    if rd & 1 != 0 || rs2 & 1 != 0 {
        return Err(Trap::illegal(d.word));
    }
    let m = w.vmask();
    let mut result = Ok(());
    for i in active_lanes(m) {
        let lane = i as usize;
        let addr = w.v[rs1][lane];
        let pair = |r: usize| u64::from(w.v[r][lane]) | u64::from(w.v[r + 1][lane]) << 32;
        let (expected, new) = (pair(rd), pair(rs2));
        match mem.cas64(addr, expected, new) {
            Ok(old) => {
                w.v[rd][lane] = old as u32;
                w.v[rd + 1][lane] = (old >> 32) as u32;
                if T::ENABLED {
                    t.load(addr);
                    t.load(addr.wrapping_add(4));
                    if old == expected {
                        t.store(addr, new as u32, 4);
                        t.store(addr.wrapping_add(4), (new >> 32) as u32, 4);
                    }
                }
            }
            Err(e) => {
                result = Err(store_trap(e, Some(i)));
                break;
            }
        }
    }
    trace_v(w, t, d.rd);
    trace_v(w, t, d.rd + 1);
    result
}

/// Iterates the set bits of `m` in ascending order.
#[inline(always)]
fn active_lanes(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros();
            m &= m - 1;
            Some(i)
        }
    })
}

#[inline(always)]
fn extend(v: u32, op: Op) -> u32 {
    match op {
        Op::VlbV | Op::Vlb12V => v as u8 as i8 as i32 as u32,
        Op::VlhV | Op::Vlh12V => v as u16 as i16 as i32 as u32,
        _ => v,
    }
}
#[inline(always)]
fn width(op: Op) -> u32 {
    match op {
        Op::VlbV | Op::VlbuV | Op::VsbV | Op::Vlb12V | Op::Vlbu12V | Op::Vsb12V => 1,
        Op::VlhV | Op::VlhuV | Op::VshV | Op::Vlh12V | Op::Vlhu12V | Op::Vsh12V => 2,
        _ => 4,
    }
}

// The arguments are the instruction's operands plus the address function; bundling them would only
// move the same list into a struct.
#[allow(clippy::too_many_arguments)]
/// Per-lane loads: `addr(i)` gives each active lane's address; results are written lane by lane
/// (a fault leaves earlier lanes written, as in the reference).
#[inline(always)]
fn lane_loads<T: Tracer>(
    w: &mut Warp,
    mem: &MemView,
    t: &mut T,
    m: u32,
    rd: u8,
    bytes: u32,
    op: Op,
    addr: impl Fn(&Warp, u32) -> u32,
) -> Result<(), Trap> {
    if !T::ENABLED {
        let addrs = lanes(|i| addr(w, i as u32));
        if m == u32::MAX && bytes == 4 {
            if let Some(words) = mem.unit_stride(&addrs, false) {
                crate::emulator::bulk::load32(words, &mut w.v[rd as usize], mem.wide_copies());
                return Ok(());
            }
        }
        if let Some(v) = mem.load_lanes(&addrs, m, bytes) {
            let r = lanes(|i| extend(v[i], op));
            blend(&mut w.v[rd as usize], &r, m);
            return Ok(());
        }
    }
    let mut result = Ok(());
    for i in active_lanes(m) {
        let a = addr(w, i);
        match mem.load(a, bytes) {
            Ok(v) => {
                w.v[rd as usize][i as usize] = extend(v, op);
                if T::ENABLED {
                    t.load(a);
                }
            }
            Err(e) => {
                result = Err(load_trap(e, Some(i)));
                break;
            }
        }
    }
    trace_v(w, t, rd);
    result
}

#[inline(always)]
fn lane_stores<T: Tracer>(
    w: &Warp,
    mem: &MemView,
    t: &mut T,
    m: u32,
    data: u8,
    bytes: u32,
    addr: impl Fn(&Warp, u32) -> u32,
) -> Result<(), Trap> {
    if !T::ENABLED {
        let addrs = lanes(|i| addr(w, i as u32));
        if m == u32::MAX && bytes == 4 {
            if let Some(words) = mem.unit_stride(&addrs, true) {
                crate::emulator::bulk::store32(&w.v[data as usize], words, mem.wide_copies());
                return Ok(());
            }
        }
        if mem.store_lanes(&addrs, &w.v[data as usize], m, bytes) {
            return Ok(());
        }
    }
    for i in active_lanes(m) {
        let a = addr(w, i);
        let v = w.v[data as usize][i as usize];
        mem.store(a, v, bytes).map_err(|e| store_trap(e, Some(i)))?;
        if T::ENABLED {
            let mask = if bytes == 4 { u32::MAX } else { (1 << (8 * bytes)) - 1 };
            t.store(a, v & mask, bytes as u8);
        }
    }
    Ok(())
}

/// Flat loads `vl*12.v vd, imm(vs1)`.
#[inline(always)]
pub fn flat_load<T: Tracer>(w: &mut Warp, mem: &MemView, t: &mut T, d: &super::Decoded, op: Op) -> Result<(), Trap> {
    let (rs1, imm) = (d.rs1 as usize, d.imm as u32);
    let m = w.vmask();
    lane_loads(w, mem, t, m, d.rd, width(op), op, |w, i| w.v[rs1][i as usize].wrapping_add(imm))
}

/// Flat stores `vs*12.v vs2, imm(vs1)`.
#[inline(always)]
pub fn flat_store<T: Tracer>(w: &mut Warp, mem: &MemView, t: &mut T, d: &super::Decoded, op: Op) -> Result<(), Trap> {
    let (rs1, imm) = (d.rs1 as usize, d.imm as u32);
    let m = w.vmask();
    lane_stores(w, mem, t, m, d.rs2, width(op), |w, i| w.v[rs1][i as usize].wrapping_add(imm))
}

/// Private-memory address of lane `i` (ventus-isa.md §3.3): word-interleaved across the
/// work-group's threads; word accesses drop the low two bits.
#[inline(always)]
fn private_addr(w: &Warp, base_reg: usize, imm: u32, i: u32, word: bool) -> u32 {
    let a = w.v[base_reg][i as usize].wrapping_add(imm);
    let n = w.csr.numw.wrapping_mul(w.csr.numt);
    let low = if word { 0 } else { a & 3 };
    w.csr
        .pds
        .wrapping_add((a & !3).wrapping_mul(n))
        .wrapping_add(low)
        .wrapping_add(4u32.wrapping_mul(w.csr.tid.wrapping_add(i)))
}

#[inline(always)]
pub fn private_load<T: Tracer>(w: &mut Warp, mem: &MemView, t: &mut T, d: &super::Decoded, op: Op) -> Result<(), Trap> {
    let (rs1, imm) = (d.rs1 as usize, d.imm as u32);
    let m = w.vmask();
    let bytes = width(op);
    lane_loads(w, mem, t, m, d.rd, bytes, op, |w, i| private_addr(w, rs1, imm, i, bytes == 4))
}

#[inline(always)]
pub fn private_store<T: Tracer>(
    w: &mut Warp,
    mem: &MemView,
    t: &mut T,
    d: &super::Decoded,
    op: Op,
) -> Result<(), Trap> {
    let (rs1, imm) = (d.rs1 as usize, d.imm as u32);
    let m = w.vmask();
    let bytes = width(op);
    lane_stores(w, mem, t, m, d.rs2, bytes, |w, i| private_addr(w, rs1, imm, i, bytes == 4))
}

/// Standard RVV loads with EEW = 32: unit-stride, strided, indexed.
pub fn vector_load<T: Tracer>(
    w: &mut Warp,
    mem: &MemView,
    t: &mut T,
    d: &super::Decoded,
    op: Op,
    m: u32,
) -> Result<(), Trap> {
    let base = w.x[d.rs1 as usize];
    let stride = w.x[d.rs2 as usize];
    let idx = d.rs2 as usize;
    lane_loads(w, mem, t, m, d.rd, 4, op, |w, i| match op {
        Op::Vle32V => base.wrapping_add(4 * i),
        Op::Vlse32V => base.wrapping_add(stride.wrapping_mul(i)),
        _ => base.wrapping_add(w.v[idx][i as usize]),
    })
}

/// Standard RVV stores with EEW = 32 (data register in bits 11:7).
pub fn vector_store<T: Tracer>(
    w: &mut Warp,
    mem: &MemView,
    t: &mut T,
    d: &super::Decoded,
    op: Op,
    m: u32,
) -> Result<(), Trap> {
    let base = w.x[d.rs1 as usize];
    let stride = w.x[d.rs2 as usize];
    let idx = d.rs2 as usize;
    lane_stores(w, mem, t, m, d.rd, 4, |w, i| match op {
        Op::Vse32V => base.wrapping_add(4 * i),
        Op::Vsse32V => base.wrapping_add(stride.wrapping_mul(i)),
        _ => base.wrapping_add(w.v[idx][i as usize]),
    })
}

/// `vftta.vv` (test-only tensor op, ventus-isa.md §3.3).
pub fn vftta<T: Tracer>(w: &mut Warp, t: &mut T, m: u32, vd: u8, vs2: u8, vs1: u8) {
    let n = w.csr.vl as usize;
    let (a, b, dst) = (w.v[vs1 as usize], w.v[vs2 as usize], w.v[vd as usize]);
    let r: Lanes = std::array::from_fn(|i| {
        if i >= n / 2 {
            (i + 7) as u32
        } else {
            let mut acc = dst[i];
            for j in 0..n / 4 {
                let (x, y) = (a.get((i >> 2) * 8 + j), b.get((i & 3) * 8 + j));
                if let (Some(&x), Some(&y)) = (x, y) {
                    acc = s::fmadd(x, y, acc);
                }
            }
            acc
        }
    });
    vgen(w, t, m, vd, |i| r[i]);
}
