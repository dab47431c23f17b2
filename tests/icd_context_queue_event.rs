//! Contexts, command queues and events (OpenCL 3.0 §4.4, §5.1, §5.11–5.12, §5.15), called through
//! Debian's ICD loader: creation and its errors, info queries, reference counting and release
//! order, destructor callbacks, user events, event callbacks, wait lists (within and across
//! queues and contexts), markers and barriers in in-order and out-of-order queues, profiling,
//! failure propagation, `clFinish`, and concurrent enqueues from several host threads.
//!
//! No test relies on timing: "not yet complete" is asserted only where completion is impossible
//! (a user event gates it), and every wait has a generous timeout that only turns a hang into a
//! failure.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Only a failure guard: no correct run comes near it.
const GUARD: Duration = Duration::from_secs(60);

/// One callback invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    tag: usize,
    handle: usize,
    status: cl_int,
}

/// Collects callback invocations; tests wait on it with a condition variable.
struct Recorder {
    log: Mutex<Vec<Record>>,
    cv: Condvar,
}

/// The `user_data` of a callback: which recorder, and a tag identifying the registration.
struct Tag {
    rec: &'static Recorder,
    tag: usize,
}

impl Recorder {
    fn new() -> &'static Recorder {
        Box::leak(Box::new(Recorder { log: Mutex::new(Vec::new()), cv: Condvar::new() }))
    }

    fn user(&'static self, tag: usize) -> *mut c_void {
        Box::into_raw(Box::new(Tag { rec: self, tag })) as *mut c_void
    }

    fn push(&self, r: Record) {
        self.log.lock().unwrap().push(r);
        self.cv.notify_all();
    }

    fn records(&self) -> Vec<Record> {
        self.log.lock().unwrap().clone()
    }

    /// Waits until at least `n` records arrived (fails after [`GUARD`]).
    #[track_caller]
    fn wait_len(&self, n: usize) -> Vec<Record> {
        let deadline = Instant::now() + GUARD;
        let mut log = self.log.lock().unwrap();
        while log.len() < n {
            let left = deadline.checked_duration_since(Instant::now()).unwrap_or_else(|| {
                panic!("timed out waiting for {n} callbacks; got {:?}", *log);
            });
            log = self.cv.wait_timeout(log, left).unwrap().0;
        }
        log.clone()
    }
}

extern "C" fn event_cb(e: cl_event, status: cl_int, user: *mut c_void) {
    // SAFETY: `user` is a leaked `Tag` made by `Recorder::user` (never freed).
    let t = unsafe { &*(user as *const Tag) };
    t.rec.push(Record { tag: t.tag, handle: e as usize, status });
}

extern "C" fn context_destructor(c: cl_context, user: *mut c_void) {
    // SAFETY: as in `event_cb`.
    let t = unsafe { &*(user as *const Tag) };
    t.rec.push(Record { tag: t.tag, handle: c as usize, status: 0 });
}

extern "C" fn context_notify(_msg: *const std::ffi::c_char, _info: *const c_void, _n: usize, user: *mut c_void) {
    // SAFETY: as in `event_cb`.
    let t = unsafe { &*(user as *const Tag) };
    t.rec.push(Record { tag: t.tag, handle: 0, status: 0 });
}

#[track_caller]
fn on_status(e: cl_event, trigger: cl_int, rec: &'static Recorder, tag: usize) {
    // SAFETY: a valid callback and a user_data that outlives it.
    check(unsafe { (cl().clSetEventCallback)(e, trigger, Some(event_cb), rec.user(tag)) }, "clSetEventCallback");
}

/// Waits (with the guard) until `e` finished; returns its final status.
#[track_caller]
fn wait_done(e: cl_event) -> cl_int {
    let rec = Recorder::new();
    on_status(e, CL_COMPLETE, rec, 0);
    let status = rec.wait_len(1)[0].status;
    assert_eq!(status, event_status(e));
    status
}

fn as_ptr(list: &[cl_event]) -> *const cl_event {
    if list.is_empty() {
        null()
    } else {
        list.as_ptr()
    }
}

#[track_caller]
fn marker(q: cl_command_queue, wait: &[cl_event]) -> cl_event {
    let mut e = null_mut();
    // SAFETY: a wait list of `wait.len()` events (NULL when empty) and an out-pointer.
    let code = unsafe { (cl().clEnqueueMarkerWithWaitList)(q, wait.len() as cl_uint, as_ptr(wait), &mut e) };
    check(code, "clEnqueueMarkerWithWaitList");
    e
}

#[track_caller]
fn barrier(q: cl_command_queue, wait: &[cl_event]) -> cl_event {
    let mut e = null_mut();
    // SAFETY: as in `marker`.
    let code = unsafe { (cl().clEnqueueBarrierWithWaitList)(q, wait.len() as cl_uint, as_ptr(wait), &mut e) };
    check(code, "clEnqueueBarrierWithWaitList");
    e
}

fn wait_events(list: &[cl_event]) -> cl_int {
    // SAFETY: a list of `list.len()` events.
    unsafe { (cl().clWaitForEvents)(list.len() as cl_uint, as_ptr(list)) }
}

#[track_caller]
fn set_user(e: cl_event, status: cl_int) {
    // SAFETY: plain handle and value.
    check(unsafe { (cl().clSetUserEventStatus)(e, status) }, "clSetUserEventStatus");
}

/// A user event already set to `CL_COMPLETE`.
fn completed(ctx: cl_context) -> cl_event {
    let e = user_event(ctx);
    set_user(e, CL_COMPLETE);
    e
}

fn release_events(list: &[cl_event]) {
    for &e in list {
        // SAFETY: each handle is owned by the caller and released once.
        check(unsafe { (cl().clReleaseEvent)(e) }, "clReleaseEvent");
    }
}

