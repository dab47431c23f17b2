//! Compiler acceptance corpus: 64-bit atomics (`cl_khr_int64_base_atomics`,
//! `cl_khr_int64_extended_atomics` and the OpenCL C 2.0/3.0 `atomic_long` functions) on global and
//! local memory, built from source through the ICD loader. They compile to compare-and-swap loops
//! around `amocas.d`; values are chosen so that every operation needs the high word (carries and
//! borrows across bit 32, negative minima, bits on both sides), and results are checked with
//! order-independent properties (final values, multisets of returned old values).
// Reference checks walk several parallel arrays by index.
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const N: usize = 256;

const EXT: &str = "
    #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
    #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
";

/// Random 64-bit values with both words populated, about half of them negative.
fn values(seed: u32, n: usize) -> Vec<i64> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let hi = r.next_u32() as u64;
            let lo = r.next_u32() as u64;
            match r.next_u32() % 4 {
                0 => ((hi << 32) | lo) as i64,
                1 => (((hi & 0xff) << 32) | lo) as i64,
                2 => -((((hi & 0xffff) << 32) | lo) as i64),
                _ => (lo as i32) as i64,
            }
        })
        .collect()
}

/// Asserts that the returned old values of additions of `inc[i]` starting from `init` tile
/// `[init, init + Σ inc)` (each work-item owned its own interval).
#[track_caller]
fn assert_tiles(init: i128, old: &[i64], inc: impl Fn(usize) -> i128, what: &str) {
    let mut spans: Vec<(i128, i128)> = (0..old.len()).map(|i| (old[i] as i128, old[i] as i128 + inc(i))).collect();
    spans.sort();
    let mut at = init;
    for (lo, hi) in spans {
        assert_eq!(lo, at, "{what}: returned old values do not tile the range");
        at = hi;
    }
}

/// Multiset check for exchanges: the olds plus the final value are the initial value plus
/// every stored value.
#[track_caller]
fn assert_xchg_chain(init: i64, stored: &[i64], old: &[i64], fin: i64, what: &str) {
    let mut a: Vec<i64> = old.to_vec();
    a.push(fin);
    let mut b: Vec<i64> = stored.to_vec();
    b.push(init);
    a.sort();
    b.sort();
    assert_eq!(a, b, "{what}: exchanged values");
}

#[test]
fn global_atom_add_carries_into_the_high_word() {
    let src = format!(
        "{EXT}
        __kernel void k(volatile __global long *c, __global long *old) {{
            int i = get_global_id(0);
            old[i] = atom_add(c, 0xffffffffL + i);
        }}"
    );
    let out = run1(&src, "k", N, 64, &[buf(&[5i64]), zeros(8 * N)]);
    let (c, old): (Vec<i64>, Vec<i64>) = (read(&out[0]), read(&out[1]));
    let inc = |i: usize| 0xffff_ffffi128 + i as i128;
    let total: i128 = (0..N).map(inc).sum();
    assert_eq!(c[0] as i128, 5 + total, "final counter");
    assert_tiles(5, &old, inc, "atom_add");
}

/// The initial values of the 14 global slots of [`every_operation`]'s kernel.
const INIT: [i64; 14] = [
    0x7fff_fff0,           // add (carries across bit 32)
    0x1_0000_0000,         // sub (borrows across bit 32)
    0x5555_5555_aaaa_aaaa, // xchg
    0xffff_fff0,           // inc
    0x1_0000_0010,         // dec
    i64::MAX,              // min (signed)
    i64::MIN,              // max (signed)
    -1,                    // and
    0,                     // or
    0x0123_4567_89ab_cdef, // xor
    0x0000_0007_0000_0005, // cmpxchg: no value equals it, one work-item wins
    -1,                    // min (unsigned)
    0,                     // max (unsigned)
    0x1234_5678_0000_0000, // cmpxchg whose expected value differs only in the high word
];

