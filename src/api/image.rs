//! Image entry points (OpenCL 3.0 §5.3): creation, `clGetSupportedImageFormats`,
//! `clGetImageInfo`, and the image commands (read, write, copy, fill, map, copies to and from
//! buffers).
//!
//! Contracts: every spec error clause is checked here, in the spec's order, before an object is
//! created or a command enqueued; the image objects live in [`crate::core::image`] and their
//! pixels are moved by `core::memory`'s rect transfers. Origins and regions are in pixels on
//! the image's addressing grid (`core::image`), so one check covers every image type: a 1D
//! image needs `origin[1] = origin[2] = 0` and `region[1] = region[2] = 1`, and so on.

use super::transfer::{enqueue, finish, triple};
use super::{check, info, memory, object, ptr, status};
use crate::cl::object::{Obj, Ref};
use crate::cl::*;
use crate::core::command_buffer::Op;
use crate::core::context::Context;
use crate::core::device as dev;
use crate::core::event::Event;
use crate::core::image::{self, Image, Kind, Shape, Storage};
use crate::core::image_format;
use crate::core::memory::{HostMemory, Mem, RectSide};
use crate::core::queue::{Queue, Work};
use libc::size_t;
use std::ffi::c_void;
use std::sync::Arc;

/// Image object types of `clGetSupportedImageFormats`.
const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// Memory flags valid for images: a buffer's, plus `CL_MEM_KERNEL_READ_AND_WRITE`.
fn check_image_flags(flags: cl_mem_flags) -> CLResult<()> {
    memory::check_flags(flags & !CL_MEM_KERNEL_READ_AND_WRITE)
}

/// The image of a memory object, or `CL_INVALID_MEM_OBJECT` for a buffer.
pub(super) fn image_of(m: &Mem) -> CLResult<&Image> {
    m.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)
}

