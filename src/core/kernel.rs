//! Kernel objects (OpenCL 3.0 §5.9): one kernel of a built program plus its argument values.
//!
//! Contract:
//! * A kernel holds its program (counted in [`Program::kernels_attached`] while the kernel object
//!   lives) and the executable it was created from, so a later rebuild cannot change it.
//! * Arguments are stored already classified ([`ArgValue`]); the API layer validates them (against
//!   the kernel's metadata when the ELF has some, otherwise "by size" as pocl does). Without
//!   metadata the argument count is the highest index set + 1.
//! * [`Kernel::snapshot_args`] copies the values at enqueue time (OpenCL semantics: later
//!   `clSetKernelArg` calls do not affect enqueued commands) and keeps buffers alive.
//! * [`Kernel::run_options`] are the emulator options launches of this kernel use, from the
//!   environment by default; Rust callers may replace them (e.g. a small watchdog in tests).

use super::memory::Mem;
use super::program::{Executable, KernelDef, Program};
use crate::abi::kernel_info::KernelInfo;
/// Argument metadata kinds, as `clGetKernelArgInfo` and the argument checks see them.
pub use crate::abi::kernel_info::{Access, AddressSpace, ArgKind};
use crate::cl::object::{handle_type, Obj, Ref};
use crate::cl::*;
use crate::device::LaunchOptions;
use parking_lot::Mutex;
use std::sync::{Arc, Weak};

handle_type!(Kernel, Kernel, cl_kernel, CL_INVALID_KERNEL);

/// A kernel argument value as set by `clSetKernelArg`.
#[derive(Clone)]
pub enum ArgValue {
    /// A `__global`/`__constant` buffer; `None` is a NULL pointer.
    Buffer(Option<Ref<Mem>>),
    /// A `__local` allocation of this many bytes.
    Local(u32),
    /// A by-value argument: its bytes.
    Value(Vec<u8>),
    /// A `__global`/`__constant` pointer into shared virtual memory (`clSetKernelArgSVMPointer`):
    /// the device address.
    Svm(u32),
}

impl std::fmt::Debug for ArgValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgValue::Buffer(None) => write!(f, "Buffer(NULL)"),
            ArgValue::Buffer(Some(m)) => write!(f, "Buffer({:#010x})", m.kernel_address()),
            ArgValue::Local(n) => write!(f, "Local({n})"),
            ArgValue::Value(v) => write!(f, "Value({v:02x?})"),
            ArgValue::Svm(a) => write!(f, "Svm({a:#010x})"),
        }
    }
}

/// An argument as the kernel keeps it between `clSetKernelArg` and a launch. A buffer is held
/// weakly: setting a kernel argument does not retain the memory object (the application's
/// release may destroy it and run its destructor callbacks while the kernel still names it); a
/// launch takes strong references for as long as its command needs them.
#[derive(Clone)]
enum StoredArg {
    Buffer(Option<Weak<Obj<Mem>>>),
    Other(ArgValue),
}

impl StoredArg {
    fn new(v: ArgValue) -> StoredArg {
        match v {
            ArgValue::Buffer(m) => StoredArg::Buffer(m.map(|m| Arc::downgrade(&m))),
            v => StoredArg::Other(v),
        }
    }

    /// The value for a launch: `None` if its buffer no longer exists.
    fn value(&self) -> Option<ArgValue> {
        match self {
            StoredArg::Buffer(None) => Some(ArgValue::Buffer(None)),
            StoredArg::Buffer(Some(w)) => w.upgrade().map(|m| ArgValue::Buffer(Some(m))),
            StoredArg::Other(v) => Some(v.clone()),
        }
    }
}

/// Why a kernel's arguments cannot be launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgsError {
    /// Argument `n` was never set.
    Unset(usize),
    /// Argument `n` names a memory object that has since been destroyed.
    Released(usize),
}

pub struct Kernel {
    pub program: Ref<Program>,
    pub exec: Arc<Executable>,
    /// Index into `exec.kernels`.
    index: usize,
    args: Mutex<Vec<Option<StoredArg>>>,
    run_options: Mutex<LaunchOptions>,
}

impl Kernel {
    /// Creates kernel `index` of `exec` (which must be `program`'s executable).
    pub fn new(program: Ref<Program>, exec: Arc<Executable>, index: usize) -> Kernel {
        program.attach_kernel();
        let n = exec.kernels[index].info.as_ref().map_or(0, |i| i.args.len());
        Kernel {
            program,
            exec,
            index,
            args: Mutex::new(vec![None; n]),
            run_options: Mutex::new(LaunchOptions::from_env()),
        }
    }

    /// `clCloneKernel`: same kernel, same argument values and options.
    pub fn duplicate(&self) -> Kernel {
        let k = Kernel::new(self.program.clone(), self.exec.clone(), self.index);
        *k.args.lock() = self.args.lock().clone();
        *k.run_options.lock() = self.run_options.lock().clone();
        k
    }

    pub fn def(&self) -> &KernelDef {
        &self.exec.kernels[self.index]
    }

    pub fn name(&self) -> &str {
        &self.def().name
    }

    /// Argument metadata, if the ELF carries it.
    pub fn info(&self) -> Option<&KernelInfo> {
        self.def().info.as_ref()
    }

    /// `CL_KERNEL_NUM_ARGS`: declared arguments, or (no metadata) the highest index set + 1.
    pub fn num_args(&self) -> u32 {
        match self.info() {
            Some(i) => i.args.len() as u32,
            None => self.args.lock().len() as u32,
        }
    }

    /// Stores argument `index` (validated by the caller).
    pub fn set_arg(&self, index: usize, value: ArgValue) {
        let mut a = self.args.lock();
        if a.len() <= index {
            a.resize(index + 1, None);
        }
        a[index] = Some(StoredArg::new(value));
    }

    /// The argument values at this moment, buffers strongly referenced.
    pub fn snapshot_args(&self) -> Result<Vec<ArgValue>, ArgsError> {
        let args = self.args.lock();
        args.iter()
            .enumerate()
            .map(|(i, a)| a.as_ref().ok_or(ArgsError::Unset(i))?.value().ok_or(ArgsError::Released(i)))
            .collect()
    }

    /// Total bytes of the `__local` arguments set so far.
    pub fn local_arg_bytes(&self) -> u64 {
        let args = self.args.lock();
        args.iter().flatten().map(|a| if let StoredArg::Other(ArgValue::Local(n)) = a { *n as u64 } else { 0 }).sum()
    }

    /// The device options for launches of this kernel (from the environment by default).
    pub fn run_options(&self) -> LaunchOptions {
        self.run_options.lock().clone()
    }

    /// Replaces the device options (watchdog, trap policy, threads) for later launches.
    #[cfg(test)]
    pub fn set_run_options(&self, opts: LaunchOptions) {
        *self.run_options.lock() = opts;
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.detach_kernel();
    }
}
