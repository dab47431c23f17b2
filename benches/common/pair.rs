//! Our ICD and pocl side by side, both loaded through the system's ICD loader (ocl-icd) exactly
//! as an application loads them: a vendors directory holding our `ventus.icd` and, when Debian's
//! `pocl-opencl-icd` is installed, a copy of its `pocl.icd` ([`cl_api`]). Shared by the
//! benchmarks that compare the two drivers (`vs_pocl`, `apps`).
//!
//! Every call checks its status and panics with the call's name on an error: a benchmark whose
//! OpenCL calls fail has no figure to give.

use super::cl::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::Duration;

/// `CL_EVENT_STATISTICS_VENTUS` (include/CL/cl_ventus.h).
pub const CL_EVENT_STATISTICS_VENTUS: cl_event_info = 0x7F10;

/// The loader, loaded once with `OCL_ICD_VENDORS` naming our ICD and pocl's.
pub fn cl_api() -> &'static Cl {
    static CL: std::sync::OnceLock<Cl> = std::sync::OnceLock::new();
    CL.get_or_init(|| {
        let dir = profile_dir().join("vs-pocl-vendors");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ventus.icd"), format!("{}\n", icd_library().display())).unwrap();
        match std::fs::read_to_string("/etc/OpenCL/vendors/pocl.icd") {
            Ok(s) => std::fs::write(dir.join("pocl.icd"), s).unwrap(),
            Err(_) => {
                let _ = std::fs::remove_file(dir.join("pocl.icd"));
            }
        }
        std::env::set_var("OCL_ICD_VENDORS", &dir);
        // SAFETY: loading the system's ICD loader runs only its initialisers.
        let lib = unsafe { libloading::Library::new("libOpenCL.so.1") }.expect("libOpenCL.so.1 (ocl-icd)");
        Cl::load(lib)
    })
}

/// One platform's first device with a context and an in-order queue (profiling on), and the
/// program built from the source it was opened with (null without one).
pub struct Target {
    pub name: &'static str,
    pub platform: cl_platform_id,
    pub device: cl_device_id,
    pub ctx: cl_context,
    pub queue: cl_command_queue,
    pub program: cl_program,
}

/// Our target and, when pocl is installed, pocl's; each with `source` built (if not empty)
/// with `options`.
pub fn open_pair(source: &str, options: &std::ffi::CStr) -> (Target, Option<Target>) {
    let cl = cl_api();
    let mut n = 0;
    // SAFETY: valid out-pointers.
    check(unsafe { (cl.clGetPlatformIDs)(0, null_mut(), &mut n) }, "clGetPlatformIDs");
    let mut v = vec![null_mut(); n as usize];
    // SAFETY: room for n platforms.
    check(unsafe { (cl.clGetPlatformIDs)(n, v.as_mut_ptr(), null_mut()) }, "clGetPlatformIDs");
    let (mut ours, mut pocl) = (None, None);
    for p in v {
        let name = info_string(cl.clGetPlatformInfo, p, CL_PLATFORM_NAME);
        if name == "Ventus" {
            ours = Some(Target::open("ventus-icd", p, source, options));
        } else if name.contains("Portable Computing Language") || name.contains("pocl") {
            pocl = Some(Target::open("pocl", p, source, options));
        }
    }
    (ours.expect("our platform"), pocl)
}

impl Target {
    fn open(name: &'static str, platform: cl_platform_id, source: &str, options: &std::ffi::CStr) -> Target {
        let cl = cl_api();
        let mut device = null_mut();
        // SAFETY: room for one device.
        check(
            unsafe { (cl.clGetDeviceIDs)(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut()) },
            "clGetDeviceIDs",
        );
        let mut err = 0;
        // SAFETY: one valid device, no callback.
        let ctx = unsafe { (cl.clCreateContext)(null(), 1, &device, None, null_mut(), &mut err) };
        check(err, "clCreateContext");
        let props = [CL_QUEUE_PROPERTIES as cl_queue_properties, CL_QUEUE_PROFILING_ENABLE as cl_queue_properties, 0];
        // SAFETY: zero-terminated property list.
        let queue = unsafe { (cl.clCreateCommandQueueWithProperties)(ctx, device, props.as_ptr(), &mut err) };
        check(err, "clCreateCommandQueueWithProperties");
        let mut t = Target { name, platform, device, ctx, queue, program: null_mut() };
        if !source.is_empty() {
            t.program = t.build(source, options);
        }
        t
    }

