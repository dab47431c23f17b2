//! Malformed SPIR-V must produce a `CompileError`, never a panic or a hang.
//!
//! Deterministic companion of the `fuzz/` cargo-fuzz target `spirv_frontend`: every reproducer in
//! `tests/fixtures/spirv-crashers/` (minimised fuzzer findings) and a few thousand seeded random
//! mutations (inline xorshift, fixed seed) of the seed modules in `fuzz/seeds/` go through
//! `compile_spirv`. Each input runs on a thread named after it, which the test thread watches
//! with a per-input deadline, so a hang fails the test (naming the input) instead of stalling CI.
//! A failing mutated input is written to the temp directory so that it can be replayed with
//! `cargo fuzz run spirv_frontend FILE`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use ventus_icd::compiler::compile_spirv;

const MAGIC: u32 = 0x0723_0203;
/// How many mutated modules to try in total (spread over the seeds).
const MUTATIONS: usize = 5000;
/// A single input that takes longer than this is reported as a hang.
const PER_INPUT_DEADLINE: Duration = Duration::from_secs(10);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn spv_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "spv"))
            .map(|p| (p.display().to_string(), std::fs::read(&p).expect("read fixture")))
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// (start, word count) of each instruction after the 5-word header, as far as the stream parses.
fn instructions(w: &[u32]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < w.len() {
        let wc = (w[i] >> 16) as usize;
        if wc == 0 || i + wc > w.len() {
            break;
        }
        out.push((i, wc));
        i += wc;
    }
    out
}

/// One random, mostly structure-aware mutation.
fn mutate(w: &mut Vec<u32>, rng: &mut Rng) {
    let bound = w.get(3).copied().unwrap_or(64).clamp(2, 1 << 16) as usize;
    let insts = instructions(w);
    let pick_inst = |rng: &mut Rng| insts.get(rng.below(insts.len())).copied();
    match rng.below(11) {
        // Flip one bit anywhere (header included).
        0 => {
            let i = rng.below(w.len());
            if let Some(x) = w.get_mut(i) {
                *x ^= 1 << rng.below(32);
            }
        }
        // An interesting value in a random word (not the magic).
        1 => {
            const VALS: [u32; 9] = [0, 1, 2, 3, 0xffff_ffff, 0x7fff_ffff, 0x8000_0000, 0xffff, 0x1_0000];
            let i = 1 + rng.below(w.len().saturating_sub(1));
            if let Some(x) = w.get_mut(i) {
                *x = VALS[rng.below(VALS.len())];
            }
        }
        // Replace an operand of an instruction with another id (or a near-bound id).
        2 | 3 => {
            if let Some((s, wc)) = pick_inst(rng) {
                if wc > 1 {
                    let id = if rng.below(8) == 0 { bound + rng.below(3) - 1 } else { 1 + rng.below(bound - 1) };
                    w[s + 1 + rng.below(wc - 1)] = id as u32;
                }
            }
        }
        // Change an instruction's opcode to another opcode seen in the module (or any).
        4 => {
            if let (Some((s, _)), Some((o, _))) = (pick_inst(rng), pick_inst(rng)) {
                let op = if rng.below(4) == 0 { rng.below(420) as u32 } else { w[o] & 0xffff };
                w[s] = (w[s] & 0xffff_0000) | op;
            }
        }
        // Change an instruction's word count (shrinks or grows it, shifting later parses).
        5 => {
            if let Some((s, wc)) = pick_inst(rng) {
                let new = (wc + rng.below(4)).saturating_sub(2).min(0xffff);
                w[s] = (w[s] & 0xffff) | ((new as u32) << 16);
            }
        }
        // Delete an instruction.
        6 | 7 => {
            if let Some((s, wc)) = pick_inst(rng) {
                w.drain(s..s + wc);
            }
        }
        // Duplicate an instruction somewhere else (instruction boundary).
        8 => {
            if let (Some((s, wc)), Some((d, _))) = (pick_inst(rng), pick_inst(rng)) {
                let copy: Vec<u32> = w[s..s + wc].to_vec();
                w.splice(d..d, copy);
            }
        }
        // Swap two instructions.
        9 => {
            if let (Some(a), Some(b)) = (pick_inst(rng), pick_inst(rng)) {
                let (a, b) = if a.0 <= b.0 { (a, b) } else { (b, a) };
                if a.0 + a.1 <= b.0 {
                    let mut v = w[..a.0].to_vec();
                    v.extend_from_slice(&w[b.0..b.0 + b.1]);
                    v.extend_from_slice(&w[a.0 + a.1..b.0]);
                    v.extend_from_slice(&w[a.0..a.0 + a.1]);
                    v.extend_from_slice(&w[b.0 + b.1..]);
                    *w = v;
                }
            }
        }
        // Truncate.
        _ => {
            let n = rng.below(w.len() + 1);
            w.truncate(n);
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".into())
}

/// Runs every input through `compile_spirv`, each on its own thread named after the input (so even
/// a stack overflow, which aborts the process, names it: "thread '<input>' has overflowed its
/// stack"), watched with a deadline; returns the failures.
fn run_all(inputs: Vec<(String, Vec<u32>)>) -> Vec<String> {
    let mut failures = Vec::new();
    for (label, words) in inputs {
        let (tx, rx) = mpsc::channel::<Option<String>>();
        let w = words.clone();
        std::thread::Builder::new()
            .name(label.clone())
            .spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| {
                    let _ = compile_spirv(&w);
                }));
                let _ = tx.send(r.err().map(|p| panic_message(&*p)));
            })
            .expect("spawn worker");
        match rx.recv_timeout(PER_INPUT_DEADLINE) {
            Ok(None) => {}
            Ok(Some(msg)) => failures.push(report(&(label, words), &format!("panicked: {msg}"))),
            Err(_) => {
                failures.push(report(&(label, words), &format!("no result within {PER_INPUT_DEADLINE:?} (hang?)")));
                break; // that thread is stuck; it is abandoned and dies with the process
            }
        }
    }
    failures
}

