//! Compiler acceptance corpus: address spaces (`__global`, `__local` arguments and kernel-scope
//! arrays, `__constant` arguments and program-scope arrays, `__private` arrays and structs) and
//! structs by value, built from source through the ICD loader and checked against Rust. The
//! private-memory and struct kernels also run unoptimized (`-cl-opt-disable`).
// Reference checks walk several parallel arrays by index.
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const N: usize = 256;

#[test]
fn global_pointer_arithmetic_with_mixed_element_widths() {
    let src = "__kernel void k(__global const uchar *bytes, __global short *halves, __global int *words) {
        int i = get_global_id(0);
        __global const uchar *p = bytes + 4 * i;
        int w = p[0] | (p[1] << 8) | (p[2] << 16) | (p[3] << 24);
        __global short *h = halves + 2 * i;
        h[0] = (short)(w & 0xffff) + 1;
        *(h + 1) = (short)(w >> 16) - 1;
        __global int *q = &words[N - 1 - i];
        *q = w ^ (int)(q - words);
    }";
    let bytes: Vec<u8> = Rng(51).u32s(N).iter().flat_map(|w| w.to_le_bytes()).collect();
    let args = [buf(&bytes), zeros(4 * N), zeros(4 * N)];
    let out = run_source(src, &format!("-DN={N}"), "k", &[N], Some(&[64]), None, &args);
    let (h, w): (Vec<i16>, Vec<i32>) = (read(&out[1]), read(&out[2]));
    for i in 0..N {
        let x = i32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(&h[2 * i..2 * i + 2], &[(x as i16).wrapping_add(1), ((x >> 16) as i16).wrapping_sub(1)], "i={i}");
        assert_eq!(w[N - 1 - i], x ^ (N - 1 - i) as i32, "i={i}");
    }
}

#[test]
fn local_argument_reverses_each_work_group() {
    let src = "__kernel void k(__global const int *in, __global int *out, __local int *tmp) {
        int l = get_local_id(0), n = get_local_size(0);
        tmp[l] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = tmp[n - 1 - l] * 2;
    }";
    let a = Rng(52).i32s(N, -1000, 1000);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(4 * N), Arg::Local(64 * 4)]);
    let got: Vec<i32> = read(&out[1]);
    for i in 0..N {
        let (g, l) = (i / 64, i % 64);
        assert_eq!(got[i], a[g * 64 + 63 - l] * 2, "i={i}");
    }
}

#[test]
fn kernel_scope_local_arrays_of_several_types() {
    let src = "__kernel void k(__global const int *in, __global int *out, __global float *fout) {
        __local int ti[64];
        __local float tf[64];
        __local short ts[64];
        __local uchar tc[64];
        int l = get_local_id(0), g = get_global_id(0);
        int x = in[g];
        ti[l] = x; tf[l] = (float)x * 0.5f; ts[l] = (short)(x * 3); tc[l] = (uchar)x;
        barrier(CLK_LOCAL_MEM_FENCE);
        int r = (l + 1) & 63, s = (l + 63) & 63;
        out[2 * g] = ti[r] + ts[s];
        out[2 * g + 1] = tc[r] + tc[s];
        fout[g] = tf[r] - tf[s];
    }";
    let a = Rng(53).i32s(N, -5000, 5000);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(8 * N), zeros(4 * N)]);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]));
    for i in 0..N {
        let (base, l) = (i / 64 * 64, i % 64);
        let (r, s) = (a[base + (l + 1) % 64], a[base + (l + 63) % 64]);
        let want = [r + (s * 3) as i16 as i32, r as u8 as i32 + s as u8 as i32];
        assert_eq!(&got[2 * i..2 * i + 2], &want, "i={i}");
        assert_bits(f[i], r as f32 * 0.5 - s as f32 * 0.5, format_args!("i={i}"));
    }
}

