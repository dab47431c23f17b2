//! Images and samplers through the ICD loader, against a host reference of OpenCL C 3.0 §8
//! written here from the spec (independent of the driver's code):
//! * every offered format read by `read_imagef`/`read_imagei`/`read_imageui` without a sampler
//!   (bit-exact: the normalized conversions are correctly rounded divisions) and written by
//!   `write_imagef`/`write_imagei`/`write_imageui` (round to nearest even with saturation — the
//!   spec's preferred rounding, which the driver implements exactly);
//! * samplers: every addressing mode with normalized and unnormalized coordinates, nearest
//!   (exact) and linear filtering (within 1e-5 of the reference formula), on 1D, 2D, 3D and
//!   array images, coordinates inside, on and beyond the edges;
//! * the image queries, `constant sampler_t` literals and images passed to helper functions;
//! * every host image command with origins and pitches (read, write, copy, fill, map, copies
//!   to and from buffers), images from buffers, and the spec's error codes.

#![allow(non_upper_case_globals)] // CL_sRGBA…: OpenCL's own names

#[path = "common/cl.rs"]
mod cl;
use cl::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

/// Calls a loader entry point: `call!(clFoo(args))`. Contract of every use in this file: handles
/// are live objects created here, and every pointer argument is NULL or points to live memory at
/// least as large as the size passed with it.
macro_rules! call {
    ($f:ident($($a:expr),* $(,)?)) => {{
        let f = cl().$f;
        // SAFETY: the macro's contract above, upheld by each call site.
        unsafe { f($($a),*) }
    }};
}

// ---- a small harness -----------------------------------------------------------------------

struct Env {
    ctx: cl_context,
    q: cl_command_queue,
}

impl Env {
    fn new() -> Env {
        if std::env::var_os("VENTUS_WATCHDOG").is_none() {
            std::env::set_var("VENTUS_WATCHDOG", "200000000");
        }
        let ctx = context();
        let q = queue(ctx, 0);
        Env { ctx, q }
    }

    #[track_caller]
    fn image(&self, flags: cl_mem_flags, f: cl_image_format, d: &cl_image_desc, host: Option<&[u8]>) -> cl_mem {
        let mut err = 0;
        let p = host.map_or(null_mut(), |h| h.as_ptr() as *mut c_void);
        let m = call!(clCreateImage(self.ctx, flags, &f, d, p, &mut err));
        check(err, "clCreateImage");
        m
    }

    #[track_caller]
    fn buffer(&self, data: &[u8]) -> cl_mem {
        let mut err = 0;
        let m = call!(clCreateBuffer(
            self.ctx,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            data.len(),
            data.as_ptr() as *mut c_void,
            &mut err
        ));
        check(err, "clCreateBuffer");
        m
    }

    #[track_caller]
    fn read_buffer(&self, m: cl_mem, n: usize) -> Vec<u8> {
        let mut out = vec![0u8; n];
        check(
            call!(clEnqueueReadBuffer(
                self.q,
                m,
                CL_TRUE,
                0,
                n,
                out.as_mut_ptr() as *mut c_void,
                0,
                null(),
                null_mut()
            )),
            "clEnqueueReadBuffer",
        );
        out
    }

    /// The whole image, tightly packed.
    #[track_caller]
    fn read_image(&self, m: cl_mem, region: [usize; 3], pixel: usize) -> Vec<u8> {
        let mut out = vec![0u8; region.iter().product::<usize>() * pixel];
        let o = [0usize; 3];
        let code = call!(clEnqueueReadImage(
            self.q,
            m,
            CL_TRUE,
            o.as_ptr(),
            region.as_ptr(),
            0,
            0,
            out.as_mut_ptr() as *mut c_void,
            0,
            null(),
            null_mut()
        ));
        check(code, "clEnqueueReadImage");
        out
    }

    #[track_caller]
    fn sampler(&self, normalized: bool, addressing: cl_addressing_mode, filter: cl_filter_mode) -> cl_sampler {
        let mut err = 0;
        let s = call!(clCreateSampler(self.ctx, normalized as cl_bool, addressing, filter, &mut err));
        check(err, "clCreateSampler");
        s
    }

    /// An environment whose context has the memory checker on (`CL_CONTEXT_MEMCHECK_VENTUS`) and
    /// records the messages of its error callback.
    fn memcheck(messages: &Messages) -> Env {
        let props: [cl_context_properties; 3] = [0x7F11, 1, 0];
        let (d, mut err) = (device(), 0);
        let user = messages as *const Messages as *mut c_void;
        let ctx = call!(clCreateContext(props.as_ptr(), 1, &d, Some(record), user, &mut err));
        check(err, "clCreateContext (memcheck)");
        Env { ctx, q: queue(ctx, 0) }
    }

    /// Builds `src` and runs `name` over `global` with `args` (raw `clSetKernelArg` values).
    #[track_caller]
    fn run(&self, src: &str, options: &str, name: &str, global: &[usize], args: &[(usize, *const c_void)]) {
        let status = self.launch(src, options, name, global, args);
        assert_eq!(status, CL_COMPLETE, "{name}: event status {}", err_name(status));
    }

    /// As [`Env::run`], returning the launch's event status (negative if it failed).
    #[track_caller]
    fn launch(
        &self,
        src: &str,
        options: &str,
        name: &str,
        global: &[usize],
        args: &[(usize, *const c_void)],
    ) -> cl_int {
        let (text, mut err) = (CString::new(src).unwrap(), 0);
        let mut ptrs = [text.as_ptr()];
        let p = call!(clCreateProgramWithSource(self.ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
        check(err, "clCreateProgramWithSource");
        let opts = CString::new(options).unwrap();
        let code = call!(clBuildProgram(p, 0, null(), opts.as_ptr(), None, null_mut()));
        if code != CL_SUCCESS {
            let d = device();
            let log = info_bytes_with(|s, v, r| call!(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, s, v, r)));
            panic!("build failed ({}):\n{}\n{src}", err_name(code), String::from_utf8_lossy(&log));
        }
        let cname = CString::new(name).unwrap();
        let k = call!(clCreateKernel(p, cname.as_ptr(), &mut err));
        check(err, "clCreateKernel");
        for (i, (size, value)) in args.iter().enumerate() {
            check(call!(clSetKernelArg(k, i as cl_uint, *size, *value)), "clSetKernelArg");
        }
        let mut ev = null_mut();
        let code = call!(clEnqueueNDRangeKernel(
            self.q,
            k,
            global.len() as cl_uint,
            null(),
            global.as_ptr(),
            null(),
            0,
            null(),
            &mut ev
        ));
        check(code, "clEnqueueNDRangeKernel");
        call!(clFinish(self.q));
        let status = event_status(ev);
        call!(clReleaseEvent(ev));
        call!(clReleaseKernel(k));
        call!(clReleaseProgram(p));
        status
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        call!(clFinish(self.q));
        call!(clReleaseCommandQueue(self.q));
        call!(clReleaseContext(self.ctx));
    }
}

/// Messages a context's error callback received.
type Messages = std::sync::Mutex<Vec<String>>;

unsafe extern "C" fn record(msg: *const std::ffi::c_char, _: *const c_void, _: usize, user: *mut c_void) {
    // SAFETY: `user` is the `Messages` given at context creation, which outlives the context;
    // `msg` is a C string valid for the call.
    let (m, s) = unsafe { (&*(user as *const Messages), std::ffi::CStr::from_ptr(msg)) };
    m.lock().unwrap().push(s.to_string_lossy().into_owned());
}

fn mem_arg(m: &cl_mem) -> (usize, *const c_void) {
    (std::mem::size_of::<cl_mem>(), m as *const cl_mem as *const c_void)
}

fn val_arg<T>(v: &T) -> (usize, *const c_void) {
    (std::mem::size_of::<T>(), v as *const T as *const c_void)
}

fn smp_arg(s: &cl_sampler) -> (usize, *const c_void) {
    (std::mem::size_of::<cl_sampler>(), s as *const cl_sampler as *const c_void)
}

fn desc(t: cl_mem_object_type, w: usize, h: usize, d: usize, a: usize) -> cl_image_desc {
    cl_image_desc {
        image_type: t,
        image_width: w,
        image_height: h,
        image_depth: d,
        image_array_size: a,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: null_mut(),
    }
}

fn fmt(o: cl_channel_order, t: cl_channel_type) -> cl_image_format {
    cl_image_format { image_channel_order: o, image_channel_data_type: t }
}

/// A deterministic byte stream.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2654435761) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 7) as u8
        })
        .collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

// ---- the host reference (spec §8.3, §6.15.15.7) ---------------------------------------------

/// Channels in memory, in order, of a channel order.
fn order_channels(o: cl_channel_order) -> &'static str {
    match o {
        CL_R => "r",
        CL_A => "a",
        CL_RG => "rg",
        CL_RA => "ra",
        CL_RGB => "rgb",
        CL_RGBA | CL_sRGBA => "rgba",
        CL_BGRA | CL_sBGRA => "bgra",
        CL_ARGB => "argb",
        CL_ABGR => "abgr",
        CL_INTENSITY => "i",
        CL_LUMINANCE => "l",
        CL_DEPTH => "r",
        _ => panic!("order {o:#x}"),
    }
}

fn elem_size(t: cl_channel_type) -> usize {
    match t {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        _ => 4,
    }
}

fn packed(t: cl_channel_type) -> bool {
    matches!(t, CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010)
}

fn pixel_size(f: &cl_image_format) -> usize {
    if packed(f.image_channel_data_type) {
        elem_size(f.image_channel_data_type)
    } else {
        elem_size(f.image_channel_data_type) * order_channels(f.image_channel_order).len()
    }
}

fn is_int(t: cl_channel_type) -> bool {
    matches!(
        t,
        CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 | CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32
    )
}

