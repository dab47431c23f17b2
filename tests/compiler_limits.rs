//! Kernels that stress the compiler's limits, found with real-world code (pyopencl's scan and
//! radix-sort kernels): conditional branches whose targets lie beyond the ±4 KiB reach of a
//! B-type offset, more live vector values than registers plus one KiB of spill slots, undefined
//! values (uninitialised variables at -O0), and `freeze` instructions that llvm-spirv 15 rejects.
//! Every kernel is checked against a host reference.

mod cc;
use cc::*;

/// `terms` chained float updates: far more than 4 KiB of code in one straight line.
fn long_body(terms: usize) -> String {
    (0..terms).map(|k| format!("x = x * 0.999f + (float)({k} % 7) * y;\n")).collect()
}

fn long_body_ref(mut x: f32, y: f32, terms: usize) -> f32 {
    for k in 0..terms {
        x = x * 0.999 + (k % 7) as f32 * y;
    }
    x
}

#[test]
#[allow(clippy::needless_range_loop)]
fn branches_reach_targets_beyond_four_kib() {
    // A divergent if/else and a uniform loop, each around ~10 KiB of code.
    let body = long_body(600);
    let src = format!(
        "__kernel void k(__global float *out, int n) {{
            int i = get_global_id(0); float x = (float)i, y = 0.25f;
            if (i % 3 == 0) {{ {body} }} else {{ x = -x; }}
            for (int r = 0; r < n; r++) {{ y = y + 0.5f; {body} }}
            out[i] = x; }}"
    );
    let c = compile(&src, "");
    assert!(c.asm().contains("_far0:"), "expected a trampoline for a far branch");
    let out = run_compiled(&c, "k", &[64], &[32], &[zeros(4 * 64), val_i32(2)], 1).bufs;
    let got = as_f32(&out[0]);
    for i in 0..64 {
        let mut x = if i % 3 == 0 { long_body_ref(i as f32, 0.25, 600) } else { -(i as f32) };
        let mut y = 0.25f32;
        for _ in 0..2 {
            y += 0.5;
            x = long_body_ref(x, y, 600);
        }
        let tol = 1e-4 * x.abs().max(1.0);
        assert!((got[i] - x).abs() <= tol, "i={i}: {} vs {x}", got[i]);
    }
}

#[test]
fn more_live_vector_values_than_registers_and_four_kib_of_slots() {
    // 1300 divergent values are all live at once (summed in reverse order after all loads):
    // their spill slots need more than the official 4 KiB of private memory per work-item.
    let n = 1300;
    let loads: String = (0..n).map(|k| format!("float v{k} = a[(i + {k}) % 1024] * {}.0f;\n", k % 5 + 1)).collect();
    let sum: String = (0..n).rev().map(|k| format!("s = s * 0.5f + v{k};\n")).collect();
    let src = format!(
        "__kernel void k(__global const float *a, __global float *out) {{
            int i = get_global_id(0); {loads} float s = 0.0f; {sum} out[i] = s; }}"
    );
    let a: Vec<f32> = (0..1024).map(|k| ((k * 37) % 101) as f32 / 16.0).collect();
    let out = run(&src, "k", &[32], &[32], &[f32s(&a), zeros(4 * 32)]);
    let got = as_f32(&out[1]);
    for i in 0..32 {
        let mut s = 0f32;
        for k in (0..n).rev() {
            s = s * 0.5 + a[(i + k) % 1024] * (k % 5 + 1) as f32;
        }
        assert_eq!(got[i], s, "i={i}");
    }
}

/// A 40,000-byte private array (pocl's `for_bug` has 60,000) puts every vector spill slot past
/// the fixed slot-base windows: those slots are reached through a base set per access.
#[test]
fn spill_slots_behind_a_large_private_array() {
    let n = 400;
    let loads: String = (0..n).map(|k| format!("float v{k} = a[(i + {k}) % 1024] * {}.0f;\n", k % 5 + 1)).collect();
    let sum: String = (0..n).rev().map(|k| format!("s = s * 0.5f + v{k};\n")).collect();
    let src = format!(
        "__kernel void k(__global const float *a, __global float *out) {{
            int i = get_global_id(0); volatile float big[10000];
            for (int j = 0; j < 10000; j += 97) big[j] = a[j % 1024] + (float)i;
            {loads} float s = 0.0f; {sum}
            out[i] = s + big[(i * 97) % 10000]; }}"
    );
    let a: Vec<f32> = (0..1024).map(|k| ((k * 37) % 101) as f32 / 16.0).collect();
    let out = run(&src, "k", &[64], &[32], &[f32s(&a), zeros(4 * 64)]);
    let got = as_f32(&out[1]);
    for (i, &g) in got.iter().enumerate() {
        let mut s = 0f32;
        for k in (0..n).rev() {
            s = s * 0.5 + a[(i + k) % 1024] * (k % 5 + 1) as f32;
        }
        let j = (i * 97) % 10000;
        assert_eq!(g, s + (a[j % 1024] + i as f32), "i={i}");
    }
}

