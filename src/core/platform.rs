//! The single platform and its single device (created on first use).

use super::device::Device;
use crate::cl::object::{Obj, Ref};
use once_cell::sync::Lazy;

/// The ventus-icd platform.
pub struct Platform {
    pub devices: Vec<Ref<Device>>,
}

pub const NAME: &str = "Ventus";
pub const VENDOR: &str = "ventus-icd project";
pub const VERSION: &str = concat!("OpenCL 3.0 ventus-icd ", env!("CARGO_PKG_VERSION"));
pub const PROFILE: &str = "FULL_PROFILE";
/// ICD suffix for `CL_PLATFORM_ICD_SUFFIX_KHR`.
pub const ICD_SUFFIX: &str = "VENTUS";
/// Platform extensions (every device supports them).
pub const EXTENSIONS: &[&str] = &["cl_khr_icd"];

static PLATFORM: Lazy<Ref<Platform>> = Lazy::new(|| Obj::new(Platform { devices: vec![Obj::new(Device::new())] }));

/// The platform singleton (never released).
pub fn platform() -> &'static Ref<Platform> {
    &PLATFORM
}

/// The device singleton.
pub fn device() -> &'static Ref<Device> {
    &platform().devices[0]
}
