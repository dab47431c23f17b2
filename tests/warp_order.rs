//! Warps of a work-group run in turns (a warp runs ahead through instructions no other warp or
//! the host can observe, up to its next shared one), yet every shared instruction must still
//! run in its round-robin place (instruction k of every warp in round k, warps in index order),
//! exactly as when each turn is one instruction — which is how a traced run executes. Racy
//! kernels make the order visible: their results, statistics and faults must equal the traced
//! run's, on 1 and 2 host threads.

mod common;
use common::*;
use ventus_icd::emulator::{run, DeviceMemory, FaultKind, LaunchError, Program, RunOptions, TrapMode};

/// A warp-dependent delay: warp w spins `(base - w * step)` (or `base + w * step`) iterations
/// of a two-instruction loop. Clobbers t5, t6.
/// `tag` names its loop label.
fn delay(tag: &str, base: i32, step: i32) -> String {
    format!(
        "
    csrr t5, wid
    li t6, {step}
    mul t5, t5, t6
    addi t5, t5, {base}
DELAY_{tag}:
    addi t5, t5, -1
    bgtz t5, DELAY_{tag}
"
    )
}

/// Runs `src` untraced on 1 and 2 host threads and traced (one instruction per turn), asserts
/// identical output and outcome, returns the output.
fn same_as_traced(src: &str, s: Setup) -> Vec<u32> {
    let (traced, _, want) = exec_traced(src, &Setup { threads: 1, ..s });
    for threads in [1, 2] {
        let got = exec(src, &Setup { threads, ..s });
        assert_eq!(got.out, want, "{threads} thread(s): memory differs from the round-robin run");
        match (&got.result, &traced) {
            (Ok(a), Ok(b)) => {
                assert_eq!((a.instructions, a.lane_instructions), (b.instructions, b.lane_instructions));
                assert_eq!((a.barriers, a.divergent_branches), (b.barriers, b.divergent_branches));
            }
            (Err(LaunchError::Fault(a)), Err(LaunchError::Fault(b))) => {
                assert_eq!((a.kind, a.work_group, a.warp, a.pc, a.lane), (b.kind, b.work_group, b.warp, b.pc, b.lane));
            }
            (a, b) => panic!("outcomes differ: {a:?} vs traced {b:?}"),
        }
    }
    want
}

#[test]
fn stores_and_loads_of_different_warps_keep_their_round_robin_order() {
    // Every warp stores its id into one word after a delay that shrinks with the warp id, then
    // records what that word holds right after, and again after a second delay. The last
    // writer is the warp whose store comes last in round-robin order: warp 0 (longest delay).
    let src = format!(
        "
    {d1}
    csrr t1, wid
    sw t1, 0(a0)             # out[0] = wid (scalar: once per warp)
    lw t2, 0(a0)
    slli t3, t1, 2
    add t3, t3, a0
    sw t2, 64(t3)            # out[16 + wid] = what it saw
    {d2}
    lw t2, 0(a0)
    sw t2, 128(t3)           # out[32 + wid]
    endprg
",
        d1 = delay("a", 40, -9),
        d2 = delay("b", 3, 5)
    );
    let s = Setup { warps: 4, ..Setup::default() };
    let out = same_as_traced(&src, s);
    assert_eq!(out[0], 0, "warp 0 stores last");
    // Each warp sees its own store (nobody stores between its store and load in the round
    // after it), so the order really is interleaved, not warp after warp.
    assert_eq!(&out[16..20], &[0, 1, 2, 3]);
}

