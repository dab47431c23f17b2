//! Filetests: the compiler below clang, driven by text files under `tests/filetests/` (see its
//! `README.md`). Each file names what to run (`; run: …`), holds the input — IR in the text form
//! of [`super::ir::parse`], or SPIR-V assembly for the front end — and, after a `; expect:` line,
//! the expected output verbatim. The test [`tests::filetests`] runs every file and reports each
//! mismatch as a diff naming the file; `VENTUS_BLESS=1 cargo test --lib filetests` rewrites the
//! expectations instead.
//!
//! * [`run`]: the run kinds (passes, pipeline, analyses, back-end stages).
//! * [`mir`]: the text form of machine IR; [`diff`]: the line diff.
//! * [`roundtrip`]: `print(parse(print(f))) == print(f)` on IR from real SPIR-V modules.
//! * [`spirv`]: `.spvasm` files (`; run: spirv`): SPIR-V assembly in, the front end's IR out.

mod diff;
mod mir;
mod roundtrip;
mod run;
mod spirv;

use std::path::{Path, PathBuf};

/// The line that starts the expected output.
const EXPECT: &str = "; expect:";

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ir" || x == "spvasm") {
            out.push(p);
        }
    }
}

/// Lines with trailing blanks removed, without trailing empty lines, newline-terminated.
fn normalise(s: &str) -> String {
    let lines: Vec<&str> = s.lines().map(str::trim_end).collect();
    let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |k| k + 1);
    lines[..end].iter().map(|l| format!("{l}\n")).collect()
}

/// Runs one file; `Err` is the failure report.
fn check(path: &Path, bless: bool) -> Result<(), String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let (input, expected) = match text.find(&format!("\n{EXPECT}")) {
        Some(k) => {
            let rest = &text[k + 1 + EXPECT.len()..];
            (&text[..k + 1], Some(rest.strip_prefix('\n').unwrap_or(rest)))
        }
        None => (text.as_str(), None),
    };
    let actual = normalise(&run::run_file(input).map_err(|e| format!("{name}: {e}"))?);
    if bless {
        if expected.map(normalise).as_deref() != Some(actual.as_str()) {
            let new = format!("{}{EXPECT}\n{actual}", input);
            std::fs::write(path, new).map_err(|e| format!("{name}: cannot write: {e}"))?;
        }
        return Ok(());
    }
    let Some(expected) = expected else {
        return Err(format!("{name}: no `{EXPECT}` section (run with VENTUS_BLESS=1 to add one)\n"));
    };
    let expected = normalise(expected);
    if expected == actual {
        Ok(())
    } else {
        let first_line = input.lines().count() + 2;
        Err(format!(
            "{name}: output differs (- expected, + actual; @@ -file line +output line @@):\n{}",
            diff::diff(&expected, &actual, first_line)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetests() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
        let mut all = Vec::new();
        files(&root, &mut all);
        all.sort();
        assert!(all.len() >= 40, "expected at least 40 filetests under {}, found {}", root.display(), all.len());
        let bless = std::env::var_os("VENTUS_BLESS").is_some_and(|v| v != "0");
        let failures: Vec<String> = all.iter().filter_map(|p| check(p, bless).err()).collect();
        assert!(
            failures.is_empty(),
            "{} of {} filetests failed (VENTUS_BLESS=1 rewrites the expectations):\n\n{}",
            failures.len(),
            all.len(),
            failures.join("\n")
        );
    }
}