/// Every `atom_*` on `long`/`ulong` slots `g[0..14]` (global: one set; local: one set per
/// group, copied out to `g`). `old` gets 5 returned values per work-item.
fn every_operation_kernel(space: &str) -> String {
    let (decl, setup, copy_out) = if space == "__local" {
        (
            "__local long s[14];",
            "if (get_local_id(0) == 0) for (int j = 0; j < 14; j++) s[j] = g[get_group_id(0) * 14 + j];
             barrier(CLK_LOCAL_MEM_FENCE);",
            "barrier(CLK_LOCAL_MEM_FENCE);
             if (get_local_id(0) == 0) for (int j = 0; j < 14; j++) g[get_group_id(0) * 14 + j] = s[j];",
        )
    } else {
        ("", "volatile __global long *s = g;", "")
    };
    format!(
        "{EXT}
        __kernel void k(__global const long *v, volatile __global long *g, __global long *old) {{
            {decl}
            int i = get_global_id(0);
            long x = v[i];
            {setup}
            volatile __global long *o = old + 5 * i;
            o[0] = atom_add(&s[0], x & 0xffffffffffL);
            atom_sub(&s[1], x & 0xffffffffffL);
            o[1] = atom_xchg(&s[2], x);
            o[2] = atom_inc(&s[3]);
            o[3] = atom_dec(&s[4]);
            atom_min(&s[5], x);
            atom_max(&s[6], x);
            atom_and(&s[7], x | 0x0f0f0f0f0f0f0f0fL | (1L << (i & 63)));
            atom_or(&s[8], x & 0x1010101010101010L);
            atom_xor(&s[9], x);
            o[4] = atom_cmpxchg(&s[10], 0x0000000700000005L, x);
            atom_min((volatile {space} ulong *)&s[11], (ulong)x);
            atom_max((volatile {space} ulong *)&s[12], (ulong)x);
            atom_cmpxchg(&s[13], 0x1234567900000000L, x); // fails: only the high word differs
            {copy_out}
        }}"
    )
}

/// Checks the 14 slots `g` and the returned values `old` of the work-items with values `x`.
#[track_caller]
fn check_every_operation(g: &[i64], x: &[i64], old: &[i64], what: &str) {
    let n = x.len();
    let low40 = |x: i64| x & 0xff_ffff_ffff;
    let add: i64 = x.iter().map(|&x| low40(x)).sum();
    let want = [
        INIT[0] + add,
        INIT[1] - add,
        g[2], // checked below
        INIT[3] + n as i64,
        INIT[4] - n as i64,
        *x.iter().min().unwrap(),
        *x.iter().max().unwrap(),
        (0..n).fold(-1, |a, i| a & (x[i] | 0x0f0f_0f0f_0f0f_0f0f | (1 << (i & 63)))),
        x.iter().fold(0, |a, &x| a | (x & 0x1010_1010_1010_1010)),
        x.iter().fold(INIT[9], |a, &x| a ^ x),
        g[10], // checked below
        x.iter().map(|&x| x as u64).min().unwrap() as i64,
        x.iter().map(|&x| x as u64).max().unwrap() as i64,
        INIT[13],
    ];
    assert_eq!(g, &want, "{what}: final values");
    let col = |k: usize| (0..n).map(|i| old[5 * i + k]).collect::<Vec<i64>>();
    assert_tiles(INIT[0] as i128, &col(0), |i| low40(x[i]) as i128, &format!("{what}: atom_add"));
    assert_xchg_chain(INIT[2], x, &col(1), g[2], &format!("{what}: atom_xchg"));
    let mut inc = col(2);
    inc.sort();
    assert_eq!(inc, (0..n as i64).map(|k| INIT[3] + k).collect::<Vec<_>>(), "{what}: atom_inc tickets");
    let mut dec = col(3);
    dec.sort();
    assert_eq!(dec, (0..n as i64).map(|k| INIT[4] - n as i64 + 1 + k).collect::<Vec<_>>(), "{what}: atom_dec tickets");
    // cmpxchg: exactly one work-item saw the initial value and stored its x; the others saw x of
    // that winner.
    let cx = col(4);
    let winners: Vec<usize> = (0..n).filter(|&i| cx[i] == INIT[10]).collect();
    assert_eq!(winners.len(), 1, "{what}: atom_cmpxchg winners {winners:?}");
    let w = winners[0];
    assert_eq!(g[10], x[w], "{what}: atom_cmpxchg stored the winner's value");
    assert!((0..n).all(|i| i == w || cx[i] == x[w]), "{what}: atom_cmpxchg losers return the current value");
}

