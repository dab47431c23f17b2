//! Parallel primitives and a finance kernel: a work-efficient (Blelloch) exclusive scan in
//! `__local` memory applied recursively to the block sums, a 256-bin histogram with `__local`
//! atomics merged by global atomics, and Black–Scholes option pricing (`exp`, `log`, `sqrt` and a
//! polynomial normal CDF) in float and in double precision.

use crate::cl::{cl_kernel, cl_mem, cl_program};
use crate::pair::*;
use crate::{App, Scale};

pub fn apps() -> Vec<App> {
    vec![
        App {
            key: "scan",
            what: |s| format!("exclusive scan, {} M ints, Blelloch", scan_n(s) >> 20),
            source: SCAN,
            run: scan,
            reference: scan_host,
            tolerance: 0.0,
        },
        App {
            key: "histogram",
            what: |s| format!("histogram, {} M bytes, __local atomics", hist_n(s) >> 20),
            source: HISTOGRAM,
            run: histogram,
            reference: histogram_host,
            tolerance: 0.0,
        },
        App {
            key: "blackscholes",
            what: |s| format!("Black–Scholes, {} M options, float", bs_n(s, false) >> 20),
            source: BLACK_SCHOLES,
            run: |t, p, s| black_scholes(t, p, s, false),
            reference: |s| black_scholes_host(s, false),
            tolerance: 1e-4,
        },
        App {
            key: "blackscholes_fp64",
            what: |s| format!("Black–Scholes, {} K options, double", bs_n(s, true) >> 10),
            source: BLACK_SCHOLES_FP64,
            run: |t, p, s| black_scholes(t, p, s, true),
            reference: |s| black_scholes_host(s, true),
            tolerance: 1e-10,
        },
    ]
}

const SCAN: &str = r#"
/* Exclusive scan of 2 × get_local_size(0) ints per work-group; the group's total to sums. */
kernel void scan_block(global int *data, global int *sums, local int *s, int n) {
    int l = get_local_id(0), m = 2 * get_local_size(0);
    int base = get_group_id(0) * m;
    s[2 * l] = base + 2 * l < n ? data[base + 2 * l] : 0;
    s[2 * l + 1] = base + 2 * l + 1 < n ? data[base + 2 * l + 1] : 0;
    int off = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < d) {
            int ai = off * (2 * l + 1) - 1, bi = off * (2 * l + 2) - 1;
            s[bi] += s[ai];
        }
        off *= 2;
    }
    if (l == 0) {
        sums[get_group_id(0)] = s[m - 1];
        s[m - 1] = 0;
    }
    for (int d = 1; d < m; d *= 2) {
        off >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < d) {
            int ai = off * (2 * l + 1) - 1, bi = off * (2 * l + 2) - 1;
            int t = s[ai];
            s[ai] = s[bi];
            s[bi] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + 2 * l < n) data[base + 2 * l] = s[2 * l];
    if (base + 2 * l + 1 < n) data[base + 2 * l + 1] = s[2 * l + 1];
}

kernel void scan_add(global int *data, global const int *sums, int n) {
    int i = get_global_id(0);
    if (i < n) data[i] += sums[i / (2 * get_local_size(0))];
}
"#;

const SCAN_LOCAL: usize = 256;

fn scan_n(s: Scale) -> usize {
    s.pick(1 << 22, 1 << 24)
}

fn scan_input(n: usize) -> Vec<i32> {
    (0..n).map(|i| ((i * 7919) % 23) as i32 - 7).collect()
}

