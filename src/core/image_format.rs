//! Image formats (OpenCL 3.0 §5.3.1): which channel order / data type pairs the device offers,
//! their pixel sizes, and the host-side encoding of a fill colour (§5.3.5,
//! `clEnqueueFillImage`), which follows the same conversion rules as the device's `write_image*`
//! (`compiler/softlib/images.cl`: round to nearest even with saturation for normalized types,
//! half rounded to nearest even, integers saturated).
//!
//! Contract: a format is listed by [`supported`] only if the device library reads, samples and
//! writes it and the host commands copy it; [`is_supported`] is the one test `clCreateImage`
//! applies (`CL_IMAGE_FORMAT_NOT_SUPPORTED`). Depth formats (`cl_khr_depth_images`: CL_DEPTH
//! with CL_UNORM_INT16 or CL_FLOAT) exist for 2D images and 2D image arrays only.

#![allow(non_upper_case_globals)] // CL_Rx, CL_sRGBA…: OpenCL's own names

use crate::cl::*;

/// Data types of the plain (one element per channel) formats.
const PLAIN_TYPES: [cl_channel_type; 12] = [
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
];

/// Data types of CL_INTENSITY and CL_LUMINANCE (float-read types only).
const FLOAT_READ_TYPES: [cl_channel_type; 6] =
    [CL_SNORM_INT8, CL_SNORM_INT16, CL_UNORM_INT8, CL_UNORM_INT16, CL_HALF_FLOAT, CL_FLOAT];

/// Data types of the 8-bit-only orders (CL_BGRA, CL_ARGB, CL_ABGR).
const BYTE_TYPES: [cl_channel_type; 4] = [CL_UNORM_INT8, CL_SNORM_INT8, CL_SIGNED_INT8, CL_UNSIGNED_INT8];

/// Packed types (three channels in one element; CL_RGB only).
const PACKED_TYPES: [cl_channel_type; 3] = [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010];

/// The data types of CL_DEPTH (`cl_khr_depth_images`).
const DEPTH_TYPES: [cl_channel_type; 2] = [CL_UNORM_INT16, CL_FLOAT];

/// Every (order, type) pair offered, and whether it may be written by a kernel.
fn table() -> Vec<(cl_channel_order, cl_channel_type, bool)> {
    let mut t = Vec::new();
    for order in [CL_R, CL_A, CL_RG, CL_RA, CL_RGBA] {
        t.extend(PLAIN_TYPES.iter().map(|&ty| (order, ty, true)));
    }
    for order in [CL_INTENSITY, CL_LUMINANCE] {
        t.extend(FLOAT_READ_TYPES.iter().map(|&ty| (order, ty, true)));
    }
    for order in [CL_BGRA, CL_ARGB, CL_ABGR] {
        t.extend(BYTE_TYPES.iter().map(|&ty| (order, ty, true)));
    }
    t.extend(PACKED_TYPES.iter().map(|&ty| (CL_RGB, ty, true)));
    // sRGB is read-only: writing it needs cl_khr_srgb_image_writes, which is not offered.
    t.push((CL_sRGBA, CL_UNORM_INT8, false));
    t.push((CL_sBGRA, CL_UNORM_INT8, false));
    t.extend(DEPTH_TYPES.iter().map(|&ty| (CL_DEPTH, ty, true)));
    t
}

/// Whether images of `image_type` may have channel order `order` (depth: 2D and 2D arrays).
fn order_allowed(order: cl_channel_order, image_type: cl_mem_object_type) -> bool {
    order != CL_DEPTH || matches!(image_type, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY)
}

/// Whether `flags` ask for kernel writes (write-only, read-write or kernel read-and-write).
fn writes(flags: cl_mem_flags) -> bool {
    flags & CL_MEM_READ_ONLY == 0 || flags & CL_MEM_KERNEL_READ_AND_WRITE != 0
}