fn release_queue(q: cl_command_queue) {
    // SAFETY: owned handle, released once.
    check(unsafe { (cl().clReleaseCommandQueue)(q) }, "clReleaseCommandQueue");
}

fn release_context(c: cl_context) {
    // SAFETY: owned handle, released once.
    check(unsafe { (cl().clReleaseContext)(c) }, "clReleaseContext");
}

fn create_context(props: &[cl_context_properties]) -> Result<cl_context, cl_int> {
    let (d, mut err) = (device(), 0);
    let p = if props.is_empty() { null() } else { props.as_ptr() };
    // SAFETY: one valid device, a zero-terminated (or NULL) property list.
    let c = unsafe { (cl().clCreateContext)(p, 1, &d, None, null_mut(), &mut err) };
    assert_eq!(c.is_null(), err != CL_SUCCESS);
    if err == CL_SUCCESS {
        Ok(c)
    } else {
        Err(err)
    }
}

fn create_queue(ctx: cl_context, dev: cl_device_id, props: &[cl_queue_properties]) -> Result<cl_command_queue, cl_int> {
    let mut err = 0;
    let p = if props.is_empty() { null() } else { props.as_ptr() };
    // SAFETY: a zero-terminated (or NULL) property list.
    let q = unsafe { (cl().clCreateCommandQueueWithProperties)(ctx, dev, p, &mut err) };
    assert_eq!(q.is_null(), err != CL_SUCCESS);
    if err == CL_SUCCESS {
        Ok(q)
    } else {
        Err(err)
    }
}

const OOO: cl_command_queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
const PROFILING: cl_command_queue_properties = CL_QUEUE_PROFILING_ENABLE;

// ---------------------------------------------------------------------------------------------
// Contexts

#[test]
fn context_properties_and_info() {
    let (cl, p, d) = (cl(), platform(), device());
    let f = cl.clGetContextInfo;
    let props = [CL_CONTEXT_PLATFORM as cl_context_properties, p as cl_context_properties, 0];
    let c = create_context(&props).unwrap();
    assert_eq!(info_vec::<cl_context_properties, _, _>(f, c, CL_CONTEXT_PROPERTIES), props);
    assert_eq!(info_value::<cl_uint, _, _>(f, c, CL_CONTEXT_NUM_DEVICES), 1);
    assert_eq!(info_vec::<cl_device_id, _, _>(f, c, CL_CONTEXT_DEVICES), [d]);
    assert_eq!(info_value::<cl_uint, _, _>(f, c, CL_CONTEXT_REFERENCE_COUNT), 1);
    let mut small = [0u8; 8];
    // SAFETY: 8 writable bytes; the value needs 24.
    let code = unsafe { f(c, CL_CONTEXT_PROPERTIES, 8, small.as_mut_ptr() as *mut c_void, null_mut()) };
    expect_err(code, CL_INVALID_VALUE, "too-small buffer");
    let mut size = 0;
    // SAFETY: size query.
    let code = unsafe { f(c, 0x7777, 0, null_mut(), &mut size) };
    expect_err(code, CL_INVALID_VALUE, "unknown query");
    release_context(c);

    // No properties: CL_CONTEXT_PROPERTIES is empty.
    let c = create_context(&[]).unwrap();
    assert!(info_bytes(f, c, CL_CONTEXT_PROPERTIES).is_empty());
    release_context(c);
    let sync = [CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties, CL_TRUE as cl_context_properties, 0];
    release_context(create_context(&sync).unwrap());
}

#[test]
fn context_creation_errors() {
    let (cl, p, d) = (cl(), platform(), device());
    let plat = CL_CONTEXT_PLATFORM as cl_context_properties;
    let cases: [(&[cl_context_properties], cl_int); 3] = [
        (&[plat, d as cl_context_properties, 0], CL_INVALID_PLATFORM),
        (&[plat, p as cl_context_properties, plat, p as cl_context_properties, 0], CL_INVALID_PROPERTY),
        (&[plat, p as cl_context_properties, 0x7777, 1, 0], CL_INVALID_PROPERTY),
    ];
    for (props, want) in cases {
        expect_err(create_context(props).unwrap_err(), want, &format!("properties {props:x?}"));
    }
    let mut err = 0;
    let rec = Recorder::new();
    // SAFETY: each call is invalid only by its arguments; pointers are valid.
    unsafe {
        let c = (cl.clCreateContext)(null(), 0, &d, None, null_mut(), &mut err);
        assert!(c.is_null());
        expect_err(err, CL_INVALID_VALUE, "no devices");
        let c = (cl.clCreateContext)(null(), 1, null(), None, null_mut(), &mut err);
        assert!(c.is_null());
        expect_err(err, CL_INVALID_VALUE, "NULL device list");
        let bad = [d, p as cl_device_id];
        let c = (cl.clCreateContext)(null(), 2, bad.as_ptr(), None, null_mut(), &mut err);
        assert!(c.is_null());
        expect_err(err, CL_INVALID_DEVICE, "a platform in the device list");
        let c = (cl.clCreateContext)(null(), 1, &d, None, rec.user(1), &mut err);
        assert!(c.is_null());
        expect_err(err, CL_INVALID_VALUE, "user_data without pfn_notify");
        // A context with a notification callback works normally and is not notified.
        let c = (cl.clCreateContext)(null(), 1, &d, Some(context_notify), rec.user(2), &mut err);
        check(err, "clCreateContext with pfn_notify");
        let e = completed(c);
        release_events(&[e]);
        release_context(c);
    }
    assert!(rec.records().is_empty());
}

