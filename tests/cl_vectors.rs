//! Compiler acceptance corpus: vectors of 2/3/4/8/16 elements, swizzles, vector compares and
//! selects, conversions, vload/vstore and vector kernel arguments, built from source through the
//! ICD loader and checked against Rust. Some kernels also run unoptimized (`-cl-opt-disable`).

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

const N: usize = 128;

both_opt_levels!(
    float4_arithmetic_and_swizzles,
    float4_arithmetic_and_swizzles_unoptimized,
    float4_arithmetic_and_swizzles_with
);

fn float4_arithmetic_and_swizzles_with(options: &str) {
    let src = "__kernel void k(__global const float4 *a, __global const float4 *b, __global float4 *out) {
        int i = get_global_id(0);
        float4 x = a[i], y = b[i];
        out[4 * i] = x + y * 2.0f;
        out[4 * i + 1] = x.wzyx * y.xxyy;
        out[4 * i + 2] = (float4)(x.lo, y.hi) - (float4)(x.odd, y.even);
        float4 t = x;
        t.xz = y.yw;
        t.w = -t.w;
        out[4 * i + 3] = t / (float4)(2.0f, 4.0f, 0.5f, 8.0f);
    }";
    let mut r = Rng(61);
    let (a, b) = (r.f32s(4 * N, -100.0, 100.0), r.f32s(4 * N, -100.0, 100.0));
    let out = run_source(src, options, "k", &[N], Some(&[32]), None, &[buf(&a), buf(&b), zeros(64 * N)]);
    let got: Vec<f32> = read(&out[2]);
    for i in 0..N {
        let (x, y) = (&a[4 * i..4 * i + 4], &b[4 * i..4 * i + 4]);
        let t = [y[1], x[1], y[3], -x[3]];
        let want = [
            [x[0] + y[0] * 2.0, x[1] + y[1] * 2.0, x[2] + y[2] * 2.0, x[3] + y[3] * 2.0],
            [x[3] * y[0], x[2] * y[0], x[1] * y[1], x[0] * y[1]],
            [x[0] - x[1], x[1] - x[3], y[2] - y[0], y[3] - y[2]],
            [t[0] / 2.0, t[1] / 4.0, t[2] / 0.5, t[3] / 8.0],
        ];
        for (k, w) in want.iter().flatten().enumerate() {
            assert_bits(got[16 * i + k], *w, format_args!("item {i} vector {} lane {}", k / 4, k % 4));
        }
    }
}

both_opt_levels!(
    three_element_vectors_have_four_element_storage,
    three_element_vectors_have_four_element_storage_unoptimized,
    three_element_vectors_have_four_element_storage_with
);

fn three_element_vectors_have_four_element_storage_with(options: &str) {
    let src = "__kernel void k(__global const int3 *in, __global int3 *out3, __global int *flat, __global float3 *f3) {
        int i = get_global_id(0);
        int3 v = in[i];
        int3 w = v.zxy * (int3)(1, 2, 3) + v;
        out3[i] = w;
        vstore3(w.yzx, i, flat);
        f3[i] = convert_float3(w) * 0.5f;
    }";
    let a = Rng(62).i32s(4 * N, -10000, 10000);
    let out =
        run_source(src, options, "k", &[N], Some(&[32]), None, &[buf(&a), zeros(16 * N), zeros(12 * N), zeros(16 * N)]);
    let (o3, flat, f3): (Vec<i32>, Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]), read(&out[3]));
    for i in 0..N {
        let v = &a[4 * i..4 * i + 3];
        let w = [v[2] + v[0], v[0] * 2 + v[1], v[1] * 3 + v[2]];
        assert_eq!(&o3[4 * i..4 * i + 3], &w, "int3 store, item {i} (sizeof(int3) = 16)");
        assert_eq!(&flat[3 * i..3 * i + 3], &[w[1], w[2], w[0]], "vstore3, item {i}");
        assert_eq!(&f3[4 * i..4 * i + 3], &w.map(|x| x as f32 * 0.5), "float3, item {i}");
    }
}

both_opt_levels!(
    sixteen_and_eight_element_vectors,
    sixteen_and_eight_element_vectors_unoptimized,
    sixteen_and_eight_element_vectors_with
);

