//! The device memory model and the memory checker, through the ICD loader with OpenCL C kernels:
//! a read in a buffer's last-page tail succeeds by default and is reported under the memory
//! checker (the context property `CL_CONTEXT_MEMCHECK_VENTUS`, what `VENTUS_MEMCHECK=1` sets for
//! every context); stores past the local memory, into the program's text, below the first buffer
//! and into unmapped pages fault with a message naming the access; a kernel spraying stores
//! does not make the host commit memory; the context runs a correct kernel afterwards.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;

use cl::*;
use clrun::*;

const MEMCHECK: [cl_context_properties; 2] = [0x7F11, 1];

/// The tests of this file run one at a time (the RSS measurement must not see the others).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const TAIL: &str = "
kernel void smooth(global const float *in, global float *out, uint n) {
    uint i = get_global_id(0);
    if (i < n) {
        float right = in[i + 1]; /* reads in[n] for the last work-item */
        out[i] = in[i] + right;
    }
}";

fn tail_args() -> Vec<Arg> {
    let input: Vec<f32> = (0..1000).map(|i| (i % 10) as f32).collect();
    vec![buf(&input), zeros(4000), val(1000u32)]
}

/// The whole messages of a failed launch, for assertions.
fn failure(r: Result<Vec<Vec<u8>>, Failed>, what: &str) -> String {
    match r {
        Ok(_) => panic!("{what}: the launch completed"),
        Err(f) => {
            assert_eq!(f.status, CL_OUT_OF_RESOURCES, "{what}: status {}", err_name(f.status));
            let m = f.messages.join("\n");
            assert!(m.contains("kernel `"), "{what}: {m}");
            m
        }
    }
}

#[test]
fn a_read_in_the_page_tail_succeeds_and_memcheck_reports_it() {
    let _one = serial();
    let out = run_source(TAIL, "", "smooth", &[1024], Some(&[32]), None, &tail_args());
    let got: Vec<f32> = read(&out[1]);
    assert_eq!(got[999], 9.0, "in[1000] reads the zero-filled tail of the buffer's last page");
    assert_eq!(got[998], 17.0);
    let r = try_run_source(&MEMCHECK, TAIL, "", "smooth", &[1024], Some(&[32]), None, &tail_args());
    let m = failure(r, "memcheck");
    assert!(m.contains("memcheck: invalid 4-byte load"), "{m}");
    assert!(m.contains("0 bytes past the end of buffer (argument 0) at 0x"), "{m}");
    assert!(m.contains("(4000 bytes)"), "{m}");
    assert!(m.contains("work-item (999,0,0), local id (7,0,0)"), "{m}");
    assert!(m.contains("work-group 31 (31,0,0), warp 0, lane 7"), "{m}");
    assert!(m.contains(" at <source>:5:"), "the report names the source line of the read: {m}");
    // An in-bounds kernel passes the checker, in the same kind of context.
    let ok = "kernel void k(global int *a, local int *l, int n) {
        int i = get_global_id(0), li = get_local_id(0);
        l[li] = a[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        int priv[8];
        for (int j = 0; j < 8; j++) priv[j] = l[(li + j) % 64] + n;
        a[i] = priv[i % 8];
    }";
    let a: Vec<i32> = (0..256).collect();
    let out = try_run_source(&MEMCHECK, ok, "", "k", &[256], Some(&[64]), None, &[buf(&a), Arg::Local(256), val(5i32)])
        .unwrap_or_else(|f| panic!("in-bounds kernel reported: {f:?}"));
    let got: Vec<i32> = read(&out[0]);
    for i in 0..256 {
        let li = i % 64;
        assert_eq!(got[i], a[i - li + (li + i % 8) % 64] + 5, "a[{i}]");
    }
}

#[test]
fn stores_outside_the_mapped_pages_fault_and_name_the_access() {
    let _one = serial();
    let cases = [
        // 4 MiB past a 256-byte __local array.
        (
            "kernel void k(global int *a) { local int l[64]; l[get_local_id(0) + (1 << 20)] = a[0]; \
             barrier(CLK_LOCAL_MEM_FENCE); a[get_global_id(0)] = l[0]; }",
            "store access fault (unmapped address)",
            "address 0x7",
        ),
        // Into the kernel's own code.
        (
            "kernel void k(global int *a) { *(global int *)0x80000100 = a[get_global_id(0)]; }",
            "store access fault (read-only program memory)",
            "address 0x80000100",
        ),
        // 16 bytes below the first buffer of the device (the heap starts at 0x90000000).
        (
            "kernel void k(global int *a) { *(global int *)(0x8ffffff0u + 0 * a[0]) = 1; }",
            "store access fault (unmapped address)",
            "16 bytes before buffer (argument 0) at 0x90000000",
        ),
        // A page far from every buffer.
        (
            "kernel void k(global int *a) { a[get_global_id(0) + (1 << 24)] = 1; }",
            "store access fault (unmapped address)",
            "bytes past the end of buffer",
        ),
    ];
    for (src, kind, detail) in cases {
        let r = try_run_source(&[], src, "", "k", &[32], Some(&[32]), None, &[zeros(64)]);
        let m = failure(r, src);
        assert!(m.contains(kind), "{src}: {m}");
        assert!(m.contains(detail), "{src}: {m}");
        assert!(m.contains(", pc 0x8"), "{src}: {m}");
        assert!(m.contains(" at <source>:1:"), "{src}: {m}");
    }
    // The context and the device stay usable.
    let out = run1("kernel void k(global int *a) { a[get_global_id(0)] *= 2; }", "k", 32, 32, &[buf(&[21i32; 32])]);
    assert_eq!(read::<i32>(&out[0]), vec![42; 32]);
}

