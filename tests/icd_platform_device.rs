//! Platform and device entry points (OpenCL 3.0 §4.1–4.2), called through Debian's ICD loader:
//! every query answered with a value of the right size, size queries, too-small buffers, unknown
//! queries and handles, consistency between related values (and with `NUM_THREAD`/`NUM_WARP`/
//! `VENTUS_THREADS`), `clGetDeviceIDs` type filtering, extension function addresses and timers.

#[path = "common/cl.rs"]
mod cl;

use cl::*;
use std::ffi::{c_char, c_void};
use std::mem::size_of;
use std::ptr::null_mut;

/// The value layout of a query.
#[derive(Debug, Clone, Copy)]
enum Kind {
    U32,
    Bool,
    U64,
    Usize,
    Ptr,
    Str,
    /// An array of elements of this size (possibly empty).
    Array(usize),
    /// A `cl_name_version` array.
    NameVersions,
}

fn expected_size(kind: Kind) -> Option<usize> {
    match kind {
        Kind::U32 | Kind::Bool => Some(4),
        Kind::U64 => Some(8),
        Kind::Usize | Kind::Ptr => Some(size_of::<usize>()),
        _ => None,
    }
}

/// Checks one query of shape `f(handle, param, ..)` fully: size query, exact-size read, too-small
/// buffer, NULL value with size, and the layout of the result.
fn check_query<H: Copy, P: Copy + std::fmt::Debug>(f: InfoFn<H, P>, h: H, param: P, kind: Kind) -> Vec<u8> {
    let mut size = usize::MAX;
    // SAFETY: size query only.
    let code = unsafe { f(h, param, 0, null_mut(), &mut size) };
    assert_eq!(code, CL_SUCCESS, "query {param:?} not answered: {}", err_name(code));
    let bytes = info_bytes(f, h, param);
    assert_eq!(bytes.len(), size);
    match kind {
        Kind::Str => {
            assert!(size >= 1 && bytes[size - 1] == 0 && !bytes[..size - 1].contains(&0), "{param:?}: bad string");
        }
        Kind::Bool => {
            let v = u32::from_ne_bytes(bytes[..4].try_into().unwrap());
            assert!(v == CL_TRUE || v == CL_FALSE, "{param:?}: cl_bool {v}");
        }
        Kind::Array(n) => assert_eq!(size % n, 0, "{param:?}: array size {size}"),
        Kind::NameVersions => assert_eq!(size % size_of::<cl_name_version>(), 0, "{param:?}: name-version size"),
        _ => {}
    }
    if let Some(n) = expected_size(kind) {
        assert_eq!(size, n, "{param:?}: value size");
    }
    if size > 0 {
        let mut buf = vec![0u8; size];
        // SAFETY: the buffer has size - 1 bytes available of the size we pass.
        let code = unsafe { f(h, param, size - 1, buf.as_mut_ptr() as *mut c_void, null_mut()) };
        expect_err(code, CL_INVALID_VALUE, &format!("{param:?} with a too-small buffer"));
    }
    // A NULL value pointer with a size (and no size_ret) is a no-op success.
    // SAFETY: nothing is written.
    assert_eq!(unsafe { f(h, param, 1024, null_mut(), null_mut()) }, CL_SUCCESS);
    bytes
}

fn name_versions(b: &[u8]) -> Vec<(cl_version, String)> {
    b.chunks_exact(size_of::<cl_name_version>())
        .map(|c| {
            let v = u32::from_ne_bytes(c[..4].try_into().unwrap());
            let name = &c[4..];
            let end = name.iter().position(|&x| x == 0).expect("name is NUL-terminated");
            (v, String::from_utf8(name[..end].to_vec()).unwrap())
        })
        .collect()
}

const fn version(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << 22) | (minor << 12) | patch
}

fn platform_str(p: cl_platform_id, param: cl_platform_info) -> String {
    info_string(cl().clGetPlatformInfo, p, param)
}

fn device_str(param: cl_device_info) -> String {
    info_string(cl().clGetDeviceInfo, device(), param)
}

fn device_val<T: Copy>(param: cl_device_info) -> T {
    info_value(cl().clGetDeviceInfo, device(), param)
}