fn sixteen_and_eight_element_vectors_with(options: &str) {
    let src = "__kernel void k(__global const int16 *a, __global int16 *out, __global float8 *f) {
        int i = get_global_id(0);
        int16 x = a[i];
        int16 y = x.sfedcba9876543210 + (int16)(i);
        y.s5 = x.s0 * 100;
        y.lo.lo = x.hi.hi * 2;
        out[i] = y ^ (x >> 3);
        float8 fx = convert_float8(x.odd);
        f[i] = fx * 0.5f + (float8)(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f);
    }";
    let a = Rng(63).i32s(16 * N, -1_000_000, 1_000_000);
    let out = run_source(src, options, "k", &[N], Some(&[32]), None, &[buf(&a), zeros(64 * N), zeros(32 * N)]);
    let (got, f): (Vec<i32>, Vec<f32>) = (read(&out[1]), read(&out[2]));
    for i in 0..N {
        let x = &a[16 * i..16 * i + 16];
        let mut y: Vec<i32> = (0..16).map(|k| x[15 - k] + i as i32).collect();
        y[5] = x[0] * 100;
        for k in 0..4 {
            y[k] = x[12 + k] * 2;
        }
        let want: Vec<i32> = (0..16).map(|k| y[k] ^ (x[k] >> 3)).collect();
        assert_eq!(&got[16 * i..16 * i + 16], &want[..], "int16, item {i}");
        for k in 0..8 {
            // x * 0.5 is exact, so a fused and an unfused multiply-add agree.
            assert_bits(f[8 * i + k], x[2 * k + 1] as f32 * 0.5 + (k + 1) as f32, format_args!("float8 {i}.{k}"));
        }
    }
}

fn compare_inputs() -> (Vec<i32>, Vec<i32>, Vec<f32>, Vec<f32>) {
    let mut r = Rng(64);
    let (a, b) = (r.i32s(4 * N, -60, 60), r.i32s(4 * N, -60, 60));
    let (fa, mut fb) = (r.f32s(4 * N, -4.0, 4.0), r.f32s(4 * N, -4.0, 4.0));
    for k in (0..4 * N).step_by(7) {
        fb[k] = fa[k];
    }
    (a, b, fa, fb)
}

#[test]
fn vector_compares_ternary_any_all() {
    let src = "__kernel void k(__global const int4 *a, __global const int4 *b, __global const float4 *fa,
                           __global const float4 *fb, __global int4 *out, __global int *flags) {
        int i = get_global_id(0);
        int4 x = a[i], y = b[i];
        int4 m = x < y;
        out[3 * i] = m;
        out[3 * i + 1] = m ? x * 2 : y - 1;
        float4 p = fa[i], q = fb[i];
        int4 fm = p >= q;
        out[3 * i + 2] = fm;
        flags[i] = any(x > y) | (all(x >= -50) << 1) | (any(fm) << 2) | (all(p != q) << 3);
    }";
    let (a, b, fa, fb) = compare_inputs();
    let args = [buf(&a), buf(&b), buf(&fa), buf(&fb), zeros(48 * N), zeros(4 * N)];
    let out = run1(src, "k", N, 32, &args);
    let (got, flags): (Vec<i32>, Vec<i32>) = (read(&out[4]), read(&out[5]));
    for i in 0..N {
        let (x, y, p, q) = (&a[4 * i..4 * i + 4], &b[4 * i..4 * i + 4], &fa[4 * i..4 * i + 4], &fb[4 * i..4 * i + 4]);
        let m: Vec<i32> = (0..4).map(|k| -((x[k] < y[k]) as i32)).collect();
        let tern: Vec<i32> = (0..4).map(|k| if m[k] != 0 { x[k] * 2 } else { y[k] - 1 }).collect();
        let fm: Vec<i32> = (0..4).map(|k| -((p[k] >= q[k]) as i32)).collect();
        assert_eq!(&got[12 * i..12 * i + 12], &[m, tern, fm].concat()[..], "item {i}");
        let want = (0..4).any(|k| x[k] > y[k]) as i32
            | ((x.iter().all(|&v| v >= -50) as i32) << 1)
            | (((0..4).any(|k| p[k] >= q[k]) as i32) << 2)
            | (((0..4).all(|k| p[k] != q[k]) as i32) << 3);
        assert_eq!(flags[i], want, "any/all, item {i}");
    }
}

