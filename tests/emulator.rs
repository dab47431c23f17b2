//! Emulator behaviour tests written in Ventus assembly: every custom instruction, divergence
//! (nested, shared reconvergence points, divergent loops), barriers across warps, regext forms,
//! every fault kind, the print hook and the watchdog. Each result is checked against values
//! computed on the host; runs are repeated on 1 and 2 host threads.

#![allow(clippy::needless_range_loop)]

mod common;
use common::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use ventus_icd::emulator::commit_log::CommitWrite;
use ventus_icd::emulator::{run, FaultKind, LaunchError, PrintHook, RunOptions};

fn lanes32() -> Setup {
    Setup::default()
}

/// An if/else on a per-lane condition: taken lanes add 2, fall-through lanes add 1.
fn if_else(cond: &str, a: &str, b: &str) -> String {
    format!(
        "
    vmv.v.x v4, zero
    la t1, J1
    setrpc zero, t1, 0
    {cond} {a}, {b}, T1
    vadd.vi v4, v4, 1
    j J1
T1:
    vadd.vi v4, v4, 2
J1:
    join
    vadd.vi v4, v4, 8        # must run on every lane again
{}
    endprg
",
        store_lanes(4, 0, 32)
    )
}

#[test]
fn vector_branches_evaluate_each_condition_per_lane_and_reconverge() {
    // v2 = lane - 16 (signed -16..15), v3 = 5.
    let setup = "
    vadd.vi v2, v1, -16
    li t0, 5
    vmv.v.x v3, t0
";
    type Cond = fn(i32, i32) -> bool;
    let cases: [(&str, Cond); 6] = [
        ("vbeq", |a, b| a == b),
        ("vbne", |a, b| a != b),
        ("vblt", |a, b| a < b),
        ("vbge", |a, b| a >= b),
        ("vbltu", |a, b| (a as u32) < (b as u32)),
        ("vbgeu", |a, b| (a as u32) >= (b as u32)),
    ];
    for (name, f) in cases {
        let out = exec_ok(&format!("{setup}{}", if_else(name, "v2", "v3")), lanes32());
        for lane in 0..32 {
            let want = 8 + if f(lane - 16, 5) { 2 } else { 1 };
            assert_eq!(out[lane as usize], want, "{name} lane {lane}");
        }
    }
}

#[test]
fn nested_divergence_with_separate_joins() {
    let src = format!(
        "
    li t0, 16
    vmv.v.x v16, t0
    vmv.v.x v20, zero
    vmv.v.x v4, zero
    la t1, OUTER
    setrpc zero, t1, 0
    vblt v1, v16, LOW
    vadd.vi v4, v4, 7            # high lanes
    j OUTER
LOW:
    vand.vi v5, v1, 1
    la t1, INNER
    setrpc zero, t1, 0
    vbeq v5, v20, EVEN
    vadd.vi v4, v4, 1            # odd low lanes
    j INNER
EVEN:
    vadd.vi v4, v4, 2            # even low lanes
INNER:
    join
    vadd.vi v4, v4, 10           # all low lanes
    j OUTER
OUTER:
    join
    li t0, 1000
    vadd.vx v4, v4, t0           # every lane
{}
    endprg
",
        store_lanes(4, 0, 32)
    );
    let out = exec_ok(&src, lanes32());
    for lane in 0..32usize {
        let want = 1000
            + if lane >= 16 {
                7
            } else if lane % 2 == 1 {
                11
            } else {
                12
            };
        assert_eq!(out[lane], want, "lane {lane}");
    }
}

#[test]
fn three_way_branch_sharing_one_reconvergence_point_unwinds_the_stack() {
    // if (x == 2) a=30 else if (x == 1) a=20 else if (x != 0) a=99 else a=10; x = lane % 4 — the
    // shape of the official get_global_id (ventus-isa.md §4.6).
    let src = format!(
        "
    vand.vi v0, v1, 3
    vmv.v.x v4, zero
    li t0, 2
    vmv.v.x v2, t0
    la t1, JOIN
    setrpc zero, t1, 0
    vbeq v0, v2, Z
    li t0, 1
    vmv.v.x v2, t0
    setrpc zero, t1, 0
    vbeq v0, v2, Y
    vmv.v.x v2, zero
    setrpc zero, t1, 0
    vbne v0, v2, R
    li t0, 10
    vmv.v.x v4, t0
    j JOIN
Z:  li t0, 30
    vmv.v.x v4, t0
    j JOIN
Y:  li t0, 20
    vmv.v.x v4, t0
    j JOIN
R:  li t0, 99
    vmv.v.x v4, t0
JOIN:
    join
    vadd.vi v4, v4, 1
{}
    endprg
",
        store_lanes(4, 0, 32)
    );
    let out = exec_ok(&src, lanes32());
    for lane in 0..32usize {
        let want = 1 + [10, 20, 30, 99][lane % 4];
        assert_eq!(out[lane], want, "lane {lane}");
    }
}

#[test]
fn divergent_loop_exit_and_continue() {
    // for (i = 0; i < lane; i++) { if (i % 3 == 0) continue; acc += i; }  (per lane)
    let src = format!(
        "
    vmv.v.x v2, zero             # i
    vmv.v.x v3, zero             # acc
    vmv.v.x v20, zero
    li t0, 3
    vmv.v.x v21, t0
    la t1, EXIT
    setrpc zero, t1, 0
HEAD:
    vbge v2, v1, EXIT            # lanes done leave the loop
    vremu.vv v5, v2, v21
    la t1, CONT
    setrpc zero, t1, 0
    vbeq v5, v20, CONT           # continue
    vadd.vv v3, v3, v2
    j CONT
CONT:
    join
    vadd.vi v2, v2, 1
    la t1, EXIT
    setrpc zero, t1, 0
    j HEAD
EXIT:
    join
    vadd.vi v3, v3, 1            # all lanes back
{}
    endprg
",
        store_lanes(3, 0, 32)
    );
    let out = exec_ok(&src, lanes32());
    for lane in 0..32u32 {
        let want: u32 = (0..lane).filter(|i| i % 3 != 0).sum::<u32>() + 1;
        assert_eq!(out[lane as usize], want, "lane {lane}");
    }
}

/// 4 warps per group write their ids to local memory after warp-dependent delays, then read a
/// neighbour warp's slot.
fn barrier_kernel(with_barrier: bool) -> String {
    format!(
        "
    csrr t5, wid
    li t6, 40
    mul t5, t5, t6
DELAY:
    beqz t5, WRITE
    addi t5, t5, -1
    j DELAY
WRITE:
    li t3, 0x70010000
    vsll.vi v5, v1, 2
    vadd.vx v5, v5, t3
    csrr t2, wgid
    li t4, 1000
    mul t2, t2, t4
    vadd.vx v6, v1, t2
    vsw12.v v6, 0(v5)
    {}
    li t4, 32
    vadd.vx v7, v1, t4
    li t4, 127
    vand.vx v7, v7, t4
    vsll.vi v7, v7, 2
    vadd.vx v7, v7, t3
    vlw12.v v8, 0(v7)
{}
    endprg
",
        if with_barrier { "barrier x0, x0, 1" } else { "nop" },
        store_lanes(8, 0, 128)
    )
}

#[test]
fn barrier_synchronises_the_warps_of_each_work_group() {
    let s = Setup { groups: 3, warps: 4, ..Setup::default() };
    let out = exec_ok(&barrier_kernel(true), s);
    for g in 0..3u32 {
        for l in 0..128u32 {
            assert_eq!(out[(g * 128 + l) as usize], (l + 32) % 128 + 1000 * g, "group {g} lane {l}");
        }
    }
    // Without the barrier the late warps have not written yet: the same check must fail.
    let bad = exec(&barrier_kernel(false), &Setup { groups: 3, warps: 4, ..Setup::default() });
    bad.result.unwrap();
    assert!((0..128).any(|l| bad.out[l] != (l as u32 + 32) % 128), "test cannot detect a missing barrier");
}

/// Launch statistics of a known kernel are exact: per warp one divergent branch (odd lanes), 128
/// bytes of local stores and loads each, 16 odd lanes × 8 private bytes, 128 bytes of global
/// stores; one barrier per work-group.
#[test]
fn statistics_of_a_known_kernel_are_exact() {
    let src = format!(
        "
    li t3, 0x70000000
    vsll.vi v5, v1, 2
    vadd.vx v5, v5, t3
    vsw12.v v1, 0(v5)
    barrier x0, x0, 1
    vlw12.v v8, 0(v5)
    vand.vi v9, v1, 1
    vmv.v.x v2, zero
    la t1, JOIN
    setrpc zero, t1, 0
    vbne v9, v2, ODD
    li t0, 1000
    vadd.vx v8, v8, t0
    j JOIN
ODD:
    vsw.v v8, 4(v0)
    vlw.v v10, 4(v0)
    vadd.vv v8, v8, v10
JOIN:
    join
{}
    endprg
",
        store_lanes(8, 0, 64)
    );
    let (groups, warps) = (3u64, 2u64);
    for threads in [1, 2] {
        let o = exec(&src, &Setup { groups: groups as u32, warps: warps as u32, threads, ..Setup::default() });
        let st = o.result.unwrap_or_else(|e| panic!("run failed: {e}"));
        let n = groups * warps;
        assert_eq!(st.divergent_branches, n, "one divergent branch per warp");
        assert_eq!(st.barriers, groups, "one barrier per work-group");
        assert_eq!((st.local_bytes, st.private_bytes, st.global_bytes), (256 * n, 128 * n, 128 * n));
        // The results agree with the counted work: even lanes +1000, odd lanes doubled.
        for l in 0..(groups * warps * 32) as usize {
            let v = (l % 64) as u32;
            assert_eq!(o.out[l], if v % 2 == 1 { 2 * v } else { v + 1000 }, "lane {l}");
        }
    }
}

