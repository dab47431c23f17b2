//! Our ELF writer, crt0 and assembly linker: round trips through our ELF reader, the layout of the
//! official `vecadd.riscv`, and assembled kernels (a vecadd here, the `cl-samples` kernels) run on
//! the emulator — through the library and through `ventus-run asm` + `ventus-run elf`.

use goblin::elf::Elf;
use std::path::{Path, PathBuf};
use std::process::Command;
use ventus_icd::abi::crt0::{link, link_image, parse_kernel_decls, LinkError};
use ventus_icd::abi::elf::{ResourceUsage, VentusElf};
use ventus_icd::abi::elf_writer::{write_elf, ElfImage, ElfSymbol, ElfWriteError, Layout, SymbolKind, RISCV_ARCH};
use ventus_icd::abi::kernel_info::{self, AddressSpace};
use ventus_icd::abi::launch::{pack_args, KernelArg, NdRange};
use ventus_icd::device::{self, Executable, Launch, LaunchOptions, Memory, Placement, Printer};
use ventus_icd::isa::asm::assemble;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn official_vecadd() -> Vec<u8> {
    let p = repo().join("../shared/testdata/ventus-official/vsw-vecadd-elf/vecadd.riscv");
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// vecadd in our assembly: c[i] = a[i] + b[i] for global ids i < n (1D, offset honoured).
const VECADD: &str = "
# c[i] = a[i] + b[i] for i < n
        .globl  vecadd
vecadd:
        lw      t0, 0(a0)               # a
        lw      a1, 4(a0)               # b
        lw      a2, 8(a0)               # c
        lw      a3, 12(a0)              # n
        csrr    t2, knl
        lw      t3, 24(t2)              # local size x
        lw      t4, 36(t2)              # global offset x
        csrr    t5, gidx
        mul     t5, t5, t3
        add     t5, t5, t4
        csrr    t6, tid
        vid.v   v1
        vadd.vx v1, v1, t6              # local id
        vadd.vx v2, v1, t5              # global id
        vmv.v.x v3, a3
        la      t1, .Lend
        setrpc  zero, t1, 0
        vbgeu   v2, v3, .Lend
        vsll.vi v4, v2, 2
        vadd.vx v5, v4, t0
        vlw12.v v5, 0(v5)
        vadd.vx v6, v4, a1
        vlw12.v v6, 0(v6)
        vfadd.vv v5, v5, v6
        vadd.vx v6, v4, a2
        vsw12.v v5, 0(v6)
.Lend:
        join    zero, zero, 0
        ret
";

const VECADD_DECL: &str = "kernel void vecadd(global const float* a, global const float* b, global float* c, uint n)";

fn sample_image() -> ElfImage {
    let kernels = parse_kernel_decls("kernel void k(global int* p, float x) reqd_work_group_size(8,1,1)").unwrap();
    ElfImage {
        text: vec![0x0000_0013, 0x0000_8067, 0x0000_0013, 0x0000_8067],
        rodata: vec![1, 2, 3, 4, 5],
        data: vec![9; 12],
        bss_size: 10,
        symbols: vec![
            ElfSymbol::label(".Llocal", 0x8000_0004),
            ElfSymbol::global("_start", 0x8000_0000, 8, SymbolKind::Func),
            ElfSymbol::global("k", 0x8000_0008, 8, SymbolKind::Func),
            ElfSymbol::global("table", 0x8000_2000, 5, SymbolKind::Object),
            ElfSymbol::global("absolute", 0x1234, 0, SymbolKind::NoType),
        ],
        kernels,
        resources: vec![(
            "k".into(),
            ResourceUsage {
                vgprs: Some(12),
                sgprs: Some(20),
                lds_bytes: Some(0),
                pds_bytes: None,
                lds_stack: Some(1024),
                pds_stack: None,
            },
        )],
        notes: vec![(".ventus.note".into(), vec![1, 2, 3, 4])],
        lines: None,
    }
}

#[test]
fn written_elf_reads_back() {
    let img = sample_image();
    let bytes = write_elf(&img).unwrap();
    let elf = VentusElf::parse(&bytes).unwrap();
    let layout = Layout::of(&img).unwrap();
    assert_eq!(elf.entry, 0x8000_0000);
    let segs: Vec<_> =
        elf.segments.iter().map(|s| (s.vaddr, s.data.len(), s.mem_size, s.executable, s.writable)).collect();
    assert_eq!(
        segs,
        vec![
            (0x8000_0000, 16, 16, true, false),
            (0x8000_1000, 0x48, 0x48, false, true),
            (0x8000_2000, 5, 5, false, false),
            (0x8000_3000, 12, 24, false, true), // 12 data + 10 bss rounded to 4 → _end = +24
        ]
    );
    assert_eq!(elf.segments[0].data, [0x13, 0, 0, 0, 0x67, 0x80, 0, 0, 0x13, 0, 0, 0, 0x67, 0x80, 0, 0]);
    assert_eq!(elf.segments[2].data, img.rodata);
    assert_eq!(elf.segments[3].data, img.data);
    assert_eq!(
        (layout.tohost, layout.rodata, layout.data, layout.data_end, layout.bss, layout.end),
        (0x8000_1000, 0x8000_2000, 0x8000_3000, 0x8000_300c, 0x8000_300c, 0x8000_3018)
    );
    // Symbols: caller's plus the layout symbols.
    assert_eq!(elf.kernel_entry("k"), Some(0x8000_0008));
    assert_eq!(elf.kernel_names(), vec!["k".to_string()]);
    let s = |n: &str| elf.symbol(n).unwrap_or_else(|| panic!("no symbol {n}")).clone();
    assert!(!s(".Llocal").is_global && s(".Llocal").in_text);
    assert_eq!((s("_start").size, s("_start").is_func), (8, true));
    assert_eq!((s("table").addr, s("table").is_func, s("table").in_text), (0x8000_2000, false, false));
    assert_eq!(s("absolute").addr, 0x1234);
    assert_eq!(s("tohost").addr, 0x8000_1000);
    assert_eq!(s("fromhost").addr, 0x8000_1040);
    assert_eq!(s("__global_pointer$").addr, 0x8000_3800);
    assert_eq!(s("_edata").addr, 0x8000_300c);
    assert_eq!(s("_end").addr, 0x8000_3018);
    // Non-allocated sections.
    let section = |n: &str| elf.sections.iter().find(|(name, _, _)| name == n).map(|(_, _, d)| d.clone());
    assert_eq!(kernel_info::decode(&section(kernel_info::SECTION).unwrap()).unwrap(), img.kernels);
    assert_eq!(elf.resource_usage("k"), Some(&img.resources[0].1));
    assert_eq!(section(".bss").unwrap().len(), 0);
    assert_eq!(section(".ventus.note").unwrap(), vec![1, 2, 3, 4]);
    // Locals come first in .symtab (sh_info = first global).
    let g = Elf::parse(&bytes).unwrap();
    let symtab = g.section_headers.iter().find(|s| s.sh_type == goblin::elf::section_header::SHT_SYMTAB).unwrap();
    assert_eq!(symtab.sh_info, 2);
    assert!(g.syms.iter().skip(2).all(|s| s.st_bind() == goblin::elf::sym::STB_GLOBAL));
}

#[test]
fn writer_rejects_bad_images() {
    let mut img = sample_image();
    img.text.clear();
    assert_eq!(write_elf(&img), Err(ElfWriteError::EmptyText));
    let mut img = sample_image();
    img.symbols.push(ElfSymbol::global("_end", 0, 0, SymbolKind::NoType));
    assert_eq!(write_elf(&img), Err(ElfWriteError::ReservedSymbol("_end".into())));
    let mut img = sample_image();
    img.symbols.push(ElfSymbol::label("a\0b", 0));
    assert!(matches!(write_elf(&img), Err(ElfWriteError::BadName(_))));
    let mut img = sample_image();
    img.bss_size = 0x1000_0000;
    assert!(matches!(write_elf(&img), Err(ElfWriteError::TooLarge { .. })));
    // Empty optional parts: no rodata/data/bss sections or segments, no kernel info.
    let img = ElfImage { text: vec![0x13], ..ElfImage::default() };
    let elf = VentusElf::parse(&write_elf(&img).unwrap()).unwrap();
    assert_eq!(elf.segments.len(), 2);
    let names: Vec<&str> = elf.sections.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, [".text", ".tohost", ".riscv.attributes", ".symtab", ".shstrtab", ".strtab"]);
}