#[test]
fn local_arguments_and_local_arrays_together() {
    let src = "__kernel void k(__global const float *in, __global float *out, __local float *a, __local int *b) {
        __local float c[32];
        int l = get_local_id(0);
        a[l] = in[get_global_id(0)];
        b[l] = l * l;
        if (l < 32) c[l] = 1.0f / (float)(l + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = a[(l + 5) % 64] * c[l % 32] + (float)b[63 - l];
    }";
    let a = Rng(54).f32s(N, -100.0, 100.0);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(4 * N), Arg::Local(256), Arg::Local(256)]);
    let got: Vec<f32> = read(&out[1]);
    for i in 0..N {
        let (base, l) = (i / 64 * 64, i % 64);
        let (x, c, b) = (a[base + (l + 5) % 64], 1.0 / ((l % 32) as f32 + 1.0), ((63 - l) * (63 - l)) as f32);
        let (fused, plain) = (x.mul_add(c, b), x * c + b);
        assert!(got[i] == fused || got[i] == plain, "i={i}: {} vs {fused} / {plain}", got[i]);
    }
}

#[test]
fn constant_argument_lookup_table() {
    let src = "__kernel void k(__global const uchar *idx, __constant int *table, __constant float *scale,
                           __global int *out, __global float *fout) {
        int i = get_global_id(0);
        int j = idx[i];
        out[i] = table[j] + table[(j * 7) & 63];
        fout[i] = scale[j & 3] * (float)table[j];
    }";
    let mut r = Rng(55);
    let idx: Vec<u8> = (0..N).map(|_| (r.next_u32() % 64) as u8).collect();
    let table = r.i32s(64, -1_000_000, 1_000_000);
    let scale = [0.5f32, -2.0, 0.25, 8.0];
    let args = [buf(&idx), buf(&table), buf(&scale), zeros(4 * N), zeros(4 * N)];
    let out = run1(src, "k", N, 64, &args);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[3]), read(&out[4]));
    for i in 0..N {
        let j = idx[i] as usize;
        assert_eq!(got[i], table[j] + table[(j * 7) & 63], "i={i}");
        assert_bits(f[i], scale[j & 3] * table[j] as f32, format_args!("i={i}"));
    }
}

const PRIMES: [i32; 16] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53];
const WEIGHTS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];

#[test]
fn program_scope_constant_arrays() {
    let src = "
        __constant int primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
        __constant float weights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
        __constant struct { short a; char b; int c; } pairs[3] = {{1, -2, 300}, {-4, 5, -600}, {7, -8, 900}};
        __kernel void k(__global const float *in, __global int *out, __global float *fout) {
            int i = get_global_id(0);
            out[2 * i] = primes[i & 15] * primes[(i >> 4) & 15];
            out[2 * i + 1] = pairs[i % 3].a * pairs[i % 3].b + pairs[i % 3].c;
            float s = 0.0f;
            for (int k = 0; k < 5; k++) s += weights[k] * in[(i + k) % N];
            fout[i] = s;
        }";
    let a: Vec<f32> = (0..N).map(|i| (i % 32) as f32).collect();
    let out =
        run_source(src, &format!("-DN={N}"), "k", &[N], Some(&[64]), None, &[buf(&a), zeros(8 * N), zeros(4 * N)]);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]));
    let pairs = [(1, -2, 300), (-4, 5, -600), (7, -8, 900)];
    for i in 0..N {
        let (pa, pb, pc) = pairs[i % 3];
        assert_eq!(&got[2 * i..2 * i + 2], &[PRIMES[i & 15] * PRIMES[(i >> 4) & 15], pa * pb + pc], "i={i}");
        // Small integers times powers of two: every product and sum is exact (fused or not).
        let want: f32 = (0..5).map(|k| WEIGHTS[k] * a[(i + k) % N]).sum();
        assert_bits(f[i], want, format_args!("i={i}"));
    }
}

both_opt_levels!(
    private_array_insertion_sort_with_dynamic_indices,
    private_array_insertion_sort_with_dynamic_indices_unoptimized,
    private_array_insertion_sort_with_dynamic_indices_with
);

fn private_array_insertion_sort_with_dynamic_indices_with(options: &str) {
    let src = "__kernel void k(__global const int *in, __global int *out) {
        int i = get_global_id(0);
        int v[8];
        for (int k = 0; k < 8; k++) v[k] = in[8 * i + k];
        for (int k = 1; k < 8; k++) {
            int x = v[k], j = k - 1;
            while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
            v[j + 1] = x;
        }
        for (int k = 0; k < 8; k++) out[8 * i + k] = v[k];
    }";
    let a = Rng(56).i32s(8 * N, -100, 100);
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), zeros(32 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for i in 0..N {
        let mut want = a[8 * i..8 * i + 8].to_vec();
        want.sort();
        assert_eq!(&got[8 * i..8 * i + 8], &want[..], "i={i}");
    }
}