#[test]
fn endprg_of_some_warps_does_not_block_a_later_barrier_of_the_others() {
    // Warp 0 ends at once; warps 1..3 meet at a barrier (finished warps count as arrived).
    let src = format!(
        "
    csrr t5, wid
    beqz t5, DONE
    barrier x0, x0, 1
    vadd.vi v4, v1, 5
{}
DONE:
    endprg
",
        store_lanes(4, 0, 128)
    );
    let out = exec_ok(&src, Setup { warps: 4, ..Setup::default() });
    for l in 0..128usize {
        assert_eq!(out[l], if l < 32 { 0 } else { l as u32 + 5 }, "lane {l}");
    }
}

#[test]
fn regext_extends_vector_scalar_and_store_operands() {
    let src = format!(
        "
    regext zero, zero, 1         # rd + 32
    vadd.vx v8, v1, zero         # writes v40 = lane
    regext zero, zero, 8         # rs1 + 32: vs1 = v40 in the next .vv
    vadd.vv v9, v1, v8           # v9 = v1 + v40 = 2*lane
    regext zero, zero, 72        # rs1+32, rs2+32
    vmadd.vv v9, v8, v8          # v9 = v40*v9 + v40  (vmadd vd, vs1, vs2)
    regext zero, zero, 1         # scalar rd + 32 -> x42
    addi a0, zero, 77
    regext zero, zero, 8         # scalar rs1 + 32: reads x42
    addi t6, a0, 0
    li a0, 0x90000000
    regext zero, zero, 1
    vmv.v.x v10, t6              # v42 = 77
    vsll.vi v30, v1, 2
    li t3, 3072
    add t3, t3, a0
    vadd.vx v30, v30, t3         # &out[768 + lane]
    regext zero, zero, 64        # rs2 + 32: the vsw12 data register is v42
    vsw12.v v10, 0(v30)
    regexti zero, zero, 0x7c0    # imm_hi = 31: 11-bit unsigned immediate 31*32 + 5 = 997
    vadd.vi v11, v1, 5
    regexti zero, zero, 0x7c1    # also rd + 32 (imm bits 2:0) -> writes v44, not v12
    vadd.vi v12, v1, 5
{}
{}
{}
    endprg
",
        store_lanes(9, 0, 32),
        store_lanes(11, 1, 32),
        store_lanes(12, 2, 32)
    );
    let out = exec_ok(&src, lanes32());
    for l in 0..32u32 {
        assert_eq!(out[l as usize], l * (2 * l) + l, "vmadd with extended sources, lane {l}");
        assert_eq!(out[256 + l as usize], l + 997, "regexti immediate, lane {l}");
        assert_eq!(out[512 + l as usize], 0, "regexti rd+32 left v12 alone, lane {l}");
        assert_eq!(out[768 + l as usize], 77, "extended scalar and store-data registers, lane {l}");
    }
}

#[test]
fn regexti_immediates_are_zero_extended_like_the_simulator() {
    // imm_hi = 63, field 31 -> 2047 (never negative), and unsigned .vi compares use the raw field.
    let src = format!(
        "
    regexti zero, zero, 0xfc0
    vadd.vi v4, v1, -1
    vmsleu.vi v5, v1, 16         # unsigned immediate 16 (not sign-extended)
    vmsgtu.vi v6, v1, 20
    vsll.vi v6, v6, 1
    vadd.vv v5, v5, v6
{}
{}
    endprg
",
        store_lanes(4, 0, 32),
        store_lanes(5, 1, 32)
    );
    let out = exec_ok(&src, lanes32());
    for l in 0..32u32 {
        assert_eq!(out[l as usize], l + 2047);
        assert_eq!(out[256 + l as usize], (l <= 16) as u32 + 2 * (l > 20) as u32);
    }
}

#[test]
fn flat_loads_and_stores_of_every_width_with_offsets_and_sign_extension() {
    let src = "
    li t0, 0x80
    vadd.vx v2, v1, t0
    vadd.vx v3, v1, a0           # byte address a0 + lane
    vsb12.v v2, 0(v3)            # bytes 0x80..0x9f at out+0..31
    vsll.vi v4, v1, 1
    vadd.vx v4, v4, a0
    vlh12.v v5, 0(v4)            # signed halves
    vlhu12.v v6, 0(v4)
    vlb12.v v7, 0(v3)
    vlbu12.v v8, 0(v3)
    li t1, 2048
    add t1, t1, a0
    vsll.vi v10, v1, 2
    vadd.vx v10, v10, t1         # &out[512 + lane]
    vsw12.v v5, -1024(v10)       # out[256 + lane]
    vsw12.v v6, 128(v10)         # out[544 + lane]
    vsw12.v v7, 1024(v10)        # out[768 + lane]
    vsw12.v v8, 2044(v10)        # out[1023 + lane]
    li t1, 10240
    vadd.vx v4, v4, t1
    vsh12.v v1, -2048(v4)        # halves at out + 8192 + 2*lane: out[2048 + lane/2]
    endprg
";
    let o = &exec_ok(src, lanes32());
    let byte = |k: usize| 0x80 + k as u32;
    for l in 0..32usize {
        let half = if 2 * l + 1 < 32 {
            byte(2 * l) | (byte(2 * l + 1) << 8)
        } else if 2 * l < 32 {
            byte(2 * l)
        } else {
            0
        };
        assert_eq!(o[256 + l], half as u16 as i16 as i32 as u32, "vlh12 lane {l}");
        assert_eq!(o[544 + l], half, "vlhu12 lane {l}");
        assert_eq!(o[768 + l], byte(l) as u8 as i8 as i32 as u32, "vlb12 lane {l}");
        assert_eq!(o[1023 + l], byte(l), "vlbu12 lane {l}");
    }
    for k in 0..16u32 {
        assert_eq!(o[2048 + k as usize], (2 * k) | ((2 * k + 1) << 16), "vsh12 word {k}");
    }
}

#[test]
fn private_memory_is_word_interleaved_across_the_work_group() {
    // Each lane stores lane*7 at private address 8 and reads it back with word/byte/half loads.
    let src = "
    li t0, 7
    vmul.vx v2, v1, t0
    vmv.v.x v3, zero             # private base address 0 (like tp)
    vsw.v v2, 8(v3)
    vlw.v v4, 8(v3)
    vlw.v v5, 9(v3)              # word access ignores the low address bits
    vlbu.v v6, 8(v3)
    vsh.v v1, 16(v3)             # halfword lane id at private 16
    li t0, -3
    vmv.v.x v9, t0
    vsb.v v9, 18(v3)             # byte 0xfd at private 18
    vlh.v v10, 16(v3)
    vlhu.v v11, 18(v3)
    vlb.v v12, 18(v3)
    vadd.vv v10, v10, v11        # lane + 0xfd (upper byte 0)
    vadd.vv v6, v6, v12          # + (-3)
    vsub.vv v6, v6, v10          # (lane*7 & 0xff) - 3 - lane - 0xfd
    li t1, 0x90000000
    vsll.vi v7, v1, 2
    vadd.vx v7, v7, t1
    vsw12.v v4, 0(v7)
    vsw12.v v5, 256(v7)
    vsw12.v v6, 512(v7)
    endprg
";
    let s = Setup { warps: 2, numt: 16, ..Setup::default() };
    let (r, traces, out) = exec_traced(src, &s);
    r.unwrap();
    for l in 0..32u32 {
        assert_eq!(out[l as usize], l * 7);
        assert_eq!(out[64 + l as usize], l * 7);
        let want = ((l * 7) & 0xff).wrapping_sub(3).wrapping_sub(l + 0xfd);
        assert_eq!(out[128 + l as usize], want, "byte/half private accesses, lane {l}");
    }
    // Addresses: PDS + (a & ~3) * N + 4 * (TID + lane), N = 32 threads, a = 8.
    let stores: Vec<u32> = traces[0]
        .1
        .iter()
        .filter(|r| ventus_icd::isa::decode(r.insn).map(|i| i.op) == Some(ventus_icd::isa::Op::VswV) && r.warp == 1)
        .flat_map(|r| {
            r.writes.iter().filter_map(|w| if let CommitWrite::Store { addr, .. } = w { Some(*addr) } else { None })
        })
        .collect();
    let want: Vec<u32> = (0..16).map(|i| 0x9100_0000 + 8 * 32 + 4 * (16 + i)).collect();
    assert_eq!(stores, want, "private store addresses of warp 1");
}

