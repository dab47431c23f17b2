//! Compiler acceptance corpus: work-group collective functions and sub-groups (a sub-group is one
//! warp) — `work_group_reduce/scan_inclusive/scan_exclusive_{add,min,max}` over every scalar type
//! the spec lists, `work_group_all/any/broadcast` in 1D/2D/3D, partial warps, non-uniform edge
//! groups, the sub-group queries and `sub_group_*` functions, `clGetKernelSubGroupInfo`, and the
//! device's feature macros (a feature listed in `CL_DEVICE_OPENCL_C_FEATURES` must be usable).
//! Built from source through the ICD loader and checked against Rust.
#![allow(clippy::needless_range_loop)]

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use cl::*;
use clrun::*;
use std::ffi::CString;
use std::ptr::{null, null_mut};

/// Calls a loader entry point. Contract of every use in this file: handles are live objects
/// created here, and every pointer argument is NULL or points to live memory at least as large
/// as the size passed with it.
macro_rules! api {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

/// A scalar type: its OpenCL name, the type results are stored as, and how to read them.
#[derive(Clone, Copy, Debug)]
struct Scalar {
    name: &'static str,
    out: &'static str,
    float: bool,
    signed: bool,
    /// Largest and smallest value (the identities of min and max).
    max: f64,
    min: f64,
}

const TYPES: &[Scalar] = &[
    Scalar { name: "int", out: "int", float: false, signed: true, max: i32::MAX as f64, min: i32::MIN as f64 },
    Scalar { name: "uint", out: "uint", float: false, signed: false, max: u32::MAX as f64, min: 0.0 },
    Scalar { name: "long", out: "long", float: false, signed: true, max: i64::MAX as f64, min: i64::MIN as f64 },
    Scalar { name: "ulong", out: "ulong", float: false, signed: false, max: u64::MAX as f64, min: 0.0 },
    Scalar { name: "float", out: "float", float: true, signed: true, max: f64::INFINITY, min: f64::NEG_INFINITY },
    Scalar { name: "double", out: "double", float: true, signed: true, max: f64::INFINITY, min: f64::NEG_INFINITY },
    Scalar { name: "half", out: "float", float: true, signed: true, max: f64::INFINITY, min: f64::NEG_INFINITY },
];

/// Input values of `t` (small integers: every sum is exact in every type).
fn inputs(t: &Scalar, n: usize, seed: u32) -> Vec<f64> {
    let mut r = Rng(seed);
    let (lo, hi) = if !t.signed {
        (0, 100)
    } else if t.float {
        (-8, 9)
    } else {
        (-50, 51)
    };
    r.i32s(n, lo, hi).into_iter().map(f64::from).collect()
}

/// The bytes of `v` as `t`.
fn encode(t: &Scalar, v: &[f64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in v {
        match t.name {
            "int" => out.extend((x as i32).to_le_bytes()),
            "uint" => out.extend((x as u32).to_le_bytes()),
            "long" => out.extend((x as i64).to_le_bytes()),
            "ulong" => out.extend((x as u64).to_le_bytes()),
            "float" => out.extend((x as f32).to_le_bytes()),
            "double" => out.extend(x.to_le_bytes()),
            // Small integers: exact halves (sign, exponent, 10-bit mantissa).
            _ => out.extend(f32_to_half(x as f32).to_le_bytes()),
        }
    }
    out
}

fn f32_to_half(x: f32) -> u16 {
    if x == 0.0 {
        return if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let mant = ((b >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | mant
}

/// Results stored as `t.out`, as f64.
fn decode(t: &Scalar, b: &[u8]) -> Vec<f64> {
    match t.out {
        "int" => read::<i32>(b).into_iter().map(f64::from).collect(),
        "uint" => read::<u32>(b).into_iter().map(f64::from).collect(),
        "long" => read::<i64>(b).into_iter().map(|x| x as f64).collect(),
        "ulong" => read::<u64>(b).into_iter().map(|x| x as f64).collect(),
        "float" => read::<f32>(b).into_iter().map(f64::from).collect(),
        _ => read::<f64>(b).into_iter().collect(),
    }
}

fn pragma(t: &Scalar) -> &'static str {
    if t.name == "half" {
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    } else {
        ""
    }
}

/// The nine reductions and scans of `vals` in order: reduce, inclusive, exclusive × add, min, max.
fn reference(t: &Scalar, vals: &[f64]) -> Vec<[f64; 9]> {
    let total: [f64; 3] =
        [vals.iter().sum(), vals.iter().copied().fold(t.max, f64::min), vals.iter().copied().fold(t.min, f64::max)];
    let mut acc = [0.0, t.max, t.min];
    let mut out = Vec::new();
    for &x in vals {
        let before = acc;
        acc = [acc[0] + x, acc[1].min(x), acc[2].max(x)];
        out.push([total[0], total[1], total[2], acc[0], acc[1], acc[2], before[0], before[1], before[2]]);
    }
    out
}

const NINE: [&str; 9] = [
    "reduce_add",
    "reduce_min",
    "reduce_max",
    "scan_inclusive_add",
    "scan_inclusive_min",
    "scan_inclusive_max",
    "scan_exclusive_add",
    "scan_exclusive_min",
    "scan_exclusive_max",
];

/// Runs the nine work-group (`scope` "work_group") or sub-group functions over `t` in 1D with
/// `global` work-items in groups of `local` (a smaller last group when it does not divide).
fn nine_with(scope: &str, t: &Scalar, global: usize, local: usize, seed: u32) {
    let mut body = String::new();
    for (k, f) in NINE.iter().enumerate() {
        body += &format!("    out[9 * g + {k}] = ({out}){scope}_{f}(x);\n", out = t.out);
    }
    let src = format!(
        "{}kernel void k(global const {ty} *in, global {out} *out, global int *sg) {{
    size_t g = get_global_id(0);
    {ty} x = in[g];
{body}    sg[g] = get_max_sub_group_size();
}}",
        pragma(t),
        ty = t.name,
        out = t.out
    );
    let vals = inputs(t, global, seed);
    let out_bytes = if t.out == "double" || t.out.ends_with("long") { 8 } else { 4 };
    let args = [Arg::Buf(encode(t, &vals)), zeros(9 * global * out_bytes), zeros(4 * global)];
    let out = run_source(&src, "-cl-std=CL3.0", "k", &[global], Some(&[local]), None, &args);
    let got = decode(t, &out[1]);
    let sg = read::<i32>(&out[2])[0] as usize;
    assert!(sg >= 1, "get_max_sub_group_size() = {sg}");
    let part = if scope == "work_group" { local } else { sg.min(local) };
    let mut start = 0;
    while start < global {
        let group_end = (start / local * local + local).min(global);
        let end = (start + part).min(group_end);
        let want = reference(t, &vals[start..end]);
        for (i, w) in want.iter().enumerate() {
            let item = start + i;
            for k in 0..9 {
                assert_eq!(
                    got[9 * item + k],
                    w[k],
                    "{}_{} over {} at work-item {item} ({global} items, groups of {local})",
                    scope,
                    NINE[k],
                    t.name
                );
            }
        }
        start = end;
    }
}

#[test]
fn work_group_reductions_and_scans_of_every_type() {
    for (i, t) in TYPES.iter().enumerate() {
        // Two full warps; a partial warp; a non-uniform last group.
        nine_with("work_group", t, 128, 64, 10 + i as u32);
        nine_with("work_group", t, 80, 40, 20 + i as u32);
        nine_with("work_group", t, 100, 64, 30 + i as u32);
    }
}

#[test]
fn sub_group_reductions_and_scans_of_every_type() {
    for (i, t) in TYPES.iter().enumerate() {
        nine_with("sub_group", t, 128, 64, 40 + i as u32);
        nine_with("sub_group", t, 90, 45, 50 + i as u32);
    }
}

/// `work_group_all/any/broadcast` in 2D and 3D, including non-uniform edge groups (whose lanes
/// are not contiguous in the warps), and a reduction over those groups.
#[test]
fn work_group_vote_broadcast_and_reduce_in_2d_and_3d() {
    let src2 = "kernel void k(global const int *in, global int *out) {
        int w = get_global_size(0);
        int gx = get_global_id(0), gy = get_global_id(1);
        int x = in[gy * w + gx];
        int bx = get_local_size(0) - 1, by = get_local_size(1) / 2;
        int i = 4 * (gy * w + gx);
        out[i] = work_group_broadcast(x, bx, by);
        out[i + 1] = work_group_all(x > -1000) | work_group_any(x == 7) << 1;
        out[i + 2] = work_group_reduce_add(x);
        out[i + 3] = work_group_scan_inclusive_add(1);
    }";
    let (w, h, lx, ly) = (20usize, 12usize, 8usize, 8usize);
    let vals = Rng(77).i32s(w * h, -500, 500);
    let out = run_source(src2, "-cl-std=CL3.0", "k", &[w, h], Some(&[lx, ly]), None, &[buf(&vals), zeros(16 * w * h)]);
    let got: Vec<i32> = read(&out[1]);
    for gy in 0..h {
        for gx in 0..w {
            let (x0, y0) = (gx / lx * lx, gy / ly * ly);
            let (sx, sy) = ((w - x0).min(lx), (h - y0).min(ly));
            let members: Vec<i32> =
                (y0..y0 + sy).flat_map(|y| (x0..x0 + sx).map(move |x| (x, y))).map(|(x, y)| vals[y * w + x]).collect();
            let i = 4 * (gy * w + gx);
            let b = vals[(y0 + sy / 2) * w + x0 + sx - 1];
            assert_eq!(got[i], b, "2D broadcast at ({gx}, {gy})");
            let vote = 1 | (members.contains(&7) as i32) << 1;
            assert_eq!(got[i + 1], vote, "2D all/any at ({gx}, {gy})");
            assert_eq!(got[i + 2], members.iter().sum::<i32>(), "2D reduce at ({gx}, {gy})");
            let linear = (gy - y0) * sx + (gx - x0);
            assert_eq!(got[i + 3], linear as i32 + 1, "2D scan (local linear order) at ({gx}, {gy})");
        }
    }
    let src3 = "kernel void k(global int *out) {
        int id = get_global_id(2) * 64 + get_global_id(1) * 8 + get_global_id(0);
        out[id] = work_group_broadcast(id * 3, 1, 2, 3) + work_group_reduce_max(id);
    }";
    let out = run_source(src3, "-cl-std=CL3.0", "k", &[8, 8, 8], Some(&[4, 4, 4]), None, &[zeros(4 * 512)]);
    let got: Vec<i32> = read(&out[0]);
    for z in 0..8 {
        for y in 0..8 {
            for x in 0..8 {
                let (x0, y0, z0) = (x / 4 * 4, y / 4 * 4, z / 4 * 4);
                let chosen = (z0 + 3) * 64 + (y0 + 2) * 8 + x0 + 1;
                let max = (z0 + 3) * 64 + (y0 + 3) * 8 + x0 + 3;
                assert_eq!(got[z * 64 + y * 8 + x], (chosen * 3 + max) as i32, "3D at ({x}, {y}, {z})");
            }
        }
    }
}

