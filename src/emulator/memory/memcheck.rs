//! The memory checker (`VENTUS_MEMCHECK=1`): byte-exact bounds for every access, what
//! compute-sanitizer's memcheck is to CUDA.
//!
//! Without it, the emulator enforces what the hardware enforces: whole 4 KiB pages (a read in the
//! tail of a buffer's last page succeeds, as in the reference). With it, an access must also lie
//! inside an exact extent:
//! * **global**: the bytes the owner of the containing region asked for ([`Region::len`]: a
//!   buffer's `size`, a sub-buffer lies inside its parent's). The checker knows allocations, not
//!   pointer provenance: an access through one buffer's pointer that lands inside another buffer
//!   is not reported;
//! * **local**: the warp stacks, the kernel's static `__local` data (one extent for all of its
//!   `__local` variables) and each `__local` argument, exactly as large as the launch gave;
//! * **private**: each work-item's frame (the private bytes the kernel needs per work-item);
//! * the program window is checked only by its page permissions.
//!
//! A violation stops the launch like a fault ([`crate::emulator::fault::FaultKind::MemCheck`]); [`Miss`]
//! says which extent the address was nearest to and by how many bytes it missed.

use super::{MemView, Region, Space};
use crate::abi;

/// What the launch knows a global region as (for reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// Pointer argument `index` points into the region, `offset` bytes from its start.
    Argument { index: u32, offset: u32 },
    /// The launch's metadata buffer.
    Metadata,
    /// The kernel-argument buffer.
    ArgumentBuffer,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Argument { index, offset: 0 } => write!(f, "argument {index}"),
            Label::Argument { index, offset } => write!(f, "argument {index} points {offset} bytes in"),
            Label::Metadata => write!(f, "the launch's metadata"),
            Label::ArgumentBuffer => write!(f, "the kernel-argument buffer"),
        }
    }
}

/// What an exact extent is (for reports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extent {
    /// A global region, with what the launch knows it as.
    Buffer(Option<Label>),
    /// The warp stacks at the bottom of the LDS window.
    WarpStacks,
    /// The kernel's static `__local` variables.
    StaticLocal,
    /// The `__local` argument with this index.
    LocalArg(u32),
    /// A work-item's private frame.
    PrivateFrame,
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Extent::Buffer(Some(l)) => write!(f, "buffer ({l})"),
            Extent::Buffer(None) => write!(f, "buffer"),
            Extent::WarpStacks => write!(f, "the warp stacks"),
            Extent::StaticLocal => write!(f, "the kernel's __local variables"),
            Extent::LocalArg(i) => write!(f, "__local argument {i}"),
            Extent::PrivateFrame => write!(f, "the work-item's private frame"),
        }
    }
}

/// The exact extents of one launch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemCheck {
    /// `__local` extents `(start, len, what)`.
    local: Vec<(u32, u32, Extent)>,
    /// Addresses the launch knows by name (a pointer argument, its metadata, ...): a report
    /// names the region containing one by the first such label.
    labels: Vec<(u32, Label)>,
    /// Private bytes per work-item (0 = unchecked), the private block's base and the
    /// work-items per work-group (private memory is word-interleaved across them).
    private_frame: u32,
    pds_base: u32,
    items_per_group: u32,
}

/// Where a rejected access was, relative to the nearest exact extent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    pub extent: Extent,
    /// The extent's first address (for a private frame: 0, offsets are per work-item).
    pub start: u32,
    pub len: u32,
    /// The access's address (for a private frame: its offset in the work-item's frame).
    pub addr: u32,
    pub bytes: u32,
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, end) = (self.addr as u64, self.start as u64 + self.len as u64);
        if self.extent == Extent::PrivateFrame {
            return write!(
                f,
                "offset {} is {} bytes past the end of {} ({} bytes)",
                self.addr,
                (a + self.bytes as u64).saturating_sub(end),
                self.extent,
                self.len
            );
        }
        if a < self.start as u64 {
            write!(f, "{} bytes before ", self.start as u64 - a)?;
        } else if a >= end {
            write!(f, "{} bytes past the end of ", a - end)?;
        } else {
            write!(f, "its last {} bytes past the end of ", a + self.bytes as u64 - end)?;
        }
        write!(f, "{} at {:#010x} ({} bytes)", self.extent, self.start, self.len)
    }
}

/// The image of an access outside its image ([`crate::emulator::fault::FaultKind::ImageOutside`]): what
/// the launch knows its descriptor as, and the size of its addressing grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageMiss {
    pub label: Option<Label>,
    /// Pixels per axis of the addressing grid (layers included); `None` if the descriptor is
    /// unreadable.
    pub extent: Option<[u32; 3]>,
}

