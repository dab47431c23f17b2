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
        let r = if x < 0 {
            -x * 3
        } else if x % 5 == 0 {
            x / 5
        } else {
            (x << 2) ^ 0x55
        };
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
            let want =
                (x % lx) + 10 * (y % ly) + 100 * (x / lx) + 1000 * (y / ly) + 10000 * lx + 100000 * (gy / ly) + 2000000;
            assert_eq!(got[(y * gx + x) as usize], want as i32, "({x},{y})");
        }
    }
}

#[test]
fn program_scope_constants_private_arrays_structs_and_switch() {
    let src = "
        __constant int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
        typedef struct { int a; float b; short c; } S;
        int helper(__private int *p, int n) { int s = 0; for (int k = 0; k < n; k++) s += p[k]; return s; }
        __kernel void k(__global int *out, __constant int *cargs, S s) {
            int i = get_global_id(0);
            int priv[6];
            for (int k = 0; k < 6; k++) priv[k] = table[(i + k) & 7] * cargs[k % 2];
            int r = helper(priv, 2 + i % 4);
            switch (i % 5) {
                case 0: r += 1000; break;
                case 1: r -= s.a; break;
                case 3: r *= s.c; break;
                default: r = r + (int)s.b;
            }
            out[i] = r;
        }";
    let table = [3, 1, 4, 1, 5, 9, 2, 6];
    let cargs = [2, -3];
    let mut sbytes = Vec::new();
    sbytes.extend(17i32.to_le_bytes());
    sbytes.extend(2.75f32.to_le_bytes());
    sbytes.extend(7i16.to_le_bytes());
    sbytes.extend([0u8; 2]);
    let out = run(src, "k", &[48], &[16], &[zeros(4 * 48), i32s(&cargs), A::Val(sbytes)]);
    let got = as_i32(&out[0]);
    for i in 0..48usize {
        let priv_: Vec<i32> = (0..6).map(|k| table[(i + k) & 7] * cargs[k % 2]).collect();
        let mut r: i32 = priv_[..2 + i % 4].iter().sum();
        match i % 5 {
            0 => r += 1000,
            1 => r -= 17,
            3 => r *= 7,
            _ => r += 2,
        }
        assert_eq!(got[i], r, "i={i}");
    }
}

#[test]
fn chars_shorts_vectors_and_swizzles() {
    let src = "
        __kernel void k(__global const uchar4 *in, __global short2 *out, __global float4 *f) {
            int i = get_global_id(0);
            uchar4 v = in[i];
            char s = (char)v.x - (char)v.w;
            short a = (short)(v.y * v.z) - 300;
            out[i] = (short2)(a, (short)s * 3);
            float4 g = convert_float4(v).wzyx * 0.5f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
            f[i] = g.s3210 + g.xxyy;
        }";
    let n = 64;
    let input: Vec<u8> = (0..4 * n).map(|k| ((k * 37 + 11) % 256) as u8).collect();
    let out = run(src, "k", &[n as u32], &[32], &[A::Buf(input.clone()), zeros(4 * n), zeros(16 * n)]);
    let sh: Vec<i16> = out[1].chunks(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
    let fl = as_f32(&out[2]);
    for i in 0..n {
        let v = &input[4 * i..4 * i + 4];
        let s = (v[0] as i8).wrapping_sub(v[3] as i8);
        let a = ((v[1] as i32 * v[2] as i32) as i16).wrapping_sub(300);
        assert_eq!(sh[2 * i], a, "a i={i}");
        assert_eq!(sh[2 * i + 1], (s as i16).wrapping_mul(3), "s i={i}");
        let vf: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        let g = [vf[3] * 0.5 + 1.0, vf[2] * 0.5 + 2.0, vf[1] * 0.5 + 3.0, vf[0] * 0.5 + 4.0];
        let want = [g[3] + g[0], g[2] + g[0], g[1] + g[1], g[0] + g[1]];
        assert_eq!(&fl[4 * i..4 * i + 4], &want, "f i={i}");
    }
}

#[test]
fn global_and_local_atomics_histogram() {
    let src = "
        __kernel void hist(__global const uint *data, __global uint *bins, __local uint *lbins) {
            uint lid = get_local_id(0);
            if (lid < 16) lbins[lid] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            atomic_inc(&lbins[data[get_global_id(0)] & 15]);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < 16) atomic_add(&bins[lid], lbins[lid]);
            if (get_global_id(0) == 0) atomic_max(&bins[16], 77u);
        }";
    let n = 512;
    let data: Vec<u32> = (0..n).map(|i| (i * 7919 + 13) as u32).collect();
    let out = run(src, "hist", &[n as u32], &[64], &[u32s(&data), zeros(4 * 17), A::Local(64)]);
    let bins = as_u32(&out[1]);
    for (b, &bin) in bins.iter().enumerate().take(16) {
        assert_eq!(bin, data.iter().filter(|d| *d & 15 == b as u32).count() as u32, "bin {b}");
    }
    assert_eq!(bins[16], 77);
}

