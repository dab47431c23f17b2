//! Buffer-object entry points (OpenCL 3.0 §5.2.1 creation and sub-buffers, §5.5.1 reference
//! counting and destructor callbacks, §5.5.5 `clGetMemObjectInfo`).
//!
//! Contracts: every spec error clause of these functions is checked here, before any object is
//! created; the memory objects themselves live in [`crate::core::memory`]. Images and pipes are
//! not supported (no image entry point reaches this file), and no buffer property is supported
//! (a non-empty property list is `CL_INVALID_PROPERTY`).

use super::{check, info, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::MAX_MEM_ALLOC_SIZE;
use crate::core::memory::{HostMemory, Mem, BASE_ADDR_ALIGN};
use libc::size_t;
use std::ffi::c_void;

/// Kernel access qualifiers (at most one).
const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
/// Host pointer flags.
const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
/// Host access qualifiers (at most one).
const HOST_ACCESS: cl_mem_flags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
/// Every flag a buffer may be created with.
const BUFFER_FLAGS: cl_mem_flags = ACCESS | HOST_PTR | HOST_ACCESS;

/// C destructor callback.
pub type MemDestructor = unsafe extern "C" fn(memobj: cl_mem, user_data: *mut c_void);

/// Validates `flags` against the Memory Flags table.
pub(super) fn check_flags(flags: cl_mem_flags) -> CLResult<()> {
    // Spec: "CL_INVALID_VALUE if values specified in flags are not valid as defined in the Memory
    // Flags table" — only buffer flags; CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY and CL_MEM_READ_ONLY
    // are mutually exclusive, as are the three CL_MEM_HOST_* flags, and CL_MEM_USE_HOST_PTR
    // excludes CL_MEM_ALLOC_HOST_PTR and CL_MEM_COPY_HOST_PTR.
    check(flags & !BUFFER_FLAGS == 0, CL_INVALID_VALUE)?;
    check((flags & ACCESS).count_ones() <= 1, CL_INVALID_VALUE)?;
    check((flags & HOST_ACCESS).count_ones() <= 1, CL_INVALID_VALUE)?;
    let use_ptr = flags & CL_MEM_USE_HOST_PTR != 0;
    check(!use_ptr || flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) == 0, CL_INVALID_VALUE)
}

/// Parses a buffer property list: the list as given (empty for NULL) — every property name is
/// unsupported.
fn parse_properties(properties: *const cl_mem_properties) -> CLResult<Vec<cl_mem_properties>> {
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let list = unsafe { ptr::property_list(properties) }?;
    // Spec: "CL_INVALID_PROPERTY if a property name in properties is not a supported property
    // name" — none is.
    check(list.first().is_none_or(|&p| p == 0), CL_INVALID_PROPERTY)?;
    Ok(list)
}

fn create_buffer(
    ctx: Ref<Context>,
    properties: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> CLResult<cl_mem> {
    check_flags(flags)?;
    // Spec: "CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE value specified in the Device Queries table for all devices in
    // context."
    check(size != 0 && size as u64 <= MAX_MEM_ALLOC_SIZE, CL_INVALID_BUFFER_SIZE)?;
    // Spec: "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR
    // or CL_MEM_USE_HOST_PTR are not set in flags."
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    check(wants_ptr != host_ptr.is_null(), CL_INVALID_HOST_PTR)?;
    // Spec: "CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR is set in flags and host_ptr is a
    // pointer returned by clSVMAlloc and size is greater than the size passed to clSVMAlloc"
    // (and, reading it for any pointer into an SVM allocation, past its end).
    let over_svm = flags & CL_MEM_USE_HOST_PTR != 0 && ctx.svm.find(host_ptr as usize).is_some();
    if over_svm {
        check(ctx.svm.contains(host_ptr as usize, size), CL_INVALID_BUFFER_SIZE)?;
    }
    let init = if wants_ptr {
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        Some(unsafe { ptr::slice(host_ptr as *const u8, size, CL_INVALID_HOST_PTR) }?)
    } else {
        None
    };
    let host = (flags & CL_MEM_USE_HOST_PTR != 0).then(|| {
        // SAFETY: CL_MEM_USE_HOST_PTR: the application provides `size` bytes at `host_ptr` as the
        // object's storage, to stay valid until the object is destroyed (the destructor callback
        // exists so that it knows when it may free them).
        unsafe { HostMemory::new(host_ptr as *mut u8, size) }
    });
    let mem = match host {
        // Over SVM memory: the allocation's own storage, no copy.
        Some(h) if over_svm => Mem::over_svm(ctx, flags, h, properties)?,
        _ => Mem::buffer(ctx, flags, size, init, host, properties)?,
    };
    Ok(Obj::new(mem).handle())
}

pub extern "C" fn clCreateBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: size_t,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
        let ctx = Obj::<Context>::get(context)?;
        create_buffer(ctx, Vec::new(), flags, size, host_ptr)
    })
}

