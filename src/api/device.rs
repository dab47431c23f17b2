//! Device entry points (OpenCL 3.0 §4.2): the one emulated Ventus device and every query `clinfo`
//! makes, consistent with the emulator configuration (`NUM_THREAD`, `NUM_WARP`, `VENTUS_THREADS`).

use super::platform::{name_versions, platform_arg, CL_MAKE_VERSION};
use super::{check, info, ptr, status};
use crate::cl::object::Obj;
use crate::cl::*;
use crate::core::device::{self as dev, Device};
use crate::core::partition::{self, PartitionError, Scheme};
use crate::core::platform;
use std::ffi::c_void;

/// Validates a `cl_device_type` argument (`CL_INVALID_DEVICE_TYPE` for 0 or unknown bits) and
/// tells whether the one device (a GPU, the default) is of that type.
pub(crate) fn device_type_matches(device_type: cl_device_type) -> CLResult<bool> {
    let known = CL_DEVICE_TYPE_DEFAULT
        | CL_DEVICE_TYPE_CPU
        | CL_DEVICE_TYPE_GPU
        | CL_DEVICE_TYPE_ACCELERATOR
        | CL_DEVICE_TYPE_CUSTOM;
    check(
        device_type == CL_DEVICE_TYPE_ALL || (device_type != 0 && device_type & !known == 0),
        CL_INVALID_DEVICE_TYPE,
    )?;
    Ok(device_type == CL_DEVICE_TYPE_ALL || device_type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT) != 0)
}

pub extern "C" fn clGetDeviceIDs(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    status(|| {
        platform_arg(platform)?;
        let matches = device_type_matches(device_type)?;
        check(num_entries != 0 || devices.is_null(), CL_INVALID_VALUE)?;
        check(!(devices.is_null() && num_devices.is_null()), CL_INVALID_VALUE)?;
        check(matches, CL_DEVICE_NOT_FOUND)?;
        if !devices.is_null() {
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
            unsafe { ptr::write_opt(devices, platform::device().handle()) };
        }
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(num_devices, 1) };
        Ok(())
    })
}

fn fp_config() -> cl_device_fp_config {
    CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
}

