//! Warp state: pc, SIMT mask and stack, scalar registers, vector registers stored `[reg][lane]`,
//! and the per-warp CSR file.

use super::fault::Trap;
use super::program::{RegBounds, VRegSet};
use crate::isa::regs::csr;

/// Maximum lanes per warp (the simulator's mask logic is only correct up to 32).
pub const MAX_LANES: usize = 32;

/// One SIMT stack entry (ventus-isa.md §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimtEntry {
    pub r_pc: u32,
    pub else_pc: u32,
    pub else_mask: u32,
}

/// `mstatus` field positions.
pub mod mstatus {
    pub const VS_SHIFT: u32 = 9;
    pub const FS_SHIFT: u32 = 13;
    pub const SD: u32 = 1 << 31;
}

/// Per-warp CSRs.
#[derive(Debug, Clone, Default)]
pub struct Csrs {
    pub tid: u32,
    pub numw: u32,
    pub numt: u32,
    pub knl: u32,
    pub wgid: u32,
    pub wid: u32,
    pub lds: u32,
    pub pds: u32,
    pub gid: [u32; 3],
    pub print: u32,
    pub rpc: u32,
    pub mstatus: u32,
    pub mtvec: u32,
    pub mepc: u32,
    pub mcause: u32,
    pub mtval: u32,
    pub mscratch: u32,
    pub fflags: u32,
    pub frm: u32,
    pub vl: u32,
    pub vtype: u32,
    pub vill: bool,
    pub vxsat: u32,
    pub vxrm: u32,
    pub instret: u64,
}

impl Csrs {
    /// The work-group CSRs (`tid` … `gidz`, 0x800–0x80a, read-only); `num` must be one.
    #[inline(always)]
    pub fn workgroup_csr(&self, num: u16) -> u32 {
        match num {
            csr::TID => self.tid,
            csr::NUMW => self.numw,
            csr::NUMT => self.numt,
            csr::KNL => self.knl,
            csr::WGID => self.wgid,
            csr::WID => self.wid,
            csr::LDS => self.lds,
            csr::PDS => self.pds,
            csr::GIDX => self.gid[0],
            csr::GIDY => self.gid[1],
            _ => self.gid[2],
        }
    }
}

/// Outcome of a CSR write that the work-group or host must see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsrEffect {
    None,
    /// `CSR_PRINT` was written with this value.
    Print(u32),
}

/// Scalar registers the boot state sets (t0 = x5, a0 = x10, a1 = x11): always cleared.
const BOOT_XREGS: usize = 12;

/// The vector register file (`w.v[r][lane]`), aligned to a cache line: no register's 256-bit
/// accesses straddle two lines (the heap's 16-byte alignment split half of them, and a split
/// access misses store forwarding).
#[repr(C, align(64))]
pub struct VRegs(pub [[u32; MAX_LANES]; 256]);

