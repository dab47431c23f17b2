//! Shared virtual memory (OpenCL 3.0 §5.6) through Debian's ICD loader: an SVM allocation's
//! host pointer is its device address, so a linked list the host builds in SVM is walked by a
//! kernel and one a kernel builds is walked by the host; the SVM commands (copy, fill, map,
//! unmap, migrate, free with and without a callback), kernel arguments and exec info, and the
//! spec's error clauses.
//!
//! The device's pointers are 64-bit in memory (`CL_DEVICE_ADDRESS_BITS` 64), so both sides use
//! one structure layout: the host stores a node's address in the same `Node *` field the
//! kernel's `global struct Node *next` is.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, Ordering};

/// Calls a loader entry point. Contract of every use in this file: handles are valid or
/// deliberately invalid (the driver must reject them), and every pointer argument is NULL or
/// points to live memory at least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

/// A list node as both sides lay it out (16 bytes: the pointer is 8-byte aligned).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    value: i32,
    next: *mut Node,
}

const NODES: &str = "typedef struct Node { int value; global struct Node *next; } Node;
kernel void walk(global Node *head, global int *out) {
    int sum = 0, count = 0;
    for (global Node *n = head; n; n = n->next) { sum += n->value * ++count; }
    out[0] = sum;
    out[1] = count;
}
kernel void layout(global ulong *out) {
    global Node *n = 0;
    out[0] = sizeof(Node);
    out[1] = (ulong)&n->next;
    out[2] = sizeof(size_t);
    out[3] = sizeof(void *);
}
kernel void link(global Node *nodes, global const int *order, int n) {
    int i = get_global_id(0);
    global Node *me = &nodes[order[i]];
    me->value = order[i] + 100;
    me->next = i + 1 < n ? &nodes[order[i + 1]] : 0;
}";

struct Env {
    ctx: cl_context,
    q: cl_command_queue,
    p: cl_program,
}

impl Env {
    fn new() -> Env {
        let ctx = context();
        let mut err = 0;
        let q = call!(clCreateCommandQueue(ctx, device(), 0, &mut err));
        check(err, "clCreateCommandQueue");
        let text = CString::new(NODES).unwrap();
        let mut strings = [text.as_ptr()];
        let p = call!(clCreateProgramWithSource(ctx, 1, strings.as_mut_ptr(), null(), &mut err));
        check(err, "clCreateProgramWithSource");
        let code = call!(clBuildProgram(p, 0, null(), null(), None, null_mut()));
        if code != CL_SUCCESS {
            let log =
                info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, device(), CL_PROGRAM_BUILD_LOG, s, v, r)));
            panic!("clBuildProgram: {}\n{}", err_name(code), String::from_utf8_lossy(&log));
        }
        Env { ctx, q, p }
    }

    fn kernel(&self, name: &str) -> cl_kernel {
        let name = CString::new(name).unwrap();
        let mut err = 0;
        let k = call!(clCreateKernel(self.p, name.as_ptr(), &mut err));
        check(err, "clCreateKernel");
        k
    }

    /// A zeroed SVM allocation of `n` values of `T`.
    fn alloc<T>(&self, n: usize) -> *mut T {
        let p = call!(clSVMAlloc(self.ctx, CL_MEM_READ_WRITE, n * size_of::<T>(), 0)) as *mut T;
        assert!(!p.is_null(), "clSVMAlloc");
        p
    }

    fn run(&self, k: cl_kernel, global: usize) {
        let code = call!(clEnqueueNDRangeKernel(self.q, k, 1, null(), &global, null(), 0, null(), null_mut()));
        check(code, "clEnqueueNDRangeKernel");
        check(call!(clFinish(self.q)), "clFinish");
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        check(call!(clReleaseProgram(self.p)), "release program");
        check(call!(clReleaseCommandQueue(self.q)), "release queue");
        check(call!(clReleaseContext(self.ctx)), "release context");
    }
}

use std::mem::size_of;