#[test]
fn layout_reproduces_the_official_addresses() {
    // vecadd.riscv: text 0xdd08 bytes, .rodata+.eh_frame 0x26c8, .data+.sdata 0x625c, bss 0x28.
    let l = Layout::new(0xdd08, 0x26c8, 0x625c, 0x28).unwrap();
    assert_eq!((l.tohost, l.rodata, l.data), (0x8000_e000, 0x8000_f000, 0x8001_2000));
    assert_eq!((l.data_end, l.end), (0x8001_825c, 0x8001_8284));
}

/// Program-header and section layout equal the official ELF's in kind, flags and alignment.
#[test]
fn same_shape_as_the_official_elf() {
    let official_bytes = official_vecadd();
    let official = Elf::parse(&official_bytes).unwrap();
    let ours_bytes = link(VECADD, &parse_kernel_decls(VECADD_DECL).unwrap()).unwrap();
    let ours = Elf::parse(&ours_bytes).unwrap();
    let hdr = |e: &Elf| {
        (e.header.e_ident[4], e.header.e_ident[5], e.header.e_type, e.header.e_machine, e.header.e_flags, e.entry)
    };
    assert_eq!(hdr(&ours), hdr(&official));
    // Official: LOAD text, LOAD tohost, LOAD rodata, LOAD data+bss, GNU_STACK. Ours has no rodata.
    let shape = |e: &Elf| -> Vec<(u32, u32, u64)> {
        e.program_headers.iter().map(|p| (p.p_type, p.p_flags, p.p_align)).collect()
    };
    let mut official_shape = shape(&official);
    official_shape.remove(2);
    assert_eq!(shape(&ours), official_shape);
    for p in ours.program_headers.iter().filter(|p| p.p_type == goblin::elf::program_header::PT_LOAD) {
        assert_eq!(p.p_offset % 0x1000, p.p_vaddr % 0x1000, "offset congruent to address");
    }
    // Every allocated section of ours exists in the official file with the same type/flags/alignment.
    let sect = |e: &Elf, name: &str| {
        e.section_headers
            .iter()
            .find(|s| e.shdr_strtab.get_at(s.sh_name) == Some(name))
            .map(|s| (s.sh_type, s.sh_flags, s.sh_addralign))
    };
    for name in [".text", ".tohost", ".data", ".riscv.attributes", ".symtab", ".shstrtab", ".strtab"] {
        assert_eq!(sect(&ours, name), sect(&official, name), "{name}");
    }
    // The rodata and bss sections, when present, match too.
    let img = ElfImage { text: vec![0x13], rodata: vec![1], bss_size: 4, ..ElfImage::default() };
    let bytes = write_elf(&img).unwrap();
    let e = Elf::parse(&bytes).unwrap();
    let strip_merge = |s: Option<(u32, u64, u64)>| s.map(|(t, f, a)| (t, f & !0x30, a)); // official .rodata is AMS
    assert_eq!(strip_merge(sect(&e, ".rodata")), strip_merge(sect(&official, ".rodata")));
    assert_eq!(sect(&e, ".bss"), sect(&official, ".bss"));
    assert_eq!(shape(&e), shape(&official));
    // Identical .riscv.attributes bytes (arch string and stack alignment).
    let attrs = |bytes: &[u8]| {
        let e = VentusElf::parse(bytes).unwrap();
        e.sections.iter().find(|(n, _, _)| n == ".riscv.attributes").unwrap().2.clone()
    };
    assert_eq!(attrs(&ours_bytes), attrs(&official_bytes));
    assert!(String::from_utf8_lossy(&attrs(&ours_bytes)).contains(RISCV_ARCH));
    // The same symbols that matter to loaders and tools.
    let ours = VentusElf::parse(&ours_bytes).unwrap();
    let official = VentusElf::parse(&official_bytes).unwrap();
    for name in [
        "_start",
        "spike_end",
        "__global_pointer$",
        "_edata",
        "_end",
        "tohost",
        "fromhost",
        "BUFFER_ADDR",
        "BUFFER_SIZE",
    ] {
        let (a, b) = (ours.symbol(name).unwrap(), official.symbol(name).unwrap());
        assert_eq!((a.is_func, a.is_global, a.in_text), (b.is_func, b.is_global, b.in_text), "{name}");
    }
    assert_eq!(ours.symbol("_start").unwrap().addr, 0x8000_0000);
    // BUFFER_ADDR/BUFFER_SIZE are the first two words of .data, tohost is page aligned after text.
    let data = ours.segments.iter().find(|s| s.writable && s.vaddr != ours.symbol("tohost").unwrap().addr).unwrap();
    assert_eq!(ours.symbol("BUFFER_ADDR").unwrap().addr, data.vaddr);
    assert_eq!(ours.symbol("BUFFER_SIZE").unwrap().addr, data.vaddr + 4);
    assert_eq!(ours.symbol("tohost").unwrap().addr % 0x1000, 0);
}