#[test]
fn vadd12_vsub12_setrpc_join_barriersub_and_vfexp() {
    let src = format!(
        "
    vadd12.vi v2, v1, 2047
    vsub12.vi v3, v1, 5
    vadd12.vi v4, v1, 4095       # sign-extended by the simulator: lane - 1
    la t1, HERE
    setrpc a5, t1, 8             # rd receives the value too
    barriersub
    join                         # nothing on the stack: no-op
HERE:
    vmv.v.x v5, a5
    la t2, HERE
    vsub.vx v5, v5, t2           # 8
    li t0, 0x3f000000            # 0.5f
    vmv.v.x v6, t0
    vfcvt.f.xu.v v7, v1
    vfmul.vv v7, v7, v6          # lane / 2
    vfexp v8, v7
{}
{}
{}
{}
{}
    endprg
",
        store_lanes(2, 0, 32),
        store_lanes(3, 1, 32),
        store_lanes(4, 2, 32),
        store_lanes(5, 3, 32),
        store_lanes(8, 4, 32)
    );
    let out = exec_ok(&src, lanes32());
    for l in 0..32u32 {
        assert_eq!(out[l as usize], l + 2047);
        assert_eq!(out[256 + l as usize], l.wrapping_sub(5));
        assert_eq!(out[512 + l as usize], l.wrapping_sub(1));
        assert_eq!(out[768 + l as usize], 8);
        let want = ((l as f32 * 0.5) as f64).exp() as f32;
        assert_eq!(out[1024 + l as usize], want.to_bits(), "vfexp lane {l}");
    }
}

#[test]
fn warp_csrs_and_partial_masks() {
    // numt = 8, 3 warps, 4 groups: tid, numw, numt, wid, wgid, gidx, lds via scalar CSR reads.
    let src = format!(
        "
    csrr t0, numw
    csrr t1, numt
    slli t0, t0, 8
    or t0, t0, t1
    csrr t1, wid
    slli t1, t1, 16
    or t0, t0, t1
    csrr t1, gidx
    slli t1, t1, 24
    or t0, t0, t1
    vmv.v.x v2, t0
    vadd.vv v2, v2, v1
    csrr t3, lds
    li t4, 0x70000000
    sub t3, t3, t4
    vadd.vx v2, v2, t3           # +0 if lds is 0x70000000
{}
    endprg
",
        store_lanes(2, 0, 24)
    );
    let out = exec_ok(&src, Setup { groups: 4, warps: 3, numt: 8, ..Setup::default() });
    for g in 0..4u32 {
        for l in 0..24u32 {
            let want = (3 << 8) | 8 | ((l / 8) << 16) | (g << 24);
            assert_eq!(out[(g * 24 + l) as usize], want + l, "group {g} lane {l}");
        }
    }
}

#[test]
fn scalar_fp_compares_moves_and_mask_quirks() {
    let src = format!(
        "
    li t0, 0x40400000            # 3.0
    li t1, 0x3fc00000            # 1.5
    fadd.s t2, t0, t1            # 4.5
    fmul.s t3, t2, t1            # 6.75
    fcvt.w.s t4, t3, rtz         # 6
    fadd.s t5, t0, zero          # x0 reads as NaN in the FP mirror -> canonical NaN
    flt.s t6, t1, t0             # 1
    vmv.v.x v2, t2
    vmv.v.x v3, t4
    vmv.v.x v4, t5
    vmv.v.x v5, t6
    # vmv.x.s takes the highest active lane; vfmv.v.f ignores the SIMT mask.
    li t0, 8
    vmv.v.x v20, t0
    vmv.v.x v6, zero
    la t1, J
    setrpc zero, t1, 0
    vblt v1, v20, LOW
    vmv.x.s s1, v1               # high lanes: 31
    j J
LOW:
    vmv.x.s s2, v1               # low lanes: 7
    li t0, 0x41200000            # 10.0
    vfmv.v.f v6, t0              # writes all 32 lanes despite the mask
J:
    join
    vmv.v.x v7, s1
    vmv.v.x v8, s2
    vmslt.vx v9, v1, t4          # compares give 0/1 per lane
{}
{}
{}
{}
{}
{}
{}
{}
    endprg
",
        store_lanes(2, 0, 32),
        store_lanes(3, 1, 32),
        store_lanes(4, 2, 32),
        store_lanes(5, 3, 32),
        store_lanes(6, 4, 32),
        store_lanes(7, 5, 32),
        store_lanes(8, 6, 32),
        store_lanes(9, 7, 32)
    );
    let o = exec_ok(&src, lanes32());
    for l in 0..32usize {
        assert_eq!(o[l], 4.5f32.to_bits());
        assert_eq!(o[256 + l], 6);
        assert_eq!(o[512 + l], 0x7fc0_0000);
        assert_eq!(o[768 + l], 1);
        assert_eq!(o[1024 + l], 10f32.to_bits(), "vfmv.v.f lane {l}");
        assert_eq!(o[1280 + l], 31);
        assert_eq!(o[1536 + l], 7);
        assert_eq!(o[1792 + l], (l < 6) as u32);
    }
}

