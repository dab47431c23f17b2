//! Context entry points (OpenCL 3.0 §4.4).

use super::{check, info, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::context::{Context, Notify, PrintfConfig};
use crate::core::device::Device;
use crate::core::platform::{self, Platform};
use std::ffi::{c_char, c_void, CString};

/// C context callback.
pub type ContextNotify = unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);

/// Wraps the application's `pfn_notify` + `user_data` into a Rust closure.
fn wrap_notify(pfn: Option<ContextNotify>, user_data: *mut c_void) -> Option<Notify> {
    let f = pfn?;
    let user = user_data as usize;
    Some(Box::new(move |msg: &str| {
        let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
        // SAFETY: calling the application's callback with the documented arguments: a
        // NUL-terminated message valid for the call, no private info, and its own user_data.
        unsafe { f(c.as_ptr(), std::ptr::null(), 0, user as *mut c_void) };
    }))
}

/// `cl_arm_printf`: `CL_PRINTF_CALLBACK_ARM(buffer, length, final, user_data)`.
const CL_PRINTF_CALLBACK_ARM: cl_context_properties = 0x40B0;
const CL_PRINTF_BUFFERSIZE_ARM: cl_context_properties = 0x40B1;
type PrintfCallback = unsafe extern "C" fn(*const std::ffi::c_char, usize, usize, *mut c_void);

/// The `cl_arm_printf` properties (already validated). The callback receives the context's
/// `user_data`, as the extension specifies.
fn printf_config(props: &[cl_context_properties], user_data: *mut c_void) -> PrintfConfig {
    let mut config = PrintfConfig::default();
    let user = user_data as usize;
    for pair in props.chunks_exact(2) {
        match pair[0] {
            CL_PRINTF_CALLBACK_ARM => {
                // SAFETY: the application passed a function pointer of the extension's signature
                // as this property's value (validated non-null).
                let f: PrintfCallback = unsafe { std::mem::transmute::<usize, PrintfCallback>(pair[1] as usize) };
                config.sink = Some(Box::new(move |text: &[u8]| {
                    let mut buf = text.to_vec();
                    buf.push(0);
                    // SAFETY: the extension's contract: a buffer of `length` bytes valid for the
                    // call (we also NUL-terminate it), `final` = 0, and the context's user_data.
                    unsafe { f(buf.as_ptr().cast(), text.len(), 0, user as *mut c_void) };
                }));
            }
            CL_PRINTF_BUFFERSIZE_ARM => config.buffer_size = Some(pair[1] as u32),
            _ => {}
        }
    }
    config
}

/// Reads a zero-terminated list of name/value pairs (context, queue properties), where a value may
/// be 0 (unlike [`ptr::property_list`], which stops at the first 0). NULL gives an empty list; the
/// result includes the terminating 0. At most 512 pairs.
pub(crate) fn property_pairs<T: Copy + PartialEq + Default>(p: *const T) -> CLResult<Vec<T>> {
    let mut out = Vec::new();
    if p.is_null() {
        return Ok(out);
    }
    for i in 0..512 {
        // SAFETY: the OpenCL contract: a property list is readable up to and including its
        // terminating 0, which stands where a name would; every name before it has a value.
        let name = unsafe { p.add(2 * i).read_unaligned() };
        out.push(name);
        if name == T::default() {
            return Ok(out);
        }
        // SAFETY: as above — `name` is not the terminator, so its value follows.
        out.push(unsafe { p.add(2 * i + 1).read_unaligned() });
    }
    Err(CL_INVALID_PROPERTY)
}

