//! The 2023 libclc device-side `printf` library found in official binaries (driver-abi §5.1 (a)),
//! executed by the host instead of on the device.
//!
//! Such binaries (the 2023 `vecadd.riscv`) link a `printf` that formats on the device into a 1 KiB
//! buffer at the hard-coded address `0xa0024000`. The compiled library cannot run on Ventus: it
//! spills its varargs with flat stores to `tp`-relative addresses (0x18 …) and reaches its globals
//! through private-memory instructions, so the reference simulator traps at its first store (the
//! official commit log shows every warp trapping there) — it never printed anywhere. We therefore
//! run the *call* on the host: the emulator intercepts the `printf` entry (see
//! `emulator::hostcall`), and this module turns the caller's registers into text with the same
//! C-exact formatter as our own printf records ([`super::format_record`]).
//!
//! Contract:
//! * [`detect`]: a binary has the legacy library when it defines a function `printf` in an
//!   executable section and the data symbols `_printf_buffer` and `_printf_buffer_position`.
//! * Calling convention of a call (Ventus non-kernel functions, one value per lane): `v0` holds
//!   the format string's address, the variadic arguments follow in `v1, v2, …, v31`, one 32-bit
//!   register per 4 bytes of the C-promoted argument ([`super::vararg_types`]): `int`, `char`,
//!   pointers and `%s` string addresses take one register; an 8-byte `long`/`double` (floats are
//!   promoted to `double`) takes an *aligned* register pair (even register first, low word
//!   first), as RISC-V passes 2×XLEN variadic arguments (the Ventus fork keeps that rule for its
//!   vector argument registers). A vector argument is passed packed, little-endian, in
//!   `ceil(size / 4)` consecutive registers (3-element vectors occupy 4 elements), starting at an
//!   even register when it is 8 bytes or larger. Only the `int`/pointer case is confirmed by an
//!   official binary (`printf("ddd%d 1", 2)`); the others follow the RISC-V rules and are
//!   unverified. Arguments that would lie beyond `v31` (passed on the stack) are not read: their
//!   conversions print their own spec text.
//! * `%s` strings are read from device memory up to their NUL (at most [`MAX_STRING`] bytes); an
//!   unreadable string prints `(null)`.
//! * Output goes straight to the launch's printf output (not to the 1 KiB device buffer, which
//!   would silently drop everything past 1 KiB and which nothing maps).

use super::{format_record, vararg_types, PrintfArg, PrintfSite};
use crate::abi::elf::VentusElf;

/// Number of vector argument registers (`v0` … `v31`).
pub const ARG_REGS: usize = 32;

/// Longest format or `%s` string read from device memory.
pub const MAX_STRING: usize = 64 * 1024;

/// The address of the legacy library's `printf` when `elf` links it.
pub fn detect(elf: &VentusElf) -> Option<u32> {
    let f = elf.symbol("printf").filter(|s| s.is_func && s.in_text)?;
    elf.symbol("_printf_buffer")?;
    elf.symbol("_printf_buffer_position")?;
    Some(f.addr)
}

