//! Compiler acceptance corpus: control flow (if/else, loops, switch, divergent break/continue/
//! return, nested divergence) and helper functions, built from source through the ICD loader and
//! checked against Rust references. Some kernels also run unoptimized (`-cl-opt-disable`: clang
//! -O0, every local variable in private memory until the compiler's mem2reg).
// Reference checks walk several parallel arrays by index.
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const N: usize = 256;

#[test]
fn nested_if_else_chains_diverge_and_reconverge() {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], r = 0;
        if (x < 0) {
            if (x < -100) r = 1; else r = 2;
            r *= 10;
        } else if (x < 50) {
            r = x & 1 ? 3 : 4;
        } else {
            if (x % 3 == 0) { r = 5; if (x % 9 == 0) r += 100; }
            else if (x % 3 == 1) r = 6;
            else { r = 7; }
        }
        out[i] = r + i * 1000;
    }";
    let a = Rng(31).i32s(N, -200, 200);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let r = if x < 0 {
            10 * if x < -100 { 1 } else { 2 }
        } else if x < 50 {
            if x & 1 != 0 {
                3
            } else {
                4
            }
        } else if x % 3 == 0 {
            5 + if x % 9 == 0 { 100 } else { 0 }
        } else if x % 3 == 1 {
            6
        } else {
            7
        };
        assert_eq!(got[i], r + i as i32 * 1000, "x={x}");
    }
}

fn collatz(mut n: u32) -> i32 {
    let mut steps = 0;
    while n != 1 && steps < 500 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

#[test]
fn while_loop_with_data_dependent_trip_count() {
    let src = "__kernel void k(__global int *out) {
        uint n = get_global_id(0) + 1;
        int steps = 0;
        while (n != 1 && steps < 500) {
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            steps++;
        }
        out[get_global_id(0)] = steps;
    }";
    let out = run1(src, "k", N, 32, &[zeros(4 * N)]);
    let got: Vec<i32> = read(&out[0]);
    for i in 0..N {
        assert_eq!(got[i], collatz(i as u32 + 1), "n={}", i + 1);
    }
}

#[test]
fn do_while_and_for_loops_with_divergent_bounds() {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i];
        int s = 0, k = 0;
        do { s += k * x; k++; } while (k < (i & 7));
        int p = 1;
        for (int j = x & 15; j > 0; j -= 3) p = p * 3 + j;
        int q = 0;
        for (int j = 0; j < 4; j++) for (int m = 0; m <= j + (i & 3); m++) q += m ^ j;
        out[3 * i] = s; out[3 * i + 1] = p; out[3 * i + 2] = q;
    }";
    let a = Rng(32).i32s(N, -1000, 1000);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(12 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let (mut s, mut k) = (0, 0);
        loop {
            s += k * x;
            k += 1;
            if k >= (i as i32 & 7) {
                break;
            }
        }
        let mut p: i32 = 1;
        let mut j = x & 15;
        while j > 0 {
            p = p * 3 + j;
            j -= 3;
        }
        let mut q = 0;
        for j in 0..4 {
            for m in 0..=j + (i as i32 & 3) {
                q += m ^ j;
            }
        }
        assert_eq!(&got[3 * i..3 * i + 3], &[s, p, q], "i={i} x={x}");
    }
}

both_opt_levels!(
    switch_with_fallthrough_default_and_sparse_cases,
    switch_with_fallthrough_default_and_sparse_cases_unoptimized,
    switch_with_fallthrough_default_and_sparse_cases_with
);

fn switch_with_fallthrough_default_and_sparse_cases_with(options: &str) {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], r = 0;
        switch (x & 15) {
        case 0: r = 10; break;
        case 1:
        case 2: r = 20; /* fall through */
        case 3: r += 30; break;
        case 7: r = x; break;
        case 9: { int t = x * 2; r = t - 1; } break;
        default: r = -1;
        }
        int s;
        switch (x) {
        case -1000: s = 1; break;
        case 5: s = 2; break;
        case 77777: s = 3; break;
        case 123: s = 4; break;
        default: s = 0; break;
        }
        out[i] = r * 10 + s;
    }";
    let mut a = Rng(33).i32s(N, -2000, 2000);
    a[..4].copy_from_slice(&[-1000, 5, 77777, 123]);
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let r = match x & 15 {
            0 => 10,
            1 | 2 => 50,
            3 => 30,
            7 => x,
            9 => x * 2 - 1,
            _ => -1,
        };
        let s = match x {
            -1000 => 1,
            5 => 2,
            77777 => 3,
            123 => 4,
            _ => 0,
        };
        assert_eq!(got[i], r * 10 + s, "x={x}");
    }
}

