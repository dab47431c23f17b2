//! The emulated backend of the device layer: stages a launch into the emulator's memory (argument
//! buffer, private memory, metadata, in the official driver's allocation order, driver-abi §1.2)
//! and runs it; the temporary blocks are freed afterwards.
//!
//! This is the device layer's one door to the emulator. The seam above it ([`super::run`],
//! [`super::Memory`], [`super::Executable`]) names no emulator type; the tools and tests that
//! drive the emulator with hand-built programs (launch images, host-call stubs, trap modes) use
//! [`launch`] here directly.
//!
//! OpenCL launches set [`KernelLaunch::mask_lanes`]: lanes that are not work-items start inactive
//! ([`NdRange::lane_masks`]); the metadata's global-size words hold the NDRange's real (possibly
//! non-uniform) global size either way ([`Metadata::to_bytes`]).

use crate::abi::elf::ResourceUsage;
use crate::abi::launch::{lds_bottom, ArgBuffer, ArgSlot, Metadata, NdRange, METADATA_SIZE};
use crate::abi::{PRIVATE_BYTES_PER_THREAD, PRIVATE_CAP};
use crate::emulator::memcheck::{Extent, Label, MemCheck};
use crate::emulator::memory::{DeviceMemory, MapError};
use crate::emulator::{self, GroupTraces, LaunchError, LaunchParams, LdsMap, Program, RunOptions, RunStats};
use std::sync::Arc;

/// One kernel launch.
pub struct KernelLaunch<'a> {
    pub program: &'a Program,
    /// The variant of `program` for launches whose pointer arguments point into pairwise
    /// different heap blocks ([`super::executable::Executable::disjoint_code`]); [`launch`]
    /// runs it when they do.
    pub disjoint_program: Option<&'a Program>,
    /// Kernel entry address (`KNL_ENTRY`).
    pub entry: u32,
    pub range: NdRange,
    /// The packed arguments ([`crate::abi::launch::pack_args`]).
    pub args: &'a ArgBuffer,
    /// Lanes per warp (`CSR_NUMT`).
    pub threads_per_warp: u32,
    /// Print buffer (address, size) written into the metadata; (0, 0) for none.
    pub print: (u32, u32),
    /// OpenCL semantics: lanes that are not work-items start inactive. `false`: every lane of
    /// every warp runs (the reference stack's behaviour).
    pub mask_lanes: bool,
    /// Private bytes per work-item the kernel needs (from its `.ventus.kernel_info`; 0 =
    /// unknown). Each work-item gets at least the official 4 KiB
    /// ([`PRIVATE_BYTES_PER_THREAD`]), more (rounded up to 1 KiB) when the kernel needs it.
    pub private_bytes: u32,
    /// The kernel's `.ventus.resource` record: with it, the LDS window maps only the warp
    /// stacks, the static `__local` data and the `__local` arguments
    /// ([`crate::abi::launch::lds_bottom`]); without it, the whole window.
    pub resources: Option<ResourceUsage>,
}

/// Why a launch failed.
#[derive(Debug)]
pub enum DeviceError {
    Memory(MapError),
    Launch(LaunchError),
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::Memory(e) => e.fmt(f),
            DeviceError::Launch(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for DeviceError {}

/// Stages and runs a launch; temporary buffers are released whatever the outcome.
pub fn launch(mem: &DeviceMemory, l: &KernelLaunch, opts: &RunOptions) -> Result<RunStats, DeviceError> {
    stage_and_run(mem, l, |params| emulator::run(mem, program_for(mem, l), params, opts))
}

/// The program `l` runs: its disjoint variant when every non-NULL pointer argument points into
/// a heap block no other pointer argument points into (then accesses of different memory
/// classes cannot meet, [`crate::abi::mem_class`]), else the program.
fn program_for<'a>(mem: &DeviceMemory, l: &KernelLaunch<'a>) -> &'a Program {
    let Some(variant) = l.disjoint_program else { return l.program };
    let mut named: Vec<u32> = Vec::new();
    for slot in &l.args.slots {
        let ArgSlot::Pointer { addr, .. } = *slot else { continue };
        if addr == 0 {
            continue;
        }
        match mem.block_of(addr) {
            Some(base) if !named.contains(&base) => named.push(base),
            _ => return l.program,
        }
    }
    variant
}