/// Runs `src` expecting a fault; returns it.
fn fault_of(src: &str, s: Setup) -> ventus_icd::emulator::Fault {
    match exec(src, &s).result {
        Err(LaunchError::Fault(f)) => *f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn every_fault_kind_is_reported_with_its_context() {
    let at = |labels: &std::collections::BTreeMap<String, u32>, l: &str| labels[l];
    let cases: Vec<(&str, FaultKind, Option<u32>)> = vec![
        ("F: .word 0x0000500b\n", FaultKind::IllegalInstruction { word: 0x0000500b }, Some(0x0000500b)),
        ("li t0, 0x90000002\nF: lw t1, 0(t0)\n", FaultKind::LoadMisaligned, Some(0x9000_0002)),
        ("li t0, 0x90000001\nF: sh t1, 0(t0)\n", FaultKind::StoreMisaligned, Some(0x9000_0001)),
        ("li t0, 0x100\nF: lw t1, 0(t0)\n", FaultKind::LoadAccess, Some(0x100)),
        ("li t0, 0xa0000000\nF: sw t1, 0(t0)\n", FaultKind::StoreAccess, Some(0xa000_0000)),
        ("F: ecall\n", FaultKind::EnvironmentCall, None),
        ("F: ebreak\n", FaultKind::Breakpoint, None),
    ];
    // Legal encodings that trap in the current state: unknown CSR, write to a read-only CSR, FP with
    // mstatus.FS off, a vector op while vtype is illegal (only e32/m1 is supported).
    let word = |line: &str| ventus_icd::isa::asm::assemble_line(line, 0).unwrap()[0];
    let states = [
        ("", "csrr t0, 0x7c0"),
        ("li t0, 5\n", "csrw vl, t0"),
        ("csrw mstatus, zero\n", "fadd.s t0, t1, t2"),
        ("li t0, 5\nvsetvli t0, t0, e8, m1, ta, ma\n", "vadd.vv v1, v1, v1"),
    ];
    let owned: Vec<(String, u32)> = states.iter().map(|(pre, l)| (format!("{pre}F: {l}\n"), word(l))).collect();
    let cases = cases
        .into_iter()
        .chain(owned.iter().map(|(b, w)| (b.as_str(), FaultKind::IllegalInstruction { word: *w }, Some(*w))))
        .collect::<Vec<_>>();
    for (body, kind, addr) in cases {
        let (_, labels) = build(body);
        let f = fault_of(body, Setup { warps: 2, ..Setup::default() });
        assert_eq!(f.kind, kind, "{body}");
        assert_eq!(f.pc, at(&labels, "F"), "{body}");
        assert_eq!(f.addr, addr, "{body}");
        assert_eq!((f.work_group, f.warp, f.lane), (0, 0, None), "{body}");
        assert!(f.to_string().contains(&format!("pc {:#010x}", f.pc)), "{f}");
    }
    // Fetch faults: jumping outside the program, and to a misaligned address (no RVC).
    let f = fault_of("li t0, 0x10\njr t0\n", Setup::default());
    assert_eq!((f.kind, f.pc), (FaultKind::FetchAccess, 0x10));
    let f = fault_of("la t0, X\naddi t0, t0, 2\njr t0\nX: nop\n", Setup::default());
    assert_eq!(f.kind, FaultKind::FetchMisaligned);
    // A vector access faults at the first bad lane; earlier lanes completed.
    let f = fault_of(
        "li t0, 3000\nvmul.vx v2, v1, t0\nvadd.vx v2, v2, a0\nvsw12.v v1, 0(v2)\n",
        Setup { out_words: 4 * 1024, ..Setup::default() },
    );
    assert_eq!((f.kind, f.lane, f.addr), (FaultKind::StoreAccess, Some(6), Some(OUT + 6 * 3000)));
    // Work-group and warp are reported.
    let f = fault_of(
        "csrr t0, wgid\ncsrr t1, wid\nadd t0, t0, t1\nli t1, 4\nbne t0, t1, OK\nF: ebreak\nOK: endprg\n",
        Setup { groups: 3, warps: 3, ..Setup::default() },
    );
    assert_eq!((f.kind, f.work_group, f.warp), (FaultKind::Breakpoint, 2, 2));
}

/// Work-groups are claimed several at a time; after a fault every work-group below the lowest
/// faulting one still runs, so the fault reported does not depend on the thread count: here
/// work-group 1000 runs long, 1001 faults at once, and 3999 — which a second thread reaches
/// while the first is still in 1000 — faults too. Reported: 1001, at every thread count.
#[test]
fn the_lowest_faulting_work_group_is_reported_at_any_thread_count() {
    let body = "csrr t0, wgid\nli t1, 1000\nbne t0, t1, A\nli t2, 30000000\nL: addi t2, t2, -1\nbnez t2, L\nendprg\n\
                A: li t1, 1001\nbeq t0, t1, F\nli t1, 3999\nbeq t0, t1, F\nendprg\nF: ebreak\n";
    for threads in [1, 2, 3, 4] {
        let f = fault_of(body, Setup { groups: 4096, threads, ..Setup::default() });
        assert_eq!((f.kind, f.work_group), (FaultKind::Breakpoint, 1001), "{threads} threads");
    }
}

/// The writable segments of the program window hold their initial contents at the start of
/// every work-group (the reference reloads the program), also when the work-groups before it
/// on the same host thread wrote them — only some do here (the reload is skipped after the
/// others) — and a work-group that does not write them still sees them reloaded.
#[test]
fn writable_program_segments_start_fresh_in_every_work_group() {
    use ventus_icd::emulator::program::{LoadSegment, Program};
    const DATA: u32 = 0x8001_0000;
    let body = format!(
        "li t3, {DATA}\nlw t4, 0(t3)\nlw t5, 4(t3)\ncsrr t0, wgid\nslli t1, t0, 3\nadd t1, t1, a0\n\
         sw t4, 0(t1)\nsw t5, 4(t1)\nandi t2, t0, 3\nbeqz t2, SKIP\naddi t4, t4, 1\nsw t4, 0(t3)\nsw t0, 4(t3)\n\
         SKIP: endprg\n"
    );
    let asm = ventus_icd::isa::asm::assemble(&format!("{PROLOGUE}\n{body}"), 0x8000_0000).unwrap();
    let text: Vec<u8> = asm.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = 0x8000_0000 + text.len() as u32;
    let segments = vec![
        LoadSegment { vaddr: 0x8000_0000, mem_size: text.len() as u32, data: text, writable: false },
        // One initialised word, one of zeros (memory size beyond the file's data).
        LoadSegment { vaddr: DATA, data: 5u32.to_le_bytes().to_vec(), mem_size: 8, writable: true },
    ];
    let prog = Program::new(segments, &[(0x8000_0000, end)]).unwrap();
    for threads in [1, 2] {
        let s = Setup { groups: 64, threads, out_words: 128, ..Setup::default() };
        let mem = ventus_icd::emulator::DeviceMemory::new();
        mem.map(OUT, 128 * 4).unwrap();
        mem.map(0x9100_0000, 0x1000 * 32).unwrap();
        let opts = RunOptions { threads, ..RunOptions::default() };
        run(&mem, &prog, &params(&s), &opts).expect("runs");
        let out = read_out(&mem, 128);
        for g in 0..64 {
            assert_eq!((out[2 * g], out[2 * g + 1]), (5, 0), "work-group {g}, {threads} threads");
        }
    }
}

#[test]
fn watchdog_stops_a_runaway_kernel_and_memory_stays_usable() {
    let s = Setup { watchdog: 100_000, ..Setup::default() };
    let r = exec("L: j L\n", &s);
    match &r.result {
        Err(LaunchError::Fault(f)) => assert!(matches!(f.kind, FaultKind::Watchdog { instructions: 100_000 })),
        other => panic!("expected the watchdog, got {other:?}"),
    }
    // The same memory and program objects still work for a good kernel.
    let (prog, _) = build(&format!("vadd.vi v2, v1, 1\n{}\nendprg\n", store_lanes(2, 0, 32)));
    run(&r.mem, &prog, &r.params, &RunOptions::default()).unwrap();
    assert_eq!(read_out(&r.mem, 32), (1..=32).collect::<Vec<u32>>());
}

/// The CPU-time watchdog stops a spinning or storing work-group after its budget; `timeout_seconds` bounds
/// a whole launch of many spinning groups (later groups do not start once it has passed).
#[test]
fn time_limits_stop_runaway_work_groups_and_launches() {
    use std::time::{Duration, Instant};
    let (prog, _) = build("L: j L\n");
    let o = exec("endprg\n", &Setup::default());
    let many = ventus_icd::emulator::LaunchParams { num_groups: [64, 1, 1], ..o.params.clone() };
    let t0 = Instant::now();
    let opts = RunOptions { watchdog_seconds: 1, threads: 2, ..RunOptions::default() };
    let r = run(&o.mem, &prog, &many, &opts);
    let took = t0.elapsed();
    assert!(matches!(r, Err(LaunchError::Fault(ref f)) if f.kind == FaultKind::WatchdogTime { seconds: 1 }), "{r:?}");
    // Never before its budget (CPU time never runs ahead of wall time); the upper bound only
    // catches a watchdog that never fires (a loaded machine may take a while to get there).
    assert!(took >= Duration::from_secs(1) && took < Duration::from_secs(60), "watchdog took {took:?}");
    let msg = match r {
        Err(LaunchError::Fault(f)) => f.to_string(),
        _ => unreachable!(),
    };
    assert!(msg.contains("more than 1 s") && msg.contains("warp 0, pc 0x8"), "{msg}");
    // A work-group that keeps storing is stopped too: the budget is CPU time, progress or not.
    let busy = format!("L: sw t0, 0(a0)\naddi t0, t0, 1\nj L\n{}\nendprg\n", store_lanes(1, 0, 32));
    let o = exec("endprg\n", &Setup::default());
    let (busy_prog, _) = build(&busy);
    let opts = RunOptions { watchdog_seconds: 1, threads: 1, ..RunOptions::default() };
    let r = run(&o.mem, &busy_prog, &o.params, &opts);
    assert!(matches!(r, Err(LaunchError::Fault(ref f)) if f.kind == FaultKind::WatchdogTime { seconds: 1 }), "{r:?}");
    // A launch-wide limit below the per-group one.
    let t0 = Instant::now();
    let opts = RunOptions { watchdog_seconds: 30, timeout_seconds: 1, threads: 2, ..RunOptions::default() };
    let r = run(&o.mem, &prog, &many, &opts);
    let took = t0.elapsed();
    assert!(matches!(r, Err(LaunchError::Fault(ref f)) if f.kind == FaultKind::Timeout { seconds: 1 }), "{r:?}");
    assert!(took >= Duration::from_secs(1) && took < Duration::from_secs(60), "timeout took {took:?}");
    // The memory stays usable.
    let (good, _) = build(&format!("vadd.vi v2, v1, 1\n{}\nendprg\n", store_lanes(2, 0, 32)));
    run(&o.mem, &good, &o.params, &RunOptions::default()).unwrap();
    assert_eq!(read_out(&o.mem, 32), (1..=32).collect::<Vec<u32>>());
}

#[test]
fn cancellation_stops_a_running_launch() {
    let (prog, _) = build("L: j L\n");
    let o = exec("endprg\n", &Setup::default());
    let cancel = Arc::new(AtomicBool::new(false));
    let c2 = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        c2.store(true, Ordering::Relaxed);
    });
    let opts = RunOptions { cancel: Some(cancel), threads: 2, ..RunOptions::default() };
    let r =
        run(&o.mem, &prog, &ventus_icd::emulator::LaunchParams { num_groups: [4, 1, 1], ..o.params.clone() }, &opts);
    t.join().unwrap();
    assert!(matches!(r, Err(LaunchError::Fault(ref f)) if f.kind == FaultKind::Cancelled), "{r:?}");
}

struct Flagger {
    mem: Arc<ventus_icd::emulator::DeviceMemory>,
    seen: AtomicU32,
    tx: std::sync::Mutex<std::sync::mpsc::Sender<(u32, u32, u32)>>,
}
impl PrintHook for Flagger {
    fn on_print(&self, wg: u32, warp: u32, value: u32) {
        self.seen.fetch_add(1, Ordering::Relaxed);
        let _ = self.tx.lock().unwrap().send((wg, warp, value));
        let _ = &self.mem;
    }
}

#[test]
fn print_csr_reaches_a_host_thread_while_the_kernel_runs() {
    // The kernel announces a record through CSR_PRINT, then spins until the host answers by writing
    // a flag into device memory: it can only finish if the host serviced the hook mid-run.
    let (prog, _) = build(
        "
    csrr t1, wid
    addi t1, t1, 0x40
    csrw print, t1
WAIT:
    lw t2, 0(a0)
    beqz t2, WAIT
    endprg
",
    );
    let o = exec("endprg\n", &Setup::default());
    let mem = Arc::new(o.mem);
    let (tx, rx) = std::sync::mpsc::channel();
    let hook = Arc::new(Flagger { mem: mem.clone(), seen: AtomicU32::new(0), tx: std::sync::Mutex::new(tx) });
    let m2 = mem.clone();
    let server = std::thread::spawn(move || {
        let got = rx.recv().unwrap();
        m2.write_u32(OUT, 1).unwrap();
        got
    });
    let opts = RunOptions { print_hook: Some(hook.clone()), watchdog: 50_000_000, ..RunOptions::default() };
    run(&mem, &prog, &o.params, &opts).unwrap();
    let (wg, warp, value) = server.join().unwrap();
    assert_eq!((wg, warp, value), (0, 0, 0x40));
    assert_eq!(hook.seen.load(Ordering::Relaxed), 1);
}