impl std::ops::Deref for VRegs {
    type Target = [[u32; MAX_LANES]; 256];
    #[inline(always)]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for VRegs {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// A reset clears two runs of possibly written vector registers with one fill when at most
/// this many registers (zero already) lie between them ([`VRegSet::spans`]): 4 × 128 bytes
/// cost less to clear again than a fill of their own.
const CLEAR_GAP: usize = 4;

/// [`Warp::join_at`] of an empty SIMT stack: odd, so no instruction's pc.
pub const NO_JOIN: u32 = 1;

/// The state of one warp.
pub struct Warp {
    pub pc: u32,
    pub x: [u32; 256],
    pub v: Box<VRegs>,
    /// Active lanes (bit i = lane i).
    pub mask: u32,
    /// `(1 << numt) - 1`.
    pub width_mask: u32,
    /// The SIMT stack ([`Warp::simt_push`], [`Warp::simt_top`], [`Warp::simt_pop`]).
    stack: Vec<SimtEntry>,
    /// The `r_pc` of the SIMT stack's top, or [`NO_JOIN`] (no instruction's pc) while it is empty: a
    /// `join` at another pc does nothing, which compiled code tests inline (kept by the three
    /// methods that change the stack).
    pub join_at: u32,
    /// The pc of the entry that ended a translated function's turn (written by the compiled
    /// code when it returns `STOPPED`, read by the turn loop).
    pub stop_pc: u32,
    /// Pending extended successor (set by a prefix), or `program::NO_EXT`.
    pub ext: u32,
    pub csr: Csrs,
    pub done: bool,
    /// Vector branches of this warp that split its active lanes (statistics).
    pub divergent_branches: u64,
    /// Vector registers in `dirty_vregs` may be non-zero; the rest are zero. A reset zeroes
    /// only those, then assumes the next program writes only its [`Program::reg_bounds`].
    ///
    /// [`Program::reg_bounds`]: super::program::Program::reg_bounds
    dirty_vregs: VRegSet,
    /// Scalar registers `x[0..dirty_xregs]` may be non-zero; the rest are zero.
    dirty_xregs: usize,
    /// The fills a reset makes for `spans_of` (the last `dirty_vregs` seen): its runs merged
    /// across small gaps ([`VRegSet::spans`], [`CLEAR_GAP`]), kept from reset to reset (the
    /// set is the same for every work-group of a launch).
    clear_spans: Vec<(usize, usize)>,
    spans_of: VRegSet,
    /// No instruction of the program reads the accrued FP flags, so untraced vector FP may
    /// skip computing them (set by the work-group runner from [`Program::reads_fflags`]).
    ///
    /// [`Program::reads_fflags`]: super::program::Program::reads_fflags
    pub fflags_unread: bool,
    /// A native math call some of whose lanes declined ([`super::hostcall`]) runs the
    /// function's code for those lanes only: the active lanes at the call, restored by the `jalr`
    /// to [`Warp::resume_ra`] (the function's return); 0 when none is pending.
    pub resume_mask: u32,
    /// The return address of that call.
    pub resume_ra: u32,
}

impl Warp {
    /// A warp in the state the boot ROM leaves it in when it jumps to `pc`
    /// (ventus-isa.md §10.1): registers zero but t0 = pc, a0 = warp index, a1 = 0x1020; all lanes
    /// active; SIMT stack empty; vtype.vill set; FS off, VS initial.
    /// `bounds`: the program writes no register at or above them.
    pub fn new(pc: u32, numt: u32, csrs: Csrs, bounds: RegBounds) -> Warp {
        let mut w = Warp {
            pc,
            x: [0; 256],
            v: Box::new(VRegs([[0; MAX_LANES]; 256])),
            mask: 0,
            width_mask: 0,
            stack: Vec::new(),
            join_at: NO_JOIN,
            stop_pc: 0,
            ext: super::program::NO_EXT,
            csr: Csrs::default(),
            done: false,
            divergent_branches: 0,
            dirty_vregs: VRegSet::EMPTY,
            dirty_xregs: 256,
            clear_spans: Vec::new(),
            spans_of: VRegSet::EMPTY,
            fflags_unread: false,
            resume_mask: 0,
            resume_ra: 0,
        };
        w.reset(pc, numt, csrs, bounds);
        w
    }

    /// Puts the warp back into its start state (reusing its allocations) for a program that
    /// writes no register at or above `bounds`. Every register reads zero afterwards (but the
    /// boot values of t0, a0, a1); only those the previous program could have written are
    /// cleared (a work-group of a small kernel does not clear 33 KiB per warp).
    pub fn reset(&mut self, pc: u32, numt: u32, csrs: Csrs, bounds: RegBounds) {
        let width_mask = if numt >= 32 { u32::MAX } else { (1u32 << numt) - 1 };
        self.pc = pc;
        self.x[..self.dirty_xregs].fill(0);
        self.dirty_xregs = bounds.x.clamp(BOOT_XREGS, self.x.len());
        self.x[5] = pc;
        self.x[10] = csrs.wid;
        self.x[11] = 0x1020;
        if self.spans_of != self.dirty_vregs {
            self.spans_of = self.dirty_vregs;
            self.clear_spans.clear();
            self.clear_spans.extend(self.dirty_vregs.spans(CLEAR_GAP));
        }
        for &(lo, hi) in &self.clear_spans {
            self.v[lo..hi].as_flattened_mut().fill(0);
        }
        self.dirty_vregs = bounds.v;
        self.mask = width_mask;
        self.width_mask = width_mask;
        self.stack.clear();
        self.join_at = NO_JOIN;
        self.ext = super::program::NO_EXT;
        self.csr = Csrs { mstatus: 1 << mstatus::VS_SHIFT, vill: true, ..csrs };
        self.done = false;
        self.divergent_branches = 0;
        self.resume_mask = 0;
    }

