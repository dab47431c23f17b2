//! `ventus-run`: run official launch images or Ventus ELF kernels on the embedded emulator,
//! assemble + link Ventus assembly into an official-format ELF, disassemble ELFs. See
//! `ventus-run --help` (and docs/using.md) for the argument syntax.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use ventus_icd::abi::crt0::{link, parse_kernel_decls};
use ventus_icd::abi::elf::VentusElf;
use ventus_icd::abi::image::LaunchImage;
use ventus_icd::abi::launch::{pack_args, KernelArg, NdRange};
use ventus_icd::device::{
    self, write_stdout, Executable, Launch, LaunchOptions, Memory, Placement, Printer, TrapPolicy,
};
use ventus_icd::emulator::commit_log::{write_record, CommitRecord};
use ventus_icd::emulator::{images, run, run_traced, DeviceMemory, LaunchError, RunOptions, TrapMode};
use ventus_icd::isa::disasm::disassemble;

const HELP: &str = "\
ventus-run — run Ventus GPGPU code on the embedded emulator

USAGE:
  ventus-run image A.metadata [B.metadata ...] [OPTIONS]
      Run official launch images in order on one device memory (each .data beside its .metadata).
  ventus-run elf FILE --kernel NAME --global X[,Y,Z] --local X[,Y,Z] [--offset X[,Y,Z]]
                [--numt N] [--arg SPEC ...] [OPTIONS]
      Launch a kernel of a Ventus ELF with buffers and values given on the command line.
  ventus-run asm FILE.s -o OUT.elf [--kernel-info FILE]
      Assemble Ventus assembly (llvm-objdump syntax), link it after our crt0 and write an ELF in
      the official format. Every label declared with `.globl NAME` is a kernel entry; a kernel
      gets a0 = its argument buffer and returns with `ret`.
  ventus-run disasm FILE
      Disassemble the executable segments of a Ventus ELF.

OPTIONS:
  --dump FILE      write final buffer contents: per buffer `@<base> <size>` then one
                   little-endian 32-bit word per line (8 hex digits)
  --trace FILE     write a spike-compatible commit log
  --threads N      host threads (default: VENTUS_THREADS or all cores)
  --spike-traps    a trap silently ends its work-group (reference-simulator behaviour)
                   instead of failing the launch

ARGUMENT SPECS (elf, in kernel-argument order):
  buf:TYPE:VALUES  a buffer initialised with VALUES; TYPE is i8 u8 i16 u16 i32 u32 f32 i64 u64 f64;
                   VALUES is a comma list whose items are a value, `N*value` (repeat) or `a..b`
                   (integers a, a+1, ..., b-1); e.g. buf:f32:0..64  buf:i32:16*0
  zeros:BYTES      a zero-filled buffer of BYTES bytes (printed as u32)
  file:PATH        a buffer holding the bytes of PATH (printed as u32)
  local:BYTES      a __local pointer argument of BYTES bytes
  null             a NULL pointer
  TYPE:VALUE       a by-value scalar, e.g. i32:-5 f32:2.5 u64:7
  hex:BYTES        a by-value argument given as hex bytes, e.g. hex:01000000ff
After the run every buffer argument is printed as `argN @0xADDR TYPE[count]: values`.

KERNEL INFO (asm --kernel-info FILE): OpenCL C kernel prototypes without bodies, which become the
ELF's argument metadata (.ventus.kernel_info) so the OpenCL driver can check clSetKernelArg and
answer clGetKernelArgInfo. Comments: #, //, /* */. For example:
  kernel void saxpy(global float* y, global const float* x, float a, uint n);
  __kernel __attribute__((reqd_work_group_size(64,1,1)))
  void reduce(global const float* in, global float* out, local float* scratch, uint n)
