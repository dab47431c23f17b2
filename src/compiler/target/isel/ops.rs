//! Selection of value operations (arithmetic, compares, conversions, memory, atomics) and
//! terminators.

use super::*;

/// Scalar and vector (.vv, .vx, .vi) opcodes of an integer/float binary operation.
struct BinForms {
    s: Option<I>,
    vv: I,
    vx: Option<I>,
    vi: Option<I>,
    /// `a op b` computed as `b rop a` when only `a` is scalar (vrsub, vfrsub, vfrdiv), or the same
    /// op for commutative ones.
    rev_vx: Option<I>,
}

fn forms(o: BinOp) -> BinForms {
    use BinOp as B;
    let f = |s, vv, vx, vi, rev| BinForms { s, vv, vx, vi, rev_vx: rev };
    match o {
        B::Add => f(Some(I::Add), I::VaddVv, Some(I::VaddVx), Some(I::VaddVi), Some(I::VaddVx)),
        B::Sub => f(Some(I::Sub), I::VsubVv, Some(I::VsubVx), None, Some(I::VrsubVx)),
        B::Mul => f(Some(I::Mul), I::VmulVv, Some(I::VmulVx), None, Some(I::VmulVx)),
        B::MulHiS => f(Some(I::Mulh), I::VmulhVv, Some(I::VmulhVx), None, Some(I::VmulhVx)),
        B::MulHiU => f(Some(I::Mulhu), I::VmulhuVv, Some(I::VmulhuVx), None, Some(I::VmulhuVx)),
        B::DivS => f(Some(I::Div), I::VdivVv, Some(I::VdivVx), None, None),
        B::DivU => f(Some(I::Divu), I::VdivuVv, Some(I::VdivuVx), None, None),
        B::RemS => f(Some(I::Rem), I::VremVv, Some(I::VremVx), None, None),
        B::RemU => f(Some(I::Remu), I::VremuVv, Some(I::VremuVx), None, None),
        B::And => f(Some(I::And), I::VandVv, Some(I::VandVx), Some(I::VandVi), Some(I::VandVx)),
        B::Or => f(Some(I::Or), I::VorVv, Some(I::VorVx), Some(I::VorVi), Some(I::VorVx)),
        B::Xor => f(Some(I::Xor), I::VxorVv, Some(I::VxorVx), Some(I::VxorVi), Some(I::VxorVx)),
        // Shift .vi forms take an unsigned 5-bit amount.
        B::Shl => f(Some(I::Sll), I::VsllVv, Some(I::VsllVx), Some(I::VsllVi), None),
        B::ShrL => f(Some(I::Srl), I::VsrlVv, Some(I::VsrlVx), Some(I::VsrlVi), None),
        B::ShrA => f(Some(I::Sra), I::VsraVv, Some(I::VsraVx), Some(I::VsraVi), None),
        B::MinS => f(None, I::VminVv, Some(I::VminVx), None, Some(I::VminVx)),
        B::MinU => f(None, I::VminuVv, Some(I::VminuVx), None, Some(I::VminuVx)),
        B::MaxS => f(None, I::VmaxVv, Some(I::VmaxVx), None, Some(I::VmaxVx)),
        B::MaxU => f(None, I::VmaxuVv, Some(I::VmaxuVx), None, Some(I::VmaxuVx)),
        // The .vf forms read the uniform operand from a scalar register (zfinx).
        B::FAdd => f(Some(I::FaddS), I::VfaddVv, Some(I::VfaddVf), None, Some(I::VfaddVf)),
        B::FSub => f(Some(I::FsubS), I::VfsubVv, Some(I::VfsubVf), None, Some(I::VfrsubVf)),
        B::FMul => f(Some(I::FmulS), I::VfmulVv, Some(I::VfmulVf), None, Some(I::VfmulVf)),
        B::FDiv => f(Some(I::FdivS), I::VfdivVv, Some(I::VfdivVf), None, Some(I::VfrdivVf)),
        B::FMin => f(Some(I::FminS), I::VfminVv, Some(I::VfminVf), None, Some(I::VfminVf)),
        B::FMax => f(Some(I::FmaxS), I::VfmaxVv, Some(I::VfmaxVf), None, Some(I::VfmaxVf)),
        B::FCopySign => f(Some(I::FsgnjS), I::VfsgnjVv, None, None, None),
    }
}

fn is_fp_rm(op: I) -> bool {
    matches!(
        op,
        I::FaddS | I::FsubS | I::FmulS | I::FdivS | I::FsqrtS | I::FcvtWS | I::FcvtWuS | I::FcvtSW | I::FcvtSWu
    )
}

