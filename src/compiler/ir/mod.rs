//! Our SSA IR: one function per kernel (everything inlined), scalar values only (vectors and
//! aggregates are split into scalars by the front end), explicit address spaces, unstructured CFG.
//!
//! Values are numbered per function; every value has exactly one definition (an instruction or a
//! function parameter) and a scalar type. Blocks end in exactly one terminator. `print` gives the
//! text form used by tests and `parse` reads it back (its grammar is documented there); `verify`
//! checks the invariants.
//!
//! Every instruction carries the source location it was compiled from ([`SrcLoc`], from the
//! SPIR-V's `OpLine`s; none when the module has no line information). Passes keep it where they
//! rewrite an instruction in place and give the instructions they create the location of the
//! one they replace (best effort: a merged or hoisted instruction keeps one of its locations).
//! Instruction selection passes it on to machine instructions, and emission turns it into the
//! ELF's source-line table ([`crate::abi::lines`]).

mod lex;
pub mod parse;
pub mod print;
pub mod verify;

/// A scalar value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A basic block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// Address spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Constant,
    Local,
    Private,
    /// OpenCL C 2.0+ generic pointers: a global, local or private address (the memory map keeps
    /// the three apart, see `pass::generic`), resolved before instruction selection.
    Generic,
}

/// Scalar types. Integers narrower than 32 bits live zero-extended in 32-bit registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    Ptr(Space),
}

impl Ty {
    /// Width in bits (pointers are 32-bit).
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 => 16,
            Ty::I32 | Ty::F32 | Ty::Ptr(_) => 32,
            Ty::I64 => 64,
        }
    }
    /// Bytes in memory.
    pub fn bytes(self) -> u32 {
        match self {
            Ty::I1 | Ty::I8 => 1,
            Ty::I16 => 2,
            Ty::I64 => 8,
            _ => 4,
        }
    }
    pub fn is_float(self) -> bool {
        self == Ty::F32
    }
    /// All ones in the low [`Ty::bits`] bits (how a value of this type sits in a `u64`).
    pub fn mask(self) -> u64 {
        if self.bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// High 32 bits of the signed / unsigned product.
    MulHiS,
    MulHiU,
    DivS,
    DivU,
    RemS,
    RemU,
    And,
    Or,
    Xor,
    Shl,
    ShrL,
    ShrA,
    MinS,
    MinU,
    MaxS,
    MaxU,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FMin,
    FMax,
    /// `copysign(a, b)`.
    FCopySign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
    FNeg,
    FAbs,
    FSqrt,
    /// Exact rounding to an integral float: floor, ceil, trunc, round-to-nearest-even.
    FFloor,
    FCeil,
    FTrunc,
    FRint,
    /// Count leading zeros / population count (32-bit).
    Clz,
    Popcount,
    /// `native_exp` family via the hardware `vfexp` (natural exponent).
    FExp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    LtS,
    LeS,
    GtS,
    GeS,
    LtU,
    LeU,
    GtU,
    GeU,
    /// Ordered float compares (false if either operand is NaN) and unordered-or-not-equal.
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
    /// `isnan`-style helpers: unordered (either NaN) / ordered (neither NaN).
    FUno,
    FOrd,
}

/// Conversions between scalar types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// Integer width changes.
    ZExt,
    SExt,
    Trunc,
    /// Float → integer (round toward zero, saturating like the hardware).
    FToS,
    FToU,
    /// Integer → float (round to nearest even).
    SToF,
    UToF,
    /// Reinterpret bits (same width), including pointer ↔ integer.
    Bitcast,
    /// The float value of the half whose IEEE bits are the low 16 bits of an `i16`/`i32`
    /// (exact; NaNs keep sign and payload). Front-end only: [`crate::compiler::pass::half`]
    /// expands it before 64-bit legalization.
    HalfToFloat,
    /// A float rounded to the nearest half (ties to even), as the half's bits in an `i16`; NaN
    /// keeps its sign and top payload bits and becomes quiet. Front-end only, like
    /// `HalfToFloat`.
    FloatToHalf,
    /// `HalfToFloat(FloatToHalf(x))` as one operation on floats (`f32` → `f32`): `x` rounded to
    /// half precision and range. Made and expanded by [`crate::compiler::pass::half`].
    RoundHalf,
}

/// Work-item functions; `dim` is 0..2 (out-of-range dims are folded by the front end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkItem {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    EnqueuedLocalSize,
    NumGroups,
    GlobalOffset,
    WorkDim,
    LocalLinearId,
    GlobalLinearId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    Xchg,
    And,
    Or,
    Xor,
    MinS,
    MaxS,
    MinU,
    MaxU,
}

