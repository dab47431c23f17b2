//! Faults: what stops a work-group, as values (never panics).

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Unknown encoding, an instruction not allowed in the current state (FP with mstatus.FS off,
    /// vector op before `vsetvli`), or an unknown/forbidden CSR access. Carries the word.
    IllegalInstruction {
        word: u32,
    },
    /// The pc is not 4-byte aligned.
    FetchMisaligned,
    /// The pc lies outside the program text.
    FetchAccess,
    LoadMisaligned,
    StoreMisaligned,
    LoadAccess,
    StoreAccess,
    /// A store or atomic update to a mapped page that is read-only (program text, read-only data).
    StoreReadOnly,
    /// The memory checker (`VENTUS_MEMCHECK=1`) rejected an access of `bytes` bytes: the page is
    /// mapped, but no exact extent holds the bytes.
    MemCheck {
        write: bool,
        bytes: u8,
    },
    /// The memory checker (`VENTUS_MEMCHECK=2`) found a load of `bytes` bytes of a buffer that
    /// neither the host nor a kernel has written.
    Unwritten {
        bytes: u8,
    },
    /// The memory checker found an image access outside its image (the image library's hook,
    /// [`crate::abi::subroutine::IMAGE_OUTSIDE`]): a write, or a read without a sampler, of
    /// pixel `(x, y, z)` of the addressing grid (the layer in `y`/`z` for arrays). The trap's
    /// address is the image's descriptor.
    ImageOutside {
        write: bool,
        x: i32,
        y: i32,
        z: i32,
    },
    /// `ecall` (unsupported on Ventus).
    EnvironmentCall,
    /// `ebreak`.
    Breakpoint,
    /// The work-group exceeded its instruction budget (runaway loop).
    Watchdog {
        instructions: u64,
    },
    /// The work-group used more host CPU time than its budget (`VENTUS_WATCHDOG_SECONDS`, the
    /// context's `CL_CONTEXT_WATCHDOG_SECONDS_VENTUS`): a runaway loop, storing or not.
    WatchdogTime {
        seconds: u32,
    },
    /// The launch as a whole ran longer than `VENTUS_TIMEOUT`.
    Timeout {
        seconds: u32,
    },
    /// The launch was cancelled by the host.
    Cancelled,
}

impl FaultKind {
    /// spike's name for the trap cause (as in commit logs), where there is one.
    pub fn spike_name(&self) -> &'static str {
        match self {
            FaultKind::IllegalInstruction { .. } => "trap_illegal_instruction",
            FaultKind::FetchMisaligned => "trap_instruction_address_misaligned",
            FaultKind::FetchAccess => "trap_instruction_access_fault",
            FaultKind::LoadMisaligned => "trap_load_address_misaligned",
            FaultKind::StoreMisaligned => "trap_store_address_misaligned",
            FaultKind::LoadAccess => "trap_load_access_fault",
            FaultKind::StoreAccess | FaultKind::StoreReadOnly => "trap_store_access_fault",
            FaultKind::MemCheck { .. } | FaultKind::Unwritten { .. } | FaultKind::ImageOutside { .. } => "memcheck",
            FaultKind::EnvironmentCall => "trap_machine_ecall",
            FaultKind::Breakpoint => "trap_breakpoint",
            FaultKind::Watchdog { .. } | FaultKind::WatchdogTime { .. } => "watchdog",
            FaultKind::Timeout { .. } => "timeout",
            FaultKind::Cancelled => "cancelled",
        }
    }
    /// Whether an instruction raised it (not the watchdog, the timeout or a cancel).
    pub fn of_instruction(&self) -> bool {
        !matches!(
            self,
            FaultKind::Watchdog { .. }
                | FaultKind::WatchdogTime { .. }
                | FaultKind::Timeout { .. }
                | FaultKind::Cancelled
        )
    }
    /// RISC-V mcause value.
    pub fn mcause(&self) -> u32 {
        match self {
            FaultKind::FetchMisaligned => 0,
            FaultKind::FetchAccess => 1,
            FaultKind::IllegalInstruction { .. } => 2,
            FaultKind::Breakpoint => 3,
            FaultKind::LoadMisaligned => 4,
            FaultKind::LoadAccess => 5,
            FaultKind::StoreMisaligned => 6,
            FaultKind::StoreAccess | FaultKind::StoreReadOnly => 7,
            FaultKind::MemCheck { write: false, .. }
            | FaultKind::Unwritten { .. }
            | FaultKind::ImageOutside { write: false, .. } => 5,
            FaultKind::MemCheck { write: true, .. } | FaultKind::ImageOutside { write: true, .. } => 7,
            FaultKind::EnvironmentCall => 11,
            FaultKind::Watchdog { .. }
            | FaultKind::WatchdogTime { .. }
            | FaultKind::Timeout { .. }
            | FaultKind::Cancelled => 24,
        }
    }
}

