//! pyopencl (Debian's `python3-pyopencl`) on our platform through the ICD loader: a source
//! kernel with printf, a `__local` reduction, and pyopencl.array's generated kernels
//! (`tests/python/pyopencl_smoke.py`). The loader sees only our ICD (`OCL_ICD_VENDORS`).
//!
//! `python3-pyopencl` is a test dependency installed by the README's test command (`.ci/run`);
//! if it is missing the test fails and says how to install it.

#[path = "common/cl.rs"]
mod cl;

use std::process::Command;

#[test]
fn pyopencl_runs_kernels_on_the_ventus_platform() {
    // Debian's interpreter (a pyenv or venv python would not see dist-packages).
    let python = if std::path::Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
    let probe = Command::new(python).args(["-c", "import pyopencl, numpy"]).output();
    assert!(
        probe.as_ref().is_ok_and(|o| o.status.success()),
        "pyopencl is not installed for {python}: run the README's test command, `bash .ci/run` \
         (apt-get install python3-pyopencl python3-numpy)"
    );
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/pyopencl_smoke.py");
    let out = Command::new(python)
        .arg(&script)
        .env("OCL_ICD_VENDORS", cl::vendors_dir())
        .env("PYOPENCL_NO_CACHE", "1")
        .env("PYOPENCL_COMPILER_OUTPUT", "1")
        .output()
        .expect("running python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pyopencl script failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("pyopencl: work-item 3 computed"), "kernel printf missing:\n{stdout}");
    assert!(stdout.contains("pyopencl: PASS"), "{stdout}\n{stderr}");
    // A successful build leaves no compiler output for pyopencl to warn about.
    assert!(!stderr.contains("CompilerWarning"), "{stderr}");
}
