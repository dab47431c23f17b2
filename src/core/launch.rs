//! launch (skeleton).