#[test]
fn context_from_type() {
    let (cl, d) = (cl(), device());
    for ty in [CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL] {
        let mut err = 0;
        // SAFETY: no properties, no callback.
        let c = unsafe { (cl.clCreateContextFromType)(null(), ty, None, null_mut(), &mut err) };
        check(err, "clCreateContextFromType");
        assert_eq!(info_vec::<cl_device_id, _, _>(cl.clGetContextInfo, c, CL_CONTEXT_DEVICES), [d]);
        release_context(c);
    }
    let props = [CL_CONTEXT_PLATFORM as cl_context_properties, platform() as cl_context_properties, 0];
    for (ty, want) in [
        (CL_DEVICE_TYPE_CPU, CL_DEVICE_NOT_FOUND),
        (CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_NOT_FOUND),
        (1 << 40, CL_INVALID_DEVICE_TYPE),
    ] {
        let mut err = 0;
        // SAFETY: a zero-terminated property list.
        let c = unsafe { (cl.clCreateContextFromType)(props.as_ptr(), ty, None, null_mut(), &mut err) };
        assert!(c.is_null());
        expect_err(err, want, &format!("type {ty:#x}"));
    }
}

#[test]
fn destructor_callbacks_run_last_registered_first() {
    let cl = cl();
    let rec = Recorder::new();
    let c = context();
    // SAFETY: valid callback and user data; the invalid calls are invalid by argument only.
    unsafe {
        for tag in 1..=3 {
            check((cl.clSetContextDestructorCallback)(c, Some(context_destructor), rec.user(tag)), "register");
        }
        let code = (cl.clSetContextDestructorCallback)(c, None, null_mut());
        expect_err(code, CL_INVALID_VALUE, "NULL callback");
        let code = (cl.clSetContextDestructorCallback)(device() as cl_context, Some(context_destructor), null_mut());
        expect_err(code, CL_INVALID_CONTEXT, "device as context");
        check((cl.clRetainContext)(c), "clRetainContext");
    }
    assert_eq!(info_value::<cl_uint, _, _>(cl.clGetContextInfo, c, CL_CONTEXT_REFERENCE_COUNT), 2);
    release_context(c);
    assert_eq!(info_value::<cl_uint, _, _>(cl.clGetContextInfo, c, CL_CONTEXT_REFERENCE_COUNT), 1);
    assert!(rec.records().is_empty(), "still referenced");
    release_context(c);
    let log = rec.wait_len(3);
    assert_eq!(log.iter().map(|r| r.tag).collect::<Vec<_>>(), [3, 2, 1]);
    assert!(log.iter().all(|r| r.handle == c as usize));
}

#[test]
fn objects_stay_usable_by_their_holders_after_release() {
    let (cl, d) = (cl(), device());
    let rec = Recorder::new();
    let c = context();
    // SAFETY: valid callback and user data.
    check(unsafe { (cl.clSetContextDestructorCallback)(c, Some(context_destructor), rec.user(7)) }, "register");
    let q = queue(c, 0);
    let u = user_event(c);
    release_context(c); // the application's last reference: the queue and the event still hold it
    let m = marker(q, &[u]);
    assert_eq!(info_value::<cl_context, _, _>(cl.clGetCommandQueueInfo, q, CL_QUEUE_CONTEXT), c);
    assert_eq!(info_value::<cl_device_id, _, _>(cl.clGetCommandQueueInfo, q, CL_QUEUE_DEVICE), d);
    assert_eq!(info_value::<cl_context, _, _>(cl.clGetEventInfo, m, CL_EVENT_CONTEXT), c);
    // The handle itself is gone for the application (its object is still alive, so this is safe).
    // SAFETY: the context object is alive (held by q and u), only its handle was released.
    expect_err(unsafe { (cl.clRetainContext)(c) }, CL_INVALID_CONTEXT, "released context handle");
    set_user(u, CL_COMPLETE);
    assert_eq!(wait_done(m), CL_COMPLETE);
    release_events(&[m]);
    // SAFETY: owned handle.
    check(unsafe { (cl.clFinish)(q) }, "clFinish");
    // Release order: queue first, then the last event; the context goes with the last holder.
    release_queue(q);
    assert!(rec.records().is_empty(), "the user event still holds the context");
    release_events(&[u]);
    assert_eq!(rec.wait_len(1), [Record { tag: 7, handle: c as usize, status: 0 }]);
}

#[test]
fn queue_released_with_pending_commands_runs_them() {
    let rec = Recorder::new();
    let c = context();
    // SAFETY: valid callback and user data.
    check(unsafe { (cl().clSetContextDestructorCallback)(c, Some(context_destructor), rec.user(1)) }, "register");
    let (q, u) = (queue(c, OOO), user_event(c));
    let m = marker(q, &[u]);
    on_status(m, CL_COMPLETE, rec, 2);
    release_events(&[m]);
    release_queue(q);
    release_context(c);
    set_user(u, CL_COMPLETE);
    // The marker still runs (release is an implicit flush), then the context is destroyed.
    let first = rec.wait_len(1)[0];
    assert_eq!((first.tag, first.status), (2, CL_COMPLETE));
    release_events(&[u]);
    assert_eq!(rec.wait_len(2)[1].tag, 1);
}

// ---------------------------------------------------------------------------------------------
// Queues

