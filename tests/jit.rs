//! The translator (`src/emulator/jit/`) against the interpreter: random straight-line programs
//! of the operations it has templates for, mixed with operations it calls handlers for
//! (divisions, `vsetvli` to a shorter `vl`, CSR reads and writes, masked forms), run with
//! and without it on full and partial warps, a quarter of them behind a `regext`/`regexti`
//! prefix (the registers above 31: a prefix and its extended variant are two entries of one
//! translated run); every scalar and vector register (the high ones the prefixes reach too)
//! and the statistics must be equal. (Every other emulator test also runs both ways: `exec_ok`.)

mod common;
use common::*;
use ventus_icd::emulator::hostcall::{F64Op, HostCall};
use ventus_icd::emulator::{run, DeviceMemory, LaunchParams, LdsMap, RunOptions, RunStats};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// A small immediate, edge values included.
fn imm(r: &mut Rng) -> i32 {
    *r.pick(&[0, 1, -1, 2, 31, 32, 33, -32, 5, 2047, -2048, 100, -7])
}

/// Scalar registers the programs use (not a0 = output, t0, t2/t3 = `store_lanes`, sp/gp/tp).
const XS: [&str; 12] = ["t1", "t4", "t5", "t6", "a1", "a2", "a3", "a4", "s2", "s3", "s4", "x0"];
/// Vector registers (not v0, v1 = lane id, v30 = `store_lanes`).
const VS: [&str; 8] = ["v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"];

/// A `regext` payload adding 32 to a random non-empty choice of rd, rs1 and rs2.
fn prefix(r: &mut Rng) -> u64 {
    let bits = 1 + r.next() % 7;
    (bits & 1) | (((bits >> 1) & 1) << 3) | (((bits >> 2) & 1) << 6)
}

