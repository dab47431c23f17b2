//! Build times of the OpenCL C compiler for the `cl-samples/kernels/*.cl` kernels, per stage:
//!
//! * front end: clang-15 + llvm-spirv-15 as subprocesses (`Toolchain::compile`, exactly what a
//!   build runs, including the pipes and the `-O2` → `-O0` retry);
//! * back end: `compile_spirv` on that SPIR-V (SPIR-V → IR → passes → Ventus ELF);
//! * cold build: `build::build_source` with an empty cache directory (both halves plus cache
//!   lookup and store);
//! * cached rebuild: `build::build_source` of the same source again with the warm cache.
//!
//! Each time is the median of several runs. Targets: back end < 20 % of the front end, cached
//! rebuild < 5 ms. Run with `cargo bench --bench build`; prints a table, asserts nothing about time.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use ventus_icd::compiler::build::build_source;
use ventus_icd::compiler::compile_spirv;
use ventus_icd::compiler::toolchain::{FrontOptions, Toolchain};

const KERNELS: [&str; 5] = ["vecadd", "saxpy", "matmul", "histogram", "divergence"];
/// Runs per stage (median reported); the cached rebuild is cheap, so it runs more often.
const RUNS: usize = 7;
const CACHED_RUNS: usize = 51;

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// Times `f` `n` times (after one warm-up run) and returns the median in ms.
fn time<T>(n: usize, mut f: impl FnMut() -> T) -> f64 {
    std::hint::black_box(f());
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

/// A fresh, empty cache directory for `tag`.
fn fresh_cache_dir(root: &Path, tag: &str) -> PathBuf {
    let d = root.join(tag);
    let _ = std::fs::remove_dir_all(&d);
    d
}

struct Row {
    name: &'static str,
    front: f64,
    back: f64,
    cold: f64,
    cached: f64,
}

fn main() {
    let tc = Toolchain::discover().unwrap_or_else(|e| panic!("{e}"));
    let opts = FrontOptions::default();
    let root = std::env::temp_dir().join(format!("ventus-bench-build-{}", std::process::id()));
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("cl-samples/kernels");
    println!("toolchain: {} ({} + {})", tc.version, tc.clang.display(), tc.llvm_spirv.display());
    println!("medians of {RUNS} runs ({CACHED_RUNS} for the cached rebuild), after one warm-up run");
    // `build_source` discovers the toolchain on every call (cache hits included): part of every
    // build's time, shown separately.
    let discover = time(CACHED_RUNS, Toolchain::discover);
    println!("Toolchain::discover (memoised after the first call): {discover:.3} ms per call\n");

    let mut rows = Vec::new();
    for name in KERNELS {
        let path = kernels.join(format!("{name}.cl"));
        let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let spirv = tc.compile(&src, &opts, None).unwrap_or_else(|(e, log)| panic!("{name}: {e}\n{log}")).spirv;
        compile_spirv(&spirv).unwrap_or_else(|e| panic!("{name}: back end: {e}"));

        let front = time(RUNS, || tc.compile(&src, &opts, None).map(|f| f.spirv.len()));
        let back = time(RUNS, || compile_spirv(&spirv).map(|c| c.elf.len()));
        // Cold: every run gets its own empty cache directory (lookup misses, the ELF is stored).
        let mut run = 0;
        let cold = time(RUNS, || {
            run += 1;
            std::env::set_var("VENTUS_CACHE_DIR", fresh_cache_dir(&root, &format!("{name}-cold-{run}")));
            let out = build_source(&src, &opts, &[]);
            assert!(out.result.is_ok(), "{name}: {}", out.log);
        });
        // Warm: one directory, filled by the warm-up run of `time`.
        std::env::set_var("VENTUS_CACHE_DIR", fresh_cache_dir(&root, &format!("{name}-warm")));
        let cached = time(CACHED_RUNS, || {
            let out = build_source(&src, &opts, &[]);
            assert!(out.result.is_ok(), "{name}: {}", out.log);
        });
        rows.push(Row { name, front, back, cold, cached });
    }
    let _ = std::fs::remove_dir_all(&root);

    println!(
        "{:<11} {:>18} {:>13} {:>11} {:>14} {:>16}",
        "kernel", "clang+spirv (ms)", "back end (ms)", "back end %", "cold build (ms)", "cached build (ms)"
    );
    for r in &rows {
        println!(
            "{:<11} {:>18.2} {:>13.2} {:>10.1}% {:>14.2} {:>16.3}",
            r.name,
            r.front,
            r.back,
            100.0 * r.back / r.front,
            r.cold,
            r.cached
        );
    }
    let (front, back): (f64, f64) = (rows.iter().map(|r| r.front).sum(), rows.iter().map(|r| r.back).sum());
    let worst_share = rows.iter().map(|r| r.back / r.front).fold(0.0, f64::max) * 100.0;
    let worst_cached = rows.iter().map(|r| r.cached).fold(0.0, f64::max);
    println!(
        "{:<11} {:>18.2} {:>13.2} {:>10.1}% {:>14.2} {:>16.3}",
        "total",
        front,
        back,
        100.0 * back / front,
        rows.iter().map(|r| r.cold).sum::<f64>(),
        rows.iter().map(|r| r.cached).sum::<f64>()
    );
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "\ntarget back end < 20 % of clang+llvm-spirv: worst {worst_share:.1} % ({})",
        verdict(worst_share < 20.0)
    );
    println!("target cached rebuild < 5 ms: worst {worst_cached:.3} ms ({})", verdict(worst_cached < 5.0));
}