#[test]
fn platform_ids() {
    let cl = cl();
    let p = platform();
    let (mut ps, mut n) = ([null_mut(); 4], 0u32);
    // SAFETY: room for 4 platforms.
    check(unsafe { (cl.clGetPlatformIDs)(4, ps.as_mut_ptr(), &mut n) }, "clGetPlatformIDs");
    assert_eq!((n, ps[0], ps[1]), (1, p, null_mut()));
    let mut one = null_mut();
    // SAFETY: valid pointers; the calls are invalid by their arguments only.
    unsafe {
        expect_err((cl.clGetPlatformIDs)(0, &mut one, null_mut()), CL_INVALID_VALUE, "num_entries 0");
        expect_err((cl.clGetPlatformIDs)(1, null_mut(), null_mut()), CL_INVALID_VALUE, "both outputs NULL");
    }
}

#[test]
fn every_platform_query() {
    let (cl, p) = (cl(), platform());
    let f = cl.clGetPlatformInfo;
    for (param, kind) in [
        (CL_PLATFORM_PROFILE, Kind::Str),
        (CL_PLATFORM_VERSION, Kind::Str),
        (CL_PLATFORM_NUMERIC_VERSION, Kind::U32),
        (CL_PLATFORM_NAME, Kind::Str),
        (CL_PLATFORM_VENDOR, Kind::Str),
        (CL_PLATFORM_EXTENSIONS, Kind::Str),
        (CL_PLATFORM_EXTENSIONS_WITH_VERSION, Kind::NameVersions),
        (CL_PLATFORM_HOST_TIMER_RESOLUTION, Kind::U64),
        (CL_PLATFORM_ICD_SUFFIX_KHR, Kind::Str),
    ] {
        check_query(f, p, param, kind);
    }
    assert_eq!(platform_str(p, CL_PLATFORM_PROFILE), "FULL_PROFILE");
    assert!(platform_str(p, CL_PLATFORM_VERSION).starts_with("OpenCL 3.0 "));
    assert_eq!(info_value::<cl_version, _, _>(f, p, CL_PLATFORM_NUMERIC_VERSION), version(3, 0, 0));
    assert_eq!(platform_str(p, CL_PLATFORM_NAME), "Ventus");
    assert!(!platform_str(p, CL_PLATFORM_VENDOR).is_empty());
    let exts: Vec<String> = platform_str(p, CL_PLATFORM_EXTENSIONS).split_whitespace().map(String::from).collect();
    assert!(exts.iter().any(|e| e == "cl_khr_icd"), "{exts:?}");
    let with_version = name_versions(&info_bytes(f, p, CL_PLATFORM_EXTENSIONS_WITH_VERSION));
    assert_eq!(with_version.iter().map(|(_, n)| n.clone()).collect::<Vec<_>>(), exts);
    assert!(info_value::<u64, _, _>(f, p, CL_PLATFORM_HOST_TIMER_RESOLUTION) > 0, "host timer supported");
    let suffix = platform_str(p, CL_PLATFORM_ICD_SUFFIX_KHR);
    assert!(!suffix.is_empty() && suffix.chars().all(|c| c.is_ascii_alphanumeric()), "{suffix:?}");
}

#[test]
fn platform_query_errors() {
    let (cl, p) = (cl(), platform());
    let mut size = 0;
    // SAFETY: size queries only; wrong handles are live objects of another kind, so the loader
    // can read their dispatch table.
    unsafe {
        for bad in [0, 0x0FFF, 0x0930, CL_DEVICE_NAME] {
            expect_err((cl.clGetPlatformInfo)(p, bad, 0, null_mut(), &mut size), CL_INVALID_VALUE, "unknown query");
        }
        let wrong = device() as cl_platform_id;
        let code = (cl.clGetPlatformInfo)(wrong, CL_PLATFORM_NAME, 0, null_mut(), &mut size);
        expect_err(code, CL_INVALID_PLATFORM, "device handle as platform");
        // NULL selects a platform in the loader (ocl-icd: its default, ours) or is invalid.
        let code = (cl.clGetPlatformInfo)(null_mut(), CL_PLATFORM_NAME, 0, null_mut(), &mut size);
        assert!(code == CL_SUCCESS || code == CL_INVALID_PLATFORM, "{}", err_name(code));
    }
}