fn program(seed: u64, len: usize, ro: [u32; 2]) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut s = String::new();
    // Initial values: every register differs, lanes differ, some negative.
    for (k, x) in XS.iter().enumerate().take(XS.len() - 1) {
        s += &format!("    li {x}, {}\n", (r.next() as i32) >> (k % 20));
    }
    for (k, v) in VS.iter().enumerate() {
        s += &format!("    vmul.vx {v}, v1, {}\n    vxor.vx {v}, {v}, {}\n", XS[k], XS[k + 1]);
    }
    // v8, v9: +0 and −0 in the four pairings (FP min/max and compares of signed zeros).
    s += "    vsrl.vi v8, v1, 1\n    vsll.vi v8, v8, 31\n    vsll.vi v9, v1, 31\n";
    s += "    vmsne.vi v0, v1, 3\n";
    // Two read-only blocks (s5, s8): the memory view remembers the two it found last.
    s += &format!("    li s5, {}\n    li s8, {}\n", ro[0], ro[1]);
    // Shared accesses mid-program (each starts a turn: the translator's heads): v10 addresses
    // lane i's word of a scratch area of the output (v11 the next lane's: loads see the other
    // warps' stores in round-robin order), s6 a scalar scratch area.
    s += &format!("    vsll.vi v10, v1, 2\n    li s6, {}\n    vadd.vx v10, v10, s6\n", OUT + 0x2000);
    s += &format!("    vadd.vi v11, v10, 4\n    li s6, {}\n", OUT + 0x2400);
    // v12: every other word of the same area (stride 8: not unit-stride, the general path).
    s += &format!("    vsll.vi v12, v1, 3\n    li s6, {}\n    vadd.vx v12, v12, s6\n", OUT + 0x2000);
    s += &format!("    li s6, {}\n", OUT + 0x2400);
    // Private memory: v13 one offset in every lane (32 consecutive words of the overlay), v14
    // a lane's own (the general path); v26–v31 the soft-double primitives' operands (lanes
    // differ; some are infinities).
    s += "    li s9, 64\n    vmv.v.x v13, s9\n    vsll.vi v14, v1, 3\n";
    for (k, v) in ["v26", "v27", "v28", "v29", "v30", "v31"].iter().enumerate() {
        s += &format!("    vmul.vx {v}, v1, {}\n    vxor.vx {v}, {v}, {}\n", XS[k + 2], XS[k + 3]);
    }
    // Their high words: moderate exponents (lane-varying finite results whose fused and
    // separate roundings differ), but for an infinity or NaN in lane 0.
    s += "    li s9, 0x800fffff\n    li s11, 0x3fe00000\n";
    for v in ["v27", "v29", "v31"] {
        s += &format!("    vand.vx {v}, {v}, s9\n    vor.vx {v}, {v}, s11\n");
    }
    s += "    li s9, 0x7ff00000\n    vmv.s.x v27, s9\n    vmv.s.x v29, s9\n";
    // s10: this warp's uniform stack in the LDS window (256 bytes per warp, as the launch
    // declares: its loads are private and run inline).
    s += "    csrr s10, lds\n    csrr s11, wid\n    slli s11, s11, 8\n    add s10, s10, s11\n";
    for k in 0..64 {
        s += &format!("    sw {}, {}(s10)\n", XS[k % (XS.len() - 1)], 4 * k);
    }
    // v18: every other word of this warp's stack (full-warp LDS word loads that are not
    // unit-stride: the translator's gathers from the view's LDS block).
    s += "    vsll.vi v18, v1, 3\n    vadd.vx v18, v18, s10\n";
    // v19: rows of 16 words 256 bytes apart (a 2D work-group 16 items wide: runs of 8
    // consecutive words, the translator's octet loads and stores); v20: runs of 8 words 16
    // bytes apart (they overlap: the later lane's store must win).
    s += &format!("    vand.vi v19, v1, 15\n    vsll.vi v19, v19, 2\n    vsrl.vi v20, v1, 4\n    vsll.vi v20, v20, 8\n    vadd.vv v19, v19, v20\n    li s11, {}\n    vadd.vx v19, v19, s11\n", OUT + 0x2000);
    // v22: lane i's byte of the scratch area, v23: its halfword (full-warp byte and
    // halfword loads of consecutive addresses: the translator's narrow loads).
    s += &format!(
        "    li s11, {}\n    vadd.vx v22, v1, s11\n    vsll.vi v23, v1, 1\n    vadd.vx v23, v23, s11\n",
        OUT + 0x2000
    );
    s += &format!("    vand.vi v20, v1, 7\n    vsll.vi v20, v20, 2\n    vsrl.vi v21, v1, 3\n    vsll.vi v21, v21, 4\n    vadd.vv v20, v20, v21\n    li s11, {}\n    vadd.vx v20, v20, s11\n", OUT + 0x2000);
    let rr = ["add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and", "mul", "divu", "remu"];
    let ri = ["addi", "slti", "sltiu", "xori", "ori", "andi"];
    let sh = ["slli", "srli", "srai"];
    let vvx = ["vadd", "vsub", "vand", "vor", "vxor", "vmul", "vsll", "vsrl", "vsra", "vmin", "vmax", "vminu", "vmaxu"];
    let vvx_extra = ["vmseq", "vmsne", "vmslt", "vmsltu", "vmsle", "vmsleu", "vmadd", "vnmsub", "vmacc", "vnmsac"];
    let vi = [
        "vadd", "vrsub", "vand", "vor", "vxor", "vsll", "vsrl", "vsra", "vmseq", "vmsne", "vmsle", "vmsleu", "vmsgt",
        "vmsgtu",
    ];
    let mut subroutines = String::new();
    for k in 0..len {
        let (x1, x2, x3) = (*r.pick(&XS), *r.pick(&XS), *r.pick(&XS));
        let (v1, v2, v3) = (*r.pick(&VS), *r.pick(&VS), *r.pick(&VS));
        let masked = if r.next() % 8 == 0 { ", v0.t" } else { "" };
        let kind = r.next() % 21;
        let line = match kind {
            0 | 1 => format!("{} {x1}, {x2}, {x3}", r.pick(&rr)),
            2 => format!("{} {x1}, {x2}, {}", r.pick(&ri), imm(&mut r)),
            3 => format!("{} {x1}, {x2}, {}", r.pick(&sh), r.next() % 32),
            4 => format!("lui {x1}, {}", r.next() % (1 << 20)),
            5 => format!("auipc {x1}, {}", r.next() % 16),
            6 => format!(
                "csrr {x1}, {}",
                r.pick(&["tid", "wid", "numw", "numt", "wgid", "gidx", "mstatus", "vl", "instret", "cycle"])
            ),
            7 | 8 => {
                let op = if r.next() % 4 == 0 { r.pick(&vvx_extra) } else { r.pick(&vvx) };
                format!("{op}.vv {v1}, {v2}, {v3}{masked}")
            }
            9 | 10 => {
                let op = match r.next() % 8 {
                    0 | 1 => *r.pick(&vvx_extra),
                    2 => *r.pick(&["vmsgt", "vmsgtu"]),
                    _ => *r.pick(&vvx),
                };
                if ["vmadd", "vnmsub", "vmacc", "vnmsac"].contains(&op) {
                    // The multiply-adds take the scalar first.
                    format!("{op}.vx {v1}, {x1}, {v2}{masked}")
                } else {
                    format!("{op}.vx {v1}, {v2}, {x1}{masked}")
                }
            }
            11 => {
                let op = *r.pick(&vi);
                // Shift amounts and unsigned comparisons' immediates are unsigned 5-bit ones, the others
                // signed.
                let k = if op.starts_with("vs") || op.ends_with('u') {
                    (r.next() % 32) as i32
                } else {
                    imm(&mut r).clamp(-16, 15)
                };
                format!("{op}.vi {v1}, {v2}, {k}{masked}")
            }
            12 => match r.next() % 4 {
                0 => format!("vid.v {v1}{masked}"),
                1 => format!("vmv.v.x {v1}, {x1}"),
                2 => format!("vmv.v.i {v1}, {}", imm(&mut r).clamp(-16, 15)),
                _ => format!("vmv.v.v {v1}, {v2}"),
            },
            13 => {
                let op = *r.pick(&["vremu.vx", "vdivu.vx", "vrsub.vx"]);
                // Powers of two (a shift or a mask in the translator) half of the time.
                if r.next() % 2 == 0 {
                    format!("li {x1}, {}\n    {op} {v1}, {v2}, {x1}", 1u32 << (r.next() % 32))
                } else {
                    format!("{op} {v1}, {v2}, {x1}")
                }
            }
            14 => {
                // A shorter vl now and then (and back): templates must stop trusting the state.
                if r.next() % 3 == 0 {
                    format!("li t2, {}\n    vsetvli t2, t2, e32, m1, ta, ma", 1 + r.next() % 32)
                } else if r.next() % 3 == 0 {
                    let op = *r.pick(&["csrrs", "csrrc", "csrrw"]);
                    let iop = *r.pick(&["csrrsi", "csrrci", "csrrwi"]);
                    match r.next() % 3 {
                        0 => format!("{op} {x2}, mstatus, {x1}\n    csrr {x3}, mstatus"),
                        1 => format!("{iop} {x2}, mstatus, {}\n    csrr {x3}, mstatus", r.next() % 32),
                        // FS on again (a cleared FS makes the FP instructions illegal).
                        _ => format!("lui {x1}, 6\n    csrrs {x2}, mstatus, {x1}"),
                    }
                } else if r.next() % 2 == 0 {
                    format!("csrrw {x2}, mtvec, {x1}\n    csrr {x3}, mtvec")
                } else {
                    format!("csrw mscratch, {x1}\n    csrr {x2}, mscratch")
                }
            }
            15 => {
                // FP on arbitrary bit patterns: NaNs, infinities, subnormals, signed zeros.
                let op = *r.pick(&[
                    "vfadd", "vfsub", "vfmul", "vfmacc", "vfmadd", "vfdiv", "vfrdiv", "vfsqrt", "vmfeq", "vmfne",
                    "vmflt", "vmfle", "vmfgt", "vmfge", "vfsgnj", "vfsgnjn", "vfsgnjx", "vfmin", "vfmax",
                ]);
                let x = if r.next() % 8 == 0 { "x0" } else { x1 };
                if op == "vfsqrt" {
                    format!("vfsqrt.v {v1}, {v2}{masked}")
                } else if op == "vfrdiv" || op == "vmfgt" || op == "vmfge" {
                    format!("{op}.vf {v1}, {v2}, {x}{masked}")
                } else if r.next() % 2 == 0 {
                    format!("{op}.vv {v1}, {v2}, {v3}{masked}")
                } else if op == "vfmacc" || op == "vfmadd" {
                    format!("{op}.vf {v1}, {x}, {v2}{masked}")
                } else {
                    format!("{op}.vf {v1}, {v2}, {x}{masked}")
                }
            }
            16 => {
                // A load from a read-only block (s5, s8), or from the text (read-only, but not a
                // block the memory view remembers), or from the output buffer (writable: a
                // shared load, which ends the run).
                match r.next() % 7 {
                    0 => format!("lw {x1}, {}(a0)", 4 * (r.next() % 64)),
                    // The warp's stack (the next warp's at 256: shared), a store now and then.
                    5 => format!("lw {x1}, {}(s10)", 4 * (r.next() % 66)),
                    6 => format!("sw {x1}, {}(s10)", 4 * (r.next() % 64)),
                    1 => {
                        let b = if x1 == "x0" { "t1" } else { x1 };
                        format!("auipc {b}, 0\n    lw {x1}, {}({b})", 4 * (r.next() % 8))
                    }
                    2 => format!("lw {x1}, {}(s8)", 4 * (r.next() % 64)),
                    _ => format!("lw {x1}, {}(s5)", 4 * (r.next() % 64)),
                }
            }
            17 => match r.next() % 12 {
                // Bytes and halfwords of scattered words (not consecutive: the translator's
                // narrow gathers and scatters).
                11 => {
                    let base = r.pick(&["v12", "v19", "v20"]);
                    match r.next() % 2 {
                        0 => format!("{} {v1}, {}({base})", r.pick(&["vlb12.v", "vlbu12.v", "vsb12.v"]), r.next() % 8),
                        _ => format!(
                            "{} {v1}, {}({base})",
                            r.pick(&["vlh12.v", "vlhu12.v", "vsh12.v"]),
                            2 * (r.next() % 4)
                        ),
                    }
                }
                8 => format!("{} {v1}, {}(v22)", r.pick(&["vlb12.v", "vlbu12.v"]), r.next() % 8),
                9 => format!("{} {v1}, {}(v23)", r.pick(&["vlh12.v", "vlhu12.v", "vsh12.v"]), 2 * (r.next() % 8)),
                10 => format!("vsb12.v {v1}, {}(v22)", r.next() % 8),
                6 => format!("vsw12.v {v1}, {}(v{})", 4 * (r.next() % 2), 19 + r.next() % 2),
                7 => format!("vlw12.v {v1}, {}(v{})", 4 * (r.next() % 2), 19 + r.next() % 2),
                // The warp's stack in the LDS block: gathers, and scatters now and then.
                5 => format!(
                    "{} {v1}, {}(v18)",
                    r.pick(&["vlw12.v", "vlw12.v", "vsw12.v", "vsb12.v"]),
                    4 * (r.next() % 2)
                ),
                0 => format!("vsw12.v {v1}, {}(v10)", 4 * (r.next() % 2)),
                1 => format!("vlw12.v {v1}, {}(v11)", -4 * (r.next() % 2) as i32),
                2 => format!("vlw12.v {v1}, 0(v12)"),
                3 => format!("vsw12.v {v1}, 4(v12)"),
                _ => format!("sw {x1}, {}(s6)", 4 * (r.next() % 16)),
            },
            19 => {
                let (op, reg) = (*r.pick(&["vlw.v", "vsw.v"]), *r.pick(&["v13", "v13", "v14"]));
                // `vlw.v` drops an address's low bits.
                format!("{op} {v1}, {}({reg})", 4 * (r.next() % 48) + u64::from(r.next() % 8 == 0))
            }
            20 => {
                // A soft-double primitive (a host call: inline in a translated function), its
                // operands copied in and its result out now and then.
                let mut l = String::new();
                if r.next() % 2 == 0 {
                    l += &format!("vadd.vx v{}, {v1}, x0\n    ", 26 + r.next() % 6);
                }
                l += &format!("jal {}", r.pick(&["f64_fma", "f64_add", "f64_mul_u"]));
                if r.next() % 2 == 0 {
                    l += &format!("\n    vadd.vx {v1}, v{}, x0", 26 + r.next() % 2);
                }
                l
            }
            _ => format!("vadd.vx {v1}, {v2}, {x1}"),
        };
        // A quarter of the lines behind a prefix: rd, rs1 and rs2 (the registers above 31 the
        // results below read back), now and then a `regexti` (rd and rs2, the high immediate
        // bits of a `.vi` form).
        // Memory accesses keep their address registers: only a load's destination (none of
        // the `auipc` that computes an address) moves up; CSR accesses their sources.
        let memory = kind == 16 || kind == 17 || kind == 19 || kind == 20;
        let line = match r.next() % 16 {
            0..=2 if memory && (line.starts_with("lw") || line.starts_with("vlw")) => {
                format!("regext zero, zero, 1\n    {line}")
            }
            _ if memory => line,
            // A CSR instruction with a source other than x0 writes the CSR (rd only).
            0..=2 if kind == 6 || kind == 14 => format!("regext zero, zero, 1\n    {line}"),
            0..=2 => format!("regext zero, zero, {}\n    {line}", prefix(&mut r)),
            3 => {
                format!(
                    "regexti zero, zero, {}\n    {line}",
                    (r.next() % 2) | ((r.next() % 2) << 3) | ((r.next() % 4) << 6)
                )
            }
            _ => line,
        };
        // Now and then the line runs under a vector branch (the translator goes on past one
        // that no lane takes, leaves at one all lanes take, and leaves a split or a `join`
        // with work to do to the interpreter): an if/else reconverging at a `join`, its
        // condition uniform (a register against itself), split at a lane (lane ids against
        // a broadcast n: uniform for n = 0 or past the warp's width) or random; or a loop
        // whose branch back is a vector branch on a broadcast counter.
        let line = match r.next() % 8 {
            0 => {
                let cond = match r.next() % 4 {
                    0 => format!("{} {v2}, {v2}", r.pick(&["vbeq", "vbne", "vbge", "vblt"])),
                    1 => format!("{} v1, v15", r.pick(&["vblt", "vbge", "vbltu", "vbgeu"])),
                    _ => format!("{} {v2}, {v3}", r.pick(&["vbeq", "vbne", "vblt", "vbge", "vbltu", "vbgeu"])),
                };
                format!(
                    "li s11, {}\n    vmv.v.x v15, s11\nR{k}:\n    auipc s11, %hi(J{k} - R{k})\n    \
                     setrpc zero, s11, %lo(J{k} - R{k})\n    {cond}, T{k}\n    vadd.vx {v3}, {v3}, {x3}\n    \
                     j J{k}\nT{k}:\n    {line}\nJ{k}:\n    join zero, zero, 0",
                    r.next() % 40
                )
            }
            1 => format!(
                "li s11, {}\nV{k}:\n    {line}\n    addi s11, s11, -1\n    vmv.v.x v15, s11\n    \
                 vmv.v.i v16, 0\n    vbne v15, v16, V{k}",
                1 + r.next() % 20
            ),
            _ => line,
        };
        // Now and then the line is a loop's body (the translator runs a loop inside one call
        // while the turn allows) or skipped by a forward branch.
        let line = match r.next() % 10 {
            0 => format!(
                "li s7, {}\nL{k}:\n    {line}\n    vadd.vx {v3}, {v2}, {x3}\n    addi s7, s7, -1\n    bnez s7, L{k}",
                1 + r.next() % 40
            ),
            1 => format!("{} {x2}, {x3}, S{k}\n    {line}\nS{k}:", r.pick(&["beq", "bne", "blt", "bgeu"])),
            // Indirect jumps (translated functions end at a `jalr` and go on into the function
            // compiled where it went): one over the line to a computed address, its link
            // register one of the registers compared, or a call of a subroutine (after
            // `endprg`) whose `ret` comes back to the line.
            2 => format!(
                "Q{k}:\n    auipc s11, %hi(I{k} - Q{k})\n    addi s11, s11, %lo(I{k} - Q{k})\n    \
                 jalr {}, 0(s11)\n    {line}\nI{k}:",
                r.pick(&["x0", "t1", "a1"])
            ),
            3 => {
                subroutines += &format!("P{k}:\n    vadd.vx {v3}, {v3}, {x3}\n    ret\n");
                format!("jal ra, P{k}\n    {line}")
            }
            _ => line,
        };
        s += "    ";
        s += &line;
        s += "\n";
    }
    // Results: vl back to full, every scalar register, then every vector register's lanes.
    s += "    li t2, 32\n    vsetvli t2, t2, e32, m1, ta, ma\n";
    s += &format!("    li t3, {}\n", OUT + 4 * 16 * 256);
    for (k, x) in XS.iter().enumerate() {
        s += &format!("    sw {x}, {}(t3)\n", 4 * k);
    }
    for (k, v) in VS.iter().enumerate() {
        s += &store_lanes(v[1..].parse().unwrap(), k as u32, 64);
    }
    // The registers 32 above them: copied down (`mv x, x+32`, `vmv.v.v v, v+32`), then stored.
    s += "    li t3, 0\n";
    for x in XS.iter().filter(|&&x| x != "x0") {
        s += &format!("    regext zero, zero, 8\n    add {x}, {x}, t3\n");
    }
    s += &format!("    li t3, {}\n", OUT + 4 * 25 * 256);
    for (k, x) in XS.iter().enumerate() {
        s += &format!("    sw {x}, {}(t3)\n", 4 * k);
    }
    for (k, v) in VS.iter().enumerate() {
        s += &format!("    regext zero, zero, 8\n    vmv.v.v {v}, {v}\n");
        s += &store_lanes(v[1..].parse().unwrap(), 17 + k as u32, 64);
    }
    s += "    endprg x0, x0, x0\n";
    s += &subroutines;
    // The primitives' code, replaced by host calls ([`HOST_CALLS`]).
    for f in HOST_CALLS.map(|(f, _)| f) {
        s += &format!("{f}:\n    vadd.vv v26, v26, v28\n    ret\n");
    }
    s
}

