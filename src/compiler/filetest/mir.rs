//! Text form of machine IR for the `isel` and `regalloc` filetests.
//!
//! ```text
//! mfunc @name level=L calls=BOOL private=N vregs=S/V
//! b0: -> b1 b2                  (machine successors, SIMT edges included)
//!     addi %s0, x10, x0         (rd, rs1, rs2[, rs3]; `_` for an absent register)
//!     sw _, x2, %s3 #8          (`#imm` when the immediate is not 0, always for `li`)
//!     li %s1 #42 | la.rodata %s2 #16 | la.block x6 -> b3
//!     bne %v1, %v2 -> b3 | j -> b3 | call @__vt_f64_add
//! ```
//! Registers: `%sN` / `%vN` virtual scalar / vector, `xN` / `vN` physical.

use crate::compiler::target::mir::{MFunc, MInst, MOp, Reg};
use std::fmt::Write;

fn reg(r: Option<Reg>) -> String {
    match r {
        None => "_".into(),
        Some(Reg::S(n)) => format!("%s{n}"),
        Some(Reg::V(n)) => format!("%v{n}"),
        Some(Reg::X(n)) => format!("x{n}"),
        Some(Reg::PV(n)) => format!("v{n}"),
    }
}

fn inst(i: &MInst) -> String {
    let (name, regs) = match &i.op {
        MOp::I(op) => {
            let mut r = vec![reg(i.rd), reg(i.rs1), reg(i.rs2)];
            if i.rs3.is_some() {
                r.push(reg(i.rs3));
            }
            (op.mnemonic().to_string(), r)
        }
        MOp::Li => ("li".into(), vec![reg(i.rd)]),
        MOp::LaRodata => ("la.rodata".into(), vec![reg(i.rd)]),
        MOp::SetRpc => ("setrpc.block".into(), vec![]),
        MOp::Branch(op) => (op.mnemonic().to_string(), vec![reg(i.rs1), reg(i.rs2)]),
        MOp::Jump => ("j".into(), vec![]),
        MOp::Call(name) => (format!("call @{name}"), vec![]),
    };
    let mut s = name;
    if !regs.is_empty() {
        let _ = write!(s, " {}", regs.join(", "));
    }
    if i.imm != 0 || matches!(i.op, MOp::Li | MOp::LaRodata) {
        let _ = write!(s, " #{}", i.imm);
    }
    if let Some(t) = i.target {
        let _ = write!(s, " -> b{t}");
    }
    s
}

/// Prints a machine function.
pub fn print(m: &MFunc) -> String {
    let mut out = format!(
        "mfunc @{} level={} calls={} private={} vregs={}/{}\n",
        m.name, m.level, m.calls, m.private_bytes, m.next_s, m.next_v
    );
    for (bi, b) in m.blocks.iter().enumerate() {
        let succ: Vec<String> = b.succs.iter().map(|s| format!("b{s}")).collect();
        if succ.is_empty() {
            let _ = writeln!(out, "b{bi}:");
        } else {
            let _ = writeln!(out, "b{bi}: -> {}", succ.join(" "));
        }
        for i in &b.insts {
            let _ = writeln!(out, "    {}", inst(i));
        }
    }
    out
}
