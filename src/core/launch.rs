//! Kernel launches (OpenCL 3.0 §5.10): the NDRange in device terms, the work-group size chooser,
//! and the command that runs a kernel.
//!
//! Contract:
//! * [`NdRange`] is validated by the API layer (every spec clause); here it is only converted.
//!   Non-uniform NDRanges (OpenCL 3.0) use `ceil(global / local)` work-groups per dimension and
//!   lane masks ([`NdRange::lane_masks`]): lanes that are not work-items (partial last warps,
//!   the smaller edge work-groups) start inactive. The metadata buffer holds the real global size.
//! * [`choose_local`] picks a work-group size for `local_work_size = NULL`: per dimension the
//!   largest divisor of the global size that fits the remaining budget (≤ the kernel's maximum
//!   work-group size), preferring multiples of the warp width in dimension 0 — uniform. For a
//!   kernel that cannot observe its grouping ([`KernelInfo::grouping_free`](crate::abi::kernel_info::KernelInfo::grouping_free))
//!   it also weighs whole warps in dimension 0 with a partial last work-group and takes
//!   whichever leaves fewer lanes idle: a prime global size then runs 32 work-items per warp,
//!   not one (CTS math_brute_force's 3-component kernels).
//! * [`device_grouping`]: the device may run a launch under another grouping than the
//!   NDRange's when the kernel cannot tell — a grouping-free kernel with a given size that
//!   would leave lanes idle (CTS `imagedim_non_pow2`'s 1×1 work-groups), and a kernel with a
//!   single-item variant ([`crate::abi::kernel_info::single_item_symbol`]) launched with
//!   1×1×1 work-groups (pocl's EinsteinToolkit: one lane per warp otherwise) — in work-groups
//!   of at most one warp. Fault reports still name the NDRange's work-group and local id.
//! * [`enqueue`] snapshots the arguments (values and buffer references) at enqueue time, packed
//!   once for the device ([`pack_args`]). The command runs the launch through the device seam
//!   ([`crate::device::run`]) on the queue thread (and the device's threads): its [`Printer`]
//!   writes printf output (stdout, or the context's `cl_arm_printf` callback) while the kernel
//!   still runs, host-call text (legacy printf of official binaries) included; a backend panic
//!   fails the launch; afterwards every buffer argument gets `after_device_write()` (also after
//!   a fault: the kernel may have written before it stopped).
//! * A kernel of a program with program-scope variables gets the address of the program's
//!   globals block ([`Program::globals_base`](super::program::Program::globals_base), allocated
//!   and initialised at the program's first launch) as a hidden trailing argument
//!   ([`crate::abi::globals`]).
//! * A launch that faults (or hits the watchdog, or cannot be staged) fails only its own event,
//!   with `CL_OUT_OF_RESOURCES`, and the context's error callback receives a message naming the
//!   kernel and the fault's work-group, warp, lane, work-item (global and local id), pc,
//!   instruction, source line, address and, for an access, the nearest buffer it missed. The
//!   context's `CL_CONTEXT_MEMCHECK_VENTUS` property (or `VENTUS_MEMCHECK=1`) runs its launches
//!   under the memory checker. The queue and context stay usable.

use super::device::Device;
use super::event::Event;
use super::kernel::{ArgValue, Kernel};
use super::queue::{Ordering, Queue};
use crate::abi::kernel_info::KernelInfo;
use crate::abi::launch::{ArgError, KernelArg};
use crate::cl::object::Ref;
use crate::cl::*;
use crate::device::{self, ArgBuffer, Grouping, LaunchError, LaunchStats, Printer};

/// The NDRange (the ABI's one type; validated by the API layer).
pub use crate::abi::launch::NdRange;

/// A kernel's arguments packed for the device, once, at enqueue time.
pub type PackedArgs = ArgBuffer;

/// Divisors of `n` up to `limit`, largest first.
fn divisors_up_to(n: u32, limit: u32) -> impl Iterator<Item = u32> {
    (1..=limit.min(n)).rev().filter(move |d| n % d == 0)
}

/// A work-group size for `global` (see the module documentation). `max_group` ≥ 1; a
/// `grouping_free` kernel may get a size that does not divide `global`.
pub fn choose_local(work_dim: u32, global: [u32; 3], max_group: u32, warp: u32, grouping_free: bool) -> [u32; 3] {
    type Key = (u32, [u32; 3], u32, u32, bool);
    thread_local! {
        /// The last choice: launches repeat their shape, and the search was 1–3 % of a small
        /// launch's host time (`perf` on 1,000 launches of one kernel).
        static LAST: std::cell::Cell<Option<(Key, [u32; 3])>> = const { std::cell::Cell::new(None) };
    }
    let key = (work_dim, global, max_group, warp, grouping_free);
    if let Some((k, l)) = LAST.get() {
        if k == key {
            return l;
        }
    }
    let l = choose_local_uncached(work_dim, global, max_group, warp, grouping_free);
    LAST.set(Some((key, l)));
    l
}

