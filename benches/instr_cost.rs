//! What one warp instruction costs the interpreter, by kind: each instruction repeated 16 times
//! in a loop of 200 iterations, 64 work-groups of 8 full warps (512 warps), on one emulator thread; the time
//! of the same loop without the 16 copies is subtracted, so each figure is nanoseconds per warp
//! instruction (dispatch, operands, 32 lanes, write-back, and for a shared instruction — a
//! global load or store, a scalar load from writable memory — the end of the warp's turn).
//! Also the cost of a warp that runs one instruction (`endprg`): work-group and warp setup.
//! Run with `cargo bench --bench instr_cost` (`ONLY=<name>` measures one kind, `REPS=<n>`
//! repeats each launch n times, for a profile; `WARPS=<n>` runs n warps per work-group, 512 warps
//! in all — a turn's end costs the same with 1 warp as with 32, so it is not the next warp's
//! registers coming from cache). Prints a table; asserts nothing about time.

use std::time::Instant;
use ventus_icd::emulator::{run, DeviceMemory, LaunchParams, Program, RunOptions};
use ventus_icd::isa::asm::assemble;

/// Seconds of the fastest of `REPS` (default 5) runs of `src`, and the warp instructions run.
fn time(src: &str, mem: &DeviceMemory, groups: u32, warps: u32) -> (f64, u64) {
    let asm = assemble(src, 0x8000_0000).expect("benchmark kernel assembles");
    let prog = Program::from_words(0x8000_0000, &asm.words).unwrap();
    let params = LaunchParams::flat(groups, warps);
    let opts = RunOptions { threads: 1, ..RunOptions::default() };
    run(mem, &prog, &params, &opts).unwrap(); // warm-up
    let reps = std::env::var("REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let (mut best, mut n) = (f64::MAX, 0);
    for _ in 0..reps {
        let t0 = Instant::now();
        let s = run(mem, &prog, &params, &opts).unwrap();
        best = best.min(t0.elapsed().as_secs_f64());
        n = s.instructions;
    }
    (best, n)
}

fn main() {
    let mem = DeviceMemory::new();
    let buf = mem.alloc(1 << 20).unwrap().base();
    let ro = mem.alloc_read_only(4096).unwrap().base();
    // v1 = &buf[local id]: a full warp's unit-stride addresses; a5 = buf, a6 = a read-only word.
    let prologue = format!(
        "    li t4, 32
    vsetvli t4, t4, e32, m1, ta, ma
    csrr t0, tid
    vid.v v1
    vadd.vx v1, v1, t0
    vsll.vi v1, v1, 2
    li a5, {buf}
    vadd.vx v1, v1, a5
    li a6, {ro}
    li t1, 200
"
    );
    println!("instr_cost: one emulator thread, ns per warp instruction");
    // Never executed after `endprg`, the last words make a warp's reset clear more registers
    // (the destinations the program can write, + 8: see `Program::reg_bounds`).
    for (name, src) in [
        ("warp running only endprg", "    endprg\n"),
        ("  the same, clears x0-x13, v0-v13", "    endprg\n    addi t0, t0, 1\n    vadd.vv v6, v1, v1\n"),
    ] {
        let (t, n) = time(src, &mem, 8192, 8);
        println!("{name:<28} {:>7.2} ns per warp ({n} warps)", t * 1e9 / n as f64);
    }
    let base = format!("{prologue}loop:\n    addi t1, t1, -1\n    bnez t1, loop\n    endprg\n");
    let w: u32 =
        std::env::var("WARPS").ok().and_then(|v| v.parse().ok()).filter(|&w| (1..=32).contains(&w)).unwrap_or(8);
    let (t0, n0) = time(&base, &mem, 512 / w, w);
    for (name, ins) in [
        ("addi", "addi t2, t2, 1"),
        ("mul", "mul t2, t2, t4"),
        ("csrr tid", "csrr t2, tid"),
        ("csrr mstatus", "csrr t2, mstatus"),
        ("csrw mtvec", "csrw mtvec, t4"),
        ("vsetvli", "vsetvli t2, t4, e32, m1, ta, ma"),
        ("auipc", "auipc t2, 0"),
        ("lw (read-only)", "lw t2, 0(a6)"),
        ("lw (writable: shared)", "lw t2, 0(a5)"),
        ("vid.v", "vid.v v2"),
        ("vadd.vx", "vadd.vx v2, v1, t4"),
        ("vadd.vv", "vadd.vv v2, v1, v2"),
        ("vsll.vi", "vsll.vi v2, v1, 2"),
        ("vremu.vx", "vremu.vx v2, v1, t4"),
        ("vfadd.vv", "vfadd.vv v2, v2, v2"),
        ("vfmacc.vf", "vfmacc.vf v2, t4, v2"),
        ("vlw12.v (unit stride)", "vlw12.v v2, 0(v1)"),
        ("vsw12.v (unit stride)", "vsw12.v v2, 0(v1)"),
    ] {
        if std::env::var("ONLY").is_ok_and(|only| only != name) {
            continue;
        }
        let body: String = (0..16).map(|_| format!("    {ins}\n")).collect();
        let src = format!("{prologue}loop:\n{body}    addi t1, t1, -1\n    bnez t1, loop\n    endprg\n");
        let (t, n) = time(&src, &mem, 512 / w, w);
        println!("{name:<28} {:>7.2} ns", (t - t0) * 1e9 / (n - n0) as f64);
    }
}