Address spaces global/constant/local (pointers need one; `__` prefixes allowed), qualifiers
const/volatile/restrict, types char..double/half, their vectors (float4, ...), size_t (4 bytes),
any pointer (4 bytes). Attributes: reqd_work_group_size(X,Y,Z), work_group_size_hint(X,Y,Z),
vec_type_hint(T), and local_bytes(N) / private_bytes(N) (static __local / private bytes).
Each declared kernel must be a .globl label. Without --kernel-info the ELF has no argument
metadata (like the official toolchain's ELFs).

Exit status: 0 success, 1 the kernel faulted, 2 usage or input error.
";

#[derive(Debug)]
struct Fail(String, u8);
fn usage(msg: impl Into<String>) -> Fail {
    Fail(msg.into(), 2)
}

struct Common {
    dump: Option<PathBuf>,
    trace: Option<PathBuf>,
    threads: usize,
    trap_mode: TrapMode,
}

/// Splits `args` into positional words and the common options.
fn parse_common(args: &[String]) -> Result<(Vec<String>, Common), Fail> {
    let mut pos = Vec::new();
    let mut c = Common { dump: None, trace: None, threads: 0, trap_mode: RunOptions::from_env().trap_mode };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| it.next().cloned().ok_or_else(|| usage(format!("{name} needs a value")));
        match a.as_str() {
            "--dump" => c.dump = Some(val("--dump")?.into()),
            "--trace" => c.trace = Some(val("--trace")?.into()),
            "--threads" => {
                let v = val("--threads")?;
                c.threads = v.parse().ok().filter(|&n| n > 0).ok_or_else(|| usage(format!("bad --threads {v}")))?;
            }
            "--spike-traps" => c.trap_mode = TrapMode::EndWorkGroup,
            _ => pos.push(a.clone()),
        }
    }
    Ok((pos, c))
}

fn opts(c: &Common) -> RunOptions {
    RunOptions { threads: c.threads, trap_mode: c.trap_mode, ..RunOptions::from_env() }
}

/// The device layer's options for `ventus-run elf` (the same settings as [`opts`]).
fn launch_opts(c: &Common) -> LaunchOptions {
    let on_trap = match c.trap_mode {
        TrapMode::Fault => TrapPolicy::Stop,
        TrapMode::EndWorkGroup => TrapPolicy::EndWorkGroup,
    };
    LaunchOptions { threads: c.threads, on_trap, ..LaunchOptions::from_env() }
}

fn write_dump(path: &Path, bufs: &[(u32, Vec<u8>)]) -> Result<(), Fail> {
    let mut out = String::new();
    for (base, data) in bufs {
        let _ = writeln!(out, "@{base:08x} {:x}", data.len());
        for chunk in data.chunks(4) {
            let mut w = [0u8; 4];
            w[..chunk.len()].copy_from_slice(chunk);
            let _ = writeln!(out, "{:08x}", u32::from_le_bytes(w));
        }
    }
    std::fs::write(path, out).map_err(|e| usage(format!("cannot write {}: {e}", path.display())))
}

fn write_trace(out: &mut String, traces: &[(u32, Vec<CommitRecord>)], numt: u32) {
    for (_, recs) in traces {
        for r in recs {
            let text = disassemble(r.insn, r.pc).unwrap_or_else(|| "unknown".into()).replace('\t', " ");
            write_record(out, r, &text, numt);
        }
    }
}

fn fault_status(e: &LaunchError) -> Fail {
    match e {
        LaunchError::Fault(f) => Fail(format!("kernel fault: {f}"), 1),
        other => usage(other.to_string()),
    }
}

