//! Real OpenCL programs through our ICD and through pocl in the same run (issue 33's suite):
//! each program as an application runs it — buffers created and filled, its kernels launched as
//! often as its algorithm needs (many small launches, iterated stencils, host loops that read a
//! flag back), results read back — timed as **process CPU time** (`getrusage`, every thread of
//! the process: our emulator threads, pocl's pool) and **wall time**; the program's build is not
//! timed (it is the `build` and `vs_pocl` benchmarks' subject).
//!
//! The programs are our own OpenCL C, written after the kinds of applications users run
//! (Rodinia-style Gaussian elimination, thermal stencil, speckle-reducing diffusion, BFS; a Haar
//! wavelet, a tiled n-body, a Blelloch scan, local-atomic histograms, Black-Scholes in float and
//! double, a counter-based random-number generator with Box–Muller): see each module.
//!
//! Every run's output is checked against a host computation of the same algorithm and, when pocl
//! is installed, the two drivers' outputs against each other (a wrong result makes a figure
//! meaningless: the benchmark panics).
//!
//! `cargo bench --bench apps [names]` runs each program [`runs()`] times interleaved (ours,
//! pocl, ours, …) and prints medians; `APPS_RUNS=n` changes the count, `APPS_FULL=1` selects the
//! issue's acceptance sizes (a 1,536² elimination, a 512² stencil iterated 2,000 times, …:
//! minutes), `VENTUS_THREADS` our emulator threads. Asserts nothing about time.
#![allow(clippy::missing_safety_doc)]

#[path = "../../tests/common/cl.rs"]
#[allow(unused_imports)]
mod cl;
#[path = "../common/pair.rs"]
#[allow(dead_code)]
mod pair;

mod grids;
mod particles;
mod primitives;
mod solvers;

use pair::*;
use std::time::{Duration, Instant};

/// Problem sizes: the default (each program a few seconds at most on our side) or the issue's
/// acceptance sizes (`APPS_FULL=1`).
#[derive(Clone, Copy)]
pub struct Scale {
    pub full: bool,
}

impl Scale {
    /// `default` normally, `full` under `APPS_FULL=1`.
    pub fn pick<T>(self, default: T, full: T) -> T {
        if self.full {
            full
        } else {
            default
        }
    }
}

/// One program of the suite.
pub struct App {
    /// Name on the command line.
    pub key: &'static str,
    /// What it is, with its size.
    pub what: fn(Scale) -> String,
    /// Its OpenCL C (built once per driver, untimed).
    pub source: &'static str,
    /// Runs it on a driver (buffers, launches, reads) and returns its output.
    pub run: fn(&Target, cl::cl_program, Scale) -> Vec<f64>,
    /// The same algorithm on the host.
    pub reference: fn(Scale) -> Vec<f64>,
    /// Largest accepted |got − want| / max(|want|, 1).
    pub tolerance: f64,
}

fn runs() -> usize {
    std::env::var("APPS_RUNS").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(3)
}

/// CPU time (user + system) of every thread of this process so far.
fn cpu_time() -> Duration {
    // SAFETY: an all-zero `rusage` is a valid value; getrusage fills it.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    assert_eq!(rc, 0, "getrusage");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// One timed run: (CPU, wall, output).
fn timed(app: &App, t: &Target, program: cl::cl_program, scale: Scale) -> (Duration, Duration, Vec<f64>) {
    let (c0, w0) = (cpu_time(), Instant::now());
    let out = (app.run)(t, program, scale);
    (cpu_time() - c0, w0.elapsed(), out)
}

/// Panics unless every element of `got` is within the tolerance of `want`.
fn compare(what: &str, got: &[f64], want: &[f64], tolerance: f64) {
    assert_eq!(got.len(), want.len(), "{what}: output length");
    let mut worst = (0.0f64, 0usize);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let e = (g - w).abs() / w.abs().max(1.0);
        if e.is_nan() || e > worst.0 {
            worst = (if e.is_nan() { f64::INFINITY } else { e }, i);
        }
    }
    let (e, i) = worst;
    assert!(
        e <= tolerance,
        "{what}: element {i}: got {}, want {} (relative error {e:e} > {tolerance:e})",
        got[i],
        want[i]
    );
}

fn apps() -> Vec<App> {
    let mut v = Vec::new();
    v.extend(solvers::apps());
    v.extend(grids::apps());
    v.extend(particles::apps());
    v.extend(primitives::apps());
    v
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let scale = Scale { full: std::env::var("APPS_FULL").is_ok_and(|v| v != "0") };
    let (ours, pocl) = open_pair("", c"");
    let threads = std::env::var("VENTUS_THREADS").unwrap_or_else(|_| "default".into());
    println!(
        "apps: VENTUS_THREADS={threads}, {} interleaved runs, medians, {} sizes",
        runs(),
        if scale.full { "full (APPS_FULL)" } else { "default" }
    );
    if pocl.is_none() {
        println!("(pocl is not installed: only our figures)");
    }
    println!(
        "{:<52} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "program", "ours CPU", "ours wall", "pocl CPU", "pocl wall", "CPU ratio"
    );
    let mut ratios = Vec::new();
    for app in apps() {
        if !filter.is_empty() && !filter.iter().any(|x| x == app.key) {
            continue;
        }
        let want = (app.reference)(scale);
        let targets: Vec<(&Target, cl::cl_program)> =
            std::iter::once(&ours).chain(pocl.as_ref()).map(|t| (t, t.build(app.source, c"-cl-std=CL1.2"))).collect();
        let mut figures: Vec<(Vec<Duration>, Vec<Duration>)> = vec![(Vec::new(), Vec::new()); targets.len()];
        let mut outputs: Vec<Option<Vec<f64>>> = vec![None; targets.len()];
        for _ in 0..runs() {
            for (i, &(t, program)) in targets.iter().enumerate() {
                let (cpu, wall, out) = timed(&app, t, program, scale);
                compare(&format!("{} on {}", app.key, t.name), &out, &want, app.tolerance);
                figures[i].0.push(cpu);
                figures[i].1.push(wall);
                outputs[i].get_or_insert(out);
            }
        }
        if let [Some(a), Some(b)] = &outputs[..] {
            compare(&format!("{}: ours against pocl", app.key), a, b, 2.0 * app.tolerance);
        }
        let med: Vec<(Duration, Duration)> = figures.into_iter().map(|(c, w)| (median(c), median(w))).collect();
        let ratio = med.get(1).map(|p| med[0].0.as_secs_f64() / p.0.as_secs_f64());
        ratios.extend(ratio);
        let cell = |i: usize, wall: bool| med.get(i).map_or("-".into(), |m| fmt(if wall { m.1 } else { m.0 }));
        println!(
            "{:<52} {:>10} {:>10} {:>10} {:>10} {:>9}",
            (app.what)(scale),
            cell(0, false),
            cell(0, true),
            cell(1, false),
            cell(1, true),
            ratio.map_or("-".into(), |r| format!("{r:.1}×"))
        );
        for (_, program) in targets {
            // SAFETY: a program this benchmark built and no longer uses.
            unsafe { (cl_api().clReleaseProgram)(program) };
        }
    }
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        println!(
            "CPU time ours / pocl: median {:.1}×, largest {:.1}× (targets: median ≤ 2×, each ≤ 3×)",
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1]
        );
    }
}
