//! A look at the files a source `#include`s before clang runs, so that a build never reads a
//! device, a FIFO or a huge file on the application's behalf.
//!
//! clang reads `/dev/zero` as an empty file but blocks for ever opening a FIFO nobody writes
//! (until the tool timeout, two minutes by default), and the build cache would hash whatever it
//! read. [`check`] follows the `#include` lines of the source and of the regular headers they
//! name — quoted names in the including file's directory and then the `-I` directories, angle
//! names in the `-I` directories (system headers are clang's own) — and refuses a name that is
//! not a regular file or is larger than [`MAX_HEADER_BYTES`]. Names built by macros are not
//! followed (clang's own limits and the tool timeout still apply); afterwards the build cache
//! hashes only regular files of bounded size (`build::file_hash`).

use super::toolchain::FrontOptions;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The largest header a build may include.
pub const MAX_HEADER_BYTES: u64 = 64 << 20;
/// Headers larger than this are not read for nested `#include`s (clang still reads them).
const MAX_SCANNED_BYTES: u64 = 1 << 20;
/// Nesting depth and number of headers followed.
const MAX_DEPTH: u32 = 16;
const MAX_FILES: usize = 512;

/// The `-I` directories of `opts`, in order.
fn include_dirs(opts: &FrontOptions) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut it = opts.clang_args.iter();
    while let Some(a) = it.next() {
        if a == "-I" {
            if let Some(d) = it.next() {
                dirs.push(PathBuf::from(d));
            }
        } else if let Some(d) = a.strip_prefix("-I") {
            dirs.push(PathBuf::from(d));
        }
    }
    dirs
}

/// The name of an `#include` line: (name, quoted).
fn included(line: &str) -> Option<(&str, bool)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim_start();
    let (close, quoted) = match rest.chars().next()? {
        '"' => ('"', true),
        '<' => ('>', false),
        _ => return None,
    };
    let body = &rest[1..];
    body.find(close).map(|end| (&body[..end], quoted))
}

struct Scan {
    dirs: Vec<PathBuf>,
    seen: HashSet<PathBuf>,
}

impl Scan {
    fn text(&mut self, text: &str, here: &Path, depth: u32) -> Result<(), String> {
        for line in text.lines() {
            let Some((name, quoted)) = included(line) else { continue };
            let mut candidates = Vec::new();
            if Path::new(name).is_absolute() {
                candidates.push(PathBuf::from(name));
            } else {
                if quoted {
                    candidates.push(here.join(name));
                }
                candidates.extend(self.dirs.iter().map(|d| d.join(name)));
            }
            // The first that exists is the one clang opens (a missing one is clang's to report).
            let Some((path, meta)) = candidates.into_iter().find_map(|p| std::fs::metadata(&p).ok().map(|m| (p, m)))
            else {
                continue;
            };
            if !meta.is_file() {
                return Err(format!(
                    "#include \"{name}\" names {}, which is not a regular file (a device, FIFO or directory); \
                     the driver does not read it",
                    path.display()
                ));
            }
            if meta.len() > MAX_HEADER_BYTES {
                return Err(format!(
                    "#include \"{name}\" names {} ({} MiB), larger than the {} MiB a header may have",
                    path.display(),
                    meta.len() >> 20,
                    MAX_HEADER_BYTES >> 20
                ));
            }
            if depth < MAX_DEPTH && meta.len() <= MAX_SCANNED_BYTES && self.seen.len() < MAX_FILES {
                let key = path.canonicalize().unwrap_or_else(|_| path.clone());
                if self.seen.insert(key) {
                    if let Ok(bytes) = std::fs::read(&path) {
                        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                        self.text(&String::from_utf8_lossy(&bytes), &dir, depth + 1)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Checks what `source` includes (see the module docs); `headers` is the directory of the
/// embedded headers of `clCompileProgram`, where clang then runs.
pub fn check(source: &str, opts: &FrontOptions, headers: Option<&Path>) -> Result<(), String> {
    let here = match headers {
        Some(h) => h.to_path_buf(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    let mut dirs = headers.map(|h| vec![h.to_path_buf()]).unwrap_or_default();
    dirs.extend(include_dirs(opts).into_iter().map(|d| if d.is_absolute() { d } else { here.join(d) }));
    Scan { dirs, seen: HashSet::new() }.text(source, &here, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_lines() {
        assert_eq!(included("#include \"a.h\""), Some(("a.h", true)));
        assert_eq!(included("  #  include <b/c.h> // x"), Some(("b/c.h", false)));
        assert_eq!(included("#define include \"x\""), None);
        assert_eq!(included("#include MACRO"), None);
    }

    #[test]
    fn devices_fifos_and_nested_ones_are_refused() {
        let opts = FrontOptions::default();
        let e = check("#include \"/dev/zero\"\n", &opts, None).unwrap_err();
        assert!(e.contains("/dev/zero, which is not a regular file"), "{e}");
        let dir = std::env::temp_dir().join(format!("ventus-includes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ok.h"), "#define X 1\n").unwrap();
        std::fs::write(dir.join("outer.h"), "#include \"inner.h\"\n").unwrap();
        std::fs::write(dir.join("inner.h"), "#include </dev/null>\n").unwrap();
        let opts = FrontOptions { clang_args: vec!["-I".into(), dir.display().to_string()], ..FrontOptions::default() };
        assert_eq!(check("#include <ok.h>\n#include \"missing.h\"\n", &opts, None), Ok(()));
        let e = check("#include <outer.h>\n", &opts, None).unwrap_err();
        assert!(e.contains("/dev/null"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
