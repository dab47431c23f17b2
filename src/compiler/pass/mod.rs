//! IR passes, one concept per file. The pipeline (see [`run`]): simplify the CFG, lower work-item
//! functions, fold and clean up, then the SIMT analyses the back end needs (uniformity,
//! reconvergence points).

pub mod cfg;
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
    simplify::merge_blocks(f);
    super::ir::verify::verify(f).map_err(|e| CompileError::Internal(e.0))?;
    Ok(())
}
