//! Unit tests of the assembler: real rows in disassembler syntax, every pseudo-instruction,
//! labels/directives/comments, and the errors (variant, line number and message).

use super::ctx::inst;
use super::{assemble, assemble_line, AsmError, NOP};
use crate::isa::{decode, encode, Op};

fn one(line: &str) -> u32 {
    match assemble_line(line, 0x8000_0000) {
        Ok(w) if w.len() == 1 => w[0],
        other => panic!("{line}: {other:?}"),
    }
}
fn words(line: &str, pc: u32) -> Vec<u32> {
    assemble_line(line, pc).unwrap_or_else(|e| panic!("{line}: {e}"))
}
fn enc(op: Op, rd: u8, rs1: u8, rs2: u8, imm: i32) -> u32 {
    encode(&inst(op, rd, rs1, rs2, imm)).unwrap()
}
fn err(src: &str) -> AsmError {
    assemble(src, 0x8000_0000).expect_err(src)
}

#[test]
fn real_instructions_in_disassembler_syntax() {
    assert_eq!(one("auipc\tgp, 4"), 0x00004197);
    assert_eq!(one("vsetvli t4, t4, e32, m1, ta, ma"), 0x0d0efed7);
    assert_eq!(one("csrr t1, 2053"), 0x80502373);
    assert_eq!(one("csrr t1, wid"), 0x80502373);
    assert_eq!(one("csrrs t4, mstatus, t4"), 0x300eaef3);
    assert_eq!(one("vlw12.v v1, 0(v1)"), 0x0000a0fb);
    assert_eq!(one("vsw12.v v1, 0(v0)"), 0x0010607b);
    assert_eq!(one("regext zero, zero, 1"), 0x0010200b);
    assert_eq!(one("setrpc zero, t1, 100"), 0x0643305b);
    assert_eq!(one("barrier x0, x0, 1"), 0x0400c00b);
    assert_eq!(one("vmadd.vv v0, v2, v1"), 0xa6112057);
    assert_eq!(one("vsw.v v2, -4(v0)"), 0xfe202e2b);
    assert_eq!(one("vlw.v v1, -8(v0)"), 0x7f8020ab);
    assert_eq!(one("vmsne.vi v13, v12, 0"), 0x66c036d7);
    assert_eq!(one("amoadd.w.aqrl a0, a1, (a2)") >> 25 & 3, 3);
    assert_eq!(one("fadd.s a0, a1, a2, rtz") >> 12 & 7, 1);
    assert_eq!(one("fadd.s ft0, ft1, ft2"), enc(Op::FaddS, 0, 1, 2, 0) | 7 << 12);
    assert_eq!(one("vadd.vv v1, v2, v3, v0.t") & (1 << 25), 0);
    assert_eq!(one("VADD.VV V1, V2, V3"), one("vadd.vv v1, v2, v3"));
    assert_eq!(one("vadd12.vi v1, v2, 4095"), one("vadd12.vi v1, v2, -1"));
    assert_eq!(one("vfexp.v v1, v2"), one("vfexp v1, v2"));
    assert_eq!(one("join zero, zero, 3"), enc(Op::Join, 0, 0, 0, 6));
    assert_eq!(one("vfadd.vf v1, v2, fa0"), one("vfadd.vf v1, v2, a0"));
    assert_eq!(words("vbeq\tv2, v1, 0x8000028c", 0x800001c8), [0x0c20825b]);
}

