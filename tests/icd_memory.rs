//! Memory objects and buffer transfers (OpenCL 3.0 §5.2, §5.4, §5.5), called through Debian's ICD
//! loader exactly as an application does: creation and every `clGetMemObjectInfo` query,
//! sub-buffers, reference counts and destructor callbacks, read/write/copy (plain and rect), fill,
//! map/unmap, migration, `CL_MEM_USE_HOST_PTR` coherence, the spec's error clauses, and several
//! host threads sharing one queue and one buffer.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::{null, null_mut};
use std::sync::{Mutex, RwLock};

/// Tests take this shared; the heap-exhaustion test takes it exclusively (it fills device memory).
static HEAP: RwLock<()> = RwLock::new(());

fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    HEAP.read().unwrap_or_else(|e| e.into_inner())
}

/// A context and an in-order queue, released on drop.
struct Env {
    ctx: cl_context,
    q: cl_command_queue,
}

impl Env {
    fn new() -> Env {
        let ctx = context();
        Env { ctx, q: queue(ctx, 0) }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        // SAFETY: handles created by `new`, released once.
        unsafe {
            (cl().clFinish)(self.q);
            (cl().clReleaseCommandQueue)(self.q);
            (cl().clReleaseContext)(self.ctx);
        }
    }
}

/// `clCreateBuffer`, returning the handle or the error.
fn try_buffer(ctx: cl_context, flags: cl_mem_flags, size: usize, host: *mut c_void) -> Result<cl_mem, cl_int> {
    let mut err = 1;
    // SAFETY: plain arguments; `host` is valid for `size` bytes whenever it is non-NULL.
    let m = unsafe { (cl().clCreateBuffer)(ctx, flags, size, host, &mut err) };
    assert_eq!(err == CL_SUCCESS, !m.is_null(), "handle and error code disagree");
    if err == CL_SUCCESS {
        Ok(m)
    } else {
        Err(err)
    }
}

#[track_caller]
fn buffer(ctx: cl_context, flags: cl_mem_flags, size: usize) -> cl_mem {
    try_buffer(ctx, flags, size, null_mut()).unwrap_or_else(|e| panic!("clCreateBuffer: {}", err_name(e)))
}

#[track_caller]
fn release(m: cl_mem) {
    // SAFETY: a handle we own.
    check(unsafe { (cl().clReleaseMemObject)(m) }, "clReleaseMemObject");
}

#[track_caller]
fn write(q: cl_command_queue, m: cl_mem, offset: usize, data: &[u8]) {
    // SAFETY: blocking write from a live slice.
    let code = unsafe {
        (cl().clEnqueueWriteBuffer)(q, m, CL_TRUE, offset, data.len(), data.as_ptr() as _, 0, null(), null_mut())
    };
    check(code, "clEnqueueWriteBuffer");
}

#[track_caller]
fn read(q: cl_command_queue, m: cl_mem, offset: usize, len: usize) -> Vec<u8> {
    let mut out = vec![0xeeu8; len];
    // SAFETY: blocking read into a live buffer of `len` bytes.
    let code =
        unsafe { (cl().clEnqueueReadBuffer)(q, m, CL_TRUE, offset, len, out.as_mut_ptr() as _, 0, null(), null_mut()) };
    check(code, "clEnqueueReadBuffer");
    out
}

fn read_err(q: cl_command_queue, m: cl_mem, offset: usize, len: usize, ptr: *mut c_void) -> cl_int {
    // SAFETY: blocking read; `ptr` is NULL or valid for `len` bytes in every call below.
    unsafe { (cl().clEnqueueReadBuffer)(q, m, CL_TRUE, offset, len, ptr, 0, null(), null_mut()) }
}

fn write_err(q: cl_command_queue, m: cl_mem, offset: usize, data: &[u8]) -> cl_int {
    // SAFETY: blocking write from a live slice (whose length may exceed what is written).
    unsafe { (cl().clEnqueueWriteBuffer)(q, m, CL_TRUE, offset, data.len(), data.as_ptr() as _, 0, null(), null_mut()) }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn mem_info<T: Copy>(m: cl_mem, param: cl_mem_info) -> T {
    info_value(cl().clGetMemObjectInfo, m, param)
}

fn mem_query_err(m: cl_mem, param: cl_mem_info, size: usize) -> cl_int {
    let mut buf = [0u8; 64];
    // SAFETY: `buf` holds 64 bytes, at least `size`.
    unsafe { (cl().clGetMemObjectInfo)(m, param, size, buf.as_mut_ptr() as _, null_mut()) }
}

fn device_u64(param: cl_device_info) -> u64 {
    info_value(cl().clGetDeviceInfo, device(), param)
}

fn sub_buffer(m: cl_mem, flags: cl_mem_flags, origin: usize, size: usize) -> Result<cl_mem, cl_int> {
    let region = cl_buffer_region { origin, size };
    let mut err = 1;
    // SAFETY: a valid cl_buffer_region.
    let s =
        unsafe { (cl().clCreateSubBuffer)(m, flags, CL_BUFFER_CREATE_TYPE_REGION, &region as *const _ as _, &mut err) };
    if err == CL_SUCCESS {
        Ok(s)
    } else {
        assert!(s.is_null());
        Err(err)
    }
}

fn wait(e: cl_event) -> cl_int {
    // SAFETY: one valid event.
    unsafe { (cl().clWaitForEvents)(1, &e) }
}

fn release_event(e: cl_event) {
    // SAFETY: an event we own.
    check(unsafe { (cl().clReleaseEvent)(e) }, "clReleaseEvent");
}

// ---------------------------------------------------------------------------------------------
// Creation and queries

#[test]
fn create_and_query_every_mem_info() {
    let _g = shared();
    let env = Env::new();
    let mut host = pattern(300, 1);
    let m = try_buffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, 300, host.as_mut_ptr() as _).unwrap();
    assert_eq!(mem_info::<cl_mem_object_type>(m, CL_MEM_TYPE), CL_MEM_OBJECT_BUFFER);
    assert_eq!(mem_info::<cl_mem_flags>(m, CL_MEM_FLAGS), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR);
    assert_eq!(mem_info::<usize>(m, CL_MEM_SIZE), 300);
    assert_eq!(mem_info::<usize>(m, CL_MEM_HOST_PTR), host.as_ptr() as usize);
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 0);
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 1);
    assert_eq!(mem_info::<cl_context>(m, CL_MEM_CONTEXT), env.ctx);
    assert_eq!(mem_info::<cl_mem>(m, CL_MEM_ASSOCIATED_MEMOBJECT), null_mut());
    assert_eq!(mem_info::<usize>(m, CL_MEM_OFFSET), 0);
    assert_eq!(mem_info::<cl_bool>(m, CL_MEM_USES_SVM_POINTER), CL_FALSE);
    assert!(info_bytes(cl().clGetMemObjectInfo, m, CL_MEM_PROPERTIES).is_empty());
    // Too-small buffers, unknown queries, bad handles.
    expect_err(mem_query_err(m, CL_MEM_SIZE, size_of::<usize>() - 1), CL_INVALID_VALUE, "small CL_MEM_SIZE");
    expect_err(mem_query_err(m, CL_MEM_FLAGS, 4), CL_INVALID_VALUE, "small CL_MEM_FLAGS");
    expect_err(mem_query_err(m, CL_MEM_MAP_COUNT, 3), CL_INVALID_VALUE, "small CL_MEM_MAP_COUNT");
    expect_err(mem_query_err(m, 0x1234, 64), CL_INVALID_VALUE, "unknown query");
    expect_err(mem_query_err(null_mut(), CL_MEM_SIZE, 8), CL_INVALID_MEM_OBJECT, "NULL memobj");
    expect_err(mem_query_err(env.ctx as cl_mem, CL_MEM_SIZE, 8), CL_INVALID_MEM_OBJECT, "context as memobj");
    // A plain buffer: no host pointer, READ_WRITE by default (flags as given: 0).
    let p = buffer(env.ctx, 0, 16);
    assert_eq!(mem_info::<usize>(p, CL_MEM_HOST_PTR), 0);
    assert_eq!(mem_info::<cl_mem_flags>(p, CL_MEM_FLAGS), 0);
    release(p);
    release(m);
}