fn every_operation_global(options: &str) {
    let x = values(641, N);
    let src = every_operation_kernel("__global");
    let out = run_source(&src, options, "k", &[N], Some(&[64]), None, &[buf(&x), buf(&INIT), zeros(8 * 5 * N)]);
    let (g, old): (Vec<i64>, Vec<i64>) = (read(&out[1]), read(&out[2]));
    check_every_operation(&g, &x, &old, "global");
}
both_opt_levels!(global_atom_every_operation, global_atom_every_operation_o0, every_operation_global);

fn every_operation_local(options: &str) {
    let x = values(642, N);
    let src = every_operation_kernel("__local");
    let init: Vec<i64> = (0..N / 64).flat_map(|_| INIT).collect();
    let out = run_source(&src, options, "k", &[N], Some(&[64]), None, &[buf(&x), buf(&init), zeros(8 * 5 * N)]);
    let (g, old): (Vec<i64>, Vec<i64>) = (read(&out[1]), read(&out[2]));
    for grp in 0..N / 64 {
        let r = 64 * grp..64 * grp + 64;
        check_every_operation(
            &g[14 * grp..14 * grp + 14],
            &x[r.clone()],
            &old[5 * r.start..5 * r.end],
            &format!("local, group {grp}"),
        );
    }
}
both_opt_levels!(local_atom_every_operation, local_atom_every_operation_o0, every_operation_local);

#[test]
fn cmpxchg_compares_and_returns_all_64_bits() {
    // Per work-item slots: a compare that matches (stores), one that differs only in the high
    // word, one that differs only in the low word (neither stores); each returns the old value.
    let src = format!(
        "{EXT}
        __kernel void k(volatile __global ulong *s, __global ulong *old) {{
            int i = get_global_id(0);
            ulong base = 0x8000000100000000UL + ((ulong)i << 33) + (ulong)i;
            old[3 * i + 0] = atom_cmpxchg(&s[3 * i + 0], base, ~base);
            old[3 * i + 1] = atom_cmpxchg(&s[3 * i + 1], base ^ 0x100000000UL, 1);
            old[3 * i + 2] = atom_cmpxchg(&s[3 * i + 2], base ^ 1, 2);
        }}"
    );
    let base = |i: usize| 0x8000_0001_0000_0000u64.wrapping_add((i as u64) << 33).wrapping_add(i as u64);
    let init: Vec<u64> = (0..N).flat_map(|i| [base(i); 3]).collect();
    let out = run1(&src, "k", N, 32, &[buf(&init), zeros(8 * 3 * N)]);
    let (s, old): (Vec<u64>, Vec<u64>) = (read(&out[0]), read(&out[1]));
    for i in 0..N {
        assert_eq!(&s[3 * i..3 * i + 3], &[!base(i), base(i), base(i)], "work-item {i}: memory");
        assert_eq!(&old[3 * i..3 * i + 3], &[base(i); 3], "work-item {i}: returned old values");
    }
}

#[test]
fn cmpxchg_retry_loop_in_kernel_code() {
    // A user-written CAS loop (64-bit max of a product) in divergent code: only odd work-items.
    let src = format!(
        "{EXT}
        __kernel void k(volatile __global long *m, __global const long *v) {{
            int i = get_global_id(0);
            if (i & 1) {{
                long want = v[i] * 3, seen = *m, prev;
                while (want > seen && (prev = atom_cmpxchg(m, seen, want)) != seen) seen = prev;
            }}
        }}"
    );
    let x = values(643, N);
    let out = run1(&src, "k", N, 64, &[buf(&[i64::MIN]), buf(&x)]);
    let m: Vec<i64> = read(&out[0]);
    let want = (0..N).filter(|i| i & 1 == 1).map(|i| x[i].wrapping_mul(3)).max().unwrap();
    assert_eq!(m[0], want);
}

