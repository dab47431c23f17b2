//! The entry points the driver calls: build from OpenCL C source or SPIR-V into a Ventus ELF,
//! with a build log and the on-disk cache; specialization of SPIR-V modules.
//!
//! Options arrive parsed and validated ([`FrontOptions`], from `core::program::BuildOptions`):
//! nothing here reads an option string.
//!
//! The cache ([`cache`]) keys a source build by everything the driver knows before running clang
//! (source, front-end options, tool versions, current directory, …) and stores with the ELF the
//! list of files the preprocessor read (clang's `-MD` output) with a hash of each; a lookup whose
//! files changed since is a miss, so an edited `#include`d header is never served stale.

use super::toolchain::{FrontOptions, ToolError, Toolchain};
use super::{cache, compile_spirv, CompileError};
use rspirv::spirv::{Decoration, Op};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a build failed (the log explains).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// Compilation failed (`CL_BUILD_PROGRAM_FAILURE`).
    Failed,
}

/// Result of a build attempt: the ELF (on success) and the build log either way.
#[derive(Debug, Clone)]
pub struct BuildOutput {
    pub result: Result<Vec<u8>, BuildError>,
    pub log: String,
}

fn failed(log: String) -> BuildOutput {
    BuildOutput { result: Err(BuildError::Failed), log }
}

/// Result of `clCompileProgram`: the SPIR-V of the compiled object, and the log either way.
#[derive(Debug, Clone)]
pub struct CompileOutput {
    pub spirv: Option<Vec<u32>>,
    pub log: String,
}

/// Writes embedded headers (`clCompileProgram`'s `input_headers`) to a fresh directory.
fn header_dir(headers: &[(String, String)]) -> std::io::Result<Option<PathBuf>> {
    if headers.is_empty() {
        return Ok(None);
    }
    // Unique per build: concurrent builds (threads or processes) never share or delete each
    // other's headers.
    let d = super::toolchain::unique_temp_path("hdr", "d");
    for (name, text) in headers {
        let p = d.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, text)?;
    }
    Ok(Some(d))
}

/// Appends the compiler's warnings to the build log.
fn warnings_to_log(c: &super::Compiled, log: &mut String) {
    for w in &c.warnings {
        log.push_str(w);
        log.push('\n');
    }
}

fn back_end(spirv: &[u32], source: Option<&str>, log: &mut String) -> Result<Vec<u8>, BuildError> {
    let compiled = match source {
        Some(src) => super::compile_spirv_from_source(spirv, src),
        None => compile_spirv(spirv),
    };
    match compiled {
        Ok(c) => {
            if super::env::CompilerEnv::get().dump_asm {
                eprintln!("{}", c.listing);
            }
            warnings_to_log(&c, log);
            Ok(c.elf)
        }
        Err(e) => {
            log.push_str(&e.to_string());
            log.push('\n');
            Err(BuildError::Failed)
        }
    }
}

/// Environment settings that change generated code (part of the cache key).
fn codegen_mode() -> &'static [u8] {
    if super::env::CompilerEnv::get().inline_subroutines {
        b"inline-subroutines"
    } else {
        b""
    }
}

/// A cached source build: the files the preprocessor read (with a hash of their contents when
/// the build ran), the log and the ELF.
struct CachedBuild {
    deps: Vec<(PathBuf, String)>,
    log: String,
    elf: Vec<u8>,
}

/// The largest file the cache hashes to check a build's dependencies: the largest header a build
/// may include (a larger one, or anything but a regular file — a device such as `/dev/zero`, a
/// FIFO — makes the build uncacheable instead of being read on the application's behalf).
const MAX_DEPENDENCY_BYTES: u64 = super::includes::MAX_HEADER_BYTES;

fn file_hash(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_DEPENDENCY_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    // Bounded even if the file grows between the two calls.
    std::fs::File::open(path).ok()?.take(MAX_DEPENDENCY_BYTES + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= MAX_DEPENDENCY_BYTES).then(|| cache::key(&[&bytes]))
}