#[test]
fn extension_function_addresses() {
    let (cl, p) = (cl(), platform());
    let lookup = |name: &str| {
        let c = std::ffi::CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name.
        unsafe { (cl.clGetExtensionFunctionAddressForPlatform)(p, c.as_ptr()) }
    };
    let icd = lookup("clIcdGetPlatformIDsKHR");
    assert!(!icd.is_null());
    assert!(!lookup("clCreateProgramWithILKHR").is_null());
    assert!(lookup("clNoSuchFunctionVENTUS").is_null());
    assert!(lookup("").is_null());
    type IcdGetPlatformIds = unsafe extern "C" fn(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;
    // SAFETY: clIcdGetPlatformIDsKHR has this signature (cl_khr_icd).
    let icd: IcdGetPlatformIds = unsafe { std::mem::transmute::<*mut c_void, IcdGetPlatformIds>(icd) };
    let (mut q, mut n) = (null_mut(), 0);
    // SAFETY: room for one platform.
    check(unsafe { icd(1, &mut q, &mut n) }, "clIcdGetPlatformIDsKHR");
    assert_eq!((q, n), (p, 1), "the ICD entry point returns the platform the loader returned");
    // A wrong platform handle gives NULL.
    let name = c"clIcdGetPlatformIDsKHR";
    // SAFETY: a live device object as the (wrong) platform; a NUL-terminated name.
    let f = unsafe { (cl.clGetExtensionFunctionAddressForPlatform)(device() as cl_platform_id, name.as_ptr()) };
    assert!(f.is_null());
    // The loader's own lookup without a platform must not crash (what it returns is its choice).
    // SAFETY: NUL-terminated name.
    let _ = unsafe { (cl.clGetExtensionFunctionAddress)(name.as_ptr() as *const c_char) };
}

#[test]
fn host_and_device_timers() {
    let (cl, d) = (cl(), device());
    let (mut h1, mut h2, mut dt, mut ht, mut dt2, mut ht2) = (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    // SAFETY: valid out-pointers (or deliberately NULL ones).
    unsafe {
        check((cl.clGetHostTimer)(d, &mut h1), "clGetHostTimer");
        check((cl.clGetHostTimer)(d, &mut h2), "clGetHostTimer");
        check((cl.clGetDeviceAndHostTimer)(d, &mut dt, &mut ht), "clGetDeviceAndHostTimer");
        check((cl.clGetDeviceAndHostTimer)(d, &mut dt2, &mut ht2), "clGetDeviceAndHostTimer");
        expect_err((cl.clGetHostTimer)(d, null_mut()), CL_INVALID_VALUE, "clGetHostTimer(NULL)");
        expect_err((cl.clGetDeviceAndHostTimer)(d, null_mut(), &mut ht), CL_INVALID_VALUE, "NULL device time");
        expect_err((cl.clGetDeviceAndHostTimer)(d, &mut dt, null_mut()), CL_INVALID_VALUE, "NULL host time");
        expect_err((cl.clGetHostTimer)(null_mut(), &mut h1), CL_INVALID_DEVICE, "NULL device");
        expect_err((cl.clGetHostTimer)(platform() as cl_device_id, &mut h1), CL_INVALID_DEVICE, "platform as device");
        let code = (cl.clGetDeviceAndHostTimer)(platform() as cl_device_id, &mut dt, &mut ht);
        expect_err(code, CL_INVALID_DEVICE, "platform as device");
    }
    assert!(h1 > 0 && h1 <= h2 && h2 <= ht && ht <= ht2, "host timer is monotonic");
    assert!(dt > 0 && dt <= dt2, "device timer is monotonic");
}

#[test]
fn device_ids_type_filtering() {
    let (cl, p, d) = (cl(), platform(), device());
    let ids = |ty: cl_device_type| {
        let (mut ds, mut n) = ([null_mut(); 3], 0u32);
        // SAFETY: room for 3 devices.
        let code = unsafe { (cl.clGetDeviceIDs)(p, ty, 3, ds.as_mut_ptr(), &mut n) };
        (code, ds, n)
    };
    for ty in [
        CL_DEVICE_TYPE_ALL,
        CL_DEVICE_TYPE_DEFAULT,
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_ACCELERATOR,
    ] {
        let (code, ds, n) = ids(ty);
        check(code, &format!("clGetDeviceIDs({ty:#x})"));
        assert_eq!((n, ds[0], ds[1]), (1, d, null_mut()), "type {ty:#x}");
    }
    for ty in [
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_ACCELERATOR,
        CL_DEVICE_TYPE_CUSTOM,
        CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM,
    ] {
        expect_err(ids(ty).0, CL_DEVICE_NOT_FOUND, &format!("type {ty:#x}"));
    }
    expect_err(ids(1 << 40).0, CL_INVALID_DEVICE_TYPE, "unknown type bit");
    let (mut one, mut n) = (null_mut(), 0);
    // SAFETY: valid pointers; invalid only by arguments or by handle kind (a live object).
    unsafe {
        let code = (cl.clGetDeviceIDs)(p, CL_DEVICE_TYPE_ALL, 0, &mut one, null_mut());
        expect_err(code, CL_INVALID_VALUE, "num_entries 0 with a devices array");
        let code = (cl.clGetDeviceIDs)(p, CL_DEVICE_TYPE_ALL, 1, null_mut(), null_mut());
        expect_err(code, CL_INVALID_VALUE, "both outputs NULL");
        let code = (cl.clGetDeviceIDs)(d as cl_platform_id, CL_DEVICE_TYPE_ALL, 1, &mut one, &mut n);
        expect_err(code, CL_INVALID_PLATFORM, "device handle as platform");
        check((cl.clGetDeviceIDs)(p, CL_DEVICE_TYPE_GPU, 0, null_mut(), &mut n), "count only");
        assert_eq!(n, 1);
    }
}

#[test]
fn every_device_query_answered() {
    use Kind::*;
    let (f, d) = (cl().clGetDeviceInfo, device());
    let table: &[(cl_device_info, Kind)] = &[
        (CL_DEVICE_TYPE, U64),
        (CL_DEVICE_VENDOR_ID, U32),
        (CL_DEVICE_MAX_COMPUTE_UNITS, U32),
        (CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, U32),
        (CL_DEVICE_MAX_WORK_GROUP_SIZE, Usize),
        (CL_DEVICE_MAX_WORK_ITEM_SIZES, Array(size_of::<usize>())),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, U32),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, U32),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, U32),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, U32),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, U32),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, U32),
        (CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, U32),
        (CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, U32),
        (CL_DEVICE_MAX_CLOCK_FREQUENCY, U32),
        (CL_DEVICE_ADDRESS_BITS, U32),
        (CL_DEVICE_MAX_MEM_ALLOC_SIZE, U64),
        (CL_DEVICE_IMAGE_SUPPORT, Bool),
        (CL_DEVICE_MAX_READ_IMAGE_ARGS, U32),
        (CL_DEVICE_MAX_WRITE_IMAGE_ARGS, U32),
        (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, U32),
        (CL_DEVICE_IL_VERSION, Str),
        (CL_DEVICE_ILS_WITH_VERSION, NameVersions),
        (CL_DEVICE_IMAGE2D_MAX_WIDTH, Usize),
        (CL_DEVICE_IMAGE2D_MAX_HEIGHT, Usize),
        (CL_DEVICE_IMAGE3D_MAX_WIDTH, Usize),
        (CL_DEVICE_IMAGE3D_MAX_HEIGHT, Usize),
        (CL_DEVICE_IMAGE3D_MAX_DEPTH, Usize),
        (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, Usize),
        (CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, Usize),
        (CL_DEVICE_MAX_SAMPLERS, U32),
        (CL_DEVICE_IMAGE_PITCH_ALIGNMENT, U32),
        (CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, U32),
        (CL_DEVICE_MAX_PIPE_ARGS, U32),
        (CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, U32),
        (CL_DEVICE_PIPE_MAX_PACKET_SIZE, U32),
        (CL_DEVICE_MAX_PARAMETER_SIZE, Usize),
        (CL_DEVICE_MEM_BASE_ADDR_ALIGN, U32),
        (CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, U32),
        (CL_DEVICE_SINGLE_FP_CONFIG, U64),
        (CL_DEVICE_DOUBLE_FP_CONFIG, U64),
        (CL_DEVICE_HALF_FP_CONFIG, U64),
        (CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, U32),
        (CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, U32),
        (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, U64),
        (CL_DEVICE_GLOBAL_MEM_SIZE, U64),
        (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, U64),
        (CL_DEVICE_MAX_CONSTANT_ARGS, U32),
        (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, Usize),
        (CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, Usize),
        (CL_DEVICE_LOCAL_MEM_TYPE, U32),
        (CL_DEVICE_LOCAL_MEM_SIZE, U64),
        (CL_DEVICE_ERROR_CORRECTION_SUPPORT, Bool),
        (CL_DEVICE_HOST_UNIFIED_MEMORY, Bool),
        (CL_DEVICE_PROFILING_TIMER_RESOLUTION, Usize),
        (CL_DEVICE_ENDIAN_LITTLE, Bool),
        (CL_DEVICE_AVAILABLE, Bool),
        (CL_DEVICE_COMPILER_AVAILABLE, Bool),
        (CL_DEVICE_LINKER_AVAILABLE, Bool),
        (CL_DEVICE_EXECUTION_CAPABILITIES, U64),
        (CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, U64),
        (CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, U64),
        (CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, U32),
        (CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, U32),
        (CL_DEVICE_MAX_ON_DEVICE_QUEUES, U32),
        (CL_DEVICE_MAX_ON_DEVICE_EVENTS, U32),
        (CL_DEVICE_BUILT_IN_KERNELS, Str),
        (CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, NameVersions),
        (CL_DEVICE_PLATFORM, Ptr),
        (CL_DEVICE_NAME, Str),
        (CL_DEVICE_VENDOR, Str),
        (CL_DRIVER_VERSION, Str),
        (CL_DEVICE_PROFILE, Str),
        (CL_DEVICE_VERSION, Str),
        (CL_DEVICE_NUMERIC_VERSION, U32),
        (CL_DEVICE_OPENCL_C_VERSION, Str),
        (CL_DEVICE_OPENCL_C_ALL_VERSIONS, NameVersions),
        (CL_DEVICE_OPENCL_C_FEATURES, NameVersions),
        (CL_DEVICE_EXTENSIONS, Str),
        (CL_DEVICE_EXTENSIONS_WITH_VERSION, NameVersions),
        (CL_DEVICE_PRINTF_BUFFER_SIZE, Usize),
        (CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, Bool),
        (CL_DEVICE_PARENT_DEVICE, Ptr),
        (CL_DEVICE_PARTITION_MAX_SUB_DEVICES, U32),
        (CL_DEVICE_PARTITION_PROPERTIES, Array(size_of::<cl_device_partition_property>())),
        (CL_DEVICE_PARTITION_AFFINITY_DOMAIN, U64),
        (CL_DEVICE_PARTITION_TYPE, Array(size_of::<cl_device_partition_property>())),
        (CL_DEVICE_REFERENCE_COUNT, U32),
        (CL_DEVICE_SVM_CAPABILITIES, U64),
        (CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, U32),
        (CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, U32),
        (CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, U32),
        (CL_DEVICE_MAX_NUM_SUB_GROUPS, U32),
        (CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, Bool),
        (CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, U64),
        (CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, U64),
        (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, Bool),
        (CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, Bool),
        (CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, Bool),
        (CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, U64),
        (CL_DEVICE_PIPE_SUPPORT, Bool),
        (CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, Usize),
        (CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, Str),
    ];
    for &(param, kind) in table {
        check_query(f, d, param, kind);
    }
    // The OpenCL 3.0 device queries are 0x1000..=0x1072 except 0x105F (unassigned), plus the
    // deprecated alias 0x102A; every one of them is in the table.
    let listed: std::collections::HashSet<_> = table.iter().map(|&(p, _)| p).collect();
    for p in (0x1000..=0x1072).filter(|&p| p != 0x105F && !(0x106A..=0x106E).contains(&p)) {
        assert!(listed.contains(&p), "query {p:#x} missing from the table");
    }
}