pub extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
        Obj::<Context>::get(context)?;
        // Spec: "CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0
        // and image_formats is not NULL."
        check_image_flags(flags)?;
        check(IMAGE_TYPES.contains(&image_type), CL_INVALID_VALUE)?;
        check(num_entries != 0 || image_formats.is_null(), CL_INVALID_VALUE)?;
        let formats = image_format::supported(flags, image_type);
        if !image_formats.is_null() {
            let n = formats.len().min(num_entries as usize);
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`):
            // `image_formats` holds `num_entries` formats.
            unsafe { std::ptr::copy_nonoverlapping(formats.as_ptr(), image_formats, n) };
        }
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(num_image_formats, formats.len() as cl_uint) };
        Ok(())
    })
}

/// The largest extent of each dimension an image type allows (width, height, depth or array
/// size) — `CL_DEVICE_IMAGE*_MAX_*`.
fn limits(t: cl_mem_object_type) -> [usize; 4] {
    let (w2, w3) = (dev::IMAGE2D_MAX_WIDTH, dev::IMAGE3D_MAX_WIDTH);
    match t {
        CL_MEM_OBJECT_IMAGE1D_BUFFER => [dev::IMAGE_MAX_BUFFER_SIZE, 1, 1, 0],
        CL_MEM_OBJECT_IMAGE3D => [w3, w3, w3, 0],
        _ => [w2, w2, 1, dev::IMAGE_MAX_ARRAY_SIZE],
    }
}

/// Everything `clCreateImage` checks, then the image.
fn create_image(
    context: cl_context,
    properties: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> CLResult<cl_mem> {
    // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
    let ctx = Obj::<Context>::get(context)?;
    // Spec: "CL_INVALID_VALUE if values specified in flags are not valid."
    check_image_flags(flags)?;
    // Spec: "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not
    // valid or if image_format is NULL."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let format = unsafe { ptr::slice(image_format, 1, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) }?[0];
    let pixel_bytes = image_format::pixel_bytes(&format).ok_or(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?;
    // Spec: "CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid or if
    // image_desc is NULL."
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
    let desc = unsafe { ptr::slice(image_desc, 1, CL_INVALID_IMAGE_DESCRIPTOR) }?[0];
    let t = desc.image_type;
    check(IMAGE_TYPES.contains(&t), CL_INVALID_IMAGE_DESCRIPTOR)?;
    let arrayed = matches!(t, CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY);
    let two_d = matches!(t, CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D);
    let valid = desc.image_width != 0
        && (!two_d || desc.image_height != 0)
        && (t != CL_MEM_OBJECT_IMAGE3D || desc.image_depth != 0)
        && (!arrayed || desc.image_array_size != 0)
        && desc.num_mip_levels == 0
        && desc.num_samples == 0;
    check(valid, CL_INVALID_IMAGE_DESCRIPTOR)?;
    let mem_object = desc.buffer;
    // "buffer": a valid buffer for CL_MEM_OBJECT_IMAGE1D_BUFFER, optional for a 2D image (an
    // image from a buffer), NULL otherwise.
    let buffer = if mem_object.is_null() {
        check(t != CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_INVALID_IMAGE_DESCRIPTOR)?;
        None
    } else {
        check(matches!(t, CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D), CL_INVALID_IMAGE_DESCRIPTOR)?;
        let b = Obj::<Mem>::get(mem_object).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
        // A 2D image from another image (OpenCL 2.0 "image from image") is not offered.
        check(b.image.is_none() && Arc::ptr_eq(&b.context, &ctx), CL_INVALID_IMAGE_DESCRIPTOR)?;
        Some(b)
    };
    // Pitches: "must be 0 if host_ptr is NULL" (an image from a buffer may give a row pitch).
    let may_pitch = !host_ptr.is_null() || buffer.is_some();
    check(may_pitch || (desc.image_row_pitch == 0 && desc.image_slice_pitch == 0), CL_INVALID_IMAGE_DESCRIPTOR)?;
    let shape = Shape {
        mem_type: t,
        width: desc.image_width,
        height: desc.image_height,
        depth: desc.image_depth,
        array_size: desc.image_array_size,
        row_pitch: desc.image_row_pitch,
        slice_pitch: if buffer.is_some() { 0 } else { desc.image_slice_pitch },
    };
    let s = shape.resolved(pixel_bytes).ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    let mut flags = flags;
    if let Some(b) = &buffer {
        // Spec: "CL_INVALID_VALUE if an image is being created from another memory object
        // (buffer or image) under one of the following circumstances: 1) mem_object was created
        // with CL_MEM_WRITE_ONLY and flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, 2)
        // mem_object was created with CL_MEM_READ_ONLY and flags specifies CL_MEM_READ_WRITE or
        // CL_MEM_WRITE_ONLY, 3) flags specifies CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or
        // CL_MEM_COPY_HOST_PTR" (and the same for the host access flags).
        memory::check_sub_flags(b.flags, flags & !CL_MEM_KERNEL_READ_AND_WRITE)?;
        flags = memory::inherit_flags(b.flags, flags);
        // A 2D image from a buffer: its row pitch a multiple of CL_DEVICE_IMAGE_PITCH_ALIGNMENT
        // pixels, and the buffer large enough ("CL_INVALID_IMAGE_DESCRIPTOR ... if the size of
        // the buffer ... is not large enough").
        let bytes = s.bytes().ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
        check(bytes <= b.size, CL_INVALID_IMAGE_DESCRIPTOR)?;
    }
    // Spec: "CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc exceed the
    // maximum image dimensions described in the Device Queries table for all devices in
    // context." (Also an image larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE.)
    let max = limits(t);
    let dims = [s.width, s.height, s.depth, s.array_size];
    check(dims.iter().zip(max).all(|(d, m)| *d <= m.max(1)), CL_INVALID_IMAGE_SIZE)?;
    let bytes = s.bytes().ok_or(CL_INVALID_IMAGE_SIZE)?;
    check(bytes as u64 <= dev::MAX_MEM_ALLOC_SIZE, CL_INVALID_IMAGE_SIZE)?;
    // Spec: "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR
    // or CL_MEM_USE_HOST_PTR are not set in flags."
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 && buffer.is_none();
    check(wants_ptr != host_ptr.is_null(), CL_INVALID_HOST_PTR)?;
    // Spec: "CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that support
    // image_format."
    check(image_format::is_supported(&format, flags, t), CL_IMAGE_FORMAT_NOT_SUPPORTED)?;
    let init = if wants_ptr {
        // The host memory holds the image with `s`'s pitches (the application's, or tight).
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        Some(unsafe { ptr::slice(host_ptr as *const u8, bytes, CL_INVALID_HOST_PTR) }?)
    } else {
        None
    };
    let host = (flags & CL_MEM_USE_HOST_PTR != 0 && buffer.is_none()).then(|| {
        // SAFETY: CL_MEM_USE_HOST_PTR: the application provides the image's bytes at `host_ptr`
        // as its storage, valid until the object is destroyed.
        unsafe { HostMemory::new(host_ptr as *mut u8, bytes) }
    });
    let storage = match &buffer {
        Some(b) => Storage::Buffer(b),
        None => Storage::New { init, host, properties },
    };
    let mem = image::create(ctx, flags, format, shape, storage)?;
    Ok(Obj::new(mem).handle())
}

pub extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || create_image(context, Vec::new(), flags, image_format, image_desc, host_ptr))
}

pub extern "C" fn clCreateImageWithProperties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // Spec: "CL_INVALID_CONTEXT if context is not a valid context."
        Obj::<Context>::get(context)?;
        // Spec: "CL_INVALID_PROPERTY if a property name in properties is not a supported
        // property name" — none is.
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let props = unsafe { ptr::property_list(properties) }?;
        check(props.first().is_none_or(|&p| p == 0), CL_INVALID_PROPERTY)?;
        create_image(context, props, flags, image_format, image_desc, host_ptr)
    })
}

/// A descriptor of the OpenCL 1.x creation functions.
fn desc_1x(t: cl_mem_object_type, w: usize, h: usize, d: usize, row: usize, slice: usize) -> cl_image_desc {
    cl_image_desc {
        image_type: t,
        image_width: w,
        image_height: h,
        image_depth: d,
        image_array_size: 0,
        image_row_pitch: row,
        image_slice_pitch: slice,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

/// The 1.x functions have no descriptor: what `clCreateImage` reports as an invalid descriptor
/// (zero or too small sizes and pitches) they report as `CL_INVALID_IMAGE_SIZE`.
fn size_error_1x(e: cl_int) -> cl_int {
    if e == CL_INVALID_IMAGE_DESCRIPTOR {
        CL_INVALID_IMAGE_SIZE
    } else {
        e
    }
}

pub extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: size_t,
    image_height: size_t,
    image_row_pitch: size_t,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        let d = desc_1x(CL_MEM_OBJECT_IMAGE2D, image_width, image_height, 1, image_row_pitch, 0);
        create_image(context, Vec::new(), flags, image_format, &d, host_ptr).map_err(size_error_1x)
    })
}

pub extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: size_t,
    image_height: size_t,
    image_depth: size_t,
    image_row_pitch: size_t,
    image_slice_pitch: size_t,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    object(errcode_ret, || {
        // A 3D image needs a depth of at least 2 in OpenCL 1.x ("CL_INVALID_IMAGE_SIZE if
        // image_width, image_height are 0 or if image_depth ≤ 1"): depth 0 is refused below.
        let depth = if image_depth > 1 { image_depth } else { 0 };
        let d = desc_1x(CL_MEM_OBJECT_IMAGE3D, image_width, image_height, depth, image_row_pitch, image_slice_pitch);
        create_image(context, Vec::new(), flags, image_format, &d, host_ptr).map_err(size_error_1x)
    })
}

pub extern "C" fn clGetImageInfo(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: size_t,
    param_value: *mut c_void,
    param_value_size_ret: *mut size_t,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_MEM_OBJECT if image is a not a valid image object."
        let m = Obj::<Mem>::get(image)?;
        let i = image_of(&m)?;
        let (s, v, r) = (param_value_size, param_value, param_value_size_ret);
        let kind = i.kind();
        let one_d = matches!(kind, Kind::Image1D | Kind::Image1DBuffer | Kind::Image1DArray);
        match param_name {
            CL_IMAGE_FORMAT => {
                let f = [i.format.image_channel_order, i.format.image_channel_data_type];
                info::write(&f[..], s, v, r)
            }
            CL_IMAGE_ELEMENT_SIZE => info::write(&i.pixel_bytes, s, v, r),
            CL_IMAGE_ROW_PITCH => info::write(&i.row_pitch, s, v, r),
            CL_IMAGE_SLICE_PITCH => info::write(&i.slice_pitch, s, v, r),
            CL_IMAGE_WIDTH => info::write(&i.width, s, v, r),
            CL_IMAGE_HEIGHT => info::write(&if one_d { 0 } else { i.height }, s, v, r),
            CL_IMAGE_DEPTH => info::write(&if kind == Kind::Image3D { i.depth } else { 0 }, s, v, r),
            CL_IMAGE_ARRAY_SIZE => info::write(&i.array_size, s, v, r),
            CL_IMAGE_BUFFER => {
                let b = m.parent.as_ref().map_or(std::ptr::null_mut(), |p| p.handle());
                info::write(&info::Ptr(b), s, v, r)
            }
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => info::write(&0u32, s, v, r),
            _ => Err(CL_INVALID_VALUE),
        }
    })
}

// ---- commands ------------------------------------------------------------------------------

/// The queue and image of a command, in the spec's order.
fn queue_and_image(queue: cl_command_queue, mem: cl_mem) -> CLResult<(Ref<Queue>, Ref<Mem>)> {
    // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
    let q = Obj::<Queue>::get(queue)?;
    let m = image_in(&q.context, mem)?;
    Ok((q, m))
}

/// Origin and region of an image command, checked against the image: "CL_INVALID_VALUE if the
/// region being read or written specified by origin and region is out of bounds or if ptr is a
/// NULL value", and the rules for the unused dimensions of each image type.
fn image_region(i: &Image, origin: *const size_t, region: *const size_t) -> CLResult<([usize; 3], [usize; 3])> {
    let (o, r) = (triple(origin)?, triple(region)?);
    i.check_region(o, r)?;
    Ok((o, r))
}

/// The host side of an image read or write: the application's pitches (0: tightly packed),
/// `CL_INVALID_VALUE` for pitches that cannot be.
fn host_side(i: &Image, region: [usize; 3], row_pitch: usize, slice_pitch: usize) -> CLResult<RectSide> {
    let row_bytes = region[0] * i.pixel_bytes;
    // Spec: "CL_INVALID_VALUE if image is a 1D or 2D image and slice_pitch or input_slice_pitch
    // is not 0."
    let kind = i.kind();
    let flat = matches!(kind, Kind::Image1D | Kind::Image1DBuffer | Kind::Image2D);
    check(!flat || slice_pitch == 0, CL_INVALID_VALUE)?;
    // row_pitch: 0, or at least the region's row.
    check(row_pitch == 0 || row_pitch >= row_bytes, CL_INVALID_VALUE)?;
    let row = if row_pitch == 0 { row_bytes } else { row_pitch };
    // The pitch between grid rows: a 1D array's layers are slice_pitch apart.
    let (y_pitch, min_slice) = if kind == Kind::Image1DArray { (0, row) } else { (row, row * region[1]) };
    check(slice_pitch == 0 || slice_pitch >= min_slice, CL_INVALID_VALUE)?;
    let slice = if slice_pitch == 0 { min_slice } else { slice_pitch };
    let y_pitch = if kind == Kind::Image1DArray { slice } else { y_pitch };
    Ok(RectSide { origin: [0; 3], row_pitch: y_pitch, slice_pitch: slice.max(y_pitch * region[1]) })
}

/// The validated operands of an image ↔ host transfer (`clEnqueue{Read,Write}Image`).
struct HostTransfer {
    q: Ref<Queue>,
    m: Ref<Mem>,
    /// Image side, host side and the region in bytes.
    d: RectSide,
    h: RectSide,
    br: [usize; 3],
    /// Host bytes the transfer spans from `ptr`.
    len: usize,
    deps: Vec<Ref<Event>>,
}

impl HostTransfer {
    /// Every error clause the two transfers share, in the spec's order; `host_denied` are the
    /// `CL_MEM_HOST_*` flags that forbid this direction ("CL_INVALID_OPERATION if
    /// clEnqueueReadImage is called on image which has been created with CL_MEM_HOST_WRITE_ONLY or
    /// CL_MEM_HOST_NO_ACCESS", and the converse for clEnqueueWriteImage).
    #[allow(clippy::too_many_arguments)]
    fn validate(
        queue: cl_command_queue,
        image: cl_mem,
        origin: *const size_t,
        region: *const size_t,
        (row_pitch, slice_pitch): (usize, usize),
        ptr: *const c_void,
        (num_events, wait_list): (cl_uint, *const cl_event),
        host_denied: cl_mem_flags,
    ) -> CLResult<HostTransfer> {
        let (q, m) = queue_and_image(queue, image)?;
        let i = image_of(&m)?;
        let (o, r) = image_region(i, origin, region)?;
        check(!ptr.is_null(), CL_INVALID_VALUE)?;
        let h = host_side(i, r, row_pitch, slice_pitch)?;
        let (d, br) = (i.side(o), i.byte_region(r));
        let (_, len) = h.extent(br).ok_or(CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events, wait_list, &q.context) }?;
        check(m.flags & host_denied == 0, CL_INVALID_OPERATION)?;
        Ok(HostTransfer { q, m, d, h, br, len, deps })
    }
}

pub extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const size_t,
    region: *const size_t,
    row_pitch: size_t,
    slice_pitch: size_t,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let t = HostTransfer::validate(
            command_queue,
            image,
            origin,
            region,
            (row_pitch, slice_pitch),
            ptr,
            (num_events_in_wait_list, event_wait_list),
            CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
        )?;
        let HostTransfer { q, m, d, h, br, len, deps } = t;
        let addr = ptr as usize;
        let work: Work = Box::new(move || {
            // The spec keeps the host memory valid until the command completes; the slice
            // covers exactly the bytes written and lives only while the command runs.
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            let out = unsafe { ptr::slice_mut(addr as *mut c_void, len, CL_INVALID_VALUE) }?;
            m.read_rect(&d, &h, 0, br, out)
        });
        finish(enqueue(&q, CL_COMMAND_READ_IMAGE, deps, work), blocking_read, event)
    })
}

pub extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const size_t,
    region: *const size_t,
    input_row_pitch: size_t,
    input_slice_pitch: size_t,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let t = HostTransfer::validate(
            command_queue,
            image,
            origin,
            region,
            (input_row_pitch, input_slice_pitch),
            ptr,
            (num_events_in_wait_list, event_wait_list),
            CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
        )?;
        let HostTransfer { q, m, d, h, br, len, deps } = t;
        let addr = ptr as usize;
        let work: Work = Box::new(move || {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`):
            // valid and unchanged until the command completes.
            let data = unsafe { ptr::slice(addr as *const u8, len, CL_INVALID_VALUE) }?;
            m.write_rect(&d, &h, 0, br, data)?;
            m.sync_rect(&d, br)
        });
        finish(enqueue(&q, CL_COMMAND_WRITE_IMAGE, deps, work), blocking_write, event)
    })
}