/// The soft-double primitives the programs call, run as host calls (both ways: untraced).
const HOST_CALLS: [(&str, HostCall); 3] = [
    ("f64_fma", HostCall::F64(F64Op::Fma)),
    ("f64_add", HostCall::F64(F64Op::Add)),
    ("f64_mul_u", HostCall::F64Uniform(F64Op::Mul)),
];

/// Runs the program of `seed` with two read-only blocks of 256 bytes (as a driver's argument
/// and metadata buffers) filled with words derived from `seed`, their addresses in s5 and s8;
/// returns the statistics, the output and the program.
fn run_with_block(seed: u64, s: &Setup, opts: &RunOptions) -> (RunStats, Vec<u32>, String) {
    let mem = DeviceMemory::new();
    mem.map(OUT, (s.out_words * 4) as u32).unwrap();
    mem.map(0x9100_0000, 0x1000 * s.warps * s.numt).unwrap();
    let mut r = Rng(seed | 1);
    let blocks = [(); 2].map(|_| {
        let block = mem.alloc_read_only(256).unwrap();
        let words: Vec<u8> = (0..64).flat_map(|_| (r.next() as u32).to_le_bytes()).collect();
        block.write_bytes(block.base(), &words);
        block.base()
    });
    let src = program(seed, 60, blocks);
    let (mut prog, labels) = build(&src);
    for (f, call) in HOST_CALLS {
        assert!(prog.install_host_call(labels[f], call));
    }
    let opts = RunOptions { threads: s.threads, ..opts.clone() };
    let params = LaunchParams { lds_map: LdsMap::WHOLE.with_warp_stack(256), ..params(s) };
    let stats = run(&mem, &prog, &params, &opts).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
    (stats, read_out(&mem, s.out_words), src)
}

