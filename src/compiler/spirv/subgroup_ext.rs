//! The `cl_khr_subgroup_*` extensions (SPIR-V `GroupNonUniform*`): non-uniform votes
//! (`elect`, `all`, `any`, `all_equal`), ballots and the lane masks, shuffles (by index, xor, up,
//! down), non-uniform and clustered reductions and scans (add, mul, min, max, bitwise and
//! logical and/or/xor), over the lanes that are active where the call is made.
//!
//! Built on `spirv::groups` (the warp's lane slots in the `__local` scratch): a value exchange
//! stores every active lane's value in its slot and loads the wanted slot (shuffle indices are
//! taken modulo 32, so an out-of-range index reads some slot rather than faulting — the spec
//! leaves the value undefined); a reduction or scan is the sub-group scan, whose slots of
//! inactive lanes hold the identity; a clustered reduction combines the `cluster` slots of its
//! cluster; `elect` and `broadcast_first` use the lowest active lane (a lane atomic), a ballot is a
//! lane atomic `or` of `1 << lane` (a sub-group has at most 32 lanes: words 1–3 are 0).

use super::super::ir::*;
use super::super::CompileError;
use super::groups::{Combine, Kind, Operation, Scope, HIGH, LANES, SLOT};
use super::lower::{Frame, Lowerer};
use super::{id_operand, invalid};
use crate::isa::regs::csr;
use rspirv::dr::{Instruction, Operand};
use spirv::Op as S;

/// `OpGroupNonUniform*` instructions lowered here.
pub(super) fn is_non_uniform_op(op: S) -> bool {
    matches!(
        op,
        S::GroupNonUniformElect
            | S::GroupNonUniformAll
            | S::GroupNonUniformAny
            | S::GroupNonUniformAllEqual
            | S::GroupNonUniformBroadcast
            | S::GroupNonUniformBroadcastFirst
            | S::GroupNonUniformBallot
            | S::GroupNonUniformInverseBallot
            | S::GroupNonUniformBallotBitExtract
            | S::GroupNonUniformBallotBitCount
            | S::GroupNonUniformBallotFindLSB
            | S::GroupNonUniformBallotFindMSB
            | S::GroupNonUniformShuffle
            | S::GroupNonUniformShuffleXor
            | S::GroupNonUniformShuffleUp
            | S::GroupNonUniformShuffleDown
    ) || arithmetic(op).is_some()
}

/// The combining operation of an arithmetic `OpGroupNonUniform*` and whether it is logical
/// (on booleans).
fn arithmetic(op: S) -> Option<(Combine, bool)> {
    Some(match op {
        S::GroupNonUniformIAdd | S::GroupNonUniformFAdd => (Combine::Add, false),
        S::GroupNonUniformIMul | S::GroupNonUniformFMul => (Combine::Mul, false),
        S::GroupNonUniformSMin | S::GroupNonUniformFMin => (Combine::Min { signed: true }, false),
        S::GroupNonUniformUMin => (Combine::Min { signed: false }, false),
        S::GroupNonUniformSMax | S::GroupNonUniformFMax => (Combine::Max { signed: true }, false),
        S::GroupNonUniformUMax => (Combine::Max { signed: false }, false),
        S::GroupNonUniformBitwiseAnd => (Combine::And, false),
        S::GroupNonUniformBitwiseOr => (Combine::Or, false),
        S::GroupNonUniformBitwiseXor => (Combine::Xor, false),
        S::GroupNonUniformLogicalAnd => (Combine::And, true),
        S::GroupNonUniformLogicalOr => (Combine::Or, true),
        S::GroupNonUniformLogicalXor => (Combine::Xor, true),
        _ => return None,
    })
}

/// Words in the per-warp block at `HIGH`.
const LOW_WORD: u32 = 8;
const BALLOT_WORD: u32 = 12;

