//! The soft-double library's level-1 math built-ins (`__vt_d_*`) run natively in untraced runs
//! (`emulator::hostcall::HostCall::F64Math`: the library's C compiled for the host by build.rs)
//! and must give exactly the bits its compiled code gives — for every double built-in a kernel
//! can call, on random operands of every magnitude and on edge values (negative ones give NaN
//! results: natively the canonical NaN, which the code must give too). Warps with a NaN or
//! infinite operand decline and run the code, so both paths are exercised; the
//! native one must actually be taken (far fewer emulated instructions).

mod cc;

use cc::A;

/// `(expression, is an int)` of every built-in, in terms of `x`, `y`, `z` (double) and `n` (int).
const EXPRS: &[&str] = &[
    "sin(x)",
    "cos(x)",
    "tan(x)",
    "asin(x)",
    "acos(x)",
    "atan(x)",
    "sinh(x)",
    "cosh(x)",
    "tanh(x)",
    "asinh(x)",
    "acosh(x)",
    "atanh(x)",
    "exp(x)",
    "exp2(x)",
    "exp10(x)",
    "expm1(x)",
    "log(x)",
    "log2(x)",
    "log10(x)",
    "log1p(x)",
    "cbrt(x)",
    "sqrt(x)",
    "rsqrt(x)",
    "erf(x)",
    "erfc(x)",
    "tgamma(x)",
    "lgamma(x)",
    "sinpi(x)",
    "cospi(x)",
    "tanpi(x)",
    "asinpi(x)",
    "acospi(x)",
    "atanpi(x)",
    "logb(x)",
    "rint(x)",
    "trunc(x)",
    "ceil(x)",
    "floor(x)",
    "round(x)",
    "degrees(x)",
    "radians(x)",
    "sign(x)",
    "(double)ilogb(x)",
    "pow(x, y)",
    "powr(x, y)",
    "atan2(y, x)",
    "atan2pi(y, x)",
    "hypot(x, y)",
    "fmod(x, y)",
    "remainder(x, y)",
    "fdim(x, y)",
    "fmax(x, y)",
    "fmin(x, y)",
    "maxmag(x, y)",
    "minmag(x, y)",
    "nextafter(x, y)",
    "copysign(x, y)",
    "step(x, y)",
    "ldexp(x, n)",
    "pown(x, n)",
    "rootn(x, n)",
    "fma(x, y, z)",
    "mad(x, y, z)",
    "mix(x, y, z)",
    "smoothstep(x, y, z)",
    "clamp(x, y, z)",
    "fract(x, &d)",
    "d",
    "modf(x, &d)",
    "d",
    "frexp(x, &k)",
    "(double)k",
    "remquo(x, y, &k)",
    "(double)k",
    "sincos(x, &d)",
    "d",
    "lgamma_r(x, &k)",
    "(double)k",
    "length((double3)(x, y, z))",
    "distance((double2)(x, y), (double2)(z, y))",
    "normalize((double3)(x, y, z)).x",
    "normalize((double3)(x, y, z)).z",
    "dot((double2)(x, y), (double2)(z, x))",
];

fn source() -> String {
    let body: String = EXPRS
        .iter()
        .enumerate()
        .map(|(k, e)| format!("    r = {e}; o[{}u * i + {k}u] = as_ulong(r);\n", EXPRS.len()))
        .collect();
    format!(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void math(__global const ulong *a, __global const ulong *b, __global const ulong *c,
                   __global const int *m, __global ulong *o) {{
    uint i = get_global_id(0);
    double x = as_double(a[i]), y = as_double(b[i]), z = as_double(c[i]), r, d;
    int n = m[i], k;
{body}}}
"
    )
}

/// Operands for `n` work-items: the first half of the warps finite values of every magnitude
/// (native), the rest with edge values mixed in (some lanes NaN or infinite: those warps run the
/// code).
fn operands(n: usize) -> ([Vec<u64>; 3], Vec<i32>) {
    const EDGES: [u64; 16] = [
        0,
        1 << 63,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x3fe0_0000_0000_0000,
        0x4000_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x4330_0000_0000_0001,
        0x400921fb54442d18, // π
    ];
    let mut next = cc::xorshift(0x2545_f491_4f6c_dd1du64);
    let mut v: [Vec<u64>; 3] = Default::default();
    let mut ints = Vec::new();
    for i in 0..n {
        let edgy = i >= n / 2;
        for col in v.iter_mut() {
            let r = next();
            let sign = r & (1 << 63);
            col.push(match r % 8 {
                // Any finite value.
                0 | 1 => {
                    let e = (r >> 52) & 0x7ff;
                    if e == 0x7ff {
                        r & !(1 << 62)
                    } else {
                        r
                    }
                }
                // |x| in [2^-8, 2^8): where most functions do their work.
                2..=5 => sign | (r & 0x000f_ffff_ffff_ffff) | (1015 + (r >> 56) % 16) << 52,
                // Near 1 and small integers plus a fraction.
                6 => sign | (r & 0x0000_0fff_ffff_ffff) | 0x3ff0_0000_0000_0000,
                _ if edgy => EDGES[(r >> 40) as usize % EDGES.len()],
                _ => sign | (r & 0x000f_ffff_ffff_ffff) | (1023 + (r >> 58) % 40) << 52,
            });
        }
        ints.push(((next() % 41) as i32) - 20);
    }
    (v, ints)
}

fn u64s(v: &[u64]) -> A {
    A::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

#[test]
fn native_math_gives_the_librarys_bits() {
    const N: usize = 1024;
    let c = cc::compile(&source(), "");
    let elf = ventus_icd::abi::elf::VentusElf::parse(&c.elf).unwrap();
    let natives = elf
        .symbols
        .iter()
        .filter_map(|s| s.name.strip_prefix(ventus_icd::abi::SUBROUTINE_LABEL_PREFIX))
        .filter(|n| {
            ventus_icd::emulator::native_math::lookup(n.trim_end_matches(ventus_icd::abi::UNIFORM_SUFFIX)).is_some()
        })
        .count();
    assert!(natives >= 60, "only {natives} level-1 built-ins in the program");
    let (ops, ints) = operands(N);
    let k = EXPRS.len();
    let args = [u64s(&ops[0]), u64s(&ops[1]), u64s(&ops[2]), cc::i32s(&ints), cc::zeros(N * k * 8)];
    let native = cc::run_compiled(&c, "math", &[N as u32], &[64], &args, cc::How { threads: 2, native: true });
    let code = cc::run_compiled(&c, "math", &[N as u32], &[64], &args, 1);
    let (native_count, code_count) = (native.instructions, code.instructions);
    let words = |b: &[u8]| b.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect::<Vec<_>>();
    let (native, code) = (words(&native.bufs[4]), words(&code.bufs[4]));
    let mut bad = Vec::new();
    for i in 0..N {
        for (j, e) in EXPRS.iter().enumerate() {
            let (a, b) = (native[k * i + j], code[k * i + j]);
            if a != b && bad.len() < 20 {
                bad.push(format!(
                    "{e} with x={:#018x} y={:#018x} z={:#018x} n={}: native {a:#018x}, code {b:#018x}",
                    ops[0][i], ops[1][i], ops[2][i], ints[i]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "native and compiled results differ:\n{}", bad.join("\n"));
    assert!(native_count * 3 < code_count, "natively {native_count} warp instructions, as code {code_count}");
}
