//! End to end: the `cl-samples` C host programs, built with gcc against the ICD loader
//! (`-lOpenCL`), run through this repository's freshly built ICD by `make -C cl-samples run`
//! (which also builds the release library and assembles the assembly kernels with
//! `ventus-run asm`). The source samples build their OpenCL C kernels (`cl-samples/kernels/*.cl`)
//! at run time with `clBuildProgram`, so they exercise clang-15 + llvm-spirv-15 and our back end.
//!
//! Needs gcc, make and Debian's `ocl-icd-opencl-dev`, `ocl-icd-libopencl1`, `opencl-c-headers`,
//! `clang-15`, `llvm-spirv-15` (CI installs them); without them this test fails and says what to
//! install.

use std::path::PathBuf;
use std::process::Command;

/// The runs of `make run` (`cl-samples/run.sh`): official ELF, assembly kernels, OpenCL C kernels.
const RUNS: [&str; 12] = [
    "vecadd_official",
    "saxpy_asm",
    "reduce",
    "transpose",
    "vecadd",
    "saxpy",
    "matmul",
    "histogram",
    "divergence",
    "hello_printf",
    "memcheck",
    "blur",
];
const INSTALL: &str = "apt-get install -y --no-install-recommends ocl-icd-opencl-dev ocl-icd-libopencl1 \
                       opencl-c-headers gcc make clang-15 llvm-spirv-15";

/// The program name a run prints (`saxpy_asm` runs the `saxpy` program on the assembly kernel).
fn program(run: &str) -> &str {
    if run == "saxpy_asm" {
        "saxpy"
    } else {
        run
    }
}

/// Fails with an installation hint unless make, gcc, the OpenCL headers and libOpenCL work.
fn check_prerequisites(dir: &std::path::Path) {
    for tool in ["make", "gcc"] {
        let ok = Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
        assert!(ok, "cl-samples need `{tool}`; install the prerequisites: {INSTALL}");
    }
    let src = dir.join("probe.c");
    std::fs::write(
        &src,
        "#define CL_TARGET_OPENCL_VERSION 300\n#include <CL/cl.h>\n\
         int main(void) { cl_uint n = 0; return clGetPlatformIDs(0, NULL, &n) == 12345; }\n",
    )
    .unwrap();
    let out = Command::new("gcc").arg(&src).arg("-o").arg(dir.join("probe")).arg("-lOpenCL").output().unwrap();
    assert!(
        out.status.success(),
        "cannot build an OpenCL program (CL/cl.h + -lOpenCL): {}\ninstall the prerequisites: {INSTALL}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn cl_samples_pass_through_the_icd_loader() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::env::temp_dir().join(format!("ventus-samples-probe-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    check_prerequisites(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);

    let out = Command::new("make")
        .arg("-C")
        .arg(repo.join("cl-samples"))
        .arg("run")
        .env("CARGO", env!("CARGO"))
        .output()
        .expect("run make");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "`make -C cl-samples run` failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    for run in RUNS {
        // The run's section: from its "== RUN" header to the next header.
        let section = stdout
            .split("== ")
            .find(|s| s.lines().next() == Some(run))
            .unwrap_or_else(|| panic!("{run} did not run\n--- stdout\n{stdout}\n--- stderr\n{stderr}"));
        let pass = format!("{}: PASS", program(run));
        assert!(section.lines().any(|l| l == pass), "{run} did not pass\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    }
    assert!(stdout.contains("all samples passed"), "--- stdout\n{stdout}\n--- stderr\n{stderr}");
}
