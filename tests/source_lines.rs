//! Source lines: the compiler's pc → `file:line` table (`.ventus.lines`), faults and watchdog
//! messages naming the OpenCL C line, and the guarantee that line information never changes the
//! generated code.

mod cc;
#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;

use cl::{err_name, CL_OUT_OF_RESOURCES};
use clrun::{buf, run_failing, val};
use ventus_icd::abi::elf::VentusElf;
use ventus_icd::abi::launch::{pack_args, KernelArg, NdRange};
use ventus_icd::abi::lines::LineTable;
use ventus_icd::compiler::compile_spirv;
use ventus_icd::device::emulated::{launch, DeviceError, KernelLaunch};
use ventus_icd::emulator::{DeviceMemory, FaultKind, LaunchError, Program, RunOptions};

/// The executable words of an ELF.
fn text(elf: &[u8]) -> Vec<u8> {
    let e = VentusElf::parse(elf).unwrap();
    e.segments.iter().filter(|s| s.executable).flat_map(|s| s.data.clone()).collect()
}

fn compile_with(src: &str, options: &str) -> ventus_icd::compiler::Compiled {
    compile_spirv(&cc::front(src, options).spirv).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

fn table(elf: &[u8]) -> Option<LineTable> {
    VentusElf::parse(elf).unwrap().line_table().expect("well-formed line table")
}

#[test]
fn line_information_does_not_change_the_code() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cl-samples/kernels");
    let mut sources: Vec<(String, String)> = ["vecadd", "saxpy", "matmul", "histogram", "divergence", "hello_printf"]
        .iter()
        .map(|n| (n.to_string(), std::fs::read_to_string(dir.join(format!("{n}.cl"))).unwrap()))
        .collect();
    sources.push((
        "helpers+fp64".into(),
        r#"
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        static int twice(int x) { return 2 * x; }
        __kernel void k(__global int *a, __global double *d, __local int *l, int n) {
            int i = get_global_id(0);
            l[get_local_id(0)] = twice(a[i]);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int j = 0; j < n; j++)
                if (a[j] > i) a[i] += l[j % 4];
            d[i] = sqrt(d[i]) * (double)n;
        }"#
        .into(),
    ));
    for (name, src) in &sources {
        for opt in ["", "-cl-opt-disable"] {
            let with = compile_with(src, opt);
            let without = compile_with(src, &format!("{opt} -g0"));
            assert_eq!(text(&with.elf), text(&without.elf), "{name} {opt}: line information changed the code");
            let t = table(&with.elf).unwrap_or_else(|| panic!("{name} {opt}: no line table"));
            assert!(t.rows.len() > 2 && t.files.iter().any(|f| f == "<source>"), "{name} {opt}: {t:?}");
            assert!(table(&without.elf).is_none(), "{name} {opt}: -g0 still has a line table");
        }
    }
}

/// The one context message of a failed launch, which must name `line` of the source string.
#[track_caller]
fn assert_names_line(status: i32, messages: &[String], what: &str, line: &str) {
    assert_eq!(status, CL_OUT_OF_RESOURCES, "{}: {messages:?}", err_name(status));
    assert!(
        messages.iter().any(|m| m.contains(what) && m.contains(&format!(" at <source>:{line}"))),
        "no message names {what} at <source>:{line}: {messages:?}"
    );
}

/// An out-of-bounds store faults; the context's error callback names its OpenCL C line.
#[test]
fn a_faulting_store_names_its_source_line() {
    let src = "__kernel void oob(__global int *out, int n) {
        int i = get_global_id(0);
        int v = i * 3 + 1;
        out[i + n] = v;
    }";
    for options in ["", "-cl-opt-disable"] {
        // 0x3000_0000 ints past a heap buffer is below the LDS window: nothing is mapped there.
        let (status, messages) = run_failing(src, options, "oob", &[32], &[buf(&[0i32; 32]), val(0x3000_0000i32)]);
        assert_names_line(status, &messages, "store access fault", "4");
    }
}

