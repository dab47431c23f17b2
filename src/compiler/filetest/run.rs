//! The run kinds of a filetest (`; run: KIND [ARGS]`): each parses the input IR, runs one stage
//! of the compiler and returns its output as text. Failures of the stage (parse errors,
//! `CompileError`s, verifier errors, panics) are output too, so they can be expected.
//!
//! | kind | output |
//! |---|---|
//! | `print` | the parsed IR printed back (the text form itself) |
//! | `verify` | `ok` or the verifier's error |
//! | `pass P…` | the IR after the named passes, in order (see [`pass`]) |
//! | `pipeline` | the IR as instruction selection gets it: `pass::run`, `pass::legalize`, `split_edges` |
//! | `run` / `legalize` | the IR after `pass::run` / `pass::legalize` (with their clean-ups) |
//! | `uniformity` | divergent values, divergent branches with reconvergence blocks, joins |
//! | `isel` / `regalloc` | machine IR after selection / allocation (`target::call::level_of` the name) |
//! | `asm` | the assembly `target::emit` produces (its typed form checked to assemble like its text) |
//! | `spirv` | (SPIR-V assembly input, [`super::spirv`]) the front end's IR and kernel metadata |

use super::mir;
use crate::compiler::ir::{self, Func};
use crate::compiler::pass::{self, simplify};
use crate::compiler::target::{call, emit, isel, regalloc};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs the file's `; run:` line on its input; `Err` for a malformed file.
pub fn run_file(input: &str) -> Result<String, String> {
    let runs: Vec<&str> = input.lines().filter_map(|l| l.trim().strip_prefix("; run:")).map(str::trim).collect();
    let [spec] = runs.as_slice() else {
        return Err(format!("expected exactly one `; run:` line, found {}", runs.len()));
    };
    let mut words = spec.split_whitespace();
    let kind = words.next().unwrap_or("");
    let args: Vec<&str> = words.collect();
    let known =
        ["print", "verify", "pass", "pipeline", "run", "legalize", "uniformity", "isel", "regalloc", "asm", "spirv"];
    if !known.contains(&kind) {
        return Err(format!("unknown run kind `{kind}` (one of {})", known.join(", ")));
    }
    if kind == "spirv" {
        return super::spirv::run(input);
    }
    if kind == "pass" && args.is_empty() {
        return Err("`; run: pass` needs pass names".into());
    }
    let mut f = match ir::parse::parse(input) {
        Ok(f) => f,
        Err(e) => return Ok(format!("parse error: {e}\n")),
    };
    match catch_unwind(AssertUnwindSafe(|| stage(kind, &args, &mut f))) {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Ok(format!("error: {e}\n")),
        Err(p) => {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            Ok(format!("panic: {}\n", msg.unwrap_or_default()))
        }
    }
}

/// The IR, followed by the verifier's complaint if it has one.
fn ir_out(f: &Func) -> String {
    let mut s = ir::print::print(f);
    if let Err(e) = ir::verify::verify(f) {
        s.push_str(&format!("; verify: {}\n", e.0));
    }
    s
}

/// Runs pass `name` (`simplify::` may be omitted).
fn pass(f: &mut Func, name: &str) -> Result<(), String> {
    match name.strip_prefix("simplify::").unwrap_or(name) {
        "fold" => simplify::fold(f),
        "dce" => simplify::dce(f),
        "merge_blocks" => simplify::merge_blocks(f),
        "unreachable_to_return" => simplify::unreachable_to_return(f),
        "compact" => simplify::compact(f),
        "workitems" => pass::workitems::lower(f),
        "mem2reg" => {
            pass::mem2reg::promote(f);
        }
        "legalize64" => pass::legalize64::legalize(f).map_err(|e| e.to_string())?,
        "narrow64" => {
            pass::narrow64::run(f);
        }
        "half" => {
            pass::half::run(f);
        }
        "half_rewrite" => {
            pass::half::rewrite(f);
        }
        "split_edges" => pass::split_edges::split_critical_edges(f),
        "cse" => {
            pass::cse::run(f);
        }
        "reassoc" => {
            pass::reassoc::run(f);
        }
        other => return Err(format!("unknown pass `{other}`")),
    }
    Ok(())
}

