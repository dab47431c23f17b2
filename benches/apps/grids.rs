//! Grid programs iterated by the host: a thermal stencil (Rodinia `hotspot`'s update, ping-pong
//! buffers), speckle-reducing anisotropic diffusion (Rodinia `srad`: a `__local` reduction read
//! back every iteration for the speckle scale, then two stencil kernels; `exp`/`log` around it)
//! and a multi-level 2D Haar wavelet (rows staged in `__local` memory, then columns).

use crate::cl::cl_program;
use crate::pair::*;
use crate::{App, Scale};

pub fn apps() -> Vec<App> {
    vec![
        App {
            key: "hotspot",
            what: |s| {
                let (n, it) = hot_size(s);
                format!("thermal stencil {n}², {it} iterations")
            },
            source: HOTSPOT,
            run: hotspot,
            reference: hotspot_host,
            tolerance: 1e-4,
        },
        App {
            key: "srad",
            what: |s| {
                let (n, it) = srad_size(s);
                format!("speckle-reducing diffusion {n}², {it} iterations")
            },
            source: SRAD,
            run: srad,
            reference: srad_host,
            tolerance: 2e-3,
        },
        App {
            key: "dwt",
            what: |s| {
                let (n, f) = dwt_size(s);
                format!("Haar wavelet {n}², 5 levels, {f} frames")
            },
            source: DWT,
            run: dwt,
            reference: dwt_host,
            tolerance: 1e-4,
        },
    ]
}

const HOTSPOT: &str = r#"
kernel void hotspot(global const float *power, global const float *tin, global float *tout,
                    int w, int h, float cx, float cy, float cz, float amb, float k) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    int i = y * w + x;
    float c = tin[i];
    float n = tin[max(y - 1, 0) * w + x], s = tin[min(y + 1, h - 1) * w + x];
    float e = tin[y * w + min(x + 1, w - 1)], wv = tin[y * w + max(x - 1, 0)];
    float d = power[i] + (n + s - 2.0f * c) * cy + (e + wv - 2.0f * c) * cx + (amb - c) * cz;
    tout[i] = c + k * d;
}
"#;

const HOT: (f32, f32, f32, f32, f32) = (0.2, 0.2, 0.002, 80.0, 0.5);

fn hot_size(s: Scale) -> (usize, usize) {
    s.pick((512, 200), (512, 2000))
}

fn hot_input(n: usize) -> (Vec<f32>, Vec<f32>) {
    let power = (0..n * n).map(|i| ((i * 13) % 17) as f32 / 17.0).collect();
    let temp = (0..n * n).map(|i| 320.0 + ((i / n + 3 * (i % n)) % 31) as f32).collect();
    (power, temp)
}