#[test]
fn create_with_properties() {
    let _g = shared();
    let env = Env::new();
    let mut err = 1;
    let empty: [cl_mem_properties; 1] = [0];
    // SAFETY: a zero-terminated (empty) property list.
    let m = unsafe { (cl().clCreateBufferWithProperties)(env.ctx, empty.as_ptr(), 0, 64, null_mut(), &mut err) };
    check(err, "clCreateBufferWithProperties");
    assert_eq!(info_vec::<cl_mem_properties, _, _>(cl().clGetMemObjectInfo, m, CL_MEM_PROPERTIES), vec![0]);
    release(m);
    // SAFETY: NULL properties.
    let m = unsafe { (cl().clCreateBufferWithProperties)(env.ctx, null(), 0, 64, null_mut(), &mut err) };
    check(err, "clCreateBufferWithProperties(NULL)");
    assert!(info_bytes(cl().clGetMemObjectInfo, m, CL_MEM_PROPERTIES).is_empty());
    release(m);
    let bad: [cl_mem_properties; 3] = [0x4242, 1, 0];
    // SAFETY: a zero-terminated property list.
    let m = unsafe { (cl().clCreateBufferWithProperties)(env.ctx, bad.as_ptr(), 0, 64, null_mut(), &mut err) };
    assert!(m.is_null());
    expect_err(err, CL_INVALID_PROPERTY, "unsupported property");
    // SAFETY: invalid context, NULL properties.
    let m = unsafe { (cl().clCreateBufferWithProperties)(null_mut(), null(), 0, 64, null_mut(), &mut err) };
    assert!(m.is_null());
    expect_err(err, CL_INVALID_CONTEXT, "NULL context");
}

#[test]
fn creation_errors() {
    let _g = shared();
    let env = Env::new();
    let mut host = [0u8; 64];
    let hp = host.as_mut_ptr() as *mut c_void;
    let c = env.ctx;
    let cases: &[(cl_context, cl_mem_flags, usize, *mut c_void, cl_int, &str)] = &[
        (null_mut(), 0, 64, null_mut(), CL_INVALID_CONTEXT, "NULL context"),
        (env.q as cl_context, 0, 64, null_mut(), CL_INVALID_CONTEXT, "queue as context"),
        (c, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, null_mut(), CL_INVALID_VALUE, "RO|WO"),
        (c, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, null_mut(), CL_INVALID_VALUE, "RW|RO"),
        (c, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, null_mut(), CL_INVALID_VALUE, "two HOST_ flags"),
        (c, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, hp, CL_INVALID_VALUE, "USE|COPY"),
        (c, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, hp, CL_INVALID_VALUE, "USE|ALLOC"),
        (c, 1 << 20, 64, null_mut(), CL_INVALID_VALUE, "unknown flag"),
        (c, CL_MEM_KERNEL_READ_AND_WRITE, 64, null_mut(), CL_INVALID_VALUE, "image-only flag"),
        (c, 0, 0, null_mut(), CL_INVALID_BUFFER_SIZE, "size 0"),
        (c, CL_MEM_USE_HOST_PTR, 64, null_mut(), CL_INVALID_HOST_PTR, "USE without ptr"),
        (c, CL_MEM_COPY_HOST_PTR, 64, null_mut(), CL_INVALID_HOST_PTR, "COPY without ptr"),
        (c, 0, 64, hp, CL_INVALID_HOST_PTR, "ptr without flag"),
        (c, CL_MEM_ALLOC_HOST_PTR, 64, hp, CL_INVALID_HOST_PTR, "ptr with ALLOC only"),
    ];
    for &(ctx, flags, size, ptr, want, what) in cases {
        expect_err(try_buffer(ctx, flags, size, ptr).err().unwrap_or(CL_SUCCESS), want, what);
    }
    let max = device_u64(CL_DEVICE_MAX_MEM_ALLOC_SIZE) as usize;
    expect_err(try_buffer(c, 0, max + 1, null_mut()).unwrap_err(), CL_INVALID_BUFFER_SIZE, "size > max");
    // The largest allowed buffer works (device memory is allocated lazily by the host OS).
    release(try_buffer(c, CL_MEM_ALLOC_HOST_PTR | CL_MEM_HOST_NO_ACCESS, max, null_mut()).unwrap());
    // errcode_ret may be NULL.
    // SAFETY: plain arguments, NULL errcode_ret.
    let m = unsafe { (cl().clCreateBuffer)(c, 0, 8, null_mut(), null_mut()) };
    assert!(!m.is_null());
    release(m);
    // SAFETY: invalid context, NULL errcode_ret.
    assert!(unsafe { (cl().clCreateBuffer)(null_mut(), 0, 8, null_mut(), null_mut()) }.is_null());
}

#[test]
fn device_memory_exhaustion_is_an_allocation_failure() {
    let _g = HEAP.write().unwrap_or_else(|e| e.into_inner());
    let env = Env::new();
    let max = device_u64(CL_DEVICE_MAX_MEM_ALLOC_SIZE) as usize;
    let mut held = Vec::new();
    let failure = loop {
        match try_buffer(env.ctx, 0, max, null_mut()) {
            Ok(m) => held.push(m),
            Err(e) => break e,
        }
        assert!(held.len() < 64, "device memory never ran out");
    };
    expect_err(failure, CL_MEM_OBJECT_ALLOCATION_FAILURE, "allocation beyond the device heap");
    assert!(!held.is_empty());
    // The heap is full, so one buffer ends at the top of the 32-bit device address space: the
    // last bytes of every buffer can be written, filled, copied and read back.
    for &b in &held {
        write(env.q, b, max - 8, &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(read(env.q, b, max - 8, 8), vec![1, 2, 3, 4, 5, 6, 7, 8]);
        check(fill(env.q, b, &[9, 9, 9, 9], max - 16, 8), "fill at the end");
        check(copy(env.q, b, b, max - 8, max - 20, 3), "copy at the end");
        assert_eq!(read(env.q, b, max - 20, 20), vec![1, 2, 3, 0, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8]);
        check(read_err(env.q, b, max, 0, [0u8; 1].as_mut_ptr() as _), "zero-size read at the very end");
    }
    // Releasing frees device memory: the same allocation succeeds again.
    release(held.pop().unwrap());
    held.push(try_buffer(env.ctx, 0, max, null_mut()).expect("allocation after a release"));
    held.into_iter().for_each(release);
}

#[test]
fn copy_host_ptr_copies_once() {
    let _g = shared();
    let env = Env::new();
    let mut host = pattern(100, 7);
    let m = try_buffer(env.ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 100, host.as_mut_ptr() as _).unwrap();
    let expected = host.clone();
    host.fill(0);
    assert_eq!(read(env.q, m, 0, 100), expected);
    assert_eq!(mem_info::<usize>(m, CL_MEM_HOST_PTR), 0, "CL_MEM_HOST_PTR is only for USE_HOST_PTR");
    release(m);
}

// ---------------------------------------------------------------------------------------------
// Reference counting and destructor callbacks

/// Destructor calls: (handle, user_data tag). Tags are unique per test (handles may be reused).
static LOG: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

extern "C" fn log_destruction(m: cl_mem, user: *mut c_void) {
    LOG.lock().unwrap().push((m as usize, user as usize));
}

/// The logged calls whose tag is in `tags`, in call order.
fn logged(tags: &[usize]) -> Vec<(usize, usize)> {
    LOG.lock().unwrap().iter().filter(|(_, t)| tags.contains(t)).copied().collect()
}

fn set_callback(m: cl_mem, tag: usize) {
    // SAFETY: a valid callback; the tag is passed back as user_data.
    let code = unsafe { (cl().clSetMemObjectDestructorCallback)(m, Some(log_destruction), tag as *mut c_void) };
    check(code, "clSetMemObjectDestructorCallback");
}

#[test]
fn reference_counts_and_destructor_order() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 32);
    for tag in 1..=3 {
        set_callback(m, tag);
    }
    // SAFETY: valid handle.
    check(unsafe { (cl().clRetainMemObject)(m) }, "clRetainMemObject");
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 2);
    release(m);
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 1);
    assert!(logged(&[1, 2, 3]).is_empty());
    release(m);
    let h = m as usize;
    assert_eq!(logged(&[1, 2, 3]), vec![(h, 3), (h, 2), (h, 1)], "callbacks run in reverse registration order");
    // (A released handle must not be passed through the loader, which dereferences it to find
    // the dispatch table; NULL handles are the invalid handles an application can pass.)
    // SAFETY: NULL handles; the callback is valid.
    unsafe {
        expect_err((cl().clRetainMemObject)(null_mut()), CL_INVALID_MEM_OBJECT, "retain NULL");
        expect_err((cl().clReleaseMemObject)(null_mut()), CL_INVALID_MEM_OBJECT, "release NULL");
        let cb = (cl().clSetMemObjectDestructorCallback)(null_mut(), Some(log_destruction), null_mut());
        expect_err(cb, CL_INVALID_MEM_OBJECT, "callback on NULL");
    }
    let m = buffer(env.ctx, 0, 32);
    // SAFETY: valid handle, NULL callback.
    let code = unsafe { (cl().clSetMemObjectDestructorCallback)(m, None, null_mut()) };
    expect_err(code, CL_INVALID_VALUE, "NULL pfn_notify");
    release(m);
}

