//! Host vector extensions the interpreter is specialised for.
//!
//! The interpreter (a warp's turn loop) exists in two compiled copies: the baseline x86-64
//! one and one built with AVX2, FMA and the bit-manipulation extensions (`turn::turn_avx2`),
//! chosen per work-group by [`host_has_avx2`] unless
//! [`RunOptions::baseline_interpreter`] (`VENTUS_SIMD=0`) asks for the baseline. Both copies compute identical results — every lane operation is an
//! integer operation or an exactly rounded IEEE-754 one — so the choice changes speed only; the
//! emulator tests run every program through both and compare.
//!
//! [`RunOptions::baseline_interpreter`]: super::RunOptions::baseline_interpreter

/// Whether the host CPU has AVX2, FMA, POPCNT, LZCNT, BMI1 and BMI2 (detected once).
#[cfg(target_arch = "x86_64")]
pub fn host_has_avx2() -> bool {
    use once_cell::sync::Lazy;
    static HAS: Lazy<bool> = Lazy::new(|| {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
    });
    *HAS
}