#[test]
fn queue_creation_and_info() {
    let (cl, d) = (cl(), device());
    let f = cl.clGetCommandQueueInfo;
    let c = context();
    let qp = CL_QUEUE_PROPERTIES as cl_queue_properties;
    for props in [0, OOO, PROFILING, OOO | PROFILING] {
        let list = [qp, props, 0];
        let q = create_queue(c, d, &list).unwrap();
        assert_eq!(info_value::<cl_command_queue_properties, _, _>(f, q, CL_QUEUE_PROPERTIES), props);
        assert_eq!(info_vec::<cl_queue_properties, _, _>(f, q, CL_QUEUE_PROPERTIES_ARRAY), list);
        assert_eq!(info_value::<cl_context, _, _>(f, q, CL_QUEUE_CONTEXT), c);
        assert_eq!(info_value::<cl_device_id, _, _>(f, q, CL_QUEUE_DEVICE), d);
        assert_eq!(info_value::<cl_uint, _, _>(f, q, CL_QUEUE_REFERENCE_COUNT), 1);
        assert!(info_value::<cl_command_queue, _, _>(f, q, CL_QUEUE_DEVICE_DEFAULT).is_null());
        release_queue(q);
    }
    // NULL properties: an in-order queue, an empty properties array.
    let q = create_queue(c, d, &[]).unwrap();
    assert_eq!(info_value::<cl_command_queue_properties, _, _>(f, q, CL_QUEUE_PROPERTIES), 0);
    assert!(info_bytes(f, q, CL_QUEUE_PROPERTIES_ARRAY).is_empty());
    let mut size = 0;
    // SAFETY: size queries, retain/release of an owned handle.
    unsafe {
        expect_err(
            f(q, CL_QUEUE_SIZE, 0, null_mut(), &mut size),
            CL_INVALID_COMMAND_QUEUE,
            "CL_QUEUE_SIZE of a host queue",
        );
        expect_err(f(q, 0x7777, 0, null_mut(), &mut size), CL_INVALID_VALUE, "unknown query");
        check((cl.clRetainCommandQueue)(q), "clRetainCommandQueue");
        assert_eq!(info_value::<cl_uint, _, _>(f, q, CL_QUEUE_REFERENCE_COUNT), 2);
        check((cl.clReleaseCommandQueue)(q), "clReleaseCommandQueue");
        assert_eq!(info_value::<cl_uint, _, _>(f, q, CL_QUEUE_REFERENCE_COUNT), 1);
        check((cl.clFlush)(q), "clFlush");
        check((cl.clFinish)(q), "clFinish");
    }
    release_queue(q);
    // The OpenCL 1.x entry point: a bitfield, no properties array.
    let mut err = 0;
    // SAFETY: valid handles.
    let q = unsafe { (cl.clCreateCommandQueue)(c, d, OOO | PROFILING, &mut err) };
    check(err, "clCreateCommandQueue");
    assert_eq!(info_value::<cl_command_queue_properties, _, _>(f, q, CL_QUEUE_PROPERTIES), OOO | PROFILING);
    assert!(info_bytes(f, q, CL_QUEUE_PROPERTIES_ARRAY).is_empty());
    release_queue(q);
    release_context(c);
}

#[test]
fn queue_creation_errors() {
    let (cl, d, p) = (cl(), device(), platform());
    let c = context();
    let qp = CL_QUEUE_PROPERTIES as cl_queue_properties;
    let cases: [(&[cl_queue_properties], &[cl_int]); 6] = [
        (&[0x7777, 0, 0], &[CL_INVALID_VALUE]),
        (&[qp, 1 << 20, 0], &[CL_INVALID_VALUE]),
        (&[qp, OOO, qp, 0, 0], &[CL_INVALID_VALUE]),
        (&[qp, CL_QUEUE_ON_DEVICE | OOO, 0], &[CL_INVALID_QUEUE_PROPERTIES]),
        (&[qp, CL_QUEUE_ON_DEVICE_DEFAULT, 0], &[CL_INVALID_VALUE]),
        (&[CL_QUEUE_SIZE as cl_queue_properties, 1024, 0], &[CL_INVALID_VALUE, CL_INVALID_QUEUE_PROPERTIES]),
    ];
    for (props, want) in cases {
        let err = create_queue(c, d, props).unwrap_err();
        assert!(want.contains(&err), "{props:x?}: got {}", err_name(err));
    }
    expect_err(create_queue(d as cl_context, d, &[]).unwrap_err(), CL_INVALID_CONTEXT, "device as context");
    expect_err(create_queue(c, p as cl_device_id, &[]).unwrap_err(), CL_INVALID_DEVICE, "platform as device");
    expect_err(create_queue(c, null_mut(), &[]).unwrap_err(), CL_INVALID_DEVICE, "NULL device");
    let mut err = 0;
    // SAFETY: valid handles; invalid bitfields.
    unsafe {
        let q = (cl.clCreateCommandQueue)(c, d, 1 << 20, &mut err);
        assert!(q.is_null());
        expect_err(err, CL_INVALID_VALUE, "clCreateCommandQueue with an unknown bit");
        let q = (cl.clCreateCommandQueue)(c, d, CL_QUEUE_ON_DEVICE, &mut err);
        assert!(q.is_null());
        assert!(err == CL_INVALID_QUEUE_PROPERTIES || err == CL_INVALID_VALUE, "on device: {}", err_name(err));
        expect_err((cl.clFinish)(c as cl_command_queue), CL_INVALID_COMMAND_QUEUE, "context as queue");
    }
    release_context(c);
}

// ---------------------------------------------------------------------------------------------
// Events