#[test]
fn assembler_records_globals() {
    let p = assemble(".globl a, b\n.global a\na: ret\nb: ret\n.globl c", 0x8000_0000).unwrap();
    assert_eq!(p.globals, ["a", "b", "c"]);
    assert_eq!(p.words.len(), 2);
    assert!(assemble(".globl 1x", 0).is_err());
    assert!(assemble(".globl", 0).is_err());
    assert!(assemble("ret", 0).unwrap().globals.is_empty());
}

#[test]
fn link_exports_kernels_and_metadata() {
    let decls = parse_kernel_decls(VECADD_DECL).unwrap();
    let img = link_image(VECADD, &decls).unwrap();
    let elf = VentusElf::parse(&write_elf(&img).unwrap()).unwrap();
    assert_eq!(elf.kernel_names(), vec!["vecadd".to_string()]);
    let entry = elf.kernel_entry("vecadd").unwrap();
    let k = elf.symbol("vecadd").unwrap();
    assert_eq!(k.addr + k.size, elf.text_ranges()[0].1, "the last kernel reaches the end of text");
    assert!(entry > elf.symbol("spike_end").unwrap().addr);
    assert!(elf.symbol(".Lend").is_some_and(|s| !s.is_global));
    let info = elf.sections.iter().find(|(n, _, _)| n == kernel_info::SECTION).unwrap();
    let decoded = kernel_info::decode(&info.2).unwrap();
    assert_eq!(decoded[0].args.len(), 4);
    assert_eq!(decoded[0].args[2].address_space, AddressSpace::Global);
    // Without metadata: no kernel-info or resource sections.
    let bare = VentusElf::parse(&link(VECADD, &[]).unwrap()).unwrap();
    assert!(bare.sections.iter().all(|(n, _, _)| !n.starts_with(".ventus")));
    assert_eq!(bare.kernel_entry("vecadd"), Some(entry));
    // Errors.
    assert_eq!(link(".globl k\nk: ret", &decls), Err(LinkError::UnknownKernel("vecadd".into())));
    let two = [decls[0].clone(), decls[0].clone()];
    assert_eq!(link(VECADD, &two), Err(LinkError::DuplicateKernel("vecadd".into())));
}