impl CachedBuild {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut field = |b: &[u8]| {
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        };
        field(&(self.deps.len() as u64).to_le_bytes());
        for (p, h) in &self.deps {
            field(p.as_os_str().as_encoded_bytes());
            field(h.as_bytes());
        }
        field(self.log.as_bytes());
        field(&self.elf);
        out
    }

    fn decode(mut b: &[u8]) -> Option<CachedBuild> {
        let mut field = || -> Option<Vec<u8>> {
            let n = u64::from_le_bytes(b.get(..8)?.try_into().ok()?) as usize;
            let v = b.get(8..8usize.checked_add(n)?)?.to_vec();
            b = &b[8 + n..];
            Some(v)
        };
        let count = u64::from_le_bytes(field()?.try_into().ok()?) as usize;
        let mut deps = Vec::new();
        for _ in 0..count {
            let p = PathBuf::from(String::from_utf8(field()?).ok()?);
            deps.push((p, String::from_utf8(field()?).ok()?));
        }
        let log = String::from_utf8(field()?).ok()?;
        let elf = field()?;
        Some(CachedBuild { deps, log, elf })
    }

    /// Every file the build read still has the contents it had.
    fn fresh(&self) -> bool {
        self.deps.iter().all(|(p, h)| file_hash(p).as_deref() == Some(h.as_str()))
    }
}

/// OpenCL C → Ventus ELF. `headers` are embedded headers (include name, text) as for
/// [`compile_source`].
pub fn build_source(source: &str, opts: &FrontOptions, headers: &[(String, String)]) -> BuildOutput {
    let tc = match Toolchain::discover() {
        Ok(t) => t,
        Err(e) => return failed(format!("error: {e}\n")),
    };
    // Relative include paths and `#include "x.h"` of the source resolve in the current directory.
    let cwd = std::env::current_dir().unwrap_or_default();
    let key = cache::key(&[
        b"source",
        source.as_bytes(),
        opts.key().as_bytes(),
        cwd.as_os_str().as_encoded_bytes(),
        tc.version.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
        crate::compiler::BACKEND_REVISION.as_bytes(),
        codegen_mode(),
    ]);
    // Embedded headers live in a temporary directory: such builds are not cached.
    let cacheable = headers.is_empty();
    if cacheable {
        if let Some(hit) = cache::get("build", &key).and_then(|b| CachedBuild::decode(&b)).filter(CachedBuild::fresh) {
            return BuildOutput { result: Ok(hit.elf), log: hit.log };
        }
    }
    let dir = match header_dir(headers) {
        Ok(d) => d,
        Err(e) => return failed(format!("error: cannot write the embedded headers: {e}\n")),
    };
    let front = tc.compile(source, opts, dir.as_deref());
    if let Some(d) = dir {
        let _ = std::fs::remove_dir_all(d);
    }
    let front = match front {
        Ok(f) => f,
        Err((e, mut log)) => {
            if !matches!(e, ToolError::CompileFailed) {
                log.push_str(&format!("error: {e}\n"));
            }
            return failed(log);
        }
    };
    let mut log = front.log.clone();
    let result = back_end(&front.spirv, Some(source), &mut log);
    if let (Ok(elf), true) = (&result, cacheable) {
        // A dependency that cannot be read now cannot be checked later: no entry.
        let deps: Option<Vec<(PathBuf, String)>> =
            front.deps.iter().map(|p| Some((cwd.join(p), file_hash(&cwd.join(p))?))).collect();
        if let Some(deps) = deps {
            cache::put("build", &key, &CachedBuild { deps, log: log.clone(), elf: elf.clone() }.encode());
        }
    }
    BuildOutput { result, log }
}

/// OpenCL C → SPIR-V only (`clCompileProgram`).
pub fn compile_source(source: &str, opts: &FrontOptions, headers: &[(String, String)]) -> CompileOutput {
    let fail = |log| CompileOutput { spirv: None, log };
    let tc = match Toolchain::discover() {
        Ok(t) => t,
        Err(e) => return fail(format!("error: {e}\n")),
    };
    let dir = match header_dir(headers) {
        Ok(d) => d,
        Err(e) => return fail(format!("error: cannot write the embedded headers: {e}\n")),
    };
    let front = tc.compile(source, opts, dir.as_deref());
    if let Some(d) = dir {
        let _ = std::fs::remove_dir_all(d);
    }
    match front {
        Ok(f) => {
            // Check that the back end accepts the module, so errors surface at compile time.
            let mut log = f.log.clone();
            match check_object(&f.spirv) {
                Ok(()) => CompileOutput { spirv: Some(f.spirv), log },
                Err(e) => {
                    log.push_str(&format!("{e}\n"));
                    fail(log)
                }
            }
        }
        Err((e, mut log)) => {
            if !matches!(e, ToolError::CompileFailed) {
                log.push_str(&format!("error: {e}\n"));
            }
            fail(log)
        }
    }
}

