//! Unit tests of the IR text form: hand-written functions, a function with every operation, and
//! the error messages.

use super::parse::parse;
use super::print::{names, print};
use super::*;

fn round_trip(text: &str) -> String {
    let f = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let printed = print(&f);
    let again = parse(&printed).unwrap_or_else(|e| panic!("reparse: {e}\n{printed}"));
    assert_eq!(print(&again), printed);
    assert!(again == f, "parse(print(f)) != f for\n{printed}");
    printed
}

fn error(text: &str) -> String {
    match parse(text) {
        Ok(f) => panic!("parsed, expected an error:\n{}", print(&f)),
        Err(e) => e.to_string(),
    }
}

/// A function using every operation, every type and every enum variant.
fn every_op() -> Func {
    let mut f = Func::new("every_op");
    f.local_bytes = 64;
    f.private_bytes = 16;
    let b0 = f.entry();
    let b1 = f.new_block();
    let b2 = f.new_block();
    let b3 = f.new_block();
    let p = f.push(b0, Ty::Ptr(Space::Global), Op::ArgWord { offset: 0 });
    let x = f.push(b0, Ty::I32, Op::ArgWord { offset: 4 });
    let y = f.push(b0, Ty::F32, Op::Const(0x3fc0_0000));
    let w = f.push(b0, Ty::I64, Op::Const(u64::MAX));
    for o in names::BINOPS {
        f.push(b0, Ty::I32, Op::Bin(*o, x, x));
    }
    for o in names::UNOPS {
        f.push(b0, Ty::F32, Op::Un(*o, y));
    }
    let mut c = x;
    for o in names::CMPOPS {
        c = f.push(b0, Ty::I1, Op::Cmp(*o, x, x));
    }
    for (k, o) in names::CONVOPS.iter().enumerate() {
        f.push(b0, names::TYS[k % names::TYS.len()], Op::Conv(*o, x));
    }
    for (d, w) in names::WORKITEMS.iter().enumerate() {
        f.push(b0, Ty::I32, Op::WorkItem(*w, d as u32 % 4));
    }
    for o in names::ATOMICOPS {
        f.push(b0, Ty::I32, Op::Atomic { op: *o, ptr: p, value: x });
    }
    for t in names::TYS {
        f.push(b0, *t, Op::Undef);
    }
    let s = f.push(b0, Ty::I32, Op::Select(c, x, x));
    f.push(b0, Ty::F32, Op::Fma(y, y, y));
    let l = f.push(b0, Ty::I32, Op::Load(p));
    f.push_void(b0, Op::Store { ptr: p, value: l });
    let old = f.push(b0, Ty::I32, Op::CmpXchg { ptr: p, expected: x, desired: s });
    let lo = f.push(b0, Ty::I32, Op::CmpXchg64 { ptr: p, expected: [x, old], desired: [s, l] });
    f.push(b0, Ty::I32, Op::CmpXchg64Hi(lo));
    f.push(b0, Ty::I32, Op::Csr(0x801));
    f.push(b0, Ty::I32, Op::MetaWord { offset: 24 });
    f.push(b0, Ty::I32, Op::LaneId);
    f.push_void(b0, Op::Barrier { global: true });
    f.push_void(b0, Op::Barrier { global: false });
    f.push_void(b0, Op::PrintNotify);
    f.push_void(b0, Op::Fence);
    f.push(b0, Ty::Ptr(Space::Local), Op::LocalAddr { offset: 8 });
    f.push(b0, Ty::Ptr(Space::Constant), Op::ConstAddr { offset: 12 });
    f.push(b0, Ty::Ptr(Space::Private), Op::PrivateAddr { offset: 4 });
    let a = f.push(b0, Ty::I32, Op::Param(1));
    let sub = f.callee("__vt_f64_add");
    let r = f.push(b0, Ty::I32, Op::Call { sub, args: vec![a, x, w] });
    let r1 = f.push(b0, Ty::I32, Op::CallRes(r, 1));
    let none = f.push(b0, Ty::I32, Op::Call { sub: 7, args: vec![] });
    f.push(b0, Ty::I32, Op::Copy(none));
    f.push_void(b0, Op::Return(vec![r, r1]));
    f.push_void(b0, Op::Return(vec![]));
    f.block_mut(b0).term = Term::CondBr { cond: c, then_: b1, else_: b2 };
    f.push_void(b1, Op::Trap);
    f.block_mut(b1).term = Term::Br(b3);
    f.block_mut(b2).term = Term::Br(b3);
    f.push(b3, Ty::I32, Op::Phi(vec![(b1, x), (b2, s)]));
    f.push(b3, Ty::I32, Op::Phi(vec![]));
    f.block_mut(b3).term = Term::Ret;
    f.new_block();
    // Value slots without a definition, of several types.
    f.new_value(Ty::I64);
    f.new_value(Ty::Ptr(Space::Local));
    f.new_value(Ty::I32);
    f
}