#[test]
fn math_subset() {
    let src = "
        __kernel void m(__global const float *x, __global float *o) {
            int i = get_global_id(0); float v = x[i];
            o[8*i+0] = fabs(v) + floor(v) + ceil(v);
            o[8*i+1] = trunc(v) + rint(v) + round(v);
            o[8*i+2] = sqrt(fabs(v)) * fmin(v, 1.5f) - fmax(v, -2.0f);
            o[8*i+3] = fma(v, 3.0f, -1.0f) + clamp(v, -1.0f, 1.0f);
            o[8*i+4] = copysign(2.0f, v) + mix(1.0f, 3.0f, 0.25f) + step(0.0f, v) + sign(v);
            o[8*i+5] = (float)(clz((uint)(i + 1)) + popcount((uint)i * 2654435761u));
            o[8*i+6] = (float)(mul_hi(i * 123456789, 987654321) + rotate((uint)i, 5u) + abs(i - 20) + min(i, 7) + max(i, 30));
            o[8*i+7] = native_divide(v, 4.0f) + native_recip(2.0f);
        }";
    let n = 40;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 20.0) * 0.37).collect();
    let out = run(src, "m", &[n as u32], &[8], &[f32s(&x), zeros(32 * n)]);
    let o = as_f32(&out[1]);
    let rne = |v: f32| v.round_ties_even();
    for i in 0..n {
        let v = x[i];
        let ii = i as i32;
        let want = [
            v.abs() + v.floor() + v.ceil(),
            v.trunc() + rne(v) + v.round(),
            v.abs().sqrt() * v.min(1.5) - v.max(-2.0),
            v.mul_add(3.0, -1.0) + v.clamp(-1.0, 1.0),
            2.0f32.copysign(v)
                + 1.5
                + if v < 0.0 { 0.0 } else { 1.0 }
                + if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    0.0
                },
            ((ii as u32 + 1).leading_zeros() + (ii as u32).wrapping_mul(2654435761).count_ones()) as f32,
            // int + uint is uint in C.
            ((((ii.wrapping_mul(123456789) as i64 * 987654321i64) >> 32) as u32)
                .wrapping_add((ii as u32).rotate_left(5))
                .wrapping_add((ii - 20).unsigned_abs())
                .wrapping_add(ii.min(7) as u32)
                .wrapping_add(ii.max(30) as u32)) as f32,
            v / 4.0 + 0.5,
        ];
        for k in 0..8 {
            // a*b±c may be fused (OpenCL contraction: mad), so allow an ulp of the operands' scale.
            assert!(
                (o[8 * i + k] - want[k]).abs() <= (want[k].abs() + 4.0) * 2e-7,
                "i={i} k={k}: {} vs {}",
                o[8 * i + k],
                want[k]
            );
        }
    }
}

#[test]
fn register_pressure_forces_spills() {
    // 24 float16 values (384 scalars) live at once exceed the 252 allocatable vector registers.
    let mut src = String::from(
        "__kernel void p(__global const float16 *in, __global float *out) {\n int i = get_global_id(0);\n",
    );
    for k in 0..24 {
        src.push_str(&format!(" float16 v{k} = in[i * 24 + {k}] * (float)({k} + 1);\n"));
    }
    src.push_str(" float16 acc = (float16)(0.0f);\n");
    for k in 0..24 {
        src.push_str(&format!(" acc = acc * 0.5f + v{k} * v{};\n", 23 - k));
    }
    src.push_str(" out[i] = acc.s0 + acc.s5 + acc.sa + acc.sf; }\n");
    let n = 64;
    let input: Vec<f32> = (0..n * 24 * 16).map(|k| ((k * 7) % 13) as f32 - 6.0).collect();
    let out = run(&src, "p", &[n as u32], &[32], &[f32s(&input), zeros(4 * n)]);
    let got = as_f32(&out[1]);
    for i in 0..n {
        let v = |k: usize, e: usize| input[(i * 24 + k) * 16 + e] * (k + 1) as f32;
        let mut acc = [0f32; 16];
        for k in 0..24 {
            for (e, a) in acc.iter_mut().enumerate() {
                *a = *a * 0.5 + v(k, e) * v(23 - k, e);
            }
        }
        let want = acc[0] + acc[5] + acc[10] + acc[15];
        assert!((got[i] - want).abs() <= want.abs() * 1e-5 + 1e-3, "i={i}: {} vs {want}", got[i]);
    }
}

