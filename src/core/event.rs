//! Events: the execution-status state machine (queued → submitted → running → complete, or a
//! negative error), profiling timestamps, waiting and callbacks.
//!
//! Callbacks never run while the event's lock is held (a callback may call back into the API).
//! Every status change also bumps a global generation counter that out-of-order queue workers wait
//! on, so a command becomes ready as soon as its last dependency finishes, wherever that happens.

use super::context::Context;
use super::queue::Queue;
use crate::cl::object::Ref;
use crate::cl::*;
use once_cell::sync::Lazy;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::Ordering::{Acquire, Release, SeqCst};
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize};

/// A status callback: called once with the status that triggered it.
pub type Callback = Box<dyn FnOnce(cl_int) + Send>;

struct State {
    status: cl_int,
    /// queued, submit, start, end, complete (ns; 0 = not reached).
    times: [u64; 5],
    callbacks: Vec<(cl_int, Callback)>,
}

pub struct Event {
    pub context: Ref<Context>,
    /// The queue of a command event; `None` for user events.
    pub queue: Option<Ref<Queue>>,
    pub command_type: cl_command_type,
    state: Mutex<State>,
    /// `state.status`, written with it under the lock: waiters poll it without locking.
    status_now: AtomicI32,
    cv: Condvar,
    /// Statistics of a completed kernel launch (`CL_EVENT_STATISTICS_VENTUS`).
    stats: Mutex<Option<crate::device::LaunchStats>>,
}

/// Global "some event changed" counter for out-of-order workers: read without a lock; the
/// mutex and condition variable serve only threads that sleep on it ([`SLEEPERS`] of them), so
/// a status change takes no lock while nobody sleeps.
static GENERATION: AtomicU64 = AtomicU64::new(0);
static SLEEPERS: AtomicUsize = AtomicUsize::new(0);
static CHANGED: Lazy<(Mutex<()>, Condvar)> = Lazy::new(|| (Mutex::new(()), Condvar::new()));

/// Advances the generation and wakes every thread sleeping in [`wait_generation`].
pub(crate) fn bump_generation() {
    GENERATION.fetch_add(1, SeqCst);
    // A sleeper counts itself (under the mutex) before it looks at the generation: either it
    // sees this increment, or this sees it and notifies under the mutex it waits with.
    if SLEEPERS.load(SeqCst) > 0 {
        let (m, cv) = &*CHANGED;
        let _g = m.lock();
        cv.notify_all();
    }
}

/// The current value of the generation counter.
pub(crate) fn generation() -> u64 {
    GENERATION.load(SeqCst)
}

/// Blocks until the generation differs from `seen` (or `timeout` passed, a safety net only).
pub(crate) fn wait_generation(seen: u64, timeout: std::time::Duration) {
    let (m, cv) = &*CHANGED;
    let mut g = m.lock();
    SLEEPERS.fetch_add(1, SeqCst);
    if GENERATION.load(SeqCst) == seen {
        cv.wait_for(&mut g, timeout);
    }
    SLEEPERS.fetch_sub(1, SeqCst);
}

/// Polls `ready` (no lock taken: it should read atomics) until it holds or
/// [`super::queue::SPIN`] has passed, yielding the CPU between looks; true when it holds.
pub(crate) fn poll_briefly(ready: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        if ready() {
            return true;
        }
        if start.elapsed() >= super::queue::SPIN {
            return false;
        }
        std::thread::yield_now();
    }
}

/// The status a callback registered for `trigger` receives once the event reached `status`: the
/// trigger itself (the spec: "equal to the command_exec_callback_type used while registering"),
/// or the error code if the command terminated abnormally.
fn callback_status(trigger: cl_int, status: cl_int) -> cl_int {
    if status < 0 {
        status
    } else {
        trigger
    }
}

impl Event {
    /// A user event (`CL_SUBMITTED` until the application sets its status).
    pub fn user(context: Ref<Context>) -> Event {
        Event::with_status(context, None, CL_COMMAND_USER, CL_SUBMITTED)
    }

    /// The event of an enqueued command (`CL_QUEUED`, queued timestamp taken now).
    pub fn command(context: Ref<Context>, queue: Ref<Queue>, command_type: cl_command_type) -> Event {
        let e = Event::with_status(context, Some(queue), command_type, CL_QUEUED);
        e.state.lock().times[0] = now_ns();
        e
    }