fn hotspot(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let (n, iters) = hot_size(s);
    let (power, temp) = hot_input(n);
    let k = t.kernel_of(program, "hotspot");
    let (bp, mut b0, mut b1) = (t.buffer(&floats(&power)), t.buffer(&floats(&temp)), t.buffer(&floats(&temp)));
    let (cx, cy, cz, amb, kk) = HOT;
    set_arg(k, 0, &bp);
    for (i, v) in [n as i32, n as i32].iter().enumerate() {
        set_arg(k, 3 + i as u32, v);
    }
    for (i, v) in [cx, cy, cz, amb, kk].iter().enumerate() {
        set_arg(k, 5 + i as u32, v);
    }
    for _ in 0..iters {
        set_arg(k, 1, &b0);
        set_arg(k, 2, &b1);
        t.enqueue(k, &[n, n], Some(&[16, 16]));
        std::mem::swap(&mut b0, &mut b1);
    }
    let out = to_floats(&t.read(b0, n * n * 4));
    release(&[bp, b0, b1], &[k], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn hotspot_host(s: Scale) -> Vec<f64> {
    let (n, iters) = hot_size(s);
    let (power, mut a) = hot_input(n);
    let mut b = a.clone();
    let (cx, cy, cz, amb, k) = HOT;
    for _ in 0..iters {
        for y in 0..n {
            for x in 0..n {
                let i = y * n + x;
                let c = a[i];
                let (nn, ss) = (a[y.saturating_sub(1) * n + x], a[(y + 1).min(n - 1) * n + x]);
                let (e, w) = (a[y * n + (x + 1).min(n - 1)], a[y * n + x.saturating_sub(1)]);
                let d = power[i] + (nn + ss - 2.0 * c) * cy + (e + w - 2.0 * c) * cx + (amb - c) * cz;
                b[i] = c + k * d;
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    a.into_iter().map(f64::from).collect()
}

const SRAD: &str = r#"
kernel void extract(global float *j, int n) {
    int i = get_global_id(0);
    if (i < n) j[i] = exp(j[i] / 255.0f);
}

kernel void compress(global float *j, int n) {
    int i = get_global_id(0);
    if (i < n) j[i] = log(j[i]) * 255.0f;
}

kernel void stats(global const float *j, global float *sums, local float *s1, local float *s2, int n) {
    int i = get_global_id(0), l = get_local_id(0);
    float v = i < n ? j[i] : 0.0f;
    s1[l] = v;
    s2[l] = v * v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int m = get_local_size(0) / 2; m > 0; m >>= 1) {
        if (l < m) {
            s1[l] += s1[l + m];
            s2[l] += s2[l + m];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        sums[2 * get_group_id(0)] = s1[0];
        sums[2 * get_group_id(0) + 1] = s2[0];
    }
}

kernel void srad1(global const float *j, global float *c, global float *dn, global float *ds,
                  global float *dw, global float *de, int rows, int cols, float q0sqr) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= cols || y >= rows) return;
    int k = y * cols + x;
    float jc = j[k];
    float n = j[max(y - 1, 0) * cols + x] - jc, s = j[min(y + 1, rows - 1) * cols + x] - jc;
    float w = j[y * cols + max(x - 1, 0)] - jc, e = j[y * cols + min(x + 1, cols - 1)] - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float q = num / (den * den);
    den = (q - q0sqr) / (q0sqr * (1.0f + q0sqr));
    c[k] = clamp(1.0f / (1.0f + den), 0.0f, 1.0f);
    dn[k] = n;
    ds[k] = s;
    dw[k] = w;
    de[k] = e;
}

kernel void srad2(global float *j, global const float *c, global const float *dn,
                  global const float *ds, global const float *dw, global const float *de,
                  int rows, int cols, float lambda) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= cols || y >= rows) return;
    int k = y * cols + x;
    float cn = c[k], cs = c[min(y + 1, rows - 1) * cols + x], ce = c[y * cols + min(x + 1, cols - 1)];
    float d = cn * dn[k] + cs * ds[k] + cn * dw[k] + ce * de[k];
    j[k] = j[k] + 0.25f * lambda * d;
}
"#;

const SRAD_LAMBDA: f32 = 0.5;

fn srad_size(s: Scale) -> (usize, usize) {
    s.pick((512, 40), (1024, 100))
}

fn srad_image(n: usize) -> Vec<f32> {
    (0..n * n)
        .map(|i| {
            let (y, x) = ((i / n) as f32, (i % n) as f32);
            let speckle = ((i * 2654435761) >> 7) % 64;
            100.0 + 60.0 * ((x * 0.02).sin() * (y * 0.03).cos()) + speckle as f32
        })
        .collect()
}

/// q0² = var / mean² from the sums of values and squares.
fn q0sqr(sum: f64, sum2: f64, count: usize) -> f32 {
    let mean = sum / count as f64;
    let var = sum2 / count as f64 - mean * mean;
    (var / (mean * mean)) as f32
}

fn srad(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let (n, iters) = srad_size(s);
    let len = n * n;
    let ni = len as i32;
    let k = |name| t.kernel_of(program, name);
    let (extract, compress, stats, srad1, srad2) = (k("extract"), k("compress"), k("stats"), k("srad1"), k("srad2"));
    let bj = t.buffer(&floats(&srad_image(n)));
    let zero = vec![0u8; len * 4];
    let bufs: Vec<_> = (0..5).map(|_| t.buffer(&zero)).collect(); // c, dn, ds, dw, de
    let groups = len.div_ceil(256);
    let bsums = t.buffer(&vec![0u8; groups * 8]);
    let global1 = [groups * 256];
    set_arg(extract, 0, &bj);
    set_arg(extract, 1, &ni);
    set_arg(compress, 0, &bj);
    set_arg(compress, 1, &ni);
    set_arg(stats, 0, &bj);
    set_arg(stats, 1, &bsums);
    set_local_arg(stats, 2, 256 * 4);
    set_local_arg(stats, 3, 256 * 4);
    set_arg(stats, 4, &ni);
    set_arg(srad1, 0, &bj);
    set_arg(srad2, 0, &bj);
    for (i, b) in bufs.iter().enumerate() {
        set_arg(srad1, 1 + i as u32, b);
        set_arg(srad2, 1 + i as u32, b);
    }
    for kern in [srad1, srad2] {
        set_arg(kern, 6, &(n as i32));
        set_arg(kern, 7, &(n as i32));
    }
    set_arg(srad2, 8, &SRAD_LAMBDA);
    t.enqueue(extract, &global1, Some(&[256]));
    for _ in 0..iters {
        t.enqueue(stats, &global1, Some(&[256]));
        let sums: Vec<f32> = to_floats(&t.read(bsums, groups * 8));
        let (s1, s2) = sums.chunks_exact(2).fold((0f64, 0f64), |(a, b), p| (a + p[0] as f64, b + p[1] as f64));
        set_arg(srad1, 8, &q0sqr(s1, s2, len));
        t.enqueue(srad1, &[n, n], Some(&[16, 16]));
        t.enqueue(srad2, &[n, n], Some(&[16, 16]));
    }
    t.enqueue(compress, &global1, Some(&[256]));
    let out = to_floats(&t.read(bj, len * 4));
    let mut mems = bufs;
    mems.extend([bj, bsums]);
    release(&mems, &[extract, compress, stats, srad1, srad2], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn srad_host(s: Scale) -> Vec<f64> {
    let (n, iters) = srad_size(s);
    let len = n * n;
    let mut j: Vec<f32> = srad_image(n).into_iter().map(|v| (v / 255.0).exp()).collect();
    let (mut c, mut d) = (vec![0f32; len], vec![[0f32; 4]; len]);
    for _ in 0..iters {
        let (s1, s2) = j.iter().fold((0f64, 0f64), |(a, b), &v| (a + v as f64, b + (v * v) as f64));
        let q0 = q0sqr(s1, s2, len);
        for y in 0..n {
            for x in 0..n {
                let k = y * n + x;
                let jc = j[k];
                let nn = j[y.saturating_sub(1) * n + x] - jc;
                let ss = j[(y + 1).min(n - 1) * n + x] - jc;
                let w = j[y * n + x.saturating_sub(1)] - jc;
                let e = j[y * n + (x + 1).min(n - 1)] - jc;
                let g2 = (nn * nn + ss * ss + w * w + e * e) / (jc * jc);
                let l = (nn + ss + w + e) / jc;
                let num = 0.5 * g2 - (1.0 / 16.0) * (l * l);
                let den = 1.0 + 0.25 * l;
                let q = num / (den * den);
                let den = (q - q0) / (q0 * (1.0 + q0));
                c[k] = (1.0 / (1.0 + den)).clamp(0.0, 1.0);
                d[k] = [nn, ss, w, e];
            }
        }
        for y in 0..n {
            for x in 0..n {
                let k = y * n + x;
                let (cn, cs, ce) = (c[k], c[(y + 1).min(n - 1) * n + x], c[y * n + (x + 1).min(n - 1)]);
                let dd = cn * d[k][0] + cs * d[k][1] + cn * d[k][2] + ce * d[k][3];
                j[k] += 0.25 * SRAD_LAMBDA * dd;
            }
        }
    }
    j.into_iter().map(|v| f64::from(v.ln() * 255.0)).collect()
}

const DWT: &str = r#"
/* One level of rows: a work-group of n items stages 2n pixels of a row in local memory. */
kernel void dwt_rows(global const float *img, global float *tmp, local float *row, int stride, int w) {
    int l = get_local_id(0), n = get_local_size(0), y = get_global_id(1);
    int base = get_group_id(0) * 2 * n;
    row[l] = img[y * stride + base + l];
    row[l + n] = img[y * stride + base + n + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    float a = row[2 * l], b = row[2 * l + 1];
    int x = base / 2 + l;
    tmp[y * stride + x] = (a + b) * 0.70710678f;
    tmp[y * stride + w / 2 + x] = (a - b) * 0.70710678f;
}

kernel void dwt_cols(global const float *tmp, global float *img, int stride, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    float a = tmp[2 * y * stride + x], b = tmp[(2 * y + 1) * stride + x];
    img[y * stride + x] = (a + b) * 0.70710678f;
    img[(h / 2 + y) * stride + x] = (a - b) * 0.70710678f;
}
"#;

const DWT_LEVELS: usize = 5;

fn dwt_size(s: Scale) -> (usize, usize) {
    s.pick((1024, 4), (2048, 10))
}

fn dwt_frame(n: usize, f: usize) -> Vec<f32> {
    (0..n * n).map(|i| ((i * 7 + f * 131 + (i / n) * 3) % 251) as f32).collect()
}

fn dwt(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let (n, frames) = dwt_size(s);
    let (rows, cols) = (t.kernel_of(program, "dwt_rows"), t.kernel_of(program, "dwt_cols"));
    let (bimg, btmp) = (t.buffer(&vec![0u8; n * n * 4]), t.buffer(&vec![0u8; n * n * 4]));
    set_arg(rows, 0, &bimg);
    set_arg(rows, 1, &btmp);
    set_local_arg(rows, 2, 256 * 4);
    set_arg(rows, 3, &(n as i32));
    set_arg(cols, 0, &btmp);
    set_arg(cols, 1, &bimg);
    set_arg(cols, 2, &(n as i32));
    let mut out = Vec::new();
    for f in 0..frames {
        t.write(bimg, &floats(&dwt_frame(n, f)));
        for level in 0..DWT_LEVELS {
            let w = n >> level;
            set_arg(rows, 4, &(w as i32));
            t.enqueue(rows, &[w / 2, w], Some(&[(w / 2).min(128), 1]));
            set_arg(cols, 3, &(w as i32));
            // Only the rows of the level's square moved; the columns pass reads tmp's square.
            t.enqueue(cols, &[w, w / 2], Some(&[w.min(256), 1]));
        }
        out = to_floats(&t.read(bimg, n * n * 4));
    }
    release(&[bimg, btmp], &[rows, cols], std::ptr::null_mut());
    out.into_iter().map(f64::from).collect()
}

fn dwt_host(s: Scale) -> Vec<f64> {
    let (n, frames) = dwt_size(s);
    let mut img = dwt_frame(n, frames - 1);
    let mut tmp = vec![0f32; n * n];
    let r = std::f32::consts::FRAC_1_SQRT_2;
    for level in 0..DWT_LEVELS {
        let w = n >> level;
        for y in 0..w {
            for x in 0..w / 2 {
                let (a, b) = (img[y * n + 2 * x], img[y * n + 2 * x + 1]);
                tmp[y * n + x] = (a + b) * r;
                tmp[y * n + w / 2 + x] = (a - b) * r;
            }
        }
        for y in 0..w / 2 {
            for x in 0..w {
                let (a, b) = (tmp[2 * y * n + x], tmp[(2 * y + 1) * n + x]);
                img[y * n + x] = (a + b) * r;
                img[(w / 2 + y) * n + x] = (a - b) * r;
            }
        }
    }
    img.into_iter().map(f64::from).collect()
}