fn half_to_f32(h: u16) -> f32 {
    let (s, e, m) = ((h >> 15) as u32, ((h >> 10) & 31) as i32, (h & 0x3ff) as f32);
    let v = match e {
        0 => m * 2f32.powi(-24),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    };
    if s == 1 {
        -v
    } else {
        v
    }
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A pixel as `read_imagef` returns it (r, g, b, a).
fn decode_f(f: &cl_image_format, p: &[u8]) -> [f32; 4] {
    let t = f.image_channel_data_type;
    let word = |k: usize| -> u32 {
        let e = elem_size(t);
        let mut b = [0u8; 4];
        b[..e].copy_from_slice(&p[k * e..k * e + e]);
        u32::from_le_bytes(b)
    };
    if packed(t) {
        let v = word(0);
        let (r, g, b) = match t {
            CL_UNORM_SHORT_565 => ((v >> 11 & 31) as f32 / 31.0, (v >> 5 & 63) as f32 / 63.0, (v & 31) as f32 / 31.0),
            CL_UNORM_SHORT_555 => ((v >> 10 & 31) as f32 / 31.0, (v >> 5 & 31) as f32 / 31.0, (v & 31) as f32 / 31.0),
            _ => ((v >> 20 & 1023) as f32 / 1023.0, (v >> 10 & 1023) as f32 / 1023.0, (v & 1023) as f32 / 1023.0),
        };
        return [r, g, b, 1.0];
    }
    let conv = |v: u32| -> f32 {
        match t {
            CL_UNORM_INT8 => v as f32 / 255.0,
            CL_UNORM_INT16 => v as f32 / 65535.0,
            CL_SNORM_INT8 => (v as u8 as i8 as f32 / 127.0).max(-1.0),
            CL_SNORM_INT16 => (v as u16 as i16 as f32 / 32767.0).max(-1.0),
            CL_HALF_FLOAT => half_to_f32(v as u16),
            CL_FLOAT => f32::from_bits(v),
            _ => panic!("not a float format"),
        }
    };
    let srgb = matches!(f.image_channel_order, CL_sRGBA | CL_sBGRA);
    let mut out = [0.0, 0.0, 0.0, 1.0];
    for (k, ch) in order_channels(f.image_channel_order).chars().enumerate() {
        let v = conv(word(k));
        match ch {
            'r' => out[0] = v,
            'g' => out[1] = v,
            'b' => out[2] = v,
            'a' => out[3] = v,
            'i' => out = [v; 4],
            _ => out = [v, v, v, 1.0],
        }
    }
    if srgb {
        for c in &mut out[..3] {
            *c = srgb_to_linear(*c);
        }
    }
    out
}

/// A pixel as `read_imagei`/`read_imageui` return it.
fn decode_i(f: &cl_image_format, p: &[u8]) -> [u32; 4] {
    let t = f.image_channel_data_type;
    let e = elem_size(t);
    let mut out = [0, 0, 0, 1];
    for (k, ch) in order_channels(f.image_channel_order).chars().enumerate() {
        let b = &p[k * e..k * e + e];
        let v = match t {
            CL_SIGNED_INT8 => b[0] as i8 as i32 as u32,
            CL_SIGNED_INT16 => i16::from_le_bytes([b[0], b[1]]) as i32 as u32,
            CL_UNSIGNED_INT8 => b[0] as u32,
            CL_UNSIGNED_INT16 => u16::from_le_bytes([b[0], b[1]]) as u32,
            _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        };
        match ch {
            'r' => out[0] = v,
            'g' => out[1] = v,
            'b' => out[2] = v,
            'a' => out[3] = v,
            _ => unreachable!(),
        }
    }
    out
}

/// `convert_<T>_sat_rte(x)` into `[lo, hi]`.
fn rte_sat(x: f32, lo: f32, hi: f32) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(lo, hi) as i64
    }
}

fn f32_to_half_rte(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

/// The bytes `write_imagef` / `write_imagei(ui)` store for colour `c` (float bits or integers).
fn encode(f: &cl_image_format, c: [u32; 4]) -> Vec<u8> {
    let t = f.image_channel_data_type;
    let fl = |k: usize| f32::from_bits(c[k]);
    if packed(t) {
        let q = |k: usize, m: f32| rte_sat(fl(k) * m, 0.0, m) as u32;
        let v = match t {
            CL_UNORM_SHORT_565 => q(0, 31.0) << 11 | q(1, 63.0) << 5 | q(2, 31.0),
            CL_UNORM_SHORT_555 => q(0, 31.0) << 10 | q(1, 31.0) << 5 | q(2, 31.0),
            _ => q(0, 1023.0) << 20 | q(1, 1023.0) << 10 | q(2, 1023.0),
        };
        return v.to_le_bytes()[..elem_size(t)].to_vec();
    }
    let mut out = Vec::new();
    for ch in order_channels(f.image_channel_order).chars() {
        let k = match ch {
            'r' | 'i' | 'l' => 0,
            'g' => 1,
            'b' => 2,
            _ => 3,
        };
        let v: u32 = match t {
            CL_UNORM_INT8 => rte_sat(fl(k) * 255.0, 0.0, 255.0) as u32,
            CL_UNORM_INT16 => rte_sat(fl(k) * 65535.0, 0.0, 65535.0) as u32,
            CL_SNORM_INT8 => rte_sat(fl(k) * 127.0, -128.0, 127.0) as u32,
            CL_SNORM_INT16 => rte_sat(fl(k) * 32767.0, -32768.0, 32767.0) as u32,
            CL_HALF_FLOAT => f32_to_half_rte(fl(k)) as u32,
            CL_SIGNED_INT8 => (c[k] as i32).clamp(-128, 127) as u32,
            CL_SIGNED_INT16 => (c[k] as i32).clamp(-32768, 32767) as u32,
            CL_UNSIGNED_INT8 => c[k].min(255),
            CL_UNSIGNED_INT16 => c[k].min(65535),
            _ => c[k],
        };
        out.extend_from_slice(&v.to_le_bytes()[..elem_size(t)]);
    }
    out
}

/// The formats the device lists for `flags` on 2D images.
fn formats(env: &Env, flags: cl_mem_flags) -> Vec<cl_image_format> {
    let mut n = 0;
    check(
        call!(clGetSupportedImageFormats(env.ctx, flags, CL_MEM_OBJECT_IMAGE2D, 0, null_mut(), &mut n)),
        "clGetSupportedImageFormats",
    );
    let mut v = vec![fmt(0, 0); n as usize];
    check(
        call!(clGetSupportedImageFormats(env.ctx, flags, CL_MEM_OBJECT_IMAGE2D, n, v.as_mut_ptr(), null_mut())),
        "clGetSupportedImageFormats",
    );
    v
}

/// Whether two floats agree (bit-exact, NaN matching any NaN).
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

// ---- tests ----------------------------------------------------------------------------------

#[test]
fn device_reports_images_and_the_minimum_formats() {
    let env = Env::new();
    let d = device();
    assert_eq!(info_value::<cl_bool, _, _>(cl().clGetDeviceInfo, d, CL_DEVICE_IMAGE_SUPPORT), CL_TRUE);
    for (q, min) in [
        (CL_DEVICE_IMAGE2D_MAX_WIDTH, 16384usize),
        (CL_DEVICE_IMAGE2D_MAX_HEIGHT, 16384),
        (CL_DEVICE_IMAGE3D_MAX_WIDTH, 2048),
        (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 65536),
        (CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048),
    ] {
        assert!(info_value::<usize, _, _>(cl().clGetDeviceInfo, d, q) >= min, "{q:#x}");
    }
    assert!(info_value::<cl_uint, _, _>(cl().clGetDeviceInfo, d, CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128);
    assert!(info_value::<cl_uint, _, _>(cl().clGetDeviceInfo, d, CL_DEVICE_MAX_SAMPLERS) >= 16);
    let types = [
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
    for flags in [CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_KERNEL_READ_AND_WRITE] {
        let list = formats(&env, flags);
        let has = |o, t| list.iter().any(|f| f.image_channel_order == o && f.image_channel_data_type == t);
        for t in types {
            assert!(has(CL_RGBA, t), "RGBA {t:#x} for flags {flags:#x}");
            if flags == CL_MEM_KERNEL_READ_AND_WRITE && t != CL_UNORM_INT16 {
                assert!(has(CL_R, t), "R {t:#x} read-write");
            }
        }
        assert!(has(CL_BGRA, CL_UNORM_INT8));
        // cl_khr_depth_images: CL_DEPTH with both its types, on 2D images and arrays only.
        assert!(has(CL_DEPTH, CL_FLOAT) && has(CL_DEPTH, CL_UNORM_INT16), "depth for flags {flags:#x}");
        for t in [CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE3D, CL_MEM_OBJECT_IMAGE2D_ARRAY] {
            let mut n = 0;
            check(call!(clGetSupportedImageFormats(env.ctx, flags, t, 0, null_mut(), &mut n)), "formats");
            let mut v = vec![fmt(0, 0); n as usize];
            check(call!(clGetSupportedImageFormats(env.ctx, flags, t, n, v.as_mut_ptr(), null_mut())), "formats");
            let depth = v.iter().filter(|f| f.image_channel_order == CL_DEPTH).count();
            assert_eq!(depth, if t == CL_MEM_OBJECT_IMAGE2D_ARRAY { 2 } else { 0 }, "depth formats of {t:#x}");
        }
    }
    let exts = info_string(cl().clGetDeviceInfo, d, CL_DEVICE_EXTENSIONS);
    assert!(exts.split(' ').any(|e| e == "cl_khr_depth_images"), "{exts}");
}

/// Every offered format: random pixels read by a kernel (sampler-less, integer coordinates)
/// and colours written by a kernel, compared with the host reference.
#[test]
fn kernels_read_and_write_every_format() {
    let env = Env::new();
    let (w, h) = (7usize, 3usize);
    let n = w * h;
    for (k, f) in formats(&env, CL_MEM_READ_ONLY).into_iter().enumerate() {
        let t = f.image_channel_data_type;
        let ps = pixel_size(&f);
        let mut data = bytes(n * ps, k as u32 + 1);
        if t == CL_FLOAT {
            // Finite floats (a NaN's payload is not part of the contract).
            for c in data.chunks_exact_mut(4) {
                c[3] &= 0x3f;
            }
        }
        let img = env.image(
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            f,
            &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 1, 0),
            Some(&data),
        );
        let out = env.buffer(&vec![0u8; n * 16]);
        let int = is_int(t);
        let (fun, ty) = match t {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => ("read_imagei", "int4"),
            _ if int => ("read_imageui", "uint4"),
            _ => ("read_imagef", "float4"),
        };
        // A depth image is read through `image2d_depth_t` as one float (its red channel).
        let (ity, read) = if f.image_channel_order == CL_DEPTH {
            ("image2d_depth_t", "(float4)(read_imagef(img, (int2)(x, y)), 0.0f, 0.0f, 1.0f)".to_string())
        } else {
            ("image2d_t", format!("{fun}(img, (int2)(x, y))"))
        };
        let src = format!(
            "kernel void k(read_only {ity} img, global {ty} *out) {{
                int x = get_global_id(0), y = get_global_id(1);
                out[y * get_image_width(img) + x] = {read};
            }}"
        );
        env.run(&src, "", "k", &[w, h], &[mem_arg(&img), mem_arg(&out)]);
        let got = env.read_buffer(out, n * 16);
        for p in 0..n {
            let px = &data[p * ps..p * ps + ps];
            if int {
                let want = decode_i(&f, px);
                assert_eq!(u32s(&got[p * 16..p * 16 + 16]), want, "{f:?} pixel {p}");
            } else {
                let want = decode_f(&f, px);
                let g = f32s(&got[p * 16..p * 16 + 16]);
                let srgb = matches!(f.image_channel_order, CL_sRGBA | CL_sBGRA);
                for c in 0..4 {
                    // sRGB: the device's powr is within a few ulp of the host's powf.
                    let ok = if srgb { (g[c] - want[c]).abs() <= 2e-6 } else { same(g[c], want[c]) };
                    assert!(ok, "{f:?} pixel {p} channel {c}: {} (want {})", g[c], want[c]);
                }
            }
        }
        call!(clReleaseMemObject(img));
        call!(clReleaseMemObject(out));
    }
    // Writes.
    let specials =
        [0.0f32, 1.0, -1.0, 0.5, 0.25, 1.5, -0.0, 2.0, 0.5 / 255.0, 1.5 / 255.0, 0.3, f32::NAN, 1e-8, 65504.0, 7.0e4];
    for (k, f) in formats(&env, CL_MEM_WRITE_ONLY).into_iter().enumerate() {
        let t = f.image_channel_data_type;
        let ps = pixel_size(&f);
        let int = is_int(t);
        let mut colours: Vec<u32> = Vec::new();
        let mut rng = bytes(n * 16, 100 + k as u32).into_iter();
        for p in 0..n * 4 {
            let r = u32::from_le_bytes([
                rng.next().unwrap(),
                rng.next().unwrap(),
                rng.next().unwrap(),
                rng.next().unwrap(),
            ]);
            colours.push(if int {
                // Values around and beyond each integer type's range.
                [r, r % 300, (r % 70000) as i32 as u32, (-(r as i32 % 40000)) as u32][p % 4]
            } else if p % 3 == 0 {
                specials[(r as usize) % specials.len()].to_bits()
            } else {
                (r as f32 / u32::MAX as f32 * 2.4 - 1.2).to_bits()
            });
        }
        let cbytes: Vec<u8> = colours.iter().flat_map(|c| c.to_le_bytes()).collect();
        let colour_buf = env.buffer(&cbytes);
        let img = env.image(CL_MEM_WRITE_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 1, 0), None);
        let (fun, ty) = match t {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => ("write_imagei", "int4"),
            _ if int => ("write_imageui", "uint4"),
            _ => ("write_imagef", "float4"),
        };
        // A depth image is written through `image2d_depth_t` with one float.
        let (ity, colour) =
            if f.image_channel_order == CL_DEPTH { ("image2d_depth_t", ".x") } else { ("image2d_t", "") };
        let src = format!(
            "kernel void k(write_only {ity} img, global const {ty} *c) {{
                int x = get_global_id(0), y = get_global_id(1);
                {fun}(img, (int2)(x, y), c[y * get_image_width(img) + x]{colour});
            }}"
        );
        env.run(&src, "", "k", &[w, h], &[mem_arg(&img), mem_arg(&colour_buf)]);
        let got = env.read_image(img, [w, h, 1], ps);
        for p in 0..n {
            let c = [colours[4 * p], colours[4 * p + 1], colours[4 * p + 2], colours[4 * p + 3]];
            let want = encode(&f, c);
            assert_eq!(&got[p * ps..p * ps + ps], &want[..], "{f:?} pixel {p} colour {c:x?}");
        }
        call!(clReleaseMemObject(img));
        call!(clReleaseMemObject(colour_buf));
    }
}