/// mem2reg: at -O0 every local variable arrives as a private-memory slot; after promotion a
/// simple kernel keeps them in registers (no private loads/stores in the generated code), and
/// still computes the right result.
#[test]
fn unoptimized_locals_are_promoted_to_registers() {
    let src = "__kernel void k(__global int *out, int n) {
        int i = get_global_id(0); int acc = 0; int j;
        for (j = 0; j < n; j++) { if ((i + j) % 3 == 0) acc += j; else acc -= 1; }
        out[i] = acc; }";
    // The front end and back end directly (no build cache, which returns no SPIR-V on a hit).
    let compiled = compile(src, "-cl-opt-disable");
    let asm = compiled.asm();
    let private: Vec<&str> = asm
        .lines()
        .filter(|l| {
            ["vlw.v", "vsw.v", "vlb.v", "vsb.v", "vlh.v", "vsh.v"].iter().any(|m| l.trim_start().starts_with(m))
        })
        .collect();
    assert!(private.is_empty(), "private accesses left after mem2reg: {private:?}");
    let n = 37;
    let out = run_compiled(&compiled, "k", &[64], &[32], &[zeros(4 * 64), val_i32(n)], 2).bufs;
    let got = as_i32(&out[0]);
    for i in 0..64 {
        let want: i32 = (0..n).map(|j| if (i + j) % 3 == 0 { j } else { -1 }).sum();
        assert_eq!(got[i as usize], want, "i={i}");
    }
}

/// `shuffle`/`shuffle2` with run-time masks (only the low bits of each mask element count).
#[test]
fn shuffle_and_shuffle2() {
    let src = "__kernel void k(__global const float4 *x, __global const float4 *y, __global const uint4 *m,
                               __global float4 *o, __global float8 *o8) {
        int i = get_global_id(0);
        o[i] = shuffle(x[i], m[i]);
        o8[i] = shuffle2(x[i], y[i], (uint8)(m[i], m[i] >> 2u));
    }";
    let n = 64;
    let x: Vec<f32> = (0..4 * n).map(|k| k as f32).collect();
    let y: Vec<f32> = (0..4 * n).map(|k| -(k as f32) - 0.5).collect();
    let m: Vec<u32> = (0..4 * n as u32).map(|k| k.wrapping_mul(2_654_435_761) >> 7).collect();
    let out = run(src, "k", &[n as u32], &[32], &[f32s(&x), f32s(&y), u32s(&m), zeros(16 * n), zeros(32 * n)]);
    let (o, o8) = (as_f32(&out[3]), as_f32(&out[4]));
    for i in 0..n {
        for e in 0..4 {
            assert_eq!(o[4 * i + e], x[4 * i + (m[4 * i + e] & 3) as usize], "shuffle i={i} e={e}");
        }
        let cat = |j: usize| if j < 4 { x[4 * i + j] } else { y[4 * i + j - 4] };
        for e in 0..8 {
            let mask = if e < 4 { m[4 * i + e] } else { m[4 * i + e - 4] >> 2 };
            assert_eq!(o8[8 * i + e], cat((mask & 7) as usize), "shuffle2 i={i} e={e}");
        }
    }
}

/// Host reference: f32 → f16 bits with a rounding mode (0 = rte, 1 = rtz, 2 = rtp, 3 = rtn),
/// computed from the exact value through f64 (every f32 is exact in f64).
fn f32_to_f16(x: f32, mode: u32) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00 | ((x.to_bits() >> 13) & 0x3ff) as u16;
    }
    let a = (x as f64).abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Magnitude in units of the half's quantum for its binade.
    let e = if a < 2f64.powi(-14) { -24 } else { a.log2().floor() as i32 - 10 };
    let q = a / 2f64.powi(e);
    let (fl, frac) = (q.floor(), q - q.floor());
    let up = match mode {
        0 => frac > 0.5 || (frac == 0.5 && fl % 2.0 == 1.0),
        1 => false,
        2 => frac > 0.0 && sign == 0,
        _ => frac > 0.0 && sign != 0,
    };
    let m = (fl + if up { 1.0 } else { 0.0 }) * 2f64.powi(e);
    let max = 65504.0;
    if m > max {
        let inf = match mode {
            0 => true,
            1 => false,
            2 => sign == 0,
            _ => sign != 0,
        };
        return sign | if inf { 0x7c00 } else { 0x7bff };
    }
    // Encode m exactly.
    if m < 2f64.powi(-14) {
        return sign | (m / 2f64.powi(-24)) as u16;
    }
    let be = m.log2().floor() as i32;
    let mant = ((m / 2f64.powi(be) - 1.0) * 1024.0) as u16;
    sign | (((be + 15) as u16) << 10) | mant
}

