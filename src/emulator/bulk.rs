//! 32-word copies between device memory and a vector register, for a full warp's unit-stride
//! word access ([`MemView::unit_stride`](super::memory::MemView::unit_stride)).
//!
//! Device memory is shared with the other emulator threads (work-groups run concurrently) and
//! with the host, so every access to it is atomic; a loop of 32 relaxed word loads or stores,
//! though, compiles to 32 scalar moves whose results the next instruction reads back as 256-bit
//! vectors (a store-forwarding stall per vector), and a unit-stride load took 17 ns of which
//! the copy alone was 5. On x86-64 the copy is an `asm!` block of 128-bit moves instead: to the
//! language an opaque access of the same words (no data race in Rust's sense: what the block
//! does to memory is what the machine does, and the other threads use atomics), and to the
//! machine each naturally aligned word inside one of its accesses moves in one piece, as a
//! relaxed atomic word access would (no word crosses a cache line: all are 4-byte aligned).
//! Elsewhere the relaxed-atomic loop stays.
//!
//! Contract: `words` holds the 32 words, in lane order; the functions move exactly those 128
//! bytes and nothing else.

use std::sync::atomic::AtomicU32;
#[cfg(not(target_arch = "x86_64"))]
use std::sync::atomic::Ordering::Relaxed;

/// Copies the 32 words of device memory `words` into `reg` (lane `i` ← `words[i]`); `wide`:
/// in 256-bit moves (only when the host has AVX, see [`MemView`](super::memory::MemView)).
#[inline(always)]
pub fn load32(words: &[AtomicU32; 32], reg: &mut [u32; 32], wide: bool) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `words` is 128 readable bytes (borrowed shared: nothing but atomics and this
    // opaque block touch them) and `reg` 128 writable bytes borrowed exclusively; the two
    // cannot overlap (device memory is never a register file).
    unsafe {
        copy128(words.as_ptr().cast(), reg.as_mut_ptr().cast(), wide)
    };
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = wide;
        for (r, w) in reg.iter_mut().zip(words) {
            *r = w.load(Relaxed);
        }
    }
}

/// Copies `reg` into the 32 words of device memory `words` (`words[i]` ← lane `i`); `wide` as
/// for [`load32`].
#[inline(always)]
pub fn store32(reg: &[u32; 32], words: &[AtomicU32; 32], wide: bool) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `load32`, with the directions swapped (an atomic's value may change through
    // a shared reference: `AtomicU32` is an `UnsafeCell`).
    unsafe {
        copy128(reg.as_ptr().cast(), words.as_ptr() as *mut u8, wide)
    };
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = wide;
        for (w, r) in words.iter().zip(reg) {
            w.store(*r, Relaxed);
        }
    }
}

/// Moves 128 bytes from `src` to `dst` in one `asm!` block: four 256-bit moves when `wide`,
/// else eight 128-bit ones (SSE2, part of the x86-64 baseline).
///
/// # Safety
/// `src` is readable and `dst` writable for 128 bytes, the two do not overlap, and `wide` only
/// when the host has AVX. The block touches nothing else, uses no stack, keeps the flags and
/// declares xmm0–xmm3 clobbered (which clobbers ymm0–ymm3 whole: the compiler knows each pair
/// as one register).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy128(src: *const u8, dst: *mut u8, wide: bool) {
    // One operand list for both templates: `s`, `d` and the four clobbered registers.
    macro_rules! moves {
        ($($line:literal),* $(,)?) => {
            std::arch::asm!(
                $($line,)*
                s = in(reg) src,
                d = in(reg) dst,
                out("xmm0") _,
                out("xmm1") _,
                out("xmm2") _,
                out("xmm3") _,
                options(nostack, preserves_flags),
            )
        };
    }
    // SAFETY: the caller's contract above.
    unsafe {
        if wide {
            moves!(
                "vmovdqu ymm0, ymmword ptr [{s}]",
                "vmovdqu ymm1, ymmword ptr [{s} + 32]",
                "vmovdqu ymm2, ymmword ptr [{s} + 64]",
                "vmovdqu ymm3, ymmword ptr [{s} + 96]",
                "vmovdqu ymmword ptr [{d}], ymm0",
                "vmovdqu ymmword ptr [{d} + 32], ymm1",
                "vmovdqu ymmword ptr [{d} + 64], ymm2",
                "vmovdqu ymmword ptr [{d} + 96], ymm3",
            );
        } else {
            moves!(
                "movdqu xmm0, xmmword ptr [{s}]",
                "movdqu xmm1, xmmword ptr [{s} + 16]",
                "movdqu xmm2, xmmword ptr [{s} + 32]",
                "movdqu xmm3, xmmword ptr [{s} + 48]",
                "movdqu xmmword ptr [{d}], xmm0",
                "movdqu xmmword ptr [{d} + 16], xmm1",
                "movdqu xmmword ptr [{d} + 32], xmm2",
                "movdqu xmmword ptr [{d} + 48], xmm3",
                "movdqu xmm0, xmmword ptr [{s} + 64]",
                "movdqu xmm1, xmmword ptr [{s} + 80]",
                "movdqu xmm2, xmmword ptr [{s} + 96]",
                "movdqu xmm3, xmmword ptr [{s} + 112]",
                "movdqu xmmword ptr [{d} + 64], xmm0",
                "movdqu xmmword ptr [{d} + 80], xmm1",
                "movdqu xmmword ptr [{d} + 96], xmm2",
                "movdqu xmmword ptr [{d} + 112], xmm3",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn copies_move_exactly_the_32_words_in_lane_order() {
        #[cfg(target_arch = "x86_64")]
        let widths = if crate::emulator::simd::host_has_avx2() { vec![false, true] } else { vec![false] };
        #[cfg(not(target_arch = "x86_64"))]
        let widths = vec![false];
        for wide in widths {
            let mem: Vec<AtomicU32> = (0..40u32).map(|i| AtomicU32::new(i * 0x0101_0101)).collect();
            let words: &[AtomicU32; 32] = mem[3..35].try_into().unwrap();
            let mut reg = [0xdead_beef_u32; 32];
            load32(words, &mut reg, wide);
            assert!(reg.iter().enumerate().all(|(i, &v)| v == (i as u32 + 3) * 0x0101_0101), "wide {wide}");
            let values: [u32; 32] = std::array::from_fn(|i| 0x8000_0000 | i as u32);
            store32(&values, words, wide);
            for (i, w) in mem.iter().enumerate() {
                let want = if (3..35).contains(&i) { 0x8000_0000 | (i as u32 - 3) } else { i as u32 * 0x0101_0101 };
                assert_eq!(w.load(Relaxed), want, "word {i}, wide {wide}");
            }
        }
    }
}
