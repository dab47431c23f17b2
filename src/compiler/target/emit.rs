//! Emission: allocated machine IR → Ventus assembly text in our assembler's (llvm-objdump) syntax.
//! Registers above 31 get an explicit `regext` prefix with the extension of each operand slot
//! (rd = bits 2:0, rs1 = 5:3, rs2 = 8:6, rs3 = 11:9, as Ventus LLVM's `VentusRegextInsertion`).

use super::mir::*;
use crate::compiler::CompileError;
use crate::isa::disasm::format_inst;
use crate::isa::{Fmt, Inst};
use std::fmt::Write;

/// Symbol at the start of `.rodata` (defined by the linker).
pub use crate::abi::crt0::RODATA_SYMBOL;

fn num(r: Reg) -> Result<u8, CompileError> {
    match r {
        Reg::X(n) | Reg::PV(n) => Ok(n),
        other => Err(CompileError::Internal(format!("unallocated register {other:?}"))),
    }
}

fn xname(n: u8) -> String {
    crate::isa::regs::X_ABI[n as usize & 31].to_string()
}

struct Out {
    text: String,
}

impl Out {
    fn line(&mut self, s: &str) {
        self.text.push_str("    ");
        self.text.push_str(s);
        self.text.push('\n');
    }
    fn regext(&mut self, ext: [u8; 4]) {
        let imm = (ext[0] as u32) | (ext[1] as u32) << 3 | (ext[2] as u32) << 6 | (ext[3] as u32) << 9;
        if imm != 0 {
            self.line(&format!("regext zero, zero, {imm}"));
        }
    }
}

/// Emits one kernel (a global symbol `name`) as assembly.
pub fn emit(m: &MFunc, label_prefix: &str) -> Result<String, CompileError> {
    let mut o = Out { text: String::new() };
    let _ = writeln!(o.text, ".globl {}\n{}:", m.name, m.name);
    let label = |b: u32| format!(".L{label_prefix}_{b}");
    for (bi, blk) in m.blocks.iter().enumerate() {
        let _ = writeln!(o.text, "{}:", label(bi as u32));
        for inst in &blk.insts {
            match &inst.op {
                MOp::Jump => {
                    let t = inst.target.ok_or(CompileError::Internal("jump without target".into()))?;
                    if t as usize != bi + 1 {
                        o.line(&format!("j {}", label(t)));
                    }
                }
                MOp::LaBlock => {
                    let t = inst.target.ok_or(CompileError::Internal("la without target".into()))?;
                    let rd = num(inst.rd.unwrap_or(T1))?;
                    o.line(&format!("la {}, {}", xname(rd), label(t)));
                }
                MOp::Li | MOp::LaRodata => {
                    let rd = num(inst.rd.ok_or(CompileError::Internal("li without rd".into()))?)?;
                    let what = if inst.op == MOp::Li {
                        format!("li {{}}, {}", inst.imm as i32)
                    } else {
                        format!("la {{}}, {RODATA_SYMBOL} + {}", inst.imm)
                    };
                    if rd < 32 {
                        o.line(&what.replace("{}", &xname(rd)));
                    } else {
                        o.line(&what.replace("{}", "t1"));
                        o.regext([rd >> 5, 0, 0, 0]);
                        o.line(&format!("addi {}, t1, 0", xname(rd)));
                    }
                }
                MOp::Branch(op) => {
                    let t = inst.target.ok_or(CompileError::Internal("branch without target".into()))?;
                    let rs1 = num(inst.rs1.unwrap_or(ZERO))?;
                    let rs2 = num(inst.rs2.unwrap_or(ZERO))?;
                    o.regext([0, rs1 >> 5, rs2 >> 5, 0]);
                    let text = if op.desc().fmt == Fmt::VBranch {
                        format!("{} v{}, v{}, {}", op.mnemonic(), rs2 & 31, rs1 & 31, label(t))
                    } else {
                        format!("{} {}, {}, {}", op.mnemonic(), xname(rs1), xname(rs2), label(t))
                    };
                    o.line(&text);
                }
                MOp::I(op) => {
                    let r = |x: Option<Reg>| -> Result<u8, CompileError> { x.map(num).unwrap_or(Ok(0)) };
                    let (rd, rs1, rs2, rs3) = (r(inst.rd)?, r(inst.rs1)?, r(inst.rs2)?, r(inst.rs3)?);
                    let fl = op.desc().fmt.fields();
                    // The csrr*i forms carry an immediate in the rs1 field.
                    let rs1_is_reg = fl.rs1 && op.desc().fmt != Fmt::CsrI;
                    let ext = [
                        if fl.rd { rd >> 5 } else { 0 },
                        if rs1_is_reg { rs1 >> 5 } else { 0 },
                        if fl.rs2 { rs2 >> 5 } else { 0 },
                        if fl.rs3 { rs3 >> 5 } else { 0 },
                    ];
                    o.regext(ext);
                    let aux = if fl.rm { inst.imm as u8 } else { 0 };
                    let imm = if fl.rm { 0 } else { inst.imm as i32 };
                    let i =
                        Inst { op: *op, rd: rd & 31, rs1: rs1 & 31, rs2: rs2 & 31, rs3: rs3 & 31, imm, vm: true, aux };
                    if crate::isa::encode(&i).is_err() {
                        return Err(CompileError::Internal(format!("cannot encode {i:?}")));
                    }
                    // Formats whose text carries an absolute target never appear here.
                    o.line(&format_inst(&i, 0).replace('\t', " "));
                }
            }
        }
    }
    Ok(o.text)
}
