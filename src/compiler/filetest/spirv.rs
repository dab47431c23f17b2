//! The `spirv` run kind: the SPIR-V front end without clang. The file's text is SPIR-V assembly
//! (its `;` lines are assembly comments), assembled by `spirv-as` from Debian's spirv-tools
//! (installed by the README's test command); the output is what `spirv::lower_modules` makes of
//! it — per kernel its argument metadata, resources and IR, then the program's constant data,
//! printf call sites and out-of-line subroutines — or the front end's error.
//! `tools/spirv_filetest.sh` turns an OpenCL C kernel into such a file.

use crate::compiler::ir;
use crate::compiler::spirv;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// Assembles `input` and lowers it; `Err` when `spirv-as` cannot run or rejects the text.
pub fn run(input: &str) -> Result<String, String> {
    let words = assemble(input)?;
    Ok(match spirv::lower_modules(&[words]) {
        Ok(prog) => describe(&prog),
        Err(e) => format!("{e}\n"),
    })
}

fn assemble(text: &str) -> Result<Vec<u32>, String> {
    let mut child = Command::new("spirv-as")
        .args(["--target-env", "spv1.0", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run spirv-as ({e}): run the README's test command, which installs spirv-tools"))?;
    let mut stdin = child.stdin.take().ok_or("spirv-as has no stdin")?;
    let text = text.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().map_err(|e| format!("spirv-as: {e}"))?;
    let _ = feeder.join();
    if !out.status.success() || out.stdout.len() % 4 != 0 {
        return Err(format!("spirv-as rejected the input: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(out.stdout.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

fn describe(prog: &spirv::Program) -> String {
    let mut s = format!("; {} kernel(s)\n", prog.kernels.len());
    for k in &prog.kernels {
        let i = &k.info;
        s += &format!(
            "; kernel {}: private {} B, local {} B, grouping-free {}\n",
            i.name, i.private_bytes, i.local_bytes, i.grouping_free
        );
        for (n, a) in i.args.iter().enumerate() {
            s += &format!(
                ";   arg {n}: {} {} ({:?}, {:?}, {} B)\n",
                a.type_name, a.name, a.address_space, a.access, a.size
            );
        }
        s += &ir::print::print(&k.func);
    }
    if !prog.rodata.is_empty() {
        s += &format!("; rodata: {} B\n", prog.rodata.len());
    }
    for (n, site) in prog.printf.sites.iter().enumerate() {
        let format = String::from_utf8_lossy(&site.format);
        s += &format!("; printf {}: {format:?} {:?}\n", n + 1, site.args);
    }
    for (level, f) in &prog.subs {
        s += &format!("; subroutine at call level {level}\n");
        s += &ir::print::print(f);
    }
    s
}