// ---- running assembled kernels ----------------------------------------------------------------

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An argument for [`run`]: a buffer with initial contents, a `__local` size, or a value.
enum Arg {
    Buf(Vec<u8>),
    Local(u32),
    Val(Vec<u8>),
}

/// Launches `kernel` of `elf_bytes` and returns the final contents of every buffer argument.
fn run(elf_bytes: &[u8], kernel: &str, g: NdRange, numt: u32, threads: usize, args: &[Arg]) -> Vec<Vec<u8>> {
    let exec = Executable::load(elf_bytes).unwrap();
    let mem = Memory::new();
    let printer = Printer::official(&mem, exec.printf.as_ref(), 1 << 16, device::write_stdout).unwrap();
    let mut kargs = Vec::new();
    let mut bufs = Vec::new();
    for a in args {
        kargs.push(match a {
            Arg::Buf(data) => {
                let r = mem.alloc(data.len() as u32, Placement::Plain).unwrap();
                mem.write(r.base(), data).unwrap();
                bufs.push((r.base(), data.len()));
                KernelArg::Pointer(r.base())
            }
            Arg::Local(n) => KernelArg::Local(*n),
            Arg::Val(v) => KernelArg::Value(v.clone()),
        });
    }
    let packed = pack_args(&kargs).unwrap();
    let l = Launch {
        exec: &exec,
        kernel: exec.kernel_def(kernel).unwrap(),
        range: g,
        args: &packed,
        globals: None,
        threads_per_warp: numt,
        mask_lanes: false,
        printer: Some(&printer),
        grouping: Default::default(),
    };
    device::run(&mem, &l, &LaunchOptions { threads, watchdog: 1 << 26, ..Default::default() })
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    printer.finish(&mem);
    bufs.iter()
        .map(|&(base, len)| {
            let mut b = vec![0u8; len];
            mem.read(base, &mut b).unwrap();
            b
        })
        .collect()
}

