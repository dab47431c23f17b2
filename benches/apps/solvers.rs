//! Solvers driven by host loops: Gaussian elimination as Rodinia's `gaussian` runs it (two
//! launches per pivot, the second over the whole n × n grid in 16 × 16 work-groups: thousands
//! of small 2D launches), and a level-synchronous breadth-first search (two kernels per level
//! and a flag read back to decide whether to go on).

use crate::cl::cl_program;
use crate::pair::*;
use crate::{App, Scale};

pub fn apps() -> Vec<App> {
    vec![
        App {
            key: "gaussian",
            what: |s| {
                let n = gauss_n(s);
                format!("Gaussian elimination {n}² ({} launches)", 2 * (n - 1))
            },
            source: GAUSSIAN,
            run: gaussian,
            reference: gaussian_host,
            tolerance: 1e-3,
        },
        App {
            key: "bfs",
            what: |s| format!("BFS, {} nodes, frontier kernels + flag", bfs_n(s)),
            source: BFS,
            run: bfs,
            reference: bfs_host,
            tolerance: 0.0,
        },
    ]
}

const GAUSSIAN: &str = r#"
kernel void fan1(global float *m, global const float *a, int n, int t) {
    int i = get_global_id(0);
    if (i < n - 1 - t) {
        int r = t + 1 + i;
        m[r * n + t] = a[r * n + t] / a[t * n + t];
    }
}

kernel void fan2(global const float *m, global float *a, global float *b, int n, int t) {
    int c = get_global_id(0), r = get_global_id(1);
    if (r >= n - 1 - t || c >= n - t) return;
    r += t + 1;
    c += t;
    float f = m[r * n + t];
    a[r * n + c] -= f * a[t * n + c];
    if (c == t) b[r] -= f * b[t];
}
"#;

fn gauss_n(s: Scale) -> usize {
    s.pick(512, 1536)
}

/// A diagonally dominant system (no pivoting needed), the same on every run.
fn gauss_system(n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut a: Vec<f32> = (0..n * n).map(|k| ((k / n * 37 + k % n * 11) % 101) as f32 / 101.0 - 0.5).collect();
    for i in 0..n {
        a[i * n + i] += n as f32 * 0.3;
    }
    let b = (0..n).map(|i| (((i * 7) % 13) as f32 / 13.0 + 1.0) * n as f32 * 0.3).collect();
    (a, b)
}

fn back_substitute(n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut x = vec![0f64; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| a[i * n + j] * x[j]).sum();
        x[i] = (b[i] - s) / a[i * n + i];
    }
    x
}

fn gaussian(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let n = gauss_n(s);
    let (a, b) = gauss_system(n);
    let (fan1, fan2) = (t.kernel_of(program, "fan1"), t.kernel_of(program, "fan2"));
    let (ba, bb, bm) = (t.buffer(&floats(&a)), t.buffer(&floats(&b)), t.buffer(&vec![0u8; n * n * 4]));
    let ni = n as i32;
    set_arg(fan1, 0, &bm);
    set_arg(fan1, 1, &ba);
    set_arg(fan1, 2, &ni);
    set_arg(fan2, 0, &bm);
    set_arg(fan2, 1, &ba);
    set_arg(fan2, 2, &bb);
    set_arg(fan2, 3, &ni);
    let round = |x: usize, to: usize| x.div_ceil(to) * to;
    for k in 0..ni - 1 {
        set_arg(fan1, 3, &k);
        t.enqueue(fan1, &[round(n, 256)], Some(&[256]));
        set_arg(fan2, 4, &k);
        t.enqueue(fan2, &[round(n, 16), round(n, 16)], Some(&[16, 16]));
    }
    let a: Vec<f64> = to_floats(&t.read(ba, n * n * 4)).into_iter().map(f64::from).collect();
    let b: Vec<f64> = to_floats(&t.read(bb, n * 4)).into_iter().map(f64::from).collect();
    release(&[ba, bb, bm], &[fan1, fan2], std::ptr::null_mut());
    back_substitute(n, &a, &b)
}