#[test]
fn vector_select_builtin() {
    let src = "__kernel void k(__global const int4 *a, __global const int4 *b, __global const float4 *fa,
                           __global const float4 *fb, __global int4 *out, __global float4 *fout) {
        int i = get_global_id(0);
        int4 x = a[i], y = b[i];
        out[i] = select(x, y, x < y);
        fout[i] = select(fb[i], fa[i], fa[i] >= fb[i]);
    }";
    let (a, b, fa, fb) = compare_inputs();
    let args = [buf(&a), buf(&b), buf(&fa), buf(&fb), zeros(16 * N), zeros(16 * N)];
    let out = run1(src, "k", N, 32, &args);
    let (got, fgot): (Vec<i32>, Vec<f32>) = (read(&out[4]), read(&out[5]));
    for j in 0..4 * N {
        assert_eq!(got[j], a[j].max(b[j]), "int select, element {j}");
        assert_eq!(fgot[j], if fa[j] >= fb[j] { fa[j] } else { fb[j] }, "float select, element {j}");
    }
}

#[test]
fn vector_conversions_and_reinterpretations() {
    let src = "__kernel void k(__global const int4 *a, __global const float4 *f, __global const uint *u,
                           __global float4 *of, __global int4 *oi, __global uchar4 *ob, __global short8 *os) {
        int i = get_global_id(0);
        of[i] = convert_float4(a[i]);
        oi[2 * i] = convert_int4(f[i]);
        oi[2 * i + 1] = as_int4(f[i]) & (int4)(0x7fffffff);
        ob[2 * i] = as_uchar4(u[i]);
        ob[2 * i + 1] = convert_uchar4(a[i] & 0xff);
        char8 c = as_char8((int2)(u[i], ~u[i]));
        os[i] = convert_short8(c) + (short8)(1000);
    }";
    let mut r = Rng(65);
    let a: Vec<i32> = r.u32s(4 * N).into_iter().map(|v| v as i32).collect();
    let f = r.f32s(4 * N, -1e6, 1e6);
    let u = r.u32s(N);
    let args = [buf(&a), buf(&f), buf(&u), zeros(16 * N), zeros(32 * N), zeros(8 * N), zeros(16 * N)];
    let out = run1(src, "k", N, 32, &args);
    let (of, oi, ob, os): (Vec<f32>, Vec<i32>, Vec<u8>, Vec<i16>) =
        (read(&out[3]), read(&out[4]), read(&out[5]), read(&out[6]));
    for i in 0..N {
        for k in 0..4 {
            let j = 4 * i + k;
            assert_bits(of[j], a[j] as f32, format_args!("convert_float4 {i}.{k}"));
            assert_eq!(oi[8 * i + k], f[j] as i32, "convert_int4 {i}.{k}");
            assert_eq!(oi[8 * i + 4 + k], (f[j].to_bits() & 0x7fff_ffff) as i32, "as_int4 {i}.{k}");
            assert_eq!(ob[8 * i + k], u[i].to_le_bytes()[k], "as_uchar4 {i}.{k}");
            assert_eq!(ob[8 * i + 4 + k], a[j] as u8, "convert_uchar4 {i}.{k}");
        }
        let bytes = [u[i].to_le_bytes(), (!u[i]).to_le_bytes()].concat();
        let want: Vec<i16> = bytes.iter().map(|&b| b as i8 as i16 + 1000).collect();
        assert_eq!(&os[8 * i..8 * i + 8], &want[..], "convert_short8(as_char8), item {i}");
    }
}

