//! Compiler acceptance corpus: 64-bit atomics (`cl_khr_int64_base_atomics`,
//! `cl_khr_int64_extended_atomics` and the OpenCL C 3.0 `atomic_long` functions) on global and
//! local memory, built from source through the ICD loader. They compile to compare-and-swap loops
//! around `amocas.d`; results are checked with order-independent properties.
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
    let inc = |i: usize| 0xffff_ffffi64 + i as i64;
    let total: i64 = (0..N).map(inc).sum();
    assert_eq!(c[0], 5 + total, "final counter");
    let mut spans: Vec<(i64, i64)> = (0..N).map(|i| (old[i], old[i] + inc(i))).collect();
    spans.sort();
    let mut at = 5;
    for (lo, hi) in spans {
        assert_eq!(lo, at, "returned old values do not tile the range");
        at = hi;
    }
}
