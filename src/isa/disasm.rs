//! Disassembler producing llvm-objdump text (`mnemonic\toperands`, ABI register names, the same
//! pseudo-instruction aliases as the Ventus LLVM the official dumps were made with).
//!
//! Contract: `disassemble(w, pc)` is `Some` exactly when `decode(w)` is, and
//! [`super::asm::assemble_line`] maps the text back to `w` (tested for every dump word and millions
//! of random words). Deliberate differences from the official dumps (listed in `tests/isa.rs` and
//! docs/emulator.md, ISA notes): words that the old objdump of `vecadd.dump` printed as `<unknown>` (`vmv.v.x`) get
//! their real name, and `vmv.s.x` is printed as `vmv.s.x` (that objdump said `vmv.v.x`).
//!
//! Ventus-LLVM printing rules followed here (VentusInstrInfoV.td): scalar FP operands are zfinx
//! x registers (also in `.vf` forms); `vadd12.vi`/`vsub12.vi` immediates are unsigned 12-bit;
//! `join`'s third operand is the raw 12-bit B-type field (offset / 2); `vfneg.v`/`vfabs.v` are
//! parse-only aliases; `vfexp` has no `.v` suffix.

use super::format::Fmt;
use super::regs::{csr_print_name, RM_NAMES, X_ABI};
use super::{decode, Inst, Op};
use std::fmt::Write;

fn x(r: u8) -> &'static str {
    X_ABI.get(r as usize).copied().unwrap_or("x?")
}
fn csr(num: i32) -> String {
    let n = num as u16;
    csr_print_name(n).map(str::to_string).unwrap_or_else(|| n.to_string())
}

/// Formats a `vtype` immediate the way LLVM does (`e32, m1, ta, ma`).
pub fn vtype_text(vtype: u32) -> String {
    if vtype >> 8 != 0 || (vtype >> 3) & 7 > 3 || vtype & 7 == 4 {
        return vtype.to_string();
    }
    let sew = 8u32 << ((vtype >> 3) & 7);
    let lmul = ["m1", "m2", "m4", "m8", "", "mf8", "mf4", "mf2"][(vtype & 7) as usize];
    let ta = if vtype & 0x40 != 0 { "ta" } else { "tu" };
    let ma = if vtype & 0x80 != 0 { "ma" } else { "mu" };
    format!("e{sew}, {lmul}, {ta}, {ma}")
}

/// Disassembles one word at `pc`; `None` for an illegal word.
pub fn disassemble(word: u32, pc: u32) -> Option<String> {
    decode(word).map(|i| format_inst(&i, pc))
}

/// Formats a decoded instruction at `pc` (branch targets are printed as absolute addresses).
pub fn format_inst(i: &Inst, pc: u32) -> String {
    let (m, ops) = text(i, pc);
    if ops.is_empty() {
        m
    } else {
        format!("{m}\t{ops}")
    }
}

fn target(pc: u32, imm: i32) -> String {
    format!("0x{:x}", pc.wrapping_add(imm as u32))
}

fn vm_suffix(i: &Inst) -> &'static str {
    if i.vm {
        ""
    } else {
        ", v0.t"
    }
}

fn rm_suffix(i: &Inst) -> String {
    if i.aux == 7 {
        String::new()
    } else {
        format!(", {}", RM_NAMES[i.aux as usize])
    }
}

fn fence_set(bits: i32) -> String {
    let mut s = String::new();
    for (b, c) in [(8, 'i'), (4, 'o'), (2, 'r'), (1, 'w')] {
        if bits & b != 0 {
            s.push(c);
        }
    }
    if s.is_empty() {
        s.push('0');
    }
    s
}