#[test]
fn destruction_waits_for_pending_commands_and_sub_buffers() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 4096);
    set_callback(m, 10);
    let s = sub_buffer(m, 0, 128, 256).unwrap();
    set_callback(s, 20);
    // A write on the sub-buffer, held back by a user event.
    let gate = user_event(env.ctx);
    let data = pattern(256, 3);
    let mut ev = null_mut();
    // SAFETY: non-blocking write; `data` outlives the command (we wait for it below).
    let code =
        unsafe { (cl().clEnqueueWriteBuffer)(env.q, s, CL_FALSE, 0, 256, data.as_ptr() as _, 1, &gate, &mut ev) };
    check(code, "clEnqueueWriteBuffer");
    release(m);
    release(s);
    assert!(logged(&[10, 20]).is_empty(), "a pending command holds the objects");
    // SAFETY: a user event of this context.
    check(unsafe { (cl().clSetUserEventStatus)(gate, CL_COMPLETE as cl_int) }, "clSetUserEventStatus");
    check(wait(ev), "clWaitForEvents");
    // SAFETY: valid queue.
    check(unsafe { (cl().clFinish)(env.q) }, "clFinish");
    release_event(ev);
    // The worker drops the command right after completing it.
    for _ in 0..400 {
        if logged(&[10, 20]).len() == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let order = vec![(s as usize, 20), (m as usize, 10)];
    assert_eq!(logged(&[10, 20]), order, "the sub-buffer is destroyed first, then its parent");
    release_event(gate);
}

// ---------------------------------------------------------------------------------------------
// Read and write

#[test]
fn read_write_round_trips() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 1000);
    assert_eq!(read(env.q, m, 0, 1000), vec![0; 1000], "new buffers are zeroed");
    let data = pattern(997, 9);
    write(env.q, m, 3, &data);
    assert_eq!(read(env.q, m, 3, 997), data);
    assert_eq!(read(env.q, m, 500, 7), data[497..504]);
    // Non-blocking write and read, chained by events.
    let src = pattern(1000, 77);
    let mut dst = vec![0u8; 1000];
    let (mut w, mut r) = (null_mut(), null_mut());
    // SAFETY: `src` and `dst` live until both events complete (waited for below).
    unsafe {
        check((cl().clEnqueueWriteBuffer)(env.q, m, CL_FALSE, 0, 1000, src.as_ptr() as _, 0, null(), &mut w), "write");
        check((cl().clEnqueueReadBuffer)(env.q, m, CL_FALSE, 0, 1000, dst.as_mut_ptr() as _, 1, &w, &mut r), "read");
    }
    check(wait(r), "wait");
    assert_eq!(event_status(w), CL_COMPLETE as cl_int);
    assert_eq!(
        info_value::<cl_command_type, _, _>(cl().clGetEventInfo, r, CL_EVENT_COMMAND_TYPE),
        CL_COMMAND_READ_BUFFER
    );
    assert_eq!(
        info_value::<cl_command_type, _, _>(cl().clGetEventInfo, w, CL_EVENT_COMMAND_TYPE),
        CL_COMMAND_WRITE_BUFFER
    );
    assert_eq!(dst, src);
    release_event(w);
    release_event(r);
    // Zero-sized transfers are valid (OpenCL >= 2.1) and change nothing.
    let mut byte = [0u8; 1];
    expect_err(read_err(env.q, m, 1000, 0, byte.as_mut_ptr() as _), CL_SUCCESS, "zero-size read at the end");
    expect_err(write_err(env.q, m, 0, &[]), CL_SUCCESS, "zero-size write");
    release(m);
}

#[test]
fn blocking_transfer_waits_for_its_wait_list() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 64);
    let gate = user_event(env.ctx);
    let g = gate as usize;
    let opener = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        // SAFETY: the user event stays alive until this thread is joined.
        unsafe { (cl().clSetUserEventStatus)(g as cl_event, CL_COMPLETE as cl_int) }
    });
    let data = pattern(64, 5);
    // SAFETY: blocking write from a live buffer, waiting on the user event.
    let code =
        unsafe { (cl().clEnqueueWriteBuffer)(env.q, m, CL_TRUE, 0, 64, data.as_ptr() as _, 1, &gate, null_mut()) };
    check(code, "blocking write behind a user event");
    assert_eq!(event_status(gate), CL_COMPLETE as cl_int);
    check(opener.join().unwrap(), "clSetUserEventStatus");
    assert_eq!(read(env.q, m, 0, 64), data);
    release_event(gate);
    release(m);
}

