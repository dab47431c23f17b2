//! Program entry points (OpenCL 3.0 §5.8): creation from source, IL and Ventus ELF binaries,
//! build/compile/link, queries.
//!
//! This layer checks pointers and the spec's error clauses; building, compiling, linking and the
//! binary formats belong to [`crate::core::program`] (see its contract). Decisions (within what
//! the spec allows):
//! * Binaries are Ventus ELF executables, or compiled objects and libraries in our object
//!   container; `clBuildProgram` of an executable binary always succeeds (after option
//!   validation), of an object or library it links it into an executable.
//! * `clLinkProgram` links compiled objects and libraries (resolving functions exported by one
//!   and imported by another) into an executable, or into a library with `-create-library`; a
//!   single executable passes through; mixing executables and objects, or several executables,
//!   fails with `CL_LINK_PROGRAM_FAILURE` and a log.
//! * Builds are synchronous; the notification callback runs before the call returns.
//! * `clSetProgramReleaseCallback` returns `CL_INVALID_OPERATION`: the device has no program-scope
//!   global variables, so it supports no destructors for them (allowed by §5.8.3).

use super::{check, info, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::program::{BuildOptions, LoadedBinary, OptionsFor, Origin, Program};
use libc::size_t;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// A program notification callback (`pfn_notify` of build, compile and link).
type ProgramNotify = unsafe extern "C" fn(program: cl_program, user_data: *mut c_void);

/// Calls the application's notification callback, if any.
fn notify(pfn: Option<ProgramNotify>, program: cl_program, user_data: *mut c_void) {
    if let Some(f) = pfn {
        // SAFETY: the application's callback, called once with the program and its own user_data
        // as §5.8.4 describes.
        unsafe { f(program, user_data) };
    }
}

/// The devices of a `(num_devices, device_list)` pair where NULL/0 means `default`.
/// "CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
/// device_list is not NULL and num_devices is zero." "CL_INVALID_DEVICE if any device in
/// device_list is not in the list of devices associated with" `allowed`.
fn device_subset(n: cl_uint, list: *const cl_device_id, allowed: &[Ref<Device>]) -> CLResult<Vec<Ref<Device>>> {
    check(list.is_null() == (n == 0), CL_INVALID_VALUE)?;
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let devs = unsafe { ptr::handles::<Device>(list, n as usize, CL_INVALID_VALUE) }?;
    check(devs.iter().all(|d| allowed.iter().any(|a| Arc::ptr_eq(a, d))), CL_INVALID_DEVICE)?;
    Ok(if devs.is_empty() { allowed.to_vec() } else { devs })
}

/// An options string (NULL = empty).
fn options(p: *const c_char) -> CLResult<String> {
    if p.is_null() {
        Ok(String::new())
    } else {
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::c_string(p, CL_INVALID_VALUE) }
    }
}

/// Compiler options of `clBuildProgram`/`clCompileProgram`: the application's, then
/// `VENTUS_BUILD_OPTIONS` ([`crate::core::program::with_extra_options`]).
fn compiler_options(p: *const c_char) -> CLResult<String> {
    Ok(crate::core::program::with_extra_options(options(p)?))
}

pub extern "C" fn clCreateProgramWithSource(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const size_t,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        let ctx = Obj::<Context>::get(context)?;
        // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL."
        check(count != 0, CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let ptrs = unsafe { ptr::slice(strings as *const *const c_char, count as usize, CL_INVALID_VALUE) }?;
        let lens = if lengths.is_null() {
            None
        } else {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            Some(unsafe { ptr::slice(lengths, count as usize, CL_INVALID_VALUE) }?)
        };
        let mut source = Vec::new();
        for (i, &s) in ptrs.iter().enumerate() {
            check(!s.is_null(), CL_INVALID_VALUE)?;
            match lens.map(|l| l[i]).filter(|&n| n > 0) {
                // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
                Some(n) => source.extend_from_slice(unsafe { ptr::slice(s as *const u8, n, CL_INVALID_VALUE) }?),
                // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
                None => source.extend_from_slice(unsafe { ptr::c_string(s, CL_INVALID_VALUE) }?.as_bytes()),
            }
        }
        // "The concatenation strips any nulls in the original source strings."
        source.retain(|&b| b != 0);
        let text = String::from_utf8_lossy(&source).into_owned();
        Ok(Obj::new(Program::from_source(ctx.clone(), ctx.devices.clone(), text)).handle())
    })
}

