//! Compiler acceptance corpus: 32-bit atomics on global and local memory (`atomic_*` and the
//! `atom_*` extension forms), built from source through the ICD loader. Results are checked with
//! order-independent properties (final values, multisets of returned old values).
// Reference checks walk several parallel arrays by index.
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const N: usize = 256;

#[test]
fn global_atomic_add_returns_disjoint_intervals() {
    let src = "__kernel void k(volatile __global int *counter, __global int *old) {
        int i = get_global_id(0);
        old[i] = atomic_add(counter, i + 1);
    }";
    let out = run1(src, "k", N, 64, &[zeros(4), zeros(4 * N)]);
    let (c, old): (Vec<i32>, Vec<i32>) = (read(&out[0]), read(&out[1]));
    let total = (N * (N + 1) / 2) as i32;
    assert_eq!(c[0], total, "final counter");
    // Each work-item owned [old, old + i + 1): the intervals tile [0, total).
    let mut spans: Vec<(i32, i32)> = (0..N).map(|i| (old[i], old[i] + i as i32 + 1)).collect();
    spans.sort();
    let mut at = 0;
    for (lo, hi) in spans {
        assert_eq!(lo, at, "returned old values do not tile the range");
        at = hi;
    }
    assert_eq!(at, total);
}

#[test]
fn global_atomic_inc_dec_hand_out_unique_tickets() {
    let src = "__kernel void k(volatile __global uint *c, __global uint *inc, __global uint *dec) {
        int i = get_global_id(0);
        inc[i] = atomic_inc(&c[0]);
        dec[i] = atomic_dec(&c[1]);
        if (i & 1) atomic_sub(&c[2], (uint)i);
    }";
    let out = run1(src, "k", N, 64, &[buf(&[0u32, 1000, 100_000]), zeros(4 * N), zeros(4 * N)]);
    let (c, mut inc, mut dec): (Vec<u32>, Vec<u32>, Vec<u32>) = (read(&out[0]), read(&out[1]), read(&out[2]));
    let odd: u32 = (0..N as u32).filter(|i| i & 1 == 1).sum();
    assert_eq!(c, vec![N as u32, 1000 - N as u32, 100_000 - odd], "final counters");
    inc.sort();
    dec.sort();
    assert_eq!(inc, (0..N as u32).collect::<Vec<_>>(), "atomic_inc tickets");
    assert_eq!(dec, ((1000 - N as u32 + 1)..=1000).collect::<Vec<_>>(), "atomic_dec tickets");
}

#[test]
fn global_atomic_xchg_forms_a_chain() {
    let src = "__kernel void k(volatile __global int *slot, __global int *old, volatile __global float *fslot,
                           __global float *fold) {
        int i = get_global_id(0);
        old[i] = atomic_xchg(&slot[i & 3], i);
        fold[i] = atomic_xchg(&fslot[i & 1], (float)i * 0.5f);
    }";
    let args = [buf(&[-1i32, -2, -3, -4]), zeros(4 * N), buf(&[-1.0f32, -2.0]), zeros(4 * N)];
    let out = run1(src, "k", N, 64, &args);
    let (slot, old, fslot, fold): (Vec<i32>, Vec<i32>, Vec<f32>, Vec<f32>) =
        (read(&out[0]), read(&out[1]), read(&out[2]), read(&out[3]));
    for s in 0..4 {
        // Returned values plus the final value = the initial value plus every stored value.
        let mut seen: Vec<i32> = (0..N).filter(|i| i & 3 == s).map(|i| old[i]).collect();
        seen.push(slot[s]);
        seen.sort();
        let mut want: Vec<i32> = (0..N as i32).filter(|i| i & 3 == s as i32).collect();
        want.push(-1 - s as i32);
        want.sort();
        assert_eq!(seen, want, "int slot {s}");
    }
    for s in 0..2 {
        let mut seen: Vec<f32> = (0..N).filter(|i| i & 1 == s).map(|i| fold[i]).collect();
        seen.push(fslot[s]);
        seen.sort_by(f32::total_cmp);
        let mut want: Vec<f32> = (0..N).filter(|i| i & 1 == s).map(|i| i as f32 * 0.5).collect();
        want.push(-1.0 - s as f32);
        want.sort_by(f32::total_cmp);
        assert_eq!(seen, want, "float slot {s}");
    }
}