fn cmd_image(args: &[String]) -> Result<(), Fail> {
    let (files, c) = parse_common(args)?;
    if files.is_empty() {
        return Err(usage("image: no .metadata files given"));
    }
    let mem = DeviceMemory::new();
    let mut named: Vec<(u32, u32)> = Vec::new();
    let mut trace = String::new();
    for f in &files {
        let img = LaunchImage::load(Path::new(f)).map_err(|e| usage(format!("{f}: {e}")))?;
        for b in &img.buffers {
            if b.size > 0 && !images::in_windows(b.base) && !named.iter().any(|(a, _)| *a == b.base) {
                named.push((b.base, b.size));
            }
        }
        let (prog, params) = images::stage(&mem, &img).map_err(|e| usage(format!("{f}: {e}")))?;
        let result = if c.trace.is_some() {
            let (r, traces) = run_traced(&mem, &prog, &params, &opts(&c));
            write_trace(&mut trace, &traces, params.threads_per_warp);
            r
        } else {
            run(&mem, &prog, &params, &opts(&c))
        };
        match result {
            Ok(s) => eprintln!(
                "{f}: {} work-groups, {} instructions, {} lane-instructions, {:.3} ms",
                s.work_groups,
                s.instructions,
                s.lane_instructions,
                s.elapsed.as_secs_f64() * 1e3
            ),
            Err(e) => {
                if let Some(t) = &c.trace {
                    let _ = std::fs::write(t, &trace);
                }
                return Err(fault_status(&e));
            }
        }
    }
    if let Some(t) = &c.trace {
        std::fs::write(t, &trace).map_err(|e| usage(format!("cannot write {}: {e}", t.display())))?;
    }
    if let Some(d) = &c.dump {
        let bufs = named
            .iter()
            .map(|&(base, size)| {
                let mut b = vec![0u8; size as usize];
                mem.read(base, &mut b).map(|_| (base, b)).map_err(|e| usage(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        write_dump(d, &bufs)?;
    }
    Ok(())
}

/// Element types of buffer/scalar specs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    I64,
    U64,
    F64,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "i8" => Ty::I8,
            "u8" => Ty::U8,
            "i16" => Ty::I16,
            "u16" => Ty::U16,
            "i32" => Ty::I32,
            "u32" => Ty::U32,
            "f32" => Ty::F32,
            "i64" => Ty::I64,
            "u64" => Ty::U64,
            "f64" => Ty::F64,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        match self {
            Ty::I8 | Ty::U8 => 1,
            Ty::I16 | Ty::U16 => 2,
            Ty::I32 | Ty::U32 | Ty::F32 => 4,
            _ => 8,
        }
    }
    fn encode(self, v: &str) -> Option<Vec<u8>> {
        let int = |v: &str| -> Option<i128> {
            let v = v.trim();
            let (neg, body) = v.strip_prefix('-').map_or((false, v), |b| (true, b));
            let n = if let Some(h) = body.strip_prefix("0x") {
                i128::from_str_radix(h, 16).ok()?
            } else {
                body.parse().ok()?
            };
            Some(if neg { -n } else { n })
        };
        Some(match self {
            Ty::F32 => v.trim().parse::<f32>().ok()?.to_le_bytes().to_vec(),
            Ty::F64 => v.trim().parse::<f64>().ok()?.to_le_bytes().to_vec(),
            _ => {
                let n = int(v)?;
                let (lo, hi) = match self {
                    Ty::I8 => (i8::MIN as i128, u8::MAX as i128),
                    Ty::U8 => (0, u8::MAX as i128),
                    Ty::I16 => (i16::MIN as i128, u16::MAX as i128),
                    Ty::U16 => (0, u16::MAX as i128),
                    Ty::I32 => (i32::MIN as i128, u32::MAX as i128),
                    Ty::U32 => (0, u32::MAX as i128),
                    Ty::I64 => (i64::MIN as i128, u64::MAX as i128),
                    _ => (0, u64::MAX as i128),
                };
                if n < lo || n > hi {
                    return None;
                }
                (n as u64).to_le_bytes()[..self.size()].to_vec()
            }
        })
    }
    fn show(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let u = u64::from_le_bytes(w);
        match self {
            Ty::I8 => (u as u8 as i8).to_string(),
            Ty::U8 => (u as u8).to_string(),
            Ty::I16 => (u as u16 as i16).to_string(),
            Ty::U16 => (u as u16).to_string(),
            Ty::I32 => (u as u32 as i32).to_string(),
            Ty::U32 => (u as u32).to_string(),
            Ty::F32 => f32::from_bits(u as u32).to_string(),
            Ty::I64 => (u as i64).to_string(),
            Ty::U64 => u.to_string(),
            Ty::F64 => f64::from_bits(u).to_string(),
        }
    }
}

enum ArgSpec {
    Buffer(Ty, Vec<u8>),
    Local(u32),
    Null,
    Value(Vec<u8>),
}

fn parse_values(ty: Ty, list: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if let Some((n, v)) = item.split_once('*') {
            let n: usize = n.trim().parse().ok()?;
            let e = ty.encode(v)?;
            for _ in 0..n {
                out.extend_from_slice(&e);
            }
        } else if let Some((a, b)) = item.split_once("..") {
            let (a, b): (i64, i64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            for k in a..b {
                out.extend(ty.encode(&k.to_string())?);
            }
        } else {
            out.extend(ty.encode(item)?);
        }
    }
    Some(out)
}

fn parse_arg(spec: &str) -> Result<ArgSpec, Fail> {
    let bad = || usage(format!("bad --arg {spec:?} (see --help)"));
    if spec == "null" {
        return Ok(ArgSpec::Null);
    }
    let (kind, rest) = spec.split_once(':').ok_or_else(bad)?;
    Ok(match kind {
        "buf" => {
            let (t, vals) = rest.split_once(':').ok_or_else(bad)?;
            let ty = Ty::parse(t).ok_or_else(bad)?;
            ArgSpec::Buffer(ty, parse_values(ty, vals).ok_or_else(bad)?)
        }
        "zeros" => ArgSpec::Buffer(Ty::U32, vec![0; rest.parse::<usize>().map_err(|_| bad())?]),
        "file" => ArgSpec::Buffer(Ty::U32, std::fs::read(rest).map_err(|e| usage(format!("{rest}: {e}")))?),
        "local" => ArgSpec::Local(rest.parse().map_err(|_| bad())?),
        "hex" => {
            let b = (0..rest.len() / 2)
                .map(|i| u8::from_str_radix(rest.get(2 * i..2 * i + 2).unwrap_or("zz"), 16))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| bad())?;
            if b.is_empty() || rest.len() % 2 != 0 {
                return Err(bad());
            }
            ArgSpec::Value(b)
        }
        t => ArgSpec::Value(Ty::parse(t).and_then(|ty| ty.encode(rest)).ok_or_else(bad)?),
    })
}

fn parse_dims(s: &str) -> Result<Vec<u32>, Fail> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| x.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| usage(format!("bad sizes {s:?}")))?;
    if v.is_empty() || v.len() > 3 {
        return Err(usage(format!("bad sizes {s:?}: give 1 to 3 numbers")));
    }
    Ok(v)
}

