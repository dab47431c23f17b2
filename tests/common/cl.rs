//! Loader test harness: calls OpenCL exactly as an application does, through Debian's ICD loader
//! (`ocl-icd`'s `libOpenCL.so.1`), which finds our cdylib through an `.icd` file.
//!
//! Include it from an integration test with `#[path = "common/cl.rs"] mod cl;`. A test that uses it
//! must not use `ventus_icd` items directly: that would be a second, separate copy of the driver.
//!
//! How it works, once per test process ([`cl()`] initialises on first use):
//! 1. [`icd_library()`] finds `libventus_icd.so` in the cargo profile directory of this test
//!    executable (`current_exe()` = `target/<profile>/deps/<test>`, so `target/<profile>/`): the
//!    newer of `deps/libventus_icd.so` (what `cargo test` just built along with the rlib) and
//!    `libventus_icd.so` (what `cargo build` copies up). If neither exists, the harness runs
//!    `cargo build --lib` for that profile and target directory.
//! 2. [`vendors_dir()`] writes `target/<profile>/ventus-icd-vendors/ventus.icd` holding the
//!    absolute library path, and `OCL_ICD_VENDORS` is set to that directory *before* the loader is
//!    loaded, so the loader sees our ICD and no other.
//! 3. `libOpenCL.so.1` is loaded with `libloading` and every OpenCL 3.0 core entry point it exports
//!    is resolved into [`Cl`], one plain `unsafe extern "C" fn` field per entry point, named as in
//!    C and typed with `opencl_sys::cl_function_types` (the `Option` unwrapped). Call them as
//!    `unsafe { (cl().clGetPlatformIDs)(..) }`.
//!
//! Conveniences (all assert `CL_SUCCESS`, reporting the error name): [`platform()`], [`device()`],
//! [`context()`], [`queue()`], [`user_event()`], [`check()`]/[`err_name()`], and the info readers
//! [`info_bytes()`], [`info_string()`], [`info_value()`], [`info_vec()`] for any
//! `clGet*Info(handle, param, size, value, size_ret)` function, plus [`info_bytes_with()`] for the
//! two-handle ones (`clGetProgramBuildInfo`, `clGetKernelWorkGroupInfo`, …).
#![allow(dead_code, non_snake_case, clippy::missing_safety_doc)]

pub use opencl_sys::*;

/// `clGetEventInfo` query of the Ventus vendor extension (include/CL/cl_ventus.h): a completed
/// launch's `cl_ventus_launch_stats` (twelve `cl_ulong`s).
pub const CL_EVENT_STATISTICS_VENTUS: cl_event_info = 0x7F10;
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Maps an `Option<fn>` type (the `*_t` types of `cl_function_types`) to its plain fn type.
pub trait Unwrapped {
    type F: Copy;
}
impl<F: Copy> Unwrapped for Option<F> {
    type F = F;
}

macro_rules! cl_api {
    ($($name:ident: $t:ident),* $(,)?) => {
        /// Every OpenCL 3.0 core entry point of the ICD loader, as a plain function pointer.
        pub struct Cl {
            $(pub $name: <opencl_sys::cl_function_types::$t as Unwrapped>::F,)*
            /// Keeps `libOpenCL.so.1` loaded (the struct lives in a static, never dropped).
            _lib: libloading::Library,
        }

        impl Cl {
            pub fn load(lib: libloading::Library) -> Cl {
                $(
                    // SAFETY: the symbol is the loader's entry point of that name; its C signature
                    // is the one `cl_function_types` declares (both come from the Khronos
                    // headers), and the pointer stays valid because `lib` is stored with it.
                    let $name = unsafe {
                        *lib.get::<<opencl_sys::cl_function_types::$t as Unwrapped>::F>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                        .unwrap_or_else(|e| panic!("libOpenCL.so.1 lacks {}: {e}", stringify!($name)))
                    };
                )*
                Cl { $($name,)* _lib: lib }
            }
        }
    };
}

