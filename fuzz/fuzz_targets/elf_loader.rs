//! Fuzzes the binary loader: the input bytes are handed to `clCreateProgramWithBinary`, and a
//! program that loads is built (`clBuildProgram`) and has every kernel created and queried, exactly
//! as an application does with a binary. Contract: malformed input returns an error
//! (`CL_INVALID_BINARY`, or `CL_BUILD_PROGRAM_FAILURE` for an object binary that does not link);
//! any panic, abort, hang or huge allocation is a bug.
//!
//! Why the C entry points: the loader (`core::program::LoadedBinary::load` →
//! `Executable::load`: `abi::elf::VentusElf::parse`, the entry check, `device::Program::from_elf`
//! with the line table, the legacy-printf and native-fp64 host calls, `abi::kernel_info::decode`,
//! the kernel symbols and resource records, `abi::printf::PrintfTable::decode`,
//! `abi::globals::GlobalsImage::from_elf`; or `ObjectBinary::decode` for `VNTSPVO` object
//! binaries), program builds and kernel objects live in the crate-private `core` layer, which only
//! the OpenCL API reaches. The crate exports `clIcdGetPlatformIDsKHR` (the ICD entry point); every
//! other entry point is called through the ICD dispatch table that each handle points to, as the
//! ICD loader does. The API layer turns a panic into `CL_OUT_OF_HOST_MEMORY` (`catch_unwind`);
//! the panic hook installed below aborts first, so the fuzzer sees every panic as a crash.
//!
//! Inputs are not rewritten in any way: the seed corpus (`make_corpus.sh`) is real binaries — the
//! official toolchain's ELF, ELFs the driver compiled (`CL_PROGRAM_BINARIES`), `ventus-run asm`
//! output with and without argument metadata, and compiled-object binaries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use opencl_sys::cl_icd::cl_icd_dispatch;
use opencl_sys::*;
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

// Links the driver (the symbol below is its `#[no_mangle]` ICD entry point).
use ventus_icd as _;

extern "C" {
    fn clIcdGetPlatformIDsKHR(
        num_entries: cl_uint,
        platforms: *mut cl_platform_id,
        num_platforms: *mut cl_uint,
    ) -> cl_int;
}

/// Arguments queried per kernel at most (keeps one input's work bounded).
const MAX_ARGS: cl_uint = 64;

struct Cl {
    d: &'static cl_icd_dispatch,
    dev: cl_device_id,
    ctx: cl_context,
}
// SAFETY: OpenCL handles may be used from any thread; libFuzzer runs inputs on one thread anyway.
unsafe impl Send for Cl {}
// SAFETY: as above.
unsafe impl Sync for Cl {}

/// Calls a dispatch-table slot (every slot of the driver's table is filled).
macro_rules! call {
    ($cl:expr, $f:ident($($a:expr),* $(,)?)) => {
        ($cl.d.$f.expect(concat!("dispatch slot ", stringify!($f))))($($a),*)
    };
}

fn cl() -> &'static Cl {
    static CL: OnceLock<Cl> = OnceLock::new();
    CL.get_or_init(|| {
        // A panic caught by the API layer must still end the run (libfuzzer-sys installs the same
        // hook; this one does not depend on it).
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            std::process::abort();
        }));
        // Every rejected binary logs a warning; a million of them only slow the run down.
        if std::env::var_os("RUST_LOG").is_none() {
            std::env::set_var("RUST_LOG", "off");
        }
        // Builds of object binaries use a build cache of their own (not the user's), which keeps
        // the soft-double library between the processes of a -fork run.
        if std::env::var_os("VENTUS_CACHE").is_none() && std::env::var_os("VENTUS_CACHE_DIR").is_none() {
            std::env::set_var("VENTUS_CACHE_DIR", std::env::temp_dir().join("ventus-icd-fuzz-cache"));
        }
        // SAFETY: plain OpenCL calls with valid out-pointers; the dispatch pointer is the first
        // field of every handle (cl_khr_icd) and the table is a static of the driver.
        unsafe {
            let mut platform: cl_platform_id = null_mut();
            assert_eq!(clIcdGetPlatformIDsKHR(1, &mut platform, null_mut()), CL_SUCCESS);
            let d: &'static cl_icd_dispatch = &**(platform as *const *const cl_icd_dispatch);
            let mut dev: cl_device_id = null_mut();
            let cl0 = Cl { d, dev: null_mut(), ctx: null_mut() };
            assert_eq!(call!(cl0, clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &mut dev, null_mut())), CL_SUCCESS);
            let mut err = 0;
            let ctx = call!(cl0, clCreateContext(null(), 1, &dev, None, null_mut(), &mut err));
            assert_eq!(err, CL_SUCCESS);
            Cl { d, dev, ctx }
        }
    })
}