impl std::fmt::Display for ImageMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.label {
            Some(Label::Argument { index, .. }) => write!(f, "the image is argument {index}")?,
            _ => write!(f, "the image")?,
        }
        if let Some([x, y, z]) = self.extent {
            write!(f, " ({x} x {y} x {z} pixels)")?;
        }
        Ok(())
    }
}

/// What a fault report says about the memory an access missed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Explanation {
    /// The nearest exact extent.
    Nearest(Miss),
    /// The image of an access outside its image.
    Image(ImageMiss),
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Explanation::Nearest(m) => m.fmt(f),
            Explanation::Image(i) => i.fmt(f),
        }
    }
}

impl MemCheck {
    /// A checker for a launch whose work-groups have `items_per_group` work-items, each with a
    /// `private_frame`-byte frame in the block at `pds_base` (0 = private memory unchecked).
    pub fn new(items_per_group: u32, pds_base: u32, private_frame: u32) -> MemCheck {
        MemCheck { private_frame, pds_base, items_per_group: items_per_group.max(1), ..MemCheck::default() }
    }

    /// Adds an exact `__local` extent.
    pub fn local(&mut self, start: u32, len: u32, what: Extent) {
        if len > 0 {
            self.local.push((start, len, what));
        }
    }

    /// Names the global region containing `addr` in reports (resolved only when one is made,
    /// so a launch pays nothing for it). For [`Label::Argument`] the offset is derived then.
    pub fn label(&mut self, addr: u32, label: Label) {
        self.labels.push((addr, label));
    }

    /// True when `[addr, addr + bytes)`, found in region `r` of `space`, lies inside an exact
    /// extent.
    #[inline]
    pub fn allows(&self, r: &Region, space: Space, addr: u32, bytes: u32) -> bool {
        let end = addr as u64 + bytes as u64;
        match space {
            Space::Global if addr >> 28 == abi::PROGRAM_BASE >> 28 => true,
            Space::Global => end <= r.base() as u64 + r.len() as u64,
            Space::Local => self.local.iter().any(|&(s, l, _)| addr >= s && end <= s as u64 + l as u64),
            Space::Private => {
                self.private_frame == 0 || self.frame_offset(addr) + bytes as u64 <= self.private_frame as u64
            }
        }
    }

    /// Offset of private address `addr` in its work-item's frame.
    fn frame_offset(&self, addr: u32) -> u64 {
        let rel = addr.wrapping_sub(self.pds_base);
        ((rel >> 2) / self.items_per_group.max(1)) as u64 * 4 + (rel & 3) as u64
    }

    /// The image whose descriptor is at `desc`, for a report.
    pub fn image(&self, mem: &MemView, desc: u32) -> ImageMiss {
        use crate::abi::image_desc::word;
        let label = mem.global.iter().find(|r| r.contains(desc)).and_then(|r| self.label_of(r));
        let at = |w: usize| mem.load(desc.wrapping_add(4 * w as u32), 4).ok();
        let extent = (|| Some([at(word::EXTENT_X)?, at(word::EXTENT_Y)?, at(word::EXTENT_Z)?]))();
        ImageMiss { label, extent }
    }

    /// What the launch knows global region `r` as (the first label inside it).
    fn label_of(&self, r: &Region) -> Option<Label> {
        self.labels.iter().find(|(a, _)| r.contains(*a)).map(|&(a, l)| match l {
            Label::Argument { index, .. } => Label::Argument { index, offset: a - r.base() },
            other => other,
        })
    }

    /// The nearest exact extent to a rejected access of `bytes` at `addr`.
    pub fn explain(&self, mem: &MemView, addr: u32, bytes: u32) -> Option<Miss> {
        let distance = |s: u32, l: u32| {
            let (a, s, e) = (addr as i64, s as i64, s as i64 + l as i64);
            if a < s {
                s - a
            } else {
                (a + bytes as i64 - e).max(0)
            }
        };
        let miss = |extent: Extent, start: u32, len: u32| Miss { extent, start, len, addr, bytes };
        match mem.space_of(addr) {
            Some(Space::Private) if self.private_frame == 0 => None,
            Some(Space::Private) => {
                Some(Miss { addr: self.frame_offset(addr) as u32, ..miss(Extent::PrivateFrame, 0, self.private_frame) })
            }
            Some(Space::Local) | None if addr >> 28 == abi::LDS_BASE >> 28 => self
                .local
                .iter()
                .min_by_key(|(s, l, _)| distance(*s, *l))
                .map(|(s, l, what)| miss(what.clone(), *s, *l)),
            _ => mem
                .global
                .iter()
                .min_by_key(|r| distance(r.base(), r.len()))
                .map(|r| miss(Extent::Buffer(self.label_of(r)), r.base(), r.len())),
        }
    }
}
