//! Kernel execution entry points (OpenCL 3.0 §5.10): `clEnqueueNDRangeKernel`, `clEnqueueTask`
//! and `clEnqueueNativeKernel` (a host function run by the queue's worker: `core::native`).
//!
//! Every error clause of §5.10 is checked here, in the spec's order, before anything is enqueued;
//! the argument values are snapshotted at enqueue time. Decisions:
//! * `global_work_size` NULL or containing 0 enqueues a command that completes without running
//!   anything (OpenCL ≥ 2.1 behaviour; the old `CL_INVALID_GLOBAL_WORK_SIZE` is deprecated).
//! * `CL_DEVICE_MAX_WORK_ITEM_SIZES[i]` is checked before the work-group total, so both
//!   `CL_INVALID_WORK_ITEM_SIZE` and `CL_INVALID_WORK_GROUP_SIZE` are reachable.
//! * Work-groups may be non-uniform unless the program was built with
//!   `-cl-uniform-work-group-size` (binaries and IL need no `-cl-std`, §5.10).
//! * `CL_OUT_OF_RESOURCES` at enqueue: `__local` bytes above `CL_DEVICE_LOCAL_MEM_SIZE`, an
//!   argument buffer the device cannot hold, more than 2^32 - 1 work-groups, or a global size
//!   plus offset above 2^32 - 1 in a dimension (the device's `size_t` is 64-bit, its work-item
//!   ids 32-bit; checked after the spec's `CL_INVALID_GLOBAL_OFFSET` and the empty-range rule).

use super::{check, ptr, status, transfer};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::device::{self as dev, Device};
use crate::core::kernel::{ArgValue, Kernel};
use crate::core::launch::{self, NdRange};
use crate::core::memory::Mem;
use crate::core::native::NativeCall;
use crate::core::queue::{Queue, Work};
use libc::size_t;
use std::ffi::c_void;
use std::sync::Arc;

/// Validates the geometry; `None` for an empty NDRange (nothing to run).
fn nd_range(
    device: &Device,
    k: &Kernel,
    work_dim: cl_uint,
    global_work_offset: *const size_t,
    global_work_size: *const size_t,
    local_work_size: *const size_t,
) -> CLResult<Option<NdRange>> {
    // "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1 and
    // CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)."
    check((1..=3).contains(&work_dim), CL_INVALID_WORK_DIMENSION)?;
    let wd = work_dim as usize;
    // "If global_work_size is NULL, or the value in any passed dimension is 0 then the kernel
    // command will trivially succeed after its event dependencies are satisfied."
    if global_work_size.is_null() {
        return Ok(None);
    }
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let g = unsafe { ptr::slice(global_work_size, wd, CL_INVALID_GLOBAL_WORK_SIZE) }?;
    let o = if global_work_offset.is_null() {
        &[0usize; 3][..wd]
    } else {
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::slice(global_work_offset, wd, CL_INVALID_GLOBAL_OFFSET) }?
    };
    // "CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size + the corresponding
    // values in global_work_offset for any dimensions is greater than the maximum value
    // representable by size t on the device." (The device's size_t is 64-bit.)
    check(g.iter().zip(o).all(|(&g, &o)| g.checked_add(o).is_some()), CL_INVALID_GLOBAL_OFFSET)?;
    if g.contains(&0) {
        return Ok(None);
    }
    // No size_t value exceeds the device's, but its work-item ids are 32-bit registers: a larger
    // NDRange is beyond the device's resources.
    check(g.iter().zip(o).all(|(&g, &o)| (g as u64).saturating_add(o as u64) <= u32::MAX as u64), CL_OUT_OF_RESOURCES)?;
    let max_group = device.max_work_group_size();
    let reqd = k.info().and_then(|i| i.reqd_work_group_size);
    let global: [u32; 3] = std::array::from_fn(|d| if d < wd { g[d] as u32 } else { 1 });
    let offset: [u32; 3] = std::array::from_fn(|d| if d < wd { o[d] as u32 } else { 0 });
    let local: [u32; 3] = if local_work_size.is_null() {
        match reqd {
            // A required size is used as given (it must fit the device, like an explicit one).
            Some(r) => {
                let total = r.iter().map(|&x| x as usize).product::<usize>();
                check((1..=max_group).contains(&total), CL_INVALID_WORK_GROUP_SIZE)?;
                r
            }
            None => {
                let free = k.info().is_some_and(|i| i.grouping_free);
                launch::choose_local(work_dim, global, max_group as u32, device.threads_per_warp, free)
            }
        }
    } else {
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let l = unsafe { ptr::slice(local_work_size, wd, CL_INVALID_WORK_GROUP_SIZE) }?;
        let local: [usize; 3] = std::array::from_fn(|d| if d < wd { l[d] } else { 1 });
        // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and does not match the
        // required work-group size for kernel in the program source."
        if let Some(r) = reqd {
            check(local == r.map(|x| x as usize), CL_INVALID_WORK_GROUP_SIZE)?;
        }
        // "CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any of
        // local_work_size[0], ... local_work_size[work_dim - 1] is greater than the
        // corresponding values specified by CL_DEVICE_MAX_WORK_ITEM_SIZES[0], ...".
        check(local.iter().all(|&x| x <= max_group), CL_INVALID_WORK_ITEM_SIZE)?;
        // An empty work-group is not a work-group size.
        check(!local.contains(&0), CL_INVALID_WORK_GROUP_SIZE)?;
        // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and the total number of
        // work-items in the work-group ... is greater than the value specified by
        // CL_KERNEL_WORK_GROUP_SIZE."
        check(local.iter().product::<usize>() <= max_group, CL_INVALID_WORK_GROUP_SIZE)?;
        local.map(|x| x as u32)
    };
    let range = NdRange { work_dim, global, offset, local };
    // "CL_INVALID_WORK_GROUP_SIZE if the work-group size must be uniform and the
    // local_work_size is not NULL, is not equal to the required work-group size specified in the
    // kernel source, or the global_work_size is not evenly divisible by the local_work_size."
    // (A size the implementation chose is uniform unless the kernel cannot tell.)
    check(
        local_work_size.is_null() || !k.program.uniform_work_groups() || range.is_uniform(),
        CL_INVALID_WORK_GROUP_SIZE,
    )?;
    // More work-groups than the device can number: insufficient resources.
    let groups: u64 = range.num_groups().iter().map(|&n| n as u64).product();
    check(groups <= u32::MAX as u64, CL_OUT_OF_RESOURCES)?;
    Ok(Some(range))
}

