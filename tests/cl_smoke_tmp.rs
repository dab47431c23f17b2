#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;

#[test]
fn smoke() {
    let src = "__kernel void k(__global int *a) { int i = get_global_id(0); a[i] = a[i] * 3 + i; }";
    let out = run1(src, "k", 64, 32, &[buf(&(0..64).collect::<Vec<i32>>())]);
    let got: Vec<i32> = read(&out[0]);
    for i in 0..64 { assert_eq!(got[i as usize], i * 4); }
}
