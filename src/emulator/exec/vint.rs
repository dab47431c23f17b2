//! The vector integer unit: RVV configuration (`vsetvl*`), RVV memory (unit-stride, strided,
//! indexed; EEW = 32) and integer arithmetic, on the active lanes below `vl`.

use super::*;

/// Executes `d` (an instruction of this unit) for warp `w`.
#[inline(always)]
pub(super) fn vector_int<T: Tracer>(w: &mut Warp, d: &Decoded, ctx: &Ctx, t: &mut T, op: Op) -> Result<(), Trap> {
    let (rd, rs1, rs2) = (d.rd, d.rs1, d.rs2);
    let x1 = w.x[rs1 as usize];
    let x2 = w.x[rs2 as usize];
    let imm = d.imm as u32;
    macro_rules! vv {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
            vv(w, t, m, rd, rs2, rs1, $f)
        }};
    }
    macro_rules! vx {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
            vs(w, t, m, rd, rs2, x1, $f)
        }};
    }
    macro_rules! vi {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
            vs(w, t, m, rd, rs2, imm, $f)
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
            let m = vector_lanes(w, d)?;
            let b = w.v[rs1 as usize];
            let c = w.v[rs2 as usize];
            vmac(w, t, m, rd, &b, &c, $f)
        }};
    }
    macro_rules! vmac_s {
        ($sv:expr, $f:expr) => {{
            let m = vector_lanes(w, d)?;
            let b = [$sv; 32];
            let c = w.v[rs2 as usize];
            vmac(w, t, m, rd, &b, &c, $f)
        }};
    }
    match op {
        // ---- RVV configuration and memory ---------------------------------------------------------
        Op::Vsetvli | Op::Vsetivli | Op::Vsetvl => vsetvl(w, t, d, op, x1, x2),
        Op::Vle32V | Op::Vlse32V | Op::Vluxei32V | Op::Vloxei32V => {
            let m = vector_lanes(w, d)?;
            memops::vector_load(w, ctx.mem, t, d, op, m)?;
        }
        Op::Vse32V | Op::Vsse32V | Op::Vsuxei32V | Op::Vsoxei32V => {
            let m = vector_lanes(w, d)?;
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
            let m = vector_lanes(w, d)?;
            let src = w.v[rs1 as usize];
            vgen(w, t, m, rd, |i| src[i])
        }
        Op::VmvVX | Op::VmvSX => {
            let m = vector_lanes(w, d)?;
            vgen(w, t, m, rd, |_| x1)
        }
        Op::VmvVI => {
            let m = vector_lanes(w, d)?;
            vgen(w, t, m, rd, |_| imm)
        }
        // vmerge ignores the SIMT mask (§4.5) and selects with v0's bits.
        Op::VmergeVvm | Op::VmergeVxm | Op::VmergeVim | Op::VfmergeVfm => {
            need_v(w, d)?;
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
            need_v(w, d)?;
            // Highest active lane wins; unchanged when no lane is active (§4.5).
            let m = w.vmask();
            if m != 0 {
                let v = w.v[rs2 as usize][31 - m.leading_zeros() as usize];
                set_x(w, t, rd, v);
            }
        }
        Op::VzextVf2 | Op::VsextVf2 | Op::VzextVf4 | Op::VsextVf4 => {
            let m = vector_lanes(w, d)?;
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
            let m = vector_lanes(w, d)?;
            vgen(w, t, m, rd, |i| i as u32)
        }
        Op::VdivuVv | Op::VremuVv | Op::VdivVv | Op::VremVv => {
            let m = vector_lanes(w, d)?;
            let (rem, signed) = (matches!(op, Op::VremuVv | Op::VremVv), matches!(op, Op::VdivVv | Op::VremVv));
            let r = div_lanes(&w.v[rs2 as usize], &w.v[rs1 as usize], rem, signed);
            vgen(w, t, m, rd, |i| r[i])
        }
        Op::VdivuVx | Op::VremuVx => {
            let m = vector_lanes(w, d)?;
            let r = divu_by(&w.v[rs2 as usize], x1, op == Op::VremuVx);
            vgen(w, t, m, rd, |i| r[i])
        }
        Op::VdivVx => vx!(s::div),
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
        _ => return Err(Trap::illegal(d.word)), // not this unit's (the dispatcher never sends one)
    }
    Ok(())
}
