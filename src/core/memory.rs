//! Memory objects (buffers and sub-buffers). Skeleton: the interface other modules rely on.

use super::context::Context;
use crate::cl::object::Ref;
use crate::cl::*;
use crate::emulator::Region;
use std::sync::Arc;

pub struct Mem {
    pub context: Ref<Context>,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// Offset inside `region` (non-zero for sub-buffers).
    pub offset: usize,
    pub parent: Option<Ref<Mem>>,
    pub region: Arc<Region>,
}

impl Mem {
    /// The device address of the first byte (what a kernel receives for this argument).
    pub fn device_address(&self) -> u32 {
        self.region.base() + self.offset as u32
    }

    /// Called after a command may have written the buffer on the device (kernel, copy, fill):
    /// makes `CL_MEM_USE_HOST_PTR` host memory reflect the device contents.
    pub fn after_device_write(&self) {}
}