/// Argument checks that need the values: sub-buffer alignment and resources. Returns the
/// arguments packed for the device (once, here).
fn check_args(k: &Kernel, args: &[ArgValue]) -> CLResult<launch::PackedArgs> {
    let align = (dev::MEM_BASE_ADDR_ALIGN_BITS / 8) as usize;
    for a in args {
        if let ArgValue::Buffer(Some(m)) = a {
            // "CL_MISALIGNED_SUB_BUFFER_OFFSET if a sub-buffer object is specified as the value
            // for an argument that is a buffer object and the offset specified when the
            // sub-buffer object is created is not aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN."
            check(m.parent.is_none() || m.offset % align == 0, CL_MISALIGNED_SUB_BUFFER_OFFSET)?;
        }
    }
    // "CL_OUT_OF_RESOURCES if there is a failure to queue the execution instance of kernel on the
    // command-queue because of insufficient resources needed to execute the kernel", e.g. local
    // memory.
    let local: u64 = args.iter().map(|a| if let ArgValue::Local(n) = a { *n as u64 } else { 0 }).sum::<u64>()
        + k.info().map_or(0, |i| i.local_bytes as u64);
    check(local <= dev::LOCAL_MEM_SIZE, CL_OUT_OF_RESOURCES)?;
    launch::pack_args(k, args).map_err(|e| {
        log::warn!("kernel `{}`: {e}", k.name());
        CL_OUT_OF_RESOURCES
    })
}

/// What [`checked_launch`] gives: the kernel, its NDRange, the argument values and their packing.
pub(super) type CheckedLaunch = (Ref<Kernel>, NdRange, Vec<ArgValue>, launch::PackedArgs);

/// A launch of `kernel` on `q` with every error clause of `clEnqueueNDRangeKernel` checked
/// but the wait list's, its arguments snapshotted and packed: `None` for an empty NDRange
/// (also what `clCommandNDRangeKernelKHR` records).
pub(super) fn checked_launch(
    q: &Ref<Queue>,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const size_t,
    global_work_size: *const size_t,
    local_work_size: *const size_t,
) -> CLResult<Option<CheckedLaunch>> {
    // "CL_INVALID_KERNEL if kernel is not a valid kernel object."
    let k = Obj::<Kernel>::get(kernel)?;
    // "CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the
    // same".
    check(Arc::ptr_eq(&q.context, &k.program.context), CL_INVALID_CONTEXT)?;
    // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built program executable
    // available for device associated with command_queue": kernels exist only for built
    // programs and keep their executable, so this cannot happen.
    // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified."
    // A buffer argument whose memory object the application has since destroyed is no value.
    let args = k.snapshot_args().map_err(|e| {
        log::warn!("kernel `{}`: argument {e:?} cannot be launched", k.name());
        CL_INVALID_KERNEL_ARGS
    })?;
    let range = nd_range(&q.device, &k, work_dim, global_work_offset, global_work_size, local_work_size)?;
    let packed = check_args(&k, &args)?;
    Ok(range.map(|r| (k, r, args, packed)))
}

/// The common body of `clEnqueueNDRangeKernel` and `clEnqueueTask`.
#[allow(clippy::too_many_arguments)]
fn enqueue(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const size_t,
    global_work_size: *const size_t,
    local_work_size: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    command_type: cl_command_type,
) -> CLResult<()> {
    // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
    let q = Obj::<Queue>::get(command_queue)?;
    let checked = checked_launch(&q, kernel, work_dim, global_work_offset, global_work_size, local_work_size)?;
    // "CL_INVALID_CONTEXT if ... the context associated with command_queue and events in
    // event_wait_list are not the same."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
    let e = match checked {
        Some((k, r, args, packed)) => launch::enqueue(&q, k, r, args, packed, command_type, deps),
        None => launch::enqueue_empty(&q, command_type, deps),
    };
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    unsafe { ptr::return_event(event, &e) };
    Ok(())
}

