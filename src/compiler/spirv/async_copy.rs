//! `async_work_group_copy` / `async_work_group_strided_copy` (SPIR-V `OpGroupAsyncCopy`) and
//! `wait_group_events` (`OpGroupWaitEvents`).
//!
//! The copy is performed synchronously by the work-group: work-item `l` (local linear id) copies
//! elements `l, l + size, l + 2·size, …` (a loop whose trip count may differ between lanes); the
//! returned event is a dummy. `wait_group_events` is a work-group barrier that also orders
//! global memory, which makes every work-item's part of the copy visible to all — exactly the
//! guarantee the built-ins give. Elements may be vectors or structs (copied leaf by leaf).

use super::super::ir::*;
use super::super::CompileError;
use super::lower::Lowerer;

impl Lowerer<'_> {
    /// Emits the copy loop starting in `*cur`; on return `*cur` is the block after the loop.
    /// `stride` applies to the global side (the source when `dst` is local, else the destination).
    #[allow(clippy::too_many_arguments)] // mirrors OpGroupAsyncCopy's operands
    pub(super) fn group_async_copy(
        &mut self,
        cur: &mut BlockId,
        dst: Value,
        src: Value,
        num: Value,
        stride: Value,
        elem_ty: u32,
        dst_local: bool,
    ) -> Result<(), CompileError> {
        let size = self.m.types.size(elem_ty)?;
        let to_i32 = |lw: &mut Self, b: BlockId, v: Value| match lw.f.ty(v) {
            Ty::I32 => Ok(v),
            Ty::I64 => Ok(lw.f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, v))),
            _ => Err(CompileError::InvalidSpirv("async copy count is not an integer".into())),
        };
        let num = to_i32(self, *cur, num)?;
        let stride = to_i32(self, *cur, stride)?;
        let lid = self.work_item(WorkItem::LocalLinearId, 0);
        let (sx, sy, sz) = (
            self.work_item(WorkItem::LocalSize, 0),
            self.work_item(WorkItem::LocalSize, 1),
            self.work_item(WorkItem::LocalSize, 2),
        );
        let entry = *cur;
        let sxy = self.f.push(entry, Ty::I32, Op::Bin(BinOp::Mul, sx, sy));
        let step = self.f.push(entry, Ty::I32, Op::Bin(BinOp::Mul, sxy, sz));
        let (header, body, exit) = (self.f.new_block(), self.f.new_block(), self.f.new_block());
        self.f.block_mut(entry).term = Term::Br(header);
        // header: i = φ(lid, i + step); i < num ? body : exit
        let i = self.f.new_value(Ty::I32);
        let next = self.f.new_value(Ty::I32);
        self.f.push_def(header, i, Op::Phi(vec![(entry, lid), (body, next)]));
        let more = self.f.push(header, Ty::I1, Op::Cmp(CmpOp::LtU, i, num));
        self.f.block_mut(header).term = Term::CondBr { cond: more, then_: body, else_: exit };
        // body: copy element i
        let strided = self.f.push(body, Ty::I32, Op::Bin(BinOp::Mul, i, stride));
        let (di, si) = if dst_local { (i, strided) } else { (strided, i) };
        let (dt, st) = (self.f.ty(dst), self.f.ty(src));
        let d = self.index(body, dst, di, size, dt)?;
        let s = self.index(body, src, si, size, st)?;
        let vals = self.load_leaves(body, s, elem_ty)?;
        self.store_leaves(body, d, elem_ty, &vals)?;
        self.f.push_def(body, next, Op::Bin(BinOp::Add, i, step));
        self.f.block_mut(body).term = Term::Br(header);
        *cur = exit;
        Ok(())
    }
}
