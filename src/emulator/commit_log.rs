//! Spike commit logs (`-l --log-commits`) of the official Ventus simulator: record types, a
//! spike-compatible writer, a parser and store replay (driver-abi §8.3).
//!
//! # Format (verified on every log in `shared/testdata/ventus-official`)
//! Each executed instruction of warp `N` (= spike core `N`) produces two lines:
//! * `core   N: 0xPC (0xINSN) <disasm>` — printed by spike's `disasm()` only when the pc or the
//!   instruction bits differ from the previous instruction *of that warp*;
//! * `core   N: 3 0xPC (0xINSN)<writes>` — the commit line, printed on *every* execution
//!   (`3` = machine mode). Writes, in spike's order (its register-write map, then loads, then
//!   stores): ` xR 0xVAL` (`R` left-aligned in 2 columns), ` cNNN_name 0xVAL` (CSR write,
//!   decimal number), ` e32 m1 lK` (vector marker, printed once before the first vector-register
//!   write or on its own for vector instructions that write no register, e.g. `vbeq` or
//!   `vsw12.v`, but not by every vector instruction — private `vsw.v` stores lack it — so it is
//!   kept as an explicit [`CommitWrite::VecMarker`]; `K` = `vl` = numt), ` vR  0x<lanes>` (all lanes of the register concatenated,
//!   highest lane first — older simulator) or ` vR  <mask> 0x<lane n-1> <lane n-2> … <lane 0> `
//!   (8-digit active mask, then every lane as 8 digits each followed by a space — newer
//!   simulator), ` mem 0xADDR` (load) and ` mem 0xADDR 0xVAL` (store, one per active lane for
//!   vector stores).
//!
//! Store values are printed with the access width: 8 digits = word, 4 = halfword, and 1 or 2 =
//! byte (spike prints bytes with `%01x`, so a byte store of 5 reads `0x5`); only word stores
//! occur in the official logs.
//!
//! `core   N: Executed K times` means: the instruction of warp `N`'s previous disassembly line
//! was executed `K` times in a row (same pc and bits), so `K` commit lines belong to it but only
//! one disassembly line was printed; spike prints the count lazily, right before that warp's
//! next disassembly line. In the logs this happens for `barrier` spinning until all warps
//! arrive (commit lines without writes) and for `join` executed again after popping the SIMT
//! stack. The parser folds identical consecutive commit lines of one such run into one
//! [`CommitRecord`] with `repeat = K - 1` (a commit line differing from the previous one of the
//! run would start a new record; this never happens in the official logs) and checks `K`
//! against the number of commit lines. A run left open at the end of a work-group or of the log
//! (no `Executed` line) is accepted.
//!
//! Other lines: `core   N: exception <cause>, epc 0x…` optionally followed by
//! `core   N:           tval 0x…` (a [`Trap`]); `core   N: >>>>  <symbol>` (ignored); lines not
//! starting with `core` are debug output of the SIMT-stack code (`current mask:`, `current
//! npc:`, `stack size:`, `[r_pc] …`) and are ignored, as is any text from `current mask:` on
//! inside a commit line (the newer simulator prints that dump into the commit line).
//!
//! A new work-group starts where warp 0 fetches the boot-ROM reset vector `0x1000` again after
//! records were seen (spike runs work-groups one after another, each from reset).

use crate::abi::PROGRAM_BASE;
use std::collections::HashMap;
use std::fmt::{self, Write as _};

/// Boot-ROM reset vector: every warp of every work-group starts here.
pub const BOOT_ROM_PC: u32 = 0x1000;
/// CSR number of `vstart` (written by every vector instruction).
pub const CSR_VSTART: u16 = 0x008;

/// Marker that starts the simulator's SIMT-stack debug text inside a commit line.
const DEBUG_MARKER: &str = "current mask:";

/// One architectural effect of a committed instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitWrite {
    /// Scalar register write.
    X { reg: u8, value: u32 },
    /// CSR write (the name in the log is derived from the number, see [`csr_name`]).
    Csr { csr: u16, value: u32 },
    /// The ` e32 m1 lK` marker spike prints for vector instructions (`K` = numt).
    VecMarker,
    /// Vector register write: every lane of the register, lane 0 first. `mask` is the active-lane
    /// mask printed by the newer simulator (`None` = older format without mask).
    V { reg: u8, mask: Option<u32>, lanes: Vec<u32> },
    /// Memory read (address only).
    Load { addr: u32 },
    /// Memory write of `bytes` (1, 2 or 4) bytes.
    Store { addr: u32, value: u32, bytes: u8 },
}

/// One committed instruction of one warp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitRecord {
    /// Warp id within the work-group (spike core number).
    pub warp: u32,
    /// Instruction address.
    pub pc: u32,
    /// Instruction bits.
    pub insn: u32,
    /// Effects in log order.
    pub writes: Vec<CommitWrite>,
    /// Further identical executions folded in (from `Executed K times`: `K - 1`); 0 normally.
    pub repeat: u32,
}

/// A trap reported by the simulator (it ends the work-group: `mtvec = spike_end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trap {
    /// Warp that trapped.
    pub warp: u32,
    /// Spike's cause name, e.g. `trap_store_access_fault`.
    pub cause: String,
    /// Faulting pc.
    pub epc: u32,
    /// Trap value (faulting address), when the simulator printed one.
    pub tval: Option<u32>,
}

/// Everything one work-group logged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkGroupLog {
    /// Records of all warps, in log order.
    pub records: Vec<CommitRecord>,
    /// Traps in log order.
    pub traps: Vec<Trap>,
}