/// Validates context properties: known names, each at most once, a valid platform.
fn check_properties(props: &[cl_context_properties]) -> CLResult<()> {
    let mut seen = Vec::new();
    let mut i = 0;
    while i < props.len() && props[i] != 0 {
        let name = props[i];
        check(i + 1 < props.len(), CL_INVALID_PROPERTY)?;
        let value = props[i + 1];
        check(!seen.contains(&name), CL_INVALID_PROPERTY)?;
        seen.push(name);
        match name {
            CL_CONTEXT_PLATFORM => {
                Obj::<Platform>::get(value as cl_platform_id).map_err(|_| CL_INVALID_PLATFORM)?;
            }
            // A cl_bool: any other value is not valid for this supported property.
            CL_CONTEXT_INTEROP_USER_SYNC | CL_CONTEXT_MEMCHECK_VENTUS => {
                check(value == CL_TRUE as cl_context_properties || value == 0, CL_INVALID_PROPERTY)?
            }
            // Seconds as a cl_uint (0 = no limit).
            CL_CONTEXT_WATCHDOG_SECONDS_VENTUS => check(u32::try_from(value).is_ok(), CL_INVALID_PROPERTY)?,
            CL_PRINTF_CALLBACK_ARM if value != 0 => {}
            CL_PRINTF_BUFFERSIZE_ARM if value > 0 && value <= (256 << 20) => {}
            CL_PRINTF_CALLBACK_ARM | CL_PRINTF_BUFFERSIZE_ARM => return Err(CL_INVALID_VALUE),
            _ => return Err(CL_INVALID_PROPERTY),
        }
        i += 2;
    }
    Ok(())
}

fn create(
    props: *const cl_context_properties,
    devices: Vec<Ref<Device>>,
    pfn: Option<ContextNotify>,
    user_data: *mut c_void,
) -> CLResult<cl_context> {
    check(pfn.is_some() || user_data.is_null(), CL_INVALID_VALUE)?;
    let props = property_pairs(props)?;
    check_properties(&props)?;
    let printf = printf_config(&props, user_data);
    // A context holds an application reference to each of its sub-devices until the
    // application releases the context, so the handles `CL_CONTEXT_DEVICES` returns stay valid
    // after the application releases its own (root devices are not counted).
    for d in devices.iter().filter(|d| !d.is_root()) {
        Obj::<Device>::retain(d.handle())?;
    }
    let ctx = Obj::new(Context::new(devices, props, wrap_notify(pfn, user_data)));
    ctx.set_printf(printf);
    Ok(ctx.handle())
}

pub extern "C" fn clCreateContext(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    object(errcode_ret, || {
        check(num_devices != 0 && !devices.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let listed = unsafe { ptr::handles::<Device>(devices, num_devices as usize, CL_INVALID_VALUE) }?;
        // "Duplicate devices specified in devices are ignored."
        let mut devs: Vec<Ref<Device>> = Vec::with_capacity(listed.len());
        for d in listed {
            if !devs.iter().any(|x| std::sync::Arc::ptr_eq(x, &d)) {
                devs.push(d);
            }
        }
        create(properties, devs, pfn_notify, user_data)
    })
}

pub extern "C" fn clCreateContextFromType(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: Option<ContextNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    object(errcode_ret, || {
        let ok = super::device::device_type_matches(device_type)?;
        check(ok, CL_DEVICE_NOT_FOUND)?;
        create(properties, vec![platform::device().clone()], pfn_notify, user_data)
    })
}

pub extern "C" fn clRetainContext(context: cl_context) -> cl_int {
    status(|| Obj::<Context>::retain(context))
}

pub extern "C" fn clReleaseContext(context: cl_context) -> cl_int {
    status(|| {
        if let Some(ctx) = Obj::<Context>::release(context)? {
            for d in ctx.devices.iter().filter(|d| !d.is_root()) {
                // Err only if the application released the device more often than it retained
                // it: nothing is left to release then.
                let _ = Obj::<Device>::release(d.handle());
            }
        }
        Ok(())
    })
}

pub extern "C" fn clGetContextInfo(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let c = Obj::<Context>::get(context)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_CONTEXT_REFERENCE_COUNT => info::write(&c.api_ref_count(), s, v, r),
            CL_CONTEXT_NUM_DEVICES => info::write(&(c.devices.len() as cl_uint), s, v, r),
            CL_CONTEXT_DEVICES => info::write(&info::Ptrs(c.devices.iter().map(|d| d.handle()).collect()), s, v, r),
            CL_CONTEXT_PROPERTIES => info::write(&c.properties, s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clSetContextDestructorCallback(
    context: cl_context,
    pfn_notify: Option<unsafe extern "C" fn(cl_context, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let c = Obj::<Context>::get(context)?;
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        let (handle, user) = (context as usize, user_data as usize);
        c.add_destructor(Box::new(move || {
            // SAFETY: the application's destructor callback, called once with the (now destroyed)
            // context handle and its user_data, as the spec describes.
            unsafe { f(handle as cl_context, user as *mut c_void) }
        }));
        Ok(())
    })
}
