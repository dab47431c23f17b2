//! Text form of the IR (for tests, filetests and `VENTUS_DUMP_IR`).
//!
//! The printed form is complete: [`super::parse::parse`] reads it back into an identical
//! [`Func`] (`parse(print(f)) == f`), so `print(parse(print(f))) == print(f)`. The grammar is
//! documented in [`super::parse`]; the spellings of the operation enums live in [`names`].

use super::*;
use std::fmt::Write;

/// Spellings of the IR's enums in the text form (shared by the printer and the parser).
pub mod names {
    use super::super::*;

    pub const TYS: &[Ty] = &[
        Ty::I1,
        Ty::I8,
        Ty::I16,
        Ty::I32,
        Ty::I64,
        Ty::F32,
        Ty::Ptr(Space::Global),
        Ty::Ptr(Space::Constant),
        Ty::Ptr(Space::Local),
        Ty::Ptr(Space::Private),
        Ty::Ptr(Space::Generic),
    ];
    pub const BINOPS: &[BinOp] = &[
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::MulHiS,
        BinOp::MulHiU,
        BinOp::DivS,
        BinOp::DivU,
        BinOp::RemS,
        BinOp::RemU,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::ShrL,
        BinOp::ShrA,
        BinOp::MinS,
        BinOp::MinU,
        BinOp::MaxS,
        BinOp::MaxU,
        BinOp::FAdd,
        BinOp::FSub,
        BinOp::FMul,
        BinOp::FDiv,
        BinOp::FMin,
        BinOp::FMax,
        BinOp::FCopySign,
    ];
    pub const UNOPS: &[UnOp] = &[
        UnOp::Not,
        UnOp::Neg,
        UnOp::FNeg,
        UnOp::FAbs,
        UnOp::FSqrt,
        UnOp::FFloor,
        UnOp::FCeil,
        UnOp::FTrunc,
        UnOp::FRint,
        UnOp::Clz,
        UnOp::Popcount,
        UnOp::FExp,
    ];
    pub const CMPOPS: &[CmpOp] = &[
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::LtS,
        CmpOp::LeS,
        CmpOp::GtS,
        CmpOp::GeS,
        CmpOp::LtU,
        CmpOp::LeU,
        CmpOp::GtU,
        CmpOp::GeU,
        CmpOp::FEq,
        CmpOp::FNe,
        CmpOp::FLt,
        CmpOp::FLe,
        CmpOp::FGt,
        CmpOp::FGe,
        CmpOp::FUno,
        CmpOp::FOrd,
    ];
    pub const CONVOPS: &[ConvOp] = &[
        ConvOp::ZExt,
        ConvOp::SExt,
        ConvOp::Trunc,
        ConvOp::FToS,
        ConvOp::FToU,
        ConvOp::SToF,
        ConvOp::UToF,
        ConvOp::Bitcast,
        ConvOp::HalfToFloat,
        ConvOp::FloatToHalf,
        ConvOp::RoundHalf,
    ];
    pub const WORKITEMS: &[WorkItem] = &[
        WorkItem::GlobalId,
        WorkItem::LocalId,
        WorkItem::GroupId,
        WorkItem::GlobalSize,
        WorkItem::LocalSize,
        WorkItem::EnqueuedLocalSize,
        WorkItem::NumGroups,
        WorkItem::GlobalOffset,
        WorkItem::WorkDim,
        WorkItem::LocalLinearId,
        WorkItem::GlobalLinearId,
    ];
    pub const ATOMICOPS: &[AtomicOp] = &[
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Xchg,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::MinS,
        AtomicOp::MaxS,
        AtomicOp::MinU,
        AtomicOp::MaxU,
    ];

    /// The spelling of an enum variant: its lower-cased name (`BinOp::MulHiS` → `mulhis`).
    pub fn of(x: &impl std::fmt::Debug) -> String {
        format!("{x:?}").to_lowercase()
    }

    /// `i32`, `f32`, `ptr.global`…
    pub fn ty(t: Ty) -> String {
        match t {
            Ty::I1 => "i1".into(),
            Ty::I8 => "i8".into(),
            Ty::I16 => "i16".into(),
            Ty::I32 => "i32".into(),
            Ty::I64 => "i64".into(),
            Ty::F32 => "f32".into(),
            Ty::Ptr(s) => format!("ptr.{}", of(&s)),
        }
    }

    /// The variant of `table` spelled `s`.
    pub fn find<T: Copy + std::fmt::Debug>(table: &[T], s: &str) -> Option<T> {
        table.iter().copied().find(|x| of(x) == s)
    }

    /// The type spelled `s`.
    pub fn find_ty(s: &str) -> Option<Ty> {
        TYS.iter().copied().find(|t| ty(*t) == s)
    }
}

/// `@name`, quoted when it is not a plain identifier.
pub fn global(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'));
    if plain {
        format!("@{name}")
    } else {
        format!("@{name:?}")
    }
}

fn vals(vs: &[Value]) -> String {
    vs.iter().map(|v| format!("%{}", v.0)).collect::<Vec<_>>().join(", ")
}