#[test]
fn a_shared_counter_sees_every_increment_in_round_robin_order() {
    // Each warp, in a loop of warp-dependent length, loads a shared word, adds its id + 1 and
    // stores it back (a racy read-modify-write), logging every value it loaded.
    let src = format!(
        "
    csrr t1, wid
    addi t4, t1, 3           # iterations: 3 + wid
    slli t3, t1, 6
    add t3, t3, a0           # log at out[16 * wid + 16 ..]
AGAIN:
    {d}
    lw t2, 0(a0)
    sw t2, 64(t3)
    addi t3, t3, 4
    add t2, t2, t1
    addi t2, t2, 1
    sw t2, 0(a0)
    addi t4, t4, -1
    bgtz t4, AGAIN
    endprg
",
        d = delay("a", 2, 3)
    );
    let out = same_as_traced(&src, Setup { warps: 4, ..Setup::default() });
    let total: u32 = (0..4).map(|w| (w + 3) * (w + 1)).sum();
    assert!(out[0] < total, "the race loses updates in round-robin order ({} of {total})", out[0]);
}

#[test]
fn local_memory_exchange_through_barriers_and_divergence() {
    // Lanes write to local memory after divergent, lane-dependent work, meet at a barrier,
    // read a neighbour warp's values and overwrite them racily without a second barrier.
    let src = format!(
        "
    li t3, 0x70010000
    vsll.vi v5, v1, 2
    vadd.vx v5, v5, t3
    vand.vi v6, v1, 3
    la t1, JOIN
    setrpc zero, t1, 0
    vbeq v6, v0, ELSE
    vmul.vv v7, v1, v1
    vadd.vi v7, v7, 5
    j JOIN
ELSE:
    vadd.vi v7, v1, 1
JOIN:
    join
    vsw12.v v7, 0(v5)
    barrier x0, x0, 1
    {d}
    li t4, 32
    vadd.vx v8, v1, t4
    li t4, 127
    vand.vx v8, v8, t4
    vsll.vi v8, v8, 2
    vadd.vx v8, v8, t3
    vlw12.v v9, 0(v8)
    vsw12.v v1, 0(v8)
    vlw12.v v10, 0(v5)
{}
{}
    endprg
",
        // 3 groups × 128 lanes: slot 2 (word 512 on) keeps the second store clear of the first
        // (slots are 256 words apart; overlapping stores of different groups would race).
        store_lanes(9, 0, 128),
        store_lanes(10, 2, 128),
        d = delay("a", 4, 6)
    );
    same_as_traced(&src, Setup { groups: 3, warps: 4, ..Setup::default() });
}

#[test]
fn a_trap_ahead_of_its_turn_waits_for_earlier_places() {
    // `csrr` of an unknown CSR traps; it is private (no memory), so it can run ahead of the
    // other warps. Warp w reaches it after a delay; the reported fault is the one earliest in
    // round-robin order, and the stores before it in that order (and only those) happened.
    for (base, step) in [(30i32, -7i32), (5, 0), (5, 4), (12, -3)] {
        let src = format!(
            "
    csrr t1, wid
    slli t3, t1, 2
    add t3, t3, a0
    {d1}
    sw t1, 0(t3)             # out[wid] = wid before trapping
    {d2}
    csrr t0, 0x7c0
    sw t1, 64(t3)            # never reached
    endprg
",
            d1 = delay("a", base, step),
            d2 = delay("b", base, step)
        );
        let s = Setup { warps: 4, ..Setup::default() };
        let out = same_as_traced(&src, s);
        let f = match exec(&src, &s).result {
            Err(LaunchError::Fault(f)) => f,
            r => panic!("expected a fault, got {r:?}"),
        };
        assert!(matches!(f.kind, FaultKind::IllegalInstruction { .. }), "{f}");
        assert!(out[16..20].iter().all(|&v| v == 0));
    }
}

