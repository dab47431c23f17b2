//! The contract between generated code and the machine: memory map, binary container (Ventus ELF),
//! official launch images, kernel metadata and launch parameters.
//!
//! Everything here is plain data; the emulator and (later) the compiler and driver meet only here and
//! in [`crate::isa`].

pub mod bytes;
pub mod crt0;
pub mod elf;
pub mod elf_writer;
pub mod globals;
pub mod image;
pub mod image_desc;
pub mod kernel_info;
pub mod launch;
pub mod lines;
pub mod mem_class;
pub mod printf;
pub mod subroutine;

/// Start of the per-work-group local-memory (LDS) window; `CSR_LDS` reads this value.
pub const LDS_BASE: u32 = 0x7000_0000;
/// Size of the LDS window (256 MiB, sparse).
pub const LDS_SIZE: u32 = 0x1000_0000;
/// Program window: kernels are linked here and every warp starts here (crt0 `_start`).
pub const PROGRAM_BASE: u32 = 0x8000_0000;
/// Size of the program window.
pub const PROGRAM_SIZE: u32 = 0x1000_0000;
/// First address of the global heap (device buffers).
pub const HEAP_BASE: u32 = 0x9000_0000;
/// Allocation granularity of the heap (official bump allocator rounds to 4 KiB).
pub const PAGE_SIZE: u32 = 0x1000;
pub use subroutine::{LABEL_PREFIX as SUBROUTINE_LABEL_PREFIX, UNIFORM_SUFFIX};
/// Bytes of uniform (sGPR) stack per warp in crt0 variants C/D: `sp = LDS + wid * 1024`.
pub const WARP_STACK_BYTES: u32 = 1024;
/// Bytes of uniform stack per warp that our crt0 gives the kernels we compile (they spill
/// uniform values there); the official crt0's [`WARP_STACK_BYTES`] is what the metadata buffer
/// reports, for official binaries.
pub const COMPILED_WARP_STACK_BYTES: u32 = 32 * 1024;
/// Private bytes per thread reserved by the official driver (`pdsSize`).
pub const PRIVATE_BYTES_PER_THREAD: u32 = 0x1000;
/// Largest private memory per work-item our compiler may use (IR frame plus vector spill
/// slots); launches of such kernels get that much instead of [`PRIVATE_BYTES_PER_THREAD`].
pub const MAX_PRIVATE_BYTES_PER_ITEM: u32 = 64 * 1024;
/// Largest constant data (`CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE`): a `__constant` buffer
/// argument, and a program's program-scope `__constant` data (a build error beyond it).
pub const MAX_CONSTANT_BYTES: u32 = 64 * 1024;
/// Cap on the private-memory block (official pocl).
pub const PRIVATE_CAP: u32 = 0x1000_0000;