#[test]
fn divergent_lanes_and_loops_with_64_bit_atomics() {
    // Atomics under divergent branches and in loops whose trip count differs per lane: each
    // lane's CAS loop must end for every lane, whichever lanes are active.
    let src = format!(
        "{EXT}
        __kernel void k(volatile __global ulong *c, __global ulong *old) {{
            int i = get_global_id(0);
            if (i % 3 == 0) old[i] = atom_add(&c[0], 0x100000000UL | i);
            else if (i % 3 == 1) old[i] = atom_sub(&c[1], 0x100000001UL);
            for (int k = 0; k < i % 7; k++) atom_xor(&c[2 + (k & 1)], (ulong)(i + 1) << (k * 9));
        }}"
    );
    let out = run1(&src, "k", N, 64, &[buf(&[1u64 << 40, 1 << 40, 0, 0]), zeros(8 * N)]);
    let (c, old): (Vec<u64>, Vec<u64>) = (read(&out[0]), read(&out[1]));
    let add: u64 = (0..N).filter(|i| i % 3 == 0).map(|i| 0x1_0000_0000 | i as u64).sum();
    let subs = (0..N).filter(|i| i % 3 == 1).count() as u64;
    let mut x = [0u64; 2];
    for i in 0..N {
        for k in 0..i % 7 {
            x[k & 1] ^= ((i + 1) as u64) << (k * 9);
        }
    }
    assert_eq!(c, vec![(1 << 40) + add, (1 << 40) - subs * 0x1_0000_0001, x[0], x[1]]);
    let adders: Vec<i64> = (0..N).filter(|i| i % 3 == 0).map(|i| old[i] as i64).collect();
    let inc: Vec<i128> = (0..N).filter(|i| i % 3 == 0).map(|i| (0x1_0000_0000 | i) as i128).collect();
    assert_tiles(1 << 40, &adders, |k| inc[k], "divergent atom_add");
    let mut sub: Vec<u64> = (0..N).filter(|i| i % 3 == 1).map(|i| old[i]).collect();
    sub.sort();
    let want: Vec<u64> = (1..=subs).rev().map(|k| (1u64 << 40) - (k - 1) * 0x1_0000_0001).rev().collect();
    let mut want = want;
    want.sort();
    assert_eq!(sub, want, "divergent atom_sub olds");
}

#[test]
fn heavy_contention_across_work_groups_is_exact() {
    // 64 work-groups × 256 work-items (8 warps each) on one counter pair: the groups run on all
    // host threads at once (VENTUS_THREADS), warps interleave, and all 32 lanes of a warp
    // contend for the same address.
    const G: usize = 64 * 256;
    let src = format!(
        "{EXT}
        __kernel void k(volatile __global ulong *c, __global ulong *ticket) {{
            ticket[get_global_id(0)] = atom_inc(&c[0]);
            atom_add(&c[1], 0x100000001UL);
            atom_sub(&c[2], 0x100000001UL);
            atom_max(&c[3], (ulong)get_global_id(0) << 32);
        }}"
    );
    let out = run1(&src, "k", G, 256, &[buf(&[0xffff_0000u64, 0, 0, 0]), zeros(8 * G)]);
    let (c, mut t): (Vec<u64>, Vec<u64>) = (read(&out[0]), read(&out[1]));
    let n = G as u64;
    assert_eq!(
        c,
        vec![0xffff_0000 + n, n * 0x1_0000_0001, 0u64.wrapping_sub(n * 0x1_0000_0001), (n - 1) << 32],
        "counters"
    );
    t.sort();
    assert_eq!(t, (0..n).map(|k| 0xffff_0000 + k).collect::<Vec<_>>(), "atom_inc tickets");
}

#[test]
fn local_contention_then_global_publish() {
    // Every lane of a group adds into one __local counter, then lane 0 adds the group total
    // into a global counter.
    let src = format!(
        "{EXT}
        __kernel void k(volatile __global long *total, __global long *per_group) {{
            __local long s;
            if (get_local_id(0) == 0) s = -(1L << 40);
            barrier(CLK_LOCAL_MEM_FENCE);
            atom_add(&s, 0x300000001L);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (get_local_id(0) == 0) {{
                per_group[get_group_id(0)] = s;
                atom_add(total, s);
            }}
        }}"
    );
    let groups = 16;
    let out = run1(&src, "k", groups * 256, 256, &[zeros(8), zeros(8 * groups)]);
    let (total, per): (Vec<i64>, Vec<i64>) = (read(&out[0]), read(&out[1]));
    let g = -(1i64 << 40) + 256 * 0x3_0000_0001;
    assert_eq!(per, vec![g; groups]);
    assert_eq!(total[0], g * groups as i64);
}