#[test]
fn vftta_follows_the_reference_formula() {
    // vd = fma accumulation over 8-lane groups for the lower half of the lanes; upper half = i+7.
    let src = format!(
        "
    vfcvt.f.xu.v v2, v1          # vs1 = lane as float
    li t0, 0x3f800000
    vmv.v.x v3, t0               # vs2 = 1.0
    vmv.v.x v4, zero             # acc
    vftta.vv v4, v3, v2
{}
    endprg
",
        store_lanes(4, 0, 32)
    );
    let out = exec_ok(&src, lanes32());
    for i in 0..32usize {
        let want = if i >= 16 {
            (i + 7) as u32
        } else {
            let mut acc = 0f32;
            for j in 0..8 {
                acc += ((i >> 2) * 8 + j) as f32;
            }
            acc.to_bits()
        };
        assert_eq!(out[i], want, "lane {i}");
    }
}

#[test]
fn work_item_masks_for_partial_warps_and_non_uniform_groups() {
    use ventus_icd::abi::launch::NdRange;
    let range = |global: [u32; 3], local: [u32; 3]| NdRange { work_dim: 3, global, local, offset: [0; 3] };
    // 48 work-items per group with 32-lane warps: the second warp has 16 real lanes.
    let wi = range([96, 1, 1], [48, 1, 1]);
    assert_eq!(wi.lane_mask([0, 0, 0], 0, 32), u32::MAX);
    assert_eq!(wi.lane_mask([0, 0, 0], 1, 32), 0xffff);
    // Non-uniform: global 100 with local 48 -> the third group has 4 work-items.
    let wi = range([100, 1, 1], [48, 1, 1]);
    assert_eq!(wi.lane_mask([2, 0, 0], 0, 32), 0xf);
    assert_eq!(wi.lane_mask([2, 0, 0], 1, 32), 0);
    // 2D: local 8x4, global 12x6: group (1,1) is 4 wide and 2 high.
    let wi = range([12, 6, 1], [8, 4, 1]);
    let m = wi.lane_mask([1, 1, 0], 0, 32);
    let want: u32 = (0..32).filter(|l| l % 8 < 4 && l / 8 < 2).map(|l| 1u32 << l).sum();
    assert_eq!(m, want);
    // Every shape, full and partial groups, against the definition: lane l of warp w is the
    // work-item with linear local id w·numt + l, real when inside the group's actual extent.
    for (global, local) in [
        ([64u32, 1, 1], [64u32, 1, 1]),
        ([96, 1, 1], [48, 1, 1]),
        ([16, 12, 1], [8, 4, 1]),
        ([6, 6, 6], [3, 3, 3]),
        ([7, 9, 1], [4, 4, 1]),
        ([5, 4, 3], [2, 2, 2]),
    ] {
        let wi = range(global, local);
        let groups: [u32; 3] = std::array::from_fn(|d| global[d].div_ceil(local[d]));
        let ids = (0..groups[0] * groups[1] * groups[2])
            .map(|n| [n % groups[0], n / groups[0] % groups[1], n / (groups[0] * groups[1])]);
        for g in ids {
            let items = local[0] * local[1] * local[2];
            for numt in [4, 8, 32] {
                for warp in 0..items.div_ceil(numt) + 1 {
                    let want: u32 = (0..numt)
                        .filter(|&l| {
                            let lin = warp * numt + l;
                            let (x, y, z) = (lin % local[0], lin / local[0] % local[1], lin / (local[0] * local[1]));
                            z < local[2] && (0..3).all(|d| g[d] * local[d] + [x, y, z][d] < global[d])
                        })
                        .map(|l| 1u32 << l)
                        .sum();
                    assert_eq!(
                        wi.lane_mask(g, warp, numt),
                        want,
                        "{global:?}/{local:?} group {g:?} warp {warp} numt {numt}"
                    );
                }
            }
        }
    }
    // A kernel run with the mask: only real work-items store.
    let src = format!("vadd.vi v2, v1, 1\n{}\nendprg\n", store_lanes(2, 0, 48));
    let (prog, _) = build(&src);
    let o = exec("endprg\n", &Setup { groups: 3, warps: 2, ..Setup::default() });
    let params =
        ventus_icd::emulator::LaunchParams { work_items: Some(range([100, 1, 1], [48, 1, 1])), ..o.params.clone() };
    run(&o.mem, &prog, &params, &RunOptions::default()).unwrap();
    let out = read_out(&o.mem, 150);
    for g in 0..3usize {
        for l in 0..48usize {
            let real = g * 48 + l < 100;
            assert_eq!(out[g * 48 + l], if real { l as u32 + 1 } else { 0 }, "group {g} lane {l}");
        }
    }
}

#[test]
fn amocas_d_compares_all_64_bits_per_lane_and_returns_the_old_pair() {
    // (AMO operands are written with x names, as llvm-objdump prints them; they are vector
    // registers: x20 = v20, x5 = v5.)
    // Lane i owns the doubleword at OUT + 2048 + 8i, initially (lo, hi) = (i, 0x100 + i). Lanes
    // expect (i, 0x100 + i) except: lanes ≡ 1 (mod 4) expect a different high word, lanes ≡ 2 a
    // different low word (both must fail); lanes ≥ 24 are inactive (a divergent branch).
    let src = format!(
        "
    li t0, 2048
    add t0, t0, a0
    vsll.vi v5, v1, 3
    vadd.vx v5, v5, t0            # v5 = &slot[i]
    li t0, 0x100
    vadd.vx v6, v1, t0
    vsw12.v v1, 0(v5)
    vsw12.v v6, 4(v5)
    vadd.vx v20, v1, zero         # expected lo
    vadd.vx v21, v6, zero         # expected hi
    li t0, 3
    vand.vx v7, v1, t0
    vmv.v.x v8, zero
    li t0, 1
    vmv.v.x v9, t0
    li t0, 2
    vmv.v.x v10, t0
    la t1, A
    setrpc zero, t1, 0
    vbne v7, v9, A
    vadd.vi v21, v21, 1           # lanes = 1 (mod 4): high word differs
    j A
A:
    join
    la t1, B
    setrpc zero, t1, 0
    vbne v7, v10, B
    vadd.vi v20, v20, 4           # lanes = 2 (mod 4): low word differs
    j B
B:
    join
    li t0, 0xaaaa0000
    vadd.vx v22, v1, t0           # new lo
    li t0, 0xbbbb0000
    vadd.vx v23, v1, t0           # new hi
    vmv.v.x v24, zero
    li t0, 24
    vmv.v.x v11, t0
    la t1, C
    setrpc zero, t1, 0
    vbge v1, v11, C
    amocas.d x20, x22, (x5)
    j C
C:
    join
{}{}
    endprg
",
        store_lanes(20, 0, 32),
        store_lanes(21, 1, 32)
    );
    let out = exec_ok(&src, lanes32());
    for i in 0..32u32 {
        let l = i as usize;
        let mem = (out[512 + 2 * l], out[512 + 2 * l + 1]);
        let old = (out[l], out[256 + l]);
        let init = (i, 0x100 + i);
        if i >= 24 {
            assert_eq!(mem, init, "inactive lane {i}: memory untouched");
            continue;
        }
        assert_eq!(old, init, "lane {i}: old value returned in vd/vd+1");
        let swapped = (0xaaaa_0000 + i, 0xbbbb_0000 + i);
        assert_eq!(mem, if i % 4 == 0 || i % 4 == 3 { swapped } else { init }, "lane {i}: memory");
    }
    // Inactive lanes keep their registers (expected values).
    for i in 24..32usize {
        assert_eq!(
            (out[i], out[256 + i]),
            (i as u32 + if i % 4 == 2 { 4 } else { 0 }, 0x100 + i as u32 + (i % 4 == 1) as u32)
        );
    }
}

#[test]
fn amocas_d_loops_add_exactly_under_contention_across_warps_groups_and_threads() {
    // Every lane of 8 groups × 2 warps adds 0x1_0000_0001 to one doubleword with a CAS loop;
    // lanes that succeed leave the loop (divergent exit), the others retry with the value seen.
    let src = format!(
        "
    vmv.v.x v0, zero
    vmv.v.x v5, a0
    vlw12.v v20, 0(v5)
    vlw12.v v21, 4(v5)
    li t0, 1
HEAD:
    vadd.vx v24, v20, zero
    vadd.vx v25, v21, zero
    vadd.vx v22, v20, t0
    vmsltu.vv v26, v22, v20
    vadd.vx v23, v21, t0
    vadd.vv v23, v23, v26
    amocas.d x20, x22, (x5)
    vxor.vv v27, v20, v24
    vxor.vv v28, v21, v25
    vor.vv v27, v27, v28
    la t1, DONE
    setrpc zero, t1, 0
    vbeq v27, v0, DONE
    j HEAD
DONE:
    join
{}{}
    endprg
",
        store_lanes(24, 1, 64),
        store_lanes(25, 3, 64)
    );
    let s = Setup { groups: 8, warps: 2, ..lanes32() };
    let (a, b) = (exec(&src, &Setup { threads: 1, ..s }), exec(&src, &Setup { threads: 2, ..s }));
    for (o, threads) in [(&a, 1), (&b, 2)] {
        o.result.as_ref().unwrap_or_else(|e| panic!("{threads} threads: {e}"));
        let n = 8 * 64u64;
        let c = u64::from(o.out[0]) | u64::from(o.out[1]) << 32;
        assert_eq!(c, n * 0x1_0000_0001, "{threads} threads: counter");
        let mut olds: Vec<u64> =
            (0..n as usize).map(|l| u64::from(o.out[256 + l]) | u64::from(o.out[768 + l]) << 32).collect();
        olds.sort();
        assert_eq!(olds, (0..n).map(|k| k * 0x1_0000_0001).collect::<Vec<_>>(), "{threads} threads: old values");
    }
}