#[test]
fn small_integer_vectors_wrap_per_element() {
    let src = "__kernel void k(__global const char16 *a, __global const char16 *b, __global char16 *oc,
                           __global const ushort8 *s, __global ushort8 *os, __global short8 *om) {
        int i = get_global_id(0);
        char16 x = a[i], y = b[i];
        oc[2 * i] = x + y;
        oc[2 * i + 1] = (x * (char16)(3)) ^ (y >> (char16)(2));
        ushort8 p = s[i], q = s[(i + 1) % N];
        os[i] = p * q + (ushort8)(7) - (p >> (ushort8)(1));
        om[i] = p > q;
    }";
    let mut r = Rng(66);
    let (a, b): (Vec<i8>, Vec<i8>) =
        ((0..16 * N).map(|_| r.next_u32() as i8).collect(), (0..16 * N).map(|_| r.next_u32() as i8).collect());
    let s: Vec<u16> = (0..8 * N).map(|_| r.next_u32() as u16).collect();
    let args = [buf(&a), buf(&b), zeros(32 * N), buf(&s), zeros(16 * N), zeros(16 * N)];
    let out = run_source(src, &format!("-DN={N}"), "k", &[N], Some(&[32]), None, &args);
    let (oc, os, om): (Vec<i8>, Vec<u16>, Vec<i16>) = (read(&out[2]), read(&out[4]), read(&out[5]));
    for i in 0..N {
        for k in 0..16 {
            let (x, y) = (a[16 * i + k], b[16 * i + k]);
            assert_eq!(oc[32 * i + k], x.wrapping_add(y), "char16 add {i}.{k}");
            assert_eq!(oc[32 * i + 16 + k], x.wrapping_mul(3) ^ (y >> 2), "char16 mul/xor {i}.{k}");
        }
        for k in 0..8 {
            let (p, q) = (s[8 * i + k], s[8 * ((i + 1) % N) + k]);
            assert_eq!(os[8 * i + k], p.wrapping_mul(q).wrapping_add(7).wrapping_sub(p >> 1), "ushort8 {i}.{k}");
            assert_eq!(om[8 * i + k], -((p > q) as i16), "ushort8 compare {i}.{k}");
        }
    }
}

#[test]
fn vector_kernel_arguments_by_value() {
    let src = "__kernel void k(float4 scale, __global const float4 *in, int8 offs, __global int8 *out, int3 t) {
        int i = get_global_id(0);
        __global float4 *dst = (__global float4 *)in;
        float4 v = in[i] * scale;
        out[i] = offs + (int8)(i) + (int8)(t, t.zyx, t.s01);
        dst[i] = v;
    }";
    let a = Rng(67).f32s(4 * N, -10.0, 10.0);
    let scale = [0.5f32, -2.0, 4.0, 0.125];
    let offs = [1i32, -2, 3, -4, 500, 600, -700, 800];
    let t = [10i32, 20, 30, 0];
    let args = [val_vec(&scale), buf(&a), val_vec(&offs), zeros(32 * N), val_vec(&t)];
    let out = run1(src, "k", N, 32, &args);
    let (f, got): (Vec<f32>, Vec<i32>) = (read(&out[1]), read(&out[3]));
    let tv = [10, 20, 30, 30, 20, 10, 10, 20];
    for i in 0..N {
        for k in 0..4 {
            assert_bits(f[4 * i + k], a[4 * i + k] * scale[k], format_args!("float4 arg {i}.{k}"));
        }
        let want: Vec<i32> = (0..8).map(|k| offs[k] + i as i32 + tv[k]).collect();
        assert_eq!(&got[8 * i..8 * i + 8], &want[..], "int8/int3 args, item {i}");
    }
}

#[test]
fn vload_and_vstore_at_unaligned_offsets() {
    let src =
        "__kernel void k(__global const float *f, __global const short *s, __global float *of, __global short *os) {
        int i = get_global_id(0);
        float4 a = vload4(0, f + i);
        float2 b = vload2(i, f + 1);
        vstore8((float8)(a, b, b.yx), i, of);
        short8 c = vload8(0, s + 3 * i);
        short3 d = vload3(i, s + 2);
        vstore2(c.s07 + c.s34 + d.s12, 0, os + 2 * i);
    }";
    let mut r = Rng(68);
    let f = r.f32s(2 * N + 8, -100.0, 100.0);
    let s: Vec<i16> = (0..3 * N + 8).map(|_| r.next_u32() as i16).collect();
    let out = run1(src, "k", N, 32, &[buf(&f), buf(&s), zeros(32 * N), zeros(4 * N)]);
    let (of, os): (Vec<f32>, Vec<i16>) = (read(&out[2]), read(&out[3]));
    for i in 0..N {
        let (b0, b1) = (f[1 + 2 * i], f[2 + 2 * i]);
        let want = [f[i], f[i + 1], f[i + 2], f[i + 3], b0, b1, b1, b0];
        assert_eq!(&of[8 * i..8 * i + 8], &want, "vload4/vload2/vstore8, item {i}");
        let c = &s[3 * i..3 * i + 8];
        let d = &s[2 + 3 * i..5 + 3 * i];
        let want = [c[0].wrapping_add(c[3]).wrapping_add(d[1]), c[7].wrapping_add(c[4]).wrapping_add(d[2])];
        assert_eq!(&os[2 * i..2 * i + 2], &want, "vload8/vload3/vstore2, item {i}");
    }
}

