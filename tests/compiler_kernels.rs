//! OpenCL C kernels compiled by our compiler and run on the emulator, each checked against a
//! host-side reference computed in Rust.

mod cc;
use cc::*;

fn iota_f(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.5 - 7.0).collect()
}

#[test]
fn vecadd_with_bounds_check() {
    let n = 100;
    let (a, b) = (iota_f(n), (0..n).map(|i| (i * i) as f32).collect::<Vec<_>>());
    let src = "__kernel void k(__global const float *a, __global const float *b, __global float *c, int n) {
        int i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }";
    let out = run(src, "k", &[128], &[64], &[f32s(&a), f32s(&b), zeros(4 * 128), val_i32(n as i32)]);
    let c = as_f32(&out[2]);
    for i in 0..128 {
        assert_eq!(c[i], if i < n { a[i] + b[i] } else { 0.0 }, "i={i}");
    }
}

#[test]
fn saxpy_scalar_float_argument() {
    let n = 77;
    let (x, y) = (iota_f(n), (0..n).map(|i| 1.0 / (i + 1) as f32).collect::<Vec<_>>());
    let src = "__kernel void saxpy(float a, __global const float *x, __global float *y) {
        size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }";
    let out = run(src, "saxpy", &[n as u32], &[7], &[val_f32(2.5), f32s(&x), f32s(&y)]);
    let got = as_f32(&out[1]);
    for i in 0..n {
        let want = 2.5f32.mul_add(x[i], y[i]);
        let plain = 2.5 * x[i] + y[i];
        assert!(got[i] == want || got[i] == plain, "i={i}: {} vs {want}", got[i]);
    }
}

#[test]
fn integer_ops_and_divergent_if_else() {
    let n = 64;
    let a: Vec<i32> = (0..n).map(|i| i * 37 - 900).collect();
    let src = "__kernel void k(__global int *a, __global int *out) {
        int i = get_global_id(0); int x = a[i]; int r;
        if (x < 0) r = -x * 3; else if (x % 5 == 0) r = x / 5; else r = (x << 2) ^ 0x55;
        out[i] = r + (x >> 3) - (int)((unsigned)x >> 28); }";
    let out = run(src, "k", &[n as u32], &[32], &[i32s(&a), zeros(4 * n as usize)]);
    let got = as_i32(&out[1]);
    for i in 0..n as usize {
        let x = a[i];
        let r = if x < 0 { -x * 3 } else if x % 5 == 0 { x / 5 } else { (x << 2) ^ 0x55 };
        assert_eq!(got[i], r + (x >> 3) - ((x as u32) >> 28) as i32, "i={i}");
    }
}

#[test]
fn loop_with_divergent_trip_count() {
    let src = "__kernel void k(__global int *out) {
        int i = get_global_id(0); int s = 0;
        for (int k = 0; k < i; k++) s += k * k;
        out[i] = s; }";
    let out = run(src, "k", &[96], &[32], &[zeros(4 * 96)]);
    let got = as_i32(&out[0]);
    for i in 0..96i32 {
        assert_eq!(got[i as usize], (0..i).map(|k| k * k).sum::<i32>(), "i={i}");
    }
}

#[test]
fn nested_divergence_inside_loops_with_break_and_continue() {
    let src = "__kernel void k(__global int *out) {
        int i = get_global_id(0); int s = 0;
        for (int k = 0; k < 50; k++) {
            if (k % 3 == i % 3) continue;
            if (k > i) { if (i & 1) break; else s += 100; }
            s += k;
        }
        out[i] = s; }";
    let out = run(src, "k", &[64], &[64], &[zeros(4 * 64)]);
    let got = as_i32(&out[0]);
    for i in 0..64i32 {
        let mut s = 0;
        for k in 0..50 {
            if k % 3 == i % 3 {
                continue;
            }
            if k > i {
                if i & 1 != 0 {
                    break;
                } else {
                    s += 100;
                }
            }
            s += k;
        }
        assert_eq!(got[i as usize], s, "i={i}");
    }
}

#[test]
fn local_memory_tree_reduction_with_barriers() {
    let n = 256;
    let a: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/reduce.cl")).unwrap();
    let out = run(&src, "reduce", &[n as u32], &[64], &[f32s(&a), zeros(4 * 4), A::Local(64 * 4)]);
    let got = as_f32(&out[1]);
    for g in 0..4 {
        let want: f32 = a[g * 64..(g + 1) * 64].iter().sum();
        assert_eq!(got[g], want, "group {g}");
    }
}

#[test]
fn work_item_functions_2d_with_offsets_of_groups() {
    let src = "__kernel void k(__global int *out) {
        int x = get_global_id(0), y = get_global_id(1);
        int w = get_global_size(0);
        out[y * w + x] = get_local_id(0) + 10 * get_local_id(1) + 100 * get_group_id(0) + 1000 * get_group_id(1)
            + 10000 * get_local_size(0) + 100000 * get_num_groups(1) + 1000000 * get_work_dim(); }";
    let (gx, gy, lx, ly) = (16u32, 12u32, 8u32, 4u32);
    let out = run(src, "k", &[gx, gy], &[lx, ly], &[zeros(4 * (gx * gy) as usize)]);
    let got = as_i32(&out[0]);
    for y in 0..gy {
        for x in 0..gx {
            let want = (x % lx) + 10 * (y % ly) + 100 * (x / lx) + 1000 * (y / ly) + 10000 * lx + 100000 * (gy / ly) + 2000000;
            assert_eq!(got[(y * gx + x) as usize], want as i32, "({x},{y})");
        }
    }
}