#[test]
fn blocking_calls_report_failed_wait_lists() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 64);
    let failed = user_event(env.ctx);
    // SAFETY: a user event of this context.
    check(unsafe { (cl().clSetUserEventStatus)(failed, -5) }, "clSetUserEventStatus");
    let mut out = [0u8; 64];
    let mut ev = null_mut();
    // SAFETY: blocking calls with live buffers.
    unsafe {
        let code = (cl().clEnqueueReadBuffer)(env.q, m, CL_TRUE, 0, 64, out.as_mut_ptr() as _, 1, &failed, &mut ev);
        expect_err(code, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "blocking read");
        assert!(ev.is_null(), "no event is returned on failure");
        let code = (cl().clEnqueueWriteBuffer)(env.q, m, CL_TRUE, 0, 64, out.as_ptr() as _, 1, &failed, null_mut());
        expect_err(code, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "blocking write");
        let mut err = 0;
        let p = (cl().clEnqueueMapBuffer)(env.q, m, CL_TRUE, CL_MAP_READ, 0, 64, 1, &failed, null_mut(), &mut err);
        assert!(p.is_null());
        expect_err(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "blocking map");
        // A non-blocking command fails through its event instead.
        let code = (cl().clEnqueueReadBuffer)(env.q, m, CL_FALSE, 0, 64, out.as_mut_ptr() as _, 1, &failed, &mut ev);
        check(code, "non-blocking read");
    }
    expect_err(wait(ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "clWaitForEvents");
    assert_eq!(event_status(ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 0, "a failed blocking map leaves no mapping");
    release_event(ev);
    release_event(failed);
    release(m);
}

#[test]
fn read_write_errors() {
    let _g = shared();
    let env = Env::new();
    let other = Env::new();
    let m = buffer(env.ctx, 0, 64);
    let foreign = buffer(other.ctx, 0, 64);
    let mut buf = [0u8; 128];
    let p = buf.as_mut_ptr() as *mut c_void;
    expect_err(read_err(env.q, m, 0, 65, p), CL_INVALID_VALUE, "read past the end");
    expect_err(read_err(env.q, m, 64, 1, p), CL_INVALID_VALUE, "read at the end");
    expect_err(read_err(env.q, m, usize::MAX, 2, p), CL_INVALID_VALUE, "offset overflow");
    expect_err(read_err(env.q, m, 0, 8, null_mut()), CL_INVALID_VALUE, "NULL ptr");
    expect_err(read_err(null_mut(), m, 0, 8, p), CL_INVALID_COMMAND_QUEUE, "NULL queue");
    expect_err(read_err(env.ctx as _, m, 0, 8, p), CL_INVALID_COMMAND_QUEUE, "context as queue");
    expect_err(read_err(env.q, null_mut(), 0, 8, p), CL_INVALID_MEM_OBJECT, "NULL buffer");
    expect_err(read_err(env.q, foreign, 0, 8, p), CL_INVALID_CONTEXT, "buffer of another context");
    expect_err(write_err(env.q, m, 60, &buf[..8]), CL_INVALID_VALUE, "write past the end");
    expect_err(write_err(env.q, foreign, 0, &buf[..8]), CL_INVALID_CONTEXT, "write to another context");
    // SAFETY: NULL source pointer.
    let code = unsafe { (cl().clEnqueueWriteBuffer)(env.q, m, CL_TRUE, 0, 8, null(), 0, null(), null_mut()) };
    expect_err(code, CL_INVALID_VALUE, "write from NULL");
    // Wait lists.
    let ev = user_event(env.ctx);
    let foreign_ev = user_event(other.ctx);
    let bogus = m as cl_event;
    // SAFETY: the wait-list arrays are valid for the counts given (or NULL).
    unsafe {
        let r = cl().clEnqueueReadBuffer;
        expect_err(r(env.q, m, CL_TRUE, 0, 8, p, 1, null(), null_mut()), CL_INVALID_EVENT_WAIT_LIST, "NULL list, n=1");
        expect_err(r(env.q, m, CL_TRUE, 0, 8, p, 0, &ev, null_mut()), CL_INVALID_EVENT_WAIT_LIST, "list, n=0");
        expect_err(r(env.q, m, CL_TRUE, 0, 8, p, 1, &bogus, null_mut()), CL_INVALID_EVENT_WAIT_LIST, "bad event");
        expect_err(r(env.q, m, CL_TRUE, 0, 8, p, 1, &foreign_ev, null_mut()), CL_INVALID_CONTEXT, "foreign event");
    }
    // Host access flags.
    let wo = buffer(env.ctx, CL_MEM_HOST_WRITE_ONLY, 64);
    let ro = buffer(env.ctx, CL_MEM_HOST_READ_ONLY, 64);
    let na = buffer(env.ctx, CL_MEM_HOST_NO_ACCESS, 64);
    expect_err(read_err(env.q, wo, 0, 8, p), CL_INVALID_OPERATION, "read HOST_WRITE_ONLY");
    expect_err(read_err(env.q, na, 0, 8, p), CL_INVALID_OPERATION, "read HOST_NO_ACCESS");
    expect_err(write_err(env.q, ro, 0, &buf[..8]), CL_INVALID_OPERATION, "write HOST_READ_ONLY");
    expect_err(write_err(env.q, na, 0, &buf[..8]), CL_INVALID_OPERATION, "write HOST_NO_ACCESS");
    write(env.q, wo, 0, &[1; 8]);
    assert_eq!(read(env.q, ro, 0, 8), vec![0; 8]);
    for b in [m, foreign, wo, ro, na] {
        release(b);
    }
    release_event(ev);
    release_event(foreign_ev);
}

// ---------------------------------------------------------------------------------------------
// Copy

fn copy(q: cl_command_queue, s: cl_mem, d: cl_mem, so: usize, dof: usize, n: usize) -> cl_int {
    let mut ev = null_mut();
    // SAFETY: plain handles and an event out-pointer.
    let code = unsafe { (cl().clEnqueueCopyBuffer)(q, s, d, so, dof, n, 0, null(), &mut ev) };
    if code == CL_SUCCESS {
        check(wait(ev), "copy event");
        release_event(ev);
    } else {
        assert!(ev.is_null());
    }
    code
}

#[test]
fn copy_buffer_and_overlap_rules() {
    let _g = shared();
    let env = Env::new();
    let a = buffer(env.ctx, CL_MEM_HOST_NO_ACCESS, 512);
    let b = buffer(env.ctx, 0, 512);
    let data = pattern(512, 11);
    write(env.q, b, 0, &data);
    // Host-access flags do not restrict copies.
    check(copy(env.q, b, a, 0, 0, 512), "copy b -> a");
    check(copy(env.q, a, b, 100, 300, 200), "copy a -> b");
    let mut expected = data.clone();
    expected.copy_within(100..300, 300);
    assert_eq!(read(env.q, b, 0, 512), expected);
    // Same buffer, disjoint ranges: fine; overlapping: CL_MEM_COPY_OVERLAP.
    check(copy(env.q, b, b, 0, 256, 256), "disjoint self copy");
    expect_err(copy(env.q, b, b, 254, 255, 2), CL_MEM_COPY_OVERLAP, "overlapping self copy");
    expect_err(copy(env.q, b, b, 10, 10, 1), CL_MEM_COPY_OVERLAP, "identical ranges");
    check(copy(env.q, b, b, 10, 10, 0), "zero-size self copy");
    // Sub-buffers of one parent overlap through the parent's storage.
    let s1 = sub_buffer(b, 0, 0, 256).unwrap();
    let s2 = sub_buffer(b, 0, 128, 256).unwrap();
    expect_err(copy(env.q, s1, s2, 130, 0, 16), CL_MEM_COPY_OVERLAP, "overlapping sub-buffers");
    check(copy(env.q, s1, s2, 0, 128, 64), "disjoint sub-buffer ranges");
    expect_err(copy(env.q, b, s2, 130, 0, 4), CL_MEM_COPY_OVERLAP, "buffer and its sub-buffer");
    // Bounds and handles.
    expect_err(copy(env.q, a, b, 400, 0, 113), CL_INVALID_VALUE, "source past the end");
    expect_err(copy(env.q, a, b, 0, 500, 13), CL_INVALID_VALUE, "destination past the end");
    expect_err(copy(env.q, a, b, usize::MAX, 0, 2), CL_INVALID_VALUE, "offset overflow");
    expect_err(copy(env.q, null_mut(), b, 0, 0, 1), CL_INVALID_MEM_OBJECT, "NULL source");
    expect_err(copy(env.q, a, null_mut(), 0, 0, 1), CL_INVALID_MEM_OBJECT, "NULL destination");
    expect_err(copy(null_mut(), a, b, 0, 0, 1), CL_INVALID_COMMAND_QUEUE, "NULL queue");
    let other = Env::new();
    let f = buffer(other.ctx, 0, 16);
    expect_err(copy(env.q, a, f, 0, 0, 1), CL_INVALID_CONTEXT, "destination of another context");
    for m in [s1, s2, a, b, f] {
        release(m);
    }
}

// ---------------------------------------------------------------------------------------------
// Rect transfers

/// Reference model of a rect transfer between two byte arrays.
#[allow(clippy::too_many_arguments)]
fn rect_copy(
    src: &[u8],
    so: [usize; 3],
    srp: usize,
    ssp: usize,
    dst: &mut [u8],
    dof: [usize; 3],
    drp: usize,
    dsp: usize,
    region: [usize; 3],
) {
    for z in 0..region[2] {
        for y in 0..region[1] {
            let s = (so[2] + z) * ssp + (so[1] + y) * srp + so[0];
            let d = (dof[2] + z) * dsp + (dof[1] + y) * drp + dof[0];
            dst[d..d + region[0]].copy_from_slice(&src[s..s + region[0]]);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn read_rect(
    q: cl_command_queue,
    m: cl_mem,
    bo: [usize; 3],
    ho: [usize; 3],
    region: [usize; 3],
    pitches: [usize; 4],
    out: &mut [u8],
) -> cl_int {
    let [brp, bsp, hrp, hsp] = pitches;
    let p = if out.is_empty() { null_mut() } else { out.as_mut_ptr() as *mut c_void };
    // SAFETY: blocking read; the tests size `out` for the host rectangle.
    unsafe {
        (cl().clEnqueueReadBufferRect)(
            q,
            m,
            CL_TRUE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            brp,
            bsp,
            hrp,
            hsp,
            p,
            0,
            null(),
            null_mut(),
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn write_rect(
    q: cl_command_queue,
    m: cl_mem,
    bo: [usize; 3],
    ho: [usize; 3],
    region: [usize; 3],
    pitches: [usize; 4],
    data: &[u8],
) -> cl_int {
    let [brp, bsp, hrp, hsp] = pitches;
    // SAFETY: blocking write; the tests size `data` for the host rectangle.
    unsafe {
        (cl().clEnqueueWriteBufferRect)(
            q,
            m,
            CL_TRUE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            brp,
            bsp,
            hrp,
            hsp,
            data.as_ptr() as _,
            0,
            null(),
            null_mut(),
        )
    }
}

fn copy_rect(
    q: cl_command_queue,
    s: cl_mem,
    d: cl_mem,
    so: [usize; 3],
    dof: [usize; 3],
    region: [usize; 3],
    pitches: [usize; 4],
) -> cl_int {
    let [srp, ssp, drp, dsp] = pitches;
    let mut ev = null_mut();
    // SAFETY: arrays of three size_t each; an event out-pointer.
    let code = unsafe {
        (cl().clEnqueueCopyBufferRect)(
            q,
            s,
            d,
            so.as_ptr(),
            dof.as_ptr(),
            region.as_ptr(),
            srp,
            ssp,
            drp,
            dsp,
            0,
            null(),
            &mut ev,
        )
    };
    if code == CL_SUCCESS {
        check(wait(ev), "copy rect event");
        release_event(ev);
    }
    code
}

#[test]
fn rect_transfers_match_the_reference_model() {
    let _g = shared();
    let env = Env::new();
    let size = 4096;
    let m = buffer(env.ctx, 0, size);
    let mut model = vec![0u8; size];
    // 3D write: buffer pitches 40/520, host pitches 17/119 (region 13 x 5 x 3; slice pitches
    // are whole rows, longer than the region's).
    let region = [13, 5, 3];
    let host = pattern(1000, 21);
    let (bo, ho) = ([3, 2, 1], [2, 1, 2]);
    check(write_rect(env.q, m, bo, ho, region, [40, 520, 17, 119], &host), "write rect");
    rect_copy(&host, ho, 17, 119, &mut model, bo, 40, 520, region);
    assert_eq!(read(env.q, m, 0, size), model);
    // 2D read with default pitches on the host side.
    let region = [9, 4, 1];
    let mut out = vec![0u8; 36];
    check(read_rect(env.q, m, [5, 3, 1], [0, 0, 0], region, [40, 520, 0, 0], &mut out), "read rect");
    let mut expected = vec![0u8; 36];
    rect_copy(&model, [5, 3, 1], 40, 520, &mut expected, [0, 0, 0], 9, 36, region);
    assert_eq!(out, expected);
    // Copy rect into a second buffer and within the same buffer (disjoint rows).
    let d = buffer(env.ctx, 0, size);
    let mut dmodel = vec![0u8; size];
    let region = [6, 3, 2];
    check(copy_rect(env.q, m, d, [4, 2, 1], [1, 1, 1], region, [40, 520, 32, 192]), "copy rect");
    rect_copy(&model, [4, 2, 1], 40, 520, &mut dmodel, [1, 1, 1], 32, 192, region);
    assert_eq!(read(env.q, d, 0, size), dmodel);
    check(copy_rect(env.q, m, m, [0, 0, 0], [20, 0, 0], [10, 10, 2], [40, 400, 40, 400]), "self copy, side by side");
    let before = model.clone();
    rect_copy(&before, [0, 0, 0], 40, 400, &mut model, [20, 0, 0], 40, 400, [10, 10, 2]);
    assert_eq!(read(env.q, m, 0, size), model);
    // Non-blocking rect read kept alive until its event completes.
    let mut nb = vec![0u8; 64];
    let mut ev = null_mut();
    let (bo, ho, region) = ([0usize, 0, 0], [0usize, 0, 0], [8usize, 8, 1]);
    // SAFETY: `nb` outlives the command (waited for below).
    let code = unsafe {
        (cl().clEnqueueReadBufferRect)(
            env.q,
            m,
            CL_FALSE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            40,
            0,
            0,
            0,
            nb.as_mut_ptr() as _,
            0,
            null(),
            &mut ev,
        )
    };
    check(code, "non-blocking read rect");
    check(wait(ev), "wait");
    release_event(ev);
    let mut expected = vec![0u8; 64];
    rect_copy(&model, [0, 0, 0], 40, 320, &mut expected, [0, 0, 0], 8, 64, [8, 8, 1]);
    assert_eq!(nb, expected);
    release(m);
    release(d);
}

/// (buffer origin, region, pitches, what).
type RectCase = ([usize; 3], [usize; 3], [usize; 4], &'static str);
/// (origin, region, pitches, expected error, what).
type CopyRectCase = ([usize; 3], [usize; 3], [usize; 4], cl_int, &'static str);

#[test]
fn rect_errors() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 1024);
    let mut host = vec![0u8; 4096];
    let z = [0usize; 3];
    let cases: &[RectCase] = &[
        (z, [0, 4, 1], [0; 4], "region[0] = 0"),
        (z, [4, 4, 0], [0; 4], "region[2] = 0"),
        (z, [8, 2, 1], [7, 0, 0, 0], "buffer row pitch < region[0]"),
        (z, [8, 2, 1], [0, 0, 7, 0], "host row pitch < region[0]"),
        (z, [8, 4, 2], [8, 13, 0, 0], "buffer slice pitch < rows and not a multiple"),
        (z, [8, 4, 2], [0, 0, 8, 13], "host slice pitch < rows and not a multiple"),
        (z, [32, 32, 2], [0; 4], "out of bounds (2048 > 1024)"),
        ([1, 0, 0], [32, 32, 1], [0; 4], "out of bounds by one byte"),
        ([0, 0, usize::MAX / 2], [1, 1, 1], [0; 4], "origin overflow"),
    ];
    for &(bo, region, pitches, what) in cases {
        expect_err(read_rect(env.q, m, bo, z, region, pitches, &mut host), CL_INVALID_VALUE, what);
        expect_err(write_rect(env.q, m, bo, z, region, pitches, &host), CL_INVALID_VALUE, what);
    }
    // Slice pitches: "less than region[1] times row_pitch" and "not a multiple of row_pitch" are
    // each an error (OpenCL 3.0 lists them apart), for the buffer and the host side.
    check(read_rect(env.q, m, z, z, [8, 4, 2], [8, 32, 0, 0], &mut host), "slice pitch 32 = 4 rows of 8");
    let slices: &[([usize; 3], [usize; 4], &str)] = &[
        ([8, 4, 2], [8, 16, 0, 0], "buffer slice pitch 16 < 4 rows of 8 (a multiple of 8)"),
        ([1, 2, 2], [0, 1, 0, 0], "buffer slice pitch 1 < 2 rows of 1"),
        ([4, 2, 2], [0, 17, 0, 0], "buffer slice pitch 17, not a multiple of 4"),
        ([8, 4, 2], [0, 0, 8, 16], "host slice pitch 16 < 4 rows of 8"),
        ([4, 2, 2], [0, 0, 4, 9], "host slice pitch 9, not a multiple of 4"),
    ];
    for &(region, pitches, what) in slices {
        expect_err(read_rect(env.q, m, z, z, region, pitches, &mut host), CL_INVALID_VALUE, what);
        expect_err(write_rect(env.q, m, z, z, region, pitches, &host), CL_INVALID_VALUE, what);
    }
    expect_err(read_rect(env.q, m, z, z, [8, 4, 1], [0; 4], &mut []), CL_INVALID_VALUE, "NULL ptr");
    // SAFETY: NULL origin/region arrays are rejected before use.
    unsafe {
        let r = (cl().clEnqueueReadBufferRect)(
            env.q,
            m,
            CL_TRUE,
            null(),
            z.as_ptr(),
            z.as_ptr(),
            0,
            0,
            0,
            0,
            host.as_mut_ptr() as _,
            0,
            null(),
            null_mut(),
        );
        expect_err(r, CL_INVALID_VALUE, "NULL buffer_origin");
        let region = [4usize, 4, 1];
        let w = (cl().clEnqueueWriteBufferRect)(
            env.q,
            m,
            CL_TRUE,
            z.as_ptr(),
            z.as_ptr(),
            region.as_ptr(),
            0,
            0,
            0,
            0,
            host.as_ptr() as _,
            1,
            null(),
            null_mut(),
        );
        expect_err(w, CL_INVALID_EVENT_WAIT_LIST, "NULL wait list with n = 1");
    }
    // Host access and handles.
    let na = buffer(env.ctx, CL_MEM_HOST_NO_ACCESS, 64);
    expect_err(read_rect(env.q, na, z, z, [4, 4, 1], [0; 4], &mut host), CL_INVALID_OPERATION, "read NO_ACCESS");
    expect_err(write_rect(env.q, na, z, z, [4, 4, 1], [0; 4], &host), CL_INVALID_OPERATION, "write NO_ACCESS");
    expect_err(read_rect(env.q, null_mut(), z, z, [4, 4, 1], [0; 4], &mut host), CL_INVALID_MEM_OBJECT, "NULL buffer");
    // Copy rect: stricter slice clause, same-buffer pitches, overlap.
    let d = buffer(env.ctx, 0, 1024);
    let copy_cases: &[CopyRectCase] = &[
        (z, [8, 4, 2], [8, 16, 0, 0], CL_INVALID_VALUE, "src slice pitch < rows (multiple)"),
        (z, [8, 4, 2], [0, 0, 8, 33], CL_INVALID_VALUE, "dst slice pitch not a multiple"),
        (z, [0, 4, 2], [0; 4], CL_INVALID_VALUE, "region[0] = 0"),
        (z, [8, 4, 2], [4, 0, 0, 0], CL_INVALID_VALUE, "src row pitch < region[0]"),
        (z, [64, 16, 2], [0; 4], CL_INVALID_VALUE, "out of bounds"),
    ];
    for &(o, region, pitches, want, what) in copy_cases {
        expect_err(copy_rect(env.q, m, d, o, o, region, pitches), want, what);
    }
    // Same buffer: both pitches different is invalid; overlapping rows are CL_MEM_COPY_OVERLAP.
    expect_err(copy_rect(env.q, m, m, z, [0, 0, 1], [4, 4, 1], [8, 32, 16, 64]), CL_INVALID_VALUE, "pitches differ");
    expect_err(copy_rect(env.q, m, m, z, [2, 1, 0], [4, 4, 1], [8, 32, 8, 32]), CL_MEM_COPY_OVERLAP, "rows overlap");
    // Interleaved rows that never touch: no overlap.
    check(copy_rect(env.q, m, m, z, [4, 0, 0], [4, 4, 1], [8, 32, 8, 32]), "interleaved columns");
    let s1 = sub_buffer(m, 0, 0, 512).unwrap();
    let s2 = sub_buffer(m, 0, 256, 512).unwrap();
    expect_err(
        copy_rect(env.q, s1, s2, [0, 0, 0], [0, 0, 0], [16, 2, 1], [256, 0, 0, 0]),
        CL_MEM_COPY_OVERLAP,
        "sub-buffers",
    );
    check(copy_rect(env.q, s1, s2, [0, 0, 0], [0, 0, 0], [16, 2, 1], [300, 0, 300, 0]), "sub-buffers, disjoint rows");
    for b in [s1, s2, m, d, na] {
        release(b);
    }
}

// ---------------------------------------------------------------------------------------------
// Fill

fn fill(q: cl_command_queue, m: cl_mem, pat: &[u8], offset: usize, size: usize) -> cl_int {
    let p = if pat.is_empty() { null() } else { pat.as_ptr() as *const c_void };
    let mut ev = null_mut();
    // SAFETY: the pattern is copied during the call.
    let code = unsafe { (cl().clEnqueueFillBuffer)(q, m, p, pat.len(), offset, size, 0, null(), &mut ev) };
    if code == CL_SUCCESS {
        check(wait(ev), "fill event");
        release_event(ev);
    }
    code
}

#[test]
fn fill_patterns() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, CL_MEM_HOST_READ_ONLY, 4096);
    let mut model = vec![0u8; 4096];
    for (k, ps) in [1usize, 2, 4, 8, 16, 32, 64, 128].into_iter().enumerate() {
        let pat = pattern(ps, 40 + k as u8);
        let (offset, size) = (ps * (k + 1), ps * (3 + k));
        check(fill(env.q, m, &pat, offset, size), "fill");
        for i in 0..size {
            model[offset + i] = pat[i % ps];
        }
        assert_eq!(read(env.q, m, 0, 4096), model, "pattern size {ps}");
    }
    check(fill(env.q, m, &[1, 2, 3, 4], 4096, 0), "zero-size fill at the end");
    let cases: &[(&[u8], usize, usize, &str)] = &[
        (&[1, 2, 3], 0, 3, "pattern size 3"),
        (&[0; 256], 0, 256, "pattern size 256"),
        (&[], 0, 4, "NULL pattern"),
        (&[1, 2, 3, 4], 2, 4, "offset not a multiple"),
        (&[1, 2, 3, 4], 0, 6, "size not a multiple"),
        (&[1, 2, 3, 4], 4092, 8, "past the end"),
    ];
    for &(pat, offset, size, what) in cases {
        expect_err(fill(env.q, m, pat, offset, size), CL_INVALID_VALUE, what);
    }
    expect_err(fill(env.q, null_mut(), &[1], 0, 1), CL_INVALID_MEM_OBJECT, "NULL buffer");
    expect_err(fill(null_mut(), m, &[1], 0, 1), CL_INVALID_COMMAND_QUEUE, "NULL queue");
    release(m);
}

// ---------------------------------------------------------------------------------------------
// Sub-buffers

#[test]
fn sub_buffers_alias_their_parent() {
    let _g = shared();
    let env = Env::new();
    let align = info_value::<cl_uint, _, _>(cl().clGetDeviceInfo, device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8;
    assert_eq!(align, 128);
    let m = buffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, 4 * align);
    let s = sub_buffer(m, 0, align, 2 * align).unwrap();
    assert_eq!(mem_info::<cl_mem>(s, CL_MEM_ASSOCIATED_MEMOBJECT), m);
    assert_eq!(mem_info::<usize>(s, CL_MEM_OFFSET), align);
    assert_eq!(mem_info::<usize>(s, CL_MEM_SIZE), 2 * align);
    assert_eq!(mem_info::<cl_context>(s, CL_MEM_CONTEXT), env.ctx);
    assert_eq!(
        mem_info::<cl_mem_flags>(s, CL_MEM_FLAGS),
        CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_ALLOC_HOST_PTR,
        "qualifiers are inherited"
    );
    // Writes through the parent are seen through the sub-buffer and vice versa.
    let w = buffer(env.ctx, 0, 4 * align);
    let ws = sub_buffer(w, CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY, 2 * align, align).unwrap();
    assert_eq!(mem_info::<cl_mem_flags>(ws, CL_MEM_FLAGS), CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY);
    write(env.q, ws, 0, &pattern(align, 1));
    let all = read(env.q, w, 0, 4 * align);
    assert_eq!(all[2 * align..3 * align], pattern(align, 1)[..]);
    assert!(all[..2 * align].iter().chain(&all[3 * align..]).all(|&b| b == 0));
    write(env.q, w, 2 * align + 5, &[9, 9]);
    let rs = sub_buffer(w, 0, 2 * align, align).unwrap();
    assert_eq!(read(env.q, rs, 4, 4), vec![pattern(align, 1)[4], 9, 9, pattern(align, 1)[7]]);
    // The sub-buffer keeps the parent alive after the parent's last release.
    release(w);
    assert_eq!(read(env.q, rs, 5, 2), vec![9, 9]);
    for b in [ws, rs, s, m] {
        release(b);
    }
}

#[test]
fn sub_buffer_errors() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 1024);
    let ro = buffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 1024);
    let cases: &[(cl_mem, cl_mem_flags, usize, usize, cl_int, &str)] = &[
        (m, 0, 64, 128, CL_MISALIGNED_SUB_BUFFER_OFFSET, "origin not aligned to 128"),
        (m, 0, 128, 0, CL_INVALID_BUFFER_SIZE, "size 0"),
        (m, 0, 896, 256, CL_INVALID_VALUE, "past the end"),
        (m, 0, usize::MAX - 127, 256, CL_INVALID_VALUE, "origin overflow"),
        (m, CL_MEM_READ_WRITE, 0, 64, CL_INVALID_VALUE, "WRITE_ONLY parent, READ_WRITE sub"),
        (m, CL_MEM_READ_ONLY, 0, 64, CL_INVALID_VALUE, "WRITE_ONLY parent, READ_ONLY sub"),
        (ro, CL_MEM_WRITE_ONLY, 0, 64, CL_INVALID_VALUE, "READ_ONLY parent, WRITE_ONLY sub"),
        (m, CL_MEM_USE_HOST_PTR, 0, 64, CL_INVALID_VALUE, "USE_HOST_PTR on a sub-buffer"),
        (m, CL_MEM_COPY_HOST_PTR, 0, 64, CL_INVALID_VALUE, "COPY_HOST_PTR on a sub-buffer"),
        (m, CL_MEM_ALLOC_HOST_PTR, 0, 64, CL_INVALID_VALUE, "ALLOC_HOST_PTR on a sub-buffer"),
        (m, CL_MEM_HOST_READ_ONLY, 0, 64, CL_INVALID_VALUE, "NO_ACCESS parent, HOST_READ_ONLY sub"),
        (ro, CL_MEM_HOST_WRITE_ONLY, 0, 64, CL_INVALID_VALUE, "HOST_READ_ONLY parent, HOST_WRITE_ONLY sub"),
        (m, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 0, 64, CL_INVALID_VALUE, "bad flags"),
        (null_mut(), 0, 0, 64, CL_INVALID_MEM_OBJECT, "NULL buffer"),
    ];
    for &(b, flags, origin, size, want, what) in cases {
        expect_err(sub_buffer(b, flags, origin, size).err().unwrap_or(CL_SUCCESS), want, what);
    }
    let s = sub_buffer(m, 0, 128, 256).unwrap();
    expect_err(sub_buffer(s, 0, 0, 64).unwrap_err(), CL_INVALID_MEM_OBJECT, "sub-buffer of a sub-buffer");
    let mut err = 0;
    let region = cl_buffer_region { origin: 0, size: 64 };
    // SAFETY: invalid create type / NULL info are rejected before use.
    unsafe {
        let x = (cl().clCreateSubBuffer)(m, 0, 0x4242, &region as *const _ as _, &mut err);
        assert!(x.is_null());
        expect_err(err, CL_INVALID_VALUE, "unknown create type");
        let x = (cl().clCreateSubBuffer)(m, 0, CL_BUFFER_CREATE_TYPE_REGION, null(), &mut err);
        assert!(x.is_null());
        expect_err(err, CL_INVALID_VALUE, "NULL create info");
    }
    for b in [s, m, ro] {
        release(b);
    }
}

// ---------------------------------------------------------------------------------------------
// Map and unmap

fn map(q: cl_command_queue, m: cl_mem, flags: cl_map_flags, offset: usize, size: usize) -> Result<*mut u8, cl_int> {
    let mut err = 1;
    // SAFETY: a blocking map; the result is used only while mapped.
    let p = unsafe { (cl().clEnqueueMapBuffer)(q, m, CL_TRUE, flags, offset, size, 0, null(), null_mut(), &mut err) };
    assert_eq!(err == CL_SUCCESS, !p.is_null());
    if err == CL_SUCCESS {
        Ok(p as *mut u8)
    } else {
        Err(err)
    }
}

fn unmap(q: cl_command_queue, m: cl_mem, p: *mut u8) -> cl_int {
    let mut ev = null_mut();
    // SAFETY: a plain pointer value and an event out-pointer.
    let code = unsafe { (cl().clEnqueueUnmapMemObject)(q, m, p as *mut c_void, 0, null(), &mut ev) };
    if code == CL_SUCCESS {
        check(wait(ev), "unmap event");
        assert_eq!(
            info_value::<cl_command_type, _, _>(cl().clGetEventInfo, ev, CL_EVENT_COMMAND_TYPE),
            CL_COMMAND_UNMAP_MEM_OBJECT
        );
        release_event(ev);
    }
    code
}

/// The `len` bytes at `p`.
fn mapped(p: *mut u8, len: usize) -> &'static mut [u8] {
    // SAFETY: `p` is a live mapping of at least `len` bytes; callers drop the slice before unmap.
    unsafe { std::slice::from_raw_parts_mut(p, len) }
}

#[test]
fn map_unmap_round_trips() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 1024);
    let data = pattern(1024, 33);
    write(env.q, m, 0, &data);
    let p = map(env.q, m, CL_MAP_READ | CL_MAP_WRITE, 100, 200).unwrap();
    assert_eq!(mapped(p, 200), &data[100..300]);
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 1);
    mapped(p, 200)[..4].copy_from_slice(&[1, 2, 3, 4]);
    check(unmap(env.q, m, p), "unmap");
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 0);
    let mut expected = data.clone();
    expected[100..104].copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(read(env.q, m, 0, 1024), expected);
    // Read-only maps do not write back.
    let p = map(env.q, m, CL_MAP_READ, 0, 16).unwrap();
    mapped(p, 16).fill(0xaa);
    check(unmap(env.q, m, p), "unmap read map");
    assert_eq!(read(env.q, m, 0, 16), expected[..16]);
    // WRITE_INVALIDATE_REGION: whatever the host writes lands on the device.
    let p = map(env.q, m, CL_MAP_WRITE_INVALIDATE_REGION, 512, 512).unwrap();
    mapped(p, 512).fill(0x5c);
    check(unmap(env.q, m, p), "unmap invalidate map");
    assert_eq!(read(env.q, m, 512, 512), vec![0x5c; 512]);
    // Several read maps may overlap; map count follows.
    let a = map(env.q, m, CL_MAP_READ, 0, 64).unwrap();
    let b = map(env.q, m, CL_MAP_READ, 32, 64).unwrap();
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 2);
    // Non-blocking map: the pointer is usable once its event completes.
    let mut ev = null_mut();
    let mut err = 0;
    // SAFETY: non-blocking map; used only after its event completes.
    let c = unsafe { (cl().clEnqueueMapBuffer)(env.q, m, CL_FALSE, CL_MAP_READ, 520, 8, 0, null(), &mut ev, &mut err) };
    check(err, "non-blocking map");
    check(wait(ev), "map event");
    assert_eq!(
        info_value::<cl_command_type, _, _>(cl().clGetEventInfo, ev, CL_EVENT_COMMAND_TYPE),
        CL_COMMAND_MAP_BUFFER
    );
    release_event(ev);
    assert_eq!(mapped(c as *mut u8, 8), &[0x5c; 8]);
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 3);
    for p in [a, b, c as *mut u8] {
        check(unmap(env.q, m, p), "unmap");
    }
    assert_eq!(mem_info::<cl_uint>(m, CL_MEM_MAP_COUNT), 0);
    release(m);
}

