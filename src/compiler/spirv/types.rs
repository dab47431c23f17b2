//! SPIR-V types as the front end needs them: scalar leaves, sizes and alignment (OpenCL C layout:
//! natural alignment, 3-element vectors laid out like 4-element ones, `CPacked` structs packed).

use super::super::ir::{Space, Ty};
use super::super::CompileError;
use std::collections::HashMap;

/// A SPIR-V type, resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum SType {
    Void,
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Vector {
        elem: u32,
        count: u32,
    },
    Array {
        elem: u32,
        len: u32,
    },
    RuntimeArray {
        elem: u32,
    },
    Struct {
        members: Vec<u32>,
        packed: bool,
    },
    Pointer {
        space: Space,
        pointee: u32,
    },
    Function,
    /// `OpTypeImage`: a value is the address of the image's descriptor (`abi::image_desc`).
    /// `dim` is SPIR-V's Dim (0 1D, 1 2D, 2 3D, 5 Buffer), `access` its AccessQualifier
    /// (0 read-only, 1 write-only, 2 read-write).
    Image {
        dim: u32,
        arrayed: bool,
        access: u32,
    },
    /// `OpTypeSampler`: a value is the sampler word (`abi::image_desc::sampler`).
    Sampler,
    /// `OpTypeSampledImage`: an image and a sampler (two leaves).
    SampledImage {
        image: u32,
    },
    /// Opaque or unsupported (events, images, samplers…): carries the opcode name.
    Opaque(&'static str),
}

/// Largest size of a type (larger ones cannot fit the device's memory windows).
pub const MAX_TYPE_BYTES: u32 = 1 << 28;

/// The module's type table.
///
/// Pointers: an address is a 32-bit value (`Ty::Ptr`) in registers whatever the addressing
/// model. In a `Physical64` module ([`Types::wide_pointers`]) a pointer occupies 8 bytes in
/// memory (size and alignment 8, as the host's): its low word is the address, its high word is
/// written as 0 by a pointer store and ignored when read — device addresses, SVM ones
/// included, lie below 4 GiB (a byte copy, `OpCopyMemorySized`, moves both words as they are).
/// An image (a descriptor address) is stored like a pointer.
#[derive(Default)]
pub struct Types {
    pub map: HashMap<u32, SType>,
    /// The module is `Physical64`: pointers are 8 bytes in memory.
    pub wide_pointers: bool,
}

impl Types {
    pub fn get(&self, id: u32) -> Result<&SType, CompileError> {
        self.map.get(&id).ok_or(CompileError::InvalidSpirv(format!("unknown type id {id}")))
    }

    /// The scalar IR type of a scalar SPIR-V type.
    pub fn scalar(&self, id: u32) -> Result<Ty, CompileError> {
        Ok(match self.get(id)? {
            SType::Bool => Ty::I1,
            SType::Int { width: 8, .. } => Ty::I8,
            SType::Int { width: 16, .. } => Ty::I16,
            SType::Int { width: 32, .. } => Ty::I32,
            SType::Int { width: 64, .. } => Ty::I64,
            SType::Float { width: 32 } => Ty::F32,
            // A double is its IEEE bit pattern; `spirv::fp64` lowers the arithmetic.
            SType::Float { width: 64 } => Ty::I64,
            // A half is its IEEE bit pattern; `spirv::fp16` lowers the arithmetic.
            SType::Float { width: 16 } => Ty::I16,
            SType::Pointer { space, .. } => Ty::Ptr(*space),
            // `event_t` (async copies): a dummy 32-bit value.
            SType::Opaque("event_t") => Ty::I32,
            SType::Image { .. } => Ty::Ptr(Space::Global),
            SType::Sampler => Ty::I32,
            other => return Err(CompileError::InvalidSpirv(format!("type {other:?} is not a scalar"))),
        })
    }

    /// Scalar leaves of a type in order: (byte offset, type).
    pub fn leaves(&self, id: u32) -> Result<Vec<(u32, Ty)>, CompileError> {
        let mut out = Vec::new();
        self.collect(id, 0, &mut out)?;
        Ok(out)
    }

    fn collect(&self, id: u32, base: u32, out: &mut Vec<(u32, Ty)>) -> Result<(), CompileError> {
        match self.get(id)?.clone() {
            SType::Vector { elem, count } => {
                let es = self.size(elem)?;
                for i in 0..count {
                    self.collect(elem, base + i * es, out)?;
                }
            }
            SType::Array { elem, len } => {
                let es = self.stride(elem)?;
                if len > 4096 {
                    return Err(CompileError::unsupported("arrays of more than 4096 elements held in registers"));
                }
                for i in 0..len {
                    self.collect(elem, base + i * es, out)?;
                }
            }
            SType::Struct { members, .. } => {
                let offs = self.member_offsets(id)?;
                for (m, o) in members.iter().zip(offs) {
                    self.collect(*m, base + o, out)?;
                }
            }
            SType::SampledImage { .. } => {
                out.push((base, Ty::Ptr(Space::Global)));
                out.push((base + self.pointer_bytes(), Ty::I32));
            }
            _ => out.push((base, self.scalar(id)?)),
        }
        Ok(())
    }