/// An image of float texels on the host: the addressing grid (x, y, z) and what it samples.
struct RefImage {
    grid: [usize; 3],
    /// Coordinates a sampler filters (1–3); the layer axis (1 or 2) is never filtered.
    dims: usize,
    layer_axis: usize,
    texels: Vec<[f32; 4]>,
    border: [f32; 4],
}

impl RefImage {
    fn fetch(&self, i: [i64; 3]) -> [f32; 4] {
        let g = self.grid;
        if (0..3).any(|k| i[k] < 0 || i[k] >= g[k] as i64) {
            return self.border;
        }
        self.texels[(i[2] as usize * g[1] + i[1] as usize) * g[0] + i[0] as usize]
    }

    /// `read_imagef(img, sampler, coord)` per spec §8.2 (float coordinates).
    fn sample(&self, norm: bool, am: cl_addressing_mode, linear: bool, c: [f32; 3]) -> [f32; 4] {
        let unnorm = |s: f32, size: usize| -> f32 {
            let n = size as f32;
            match am {
                CL_ADDRESS_REPEAT => (s - s.floor()) * n,
                CL_ADDRESS_MIRRORED_REPEAT => (s - 2.0 * (0.5 * s).round_ties_even()).abs() * n,
                _ if norm => s * n,
                _ => s,
            }
        };
        let address = |i: i64, size: usize| -> i64 {
            let n = size as i64;
            match am {
                CL_ADDRESS_CLAMP_TO_EDGE | CL_ADDRESS_MIRRORED_REPEAT => i.clamp(0, n - 1),
                CL_ADDRESS_CLAMP => i.clamp(-1, n),
                CL_ADDRESS_REPEAT if i > n - 1 => i - n,
                CL_ADDRESS_REPEAT if i < 0 => i + n,
                _ => i,
            }
        };
        let layer = |k: usize| (c[k].round_ties_even() as i64).clamp(0, self.grid[k] as i64 - 1);
        if !linear {
            let mut i = [0i64; 3];
            for k in 0..self.dims {
                i[k] = address(unnorm(c[k], self.grid[k]).floor() as i64, self.grid[k]);
            }
            if self.layer_axis > 0 {
                i[self.layer_axis] = layer(self.layer_axis);
            }
            return self.fetch(i);
        }
        let mut taps = [[0i64; 2]; 3];
        let mut a = [0f32; 3];
        for k in 0..self.dims {
            let u = unnorm(c[k], self.grid[k]) - 0.5;
            let f = u.floor();
            a[k] = u - f;
            taps[k] = [address(f as i64, self.grid[k]), address(f as i64 + 1, self.grid[k])];
        }
        if self.layer_axis > 0 {
            let l = layer(self.layer_axis);
            taps[self.layer_axis] = [l, l];
        }
        let mut out = [0f32; 4];
        let corners = 1 << self.dims;
        let mut acc: Vec<([f32; 4], f32)> = Vec::new();
        for m in 0..corners {
            let pick = |k: usize| (m >> k) & 1;
            let idx = [
                taps[0][pick(0)],
                taps[1][if self.dims > 1 { pick(1) } else { 0 }],
                taps[2][if self.dims > 2 { pick(2) } else { 0 }],
            ];
            let mut wgt = 1.0f32;
            for (k, ak) in a.iter().enumerate().take(self.dims) {
                wgt *= if pick(k) == 1 { *ak } else { 1.0 - ak };
            }
            acc.push((self.fetch(idx), wgt));
        }
        for (t, wgt) in acc {
            for ch in 0..4 {
                out[ch] += wgt * t[ch];
            }
        }
        out
    }
}