/// The formats offered for images of `image_type` created with `flags`
/// (`clGetSupportedImageFormats`).
pub fn supported(flags: cl_mem_flags, image_type: cl_mem_object_type) -> Vec<cl_image_format> {
    table()
        .into_iter()
        .filter(|&(o, _, w)| (w || !writes(flags)) && order_allowed(o, image_type))
        .map(|(o, t, _)| cl_image_format { image_channel_order: o, image_channel_data_type: t })
        .collect()
}

/// Whether `f` is offered for images of `image_type` created with `flags`.
pub fn is_supported(f: &cl_image_format, flags: cl_mem_flags, image_type: cl_mem_object_type) -> bool {
    supported(flags, image_type).iter().any(|g| {
        g.image_channel_order == f.image_channel_order && g.image_channel_data_type == f.image_channel_data_type
    })
}

/// Channels of an order (`None`: not an order).
pub fn channels(order: cl_channel_order) -> Option<usize> {
    Some(match order {
        CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH | CL_Rx => 1,
        CL_RG | CL_RA | CL_RGx => 2,
        CL_RGB | CL_RGBx | CL_sRGB | CL_sRGBx => 3,
        CL_RGBA | CL_BGRA | CL_ARGB | CL_ABGR | CL_sRGBA | CL_sBGRA => 4,
        _ => return None,
    })
}

/// Bytes of one element of a data type (`None`: not a type).
fn elem_bytes(ty: cl_channel_type) -> Option<usize> {
    Some(match ty {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT | CL_UNORM_INT_101010 => 4,
        _ => return None,
    })
}

fn is_packed(ty: cl_channel_type) -> bool {
    PACKED_TYPES.contains(&ty)
}

/// Elements stored per pixel (1 for the packed types).
pub fn stored_channels(f: &cl_image_format) -> Option<usize> {
    if is_packed(f.image_channel_data_type) {
        return Some(1);
    }
    channels(f.image_channel_order)
}

/// Bytes per pixel (`CL_IMAGE_ELEMENT_SIZE`), `None` for an invalid order or type, a packed
/// type with an order other than RGB/RGBx, or CL_DEPTH with a type other than CL_UNORM_INT16
/// or CL_FLOAT (the only two the order allows).
pub fn pixel_bytes(f: &cl_image_format) -> Option<usize> {
    if f.image_channel_order == CL_DEPTH && !DEPTH_TYPES.contains(&f.image_channel_data_type) {
        return None;
    }
    let e = elem_bytes(f.image_channel_data_type)?;
    let n = channels(f.image_channel_order)?;
    if is_packed(f.image_channel_data_type) {
        return matches!(f.image_channel_order, CL_RGB | CL_RGBx).then_some(e);
    }
    Some(e * n)
}

/// (r, g, b, a) to the stored channel order (the x channels stored as 0).
fn to_storage(order: cl_channel_order, c: [u32; 4]) -> [u32; 4] {
    match order {
        CL_A => [c[3], 0, 0, 0],
        CL_RA => [c[0], c[3], 0, 0],
        CL_BGRA | CL_sBGRA => [c[2], c[1], c[0], c[3]],
        CL_ARGB => [c[3], c[0], c[1], c[2]],
        CL_ABGR => [c[3], c[2], c[1], c[0]],
        CL_Rx => [c[0], 0, 0, 0],
        CL_RGx => [c[0], c[1], 0, 0],
        CL_RGBx | CL_sRGBx => [c[0], c[1], c[2], 0],
        _ => c,
    }
}

/// Round to nearest even, then saturate to `[lo, hi]` (NaN → 0), as `convert_T_sat_rte`.
fn sat_rte(f: f32, lo: f32, hi: f32) -> i64 {
    if f.is_nan() {
        return 0;
    }
    f.round_ties_even().clamp(lo, hi) as i64
}