/// A permutation of `0..n` (deterministic).
fn shuffled(n: usize) -> Vec<i32> {
    let mut v: Vec<i32> = (0..n as i32).collect();
    let mut x = 0x2545_f491u32;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.swap(i, x as usize % (i + 1));
    }
    v
}

#[test]
fn the_device_offers_buffer_svm() {
    let caps: cl_device_svm_capabilities = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_SVM_CAPABILITIES);
    assert_eq!(caps, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER);
}

/// A kernel sees the host's layout of a pointer-holding structure, `size_t` and pointers.
#[test]
fn kernel_structures_holding_pointers_have_the_host_layout() {
    let bits: cl_uint = info_value(cl().clGetDeviceInfo, device(), CL_DEVICE_ADDRESS_BITS);
    assert_eq!(bits as usize, 8 * size_of::<*const c_void>());
    let env = Env::new();
    let out = env.alloc::<u64>(4);
    let k = env.kernel("layout");
    check(call!(clSetKernelArgSVMPointer(k, 0, out as *const c_void)), "out");
    env.run(k, 1);
    // SAFETY: the 4-word allocation, written by the finished kernel.
    let got = unsafe { std::slice::from_raw_parts(out, 4).to_vec() };
    let next_at = std::mem::offset_of!(Node, next) as u64;
    assert_eq!(got, [size_of::<Node>() as u64, next_at, size_of::<usize>() as u64, size_of::<*const c_void>() as u64]);
    check(call!(clReleaseKernel(k)), "release kernel");
    call!(clSVMFree(env.ctx, out.cast()));
}

/// The host links nodes in a shuffled order through their addresses; the kernel follows them.
#[test]
fn a_kernel_walks_a_list_the_host_built() {
    const N: usize = 500;
    let env = Env::new();
    let nodes = env.alloc::<Node>(N);
    let out = env.alloc::<i32>(2);
    let order = shuffled(N);
    for (i, &at) in order.iter().enumerate() {
        let next = order.get(i + 1).map_or(null_mut(), |&j| nodes.wrapping_add(j as usize));
        // SAFETY: `at` < N: inside the allocation of N nodes (host and device share it).
        unsafe { nodes.add(at as usize).write(Node { value: at * 3 - 7, next }) };
    }
    let k = env.kernel("walk");
    check(call!(clSetKernelArgSVMPointer(k, 0, nodes.wrapping_add(order[0] as usize) as *const c_void)), "head");
    check(call!(clSetKernelArgSVMPointer(k, 1, out as *const c_void)), "out");
    // The kernel reaches every node through pointers it loads: tell the runtime (a no-op here).
    let all = [nodes as *const c_void];
    let code =
        call!(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, size_of::<*const c_void>(), all.as_ptr().cast()));
    check(code, "clSetKernelExecInfo");
    let code = call!(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, null()));
    check(code, "clSetKernelExecInfo: clearing the list");
    let code = call!(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 8, null()));
    expect_err(code, CL_INVALID_VALUE, "a NULL list of one");
    check(
        call!(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, size_of::<*const c_void>(), all.as_ptr().cast())),
        "again",
    );
    env.run(k, 1);
    let want: i64 = order.iter().enumerate().map(|(i, &v)| i64::from(v * 3 - 7) * (i as i64 + 1)).sum();
    // SAFETY: the 2-int allocation, written by the finished kernel.
    let got = unsafe { [out.read(), out.add(1).read()] };
    assert_eq!(got, [want as i32, N as i32]);
    check(call!(clReleaseKernel(k)), "release kernel");
    call!(clSVMFree(env.ctx, nodes.cast()));
    call!(clSVMFree(env.ctx, out.cast()));
}