/// A parsed commit log.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommitLog {
    /// Work-groups in execution order.
    pub groups: Vec<WorkGroupLog>,
    /// The `K` of the ` e32 m1 lK` markers (vl = numt); `None` if the log has no vector marker.
    pub vl: Option<u32>,
}

/// What is wrong with a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogErrorKind {
    /// The line does not have the expected shape; the text says which part.
    Syntax(&'static str),
    /// A write token that is not one of the known forms.
    UnknownWrite,
    /// Floating-point register writes are not supported (Ventus uses `zfinx`).
    FloatWrite,
    /// A vector marker other than `e32 m1`.
    UnsupportedVtype,
    /// A store value whose digit count is not 1, 2, 4 or 8.
    BadStoreWidth,
    /// Privilege other than 3 (machine mode) in a commit line.
    UnsupportedPrivilege,
    /// A commit line whose pc/bits do not match the warp's last disassembly line.
    CommitWithoutInstruction,
    /// `Executed K times` disagrees with the number of commit lines counted.
    ExecutedMismatch { reported: u32, counted: u32 },
    /// Two vector markers with different `lK`.
    InconsistentVl { first: u32, found: u32 },
    /// A `tval` line not preceded by an `exception` line of that warp.
    TvalWithoutTrap,
}

/// A parse error with its 1-based line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub kind: LogErrorKind,
}

impl fmt::Display for LogErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(what) => write!(f, "malformed {what}"),
            Self::UnknownWrite => write!(f, "unknown write token"),
            Self::FloatWrite => write!(f, "floating-point register writes are not supported"),
            Self::UnsupportedVtype => write!(f, "vector marker other than e32 m1"),
            Self::BadStoreWidth => write!(f, "store value is not 1, 2, 4 or 8 hex digits"),
            Self::UnsupportedPrivilege => write!(f, "privilege other than machine mode"),
            Self::CommitWithoutInstruction => {
                write!(f, "commit line does not match the warp's last instruction")
            }
            Self::ExecutedMismatch { reported, counted } => {
                write!(f, "log says executed {reported} times, {counted} commit lines seen")
            }
            Self::InconsistentVl { first, found } => {
                write!(f, "vector length l{found} differs from earlier l{first}")
            }
            Self::TvalWithoutTrap => write!(f, "tval line without a preceding exception"),
        }
    }
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "commit log line {}: {}", self.line, self.kind)
    }
}

impl std::error::Error for LogError {}

impl CommitLog {
    /// Parses a whole log (see the module documentation for the accepted format).
    pub fn parse(text: &str) -> Result<CommitLog, LogError> {
        let mut parser = Parser::default();
        for (index, line) in text.lines().enumerate() {
            parser.line(line).map_err(|kind| LogError { line: index + 1, kind })?;
        }
        Ok(parser.finish())
    }

    /// Every store `(addr, value, bytes)` in log order; a record folded with `repeat` yields its
    /// stores `repeat + 1` times, as they were executed.
    pub fn stores(&self) -> impl Iterator<Item = (u32, u32, u8)> + '_ {
        self.groups
            .iter()
            .flat_map(|g| g.records.iter())
            .flat_map(|r| std::iter::repeat_n(r, r.repeat as usize + 1))
            .flat_map(|r| r.writes.iter())
            .filter_map(|w| match *w {
                CommitWrite::Store { addr, value, bytes } => Some((addr, value, bytes)),
                _ => None,
            })
    }
}

impl WorkGroupLog {
    /// The records of one warp, in order.
    pub fn warp_records(&self, warp: u32) -> Vec<&CommitRecord> {
        self.records.iter().filter(|r| r.warp == warp).collect()
    }

    /// The warp ids that appear in this work-group, ascending.
    pub fn warps(&self) -> Vec<u32> {
        let mut warps: Vec<u32> = self.records.iter().map(|r| r.warp).collect();
        warps.sort_unstable();
        warps.dedup();
        warps
    }
}

/// Normalised per-warp view for diffing two traces. For each record, in order:
/// 1. records with `pc < 0x80000000` (boot ROM) are dropped;
/// 2. from its writes, `vstart` CSR writes, vector markers and loads are removed, vector masks
///    are cleared (`mask = None`), and the remaining register writes are put in a canonical
///    order — scalar registers, then CSRs, then vector registers, each by number — followed by
///    the stores in their original order;
/// 3. `repeat` is set to 0;
/// 4. a record equal (warp, pc, insn, writes) to the previously kept one and left with no writes
///    is dropped, so a spinning `barrier` or a repeated `join` becomes one record.
pub fn normalize(records: &[&CommitRecord]) -> Vec<CommitRecord> {
    let mut out: Vec<CommitRecord> = Vec::new();
    for rec in records.iter().filter(|r| r.pc >= PROGRAM_BASE) {
        let norm = CommitRecord {
            warp: rec.warp,
            pc: rec.pc,
            insn: rec.insn,
            writes: canonical_writes(&rec.writes),
            repeat: 0,
        };
        if norm.writes.is_empty() && out.last() == Some(&norm) {
            continue;
        }
        out.push(norm);
    }
    out
}

/// Step 2 of [`normalize`].
fn canonical_writes(writes: &[CommitWrite]) -> Vec<CommitWrite> {
    let mut regs = Vec::new();
    let mut stores = Vec::new();
    for w in writes {
        match w {
            CommitWrite::Csr { csr, .. } if *csr == CSR_VSTART => {}
            CommitWrite::VecMarker | CommitWrite::Load { .. } => {}
            CommitWrite::Store { .. } => stores.push(w.clone()),
            CommitWrite::V { reg, lanes, .. } => {
                regs.push(CommitWrite::V { reg: *reg, mask: None, lanes: lanes.clone() })
            }
            _ => regs.push(w.clone()),
        }
    }
    regs.sort_by_key(register_order);
    regs.extend(stores);
    regs
}

