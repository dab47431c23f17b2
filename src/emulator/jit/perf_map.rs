//! `VENTUS_PERF_MAP=1` (a developer aid): the translator appends every function it compiles to
//! `/tmp/perf-<pid>.map`, the file `perf report` reads for code generated at run time — one line
//! `START SIZE NAME` per function, hexadecimal — so a profile of translated code names the
//! kernel code each sample ran (`ventus 0x80000124`: the function compiled from the text
//! entry at that address; `ventus 0x80000124 prefixed`: the head compiled from the variant a
//! prefix before that entry selects) instead of bare addresses. A function's size runs to the
//! next function's start (the last one's to the end of the buffer, the shared double-precision
//! routines included). Beside it, each translation's code goes to
//! `/tmp/ventus-jit-<pid>-<base>.bin`, to read with
//! `objdump -D -b binary -mi386:x86-64 --adjust-vma=0x<base>` against a profile's addresses.
//! Off by default; results never change; a file that cannot be written is logged once per
//! translation and ignored.

use std::io::Write;

/// The map lines of a translation at `base` (`len` bytes): `functions` holds, per compiled
/// function, its offset in the buffer and its name.
pub(super) fn lines(base: usize, len: usize, mut functions: Vec<(usize, String)>) -> Vec<String> {
    functions.sort_by_key(|f| f.0);
    functions.dedup_by_key(|f| f.0);
    let ends: Vec<usize> = functions.iter().skip(1).map(|f| f.0).chain([len]).collect();
    functions
        .iter()
        .zip(ends)
        .filter(|((start, _), end)| end > start)
        .map(|((start, name), end)| format!("{:x} {:x} {name}", base + start, end - start))
        .collect()
}

/// Appends `lines` to this process's map.
pub(super) fn append(lines: &[String]) {
    let path = format!("/tmp/perf-{}.map", std::process::id());
    let written = std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        f.write_all(text.as_bytes())
    });
    if let Err(e) = written {
        log::warn!("VENTUS_PERF_MAP: cannot append to {path}: {e}");
    }
}

/// Writes a translation's code (`code`, loaded at `base`) beside the map.
pub(super) fn dump(base: usize, code: &[u8]) {
    let path = format!("/tmp/ventus-jit-{}-{base:x}.bin", std::process::id());
    if let Err(e) = std::fs::write(&path, code) {
        log::warn!("VENTUS_PERF_MAP: cannot write {path}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_run_to_the_next_start_in_address_order() {
        let f = vec![(0x40, "ventus 0x80000010".to_string()), (0, "ventus 0x80000000".into()), (0x90, "b".into())];
        let got = lines(0x1000, 0x100, f);
        assert_eq!(got, ["1000 40 ventus 0x80000000", "1040 50 ventus 0x80000010", "1090 70 b"]);
        assert!(lines(0x1000, 0x10, vec![(0x10, "empty".into())]).is_empty(), "no zero-sized functions");
    }
}