    fn with_status(
        context: Ref<Context>,
        queue: Option<Ref<Queue>>,
        command_type: cl_command_type,
        status: cl_int,
    ) -> Event {
        Event {
            context,
            queue,
            command_type,
            state: Mutex::new(State { status, times: [0; 5], callbacks: Vec::new() }),
            status_now: AtomicI32::new(status),
            cv: Condvar::new(),
            stats: Mutex::new(None),
        }
    }

    /// Records what the launch of this (kernel) event did; set before it completes.
    pub fn set_stats(&self, stats: crate::device::LaunchStats) {
        *self.stats.lock() = Some(stats);
    }

    /// The launch statistics of a completed kernel event.
    pub fn stats(&self) -> Option<crate::device::LaunchStats> {
        *self.stats.lock()
    }

    /// The current execution status.
    pub fn status(&self) -> cl_int {
        self.status_now.load(Acquire)
    }

    /// True once complete or failed.
    pub fn is_done(&self) -> bool {
        self.status() <= CL_COMPLETE
    }

    /// Moves the event to `status` (only forwards: a finished event never changes again), records
    /// profiling times, wakes waiters and runs the callbacks whose trigger has been reached.
    pub fn set_status(&self, status: cl_int) {
        self.try_set_status(status);
    }

    /// As [`Event::set_status`]; returns false (and changes nothing) if the event already had
    /// `status` or a later one, e.g. a second `clSetUserEventStatus` racing with the first.
    pub fn try_set_status(&self, status: cl_int) -> bool {
        let due = {
            let mut s = self.state.lock();
            if s.status <= CL_COMPLETE || status >= s.status {
                return false;
            }
            let now = now_ns();
            let stage = |st: cl_int| match st {
                CL_SUBMITTED => 1,
                CL_RUNNING => 2,
                _ => 3,
            };
            // Fill in skipped stages too, so profiling values are always ordered.
            for k in 1..=stage(status.max(CL_COMPLETE)) {
                if s.times[k] == 0 {
                    s.times[k] = now;
                }
            }
            if status <= CL_COMPLETE {
                s.times[4] = now;
            }
            s.status = status;
            self.status_now.store(status, Release);
            let (due, keep): (Vec<_>, Vec<_>) =
                std::mem::take(&mut s.callbacks).into_iter().partition(|(trigger, _)| status <= *trigger);
            s.callbacks = keep;
            due
        };
        self.cv.notify_all();
        bump_generation();
        for (trigger, f) in due {
            f(callback_status(trigger, status));
        }
        true
    }

    /// Blocks until the event is complete or failed; returns the final status.
    pub fn wait(&self) -> cl_int {
        // Short commands complete within the polling window: no sleep and OS wake-up, and no
        // lock taken while the command's thread sets the status.
        poll_briefly(|| self.status_now.load(Acquire) <= CL_COMPLETE);
        let mut s = self.state.lock();
        while s.status > CL_COMPLETE {
            self.cv.wait(&mut s);
        }
        s.status
    }

    /// `clSetEventCallback`: `trigger` is `CL_SUBMITTED`, `CL_RUNNING` or `CL_COMPLETE`. A callback
    /// whose state was already reached runs immediately (on the calling thread). Each callback runs
    /// exactly once, with `trigger` (or the error status of a failed command).
    pub fn add_callback(&self, trigger: cl_int, f: Callback) {
        let reached = {
            let mut s = self.state.lock();
            if s.status > trigger {
                s.callbacks.push((trigger, f));
                return;
            }
            s.status
        };
        f(callback_status(trigger, reached));
    }

    /// Profiling timestamp: `CL_PROFILING_COMMAND_{QUEUED,SUBMIT,START,END,COMPLETE}`; `None` if
    /// not reached yet.
    pub fn profiling(&self, which: cl_profiling_info) -> Option<u64> {
        let k = match which {
            CL_PROFILING_COMMAND_QUEUED => 0,
            CL_PROFILING_COMMAND_SUBMIT => 1,
            CL_PROFILING_COMMAND_START => 2,
            CL_PROFILING_COMMAND_END => 3,
            _ => 4,
        };
        let s = self.state.lock();
        if s.status > CL_COMPLETE && k >= 3 {
            return None;
        }
        Some(s.times[k]).filter(|&t| t != 0)
    }
}