#[test]
fn device_query_errors() {
    let (cl, d) = (cl(), device());
    let mut size = 0;
    // SAFETY: size queries only; wrong handles are live objects of another kind.
    unsafe {
        for bad in [0, 0x0FFF, 0x105F, 0x1FFF, CL_PLATFORM_NAME, CL_DEVICE_UUID_KHR] {
            let code = (cl.clGetDeviceInfo)(d, bad, 0, null_mut(), &mut size);
            expect_err(code, CL_INVALID_VALUE, &format!("unknown query {bad:#x}"));
        }
        let code = (cl.clGetDeviceInfo)(null_mut(), CL_DEVICE_NAME, 0, null_mut(), &mut size);
        expect_err(code, CL_INVALID_DEVICE, "NULL device");
        let code = (cl.clGetDeviceInfo)(platform() as cl_device_id, CL_DEVICE_NAME, 0, null_mut(), &mut size);
        expect_err(code, CL_INVALID_DEVICE, "platform as device");
        // Root devices: retain/release succeed and change nothing.
        check((cl.clRetainDevice)(d), "clRetainDevice");
        check((cl.clReleaseDevice)(d), "clReleaseDevice");
        expect_err((cl.clRetainDevice)(null_mut()), CL_INVALID_DEVICE, "clRetainDevice(NULL)");
        // Affinity domains are not offered (partitioning: tests/icd_sub_devices.rs).
        let props = [CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NUMA as _, 0];
        let (mut out, mut n) = ([null_mut(); 4], 0);
        let code = (cl.clCreateSubDevices)(d, props.as_ptr(), 4, out.as_mut_ptr(), &mut n);
        expect_err(code, CL_INVALID_VALUE, "clCreateSubDevices");
    }
    assert_eq!(device_val::<cl_uint>(CL_DEVICE_REFERENCE_COUNT), 1);
}