both_opt_levels!(
    divergent_break_and_continue_in_nested_loops,
    divergent_break_and_continue_in_nested_loops_unoptimized,
    divergent_break_and_continue_in_nested_loops_with
);

fn divergent_break_and_continue_in_nested_loops_with(options: &str) {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], s = 0;
        for (int j = 0; j < 20; j++) {
            if ((j + x) % 4 == 0) continue;
            for (int m = 0; m < 10; m++) {
                if (m * j > x) break;
                if ((m ^ x) & 1) continue;
                s += m + j;
            }
            if (s > 200 + x) break;
        }
        out[i] = s;
    }";
    let a = Rng(34).i32s(N, 0, 150);
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let mut s = 0;
        for j in 0..20 {
            if (j + x) % 4 == 0 {
                continue;
            }
            for m in 0..10 {
                if m * j > x {
                    break;
                }
                if (m ^ x) & 1 != 0 {
                    continue;
                }
                s += m + j;
            }
            if s > 200 + x {
                break;
            }
        }
        assert_eq!(got[i], s, "x={x}");
    }
}

both_opt_levels!(
    early_return_from_the_kernel_is_divergent,
    early_return_from_the_kernel_is_divergent_unoptimized,
    early_return_from_the_kernel_is_divergent_with
);

fn early_return_from_the_kernel_is_divergent_with(options: &str) {
    let src = "__kernel void k(__global const int *a, __global int *out, int n) {
        int i = get_global_id(0);
        if (i >= n) return;
        int x = a[i];
        out[i] = 1;
        if (x < 0) return;
        out[i] = 2;
        if (x % 3 == 0) { out[i] = 3; return; }
        out[i] += x;
    }";
    let a = Rng(35).i32s(N, -50, 50);
    let n = 200;
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), filled(N, -7i32), val(n as i32)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let want = if i >= n {
            -7
        } else if x < 0 {
            1
        } else if x % 3 == 0 {
            3
        } else {
            2 + x
        };
        assert_eq!(got[i], want, "i={i} x={x}");
    }
}

#[test]
fn return_from_inside_a_loop() {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], acc = 0;
        for (int j = 0; j < 64; j++) {
            acc += j * x;
            if (acc > 5000) { out[i] = -j; return; }
            if (j == (x & 31)) break;
        }
        out[i] = acc;
    }";
    let a = Rng(36).i32s(N, 0, 100);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let mut acc = 0;
        let mut want = None;
        for j in 0..64 {
            acc += j * x;
            if acc > 5000 {
                want = Some(-j);
                break;
            }
            if j == (x & 31) {
                break;
            }
        }
        assert_eq!(got[i], want.unwrap_or(acc), "x={x}");
    }
}

both_opt_levels!(
    nested_divergence_inside_loops,
    nested_divergence_inside_loops_unoptimized,
    nested_divergence_inside_loops_with
);

fn nested_divergence_inside_loops_with(options: &str) {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], s = 0, t = 1;
        for (int j = 0; j < 16; j++) {
            if (j & 1) {
                if (x & (1 << (j & 7))) { s += j; if (s & 4) t ^= s; else t += 3; }
                else s -= 1;
            } else {
                int k = 0;
                while (k < (x & 3) + (j & 1)) { t += k * j; k++; }
                if (t > 1000) t -= 1000;
            }
        }
        out[2 * i] = s; out[2 * i + 1] = t;
    }";
    let a: Vec<i32> = Rng(37).u32s(N).into_iter().map(|v| (v & 0xffff) as i32).collect();
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), zeros(8 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x) in a.iter().enumerate() {
        let (mut s, mut t) = (0i32, 1i32);
        for j in 0..16 {
            if j & 1 != 0 {
                if x & (1 << (j & 7)) != 0 {
                    s += j;
                    if s & 4 != 0 {
                        t ^= s;
                    } else {
                        t += 3;
                    }
                } else {
                    s -= 1;
                }
            } else {
                let mut k = 0;
                while k < (x & 3) + (j & 1) {
                    t += k * j;
                    k += 1;
                }
                if t > 1000 {
                    t -= 1000;
                }
            }
        }
        assert_eq!(&got[2 * i..2 * i + 2], &[s, t], "x={x}");
    }
}

