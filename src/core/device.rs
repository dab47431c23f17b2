//! The Ventus device as an OpenCL object: the limits it reports (from the device layer's
//! [`crate::device::Limits`]: `NUM_THREAD`/`NUM_WARP`/`VENTUS_*`) and its device memory.
//!
//! A device's compute units are host threads: the root device has the emulator's
//! (`VENTUS_THREADS`, `0..host_threads`), a sub-device ([`super::partition`]) a contiguous
//! share `first_thread..first_thread + host_threads` of its parent's, and its launches run on
//! that many threads of their own ([`Device::launch_threads`]). Every device of the platform
//! shares the root's memory.

use crate::cl::cl_device_partition_property;
use crate::cl::object::Ref;
use crate::device::Memory;
use std::sync::Arc;

/// Device limits and identity.
pub struct Device {
    /// Lanes per warp (`CSR_NUMT`).
    pub threads_per_warp: u32,
    /// Warps per work-group at most.
    pub max_warps: u32,
    /// The host threads this device's launches run on (`CL_DEVICE_MAX_COMPUTE_UNITS`).
    pub host_threads: usize,
    /// The index of the first of them among the root device's threads (0 for the root).
    pub first_thread: usize,
    /// `CL_DEVICE_PRINTF_BUFFER_SIZE` (`VENTUS_PRINTF_BUFFER_SIZE`).
    pub printf_buffer_size: u32,
    /// The device's global memory: the root's, shared by every sub-device.
    pub memory: Arc<Memory>,
    /// For a sub-device: its parent and how it was made; `None` for the root device.
    pub partition: Option<SubDevice>,
}

/// What makes a device a sub-device.
pub struct SubDevice {
    /// `CL_DEVICE_PARENT_DEVICE`.
    pub parent: Ref<Device>,
    /// `CL_DEVICE_PARTITION_TYPE`: the `properties` of `clCreateSubDevices` up to their first
    /// 0 (the terminator, or `CL_DEVICE_PARTITION_BY_COUNTS_LIST_END`), included.
    pub properties: Vec<cl_device_partition_property>,
}

pub const NAME: &str = "Ventus GPGPU device";
pub const VENDOR: &str = "THU-DSP-LAB Ventus (emulated by ventus-icd)";
pub const VENDOR_ID: u32 = 0x10002; // Khronos-assigned vendor ids are for hardware; use a private one.
/// `CL_DEVICE_VERSION`; [`OPENCL_VERSION`] is the same version as a number.
pub const DEVICE_VERSION: &str = "OpenCL 3.0 Ventus";
/// The device's OpenCL version × 100 (`__OPENCL_VERSION__` in every kernel).
pub const OPENCL_VERSION: u32 = 300;
pub const OPENCL_C_VERSION: &str = "OpenCL C 1.2 ventus-icd";
pub const DRIVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Device extensions.
pub const EXTENSIONS: &[&str] = &[
    "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_il_program",
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_3d_image_writes",
    "cl_khr_image2d_from_buffer",
    "cl_khr_depth_images",
    "cl_khr_command_buffer",
    "cl_khr_subgroups",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_clustered_reduce",
    "cl_arm_printf",
];
/// OpenCL C 3.0 optional features (`CL_DEVICE_OPENCL_C_FEATURES`; also what clang is told).
pub const OPENCL_C_FEATURES: &[&str] = &[
    "__opencl_c_int64",
    "__opencl_c_fp64",
    "__opencl_c_fp16",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_images",
    "__opencl_c_read_write_images",
    "__opencl_c_3d_image_writes",
    "__opencl_c_generic_address_space",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_subgroups",
];
/// Global memory reported (the heap is 0x9000_0000..0xffff_ffff: 1.75 GiB of address space).
pub const GLOBAL_MEM_SIZE: u64 = 1 << 30;
pub const MAX_MEM_ALLOC_SIZE: u64 = 256 << 20;
/// `__local` memory per work-group.
pub const LOCAL_MEM_SIZE: u64 = 64 << 10;
pub const MAX_CONSTANT_BUFFER_SIZE: u64 = crate::abi::MAX_CONSTANT_BYTES as u64;
pub const MAX_CONSTANT_ARGS: u32 = 8;
/// `CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE` (the compiler rejects a larger program-scope variable).
pub const MAX_GLOBAL_VARIABLE_SIZE: usize = crate::abi::globals::MAX_VARIABLE_SIZE as usize;
/// `CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE`: a program's variables live in one device
/// allocation of any size up to `MAX_MEM_ALLOC_SIZE` at no extra cost; 1 MiB is a modest hint.
pub const GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: usize = 1 << 20;
pub const MAX_PARAMETER_SIZE: usize = 1024;
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;
/// Image limits (`CL_DEVICE_IMAGE*`): the OpenCL 3.0 minimums for a device with images, a 1D
/// buffer image of up to 2^20 pixels; an image must also fit `MAX_MEM_ALLOC_SIZE`.
pub const IMAGE2D_MAX_WIDTH: usize = 16384;
pub const IMAGE2D_MAX_HEIGHT: usize = 16384;
pub const IMAGE3D_MAX_WIDTH: usize = 2048;
pub const IMAGE3D_MAX_HEIGHT: usize = 2048;
pub const IMAGE3D_MAX_DEPTH: usize = 2048;
pub const IMAGE_MAX_BUFFER_SIZE: usize = 1 << 20;
pub const IMAGE_MAX_ARRAY_SIZE: usize = 2048;
/// Image arguments per kernel (`CL_DEVICE_MAX_{READ,WRITE,READ_WRITE}_IMAGE_ARGS`) and samplers
/// (`CL_DEVICE_MAX_SAMPLERS`).
pub const MAX_READ_IMAGE_ARGS: u32 = 128;
pub const MAX_WRITE_IMAGE_ARGS: u32 = 64;
pub const MAX_READ_WRITE_IMAGE_ARGS: u32 = 64;
pub const MAX_SAMPLERS: u32 = 16;
/// `CL_DEVICE_IMAGE_PITCH_ALIGNMENT` / `_BASE_ADDRESS_ALIGNMENT` in pixels (2D images from
/// buffers: any row pitch that is a whole number of pixels).
pub const IMAGE_PITCH_ALIGNMENT: u32 = 1;
pub const IMAGE_BASE_ADDRESS_ALIGNMENT: u32 = 1;
/// `CL_DEVICE_ADDRESS_BITS`: kernels are compiled for 64-bit pointers and `size_t` (`spir64`),
/// as the host's, so that SVM structures holding pointers have one layout on both sides;
/// addresses themselves are 32-bit (a pointer's upper half is 0, see `compiler::spirv::types`).
pub const ADDRESS_BITS: u32 = 64;