/// The text of one operation (without result).
pub fn op(f: &Func, o: &Op) -> String {
    use names::of;
    let v = |x: &Value| format!("%{}", x.0);
    match o {
        Op::Const(c) => format!("const {c:#x}"),
        Op::Undef => "undef".into(),
        Op::ArgWord { offset } => format!("argword +{offset}"),
        Op::Bin(b, x, y) => format!("bin.{} {}, {}", of(b), v(x), v(y)),
        Op::Un(u, x) => format!("un.{} {}", of(u), v(x)),
        Op::Cmp(c, x, y) => format!("cmp.{} {}, {}", of(c), v(x), v(y)),
        Op::Select(c, x, y) => format!("select {}, {}, {}", v(c), v(x), v(y)),
        Op::Fma(a, b, c) => format!("fma {}, {}, {}", v(a), v(b), v(c)),
        Op::Conv(c, x) => format!("conv.{} {}", of(c), v(x)),
        Op::Load(p) => format!("load {}", v(p)),
        Op::Store { ptr, value } => format!("store {}, {}", v(ptr), v(value)),
        Op::Atomic { op, ptr, value } => format!("atomic.{} {}, {}", of(op), v(ptr), v(value)),
        Op::CmpXchg { ptr, expected, desired } => format!("cmpxchg {}, {}, {}", v(ptr), v(expected), v(desired)),
        Op::CmpXchg64 { .. } => format!("cmpxchg64 {}", vals(&o.operands())),
        Op::CmpXchg64Hi(x) => format!("cmpxchg64hi {}", v(x)),
        Op::WorkItem(w, d) => format!("workitem.{} {d}", of(w)),
        Op::Csr(c) => format!("csr {c:#x}"),
        Op::MetaWord { offset } => format!("metaword +{offset}"),
        Op::LaneId => "laneid".into(),
        Op::Barrier { global: true } => "barrier global".into(),
        Op::Barrier { global: false } => "barrier local".into(),
        Op::PrintNotify => "printnotify".into(),
        Op::Trap => "trap".into(),
        Op::Fence => "fence".into(),
        Op::LocalAddr { offset } => format!("localaddr +{offset}"),
        Op::ConstAddr { offset } => format!("constaddr +{offset}"),
        Op::PrivateAddr { offset } => format!("privateaddr +{offset}"),
        Op::Phi(ins) => {
            let parts: Vec<String> = ins.iter().map(|(b, x)| format!("[b{}: {}]", b.0, v(x))).collect();
            format!("phi {}", parts.join(" ")).trim_end().to_string()
        }
        Op::Copy(x) => format!("copy {}", v(x)),
        Op::Call { sub, args } => {
            let callee = match f.callees.get(*sub as usize) {
                Some(name) => global(name),
                None => format!("#{sub}"),
            };
            format!("call {callee} {}", vals(args)).trim_end().to_string()
        }
        Op::CallRes(c, k) => format!("callres {}, {k}", v(c)),
        Op::Param(k) => format!("param {k}"),
        Op::Return(vs) => format!("return {}", vals(vs)).trim_end().to_string(),
    }
}

/// The text of a terminator.
pub fn term(t: &Term) -> String {
    match t {
        Term::Br(t) => format!("br b{}", t.0),
        Term::CondBr { cond, then_, else_ } => format!("condbr %{}, b{}, b{}", cond.0, then_.0, else_.0),
        Term::Ret => "ret".into(),
        Term::Unreachable => "unreachable".into(),
    }
}

/// ` !loc F:L:C`, or nothing for no location.
fn loc_suffix(l: SrcLoc) -> String {
    if l.is_none() {
        String::new()
    } else {
        format!(" !loc {}:{}:{}", l.file, l.line, l.col)
    }
}

/// Prints a function.
pub fn print(f: &Func) -> String {
    let mut out = format!(
        "func {} values={} local={} private={}\n",
        global(&f.name),
        f.types.len(),
        f.local_bytes,
        f.private_bytes
    );
    if !f.callees.is_empty() {
        let names: Vec<String> = f.callees.iter().map(|c| global(c)).collect();
        let _ = writeln!(out, "callees {}", names.join(" "));
    }
    if !f.files.is_empty() {
        let names: Vec<String> = f.files.iter().map(|c| global(c)).collect();
        let _ = writeln!(out, "files {}", names.join(" "));
    }
    // Value numbers no instruction defines keep a type too (e.g. after 64-bit legalisation or
    // DCE); those that are not `i32` are listed so that the text is complete.
    let mut defined = vec![false; f.types.len()];
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(d) = i.result.and_then(|r| defined.get_mut(r.0 as usize)) {
            *d = true;
        }
    }
    let unused: Vec<String> = (0..f.types.len())
        .filter(|&v| !defined[v] && f.types[v] != Ty::I32)
        .map(|v| format!("%{v}: {}", names::ty(f.types[v])))
        .collect();
    if !unused.is_empty() {
        let _ = writeln!(out, "unused {}", unused.join(", "));
    }
    for (i, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, "b{i}:");
        for inst in &b.insts {
            out.push_str("    ");
            if let Some(r) = inst.result {
                let t = f.types.get(r.0 as usize).map_or("?".to_string(), |t| names::ty(*t));
                let _ = write!(out, "%{}: {t} = ", r.0);
            }
            out.push_str(&op(f, &inst.op));
            out.push_str(&loc_suffix(inst.loc));
            // Float constants also show their value (a comment, ignored by the parser).
            if let (Op::Const(c), Some(Ty::F32)) = (&inst.op, inst.result.and_then(|r| f.types.get(r.0 as usize))) {
                let _ = write!(out, " ; {:?}", f32::from_bits(*c as u32));
            }
            out.push('\n');
        }
        let _ = writeln!(out, "    {}{}", term(&b.term), loc_suffix(b.term_loc));
    }
    out
}