/// A source location: `line` (1-based; 0 = none) and `col` (0 = unknown) of file
/// [`Func::files`]`[file]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SrcLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

impl SrcLoc {
    /// No location.
    pub const NONE: SrcLoc = SrcLoc { file: 0, line: 0, col: 0 };
    pub fn is_none(self) -> bool {
        self.line == 0
    }
}

/// An instruction (`result` is `None` for stores, barriers…).
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    pub result: Option<Value>,
    pub op: Op,
    /// Where in the source it comes from.
    pub loc: SrcLoc,
}

impl Inst {
    /// An instruction without a source location.
    pub fn new(result: Option<Value>, op: Op) -> Inst {
        Inst { result, op, loc: SrcLoc::NONE }
    }
    /// An instruction from source location `loc`.
    pub fn at(result: Option<Value>, op: Op, loc: SrcLoc) -> Inst {
        Inst { result, op, loc }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// Integer/pointer constant (low `bits` of the value) or float bits.
    Const(u64),
    /// Undefined value (any bits).
    Undef,
    /// A value of the result type loaded from the kernel-argument buffer at this byte offset.
    ArgWord {
        offset: u32,
    },
    Bin(BinOp, Value, Value),
    Un(UnOp, Value),
    Cmp(CmpOp, Value, Value),
    /// `cond ? a : b`.
    Select(Value, Value, Value),
    /// Fused multiply-add `a*b + c` (one rounding).
    Fma(Value, Value, Value),
    Conv(ConvOp, Value),
    /// Load of the result type from `ptr`.
    Load(Value),
    /// Store `value` (its type gives the width) at `ptr`.
    Store {
        ptr: Value,
        value: Value,
    },
    /// Atomic read-modify-write returning the old value.
    Atomic {
        op: AtomicOp,
        ptr: Value,
        value: Value,
    },
    /// Atomic compare-exchange returning the old value.
    CmpXchg {
        ptr: Value,
        expected: Value,
        desired: Value,
    },
    /// 64-bit atomic compare-exchange on 32-bit halves `[lo, hi]`, made by
    /// [`crate::compiler::pass::legalize64`] for every 64-bit atomic: the result is the low word
    /// of the old value, [`Op::CmpXchg64Hi`] of the result its high word.
    CmpXchg64 {
        ptr: Value,
        expected: [Value; 2],
        desired: [Value; 2],
    },
    /// The high word of the old value of the [`Op::CmpXchg64`] whose result is the operand.
    CmpXchg64Hi(Value),
    WorkItem(WorkItem, u32),
    /// A Ventus CSR read (`tid`, `gidx`…): uniform across the warp.
    Csr(u16),
    /// A word of the kernel metadata buffer (at `CSR_KNL`): uniform.
    MetaWord {
        offset: u32,
    },
    /// The work-group-local linear id of each lane (`CSR_TID + vid`): divergent.
    LaneId,
    /// Work-group barrier; `global` also orders global memory.
    Barrier {
        global: bool,
    },
    /// Sets `CSR_PRINT`: this warp has committed printf records for the host to drain.
    PrintNotify,
    /// Faults the work-group (`__builtin_trap()`, `unreachable` reached at run time).
    Trap,
    /// A memory fence ordering this work-item's accesses against other work-groups (`fence`).
    Fence,
    /// Address of a kernel-scope `__local` variable: byte offset in the static local area.
    LocalAddr {
        offset: u32,
    },
    /// Address of program-scope constant data: byte offset in `.rodata`.
    ConstAddr {
        offset: u32,
    },
    /// Private (per work-item) address: byte offset in the work-item's frame.
    PrivateAddr {
        offset: u32,
    },
    /// SSA φ: one incoming value per predecessor.
    Phi(Vec<(BlockId, Value)>),
    /// A copy (introduced by passes).
    Copy(Value),
    /// Out-of-line call of a runtime-library subroutine (`Func::callees[sub]`, a pure function
    /// of its 32-bit argument words): the result is its first return word, [`Op::CallRes`]
    /// reads the others. See `compiler::subroutine` for the calling convention.
    Call {
        sub: u32,
        args: Vec<Value>,
    },
    /// Return word `k` (≥ 1) of the [`Op::Call`] whose result is the operand.
    CallRes(Value, u32),
    /// In a subroutine: its 32-bit argument word `k`.
    Param(u32),
    /// In a subroutine: the 32-bit words it returns (at its exit, before `Term::Ret`).
    Return(Vec<Value>),
}

/// Block terminators.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    Br(BlockId),
    CondBr { cond: Value, then_: BlockId, else_: BlockId },
    Ret,
    Unreachable,
}

