//! Command buffers (`cl_khr_command_buffer` 0.9.8): a list of commands recorded once for one
//! queue, finalized, then enqueued any number of times as a single command.
//!
//! Contract:
//! * Each recorded command is an [`Op`]: validated, with its arguments captured, when it is
//!   recorded (a kernel command snapshots and packs its arguments then: later
//!   `clSetKernelArg` calls do not reach it), so replaying it repeats none of that work.
//! * A sync point is the 1-based index of a recorded command; a command may wait only for
//!   earlier ones, so recording order is an order that honours every sync point: an enqueue
//!   runs the commands one after another, in that order, on the queue's worker thread, as one
//!   command of type `CL_COMMAND_COMMAND_BUFFER_KHR` ordered with the queue's other commands
//!   like any command. The first failing command fails the whole enqueue (its status becomes
//!   the event's); later commands do not run.
//! * Recording ends at [`CommandBuffer::finalize`]; only a finalized buffer can be enqueued.
//!   Enqueues of one buffer may be in flight together (0.9.8 has no pending state).

use super::context::Context;
use super::event::Event;
use super::queue::{Ordering, Queue};
use crate::cl::object::Ref;
use crate::cl::*;
use parking_lot::Mutex;
use std::sync::Arc;

/// One recorded command: runs it once on the calling thread.
pub type Op = Box<dyn Fn() -> CLResult<()> + Send + Sync>;

/// Why a command buffer refused a request (each is one OpenCL error code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandBufferError {
    /// Recording into a finalized buffer, finalizing twice, or enqueuing a buffer still
    /// recording (`CL_INVALID_OPERATION`).
    State,
    /// A sync point that names no earlier command of this buffer
    /// (`CL_INVALID_SYNC_POINT_WAIT_LIST_KHR`).
    SyncPoint,
}

impl From<CommandBufferError> for cl_int {
    fn from(e: CommandBufferError) -> cl_int {
        match e {
            CommandBufferError::State => CL_INVALID_OPERATION,
            CommandBufferError::SyncPoint => CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        }
    }
}

pub struct CommandBuffer {
    /// The one queue the buffer records for (`CL_COMMAND_BUFFER_QUEUES_KHR`).
    pub queue: Ref<Queue>,
    /// `CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR`: the properties as given (empty for NULL).
    pub properties: Vec<cl_command_buffer_properties_khr>,
    state: Mutex<State>,
}

/// A buffer's commands: still being recorded, or finalized (then shared with running
/// enqueues).
enum State {
    Recording(Vec<Op>),
    Executable(Arc<Vec<Op>>),
}

impl CommandBuffer {
    pub fn new(queue: Ref<Queue>, properties: Vec<cl_command_buffer_properties_khr>) -> CommandBuffer {
        CommandBuffer { queue, properties, state: Mutex::new(State::Recording(Vec::new())) }
    }

    pub fn context(&self) -> &Ref<Context> {
        &self.queue.context
    }

    /// Records `op`, which waits for the commands `wait` names; returns its sync point.
    pub fn record(&self, wait: &[cl_sync_point_khr], op: Op) -> Result<cl_sync_point_khr, CommandBufferError> {
        let State::Recording(ops) = &mut *self.state.lock() else { return Err(CommandBufferError::State) };
        if wait.iter().any(|&p| p == 0 || p as usize > ops.len()) {
            return Err(CommandBufferError::SyncPoint);
        }
        ops.push(op);
        Ok(ops.len() as cl_sync_point_khr)
    }

    /// Ends recording (`clFinalizeCommandBufferKHR`).
    pub fn finalize(&self) -> Result<(), CommandBufferError> {
        let mut s = self.state.lock();
        let State::Recording(ops) = &mut *s else { return Err(CommandBufferError::State) };
        *s = State::Executable(Arc::new(std::mem::take(ops)));
        Ok(())
    }

    pub fn is_finalized(&self) -> bool {
        matches!(*self.state.lock(), State::Executable(_))
    }

    /// Enqueues the recorded commands on `queue` (the buffer's, or one compatible with it)
    /// after `deps`, as one command.
    pub fn enqueue(&self, queue: &Ref<Queue>, deps: Vec<Ref<Event>>) -> Result<Ref<Event>, CommandBufferError> {
        let State::Executable(ops) = &*self.state.lock() else { return Err(CommandBufferError::State) };
        let ops = ops.clone();
        let work = Box::new(move || ops.iter().try_for_each(|op| op()));
        Ok(Queue::enqueue(queue, CL_COMMAND_COMMAND_BUFFER_KHR, deps, Ordering::Command, work))
    }
}
