//! Command queues: one worker thread per queue executes commands; in-order queues run them in
//! enqueue order, out-of-order queues run any command whose dependencies have finished (barriers
//! and markers order them as the spec requires).
//!
//! A command whose wait list contains a failed event is not run; its event fails with
//! `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`. A command whose work returns an error fails its
//! event with that (negative) status. Either way the queue goes on with the next command. Implicit
//! ordering (a marker or barrier without a wait list waiting for earlier commands, later commands
//! of an out-of-order queue waiting for the last barrier) only orders: it does not propagate
//! failures.
//!
//! Lifetime: a command's event holds its queue, and the queue holds the events of unfinished
//! commands only (the worker forgets each one as it finishes, dropping it outside the queue lock),
//! so a released queue with no commands left and no events held by the application is destroyed,
//! which releases its context (and may run the context's destructor callbacks).

use super::context::Context;
use super::device::Device;
use super::event::{bump_generation, generation, poll_briefly, wait_generation, Event};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::Arc;
use std::time::Duration;

/// The work of a command, run on the queue's worker thread.
pub type Work = Box<dyn FnOnce() -> CLResult<()> + Send>;

struct Command {
    event: Ref<Event>,
    /// The wait list: a failed event here fails the command.
    deps: Vec<Ref<Event>>,
    /// Implicit ordering: only waited for.
    after: Vec<Ref<Event>>,
    work: Work,
}

impl Command {
    fn ready(&self) -> bool {
        self.deps.iter().chain(&self.after).all(|d| d.is_done())
    }
}

#[derive(Default)]
struct QState {
    pending: VecDeque<Command>,
    /// Events of commands not yet finished (for `clFinish`, barriers and markers).
    outstanding: VecDeque<Ref<Event>>,
    /// Length above which [`QState::prune`] scans the whole of `outstanding`.
    prune_at: usize,
    /// The last barrier of an out-of-order queue: later commands depend on it.
    last_barrier: Option<Ref<Event>>,
    shutdown: bool,
}

impl QState {
    /// Removes finished commands' events from `outstanding` and returns them (to be dropped
    /// outside the lock). Amortised O(1) per command: finished events are taken from the front
    /// (an in-order queue finishes in order); the whole list is scanned only when it has doubled
    /// since the last scan (out-of-order queues).
    fn prune(&mut self) -> Vec<Ref<Event>> {
        let mut done = Vec::new();
        while self.outstanding.front().is_some_and(|e| e.is_done()) {
            done.extend(self.outstanding.pop_front());
        }
        if self.outstanding.len() > self.prune_at {
            let all = std::mem::take(&mut self.outstanding);
            let (d, open): (Vec<_>, Vec<_>) = all.into_iter().partition(|e| e.is_done());
            done.extend(d);
            self.outstanding = open.into();
            self.prune_at = (2 * self.outstanding.len()).max(64);
        }
        done
    }
}

struct Shared {
    state: Mutex<QState>,
    cv: Condvar,
    in_order: bool,
    /// Counts commands enqueued (and the shutdown): an idle worker polls it without the lock
    /// before it sleeps on `cv`.
    posted: AtomicU64,
}

pub struct Queue {
    pub context: Ref<Context>,
    pub device: Ref<Device>,
    pub properties: cl_command_queue_properties,
    /// `CL_QUEUE_PROPERTIES_ARRAY` as given (empty for `clCreateCommandQueue`).
    pub properties_array: Vec<cl_queue_properties>,
    shared: Arc<Shared>,
}

/// How a command relates to the commands before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// A normal command.
    Command,
    /// A marker: waits for its wait list, or for every earlier command if the list is empty.
    Marker,
    /// A barrier: waits as a marker does; later commands wait for it.
    Barrier,
}

impl Queue {
    /// Creates a queue and starts its worker thread.
    pub fn new(
        context: Ref<Context>,
        device: Ref<Device>,
        properties: cl_command_queue_properties,
        properties_array: Vec<cl_queue_properties>,
    ) -> Queue {
        let in_order = properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0;
        let shared = Arc::new(Shared {
            state: Mutex::new(QState::default()),
            cv: Condvar::new(),
            in_order,
            posted: AtomicU64::new(0),
        });
        let s2 = shared.clone();
        std::thread::Builder::new()
            .name("ventus-queue".into())
            .spawn(move || worker(s2))
            .expect("spawning a queue worker thread");
        Queue { context, device, properties, properties_array, shared }
    }

    pub fn profiling(&self) -> bool {
        self.properties & CL_QUEUE_PROFILING_ENABLE != 0
    }

    /// Enqueues a command; returns its event (registered, application reference count 1).
    pub fn enqueue(
        queue: &Ref<Queue>,
        command_type: cl_command_type,
        wait_list: Vec<Ref<Event>>,
        ordering: Ordering,
        work: Work,
    ) -> Ref<Event> {
        Queue::enqueue_with(queue, command_type, wait_list, ordering, |_| work)
    }