/// The value of one device query as bytes (`None` = unknown query).
fn device_info(d: &Obj<Device>, param: cl_device_info) -> Option<Vec<u8>> {
    use info::InfoValue;
    let b = |v: &dyn InfoValue| Some(v.info_bytes());
    let wg = d.max_work_group_size();
    let queue_props =
        (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) as cl_command_queue_properties;
    let yes: cl_bool = CL_TRUE;
    let no: cl_bool = CL_FALSE;
    let zero_u32 = 0u32;
    let zero_u64 = 0u64;
    match param {
        CL_DEVICE_TYPE => b(&(CL_DEVICE_TYPE_GPU as cl_device_type)),
        CL_DEVICE_VENDOR_ID => b(&dev::VENDOR_ID),
        CL_DEVICE_MAX_COMPUTE_UNITS => b(&d.compute_units()),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => b(&3u32),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => b(&vec![wg, wg, wg]),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => b(&wg),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
        | CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
        | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => b(&1u32),
        // cl_khr_fp64 in software (soft-double library): one double per lane.
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => b(&1u32),
        // cl_khr_fp16 computed through float: one half per lane.
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => b(&1u32),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => b(&1000u32),
        CL_DEVICE_ADDRESS_BITS => b(&dev::ADDRESS_BITS),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => b(&dev::MAX_MEM_ALLOC_SIZE),
        CL_DEVICE_IMAGE_SUPPORT => b(&yes),
        CL_DEVICE_MAX_READ_IMAGE_ARGS => b(&dev::MAX_READ_IMAGE_ARGS),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => b(&dev::MAX_WRITE_IMAGE_ARGS),
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => b(&dev::MAX_READ_WRITE_IMAGE_ARGS),
        CL_DEVICE_MAX_SAMPLERS => b(&dev::MAX_SAMPLERS),
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT => b(&dev::IMAGE_PITCH_ALIGNMENT),
        CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => b(&dev::IMAGE_BASE_ADDRESS_ALIGNMENT),
        CL_DEVICE_IMAGE2D_MAX_WIDTH => b(&dev::IMAGE2D_MAX_WIDTH),
        CL_DEVICE_IMAGE2D_MAX_HEIGHT => b(&dev::IMAGE2D_MAX_HEIGHT),
        CL_DEVICE_IMAGE3D_MAX_WIDTH => b(&dev::IMAGE3D_MAX_WIDTH),
        CL_DEVICE_IMAGE3D_MAX_HEIGHT => b(&dev::IMAGE3D_MAX_HEIGHT),
        CL_DEVICE_IMAGE3D_MAX_DEPTH => b(&dev::IMAGE3D_MAX_DEPTH),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => b(&dev::IMAGE_MAX_BUFFER_SIZE),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => b(&dev::IMAGE_MAX_ARRAY_SIZE),
        CL_DEVICE_MAX_PIPE_ARGS
        | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
        | CL_DEVICE_PIPE_MAX_PACKET_SIZE
        | CL_DEVICE_MAX_ON_DEVICE_QUEUES
        | CL_DEVICE_MAX_ON_DEVICE_EVENTS
        | CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE
        | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE
        | CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => b(&zero_u32),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => b(&(partition::max_sub_devices(d) as cl_uint)),
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE => b(&dev::MAX_GLOBAL_VARIABLE_SIZE),
        CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => b(&dev::GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE),
        CL_DEVICE_MAX_PARAMETER_SIZE => b(&dev::MAX_PARAMETER_SIZE),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => b(&dev::MEM_BASE_ADDR_ALIGN_BITS),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => b(&128u32),
        CL_DEVICE_SINGLE_FP_CONFIG => b(&fp_config()),
        // Soft double (CL_FP_SOFT_FLOAT): correctly rounded add/sub/mul/div/sqrt/fma, IEEE
        // infinities and NaNs, denormals kept. The rounding modes OpenCL C can reach (the
        // conversions' _rte/_rtz/_rtp/_rtn) are all implemented, so the OpenCL 1.2 minimum for
        // doubles (which the CTS checks) is met: FMA, nearest, zero, ±inf, INF/NaN, denormals.
        CL_DEVICE_DOUBLE_FP_CONFIG => b(&((CL_FP_FMA
            | CL_FP_ROUND_TO_NEAREST
            | CL_FP_ROUND_TO_ZERO
            | CL_FP_ROUND_TO_INF
            | CL_FP_INF_NAN
            | CL_FP_DENORM
            | CL_FP_SOFT_FLOAT) as cl_device_fp_config)),
        CL_DEVICE_HALF_FP_CONFIG => {
            b(&((CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM | CL_FP_FMA | CL_FP_SOFT_FLOAT)
                as cl_device_fp_config))
        }
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => b(&(CL_NONE as cl_device_mem_cache_type)),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => b(&zero_u32),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => b(&zero_u64),
        CL_DEVICE_GLOBAL_MEM_SIZE => b(&dev::GLOBAL_MEM_SIZE),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => b(&dev::MAX_CONSTANT_BUFFER_SIZE),
        CL_DEVICE_MAX_CONSTANT_ARGS => b(&dev::MAX_CONSTANT_ARGS),
        CL_DEVICE_LOCAL_MEM_TYPE => b(&(CL_LOCAL as cl_device_local_mem_type)),
        CL_DEVICE_LOCAL_MEM_SIZE => b(&dev::LOCAL_MEM_SIZE),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT | CL_DEVICE_HOST_UNIFIED_MEMORY => b(&no),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => b(&1usize),
        CL_DEVICE_ENDIAN_LITTLE | CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
            b(&yes)
        }
        CL_DEVICE_EXECUTION_CAPABILITIES => {
            b(&((CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL) as cl_device_exec_capabilities))
        }
        CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => b(&queue_props),
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => b(&(0 as cl_command_queue_properties)),
        CL_DEVICE_PLATFORM => b(&info::Ptr(platform::platform().handle())),
        CL_DEVICE_NAME => b(&dev::NAME),
        CL_DEVICE_VENDOR => b(&dev::VENDOR),
        CL_DRIVER_VERSION => b(&dev::DRIVER_VERSION),
        CL_DEVICE_PROFILE => b(&platform::PROFILE),
        CL_DEVICE_VERSION => b(&dev::DEVICE_VERSION),
        CL_DEVICE_NUMERIC_VERSION => b(&CL_MAKE_VERSION(3, 0, 0)),
        CL_DEVICE_OPENCL_C_VERSION => b(&dev::OPENCL_C_VERSION),
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => {
            let versions = [(1, 0), (1, 1), (1, 2), (3, 0)];
            let mut out = Vec::new();
            for (maj, min) in versions {
                out.extend_from_slice(&CL_MAKE_VERSION(maj, min, 0).to_ne_bytes());
                let mut name = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
                name[..9].copy_from_slice(b"OpenCL C\0");
                out.extend_from_slice(&name);
            }
            Some(out)
        }
        // OpenCL C 3.0 optional features (each at version 3.0.0); the full profile requires
        // 64-bit integers.
        CL_DEVICE_OPENCL_C_FEATURES => {
            let mut out = Vec::new();
            for f in dev::OPENCL_C_FEATURES {
                out.extend_from_slice(&CL_MAKE_VERSION(3, 0, 0).to_ne_bytes());
                let mut name = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
                name[..f.len()].copy_from_slice(f.as_bytes());
                out.extend_from_slice(&name);
            }
            Some(out)
        }
        CL_DEVICE_EXTENSIONS => b(&dev::EXTENSIONS.join(" ")),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => Some(name_versions(dev::EXTENSIONS)),
        CL_DEVICE_IL_VERSION => b(&"SPIR-V_1.0"),
        CL_DEVICE_ILS_WITH_VERSION => {
            let mut out = CL_MAKE_VERSION(1, 0, 0).to_ne_bytes().to_vec();
            let mut name = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
            name[..6].copy_from_slice(b"SPIR-V");
            out.extend_from_slice(&name);
            Some(out)
        }
        CL_DEVICE_BUILT_IN_KERNELS => b(&""),
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => Some(Vec::new()),
        CL_DEVICE_PRINTF_BUFFER_SIZE => b(&(d.printf_buffer_size as usize)),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => b(&yes),
        CL_DEVICE_PARENT_DEVICE => match &d.partition {
            Some(s) => b(&info::Ptr(s.parent.handle())),
            None => b(&info::Ptr(std::ptr::null_mut::<c_void>())),
        },
        CL_DEVICE_PARTITION_PROPERTIES => b(&partition::properties(d)),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => b(&(0 as cl_device_affinity_domain)),
        // A root device: no partition (an empty value, which the spec allows).
        CL_DEVICE_PARTITION_TYPE => match &d.partition {
            Some(s) => b(&s.properties),
            None => Some(Vec::new()),
        },
        // Root devices are not reference counted: always 1.
        CL_DEVICE_REFERENCE_COUNT => b(&if d.is_root() { 1 } else { d.api_ref_count() }),
        CL_DEVICE_SVM_CAPABILITIES => b(&super::svm::CAPABILITIES),
        // A sub-group is a warp; the warps of a work-group take turns (round-robin), so each
        // makes progress on its own.
        CL_DEVICE_MAX_NUM_SUB_GROUPS => {
            b(&(d.max_work_group_size().div_ceil(d.threads_per_warp.max(1) as usize) as cl_uint))
        }
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS
        | CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT
        | CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => b(&yes),
        CL_DEVICE_PIPE_SUPPORT => b(&no),
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => b(&yes),
        // Every order up to sequentially consistent, work-group and device scope: device-scope
        // atomics and fences are compiled between host-fenced `fence` instructions (the
        // compiler's `Lowerer::inst`), work-group scope is one host thread.
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES | CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => {
            b(&((CL_DEVICE_ATOMIC_ORDER_RELAXED
                | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
                | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
                | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
                | CL_DEVICE_ATOMIC_SCOPE_DEVICE) as cl_device_atomic_capabilities))
        }
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => b(&(0 as cl_device_device_enqueue_capabilities)),
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => b(&(d.threads_per_warp as usize)),
        CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => b(&super::command_buffer::CAPABILITIES),
        CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => {
            b(&super::command_buffer::SUPPORTED_QUEUE_PROPERTIES)
        }
        CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => b(&(0 as cl_command_queue_properties)),
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => b(&"v0000-01-01-00"),
        _ => None,
    }
}