/// The kernel links nodes through device pointers it computes; the host follows them.
#[test]
fn the_host_walks_a_list_a_kernel_built() {
    const N: usize = 300;
    let env = Env::new();
    let nodes = env.alloc::<Node>(N);
    let order_svm = env.alloc::<i32>(N);
    let order = shuffled(N);
    // The order goes in through an SVM copy from host memory.
    let code = call!(clEnqueueSVMMemcpy(
        env.q,
        CL_TRUE,
        order_svm.cast(),
        order.as_ptr().cast(),
        4 * N,
        0,
        null(),
        null_mut()
    ));
    check(code, "clEnqueueSVMMemcpy");
    let k = env.kernel("link");
    check(call!(clSetKernelArgSVMPointer(k, 0, nodes as *const c_void)), "nodes");
    check(call!(clSetKernelArgSVMPointer(k, 1, order_svm as *const c_void)), "order");
    let n = N as i32;
    check(call!(clSetKernelArg(k, 2, 4, &n as *const i32 as *const c_void)), "n");
    env.run(k, N);
    let mut at = nodes.wrapping_add(order[0] as usize);
    let mut seen = Vec::new();
    while !at.is_null() {
        // SAFETY: every `next` the kernel stored is a node of the allocation or NULL (checked
        // against the allocation's bounds before the read).
        let node = unsafe {
            assert!(at >= nodes && at < nodes.add(N), "{at:?} is a node");
            at.read()
        };
        seen.push(node.value - 100);
        at = node.next;
    }
    assert_eq!(seen, order);
    check(call!(clReleaseKernel(k)), "release kernel");
    call!(clSVMFree(env.ctx, nodes.cast()));
    call!(clSVMFree(env.ctx, order_svm.cast()));
}

static FREED: AtomicU32 = AtomicU32::new(0);

extern "C" fn free_callback(_q: cl_command_queue, n: cl_uint, ptrs: *mut *mut c_void, user: *mut c_void) {
    for i in 0..n as usize {
        // SAFETY: the driver passes the list of `n` pointers given to clEnqueueSVMFree and the
        // context as user data (the test does so).
        let p = unsafe { *ptrs.add(i) };
        call!(clSVMFree(user as cl_context, p));
    }
    FREED.fetch_add(n, Ordering::SeqCst);
}

