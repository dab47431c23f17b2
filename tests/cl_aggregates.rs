//! Aggregates passed and returned by value (structs with mixed members and padding, arrays in
//! structs, unions, vectors of 3, packed structs, pointer members; one and several call levels,
//! inlined by clang and not, `volatile` and not): `tests/kernels/aggregates.cl` is compiled for
//! the device through the ICD loader and for the host by clang-15, and every case must give the
//! host's result for every input, with and without optimisation (`-cl-opt-disable`).
//!
//! The first case is piglit's `program@execute@calls-struct` "small struct in regs": a callee
//! that changed its by-value copy used to change the caller's object (LLVM's `byval` pointer
//! parameter was inlined as the caller's own pointer).

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;
use std::io::Write;
use std::process::{Command, Stdio};

const SOURCE: &str = include_str!("kernels/aggregates.cl");
/// Work-items (inputs): two work-groups of two warps.
const N: usize = 128;

/// The number of cases (`NCASES` in the source).
fn ncases() -> usize {
    let line = SOURCE.lines().find(|l| l.starts_with("#define NCASES")).expect("NCASES defined");
    line.split_whitespace().nth(2).and_then(|n| n.parse().ok()).expect("NCASES is a number")
}

/// Every case's result for every input, computed by the host build of the source.
fn host_results(inputs: &[i32], opt: &str) -> Vec<i32> {
    let dir = std::env::temp_dir().join(format!("ventus-aggregates-{}{opt}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("aggregates");
    let cc = Command::new("clang-15")
        .args([opt, "-w", "-x", "c"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/aggregates.cl"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("clang-15 (installed by the README's test command) runs");
    assert!(cc.status.success(), "host build failed:\n{}", String::from_utf8_lossy(&cc.stderr));
    let mut child = Command::new(&exe).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let text: String = inputs.iter().map(|x| format!("{x}\n")).collect();
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().split_whitespace().map(|w| w.parse().unwrap()).collect()
}

fn check(options: &str, host_opt: &str) {
    let cases = ncases();
    assert!(cases >= 20, "at least 20 cases");
    let mut inputs = Rng(77).i32s(N - 4, -500, 500);
    inputs.extend([0, 1, -1, 499]);
    let want = host_results(&inputs, host_opt);
    assert_eq!(want.len(), N * cases, "host results");
    let out = run_source(SOURCE, options, "aggregates", &[N], Some(&[64]), None, &[buf(&inputs), zeros(4 * N * cases)]);
    let got: Vec<i32> = read(&out[1]);
    let mut wrong = Vec::new();
    for c in 0..cases {
        let bad: Vec<String> = (0..N)
            .filter(|&i| got[i * cases + c] != want[i * cases + c])
            .take(3)
            .map(|i| format!("x={} got {} want {}", inputs[i], got[i * cases + c], want[i * cases + c]))
            .collect();
        if !bad.is_empty() {
            wrong.push(format!("c{:02}: {}", c + 1, bad.join("; ")));
        }
    }
    assert!(wrong.is_empty(), "options {options:?}: cases differing from the host:\n{}", wrong.join("\n"));
}

#[test]
fn aggregates_by_value_match_the_host() {
    check("", "-O2");
}

#[test]
fn aggregates_by_value_match_the_host_unoptimised() {
    check("-cl-opt-disable", "-O0");
}