pub extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const size_t,
    global_work_size: *const size_t,
    local_work_size: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        enqueue(
            command_queue,
            kernel,
            work_dim,
            global_work_offset,
            global_work_size,
            local_work_size,
            num_events_in_wait_list,
            event_wait_list,
            event,
            CL_COMMAND_NDRANGE_KERNEL,
        )
    })
}

pub extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    // "clEnqueueTask is equivalent to calling clEnqueueNDRangeKernel with work_dim set to 1,
    // global_work_offset set to NULL, global_work_size[0] set to 1, and local_work_size[0] set to
    // 1" ("CL_INVALID_WORK_GROUP_SIZE if a work-group size is specified for kernel in the program
    // source and it is not (1, 1, 1)" follows from the NDRange checks).
    let one: size_t = 1;
    status(|| {
        enqueue(
            command_queue,
            kernel,
            1,
            std::ptr::null(),
            &one,
            &one,
            num_events_in_wait_list,
            event_wait_list,
            event,
            CL_COMMAND_TASK,
        )
    })
}

pub extern "C" fn clEnqueueNativeKernel(
    command_queue: cl_command_queue,
    user_func: Option<unsafe extern "C" fn(arg1: *mut c_void)>,
    args: *mut c_void,
    cb_args: size_t,
    num_mem_objects: cl_uint,
    mem_list: *const cl_mem,
    args_mem_loc: *mut *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        // "CL_INVALID_VALUE if user_func is NULL."
        let f = user_func.ok_or(CL_INVALID_VALUE)?;
        // "CL_INVALID_VALUE if args is a NULL value and cb_args > 0, or if args is a NULL value
        // and num_mem_objects > 0." / "… if args is not NULL and cb_args is 0."
        check(!args.is_null() || (cb_args == 0 && num_mem_objects == 0), CL_INVALID_VALUE)?;
        check(args.is_null() || cb_args > 0, CL_INVALID_VALUE)?;
        // "CL_INVALID_VALUE if num_mem_objects > 0 and mem_list or args_mem_loc are NULL." /
        // "… if num_mem_objects = 0 and mem_list or args_mem_loc are not NULL."
        let lists_given = !mem_list.is_null() && !args_mem_loc.is_null();
        let lists_absent = mem_list.is_null() && args_mem_loc.is_null();
        check(if num_mem_objects > 0 { lists_given } else { lists_absent }, CL_INVALID_VALUE)?;
        // "CL_INVALID_OPERATION if the device associated with command_queue cannot execute the
        // native kernel": it can (CL_EXEC_NATIVE_KERNEL).
        let n = num_mem_objects as usize;
        // "CL_INVALID_MEM_OBJECT if one or more memory objects specified in mem_list are not
        // valid or are not buffer objects."
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let mems = unsafe { ptr::handles::<Mem>(mem_list, n, CL_INVALID_VALUE) }?;
        check(mems.iter().all(|m| m.image.is_none()), CL_INVALID_MEM_OBJECT)?;
        // A memory object of another context (no clause names it; the queue's context is the
        // one whose objects a command may use).
        check(mems.iter().all(|m| Arc::ptr_eq(&m.context, &q.context)), CL_INVALID_CONTEXT)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        // "args_mem_loc is a pointer to appropriate locations that args points to where memory
        // object handles (cl_mem values) are stored": offsets into the block, which
        // `NativeCall::new` checks lie inside it.
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let locs = unsafe { ptr::slice(args_mem_loc.cast_const(), n, CL_INVALID_VALUE) }?;
        let base = args as usize;
        let offsets = locs.iter().map(|&l| (l as usize).checked_sub(base).ok_or(CL_INVALID_VALUE));
        let mems = mems.into_iter().zip(offsets).map(|(m, o)| Ok((m, o?))).collect::<CLResult<Vec<_>>>()?;
        // "The data pointed to by args and cb_args bytes in size will be copied and a pointer
        // to this copied region will be passed to user_func."
        let block = if args.is_null() {
            &[][..]
        } else {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            unsafe { ptr::slice(args as *const u8, cb_args, CL_INVALID_VALUE) }?
        };
        let call = NativeCall::new(block, mems)?;
        let no_args = args.is_null();
        let work: Work = Box::new(move || {
            call.run(|block| {
                let p = if no_args { std::ptr::null_mut() } else { block.as_mut_ptr().cast::<c_void>() };
                // SAFETY: the application's native kernel, called as §5.10 describes: with a copy
                // of its argument block (NULL when it passed none) in which every memory object
                // is replaced by a pointer to host memory holding its contents for the call.
                unsafe { f(p) }
            })
        });
        transfer::finish(transfer::enqueue(&q, CL_COMMAND_NATIVE_KERNEL, deps, work), CL_FALSE, event)
    })
}
