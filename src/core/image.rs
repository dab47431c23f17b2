//! Image objects (OpenCL 3.0 §5.3) and samplers (§5.7).
//!
//! Contracts:
//! * An image is a memory object ([`Mem`] with [`Mem::image`] set) whose bytes are its pixels,
//!   laid out with the row and slice pitches `clGetImageInfo` reports: the pitches the
//!   application gave with a host pointer (so `CL_MEM_USE_HOST_PTR` memory and device memory
//!   share one layout), otherwise tightly packed. An image created from a buffer
//!   (`image1d_buffer_t`, a 2D image from a buffer) shares the buffer's storage and holds it as
//!   its parent.
//! * Each image owns a device descriptor (`abi::image_desc`) written once at creation; a kernel
//!   argument of image type receives its address ([`Mem::kernel_address`]).
//! * Positions and regions of the host commands are in pixels on the image's addressing grid
//!   ([`Image::grid`]): x, then y (rows, or a 1D array's layers), then z (slices, or a 2D
//!   array's layers); [`Image::side`] turns an origin into the byte rectangle of
//!   `core::memory`'s rect transfers.
//! * A sampler is immutable: its properties and the `CLK_*` word kernels receive.

use super::context::Context;
use super::image_format;
use super::memory::{Mem, RectSide};
use super::platform;
/// Image kinds, as the API layer's checks see them.
pub use crate::abi::image_desc::Kind;
use crate::abi::image_desc::{self, Descriptor};
use crate::cl::object::{handle_type, Ref};
use crate::cl::*;
use crate::device::{Buffer, Placement};

/// An image's shape and format (the memory object holds its pixels).
pub struct Image {
    pub format: cl_image_format,
    /// `CL_MEM_OBJECT_IMAGE2D`…
    pub mem_type: cl_mem_object_type,
    pub width: usize,
    /// 1 for 1D kinds (`clGetImageInfo` reports 0 for them).
    pub height: usize,
    /// 1 unless 3D (reported as 0 then).
    pub depth: usize,
    /// 0 unless an array.
    pub array_size: usize,
    /// `CL_IMAGE_ROW_PITCH`.
    pub row_pitch: usize,
    /// `CL_IMAGE_SLICE_PITCH` (0 for 1D and 2D images).
    pub slice_pitch: usize,
    /// `CL_IMAGE_ELEMENT_SIZE`.
    pub pixel_bytes: usize,
    /// The device descriptor (freed with the memory object).
    pub descriptor: Buffer,
}

/// The shape of an image to create, validated by the caller against the device limits.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub mem_type: cl_mem_object_type,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    /// Pitches in bytes (0: tightly packed).
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

/// The abi kind of an image type (`None`: not an image type).
pub fn kind_of(mem_type: cl_mem_object_type) -> Option<Kind> {
    Some(match mem_type {
        CL_MEM_OBJECT_IMAGE1D => Kind::Image1D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER => Kind::Image1DBuffer,
        CL_MEM_OBJECT_IMAGE1D_ARRAY => Kind::Image1DArray,
        CL_MEM_OBJECT_IMAGE2D => Kind::Image2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY => Kind::Image2DArray,
        CL_MEM_OBJECT_IMAGE3D => Kind::Image3D,
        _ => return None,
    })
}

impl Shape {
    /// The shape with unused dimensions normalised (height/depth 1, array size 0 where the type
    /// has none) and the pitches defaulted; `None` if the pitches are invalid for `pixel_bytes`.
    pub fn resolved(&self, pixel_bytes: usize) -> Option<Shape> {
        let kind = kind_of(self.mem_type)?;
        let mut s = *self;
        let one_d = matches!(kind, Kind::Image1D | Kind::Image1DBuffer | Kind::Image1DArray);
        if one_d {
            s.height = 1;
        }
        if kind != Kind::Image3D {
            s.depth = 1;
        }
        if !matches!(kind, Kind::Image1DArray | Kind::Image2DArray) {
            s.array_size = 0;
        }
        let min_row = s.width.checked_mul(pixel_bytes)?;
        s.row_pitch = if self.row_pitch == 0 { min_row } else { self.row_pitch };
        if s.row_pitch < min_row || s.row_pitch % pixel_bytes != 0 {
            return None;
        }
        let layered = matches!(kind, Kind::Image1DArray | Kind::Image2DArray | Kind::Image3D);
        let min_slice = if kind == Kind::Image1DArray { s.row_pitch } else { s.row_pitch.checked_mul(s.height)? };
        s.slice_pitch = if !layered {
            0
        } else if self.slice_pitch == 0 {
            min_slice
        } else {
            self.slice_pitch
        };
        if layered && (s.slice_pitch < min_slice || s.slice_pitch % s.row_pitch != 0) {
            return None;
        }
        Some(s)
    }