    /// [`Queue::enqueue`] with work that knows its own event (to attach results to it).
    pub fn enqueue_with(
        queue: &Ref<Queue>,
        command_type: cl_command_type,
        wait_list: Vec<Ref<Event>>,
        ordering: Ordering,
        make_work: impl FnOnce(&Ref<Event>) -> Work,
    ) -> Ref<Event> {
        let event = Obj::new(Event::command(queue.context.clone(), queue.clone(), command_type));
        let work = make_work(&event);
        let mut st = queue.shared.state.lock();
        let finished = st.prune();
        let mut after = Vec::new();
        if ordering != Ordering::Command && wait_list.is_empty() {
            after.extend(st.outstanding.iter().cloned());
        }
        if !queue.shared.in_order {
            if let Some(b) = &st.last_barrier {
                after.push(b.clone());
            }
            if ordering == Ordering::Barrier {
                st.last_barrier = Some(event.clone());
            }
        }
        st.outstanding.push_back(event.clone());
        st.pending.push_back(Command { event: event.clone(), deps: wait_list, after, work });
        queue.shared.posted.fetch_add(1, Release);
        drop(st);
        drop(finished);
        event.set_status(CL_SUBMITTED);
        queue.shared.cv.notify_all();
        bump_generation();
        event
    }

    /// `clFinish`: blocks until every command enqueued so far has finished.
    pub fn finish(&self) {
        let outstanding = self.shared.state.lock().outstanding.clone();
        for e in outstanding {
            e.wait();
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.shared.state.lock().shutdown = true;
        self.shared.posted.fetch_add(1, Release);
        self.shared.cv.notify_all();
        bump_generation();
    }
}

/// Index of the next command to run, if any is ready.
fn pick(st: &QState, in_order: bool) -> Option<usize> {
    if in_order {
        return if st.pending.is_empty() { None } else { Some(0) };
    }
    st.pending.iter().position(Command::ready)
}

/// How long a thread polls for a state change before it blocks (see
/// [`super::event::poll_briefly`]).
pub(crate) const SPIN: Duration = Duration::from_micros(100);

fn worker(shared: Arc<Shared>) {
    loop {
        let cmd = {
            let mut st = shared.state.lock();
            loop {
                // Read before looking, so a change in between is not missed.
                let seen = generation();
                if let Some(cmd) = pick(&st, shared.in_order).and_then(|i| st.pending.remove(i)) {
                    break cmd;
                }
                if st.shutdown && st.pending.is_empty() {
                    return;
                }
                if shared.in_order || st.pending.is_empty() {
                    // Poll briefly before sleeping: a program enqueueing its next command right
                    // after the last one completes (a launch loop, enqueue-then-wait) finds this
                    // thread awake instead of paying an OS wake-up (tens of µs on a VM).
                    if st.pending.is_empty() {
                        // Polled without the lock: the enqueueing thread never waits for it.
                        let posted = shared.posted.load(Acquire);
                        let woke =
                            MutexGuard::unlocked(&mut st, || poll_briefly(|| shared.posted.load(Acquire) != posted));
                        if !woke && st.pending.is_empty() && !st.shutdown {
                            shared.cv.wait(&mut st);
                        }
                    }
                } else {
                    // Out of order and blocked on dependencies: wait for any event to change (the
                    // timeout is only a safety net).
                    drop(st);
                    wait_generation(seen, Duration::from_millis(100));
                    st = shared.state.lock();
                }
            }
        };
        run(cmd);
        // Forget finished commands; drop them outside the lock (the last reference to an event
        // may be the last reference to this queue, whose `Drop` takes the lock).
        let finished = {
            let mut st = shared.state.lock();
            let done = st.prune();
            let barrier = st.last_barrier.take_if(|b| b.is_done());
            (done, barrier)
        };
        drop(finished);
    }
}

fn run(cmd: Command) {
    for e in &cmd.after {
        e.wait();
    }
    let failed = cmd.deps.iter().map(|d| d.wait()).any(|s| s < 0);
    if failed {
        cmd.event.set_status(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return;
    }
    cmd.event.set_status(CL_RUNNING);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(cmd.work));
    match result {
        Ok(Ok(())) => cmd.event.set_status(CL_COMPLETE),
        Ok(Err(e)) => cmd.event.set_status(if e < 0 { e } else { CL_OUT_OF_RESOURCES }),
        Err(_) => {
            cmd.event.context.report("internal error: a command panicked");
            cmd.event.set_status(CL_OUT_OF_HOST_MEMORY)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cl::object::Obj;
    use crate::core::context::Context;

    /// Finished commands leave `outstanding` as the queue goes (a 1,000-launch loop must not
    /// rescan 1,000 events per command), for in-order and out-of-order queues alike.
    #[test]
    fn finished_commands_are_forgotten() {
        for props in [0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE] {
            let dev = super::super::platform::device().clone();
            let ctx = Obj::new(Context::new(vec![dev.clone()], Vec::new(), None));
            let q = Obj::new(Queue::new(ctx, dev, props, Vec::new()));
            let mut last = None;
            for _ in 0..1000 {
                last = Some(Queue::enqueue(&q, CL_COMMAND_MARKER, Vec::new(), Ordering::Command, Box::new(|| Ok(()))));
            }
            q.finish();
            assert_eq!(last.unwrap().wait(), CL_COMPLETE);
            let e = Queue::enqueue(&q, CL_COMMAND_MARKER, Vec::new(), Ordering::Command, Box::new(|| Ok(())));
            assert_eq!(e.wait(), CL_COMPLETE);
            let n = q.shared.state.lock().outstanding.len();
            assert!(n <= 128, "{n} events outstanding after finish (props {props:#x})");
        }
    }
}
