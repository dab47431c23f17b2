//! Instruction selection: IR → machine IR with virtual registers. Uniform values use scalar
//! instructions and x registers, divergent values RVV/Ventus vector instructions and v registers;
//! divergent branches get `setrpc` (to the reconvergence block) + `vbne`, and reconvergence
//! blocks start with `join`. φs become copies at the end of predecessors (critical edges are
//! split beforehand). Instructions that ignore the SIMT mask (`vfmv.v.f`, `vmerge`) are never
//! used, so every vector write touches only the active lanes.

use super::mir::*;
use crate::abi::mem_class::MemClass;
use crate::compiler::ir::*;
use crate::compiler::pass::provenance::Provenance;
use crate::compiler::pass::uniformity::Uniformity;
use crate::compiler::CompileError;
use crate::isa::regs::csr;
use crate::isa::Op as I;
use std::collections::HashMap;

struct Sel<'a> {
    f: &'a Func,
    u: &'a Uniformity,
    m: MFunc,
    out: Vec<MInst>,
    regs: HashMap<Value, Reg>,
    consts: HashMap<Value, u64>,
    defs: HashMap<Value, Op>,
    argbase: Reg,
    /// The high-word register of each [`Op::CmpXchg64`] (keyed by its result).
    cas_hi: HashMap<Value, Reg>,
    /// The [`Op::CallRes`] values of each call (keyed by the call's result) and their word.
    callres: HashMap<Value, Vec<(Value, u32)>>,
    /// Uniform values already broadcast to a vector register in the current block.
    bcast: HashMap<Value, Reg>,
    /// The register holding `CSR_KNL` (the metadata buffer) in the current block, once read.
    knl: Option<Reg>,
    /// Constants used inside loops, materialised once in the entry block (kernels only):
    /// the scalar register of wide constants ([`Sel::s`]) and the broadcast of float constants
    /// ([`Sel::v`]) that loop code would otherwise rebuild on every iteration.
    loop_s: HashMap<Value, Reg>,
    loop_v: HashMap<Value, Reg>,
    /// The source location given to the machine instructions pushed now.
    loc: SrcLoc,
    /// What memory each pointer may address ([`crate::compiler::pass::provenance`]).
    prov: Provenance,
    /// The memory class given to the memory accesses pushed now (see [`Sel::accessing`]).
    mem: MemClass,
}

fn ci(x: u64, t: Ty) -> i64 {
    // Sign-extend constant bits of type t to i64 (pointers/i32 as 32-bit).
    let b = t.bits().min(64);
    if b >= 64 || t == Ty::I1 || b < 32 {
        x as i64 // 64-bit as is; narrow constants are zero-extended in registers
    } else {
        ((x as u32) as i32) as i64
    }
}

fn fits12(x: i64) -> bool {
    (-2048..2048).contains(&x)
}