/// Mnemonic (after aliasing) and operand text.
fn text(i: &Inst, pc: u32) -> (String, String) {
    let mn = i.op.mnemonic();
    let s = |m: &str, o: String| (m.to_string(), o);
    let (rd, rs1, rs2, imm) = (i.rd, i.rs1, i.rs2, i.imm);
    // Pseudo-instruction aliases first (LLVM's printing preferences).
    match i.op {
        Op::Addi if rd == 0 && rs1 == 0 && imm == 0 => return s("nop", String::new()),
        Op::Addi if rs1 == 0 => return s("li", format!("{}, {imm}", x(rd))),
        Op::Addi if imm == 0 => return s("mv", format!("{}, {}", x(rd), x(rs1))),
        Op::Xori if imm == -1 => return s("not", format!("{}, {}", x(rd), x(rs1))),
        Op::Sub if rs1 == 0 => return s("neg", format!("{}, {}", x(rd), x(rs2))),
        Op::Sltiu if imm == 1 => return s("seqz", format!("{}, {}", x(rd), x(rs1))),
        Op::Sltu if rs1 == 0 => return s("snez", format!("{}, {}", x(rd), x(rs2))),
        Op::Slt if rs2 == 0 => return s("sltz", format!("{}, {}", x(rd), x(rs1))),
        Op::Slt if rs1 == 0 => return s("sgtz", format!("{}, {}", x(rd), x(rs2))),
        Op::Beq | Op::Bne | Op::Blt | Op::Bge if rs2 == 0 => {
            let m = match i.op {
                Op::Beq => "beqz",
                Op::Bne => "bnez",
                Op::Blt => "bltz",
                _ => "bgez",
            };
            return s(m, format!("{}, {}", x(rs1), target(pc, imm)));
        }
        Op::Blt if rs1 == 0 => return s("bgtz", format!("{}, {}", x(rs2), target(pc, imm))),
        Op::Bge if rs1 == 0 => return s("blez", format!("{}, {}", x(rs2), target(pc, imm))),
        Op::Jal if rd == 0 => return s("j", target(pc, imm)),
        Op::Jal if rd == 1 => return s("jal", target(pc, imm)),
        Op::Jalr if rd == 0 && rs1 == 1 && imm == 0 => return s("ret", String::new()),
        Op::Jalr if rd == 0 && imm == 0 => return s("jr", x(rs1).to_string()),
        Op::Jalr if rd == 1 && imm == 0 => return s("jalr", x(rs1).to_string()),
        Op::Csrrw if rd == 0 && rs1 == 0 && imm == 0xc00 => return s("unimp", String::new()),
        Op::Csrrs if rs1 == 0 => {
            let alias = match imm as u16 {
                0x001 => Some("frflags"),
                0x002 => Some("frrm"),
                0x003 => Some("frcsr"),
                0xc00 => Some("rdcycle"),
                0xc01 => Some("rdtime"),
                0xc02 => Some("rdinstret"),
                0xc80 => Some("rdcycleh"),
                0xc82 => Some("rdinstreth"),
                _ => None,
            };
            return match alias {
                Some(a) => s(a, x(rd).to_string()),
                None => s("csrr", format!("{}, {}", x(rd), csr(imm))),
            };
        }
        Op::Csrrw | Op::Csrrs | Op::Csrrc if rd == 0 => {
            let m = ["csrw", "csrs", "csrc"][(i.op as usize) - (Op::Csrrw as usize)];
            return s(m, format!("{}, {}", csr(imm), x(rs1)));
        }
        Op::Csrrwi | Op::Csrrsi | Op::Csrrci if rd == 0 => {
            let m = ["csrwi", "csrsi", "csrci"][(i.op as usize) - (Op::Csrrwi as usize)];
            return s(m, format!("{}, {}", csr(imm), rs1));
        }
        Op::FsgnjS | Op::FsgnjnS | Op::FsgnjxS if rs1 == rs2 => {
            let m = ["fmv.s", "fneg.s", "fabs.s"][(i.op as usize) - (Op::FsgnjS as usize)];
            return s(m, format!("{}, {}", x(rd), x(rs1)));
        }
        Op::VxorVi if imm == -1 => return s("vnot.v", format!("v{rd}, v{rs2}{}", vm_suffix(i))),
        Op::VrsubVx if rs1 == 0 => return s("vneg.v", format!("v{rd}, v{rs2}{}", vm_suffix(i))),
        Op::Fence if rd == 0 && rs1 == 0 => {
            let (fm, pred, succ) = (imm >> 8, (imm >> 4) & 15, imm & 15);
            if fm == 8 && pred == 3 && succ == 3 {
                return s("fence.tso", String::new());
            }
            if fm == 0 {
                return s("fence", format!("{}, {}", fence_set(pred), fence_set(succ)));
            }
        }
        Op::FenceI if rd == 0 && rs1 == 0 && imm == 0 => return s("fence.i", String::new()),
        _ => {}
    }
    let mut m = mn.to_string();
    let mut o = String::new();
    match i.op.desc().fmt {
        Fmt::U => write!(o, "{}, {}", x(rd), (imm as u32) >> 12),
        Fmt::J => write!(o, "{}, {}", x(rd), target(pc, imm)),
        Fmt::Jalr | Fmt::Load => write!(o, "{}, {imm}({})", x(rd), x(rs1)),
        Fmt::Store => write!(o, "{}, {imm}({})", x(rs2), x(rs1)),
        Fmt::B => write!(o, "{}, {}, {}", x(rs1), x(rs2), target(pc, imm)),
        Fmt::I | Fmt::Shamt | Fmt::Prefix => write!(o, "{}, {}, {imm}", x(rd), x(rs1)),
        Fmt::R => write!(o, "{}, {}, {}", x(rd), x(rs1), x(rs2)),
        Fmt::Fence => write!(o, "{}, {}, {imm}", x(rd), x(rs1)),
        Fmt::Bare => Ok(()),
        Fmt::Csr => write!(o, "{}, {}, {}", x(rd), csr(imm), x(rs1)),
        Fmt::CsrI => write!(o, "{}, {}, {rs1}", x(rd), csr(imm)),
        Fmt::Lr | Fmt::Amo => {
            m.push_str(["", ".rl", ".aq", ".aqrl"][i.aux as usize & 3]);
            if i.op == Op::LrW {
                write!(o, "{}, ({})", x(rd), x(rs1))
            } else {
                write!(o, "{}, {}, ({})", x(rd), x(rs2), x(rs1))
            }
        }
        Fmt::R4 => write!(o, "{}, {}, {}, {}{}", x(rd), x(rs1), x(rs2), x(i.rs3), rm_suffix(i)),
        Fmt::FRm => write!(o, "{}, {}, {}{}", x(rd), x(rs1), x(rs2), rm_suffix(i)),
        Fmt::F1Rm => write!(o, "{}, {}{}", x(rd), x(rs1), rm_suffix(i)),
        Fmt::F1 => write!(o, "{}, {}", x(rd), x(rs1)),
        Fmt::Vsetvli => write!(o, "{}, {}, {}", x(rd), x(rs1), vtype_text(imm as u32)),
        Fmt::Vsetivli => write!(o, "{}, {rs1}, {}", x(rd), vtype_text(imm as u32)),
        Fmt::VLoad => write!(o, "v{rd}, ({}){}", x(rs1), vm_suffix(i)),
        Fmt::VLoadStride => write!(o, "v{rd}, ({}), {}{}", x(rs1), x(rs2), vm_suffix(i)),
        Fmt::VLoadIndex => write!(o, "v{rd}, ({}), v{rs2}{}", x(rs1), vm_suffix(i)),
        Fmt::VV => write!(o, "v{rd}, v{rs2}, v{rs1}{}", vm_suffix(i)),
        Fmt::VX => write!(o, "v{rd}, v{rs2}, {}{}", x(rs1), vm_suffix(i)),
        Fmt::VF => write!(o, "v{rd}, v{rs2}, {}{}", x(rs1), vm_suffix(i)),
        Fmt::VI | Fmt::VIu => write!(o, "v{rd}, v{rs2}, {imm}{}", vm_suffix(i)),
        Fmt::VMacV => write!(o, "v{rd}, v{rs1}, v{rs2}{}", vm_suffix(i)),
        Fmt::VMacX => write!(o, "v{rd}, {}, v{rs2}{}", x(rs1), vm_suffix(i)),
        Fmt::VMacF => write!(o, "v{rd}, {}, v{rs2}{}", x(rs1), vm_suffix(i)),
        Fmt::VMvV => write!(o, "v{rd}, v{rs1}"),
        Fmt::VMvX => write!(o, "v{rd}, {}", x(rs1)),
        Fmt::VMvF => write!(o, "v{rd}, {}", x(rs1)),
        Fmt::VMvI => write!(o, "v{rd}, {imm}"),
        Fmt::VMerge => match i.op {
            Op::VmergeVvm => write!(o, "v{rd}, v{rs2}, v{rs1}, v0"),
            Op::VmergeVxm => write!(o, "v{rd}, v{rs2}, {}, v0", x(rs1)),
            Op::VmergeVim => write!(o, "v{rd}, v{rs2}, {}, v0", crate::util::sext(rs1 as u32, 5)),
            _ => write!(o, "v{rd}, v{rs2}, {}, v0", x(rs1)),
        },
        Fmt::VMvXS => write!(o, "{}, v{rs2}", x(rd)),
        Fmt::VUnary => write!(o, "v{rd}, v{rs2}{}", vm_suffix(i)),
        Fmt::VId => write!(o, "v{rd}{}", vm_suffix(i)),
        Fmt::VI12 => write!(o, "v{rd}, v{rs1}, {}", imm & 0xfff),
        Fmt::X3 => write!(o, "x{rd}, x{rs1}, x{rs2}"),
        Fmt::Barrier => write!(o, "x{rd}, x{rs2}, {imm}"),
        Fmt::PLoad | Fmt::VLoad12 => write!(o, "v{rd}, {imm}(v{rs1})"),
        Fmt::PStore | Fmt::VStore12 => write!(o, "v{rs2}, {imm}(v{rs1})"),
        Fmt::VBranch => write!(o, "v{rs2}, v{rs1}, {}", target(pc, imm)),
        Fmt::Join => write!(o, "{}, {}, {}", x(rs2), x(rs1), imm >> 1),
    }
    .expect("writing to a String cannot fail");
    (m, o)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn samples_from_official_dumps() {
        let cases: &[(u32, u32, &str)] = &[
            (0x80000000, 0x00004197, "auipc\tgp, 4"),
            (0x8000000c, 0x0d0efed7, "vsetvli\tt4, t4, e32, m1, ta, ma"),
            (0x8000001c, 0x80502373, "csrr\tt1, 2053"),
            (0x80000014, 0x300eaef3, "csrrs\tt4, mstatus, t4"),
            (0x80000088, 0x305f9073, "csrw\tmtvec, t6"),
            (0x80000044, 0x00c50863, "beq\ta0, a2, 0x80000054"),
            (0x80000118, 0x0000a0fb, "vlw12.v\tv1, 0(v1)"),
            (0x80000140, 0x0010607b, "vsw12.v\tv1, 0(v0)"),
            (0x8000015c, 0x0010200b, "regext\tzero, zero, 1"),
            (0x80000144, 0x0000205b, "join\tzero, zero, 0"),
            (0x800000e4, 0x0643305b, "setrpc\tzero, t1, 100"),
            (0x80000138, 0x0400c00b, "barrier\tx0, x0, 1"),
            (0x80000090, 0x0000400b, "endprg\tx0, x0, x0"),
            (0x800001c8, 0x0c20825b, "vbeq\tv2, v1, 0x8000028c"),
            (0x800006a8, 0x0204848b, "vadd12.vi\tv9, v9, 32"),
            (0x80000104, 0xa6112057, "vmadd.vv\tv0, v2, v1"),
            (0x80000208, 0x80000437, "lui\ts0, 524288"),
            (0x80003558, 0x8000a02b, "vsw.v\tv0, 0(v1)"),
            (0x80003e40, 0x010020ab, "vlw.v\tv1, 16(v0)"),
            (0x80000670, 0x2e9fb4d7, "vnot.v\tv9, v9"),
            (0x80000314, 0x5208a157, "vid.v\tv2"),
            (0x80004d64, 0x420022d7, "vmv.x.s\tt0, v0"),
            (0x8000023c, 0xa27312d7, "vfmadd.vv\tv5, v6, v7"),
            (0x80000504, 0x66c036d7, "vmsne.vi\tv13, v12, 0"),
        ];
        for &(pc, w, want) in cases {
            assert_eq!(disassemble(w, pc).as_deref(), Some(want), "word {w:#010x}");
        }
    }

    #[test]
    fn ventus_llvm_printing_rules() {
        let cases: &[(u32, &str)] = &[
            (0xfff1008b, "vadd12.vi\tv1, v2, 4095"),
            (0x0a10600b, "vfexp\tv0, v1"),
            (0x02555057, "vfadd.vf\tv0, v5, a0"),
            (0x262110d7, "vfsgnjn.vv\tv1, v2, v2"),
            (0x5e0550d7, "vfmv.v.f\tv1, a0"),
            (0x0000215b, "join\tzero, zero, 1"),
            (0xc0001073, "unimp"),
        ];
        for &(w, want) in cases {
            assert_eq!(disassemble(w, 0).as_deref(), Some(want), "word {w:#010x}");
        }
    }

    #[test]
    fn illegal_words_have_no_text() {
        for w in [0u32, 0x0000500b, 0x0000700b, 0xffff_ffff] {
            assert_eq!(disassemble(w, 0), None);
        }
    }
}