/// Sort key of register writes in [`canonical_writes`].
fn register_order(w: &CommitWrite) -> (u8, u16) {
    match w {
        CommitWrite::X { reg, .. } => (0, u16::from(*reg)),
        CommitWrite::Csr { csr, .. } => (1, *csr),
        CommitWrite::V { reg, .. } => (2, u16::from(*reg)),
        _ => (3, 0),
    }
}

/// Spike's name of a CSR as printed in `cNNN_name` (standard names plus the Ventus CSRs
/// `0x800..=0x80c`; only `rpc` is confirmed by the logs). Unknown numbers give `unknown`.
pub fn csr_name(csr: u16) -> &'static str {
    match csr {
        0x001 => "fflags",
        0x002 => "frm",
        0x003 => "fcsr",
        0x008 => "vstart",
        0x009 => "vxsat",
        0x00a => "vxrm",
        0x00f => "vcsr",
        0x300 => "mstatus",
        0x301 => "misa",
        0x304 => "mie",
        0x305 => "mtvec",
        0x340 => "mscratch",
        0x341 => "mepc",
        0x342 => "mcause",
        0x343 => "mtval",
        0x344 => "mip",
        0x800..=0x80c => ventus_csr_name(csr),
        0xc20 => "vl",
        0xc21 => "vtype",
        0xc22 => "vlenb",
        0xf14 => "mhartid",
        _ => "unknown",
    }
}

/// Names of the Ventus CSRs `0x800..=0x80c` (spike `encoding.h` order).
fn ventus_csr_name(csr: u16) -> &'static str {
    const NAMES: [&str; 13] =
        ["tid", "numw", "numt", "knl", "wgid", "wid", "lds", "pds", "gidx", "gidy", "gidz", "print", "rpc"];
    NAMES.get(usize::from(csr.wrapping_sub(0x800))).copied().unwrap_or("unknown")
}

/// Appends spike's lines for `rec` to `out`: the disassembly line (`disasm` is its text), the
/// commit line, and — when `repeat > 0` — `repeat` more copies of the commit line followed by
/// `core   N: Executed K times` (spike prints that count later, just before the warp's next
/// disassembly line; per warp the sequence is the same and [`CommitLog::parse`] accepts both).
/// `numt` is printed as the `K` of ` e32 m1 lK`.
pub fn write_record(out: &mut String, rec: &CommitRecord, disasm: &str, numt: u32) {
    let _ = writeln!(out, "core{:4}: 0x{:08x} (0x{:08x}) {disasm}", rec.warp, rec.pc, rec.insn);
    for _ in 0..=rec.repeat {
        write_commit_line(out, rec, numt);
    }
    if rec.repeat > 0 {
        let _ = writeln!(out, "core{:4}: Executed {} times", rec.warp, u64::from(rec.repeat) + 1);
    }
}

/// Appends the commit line of `rec` (with its newline) exactly as spike prints it.
pub fn write_commit_line(out: &mut String, rec: &CommitRecord, numt: u32) {
    let width = if rec.insn & 3 == 3 { 8 } else { 4 };
    let _ = write!(out, "core{:4}: 3 0x{:08x} (0x{:0width$x})", rec.warp, rec.pc, rec.insn);
    for w in &rec.writes {
        write_write(out, w, numt);
    }
    out.push('\n');
}

/// Appends one write in spike's format (with its leading space).
fn write_write(out: &mut String, w: &CommitWrite, numt: u32) {
    let _ = match w {
        CommitWrite::X { reg, value } => write!(out, " x{reg:<2} 0x{value:08x}"),
        CommitWrite::Csr { csr, value } => {
            write!(out, " c{csr}_{} 0x{value:08x}", csr_name(*csr))
        }
        CommitWrite::VecMarker => write!(out, " e32 m1 l{numt}"),
        CommitWrite::V { reg, mask, lanes } => write_vector(out, *reg, *mask, lanes),
        CommitWrite::Load { addr } => write!(out, " mem 0x{addr:08x}"),
        CommitWrite::Store { addr, value, bytes } => {
            let digits = if *bytes == 1 { 1 } else { 2 * usize::from(*bytes) };
            write!(out, " mem 0x{addr:08x} 0x{value:0digits$x}")
        }
    };
}

/// Appends a vector register write in the packed (`mask == None`) or masked format.
fn write_vector(out: &mut String, reg: u8, mask: Option<u32>, lanes: &[u32]) -> fmt::Result {
    write!(out, " v{reg:<2} ")?;
    match mask {
        None => {
            out.push_str("0x");
            for lane in lanes.iter().rev() {
                write!(out, "{lane:08x}")?;
            }
        }
        Some(mask) => {
            write!(out, "{mask:08x} 0x")?;
            for lane in lanes.iter().rev() {
                write!(out, "{lane:08x} ")?;
            }
        }
    }
    Ok(())
}

/// Per-warp parser state.
#[derive(Debug, Default)]
struct WarpState {
    /// `(pc, insn)` of the last disassembly line whose run is still open.
    current: Option<(u32, u32)>,
    /// Commit lines seen in the current run.
    count: u32,
    /// Index (in the group's records) of the last record of the current run.
    last: Option<usize>,
    /// Index of the trap waiting for its `tval` line.
    trap: Option<usize>,
}

/// Incremental log parser.
#[derive(Debug, Default)]
struct Parser {
    log: CommitLog,
    group: WorkGroupLog,
    warps: HashMap<u32, WarpState>,
}

/// The parts of a commit line.
#[derive(Debug)]
struct CommitLine {
    warp: u32,
    pc: u32,
    insn: u32,
    writes: Vec<CommitWrite>,
    vl: Option<u32>,
}

