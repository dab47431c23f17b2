//! The ICD object header and the handle registry.
//!
//! Every handle given to an application points to an [`Obj<T>`], whose first field is the ICD
//! dispatch-table pointer (what the ICD loader dereferences). A handle is valid exactly while it is
//! in the registry: looking a handle up is a hash-map probe, never a dereference, so garbage and
//! stale handles yield the type's `CL_INVALID_*` error instead of undefined behaviour.
//!
//! Reference counts: the application's count lives in the header (`api_refs`); when it drops to
//! zero the registry forgets the handle. The Rust object itself is an `Arc` that internal users
//! (a queue holding its context, a pending command holding its buffers) keep alive as long as they
//! need — exactly the OpenCL rule that an object is destroyed once its count is zero *and* no
//! command uses it any more.

use super::*;
use once_cell::sync::Lazy;
use parking_lot::RwLock;
use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Arc;

/// The kinds of OpenCL objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Platform,
    Device,
    Context,
    Queue,
    Mem,
    Program,
    Kernel,
    Event,
    Sampler,
}

/// The dispatch table pointer stored in every header (set once by the `api` layer).
static DISPATCH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// Registers the ICD dispatch table placed at the start of every object created afterwards.
pub fn set_dispatch(table: *const c_void) {
    DISPATCH.store(table as *mut c_void, Ordering::Release);
}

/// The header + payload behind a handle. `repr(C)`: the dispatch pointer must come first.
#[repr(C)]
pub struct Obj<T> {
    dispatch: *const c_void,
    api_refs: AtomicU32,
    kind: Kind,
    pub inner: T,
}

// SAFETY: `dispatch` points to an immutable `'static` table and is never written after creation;
// everything else is `T` (required Send + Sync by `ClObject`) and atomics.
unsafe impl<T: Send + Sync> Send for Obj<T> {}
// SAFETY: as above — shared access only reads the immutable pointer.
unsafe impl<T: Send + Sync> Sync for Obj<T> {}

impl<T> std::ops::Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

/// A strong internal reference to an OpenCL object.
pub type Ref<T> = Arc<Obj<T>>;

/// Ties a Rust payload type to its OpenCL kind, handle type and invalid-handle error.
pub trait ClObject: Send + Sync + Sized + 'static {
    const KIND: Kind;
    /// The error for a NULL or unknown handle of this type (e.g. `CL_INVALID_CONTEXT`).
    const INVALID: cl_int;
    /// The C handle type (`cl_context`, …).
    type Handle: Copy;
    fn handle_to_addr(h: Self::Handle) -> usize;
    fn addr_to_handle(a: usize) -> Self::Handle;
}

struct Entry {
    kind: Kind,
    obj: Arc<dyn Any + Send + Sync>,
}

static REGISTRY: Lazy<RwLock<HashMap<usize, Entry>>> = Lazy::new(|| RwLock::new(HashMap::new()));

impl<T: ClObject> Obj<T> {
    /// Creates an object with an application reference count of 1 and registers its handle.
    pub fn new(inner: T) -> Ref<T> {
        let obj = Arc::new(Obj {
            dispatch: DISPATCH.load(Ordering::Acquire),
            api_refs: AtomicU32::new(1),
            kind: T::KIND,
            inner,
        });
        let addr = Arc::as_ptr(&obj) as usize;
        REGISTRY.write().insert(addr, Entry { kind: T::KIND, obj: obj.clone() });
        obj
    }

    /// The handle of this object (valid while registered).
    pub fn handle(self: &Arc<Self>) -> T::Handle {
        T::addr_to_handle(Arc::as_ptr(self) as usize)
    }

    /// Looks a handle up: `T::INVALID` for NULL, unknown, released or wrongly typed handles.
    pub fn get(h: T::Handle) -> CLResult<Ref<T>> {
        let addr = T::handle_to_addr(h);
        if addr == 0 {
            return Err(T::INVALID);
        }
        let reg = REGISTRY.read();
        let e = reg.get(&addr).ok_or(T::INVALID)?;
        if e.kind != T::KIND {
            return Err(T::INVALID);
        }
        e.obj.clone().downcast::<Obj<T>>().map_err(|_| T::INVALID)
    }

    /// Looks up a list of handles (`CL_INVALID_VALUE`-style errors are the caller's business).
    pub fn get_all(hs: &[T::Handle]) -> CLResult<Vec<Ref<T>>> {
        hs.iter().map(|&h| Self::get(h)).collect()
    }

    /// `clRetain*`.
    pub fn retain(h: T::Handle) -> CLResult<()> {
        let o = Self::get(h)?;
        o.api_refs.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// `clRelease*`: returns the object if this released the last application reference (the
    /// handle is then invalid; the caller may run destructor callbacks).
    pub fn release(h: T::Handle) -> CLResult<Option<Ref<T>>> {
        let o = Self::get(h)?;
        let mut reg = REGISTRY.write();
        // Re-check under the write lock so two racing releases cannot both reach zero.
        let prev = o.api_refs.load(Ordering::Acquire);
        if prev == 0 || !reg.contains_key(&(Arc::as_ptr(&o) as usize)) {
            return Err(T::INVALID);
        }
        o.api_refs.store(prev - 1, Ordering::Release);
        if prev == 1 {
            reg.remove(&(Arc::as_ptr(&o) as usize));
            return Ok(Some(o));
        }
        Ok(None)
    }

    /// The application reference count (`CL_*_REFERENCE_COUNT`).
    pub fn api_ref_count(&self) -> u32 {
        self.api_refs.load(Ordering::Acquire)
    }

    /// Adds an application reference to an object already held (used when the API returns an
    /// existing object again, e.g. the default device queue).
    pub fn add_api_ref(self: &Arc<Self>) {
        self.api_refs.fetch_add(1, Ordering::AcqRel);
    }
}

/// Number of registered handles of `kind` (for tests and leak checks).
pub fn live_handles(kind: Kind) -> usize {
    REGISTRY.read().values().filter(|e| e.kind == kind).count()
}

macro_rules! handle_type {
    ($t:ty, $kind:ident, $handle:ty, $invalid:expr) => {
        impl $crate::cl::object::ClObject for $t {
            const KIND: $crate::cl::object::Kind = $crate::cl::object::Kind::$kind;
            const INVALID: $crate::cl::cl_int = $invalid;
            type Handle = $handle;
            fn handle_to_addr(h: $handle) -> usize {
                h as usize
            }
            fn addr_to_handle(a: usize) -> $handle {
                a as $handle
            }
        }
    };
}
pub(crate) use handle_type;