fn cmd_elf(args: &[String]) -> Result<(), Fail> {
    let (pos, c) = parse_common(args)?;
    let mut it = pos.iter();
    let mut file = None;
    let (mut kernel, mut global, mut local, mut offset, mut numt) = (None, None, None, None, None);
    let mut specs = Vec::new();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or_else(|| usage(format!("{a} needs a value")));
        match a.as_str() {
            "--kernel" => kernel = Some(val()?),
            "--global" => global = Some(parse_dims(&val()?)?),
            "--local" => local = Some(parse_dims(&val()?)?),
            "--offset" => offset = Some(parse_dims(&val()?)?),
            "--numt" => numt = Some(val()?.parse::<u32>().map_err(|_| usage("bad --numt"))?),
            "--arg" => specs.push(parse_arg(&val()?)?),
            s if s.starts_with("--") => return Err(usage(format!("unknown option {s}"))),
            _ if file.is_none() => file = Some(a.clone()),
            _ => return Err(usage(format!("unexpected argument {a}"))),
        }
    }
    let file = file.ok_or_else(|| usage("elf: no FILE"))?;
    let kernel = kernel.ok_or_else(|| usage("elf: --kernel is required"))?;
    let global = global.ok_or_else(|| usage("elf: --global is required"))?;
    let local = local.unwrap_or_else(|| vec![1; global.len()]);
    if local.len() != global.len() {
        return Err(usage("--global and --local need the same number of dimensions"));
    }
    let work_dim = global.len() as u32;
    let (mut num_groups, mut local_size, mut offsets) = ([1u32; 3], [1u32; 3], [0u32; 3]);
    for d in 0..global.len() {
        if local[d] == 0 || global[d] % local[d] != 0 {
            return Err(usage(format!("global size {} is not a multiple of local size {}", global[d], local[d])));
        }
        num_groups[d] = global[d] / local[d];
        local_size[d] = local[d];
        offsets[d] = offset.as_ref().and_then(|o| o.get(d).copied()).unwrap_or(0);
    }
    let range = NdRange::whole_groups(work_dim, num_groups, local_size, offsets);
    let numt = numt.unwrap_or(device::limits().threads_per_warp);
    let bytes = std::fs::read(&file).map_err(|e| usage(format!("{file}: {e}")))?;
    // The device layer's one load-and-launch path, as the ICD uses it: code with its host calls,
    // kernels, printf table, program-scope variables, print buffer.
    let exec = Executable::load(&bytes).map_err(|e| usage(format!("{file}: {e}")))?;
    let def = exec.kernel_def(&kernel).ok_or_else(|| {
        let names: Vec<&str> = exec.kernels.iter().map(|k| k.name.as_str()).collect();
        usage(format!("{file}: no kernel {kernel:?} (kernels: {})", names.join(", ")))
    })?;
    let mem = Memory::new();
    // The print buffer first, as the official driver allocates it (so buffer addresses match
    // official traces): compiled kernels' records are formatted as through the ICD; a binary
    // without a printf table (official ones print through a host call) gets a plain buffer.
    let printer = Printer::official(&mem, exec.printf.as_ref(), PRINT_BUFFER_BYTES, write_stdout)
        .map_err(|e| usage(e.to_string()))?;
    let mut kargs = Vec::new();
    let mut buffers = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        kargs.push(match s {
            ArgSpec::Buffer(ty, data) => {
                let r = mem.alloc(data.len().max(4) as u32, Placement::Plain).map_err(|e| usage(e.to_string()))?;
                r.write(r.base(), data);
                buffers.push((i, r.base(), *ty, data.len()));
                KernelArg::Pointer(r.base())
            }
            ArgSpec::Local(n) => KernelArg::Local(*n),
            ArgSpec::Null => KernelArg::Pointer(0),
            ArgSpec::Value(v) => KernelArg::Value(v.clone()),
        });
    }
    let packed = pack_args(&kargs).map_err(|e| usage(e.to_string()))?;
    // Programs with program-scope variables: their block, initialised, as the hidden last argument.
    let globals = exec.stage_globals(&mem).map_err(|e| usage(e.to_string()))?;
    let l = Launch {
        exec: &exec,
        kernel: def,
        range,
        args: &packed,
        globals,
        threads_per_warp: numt,
        mask_lanes: false,
        printer: Some(&printer),
        grouping: Default::default(),
    };
    let opts = launch_opts(&c);
    let result = if let Some(t) = &c.trace {
        let (r, traces) = device::emulated::run_traced(&mem, &l, &opts);
        let mut text = String::new();
        write_trace(&mut text, &traces, numt);
        std::fs::write(t, text).map_err(|e| usage(format!("cannot write {}: {e}", t.display())))?;
        r
    } else {
        device::run(&mem, &l, &opts)
    };
    let report = printer.finish(&mem);
    if report.lost > 0 {
        eprintln!("ventus-run: {} printf record(s) lost: the print buffer was full", report.lost);
    }
    let mut dump = Vec::new();
    for &(i, base, ty, len) in &buffers {
        let mut b = vec![0u8; len];
        mem.read(base, &mut b).map_err(|e| usage(e.to_string()))?;
        let vals: Vec<String> = b.chunks(ty.size()).map(|c| ty.show(c)).collect();
        println!("arg{i} @{base:#010x} {ty:?}[{}]: {}", vals.len(), vals.join(" ").to_lowercase());
        dump.push((base, b));
    }
    if let Some(d) = &c.dump {
        write_dump(d, &dump)?;
    }
    match result {
        Ok(s) => {
            eprintln!(
                "{kernel}: {} work-groups, {} instructions, {} lane-instructions",
                s.work_groups, s.instructions, s.lane_instructions
            );
            Ok(())
        }
        Err(e) if e.is_fault() => Err(Fail(format!("kernel fault: {e}"), 1)),
        Err(e) => Err(usage(e.to_string())),
    }
}

