//! Compiler acceptance corpus: the OpenCL C 2.0+ generic address space — unqualified pointers to
//! global, `__local` and private objects chosen per work-item at run time, passed to helper
//! functions, stored in memory, stepped through in loops, used for atomics and 64-bit accesses;
//! `to_global` / `to_local` / `to_private` / `get_fence`. Built from source through the ICD
//! loader and checked against Rust, optimized and unoptimized (`-cl-opt-disable`).
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const CL3: &str = "-cl-std=CL3.0";
const CL3_O0: &str = "-cl-std=CL3.0 -cl-opt-disable";

/// Each work-item sums four ints through a generic pointer to one of the three spaces (chosen
/// by `(gid + which) % 3`, so a warp's lanes disagree), writes through it, and reports which
/// space the explicit casts and `get_fence` see.
fn spaces_with(options: &str) {
    let src = "
    int sum4(int *p) { int s = 0; for (int i = 0; i < 4; i++) s += p[i]; return s; }
    void bump(int *p, int k) { p[1] += k; }
    kernel void k(global int *g, local int *l, global int *sums, global int *kinds, global int *after, int which) {
        int gid = get_global_id(0), lid = get_local_id(0), n = get_local_size(0);
        int priv[4];
        for (int i = 0; i < 4; i++) priv[i] = gid * 10 + i;
        l[lid] = 1000 + lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        int w = (gid + which) % 3;
        int *p = w == 0 ? (int *)(g + 4 * gid) : w == 1 ? (int *)(l + (lid & ~3)) : (int *)priv;
        sums[gid] = sum4(p);
        kinds[gid] = (to_global(p) != 0) | (to_local(p) != 0) << 1 | (to_private(p) != 0) << 2
                   | (int)get_fence(p) << 4;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (w != 1 || (lid & 3) == 0) bump(p, 100 + gid);
        barrier(CLK_LOCAL_MEM_FENCE);
        after[gid] = w == 2 ? priv[1] : w == 1 ? l[(lid & ~3) + 1] : g[4 * gid + 1];
    }";
    let (n, local, which) = (96usize, 48usize, 1i32);
    let g: Vec<i32> = (0..4 * n as i32).map(|i| i * 3 - 7).collect();
    let args = [buf(&g), Arg::Local(4 * local), zeros(4 * n), zeros(4 * n), zeros(4 * n), val(which)];
    let out = run_source(src, options, "k", &[n], Some(&[local]), None, &args);
    let (sums, kinds, after): (Vec<i32>, Vec<i32>, Vec<i32>) = (read(&out[2]), read(&out[3]), read(&out[4]));
    for gid in 0..n {
        let lid = gid % local;
        let base = lid & !3;
        let (sum, kind, bumped) = match (gid as i32 + which) % 3 {
            0 => ((0..4).map(|i| g[4 * gid + i]).sum(), 1 | 2 << 4, g[4 * gid + 1] + 100 + gid as i32),
            1 => {
                let s = (0..4).map(|i| 1000 + (base + i) as i32).sum();
                // The first lane of each group of four bumps l[base + 1] (if it is local too).
                let owner = gid - (lid - base);
                let b = if (owner as i32 + which) % 3 == 1 { 100 + owner as i32 } else { 0 };
                (s, 2 | 1 << 4, 1001 + base as i32 + b)
            }
            _ => ((0..4).map(|i| gid as i32 * 10 + i).sum(), 4, gid as i32 * 10 + 1 + 100 + gid as i32),
        };
        assert_eq!(sums[gid], sum, "sum through the generic pointer of work-item {gid}");
        assert_eq!(kinds[gid], kind, "to_global/to_local/to_private/get_fence of work-item {gid}");
        assert_eq!(after[gid], bumped, "value written through the generic pointer of work-item {gid}");
    }
}

#[test]
fn generic_pointers_to_every_space() {
    spaces_with(CL3);
}

#[test]
fn generic_pointers_to_every_space_unoptimized() {
    spaces_with(CL3_O0);
}