#[test]
fn map_errors() {
    let _g = shared();
    let env = Env::new();
    let m = buffer(env.ctx, 0, 1024);
    let w = CL_MAP_WRITE;
    expect_err(map(env.q, m, CL_MAP_READ, 0, 0).unwrap_err(), CL_INVALID_VALUE, "size 0");
    expect_err(map(env.q, m, CL_MAP_READ, 1000, 25).unwrap_err(), CL_INVALID_VALUE, "past the end");
    expect_err(map(env.q, m, 1 << 7, 0, 8).unwrap_err(), CL_INVALID_VALUE, "unknown map flag");
    let bad = CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION;
    expect_err(map(env.q, m, bad, 0, 8).unwrap_err(), CL_INVALID_VALUE, "READ with WRITE_INVALIDATE");
    expect_err(map(env.q, null_mut(), w, 0, 8).unwrap_err(), CL_INVALID_MEM_OBJECT, "NULL buffer");
    expect_err(map(null_mut(), m, w, 0, 8).unwrap_err(), CL_INVALID_COMMAND_QUEUE, "NULL queue");
    // Host-access flags.
    let cases: &[(cl_mem_flags, cl_map_flags)] = &[
        (CL_MEM_HOST_WRITE_ONLY, CL_MAP_READ),
        (CL_MEM_HOST_NO_ACCESS, CL_MAP_READ),
        (CL_MEM_HOST_READ_ONLY, CL_MAP_WRITE),
        (CL_MEM_HOST_READ_ONLY, CL_MAP_WRITE_INVALIDATE_REGION),
        (CL_MEM_HOST_NO_ACCESS, CL_MAP_WRITE),
    ];
    for &(flags, mf) in cases {
        let b = buffer(env.ctx, flags, 64);
        expect_err(map(env.q, b, mf, 0, 8).unwrap_err(), CL_INVALID_OPERATION, "map against host access");
        release(b);
    }
    let hw = buffer(env.ctx, CL_MEM_HOST_WRITE_ONLY, 64);
    let p = map(env.q, hw, CL_MAP_WRITE_INVALIDATE_REGION, 0, 64).expect("write map of HOST_WRITE_ONLY");
    check(unmap(env.q, hw, p), "unmap");
    release(hw);
    // Overlapping write mappings, including through sub-buffers.
    let p = map(env.q, m, CL_MAP_WRITE, 100, 100).unwrap();
    expect_err(map(env.q, m, CL_MAP_WRITE, 150, 10).unwrap_err(), CL_INVALID_OPERATION, "overlapping write maps");
    expect_err(map(env.q, m, CL_MAP_READ, 199, 10).unwrap_err(), CL_INVALID_OPERATION, "read over a write map");
    let s = sub_buffer(m, 0, 128, 128).unwrap();
    expect_err(map(env.q, s, CL_MAP_WRITE, 0, 8).unwrap_err(), CL_INVALID_OPERATION, "through a sub-buffer");
    let q = map(env.q, s, CL_MAP_WRITE, 72, 8).expect("disjoint write map through the sub-buffer");
    // Unmap errors.
    expect_err(unmap(env.q, m, q), CL_INVALID_VALUE, "pointer mapped through another object");
    expect_err(unmap(env.q, m, null_mut()), CL_INVALID_VALUE, "NULL pointer");
    // SAFETY: pointer arithmetic only, never dereferenced.
    expect_err(unmap(env.q, m, unsafe { p.add(1) }), CL_INVALID_VALUE, "interior pointer");
    expect_err(unmap(env.q, null_mut(), p), CL_INVALID_MEM_OBJECT, "NULL memobj");
    // SAFETY: invalid wait list rejected before use; the mapping survives.
    let code = unsafe { (cl().clEnqueueUnmapMemObject)(env.q, m, p as _, 1, null(), null_mut()) };
    expect_err(code, CL_INVALID_EVENT_WAIT_LIST, "bad wait list");
    check(unmap(env.q, m, p), "unmap");
    expect_err(unmap(env.q, m, p), CL_INVALID_VALUE, "double unmap");
    check(unmap(env.q, s, q), "unmap sub-buffer map");
    let other = Env::new();
    let p = map(env.q, m, CL_MAP_READ, 0, 8).unwrap();
    expect_err(unmap(other.q, m, p), CL_INVALID_CONTEXT, "queue of another context");
    check(unmap(env.q, m, p), "unmap");
    release(s);
    release(m);
}