fn cmd_asm(args: &[String]) -> Result<(), Fail> {
    let mut it = args.iter();
    let (mut input, mut output, mut info) = (None, None, None);
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or_else(|| usage(format!("{a} needs a value")));
        match a.as_str() {
            "-o" | "--output" => output = Some(val()?),
            "--kernel-info" => info = Some(val()?),
            s if s.starts_with('-') && s.len() > 1 => return Err(usage(format!("unknown option {s}"))),
            _ if input.is_none() => input = Some(a.clone()),
            _ => return Err(usage(format!("unexpected argument {a}"))),
        }
    }
    let input = input.ok_or_else(|| usage("asm: no FILE.s"))?;
    let output = output.ok_or_else(|| usage("asm: -o OUT.elf is required"))?;
    let source = std::fs::read_to_string(&input).map_err(|e| usage(format!("{input}: {e}")))?;
    let kernels = match &info {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| usage(format!("{path}: {e}")))?;
            parse_kernel_decls(&text).map_err(|e| usage(format!("{path}: {e}")))?
        }
        None => Vec::new(),
    };
    let bytes = link(&source, &kernels).map_err(|e| usage(format!("{input}: {e}")))?;
    let elf = VentusElf::parse(&bytes).map_err(|e| usage(format!("{output}: internal error: {e}")))?;
    std::fs::write(&output, &bytes).map_err(|e| usage(format!("cannot write {output}: {e}")))?;
    let names: Vec<String> =
        elf.kernel_names().iter().map(|k| format!("{k} @{:#010x}", elf.kernel_entry(k).unwrap_or(0))).collect();
    eprintln!("{output}: {} bytes; kernels: {}", bytes.len(), names.join(", "));
    Ok(())
}

