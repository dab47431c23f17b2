//! The Ventus back end: instruction selection, register allocation and encoding.

pub mod isel;
pub mod emit;
pub mod mir;
pub mod regalloc;