#[test]
fn every_operation_round_trips() {
    let f = every_op();
    let text = print(&f);
    let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print(&back), text);
    assert!(back == f, "parse(print(f)) != f:\n{text}");
    assert!(text.contains("call #7"), "{text}");
    assert!(text.contains("unused %"), "{text}");
}

#[test]
fn hand_written_functions_round_trip() {
    let cases = [
        "func @empty\nb0:\n  ret\n",
        "kernel @k values=3 local=4 private=8\nb0:\n  %0: i32 = argword +0 ; the first word\n  ret\n",
        "func @f\n\n; comment line\nb0:\n    %0: i1 = const 1\n    condbr %0, b1, b2\nb1:\n    br b2\nb2:\n    ret\n",
        "func @\"odd name-1\"\nb0:\n  ret\n",
        "func @f\nb0:\n  %0: i32 = const -1\n  %1: i8 = const -1\n  %2: i64 = const -1\n  %3: i1 = const -1\n  ret\n",
        "func @f\nb0:\n  %0: f32 = const 1.5\n  %1: f32 = const -0.0\n  %2: f32 = const inf\n  %3: f32 = const -1e3\n  ret\n",
        "func @f\nb0:\n  %0: i32 = const 0x_ff\n  %1: i16 = const +7\n  unreachable\n",
        "func @f\ncallees @b @a\nb0:\n  %0: i32 = call @a %1, %1\n  %1: i32 = call @c\n  ret\n",
        "func @f\nunused %4: i64, %5: ptr.private\nb0:\n  ret\n",
        "func @f values=9\nb0:\n  br b1\nb1:\n  %1: i32 = phi [b0: %2], [b1: %1]\n  %2: i32 = phi\n  br b1\n",
        "func @f\nb0:\n  %0: ptr.local = localaddr 16\n  %1: i32 = workitem.globalid 2\n  store %0, %1\n  barrier local\n  ret\n",
        "func @f\nfiles @\"<source>\" @\"/a b/h.h\"\nb0:\n  %0: i32 = const 1 !loc 1:7:3\n  %1: i32 = phi [b0: %0] !loc 0:2:0\n  trap\n  ret !loc 0:9:1\n",
    ];
    for c in cases {
        round_trip(c);
    }
    let f = parse(cases[4]).expect("constants");
    let consts: Vec<Op> = f.blocks[0].insts.iter().map(|i| i.op.clone()).collect();
    assert_eq!(consts, [Op::Const(0xffff_ffff), Op::Const(0xff), Op::Const(u64::MAX), Op::Const(1)]);
    let f = parse(cases[7]).expect("callees");
    assert_eq!(f.callees, ["b", "a", "c"]);
    let f = parse(cases[8]).expect("unused");
    assert_eq!(f.types, [Ty::I32, Ty::I32, Ty::I32, Ty::I32, Ty::I64, Ty::Ptr(Space::Private)]);
    assert_eq!(parse(cases[9]).expect("values").types.len(), 9);
    assert!(round_trip(cases[5]).contains("const 0x3fc00000 ; 1.5"));
    let f = parse(cases[11]).expect("locations");
    assert_eq!(f.files, ["<source>", "/a b/h.h"]);
    let locs: Vec<SrcLoc> = f.blocks[0].insts.iter().map(|i| i.loc).collect();
    let at = |file, line, col| SrcLoc { file, line, col };
    assert_eq!(locs, [at(1, 7, 3), at(0, 2, 0), SrcLoc::NONE]);
    assert_eq!(f.blocks[0].term_loc, at(0, 9, 1));
}