/// An image of a command in `context`.
fn image_in(context: &Ref<Context>, mem: cl_mem) -> CLResult<Ref<Mem>> {
    // Spec: "CL_INVALID_MEM_OBJECT if image is not a valid image object."
    let m = Obj::<Mem>::get(mem)?;
    image_of(&m)?;
    // Spec: "CL_INVALID_CONTEXT if the context associated with command_queue and image are not
    // the same".
    check(Arc::ptr_eq(context, &m.context), CL_INVALID_CONTEXT)?;
    Ok(m)
}

/// An image copy in `context`, its error clauses checked (`clEnqueueCopyImage`,
/// `clCommandCopyImageKHR`).
pub(super) fn copy_image_op(
    context: &Ref<Context>,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
) -> CLResult<Op> {
    let (src, dst) = (image_in(context, src_image)?, image_in(context, dst_image)?);
    let (si, di) = (image_of(&src)?, image_of(&dst)?);
    // Spec: "CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image
    // format."
    let same_format = si.format.image_channel_order == di.format.image_channel_order
        && si.format.image_channel_data_type == di.format.image_channel_data_type;
    check(same_format, CL_IMAGE_FORMAT_MISMATCH)?;
    // Spec: "CL_INVALID_VALUE if the 2D or 3D rectangular region specified by src_origin and
    // src_origin + region refers to a region outside src_image, or if the 2D or 3D
    // rectangular region specified by dst_origin and dst_origin + region refers to a region
    // outside dst_image" (and the rules for unused dimensions).
    let r = triple(region)?;
    let (so, dso) = (triple(src_origin)?, triple(dst_origin)?);
    // A region's unused dimensions follow the smaller of the two images.
    si.check_region(so, r)?;
    di.check_region(dso, r)?;
    // Spec: "CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and
    // the source and destination regions overlap."
    let overlap = Arc::ptr_eq(&src, &dst) && (0..3).all(|k| so[k] < dso[k] + r[k] && dso[k] < so[k] + r[k]);
    check(!overlap, CL_MEM_COPY_OVERLAP)?;
    let (s, d, br) = (si.side(so), di.side(dso), si.byte_region(r));
    Ok(Box::new(move || Mem::copy_rect(&src, &s, &dst, &d, br)))
}

