//! The device layer: turns a kernel launch (program, entry, geometry, arguments) into device
//! memory contents and an emulator run, following the official driver's allocation order
//! (driver-abi §1.2): argument buffer, private memory, metadata; freed afterwards.
//!
//! OpenCL launches pass [`KernelLaunch::work_items`]: lanes that are not work-items start inactive,
//! and the metadata's global-size words hold the real (possibly non-uniform) global size
//! ([`metadata_bytes`]).

pub mod executable;
pub mod print;

use crate::abi::elf::ResourceUsage;
use crate::abi::globals::GlobalsImage;
use crate::abi::launch::{lds_bottom, pack_args, ArgBuffer, ArgError, Geometry, KernelArg, Metadata, METADATA_SIZE};
use crate::abi::{PRIVATE_BYTES_PER_THREAD, PRIVATE_CAP};
use crate::emulator::memcheck::{Extent, Label, MemCheck};
use crate::emulator::LdsMap;
use crate::emulator::{self, GroupTraces, LaunchParams, RunStats};
use std::sync::Arc;

/// The parts of the emulator the OpenCL layer (`core`) works with, re-exported: `core` reaches
/// the emulator only through this layer (`tests/architecture.rs` checks it).
pub use crate::emulator::config::Config;
pub use crate::emulator::hostcall::{install_native_fp64, write_stdout, F64Op, HostCall};
pub use crate::emulator::memory::MapError;
pub use crate::emulator::program::ProgramError;
pub use crate::emulator::{DeviceMemory, Fault, LaunchError, PrintHook, Program, Region, RunOptions, WorkItems};

/// What a completed launch did (work-groups, warp and lane instructions, divergent branches,
/// barriers, bytes moved per address space): the emulator's counters, as the device reports them.
pub type LaunchStats = RunStats;

/// One kernel launch.
pub struct KernelLaunch<'a> {
    pub program: &'a Program,
    /// Kernel entry address (`KNL_ENTRY`).
    pub entry: u32,
    pub geometry: Geometry,
    pub args: &'a [KernelArg],
    /// Lanes per warp (`CSR_NUMT`).
    pub threads_per_warp: u32,
    /// Print buffer (address, size) written into the metadata; (0, 0) for none.
    pub print: (u32, u32),
    /// OpenCL work-item extent (masks lanes that are not work-items); `None` = all lanes run.
    pub work_items: Option<emulator::WorkItems>,
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
    Args(ArgError),
    Memory(MapError),
    Launch(LaunchError),
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::Args(e) => e.fmt(f),
            DeviceError::Memory(e) => e.fmt(f),
            DeviceError::Launch(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for DeviceError {}

/// The metadata buffer of a launch: with OpenCL work-item masks (`work_items`), the global-size
/// words hold the real global size ([`Metadata::to_bytes_with_global`]); launches without
/// masks (the reference behaviour) are written as the official stack writes them.
pub fn metadata_bytes(meta: &Metadata, work_items: Option<&emulator::WorkItems>) -> [u8; METADATA_SIZE as usize] {
    meta.to_bytes_with_global(work_items.map(|wi| wi.global))
}

/// Allocates a program's globals block ([`crate::abi::globals`]) and writes its initial
/// contents; returns its address (the value of the kernels' hidden argument). The caller owns
/// the block and frees it with [`DeviceMemory::unmap`].
pub fn stage_globals(mem: &DeviceMemory, image: &GlobalsImage) -> Result<u32, MapError> {
    let r = mem.alloc(image.size.max(4))?;
    r.write_bytes(r.base(), &image.contents(r.base()));
    Ok(r.base())
}

/// Stages and runs a launch; temporary buffers are released whatever the outcome.
pub fn launch(mem: &DeviceMemory, l: &KernelLaunch, opts: &RunOptions) -> Result<RunStats, DeviceError> {
    stage_and_run(mem, l, |params| emulator::run(mem, l.program, params, opts))
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
    let mut locals = packed.local_addrs.iter();
    for (i, a) in l.args.iter().enumerate() {
        match a {
            KernelArg::Local(n) => {
                if let Some(&addr) = locals.next() {
                    c.local(addr, *n, Extent::LocalArg(i as u32));
                }
            }
            KernelArg::Pointer(p) => c.label(*p, Label::Argument { index: i as u32, offset: 0 }),
            KernelArg::Value(_) => {}
        }
    }
    c
}

fn stage_and_run(
    mem: &DeviceMemory,
    l: &KernelLaunch,
    runner: impl FnOnce(&LaunchParams) -> Result<RunStats, LaunchError>,
) -> Result<RunStats, DeviceError> {
    let packed = pack_args(l.args).map_err(DeviceError::Args)?;
    let warps = l.geometry.warps_per_group(l.threads_per_warp);
    let groups: u64 = l.geometry.num_groups.iter().map(|&n| n as u64).product();
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
            geometry: l.geometry,
            print_addr: l.print.0,
            print_size: l.print.1,
            pds_bytes_per_thread: per_item,
        };
        md.write_bytes(md.base(), &metadata_bytes(&meta, l.work_items.as_ref()));
        // Without a resource record the official defaults give the extents, but the whole LDS
        // window stays mapped (the kernel's real layout is unknown).
        let bottom = lds_bottom(&l.resources.unwrap_or_default());
        let lds_map = match l.resources {
            Some(_) => LdsMap::new(warps as u64 * bottom.0 as u64 + bottom.1 as u64, packed.local_floor),
            None => LdsMap::WHOLE,
        };
        let mut extents = exact_extents(l, &packed, warps, bottom, private_base);
        extents.label(md.base(), Label::Metadata);
        if arg_base != 0 {
            extents.label(arg_base, Label::ArgumentBuffer);
        }
        let params = LaunchParams {
            num_groups: l.geometry.num_groups,
            warps_per_group: warps,
            threads_per_warp: l.threads_per_warp,
            metadata_addr: md.base(),
            pds_base: private_base,
            private_bytes_per_thread: per_item,
            start_pc: crate::abi::PROGRAM_BASE,
            work_items: l.work_items,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::launch::Geometry;

    #[test]
    fn non_uniform_launches_write_the_real_global_size() {
        let geometry = Geometry { work_dim: 2, num_groups: [3, 2, 1], local: [48, 4, 1], offset: [5, 0, 0] };
        let meta = Metadata {
            entry: 0x8000_0040,
            arg_base: 0,
            geometry,
            print_addr: 0,
            print_size: 0,
            pds_bytes_per_thread: 0x1000,
        };
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        let plain = metadata_bytes(&meta, None);
        assert_eq!((word(&plain, 3), word(&plain, 4), word(&plain, 5)), (144, 8, 1));
        let wi = emulator::WorkItems { global: [100, 7, 1], local: [48, 4, 1] };
        let masked = metadata_bytes(&meta, Some(&wi));
        assert_eq!((word(&masked, 3), word(&masked, 4), word(&masked, 5)), (100, 7, 1));
        assert_eq!(&masked[24..], &plain[24..]);
        assert_eq!(&masked[..12], &plain[..12]);
    }
}
