//! The `ventus-run` command line: `elf` loads a binary through the same path as the ICD
//! (`device::executable`), so a compiled kernel's `printf` prints there too (it printed nothing
//! when `ventus-run` had its own loader, which skipped the printf table); `disasm` shows source
//! lines.

mod cc;

/// Runs `ventus-run` with `args`: its standard output and error.
fn ventus_run(args: &[&str]) -> (String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ventus-run")).args(args).output().expect("ventus-run");
    assert!(o.status.success(), "ventus-run {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn compiled_printf_prints_through_ventus_run_elf() {
    let src = r#"kernel void hello(global int *o, int n) {
        int i = get_global_id(0);
        printf("hello %d of %d, %s %.2f\n", i, n, "half", 0.5f * i);
        o[i] = i * n;
    }"#;
    let c = ventus_icd::compiler::compile_spirv_from_source(&cc::front(src, "").spirv, src).unwrap();
    let dir = std::env::temp_dir().join(format!("ventus-run-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let elf = dir.join("hello.elf");
    std::fs::write(&elf, c.elf).unwrap();
    let (out, _) = ventus_run(&[
        "elf",
        elf.to_str().unwrap(),
        "--kernel",
        "hello",
        "--global",
        "32",
        "--local",
        "32",
        "--arg",
        "zeros:128",
        "--arg",
        "i32:3",
    ]);
    let mut lines: Vec<&str> = out.lines().filter(|l| l.starts_with("hello")).collect();
    lines.sort_by_key(|l| l.split(' ').nth(1).and_then(|n| n.parse::<u32>().ok()));
    let want: Vec<String> = (0..32).map(|i| format!("hello {i} of 3, half {:.2}", 0.5 * i as f32)).collect();
    assert_eq!(lines, want, "{out}");
    let stored: Vec<String> = (0..32).map(|i| (3 * i).to_string()).collect();
    assert!(out.contains(&format!("U32[32]: {}", stored.join(" "))), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ventus-run disasm` interleaves `; file:line:col` and the source line: embedded for a source
/// string, read from disk for a file named by hand-written `.file`/`.loc` directives.
#[test]
fn disassembly_interleaves_source_lines() {
    let dir = std::env::temp_dir().join(format!("ventus-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = "__kernel void oob(__global int *out, int n) {
        int i = get_global_id(0);
        out[i + n] = i * 3 + 1;
    }";
    let elf = dir.join("k.elf");
    let c = ventus_icd::compiler::compile_spirv_from_source(&cc::front(src, "").spirv, src).unwrap();
    std::fs::write(&elf, c.elf).unwrap();
    let (text, _) = ventus_run(&["disasm", elf.to_str().unwrap()]);
    let at = text.find("; <source>:3:").unwrap_or_else(|| panic!("no line 3:\n{text}"));
    assert!(text[at..].lines().nth(1).unwrap().contains(";           out[i + n] = i * 3 + 1;"), "{text}");
    assert!(text.find("<oob>:").unwrap() < text.find("; <source>:").unwrap(), "crt0 has no lines");

    // Hand-written assembly naming a file on disk.
    let cl = dir.join("by hand.cl");
    std::fs::write(&cl, "// one\nint two;\nint three;\n").unwrap();
    let asm = dir.join("k.s");
    let name = cl.to_str().unwrap().replace('\\', "\\\\");
    std::fs::write(
        &asm,
        format!(".globl k\nk:\n.file 7 \"{name}\" # comment\n.loc 7 2\n  li a0, 1\n.loc 7 3 4\n  ret\n"),
    )
    .unwrap();
    let out = dir.join("k2.elf");
    ventus_run(&["asm", asm.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let (text, _) = ventus_run(&["disasm", out.to_str().unwrap()]);
    let want = format!("; {}:2\n;   int two;\n", cl.display());
    assert!(text.contains(&want), "{want}\n{text}");
    assert!(text.contains(&format!("; {}:3:4\n;   int three;\n", cl.display())), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
