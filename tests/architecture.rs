//! Layering checks (docs/architecture.md): every `crate::<module>` reference in a module's
//! files — plain paths and each member of grouped imports (`use crate::{a::x, b}`) — points
//! down the allowed dependency graph, and only the `api` layer declares `extern "C"` functions.

use std::path::Path;

const ALLOWED: &[(&str, &[&str])] = &[
    ("util", &[]),
    ("isa", &["util"]),
    ("abi", &["isa", "util"]),
    ("emulator", &["abi", "isa", "util"]),
    ("compiler", &["abi", "isa", "util"]),
    ("device", &["emulator", "abi", "isa", "util"]),
    ("cl", &["util"]),
    // `core` reaches the machine only through the device seam (`device`'s own types; see
    // `core_names_no_emulator_type`).
    ("core", &["device", "compiler", "abi", "isa", "cl", "util"]),
    // `api` knows OpenCL objects, not the device's binary contracts.
    ("api", &["core", "cl", "util"]),
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

/// The top-level modules a file names through `crate::`: `crate::a::…` gives `a`, a grouped
/// import `crate::{a::x, b::{y, z}, c}` gives `a`, `b` and `c` (the first segment of each
/// top-level member).
fn referenced_modules(text: &str) -> Vec<String> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            // Members at depth 1, up to the matching brace.
            let (mut depth, mut start) = (1, 0);
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => {
                        out.push(ident(group[start..].trim_start()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 1 => {
                        out.push(ident(group[start..].trim_start()));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

#[test]
fn grouped_imports_are_parsed() {
    let text = "use crate::{abi::x, emulator::{a, b}, util};\nlet y = crate::isa::decode(w);";
    assert_eq!(referenced_modules(text), ["abi", "emulator", "util", "isa"]);
}

/// Whether a line of code declares a C-ABI function (`extern "C" fn name(`) or a foreign block
/// (`extern "C" {`); a function-pointer type (`extern "C" fn(`) is not a declaration.
fn declares_extern_c(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("extern \"C\"").any(|(i, m)| {
        let rest = code[i + m.len()..].trim_start();
        rest.starts_with('{')
            || rest.strip_prefix("fn ").is_some_and(|r| r.starts_with(|c: char| c.is_alphabetic() || c == '_'))
    })
}

#[test]
fn extern_c_declarations_are_recognised() {
    assert!(declares_extern_c("pub extern \"C\" fn clFinish(q: cl_command_queue) -> cl_int {"));
    assert!(declares_extern_c("extern \"C\" fn print_at_exit() {"));
    assert!(declares_extern_c("unsafe extern \"C\" fn record(msg: *const c_char) {"));
    assert!(declares_extern_c("extern \"C\" {"));
    assert!(!declares_extern_c(
        "    pfn: Option<unsafe extern \"C\" fn(program: cl_program, user_data: *mut c_void)>,"
    ));
    assert!(!declares_extern_c("// an `extern \"C\" fn foo()` in a comment"));
}

/// Only `api` declares functions with the C ABI (the layer where every application pointer is
/// checked and no panic may cross); type positions such as callback pointers are allowed.
#[test]
fn only_api_declares_extern_c_functions() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut fs = Vec::new();
    files(&src, &mut fs);
    for f in fs {
        if f.starts_with(src.join("api")) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            assert!(
                !declares_extern_c(line),
                "{}:{}: `extern \"C\"` outside the api layer: {line}",
                f.display(),
                n + 1
            );
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
            for name in referenced_modules(&text) {
                if name == *module {
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

/// The OpenCL layers are reached only through the C ABI: `api` (raw application pointers),
/// `core` and `cl` are private to the crate, so nothing outside can call them from safe Rust and
/// the dead-code lint sees all of their code.
#[test]
fn opencl_layers_are_crate_private() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    for m in ["api", "core", "cl"] {
        let private = format!("pub(crate) mod {m};");
        assert!(lib.lines().any(|l| l.trim() == private), "src/lib.rs must declare `{private}`");
        assert!(!lib.lines().any(|l| l.trim() == format!("pub mod {m};")), "`{m}` is public");
    }
}

/// Configuration is read in one place per layer: the emulator's `config.rs`, the compiler's
/// `env.rs`, the statistics switch, and the shared parser in `util/env.rs` (plus the filetest
/// runner's bless switch, test code).
#[test]
fn the_environment_is_read_in_one_place_per_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed = ["util/env.rs", "emulator/config.rs", "compiler/env.rs", "core/stats.rs", "compiler/filetest/mod.rs"];
    let mut all = Vec::new();
    files(&root, &mut all);
    for f in all {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&f).unwrap();
        let reads = text.contains("env::var(") || text.contains("env::var_os(") || text.contains("var::<");
        assert!(!reads || allowed.contains(&rel.as_str()), "{rel} reads the environment itself");
    }
}

/// `src/api/icd_table.rs` is what `tools/gen_dispatch.py` generates from opencl-sys's dispatch
/// struct and the entry points `src/api` defines (the script finds opencl-sys in the cargo
/// registry, where this build's dependencies are).
#[test]
fn the_dispatch_table_is_generated() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg("tools/gen_dispatch.py")
        .arg("--check")
        .current_dir(root)
        .output()
        .expect("python3 (installed by the README's test command) runs");
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

/// The code generator's revision in every cache key is the digest of the sources that determine
/// generated code, as they are in this tree (so no hand-bumped number can be forgotten); a
/// one-byte change to a back-end file changes it, a change outside the digest's roots does not
/// take part.
#[test]
fn the_cache_key_revision_is_derived_from_the_compiler_sources() {
    use ventus_icd::compiler::digest;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = digest::source_files(root).expect("the sources");
    let built = ventus_icd::compiler::BACKEND_REVISION;
    assert_eq!(built, format!("ventus-cc-{}", digest::digest(&files)), "build.rs computed it from another tree");
    for r in digest::ROOTS {
        assert!(files.iter().any(|(p, _)| p.starts_with(r)), "nothing of {r} is in the digest");
    }
    assert!(!files.iter().any(|(p, _)| p.starts_with("src/core/") || p.starts_with("src/emulator/")));
    for changed in ["src/compiler/target/emit.rs", "src/abi/crt0.rs", "src/compiler/softlib/fp64.cl"] {
        let mut edited = files.clone();
        let (_, bytes) = edited.iter_mut().find(|(p, _)| p == changed).unwrap_or_else(|| panic!("{changed} not found"));
        bytes.push(b'\n');
        assert_ne!(digest::digest(&edited), digest::digest(&files), "{changed}");
    }
    // A file moved keeps its bytes but changes the key too.
    let mut renamed = files.clone();
    renamed[0].0.push('x');
    assert_ne!(digest::digest(&renamed), digest::digest(&files));
}

/// The emulator's types (what `emulator` exports that a launch or a memory block is made of).
const EMULATOR_TYPES: &[&str] = &[
    "DeviceMemory",
    "Region",
    "Program",
    "RunOptions",
    "RunStats",
    "PrintHook",
    "Fault",
    "TrapMode",
    "GroupTraces",
    "MapError",
    "LaunchParams",
    "HostCall",
    "KernelLaunch",
    "DeviceError",
];

/// The identifiers of a line of code: string literals and a trailing `//` comment left out.
fn code_words(line: &str) -> Vec<String> {
    code_of(line)
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// Whether `line` (code) names an emulator type or module as a whole word.
fn names_emulator(line: &str) -> Option<&'static str> {
    let owned = code_words(line);
    let words: Vec<&str> = owned.iter().map(String::as_str).collect();
    if words.contains(&"emulator") || words.contains(&"emulated") {
        return Some("emulator");
    }
    EMULATOR_TYPES.iter().copied().find(|t| words.contains(t))
}

/// The device seam is a seam: `core` names no emulator type — neither through `crate::emulator`
/// (the layering rule) nor through the device layer's backend module `device::emulated` — and
/// the seam's public items (everything in `src/device` but the backend module that is `pub` to
/// the crate or beyond) name none either, so what `core` can reach is the device layer's own.
#[test]
fn core_names_no_emulator_type() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let code = |line: &str| !line.trim_start().starts_with("//");
    let mut core = Vec::new();
    files(&src.join("core"), &mut core);
    let mut lines = 0;
    for f in &core {
        for (n, line) in std::fs::read_to_string(f).unwrap().lines().enumerate().filter(|(_, l)| code(l)) {
            lines += 1;
            let words = code_words(line);
            assert!(
                !words.iter().any(|w| w == "emulator" || w == "emulated"),
                "{}:{}: core names the emulator: {line}",
                f.display(),
                n + 1
            );
        }
    }
    assert!(lines > 1000, "the scan read too little of core ({lines} lines)");
    let mut seam = Vec::new();
    files(&src.join("device"), &mut seam);
    let mut public = 0;
    for f in seam.iter().filter(|f| !f.ends_with("emulated.rs")) {
        for (n, line) in std::fs::read_to_string(f).unwrap().lines().enumerate().filter(|(_, l)| code(l)) {
            let t = line.trim_start();
            // The backend module itself is public (ventus-run and the emulator's tests drive it).
            if (t.starts_with("pub ") || t.starts_with("pub(crate)")) && t != "pub mod emulated;" {
                public += 1;
                if let Some(name) = names_emulator(t) {
                    panic!("{}:{}: the device seam exposes `{name}`: {line}", f.display(), n + 1);
                }
            }
        }
    }
    assert!(public > 30, "the scan found too few public items in the device layer ({public})");
}

#[test]
fn seam_declarations_are_recognised() {
    assert_eq!(names_emulator("pub use crate::emulator::Region;"), Some("emulator"));
    assert_eq!(names_emulator("pub fn code(&self) -> &Program {"), Some("Program"));
    assert_eq!(names_emulator("pub fn run(mem: &Memory) -> LaunchStats {"), None);
    assert_eq!(names_emulator("pub struct ProgramError;"), None, "whole words only");
    assert_eq!(names_emulator("pub const V: &str = \"emulated \\\" Region\"; // emulator"), None, "code only");
}

/// The value of a `const NAME: T = VALUE;` line when VALUE is a literal (a number, possibly
/// shifted, or a string or byte string), as `(NAME, VALUE)`.
fn literal_const(line: &str) -> Option<(String, String)> {
    let t = line.trim_start();
    let rest = t.strip_prefix("pub ").or_else(|| t.strip_prefix("pub(crate) ")).unwrap_or(t);
    let rest = rest.strip_prefix("const ")?;
    let (name, rest) = rest.split_once(':')?;
    let (_, value) = rest.split_once('=')?;
    let value = value.trim().strip_suffix(';')?.trim();
    let number = |v: &str| {
        let v = v.trim();
        !v.is_empty()
            && v.chars().next().is_some_and(|c| c.is_ascii_digit())
            && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let literal = value.starts_with('"')
        || value.starts_with("b\"")
        || number(value)
        || value.split_once("<<").is_some_and(|(a, b)| number(a) && number(b));
    literal.then(|| (name.trim().to_string(), value.to_string()))
}

/// Each contract constant has one definition: a public constant of the binary contracts
/// (`abi`, `isa`) with a literal value is not defined again — same name, same literal — anywhere
/// else in the crate (a second copy would drift; the other side must name the owner's constant).
/// Constants that share only a name (each format's `SECTION`) are different contracts.
#[test]
fn each_contract_constant_has_one_definition() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut owners: std::collections::HashMap<(String, String), std::path::PathBuf> = Default::default();
    for layer in ["abi", "isa"] {
        let mut fs = Vec::new();
        files(&src.join(layer), &mut fs);
        for f in fs {
            for line in std::fs::read_to_string(&f).unwrap().lines() {
                if line.trim_start().starts_with("pub const ") {
                    if let Some(c) = literal_const(line) {
                        owners.insert(c, f.clone());
                    }
                }
            }
        }
    }
    assert!(owners.len() > 40, "too few contract constants found ({})", owners.len());
    let mut all = Vec::new();
    files(&src, &mut all);
    for f in all {
        for (n, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            if let Some(c) = literal_const(line) {
                if let Some(owner) = owners.get(&c).filter(|o| **o != f) {
                    panic!(
                        "{}:{}: `{} = {}` repeats the contract constant of {}",
                        f.display(),
                        n + 1,
                        c.0,
                        c.1,
                        owner.display()
                    );
                }
            }
        }
    }
}

#[test]
fn literal_constants_are_recognised() {
    assert_eq!(literal_const("pub const A: u32 = 0x8000_0000;"), Some(("A".into(), "0x8000_0000".into())));
    assert_eq!(literal_const("    const B: &str = \".Lsub_\";").map(|c| c.0), Some("B".into()));
    assert_eq!(literal_const("pub const C: u32 = 1 << 20;").map(|c| c.0), Some("C".into()));
    assert_eq!(literal_const("pub const D: &str = crate::abi::D;"), None, "a path names the owner");
    assert_eq!(literal_const("pub const E: usize = size_of::<X>();"), None);
}

/// The emulator's modules by layer, lowest first (the picture in `src/emulator/mod.rs`'s
/// documentation): a module names only modules of lower layers. A directory module (`exec/`,
/// `jit/`) is one module; the root `mod.rs` is the facade above every layer (it declares and
/// re-exports) and is not checked, and a name it re-exports counts as the module it comes from.
const EMULATOR_LAYERS: &[(&str, &[&str])] = &[
    ("foundation", &["config", "simd", "affinity", "bulk", "native_math", "commit_log", "regset"]),
    ("memory model", &["memory", "trace"]),
    ("decoded program, faults", &["program", "fault"]),
    ("program analysis, machine state", &["reach", "intervals", "warp"]),
    ("host services", &["hostcall"]),
    ("executor", &["exec"]),
    ("translator", &["jit"]),
    ("turn loop", &["turn"]),
    ("launch description", &["launch"]),
    ("work-group runner", &["workgroup"]),
    ("entry points", &["scheduler", "images"]),
];

/// A line's code: string literals blanked, a trailing `//` comment (doc comments too) left out.
fn code_of(line: &str) -> String {
    let mut code = String::new();
    let mut in_string = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => {
                in_string = !in_string;
                code.push('"');
            }
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            _ if !in_string => code.push(c),
            _ => {}
        }
    }
    code
}

/// The emulator-level names a file's code reaches, with their lines: `crate::emulator::x`, and
/// `super::x` from a file `depth` modules below `emulator` (1: `turn.rs`, `exec/mod.rs`; 2:
/// `exec/csr.rs`, with `super::super::x`); a grouped import gives each top-level member. Paths
/// that stay inside the file's own module (`super::x` from `exec/csr.rs`) give nothing. The
/// scan stops at the file's `#[cfg(test)]` module (test modules close every file).
fn emulator_names(text: &str, depth: usize) -> Vec<(usize, String)> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut code = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") || t.starts_with("#[cfg(all(test") {
            break;
        }
        code.push_str(&code_of(line));
        code.push('\n');
    }
    let up = "super::".repeat(depth);
    let mut out = Vec::new();
    let mut starts: Vec<usize> = code.match_indices("crate::emulator::").map(|(i, m)| i + m.len()).collect();
    for (i, _) in code.match_indices(&up) {
        // Exactly `depth` supers: not the tail of a longer chain, not followed by another.
        let before = &code[..i];
        if before.ends_with("super::") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if !code[i + up.len()..].starts_with("super::") {
            starts.push(i + up.len());
        }
    }
    for s in starts {
        let line = code[..s].matches('\n').count() + 1;
        let rest = &code[s..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let (mut depth, mut start) = (1, 0);
                for (k, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' | ',' if depth == 1 => {
                            out.push((line, ident(group[start..].trim_start())));
                            start = k + 1;
                            if c == '}' {
                                break;
                            }
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
            }
            None => out.push((line, ident(rest))),
        }
    }
    out.retain(|(_, n)| !n.is_empty() && n != "self");
    out
}