/// Under the memory checker, buffers are separated by unmapped redzones: a store a few words
/// before a buffer or just past its end, which would land in the neighbouring buffer (two
/// 4 KiB buffers allocated one after the other are adjacent without the checker), faults and is
/// reported against the buffer the access started from; the neighbour keeps its contents.
#[test]
fn underflows_and_overflows_into_a_neighbour_are_reported_under_the_checker() {
    let _one = serial();
    let src = "kernel void k(global int *first, global int *second, int index, int which) {
        if (get_global_id(0) == 0) {
            if (which == 0) first[index] = 7;
            else second[index] = 7;
        }
    }";
    let cases = [
        // second[-2]: 8 bytes before the second buffer (the end of the first without redzones).
        (-2, 1, "store access fault (unmapped address)", "8 bytes before buffer (argument 1)"),
        // first[1024]: just past the first buffer (the start of the second without redzones).
        (1024, 0, "store access fault (unmapped address)", "0 bytes past the end of buffer (argument 0)"),
    ];
    for (index, which, kind, detail) in cases {
        let args = [filled(1024, 1i32), filled(1024, 2i32), val(index), val(which)];
        let r = try_run_source(&MEMCHECK, src, "", "k", &[32], Some(&[32]), None, &args);
        let m = failure(r, detail);
        assert!(m.contains(kind), "{detail}: {m}");
        assert!(m.contains(detail), "{m}");
        assert!(m.contains("(4096 bytes)") && m.contains(" at <source>:"), "{m}");
    }
    // In bounds, the same kernel runs under the checker, and both buffers keep their values.
    let args = [filled(1024, 1i32), filled(1024, 2i32), val(1023), val(0)];
    let out = try_run_source(&MEMCHECK, src, "", "k", &[32], Some(&[32]), None, &args).expect("in bounds");
    let (first, second) = (read::<i32>(&out[0]), read::<i32>(&out[1]));
    assert_eq!((first[1023], first[0], second[0], second[1023]), (7, 1, 2, 2));
}

/// Resident set size of this process in KiB.
fn rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = s.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_spraying_kernel_costs_no_host_memory() {
    let _one = serial();
    // Every work-item stores to 64 addresses spread over the LDS and program windows and the
    // space between buffers: the first store outside the mapped pages stops the launch.
    // `base` moves the stores to other pages, so the warm-up run of one copy cannot have paid
    // for the pages the measured copy touches.
    let spray = |base: &str| {
        format!(
            "kernel void k(global int *a) {{
                uint i = get_global_id(0);
                for (uint j = 0; j < 64; j++) {{
                    *(global int *)({base} + ((i * 64 + j) * 0x10000u) % 0x20000000u) = j;
                }}
                a[i] = 1;
            }}"
        )
    };
    let quiet = "kernel void k(global int *a) { a[get_global_id(0)] = 1; }";
    let measure = |src: &str| {
        let before = rss_kib();
        for _ in 0..3 {
            let _ = try_run_source(&[], src, "", "k", &[1024], Some(&[64]), None, &[zeros(4096)]);
        }
        rss_kib().saturating_sub(before)
    };
    // Warm-up: the loader, the compiler's first use, the emulator's threads, and a first faulting
    // launch (its diagnosis and the heap the compiler grows for a new program, which the C
    // library keeps) — measured, a new program's build alone has cost 4 MiB of RSS.
    measure(quiet);
    measure(&spray("0x70008000u"));
    let q = measure(quiet);
    let s = measure(&spray("0x70000000u"));
    assert!(s <= q + 4096, "the spraying kernel grew the RSS by {s} KiB, a quiet one by {q} KiB");
    let spray = spray("0x70000000u");
    let r = try_run_source(&[], &spray, "", "k", &[1024], Some(&[64]), None, &[zeros(4096)]);
    let m = failure(r, "spray");
    assert!(m.contains("store access fault"), "{m}");
}

/// A racy kernel: each warp stores through `b`, then loads what the other warp of its
/// work-group stored through `a` — when `a` and `b` are the same buffer.
const RACE: &str = "
kernel void race(global int *b, global const int *a, global int *c) {
    int i = get_global_id(0);
    b[i] = i + 1;
    c[i] = a[i ^ 32];
}";

#[test]
fn loads_run_ahead_of_other_warps_stores_only_through_pointers_to_other_buffers() {
    // Loads whose argument no store of their interval writes may run ahead of the other warps
    // when the pointer arguments point into different buffers; passed one buffer twice, the
    // kernel must see the round-robin order (each warp's load after the other's store, as on
    // the reference simulator), whatever the memory classes say.
    let n = 256;
    let init: Vec<i32> = (0..n).map(|i| 1000 + i).collect();
    let c_of = |a: Arg| -> Vec<i32> {
        let args = [zeros(4 * n as usize), a, zeros(4 * n as usize)];
        read(&run_source(RACE, "", "race", &[n as usize], Some(&[64]), None, &args)[2])
    };
    for (i, &v) in c_of(buf(&init)).iter().enumerate() {
        assert_eq!(v, 1000 + (i as i32 ^ 32), "different buffers: c[{i}]");
    }
    for (i, &v) in c_of(Arg::Same(0)).iter().enumerate() {
        assert_eq!(v, (i as i32 ^ 32) + 1, "one buffer twice: c[{i}] must be the other warp's store");
    }
}