/// Selects a kernel (`level` 0) or a subroutine of call level 1 or 2 (`target::call`).
pub fn select(f: &Func, u: &Uniformity, level: u8) -> Result<MFunc, CompileError> {
    let calls = f.blocks.iter().flat_map(|b| &b.insts).any(|i| matches!(i.op, Op::Call { .. }));
    if calls && level >= 2 {
        return Err(CompileError::Internal(format!("level-2 subroutine {} calls another", f.name)));
    }
    let mut s = Sel {
        f,
        u,
        m: MFunc { name: f.name.clone(), private_bytes: f.private_bytes, level, calls, ..MFunc::default() },
        out: Vec::new(),
        regs: HashMap::new(),
        consts: HashMap::new(),
        defs: HashMap::new(),
        argbase: Reg::S(0),
        cas_hi: HashMap::new(),
        bcast: HashMap::new(),
        knl: None,
        callres: HashMap::new(),
        loop_s: HashMap::new(),
        loop_v: HashMap::new(),
        loc: SrcLoc::NONE,
        prov: Provenance::of(f),
        mem: MemClass::Unknown,
    };
    s.m.files = f.files.clone();
    for b in &f.blocks {
        for i in &b.insts {
            if let Some(r) = i.result {
                match i.op {
                    Op::Const(c) => {
                        s.consts.insert(r, c);
                    }
                    // An undefined value may be anything: zero, materialised where it is used.
                    // (Left without a definition, its register would be live from the kernel's
                    // entry to every use — at -O0 that exhausts the register file.)
                    Op::Undef => {
                        s.consts.insert(r, 0);
                    }
                    Op::CallRes(c, k) => s.callres.entry(c).or_default().push((r, k)),
                    _ => {}
                }
                s.defs.insert(r, i.op.clone());
            }
        }
    }
    s.argbase = s.m.new_s();
    let preds = f.preds();
    for bi in 0..f.blocks.len() {
        s.out.clear();
        s.bcast.clear();
        s.knl = None;
        // Block-start code (prologue, `join`, φ copies) belongs to the block's first located
        // instruction.
        // A block without located code (a loop's back-edge jump, a split edge) belongs to its
        // terminator's line, else to the line its predecessor ends on.
        let last_loc = |b: usize| -> SrcLoc {
            let blk = &f.blocks[b];
            if !blk.term_loc.is_none() {
                return blk.term_loc;
            }
            blk.insts.iter().rev().map(|i| i.loc).find(|l| !l.is_none()).unwrap_or(SrcLoc::NONE)
        };
        s.loc = f.blocks[bi]
            .insts
            .iter()
            .map(|i| i.loc)
            .find(|l| !l.is_none())
            .or_else(|| Some(f.blocks[bi].term_loc).filter(|l| !l.is_none()))
            .or_else(|| preds[bi].iter().map(|p| last_loc(p.0 as usize)).find(|l| !l.is_none()))
            .unwrap_or(SrcLoc::NONE);
        if bi == 0 {
            if level == 0 {
                s.emit_rr(I::Addi, s.argbase, A0, ZERO, 0);
                s.emit_rr(I::VmvVX, VZERO, ZERO, ZERO, 0);
            }
            if calls {
                let save = Reg::X(super::call::level(level).ra_save);
                s.emit_rr(I::Addi, save, RA, ZERO, 0);
            }
            if level == 0 {
                s.hoist_loop_constants();
            }
        }
        if u.joins[bi] {
            s.emit_rr(I::Join, ZERO, ZERO, ZERO, 0);
        }
        // φs of single-predecessor blocks are plain copies here.
        if preds[bi].len() == 1 {
            let copies: Vec<(Value, Value)> = f.blocks[bi]
                .insts
                .iter()
                .filter_map(|i| match &i.op {
                    Op::Phi(ins) => Some((i.result?, ins.first()?.1)),
                    _ => None,
                })
                .collect();
            s.parallel_copy(&copies)?;
        }
        for inst in &f.blocks[bi].insts {
            if !inst.loc.is_none() {
                s.loc = inst.loc;
            }
            s.inst(inst)?;
        }
        if !f.blocks[bi].term_loc.is_none() {
            s.loc = f.blocks[bi].term_loc;
        }
        s.terminator(bi, &preds)?;
        let succs = f.blocks[bi].term.successors().iter().map(|b| b.0).collect();
        s.m.blocks.push(MBlock { insts: std::mem::take(&mut s.out), succs });
    }
    // SIMT edges: after a divergent branch's reconvergence block, execution may continue in
    // either side of the branch (the SIMT stack pops into the other path), so anything live on
    // entry to either side is live across the whole divergent region.
    for &(b, p) in &u.branches {
        for succ in f.block(b).term.successors() {
            let list = &mut s.m.blocks[p.0 as usize].succs;
            if !list.contains(&succ.0) {
                list.push(succ.0);
            }
        }
    }
    Ok(s.m)
}