#[test]
fn use_host_ptr_coherence() {
    let _g = shared();
    let env = Env::new();
    let mut host = pattern(1024, 50);
    let hp = host.as_mut_ptr();
    let m = try_buffer(env.ctx, CL_MEM_USE_HOST_PTR, 1024, hp as _).unwrap();
    // The device copy starts with the host contents.
    assert_eq!(read(env.q, m, 0, 1024), pattern(1024, 50));
    // Map returns host_ptr + offset with the latest bits.
    let p = map(env.q, m, CL_MAP_READ | CL_MAP_WRITE, 256, 128).unwrap();
    // SAFETY: pointer arithmetic inside `host`.
    assert_eq!(p, unsafe { hp.add(256) });
    mapped(p, 128).fill(7);
    check(unmap(env.q, m, p), "unmap");
    let dev = read(env.q, m, 0, 1024);
    assert_eq!(&dev[256..384], &[7; 128]);
    // Device-side writes (write, fill, copy, rect) update the host memory.
    write(env.q, m, 0, &[1, 2, 3, 4]);
    check(fill(env.q, m, &[9, 8], 8, 8), "fill");
    let src = buffer(env.ctx, 0, 64);
    write(env.q, src, 0, &[0x77; 64]);
    check(copy(env.q, src, m, 0, 1000, 24), "copy into USE_HOST_PTR");
    check(copy_rect(env.q, src, m, [0, 0, 0], [0, 6, 0], [4, 2, 1], [0, 0, 100, 0]), "copy rect");
    // SAFETY: all commands have completed (blocking or waited for); nothing else touches `host`.
    let view = unsafe { std::slice::from_raw_parts(hp, 1024) };
    assert_eq!(&view[..4], &[1, 2, 3, 4]);
    assert_eq!(&view[8..16], &[9, 8, 9, 8, 9, 8, 9, 8]);
    assert_eq!(&view[1000..1024], &[0x77; 24]);
    assert_eq!(&view[1000..1024], &read(env.q, m, 1000, 24)[..]);
    assert_eq!((&view[600..604], &view[700..704]), (&[0x77; 4][..], &[0x77; 4][..]));
    assert_eq!(&view[256..384], &[7; 128]);
    // The spec's "update the latest bits" pattern: write from host_ptr + offset itself.
    // SAFETY: no command is using the buffer; the range lies inside `host`.
    unsafe { std::slice::from_raw_parts_mut(hp.add(100), 50) }.fill(0x31);
    // SAFETY: blocking write whose source is the buffer's own host memory.
    let code =
        unsafe { (cl().clEnqueueWriteBuffer)(env.q, m, CL_TRUE, 100, 50, hp.add(100) as _, 0, null(), null_mut()) };
    check(code, "write from host_ptr + offset");
    assert_eq!(read(env.q, m, 100, 50), vec![0x31; 50]);
    // Sub-buffers of a USE_HOST_PTR buffer report host_ptr + origin and map there.
    let s = sub_buffer(m, 0, 512, 256).unwrap();
    assert_eq!(mem_info::<usize>(s, CL_MEM_HOST_PTR), hp as usize + 512);
    assert_ne!(mem_info::<cl_mem_flags>(s, CL_MEM_FLAGS) & CL_MEM_USE_HOST_PTR, 0);
    let p = map(env.q, s, CL_MAP_WRITE_INVALIDATE_REGION, 16, 16).unwrap();
    // SAFETY: pointer arithmetic inside `host`.
    assert_eq!(p, unsafe { hp.add(528) });
    mapped(p, 16).fill(0x42);
    check(unmap(env.q, s, p), "unmap sub-buffer");
    assert_eq!(read(env.q, m, 528, 16), vec![0x42; 16]);
    release(s);
    release(src);
    release(m);
    // Keep `host` alive until the buffer is gone.
    host[0] = 0;
}