/// As [`launch`], also returning a commit trace per work-group (in work-group order).
pub fn launch_traced(
    mem: &DeviceMemory,
    l: &KernelLaunch,
    opts: &RunOptions,
) -> (Result<RunStats, DeviceError>, GroupTraces) {
    let mut traces = Vec::new();
    let r = stage_and_run(mem, l, |params| {
        let (r, t) = emulator::run_traced(mem, l.program, params, opts);
        traces = t;
        r
    });
    (r, traces)
}

/// The byte-exact extents of launch `l` for the memory checker: `__local` (warp stacks, static
/// data, each `__local` argument), the private frame, and labels for the buffers the pointer
/// arguments point into.
/// `(stack, statics)`: the LDS bottom of [`lds_bottom`].
fn exact_extents(
    l: &KernelLaunch,
    packed: &ArgBuffer,
    warps: u32,
    (stack, statics): (u32, u32),
    pds_base: u32,
) -> MemCheck {
    let items = warps * l.threads_per_warp;
    let mut c = MemCheck::new(items, pds_base, l.private_bytes);
    let stacks = warps.saturating_mul(stack);
    c.local(crate::abi::LDS_BASE, stacks, Extent::WarpStacks);
    c.local(crate::abi::LDS_BASE.saturating_add(stacks), statics, Extent::StaticLocal);
    for (i, a) in packed.slots.iter().enumerate() {
        match *a {
            ArgSlot::Local { addr, size } => c.local(addr, size, Extent::LocalArg(i as u32)),
            ArgSlot::Pointer { addr, .. } => c.label(addr, Label::Argument { index: i as u32, offset: 0 }),
            ArgSlot::Value => {}
        }
    }
    c
}

fn stage_and_run(
    mem: &DeviceMemory,
    l: &KernelLaunch,
    runner: impl FnOnce(&LaunchParams) -> Result<RunStats, LaunchError>,
) -> Result<RunStats, DeviceError> {
    let packed = l.args;
    let warps = l.range.warps_per_group(l.threads_per_warp);
    let num_groups = l.range.num_groups();
    let groups: u64 = num_groups.iter().map(|&n| n as u64).product();
    let mut temps = Vec::new();
    let result = (|| {
        let arg_base = if packed.bytes.is_empty() {
            0
        } else {
            let r = mem.alloc_read_only(packed.bytes.len() as u32).map_err(DeviceError::Memory)?;
            r.write_bytes(r.base(), &packed.bytes);
            temps.push(r.base());
            r.base()
        };
        let per_item = l.private_bytes.next_multiple_of(1024).max(PRIVATE_BYTES_PER_THREAD);
        let per_group = per_item as u64 * l.threads_per_warp as u64 * warps as u64;
        let private_size = (per_group * groups).clamp(per_group.min(PRIVATE_CAP as u64), PRIVATE_CAP as u64);
        // Address space only: each host thread overlays the first `per_group` bytes, which are
        // all a work-group addresses, with storage of its own.
        let private_base = mem.reserve(private_size as u32).map_err(DeviceError::Memory)?;
        temps.push(private_base);
        let md = mem.alloc_read_only(METADATA_SIZE).map_err(DeviceError::Memory)?;
        temps.push(md.base());
        let meta = Metadata {
            entry: l.entry,
            arg_base,
            range: l.range,
            print_addr: l.print.0,
            print_size: l.print.1,
            pds_bytes_per_thread: per_item,
        };
        md.write_bytes(md.base(), &meta.to_bytes());
        // Without a resource record the official defaults give the extents, but the whole LDS
        // window stays mapped (the kernel's real layout is unknown).
        let bottom = lds_bottom(&l.resources.unwrap_or_default());
        let lds_map = match l.resources {
            Some(_) => LdsMap::new(warps as u64 * bottom.0 as u64 + bottom.1 as u64, packed.local_floor)
                .with_warp_stack(bottom.0),
            None => LdsMap::WHOLE,
        };
        let mut extents = exact_extents(l, packed, warps, bottom, private_base);
        extents.label(md.base(), Label::Metadata);
        if arg_base != 0 {
            extents.label(arg_base, Label::ArgumentBuffer);
        }
        let params = LaunchParams {
            num_groups,
            warps_per_group: warps,
            threads_per_warp: l.threads_per_warp,
            metadata_addr: md.base(),
            pds_base: private_base,
            private_bytes_per_thread: per_item,
            start_pc: crate::abi::PROGRAM_BASE,
            work_items: l.mask_lanes.then_some(l.range),
            lds_map,
            extents: Some(Arc::new(extents)),
            reg_bounds: Some(l.program.launch_reg_bounds(crate::abi::PROGRAM_BASE, l.entry)),
        };
        runner(&params).map_err(DeviceError::Launch)
    })();
    for base in temps.into_iter().rev() {
        mem.unmap(base);
    }
    result
}