/// The linear → sRGB transfer of §8.3.5.
fn linear_to_srgb(c: f32) -> f32 {
    let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
    if c < 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// The pixel bytes of colour `color` (`cl_float4`, `cl_int4` or `cl_uint4` bits, by the format's
/// type) in format `f`, or `None` for an invalid format.
pub fn encode(f: &cl_image_format, color: [u32; 4]) -> Option<Vec<u8>> {
    let ty = f.image_channel_data_type;
    let order = f.image_channel_order;
    let mut c = color;
    if matches!(order, CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA) {
        for v in &mut c[..3] {
            *v = linear_to_srgb(f32::from_bits(*v)).to_bits();
        }
    }
    let s = to_storage(order, c);
    let fl = |k: usize| f32::from_bits(s[k]);
    if is_packed(ty) {
        let q = |k: usize, max: f32| sat_rte(fl(k) * max, 0.0, max) as u32;
        let word = match ty {
            CL_UNORM_SHORT_565 => q(0, 31.0) << 11 | q(1, 63.0) << 5 | q(2, 31.0),
            CL_UNORM_SHORT_555 => q(0, 31.0) << 10 | q(1, 31.0) << 5 | q(2, 31.0),
            _ => q(0, 1023.0) << 20 | q(1, 1023.0) << 10 | q(2, 1023.0),
        };
        let n = elem_bytes(ty)?;
        return Some(word.to_le_bytes()[..n].to_vec());
    }
    let n = channels(order)?;
    let mut out = Vec::new();
    for (k, &bits) in s.iter().enumerate().take(n) {
        let e: u32 = match ty {
            CL_UNORM_INT8 => sat_rte(fl(k) * 255.0, 0.0, 255.0) as u32,
            CL_UNORM_INT16 => sat_rte(fl(k) * 65535.0, 0.0, 65535.0) as u32,
            CL_SNORM_INT8 => sat_rte(fl(k) * 127.0, -128.0, 127.0) as u32,
            CL_SNORM_INT16 => sat_rte(fl(k) * 32767.0, -32768.0, 32767.0) as u32,
            CL_HALF_FLOAT => half::f16::from_f32(fl(k)).to_bits() as u32,
            CL_FLOAT | CL_SIGNED_INT32 | CL_UNSIGNED_INT32 => bits,
            CL_SIGNED_INT8 => (bits as i32).clamp(-128, 127) as u32,
            CL_SIGNED_INT16 => (bits as i32).clamp(-32768, 32767) as u32,
            CL_UNSIGNED_INT8 => bits.min(255),
            CL_UNSIGNED_INT16 => bits.min(65535),
            _ => return None,
        };
        out.extend_from_slice(&e.to_le_bytes()[..elem_bytes(ty)?]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(o: cl_channel_order, t: cl_channel_type) -> cl_image_format {
        cl_image_format { image_channel_order: o, image_channel_data_type: t }
    }

    #[test]
    fn the_opencl_3_minimum_formats_are_offered() {
        let minimum = [
            CL_UNORM_INT8,
            CL_UNORM_INT16,
            CL_SIGNED_INT8,
            CL_SIGNED_INT16,
            CL_SIGNED_INT32,
            CL_UNSIGNED_INT8,
            CL_UNSIGNED_INT16,
            CL_UNSIGNED_INT32,
            CL_HALF_FLOAT,
            CL_FLOAT,
        ];
        for flags in [CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE, CL_MEM_KERNEL_READ_AND_WRITE] {
            for t in minimum {
                assert!(is_supported(&fmt(CL_RGBA, t), flags, CL_MEM_OBJECT_IMAGE2D));
                assert!(is_supported(&fmt(CL_R, t), flags, CL_MEM_OBJECT_IMAGE1D));
            }
            assert!(is_supported(&fmt(CL_BGRA, CL_UNORM_INT8), flags, CL_MEM_OBJECT_IMAGE3D));
        }
        let t2 = CL_MEM_OBJECT_IMAGE2D;
        assert!(is_supported(&fmt(CL_sRGBA, CL_UNORM_INT8), CL_MEM_READ_ONLY, t2));
        assert!(!is_supported(&fmt(CL_sRGBA, CL_UNORM_INT8), CL_MEM_WRITE_ONLY, t2));
        assert!(!is_supported(&fmt(CL_BGRA, CL_FLOAT), CL_MEM_READ_ONLY, t2));
    }

    #[test]
    fn depth_formats_are_offered_for_2d_images_and_arrays_only() {
        for flags in [CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE] {
            for ty in [CL_UNORM_INT16, CL_FLOAT] {
                for t in [CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY] {
                    assert!(is_supported(&fmt(CL_DEPTH, ty), flags, t));
                }
                for t in [
                    CL_MEM_OBJECT_IMAGE1D,
                    CL_MEM_OBJECT_IMAGE1D_ARRAY,
                    CL_MEM_OBJECT_IMAGE1D_BUFFER,
                    CL_MEM_OBJECT_IMAGE3D,
                ] {
                    assert!(!is_supported(&fmt(CL_DEPTH, ty), flags, t));
                    assert!(!supported(flags, t).iter().any(|f| f.image_channel_order == CL_DEPTH));
                }
            }
            assert!(!is_supported(&fmt(CL_DEPTH, CL_UNORM_INT8), flags, CL_MEM_OBJECT_IMAGE2D));
        }
        assert_eq!(pixel_bytes(&fmt(CL_DEPTH, CL_UNORM_INT16)), Some(2));
        assert_eq!(pixel_bytes(&fmt(CL_DEPTH, CL_FLOAT)), Some(4));
        assert_eq!(pixel_bytes(&fmt(CL_DEPTH, CL_HALF_FLOAT)), None);
    }

    #[test]
    fn pixel_sizes() {
        assert_eq!(pixel_bytes(&fmt(CL_RGBA, CL_FLOAT)), Some(16));
        assert_eq!(pixel_bytes(&fmt(CL_RG, CL_HALF_FLOAT)), Some(4));
        assert_eq!(pixel_bytes(&fmt(CL_RGB, CL_UNORM_SHORT_565)), Some(2));
        assert_eq!(pixel_bytes(&fmt(CL_RGB, CL_UNORM_INT_101010)), Some(4));
        assert_eq!(pixel_bytes(&fmt(CL_RGBA, CL_UNORM_SHORT_565)), None);
        assert_eq!(pixel_bytes(&fmt(0, CL_FLOAT)), None);
        assert_eq!(stored_channels(&fmt(CL_RGB, CL_UNORM_SHORT_555)), Some(1));
    }

    #[test]
    fn fill_colours_round_and_saturate_like_the_device() {
        let f = |x: f32| x.to_bits();
        // 0.5 * 255 = 127.5 rounds to even (128); 2.0 saturates; NaN is 0.
        assert_eq!(
            encode(&fmt(CL_RGBA, CL_UNORM_INT8), [f(0.5), f(2.0), f(f32::NAN), f(-1.0)]),
            Some(vec![128, 255, 0, 0])
        );
        assert_eq!(encode(&fmt(CL_BGRA, CL_UNORM_INT8), [f(1.0), f(0.0), f(0.0), f(1.0)]), Some(vec![0, 0, 255, 255]));
        assert_eq!(encode(&fmt(CL_R, CL_SIGNED_INT8), [(-300i32) as u32, 0, 0, 0]), Some(vec![0x80]));
        assert_eq!(encode(&fmt(CL_A, CL_UNSIGNED_INT16), [1, 2, 3, 70000]), Some(vec![0xff, 0xff]));
        assert_eq!(encode(&fmt(CL_R, CL_HALF_FLOAT), [f(1.0), 0, 0, 0]), Some(vec![0x00, 0x3c]));
        assert_eq!(encode(&fmt(CL_DEPTH, CL_UNORM_INT16), [f(0.5), 0, 0, 0]), Some(32768u16.to_le_bytes().to_vec()));
        assert_eq!(encode(&fmt(CL_DEPTH, CL_FLOAT), [f(0.25), 0, 0, 0]), Some(f(0.25).to_le_bytes().to_vec()));
        assert_eq!(
            encode(&fmt(CL_RGB, CL_UNORM_SHORT_565), [f(1.0), f(0.0), f(1.0), 0]),
            Some(0xf81fu16.to_le_bytes().to_vec())
        );
    }
}
