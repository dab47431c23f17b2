//! Executes one instruction of one warp: the emulator's hot loop body. It allocates and formats
//! nothing; tracing hooks compile away for [`NoTrace`](super::trace::NoTrace).
//!
//! Semantics follow ventus-isa.md (the reference simulator); scalar instructions execute once per
//! warp regardless of the SIMT mask, vector instructions on the active lanes below `vl`.
//!
//! [`step`] is one flat `match` over every instruction of the table — a dispatch table, one
//! line per instruction where the operation is a lane function (`vv!(u32::wrapping_add)`), so a
//! single jump selects the code. Bodies longer than a line live beside it by class: [`memops`]
//! (memory and AMOs), `csr` (CSR instructions), `fp` (scalar FP), [`vector`] (lane loops), and
//! [`vsetvl`].

mod csr;
mod fp;
mod memops;
pub mod vector;

use super::fault::{FaultKind, Trap};
use super::memory::MemView;
use super::program::{Decoded, Program, NO_EXT};
use super::trace::Tracer;
use super::warp::{mstatus, SimtEntry, Warp};
use crate::isa::semantics as s;
use crate::isa::Op;
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

/// Fetches the entry for the warp's pc (or its pending prefixed variant).
#[inline(always)]
pub fn fetch<'p>(w: &mut Warp, prog: &'p Program) -> Result<&'p Decoded, Trap> {
    if w.ext != NO_EXT {
        let d = prog.extended(w.ext);
        w.ext = NO_EXT;
        return Ok(d);
    }
    prog.fetch(w.pc).ok_or_else(|| {
        let kind = if w.pc & 3 != 0 { FaultKind::FetchMisaligned } else { FaultKind::FetchAccess };
        Trap { kind, addr: Some(w.pc), lane: None }
    })
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

