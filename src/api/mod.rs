//! The C boundary: the only `extern "C"` code. Every application pointer is converted here
//! ([`ptr`]), every spec error clause is checked here, and every entry point runs inside
//! [`status`]/[`object()`], which turn `CLResult`s into return codes and catch panics so that none
//! crosses `extern "C"`.
//!
//! One file per spec chapter; [`icd_table`] lists every entry point in the ICD dispatch order.

// Entry points are the FFI trust boundary: raw pointers from the application are dereferenced
// only through the checked helpers in `ptr` (each with its SAFETY contract).
#![allow(clippy::not_unsafe_ptr_arg_deref, clippy::missing_safety_doc, non_snake_case)]

pub mod command_buffer;
pub mod context;
pub mod device;
pub mod event;
pub mod icd_table;
pub mod image;
pub mod info;
pub mod kernel;
pub mod launch;
pub mod memory;
pub mod pipes;
pub mod platform;
pub mod program;
pub mod ptr;
pub mod queue;
pub mod sampler;
pub mod svm;
pub mod transfer;
pub mod unsupported;

use crate::cl::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// Registers the dispatch table (idempotent, cheap after the first call).
pub(crate) fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        crate::cl::object::set_dispatch(&icd_table::DISPATCH as *const cl_icd_dispatch as *const std::ffi::c_void);
        let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).try_init();
        crate::util::env::check_environment();
    });
}

/// Runs an entry point returning `cl_int`.
pub(crate) fn status(f: impl FnOnce() -> CLResult<()>) -> cl_int {
    init();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => {
            log::error!("internal error: an entry point panicked");
            CL_OUT_OF_HOST_MEMORY
        }
    }
}

/// A C value that can be returned on failure (a NULL handle or pointer).
pub(crate) trait Null {
    fn null() -> Self;
}
impl<T> Null for *mut T {
    fn null() -> Self {
        std::ptr::null_mut()
    }
}

/// Runs an entry point returning a handle/pointer and reporting through `errcode_ret`.
pub(crate) fn object<H: Null>(errcode_ret: *mut cl_int, f: impl FnOnce() -> CLResult<H>) -> H {
    init();
    let (h, code) = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(h)) => (h, CL_SUCCESS),
        Ok(Err(e)) => (H::null(), e),
        Err(_) => {
            log::error!("internal error: an entry point panicked");
            (H::null(), CL_OUT_OF_HOST_MEMORY)
        }
    };
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { ptr::write_opt(errcode_ret, code) };
    h
}

/// Returns `err` unless `cond` holds (the usual shape of a spec error clause).
#[inline]
pub(crate) fn check(cond: bool, err: cl_int) -> CLResult<()> {
    if cond {
        Ok(())
    } else {
        Err(err)
    }
}