/// `__builtin_trap()` (an `ebreak`) names the line of the call.
#[test]
fn a_trap_names_its_source_line() {
    let src = "__kernel void t(__global int *d) {
        int i = get_global_id(0);
        if (d[i] == 7)
            __builtin_trap();
        d[i] += 1;
    }";
    let mut data = vec![0i32; 32];
    data[5] = 7;
    // (At -cl-opt-disable llvm-spirv 15 drops `llvm.trap`: nothing traps.)
    let (status, messages) = run_failing(src, "", "t", &[32], &[buf(&data)]);
    assert_names_line(status, &messages, "ebreak", "4:");
    // Without line information the message has no location, the rest is unchanged.
    let (status, messages) = run_failing(src, "-g0", "t", &[32], &[buf(&data)]);
    assert_eq!(status, CL_OUT_OF_RESOURCES);
    assert!(messages.iter().any(|m| m.contains("ebreak") && !m.contains(" at <source>")), "{messages:?}");
}

/// A spinning loop stopped by the watchdog names the line the warp was executing.
#[test]
fn the_watchdog_names_the_spinning_line() {
    let src = "__kernel void spin(volatile __global int *flag, __global int *out) {
        int i = get_global_id(0);
        out[i] = 1;
        while (flag[0] == 0)
            ;
        out[i] = 2;
    }";
    let c = cc::compile(src, "");
    let elf = VentusElf::parse(&c.elf).unwrap();
    let prog = Program::from_elf(&elf).unwrap();
    let mem = DeviceMemory::new();
    let flag = mem.alloc(4).unwrap();
    let out = mem.alloc(128).unwrap();
    let args = [KernelArg::Pointer(flag.base()), KernelArg::Pointer(out.base())];
    let l = KernelLaunch {
        program: &prog,
        disjoint_program: None,
        entry: elf.kernel_entry("spin").unwrap(),
        range: NdRange { work_dim: 1, global: [32, 1, 1], local: [32, 1, 1], offset: [0; 3] },
        args: &pack_args(&args).unwrap(),
        threads_per_warp: 32,
        print: (0, 0),
        mask_lanes: true,
        private_bytes: 0,
        resources: elf.resource_usage("spin").copied(),
    };
    let opts = RunOptions { watchdog: 20_000, ..RunOptions::default() };
    let fault = match launch(&mem, &l, &opts) {
        Err(DeviceError::Launch(LaunchError::Fault(f))) => f,
        other => panic!("expected the watchdog, got {other:?}"),
    };
    assert!(matches!(fault.kind, FaultKind::Watchdog { .. }), "{fault}");
    let at = fault.source.as_ref().unwrap_or_else(|| panic!("no source line: {fault}"));
    assert_eq!((at.file.as_str(), at.line), ("<source>", 4), "{fault}");
    assert!(fault.to_string().contains(&format!(" at {at}")), "{fault}");
}

/// Official binaries carry no line table: they load, run and report faults without one.
#[test]
fn official_binaries_have_no_line_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata/ventus-official/vsw-vecadd-elf/vecadd.riscv");
    let elf = VentusElf::parse(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(elf.line_table(), Ok(None));
    let prog = Program::from_elf(&elf).unwrap();
    let entry = elf.kernel_entry("vectorAdd").unwrap();
    assert_eq!(prog.source_location(entry), None);
    assert_eq!(prog.source_location(0x8000_0000), None);
}

/// A malformed table is reported by the reader and ignored by the emulator (never a panic).
#[test]
fn a_malformed_line_table_is_ignored() {
    let c = cc::compile("__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }", "");
    let good = VentusElf::parse(&c.elf).unwrap();
    let t = good.line_table().unwrap().expect("a line table");
    let (name, _, data) = good.sections.iter().find(|(n, _, _)| n == ".ventus.lines").unwrap();
    assert_eq!(LineTable::decode(data).as_ref(), Ok(&t));
    let mut bad = good.clone();
    for s in bad.sections.iter_mut().filter(|(n, _, _)| n == name) {
        s.2.truncate(s.2.len() - 3);
    }
    assert!(bad.line_table().is_err());
    let prog = Program::from_elf(&bad).unwrap();
    assert_eq!(prog.source_location(t.rows[0].pc), None);
    assert!(Program::from_elf(&good).unwrap().source_location(t.rows[0].pc).is_some());
}