fn geometry_1d(groups: u32, local: u32, offset: u32) -> NdRange {
    NdRange::whole_groups(1, [groups, 1, 1], [local, 1, 1], [offset, 0, 0])
}

#[test]
fn assembled_vecadd_computes_a_plus_b() {
    let elf = link(VECADD, &parse_kernel_decls(VECADD_DECL).unwrap()).unwrap();
    let n = 100usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    for (numt, local, threads) in [(8, 16, 1), (32, 32, 2), (4, 12, 2)] {
        let groups = (n as u32).div_ceil(local);
        let out = run(
            &elf,
            "vecadd",
            geometry_1d(groups, local, 0),
            numt,
            threads,
            &[
                Arg::Buf(bytes(&a)),
                Arg::Buf(bytes(&b)),
                Arg::Buf(vec![0; 4 * n]),
                Arg::Val(97u32.to_le_bytes().to_vec()),
            ],
        );
        let c = f32s(&out[2]);
        for i in 0..n {
            let want = if i < 97 { a[i] + b[i] } else { 0.0 };
            assert_eq!(c[i], want, "numt {numt} local {local}: c[{i}]");
        }
    }
    // A global offset shifts the ids.
    let out = run(
        &elf,
        "vecadd",
        geometry_1d(2, 8, 5),
        8,
        1,
        &[Arg::Buf(bytes(&a)), Arg::Buf(bytes(&b)), Arg::Buf(vec![0; 4 * n]), Arg::Val(100u32.to_le_bytes().to_vec())],
    );
    let c = f32s(&out[2]);
    assert!(c[..5].iter().all(|&x| x == 0.0));
    assert!((5..21).all(|i| c[i] == a[i] + b[i]));
    assert!(c[21..].iter().all(|&x| x == 0.0));
}

fn sample_kernel(name: &str) -> Vec<u8> {
    let dir = repo().join("cl-samples/kernels");
    let src = std::fs::read_to_string(dir.join(format!("{name}.s"))).unwrap();
    let decl = std::fs::read_to_string(dir.join(format!("{name}.decl"))).unwrap();
    link(&src, &parse_kernel_decls(&decl).unwrap()).unwrap_or_else(|e| panic!("{name}.s: {e}"))
}

#[test]
fn sample_saxpy_kernel() {
    let elf = sample_kernel("saxpy");
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let y: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).cos()).collect();
    let a = 2.5f32;
    for (numt, threads) in [(32, 1), (8, 2)] {
        let out = run(
            &elf,
            "saxpy",
            geometry_1d(16, 64, 0),
            numt,
            threads,
            &[
                Arg::Buf(bytes(&y)),
                Arg::Buf(bytes(&x)),
                Arg::Val(a.to_le_bytes().to_vec()),
                Arg::Val((n as u32).to_le_bytes().to_vec()),
            ],
        );
        let got = f32s(&out[0]);
        for i in 0..n {
            assert_eq!(got[i].to_bits(), a.mul_add(x[i], y[i]).to_bits(), "y[{i}]");
        }
    }
}