#[test]
fn every_pseudo_instruction() {
    use Op::*;
    let pc = 0x8000_0000;
    let cases: &[(&str, &[u32])] = &[
        ("nop", &[NOP]),
        ("li a0, 5", &[enc(Addi, 10, 0, 0, 5)]),
        ("li a0, -2048", &[enc(Addi, 10, 0, 0, -2048)]),
        ("li a0, 0x12345000", &[enc(Lui, 10, 0, 0, 0x12345000)]),
        ("li a0, 0x12345678", &[enc(Lui, 10, 0, 0, 0x12345000), enc(Addi, 10, 10, 0, 0x678)]),
        ("li a0, 0xfffff800", &[enc(Addi, 10, 0, 0, -2048)]),
        ("li a0, 0x7ffff800", &[enc(Lui, 10, 0, 0, -0x8000_0000), enc(Addi, 10, 10, 0, -2048)]),
        ("li a0, 0xffffffff", &[enc(Addi, 10, 0, 0, -1)]),
        ("la a0, 0x80001234", &[enc(Auipc, 10, 0, 0, 0x1000), enc(Addi, 10, 10, 0, 0x234)]),
        ("lla a0, 0x7ffffffc", &[enc(Auipc, 10, 0, 0, 0), enc(Addi, 10, 10, 0, -4)]),
        ("call 0x80000800", &[enc(Auipc, 1, 0, 0, 0x1000), enc(Jalr, 1, 1, 0, -2048)]),
        ("tail 0x80000010", &[enc(Auipc, 6, 0, 0, 0), enc(Jalr, 0, 6, 0, 0x10)]),
        ("mv a0, a1", &[enc(Addi, 10, 11, 0, 0)]),
        ("not a0, a1", &[enc(Xori, 10, 11, 0, -1)]),
        ("neg a0, a1", &[enc(Sub, 10, 0, 11, 0)]),
        ("seqz a0, a1", &[enc(Sltiu, 10, 11, 0, 1)]),
        ("snez a0, a1", &[enc(Sltu, 10, 0, 11, 0)]),
        ("sltz a0, a1", &[enc(Slt, 10, 11, 0, 0)]),
        ("sgtz a0, a1", &[enc(Slt, 10, 0, 11, 0)]),
        ("beqz a0, 0x80000040", &[enc(Beq, 0, 10, 0, 64)]),
        ("bnez a0, 0x80000040", &[enc(Bne, 0, 10, 0, 64)]),
        ("bltz a0, 0x80000040", &[enc(Blt, 0, 10, 0, 64)]),
        ("bgez a0, 0x80000040", &[enc(Bge, 0, 10, 0, 64)]),
        ("blez a0, 0x80000040", &[enc(Bge, 0, 0, 10, 64)]),
        ("bgtz a0, 0x80000040", &[enc(Blt, 0, 0, 10, 64)]),
        ("bgt a0, a1, 0x80000040", &[enc(Blt, 0, 11, 10, 64)]),
        ("ble a0, a1, 0x80000040", &[enc(Bge, 0, 11, 10, 64)]),
        ("bgtu a0, a1, 0x80000040", &[enc(Bltu, 0, 11, 10, 64)]),
        ("bleu a0, a1, 0x80000040", &[enc(Bgeu, 0, 11, 10, 64)]),
        ("j 0x7ffffff0", &[enc(Jal, 0, 0, 0, -16)]),
        ("jal 0x80000040", &[enc(Jal, 1, 0, 0, 64)]),
        ("jal t0, 0x80000040", &[enc(Jal, 5, 0, 0, 64)]),
        ("jr a0", &[enc(Jalr, 0, 10, 0, 0)]),
        ("jalr a0", &[enc(Jalr, 1, 10, 0, 0)]),
        ("jalr t0, 8(a0)", &[enc(Jalr, 5, 10, 0, 8)]),
        ("ret", &[enc(Jalr, 0, 1, 0, 0)]),
        ("csrr a0, tid", &[enc(Csrrs, 10, 0, 0, 0x800)]),
        ("csrw rpc, a0", &[enc(Csrrw, 0, 10, 0, 0x80c)]),
        ("csrs mstatus, a0", &[enc(Csrrs, 0, 10, 0, 0x300)]),
        ("csrc 0x300, a0", &[enc(Csrrc, 0, 10, 0, 0x300)]),
        ("csrwi knl, 5", &[enc(Csrrwi, 0, 5, 0, 0x803)]),
        ("csrsi lds, 31", &[enc(Csrrsi, 0, 31, 0, 0x806)]),
        ("csrci pds, 0", &[enc(Csrrci, 0, 0, 0, 0x807)]),
        ("frflags a0", &[enc(Csrrs, 10, 0, 0, 1)]),
        ("rdcycle a0", &[enc(Csrrs, 10, 0, 0, 0xc00)]),
        ("fmv.s a0, a1", &[enc(FsgnjS, 10, 11, 11, 0)]),
        ("fneg.s fa0, fa1", &[enc(FsgnjnS, 10, 11, 11, 0)]),
        ("fabs.s a0, a1", &[enc(FsgnjxS, 10, 11, 11, 0)]),
        ("fence", &[enc(Fence, 0, 0, 0, 0xff)]),
        ("fence rw, w", &[enc(Fence, 0, 0, 0, 0x31)]),
        ("fence.tso", &[enc(Fence, 0, 0, 0, 0x833)]),
        ("fence.i", &[enc(FenceI, 0, 0, 0, 0)]),
        ("unimp", &[0xc0001073]),
        ("vnot.v v1, v2", &[enc(VxorVi, 1, 0, 2, -1) | 1 << 25]),
        ("vneg.v v1, v2, v0.t", &[enc(VrsubVx, 1, 0, 2, 0) & !(1 << 25)]),
        ("vfneg.v v1, v2", &[enc(VfsgnjnVv, 1, 2, 2, 0) | 1 << 25]),
        ("vfabs.v v1, v2", &[enc(VfsgnjxVv, 1, 2, 2, 0) | 1 << 25]),
        ("vmsge.vi v1, v2, 16", &[enc(VmsgtVi, 1, 0, 2, 15) | 1 << 25]),
        ("vmslt.vi v1, v2, -15", &[enc(VmsleVi, 1, 0, 2, -16) | 1 << 25]),
        ("vmsgeu.vi v1, v2, 32", &[enc(VmsgtuVi, 1, 0, 2, 31) | 1 << 25]),
        ("vmsltu.vi v1, v2, 1", &[enc(VmsleuVi, 1, 0, 2, 0) | 1 << 25]),
        ("vmsgeu.vi v1, v2, 0", &[enc(VmseqVv, 1, 2, 2, 0) | 1 << 25]),
        ("vmsltu.vi v1, v2, 0", &[enc(VmsneVv, 1, 2, 2, 0) | 1 << 25]),
        ("vmv.v.v v1, v2", &[enc(VmvVV, 1, 2, 0, 0)]),
        ("vmv.v.x v1, a0", &[0x5e0540d7]),
        ("vmv.v.i v1, -3", &[enc(VmvVI, 1, 0, 0, -3)]),
        ("vbne v1, v2, 0x80000040", &[enc(Vbne, 0, 2, 1, 64)]),
        ("join", &[0x0000205b]),
        ("endprg", &[0x0000400b]),
        ("barrier", &[0x0400400b]),
        ("barriersub", &[0x0600400b]),
    ];
    for &(src, want) in cases {
        assert_eq!(words(src, pc), want, "{src}");
        for &w in want {
            assert!(decode(w).is_some(), "{src}: {w:#010x} must decode");
        }
    }
}