/// Generic pointers stored in a private array and a struct, walked with pointer increments (a
/// loop φ the space inference cannot resolve when the spaces differ).
#[test]
fn generic_pointers_in_memory_and_loops() {
    let src = "
    typedef struct { int *cur; int *end; int scale; } Cursor;
    int drain(Cursor *c) { int s = 0; while (c->cur != c->end) { s += *c->cur * c->scale; c->cur++; } return s; }
    kernel void k(global const int *g, global int *out) {
        local int l[64];
        int gid = get_global_id(0), lid = get_local_id(0);
        int priv[8];
        for (int i = 0; i < 8; i++) priv[i] = gid + i;
        l[lid] = lid * 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        int *table[3] = { (int *)(g + gid), (int *)(l + (lid & ~7)), priv };
        int total = 0;
        for (int t = 0; t < 3; t++) {
            int *start = table[(t + gid) % 3];
            Cursor c = { start, start + 8, t + 1 };
            total += drain(&c);
        }
        out[gid] = total;
    }";
    let n = 64;
    let g: Vec<i32> = (0..n as i32 + 8).map(|i| i * i - 30).collect();
    let out = run_source(src, CL3, "k", &[n], Some(&[n]), None, &[buf(&g), zeros(4 * n)]);
    let got: Vec<i32> = read(&out[1]);
    for gid in 0..n {
        let space = |s: usize| -> i32 {
            match s {
                0 => (0..8).map(|i| g[gid + i]).sum(),
                1 => (0..8).map(|i| ((gid & !7) + i) as i32 * 2).sum(),
                _ => (0..8).map(|i| gid as i32 + i).sum(),
            }
        };
        let want: i32 = (0..3).map(|t| space((t + gid) % 3) * (t as i32 + 1)).sum();
        assert_eq!(got[gid], want, "work-item {gid}");
    }
}

/// Atomics through generic pointers to global and `__local` memory, and 64-bit values (long,
/// double) read and written through generic pointers to private memory.
#[test]
fn generic_atomics_and_wide_values() {
    let src = "
    void add(int *p, int v) { atomic_fetch_add_explicit((atomic_int *)p, v, memory_order_relaxed, memory_scope_device); }
    long twice(long *p) { *p = *p * 2 + 1; return *p; }
    double half_of(double *p) { return *p * 0.5; }
    kernel void k(global int *counter, global long *wide, global double *dbl) {
        local int lc;
        int gid = get_global_id(0), lid = get_local_id(0);
        if (lid == 0) lc = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        add((int *)&lc, lid + 1);
        add((int *)counter, 1);
        barrier(CLK_LOCAL_MEM_FENCE);
        long x = ((long)gid << 35) | gid;
        double d = gid * 3.0;
        long *px = gid & 1 ? (long *)&x : (long *)(wide + gid);
        if ((gid & 1) == 0) wide[gid] = x;
        long r = twice(px);
        wide[gid] = r + lc;
        dbl[gid] = half_of(gid & 2 ? &d : (double *)(dbl + gid));
    }";
    let (n, local) = (64usize, 32usize);
    let dbl: Vec<f64> = (0..n).map(|i| i as f64 * 3.0).collect();
    let out = run_source(src, CL3, "k", &[n], Some(&[local]), None, &[zeros(4), zeros(8 * n), buf(&dbl)]);
    let counter: Vec<i32> = read(&out[0]);
    let wide: Vec<i64> = read(&out[1]);
    let halves: Vec<f64> = read(&out[2]);
    assert_eq!(counter[0], n as i32, "global atomic through generic pointers");
    let lc = (1..=local as i64).sum::<i64>();
    for gid in 0..n {
        let x = ((gid as i64) << 35) | gid as i64;
        assert_eq!(wide[gid], x * 2 + 1 + lc, "long through a generic pointer, work-item {gid}");
        assert_eq!(halves[gid], gid as f64 * 1.5, "double through a generic pointer, work-item {gid}");
    }
}

/// OpenCL C 2.0 has the generic address space without feature macros.
#[test]
fn generic_pointers_in_opencl_c_2_0() {
    let src = "
    void set(int *p, int v) { *p = v; }
    kernel void k(global int *out) {
        int gid = get_global_id(0);
        int mine = 0;
        set(&mine, gid * 5);
        set(out + gid, mine + 1);
    }";
    let out = run_source(src, "-cl-std=CL2.0", "k", &[40], Some(&[40]), None, &[zeros(160)]);
    let got: Vec<i32> = read(&out[0]);
    assert_eq!(got, (0..40).map(|g| g * 5 + 1).collect::<Vec<_>>());
}
