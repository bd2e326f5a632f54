//! f32 -> bf16 rounding with AVX512_BF16's `vcvtneps2bf16` where the CPU has it (Intel from
//! Sapphire Rapids, AMD from Zen 4): one instruction per 16 lanes instead of the portable
//! rounding's ~8 integer operations and a truncating store (bf16 `neg` at 64K elements was
//! 2.3x f16's time, which has its conversion instructions).
//!
//! The same bits as `f32_to_bf16_bits` (`half`'s rounding: nearest even, overflow to
//! infinity, a NaN truncated and made quiet), except that the instruction treats f32
//! subnormal inputs as zero: a vector holding one (`vfpclassps`) takes the portable rounding.
//! `tests/kernel_paths.rs` compares every op on halves under each ISA cap, and
//! `tests/half_blocks.rs` the conversions on all f32 bit classes.

#[cfg(target_arch = "x86_64")]
use super::isa::{VectorIsa, vector_isa};

/// Whether [`narrow`] may run: the AVX-512 loops are in use (within `limit_vector_isa`'s cap)
/// and the CPU has AVX512_BF16.
#[inline]
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        vector_isa() == VectorIsa::Avx512 && std::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `dst[i] = f32_to_bf16_bits(src[i])` for whole vectors of 16: the count done (the caller
/// rounds the rest). Inlined into callers compiled with AVX-512 F/DQ and AVX512_BF16, where
/// the intrinsics inline (a `#[target_feature]` function would stay a call).
///
/// # Safety
/// `src` valid for `n` reads and `dst` for `n` writes (they may not overlap); the CPU has
/// the features (`available()`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn narrow(src: *const f32, dst: *mut u16, n: usize) -> usize {
    use super::half_blocks::f32_to_bf16_bits;
    use core::arch::x86_64::*;
    /// `vfpclassps` category: subnormal.
    const SUBNORMAL: i32 = 0x20;
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: elements i .. i + 16 of both (the contract); the features (the contract).
        unsafe {
            let v = _mm512_loadu_ps(src.add(i));
            if _mm512_fpclass_ps_mask::<SUBNORMAL>(v) == 0 {
                let r: __m256i = core::mem::transmute(_mm512_cvtneps_pbh(v));
                _mm256_storeu_si256(dst.add(i) as *mut __m256i, r);
            } else {
                for j in i..i + 16 {
                    dst.add(j).write(f32_to_bf16_bits(src.add(j).read()));
                }
            }
        }
        i += 16;
    }
    i
}

/// [`narrow`] over the whole vectors of a run where the CPU allows (the block path's
/// unit-stride stores): the count done, 0 without AVX512_BF16.
///
/// # Safety
/// `src` valid for `n` reads and `dst` for `n` writes; they may not overlap.
pub(super) unsafe fn narrow_prefix(src: *const f32, dst: *mut u16, n: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: the caller's contract; the features (checked).
        return unsafe { narrow_run(src, dst, n) };
    }
    let _ = (src, dst, n);
    0
}

/// [`narrow`] compiled as a function of its own.
///
/// # Safety
/// As [`narrow`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512bf16")]
unsafe fn narrow_run(src: *const f32, dst: *mut u16, n: usize) -> usize {
    // SAFETY: the caller's contract.
    unsafe { narrow(src, dst, n) }
}