#[test]
fn private_arrays_of_small_types_and_floats() {
    let src = "__kernel void k(__global const int *in, __global int *out, __global float *fout) {
        int i = get_global_id(0);
        uchar hist[16];
        float f[6];
        short s[5] = {1, -2, 3, -4, 5};
        for (int k = 0; k < 16; k++) hist[k] = 0;
        int x = in[i];
        for (int k = 0; k < 8; k++) hist[(x >> (4 * k)) & 15]++;
        int best = 0;
        for (int k = 1; k < 16; k++) if (hist[k] > hist[best]) best = k;
        f[0] = (float)x;
        for (int k = 1; k < 6; k++) f[k] = f[k - 1] * 0.5f;
        out[2 * i] = best * 100 + hist[best];
        out[2 * i + 1] = s[x & 3] * s[4 - (x & 3)];
        fout[i] = f[(x & 7) % 6];
    }";
    let a: Vec<i32> = Rng(57).u32s(N).into_iter().map(|v| v as i32).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(8 * N), zeros(4 * N)]);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]));
    let s = [1, -2, 3, -4, 5];
    for (i, &x) in a.iter().enumerate() {
        let mut hist = [0u8; 16];
        (0..8).for_each(|k| hist[((x >> (4 * k)) & 15) as usize] += 1);
        let best = (1..16).fold(0, |b, k| if hist[k] > hist[b] { k } else { b });
        let want = [best as i32 * 100 + hist[best] as i32, s[(x & 3) as usize] * s[4 - (x & 3) as usize]];
        assert_eq!(&got[2 * i..2 * i + 2], &want, "x={x}");
        let mut fv = x as f32;
        for _ in 0..((x & 7) % 6) {
            fv *= 0.5;
        }
        assert_bits(f[i], fv, format_args!("x={x}"));
    }
}

both_opt_levels!(
    private_structs_with_array_members,
    private_structs_with_array_members_unoptimized,
    private_structs_with_array_members_with
);

fn private_structs_with_array_members_with(options: &str) {
    let src = "
        typedef struct { int count; int sum; int lo, hi; float mean; int last[4]; } Stats;
        void add(Stats *s, int x) {
            s->count++; s->sum += x;
            if (x < s->lo) s->lo = x;
            if (x > s->hi) s->hi = x;
            s->last[s->count & 3] = x;
        }
        __kernel void k(__global const int *in, __global int *out, __global float *fout) {
            int i = get_global_id(0);
            Stats s = {0, 0, 1 << 30, -(1 << 30), 0.0f, {0, 0, 0, 0}};
            for (int k = 0; k < 3 + (i & 7); k++) add(&s, in[(i * 5 + k) % N]);
            s.mean = (float)s.sum / (float)s.count;
            Stats t = s;
            t.sum = -1;
            out[6 * i] = s.count; out[6 * i + 1] = s.sum; out[6 * i + 2] = s.lo; out[6 * i + 3] = s.hi;
            out[6 * i + 4] = s.last[1] + s.last[2] * 3; out[6 * i + 5] = t.sum + t.last[(i >> 3) & 3];
            fout[i] = s.mean;
        }";
    let a = Rng(58).i32s(N, -1000, 1000);
    let out = run_source(
        src,
        &format!("-DN={N} {options}"),
        "k",
        &[N],
        Some(&[64]),
        None,
        &[buf(&a), zeros(24 * N), zeros(4 * N)],
    );
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]));
    for i in 0..N {
        let (mut count, mut sum, mut lo, mut hi, mut last) = (0, 0, 1 << 30, -(1 << 30), [0i32; 4]);
        for k in 0..3 + (i & 7) {
            let x = a[(i * 5 + k) % N];
            count += 1;
            sum += x;
            lo = lo.min(x);
            hi = hi.max(x);
            last[count & 3] = x;
        }
        let want = [count as i32, sum, lo, hi, last[1] + last[2] * 3, -1 + last[(i >> 3) & 3]];
        assert_eq!(&got[6 * i..6 * i + 6], &want, "i={i}");
        assert_bits(f[i], sum as f32 / count as f32, format_args!("i={i}"));
    }
}

both_opt_levels!(
    struct_by_value_kernel_argument,
    struct_by_value_kernel_argument_unoptimized,
    struct_by_value_kernel_argument_with
);

