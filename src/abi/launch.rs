//! Launch parameters as the hardware sees them: the kernel metadata buffer (driver-abi §2.1, the
//! 68-byte layout), the kernel-argument buffer (pocl's packing rule, §3.2) with `__local` argument
//! placement (§3.4), the NDRange and the lane → work-item mapping.

use super::{LDS_BASE, PROGRAM_BASE, WARP_STACK_BYTES};

/// Bytes of the metadata buffer we write (old crt0 variants read the first 56).
pub const METADATA_SIZE: u32 = 68;
/// Upper bound on the argument buffer (official assertion).
pub const MAX_ARG_BUFFER: usize = 0xffff;

/// The local id of the work-item that linear lane `linear` of a work-group is (linear id =
/// warp · `numt` + lane, x fastest): the ABI's one lane → work-item mapping, used by the
/// emulator's work-item CSRs and lane masks and by the runtime's fault messages. A zero size
/// counts as 1.
pub fn local_id(linear: u32, local_size: [u32; 3]) -> [u32; 3] {
    let [lx, ly, _] = local_size.map(|v| v.max(1));
    [linear % lx, linear / lx % ly, linear / (lx * ly)]
}

/// The global id of local id `local` in work-group `group`: `group · local_size + local + offset`
/// per dimension, wrapping as the hardware's 32-bit arithmetic does.
pub fn global_id(group: [u32; 3], local_size: [u32; 3], local: [u32; 3], offset: [u32; 3]) -> [u32; 3] {
    std::array::from_fn(|d| group[d].wrapping_mul(local_size[d]).wrapping_add(local[d]).wrapping_add(offset[d]))
}

/// Metadata word offsets.
pub mod md {
    pub const ENTRY: u32 = 0;
    pub const ARG_BASE: u32 = 4;
    pub const WORK_DIM: u32 = 8;
    pub const GL_SIZE: u32 = 12;
    pub const LC_SIZE: u32 = 24;
    pub const GL_OFFSET: u32 = 36;
    pub const PRINT_ADDR: u32 = 48;
    pub const PRINT_SIZE: u32 = 52;
    pub const LDS_STACK_SIZE_PER_WF: u32 = 56;
    pub const LDS_NON_STACK_SIZE: u32 = 60;
    pub const PDS_SIZE_PER_THREAD: u32 = 64;
}

/// An NDRange: the one description of a launch's index space, for the OpenCL runtime, the
/// device layer, the metadata buffer and the emulator's lane masks (unused dimensions: global 1,
/// local 1, offset 0). The global size need not be a multiple of the work-group size (OpenCL
/// 3.0 non-uniform work-groups): there are `ceil(global / local)` work-groups per dimension and
/// the edge ones are smaller ([`NdRange::lane_masks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    /// Work-items per dimension.
    pub global: [u32; 3],
    /// Enqueued work-group size per dimension.
    pub local: [u32; 3],
    pub offset: [u32; 3],
}