#[test]
fn amocas_d_faults_on_odd_pairs_misalignment_and_a_half_mapped_doubleword() {
    // Odd vd or vs2: illegal (the pair would not be an even/odd register pair).
    for bad in ["amocas.d x21, x22, (x5)", "amocas.d x20, x23, (x5)"] {
        let w = ventus_icd::isa::asm::assemble_line(bad, 0).unwrap()[0];
        let f = fault_of(&format!("vmv.v.x v5, a0\n{bad}\n"), lanes32());
        assert_eq!(f.kind, FaultKind::IllegalInstruction { word: w }, "{bad}");
    }
    // Lane 1 is the first whose address (OUT + 4) is not 8-byte aligned.
    let f = fault_of("vsll.vi v5, v1, 2\nvadd.vx v5, v5, a0\namocas.d x20, x22, (x5)\n", lanes32());
    assert_eq!((f.kind, f.lane, f.addr), (FaultKind::StoreMisaligned, Some(1), Some(OUT + 4)));
    // The low word is the last word of the buffer: the high word is unmapped.
    let f = fault_of(
        "li t0, 16376\nadd t0, t0, a0\nvmv.v.x v5, t0\namocas.d x20, x22, (x5)\n",
        Setup { out_words: 4095, ..lanes32() },
    );
    assert_eq!((f.kind, f.lane, f.addr), (FaultKind::StoreAccess, Some(0), Some(OUT + 16380)));
}

/// Device memory of a launch image comes in whole 4 KiB pages, as in the reference: a kernel
/// may read the tail of a buffer's last page (here 4 bytes past a 128-byte buffer, which reads
/// 0); an address past the page still faults.
#[test]
fn image_buffers_are_mapped_in_whole_pages() {
    use ventus_icd::abi::image::{ImageBuffer, LaunchImage};
    let run_image = |offset: u32| {
        let code = format!(
            "li t0, {}\nlw t1, 0(t0)\naddi t1, t1, 7\nli t2, 0x90002000\nsw t1, 0(t2)\nendprg\n",
            0x9000_0000u32 + offset
        );
        let asm = ventus_icd::isa::asm::assemble(&code, 0x8000_0000).unwrap();
        let text: Vec<u8> = asm.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let buffer = |base: u32, data: Vec<u8>| ImageBuffer {
            base,
            size: data.len() as u32,
            alloc_size: data.len() as u32,
            data,
        };
        let img = LaunchImage {
            start_pc: 0x8000_0000,
            kernel_id: 0,
            num_groups: [1, 1, 1],
            threads_per_warp: 1,
            warps_per_group: 1,
            metadata_base: 0,
            lds_size: 0,
            pds_size: 0,
            sgpr_usage: 0,
            vgpr_usage: 0,
            pds_base: 0,
            buffers: vec![
                buffer(0x8000_0000, text),
                buffer(0x9000_0000, vec![1; 128]),
                buffer(0x9000_2000, vec![0; 4]),
            ],
        };
        let mem = ventus_icd::emulator::DeviceMemory::new();
        let (prog, params) = ventus_icd::emulator::images::stage(&mem, &img).unwrap();
        let r = run(&mem, &prog, &params, &RunOptions::default());
        (r, mem.read_u32(0x9000_2000).unwrap())
    };
    let (r, v) = run_image(128);
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(v, 7, "the page tail reads as zero");
    let (r, _) = run_image(0x1000);
    assert!(matches!(r, Err(LaunchError::Fault(ref f)) if f.kind == FaultKind::LoadAccess), "{r:?}");
}

/// Host-thread slots are reused across launches: the LDS, private and program windows a new
/// launch sees are zero again (nothing leaks from the previous launch).
#[test]
fn windows_are_zero_at_every_launch() {
    let dirty = "li t0, 0x70000100\nli t1, 0xdead\nsw t1, 0(t0)\nli t0, 0x7fff0000\nsw t1, 0(t0)\n\
                 vmv.v.x v3, t1\nvsw.v v3, 8(v0)\nendprg\n";
    let read = format!(
        "li t0, 0x70000100\nlw t1, 0(t0)\nli t0, 0x7fff0000\nlw t2, 0(t0)\nor t1, t1, t2\n\
         vlw.v v3, 8(v0)\nvadd.vx v3, v3, t1\n{}\nendprg\n",
        store_lanes(3, 0, 32)
    );
    for threads in [1, 2] {
        for _ in 0..3 {
            let s = Setup { groups: 4, threads, ..Setup::default() };
            exec(dirty, &s).result.unwrap();
            // A launch that writes nothing in between (its slots skip zeroing private memory
            // they did not write).
            exec("endprg\n", &s).result.unwrap();
            let o = exec(&read, &s);
            o.result.unwrap();
            assert!(o.out[..128].iter().all(|&w| w == 0), "a window kept data of the previous launch");
        }
    }
}

/// Once NX is set, vector FP arithmetic whose active lanes all have ordinary results skips the
/// flag computation (untraced runs only); any lane that overflows, underflows or makes a NaN
/// takes the flagged path. Results and every fflags value must equal the traced run's (which
/// always computes the flags), and the flags must hold OF, UF and NV where the data makes them.
#[test]
fn fast_fp_path_matches_the_flagged_path() {
    let src = format!(
        "
    vfcvt.f.x.v v2, v1
    li t1, 0x3dcccccd
    vmv.v.x v3, t1
    vfmul.vv v2, v2, v3
    vfmacc.vv v2, v3, v3
    vfadd.vv v9, v2, v3
    li t1, 0x7f167699
    vmv.v.x v4, t1
    vfmul.vv v4, v2, v4
    csrr t5, fflags
    li t1, 0x6ce3ee
    vmv.v.x v5, t1
    vfmul.vv v5, v2, v5
    csrr t6, fflags
    vfadd.vv v6, v4, v4
    vfsub.vv v7, v4, v4
    csrr s2, fflags
    vmv.v.x v10, t5
    vmv.v.x v11, t6
    vmv.v.x v12, s2
    {}{}{}{}{}{}{}{}{}
    endprg
",
        store_lanes(2, 0, 32),
        store_lanes(4, 1, 32),
        store_lanes(5, 2, 32),
        store_lanes(6, 3, 32),
        store_lanes(7, 4, 32),
        store_lanes(9, 5, 32),
        store_lanes(10, 6, 32),
        store_lanes(11, 7, 32),
        store_lanes(12, 8, 32),
    );
    let setup = || Setup { groups: 1, out_words: 9 * 256, ..Setup::default() };
    let fast = exec_ok(&src, setup());
    let (r, _, traced) = exec_traced(&src, &setup());
    r.unwrap();
    assert_eq!(fast, traced, "untraced (fast FP path) and traced results differ");
    let (after_of, after_uf, last) = (fast[6 * 256], fast[7 * 256], fast[8 * 256]);
    assert_eq!(after_of & 0b0_0101, 0b0_0101, "NX and OF after the overflowing multiply: {after_of:#x}");
    assert_eq!(after_uf & 0b0_0010, 0b0_0010, "UF after the underflowing multiply: {after_uf:#x}");
    assert_eq!(last & 0b1_0000, 0b1_0000, "NV after inf - inf: {last:#x}");
    assert!(f32::from_bits(fast[4 * 256 + 31]).is_nan() && f32::from_bits(fast[256 + 31]).is_infinite());
    // A program that never reads the flags takes the fast path from its first instruction (NX
    // not yet set): results, NaN and overflow lanes included, are still the traced run's.
    let unread = src.replace("csrr t5, fflags", "li t5, 0").replace("csrr t6, fflags", "li t6, 0");
    let unread = unread.replace("csrr s2, fflags", "li s2, 0");
    assert!(!unread.contains("fflags"));
    let fast = exec_ok(&unread, setup());
    let (r, _, traced) = exec_traced(&unread, &setup());
    r.unwrap();
    assert_eq!(fast, traced, "without fflags reads: untraced and traced results differ");
    let (prog, _) = build(&unread);
    assert!(!prog.reads_fflags() && build(&src).0.reads_fflags());
}