fn compare(seed: u64, setup: Setup) {
    let (a, on, src) = run_with_block(seed, &setup, &RunOptions::default());
    let (b, off, _) = run_with_block(seed, &setup, &RunOptions { no_jit: true, ..RunOptions::default() });
    assert_eq!(on, off, "seed {seed}, numt {}: registers differ with the translator\n{src}", setup.numt);
    assert_eq!(
        (a.instructions, a.lane_instructions, a.global_bytes, a.local_bytes, a.private_bytes),
        (b.instructions, b.lane_instructions, b.global_bytes, b.local_bytes, b.private_bytes),
        "seed {seed}: statistics differ"
    );
}

#[test]
fn random_straight_line_code_runs_the_same_translated() {
    // One warp per work-group (a lone warp: shared entries inside translated functions) or two.
    for seed in 0..150 {
        compare(seed, Setup { numt: 32, warps: 1 + (seed % 2) as u32, out_words: 26 * 256, ..Setup::default() });
    }
}

#[test]
fn random_straight_line_code_runs_the_same_translated_on_partial_warps() {
    for seed in 1000..1080 {
        let numt = [20, 31, 1, 8][seed as usize % 4];
        let warps = [2, 1][(seed as usize / 4) % 2];
        compare(seed, Setup { numt, warps, out_words: 26 * 256, ..Setup::default() });
    }
}

