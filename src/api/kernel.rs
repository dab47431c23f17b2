//! Kernel entry points (OpenCL 3.0 §5.9): creation, arguments, queries.
//!
//! Argument rules:
//! * With metadata (our ELFs carry `.ventus.kernel_info`): the index must be declared; a
//!   `__global`/`__constant` argument takes `sizeof(cl_mem)` bytes holding a buffer of the
//!   kernel's context or NULL (a NULL `arg_value` also means NULL); a `__local` argument takes a
//!   non-zero size and a NULL value; anything else takes exactly its declared size.
//! * Without metadata (official ELFs), "by size" as pocl does: a NULL `arg_value` with a size
//!   is a `__local` allocation of that size; a `sizeof(cl_mem)`-byte value holding a registered
//!   `cl_mem` handle is that buffer, and one holding 0 is a NULL buffer pointer; anything else is
//!   raw by-value bytes. The argument count is then the highest index set + 1 (at most
//!   `MAX_PARAMETER_SIZE / 4` arguments). Caveat of the rule: an 8-byte by-value argument that is
//!   all zeros is taken for a NULL pointer.
//! * No SVM, no sub-groups: those entry points return `CL_INVALID_OPERATION` after validating
//!   their handles.

use super::{check, info, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::device::{self as dev, Device};
use crate::core::image::Sampler;
use crate::core::kernel::{Access, AddressSpace, ArgKind, ArgValue, Kernel};
use crate::core::memory::Mem;
use crate::core::program::Program;
use libc::size_t;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

pub extern "C" fn clCreateKernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    object(errcode_ret, || {
        let p = Obj::<Program>::get(program)?;
        // "CL_INVALID_VALUE if kernel_name is NULL."
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let name = unsafe { ptr::c_string(kernel_name, CL_INVALID_VALUE) }?;
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program."
        let exec = p.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        // "CL_INVALID_KERNEL_NAME if kernel_name is not found in program."
        let index = exec.kernel(&name).ok_or(CL_INVALID_KERNEL_NAME)?;
        Ok(Obj::new(Kernel::new(p, exec, index)).handle())
    })
}

pub extern "C" fn clCreateKernelsInProgram(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    status(|| {
        let p = Obj::<Program>::get(program)?;
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for any
        // device in program."
        let exec = p.executable().ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
        let n = exec.kernels.len();
        if !kernels.is_null() {
            // "CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number of
            // kernels in program."
            check(num_kernels as usize >= n, CL_INVALID_VALUE)?;
            for i in 0..n {
                let k = Obj::new(Kernel::new(p.clone(), exec.clone(), i));
                // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
                unsafe { ptr::write_opt(kernels.wrapping_add(i), k.handle()) };
            }
        }
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(num_kernels_ret, n as cl_uint) };
        Ok(())
    })
}

pub extern "C" fn clRetainKernel(kernel: cl_kernel) -> cl_int {
    status(|| Obj::<Kernel>::retain(kernel))
}

pub extern "C" fn clReleaseKernel(kernel: cl_kernel) -> cl_int {
    // Enqueued launches keep their own reference until they complete.
    status(|| Obj::<Kernel>::release(kernel).map(|_| ()))
}

/// Arguments accepted without metadata (a pointer or value takes at least 4 bytes of the
/// `MAX_PARAMETER_SIZE`-byte argument buffer).
const MAX_ARGS_WITHOUT_METADATA: usize = dev::MAX_PARAMETER_SIZE / 4;

/// The bytes of a by-value argument.
fn value_bytes(value: *const c_void, size: usize) -> CLResult<Vec<u8>> {
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    Ok(unsafe { ptr::slice(value as *const u8, size, CL_INVALID_ARG_VALUE) }?.to_vec())
}

/// The `cl_mem` handle stored at `value` (read bytewise: `value` need not be aligned).
fn mem_handle(value: *const c_void) -> CLResult<cl_mem> {
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let b = unsafe { ptr::slice(value as *const u8, std::mem::size_of::<cl_mem>(), CL_INVALID_ARG_VALUE) }?;
    let mut raw = [0u8; std::mem::size_of::<usize>()];
    raw.copy_from_slice(b);
    Ok(usize::from_ne_bytes(raw) as cl_mem)
}