pub extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        let op = copy_image_op(&q.context, src_image, dst_image, src_origin, dst_origin, region)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_COPY_IMAGE, deps, Box::new(op)), CL_FALSE, event)
    })
}

/// A buffer side of an image ↔ buffer copy: tightly packed rows from `offset`, checked against
/// the buffer ("CL_INVALID_VALUE if ... dst_offset + dst_cb refer to a region outside
/// dst_buffer").
fn buffer_side(b: &Mem, offset: usize, i: &Image, region: [usize; 3]) -> CLResult<RectSide> {
    let row = region[0] * i.pixel_bytes;
    let side = RectSide { origin: [offset, 0, 0], row_pitch: row, slice_pitch: row * region[1] };
    let (_, end) = side.extent(i.byte_region(region)).ok_or(CL_INVALID_VALUE)?;
    check(end <= b.size, CL_INVALID_VALUE)?;
    Ok(side)
}

/// The buffer operand of an image ↔ buffer copy.
fn buffer_operand(context: &Ref<Context>, mem: cl_mem) -> CLResult<Ref<Mem>> {
    // Spec: "CL_INVALID_MEM_OBJECT if ... buffer is not a valid buffer object".
    let b = Obj::<Mem>::get(mem)?;
    check(b.image.is_none(), CL_INVALID_MEM_OBJECT)?;
    check(Arc::ptr_eq(context, &b.context), CL_INVALID_CONTEXT)?;
    Ok(b)
}

