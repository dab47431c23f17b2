//! Debian's `clinfo` against our ICD alone (`OCL_ICD_VENDORS` naming only `ventus.icd`): `clinfo -l`
//! lists our platform and device, and the full output (default and `--all-props`) names them and
//! contains no error marker except the kernel-build one that is expected until the OpenCL C
//! compiler exists (clinfo builds a tiny kernel to report the kernel's preferred work-group size
//! multiple).
//!
//! `clinfo` is a test dependency: if it is missing the test fails and says how to install it.

#[path = "common/cl.rs"]
mod cl;

use std::process::Command;

/// The error markers clinfo prints in place of a value: `<func:line: what : error -N>`.
fn error_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.contains(": error ") || l.contains("<error") || l.contains("CL_INVALID_")).collect()
}

/// The one expected failure: clinfo's kernel build for `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE`.
fn is_expected(line: &str) -> bool {
    line.contains("<getWGsizes:")
}

fn clinfo(args: &[&str]) -> String {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("clinfo").is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "clinfo is not installed. Run the README's test command, `bash .ci/run`, which installs it \
         (apt-get install clinfo ocl-icd-libopencl1) as CI does."
    );
    let out = Command::new("clinfo")
        .args(args)
        .env("OCL_ICD_VENDORS", cl::vendors_dir())
        .env_remove("OCL_ICD_FILENAMES")
        .output()
        .expect("running clinfo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "clinfo {args:?} failed ({}):\n{stdout}\n{stderr}", out.status);
    // clinfo prints the build log of its test kernel to stderr (part of the expected failure).
    let stderr = stderr.trim();
    assert!(
        stderr.is_empty() || stderr.starts_with("=== CL_PROGRAM_BUILD_LOG ==="),
        "clinfo {args:?} wrote to stderr:\n{stderr}"
    );
    stdout
}

#[test]
fn clinfo_list_shows_our_platform_and_device() {
    let out = clinfo(&["-l"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first().map(|l| l.trim()), Some("Platform #0: Ventus"), "{out}");
    assert!(lines.iter().any(|l| l.contains("Device #0: Ventus GPGPU device")), "{out}");
    assert!(!out.contains("Platform #1"), "only our ICD is registered:\n{out}");
}

fn check_full_output(args: &[&str]) {
    let out = clinfo(args);
    let field = |name: &str| -> Vec<String> {
        out.lines().filter_map(|l| l.trim_start().strip_prefix(name)).map(|v| v.trim().to_string()).collect()
    };
    let all = |name: &str, value: &str| {
        let v = field(name);
        assert!(!v.is_empty() && v.iter().all(|x| x == value), "{name}: {v:?}\n{out}");
    };
    all("Number of platforms", "1");
    all("Platform Name", "Ventus");
    all("Platform Profile", "FULL_PROFILE");
    all("Platform Extensions function suffix", "VENTUS");
    all("Number of devices", "1");
    all("Device Name", "Ventus GPGPU device");
    all("Device Type", "GPU");
    // The loader resolves NULL platforms to ours.
    assert!(field("clGetPlatformInfo(NULL, CL_PLATFORM_NAME, ...)").iter().any(|v| v == "Ventus"), "{out}");
    assert!(field("clCreateContext(NULL, ...) [default]").iter().any(|v| v.starts_with("Success")), "{out}");

    let errors = error_lines(&out);
    let unexpected: Vec<&&str> = errors.iter().filter(|l| !is_expected(l)).collect();
    assert!(unexpected.is_empty(), "clinfo {args:?} reports errors for our platform:\n{unexpected:#?}\n\n{out}");
    assert!(errors.len() <= 1, "the kernel-build error appears at most once: {errors:#?}");
}

#[test]
fn clinfo_full_output_has_no_errors() {
    check_full_output(&[]);
}

#[test]
fn clinfo_all_props_has_no_errors() {
    check_full_output(&["--all-props"]);
}

#[test]
fn error_marker_detection() {
    let sample = "  Preferred work group size multiple (kernel)     <getWGsizes:1952: create program : error -59>\n\
                  \x20 Max size                 <device_info_sz:101: get CL_DEVICE_FOO : error -30>\n\
                  \x20 Error Correction support                        No\n";
    let errors = error_lines(sample);
    assert_eq!(errors.len(), 2);
    assert!(is_expected(errors[0]) && !is_expected(errors[1]));
}