/// Samplers on every image type: each addressing mode, normalized and not, nearest and linear,
/// at random coordinates inside and around the image.
#[test]
fn samplers_address_and_filter_as_the_spec_says() {
    let env = Env::new();
    // (type, grid, dims, layer axis, kernel image type, coordinate type, components); the depth
    // image types hold CL_DEPTH/CL_FLOAT texels (the red channel of the reference's texels).
    let shapes = [
        (CL_MEM_OBJECT_IMAGE1D, [9usize, 1, 1], 1usize, 0usize, "image1d_t", "float", 1usize),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, [7, 3, 1], 1, 1, "image1d_array_t", "float2", 2),
        (CL_MEM_OBJECT_IMAGE2D, [6, 5, 1], 2, 0, "image2d_t", "float2", 2),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [5, 4, 3], 2, 2, "image2d_array_t", "float4", 4),
        (CL_MEM_OBJECT_IMAGE3D, [4, 3, 5], 3, 0, "image3d_t", "float4", 4),
        (CL_MEM_OBJECT_IMAGE2D, [5, 6, 1], 2, 0, "image2d_depth_t", "float2", 2),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 5, 3], 2, 2, "image2d_array_depth_t", "float4", 4),
    ];
    let modes =
        [CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT];
    let n = 64usize;
    for (si, &(t, grid, dims, layer_axis, ity, cty, comps)) in shapes.iter().enumerate() {
        let count = grid.iter().product::<usize>();
        let texel_bytes = bytes(count * 16, 7 + si as u32);
        let texels: Vec<[f32; 4]> = texel_bytes
            .chunks_exact(16)
            .map(|c| {
                let v = |k: usize| c[k * 4] as f32 / 16.0 - 8.0;
                [v(0), v(1), v(2), v(3)]
            })
            .collect();
        let depth = ity.contains("depth");
        let (f, data, texels) = if depth {
            let data: Vec<u8> = texels.iter().flat_map(|t| t[0].to_le_bytes()).collect();
            (fmt(CL_DEPTH, CL_FLOAT), data, texels.iter().map(|t| [t[0], 0.0, 0.0, 0.0]).collect())
        } else {
            let data: Vec<u8> = texels.iter().flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes())).collect();
            (fmt(CL_RGBA, CL_FLOAT), data, texels)
        };
        let (w, h, d, a) = match t {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (grid[0], 1, 1, grid[1]),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => (grid[0], grid[1], 1, grid[2]),
            _ => (grid[0], grid[1], grid[2], 0),
        };
        let img = env.image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, f, &desc(t, w, h, d, a), Some(&data));
        let r = RefImage { grid, dims, layer_axis, texels, border: [0.0; 4] };
        let src = format!(
            "kernel void k(read_only {ity} img, sampler_t s, global const float4 *c, global float4 *out) {{
                int i = get_global_id(0);
                float4 v = c[i];
                out[i] = {};
            }}",
            if depth { "(float4)(read_imagef(img, s, COORD), 0.0f, 0.0f, 0.0f)" } else { "read_imagef(img, s, COORD)" }
                .replace("COORD", &format!("({cty})({})", ["v.x", "v.x, v.y", "", "v"][comps - 1]))
        );
        for am in modes {
            for norm in [false, true] {
                if !norm && matches!(am, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
                    continue;
                }
                for linear in [false, true] {
                    let mut coords = Vec::new();
                    let raw =
                        bytes(n * 4 * 4, (si * 100 + am as usize * 3 + norm as usize * 2 + linear as usize) as u32);
                    for (j, c) in raw.chunks_exact(4).enumerate() {
                        let k = j % 4;
                        let size = grid.get(k).copied().unwrap_or(1) as f32;
                        let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f32 / u32::MAX as f32;
                        let v = if k == layer_axis && layer_axis > 0 {
                            x * (size + 2.0) - 1.0
                        } else if norm {
                            x * 3.0 - 1.0
                        } else {
                            x * (size + 4.0) - 2.0
                        };
                        // Some coordinates exactly on texel edges and centres.
                        let v = if j % 7 == 0 { (v * 4.0).round() / 4.0 } else { v };
                        coords.push(v);
                    }
                    let cbytes: Vec<u8> = coords.iter().flat_map(|x| x.to_le_bytes()).collect();
                    let cbuf = env.buffer(&cbytes);
                    let out = env.buffer(&vec![0u8; n * 16]);
                    let filter = if linear { CL_FILTER_LINEAR } else { CL_FILTER_NEAREST };
                    let s = env.sampler(norm, am, filter);
                    env.run(&src, "", "k", &[n], &[mem_arg(&img), smp_arg(&s), mem_arg(&cbuf), mem_arg(&out)]);
                    let got = f32s(&env.read_buffer(out, n * 16));
                    for i in 0..n {
                        let c = [coords[4 * i], coords[4 * i + 1], coords[4 * i + 2]];
                        // The coordinate components the kernel passes (the layer of a 1D array
                        // is .y, of a 2D array .z).
                        let want = r.sample(norm, am, linear, c);
                        for ch in 0..4 {
                            let g = got[4 * i + ch];
                            let ok = if linear {
                                (g - want[ch]).abs() <= 1e-5 * (1.0 + want[ch].abs())
                            } else {
                                same(g, want[ch])
                            };
                            assert!(
                                ok,
                                "{ity} am {am:#x} norm {norm} linear {linear} coord {c:?}: channel {ch} = {g}, want {}",
                                want[ch]
                            );
                        }
                    }
                    call!(clReleaseSampler(s));
                    call!(clReleaseMemObject(cbuf));
                    call!(clReleaseMemObject(out));
                }
            }
        }
        call!(clReleaseMemObject(img));
    }
}

/// Image queries on every type, a `constant sampler_t` literal and an image passed to a helper.
#[test]
fn queries_literal_samplers_and_helpers() {
    let env = Env::new();
    let f = fmt(CL_RG, CL_UNORM_INT16);
    let i1 = env.image(CL_MEM_READ_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE1D, 13, 0, 0, 0), None);
    let i1a = env.image(CL_MEM_READ_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 11, 0, 0, 5), None);
    let i2 = env.image(CL_MEM_READ_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE2D, 9, 7, 0, 0), None);
    let i2a = env.image(CL_MEM_READ_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 6, 4, 0, 3), None);
    let i3 = env.image(CL_MEM_READ_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE3D, 5, 3, 2, 0), None);
    let out = env.buffer(&[0u8; 4 * 20]);
    let src = "
        int order_and_type(read_only image2d_t i) {
            return get_image_channel_order(i) * 65536 + get_image_channel_data_type(i);
        }
        kernel void k(read_only image1d_t a, read_only image1d_array_t b, read_only image2d_t c,
                      read_only image2d_array_t d, read_only image3d_t e, global int *o) {
            o[0] = get_image_width(a);
            o[1] = get_image_width(b); o[2] = get_image_array_size(b);
            o[3] = get_image_width(c); o[4] = get_image_height(c);
            int2 dc = get_image_dim(c); o[5] = dc.x * 100 + dc.y;
            o[6] = get_image_width(d); o[7] = get_image_height(d); o[8] = get_image_array_size(d);
            int2 dd = get_image_dim(d); o[9] = dd.x * 100 + dd.y;
            o[10] = get_image_width(e); o[11] = get_image_height(e); o[12] = get_image_depth(e);
            int4 de = get_image_dim(e); o[13] = de.x * 10000 + de.y * 100 + de.z; o[14] = de.w;
            o[15] = order_and_type(c);
            // size_t results in 64-bit arithmetic (the upper half shows).
            *(global ulong *)(o + 16) = get_image_array_size(d) * 0x100000001ul + get_image_array_size(b);
        }";
    env.run(
        src,
        "",
        "k",
        &[1],
        &[mem_arg(&i1), mem_arg(&i1a), mem_arg(&i2), mem_arg(&i2a), mem_arg(&i3), mem_arg(&out)],
    );
    let got = u32s(&env.read_buffer(out, 72));
    let want = [13, 11, 5, 9, 7, 907, 6, 4, 3, 604, 5, 3, 2, 50302, 0, (CL_RG << 16 | CL_UNORM_INT16)];
    assert_eq!(&got[..16], &want);
    assert_eq!(&got[16..18], &[3 + 5, 3], "3 * 0x100000001 + 5");
    // A literal sampler gives what the same sampler object gives.
    let data: Vec<u8> = (0..9 * 7 * 4).map(|x| (x * 37 % 256) as u8).collect();
    let img = env.image(
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        fmt(CL_RGBA, CL_UNORM_INT8),
        &desc(CL_MEM_OBJECT_IMAGE2D, 9, 7, 0, 0),
        Some(&data),
    );
    let n = 40usize;
    let coords: Vec<f32> = (0..n * 2).map(|k| (k as f32 * 0.37).sin() * 1.7).collect();
    let cbytes: Vec<u8> = coords.iter().flat_map(|x| x.to_le_bytes()).collect();
    let cbuf = env.buffer(&cbytes);
    let (o1, o2) = (env.buffer(&vec![0u8; n * 16]), env.buffer(&vec![0u8; n * 16]));
    let src = "
        constant sampler_t lit = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;
        float4 via_helper(read_only image2d_t i, sampler_t s, float2 c) { return read_imagef(i, s, c); }
        kernel void with_literal(read_only image2d_t i, global const float2 *c, global float4 *o) {
            int k = get_global_id(0);
            o[k] = read_imagef(i, lit, c[k]);
        }
        kernel void with_object(read_only image2d_t i, sampler_t s, global const float2 *c, global float4 *o) {
            int k = get_global_id(0);
            o[k] = via_helper(i, s, c[k]);
        }";
    env.run(src, "", "with_literal", &[n], &[mem_arg(&img), mem_arg(&cbuf), mem_arg(&o1)]);
    let s = env.sampler(true, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_LINEAR);
    env.run(src, "", "with_object", &[n], &[mem_arg(&img), smp_arg(&s), mem_arg(&cbuf), mem_arg(&o2)]);
    let (a, b) = (env.read_buffer(o1, n * 16), env.read_buffer(o2, n * 16));
    assert_eq!(a, b);
    assert!(f32s(&a).iter().any(|x| *x != 0.0));
    for m in [i1, i1a, i2, i2a, i3, out, img, cbuf, o1, o2] {
        call!(clReleaseMemObject(m));
    }
    call!(clReleaseSampler(s));
}

/// A host model of an image's bytes on its addressing grid.
struct HostImage {
    grid: [usize; 3],
    ps: usize,
    bytes: Vec<u8>,
}

impl HostImage {
    fn at(&self, x: usize, y: usize, z: usize) -> usize {
        ((z * self.grid[1] + y) * self.grid[0] + x) * self.ps
    }

    /// Copies a region of `src` (grid origin `so`) over `dst` at `dor`.
    fn copy_from(&mut self, src: &HostImage, so: [usize; 3], dor: [usize; 3], r: [usize; 3]) {
        for z in 0..r[2] {
            for y in 0..r[1] {
                for x in 0..r[0] {
                    let s = src.at(so[0] + x, so[1] + y, so[2] + z);
                    let d = self.at(dor[0] + x, dor[1] + y, dor[2] + z);
                    self.bytes[d..d + self.ps].copy_from_slice(&src.bytes[s..s + self.ps]);
                }
            }
        }
    }
}