pub extern "C" fn clCreateProgramWithBinary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const size_t,
    binaries: *mut *const ::core::ffi::c_uchar,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        let ctx = Obj::<Context>::get(context)?;
        // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
        check(num_devices != 0 && !device_list.is_null(), CL_INVALID_VALUE)?;
        let n = num_devices as usize;
        // "CL_INVALID_DEVICE if any device in device_list is not in the list of devices
        // associated with context": a NULL entry names no device of the context, and a device
        // named twice would need two binaries for one device.
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let list = unsafe { ptr::slice(device_list, n, CL_INVALID_VALUE) }?;
        check(list.iter().all(|d| !d.is_null()), CL_INVALID_DEVICE)?;
        let devs = device_subset(num_devices, device_list, &ctx.devices)?;
        check(devs.iter().enumerate().all(|(i, d)| !devs[..i].iter().any(|e| Arc::ptr_eq(d, e))), CL_INVALID_DEVICE)?;
        // "CL_INVALID_VALUE if lengths or binaries is NULL or if any entry in lengths[i] is zero
        // or binaries[i] is NULL."
        check(!lengths.is_null() && !binaries.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let lens = unsafe { ptr::slice(lengths, n, CL_INVALID_VALUE) }?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let bins = unsafe { ptr::slice(binaries as *const *const u8, n, CL_INVALID_VALUE) }?;
        let mut statuses = vec![CL_SUCCESS; n];
        let mut loaded = Vec::new();
        for i in 0..n {
            if lens[i] == 0 || bins[i].is_null() {
                statuses[i] = CL_INVALID_VALUE;
                continue;
            }
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            match LoadedBinary::load(unsafe { ptr::slice(bins[i], lens[i], CL_INVALID_VALUE) }?) {
                Ok(b) => loaded.push(b),
                Err(e) => {
                    log::warn!("clCreateProgramWithBinary: binary {i} rejected: {e}");
                    // "CL_INVALID_BINARY in binary_status[i] if program binary is not a valid
                    // binary for the specified device."
                    statuses[i] = CL_INVALID_BINARY;
                }
            }
        }
        if !binary_status.is_null() {
            for (i, s) in statuses.iter().enumerate() {
                // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
                unsafe { ptr::write_opt(binary_status.wrapping_add(i), *s) };
            }
        }
        check(!statuses.contains(&CL_INVALID_VALUE), CL_INVALID_VALUE)?;
        // "CL_INVALID_BINARY if an invalid program binary was encountered for any device."
        check(!statuses.contains(&CL_INVALID_BINARY), CL_INVALID_BINARY)?;
        // One binary per device, and the devices are distinct: the platform's one device.
        let binary = loaded.swap_remove(0);
        Ok(Obj::new(Program::from_loaded(ctx, devs, binary)).handle())
    })
}

pub extern "C" fn clRetainProgram(program: cl_program) -> cl_int {
    status(|| Obj::<Program>::retain(program))
}

pub extern "C" fn clReleaseProgram(program: cl_program) -> cl_int {
    // The program object itself lives on while kernels (which hold it) exist.
    status(|| Obj::<Program>::release(program).map(|_| ()))
}

pub extern "C" fn clBuildProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options_str: *const c_char,
    pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let p = Obj::<Program>::get(program)?;
        device_subset(num_devices, device_list, &p.devices)?;
        // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
        check(pfn_notify.is_some() || user_data.is_null(), CL_INVALID_VALUE)?;
        // "CL_INVALID_OPERATION if program was not created with clCreateProgramWithSource,
        // clCreateProgramWithIL or clCreateProgramWithBinary."
        check(p.origin != Origin::Linked, CL_INVALID_OPERATION)?;
        let opts = compiler_options(options_str)?;
        // "CL_INVALID_BUILD_OPTIONS if the build options specified by options are invalid."
        let parsed = BuildOptions::parse(&opts, OptionsFor::Build).map_err(|e| {
            p.note_refused_options(&opts, &e);
            CL_INVALID_BUILD_OPTIONS
        })?;
        // "CL_INVALID_OPERATION if there are kernel objects attached to program."
        check(p.kernels_attached() == 0, CL_INVALID_OPERATION)?;
        // "CL_INVALID_OPERATION if the build of a program executable for any of the devices
        // listed in device_list by a previous call to clBuildProgram for program has not
        // completed."
        let ok = p.build(&opts, &parsed).map_err(|_| CL_INVALID_OPERATION)?;
        notify(pfn_notify, program, user_data);
        // "CL_BUILD_PROGRAM_FAILURE if there is a failure to build the program executable."
        check(ok, CL_BUILD_PROGRAM_FAILURE)
    })
}