fn gaussian_host(s: Scale) -> Vec<f64> {
    let n = gauss_n(s);
    let (a, b) = gauss_system(n);
    let (mut a, mut b): (Vec<f64>, Vec<f64>) =
        (a.into_iter().map(f64::from).collect(), b.into_iter().map(f64::from).collect());
    for t in 0..n - 1 {
        for r in t + 1..n {
            let f = a[r * n + t] / a[t * n + t];
            for c in t..n {
                a[r * n + c] -= f * a[t * n + c];
            }
            b[r] -= f * b[t];
        }
    }
    back_substitute(n, &a, &b)
}

const BFS: &str = r#"
kernel void bfs_expand(global const int *start, global const int *edges, global char *mask,
                       global char *updating, global const char *visited, global int *cost, int n) {
    int v = get_global_id(0);
    if (v >= n || !mask[v]) return;
    mask[v] = 0;
    for (int e = start[v]; e < start[v + 1]; e++) {
        int u = edges[e];
        if (!visited[u]) {
            cost[u] = cost[v] + 1;
            updating[u] = 1;
        }
    }
}

kernel void bfs_advance(global char *mask, global char *updating, global char *visited,
                        global int *again, int n) {
    int v = get_global_id(0);
    if (v >= n || !updating[v]) return;
    mask[v] = 1;
    visited[v] = 1;
    *again = 1;
    updating[v] = 0;
}
"#;

fn bfs_n(s: Scale) -> usize {
    s.pick(1 << 18, 1 << 21)
}

/// A random graph in compressed rows: 1–7 edges per node to pseudo-random nodes, plus an
/// edge to the next node (every node reachable from 0).
fn bfs_graph(n: usize) -> (Vec<i32>, Vec<i32>) {
    let mut start = vec![0i32];
    let mut edges = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for v in 0..n {
        let d = 1 + next() % 7;
        for _ in 0..d {
            edges.push((next() % n as u64) as i32);
        }
        edges.push(((v + 1) % n) as i32);
        start.push(edges.len() as i32);
    }
    (start, edges)
}

fn bfs(t: &Target, program: cl_program, s: Scale) -> Vec<f64> {
    let n = bfs_n(s);
    let (start, edges) = bfs_graph(n);
    let mut mask = vec![0u8; n];
    mask[0] = 1;
    let mut cost = vec![-1i32; n];
    cost[0] = 0;
    let bstart = t.buffer(&bytes_of(&start));
    let bedges = t.buffer(&bytes_of(&edges));
    let (bmask, bvisited) = (t.buffer(&mask), t.buffer(&mask));
    let bupd = t.buffer(&vec![0u8; n]);
    let bcost = t.buffer(&bytes_of(&cost));
    let bagain = t.buffer(&[0u8; 4]);
    let (expand, advance) = (t.kernel_of(program, "bfs_expand"), t.kernel_of(program, "bfs_advance"));
    let ni = n as i32;
    for (i, m) in [&bstart, &bedges, &bmask, &bupd, &bvisited, &bcost].into_iter().enumerate() {
        set_arg(expand, i as u32, m);
    }
    set_arg(expand, 6, &ni);
    for (i, m) in [&bmask, &bupd, &bvisited, &bagain].into_iter().enumerate() {
        set_arg(advance, i as u32, m);
    }
    set_arg(advance, 4, &ni);
    let global = [n.div_ceil(256) * 256];
    loop {
        t.write(bagain, &[0u8; 4]);
        t.enqueue(expand, &global, Some(&[256]));
        t.enqueue(advance, &global, Some(&[256]));
        if t.read(bagain, 4) == [0u8; 4] {
            break;
        }
    }
    let cost: Vec<i32> = values_of(&t.read(bcost, n * 4));
    release(&[bstart, bedges, bmask, bupd, bvisited, bcost, bagain], &[expand, advance], std::ptr::null_mut());
    cost.into_iter().map(f64::from).collect()
}

fn bfs_host(s: Scale) -> Vec<f64> {
    let n = bfs_n(s);
    let (start, edges) = bfs_graph(n);
    let mut cost = vec![-1i32; n];
    cost[0] = 0;
    let mut frontier = vec![0usize];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for v in frontier {
            for &u in &edges[start[v] as usize..start[v + 1] as usize] {
                if cost[u as usize] < 0 {
                    cost[u as usize] = cost[v] + 1;
                    next.push(u as usize);
                }
            }
        }
        frontier = next;
    }
    cost.into_iter().map(f64::from).collect()
}
