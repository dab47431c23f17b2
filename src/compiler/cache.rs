//! On-disk build cache: compiled ELFs keyed by a hash of everything that determines them
//! (source or SPIR-V, options, compiler tool versions, the code generator's revision —
//! [`super::BACKEND_REVISION`]), so an unchanged rebuild skips clang, llvm-spirv and our back
//! end. A source build's entry also records every file the preprocessor read with a hash of its
//! contents (`build::build_source`): a lookup whose files changed since is a miss.
//!
//! Location: `VENTUS_CACHE_DIR`, else `$XDG_CACHE_HOME/ventus-icd`, else `~/.cache/ventus-icd`.
//! `VENTUS_CACHE=0` disables it. Entries are written atomically (temp file + rename); a corrupt
//! or unreadable entry is treated as a miss.

use std::path::PathBuf;

/// A 128-bit key of `parts` as 32 hex digits (`digest::key`: SHA-256, the parts length-prefixed).
pub fn key(parts: &[&[u8]]) -> String {
    super::digest::key(parts.iter().copied())
}

fn dir() -> Option<PathBuf> {
    super::env::cache_dir()
}

/// A cached entry (`kind` separates ELFs from other artefacts).
pub fn get(kind: &str, key: &str) -> Option<Vec<u8>> {
    std::fs::read(dir()?.join(format!("{key}.{kind}"))).ok()
}

/// Stores an entry; failures are ignored (the cache is an optimisation).
pub fn put(kind: &str, key: &str, data: &[u8]) {
    let Some(d) = dir() else { return };
    if let Err(e) = std::fs::create_dir_all(&d) {
        unwritable(&d, &e);
        return;
    }
    let tmp = d.join(format!("{key}.{kind}.{}.tmp", std::process::id()));
    match std::fs::write(&tmp, data) {
        Ok(()) => {
            let _ = std::fs::rename(&tmp, d.join(format!("{key}.{kind}")));
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            unwritable(&d, &e);
        }
    }
}

/// Warns, once per process, that the cache directory cannot be written (builds still work,
/// uncached).
fn unwritable(dir: &std::path::Path, e: &std::io::Error) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        log::warn!(
            "the build cache is not written: cannot write {} ({e}); set VENTUS_CACHE_DIR to a writable \
             directory or VENTUS_CACHE=0",
            dir.display()
        )
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_differ_by_part_boundaries() {
        assert_ne!(super::key(&[b"ab", b"c"]), super::key(&[b"a", b"bc"]));
        assert_eq!(super::key(&[b"x"]), super::key(&[b"x"]));
        assert_eq!(super::key(&[b"x"]).len(), 32);
    }
}
