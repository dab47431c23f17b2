//! Ventus emulator.