pub extern "C" fn clCreateBufferWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: size_t,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
        let ctx = Obj::<Context>::get(context)?;
        let props = parse_properties(properties)?;
        create_buffer(ctx, props, flags, size, host_ptr)
    })
}

/// The flags of a sub-buffer: `given` plus what it inherits from `parent`.
pub(super) fn inherit_flags(parent: cl_mem_flags, given: cl_mem_flags) -> cl_mem_flags {
    let mut flags = given | (parent & HOST_PTR);
    if given & ACCESS == 0 {
        flags |= parent & ACCESS;
    }
    if given & HOST_ACCESS == 0 {
        flags |= parent & HOST_ACCESS;
    }
    flags
}

/// The sub-buffer flag clauses of `clCreateSubBuffer`.
pub(super) fn check_sub_flags(parent: cl_mem_flags, flags: cl_mem_flags) -> CLResult<()> {
    check_flags(flags)?;
    // Spec: "CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY and flags specifies
    // CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or if buffer was created with CL_MEM_READ_ONLY and
    // flags specifies CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY, or if flags specifies
    // CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR."
    let wo = parent & CL_MEM_WRITE_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0;
    let ro = parent & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0;
    check(!wo && !ro && flags & HOST_PTR == 0, CL_INVALID_VALUE)?;
    // Spec: "CL_INVALID_VALUE if buffer was created with CL_MEM_HOST_WRITE_ONLY and flags specify
    // CL_MEM_HOST_READ_ONLY, or if buffer was created with CL_MEM_HOST_READ_ONLY and flags specify
    // CL_MEM_HOST_WRITE_ONLY, or if buffer was created with CL_MEM_HOST_NO_ACCESS and flags specify
    // CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_WRITE_ONLY."
    let hw = parent & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0;
    let hr = parent & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0;
    let hn = parent & CL_MEM_HOST_NO_ACCESS != 0 && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0;
    check(!hw && !hr && !hn, CL_INVALID_VALUE)
}

fn create_sub_buffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    create_type: cl_buffer_create_type,
    create_info: *const c_void,
) -> CLResult<cl_mem> {
    // Spec: "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer
    // object."
    let parent = Obj::<Mem>::get(buffer)?;
    check(parent.parent.is_none() && parent.image.is_none(), CL_INVALID_MEM_OBJECT)?;
    check_sub_flags(parent.flags, flags)?;
    // Spec: "CL_INVALID_VALUE if the value specified in buffer_create_type is not valid."
    check(create_type == CL_BUFFER_CREATE_TYPE_REGION, CL_INVALID_VALUE)?;
    // Spec: "CL_INVALID_VALUE if value(s) specified in buffer_create_info (for a given
    // buffer_create_type) is not valid or if buffer_create_info is NULL."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let info = unsafe { ptr::slice(create_info as *const cl_buffer_region, 1, CL_INVALID_VALUE) }?;
    let (origin, size) = (info[0].origin, info[0].size);
    // Spec: "CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure passed in
    // buffer_create_info is 0."
    check(size != 0, CL_INVALID_BUFFER_SIZE)?;
    // Spec: "CL_INVALID_VALUE if the region specified by the cl_buffer_region structure passed in
    // buffer_create_info is out of bounds in buffer."
    check(origin.checked_add(size).is_some_and(|end| end <= parent.size), CL_INVALID_VALUE)?;
    // Spec: "CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context associated with
    // buffer for which the origin field of the cl_buffer_region structure passed in
    // buffer_create_info is aligned to the CL_DEVICE_MEM_BASE_ADDR_ALIGN value."
    check(origin % BASE_ADDR_ALIGN == 0, CL_MISALIGNED_SUB_BUFFER_OFFSET)?;
    let mem = Mem::sub_buffer(&parent, inherit_flags(parent.flags, flags), origin, size)?;
    Ok(Obj::new(mem).handle())
}

pub extern "C" fn clCreateSubBuffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    buffer_create_type: cl_buffer_create_type,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || create_sub_buffer(buffer, flags, buffer_create_type, buffer_create_info))
}

