//! Compiler acceptance corpus: every work-item function in 1D/2D/3D NDRanges with global offsets
//! and non-uniform work-groups, built from source (OpenCL C 3.0) through the ICD loader; each
//! work-item's record is checked against the geometry computed in Rust.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

/// Words per work-item record.
const REC: usize = 27;

/// Every work-item function, for dimensions 0..2, stored at the global linear id.
const ALL: &str = "__kernel void k(__global uint *out) {
    __global uint *r = out + get_global_linear_id() * 27;
    r[0] = get_work_dim();
    for (int d = 0; d < 3; d++) {
        uint c = d == 0 ? 0 : d == 1 ? 1 : 2;
        r[1 + d] = get_global_id(c);
        r[4 + d] = get_global_size(c);
        r[7 + d] = get_global_offset(c);
        r[10 + d] = get_local_id(c);
        r[13 + d] = get_local_size(c);
        r[16 + d] = get_group_id(c);
        r[19 + d] = get_num_groups(c);
        r[22 + d] = get_enqueued_local_size(c);
    }
    r[25] = get_global_linear_id();
    r[26] = get_local_linear_id();
}";

/// The record the device must produce for every work-item of the NDRange, indexed by global
/// linear id.
fn expected(global: &[usize], local: &[usize], offset: &[usize]) -> Vec<[u32; REC]> {
    let dim = global.len();
    let pad = |v: &[usize], fill: usize| -> [usize; 3] { std::array::from_fn(|d| if d < dim { v[d] } else { fill }) };
    let (g, l, o) = (pad(global, 1), pad(local, 1), pad(offset, 0));
    let n: [usize; 3] = std::array::from_fn(|d| g[d].div_ceil(l[d]));
    let mut out = Vec::new();
    for z in 0..g[2] {
        for y in 0..g[1] {
            for x in 0..g[0] {
                let xyz = [x, y, z];
                let grp: [usize; 3] = std::array::from_fn(|d| xyz[d] / l[d]);
                let lid: [usize; 3] = std::array::from_fn(|d| xyz[d] % l[d]);
                let ls: [usize; 3] =
                    std::array::from_fn(|d| if grp[d] == n[d] - 1 && g[d] % l[d] != 0 { g[d] % l[d] } else { l[d] });
                let mut r = [0u32; REC];
                r[0] = dim as u32;
                for d in 0..3 {
                    r[1 + d] = (xyz[d] + o[d]) as u32;
                    r[4 + d] = g[d] as u32;
                    r[7 + d] = o[d] as u32;
                    r[10 + d] = lid[d] as u32;
                    r[13 + d] = ls[d] as u32;
                    r[16 + d] = grp[d] as u32;
                    r[19 + d] = n[d] as u32;
                    r[22 + d] = l[d] as u32;
                }
                r[25] = (x + y * g[0] + z * g[0] * g[1]) as u32;
                r[26] = (lid[0] + lid[1] * ls[0] + lid[2] * ls[0] * ls[1]) as u32;
                out.push(r);
            }
        }
    }
    out
}

const NAMES: [&str; 9] =
    ["global_id", "global_size", "global_offset", "local_id", "local_size", "group_id", "num_groups", "enqueued", "?"];

fn check_ndrange(global: &[usize], local: &[usize], offset: Option<&[usize]>) {
    let zero = vec![0; global.len()];
    let want = expected(global, local, offset.unwrap_or(&zero));
    let out = run_source(ALL, "-cl-std=CL3.0", "k", global, Some(local), offset, &[zeros(4 * REC * want.len())]);
    let got: Vec<u32> = read(&out[0]);
    for (i, w) in want.iter().enumerate() {
        let g = &got[REC * i..REC * (i + 1)];
        for k in 0..REC {
            let what = match k {
                0 => "work_dim".to_string(),
                25 => "global_linear_id".to_string(),
                26 => "local_linear_id".to_string(),
                _ => format!("{}({})", NAMES[(k - 1) / 3], (k - 1) % 3),
            };
            assert_eq!(g[k], w[k], "{what} of work-item {i} (global {global:?} local {local:?} offset {offset:?})");
        }
    }
}