/// An image-to-buffer copy in `context`, its error clauses checked
/// (`clEnqueueCopyImageToBuffer`, `clCommandCopyImageToBufferKHR`). ("CL_MISALIGNED_SUB_BUFFER_OFFSET
/// if dst_buffer is a sub-buffer object and offset specified when the sub-buffer object is
/// created is not aligned": sub-buffers are created aligned.)
pub(super) fn copy_image_to_buffer_op(
    context: &Ref<Context>,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    region: *const size_t,
    dst_offset: size_t,
) -> CLResult<Op> {
    let src = image_in(context, src_image)?;
    let dst = buffer_operand(context, dst_buffer)?;
    let i = image_of(&src)?;
    let (o, r) = image_region(i, src_origin, region)?;
    let d = buffer_side(&dst, dst_offset, i, r)?;
    let (s, br) = (i.side(o), i.byte_region(r));
    Ok(Box::new(move || Mem::copy_rect(&src, &s, &dst, &d, br)))
}

pub extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const size_t,
    region: *const size_t,
    dst_offset: size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        let op = copy_image_to_buffer_op(&q.context, src_image, dst_buffer, src_origin, region, dst_offset)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, deps, Box::new(op)), CL_FALSE, event)
    })
}

/// A buffer-to-image copy in `context`, its error clauses checked
/// (`clEnqueueCopyBufferToImage`, `clCommandCopyBufferToImageKHR`).
pub(super) fn copy_buffer_to_image_op(
    context: &Ref<Context>,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: size_t,
    dst_origin: *const size_t,
    region: *const size_t,
) -> CLResult<Op> {
    let src = buffer_operand(context, src_buffer)?;
    let dst = image_in(context, dst_image)?;
    let i = image_of(&dst)?;
    let (o, r) = image_region(i, dst_origin, region)?;
    let s = buffer_side(&src, src_offset, i, r)?;
    let (d, br) = (i.side(o), i.byte_region(r));
    Ok(Box::new(move || Mem::copy_rect(&src, &s, &dst, &d, br)))
}