#[test]
fn spike_compatible_traps_end_the_group_after_exactly_the_earlier_places() {
    // In spike-compatible mode a trap ends the work-group: memory then shows which shared
    // instructions ran before it. Warp 3 traps early (shortest delay); the others keep storing
    // a counter until then.
    let src = format!(
        "
    csrr t1, wid
    slli t3, t1, 2
    add t3, t3, a0
    li t2, 0
    li t4, 3
    bne t1, t4, LOOP
    {d}
    csrr t0, 0x7c0
LOOP:
    addi t2, t2, 1
    sw t2, 0(t3)
    j LOOP
",
        d = delay("a", 20, 0)
    );
    let (prog, _) = build(&src);
    let mut outs = Vec::new();
    for traced in [false, true] {
        let mem = DeviceMemory::new();
        mem.map(OUT, 4096).unwrap();
        let p = params(&Setup { warps: 4, ..Setup::default() });
        let opts = RunOptions { threads: 1, trap_mode: TrapMode::EndWorkGroup, ..RunOptions::default() };
        let r = if traced {
            ventus_icd::emulator::run_traced(&mem, &prog, &p, &opts).0
        } else {
            run(&mem, &prog, &p, &opts)
        };
        r.unwrap();
        outs.push(read_out(&mem, 8));
    }
    assert_eq!(outs[0], outs[1], "memory when the trap ended the group");
    assert!(outs[0][..3].iter().all(|&n| n > 5), "{:?}", outs[0]);
}

#[test]
fn read_only_blocks_can_be_loaded_but_not_stored_to() {
    // The driver's metadata and argument buffers are read-only for kernels: loads from them
    // may run ahead of the other warps (no store can change them), so stores must fault.
    let mem = DeviceMemory::new();
    mem.map(OUT, 4096).unwrap();
    let ro = mem.alloc_read_only(64).unwrap();
    ro.write_bytes(ro.base(), &1234u32.to_le_bytes());
    let load = format!("li t0, {:#x}\nlw t1, 0(t0)\nsw t1, 0(a0)\nendprg\n", ro.base());
    let store = format!("li t0, {:#x}\nF: sw t0, 4(t0)\nendprg\n", ro.base());
    let p = params(&Setup { warps: 2, ..Setup::default() });
    let (prog, _) = build(&load);
    run(&mem, &prog, &p, &RunOptions::default()).unwrap();
    assert_eq!(read_out(&mem, 1), vec![1234]);
    let (prog, labels): (Program, _) = build(&store);
    match run(&mem, &prog, &p, &RunOptions::default()) {
        Err(LaunchError::Fault(f)) => {
            assert_eq!((f.kind, f.pc, f.addr), (FaultKind::StoreReadOnly, labels["F"], Some(ro.base() + 4)), "{f}");
        }
        r => panic!("a store to a read-only block must fault, got {r:?}"),
    }
    // The host still writes it.
    mem.write(ro.base() + 4, &[1, 2, 3, 4]).unwrap();
}

#[test]
fn a_warps_own_stack_accesses_run_ahead_only_when_the_launch_knows_the_stacks() {
    // Warp 0 spins, then stores 7 at the bottom of its uniform stack (LDS + 0) and reads it
    // back; warp 1 loads that word at once (its 4th instruction after the prologue, long
    // before warp 0's store in round-robin order) and records what it saw. A scalar access in
    // the warp's own stack is private when the launch knows the stacks (`LdsMap::warp_stack`,
    // from the kernel's resource record): warp 0 runs ahead through its store in its first
    // turn, and warp 1 — which reads another warp's stack, something compiled code never
    // does — sees it. Unknown stacks keep the store in its round-robin place: warp 1 sees 0.
    let src = format!(
        "
    csrr t1, wid
    csrr t2, lds
    bnez t1, OTHER
    {d}
    li t3, 7
    sw t3, 0(t2)
    lw t4, 0(t2)
    sw t4, 4(a0)
    endprg
OTHER:
    lw t3, 0(t2)
    sw t3, 0(a0)
    endprg
",
        d = delay("a", 30, 0)
    );
    let (prog, _) = build(&src);
    let s = Setup { warps: 2, ..Setup::default() };
    for (stack, seen) in [(64, 7), (0, 0)] {
        for threads in [1, 2] {
            let mem = DeviceMemory::new();
            mem.map(OUT, 4096).unwrap();
            mem.map(0x9100_0000, 0x1000 * s.warps * s.numt).unwrap();
            let mut p = params(&s);
            p.lds_map = ventus_icd::emulator::LdsMap::WHOLE.with_warp_stack(stack);
            run(&mem, &prog, &p, &RunOptions { threads, ..RunOptions::default() }).unwrap();
            assert_eq!(read_out(&mem, 2), vec![seen, 7], "warp stacks of {stack} bytes, {threads} thread(s)");
        }
    }
}

