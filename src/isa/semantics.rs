//! Pure per-lane semantics (filled in with the emulator).