pub extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: size_t,
    dst_origin: *const size_t,
    region: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE ..." first, then the memory objects.
        let q = Obj::<Queue>::get(command_queue)?;
        let op = copy_buffer_to_image_op(&q.context, src_buffer, dst_image, src_offset, dst_origin, region)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, deps, Box::new(op)), CL_FALSE, event)
    })
}

/// An image fill in `context`, its error clauses checked (`clEnqueueFillImage`,
/// `clCommandFillImageKHR`); the colour is encoded once.
pub(super) fn fill_image_op(
    context: &Ref<Context>,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const size_t,
    region: *const size_t,
) -> CLResult<Op> {
    let m = image_in(context, image)?;
    let i = image_of(&m)?;
    // Spec: "CL_INVALID_VALUE if fill_color is NULL." The colour "is a single floating-point
    // value if the channel order is CL_DEPTH", else a four-component float, int or uint vector.
    let n = if i.format.image_channel_order == CL_DEPTH { 1 } else { 4 };
    // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`): `n`
    // 32-bit values.
    let c = unsafe { ptr::slice(fill_color as *const u32, n, CL_INVALID_VALUE) }?;
    let mut color = [0u32; 4];
    color[..n].copy_from_slice(c);
    let pixel = image_format::encode(&i.format, color).ok_or(CL_INVALID_VALUE)?;
    // Spec: "CL_INVALID_VALUE if the region being filled as specified by origin and region
    // is out of bounds."
    let (o, r) = image_region(i, origin, region)?;
    let (d, br) = (i.side(o), i.byte_region(r));
    Ok(Box::new(move || {
        for row in d.rows(br) {
            m.fill(row, br[0], &pixel)?;
        }
        Ok(())
    }))
}

