//! Text form of the IR (for tests and `VENTUS_DUMP_IR`).

use super::*;
use std::fmt::Write;

fn ty(t: Ty) -> String {
    match t {
        Ty::I1 => "i1".into(),
        Ty::I8 => "i8".into(),
        Ty::I16 => "i16".into(),
        Ty::I32 => "i32".into(),
        Ty::I64 => "i64".into(),
        Ty::F32 => "f32".into(),
        Ty::Ptr(s) => format!("ptr.{}", format!("{s:?}").to_lowercase()),
    }
}

/// Prints a function.
pub fn print(f: &Func) -> String {
    let mut out = format!("kernel {} (local {} B, private {} B)\n", f.name, f.local_bytes, f.private_bytes);
    for (i, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, "b{i}:");
        for inst in &b.insts {
            out.push_str("    ");
            if let Some(r) = inst.result {
                let _ = write!(out, "%{}: {} = ", r.0, ty(f.ty(r)));
            }
            let ops = |vs: &[Value]| vs.iter().map(|v| format!("%{}", v.0)).collect::<Vec<_>>().join(", ");
            let text = match &inst.op {
                Op::Const(c) => format!("const {c:#x}"),
                Op::Phi(ins) => {
                    let parts: Vec<String> = ins.iter().map(|(b, v)| format!("[b{}: %{}]", b.0, v.0)).collect();
                    format!("phi {}", parts.join(" "))
                }
                other => {
                    let name = format!("{other:?}");
                    let head = name.split(['(', ' ', '{']).next().unwrap_or("").to_lowercase();
                    let detail = match other {
                        Op::Bin(o, ..) => format!(".{o:?}").to_lowercase(),
                        Op::Un(o, _) => format!(".{o:?}").to_lowercase(),
                        Op::Cmp(o, ..) => format!(".{o:?}").to_lowercase(),
                        Op::Conv(o, _) => format!(".{o:?}").to_lowercase(),
                        Op::Atomic { op, .. } => format!(".{op:?}").to_lowercase(),
                        Op::WorkItem(w, d) => format!(".{w:?}[{d}]").to_lowercase(),
                        Op::ArgWord { offset }
                        | Op::LocalAddr { offset }
                        | Op::ConstAddr { offset }
                        | Op::PrivateAddr { offset } => format!(" +{offset}"),
                        Op::Barrier { global } => format!(" global={global}"),
                        Op::Csr(c) => format!(" {c:#x}"),
                        Op::MetaWord { offset } => format!(" +{offset}"),
                        _ => String::new(),
                    };
                    format!("{head}{detail} {}", ops(&other.operands()))
                }
            };
            out.push_str(text.trim_end());
            out.push('\n');
        }
        let t = match &b.term {
            Term::Br(t) => format!("br b{}", t.0),
            Term::CondBr { cond, then_, else_ } => format!("condbr %{}, b{}, b{}", cond.0, then_.0, else_.0),
            Term::Ret => "ret".into(),
            Term::Unreachable => "unreachable".into(),
        };
        let _ = writeln!(out, "    {t}");
    }
    out
}
