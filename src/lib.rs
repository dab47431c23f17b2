//! ventus-icd: an OpenCL driver whose device is an emulated Ventus (乘影) GPGPU.
//!
//! Layers (nothing points upward; `tests/architecture.rs` checks it):
//!
//! ```text
//! api ─► core ─► device ─► emulator ─┐
//!         └────► compiler ────────────┴─► abi ─► isa        everything may use util
//! ```
//!
//! This build contains the foundation: [`isa`] (the single instruction table and everything derived
//! from it), [`abi`] (memory map, ELF and launch-image loaders, metadata) and [`emulator`].

pub mod abi;
pub mod api;
pub mod cl;
pub mod compiler;
pub mod core;
pub mod device;
pub mod emulator;
pub mod isa;
pub mod util;