/// Whether `words` is a compiled object the back end accepts (calls to functions, and uses of
/// `extern` variables, of other objects may be unresolved: `clLinkProgram` resolves them).
pub fn check_object(words: &[u32]) -> Result<(), CompileError> {
    // Malformed input must never take the application down (see `compile_spirv_modules`).
    match std::panic::catch_unwind(|| super::spirv::lower_module(words)) {
        Ok(Ok(_)) | Ok(Err(CompileError::Unresolved(_))) => Ok(()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(CompileError::Internal("the compiler stopped on this module".into())),
    }
}

/// SPIR-V → Ventus ELF (`clCreateProgramWithIL`, or linking one compiled object).
pub fn build_spirv(spirv: &[u32]) -> BuildOutput {
    let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    let key = cache::key(&[
        b"spirv",
        &bytes,
        env!("CARGO_PKG_VERSION").as_bytes(),
        crate::compiler::BACKEND_REVISION.as_bytes(),
        codegen_mode(),
    ]);
    if let Some(elf) = cache::get("elf", &key) {
        return BuildOutput { result: Ok(elf), log: String::new() };
    }
    let mut log = String::new();
    let result = back_end(spirv, None, &mut log);
    if let Ok(elf) = &result {
        cache::put("elf", &key, elf);
    }
    BuildOutput { result, log }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Failed => write!(f, "build failed"),
        }
    }
}
impl std::error::Error for BuildError {}

/// Maps a back-end error for callers that want the enum.
pub fn describe(e: &CompileError) -> String {
    e.to_string()
}

/// Several compiled objects → one Ventus ELF (functions imported by one module are taken from
/// the module that exports them).
pub fn build_spirv_modules(modules: &[Vec<u32>]) -> BuildOutput {
    if let [one] = modules {
        return build_spirv(one);
    }
    let mut log = String::new();
    let result = match super::compile_spirv_modules(modules) {
        Ok(c) => {
            warnings_to_log(&c, &mut log);
            Ok(c.elf)
        }
        Err(e) => {
            log.push_str(&format!("{e}\n"));
            Err(BuildError::Failed)
        }
    };
    BuildOutput { result, log }
}

// ---- Specialization constants -------------------------------------------------------------

const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The words of a SPIR-V module in host order (either byte order in `bytes`), or `None` if the
/// bytes are not a SPIR-V module (too short, not whole words, wrong magic number).
pub fn spirv_words(bytes: &[u8]) -> Option<Vec<u32>> {
    if bytes.len() < 20 || bytes.len() % 4 != 0 {
        return None;
    }
    let le: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    match le[0] {
        SPIRV_MAGIC => Some(le),
        m if m.swap_bytes() == SPIRV_MAGIC => Some(le.into_iter().map(u32::swap_bytes).collect()),
        _ => None,
    }
}

/// One instruction: its word offset, opcode (`None` if unknown) and operand words.
type Inst<'a> = (usize, Option<Op>, &'a [u32]);

/// The instructions of a module after its header.
fn instructions(words: &[u32]) -> Result<Vec<Inst<'_>>, String> {
    if words.len() < 5 || words[0] != SPIRV_MAGIC {
        return Err("not a SPIR-V module".into());
    }
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(format!("the instruction at word {at} (word count {count}) runs past the end of the module"));
        }
        out.push((at, Op::from_u32(words[at] & 0xffff), &words[at + 1..at + count]));
        at += count;
    }
    Ok(out)
}

/// The scalar type of a specialization constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SpecType {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

impl SpecType {
    /// `spec_size` of `clSetProgramSpecializationConstant`: 1 for booleans.
    fn size(self) -> u32 {
        match self {
            SpecType::Bool => 1,
            SpecType::Int { width, .. } | SpecType::Float { width } => width.div_ceil(8),
        }
    }
}

/// Specialization constants of a module: `SpecId` → (result id, type).
fn spec_table(words: &[u32]) -> Result<BTreeMap<u32, (u32, SpecType)>, String> {
    let insts = instructions(words)?;
    let (mut spec_ids, mut types, mut constants) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for (_, op, w) in &insts {
        match (op, *w) {
            (Some(Op::Decorate), [target, d, id, ..]) if *d == Decoration::SpecId as u32 => {
                spec_ids.insert(*target, *id);
            }
            (Some(Op::TypeBool), [result, ..]) => {
                types.insert(*result, SpecType::Bool);
            }
            (Some(Op::TypeInt), [result, width, signed, ..]) => {
                types.insert(*result, SpecType::Int { width: *width, signed: *signed != 0 });
            }
            (Some(Op::TypeFloat), [result, width, ..]) => {
                types.insert(*result, SpecType::Float { width: *width });
            }
            (Some(Op::SpecConstantTrue | Op::SpecConstantFalse | Op::SpecConstant), [ty, result, ..]) => {
                constants.insert(*result, *ty);
            }
            _ => {}
        }
    }
    spec_ids
        .into_iter()
        .filter_map(|(target, id)| {
            let ty = *constants.get(&target)?;
            Some(
                types
                    .get(&ty)
                    .map(|t| (id, (target, *t)))
                    .ok_or_else(|| format!("spec constant %{target} has no scalar type")),
            )
        })
        .collect()
}

