//! Device-side runtime libraries written in OpenCL C and compiled by our own front end: the
//! soft double-precision library (`fp64.cl`, the `cl_khr_fp64` implementation — the Ventus
//! hardware has no D extension) and the image library (`images.cl`: reading, sampling and
//! writing images in software, see `spirv/image.rs`; the Ventus hardware has no texture unit).
//!
//! Contract: [`fp64_module`] returns the library as a SPIR-V module whose exported functions
//! (`__vt_f64_*` integer primitives, call level 2; `__vt_d_*` math built-ins, call level 1) the
//! SPIR-V translator calls for every `double` operation (see `spirv/fp64.rs`): out of line from
//! a shallower level (`target::call`), inlined within a level. It is compiled once per process
//! (and cached on disk with the build cache) with the discovered clang/llvm-spirv; a program that
//! uses `double` therefore needs the front-end tools even when it comes from SPIR-V.

use super::toolchain::{FrontOptions, Toolchain};
use super::{cache, CompileError};
use parking_lot::Mutex;
use std::sync::Arc;

/// The soft-double library source.
pub const FP64_SOURCE: &str = concat!(include_str!("fp64.cl"), include_str!("fp64_math.cl"));

/// The image library source: the descriptor's word indices, then `images.cl`.
pub fn images_source() -> String {
    crate::abi::image_desc::library_prelude() + include_str!("images.cl")
}

/// The compiled soft-double library (SPIR-V words), built on first use.
pub fn fp64_module() -> Result<Arc<Vec<u32>>, CompileError> {
    static MEMO: Mutex<Option<Arc<Vec<u32>>>> = Mutex::new(None);
    library_module(&MEMO, "softlib-fp64", "double precision: the soft-double library", FP64_SOURCE)
}

/// The compiled image library (SPIR-V words), built on first use.
pub fn images_module() -> Result<Arc<Vec<u32>>, CompileError> {
    static MEMO: Mutex<Option<Arc<Vec<u32>>>> = Mutex::new(None);
    library_module(&MEMO, "softlib-images", "images: the image library", &images_source())
}

/// A library module compiled from `source` once per process (and cached on disk).
fn library_module(
    memo: &Mutex<Option<Arc<Vec<u32>>>>,
    tag: &str,
    what: &str,
    source: &str,
) -> Result<Arc<Vec<u32>>, CompileError> {
    let mut memo = memo.lock();
    if let Some(m) = memo.as_ref() {
        return Ok(m.clone());
    }
    let unavailable = |why: String| CompileError::Unsupported {
        construct: format!("{what} cannot be built ({why})"),
        location: None,
    };
    let tc = Toolchain::discover().map_err(|e| unavailable(e.to_string()))?;
    let key = cache::key(&[
        tag.as_bytes(),
        source.as_bytes(),
        tc.version.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
        super::BACKEND_REVISION.as_bytes(),
    ]);
    let words = match cache::get("spv", &key) {
        Some(bytes) if bytes.len() % 4 == 0 && !bytes.is_empty() => {
            bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        }
        _ => {
            // No line information: a fault inside the library names no line of it (the
            // library's code inlined into a kernel belongs to the kernel's calling line).
            let opts = FrontOptions { cl_std: Some("CL1.2".into()), no_line_info: true, ..FrontOptions::default() };
            let out = tc
                .compile(source, &opts, None)
                .map_err(|(e, log)| CompileError::Internal(format!("{tag}: {e}\n{log}")))?;
            let bytes: Vec<u8> = out.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
            cache::put("spv", &key, &bytes);
            out.spirv
        }
    };
    let m = Arc::new(words);
    *memo = Some(m.clone());
    Ok(m)
}