impl Sel<'_> {
    fn push(&mut self, mut i: MInst) {
        i.loc = self.loc;
        if let MOp::I(op) = i.op {
            use crate::isa::Fmt;
            let access = matches!(
                op.desc().fmt,
                Fmt::Load | Fmt::Store | Fmt::VLoad12 | Fmt::VStore12 | Fmt::Amo | Fmt::Lr | Fmt::VLoad
            );
            if access {
                i.mem = self.mem;
            }
        }
        self.out.push(i);
    }

    /// Runs `select` (the selection of an access through `ptr`) with the memory accesses it
    /// pushes labelled with `ptr`'s memory class.
    fn accessing<T>(&mut self, ptr: Value, select: impl FnOnce(&mut Self) -> T) -> T {
        self.mem = self.prov.class(ptr);
        let r = select(self);
        self.mem = MemClass::Unknown;
        r
    }

    /// Emits `op rd, rs1, rs2, imm`.
    fn emit_rr(&mut self, op: I, rd: Reg, rs1: Reg, rs2: Reg, imm: i64) {
        self.push(MInst::rr(op, rd, rs1, rs2, imm));
    }

    fn li(&mut self, rd: Reg, v: i64) {
        self.push(MInst::li(rd, v));
    }

    fn div(&self, v: Value) -> bool {
        self.u.divergent[v.0 as usize]
    }

    fn reg(&mut self, v: Value) -> Reg {
        if let Some(r) = self.regs.get(&v) {
            return *r;
        }
        let r = if self.div(v) { self.m.new_v() } else { self.m.new_s() };
        self.regs.insert(v, r);
        r
    }

    fn konst(&self, v: Value) -> Option<i64> {
        self.consts.get(&v).map(|c| ci(*c, self.f.ty(v)))
    }

    /// At most this many constants of each kind are kept in registers across loops.
    const LOOP_CONSTANTS: usize = 8;

    /// Materialises, in the entry block, constants that loops use and would rebuild on every
    /// iteration: wide integer/float constants (two instructions each: `lui` + `addi`) and, for
    /// float constants feeding divergent arithmetic, their broadcast. The entry block runs with
    /// every lane of the warp active, so the broadcast holds the constant in all lanes.
    fn hoist_loop_constants(&mut self) {
        let f = self.f;
        let dom = crate::compiler::pass::cfg::dominators(f);
        let loops = crate::compiler::pass::cfg::loops(f, &dom);
        if loops.is_empty() {
            return;
        }
        let mut wide: Vec<Value> = Vec::new();
        let mut vec: Vec<Value> = Vec::new();
        for (bi, b) in f.blocks.iter().enumerate() {
            if !loops.iter().any(|l| l.body[bi]) {
                continue;
            }
            for i in &b.insts {
                if matches!(i.op, Op::Phi(_)) {
                    continue;
                }
                let divergent = i.result.is_some_and(|r| self.div(r));
                for v in i.op.operands() {
                    let Some(c) = self.konst(v) else { continue };
                    if c == 0 || self.div(v) {
                        continue;
                    }
                    let float = f.ty(v).is_float();
                    if (float || !fits12(c)) && !wide.contains(&v) {
                        wide.push(v);
                    }
                    if float && divergent && !vec.contains(&v) {
                        vec.push(v);
                    }
                }
            }
        }
        for v in wide.into_iter().take(Self::LOOP_CONSTANTS) {
            let c = self.konst(v).unwrap_or(0);
            let r = self.m.new_s();
            self.li(r, c);
            self.loop_s.insert(v, r);
        }
        for v in vec.into_iter().take(Self::LOOP_CONSTANTS) {
            let Ok(x) = self.s(v) else { continue };
            let r = self.m.new_v();
            self.emit_rr(I::VmvVX, r, x, ZERO, 0);
            self.loop_v.insert(v, r);
        }
    }

    /// A scalar register holding uniform `v` (constants are re-materialised at the use, except
    /// those kept for loops).
    fn s(&mut self, v: Value) -> Result<Reg, CompileError> {
        if self.div(v) {
            return Err(CompileError::Internal(format!("divergent %{} used as a scalar", v.0)));
        }
        if let Some(&r) = self.loop_s.get(&v) {
            return Ok(r);
        }
        if let Some(c) = self.konst(v) {
            if c == 0 && !self.f.ty(v).is_float() {
                return Ok(ZERO);
            }
            let t = self.m.new_s();
            self.li(t, c);
            return Ok(t);
        }
        Ok(self.reg(v))
    }

    /// A vector register holding `v` (uniform values are broadcast, once per block: the
    /// register is only read afterwards, and the active lanes do not change inside a block).
    fn v(&mut self, v: Value) -> Result<Reg, CompileError> {
        if self.div(v) {
            // Constants are materialised at their uses and have no definition of their own:
            // the uniformity analysis never calls one divergent.
            if self.consts.contains_key(&v) {
                return Err(CompileError::Internal(format!("constant %{} marked divergent", v.0)));
            }
            return Ok(self.reg(v));
        }
        if let Some(&t) = self.bcast.get(&v).or_else(|| self.loop_v.get(&v)) {
            return Ok(t);
        }
        let t = self.m.new_v();
        // A small constant needs no scalar register: `vmv.v.i` (registers hold narrow
        // constants zero-extended and 32-bit ones as is, the immediate sign-extended).
        if let Some(k) = self.konst(v).filter(|k| (-16..=15).contains(k)) {
            let mut m = MInst::new(MOp::I(I::VmvVI));
            m.rd = Some(t);
            m.imm = k;
            self.push(m);
        } else {
            let x = self.s(v)?;
            self.emit_rr(I::VmvVX, t, x, ZERO, 0);
        }
        self.bcast.insert(v, t);
        Ok(t)
    }

    /// Zero-extends narrow results in place (`r` holds a value of type `t`).
    fn norm(&mut self, r: Reg, t: Ty) {
        let vec = r.is_vector();
        match t {
            Ty::I1 => {
                if vec {
                    self.emit_rr(I::VandVi, r, ZERO, r, 1)
                } else {
                    self.emit_rr(I::Andi, r, r, ZERO, 1)
                }
            }
            Ty::I8 => {
                if vec {
                    let m = self.m.new_s();
                    self.li(m, 0xff);
                    self.emit_rr(I::VandVx, r, m, r, 0);
                } else {
                    self.emit_rr(I::Andi, r, r, ZERO, 0xff)
                }
            }
            Ty::I16 => {
                if vec {
                    self.emit_rr(I::VsllVi, r, ZERO, r, 16);
                    self.emit_rr(I::VsrlVi, r, ZERO, r, 16);
                } else {
                    self.emit_rr(I::Slli, r, r, ZERO, 16);
                    self.emit_rr(I::Srli, r, r, ZERO, 16);
                }
            }
            _ => {}
        }
    }

    /// A sign-extended copy of narrow `x` (type `t`), or `x` itself for 32-bit types.
    fn sext(&mut self, x: Reg, t: Ty) -> Reg {
        let sh = match t {
            Ty::I8 => 24,
            Ty::I16 => 16,
            Ty::I1 => 31,
            _ => return x,
        };
        if x.is_vector() {
            let r = self.m.new_v();
            self.emit_rr(I::VsllVi, r, ZERO, x, sh);
            self.emit_rr(I::VsraVi, r, ZERO, r, sh);
            r
        } else {
            let r = self.m.new_s();
            self.emit_rr(I::Slli, r, x, ZERO, sh);
            self.emit_rr(I::Srai, r, r, ZERO, sh);
            r
        }
    }

    fn copy_to(&mut self, d: Reg, src: Value) -> Result<(), CompileError> {
        if d.is_vector() {
            if self.div(src) {
                let s = self.reg(src);
                self.emit_rr(I::VaddVx, d, ZERO, s, 0);
            } else {
                let x = self.s(src)?;
                self.emit_rr(I::VmvVX, d, x, ZERO, 0);
            }
        } else {
            let x = self.s(src)?;
            self.emit_rr(I::Addi, d, x, ZERO, 0);
        }
        Ok(())
    }

    /// Copies the sources into the registers of the destinations as if simultaneously
    /// (φ resolution). The copies are sequentialised: a copy runs once no pending copy still
    /// reads its destination; a cycle (e.g. a swap) is broken by moving one source into a
    /// fresh temporary. So only cycles cost an extra register, not every copy.
    fn parallel_copy(&mut self, pairs: &[(Value, Value)]) -> Result<(), CompileError> {
        enum Src {
            Val(Value),
            Tmp(Reg),
        }
        // (destination register, source, the source's register if it has one)
        let mut pending: Vec<(Reg, Src, Option<Reg>)> = Vec::new();
        for &(d, src) in pairs {
            let dr = self.reg(d);
            let sr = if self.konst(src).is_some() { None } else { Some(self.reg(src)) };
            if sr == Some(dr) {
                continue; // already in place
            }
            pending.push((dr, Src::Val(src), sr));
        }
        while !pending.is_empty() {
            let ready = (0..pending.len()).find(|&k| {
                let dr = pending[k].0;
                !pending.iter().enumerate().any(|(j, p)| j != k && p.2 == Some(dr))
            });
            match ready {
                Some(k) => {
                    let (dr, src, _) = pending.remove(k);
                    match src {
                        Src::Val(v) => self.copy_to(dr, v)?,
                        Src::Tmp(t) => self.move_reg(dr, t),
                    }
                }
                None => {
                    // Every destination is still read by another copy: a cycle. Park the first
                    // copy's destination value (which others read) in a temporary.
                    let dr = pending[0].0;
                    let t = if dr.is_vector() { self.m.new_v() } else { self.m.new_s() };
                    self.move_reg(t, dr);
                    for p in pending.iter_mut().filter(|p| p.2 == Some(dr)) {
                        // The source value now lives in `t` (same class as `dr`, which held it).
                        p.1 = Src::Tmp(t);
                        p.2 = Some(t);
                    }
                }
            }
        }
        Ok(())
    }

    /// `d = s` for two registers of the same class... or a scalar into a vector (broadcast).
    fn move_reg(&mut self, d: Reg, s: Reg) {
        match (d.is_vector(), s.is_vector()) {
            (true, true) => self.emit_rr(I::VaddVx, d, ZERO, s, 0),
            (true, false) => self.emit_rr(I::VmvVX, d, s, ZERO, 0),
            _ => self.emit_rr(I::Addi, d, s, ZERO, 0),
        }
    }

    /// `(base, imm)` for an address: folds `base + const` when the constant fits `bits`.
    fn address(&mut self, p: Value, lo: i64, hi: i64) -> (Value, i64) {
        if let Some(Op::Bin(BinOp::Add, base, off)) = self.defs.get(&p).cloned() {
            if let Some(k) = self.konst(off) {
                if (lo..hi).contains(&k) && self.div(base) == self.div(p) {
                    return (base, k);
                }
            }
        }
        (p, 0)
    }

    fn inst(&mut self, i: &Inst) -> Result<(), CompileError> {
        let r = i.result;
        match &i.op {
            Op::Phi(_) | Op::Const(_) => Ok(()),
            Op::Undef => Ok(()),
            Op::Copy(a) => {
                let d = self.reg(r.expect("copy result"));
                self.copy_to(d, *a)
            }
            Op::ArgWord { offset } => {
                let d = self.reg(r.expect("arg result"));
                let op = match self.f.ty(r.expect("")) {
                    Ty::I8 | Ty::I1 => I::Lbu,
                    Ty::I16 => I::Lhu,
                    Ty::I64 => return Err(CompileError::unsupported("64-bit kernel arguments")),
                    _ => I::Lw,
                };
                let base = self.argbase;
                if fits12(*offset as i64) {
                    self.emit_rr(op, d, base, ZERO, *offset as i64);
                } else {
                    // Arguments past the 12-bit offset reach (beyond 2 KiB of arguments).
                    let t = self.m.new_s();
                    self.li(t, *offset as i64);
                    self.emit_rr(I::Add, t, base, t, 0);
                    self.emit_rr(op, d, t, ZERO, 0);
                }
                Ok(())
            }
            Op::Csr(c) => {
                let d = self.reg(r.expect("csr result"));
                self.emit_rr(I::Csrrs, d, ZERO, ZERO, *c as i64);
                Ok(())
            }
            Op::MetaWord { offset } => {
                let d = self.reg(r.expect("meta result"));
                let k = match self.knl {
                    Some(k) => k,
                    None => {
                        let k = self.m.new_s();
                        self.emit_rr(I::Csrrs, k, ZERO, ZERO, csr::KNL as i64);
                        self.knl = Some(k);
                        k
                    }
                };
                self.emit_rr(I::Lw, d, k, ZERO, *offset as i64);
                Ok(())
            }
            Op::LaneId => {
                let d = self.reg(r.expect("lane result"));
                let t = self.m.new_s();
                self.emit_rr(I::Csrrs, t, ZERO, ZERO, csr::TID as i64);
                let v = self.m.new_v();
                let mut m = MInst::new(MOp::I(I::VidV));
                m.rd = Some(v);
                self.push(m);
                if d.is_vector() {
                    self.emit_rr(I::VaddVx, d, t, v, 0);
                } else {
                    return Err(CompileError::Internal("uniform lane id".into()));
                }
                Ok(())
            }
            Op::LocalAddr { offset } => {
                let d = self.reg(r.expect("local addr"));
                if fits12(*offset as i64) {
                    self.emit_rr(I::Addi, d, S0, ZERO, *offset as i64);
                } else {
                    let t = self.m.new_s();
                    self.li(t, *offset as i64);
                    self.emit_rr(I::Add, d, S0, t, 0);
                }
                Ok(())
            }
            Op::ConstAddr { offset } => {
                let d = self.reg(r.expect("const addr"));
                let mut m = MInst::new(MOp::LaRodata);
                m.rd = Some(d);
                m.imm = *offset as i64;
                self.push(m);
                Ok(())
            }
            Op::PrivateAddr { offset } => {
                let d = self.reg(r.expect("private addr"));
                self.li(d, *offset as i64);
                Ok(())
            }
            // `__builtin_trap()` (llvm-spirv drops the call and keeps the `unreachable` after
            // it) or undefined behaviour reached: the work-group faults here.
            Op::Trap => {
                self.emit_rr(I::Ebreak, ZERO, ZERO, ZERO, 0);
                Ok(())
            }
            // `fence rw, rw` (pred = succ = 0b0011).
            Op::Fence => {
                self.emit_rr(I::Fence, ZERO, ZERO, ZERO, 0x33);
                Ok(())
            }
            Op::Barrier { global } => {
                self.emit_rr(I::Barrier, ZERO, ZERO, ZERO, if *global { 3 } else { 1 });
                Ok(())
            }
            Op::PrintNotify => {
                let one = self.m.new_s();
                self.li(one, 1);
                self.emit_rr(I::Csrrw, ZERO, one, ZERO, csr::PRINT as i64);
                Ok(())
            }
            Op::Load(p) => self.accessing(*p, |s| s.load(r.expect("load result"), *p)),
            Op::Store { ptr, value } => self.accessing(*ptr, |s| s.store(*ptr, *value)),
            Op::Atomic { op, ptr, value } => {
                self.accessing(*ptr, |s| s.atomic(r.expect("atomic result"), *op, *ptr, *value))
            }
            Op::CmpXchg { ptr, expected, desired } => self.accessing(*ptr, |s| {
                let d = s.reg(r.expect("cmpxchg result"));
                let (p, e, n) = (s.v(*ptr)?, s.v(*expected)?, s.v(*desired)?);
                // amocas.w: vd holds the expected value on entry and the old value on exit.
                s.emit_rr(I::VaddVx, d, ZERO, e, 0);
                let mut m = MInst::new(MOp::I(I::AmocasW));
                m.rd = Some(d);
                m.rs1 = Some(p);
                m.rs2 = Some(n);
                s.push(m);
                Ok(())
            }),
            Op::CmpXchg64 { ptr, expected, desired } => {
                let r = r.expect("cmpxchg64 result");
                self.accessing(*ptr, |s| s.cmpxchg64(r, *ptr, *expected, *desired))
            }
            Op::CmpXchg64Hi(c) => {
                let r = r.expect("cmpxchg64hi result");
                let h = self.cas_hi_reg(*c);
                match self.regs.get(&r).copied() {
                    Some(d) => self.emit_rr(I::VaddVx, d, ZERO, h, 0),
                    None => {
                        self.regs.insert(r, h);
                    }
                }
                Ok(())
            }
            Op::Bin(o, a, b) => self.binary(r.expect("bin result"), *o, *a, *b),
            Op::Un(o, a) => self.unary(r.expect("un result"), *o, *a),
            Op::Cmp(o, a, b) => self.compare(r.expect("cmp result"), *o, *a, *b),
            Op::Select(c, a, b) => {
                let d = self.reg(r.expect("select result"));
                self.select_into(d, *c, *a, *b)
            }
            Op::Fma(a, b, c) => {
                let d = self.reg(r.expect("fma result"));
                if d.is_vector() {
                    // Accumulate into a divergent multiplicand (`vfmadd`: d = a, d = b·d + c)
                    // when it is loop-carried (a φ: the result can then take its register, and the
                    // loop needs no copy back) or when the addend is uniform and already in a
                    // vector register (the copy into d is then one the allocator can coalesce).
                    let phi = |v: &Value| matches!(self.defs.get(v), Some(Op::Phi(_)));
                    let c_ready = self.loop_v.contains_key(c) || self.bcast.contains_key(c);
                    let into = |x: &Value| self.div(*x) && (phi(x) || (!self.div(*c) && c_ready));
                    let acc = if self.div(*c) && phi(c) {
                        None
                    } else if into(a) {
                        Some((*a, *b))
                    } else if into(b) {
                        Some((*b, *a))
                    } else {
                        None
                    };
                    // A uniform multiplicand not yet in a vector register is read from its
                    // scalar register (the `.vf` forms) instead of being broadcast.
                    let scalar =
                        |s: &Self, x: &Value| !s.div(*x) && !s.loop_v.contains_key(x) && !s.bcast.contains_key(x);
                    if let Some((x, y)) = acc {
                        let y_scalar = scalar(self, &y);
                        let vx = self.v(x)?;
                        let (op, ry) = if y_scalar { (I::VfmaddVf, self.s(y)?) } else { (I::VfmaddVv, self.v(y)?) };
                        let vc = self.v(*c)?;
                        self.emit_rr(I::VaddVx, d, ZERO, vx, 0);
                        self.emit_rr(op, d, ry, vc, 0);
                        return Ok(());
                    }
                    let uniform_factor = if scalar(self, a) {
                        Some((*a, *b))
                    } else if scalar(self, b) {
                        Some((*b, *a))
                    } else {
                        None
                    };
                    let (op, r1, r2) = match uniform_factor {
                        Some((u, w)) => (I::VfmaccVf, self.s(u)?, self.v(w)?),
                        None => (I::VfmaccVv, self.v(*a)?, self.v(*b)?),
                    };
                    // d = c, then d += a·b (a uniform addend is broadcast straight into d).
                    if self.div(*c) || c_ready {
                        let vc = self.v(*c)?;
                        self.emit_rr(I::VaddVx, d, ZERO, vc, 0);
                    } else {
                        let sc = self.s(*c)?;
                        self.emit_rr(I::VmvVX, d, sc, ZERO, 0);
                    }
                    self.emit_rr(op, d, r1, r2, 0);
                } else {
                    let (sa, sb, sc) = (self.s(*a)?, self.s(*b)?, self.s(*c)?);
                    let mut m = MInst::new(MOp::I(I::FmaddS));
                    m.rd = Some(d);
                    m.rs1 = Some(sa);
                    m.rs2 = Some(sb);
                    m.rs3 = Some(sc);
                    m.imm = 7;
                    self.push(m);
                }
                Ok(())
            }
            Op::Conv(o, a) => self.convert(r.expect("conv result"), *o, *a),
            Op::WorkItem(..) => Err(CompileError::Internal("work-item function not lowered".into())),
            Op::Param(k) => {
                let d = self.reg(r.expect("param result"));
                let a = super::call::level(self.m.level).args + *k as u8;
                if d.is_vector() {
                    self.emit_rr(I::VaddVx, d, ZERO, Reg::PV(a), 0);
                } else {
                    // A uniform variant's parameter (`target::call`): the highest active lane.
                    self.emit_rr(I::VmvXS, d, ZERO, Reg::PV(a), 0);
                }
                Ok(())
            }
            Op::Return(words) => {
                let a = super::call::level(self.m.level).args;
                for (k, w) in words.clone().into_iter().enumerate() {
                    if self.div(w) {
                        let src = self.reg(w);
                        self.emit_rr(I::VaddVx, Reg::PV(a + k as u8), ZERO, src, 0);
                    } else {
                        let src = self.s(w)?;
                        self.emit_rr(I::VmvVX, Reg::PV(a + k as u8), src, ZERO, 0);
                    }
                }
                Ok(())
            }
            Op::Call { sub, args } => self.call(r.expect("call result"), *sub, args),
            // Copied out of the return registers by the call itself.
            Op::CallRes(..) => Ok(()),
        }
    }
}

mod ops;
