//! Compiler acceptance corpus: work-group cooperation through `__local` memory and barriers —
//! tree reductions, scans, a tiled matmul, a tiled transpose, a bitonic sort — built from source
//! through the ICD loader and checked against Rust. Some kernels also run unoptimized
//! (`-cl-opt-disable`).
// Reference checks walk several parallel arrays by index.
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

both_opt_levels!(
    tree_reduction_in_local_memory,
    tree_reduction_in_local_memory_unoptimized,
    tree_reduction_in_local_memory_with
);

fn tree_reduction_in_local_memory_with(options: &str) {
    let src = "__kernel void k(__global const int *in, __global int *sums, __global int *mins,
                           __local int *s, __local int *m) {
        int l = get_local_id(0), n = get_local_size(0);
        int x = in[get_global_id(0)];
        s[l] = x;
        m[l] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int stride = n / 2; stride > 0; stride >>= 1) {
            if (l < stride) {
                s[l] += s[l + stride];
                m[l] = min(m[l], m[l + stride]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) { sums[get_group_id(0)] = s[0]; mins[get_group_id(0)] = m[0]; }
    }";
    let (n, local) = (1024, 128);
    let a = Rng(101).i32s(n, -100_000, 100_000);
    let groups = n / local;
    let args = [buf(&a), zeros(4 * groups), zeros(4 * groups), Arg::Local(4 * local), Arg::Local(4 * local)];
    let out = run_source(src, options, "k", &[n], Some(&[local]), None, &args);
    let (sums, mins): (Vec<i32>, Vec<i32>) = (read(&out[1]), read(&out[2]));
    for g in 0..groups {
        let part = &a[g * local..(g + 1) * local];
        assert_eq!(sums[g], part.iter().sum::<i32>(), "sum of group {g}");
        assert_eq!(mins[g], *part.iter().min().unwrap(), "min of group {g}");
    }
}

#[test]
fn strided_accumulation_then_float_tree_reduction() {
    let src = "__kernel void k(__global const float *in, int n, __global float *out) {
        __local float s[64];
        int l = get_local_id(0);
        float acc = 0.0f;
        for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += in[i];
        s[l] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int stride = 32; stride > 0; stride >>= 1) {
            if (l < stride) s[l] += s[l + stride];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) out[get_group_id(0)] = s[0];
    }";
    let n = 5000;
    // Small integers: every partial sum is exact, so the summation order does not matter.
    let a: Vec<f32> = Rng(102).i32s(n, -50, 50).into_iter().map(|x| x as f32).collect();
    let (global, local) = (256, 64);
    let out = run1(src, "k", global, local, &[buf(&a), val(n as i32), zeros(4 * 4)]);
    let got: Vec<f32> = read(&out[2]);
    for g in 0..4 {
        let want: f32 = (g * 64..(g + 1) * 64).flat_map(|t| (t..n).step_by(global)).map(|i| a[i]).sum();
        assert_eq!(got[g], want, "group {g}");
    }
}

#[test]
fn hillis_steele_scan_with_barriers_in_a_loop() {
    let src = "__kernel void k(__global const int *in, __global int *out) {
        __local int buf[2][128];
        int l = get_local_id(0), n = get_local_size(0), p = 0;
        buf[0][l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = 1; off < n; off <<= 1) {
            int v = buf[p][l];
            if (l >= off) v += buf[p][l - off];
            buf[1 - p][l] = v;
            p = 1 - p;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = buf[p][l];
    }";
    let (n, local) = (512, 128);
    let a = Rng(103).i32s(n, -1000, 1000);
    let out = run1(src, "k", n, local, &[buf(&a), zeros(4 * n)]);
    let got: Vec<i32> = read(&out[1]);
    for g in 0..n / local {
        let mut acc = 0;
        for l in 0..local {
            acc += a[g * local + l];
            assert_eq!(got[g * local + l], acc, "group {g} item {l}");
        }
    }
}

both_opt_levels!(matmul_with_local_tiling, matmul_with_local_tiling_unoptimized, matmul_with_local_tiling_with);

