//! Layering check: every `crate::<module>` reference in a module's files points down the allowed
//! dependency graph (README "Architecture").

use std::path::Path;

const ALLOWED: &[(&str, &[&str])] = &[
    ("util", &[]),
    ("isa", &["util"]),
    ("abi", &["isa", "util"]),
    ("emulator", &["abi", "isa", "util"]),
    ("compiler", &["abi", "isa", "util"]),
    ("device", &["emulator", "abi", "isa", "util"]),
    ("cl", &["util"]),
    ("core", &["device", "compiler", "emulator", "abi", "isa", "cl", "util"]),
    ("api", &["core", "cl", "util", "abi"]),
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_only_depend_downwards() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for (module, allowed) in ALLOWED {
        let dir = src.join(module);
        if !dir.exists() {
            continue;
        }
        let mut fs = Vec::new();
        files(&dir, &mut fs);
        for f in fs {
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, _) in text.match_indices("crate::") {
                let rest = &text[i + 7..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name == *module || name.is_empty() {
                    continue;
                }
                assert!(
                    allowed.contains(&name.as_str()),
                    "{} uses crate::{name}, which `{module}` must not depend on",
                    f.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "the scan found too few references ({checked})");
}