/// Expected (threads per warp, warps, host threads) from the environment, parsed as the driver does.
fn expected_config() -> (usize, usize, Option<u32>) {
    let var = |names: &[&str]| names.iter().find_map(|n| std::env::var(n).ok()?.trim().parse::<usize>().ok());
    let numt = var(&["VENTUS_NUM_THREAD", "NUM_THREAD"]).filter(|n| (1..=32).contains(n)).unwrap_or(32);
    let numw = var(&["VENTUS_NUM_WARP", "NUM_WARP"]).filter(|&n| n > 0).unwrap_or(8);
    let threads = var(&["VENTUS_THREADS"]).filter(|&n| n > 0).map(|n| n as u32);
    (numt, numw, threads)
}

#[test]
fn device_values_are_consistent() {
    let (f, d, p) = (cl().clGetDeviceInfo, device(), platform());
    let (numt, numw, threads) = expected_config();
    let wg: usize = device_val(CL_DEVICE_MAX_WORK_GROUP_SIZE);
    assert_eq!(wg, numt * numw, "CL_DEVICE_MAX_WORK_GROUP_SIZE = NUM_THREAD × NUM_WARP");
    assert_eq!(device_val::<usize>(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE), numt);
    if let Some(t) = threads {
        assert_eq!(device_val::<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS), t, "compute units = VENTUS_THREADS");
    }
    assert!(device_val::<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS) >= 1);
    let dims: cl_uint = device_val(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    assert!(dims >= 3);
    let sizes: Vec<usize> = info_vec(f, d, CL_DEVICE_MAX_WORK_ITEM_SIZES);
    assert_eq!(sizes.len(), dims as usize, "one size per dimension");
    assert!(sizes.iter().all(|&s| (1..=wg).contains(&s)) && sizes[0] == wg, "{sizes:?}");

    assert_eq!(device_val::<cl_device_type>(CL_DEVICE_TYPE), CL_DEVICE_TYPE_GPU);
    assert_eq!(device_val::<cl_platform_id>(CL_DEVICE_PLATFORM), p);
    assert!(device_val::<cl_device_id>(CL_DEVICE_PARENT_DEVICE).is_null());
    assert_eq!(device_str(CL_DEVICE_PROFILE), "FULL_PROFILE");
    assert!(device_str(CL_DEVICE_VERSION).starts_with("OpenCL 3.0 "));
    assert_eq!(device_val::<cl_version>(CL_DEVICE_NUMERIC_VERSION), version(3, 0, 0));
    assert!(device_str(CL_DEVICE_OPENCL_C_VERSION).starts_with("OpenCL C 1.2 "));
    let c_versions = name_versions(&info_bytes(f, d, CL_DEVICE_OPENCL_C_ALL_VERSIONS));
    assert!(c_versions.iter().all(|(_, n)| n == "OpenCL C"));
    for v in [version(1, 0, 0), version(1, 1, 0), version(1, 2, 0)] {
        assert!(c_versions.iter().any(|&(x, _)| x == v), "OpenCL C {v:#x} listed");
    }
    let features = name_versions(&info_bytes(f, d, CL_DEVICE_OPENCL_C_FEATURES));
    if c_versions.iter().any(|&(x, _)| x == version(3, 0, 0)) {
        assert!(features.iter().any(|(_, n)| n == "__opencl_c_int64"), "full profile OpenCL C 3.0 needs int64");
    }
    assert!(device_val::<cl_bool>(CL_DEVICE_AVAILABLE) == CL_TRUE);
    assert!(device_val::<cl_bool>(CL_DEVICE_ENDIAN_LITTLE) == CL_TRUE);
    // As the host's (kernels are compiled for `spir64`; see icd_svm.rs for what it buys).
    assert_eq!(device_val::<cl_uint>(CL_DEVICE_ADDRESS_BITS), 64);

    let exts: Vec<String> = device_str(CL_DEVICE_EXTENSIONS).split_whitespace().map(String::from).collect();
    let with_version = name_versions(&info_bytes(f, d, CL_DEVICE_EXTENSIONS_WITH_VERSION));
    assert_eq!(with_version.into_iter().map(|(_, n)| n).collect::<Vec<_>>(), exts);
    // fp64 (in software) is claimed with the configuration the spec requires of it, and fp16
    // (through float) with an honest one; no images: their queries say so.
    assert!(exts.iter().any(|e| e == "cl_khr_fp64"));
    assert!(exts.iter().any(|e| e == "cl_khr_fp16"));
    let double: cl_device_fp_config = device_val(CL_DEVICE_DOUBLE_FP_CONFIG);
    let required = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM;
    assert_eq!(double & required, required);
    // Only the bits the spec defines for doubles; software arithmetic says so.
    assert_eq!(double & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, 0);
    assert_ne!(double & CL_FP_SOFT_FLOAT, 0);
    assert_eq!(device_val::<u32>(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE), 1);
    assert_eq!(device_val::<u32>(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE), 1);
    // The spec's minimum for cl_khr_fp16 is round-to-zero or round-to-nearest with INF_NAN; we
    // round to nearest, keep denormals and fuse fma with one rounding (no directed modes).
    let half: cl_device_fp_config = device_val(CL_DEVICE_HALF_FP_CONFIG);
    assert_eq!(half, CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM | CL_FP_FMA | CL_FP_SOFT_FLOAT);
    assert_eq!(device_val::<u32>(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF), 1);
    assert_eq!(device_val::<u32>(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF), 1);
    assert!(features.iter().any(|(_, n)| n == "__opencl_c_fp16"), "fp16 feature listed with the extension");
    // Images (OpenCL 3.0 minimums for a device with images).
    assert_eq!(device_val::<cl_bool>(CL_DEVICE_IMAGE_SUPPORT), CL_TRUE);
    for (q, min) in
        [(CL_DEVICE_MAX_READ_IMAGE_ARGS, 128), (CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 64), (CL_DEVICE_MAX_SAMPLERS, 16)]
    {
        assert!(device_val::<u32>(q) >= min, "{q:#x}");
    }
    assert!(features.iter().any(|(_, n)| n == "__opencl_c_images"), "the images feature listed");
    let single: cl_device_fp_config = device_val(CL_DEVICE_SINGLE_FP_CONFIG);
    assert_eq!(single & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN), CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN);
    // IL: cl_khr_il_program ⇔ an IL version; the two IL queries agree.
    let il = device_str(CL_DEVICE_IL_VERSION);
    let ils = name_versions(&info_bytes(f, d, CL_DEVICE_ILS_WITH_VERSION));
    assert_eq!(exts.iter().any(|e| e == "cl_khr_il_program"), !il.is_empty());
    assert_eq!(il.split_whitespace().count(), ils.len());
    assert!(ils.iter().all(|(_, n)| il.contains(n.as_str())), "{il:?} vs {ils:?}");
    assert_eq!(device_str(CL_DEVICE_BUILT_IN_KERNELS), "");
    assert!(info_bytes(f, d, CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION).is_empty());

    // Memory limits (full-profile minimums) and their relations.
    let global: u64 = device_val(CL_DEVICE_GLOBAL_MEM_SIZE);
    let alloc: u64 = device_val(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert!(alloc >= (global / 4).clamp(128 << 20, 1 << 30) && alloc <= global, "{alloc} of {global}");
    assert!(device_val::<u64>(CL_DEVICE_LOCAL_MEM_SIZE) >= 32 << 10);
    assert!(device_val::<u64>(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 << 10);
    assert!(device_val::<u32>(CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
    assert!(device_val::<usize>(CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
    assert!(device_val::<u32>(CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 1024, "at least sizeof(long16) in bits");
    assert_eq!(device_val::<cl_device_local_mem_type>(CL_DEVICE_LOCAL_MEM_TYPE), CL_LOCAL);

    // Queues: profiling and out-of-order on the host; nothing on the device.
    let host: cl_command_queue_properties = device_val(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
    assert_eq!(host, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    assert_eq!(device_val::<u64>(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES), 0);
    assert_eq!(device_val::<u32>(CL_DEVICE_MAX_ON_DEVICE_QUEUES), 0);
    assert_eq!(device_val::<u64>(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES), 0);
    assert!(device_val::<usize>(CL_DEVICE_PROFILING_TIMER_RESOLUTION) > 0);

    // Partitioning: one sub-device per host thread, when there are several.
    let units = device_val::<u32>(CL_DEVICE_MAX_COMPUTE_UNITS);
    let max_subs = device_val::<u32>(CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    let partition: Vec<cl_device_partition_property> = info_vec(f, d, CL_DEVICE_PARTITION_PROPERTIES);
    if units >= 2 {
        assert_eq!(max_subs, units);
        assert_eq!(partition, [CL_DEVICE_PARTITION_EQUALLY, CL_DEVICE_PARTITION_BY_COUNTS]);
    } else {
        assert_eq!((max_subs, partition), (0, vec![0]));
    }
    let ptype: Vec<cl_device_partition_property> = info_vec(f, d, CL_DEVICE_PARTITION_TYPE);
    assert!(ptype.is_empty() || ptype == [0], "root device: {ptype:?}");

    // OpenCL 3.0 minimum atomic capabilities.
    let mem: u64 = device_val(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    let need = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
    assert_eq!(mem & need, need);
    let fence: u64 = device_val(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    let need = need | CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
    assert_eq!(fence & need, need);
    // Coarse- and fine-grained buffer SVM (tests/icd_svm.rs); no pipes.
    let svm = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
    assert_eq!(device_val::<u64>(CL_DEVICE_SVM_CAPABILITIES), svm);
    assert_eq!(device_val::<cl_bool>(CL_DEVICE_PIPE_SUPPORT), CL_FALSE);
}

/// Run in a child process by [`work_group_size_follows_the_environment`] with a custom
/// configuration; checks it against the environment.
#[test]
#[ignore = "run by work_group_size_follows_the_environment in a child process"]
fn child_checks_configuration() {
    let (numt, numw, threads) = expected_config();
    assert_eq!(device_val::<usize>(CL_DEVICE_MAX_WORK_GROUP_SIZE), numt * numw);
    assert_eq!(device_val::<usize>(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE), numt);
    assert_eq!(info_vec::<usize, _, _>(cl().clGetDeviceInfo, device(), CL_DEVICE_MAX_WORK_ITEM_SIZES)[0], numt * numw);
    assert_eq!(Some(device_val::<cl_uint>(CL_DEVICE_MAX_COMPUTE_UNITS)), threads);
}

#[test]
fn work_group_size_follows_the_environment() {
    for (numt, numw, threads) in [("4", "3", "3"), ("32", "2", "1"), ("7", "1", "5")] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_checks_configuration", "--ignored", "--test-threads=1"])
            .env("NUM_THREAD", numt)
            .env("NUM_WARP", numw)
            .env("VENTUS_THREADS", threads)
            .env_remove("VENTUS_NUM_THREAD")
            .env_remove("VENTUS_NUM_WARP")
            .output()
            .expect("running the test binary");
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "NUM_THREAD={numt} NUM_WARP={numw} VENTUS_THREADS={threads}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn null_platform_means_ours_in_this_loader() {
    // ocl-icd resolves a NULL platform to its default platform (the only one here); the driver
    // itself also accepts NULL. Either way the result is our device.
    let cl = cl();
    let (mut d, mut n) = (null_mut(), 0);
    // SAFETY: room for one device.
    let code = unsafe { (cl.clGetDeviceIDs)(null_mut(), CL_DEVICE_TYPE_ALL, 1, &mut d, &mut n) };
    if code == CL_SUCCESS {
        assert_eq!((d, n), (device(), 1));
    } else {
        expect_err(code, CL_INVALID_PLATFORM, "clGetDeviceIDs(NULL)");
    }
}