#[test]
fn labels_directives_and_comments() {
    let src = "
        .text
        .globl main
        .equ N, 40          # a constant
        .set M, N + 2
    main:                   // entry
        li   a0, N ; comment
        li   a1, later      # forward reference: always lui+addi
        la   a2, data
        call func
    loop: bnez a0, loop
        vbeq v1, v2, done
        j    done
    func: ret
        .align 4
    data: .word 0x12345678, -1, M, data
    done: join
        lui  a0, %hi(data)
        addi a0, a0, %lo(data)
        lw   a1, %lo(data)(a0)
    .equ later, 0x10
    ";
    let p = assemble(src, 0x8000_0000).unwrap();
    let l = |n: &str| p.labels[n];
    assert_eq!(l("main"), 0x8000_0000);
    assert_eq!(l("loop"), 0x8000_0000 + 4 * 7);
    assert_eq!(l("func"), l("loop") + 12);
    assert_eq!(l("data") % 16, 0);
    assert!(!p.labels.contains_key("N"));
    let at = |a: u32| p.words[((a - p.base) / 4) as usize];
    assert_eq!(at(l("main")), enc(Op::Addi, 10, 0, 0, 40));
    assert_eq!(at(l("main") + 4), enc(Op::Lui, 11, 0, 0, 0));
    assert_eq!(at(l("main") + 8), enc(Op::Addi, 11, 11, 0, 0x10));
    assert_eq!(at(l("loop")), enc(Op::Bne, 0, 10, 0, 0));
    assert_eq!(at(l("loop") + 4), enc(Op::Vbeq, 0, 2, 1, (l("done") - l("loop") - 4) as i32));
    assert_eq!(at(l("func") + 4), NOP, "padding is nop");
    assert_eq!(&p.words[((l("data") - p.base) / 4) as usize..][..4], &[0x12345678, u32::MAX, 42, l("data")]);
    assert_eq!(at(l("done")), 0x205b);
    // la/call resolve to the right absolute address.
    let (auipc, addi) = (at(l("main") + 12), at(l("main") + 16));
    let got = (l("main") + 12).wrapping_add(auipc & 0xffff_f000).wrapping_add((addi as i32 >> 20) as u32);
    assert_eq!(got, l("data"));
    let (hi, lo) = (at(l("done") + 4), at(l("done") + 8));
    assert_eq!((hi & 0xffff_f000).wrapping_add((lo as i32 >> 20) as u32), l("data"));
    assert_eq!(p.words.len() as u32 * 4, l("done") + 16 - p.base);
}