impl Term {
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Term::Br(b) => vec![*b],
            Term::CondBr { then_, else_, .. } => vec![*then_, *else_],
            Term::Ret | Term::Unreachable => vec![],
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Term,
    /// The terminator's source location (e.g. of the `__builtin_trap()` an `unreachable` is).
    pub term_loc: SrcLoc,
}

/// A kernel after lowering.
#[derive(Debug, Clone)]
pub struct Func {
    pub name: String,
    pub types: Vec<Ty>,
    pub blocks: Vec<Block>,
    /// Bytes of static `__local` data.
    pub local_bytes: u32,
    /// Bytes of private data per work-item.
    pub private_bytes: u32,
    /// Subroutines named by the [`Op::Call`]s of this function.
    pub callees: Vec<String>,
    /// Source files named by the instructions' [`SrcLoc`]s.
    pub files: Vec<String>,
    /// The location [`Func::push`] and [`Func::push_void`] give new instructions (construction
    /// state, not part of the function: ignored by `==`).
    pub loc: SrcLoc,
}

impl PartialEq for Func {
    fn eq(&self, o: &Func) -> bool {
        (&self.name, &self.types, &self.blocks, self.local_bytes, self.private_bytes, &self.callees, &self.files)
            == (&o.name, &o.types, &o.blocks, o.local_bytes, o.private_bytes, &o.callees, &o.files)
    }
}

