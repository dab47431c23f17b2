//! OpenCL vocabulary shared by `api` and `core`: the C types and constants (from `opencl-sys`),
//! the result type, and the ICD object header with its handle registry ([`object`]).

pub mod object;

pub use opencl_sys::cl_d3d10::*;
pub use opencl_sys::cl_d3d11::*;
pub use opencl_sys::cl_dx9_media_sharing::*;
pub use opencl_sys::cl_egl::*;
pub use opencl_sys::cl_icd::cl_icd_dispatch;
pub use opencl_sys::*;

/// `clGetEventInfo` query of the Ventus vendor extension (`include/CL/cl_ventus.h`): the
/// statistics of a completed kernel launch, a `cl_ventus_launch_stats` (twelve `cl_ulong`s).
pub const CL_EVENT_STATISTICS_VENTUS: cl_event_info = 0x7F10;
/// Context property of the Ventus vendor extension: a `cl_bool`; `CL_TRUE` runs every kernel
/// of the context under the memory checker (as `VENTUS_MEMCHECK=1` does for every context).
pub const CL_CONTEXT_MEMCHECK_VENTUS: cl_context_properties = 0x7F11;
/// Context property of the Ventus vendor extension: the host CPU seconds one work-group of the
/// context's launches may use (0 = no limit), overriding `VENTUS_WATCHDOG_SECONDS`.
pub const CL_CONTEXT_WATCHDOG_SECONDS_VENTUS: cl_context_properties = 0x7F12;

/// Result of an OpenCL operation: the error is the spec's error code (a negative `cl_int`).
pub type CLResult<T> = Result<T, cl_int>;

/// Nanoseconds on a monotonic clock shared by every timestamp the driver reports
/// (profiling, `clGetHostTimer`).
pub fn now_ns() -> u64 {
    use once_cell::sync::Lazy;
    use std::time::Instant;
    static START: Lazy<Instant> = Lazy::new(Instant::now);
    // Offset so that timestamps are never 0 (0 reads as "unset" in some applications).
    START.elapsed().as_nanos() as u64 + 1_000
}