#[test]
fn short_circuit_operators_guard_loads() {
    let src = "__kernel void k(__global const int *a, int n, __global int *out) {
        int i = get_global_id(0);
        int r = 0;
        if (i < n && a[i] > 0) r |= 1;
        if (i >= n || a[i] % 2 == 0) r |= 2;
        if (!(i < n) || (a[i] < 10 && a[i] > -10)) r |= 4;
        out[i] = r;
    }";
    let n = 150;
    let a = Rng(38).i32s(n, -20, 20);
    let out = run1(src, "k", N, 64, &[buf(&a), val(n as i32), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[2]);
    for i in 0..N {
        let want = if i < n {
            let x = a[i];
            (x > 0) as i32 | ((x % 2 == 0) as i32) << 1 | ((x < 10 && x > -10) as i32) << 2
        } else {
            6
        };
        assert_eq!(got[i], want, "i={i}");
    }
}

#[test]
fn loop_with_several_exits() {
    let src = "__kernel void k(__global const int *a, __global int *out) {
        int i = get_global_id(0);
        int x = a[i], n = 0, why;
        while (1) {
            n++;
            if (x == 1) { why = 1; break; }
            if (n > 40) { why = 2; break; }
            x = (x & 1) ? x * 3 + 1 : x >> 1;
            if (x > 10000) { why = 3; break; }
        }
        out[i] = why * 1000 + n;
    }";
    let a = Rng(39).i32s(N, 1, 5000);
    let out = run1(src, "k", N, 64, &[buf(&a), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[1]);
    for (i, &x0) in a.iter().enumerate() {
        let (mut x, mut n) = (x0, 0);
        let why = loop {
            n += 1;
            if x == 1 {
                break 1;
            }
            if n > 40 {
                break 2;
            }
            x = if x & 1 != 0 { x * 3 + 1 } else { x >> 1 };
            if x > 10000 {
                break 3;
            }
        };
        assert_eq!(got[i], why * 1000 + n, "x={x0}");
    }
}

#[test]
fn uniform_branches_and_loops_around_divergent_code() {
    let src = "__kernel void k(__global int *out, int mode, int reps) {
        int i = get_global_id(0), s = i;
        for (int r = 0; r < reps; r++) {
            if (mode == 1) { if (s & 1) s = s * 3 + 1; else s >>= 1; }
            else s += r;
        }
        out[i] = s;
    }";
    for (mode, reps) in [(1, 9), (0, 5), (1, 0)] {
        let out = run1(src, "k", N, 128, &[zeros(4 * N), val(mode), val(reps)]);
        let got: Vec<i32> = read(&out[0]);
        for i in 0..N as i32 {
            let mut s = i;
            for r in 0..reps {
                s = if mode == 1 {
                    if s & 1 != 0 {
                        s * 3 + 1
                    } else {
                        s >> 1
                    }
                } else {
                    s + r
                };
            }
            assert_eq!(got[i as usize], s, "mode={mode} reps={reps} i={i}");
        }
    }
}

both_opt_levels!(
    helper_functions_with_private_and_global_pointers,
    helper_functions_with_private_and_global_pointers_unoptimized,
    helper_functions_with_private_and_global_pointers_with
);

fn helper_functions_with_private_and_global_pointers_with(options: &str) {
    let src = "
        int square(int x) { return x * x; }
        void divmod(int a, int b, int *q, int *r) { *q = a / b; *r = a % b; }
        void accumulate(__global int *dst, int v) { *dst += v; }
        int sum3(const int *p) { return p[0] + p[1] + p[2]; }
        float lerp(float a, float b, float t) { return a + (b - a) * t; }
        int classify(int x) { if (x < 0) return -1; if (x == 0) return 0; return 1; }
        __kernel void k(__global const int *a, __global int *out, __global float *f) {
            int i = get_global_id(0);
            int q, r, arr[3];
            divmod(a[i], 7, &q, &r);
            arr[0] = q; arr[1] = r; arr[2] = square(r);
            out[3 * i] = sum3(arr);
            out[3 * i + 1] = classify(a[i]) * square(i & 15);
            out[3 * i + 2] = 5;
            accumulate(&out[3 * i + 2], q);
            f[i] = lerp(0.0f, (float)a[i], 0.5f);
        }";
    let a = Rng(40).i32s(N, -500, 500);
    let out = run_source(src, options, "k", &[N], Some(&[64]), None, &[buf(&a), zeros(12 * N), zeros(4 * N)]);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]));
    for (i, &x) in a.iter().enumerate() {
        let (q, r) = (x / 7, x % 7);
        let want = [q + r + r * r, x.signum() * ((i as i32 & 15).pow(2)), 5 + q];
        assert_eq!(&got[3 * i..3 * i + 3], &want, "x={x}");
        assert_bits(f[i], x as f32 * 0.5, format_args!("lerp x={x}"));
    }
}

