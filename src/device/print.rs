//! The printf buffer of one launch and its drain.
//!
//! Layout (device memory, one region of `capacity + PRINT_SCRATCH_BYTES` bytes):
//! * word 0: write offset in bytes (starts at [`FIRST_RECORD`]), bumped by `amoadd.w`;
//! * word 1: number of records lost because the buffer was full;
//! * records from [`FIRST_RECORD`] up to `capacity` (the size in metadata `+52`): a header word
//!   ([`crate::abi::printf::record_header`]) followed by the arguments;
//! * scratch after `capacity`, where overflowing records are written and ignored. A record that
//!   starts inside the buffer but does not fit writes a [`PRINT_SKIP_ID`] header whose length
//!   reaches exactly `capacity`, so the drain can step over it.
//!
//! Device code writes a record's header last, with an atomic swap, so a non-zero header means
//! the record is complete. [`PrintBuffer::drain`] formats complete records in reservation order
//! (it stops at the first incomplete one), zeroes what it consumed and, when it has caught up with
//! the write offset, rewinds the offset to [`FIRST_RECORD`] with a compare-and-swap (a concurrent
//! reservation makes the swap fail, which is harmless). So the buffer only fills up when more
//! than `capacity` bytes are printed between two drains; what could not be stored is counted and
//! reported by [`PrintBuffer::lost`]. Draining may run on any thread while the kernel runs.

use crate::abi::printf::{
    format_record, format_unknown, split_header, PrintfTable, PRINT_SCRATCH_BYTES, PRINT_SKIP_ID,
};
use crate::emulator::memory::{DeviceMemory, MapError, Region};
use std::sync::Arc;

/// Offset of the first record.
pub const FIRST_RECORD: u32 = 8;

/// A launch's print buffer.
pub struct PrintBuffer {
    region: Arc<Region>,
    capacity: u32,
    table: Option<Arc<PrintfTable>>,
    cursor: u32,
}

impl PrintBuffer {
    /// Allocates a buffer with `capacity` bytes of records (at least 64) in `mem`.
    pub fn new(mem: &DeviceMemory, capacity: u32, table: Option<Arc<PrintfTable>>) -> Result<PrintBuffer, MapError> {
        let capacity = capacity.max(64) & !3;
        let region = mem.alloc(capacity.saturating_add(PRINT_SCRATCH_BYTES))?;
        region.store(region.base(), FIRST_RECORD, 4);
        Ok(PrintBuffer { region, capacity, table, cursor: FIRST_RECORD })
    }

    /// `(address, usable size)` for the metadata words `+48`/`+52`.
    pub fn metadata(&self) -> (u32, u32) {
        (self.region.base(), self.capacity)
    }

    /// Formats every complete record not yet drained, appending the text to `out`.
    pub fn drain(&mut self, out: &mut Vec<u8>) {
        let base = self.region.base();
        let mut args = Vec::new();
        while self.cursor + 4 <= self.capacity {
            let header = self.region.load_acquire(base + self.cursor);
            if header == 0 {
                break;
            }
            let (len, id) = split_header(header);
            let bad_len = if id == PRINT_SKIP_ID { self.cursor + len != self.capacity } else { len < 4 };
            if bad_len || len % 4 != 0 || self.cursor + len > self.capacity {
                // Not a record we wrote: report it and stop using the buffer's tail.
                out.extend_from_slice(format!("[printf: corrupt record header {header:#010x}]\n").as_bytes());
                self.cursor = self.capacity;
                break;
            }
            if id != PRINT_SKIP_ID {
                args.resize((len - 4) as usize, 0);
                self.region.read_bytes(base + self.cursor + 4, &mut args);
                match self.table.as_ref().and_then(|t| t.site(id)) {
                    Some(site) => format_record(site, &args, out),
                    None => format_unknown(id, &args, out),
                }
            }
            self.region.fill_zero(base + self.cursor, len);
            self.cursor += len;
        }
        // Caught up: rewind unless a reservation happened meanwhile. Once the cursor reached the
        // end, every later reservation overflowed into the scratch area and can be ignored.
        let (cursor, cap) = (self.cursor, self.capacity);
        if cursor > FIRST_RECORD {
            let caught_up = |v: u32| v == cursor || (cursor == cap && v >= cap);
            let old = self.region.rmw(base, |v| if caught_up(v) { FIRST_RECORD } else { v });
            if caught_up(old) {
                self.cursor = FIRST_RECORD;
            }
        }
    }

    /// Records lost because the buffer was full (reads and clears the counter).
    pub fn lost(&self) -> u32 {
        let base = self.region.base();
        self.region.rmw(base + 4, |_| 0)
    }

    /// Bytes of record space.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Releases the device memory.
    pub fn free(self, mem: &DeviceMemory) {
        mem.unmap(self.region.base());
    }
}
