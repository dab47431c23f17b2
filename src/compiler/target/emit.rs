//! Emission: allocated machine IR → typed assembly ([`Listing`]), which the linker assembles
//! directly ([`crate::abi::crt0::link_listing`]); its text form (our assembler's llvm-objdump
//! syntax) is what `VENTUS_DUMP_ASM` and the `asm` filetests show.
//! Registers above 31 get an explicit `regext` prefix with the extension of each operand slot
//! (rd = bits 2:0, rs1 = 5:3, rs2 = 8:6, rs3 = 11:9, as Ventus LLVM's `VentusRegextInsertion`).
//!
//! Conditional branches (scalar `bXX` and divergent `vbXX`) reach only ±4 KiB. A branch whose
//! target may lie farther away — judged with an upper bound of every instruction's size
//! ([`upper_words`]), so the real distance is never larger — is emitted through a trampoline:
//! `bXX a, b, .Lfar; j .Lnear; .Lfar: j target; .Lnear:`. Lanes (or the warp) that take the
//! branch land on `.Lfar` and jump on; for a divergent branch `.Lfar` is simply the else-path pc
//! the SIMT stack records, so reconvergence is unchanged.
//!
//! Source lines: before the first word of an instruction whose source location differs from the
//! previous one, a `.loc FILE LINE COL` directive (`.loc 0 0` for code without a location),
//! preceded by `.file N "NAME"` the first time a file is named; the assembler turns them into
//! the ELF's line table ([`crate::abi::lines`]). Functions without locations emit none (unless
//! an earlier function of the program had some: then one `.loc 0 0` ends its last row).

use super::mir::*;
use crate::abi::mem_class::MemClass;
use crate::compiler::CompileError;
use crate::isa::asm::{Item, Listing};
use crate::isa::{Fmt, Inst};

/// Symbol at the start of `.rodata` (defined by the linker).
pub use crate::abi::crt0::RODATA_SYMBOL;

fn num(r: Reg) -> Result<u8, CompileError> {
    match r {
        Reg::X(n) | Reg::PV(n) => Ok(n),
        other => Err(CompileError::Internal(format!("unallocated register {other:?}"))),
    }
}

/// A copy that register allocation made into a no-op (`mv a, a`, `vadd.vx v, v, zero`):
/// not emitted.
fn is_identity(inst: &MInst) -> bool {
    let n = |r: Option<Reg>| r.map(num).and_then(Result::ok).unwrap_or(0);
    match inst.op {
        MOp::I(crate::isa::Op::Addi) => n(inst.rd) == n(inst.rs1) && inst.imm == 0,
        MOp::I(crate::isa::Op::VaddVx) => n(inst.rd) == n(inst.rs2) && n(inst.rs1) == 0,
        _ => false,
    }
}

/// The instruction reads its scalar FP operand (rs1) without `regext` (the `.vf` forms).
fn unextended_rs1(op: crate::isa::Op) -> bool {
    matches!(op.desc().roles.rs1, crate::isa::roles::Role::ReadUnextended(_))
}

/// Jump threading: for each block, where control really goes when a jump or branch targets
/// it — past blocks that do nothing but jump (after dropping identity copies: split edges
/// whose φ copies coalesced away). A reconvergence point is never forwarded (its `join` is an
/// instruction, and `SetRpc` targets are not threaded).
fn forwards(m: &MFunc) -> Vec<u32> {
    let only_jump = |b: usize| -> Option<u32> {
        let mut it = m.blocks[b].insts.iter().filter(|i| !is_identity(i));
        match (it.next(), it.next()) {
            (Some(MInst { op: MOp::Jump, target: Some(t), .. }), None) => Some(*t),
            _ => None,
        }
    };
    (0..m.blocks.len())
        .map(|b| {
            let mut at = b;
            // A chain of jump-only blocks is at most as long as the function (a cycle of them
            // is an empty infinite loop: left as it is).
            for _ in 0..m.blocks.len() {
                match only_jump(at) {
                    Some(t) if (t as usize) < m.blocks.len() && t as usize != at => at = t as usize,
                    _ => break,
                }
            }
            at as u32
        })
        .collect()
}