/// A buffer argument: NULL `value` or a NULL handle is a NULL pointer.
fn buffer_arg(k: &Kernel, value: *const c_void) -> CLResult<ArgValue> {
    if value.is_null() {
        return Ok(ArgValue::Buffer(None));
    }
    let h = mem_handle(value)?;
    if h.is_null() {
        return Ok(ArgValue::Buffer(None));
    }
    // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified
    // arg_value is not a valid memory object"; "The memory object must be created with the
    // context associated with the kernel object."
    let m: Ref<Mem> = Obj::<Mem>::get(h)?;
    check(m.image.is_none() && Arc::ptr_eq(&m.context, &k.program.context), CL_INVALID_MEM_OBJECT)?;
    Ok(ArgValue::Buffer(Some(m)))
}

/// An image argument: a valid image of the kernel's context (never NULL), whose memory flags
/// allow the argument's access qualifier.
fn image_arg(k: &Kernel, access: Access, size: usize, value: *const c_void) -> CLResult<ArgValue> {
    // "CL_INVALID_ARG_SIZE ... if the argument is a memory object and arg_size !=
    // sizeof(cl_mem)."
    check(size == std::mem::size_of::<cl_mem>(), CL_INVALID_ARG_SIZE)?;
    // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the specified
    // arg_value is not a valid memory object" — for an image argument, an image.
    check(!value.is_null(), CL_INVALID_ARG_VALUE)?;
    let m: Ref<Mem> = Obj::<Mem>::get(mem_handle(value)?)?;
    check(m.image.is_some() && Arc::ptr_eq(&m.context, &k.program.context), CL_INVALID_MEM_OBJECT)?;
    // "CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only qualifier
    // and arg_value refers to an image object created with cl_mem_flags of CL_MEM_WRITE_ONLY or
    // if the image argument is declared with the write_only qualifier and arg_value refers to
    // an image object created with cl_mem_flags of CL_MEM_READ_ONLY."
    let denied = match access {
        Access::ReadOnly => m.flags & CL_MEM_WRITE_ONLY != 0,
        Access::WriteOnly => m.flags & CL_MEM_READ_ONLY != 0,
        _ => false,
    };
    check(!denied, CL_INVALID_ARG_VALUE)?;
    Ok(ArgValue::Buffer(Some(m)))
}

/// A sampler argument: its word (`abi::image_desc::sampler`) as the value.
fn sampler_arg(k: &Kernel, size: usize, value: *const c_void) -> CLResult<ArgValue> {
    // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
    // argument that is not a memory object" — for a sampler, sizeof(cl_sampler).
    check(size == std::mem::size_of::<cl_sampler>(), CL_INVALID_ARG_SIZE)?;
    // "CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the specified
    // arg_value is not a valid sampler object."
    check(!value.is_null(), CL_INVALID_SAMPLER)?;
    let h = mem_handle(value)? as cl_sampler;
    let s = Obj::<Sampler>::get(h)?;
    check(Arc::ptr_eq(&s.context, &k.program.context), CL_INVALID_SAMPLER)?;
    Ok(ArgValue::Value(s.word().to_le_bytes().to_vec()))
}

/// Classifies an argument using the kernel's metadata.
fn arg_with_metadata(k: &Kernel, index: usize, size: usize, value: *const c_void) -> CLResult<ArgValue> {
    let info = k.info().ok_or(CL_INVALID_KERNEL)?;
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
    let a = info.args.get(index).ok_or(CL_INVALID_ARG_INDEX)?;
    match a.kind {
        ArgKind::Image => return image_arg(k, a.access, size, value),
        ArgKind::Sampler => return sampler_arg(k, size, value),
        ArgKind::Plain => {}
    }
    match a.address_space {
        AddressSpace::Global | AddressSpace::Constant => {
            // "CL_INVALID_ARG_SIZE ... if the argument is a memory object and arg_size !=
            // sizeof(cl_mem)."
            check(size == std::mem::size_of::<cl_mem>(), CL_INVALID_ARG_SIZE)?;
            buffer_arg(k, value)
        }
        AddressSpace::Local => {
            // "CL_INVALID_ARG_SIZE ... if arg_size is zero and the argument is declared with the
            // local qualifier."
            check(size != 0 && size <= u32::MAX as usize, CL_INVALID_ARG_SIZE)?;
            // "If the argument is declared with the local qualifier, the arg_value entry must be
            // NULL." (else CL_INVALID_ARG_VALUE)
            check(value.is_null(), CL_INVALID_ARG_VALUE)?;
            Ok(ArgValue::Local(size as u32))
        }
        AddressSpace::Private => {
            // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value."
            check(!value.is_null(), CL_INVALID_ARG_VALUE)?;
            // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
            // argument that is not a memory object."
            // A 3-component vector is laid out as 4 components, but applications commonly pass
            // the size of 3 (`sizeof(cl_float) * 3`, NumPy arrays of 3): accepted as pocl does,
            // the fourth component zero.
            let vec3 = is_vec3(&a.type_name) && size * 4 == a.size as usize * 3;
            check(size == a.size as usize || vec3, CL_INVALID_ARG_SIZE)?;
            let mut bytes = value_bytes(value, size)?;
            bytes.resize(a.size as usize, 0);
            Ok(ArgValue::Value(bytes))
        }
    }
}

