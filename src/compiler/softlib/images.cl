// Images and samplers in software for the Ventus device (it has no texture unit).
//
// This file is OpenCL C, compiled once per process by the driver's own front end into a SPIR-V
// library module (softlib/mod.rs), after a prelude of `#define VT_IMG_*` word indices generated
// from abi/image_desc.rs (the descriptor's one definition). The SPIR-V translator
// (spirv/image.rs) lowers every image instruction of a kernel to an inlined call of one of the
// `__vt_img_*` functions below; an image is the address of its descriptor, a sampler is a word
// of CLK_* bits.
//
// Semantics: OpenCL C 3.0 §8 ("Image Addressing and Filtering") and §6.15.15.7 (missing
// channels, border colours). Cases the spec leaves undefined never touch memory outside the
// image: a read outside the addressing grid returns the border colour, a write there is dropped.
// A sampler-less read or a write outside the image first calls the checker hook
// VT_CHK_IMAGE_OUTSIDE (abi/subroutine.rs), which the memory checker turns into a report naming
// the image argument and the pixel; reads with a sampler are defined by its addressing mode and
// never call it.
// Rounding: normalized integers are decoded by a correctly rounded division (exact at 0 and at
// the maximum), encoded with round-to-nearest-even and saturation (the spec's preferred
// `convert_*_sat_rte`), half with round-to-nearest-even, sRGB per §8.3.5.

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL FP_CONTRACT OFF

typedef global const uint *vt_desc;

// OpenCL C 2.0's channel orders (the library is built as OpenCL C 1.2).
#ifndef CLK_sRGB
#define CLK_sRGB 0x10BF
#define CLK_sRGBx 0x10C0
#define CLK_sRGBA 0x10C1
#define CLK_sBGRA 0x10C2
#define CLK_ABGR 0x10C3
#endif

// Bytes of pixel (x, y, z) of the addressing grid.
static inline global uchar *vt_pixel(vt_desc d, int x, int y, int z) {
    uint a = d[VT_IMG_DATA] + (uint)x * d[VT_IMG_PIXEL_BYTES] + (uint)y * d[VT_IMG_ROW_PITCH] +
             (uint)z * d[VT_IMG_SLICE_PITCH];
    return (global uchar *)(uintptr_t)a;
}

static inline bool vt_inside(vt_desc d, int x, int y, int z) {
    return (uint)x < d[VT_IMG_EXTENT_X] && (uint)y < d[VT_IMG_EXTENT_Y] && (uint)z < d[VT_IMG_EXTENT_Z];
}

// The checker hook (an out-of-line level-2 routine): called for an access outside the image
// with the descriptor's address, the grid position and 1 for a write; returns whether the access
// goes ahead — never: a descriptor's channel count is at most 4, so the result is 0. The body
// reads the descriptor through a volatile pointer and uses every argument, so clang neither
// removes a call nor passes undefined values for arguments it would find unused (the memory
// checker's host call reads them); the Ventus compiler never removes a hook's call.
__attribute__((noinline)) uint VT_CHK_IMAGE_OUTSIDE(uint desc, int x, int y, int z, uint write) {
    uint channels = ((volatile global const uint *)(uintptr_t)desc)[VT_IMG_CHANNELS];
    return channels > 4u && x == y && z == (int)write;
}

// Reports an access outside the image at grid position `g` to the checker hook; whether the
// access goes ahead (never).
static inline bool vt_outside_proceeds(vt_desc d, int4 g, uint write) {
    return VT_CHK_IMAGE_OUTSIDE((uint)(uintptr_t)d, g.x, g.y, g.z, write) != 0;
}

static inline bool vt_is_int_type(uint t) {
    return t >= CLK_SIGNED_INT8 && t <= CLK_UNSIGNED_INT32;
}

static inline bool vt_is_srgb(uint o) {
    return o == CLK_sRGB || o == CLK_sRGBx || o == CLK_sRGBA || o == CLK_sBGRA;
}

