//! Emulator throughput: emulated lane-instructions per second (Σ active lanes over executed warp
//! instructions) for two long-running full-warp kernels, on 1 and 2 host threads.
//! Run with `cargo bench --bench emulator`.

use std::time::Instant;
use ventus_icd::emulator::{run, DeviceMemory, LaunchParams, Program, RunOptions};
use ventus_icd::isa::asm::assemble;

const PROLOGUE: &str = "
    li t4, 32
    vsetvli t4, t4, e32, m1, ta, ma
    csrr t0, tid
    vid.v v1
    vadd.vx v1, v1, t0          # v1 = local lane id
";

/// Integer/FP ALU loop: 10 vector ops + 2 scalar ops per iteration.
fn alu_kernel(iters: u32) -> String {
    format!(
        "{PROLOGUE}
    li t1, {iters}
    vmv.v.x v2, zero
    vadd.vi v3, v1, 3
    vmv.v.x v4, t1
loop:
    vmul.vv v2, v3, v1
    vadd.vv v3, v3, v2
    vxor.vv v4, v4, v3
    vsll.vi v5, v4, 3
    vsrl.vi v6, v5, 1
    vor.vv v2, v6, v2
    vsub.vv v3, v3, v4
    vmadd.vv v4, v1, v2
    vand.vx v5, v4, t1
    vadd.vv v1, v1, v5
    addi t1, t1, -1
    bnez t1, loop
    endprg
"
    )
}

/// Memory streaming: each lane loads, adds and stores one word per iteration, walking a buffer.
fn stream_kernel(iters: u32, base: u32, words_per_group: u32) -> String {
    format!(
        "{PROLOGUE}
    csrr t2, wgid
    li t3, {bytes}
    mul t2, t2, t3
    li t3, {base}
    add t2, t2, t3               # this work-group's slice
    vsll.vi v1, v1, 2
    vadd.vx v1, v1, t2           # v1 = &buf[lane]
    li t1, {iters}
    li t4, {stride}
loop:
    vlw12.v v2, 0(v1)
    vadd.vi v2, v2, 1
    vsw12.v v2, 0(v1)
    vlw12.v v3, 128(v1)
    vadd.vv v3, v3, v2
    vsw12.v v3, 128(v1)
    vadd.vx v1, v1, t4
    addi t1, t1, -1
    bnez t1, loop
    endprg
",
        bytes = words_per_group * 4,
        stride = 256,
    )
}

fn measure(name: &str, src: &str, mem: &DeviceMemory, groups: u32, warps: u32) -> Vec<f64> {
    let asm = assemble(src, 0x8000_0000).expect("benchmark kernel assembles");
    let prog = Program::from_words(0x8000_0000, &asm.words).unwrap();
    let params = LaunchParams::flat(groups, warps);
    let mut rates = Vec::new();
    for threads in [1usize, 2] {
        let opts = RunOptions { threads, ..RunOptions::default() };
        run(mem, &prog, &params, &opts).unwrap(); // warm-up
        let mut best = 0f64;
        for _ in 0..3 {
            let t0 = Instant::now();
            let s = run(mem, &prog, &params, &opts).unwrap();
            let rate = s.lane_instructions as f64 / t0.elapsed().as_secs_f64();
            best = best.max(rate);
        }
        println!(
            "{name:<16} threads={threads}  {:>8.1} M lane-instructions/s  ({:.1} M per thread)",
            best / 1e6,
            best / 1e6 / threads as f64
        );
        rates.push(best);
    }
    println!("{name:<16} scaling 1→2 threads: {:.2}x", rates[1] / rates[0]);
    rates
}

fn main() {
    let mem = DeviceMemory::new();
    measure("alu-loop", &alu_kernel(20_000), &mem, 16, 4);
    let groups = 16u32;
    let iters = 2_000u32;
    let words_per_group = iters * 64 + 64;
    let buf = mem.alloc(groups * words_per_group * 4).unwrap();
    measure("memory-stream", &stream_kernel(iters, buf.base(), words_per_group), &mem, groups, 1);
}