/// Whether an OpenCL C type name is a 3-component vector (`float3`, `uchar3`, …).
fn is_vec3(type_name: &str) -> bool {
    type_name.strip_suffix('3').is_some_and(|t| {
        ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "double"].contains(&t)
    })
}

/// Classifies an argument without metadata ("by size", see the module documentation).
fn arg_by_size(k: &Kernel, index: usize, size: usize, value: *const c_void) -> CLResult<ArgValue> {
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
    check(index < MAX_ARGS_WITHOUT_METADATA, CL_INVALID_ARG_INDEX)?;
    // A zero size is neither a __local size nor a value ("CL_INVALID_ARG_SIZE ... if arg_size
    // is zero and the argument is declared with the local qualifier").
    check(size != 0 && size <= u32::MAX as usize, CL_INVALID_ARG_SIZE)?;
    if value.is_null() {
        return Ok(ArgValue::Local(size as u32));
    }
    if size == std::mem::size_of::<cl_mem>() {
        let h = mem_handle(value)?;
        if h.is_null() {
            return Ok(ArgValue::Buffer(None));
        }
        if let Ok(m) = Obj::<Mem>::get(h) {
            // "The memory object must be created with the context associated with the kernel."
            check(Arc::ptr_eq(&m.context, &k.program.context), CL_INVALID_MEM_OBJECT)?;
            return Ok(ArgValue::Buffer(Some(m)));
        }
    }
    // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type": a by-value
    // argument cannot exceed CL_DEVICE_MAX_PARAMETER_SIZE.
    check(size <= dev::MAX_PARAMETER_SIZE, CL_INVALID_ARG_SIZE)?;
    Ok(ArgValue::Value(value_bytes(value, size)?))
}

pub extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: size_t,
    arg_value: *const c_void,
) -> cl_int {
    status(|| {
        let k = Obj::<Kernel>::get(kernel)?;
        let index = arg_index as usize;
        let v = if k.info().is_some() {
            arg_with_metadata(&k, index, arg_size, arg_value)?
        } else {
            arg_by_size(&k, index, arg_size, arg_value)?
        };
        k.set_arg(index, v);
        Ok(())
    })
}