impl NdRange {
    /// The NDRange of `num_groups` whole work-groups of `local` work-items (the reference
    /// stack's launches: global = `num_groups × local`, wrapping like the hardware's words).
    pub fn whole_groups(work_dim: u32, num_groups: [u32; 3], local: [u32; 3], offset: [u32; 3]) -> NdRange {
        NdRange { work_dim, global: std::array::from_fn(|d| num_groups[d].wrapping_mul(local[d])), local, offset }
    }
    /// Work-groups per dimension (the last one may be partial).
    pub fn num_groups(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.global[d].div_ceil(self.local[d].max(1)))
    }
    /// Whether every dimension is a multiple of the work-group size.
    pub fn is_uniform(&self) -> bool {
        (0..3).all(|d| self.global[d] % self.local[d].max(1) == 0)
    }
    /// Work-items per (full) work-group.
    pub fn local_total(&self) -> u32 {
        self.local.iter().product()
    }
    /// Warps per work-group for `numt` lanes per warp (the last warp may be partial).
    pub fn warps_per_group(&self, numt: u32) -> u32 {
        self.local_total().div_ceil(numt.max(1))
    }

    /// Active-lane mask of warp `warp` in work-group `group_id` for `numt` lanes per warp.
    pub fn lane_mask(&self, group_id: [u32; 3], warp: u32, numt: u32) -> u32 {
        let mut mask = 0;
        self.lane_masks(group_id, numt, warp..warp + 1, |_, m| mask = m);
        mask
    }

    /// The active-lane masks of `warps` of work-group `group_id` for `numt` lanes per warp, as
    /// `f(warp, mask)` in warp order: a lane is active when it is a work-item ([`local_id`])
    /// inside the actual (for an edge work-group of a non-uniform NDRange, smaller) work-group.
    /// What the group's shape decides is computed once per work-group, not per warp.
    pub fn lane_masks(&self, group_id: [u32; 3], numt: u32, warps: std::ops::Range<u32>, mut f: impl FnMut(u32, u32)) {
        let [lx, ly, lz] = self.local.map(|v| v.max(1));
        let actual: [u32; 3] = std::array::from_fn(|d| {
            let start = group_id[d] as u64 * self.local[d] as u64;
            (self.global[d] as u64).saturating_sub(start).min(self.local[d] as u64) as u32
        });
        if actual == self.local && self.local.iter().all(|&v| v >= 1) {
            // A full work-group: its first lx·ly·lz linear lanes are work-items.
            let total = lx as u64 * ly as u64 * lz as u64;
            for warp in warps {
                let n = total.saturating_sub(warp as u64 * numt as u64).min(numt.min(32) as u64) as u32;
                f(warp, if n >= 32 { u32::MAX } else { (1u32 << n) - 1 });
            }
            return;
        }
        for warp in warps {
            let mut m = 0u32;
            for lane in 0..numt.min(32) {
                let [x, y, z] = local_id(warp * numt + lane, self.local);
                if z < lz && x < actual[0] && y < actual[1] && z < actual[2] {
                    m |= 1 << lane;
                }
            }
            f(warp, m);
        }
    }
}

/// The kernel metadata buffer contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metadata {
    pub entry: u32,
    pub arg_base: u32,
    pub range: NdRange,
    pub print_addr: u32,
    pub print_size: u32,
    pub pds_bytes_per_thread: u32,
}

impl Metadata {
    /// Serialises the 68-byte little-endian layout ([`md`] offsets). The global-size words
    /// (`KNL_GL_SIZE_X/Y/Z`) hold the NDRange's global size: `num_groups × local` for the
    /// reference stack's launches, the real (smaller) size of a non-uniform OpenCL NDRange.
    pub fn to_bytes(&self) -> [u8; METADATA_SIZE as usize] {
        let r = &self.range;
        let mut out = [0u8; METADATA_SIZE as usize];
        let mut put = |at: u32, w: u32| out[at as usize..at as usize + 4].copy_from_slice(&w.to_le_bytes());
        put(md::ENTRY, self.entry);
        put(md::ARG_BASE, self.arg_base);
        put(md::WORK_DIM, r.work_dim);
        for d in 0..3u32 {
            put(md::GL_SIZE + 4 * d, r.global[d as usize]);
            put(md::LC_SIZE + 4 * d, r.local[d as usize]);
            put(md::GL_OFFSET + 4 * d, r.offset[d as usize]);
        }
        put(md::PRINT_ADDR, self.print_addr);
        put(md::PRINT_SIZE, self.print_size);
        put(md::LDS_STACK_SIZE_PER_WF, WARP_STACK_BYTES);
        put(md::LDS_NON_STACK_SIZE, 0);
        put(md::PDS_SIZE_PER_THREAD, self.pds_bytes_per_thread);
        out
    }
}

