//! The legacy (2023 libclc) `printf` host call with a synthetic caller: a kernel of our own
//! assembly calls a function installed as [`HostCall::LegacyPrintf`], passing a format string, an
//! `int`, a `long` (aligned register pair), a `%s` string and a `double` (aligned pair) the way
//! the Ventus calling convention passes varargs. Checks the text per lane, that inactive lanes do
//! not print, the return value in `v0`, the return to `ra`, and the fault for a bad format address.

use std::sync::{Arc, Mutex};
use ventus_icd::abi::elf::VentusElf;
use ventus_icd::abi::launch::{pack_args, KernelArg, NdRange};
use ventus_icd::device::emulated::{launch, DeviceError, KernelLaunch};
use ventus_icd::emulator::hostcall::HostCall;
use ventus_icd::emulator::{DeviceMemory, FaultKind, LaunchError, PrintHook, Program, RunOptions};

const KERNEL: &str = "
.globl k
k:
    mv s1, ra
    lw t0, 0(a0)              # strings buffer: format at +0, \"hi\" at +64
    lw s2, 4(a0)              # out[gid] = printf's return value
    csrr x3, gl_id_x          # v3 = global id
    vmv.v.x v0, t0
    vadd.vi v1, v3, 0         # %d: gid
    vadd.vi v2, v3, 0         # %ld: low word gid, high word -1 (gid - 2^32)
    li t1, -1
    addi t2, t0, 64
    vmv.v.x v4, t2            # %s
    vmv.v.x v8, t2            # %5s (after the double in v6, v7)
    vmv.v.x v3, t1            # high word of the long
    vmv.v.x v6, zero          # %.1f: 1.5 = 0x3ff80000_00000000 in (v6, v7)
    li t1, 0x3ff80000
    vmv.v.x v7, t1
    jal fake_printf
    csrr x8, gl_id_x
    vsll.vi v8, v8, 2
    vadd.vx v8, v8, s2
    vsw12.v v0, 0(v8)
    mv ra, s1
    ret
.globl fake_printf
fake_printf:
    vmv.v.x v0, zero          # never runs when installed as a host call
    li t1, 7
    vmv.v.x v0, t1
    ret
";

#[derive(Default)]
struct Collect(Mutex<Vec<u8>>);

impl PrintHook for Collect {
    fn on_print(&self, _: u32, _: u32, _: u32) {}
    fn on_text(&self, _: u32, _: u32, text: &[u8]) {
        self.0.lock().unwrap().extend_from_slice(text);
    }
}

/// Runs 6 work-items (warps of 4 lanes: the second warp has 2 inactive lanes); returns the
/// outcome, the text and `out`.
fn run(format: &[u8], install: bool, threads: usize) -> (Result<(), DeviceError>, String, Vec<u32>) {
    let elf = VentusElf::parse(&ventus_icd::abi::crt0::link(KERNEL, &[]).unwrap()).unwrap();
    let mut prog = Program::from_elf(&elf).unwrap();
    if install {
        assert!(prog.install_host_call(elf.kernel_entry("fake_printf").unwrap(), HostCall::LegacyPrintf));
    }
    let mem = DeviceMemory::new();
    let strings = mem.alloc(128).unwrap();
    strings.write_bytes(strings.base(), format);
    strings.write_bytes(strings.base() + 64, b"hi\0");
    let out = mem.alloc(4 * 8).unwrap();
    let hook = Arc::new(Collect::default());
    let args = [KernelArg::Pointer(strings.base()), KernelArg::Pointer(out.base())];
    let l = KernelLaunch {
        program: &prog,
        disjoint_program: None,
        entry: elf.kernel_entry("k").unwrap(),
        range: NdRange { work_dim: 1, global: [6, 1, 1], local: [8, 1, 1], offset: [0; 3] },
        args: &pack_args(&args).unwrap(),
        threads_per_warp: 4,
        print: (0, 0),
        mask_lanes: true,
        private_bytes: 0,
        resources: None,
    };
    let opts = RunOptions { threads, print_hook: Some(hook.clone()), ..Default::default() };
    let r = launch(&mem, &l, &opts).map(|_| ());
    let mut bytes = vec![0u8; 32];
    mem.read(out.base(), &mut bytes).unwrap();
    let words = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let text = String::from_utf8(hook.0.lock().unwrap().clone()).unwrap();
    (r, text, words)
}

#[test]
fn host_call_formats_every_active_lane_and_returns_zero() {
    for threads in [1, 2] {
        let (r, text, out) = run(b"gid=%d l=%ld s=%s f=%.1f|%5s|\n\0", true, threads);
        r.unwrap();
        let want: String = (0..6).map(|g| format!("gid={g} l={} s=hi f=1.5|   hi|\n", g - (1i64 << 32))).collect();
        assert_eq!(text, want);
        // printf returned 0 to the 6 work-items (inactive lanes store nothing).
        assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 0]);
    }
}

#[test]
fn without_the_host_call_the_function_runs_as_compiled() {
    let (r, text, out) = run(b"x%d\n\0", false, 1);
    r.unwrap();
    assert_eq!(text, "");
    assert_eq!(out, [7, 7, 7, 7, 7, 7, 0, 0]);
}

#[test]
fn unreadable_format_string_faults_at_the_call() {
    // Installed at the kernel entry itself, the call sees v0 = 0 (registers start zeroed): the
    // format string's address is unmapped.
    let elf = VentusElf::parse(&ventus_icd::abi::crt0::link(KERNEL, &[]).unwrap()).unwrap();
    let mut prog = Program::from_elf(&elf).unwrap();
    let entry = elf.kernel_entry("k").unwrap();
    assert!(prog.install_host_call(entry, HostCall::LegacyPrintf));
    let mem = DeviceMemory::new();
    let l = KernelLaunch {
        program: &prog,
        disjoint_program: None,
        entry,
        range: NdRange::whole_groups(1, [1, 1, 1], [4, 1, 1], [0; 3]),
        args: &pack_args(&[]).unwrap(),
        threads_per_warp: 4,
        print: (0, 0),
        mask_lanes: false,
        private_bytes: 0,
        resources: None,
    };
    match launch(&mem, &l, &RunOptions::default()) {
        Err(DeviceError::Launch(LaunchError::Fault(f))) => {
            assert_eq!(f.kind, FaultKind::LoadAccess);
            assert_eq!((f.pc, f.addr, f.lane), (entry, Some(0), Some(0)));
        }
        other => panic!("expected a load access fault, got {other:?}"),
    }
}

#[test]
fn install_rejects_addresses_outside_the_text() {
    let elf = VentusElf::parse(&ventus_icd::abi::crt0::link(KERNEL, &[]).unwrap()).unwrap();
    let mut prog = Program::from_elf(&elf).unwrap();
    assert!(!prog.install_host_call(0x9000_0000, HostCall::LegacyPrintf));
    assert!(!prog.install_host_call(elf.kernel_entry("k").unwrap() + 2, HostCall::LegacyPrintf));
}