/// Reads `region` at `origin` into host memory with the given pitches, returning the host
/// buffer; checks it against the model.
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_read(
    env: &Env,
    img: cl_mem,
    model: &HostImage,
    origin: [usize; 3],
    region: [usize; 3],
    row: usize,
    slice: usize,
    layered_1d: bool,
) {
    let ps = model.ps;
    let row_p = if row == 0 { region[0] * ps } else { row };
    let slice_p = if slice == 0 {
        if layered_1d {
            row_p
        } else {
            row_p * region[1]
        }
    } else {
        slice
    };
    let size = if layered_1d { slice_p * region[1] } else { slice_p * region[2] };
    let mut host = vec![0xEEu8; size];
    let code = call!(clEnqueueReadImage(
        env.q,
        img,
        CL_TRUE,
        origin.as_ptr(),
        region.as_ptr(),
        row,
        slice,
        host.as_mut_ptr() as *mut c_void,
        0,
        null(),
        null_mut()
    ));
    check(code, "clEnqueueReadImage");
    for z in 0..region[2] {
        for y in 0..region[1] {
            let h = if layered_1d { y * slice_p } else { z * slice_p + y * row_p };
            let m = model.at(origin[0], origin[1] + y, origin[2] + z);
            assert_eq!(&host[h..h + region[0] * ps], &model.bytes[m..m + region[0] * ps], "row {y} slice {z}");
        }
    }
}

/// Every host image command with origins and pitches, on 2D, 3D and 1D array images, and images
/// from buffers.
#[test]
fn host_commands_move_the_right_pixels() {
    let env = Env::new();
    let f = fmt(CL_RGBA, CL_UNORM_INT8);
    let ps = 4;
    // 3D image from host memory with padded pitches.
    let (w, h, d) = (6usize, 5usize, 3usize);
    let (row, slice) = (w * ps + 8, (w * ps + 8) * h + 12);
    let slice = slice.next_multiple_of(row);
    let host3 = bytes(slice * d, 42);
    let mut dsc = desc(CL_MEM_OBJECT_IMAGE3D, w, h, d, 0);
    dsc.image_row_pitch = row;
    dsc.image_slice_pitch = slice;
    let img3 = env.image(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, f, &dsc, Some(&host3));
    let mut model3 = HostImage { grid: [w, h, d], ps, bytes: vec![0; w * h * d * ps] };
    for z in 0..d {
        for y in 0..h {
            let m = model3.at(0, y, z);
            model3.bytes[m..m + w * ps].copy_from_slice(&host3[z * slice + y * row..z * slice + y * row + w * ps]);
        }
    }
    check_read(&env, img3, &model3, [0, 0, 0], [w, h, d], 0, 0, false);
    check_read(&env, img3, &model3, [1, 2, 1], [4, 2, 2], 40, 100, false);
    // Write a region with padded host pitches.
    let (wo, wr) = ([2usize, 1, 0], [3usize, 3, 2]);
    let src = bytes(64 * 4 * 2, 5);
    let code = call!(clEnqueueWriteImage(
        env.q,
        img3,
        CL_TRUE,
        wo.as_ptr(),
        wr.as_ptr(),
        20,
        64,
        src.as_ptr() as *const c_void,
        0,
        null(),
        null_mut()
    ));
    check(code, "clEnqueueWriteImage");
    for z in 0..wr[2] {
        for y in 0..wr[1] {
            let m = model3.at(wo[0], wo[1] + y, wo[2] + z);
            model3.bytes[m..m + wr[0] * ps].copy_from_slice(&src[z * 64 + y * 20..z * 64 + y * 20 + wr[0] * ps]);
        }
    }
    check_read(&env, img3, &model3, [0, 0, 0], [w, h, d], 0, 0, false);
    // Fill a region.
    let colour = [1.0f32, 0.5, 0.0, 0.25];
    let (fo, fr) = ([1usize, 0, 1], [2usize, 4, 2]);
    let code = call!(clEnqueueFillImage(
        env.q,
        img3,
        colour.as_ptr() as *const c_void,
        fo.as_ptr(),
        fr.as_ptr(),
        0,
        null(),
        null_mut()
    ));
    check(code, "clEnqueueFillImage");
    call!(clFinish(env.q));
    for z in 0..fr[2] {
        for y in 0..fr[1] {
            for x in 0..fr[0] {
                let m = model3.at(fo[0] + x, fo[1] + y, fo[2] + z);
                model3.bytes[m..m + 4].copy_from_slice(&[255, 128, 0, 64]);
            }
        }
    }
    check_read(&env, img3, &model3, [0, 0, 0], [w, h, d], 0, 0, false);
    // Copy 3D → 2D (one slice) and 2D → 3D, at offsets.
    let img2 = env.image(CL_MEM_READ_WRITE, f, &desc(CL_MEM_OBJECT_IMAGE2D, 7, 4, 0, 0), None);
    let mut model2 = HostImage { grid: [7, 4, 1], ps, bytes: vec![0; 7 * 4 * ps] };
    let (so, dor, r) = ([1usize, 1, 2], [3usize, 0, 0], [4usize, 3, 1]);
    check(
        call!(clEnqueueCopyImage(env.q, img3, img2, so.as_ptr(), dor.as_ptr(), r.as_ptr(), 0, null(), null_mut())),
        "clEnqueueCopyImage",
    );
    model2.copy_from(&model3, so, dor, r);
    check_read(&env, img2, &model2, [0, 0, 0], [7, 4, 1], 0, 0, false);
    let (so, dor, r) = ([0usize, 0, 0], [2usize, 2, 0], [3usize, 3, 1]);
    check(
        call!(clEnqueueCopyImage(env.q, img2, img3, so.as_ptr(), dor.as_ptr(), r.as_ptr(), 0, null(), null_mut())),
        "clEnqueueCopyImage",
    );
    model3.copy_from(&model2, so, dor, r);
    check_read(&env, img3, &model3, [0, 0, 0], [w, h, d], 0, 0, false);
    // Image → buffer at an offset, buffer → image.
    let buf = env.buffer(&vec![0u8; 400]);
    let (o, r) = ([1usize, 2, 0], [3usize, 2, 2]);
    check(
        call!(clEnqueueCopyImageToBuffer(env.q, img3, buf, o.as_ptr(), r.as_ptr(), 16, 0, null(), null_mut())),
        "clEnqueueCopyImageToBuffer",
    );
    let got = env.read_buffer(buf, 400);
    let mut k = 16;
    for z in 0..2 {
        for y in 0..2 {
            let m = model3.at(1, 2 + y, z);
            assert_eq!(&got[k..k + 12], &model3.bytes[m..m + 12]);
            k += 12;
        }
    }
    let pattern = bytes(400, 9);
    let buf2 = env.buffer(&pattern);
    let (o, r) = ([0usize, 1, 0], [5usize, 3, 1]);
    check(
        call!(clEnqueueCopyBufferToImage(env.q, buf2, img2, 8, o.as_ptr(), r.as_ptr(), 0, null(), null_mut())),
        "clEnqueueCopyBufferToImage",
    );
    for y in 0..3 {
        let m = model2.at(0, 1 + y, 0);
        model2.bytes[m..m + 20].copy_from_slice(&pattern[8 + y * 20..8 + y * 20 + 20]);
    }
    check_read(&env, img2, &model2, [0, 0, 0], [7, 4, 1], 0, 0, false);
    // Map a region for writing, change it through the pointer, unmap.
    let (mo, mr) = ([2usize, 1, 0], [3usize, 2, 1]);
    let (mut rp, mut err) = (0usize, 0);
    let p = call!(clEnqueueMapImage(
        env.q,
        img2,
        CL_TRUE,
        CL_MAP_READ | CL_MAP_WRITE,
        mo.as_ptr(),
        mr.as_ptr(),
        &mut rp,
        null_mut(),
        0,
        null(),
        null_mut(),
        &mut err
    ));
    check(err, "clEnqueueMapImage");
    assert!(rp >= 3 * ps);
    for y in 0..2 {
        // SAFETY: the mapping covers `mr` rows of `rp` bytes from `p`.
        let row = unsafe { std::slice::from_raw_parts_mut((p as *mut u8).add(y * rp), 12) };
        let m = model2.at(2, 1 + y, 0);
        assert_eq!(row, &model2.bytes[m..m + 12], "mapped row {y}");
        row.fill(0x5A + y as u8);
        model2.bytes[m..m + 12].fill(0x5A + y as u8);
    }
    check(call!(clEnqueueUnmapMemObject(env.q, img2, p, 0, null(), null_mut())), "clEnqueueUnmapMemObject");
    check_read(&env, img2, &model2, [0, 0, 0], [7, 4, 1], 0, 0, false);
    // A 1D array: layers are rows of the grid; the host slice pitch separates layers.
    let arr = env.image(CL_MEM_READ_WRITE, f, &desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 0, 0, 4), None);
    let mut model1 = HostImage { grid: [5, 4, 1], ps, bytes: vec![0; 5 * 4 * ps] };
    let data = bytes(3 * 32, 77);
    let (o, r) = ([1usize, 1, 0], [3usize, 3, 1]);
    check(
        call!(clEnqueueWriteImage(
            env.q,
            arr,
            CL_TRUE,
            o.as_ptr(),
            r.as_ptr(),
            0,
            32,
            data.as_ptr() as *const c_void,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueWriteImage",
    );
    for y in 0..3 {
        let m = model1.at(1, 1 + y, 0);
        model1.bytes[m..m + 12].copy_from_slice(&data[y * 32..y * 32 + 12]);
    }
    check_read(&env, arr, &model1, [0, 0, 0], [5, 4, 1], 0, 0, true);
    check_read(&env, arr, &model1, [1, 1, 0], [4, 2, 1], 0, 24, true);
    // A 1D image buffer and a 2D image from a buffer share the buffer's bytes.
    let shared = env.buffer(&bytes(8 * 6 * ps, 3));
    let mut bd = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 48, 0, 0, 0);
    bd.buffer = shared;
    let img1b = env.image(CL_MEM_READ_WRITE, f, &bd, None);
    let mut bd2 = desc(CL_MEM_OBJECT_IMAGE2D, 8, 6, 0, 0);
    bd2.buffer = shared;
    let img2b = env.image(CL_MEM_READ_WRITE, f, &bd2, None);
    let out = env.buffer(&[0u8; 48 * 4]);
    let src = "kernel void k(read_only image1d_buffer_t a, write_only image2d_t b, global uint *o) {
        int i = get_global_id(0);
        uint4 p = read_imageui(a, i);
        o[i] = p.x | p.y << 8 | p.z << 16 | p.w << 24;
    }";
    let g = fmt(CL_RGBA, CL_UNSIGNED_INT8);
    let mut bd3 = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 48, 0, 0, 0);
    bd3.buffer = shared;
    let img1u = env.image(CL_MEM_READ_ONLY, g, &bd3, None);
    env.run(src, "", "k", &[48], &[mem_arg(&img1u), mem_arg(&img2b), mem_arg(&out)]);
    assert_eq!(env.read_buffer(out, 48 * 4), env.read_buffer(shared, 48 * 4));
    let img2b_bytes = env.read_image(img2b, [8, 6, 1], ps);
    assert_eq!(img2b_bytes, env.read_buffer(shared, 48 * 4));
    let mut buf_of: cl_mem = null_mut();
    check(
        call!(clGetImageInfo(img1b, CL_IMAGE_BUFFER, 8, &mut buf_of as *mut cl_mem as *mut c_void, null_mut())),
        "clGetImageInfo",
    );
    assert_eq!(buf_of, shared);
    for m in [img3, img2, buf, buf2, arr, img1b, img2b, img1u, out, shared] {
        call!(clReleaseMemObject(m));
    }
}