pub extern "C" fn clGetKernelInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let k = Obj::<Kernel>::get(kernel)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_KERNEL_FUNCTION_NAME => info::write(k.name(), s, v, r),
            CL_KERNEL_NUM_ARGS => info::write(&k.num_args(), s, v, r),
            CL_KERNEL_REFERENCE_COUNT => info::write(&k.api_ref_count(), s, v, r),
            CL_KERNEL_CONTEXT => info::write(&info::Ptr(k.program.context.handle()), s, v, r),
            CL_KERNEL_PROGRAM => info::write(&info::Ptr(k.program.handle()), s, v, r),
            CL_KERNEL_ATTRIBUTES => info::write(k.info().map_or("", |i| i.attributes.as_str()), s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// The device of a per-device kernel query: "CL_INVALID_DEVICE if device is not in the list of
/// devices associated with kernel or if device is NULL but there is more than one device
/// associated with kernel."
fn kernel_device(k: &Kernel, device: cl_device_id) -> CLResult<Ref<Device>> {
    let devices = &k.program.devices;
    if device.is_null() {
        check(devices.len() == 1, CL_INVALID_DEVICE)?;
        return Ok(devices[0].clone());
    }
    let d = Obj::<Device>::get(device)?;
    check(d.covered_by(devices), CL_INVALID_DEVICE)?;
    Ok(d)
}

pub extern "C" fn clGetKernelWorkGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let k = Obj::<Kernel>::get(kernel)?;
        let d = kernel_device(&k, device)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        let static_local = k.info().map_or(0, |i| i.local_bytes as u64);
        match param_name {
            // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a
            // custom device and kernel is not a built-in kernel."
            CL_KERNEL_GLOBAL_WORK_SIZE => Err(CL_INVALID_VALUE),
            CL_KERNEL_WORK_GROUP_SIZE => info::write(&d.max_work_group_size(), s, v, r),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                let reqd = k.info().and_then(|i| i.reqd_work_group_size).unwrap_or([0; 3]);
                info::write(&reqd.map(|x| x as usize).to_vec(), s, v, r)
            }
            CL_KERNEL_LOCAL_MEM_SIZE => info::write(&(static_local + k.local_arg_bytes()), s, v, r),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => info::write(&(d.threads_per_warp as usize), s, v, r),
            CL_KERNEL_PRIVATE_MEM_SIZE => {
                let from_info = k.info().map(|i| i.private_bytes as u64);
                let from_record = k.def().resources.and_then(|r| r.pds_bytes);
                info::write(&from_info.or(from_record).unwrap_or(0), s, v, r)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clGetKernelArgInfo(
    kernel: cl_kernel,
    arg_index: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let k = Obj::<Kernel>::get(kernel)?;
        // "CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available for
        // kernel" (only for programs from source built with -cl-kernel-arg-info: Program::arg_info).
        let i = k.info().filter(|_| k.program.arg_info()).ok_or(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)?;
        // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
        let a = i.args.get(arg_index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => {
                let q: cl_kernel_arg_address_qualifier = match a.address_space {
                    AddressSpace::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                    AddressSpace::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                    AddressSpace::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                    AddressSpace::Private => CL_KERNEL_ARG_ADDRESS_PRIVATE,
                };
                info::write(&q, s, v, r)
            }
            CL_KERNEL_ARG_ACCESS_QUALIFIER => {
                let q: cl_kernel_arg_access_qualifier = match a.access {
                    Access::None => CL_KERNEL_ARG_ACCESS_NONE,
                    Access::ReadOnly => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                    Access::WriteOnly => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                    Access::ReadWrite => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                };
                info::write(&q, s, v, r)
            }
            CL_KERNEL_ARG_TYPE_NAME => info::write(&a.type_name, s, v, r),
            // `cl_kernel_arg_type_qualifier` is a `cl_bitfield` (64 bits) in the Khronos headers.
            CL_KERNEL_ARG_TYPE_QUALIFIER => info::write(&(a.type_qualifiers as cl_bitfield), s, v, r),
            CL_KERNEL_ARG_NAME => info::write(&a.name, s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clSetKernelArgSVMPointer(kernel: cl_kernel, arg_index: cl_uint, arg_value: *const c_void) -> cl_int {
    status(|| {
        let k = Obj::<Kernel>::get(kernel)?;
        let index = arg_index as usize;
        // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index"; the argument must
        // be a `__global` or `__constant` pointer (else "CL_INVALID_ARG_VALUE if arg_value
        // specified is not a valid value").
        match k.info() {
            Some(info) => {
                let a = info.args.get(index).ok_or(CL_INVALID_ARG_INDEX)?;
                let pointer = a.kind == ArgKind::Plain
                    && matches!(a.address_space, AddressSpace::Global | AddressSpace::Constant);
                check(pointer, CL_INVALID_ARG_VALUE)?;
            }
            None => check(index < MAX_ARGS_WITHOUT_METADATA, CL_INVALID_ARG_INDEX)?,
        }
        // NULL, or a pointer into an SVM allocation of the kernel's context (device pointers
        // are the allocations' 32-bit addresses).
        let p = arg_value as usize;
        check(p == 0 || k.program.context.svm.find(p).is_some(), CL_INVALID_ARG_VALUE)?;
        k.set_arg(index, ArgValue::Svm(p as u32));
        Ok(())
    })
}

pub extern "C" fn clSetKernelExecInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    param_value_size: size_t,
    param_value: *const c_void,
) -> cl_int {
    status(|| {
        Obj::<Kernel>::get(kernel)?;
        // "CL_INVALID_VALUE if param_name is not valid, if param_value is NULL or if the size
        // specified by param_value_size is not valid."
        match param_name {
            // The pointers a kernel reaches indirectly: every SVM allocation is always visible
            // to every kernel, so the list needs no bookkeeping. An empty list (size 0, NULL)
            // clears an earlier one.
            CL_KERNEL_EXEC_INFO_SVM_PTRS => {
                check(param_value_size % std::mem::size_of::<*const c_void>() == 0, CL_INVALID_VALUE)?;
                check(param_value.is_null() == (param_value_size == 0), CL_INVALID_VALUE)
            }
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
                check(!param_value.is_null(), CL_INVALID_VALUE)?;
                check(param_value_size == std::mem::size_of::<cl_bool>(), CL_INVALID_VALUE)?;
                // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
                let on = unsafe { (param_value as *const cl_bool).read_unaligned() };
                // "CL_INVALID_OPERATION if param_name is CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM
                // and param_value is CL_TRUE but no devices in the context associated with kernel
                // support fine-grain system SVM allocations."
                check(on == CL_FALSE, CL_INVALID_OPERATION)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

/// Both sub-group queries (a sub-group is one warp of `threads_per_warp` lanes).
#[allow(clippy::too_many_arguments)]
fn sub_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: size_t,
    input_value: *const c_void,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> CLResult<()> {
    let k = Obj::<Kernel>::get(kernel)?;
    let d = kernel_device(&k, device)?;
    let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
    let lanes = d.threads_per_warp.max(1) as usize;
    let max_items = d.max_work_group_size();
    let word = std::mem::size_of::<usize>();
    // "CL_INVALID_VALUE if param_name is CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
    // CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE or CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT and the
    // size in bytes specified by input_value_size is not valid or if input_value is NULL."
    let input = |dims_ok: fn(usize) -> bool| -> CLResult<Vec<usize>> {
        check(!input_value.is_null() && input_value_size % word == 0, CL_INVALID_VALUE)?;
        let n = input_value_size / word;
        check(dims_ok(n), CL_INVALID_VALUE)?;
        // SAFETY: the application passes `input_value_size` readable bytes at `input_value`
        // (checked non-NULL above).
        Ok(unsafe { ptr::slice(input_value as *const usize, n, CL_INVALID_VALUE)? }.to_vec())
    };
    let items = |local: &[usize]| local.iter().try_fold(1usize, |a, &x| a.checked_mul(x)).unwrap_or(usize::MAX);
    match param_name {
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
            let local = input(|n| (1..=3).contains(&n))?;
            info::write(&items(&local).min(lanes), s, v, r)
        }
        CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
            let local = input(|n| (1..=3).contains(&n))?;
            info::write(&items(&local).div_ceil(lanes), s, v, r)
        }
        CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
            let count = input(|n| n == 1)?[0];
            // The output's size chooses its dimensions (1 to 3 size_t values).
            let dims = if param_value.is_null() { 1 } else { s / word };
            check((1..=3).contains(&dims) && (param_value.is_null() || s % word == 0), CL_INVALID_VALUE)?;
            let mut out = vec![1usize; dims];
            let want = count.checked_mul(lanes).filter(|&n| count > 0 && n <= max_items);
            out[0] = want.unwrap_or(0);
            if want.is_none() {
                out.iter_mut().for_each(|x| *x = 0);
            }
            info::write(&out, s, v, r)
        }
        CL_KERNEL_MAX_NUM_SUB_GROUPS => info::write(&max_items.div_ceil(lanes), s, v, r),
        CL_KERNEL_COMPILE_NUM_SUB_GROUPS => info::write(&0usize, s, v, r),
        _ => Err(CL_INVALID_VALUE),
    }
}

pub extern "C" fn clGetKernelSubGroupInfoKHR(
    in_kernel: cl_kernel,
    in_device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: size_t,
    input_value: *const c_void,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        sub_group_info(
            in_kernel,
            in_device,
            param_name,
            input_value_size,
            input_value,
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}

pub extern "C" fn clCloneKernel(source_kernel: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel {
    object(errcode_ret, || {
        let k = Obj::<Kernel>::get(source_kernel)?;
        Ok(Obj::new(k.duplicate()).handle())
    })
}

pub extern "C" fn clGetKernelSubGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_value_size: size_t,
    input_value: *const c_void,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        sub_group_info(
            kernel,
            device,
            param_name,
            input_value_size,
            input_value,
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}