#[test]
fn global_atomic_min_max_and_or_xor() {
    let src = "__kernel void k(__global const int *v, volatile __global int *s, volatile __global uint *u) {
        int i = get_global_id(0);
        int x = v[i];
        atomic_min(&s[0], x);
        atomic_max(&s[1], x);
        atomic_and(&s[2], x | (1 << (i & 31)));
        atomic_or(&s[3], x & 0x01010101);
        atomic_xor(&s[4], x);
        atomic_min(&u[0], (uint)x);
        atomic_max(&u[1], (uint)x);
    }";
    let v: Vec<i32> = Rng(71).u32s(N).into_iter().map(|x| x as i32).collect();
    let init = [i32::MAX, i32::MIN, -1, 0, 0x1234_5678];
    let out = run1(src, "k", N, 64, &[buf(&v), buf(&init), buf(&[u32::MAX, 0])]);
    let (s, u): (Vec<i32>, Vec<u32>) = (read(&out[1]), read(&out[2]));
    let want = [
        *v.iter().min().unwrap(),
        *v.iter().max().unwrap(),
        v.iter().enumerate().fold(-1, |a, (i, &x)| a & (x | 1 << (i & 31))),
        v.iter().fold(0, |a, &x| a | (x & 0x0101_0101)),
        v.iter().fold(0x1234_5678, |a, &x| a ^ x),
    ];
    assert_eq!(s, want, "signed min, max, and, or, xor");
    let uv = v.iter().map(|&x| x as u32);
    assert_eq!(u, vec![uv.clone().min().unwrap(), uv.max().unwrap()], "unsigned min, max");
}

#[test]
fn global_atomic_cmpxchg_elects_one_winner_per_slot() {
    let src = "__kernel void k(volatile __global int *slot, __global int *won) {
        int i = get_global_id(0);
        int prev = atomic_cmpxchg(&slot[i % 8], 0, i + 1);
        won[i] = prev == 0;
    }";
    let out = run1(src, "k", N, 64, &[zeros(32), zeros(4 * N)]);
    let (slot, won): (Vec<i32>, Vec<i32>) = (read(&out[0]), read(&out[1]));
    for s in 0..8 {
        let winners: Vec<usize> = (0..N).filter(|&i| i % 8 == s && won[i] == 1).collect();
        assert_eq!(winners.len(), 1, "slot {s}: exactly one winner, got {winners:?}");
        assert_eq!(slot[s], winners[0] as i32 + 1, "slot {s} holds the winner's value");
    }
}

#[test]
fn cmpxchg_retry_loop_implements_a_float_atomic_add() {
    let src = "
        void add_float(volatile __global float *p, float v) {
            uint old = as_uint(*p), prev;
            while ((prev = atomic_cmpxchg((volatile __global uint *)p, old, as_uint(as_float(old) + v))) != old)
                old = prev;
        }
        __kernel void k(volatile __global float *sum) {
            int i = get_global_id(0);
            add_float(&sum[i & 1], (float)(i % 13));
        }";
    let out = run1(src, "k", N, 64, &[zeros(8)]);
    let sum: Vec<f32> = read(&out[0]);
    for s in 0..2 {
        // Small integers: every partial sum is exact, so the order of the additions does not matter.
        let want: f32 = (0..N).filter(|i| i & 1 == s).map(|i| (i % 13) as f32).sum();
        assert_eq!(sum[s], want, "sum {s}");
    }
}

#[test]
fn local_atomics_build_a_histogram() {
    let src = "__kernel void k(__global const uchar *data, int per_item, volatile __global uint *hist) {
        __local uint h[16];
        int l = get_local_id(0);
        if (l < 16) h[l] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < per_item; k++) {
            uchar v = data[get_global_id(0) * per_item + k];
            atomic_inc(&h[v & 15]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < 16) atomic_add(&hist[l], h[l]);
        if (l < 16) atomic_add(&hist[16 + get_group_id(0) * 16 + l], h[l]);
    }";
    let per = 5;
    let data: Vec<u8> = Rng(72).u32s(N * per).into_iter().map(|x| (x % 251) as u8).collect();
    let out = run1(src, "k", N, 64, &[buf(&data), val(per as i32), zeros(4 * 16 * 5)]);
    let hist: Vec<u32> = read(&out[2]);
    let mut want = vec![0u32; 16 * 5];
    for (j, &d) in data.iter().enumerate() {
        want[(d & 15) as usize] += 1;
        want[16 + (j / per / 64) * 16 + (d & 15) as usize] += 1;
    }
    assert_eq!(hist, want);
}