cl_api! {
    clGetPlatformIDs: clGetPlatformIDs_t, clGetPlatformInfo: clGetPlatformInfo_t,
    clGetDeviceIDs: clGetDeviceIDs_t, clGetDeviceInfo: clGetDeviceInfo_t,
    clCreateContext: clCreateContext_t, clCreateContextFromType: clCreateContextFromType_t,
    clRetainContext: clRetainContext_t, clReleaseContext: clReleaseContext_t,
    clGetContextInfo: clGetContextInfo_t, clRetainCommandQueue: clRetainCommandQueue_t,
    clReleaseCommandQueue: clReleaseCommandQueue_t, clGetCommandQueueInfo: clGetCommandQueueInfo_t,
    clCreateBuffer: clCreateBuffer_t, clRetainMemObject: clRetainMemObject_t,
    clReleaseMemObject: clReleaseMemObject_t, clGetSupportedImageFormats: clGetSupportedImageFormats_t,
    clGetMemObjectInfo: clGetMemObjectInfo_t, clGetImageInfo: clGetImageInfo_t,
    clRetainSampler: clRetainSampler_t, clReleaseSampler: clReleaseSampler_t,
    clGetSamplerInfo: clGetSamplerInfo_t, clCreateProgramWithSource: clCreateProgramWithSource_t,
    clCreateProgramWithBinary: clCreateProgramWithBinary_t, clRetainProgram: clRetainProgram_t,
    clReleaseProgram: clReleaseProgram_t, clBuildProgram: clBuildProgram_t,
    clGetProgramInfo: clGetProgramInfo_t, clGetProgramBuildInfo: clGetProgramBuildInfo_t,
    clCreateKernel: clCreateKernel_t, clCreateKernelsInProgram: clCreateKernelsInProgram_t,
    clRetainKernel: clRetainKernel_t, clReleaseKernel: clReleaseKernel_t,
    clSetKernelArg: clSetKernelArg_t, clGetKernelInfo: clGetKernelInfo_t,
    clGetKernelWorkGroupInfo: clGetKernelWorkGroupInfo_t, clWaitForEvents: clWaitForEvents_t,
    clGetEventInfo: clGetEventInfo_t, clRetainEvent: clRetainEvent_t,
    clReleaseEvent: clReleaseEvent_t, clGetEventProfilingInfo: clGetEventProfilingInfo_t,
    clFlush: clFlush_t, clFinish: clFinish_t,
    clEnqueueReadBuffer: clEnqueueReadBuffer_t, clEnqueueWriteBuffer: clEnqueueWriteBuffer_t,
    clEnqueueCopyBuffer: clEnqueueCopyBuffer_t, clEnqueueReadImage: clEnqueueReadImage_t,
    clEnqueueWriteImage: clEnqueueWriteImage_t, clEnqueueCopyImage: clEnqueueCopyImage_t,
    clEnqueueCopyImageToBuffer: clEnqueueCopyImageToBuffer_t,
    clEnqueueCopyBufferToImage: clEnqueueCopyBufferToImage_t,
    clEnqueueMapBuffer: clEnqueueMapBuffer_t, clEnqueueMapImage: clEnqueueMapImage_t,
    clEnqueueUnmapMemObject: clEnqueueUnmapMemObject_t, clEnqueueNDRangeKernel: clEnqueueNDRangeKernel_t,
    clEnqueueNativeKernel: clEnqueueNativeKernel_t, clSetCommandQueueProperty: clSetCommandQueueProperty_t,
    clCreateImage2D: clCreateImage2D_t, clCreateImage3D: clCreateImage3D_t,
    clEnqueueMarker: clEnqueueMarker_t, clEnqueueWaitForEvents: clEnqueueWaitForEvents_t,
    clEnqueueBarrier: clEnqueueBarrier_t, clUnloadCompiler: clUnloadCompiler_t,
    clGetExtensionFunctionAddress: clGetExtensionFunctionAddress_t,
    clCreateCommandQueue: clCreateCommandQueue_t, clCreateSampler: clCreateSampler_t,
    clEnqueueTask: clEnqueueTask_t, clCreateSubBuffer: clCreateSubBuffer_t,
    clSetMemObjectDestructorCallback: clSetMemObjectDestructorCallback_t,
    clCreateUserEvent: clCreateUserEvent_t, clSetUserEventStatus: clSetUserEventStatus_t,
    clSetEventCallback: clSetEventCallback_t, clEnqueueReadBufferRect: clEnqueueReadBufferRect_t,
    clEnqueueWriteBufferRect: clEnqueueWriteBufferRect_t, clEnqueueCopyBufferRect: clEnqueueCopyBufferRect_t,
    clCreateSubDevices: clCreateSubDevices_t, clRetainDevice: clRetainDevice_t,
    clReleaseDevice: clReleaseDevice_t, clCreateImage: clCreateImage_t,
    clCreateProgramWithBuiltInKernels: clCreateProgramWithBuiltInKernels_t,
    clCompileProgram: clCompileProgram_t, clLinkProgram: clLinkProgram_t,
    clUnloadPlatformCompiler: clUnloadPlatformCompiler_t, clGetKernelArgInfo: clGetKernelArgInfo_t,
    clEnqueueFillBuffer: clEnqueueFillBuffer_t, clEnqueueFillImage: clEnqueueFillImage_t,
    clEnqueueMigrateMemObjects: clEnqueueMigrateMemObjects_t,
    clEnqueueMarkerWithWaitList: clEnqueueMarkerWithWaitList_t,
    clEnqueueBarrierWithWaitList: clEnqueueBarrierWithWaitList_t,
    clGetExtensionFunctionAddressForPlatform: clGetExtensionFunctionAddressForPlatform_t,
    clCreateCommandQueueWithProperties: clCreateCommandQueueWithProperties_t,
    clCreatePipe: clCreatePipe_t, clGetPipeInfo: clGetPipeInfo_t,
    clSVMAlloc: clSVMAlloc_t, clSVMFree: clSVMFree_t,
    clCreateSamplerWithProperties: clCreateSamplerWithProperties_t,
    clSetKernelArgSVMPointer: clSetKernelArgSVMPointer_t, clSetKernelExecInfo: clSetKernelExecInfo_t,
    clEnqueueSVMFree: clEnqueueSVMFree_t, clEnqueueSVMMemcpy: clEnqueueSVMMemcpy_t,
    clEnqueueSVMMemFill: clEnqueueSVMMemFill_t, clEnqueueSVMMap: clEnqueueSVMMap_t,
    clEnqueueSVMUnmap: clEnqueueSVMUnmap_t, clSetDefaultDeviceCommandQueue: clSetDefaultDeviceCommandQueue_t,
    clGetDeviceAndHostTimer: clGetDeviceAndHostTimer_t, clGetHostTimer: clGetHostTimer_t,
    clCreateProgramWithIL: clCreateProgramWithIL_t, clCloneKernel: clCloneKernel_t,
    clGetKernelSubGroupInfo: clGetKernelSubGroupInfo_t, clEnqueueSVMMigrateMem: clEnqueueSVMMigrateMem_t,
    clSetProgramSpecializationConstant: clSetProgramSpecializationConstant_t,
    clSetProgramReleaseCallback: clSetProgramReleaseCallback_t,
    clSetContextDestructorCallback: clSetContextDestructorCallback_t,
    clCreateBufferWithProperties: clCreateBufferWithProperties_t,
    clCreateImageWithProperties: clCreateImageWithProperties_t,
}

