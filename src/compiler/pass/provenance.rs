//! Pointer provenance: for each value of a kernel, the class of memory
//! ([`MemClass`]) a pointer with that value may address — which kernel argument's memory object
//! it derives from, the static `__local` data, `.rodata` or the print buffer.
//!
//! Contract of [`Provenance::class`]: a class other than [`MemClass::Unknown`] is a promise about
//! *defined* behaviour, as [`crate::abi::mem_class`] states it. A pointer of class
//! [`MemClass::Arg`]`(k)` derives from the pointer argument at byte offset `k` by adding and
//! subtracting integers, and pointer arithmetic stays inside its object, as OpenCL C requires.
//! Anything the analysis cannot follow is `Unknown`: a pointer loaded from memory, an integer
//! (loaded from memory or computed) cast to a pointer, a difference of two pointers, a select or
//! φ of pointers into different objects, masked or multiplied pointers, private addresses. The
//! analysis is conservative: when in doubt it answers `Unknown`.
//!
//! Lattice per value: `Bottom` (not known yet) < { `Int` (no pointer involved), `Class(c)` } <
//! `Unknown`; the join of two different non-bottom states is `Unknown`. Every value starts at
//! `Bottom` (values without a definition at `Unknown`) and the definitions are re-evaluated over
//! all blocks, each result joined into its value's state, until nothing changes (each state can
//! only rise, so this ends after at most two rises per value). `Bottom`, `Int` and `Unknown` all
//! answer `MemClass::Unknown` (an access through an `Int` pointer is through an integer cast to
//! a pointer).
//!
//! Transfer: `Class(c) ± Int` is `Class(c)` (integer `+` either way round), integer conversions
//! and bit casts keep their operand's state, selects, φs and copies join their inputs; integer
//! sources (constants, undef, work-item functions, CSRs, compares, integer loads and atomics)
//! are `Int` — an integer loaded from memory may index an array: `a[idx[i]]` stays `Arg(a)`;
//! other arithmetic is `Int` on integers and `Unknown` on anything else.
//!
//! Pointer arguments: the SPIR-V front end (`spirv::lower`, `lower_args`) loads every pointer
//! kernel parameter (and image, and the hidden program-globals block, which counts as an
//! argument object of its own) with an `ArgWord` typed `Ty::Ptr(space)`; by-value structs,
//! samplers and scalars are integer or float words. `narrow64`/`legalize64` only retype 64-bit
//! integers (pointers are 32-bit `Ptr` throughout) and `generic` only retypes `Ptr(Generic)`
//! values, never an argument. So the argument's IR type tells pointer-ness: `Ptr(Global |
//! Constant | Local)` is `Arg(offset)`; a `Ptr(Private | Generic)` argument word (not made by the
//! front end) is `Unknown`; other types are `Int`.

use super::super::ir::*;
use crate::abi::launch::md;
use crate::abi::mem_class::MemClass;

/// Largest argument offset a [`MemClass::Arg`] can encode (see `MemClass::from_code`).
const MAX_ARG_OFFSET: u32 = 0xffff;

/// The analysis state of one value (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Bottom,
    Int,
    Class(MemClass),
    Unknown,
}

use State::*;

fn join(a: State, b: State) -> State {
    match (a, b) {
        (Bottom, x) | (x, Bottom) => x,
        (x, y) if x == y => x,
        _ => Unknown,
    }
}

/// `Int` if every state is `Int`, `Bottom` if one is `Bottom`, else `Unknown`.
fn strict(states: impl IntoIterator<Item = State>) -> State {
    let mut out = Int;
    for s in states {
        match s {
            Bottom => return Bottom,
            Int => {}
            _ => out = Unknown,
        }
    }
    out
}

/// Per value of `f`: the class of memory a pointer with that value may address.
#[derive(Debug, Clone)]
pub struct Provenance {
    state: Vec<State>,
}

