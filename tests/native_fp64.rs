//! The soft-double primitives (`__vt_f64_add/sub/mul/div/fma/sqrt`) run natively in untraced
//! runs (`emulator::hostcall::HostCall::F64`) and as the library's compiled code in traced
//! ones. Both must give the same bits — the library's — on edge cases (zeros, subnormals, the
//! normal range's edges, infinities, NaNs with payloads, halfway cases) and random operands,
//! and those bits must be the host's IEEE-754 results with NaNs canonical. The native path
//! must actually be taken (far fewer emulated instructions).

mod cc;

use std::process::Command;

const QNAN: u64 = 0x7ff8_0000_0000_0000;

/// Kernel `name` computing every primitive on operand set `idx` (`i`: one per work-item; `g`:
/// one per work-group, so the values are uniform and the compiler calls the uniform variants).
fn kernel(name: &str, idx: &str, def: &str) -> String {
    let ops = ["x + y", "x - y", "x * y", "x / y", "fma(x, y, z)", "sqrt(x)"];
    let stores: String =
        ops.iter().enumerate().map(|(k, e)| format!("    o[6 * {idx} + {k}] = as_ulong({e});\n")).collect();
    format!(
        "__kernel void {name}(__global const ulong *a, __global const ulong *b, __global const ulong *c,
                   __global ulong *o) {{
    {def}
    double x = as_double(a[{idx}]), y = as_double(b[{idx}]), z = as_double(c[{idx}]);
{stores}}}
"
    )
}

fn source() -> String {
    format!(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{}{}",
        kernel("ops", "i", "int i = get_global_id(0);"),
        kernel("uops", "g", "int g = get_group_id(0);")
    )
}

fn operands(n: usize) -> [Vec<u64>; 3] {
    let edges: [u64; 24] = [
        0,
        1 << 63,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x8010_0000_0000_0001,
        0x3fe0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0xbfef_ffff_ffff_ffff,
        0x4340_0000_0000_0000,
        0x4330_0000_0000_0001,
        0x7fef_ffff_ffff_ffff,
        0xffe0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0xfff8_dead_beef_0000,
        0x3ca0_0000_0000_0000,
        0x3cb0_0000_0000_0000,
        0x0000_0000_0000_0003,
        0x7fe0_0000_0000_0001,
        0xc000_0000_0000_0000,
    ];
    let mut next = cc::xorshift(0x9e37_79b9_7f4a_7c15u64);
    let mut v: [Vec<u64>; 3] = Default::default();
    for i in 0..n {
        for (k, col) in v.iter_mut().enumerate() {
            // Every pair of edge values, then random bits (exponents near each other half the time).
            let e = edges[(i / edges.len().pow(k as u32)) % edges.len()];
            let r = next();
            col.push(match i {
                _ if i < edges.len() * edges.len() && k < 2 => e,
                _ if i % 2 == 0 => r,
                _ => (r & 0x800f_ffff_ffff_ffff) | (0x3f0u64 + (r >> 60)) << 52,
            });
        }
    }
    v
}

/// Runs the kernel with ventus-run (`--trace` when `traced`); the output words and the number
/// of executed warp instructions.
fn run(
    dir: &std::path::Path,
    elf: &std::path::Path,
    kernel: &str,
    ops: &[Vec<u64>; 3],
    traced: bool,
) -> (Vec<u64>, u64) {
    let n = ops[0].len();
    // `uops` takes one operand set per 32-item work-group.
    let (global, local) = if kernel == "uops" { (n * 32, 32) } else { (n, 64) };
    let list = |v: &[u64]| format!("buf:u64:{}", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","));
    let dump = dir.join(if traced { "traced.dump" } else { "native.dump" });
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ventus-run"));
    cmd.args(["elf", elf.to_str().unwrap(), "--kernel", kernel, "--global", &global.to_string()]);
    cmd.args(["--local", &local.to_string()]);
    for v in ops {
        cmd.args(["--arg", &list(v)]);
    }
    cmd.args(["--arg", &format!("zeros:{}", n * 6 * 8), "--dump", dump.to_str().unwrap()]);
    if traced {
        cmd.args(["--trace", dir.join("trace.log").to_str().unwrap()]);
    }
    let o = cmd.output().expect("ventus-run runs");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "ventus-run failed:\n{out}\n{err}");
    let both = format!("{out}{err}");
    let instructions = both
        .split(", ")
        .find_map(|p| p.strip_suffix(" instructions").and_then(|x| x.parse::<u64>().ok()))
        .unwrap_or_else(|| panic!("no instruction count in:\n{both}"));
    // The last buffer of the dump is the output: `@base size` then one 32-bit word per line.
    let text = std::fs::read_to_string(&dump).unwrap();
    let last = text.rfind('@').unwrap();
    let words: Vec<u32> = text[last..].lines().skip(1).map(|l| u32::from_str_radix(l.trim(), 16).unwrap()).collect();
    (words.chunks(2).map(|p| u64::from(p[0]) | u64::from(p[1]) << 32).collect(), instructions)
}

#[test]
fn native_primitives_give_the_librarys_bits() {
    let dir = std::env::temp_dir().join(format!("ventus-native-fp64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let elf = dir.join("k.elf");
    let src = source();
    let c = ventus_icd::compiler::compile_spirv_from_source(&cc::front(&src, "").spirv, &src).unwrap();
    let parsed = ventus_icd::abi::elf::VentusElf::parse(&c.elf).unwrap();
    for name in ["__vt_f64_fma", "__vt_f64_fma__u", "__vt_f64_sqrt", "__vt_f64_sqrt__u"] {
        let label = format!("{}{name}", ventus_icd::abi::SUBROUTINE_LABEL_PREFIX);
        assert!(parsed.symbols.iter().any(|s| s.name == label), "{label} is in the ELF");
    }
    std::fs::write(&elf, c.elf).unwrap();
    for (kernel, n) in [("ops", 768), ("uops", 160)] {
        let ops = operands(n);
        let (native, native_count) = run(&dir, &elf, kernel, &ops, false);
        let (code, code_count) = run(&dir, &elf, kernel, &ops, true);
        check(kernel, &ops, &native, &code);
        assert!(native_count * 5 < code_count, "{kernel}: natively {native_count} instructions, as code {code_count}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Native and compiled results are equal, and the host's IEEE results with canonical NaNs.
fn check(kernel: &str, ops: &[Vec<u64>; 3], native: &[u64], code: &[u64]) {
    let n = ops[0].len();
    assert_eq!(native.len(), n * 6);
    let canon = |x: f64| if x.is_nan() { QNAN } else { x.to_bits() };
    let names = ["add", "sub", "mul", "div", "fma", "sqrt"];
    for i in 0..n {
        let [x, y, z] = [0, 1, 2].map(|k| f64::from_bits(ops[k][i]));
        let want = [x + y, x - y, x * y, x / y, x.mul_add(y, z), x.sqrt()].map(canon);
        for k in 0..6 {
            let what = format!("{kernel}: {} {:#018x} {:#018x} {:#018x}", names[k], ops[0][i], ops[1][i], ops[2][i]);
            assert_eq!(code[6 * i + k], want[k], "library code: {what}");
            assert_eq!(native[6 * i + k], code[6 * i + k], "native vs library code: {what}");
        }
    }
}