#[test]
fn the_generator_makes_programs_the_translator_changes() {
    // Guard against a generator that only produces handler calls: a program of templates must
    // run measurably differently (fewer host calls is invisible, so check the code it made).
    let src: String = (0..40).map(|seed| program(seed, 60, [0x9200_0000, 0x9300_0000])).collect();
    for op in [
        "vadd.vx",
        "vmul",
        "add",
        "vsll",
        "csrr",
        "vfmacc",
        "vfdiv.vv",
        "vfdiv.vf",
        "vfrdiv.vf",
        "vfsqrt.v",
        "vmfeq.vv",
        "vmflt.vf",
        "vmfgt.vf",
        "vmfne.vv",
        "vfsgnjn.",
        "vfsgnjx.",
        "vfmin.",
        "vfmax.",
        "lw",
        "vsetvli",
        "mtvec",
        "bnez s7",
        "S1",
        "regext",
        "regexti",
        "vfmadd",
        "vlw.v",
        "vsw.v",
        "(v13)",
        "(v14)",
        "jal f64_fma",
        "jal f64_mul_u",
        "vmsgtu.vx",
        "vnmsac.vv",
        "vmsleu.vi",
        "vmacc.vx",
        "(s10)",
        "setrpc",
        "join",
        "v1, v15, T",
        "vbne v15, v16, V",
        "j J",
        "jalr t1, 0(s11)",
        "jal ra, P",
    ] {
        assert!(src.contains(op), "generated program lacks {op}:\n{src}");
    }
}