impl Func {
    pub fn new(name: &str) -> Func {
        Func {
            name: name.to_string(),
            types: Vec::new(),
            blocks: vec![Block { insts: Vec::new(), term: Term::Unreachable, term_loc: SrcLoc::NONE }],
            local_bytes: 0,
            private_bytes: 0,
            callees: Vec::new(),
            files: Vec::new(),
            loc: SrcLoc::NONE,
        }
    }
    /// The index of source file `name` in [`Func::files`] (added if new).
    pub fn file(&mut self, name: &str) -> u32 {
        match self.files.iter().position(|c| c == name) {
            Some(k) => k as u32,
            None => {
                self.files.push(name.to_string());
                self.files.len() as u32 - 1
            }
        }
    }
    /// The index of subroutine `name` in [`Func::callees`] (added if new).
    pub fn callee(&mut self, name: &str) -> u32 {
        match self.callees.iter().position(|c| c == name) {
            Some(k) => k as u32,
            None => {
                self.callees.push(name.to_string());
                self.callees.len() as u32 - 1
            }
        }
    }
    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }
    pub fn new_value(&mut self, ty: Ty) -> Value {
        self.types.push(ty);
        Value(self.types.len() as u32 - 1)
    }
    pub fn ty(&self, v: Value) -> Ty {
        self.types[v.0 as usize]
    }
    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block { insts: Vec::new(), term: Term::Unreachable, term_loc: SrcLoc::NONE });
        BlockId(self.blocks.len() as u32 - 1)
    }
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0 as usize]
    }
    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.0 as usize]
    }
    /// Appends an instruction producing a value of `ty` (at [`Func::loc`]).
    pub fn push(&mut self, b: BlockId, ty: Ty, op: Op) -> Value {
        let v = self.new_value(ty);
        let loc = self.loc;
        self.block_mut(b).insts.push(Inst { result: Some(v), op, loc });
        v
    }
    /// Appends an instruction without a result (at [`Func::loc`]).
    pub fn push_void(&mut self, b: BlockId, op: Op) {
        let loc = self.loc;
        self.block_mut(b).insts.push(Inst { result: None, op, loc });
    }
    /// Appends an instruction defining the existing value `v` (at [`Func::loc`]).
    pub fn push_def(&mut self, b: BlockId, v: Value, op: Op) {
        let loc = self.loc;
        self.block_mut(b).insts.push(Inst { result: Some(v), op, loc });
    }
    /// The operation that defines `v`, if any (a linear search, for occasional lookups).
    pub fn def_op(&self, v: Value) -> Option<&Op> {
        self.blocks.iter().flat_map(|b| &b.insts).find(|i| i.result == Some(v)).map(|i| &i.op)
    }
    /// Predecessor lists.
    pub fn preds(&self) -> Vec<Vec<BlockId>> {
        let mut p = vec![Vec::new(); self.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            for s in b.term.successors() {
                if !p[s.0 as usize].contains(&BlockId(i as u32)) {
                    p[s.0 as usize].push(BlockId(i as u32));
                }
            }
        }
        p
    }
    /// Blocks reachable from the entry in reverse post-order.
    pub fn rpo(&self) -> Vec<BlockId> {
        let n = self.blocks.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack = vec![(self.entry(), 0usize)];
        seen[0] = true;
        while let Some((b, i)) = stack.pop() {
            let succ = self.block(b).term.successors();
            if i < succ.len() {
                stack.push((b, i + 1));
                let s = succ[i];
                if !seen[s.0 as usize] {
                    seen[s.0 as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        post
    }
}

impl Op {
    /// Values read by this operation.
    pub fn operands(&self) -> Vec<Value> {
        match self {
            Op::Const(_)
            | Op::Undef
            | Op::ArgWord { .. }
            | Op::WorkItem(..)
            | Op::Csr(_)
            | Op::MetaWord { .. }
            | Op::LaneId
            | Op::Barrier { .. }
            | Op::PrintNotify
            | Op::Trap
            | Op::Fence
            | Op::LocalAddr { .. }
            | Op::ConstAddr { .. }
            | Op::Param(_)
            | Op::PrivateAddr { .. } => vec![],
            Op::Call { args, .. } | Op::Return(args) => args.clone(),
            Op::CallRes(a, _) => vec![*a],
            Op::Bin(_, a, b) | Op::Cmp(_, a, b) => vec![*a, *b],
            Op::Un(_, a) | Op::Conv(_, a) | Op::Load(a) | Op::Copy(a) => vec![*a],
            Op::Select(a, b, c) | Op::Fma(a, b, c) => vec![*a, *b, *c],
            Op::Store { ptr, value } | Op::Atomic { ptr, value, .. } => vec![*ptr, *value],
            Op::CmpXchg { ptr, expected, desired } => vec![*ptr, *expected, *desired],
            Op::CmpXchg64 { ptr, expected, desired } => vec![*ptr, expected[0], expected[1], desired[0], desired[1]],
            Op::CmpXchg64Hi(a) => vec![*a],
            Op::Phi(ins) => ins.iter().map(|(_, v)| *v).collect(),
        }
    }
    /// Rewrites every operand through `f`.
    pub fn map_operands(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Op::Const(_)
            | Op::Undef
            | Op::ArgWord { .. }
            | Op::WorkItem(..)
            | Op::Csr(_)
            | Op::MetaWord { .. }
            | Op::LaneId
            | Op::Barrier { .. }
            | Op::PrintNotify
            | Op::Trap
            | Op::Fence
            | Op::LocalAddr { .. }
            | Op::ConstAddr { .. }
            | Op::Param(_)
            | Op::PrivateAddr { .. } => {}
            Op::Call { args, .. } | Op::Return(args) => args.iter_mut().for_each(|v| *v = f(*v)),
            Op::CallRes(a, _) => *a = f(*a),
            Op::Bin(_, a, b) | Op::Cmp(_, a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Op::Un(_, a) | Op::Conv(_, a) | Op::Load(a) | Op::Copy(a) | Op::CmpXchg64Hi(a) => *a = f(*a),
            Op::Select(a, b, c) | Op::Fma(a, b, c) => {
                *a = f(*a);
                *b = f(*b);
                *c = f(*c);
            }
            Op::Store { ptr, value } | Op::Atomic { ptr, value, .. } => {
                *ptr = f(*ptr);
                *value = f(*value);
            }
            Op::CmpXchg { ptr, expected, desired } => {
                *ptr = f(*ptr);
                *expected = f(*expected);
                *desired = f(*desired);
            }
            Op::CmpXchg64 { ptr, expected, desired } => {
                *ptr = f(*ptr);
                for v in expected.iter_mut().chain(desired.iter_mut()) {
                    *v = f(*v);
                }
            }
            Op::Phi(ins) => ins.iter_mut().for_each(|(_, v)| *v = f(*v)),
        }
    }
    /// True for operations with side effects (never removed by DCE).
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            Op::Store { .. }
                | Op::Atomic { .. }
                | Op::CmpXchg { .. }
                | Op::CmpXchg64 { .. }
                | Op::Barrier { .. }
                | Op::PrintNotify
                | Op::Trap
                | Op::Fence
                | Op::Return(_)
        )
    }
}