#[test]
fn local_atomics_every_operation() {
    let src = "__kernel void k(__global const int *v, __global int *out, __global int *old) {
        __local int s[10];
        int l = get_local_id(0), i = get_global_id(0), x = v[i];
        if (l == 0) {
            s[0] = 0; s[1] = 1000000; s[2] = 0x7fffffff; s[3] = (int)0x80000000; s[4] = -1;
            s[5] = 0; s[6] = 0; s[7] = 0; s[8] = 0; s[9] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        old[i] = atomic_add(&s[0], x & 0xff);
        atomic_sub(&s[1], x & 0xff);
        atomic_min(&s[2], x);
        atomic_max(&s[3], x);
        atomic_and(&s[4], x | 0x0f0f0f0f);
        atomic_or(&s[5], x & 0x11111111);
        atomic_xor(&s[6], x);
        atomic_inc(&s[7]);
        atomic_dec(&s[8]);
        atomic_cmpxchg(&s[9], 0, l + 1);
        atomic_xchg(&s[9], atomic_xchg(&s[9], 0) | 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < 9) out[get_group_id(0) * 10 + l] = s[l];
        if (l == 9) out[get_group_id(0) * 10 + 9] = s[9] >= 0;
    }";
    let v: Vec<i32> = Rng(73).u32s(N).into_iter().map(|x| x as i32).collect();
    let out = run1(src, "k", N, 64, &[buf(&v), zeros(4 * 40), zeros(4 * N)]);
    let (got, old): (Vec<i32>, Vec<i32>) = (read(&out[1]), read(&out[2]));
    for g in 0..4 {
        let x = &v[64 * g..64 * g + 64];
        let add: i32 = x.iter().map(|&x| x & 0xff).sum();
        let want = [
            add,
            1_000_000 - add,
            *x.iter().min().unwrap(),
            *x.iter().max().unwrap(),
            x.iter().fold(-1, |a, &x| a & (x | 0x0f0f_0f0f)),
            x.iter().fold(0, |a, &x| a | (x & 0x1111_1111)),
            x.iter().fold(0, |a, &x| a ^ x),
            64,
            -64,
            1,
        ];
        assert_eq!(&got[10 * g..10 * g + 10], &want, "group {g}");
        let mut spans: Vec<(i32, i32)> = (0..64).map(|l| (old[64 * g + l], old[64 * g + l] + (x[l] & 0xff))).collect();
        spans.sort();
        assert!(spans.windows(2).all(|w| w[0].1 == w[1].0) && spans[0].0 == 0, "group {g}: local atomic_add olds");
    }
}

#[test]
fn atom_extension_forms_on_global_and_local_memory() {
    let src = "
        #pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable
        __kernel void k(__global const int *v, volatile __global int *g, __global int *out) {
            __local int s[4];
            int l = get_local_id(0), x = v[get_global_id(0)];
            if (l == 0) { s[0] = 0; s[1] = 0; s[2] = 0x7fffffff; s[3] = 0; }
            barrier(CLK_LOCAL_MEM_FENCE);
            atom_add(&g[0], x & 0xffff);
            atom_sub(&g[1], 3);
            atom_inc(&g[2]);
            atom_dec(&g[3]);
            atom_min(&g[4], x);
            atom_max(&g[5], x);
            atom_and(&g[6], x | 0x00ff00ff);
            atom_or(&g[7], x & 0x10203040);
            atom_xor(&g[8], x);
            atom_cmpxchg(&g[9], -5, get_global_id(0));
            atom_xchg(&g[10], 7);
            atom_add(&s[0], 2);
            atom_inc(&s[1]);
            atom_min(&s[2], x);
            atom_xor(&s[3], atom_cmpxchg(&s[3], 0, 0) == 0);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l < 4) out[get_group_id(0) * 4 + l] = s[l];
        }";
    let v: Vec<i32> = Rng(74).u32s(N).into_iter().map(|x| x as i32).collect();
    let init = [5i32, 0, 0, 0, i32::MAX, i32::MIN, -1, 0, 0, -5, 0];
    let out = run1(src, "k", N, 64, &[buf(&v), buf(&init), zeros(4 * 16)]);
    let (g, s): (Vec<i32>, Vec<i32>) = (read(&out[1]), read(&out[2]));
    let n = N as i32;
    let want = [
        5 + v.iter().map(|&x| x & 0xffff).sum::<i32>(),
        -3 * n,
        n,
        -n,
        *v.iter().min().unwrap(),
        *v.iter().max().unwrap(),
        v.iter().fold(-1, |a, &x| a & (x | 0x00ff_00ff)),
        v.iter().fold(0, |a, &x| a | (x & 0x1020_3040)),
        v.iter().fold(0, |a, &x| a ^ x),
    ];
    assert_eq!(&g[..9], &want, "atom_add/sub/inc/dec/min/max/and/or/xor on global memory");
    assert!((0..n).contains(&g[9]), "atom_cmpxchg stored a global id, got {}", g[9]);
    assert_eq!(g[10], 7, "atom_xchg");
    for grp in 0..4 {
        let xs = &v[64 * grp..64 * grp + 64];
        let parity = s[4 * grp + 3];
        assert_eq!(&s[4 * grp..4 * grp + 3], &[128, 64, *xs.iter().min().unwrap()], "local atom_*, group {grp}");
        assert!(parity == 0 || parity == 1, "local atom_xor/atom_cmpxchg, group {grp}: {parity}");
    }
}