fn struct_by_value_kernel_argument_with(options: &str) {
    let src = "
        typedef struct { char c; int i; short s; float f; uchar u[3]; } Params;
        __kernel void k(__global int *out, Params p, __global float *fout) {
            int g = get_global_id(0);
            out[g] = p.c * g + p.i + p.s + p.u[g % 3];
            fout[g] = p.f * (float)g;
        }";
    let p =
        Packer::new().push(-5i8).push(1_000_000i32).push(-300i16).push(0.75f32).push_all(&[7u8, 200, 33], 1).finish(4);
    assert_eq!(p.len(), 20);
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[zeros(4 * N), Arg::Val(p), zeros(4 * N)]);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[0]), read(&out[2]));
    for g in 0..N as i32 {
        assert_eq!(got[g as usize], -5 * g + 1_000_000 - 300 + [7, 200, 33][g as usize % 3], "g={g}");
        assert_bits(f[g as usize], 0.75 * g as f32, format_args!("g={g}"));
    }
}

both_opt_levels!(
    nested_struct_by_value_and_global_struct_arrays,
    nested_struct_by_value_and_global_struct_arrays_unoptimized,
    nested_struct_by_value_and_global_struct_arrays_with
);

fn nested_struct_by_value_and_global_struct_arrays_with(options: &str) {
    let src = "
        typedef struct { float x, y; } P;
        typedef struct { P lo; P hi; int n; int w[4]; } Box;
        typedef struct { int id; float d; short tag; } Hit;
        int inside(Box b, P p) { return p.x >= b.lo.x && p.x < b.hi.x && p.y >= b.lo.y && p.y < b.hi.y; }
        __kernel void k(Box b, __global const P *pts, __global Hit *hits) {
            int i = get_global_id(0);
            P p = pts[i];
            Hit h;
            h.id = inside(b, p) ? i : -1;
            h.d = (p.x - b.lo.x) * (p.x - b.lo.x) + (p.y - b.lo.y);
            h.tag = (short)(b.n * b.w[i & 3]);
            hits[i] = h;
        }";
    let bx =
        Packer::new().push_all(&[-1.0f32, -2.0, 3.0, 4.5], 4).push(7i32).push_all(&[1i32, -2, 300, 4000], 4).finish(4);
    assert_eq!(bx.len(), 36);
    let pts = Rng(59).f32s(2 * N, -5.0, 5.0);
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[Arg::Val(bx), buf(&pts), zeros(12 * N)]);
    let hits = &out[2];
    for i in 0..N {
        let (x, y) = (pts[2 * i], pts[2 * i + 1]);
        let h = &hits[12 * i..12 * i + 12];
        let inside = (-1.0..3.0).contains(&x) && (-2.0..4.5).contains(&y);
        assert_eq!(i32::from_le_bytes(h[0..4].try_into().unwrap()), if inside { i as i32 } else { -1 }, "i={i}");
        let (d, plain) = ((x + 1.0).mul_add(x + 1.0, y + 2.0), (x + 1.0) * (x + 1.0) + (y + 2.0));
        let got = f32::from_le_bytes(h[4..8].try_into().unwrap());
        assert!(got == d || got == plain, "i={i}: d {got} vs {d}/{plain}");
        let tag = (7 * [1, -2, 300, 4000][i & 3]) as i16;
        assert_eq!(i16::from_le_bytes(h[8..10].try_into().unwrap()), tag, "i={i}");
    }
}

#[test]
fn helper_functions_taking_local_and_constant_pointers() {
    let src = "
        void load_tile(__local int *t, __global const int *g, int l) { t[l] = g[get_group_id(0) * 64 + l]; }
        int window(__local const int *t, int l, __constant int *w) {
            int s = 0;
            for (int k = -1; k <= 1; k++) s += t[(l + k + 64) & 63] * w[k + 1];
            return s;
        }
        __kernel void k(__global const int *in, __constant int *w, __global int *out) {
            __local int tile[64];
            int l = get_local_id(0);
            load_tile(tile, in, l);
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = window(tile, l, w);
        }";
    let a = Rng(60).i32s(N, -100, 100);
    let w = [1i32, -2, 3];
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&w), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[2]);
    for i in 0..N {
        let (base, l) = (i / 64 * 64, i % 64);
        let want: i32 = (0..3).map(|k| a[base + (l + k + 63) % 64] * w[k]).sum();
        assert_eq!(got[i], want, "i={i}");
    }
}