impl Lowerer<'_> {
    /// Lowers an `OpGroupNonUniform*` instruction.
    pub(super) fn non_uniform_op(
        &mut self,
        fr: &mut Frame,
        cur: &mut BlockId,
        i: &Instruction,
    ) -> Result<(), CompileError> {
        if self.level != 0 {
            return Err(self.err("sub-group functions in a library routine"));
        }
        let op = i.class.opcode;
        let (r, ty) = self.result(i)?;
        if self.m.constant_u64(id_operand(i, 0)?).ok() != Some(3) {
            return Err(self.err("non-uniform group functions of a scope other than the sub-group"));
        }
        let arg = |me: &mut Self, k: usize| -> Result<Vec<Value>, CompileError> { me.get(fr, id_operand(i, k)?) };
        let out: Vec<Value> = match op {
            S::GroupNonUniformElect => {
                let (sgl, _) = self.lane_slot(*cur);
                let low = self.lowest_lane(*cur, sgl);
                vec![self.f.push(*cur, Ty::I1, Op::Cmp(CmpOp::Eq, sgl, low))]
            }
            S::GroupNonUniformAll | S::GroupNonUniformAny => {
                let p = single(arg(self, 1)?)?;
                let x = self.f.push(*cur, Ty::I32, Op::Conv(ConvOp::ZExt, p));
                let c = if op == S::GroupNonUniformAll { Combine::And } else { Combine::Or };
                let v = self.sub_group_scan(cur, Kind::I32, c, x, Operation::Reduce, false)?;
                vec![self.nonzero(*cur, v)]
            }
            S::GroupNonUniformAllEqual => {
                // Every leaf equal (bit patterns) to the lowest active lane's.
                let xs = arg(self, 1)?;
                let mut same = self.ci32(1);
                for x in xs {
                    let first = self.first_lane_value(*cur, x);
                    let (a, b) = (self.bits(*cur, x), self.bits(*cur, first));
                    let eq = self.f.push(*cur, Ty::I1, Op::Cmp(CmpOp::Eq, a, b));
                    let e = self.f.push(*cur, Ty::I32, Op::Conv(ConvOp::ZExt, eq));
                    same = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::And, same, e));
                }
                let v = self.sub_group_scan(cur, Kind::I32, Combine::And, same, Operation::Reduce, false)?;
                vec![self.nonzero(*cur, v)]
            }
            S::GroupNonUniformBroadcast | S::GroupNonUniformShuffle => {
                let xs = arg(self, 1)?;
                let id = single(arg(self, 2)?)?;
                let id = self.index32(*cur, id);
                xs.into_iter().map(|x| self.read_lane(*cur, x, id)).collect()
            }
            S::GroupNonUniformBroadcastFirst => {
                arg(self, 1)?.into_iter().map(|x| self.first_lane_value(*cur, x)).collect()
            }
            S::GroupNonUniformShuffleXor | S::GroupNonUniformShuffleUp | S::GroupNonUniformShuffleDown => {
                let xs = arg(self, 1)?;
                let k = single(arg(self, 2)?)?;
                let k = self.index32(*cur, k);
                let (sgl, _) = self.lane_slot(*cur);
                let o = match op {
                    S::GroupNonUniformShuffleXor => BinOp::Xor,
                    S::GroupNonUniformShuffleUp => BinOp::Sub,
                    _ => BinOp::Add,
                };
                let lane = self.f.push(*cur, Ty::I32, Op::Bin(o, sgl, k));
                xs.into_iter().map(|x| self.read_lane(*cur, x, lane)).collect()
            }
            S::GroupNonUniformBallot => {
                let p = single(arg(self, 1)?)?;
                let (sgl, _) = self.lane_slot(*cur);
                let word = self.warp_word(*cur, BALLOT_WORD);
                let z = self.ci32(0);
                self.f.push_void(*cur, Op::Store { ptr: word, value: z });
                let one = self.ci32(1);
                let bit = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Shl, one, sgl));
                let mine = self.f.push(*cur, Ty::I32, Op::Select(p, bit, z));
                self.f.push(*cur, Ty::I32, Op::Atomic { op: AtomicOp::Or, ptr: word, value: mine });
                let w = self.f.push(*cur, Ty::I32, Op::Load(word));
                vec![w, z, z, z]
            }
            S::GroupNonUniformInverseBallot => {
                let v = arg(self, 1)?;
                let (sgl, _) = self.lane_slot(*cur);
                vec![self.ballot_bit(*cur, &v, sgl)?]
            }
            S::GroupNonUniformBallotBitExtract => {
                let v = arg(self, 1)?;
                let k = single(arg(self, 2)?)?;
                let k = self.index32(*cur, k);
                vec![self.ballot_bit(*cur, &v, k)?]
            }
            S::GroupNonUniformBallotBitCount => {
                let g = match i.operands.get(1) {
                    Some(Operand::GroupOperation(g)) => *g,
                    _ => return Err(invalid("OpGroupNonUniformBallotBitCount without a group operation")),
                };
                let v = arg(self, 2)?;
                let w = *v.first().ok_or_else(|| invalid("an empty ballot"))?;
                let in_group = self.sub_group_mask(*cur);
                let (sgl, _) = self.lane_slot(*cur);
                let one = self.ci32(1);
                let mask = match g {
                    spirv::GroupOperation::Reduce => in_group,
                    spirv::GroupOperation::InclusiveScan => {
                        // Bits 0..=lane: (2 << lane) − 1 (lane 31 wraps to all ones).
                        let two = self.ci32(2);
                        let s = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Shl, two, sgl));
                        self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Sub, s, one))
                    }
                    spirv::GroupOperation::ExclusiveScan => {
                        let s = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Shl, one, sgl));
                        self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Sub, s, one))
                    }
                    other => return Err(self.err(&format!("ballot bit count with {other:?}"))),
                };
                let m = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::And, w, mask));
                let m = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::And, m, in_group));
                vec![self.f.push(*cur, Ty::I32, Op::Un(UnOp::Popcount, m))]
            }
            S::GroupNonUniformBallotFindLSB | S::GroupNonUniformBallotFindMSB => {
                let v = arg(self, 1)?;
                let w = *v.first().ok_or_else(|| invalid("an empty ballot"))?;
                let in_group = self.sub_group_mask(*cur);
                let w = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::And, w, in_group));
                if op == S::GroupNonUniformBallotFindLSB {
                    // popcount((w & −w) − 1): the trailing zeros.
                    let z = self.ci32(0);
                    let neg = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Sub, z, w));
                    let low = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::And, w, neg));
                    let one = self.ci32(1);
                    let below = self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Sub, low, one));
                    vec![self.f.push(*cur, Ty::I32, Op::Un(UnOp::Popcount, below))]
                } else {
                    let lz = self.f.push(*cur, Ty::I32, Op::Un(UnOp::Clz, w));
                    let k = self.ci32(31);
                    vec![self.f.push(*cur, Ty::I32, Op::Bin(BinOp::Sub, k, lz))]
                }
            }
            _ => {
                let (c, logical) = arithmetic(op).ok_or_else(|| self.err(&format!("SPIR-V instruction {op:?}")))?;
                let g = match i.operands.get(1) {
                    Some(Operand::GroupOperation(g)) => *g,
                    _ => return Err(invalid(format!("{op:?} without a group operation"))),
                };
                let x = single(arg(self, 2)?)?;
                let (k, x) = if logical {
                    (Kind::I32, self.f.push(*cur, Ty::I32, Op::Conv(ConvOp::ZExt, x)))
                } else {
                    (self.group_kind(ty)?, x)
                };
                let v = match g {
                    spirv::GroupOperation::ClusteredReduce => {
                        let size = self
                            .m
                            .constant_u64(id_operand(i, 3)?)
                            .map_err(|_| self.err("a clustered reduction whose cluster size is not a constant"))?
                            as u32;
                        if !size.is_power_of_two() {
                            return Err(invalid(format!("cluster size {size} (not a power of two)")));
                        }
                        // A cluster larger than the sub-group (undefined behaviour, but code
                        // that checks the size at run time contains such calls) is the warp.
                        self.clustered(cur, k, c, x, size.min(LANES))?
                    }
                    _ => {
                        let o = Operation::of(g).ok_or_else(|| self.err(&format!("group operation {g:?}")))?;
                        self.typed_collective(cur, Scope::NonUniform, k, c, o, x)?
                    }
                };
                vec![if logical { self.nonzero(*cur, v) } else { v }]
            }
        };
        fr.vals.insert(r, out);
        Ok(())
    }

    fn nonzero(&mut self, b: BlockId, v: Value) -> Value {
        let z = self.ci32(0);
        self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Ne, v, z))
    }

    /// A value's bits as an integer of its width (floats bit-cast).
    fn bits(&mut self, b: BlockId, v: Value) -> Value {
        match self.f.ty(v) {
            Ty::F32 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v)),
            Ty::I1 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, v)),
            _ => v,
        }
    }

    /// Word `at` of this warp's block at `HIGH` (uniform).
    fn warp_word(&mut self, b: BlockId, at: u32) -> Value {
        let wid = self.f.push(b, Ty::I32, Op::Csr(csr::WID));
        let base = self.scratch_at(b, HIGH, Some(wid), 16);
        let o = self.ci32(at);
        self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, base, o))
    }

    /// The lowest active lane (uniform).
    fn lowest_lane(&mut self, b: BlockId, sgl: Value) -> Value {
        let word = self.warp_word(b, LOW_WORD);
        let all = self.ci32(u32::MAX);
        self.f.push_void(b, Op::Store { ptr: word, value: all });
        self.f.push(b, Ty::I32, Op::Atomic { op: AtomicOp::MinU, ptr: word, value: sgl });
        self.f.push(b, Ty::I32, Op::Load(word))
    }

    /// `x` of the lowest active lane.
    fn first_lane_value(&mut self, b: BlockId, x: Value) -> Value {
        let (sgl, _) = self.lane_slot(b);
        let low = self.lowest_lane(b, sgl);
        self.read_lane(b, x, low)
    }

    /// Every active lane publishes `x`; each reads the value of lane `lane` (mod 32).
    fn read_lane(&mut self, b: BlockId, x: Value, lane: Value) -> Value {
        let t = self.f.ty(x);
        let (_, slot) = self.lane_slot(b);
        let stored = match t {
            Ty::I1 => self.f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, x)),
            _ => x,
        };
        self.f.push_void(b, Op::Store { ptr: slot, value: stored });
        let mask = self.ci32(LANES - 1);
        let l = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, lane, mask));
        let s = self.ci32(SLOT);
        let off = self.f.push(b, Ty::I32, Op::Bin(BinOp::Mul, l, s));
        let row = self.warp_row(b);
        let p = self.f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, row, off));
        match t {
            Ty::I1 => {
                let v = self.f.push(b, Ty::I32, Op::Load(p));
                self.nonzero(b, v)
            }
            _ => self.f.push(b, t, Op::Load(p)),
        }
    }

    /// Bit `k` of the 128-bit ballot `v` (four words).
    fn ballot_bit(&mut self, b: BlockId, v: &[Value], k: Value) -> Result<Value, CompileError> {
        let mut word = *v.first().ok_or_else(|| invalid("an empty ballot"))?;
        let five = self.ci32(5);
        let index = self.f.push(b, Ty::I32, Op::Bin(BinOp::ShrL, k, five));
        for (n, w) in v.iter().enumerate().skip(1) {
            let c = self.ci32(n as u32);
            let is = self.f.push(b, Ty::I1, Op::Cmp(CmpOp::Eq, index, c));
            word = self.f.push(b, Ty::I32, Op::Select(is, *w, word));
        }
        let m = self.ci32(31);
        let bit = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, k, m));
        let shifted = self.f.push(b, Ty::I32, Op::Bin(BinOp::ShrL, word, bit));
        let one = self.ci32(1);
        let low = self.f.push(b, Ty::I32, Op::Bin(BinOp::And, shifted, one));
        Ok(self.nonzero(b, low))
    }

    /// The bits of the lanes a warp has: `(1 << NUM_THREAD) − 1` (all ones for 32).
    fn sub_group_mask(&mut self, b: BlockId) -> Value {
        let n = self.f.push(b, Ty::I32, Op::Csr(csr::NUMT));
        let one = self.ci32(1);
        let nm1 = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, n, one));
        let top = self.f.push(b, Ty::I32, Op::Bin(BinOp::Shl, one, nm1));
        let two_top = self.f.push(b, Ty::I32, Op::Bin(BinOp::Shl, top, one));
        self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, two_top, one))
    }

    /// The lane masks `get_sub_group_{eq,ge,gt,le,lt}_mask()` (four words).
    pub(super) fn lane_mask(&mut self, which: spirv::BuiltIn) -> Option<Vec<Value>> {
        use spirv::BuiltIn as B;
        let b = self.prelude;
        if !matches!(
            which,
            B::SubgroupEqMask | B::SubgroupGeMask | B::SubgroupGtMask | B::SubgroupLeMask | B::SubgroupLtMask
        ) {
            return None;
        }
        let sgl = self.sub_group_builtin(B::SubgroupLocalInvocationId)?;
        let one = self.ci32(1);
        let eq = self.f.push(b, Ty::I32, Op::Bin(BinOp::Shl, one, sgl));
        let lt = self.f.push(b, Ty::I32, Op::Bin(BinOp::Sub, eq, one));
        let all = self.sub_group_mask(b);
        let le = self.f.push(b, Ty::I32, Op::Bin(BinOp::Or, lt, eq));
        let w = match which {
            B::SubgroupEqMask => eq,
            B::SubgroupLtMask => lt,
            B::SubgroupLeMask => le,
            B::SubgroupGeMask => {
                let not_lt = self.f.push(b, Ty::I32, Op::Un(UnOp::Not, lt));
                self.f.push(b, Ty::I32, Op::Bin(BinOp::And, not_lt, all))
            }
            _ => {
                let not_le = self.f.push(b, Ty::I32, Op::Un(UnOp::Not, le));
                self.f.push(b, Ty::I32, Op::Bin(BinOp::And, not_le, all))
            }
        };
        let z = self.ci32(0);
        Some(vec![w, z, z, z])
    }

    /// A clustered reduction: `x` combined over the `size` lanes of its cluster.
    fn clustered(
        &mut self,
        cur: &mut BlockId,
        k: Kind,
        c: Combine,
        x: Value,
        size: u32,
    ) -> Result<Value, CompileError> {
        self.widened(cur, k, c, x, |me, cur, x| {
            let t = k.ty();
            let (_, row, sgl, _) = me.publish(*cur, k, c, x);
            let m = me.ci32(!(size - 1));
            let first = me.f.push(*cur, Ty::I32, Op::Bin(BinOp::And, sgl, m));
            let s = me.ci32(SLOT);
            let off = me.f.push(*cur, Ty::I32, Op::Bin(BinOp::Mul, first, s));
            let base = me.f.push(*cur, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, row, off));
            let mut acc = me.f.push(*cur, t, Op::Load(base));
            for j in 1..size {
                let o = me.ci32(j * SLOT);
                let p = me.f.push(*cur, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, base, o));
                let y = me.f.push(*cur, t, Op::Load(p));
                acc = me.combine(cur, k, c, acc, y)?;
            }
            Ok(acc)
        })
    }
}

/// The single value of a scalar operand.
fn single(v: Vec<Value>) -> Result<Value, CompileError> {
    match v[..] {
        [x] => Ok(x),
        _ => Err(invalid("a vector where a sub-group function takes a scalar")),
    }
}