fn f16_to_f32(h: u16) -> f32 {
    let s = if h & 0x8000 != 0 { -1.0f64 } else { 1.0 };
    let (e, m) = ((h >> 10) & 31, (h & 0x3ff) as f64);
    match e {
        0 => (s * m * 2f64.powi(-24)) as f32,
        31 if m == 0.0 => (s * f64::INFINITY) as f32,
        31 => f32::from_bits((if s < 0.0 { 0x8000_0000 } else { 0 }) | 0x7fc0_0000 | ((h as u32 & 0x3ff) << 13)),
        _ => (s * (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15)) as f32,
    }
}

/// `vload_half`/`vstore_half` in every rounding mode over edge cases and random values.
#[test]
fn half_loads_and_stores_in_every_rounding_mode() {
    let src = "__kernel void k(__global const float *f, __global half *rte, __global half *rtz, __global half *rtp,
                               __global half *rtn, __global const half *h, __global float *back, __global half *v4) {
        int i = get_global_id(0);
        vstore_half(f[i], i, rte);
        vstore_half_rtz(f[i], i, rtz);
        vstore_half_rtp(f[i], i, rtp);
        vstore_half_rtn(f[i], i, rtn);
        back[i] = vload_half(i, h);
        if (i % 4 == 0) vstore_half4(vload_half4(i / 4, h) * 2.0f, i / 4, v4);
    }";
    #[allow(clippy::excessive_precision)] // exact f32 values (1 + 2^-10, …), written out in full
    let mut f: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        65504.0,
        65519.99,
        65520.0,
        65536.0,
        1e9,
        -1e9,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        6.1035156e-5,
        6.0e-5,
        5.9604645e-8,
        2.9802322e-8,
        2.9802326e-8,
        1e-10,
        -1e-10,
        0.333333,
        1.0009765625,
        1.00048828125,
        1.00146484375,
        -2.00048828125,
        1e-45,
    ];
    let mut seed = 0x1234_5678u32;
    while f.len() < 256 {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let e = (seed >> 24) % 40; // exponents around the half range
        f.push(f32::from_bits((seed & 0x807f_ffff) | ((e + 97) << 23)));
    }
    let n = f.len();
    let h: Vec<u16> = (0..n as u32).map(|k| (k.wrapping_mul(40_503) ^ (k << 9)) as u16).collect();
    let hb: Vec<u8> = h.iter().flat_map(|x| x.to_le_bytes()).collect();
    let args =
        [f32s(&f), zeros(2 * n), zeros(2 * n), zeros(2 * n), zeros(2 * n), A::Buf(hb), zeros(4 * n), zeros(2 * n)];
    let out = run(src, "k", &[n as u32], &[64], &args);
    let halves = |b: &[u8]| b.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect::<Vec<_>>();
    for (mode, idx) in [(0, 1), (1, 2), (2, 3), (3, 4)] {
        let got = halves(&out[idx]);
        for i in 0..n {
            assert_eq!(got[i], f32_to_f16(f[i], mode), "mode {mode}: {:e} ({:#010x})", f[i], f[i].to_bits());
        }
    }
    let back = as_f32(&out[6]);
    let v4 = halves(&out[7]);
    for i in 0..n {
        let want = f16_to_f32(h[i]);
        assert!(back[i].to_bits() == want.to_bits() || (back[i].is_nan() && want.is_nan()), "load {:#06x}", h[i]);
        let w2 = f32_to_f16(want * 2.0, 0);
        assert!(
            v4[i] == w2 || (want.is_nan() && v4[i] & 0x7c00 == 0x7c00),
            "v4 {:#06x}: {:#06x} vs {w2:#06x}",
            h[i],
            v4[i]
        );
    }
}

