//! Which registers a program (or one launch's reachable code) can write ([`RegBounds`]): a warp
//! reset clears only those ([`super::warp::Warp::reset`]), so a work-group of a small kernel
//! does not clear 33 KiB of vector registers per warp.
//!
//! Scalar registers are counted by a bound (the file is 1 KiB: clearing a prefix is as cheap as
//! anything finer); vector registers by a set ([`VRegSet`]), because compiled code writes two
//! far-apart groups — the low registers of a kernel and the few high ones of a routine it calls
//! (`compiler::target::call`: a checker hook's v224–v236) — and a bound would clear everything
//! between them on every warp start.

/// The registers a program can write: no `x` register at or above `x`, no `v` register
/// outside `v`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegBounds {
    pub x: usize,
    pub v: VRegSet,
}

impl RegBounds {
    /// Every register (a program nothing is known about).
    pub const ALL: RegBounds = RegBounds { x: 256, v: VRegSet::ALL };
    /// No register.
    pub const NONE: RegBounds = RegBounds { x: 0, v: VRegSet::EMPTY };
}

/// A set of vector register numbers (0–255).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct VRegSet([u64; 4]);

impl VRegSet {
    pub const EMPTY: VRegSet = VRegSet([0; 4]);
    pub const ALL: VRegSet = VRegSet([u64::MAX; 4]);

    /// The registers `lo..hi` (clamped to the file).
    pub fn range(lo: usize, hi: usize) -> VRegSet {
        let mut s = VRegSet::EMPTY;
        s.insert_range(lo, hi);
        s
    }

    /// Adds the registers `lo..hi` (clamped to the file).
    pub fn insert_range(&mut self, lo: usize, hi: usize) {
        for r in lo..hi.min(256) {
            self.0[r / 64] |= 1 << (r % 64);
        }
    }

    pub fn union(self, other: VRegSet) -> VRegSet {
        VRegSet(std::array::from_fn(|k| self.0[k] | other.0[k]))
    }

    pub fn contains(&self, r: usize) -> bool {
        r < 256 && self.0[r / 64] >> (r % 64) & 1 != 0
    }

    /// The maximal runs `lo..hi` of consecutive members, in ascending order (what a reset
    /// clears, one fill per run).
    pub fn runs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut r = 0;
        std::iter::from_fn(move || {
            let lo = self.next_from(r, true)?;
            r = self.next_from(lo, false).unwrap_or(256);
            Some((lo, r))
        })
    }

    /// The runs ([`VRegSet::runs`]) merged across gaps of at most `gap` non-members: spans
    /// covering every member with fewer, longer fills where the registers between runs are
    /// known to be zero already (a warp reset: clearing them again is harmless and cheaper
    /// than a fill per run).
    pub fn spans(&self, gap: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut runs = self.runs().peekable();
        std::iter::from_fn(move || {
            let (lo, mut hi) = runs.next()?;
            while let Some(&(next_lo, next_hi)) = runs.peek() {
                if next_lo - hi > gap {
                    break;
                }
                hi = next_hi;
                runs.next();
            }
            Some((lo, hi))
        })
    }

    /// The first register at or above `r` that is a member (`member`) or not.
    fn next_from(&self, r: usize, member: bool) -> Option<usize> {
        let flip = if member { 0 } else { u64::MAX };
        let mut k = r / 64;
        let mut word = (*self.0.get(k)? ^ flip) & (u64::MAX << (r % 64));
        loop {
            if word != 0 {
                return Some(k * 64 + word.trailing_zeros() as usize);
            }
            k += 1;
            word = *self.0.get(k)? ^ flip;
        }
    }
}

impl std::fmt::Debug for VRegSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let runs: Vec<String> = self.runs().map(|(lo, hi)| format!("v{lo}..v{}", hi - 1)).collect();
        write!(f, "{{{}}}", runs.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_the_maximal_intervals_of_the_set() {
        let mut s = VRegSet::range(0, 5);
        s.insert_range(224, 237);
        s.insert_range(63, 65);
        assert_eq!(s.runs().collect::<Vec<_>>(), [(0, 5), (63, 65), (224, 237)]);
        assert!(s.contains(64) && !s.contains(65) && !s.contains(300));
        assert_eq!(VRegSet::ALL.runs().collect::<Vec<_>>(), [(0, 256)]);
        assert_eq!(VRegSet::EMPTY.runs().count(), 0);
        assert_eq!(VRegSet::range(250, 900), VRegSet::range(250, 256));
        assert_eq!(VRegSet::range(3, 4).union(VRegSet::range(4, 6)), VRegSet::range(3, 6));
    }

    #[test]
    fn spans_merge_runs_across_small_gaps_only() {
        let mut s = VRegSet::range(0, 5);
        s.insert_range(7, 9);
        s.insert_range(12, 13);
        s.insert_range(224, 237);
        assert_eq!(s.spans(0).collect::<Vec<_>>(), s.runs().collect::<Vec<_>>());
        assert_eq!(s.spans(2).collect::<Vec<_>>(), [(0, 9), (12, 13), (224, 237)]);
        assert_eq!(s.spans(3).collect::<Vec<_>>(), [(0, 13), (224, 237)]);
        assert_eq!(s.spans(300).collect::<Vec<_>>(), [(0, 237)]);
        assert_eq!(VRegSet::EMPTY.spans(4).count(), 0);
    }
}