#[test]
fn user_event_rules() {
    let cl = cl();
    let f = cl.clGetEventInfo;
    let c = context();
    let u = user_event(c);
    assert_eq!(event_status(u), CL_SUBMITTED);
    assert_eq!(info_value::<cl_command_type, _, _>(f, u, CL_EVENT_COMMAND_TYPE), CL_COMMAND_USER);
    assert!(info_value::<cl_command_queue, _, _>(f, u, CL_EVENT_COMMAND_QUEUE).is_null());
    assert_eq!(info_value::<cl_context, _, _>(f, u, CL_EVENT_CONTEXT), c);
    assert_eq!(info_value::<cl_uint, _, _>(f, u, CL_EVENT_REFERENCE_COUNT), 1);
    let (mut t, mut size) = (0u64, 0usize);
    // SAFETY: valid handles and pointers; calls invalid by argument only.
    unsafe {
        check((cl.clRetainEvent)(u), "clRetainEvent");
        assert_eq!(info_value::<cl_uint, _, _>(f, u, CL_EVENT_REFERENCE_COUNT), 2);
        check((cl.clReleaseEvent)(u), "clReleaseEvent");
        for bad in [CL_SUBMITTED, CL_RUNNING, CL_QUEUED, 5] {
            expect_err((cl.clSetUserEventStatus)(u, bad), CL_INVALID_VALUE, &format!("status {bad}"));
        }
        let code = (cl.clGetEventProfilingInfo)(
            u,
            CL_PROFILING_COMMAND_QUEUED,
            8,
            &mut t as *mut u64 as *mut c_void,
            null_mut(),
        );
        expect_err(code, CL_PROFILING_INFO_NOT_AVAILABLE, "profiling a user event");
        check((cl.clSetUserEventStatus)(u, CL_COMPLETE), "set complete");
        expect_err((cl.clSetUserEventStatus)(u, CL_COMPLETE), CL_INVALID_OPERATION, "second set");
        expect_err((cl.clSetUserEventStatus)(u, -3), CL_INVALID_OPERATION, "set after complete");
        assert_eq!(event_status(u), CL_COMPLETE);
        let v = user_event(c);
        check((cl.clSetUserEventStatus)(v, -42), "set an error");
        assert_eq!(event_status(v), -42);
        expect_err((cl.clSetUserEventStatus)(v, CL_COMPLETE), CL_INVALID_OPERATION, "set after error");
        // Not a user event.
        let q = queue(c, 0);
        let m = marker(q, &[]);
        expect_err((cl.clSetUserEventStatus)(m, CL_COMPLETE), CL_INVALID_EVENT, "a marker event");
        expect_err(f(m, 0x7777, 0, null_mut(), &mut size), CL_INVALID_VALUE, "unknown event query");
        let mut small = 0u16;
        let code = f(m, CL_EVENT_COMMAND_TYPE, 2, &mut small as *mut u16 as *mut c_void, null_mut());
        expect_err(code, CL_INVALID_VALUE, "too-small buffer");
        let mut err = 0;
        let bad = (cl.clCreateUserEvent)(q as cl_context, &mut err);
        assert!(bad.is_null());
        expect_err(err, CL_INVALID_CONTEXT, "queue as context");
        expect_err((cl.clReleaseEvent)(q as cl_event), CL_INVALID_EVENT, "queue as event");
        release_events(&[u, v, m]);
        release_queue(q);
    }
    release_context(c);
}

#[test]
fn callbacks_for_each_status() {
    let cl = cl();
    let c = context();
    let q = queue(c, 0);
    let u = user_event(c);
    let m = marker(q, &[u]);
    let rec = Recorder::new();
    for (tag, trigger) in [(1, CL_SUBMITTED), (2, CL_RUNNING), (3, CL_COMPLETE)] {
        on_status(m, trigger, rec, tag);
    }
    // The marker is at least submitted; it cannot run before `u` completes.
    let early = rec.wait_len(1);
    assert_eq!(early, [Record { tag: 1, handle: m as usize, status: CL_SUBMITTED }]);
    set_user(u, CL_COMPLETE);
    let mut log = rec.wait_len(3);
    log.sort_by_key(|r| r.tag);
    let want = |tag, status| Record { tag, handle: m as usize, status };
    assert_eq!(log, [want(1, CL_SUBMITTED), want(2, CL_RUNNING), want(3, CL_COMPLETE)]);
    // Registered after completion: each runs at once, with the status it was registered for.
    for (tag, trigger) in [(4, CL_SUBMITTED), (5, CL_RUNNING), (6, CL_COMPLETE)] {
        on_status(m, trigger, rec, tag);
    }
    let log = rec.wait_len(6);
    assert_eq!(&log[3..], [want(4, CL_SUBMITTED), want(5, CL_RUNNING), want(6, CL_COMPLETE)]);

    // A failed user event: callbacks not yet reached get the error.
    let v = user_event(c);
    for (tag, trigger) in [(7, CL_SUBMITTED), (8, CL_RUNNING), (9, CL_COMPLETE)] {
        on_status(v, trigger, rec, tag);
    }
    assert_eq!(rec.wait_len(7)[6], Record { tag: 7, handle: v as usize, status: CL_SUBMITTED });
    set_user(v, -9);
    let mut log = rec.wait_len(9);
    log[7..].sort_by_key(|r| r.tag);
    assert_eq!(
        &log[7..],
        [Record { tag: 8, handle: v as usize, status: -9 }, Record { tag: 9, handle: v as usize, status: -9 }]
    );

    // SAFETY: invalid by argument only.
    unsafe {
        let code = (cl.clSetEventCallback)(m, CL_QUEUED, Some(event_cb), rec.user(0));
        expect_err(code, CL_INVALID_VALUE, "CL_QUEUED trigger");
        expect_err((cl.clSetEventCallback)(m, CL_COMPLETE, None, null_mut()), CL_INVALID_VALUE, "NULL callback");
        let code = (cl.clSetEventCallback)(c as cl_event, CL_COMPLETE, Some(event_cb), rec.user(0));
        expect_err(code, CL_INVALID_EVENT, "context as event");
        check((cl.clFinish)(q), "clFinish");
    }
    // Nothing ran twice.
    assert_eq!(rec.records().len(), 9);
    release_events(&[u, m, v]);
    release_queue(q);
    release_context(c);
}