/// The sub-group queries, `sub_group_all/any/broadcast` and `sub_group_barrier`.
#[test]
fn sub_group_queries_votes_and_broadcast() {
    let src = "kernel void k(global int *out, local int *l) {
        int g = get_global_id(0), lid = get_local_id(0);
        int i = 8 * g;
        out[i] = get_sub_group_size();
        out[i + 1] = get_max_sub_group_size();
        out[i + 2] = get_num_sub_groups();
        out[i + 3] = get_enqueued_num_sub_groups();
        out[i + 4] = get_sub_group_id();
        out[i + 5] = get_sub_group_local_id();
        out[i + 6] = sub_group_broadcast(g * 10, 1) + (sub_group_all(g >= 0) | sub_group_any(g == 33) << 1);
        l[lid] = g;
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        int sl = get_sub_group_local_id(), first = lid - sl;
        out[i + 7] = l[first + (sl + 1) % get_sub_group_size()];
    }";
    let (n, local) = (100usize, 48usize);
    let out =
        run_source(src, "-cl-std=CL3.0", "k", &[n], Some(&[local]), None, &[zeros(32 * n), Arg::Local(4 * local)]);
    let got: Vec<i32> = read(&out[0]);
    let sg = got[1] as usize;
    assert!((1..=32).contains(&sg), "max sub-group size {sg}");
    for g in 0..n {
        let group_size = local.min(n - g / local * local);
        let lid = g % local;
        let (id, sl) = (lid / sg, lid % sg);
        let size = sg.min(group_size - id * sg);
        let first = g - sl;
        let row = &got[8 * g..8 * g + 8];
        assert_eq!(row[0] as usize, size, "get_sub_group_size at {g}");
        assert_eq!(row[1] as usize, sg, "get_max_sub_group_size at {g}");
        assert_eq!(row[2] as usize, group_size.div_ceil(sg), "get_num_sub_groups at {g}");
        assert_eq!(row[3] as usize, local.div_ceil(sg), "get_enqueued_num_sub_groups at {g}");
        assert_eq!((row[4] as usize, row[5] as usize), (id, sl), "sub-group id and local id at {g}");
        let any = (first..first + size).contains(&33) as i32;
        assert_eq!(row[6], (first as i32 + 1) * 10 + (1 | any << 1), "broadcast and votes at {g}");
        assert_eq!(row[7] as usize, first + (sl + 1) % size, "neighbour after sub_group_barrier at {g}");
    }
}