/// The listing being built.
struct Out {
    items: Vec<Item>,
}

/// The `.file`/`.loc` state of one program's assembly (shared by its functions).
#[derive(Debug, Default)]
pub struct LineState {
    /// Files named so far; `.file` number = index + 1.
    files: Vec<String>,
    /// The location of the last `.loc` (file number, line, column; line 0 = none).
    last: (u32, u32, u32),
}

impl LineState {
    /// Emits a `.loc` for `inst` of `m` if its location differs from the last one.
    fn mark(&mut self, o: &mut Out, m: &MFunc, inst: &MInst) {
        let l = inst.loc;
        let want = match m.files.get(l.file as usize) {
            Some(name) if !l.is_none() => {
                let n = match self.files.iter().position(|f| f == name) {
                    Some(k) => k as u32 + 1,
                    None => {
                        self.files.push(name.clone());
                        let number = self.files.len() as u32;
                        o.items.push(Item::File { number, name: name.clone() });
                        number
                    }
                };
                (n, l.line, l.col)
            }
            _ => (0, 0, 0),
        };
        if want != self.last {
            self.last = want;
            o.items.push(Item::Loc { file: want.0, line: want.1, col: want.2 });
        }
    }
}

impl Out {
    fn label(&mut self, name: String) {
        self.items.push(Item::Label { name, global: false });
    }
    fn inst(&mut self, i: Inst) {
        self.items.push(Item::Inst(i));
    }
    fn regext(&mut self, [rd, rs1, rs2, rs3]: [u8; 4]) {
        let ext = crate::isa::prefix::RegExt { rd, rs1, rs2, rs3 };
        if !ext.is_empty() {
            self.inst(Inst { imm: ext.encode() as i32, ..Inst::new(crate::isa::Op::Regext) });
        }
    }
    fn jump(&mut self, target: String, link: bool, far: bool) {
        self.items.push(Item::Jump { target, link, far });
    }
}

/// The most words `inst` can take once emitted (prefixes and pseudo-instruction expansions
/// included; a branch counted in its long, trampoline form).
fn upper_words(inst: &MInst) -> u32 {
    let wide = |r: Option<Reg>| matches!(r, Some(Reg::X(n) | Reg::PV(n)) if n >= 32);
    match inst.op {
        // `tail`/`call` (auipc + jalr) in far mode.
        MOp::Jump | MOp::Call(_) => 2,
        MOp::SetRpc => 2,
        MOp::Li | MOp::LaRodata => 2 + if wide(inst.rd) { 2 } else { 0 },
        MOp::Branch(_) => 4,
        // A `.vf` operand above x31 goes through t1 first (regext + addi).
        MOp::I(op) if unextended_rs1(op) => 4,
        MOp::I(_) => 2,
    }
}

/// Largest branch distance (bytes) emitted in the short form; a B-type offset reaches
/// -4096..=4094 ([`ImmKind::reach`](crate::isa::ImmKind::reach)), less a margin.
const SHORT_BRANCH_REACH: i64 = match crate::isa::ImmKind::B13.reach() {
    Some(r) => r - 96,
    None => 0,
};

/// An upper bound of the bytes [`emit`] produces for `m`.
pub fn upper_bytes(m: &MFunc) -> u64 {
    m.blocks.iter().flat_map(|b| &b.insts).map(|i| 4 * u64::from(upper_words(i))).sum()
}

/// Programs whose code may exceed this many bytes are emitted in far mode (see [`emit_far`]):
/// `jal` reaches ±1 MiB; the margin covers crt0 and alignment.
pub const FAR_CODE_BYTES: u64 = match crate::isa::ImmKind::J21.reach() {
    Some(r) => r as u64 - (64 << 10),
    None => 0,
};

/// Emits one kernel (a global symbol `name`) or subroutine (the local label
/// [`super::call::label`] of its name) as typed assembly.
pub fn emit(m: &MFunc, label_prefix: &str) -> Result<Listing, CompileError> {
    emit_far(m, label_prefix, false)
}