#[test]
fn wait_for_events_rules() {
    let cl = cl();
    let (c1, c2) = (context(), context());
    let (a, b) = (completed(c1), completed(c2));
    let e: cl_event = null_mut();
    expect_err(wait_events(&[]), CL_INVALID_VALUE, "no events");
    // SAFETY: invalid by argument only.
    expect_err(unsafe { (cl.clWaitForEvents)(1, null()) }, CL_INVALID_VALUE, "NULL list");
    expect_err(wait_events(&[e]), CL_INVALID_EVENT, "a NULL event");
    expect_err(wait_events(&[a, c1 as cl_event]), CL_INVALID_EVENT, "a context as event");
    expect_err(wait_events(&[a, b]), CL_INVALID_CONTEXT, "events of two contexts");
    check(wait_events(&[a, a]), "the same event twice");
    let failed = user_event(c1);
    set_user(failed, -1);
    expect_err(wait_events(&[a, failed]), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "a failed event");

    // A waiter blocked on a user event is woken by another thread setting it.
    let u = user_event(c1);
    let handle = u as usize;
    let waiter = std::thread::spawn(move || wait_events(&[handle as cl_event]));
    set_user(u, CL_COMPLETE);
    check(waiter.join().unwrap(), "clWaitForEvents on another thread");
    release_events(&[a, b, failed, u]);
    release_context(c1);
    release_context(c2);
}

#[test]
fn wait_lists_across_queues_and_contexts() {
    let cl = cl();
    let (c, other) = (context(), context());
    let (q1, q2, q3) = (queue(c, 0), queue(c, OOO), queue(other, 0));
    let u = user_event(c);
    let a = marker(q1, &[u]);
    let b = barrier(q2, &[a]);
    let z = marker(q3, &[]);
    assert_eq!(wait_done(z), CL_COMPLETE, "an unrelated context's queue is not blocked");
    assert!(event_status(a) > CL_COMPLETE && event_status(b) > CL_COMPLETE, "gated by u");
    set_user(u, CL_COMPLETE);
    assert_eq!(wait_done(b), CL_COMPLETE);
    assert_eq!(event_status(a), CL_COMPLETE);

    let e: cl_event = null_mut();
    let mut out = null_mut();
    // SAFETY: the lists hold `n` handles (or are deliberately NULL); invalid by argument only.
    unsafe {
        let code = (cl.clEnqueueMarkerWithWaitList)(q1, 1, &z, &mut out);
        expect_err(code, CL_INVALID_CONTEXT, "an event of another context");
        let code = (cl.clEnqueueBarrierWithWaitList)(q3, 2, [z, a].as_ptr(), &mut out);
        expect_err(code, CL_INVALID_CONTEXT, "an event of another context");
        let code = (cl.clEnqueueMarkerWithWaitList)(q1, 1, null(), &mut out);
        expect_err(code, CL_INVALID_EVENT_WAIT_LIST, "1 event, NULL list");
        let code = (cl.clEnqueueMarkerWithWaitList)(q1, 0, &a, &mut out);
        expect_err(code, CL_INVALID_EVENT_WAIT_LIST, "0 events, a list");
        let code = (cl.clEnqueueBarrierWithWaitList)(q1, 1, &e, &mut out);
        expect_err(code, CL_INVALID_EVENT_WAIT_LIST, "a NULL event in the list");
        let code = (cl.clEnqueueWaitForEvents)(q1, 1, &z);
        expect_err(code, CL_INVALID_CONTEXT, "clEnqueueWaitForEvents across contexts");
        let code = (cl.clEnqueueWaitForEvents)(q1, 0, null());
        expect_err(code, CL_INVALID_VALUE, "clEnqueueWaitForEvents without events");
        // A marker may be enqueued without asking for its event.
        let code = (cl.clEnqueueMarkerWithWaitList)(q1, 1, &a, null_mut());
        check(code, "marker without an event");
        for q in [q1, q2, q3] {
            check((cl.clFinish)(q), "clFinish");
        }
    }
    release_events(&[u, a, b, z]);
    for q in [q1, q2, q3] {
        release_queue(q);
    }
    release_context(c);
    release_context(other);
}

#[test]
fn markers_and_barriers_in_order() {
    let cl = cl();
    let c = context();
    let q = queue(c, 0);
    let (u, done) = (user_event(c), completed(c));
    let m1 = marker(q, &[u]);
    let m2 = marker(q, &[]);
    let b1 = barrier(q, &[]);
    let b2 = barrier(q, &[done]);
    let m3 = marker(q, &[done]);
    let mut legacy = null_mut();
    // SAFETY: valid handles and out-pointers.
    unsafe {
        check((cl.clEnqueueWaitForEvents)(q, 1, &done), "clEnqueueWaitForEvents");
        check((cl.clEnqueueBarrier)(q), "clEnqueueBarrier");
        check((cl.clEnqueueMarker)(q, &mut legacy), "clEnqueueMarker");
        expect_err((cl.clEnqueueMarker)(q, null_mut()), CL_INVALID_VALUE, "clEnqueueMarker(NULL)");
    }
    let all = [m1, m2, b1, b2, m3, legacy];
    // In order: everything waits for m1, which waits for u.
    assert!(all.iter().all(|&e| event_status(e) > CL_COMPLETE));
    set_user(u, CL_COMPLETE);
    assert_eq!(wait_done(legacy), CL_COMPLETE);
    check(wait_events(&all), "clWaitForEvents");
    let f = cl.clGetEventInfo;
    for (e, ty) in [
        (m1, CL_COMMAND_MARKER),
        (m2, CL_COMMAND_MARKER),
        (b1, CL_COMMAND_BARRIER),
        (b2, CL_COMMAND_BARRIER),
        (legacy, CL_COMMAND_MARKER),
    ] {
        assert_eq!(info_value::<cl_command_type, _, _>(f, e, CL_EVENT_COMMAND_TYPE), ty);
        assert_eq!(info_value::<cl_command_queue, _, _>(f, e, CL_EVENT_COMMAND_QUEUE), q);
        assert_eq!(info_value::<cl_context, _, _>(f, e, CL_EVENT_CONTEXT), c);
    }
    release_events(&all);
    release_events(&[u, done]);
    release_queue(q);
    release_context(c);
}