#[test]
fn one_dimension_uniform_groups() {
    check_ndrange(&[256], &[64], None);
}

#[test]
fn one_dimension_offset_and_partial_last_group() {
    check_ndrange(&[200], &[64], Some(&[5]));
}

#[test]
fn two_dimensions_offset_and_partial_groups() {
    check_ndrange(&[20, 13], &[8, 4], Some(&[3, 100]));
}

#[test]
fn three_dimensions_offset_and_partial_groups() {
    check_ndrange(&[10, 6, 5], &[4, 3, 2], Some(&[1, 2, 3]));
}

#[test]
fn three_dimensions_uniform_groups() {
    check_ndrange(&[8, 8, 4], &[4, 2, 2], None);
}

#[test]
fn work_item_functions_with_a_runtime_dimension_index() {
    // The dimension index is a run-time value, including out-of-range ones (ids 0, sizes 1).
    let src = "__kernel void k(__global uint *out, uint extra) {
        uint g = get_global_linear_id();
        for (uint d = 0; d < 3 + extra; d++) {
            out[g * 20 + 4 * d] = get_global_id(d);
            out[g * 20 + 4 * d + 1] = get_local_size(d);
            out[g * 20 + 4 * d + 2] = get_group_id(d);
            out[g * 20 + 4 * d + 3] = get_num_groups(d) + get_global_size(d) + get_global_offset(d);
        }
    }";
    let (global, local, offset) = ([12usize, 5], [4usize, 2], [7usize, 1]);
    let total = global[0] * global[1];
    let out =
        run_source(src, "-cl-std=CL3.0", "k", &global, Some(&local), Some(&offset), &[zeros(80 * total), val(2u32)]);
    let got: Vec<u32> = read(&out[0]);
    let want = expected(&global, &local, &offset);
    for (i, w) in want.iter().enumerate() {
        for d in 0..5 {
            let r = &got[20 * i + 4 * d..20 * i + 4 * d + 4];
            let e =
                if d < 3 { [w[1 + d], w[13 + d], w[16 + d], w[19 + d] + w[4 + d] + w[7 + d]] } else { [0, 1, 0, 2] };
            assert_eq!(r, &e, "work-item {i}, dimension index {d}");
        }
    }
}

#[test]
fn implementation_chosen_local_size_is_consistent() {
    let src = "__kernel void k(__global uint *out) {
        uint i = get_global_id(0) - get_global_offset(0);
        out[4 * i] = get_group_id(0) * get_enqueued_local_size(0) + get_local_id(0) + get_global_offset(0);
        out[4 * i + 1] = get_global_id(0);
        out[4 * i + 2] = get_local_size(0);
        out[4 * i + 3] = get_num_groups(0);
    }";
    let n = 300;
    let out = run_source(src, "-cl-std=CL3.0", "k", &[n], None, Some(&[11]), &[zeros(16 * n)]);
    let got: Vec<u32> = read(&out[0]);
    for i in 0..n {
        let r = &got[4 * i..4 * i + 4];
        assert_eq!(r[0], r[1], "item {i}: group * enqueued + local id + offset = global id");
        assert_eq!(r[1], i as u32 + 11, "item {i}: global id");
        assert!(r[2] >= 1 && r[3] >= 1, "item {i}: sizes {r:?}");
    }
}

#[test]
fn ids_drive_a_2d_transpose_with_offsets() {
    let src = "__kernel void k(__global const int *in, __global int *out, int w, int h) {
        int x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
        if (x < w && y < h) out[x * h + y] = in[y * w + x] + get_group_id(0) * 1000000 + get_group_id(1) * 10000;
    }";
    let (w, h) = (37usize, 23usize);
    let a: Vec<i32> = (0..(w * h) as i32).collect();
    let args = [buf(&a), zeros(4 * w * h), val(w as i32), val(h as i32)];
    let out = run_source(src, "-cl-std=CL3.0", "k", &[w, h], Some(&[16, 8]), Some(&[2, 9]), &args);
    let got: Vec<i32> = read(&out[1]);
    for y in 0..h {
        for x in 0..w {
            let want = a[y * w + x] + (x / 16) as i32 * 1_000_000 + (y / 8) as i32 * 10_000;
            assert_eq!(got[x * h + y], want, "({x},{y})");
        }
    }
}

