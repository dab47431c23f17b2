//! Event entry points (OpenCL 3.0 §5.11, §5.15): waiting, queries, user events, callbacks and
//! profiling.

use super::{check, info, object, ptr, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::context::Context;
use crate::core::event::Event;
use std::ffi::c_void;

pub extern "C" fn clWaitForEvents(num_events: cl_uint, event_list: *const cl_event) -> cl_int {
    status(|| {
        check(num_events != 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let events = Obj::<Event>::get_all(unsafe { ptr::slice(event_list, num_events as usize, CL_INVALID_VALUE) }?)?;
        let ctx = &events[0].context;
        check(events.iter().all(|e| std::sync::Arc::ptr_eq(&e.context, ctx)), CL_INVALID_CONTEXT)?;
        let mut failed = false;
        for e in &events {
            failed |= e.wait() < 0;
        }
        check(!failed, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    })
}

pub extern "C" fn clGetEventInfo(
    event: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let e = Obj::<Event>::get(event)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        match param_name {
            CL_EVENT_COMMAND_QUEUE => {
                let q = e.queue.as_ref().map(|q| q.handle()).unwrap_or(std::ptr::null_mut());
                info::write(&info::Ptr(q), s, v, r)
            }
            CL_EVENT_CONTEXT => info::write(&info::Ptr(e.context.handle()), s, v, r),
            CL_EVENT_COMMAND_TYPE => info::write(&e.command_type, s, v, r),
            CL_EVENT_COMMAND_EXECUTION_STATUS => info::write(&e.status(), s, v, r),
            CL_EVENT_REFERENCE_COUNT => info::write(&e.api_ref_count(), s, v, r),
            // Vendor extension: only a completed kernel launch has statistics.
            CL_EVENT_STATISTICS_VENTUS => {
                let st = e.stats().ok_or(CL_INVALID_VALUE)?;
                let width = e.queue.as_ref().map_or(0, |q| q.device.threads_per_warp);
                let words = [
                    st.work_groups,
                    st.instructions,
                    st.lane_instructions,
                    u64::from(width),
                    st.divergent_branches,
                    st.barriers,
                    st.global_bytes,
                    st.local_bytes,
                    st.private_bytes,
                    st.elapsed.as_nanos() as u64,
                    st.longest_group.as_nanos() as u64,
                    u64::from(st.threads),
                ];
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
                info::write_bytes(&bytes, s, v, r)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

pub extern "C" fn clRetainEvent(event: cl_event) -> cl_int {
    status(|| Obj::<Event>::retain(event))
}

pub extern "C" fn clReleaseEvent(event: cl_event) -> cl_int {
    status(|| Obj::<Event>::release(event).map(|_| ()))
}

pub extern "C" fn clGetEventProfilingInfo(
    event: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let e = Obj::<Event>::get(event)?;
        let known = [
            CL_PROFILING_COMMAND_QUEUED,
            CL_PROFILING_COMMAND_SUBMIT,
            CL_PROFILING_COMMAND_START,
            CL_PROFILING_COMMAND_END,
            CL_PROFILING_COMMAND_COMPLETE,
        ];
        // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for the
        // command-queue, if the execution status of the command identified by event is not
        // CL_COMPLETE or if event is a user event object."
        let profiled = e.queue.as_ref().is_some_and(|q| q.profiling());
        check(profiled, CL_PROFILING_INFO_NOT_AVAILABLE)?;
        check(known.contains(&param_name), CL_INVALID_VALUE)?;
        check(e.status() == CL_COMPLETE, CL_PROFILING_INFO_NOT_AVAILABLE)?;
        let t = e.profiling(param_name).ok_or(CL_PROFILING_INFO_NOT_AVAILABLE)?;
        info::write(&t, param_value_size, param_value, param_value_size_ret)
    })
}

pub extern "C" fn clSetEventCallback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let e = Obj::<Event>::get(event)?;
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        check([CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&command_exec_callback_type), CL_INVALID_VALUE)?;
        let (handle, user) = (event as usize, user_data as usize);
        // Keep the event alive (and its handle valid for the application) until the callback ran.
        let keep = e.clone();
        e.add_callback(
            command_exec_callback_type,
            Box::new(move |st| {
                // SAFETY: the application's callback, called once with its event, the status that
                // triggered it and its own user_data.
                unsafe { f(handle as cl_event, st, user as *mut c_void) };
                drop(keep);
            }),
        );
        Ok(())
    })
}

pub extern "C" fn clCreateUserEvent(context: cl_context, errcode_ret: *mut cl_int) -> cl_event {
    object(errcode_ret, || {
        let c = Obj::<Context>::get(context)?;
        Ok(Obj::new(Event::user(c)).handle())
    })
}

pub extern "C" fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int {
    status(|| {
        let e = Obj::<Event>::get(event)?;
        check(e.command_type == CL_COMMAND_USER, CL_INVALID_EVENT)?;
        check(execution_status == CL_COMPLETE || execution_status < 0, CL_INVALID_VALUE)?;
        // "CL_INVALID_OPERATION if the execution status of event has already been changed by a
        // previous call to clSetUserEventStatus" (checked atomically with the change).
        check(e.try_set_status(execution_status), CL_INVALID_OPERATION)
    })
}