pub extern "C" fn clCompileProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options_str: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let p = Obj::<Program>::get(program)?;
        device_subset(num_devices, device_list, &p.devices)?;
        // "CL_INVALID_VALUE if num_input_headers is zero and header_include_names or
        // input_headers are not NULL or if num_input_headers is not zero and
        // header_include_names or input_headers are NULL."
        let no_lists = input_headers.is_null() && header_include_names.is_null();
        let both_lists = !input_headers.is_null() && !header_include_names.is_null();
        check(if num_input_headers == 0 { no_lists } else { both_lists }, CL_INVALID_VALUE)?;
        let n = num_input_headers as usize;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::handles::<Program>(input_headers, n, CL_INVALID_VALUE) }?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        for &name in unsafe { ptr::slice(header_include_names as *const *const c_char, n, CL_INVALID_VALUE) }? {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            unsafe { ptr::c_string(name, CL_INVALID_VALUE) }?;
        }
        // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
        check(pfn_notify.is_some() || user_data.is_null(), CL_INVALID_VALUE)?;
        let opts = compiler_options(options_str)?;
        // "CL_INVALID_COMPILER_OPTIONS if the compiler options specified by options are invalid."
        let parsed = BuildOptions::parse(&opts, OptionsFor::Compile).map_err(|e| {
            p.note_refused_options(&opts, &e);
            CL_INVALID_COMPILER_OPTIONS
        })?;
        // "CL_INVALID_OPERATION if there are kernel objects attached to program."
        check(p.kernels_attached() == 0, CL_INVALID_OPERATION)?;
        // "CL_INVALID_OPERATION if program has no source or IL available."
        check(matches!(p.origin, Origin::Source(_) | Origin::Il(_)), CL_INVALID_OPERATION)?;
        // Embedded headers: (include name, source of the header program).
        let mut headers = Vec::new();
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let hprogs = unsafe { ptr::handles::<Program>(input_headers, n, CL_INVALID_VALUE) }?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let hnames = unsafe { ptr::slice(header_include_names as *const *const c_char, n, CL_INVALID_VALUE) }?;
        for (hp, &name) in hprogs.iter().zip(hnames) {
            let Origin::Source(text) = &hp.origin else { return Err(CL_INVALID_OPERATION) };
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            headers.push((unsafe { ptr::c_string(name, CL_INVALID_VALUE) }?, text.clone()));
        }
        // "CL_INVALID_OPERATION if the compilation or build of a program executable for any of
        // the devices listed in device_list by a previous call to clCompileProgram or
        // clBuildProgram for program has not completed."
        let ok = p.compile(&opts, &parsed, &headers).map_err(|_| CL_INVALID_OPERATION)?;
        notify(pfn_notify, program, user_data);
        // "CL_COMPILE_PROGRAM_FAILURE if there is a failure to compile the program source."
        check(ok, CL_COMPILE_PROGRAM_FAILURE)
    })
}

