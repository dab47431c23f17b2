//! Small helpers that depend on nothing else in the crate.

pub mod env;

/// Sign-extends the low `bits` bits of `value` to an `i32`.
#[inline(always)]
pub const fn sext(value: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((value << shift) as i32) >> shift
}

/// Extracts bits `hi..=lo` of `word`.
#[inline(always)]
pub const fn bits(word: u32, hi: u32, lo: u32) -> u32 {
    (word >> lo) & (u32::MAX >> (31 - (hi - lo)))
}

/// Rounds `value` up to a multiple of `align` (a power of two).
#[inline(always)]
pub const fn align_up(value: u64, align: u64) -> u64 {
    (value + align - 1) & !(align - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sext_and_bits() {
        assert_eq!(sext(0xfff, 12), -1);
        assert_eq!(sext(0x7ff, 12), 2047);
        assert_eq!(bits(0xdead_beef, 15, 8), 0xbe);
        assert_eq!(bits(0x8000_0000, 31, 31), 1);
        assert_eq!(align_up(5, 4), 8);
    }
}