#[test]
fn many_uninitialised_variables_at_o0() {
    // Each variable is undefined on the loop's first entry; left without a definition, its
    // register would be live from the kernel's entry, and 400 of them do not fit.
    let n = 150;
    let decls: String = (0..n).map(|k| format!("int u{k}; float d{k};\n")).collect();
    let first: String = (0..n).map(|k| format!("u{k} = {k} + m; d{k} = (float)(i + {k});\n")).collect();
    let acc: String = (0..n).map(|k| format!("s += u{k} * (int)d{k};\n")).collect();
    let src = format!(
        "__kernel void k(__global int *out, int m) {{
            int i = get_global_id(0); int s = 0; {decls}
            for (int r = 0; r < 2; r++) {{ if (r == 0) {{ {first} }} {acc} }}
            out[i] = s; }}"
    );
    let c = compile(&src, "-cl-opt-disable");
    let out = run_compiled(&c, "k", &[32], &[32], &[zeros(4 * 32), val_i32(3)], 1).bufs;
    let got = as_i32(&out[0]);
    for i in 0..32i32 {
        let one: i32 = (0..n).map(|k: i32| (k + 3).wrapping_mul(i + k)).fold(0, i32::wrapping_add);
        assert_eq!(got[i as usize], one.wrapping_mul(2), "i={i}");
    }
}

#[test]
fn freeze_from_div_rem_pairs_keeps_o2() {
    // x / 8 and x % 8 of the same x: LLVM's DivRemPairs rewrites the remainder with a freeze.
    let src = "__kernel void k(__global const int *a, __global int *q, __global int *r) {
        int i = get_global_id(0); int x = a[i] + i;
        int d = x / 8; q[i] = d; r[i] = x - d * 8 + (x % 8) * 100; }";
    let front = front(src, "");
    assert!(!front.log.contains("-O0"), "must not fall back to -O0:\n{}", front.log);
    let a: Vec<i32> = (0..64).map(|k| k * 77 - 2000).collect();
    let out = run(src, "k", &[64], &[32], &[i32s(&a), zeros(4 * 64), zeros(4 * 64)]);
    let (q, r) = (as_i32(&out[1]), as_i32(&out[2]));
    for i in 0..64 {
        let x = a[i] + i as i32;
        assert_eq!((q[i], r[i]), (x / 8, x % 8 + (x % 8) * 100), "i={i}");
    }
}

#[test]
fn more_live_uniform_values_than_the_near_warp_stack_slots() {
    // 1900 uniform values (loaded from a buffer at uniform addresses) are all live at once: more
    // than the registers plus the 6 KiB that `sp`- and x63-relative offsets reach.
    let n = 1900;
    let loads: String = (0..n).map(|k| format!("int u{k} = a[(m + {k}) % 1024] + {k};\n")).collect();
    let sum: String = (0..n).rev().map(|k| format!("s = s * 3 + u{k};\n")).collect();
    let src = format!(
        "__kernel void k(__global const int *a, __global int *out, int m) {{
            {loads} int s = get_global_id(0); {sum} out[get_global_id(0)] = s; }}"
    );
    let a: Vec<i32> = (0..1024).map(|k| (k * 7919) % 1000 - 500).collect();
    let out = run(&src, "k", &[64], &[32], &[i32s(&a), zeros(4 * 64), val_i32(5)]);
    let got = as_i32(&out[1]);
    for (i, g) in got.iter().enumerate() {
        let mut s = i as i32;
        for k in (0..n).rev() {
            s = s.wrapping_mul(3).wrapping_add(a[(5 + k) % 1024] + k as i32);
        }
        assert_eq!(*g, s, "i={i}");
    }
}

