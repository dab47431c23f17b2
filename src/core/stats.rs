//! `VENTUS_STATS=1`: per-kernel launch statistics summed over the process and printed to
//! standard error when it exits — launches, work-groups, warp instructions, lane utilisation
//! (SIMT efficiency: active lanes per warp instruction over the warp width), divergent
//! branches, barriers and bytes moved per address space. Programs can also read one launch's
//! figures from its event (`CL_EVENT_STATISTICS_VENTUS`, `include/CL/cl_ventus.h`).

use crate::device::LaunchStats;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::BTreeMap;

/// Sums per kernel name.
#[derive(Default)]
struct Totals {
    launches: u64,
    stats: LaunchStats,
    /// Σ warp instructions × warp width (the lanes the instructions could have used).
    lane_slots: u64,
}

static TOTALS: Lazy<Mutex<BTreeMap<String, Totals>>> = Lazy::new(|| Mutex::new(BTreeMap::new()));

/// Whether `VENTUS_STATS=1` (read once).
pub fn enabled() -> bool {
    static ON: Lazy<bool> = Lazy::new(|| std::env::var("VENTUS_STATS").is_ok_and(|v| v.trim() == "1"));
    *ON
}

/// Adds one completed launch of `kernel` (warps of `width` lanes) when `VENTUS_STATS=1`.
pub fn record(kernel: &str, s: &LaunchStats, width: u32) {
    if !enabled() {
        return;
    }
    let mut all = TOTALS.lock();
    let t = all.entry(kernel.to_string()).or_default();
    t.launches += 1;
    t.lane_slots += s.instructions * u64::from(width);
    let a = &mut t.stats;
    a.work_groups += s.work_groups;
    a.instructions += s.instructions;
    a.lane_instructions += s.lane_instructions;
    a.divergent_branches += s.divergent_branches;
    a.barriers += s.barriers;
    a.global_bytes += s.global_bytes;
    a.local_bytes += s.local_bytes;
    a.private_bytes += s.private_bytes;
    a.elapsed += s.elapsed;
    a.longest_group = a.longest_group.max(s.longest_group);
}

/// One kernel's summary line.
fn line(name: &str, t: &Totals) -> String {
    let s = &t.stats;
    let utilisation = if t.lane_slots == 0 { 0.0 } else { 100.0 * s.lane_instructions as f64 / t.lane_slots as f64 };
    format!(
        "ventus-icd stats: kernel `{name}`: {} launch(es), {} work-groups, {} warp instructions, lane \
         utilisation {utilisation:.1}%, {} divergent branches, {} barriers, global {} B, local {} B, \
         private {} B, {:.3} s, longest work-group {:.3} s of CPU time",
        t.launches,
        s.work_groups,
        s.instructions,
        s.divergent_branches,
        s.barriers,
        s.global_bytes,
        s.local_bytes,
        s.private_bytes,
        s.elapsed.as_secs_f64(),
        s.longest_group.as_secs_f64()
    )
}

/// Prints every kernel's summary line to stderr (the API layer calls this at process exit).
pub fn print_all() {
    let all = TOTALS.lock();
    for (name, t) in all.iter() {
        eprintln!("{}", line(name, t));
    }
}