pub extern "C" fn clRetainMemObject(memobj: cl_mem) -> cl_int {
    status(|| Obj::<Mem>::retain(memobj))
}

pub extern "C" fn clReleaseMemObject(memobj: cl_mem) -> cl_int {
    // The object is destroyed (callbacks, device memory freed) once no pending command and no
    // sub-buffer holds it any more: dropping the last `Ref` runs `Mem::drop`.
    status(|| Obj::<Mem>::release(memobj).map(|_| ()))
}

pub extern "C" fn clGetMemObjectInfo(
    memobj: cl_mem,
    param_name: cl_mem_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        let m = Obj::<Mem>::get(memobj)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        let host_ptr = m.host.map_or(std::ptr::null_mut(), |h| h.addr() as *mut c_void);
        let parent = m.parent.as_ref().map_or(std::ptr::null_mut(), |p| p.handle());
        // Spec: "CL_INVALID_VALUE if param_name is not valid, or if size in bytes specified by
        // param_value_size is < size of return type ... and param_value is not NULL" (in
        // `info::write`).
        match param_name {
            CL_MEM_TYPE => info::write(&m.image.as_ref().map_or(CL_MEM_OBJECT_BUFFER, |i| i.mem_type), s, v, r),
            CL_MEM_FLAGS => info::write(&m.flags, s, v, r),
            CL_MEM_SIZE => info::write(&m.size, s, v, r),
            CL_MEM_HOST_PTR => info::write(&info::Ptr(host_ptr), s, v, r),
            CL_MEM_MAP_COUNT => info::write(&m.map_count(), s, v, r),
            CL_MEM_REFERENCE_COUNT => info::write(&m.api_ref_count(), s, v, r),
            CL_MEM_CONTEXT => info::write(&info::Ptr(m.context.handle()), s, v, r),
            CL_MEM_ASSOCIATED_MEMOBJECT => info::write(&info::Ptr(parent), s, v, r),
            // An image created from a buffer shares it from its start.
            CL_MEM_OFFSET => info::write(&if m.image.is_some() { 0 } else { m.offset }, s, v, r),
            // "CL_TRUE if memobj is a buffer object that was created with CL_MEM_USE_HOST_PTR or
            // is a sub-buffer object of a buffer object that was created with
            // CL_MEM_USE_HOST_PTR and the host_ptr specified when the buffer object was created
            // is a SVM pointer."
            CL_MEM_USES_SVM_POINTER => {
                info::write(&(if m.uses_svm() { CL_TRUE } else { CL_FALSE } as cl_bool), s, v, r)
            }
            CL_MEM_PROPERTIES => info::write(&m.properties, s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clSetMemObjectDestructorCallback(
    memobj: cl_mem,
    pfn_notify: Option<MemDestructor>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_MEM_OBJECT if memobj is not a valid memory object."
        let m = Obj::<Mem>::get(memobj)?;
        // Spec: "CL_INVALID_VALUE if pfn_notify is NULL."
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        let (handle, user) = (memobj as usize, user_data as usize);
        m.add_destructor(Box::new(move || {
            // SAFETY: the application's destructor callback, called once when the memory object
            // is destroyed, with its (no longer valid) handle and its own user_data.
            unsafe { f(handle as cl_mem, user as *mut c_void) }
        }));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_rules() {
        assert!(check_flags(0).is_ok());
        assert!(check_flags(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR).is_ok());
        assert!(check_flags(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY).is_err());
        assert!(check_flags(CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY).is_err());
        assert!(check_flags(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR).is_err());
        assert!(check_flags(CL_MEM_KERNEL_READ_AND_WRITE).is_err());
        assert!(check_flags(1 << 40).is_err());
    }

    #[test]
    fn sub_buffer_flags() {
        let ro_host = CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR | CL_MEM_HOST_READ_ONLY;
        assert_eq!(inherit_flags(ro_host, 0), ro_host);
        assert_eq!(
            inherit_flags(ro_host, CL_MEM_HOST_NO_ACCESS),
            ro_host & !CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS
        );
        assert!(check_sub_flags(CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY).is_err());
        assert!(check_sub_flags(CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE).is_err());
        assert!(check_sub_flags(CL_MEM_READ_WRITE, CL_MEM_READ_ONLY).is_ok());
        assert!(check_sub_flags(0, CL_MEM_COPY_HOST_PTR).is_err());
        assert!(check_sub_flags(CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_WRITE_ONLY).is_err());
        assert!(check_sub_flags(CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_NO_ACCESS).is_ok());
    }
}