/// The memory model: the program window maps only the program's pages (text read-only), the LDS
/// window only what the launch maps ([`LdsMap`]), and with a checker every access must lie inside
/// an exact extent — a read in a buffer's last-page tail succeeds without one and is reported with
/// one, naming the buffer and by how many bytes the access missed.
#[test]
fn pages_permissions_lds_map_and_memcheck() {
    use ventus_icd::emulator::memcheck::{Extent, Label, MemCheck};
    use ventus_icd::emulator::{DeviceMemory, LdsMap};
    let run_one = |src: &str, lds: LdsMap, check: Option<MemCheck>| {
        let (prog, labels) = build(src);
        let checking = check.is_some();
        let mem = DeviceMemory::new();
        let buf = mem.alloc(10).unwrap();
        assert_eq!(buf.base(), OUT);
        let params = one_warp(lds, check.map(Arc::new));
        let r = run(&mem, &prog, &params, &RunOptions { threads: 1, memcheck: checking, ..RunOptions::default() });
        (r, labels)
    };
    let fault = |src: &str, lds: LdsMap, check: Option<MemCheck>| match run_one(src, lds, check) {
        (Err(LaunchError::Fault(f)), labels) => (*f, labels),
        (other, _) => panic!("expected a fault from {src:?}, got {other:?}"),
    };
    let lds = LdsMap::new(4096, 0x7fff_f000);
    // Text is readable, not writable; past the program's pages nothing is mapped.
    run_one("li t0, 0x80000000\nlw t1, 0(t0)\nendprg\n", lds, None).0.unwrap();
    let (f, l) = fault("li t0, 0x80000000\nF: sw t1, 0(t0)\nendprg\n", lds, None);
    assert_eq!((f.kind, f.pc, f.addr), (FaultKind::StoreReadOnly, l["F"], Some(0x8000_0000)));
    assert!(f.to_string().contains("read-only program memory"), "{f}");
    let (f, _) = fault("li t0, 0x80010000\nlw t1, 0(t0)\nendprg\n", lds, None);
    assert_eq!((f.kind, f.addr), (FaultKind::LoadAccess, Some(0x8001_0000)));
    // The LDS window: the bottom page and the top page are mapped, the rest faults.
    run_one("li t0, 0x70000ffc\nsw t1, 0(t0)\nli t0, 0x7ffff000\nsw t1, 0(t0)\nendprg\n", lds, None).0.unwrap();
    for a in [0x7000_1000u32, 0x7040_0000, 0x7fff_effc] {
        let (f, _) = fault(&format!("li t0, {a:#x}\nsw t1, 0(t0)\nendprg\n"), lds, None);
        assert_eq!((f.kind, f.addr), (FaultKind::StoreAccess, Some(a)));
    }
    run_one("li t0, 0x70400000\nsw t1, 0(t0)\nendprg\n", LdsMap::WHOLE, None).0.unwrap();
    // A store below the first buffer faults and names it.
    let (f, _) = fault("li t0, 0x8ffffff0\nsw t1, 0(t0)\nendprg\n", lds, None);
    assert_eq!(f.kind, FaultKind::StoreAccess);
    assert!(f.to_string().contains("16 bytes before buffer at 0x90000000 (10 bytes)"), "{f}");
    // The buffer asked for 10 bytes: reading bytes 8..12 is inside its page (allowed without the
    // checker), and outside its exact extent (reported with it).
    let tail = "li t0, 0x90000008\nF: lw t1, 0(t0)\nendprg\n";
    run_one(tail, lds, None).0.unwrap();
    let mut check = MemCheck::new(32, 0, 0);
    check.label(OUT, Label::Argument { index: 0, offset: 0 });
    check.local(0x7000_0000, 1024, Extent::WarpStacks);
    check.local(0x7fff_f000, 256, Extent::LocalArg(2));
    let (f, l) = fault(tail, lds, Some(check.clone()));
    assert_eq!((f.kind, f.pc, f.addr), (FaultKind::MemCheck { write: false, bytes: 4 }, l["F"], Some(0x9000_0008)));
    let text = f.to_string();
    assert!(text.starts_with("memcheck: invalid 4-byte load"), "{text}");
    assert!(text.contains("its last 2 bytes past the end of buffer (argument 0) at 0x90000000 (10 bytes)"), "{text}");
    // A vector store 4 bytes past a 256-byte __local argument (inside its mapped page).
    let (f, _) = fault("li t0, 0x7ffff100\nvmv.v.x v2, t0\nvsw12.v v1, 0(v2)\nendprg\n", lds, Some(check.clone()));
    assert_eq!((f.kind, f.lane, f.addr), (FaultKind::MemCheck { write: true, bytes: 4 }, Some(0), Some(0x7fff_f100)));
    assert!(f.to_string().contains("0 bytes past the end of __local argument 2 at 0x7ffff000 (256 bytes)"), "{f}");
    // Inside every extent: no report.
    run_one("li t0, 0x90000004\nlw t1, 0(t0)\nli t0, 0x7ffff0fc\nsw t1, 0(t0)\nendprg\n", lds, Some(check)).0.unwrap();
}

/// `VENTUS_MEMCHECK=2`: with write tracking, the checker also reports a load of buffer bytes
/// that neither the host nor a kernel has written; written bytes (by either) load normally.
#[test]
fn memcheck_reports_loads_of_never_written_bytes() {
    use ventus_icd::emulator::memcheck::MemCheck;
    use ventus_icd::emulator::{DeviceMemory, LdsMap};
    let run_one = |src: &str, track: bool| {
        let (prog, labels) = build(src);
        let mem = if track { DeviceMemory::with_write_tracking() } else { DeviceMemory::new() };
        let buf = mem.alloc(64).unwrap();
        buf.write_bytes(buf.base(), &[7; 32]); // the host writes the first half
        let params = one_warp(LdsMap::WHOLE, Some(Arc::new(MemCheck::new(32, 0, 0))));
        let opts = RunOptions { threads: 1, memcheck: true, ..RunOptions::default() };
        (run(&mem, &prog, &params, &opts), labels)
    };
    // Host-written bytes, and bytes the kernel wrote first, load fine.
    let ok = "li t0, 0x90000000\nlw t1, 28(t0)\nsw t1, 40(t0)\nlw t2, 40(t0)\nsh t1, 48(t0)\nlhu t2, 48(t0)\nendprg\n";
    run_one(ok, true).0.unwrap();
    // A load of bytes nobody wrote (the second half), also partly (a word straddling the half).
    for (src, addr) in [
        ("li t0, 0x90000000\nF: lw t1, 32(t0)\nendprg\n", 0x9000_0020u32),
        ("li t0, 0x90000000\nsh t1, 48(t0)\nF: lw t1, 48(t0)\nendprg\n", 0x9000_0030),
    ] {
        match run_one(src, true) {
            (Err(LaunchError::Fault(f)), labels) => {
                assert_eq!((f.kind, f.pc, f.addr), (FaultKind::Unwritten { bytes: 4 }, labels["F"], Some(addr)));
                assert!(f.to_string().contains("memcheck: 4-byte load of device memory that was never written"), "{f}");
            }
            (other, _) => panic!("expected a report for {src:?}, got {other:?}"),
        }
        // Without write tracking the same loads succeed (bounds only).
        run_one(src, false).0.unwrap();
    }
}

/// Launch parameters of one work-group of one 32-lane warp with this LDS map and these extents.
fn one_warp(
    lds_map: ventus_icd::emulator::LdsMap,
    extents: Option<Arc<ventus_icd::emulator::memcheck::MemCheck>>,
) -> ventus_icd::emulator::LaunchParams {
    ventus_icd::emulator::LaunchParams { lds_map, extents, ..ventus_icd::emulator::LaunchParams::flat(1, 1) }
}

/// The interpreter exists in two compiled copies (baseline x86-64 and AVX2/FMA); both must give
/// bit-identical results on every kind of float — normal, subnormal, infinite, NaN — for the
/// vector FP operations whose lane loops the compiler vectorises, including the fused
/// multiply-add that is a library call in one copy and a host instruction in the other.
/// `exec_ok` runs the program in both copies and compares; the results are also checked against
/// the host's IEEE-754 arithmetic (NaN results must be the canonical NaN).
#[test]
fn both_interpreter_copies_compute_identical_float_results() {
    // Lane bit patterns from a multiplicative hash: exponents cover every range; lanes 5, 13,
    // 21 and 29 of the second operand are infinities or NaNs, lane 0 has two zeros.
    let ops = ["vfadd.vv v5, v2, v3", "vfmul.vv v5, v2, v3", "vfdiv.vv v5, v2, v3", "vfmacc.vv v5, v2, v3"];
    for (k, op) in ops.iter().enumerate() {
        let src = format!(
            "
    li t1, 0x9e3779b1
    vmul.vx v2, v1, t1
    li t1, 0x85ebca77
    vmul.vx v3, v1, t1
    vxor.vv v3, v3, v2
    vsrl.vi v4, v1, 3
    vsll.vi v4, v4, 28
    vxor.vv v2, v2, v4
    vand.vi v6, v1, 7
    vmseq.vi v6, v6, 5
    li t1, 0x7f800000
    vmul.vx v6, v6, t1
    vor.vv v3, v3, v6
    li t1, 0x3f800000
    vmv.v.x v5, t1
    {op}
    {}{}{}
    endprg
",
            store_lanes(2, 0, 32),
            store_lanes(3, 1, 32),
            store_lanes(5, 2, 32),
        );
        let out = exec_ok(&src, Setup { groups: 1, out_words: 3 * 256, ..Setup::default() });
        for lane in 0..32 {
            let (a, b) = (f32::from_bits(out[lane]), f32::from_bits(out[256 + lane]));
            let want = match k {
                0 => a + b,
                1 => a * b,
                2 => a / b,
                _ => a.mul_add(b, 1.0),
            };
            let want = if want.is_nan() { 0x7fc0_0000 } else { want.to_bits() };
            assert_eq!(out[512 + lane], want, "{op}, lane {lane}: {a:e} and {b:e}");
        }
    }
}

