//! Checked access to application memory. These are the only places that dereference pointers the
//! application passed in, and they are `unsafe fn`s: NULL is checked here, everything else about
//! a pointer is the application's promise under the OpenCL specification — **the contract**:
//! a non-NULL array or buffer argument points to at least as many readable (for outputs:
//! writable) elements as its size argument says, a string is NUL-terminated, a property list is
//! readable up to and including its terminating 0, an output pointer has room for one value,
//! and all of it stays valid for the duration of the call (for a buffer a command reads or
//! writes later, until that command completes). A caller passes only pointers it received from
//! the application in the corresponding argument, and writes `// SAFETY:` naming this contract.

use crate::cl::object::{ClObject, Obj, Ref};
use crate::cl::*;
use crate::core::context::Context;
use crate::core::event::Event;
use std::ffi::{c_char, CStr};

/// Writes `v` through `p` unless `p` is NULL.
///
/// # Safety
/// `p` is NULL or an application output pointer (the module's contract).
pub unsafe fn write_opt<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: the OpenCL contract: a non-NULL output pointer points to writable storage for T.
        unsafe { p.write_unaligned(v) };
    }
}

/// Views `n` elements at `p` (empty for `n == 0`); NULL with `n > 0` is `err`.
///
/// # Safety
/// `p` is NULL or an application array of at least `n` elements (the module's contract).
pub unsafe fn slice<'a, T>(p: *const T, n: usize, err: cl_int) -> CLResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(err);
    }
    // SAFETY: the OpenCL contract: a non-NULL array argument has at least `n` valid elements that
    // stay valid for the duration of the call.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Views `n` bytes at `p` as mutable (for reads into application memory).
///
/// # Safety
/// `p` is NULL or application memory of at least `n` writable bytes that nothing else borrows
/// while the view lives (the module's contract).
pub unsafe fn slice_mut<'a>(p: *mut std::ffi::c_void, n: usize, err: cl_int) -> CLResult<&'a mut [u8]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(err);
    }
    // SAFETY: the OpenCL contract: a non-NULL destination has `n` writable bytes, valid until the
    // command using it completes (the caller keeps the borrow no longer than that).
    Ok(unsafe { std::slice::from_raw_parts_mut(p as *mut u8, n) })
}

/// Reads a zero-terminated property list (at most 1024 entries); NULL gives an empty list.
/// The returned list includes the terminating 0 when one was read.
///
/// # Safety
/// `p` is NULL or an application property list (the module's contract).
pub unsafe fn property_list<T: Copy + PartialEq + Default>(p: *const T) -> CLResult<Vec<T>> {
    let mut out = Vec::new();
    if p.is_null() {
        return Ok(out);
    }
    for i in 0..1024 {
        // SAFETY: the OpenCL contract: a property list is readable up to and including its 0.
        let v = unsafe { p.add(i).read_unaligned() };
        out.push(v);
        if v == T::default() {
            return Ok(out);
        }
    }
    Err(CL_INVALID_PROPERTY)
}

/// Reads a NUL-terminated string.
///
/// # Safety
/// `p` is NULL or an application string (the module's contract).
pub unsafe fn c_string(p: *const c_char, err: cl_int) -> CLResult<String> {
    if p.is_null() {
        return Err(err);
    }
    // SAFETY: the OpenCL contract: a non-NULL string argument is NUL-terminated.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// Looks up `n` handles from an array (`list_err` for a NULL array with `n > 0`; each handle's own
/// invalid error otherwise).
///
/// # Safety
/// As [`slice()`].
pub unsafe fn handles<T: ClObject>(list: *const T::Handle, n: usize, list_err: cl_int) -> CLResult<Vec<Ref<T>>> {
    // SAFETY: the caller's promise (this function's contract).
    Obj::<T>::get_all(unsafe { slice(list, n, list_err) }?)
}

/// The event wait list of an enqueue call: NULL/0 consistency and every event valid
/// (`CL_INVALID_EVENT_WAIT_LIST`), and in `context` (`CL_INVALID_CONTEXT`).
///
/// # Safety
/// `list` is NULL or an application array of `n` events (the module's contract).
pub unsafe fn wait_list(n: cl_uint, list: *const cl_event, context: &Ref<Context>) -> CLResult<Vec<Ref<Event>>> {
    if (n == 0) != list.is_null() {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    // SAFETY: the caller's promise (this function's contract).
    let handles = unsafe { slice(list, n as usize, CL_INVALID_EVENT_WAIT_LIST) }?;
    let events: Vec<Ref<Event>> = handles
        .iter()
        .map(|&h| Obj::<Event>::get(h).map_err(|_| CL_INVALID_EVENT_WAIT_LIST))
        .collect::<Result<_, _>>()?;
    if events.iter().any(|e| !std::sync::Arc::ptr_eq(&e.context, context)) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok(events)
}

/// Hands a new event to the application (if it asked for one) or drops the application reference.
///
/// # Safety
/// As [`write_opt`].
pub unsafe fn return_event(out: *mut cl_event, e: &Ref<Event>) {
    if out.is_null() {
        let _ = Obj::<Event>::release(e.handle());
    } else {
        // SAFETY: the caller's promise (this function's contract).
        unsafe { write_opt(out, e.handle()) };
    }
}
