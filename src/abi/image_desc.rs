//! The image and sampler contract between the driver, which creates image objects and sampler
//! arguments, and compiled kernels, whose image built-ins (`compiler/softlib/images.cl` and the
//! SPIR-V front end's `spirv/image.rs`) read them.
//!
//! * An image kernel argument is the device address of the image's **descriptor**: [`WORDS`]
//!   little-endian words (indices in [`word`]) that the driver writes when it creates the image
//!   and never changes afterwards. Pixels live at `word::DATA`; pixel `(x, y, z)` of the
//!   addressing grid starts at `DATA + x·PIXEL_BYTES + y·ROW_PITCH + z·SLICE_PITCH`, where the
//!   grid is `EXTENT_X × EXTENT_Y × EXTENT_Z`: a 1D array's layer is `y` (its `ROW_PITCH` is the
//!   layer pitch), a 2D array's layer is `z`.
//! * `ORDER` and `DATA_TYPE` hold the OpenCL enumerants (`CL_RGBA`, `CL_UNORM_INT8`…);
//!   SPIR-V's `OpImageQueryOrder`/`OpImageQueryFormat` return them minus [`ORDER_BASE`] /
//!   [`DATA_TYPE_BASE`] (the SPIR-V environment's numbering).
//! * A sampler is one word in the OpenCL C `CLK_*` layout ([`sampler`]), the same whether it
//!   comes from `clSetKernelArg` with a `cl_sampler` or from a `constant sampler_t` literal
//!   (`OpConstantSampler`, [`sampler::from_spirv`]).
//! * The library takes its word indices from [`library_prelude`], so this file is their only
//!   definition.

/// Words in a descriptor.
pub const WORDS: usize = 16;
/// Bytes in a descriptor.
pub const BYTES: u32 = WORDS as u32 * 4;

/// Word indices of the descriptor.
pub mod word {
    /// Device address of pixel (0, 0, 0).
    pub const DATA: usize = 0;
    /// `get_image_width`.
    pub const WIDTH: usize = 1;
    /// `get_image_height` (1 for 1D images).
    pub const HEIGHT: usize = 2;
    /// `get_image_depth` (1 unless 3D).
    pub const DEPTH: usize = 3;
    /// `get_image_array_size` (0 unless an array).
    pub const ARRAY_SIZE: usize = 4;
    /// Bytes between rows (between layers of a 1D array).
    pub const ROW_PITCH: usize = 5;
    /// Bytes between slices of a 3D image or layers of a 2D array.
    pub const SLICE_PITCH: usize = 6;
    /// `CL_R`, `CL_RGBA`…
    pub const ORDER: usize = 7;
    /// `CL_UNORM_INT8`, `CL_FLOAT`…
    pub const DATA_TYPE: usize = 8;
    /// Bytes per pixel.
    pub const PIXEL_BYTES: usize = 9;
    /// Channels stored per pixel (1 for the packed 565/555/101010 types, which hold 3 in one word).
    pub const CHANNELS: usize = 10;
    /// The addressing grid: x extent.
    pub const EXTENT_X: usize = 11;
    /// The addressing grid: y extent (layers for a 1D array).
    pub const EXTENT_Y: usize = 12;
    /// The addressing grid: z extent (layers for a 2D array).
    pub const EXTENT_Z: usize = 13;
    /// Coordinates a sampler filters and addresses (1, 2 or 3); the array layer is never one.
    pub const FILTER_DIMS: usize = 14;
    /// The grid axis that is the array layer: 0 none, 1 y (1D array), 2 z (2D array).
    pub const LAYER_AXIS: usize = 15;
}

/// `CL_R`: the SPIR-V channel-order enumerant is the OpenCL one minus this.
pub const ORDER_BASE: u32 = 0x10B0;
/// `CL_SNORM_INT8`: the SPIR-V channel-data-type enumerant is the OpenCL one minus this.
pub const DATA_TYPE_BASE: u32 = 0x10D0;

/// Image kinds (what `CL_MEM_TYPE` says), as the descriptor's shape encodes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Image1D,
    Image1DBuffer,
    Image1DArray,
    Image2D,
    Image2DArray,
    Image3D,
}

impl Kind {
    /// Coordinates a sampler filters (the layer excluded).
    pub fn filter_dims(self) -> u32 {
        match self {
            Kind::Image1D | Kind::Image1DBuffer | Kind::Image1DArray => 1,
            Kind::Image2D | Kind::Image2DArray => 2,
            Kind::Image3D => 3,
        }
    }

    /// The grid axis holding the layer (see [`word::LAYER_AXIS`]).
    pub fn layer_axis(self) -> u32 {
        match self {
            Kind::Image1DArray => 1,
            Kind::Image2DArray => 2,
            _ => 0,
        }
    }
}

/// An image's shape and storage, as the driver knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    pub kind: Kind,
    pub data: u32,
    pub width: u32,
    /// 1 for 1D kinds.
    pub height: u32,
    /// 1 unless 3D.
    pub depth: u32,
    /// 0 unless an array.
    pub array_size: u32,
    pub row_pitch: u32,
    pub slice_pitch: u32,
    pub order: u32,
    pub data_type: u32,
    pub pixel_bytes: u32,
    pub channels: u32,
}

