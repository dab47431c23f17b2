//! Scalar single-precision FP instructions (zfinx: operands and results in x registers).

use super::super::fault::Trap;
use super::super::trace::Tracer;
use super::super::warp::Warp;
use super::{fx, set_x};
use crate::isa::regs::csr;
use crate::isa::semantics as s;
use crate::isa::Op;

/// Scalar single-precision FP (zfinx: operands and results in x registers).
pub fn fp_scalar<T: Tracer>(w: &mut Warp, t: &mut T, d: &super::Decoded, op: Op) -> Result<(), Trap> {
    let (a, b, c) = (fx(w, d.rs1), fx(w, d.rs2), fx(w, d.rs3));
    let rm = if d.aux == 7 { w.csr.frm } else { d.aux as u32 };
    if rm > 4 {
        return Err(Trap::illegal(d.word));
    }
    let (r, flags) = match op {
        Op::FaddS => s::fadd_f(a, b),
        Op::FsubS => s::fsub_f(a, b),
        Op::FmulS => s::fmul_f(a, b),
        Op::FdivS => s::fdiv_f(a, b),
        Op::FsqrtS => s::fsqrt_f(a),
        Op::FmaddS => s::fmadd_f(a, b, c),
        Op::FmsubS => s::fmadd_f(a, b, s::fneg(c)),
        Op::FnmsubS => s::fmadd_f(s::fneg(a), b, c),
        Op::FnmaddS => s::fmadd_f(s::fneg(a), b, s::fneg(c)),
        Op::FsgnjS => (s::fsgnj(a, b), 0),
        Op::FsgnjnS => (s::fsgnjn(a, b), 0),
        Op::FsgnjxS => (s::fsgnjx(a, b), 0),
        Op::FminS => (s::fmin(a, b), s::minmax_flags(a, b)),
        Op::FmaxS => (s::fmax(a, b), s::minmax_flags(a, b)),
        Op::FcvtWS => s::fcvt_w_s(a, rm),
        Op::FcvtWuS => s::fcvt_wu_s(a, rm),
        Op::FmvXW | Op::FmvWX => (a, 0),
        Op::FeqS => (s::feq(a, b), s::compare_flags(a, b, false)),
        Op::FltS => (s::flt(a, b), s::compare_flags(a, b, true)),
        Op::FleS => (s::fle(a, b), s::compare_flags(a, b, true)),
        Op::FclassS => (s::fclass(a), 0),
        Op::FcvtSW => {
            let x = w.x[d.rs1 as usize];
            let r = s::fcvt_s_w(x, rm);
            (r, s::int_to_float_flags(r, x as i32 as f64))
        }
        Op::FcvtSWu => {
            let x = w.x[d.rs1 as usize];
            let r = s::fcvt_s_wu(x, rm);
            (r, s::int_to_float_flags(r, x as f64))
        }
        _ => return Err(Trap::illegal(d.word)),
    };
    if flags != 0 {
        w.csr.fflags |= flags;
        if T::ENABLED {
            t.csr_write(csr::FFLAGS, w.csr.fflags);
        }
    }
    // fmv.w.x and fcvt.s.* read the integer register (x0 = 0), not the FP mirror.
    let r = if op == Op::FmvWX { w.x[d.rs1 as usize] } else { r };
    set_x(w, t, d.rd, r);
    Ok(())
}