// ---- storage elements --------------------------------------------------------------------

// Bytes per stored element (a whole pixel for the packed types).
static inline uint vt_elem_bytes(vt_desc d) {
    return d[VT_IMG_PIXEL_BYTES] / d[VT_IMG_CHANNELS];
}

static inline uint vt_load_elem(global uchar *p, uint size, uint i) {
    if (size == 1)
        return p[i];
    if (size == 2)
        return ((global ushort *)p)[i];
    return ((global uint *)p)[i];
}

static inline void vt_store_elem(global uchar *p, uint size, uint i, uint v) {
    if (size == 1)
        p[i] = (uchar)v;
    else if (size == 2)
        ((global ushort *)p)[i] = (ushort)v;
    else
        ((global uint *)p)[i] = v;
}

// The stored elements of a pixel (unused ones 0).
static uint4 vt_load_raw(vt_desc d, global uchar *p) {
    uint n = d[VT_IMG_CHANNELS];
    uint size = vt_elem_bytes(d);
    uint4 r = (uint4)(0);
    r.x = vt_load_elem(p, size, 0);
    if (n > 1)
        r.y = vt_load_elem(p, size, 1);
    if (n > 2)
        r.z = vt_load_elem(p, size, 2);
    if (n > 3)
        r.w = vt_load_elem(p, size, 3);
    return r;
}

static void vt_store_raw(vt_desc d, global uchar *p, uint4 r) {
    uint n = d[VT_IMG_CHANNELS];
    uint size = vt_elem_bytes(d);
    vt_store_elem(p, size, 0, r.x);
    if (n > 1)
        vt_store_elem(p, size, 1, r.y);
    if (n > 2)
        vt_store_elem(p, size, 2, r.z);
    if (n > 3)
        vt_store_elem(p, size, 3, r.w);
}

// ---- channel order ------------------------------------------------------------------------

// Stored channels (s0, s1, …) to (r, g, b, a), missing channels from `zero` and `one`
// (§6.15.15.7). Packed types store r, g, b in s0..s2 after unpacking.
static uint4 vt_to_rgba(uint order, uint4 s, uint zero, uint one) {
    switch (order) {
    case CLK_R:
    case CLK_Rx:
    case CLK_DEPTH:
        return (uint4)(s.x, zero, zero, one);
    case CLK_A:
        return (uint4)(zero, zero, zero, s.x);
    case CLK_RG:
    case CLK_RGx:
        return (uint4)(s.x, s.y, zero, one);
    case CLK_RA:
        return (uint4)(s.x, zero, zero, s.y);
    case CLK_RGB:
    case CLK_RGBx:
    case CLK_sRGB:
    case CLK_sRGBx:
        return (uint4)(s.x, s.y, s.z, one);
    case CLK_BGRA:
    case CLK_sBGRA:
        return (uint4)(s.z, s.y, s.x, s.w);
    case CLK_ARGB:
        return (uint4)(s.y, s.z, s.w, s.x);
    case CLK_ABGR:
        return (uint4)(s.w, s.z, s.y, s.x);
    case CLK_INTENSITY:
        return (uint4)(s.x, s.x, s.x, s.x);
    case CLK_LUMINANCE:
        return (uint4)(s.x, s.x, s.x, one);
    default: // CLK_RGBA, CLK_sRGBA
        return s;
    }
}

// (r, g, b, a) to the stored channels.
static uint4 vt_from_rgba(uint order, uint4 c) {
    switch (order) {
    case CLK_A:
        return (uint4)(c.w, 0, 0, 0);
    case CLK_RA:
        return (uint4)(c.x, c.w, 0, 0);
    case CLK_BGRA:
    case CLK_sBGRA:
        return (uint4)(c.z, c.y, c.x, c.w);
    case CLK_ARGB:
        return (uint4)(c.w, c.x, c.y, c.z);
    case CLK_ABGR:
        return (uint4)(c.w, c.z, c.y, c.x);
    // The x channels are stored as 0.
    case CLK_Rx:
        return (uint4)(c.x, 0, 0, 0);
    case CLK_RGx:
        return (uint4)(c.x, c.y, 0, 0);
    case CLK_RGBx:
    case CLK_sRGBx:
        return (uint4)(c.x, c.y, c.z, 0);
    default:
        return c;
    }
}