/// Fill, copy, map, unmap, migrate and free commands, and their error clauses.
#[test]
fn svm_commands_and_error_clauses() {
    let env = Env::new();
    let (q, ctx) = (env.q, env.ctx);
    let a = env.alloc::<u32>(64);
    let b = env.alloc::<u32>(64);
    let pattern = 0xabcd_1234u32;
    let pat = &pattern as *const u32 as *const c_void;
    check(call!(clEnqueueSVMMemFill(q, a.cast(), pat, 4, 256, 0, null(), null_mut())), "fill");
    check(call!(clEnqueueSVMMemcpy(q, CL_TRUE, b.cast(), a.cast(), 128, 0, null(), null_mut())), "copy");
    // SAFETY: both allocations hold 64 words; the blocking copy has finished.
    let (bv, tail) = unsafe { (std::slice::from_raw_parts(b, 32).to_vec(), b.add(32).read()) };
    assert!(bv.iter().all(|&w| w == pattern) && tail == 0, "{bv:x?}");
    let mut e = null_mut();
    let code = call!(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, a.cast(), 256, 0, null(), &mut e));
    check(code, "map");
    let ty: cl_command_type = info_value(cl().clGetEventInfo, e, CL_EVENT_COMMAND_TYPE);
    assert_eq!(ty, CL_COMMAND_SVM_MAP);
    check(call!(clReleaseEvent(e)), "release event");
    check(call!(clEnqueueSVMUnmap(q, a.cast(), 0, null(), null_mut())), "unmap");
    let mut list = [a as *const c_void, b as *const c_void];
    let sizes = [256usize, 0];
    let code = call!(clEnqueueSVMMigrateMem(q, 2, list.as_mut_ptr(), sizes.as_ptr(), 0, 0, null(), null_mut()));
    check(code, "migrate");

    // Error clauses.
    let two = 2u16;
    let two_p = &two as *const u16 as *const c_void;
    let mis = (a as usize + 2) as *mut c_void;
    expect_err(call!(clEnqueueSVMMemFill(q, mis, pat, 4, 8, 0, null(), null_mut())), CL_INVALID_VALUE, "misaligned");
    expect_err(call!(clEnqueueSVMMemFill(q, a.cast(), two_p, 3, 6, 0, null(), null_mut())), CL_INVALID_VALUE, "size 3");
    expect_err(call!(clEnqueueSVMMemFill(q, a.cast(), pat, 4, 6, 0, null(), null_mut())), CL_INVALID_VALUE, "6 % 4");
    expect_err(
        call!(clEnqueueSVMMemFill(q, a.cast(), pat, 4, 260, 0, null(), null_mut())),
        CL_INVALID_VALUE,
        "past end",
    );
    let code = call!(clEnqueueSVMMemcpy(q, CL_TRUE, a.cast(), a.wrapping_add(1).cast(), 16, 0, null(), null_mut()));
    expect_err(code, CL_MEM_COPY_OVERLAP, "overlap");
    expect_err(
        call!(clEnqueueSVMMemcpy(q, CL_TRUE, null_mut(), a.cast(), 4, 0, null(), null_mut())),
        CL_INVALID_VALUE,
        "NULL",
    );
    let code = call!(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, a.cast(), 0, 0, null(), null_mut()));
    expect_err(code, CL_INVALID_VALUE, "map of 0 bytes");
    expect_err(call!(clEnqueueSVMUnmap(q, null_mut(), 0, null(), null_mut())), CL_INVALID_VALUE, "unmap NULL");
    let code = call!(clEnqueueSVMMigrateMem(q, 0, list.as_mut_ptr(), null(), 0, 0, null(), null_mut()));
    expect_err(code, CL_INVALID_VALUE, "migrate nothing");
    let mut ptrs = [a as *mut c_void];
    expect_err(
        call!(clEnqueueSVMFree(q, 0, ptrs.as_mut_ptr(), None, null_mut(), 0, null(), null_mut())),
        CL_INVALID_VALUE,
        "0",
    );
    for (flags, size, align) in
        [(CL_MEM_READ_WRITE, 0, 0), (CL_MEM_READ_WRITE, 64, 3), (CL_MEM_READ_WRITE, 64, 1 << 20)]
    {
        assert!(call!(clSVMAlloc(ctx, flags, size, align)).is_null(), "{flags:#x} {size} {align}");
    }
    assert!(call!(clSVMAlloc(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0)).is_null(), "two access flags");
    let fine = call!(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 64));
    assert!(!fine.is_null() && fine as usize % 64 == 0);

    // A kernel argument must be a pointer into an allocation; exec info rejects fine-grained
    // system SVM.
    let k = env.kernel("walk");
    let host_word = 0u32;
    let code = call!(clSetKernelArgSVMPointer(k, 0, &host_word as *const u32 as *const c_void));
    expect_err(code, CL_INVALID_ARG_VALUE, "host memory");
    expect_err(call!(clSetKernelArgSVMPointer(k, 2, a as *const c_void)), CL_INVALID_ARG_INDEX, "index");
    check(call!(clSetKernelArgSVMPointer(k, 0, a.wrapping_add(5) as *const c_void)), "inside an allocation");
    check(call!(clSetKernelArgSVMPointer(k, 0, null())), "NULL");
    let yes: cl_bool = CL_TRUE;
    let code =
        call!(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 4, (&yes as *const cl_bool).cast()));
    expect_err(code, CL_INVALID_OPERATION, "fine-grained system SVM");
    check(call!(clReleaseKernel(k)), "release kernel");

    // A buffer over SVM memory reports it.
    let mut err = 0;
    let m = call!(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 64, a.cast(), &mut err));
    check(err, "clCreateBuffer over SVM");
    let uses: cl_bool = info_value(cl().clGetMemObjectInfo, m, CL_MEM_USES_SVM_POINTER);
    assert_eq!(uses, CL_TRUE);
    // It shares the allocation's bytes: a fill of the buffer is in `a`, a store to `a` is read
    // from the buffer.
    let seven = 7u32;
    let code = call!(clEnqueueFillBuffer(q, m, (&seven as *const u32).cast(), 4, 0, 64, 0, null(), null_mut()));
    check(code, "fill the buffer");
    check(call!(clFinish(q)), "clFinish");
    // SAFETY: `a` holds 64 words; the queue is idle.
    unsafe {
        assert_eq!(std::slice::from_raw_parts(a, 16), [7; 16]);
        a.add(3).write(99);
    }
    let mut back = [0u32; 16];
    let code = call!(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 64, back.as_mut_ptr().cast(), 0, null(), null_mut()));
    check(code, "read the buffer");
    assert_eq!(back[3], 99);
    check(call!(clReleaseMemObject(m)), "release buffer");
    // SAFETY: the allocation outlives its buffer.
    assert_eq!(unsafe { a.add(3).read() }, 99, "releasing the buffer leaves the allocation");
    call!(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 512, a.cast(), &mut err));
    expect_err(err, CL_INVALID_BUFFER_SIZE, "a buffer larger than its SVM allocation");

    // Freeing: by a command with a callback (which frees), then directly.
    let mut ptrs = [a as *mut c_void, b as *mut c_void];
    let code = call!(clEnqueueSVMFree(q, 2, ptrs.as_mut_ptr(), Some(free_callback), ctx, 0, null(), null_mut()));
    check(code, "clEnqueueSVMFree");
    check(call!(clFinish(q)), "clFinish");
    assert_eq!(FREED.load(Ordering::SeqCst), 2);
    let mut ptrs = [fine];
    check(call!(clEnqueueSVMFree(q, 1, ptrs.as_mut_ptr(), None, null_mut(), 0, null(), null_mut())), "free");
    check(call!(clFinish(q)), "clFinish");
    call!(clSVMFree(ctx, null_mut()));
}