pub extern "C" fn clGetDeviceInfo(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let d = Obj::<Device>::get(device)?;
        let bytes = device_info(&d, param_name).ok_or(CL_INVALID_VALUE)?;
        info::write_bytes(&bytes, param_value_size, param_value, param_value_size_ret)
    })
}

/// Reads a `clCreateSubDevices` property list: the scheme and the list itself up to its first
/// 0 (included) for `CL_DEVICE_PARTITION_TYPE`. `CL_INVALID_VALUE` for a NULL or malformed list, an
/// unknown scheme or one this driver does not offer (affinity domains).
///
/// # Safety
/// `p` is NULL or points to a 0-terminated partition property list (the OpenCL contract).
unsafe fn partition_scheme(
    p: *const cl_device_partition_property,
) -> CLResult<(Scheme, Vec<cl_device_partition_property>)> {
    /// No list the driver accepts is longer (one count per thread is at most a few thousand).
    const MAX_LEN: usize = 1 << 16;
    check(!p.is_null(), CL_INVALID_VALUE)?;
    let mut list = Vec::new();
    let mut at = |i: usize| -> CLResult<cl_device_partition_property> {
        check(i < MAX_LEN, CL_INVALID_VALUE)?;
        // SAFETY: the caller's contract: the list is read up to and including its terminator,
        // in order, and no further.
        let v = unsafe { *p.add(i) };
        list.push(v);
        Ok(v)
    };
    let scheme = match at(0)? {
        CL_DEVICE_PARTITION_EQUALLY => {
            let n = at(1)?;
            check(at(2)? == 0, CL_INVALID_VALUE)?;
            Scheme::Equally(n as i64)
        }
        CL_DEVICE_PARTITION_BY_COUNTS => {
            let mut counts = Vec::new();
            loop {
                let c = at(1 + counts.len())?;
                if c == CL_DEVICE_PARTITION_BY_COUNTS_LIST_END as cl_device_partition_property {
                    break;
                }
                counts.push(c as i64);
            }
            // The list's own terminator follows; like other implementations, read no further
            // than `CL_DEVICE_PARTITION_BY_COUNTS_LIST_END` (also what `CL_DEVICE_PARTITION_TYPE`
            // returns: the properties up to their first 0).
            Scheme::ByCounts(counts)
        }
        // Affinity domains are valid values this device does not support; anything else is no
        // valid value: CL_INVALID_VALUE either way.
        _ => return Err(CL_INVALID_VALUE),
    };
    Ok((scheme, list))
}

