//! Native kernels (`clEnqueueNativeKernel`, OpenCL 3.0 §5.10): a host function run as a command
//! on the queue's worker thread, in order with the queue's other commands.
//!
//! Contract: [`NativeCall::new`] copies the application's argument block (so the application may
//! reuse it at once, as the spec says) and checks that every memory-object location lies inside
//! it with room for a host pointer. [`NativeCall::run`] stages the contents of each listed buffer
//! in host memory (one staging copy per distinct object, 16-byte aligned), writes each staging
//! address into the block copy at its location, hands the block to the caller's function (the
//! `api` layer calls the application's function with it), then writes every staged buffer back
//! to the device (and to `CL_MEM_USE_HOST_PTR` memory). A native kernel thus sees and changes
//! exactly the bytes a kernel would; buffers that overlap (a sub-buffer and its parent) are
//! staged separately and written back in list order.

use super::memory::Mem;
use crate::cl::object::Ref;
use crate::cl::*;
use std::sync::Arc;

/// Bytes of a pointer written into the argument block (the host's).
const POINTER_BYTES: usize = std::mem::size_of::<usize>();

/// A native kernel's arguments, copied at enqueue.
pub struct NativeCall {
    /// The argument block.
    block: Aligned,
    /// Each memory object with the byte offset in the block where its contents' address goes.
    mems: Vec<(Ref<Mem>, usize)>,
}

impl NativeCall {
    /// Copies `block`; `mems` pairs each memory object with the offset of its pointer in the
    /// block. `CL_INVALID_VALUE` if a pointer would not fit inside the block.
    pub fn new(block: &[u8], mems: Vec<(Ref<Mem>, usize)>) -> CLResult<NativeCall> {
        if mems.iter().any(|&(_, at)| at.checked_add(POINTER_BYTES).is_none_or(|end| end > block.len())) {
            return Err(CL_INVALID_VALUE);
        }
        let mut copy = Aligned::zeroed(block.len());
        copy.bytes_mut().copy_from_slice(block);
        Ok(NativeCall { block: copy, mems })
    }

    /// Runs the call: stages the buffers, calls `f` with the block (empty when the application
    /// passed none), writes the buffers back.
    pub fn run(mut self, f: impl FnOnce(&mut [u8])) -> CLResult<()> {
        // One staging copy per distinct memory object.
        let mut staged: Vec<(Ref<Mem>, Aligned)> = Vec::new();
        let mut slots = Vec::with_capacity(self.mems.len());
        for (m, _) in &self.mems {
            let k = match staged.iter().position(|(s, _)| Arc::ptr_eq(s, m)) {
                Some(k) => k,
                None => {
                    let mut copy = Aligned::zeroed(m.size);
                    m.read(0, copy.bytes_mut())?;
                    staged.push((m.clone(), copy));
                    staged.len() - 1
                }
            };
            slots.push(k);
        }
        let addrs: Vec<usize> = staged.iter_mut().map(|(_, c)| c.bytes_mut().as_mut_ptr() as usize).collect();
        let block = self.block.bytes_mut();
        for ((_, at), &k) in self.mems.iter().zip(&slots) {
            let addr = addrs[k];
            block[*at..*at + POINTER_BYTES].copy_from_slice(&addr.to_ne_bytes());
        }
        f(block);
        for (m, copy) in &staged {
            m.write(0, copy.bytes())?;
            m.sync_host(0, m.size)?;
        }
        Ok(())
    }
}

/// Zeroed bytes starting at a 16-byte boundary (what `malloc` gives a C program), so a native
/// kernel may read any C type through the pointers it is given.
struct Aligned {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    const ALIGN: usize = 16;

    fn zeroed(len: usize) -> Aligned {
        let buf = vec![0u8; len + Self::ALIGN - 1];
        let start = buf.as_ptr().align_offset(Self::ALIGN).min(Self::ALIGN - 1);
        Aligned { buf, start, len }
    }
    fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }
}
