//! The code generator's revision: a digest of every source file that can change the code a build
//! produces, computed by `build.rs` at compile time and part of every build-cache key
//! ([`super::BACKEND_REVISION`]), so a cached ELF can never outlive the compiler that made it and
//! nobody has to remember to bump a number.
//!
//! Contract: [`ROOTS`] lists what determines generated code — the compiler itself (front end,
//! passes, back end, the soft-double library's OpenCL C), `abi` (crt0, the linker, the ELF
//! writer, kernel metadata), `isa` (the encoder and the assembler the compiler's text goes
//! through) and `Cargo.lock` (the SPIR-V reader's version). A file's path and contents both count;
//! anything else in the tree (the runtime, the emulator) does not, so changing it keeps the cache.
//!
//! This file is compiled twice: as `compiler::digest` in the library (for tests) and by `build.rs`
//! through `#[path]`, so it uses nothing but `std` and `sha2`.

use sha2::{Digest, Sha256};
use std::path::Path;

/// The files and directories (searched recursively) whose contents determine generated code,
/// relative to the crate's root.
pub const ROOTS: &[&str] = &["src/compiler", "src/abi", "src/isa", "Cargo.lock"];

/// Every file under [`ROOTS`] as (path relative to `root` with `/` separators, contents), sorted
/// by path.
pub fn source_files(root: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        if dir.is_file() {
            let rel = dir.strip_prefix(root).unwrap_or(dir);
            let name = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push((name, std::fs::read(dir)?));
            return Ok(());
        }
        for entry in std::fs::read_dir(dir)? {
            walk(root, &entry?.path(), out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    for r in ROOTS {
        walk(root, &root.join(r), &mut out)?;
    }
    out.sort();
    Ok(out)
}

/// The digest of `files` (as [`source_files`] lists them): [`key`] over each path and contents.
pub fn digest(files: &[(String, Vec<u8>)]) -> String {
    key(files.iter().flat_map(|(path, bytes)| [path.as_bytes(), bytes.as_slice()]))
}

/// SHA-256 over the length-prefixed `parts` (so the boundaries count), its first 16 bytes as 32
/// hex digits: the form of every build-cache key (`compiler::cache::key`).
pub fn key<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}