#[test]
fn out_of_order_queue_runs_ready_commands_first() {
    let c = context();
    let q = queue(c, OOO);
    let (u, done) = (user_event(c), completed(c));
    let blocked = marker(q, &[u]);
    let free = marker(q, &[done]);
    assert_eq!(wait_done(free), CL_COMPLETE, "a ready command runs while an earlier one is blocked");
    assert!(event_status(blocked) > CL_COMPLETE);
    // A marker without a wait list waits for every earlier command.
    let all = marker(q, &[]);
    // A barrier with a wait list waits for that list only...
    let (v, w) = (user_event(c), user_event(c));
    let b = barrier(q, &[v]);
    // ...but holds every later command, even one whose own wait list is complete.
    let later = marker(q, &[done]);
    let later2 = barrier(q, &[]);
    set_user(v, CL_COMPLETE);
    assert_eq!(wait_done(b), CL_COMPLETE, "the barrier waits for v only");
    assert_eq!(wait_done(later), CL_COMPLETE);
    assert!(event_status(blocked) > CL_COMPLETE && event_status(all) > CL_COMPLETE);
    assert!(event_status(later2) > CL_COMPLETE, "a barrier without a list waits for all earlier commands");
    // A barrier without a wait list holds later commands until everything before it completed.
    let after = marker(q, &[w]);
    set_user(w, CL_COMPLETE);
    assert!(event_status(after) > CL_COMPLETE, "held by the barrier, which waits for `blocked`");
    set_user(u, CL_COMPLETE);
    for e in [blocked, all, later2, after] {
        assert_eq!(wait_done(e), CL_COMPLETE);
    }
    release_events(&[u, v, w, done, blocked, free, all, b, later, later2, after]);
    release_queue(q);
    release_context(c);
}

#[test]
fn barrier_in_out_of_order_queue_holds_later_commands() {
    let c = context();
    let q = queue(c, OOO);
    let (gate, done) = (user_event(c), completed(c));
    let first = marker(q, &[gate]);
    let b = barrier(q, &[]);
    let held: Vec<cl_event> = (0..8).map(|i| if i % 2 == 0 { marker(q, &[done]) } else { marker(q, &[]) }).collect();
    // Another queue of the context keeps running meanwhile.
    let q2 = queue(c, OOO);
    let elsewhere = marker(q2, &[done]);
    assert_eq!(wait_done(elsewhere), CL_COMPLETE);
    assert!(held.iter().chain([&first, &b]).all(|&e| event_status(e) > CL_COMPLETE));
    set_user(gate, CL_COMPLETE);
    for &e in held.iter().chain([&first, &b]) {
        assert_eq!(wait_done(e), CL_COMPLETE);
    }
    release_events(&held);
    release_events(&[gate, done, first, b, elsewhere]);
    release_queue(q);
    release_queue(q2);
    release_context(c);
}

fn profile(e: cl_event) -> [u64; 5] {
    [
        CL_PROFILING_COMMAND_QUEUED,
        CL_PROFILING_COMMAND_SUBMIT,
        CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END,
        CL_PROFILING_COMMAND_COMPLETE,
    ]
    .map(|p| info_value::<u64, _, _>(cl().clGetEventProfilingInfo, e, p))
}