fn choose_local_uncached(work_dim: u32, global: [u32; 3], max_group: u32, warp: u32, grouping_free: bool) -> [u32; 3] {
    let warp = warp.max(1);
    let [uniform, partial] = candidates(work_dim, global, max_group, warp);
    if !grouping_free {
        return uniform;
    }
    least(uniform, partial, |l| lanes_occupied(global, l, warp))
}

/// The two sizes a chooser weighs within `max_group`: per dimension the largest divisor
/// (uniform; [`divide`]), and whole warps in dimension 0 with a partial last work-group.
fn candidates(work_dim: u32, global: [u32; 3], max_group: u32, warp: u32) -> [[u32; 3]; 2] {
    let budget = max_group.max(1);
    let g0 = global[0].max(1);
    let whole = if budget >= warp { (budget / warp * warp).min(g0) } else { budget.min(g0) };
    [divide(work_dim, global, budget, warp, None), divide(work_dim, global, budget, warp, Some(whole))]
}

/// `b` when it costs strictly less than `a`, else `a`.
fn least(a: [u32; 3], b: [u32; 3], cost: impl Fn([u32; 3]) -> u64) -> [u32; 3] {
    if cost(b) < cost(a) {
        b
    } else {
        a
    }
}

/// Per dimension the largest divisor of the global size within the remaining budget (dimension
/// 0: a warp multiple if there is one, or `first` when given).
fn divide(work_dim: u32, global: [u32; 3], max_group: u32, warp: u32, first: Option<u32>) -> [u32; 3] {
    let mut local = [1u32; 3];
    let mut budget = max_group;
    for d in 0..(work_dim as usize).min(3) {
        let g = global[d].max(1);
        let pick = match (d, first) {
            (0, Some(f)) => Some(f),
            (0, None) => divisors_up_to(g, budget).find(|v| v % warp == 0).or_else(|| divisors_up_to(g, budget).next()),
            _ => divisors_up_to(g, budget).next(),
        };
        local[d] = pick.unwrap_or(1);
        budget /= local[d];
    }
    local
}

/// How the device groups a launch over `range` of a kernel with metadata `info` (`None`: an
/// official binary) and, when `single_item`, a single-item variant (see the module
/// documentation): regrouped into work-groups of at most one warp when that costs fewer warp
/// turns ([`warp_cost`]) — the largest divisors (uniform) or whole warps in dimension 0 with a
/// partial last work-group, whichever costs less. One warp bounds what a device work-group
/// does to what one of the NDRange's work-groups (one warp or more) did, so the
/// per-work-group watchdog keeps its meaning.
pub fn device_grouping(info: Option<&KernelInfo>, single_item: bool, range: &NdRange, warp: u32) -> Grouping {
    let free = info.is_some_and(|i| i.grouping_free);
    let single_item = !free && single_item && range.local == [1; 3];
    if !free && !single_item {
        return Grouping::AsGiven;
    }
    let (warp, global) = (warp.max(1), range.global);
    let [uniform, partial] = candidates(range.work_dim, global, warp, warp);
    let best = least(uniform, partial, |l| warp_cost(global, l, warp));
    if warp_cost(global, best, warp) < warp_cost(global, range.local, warp) {
        Grouping::Regrouped { local: best, single_item }
    } else {
        Grouping::AsGiven
    }
}

/// What running an NDRange in work-groups of `local` costs, in warps: each warp once, and a
/// warp with idle lanes once more — it runs the slower partial-state paths (masked copies,
/// memory accesses through the handlers), so 28-lane warps everywhere (70 = 14 × 5) cost more
/// than whole warps with a narrow last one.
fn warp_cost(global: [u32; 3], local: [u32; 3], warp: u32) -> u64 {
    let warp = u64::from(warp);
    group_shapes(global, local).map(|(groups, size)| groups * (size.div_ceil(warp) + u64::from(size % warp != 0))).sum()
}