// ---- conversions (§8.3) -------------------------------------------------------------------

static inline float vt_srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : powr((c + 0.055f) / 1.055f, 2.4f);
}

static inline float vt_linear_to_srgb(float c) {
    if (isnan(c))
        c = 0.0f;
    c = clamp(c, 0.0f, 1.0f);
    return c < 0.0031308f ? 12.92f * c : 1.055f * powr(c, 1.0f / 2.4f) - 0.055f;
}

static inline float vt_half_bits_to_float(uint h) {
    ushort b = (ushort)h;
    return vload_half(0, (const private half *)&b);
}

static inline uint vt_float_to_half_bits(float f) {
    ushort b;
    vstore_half_rte(f, 0, (private half *)&b);
    return b;
}

// One stored element of a float-read format to float.
static float vt_elem_to_float(uint type, uint v) {
    switch (type) {
    case CLK_UNORM_INT8:
        return (float)v / 255.0f;
    case CLK_UNORM_INT16:
        return (float)v / 65535.0f;
    case CLK_SNORM_INT8:
        return fmax(-1.0f, (float)(char)v / 127.0f);
    case CLK_SNORM_INT16:
        return fmax(-1.0f, (float)(short)v / 32767.0f);
    case CLK_HALF_FLOAT:
        return vt_half_bits_to_float(v);
    case CLK_FLOAT:
        return as_float(v);
    case CLK_SIGNED_INT8:
        return (float)(char)v;
    case CLK_SIGNED_INT16:
        return (float)(short)v;
    case CLK_SIGNED_INT32:
        return (float)(int)v;
    default:
        return (float)v;
    }
}

// Unpacks the packed types into (r, g, b) elements; other types unchanged.
static uint4 vt_unpack(uint type, uint4 s) {
    uint v = s.x;
    switch (type) {
    case CLK_UNORM_SHORT_565:
        return (uint4)((v >> 11) & 31, (v >> 5) & 63, v & 31, 0);
    case CLK_UNORM_SHORT_555:
        return (uint4)((v >> 10) & 31, (v >> 5) & 31, v & 31, 0);
    case CLK_UNORM_INT_101010:
        return (uint4)((v >> 20) & 1023, (v >> 10) & 1023, v & 1023, 0);
    default:
        return s;
    }
}

// The texel at a grid position inside the image, as read_imagef sees it (RGBA, linear).
static float4 vt_texel_f(vt_desc d, int x, int y, int z) {
    uint type = d[VT_IMG_DATA_TYPE];
    uint order = d[VT_IMG_ORDER];
    uint4 s = vt_unpack(type, vt_load_raw(d, vt_pixel(d, x, y, z)));
    float4 f;
    if (type == CLK_UNORM_SHORT_565) {
        f = (float4)((float)s.x / 31.0f, (float)s.y / 63.0f, (float)s.z / 31.0f, 0.0f);
    } else if (type == CLK_UNORM_SHORT_555) {
        f = (float4)((float)s.x / 31.0f, (float)s.y / 31.0f, (float)s.z / 31.0f, 0.0f);
    } else if (type == CLK_UNORM_INT_101010) {
        f = (float4)((float)s.x / 1023.0f, (float)s.y / 1023.0f, (float)s.z / 1023.0f, 0.0f);
    } else {
        uint n = d[VT_IMG_CHANNELS];
        f.x = vt_elem_to_float(type, s.x);
        f.y = n > 1 ? vt_elem_to_float(type, s.y) : 0.0f;
        f.z = n > 2 ? vt_elem_to_float(type, s.z) : 0.0f;
        f.w = n > 3 ? vt_elem_to_float(type, s.w) : 0.0f;
    }
    if (vt_is_srgb(order)) {
        f.x = vt_srgb_to_linear(f.x);
        f.y = vt_srgb_to_linear(f.y);
        f.z = vt_srgb_to_linear(f.z);
    }
    return as_float4(vt_to_rgba(order, as_uint4(f), 0, as_uint(1.0f)));
}