#[test]
fn errors_carry_the_line_number() {
    type Check = fn(&AsmError) -> bool;
    let cases: &[(&str, usize, Check)] = &[
        (
            "nop\nfrobnicate a0",
            2,
            |e| matches!(e, AsmError::UnknownMnemonic { mnemonic, .. } if mnemonic == "frobnicate"),
        ),
        ("nop\n\nadd a0, a1, q7", 3, |e| matches!(e, AsmError::BadRegister { operand, .. } if operand == "q7")),
        ("vadd.vv v1, v2, a0", 1, |e| matches!(e, AsmError::BadRegister { .. })),
        ("add a0, a1, x40", 1, |e| matches!(e, AsmError::RegisterNeedsRegext { operand, .. } if operand == "x40")),
        ("nop\nvadd.vv v1, v33, v2", 2, |e| matches!(e, AsmError::RegisterNeedsRegext { .. })),
        ("addi a0, a0, 2048", 1, |e| matches!(e, AsmError::ImmediateOutOfRange { value: 2048, .. })),
        ("nop\nvadd.vi v1, v2, 16", 2, |e| matches!(e, AsmError::ImmediateOutOfRange { value: 16, .. })),
        ("slli a0, a0, 32", 1, |e| matches!(e, AsmError::ImmediateOutOfRange { .. })),
        ("li a0, 0x100000000", 1, |e| matches!(e, AsmError::ImmediateOutOfRange { .. })),
        ("lui a0, 0x100000", 1, |e| matches!(e, AsmError::ImmediateOutOfRange { .. })),
        ("csrwi tid, 32", 1, |e| matches!(e, AsmError::ImmediateOutOfRange { .. })),
        ("nop\nnop\nj nowhere", 3, |e| matches!(e, AsmError::UndefinedSymbol { name, .. } if name == "nowhere")),
        ("a:\nnop\na: nop", 3, |e| matches!(e, AsmError::DuplicateSymbol { first_line: 1, .. })),
        (".equ a, 1\na: nop", 2, |e| matches!(e, AsmError::DuplicateSymbol { .. })),
        ("beq a0, a1, 0x80002000", 1, |e| matches!(e, AsmError::TargetOutOfRange { .. })),
        ("beq a0, a1, 0x80000001", 1, |e| matches!(e, AsmError::TargetOutOfRange { .. })),
        ("nop\ncsrr a0, bogus", 2, |e| matches!(e, AsmError::BadCsr { .. })),
        ("add a0, a1", 1, |e| matches!(e, AsmError::OperandCount { found: 2, .. })),
        ("addi a0, a0, 1 +", 1, |e| matches!(e, AsmError::BadImmediate { .. })),
        ("addi a0, a0, 0xg", 1, |e| matches!(e, AsmError::BadImmediate { .. })),
        ("lw a0, 4(a1", 1, |e| matches!(e, AsmError::Syntax { .. })),
        ("add a0,, a1", 1, |e| matches!(e, AsmError::Syntax { .. })),
        ("nop\n.frob 1", 2, |e| matches!(e, AsmError::UnknownDirective { .. })),
        (".align 40", 1, |e| matches!(e, AsmError::ImmediateOutOfRange { .. })),
        ("vmerge.vvm v1, v2, v3, v1", 1, |e| matches!(e, AsmError::Syntax { .. })),
        ("fadd.s a0, a1, a2, up", 1, |e| matches!(e, AsmError::Syntax { .. })),
        ("vsetvli a0, a1, e33", 1, |e| matches!(e, AsmError::Syntax { .. })),
    ];
    for (src, line, ok) in cases {
        let e = err(src);
        assert_eq!(e.line(), *line, "{src}: {e}");
        assert!(ok(&e), "{src}: unexpected {e:?}");
        assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
    }
}