#[test]
fn c11_atomic_long_functions_in_opencl_c_3_0() {
    // The C11 forms clang 15 offers for atomic_long/atomic_ulong under -cl-std=CL3.0. One
    // work-group per run so that memory_scope_work_group covers every access.
    let src = "
        __kernel void k(volatile __global atomic_long *c, volatile __global atomic_ulong *u,
                        __global long *old, __global long *out) {
            __local atomic_long s;
            int i = get_global_id(0);
            if (i == 0) atomic_init(&s, 0x7ffffffffL);
            barrier(CLK_LOCAL_MEM_FENCE);
            old[4 * i + 0] = atomic_fetch_add(&c[0], 0x100000000L + i);
            old[4 * i + 1] = atomic_fetch_sub_explicit(&c[1], 0xffffffffL, memory_order_relaxed, memory_scope_work_group);
            atomic_fetch_or_explicit(&c[2], 1L << (i & 63), memory_order_relaxed, memory_scope_work_group);
            atomic_fetch_and_explicit(&c[3], ~(1L << (i & 63)), memory_order_relaxed, memory_scope_work_group);
            atomic_fetch_xor(&c[4], (long)i << 30);
            atomic_fetch_min(&c[5], -0x100000000L * i);
            atomic_fetch_max(&u[0], (ulong)i << 40);
            atomic_fetch_min_explicit(&u[1], 0xffffffff00000000UL + i, memory_order_relaxed, memory_scope_work_group);
            old[4 * i + 2] = atomic_exchange(&c[6], (long)i << 32);
            long e = 0x100000000L;
            old[4 * i + 3] = atomic_compare_exchange_strong(&c[7], &e, 0x200000000L + i) ? -1 : e;
            atomic_fetch_add_explicit(&s, 0x100000001L, memory_order_relaxed, memory_scope_work_group);
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            if (i == 0) {
                atomic_store(&c[8], atomic_load(&s));
                out[0] = atomic_load_explicit(&c[8], memory_order_relaxed, memory_scope_work_group);
            }
        }";
    let init: [i64; 9] = [0, 0x10_0000_0000, 0, -1, 0, 0, 0, 0x1_0000_0000, 0];
    let out = run_source(
        src,
        "-cl-std=CL3.0",
        "k",
        &[N],
        Some(&[N]),
        None,
        &[buf(&init), buf(&[0u64, u64::MAX]), zeros(8 * 4 * N), zeros(8)],
    );
    let (c, u, old, res): (Vec<i64>, Vec<u64>, Vec<i64>, Vec<i64>) =
        (read(&out[0]), read(&out[1]), read(&out[2]), read(&out[3]));
    let n = N as i64;
    let add: i64 = (0..n).map(|i| 0x1_0000_0000 + i).sum();
    let local = 0x7_ffff_ffff + n * 0x1_0000_0001;
    let col = |k: usize| (0..N).map(|i| old[4 * i + k]).collect::<Vec<i64>>();
    assert_eq!(c[0], add, "atomic_fetch_add");
    assert_tiles(0, &col(0), |i| 0x1_0000_0000 + i as i128, "atomic_fetch_add");
    assert_eq!(c[1], 0x10_0000_0000 - n * 0xffff_ffff, "atomic_fetch_sub_explicit");
    let mut subs = col(1);
    subs.sort();
    assert_eq!(subs, (1..=n).map(|k| 0x10_0000_0000 - (n - k) * 0xffff_ffff).collect::<Vec<_>>(), "sub olds");
    assert_eq!(c[2], -1, "atomic_fetch_or_explicit");
    assert_eq!(c[3], 0, "atomic_fetch_and_explicit");
    assert_eq!(c[4], (0..n).fold(0, |a, i| a ^ (i << 30)), "atomic_fetch_xor");
    assert_eq!(c[5], -0x1_0000_0000 * (n - 1), "atomic_fetch_min");
    assert_eq!(u, vec![(N as u64 - 1) << 40, 0xffff_ffff_0000_0000], "atomic_ulong max/min");
    assert_xchg_chain(0, &(0..n).map(|i| i << 32).collect::<Vec<_>>(), &col(2), c[6], "atomic_exchange");
    let cx = col(3);
    let winners: Vec<usize> = (0..N).filter(|&i| cx[i] == -1).collect();
    assert_eq!(winners.len(), 1, "atomic_compare_exchange_strong winners");
    let w = winners[0] as i64;
    assert_eq!(c[7], 0x2_0000_0000 + w, "atomic_compare_exchange_strong stored");
    assert!(cx.iter().all(|&e| e == -1 || e == 0x2_0000_0000 + w), "failed compare-exchanges load the current value");
    assert_eq!((c[8], res[0]), (local, local), "__local atomic_fetch_add_explicit, atomic_store/atomic_load");
}

