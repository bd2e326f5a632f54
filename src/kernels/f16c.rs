//! The f16 conversion instructions (`vcvtph2ps` / `vcvtps2ph`, F16C and AVX-512F), with the
//! narrowing's result kept in a register.
//!
//! `vcvtps2ph` with a memory destination is 2.3-2.5x slower on AMD Zen 5 than into a register
//! followed by a plain store (256 elements, 8 lanes: 15.2 ns against 5.9; 16 lanes: 7.6
//! against 3.3), and LLVM folds `store(cvtps_ph(v))` into that form. [`narrow8`] and
//! [`narrow16`] pass the result through an empty `asm!` that takes it in a register, so the
//! store stays a store (one more instruction than the folded form, where that form is not
//! slow). The rounding is the instruction's round to nearest even in both forms: the
//! same bits.

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::isa::{VectorIsa, vector_isa};
    use core::arch::asm;
    use core::arch::x86_64::*;
    use half::f16;

    /// Round to nearest even: `half`'s rounding.
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT;

    /// 8 f32 lanes to f16 bits, nearest even, the result in a register (see the module docs).
    #[inline]
    #[target_feature(enable = "avx,f16c")]
    pub(in crate::kernels) fn narrow8(v: __m256) -> __m128i {
        let mut h = _mm256_cvtps_ph::<NEAREST>(v);
        // SAFETY: an empty template: no instruction, no memory, no flags; it only pins `h`
        // to a register.
        unsafe {
            asm!("/* {0} */", inout(xmm_reg) h, options(pure, nomem, nostack, preserves_flags))
        };
        h
    }

    /// 16 f32 lanes to f16 bits, as [`narrow8`].
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::kernels) fn narrow16(v: __m512) -> __m256i {
        let mut h = _mm512_cvtps_ph::<NEAREST>(v);
        // SAFETY: as in `narrow8`.
        unsafe {
            asm!("/* {0} */", inout(ymm_reg) h, options(pure, nomem, nostack, preserves_flags))
        };
        h
    }

    #[target_feature(enable = "avx,f16c")]
    unsafe fn to_f32(src: *const u16, dst: *mut f32, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n elements of both buffers (the caller's contract).
            unsafe {
                let h = _mm_loadu_si128(src.add(i) as *const __m128i);
                _mm256_storeu_ps(dst.add(i), _mm256_cvtph_ps(h));
            }
            i += 8;
        }
        // SAFETY: the rest of both buffers.
        unsafe { tail_to_f32(src, dst, i, n) };
    }

    #[target_feature(enable = "avx,f16c")]
    unsafe fn from_f32(src: *const f32, dst: *mut u16, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n elements of both buffers (the caller's contract).
            unsafe {
                let h = narrow8(_mm256_loadu_ps(src.add(i)));
                _mm_storeu_si128(dst.add(i) as *mut __m128i, h);
            }
            i += 8;
        }
        // SAFETY: the rest of both buffers.
        unsafe { tail_from_f32(src, dst, i, n) };
    }

    /// [`from_f32`] 16 lanes at a time.
    #[target_feature(enable = "avx512f")]
    unsafe fn from_f32_avx512(src: *const f32, dst: *mut u16, n: usize) {
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n elements of both buffers (the caller's contract).
            unsafe {
                let h = narrow16(_mm512_loadu_ps(src.add(i)));
                _mm256_storeu_si256(dst.add(i) as *mut __m256i, h);
            }
            i += 16;
        }
        // SAFETY: the rest of both buffers.
        unsafe { tail_from_f32(src, dst, i, n) };
    }

    /// Elements `from..n` one at a time (`half`'s conversion: the same rounding).
    ///
    /// # Safety
    /// `src` valid for `n` reads, `dst` for `n` writes.
    #[inline(always)]
    unsafe fn tail_to_f32(src: *const u16, dst: *mut f32, from: usize, n: usize) {
        for j in from..n {
            // SAFETY: j < n.
            unsafe { dst.add(j).write(f16::from_bits(src.add(j).read()).to_f32()) };
        }
    }

    /// As [`tail_to_f32`], narrowing.
    ///
    /// # Safety
    /// `src` valid for `n` reads, `dst` for `n` writes.
    #[inline(always)]
    unsafe fn tail_from_f32(src: *const f32, dst: *mut u16, from: usize, n: usize) {
        for j in from..n {
            // SAFETY: j < n.
            unsafe { dst.add(j).write(f16::from_f32(src.add(j).read()).to_bits()) };
        }
    }

    /// `n` f16 bit patterns widened into `dst`; `false` (nothing done) without F16C.
    ///
    /// # Safety
    /// `src` valid for `n` reads, `dst` for `n` writes.
    pub(in crate::kernels) unsafe fn load(src: *const u16, dst: *mut f32, n: usize) -> bool {
        if std::is_x86_feature_detected!("f16c") {
            // SAFETY: F16C (and AVX, which it implies) present; the caller's contract.
            unsafe { to_f32(src, dst, n) };
            return true;
        }
        false
    }

    /// `n` f32 narrowed into f16 bit patterns; `false` (nothing done) without F16C.
    ///
    /// # Safety
    /// `src` valid for `n` reads, `dst` for `n` writes.
    pub(in crate::kernels) unsafe fn store(src: *const f32, dst: *mut u16, n: usize) -> bool {
        if vector_isa() == VectorIsa::Avx512 {
            // SAFETY: AVX-512F present (`vector_isa` detected it); the caller's contract.
            unsafe { from_f32_avx512(src, dst, n) };
            return true;
        }
        if std::is_x86_feature_detected!("f16c") {
            // SAFETY: as in `load`.
            unsafe { from_f32(src, dst, n) };
            return true;
        }
        false
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{load, narrow8, narrow16, store};