#[test]
fn profiling_timestamps() {
    let (cl, d) = (cl(), device());
    let c = context();
    let (q, plain) = (queue(c, PROFILING), queue(c, 0));
    let u = user_event(c);
    let (mut t0, mut t1, mut v) = (0u64, 0u64, 0u64);
    // SAFETY: valid out-pointer.
    check(unsafe { (cl.clGetHostTimer)(d, &mut t0) }, "clGetHostTimer");
    let m = marker(q, &[u]);
    let b = barrier(q, &[]);
    let unprofiled = marker(plain, &[]);
    let vp = &mut v as *mut u64 as *mut c_void;
    // SAFETY: 8 writable bytes (or fewer, deliberately announced).
    unsafe {
        let code = (cl.clGetEventProfilingInfo)(m, CL_PROFILING_COMMAND_END, 8, vp, null_mut());
        expect_err(code, CL_PROFILING_INFO_NOT_AVAILABLE, "not complete yet");
        set_user(u, CL_COMPLETE);
        assert_eq!(wait_done(b), CL_COMPLETE);
        assert_eq!(wait_done(unprofiled), CL_COMPLETE);
        let code = (cl.clGetEventProfilingInfo)(unprofiled, CL_PROFILING_COMMAND_END, 8, vp, null_mut());
        expect_err(code, CL_PROFILING_INFO_NOT_AVAILABLE, "queue without profiling");
        let code = (cl.clGetEventProfilingInfo)(m, 0x7777, 8, vp, null_mut());
        expect_err(code, CL_INVALID_VALUE, "unknown profiling query");
        let code = (cl.clGetEventProfilingInfo)(m, CL_PROFILING_COMMAND_END, 4, vp, null_mut());
        expect_err(code, CL_INVALID_VALUE, "too-small buffer");
        check((cl.clGetHostTimer)(d, &mut t1), "clGetHostTimer");
    }
    let (pm, pb) = (profile(m), profile(b));
    for p in [pm, pb] {
        assert!(p.windows(2).all(|w| w[0] <= w[1]), "queued ≤ submit ≤ start ≤ end ≤ complete: {p:?}");
        assert!(t0 <= p[0] && p[4] <= t1, "timestamps on the host timer's clock: {t0} {p:?} {t1}");
    }
    assert!(pm[4] <= pb[2], "the barrier starts after the marker completed");
    // A failed command has no profiling information.
    let f = user_event(c);
    let failed = marker(q, &[f]);
    set_user(f, -1);
    assert_eq!(wait_done(failed), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    // SAFETY: as above.
    let code = unsafe { (cl.clGetEventProfilingInfo)(failed, CL_PROFILING_COMMAND_END, 8, vp, null_mut()) };
    expect_err(code, CL_PROFILING_INFO_NOT_AVAILABLE, "failed command");
    release_events(&[u, m, b, unprofiled, f, failed]);
    release_queue(q);
    release_queue(plain);
    release_context(c);
}

#[test]
fn failed_dependencies_propagate() {
    let cl = cl();
    let c = context();
    let (q, q2) = (queue(c, 0), queue(c, OOO));
    let (u, done) = (user_event(c), completed(c));
    let m1 = marker(q, &[u]);
    let m2 = marker(q, &[m1]);
    let b = barrier(q2, &[m2, done]);
    let m3 = marker(q2, &[m1]);
    set_user(u, -5);
    for e in [m1, m2, b, m3] {
        assert_eq!(wait_done(e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    }
    expect_err(wait_events(&[done, m3]), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "clWaitForEvents");
    // The queues go on working.
    let ok1 = marker(q, &[done]);
    let ok2 = marker(q2, &[done]);
    check(wait_events(&[ok1, ok2]), "later commands");
    // SAFETY: owned handles.
    unsafe {
        check((cl.clFinish)(q), "clFinish");
        check((cl.clFinish)(q2), "clFinish");
    }
    release_events(&[u, done, m1, m2, b, m3, ok1, ok2]);
    release_queue(q);
    release_queue(q2);
    release_context(c);
}

#[test]
fn finish_waits_for_every_command() {
    let c = context();
    for props in [0, OOO] {
        let q = queue(c, props);
        let u = user_event(c);
        let events: Vec<cl_event> =
            (0..10).map(|i| if i % 3 == 0 { barrier(q, &[u]) } else { marker(q, &[u]) }).collect();
        let (qh, list) = (q as usize, events.iter().map(|&e| e as usize).collect::<Vec<_>>());
        let finisher = std::thread::spawn(move || {
            // SAFETY: the queue outlives this thread (joined below).
            check(unsafe { (cl().clFinish)(qh as cl_command_queue) }, "clFinish");
            list.iter().map(|&e| event_status(e as cl_event)).collect::<Vec<_>>()
        });
        set_user(u, CL_COMPLETE);
        assert!(finisher.join().unwrap().iter().all(|&s| s == CL_COMPLETE));
        release_events(&events);
        release_events(&[u]);
        release_queue(q);
    }
    release_context(c);
}

/// 4 host threads × 200 enqueues of markers and barriers (with and without wait lists) on two
/// shared queues and one queue per thread, all gated by a user event set while they run. Every
/// event completes exactly once and each of its callbacks fires exactly once.
#[test]
fn concurrent_enqueues() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 200;
    let c = context();
    let shared = [queue(c, 0) as usize, queue(c, OOO) as usize];
    let gate = user_event(c);
    let rec = Recorder::new();
    let (ch, gh) = (c as usize, gate as usize);
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::spawn(move || {
                let own = queue(ch as cl_context, if t % 2 == 0 { 0 } else { OOO });
                let mut events: Vec<cl_event> = Vec::with_capacity(PER_THREAD);
                for i in 0..PER_THREAD {
                    let q = match i % 3 {
                        0 => own,
                        k => shared[k - 1] as cl_command_queue,
                    };
                    let wait: Vec<cl_event> = match i % 4 {
                        0 if i < 40 => vec![gh as cl_event],
                        1 => events.last().copied().into_iter().collect(),
                        2 => events.iter().rev().step_by(7).take(3).copied().collect(),
                        _ => Vec::new(),
                    };
                    let e = if i % 5 == 0 { barrier(q, &wait) } else { marker(q, &wait) };
                    let tag = t * PER_THREAD + i;
                    on_status(e, CL_COMPLETE, rec, 2 * tag);
                    if i % 2 == 0 {
                        on_status(e, CL_SUBMITTED, rec, 2 * tag + 1);
                    }
                    events.push(e);
                }
                (own as usize, events.into_iter().map(|e| e as usize).collect::<Vec<_>>())
            })
        })
        .collect();
    set_user(gate, CL_COMPLETE);
    let results: Vec<(usize, Vec<usize>)> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    let events: Vec<cl_event> = results.iter().flat_map(|(_, es)| es.iter().map(|&e| e as cl_event)).collect();
    assert_eq!(events.len(), THREADS * PER_THREAD);
    let expected = THREADS * PER_THREAD + THREADS * PER_THREAD / 2;
    let log = rec.wait_len(expected);
    for chunk in events.chunks(64) {
        check(wait_events(chunk), "clWaitForEvents");
    }
    assert!(events.iter().all(|&e| event_status(e) == CL_COMPLETE));
    // Exactly once: every tag appears once, with its own event and the registered status.
    let mut seen = vec![0u32; 2 * THREADS * PER_THREAD];
    for r in &log {
        seen[r.tag] += 1;
        let e = events[r.tag / 2];
        assert_eq!(r.handle, e as usize);
        assert_eq!(r.status, if r.tag % 2 == 0 { CL_COMPLETE } else { CL_SUBMITTED });
    }
    for (tag, &n) in seen.iter().enumerate() {
        let registered = tag % 2 == 0 || (tag / 2 % PER_THREAD) % 2 == 0;
        assert_eq!(n, registered as u32, "callback {tag} fired {n} times");
    }
    for q in shared.iter().copied().chain(results.iter().map(|(q, _)| *q)) {
        // SAFETY: owned queue handles.
        check(unsafe { (cl().clFinish)(q as cl_command_queue) }, "clFinish");
        release_queue(q as cl_command_queue);
    }
    assert_eq!(rec.records().len(), expected, "no late duplicate callbacks");
    release_events(&events);
    release_events(&[gate]);
    release_context(c);
}