/// Scans `n` ints of `data` in place: blocks, then (recursively) their sums, then adds.
fn scan_in_place(t: &Target, block: cl_kernel, add: cl_kernel, data: cl_mem, n: usize, temps: &mut Vec<cl_mem>) {
    let per = 2 * SCAN_LOCAL;
    let groups = n.div_ceil(per);
    let sums = t.buffer(&vec![0u8; groups.max(1) * 4]);
    temps.push(sums);
    set_arg(block, 0, &data);
    set_arg(block, 1, &sums);
    set_local_arg(block, 2, per * 4);
    set_arg(block, 3, &(n as i32));
    t.enqueue(block, &[groups * SCAN_LOCAL], Some(&[SCAN_LOCAL]));
    if groups > 1 {
        scan_in_place(t, block, add, sums, groups, temps);
        set_arg(add, 0, &data);
        set_arg(add, 1, &sums);
        set_arg(add, 2, &(n as i32));
        t.enqueue(add, &[groups * SCAN_LOCAL * 2], Some(&[SCAN_LOCAL]));
    }
}

fn scan(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let n = scan_n(s);
    let (block, add) = (t.kernel_of(program, "scan_block"), t.kernel_of(program, "scan_add"));
    let data = t.buffer(&bytes_of(&scan_input(n)));
    let mut temps = vec![data];
    scan_in_place(t, block, add, data, n, &mut temps);
    let out: Vec<i32> = values_of(&t.read(data, n * 4));
    release(&temps, &[block, add], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn scan_host(s: Scale) -> Vec<f64> {
    let mut acc = 0i32;
    scan_input(scan_n(s))
        .into_iter()
        .map(|v| {
            let r = acc;
            acc += v;
            f64::from(r)
        })
        .collect()
}

const HISTOGRAM: &str = r#"
kernel void histogram(global const uchar *data, global uint *bins, local uint *h, int n, int per_item) {
    int l = get_local_id(0), ls = get_local_size(0);
    for (int b = l; b < 256; b += ls) h[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int start = get_group_id(0) * ls * per_item;
    for (int k = 0; k < per_item; k++) {
        int i = start + k * ls + l;
        if (i < n) atomic_inc(&h[data[i]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = l; b < 256; b += ls) atomic_add(&bins[b], h[b]);
}
"#;

const HIST_LOCAL: usize = 256;
const HIST_PER_ITEM: usize = 64;

fn hist_n(s: Scale) -> usize {
    s.pick(1 << 24, 1 << 26)
}

fn hist_input(n: usize) -> Vec<u8> {
    // Skewed like image data: most bytes in a few bins.
    (0..n).map(|i| (((i * 2654435761) >> 13) % 97 + (i / 4096) % 64) as u8).collect()
}

fn histogram(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let n = hist_n(s);
    let k = t.kernel_of(program, "histogram");
    let (data, bins) = (t.buffer(&hist_input(n)), t.buffer(&[0u8; 1024]));
    set_arg(k, 0, &data);
    set_arg(k, 1, &bins);
    set_local_arg(k, 2, 1024);
    set_arg(k, 3, &(n as i32));
    set_arg(k, 4, &(HIST_PER_ITEM as i32));
    let groups = n.div_ceil(HIST_LOCAL * HIST_PER_ITEM);
    t.enqueue(k, &[groups * HIST_LOCAL], Some(&[HIST_LOCAL]));
    let out: Vec<u32> = values_of(&t.read(bins, 1024));
    release(&[data, bins], &[k], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn histogram_host(s: Scale) -> Vec<f64> {
    let mut bins = vec![0f64; 256];
    hist_input(hist_n(s)).into_iter().for_each(|b| bins[b as usize] += 1.0);
    bins
}

/// The pricing kernel for `real` = float or double (the double one enables `cl_khr_fp64`).
macro_rules! black_scholes_source {
    ($pragma:literal, $real:literal) => {
        concat!(
            $pragma,
            "
typedef ",
            $real,
            " real;
#define R(x) ((real)(x))
real cnd(real d) {
    real k = R(1.0) / (R(1.0) + R(0.2316419) * fabs(d));
    real poly = k * (R(0.31938153) + k * (R(-0.356563782) + k * (R(1.781477937)
                + k * (R(-1.821255978) + k * R(1.330274429)))));
    real c = R(0.39894228040143267794) * exp(R(-0.5) * d * d) * poly;
    return d > R(0.0) ? R(1.0) - c : c;
}

kernel void black_scholes(global real *call, global real *put, global const real *price,
                          global const real *strike, global const real *years, real r, real v, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    real s = price[i], x = strike[i], t = years[i];
    real sq = sqrt(t);
    real d1 = (log(s / x) + (r + R(0.5) * v * v) * t) / (v * sq);
    real d2 = d1 - v * sq;
    real e = exp(-r * t);
    call[i] = s * cnd(d1) - x * e * cnd(d2);
    put[i] = x * e * (R(1.0) - cnd(-d2)) - s * (R(1.0) - cnd(-d1));
}
"
        )
    };
}

const BLACK_SCHOLES: &str = black_scholes_source!("", "float");
const BLACK_SCHOLES_FP64: &str = black_scholes_source!("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", "double");
const BS_R: f64 = 0.02;
const BS_V: f64 = 0.30;

fn bs_n(s: Scale, double: bool) -> usize {
    match double {
        false => s.pick(1 << 21, 1 << 23),
        true => s.pick(1 << 16, 1 << 19),
    }
}

/// (price, strike, years) of option `i`.
fn bs_option(i: usize) -> (f64, f64, f64) {
    let f = |m: usize, d: usize| ((i * m) % d) as f64 / d as f64;
    (5.0 + 25.0 * f(7919, 1009), 1.0 + 99.0 * f(104_729, 997), 0.25 + 9.75 * f(1_299_709, 991))
}

fn black_scholes(t: &Target, program: cl_program, s: Scale, double: bool) -> Vec<f64> {
    let n = bs_n(s, double);
    let size = if double { 8 } else { 4 };
    let column = |c: usize| -> Vec<u8> {
        let v = (0..n).map(|i| [bs_option(i).0, bs_option(i).1, bs_option(i).2][c]);
        if double {
            bytes_of(&v.collect::<Vec<f64>>())
        } else {
            bytes_of(&v.map(|x| x as f32).collect::<Vec<f32>>())
        }
    };
    let k = t.kernel_of(program, "black_scholes");
    let (call, put) = (t.buffer(&vec![0u8; n * size]), t.buffer(&vec![0u8; n * size]));
    let ins = [t.buffer(&column(0)), t.buffer(&column(1)), t.buffer(&column(2))];
    for (i, m) in [&call, &put, &ins[0], &ins[1], &ins[2]].into_iter().enumerate() {
        set_arg(k, i as u32, m);
    }
    if double {
        set_arg(k, 5, &BS_R);
        set_arg(k, 6, &BS_V);
    } else {
        set_arg(k, 5, &(BS_R as f32));
        set_arg(k, 6, &(BS_V as f32));
    }
    set_arg(k, 7, &(n as i32));
    t.enqueue(k, &[n.div_ceil(256) * 256], Some(&[256]));
    let read = |m| -> Vec<f64> {
        let b = t.read(m, n * size);
        if double {
            values_of(&b)
        } else {
            values_of::<f32>(&b).into_iter().map(f64::from).collect()
        }
    };
    let mut out = read(call);
    out.extend(read(put));
    release(&[call, put, ins[0], ins[1], ins[2]], &[k], std::ptr::null_mut());
    out
}

fn black_scholes_host(s: Scale, double: bool) -> Vec<f64> {
    let n = bs_n(s, double);
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.2316419 * d.abs());
        let c = 0.398_942_280_401_432_7
            * (-0.5 * d * d).exp()
            * (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
        if d > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let (mut call, mut put) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (mut s, mut x, mut t) = bs_option(i);
        if !double {
            (s, x, t) = (s as f32 as f64, x as f32 as f64, t as f32 as f64);
        }
        let sq = t.sqrt();
        let d1 = ((s / x).ln() + (BS_R + 0.5 * BS_V * BS_V) * t) / (BS_V * sq);
        let d2 = d1 - BS_V * sq;
        let e = (-BS_R * t).exp();
        call.push(s * cnd(d1) - x * e * cnd(d2));
        put.push(x * e * (1.0 - cnd(-d2)) - s * (1.0 - cnd(-d1)));
    }
    call.extend(put);
    call
}