/// `clGet*Info` of a variable-size value: asks for the size, then the bytes.
unsafe fn info_bytes(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Option<Vec<u8>> {
    let mut size = 0usize;
    if f(0, null_mut(), &mut size) != CL_SUCCESS {
        return None;
    }
    let mut v = vec![0u8; size];
    (f(size, v.as_mut_ptr().cast(), null_mut()) == CL_SUCCESS).then_some(v)
}

/// `clGet*Info` of a fixed-size value.
unsafe fn info_value<T: Default>(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Option<T> {
    let mut v = T::default();
    (f(std::mem::size_of::<T>(), (&mut v as *mut T).cast(), null_mut()) == CL_SUCCESS).then_some(v)
}

unsafe fn kernel_work(cl: &Cl, program: cl_program, k: cl_kernel) {
    let name = info_bytes(|s, v, r| call!(cl, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, s, v, r)));
    // clCreateKernel by that name must find the same kernel.
    if let Some(name) = name.as_deref().and_then(|n| CStr::from_bytes_until_nul(n).ok()) {
        let mut err = 0;
        let again = call!(cl, clCreateKernel(program, name.as_ptr(), &mut err));
        assert_eq!(err, CL_SUCCESS, "clCreateKernel({name:?}) of a kernel clCreateKernelsInProgram made");
        call!(cl, clReleaseKernel(again));
    }
    let _ = info_bytes(|s, v, r| call!(cl, clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, s, v, r)));
    let dev = cl.dev;
    let _ =
        info_value::<usize>(|s, v, r| call!(cl, clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, s, v, r)));
    let _ = info_value::<[usize; 3]>(|s, v, r| {
        call!(cl, clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, s, v, r))
    });
    let _ = info_value::<cl_ulong>(|s, v, r| {
        call!(cl, clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, s, v, r))
    });
    let _ = info_value::<cl_ulong>(|s, v, r| {
        call!(cl, clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, s, v, r))
    });
    let _ = info_value::<usize>(|s, v, r| {
        call!(cl, clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, s, v, r))
    });
    let nargs =
        info_value::<cl_uint>(|s, v, r| call!(cl, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, s, v, r))).unwrap_or(0);
    for i in 0..nargs.min(MAX_ARGS) {
        let _ = info_value::<cl_uint>(|s, v, r| {
            call!(cl, clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, s, v, r))
        });
        let _ = info_value::<cl_uint>(|s, v, r| {
            call!(cl, clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, s, v, r))
        });
        let _ = info_value::<cl_ulong>(|s, v, r| {
            call!(cl, clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, s, v, r))
        });
        let _ = info_bytes(|s, v, r| call!(cl, clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, s, v, r)));
        let _ = info_bytes(|s, v, r| call!(cl, clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, s, v, r)));
        // The argument checks against the metadata (a NULL buffer / a 4-byte scalar / local size).
        let zero = 0u32;
        let _ = call!(cl, clSetKernelArg(k, i, 4, (&zero as *const u32).cast()));
        let _ = call!(cl, clSetKernelArg(k, i, 16, null()));
    }
}

unsafe fn run(cl: &Cl, data: &[u8]) {
    let (len, mut bytes, mut status, mut err) = (data.len(), data.as_ptr(), 0, 0);
    let program = call!(cl, clCreateProgramWithBinary(cl.ctx, 1, &cl.dev, &len, &mut bytes, &mut status, &mut err));
    if program.is_null() {
        // Anything but CL_INVALID_BINARY means the loader failed in another way (a caught panic
        // reads as CL_OUT_OF_HOST_MEMORY, but the hook aborts before that).
        assert_eq!((err, status), (CL_INVALID_BINARY, CL_INVALID_BINARY), "clCreateProgramWithBinary");
        return;
    }
    assert_eq!((err, status), (CL_SUCCESS, CL_SUCCESS));
    let built = call!(cl, clBuildProgram(program, 1, &cl.dev, c"".as_ptr(), None, null_mut()));
    assert!(built == CL_SUCCESS || built == CL_BUILD_PROGRAM_FAILURE, "clBuildProgram returned {built}");
    let _ = info_bytes(|s, v, r| call!(cl, clGetProgramBuildInfo(program, cl.dev, CL_PROGRAM_BUILD_LOG, s, v, r)));
    if built == CL_SUCCESS {
        let _ = info_value::<usize>(|s, v, r| call!(cl, clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, s, v, r)));
        let _ = info_bytes(|s, v, r| call!(cl, clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, s, v, r)));
        let _ = info_value::<usize>(|s, v, r| {
            call!(cl, clGetProgramBuildInfo(program, cl.dev, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, s, v, r))
        });
        // CL_PROGRAM_BINARIES hands the binary back (one device: one size, one pointer).
        if let Some(size) =
            info_value::<usize>(|s, v, r| call!(cl, clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, s, v, r)))
        {
            let mut out = vec![0u8; size];
            let mut ptrs = [out.as_mut_ptr()];
            let ret = call!(
                cl,
                clGetProgramInfo(
                    program,
                    CL_PROGRAM_BINARIES,
                    size_of_val(&ptrs),
                    ptrs.as_mut_ptr().cast(),
                    null_mut()
                )
            );
            assert_eq!(ret, CL_SUCCESS, "CL_PROGRAM_BINARIES");
        }
        let mut n: cl_uint = 0;
        assert_eq!(call!(cl, clCreateKernelsInProgram(program, 0, null_mut(), &mut n)), CL_SUCCESS);
        let mut kernels = vec![null_mut(); n as usize];
        if n > 0 {
            assert_eq!(call!(cl, clCreateKernelsInProgram(program, n, kernels.as_mut_ptr(), null_mut())), CL_SUCCESS);
        }
        for &k in &kernels {
            kernel_work(cl, program, k);
        }
        for k in kernels {
            call!(cl, clReleaseKernel(k));
        }
    }
    assert_eq!(call!(cl, clReleaseProgram(program)), CL_SUCCESS);
}

fuzz_target!(
    init: {
        cl();
        // The first build that needs the soft-double library (e.g. an object binary with printf
        // of a float) compiles it with clang: seconds under ASan, once per process (and once per
        // cache directory). Done here, outside any input's -timeout.
        let _ = ventus_icd::compiler::softlib::fp64_module();
    },
    |data: &[u8]| {
        let cl = cl();
        if data.is_empty() {
            return; // CL_INVALID_VALUE by the specification (a zero length), not a loader question
        }
        // SAFETY: every pointer passed is valid for the call; handles come from the driver.
        unsafe { run(cl, data) }
    }
);