fn matmul_with_local_tiling_with(options: &str) {
    let src = "
        #define T 8
        __kernel void k(__global const float *A, __global const float *B, __global float *C, int M, int K, int N) {
            __local float ta[T][T], tb[T][T];
            int col = get_global_id(0), row = get_global_id(1);
            int lc = get_local_id(0), lr = get_local_id(1);
            float acc = 0.0f;
            for (int t = 0; t < K / T; t++) {
                ta[lr][lc] = A[row * K + t * T + lc];
                tb[lr][lc] = B[(t * T + lr) * N + col];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int k = 0; k < T; k++) acc += ta[lr][k] * tb[k][lc];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            C[row * N + col] = acc;
        }";
    let (m, k, n) = (48usize, 40usize, 56usize);
    let mut r = Rng(104);
    // Small integers: products and sums are exact, whether multiply-adds are fused or not.
    let a: Vec<f32> = r.i32s(m * k, -8, 8).into_iter().map(|x| x as f32).collect();
    let b: Vec<f32> = r.i32s(k * n, -8, 8).into_iter().map(|x| x as f32).collect();
    let args = [buf(&a), buf(&b), zeros(4 * m * n), val(m as i32), val(k as i32), val(n as i32)];
    let out = run_source(src, options, "k", &[n, m], Some(&[8, 8]), None, &args);
    let c: Vec<f32> = read(&out[2]);
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum();
            assert_eq!(c[i * n + j], want, "C[{i}][{j}]");
        }
    }
}

#[test]
fn transpose_through_a_padded_local_tile() {
    let src = "__kernel void k(__global const int *in, __global int *out, int w, int h) {
        __local int tile[16][17];
        int x = get_global_id(0), y = get_global_id(1);
        int lx = get_local_id(0), ly = get_local_id(1);
        if (x < w && y < h) tile[ly][lx] = in[y * w + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        int tx = get_group_id(1) * 16 + lx, ty = get_group_id(0) * 16 + ly;
        if (tx < h && ty < w) out[ty * h + tx] = tile[lx][ly];
    }";
    let (w, h) = (64usize, 48usize);
    let a: Vec<i32> = (0..(w * h) as i32).map(|v| v * 7 - 3).collect();
    let args = [buf(&a), zeros(4 * w * h), val(w as i32), val(h as i32)];
    let out = run_source(src, "", "k", &[w, h], Some(&[16, 16]), None, &args);
    let got: Vec<i32> = read(&out[1]);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(got[x * h + y], a[y * w + x], "({x},{y})");
        }
    }
}

#[test]
fn bitonic_sort_in_local_memory() {
    let src = "__kernel void k(__global int *data) {
        __local int s[128];
        int l = get_local_id(0), base = get_group_id(0) * 128;
        s[l] = data[base + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int size = 2; size <= 128; size <<= 1) {
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                int partner = l ^ stride;
                if (partner > l) {
                    int a = s[l], b = s[partner];
                    bool up = (l & size) == 0;
                    if ((a > b) == up) { s[l] = b; s[partner] = a; }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
        data[base + l] = s[l];
    }";
    let a = Rng(105).i32s(512, -10_000, 10_000);
    let out = run1(src, "k", 512, 128, &[buf(&a)]);
    let got: Vec<i32> = read(&out[0]);
    for g in 0..4 {
        let mut want = a[g * 128..(g + 1) * 128].to_vec();
        want.sort();
        assert_eq!(&got[g * 128..(g + 1) * 128], &want[..], "group {g}");
    }
}

#[test]
fn barrier_with_global_memory_fence_exchanges_values() {
    let src = "__kernel void k(__global int *scratch, __global int *out) {
        int g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
        scratch[g] = g * g;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        int base = g - l;
        out[g] = scratch[base + (l + 1) % n] - scratch[base + (l + n - 1) % n];
    }";
    let (n, local) = (384usize, 96usize);
    let out = run1(src, "k", n, local, &[zeros(4 * n), zeros(4 * n)]);
    let got: Vec<i32> = read(&out[1]);
    for g in 0..n {
        let (base, l) = (g - g % local, g % local);
        let (next, prev) = ((base + (l + 1) % local) as i32, (base + (l + local - 1) % local) as i32);
        assert_eq!(got[g], next * next - prev * prev, "g={g}");
    }
}

