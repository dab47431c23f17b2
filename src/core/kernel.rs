//! kernel (skeleton).