/// `local_work_size = NULL` with a global size that has no useful divisor (43691 is prime): a
/// kernel that cannot observe its grouping runs in whole warps with a partial last work-group
/// (171 work-groups, not 43691 of one work-item each); one that reads a local size or a group
/// id or uses a barrier gets a uniform size (a divisor: 1), and the device runs its
/// single-item variant 32 work-groups to a warp (1366 device work-groups); one with `__local`
/// memory runs 43691 one-item work-groups.
#[test]
fn chosen_local_size_fills_warps_only_when_the_kernel_cannot_tell() {
    let n = 43691usize;
    let free = "__kernel void k(__global uint *out, uint k) {
        size_t i = get_global_id(0);
        if (i + 1 < get_global_size(0)) out[i] = i * k; else out[i] = 7;
    }";
    let out = run_source(free, "", "k", &[n], None, None, &[zeros(4 * n), val(3u32)]);
    let got: Vec<u32> = read(&out[0]);
    let want: Vec<u32> = (0..n as u32).map(|i| if i + 1 < n as u32 { i * 3 } else { 7 }).collect();
    assert_eq!(got, want);
    let stats = last_stats();
    assert_eq!(stats[0], n.div_ceil(256) as u64, "work-groups of a grouping-free kernel");
    assert!(stats[2] * 10 > stats[1] * stats[3] * 9, "lane utilisation: {stats:?}");
    let observing = [
        ("size", "out[get_global_id(0)] = get_local_size(0);", n.div_ceil(32)),
        ("group", "out[get_global_id(0)] = get_group_id(0) - get_global_id(0) + 1;", n.div_ceil(32)),
        ("barrier", "barrier(CLK_GLOBAL_MEM_FENCE); out[get_global_id(0)] = 1;", n.div_ceil(32)),
        ("local", "volatile __local uint t[1]; t[0] = 1; out[get_global_id(0)] = t[0];", n),
    ];
    for (what, body, groups) in observing {
        let src = format!("__kernel void k(__global uint *out, uint k) {{ {body} }}");
        let out = run_source(&src, "", "k", &[n], None, None, &[zeros(4 * n), val(3u32)]);
        let got: Vec<u32> = read(&out[0]);
        assert!(got.iter().all(|&x| x == 1), "{what}: {:?}", &got[..4]);
        assert_eq!(last_stats()[0], groups as u64, "{what}: work-groups");
    }
    let arg = "__kernel void k(__global uint *out, __local uint *t) { out[get_global_id(0)] = 1; }";
    run_source(arg, "", "k", &[n], None, None, &[zeros(4 * n), Arg::Local(16)]);
    assert_eq!(last_stats()[0], n as u64, "__local argument: work-groups");
}

/// One-item work-groups (`local_work_size` 1, 1×1, 1×1×1) of a kernel that reads every
/// work-item function: the device runs the kernel's single-item variant, 32 of the NDRange's
/// work-groups to a warp — every record is still exact, and the launch ran fewer (device)
/// work-groups than the NDRange has.
#[test]
fn one_item_work_groups_run_packed_and_every_work_item_function_is_exact() {
    let cases: [(&[usize], &[usize], &[usize]); 3] =
        [(&[45], &[1], &[5]), (&[7, 9], &[1, 1], &[3, 2]), (&[5, 3, 4], &[1, 1, 1], &[1, 0, 2])];
    for (global, local, offset) in cases {
        check_ndrange(global, local, Some(offset));
        let items = global.iter().product::<usize>() as u64;
        let groups = last_stats()[0];
        assert!(groups < items, "{global:?}: {groups} device work-groups for {items} one-item work-groups");
    }
}