/// Formats one lane's call: `format` is the format string (read from the address in `regs[0]`),
/// `regs` that lane's argument registers `v0..` (at most [`ARG_REGS`] are used), `read_str`
/// reads a NUL-terminated string at a device address (`None` if it cannot). Appends the text to
/// `out`.
pub fn format_call(format: &[u8], regs: &[u32], read_str: &mut dyn FnMut(u32) -> Option<Vec<u8>>, out: &mut Vec<u8>) {
    let regs = &regs[..regs.len().min(ARG_REGS)];
    let mut next = 1usize;
    let mut args = Vec::new();
    let mut bytes = Vec::new();
    for arg in vararg_types(format) {
        let (words, aligned) = match &arg {
            PrintfArg::Str(_) | PrintfArg::Ptr => (1, false),
            PrintfArg::Int { bytes, lanes } | PrintfArg::Float { bytes, lanes } => {
                let packed = usize::from(*bytes) * usize::from(if *lanes == 3 { 4 } else { *lanes });
                (packed.div_ceil(4), packed >= 8)
            }
        };
        if aligned {
            next += next & 1;
        }
        let Some(words) = regs.get(next..next + words) else { break };
        next += words.len();
        match arg {
            PrintfArg::Str(_) => {
                // A string that cannot be read is passed as a non-string (printed as "(null)").
                match read_str(words[0]) {
                    Some(s) => args.push(PrintfArg::Str(s)),
                    None => {
                        args.push(PrintfArg::Ptr);
                        bytes.extend_from_slice(&words[0].to_le_bytes());
                    }
                }
            }
            PrintfArg::Ptr => {
                args.push(arg);
                bytes.extend_from_slice(&words[0].to_le_bytes());
            }
            PrintfArg::Int { bytes: b, lanes } | PrintfArg::Float { bytes: b, lanes } => {
                let packed: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let slot = super::slot_bytes(b) as usize;
                for lane in 0..usize::from(lanes) {
                    let mut elem = [0u8; 8];
                    let at = lane * usize::from(b);
                    elem[..usize::from(b)].copy_from_slice(&packed[at..at + usize::from(b)]);
                    bytes.extend_from_slice(&elem[..slot]);
                }
                args.push(arg);
            }
        }
    }
    format_record(&PrintfSite { format: format.to_vec(), args }, &bytes, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(format: &str, regs: &[u32]) -> String {
        let mut all = vec![0x8000_f000];
        all.extend_from_slice(regs);
        let mut out = Vec::new();
        let mut strings = |addr: u32| (addr == 0x8000_1000).then(|| b"hello".to_vec());
        format_call(format.as_bytes(), &all, &mut strings, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn ints_pointers_and_chars_take_one_register_each() {
        assert_eq!(call("ddd%d 1", &[2]), "ddd2 1");
        assert_eq!(
            call("%d|%5u|%x|%c|%p", &[-7i32 as u32, 42, 0xbeef, b'A' as u32, 0x9000_0010]),
            "-7|   42|beef|A|0x90000010"
        );
        assert_eq!(call("%hhd %hd", &[0x1ff, 0x18000]), "-1 -32768");
    }

    #[test]
    fn eight_byte_arguments_take_aligned_pairs() {
        // int in v1, long in (v2, v3), int in v4, double in (v6, v7) after skipping v5.
        let d = 2.5f64.to_bits();
        let l = (-5_000_000_000i64) as u64;
        let regs = [1, l as u32, (l >> 32) as u32, 4, 0xdead, d as u32, (d >> 32) as u32];
        assert_eq!(call("%d %ld %d %.2f", &regs), "1 -5000000000 4 2.50");
        // A double as the first vararg skips v1.
        assert_eq!(call("%g", &[0xdead, d as u32, (d >> 32) as u32]), "2.5");
    }

    #[test]
    fn strings_are_read_from_device_memory() {
        assert_eq!(call("[%s] [%-7s] [%.3s]", &[0x8000_1000, 0x8000_1000, 0x8000_1000]), "[hello] [hello  ] [hel]");
        assert_eq!(call("[%s]", &[0x1234]), "[(null)]");
    }

    #[test]
    fn vectors_are_packed_in_consecutive_registers() {
        assert_eq!(call("%v4hhd", &[0xff02_0100]), "0,1,2,-1");
        assert_eq!(call("%v2hd", &[0x0002_0001]), "1,2");
        let (a, b) = (1.5f32.to_bits(), (-2.0f32).to_bits());
        // float2 is 8 bytes: aligned pair (v2, v3).
        assert_eq!(call("%v2hlf", &[0, a, b]), "1.500000,-2.000000");
        assert_eq!(call("%v3hld", &[0, 1, 2, 3, 99]), "1,2,3");
    }

    #[test]
    fn missing_registers_print_the_spec_and_bad_specs_consume_nothing() {
        let many = "%d ".repeat(33);
        let regs: Vec<u32> = (1..=31).collect();
        let got = call(&many, &regs);
        assert!(got.starts_with("1 2 3 "), "{got}");
        assert!(got.ends_with("31 %d %d "), "{got}");
        assert_eq!(call("100%% %y %d", &[5]), "100% %y 5");
        assert_eq!(call("no args", &[]), "no args");
    }
}