/// A kernel argument as the device sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelArg {
    /// A `__global`/`__constant` pointer: the device address (0 = NULL).
    Pointer(u32),
    /// A `__local` pointer: the number of bytes to reserve.
    Local(u32),
    /// A by-value argument: its raw bytes.
    Value(Vec<u8>),
}

/// Why an argument list cannot be packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// The packed buffer exceeds 0xffff bytes.
    TooLarge(usize),
    /// `__local` arguments exceed the LDS window.
    LocalTooLarge(u64),
    /// A by-value argument has no bytes.
    EmptyValue(usize),
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgError::TooLarge(n) => write!(f, "kernel arguments need {n} bytes (limit {MAX_ARG_BUFFER})"),
            ArgError::LocalTooLarge(n) => write!(f, "__local arguments need {n} bytes, more than the LDS window"),
            ArgError::EmptyValue(i) => write!(f, "argument {i} has size 0"),
        }
    }
}
impl std::error::Error for ArgError {}

/// A packed argument buffer: the bytes the kernel reads (at [`md::ARG_BASE`]'s address) and, per
/// argument, what the launch must know about it (`__local` placement, the buffers the pointers
/// name, for the memory checker's labels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgBuffer {
    pub bytes: Vec<u8>,
    /// Per argument, in order.
    pub slots: Vec<ArgSlot>,
    /// Lowest LDS address used by `__local` arguments (0x8000_0000 when none).
    pub local_floor: u32,
    layout: ArgLayout,
}

/// What one packed argument is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgSlot {
    /// A `__global`/`__constant` pointer (its device address; 0 = NULL) at `offset`.
    Pointer { offset: u32, addr: u32 },
    /// A `__local` pointer: `size` bytes reserved at LDS address `addr`.
    Local { addr: u32, size: u32 },
    /// A by-value argument.
    Value,
}

impl ArgBuffer {
    /// Appends a pointer argument (the hidden program-scope variables pointer of
    /// [`crate::abi::globals`] is the last one); returns its index.
    pub fn push_pointer(&mut self, addr: u32) -> Result<usize, ArgError> {
        let at = self.layout.pointer();
        if self.layout.end() as usize > MAX_ARG_BUFFER {
            return Err(ArgError::TooLarge(self.layout.end() as usize));
        }
        put(&mut self.bytes, at as usize, &addr.to_le_bytes());
        self.slots.push(ArgSlot::Pointer { offset: at, addr });
        Ok(self.slots.len() - 1)
    }

    /// Sets pointer argument `index` (a placeholder packed before the address was known) to
    /// `addr`; `false` when that argument is not a pointer.
    pub fn set_pointer(&mut self, index: usize, addr: u32) -> bool {
        let Some(ArgSlot::Pointer { offset, addr: old }) = self.slots.get_mut(index) else { return false };
        *old = addr;
        let at = *offset as usize;
        self.bytes[at..at + 4].copy_from_slice(&addr.to_le_bytes());
        true
    }

    /// The LDS addresses of the `__local` arguments, in argument order.
    pub fn local_addrs(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().filter_map(|s| match s {
            ArgSlot::Local { addr, .. } => Some(*addr),
            _ => None,
        })
    }
}

fn put(buf: &mut Vec<u8>, at: usize, data: &[u8]) {
    if buf.len() < at + data.len() {
        buf.resize(at + data.len(), 0);
    }
    buf[at..at + data.len()].copy_from_slice(data);
}

/// Static local-memory bytes assumed for a kernel whose resource record does not give them (the
/// official driver passes `ldsSize = 0x1000` whatever the kernel).
pub const DEFAULT_STATIC_LDS_BYTES: u32 = 0x1000;