fn report((label, words): &(String, Vec<u32>), what: &str) -> String {
    let mut s = format!("{label}: {what}");
    if label.starts_with("mutation") {
        let file = std::env::temp_dir()
            .join(format!("spirv-malformed-{}.spv", label.trim_end_matches(".spv").replace(['/', ' ', '#'], "_")));
        if std::fs::write(&file, bytes_of(words)).is_ok() {
            s.push_str(&format!(" [input saved to {}]", file.display()));
        }
    }
    s
}

#[test]
fn saved_crashers_return_without_panicking() {
    let files = spv_files(&root().join("tests/fixtures/spirv-crashers"));
    let inputs: Vec<(String, Vec<u32>)> = files
        .into_iter()
        .flat_map(|(name, bytes)| {
            // The fuzz target also runs header-less inputs behind a valid header: do the same.
            let w = words_of(&bytes);
            let mut v = vec![(name.clone(), w.clone())];
            if w.first() != Some(&MAGIC) {
                let mut h = vec![MAGIC, 0x0001_0000, 0x0006_000e, 0x0000_1000, 0];
                h.extend_from_slice(&w);
                v.push((format!("{name} (behind a header)"), h));
            }
            v
        })
        .collect();
    let failures = run_all(inputs);
    assert!(failures.is_empty(), "{} crasher(s) still fail:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn seeded_mutations_of_seed_modules_return_without_panicking() {
    let seeds = spv_files(&root().join("fuzz/seeds"));
    assert!(seeds.len() >= 3, "expected the seed modules in fuzz/seeds/");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inputs: Vec<(String, Vec<u32>)> = Vec::new();
    for (name, bytes) in &seeds {
        inputs.push((name.clone(), words_of(bytes)));
    }
    for k in 0..MUTATIONS {
        let (name, bytes) = &seeds[k % seeds.len()];
        let mut w = words_of(bytes);
        for _ in 0..1 + rng.below(3) {
            mutate(&mut w, &mut rng);
        }
        let short = Path::new(name).file_name().unwrap().to_string_lossy().into_owned();
        inputs.push((format!("mutation #{k} of {short}"), w));
    }
    let failures = run_all(inputs);
    assert!(failures.is_empty(), "{} input(s) panicked or hung:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn bad_headers_are_invalid_spirv() {
    // Issue 37: a bogus version word or an id bound of 0 was accepted and built.
    let seeds = spv_files(&root().join("fuzz/seeds"));
    let good = words_of(&seeds[0].1);
    assert!(compile_spirv(&good).is_ok(), "{}: the seed builds", seeds[0].0);
    let cases: [(usize, u32, &str); 6] = [
        (0, 0x0302_2307, "magic number"),
        (1, 0xdead_beef, "version word 0xdeadbeef"),
        (1, 0x0002_0000, "version word 0x00020000"),
        (1, 0x0001_0700, "version word 0x00010700"),
        (3, 0, "id bound 0"),
        (3, 2, "is not below the header's id bound 2"),
    ];
    for (at, value, want) in cases {
        let mut w = good.clone();
        w[at] = value;
        match compile_spirv(&w) {
            Ok(_) => panic!("header word {at} = {value:#x} was accepted"),
            Err(e) => assert!(e.to_string().contains(want), "word {at} = {value:#x}: {e}"),
        }
    }
    let mut w = good.clone();
    w[4] = 1;
    assert!(compile_spirv(&w).unwrap_err().to_string().contains("schema"));
}