#[test]
fn integer_and_float_vector_builtins() {
    let src =
        "__kernel void k(__global const int4 *a, __global const float4 *f, __global int4 *oi, __global float4 *of) {
        int i = get_global_id(0);
        int4 x = a[i], y = a[(i + 3) % N];
        oi[3 * i] = min(x, y) + max(x, (int4)(0));
        oi[3 * i + 1] = clamp(x, -100, 100);
        oi[3 * i + 2] = convert_int4(abs(x)) - convert_int4(abs(x - y)).wzyx;
        float4 p = f[i], q = f[(i + 5) % N];
        of[2 * i] = fmax(p, q) - fmin(p, 0.0f);
        of[2 * i + 1] = fabs(p) + copysign((float4)(1.5f), q);
    }";
    let mut r = Rng(69);
    let a = r.i32s(4 * N, -1000, 1000);
    let f = r.f32s(4 * N, -8.0, 8.0);
    let out = run_source(
        src,
        &format!("-DN={N}"),
        "k",
        &[N],
        Some(&[32]),
        None,
        &[buf(&a), buf(&f), zeros(48 * N), zeros(32 * N)],
    );
    let (oi, of): (Vec<i32>, Vec<f32>) = (read(&out[2]), read(&out[3]));
    for i in 0..N {
        let (x, y) = (&a[4 * i..4 * i + 4], &a[4 * ((i + 3) % N)..4 * ((i + 3) % N) + 4]);
        for k in 0..4 {
            let want = [x[k].min(y[k]) + x[k].max(0), x[k].clamp(-100, 100), x[k].abs() - (x[3 - k] - y[3 - k]).abs()];
            assert_eq!([oi[12 * i + k], oi[12 * i + 4 + k], oi[12 * i + 8 + k]], want, "int4 builtins {i}.{k}");
            let (p, q) = (f[4 * i + k], f[4 * ((i + 5) % N) + k]);
            assert_bits(of[8 * i + k], p.max(q) - p.min(0.0), format_args!("fmax/fmin {i}.{k}"));
            assert_bits(of[8 * i + 4 + k], p.abs() + 1.5f32.copysign(q), format_args!("fabs/copysign {i}.{k}"));
        }
    }
}

#[test]
fn two_element_vectors_of_several_types() {
    let src = "__kernel void k(__global const float2 *f, __global const int2 *n, __global const uchar2 *c,
                           __global float2 *of, __global int2 *on, __global uchar2 *oc) {
        int i = get_global_id(0);
        float2 x = f[i];
        int2 y = n[i];
        uchar2 z = c[i];
        of[i] = x.yx * (float2)(3.0f, -0.5f) + x;
        on[i] = (int2)(y.y - y.x, y.x * 3) + convert_int2(z);
        oc[i] = z.yx + (uchar2)(200, 100);
    }";
    let mut r = Rng(70);
    let f = r.f32s(2 * N, -64.0, 64.0);
    let n = r.i32s(2 * N, -100_000, 100_000);
    let c: Vec<u8> = (0..2 * N).map(|_| r.next_u32() as u8).collect();
    let args = [buf(&f), buf(&n), buf(&c), zeros(8 * N), zeros(8 * N), zeros(2 * N)];
    let out = run1(src, "k", N, 32, &args);
    let (of, on, oc): (Vec<f32>, Vec<i32>, Vec<u8>) = (read(&out[3]), read(&out[4]), read(&out[5]));
    for i in 0..N {
        let (x0, x1) = (f[2 * i], f[2 * i + 1]);
        for (k, (p, q)) in [(x1, 3.0f32), (x0, -0.5)].into_iter().enumerate() {
            let x = f[2 * i + k];
            let (fused, plain) = (p.mul_add(q, x), p * q + x);
            let g = of[2 * i + k];
            assert!(g == fused || g == plain, "float2 {i}.{k}: {g:e} vs {fused:e}/{plain:e}");
        }
        let (y0, y1) = (n[2 * i], n[2 * i + 1]);
        assert_eq!(&on[2 * i..2 * i + 2], &[y1 - y0 + c[2 * i] as i32, y0 * 3 + c[2 * i + 1] as i32], "int2 {i}");
        let want = [c[2 * i + 1].wrapping_add(200), c[2 * i].wrapping_add(100)];
        assert_eq!(&oc[2 * i..2 * i + 2], &want, "uchar2 {i}");
    }
}