/// The bottom part of the LDS window a work-group of `warps` warps uses: the warp stacks
/// (`sp = LDS + wid × stack`, the stack size from the resource record or the official crt0's
/// [`WARP_STACK_BYTES`]) followed by the kernel's static `__local` data (`s0 = LDS + numw ×
/// stack`). Returns `(stack bytes per warp, static bytes)`; the `__local` arguments are at the
/// top ([`pack_args`]).
pub fn lds_bottom(res: &super::elf::ResourceUsage) -> (u32, u32) {
    let clamp = |v: Option<u64>, default: u32| v.map_or(default, |v| v.min(super::LDS_SIZE as u64) as u32);
    (clamp(res.lds_stack, WARP_STACK_BYTES).max(WARP_STACK_BYTES), clamp(res.lds_bytes, DEFAULT_STATIC_LDS_BYTES))
}

/// The argument-buffer layout rule (pocl's), shared by the launch ([`pack_args`]) and the
/// compiler (which reads each parameter at its offset): pointers (global, constant, `__local`)
/// take 4 bytes at 4-byte alignment; values (scalars, vectors, by-value structs) are aligned to
/// the next power of two ≥ max(size, 4) (so a 12-byte struct is 16-aligned, a 20-byte one
/// 32-aligned). Arguments are placed in declaration order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArgLayout {
    end: u32,
}

impl ArgLayout {
    /// The offset of the next argument, a pointer.
    pub fn pointer(&mut self) -> u32 {
        self.place(4, 4)
    }
    /// The offset of the next argument, a value of `size` bytes.
    pub fn value(&mut self, size: u32) -> u32 {
        self.place(size, size.max(4).next_power_of_two())
    }
    fn place(&mut self, size: u32, align: u32) -> u32 {
        let at = self.end.next_multiple_of(align);
        self.end = at.saturating_add(size);
        at
    }
    /// The end of the arguments placed so far.
    pub fn end(&self) -> u32 {
        self.end
    }
}

