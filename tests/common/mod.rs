//! Shared helpers for emulator tests: assemble a kernel, run it on a fresh device memory with one
//! output buffer at 0x9000_0000, read the buffer back.
#![allow(dead_code)]

use ventus_icd::emulator::{
    run, run_traced, DeviceMemory, GroupTraces, LaunchError, LaunchParams, Program, RunOptions, RunStats,
};
use ventus_icd::isa::asm::assemble;

/// Address of the output buffer every test kernel gets.
pub const OUT: u32 = 0x9000_0000;

/// Standard prologue: vector unit on (vl = numt, e32), FP on, v1 = work-group-local lane id,
/// a0 = output buffer.
pub const PROLOGUE: &str = "
    li t4, 32
    vsetvli t4, t4, e32, m1, ta, ma
    lui t4, 2
    csrs mstatus, t4
    csrr t0, tid
    vid.v v1
    vadd.vx v1, v1, t0
    li a0, 0x90000000
";

#[derive(Clone, Copy)]
pub struct Setup {
    pub groups: u32,
    pub warps: u32,
    pub numt: u32,
    pub threads: usize,
    pub out_words: usize,
    pub watchdog: u64,
}

impl Default for Setup {
    fn default() -> Self {
        Setup { groups: 1, warps: 1, numt: 32, threads: 1, out_words: 4096, watchdog: 0 }
    }
}

pub struct Outcome {
    pub result: Result<RunStats, LaunchError>,
    pub out: Vec<u32>,
    pub mem: DeviceMemory,
    pub prog: Program,
    pub params: LaunchParams,
    pub labels: std::collections::BTreeMap<String, u32>,
}

pub fn build(src: &str) -> (Program, std::collections::BTreeMap<String, u32>) {
    let full = format!("{PROLOGUE}\n{src}");
    let asm = assemble(&full, 0x8000_0000).unwrap_or_else(|e| panic!("assembly failed: {e}"));
    (Program::from_words(0x8000_0000, &asm.words).unwrap(), asm.labels)
}

/// Launch parameters for `s` (one-dimensional, private memory at 0x9100_0000).
pub fn params(s: &Setup) -> LaunchParams {
    LaunchParams {
        num_groups: [s.groups, 1, 1],
        warps_per_group: s.warps,
        threads_per_warp: s.numt,
        metadata_addr: 0,
        pds_base: 0x9100_0000,
        private_bytes_per_thread: 0x1000,
        start_pc: 0x8000_0000,
        work_items: None,
        lds_map: ventus_icd::emulator::LdsMap::WHOLE,
        extents: None,
        reg_bounds: None,
    }
}

fn memory(s: &Setup) -> DeviceMemory {
    let mem = DeviceMemory::new();
    mem.map(OUT, (s.out_words * 4).max(4) as u32).unwrap();
    let private = 0x1000 * s.warps * s.numt;
    mem.map(0x9100_0000, private).unwrap();
    mem
}

pub fn read_out(mem: &DeviceMemory, words: usize) -> Vec<u32> {
    let mut b = vec![0u8; words * 4];
    mem.read(OUT, &mut b).unwrap();
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Assembles `src` after the prologue and runs it.
pub fn exec(src: &str, s: &Setup) -> Outcome {
    exec_with(src, s, false)
}

/// [`exec`] in the chosen copy of the interpreter (`baseline`: the one compiled without AVX2).
pub fn exec_with(src: &str, s: &Setup, baseline: bool) -> Outcome {
    exec_opts(src, s, &RunOptions { baseline_interpreter: baseline, ..RunOptions::default() })
}

/// [`exec`] with `opts` (its `threads` and `watchdog` from `s`).
pub fn exec_opts(src: &str, s: &Setup, opts: &RunOptions) -> Outcome {
    let (prog, labels) = build(src);
    let mem = memory(s);
    let params = params(s);
    let opts = RunOptions { threads: s.threads, watchdog: s.watchdog, ..opts.clone() };
    let result = run(&mem, &prog, &params, &opts);
    let out = read_out(&mem, s.out_words);
    Outcome { result, out, mem, prog, params, labels }
}

/// Runs with 1 and 2 host threads, in the baseline copy of the interpreter and in the AVX2 one
/// without the translator (1 thread), asserts all succeed with identical output and
/// statistics, returns the output.
pub fn exec_ok(src: &str, s: Setup) -> Vec<u32> {
    let a = exec(src, &Setup { threads: 1, ..s });
    let stats = a.result.as_ref().unwrap_or_else(|e| panic!("run failed: {e}"));
    let b = exec(src, &Setup { threads: 2, ..s });
    b.result.as_ref().unwrap_or_else(|e| panic!("run failed with 2 threads: {e}"));
    assert_eq!(a.out, b.out, "results differ between 1 and 2 host threads");
    let c = exec_with(src, &Setup { threads: 1, ..s }, true);
    let base = c.result.as_ref().unwrap_or_else(|e| panic!("run failed in the baseline interpreter: {e}"));
    assert_eq!(a.out, c.out, "results differ between the SIMD and the baseline interpreter");
    assert_eq!(stats.instructions, base.instructions, "instruction counts differ between interpreters");
    let d = exec_opts(src, &Setup { threads: 1, ..s }, &RunOptions { no_jit: true, ..RunOptions::default() });
    let interp = d.result.as_ref().unwrap_or_else(|e| panic!("run failed without the translator: {e}"));
    assert_eq!(a.out, d.out, "results differ with and without the translator");
    assert_eq!(
        (stats.instructions, stats.lane_instructions),
        (interp.instructions, interp.lane_instructions),
        "statistics differ with and without the translator"
    );
    a.out
}

/// Runs traced (1 thread).
pub fn exec_traced(src: &str, s: &Setup) -> (Result<RunStats, LaunchError>, GroupTraces, Vec<u32>) {
    let (prog, _) = build(src);
    let mem = memory(s);
    let (r, t) = run_traced(&mem, &prog, &params(s), &RunOptions { threads: 1, ..Default::default() });
    let out = read_out(&mem, s.out_words);
    (r, t, out)
}

/// Stores v`reg` of every active lane to out[slot*256 + global lane]
/// (global lane = wgid*lanes_per_group + tid + lane). Clobbers v30, t2, t3.
pub fn store_lanes(reg: u32, slot: u32, lanes_per_group: u32) -> String {
    format!(
        "
    csrr t2, wgid
    li t3, {lanes_per_group}
    mul t2, t2, t3
    vadd.vx v30, v1, t2
    vsll.vi v30, v30, 2
    li t3, {off}
    add t3, t3, a0
    vadd.vx v30, v30, t3
    vsw12.v v{reg}, 0(v30)
",
        off = slot * 4 * 256
    )
}