impl Provenance {
    /// Runs the analysis on `f` (any IR: malformed input gives `Unknown`s, never a panic).
    pub fn of(f: &Func) -> Provenance {
        let n = f.types.len();
        let mut defined = vec![false; n];
        for i in f.blocks.iter().flat_map(|b| &b.insts) {
            if let Some(d) = i.result.and_then(|v| defined.get_mut(v.0 as usize)) {
                *d = true;
            }
        }
        let mut state: Vec<State> = defined.iter().map(|&d| if d { Bottom } else { Unknown }).collect();
        loop {
            let mut changed = false;
            // Every block in index order (no CFG walk: successors of malformed IR may dangle).
            for block in &f.blocks {
                for i in &block.insts {
                    let Some(v) = i.result else { continue };
                    let k = v.0 as usize;
                    if k >= n {
                        continue;
                    }
                    let new = join(state[k], transfer(f, &state, v, &i.op));
                    if new != state[k] {
                        state[k] = new;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Provenance { state }
    }

    /// The class of an access through pointer `ptr` ([`MemClass::Unknown`] when not known).
    pub fn class(&self, ptr: Value) -> MemClass {
        match self.state.get(ptr.0 as usize) {
            Some(Class(c)) => *c,
            _ => MemClass::Unknown,
        }
    }
}

/// The state of `v` defined by `op`, given the current states.
fn transfer(f: &Func, state: &[State], v: Value, op: &Op) -> State {
    let get = |x: &Value| state.get(x.0 as usize).copied().unwrap_or(Unknown);
    let ty = f.types.get(v.0 as usize).copied();
    // Values read from memory: a pointer is unknown, an integer is just an integer.
    let loaded = || match ty {
        Some(Ty::Ptr(_)) | None => Unknown,
        Some(_) => Int,
    };
    match op {
        Op::ArgWord { offset } => match ty {
            Some(Ty::Ptr(Space::Global | Space::Constant | Space::Local)) if *offset <= MAX_ARG_OFFSET => {
                Class(MemClass::Arg(*offset))
            }
            Some(Ty::Ptr(_)) | None => Unknown,
            Some(_) => Int,
        },
        Op::LocalAddr { .. } => Class(MemClass::StaticLocal),
        Op::ConstAddr { .. } => Class(MemClass::Rodata),
        // Per-lane private memory: never a shared access.
        Op::PrivateAddr { .. } => Unknown,
        Op::MetaWord { offset } if *offset == md::PRINT_ADDR => Class(MemClass::Print),
        Op::MetaWord { .. } => Int,
        Op::Const(_) | Op::Undef | Op::WorkItem(..) | Op::Csr(_) | Op::LaneId | Op::Cmp(..) => Int,
        Op::Load(_) | Op::Atomic { .. } | Op::CmpXchg { .. } | Op::CmpXchg64 { .. } | Op::CmpXchg64Hi(_) => loaded(),
        Op::Bin(BinOp::Add, a, b) => match (get(a), get(b)) {
            (Bottom, _) | (_, Bottom) => Bottom,
            (Int, Int) => Int,
            (Class(c), Int) | (Int, Class(c)) => Class(c),
            _ => Unknown,
        },
        Op::Bin(BinOp::Sub, a, b) => match (get(a), get(b)) {
            (Bottom, _) | (_, Bottom) => Bottom,
            (Int, Int) => Int,
            (Class(c), Int) => Class(c),
            _ => Unknown,
        },
        Op::Bin(_, a, b) => strict([get(a), get(b)]),
        Op::Un(_, a) => strict([get(a)]),
        Op::Fma(a, b, c) => strict([get(a), get(b), get(c)]),
        Op::Conv(ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc | ConvOp::Bitcast, a) => get(a),
        Op::Conv(
            ConvOp::FToS
            | ConvOp::FToU
            | ConvOp::SToF
            | ConvOp::UToF
            | ConvOp::HalfToFloat
            | ConvOp::FloatToHalf
            | ConvOp::RoundHalf,
            a,
        ) => strict([get(a)]),
        Op::Select(_, a, b) => join(get(a), get(b)),
        Op::Phi(ins) => ins.iter().fold(Bottom, |s, (_, x)| join(s, get(x))),
        Op::Copy(a) => get(a),
        Op::Call { args, .. } => strict(args.iter().map(get)),
        Op::CallRes(a, _) => strict([get(a)]),
        Op::Param(_) => Unknown,
        // No result in valid IR: conservative if one appears anyway.
        Op::Store { .. } | Op::Barrier { .. } | Op::PrintNotify | Op::Trap | Op::Fence | Op::Return(_) => Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Ty = Ty::Ptr(Space::Global);

    /// `f` with a global pointer argument at each of `offsets`.
    fn args(offsets: &[u32]) -> (Func, Vec<Value>) {
        let mut f = Func::new("k");
        let b = f.entry();
        let vs = offsets.iter().map(|&o| f.push(b, G, Op::ArgWord { offset: o })).collect();
        (f, vs)
    }

    /// `4 · get_global_id(0)` in the entry block.
    fn gid4(f: &mut Func) -> Value {
        let b = f.entry();
        let gid = f.push(b, Ty::I32, Op::WorkItem(WorkItem::GlobalId, 0));
        let two = f.push(b, Ty::I32, Op::Const(2));
        f.push(b, Ty::I32, Op::Bin(BinOp::Shl, gid, two))
    }

    #[test]
    fn argument_plus_global_id_index() {
        let (mut f, a) = args(&[0, 8]);
        let b = f.entry();
        let off = gid4(&mut f);
        let p = f.push(b, G, Op::Bin(BinOp::Add, a[1], off));
        let q = f.push(b, G, Op::Bin(BinOp::Add, off, a[0]));
        let x = f.push(b, Ty::I32, Op::Load(p));
        f.push_void(b, Op::Store { ptr: q, value: x });
        f.block_mut(b).term = Term::Ret;
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(p), MemClass::Arg(8));
        assert_eq!(pr.class(q), MemClass::Arg(0));
        assert_eq!(pr.class(off), MemClass::Unknown);
        // A `__local` pointer argument is an argument object too; an integer argument is none.
        let l = f.push(b, Ty::Ptr(Space::Local), Op::ArgWord { offset: 16 });
        let n = f.push(b, Ty::I32, Op::ArgWord { offset: 20 });
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(l), MemClass::Arg(16));
        assert_eq!(pr.class(n), MemClass::Unknown);
    }

    #[test]
    fn index_loaded_from_another_buffer_keeps_the_base() {
        let (mut f, a) = args(&[0, 4]);
        let b = f.entry();
        let off = gid4(&mut f);
        let ip = f.push(b, G, Op::Bin(BinOp::Add, a[0], off));
        let i = f.push(b, Ty::I32, Op::Load(ip));
        let four = f.push(b, Ty::I32, Op::Const(4));
        let o = f.push(b, Ty::I32, Op::Bin(BinOp::Mul, i, four));
        let p = f.push(b, G, Op::Bin(BinOp::Add, a[1], o));
        f.push(b, Ty::F32, Op::Load(p));
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(ip), MemClass::Arg(0));
        assert_eq!(pr.class(p), MemClass::Arg(4));
    }

    #[test]
    fn loop_phi_stays_in_its_argument() {
        let (mut f, a) = args(&[12]);
        let (b0, b1, b2) = (f.entry(), f.new_block(), f.new_block());
        let four = f.push(b0, Ty::I32, Op::Const(4));
        f.block_mut(b0).term = Term::Br(b1);
        let p = f.new_value(G);
        let next = f.new_value(G);
        f.push_def(b1, p, Op::Phi(vec![(b0, a[0]), (b1, next)]));
        f.push_void(b1, Op::Store { ptr: p, value: four });
        f.push_def(b1, next, Op::Bin(BinOp::Add, p, four));
        let c = f.push(b1, Ty::I1, Op::Cmp(CmpOp::LtU, next, four));
        f.block_mut(b1).term = Term::CondBr { cond: c, then_: b1, else_: b2 };
        f.block_mut(b2).term = Term::Ret;
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(p), MemClass::Arg(12));
        assert_eq!(pr.class(next), MemClass::Arg(12));
        // A φ of the argument and a constant (an integer used as a pointer) is unknown.
        f.block_mut(b1).insts[0].op = Op::Phi(vec![(b0, a[0]), (b1, four)]);
        assert_eq!(Provenance::of(&f).class(p), MemClass::Unknown);
    }

    #[test]
    fn select_between_two_arguments_is_unknown() {
        let (mut f, a) = args(&[0, 4]);
        let b = f.entry();
        let off = gid4(&mut f);
        let c = f.push(b, Ty::I1, Op::Cmp(CmpOp::LtU, off, off));
        let two = f.push(b, G, Op::Select(c, a[0], a[1]));
        let a4 = f.push(b, G, Op::Bin(BinOp::Add, a[1], off));
        let one = f.push(b, G, Op::Select(c, a[1], a4));
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(two), MemClass::Unknown);
        assert_eq!(pr.class(one), MemClass::Arg(4));
    }