fn cmd_disasm(args: &[String]) -> Result<(), Fail> {
    let [file] = args else { return Err(usage("disasm: give exactly one FILE")) };
    let bytes = std::fs::read(file).map_err(|e| usage(format!("{file}: {e}")))?;
    let elf = VentusElf::parse(&bytes).map_err(|e| usage(format!("{file}: {e}")))?;
    let mut lines = SourceLines::new(&elf, file);
    let mut out = String::new();
    for seg in elf.segments.iter().filter(|s| s.executable) {
        for (k, w) in seg.data.chunks(4).enumerate() {
            let pc = seg.vaddr + 4 * k as u32;
            let here = |s: &&ventus_icd::abi::elf::Symbol| s.addr == pc && s.in_text && !s.name.is_empty();
            let best = elf.symbols.iter().filter(here).min_by_key(|s| (s.name.starts_with(".L"), !s.is_global));
            if let Some(sym) = best {
                let _ = writeln!(out, "\n{pc:08x} <{}>:", sym.name);
            }
            lines.annotate(pc, &mut out);
            let mut b = [0u8; 4];
            b[..w.len()].copy_from_slice(w);
            let word = u32::from_le_bytes(b);
            let text = disassemble(word, pc).unwrap_or_else(|| "<unknown>".into());
            let _ = writeln!(out, "{pc:8x}: {:02x} {:02x} {:02x} {:02x}  \t{text}", b[0], b[1], b[2], b[3]);
        }
    }
    print!("{out}");
    Ok(())
}

/// Source lines for `disasm` (objdump -S style): before the first instruction of each new source
/// line, `; file:line:col` and the text of that line — embedded in the ELF's line table (the
/// source string of a program built from source) or read from the file named there.
struct SourceLines {
    table: Option<ventus_icd::abi::lines::LineTable>,
    /// File contents by name (`None`: unreadable).
    files: std::collections::HashMap<String, Option<Vec<String>>>,
    /// The (file, line) printed last.
    last: Option<(u16, u32)>,
}

impl SourceLines {
    fn new(elf: &VentusElf, path: &str) -> SourceLines {
        let table = elf.line_table().unwrap_or_else(|e| {
            eprintln!("{path}: ignoring the source-line table: {e}");
            None
        });
        SourceLines { table, files: Default::default(), last: None }
    }

    fn annotate(&mut self, pc: u32, out: &mut String) {
        let Some(t) = &self.table else { return };
        let Some(row) = t.row(pc).copied() else { return };
        let Some(loc) = t.resolve(&row) else {
            self.last = None;
            return;
        };
        if self.last == Some((row.file, row.line)) {
            return;
        }
        self.last = Some((row.file, row.line));
        let _ = writeln!(out, "; {loc}");
        let text = t.text(row.file, row.line).map(str::to_string).or_else(|| {
            let lines = self.files.entry(loc.file.clone()).or_insert_with(|| {
                std::fs::read_to_string(&loc.file).ok().map(|s| s.lines().map(str::to_string).collect())
            });
            lines.as_ref()?.get(row.line as usize - 1).cloned()
        });
        if let Some(text) = text {
            let _ = writeln!(out, ";   {}", text.trim_end());
        }
    }
}

/// The private bytes per work-item a kernel declares in `.ventus.kernel_info` (0 without it).
/// Bytes of printf records per `ventus-run elf` launch (the official driver's print buffer).
const PRINT_BUFFER_BYTES: u32 = 1 << 20;

fn main() -> ExitCode {
    // Output piped into `head` and the like ends the process quietly, as for other command-line
    // tools, instead of a panic on the failed write (Rust ignores SIGPIPE by default).
    // SAFETY: restoring the default disposition of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("image") => cmd_image(&args[1..]),
        Some("elf") => cmd_elf(&args[1..]),
        Some("asm") => cmd_asm(&args[1..]),
        Some("disasm") => cmd_disasm(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            print!("{HELP}");
            Ok(())
        }
        _ => Err(usage("expected a command: image, elf, asm or disasm (see --help)")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg, code)) => {
            eprintln!("ventus-run: {msg}");
            ExitCode::from(code)
        }
    }
}
