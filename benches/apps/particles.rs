//! Particle methods and random numbers: an n-body integration with `__local` tiles of bodies
//! (the classic GPU Gems formulation, several time steps, ping-pong positions) and a
//! counter-based generator (Philox-2×32-10, `mul_hi`) turned into normal deviates by Box–Muller
//! (`log`, `sqrt`, `cos`, `sin`), the kind of kernel pyopencl's and clRNG's generators run.

use crate::cl::cl_program;
use crate::pair::*;
use crate::{App, Scale};

pub fn apps() -> Vec<App> {
    vec![
        App {
            key: "nbody",
            what: |s| {
                let (n, steps) = nbody_size(s);
                format!("n-body, {n} bodies, __local tiles, {steps} steps")
            },
            source: NBODY,
            run: nbody,
            reference: nbody_host,
            tolerance: 1e-3,
        },
        App {
            key: "rng",
            what: |s| format!("Philox + Box–Muller, {} M normals", (rng_items(s) * RNG_PER_ITEM) >> 20),
            source: RNG,
            run: rng,
            reference: rng_host,
            tolerance: 2e-4,
        },
    ]
}

const NBODY: &str = r#"
kernel void nbody_step(global const float4 *pos, global float4 *pos_out, global float4 *vel,
                       local float4 *tile, int n, float dt, float eps2) {
    int i = get_global_id(0), l = get_local_id(0), ls = get_local_size(0);
    float4 p = pos[i];
    float3 acc = (float3)(0.0f);
    for (int base = 0; base < n; base += ls) {
        tile[l] = pos[base + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < ls; j++) {
            float4 q = tile[j];
            float3 d = q.xyz - p.xyz;
            float r2 = dot(d, d) + eps2;
            float inv = rsqrt(r2);
            acc += d * (q.w * inv * inv * inv);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 v = vel[i];
    v.xyz += acc * dt;
    vel[i] = v;
    pos_out[i] = (float4)(p.xyz + v.xyz * dt, p.w);
}
"#;

const NB_DT: f32 = 0.001;
const NB_EPS2: f32 = 0.01;
const NB_LOCAL: usize = 128;

fn nbody_size(s: Scale) -> (usize, usize) {
    s.pick((4096, 4), (16384, 10))
}

fn nbody_bodies(n: usize) -> Vec<f32> {
    (0..n * 4)
        .map(|i| if i % 4 == 3 { 0.5 + (i % 11) as f32 * 0.1 } else { ((i * 37) % 1009) as f32 * 0.01 - 5.0 })
        .collect()
}

fn nbody(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let (n, steps) = nbody_size(s);
    let k = t.kernel_of(program, "nbody_step");
    let pos = nbody_bodies(n);
    let (mut p0, mut p1) = (t.buffer(&floats(&pos)), t.buffer(&floats(&pos)));
    let bv = t.buffer(&vec![0u8; n * 16]);
    set_arg(k, 2, &bv);
    set_local_arg(k, 3, NB_LOCAL * 16);
    set_arg(k, 4, &(n as i32));
    set_arg(k, 5, &NB_DT);
    set_arg(k, 6, &NB_EPS2);
    for _ in 0..steps {
        set_arg(k, 0, &p0);
        set_arg(k, 1, &p1);
        t.enqueue(k, &[n], Some(&[NB_LOCAL]));
        std::mem::swap(&mut p0, &mut p1);
    }
    let out = to_floats(&t.read(p0, n * 16));
    release(&[p0, p1, bv], &[k], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn nbody_host(s: Scale) -> Vec<f64> {
    let (n, steps) = nbody_size(s);
    let mut pos: Vec<f64> = nbody_bodies(n).into_iter().map(f64::from).collect();
    let mut vel = vec![0f64; n * 4];
    let (dt, eps2) = (f64::from(NB_DT), f64::from(NB_EPS2));
    for _ in 0..steps {
        let mut next = pos.clone();
        for i in 0..n {
            let mut acc = [0f64; 3];
            for j in 0..n {
                let d: [f64; 3] = std::array::from_fn(|c| pos[j * 4 + c] - pos[i * 4 + c]);
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
                let s = pos[j * 4 + 3] / (r2 * r2.sqrt());
                (0..3).for_each(|c| acc[c] += d[c] * s);
            }
            for c in 0..3 {
                vel[i * 4 + c] += acc[c] * dt;
                next[i * 4 + c] = pos[i * 4 + c] + vel[i * 4 + c] * dt;
            }
        }
        pos = next;
    }
    pos
}

const RNG: &str = r#"
uint2 philox(uint2 ctr, uint key) {
    for (int r = 0; r < 10; r++) {
        uint hi = mul_hi(0xD256D193u, ctr.x), lo = 0xD256D193u * ctr.x;
        ctr = (uint2)(hi ^ key ^ ctr.y, lo);
        key += 0x9E3779B9u;
    }
    return ctr;
}

kernel void normals(global float *out, uint seed, int per_item) {
    uint i = get_global_id(0), n = get_global_size(0);
    for (int k = 0; k < per_item; k += 2) {
        uint2 r = philox((uint2)(i, (uint)k), seed);
        float u1 = ((r.x >> 8) + 0.5f) * (1.0f / 16777216.0f);
        float u2 = ((r.y >> 8) + 0.5f) * (1.0f / 16777216.0f);
        float m = sqrt(-2.0f * log(u1));
        out[k * n + i] = m * cos(6.2831853f * u2);
        out[(k + 1) * n + i] = m * sin(6.2831853f * u2);
    }
}
"#;

const RNG_PER_ITEM: usize = 64;
const RNG_SEED: u32 = 0x1234_5678;

fn rng_items(s: Scale) -> usize {
    s.pick(1 << 16, 1 << 18)
}

fn rng(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let n = rng_items(s);
    let k = t.kernel_of(program, "normals");
    let b = t.buffer(&vec![0u8; n * RNG_PER_ITEM * 4]);
    set_arg(k, 0, &b);
    set_arg(k, 1, &RNG_SEED);
    set_arg(k, 2, &(RNG_PER_ITEM as i32));
    t.enqueue(k, &[n], Some(&[256]));
    let out = to_floats(&t.read(b, n * RNG_PER_ITEM * 4));
    release(&[b], &[k], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn rng_host(s: Scale) -> Vec<f64> {
    let n = rng_items(s);
    let mut out = vec![0f64; n * RNG_PER_ITEM];
    for i in 0..n {
        for k in (0..RNG_PER_ITEM).step_by(2) {
            let (mut x, mut y, mut key) = (i as u32, k as u32, RNG_SEED);
            for _ in 0..10 {
                let p = u64::from(0xD256_D193u32) * u64::from(x);
                (x, y) = ((p >> 32) as u32 ^ key ^ y, p as u32);
                key = key.wrapping_add(0x9E37_79B9);
            }
            let u = |v: u32| ((v >> 8) as f32 + 0.5) * (1.0 / 16_777_216.0);
            let (u1, u2) = (f64::from(u(x)), f64::from(u(y)));
            let m = (-2.0 * u1.ln()).sqrt();
            let a = f64::from(std::f32::consts::TAU) * u2;
            out[k * n + i] = m * a.cos();
            out[(k + 1) * n + i] = m * a.sin();
        }
    }
    out
}