    /// Pushes `e` on the SIMT stack.
    #[inline(always)]
    pub fn simt_push(&mut self, e: SimtEntry) {
        self.stack.push(e);
        self.join_at = e.r_pc;
    }

    /// The SIMT stack's top entry.
    #[inline(always)]
    pub fn simt_top(&self) -> Option<SimtEntry> {
        self.stack.last().copied()
    }

    /// Pops the SIMT stack's top entry.
    #[inline(always)]
    pub fn simt_pop(&mut self) {
        self.stack.pop();
        self.join_at = self.stack.last().map_or(NO_JOIN, |e| e.r_pc);
    }

    /// Debug builds: panics when a register at or above the bounds of the last reset is not zero
    /// — the code wrote one the reachability walk ([`super::reach`]) missed.
    pub fn check_bounds(&self) {
        let x = self.x[self.dirty_xregs..].iter().position(|&r| r != 0);
        let v = (0..self.v.len()).find(|&r| !self.dirty_vregs.contains(r) && self.v[r].iter().any(|&l| l != 0));
        assert!(
            x.is_none() && v.is_none(),
            "register bounds missed a write: x{:?} v{:?} (bounds x{} v{:?})",
            x.map(|i| i + self.dirty_xregs),
            v,
            self.dirty_xregs,
            self.dirty_vregs
        );
    }

    /// True when mstatus.FS is Off (FP instructions are illegal).
    #[inline(always)]
    pub fn fs_off(&self) -> bool {
        (self.csr.mstatus >> mstatus::FS_SHIFT) & 3 == 0
    }

    /// Lanes that vector instructions operate on: active and below `vl`.
    #[inline(always)]
    pub fn vmask(&self) -> u32 {
        let vlm = if self.csr.vl >= 32 { u32::MAX } else { (1u32 << self.csr.vl) - 1 };
        self.mask & vlm
    }

    /// Reads a CSR (`None` = no such CSR: illegal instruction).
    #[inline]
    pub fn read_csr(&self, num: u16) -> Option<u32> {
        let c = &self.csr;
        Some(match num {
            csr::TID..=csr::GIDZ => c.workgroup_csr(num),
            csr::PRINT => c.print,
            csr::RPC => c.rpc,
            csr::FFLAGS => c.fflags,
            csr::FRM => c.frm,
            csr::FCSR => (c.frm << 5) | c.fflags,
            csr::VSTART => 0,
            csr::VXSAT => c.vxsat,
            csr::VXRM => c.vxrm,
            csr::VCSR => (c.vxrm << 1) | c.vxsat,
            csr::MSTATUS => {
                let fs = (c.mstatus >> mstatus::FS_SHIFT) & 3;
                let vs = (c.mstatus >> mstatus::VS_SHIFT) & 3;
                if fs == 3 || vs == 3 {
                    c.mstatus | mstatus::SD
                } else {
                    c.mstatus
                }
            }
            csr::MISA => 0x4020_112d, // RV32 + A C D F I M V (as spike reports rv32gcv)
            csr::MTVEC => c.mtvec,
            csr::MEPC => c.mepc,
            csr::MCAUSE => c.mcause,
            csr::MTVAL => c.mtval,
            csr::MSCRATCH => c.mscratch,
            csr::MIE | csr::MIP | csr::MVENDORID | csr::MARCHID | csr::MIMPID => 0,
            csr::MHARTID => c.wid,
            csr::CYCLE | csr::INSTRET | csr::MCYCLE | csr::MINSTRET | csr::TIME => c.instret as u32,
            csr::CYCLEH | csr::INSTRETH => (c.instret >> 32) as u32,
            csr::VL => c.vl,
            csr::VTYPE => {
                if c.vill {
                    0x8000_0000
                } else {
                    c.vtype
                }
            }
            csr::VLENB => 4 * c.numt,
            _ => return None,
        })
    }

