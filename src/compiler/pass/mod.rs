//! IR passes, one concept per file. The pipeline (see [`run`]): simplify the CFG, lower work-item
//! functions, fold and clean up, promote private slots to SSA ([`mem2reg`]), narrow 64-bit index
//! arithmetic to 32 bits ([`narrow64`]), reassociate address
//! arithmetic ([`reassoc`]), merge common subexpressions ([`cse`]), then the SIMT analyses the back end needs (uniformity,
//! reconvergence points).

pub mod cfg;
pub mod cse;
pub mod generic;
pub mod half;
pub mod legalize64;
pub mod mem2reg;
pub mod narrow64;
pub mod provenance;
pub mod reassoc;
pub mod simplify;
pub mod split_edges;
pub mod uniformity;
pub mod workitems;

use super::ir::Func;
use super::CompileError;

/// Runs the machine-independent pipeline on a kernel.
pub fn run(f: &mut Func) -> Result<(), CompileError> {
    simplify::unreachable_to_return(f);
    workitems::lower(f);
    simplify::fold(f);
    simplify::dce(f);
    if !crate::compiler::env::CompilerEnv::get().no_mem2reg && mem2reg::promote(f) {
        super::ir::verify::verify(f).map_err(|e| CompileError::Internal(format!("after mem2reg: {}", e.0)))?;
        simplify::fold(f);
        simplify::dce(f);
    }
    // Half arithmetic kept in floats, its conversions expanded (nothing later sees them).
    if half::run(f) {
        simplify::fold(f);
        simplify::dce(f);
        super::ir::verify::verify(f).map_err(|e| CompileError::Internal(format!("after half: {}", e.0)))?;
    }
    // `spir64` index arithmetic back to 32 bits before the address passes look at it.
    narrow(f)?;
    simplify::merge_blocks(f);
    if reassoc::run(f) {
        simplify::fold(f);
        simplify::dce(f);
    }
    if cse::run(f) {
        simplify::fold(f);
        simplify::dce(f);
    }
    super::ir::verify::verify(f).map_err(|e| CompileError::Internal(e.0))?;
    Ok(())
}

/// Narrows 64-bit arithmetic whose upper half nothing reads ([`narrow64`]), rewrites the rest
/// into 32-bit pairs ([`legalize64`]) and cleans up the result.
pub fn legalize(f: &mut Func) -> Result<(), CompileError> {
    if !f.types.contains(&super::ir::Ty::I64) {
        return Ok(());
    }
    narrow(f)?;
    legalize64::legalize(f)?;
    simplify::fold(f);
    simplify::dce(f);
    if cse::run(f) {
        simplify::fold(f);
        simplify::dce(f);
    }
    // 64-bit accesses to private slots (e.g. a `long` field of a by-value struct argument) are
    // 32-bit now, so those slots may have become promotable.
    if !crate::compiler::env::CompilerEnv::get().no_mem2reg && mem2reg::promote(f) {
        super::ir::verify::verify(f).map_err(|e| CompileError::Internal(format!("after mem2reg: {}", e.0)))?;
        simplify::fold(f);
        simplify::dce(f);
    }
    super::ir::verify::verify(f).map_err(|e| CompileError::Internal(e.0))?;
    Ok(())
}

/// [`narrow64`] and its clean-up.
fn narrow(f: &mut Func) -> Result<(), CompileError> {
    if narrow64::run(f) {
        simplify::fold(f);
        simplify::dce(f);
        super::ir::verify::verify(f).map_err(|e| CompileError::Internal(format!("after narrow64: {}", e.0)))?;
    }
    Ok(())
}

/// Resolves generic pointers ([`generic`]; after [`legalize`]: every access is 32-bit) and
/// cleans up the result.
pub fn resolve_generic(f: &mut Func) -> Result<(), CompileError> {
    if generic::run(f) {
        simplify::fold(f);
        simplify::dce(f);
        if cse::run(f) {
            simplify::fold(f);
            simplify::dce(f);
        }
        super::ir::verify::verify(f).map_err(|e| CompileError::Internal(format!("after generic: {}", e.0)))?;
    }
    Ok(())
}