type Res<T> = Result<T, LogErrorKind>;

impl Parser {
    /// Handles one line.
    fn line(&mut self, line: &str) -> Res<()> {
        let Some(rest) = line.strip_prefix("core") else {
            return Ok(()); // simulator debug output
        };
        let (warp, body) = split_warp(rest)?;
        if let Some(body) = body.strip_prefix("0x") {
            self.disasm(warp, body)
        } else if let Some(k) = body.strip_prefix("Executed ") {
            self.executed(warp, k)
        } else if let Some(t) = body.strip_prefix("exception ") {
            self.exception(warp, t)
        } else if let Some(v) = body.trim_start().strip_prefix("tval ") {
            self.tval(warp, v)
        } else if body.starts_with(">>>>") {
            Ok(())
        } else {
            self.commit(parse_commit_body(warp, body)?)
        }
    }

    /// A disassembly line: opens a new run for the warp (and maybe a new work-group).
    fn disasm(&mut self, warp: u32, body: &str) -> Res<()> {
        let (pc, insn) = parse_pc_insn(body).ok_or(LogErrorKind::Syntax("instruction line"))?;
        if warp == 0 && pc == BOOT_ROM_PC && !self.group.records.is_empty() {
            self.log.groups.push(std::mem::take(&mut self.group));
            self.warps.clear();
        }
        let state = self.warps.entry(warp).or_default();
        *state = WarpState { current: Some((pc, insn)), ..WarpState::default() };
        Ok(())
    }

    /// A commit line: folds into the run's last record or starts a new record.
    fn commit(&mut self, c: CommitLine) -> Res<()> {
        self.check_vl(c.vl)?;
        let state = self.warps.entry(c.warp).or_default();
        if state.current != Some((c.pc, c.insn)) {
            return Err(LogErrorKind::CommitWithoutInstruction);
        }
        state.count = state.count.saturating_add(1);
        if let Some(rec) = state.last.and_then(|i| self.group.records.get_mut(i)) {
            if rec.writes == c.writes {
                rec.repeat = rec.repeat.saturating_add(1);
                return Ok(());
            }
        }
        state.last = Some(self.group.records.len());
        self.group.records.push(CommitRecord { warp: c.warp, pc: c.pc, insn: c.insn, writes: c.writes, repeat: 0 });
        Ok(())
    }