/// [`super::run`] with a commit trace per work-group, in work-group order (`ventus-run --trace`):
/// the emulated backend's extension of the seam.
pub fn run_traced(
    mem: &super::Memory,
    l: &super::Launch,
    opts: &super::LaunchOptions,
) -> (Result<super::LaunchStats, super::LaunchError>, GroupTraces) {
    let mut traces = Vec::new();
    let r = super::launch::staged(l, opts, |k, o| {
        let (r, t) = launch_traced(mem.emulated(), k, o);
        traces = t;
        r
    });
    (r, traces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::launch::{pack_args, KernelArg};
    use crate::emulator::program::LoadSegment;

    fn program() -> Program {
        let segment = LoadSegment { vaddr: 0x8000_0000, data: vec![0; 4], mem_size: 4, writable: false };
        Program::new(vec![segment], &[(0x8000_0000, 0x8000_0004)]).expect("program")
    }

    #[test]
    fn the_disjoint_variant_runs_only_when_the_pointers_name_different_blocks() {
        let mem = DeviceMemory::new();
        let (a, b) = (mem.alloc(256).unwrap().base(), mem.alloc(256).unwrap().base());
        let (plain, variant) = (program(), program());
        let chosen = |args: &[KernelArg], variant: Option<&Program>| -> bool {
            let packed = pack_args(args).unwrap();
            let l = KernelLaunch {
                program: &plain,
                disjoint_program: variant,
                entry: 0x8000_0000,
                range: NdRange::whole_groups(1, [1; 3], [1; 3], [0; 3]),
                args: &packed,
                threads_per_warp: 32,
                print: (0, 0),
                mask_lanes: true,
                private_bytes: 0,
                resources: None,
            };
            std::ptr::eq(program_for(&mem, &l), variant.unwrap_or(&plain)) && variant.is_some()
        };
        use KernelArg::{Local, Pointer, Value};
        let v = Some(&variant);
        assert!(chosen(&[Pointer(a), Pointer(b + 16), Value(vec![1, 2, 3, 4]), Local(64)], v));
        assert!(chosen(&[Pointer(a), Pointer(0), Pointer(0)], v), "NULL names nothing");
        assert!(!chosen(&[Pointer(a), Pointer(a + 128)], v), "two pointers into one block");
        assert!(!chosen(&[Pointer(a), Pointer(0x1000)], v), "a pointer outside every block");
        assert!(!chosen(&[Pointer(a), Pointer(b)], None), "no variant");
    }
}