impl Descriptor {
    /// The addressing grid (see the module documentation).
    pub fn extent(&self) -> [u32; 3] {
        match self.kind {
            Kind::Image1DArray => [self.width, self.array_size, 1],
            Kind::Image2DArray => [self.width, self.height, self.array_size],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// The descriptor's words.
    pub fn words(&self) -> [u32; WORDS] {
        let mut w = [0u32; WORDS];
        let e = self.extent();
        w[word::DATA] = self.data;
        w[word::WIDTH] = self.width;
        w[word::HEIGHT] = self.height;
        w[word::DEPTH] = self.depth;
        w[word::ARRAY_SIZE] = self.array_size;
        w[word::ROW_PITCH] = self.row_pitch;
        w[word::SLICE_PITCH] = self.slice_pitch;
        w[word::ORDER] = self.order;
        w[word::DATA_TYPE] = self.data_type;
        w[word::PIXEL_BYTES] = self.pixel_bytes;
        w[word::CHANNELS] = self.channels;
        w[word::EXTENT_X] = e[0];
        w[word::EXTENT_Y] = e[1];
        w[word::EXTENT_Z] = e[2];
        w[word::FILTER_DIMS] = self.kind.filter_dims();
        w[word::LAYER_AXIS] = self.kind.layer_axis();
        w
    }

    /// The descriptor as bytes in device memory.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// The sampler word (OpenCL C's `CLK_*` bits, `opencl-c-base.h`).
pub mod sampler {
    /// `CLK_NORMALIZED_COORDS_TRUE`.
    pub const NORMALIZED: u32 = 1;
    /// The addressing-mode field: `CLK_ADDRESS_NONE` 0, `_CLAMP_TO_EDGE` 2, `_CLAMP` 4,
    /// `_REPEAT` 6, `_MIRRORED_REPEAT` 8 (twice SPIR-V's SamplerAddressingMode).
    pub const ADDRESS_MASK: u32 = 0xE;
    /// `CLK_FILTER_NEAREST`.
    pub const FILTER_NEAREST: u32 = 0x10;
    /// `CLK_FILTER_LINEAR`.
    pub const FILTER_LINEAR: u32 = 0x20;

    /// The word of a sampler with SPIR-V addressing mode `mode` (0 None … 4 RepeatMirrored),
    /// `normalized` coordinates and filter `linear`.
    pub fn from_spirv(mode: u32, normalized: bool, linear: bool) -> u32 {
        (mode.min(4) << 1) | normalized as u32 | if linear { FILTER_LINEAR } else { FILTER_NEAREST }
    }

    /// The addressing-mode field of a word as SPIR-V's enumerant.
    pub fn mode(word: u32) -> u32 {
        (word & ADDRESS_MASK) >> 1
    }
}

/// `#define`s giving the device library (`compiler/softlib/images.cl`) the descriptor's word
/// indices.
pub fn library_prelude() -> String {
    let names = [
        ("DATA", word::DATA),
        ("WIDTH", word::WIDTH),
        ("HEIGHT", word::HEIGHT),
        ("DEPTH", word::DEPTH),
        ("ARRAY_SIZE", word::ARRAY_SIZE),
        ("ROW_PITCH", word::ROW_PITCH),
        ("SLICE_PITCH", word::SLICE_PITCH),
        ("ORDER", word::ORDER),
        ("DATA_TYPE", word::DATA_TYPE),
        ("PIXEL_BYTES", word::PIXEL_BYTES),
        ("CHANNELS", word::CHANNELS),
        ("EXTENT_X", word::EXTENT_X),
        ("EXTENT_Y", word::EXTENT_Y),
        ("EXTENT_Z", word::EXTENT_Z),
        ("FILTER_DIMS", word::FILTER_DIMS),
        ("LAYER_AXIS", word::LAYER_AXIS),
    ];
    let mut s: String = names.iter().map(|(n, i)| format!("#define VT_IMG_{n} {i}\n")).collect();
    s.push_str(&format!("#define VT_CHK_IMAGE_OUTSIDE {}\n", super::subroutine::IMAGE_OUTSIDE));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_put_the_layer_on_their_own_axis() {
        let d = Descriptor {
            kind: Kind::Image1DArray,
            data: 0x9000_0000,
            width: 7,
            height: 1,
            depth: 1,
            array_size: 5,
            row_pitch: 28,
            slice_pitch: 28,
            order: 0x10B5,
            data_type: 0x10D2,
            pixel_bytes: 4,
            channels: 4,
        };
        let w = d.words();
        assert_eq!([w[word::EXTENT_X], w[word::EXTENT_Y], w[word::EXTENT_Z]], [7, 5, 1]);
        assert_eq!((w[word::FILTER_DIMS], w[word::LAYER_AXIS]), (1, 1));
        let d2 = Descriptor { kind: Kind::Image2DArray, height: 3, ..d };
        assert_eq!(d2.extent(), [7, 3, 5]);
        assert_eq!(d2.to_bytes().len(), BYTES as usize);
    }

    #[test]
    fn sampler_words_match_the_clk_bits() {
        // CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR = 1 | 6 | 0x20.
        assert_eq!(sampler::from_spirv(3, true, true), 0x27);
        // CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST.
        assert_eq!(sampler::from_spirv(1, false, false), 0x12);
        assert_eq!(sampler::mode(0x27), 3);
    }
}