    /// Records the first `lK` seen and rejects different ones later.
    fn check_vl(&mut self, vl: Option<u32>) -> Res<()> {
        match (self.log.vl, vl) {
            (Some(first), Some(found)) if first != found => Err(LogErrorKind::InconsistentVl { first, found }),
            (None, Some(found)) => {
                self.log.vl = Some(found);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `Executed K times`: checks the count and closes the run.
    fn executed(&mut self, warp: u32, text: &str) -> Res<()> {
        let reported = text
            .strip_suffix(" times")
            .and_then(|k| k.parse::<u32>().ok())
            .ok_or(LogErrorKind::Syntax("Executed line"))?;
        let state = self.warps.entry(warp).or_default();
        if state.current.is_none() || state.count != reported {
            return Err(LogErrorKind::ExecutedMismatch { reported, counted: state.count });
        }
        *state = WarpState::default();
        Ok(())
    }

    /// `exception <cause>, epc 0x…`.
    fn exception(&mut self, warp: u32, text: &str) -> Res<()> {
        let bad = LogErrorKind::Syntax("exception line");
        let (cause, epc) = text.split_once(", epc ").ok_or(bad)?;
        let epc = parse_hex32(epc).ok_or(bad)?;
        let state = self.warps.entry(warp).or_default();
        *state = WarpState { trap: Some(self.group.traps.len()), ..WarpState::default() };
        self.group.traps.push(Trap { warp, cause: cause.to_string(), epc, tval: None });
        Ok(())
    }

    /// `tval 0x…` completing the warp's last trap.
    fn tval(&mut self, warp: u32, text: &str) -> Res<()> {
        let value = parse_hex32(text.trim()).ok_or(LogErrorKind::Syntax("tval line"))?;
        let index = self.warps.get_mut(&warp).and_then(|s| s.trap.take()).ok_or(LogErrorKind::TvalWithoutTrap)?;
        if let Some(trap) = self.group.traps.get_mut(index) {
            trap.tval = Some(value);
        }
        Ok(())
    }

    /// Ends parsing: the open work-group is kept if it logged anything.
    fn finish(mut self) -> CommitLog {
        if !self.group.records.is_empty() || !self.group.traps.is_empty() {
            self.log.groups.push(self.group);
        }
        self.log
    }
}

/// Splits `   N: rest` (after `core`) into `N` and `rest`.
fn split_warp(rest: &str) -> Res<(u32, &str)> {
    let bad = LogErrorKind::Syntax("core prefix");
    let (num, body) = rest.split_once(':').ok_or(bad)?;
    let warp = num.trim_start().parse::<u32>().map_err(|_| bad)?;
    Ok((warp, body.strip_prefix(' ').ok_or(bad)?))
}

/// Parses `PC (0xINSN)…` (after the `0x` of the pc) into `(pc, insn)`.
fn parse_pc_insn(body: &str) -> Option<(u32, u32)> {
    let (pc, rest) = body.split_once(" (0x")?;
    let (insn, _) = rest.split_once(')')?;
    Some((parse_hex_digits(pc)?, parse_hex_digits(insn)?))
}

/// Parses the body of a commit line (`3 0xPC (0xINSN) writes…`).
fn parse_commit_body(warp: u32, body: &str) -> Res<CommitLine> {
    let body = body.find(DEBUG_MARKER).map_or(body, |i| &body[..i]);
    let (privilege, rest) = body.split_once(' ').ok_or(LogErrorKind::Syntax("commit line"))?;
    if privilege != "3" {
        let is_digit = privilege.len() == 1 && privilege.as_bytes()[0].is_ascii_digit();
        return Err(if is_digit { LogErrorKind::UnsupportedPrivilege } else { LogErrorKind::Syntax("line") });
    }
    let rest = rest.strip_prefix("0x").ok_or(LogErrorKind::Syntax("commit line"))?;
    let (pc, insn) = parse_pc_insn(rest).ok_or(LogErrorKind::Syntax("commit line"))?;
    let writes_text = rest.split_once(')').map_or("", |(_, w)| w);
    let (writes, vl) = parse_writes(writes_text)?;
    Ok(CommitLine { warp, pc, insn, writes, vl })
}

/// Parses the write tokens of a commit line; also returns the `K` of a vector marker.
fn parse_writes(text: &str) -> Res<(Vec<CommitWrite>, Option<u32>)> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut writes = Vec::new();
    let mut vl = None;
    let mut i = 0;
    while let Some(&tok) = tokens.get(i) {
        let (write, used) = parse_write(tok, &tokens[i + 1..], &mut vl)?;
        writes.push(write);
        i += 1 + used;
    }
    Ok((writes, vl))
}

/// Parses the write starting with `tok`; returns it and how many of `rest` it consumed.
fn parse_write(tok: &str, rest: &[&str], vl: &mut Option<u32>) -> Res<(CommitWrite, usize)> {
    let value = || rest.first().and_then(|v| parse_hex32(v));
    if let Some(reg) = tok.strip_prefix('x').and_then(parse_reg) {
        let value = value().ok_or(LogErrorKind::Syntax("x write"))?;
        return Ok((CommitWrite::X { reg, value }, 1));
    }
    if tok.strip_prefix('f').and_then(parse_reg).is_some() {
        return Err(LogErrorKind::FloatWrite);
    }
    if let Some(reg) = tok.strip_prefix('v').and_then(parse_reg) {
        return parse_vector(reg, rest);
    }
    if let Some(csr) = tok.strip_prefix('c').and_then(parse_csr_token) {
        let value = value().ok_or(LogErrorKind::Syntax("CSR write"))?;
        return Ok((CommitWrite::Csr { csr, value }, 1));
    }
    if tok == "mem" {
        return parse_mem(rest);
    }
    if tok.starts_with('e') && tok[1..].bytes().all(|b| b.is_ascii_digit()) {
        *vl = Some(parse_marker(tok, rest)?);
        return Ok((CommitWrite::VecMarker, 2));
    }
    Err(LogErrorKind::UnknownWrite)
}

/// Parses `e32 m1 lK` (given `e32` and the following tokens) and returns `K`.
fn parse_marker(sew: &str, rest: &[&str]) -> Res<u32> {
    if sew != "e32" || rest.first() != Some(&"m1") {
        return Err(LogErrorKind::UnsupportedVtype);
    }
    rest.get(1)
        .and_then(|l| l.strip_prefix('l'))
        .and_then(|k| k.parse::<u32>().ok())
        .ok_or(LogErrorKind::Syntax("vector marker"))
}

/// Parses ` mem 0xADDR [0xVAL]` (after `mem`).
fn parse_mem(rest: &[&str]) -> Res<(CommitWrite, usize)> {
    let addr = rest.first().and_then(|a| parse_hex32(a)).ok_or(LogErrorKind::Syntax("mem address"))?;
    let Some(digits) = rest.get(1).and_then(|v| v.strip_prefix("0x")) else {
        return Ok((CommitWrite::Load { addr }, 1));
    };
    let bytes = match digits.len() {
        1 | 2 => 1,
        4 => 2,
        8 => 4,
        _ => return Err(LogErrorKind::BadStoreWidth),
    };
    let value = parse_hex_digits(digits).ok_or(LogErrorKind::Syntax("store value"))?;
    Ok((CommitWrite::Store { addr, value, bytes }, 2))
}

/// Parses a vector write after `vR`: packed `0x<all lanes>` or masked `<mask> 0x<lane> <lane>…`.
fn parse_vector(reg: u8, rest: &[&str]) -> Res<(CommitWrite, usize)> {
    let bad = LogErrorKind::Syntax("vector write");
    let first = rest.first().ok_or(bad)?;
    if let Some(packed) = first.strip_prefix("0x") {
        let lanes = parse_packed_lanes(packed).ok_or(bad)?;
        return Ok((CommitWrite::V { reg, mask: None, lanes }, 1));
    }
    let mask = lane_word(first).ok_or(bad)?;
    let top = rest.get(1).and_then(|t| t.strip_prefix("0x")).ok_or(bad)?;
    let mut lanes = vec![lane_word(top).ok_or(bad)?];
    lanes.extend(rest[2..].iter().map_while(|t| lane_word(t)));
    let used = 1 + lanes.len();
    lanes.reverse();
    Ok((CommitWrite::V { reg, mask: Some(mask), lanes }, used))
}

/// Splits a packed register dump (highest lane first, 8 digits per lane) into lanes.
fn parse_packed_lanes(hex: &str) -> Option<Vec<u32>> {
    if hex.is_empty() || hex.len() % 8 != 0 || !hex.is_ascii() {
        return None;
    }
    let mut lanes = (0..hex.len() / 8).map(|i| lane_word(&hex[8 * i..8 * i + 8])).collect::<Option<Vec<u32>>>()?;
    lanes.reverse();
    Some(lanes)
}

/// Exactly 8 hex digits.
fn lane_word(text: &str) -> Option<u32> {
    (text.len() == 8).then(|| parse_hex_digits(text))?
}

/// 1–8 hex digits without prefix.
fn parse_hex_digits(text: &str) -> Option<u32> {
    let ok = (1..=8).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| u32::from_str_radix(text, 16).ok())?
}

/// `0x` followed by 1–8 hex digits.
fn parse_hex32(text: &str) -> Option<u32> {
    parse_hex_digits(text.strip_prefix("0x")?)
}

/// A register number (decimal, fits in `u8`).
fn parse_reg(text: &str) -> Option<u8> {
    let ok = !text.is_empty() && text.len() <= 3 && text.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| text.parse().ok())?
}