/// The work-groups of an NDRange by shape: `(count, work-items)` for the full ones and for each
/// combination of partial edges (at most one partial work-group per dimension).
fn group_shapes(global: [u32; 3], local: [u32; 3]) -> impl Iterator<Item = (u64, u64)> {
    (0..8u32).map(move |edge| {
        let (mut groups, mut size) = (1u64, 1u64);
        for d in 0..3 {
            let (g, l) = (u64::from(global[d].max(1)), u64::from(local[d].max(1)));
            if edge >> d & 1 == 0 {
                (groups, size) = (groups * (g / l), size * l);
            } else {
                (groups, size) = (groups * u64::from(g % l != 0), size * (g % l));
            }
        }
        (groups, size)
    })
}

/// Lanes the work-groups of an NDRange occupy: each work-group, partial edge ones included, takes
/// whole warps.
fn lanes_occupied(global: [u32; 3], local: [u32; 3], warp: u32) -> u64 {
    let warp = u64::from(warp);
    group_shapes(global, local).map(|(groups, size)| groups * size.div_ceil(warp) * warp).sum()
}

/// Writes formatted printf output: the context's `cl_arm_printf` callback if it has one, else the
/// process's standard output (flushed, so output interleaves correctly with the host's own).
fn emit_print(context: &super::context::Context, text: &[u8]) {
    if text.is_empty() {
        return;
    }
    if !context.printf_callback(text) {
        crate::device::write_stdout(text);
    }
}

/// Packs `args` for the device (buffers become their device addresses) — the one packing of a
/// launch's arguments. Fails when they do not fit the argument buffer
/// (`abi::launch::MAX_ARG_BUFFER` by pocl's rule) together with the hidden program-scope
/// variables pointer the launch appends for a program that has them (`CL_OUT_OF_RESOURCES`).
pub fn pack_args(kernel: &Kernel, args: &[ArgValue]) -> Result<PackedArgs, ArgError> {
    let device_args: Vec<KernelArg> = args
        .iter()
        .map(|a| match a {
            ArgValue::Buffer(m) => KernelArg::Pointer(m.as_ref().map_or(0, |m| m.kernel_address())),
            ArgValue::Local(n) => KernelArg::Local(*n),
            ArgValue::Value(v) => KernelArg::Value(v.clone()),
            ArgValue::Svm(addr) => KernelArg::Pointer(*addr),
        })
        .collect();
    let packed = crate::abi::launch::pack_args(&device_args)?;
    if kernel.exec.globals.is_some() {
        packed.clone().push_pointer(0)?;
    }
    Ok(packed)
}

/// What a launch needs, captured at enqueue time.
struct Launch {
    device: Ref<Device>,
    kernel: Ref<Kernel>,
    range: NdRange,
    /// The argument values (they keep the buffers alive; written back after the run).
    args: Vec<ArgValue>,
    packed: PackedArgs,
}

impl Launch {
    /// Runs the kernel on the calling (queue) thread and the device's threads; printf output is
    /// written while the kernel runs and once more at the end ([`Printer`]).
    fn run(&self, context: &Ref<super::context::Context>) -> Result<LaunchStats, LaunchError> {
        let k = &self.kernel;
        let dev = &self.device;
        // Programs with program-scope variables: the hidden trailing argument (abi::globals).
        let globals = k.program.globals_base(&k.exec, dev)?;
        let sink_context = context.clone();
        let capacity = context.printf_buffer_size(dev.printf_buffer_size);
        let printer = Printer::new(&dev.memory, k.exec.printf.as_ref(), capacity, move |text: &[u8]| {
            emit_print(&sink_context, text)
        })?;
        let mut opts = k.run_options();
        // The device's share of the host threads (a sub-device's, or all of them).
        (opts.threads, opts.first_thread) = dev.launch_threads(opts.threads);
        opts.memcheck |= context.memcheck();
        if let Some(seconds) = context.watchdog_seconds() {
            opts.watchdog_seconds = seconds;
        }
        let l = device::Launch {
            exec: &k.exec,
            kernel: k.def(),
            range: self.range,
            args: &self.packed,
            globals,
            threads_per_warp: dev.threads_per_warp,
            mask_lanes: true,
            printer: Some(&printer),
            grouping: device_grouping(k.info(), k.def().single_item_entry.is_some(), &self.range, dev.threads_per_warp),
        };
        let result = device::run(&dev.memory, &l, &opts);
        let report = printer.finish(&dev.memory);
        if report.lost > 0 {
            // Name the setting the size came from: the context's property or the device's.
            let source = if context.printf_buffer_size(0) != 0 {
                "the context's CL_PRINTF_BUFFERSIZE_ARM"
            } else {
                "VENTUS_PRINTF_BUFFER_SIZE"
            };
            context.report(&format!(
                "kernel `{}`: {} printf record(s) lost: the print buffer ({} bytes, set by {source}) was full",
                k.name(),
                report.lost,
                report.capacity
            ));
            log::warn!("kernel `{}`: {} printf record(s) lost (print buffer full)", k.name(), report.lost);
        }
        result
    }

