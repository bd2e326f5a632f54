//! f32 and f64 square roots on AVX-512 without the square-root unit: `vrsqrt14` (a 14-bit
//! estimate of `1/sqrt(a)`) refined by Newton steps in fused multiply-adds, the same bits as
//! `sqrtps`/`sqrtpd` (correctly rounded). The divide/sqrt unit takes ~4 ns per 16 f32 lanes and
//! ~8 ns per 8 f64 lanes on the Sapphire Rapids class VM of BENCHMARKS.md; the FMA form runs at
//! the L2 bandwidth (64K-element f32 sqrt 1.7x, f64 3x PyTorch's time before, whose MKL `vsSqrt`
//! does the same). f64 sends every third vector to `vsqrtpd`, whose unit runs beside the FMA
//! ports (`sqrt_f64`).
//!
//! Why the bits are the hardware's:
//! - f32: the estimate, one coupled Newton step (`s ~ sqrt(a)`, `h ~ 1/(2 sqrt(a))`) and
//!   Markstein's final step `s + h (a - s s)` give the correctly rounded root for every f32 in
//!   [`F32_LOW`, `f32::MAX`], checked against `sqrtps` on all of them
//!   (`tests/kernel_paths.rs`, ignored test `sqrt_f32_exhaustive`; below `F32_LOW` the
//!   residual `a - s s` loses bits to underflow, and it does fail there).
//! - f64: two Newton steps, Markstein's final step (within an ulp of the root), then
//!   Tuckerman's test, which makes any result within an ulp the correctly rounded one: `r` is
//!   too small iff `a > r * next_up(r)` and too large iff `a <= r * next_down(r)`, each
//!   product minus `a` taken in one fused (exact, then rounded) operation whose sign is that of
//!   the exact difference (no underflow to zero for `a >= F64_LOW`). Sampled against `sqrtpd`
//!   in `tests/kernel_paths.rs` (random inputs, perfect squares and midpoints, binade edges).
//! - Zero, subnormal, tiny, negative, infinite and NaN inputs: a vector holding one takes
//!   `sqrtps`/`sqrtpd` for its lanes outside the range.

#[cfg(target_arch = "x86_64")]
use super::isa::{VectorIsa, vector_isa};
use crate::dtype::DType;

/// The least f32 the Newton form serves: 2^-100.
pub(super) const F32_LOW: f32 = f32::from_bits((127 - 100) << 23);
/// The least f64 the Newton form serves: 2^-960.
pub(super) const F64_LOW: f64 = f64::from_bits((1023 - 960) << 52);

