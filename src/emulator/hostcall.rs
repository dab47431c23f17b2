//! Host calls: functions of a program that the emulator executes natively instead of running
//! their code.
//!
//! A host call is installed at a function's entry address ([`super::Program::install_host_call`]);
//! the predecoded entry there is replaced by a marker that leaves the hot loop only when a warp
//! reaches it (the marker is an "illegal" entry, so [`super::exec::step`] pays nothing for it on
//! other instructions). The call then runs for the warp's active lanes, writes its result to
//! `v0` and returns to `ra` (`x1`), as the function's own `ret` would. Nothing else of the warp
//! changes (`sp`/`tp` are untouched, exactly as after the function's epilogue).
//!
//! The only host call is [`HostCall::LegacyPrintf`], the 2023 libclc `printf` of official binaries
//! (see [`crate::abi::printf::legacy`] for why it cannot run on the device and how its arguments
//! are read). Its text goes to the launch's [`PrintHook::on_text`] (standard output without a
//! hook), so it appears while the kernel runs; each call returns 0 in `v0` (success, as OpenCL's
//! `printf` specifies). An unreadable format string is a load-access fault at the call, naming the
//! lane and the address.

use super::fault::{FaultKind, Trap};
use super::memory::MemView;
use super::warp::{Warp, MAX_LANES};
use super::PrintHook;
use crate::abi::printf::legacy;

/// A natively executed function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCall {
    /// The 2023 libclc device-side `printf`.
    LegacyPrintf,
}

/// Reads a NUL-terminated string of at most [`legacy::MAX_STRING`] bytes; `None` if a byte is
/// unmapped. A string without NUL within the limit is cut there.
fn read_cstr(mem: &MemView, addr: u32) -> Option<Vec<u8>> {
    let mut s = Vec::new();
    for k in 0..legacy::MAX_STRING as u32 {
        match mem.load(addr.wrapping_add(k), 1).ok()? as u8 {
            0 => break,
            b => s.push(b),
        }
    }
    Some(s)
}

/// Runs `call` for warp `w` (index `warp` of work-group `group`) and returns to its `ra`.
pub(super) fn run(
    call: HostCall,
    w: &mut Warp,
    mem: &MemView,
    hook: Option<&dyn PrintHook>,
    group: u32,
    warp: u32,
) -> Result<(), Trap> {
    match call {
        HostCall::LegacyPrintf => {
            let lanes = w.mask & w.width_mask;
            let mut out = Vec::new();
            for lane in (0..MAX_LANES).filter(|l| lanes >> l & 1 == 1) {
                let regs: [u32; legacy::ARG_REGS] = std::array::from_fn(|r| w.v[r][lane]);
                let format = read_cstr(mem, regs[0]).ok_or(Trap {
                    kind: FaultKind::LoadAccess,
                    addr: Some(regs[0]),
                    lane: Some(lane as u32),
                })?;
                legacy::format_call(&format, &regs, &mut |a| read_cstr(mem, a), &mut out);
                w.v[0][lane] = 0;
            }
            match hook {
                Some(h) => h.on_text(group, warp, &out),
                None => write_stdout(&out),
            }
        }
    }
    w.pc = w.x[1];
    Ok(())
}

/// Writes `text` to standard output (flushed); a closed stdout is ignored.
pub fn write_stdout(text: &[u8]) {
    use std::io::Write;
    if !text.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text).and_then(|_| out.flush());
    }
}