impl Device {
    pub fn new() -> Device {
        let c = crate::device::limits();
        Device {
            threads_per_warp: c.threads_per_warp,
            max_warps: c.warps_per_group,
            host_threads: c.host_threads.max(1),
            first_thread: 0,
            printf_buffer_size: c.printf_buffer_size,
            memory: Arc::new(Memory::new()),
            partition: None,
        }
    }

    /// A sub-device of `parent` over `count` of its threads starting at its `offset`-th.
    pub fn sub_device(
        parent: &Ref<Device>,
        offset: usize,
        count: usize,
        properties: Vec<cl_device_partition_property>,
    ) -> Device {
        Device {
            threads_per_warp: parent.threads_per_warp,
            max_warps: parent.max_warps,
            host_threads: count,
            first_thread: parent.first_thread + offset,
            printf_buffer_size: parent.printf_buffer_size,
            memory: parent.memory.clone(),
            partition: Some(SubDevice { parent: parent.clone(), properties }),
        }
    }

    /// Whether this device is one of `devices` or a sub-device (at any depth) of one of them.
    ///
    /// Where the spec asks for "a device associated with" a context, program or kernel, this is
    /// the test: a sub-device runs the same code on the same memory as its parent, so a queue
    /// on it may serve a context made for the parent, and its parent's program executables and
    /// kernel queries apply (pocl behaves alike, and programs such as pocl's EinsteinToolkit
    /// rely on it). A deliberate leniency: the spec lists only the context's own devices.
    pub fn covered_by(&self, devices: &[Ref<Device>]) -> bool {
        let mut d = self;
        loop {
            if devices.iter().any(|x| std::ptr::eq(&***x, d)) {
                return true;
            }
            match &d.partition {
                Some(s) => d = &s.parent,
                None => return false,
            }
        }
    }

    /// Whether this is a root device (one `clGetDeviceIDs` returns).
    pub fn is_root(&self) -> bool {
        self.partition.is_none()
    }

    /// The host threads a launch asking for `requested` (0 = as many as the device has) runs
    /// on, and the index of the first: never more than the device's share.
    pub fn launch_threads(&self, requested: usize) -> (usize, usize) {
        let n = if requested == 0 { self.host_threads } else { requested.min(self.host_threads) };
        (n.max(1), self.first_thread)
    }

    /// `CL_DEVICE_MAX_WORK_GROUP_SIZE`: warps × lanes.
    pub fn max_work_group_size(&self) -> usize {
        (self.threads_per_warp * self.max_warps) as usize
    }

    /// `CL_DEVICE_MAX_COMPUTE_UNITS`: the host threads that run work-groups concurrently.
    pub fn compute_units(&self) -> u32 {
        self.host_threads.max(1) as u32
    }
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}