// ---------------------------------------------------------------------------------------------
// Migration

#[test]
fn migrate_mem_objects() {
    let _g = shared();
    let env = Env::new();
    let a = buffer(env.ctx, 0, 64);
    let b = buffer(env.ctx, 0, 64);
    write(env.q, a, 0, &[3; 64]);
    let list = [a, b];
    let mut ev = null_mut();
    // SAFETY: arrays valid for the counts given (or NULL where the call must fail).
    unsafe {
        let mig = cl().clEnqueueMigrateMemObjects;
        check(mig(env.q, 2, list.as_ptr(), 0, 0, null(), &mut ev), "migrate");
        check(wait(ev), "migrate event");
        assert_eq!(
            info_value::<cl_command_type, _, _>(cl().clGetEventInfo, ev, CL_EVENT_COMMAND_TYPE),
            CL_COMMAND_MIGRATE_MEM_OBJECTS
        );
        release_event(ev);
        let flags = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        check(mig(env.q, 1, list.as_ptr(), flags, 0, null(), null_mut()), "migrate with flags");
        expect_err(mig(env.q, 0, list.as_ptr(), 0, 0, null(), null_mut()), CL_INVALID_VALUE, "no objects");
        expect_err(mig(env.q, 2, null(), 0, 0, null(), null_mut()), CL_INVALID_VALUE, "NULL list");
        expect_err(mig(env.q, 2, list.as_ptr(), 1 << 4, 0, null(), null_mut()), CL_INVALID_VALUE, "unknown flag");
        let bad = [a, null_mut()];
        expect_err(mig(env.q, 2, bad.as_ptr(), 0, 0, null(), null_mut()), CL_INVALID_MEM_OBJECT, "NULL object");
        expect_err(mig(null_mut(), 2, list.as_ptr(), 0, 0, null(), null_mut()), CL_INVALID_COMMAND_QUEUE, "NULL queue");
        expect_err(mig(env.q, 2, list.as_ptr(), 0, 1, null(), null_mut()), CL_INVALID_EVENT_WAIT_LIST, "bad wait list");
        let other = Env::new();
        expect_err(mig(other.q, 2, list.as_ptr(), 0, 0, null(), null_mut()), CL_INVALID_CONTEXT, "other context");
    }
    assert_eq!(read(env.q, a, 0, 64), vec![3; 64], "migration keeps contents");
    release(a);
    release(b);
}