/// `n` straight-line instructions (no jumps, no memory): scalar and vector arithmetic.
fn straight(n: usize) -> String {
    (0..n).map(|k| if k % 2 == 0 { "    addi t2, t2, 1\n" } else { "    vadd.vi v1, v1, 1\n" }).collect()
}

#[test]
fn straight_line_runs_keep_shared_loads_traps_and_counts_in_place() {
    // Untraced turns execute straight-line runs of private instructions without looking at
    // each one (`Decoded::run`). Runs here: longer than the longest recorded run (64) and than
    // a turn (256); broken by a scalar load of a word other warps store to (it must still run
    // in its round-robin place: the racy counter shows the order); a trap in the middle of one
    // (warp 2 only); partial warps (lane counts). Warps reach the load 80 rounds apart.
    for (numt, trap) in [(32, false), (32, true), (13, false), (13, true)] {
        let src = format!(
            "
    csrr t1, wid
    slli t3, t1, 2
    add t3, t3, a0
    li t2, 0
    vid.v v1
    vadd.vx v1, v1, t1
    {d0}
{s1}
    lw t4, 0(a0)             # racy: out[0] += wid + 1, in round-robin order
{s2}
    add t4, t4, t1
    addi t4, t4, 1
    sw t4, 0(a0)
    li t4, 2
    bne t1, t4, SKIP
    {d}
{s3}
    {trap}
{s3}
SKIP:
{s4}
    sw t2, 64(t3)            # out[16 + wid] = the scalar count
    csrr t5, tid
    slli t5, t5, 2
    vid.v v2
    vsll.vi v2, v2, 2
    vadd.vx v2, v2, t5
    vadd.vx v2, v2, a0
    vsw12.v v1, 256(v2)      # out[64 + lane] = the vector count
    endprg
",
            s1 = straight(70),
            s2 = straight(9),
            s3 = straight(20),
            s4 = straight(300),
            d0 = delay("z", 3, 40),
            d = delay("a", 4, 0),
            trap = if trap { "csrr t0, 0x7c0" } else { "addi t2, t2, 0" },
        );
        let s = Setup { warps: 4, numt, out_words: 200, ..Setup::default() };
        let out = same_as_traced(&src, s);
        let f = exec(&src, &s);
        match (trap, &f.result) {
            (true, Err(LaunchError::Fault(f))) => {
                assert!(matches!(f.kind, FaultKind::IllegalInstruction { .. }), "{f}");
                assert_eq!(f.warp, 2, "{f}");
            }
            (false, Ok(stats)) => {
                assert_eq!(out[0], 1 + 2 + 3 + 4, "each warp's load ran after the earlier warp's store");
                assert_eq!(&out[16..20], &[35 + 150 + 5, 35 + 150 + 5, 35 + 150 + 5 + 20, 35 + 150 + 5]);
                assert_eq!(stats.lane_instructions % u64::from(numt), 0, "whole warps of {numt} lanes");
            }
            (_, r) => panic!("trap {trap}: unexpected outcome {r:?}"),
        }
    }
}