/// A kernel that runs off the end of an SVM allocation faults like any out-of-bounds access
/// (under the memory checker, byte-exactly) and the context stays usable.
#[test]
fn an_overrun_faults_and_the_context_survives() {
    let env = Env::new();
    let nodes = env.alloc::<Node>(4);
    // A cycle-free list whose last node points far past the allocation.
    // SAFETY: 4 nodes allocated.
    unsafe {
        nodes.write(Node { value: 1, next: nodes.add(1) });
        nodes.add(1).write(Node { value: 2, next: nodes.wrapping_byte_add(64 << 20) });
    }
    let out = env.alloc::<i32>(2);
    let k = env.kernel("walk");
    check(call!(clSetKernelArgSVMPointer(k, 0, nodes as *const c_void)), "head");
    check(call!(clSetKernelArgSVMPointer(k, 1, out as *const c_void)), "out");
    let global = 1usize;
    let mut e = null_mut();
    check(call!(clEnqueueNDRangeKernel(env.q, k, 1, null(), &global, null(), 0, null(), &mut e)), "launch");
    let _ = call!(clWaitForEvents(1, &e));
    let status: cl_int = info_value(cl().clGetEventInfo, e, CL_EVENT_COMMAND_EXECUTION_STATUS);
    assert!(status < 0, "the walk faults: {status}");
    check(call!(clReleaseEvent(e)), "release event");
    // SAFETY: as above.
    unsafe { nodes.add(1).write(Node { value: 2, next: null_mut() }) };
    env.run(k, 1);
    // SAFETY: the finished kernel wrote both ints.
    assert_eq!(unsafe { [out.read(), out.add(1).read()] }, [1 + 2 * 2, 2]);
    check(call!(clReleaseKernel(k)), "release kernel");
    call!(clSVMFree(env.ctx, nodes.cast()));
    call!(clSVMFree(env.ctx, out.cast()));
}