#[test]
fn error_messages_are_clear() {
    assert_eq!(
        err("nop\nadd a0, a1, x40").to_string(),
        "line 2: register `x40` is above 31; write an explicit `regext` prefix"
    );
    assert_eq!(err("b: nop\nb: nop").to_string(), "line 2: symbol `b` already defined on line 1");
    assert_eq!(err("add a0, a1").to_string(), "line 1: `add` expects `rd, rs1, rs2`, found 2 operand(s)");
}

#[test]
fn file_and_loc_directives_record_source_rows() {
    use super::SourceRow;
    let src = ".file 3 \"a#b;c.cl\" ; comment\n.loc 3 10 2\nnop\nli t0, 0x12345678\n.loc 3, 11\n.file 4 \"q\\\"\\\\\"\n.loc 4 1 1\nnop\n.loc 0 0\nnop\n";
    let p = assemble(src, 0x100).unwrap();
    assert_eq!(p.words.len(), 5);
    assert_eq!(p.files, vec!["a#b;c.cl".to_string(), "q\"\\".to_string()]);
    let row = |pc, file, line, col| SourceRow { pc, file, line, col };
    assert_eq!(p.lines, vec![row(0x100, 0, 10, 2), row(0x10c, 0, 11, 0), row(0x10c, 1, 1, 1), row(0x110, 0, 0, 0)]);
    assert_eq!(super::file_directive(4, "q\"\\"), ".file 4 \"q\\\"\\\\\"");
    assert!(matches!(err(".loc 1 2\nnop\n"), AsmError::Syntax { line: 1, .. }));
    assert!(matches!(err(".file x \"a\"\n"), AsmError::Syntax { line: 1, .. }));
    assert!(matches!(err(".file 1 \"a\n"), AsmError::Syntax { line: 1, .. }));
    assert!(matches!(err(".file 1 \"a\" b\n"), AsmError::Syntax { line: 1, .. }));
    assert!(matches!(err(".loc 1\n"), AsmError::OperandCount { line: 1, .. }));
}

#[test]
fn mem_directives_record_the_class_of_the_next_word() {
    use crate::isa::mem_class::MemClass;
    let p = assemble("nop\n.mem arg8\nsw a0, 0(a1)\n.mem stack\nli t0, 0x12345678\n.mem print\nnop\n", 0x100).unwrap();
    assert_eq!(p.mem, vec![(0x104, MemClass::Arg(8)), (0x108, MemClass::Stack), (0x110, MemClass::Print)]);
    assert!(matches!(err(".mem heap\nnop\n"), AsmError::Syntax { line: 1, .. }));
    assert!(matches!(err(".mem\n"), AsmError::OperandCount { line: 1, .. }));
    // The listing form prints and assembles the same rows.
    let items = vec![
        Item::Inst(crate::isa::Inst::new(Op::Addi)),
        Item::Mem(MemClass::Arg(8)),
        Item::Inst(crate::isa::Inst::new(Op::Addi)),
    ];
    let listing = Listing { items };
    assert!(listing.to_string().contains(".mem arg8"));
    assert_eq!(listing.assemble(0x100, &|_| None).unwrap().mem, vec![(0x104, MemClass::Arg(8))]);
}

// ---- typed assembly (listing.rs) ----------------------------------------------------------------

