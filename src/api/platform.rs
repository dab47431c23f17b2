//! Platform entry points (OpenCL 3.0 §4.1) and the ICD loader's entry points.

use super::{check, info, ptr, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::platform::{self as plat, Platform};
use std::ffi::{c_char, c_void};

fn platform_ids(num_entries: cl_uint, platforms: *mut cl_platform_id, num_platforms: *mut cl_uint) -> CLResult<()> {
    // Every application starts here (through the loader): arrange the VENTUS_STATS=1 summary.
    stats_at_exit();
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL or if both
    // num_platforms and platforms are NULL."
    check(num_entries != 0 || platforms.is_null(), CL_INVALID_VALUE)?;
    check(!(num_platforms.is_null() && platforms.is_null()), CL_INVALID_VALUE)?;
    if !platforms.is_null() {
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(platforms, plat::platform().handle()) };
    }
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { ptr::write_opt(num_platforms, 1) };
    Ok(())
}

/// With `VENTUS_STATS=1`, registers (once) the process-exit hook that prints each kernel's
/// summed launch statistics ([`crate::core::stats`]).
fn stats_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if crate::core::stats::enabled() {
        ONCE.call_once(|| {
            // SAFETY: `print_stats` is an `extern "C" fn()` that never unwinds (it catches
            // panics); registering it has no other precondition.
            unsafe { libc::atexit(print_stats) };
        });
    }
}

extern "C" fn print_stats() {
    let _ = std::panic::catch_unwind(crate::core::stats::print_all);
}

/// The loader's entry point (`cl_khr_icd`).
#[no_mangle]
pub extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    status(|| platform_ids(num_entries, platforms, num_platforms))
}

pub extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    status(|| platform_ids(num_entries, platforms, num_platforms))
}

/// Resolves a platform argument (NULL selects ours, as an implementation-defined choice).
pub(crate) fn platform_arg(p: cl_platform_id) -> CLResult<()> {
    if p.is_null() {
        return Ok(());
    }
    Obj::<Platform>::get(p).map(|_| ())
}

#[no_mangle]
pub extern "C" fn clGetPlatformInfo(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    status(|| {
        platform_arg(platform)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_PLATFORM_PROFILE => info::write(plat::PROFILE, s, v, r),
            CL_PLATFORM_VERSION => info::write(plat::VERSION, s, v, r),
            CL_PLATFORM_NUMERIC_VERSION => info::write(&CL_MAKE_VERSION(3, 0, 0), s, v, r),
            CL_PLATFORM_NAME => info::write(plat::NAME, s, v, r),
            CL_PLATFORM_VENDOR => info::write(plat::VENDOR, s, v, r),
            CL_PLATFORM_EXTENSIONS => info::write(&plat::EXTENSIONS.join(" "), s, v, r),
            CL_PLATFORM_EXTENSIONS_WITH_VERSION => info::write_bytes(&name_versions(plat::EXTENSIONS), s, v, r),
            CL_PLATFORM_HOST_TIMER_RESOLUTION => info::write(&1u64, s, v, r),
            CL_PLATFORM_ICD_SUFFIX_KHR => info::write(plat::ICD_SUFFIX, s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

#[allow(non_snake_case)]
pub(crate) const fn CL_MAKE_VERSION(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << 22) | (minor << 12) | patch
}

/// `cl_name_version` array for extension lists (all version 1.0.0).
pub(crate) fn name_versions(names: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for n in names {
        // Provisional extensions carry their own version.
        let version = match *n {
            "cl_khr_command_buffer" => CL_MAKE_VERSION(0, 9, 8),
            _ => CL_MAKE_VERSION(1, 0, 0),
        };
        out.extend_from_slice(&version.to_ne_bytes());
        let mut name = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
        let b = n.as_bytes();
        name[..b.len().min(CL_NAME_VERSION_MAX_NAME_SIZE - 1)]
            .copy_from_slice(&b[..b.len().min(CL_NAME_VERSION_MAX_NAME_SIZE - 1)]);
        out.extend_from_slice(&name);
    }
    out
}

pub extern "C" fn clUnloadCompiler() -> cl_int {
    CL_SUCCESS
}

pub extern "C" fn clUnloadPlatformCompiler(platform: cl_platform_id) -> cl_int {
    status(|| platform_arg(platform).and_then(|_| check(!platform.is_null(), CL_INVALID_PLATFORM)))
}

/// Extension functions we serve by name.
fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clIcdGetPlatformIDsKHR" => clIcdGetPlatformIDsKHR as *mut c_void,
        "clCreateProgramWithILKHR" => super::program::clCreateProgramWithIL as *mut c_void,
        _ => super::command_buffer::function(name).unwrap_or(std::ptr::null_mut()),
    }
}

#[no_mangle]
pub extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    super::init();
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    match unsafe { ptr::c_string(func_name, CL_INVALID_VALUE) } {
        Ok(n) => extension_function(&n),
        Err(_) => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    super::init();
    if Obj::<Platform>::get(platform).is_err() {
        return std::ptr::null_mut();
    }
    clGetExtensionFunctionAddress(func_name)
}

pub extern "C" fn clGetHostTimer(device: cl_device_id, host_timestamp: *mut cl_ulong) -> cl_int {
    status(|| {
        Obj::<crate::core::device::Device>::get(device)?;
        check(!host_timestamp.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(host_timestamp, now_ns()) };
        Ok(())
    })
}
