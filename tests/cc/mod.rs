//! Harness for compiler tests: OpenCL C source → our compiler → device launch on the emulator,
//! returning the final contents of every buffer argument. Each run is repeated with 1 and 2
//! emulator threads and the results must agree.
#![allow(dead_code)]

use ventus_icd::abi::launch::{pack_args, KernelArg, NdRange};
use ventus_icd::compiler::{compile_spirv, toolchain};
use ventus_icd::device::{self, Executable, Launch, LaunchOptions, LoadOptions, Memory, Placement};

/// A kernel argument.
#[derive(Clone, Debug)]
pub enum A {
    /// A buffer with initial bytes.
    Buf(Vec<u8>),
    /// A by-value argument.
    Val(Vec<u8>),
    /// A `__local` buffer of this many bytes.
    Local(u32),
}

/// A seeded xorshift64 generator (deterministic test operands).
pub fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

pub fn f32s(v: &[f32]) -> A {
    A::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn i32s(v: &[i32]) -> A {
    A::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn u32s(v: &[u32]) -> A {
    A::Buf(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn zeros(n: usize) -> A {
    A::Buf(vec![0; n])
}
pub fn val_i32(x: i32) -> A {
    A::Val(x.to_le_bytes().to_vec())
}
pub fn val_u32(x: u32) -> A {
    A::Val(x.to_le_bytes().to_vec())
}
pub fn val_f32(x: f32) -> A {
    A::Val(x.to_le_bytes().to_vec())
}
pub fn as_f32(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn as_i32(b: &[u8]) -> Vec<i32> {
    b.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn as_u32(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The front end's options for an option string (the driver's parser).
pub fn front_options(options: &str) -> toolchain::FrontOptions {
    use ventus_icd::{BuildOptions, OptionsFor};
    BuildOptions::parse(options, OptionsFor::Build).unwrap_or_else(|e| panic!("{options:?}: {e}")).front
}

/// Runs the front end (clang + llvm-spirv) on `src` with `options`.
pub fn front(src: &str, options: &str) -> toolchain::FrontOutput {
    let tc = toolchain::Toolchain::discover()
        .expect("clang-15 and llvm-spirv-15 are required (run the README's test command, which installs them)");
    tc.compile(src, &front_options(options), None).unwrap_or_else(|(e, log)| panic!("front end failed: {e}\n{log}"))
}

/// Compiles `src` with `options`.
///
/// Every compiled program is also linked from its assembly text: the linker assembles the
/// compiler's typed assembly directly, and the two must give the same image.
pub fn compile(src: &str, options: &str) -> ventus_icd::compiler::Compiled {
    let c = compile_spirv(&front(src, options).spirv).unwrap_or_else(|e| panic!("compile failed: {e}"));
    let typed = ventus_icd::abi::crt0::link_listing(&c.listing, &c.kernels, &[]);
    let text = ventus_icd::abi::crt0::link_image_with_rodata(&c.asm(), &c.kernels, &[]);
    assert!(typed == text, "the typed assembly links unlike its text:\n{typed:?}\n{text:?}");
    c
}

/// Runs kernel `name` over `global` work-items in groups of `local`; returns every buffer.
pub fn run(src: &str, name: &str, global: &[u32], local: &[u32], args: &[A]) -> Vec<Vec<u8>> {
    let c = compile(src, "");
    let a = run_compiled(&c, name, global, local, args, 1).bufs;
    let b = run_compiled(&c, name, global, local, args, 2).bufs;
    assert_eq!(a, b, "results differ between 1 and 2 emulator threads");
    a
}

/// How [`run_compiled`] runs: emulator threads, and whether the soft-double library's functions
/// run natively (as the driver does by default, `VENTUS_NATIVE_FP64`). A thread count alone: not
/// natively.
pub struct How {
    pub threads: usize,
    pub native: bool,
}

impl From<usize> for How {
    fn from(threads: usize) -> How {
        How { threads, native: false }
    }
}

/// What [`run_compiled`] returns: every buffer argument's final bytes, and the warp
/// instructions the launch ran.
pub struct Ran {
    pub bufs: Vec<Vec<u8>>,
    pub instructions: u64,
}

pub fn run_compiled(
    c: &ventus_icd::compiler::Compiled,
    name: &str,
    global: &[u32],
    local: &[u32],
    args: &[A],
    how: impl Into<How>,
) -> Ran {
    let How { threads, native } = how.into();
    // The device layer's one load-and-launch path, as the driver uses it.
    let exec = Executable::load_with(&c.elf, LoadOptions { native_fp64: native, legacy_printf: false })
        .unwrap_or_else(|e| panic!("our ELF does not load: {e}"));
    let kernel = exec.kernel_def(name).unwrap_or_else(|| panic!("no kernel {name}"));
    let mem = Memory::new();
    let mut kargs = Vec::new();
    let mut bufs = Vec::new();
    for a in args {
        kargs.push(match a {
            A::Buf(data) => {
                let r = mem.alloc(data.len().max(4) as u32, Placement::Plain).unwrap();
                r.write(r.base(), data);
                bufs.push((r.base(), data.len()));
                KernelArg::Pointer(r.base())
            }
            A::Val(v) => KernelArg::Value(v.clone()),
            A::Local(n) => KernelArg::Local(*n),
        });
    }
    let packed = pack_args(&kargs).unwrap_or_else(|e| panic!("{name}: arguments: {e}"));
    // Programs with program-scope variables: a fresh globals block, the hidden last argument.
    let globals = exec.stage_globals(&mem).unwrap();
    let mut range = NdRange { work_dim: global.len() as u32, global: [1; 3], local: [1; 3], offset: [0; 3] };
    range.local[..local.len()].copy_from_slice(local);
    range.global[..global.len()].copy_from_slice(global);
    let l = Launch {
        exec: &exec,
        kernel,
        range,
        args: &packed,
        globals,
        threads_per_warp: 32,
        mask_lanes: true,
        printer: None,
        grouping: Default::default(),
    };
    // Every compiled kernel runs under the memory checker: generated code must stay inside the
    // exact extents (buffers, __local data, private frames).
    let opts = LaunchOptions { threads, watchdog: 50_000_000, memcheck: true, ..LaunchOptions::default() };
    let stats = device::run(&mem, &l, &opts).unwrap_or_else(|e| panic!("{name}: launch failed: {e}\n{}", c.listing));
    let out = bufs
        .iter()
        .map(|&(base, n)| {
            let mut b = vec![0u8; n];
            mem.read(base, &mut b).unwrap();
            b
        })
        .collect();
    Ran { bufs: out, instructions: stats.instructions }
}
