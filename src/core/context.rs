//! Contexts: a set of devices (the root device and/or sub-devices of it), the properties they
//! were created with, the application's error callback and destructor callbacks.

use super::device::Device;
use crate::cl::object::Ref;
use crate::cl::*;
use parking_lot::Mutex;

/// Reports an error message to the application (the context's `pfn_notify`).
pub type Notify = Box<dyn Fn(&str) + Send + Sync>;

pub struct Context {
    pub devices: Vec<Ref<Device>>,
    /// The properties as given (terminated by 0), for `CL_CONTEXT_PROPERTIES`.
    pub properties: Vec<cl_context_properties>,
    notify: Option<Notify>,
    destructors: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
    printf: once_cell::sync::OnceCell<PrintfConfig>,
    /// Its shared virtual memory (`clSVMAlloc`).
    pub svm: super::svm::SvmAllocations,
}

/// Receives kernel printf output (`cl_arm_printf`'s `CL_PRINTF_CALLBACK_ARM`).
pub type PrintfSink = Box<dyn Fn(&[u8]) + Send + Sync>;

/// The context's `cl_arm_printf` properties.
#[derive(Default)]
pub struct PrintfConfig {
    pub sink: Option<PrintfSink>,
    /// `CL_PRINTF_BUFFERSIZE_ARM`: overrides the device's print-buffer size.
    pub buffer_size: Option<u32>,
}

impl Context {
    pub fn new(devices: Vec<Ref<Device>>, properties: Vec<cl_context_properties>, notify: Option<Notify>) -> Context {
        Context {
            devices,
            properties,
            notify,
            destructors: Mutex::new(Vec::new()),
            printf: Default::default(),
            svm: Default::default(),
        }
    }

    /// Whether kernels of this context run under the memory checker
    /// (`CL_CONTEXT_MEMCHECK_VENTUS`; `VENTUS_MEMCHECK=1` turns it on for every context).
    pub fn memcheck(&self) -> bool {
        self.properties.chunks(2).any(|p| p[0] == CL_CONTEXT_MEMCHECK_VENTUS && p.get(1).is_some_and(|&v| v != 0))
    }

    /// The context's per-work-group CPU-time budget in seconds (`CL_CONTEXT_WATCHDOG_SECONDS_VENTUS`,
    /// 0 = none), when it sets one; otherwise `VENTUS_WATCHDOG_SECONDS` applies.
    pub fn watchdog_seconds(&self) -> Option<u32> {
        self.properties
            .chunks(2)
            .find(|p| p[0] == CL_CONTEXT_WATCHDOG_SECONDS_VENTUS)
            .and_then(|p| p.get(1))
            .and_then(|&v| u32::try_from(v).ok())
    }

    /// Sets the `cl_arm_printf` configuration (once, at creation).
    pub fn set_printf(&self, config: PrintfConfig) {
        let _ = self.printf.set(config);
    }

    /// Passes printf output to the context's callback; false when there is none.
    pub fn printf_callback(&self, text: &[u8]) -> bool {
        match self.printf.get().and_then(|c| c.sink.as_ref()) {
            Some(f) => {
                f(text);
                true
            }
            None => false,
        }
    }

    /// The print-buffer size for launches in this context.
    pub fn printf_buffer_size(&self, device_default: u32) -> u32 {
        self.printf.get().and_then(|c| c.buffer_size).unwrap_or(device_default)
    }

    /// Sends an error message to the application's callback (if any) and the log.
    pub fn report(&self, message: &str) {
        log::error!("{message}");
        if let Some(n) = &self.notify {
            n(message);
        }
    }

    /// `clSetContextDestructorCallback`: runs when the context is destroyed (last reference gone),
    /// most recently registered first.
    pub fn add_destructor(&self, f: Box<dyn FnOnce() + Send>) {
        self.destructors.lock().push(f);
    }

    /// Whether `d` may be used with this context ([`Device::covered_by`]: one of its devices
    /// or a sub-device of one).
    pub fn has_device(&self, d: &Ref<Device>) -> bool {
        d.covered_by(&self.devices)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let callbacks = std::mem::take(&mut *self.destructors.lock());
        for f in callbacks.into_iter().rev() {
            f();
        }
    }
}
