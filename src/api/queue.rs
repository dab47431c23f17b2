//! Command-queue entry points (OpenCL 3.0 §5.1) and the synchronisation commands (markers,
//! barriers, §5.12).

use super::{check, info, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::context::Context;
use crate::core::device::Device;
use crate::core::event::Event;
use crate::core::queue::{Ordering, Queue};
use std::ffi::c_void;

const SUPPORTED: cl_command_queue_properties =
    (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) as cl_command_queue_properties;
const KNOWN: cl_command_queue_properties =
    SUPPORTED | (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) as cl_command_queue_properties;

fn create(
    context: cl_context,
    device: cl_device_id,
    props: cl_command_queue_properties,
    array: Vec<cl_queue_properties>,
) -> CLResult<cl_command_queue> {
    let ctx = Obj::<Context>::get(context)?;
    let dev = Obj::<Device>::get(device)?;
    check(ctx.has_device(&dev), CL_INVALID_DEVICE)?;
    check(props & !KNOWN == 0, CL_INVALID_VALUE)?;
    // "CL_QUEUE_ON_DEVICE_DEFAULT ... CL_QUEUE_ON_DEVICE must also be set."
    check(props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) != CL_QUEUE_ON_DEVICE_DEFAULT, CL_INVALID_VALUE)?;
    // On-device queues are not supported (CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES is 0).
    check(props & !SUPPORTED == 0, CL_INVALID_QUEUE_PROPERTIES)?;
    Ok(Obj::new(Queue::new(ctx, dev, props, array)).handle())
}

pub extern "C" fn clCreateCommandQueue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    object(errcode_ret, || create(context, device, properties, Vec::new()))
}

pub extern "C" fn clCreateCommandQueueWithProperties(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    object(errcode_ret, || {
        // Context and device errors take precedence over property errors.
        let ctx = Obj::<Context>::get(context)?;
        check(Obj::<Device>::get(device).is_ok_and(|d| ctx.has_device(&d)), CL_INVALID_DEVICE)?;
        let list = super::context::property_pairs(properties)?;
        let mut props: cl_command_queue_properties = 0;
        let mut seen = Vec::new();
        let mut i = 0;
        while i < list.len() && list[i] != 0 {
            check(i + 1 < list.len(), CL_INVALID_VALUE)?;
            let (name, value) = (list[i], list[i + 1]);
            check(!seen.contains(&name), CL_INVALID_VALUE)?;
            seen.push(name);
            match cl_uint::try_from(name) {
                Ok(CL_QUEUE_PROPERTIES) => props = value,
                // A queue size only applies to on-device queues, which are not supported.
                Ok(CL_QUEUE_SIZE) => return Err(CL_INVALID_QUEUE_PROPERTIES),
                _ => return Err(CL_INVALID_VALUE),
            }
            i += 2;
        }
        create(context, device, props, list)
    })
}

pub extern "C" fn clRetainCommandQueue(command_queue: cl_command_queue) -> cl_int {
    status(|| Obj::<Queue>::retain(command_queue))
}

pub extern "C" fn clReleaseCommandQueue(command_queue: cl_command_queue) -> cl_int {
    // The worker keeps running the queued commands (an implicit flush) and then exits once the
    // last internal reference is gone.
    status(|| Obj::<Queue>::release(command_queue).map(|_| ()))
}

pub extern "C" fn clGetCommandQueueInfo(
    command_queue: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_QUEUE_CONTEXT => info::write(&info::Ptr(q.context.handle()), s, v, r),
            CL_QUEUE_DEVICE => info::write(&info::Ptr(q.device.handle()), s, v, r),
            CL_QUEUE_REFERENCE_COUNT => info::write(&q.api_ref_count(), s, v, r),
            CL_QUEUE_PROPERTIES => info::write(&q.properties, s, v, r),
            CL_QUEUE_PROPERTIES_ARRAY => info::write(&q.properties_array, s, v, r),
            CL_QUEUE_DEVICE_DEFAULT => info::write(&info::Ptr(std::ptr::null_mut::<c_void>()), s, v, r),
            CL_QUEUE_SIZE => Err(CL_INVALID_COMMAND_QUEUE),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clSetCommandQueueProperty(
    command_queue: cl_command_queue,
    properties: cl_command_queue_properties,
    enable: cl_bool,
    old_properties: *mut cl_command_queue_properties,
) -> cl_int {
    // Deprecated in OpenCL 1.1; properties are fixed at creation here.
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        check(properties & !KNOWN == 0, CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(old_properties, q.properties) };
        let _ = enable;
        Err(CL_INVALID_OPERATION)
    })
}

pub extern "C" fn clFlush(command_queue: cl_command_queue) -> cl_int {
    // Commands are submitted to the worker as they are enqueued.
    status(|| Obj::<Queue>::get(command_queue).map(|_| ()))
}

pub extern "C" fn clFinish(command_queue: cl_command_queue) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        q.finish();
        Ok(())
    })
}

/// Enqueues a no-op command with `ordering` semantics.
pub(crate) fn enqueue_sync(
    q: &Ref<Queue>,
    command: cl_command_type,
    deps: Vec<Ref<Event>>,
    ordering: Ordering,
) -> Ref<Event> {
    Queue::enqueue(q, command, deps, ordering, Box::new(|| Ok(())))
}

pub extern "C" fn clEnqueueMarker(command_queue: cl_command_queue, event: *mut cl_event) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        check(!event.is_null(), CL_INVALID_VALUE)?;
        let e = enqueue_sync(&q, CL_COMMAND_MARKER, Vec::new(), Ordering::Marker);
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::return_event(event, &e) };
        Ok(())
    })
}

pub extern "C" fn clEnqueueWaitForEvents(
    command_queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        check(num_events != 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let handles = unsafe { ptr::slice(event_list, num_events as usize, CL_INVALID_VALUE) }?;
        let events = Obj::<Event>::get_all(handles)?;
        check(events.iter().all(|e| std::sync::Arc::ptr_eq(&e.context, &q.context)), CL_INVALID_CONTEXT)?;
        let e = enqueue_sync(&q, CL_COMMAND_BARRIER, events, Ordering::Barrier);
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::return_event(std::ptr::null_mut(), &e) };
        Ok(())
    })
}

pub extern "C" fn clEnqueueBarrier(command_queue: cl_command_queue) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        let e = enqueue_sync(&q, CL_COMMAND_BARRIER, Vec::new(), Ordering::Barrier);
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::return_event(std::ptr::null_mut(), &e) };
        Ok(())
    })
}

pub extern "C" fn clEnqueueMarkerWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        let e = enqueue_sync(&q, CL_COMMAND_MARKER, deps, Ordering::Marker);
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::return_event(event, &e) };
        Ok(())
    })
}

pub extern "C" fn clEnqueueBarrierWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = Obj::<Queue>::get(command_queue)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        let e = enqueue_sync(&q, CL_COMMAND_BARRIER, deps, Ordering::Barrier);
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::return_event(event, &e) };
        Ok(())
    })
}