fn stage(kind: &str, args: &[&str], f: &mut Func) -> Result<String, String> {
    let e = |e: crate::compiler::CompileError| e.to_string();
    Ok(match kind {
        "print" => ir::print::print(f),
        "verify" => match ir::verify::verify(f) {
            Ok(()) => "ok\n".into(),
            Err(e) => format!("verify error: {}\n", e.0),
        },
        "pass" => {
            for p in args {
                pass(f, p)?;
            }
            ir_out(f)
        }
        "run" => {
            pass::run(f).map_err(e)?;
            ir_out(f)
        }
        "legalize" => {
            pass::legalize(f).map_err(e)?;
            ir_out(f)
        }
        "pipeline" => {
            pass::run(f).map_err(e)?;
            pass::legalize(f).map_err(e)?;
            pass::split_edges::split_critical_edges(f);
            ir_out(f)
        }
        "uniformity" => uniformity(f)?,
        _ => backend(kind, f)?,
    })
}

fn uniformity(f: &Func) -> Result<String, String> {
    let u = pass::uniformity::analyze(f).map_err(|e| e.to_string())?;
    let div: Vec<String> = (0..u.divergent.len()).filter(|v| u.divergent[*v]).map(|v| format!("%{v}")).collect();
    let br: Vec<String> = u.branches.iter().map(|(b, p)| format!("b{} -> b{}", b.0, p.0)).collect();
    let joins: Vec<String> = (0..u.joins.len()).filter(|b| u.joins[*b]).map(|b| format!("b{b}")).collect();
    Ok(format!(
        "divergent: {}\nbranches: {}\njoins: {}\nbarrier in divergent flow: {}\n",
        div.join(" "),
        br.join(", "),
        joins.join(" "),
        u.barrier_in_divergent_flow
    ))
}

/// `isel`, `regalloc`, `asm`: the back end on the input as is.
fn backend(kind: &str, f: &Func) -> Result<String, String> {
    let e = |e: crate::compiler::CompileError| e.to_string();
    let u = pass::uniformity::analyze(f).map_err(e)?;
    let level = call::level_of(&f.name).unwrap_or(0);
    let mut m = isel::select(f, &u, level).map_err(e)?;
    if kind == "isel" {
        return Ok(mir::print(&m));
    }
    let frame = regalloc::allocate(&mut m, 0).map_err(e)?;
    if kind == "regalloc" {
        return Ok(format!("{}frame private={} stack={}\n", mir::print(&m), frame.private, frame.stack));
    }
    let listing = emit::emit(&m, &crate::compiler::label_prefix(&f.name, 0)).map_err(e)?;
    let text = listing.to_string();
    // The output is the text; the linker assembles the listing itself: both must agree.
    Ok(match assembles_like_text(&listing, &text) {
        Ok(()) => text,
        Err(why) => format!("{text}; the typed assembly differs from its text: {why}\n"),
    })
}

/// Assembles `listing` directly and as `text` (with every symbol it names but does not
/// define placed at one address, as a linker would) and compares the programs.
fn assembles_like_text(listing: &crate::isa::asm::Listing, text: &str) -> Result<(), String> {
    const BASE: u32 = 0x8000_0100;
    const OUTSIDE: u32 = 0x9000_0000;
    let named = listing.external_symbols();
    let external = |n: &str| named.contains(&n).then_some(OUTSIDE);
    let typed = listing.assemble(BASE, &external).map_err(|e| format!("typed: {e}"))?;
    let equs: String = named.iter().map(|n| format!(".equ {n}, {OUTSIDE:#x}\n")).collect();
    let parsed = crate::isa::asm::assemble(&format!("{text}{equs}"), BASE).map_err(|e| format!("text: {e}"))?;
    if typed == parsed {
        Ok(())
    } else {
        Err(format!("words {:x?} vs {:x?}", typed.words, parsed.words))
    }
}
