//! Soft double precision throughput: a kernel whose work-items each run a dependent chain of
//! `x = x * a + b` (one multiply and one add per iteration, contraction off) in `double` and,
//! for comparison, the same kernel in `float`. Prints double and float operations per second
//! per emulator thread (1 host thread) and their ratio, plus the dynamic warp instructions per
//! double operation. Also one math built-in (`exp`) per work-item, for scale, and the same
//! chain on uniform values (every work-item computes it from the kernel arguments: the
//! compiler calls the scalar variants of the soft-double routines, once per warp), and the chain
//! as `v = mad(v, a, b)` (one fused primitive per iteration, counted as two operations), and
//! the chain in `half`. 4,096 work-items × 2,000 iterations, the size issue 33 names.
//! Run with `cargo bench --bench fp64` (needs clang-15 and llvm-spirv-15); asserts nothing.

use std::time::Instant;
use ventus_icd::abi::launch::{pack_args, KernelArg, NdRange};
use ventus_icd::compiler::build::build_source;
use ventus_icd::device::{
    run as launch, Executable, Launch, LaunchOptions, LaunchStats, LoadOptions, Memory, Placement,
};

const GROUPS: u32 = 64;
const LOCAL: u32 = 64;
const ITERS: u32 = 2000;

fn source(t: &str, body: &str) -> String {
    source_from(t, "x[i]", body)
}

/// The kernel with `v` starting at `init` (`x[i]`: varying; `a`: uniform).
fn source_from(t: &str, init: &str, body: &str) -> String {
    format!(
        "#pragma OPENCL FP_CONTRACT OFF
        __kernel void k(__global {t} *x, {t} a, {t} b, int n) {{
            size_t i = get_global_id(0);
            {t} v = {init};
            {body}
            x[i] += v;
        }}"
    )
}

/// Builds `src`, runs kernel `k` over GROUPS × LOCAL work-items on one host thread; `native`:
/// with the soft-double primitives run natively (as the driver does, `VENTUS_NATIVE_FP64`).
/// Times the second launch (the first translates the program: its time is printed apart).
fn run(src: &str, elem: usize, scalar: Vec<u8>, native: bool) -> LaunchStats {
    let out = build_source(src, &Default::default(), &[]);
    let elf_bytes = out.result.unwrap_or_else(|e| panic!("build failed: {e}\n{}", out.log));
    let exec =
        Executable::load_with(&elf_bytes, LoadOptions { native_fp64: native, legacy_printf: false }).expect("loads");
    let kernel = exec.kernel_def("k").expect("kernel k");
    let mem = Memory::new();
    let n = (GROUPS * LOCAL) as usize;
    let buf = mem.alloc((n * elem) as u32, Placement::Plain).expect("buffer");
    let init: Vec<u8> = (0..n)
        .flat_map(|i| match elem {
            8 => (1.0 + i as f64 / 1e4).to_le_bytes().to_vec(),
            2 => half::f16::from_f32(1.0 + i as f32 / 1e4).to_le_bytes().to_vec(),
            _ => (1.0 + i as f32 / 1e4).to_le_bytes().to_vec(),
        })
        .collect();
    buf.write(buf.base(), &init);
    let args = pack_args(&[
        KernelArg::Pointer(buf.base()),
        KernelArg::Value(scalar[..elem].to_vec()),
        KernelArg::Value(scalar[elem..2 * elem].to_vec()),
        KernelArg::Value(ITERS.to_le_bytes().to_vec()),
    ])
    .expect("arguments fit");
    let l = Launch {
        exec: &exec,
        kernel,
        range: NdRange::whole_groups(1, [GROUPS, 1, 1], [LOCAL, 1, 1], [0; 3]),
        args: &args,
        globals: None,
        threads_per_warp: 32,
        mask_lanes: false,
        printer: None,
        grouping: Default::default(),
    };
    let opts = LaunchOptions { threads: 1, watchdog: 0, ..LaunchOptions::from_env() };
    // The first launch translates the program (once per program, kept with it): timed apart.
    let t = Instant::now();
    launch(&mem, &l, &opts).expect("launch");
    let first = t.elapsed();
    let t = Instant::now();
    let mut stats = launch(&mem, &l, &opts).expect("launch");
    stats.elapsed = t.elapsed();
    eprintln!("  (first launch of this kernel, translation included: {:.1} ms)", first.as_secs_f64() * 1e3);
    stats
}

/// A launch's M operations per second, milliseconds and warp instructions per operation (per
/// lane), for `ops` operations.
fn figures(s: &LaunchStats, ops: f64) -> (f64, f64, f64) {
    let t = s.elapsed.as_secs_f64();
    (ops / t / 1e6, t * 1e3, s.instructions as f64 * 32.0 / ops)
}

