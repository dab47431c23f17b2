//! Kernel metadata carried in our ELFs (section [`SECTION`]): argument names, types, address
//! spaces and sizes (what `CL_KERNEL_ARG_*` queries and `clSetKernelArg` validation need), plus
//! kernel attributes. Official Ventus ELFs carry none; the driver then accepts arguments by size.
//!
//! Format (little-endian): `b"VKI2"` (or `b"VKI1"`, whose arguments have no kind word), `u32` kernel count, then per kernel: name, `u32` flags
//! (bit 0 reqd_work_group_size present, bit 1 work_group_size_hint present, bit 2
//! [`KernelInfo::grouping_free`]), `[u32; 3]` reqd,
//! `[u32; 3]` hint, vec_type_hint, attributes, `u32` private bytes per work-item, `u32` static
//! `__local` bytes, `u32` argument count, then per argument: name, type name, `u32` address space,
//! `u32` access qualifier, `u32` type-qualifier bits, `u32` size in bytes, `u32` [`ArgKind`]. Strings are a `u32`
//! length and UTF-8 bytes. Decoding never panics.

use super::bytes::{put_str, put_u32, ReadError, Reader};

/// ELF section holding the encoded table.
pub const SECTION: &str = ".ventus.kernel_info";

/// Address space of a kernel argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressSpace {
    Private = 0,
    Global = 1,
    Constant = 2,
    Local = 3,
}

/// Access qualifier (images/pipes; `None` for everything else).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    None = 0,
    ReadOnly = 1,
    WriteOnly = 2,
    ReadWrite = 3,
}

/// Type-qualifier bits (same values as `CL_KERNEL_ARG_TYPE_*`).
pub mod qualifier {
    pub const CONST: u32 = 1;
    pub const RESTRICT: u32 = 2;
    pub const VOLATILE: u32 = 4;
    pub const PIPE: u32 = 8;
}

/// What `clSetKernelArg` passes for an argument besides values, pointers and `__local` sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A value, a pointer or a `__local` size (told apart by the address space).
    Plain = 0,
    /// An image (`cl_mem`): the kernel receives its descriptor's address (`abi::image_desc`).
    Image = 1,
    /// A `sampler_t` (`cl_sampler`): the kernel receives its word (`abi::image_desc::sampler`).
    Sampler = 2,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgInfo {
    pub name: String,
    pub type_name: String,
    pub address_space: AddressSpace,
    pub access: Access,
    pub type_qualifiers: u32,
    /// Size of the value passed to `clSetKernelArg` (4 for pointers on this 32-bit device).
    pub size: u32,
    pub kind: ArgKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelInfo {
    pub name: String,
    pub args: Vec<ArgInfo>,
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: String,
    /// `CL_KERNEL_ATTRIBUTES` text.
    pub attributes: String,
    pub private_bytes: u32,
    pub local_bytes: u32,
    /// The kernel cannot observe how its work-items are grouped: it reads no local id, local
    /// size, group id or group count, has no barrier and no `__local` memory (static or
    /// argument). The driver may then pick any decomposition, a partial last work-group
    /// included (`core::launch`): for `local_work_size = NULL`, and in place of a given size
    /// that would leave lanes idle. Unknown (official ELFs, older tables): `false`.
    pub grouping_free: bool,
}

/// The symbol of kernel `kernel`'s *single-item variant*, when its ELF has one: the same kernel
/// compiled for work-groups of exactly one work-item (local ids 0, local sizes 1, group id =
/// global id − offset, group count = global size, no barriers), which is grouping-free. A
/// launch with local size 1×1×1 may run it under any grouping (`core::launch`); the compiler
/// emits it for kernels that observe their grouping only through work-item functions and
/// barriers (`compiler::pass::workitems::single_item_variant`). The leading `_` keeps it out of
/// the kernel list ([`super::elf::VentusElf::kernel_names`]).
pub fn single_item_symbol(kernel: &str) -> String {
    format!("__vt_one_item_{kernel}")
}

/// Why a table cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelInfoError {
    BadMagic,
    Truncated,
    BadString,
    BadEnum(u32),
}

impl std::fmt::Display for KernelInfoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelInfoError::BadMagic => write!(f, "kernel info: bad magic"),
            KernelInfoError::Truncated => write!(f, "kernel info: truncated"),
            KernelInfoError::BadString => write!(f, "kernel info: invalid UTF-8 string"),
            KernelInfoError::BadEnum(v) => write!(f, "kernel info: invalid enumeration value {v}"),
        }
    }
}
impl std::error::Error for KernelInfoError {}