/// `target/<profile>/` of this test executable (`target/<profile>/deps/<test>` → two levels up).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test executable directory");
    let dir = if deps.file_name().is_some_and(|n| n == "deps") { deps.parent().unwrap() } else { deps };
    dir.to_path_buf()
}

/// The absolute path of our cdylib, building it (`cargo build --lib`) if it is missing.
///
/// `cargo test` writes the cdylib it builds for this run to `target/<profile>/deps/` (only
/// `cargo build` copies it up to `target/<profile>/`), so the `deps/` copy is the fresh one; the
/// newer of the two is used.
pub fn icd_library() -> PathBuf {
    let dir = profile_dir();
    let candidates = [dir.join("deps/libventus_icd.so"), dir.join("libventus_icd.so")];
    let newest = || {
        candidates
            .iter()
            .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p.clone())))
            .max_by_key(|(t, _)| *t)
            .map(|(_, p)| p)
    };
    let lib = newest().unwrap_or_else(|| {
        let profile = dir.file_name().unwrap().to_string_lossy().into_owned();
        let target = dir.parent().expect("target directory");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "--lib", "--profile", if profile == "debug" { "dev" } else { &profile }]);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR")).env("CARGO_TARGET_DIR", target);
        let status = cmd.status().expect("running cargo build --lib");
        assert!(status.success(), "could not build libventus_icd.so in {}", dir.display());
        newest().expect("libventus_icd.so after cargo build --lib")
    });
    lib.canonicalize().expect("canonical library path")
}