    /// Builds `source` for this target's device (panics with the build log on failure).
    pub fn build(&self, source: &str, options: &std::ffi::CStr) -> cl_program {
        let cl = cl_api();
        let mut err = 0;
        let mut src = source.as_ptr() as *const i8;
        let len = source.len();
        // SAFETY: one source string with its length.
        let program = unsafe { (cl.clCreateProgramWithSource)(self.ctx, 1, &mut src, &len, &mut err) };
        check(err, "clCreateProgramWithSource");
        // SAFETY: a valid program and device, NUL-terminated options.
        let code = unsafe { (cl.clBuildProgram)(program, 1, &self.device, options.as_ptr(), None, null_mut()) };
        if code != CL_SUCCESS {
            let log = info_bytes_with(|size, value, ret| {
                // SAFETY: the callee writes at most `size` bytes to `value`.
                unsafe { (cl.clGetProgramBuildInfo)(program, self.device, CL_PROGRAM_BUILD_LOG, size, value, ret) }
            });
            panic!("{}: clBuildProgram: {}\n{}", self.name, err_name(code), String::from_utf8_lossy(&log));
        }
        program
    }

    /// A kernel of the target's own program.
    pub fn kernel(&self, name: &str) -> cl_kernel {
        self.kernel_of(self.program, name)
    }

    /// A kernel of `program`.
    pub fn kernel_of(&self, program: cl_program, name: &str) -> cl_kernel {
        let mut err = 0;
        let cname = std::ffi::CString::new(name).unwrap();
        // SAFETY: a built program and a NUL-terminated name.
        let k = unsafe { (cl_api().clCreateKernel)(program, cname.as_ptr(), &mut err) };
        check(err, "clCreateKernel");
        k
    }

    /// A read-write buffer holding a copy of `bytes`.
    pub fn buffer(&self, bytes: &[u8]) -> cl_mem {
        let mut err = 0;
        // SAFETY: the host pointer is copied during the call (COPY_HOST_PTR).
        let m = unsafe {
            (cl_api().clCreateBuffer)(
                self.ctx,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                bytes.len(),
                bytes.as_ptr() as *mut c_void,
                &mut err,
            )
        };
        check(err, "clCreateBuffer");
        m
    }