/// `clLinkProgram` without the C boundary: the new program and whether the link succeeded.
#[allow(clippy::too_many_arguments)]
fn link(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options_str: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: Option<ProgramNotify>,
    user_data: *mut c_void,
) -> CLResult<(cl_program, bool)> {
    let ctx = Obj::<Context>::get(context)?;
    check(device_list.is_null() == (num_devices == 0), CL_INVALID_VALUE)?;
    // "CL_INVALID_VALUE if num_input_programs is zero and input_programs is NULL or if
    // num_input_programs is zero and input_programs is not NULL or if num_input_programs is not
    // zero and input_programs is NULL."
    check(num_input_programs != 0 && !input_programs.is_null(), CL_INVALID_VALUE)?;
    // "CL_INVALID_PROGRAM if programs specified in input_programs are not valid program objects."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let inputs = unsafe { ptr::handles::<Program>(input_programs, num_input_programs as usize, CL_INVALID_VALUE) }?;
    // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
    check(pfn_notify.is_some() || user_data.is_null(), CL_INVALID_VALUE)?;
    let devs = device_subset(num_devices, device_list, &ctx.devices)?;
    let opts = options(options_str)?;
    // "CL_INVALID_LINKER_OPTIONS if the linker options specified by options are invalid."
    let parsed = BuildOptions::parse(&opts, OptionsFor::Link).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
    let builds: Vec<_> = inputs.iter().map(|p| p.build_info()).collect();
    // "CL_INVALID_OPERATION if the compilation or build of a program executable ... has not
    // completed."
    check(builds.iter().all(|b| b.status != CL_BUILD_IN_PROGRESS), CL_INVALID_OPERATION)?;
    // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or libraries as
    // described in input_programs argument above are not followed": every input must hold a
    // compiled object or a library (not an executable) and belong to this context.
    check(inputs.iter().all(|p| Arc::ptr_eq(&p.context, &ctx) && p.linkable()), CL_INVALID_OPERATION)?;
    let (linked, ok) = Program::link(ctx, devs, &inputs, opts, &parsed);
    let handle = Obj::new(linked).handle();
    notify(pfn_notify, handle, user_data);
    Ok((handle, ok))
}

pub extern "C" fn clLinkProgram(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options_str: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let mut linked = true;
    let h = object(errcode_ret, || {
        let (h, ok) = link(
            context,
            num_devices,
            device_list,
            options_str,
            num_input_programs,
            input_programs,
            pfn_notify,
            user_data,
        )?;
        linked = ok;
        Ok(h)
    });
    if !linked {
        // "If the linking operation can begin, clLinkProgram returns a valid non-zero program
        // object" with errcode_ret "CL_LINK_PROGRAM_FAILURE if there is a failure to link".
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(errcode_ret, CL_LINK_PROGRAM_FAILURE) };
    }
    h
}

pub extern "C" fn clGetProgramInfo(
    program: cl_program,
    param_name: cl_program_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let p = Obj::<Program>::get(program)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        // "CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS,
        // CL_PROGRAM_KERNEL_NAMES, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, or
        // CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT and a successful program executable has not been
        // built for at least one device in the list of devices associated with program."
        let executable = || p.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE);
        match param_name {
            CL_PROGRAM_REFERENCE_COUNT => info::write(&p.api_ref_count(), s, v, r),
            CL_PROGRAM_CONTEXT => info::write(&info::Ptr(p.context.handle()), s, v, r),
            CL_PROGRAM_NUM_DEVICES => info::write(&(p.devices.len() as cl_uint), s, v, r),
            CL_PROGRAM_DEVICES => info::write(&info::Ptrs(p.devices.iter().map(|d| d.handle()).collect()), s, v, r),
            CL_PROGRAM_SOURCE => match &p.origin {
                Origin::Source(text) => info::write(text, s, v, r),
                _ => info::write("", s, v, r),
            },
            // Not created with IL: "the memory pointed to by param_value will be unchanged and
            // param_value_size_ret will be set to 0".
            CL_PROGRAM_IL => match &p.origin {
                Origin::Il(il) => info::write_bytes(il, s, v, r),
                _ => info::write_bytes(&[], s, v, r),
            },
            CL_PROGRAM_BINARY_SIZES => {
                let len = p.binary_bytes().len();
                info::write(&vec![len; p.devices.len()], s, v, r)
            }
            CL_PROGRAM_BINARIES => write_binaries(&p, s, v, r),
            CL_PROGRAM_NUM_KERNELS => info::write(&executable()?.kernels.len(), s, v, r),
            CL_PROGRAM_KERNEL_NAMES => info::write(&executable()?.kernel_names(), s, v, r),
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                executable()?;
                info::write(&CL_FALSE, s, v, r)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// `CL_PROGRAM_BINARIES`: `param_value` is an array of one pointer per device; each non-NULL
/// pointer receives that device's binary (sized by `CL_PROGRAM_BINARY_SIZES`).
fn write_binaries(p: &Program, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
    let n = p.devices.len();
    let need = n * std::mem::size_of::<*mut u8>();
    if !value.is_null() {
        check(size >= need, CL_INVALID_VALUE)?;
        let binary = p.binary_bytes();
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        for &dst in unsafe { ptr::slice(value as *const *mut u8, n, CL_INVALID_VALUE) }? {
            if !dst.is_null() && !binary.is_empty() {
                // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
                unsafe { ptr::slice_mut(dst as *mut c_void, binary.len(), CL_INVALID_VALUE) }?.copy_from_slice(&binary);
            }
        }
    }
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { ptr::write_opt(size_ret, need) };
    Ok(())
}

pub extern "C" fn clGetProgramBuildInfo(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let p = Obj::<Program>::get(program)?;
        let d = Obj::<Device>::get(device)?;
        // "CL_INVALID_DEVICE if device is not in the list of devices associated with program"
        // (or a sub-device of one: `Device::covered_by`).
        check(d.covered_by(&p.devices), CL_INVALID_DEVICE)?;
        let b = p.build_info();
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_PROGRAM_BUILD_STATUS => info::write(&b.status, s, v, r),
            CL_PROGRAM_BUILD_OPTIONS => info::write(&b.options, s, v, r),
            CL_PROGRAM_BUILD_LOG => info::write(&b.log, s, v, r),
            CL_PROGRAM_BINARY_TYPE => info::write(&b.binary_type, s, v, r),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => info::write(&p.global_variable_total_size(), s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clCreateProgramWithBuiltInKernels(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        let ctx = Obj::<Context>::get(context)?;
        // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
        check(num_devices != 0 && !device_list.is_null(), CL_INVALID_VALUE)?;
        device_subset(num_devices, device_list, &ctx.devices)?;
        // "CL_INVALID_VALUE if kernel_names is NULL or kernel_names contains a kernel name that
        // is not supported by any of the devices": the device has no built-in kernels.
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::c_string(kernel_names, CL_INVALID_VALUE) }?;
        Err(CL_INVALID_VALUE)
    })
}

