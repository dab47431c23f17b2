//! Debian's `clinfo` against our ICD alone (`OCL_ICD_VENDORS` naming only `ventus.icd`): `clinfo -l`
//! lists our platform and device, and the full output (default and `--all-props`) names them and
//! contains no error marker at all (clinfo also builds and queries a tiny kernel, which goes
//! through our OpenCL C compiler). With pocl's ICD registered too, `clinfo -l` lists both
//! platforms and the full output still has no error.
//!
//! `clinfo` and `pocl-opencl-icd` are test dependencies installed by the README's test command
//! (`.ci/run`): if one is missing the test fails and says how to install it.

#[path = "common/cl.rs"]
mod cl;

use std::process::Command;

/// The error markers clinfo prints in place of a value: `<func:line: what : error -N>`.
fn error_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.contains(": error ") || l.contains("<error") || l.contains("CL_INVALID_")).collect()
}

fn clinfo(args: &[&str]) -> String {
    clinfo_with(args, &cl::vendors_dir())
}

fn clinfo_with(args: &[&str], vendors: &std::path::Path) -> String {
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
        .env("OCL_ICD_VENDORS", vendors)
        .env_remove("OCL_ICD_FILENAMES")
        .output()
        .expect("running clinfo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "clinfo {args:?} failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(stderr.trim().is_empty(), "clinfo {args:?} wrote to stderr:\n{stderr}");
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
    assert!(errors.is_empty(), "clinfo {args:?} reports errors for our platform:\n{errors:#?}\n\n{out}");
}

/// A vendors directory with our ICD and pocl's (Debian's `pocl-opencl-icd`).
fn vendors_with_pocl() -> std::path::PathBuf {
    let pocl = std::path::Path::new("/etc/OpenCL/vendors/pocl.icd");
    assert!(
        pocl.is_file(),
        "pocl's ICD is not installed. Run the README's test command, `bash .ci/run`, which installs \
         it (apt-get install pocl-opencl-icd) as CI does."
    );
    let dir = cl::profile_dir().join("ventus-icd-vendors-with-pocl");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(cl::vendors_dir().join("ventus.icd"), dir.join("ventus.icd")).unwrap();
    std::fs::copy(pocl, dir.join("pocl.icd")).unwrap();
    dir
}

#[test]
fn clinfo_list_shows_ours_beside_another_platform() {
    let dir = vendors_with_pocl();
    let out = clinfo_with(&["-l"], &dir);
    let platforms: Vec<&str> = out.lines().filter(|l| l.starts_with("Platform #")).collect();
    assert_eq!(platforms.len(), 2, "{out}");
    assert!(platforms.iter().any(|l| l.ends_with(": Ventus")), "{out}");
    assert!(platforms.iter().any(|l| l.contains("Portable Computing Language")), "{out}");
    assert!(out.contains("Device #0: Ventus GPGPU device"), "{out}");
    let full = clinfo_with(&[], &dir);
    assert!(
        full.lines().any(|l| l.trim_start().starts_with("Number of platforms") && l.trim_end().ends_with('2')),
        "{full}"
    );
    // No error marker anywhere in the Ventus platform's part of the output.
    let ours = full.split("Platform Name").find(|s| s.trim_start().starts_with("Ventus")).unwrap_or("");
    assert!(error_lines(ours).is_empty(), "{ours}");
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
}