/// Every soft-double primitive as a host call a translated function runs inline (the `jal`,
/// the call's handler, the run after the return in one function): 32 lanes of operands — special values,
/// subnormals, and products whose fused and separate roundings differ — loaded, the primitive
/// called after a run, the result stored; bit for bit the host's IEEE result (NaNs canonical),
/// with and without the translator, and for the uniform form lane 31's result in every lane.
#[test]
fn soft_double_primitives_called_inline_are_bit_exact() {
    let mut r = Rng(0x5eed);
    let special = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE / 8.0, -1.0, 2.5];
    let near_one = |r: &mut Rng| f64::from_bits(0x3ff0_0000_0000_0000 | (r.next() & 0x000f_ffff_ffff_ffff));
    for round in 0..4 {
        let operands: [[f64; 32]; 3] = std::array::from_fn(|k| {
            std::array::from_fn(|lane| match (round, lane % 4) {
                (0, _) => special[(lane + 3 * k) % special.len()],
                (_, 0) if k == 2 => -1.0,
                _ => near_one(&mut r) * if lane % 3 == 0 { -1.0 } else { 1.0 },
            })
        });
        for (name, call) in [
            ("add", HostCall::F64(F64Op::Add)),
            ("sub", HostCall::F64(F64Op::Sub)),
            ("mul", HostCall::F64(F64Op::Mul)),
            ("div", HostCall::F64(F64Op::Div)),
            ("fma", HostCall::F64(F64Op::Fma)),
            ("sqrt", HostCall::F64(F64Op::Sqrt)),
            ("mul_u", HostCall::F64Uniform(F64Op::Mul)),
        ] {
            // Operand k's low and high words at OUT + 256 k (+ 128), the result at OUT + 1024.
            let mut src = String::from("    vsll.vi v2, v1, 2\n    vadd.vx v2, v2, a0\n");
            for k in 0..3 {
                src += &format!(
                    "    vlw12.v v{}, {}(v2)\n    vlw12.v v{}, {}(v2)\n",
                    26 + 2 * k,
                    256 * k,
                    27 + 2 * k,
                    256 * k + 128
                );
            }
            src += "    vadd.vx v3, v2, x0\n    vadd.vx v4, v3, x0\n    jal f64\n";
            src += "    vsw12.v v26, 1024(v2)\n    vsw12.v v27, 1152(v2)\n    endprg x0, x0, x0\nf64:\n    ret\n";
            let expect = |lane: usize| {
                let [a, b, c] = [0, 1, 2].map(|k| operands[k][if name == "mul_u" { 31 } else { lane }]);
                let v = match name {
                    "add" => a + b,
                    "sub" => a - b,
                    "mul" | "mul_u" => a * b,
                    "div" => a / b,
                    "fma" => a.mul_add(b, c),
                    _ => a.sqrt(),
                };
                if v.is_nan() {
                    0x7ff8_0000_0000_0000
                } else {
                    v.to_bits()
                }
            };
            for no_jit in [false, true] {
                let (mut prog, labels) = build(&src);
                assert!(prog.install_host_call(labels["f64"], call));
                let mem = DeviceMemory::new();
                mem.map(OUT, 4096).unwrap();
                mem.map(0x9100_0000, 0x1000 * 32).unwrap();
                let mut bytes = vec![0u8; 1024];
                for (k, lanes) in operands.iter().enumerate() {
                    for (lane, x) in lanes.iter().enumerate() {
                        let b = x.to_bits();
                        bytes[256 * k + 4 * lane..][..4].copy_from_slice(&(b as u32).to_le_bytes());
                        bytes[256 * k + 128 + 4 * lane..][..4].copy_from_slice(&((b >> 32) as u32).to_le_bytes());
                    }
                }
                mem.write(OUT, &bytes).unwrap();
                run(&mem, &prog, &params(&Setup::default()), &RunOptions { no_jit, ..RunOptions::default() }).unwrap();
                let out = read_out(&mem, 320);
                for lane in 0..32 {
                    let got = u64::from(out[256 + lane]) | u64::from(out[288 + lane]) << 32;
                    assert_eq!(got, expect(lane), "{name}, round {round}, lane {lane}, translator {}", !no_jit);
                }
            }
        }
    }
}

