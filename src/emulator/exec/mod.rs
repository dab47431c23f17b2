//! Executes one instruction of one warp: the emulator's hot loop body. It allocates and formats
//! nothing; tracing hooks compile away for [`NoTrace`](super::trace::NoTrace).
//!
//! Semantics follow ventus-isa.md (the reference simulator); scalar instructions execute once per
//! warp regardless of the SIMT mask, vector instructions on the active lanes below `vl`.
//!
//! [`step`] hands the instruction to the handler of its unit — the section of the ISA table it
//! belongs to ([`Unit`]): `scalar` (RV32I, Zicsr, M, A, F), `vint` (RVV configuration, memory
//! and integer), `vfp` (RVV floating point) and `ventus` (the custom instructions: SIMT control,
//! private and flat memory). Each handler is one `match` over its instructions, one line per
//! instruction where the operation is a lane function (`vv!(u32::wrapping_add)`); traced
//! turns inline them into the turn loop ([`super::turn`]); untraced turns call one function per
//! instruction through a table ([`handlers`]). Longer bodies live beside
//! them: [`memops`] (memory and AMOs), `csr` (CSR instructions), `fp` (scalar FP), [`vector`]
//! (lane loops) and [`vsetvl`].

mod csr;
mod fp;
pub mod handlers;
mod memops;
mod scalar;
pub mod vector;
mod ventus;
mod vfp;
mod vint;

use super::fault::{FaultKind, Trap};
use super::memory::MemView;
use super::program::{Decoded, Program, Sharing, NO_EXT};
use super::trace::Tracer;
use super::warp::{mstatus, SimtEntry, Warp};
use crate::isa::semantics as s;
use crate::isa::{Op, Unit};
use vector::*;

/// What the work-group scheduler must do after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Next,
    /// A `barrier`: the scheduler decides whether the warp passes (pc += 4) or spins.
    Barrier,
    /// `endprg`: the warp is finished.
    Endprg,
    /// `CSR_PRINT` was written.
    Print(u32),
    /// The warp reached a host call ([`Decoded::host_call`] id); the pc is unchanged.
    HostCall(u8),
}

/// Read-only launch facts an instruction may need.
pub struct Ctx<'a> {
    pub prog: &'a Program,
    pub mem: &'a MemView<'a>,
    /// The launch's work-groups have one warp each: there are no other warps' turns to keep
    /// an order with (work-groups on other host threads keep none), so every instruction may
    /// run ahead ([`private`]).
    pub lone: bool,
}

/// `d` may run ahead of the other warps' turns: the warp is its work-group's only one, or `d`
/// is private, a scalar load from memory no kernel store can change, or a scalar load or store
/// in the warp's own uniform stack.
#[inline(always)]
pub(crate) fn private(w: &Warp, d: &Decoded, ctx: &Ctx) -> bool {
    if ctx.lone {
        return true;
    }
    let addr = || w.x[d.rs1 as usize].wrapping_add(d.imm as u32);
    match d.sharing {
        Sharing::Private => true,
        Sharing::Shared => false,
        Sharing::ScalarLoad => {
            let a = addr();
            ctx.mem.is_read_only(a) || ctx.mem.in_warp_stack(w.csr.lds, w.csr.wid, a)
        }
        Sharing::ScalarStore => ctx.mem.in_warp_stack(w.csr.lds, w.csr.wid, addr()),
    }
}

#[inline(always)]
fn set_x<T: Tracer>(w: &mut Warp, t: &mut T, rd: u8, v: u32) {
    if rd != 0 {
        w.x[rd as usize] = v;
        if T::ENABLED {
            t.x_write(rd, v);
        }
    }
}

/// FP operand read from the zfinx mirror: x0 reads as the canonical NaN (FPR0 is not NaN-boxed).
#[inline(always)]
fn fx(w: &Warp, r: u8) -> u32 {
    if r == 0 {
        s::CANONICAL_NAN
    } else {
        w.x[r as usize]
    }
}

/// Fetches the entry for the warp's pc (or its pending prefixed variant), consuming the prefix.
#[inline(always)]
pub fn fetch<'p>(w: &mut Warp, prog: &'p Program) -> Result<&'p Decoded, Trap> {
    let d = peek(w, prog);
    w.ext = NO_EXT;
    d
}

/// The entry the warp executes next — its pending prefixed variant, else the one at its pc —
/// leaving the prefix state in place (the work-group runner looks before it steps).
#[inline(always)]
pub fn peek<'p>(w: &Warp, prog: &'p Program) -> Result<&'p Decoded, Trap> {
    if w.ext != NO_EXT {
        return Ok(prog.extended(w.ext));
    }
    prog.fetch(w.pc).ok_or_else(|| {
        let kind = if w.pc & 3 != 0 { FaultKind::FetchMisaligned } else { FaultKind::FetchAccess };
        Trap { kind, addr: Some(w.pc), lane: None }
    })
}

