//! 64-bit integer legalization: rewrites every `i64` value into a (lo, hi) pair of `i32` values,
//! so that instruction selection and register allocation never see `Ty::I64`.
//!
//! Contract: runs after [`super::run`] and before critical-edge splitting and the uniformity
//! analysis. On success no instruction defines or reads an `i64` value (the old `i64` value
//! numbers stay allocated but undefined; their type is reset to `i32`). Little-endian layout: a
//! 64-bit load/store is two word accesses, low word first; a 64-bit kernel argument is two
//! argument words.
//!
//! Semantics follow OpenCL C: arithmetic wraps modulo 2^64; shift amounts are taken modulo 64;
//! division by zero does not fault (the result is unspecified) and `INT64_MIN / -1` wraps;
//! `float → long` conversions saturate and map NaN to 0; `long → float` rounds to nearest even.
//! Division of operands whose upper halves are zero (at run time) is one 32-bit division;
//! any other uses a 64-iteration restoring loop (new blocks); everything else is branch-free.
//!
//! 64-bit atomics (`cl_khr_int64_*_atomics`, C11 `atomic_long`) survive as one operation,
//! [`Op::CmpXchg64`] (→ `amocas.d`, a per-lane 64-bit compare-and-swap on register pairs), whose
//! result is the old low word and whose old high word is read by [`Op::CmpXchg64Hi`]. A
//! compare-exchange is that operation alone; every read-modify-write (add, sub, xchg, and, or,
//! xor, min, max) is a compare-and-swap loop: guess the old value with two plain word loads, then
//! `new = op(old, v)`, `seen = cas(ptr, old, new)` and retry with `old = seen` until
//! `seen == old`. Each lane retries until its own CAS succeeds (the loop's exit branch is
//! divergent and reconverges after the loop), and among lanes contending for one address one
//! succeeds per iteration, so the loop ends for every lane. A torn guess only costs one more
//! iteration.

use super::super::ir::*;
use super::super::CompileError;
use std::collections::{HashMap, HashSet};

type Pair = (Value, Value);

struct Lz<'a> {
    f: &'a mut Func,
    pairs: HashMap<Value, Pair>,
    cur: BlockId,
    out: Vec<Inst>,
    /// Source location of the instruction being legalized (given to its replacements).
    loc: SrcLoc,
    /// Loop headers created here (their φs already name the right predecessors).
    headers: HashSet<BlockId>,
}

/// Legalizes every 64-bit integer operation of `f`.
pub fn legalize(f: &mut Func) -> Result<(), CompileError> {
    let wide: Vec<Value> = (0..f.types.len() as u32).map(Value).filter(|v| f.ty(*v) == Ty::I64).collect();
    if wide.is_empty() {
        return Ok(());
    }
    let mut pairs = HashMap::new();
    for v in &wide {
        let lo = f.new_value(Ty::I32);
        let hi = f.new_value(Ty::I32);
        pairs.insert(*v, (lo, hi));
    }
    let n = f.blocks.len();
    let mut last = vec![BlockId(0); n];
    let mut lz = Lz { f, pairs, cur: BlockId(0), out: Vec::new(), loc: SrcLoc::NONE, headers: HashSet::new() };
    for (bi, slot) in last.iter_mut().enumerate() {
        let b = BlockId(bi as u32);
        let insts = std::mem::take(&mut lz.f.block_mut(b).insts);
        let term = std::mem::replace(&mut lz.f.block_mut(b).term, Term::Unreachable);
        lz.cur = b;
        lz.out = Vec::new();
        for i in insts {
            lz.inst(i)?;
        }
        let cur = lz.cur;
        lz.f.block_mut(cur).insts = std::mem::take(&mut lz.out);
        lz.f.block_mut(cur).term = term;
        *slot = cur;
    }
    // φs of the original blocks name the block where each predecessor now ends.
    let headers = std::mem::take(&mut lz.headers);
    for (bi, blk) in f.blocks.iter_mut().enumerate() {
        if headers.contains(&BlockId(bi as u32)) {
            continue;
        }
        for i in &mut blk.insts {
            if let Op::Phi(ins) = &mut i.op {
                for (p, _) in ins.iter_mut() {
                    if (p.0 as usize) < n {
                        *p = last[p.0 as usize];
                    }
                }
            }
        }
    }
    for v in wide {
        f.types[v.0 as usize] = Ty::I32;
    }
    Ok(())
}