/// Specialization constants of a module: `SpecId` → size in bytes of the constant's type (1 for
/// booleans), for `clSetProgramSpecializationConstant`.
pub fn spec_constants(words: &[u32]) -> Result<BTreeMap<u32, u32>, String> {
    Ok(spec_table(words)?.into_iter().map(|(id, (_, ty))| (id, ty.size())).collect())
}

/// The module with the specialization constants whose `SpecId` is in `values` set to those
/// values (host byte order, sized as [`spec_constants`] says): `OpSpecConstantTrue`/`False`
/// take the boolean, `OpSpecConstant` the literal. Dependent `OpSpecConstantOp`s and
/// composites follow, since they refer to the constants by id.
pub fn specialize(words: &[u32], values: &BTreeMap<u32, Vec<u8>>) -> Result<Vec<u32>, String> {
    if values.is_empty() {
        return Ok(words.to_vec());
    }
    let table = spec_table(words)?;
    // Result id → new value.
    let mut by_target = BTreeMap::new();
    for (id, v) in values {
        let Some(&(target, ty)) = table.get(id) else { return Err(format!("no specialization constant {id}")) };
        if v.len() != ty.size() as usize {
            return Err(format!("specialization constant {id} takes {} bytes, not {}", ty.size(), v.len()));
        }
        by_target.insert(target, (ty, v.as_slice()));
    }
    let mut out = words.to_vec();
    for (at, op, w) in instructions(words)? {
        let (Some(op @ (Op::SpecConstantTrue | Op::SpecConstantFalse | Op::SpecConstant)), [_, result, literal @ ..]) =
            (op, w)
        else {
            continue;
        };
        let Some(&(ty, v)) = by_target.get(result) else { continue };
        match (op, ty) {
            (Op::SpecConstantTrue | Op::SpecConstantFalse, SpecType::Bool) => {
                let op = if v[0] != 0 { Op::SpecConstantTrue } else { Op::SpecConstantFalse };
                out[at] = (out[at] & 0xffff_0000) | op as u32;
            }
            (Op::SpecConstant, SpecType::Int { width, .. } | SpecType::Float { width }) => {
                let mut bytes = [0u8; 8];
                bytes[..v.len()].copy_from_slice(v);
                let mut value = u64::from_ne_bytes(bytes);
                if cfg!(target_endian = "big") {
                    value >>= 64 - 8 * v.len();
                }
                // Narrow signed integers are sign-extended in their literal word.
                if let SpecType::Int { width: w @ 1..=31, signed: true } = ty {
                    value = (((value as i64) << (64 - w)) >> (64 - w)) as u64 & 0xffff_ffff;
                }
                let need = if width > 32 { 2 } else { 1 };
                if literal.len() != need {
                    return Err(format!(
                        "spec constant %{result}: {} literal words for a {width}-bit type",
                        literal.len()
                    ));
                }
                out[at + 3] = value as u32;
                if need == 2 {
                    out[at + 4] = (value >> 32) as u32;
                }
            }
            _ => return Err(format!("spec constant %{result}: its instruction does not match its type")),
        }
    }
    Ok(out)
}

/// `OpExecutionMode` `DenormFlushToZero` and its capability and extension (SPV_KHR_float_controls).
const DENORM_FLUSH_TO_ZERO: u32 = 4460;
const CAPABILITY_DENORM_FLUSH_TO_ZERO: u32 = 4464;
const FLOAT_CONTROLS: &str = "SPV_KHR_float_controls";

