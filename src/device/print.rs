//! The printf buffer of one launch and its drain.
//!
//! Layout (device memory, one region of `capacity + PRINT_SCRATCH_BYTES` bytes; the offsets are
//! `abi::printf::buffer`'s, which the compiler's device-side writer uses too):
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
//!
//! [`StreamingPrint`] is the launch's print hook: it drains the buffer at each `CSR_PRINT` and
//! writes host-call text, both to one sink under one lock, so output keeps the buffer's record
//! order. [`Printer`] is what every user of the device (the OpenCL runtime, `ventus-run`) sets
//! up for a launch: the buffer for programs with a printf table (binaries without one print, if
//! at all, through a host call; [`Printer::official`] still allocates a plain buffer for them,
//! as the official driver does whatever the kernel) and the hook, and after the launch
//! [`Printer::finish`] reports lost records and frees it.

use super::memory::{Buffer, Memory, MemoryError, Placement};
use crate::abi::printf::buffer::{FIRST_RECORD, LOST_RECORDS, RECORD_ARGS, WRITE_OFFSET};
use crate::abi::printf::{
    format_record, format_unknown, split_header, PrintfTable, PRINT_SCRATCH_BYTES, PRINT_SKIP_ID,
};
use crate::emulator::PrintHook;
use parking_lot::Mutex;
use std::sync::Arc;

/// A launch's print buffer.
pub struct PrintBuffer {
    region: Buffer,
    capacity: u32,
    table: Option<Arc<PrintfTable>>,
    cursor: u32,
}

impl PrintBuffer {
    /// Allocates a buffer with `capacity` bytes of records (at least 64) in `mem`.
    pub fn new(mem: &Memory, capacity: u32, table: Option<Arc<PrintfTable>>) -> Result<PrintBuffer, MemoryError> {
        let capacity = capacity.max(64) & !3;
        let region = mem.alloc(capacity.saturating_add(PRINT_SCRATCH_BYTES), Placement::Plain)?;
        region.write(region.base() + WRITE_OFFSET, &FIRST_RECORD.to_le_bytes());
        Ok(PrintBuffer { region, capacity, table, cursor: FIRST_RECORD })
    }

    /// `(address, usable size)` for the metadata words `+48`/`+52`.
    pub fn metadata(&self) -> (u32, u32) {
        (self.region.base(), self.capacity)
    }

    /// Formats every complete record not yet drained, appending the text to `out`.
    pub fn drain(&mut self, out: &mut Vec<u8>) {
        let base = self.region.base();
        let region = self.region.region();
        let mut args = Vec::new();
        while self.cursor + 4 <= self.capacity {
            let header = region.load_acquire(base + self.cursor);
            if header == 0 {
                break;
            }
            let (len, id) = split_header(header);
            let bad_len = if id == PRINT_SKIP_ID { self.cursor + len != self.capacity } else { len < RECORD_ARGS };
            if bad_len || len % 4 != 0 || self.cursor + len > self.capacity {
                // Not a record we wrote: report it and stop using the buffer's tail.
                out.extend_from_slice(format!("[printf: corrupt record header {header:#010x}]\n").as_bytes());
                self.cursor = self.capacity;
                break;
            }
            if id != PRINT_SKIP_ID {
                args.resize((len - RECORD_ARGS) as usize, 0);
                region.read_bytes(base + self.cursor + RECORD_ARGS, &mut args);
                match self.table.as_ref().and_then(|t| t.site(id)) {
                    Some(site) => format_record(site, &args, out),
                    None => format_unknown(id, &args, out),
                }
            }
            region.fill_zero(base + self.cursor, len);
            self.cursor += len;
        }
        // Caught up: rewind unless a reservation happened meanwhile. Once the cursor reached the
        // end, every later reservation overflowed into the scratch area and can be ignored.
        let (cursor, cap) = (self.cursor, self.capacity);
        if cursor > FIRST_RECORD {
            let caught_up = |v: u32| v == cursor || (cursor == cap && v >= cap);
            let old = region.rmw(base + WRITE_OFFSET, |v| if caught_up(v) { FIRST_RECORD } else { v });
            if caught_up(old) {
                self.cursor = FIRST_RECORD;
            }
        }
    }

    /// Records lost because the buffer was full (reads and clears the counter).
    pub fn lost(&self) -> u32 {
        self.region.region().rmw(self.region.base() + LOST_RECORDS, |_| 0)
    }

    /// Bytes of record space.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Releases the device memory.
    pub fn free(self, mem: &Memory) {
        mem.free(self.region.base());
    }
}

/// A launch's [`PrintHook`]: at each `CSR_PRINT` the buffer's complete records are formatted and
/// written to the sink on the emulator thread that reports it, as is the text of a host call (the
/// legacy printf); both under one lock, so output keeps the buffer's record order. After the
/// launch, [`StreamingPrint::finish`] writes what is left.
pub struct StreamingPrint<S> {
    printer: Mutex<Option<PrintBuffer>>,
    sink: S,
}