// ---------------------------------------------------------------------------------------------
// Concurrency

#[test]
fn many_threads_share_one_queue_and_buffer() {
    let _g = shared();
    let env = Env::new();
    const THREADS: usize = 8;
    const SLICE: usize = 4096;
    const ROUNDS: usize = 40;
    let m = buffer(env.ctx, 0, THREADS * SLICE);
    let (q, mh) = (env.q as usize, m as usize);
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::spawn(move || {
                let (q, m) = (q as cl_command_queue, mh as cl_mem);
                let base = t * SLICE;
                for round in 0..ROUNDS {
                    let data = pattern(SLICE, (t * 37 + round) as u8);
                    if round % 2 == 0 {
                        write(q, m, base, &data);
                    } else {
                        let mut ev = null_mut();
                        // SAFETY: non-blocking write; `data` lives until the event completes
                        // (waited for right below).
                        let code = unsafe {
                            (cl().clEnqueueWriteBuffer)(
                                q,
                                m,
                                CL_FALSE,
                                base,
                                SLICE,
                                data.as_ptr() as _,
                                0,
                                null(),
                                &mut ev,
                            )
                        };
                        check(code, "non-blocking write");
                        check(wait(ev), "write event");
                        release_event(ev);
                    }
                    assert_eq!(read(q, m, base, SLICE), data, "thread {t} round {round}");
                }
                // Finally one small write per thread, not read back here.
                write(q, m, base, &[t as u8; 16]);
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker thread");
    }
    let all = read(env.q, m, 0, THREADS * SLICE);
    for t in 0..THREADS {
        let slice = &all[t * SLICE..(t + 1) * SLICE];
        assert_eq!(&slice[..16], &[t as u8; 16], "thread {t}'s last write");
        assert_eq!(slice[16..], pattern(SLICE, (t * 37 + ROUNDS - 1) as u8)[16..], "thread {t}'s last round");
    }
    release(m);
}