/// `get_max_sub_group_size()` in a work-group of 64: the device's sub-group (warp) size.
fn max_sub_group_size() -> usize {
    let out = run_source(
        "kernel void k(global int *o) { o[get_global_id(0)] = get_max_sub_group_size(); }",
        "-cl-std=CL3.0",
        "k",
        &[64],
        Some(&[64]),
        None,
        &[zeros(256)],
    );
    read::<i32>(&out[0])[0] as usize
}

/// `clGetKernelSubGroupInfo` and `CL_DEVICE_MAX_NUM_SUB_GROUPS` agree with what kernels see.
#[test]
fn kernel_sub_group_info() {
    let (d, mut err) = (device(), 0);
    let ctx = context();
    let src = CString::new("kernel void k(global int *o) { o[get_global_id(0)] = get_max_sub_group_size(); }").unwrap();
    let mut ptrs = [src.as_ptr()];
    let p = api!(clCreateProgramWithSource(ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
    check(err, "clCreateProgramWithSource");
    let opts = CString::new("-cl-std=CL3.0").unwrap();
    check(api!(clBuildProgram(p, 0, null(), opts.as_ptr(), None, null_mut())), "clBuildProgram");
    let name = CString::new("k").unwrap();
    let k = api!(clCreateKernel(p, name.as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let lanes = max_sub_group_size();
    let query = |param: cl_uint, input: &[usize], out: &mut [usize]| -> cl_int {
        let (ip, isz) =
            if input.is_empty() { (null(), 0) } else { (input.as_ptr().cast(), std::mem::size_of_val(input)) };
        // SAFETY: `input` and `out` are live slices of the sizes passed.
        unsafe {
            (cl().clGetKernelSubGroupInfo)(
                k,
                d,
                param,
                isz,
                ip,
                std::mem::size_of_val(out),
                out.as_mut_ptr().cast(),
                null_mut(),
            )
        }
    };
    let mut one = [0usize];
    check(query(CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[100], &mut one), "MAX_SUB_GROUP_SIZE_FOR_NDRANGE");
    assert_eq!(one[0], lanes.min(100));
    check(query(CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &[10, 10], &mut one), "SUB_GROUP_COUNT_FOR_NDRANGE");
    assert_eq!(one[0], 100usize.div_ceil(lanes));
    let mut three = [9usize; 3];
    check(query(CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, &[2], &mut three), "LOCAL_SIZE_FOR_SUB_GROUP_COUNT");
    assert_eq!(three, [2 * lanes, 1, 1]);
    check(query(CL_KERNEL_MAX_NUM_SUB_GROUPS, &[], &mut one), "MAX_NUM_SUB_GROUPS");
    let max_wg: usize = info_value(cl().clGetDeviceInfo, d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert_eq!(one[0], max_wg.div_ceil(lanes));
    let dev_max: cl_uint = info_value(cl().clGetDeviceInfo, d, CL_DEVICE_MAX_NUM_SUB_GROUPS);
    assert_eq!(dev_max as usize, one[0]);
    expect_err(query(CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &[], &mut one), CL_INVALID_VALUE, "no local size");
    expect_err(query(CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &[1, 1, 1, 1], &mut one), CL_INVALID_VALUE, "4 dims");
    expect_err(query(0x12345, &[1], &mut one), CL_INVALID_VALUE, "unknown query");
    api!(clReleaseKernel(k));
    api!(clReleaseProgram(p));
    api!(clReleaseContext(ctx));
}

/// Every optional feature the device lists is defined for `-cl-std=CL3.0` and works; the
/// generic-space, collective and sub-group features are among them.
#[test]
fn listed_features_are_defined_and_work() {
    let feats: Vec<u8> = info_bytes(cl().clGetDeviceInfo, device(), CL_DEVICE_OPENCL_C_FEATURES);
    let names: Vec<String> = feats
        .chunks_exact(std::mem::size_of::<cl_name_version>())
        .map(|c| {
            let name = &c[4..];
            String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]).into_owned()
        })
        .collect();
    for want in
        ["__opencl_c_generic_address_space", "__opencl_c_work_group_collective_functions", "__opencl_c_subgroups"]
    {
        assert!(names.iter().any(|n| n == want), "{want} not listed in {names:?}");
    }
    let mut checks = String::new();
    for n in &names {
        checks += &format!("#ifndef {n}\n#error {n} listed but not defined\n#endif\n");
    }
    let src = format!(
        "{checks}
    int twice(int *p) {{ return *p * 2; }}
    kernel void k(global int *out) {{
        int g = get_global_id(0), mine = g;
        out[g] = twice(&mine) + work_group_reduce_add(1) * 1000 + sub_group_reduce_add(1) * 1000000;
    }}"
    );
    let out = run_source(&src, "-cl-std=CL3.0", "k", &[64], Some(&[64]), None, &[zeros(256)]);
    let got: Vec<i32> = read(&out[0]);
    let sg = (got[0] / 1_000_000) as usize;
    assert!((1..=32).contains(&sg), "sub-group size {sg}");
    for g in 0..64 {
        assert_eq!(got[g], 2 * g as i32 + 64_000 + (sg.min(64 - g / sg * sg) as i32) * 1_000_000, "work-item {g}");
    }
}

/// The `cl_khr_subgroup_*` extensions over divergent lanes: votes, ballots and lane masks,
/// shuffles, non-uniform and clustered reductions and scans, 8/16-bit and vector types. Odd
/// and even lanes take different branches with the same calls in each (the optimizer must not
/// merge them), and the last warp is partial.
#[test]
fn non_uniform_sub_group_functions_over_divergent_lanes() {
    let src = "kernel void k(global const int *in, global int *out, global char *c, global int4 *v) {
        int g = get_global_id(0), i = 16 * g;
        int x = in[g];
        uint sl = get_sub_group_local_id();
        if (sl & 1) {
            out[i] = sub_group_elect() | sub_group_non_uniform_all(x > -1000) << 1
                   | sub_group_non_uniform_any(x == 7) << 2 | sub_group_non_uniform_all_equal(x & 0) << 3;
            out[i + 1] = sub_group_broadcast_first(x);
            out[i + 2] = sub_group_non_uniform_reduce_add(x);
            out[i + 3] = sub_group_non_uniform_scan_inclusive_max(x);
            out[i + 4] = sub_group_non_uniform_scan_exclusive_add(x);
        } else {
            out[i] = sub_group_elect() | sub_group_non_uniform_all(x > -1000) << 1
                   | sub_group_non_uniform_any(x == 7) << 2 | sub_group_non_uniform_all_equal(x & 0) << 3;
            out[i + 1] = sub_group_broadcast_first(x);
            out[i + 2] = sub_group_non_uniform_reduce_add(x);
            out[i + 3] = sub_group_non_uniform_scan_inclusive_max(x);
            out[i + 4] = sub_group_non_uniform_scan_exclusive_add(x);
        }
        uint4 b = sub_group_ballot(x > 0);
        out[i + 5] = b.x;
        out[i + 6] = sub_group_inverse_ballot(b) | sub_group_ballot_bit_extract(b, 2) << 1;
        out[i + 7] = sub_group_ballot_bit_count(b) | sub_group_ballot_inclusive_scan(b) << 8
                   | sub_group_ballot_exclusive_scan(b) << 16;
        out[i + 8] = b.x ? (sub_group_ballot_find_lsb(b) | sub_group_ballot_find_msb(b) << 8) : -1;
        out[i + 9] = get_sub_group_eq_mask().x ^ get_sub_group_gt_mask().x;
        out[i + 10] = sub_group_shuffle(x, (sl * 7) % get_sub_group_size());
        out[i + 11] = sub_group_shuffle_xor(x, 1);
        out[i + 12] = sl >= 2 ? sub_group_shuffle_up(x, 2) : 0;
        out[i + 13] = sl + 3 < get_sub_group_size() ? sub_group_shuffle_down(x, 3) : 0;
        out[i + 14] = sub_group_clustered_reduce_add(x, 4);
        out[i + 15] = sub_group_clustered_reduce_max(x, 8);
        c[g] = sub_group_reduce_min(c[g]) + sub_group_broadcast(c[g], 1);
        v[g] = sub_group_broadcast(v[g], 2) + (int4)(sub_group_non_uniform_reduce_mul((short)(1 + (g & 1))));
    }";
    let (n, local) = (80usize, 40usize);
    let x = Rng(91).i32s(n, -20, 21);
    let c: Vec<i8> = Rng(92).i32s(n, -100, 100).into_iter().map(|v| v as i8).collect();
    let v: Vec<i32> = (0..4 * n as i32).map(|k| k * 3 - 50).collect();
    let args = [buf(&x), zeros(64 * n), buf(&c), buf(&v)];
    let out = run_source(src, "-cl-std=CL3.0", "k", &[n], Some(&[local]), None, &args);
    let (got, gc, gv): (Vec<i32>, Vec<i8>, Vec<i32>) = (read(&out[1]), read(&out[2]), read(&out[3]));
    let sg = max_sub_group_size();
    for g in 0..n {
        let lid = g % local;
        let first = g - lid % sg;
        let size = sg.min(local - (lid - lid % sg));
        let sl = g - first;
        let lanes: Vec<usize> = (first..first + size).collect();
        // The lanes on this work-item's side of the branch.
        let side: Vec<usize> = lanes.iter().copied().filter(|l| (l - first) % 2 == sl % 2).collect();
        let xs: Vec<i32> = side.iter().map(|&l| x[l]).collect();
        let me = side.iter().position(|&l| l == g).unwrap();
        let r = &got[16 * g..16 * g + 16];
        let vote = (me == 0) as i32 | 1 << 1 | (xs.contains(&7) as i32) << 2 | 1 << 3;
        assert_eq!(r[0], vote, "elect/all/any/all_equal at {g}");
        assert_eq!(r[1], xs[0], "broadcast_first at {g}");
        assert_eq!(r[2], xs.iter().sum::<i32>(), "non-uniform reduce_add at {g}");
        assert_eq!(r[3], *xs[..=me].iter().max().unwrap(), "non-uniform scan_inclusive_max at {g}");
        assert_eq!(r[4], xs[..me].iter().sum::<i32>(), "non-uniform scan_exclusive_add at {g}");
        let ballot: u32 = lanes.iter().filter(|&&l| x[l] > 0).map(|&l| 1u32 << (l - first)).sum();
        assert_eq!(r[5] as u32, ballot, "ballot at {g}");
        assert_eq!(
            r[6],
            (ballot >> sl & 1) as i32 | ((ballot >> 2 & 1) as i32) << 1,
            "inverse ballot, bit extract at {g}"
        );
        let below = |k: usize| (ballot & ((1u64 << k) - 1) as u32).count_ones() as i32;
        assert_eq!(r[7], ballot.count_ones() as i32 | below(sl + 1) << 8 | below(sl) << 16, "ballot counts at {g}");
        let lsb_msb =
            if ballot == 0 { -1 } else { ballot.trailing_zeros() as i32 | (31 - ballot.leading_zeros() as i32) << 8 };
        assert_eq!(r[8], lsb_msb, "find lsb/msb at {g}");
        let all = if sg >= 32 { u32::MAX } else { (1u32 << sg) - 1 };
        assert_eq!(r[9] as u32, (1u32 << sl) | (all & !((2u64 << sl) - 1) as u32), "eq ^ gt masks at {g}");
        assert_eq!(r[10], x[first + (sl * 7) % size], "shuffle at {g}");
        if sl ^ 1 < size {
            assert_eq!(r[11], x[first + (sl ^ 1)], "shuffle_xor at {g}");
        }
        assert_eq!(r[12], if sl >= 2 { x[g - 2] } else { 0 }, "shuffle_up at {g}");
        assert_eq!(r[13], if sl + 3 < size { x[g + 3] } else { 0 }, "shuffle_down at {g}");
        let cluster = |k: usize| (first + sl / k * k..(first + sl / k * k + k).min(first + size)).map(|l| x[l]);
        assert_eq!(r[14], cluster(4).sum::<i32>(), "clustered reduce_add at {g}");
        assert_eq!(r[15], cluster(8).max().unwrap(), "clustered reduce_max at {g}");
        let cs = &c[first..first + size];
        let want_c = (*cs.iter().min().unwrap() as i32 + cs[1.min(size - 1)] as i32) as i8;
        assert_eq!(gc[g], want_c, "char reduce_min + broadcast at {g}");
        let prod: i32 = lanes.iter().map(|&l| 1 + (l & 1) as i32).product::<i32>() as i16 as i32;
        for k in 0..4 {
            assert_eq!(gv[4 * g + k], v[4 * (first + 2) + k] + prod, "int4 broadcast, short mul at {g}.{k}");
        }
    }
}

/// `VENTUS_BUILD_OPTIONS` is appended to a program's build options: a kernel calling OpenCL C
/// 2.0 functions, built with no options (OpenCL C 1.2 by the spec's default), builds and runs
/// with `-cl-std=CL3.0` there (checked in a child process: the variable is read at every build).
#[test]
fn build_options_from_the_environment() {
    let src =
        "kernel void k(global int *o) { o[get_global_id(0)] = get_local_linear_id() + work_group_reduce_add(1); }";
    if std::env::var_os("VENTUS_BUILD_OPTIONS").is_some() {
        let out = run_source(src, "", "k", &[8], Some(&[8]), None, &[zeros(32)]);
        assert_eq!(read::<i32>(&out[0]), (8..16).collect::<Vec<i32>>());
        return;
    }
    assert!(std::panic::catch_unwind(|| build_only(src, "")).is_err(), "OpenCL C 1.2 has no work_group_reduce_add");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "build_options_from_the_environment", "--test-threads=1"])
        .env("VENTUS_BUILD_OPTIONS", "-cl-std=CL3.0")
        .status()
        .unwrap();
    assert!(status.success(), "the child run with VENTUS_BUILD_OPTIONS=-cl-std=CL3.0 failed");
}
