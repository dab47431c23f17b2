//! The ICD object header and the handle registry.
//!
//! Every handle given to an application points to a small header of its own whose first (only)
//! field is the ICD dispatch-table pointer (what the ICD loader dereferences). A handle is valid
//! exactly while it is in the registry: looking a handle up is a hash-map probe, never a
//! dereference, so garbage and stale handles yield the type's `CL_INVALID_*` error instead of
//! undefined behaviour. The header is separate from the object so that it can outlive it: the
//! header of a released handle stays allocated in a quarantine of the last [`QUARANTINE`]
//! released handles, so a new object cannot be given the address of a handle the application
//! may still (wrongly) hold, and that stale handle stays detectably invalid.
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
    CommandBuffer,
}

/// The dispatch table pointer stored in every header (set once by the `api` layer).
static DISPATCH: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// Registers the ICD dispatch table placed at the start of every object created afterwards.
pub fn set_dispatch(table: *const c_void) {
    DISPATCH.store(table as *mut c_void, Ordering::Release);
}

/// What a handle points to: the dispatch pointer the ICD loader reads. `repr(C)`: it must be the
/// first word. Allocated once per object, never moved, freed only when it leaves the quarantine.
#[repr(C)]
struct Header {
    dispatch: *const c_void,
}

/// How many released handles keep their header (and so their address) reserved: 16 bytes each.
pub const QUARANTINE: usize = 1 << 16;

/// The payload behind a handle with its application reference count.
pub struct Obj<T> {
    /// Address of this object's [`Header`] (= its handle).
    handle: usize,
    api_refs: AtomicU32,
    pub inner: T,
}

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

/// Headers of released handles, oldest first (addresses as `usize`: each is a leaked
/// `Box<Header>` owned by this queue).
static RELEASED: Lazy<parking_lot::Mutex<std::collections::VecDeque<usize>>> =
    Lazy::new(|| parking_lot::Mutex::new(std::collections::VecDeque::new()));

/// Moves a header no longer in the registry to the quarantine, freeing the oldest beyond its size.
fn quarantine(addr: usize) {
    let mut q = RELEASED.lock();
    q.push_back(addr);
    if q.len() > QUARANTINE {
        if let Some(old) = q.pop_front() {
            // SAFETY: `old` came from `Box::into_raw` in `Obj::new`; it left the registry when it
            // was released and entered this queue exactly once, so nothing else frees or reads it.
            drop(unsafe { Box::from_raw(old as *mut Header) });
        }
    }
}

impl<T: ClObject> Obj<T> {
    /// Creates an object with an application reference count of 1 and registers its handle.
    pub fn new(inner: T) -> Ref<T> {
        let header = Box::into_raw(Box::new(Header { dispatch: DISPATCH.load(Ordering::Acquire) }));
        let addr = header as usize;
        let obj = Arc::new(Obj { handle: addr, api_refs: AtomicU32::new(1), inner });
        REGISTRY.write().insert(addr, Entry { kind: T::KIND, obj: obj.clone() });
        obj
    }

    /// The handle of this object (valid while registered).
    pub fn handle(self: &Arc<Self>) -> T::Handle {
        T::addr_to_handle(self.handle)
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
        if prev == 0 || !reg.contains_key(&o.handle) {
            return Err(T::INVALID);
        }
        o.api_refs.store(prev - 1, Ordering::Release);
        if prev == 1 {
            reg.remove(&o.handle);
            drop(reg);
            quarantine(o.handle);
            return Ok(Some(o));
        }
        Ok(None)
    }

    /// The application reference count (`CL_*_REFERENCE_COUNT`).
    pub fn api_ref_count(&self) -> u32 {
        self.api_refs.load(Ordering::Acquire)
    }
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