/// `dst[i] = sqrt(src[i])` for `i < n` elements of `dtype` (f32 or f64) where the AVX-512
/// loops are in use: `true` when done, `false` (nothing written) otherwise.
///
/// # Safety
/// `src` valid for `n` reads and `dst` for `n` writes of `dtype`'s type; they are equal or do
/// not overlap.
pub(super) unsafe fn sqrt(dtype: DType, src: *const u8, dst: *mut u8, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if vector_isa() == VectorIsa::Avx512 {
        // SAFETY: (both) the caller's contract, for the type `dtype` names; AVX-512 F/DQ/VL
        // and FMA are present (`vector_isa`).
        unsafe {
            match dtype {
                DType::F32 => avx512::sqrt_f32(src.cast(), dst.cast(), n),
                DType::F64 => avx512::sqrt_f64(src.cast(), dst.cast(), n),
                _ => return false,
            }
        }
        return true;
    }
    let _ = (dtype, src, dst, n);
    false
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{F32_LOW, F64_LOW};
    use core::arch::x86_64::*;

    /// `sqrt` of 16 f32 lanes, Newton form where every lane is in [`F32_LOW`, `f32::MAX`].
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    #[inline]
    fn root16(a: __m512) -> __m512 {
        let in_range = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(a, _mm512_set1_ps(F32_LOW))
            & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(a, _mm512_set1_ps(f32::MAX));
        let half = _mm512_set1_ps(0.5);
        let y = _mm512_rsqrt14_ps(a);
        let (mut s, mut h) = (_mm512_mul_ps(a, y), _mm512_mul_ps(half, y));
        let d = _mm512_fnmadd_ps(s, h, half);
        s = _mm512_fmadd_ps(s, d, s);
        h = _mm512_fmadd_ps(h, d, h);
        let s = _mm512_fmadd_ps(_mm512_fnmadd_ps(s, s, a), h, s);
        if in_range == 0xffff {
            s
        } else {
            _mm512_mask_sqrt_ps(s, !in_range, a)
        }
    }

    /// `sqrt` of 8 f64 lanes, Newton form and Tuckerman's test where every lane is in
    /// [`F64_LOW`, `f64::MAX`].
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    #[inline]
    fn root8(a: __m512d) -> __m512d {
        let in_range = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(a, _mm512_set1_pd(F64_LOW))
            & _mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, _mm512_set1_pd(f64::MAX));
        let half = _mm512_set1_pd(0.5);
        let y = _mm512_rsqrt14_pd(a);
        let (mut s, mut h) = (_mm512_mul_pd(a, y), _mm512_mul_pd(half, y));
        for _ in 0..2 {
            let d = _mm512_fnmadd_pd(s, h, half);
            s = _mm512_fmadd_pd(s, d, s);
            h = _mm512_fmadd_pd(h, d, h);
        }
        let s = _mm512_fmadd_pd(_mm512_fnmadd_pd(s, s, a), h, s);
        // Tuckerman: the neighbours of s by their bit patterns (s is positive and finite).
        let bits = _mm512_castpd_si512(s);
        let one = _mm512_set1_epi64(1);
        let up = _mm512_castsi512_pd(_mm512_add_epi64(bits, one));
        let down = _mm512_castsi512_pd(_mm512_sub_epi64(bits, one));
        let zero = _mm512_setzero_pd();
        let too_small = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(_mm512_fmsub_pd(s, up, a), zero);
        let too_large = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(_mm512_fmsub_pd(s, down, a), zero);
        let s = _mm512_mask_blend_pd(too_small, s, up);
        let s = _mm512_mask_blend_pd(too_large, s, down);
        if in_range == 0xff {
            s
        } else {
            _mm512_mask_sqrt_pd(s, !in_range, a)
        }
    }

    /// # Safety
    /// As `super::sqrt` for f32, and the CPU has AVX-512 F/DQ/VL and FMA.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn sqrt_f32(src: *const f32, dst: *mut f32, n: usize) {
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: elements i .. i + 16 of both (the contract); a vector is read whole
            // before it is written, so `src == dst` is fine.
            unsafe { _mm512_storeu_ps(dst.add(i), root16(_mm512_loadu_ps(src.add(i)))) };
            i += 16;
        }
        if i < n {
            // The tail by masked loads and stores: lanes past n are neither read nor written
            // (AVX-512 masks suppress their faults).
            let mask = (1u16 << (n - i)) - 1;
            // SAFETY: the lanes of `mask` are elements i .. n (the contract).
            unsafe {
                let a = _mm512_maskz_loadu_ps(mask, src.add(i));
                _mm512_mask_storeu_ps(dst.add(i), mask, root16(a));
            }
        }
    }

    /// # Safety
    /// As `super::sqrt` for f64, and the CPU has AVX-512 F/DQ/VL and FMA.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn sqrt_f64(src: *const f64, dst: *mut f64, n: usize) {
        let mut i = 0;
        // Two vectors by the FMA form and one by `vsqrtpd` per step: the divide/sqrt unit
        // works beside the FMA ports, so the three take about the time of the two alone
        // (64K f64: 37 us all-Newton, 62 all-`vsqrtpd`, 25 mixed; one split or three were
        // slower). Both give the correctly rounded root: the same bits.
        while i + 24 <= n {
            // SAFETY: elements i .. i + 24 of both (the contract); each vector is read whole
            // before it is written.
            unsafe {
                let hw = _mm512_sqrt_pd(_mm512_loadu_pd(src.add(i + 16)));
                _mm512_storeu_pd(dst.add(i), root8(_mm512_loadu_pd(src.add(i))));
                _mm512_storeu_pd(dst.add(i + 8), root8(_mm512_loadu_pd(src.add(i + 8))));
                _mm512_storeu_pd(dst.add(i + 16), hw);
            }
            i += 24;
        }
        while i + 8 <= n {
            // SAFETY: as in `sqrt_f32`.
            unsafe { _mm512_storeu_pd(dst.add(i), root8(_mm512_loadu_pd(src.add(i)))) };
            i += 8;
        }
        if i < n {
            let mask = (1u8 << (n - i)) - 1;
            // SAFETY: as in `sqrt_f32`.
            unsafe {
                let a = _mm512_maskz_loadu_pd(mask, src.add(i));
                _mm512_mask_storeu_pd(dst.add(i), mask, root8(a));
            }
        }
    }
}