/// What the root re-exports, by name: `pub use memory::{DeviceMemory, LdsMap};` gives
/// `DeviceMemory → memory`, `LdsMap → memory` (`pub use memory::memcheck;`: `memcheck → memory`).
fn root_reexports(root: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in root.lines().map(code_of) {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let rest = rest.trim_end_matches(';');
        let Some((module, names)) = rest.split_once("::") else { continue };
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for n in names.split(',') {
            let n = n.trim();
            let n = n.rsplit(" as ").next().unwrap_or(n);
            out.push((n.rsplit("::").next().unwrap_or(n).trim().to_string(), module.trim().to_string()));
        }
    }
    out
}

#[test]
fn emulator_names_are_found() {
    let text = "use super::super::warp::{Warp, MAX_LANES};\nuse super::{set_x, Ctx};\n\
                let j = crate::emulator::jit::Jit::new(p); // super::turn in a comment\n\
                use super::super::{fault::Trap, memory::{MemView, Region}};\n\
                #[cfg(test)]\nmod tests { use crate::emulator::images; }";
    let names: Vec<String> = emulator_names(text, 2).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["jit", "warp", "fault", "memory"]);
    let names: Vec<String> =
        emulator_names("use super::{LaunchParams, RunOptions};", 1).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["LaunchParams", "RunOptions"]);
    assert_eq!(
        root_reexports("pub use fault::{Fault, FaultKind};\npub use memory::memcheck;"),
        [("Fault".into(), "fault".into()), ("FaultKind".into(), "fault".into()), ("memcheck".into(), "memory".into())]
    );
}