#[test]
fn extensions_are_reported_and_defined_for_the_compiler() {
    let src = "
        #if !defined(cl_khr_int64_base_atomics) || !defined(cl_khr_int64_extended_atomics)
        #error int64 atomics extensions not defined
        #endif
        __kernel void k(__global long *p) { atom_inc(p); }";
    build_only(src, "");
    build_only(src, "-cl-std=CL3.0");
    let exts = cl::info_string(cl::cl().clGetDeviceInfo, cl::device(), cl::CL_DEVICE_EXTENSIONS);
    for e in ["cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"] {
        assert!(exts.split_whitespace().any(|x| x == e), "{e} missing from CL_DEVICE_EXTENSIONS: {exts}");
    }
}

#[test]
fn cas_loops_with_spilled_values_live_across_them() {
    // K longs (2K vector registers, more than the allocator has) stay live across a 64-bit
    // atomic loop and a compare-exchange: operands and results of `amocas.d` are reloaded from
    // and spilled to private memory around the fixed register pairs.
    const K: usize = 150;
    let loads: String = (0..K).map(|k| format!("long x{k} = v[i * {K} + {k}];\n")).collect();
    let sum: String = (0..K).map(|k| format!(" + x{k} * {}", k + 1)).collect();
    let src = format!(
        "{EXT}
        __kernel void k(__global const long *v, volatile __global long *c, __global long *out) {{
            int i = get_global_id(0);
            {loads}
            long o = atom_add(&c[0], x{last} | 1);
            long p = atom_cmpxchg(&c[1], 0, x0);
            out[i] = o + p{sum};
        }}",
        last = K - 1
    );
    let n = 64;
    let v = values(644, n * K);
    let out = run1(&src, "k", n, 64, &[buf(&v), zeros(16), zeros(8 * n)]);
    let (c, res): (Vec<i64>, Vec<i64>) = (read(&out[1]), read(&out[2]));
    let inc = |i: usize| v[i * K + K - 1] | 1;
    assert_eq!(c[0], (0..n).fold(0i64, |a, i| a.wrapping_add(inc(i))), "atom_add total");
    let winner = (0..n).find(|&i| c[1] == v[i * K]).expect("a cmpxchg winner");
    let mut olds = Vec::new();
    for i in 0..n {
        let s = (0..K).fold(0i64, |a, k| a.wrapping_add(v[i * K + k].wrapping_mul(k as i64 + 1)));
        let p = if i == winner { 0 } else { v[winner * K] };
        olds.push(res[i].wrapping_sub(s).wrapping_sub(p));
    }
    // The old values chain (modulo 2^64) from 0 through every work-item's increment.
    let mut by_old: std::collections::HashMap<i64, usize> = (0..n).map(|i| (olds[i], i)).collect();
    let mut at = 0i64;
    for step in 0..n {
        let i = by_old.remove(&at).unwrap_or_else(|| panic!("step {step}: no work-item saw {at:#x}; olds {olds:x?}"));
        at = at.wrapping_add(inc(i));
    }
}

#[test]
fn atomics_on_a_local_pointer_argument() {
    // `__local ulong *` set with clSetKernelArg(size, NULL): every lane sets its bit in a 64-bit
    // mask and counts in the high word.
    let src = format!(
        "{EXT}
        __kernel void k(__local ulong *s, __global ulong *out) {{
            int l = get_local_id(0);
            if (l == 0) {{ s[0] = 0; s[1] = 0; }}
            barrier(CLK_LOCAL_MEM_FENCE);
            atom_or(&s[0], 1UL << l);
            atom_add(&s[1], 1UL << 32);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0) {{ out[2 * get_group_id(0)] = s[0]; out[2 * get_group_id(0) + 1] = s[1]; }}
        }}"
    );
    let out = run1(&src, "k", 4 * 64, 64, &[Arg::Local(16), zeros(8 * 8)]);
    let got: Vec<u64> = read(&out[1]);
    assert_eq!(got, [u64::MAX, 64 << 32].repeat(4));
}