/// Writes (atomically) a vendors directory holding only `ventus.icd` → [`icd_library()`], and
/// returns it. Idempotent; shared by every test process of the profile (same content).
pub fn vendors_dir() -> PathBuf {
    let dir = profile_dir().join("ventus-icd-vendors");
    std::fs::create_dir_all(&dir).expect("creating the vendors directory");
    // Unique per call: threads of one test process may write concurrently.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".ventus.icd.{}.{n}", std::process::id()));
    std::fs::write(&tmp, format!("{}\n", icd_library().display())).expect("writing ventus.icd");
    std::fs::rename(&tmp, dir.join("ventus.icd")).expect("renaming ventus.icd");
    dir
}

/// The loader, loaded once per process with `OCL_ICD_VENDORS` pointing at [`vendors_dir()`].
pub fn cl() -> &'static Cl {
    static CL: OnceLock<Cl> = OnceLock::new();
    CL.get_or_init(|| {
        let vendors = vendors_dir();
        // Set before the loader is loaded (it reads the variable when it enumerates ICDs). Other
        // test threads block on this OnceLock, so nobody uses the loader concurrently.
        std::env::set_var("OCL_ICD_VENDORS", &vendors);
        // SAFETY: loading the system's ICD loader runs only its (well-behaved) initialisers.
        let lib = unsafe { libloading::Library::new("libOpenCL.so.1") }.unwrap_or_else(|e| {
            panic!("cannot load libOpenCL.so.1 ({e}); run the README's test command (`bash .ci/run`), which installs ocl-icd")
        });
        Cl::load(lib)
    })
}