#[test]
fn image_errors_are_the_specs() {
    let env = Env::new();
    let f = fmt(CL_RGBA, CL_UNORM_INT8);
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0);
    let mut err = 0;
    let create = |flags, f: *const cl_image_format, d: &cl_image_desc, p: *mut c_void| {
        let mut e = 0;
        let m = call!(clCreateImage(env.ctx, flags, f, d, p, &mut e));
        if !m.is_null() {
            call!(clReleaseMemObject(m));
        }
        e
    };
    expect_err(create(0, null(), &d2, null_mut()), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "NULL format");
    expect_err(create(0, &fmt(CL_RGBA, 0x1234), &d2, null_mut()), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "bad type");
    expect_err(create(0, &fmt(CL_BGRA, CL_FLOAT), &d2, null_mut()), CL_IMAGE_FORMAT_NOT_SUPPORTED, "BGRA float");
    expect_err(
        create(0, &f, &desc(CL_MEM_OBJECT_IMAGE2D, 0, 8, 0, 0), null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "width 0",
    );
    expect_err(create(0, &f, &desc(CL_MEM_OBJECT_BUFFER, 8, 8, 0, 0), null_mut()), CL_INVALID_IMAGE_DESCRIPTOR, "type");
    expect_err(
        create(0, &f, &desc(CL_MEM_OBJECT_IMAGE2D, 20000, 8, 0, 0), null_mut()),
        CL_INVALID_IMAGE_SIZE,
        "too wide",
    );
    let mut pitched = d2;
    pitched.image_row_pitch = 64;
    expect_err(create(0, &f, &pitched, null_mut()), CL_INVALID_IMAGE_DESCRIPTOR, "pitch without host_ptr");
    let host = vec![0u8; 8 * 8 * 4];
    expect_err(create(0, &f, &d2, host.as_ptr() as *mut c_void), CL_INVALID_HOST_PTR, "host_ptr without flag");
    expect_err(create(CL_MEM_COPY_HOST_PTR, &f, &d2, null_mut()), CL_INVALID_HOST_PTR, "flag without host_ptr");
    let img = env.image(0, f, &d2, None);
    let buf = env.buffer(&[0u8; 256]);
    let mut out = vec![0u8; 1024];
    let (o, r) = ([0usize; 3], [8usize, 8, 1]);
    let read = |m: cl_mem, o: &[usize; 3], r: &[usize; 3], row: usize, slice: usize, p: *mut c_void| {
        call!(clEnqueueReadImage(env.q, m, CL_TRUE, o.as_ptr(), r.as_ptr(), row, slice, p, 0, null(), null_mut()))
    };
    let p = out.as_mut_ptr() as *mut c_void;
    check(read(img, &o, &r, 0, 0, p), "a whole-image read");
    expect_err(read(img, &[1, 0, 0], &r, 0, 0, p), CL_INVALID_VALUE, "region out of bounds");
    expect_err(read(img, &o, &[8, 8, 2], 0, 0, p), CL_INVALID_VALUE, "depth of a 2D image");
    expect_err(read(img, &o, &[8, 0, 1], 0, 0, p), CL_INVALID_VALUE, "zero region");
    expect_err(read(img, &o, &r, 0, 256, p), CL_INVALID_VALUE, "slice pitch of a 2D image");
    expect_err(read(img, &o, &r, 16, 0, p), CL_INVALID_VALUE, "row pitch below the row");
    expect_err(read(img, &o, &r, 0, 0, null_mut()), CL_INVALID_VALUE, "NULL ptr");
    expect_err(read(buf, &o, &r, 0, 0, p), CL_INVALID_MEM_OBJECT, "read image of a buffer");
    expect_err(
        call!(clEnqueueReadBuffer(env.q, img, CL_TRUE, 0, 4, p, 0, null(), null_mut())),
        CL_INVALID_MEM_OBJECT,
        "read buffer of an image",
    );
    let other = env.image(0, fmt(CL_RGBA, CL_FLOAT), &d2, None);
    let r1 = [2usize, 2, 1];
    expect_err(
        call!(clEnqueueCopyImage(env.q, img, other, o.as_ptr(), o.as_ptr(), r1.as_ptr(), 0, null(), null_mut())),
        CL_IMAGE_FORMAT_MISMATCH,
        "copy between formats",
    );
    let o2 = [1usize, 1, 0];
    expect_err(
        call!(clEnqueueCopyImage(env.q, img, img, o.as_ptr(), o2.as_ptr(), r1.as_ptr(), 0, null(), null_mut())),
        CL_MEM_COPY_OVERLAP,
        "overlapping copy",
    );
    let ok = [4usize, 4, 0];
    check(
        call!(clEnqueueCopyImage(env.q, img, img, o.as_ptr(), ok.as_ptr(), r1.as_ptr(), 0, null(), null_mut())),
        "disjoint copy within one image",
    );
    expect_err(
        call!(clEnqueueCopyImageToBuffer(env.q, img, buf, o.as_ptr(), r.as_ptr(), 4, 0, null(), null_mut())),
        CL_INVALID_VALUE,
        "copy beyond the buffer",
    );
    // Kernel arguments: an image where a buffer is declared and the converse; a bad sampler.
    let src = "kernel void k(read_only image2d_t i, sampler_t s, global float4 *o) { o[0] = read_imagef(i, s, (float2)(0.5f)); }";
    let text = CString::new(src).unwrap();
    let mut ptrs = [text.as_ptr()];
    let prog = call!(clCreateProgramWithSource(env.ctx, 1, ptrs.as_mut_ptr(), null(), &mut err));
    check(call!(clBuildProgram(prog, 0, null(), c"-cl-kernel-arg-info".as_ptr(), None, null_mut())), "clBuildProgram");
    let k = call!(clCreateKernel(prog, c"k".as_ptr(), &mut err));
    check(err, "clCreateKernel");
    let (a, b) = (mem_arg(&img), mem_arg(&buf));
    expect_err(call!(clSetKernelArg(k, 0, b.0, b.1)), CL_INVALID_MEM_OBJECT, "buffer for an image");
    expect_err(call!(clSetKernelArg(k, 2, a.0, a.1)), CL_INVALID_MEM_OBJECT, "image for a buffer");
    expect_err(call!(clSetKernelArg(k, 1, b.0, b.1)), CL_INVALID_SAMPLER, "buffer for a sampler");
    expect_err(call!(clSetKernelArg(k, 1, 4, b.1)), CL_INVALID_ARG_SIZE, "sampler size");
    check(call!(clSetKernelArg(k, 0, a.0, a.1)), "image argument");
    let wo = env.image(CL_MEM_WRITE_ONLY, f, &d2, None);
    let w = mem_arg(&wo);
    expect_err(call!(clSetKernelArg(k, 0, w.0, w.1)), CL_INVALID_ARG_VALUE, "a write-only image for read_only");
    call!(clReleaseMemObject(wo));
    let mut aq: cl_kernel_arg_access_qualifier = 0;
    check(
        call!(clGetKernelArgInfo(
            k,
            0,
            CL_KERNEL_ARG_ACCESS_QUALIFIER,
            4,
            &mut aq as *mut _ as *mut c_void,
            null_mut()
        )),
        "clGetKernelArgInfo",
    );
    assert_eq!(aq, CL_KERNEL_ARG_ACCESS_READ_ONLY);
    // Info queries.
    let t: cl_mem_object_type = info_value(cl().clGetMemObjectInfo, img, CL_MEM_TYPE);
    assert_eq!(t, CL_MEM_OBJECT_IMAGE2D);
    assert_eq!(info_value::<usize, _, _>(cl().clGetImageInfo, img, CL_IMAGE_ROW_PITCH), 32);
    assert_eq!(info_value::<usize, _, _>(cl().clGetImageInfo, img, CL_IMAGE_DEPTH), 0);
    assert_eq!(info_value::<usize, _, _>(cl().clGetImageInfo, img, CL_IMAGE_ELEMENT_SIZE), 4);
    expect_err(
        call!(clGetImageInfo(buf, CL_IMAGE_WIDTH, 8, out.as_mut_ptr() as *mut c_void, null_mut())),
        CL_INVALID_MEM_OBJECT,
        "image info of a buffer",
    );
    let s = env.sampler(false, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR);
    assert_eq!(info_value::<cl_uint, _, _>(cl().clGetSamplerInfo, s, CL_SAMPLER_FILTER_MODE), CL_FILTER_LINEAR);
    assert_eq!(info_value::<cl_bool, _, _>(cl().clGetSamplerInfo, s, CL_SAMPLER_NORMALIZED_COORDS), CL_FALSE);
    let props = [
        CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
        CL_FILTER_LINEAR as _,
        CL_SAMPLER_FILTER_MODE as _,
        CL_FILTER_NEAREST as _,
        0,
    ];
    let bad = call!(clCreateSamplerWithProperties(env.ctx, props.as_ptr(), &mut err));
    assert!(bad.is_null());
    expect_err(err, CL_INVALID_VALUE, "a property twice");
    call!(clReleaseSampler(s));
    call!(clReleaseKernel(k));
    call!(clReleaseProgram(prog));
    for m in [img, buf, other] {
        call!(clReleaseMemObject(m));
    }
}

