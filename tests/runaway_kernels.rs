//! Runaway kernels are stopped by default: a work-group that uses more host CPU time than its
//! budget (`VENTUS_WATCHDOG_SECONDS`, default 120 s; the context property
//! `CL_CONTEXT_WATCHDOG_SECONDS_VENTUS`) fails its launch with `CL_OUT_OF_RESOURCES` and a
//! watchdog message naming the kernel, the loop's source line and how to raise the limit —
//! whether the loop stores or not — and the context stays usable. The budget counts the CPU
//! time of the host thread running the work-group, so a loaded machine makes it take longer in
//! wall time but never fire earlier; no assertion here depends on wall-clock time.
//!
//! The instruction budget is set to its default (2^38 warp instructions, many minutes of a
//! storing loop) before the driver starts, so only the time budget can stop the loops within
//! their budget: were it missing, the default-budget test would fail with the instruction
//! watchdog's message instead.

#[path = "common/cl.rs"]
mod cl;
#[path = "common/clrun.rs"]
mod clrun;

use cl::*;
use clrun::*;

/// `CL_CONTEXT_WATCHDOG_SECONDS_VENTUS` (include/CL/cl_ventus.h).
const WATCHDOG_SECONDS: cl_context_properties = 0x7F12;

/// Before any driver use by this process's tests (each calls it first): the default instruction
/// budget, not the corpus runner's lowered one.
fn environment() {
    std::env::set_var("VENTUS_WATCHDOG", (1u64 << 38).to_string());
    assert!(
        std::env::var_os("VENTUS_WATCHDOG_SECONDS").is_none(),
        "these tests check the default budget: run them without VENTUS_WATCHDOG_SECONDS"
    );
}

/// The classic forgotten update: `flag` never changes, the loop keeps storing to `counter`.
const STORING: &str = "kernel void wait_for_flag(global const int *flag, global int *counter) {
    int i = get_global_id(0);
    while (flag[0] == 0)
        counter[i] += 1;
}";

/// A loop that only computes (and would store its result if it ever ended).
const SPINNING: &str = "kernel void spin(global uint *out, uint n) {
    uint x = get_global_id(0);
    for (uint i = 0; i != n; i += 2)
        x = x * 1664525u + 1013904223u;
    out[get_global_id(0)] = x;
}";

/// The messages of a launch that must have been stopped by the time budget inside the loop
/// spanning source `lines`.
#[track_caller]
fn stopped(
    r: Result<Vec<Vec<u8>>, Failed>,
    kernel: &str,
    seconds: u32,
    lines: std::ops::RangeInclusive<u32>,
) -> String {
    let f = match r {
        Ok(_) => panic!("`{kernel}` completed"),
        Err(f) => f,
    };
    assert_eq!(f.status, CL_OUT_OF_RESOURCES, "status {}: {:?}", err_name(f.status), f.messages);
    let m = f.messages.join("\n");
    assert!(m.contains(&format!("kernel `{kernel}`")), "{m}");
    assert!(m.contains(&format!("ran for more than {seconds} s of host CPU time")), "{m}");
    assert!(m.contains("VENTUS_WATCHDOG_SECONDS") && m.contains("CL_CONTEXT_WATCHDOG_SECONDS_VENTUS"), "{m}");
    // A line of the loop (the kernel starts on line 1 of the source).
    assert!(lines.clone().any(|l| m.contains(&format!("<source>:{l}:"))), "no source line in {lines:?} in: {m}");
    m
}

#[test]
fn a_storing_infinite_loop_is_stopped_within_the_default_budget() {
    environment();
    let r = try_run_source(&[], STORING, "", "wait_for_flag", &[32], Some(&[32]), None, &[zeros(4), zeros(128)]);
    let m = stopped(r, "wait_for_flag", 120, 3..=4);
    assert!(m.contains("work-group 0"), "{m}");
    // The same process runs a correct kernel afterwards.
    let out = run_source(SPINNING, "", "spin", &[32], None, None, &[zeros(128), val(10u32)]);
    assert_eq!(read::<u32>(&out[0]).len(), 32);
}

#[test]
fn the_context_property_sets_the_budget_for_storing_and_spinning_loops() {
    environment();
    let one = [WATCHDOG_SECONDS, 1];
    let r = try_run_source(&one, STORING, "", "wait_for_flag", &[64], Some(&[32]), None, &[zeros(4), zeros(256)]);
    stopped(r, "wait_for_flag", 1, 3..=4);
    // An odd bound the even counter never meets: a loop without a store.
    let r = try_run_source(&one, SPINNING, "", "spin", &[32], None, None, &[zeros(128), val(7u32)]);
    stopped(r, "spin", 1, 3..=4);
    // A loop that ends within its budget completes, and the launch reports the most CPU time
    // one of its work-groups used (statistics word 10), within the launch's host time (word 9).
    let r = try_run_source(&one, SPINNING, "", "spin", &[32], None, None, &[zeros(128), val(2_000_000u32)]);
    assert!(r.is_ok(), "{r:?}");
    let st = last_stats();
    assert!(st[10] > 0 && st[10] <= st[9], "longest work-group {} ns, launch {} ns", st[10], st[9]);
}

#[test]
fn the_budget_property_takes_a_cl_uint() {
    environment();
    for bad in [-1, 1 << 32] {
        let (mut err, d) = (0, device());
        let props = [WATCHDOG_SECONDS, bad, 0];
        let create = cl().clCreateContext;
        // SAFETY: `props` is a 0-terminated property list, `d` a live device, `err` writable.
        let ctx = unsafe { create(props.as_ptr(), 1, &d, None, std::ptr::null_mut(), &mut err) };
        assert!(ctx.is_null());
        assert_eq!(err, CL_INVALID_PROPERTY, "value {bad}: {}", err_name(err));
    }
}