/// `vload2`/`vstore2`/`vload3` need only element alignment: char2/short2/int2 at odd element
/// offsets in private, local and global memory (clang turns them into one wide load or store
/// with a small alignment, which the back end must split).
#[test]
fn vloadn_vstoren_at_unaligned_element_offsets() {
    let src = r#"
    __kernel void v(__global const char *gc, __global char *oc, __global short *os, __global int *oi) {
        int i = get_global_id(0);
        __private char pc[16];
        __private short ps[16];
        __local int li[64 * 8];
        for (int k = 0; k < 16; k++) { pc[k] = 0; ps[k] = 0; }
        char2 c = vload2(0, gc + 2 * i + 1);          // global, odd byte offset
        vstore2(c, 0, pc + 1);                         // private, odd byte offset
        vstore2(vload2(0, pc + 1) + (char2)(1, 2), 0, oc + 2 * i + 1);
        short2 s = (short2)(i, -i);
        vstore2(s, 0, ps + 3);                         // private, odd element offset
        short2 t = vload2(0, ps + 3);
        vstore2(t, 0, os + 2 * i + 1);                 // global, odd element offset
        int3 w = (int3)(i, 2 * i, 3 * i);
        vstore3(w, 0, li + 8 * get_local_id(0) + 1);   // local, odd element offset
        barrier(CLK_LOCAL_MEM_FENCE);
        vstore3(vload3(0, li + 8 * get_local_id(0) + 1), 0, oi + 3 * i + 1);
    }"#;
    let n = 64;
    let gc: Vec<i8> = (0..2 * n as i32 + 2).map(|k| (k * 7 % 100) as i8).collect();
    let out = run_source(
        src,
        "",
        "v",
        &[n],
        Some(&[64]),
        None,
        &[buf(&gc), zeros(2 * n + 2), zeros(2 * (2 * n + 2)), zeros(4 * (3 * n + 2))],
    );
    let (oc, os, oi): (Vec<i8>, Vec<i16>, Vec<i32>) = (read(&out[1]), read(&out[2]), read(&out[3]));
    for i in 0..n {
        assert_eq!(oc[2 * i + 1], gc[2 * i + 1].wrapping_add(1), "char2 lane 0 of {i}");
        assert_eq!(oc[2 * i + 2], gc[2 * i + 2].wrapping_add(2), "char2 lane 1 of {i}");
        assert_eq!((os[2 * i + 1], os[2 * i + 2]), (i as i16, -(i as i16)), "short2 of {i}");
        assert_eq!(&oi[3 * i + 1..3 * i + 4], &[i as i32, 2 * i as i32, 3 * i as i32], "int3 of {i}");
    }
}

/// The CTS `vstore_private` kernel shape: clang merges the byte-copy loop into one 16-bit access
/// with alignment 1 at an odd address (it faulted as misaligned before such accesses were split).
#[test]
fn merged_byte_copies_at_odd_addresses() {
    let src = r#"
    __kernel void test_fn(__global char2 *srcValues, __global uint *offsets, __global char2 *destBuffer,
                          uint alignmentOffset) {
        __private char2 sPrivateStorage[64];
        int tid = get_global_id(0);
        sPrivateStorage[tid] = (char2)(char)0;
        vstore2(srcValues[tid], offsets[tid], ((__private char *)sPrivateStorage) + alignmentOffset);
        __private char *sp = (__private char *)(sPrivateStorage + offsets[tid]) + alignmentOffset;
        __global char *dp = (__global char *)(destBuffer + offsets[tid]) + alignmentOffset;
        for (uint i = 0; i < sizeof(sPrivateStorage[0]) / sizeof(*sp); i++)
            dp[i] = sp[i];
    }"#;
    let n = 32;
    let srcv: Vec<i8> = (0..2 * n as i32).map(|k| (k + 1) as i8).collect();
    let offsets: Vec<u32> = (0..n as u32).collect();
    let out = run_source(
        src,
        "",
        "test_fn",
        &[n],
        Some(&[32]),
        None,
        &[buf(&srcv), buf(&offsets), zeros(2 * n + 2), val(1u32)],
    );
    let d: Vec<i8> = read(&out[2]);
    let mut want = vec![0i8; 2 * n + 2];
    want[1..2 * n + 1].copy_from_slice(&srcv);
    assert_eq!(d, want);
}