/// A partial warp's global store before any buffer is remembered (the masked unit-stride
/// template's block is still empty), to an unmapped address: a fault report with and without
/// the translator, never a host crash.
#[test]
fn a_partial_warps_store_before_any_block_faults_cleanly() {
    // Lanes 0–2 at 16, 20, 24: consecutive words, as the template takes them.
    let src =
        "    li t1, 16\n    vsll.vi v2, v1, 2\n    vadd.vx v2, v2, t1\n    vsw12.v v1, 0(v2)\n    endprg x0, x0, x0\n";
    for no_jit in [false, true] {
        let (prog, _) = build(src);
        let mem = DeviceMemory::new();
        let s = Setup { numt: 3, ..Setup::default() };
        let opts = RunOptions { no_jit, ..RunOptions::default() };
        let e = run(&mem, &prog, &params(&s), &opts).expect_err("the store to 16 completed");
        assert!(e.to_string().contains("store access fault"), "{e}");
    }
}

/// Every FP operation with a template on every pair of 16 special values (signed zeros,
/// infinities, quiet, signalling and negative NaNs, subnormals, the largest float), `.vv`,
/// `.vf`, unary and masked forms: the translator, the interpreters and the scalar semantics
/// agree bit for bit (`exec_ok` runs it with and without the translator).
#[test]
fn fp_templates_match_the_interpreter_on_special_values() {
    use ventus_icd::isa::semantics as s;
    const SPECIAL: [u32; 16] = [
        0x0000_0000,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0xffc0_0123,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x7f7f_ffff,
        0x3fc0_0000,
        0x4040_0000,
        0xc040_0000,
    ];
    let vv = [
        "vfadd", "vfsub", "vfmul", "vfdiv", "vfmin", "vfmax", "vfsgnj", "vfsgnjn", "vfsgnjx", "vmfeq", "vmfne",
        "vmflt", "vmfle",
    ];
    let vf = ["vfmin", "vfmax", "vfdiv", "vfrdiv", "vmfgt", "vmfge", "vmflt", "vmfeq"];
    let mut ops: Vec<String> = vv.iter().map(|o| format!("{o}.vv v6, v3, v5")).collect();
    ops.extend(vf.iter().map(|o| format!("{o}.vf v6, v3, t1")));
    ops.push("vfsqrt.v v6, v5".into());
    ops.push("vfmin.vv v6, v3, v5, v0.t".into());
    ops.push("vmfle.vv v6, v3, v5, v0.t".into());
    // The table at out[0..16]; lane i's a = table[i % 16] (v3); round k's b = table[(i + k) % 16]
    // (v5), t1 = table[k].
    let mut src = String::new();
    for (k, w) in SPECIAL.iter().enumerate() {
        src += &format!("    li t1, {}\n    sw t1, {}(a0)\n", *w as i32, 4 * k);
    }
    src += "    vmsne.vi v0, v1, 3\n    vand.vi v2, v1, 15\n    vsll.vi v2, v2, 2\n    vadd.vx v2, v2, a0\n    vlw12.v v3, 0(v2)\n";
    let mut slot = 1;
    for k in 0..16 {
        src += &format!("    vadd.vi v4, v1, {k}\n    vand.vi v4, v4, 15\n    vsll.vi v4, v4, 2\n    vadd.vx v4, v4, a0\n    vlw12.v v5, 0(v4)\n    lw t1, {}(a0)\n", 4 * k);
        for op in &ops {
            src += &format!("    {op}\n");
            src += &store_lanes(6, slot, 32);
            slot += 1;
        }
    }
    src += "    endprg x0, x0, x0\n";
    let out = exec_ok(&src, Setup { out_words: (slot as usize + 1) * 256, ..Setup::default() });
    // The scalar semantics for min/max (both forms) in every round.
    for k in 0..16 {
        let base = 1 + k * ops.len();
        for i in 0..32 {
            let (a, b, x) = (SPECIAL[i % 16], SPECIAL[(i + k) % 16], SPECIAL[k]);
            let at = |op: usize| out[(base + op) * 256 + i];
            assert_eq!(at(4), s::fmin(a, b), "vfmin.vv {a:#x} {b:#x}");
            assert_eq!(at(5), s::fmax(a, b), "vfmax.vv {a:#x} {b:#x}");
            assert_eq!(at(vv.len()), s::fmin(a, x), "vfmin.vf {a:#x} {x:#x}");
            assert_eq!(at(vv.len() + 1), s::fmax(a, x), "vfmax.vf {a:#x} {x:#x}");
        }
    }
}