/// `read_write` images with an image fence (OpenCL C 3.0), `read_imageh`/`write_imageh`, 3D image
/// writes, an image chosen by `?:`, and unoptimized builds (image values in function variables).
#[test]
fn read_write_half_3d_writes_and_unoptimized_builds() {
    let env = Env::new();
    let (w, h) = (5usize, 4usize);
    // read_write: each pixel doubled in place.
    let data: Vec<f32> = (0..w * h * 4).map(|k| k as f32 * 0.5 - 3.0).collect();
    let bytes_in: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    let f = fmt(CL_RGBA, CL_FLOAT);
    let img = env.image(
        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
        f,
        &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0),
        Some(&bytes_in),
    );
    let src = "kernel void k(read_write image2d_t img) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        float4 v = read_imagef(img, p);
        atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);
        write_imagef(img, p, v * 2.0f);
    }";
    env.run(src, "-cl-std=CL3.0", "k", &[w, h], &[mem_arg(&img)]);
    let got = f32s(&env.read_image(img, [w, h, 1], 16));
    assert_eq!(got, data.iter().map(|x| x * 2.0).collect::<Vec<_>>());
    // Half: read_imageh, times two, write_imageh (exact in half).
    let hf = fmt(CL_RGBA, CL_HALF_FLOAT);
    let mut hb = bytes(w * h * 8, 11);
    for c in hb.chunks_exact_mut(2) {
        c[1] &= 0xbb; // finite halves of moderate size
    }
    let hsrc =
        env.image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, hf, &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0), Some(&hb));
    let hdst = env.image(CL_MEM_WRITE_ONLY, hf, &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0), None);
    let src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void k(read_only image2d_t a, write_only image2d_t b) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imageh(b, p, read_imageh(a, p) * (half)2.0f);
    }";
    env.run(src, "", "k", &[w, h], &[mem_arg(&hsrc), mem_arg(&hdst)]);
    let got = env.read_image(hdst, [w, h, 1], 8);
    for (k, c) in hb.chunks_exact(2).enumerate() {
        let x = half::f16::from_bits(u16::from_le_bytes([c[0], c[1]]));
        let want = half::f16::from_f32(x.to_f32() * 2.0).to_bits();
        assert_eq!(u16::from_le_bytes([got[2 * k], got[2 * k + 1]]), want, "half {k}: {x}");
    }
    // 3D writes.
    let g = fmt(CL_RGBA, CL_UNSIGNED_INT8);
    let (x3, y3, z3) = (3usize, 4usize, 2usize);
    let img3 = env.image(CL_MEM_WRITE_ONLY, g, &desc(CL_MEM_OBJECT_IMAGE3D, x3, y3, z3, 0), None);
    let src = "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable
    kernel void k(write_only image3d_t img) {
        int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
        write_imageui(img, p, (uint4)(p.x, p.y, p.z, 7));
    }";
    env.run(src, "", "k", &[x3, y3, z3], &[mem_arg(&img3)]);
    let got = env.read_image(img3, [x3, y3, z3], 4);
    for z in 0..z3 {
        for y in 0..y3 {
            for x in 0..x3 {
                let k = ((z * y3 + y) * x3 + x) * 4;
                assert_eq!(&got[k..k + 4], &[x as u8, y as u8, z as u8, 7]);
            }
        }
    }
    // One of two images read by one call (clang merges the branches into a select of images),
    // through a helper, built with and without optimization.
    let other = env.image(CL_MEM_READ_ONLY, f, &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0), None);
    let src = "float4 rd(read_only image2d_t i, int2 p) { return read_imagef(i, p); }
    kernel void k(read_only image2d_t a, read_only image2d_t b, int pick, global float4 *out) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        float4 v;
        if (pick)
            v = rd(a, p);
        else
            v = rd(b, p);
        out[p.y * get_image_width(a) + p.x] = v;
    }";
    for opts in ["", "-cl-opt-disable"] {
        for pick in [1i32, 0] {
            let out = env.buffer(&vec![0u8; w * h * 16]);
            env.run(
                src,
                opts,
                "k",
                &[w, h],
                &[mem_arg(&img), mem_arg(&other), (4, &pick as *const i32 as *const c_void), mem_arg(&out)],
            );
            let got = f32s(&env.read_buffer(out, w * h * 16));
            let want: Vec<f32> = if pick == 1 { data.iter().map(|x| x * 2.0).collect() } else { vec![0.0; w * h * 4] };
            assert_eq!(got, want, "{opts:?} pick {pick}");
            call!(clReleaseMemObject(out));
        }
    }
    for m in [img, hsrc, hdst, img3, other] {
        call!(clReleaseMemObject(m));
    }
}

/// Integer coordinates with a sampler (unnormalized, nearest): the addressing mode applies to
/// the integer position (OpenCL C §6.15.15.2).
#[test]
fn integer_coordinates_with_a_sampler() {
    let env = Env::new();
    let (w, h) = (5usize, 4usize);
    let data: Vec<f32> = (0..w * h * 4).map(|k| k as f32).collect();
    let bytes_in: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    let img = env.image(
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        fmt(CL_RGBA, CL_FLOAT),
        &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0),
        Some(&bytes_in),
    );
    let src = "kernel void k(read_only image2d_t img, sampler_t s, global float4 *out) {
        int x = get_global_id(0) - 3, y = get_global_id(1) - 3;
        out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = read_imagef(img, s, (int2)(x, y));
    }";
    let (gw, gh) = (w + 6, h + 6);
    for (am, with_properties) in [
        (CL_ADDRESS_NONE, false),
        (CL_ADDRESS_CLAMP_TO_EDGE, false),
        (CL_ADDRESS_CLAMP, false),
        (CL_ADDRESS_CLAMP_TO_EDGE, true),
    ] {
        let s = if with_properties {
            let props = [
                CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
                CL_FALSE as _,
                CL_SAMPLER_ADDRESSING_MODE as _,
                am as _,
                CL_SAMPLER_FILTER_MODE as _,
                CL_FILTER_NEAREST as _,
                0,
            ];
            let mut err = 0;
            let s = call!(clCreateSamplerWithProperties(env.ctx, props.as_ptr(), &mut err));
            check(err, "clCreateSamplerWithProperties");
            s
        } else {
            env.sampler(false, am, CL_FILTER_NEAREST)
        };
        let out = env.buffer(&vec![0u8; gw * gh * 16]);
        env.run(src, "", "k", &[gw, gh], &[mem_arg(&img), smp_arg(&s), mem_arg(&out)]);
        let got = f32s(&env.read_buffer(out, gw * gh * 16));
        for gy in 0..gh {
            for gx in 0..gw {
                let (x, y) = (gx as i64 - 3, gy as i64 - 3);
                let (x, y) = match am {
                    CL_ADDRESS_CLAMP_TO_EDGE => (x.clamp(0, w as i64 - 1), y.clamp(0, h as i64 - 1)),
                    _ => (x, y),
                };
                let inside = (0..w as i64).contains(&x) && (0..h as i64).contains(&y);
                let want: Vec<f32> =
                    if inside { data[((y as usize) * w + x as usize) * 4..][..4].to_vec() } else { vec![0.0; 4] };
                let k = (gy * gw + gx) * 4;
                assert_eq!(&got[k..k + 4], &want[..], "mode {am:#x} at ({x}, {y})");
            }
        }
        call!(clReleaseSampler(s));
        call!(clReleaseMemObject(out));
    }
    call!(clReleaseMemObject(img));
}

