//! OpenCL objects in safe Rust: platform, device, context, command queue (one worker thread each),
//! events, memory objects, programs and kernels. `core` never sees C pointers: the `api` layer
//! converts every application pointer and wraps C callbacks into Rust closures.

pub mod command_buffer;
pub mod context;
pub mod device;
pub mod event;
pub mod image;
pub mod image_format;
pub mod kernel;
pub mod launch;
pub mod memory;
pub mod native;
pub mod partition;
pub mod platform;
pub mod program;
pub mod queue;
pub mod stats;
pub mod svm;

use crate::cl::object::handle_type;
use crate::cl::*;

handle_type!(platform::Platform, Platform, cl_platform_id, CL_INVALID_PLATFORM);
handle_type!(device::Device, Device, cl_device_id, CL_INVALID_DEVICE);
handle_type!(context::Context, Context, cl_context, CL_INVALID_CONTEXT);
handle_type!(queue::Queue, Queue, cl_command_queue, CL_INVALID_COMMAND_QUEUE);
handle_type!(event::Event, Event, cl_event, CL_INVALID_EVENT);
handle_type!(memory::Mem, Mem, cl_mem, CL_INVALID_MEM_OBJECT);
handle_type!(command_buffer::CommandBuffer, CommandBuffer, cl_command_buffer_khr, CL_INVALID_COMMAND_BUFFER_KHR);
// Program and kernel handle types are declared in their modules once their payload types exist.