fn internal(op: &Op) -> CompileError {
    CompileError::Internal(format!("64-bit legalization: unexpected {op:?}"))
}

impl Lz<'_> {
    fn is64(&self, v: Value) -> bool {
        self.f.ty(v) == Ty::I64
    }

    fn e(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.f.new_value(ty);
        self.out.push(Inst::at(Some(v), op, self.loc));
        v
    }

    fn k(&mut self, c: u32) -> Value {
        self.e(Ty::I32, Op::Const(c as u64))
    }

    fn bin(&mut self, o: BinOp, a: Value, b: Value) -> Value {
        self.e(Ty::I32, Op::Bin(o, a, b))
    }

    fn cmp(&mut self, o: CmpOp, a: Value, b: Value) -> Value {
        self.e(Ty::I1, Op::Cmp(o, a, b))
    }

    fn and1(&mut self, a: Value, b: Value) -> Value {
        self.e(Ty::I1, Op::Bin(BinOp::And, a, b))
    }

    fn or1(&mut self, a: Value, b: Value) -> Value {
        self.e(Ty::I1, Op::Bin(BinOp::Or, a, b))
    }

    fn not1(&mut self, a: Value) -> Value {
        self.e(Ty::I1, Op::Un(UnOp::Not, a))
    }

    fn sel(&mut self, c: Value, a: Value, b: Value) -> Value {
        self.e(Ty::I32, Op::Select(c, a, b))
    }

    fn sel2(&mut self, c: Value, a: Pair, b: Pair) -> Pair {
        (self.sel(c, a.0, b.0), self.sel(c, a.1, b.1))
    }

    fn zext1(&mut self, c: Value) -> Value {
        self.e(Ty::I32, Op::Conv(ConvOp::ZExt, c))
    }

    fn kpair(&mut self, c: u64) -> Pair {
        (self.k(c as u32), self.k((c >> 32) as u32))
    }

    fn pair(&self, v: Value) -> Result<Pair, CompileError> {
        self.pairs.get(&v).copied().ok_or(CompileError::Internal(format!("64-bit value %{} without halves", v.0)))
    }

    /// Defines the halves of `r` as copies of `p`.
    fn def(&mut self, r: Value, p: Pair) -> Result<(), CompileError> {
        let (lo, hi) = self.pair(r)?;
        self.out.push(Inst::at(Some(lo), Op::Copy(p.0), self.loc));
        self.out.push(Inst::at(Some(hi), Op::Copy(p.1), self.loc));
        Ok(())
    }

    /// A 32-bit word of a shift amount (or any integer operand) of type i64 or narrower.
    fn low_word(&mut self, v: Value) -> Result<Value, CompileError> {
        Ok(match self.f.ty(v) {
            Ty::I64 => self.pair(v)?.0,
            Ty::I32 => v,
            Ty::I1 | Ty::I8 | Ty::I16 => self.e(Ty::I32, Op::Conv(ConvOp::ZExt, v)),
            t => return Err(CompileError::Internal(format!("64-bit legalization: operand of type {t:?}"))),
        })
    }

    fn inst(&mut self, i: Inst) -> Result<(), CompileError> {
        self.loc = i.loc;
        let rt = i.result.map(|r| self.f.ty(r));
        let wide_use = i.op.operands().iter().any(|v| self.is64(*v));
        if rt != Some(Ty::I64) && !wide_use {
            self.out.push(i);
            return Ok(());
        }
        let Some(r) = i.result else {
            return match i.op {
                Op::Store { ptr, value } => {
                    let (lo, hi) = self.pair(value)?;
                    let p4 = self.ptr_add(ptr, 4);
                    self.out.push(Inst::at(None, Op::Store { ptr, value: lo }, self.loc));
                    self.out.push(Inst::at(None, Op::Store { ptr: p4, value: hi }, self.loc));
                    Ok(())
                }
                ref op => Err(internal(op)),
            };
        };
        if rt != Some(Ty::I64) {
            // A narrower result computed from 64-bit operands.
            let v = match i.op {
                Op::Cmp(o, a, b) => {
                    let (a, b) = (self.pair(a)?, self.pair(b)?);
                    self.compare(o, a, b)
                }
                Op::Conv(ConvOp::Trunc | ConvOp::Bitcast, a) => {
                    let lo = self.pair(a)?.0;
                    let t = rt.unwrap_or(Ty::I32);
                    match t {
                        Ty::I32 => lo,
                        Ty::Ptr(_) | Ty::F32 => self.e(t, Op::Conv(ConvOp::Bitcast, lo)),
                        _ => self.e(t, Op::Conv(ConvOp::Trunc, lo)),
                    }
                }
                Op::Conv(ConvOp::UToF, a) => {
                    let a = self.pair(a)?;
                    self.utof(a)
                }
                Op::Conv(ConvOp::SToF, a) => {
                    let a = self.pair(a)?;
                    self.stof(a)
                }
                ref op => return Err(internal(op)),
            };
            self.out.push(Inst::at(Some(r), Op::Copy(v), self.loc));
            return Ok(());
        }
        let p = match i.op {
            Op::Const(c) => self.kpair(c),
            Op::Undef => (self.e(Ty::I32, Op::Undef), self.e(Ty::I32, Op::Undef)),
            Op::ArgWord { offset } => {
                (self.e(Ty::I32, Op::ArgWord { offset }), self.e(Ty::I32, Op::ArgWord { offset: offset + 4 }))
            }
            Op::Load(ptr) => {
                let lo = self.e(Ty::I32, Op::Load(ptr));
                let p4 = self.ptr_add(ptr, 4);
                (lo, self.e(Ty::I32, Op::Load(p4)))
            }
            Op::Copy(a) => self.pair(a)?,
            Op::Select(c, a, b) => {
                let (a, b) = (self.pair(a)?, self.pair(b)?);
                self.sel2(c, a, b)
            }
            Op::Phi(ref ins) => {
                // φs stay at the start of the block: define the halves directly.
                let mut lo = Vec::new();
                let mut hi = Vec::new();
                for (b, v) in ins {
                    let (l, h) = self.pair(*v)?;
                    lo.push((*b, l));
                    hi.push((*b, h));
                }
                let (rl, rh) = self.pair(r)?;
                self.out.push(Inst::at(Some(rl), Op::Phi(lo), self.loc));
                self.out.push(Inst::at(Some(rh), Op::Phi(hi), self.loc));
                return Ok(());
            }
            Op::Bin(o, a, b) => self.binary(o, a, b)?,
            Op::Un(o, a) => {
                let a = self.pair(a)?;
                self.unary(o, a)?
            }
            Op::Conv(o, a) => self.convert(o, a)?,
            Op::CmpXchg { ptr, expected, desired } => {
                let (e, d) = (self.pair(expected)?, self.pair(desired)?);
                self.cas64(ptr, e, d)
            }
            Op::Atomic { op, ptr, value } => {
                let v = self.pair(value)?;
                self.rmw64(op, ptr, v)
            }
            ref op => return Err(internal(op)),
        };
        self.def(r, p)
    }

    /// One 64-bit compare-and-swap; returns the old value.
    fn cas64(&mut self, ptr: Value, e: Pair, d: Pair) -> Pair {
        let lo = self.e(Ty::I32, Op::CmpXchg64 { ptr, expected: [e.0, e.1], desired: [d.0, d.1] });
        (lo, self.e(Ty::I32, Op::CmpXchg64Hi(lo)))
    }

    /// A 64-bit atomic read-modify-write as a compare-and-swap loop (new blocks); returns the old
    /// value.
    fn rmw64(&mut self, o: AtomicOp, ptr: Value, v: Pair) -> Pair {
        // First guess: the current value, read non-atomically (a torn guess just fails the CAS).
        let g0 = self.e(Ty::I32, Op::Load(ptr));
        let p4 = self.ptr_add(ptr, 4);
        let g1 = self.e(Ty::I32, Op::Load(p4));
        let pre = self.cur;
        let header = self.f.new_block();
        let exit = self.f.new_block();
        self.headers.insert(header);
        self.switch_to(Term::Br(header), header);
        let c0 = self.e(Ty::I32, Op::Phi(vec![(pre, g0)]));
        let c1 = self.e(Ty::I32, Op::Phi(vec![(pre, g1)]));
        let old = (c0, c1);
        let new = match o {
            AtomicOp::Add => self.add64(old, v),
            AtomicOp::Sub => self.sub64(old, v),
            AtomicOp::Xchg => v,
            AtomicOp::And => self.bit2(BinOp::And, old, v),
            AtomicOp::Or => self.bit2(BinOp::Or, old, v),
            AtomicOp::Xor => self.bit2(BinOp::Xor, old, v),
            AtomicOp::MinS | AtomicOp::MinU | AtomicOp::MaxS | AtomicOp::MaxU => {
                let signed = matches!(o, AtomicOp::MinS | AtomicOp::MaxS);
                let lt = self.lt64(old, v, signed);
                if matches!(o, AtomicOp::MinS | AtomicOp::MinU) {
                    self.sel2(lt, old, v)
                } else {
                    self.sel2(lt, v, old)
                }
            }
        };
        let seen = self.cas64(ptr, old, new);
        let ok = self.eq64(seen, old);
        let next = [seen.0, seen.1];
        for (k, inst) in self.out.iter_mut().take(2).enumerate() {
            if let Op::Phi(ins) = &mut inst.op {
                ins.push((header, next[k]));
            }
        }
        self.switch_to(Term::CondBr { cond: ok, then_: exit, else_: header }, exit);
        old
    }

    fn ptr_add(&mut self, p: Value, k: u32) -> Value {
        let c = self.k(k);
        let t = self.f.ty(p);
        self.e(t, Op::Bin(BinOp::Add, p, c))
    }

    // ---- arithmetic helpers ----

    /// `x + y` and the carry out (0/1).
    fn addc(&mut self, x: Value, y: Value) -> (Value, Value) {
        let s = self.bin(BinOp::Add, x, y);
        let c = self.cmp(CmpOp::LtU, s, x);
        (s, self.zext1(c))
    }

    fn add64(&mut self, a: Pair, b: Pair) -> Pair {
        let (lo, c) = self.addc(a.0, b.0);
        let h = self.bin(BinOp::Add, a.1, b.1);
        (lo, self.bin(BinOp::Add, h, c))
    }

    fn sub64(&mut self, a: Pair, b: Pair) -> Pair {
        let lo = self.bin(BinOp::Sub, a.0, b.0);
        let br = self.cmp(CmpOp::LtU, a.0, b.0);
        let br = self.zext1(br);
        let h = self.bin(BinOp::Sub, a.1, b.1);
        (lo, self.bin(BinOp::Sub, h, br))
    }

    fn neg64(&mut self, a: Pair) -> Pair {
        let z = self.kpair(0);
        self.sub64(z, a)
    }

    fn bit2(&mut self, o: BinOp, a: Pair, b: Pair) -> Pair {
        (self.bin(o, a.0, b.0), self.bin(o, a.1, b.1))
    }

    /// The full 64-bit product of two words.
    fn wide(&mut self, a: Value, b: Value) -> Pair {
        (self.bin(BinOp::Mul, a, b), self.bin(BinOp::MulHiU, a, b))
    }

    fn mul64(&mut self, a: Pair, b: Pair) -> Pair {
        let (lo, h) = self.wide(a.0, b.0);
        let x = self.bin(BinOp::Mul, a.0, b.1);
        let y = self.bin(BinOp::Mul, a.1, b.0);
        let h = self.bin(BinOp::Add, h, x);
        (lo, self.bin(BinOp::Add, h, y))
    }

    /// High 64 bits of the unsigned 128-bit product.
    fn mulhu64(&mut self, a: Pair, b: Pair) -> Pair {
        let p00 = self.wide(a.0, b.0);
        let p01 = self.wide(a.0, b.1);
        let p10 = self.wide(a.1, b.0);
        let p11 = self.wide(a.1, b.1);
        let (s1, c1a) = self.addc(p00.1, p01.0);
        let (_, c1b) = self.addc(s1, p10.0);
        let c1 = self.bin(BinOp::Add, c1a, c1b);
        let (s2, c2a) = self.addc(p01.1, p10.1);
        let (s2, c2b) = self.addc(s2, p11.0);
        let (s2, c2c) = self.addc(s2, c1);
        let c2 = self.bin(BinOp::Add, c2a, c2b);
        let c2 = self.bin(BinOp::Add, c2, c2c);
        (s2, self.bin(BinOp::Add, p11.1, c2))
    }

    /// High 64 bits of the signed 128-bit product.
    fn mulhs64(&mut self, a: Pair, b: Pair) -> Pair {
        let h = self.mulhu64(a, b);
        let k31 = self.k(31);
        let ma = self.bin(BinOp::ShrA, a.1, k31);
        let mb = self.bin(BinOp::ShrA, b.1, k31);
        let tb = self.bit2(BinOp::And, b, (ma, ma));
        let ta = self.bit2(BinOp::And, a, (mb, mb));
        let h = self.sub64(h, tb);
        self.sub64(h, ta)
    }

    fn eq64(&mut self, a: Pair, b: Pair) -> Value {
        let x = self.bin(BinOp::Xor, a.0, b.0);
        let y = self.bin(BinOp::Xor, a.1, b.1);
        let o = self.bin(BinOp::Or, x, y);
        let z = self.k(0);
        self.cmp(CmpOp::Eq, o, z)
    }

    /// `a < b`, signed or unsigned.
    fn lt64(&mut self, a: Pair, b: Pair, signed: bool) -> Value {
        let hl = self.cmp(if signed { CmpOp::LtS } else { CmpOp::LtU }, a.1, b.1);
        let he = self.cmp(CmpOp::Eq, a.1, b.1);
        let ll = self.cmp(CmpOp::LtU, a.0, b.0);
        let both = self.and1(he, ll);
        self.or1(hl, both)
    }

    fn compare(&mut self, o: CmpOp, a: Pair, b: Pair) -> Value {
        use CmpOp as C;
        match o {
            C::Eq => self.eq64(a, b),
            C::Ne => {
                let e = self.eq64(a, b);
                self.not1(e)
            }
            C::LtS | C::LtU => self.lt64(a, b, o == C::LtS),
            C::GtS | C::GtU => self.lt64(b, a, o == C::GtS),
            C::LeS | C::LeU => {
                let g = self.lt64(b, a, o == C::LeS);
                self.not1(g)
            }
            _ => {
                // GeS / GeU (float compares never see i64 operands).
                let l = self.lt64(a, b, o == C::GeS);
                self.not1(l)
            }
        }
    }

    /// Shifts by `n` (taken modulo 64), branch-free.
    fn shift(&mut self, o: BinOp, a: Pair, n: Value) -> Pair {
        let (k31, k32, z) = (self.k(31), self.k(32), self.k(0));
        let s = self.bin(BinOp::And, n, k31);
        let inv = self.bin(BinOp::Xor, s, k31); // 31 - s
        let bigm = self.bin(BinOp::And, n, k32);
        let big = self.cmp(CmpOp::Ne, bigm, z);
        let one = self.k(1);
        match o {
            BinOp::Shl => {
                let lo_s = self.bin(BinOp::Shl, a.0, s);
                let c = self.bin(BinOp::ShrL, a.0, one);
                let c = self.bin(BinOp::ShrL, c, inv);
                let h = self.bin(BinOp::Shl, a.1, s);
                let hi_s = self.bin(BinOp::Or, h, c);
                self.sel2(big, (z, lo_s), (lo_s, hi_s))
            }
            _ => {
                let arith = o == BinOp::ShrA;
                let hi_s = self.bin(if arith { BinOp::ShrA } else { BinOp::ShrL }, a.1, s);
                let c = self.bin(BinOp::Shl, a.1, one);
                let c = self.bin(BinOp::Shl, c, inv);
                let l = self.bin(BinOp::ShrL, a.0, s);
                let lo_s = self.bin(BinOp::Or, l, c);
                let fill = if arith { self.bin(BinOp::ShrA, a.1, k31) } else { z };
                self.sel2(big, (hi_s, fill), (lo_s, hi_s))
            }
        }
    }

    /// Finishes the current block with `term` and continues in `next`.
    fn switch_to(&mut self, term: Term, next: BlockId) {
        let cur = self.cur;
        self.f.block_mut(cur).insts = std::mem::take(&mut self.out);
        self.f.block_mut(cur).term = term;
        self.cur = next;
    }

    /// Unsigned 64-bit quotient and remainder. When both operands' upper halves are zero (the
    /// common case: 32-bit values widened to `size_t`) one 32-bit `divu`/`remu` pair computes
    /// them; otherwise a restoring division, 64 iterations of a loop. A zero divisor gives an
    /// all-ones quotient and the dividend as remainder on either path.
    fn udivrem(&mut self, n: Pair, d: Pair) -> (Pair, Pair) {
        let zero = self.k(0);
        let fast = self.f.new_block();
        let slow = self.f.new_block();
        let header = self.f.new_block();
        let exit = self.f.new_block();
        self.headers.insert(header);
        let high = self.bin(BinOp::Or, n.1, d.1);
        let narrow = self.cmp(CmpOp::Eq, high, zero);
        self.switch_to(Term::CondBr { cond: narrow, then_: fast, else_: slow }, fast);
        let fq = self.bin(BinOp::DivU, n.0, d.0);
        let fr = self.bin(BinOp::RemU, n.0, d.0);
        let by_zero = self.cmp(CmpOp::Eq, d.0, zero);
        let by_zero = self.zext1(by_zero);
        let fq1 = self.bin(BinOp::Sub, zero, by_zero);
        self.switch_to(Term::Br(exit), slow);
        self.switch_to(Term::Br(header), header);
        // φ placeholders: i, r0, r1, q0, q1 (patched below with the next-iteration values).
        let inits = [zero, zero, zero, n.0, n.1];
        let phis: Vec<Value> = inits.iter().map(|v| self.e(Ty::I32, Op::Phi(vec![(slow, *v)]))).collect();
        let (i, r0, r1, q0, q1) = (phis[0], phis[1], phis[2], phis[3], phis[4]);
        let (one, k31) = (self.k(1), self.k(31));
        let top = self.bin(BinOp::ShrL, r1, k31);
        let sh = |s: &mut Self, hi: Value, lo: Value| {
            let a = s.bin(BinOp::Shl, hi, one);
            let b = s.bin(BinOp::ShrL, lo, k31);
            s.bin(BinOp::Or, a, b)
        };
        let nr1 = sh(self, r1, r0);
        let nr0 = sh(self, r0, q1);
        let nq1 = sh(self, q1, q0);
        let nq0 = self.bin(BinOp::Shl, q0, one);
        let z = self.k(0);
        let carry = self.cmp(CmpOp::Ne, top, z);
        let lt = self.lt64((nr0, nr1), d, false);
        let nlt = self.not1(lt);
        let ge = self.or1(carry, nlt);
        let s = self.sub64((nr0, nr1), d);
        let rr = self.sel2(ge, s, (nr0, nr1));
        let g = self.zext1(ge);
        let nq0 = self.bin(BinOp::Or, nq0, g);
        let ni = self.bin(BinOp::Add, i, one);
        let k64 = self.k(64);
        let again = self.cmp(CmpOp::Ne, ni, k64);
        let next = [ni, rr.0, rr.1, nq0, nq1];
        for (k, inst) in self.out.iter_mut().take(5).enumerate() {
            if let Op::Phi(ins) = &mut inst.op {
                ins.push((header, next[k]));
            }
        }
        self.switch_to(Term::CondBr { cond: again, then_: header, else_: exit }, exit);
        let join = |s: &mut Self, a: Value, b: Value| s.e(Ty::I32, Op::Phi(vec![(fast, a), (header, b)]));
        let q = (join(self, fq, nq0), join(self, fq1, nq1));
        let r = (join(self, fr, rr.0), join(self, zero, rr.1));
        (q, r)
    }

    /// |a| and the sign mask (all ones when negative).
    fn abs64(&mut self, a: Pair) -> (Pair, Value) {
        let k31 = self.k(31);
        let s = self.bin(BinOp::ShrA, a.1, k31);
        let x = self.bit2(BinOp::Xor, a, (s, s));
        (self.sub64(x, (s, s)), s)
    }

    fn binary(&mut self, o: BinOp, a: Value, b: Value) -> Result<Pair, CompileError> {
        if matches!(o, BinOp::Shl | BinOp::ShrL | BinOp::ShrA) {
            let a = self.pair(a)?;
            let n = self.low_word(b)?;
            return Ok(self.shift(o, a, n));
        }
        let (x, y) = (self.pair(a)?, self.pair(b)?);
        Ok(match o {
            BinOp::Add => self.add64(x, y),
            BinOp::Sub => self.sub64(x, y),
            BinOp::Mul => self.mul64(x, y),
            BinOp::MulHiU => self.mulhu64(x, y),
            BinOp::MulHiS => self.mulhs64(x, y),
            BinOp::And | BinOp::Or | BinOp::Xor => self.bit2(o, x, y),
            BinOp::DivU => self.udivrem(x, y).0,
            BinOp::RemU => self.udivrem(x, y).1,
            BinOp::DivS | BinOp::RemS => {
                let (ax, sx) = self.abs64(x);
                let (ay, sy) = self.abs64(y);
                let (q, r) = self.udivrem(ax, ay);
                let (v, s) = if o == BinOp::DivS { (q, self.bin(BinOp::Xor, sx, sy)) } else { (r, sx) };
                let v = self.bit2(BinOp::Xor, v, (s, s));
                self.sub64(v, (s, s))
            }
            BinOp::MinS | BinOp::MinU | BinOp::MaxS | BinOp::MaxU => {
                let signed = matches!(o, BinOp::MinS | BinOp::MaxS);
                let lt = self.lt64(x, y, signed);
                if matches!(o, BinOp::MinS | BinOp::MinU) {
                    self.sel2(lt, x, y)
                } else {
                    self.sel2(lt, y, x)
                }
            }
            _ => return Err(internal(&Op::Bin(o, a, b))),
        })
    }

    fn unary(&mut self, o: UnOp, a: Pair) -> Result<Pair, CompileError> {
        Ok(match o {
            UnOp::Not => {
                let m = self.k(u32::MAX);
                self.bit2(BinOp::Xor, a, (m, m))
            }
            UnOp::Neg => self.neg64(a),
            UnOp::Clz => {
                let z = self.k(0);
                let hz = self.cmp(CmpOp::Eq, a.1, z);
                let ch = self.e(Ty::I32, Op::Un(UnOp::Clz, a.1));
                let cl = self.e(Ty::I32, Op::Un(UnOp::Clz, a.0));
                let k32 = self.k(32);
                let cl = self.bin(BinOp::Add, cl, k32);
                (self.sel(hz, cl, ch), z)
            }
            UnOp::Popcount => {
                let x = self.e(Ty::I32, Op::Un(UnOp::Popcount, a.0));
                let y = self.e(Ty::I32, Op::Un(UnOp::Popcount, a.1));
                let z = self.k(0);
                (self.bin(BinOp::Add, x, y), z)
            }
            other => return Err(internal(&Op::Un(other, a.0))),
        })
    }

    fn convert(&mut self, o: ConvOp, a: Value) -> Result<Pair, CompileError> {
        let at = self.f.ty(a);
        Ok(match (o, at) {
            (_, Ty::I64) => self.pair(a)?,
            (ConvOp::ZExt | ConvOp::Bitcast, _) => {
                let lo = match at {
                    Ty::I32 => a,
                    Ty::Ptr(_) | Ty::F32 => self.e(Ty::I32, Op::Conv(ConvOp::Bitcast, a)),
                    _ => self.e(Ty::I32, Op::Conv(ConvOp::ZExt, a)),
                };
                let z = self.k(0);
                (lo, z)
            }
            (ConvOp::SExt, _) => {
                let lo = if at == Ty::I32 { a } else { self.e(Ty::I32, Op::Conv(ConvOp::SExt, a)) };
                let k31 = self.k(31);
                (lo, self.bin(BinOp::ShrA, lo, k31))
            }
            (ConvOp::FToU, Ty::F32) => self.ftou(a, true),
            (ConvOp::FToS, Ty::F32) => self.ftos(a),
            _ => return Err(internal(&Op::Conv(o, a))),
        })
    }

    fn fk(&mut self, x: f32) -> Value {
        self.e(Ty::F32, Op::Const(x.to_bits() as u64))
    }

    fn fcmp(&mut self, o: CmpOp, a: Value, x: f32) -> Value {
        let c = self.fk(x);
        self.cmp(o, a, c)
    }

    /// Unsigned 64-bit → float, rounded to nearest even: the top 32 significant bits with a sticky
    /// bit for the rest are converted (one rounding) and scaled by an exact power of two.
    fn utof(&mut self, a: Pair) -> Value {
        let z = self.k(0);
        let hz = self.cmp(CmpOp::Eq, a.1, z);
        let flo = self.e(Ty::F32, Op::Conv(ConvOp::UToF, a.0));
        let n = self.e(Ty::I32, Op::Un(UnOp::Clz, a.1));
        let (one, k31) = (self.k(1), self.k(31));
        let inv = self.bin(BinOp::Xor, n, k31);
        let h = self.bin(BinOp::Shl, a.1, n);
        let c = self.bin(BinOp::ShrL, a.0, one);
        let c = self.bin(BinOp::ShrL, c, inv);
        let h = self.bin(BinOp::Or, h, c);
        let l = self.bin(BinOp::Shl, a.0, n);
        let sticky = self.cmp(CmpOp::Ne, l, z);
        let sticky = self.zext1(sticky);
        let m = self.bin(BinOp::Or, h, sticky);
        let fm = self.e(Ty::F32, Op::Conv(ConvOp::UToF, m));
        let k159 = self.k(127 + 32);
        let e = self.bin(BinOp::Sub, k159, n);
        let k23 = self.k(23);
        let e = self.bin(BinOp::Shl, e, k23);
        let scale = self.e(Ty::F32, Op::Conv(ConvOp::Bitcast, e));
        let fs = self.e(Ty::F32, Op::Bin(BinOp::FMul, fm, scale));
        self.e(Ty::F32, Op::Select(hz, flo, fs))
    }

    fn stof(&mut self, a: Pair) -> Value {
        let (abs, _) = self.abs64(a);
        let f = self.utof(abs);
        let z = self.k(0);
        let neg = self.cmp(CmpOp::LtS, a.1, z);
        let nf = self.e(Ty::F32, Op::Un(UnOp::FNeg, f));
        self.e(Ty::F32, Op::Select(neg, nf, f))
    }

    /// Float → unsigned 64-bit, truncating. With `saturate`, NaN and negatives give 0 and values
    /// ≥ 2^64 give all ones; without it the input must be in [0, 2^64).
    fn ftou(&mut self, x: Value, saturate: bool) -> Pair {
        let m32 = self.fk(2f32.powi(-32));
        let hf = self.e(Ty::F32, Op::Bin(BinOp::FMul, x, m32));
        let h = self.e(Ty::I32, Op::Conv(ConvOp::FToU, hf));
        let hb = self.e(Ty::F32, Op::Conv(ConvOp::UToF, h));
        let p32 = self.fk(2f32.powi(32));
        let hs = self.e(Ty::F32, Op::Bin(BinOp::FMul, hb, p32));
        let rem = self.e(Ty::F32, Op::Bin(BinOp::FSub, x, hs));
        let l = self.e(Ty::I32, Op::Conv(ConvOp::FToU, rem));
        if !saturate {
            return (l, h);
        }
        let nan = self.cmp(CmpOp::FUno, x, x);
        let neg = self.fcmp(CmpOp::FLt, x, 0.0);
        let zero_c = self.or1(nan, neg);
        let big = self.fcmp(CmpOp::FGe, x, 2f32.powi(64));
        let z = self.kpair(0);
        let m = self.kpair(u64::MAX);
        let v = self.sel2(zero_c, z, (l, h));
        self.sel2(big, m, v)
    }

    /// Float → signed 64-bit, truncating and saturating (NaN gives 0).
    fn ftos(&mut self, x: Value) -> Pair {
        let ax = self.e(Ty::F32, Op::Un(UnOp::FAbs, x));
        let u = self.ftou(ax, false);
        let nu = self.neg64(u);
        let neg = self.fcmp(CmpOp::FLt, x, 0.0);
        let v = self.sel2(neg, nu, u);
        let hi = self.fcmp(CmpOp::FGe, x, 2f32.powi(63));
        let lo = self.fcmp(CmpOp::FLt, x, -(2f32.powi(63)));
        let nan = self.cmp(CmpOp::FUno, x, x);
        let (max, min, z) = (self.kpair(i64::MAX as u64), self.kpair(i64::MIN as u64), self.kpair(0));
        let v = self.sel2(hi, max, v);
        let v = self.sel2(lo, min, v);
        self.sel2(nan, z, v)
    }
}