/// `async_work_group_copy` (global → local, float4 elements, more elements than work-items),
/// `async_work_group_strided_copy` (local → global) and `wait_group_events`, in partial and full
/// work-groups.
#[test]
fn async_work_group_copies() {
    let src = "__kernel void k(__global const float4 *in, __global float4 *rot, __global float *strided, int n) {
        __local float4 tile[100];
        __local float flat[100];
        int g = get_group_id(0), l = get_local_id(0), ls = get_local_size(0);
        event_t e = async_work_group_copy(tile, in + g * n, n, 0);
        wait_group_events(1, &e);
        for (int j = l; j < n; j += ls) { rot[g * n + j] = tile[(j + 1) % n] * 2.0f; flat[j] = tile[j].y; }
        barrier(CLK_LOCAL_MEM_FENCE);
        prefetch(in, 4);
        event_t f = async_work_group_strided_copy(strided + g * 3 * n, flat, n, 3, 0);
        wait_group_events(1, &f);
    }";
    let (n, groups, local) = (77usize, 3usize, 32usize);
    let input: Vec<f32> = (0..4 * n * groups).map(|k| k as f32 * 0.25 - 9.0).collect();
    let out = run(
        src,
        "k",
        &[(groups * local) as u32],
        &[local as u32],
        &[f32s(&input), zeros(16 * n * groups), zeros(12 * n * groups), val_i32(n as i32)],
    );
    let (rot, strided) = (as_f32(&out[1]), as_f32(&out[2]));
    for g in 0..groups {
        for j in 0..n {
            for c in 0..4 {
                let want = input[4 * (g * n + (j + 1) % n) + c] * 2.0;
                assert_eq!(rot[4 * (g * n + j) + c], want, "rot g={g} j={j} c={c}");
            }
            assert_eq!(strided[g * 3 * n + 3 * j], input[4 * (g * n + j) + 1], "strided g={g} j={j}");
            assert_eq!(strided[g * 3 * n + 3 * j + 1], 0.0);
        }
    }
}

#[test]
fn an_unused_image_helper_does_not_stop_the_build() {
    // Real programs (e.g. Rodinia particlefilter) carry image helpers that their kernels never call:
    // the module declares image capabilities, which only matter where a kernel uses images.
    let src = "float unused_helper(image2d_t img, sampler_t s) { return read_imagef(img, s, (int2)(0, 0)).x; }
        __kernel void k(__global float *a) { a[get_global_id(0)] *= 2.0f; }";
    let a = iota_f(32);
    let out = run(src, "k", &[32], &[32], &[f32s(&a)]);
    assert_eq!(as_f32(&out[0]), a.iter().map(|x| x * 2.0).collect::<Vec<_>>());
}

#[test]
fn a_conditional_branch_whose_edges_meet_in_one_block() {
    // Found by random-program testing: with `1 / (… + 1)` clang's -O2 emits `freeze`, the
    // front end retries with LLVM's pipeline cut short, and the IR keeps `b: condbr c, d, e;
    // e: br d; d: br join` — after the empty blocks go, `b` branches to `join` on both edges.
    let src = "__kernel void k(__global const int *in, __global int *out) {
        int x = in[0]; int a = 1; int q = 1;
        if (x & 1) q = 0;
        else a -= (1 > x) ? 1 : min(1, 186);
        out[0] = q;
        out[1] = 1 / ((in[1] & 15) + 1); }";
    for (x, y) in [(2, 0), (3, 1), (-4, 15), (0, 7)] {
        let out = run(src, "k", &[1], &[1], &[i32s(&[x, y]), zeros(8)]);
        assert_eq!(as_i32(&out[1]), [if x & 1 != 0 { 0 } else { 1 }, 1 / ((y & 15) + 1)], "x={x} y={y}");
    }
}

/// Soft-double routines called with uniform arguments run as their uniform (scalar) variants
/// (`target::call`), including the routines those call; varying arguments keep the vector ones.
#[test]
fn uniform_doubles_call_the_scalar_variants() {
    let calls = |asm: &str| -> Vec<String> {
        asm.lines().filter_map(|l| l.trim().strip_prefix("jal .Lsub_").map(str::to_string)).collect()
    };
    let uniform = compile(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
        __kernel void u(__global double *o, double a, double b, int n) {
            double s = a;
            for (int k = 0; k < n; k++) s = s / b + exp(a) * sin(s);
            o[get_global_id(0)] = s; }",
        "",
    );
    let called = calls(&uniform.asm());
    assert!(called.iter().any(|c| c == "__vt_d_exp__u") && called.iter().any(|c| c == "__vt_f64_div__u"), "{called:?}");
    assert!(called.iter().all(|c| c.ends_with("__u")), "a vector routine called for uniform doubles: {called:?}");
    let varying = compile(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
        __kernel void v(__global double *o, double a) { size_t i = get_global_id(0); o[i] = o[i] / a; }",
        "",
    );
    assert_eq!(calls(&varying.asm()), ["__vt_f64_div"]);
}
