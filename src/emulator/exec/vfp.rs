//! The vector floating-point unit (SEW = 32): arithmetic, fused multiply-add, comparisons and
//! conversions; `frm` is round-to-nearest-even in compiled code and the accrued flags collect in
//! `fflags` (computed only while observable, see [`super::vector`]).

use super::*;

/// Executes `d` (an instruction of this unit) for warp `w`.
#[inline(always)]
pub(super) fn vector_fp<T: Tracer>(w: &mut Warp, d: &Decoded, t: &mut T, op: Op) -> Result<(), Trap> {
    let (rd, rs1, rs2) = (d.rd, d.rs1, d.rs2);
    macro_rules! vv {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
            vv(w, t, m, rd, rs2, rs1, $f)
        }};
    }
    macro_rules! vf {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
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
            let m = vector_lanes(w, d)?;
            raise!(vvf(w, t, m, rd, rs2, rs1, $f))
        }};
        ($p:expr, $f:expr) => {{
            let m = vector_lanes(w, d)?;
            raise!(vvf_fast(w, t, m, rd, rs2, rs1, $p, $f))
        }};
    }
    macro_rules! fvf {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
            let f1 = fx(w, rs1);
            raise!(vsf(w, t, m, rd, rs2, f1, $f))
        }};
        ($p:expr, $f:expr) => {{
            let m = vector_lanes(w, d)?;
            let f1 = fx(w, rs1);
            raise!(vsf_fast(w, t, m, rd, rs2, f1, $p, $f))
        }};
    }
    macro_rules! fmac_v {
        ($p:expr, $f:expr) => {{
            let m = vector_lanes(w, d)?;
            raise!(vmacf_fast(w, t, m, rd, |v, i| v[rs1 as usize][i], rs2, $p, $f))
        }};
    }
    macro_rules! fmac_f {
        ($p:expr, $f:expr) => {{
            let m = vector_lanes(w, d)?;
            let b = fx(w, rs1);
            raise!(vmacf_fast(w, t, m, rd, |_, _| b, rs2, $p, $f))
        }};
    }
    macro_rules! funary {
        ($f:expr) => {{
            let m = vector_lanes(w, d)?;
            raise!(vunaryf(w, t, m, rd, rs2, $f))
        }};
    }
    match op {
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
            need_v(w, d)?;
            need_fp(w, d)?;
            let v = w.v[rs2 as usize][0];
            set_x(w, t, rd, v);
        }
        Op::VfmvSF | Op::VfmvVF => {
            need_v(w, d)?;
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
            let m = vector_lanes(w, d)?;
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
        _ => return Err(Trap::illegal(d.word)), // not this unit's (the dispatcher never sends one)
    }
    Ok(())
}
