//! Tracing hooks. The fast loop is instantiated with [`NoTrace`] (every hook compiles away); the
//! tracing loop uses a recorder that builds spike-style commit records.

/// Receives the architectural effects of each executed instruction.
pub trait Tracer {
    /// False for the no-op tracer: callers guard hook calls with it so they vanish.
    const ENABLED: bool;
    /// An instruction of `warp` at `pc` starts.
    fn begin(&mut self, _warp: u32, _pc: u32, _word: u32) {}
    fn x_write(&mut self, _reg: u8, _value: u32) {}
    /// A vector register after the write: lanes 0..numt.
    fn v_write(&mut self, _reg: u8, _lanes: &[u32]) {}
    fn csr_write(&mut self, _csr: u16, _value: u32) {}
    fn load(&mut self, _addr: u32) {}
    fn store(&mut self, _addr: u32, _value: u32, _bytes: u8) {}
    /// The instruction committed (not called when it trapped).
    fn end(&mut self) {}
}

/// The no-op tracer of the fast path.
pub struct NoTrace;
impl Tracer for NoTrace {
    const ENABLED: bool = false;
}

use super::commit_log::{CommitRecord, CommitWrite};

/// Records spike-style commit records (the `--trace` loop).
#[derive(Default)]
pub struct Recorder {
    pub records: Vec<CommitRecord>,
    cur: Option<CommitRecord>,
}

impl Recorder {
    fn push(&mut self, w: CommitWrite) {
        if let Some(c) = &mut self.cur {
            c.writes.push(w);
        }
    }
}

impl Tracer for Recorder {
    const ENABLED: bool = true;
    fn begin(&mut self, warp: u32, pc: u32, word: u32) {
        self.cur = Some(CommitRecord { warp, pc, insn: word, writes: Vec::new(), repeat: 0 });
    }
    fn x_write(&mut self, reg: u8, value: u32) {
        self.push(CommitWrite::X { reg, value });
    }
    fn v_write(&mut self, reg: u8, lanes: &[u32]) {
        if let Some(c) = &mut self.cur {
            if !c.writes.contains(&CommitWrite::VecMarker) {
                c.writes.push(CommitWrite::VecMarker);
            }
        }
        self.push(CommitWrite::V { reg, mask: None, lanes: lanes.to_vec() });
    }
    fn csr_write(&mut self, csr: u16, value: u32) {
        self.push(CommitWrite::Csr { csr, value });
    }
    fn load(&mut self, addr: u32) {
        self.push(CommitWrite::Load { addr });
    }
    fn store(&mut self, addr: u32, value: u32, bytes: u8) {
        self.push(CommitWrite::Store { addr, value, bytes });
    }
    fn end(&mut self) {
        if let Some(c) = self.cur.take() {
            self.records.push(c);
        }
    }
}