/// No emulator module names a module of its own or a higher layer (the layers of
/// [`EMULATOR_LAYERS`]; the root's own items, if any are left, belong to `launch`).
#[test]
fn emulator_modules_only_depend_downwards() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/emulator");
    let layer_of = |m: &str| EMULATOR_LAYERS.iter().position(|(_, ms)| ms.contains(&m));
    let root = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
    let reexports = root_reexports(&root);
    let mut fs = Vec::new();
    files(&dir, &mut fs);
    let (mut checked, mut errors) = (0, Vec::new());
    for f in fs {
        let rel: Vec<String> = f
            .strip_prefix(&dir)
            .unwrap()
            .iter()
            .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if rel == ["mod"] {
            continue; // the facade
        }
        let module = rel[0].clone();
        let depth = if rel.len() > 1 && rel[rel.len() - 1] != "mod" { 2 } else { 1 };
        let own = layer_of(&module)
            .unwrap_or_else(|| panic!("{}: `{module}` is in no layer of EMULATOR_LAYERS", f.display()));
        let text = std::fs::read_to_string(&f).unwrap();
        for (line, name) in emulator_names(&text, depth) {
            // A module, a name the root re-exports (as its module), or an item the root itself
            // defines (`launch`).
            let target = if layer_of(&name).is_some() {
                name.clone()
            } else if let Some((_, m)) = reexports.iter().find(|(n, _)| *n == name) {
                m.clone()
            } else {
                "launch".to_string()
            };
            if target == module {
                continue;
            }
            let to = layer_of(&target).unwrap_or_else(|| panic!("`{target}` is in no layer"));
            checked += 1;
            if to >= own {
                errors.push(format!(
                    "{}:{line}: `{module}` ({}) names `{name}` of `{target}` ({})",
                    f.display(),
                    EMULATOR_LAYERS[own].0,
                    EMULATOR_LAYERS[to].0
                ));
            }
        }
    }
    assert!(checked > 100, "the scan found too few references ({checked})");
    assert!(errors.is_empty(), "emulator modules that reach up:\n{}", errors.join("\n"));
}