#[test]
fn sample_reduce_kernel() {
    let elf = sample_kernel("reduce");
    let n = 1000u32;
    let input: Vec<f32> = (0..n).map(|i| (i % 17) as f32 * 0.25).collect();
    for (local, numt, threads) in [(64, 32, 1), (128, 32, 2), (32, 8, 1)] {
        let groups = n.div_ceil(local);
        let out = run(
            &elf,
            "reduce",
            geometry_1d(groups, local, 0),
            numt,
            threads,
            &[
                Arg::Buf(bytes(&input)),
                Arg::Buf(vec![0; 4 * groups as usize]),
                Arg::Local(4 * local),
                Arg::Val(n.to_le_bytes().to_vec()),
            ],
        );
        let partial = f32s(&out[1]);
        for (g, &got) in partial.iter().enumerate() {
            let lo = g * local as usize;
            let want: f32 = input[lo..(lo + local as usize).min(n as usize)].iter().sum();
            assert_eq!(got, want, "local {local}: group {g}");
        }
    }
}

#[test]
fn sample_transpose_kernel() {
    let elf = sample_kernel("transpose");
    let (w, h) = (37u32, 29u32);
    let input: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    for (local, numt, threads) in [([8, 8], 32, 1), ([4, 2], 8, 2), ([16, 4], 32, 2)] {
        let g =
            NdRange::whole_groups(2, [w.div_ceil(local[0]), h.div_ceil(local[1]), 1], [local[0], local[1], 1], [0; 3]);
        let out = run(
            &elf,
            "transpose",
            g,
            numt,
            threads,
            &[
                Arg::Buf(vec![0; 4 * (w * h) as usize]),
                Arg::Buf(bytes(&input)),
                Arg::Val(w.to_le_bytes().to_vec()),
                Arg::Val(h.to_le_bytes().to_vec()),
            ],
        );
        let t = f32s(&out[0]);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(t[(x * h + y) as usize], input[(y * w + x) as usize], "local {local:?}: ({x},{y})");
            }
        }
    }
}

// ---- through the binary -----------------------------------------------------------------------

fn ventus_run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ventus-run")).args(args).output().expect("run ventus-run")
}

#[test]
fn ventus_run_asm_then_elf() {
    let dir = std::env::temp_dir().join(format!("ventus-elf-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, decl, out) = (dir.join("vecadd.s"), dir.join("vecadd.decl"), dir.join("vecadd.elf"));
    std::fs::write(&src, VECADD).unwrap();
    std::fs::write(&decl, VECADD_DECL).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let o = ventus_run(&["asm", &s(&src), "-o", &s(&out), "--kernel-info", &s(&decl)]);
    assert!(o.status.success(), "asm failed: {}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("kernels: vecadd @0x"));
    let o = ventus_run(&[
        "elf",
        &s(&out),
        "--kernel",
        "vecadd",
        "--global",
        "40",
        "--local",
        "8",
        "--numt",
        "8",
        "--arg",
        "buf:f32:0..40",
        "--arg",
        "buf:f32:40*0.5",
        "--arg",
        "buf:f32:40*0",
        "--arg",
        "u32:38",
    ]);
    assert!(o.status.success(), "elf failed: {}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let line = stdout.lines().find(|l| l.starts_with("arg2 ")).expect("arg2 printed");
    let values: Vec<f32> = line.split(": ").nth(1).unwrap().split_whitespace().map(|v| v.parse().unwrap()).collect();
    let want: Vec<f32> = (0..40).map(|i| if i < 38 { i as f32 + 0.5 } else { 0.0 }).collect();
    assert_eq!(values, want);
    // The disassembly starts with our crt0 and names the kernel.
    let o = ventus_run(&["disasm", &s(&out)]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("80000000 <_start>:") && text.contains("<vecadd>:") && text.contains("endprg"));
    // Errors are usage errors (exit 2) with the user's line number.
    std::fs::write(&src, ".globl vecadd\nvecadd:\n  bogus a0\n").unwrap();
    let o = ventus_run(&["asm", &s(&src), "-o", &s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 3"), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(&decl, "kernel void vecadd(float* p)").unwrap();
    let o = ventus_run(&["asm", &s(&src), "-o", &s(&out), "--kernel-info", &s(&decl)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(ventus_run(&["asm", &s(&src)]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