/// Under the memory checker, a write outside an image and a read without a sampler outside it
/// stop the launch with a report naming the kernel, the image argument, its size and the
/// pixel; reads with a sampler (defined by its addressing mode) and accesses inside pass, and
/// the context stays usable. Without the checker the same kernels run: the write is dropped and
/// the read gives the border colour.
#[test]
fn memcheck_names_the_image_argument_and_the_pixel() {
    let writer = "kernel void w(global int *pad, write_only image2d_t img, int dx) {
        int x = get_global_id(0), y = get_global_id(1);
        write_imagef(img, (int2)(x + dx, y), (float4)(0.25f, 0.5f, 0.75f, 1.0f));
    }";
    let reader = "constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    kernel void r(read_only image2d_t img, global float4 *out, int sampled) {
        int i = get_global_id(0);
        out[i] = sampled ? read_imagef(img, smp, (int2)(i, 1)) : read_imagef(img, (int2)(i, 1));
    }";
    let f = fmt(CL_RGBA, CL_UNORM_INT8);
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, 8, 4, 1, 1);
    let messages = Messages::default();
    {
        let env = Env::memcheck(&messages);
        let pad = env.buffer(&[0u8; 64]);
        let img = env.image(CL_MEM_WRITE_ONLY, f, &d2, None);
        let run_w = |dx: i32| env.launch(writer, "", "w", &[8, 4], &[mem_arg(&pad), mem_arg(&img), val_arg(&dx)]);
        assert_eq!(run_w(0), CL_COMPLETE, "a write inside the image passes the checker");
        let status = run_w(3);
        assert!(status < 0, "a write outside: status {}", err_name(status));
        let m = messages.lock().unwrap().join("\n");
        assert!(m.contains("kernel `w`"), "{m}");
        assert!(m.contains("memcheck: image write outside its image at pixel (8, "), "{m}");
        assert!(m.contains("the image is argument 1 (8 x 4 x 1 pixels)"), "{m}");
        assert!(m.contains(" at <source>:3:"), "the report names the write's source line: {m}");
        messages.lock().unwrap().clear();
        // Reads: the same image (now fully written) through a read-only image of the same data.
        let data = env.read_image(img, [8, 4, 1], 4);
        let ro = env.image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, f, &d2, Some(&data));
        let out = env.buffer(&[0u8; 16 * 9]);
        let run_r = |n: usize, sampled: i32| {
            env.launch(reader, "", "r", &[n], &[mem_arg(&ro), mem_arg(&out), val_arg(&sampled)])
        };
        assert_eq!(run_r(8, 0), CL_COMPLETE, "reads inside pass");
        assert_eq!(run_r(9, 1), CL_COMPLETE, "a read with a sampler outside is defined (CLK_ADDRESS_CLAMP)");
        let got = f32s(&env.read_buffer(out, 16 * 9));
        assert_eq!(&got[32..36], &[0.0; 4], "the border colour of CL_RGBA");
        assert_eq!(messages.lock().unwrap().len(), 0, "nothing reported for defined accesses");
        let status = run_r(9, 0);
        assert!(status < 0, "a read without a sampler outside: status {}", err_name(status));
        let m = messages.lock().unwrap().join("\n");
        assert!(m.contains("memcheck: image read without a sampler outside its image at pixel (8, 1, 0)"), "{m}");
        assert!(m.contains("work-item (8,0,0)"), "{m}");
        assert!(m.contains("the image is argument 0 (8 x 4 x 1 pixels)"), "{m}");
        // The context stays usable.
        assert_eq!(run_r(8, 0), CL_COMPLETE, "the context runs a correct launch afterwards");
        for m in [pad, img, ro, out] {
            call!(clReleaseMemObject(m));
        }
    }
    // Without the checker: the same kernels complete; the write outside is dropped and the
    // read outside gives the border colour.
    let env = Env::new();
    let init: Vec<u8> = (0..8 * 4 * 4).map(|i| i as u8).collect();
    let img = env.image(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, f, &d2, Some(&init));
    let pad = env.buffer(&[0u8; 64]);
    let dx = 3i32;
    env.run(writer, "", "w", &[8, 4], &[mem_arg(&pad), mem_arg(&img), val_arg(&dx)]);
    let got = env.read_image(img, [8, 4, 1], 4);
    for y in 0..4 {
        for x in 0..8 {
            let p = &got[(y * 8 + x) * 4..][..4];
            let want: Vec<u8> = if x >= 3 { vec![64, 128, 191, 255] } else { init[(y * 8 + x) * 4..][..4].to_vec() };
            assert_eq!(p, &want[..], "pixel ({x}, {y})");
        }
    }
    let out = env.buffer(&[0xffu8; 16 * 9]);
    let plain = 0i32;
    env.run(reader, "", "r", &[9], &[mem_arg(&img), mem_arg(&out), val_arg(&plain)]);
    let got = f32s(&env.read_buffer(out, 16 * 9));
    assert_eq!(&got[32..36], &[0.0; 4], "a read outside gives the border colour");
    assert_eq!(got[4], 36.0 / 255.0, "pixel (1, 1), not written");
    for m in [img, pad, out] {
        call!(clReleaseMemObject(m));
    }
}

/// Depth images (`cl_khr_depth_images`): a 2D depth array written by one kernel and read by
/// another with its queries, a fill from a single float, a copy between depth images, and the
/// format checks of `clCreateImage`.
#[test]
fn depth_images_arrays_queries_fills_copies_and_errors() {
    let env = Env::new();
    let fu = fmt(CL_DEPTH, CL_UNORM_INT16);
    let (w, h, a) = (5usize, 3usize, 4usize);
    let n = w * h * a;
    let arr = env.image(CL_MEM_READ_WRITE, fu, &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, w, h, 0, a), None);
    let src = "
        kernel void put(write_only image2d_array_depth_t img) {
            int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
            write_imagef(img, (int4)(x, y, z, 0), (float)(x + 8 * y + 32 * z) / 127.0f - 0.25f);
        }
        kernel void get(read_only image2d_array_depth_t img, global float *o, global int *q) {
            int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
            o[(z * get_image_height(img) + y) * get_image_width(img) + x] = read_imagef(img, (int4)(x, y, z, 0));
            if (x + y + z == 0) {
                q[0] = get_image_width(img); q[1] = get_image_height(img); q[2] = get_image_array_size(img);
                int2 d = get_image_dim(img); q[3] = d.x * 100 + d.y;
                q[4] = get_image_channel_order(img) == CLK_DEPTH;
                q[5] = get_image_channel_data_type(img) == CLK_UNORM_INT16;
            }
        }";
    env.run(src, "", "put", &[w, h, a], &[mem_arg(&arr)]);
    let value = |x: usize, y: usize, z: usize| (x + 8 * y + 32 * z) as f32 / 127.0 - 0.25;
    let stored = env.read_image(arr, [w, h, a], 2);
    let mut want_stored = Vec::new();
    for z in 0..a {
        for y in 0..h {
            for x in 0..w {
                want_stored.extend(encode(&fu, [value(x, y, z).to_bits(), 0, 0, 0]));
            }
        }
    }
    assert_eq!(stored, want_stored, "the depth array's texels");
    let (o, q) = (env.buffer(&vec![0u8; n * 4]), env.buffer(&[0u8; 24]));
    env.run(src, "", "get", &[w, h, a], &[mem_arg(&arr), mem_arg(&o), mem_arg(&q)]);
    let got = f32s(&env.read_buffer(o, n * 4));
    for (p, px) in want_stored.chunks_exact(2).enumerate() {
        let want = decode_f(&fu, px)[0];
        assert!(same(got[p], want), "texel {p}: {} (want {want})", got[p]);
    }
    assert_eq!(u32s(&env.read_buffer(q, 24)), [w as u32, h as u32, a as u32, (w * 100 + h) as u32, 1, 1]);

    // A fill takes one float for a depth image (the pointer to it is all the command may read).
    let ff = fmt(CL_DEPTH, CL_FLOAT);
    let init: Vec<u8> = (0..w * h).flat_map(|k| (k as f32 * 0.5).to_le_bytes()).collect();
    let img =
        env.image(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ff, &desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0), Some(&init));
    let colour = Box::new(0.75f32);
    let (fo, fr) = ([1usize, 1, 0], [3usize, 2, 1]);
    let code = call!(clEnqueueFillImage(
        env.q,
        img,
        &*colour as *const f32 as *const c_void,
        fo.as_ptr(),
        fr.as_ptr(),
        0,
        null(),
        null_mut()
    ));
    check(code, "clEnqueueFillImage");
    let mut model = f32s(&init);
    for y in fo[1]..fo[1] + fr[1] {
        for x in fo[0]..fo[0] + fr[0] {
            model[y * w + x] = 0.75;
        }
    }
    assert_eq!(f32s(&env.read_image(img, [w, h, 1], 4)), model, "after the fill");

    // A copy of the filled 2D depth image into layer 2 of a 2D depth array.
    let arr_f = env.image(CL_MEM_READ_WRITE, ff, &desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, w, h, 0, 3), None);
    let zero = [0.0f32];
    let whole = [w, h, 3];
    let code = call!(clEnqueueFillImage(
        env.q,
        arr_f,
        zero.as_ptr() as *const c_void,
        [0usize; 3].as_ptr(),
        whole.as_ptr(),
        0,
        null(),
        null_mut()
    ));
    check(code, "clEnqueueFillImage (array)");
    let (so, dor, r) = ([0usize; 3], [0usize, 0, 2], [w, h, 1]);
    check(
        call!(clEnqueueCopyImage(env.q, img, arr_f, so.as_ptr(), dor.as_ptr(), r.as_ptr(), 0, null(), null_mut())),
        "clEnqueueCopyImage",
    );
    let got = f32s(&env.read_image(arr_f, [w, h, 3], 4));
    assert!(got[..2 * w * h].iter().all(|v| *v == 0.0), "layers 0 and 1 stay zero");
    assert_eq!(&got[2 * w * h..], &model[..], "layer 2 is the copy");

    // CL_DEPTH: only CL_UNORM_INT16 and CL_FLOAT, only 2D images and arrays.
    let mut err = 0;
    let bad = fmt(CL_DEPTH, CL_UNORM_INT8);
    let m = call!(clCreateImage(
        env.ctx,
        CL_MEM_READ_WRITE,
        &bad,
        &desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0),
        null_mut(),
        &mut err
    ));
    assert!(m.is_null());
    assert_eq!(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "CL_DEPTH with CL_UNORM_INT8: {}", err_name(err));
    for d in [desc(CL_MEM_OBJECT_IMAGE1D, 4, 0, 0, 0), desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0)] {
        let m = call!(clCreateImage(env.ctx, CL_MEM_READ_WRITE, &ff, &d, null_mut(), &mut err));
        assert!(m.is_null());
        assert_eq!(err, CL_IMAGE_FORMAT_NOT_SUPPORTED, "a depth image of type {:#x}: {}", d.image_type, err_name(err));
    }
    for m in [arr, o, q, img, arr_f] {
        call!(clReleaseMemObject(m));
    }
}