    /// Runs the launch and settles its outcome: buffers written back, statistics recorded
    /// (`VENTUS_STATS`), a failure reported to the context and turned into the event status
    /// `CL_OUT_OF_RESOURCES`.
    fn run_and_settle(&self, context: &Ref<super::context::Context>) -> CLResult<LaunchStats> {
        let result = self.run(context);
        for a in &self.args {
            if let ArgValue::Buffer(Some(m)) = a {
                m.after_device_write();
            }
        }
        match result {
            Ok(stats) => {
                super::stats::record(self.kernel.name(), &stats, self.device.threads_per_warp);
                Ok(stats)
            }
            Err(e) => {
                context.report(&format!("kernel `{}` failed: {e}", self.kernel.name()));
                Err(CL_OUT_OF_RESOURCES)
            }
        }
    }
}

/// Enqueues `kernel` over `range` with the given (already snapshotted) arguments.
#[allow(clippy::too_many_arguments)]
pub fn enqueue(
    queue: &Ref<Queue>,
    kernel: Ref<Kernel>,
    range: NdRange,
    args: Vec<ArgValue>,
    packed: PackedArgs,
    command_type: cl_command_type,
    deps: Vec<Ref<Event>>,
) -> Ref<Event> {
    let launch = Prepared::new(queue, kernel, range, args, packed);
    Queue::enqueue_with(queue, command_type, deps, Ordering::Command, |event| {
        let event = event.clone();
        Box::new(move || {
            event.set_stats(launch.run()?);
            Ok(())
        })
    })
}

/// A launch validated and packed once, runnable any number of times on the calling thread
/// (a command buffer's kernel command: replaying it repeats none of the enqueue-time work).
pub struct Prepared {
    launch: Launch,
    context: Ref<super::context::Context>,
}

impl Prepared {
    /// `kernel` over `range` on `queue`'s device with the given (already snapshotted and
    /// packed) arguments.
    pub fn new(
        queue: &Ref<Queue>,
        kernel: Ref<Kernel>,
        range: NdRange,
        args: Vec<ArgValue>,
        packed: PackedArgs,
    ) -> Prepared {
        let launch = Launch { device: queue.device.clone(), kernel, range, args, packed };
        Prepared { launch, context: queue.context.clone() }
    }

    /// Runs the launch now (see [`enqueue`] for what a failure does).
    pub fn run(&self) -> CLResult<LaunchStats> {
        self.launch.run_and_settle(&self.context)
    }
}