// The texel as read_imagei/ui see it: elements sign- or zero-extended.
static uint4 vt_texel_i(vt_desc d, int x, int y, int z) {
    uint type = d[VT_IMG_DATA_TYPE];
    uint4 s = vt_load_raw(d, vt_pixel(d, x, y, z));
    if (type == CLK_SIGNED_INT8)
        s = as_uint4(convert_int4(as_char4(convert_uchar4(s))));
    else if (type == CLK_SIGNED_INT16)
        s = as_uint4(convert_int4(as_short4(convert_ushort4(s))));
    return vt_to_rgba(d[VT_IMG_ORDER], s, 0, 1);
}

// The border colour (§6.15.15.1.1): (0, 0, 0, 1) where alpha is missing, else 0.
static uint4 vt_border(vt_desc d, uint one) {
    return vt_to_rgba(d[VT_IMG_ORDER], (uint4)(0), 0, one);
}

static float4 vt_fetch_f(vt_desc d, int x, int y, int z) {
    if (!vt_inside(d, x, y, z))
        return as_float4(vt_border(d, as_uint(1.0f)));
    return vt_texel_f(d, x, y, z);
}

static uint4 vt_fetch_i(vt_desc d, int x, int y, int z) {
    if (!vt_inside(d, x, y, z))
        return vt_border(d, 1);
    return vt_texel_i(d, x, y, z);
}

static uint vt_float_to_elem(uint type, float f) {
    switch (type) {
    case CLK_UNORM_INT8:
        return convert_uchar_sat_rte(f * 255.0f);
    case CLK_UNORM_INT16:
        return convert_ushort_sat_rte(f * 65535.0f);
    case CLK_SNORM_INT8:
        return (uint)(uchar)convert_char_sat_rte(f * 127.0f);
    case CLK_SNORM_INT16:
        return (uint)(ushort)convert_short_sat_rte(f * 32767.0f);
    case CLK_HALF_FLOAT:
        return vt_float_to_half_bits(f);
    case CLK_FLOAT:
        return as_uint(f);
    default:
        return 0;
    }
}

// ---- addressing (§8.2) ----------------------------------------------------------------------

// The addressing-mode bits of a sampler word. (Masking with ~(other bits) rather than with the
// field's mask keeps clang from narrowing `switch`es on the value to an i4, which llvm-spirv 15
// rejects.)
static inline uint vt_addressing(uint smp) {
    return smp & ~(uint)(CLK_NORMALIZED_COORDS_TRUE | CLK_FILTER_NEAREST | CLK_FILTER_LINEAR);
}

// The unnormalized coordinate u of normalized-or-not coordinate s along an axis of `size`
// texels, after the REPEAT / MIRRORED_REPEAT folding.
static inline float vt_unnormalize(float s, int size, uint am, bool norm) {
    if (am == CLK_ADDRESS_REPEAT)
        return (s - floor(s)) * (float)size;
    if (am == CLK_ADDRESS_MIRRORED_REPEAT)
        return fabs(s - 2.0f * rint(0.5f * s)) * (float)size;
    return norm ? s * (float)size : s;
}