#[test]
fn two_dimensional_work_groups_share_a_local_tile() {
    let src = "__kernel void k(__global const float *in, __global float *out) {
        __local float t[8][16];
        int lx = get_local_id(0), ly = get_local_id(1);
        int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
        t[ly][lx] = in[y * w + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        float s = t[ly][lx];
        if (lx > 0) s += t[ly][lx - 1];
        if (ly > 0) s += t[ly - 1][lx];
        if (lx < 15 && ly < 7) s += t[ly + 1][lx + 1];
        out[y * w + x] = s;
    }";
    let (w, h) = (64usize, 32usize);
    let a: Vec<f32> = Rng(106).i32s(w * h, -100, 100).into_iter().map(|v| v as f32).collect();
    let out = run_source(src, "", "k", &[w, h], Some(&[16, 8]), None, &[buf(&a), zeros(4 * w * h)]);
    let got: Vec<f32> = read(&out[1]);
    for y in 0..h {
        for x in 0..w {
            let (lx, ly) = (x % 16, y % 8);
            let mut s = a[y * w + x];
            if lx > 0 {
                s += a[y * w + x - 1];
            }
            if ly > 0 {
                s += a[(y - 1) * w + x];
            }
            if lx < 15 && ly < 7 {
                s += a[(y + 1) * w + x + 1];
            }
            assert_eq!(got[y * w + x], s, "({x},{y})");
        }
    }
}

both_opt_levels!(
    interleaved_reduction_with_a_barrier_after_a_divergent_if,
    interleaved_reduction_with_a_barrier_after_a_divergent_if_unoptimized,
    interleaved_reduction_with_a_barrier_after_a_divergent_if_with
);

/// The classic interleaved-addressing reduction: at -O2 clang rotates the loop so that the barrier
/// heads a cycle entered from both sides of the divergent `if` (two back edges that meet at the
/// header). Every lane reaches the barrier together and the stride stays uniform: the φ gets the
/// same value on both sides, and the branch that leaves the inner cycle reconverges inside it.
fn interleaved_reduction_with_a_barrier_after_a_divergent_if_with(options: &str) {
    let src = "__kernel void k(__global const int *in, __global int *out, __local int *sdata) {
        unsigned int tid = get_local_id(0);
        sdata[tid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (unsigned int s = 1; s < get_local_size(0); s *= 2) {
            if ((tid % (2 * s)) == 0) sdata[tid] += sdata[tid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (tid == 0) out[get_group_id(0)] = sdata[0];
    }";
    let log = build_only(src, options);
    assert!(!log.contains("warning: kernel"), "the barrier is in uniform control flow: {log}");
    let (n, local) = (512, 128);
    let a = Rng(7).i32s(n, -1000, 1000);
    let out =
        run_source(src, options, "k", &[n], Some(&[local]), None, &[buf(&a), zeros(4 * 4), Arg::Local(4 * local)]);
    let sums: Vec<i32> = read(&out[1]);
    for g in 0..n / local {
        assert_eq!(sums[g], a[g * local..(g + 1) * local].iter().sum::<i32>(), "group {g}");
    }
}

#[test]
fn barrier_under_a_condition_on_a_long_field_of_a_by_value_struct() {
    // Rodinia lavaMD's shape: the condition reads a by-value struct argument (uniform) whose
    // 64-bit field is loaded from the argument copy in private memory.
    let src = "typedef struct { int a; long number_boxes; } dim_str;
    __kernel void k(dim_str d, __global int *out) {
        __local int s[64];
        if (get_group_id(0) < d.number_boxes) {
            s[get_local_id(0)] = get_global_id(0);
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = s[63 - get_local_id(0)];
        }
    }";
    let log = build_only(src, "");
    assert!(!log.contains("warning: kernel"), "the condition is uniform: {log}");
    let d = Packer::new().push(1i32).align(8).push(3i64).finish(8);
    let out = run_source(src, "", "k", &[256], Some(&[64]), None, &[val_vec(&d), filled(256, -1i32)]);
    let got: Vec<i32> = read(&out[1]);
    for i in 0..256 {
        let want = if i / 64 < 3 { (i / 64 * 64 + 63 - i % 64) as i32 } else { -1 };
        assert_eq!(got[i], want, "i={i}");
    }
}