#[test]
fn helper_functions_called_under_divergence_and_from_loops() {
    let src = "
        int poly(int x, __constant int *c, int n) {
            int r = 0;
            for (int k = n - 1; k >= 0; k--) r = r * x + c[k];
            return r;
        }
        int gcd(int a, int b) { while (b != 0) { int t = a % b; a = b; b = t; } return a; }
        void swap(__private int *x, __private int *y) { int t = *x; *x = *y; *y = t; }
        __kernel void k(__global const int *a, __constant int *coef, __global int *out) {
            int i = get_global_id(0);
            int x = a[i], y = a[(i + 1) % get_global_size(0)];
            if (x > y) swap(&x, &y);
            int r;
            if (i & 1) r = gcd(y, x);
            else r = poly(x % 10, coef, 4);
            for (int k = 0; k < (i & 3); k++) r += gcd(k + 2, x);
            out[i] = r;
        }";
    let a = Rng(41).i32s(N, 1, 3000);
    let coef = [3i32, -2, 5, 1];
    let out = run1(src, "k", N, 64, &[buf(&a), buf(&coef), zeros(4 * N)]);
    let got: Vec<i32> = read(&out[2]);
    fn gcd(mut a: i32, mut b: i32) -> i32 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    for i in 0..N {
        let (mut x, mut y) = (a[i], a[(i + 1) % N]);
        if x > y {
            std::mem::swap(&mut x, &mut y);
        }
        let mut r = if i & 1 != 0 { gcd(y, x) } else { coef.iter().rev().fold(0, |r, &c| r * (x % 10) + c) };
        for k in 0..(i as i32 & 3) {
            r += gcd(k + 2, x);
        }
        assert_eq!(got[i], r, "i={i}");
    }
}

#[test]
fn a_kernel_may_call_another_kernel() {
    let src = "
        __kernel void scale(__global int *p, int f) { p[get_global_id(0)] *= f; }
        __kernel void k(__global int *p, int f) {
            scale(p, f);
            if (get_global_id(0) % 3 == 0) scale(p, -1);
        }";
    let a: Vec<i32> = (0..N as i32).collect();
    let out = run1(src, "k", N, 64, &[buf(&a), val(3i32)]);
    let got: Vec<i32> = read(&out[0]);
    for i in 0..N {
        assert_eq!(got[i], a[i] * 3 * if i % 3 == 0 { -1 } else { 1 }, "i={i}");
    }
}

/// Several `if`/`else if` arms that compute the same thing become one `switch` case list whose
/// cases share a target; the φ after it lists the switch's block once per case (CTS
/// `integer_ops` `unary_ops_*` failed to build with an internal error on this).
#[test]
fn switch_cases_sharing_a_target_give_one_phi_entry_per_block() {
    let src = "__kernel void k(__global char *io, __global const char *control) {
        size_t i = get_global_id(0);
        char v = io[i];
        if (control[i] == 0) v++;
        else if (control[i] == 1) ++v;
        else if (control[i] == 2) v--;
        else --v;
        io[i] = v;
    }";
    let io: Vec<i8> = (0..N).map(|i| (i as i32 * 37 - 128) as i8).collect();
    let control: Vec<i8> = (0..N).map(|i| (i % 5) as i8).collect();
    let out = run1(src, "k", N, 64, &[buf(&io), buf(&control)]);
    let got: Vec<i8> = read(&out[0]);
    for i in 0..N {
        let want = if control[i] <= 1 { io[i].wrapping_add(1) } else { io[i].wrapping_sub(1) };
        assert_eq!(got[i], want, "item {i}: control {}", control[i]);
    }
}