// The addressing mode applied to index i (for REPEAT: i is in [0, size]).
static inline int vt_address(int i, int size, uint am) {
    switch (am) {
    case CLK_ADDRESS_CLAMP_TO_EDGE:
        return clamp(i, 0, size - 1);
    case CLK_ADDRESS_CLAMP:
        return clamp(i, -1, size);
    case CLK_ADDRESS_REPEAT:
        return i > size - 1 ? i - size : (i < 0 ? i + size : i);
    case CLK_ADDRESS_MIRRORED_REPEAT:
        return clamp(i, 0, size - 1);
    default:
        return i;
    }
}

static inline int vt_floor_int(float u) {
    return convert_int_sat(floor(u));
}

// Coordinate `c` mapped to the addressing grid for the nearest filter (layer rounded and
// clamped as §8.4 says).
static int4 vt_nearest_grid(vt_desc d, uint smp, float4 c) {
    uint am = vt_addressing(smp);
    bool norm = (smp & CLK_NORMALIZED_COORDS_TRUE) != 0;
    uint dims = d[VT_IMG_FILTER_DIMS];
    uint layer_axis = d[VT_IMG_LAYER_AXIS];
    int3 size = (int3)(d[VT_IMG_EXTENT_X], d[VT_IMG_EXTENT_Y], d[VT_IMG_EXTENT_Z]);
    int4 g = (int4)(0);
    g.x = vt_address(vt_floor_int(vt_unnormalize(c.x, size.x, am, norm)), size.x, am);
    if (dims > 1)
        g.y = vt_address(vt_floor_int(vt_unnormalize(c.y, size.y, am, norm)), size.y, am);
    if (dims > 2)
        g.z = vt_address(vt_floor_int(vt_unnormalize(c.z, size.z, am, norm)), size.z, am);
    if (layer_axis == 1)
        g.y = clamp(convert_int_sat(rint(c.y)), 0, size.y - 1);
    else if (layer_axis == 2)
        g.z = clamp(convert_int_sat(rint(c.z)), 0, size.z - 1);
    return g;
}

// ---- entry points (called by spirv/image.rs) -------------------------------------------------

// read_imagef/h with a sampler and float coordinates (x, y, z; the layer where the image has
// one).
float4 __vt_img_sample_f(vt_desc d, uint smp, float4 c) {
    if ((smp & CLK_FILTER_LINEAR) == 0) {
        int4 g = vt_nearest_grid(d, smp, c);
        return vt_fetch_f(d, g.x, g.y, g.z);
    }
    uint am = vt_addressing(smp);
    bool norm = (smp & CLK_NORMALIZED_COORDS_TRUE) != 0;
    uint dims = d[VT_IMG_FILTER_DIMS];
    uint layer_axis = d[VT_IMG_LAYER_AXIS];
    int3 size = (int3)(d[VT_IMG_EXTENT_X], d[VT_IMG_EXTENT_Y], d[VT_IMG_EXTENT_Z]);
    // Per axis: the two taps i0, i1 and the weight a of i1.
    float ux = vt_unnormalize(c.x, size.x, am, norm) - 0.5f;
    float fx = floor(ux);
    float ax = ux - fx;
    int x0 = vt_address(convert_int_sat(fx), size.x, am);
    int x1 = vt_address(convert_int_sat(fx) + 1, size.x, am);
    int y0 = 0, y1 = 0, z0 = 0, z1 = 0;
    float ay = 0.0f, az = 0.0f;
    if (dims > 1) {
        float uy = vt_unnormalize(c.y, size.y, am, norm) - 0.5f;
        float fy = floor(uy);
        ay = uy - fy;
        y0 = vt_address(convert_int_sat(fy), size.y, am);
        y1 = vt_address(convert_int_sat(fy) + 1, size.y, am);
    }
    if (dims > 2) {
        float uz = vt_unnormalize(c.z, size.z, am, norm) - 0.5f;
        float fz = floor(uz);
        az = uz - fz;
        z0 = vt_address(convert_int_sat(fz), size.z, am);
        z1 = vt_address(convert_int_sat(fz) + 1, size.z, am);
    }
    if (layer_axis == 1) {
        y0 = y1 = clamp(convert_int_sat(rint(c.y)), 0, size.y - 1);
    } else if (layer_axis == 2) {
        z0 = z1 = clamp(convert_int_sat(rint(c.z)), 0, size.z - 1);
    }
    if (dims == 1) {
        float4 t0 = vt_fetch_f(d, x0, y0, z0);
        float4 t1 = vt_fetch_f(d, x1, y0, z0);
        return (1.0f - ax) * t0 + ax * t1;
    }
    float4 t00 = vt_fetch_f(d, x0, y0, z0);
    float4 t10 = vt_fetch_f(d, x1, y0, z0);
    float4 t01 = vt_fetch_f(d, x0, y1, z0);
    float4 t11 = vt_fetch_f(d, x1, y1, z0);
    float4 r = (1.0f - ax) * (1.0f - ay) * t00 + ax * (1.0f - ay) * t10 + (1.0f - ax) * ay * t01 + ax * ay * t11;
    if (dims == 2)
        return r;
    float4 u00 = vt_fetch_f(d, x0, y0, z1);
    float4 u10 = vt_fetch_f(d, x1, y0, z1);
    float4 u01 = vt_fetch_f(d, x0, y1, z1);
    float4 u11 = vt_fetch_f(d, x1, y1, z1);
    float4 s = (1.0f - ax) * (1.0f - ay) * u00 + ax * (1.0f - ay) * u10 + (1.0f - ax) * ay * u01 + ax * ay * u11;
    return (1.0f - az) * r + az * s;
}