/// The spec name of an error code (for messages).
pub fn err_name(code: cl_int) -> &'static str {
    macro_rules! names { ($($c:ident),*) => { match code { $($c => stringify!($c),)* _ => "unknown error" } } }
    names!(
        CL_SUCCESS,
        CL_DEVICE_NOT_FOUND,
        CL_DEVICE_NOT_AVAILABLE,
        CL_COMPILER_NOT_AVAILABLE,
        CL_MEM_OBJECT_ALLOCATION_FAILURE,
        CL_OUT_OF_RESOURCES,
        CL_OUT_OF_HOST_MEMORY,
        CL_PROFILING_INFO_NOT_AVAILABLE,
        CL_MEM_COPY_OVERLAP,
        CL_BUILD_PROGRAM_FAILURE,
        CL_MAP_FAILURE,
        CL_MISALIGNED_SUB_BUFFER_OFFSET,
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        CL_COMPILE_PROGRAM_FAILURE,
        CL_LINKER_NOT_AVAILABLE,
        CL_LINK_PROGRAM_FAILURE,
        CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
        CL_INVALID_VALUE,
        CL_INVALID_DEVICE_TYPE,
        CL_INVALID_PLATFORM,
        CL_INVALID_DEVICE,
        CL_INVALID_CONTEXT,
        CL_INVALID_QUEUE_PROPERTIES,
        CL_INVALID_COMMAND_QUEUE,
        CL_INVALID_HOST_PTR,
        CL_INVALID_MEM_OBJECT,
        CL_INVALID_IMAGE_SIZE,
        CL_INVALID_SAMPLER,
        CL_INVALID_BINARY,
        CL_INVALID_BUILD_OPTIONS,
        CL_INVALID_PROGRAM,
        CL_INVALID_PROGRAM_EXECUTABLE,
        CL_INVALID_KERNEL_NAME,
        CL_INVALID_KERNEL_DEFINITION,
        CL_INVALID_KERNEL,
        CL_INVALID_ARG_INDEX,
        CL_INVALID_ARG_VALUE,
        CL_INVALID_ARG_SIZE,
        CL_INVALID_KERNEL_ARGS,
        CL_INVALID_WORK_DIMENSION,
        CL_INVALID_WORK_GROUP_SIZE,
        CL_INVALID_WORK_ITEM_SIZE,
        CL_INVALID_GLOBAL_OFFSET,
        CL_INVALID_EVENT_WAIT_LIST,
        CL_INVALID_EVENT,
        CL_INVALID_OPERATION,
        CL_INVALID_BUFFER_SIZE,
        CL_INVALID_GLOBAL_WORK_SIZE,
        CL_INVALID_PROPERTY,
        CL_INVALID_COMPILER_OPTIONS,
        CL_INVALID_LINKER_OPTIONS,
        CL_INVALID_DEVICE_PARTITION_COUNT,
        CL_INVALID_PIPE_SIZE,
        CL_INVALID_DEVICE_QUEUE,
        CL_INVALID_SPEC_ID,
        CL_MAX_SIZE_RESTRICTION_EXCEEDED
    )
}

/// Asserts that `code` is `CL_SUCCESS`; `what` names the call in the failure message.
#[track_caller]
pub fn check(code: cl_int, what: &str) {
    assert_eq!(code, CL_SUCCESS, "{what} failed: {} ({code})", err_name(code));
}

/// Asserts that `code` is `expected`, naming both in the failure message.
#[track_caller]
pub fn expect_err(code: cl_int, expected: cl_int, what: &str) {
    assert_eq!(code, expected, "{what}: got {} ({code}), expected {}", err_name(code), err_name(expected));
}

/// The shape of every single-handle `clGet*Info` entry point.
pub type InfoFn<H, P> = unsafe extern "C" fn(H, P, usize, *mut c_void, *mut usize) -> cl_int;