/// Packs arguments by the [`ArgLayout`] rule. `__local` arguments are placed from the top of the
/// LDS window downwards, each taking `(size / 4096 + 1) × 4096` bytes.
pub fn pack_args(args: &[KernelArg]) -> Result<ArgBuffer, ArgError> {
    let mut b =
        ArgBuffer { bytes: Vec::new(), slots: Vec::new(), local_floor: PROGRAM_BASE, layout: ArgLayout::default() };
    let mut cursor = PROGRAM_BASE as u64;
    for (i, a) in args.iter().enumerate() {
        match a {
            KernelArg::Pointer(addr) => {
                b.push_pointer(*addr)?;
            }
            KernelArg::Local(size) => {
                let rounded = (*size as u64 / 4096 + 1) * 4096;
                cursor = cursor
                    .checked_sub(rounded)
                    .filter(|&c| c >= LDS_BASE as u64)
                    .ok_or(ArgError::LocalTooLarge(PROGRAM_BASE as u64 - cursor + rounded))?;
                let p = b.layout.pointer() as usize;
                put(&mut b.bytes, p, &(cursor as u32).to_le_bytes());
                b.slots.push(ArgSlot::Local { addr: cursor as u32, size: *size });
            }
            KernelArg::Value(v) => {
                if v.is_empty() {
                    return Err(ArgError::EmptyValue(i));
                }
                let size = u32::try_from(v.len()).map_err(|_| ArgError::TooLarge(v.len()))?;
                let p = b.layout.value(size) as usize;
                if b.layout.end() as usize > MAX_ARG_BUFFER {
                    return Err(ArgError::TooLarge(b.layout.end() as usize));
                }
                put(&mut b.bytes, p, v);
                b.slots.push(ArgSlot::Value);
            }
        }
        if b.layout.end() as usize > MAX_ARG_BUFFER {
            return Err(ArgError::TooLarge(b.layout.end() as usize));
        }
    }
    b.local_floor = cursor as u32;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_map_to_work_items_x_fastest() {
        let size = [4, 3, 2];
        let mut seen = std::collections::HashSet::new();
        for linear in 0..24 {
            let [x, y, z] = local_id(linear, size);
            assert_eq!(x + 4 * (y + 3 * z), linear);
            assert!(x < 4 && y < 3 && z < 2 && seen.insert((x, y, z)));
        }
        assert_eq!(local_id(7, [0, 0, 0]), [0, 0, 7], "a zero size counts as 1");
        assert_eq!(global_id([2, 1, 0], size, [3, 2, 1], [10, 0, 5]), [21, 5, 6]);
        assert_eq!(global_id([u32::MAX, 0, 0], [2, 1, 1], [1, 0, 0], [0; 3])[0], u32::MAX, "wrapping");
    }

    #[test]
    fn pocl_packing_rule() {
        let args = [
            KernelArg::Pointer(0x9000_0000),
            KernelArg::Value(vec![1]),
            KernelArg::Value(vec![2; 8]),
            KernelArg::Value(vec![3; 12]),
            KernelArg::Local(1024),
            KernelArg::Value(vec![4; 20]),
            KernelArg::Local(4096),
        ];
        let b = pack_args(&args).unwrap();
        // ptr@0, char@4, long@8, 12-byte struct@16, local@28, 20-byte struct@32, local@52
        assert_eq!(&b.bytes[0..4], &0x9000_0000u32.to_le_bytes());
        assert_eq!(b.bytes[4], 1);
        assert_eq!(&b.bytes[8..16], &[2; 8]);
        assert_eq!(&b.bytes[16..28], &[3; 12]);
        assert_eq!(&b.bytes[28..32], &0x7fff_f000u32.to_le_bytes());
        assert_eq!(&b.bytes[32..52], &[4; 20]);
        assert_eq!(&b.bytes[52..56], &0x7fff_d000u32.to_le_bytes());
        assert_eq!(b.local_addrs().collect::<Vec<_>>(), vec![0x7fff_f000, 0x7fff_d000]);
        // A pointer appended later (the hidden globals argument) lands where packing it with
        // the others would have put it, and can be set afterwards.
        let mut late = b.clone();
        let i = late.push_pointer(0).unwrap();
        assert!(late.set_pointer(i, 0x9000_2000) && !late.set_pointer(1, 5));
        let mut all = args.to_vec();
        all.push(KernelArg::Pointer(0x9000_2000));
        assert_eq!(late, pack_args(&all).unwrap());
        assert_eq!(pack_args(&[KernelArg::Value(vec![])]), Err(ArgError::EmptyValue(0)));
        assert!(matches!(pack_args(&[KernelArg::Value(vec![0; 0x10000])]), Err(ArgError::TooLarge(_))));
    }
    #[test]
    fn metadata_layout() {
        let g = NdRange::whole_groups(2, [2, 3, 1], [4, 4, 1], [1, 2, 0]);
        let m = Metadata {
            entry: 0x8000_00b8,
            arg_base: 0x9000_1000,
            range: g,
            print_addr: 7,
            print_size: 8,
            pds_bytes_per_thread: 4096,
        };
        let b = m.to_bytes();
        let w = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!((w(0), w(1), w(2)), (0x8000_00b8, 0x9000_1000, 2));
        assert_eq!((w(3), w(4), w(5)), (8, 12, 1));
        assert_eq!((w(6), w(7), w(9), w(10)), (4, 4, 1, 2));
        assert_eq!((w(12), w(13), w(14), w(15), w(16)), (7, 8, 1024, 0, 4096));
        assert_eq!(g.warps_per_group(8), 2);
        assert_eq!(g.warps_per_group(32), 1);
        // A non-uniform NDRange: the real global size; the other words as for whole groups.
        let r = NdRange { work_dim: 2, global: [7, 10, 1], local: [4, 4, 1], offset: [1, 2, 0] };
        assert_eq!((r.num_groups(), r.is_uniform()), ([2, 3, 1], false));
        let nb = Metadata { range: r, ..m }.to_bytes();
        let nw = |i: usize| u32::from_le_bytes(nb[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!((nw(3), nw(4), nw(5)), (7, 10, 1));
        assert_eq!(&nb[24..], &b[24..]);
        assert_eq!(&nb[..12], &b[..12]);
    }
}
