//! Launch parameters (placeholder).