/// Reads a query through `f(size, value, size_ret)`: size query first, then the value; asserts
/// success and that both calls report the same size.
#[track_caller]
pub fn info_bytes_with(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Vec<u8> {
    let mut size = 0usize;
    check(f(0, std::ptr::null_mut(), &mut size), "size query");
    let mut buf = vec![0u8; size];
    let mut size2 = usize::MAX;
    let ptr = if size == 0 { std::ptr::null_mut() } else { buf.as_mut_ptr() as *mut c_void };
    check(f(size, ptr, &mut size2), "value query");
    assert_eq!(size, size2, "size query and value query disagree");
    buf
}

/// Reads `f(handle, param)` as bytes (see [`info_bytes_with`]).
#[track_caller]
pub fn info_bytes<H: Copy, P: Copy>(f: InfoFn<H, P>, h: H, param: P) -> Vec<u8> {
    // SAFETY: `f` is a loader entry point of this shape; the buffer has the size we pass.
    info_bytes_with(|s, v, r| unsafe { f(h, param, s, v, r) })
}

/// Reads a string query: NUL-terminated, the NUL stripped.
#[track_caller]
pub fn info_string<H: Copy, P: Copy>(f: InfoFn<H, P>, h: H, param: P) -> String {
    let mut b = info_bytes(f, h, param);
    assert_eq!(b.pop(), Some(0), "string query result is not NUL-terminated");
    assert!(!b.contains(&0), "string query result has an inner NUL");
    String::from_utf8(b).expect("string query result is not UTF-8")
}

/// Reads a scalar query of type `T`, asserting its size is exactly `size_of::<T>()`.
#[track_caller]
pub fn info_value<T: Copy, H: Copy, P: Copy>(f: InfoFn<H, P>, h: H, param: P) -> T {
    let b = info_bytes(f, h, param);
    assert_eq!(b.len(), std::mem::size_of::<T>(), "query result size");
    // SAFETY: exactly size_of::<T>() bytes; `T` is a plain C value type (read unaligned).
    unsafe { (b.as_ptr() as *const T).read_unaligned() }
}

/// Reads an array query of `T`s, asserting the size is a multiple of `size_of::<T>()`.
#[track_caller]
pub fn info_vec<T: Copy, H: Copy, P: Copy>(f: InfoFn<H, P>, h: H, param: P) -> Vec<T> {
    let b = info_bytes(f, h, param);
    let n = std::mem::size_of::<T>();
    assert_eq!(b.len() % n, 0, "array query size is not a multiple of the element size");
    // SAFETY: each chunk has exactly size_of::<T>() bytes of a plain C value type.
    b.chunks_exact(n).map(|c| unsafe { (c.as_ptr() as *const T).read_unaligned() }).collect()
}

/// Our platform (asserting the loader reports exactly one, named "Ventus").
#[track_caller]
pub fn platform() -> cl_platform_id {
    let cl = cl();
    let mut n = 0;
    // SAFETY: valid out-pointers as the entry points require.
    check(unsafe { (cl.clGetPlatformIDs)(0, std::ptr::null_mut(), &mut n) }, "clGetPlatformIDs");
    assert_eq!(n, 1, "OCL_ICD_VENDORS names only our ICD: exactly one platform expected");
    let mut p = std::ptr::null_mut();
    // SAFETY: room for one platform.
    check(unsafe { (cl.clGetPlatformIDs)(1, &mut p, std::ptr::null_mut()) }, "clGetPlatformIDs");
    assert_eq!(info_string(cl.clGetPlatformInfo, p, CL_PLATFORM_NAME), "Ventus");
    p
}

/// Our (only) device.
#[track_caller]
pub fn device() -> cl_device_id {
    let mut d = std::ptr::null_mut();
    // SAFETY: room for one device.
    let code = unsafe { (cl().clGetDeviceIDs)(platform(), CL_DEVICE_TYPE_ALL, 1, &mut d, std::ptr::null_mut()) };
    check(code, "clGetDeviceIDs");
    assert!(!d.is_null());
    d
}

/// A new context on [`device()`] (no properties, no callback). Release it with `clReleaseContext`.
#[track_caller]
pub fn context() -> cl_context {
    let (d, mut err) = (device(), 0);
    // SAFETY: one valid device; no callback.
    let c = unsafe { (cl().clCreateContext)(std::ptr::null(), 1, &d, None, std::ptr::null_mut(), &mut err) };
    check(err, "clCreateContext");
    c
}

/// A new queue on `ctx` and [`device()`] with `CL_QUEUE_PROPERTIES` = `props` (0 for a plain
/// in-order queue), created with `clCreateCommandQueueWithProperties`.
#[track_caller]
pub fn queue(ctx: cl_context, props: cl_command_queue_properties) -> cl_command_queue {
    let list = [CL_QUEUE_PROPERTIES as cl_queue_properties, props, 0];
    let mut err = 0;
    // SAFETY: a zero-terminated property list.
    let q = unsafe { (cl().clCreateCommandQueueWithProperties)(ctx, device(), list.as_ptr(), &mut err) };
    check(err, "clCreateCommandQueueWithProperties");
    q
}

/// A new user event in `ctx`.
#[track_caller]
pub fn user_event(ctx: cl_context) -> cl_event {
    let mut err = 0;
    // SAFETY: plain handle and out-pointer.
    let e = unsafe { (cl().clCreateUserEvent)(ctx, &mut err) };
    check(err, "clCreateUserEvent");
    e
}

/// `CL_EVENT_COMMAND_EXECUTION_STATUS` of `e`.
#[track_caller]
pub fn event_status(e: cl_event) -> cl_int {
    info_value(cl().clGetEventInfo, e, CL_EVENT_COMMAND_EXECUTION_STATUS)
}