/// Enqueues a command that does nothing but complete (a launch with an empty NDRange).
pub fn enqueue_empty(queue: &Ref<Queue>, command_type: cl_command_type, deps: Vec<Ref<Event>>) -> Ref<Event> {
    Queue::enqueue(queue, command_type, deps, Ordering::Command, Box::new(|| Ok(())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chooser_prefers_warp_multiples_and_divides_the_global_size() {
        for free in [false, true] {
            assert_eq!(choose_local(1, [1024, 1, 1], 256, 32, free), [256, 1, 1]);
            assert_eq!(choose_local(1, [96, 1, 1], 256, 32, free), [96, 1, 1]);
            assert_eq!(choose_local(1, [1000, 1, 1], 256, 32, free), [250, 1, 1]);
            assert_eq!(choose_local(2, [64, 64, 1], 256, 32, free), [64, 4, 1]);
            assert_eq!(choose_local(3, [8, 8, 8], 256, 32, free), [8, 8, 4]);
            assert_eq!(choose_local(1, [7, 1, 1], 256, 32, free), [7, 1, 1]);
        }
        // A prime size: one work-item per work-group unless the kernel cannot tell.
        assert_eq!(choose_local(1, [97, 1, 1], 64, 32, false), [1, 1, 1]);
        assert_eq!(choose_local(1, [97, 1, 1], 64, 32, true), [64, 1, 1]);
        assert_eq!(choose_local(1, [43691, 1, 1], 256, 32, true), [256, 1, 1]);
        assert_eq!(choose_local(2, [43691, 3, 1], 256, 32, true), [256, 1, 1]);
        // Tiny budgets and warps.
        assert_eq!(choose_local(1, [97, 1, 1], 8, 32, true), [8, 1, 1]);
        assert_eq!(choose_local(1, [97, 1, 1], 256, 1, true), [97, 1, 1]);
        assert_eq!(lanes_occupied([100, 1, 1], [48, 1, 1], 32), 64 + 64 + 32);
        assert_eq!(lanes_occupied([10, 10, 1], [4, 4, 1], 32), 4 * 32 + 2 * 32 + 2 * 32 + 32);
        let r = NdRange { work_dim: 1, global: [100, 1, 1], offset: [0; 3], local: [48, 1, 1] };
        assert_eq!((r.num_groups(), r.is_uniform()), ([3, 1, 1], false));
    }

    /// The emulator options of a kernel apply to its launches (here: a small watchdog instead of
    /// `VENTUS_WATCHDOG`, which is read once per process); the fault fails only that event.
    #[test]
    fn run_options_per_kernel_and_watchdog_reports() {
        use crate::cl::object::Obj;
        use crate::core::context::Context;
        use crate::core::program::{Executable, Program};
        use parking_lot::Mutex;
        use std::sync::Arc;
        let asm = ".globl spin\nspin:\n    j spin\n.globl nop\nnop:\n    ret\n";
        let exec = Arc::new(Executable::load(&crate::abi::crt0::link(asm, &[]).unwrap()).unwrap());
        let messages = Arc::new(Mutex::new(Vec::<String>::new()));
        let m2 = messages.clone();
        let dev = super::super::platform::device().clone();
        let notify: crate::core::context::Notify = Box::new(move |s: &str| m2.lock().push(s.to_string()));
        let ctx = Obj::new(Context::new(vec![dev.clone()], Vec::new(), Some(notify)));
        let program = Obj::new(Program::from_binary(ctx.clone(), vec![dev.clone()], exec.clone()));
        let queue = Obj::new(Queue::new(ctx, dev, 0, Vec::new()));
        let range = NdRange { work_dim: 1, global: [64, 1, 1], offset: [0; 3], local: [32, 1, 1] };
        let spin = Obj::new(Kernel::new(program.clone(), exec.clone(), exec.kernel("spin").unwrap()));
        spin.set_run_options(crate::device::LaunchOptions { watchdog: 10_000, ..spin.run_options() });
        let packed = pack_args(&spin, &[]).unwrap();
        let e = enqueue(&queue, spin, range, Vec::new(), packed, CL_COMMAND_NDRANGE_KERNEL, Vec::new());
        assert_eq!(e.wait(), CL_OUT_OF_RESOURCES);
        let msgs = messages.lock().clone();
        assert!(msgs.len() == 1 && msgs[0].contains("`spin`") && msgs[0].contains("watchdog"), "{msgs:?}");
        let nop = Obj::new(Kernel::new(program, exec.clone(), exec.kernel("nop").unwrap()));
        let packed = pack_args(&nop, &[]).unwrap();
        let e = enqueue(&queue, nop, range, Vec::new(), packed, CL_COMMAND_NDRANGE_KERNEL, Vec::new());
        assert_eq!(e.wait(), CL_COMPLETE);
    }

    #[test]
    fn regrouping_prefers_whole_warps_and_needs_a_kernel_that_cannot_tell() {
        let free = KernelInfo { grouping_free: true, ..Default::default() };
        let observing = KernelInfo::default();
        let r = |global: [u32; 3], local: [u32; 3]| NdRange { work_dim: 3, global, offset: [0; 3], local };
        // 70 = 14 × 5: 28-lane warps everywhere cost more than two whole warps and a narrow one.
        let g = device_grouping(Some(&observing), true, &r([70, 70, 70], [1, 1, 1]), 32);
        assert_eq!(g, Grouping::Regrouped { local: [32, 1, 1], single_item: true });
        assert_eq!(warp_cost([70, 70, 70], [14, 2, 1], 32), 12_250 * 2);
        assert_eq!(warp_cost([70, 70, 70], [32, 1, 1], 32), 70 * 70 * 4);
        // Without a single-item variant, or with larger work-groups, nothing changes.
        assert_eq!(device_grouping(Some(&observing), false, &r([70, 70, 70], [1, 1, 1]), 32), Grouping::AsGiven);
        assert_eq!(device_grouping(Some(&observing), true, &r([64, 4, 1], [2, 1, 1]), 32), Grouping::AsGiven);
        assert_eq!(device_grouping(None, false, &r([64, 4, 1], [1, 1, 1]), 32), Grouping::AsGiven);
        // A grouping-free kernel keeps a size that fills its warps, loses one that idles lanes.
        assert_eq!(device_grouping(Some(&free), false, &r([64, 4, 1], [32, 1, 1]), 32), Grouping::AsGiven);
        let g = device_grouping(Some(&free), false, &r([29, 11, 1], [1, 1, 1]), 32);
        assert_eq!(g, Grouping::Regrouped { local: [29, 1, 1], single_item: false });
    }
}
