//! Work-group and sub-group collective functions (SPIR-V `Groups`: `OpGroupAll/Any/Broadcast`,
//! `OpGroup{I,F}Add`, `OpGroup{S,U,F}{Min,Max}` with `Reduce`/`InclusiveScan`/`ExclusiveScan`)
//! and the sub-group built-in variables.
//!
//! A sub-group is one warp: `NUM_THREAD` lanes in lock-step (sub-group local id = the lane,
//! sub-group id = `CSR_WID`). Cross-lane exchange goes through a per-kernel scratch area in the
//! static `__local` data (lanes of one warp are in lock-step, so a store by every lane followed
//! by loads needs no barrier):
//!
//! * **Sub-group scan** of the core functions (every work-item of the sub-group calls them):
//!   the active lanes follow from the work-group's shape — the warp's first lanes, except in the
//!   non-uniform edge groups of 2D/3D ranges. Then Hillis–Steele: for d = 1, 2, 4, 8, 16 every
//!   lane stores its value, loads the one d lanes below and combines; a reduction is the last
//!   lane's value (a uniform load; the identity for a warp without work-items), an exclusive
//!   scan the value one lane below. Otherwise — and for the non-uniform functions of
//!   `spirv::subgroup_ext`, over whichever lanes are active — the warp's 32 slots are set to the
//!   identity, every active lane stores its value, and one uniform pass folds the slots (and,
//!   for a scan, stores each running value back).
//! * **Sub-group broadcast**: every lane stores, a uniform load reads the given lane's slot.
//! * **Work-group reduce / scan**: each warp's reduction goes to its partial slot; after a
//!   barrier every warp folds the partials of all warps (reduce) or of the warps below it
//!   (scan, then combined with its sub-group scan) in a uniform loop; a closing barrier lets
//!   the next collective reuse the scratch. Broadcast: the chosen work-item stores, barrier,
//!   everyone loads, barrier.
//!
//! Values: 32/64-bit integers, float, double (soft-double library calls) and half (computed in
//! float, rounded to nearest even — exact for min/max). Floating-point reductions combine in
//! the order above (OpenCL leaves the order unspecified).

use super::super::ir::*;
use super::super::CompileError;
use super::half::HalfRound;
use super::lower::{Frame, Lowerer};
use super::types::SType;
use super::{id_operand, invalid};
use crate::abi::subroutine::F64Primitive;
use crate::isa::regs::csr;
use rspirv::dr::{Instruction, Operand};
use spirv::Op as S;

/// Lanes in one warp's slot row (`NUM_THREAD` ≤ 32).
pub(super) const LANES: u32 = 32;
/// Warps in a work-group (`NUM_WARP` ≤ 32).
const WARPS: u32 = 32;
/// Bytes per slot (the widest value: 64 bits).
pub(super) const SLOT: u32 = 8;
/// Scratch layout (byte offsets from its base in the static `__local` data).
const ROWS: u32 = 0;
const PARTIALS: u32 = ROWS + WARPS * LANES * SLOT;
/// Per warp, four words: the highest lane with a work-item, the number of such lanes, the
/// lowest such lane, a ballot.
pub(super) const HIGH: u32 = PARTIALS + WARPS * SLOT;
const BCAST: u32 = HIGH + WARPS * 16;
/// Scratch bytes a kernel with collectives reserves.
pub const SCRATCH_BYTES: u32 = BCAST + SLOT;

/// `OpGroup*` instructions lowered here.
pub(super) fn is_group_op(op: S) -> bool {
    matches!(
        op,
        S::GroupAll
            | S::GroupAny
            | S::GroupBroadcast
            | S::GroupIAdd
            | S::GroupFAdd
            | S::GroupFMin
            | S::GroupUMin
            | S::GroupSMin
            | S::GroupFMax
            | S::GroupUMax
            | S::GroupSMax
    )
}

/// The kind of value combined.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    I32,
    /// An 8- or 16-bit integer, combined in 32 bits (extended as the operation's signedness
    /// says, truncated after).
    Narrow(u32),
    I64,
    F32,
    F64,
    F16,
}