    /// Writes a CSR. Read-only CSRs and unknown numbers trap.
    pub fn write_csr(&mut self, num: u16, value: u32, word: u32) -> Result<CsrEffect, Trap> {
        let c = &mut self.csr;
        match num {
            csr::TID => c.tid = value,
            csr::NUMW => c.numw = value,
            csr::NUMT => c.numt = value,
            csr::KNL => c.knl = value,
            csr::WGID => c.wgid = value,
            csr::WID => c.wid = value,
            csr::LDS => c.lds = value,
            csr::PDS => c.pds = value,
            csr::GIDX => c.gid[0] = value,
            csr::GIDY => c.gid[1] = value,
            csr::GIDZ => c.gid[2] = value,
            csr::PRINT => {
                c.print = value;
                return Ok(CsrEffect::Print(value));
            }
            csr::RPC => c.rpc = value,
            csr::FFLAGS => c.fflags = value & 0x1f,
            csr::FRM => c.frm = value & 7,
            csr::FCSR => {
                c.fflags = value & 0x1f;
                c.frm = (value >> 5) & 7;
            }
            csr::VSTART => {}
            csr::VXSAT => c.vxsat = value & 1,
            csr::VXRM => c.vxrm = value & 3,
            csr::VCSR => {
                c.vxsat = value & 1;
                c.vxrm = (value >> 1) & 3;
            }
            csr::MSTATUS => {
                // Writable: MIE/MPIE/MPP, VS, FS. A newly enabled FS is dirtied by the very register
                // write that follows (spike mirrors every x write into the FP file).
                let mut m = value & 0x0000_7f88;
                if (m >> mstatus::FS_SHIFT) & 3 != 0 {
                    m |= 3 << mstatus::FS_SHIFT;
                }
                c.mstatus = m;
            }
            csr::MTVEC => c.mtvec = value & !3,
            csr::MEPC => c.mepc = value & !1,
            csr::MCAUSE => c.mcause = value,
            csr::MTVAL => c.mtval = value,
            csr::MSCRATCH => c.mscratch = value,
            csr::MIE | csr::MIP | csr::MCYCLE | csr::MINSTRET => {}
            _ => return Err(Trap::illegal(word)),
        }
        Ok(CsrEffect::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reset clears every register the previous program could write (its bound), so registers
    /// read zero for the next program, whatever bound that one has.
    #[test]
    fn reset_clears_what_the_previous_program_could_write() {
        let b = |x: usize, v: usize| RegBounds { x, v: VRegSet::range(0, v) };
        let mut w = Warp::new(0x8000_0000, 32, Csrs::default(), RegBounds::ALL);
        w.v[200][3] = 7;
        w.v[5][0] = 1;
        w.x[200] = 3;
        w.x[7] = 4;
        w.reset(0x8000_0000, 32, Csrs::default(), b(20, 32));
        assert!(w.v.iter().all(|r| r.iter().all(|&x| x == 0)), "all registers zero after the first reset");
        assert!(w.x.iter().enumerate().all(|(i, &x)| x == 0 || [5, 10, 11].contains(&i)));
        w.v[31][31] = 9;
        w.x[19] = 9;
        w.reset(0x8000_0000, 32, Csrs::default(), b(0, 64));
        assert_eq!((w.v[31][31], w.x[19]), (0, 0));
        w.v[63][1] = 5;
        w.x[9] = 5;
        w.reset(0x8000_0000, 32, Csrs::default(), b(0, 0));
        assert_eq!(w.v[63][1], 0, "a register below the previous bound is cleared");
        assert_eq!(w.x[9], 0, "the boot registers' range is always cleared");
        // Sets with gaps: only the members are assumed written, all of them are cleared.
        let mut split = VRegSet::range(4, 8);
        split.insert_range(224, 237);
        w.reset(0x8000_0000, 32, Csrs::default(), RegBounds { x: 0, v: split });
        w.v[5][2] = 1;
        w.v[230][31] = 2;
        w.check_bounds();
        w.reset(0x8000_0000, 32, Csrs::default(), b(0, 0));
        assert_eq!((w.v[5][2], w.v[230][31]), (0, 0));
        // The same set twice in a row (the second reset reuses the fills the first computed),
        // then another: each clears what the set before it allowed.
        for _ in 0..2 {
            w.reset(0x8000_0000, 32, Csrs::default(), RegBounds { x: 0, v: split });
            w.v[7][0] = 3;
            w.v[236][1] = 4;
        }
        w.reset(0x8000_0000, 32, Csrs::default(), b(0, 2));
        assert_eq!((w.v[7][0], w.v[236][1]), (0, 0));
        assert_eq!((w.x[5], w.x[11], w.mask), (0x8000_0000, 0x1020, u32::MAX));
    }
}