    #[test]
    fn pointer_loaded_from_memory_is_unknown() {
        let (mut f, a) = args(&[0]);
        let b = f.entry();
        let q = f.push(b, G, Op::Load(a[0]));
        let four = f.push(b, Ty::I32, Op::Const(4));
        let r = f.push(b, G, Op::Bin(BinOp::Add, q, four));
        let x = f.push(b, G, Op::Atomic { op: AtomicOp::Xchg, ptr: a[0], value: q });
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(a[0]), MemClass::Arg(0));
        assert_eq!(pr.class(q), MemClass::Unknown);
        assert_eq!(pr.class(r), MemClass::Unknown);
        assert_eq!(pr.class(x), MemClass::Unknown);
    }

    #[test]
    fn integer_to_pointer_of_a_loaded_integer_is_unknown() {
        let (mut f, a) = args(&[0]);
        let b = f.entry();
        let i = f.push(b, Ty::I32, Op::Load(a[0]));
        let p = f.push(b, G, Op::Conv(ConvOp::Bitcast, i));
        let off = gid4(&mut f);
        let q = f.push(b, G, Op::Bin(BinOp::Add, p, off));
        // A pointer → integer → pointer round trip of an argument keeps its class.
        let ai = f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, a[0]));
        let s = f.push(b, Ty::I32, Op::Bin(BinOp::Add, ai, off));
        let back = f.push(b, G, Op::Conv(ConvOp::Bitcast, s));
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(p), MemClass::Unknown);
        assert_eq!(pr.class(q), MemClass::Unknown);
        assert_eq!(pr.class(back), MemClass::Arg(0));
    }

    #[test]
    fn static_local_rodata_and_private_addresses() {
        let mut f = Func::new("k");
        let b = f.entry();
        let l = f.push(b, Ty::Ptr(Space::Local), Op::LocalAddr { offset: 16 });
        let lid = f.push(b, Ty::I32, Op::WorkItem(WorkItem::LocalId, 0));
        let li = f.push(b, Ty::Ptr(Space::Local), Op::Bin(BinOp::Add, l, lid));
        let r = f.push(b, Ty::Ptr(Space::Constant), Op::ConstAddr { offset: 0 });
        let p = f.push(b, Ty::Ptr(Space::Private), Op::PrivateAddr { offset: 0 });
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(l), MemClass::StaticLocal);
        assert_eq!(pr.class(li), MemClass::StaticLocal);
        assert_eq!(pr.class(r), MemClass::Rodata);
        assert_eq!(pr.class(p), MemClass::Unknown);
    }

    #[test]
    fn pointer_difference_plus_another_argument_is_unknown() {
        let (mut f, a) = args(&[0, 4, 8]);
        let b = f.entry();
        let ia = f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, a[0]));
        let ib = f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, a[1]));
        let d = f.push(b, Ty::I32, Op::Bin(BinOp::Sub, ia, ib));
        let r = f.push(b, G, Op::Bin(BinOp::Add, a[2], d));
        let four = f.push(b, Ty::I32, Op::Const(4));
        let back = f.push(b, G, Op::Bin(BinOp::Sub, a[2], four));
        let neg = f.push(b, G, Op::Bin(BinOp::Sub, four, a[2]));
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(r), MemClass::Unknown);
        assert_eq!(pr.class(back), MemClass::Arg(8));
        assert_eq!(pr.class(neg), MemClass::Unknown);
    }

    #[test]
    fn print_buffer_metadata_word() {
        let mut f = Func::new("k");
        let b = f.entry();
        let base = f.push(b, G, Op::MetaWord { offset: md::PRINT_ADDR });
        let size = f.push(b, Ty::I32, Op::MetaWord { offset: md::PRINT_SIZE });
        let rec = f.push(b, G, Op::Bin(BinOp::Add, base, size));
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(base), MemClass::Print);
        assert_eq!(pr.class(rec), MemClass::Print);
        assert_eq!(pr.class(size), MemClass::Unknown);
    }

    #[test]
    fn malformed_input_is_unknown_without_panicking() {
        let (mut f, a) = args(&[0]);
        let b = f.entry();
        let stray = f.new_value(Ty::I32);
        let p = f.push(b, G, Op::Bin(BinOp::Add, a[0], stray));
        let q = f.push(b, G, Op::Bin(BinOp::Add, a[0], Value(1000)));
        let s = f.new_value(G);
        f.push_def(b, s, Op::Phi(vec![(BlockId(7), s)]));
        f.block_mut(b).term = Term::Br(BlockId(9));
        let pr = Provenance::of(&f);
        assert_eq!(pr.class(p), MemClass::Unknown);
        assert_eq!(pr.class(q), MemClass::Unknown);
        assert_eq!(pr.class(s), MemClass::Unknown);
        assert_eq!(pr.class(Value(5000)), MemClass::Unknown);
    }
}
