//! ventus-icd: an OpenCL driver whose device is an emulated Ventus (乘影) GPGPU.
//!
//! Layers (nothing points upward; `tests/architecture.rs` checks it):
//!
//! ```text
//! api ─► core ─► device ─► emulator ─┐
//!         └────► compiler ────────────┴─► abi ─► isa        everything may use util
//! ```
//!
//! * `api` — the only `extern "C"` layer: the ICD dispatch table and every OpenCL entry point,
//!   application pointers and the specification's error clauses; no panic crosses it.
//! * `core` — OpenCL objects in safe Rust (platform, device, context, queues with one worker
//!   thread each, events, memory objects, programs, kernels, launches); it reaches the emulator
//!   only through [`device`].
//! * [`device`] — one kernel launch: argument buffer, private memory, metadata and print buffer
//!   as the Ventus ABI lays them out, then the emulator run.
//! * [`compiler`] — OpenCL C / SPIR-V → Ventus ELF (clang and llvm-spirv as subprocesses, our own
//!   IR, passes and back end).
//! * [`emulator`] — the multithreaded Ventus emulator (predecoded programs, SIMT warps, barriers,
//!   faults, traces).
//! * [`abi`] — what compiler and emulator agree on: memory map, metadata, argument packing,
//!   ELF and launch-image formats, crt0.
//! * [`isa`] — the single instruction table and everything derived from it (decoder, encoder,
//!   disassembler, assembler, per-lane semantics).
//! * `cl` — OpenCL types and the handle registry; [`util`] — small shared helpers.
//!
//! `api`, `core` and `cl` are private to the crate (applications use the C entry points); the
//! library exposes the layers below for tools (`ventus-run`), tests and benchmarks.

// The documentation is for the project's developers and is built with `--document-private-items`
// (`cargo doc --no-deps --lib --document-private-items`, warnings as errors in CI), so public
// items may link to the private ones that explain them.
#![allow(rustdoc::private_intra_doc_links)]

/// The driver's build-option parser (the only one), for tools and tests that compile as
/// `clBuildProgram` does.
pub use crate::core::program::{BuildOptions, OptionsFor};

pub mod abi;
pub(crate) mod api;
pub(crate) mod cl;
pub mod compiler;
pub(crate) mod core;
pub mod device;
pub mod emulator;
pub mod isa;
pub mod util;
