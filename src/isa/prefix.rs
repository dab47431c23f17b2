//! The payloads of the register-extension prefixes (`regext`, `regexti`): which bits of the
//! 12-bit immediate extend which field of the next instruction. The one definition for the
//! compiler's emitter (which writes `regext` before an instruction naming registers ≥ 32) and
//! the emulator's predecoder (which fuses a prefix into the instruction after it).
//!
//! * `regext`: bits 2:0, 5:3, 8:6, 11:9 are bits 7:5 of `rd`, `rs1`, `rs2`, `rs3`.
//! * `regexti`: bits 2:0 and 5:3 are bits 7:5 of `rd` and `rs2`; bits 11:6 are the high bits of
//!   the next instruction's immediate (and make it valid for the wider form).

/// A `regext` payload: the high three bits of each register field of the next instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegExt {
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub rs3: u8,
}

impl RegExt {
    /// The payload that extends registers `rd`, `rs1`, `rs2`, `rs3` (0..=255) beyond 31.
    pub fn for_registers(rd: u8, rs1: u8, rs2: u8, rs3: u8) -> RegExt {
        RegExt { rd: rd >> 5, rs1: rs1 >> 5, rs2: rs2 >> 5, rs3: rs3 >> 5 }
    }
    /// The 12-bit immediate.
    pub fn encode(self) -> u32 {
        u32::from(self.rd & 7)
            | u32::from(self.rs1 & 7) << 3
            | u32::from(self.rs2 & 7) << 6
            | u32::from(self.rs3 & 7) << 9
    }
    /// The payload of a 12-bit immediate.
    pub fn decode(imm: u32) -> RegExt {
        let f = |shift: u32| ((imm >> shift) & 7) as u8;
        RegExt { rd: f(0), rs1: f(3), rs2: f(6), rs3: f(9) }
    }
    /// Whether the prefix changes nothing (and need not be written).
    pub fn is_empty(self) -> bool {
        self.encode() == 0
    }
}

/// A `regexti` payload: the high bits of `rd` and `rs2` and of the next instruction's
/// immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegExtI {
    pub rd: u8,
    pub rs2: u8,
    /// Bits 11:6 of the immediate, as a number (0..64).
    pub imm_hi: u32,
}

impl RegExtI {
    /// The 12-bit immediate.
    pub fn encode(self) -> u32 {
        u32::from(self.rd & 7) | u32::from(self.rs2 & 7) << 3 | (self.imm_hi & 0x3f) << 6
    }
    /// The payload of a 12-bit immediate.
    pub fn decode(imm: u32) -> RegExtI {
        RegExtI { rd: (imm & 7) as u8, rs2: ((imm >> 3) & 7) as u8, imm_hi: (imm >> 6) & 0x3f }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_match_the_official_encoding() {
        for imm in 0..4096 {
            assert_eq!(RegExt::decode(imm).encode(), imm);
            assert_eq!(RegExtI::decode(imm).encode(), imm);
        }
        // `regext zero, zero, 1` (0x0010200b in official code): rd gains bit 5.
        assert_eq!(RegExt::decode(0x0010200b >> 20), RegExt { rd: 1, ..RegExt::default() });
        let e = RegExt::for_registers(40, 3, 255, 0);
        assert_eq!((e.rd, e.rs1, e.rs2, e.rs3), (1, 0, 7, 0));
        assert_eq!(e.encode(), 1 | 7 << 6);
        assert!(RegExt::for_registers(31, 0, 5, 31).is_empty());
    }
}
