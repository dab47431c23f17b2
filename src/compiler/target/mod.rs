//! The Ventus back end: instruction selection, register allocation and encoding.

pub mod call;
pub mod coalesce;
pub mod dce;
pub mod emit;
pub mod isel;
pub mod mir;
pub mod regalloc;