impl Kind {
    pub(super) fn ty(self) -> Ty {
        match self {
            Kind::I32 | Kind::Narrow(_) => Ty::I32,
            Kind::I64 | Kind::F64 => Ty::I64,
            Kind::F32 => Ty::F32,
            Kind::F16 => Ty::I16,
        }
    }
}

/// The combining operation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Combine {
    Add,
    Mul,
    Xor,
    Min { signed: bool },
    Max { signed: bool },
    And,
    Or,
}

/// Scope of a collective.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Scope {
    WorkGroup,
    /// Every work-item of the sub-group takes part (the core functions).
    SubGroup,
    /// Whichever lanes are active (the `cl_khr_subgroup_non_uniform_*` functions).
    NonUniform,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Operation {
    Reduce,
    Inclusive,
    Exclusive,
}

impl Operation {
    /// The operation of a SPIR-V group operation (`None`: clustered and partitioned ones).
    pub(super) fn of(g: spirv::GroupOperation) -> Option<Operation> {
        match g {
            spirv::GroupOperation::Reduce => Some(Operation::Reduce),
            spirv::GroupOperation::InclusiveScan => Some(Operation::Inclusive),
            spirv::GroupOperation::ExclusiveScan => Some(Operation::Exclusive),
            _ => None,
        }
    }
}

/// The identity element of `c` over `k` (bits).
pub(super) fn identity(k: Kind, c: Combine) -> u64 {
    match (c, k) {
        (Combine::Add | Combine::Or | Combine::Xor, _) => 0,
        (Combine::And, Kind::I64) => u64::MAX,
        (Combine::And, _) => u32::MAX as u64,
        (Combine::Mul, Kind::F32) => 1f32.to_bits() as u64,
        (Combine::Mul, Kind::F64) => 1f64.to_bits(),
        (Combine::Mul, Kind::F16) => 0x3c00,
        (Combine::Mul, _) => 1,
        (Combine::Min { signed: true }, Kind::Narrow(b)) => (1u64 << (b - 1)) - 1,
        (Combine::Min { signed: false }, Kind::Narrow(b)) => (1u64 << b) - 1,
        (Combine::Max { signed: true }, Kind::Narrow(b)) => (-(1i32 << (b - 1))) as u32 as u64,
        (Combine::Max { signed: false }, Kind::Narrow(_)) => 0,
        (Combine::Min { signed: true }, Kind::I32) => i32::MAX as u32 as u64,
        (Combine::Min { signed: false }, Kind::I32) => u32::MAX as u64,
        (Combine::Min { signed: true }, Kind::I64) => i64::MAX as u64,
        (Combine::Min { signed: false }, Kind::I64) => u64::MAX,
        (Combine::Max { signed: true }, Kind::I32) => i32::MIN as u32 as u64,
        (Combine::Max { signed: true }, Kind::I64) => i64::MIN as u64,
        (Combine::Max { signed: false }, Kind::I32 | Kind::I64) => 0,
        (Combine::Min { .. }, Kind::F32) => f32::INFINITY.to_bits() as u64,
        (Combine::Max { .. }, Kind::F32) => f32::NEG_INFINITY.to_bits() as u64,
        (Combine::Min { .. }, Kind::F64) => f64::INFINITY.to_bits(),
        (Combine::Max { .. }, Kind::F64) => f64::NEG_INFINITY.to_bits(),
        (Combine::Min { .. }, Kind::F16) => 0x7c00,
        (Combine::Max { .. }, Kind::F16) => 0xfc00,
    }
}

