//! Build script: kept small on purpose (see docs/architecture in README).
//! Nothing networked, nothing generated yet; the ICD export list arrives with the `api` layer.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