/// Executes the entry that host call `id`'s marker (at the warp's pc) replaced: a traced run,
/// or a call that declined, runs the function's code from its first instruction. An illegal
/// instruction if there is none.
pub fn host_call_code<T: Tracer>(w: &mut Warp, id: u8, ctx: &Ctx, t: &mut T) -> Result<Flow, Trap> {
    match ctx.prog.host_call_original(id) {
        Some(o) => step(w, o, ctx, t),
        None => Err(Trap::illegal(ctx.prog.fetch(w.pc).map_or(0, |d| d.word))),
    }
}

/// The entry has no operation: a host call, else an illegal instruction.
#[cold]
fn not_an_op(d: &Decoded) -> Result<Flow, Trap> {
    if d.host_call != 0 {
        Ok(Flow::HostCall(d.host_call))
    } else {
        Err(Trap::illegal(d.word))
    }
}

/// `vsetvli`/`vsetivli`/`vsetvl`: sets `vtype` and `vl` (only SEW=32, LMUL=1 is supported —
/// what every Ventus binary uses; anything else sets `vill`) and marks the vector state dirty;
/// writes the new `vl` to `rd`.
#[inline(always)]
fn vsetvl<T: Tracer>(w: &mut Warp, t: &mut T, d: &Decoded, op: Op, x1: u32, x2: u32) {
    let (rd, rs1) = (d.rd, d.rs1);
    let vtype = match op {
        Op::Vsetvl => x2,
        _ => d.imm as u32,
    };
    let avl = match op {
        Op::Vsetivli => rs1 as u32,
        _ if rs1 != 0 => x1,
        _ if rd != 0 => u32::MAX,
        _ => w.csr.vl,
    };
    let ok = vtype & !0xc0 == 0x10;
    w.csr.vill = !ok;
    w.csr.vtype = if ok { vtype } else { 0 };
    w.csr.vl = if ok { avl.min(w.csr.numt) } else { 0 };
    let before = w.csr.mstatus;
    w.csr.mstatus |= 3 << mstatus::VS_SHIFT;
    let vl = w.csr.vl;
    set_x(w, t, rd, vl);
    if T::ENABLED {
        use crate::isa::regs::csr::{MSTATUS, VL, VSTART, VTYPE};
        if before != w.csr.mstatus {
            t.csr_write(MSTATUS, w.read_csr(MSTATUS).unwrap_or(0));
        }
        t.csr_write(VSTART, 0);
        t.csr_write(VL, vl);
        t.csr_write(VTYPE, w.read_csr(VTYPE).unwrap_or(0));
    }
}

/// Executes `d` for warp `w` (whose pc is `d`'s address): the unit of the instruction's table
/// section ([`Unit`]) executes it; vector units always continue at the next instruction.
#[inline(always)]
pub fn step<T: Tracer>(w: &mut Warp, d: &Decoded, ctx: &Ctx, t: &mut T) -> Result<Flow, Trap> {
    let Some(op) = d.op else { return not_an_op(d) };
    step_op(w, d, ctx, t, op)
}

/// [`step`] of an entry whose operation is `op` (`d.op == Some(op)`); with a constant `op` the
/// unit's `match` folds away ([`handlers`]).
#[inline(always)]
fn step_op<T: Tracer>(w: &mut Warp, d: &Decoded, ctx: &Ctx, t: &mut T, op: Op) -> Result<Flow, Trap> {
    match op.unit() {
        Unit::Scalar => scalar::scalar(w, d, ctx, t, op),
        Unit::VectorInt => {
            vint::vector_int(w, d, ctx, t, op)?;
            w.pc = w.pc.wrapping_add(4);
            Ok(Flow::Next)
        }
        Unit::VectorFp => {
            vfp::vector_fp(w, d, t, op)?;
            w.pc = w.pc.wrapping_add(4);
            Ok(Flow::Next)
        }
        Unit::Ventus => ventus::ventus(w, d, ctx, t, op),
    }
}

/// The lanes a vector instruction operates on (active, below `vl`, and `v0` when `vm` is clear);
/// illegal while `vtype` is.
#[inline(always)]
fn vector_lanes(w: &Warp, d: &Decoded) -> Result<u32, Trap> {
    need_v(w, d)?;
    Ok(with_vm(w, w.vmask(), d.vm))
}

/// Vector instructions are illegal while `vtype.vill` is set.
#[inline(always)]
fn need_v(w: &Warp, d: &Decoded) -> Result<(), Trap> {
    if w.csr.vill {
        Err(Trap::illegal(d.word))
    } else {
        Ok(())
    }
}

/// FP instructions are illegal while `mstatus.FS` is Off.
#[inline(always)]
fn need_fp(w: &Warp, d: &Decoded) -> Result<(), Trap> {
    if w.fs_off() {
        Err(Trap::illegal(d.word))
    } else {
        Ok(())
    }
}