/// A packed one-item launch of a kernel with barriers and group-id arithmetic (pocl's
/// EinsteinToolkit shape: `GROUP_SIZE` 1 in 3D) computes what the one-item work-groups do; a
/// kernel with `__local` memory is never packed.
#[test]
fn one_item_work_groups_with_barriers_and_local_memory() {
    let src = "__kernel void k(__global int *out, __global const int *in) {
        int g = get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2));
        int acc = 0;
        for (int i = 0; i <= g % 5; i++) {
            acc += in[(g + i) % 60] * (int)(get_local_size(0) + get_local_id(1));
            barrier(CLK_GLOBAL_MEM_FENCE);
        }
        out[g] = acc + (int)get_global_linear_id() * 1000;
    }";
    let input: Vec<i32> = (0..60).map(|i| i * 7 - 100).collect();
    let out = run_source(src, "-cl-std=CL3.0", "k", &[5, 4, 3], Some(&[1, 1, 1]), None, &[zeros(240), buf(&input)]);
    let got: Vec<i32> = read(&out[0]);
    for (g, &v) in got.iter().enumerate() {
        let acc: i32 = (0..=g % 5).map(|i| input[(g + i) % 60]).sum();
        assert_eq!(v, acc + g as i32 * 1000, "work-group {g}");
    }
    assert!(last_stats()[0] < 60, "packed: {} device work-groups", last_stats()[0]);
    let local = "__kernel void k(__global int *out) {
        __local int t; t = get_group_id(0); barrier(CLK_LOCAL_MEM_FENCE); out[get_global_id(0)] = t + 1;
    }";
    let out = run_source(local, "", "k", &[40], Some(&[1]), None, &[zeros(160)]);
    assert_eq!(read::<i32>(&out[0]), (1..=40).collect::<Vec<i32>>());
    assert_eq!(last_stats()[0], 40, "__local memory: one work-group per work-item");
}

/// A grouping-free kernel launched with a given size that idles lanes (CTS
/// `imagedim_non_pow2`'s 1×1 work-groups) runs in whole warps; a fault in a regrouped launch
/// still names the NDRange's work-group and local id of the faulting work-item.
#[test]
fn regrouped_launches_run_whole_warps_and_report_faults_in_the_ndranges_terms() {
    let free = "__kernel void k(__global int *out, int w) {
        int x = get_global_id(0), y = get_global_id(1);
        out[y * w + x] = x * 100 + y;
    }";
    let (w, h) = (29usize, 11usize);
    let out = run_source(free, "", "k", &[w, h], Some(&[1, 1]), None, &[zeros(4 * w * h), val(w as i32)]);
    let got: Vec<i32> = read(&out[0]);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(got[y * w + x], (x * 100 + y) as i32, "({x},{y})");
        }
    }
    assert_eq!(last_stats()[0], h as u64, "one device work-group per row of 29");
    for (what, body) in [
        ("grouping-free", "if (x == 13 && y == 4) *(volatile __global int *)16 = x;"),
        ("single-item variant", "if (x == 13 && y == 4) *(volatile __global int *)16 = get_group_id(0);"),
    ] {
        let src =
            format!("__kernel void k(__global int *out) {{ int x = get_global_id(0), y = get_global_id(1); {body} }}");
        let r = try_run_source(&[], &src, "", "k", &[20, 8], Some(&[1, 1]), Some(&[2, 1]), &[zeros(4)]);
        let m = match r {
            Ok(_) => panic!("{what}: the launch completed"),
            Err(f) => f.messages.join("\n"),
        };
        assert!(m.contains("store access fault"), "{what}: {m}");
        assert!(m.contains("work-group 71 (11,3,0)"), "{what}: {m}");
        assert!(m.contains("work-item (13,4,0), local id (0,0,0)"), "{what}: {m}");
        assert!(m.contains("work-groups of 20×1×1"), "{what}: {m}");
    }
}