// read_imagei/ui with a sampler and float coordinates (nearest filtering only, §6.15.15.3).
uint4 __vt_img_sample_i(vt_desc d, uint smp, float4 c) {
    int4 g = vt_nearest_grid(d, smp, c);
    return vt_fetch_i(d, g.x, g.y, g.z);
}

// Integer coordinate `c` on the addressing grid: the addressing mode of `smp` applied to the
// filtered coordinates, the layer clamped; a sampler-less read (`smp` 0: NEAREST, unnormalized,
// ADDRESS_NONE) takes the position as it is (out of range gives the border colour).
static int4 vt_int_grid(vt_desc d, uint smp, int4 c) {
    uint am = vt_addressing(smp);
    int3 size = (int3)(d[VT_IMG_EXTENT_X], d[VT_IMG_EXTENT_Y], d[VT_IMG_EXTENT_Z]);
    int4 g = (int4)(vt_address(c.x, size.x, am), 0, 0, 0);
    uint dims = d[VT_IMG_FILTER_DIMS];
    if (dims > 1)
        g.y = vt_address(c.y, size.y, am);
    if (dims > 2)
        g.z = vt_address(c.z, size.z, am);
    uint layer_axis = d[VT_IMG_LAYER_AXIS];
    if (layer_axis == 1)
        g.y = smp == 0 ? c.y : clamp(c.y, 0, size.y - 1);
    else if (layer_axis == 2)
        g.z = smp == 0 ? c.z : clamp(c.z, 0, size.z - 1);
    return g;
}

// read_imagef/h with integer coordinates, sampler or not.
float4 __vt_img_read_f(vt_desc d, uint smp, int4 c) {
    int4 g = vt_int_grid(d, smp, c);
    if (smp == 0 && !vt_inside(d, g.x, g.y, g.z) && !vt_outside_proceeds(d, g, 0))
        return as_float4(vt_border(d, as_uint(1.0f)));
    return vt_fetch_f(d, g.x, g.y, g.z);
}

// read_imagei/ui with integer coordinates.
uint4 __vt_img_read_i(vt_desc d, uint smp, int4 c) {
    int4 g = vt_int_grid(d, smp, c);
    if (smp == 0 && !vt_inside(d, g.x, g.y, g.z) && !vt_outside_proceeds(d, g, 0))
        return vt_border(d, 1);
    return vt_fetch_i(d, g.x, g.y, g.z);
}

