//! Text assembler (placeholder until the assembler lands).