/// [`emit`]; with `far`, jumps and calls reach any distance: `tail label` (`auipc t1` +
/// `jalr zero, t1`; t1 is the reserved `setrpc` scratch, dead at a jump) and `call label`
/// (`auipc ra` + `jalr ra`), for programs of more than [`FAR_CODE_BYTES`] of code.
pub fn emit_far(m: &MFunc, label_prefix: &str, far: bool) -> Result<Listing, CompileError> {
    let mut out = Listing::default();
    emit_with_lines(m, label_prefix, far, &mut LineState::default(), &mut out)?;
    Ok(out)
}

/// [`emit_far`] appending to `out`, with source-line directives numbered by `lines` (one state
/// per program).
pub fn emit_with_lines(
    m: &MFunc,
    label_prefix: &str,
    far: bool,
    lines: &mut LineState,
    out: &mut Listing,
) -> Result<(), CompileError> {
    let mut o = Out { items: std::mem::take(&mut out.items) };
    let result = emit_into(m, label_prefix, far, lines, &mut o);
    out.items = o.items;
    result
}

fn emit_into(m: &MFunc, label_prefix: &str, far: bool, lines: &mut LineState, o: &mut Out) -> Result<(), CompileError> {
    if m.level == 0 {
        o.items.push(Item::Label { name: m.name.clone(), global: true });
    } else {
        o.label(super::call::label(&m.name));
    }
    let label = |b: u32| format!(".L{label_prefix}_{b}");
    // Upper bounds of every block's start, in bytes from the function's start.
    let mut block_start = Vec::with_capacity(m.blocks.len());
    let mut at = 0i64;
    for blk in &m.blocks {
        block_start.push(at);
        at += 4 * blk.insts.iter().map(|i| i64::from(upper_words(i))).sum::<i64>();
    }
    let mut far_branches = 0u32;
    let fwd = forwards(m);
    // `SetRpc` sites (each gets a label its pc-relative offset is measured from).
    let mut rpcs = 0u32;
    // Without any location here or before, no directives at all.
    let located = lines.last.1 != 0 || m.blocks.iter().flat_map(|b| &b.insts).any(|i| !i.loc.is_none());
    let mut mark = |o: &mut Out, inst: &MInst| {
        if located {
            lines.mark(o, m, inst);
        }
    };
    for (bi, blk) in m.blocks.iter().enumerate() {
        o.label(label(bi as u32));
        let mut here = block_start[bi];
        for inst in &blk.insts {
            here += 4 * i64::from(upper_words(inst));
            match &inst.op {
                MOp::Jump => {
                    let t = inst.target.ok_or(CompileError::Internal("jump without target".into()))?;
                    let t = fwd.get(t as usize).copied().unwrap_or(t);
                    if t as usize != bi + 1 {
                        mark(o, inst);
                        o.jump(label(t), false, far);
                    }
                }
                MOp::Call(name) => {
                    mark(o, inst);
                    o.jump(super::call::label(name), true, far);
                }
                MOp::SetRpc => {
                    mark(o, inst);
                    let t = inst.target.ok_or(CompileError::Internal("setrpc without target".into()))?;
                    let here = format!(".L{label_prefix}_rpc{rpcs}");
                    rpcs += 1;
                    o.label(here.clone());
                    o.items.push(Item::SetRpc { target: label(t), here });
                }
                MOp::Li | MOp::LaRodata => {
                    mark(o, inst);
                    let rd = num(inst.rd.ok_or(CompileError::Internal("li without rd".into()))?)?;
                    let to = if rd < 32 { rd } else { num(T1)? };
                    o.items.push(if inst.op == MOp::Li {
                        Item::Li { rd: to, value: inst.imm as i32 }
                    } else {
                        Item::La { rd: to, symbol: RODATA_SYMBOL.to_string(), addend: inst.imm as i32 }
                    });
                    if rd >= 32 {
                        o.regext([rd >> 5, 0, 0, 0]);
                        o.inst(Inst { rd: rd & 31, rs1: to, ..Inst::new(crate::isa::Op::Addi) });
                    }
                }
                MOp::Branch(op) => {
                    mark(o, inst);
                    let t = inst.target.ok_or(CompileError::Internal("branch without target".into()))?;
                    let t = fwd.get(t as usize).copied().unwrap_or(t);
                    let rs1 = num(inst.rs1.unwrap_or(ZERO))?;
                    let rs2 = num(inst.rs2.unwrap_or(ZERO))?;
                    o.regext([0, rs1 >> 5, rs2 >> 5, 0]);
                    let to = block_start.get(t as usize).copied().unwrap_or(0);
                    // `here` is past this branch's upper-bound end; measure from its start.
                    let near = (to - (here - 16)).abs() <= SHORT_BRANCH_REACH;
                    let dest = if near { label(t) } else { format!(".L{label_prefix}_far{far_branches}") };
                    let branch = Inst { rs1: rs1 & 31, rs2: rs2 & 31, ..Inst::new(*op) };
                    o.items.push(Item::Branch { inst: branch, target: dest.clone() });
                    if !near {
                        let skip = format!(".L{label_prefix}_near{far_branches}");
                        o.jump(skip.clone(), false, false);
                        o.label(dest);
                        o.jump(label(t), false, far);
                        o.label(skip);
                        far_branches += 1;
                    }
                }
                MOp::I(op) => {
                    let r = |x: Option<Reg>| -> Result<u8, CompileError> { x.map(num).unwrap_or(Ok(0)) };
                    let (rd, mut rs1, rs2, rs3) = (r(inst.rd)?, r(inst.rs1)?, r(inst.rs2)?, r(inst.rs3)?);
                    if is_identity(inst) {
                        continue;
                    }
                    mark(o, inst);
                    if rs1 >= 32 && unextended_rs1(*op) {
                        // regext does not reach this operand: copy it to t1 (the reserved
                        // scratch: it holds nothing outside a `SetRpc` and its branch).
                        o.regext([0, rs1 >> 5, 0, 0]);
                        o.inst(Inst { rd: num(T1)?, rs1: rs1 & 31, ..Inst::new(crate::isa::Op::Addi) });
                        rs1 = num(T1)?;
                    }
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
                    if inst.mem != MemClass::Unknown {
                        o.items.push(Item::Mem(inst.mem));
                    }
                    o.inst(i);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Op as I;

    /// A jump over 1.2 MiB of code: out of `j`'s reach, so the link fails in the normal mode and
    /// succeeds in far mode (`tail`), which the compiler picks for programs that large.
    #[test]
    fn far_mode_reaches_past_one_mebibyte() {
        let filler: Vec<MInst> = (0..300_000).map(|_| MInst::rr(I::Addi, Reg::X(5), Reg::X(5), Reg::X(0), 1)).collect();
        let jump = MInst { target: Some(2), ..MInst::new(MOp::Jump) };
        let ret = MInst::rr(I::Jalr, Reg::X(0), Reg::X(1), Reg::X(0), 0);
        let m = MFunc {
            name: "k".into(),
            blocks: vec![
                MBlock { insts: vec![jump], succs: vec![2] },
                MBlock { insts: filler, succs: vec![2] },
                MBlock { insts: vec![ret], succs: vec![] },
            ],
            ..MFunc::default()
        };
        assert!(upper_bytes(&m) > FAR_CODE_BYTES);
        let near = emit(&m, "t").unwrap();
        let link = |l: &Listing| crate::abi::crt0::link_listing(l, &[], &[]);
        assert!(
            matches!(
                link(&near),
                Err(crate::abi::crt0::LinkError::Listing(crate::isa::asm::ListingError::TargetOutOfRange { .. }))
            ),
            "a 1.2 MiB jump cannot link as `j`"
        );
        let far = emit_far(&m, "t", true).unwrap();
        let text = far.to_string();
        assert!(text.contains("tail .Lt_2"), "{}", &text[..200]);
        let image = link(&far).expect("far mode links");
        assert_eq!(Ok(image), crate::abi::crt0::link_image_with_rodata(&text, &[], &[]), "typed and text links agree");
    }
}