fn main() {
    // Measure the current compiler, not a cached build.
    std::env::set_var("VENTUS_CACHE", "0");
    let chain = "for (int k = 0; k < n; k++) v = v * a + b;";
    let mut ab64 = 0.999f64.to_le_bytes().to_vec();
    ab64.extend(0.001f64.to_le_bytes());
    let mut ab32 = 0.999f32.to_le_bytes().to_vec();
    ab32.extend(0.001f32.to_le_bytes());
    let ops = 2.0 * f64::from(ITERS) * f64::from(GROUPS * LOCAL);
    let d = run(&source("double", chain), 8, ab64.clone(), false);
    let f = run(&source("float", chain), 4, ab32, false);
    let (dr, fr) = (ops / d.elapsed.as_secs_f64(), ops / f.elapsed.as_secs_f64());
    println!("work-items {}, {} iterations of v = v*a + b (2 ops each), 1 emulator thread", GROUPS * LOCAL, ITERS);
    println!(
        "double: {:>10.3} M ops/s  {:>8.1} ms  {:>7.1} warp instructions per double op",
        dr / 1e6,
        d.elapsed.as_secs_f64() * 1e3,
        d.instructions as f64 * 32.0 / ops
    );
    println!(
        "float:  {:>10.3} M ops/s  {:>8.1} ms  {:>7.1} warp instructions per float op",
        fr / 1e6,
        f.elapsed.as_secs_f64() * 1e3,
        f.instructions as f64 * 32.0 / ops
    );
    println!("double/float throughput ratio: 1/{:.1}", fr / dr);
    let dn = run(&source("double", chain), 8, ab64.clone(), true);
    let (rate, ms, per_op) = figures(&dn, ops);
    println!(
        "double, primitives native: {rate:>10.3} M ops/s  {ms:>8.1} ms  {per_op:>7.1} warp instructions per double op ({:.1}x the code)",
        d.elapsed.as_secs_f64() / dn.elapsed.as_secs_f64()
    );
    println!(
        "double (primitives native, the default)/float time ratio: {:.1}",
        dn.elapsed.as_secs_f64() / f.elapsed.as_secs_f64()
    );
    // The same chain in half (cl_khr_fp16): float arithmetic with a rounding step per operation.
    let mut ab16 = half::f16::from_f32(0.999).to_le_bytes().to_vec();
    ab16.extend(half::f16::from_f32(0.001).to_le_bytes());
    let h = run(&format!("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n{}", source("half", chain)), 2, ab16, true);
    let (rate, ms, per_op) = figures(&h, ops);
    println!(
        "half:   {rate:>10.3} M ops/s  {ms:>8.1} ms  {per_op:>7.1} warp instructions per half op; half/float time ratio {:.1}",
        h.elapsed.as_secs_f64() / f.elapsed.as_secs_f64()
    );
    // `mad`/`fma` built-ins: one primitive call per iteration (the library's `__vt_d_mad` ran
    // one lane at a time natively before the compiler called the primitive itself).
    let mad = run(&source("double", "for (int k = 0; k < n; k++) v = mad(v, a, b);"), 8, ab64.clone(), true);
    println!(
        "double mad(v, a, b), primitives native: {:>10.3} M ops/s  {:>8.1} ms  {:>7.1} warp instructions per op",
        ops / mad.elapsed.as_secs_f64() / 1e6,
        mad.elapsed.as_secs_f64() * 1e3,
        mad.instructions as f64 * 32.0 / ops
    );
    for native in [false, true] {
        let u = run(&source_from("double", "a", chain), 8, ab64.clone(), native);
        println!(
            "uniform double{}: {:>8.3} M ops/s per work-item result  {:>8.1} ms  {:>7.1} warp instructions per op \
             (scalar variants, once per warp: {:.1}x the varying chain as code)",
            if native { ", primitives native" } else { "" },
            ops / u.elapsed.as_secs_f64() / 1e6,
            u.elapsed.as_secs_f64() * 1e3,
            u.instructions as f64 * 32.0 / ops,
            d.elapsed.as_secs_f64() / u.elapsed.as_secs_f64()
        );
    }
    let exp_src = source("double", "for (int k = 0; k < 8; k++) v = exp(v * a) + b;");
    let calls = 8.0 * f64::from(GROUPS * LOCAL);
    for native in [false, true] {
        let e = run(&exp_src, 8, ab64.clone(), native);
        println!(
            "double exp{}: {:>8.3} M calls/s, {:.0} warp instructions per call (per lane)",
            if native { ", primitives native" } else { "" },
            calls / e.elapsed.as_secs_f64() / 1e6,
            e.instructions as f64 * 32.0 / calls
        );
    }
}