#[test]
fn errors_name_the_position_and_what_was_expected() {
    let cases = [
        ("", "1:1: expected `func`, found end of input"),
        ("func f\nb0:\n ret\n", "1:6: expected the function name (`@name`), found `f`"),
        ("func @f size=3\nb0:\n ret\n", "1:9: expected `values`, `local` or `private`, found `size`"),
        ("func @f\nb1:\n ret\n", "2:1: expected block label `b0` (blocks are numbered in order)"),
        (
            "func @f\nb0:\n %0: i32 = const 1\n",
            "4:1: expected a terminator (`br`, `condbr`, `ret`, `unreachable`) ending b0, found end of input",
        ),
        (
            "func @f\nb0:\n %0: u32 = const 1\n ret\n",
            "3:6: expected a type (i1, i8, i16, i32, i64, f32, ptr.<space>), found `u32`",
        ),
        ("func @f\nb0:\n %0: i32 = bin.plus %1, %1\n ret\n", "3:12: unknown binary operation `plus` in `bin.plus`"),
        ("func @f\nb0:\n %0: i32 = frob %1\n ret\n", "3:12: unknown operation `frob`"),
        ("func @f\nb0:\n %0: i32 = bin.add %1 %1\n ret\n", "3:23: expected `,`, found `%1`"),
        ("func @f\nb0:\n br b3\n", "3:5: reference to undefined block b3"),
        (
            "func @f\nb0:\n %0: i32 = const 1\n %1: i32 = copy %0\n %0: f32 = undef\n ret\n",
            "5:2: value %0 has type f32 here but i32 elsewhere",
        ),
        ("func @f values=1\nb0:\n %3: i32 = undef\n ret\n", "1:9: values=1 but value %3 is used"),
        ("func @f\nb0:\n %0: i8 = const -129\n ret\n", "3:17: constant -129 does not fit in 8 bits"),
        ("func @f\nb0:\n %0: i32 = const 1.5\n ret\n", "3:18: a float constant needs an `f32` result"),
        ("func @f\nb0:\n %0: i32 = argword -4\n ret\n", "3:20: a byte offset (`+N`) out of range: -4"),
        ("func @f\nb0:\n ret %0\n", "3:6: expected end of line, found `%0`"),
        ("func @f\nb0:\n barrier all\n ret\n", "3:10: expected `global` or `local`, found `all`"),
        ("func @f\nb0:\n %0: i32 = phi [b0 %1]\n ret\n", "3:20: expected `:`, found `%1`"),
        ("func @f\nb0:\n %0: i32 = const 1 ?\n ret\n", "3:20: unexpected character `?`"),
        ("func @\"f\nb0:\n ret\n", "1:6: unterminated quoted name"),
        ("func @f\nb0:\n trap !loc 0:1:1\n ret\n", "3:12: file index 0 without an entry in the `files` line"),
        ("func @f\nfiles @a\nb0:\n trap !line 0:1:1\n ret\n", "4:8: expected `loc`, found `line`"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(text, want)| error(text) != *want)
        .map(|(text, want)| format!("input {text:?}\n  want {want}\n  got  {}", error(text)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