#[test]
fn cmpxchg_result_spilled_under_register_pressure() {
    // Hundreds of values live across an atomic_cmpxchg whose result is used last: the allocator
    // spills it, and amocas.w must still see the expected value (its destination register is
    // also an input).
    const K: usize = 300;
    let loads: String = (0..K).map(|k| format!("int x{k} = v[i * {K} + {k}];\n")).collect();
    let sum: String = (0..K).map(|k| format!(" + x{k} * {}", k + 1)).collect();
    let src = format!(
        "__kernel void k(__global const int *v, volatile __global int *c, __global int *out) {{
            int i = get_global_id(0);
            {loads}
            int p = atomic_cmpxchg(&c[i], 7, x0);
            out[i] = p{sum};
        }}"
    );
    let n = 64;
    let v: Vec<i32> = Rng(75).u32s(n * K).into_iter().map(|x| x as i32).collect();
    let c: Vec<i32> = (0..n as i32).map(|i| if i % 2 == 0 { 7 } else { 1000 + i }).collect();
    let out = run1(&src, "k", n, 64, &[buf(&v), buf(&c), zeros(4 * n)]);
    let (c2, res): (Vec<i32>, Vec<i32>) = (read(&out[1]), read(&out[2]));
    for i in 0..n {
        let s = (0..K).fold(0i32, |a, k| a.wrapping_add(v[i * K + k].wrapping_mul(k as i32 + 1)));
        assert_eq!(c2[i], if i % 2 == 0 { v[i * K] } else { c[i] }, "work-item {i}: memory");
        assert_eq!(res[i].wrapping_sub(s), c[i], "work-item {i}: returned old value");
    }
}

/// C11 `atomic_flag` (OpenCL C 2.0+), as the CTS uses it: every work-item walks an array of
/// flags and claims the first one it sets (test-and-set returned false), so each flag is claimed
/// by exactly one work-item; then half the flags are cleared. (A spin lock on one flag is not
/// used: on a SIMT stack without independent thread scheduling it can deadlock, as on pre-Volta
/// GPUs.)
#[test]
fn atomic_flag_test_and_set_and_clear() {
    let src = r#"
    __kernel void f(__global atomic_flag *flags, __global int *owner, int n) {
        int tid = get_global_id(0);
        bool stop = false;
        for (int k = 0; !stop && k < n; k++) {
            if (!atomic_flag_test_and_set_explicit(&flags[k], memory_order_relaxed, memory_scope_device)) {
                owner[k] = tid;
                stop = true;
            }
        }
    }
    __kernel void clear_even(__global atomic_flag *flags) {
        int k = get_global_id(0);
        if ((k & 1) == 0)
            atomic_flag_clear_explicit(&flags[k], memory_order_relaxed, memory_scope_device);
    }"#;
    let n = 256usize;
    let out = run_source(
        src,
        "-cl-std=CL3.0",
        "f",
        &[n],
        Some(&[64]),
        None,
        &[zeros(4 * n), filled(n, -1i32), val(n as i32)],
    );
    let flags: Vec<i32> = read(&out[0]);
    let mut owners: Vec<i32> = read(&out[1]);
    assert!(flags.iter().all(|f| *f != 0), "every flag set: {flags:?}");
    owners.sort();
    assert_eq!(owners, (0..n as i32).collect::<Vec<_>>(), "each flag claimed by exactly one work-item");
    let out = run_source(src, "-cl-std=CL3.0", "clear_even", &[n], Some(&[64]), None, &[Arg::Buf(out[0].clone())]);
    let flags: Vec<i32> = read(&out[0]);
    for (k, f) in flags.iter().enumerate() {
        assert_eq!(*f != 0, k % 2 == 1, "flag {k} after clearing the even ones");
    }
}
