//! Half arithmetic kept in floats between operations (`compiler::pass::half`), through the ICD
//! loader: `(float)(half)x` — the pass's float-domain rounding — on every class of float bit
//! pattern, and loops carrying halves through φs (with a divergent branch, overflow to ∞,
//! gradual underflow and NaNs) rounding every step exactly as half arithmetic.
//!
//! The references come from the `half` crate (IEEE binary16, nearest even); `+ - *` of halves
//! computed in f32 and rounded once are correctly rounded (24 ≥ 2·11 + 2 bits). NaN rule of
//! the device: arithmetic makes the canonical NaN (0x7e00); a conversion keeps the sign and the
//! top payload bits of a NaN and makes it quiet.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;
use clrun::*;
use half::f16;

const PRAGMA: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL FP_CONTRACT OFF\n";

/// `(float)(half)x` as the device computes it: nearest even, overflow to ∞; a NaN made quiet
/// with its 13 low bits dropped.
fn round_trip(x: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        (x & 0xffff_e000) | 0x0040_0000
    } else {
        f16::from_f32(f).to_f32().to_bits()
    }
}

const ROUND_TRIP: &str = r#"
__kernel void rt(__global const uint *x, __global uint *o) {
    uint i = get_global_id(0);
    o[i] = as_uint((float)(half)as_float(x[i]));
    o[get_global_size(0) + i] = as_uint(convert_float(convert_half(as_float(x[i]))) * 2.0f);
}
"#;

#[test]
fn float_half_float_round_trip_of_every_float_class() {
    let mut xs = Vec::new();
    let mut r = Rng(0x0f16_0f32);
    let mantissas = [
        0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x2001, 0x3000, 0x5000, 0x7000, 0x40_0000, 0x40_1000, 0x40_2000,
        0x7f_e000, 0x7f_efff, 0x7f_f000, 0x7f_ffff,
    ];
    for sign in [0u32, 0x8000_0000] {
        for e in 0..256u32 {
            for m in mantissas {
                xs.push(sign | e << 23 | m);
            }
            for _ in 0..6 {
                xs.push(sign | e << 23 | (r.next_u32() & 0x7f_ffff));
            }
        }
    }
    // Around the largest half (65504), the overflow threshold (65520) and the smallest ones.
    for base in [0x477f_e000u32, 0x477f_f000, 0x3380_0000, 0x3300_0000, 0x3880_0000] {
        for d in 0..64 {
            xs.push(base - 32 + d);
            xs.push((base - 32 + d) | 0x8000_0000);
        }
    }
    // A coarse scan of all of them.
    xs.extend((0..65536u32).map(|k| k.wrapping_mul(65521).wrapping_add(k >> 3)));
    let n = xs.len();
    let out = run_source(&format!("{PRAGMA}{ROUND_TRIP}"), "", "rt", &[n], None, None, &[buf(&xs), zeros(8 * n)]);
    let o: Vec<u32> = read(&out[1]);
    let mut bad = 0;
    for (i, &x) in xs.iter().enumerate() {
        let want = round_trip(x);
        // The doubled value: an arithmetic result (a NaN is the canonical one).
        let twice = f32::from_bits(want) * 2.0;
        let want2 = if twice.is_nan() { 0x7fc0_0000 } else { twice.to_bits() };
        for (k, w) in [(0, want), (1, want2)] {
            let got = o[k * n + i];
            if got != w {
                bad += 1;
                if bad < 12 {
                    eprintln!("output {k}: x = {x:#010x}: got {got:#010x}, want {w:#010x}");
                }
            }
        }
    }
    assert_eq!(bad, 0, "{bad} of {} results differ", 2 * n);
}

const CHAIN: &str = r#"
__kernel void chain(__global const ushort *x, half a, half b, half c, int n, __global ushort *o) {
    uint i = get_global_id(0), m = get_global_size(0);
    half v = as_half(x[i]);
    half w = v;
    for (int k = 0; k < n; k++) {
        v = v * a + b;
        if (v > c)
            v = v - w;
        w = w * (half)0.5f;
    }
    o[i] = as_ushort(v);
    o[m + i] = as_ushort(w);
}
"#;

/// A device arithmetic result: NaN made canonical.
fn arith(r: f16) -> f16 {
    if r.is_nan() {
        f16::from_bits(0x7e00)
    } else {
        r
    }
}

/// The kernel's loop for one work-item, step by step in half arithmetic.
fn chain_ref(x: u16, [a, b, c]: [f16; 3], n: i32) -> (u16, u16) {
    let round = |f: f32| arith(f16::from_f32(f));
    let mut v = f16::from_bits(x);
    let mut w = v;
    for _ in 0..n {
        v = round(v.to_f32() * a.to_f32());
        v = round(v.to_f32() + b.to_f32());
        if v > c {
            v = round(v.to_f32() - w.to_f32());
        }
        w = round(w.to_f32() * 0.5);
    }
    (v.to_bits(), w.to_bits())
}

#[test]
fn half_chains_in_loops_round_every_step() {
    let mut r = Rng(0x00c4_a125);
    let mut xs: Vec<u16> = vec![0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00];
    while xs.len() < 4096 {
        let h = r.next_u32() as u16;
        // Mostly moderate magnitudes (exponents 5..25), some of every kind.
        xs.push(if r.next_u32() % 4 == 0 { h } else { (h & 0x83ff) | ((5 + (r.next_u32() % 20) as u16) << 10) });
    }
    let n = xs.len();
    let params = [[1.5f32, -0.25, 100.0], [0.999, 0.001, 2.0], [-1.25, 3.0, -8.0]];
    for p in params {
        let abc = p.map(f16::from_f32);
        let steps = 40;
        let out = run_source(
            &format!("{PRAGMA}{CHAIN}"),
            "",
            "chain",
            &[n],
            Some(&[64]),
            None,
            &[buf(&xs), val(abc[0].to_bits()), val(abc[1].to_bits()), val(abc[2].to_bits()), val(steps), zeros(4 * n)],
        );
        let o: Vec<u16> = read(&out[5]);
        let mut bad = 0;
        for (i, &x) in xs.iter().enumerate() {
            let (v, w) = chain_ref(x, abc, steps);
            if (o[i], o[n + i]) != (v, w) {
                bad += 1;
                if bad < 12 {
                    eprintln!("{p:?}, x = {x:#06x}: got ({:#06x}, {:#06x}), want ({v:#06x}, {w:#06x})", o[i], o[n + i]);
                }
            }
        }
        assert_eq!(bad, 0, "{p:?}: {bad} of {n} work-items differ");
    }
}