impl Lowerer<'_> {
    /// The kind of the scalar type `ty`.
    pub(super) fn group_kind(&self, ty: u32) -> Result<Kind, CompileError> {
        Ok(match self.m.types.get(ty)? {
            SType::Int { width: 64, .. } => Kind::I64,
            SType::Int { width: 32, .. } | SType::Bool => Kind::I32,
            SType::Int { width: w @ (8 | 16), .. } => Kind::Narrow(*w),
            SType::Float { width: 32 } => Kind::F32,
            SType::Float { width: 64 } => Kind::F64,
            SType::Float { width: 16 } => Kind::F16,
            _ => return Err(self.err("work-group/sub-group functions on vectors or aggregates")),
        })
    }

    /// Byte offset of the collectives' scratch area in the static `__local` data.
    fn group_scratch(&mut self) -> u32 {
        if let Some(off) = self.group_scratch {
            return off;
        }
        let off = self.f.local_bytes.next_multiple_of(SLOT);
        self.f.local_bytes = off + SCRATCH_BYTES;
        self.group_scratch = Some(off);
        off
    }

    pub(super) fn ci32(&mut self, v: u32) -> Value {
        self.const_val(Ty::I32, v as u64)
    }

    /// `__local` address `scratch + at + index·scale` (`index` may be `None`).
    pub(super) fn scratch_at(&mut self, b: BlockId, at: u32, index: Option<Value>, scale: u32) -> Value {
        let base = self.group_scratch() + at;
        let p = self.f.push(b, Ty::Ptr(Space::Local), Op::LocalAddr { offset: base });
        match index {
            None => p,
            Some(i) => {
                let s = self.ci32(scale);
                let off = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, i, s));
                self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, p, off))
            }
        }
    }

    /// `x ∘ y` at the end of `*cur` (library calls for double may add blocks).
    pub(super) fn combine(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        x: Value,
        y: Value,
    ) -> Result<Value, CompileError> {
        let b = *cur;
        Ok(match k {
            Kind::I32 | Kind::I64 | Kind::Narrow(_) => {
                let op = match c {
                    Combine::Add => BinOp::Add,
                    Combine::Mul => BinOp::Mul,
                    Combine::Xor => BinOp::Xor,
                    Combine::Min { signed: true } => BinOp::MinS,
                    Combine::Min { signed: false } => BinOp::MinU,
                    Combine::Max { signed: true } => BinOp::MaxS,
                    Combine::Max { signed: false } => BinOp::MaxU,
                    Combine::And => BinOp::And,
                    Combine::Or => BinOp::Or,
                };
                self.f.push(b, k.ty(), Op::Bin(op, x, y))
            }
            Kind::F32 => self.f.push(b, Ty::F32, Op::Bin(float_op(c)?, x, y)),
            Kind::F16 => {
                let (fx, fy) = (self.half_to_float(b, x), self.half_to_float(b, y));
                let r = self.f.push(b, Ty::F32, Op::Bin(float_op(c)?, fx, fy));
                self.float_to_half(b, r, HalfRound::Rte)
            }
            Kind::F64 => {
                let name = match c {
                    Combine::Add => F64Primitive::Add.name(),
                    Combine::Mul => F64Primitive::Mul.name(),
                    Combine::Min { .. } => "__vt_f64_fmin",
                    Combine::Max { .. } => "__vt_f64_fmax",
                    _ => return Err(invalid("a logical group operation on double")),
                };
                self.call_lib(cur, name, &[x, y])?
            }
        })
    }

    /// Lowers an `OpGroup*` instruction.
    pub(super) fn group_op(&mut self, fr: &mut Frame, cur: &mut BlockId, i: &Instruction) -> Result<(), CompileError> {
        if self.level != 0 {
            return Err(self.err("work-group/sub-group functions in a library routine"));
        }
        let op = i.class.opcode;
        let (r, ty) = self.result(i)?;
        let scope = match self.m.constant_u64(id_operand(i, 0)?).ok() {
            Some(2) => Scope::WorkGroup,
            Some(3) => Scope::SubGroup,
            _ => return Err(self.err("work-group/sub-group functions of another scope")),
        };
        let out = match op {
            S::GroupAll | S::GroupAny => {
                let p = self.get1(fr, id_operand(i, 1)?)?;
                let x = self.f.push(*cur, Ty::I32, Op::Conv(ConvOp::ZExt, p));
                let c = if op == S::GroupAll { Combine::And } else { Combine::Or };
                let v = self.collective(cur, scope, Kind::I32, c, Operation::Reduce, x)?;
                let z = self.ci32(0);
                self.f.push(*cur, Ty::I1, Op::Cmp(CmpOp::Ne, v, z))
            }
            S::GroupBroadcast => {
                // Any type: each scalar leaf (vector components) separately.
                let xs = self.get(fr, id_operand(i, 1)?)?;
                let ids = self.get(fr, id_operand(i, 2)?)?;
                let ids: Vec<Value> = ids.into_iter().map(|v| self.index32(*cur, v)).collect();
                let mut out = Vec::new();
                for x in xs {
                    out.push(self.broadcast(cur, scope, x, &ids)?);
                }
                fr.vals.insert(r, out);
                return Ok(());
            }
            _ => {
                let g = match i.operands.get(1) {
                    Some(Operand::GroupOperation(g)) => *g,
                    _ => return Err(invalid(format!("{op:?} without a group operation"))),
                };
                let operation = Operation::of(g).ok_or_else(|| self.err(&format!("group operation {g:?}")))?;
                let k = self.group_kind(ty)?;
                let c = match op {
                    S::GroupIAdd | S::GroupFAdd => Combine::Add,
                    S::GroupSMin | S::GroupFMin => Combine::Min { signed: true },
                    S::GroupUMin => Combine::Min { signed: false },
                    S::GroupSMax | S::GroupFMax => Combine::Max { signed: true },
                    _ => Combine::Max { signed: false },
                };
                let x = self.get1(fr, id_operand(i, 2)?)?;
                self.typed_collective(cur, scope, k, c, operation, x)?
            }
        };
        fr.vals.insert(r, vec![out]);
        Ok(())
    }

    /// An index operand as 32 bits.
    pub(super) fn index32(&mut self, b: BlockId, v: Value) -> Value {
        match self.f.ty(v) {
            Ty::I64 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, v)),
            Ty::I8 | Ty::I16 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, v)),
            _ => v,
        }
    }

    /// [`Self::collective`] on a value of kind `k` (8/16-bit integers widened as `c`'s
    /// signedness says and the result narrowed back).
    pub(super) fn typed_collective(
        &mut self,
        cur: &mut BlockId,
        scope: Scope,
        k: Kind,
        c: Combine,
        op: Operation,
        x: Value,
    ) -> Result<Value, CompileError> {
        self.widened(cur, k, c, x, |me, cur, x| me.collective(cur, scope, k, c, op, x))
    }

    /// `f(x)`, with an 8/16-bit integer `x` (kind `k`) extended to 32 bits as `c`'s signedness
    /// says and the result truncated back.
    pub(super) fn widened(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        x: Value,
        f: impl FnOnce(&mut Self, &mut BlockId, Value) -> Result<Value, CompileError>,
    ) -> Result<Value, CompileError> {
        let Kind::Narrow(_) = k else {
            return f(self, cur, x);
        };
        let t = self.f.ty(x);
        let signed = matches!(c, Combine::Min { signed: true } | Combine::Max { signed: true });
        let wide = self.f.push(*cur, Ty::I32, Op::Conv(if signed { ConvOp::SExt } else { ConvOp::ZExt }, x));
        let r = f(self, cur, wide)?;
        Ok(self.f.push(*cur, t, Op::Conv(ConvOp::Trunc, r)))
    }

    /// Fills this warp's slots with the identity of `c` over `k` and stores every active lane's
    /// `x` in its slot; (identity, the row, the lane's sub-group local id, its slot).
    pub(super) fn publish(&mut self, b: BlockId, k: Kind, c: Combine, x: Value) -> (Value, Value, Value, Value) {
        let id = self.const_val(k.ty(), identity(k, c));
        let row = self.warp_row(b);
        for l in 0..LANES {
            let o = self.ci32(l * SLOT);
            let p = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, row, o));
            self.f.push_void(b, Op::Store { ptr: p, value: id });
        }
        let (sgl, slot) = self.lane_slot(b);
        self.f.push_void(b, Op::Store { ptr: slot, value: x });
        (id, row, sgl, slot)
    }

    /// `acc ∘ slot[0] ∘ … ∘ slot[n−1]` over the 8-byte slots from `base`, in a uniform loop;
    /// `write_back` stores each running value over its slot (the slots' inclusive scan).
    #[allow(clippy::too_many_arguments)]
    fn fold_slots(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        acc0: Value,
        base: Value,
        n: Value,
        write_back: bool,
    ) -> Result<Value, CompileError> {
        let t = k.ty();
        let entry = *cur;
        let (zero, one, s) = (self.ci32(0), self.ci32(1), self.ci32(SLOT));
        let (header, body, exit) = (self.f.new_block(), self.f.new_block(), self.f.new_block());
        self.f.block_mut(entry).term = Term::Br(header);
        let (j, acc) = (self.f.new_value(Ty::I32), self.f.new_value(t));
        let (j_next, acc_next) = (self.f.new_value(Ty::I32), self.f.new_value(t));
        let more = self.f.push(header, Ty::I1, Op::Cmp(CmpOp::LtU, j, n));
        self.f.block_mut(header).term = Term::CondBr { cond: more, then_: body, else_: exit };
        let off = self.f.push(body, Ty::I32, Op::Bin(BinOp::Mul, j, s));
        let p = self.f.push(body, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, base, off));
        let y = self.f.push(body, t, Op::Load(p));
        let mut end = body;
        let r = self.combine(&mut end, k, c, acc, y)?;
        self.f.push_def(end, acc_next, Op::Copy(r));
        if write_back {
            self.f.push_void(end, Op::Store { ptr: p, value: acc_next });
        }
        self.f.push_def(end, j_next, Op::Bin(BinOp::Add, j, one));
        self.f.block_mut(end).term = Term::Br(header);
        let phis = [
            Inst::new(Some(j), Op::Phi(vec![(entry, zero), (end, j_next)])),
            Inst::new(Some(acc), Op::Phi(vec![(entry, acc0), (end, acc_next)])),
        ];
        self.f.block_mut(header).insts.splice(0..0, phis);
        *cur = exit;
        Ok(acc)
    }

    /// The warp's lane, its slot and its sub-group local id.
    pub(super) fn lane_slot(&mut self, b: BlockId) -> (Value, Value) {
        let lane = self.f.push(b, Ty::I32, Op::LaneId);
        let tid = self.f.push(b, Ty::I32, Op::Csr(csr::TID));
        let sgl = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, lane, tid));
        let row = self.warp_row(b);
        let s = self.ci32(SLOT);
        let off = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, sgl, s));
        let slot = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, row, off));
        (sgl, slot)
    }

    /// The first slot of this warp's row (uniform).
    pub(super) fn warp_row(&mut self, b: BlockId) -> Value {
        let wid = self.f.push(b, Ty::I32, Op::Csr(csr::WID));
        self.scratch_at(b, ROWS, Some(wid), LANES * SLOT)
    }

    /// A sub-group reduction or scan of `x` (see the module doc). `uniform`: every work-item of
    /// the sub-group makes the call (the core functions), so the active lanes are known from the
    /// work-group's shape — Hillis–Steele when they are the warp's first lanes; otherwise (and
    /// for the non-uniform functions, over whichever lanes are active) a uniform pass over the
    /// slots, those of inactive lanes holding the identity.
    pub(super) fn sub_group_scan(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        x: Value,
        want: Operation,
        uniform: bool,
    ) -> Result<Value, CompileError> {
        if !uniform {
            return self.sequential_scan(cur, k, c, x, want);
        }
        let t = k.ty();
        let (contiguous, count) = self.warp_shape(*cur);
        let (fast, slow, join) = (self.f.new_block(), self.f.new_block(), self.f.new_block());
        self.f.block_mut(*cur).term = Term::CondBr { cond: contiguous, then_: fast, else_: slow };

        // Lanes 0..=hi: for d = 1, 2, 4, … every lane adds the value d lanes below.
        let mut b = fast;
        let (sgl, slot) = self.lane_slot(b);
        let row = self.warp_row(b);
        let id = self.const_val(t, identity(k, c));
        let mut v = x;
        let mut d = 1;
        while d < LANES {
            self.f.push_void(b, Op::Store { ptr: slot, value: v });
            let dd = self.ci32(d);
            let ok = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::GeU, sgl, dd));
            let back = self.ci32((d * SLOT).wrapping_neg());
            let below = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, slot, back));
            let src = self.f.push(b, Ty::Ptr(Space::Local), Op::Select(ok, below, slot));
            let y = self.f.push(b, t, Op::Load(src));
            let cmb = self.combine(&mut b, k, c, y, v)?;
            v = self.f.push(b, t, Op::Select(ok, cmb, v));
            d *= 2;
        }
        let fast_v = match want {
            Operation::Inclusive => v,
            Operation::Exclusive => {
                self.f.push_void(b, Op::Store { ptr: slot, value: v });
                self.scan_result(b, t, want, id, row, slot, sgl, sgl)?
            }
            Operation::Reduce => {
                // The last lane's scan; the identity for a warp without work-items.
                self.f.push_void(b, Op::Store { ptr: slot, value: v });
                let one = self.ci32(1);
                let last = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, count, one));
                let mask = self.ci32(LANES - 1);
                let hi = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, last, mask));
                let total = self.scan_result(b, t, want, id, row, slot, sgl, hi)?;
                let z = self.ci32(0);
                let any = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Ne, count, z));
                self.f.push(b, t, Op::Select(any, total, id))
            }
        };
        self.f.block_mut(b).term = Term::Br(join);
        let fast_end = b;

        let mut b = slow;
        let slow_v = self.sequential_scan(&mut b, k, c, x, want)?;
        self.f.block_mut(b).term = Term::Br(join);
        let out = self.f.new_value(t);
        self.f.push_def(join, out, Op::Phi(vec![(fast_end, fast_v), (b, slow_v)]));
        *cur = join;
        Ok(out)
    }

    /// Whether this warp's work-items are its first lanes (uniform), and how many it has: the
    /// lanes follow the enqueued local sizes, so only a work-group smaller than enqueued in a
    /// dimension that is not the last of more than one leaves gaps.
    fn warp_shape(&mut self, b: BlockId) -> (Value, Value) {
        let actual: Vec<Value> = (0..3).map(|d| self.work_item(WorkItem::LocalSize, d)).collect();
        let enq: Vec<Value> = (0..3).map(|d| self.work_item(WorkItem::EnqueuedLocalSize, d)).collect();
        let one = self.ci32(1);
        let full = |me: &mut Self, d: usize| me.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, actual[d], enq[d]));
        let is_one = |me: &mut Self, v: Value| me.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, v, one));
        let as_i32 = |me: &mut Self, v: Value| me.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, v));
        // (x full or y, z single) and (y full or z single).
        let (fx, fy) = (full(self, 0), full(self, 1));
        let (y1, z1) = (is_one(self, enq[1]), is_one(self, enq[2]));
        let [fx, fy, y1, z1] = [fx, fy, y1, z1].map(|v| as_i32(self, v));
        let yz1 = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, y1, z1));
        let x_ok = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, fx, yz1));
        let y_ok = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, fy, z1));
        let ok = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, x_ok, y_ok));
        let z = self.ci32(0);
        let contiguous = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Ne, ok, z));
        (contiguous, self.warp_items(b))
    }

    /// This warp's work-items: min(NUM_THREAD, work-items from its first lane on), 0 past the
    /// last one (`get_sub_group_size()`).
    fn warp_items(&mut self, b: BlockId) -> Value {
        let items = self.group_items(false);
        let tid = self.f.push(b, Ty::I32, Op::Csr(csr::TID));
        let rest = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, items, tid));
        let past = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::GeU, tid, items));
        let z = self.ci32(0);
        let rest = self.f.push(b, Ty::I32, Op::Select(past, z, rest));
        let n = self.f.push(b, Ty::I32, Op::Csr(csr::NUMT));
        self.f.push(b, Ty::I32, Op::Bin(BinOp::MinU, rest, n))
    }

    /// The scan over any active lanes: the slots of the others hold the identity, one uniform
    /// pass folds all 32 (and, for a scan, stores each running value back).
    fn sequential_scan(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        x: Value,
        want: Operation,
    ) -> Result<Value, CompileError> {
        let (id, row, sgl, slot) = self.publish(*cur, k, c, x);
        let lanes = self.ci32(LANES);
        let acc = self.fold_slots(cur, k, c, id, row, lanes, want != Operation::Reduce)?;
        match want {
            Operation::Reduce => Ok(acc),
            _ => self.scan_result(*cur, k.ty(), want, id, row, slot, sgl, sgl),
        }
    }

    /// With every slot holding its inclusive scan: this lane's `want` result.
    #[allow(clippy::too_many_arguments)]
    fn scan_result(
        &mut self,
        b: BlockId,
        t: Ty,
        want: Operation,
        id: Value,
        row: Value,
        slot: Value,
        sgl: Value,
        hi: Value,
    ) -> Result<Value, CompileError> {
        Ok(match want {
            Operation::Inclusive => self.f.push(b, t, Op::Load(slot)),
            Operation::Exclusive => {
                let one = self.ci32(1);
                let ok = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::GeU, sgl, one));
                let back = self.ci32(SLOT.wrapping_neg());
                let below = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, slot, back));
                let src = self.f.push(b, Ty::Ptr(Space::Local), Op::Select(ok, below, slot));
                let y = self.f.push(b, t, Op::Load(src));
                self.f.push(b, t, Op::Select(ok, y, id))
            }
            Operation::Reduce => {
                // The highest lane with a work-item holds the total.
                let s = self.ci32(SLOT);
                let off = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, hi, s));
                let p = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, row, off));
                self.f.push(b, t, Op::Load(p))
            }
        })
    }

    /// A reduction or scan of `x` over the sub-group or the work-group.
    pub(super) fn collective(
        &mut self,
        cur: &mut BlockId,
        scope: Scope,
        k: Kind,
        c: Combine,
        op: Operation,
        x: Value,
    ) -> Result<Value, CompileError> {
        if scope != Scope::WorkGroup {
            return self.sub_group_scan(cur, k, c, x, op, scope == Scope::SubGroup);
        }
        let t = k.ty();
        let id = self.const_val(t, identity(k, c));
        // This warp's part.
        let (part, total) = match op {
            Operation::Reduce => {
                let r = self.sub_group_scan(cur, k, c, x, Operation::Reduce, true)?;
                (r, r)
            }
            _ => {
                let s = self.sub_group_scan(cur, k, c, x, op, true)?;
                let r = self.sub_group_scan(cur, k, c, x, Operation::Reduce, true)?;
                (s, r)
            }
        };
        let wid = self.f.push(*cur, Ty::I32, Op::Csr(csr::WID));
        let mine = self.scratch_at(*cur, PARTIALS, Some(wid), SLOT);
        self.f.push_void(*cur, Op::Store { ptr: mine, value: total });
        self.f.push_void(*cur, Op::Barrier { global: false });
        // Fold the partials of warps [0, n): every warp for a reduction, those below for a scan.
        let n = match op {
            Operation::Reduce => self.f.push(*cur, Ty::I32, Op::Csr(csr::NUMW)),
            _ => wid,
        };
        let acc = self.fold_partials(cur, k, c, id, n)?;
        let out = match op {
            Operation::Reduce => acc,
            _ => self.combine(cur, k, c, acc, part)?,
        };
        self.f.push_void(*cur, Op::Barrier { global: false });
        Ok(out)
    }

    /// `identity ∘ partial[0] ∘ … ∘ partial[n−1]` in a uniform loop.
    fn fold_partials(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        id: Value,
        n: Value,
    ) -> Result<Value, CompileError> {
        let base = self.scratch_at(*cur, PARTIALS, None, 0);
        self.fold_slots(cur, k, c, id, base, n, false)
    }

    /// `sub_group_broadcast(x, lane)` / `work_group_broadcast(x, ids…)`.
    fn broadcast(&mut self, cur: &mut BlockId, scope: Scope, x: Value, ids: &[Value]) -> Result<Value, CompileError> {
        let t = self.f.ty(x);
        if t.bits() > 64 {
            return Err(invalid("a broadcast of a value wider than 64 bits"));
        }
        let b = *cur;
        match scope {
            Scope::SubGroup | Scope::NonUniform => {
                let (_, slot) = self.lane_slot(b);
                self.f.push_void(b, Op::Store { ptr: slot, value: x });
                let row = self.warp_row(b);
                let lane = *ids.first().ok_or_else(|| invalid("a broadcast without a lane"))?;
                let s = self.ci32(SLOT);
                let off = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, lane, s));
                let p = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, row, off));
                Ok(self.f.push(b, t, Op::Load(p)))
            }
            Scope::WorkGroup => {
                // The linear local id of the chosen work-item (actual local sizes).
                let mut linear = None;
                for (d, id) in ids.iter().enumerate().rev() {
                    linear = Some(match linear {
                        None => *id,
                        Some(acc) => {
                            let size = self.work_item(WorkItem::LocalSize, d as u32);
                            let m = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, acc, size));
                            self.f.push(b, Ty::I32, Op::Bin(BinOp::Add, m, *id))
                        }
                    });
                }
                let linear = linear.ok_or_else(|| invalid("a broadcast without a local id"))?;
                let me = self.work_item(WorkItem::LocalLinearId, 0);
                let chosen = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, me, linear));
                // The chosen work-item writes the broadcast slot, the others their own lane slot.
                let (_, slot) = self.lane_slot(b);
                let target = self.scratch_at(b, BCAST, None, 0);
                let p = self.f.push(b, Ty::Ptr(Space::Local), Op::Select(chosen, target, slot));
                self.f.push_void(b, Op::Store { ptr: p, value: x });
                self.f.push_void(b, Op::Barrier { global: false });
                let v = self.f.push(b, t, Op::Load(target));
                self.f.push_void(b, Op::Barrier { global: false });
                Ok(v)
            }
        }
    }

    /// The sub-group built-in variables, or `None` for another built-in.
    pub(super) fn sub_group_builtin(&mut self, b: spirv::BuiltIn) -> Option<Value> {
        use spirv::BuiltIn as B;
        let p = self.prelude;
        let numt = || Op::Csr(csr::NUMT);
        Some(match b {
            B::SubgroupLocalInvocationId => {
                let lane = self.f.push(p, Ty::I32, Op::LaneId);
                let tid = self.f.push(p, Ty::I32, Op::Csr(csr::TID));
                self.f.push(p, Ty::I32, Op::Bin(BinOp::Sub, lane, tid))
            }
            B::SubgroupId => self.f.push(p, Ty::I32, Op::Csr(csr::WID)),
            // The largest sub-group of the dispatch: a warp, or the whole (enqueued)
            // work-group when it is smaller (as `CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE`).
            B::SubgroupMaxSize => {
                let items = self.group_items(true);
                let n = self.f.push(p, Ty::I32, numt());
                self.f.push(p, Ty::I32, Op::Bin(BinOp::MinU, items, n))
            }
            B::SubgroupSize => self.warp_items(p),
            B::NumSubgroups | B::NumEnqueuedSubgroups => {
                let items = self.group_items(b == B::NumEnqueuedSubgroups);
                let n = self.f.push(p, Ty::I32, numt());
                let one = self.ci32(1);
                let nm1 = self.f.push(p, Ty::I32, Op::Bin(BinOp::Sub, n, one));
                let t = self.f.push(p, Ty::I32, Op::Bin(BinOp::Add, items, nm1));
                self.f.push(p, Ty::I32, Op::Bin(BinOp::DivU, t, n))
            }
            _ => return None,
        })
    }

    /// Work-items in this work-group (`enqueued`: in a full one).
    fn group_items(&mut self, enqueued: bool) -> Value {
        let w = if enqueued { WorkItem::EnqueuedLocalSize } else { WorkItem::LocalSize };
        let (x, y, z) = (self.work_item(w, 0), self.work_item(w, 1), self.work_item(w, 2));
        let p = self.prelude;
        let xy = self.f.push(p, Ty::I32, Op::Bin(BinOp::Mul, x, y));
        self.f.push(p, Ty::I32, Op::Bin(BinOp::Mul, xy, z))
    }
}

fn float_op(c: Combine) -> Result<BinOp, CompileError> {
    Ok(match c {
        Combine::Add => BinOp::FAdd,
        Combine::Mul => BinOp::FMul,
        Combine::Min { .. } => BinOp::FMin,
        Combine::Max { .. } => BinOp::FMax,
        _ => return Err(invalid("a logical group operation on floating-point values")),
    })
}