/// The words of a SPIR-V literal string (NUL-terminated, padded to whole words).
fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.resize((bytes.len() / 4 + 1) * 4, 0);
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The module with every kernel asking for single-precision denormals to be flushed to zero
/// (`OpExecutionMode %k DenormFlushToZero 32`, with its capability and extension): how
/// `-cl-denorms-are-zero` reaches the back end (`spirv/denormals.rs`), whether
/// the module came from source, IL or compiled objects. Idempotent.
pub fn flush_denormals(words: &[u32]) -> Result<Vec<u32>, String> {
    let insts = instructions(words)?;
    let (mut has_cap, mut has_ext, mut after_caps, mut after_exts, mut after_entries) = (false, false, 5, None, None);
    let (mut entries, mut flushed) = (Vec::new(), Vec::new());
    for &(at, op, w) in &insts {
        let end = at + w.len() + 1;
        match (op, w) {
            (Some(Op::Capability), [c]) => {
                has_cap |= *c == CAPABILITY_DENORM_FLUSH_TO_ZERO;
                after_caps = end;
            }
            (Some(Op::Extension), _) => {
                has_ext |= w == string_words(FLOAT_CONTROLS).as_slice();
                after_exts = Some(end);
            }
            (Some(Op::EntryPoint), [_, f, ..]) => {
                entries.push(*f);
                after_entries = Some(end);
            }
            (Some(Op::ExecutionMode), [f, DENORM_FLUSH_TO_ZERO, 32, ..]) => flushed.push(*f),
            _ => {}
        }
    }
    let Some(after_entries) = after_entries else { return Ok(words.to_vec()) };
    let after_exts = after_exts.unwrap_or(after_caps);
    let mut cap = Vec::new();
    if !has_cap {
        cap.extend([(2 << 16) | Op::Capability as u32, CAPABILITY_DENORM_FLUSH_TO_ZERO]);
    }
    let mut ext = Vec::new();
    if !has_ext {
        let name = string_words(FLOAT_CONTROLS);
        ext.push(((1 + name.len() as u32) << 16) | Op::Extension as u32);
        ext.extend(name);
    }
    let modes: Vec<u32> = entries
        .iter()
        .filter(|f| !flushed.contains(f))
        .flat_map(|&f| [(4 << 16) | Op::ExecutionMode as u32, f, DENORM_FLUSH_TO_ZERO, 32])
        .collect();
    let mut out = Vec::with_capacity(words.len() + cap.len() + ext.len() + modes.len());
    out.extend_from_slice(&words[..after_caps]);
    out.extend(cap);
    out.extend_from_slice(&words[after_caps..after_exts]);
    out.extend(ext);
    out.extend_from_slice(&words[after_exts..after_entries]);
    out.extend(modes);
    out.extend_from_slice(&words[after_entries..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Header, OpTypeInt %1 32 0, OpTypeBool %2, OpSpecConstant %1 %3 7, OpSpecConstantTrue %2 %4,
    /// OpTypeInt %5 64 0, OpSpecConstant %5 %6 1 0, OpDecorate %3 SpecId 5, OpDecorate %4 SpecId
    /// 9, OpDecorate %6 SpecId 11.
    fn module() -> Vec<u32> {
        let op = |n: u32, op: Op| (n << 16) | op as u32;
        vec![
            SPIRV_MAGIC,
            0x0001_0000,
            0,
            10,
            0,
            op(4, Op::TypeInt),
            1,
            32,
            0,
            op(2, Op::TypeBool),
            2,
            op(4, Op::SpecConstant),
            1,
            3,
            7,
            op(3, Op::SpecConstantTrue),
            2,
            4,
            op(4, Op::TypeInt),
            5,
            64,
            0,
            op(5, Op::SpecConstant),
            5,
            6,
            1,
            0,
            op(4, Op::Decorate),
            3,
            Decoration::SpecId as u32,
            5,
            op(4, Op::Decorate),
            4,
            Decoration::SpecId as u32,
            9,
            op(4, Op::Decorate),
            6,
            Decoration::SpecId as u32,
            11,
        ]
    }

    #[test]
    fn spirv_specialization_constants() {
        let words = module();
        let le: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(spirv_words(&le).as_ref(), Some(&words));
        assert_eq!(spirv_words(&be).as_ref(), Some(&words));
        assert_eq!(spirv_words(b"not spir-v at all!!!"), None);
        let want: BTreeMap<u32, u32> = [(5, 4), (9, 1), (11, 8)].into_iter().collect();
        assert_eq!(spec_constants(&words), Ok(want));
        assert!(spec_constants(&words[..words.len() - 1]).is_err());
    }

    #[test]
    fn specialization_rewrites_the_literals() {
        let words = module();
        let values: BTreeMap<u32, Vec<u8>> =
            [(5, 1234u32.to_ne_bytes().to_vec()), (9, vec![0]), (11, 0x1_0000_0002u64.to_ne_bytes().to_vec())]
                .into_iter()
                .collect();
        let s = specialize(&words, &values).unwrap();
        assert_eq!(s[14], 1234);
        assert_eq!(s[15] & 0xffff, Op::SpecConstantFalse as u32);
        assert_eq!((s[25], s[26]), (2, 1));
        assert_eq!(s.len(), words.len());
        assert_eq!(specialize(&words, &BTreeMap::new()).unwrap(), words);
        let bad: BTreeMap<u32, Vec<u8>> = [(5, vec![1])].into_iter().collect();
        assert!(specialize(&words, &bad).is_err());
    }
}