#[test]
fn warps_waiting_at_a_barrier_spin_in_every_round_they_wait() {
    // A warp that reaches a barrier before the others re-executes it once per round until the
    // last one arrives (untraced runs park it instead and count the spins when it is
    // released). The spins show in `instret` (read after the barrier), in the statistics and
    // in every later place: a racy counter after the barrier keeps the round-robin order.
    // The barrier is released by the last arrival, or by the last warp ending without
    // reaching it; a trap while warps wait is reported in its place. A warp whose companions
    // all wait runs alone (long turns through its shared accesses): a racy counter updated
    // before the barrier shows its accesses keep their places.
    for (base, step) in [(40, -9), (4, 9), (10, 0), (3, 1)] {
        for (variant, last) in [("arrive", "nop"), ("end", "endprg"), ("trap", "csrr t0, 0x7c0")] {
            let src = format!(
                "
    csrr t2, wgid
    slli t2, t2, 8
    add t2, t2, a0           # t2: this group's 64 words of out
    csrr t1, wid
    slli t3, t1, 2
    add t3, t3, t2
    {d}
    li t6, 3
RACE:
    lw t5, 192(t2)           # racy: out[48] = out[48] * 3 + wid, three times per warp
    li t4, 3
    mul t5, t5, t4
    add t5, t5, t1
    sw t5, 192(t2)
    addi t6, t6, -1
    bgtz t6, RACE
    li t4, 2
    bne t1, t4, GO
    {last}
GO:
    barrier x0, x0, 1
    csrr t4, instret
    sw t4, 0(t3)             # out[wid] = instructions so far, the spins included
    lw t5, 64(t2)            # racy: out[16] = out[16] * 2 + wid, in round-robin order
    slli t5, t5, 1
    add t5, t5, t1
    sw t5, 64(t2)
    {d2}
    barrier x0, x0, 1
    csrr t4, instret
    sw t4, 128(t3)           # out[32 + wid]
    endprg
",
                d = delay("a", base, step),
                d2 = delay("b", base, -step),
            );
            // (A fault ends the launch while other work-groups may have run: one group then.)
            let groups = if variant == "trap" { 1 } else { 2 };
            let s = Setup { groups, warps: 4, numt: 13, out_words: 128, ..Setup::default() };
            let out = same_as_traced(&src, s);
            if variant == "arrive" {
                let longest = (0..4).map(|w| (base + w * step).max(1)).max().unwrap();
                assert!(
                    out[..4].iter().all(|&n| n >= 2 * longest as u32),
                    "({base}, {step}): every warp waited for the slowest: {:?}",
                    &out[..4]
                );
            }
        }
    }
}

#[test]
fn racy_loads_in_pairs_and_stores_keep_their_round_robin_places() {
    // Warps interleave racy scalar and vector loads of three shared words — in pairs, and after
    // private work — with stores to them, after delays that put them in lockstep, apart, or in
    // reverse order, in work-groups of 2 to 5 warps; memory, statistics and faults must equal
    // the traced run's (one instruction per turn). (Letting a load run ahead of its place when
    // no other warp's instruction before that place stores was tried in session 39 and measured
    // slower: the check on every turn's end cost more than the turns it saved.)
    for (base, step) in [(0, 0), (3, 1), (20, -4), (2, 7)] {
        for (warps, fill) in [(4, 0), (2, 2), (5, 1), (3, 5)] {
            let filler: String = (0..fill).map(|_| "    addi t0, t0, 1\n").collect();
            let src = format!(
                "
    csrr t2, wgid
    slli t2, t2, 8
    add t2, t2, a0           # t2: this group's 64 words of out
    vmv.v.x v3, t2
    csrr t1, wid
    li t0, 0
    {d}
    li t6, 5
LOOP:
    lw t4, 192(t2)           # two loads in a row
    lw t5, 196(t2)
    add t4, t4, t5
{filler}
    vlw12.v v4, 200(v3)      # a vector load pair after private work
    vlw12.v v5, 192(v3)
    vadd.vv v4, v4, v5
    vmv.x.s t5, v4
    add t4, t4, t5
    slli t4, t4, 1
    add t4, t4, t1
    sw t4, 192(t2)           # racy stores between the loads of other warps
    addi t4, t4, 3
    sw t4, 200(t2)
    lw t5, 196(t2)
    add t5, t5, t1
    addi t5, t5, 1
    sw t5, 196(t2)
    addi t6, t6, -1
    bgtz t6, LOOP
    csrr t3, wid
    slli t3, t3, 2
    add t3, t3, t2
    sw t0, 0(t3)
    endprg
",
                d = delay("a", base, step),
            );
            let s = Setup { groups: 2, warps, numt: 8, out_words: 128, ..Setup::default() };
            let out = same_as_traced(&src, s);
            assert_ne!(out[48], 0, "({base}, {step}), {warps} warps: the racy words were written");
        }
    }
}