impl Sel<'_> {
    /// Scalar binary op into `d` with an immediate form when `b` is a small constant.
    fn sbin(&mut self, d: Reg, op: I, a: Reg, b: Reg) {
        let mut m = MInst::new(MOp::I(op));
        m.rd = Some(d);
        m.rs1 = Some(a);
        m.rs2 = Some(b);
        if is_fp_rm(op) {
            m.imm = 7;
        }
        self.push(m);
    }

    /// Vector .vv op: `d = a op b` (RVV operand order: vs2 = a, vs1 = b).
    fn vvop(&mut self, d: Reg, op: I, a: Reg, b: Reg) {
        let mut m = MInst::new(MOp::I(op));
        m.rd = Some(d);
        m.rs2 = Some(a);
        m.rs1 = Some(b);
        self.push(m);
    }

    /// Vector .vx/.vi op: `d = a op x` (vs2 = a, rs1 = x or imm).
    fn vxop(&mut self, d: Reg, op: I, a: Reg, x: Option<Reg>, imm: i64) {
        let mut m = MInst::new(MOp::I(op));
        m.rd = Some(d);
        m.rs2 = Some(a);
        m.rs1 = x;
        m.imm = imm;
        self.push(m);
    }

    fn smin_max(&mut self, d: Reg, o: BinOp, a: Reg, b: Reg) {
        // d = (a < b) == want_a ? a : b, branch-free.
        let lt = self.m.new_s();
        let signed = matches!(o, BinOp::MinS | BinOp::MaxS);
        self.sbin(lt, if signed { I::Slt } else { I::Sltu }, a, b);
        if matches!(o, BinOp::MaxS | BinOp::MaxU) {
            self.emit_rr(I::Xori, lt, lt, ZERO, 1);
        }
        self.select_regs(d, lt, a, b);
    }

    /// `d = c ? a : b` for a condition `c` of 0 or 1 (a, b in d's class, c possibly scalar), as
    /// `(a - b)·c + b` in wrapping integer arithmetic (exact for any bit patterns): a subtract
    /// and a multiply-add (`vmadd`, in place), two instructions where a mask (`0 - c`) and
    /// xor/and/xor took four — a uniform `c` with vector operands is read from its scalar
    /// register (`vmadd.vx`) instead of being broadcast first.
    fn select_regs(&mut self, d: Reg, c: Reg, a: Reg, b: Reg) {
        if d.is_vector() {
            let t = self.m.new_v();
            self.vvop(t, I::VsubVv, a, b);
            if c.is_vector() {
                self.vvop(t, I::VmaddVv, b, c); // t = c·t + b
            } else {
                self.vxop(t, I::VmaddVx, b, Some(c), 0);
            }
            self.emit_rr(I::VaddVx, d, ZERO, t, 0);
        } else {
            let t = self.m.new_s();
            self.sbin(t, I::Sub, a, b);
            self.sbin(t, I::Mul, t, c);
            self.sbin(d, I::Add, t, b);
        }
    }

    pub(super) fn select_into(&mut self, d: Reg, c: Value, a: Value, b: Value) -> Result<(), CompileError> {
        if d.is_vector() {
            let cr = if self.div(c) { self.reg(c) } else { self.s(c)? };
            let (va, vb) = (self.v(a)?, self.v(b)?);
            self.select_regs(d, cr, va, vb);
        } else {
            let (sc, sa, sb) = (self.s(c)?, self.s(a)?, self.s(b)?);
            self.select_regs(d, sc, sa, sb);
        }
        Ok(())
    }

    pub(super) fn binary(&mut self, r: Value, o: BinOp, a: Value, b: Value) -> Result<(), CompileError> {
        let d = self.reg(r);
        let t = self.f.ty(r);
        let at = self.f.ty(a);
        if t == Ty::I64 || at == Ty::I64 {
            return Err(CompileError::unsupported("64-bit integer arithmetic (long/ulong)"));
        }
        if self.power_of_two(d, t, o, a, b)? || self.times_minus_one(r, o, a, b)? {
            return Ok(());
        }
        let signed_narrow = matches!(o, BinOp::ShrA | BinOp::DivS | BinOp::RemS | BinOp::MinS | BinOp::MaxS)
            && matches!(at, Ty::I8 | Ty::I16);
        let fm = forms(o);
        if !d.is_vector() {
            let imm = self.konst(b).filter(|k| fits12(*k));
            let has_imm_form = matches!(
                (o, imm),
                (BinOp::Add | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::ShrL | BinOp::ShrA, Some(_))
            ) || matches!((o, imm), (BinOp::Sub, Some(k)) if fits12(-k));
            let mut sa = self.s(a)?;
            let mut sb = if has_imm_form && !signed_narrow { ZERO } else { self.s(b)? };
            if signed_narrow {
                sa = self.sext(sa, at);
                if o != BinOp::ShrA {
                    sb = self.sext(sb, at);
                }
            }
            if at.is_float() && (sa == ZERO || sb == ZERO) {
                return Err(CompileError::Internal("x0 as a floating-point operand".into()));
            }
            // Immediate forms.
            let imm = if signed_narrow { None } else { imm };
            match (o, imm) {
                (BinOp::Add, Some(k)) => self.emit_rr(I::Addi, d, sa, ZERO, k),
                (BinOp::Sub, Some(k)) if fits12(-k) => self.emit_rr(I::Addi, d, sa, ZERO, -k),
                (BinOp::And, Some(k)) => self.emit_rr(I::Andi, d, sa, ZERO, k),
                (BinOp::Or, Some(k)) => self.emit_rr(I::Ori, d, sa, ZERO, k),
                (BinOp::Xor, Some(k)) => self.emit_rr(I::Xori, d, sa, ZERO, k),
                (BinOp::Shl, Some(k)) => self.emit_rr(I::Slli, d, sa, ZERO, k & 31),
                (BinOp::ShrL, Some(k)) => self.emit_rr(I::Srli, d, sa, ZERO, k & 31),
                (BinOp::ShrA, Some(k)) => self.emit_rr(I::Srai, d, sa, ZERO, k & 31),
                (BinOp::MinS | BinOp::MinU | BinOp::MaxS | BinOp::MaxU, _) => self.smin_max(d, o, sa, sb),
                _ => self.sbin(d, fm.s.expect("scalar form"), sa, sb),
            }
        } else {
            let (adiv, bdiv) = (self.div(a), self.div(b));
            let prep = |s: &mut Self, _v: Value, r: Reg| if signed_narrow { s.sext(r, at) } else { r };
            // The .vx forms when one operand is divergent and the other uniform (no sign extension needed).
            let vx = fm.vx.filter(|_| adiv && !bdiv && !signed_narrow);
            let rev_vx = fm.rev_vx.filter(|_| !adiv && bdiv && !signed_narrow);
            if let Some(vx) = vx {
                let va = self.v(a)?;
                let k = self.konst(b);
                let shift = matches!(o, BinOp::Shl | BinOp::ShrL | BinOp::ShrA);
                let imm_ok = |k: &i64| if shift { (0..32).contains(k) } else { (-16..16).contains(k) };
                if let (Some(vi), Some(k)) = (fm.vi, k.filter(imm_ok)) {
                    self.vxop(d, vi, va, None, k);
                } else {
                    let sb = self.s(b)?;
                    self.vxop(d, vx, va, Some(sb), 0);
                }
            } else if let Some(rev_vx) = rev_vx {
                let vb = self.v(b)?;
                let sa = self.s(a)?;
                self.vxop(d, rev_vx, vb, Some(sa), 0);
            } else {
                let va = self.v(a)?;
                let vb = self.v(b)?;
                let va = prep(self, a, va);
                let vb = if o == BinOp::ShrA { vb } else { prep(self, b, vb) };
                self.vvop(d, fm.vv, va, vb);
            }
        }
        if matches!(
            o,
            BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::Shl
                | BinOp::ShrA
                | BinOp::DivS
                | BinOp::RemS
                | BinOp::MinS
                | BinOp::MaxS
        ) {
            self.norm(d, t);
        }
        Ok(())
    }

    /// Strength reduction: an integer multiply by the constant −1 (all ones) is a negation
    /// (`a * -1` is how SPIR-V spells `(y - 1) * w` after reassociation). Returns whether it
    /// emitted code.
    fn times_minus_one(&mut self, r: Value, o: BinOp, a: Value, b: Value) -> Result<bool, CompileError> {
        let t = self.f.ty(r);
        if o != BinOp::Mul || t.is_float() || t.bits() > 32 {
            return Ok(false);
        }
        let all_ones = |s: &Self, v: Value| s.consts.get(&v).is_some_and(|&c| c & s.f.ty(v).mask() == s.f.ty(v).mask());
        let x = match (all_ones(self, b), all_ones(self, a)) {
            (true, _) => a,
            (_, true) => b,
            _ => return Ok(false),
        };
        self.unary(r, UnOp::Neg, x)?;
        Ok(true)
    }

    /// Strength reduction: an unsigned multiply, divide or remainder by a constant power of two
    /// (integers of at most 32 bits) becomes a shift or a mask. Returns whether it emitted code.
    fn power_of_two(&mut self, d: Reg, t: Ty, o: BinOp, a: Value, b: Value) -> Result<bool, CompileError> {
        if t.is_float() || t.bits() > 32 || !matches!(o, BinOp::Mul | BinOp::DivU | BinOp::RemU) {
            return Ok(false);
        }
        let pow2 = |s: &Self, v: Value| {
            s.consts
                .get(&v)
                .map(|&c| c & s.f.ty(v).mask())
                .filter(|c| c.is_power_of_two())
                .map(|c| c.trailing_zeros() as i64)
        };
        let (x, k) = match (o, pow2(self, b), pow2(self, a)) {
            (_, Some(k), _) => (a, k),
            (BinOp::Mul, None, Some(k)) => (b, k),
            _ => return Ok(false),
        };
        let vec = d.is_vector();
        let r = if vec { self.v(x)? } else { self.s(x)? };
        match (o, vec) {
            (BinOp::Mul, false) => self.emit_rr(I::Slli, d, r, ZERO, k),
            (BinOp::Mul, true) => self.vxop(d, I::VsllVi, r, None, k),
            (BinOp::DivU, false) => self.emit_rr(I::Srli, d, r, ZERO, k),
            (BinOp::DivU, true) => self.vxop(d, I::VsrlVi, r, None, k),
            _ => {
                let mask = (1i64 << k) - 1;
                match (vec, mask) {
                    (false, m) if fits12(m) => self.emit_rr(I::Andi, d, r, ZERO, m),
                    (true, m) if m < 16 => self.vxop(d, I::VandVi, r, None, m),
                    (_, m) => {
                        let sm = self.m.new_s();
                        self.li(sm, m);
                        if vec {
                            self.vxop(d, I::VandVx, r, Some(sm), 0);
                        } else {
                            self.sbin(d, I::And, r, sm);
                        }
                    }
                }
            }
        }
        if o == BinOp::Mul {
            self.norm(d, t);
        }
        Ok(true)
    }

    pub(super) fn unary(&mut self, r: Value, o: UnOp, a: Value) -> Result<(), CompileError> {
        let d = self.reg(r);
        let t = self.f.ty(r);
        let vec = d.is_vector();
        let x = if vec { self.v(a)? } else { self.s(a)? };
        match (o, vec) {
            (UnOp::Not, false) => self.emit_rr(I::Xori, d, x, ZERO, -1),
            (UnOp::Not, true) => self.vxop(d, I::VxorVi, x, None, -1),
            (UnOp::Neg, false) => self.sbin(d, I::Sub, ZERO, x),
            (UnOp::Neg, true) => self.vxop(d, I::VrsubVx, x, Some(ZERO), 0),
            (UnOp::FNeg, false) => self.sbin(d, I::FsgnjnS, x, x),
            (UnOp::FNeg, true) => self.vvop(d, I::VfsgnjnVv, x, x),
            (UnOp::FAbs, false) => self.sbin(d, I::FsgnjxS, x, x),
            (UnOp::FAbs, true) => self.vvop(d, I::VfsgnjxVv, x, x),
            (UnOp::FSqrt, false) => self.sbin(d, I::FsqrtS, x, ZERO),
            (UnOp::FSqrt, true) => self.vxop(d, I::VfsqrtV, x, None, 0),
            (UnOp::FExp, true) => self.vxop(d, I::VfexpV, x, None, 0),
            (UnOp::FExp, false) => {
                let v = self.m.new_v();
                self.emit_rr(I::VmvVX, v, x, ZERO, 0);
                self.vxop(v, I::VfexpV, v, None, 0);
                let mut m = MInst::new(MOp::I(I::VmvXS));
                m.rd = Some(d);
                m.rs2 = Some(v);
                self.push(m);
            }
            (UnOp::FFloor | UnOp::FCeil | UnOp::FTrunc | UnOp::FRint, _) => self.round(d, o, x),
            (UnOp::Clz, _) => self.clz(d, x),
            (UnOp::Popcount, _) => self.popcount(d, x),
        }
        if matches!(o, UnOp::Not | UnOp::Neg) {
            self.norm(d, t);
        }
        Ok(())
    }

    /// floor/ceil/trunc/rint: integer round trip for |x| < 2^23, x itself otherwise (large,
    /// infinite, NaN), sign restored (so -0.5 → -0.0 for ceil/trunc).
    fn round(&mut self, d: Reg, o: UnOp, x: Reg) {
        let mode = match o {
            UnOp::FFloor => 2,
            UnOp::FCeil => 3,
            UnOp::FTrunc => 1,
            _ => 0,
        };
        let big = self.m.new_s();
        self.li(big, 0x4b00_0000);
        if d.is_vector() {
            let i = self.m.new_v();
            if mode == 1 {
                self.vxop(i, I::VfcvtRtzXFV, x, None, 0);
            } else {
                self.emit_rr(I::Csrrwi, ZERO, Reg::X(mode), ZERO, csr::FRM as i64);
                self.vxop(i, I::VfcvtXFV, x, None, 0);
                self.emit_rr(I::Csrrwi, ZERO, Reg::X(0), ZERO, csr::FRM as i64);
            }
            let rr = self.m.new_v();
            self.vxop(rr, I::VfcvtFXV, i, None, 0);
            self.vvop(rr, I::VfsgnjVv, rr, x);
            let ab = self.m.new_v();
            self.vvop(ab, I::VfsgnjxVv, x, x);
            let vb = self.m.new_v();
            self.emit_rr(I::VmvVX, vb, big, ZERO, 0);
            let small = self.m.new_v();
            self.vvop(small, I::VmfltVv, ab, vb);
            self.select_regs(d, small, rr, x);
        } else {
            let i = self.m.new_s();
            let mut m = MInst::new(MOp::I(I::FcvtWS));
            m.rd = Some(i);
            m.rs1 = Some(x);
            m.imm = mode as i64;
            self.push(m);
            let rr = self.m.new_s();
            let mut m = MInst::new(MOp::I(I::FcvtSW));
            m.rd = Some(rr);
            m.rs1 = Some(i);
            m.imm = 7;
            self.push(m);
            self.sbin(rr, I::FsgnjS, rr, x);
            let ab = self.m.new_s();
            self.sbin(ab, I::FsgnjxS, x, x);
            let small = self.m.new_s();
            self.sbin(small, I::FltS, ab, big);
            self.select_regs(d, small, rr, x);
        }
    }

    /// clz via an exact (round-toward-zero) int → float conversion: 158 − biased exponent;
    /// 32 for zero.
    fn clz(&mut self, d: Reg, x: Reg) {
        let c158 = self.m.new_s();
        self.li(c158, 158);
        let c32 = self.m.new_s();
        self.li(c32, 32);
        if d.is_vector() {
            let fl = self.m.new_v();
            self.emit_rr(I::Csrrwi, ZERO, Reg::X(1), ZERO, csr::FRM as i64);
            self.vxop(fl, I::VfcvtFXuV, x, None, 0);
            self.emit_rr(I::Csrrwi, ZERO, Reg::X(0), ZERO, csr::FRM as i64);
            self.vxop(fl, I::VsrlVi, fl, None, 23);
            let r = self.m.new_v();
            self.vxop(r, I::VrsubVx, fl, Some(c158), 0);
            let z = self.m.new_v();
            self.vxop(z, I::VmseqVi, x, None, 0);
            let v32 = self.m.new_v();
            self.emit_rr(I::VmvVX, v32, c32, ZERO, 0);
            self.select_regs(d, z, v32, r);
        } else {
            let fl = self.m.new_s();
            let mut m = MInst::new(MOp::I(I::FcvtSWu));
            m.rd = Some(fl);
            m.rs1 = Some(x);
            m.imm = 1;
            self.push(m);
            self.emit_rr(I::Srli, fl, fl, ZERO, 23);
            let r = self.m.new_s();
            self.sbin(r, I::Sub, c158, fl);
            let z = self.m.new_s();
            self.emit_rr(I::Sltiu, z, x, ZERO, 1);
            self.select_regs(d, z, c32, r);
        }
    }

    /// Population count (SWAR).
    fn popcount(&mut self, d: Reg, x: Reg) {
        let vec = d.is_vector();
        let new = |s: &mut Self| if vec { s.m.new_v() } else { s.m.new_s() };
        let konst = |s: &mut Self, k: i64| {
            let r = s.m.new_s();
            s.li(r, k);
            r
        };
        let (m1, m2, m4, h01) =
            (konst(self, 0x5555_5555), konst(self, 0x3333_3333), konst(self, 0x0f0f_0f0f), konst(self, 0x0101_0101));
        let (t, u) = (new(self), new(self));
        if vec {
            self.vxop(t, I::VsrlVi, x, None, 1);
            self.vxop(t, I::VandVx, t, Some(m1), 0);
            self.vvop(t, I::VsubVv, x, t);
            self.vxop(u, I::VsrlVi, t, None, 2);
            self.vxop(u, I::VandVx, u, Some(m2), 0);
            self.vxop(t, I::VandVx, t, Some(m2), 0);
            self.vvop(t, I::VaddVv, t, u);
            self.vxop(u, I::VsrlVi, t, None, 4);
            self.vvop(t, I::VaddVv, t, u);
            self.vxop(t, I::VandVx, t, Some(m4), 0);
            self.vxop(t, I::VmulVx, t, Some(h01), 0);
            self.vxop(d, I::VsrlVi, t, None, 24);
        } else {
            self.emit_rr(I::Srli, t, x, ZERO, 1);
            self.sbin(t, I::And, t, m1);
            self.sbin(t, I::Sub, x, t);
            self.emit_rr(I::Srli, u, t, ZERO, 2);
            self.sbin(u, I::And, u, m2);
            self.sbin(t, I::And, t, m2);
            self.sbin(t, I::Add, t, u);
            self.emit_rr(I::Srli, u, t, ZERO, 4);
            self.sbin(t, I::Add, t, u);
            self.sbin(t, I::And, t, m4);
            self.sbin(t, I::Mul, t, h01);
            self.emit_rr(I::Srli, d, t, ZERO, 24);
        }
    }

    pub(super) fn compare(&mut self, r: Value, o: CmpOp, a: Value, b: Value) -> Result<(), CompileError> {
        use CmpOp as C;
        let d = self.reg(r);
        let at = self.f.ty(a);
        if at == Ty::I64 {
            return Err(CompileError::unsupported("64-bit integer comparisons"));
        }
        let signed = matches!(o, C::LtS | C::LeS | C::GtS | C::GeS);
        if !d.is_vector() {
            let (mut x, mut y) = (self.s(a)?, self.s(b)?);
            if signed {
                x = self.sext(x, at);
                y = self.sext(y, at);
            }
            let t = self.m.new_s();
            match o {
                C::Eq | C::Ne => {
                    self.sbin(t, I::Xor, x, y);
                    if o == C::Eq {
                        self.emit_rr(I::Sltiu, d, t, ZERO, 1);
                    } else {
                        self.sbin(d, I::Sltu, ZERO, t);
                    }
                }
                C::LtS => self.sbin(d, I::Slt, x, y),
                C::LtU => self.sbin(d, I::Sltu, x, y),
                C::GtS => self.sbin(d, I::Slt, y, x),
                C::GtU => self.sbin(d, I::Sltu, y, x),
                C::LeS | C::LeU | C::GeS | C::GeU => {
                    let op = if signed { I::Slt } else { I::Sltu };
                    let (p, q) = if matches!(o, C::LeS | C::LeU) { (y, x) } else { (x, y) };
                    self.sbin(t, op, p, q);
                    self.emit_rr(I::Xori, d, t, ZERO, 1);
                }
                C::FEq => self.sbin(d, I::FeqS, x, y),
                C::FLt => self.sbin(d, I::FltS, x, y),
                C::FLe => self.sbin(d, I::FleS, x, y),
                C::FGt => self.sbin(d, I::FltS, y, x),
                C::FGe => self.sbin(d, I::FleS, y, x),
                C::FNe => {
                    let u = self.m.new_s();
                    self.sbin(t, I::FltS, x, y);
                    self.sbin(u, I::FltS, y, x);
                    self.sbin(d, I::Or, t, u);
                }
                C::FOrd | C::FUno => {
                    if a == b {
                        // `isnan(x)` / `!isnan(x)`: one self-comparison.
                        self.sbin(d, I::FeqS, x, x);
                    } else {
                        let u = self.m.new_s();
                        self.sbin(t, I::FeqS, x, x);
                        self.sbin(u, I::FeqS, y, y);
                        self.sbin(d, I::And, t, u);
                    }
                    if o == C::FUno {
                        self.emit_rr(I::Xori, d, d, ZERO, 1);
                    }
                }
            }
            return Ok(());
        }
        if self.compare_with_uniform(d, o, a, b, at)? {
            return Ok(());
        }
        let (mut x, mut y) = (self.v(a)?, self.v(b)?);
        if signed {
            x = self.sext(x, at);
            y = self.sext(y, at);
        }
        match o {
            C::Eq => self.vvop(d, I::VmseqVv, x, y),
            C::Ne => self.vvop(d, I::VmsneVv, x, y),
            C::LtS => self.vvop(d, I::VmsltVv, x, y),
            C::LtU => self.vvop(d, I::VmsltuVv, x, y),
            C::LeS => self.vvop(d, I::VmsleVv, x, y),
            C::LeU => self.vvop(d, I::VmsleuVv, x, y),
            C::GtS => self.vvop(d, I::VmsltVv, y, x),
            C::GtU => self.vvop(d, I::VmsltuVv, y, x),
            C::GeS => self.vvop(d, I::VmsleVv, y, x),
            C::GeU => self.vvop(d, I::VmsleuVv, y, x),
            C::FEq => self.vvop(d, I::VmfeqVv, x, y),
            C::FLt => self.vvop(d, I::VmfltVv, x, y),
            C::FLe => self.vvop(d, I::VmfleVv, x, y),
            C::FGt => self.vvop(d, I::VmfltVv, y, x),
            C::FGe => self.vvop(d, I::VmfleVv, y, x),
            C::FNe => {
                let t = self.m.new_v();
                self.vvop(t, I::VmfltVv, x, y);
                self.vvop(d, I::VmfltVv, y, x);
                self.vvop(d, I::VorVv, d, t);
            }
            C::FOrd | C::FUno => {
                if a == b {
                    self.vvop(d, I::VmfeqVv, x, x);
                } else {
                    let t = self.m.new_v();
                    self.vvop(t, I::VmfeqVv, x, x);
                    self.vvop(d, I::VmfeqVv, y, y);
                    self.vvop(d, I::VandVv, d, t);
                }
                if o == C::FUno {
                    self.vxop(d, I::VxorVi, d, None, 1);
                }
            }
        }
        Ok(())
    }

    /// An integer comparison of a divergent and a uniform operand with the `.vx` form (the
    /// scalar is not broadcast) or, for a small constant, the `.vi` form. The unsigned `.vi`
    /// forms are avoided (the reference simulator reads their immediate unsigned). Returns
    /// whether it emitted code (`>=` has no such form).
    fn compare_with_uniform(&mut self, d: Reg, o: CmpOp, a: Value, b: Value, at: Ty) -> Result<bool, CompileError> {
        use CmpOp as C;
        let (da, db) = (self.div(a), self.div(b));
        if da == db || matches!(o, C::FEq | C::FNe | C::FLt | C::FLe | C::FGt | C::FGe | C::FOrd | C::FUno) {
            return Ok(false);
        }
        // `vector op uniform`, swapping the sides when the uniform one comes first.
        let (vec, uni, o) = if da {
            (a, b, o)
        } else {
            let swapped = match o {
                C::LtS => C::GtS,
                C::LeS => C::GeS,
                C::GtS => C::LtS,
                C::GeS => C::LeS,
                C::LtU => C::GtU,
                C::LeU => C::GeU,
                C::GtU => C::LtU,
                C::GeU => C::LeU,
                other => other,
            };
            (b, a, swapped)
        };
        let (vx, vi) = match o {
            C::Eq => (I::VmseqVx, Some(I::VmseqVi)),
            C::Ne => (I::VmsneVx, Some(I::VmsneVi)),
            C::LtS => (I::VmsltVx, None),
            C::LtU => (I::VmsltuVx, None),
            C::LeS => (I::VmsleVx, Some(I::VmsleVi)),
            C::LeU => (I::VmsleuVx, None),
            C::GtS => (I::VmsgtVx, Some(I::VmsgtVi)),
            C::GtU => (I::VmsgtuVx, None),
            _ => return Ok(false),
        };
        let signed = matches!(o, C::LtS | C::LeS | C::GtS | C::GeS);
        let mut x = self.v(vec)?;
        if signed {
            x = self.sext(x, at);
        }
        // Narrow constants are zero-extended in registers: only small non-negative ones read
        // the same as a sign-extended 5-bit immediate.
        let small =
            self.konst(uni).filter(|k| if at == Ty::I32 { (-16..=15).contains(k) } else { (0..=15).contains(k) });
        match (vi, small) {
            (Some(op), Some(k)) => self.vxop(d, op, x, None, k),
            _ => {
                let mut y = self.s(uni)?;
                if signed {
                    y = self.sext(y, at);
                }
                self.vxop(d, vx, x, Some(y), 0);
            }
        }
        Ok(true)
    }

    pub(super) fn convert(&mut self, r: Value, o: ConvOp, a: Value) -> Result<(), CompileError> {
        let d = self.reg(r);
        let (t, at) = (self.f.ty(r), self.f.ty(a));
        if t == Ty::I64 || at == Ty::I64 {
            return Err(CompileError::unsupported("64-bit integer conversions"));
        }
        if matches!(o, ConvOp::HalfToFloat | ConvOp::FloatToHalf | ConvOp::RoundHalf) {
            // `pass::half` expands them in `pass::run`.
            return Err(CompileError::Internal(format!("{o:?} reached instruction selection")));
        }
        if !d.is_vector() {
            let x = self.s(a)?;
            let fop = |op: I, rm: i64, s: &mut Self| {
                let mut m = MInst::new(MOp::I(op));
                m.rd = Some(d);
                m.rs1 = Some(x);
                m.imm = rm;
                s.push(m);
            };
            match o {
                ConvOp::ZExt | ConvOp::Bitcast => self.emit_rr(I::Addi, d, x, ZERO, 0),
                ConvOp::SExt => {
                    let e = self.sext(x, at);
                    self.emit_rr(I::Addi, d, e, ZERO, 0);
                    self.norm(d, t);
                }
                ConvOp::Trunc => {
                    self.emit_rr(I::Addi, d, x, ZERO, 0);
                    self.norm(d, t);
                }
                ConvOp::FToS => fop(I::FcvtWS, 1, self),
                ConvOp::FToU => fop(I::FcvtWuS, 1, self),
                ConvOp::SToF => fop(I::FcvtSW, 7, self),
                ConvOp::UToF => fop(I::FcvtSWu, 7, self),
                ConvOp::HalfToFloat | ConvOp::FloatToHalf | ConvOp::RoundHalf => {} // returned above
            }
        } else {
            let x = self.v(a)?;
            match o {
                ConvOp::ZExt | ConvOp::Bitcast => self.vxop(d, I::VaddVx, x, Some(ZERO), 0),
                ConvOp::SExt => {
                    let e = self.sext(x, at);
                    self.vxop(d, I::VaddVx, e, Some(ZERO), 0);
                    self.norm(d, t);
                }
                ConvOp::Trunc => {
                    self.vxop(d, I::VaddVx, x, Some(ZERO), 0);
                    self.norm(d, t);
                }
                ConvOp::FToS => self.vxop(d, I::VfcvtRtzXFV, x, None, 0),
                ConvOp::FToU => self.vxop(d, I::VfcvtRtzXuFV, x, None, 0),
                ConvOp::SToF => self.vxop(d, I::VfcvtFXV, x, None, 0),
                ConvOp::UToF => self.vxop(d, I::VfcvtFXuV, x, None, 0),
                ConvOp::HalfToFloat | ConvOp::FloatToHalf | ConvOp::RoundHalf => {} // returned above
            }
        }
        Ok(())
    }

    pub(super) fn load(&mut self, r: Value, p: Value) -> Result<(), CompileError> {
        let d = self.reg(r);
        let t = self.f.ty(r);
        let space = match self.f.ty(p) {
            Ty::Ptr(s) => s,
            _ => Space::Global,
        };
        if space == Space::Private {
            let (base, k) = self.address(p, -1024, 1024);
            let vb = self.v(base)?;
            let op = match t {
                Ty::I8 | Ty::I1 => I::VlbuV,
                Ty::I16 => I::VlhuV,
                _ => I::VlwV,
            };
            let mut m = MInst::new(MOp::I(op));
            m.rd = Some(d);
            m.rs1 = Some(vb);
            m.imm = k;
            self.push(m);
            return Ok(());
        }
        let (base, k) = self.address(p, -2048, 2048);
        if !d.is_vector() {
            let sb = self.s(base)?;
            let op = match t {
                Ty::I8 | Ty::I1 => I::Lbu,
                Ty::I16 => I::Lhu,
                _ => I::Lw,
            };
            self.emit_rr(op, d, sb, ZERO, k);
        } else {
            let vb = self.v(base)?;
            let op = match t {
                Ty::I8 | Ty::I1 => I::Vlbu12V,
                Ty::I16 => I::Vlhu12V,
                _ => I::Vlw12V,
            };
            let mut m = MInst::new(MOp::I(op));
            m.rd = Some(d);
            m.rs1 = Some(vb);
            m.imm = k;
            self.push(m);
        }
        Ok(())
    }

    pub(super) fn store(&mut self, p: Value, v: Value) -> Result<(), CompileError> {
        let t = self.f.ty(v);
        if t == Ty::I64 {
            return Err(CompileError::unsupported("64-bit integer stores"));
        }
        let space = match self.f.ty(p) {
            Ty::Ptr(s) => s,
            _ => Space::Global,
        };
        let wide = |a: I, b: I, c: I| match t {
            Ty::I8 | Ty::I1 => a,
            Ty::I16 => b,
            _ => c,
        };
        if space == Space::Private {
            let (base, k) = self.address(p, -1024, 1024);
            let (vb, vv) = (self.v(base)?, self.v(v)?);
            let mut m = MInst::new(MOp::I(wide(I::VsbV, I::VshV, I::VswV)));
            m.rs1 = Some(vb);
            m.rs2 = Some(vv);
            m.imm = k;
            self.push(m);
            return Ok(());
        }
        let (base, k) = self.address(p, -2048, 2048);
        if !self.div(base) && !self.div(v) {
            let (sb, sv) = (self.s(base)?, self.s(v)?);
            let mut m = MInst::new(MOp::I(wide(I::Sb, I::Sh, I::Sw)));
            m.rs1 = Some(sb);
            m.rs2 = Some(sv);
            m.imm = k;
            self.push(m);
        } else {
            let (vb, vv) = (self.v(base)?, self.v(v)?);
            let mut m = MInst::new(MOp::I(wide(I::Vsb12V, I::Vsh12V, I::Vsw12V)));
            m.rs1 = Some(vb);
            m.rs2 = Some(vv);
            m.imm = k;
            self.push(m);
        }
        Ok(())
    }

    pub(super) fn atomic(&mut self, r: Value, o: AtomicOp, p: Value, v: Value) -> Result<(), CompileError> {
        let d = self.reg(r);
        let vp = self.v(p)?;
        let mut vv = self.v(v)?;
        let op = match o {
            AtomicOp::Add => I::AmoaddW,
            AtomicOp::Sub => {
                let n = self.m.new_v();
                self.vxop(n, I::VrsubVx, vv, Some(ZERO), 0);
                vv = n;
                I::AmoaddW
            }
            AtomicOp::Xchg => I::AmoswapW,
            AtomicOp::And => I::AmoandW,
            AtomicOp::Or => I::AmoorW,
            AtomicOp::Xor => I::AmoxorW,
            AtomicOp::MinS => I::AmominW,
            AtomicOp::MaxS => I::AmomaxW,
            AtomicOp::MinU => I::AmominuW,
            AtomicOp::MaxU => I::AmomaxuW,
        };
        let mut m = MInst::new(MOp::I(op));
        m.rd = Some(d);
        m.rs1 = Some(vp);
        m.rs2 = Some(vv);
        self.push(m);
        Ok(())
    }

    /// The vector register that receives the old high word of the [`Op::CmpXchg64`] whose
    /// result is `c`.
    pub(super) fn cas_hi_reg(&mut self, c: Value) -> Reg {
        if let Some(r) = self.cas_hi.get(&c) {
            return *r;
        }
        let r = self.m.new_v();
        self.cas_hi.insert(c, r);
        r
    }

    /// `amocas.d` through the fixed register pairs [`CAS64_EXPECTED`] (expected value in, old
    /// value out) and [`CAS64_DESIRED`]: copies in, the CAS, copies out (low word to the result's
    /// register, high word to [`Self::cas_hi_reg`]). Nothing else runs between the copies, so the
    /// four registers are never live across other code (the allocator keeps them out of its
    /// pool in functions that contain `amocas.d`).
    pub(super) fn cmpxchg64(
        &mut self,
        r: Value,
        p: Value,
        expected: [Value; 2],
        desired: [Value; 2],
    ) -> Result<(), CompileError> {
        let d = self.reg(r);
        if !d.is_vector() {
            return Err(CompileError::Internal("uniform 64-bit compare-exchange result".into()));
        }
        let vp = self.v(p)?;
        let srcs = [self.v(expected[0])?, self.v(expected[1])?, self.v(desired[0])?, self.v(desired[1])?];
        let (e, n) = (CAS64_EXPECTED, CAS64_DESIRED);
        for (k, src) in srcs.into_iter().enumerate() {
            self.emit_rr(I::VaddVx, Reg::PV([e, e + 1, n, n + 1][k]), ZERO, src, 0);
        }
        let mut m = MInst::new(MOp::I(I::AmocasD));
        m.rd = Some(Reg::PV(e));
        m.rs1 = Some(vp);
        m.rs2 = Some(Reg::PV(n));
        self.push(m);
        let h = self.cas_hi_reg(r);
        self.emit_rr(I::VaddVx, d, ZERO, Reg::PV(e), 0);
        self.emit_rr(I::VaddVx, h, ZERO, Reg::PV(e + 1), 0);
        Ok(())
    }

    /// An out-of-line subroutine call (`target::call`): arguments into the callee level's
    /// argument registers, `jal`, result words out of them (the [`Op::CallRes`] values of this
    /// call get their registers here).
    pub(super) fn call(&mut self, r: Value, sub: u32, args: &[Value]) -> Result<(), CompileError> {
        use super::super::call;
        let name = self
            .f
            .callees
            .get(sub as usize)
            .cloned()
            .ok_or(CompileError::Internal(format!("call of unknown subroutine #{sub}")))?;
        let lv = call::level_of(&name).ok_or(CompileError::Internal(format!("{name} is not a subroutine")))?;
        if !call::may_call(self.m.level, lv) || args.len() > crate::abi::subroutine::max_words(lv) {
            return Err(CompileError::Internal(format!("bad call of {name} from level {}", self.m.level)));
        }
        let base = call::level(lv).args;
        let mut outs = vec![(r, 0u32)];
        outs.extend(self.callres.get(&r).cloned().unwrap_or_default());
        if self.u.uniform_calls.contains(&r) {
            // The uniform variant: scalar words broadcast into the argument registers, results
            // read back from the highest active lane.
            let srcs = args.iter().map(|a| self.s(*a)).collect::<Result<Vec<_>, _>>()?;
            for (k, src) in srcs.into_iter().enumerate() {
                self.emit_rr(I::VmvVX, Reg::PV(base + k as u8), src, ZERO, 0);
            }
            self.push(MInst { imm: args.len() as i64, ..MInst::new(MOp::Call(call::uniform_name(&name))) });
            for (v, k) in outs {
                let d = self.reg(v);
                if d.is_vector() {
                    // A lane-wise copy (a loop's divergent exit): the active lanes get the value.
                    let t = self.m.new_s();
                    self.emit_rr(I::VmvXS, t, ZERO, Reg::PV(base + k as u8), 0);
                    self.emit_rr(I::VmvVX, d, t, ZERO, 0);
                } else {
                    self.emit_rr(I::VmvXS, d, ZERO, Reg::PV(base + k as u8), 0);
                }
            }
            return Ok(());
        }
        let srcs = args.iter().map(|a| self.v(*a)).collect::<Result<Vec<_>, _>>()?;
        for (k, src) in srcs.into_iter().enumerate() {
            self.emit_rr(I::VaddVx, Reg::PV(base + k as u8), ZERO, src, 0);
        }
        // `imm`: the argument words the call reads (`call::implicit_words`).
        self.push(MInst { imm: args.len() as i64, ..MInst::new(MOp::Call(name)) });
        for (v, k) in outs {
            let d = self.reg(v);
            if !d.is_vector() {
                return Err(CompileError::Internal("uniform subroutine result".into()));
            }
            self.emit_rr(I::VaddVx, d, ZERO, Reg::PV(base + k as u8), 0);
        }
        Ok(())
    }

    pub(super) fn terminator(&mut self, bi: usize, preds: &[Vec<BlockId>]) -> Result<(), CompileError> {
        // φ copies for a single successor with several predecessors.
        if let Term::Br(t) = self.f.blocks[bi].term {
            if preds[t.0 as usize].len() > 1 {
                let me = BlockId(bi as u32);
                let copies: Vec<(Value, Value)> = self
                    .f
                    .block(t)
                    .insts
                    .iter()
                    .filter_map(|i| match &i.op {
                        Op::Phi(ins) => Some((i.result?, ins.iter().find(|(b, _)| *b == me)?.1)),
                        _ => None,
                    })
                    .collect();
                self.parallel_copy(&copies)?;
            }
        }
        match self.f.blocks[bi].term.clone() {
            Term::Ret | Term::Unreachable => {
                if self.m.calls {
                    let save = Reg::X(super::super::call::level(self.m.level).ra_save);
                    self.emit_rr(I::Addi, RA, save, ZERO, 0);
                }
                let mut m = MInst::new(MOp::I(I::Jalr));
                m.rd = Some(ZERO);
                m.rs1 = Some(RA);
                self.push(m);
            }
            Term::Br(t) => {
                let mut m = MInst::new(MOp::Jump);
                m.target = Some(t.0);
                self.push(m);
            }
            Term::CondBr { cond, then_, else_ } => {
                if self.div(cond) {
                    let p = self
                        .u
                        .branches
                        .iter()
                        .find(|(b, _)| b.0 as usize == bi)
                        .map(|(_, p)| *p)
                        .ok_or(CompileError::Internal("divergent branch without reconvergence point".into()))?;
                    let c = self.reg(cond);
                    let mut rpc = MInst::new(MOp::SetRpc);
                    rpc.target = Some(p.0);
                    self.push(rpc);
                    let mut br = MInst::new(MOp::Branch(I::Vbne));
                    br.rs2 = Some(c);
                    br.rs1 = Some(VZERO);
                    br.target = Some(then_.0);
                    self.push(br);
                } else {
                    let c = self.s(cond)?;
                    let mut br = MInst::new(MOp::Branch(I::Bne));
                    br.rs1 = Some(c);
                    br.rs2 = Some(ZERO);
                    br.target = Some(then_.0);
                    self.push(br);
                }
                let mut j = MInst::new(MOp::Jump);
                j.target = Some(else_.0);
                self.push(j);
            }
        }
        Ok(())
    }
}
