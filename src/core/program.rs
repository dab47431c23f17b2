//! program (skeleton).