/// Encodes a table.
pub fn encode(kernels: &[KernelInfo]) -> Vec<u8> {
    let mut out = b"VKI2".to_vec();
    put_u32(&mut out, kernels.len() as u32);
    for k in kernels {
        put_str(&mut out, &k.name);
        let flags = k.reqd_work_group_size.is_some() as u32
            | (k.work_group_size_hint.is_some() as u32) << 1
            | (k.grouping_free as u32) << 2;
        put_u32(&mut out, flags);
        for v in k.reqd_work_group_size.unwrap_or([0; 3]).into_iter().chain(k.work_group_size_hint.unwrap_or([0; 3])) {
            put_u32(&mut out, v);
        }
        put_str(&mut out, &k.vec_type_hint);
        put_str(&mut out, &k.attributes);
        put_u32(&mut out, k.private_bytes);
        put_u32(&mut out, k.local_bytes);
        put_u32(&mut out, k.args.len() as u32);
        for a in &k.args {
            put_str(&mut out, &a.name);
            put_str(&mut out, &a.type_name);
            put_u32(&mut out, a.address_space as u32);
            put_u32(&mut out, a.access as u32);
            put_u32(&mut out, a.type_qualifiers);
            put_u32(&mut out, a.size);
            put_u32(&mut out, a.kind as u32);
        }
    }
    out
}

impl From<ReadError> for KernelInfoError {
    fn from(e: ReadError) -> KernelInfoError {
        match e {
            ReadError::Truncated => KernelInfoError::Truncated,
            ReadError::BadText => KernelInfoError::BadString,
        }
    }
}

/// Decodes a table.
pub fn decode(bytes: &[u8]) -> Result<Vec<KernelInfo>, KernelInfoError> {
    let (rest, kinds) = match bytes.strip_prefix(b"VKI2") {
        Some(rest) => (rest, true),
        None => (bytes.strip_prefix(b"VKI1").ok_or(KernelInfoError::BadMagic)?, false),
    };
    let mut r = Reader::new(rest);
    let n = r.u32()?;
    let mut out = Vec::new();
    for _ in 0..n {
        let name = r.string()?;
        let flags = r.u32()?;
        let mut v = [0u32; 6];
        for x in &mut v {
            *x = r.u32()?;
        }
        let mut k = KernelInfo {
            name,
            reqd_work_group_size: (flags & 1 != 0).then_some([v[0], v[1], v[2]]),
            work_group_size_hint: (flags & 2 != 0).then_some([v[3], v[4], v[5]]),
            vec_type_hint: r.string()?,
            attributes: r.string()?,
            private_bytes: r.u32()?,
            local_bytes: r.u32()?,
            grouping_free: flags & 4 != 0,
            args: Vec::new(),
        };
        let nargs = r.u32()?;
        for _ in 0..nargs {
            let name = r.string()?;
            let type_name = r.string()?;
            let address_space = match r.u32()? {
                0 => AddressSpace::Private,
                1 => AddressSpace::Global,
                2 => AddressSpace::Constant,
                3 => AddressSpace::Local,
                x => return Err(KernelInfoError::BadEnum(x)),
            };
            let access = match r.u32()? {
                0 => Access::None,
                1 => Access::ReadOnly,
                2 => Access::WriteOnly,
                3 => Access::ReadWrite,
                x => return Err(KernelInfoError::BadEnum(x)),
            };
            let type_qualifiers = r.u32()?;
            let size = r.u32()?;
            let kind = match if kinds { r.u32()? } else { 0 } {
                0 => ArgKind::Plain,
                1 => ArgKind::Image,
                2 => ArgKind::Sampler,
                x => return Err(KernelInfoError::BadEnum(x)),
            };
            k.args.push(ArgInfo { name, type_name, address_space, access, type_qualifiers, size, kind });
        }
        out.push(k);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn round_trip_and_garbage() {
        let k = KernelInfo {
            name: "saxpy".into(),
            args: vec![
                ArgInfo {
                    name: "x".into(),
                    type_name: "float*".into(),
                    address_space: AddressSpace::Global,
                    access: Access::None,
                    type_qualifiers: qualifier::CONST,
                    size: 4,
                    kind: ArgKind::Plain,
                },
                ArgInfo {
                    name: "a".into(),
                    type_name: "float".into(),
                    address_space: AddressSpace::Private,
                    access: Access::None,
                    type_qualifiers: 0,
                    size: 4,
                    kind: ArgKind::Sampler,
                },
            ],
            reqd_work_group_size: Some([64, 1, 1]),
            attributes: "reqd_work_group_size(64,1,1)".into(),
            grouping_free: true,
            ..Default::default()
        };
        let bytes = encode(std::slice::from_ref(&k));
        assert_eq!(decode(&bytes).unwrap(), vec![k]);
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n]).is_err());
        }
        assert_eq!(decode(b"nope"), Err(KernelInfoError::BadMagic));
    }
}