pub extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const size_t,
    region: *const size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        // Spec: "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host command-queue."
        let q = Obj::<Queue>::get(command_queue)?;
        let op = fill_image_op(&q.context, image, fill_color, origin, region)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        finish(enqueue(&q, CL_COMMAND_FILL_IMAGE, deps, Box::new(op)), CL_FALSE, event)
    })
}

pub extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const size_t,
    region: *const size_t,
    image_row_pitch: *mut size_t,
    image_slice_pitch: *mut size_t,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    object(errcode_ret, || {
        let (q, m) = queue_and_image(command_queue, image)?;
        let i = image_of(&m)?;
        // Spec: "CL_INVALID_VALUE if region being mapped given by (origin, origin + region) is
        // out of bounds or if values specified in map_flags are not valid", "if image_row_pitch
        // is NULL", and "if image is a 3D image, 1D or 2D image array object and
        // image_slice_pitch is NULL."
        let (o, r) = image_region(i, origin, region)?;
        check(super::transfer::valid_map_flags(map_flags), CL_INVALID_VALUE)?;
        check(!image_row_pitch.is_null(), CL_INVALID_VALUE)?;
        let layered = matches!(i.kind(), Kind::Image1DArray | Kind::Image2DArray | Kind::Image3D);
        check(!layered || !image_slice_pitch.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let deps = unsafe { ptr::wait_list(num_events_in_wait_list, event_wait_list, &q.context) }?;
        super::transfer::check_map_access(&m, map_flags)?;
        let (d, br) = (i.side(o), i.byte_region(r));
        let (lo, hi) = d.extent(br).ok_or(CL_INVALID_VALUE)?;
        let mapping = m.map(lo, hi - lo, map_flags)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe {
            ptr::write_opt(image_row_pitch, i.row_pitch);
            ptr::write_opt(image_slice_pitch, if layered { i.slice_pitch } else { 0 });
        }
        let (m2, mp) = (m.clone(), mapping.clone());
        let e = enqueue(&q, CL_COMMAND_MAP_IMAGE, deps, Box::new(move || m2.complete_map(&mp)));
        if let Err(st) = finish(e, blocking_map, event) {
            m.discard_map(&mapping);
            return Err(st);
        }
        Ok(mapping.ptr() as *mut c_void)
    })
}
