//! `icd/install.sh` in temporary prefixes (never the real `/usr/local` or `/etc`): per-user and
//! system-style registration, idempotence, `DESTDIR` staging, uninstall, argument errors, and that
//! the loader finds the installed copy (`clinfo -l`). The library is the one this test run built
//! (`--lib`), so no release build happens here.

#[path = "common/cl.rs"]
mod cl;

use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("icd/install.sh")
}

/// A fresh scratch directory under the cargo profile directory.
fn scratch(name: &str) -> PathBuf {
    let dir = cl::profile_dir().join(format!("install-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the script; returns (success, stdout + stderr).
fn run(args: &[&str], destdir: Option<&Path>) -> (bool, String) {
    let mut cmd = Command::new("bash");
    cmd.arg(script()).args(args).env_remove("DESTDIR");
    if let Some(d) = destdir {
        cmd.env("DESTDIR", d);
    }
    let out = cmd.output().expect("running bash icd/install.sh");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn per_user_install_is_idempotent_and_found_by_the_loader() {
    let dir = scratch("user");
    let lib = cl::icd_library();
    let (prefix, vendors) = (dir.join("prefix"), dir.join("vendors"));
    let args =
        ["--lib", lib.to_str().unwrap(), "--prefix", prefix.to_str().unwrap(), "--user", vendors.to_str().unwrap()];
    let installed = prefix.join("lib/libventus_icd.so");

    let (ok, out) = run(&args, None);
    assert!(ok, "{out}");
    assert!(out.contains("installed ") && out.contains("wrote ") && out.contains("OCL_ICD_VENDORS="), "{out}");
    assert_eq!(std::fs::read(&installed).unwrap(), std::fs::read(&lib).unwrap());
    assert_eq!(read(&vendors.join("ventus.icd")), format!("{}\n", installed.display()));

    let (ok, again) = run(&args, None);
    assert!(ok, "{again}");
    assert_eq!(again.matches("up to date: ").count(), 3, "second run changes nothing:\n{again}");
    assert_eq!(
        read(&prefix.join("include/CL/cl_ventus.h")),
        read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("include/CL/cl_ventus.h")),
        "the vendor-extension header is installed beside the library"
    );

    // The loader finds the installed copy through the per-user vendors directory.
    let out = Command::new("clinfo").arg("-l").env("OCL_ICD_VENDORS", &vendors).output();
    let out = out.expect("clinfo is not installed: run the README's test command, `bash .ci/run`, which installs it");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Platform #0: Ventus") && text.contains("Ventus GPGPU device"), "{text}");

    let uninstall = ["--prefix", prefix.to_str().unwrap(), "--user", vendors.to_str().unwrap(), "--uninstall"];
    let (ok, out) = run(&uninstall, None);
    assert!(ok && out.matches("removed ").count() == 3, "{out}");
    assert!(!installed.exists() && !vendors.join("ventus.icd").exists());
    let (ok, out) = run(&uninstall, None);
    assert!(ok && out.matches("already absent: ").count() == 3, "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn system_style_install_with_vendors_dir_and_destdir() {
    let dir = scratch("system");
    let lib = cl::icd_library();
    let (libdir, vendors) = (dir.join("usr/lib/x"), dir.join("etc/OpenCL/vendors"));
    let args = [
        "--lib",
        lib.to_str().unwrap(),
        "--libdir",
        libdir.to_str().unwrap(),
        "--vendors-dir",
        vendors.to_str().unwrap(),
    ];
    let (ok, out) = run(&args, None);
    assert!(ok && out.contains("registered system-wide"), "{out}");
    assert_eq!(read(&vendors.join("ventus.icd")), format!("{}\n", libdir.join("libventus_icd.so").display()));

    // DESTDIR stages the default system paths; the .icd names the final path.
    let stage = dir.join("stage");
    let (ok, out) = run(&["--lib", lib.to_str().unwrap()], Some(&stage));
    assert!(ok, "{out}");
    assert!(stage.join("usr/local/lib/libventus_icd.so").is_file());
    assert!(stage.join("usr/local/include/CL/cl_ventus.h").is_file());
    assert!(out.contains("staged under") && !out.contains("registered system-wide"), "{out}");
    assert_eq!(read(&stage.join("etc/OpenCL/vendors/ventus.icd")), "/usr/local/lib/libventus_icd.so\n");
    let (ok, out) = run(&["--uninstall"], Some(&stage));
    assert!(ok && out.matches("removed ").count() == 3, "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_refused() {
    for args in
        [&["--bogus"][..], &["--prefix"], &["--lib", "/nonexistent/libventus_icd.so", "--user", "/nonexistent/v"]]
    {
        let (ok, out) = run(args, None);
        assert!(!ok, "{args:?} should fail:\n{out}");
        assert!(out.contains("install.sh:"), "{out}");
    }
    let (ok, out) = run(&["--help"], None);
    assert!(ok && out.contains("--uninstall") && out.contains("--user"), "{out}");
}
