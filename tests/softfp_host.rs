//! The soft-double library (`src/compiler/softlib/*.cl`) compiled for the host by gcc and run:
//! every primitive bit-exact against the host's IEEE double on 10^6 seeded random operand sets
//! per operation (conversions in all rounding modes, double → half), and every math built-in in
//! ULP against the host's long double within OpenCL's bounds (`tests/host/softfp.c`). The
//! device runs the same source through our compiler; `tests/cl_fp64.rs` checks that it computes
//! the same bits there.

use std::process::Command;

#[test]
fn soft_double_library_against_the_host() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out_dir = std::env::temp_dir().join(format!("ventus-softfp-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join("softfp");
    let cc = Command::new("gcc")
        .args(["-O1", "-frounding-math", "-std=gnu11", "-D_GNU_SOURCE", "-w", "-I"])
        .arg(root.join("src/compiler/softlib"))
        .arg(root.join("tests/host/softfp.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .expect("gcc (installed by the README's test command) runs");
    assert!(cc.status.success(), "gcc failed:\n{}", String::from_utf8_lossy(&cc.stderr));
    let run = Command::new(&exe).arg("1000000").output().expect("harness runs");
    let text = String::from_utf8_lossy(&run.stdout);
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(run.status.success() && text.contains("failed checks: 0"), "{text}");
    assert!(text.contains("primitives: 1000000 random operand sets"), "{text}");
}