    /// Number of scalar leaves.
    pub fn leaf_count(&self, id: u32) -> Result<usize, CompileError> {
        Ok(match self.get(id)?.clone() {
            SType::Vector { count, .. } => count as usize,
            SType::Array { elem, len } => self.leaf_count(elem)? * len as usize,
            SType::Struct { members, .. } => {
                let mut n = 0;
                for m in members {
                    n += self.leaf_count(m)?;
                }
                n
            }
            SType::SampledImage { .. } => 2,
            _ => 1,
        })
    }

    /// Leaf index range of member `index` of a composite.
    pub fn member_leaves(&self, id: u32, index: u32) -> Result<(usize, usize, u32), CompileError> {
        match self.get(id)?.clone() {
            SType::Vector { elem, count } | SType::Array { elem, len: count } => {
                if index >= count {
                    return Err(CompileError::InvalidSpirv(format!("composite index {index} out of range")));
                }
                let n = self.leaf_count(elem)?;
                Ok((index as usize * n, n, elem))
            }
            SType::Struct { members, .. } => {
                let mut start = 0;
                for (i, m) in members.iter().enumerate() {
                    let n = self.leaf_count(*m)?;
                    if i as u32 == index {
                        return Ok((start, n, *m));
                    }
                    start += n;
                }
                Err(CompileError::InvalidSpirv(format!("struct member {index} out of range")))
            }
            other => Err(CompileError::InvalidSpirv(format!("index into non-composite {other:?}"))),
        }
    }

    /// Size in bytes (OpenCL C rules).
    pub fn size(&self, id: u32) -> Result<u32, CompileError> {
        Ok(match self.get(id)?.clone() {
            SType::Bool => 1,
            SType::Int { width, .. } | SType::Float { width } => width / 8,
            SType::Pointer { .. } => self.pointer_bytes(),
            SType::Vector { elem, count } => self.size(elem)? * if count == 3 { 4 } else { count },
            SType::Array { elem, len } => self
                .stride(elem)?
                .checked_mul(len)
                .filter(|n| *n <= MAX_TYPE_BYTES)
                .ok_or(CompileError::Resources(format!("an array type of {len} elements is too large")))?,
            SType::Struct { members, packed } => {
                let offs = self.member_offsets(id)?;
                let end = match members.last() {
                    Some(m) => offs[offs.len() - 1].saturating_add(self.size(*m)?),
                    None => 0,
                };
                if packed {
                    end
                } else {
                    end.next_multiple_of(self.align(id)?)
                }
            }
            SType::Opaque("event_t") | SType::Sampler => 4,
            // A descriptor address: stored like a pointer (see above).
            SType::Image { .. } => self.pointer_bytes(),
            SType::SampledImage { .. } => 2 * self.pointer_bytes(),
            SType::RuntimeArray { .. } | SType::Void | SType::Function | SType::Opaque(_) => 0,
        })
    }

    /// Bytes a pointer occupies in memory (4, or 8 in a `Physical64` module).
    pub fn pointer_bytes(&self) -> u32 {
        if self.wide_pointers {
            8
        } else {
            4
        }
    }

    /// Array stride of an element type.
    pub fn stride(&self, id: u32) -> Result<u32, CompileError> {
        Ok(self.size(id)?.next_multiple_of(self.align(id)?.max(1)))
    }

    /// Alignment in bytes.
    pub fn align(&self, id: u32) -> Result<u32, CompileError> {
        Ok(match self.get(id)?.clone() {
            SType::Vector { .. } => self.size(id)?,
            SType::Array { elem, .. } | SType::RuntimeArray { elem } => self.align(elem)?,
            SType::Struct { members, packed } => {
                if packed {
                    1
                } else {
                    let mut a = 1;
                    for m in members {
                        a = a.max(self.align(m)?);
                    }
                    a
                }
            }
            _ => self.size(id)?.max(1),
        })
    }

    /// Byte offsets of a struct's members.
    pub fn member_offsets(&self, id: u32) -> Result<Vec<u32>, CompileError> {
        let SType::Struct { members, packed } = self.get(id)?.clone() else {
            return Err(CompileError::InvalidSpirv("member offsets of a non-struct".into()));
        };
        let mut off = 0u32;
        let mut out = Vec::new();
        for m in members {
            if !packed {
                off = off.next_multiple_of(self.align(m)?);
            }
            out.push(off);
            off = off
                .checked_add(self.size(m)?)
                .filter(|n| *n <= MAX_TYPE_BYTES)
                .ok_or(CompileError::Resources("a struct type is too large".into()))?;
        }
        Ok(out)
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, id: u32) -> Result<(Space, u32), CompileError> {
        match self.get(id)? {
            SType::Pointer { space, pointee } => Ok((*space, *pointee)),
            other => Err(CompileError::InvalidSpirv(format!("expected a pointer type, found {other:?}"))),
        }
    }
}