// The grid position a write names (.w 1 if it lies inside the image, else 0).
static int4 vt_write_grid(vt_desc d, int4 c) {
    uint dims = d[VT_IMG_FILTER_DIMS];
    uint layer_axis = d[VT_IMG_LAYER_AXIS];
    int y = dims > 1 || layer_axis == 1 ? c.y : 0;
    int z = dims > 2 || layer_axis == 2 ? c.z : 0;
    return (int4)(c.x, y, z, vt_inside(d, c.x, y, z) ? 1 : 0);
}

// write_imagef/h (integer coordinates; outside the image: dropped).
void __vt_img_write_f(vt_desc d, int4 c, float4 color) {
    int4 g = vt_write_grid(d, c);
    if (g.w == 0 && !vt_outside_proceeds(d, g, 1))
        return;
    uint type = d[VT_IMG_DATA_TYPE];
    uint order = d[VT_IMG_ORDER];
    if (vt_is_srgb(order)) {
        color.x = vt_linear_to_srgb(color.x);
        color.y = vt_linear_to_srgb(color.y);
        color.z = vt_linear_to_srgb(color.z);
    }
    uint4 s = vt_from_rgba(order, as_uint4(color));
    float4 f = as_float4(s);
    uint4 e;
    if (type == CLK_UNORM_SHORT_565) {
        e.x = min((uint)convert_ushort_sat_rte(f.x * 31.0f), 31u) << 11 |
              min((uint)convert_ushort_sat_rte(f.y * 63.0f), 63u) << 5 | min((uint)convert_ushort_sat_rte(f.z * 31.0f), 31u);
    } else if (type == CLK_UNORM_SHORT_555) {
        e.x = min((uint)convert_ushort_sat_rte(f.x * 31.0f), 31u) << 10 |
              min((uint)convert_ushort_sat_rte(f.y * 31.0f), 31u) << 5 | min((uint)convert_ushort_sat_rte(f.z * 31.0f), 31u);
    } else if (type == CLK_UNORM_INT_101010) {
        e.x = min((uint)convert_ushort_sat_rte(f.x * 1023.0f), 1023u) << 20 |
              min((uint)convert_ushort_sat_rte(f.y * 1023.0f), 1023u) << 10 |
              min((uint)convert_ushort_sat_rte(f.z * 1023.0f), 1023u);
    } else {
        e = (uint4)(vt_float_to_elem(type, f.x), vt_float_to_elem(type, f.y), vt_float_to_elem(type, f.z),
                    vt_float_to_elem(type, f.w));
    }
    vt_store_raw(d, vt_pixel(d, g.x, g.y, g.z), e);
}

// write_imagei/ui: saturated to the element type (§8.3.4).
void __vt_img_write_i(vt_desc d, int4 c, uint4 color) {
    int4 g = vt_write_grid(d, c);
    if (g.w == 0 && !vt_outside_proceeds(d, g, 1))
        return;
    uint type = d[VT_IMG_DATA_TYPE];
    uint4 s = vt_from_rgba(d[VT_IMG_ORDER], color);
    int4 si = as_int4(s);
    uint4 e;
    switch (type) {
    case CLK_SIGNED_INT8:
        e = convert_uint4(as_uchar4(convert_char4_sat(si)));
        break;
    case CLK_SIGNED_INT16:
        e = convert_uint4(as_ushort4(convert_short4_sat(si)));
        break;
    case CLK_UNSIGNED_INT8:
        e = convert_uint4(convert_uchar4_sat(s));
        break;
    case CLK_UNSIGNED_INT16:
        e = convert_uint4(convert_ushort4_sat(s));
        break;
    default:
        e = s;
    }
    vt_store_raw(d, vt_pixel(d, g.x, g.y, g.z), e);
}
