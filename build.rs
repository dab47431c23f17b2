//! Build script: kept small on purpose. Links the cdylib with `-Bsymbolic-functions` so that calls
//! between our own exported `cl*` entry points never bind to the ICD loader's copies (the loader
//! exports the same names). Nothing networked, nothing generated.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    }
}
