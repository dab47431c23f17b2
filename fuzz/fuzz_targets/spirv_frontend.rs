//! Fuzzes the SPIR-V front end (and everything behind it) through the public entry point
//! `ventus_icd::compiler::compile_spirv`. Contract: malformed SPIR-V returns an error; any panic,
//! hang or abort is a bug.
//!
//! The input is read as little-endian 32-bit words (a trailing partial word is dropped), which is
//! exactly how a `.spv` file from llvm-spirv is laid out, so the seed corpus is plain modules.
//! Inputs that do not start with the SPIR-V magic number are fed a second time behind a valid
//! 5-word header, so that mutations which clobber or never had a header still reach the
//! instruction parser and the lowering.
#![no_main]

use libfuzzer_sys::fuzz_target;

const MAGIC: u32 = 0x0723_0203;
/// magic, version 1.0, generator (Khronos LLVM/SPIR-V translator), id bound, schema.
const HEADER: [u32; 5] = [MAGIC, 0x0001_0000, 0x0006_000e, 0x0000_1000, 0];

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let _ = ventus_icd::compiler::compile_spirv(&words);
    if words.first() != Some(&MAGIC) {
        let mut with_header = HEADER.to_vec();
        with_header.extend_from_slice(&words);
        let _ = ventus_icd::compiler::compile_spirv(&with_header);
    }
});