pub extern "C" fn clCreateProgramWithIL(
    context: cl_context,
    il: *const c_void,
    length: size_t,
    errcode_ret: *mut cl_int,
) -> cl_program {
    object(errcode_ret, || {
        let ctx = Obj::<Context>::get(context)?;
        // "CL_INVALID_VALUE if il is NULL or if length is zero."
        check(!il.is_null() && length != 0, CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let bytes = unsafe { ptr::slice(il as *const u8, length, CL_INVALID_VALUE) }?;
        // "CL_INVALID_VALUE if the length-byte memory pointed to by il does not contain
        // well-formed intermediate language input appropriate for the deployment environment."
        check(crate::core::program::spirv_words(bytes).is_some(), CL_INVALID_VALUE)?;
        Ok(Obj::new(Program::from_il(ctx.clone(), ctx.devices.clone(), bytes.to_vec())).handle())
    })
}

pub extern "C" fn clSetProgramReleaseCallback(
    program: cl_program,
    pfn_notify: Option<unsafe extern "C" fn(program: cl_program, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        Obj::<Program>::get(program)?;
        // "CL_INVALID_VALUE if pfn_notify is NULL."
        check(pfn_notify.is_some(), CL_INVALID_VALUE)?;
        let _ = user_data;
        // "CL_INVALID_OPERATION if no devices in the context associated with program support
        // destructors for program scope global variables."
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clSetProgramSpecializationConstant(
    program: cl_program,
    spec_id: cl_uint,
    spec_size: size_t,
    spec_value: *const c_void,
) -> cl_int {
    status(|| {
        let p = Obj::<Program>::get(program)?;
        // "CL_INVALID_PROGRAM if program is not a valid program object created from an
        // intermediate language (e.g. SPIR-V), or if the intermediate language does not support
        // specialization constants."
        let constants = p.spec_constant_sizes().ok_or(CL_INVALID_PROGRAM)?;
        // "CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant identifier."
        let size = *constants.get(&spec_id).ok_or(CL_INVALID_SPEC_ID)?;
        // "CL_INVALID_VALUE if spec_size does not match the size of the specialization constant
        // in the module, or if spec_value is NULL."
        check(spec_size == size as usize && !spec_value.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        p.set_spec_constant(
            spec_id,
            unsafe { ptr::slice(spec_value as *const u8, spec_size, CL_INVALID_VALUE) }?.to_vec(),
        );
        Ok(())
    })
}