/// Warp-wide accesses take a one-step path when every active lane's address is aligned and in
/// one mapped region; traced runs and anything else go lane by lane. Both must leave the same
/// memory and registers: partial masks (a divergent branch), byte and half-word widths with
/// sign extension, several lanes storing to one word, global, `__local` (LDS) and private
/// memory, and a warp whose lanes straddle the end of the output buffer (a fault at the first
/// lane outside, the earlier lanes stored).
#[test]
fn warp_wide_memory_accesses_match_the_per_lane_path() {
    let body = format!(
        "
    li t1, 0x70000000
    vsll.vi v2, v1, 2
    vadd.vx v3, v2, t1           # LDS word of each lane
    vadd.vx v4, v2, a0           # output word of each lane
    vadd.vi v5, v1, -9           # lane - 9: negative for the low lanes
    vsw12.v v5, 0(v3)
    li t2, 16
    vmv.v.x v16, t2
    la t1, J
    setrpc zero, t1, 0
    vblt v1, v16, LOW
    vsh12.v v5, 1024(v4)         # high lanes: half-words at word offsets
    vsb12.v v5, 1026(v4)
    j J
LOW:
    vsrl.vi v6, v1, 2
    vadd.vx v6, v6, a0
    vsb12.v v5, 1152(v6)         # four lanes per word, byte by byte
J:
    join
    vlw12.v v7, 0(v3)
    vlh12.v v8, 1024(v4)
    vlhu12.v v9, 1024(v4)
    vlb12.v v10, 1152(v4)
    vlbu12.v v11, 1153(v4)
    vsw.v v5, 0(v2)              # private memory
    vlw.v v12, 0(v2)
    {}{}{}{}{}{}
    endprg
",
        store_lanes(7, 2, 32),
        store_lanes(8, 3, 32),
        store_lanes(9, 4, 32),
        store_lanes(10, 5, 32),
        store_lanes(11, 6, 32),
        store_lanes(12, 7, 32),
    );
    let s = Setup { out_words: 8 * 256, ..Setup::default() };
    let fast = exec_ok(&body, Setup { ..s });
    let (r, _, per_lane) = exec_traced(&body, &s);
    r.unwrap();
    assert_eq!(fast, per_lane, "the one-step and per-lane paths disagree");
    for lane in 0..32usize {
        let v = lane as i32 - 9;
        assert_eq!(fast[512 + lane], v as u32, "LDS word, lane {lane}");
        assert_eq!(fast[7 * 256 + lane], v as u32, "private word, lane {lane}");
    }
    // High lanes: the half-word at 1024 + 4·lane, its high byte replaced by the byte store.
    for lane in 16..32usize {
        let h = ((lane as i32 - 9) as u32 & 0xff) | ((lane as i32 - 9) as u32 & 0xff) << 16;
        assert_eq!(fast[256 + lane] & 0x00ff_00ff, h & 0x00ff_00ff, "half/byte stores, lane {lane}");
    }

    // Straddling the end of the buffer: lanes 0..=23 are inside, 24 is the first outside.
    let straddle = "
    vsll.vi v2, v1, 2
    li t1, 96
    add t1, t1, a0
    vadd.vx v2, v2, t1
    vsw12.v v1, 0(v2)
    endprg
";
    let s = Setup { out_words: 48, ..Setup::default() };
    let o = exec(straddle, &s);
    match o.result {
        Err(LaunchError::Fault(f)) => {
            assert_eq!((f.kind, f.lane, f.addr), (FaultKind::StoreAccess, Some(24), Some(OUT + 96 + 96)))
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    assert_eq!(o.out[24..48], (0..24).collect::<Vec<u32>>()[..], "lanes before the fault stored");
}

/// Local memory reads as zero at the start of every launch, whatever an earlier launch wrote and
/// whichever part of the window it mapped (a reused host-thread slot zeroes only the part the
/// previous launch could write: its `LdsMap`).
#[test]
fn local_memory_starts_zero_in_every_launch_whatever_the_previous_map() {
    use ventus_icd::emulator::{LaunchParams, LdsMap};
    // Lane addresses at the bottom, in the middle and at the top of the LDS window.
    let addrs = [0x7000_0000u32, 0x7800_0000, 0x7fff_f000];
    let lane_addr = |k: usize| format!("li t1, {:#x}\n vsll.vi v2, v1, 2\n vadd.vx v3, v2, t1\n", addrs[k]);
    let write = |ks: &[usize]| {
        let mut s = String::from("li t2, 0xdead\n vmv.v.x v4, t2\n");
        for &k in ks {
            s += &lane_addr(k);
            s += "vsw12.v v4, 0(v3)\n";
        }
        s + "endprg\n"
    };
    let read = |ks: &[usize]| {
        let mut s = String::new();
        for (slot, &k) in ks.iter().enumerate() {
            s += &lane_addr(k);
            s += "vlw12.v v5, 0(v3)\n";
            s += &store_lanes(5, slot as u32, 32);
        }
        s + "endprg\n"
    };
    let split = LdsMap::new(0x1000, 0x7fff_f000);
    // One device memory; every launch below runs with exactly the map given.
    let base = exec("endprg\n", &Setup::default());
    let launch = |src: &str, map: LdsMap| -> Vec<u32> {
        let (prog, _) = build(src);
        let params = LaunchParams { lds_map: map, ..base.params.clone() };
        run(&base.mem, &prog, &params, &RunOptions { threads: 1, ..RunOptions::default() }).unwrap();
        read_out(&base.mem, 3 * 256)
    };
    for round in 0..3 {
        // A split map writes bottom and top; the whole window writes all three.
        launch(&write(&[0, 2]), split);
        let after_split = launch(&read(&[0, 2]), split);
        assert!(
            after_split[..32].iter().chain(&after_split[256..288]).all(|&x| x == 0),
            "round {round}: {after_split:x?}"
        );
        launch(&write(&[0, 1, 2]), LdsMap::WHOLE);
        let after_whole = launch(&read(&[0, 2]), split);
        assert!(after_whole[..32].iter().chain(&after_whole[256..288]).all(|&x| x == 0), "round {round}");
        launch(&write(&[0, 1, 2]), LdsMap::WHOLE);
        let all = launch(&read(&[0, 1, 2]), LdsMap::WHOLE);
        assert!(all.iter().all(|&x| x == 0), "round {round}");
    }
    // The test can see a write: within one launch the value is there.
    let mut both = write(&[0, 2]).replace("endprg\n", "");
    both += &read(&[0, 2]);
    let o = exec(&both, &Setup::default());
    o.result.unwrap();
    assert!(o.out[..32].iter().all(|&x| x == 0xdead), "{:x?}", &o.out[..32]);
}

#[test]
fn native_double_primitives_write_only_the_active_lanes() {
    // v26/v27 = a = 1.0 + 5 ulp on every lane, v28/v29 = b = 2.0 + lane ulp; lanes below 12
    // call F, whose entry is the native `__vt_f64_add` (HostCall::F64): they get a + b (their
    // own b) in v26/v27, the other lanes (inactive during the call) keep a. Then the same lanes
    // call G, the uniform variant (HostCall::F64Uniform): the highest active lane's sum (lane
    // 11's) in every active lane. Every lane stores v26 and v27 after each call.
    let call = |f: &str, slot: u32| {
        format!(
            "
    li t0, 5
    vmv.v.x v26, t0
    lui t0, 0x3ff00
    vmv.v.x v27, t0
    vmv.v.v v28, v1
    lui t0, 0x40000
    vmv.v.x v29, t0
    li t0, 12
    vmv.v.x v3, t0
    la t1, J{f}
    setrpc zero, t1, 0
    vblt v1, v3, T{f}
    j J{f}
T{f}:
    jal {f}
J{f}:
    join
{}{}",
            store_lanes(26, slot, 32),
            store_lanes(27, slot + 1, 32)
        )
    };
    let src = format!(
        "{}{}
    endprg
F:
    ret
G:
    ret
",
        call("F", 0),
        call("G", 2)
    );
    let (mut prog, labels) = build(&src);
    use ventus_icd::emulator::hostcall::{F64Op, HostCall};
    assert!(prog.install_host_call(labels["F"], HostCall::F64(F64Op::Add)));
    assert!(prog.install_host_call(labels["G"], HostCall::F64Uniform(F64Op::Add)));
    let s = Setup { out_words: 1024, ..Setup::default() };
    for no_jit in [false, true] {
        let mem = ventus_icd::emulator::DeviceMemory::new();
        mem.map(OUT, 4 * 1024).unwrap();
        mem.map(0x9100_0000, 0x1000 * s.warps * s.numt).unwrap();
        run(&mem, &prog, &params(&s), &RunOptions { no_jit, ..RunOptions::default() }).unwrap();
        let out = read_out(&mem, 1024);
        let a = f64::from_bits(0x3ff0_0000_0000_0005);
        let sum = |l: u64| (a + f64::from_bits(0x4000_0000_0000_0000 | l)).to_bits();
        for l in 0..32 {
            let word = |slot: usize| u64::from(out[256 * slot + l]) | u64::from(out[256 * (slot + 1) + l]) << 32;
            let (varying, uniform) = if l < 12 { (sum(l as u64), sum(11)) } else { (a.to_bits(), a.to_bits()) };
            assert_eq!(word(0), varying, "per-lane call, lane {l} (translator {})", !no_jit);
            assert_eq!(word(2), uniform, "uniform call, lane {l} (translator {})", !no_jit);
        }
    }
}