/// A trap raised by one instruction (before the work-group context is attached).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trap {
    pub kind: FaultKind,
    /// Faulting address (memory faults) or the word (illegal instruction).
    pub addr: Option<u32>,
    /// The lane of a vector access that faulted.
    pub lane: Option<u32>,
}

impl Trap {
    pub fn new(kind: FaultKind) -> Trap {
        Trap { kind, addr: None, lane: None }
    }
    pub fn illegal(word: u32) -> Trap {
        Trap { kind: FaultKind::IllegalInstruction { word }, addr: Some(word), lane: None }
    }
}

/// A fault with its full context: which work-group, warp, lane, pc and address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// Linear work-group id and its (x, y, z) coordinates.
    pub work_group: u32,
    pub group_id: [u32; 3],
    pub warp: u32,
    pub lane: Option<u32>,
    pub pc: u32,
    pub addr: Option<u32>,
    /// Disassembly of the faulting instruction, when it decodes.
    pub instruction: Option<String>,
    /// For access faults: the nearest exact extent and by how much the access missed it; for
    /// an image access outside its image: the image, as the launch knows it.
    pub miss: Option<Box<super::memcheck::Explanation>>,
    /// The source line of the pc, when the program has a line table
    /// ([`super::Program::source_location`]).
    pub source: Option<crate::abi::lines::SourceLoc>,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            FaultKind::IllegalInstruction { word } => format!("illegal instruction {word:#010x}"),
            FaultKind::FetchMisaligned => "misaligned instruction fetch".into(),
            FaultKind::FetchAccess => "instruction fetch outside the program".into(),
            FaultKind::LoadMisaligned => "misaligned load".into(),
            FaultKind::StoreMisaligned => "misaligned store".into(),
            FaultKind::LoadAccess => "load access fault (unmapped address)".into(),
            FaultKind::StoreAccess => "store access fault (unmapped address)".into(),
            FaultKind::StoreReadOnly => "store access fault (read-only program memory)".into(),
            FaultKind::MemCheck { write, bytes } => {
                format!("memcheck: invalid {bytes}-byte {}", if write { "store" } else { "load" })
            }
            FaultKind::Unwritten { bytes } => {
                format!("memcheck: {bytes}-byte load of device memory that was never written")
            }
            FaultKind::ImageOutside { write, x, y, z } => format!(
                "memcheck: {} outside its image at pixel ({x}, {y}, {z})",
                if write { "image write" } else { "image read without a sampler" }
            ),
            FaultKind::EnvironmentCall => "ecall is not supported".into(),
            FaultKind::Breakpoint => "ebreak (a trap: __builtin_trap() or unreachable code reached)".into(),
            FaultKind::Watchdog { instructions } => {
                format!("watchdog: work-group exceeded {instructions} instructions (runaway kernel?)")
            }
            FaultKind::WatchdogTime { seconds } => format!(
                "watchdog: work-group ran for more than {seconds} s of host CPU time (a runaway loop?); \
                 VENTUS_WATCHDOG_SECONDS=N or the context property CL_CONTEXT_WATCHDOG_SECONDS_VENTUS \
                 raises the limit, 0 removes it"
            ),
            FaultKind::Timeout { seconds } => {
                format!("timeout: the launch ran for more than {seconds} s (VENTUS_TIMEOUT)")
            }
            FaultKind::Cancelled => "launch cancelled".into(),
        };
        let [x, y, z] = self.group_id;
        write!(f, "{what} in work-group {} ({x},{y},{z}), warp {}", self.work_group, self.warp)?;
        if let Some(l) = self.lane {
            write!(f, ", lane {l}")?;
        }
        write!(f, ", pc {:#010x}", self.pc)?;
        if let Some(i) = &self.instruction {
            write!(f, " ({})", i.replace('\t', " "))?;
        }
        if let Some(s) = &self.source {
            write!(f, " at {s}")?;
        }
        let no_address = matches!(self.kind, FaultKind::IllegalInstruction { .. } | FaultKind::ImageOutside { .. });
        if let (Some(a), false) = (self.addr, no_address) {
            write!(f, ", address {a:#010x}")?;
        }
        if let Some(m) = &self.miss {
            write!(f, ": {m}")?;
        }
        Ok(())
    }
}
impl std::error::Error for Fault {}