/// `NNN_name` (after `c`): the CSR number.
fn parse_csr_token(text: &str) -> Option<u16> {
    let (num, name) = text.split_once('_')?;
    let ok = !num.is_empty() && num.len() <= 4 && num.bytes().all(|b| b.is_ascii_digit());
    (ok && !name.is_empty()).then(|| num.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::image::LaunchImage;
    use std::path::{Path, PathBuf};

    const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/testdata/ventus-official");

    fn path(rel: &str) -> PathBuf {
        Path::new(ROOT).join(rel)
    }

    fn read(rel: &str) -> String {
        std::fs::read_to_string(path(rel)).expect(rel)
    }

    fn parse(rel: &str) -> CommitLog {
        CommitLog::parse(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn all_logs() -> Vec<PathBuf> {
        let mut logs = Vec::new();
        for dir in std::fs::read_dir(ROOT).unwrap().map(|d| d.unwrap().path()) {
            if dir.is_dir() {
                for file in std::fs::read_dir(dir).unwrap().map(|f| f.unwrap().path()) {
                    if file.extension().is_some_and(|e| e == "log") {
                        logs.push(file);
                    }
                }
            }
        }
        logs.sort();
        logs
    }

    /// Replays the log's stores over the image and returns `count` words at `addr`.
    fn replay(image: &LaunchImage, log: &CommitLog, addr: u32, count: u32) -> Vec<u32> {
        let mut mem: HashMap<u32, u8> = HashMap::new();
        for b in &image.buffers {
            mem.extend((b.base..).zip(b.data.iter().copied()));
        }
        for (a, value, bytes) in log.stores() {
            mem.extend((a..).zip(value.to_le_bytes()).take(usize::from(bytes)));
        }
        let byte = |a: u32| mem.get(&a).copied().unwrap_or(0);
        (0..count).map(|i| u32::from_le_bytes([0, 1, 2, 3].map(|k| byte(addr + 4 * i + k)))).collect()
    }

    #[test]
    fn every_log_parses() {
        let logs = all_logs();
        assert_eq!(logs.len(), 10);
        for log in logs {
            let parsed = CommitLog::parse(&std::fs::read_to_string(&log).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", log.display()));
            assert!(!parsed.groups.is_empty());
            let first = &parsed.groups[0].records[0];
            assert_eq!((first.warp, first.pc, first.insn), (0, 0x1000, 0x297));
        }
    }

    #[test]
    fn group_and_vl_facts() {
        let facts = [
            ("adv_matadd/matadd.log", 1, Some(4), 4),
            ("adv_vecadd_4x16/vecadd.log", 1, Some(16), 4),
            ("adv_gaussian_1x16/Fan2_1.log", 1, Some(16), 1),
            ("vsw-vecadd-elf/vecadd.riscv.log", 1, Some(8), 4),
            ("sim-verilator-vecadd/vecadd_32b4w8t.log", 32, Some(8), 4),
        ];
        for (rel, groups, vl, warps) in facts {
            let log = parse(rel);
            assert_eq!(log.groups.len(), groups, "{rel}");
            assert_eq!(log.vl, vl, "{rel}");
            assert_eq!(log.groups[0].warps(), (0..warps).collect::<Vec<_>>(), "{rel}");
        }
    }

    #[test]
    fn vsw_traps() {
        let log = parse("vsw-vecadd-elf/vecadd.riscv.log");
        let traps = &log.groups[0].traps;
        assert_eq!(traps.len(), 4);
        for (warp, trap) in traps.iter().enumerate() {
            assert_eq!(trap.warp, warp as u32);
            assert_eq!(trap.cause, "trap_store_access_fault");
            assert_eq!((trap.epc, trap.tval), (0x8000_519c, Some(0x18)));
        }
        // The trapping vsw12.v still logs a commit line (vstart + marker, no store).
        let trapping = log.groups[0].records.iter().find(|r| r.pc == 0x8000_519c && r.warp == 0).unwrap();
        assert_eq!(trapping.writes, vec![CommitWrite::Csr { csr: 8, value: 0 }, CommitWrite::VecMarker]);
    }

    #[test]
    fn executed_k_times_folds_into_repeat() {
        let log = parse("adv_matadd/matadd.log");
        let barrier =
            |warp: u32| log.groups[0].warp_records(warp).into_iter().find(|r| r.pc == 0x8000_0388).unwrap().clone();
        // Warps 0..2 spin once at the barrier ("Executed 2 times"); warp 3 arrives last.
        assert_eq!(barrier(0).repeat, 1);
        assert_eq!(barrier(2).repeat, 1);
        assert_eq!(barrier(3).repeat, 0);
        assert!(barrier(0).writes.is_empty());
        let total: u32 = log.groups[0].records.iter().map(|r| r.repeat).sum();
        assert_eq!(total, 18); // 18 "Executed 2 times" lines
        let gauss = parse("adv_gaussian_1x16/Fan1_0.log");
        let join = gauss.groups[0].records.iter().find(|r| r.pc == 0x8000_0144).unwrap();
        assert_eq!((join.insn, join.repeat), (0x205b, 2)); // "Executed 3 times"
    }

    #[test]
    fn vector_write_formats() {
        let matadd = parse("adv_matadd/matadd.log");
        let packed = matadd.groups[0].records.iter().find(|r| r.pc == 0x8000_0380).unwrap();
        assert_eq!(
            packed.writes,
            vec![
                CommitWrite::Csr { csr: 8, value: 0 },
                CommitWrite::VecMarker,
                CommitWrite::V { reg: 0, mask: None, lanes: vec![0, 1, 2, 3] },
            ]
        );
        let gauss = parse("adv_gaussian_1x16/Fan1_0.log");
        let masked = gauss.groups[0].records.iter().find(|r| r.pc == 0x8000_0134).unwrap();
        let CommitWrite::V { reg, mask, lanes } = &masked.writes[3] else { panic!("{:?}", masked.writes) };
        assert_eq!((*reg, *mask, lanes.len()), (1, Some(7), 16));
        assert_eq!(&lanes[..4], &[0x3f00_0000, 0x3f2a_aaaa, 0x8000_0000, 3]);
        assert_eq!(masked.writes[1], CommitWrite::Csr { csr: 1, value: 1 });
    }

    #[test]
    fn vecadd_4x16_replay_gives_64() {
        let image = LaunchImage::load(&path("adv_vecadd_4x16/vecadd.metadata")).unwrap();
        let log = parse("adv_vecadd_4x16/vecadd.log");
        let c = image.buffers[2].base;
        assert_eq!(c, 0x9000_2000);
        assert!(image.buffers[2].data.iter().all(|&b| b == 0));
        assert_eq!(replay(&image, &log, c, 64), vec![0x4280_0000; 64]);
        assert!(log.stores().all(|(_, _, bytes)| bytes == 4));
    }

    #[test]
    fn matadd_replay_gives_16() {
        let image = LaunchImage::load(&path("adv_matadd/matadd.metadata")).unwrap();
        let log = parse("adv_matadd/matadd.log");
        assert_eq!(replay(&image, &log, 0x9000_2000, 16), vec![0x4180_0000; 16]);
    }

    #[test]
    fn multi_group_replay_gives_1024() {
        let image = LaunchImage::load(&path("sim-verilator-vecadd/vecadd_32b4w8t.metadata")).unwrap();
        let log = parse("sim-verilator-vecadd/vecadd_32b4w8t.log");
        assert_eq!(log.groups.len() as u64, image.total_groups());
        assert_eq!(replay(&image, &log, 0x9000_2000, 1024), vec![0x4480_0000; 1024]);
    }

    /// Every commit line of every log is reproduced byte for byte by the writer (debug text
    /// the simulator appended is cut off first).
    #[test]
    fn commit_lines_round_trip_exactly() {
        let mut checked = 0;
        for log in all_logs() {
            let text = std::fs::read_to_string(&log).unwrap();
            let vl = CommitLog::parse(&text).unwrap().vl.unwrap_or(0);
            for line in text.lines().filter(|l| is_commit_line(l)) {
                let expected = line.find(DEBUG_MARKER).map_or(line, |i| line[..i].trim_end());
                let (warp, body) = split_warp(&line[4..]).unwrap();
                let c = parse_commit_body(warp, body).unwrap();
                let rec = CommitRecord { warp: c.warp, pc: c.pc, insn: c.insn, writes: c.writes, repeat: 0 };
                let mut out = String::new();
                write_commit_line(&mut out, &rec, vl);
                assert_eq!(out.trim_end_matches('\n'), expected, "{}", log.display());
                checked += 1;
            }
        }
        assert_eq!(checked, 17_627);
    }

    fn is_commit_line(line: &str) -> bool {
        line.starts_with("core") && line.split_once(": 3 0x").is_some()
    }

    /// Writing every parsed record and parsing the result gives the same records and groups.
    #[test]
    fn records_round_trip() {
        for log in all_logs() {
            let parsed = CommitLog::parse(&std::fs::read_to_string(&log).unwrap()).unwrap();
            let mut out = String::new();
            for rec in parsed.groups.iter().flat_map(|g| &g.records) {
                write_record(&mut out, rec, "insn", parsed.vl.unwrap_or(4));
            }
            let again = CommitLog::parse(&out).unwrap();
            assert_eq!(again.groups.len(), parsed.groups.len());
            for (a, b) in again.groups.iter().zip(&parsed.groups) {
                assert_eq!(a.records, b.records, "{}", log.display());
            }
        }
    }

    #[test]
    fn write_record_format() {
        let rec = CommitRecord { warp: 2, pc: 0x8000_0388, insn: 0x0400_c00b, writes: vec![], repeat: 2 };
        let mut out = String::new();
        write_record(&mut out, &rec, "barrier x0, x0, 1", 4);
        assert_eq!(
            out,
            "core   2: 0x80000388 (0x0400c00b) barrier x0, x0, 1\n\
             core   2: 3 0x80000388 (0x0400c00b)\n\
             core   2: 3 0x80000388 (0x0400c00b)\n\
             core   2: 3 0x80000388 (0x0400c00b)\n\
             core   2: Executed 3 times\n"
        );
        assert_eq!(CommitLog::parse(&out).unwrap().groups[0].records, vec![rec]);
    }

    #[test]
    fn store_widths_follow_digit_count() {
        let (w, _) = parse_writes(" mem 0x90000000 0x5 mem 0x90000001 0xab mem 0x90000002 0xbeef").unwrap();
        assert_eq!(
            w,
            vec![
                CommitWrite::Store { addr: 0x9000_0000, value: 5, bytes: 1 },
                CommitWrite::Store { addr: 0x9000_0001, value: 0xab, bytes: 1 },
                CommitWrite::Store { addr: 0x9000_0002, value: 0xbeef, bytes: 2 },
            ]
        );
        let rec = CommitRecord { warp: 0, pc: 0x8000_0000, insn: 0x13, writes: w, repeat: 0 };
        let mut out = String::new();
        write_commit_line(&mut out, &rec, 8);
        assert!(out.ends_with(" mem 0x90000000 0x5 mem 0x90000001 0xab mem 0x90000002 0xbeef\n"));
        assert_eq!(parse_writes(" mem 0x90000000 0x123456"), Err(LogErrorKind::BadStoreWidth));
    }

    #[test]
    fn normalize_drops_noise_and_collapses_spins() {
        let log = parse("adv_matadd/matadd.log");
        let warp0 = log.groups[0].warp_records(0);
        let norm = normalize(&warp0);
        assert!(norm.iter().all(|r| r.pc >= PROGRAM_BASE && r.repeat == 0));
        assert!(norm.iter().flat_map(|r| &r.writes).all(|w| !matches!(
            w,
            CommitWrite::Load { .. } | CommitWrite::VecMarker | CommitWrite::Csr { csr: 8, .. }
        )));
        let raw: usize = warp0.iter().filter(|r| r.pc >= PROGRAM_BASE).count();
        assert_eq!(norm.len(), raw);
        let spin = CommitRecord { warp: 1, pc: 0x8000_0388, insn: 0x0400_c00b, writes: vec![], repeat: 0 };
        let store = CommitRecord {
            warp: 1,
            pc: 0x8000_0390,
            insn: 0x23,
            writes: vec![
                CommitWrite::Store { addr: 4, value: 1, bytes: 4 },
                CommitWrite::Csr { csr: 1, value: 0 },
                CommitWrite::X { reg: 5, value: 2 },
            ],
            repeat: 3,
        };
        let input = [&spin, &spin, &spin, &store, &store];
        let norm = normalize(&input);
        assert_eq!(norm.len(), 3);
        assert_eq!(norm[0], spin);
        assert_eq!(
            norm[1].writes,
            vec![
                CommitWrite::X { reg: 5, value: 2 },
                CommitWrite::Csr { csr: 1, value: 0 },
                CommitWrite::Store { addr: 4, value: 1, bytes: 4 },
            ]
        );
    }

    #[test]
    fn errors_have_line_numbers() {
        let disasm = "core   0: 0x80000000 (0x00000013) nop\n";
        let err = |text: &str| CommitLog::parse(text).unwrap_err();
        let e = err("junk\ncore   0: 3 0x80000000 (0x00000013)\n");
        assert_eq!((e.line, e.kind), (2, LogErrorKind::CommitWithoutInstruction));
        let e = err(&format!("{disasm}core   0: 3 0x80000000 (0x00000013)\ncore   0: Executed 2 times\n"));
        assert_eq!(e.kind, LogErrorKind::ExecutedMismatch { reported: 2, counted: 1 });
        let e = err(&format!("{disasm}core   0: 3 0x80000000 (0x00000013) f1  0x0\n"));
        assert_eq!(e.kind, LogErrorKind::FloatWrite);
        let e = err(&format!("{disasm}core   0: 3 0x80000000 (0x00000013) e16 m1 l4\n"));
        assert_eq!(e.kind, LogErrorKind::UnsupportedVtype);
        let e = err(&format!("{disasm}core   0: 3 0x80000000 (0x00000013) q7 1\n"));
        assert_eq!(e.kind, LogErrorKind::UnknownWrite);
        let e = err(&format!("{disasm}core   0: 1 0x80000000 (0x00000013)\n"));
        assert_eq!(e.kind, LogErrorKind::UnsupportedPrivilege);
        let e = err("core   3:           tval 0x00000018\n");
        assert_eq!((e.line, e.kind), (1, LogErrorKind::TvalWithoutTrap));
        let e = err("core   x: 0x80000000 (0x00000013) nop\n");
        assert_eq!(e.kind, LogErrorKind::Syntax("core prefix"));
        assert!(e.to_string().starts_with("commit log line 1:"));
        let e = err(&format!(
            "{disasm}core   0: 3 0x80000000 (0x00000013) e32 m1 l4\n{disasm}core   0: 3 0x80000000 (0x00000013) e32 m1 l8\n"
        ));
        assert_eq!((e.line, e.kind), (4, LogErrorKind::InconsistentVl { first: 4, found: 8 }));
    }

    #[test]
    fn mutated_logs_never_panic() {
        let text = read("adv_gaussian_1x16/Fan1_0.log");
        let lines: Vec<&str> = text.lines().collect();
        let alphabet = b"0123456789abcdefx :_()vcmelE\t";
        let mut state = 0x1234_5678_9abc_def1_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut errors = 0;
        for _ in 0..3000 {
            let i = (next() % lines.len() as u64) as usize;
            let mut line = lines[i].as_bytes().to_vec();
            for _ in 0..1 + next() % 3 {
                let at = (next() % (line.len() as u64 + 1)) as usize;
                let c = alphabet[(next() % alphabet.len() as u64) as usize];
                match next() % 3 {
                    0 if at < line.len() => line[at] = c,
                    1 if at < line.len() => {
                        line.remove(at);
                    }
                    _ => line.insert(at, c),
                }
            }
            let mutated = String::from_utf8(line).unwrap();
            let mut all = lines.clone();
            all[i] = &mutated;
            if CommitLog::parse(&all.join("\n")).is_err() {
                errors += 1;
            }
        }
        assert!(errors > 1000, "only {errors} mutations rejected");
    }
}
