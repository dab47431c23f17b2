//! The scalar unit: RV32I, Zicsr, M, A (the vector AMOs included: they are encoded as A) and F
//! (zfinx: FP values live in the integer registers, spike's mirrored file). One instruction per
//! warp, whatever the SIMT mask.

use super::*;
use crate::isa::regs::csr as csr_num;

/// Executes `d` (an instruction of this unit) for warp `w`.
#[inline(always)]
pub(super) fn scalar<T: Tracer>(w: &mut Warp, d: &Decoded, ctx: &Ctx, t: &mut T, op: Op) -> Result<Flow, Trap> {
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
            // The return of a math function run for the lanes a native call declined.
            if w.resume_mask != 0 && target == w.resume_ra {
                resume(w);
            }
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
        // The common case inline: reading a work-group CSR (`csrr rd, tid` and friends).
        Op::Csrrs if d.rs1 == 0 && (csr_num::TID..=csr_num::GIDZ).contains(&(d.imm as u16)) => {
            alu!(w.csr.workgroup_csr(d.imm as u16))
        }
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
            need_v(w, d)?;
            memops::vector_amo(w, ctx.mem, t, d, op)?;
        }
        // 64-bit compare-and-swap on register pairs (our extension for 64-bit atomics).
        Op::AmocasD => {
            need_v(w, d)?;
            memops::vector_amocas_d(w, ctx.mem, t, d)?;
        }
        // ---- F (zfinx mirror) -------------------------------------------------------------------
        Op::Flw => {
            need_fp(w, d)?;
            alu!(memops::load(ctx.mem, t, x1.wrapping_add(imm), 4)?)
        }
        Op::Fsw => {
            need_fp(w, d)?;
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
            need_fp(w, d)?;
            fp::fp_scalar(w, t, d, op)?;
        }
        _ => return Err(Trap::illegal(d.word)), // not this unit's (the dispatcher never sends one)
    }
    w.pc = next;
    Ok(flow)
}

/// Back from a math function's code run for the lanes its native call declined
/// ([`Warp::resume_mask`]): every lane active at the call is active again.
#[cold]
fn resume(w: &mut Warp) {
    w.mask = w.resume_mask;
    w.resume_mask = 0;
}
