//! Round trips of real IR through the text form: every function lowered from the SPIR-V seed
//! modules in `fuzz/seeds/` (clang output checked into the repository, so no clang is needed)
//! and, when clang is installed, from a few OpenCL C kernels including soft-double calls —
//! checked after lowering and after each stage of the back end's pipeline.

use crate::compiler::ir::{parse::parse, print::print, Func};
use crate::compiler::{pass, spirv};
use std::path::Path;

/// `parse(print(f)) == f` and `print(parse(print(f))) == print(f)`.
fn round_trip(f: &Func, what: &str) {
    let text = print(f);
    let back = parse(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(print(&back), text, "{what}: print(parse(print(f))) differs");
    assert!(back == *f, "{what}: parse(print(f)) != f\n{text}");
}

/// A named stage of the pipeline.
type Step = (&'static str, fn(&mut Func));

/// Round-trips `f` at every stage of `compiler::back_end` up to instruction selection.
fn through_pipeline(mut f: Func, what: &str) -> usize {
    round_trip(&f, &format!("{what} (lowered)"));
    let steps: [Step; 5] = [
        ("unreachable_to_return", pass::simplify::unreachable_to_return),
        ("workitems", pass::workitems::lower),
        ("run", |f| pass::run(f).expect("pass::run")),
        ("legalize", |f| pass::legalize(f).expect("pass::legalize")),
        ("split_edges", pass::split_edges::split_critical_edges),
    ];
    for (name, step) in steps {
        step(&mut f);
        round_trip(&f, &format!("{what} (after {name})"));
    }
    steps.len() + 1
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn program(modules: &[Vec<u32>], what: &str) -> usize {
    let prog = spirv::lower_modules(modules).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut checked = 0;
    for k in prog.kernels {
        checked += through_pipeline(k.func, &format!("{what}: kernel {}", k.info.name));
    }
    for (_, f) in prog.subs {
        let name = f.name.clone();
        checked += through_pipeline(f, &format!("{what}: subroutine {name}"));
    }
    checked
}

#[test]
fn seed_modules_round_trip_at_every_stage() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("fuzz/seeds").flatten().map(|e| e.path()).collect();
    paths.retain(|p| p.extension().is_some_and(|x| x == "spv"));
    paths.sort();
    assert!(paths.len() >= 5, "seed modules missing in {}", dir.display());
    let mut checked = 0;
    for p in &paths {
        let bytes = std::fs::read(p).expect("read seed");
        checked += program(&[words(&bytes)], &p.display().to_string());
    }
    assert!(checked >= 30, "only {checked} functions checked");
}

/// Kernels that reach the ops the seeds lack (64-bit atomics, soft-double calls, work-item
/// functions of every kind, printf, barriers); skipped without clang.
#[test]
fn clang_kernels_round_trip_at_every_stage() {
    use crate::compiler::toolchain::{FrontOptions, Toolchain};
    let Ok(tc) = Toolchain::discover() else {
        eprintln!("clang not found: skipping");
        return;
    };
    let src = r#"
        #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        __kernel void wi(__global uint *o) {
            o[get_global_linear_id()] = get_local_linear_id() + get_num_groups(1) + get_local_size(2)
                + get_global_offset(0) + get_work_dim() + get_enqueued_local_size(1) + get_group_id(2);
        }
        __kernel void a64(__global long *p, long v, __local int *l) {
            atom_add(p, v);
            long old = atom_cmpxchg(p + 1, v, 7);
            l[get_local_id(0)] = (int)(old / v);
            barrier(CLK_LOCAL_MEM_FENCE);
            p[2] = l[0] << (v & 63);
            if (v == 3) printf("%ld\n", old);
        }
        __kernel void dbl(__global double *d, float x) {
            d[get_global_id(0)] = sqrt(d[1] * x) + sin(d[2]);
        }
    "#;
    let opts = FrontOptions { cl_std: Some("CL2.0".into()), ..FrontOptions::default() };
    let out = tc.compile(src, &opts, None).unwrap_or_else(|(e, log)| panic!("clang: {e}\n{log}"));
    let lib = crate::compiler::softlib::fp64_module().expect("soft-double library");
    let checked = program(&[out.spirv, lib.to_vec()], "clang kernels");
    assert!(checked > 18, "only {checked} functions checked (no soft-double subroutines?)");
    eprintln!("checked {checked} function stages");
}