impl<S: Fn(&[u8]) + Send + Sync> StreamingPrint<S> {
    /// A hook over `printer` (`None`: the launch has no print buffer; host-call text still goes
    /// to `sink`).
    pub fn new(printer: Option<PrintBuffer>, sink: S) -> StreamingPrint<S> {
        StreamingPrint { printer: Mutex::new(printer), sink }
    }

    /// Writes the records left after the launch and takes the buffer back (to report
    /// [`PrintBuffer::lost`] and free it); `None` without a buffer.
    pub fn finish(&self) -> Option<PrintBuffer> {
        let mut p = self.printer.lock().take()?;
        self.drain_into_sink(&mut p);
        Some(p)
    }

    fn drain_into_sink(&self, p: &mut PrintBuffer) {
        let mut text = Vec::new();
        p.drain(&mut text);
        if !text.is_empty() {
            (self.sink)(&text);
        }
    }
}

impl<S: Fn(&[u8]) + Send + Sync> PrintHook for StreamingPrint<S> {
    fn on_print(&self, work_group: u32, warp: u32, value: u32) {
        log::trace!("CSR_PRINT = {value:#x} (work-group {work_group}, warp {warp})");
        let mut printer = self.printer.lock();
        if let Some(p) = printer.as_mut() {
            self.drain_into_sink(p);
        }
    }
    fn on_text(&self, _work_group: u32, _warp: u32, text: &[u8]) {
        let _order = self.printer.lock();
        (self.sink)(text);
    }
}

/// Where a launch's text goes (standard output, a `cl_arm_printf` callback…).
pub type Sink = Box<dyn Fn(&[u8]) + Send + Sync>;

/// A launch's printf output (see the module documentation).
pub struct Printer {
    hook: Arc<StreamingPrint<Sink>>,
    /// The buffer of a binary without a printf table.
    plain: Option<Buffer>,
    metadata: (u32, u32),
}

/// What [`Printer::finish`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintReport {
    /// Records lost because the buffer was full.
    pub lost: u32,
    /// The buffer's record space in bytes.
    pub capacity: u32,
}

impl Printer {
    /// The print output of a launch of a program with printf table `table`: a print buffer of
    /// `capacity` bytes of records streaming to `sink`; without a table, no buffer (host-call
    /// text still reaches `sink`).
    pub fn new(
        mem: &Memory,
        table: Option<&Arc<PrintfTable>>,
        capacity: u32,
        sink: impl Fn(&[u8]) + Send + Sync + 'static,
    ) -> Result<Printer, MemoryError> {
        Printer::build(mem, table, capacity, Box::new(sink), false)
    }

    /// As [`Printer::new`], with the official driver's allocation for a binary without a printf
    /// table: a plain buffer of `capacity` bytes whatever the kernel (so the buffers allocated
    /// after it have the official stack's addresses; `ventus-run`).
    pub fn official(
        mem: &Memory,
        table: Option<&Arc<PrintfTable>>,
        capacity: u32,
        sink: impl Fn(&[u8]) + Send + Sync + 'static,
    ) -> Result<Printer, MemoryError> {
        Printer::build(mem, table, capacity, Box::new(sink), true)
    }

    fn build(
        mem: &Memory,
        table: Option<&Arc<PrintfTable>>,
        capacity: u32,
        sink: Sink,
        plain_without_table: bool,
    ) -> Result<Printer, MemoryError> {
        let (buffer, plain, metadata) = match table {
            Some(t) => {
                let b = PrintBuffer::new(mem, capacity, Some(t.clone()))?;
                let md = b.metadata();
                (Some(b), None, md)
            }
            None if plain_without_table => {
                let b = mem.alloc(capacity.max(64), Placement::Plain)?;
                let md = (b.base(), b.size());
                (None, Some(b), md)
            }
            None => (None, None, (0, 0)),
        };
        Ok(Printer { hook: Arc::new(StreamingPrint::new(buffer, sink)), plain, metadata })
    }

    /// `(address, size)` for the metadata words `+48`/`+52`.
    pub fn metadata(&self) -> (u32, u32) {
        self.metadata
    }

    /// The launch's print hook.
    pub(in crate::device) fn hook(&self) -> Arc<dyn PrintHook> {
        self.hook.clone()
    }

    /// After the launch: writes what is left, frees the buffer and reports.
    pub fn finish(self, mem: &Memory) -> PrintReport {
        let mut report = PrintReport { lost: 0, capacity: self.metadata.1 };
        if let Some(p) = self.hook.finish() {
            report = PrintReport { lost: p.lost(), capacity: p.capacity() };
            p.free(mem);
        }
        if let Some(b) = self.plain {
            mem.free(b.base());
        }
        report
    }
}