    /// A blocking write of `bytes` at the start of `m`.
    pub fn write(&self, m: cl_mem, bytes: &[u8]) {
        // SAFETY: a blocking write from `bytes`, within the buffer's size (checked by the driver).
        let code = unsafe {
            (cl_api().clEnqueueWriteBuffer)(
                self.queue,
                m,
                CL_TRUE,
                0,
                bytes.len(),
                bytes.as_ptr() as *const c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(code, "clEnqueueWriteBuffer");
    }

    /// A blocking read of the first `len` bytes of `m`.
    pub fn read(&self, m: cl_mem, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        // SAFETY: a blocking read into a buffer of `len` bytes.
        let code = unsafe {
            (cl_api().clEnqueueReadBuffer)(
                self.queue,
                m,
                CL_TRUE,
                0,
                len,
                out.as_mut_ptr() as *mut c_void,
                0,
                null(),
                null_mut(),
            )
        };
        check(code, "clEnqueueReadBuffer");
        out
    }

    /// Enqueues a launch without an event (the queue is in order).
    pub fn enqueue(&self, k: cl_kernel, global: &[usize], local: Option<&[usize]>) {
        self.nd_range(k, global, local, null_mut());
    }

    /// Launches and waits; returns the event (the caller releases it).
    pub fn launch(&self, k: cl_kernel, global: &[usize], local: Option<&[usize]>) -> cl_event {
        let mut ev = null_mut();
        self.nd_range(k, global, local, &mut ev);
        // SAFETY: one valid event.
        check(unsafe { (cl_api().clWaitForEvents)(1, &ev) }, "clWaitForEvents");
        ev
    }

    /// `clEnqueueNDRangeKernel` with no offset and no wait list; `event` may be null.
    fn nd_range(&self, k: cl_kernel, global: &[usize], local: Option<&[usize]>, event: *mut cl_event) {
        // SAFETY: sizes arrays of `global.len()` entries; `event` is null or writable.
        let code = unsafe {
            (cl_api().clEnqueueNDRangeKernel)(
                self.queue,
                k,
                global.len() as u32,
                null(),
                global.as_ptr(),
                local.map_or(null(), |l| l.as_ptr()),
                0,
                null(),
                event,
            )
        };
        check(code, "clEnqueueNDRangeKernel");
    }

    /// `clFinish` on the target's queue.
    pub fn finish(&self) {
        // SAFETY: our queue.
        check(unsafe { (cl_api().clFinish)(self.queue) }, "clFinish");
    }
}

/// Sets argument `i` of `k` to the bytes of `v`.
pub fn set_arg<T>(k: cl_kernel, i: u32, v: &T) {
    // SAFETY: `v` points to size_of::<T>() readable bytes.
    check(
        unsafe { (cl_api().clSetKernelArg)(k, i, std::mem::size_of::<T>(), v as *const T as *const c_void) },
        "clSetKernelArg",
    );
}

/// Sets argument `i` of `k` to `bytes` of `__local` memory.
pub fn set_local_arg(k: cl_kernel, i: u32, bytes: usize) {
    // SAFETY: a __local argument: a size and no value.
    check(unsafe { (cl_api().clSetKernelArg)(k, i, bytes, null()) }, "clSetKernelArg");
}

/// `CL_PROFILING_COMMAND_START` → `END` of a completed launch.
pub fn kernel_time(ev: cl_event) -> Duration {
    let get = |p| info_value::<cl_ulong, _, _>(cl_api().clGetEventProfilingInfo, ev, p);
    Duration::from_nanos(get(CL_PROFILING_COMMAND_END) - get(CL_PROFILING_COMMAND_START))
}

/// (warp, lane) instructions of a completed launch of ours (`cl_ventus_launch_stats`).
pub fn lane_instructions(ev: cl_event) -> Option<(u64, u64)> {
    let mut words = [0u64; 12];
    let mut size = 0;
    // SAFETY: room for the 96-byte statistics struct.
    let code = unsafe {
        (cl_api().clGetEventInfo)(ev, CL_EVENT_STATISTICS_VENTUS, 96, words.as_mut_ptr() as *mut c_void, &mut size)
    };
    (code == CL_SUCCESS && size == 96).then_some((words[1], words[2]))
}

/// Little-endian bytes of `v` (floats, ints: any 4- or 8-byte plain value).
pub fn bytes_of<T: Copy + ToLe>(v: &[T]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_vec()).collect()
}

/// Values of type `T` from little-endian bytes.
pub fn values_of<T: Copy + ToLe>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(std::mem::size_of::<T>()).map(T::from_le).collect()
}

/// Plain values moved to and from device buffers.
pub trait ToLe: Sized {
    fn to_le_vec(self) -> Vec<u8>;
    fn from_le(b: &[u8]) -> Self;
}

macro_rules! to_le {
    ($($t:ty),*) => {$(
        impl ToLe for $t {
            fn to_le_vec(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    )*};
}
to_le!(f32, f64, i32, u32, u64);

pub fn floats(v: &[f32]) -> Vec<u8> {
    bytes_of(v)
}

pub fn to_floats(b: &[u8]) -> Vec<f32> {
    values_of(b)
}

/// Releases objects a benchmark created (a null event is skipped).
pub fn release(mems: &[cl_mem], kernels: &[cl_kernel], ev: cl_event) {
    let cl = cl_api();
    // SAFETY: objects this benchmark created and no longer uses.
    unsafe {
        for &m in mems {
            (cl.clReleaseMemObject)(m);
        }
        for &k in kernels {
            (cl.clReleaseKernel)(k);
        }
        if !ev.is_null() {
            (cl.clReleaseEvent)(ev);
        }
    }
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// `d` in s, ms or µs with two significant decimals.
pub fn fmt(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}