use super::{Item, Listing, ListingError};

fn label(name: &str, global: bool) -> Item {
    Item::Label { name: name.into(), global }
}

/// One item of every kind, with values that take each `li` size and both jump reaches.
fn every_item() -> Listing {
    let branch = crate::isa::Inst { rs1: 10, rs2: 11, ..crate::isa::Inst::new(Op::Bne) };
    let vbranch = crate::isa::Inst { rs1: 3, rs2: 4, ..crate::isa::Inst::new(Op::Vbeq) };
    Listing {
        items: vec![
            label("k", true),
            Item::File { number: 1, name: "a \"quoted\" name.cl".into() },
            Item::Loc { file: 1, line: 3, col: 7 },
            Item::Li { rd: 5, value: 12 },
            Item::Li { rd: 5, value: 0x12345 << 12 },
            Item::Li { rd: 6, value: -0x7654_3210 },
            Item::La { rd: 7, symbol: "DATA".into(), addend: 12 },
            Item::Loc { file: 0, line: 0, col: 0 },
            label(".Lk_1", false),
            Item::Branch { inst: branch, target: ".Lk_2".into() },
            Item::Branch { inst: vbranch, target: ".Lk_1".into() },
            Item::Jump { target: ".Lk_2".into(), link: false, far: false },
            Item::Jump { target: "sub".into(), link: true, far: false },
            Item::Jump { target: ".Lk_1".into(), link: false, far: true },
            Item::Jump { target: "sub".into(), link: true, far: true },
            label(".Lk_rpc0", false),
            Item::SetRpc { target: ".Lk_2".into(), here: ".Lk_rpc0".into() },
            label(".Lk_2", false),
            Item::Inst(inst(Op::Regext, 0, 0, 0, 0o1111)),
            Item::Inst(inst(Op::Addi, 1, 2, 0, -5)),
            label("sub", false),
            Item::Inst(inst(Op::Jalr, 0, 1, 0, 0)),
        ],
    }
}

#[test]
fn a_listing_assembles_like_its_text() {
    let l = every_item();
    let data = |n: &str| (n == "DATA").then_some(0x9000_0040);
    let typed = l.assemble(0x8000_0100, &data).unwrap();
    let text = format!("{l}.equ DATA, 0x90000040\n");
    assert_eq!(typed, assemble(&text, 0x8000_0100).unwrap(), "{text}");
    assert_eq!(typed.globals, ["k"]);
    assert_eq!(typed.lines.len(), 2);
    assert_eq!(l.external_symbols(), ["DATA"]);
}

#[test]
fn listing_errors_are_typed() {
    let none = |_: &str| None;
    let with = |items: Vec<Item>| Listing { items };
    let far_away = |n: &str| (n == "far").then_some(0x8020_0000);
    let j = |target: &str| Item::Jump { target: target.into(), link: false, far: false };
    assert_eq!(
        with(vec![j("nowhere")]).assemble(0x8000_0000, &none),
        Err(ListingError::UndefinedSymbol("nowhere".into()))
    );
    assert!(matches!(
        with(vec![j("far")]).assemble(0x8000_0000, &far_away),
        Err(ListingError::TargetOutOfRange { offset: 0x20_0000, .. })
    ));
    assert!(with(vec![Item::Jump { target: "far".into(), link: false, far: true }])
        .assemble(0x8000_0000, &far_away)
        .is_ok());
    assert_eq!(
        with(vec![label("a", false), label("a", true)]).assemble(0, &none),
        Err(ListingError::DuplicateLabel("a".into()))
    );
    assert_eq!(
        with(vec![label("far", false)]).assemble(0, &far_away),
        Err(ListingError::DuplicateLabel("far".into())),
        "a label named like an external symbol"
    );
    assert_eq!(
        with(vec![Item::Loc { file: 2, line: 1, col: 0 }]).assemble(0, &none),
        Err(ListingError::UndefinedFile(2))
    );
    assert!(matches!(
        with(vec![Item::Inst(inst(Op::Addi, 40, 0, 0, 0))]).assemble(0, &none),
        Err(ListingError::Encode { item: 0, .. })
    ));
}