pub extern "C" fn clCreateSubDevices(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property,
    num_devices: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices_ret: *mut cl_uint,
) -> cl_int {
    status(|| {
        let parent = Obj::<Device>::get(in_device)?;
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        let (scheme, list) = unsafe { partition_scheme(properties) }?;
        let sizes = partition::plan(&parent, &scheme).map_err(|e| match e {
            PartitionError::Invalid => CL_INVALID_VALUE,
            PartitionError::Count => CL_INVALID_DEVICE_PARTITION_COUNT,
            PartitionError::Failed => CL_DEVICE_PARTITION_FAILED,
        })?;
        // "CL_INVALID_VALUE if out_devices is not NULL and num_devices is less than the number
        // of sub-devices created by the partition scheme."
        check(out_devices.is_null() || num_devices as usize >= sizes.len(), CL_INVALID_VALUE)?;
        if !out_devices.is_null() {
            let subs = partition::create(&parent, &sizes, &list);
            // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`):
            // `out_devices` has room for `num_devices` ≥ `subs.len()` handles.
            let out = unsafe { std::slice::from_raw_parts_mut(out_devices, subs.len()) };
            for (o, d) in out.iter_mut().zip(&subs) {
                *o = d.handle();
            }
        }
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(num_devices_ret, sizes.len() as cl_uint) };
        Ok(())
    })
}

/// Root devices live as long as the platform: retaining and releasing them only validates the
/// handle. Sub-devices are counted like every other object.
pub extern "C" fn clRetainDevice(device: cl_device_id) -> cl_int {
    status(|| {
        if Obj::<Device>::get(device)?.is_root() {
            return Ok(());
        }
        Obj::<Device>::retain(device)
    })
}

pub extern "C" fn clReleaseDevice(device: cl_device_id) -> cl_int {
    status(|| {
        if Obj::<Device>::get(device)?.is_root() {
            return Ok(());
        }
        Obj::<Device>::release(device).map(|_| ())
    })
}

pub extern "C" fn clGetDeviceAndHostTimer(
    device: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    status(|| {
        Obj::<Device>::get(device)?;
        check(!device_timestamp.is_null() && !host_timestamp.is_null(), CL_INVALID_VALUE)?;
        let t = now_ns();
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(device_timestamp, t) };
        // SAFETY: pointers from the application, under the OpenCL contract (`api::ptr`).
        unsafe { ptr::write_opt(host_timestamp, t) };
        Ok(())
    })
}