    /// Bytes the pixels span.
    pub fn bytes(&self) -> Option<usize> {
        match kind_of(self.mem_type)? {
            Kind::Image1DArray => self.slice_pitch.checked_mul(self.array_size),
            Kind::Image2DArray => self.slice_pitch.checked_mul(self.array_size),
            Kind::Image3D => self.slice_pitch.checked_mul(self.depth),
            _ => self.row_pitch.checked_mul(self.height),
        }
    }
}

impl Image {
    pub fn kind(&self) -> Kind {
        kind_of(self.mem_type).unwrap_or(Kind::Image2D)
    }

    /// The addressing grid in pixels (see the module documentation).
    pub fn grid(&self) -> [usize; 3] {
        match self.kind() {
            Kind::Image1DArray => [self.width, self.array_size, 1],
            Kind::Image2DArray => [self.width, self.height, self.array_size],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// Bytes between grid rows (y) and grid slices (z).
    pub fn grid_pitches(&self) -> (usize, usize) {
        match self.kind() {
            Kind::Image1DArray => (self.slice_pitch, self.slice_pitch),
            _ => (self.row_pitch, self.slice_pitch.max(self.row_pitch * self.height)),
        }
    }

    /// `CL_INVALID_VALUE` unless `origin + region` lies inside the grid and no region is 0
    /// (so unused dimensions need origin 0 and region 1, as the spec requires).
    pub fn check_region(&self, origin: [usize; 3], region: [usize; 3]) -> CLResult<()> {
        let g = self.grid();
        for k in 0..3 {
            let end = origin[k].checked_add(region[k]).ok_or(CL_INVALID_VALUE)?;
            if region[k] == 0 || end > g[k] {
                return Err(CL_INVALID_VALUE);
            }
        }
        Ok(())
    }

    /// The device side of a rect transfer starting at pixel `origin`.
    pub fn side(&self, origin: [usize; 3]) -> RectSide {
        let (row, slice) = self.grid_pitches();
        RectSide { origin: [origin[0] * self.pixel_bytes, origin[1], origin[2]], row_pitch: row, slice_pitch: slice }
    }

    /// A region in pixels as the rect transfers' byte region.
    pub fn byte_region(&self, region: [usize; 3]) -> [usize; 3] {
        [region[0] * self.pixel_bytes, region[1], region[2]]
    }
}

/// Where an image's pixels live.
pub enum Storage<'a> {
    /// A new device allocation, initialised from `init` (laid out with the shape's pitches) and
    /// mirroring `host` (`CL_MEM_USE_HOST_PTR`).
    New { init: Option<&'a [u8]>, host: Option<super::memory::HostMemory>, properties: Vec<cl_mem_properties> },
    /// The storage of a buffer (a 1D image buffer, a 2D image from a buffer).
    Buffer(&'a Ref<Mem>),
}

/// Creates an image in `context`. Validation of flags, format and limits is the caller's.
pub fn create(
    context: Ref<Context>,
    flags: cl_mem_flags,
    format: cl_image_format,
    shape: Shape,
    storage: Storage,
) -> CLResult<Mem> {
    let pixel_bytes = image_format::pixel_bytes(&format).ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    let s = shape.resolved(pixel_bytes).ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    let size = s.bytes().ok_or(CL_INVALID_IMAGE_SIZE)?;
    let mut mem = match storage {
        Storage::Buffer(b) => {
            if size > b.size {
                return Err(CL_INVALID_IMAGE_SIZE);
            }
            Mem::alias(b, flags, 0, size)?
        }
        Storage::New { init, host, properties } => Mem::buffer(context, flags, size, init, host, properties)?,
    };
    let memory = &platform::device().memory;
    let descriptor = memory.alloc(image_desc::BYTES, Placement::Plain).map_err(|_| CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
    let kind = kind_of(s.mem_type).ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    let d = Descriptor {
        kind,
        data: mem.device_address(),
        width: s.width as u32,
        height: s.height as u32,
        depth: s.depth as u32,
        array_size: s.array_size as u32,
        row_pitch: if kind == Kind::Image1DArray { s.slice_pitch } else { s.row_pitch } as u32,
        slice_pitch: s.slice_pitch as u32,
        order: format.image_channel_order,
        data_type: format.image_channel_data_type,
        pixel_bytes: pixel_bytes as u32,
        channels: image_format::stored_channels(&format).unwrap_or(1) as u32,
    };
    descriptor.write(descriptor.base(), &d.to_bytes());
    mem.image = Some(Image {
        format,
        mem_type: s.mem_type,
        width: s.width,
        height: s.height,
        depth: s.depth,
        array_size: s.array_size,
        row_pitch: s.row_pitch,
        slice_pitch: s.slice_pitch,
        pixel_bytes,
        descriptor,
    });
    Ok(mem)
}

/// A sampler object.
pub struct Sampler {
    pub context: Ref<Context>,
    pub normalized: bool,
    pub addressing: cl_addressing_mode,
    pub filter: cl_filter_mode,
    /// `CL_SAMPLER_PROPERTIES` as given (empty for `clCreateSampler`).
    pub properties: Vec<cl_sampler_properties>,
}

handle_type!(Sampler, Sampler, cl_sampler, CL_INVALID_SAMPLER);

impl Sampler {
    /// The word a kernel receives (`abi::image_desc::sampler`).
    pub fn word(&self) -> u32 {
        let mode = match self.addressing {
            CL_ADDRESS_CLAMP_TO_EDGE => 1,
            CL_ADDRESS_CLAMP => 2,
            CL_ADDRESS_REPEAT => 3,
            CL_ADDRESS_MIRRORED_REPEAT => 4,
            _ => 0,
        };
        image_desc::sampler::from_spirv(mode, self.normalized, self.filter == CL_FILTER_LINEAR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(t: cl_mem_object_type, w: usize, h: usize, d: usize, a: usize) -> Shape {
        Shape { mem_type: t, width: w, height: h, depth: d, array_size: a, row_pitch: 0, slice_pitch: 0 }
    }

    #[test]
    fn shapes_default_their_pitches() {
        let s = shape(CL_MEM_OBJECT_IMAGE2D, 5, 3, 9, 9).resolved(4).unwrap();
        assert_eq!((s.row_pitch, s.slice_pitch, s.depth, s.array_size), (20, 0, 1, 0));
        assert_eq!(s.bytes(), Some(60));
        let s = shape(CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 7, 1, 4).resolved(2).unwrap();
        assert_eq!((s.height, s.row_pitch, s.slice_pitch, s.bytes()), (1, 10, 10, Some(40)));
        let s = shape(CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0).resolved(1).unwrap();
        assert_eq!((s.row_pitch, s.slice_pitch, s.bytes()), (4, 12, Some(24)));
        // A row pitch below width × pixel size, or not a multiple of the pixel size.
        assert!(Shape { row_pitch: 19, ..shape(CL_MEM_OBJECT_IMAGE2D, 5, 3, 1, 0) }.resolved(4).is_none());
        assert!(Shape { row_pitch: 22, ..shape(CL_MEM_OBJECT_IMAGE2D, 5, 3, 1, 0) }.resolved(4).is_none());
        assert!(Shape { row_pitch: 24, ..shape(CL_MEM_OBJECT_IMAGE2D, 5, 3, 1, 0) }.resolved(4).is_some());
        // A slice pitch that is not a multiple of the row pitch.
        assert!(Shape { slice_pitch: 13, ..shape(CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0) }.resolved(1).is_none());
    }

    #[test]
    fn sampler_words() {
        let ctx = crate::cl::object::Obj::new(Context::new(vec![platform::device().clone()], Vec::new(), None));
        let s = Sampler {
            context: ctx,
            normalized: true,
            addressing: CL_ADDRESS_MIRRORED_REPEAT,
            filter: CL_FILTER_LINEAR,
            properties: Vec::new(),
        };
        assert_eq!(s.word(), 1 | 8 | 0x20);
    }
}
