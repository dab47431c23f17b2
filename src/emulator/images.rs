//! Running the official launch images (driver-abi §8): a `.metadata` + `.data` pair describes the
//! buffers, their initial contents and the launch geometry; several images of one case run in order
//! on the same memory.

use super::memory::{DeviceMemory, MapError};
use super::program::{Program, ProgramError};
use super::LaunchParams;
use crate::abi::{self, image::LaunchImage};

/// Why an image cannot be staged.
#[derive(Debug)]
pub enum ImageRunError {
    Map(MapError),
    Program(ProgramError),
}

impl std::fmt::Display for ImageRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImageRunError::Map(e) => write!(f, "cannot place image buffer: {e}"),
            ImageRunError::Program(e) => write!(f, "image program: {e}"),
        }
    }
}
impl std::error::Error for ImageRunError {}

/// True for buffers that live in the per-work-group LDS or program windows.
pub fn in_windows(base: u32) -> bool {
    (abi::LDS_BASE..abi::HEAP_BASE).contains(&base)
}

/// Maps and fills the image's heap buffers (replacing any region at the same base), and returns
/// the program and launch parameters. LDS-window buffers are not supported (warned and skipped).
pub fn stage(mem: &DeviceMemory, img: &LaunchImage) -> Result<(Program, LaunchParams), ImageRunError> {
    for b in &img.buffers {
        if in_windows(b.base) {
            if b.base < abi::PROGRAM_BASE && b.size > 0 {
                log::warn!("image buffer {:#010x} lies in the LDS window; its contents are ignored", b.base);
            }
            continue;
        }
        let size = b.alloc_size.max(b.size).max(4);
        // Device memory comes in whole 4 KiB pages, as on the hardware and in the reference:
        // code may read the tail of a buffer's last page. (A buffer that shares its last page
        // with the next one keeps its exact size.)
        let next = img.buffers.iter().map(|o| o.base as u64).filter(|&o| o > b.base as u64).min();
        let paged = crate::util::align_up(size as u64, abi::PAGE_SIZE as u64)
            .min(next.unwrap_or(1 << 32) - b.base as u64)
            .max(size as u64);
        let existing = mem.snapshot().into_iter().find(|r| r.base() == b.base);
        let region = match existing {
            Some(r) if r.size() >= size => r,
            _ => {
                mem.unmap(b.base);
                match mem.map(b.base, paged as u32) {
                    Ok(r) => r,
                    Err(_) => mem.map(b.base, size).map_err(ImageRunError::Map)?,
                }
            }
        };
        region.fill_zero(b.base, region.size());
        region.write_bytes(b.base, &b.data);
    }
    let prog = Program::from_image(img).map_err(ImageRunError::Program)?;
    let params = LaunchParams {
        num_groups: img.num_groups,
        warps_per_group: img.warps_per_group,
        threads_per_warp: img.threads_per_warp,
        metadata_addr: img.metadata_base,
        pds_base: img.pds_base,
        private_bytes_per_thread: img.pds_size,
        start_pc: img.start_pc,
        work_items: None,
        lds_map: crate::emulator::LdsMap::WHOLE,
        extents: None,
        reg_bounds: None,
    };
    Ok((prog, params))
}