/// Executes `d` for warp `w` (whose pc is `d`'s address).
#[inline(always)]
pub fn step<T: Tracer>(w: &mut Warp, d: &Decoded, ctx: &Ctx, t: &mut T) -> Result<Flow, Trap> {
    let Some(op) = d.op else { return not_an_op(d) };
    let pc = w.pc;
    let mut next = pc.wrapping_add(4);
    let (rd, rs1, rs2) = (d.rd, d.rs1, d.rs2);
    let x1 = w.x[rs1 as usize];
    let x2 = w.x[rs2 as usize];
    let imm = d.imm as u32;
    let mut flow = Flow::Next;
    macro_rules! alu {
        ($v:expr) => {{
            let v = $v;
            set_x(w, t, rd, v)
        }};
    }
    macro_rules! branch {
        ($c:expr) => {
            if $c {
                next = pc.wrapping_add(imm)
            }
        };
    }
    macro_rules! need_fp {
        () => {
            if w.fs_off() {
                return Err(Trap::illegal(d.word));
            }
        };
    }
    macro_rules! need_v {
        () => {
            if w.csr.vill {
                return Err(Trap::illegal(d.word));
            }
        };
    }
    // Vector lane masks: `m` honours the SIMT mask and vm; `mv` ignores the SIMT mask.
    macro_rules! m {
        () => {{
            need_v!();
            with_vm(w, w.vmask(), d.vm)
        }};
    }
    macro_rules! vv {
        ($f:expr) => {{
            let m = m!();
            vv(w, t, m, rd, rs2, rs1, $f)
        }};
    }
    macro_rules! vx {
        ($f:expr) => {{
            let m = m!();
            vs(w, t, m, rd, rs2, x1, $f)
        }};
    }
    macro_rules! vi {
        ($f:expr) => {{
            let m = m!();
            vs(w, t, m, rd, rs2, imm, $f)
        }};
    }
    macro_rules! vf {
        ($f:expr) => {{
            let m = m!();
            let f1 = fx(w, rs1);
            vs(w, t, m, rd, rs2, f1, $f)
        }};
    }
    macro_rules! raise {
        ($fl:expr) => {{
            let fl = $fl;
            if fl != 0 {
                w.csr.fflags |= fl;
                if T::ENABLED {
                    t.csr_write(crate::isa::regs::csr::FFLAGS, w.csr.fflags);
                }
            }
        }};
    }
    macro_rules! fvv {
        ($f:expr) => {{
            let m = m!();
            raise!(vvf(w, t, m, rd, rs2, rs1, $f))
        }};
        ($p:expr, $f:expr) => {{
            let m = m!();
            raise!(vvf_fast(w, t, m, rd, rs2, rs1, $p, $f))
        }};
    }
    macro_rules! fvf {
        ($f:expr) => {{
            let m = m!();
            let f1 = fx(w, rs1);
            raise!(vsf(w, t, m, rd, rs2, f1, $f))
        }};
        ($p:expr, $f:expr) => {{
            let m = m!();
            let f1 = fx(w, rs1);
            raise!(vsf_fast(w, t, m, rd, rs2, f1, $p, $f))
        }};
    }
    macro_rules! fmac_v {
        ($p:expr, $f:expr) => {{
            let m = m!();
            let b = w.v[rs1 as usize];
            let c = w.v[rs2 as usize];
            raise!(vmacf_fast(w, t, m, rd, &b, &c, $p, $f))
        }};
    }
    macro_rules! fmac_f {
        ($p:expr, $f:expr) => {{
            let m = m!();
            let b = [fx(w, rs1); 32];
            let c = w.v[rs2 as usize];
            raise!(vmacf_fast(w, t, m, rd, &b, &c, $p, $f))
        }};
    }
    macro_rules! funary {
        ($f:expr) => {{
            let m = m!();
            raise!(vunaryf(w, t, m, rd, rs2, $f))
        }};
    }
    macro_rules! cmp {
        ($f:expr) => {
            |a, b| $f(a, b) as u32
        };
    }
    // Multiply-add: (vd, op1, op2) with op1 = vs1 / scalar, op2 = vs2.
    macro_rules! vmac_v {
        ($f:expr) => {{
            let m = m!();
            let b = w.v[rs1 as usize];
            let c = w.v[rs2 as usize];
            vmac(w, t, m, rd, &b, &c, $f)
        }};
    }
    macro_rules! vmac_s {
        ($sv:expr, $f:expr) => {{
            let m = m!();
            let b = [$sv; 32];
            let c = w.v[rs2 as usize];
            vmac(w, t, m, rd, &b, &c, $f)
        }};
    }
    match op {
        // ---- RV32I ----------------------------------------------------------------------------
        Op::Lui => alu!(imm),
        Op::Auipc => alu!(pc.wrapping_add(imm)),
        Op::Jal => {
            alu!(next);
            next = pc.wrapping_add(imm);
        }
        Op::Jalr => {
            let target = x1.wrapping_add(imm) & !1;
            alu!(next);
            next = target;
        }
        Op::Beq => branch!(x1 == x2),
        Op::Bne => branch!(x1 != x2),
        Op::Blt => branch!((x1 as i32) < (x2 as i32)),
        Op::Bge => branch!((x1 as i32) >= (x2 as i32)),
        Op::Bltu => branch!(x1 < x2),
        Op::Bgeu => branch!(x1 >= x2),
        Op::Lb => alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 1)? as u8 as i8 as i32 as u32),
        Op::Lh => alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 2)? as u16 as i16 as i32 as u32),
        Op::Lw => alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 4)?),
        Op::Lbu => alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 1)?),
        Op::Lhu => alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 2)?),
        Op::Sb => memops::store(ctx.mem, t, x1.wrapping_add(imm), x2, 1)?,
        Op::Sh => memops::store(ctx.mem, t, x1.wrapping_add(imm), x2, 2)?,
        Op::Sw => memops::store(ctx.mem, t, x1.wrapping_add(imm), x2, 4)?,
        Op::Addi => alu!(x1.wrapping_add(imm)),
        Op::Slti => alu!(s::slt(x1, imm)),
        Op::Sltiu => alu!(s::sltu(x1, imm)),
        Op::Xori => alu!(x1 ^ imm),
        Op::Ori => alu!(x1 | imm),
        Op::Andi => alu!(x1 & imm),
        Op::Slli => alu!(s::sll(x1, imm)),
        Op::Srli => alu!(s::srl(x1, imm)),
        Op::Srai => alu!(s::sra(x1, imm)),
        Op::Add => alu!(x1.wrapping_add(x2)),
        Op::Sub => alu!(x1.wrapping_sub(x2)),
        Op::Sll => alu!(s::sll(x1, x2)),
        Op::Slt => alu!(s::slt(x1, x2)),
        Op::Sltu => alu!(s::sltu(x1, x2)),
        Op::Xor => alu!(x1 ^ x2),
        Op::Srl => alu!(s::srl(x1, x2)),
        Op::Sra => alu!(s::sra(x1, x2)),
        Op::Or => alu!(x1 | x2),
        Op::And => alu!(x1 & x2),
        // Work-groups run on several host threads: a fence orders this warp's memory accesses
        // against theirs (sequentially consistent, the strongest order a kernel can ask for).
        Op::Fence => std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst),
        Op::FenceI | Op::Wfi => {}
        Op::Ecall => return Err(Trap::new(FaultKind::EnvironmentCall)),
        Op::Ebreak => return Err(Trap::new(FaultKind::Breakpoint)),
        Op::Mret => next = w.csr.mepc,
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
            flow = csr::csr_op(w, ctx, t, d, op)?;
        }
        // ---- M ----------------------------------------------------------------------------------
        Op::Mul => alu!(x1.wrapping_mul(x2)),
        Op::Mulh => alu!(s::mulh(x1, x2)),
        Op::Mulhsu => alu!(s::mulhsu(x1, x2)),
        Op::Mulhu => alu!(s::mulhu(x1, x2)),
        Op::Div => alu!(s::div(x1, x2)),
        Op::Divu => alu!(s::divu(x1, x2)),
        Op::Rem => alu!(s::rem(x1, x2)),
        Op::Remu => alu!(s::remu(x1, x2)),
        // ---- A (scalar, baseline simulator) -----------------------------------------------------
        Op::LrW => alu!(memops::load(ctx.mem, t, x1, 4)?),
        // The reference simulator drops the reservation whenever a warp yields (after every
        // instruction), so sc.w always fails.
        Op::ScW => alu!(1),
        // AMOs act per lane on vector registers (vd, vs2, (vs1)), the semantics of the
        // simulator's `feature/vector-amo` branch, which is what Ventus LLVM emits them for.
        Op::AmoswapW
        | Op::AmoaddW
        | Op::AmoxorW
        | Op::AmoandW
        | Op::AmoorW
        | Op::AmominW
        | Op::AmomaxW
        | Op::AmominuW
        | Op::AmomaxuW
        | Op::AmocasW => {
            need_v!();
            memops::vector_amo(w, ctx.mem, t, d, op)?;
        }
        // 64-bit compare-and-swap on register pairs (our extension for 64-bit atomics).
        Op::AmocasD => {
            need_v!();
            memops::vector_amocas_d(w, ctx.mem, t, d)?;
        }
        // ---- F (zfinx mirror) -------------------------------------------------------------------
        Op::Flw => {
            need_fp!();
            alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 4)?)
        }
        Op::Fsw => {
            need_fp!();
            memops::store(ctx.mem, t, x1.wrapping_add(imm), fx(w, rs2), 4)?
        }
        Op::FaddS
        | Op::FsubS
        | Op::FmulS
        | Op::FdivS
        | Op::FsqrtS
        | Op::FmaddS
        | Op::FmsubS
        | Op::FnmsubS
        | Op::FnmaddS
        | Op::FsgnjS
        | Op::FsgnjnS
        | Op::FsgnjxS
        | Op::FminS
        | Op::FmaxS
        | Op::FcvtWS
        | Op::FcvtWuS
        | Op::FmvXW
        | Op::FeqS
        | Op::FltS
        | Op::FleS
        | Op::FclassS
        | Op::FcvtSW
        | Op::FcvtSWu
        | Op::FmvWX => {
            need_fp!();
            fp::fp_scalar(w, t, d, op)?;
        }
        // ---- RVV configuration and memory ---------------------------------------------------------
        Op::Vsetvli | Op::Vsetivli | Op::Vsetvl => vsetvl(w, t, d, op, x1, x2),
        Op::Vle32V | Op::Vlse32V | Op::Vluxei32V | Op::Vloxei32V => {
            let m = m!();
            memops::vector_load(w, ctx.mem, t, d, op, m)?;
        }
        Op::Vse32V | Op::Vsse32V | Op::Vsuxei32V | Op::Vsoxei32V => {
            let m = m!();
            memops::vector_store(w, ctx.mem, t, d, op, m)?;
        }
        // ---- RVV integer ----------------------------------------------------------------------------
        Op::VaddVv => vv!(u32::wrapping_add),
        Op::VaddVx => vx!(u32::wrapping_add),
        Op::VaddVi => vi!(u32::wrapping_add),
        Op::VsubVv => vv!(u32::wrapping_sub),
        Op::VsubVx => vx!(u32::wrapping_sub),
        Op::VrsubVx => vx!(|a: u32, b: u32| b.wrapping_sub(a)),
        Op::VrsubVi => vi!(|a: u32, b: u32| b.wrapping_sub(a)),
        Op::VminuVv => vv!(u32::min),
        Op::VminuVx => vx!(u32::min),
        Op::VminVv => vv!(s::min),
        Op::VminVx => vx!(s::min),
        Op::VmaxuVv => vv!(u32::max),
        Op::VmaxuVx => vx!(u32::max),
        Op::VmaxVv => vv!(s::max),
        Op::VmaxVx => vx!(s::max),
        Op::VandVv => vv!(|a, b| a & b),
        Op::VandVx => vx!(|a, b| a & b),
        Op::VandVi => vi!(|a, b| a & b),
        Op::VorVv => vv!(|a, b| a | b),
        Op::VorVx => vx!(|a, b| a | b),
        Op::VorVi => vi!(|a, b| a | b),
        Op::VxorVv => vv!(|a, b| a ^ b),
        Op::VxorVx => vx!(|a, b| a ^ b),
        Op::VxorVi => vi!(|a, b| a ^ b),
        Op::VmvVV => {
            let m = m!();
            let src = w.v[rs1 as usize];
            vgen(w, t, m, rd, |i| src[i])
        }
        Op::VmvVX | Op::VmvSX => {
            let m = m!();
            vgen(w, t, m, rd, |_| x1)
        }
        Op::VmvVI => {
            let m = m!();
            vgen(w, t, m, rd, |_| imm)
        }
        // vmerge ignores the SIMT mask (§4.5) and selects with v0's bits.
        Op::VmergeVvm | Op::VmergeVxm | Op::VmergeVim | Op::VfmergeVfm => {
            need_v!();
            let all = vl_mask(w);
            let sel = w.v[0][0];
            let a = w.v[rs2 as usize];
            let b: Lanes = match op {
                Op::VmergeVvm => w.v[rs1 as usize],
                Op::VmergeVxm => [x1; 32],
                Op::VmergeVim => [crate::util::sext(rs1 as u32, 5) as u32; 32],
                _ => [fx(w, rs1); 32],
            };
            vgen(w, t, all, rd, |i| if (sel >> i) & 1 != 0 { b[i] } else { a[i] })
        }
        Op::VmseqVv => vv!(cmp!(|a, b| a == b)),
        Op::VmseqVx => vx!(cmp!(|a, b| a == b)),
        Op::VmseqVi => vi!(cmp!(|a, b| a == b)),
        Op::VmsneVv => vv!(cmp!(|a, b| a != b)),
        Op::VmsneVx => vx!(cmp!(|a, b| a != b)),
        Op::VmsneVi => vi!(cmp!(|a, b| a != b)),
        Op::VmsltuVv => vv!(cmp!(|a, b| a < b)),
        Op::VmsltuVx => vx!(cmp!(|a, b| a < b)),
        Op::VmsltVv => vv!(s::slt),
        Op::VmsltVx => vx!(s::slt),
        Op::VmsleuVv => vv!(cmp!(|a, b| a <= b)),
        Op::VmsleuVx => vx!(cmp!(|a, b| a <= b)),
        Op::VmsleuVi => vi!(cmp!(|a, b| a <= b)),
        Op::VmsleVv => vv!(cmp!(|a: u32, b: u32| (a as i32) <= (b as i32))),
        Op::VmsleVx => vx!(cmp!(|a: u32, b: u32| (a as i32) <= (b as i32))),
        Op::VmsleVi => vi!(cmp!(|a: u32, b: u32| (a as i32) <= (b as i32))),
        Op::VmsgtuVx => vx!(cmp!(|a, b| a > b)),
        Op::VmsgtuVi => vi!(cmp!(|a, b| a > b)),
        Op::VmsgtVx => vx!(cmp!(|a: u32, b: u32| (a as i32) > (b as i32))),
        Op::VmsgtVi => vi!(cmp!(|a: u32, b: u32| (a as i32) > (b as i32))),
        Op::VsadduVv => vv!(s::saddu),
        Op::VsadduVx => vx!(s::saddu),
        Op::VsadduVi => vi!(s::saddu),
        Op::VsaddVv => vv!(s::sadd),
        Op::VsaddVx => vx!(s::sadd),
        Op::VsaddVi => vi!(s::sadd),
        Op::VssubuVv => vv!(s::ssubu),
        Op::VssubuVx => vx!(s::ssubu),
        Op::VssubVv => vv!(s::ssub),
        Op::VssubVx => vx!(s::ssub),
        Op::VsllVv => vv!(s::sll),
        Op::VsllVx => vx!(s::sll),
        Op::VsllVi => vi!(s::sll),
        Op::VsrlVv => vv!(s::srl),
        Op::VsrlVx => vx!(s::srl),
        Op::VsrlVi => vi!(s::srl),
        Op::VsraVv => vv!(s::sra),
        Op::VsraVx => vx!(s::sra),
        Op::VsraVi => vi!(s::sra),
        Op::VmvXS => {
            need_v!();
            // Highest active lane wins; unchanged when no lane is active (§4.5).
            let m = w.vmask();
            if m != 0 {
                let v = w.v[rs2 as usize][31 - m.leading_zeros() as usize];
                alu!(v);
            }
        }
        Op::VzextVf2 | Op::VsextVf2 | Op::VzextVf4 | Op::VsextVf4 => {
            let m = m!();
            let src = w.v[rs2 as usize];
            let r: Lanes = std::array::from_fn(|i| {
                let byte_of = |k: usize| (src[k / 4] >> ((k % 4) * 8)) & 0xff;
                match op {
                    Op::VzextVf2 => byte_of(2 * i) | (byte_of(2 * i + 1) << 8),
                    Op::VsextVf2 => (byte_of(2 * i) | (byte_of(2 * i + 1) << 8)) as u16 as i16 as i32 as u32,
                    Op::VzextVf4 => byte_of(i),
                    _ => byte_of(i) as u8 as i8 as i32 as u32,
                }
            });
            vgen(w, t, m, rd, |i| r[i])
        }
        Op::VidV => {
            let m = m!();
            vgen(w, t, m, rd, |i| i as u32)
        }
        Op::VdivuVv => vv!(s::divu),
        Op::VdivuVx => vx!(s::divu),
        Op::VdivVv => vv!(s::div),
        Op::VdivVx => vx!(s::div),
        Op::VremuVv => vv!(s::remu),
        Op::VremuVx => vx!(s::remu),
        Op::VremVv => vv!(s::rem),
        Op::VremVx => vx!(s::rem),
        Op::VmulhuVv => vv!(s::mulhu),
        Op::VmulhuVx => vx!(s::mulhu),
        Op::VmulVv => vv!(u32::wrapping_mul),
        Op::VmulVx => vx!(u32::wrapping_mul),
        Op::VmulhsuVv => vv!(s::mulhsu),
        Op::VmulhsuVx => vx!(s::mulhsu),
        Op::VmulhVv => vv!(s::mulh),
        Op::VmulhVx => vx!(s::mulh),
        // vmadd: vd = op1*vd + vs2; vnmsub: vd = -(op1*vd) + vs2; vmacc: vd = op1*vs2 + vd;
        // vnmsac: vd = -(op1*vs2) + vd.
        Op::VmaddVv => vmac_v!(|d, b, c| b.wrapping_mul(d).wrapping_add(c)),
        Op::VmaddVx => vmac_s!(x1, |d, b, c| b.wrapping_mul(d).wrapping_add(c)),
        Op::VnmsubVv => vmac_v!(|d, b, c| c.wrapping_sub(b.wrapping_mul(d))),
        Op::VnmsubVx => vmac_s!(x1, |d, b, c| c.wrapping_sub(b.wrapping_mul(d))),
        Op::VmaccVv => vmac_v!(|d, b, c| b.wrapping_mul(c).wrapping_add(d)),
        Op::VmaccVx => vmac_s!(x1, |d, b, c| b.wrapping_mul(c).wrapping_add(d)),
        Op::VnmsacVv => vmac_v!(|d, b, c| d.wrapping_sub(b.wrapping_mul(c))),
        Op::VnmsacVx => vmac_s!(x1, |d, b, c| d.wrapping_sub(b.wrapping_mul(c))),
        // ---- RVV floating point (frm is RNE in compiled code); flags accumulate in fflags ------
        Op::VfaddVv => fvv!(s::fadd_plain, s::fadd_f),
        Op::VfaddVf => fvf!(s::fadd_plain, s::fadd_f),
        Op::VfsubVv => fvv!(|a, b| s::fadd_plain(a, s::fneg(b)), s::fsub_f),
        Op::VfsubVf => fvf!(|a, b| s::fadd_plain(a, s::fneg(b)), s::fsub_f),
        Op::VfminVv => fvv!(|a, b| (s::fmin(a, b), s::minmax_flags(a, b))),
        Op::VfminVf => fvf!(|a, b| (s::fmin(a, b), s::minmax_flags(a, b))),
        Op::VfmaxVv => fvv!(|a, b| (s::fmax(a, b), s::minmax_flags(a, b))),
        Op::VfmaxVf => fvf!(|a, b| (s::fmax(a, b), s::minmax_flags(a, b))),
        Op::VfsgnjVv => vv!(s::fsgnj),
        Op::VfsgnjVf => vf!(s::fsgnj),
        Op::VfsgnjnVv => vv!(s::fsgnjn),
        Op::VfsgnjnVf => vf!(s::fsgnjn),
        Op::VfsgnjxVv => vv!(s::fsgnjx),
        Op::VfsgnjxVf => vf!(s::fsgnjx),
        Op::VfmvFS => {
            need_v!();
            need_fp!();
            let v = w.v[rs2 as usize][0];
            alu!(v);
        }
        Op::VfmvSF | Op::VfmvVF => {
            need_v!();
            // vfmv.v.f writes every element below vl, ignoring the SIMT mask (§4.5).
            let all = if op == Op::VfmvVF { vl_mask(w) } else { w.vmask() };
            let f1 = fx(w, rs1);
            vgen(w, t, all, rd, |_| f1)
        }
        Op::VfcvtXuFV => {
            let rm = w.csr.frm;
            funary!(|a| s::fcvt_wu_s(a, rm))
        }
        Op::VfcvtXFV => {
            let rm = w.csr.frm;
            funary!(|a| s::fcvt_w_s(a, rm))
        }
        Op::VfcvtFXuV => {
            let rm = w.csr.frm;
            funary!(|a| {
                let r = s::fcvt_s_wu(a, rm);
                (r, s::int_to_float_flags(r, a as f64))
            })
        }
        Op::VfcvtFXV => {
            let rm = w.csr.frm;
            funary!(|a| {
                let r = s::fcvt_s_w(a, rm);
                (r, s::int_to_float_flags(r, a as i32 as f64))
            })
        }
        Op::VfcvtRtzXuFV => funary!(|a| s::fcvt_wu_s(a, 1)),
        Op::VfcvtRtzXFV => funary!(|a| s::fcvt_w_s(a, 1)),
        Op::VfsqrtV => funary!(s::fsqrt_f),
        Op::VfclassV => {
            let m = m!();
            vunary(w, t, m, rd, rs2, s::fclass)
        }
        Op::VmfeqVv => fvv!(|a, b| (s::feq(a, b), s::compare_flags(a, b, false))),
        Op::VmfeqVf => fvf!(|a, b| (s::feq(a, b), s::compare_flags(a, b, false))),
        Op::VmfleVv => fvv!(|a, b| (s::fle(a, b), s::compare_flags(a, b, true))),
        Op::VmfleVf => fvf!(|a, b| (s::fle(a, b), s::compare_flags(a, b, true))),
        Op::VmfltVv => fvv!(|a, b| (s::flt(a, b), s::compare_flags(a, b, true))),
        Op::VmfltVf => fvf!(|a, b| (s::flt(a, b), s::compare_flags(a, b, true))),
        Op::VmfneVv => fvv!(|a, b| (1 - s::feq(a, b), s::compare_flags(a, b, false))),
        Op::VmfneVf => fvf!(|a, b| (1 - s::feq(a, b), s::compare_flags(a, b, false))),
        Op::VmfgtVf => fvf!(|a, b| (s::flt(b, a), s::compare_flags(a, b, true))),
        Op::VmfgeVf => fvf!(|a, b| (s::fle(b, a), s::compare_flags(a, b, true))),
        Op::VfdivVv => fvv!(s::fdiv_f),
        Op::VfdivVf => fvf!(s::fdiv_f),
        Op::VfrdivVf => fvf!(|a, b| s::fdiv_f(b, a)),
        Op::VfmulVv => fvv!(s::fmul_plain, s::fmul_f),
        Op::VfmulVf => fvf!(s::fmul_plain, s::fmul_f),
        Op::VfrsubVf => fvf!(|a, b| s::fadd_plain(b, s::fneg(a)), |a, b| s::fsub_f(b, a)),
        // vfmadd: vd = op1*vd + vs2; vfnmadd: -(op1*vd) - vs2; vfmsub: op1*vd - vs2;
        // vfnmsub: -(op1*vd) + vs2; vfmacc: op1*vs2 + vd; vfnmacc: -(op1*vs2) - vd;
        // vfmsac: op1*vs2 - vd; vfnmsac: -(op1*vs2) + vd.
        Op::VfmaddVv => fmac_v!(|d, b, c| s::fmadd_plain(b, d, c), |d, b, c| s::fmadd_f(b, d, c)),
        Op::VfmaddVf => fmac_f!(|d, b, c| s::fmadd_plain(b, d, c), |d, b, c| s::fmadd_f(b, d, c)),
        Op::VfnmaddVv => fmac_v!(|d, b, c| s::fmadd_plain(s::fneg(b), d, s::fneg(c)), |d, b, c| s::fmadd_f(
            s::fneg(b),
            d,
            s::fneg(c)
        )),
        Op::VfnmaddVf => fmac_f!(|d, b, c| s::fmadd_plain(s::fneg(b), d, s::fneg(c)), |d, b, c| s::fmadd_f(
            s::fneg(b),
            d,
            s::fneg(c)
        )),
        Op::VfmsubVv => fmac_v!(|d, b, c| s::fmadd_plain(b, d, s::fneg(c)), |d, b, c| s::fmadd_f(b, d, s::fneg(c))),
        Op::VfmsubVf => fmac_f!(|d, b, c| s::fmadd_plain(b, d, s::fneg(c)), |d, b, c| s::fmadd_f(b, d, s::fneg(c))),
        Op::VfnmsubVv => fmac_v!(|d, b, c| s::fmadd_plain(s::fneg(b), d, c), |d, b, c| s::fmadd_f(s::fneg(b), d, c)),
        Op::VfnmsubVf => fmac_f!(|d, b, c| s::fmadd_plain(s::fneg(b), d, c), |d, b, c| s::fmadd_f(s::fneg(b), d, c)),
        Op::VfmaccVv => fmac_v!(|d, b, c| s::fmadd_plain(b, c, d), |d, b, c| s::fmadd_f(b, c, d)),
        Op::VfmaccVf => fmac_f!(|d, b, c| s::fmadd_plain(b, c, d), |d, b, c| s::fmadd_f(b, c, d)),
        Op::VfnmaccVv => fmac_v!(|d, b, c| s::fmadd_plain(s::fneg(b), c, s::fneg(d)), |d, b, c| s::fmadd_f(
            s::fneg(b),
            c,
            s::fneg(d)
        )),
        Op::VfnmaccVf => fmac_f!(|d, b, c| s::fmadd_plain(s::fneg(b), c, s::fneg(d)), |d, b, c| s::fmadd_f(
            s::fneg(b),
            c,
            s::fneg(d)
        )),
        Op::VfmsacVv => fmac_v!(|d, b, c| s::fmadd_plain(b, c, s::fneg(d)), |d, b, c| s::fmadd_f(b, c, s::fneg(d))),
        Op::VfmsacVf => fmac_f!(|d, b, c| s::fmadd_plain(b, c, s::fneg(d)), |d, b, c| s::fmadd_f(b, c, s::fneg(d))),
        Op::VfnmsacVv => fmac_v!(|d, b, c| s::fmadd_plain(s::fneg(b), c, d), |d, b, c| s::fmadd_f(s::fneg(b), c, d)),
        Op::VfnmsacVf => fmac_f!(|d, b, c| s::fmadd_plain(s::fneg(b), c, d), |d, b, c| s::fmadd_f(s::fneg(b), c, d)),
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
            let m = m!();
            memops::vftta(w, t, m, rd, rs2, rs1);
        }
        Op::VfexpV => {
            let m = m!();
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
            need_v!();
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
                w.stack.push(SimtEntry { r_pc: rpc, else_pc: rpc, else_mask: r_mask });
                if fall.count_ones() < taken.count_ones() {
                    w.stack.push(SimtEntry { r_pc: rpc, else_pc: target, else_mask: taken });
                    w.mask = fall & wm;
                } else {
                    w.stack.push(SimtEntry { r_pc: rpc, else_pc: next, else_mask: fall });
                    w.mask = taken & wm;
                    next = target;
                }
            }
        }
        Op::Join => {
            if let Some(top) = w.stack.last().copied() {
                if top.r_pc == pc {
                    next = top.else_pc;
                    w.mask = top.else_mask;
                    w.stack.pop();
                }
            }
        }
        Op::Setrpc => {
            let v = x1.wrapping_add(imm);
            w.csr.rpc = v;
            alu!(v);
            if T::ENABLED {
                t.csr_write(crate::isa::regs::csr::RPC, v);
            }
        }
    }
    w.pc = next;
    Ok(flow)
}
