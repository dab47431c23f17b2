//! Program-scope global variables (OpenCL C 2.0/3.0 `global int x = 1;`, `static global` in
//! functions): the contract between the compiler, the ELF and the runtime.
//!
//! * **Storage.** The variables of a program live in one writable device block, the *globals
//!   block*, separate from the program window (which is reloaded before every work-group and may
//!   become read-only). The block is owned by the program object (one per device): it is
//!   allocated and initialised from the [`GlobalsImage`] before the program's first launch, every
//!   kernel of the program shares it, its contents persist from launch to launch, and it is freed
//!   when the program object is released (or rebuilt).
//! * **Addressing.** Every kernel of a program whose ELF carries [`SECTION`] takes one *hidden
//!   trailing argument*: a `__global` pointer to the globals block, packed after the declared
//!   arguments by the ordinary argument rule (4-aligned, [`hidden_arg_offset`]). Kernels read it
//!   with a scalar load from the argument buffer and address a variable as `base + offset`.
//!   Programs without the section (every official binary) get no hidden argument.
//! * **Image.** The block's initial contents are `init` followed by zeros up to `size` bytes;
//!   then for each offset in `relocs` the 32-bit word there (the byte offset of a variable
//!   inside the block: the initialiser `global int *p = &x;`) gets the block's base address added.
//!
//! Section format (little-endian): `b"VGL1"`, `u32 size`, `u32 init_len`, `u32 reloc_count`,
//! `init_len` bytes, `reloc_count` × `u32` offsets. [`GlobalsImage::decode`] validates everything
//! (`init_len ≤ size`, relocations 4-aligned inside the block, no trailing bytes) and never panics.
//! Official tools ignore the section (it is not allocated: no `PT_LOAD` covers it).

/// ELF section holding the encoded image.
pub const SECTION: &str = ".ventus.globals";

/// Largest single program-scope variable (`CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE`).
pub const MAX_VARIABLE_SIZE: u32 = 64 * 1024;
/// Largest globals block of a program (the largest device allocation).
pub const MAX_TOTAL_SIZE: u32 = 256 << 20;

const MAGIC: &[u8; 4] = b"VGL1";

/// The initial contents of a program's globals block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalsImage {
    /// Bytes of the block (`CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE`).
    pub size: u32,
    /// Initial bytes (the rest of the block is zero); never longer than `size`.
    pub init: Vec<u8>,
    /// Offsets of 32-bit words that hold block offsets and get the block's address added.
    pub relocs: Vec<u32>,
}

/// Why a section cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalsError {
    BadMagic,
    Truncated,
    /// Initial bytes longer than the block, a block beyond [`MAX_TOTAL_SIZE`], or a relocation
    /// outside the block or not 4-aligned.
    BadLayout,
    TrailingBytes,
}

impl std::fmt::Display for GlobalsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GlobalsError::BadMagic => write!(f, "globals image: bad magic"),
            GlobalsError::Truncated => write!(f, "globals image: truncated"),
            GlobalsError::BadLayout => write!(f, "globals image: inconsistent sizes or relocations"),
            GlobalsError::TrailingBytes => write!(f, "globals image: trailing bytes"),
        }
    }
}
impl std::error::Error for GlobalsError {}

/// Byte offset of the hidden globals-block argument for a kernel whose declared arguments end
/// at `declared_end` (the packed size of its argument buffer).
pub fn hidden_arg_offset(declared_end: u32) -> u32 {
    declared_end.next_multiple_of(4)
}

impl GlobalsImage {
    /// The image with trailing zero bytes of `init` dropped (they are implied by `size`).
    pub fn trimmed(mut self) -> GlobalsImage {
        let keep = self.init.iter().rposition(|b| *b != 0).map_or(0, |p| p + 1);
        self.init.truncate(keep);
        self
    }

    /// The block's contents for a block at device address `base`.
    pub fn contents(&self, base: u32) -> Vec<u8> {
        let mut out = self.init.clone();
        out.resize(self.size as usize, 0);
        for &at in &self.relocs {
            let at = at as usize;
            if let Some(w) = out.get_mut(at..at + 4) {
                let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]).wrapping_add(base);
                w.copy_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// The image an ELF carries in [`SECTION`], if any.
    pub fn from_elf(elf: &super::elf::VentusElf) -> Result<Option<GlobalsImage>, GlobalsError> {
        elf.sections.iter().find(|(n, _, _)| n == SECTION).map(|(_, _, data)| GlobalsImage::decode(data)).transpose()
    }

    /// Encodes the `VGL1` section.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for v in [self.size, self.init.len() as u32, self.relocs.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.init);
        for r in &self.relocs {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out
    }

    /// Decodes and validates a `VGL1` section.
    pub fn decode(bytes: &[u8]) -> Result<GlobalsImage, GlobalsError> {
        let mut r = super::bytes::Reader::new(bytes.strip_prefix(MAGIC).ok_or(GlobalsError::BadMagic)?);
        let mut u32_ = || r.u32().map_err(|_| GlobalsError::Truncated);
        let (size, init_len, nrelocs) = (u32_()?, u32_()?, u32_()?);
        let rest = r.rest();
        if init_len > size || size > MAX_TOTAL_SIZE {
            return Err(GlobalsError::BadLayout);
        }
        let need = init_len as u64 + 4 * nrelocs as u64;
        if (rest.len() as u64) < need {
            return Err(GlobalsError::Truncated);
        }
        if rest.len() as u64 > need {
            return Err(GlobalsError::TrailingBytes);
        }
        let (init, tail) = rest.split_at(init_len as usize);
        let relocs: Vec<u32> = tail.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if relocs.iter().any(|&r| r % 4 != 0 || r as u64 + 4 > size as u64) {
            return Err(GlobalsError::BadLayout);
        }
        Ok(GlobalsImage { size, init: init.to_vec(), relocs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_relocation_and_garbage() {
        let img = GlobalsImage { size: 32, init: vec![1, 0, 0, 0, 8, 0, 0, 0, 0, 0], relocs: vec![4] }.trimmed();
        assert_eq!(img.init, vec![1, 0, 0, 0, 8]);
        let bytes = img.encode();
        assert_eq!(GlobalsImage::decode(&bytes), Ok(img.clone()));
        for n in 0..bytes.len() {
            assert!(GlobalsImage::decode(&bytes[..n]).is_err(), "prefix {n}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(GlobalsImage::decode(&long), Err(GlobalsError::TrailingBytes));
        let c = img.contents(0x9000_1000);
        assert_eq!(c.len(), 32);
        assert_eq!(&c[..8], &[1, 0, 0, 0, 0x08, 0x10, 0x00, 0x90]);
        let bad = GlobalsImage { size: 8, init: vec![], relocs: vec![6] }.encode();
        assert_eq!(GlobalsImage::decode(&bad), Err(GlobalsError::BadLayout));
        let bad = GlobalsImage { size: 2, init: vec![1, 2, 3], relocs: vec![] }.encode();
        assert_eq!(GlobalsImage::decode(&bad), Err(GlobalsError::BadLayout));
        assert_eq!(hidden_arg_offset(13), 16);
        assert_eq!(hidden_arg_offset(0), 0);
    }
}