#[test]
fn c99_inline_helper_and_odd_width_integers() {
    // At -O2 LLVM sums the loop in an i33, which llvm-spirv 15 rejects (the pipeline is cut
    // short instead of falling back to -O0); at -O0 (-cl-opt-disable really is -O0) clang would
    // emit no body for a C99 `inline` function without GNU inline semantics.
    let src = "inline int helper(int a) { return a + 1; }
        __kernel void k(__global int *o, int n) {
            int g = get_global_id(0); int s = 0;
            for (int i = 0; i < n + g; i++) s += i;
            o[g] = helper(s); }";
    for options in ["", "-cl-opt-disable"] {
        let front = front(src, options);
        assert!(!front.log.contains("retrying at -O0"), "{options:?}: {}", front.log);
        let c = compile(src, options);
        let out = run_compiled(&c, "k", &[32], &[32], &[zeros(4 * 32), val_i32(10)], 1).bufs;
        let want: Vec<i32> = (0..32).map(|g| (0..10 + g).sum::<i32>() + 1).collect();
        assert_eq!(as_i32(&out[0]), want, "{options:?}");
    }
    assert!(front_options("-cl-opt-disable").opt_disable);
}

#[test]
fn an_exponentially_inlined_program_is_a_build_error_not_a_memory_blowup() {
    // Every call is inlined: 8 calls per level over 7 levels would be 8^7 copies of the leaf.
    let mut src = String::from("int f0(int x) { return x * 3 + 1; }\n");
    for l in 1..=7 {
        let calls: Vec<String> = (0..8).map(|k| format!("f{}(x + {k})", l - 1)).collect();
        src += &format!("int f{l}(int x) {{ return {}; }}\n", calls.join(" ^ "));
    }
    src += "__kernel void k(__global int *o) { o[get_global_id(0)] = f7(get_global_id(0)); }";
    let front = front(&src, "-cl-opt-disable");
    let Err(err) = ventus_icd::compiler::compile_spirv(&front.spirv) else { panic!("the program is too large") };
    assert!(err.to_string().contains("too large after inlining"), "{err}");
}

/// Atomics and fences of device scope are compiled between `fence` instructions (work-groups
/// run on several host threads); work-group scope needs none.
#[test]
fn device_scope_atomics_are_fenced() {
    let count =
        |src: &str| compile(src, "-cl-std=CL3.0").asm().lines().filter(|l| l.trim_start().starts_with("fence")).count();
    let device = "__kernel void k(volatile __global atomic_int *p) {
        atomic_fetch_add_explicit(p, 1, memory_order_seq_cst, memory_scope_device);
        atomic_store_explicit(p + 1, 2, memory_order_release, memory_scope_device);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device); }";
    let group = "__kernel void k(volatile __global atomic_int *p) {
        atomic_fetch_add_explicit(p, 1, memory_order_relaxed, memory_scope_work_group);
        atomic_store_explicit(p + 1, 2, memory_order_relaxed, memory_scope_work_group); }";
    assert_eq!(count(device), 5, "two fences around each atomic, one for the fence");
    assert_eq!(count(group), 0);
}

/// Arguments beyond the 12-bit offset reach of a load (here 1,000 of them: 4 KiB) are read
/// through a computed address; program-scope `__constant` data beyond
/// `CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE` is a build error naming the limit.
#[test]
fn a_thousand_arguments_and_the_constant_data_limit() {
    let n: i32 = 1000;
    let params: Vec<String> = (0..n).map(|k| format!("int a{k}")).collect();
    let body: Vec<String> = (0..n).map(|k| format!("a{k} * {}", k % 7 + 1)).collect();
    let src = format!(
        "__kernel void k(__global int *o, {}) {{ o[get_global_id(0)] = {}; }}",
        params.join(", "),
        body.join(" + ")
    );
    let mut args = vec![zeros(4 * 32)];
    args.extend((0..n).map(|k| val_i32(k - 300)));
    let out = run(&src, "k", &[32], &[32], &args);
    let want: i32 = (0..n).map(|k| (k - 300) * (k % 7 + 1)).sum();
    assert_eq!(as_i32(&out[0]), vec![want; 32]);

    let src = "__constant int big[20000] = {1, 2, 3};
        __kernel void k(__global int *o) { o[get_global_id(0)] = big[get_global_id(0)]; }";
    let front = front(src, "");
    let Err(err) = ventus_icd::compiler::compile_spirv(&front.spirv) else { panic!("80,000 bytes of constants built") };
    assert!(err.to_string().contains("CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE"), "{err}");
}
