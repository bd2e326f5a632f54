//! Branch-free math that LLVM vectorizes: `Real`'s f32 functions and most f64 ones
//! (`functors::real`) are these instead of scalar libm calls, so every functor written
//! against `Real` gets them: `exp` as much as `mish`, `softplus`, `logaddexp` or a reduction's
//! `logsumexp`. Every branch is a value select, and rounding, exponent extraction and `2^n` are
//! done with float/integer bit tricks, and polynomials are fused multiply-adds ([`fma_f32`],
//! [`fma_f64`]: one rounding, half the dependent steps of a latency-bound loop), so the loops
//! are 16 f32 lanes wide in the kernels' AVX-512 copies and 8 in the AVX2 ones
//! (`kernels::isa`). The baseline copy gives the same bits, with a libm call per fma.
//!
//! Here: f32 `exp`, `sigmoid`, `mish`, `tanh`, the logs, `sin`, `cos`, `exp2`, `expm1` (f32),
//! `log1p_unit` (ln(1 + t) on [0, 1] by one polynomial: softplus, logsigmoid).
//! Submodules, f32: `trig` (tan, atan, asin, acos, atan2), `hyperbolic` (sinh, cosh, asinh,
//! acosh, atanh; f32 with fmas), `erf` (erf, erfc, exact gelu; f32 with fmas), `power` (pow,
//! hypot); f64: `double` (exp, expm1, log, log1p, `log1p_unit`, tanh, sigmoid), `double_hyp`
//! (sinh, cosh, asinh, acosh, atanh, log2, log10, exp2), `double_erf_pow` (pow, hypot; erf and
//! erfc written but not used, see there), `double_trig` (atan, asin, acos, atan2, and
//! sin/cos/tan below 2^20·π/2; see there). Some f32 forms (trig's reduction, pow, hypot)
//! compute in f64 inside (one rounding at the end: 0-1 ulp).
//!
//! Accuracy, against the f64 result rounded (`tests/math_accuracy.rs` over 10^7 inputs per
//! function in CI, and all 2^32 in its ignored test; `tests/math_accuracy_f64.rs` for the f64
//! forms), subnormal results counted in their own ulps: exp and the logs 1 ulp, tanh and
//! sigmoid 2, mish 3 (the erf family and the other modules: their own docs); special values
//! exact (±0, ±inf, NaN, domain edges, overflow thresholds).
//!
//! Logs: Cephes `logf`/`log2f`/`log10f` (polynomial for `ln(1+f)`, `f = m - 1`,
//! `m` in [√½, √2)), the mantissa and exponent split off with integer bit operations (musl's
//! offset trick), subnormals scaled by 2^23 first; `log1p` the same kernel on `u = 1 + x` plus
//! the rounding correction `(1 + x - u) / u` (FreeBSD/musl `log1pf`).
//!
//! `sin`/`cos` (and `trig::tan`): two argument reductions `x·2/π = q + f`, both in f64. Below
//! |x| = 2^19 (`trig_narrow_f32`), fdlibm's medium Cody-Waite in two rounds (`rem_pio2_narrow`,
//! ~8 operations). For every |x| at once, without a table and without a branch
//! (`rem_pio2`): 2/π is split into 29-bit pieces `c_k`, so each `x·c_k` is exact in f64
//! (24 + 29 bits), and is reduced mod 4 exactly; the pieces are summed with TwoSum (the error
//! terms kept), which gives `f` to f64 relative precision even for the f32 inputs closest to a
//! multiple of π/2, up to |x| = f32::MAX (a Payne-Hanek reduction whose "table lookup" is the
//! fixed set of 7 pieces that covers every exponent). `sin_f32` is a branch between the two
//! (`_narrow` and `_wide`); the kernels test a block of inputs first and run the narrow form
//! alone when the whole block allows it (`Functor::in_narrow_domain`), so the ~60-operation
//! general reduction is paid only by blocks that hold a value from 2^19 up. The polynomials
//! are FreeBSD/musl's f64 `__sindf`/`__cosdf` on [-π/4, π/4] (< 2^-37 error).

// The coefficients are Cephes' and FreeBSD's as published; the clamps are written as
// selects; `x - x` is the NaN of a non-finite x (libm's idiom).
#![allow(clippy::excessive_precision, clippy::manual_clamp, clippy::eq_op)]

pub mod double;
pub mod double_erf_pow;
pub mod double_hyp;
pub mod double_trig;
pub mod erf;
pub mod hyperbolic;
pub mod power;
pub mod trig;

/// The square roots the forms below use: the hardware instruction (`sqrtss`/`sqrtps`) with
/// `std`, libm's correctly rounded software form in the `no_std` (PTX) build.
#[allow(unused_imports)]
use super::real::{Real, sqrt_f32, sqrt_f64};

/// The fused multiply-add `a·b + c` (one rounding). With std, `f32::mul_add`: the instruction
/// in the kernels' AVX2/AVX-512 builds (`kernels::isa`), the C library's `fmaf` elsewhere;
/// the device's instruction in the PTX build; libm's software one in other `no_std` builds.
/// All exact: the same bits on every path.
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(feature = "std")]
    {
        a.mul_add(b, c)
    }
    // The device's fused multiply-add instruction in the PTX build (nightly, as that build is).
    #[cfg(all(not(feature = "std"), target_arch = "nvptx64"))]
    {
        core::f32::math::mul_add(a, b, c)
    }
    #[cfg(all(not(feature = "std"), not(target_arch = "nvptx64")))]
    {
        libm::fmaf(a, b, c)
    }
}

/// The fused multiply-add `a·b + c` in f64 (one rounding), as [`fma_f32`].
#[inline(always)]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        a.mul_add(b, c)
    }
    // The device's fused multiply-add instruction in the PTX build (nightly, as that build is).
    #[cfg(all(not(feature = "std"), target_arch = "nvptx64"))]
    {
        core::f64::math::mul_add(a, b, c)
    }
    #[cfg(all(not(feature = "std"), not(target_arch = "nvptx64")))]
    {
        libm::fma(a, b, c)
    }
}

/// `x` clamped to [lo, hi] by two selects; a NaN fails both compares and passes through (the
/// clamps before the exponentials' range reductions, which change no result).
#[inline(always)]
pub(super) fn clamp_nan_passing<T: PartialOrd + Copy>(x: T, lo: T, hi: T) -> T {
    // Two selects in sequence, not nested: each is then one `minps`/`maxps` (LLVM made the
    // nested form two compares and two blends).
    let x = if x > hi { hi } else { x };
    if x < lo { lo } else { x }
}

/// `1.5 * 2^23`: adding it rounds an f32 of magnitude < 2^22 to an integer (ties to even) and
/// leaves that integer in the low mantissa bits.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// `e^x` for f32, branch-free (Cephes `expf` polynomial, range reduction by `ln 2`).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // e^89 overflows and e^-104 underflows to 0: clamping changes no result, and keeps `n` and
    // the two scale factors below in range. NaN fails both compares and propagates.
    let x = clamp_nan_passing(x, -104.0, 89.0);
    let (y, n) = exp_parts_f32(x);
    scale_by_pow2_f32(y, n)
}

/// From here on `e^x` in f32 is a normal number (e^-86.5 > 2^-125, with margin: below about
/// -87.3 it is subnormal), and `n = round(x/ln2) >= -125`, which [`exp_f32_normal`] needs.
pub const EXP_F32_NORMAL_FROM: f32 = -86.5;

/// Whether `x` is in [`exp_f32_normal`]'s domain: `e^x` is a normal number or overflows (false
/// for NaN).
#[inline(always)]
pub fn exp_f32_is_normal(x: f32) -> bool {
    x >= EXP_F32_NORMAL_FROM
}

/// [`exp_f32`] for `x >= EXP_F32_NORMAL_FROM` (or NaN, which passes through) only, where the
/// result is normal or overflows: one scale factor instead of two and no lower clamp (~30%
/// fewer vector operations than `exp_f32`, the same bits). `n` is in [-125, 128] there, so
/// `2^(n-1)` is a normal f32 and `(2y)·2^(n-1)` rounds once (to inf past f32::MAX).
#[inline(always)]
pub fn exp_f32_normal(x: f32) -> f32 {
    let x = if x > 89.0 { 89.0 } else { x };
    let (r, n) = exp_reduce_f32(x);
    // `2^(n-1)·(1 + (e^r - 1))` in one fma, then the exact doubling (to inf past f32::MAX):
    // the one rounding of `(y·2)·2^(n-1)` with `y = 1 + (e^r - 1)` (a power of two commutes
    // with it), one operation fewer.
    let half_scale = f32::from_bits(((n + 126) as u32) << 23);
    fma_f32(half_scale, exp_minus_1_reduced_f32(r), half_scale) * 2.0
}

/// [`exp_f32`] with its subnormal results made without a subnormal floating-point operation
/// (see [`scale_by_pow2_without_assists_f32`]): the same bits for every input, costlier where
/// the result is normal. The `Exp` functor's general form; [`exp_f32_normal`] its narrow form
/// on [`exp_f32_is_normal`].
#[inline(always)]
pub fn exp_f32_without_assists(x: f32) -> f32 {
    let x = clamp_nan_passing(x, -104.0, 89.0);
    let (y, n) = exp_parts_f32(x);
    scale_by_pow2_without_assists_f32(y, n)
}

/// `e^x / 2` for f32, branch-free, without overflowing where `e^x` alone would (x up to 89.5,
/// past sinh's and cosh's own overflow at 89.416): [`exp_f32`] with `2^(n-1)` as the scale.
#[inline(always)]
pub(super) fn exp_half_f32(x: f32) -> f32 {
    let x = clamp_nan_passing(x, -104.0, 89.5);
    let (y, n) = exp_parts_f32(x);
    scale_by_pow2_f32(y, n - 1)
}

/// `e^x = y · 2^n` for f32 x in [-104, 89.5]: `n = round(x/ln2)`, `y = e^r`, `r = x - n ln2`
/// (Cody-Waite, exact), by Cephes' `expf` polynomial.
#[inline(always)]
fn exp_parts_f32(x: f32) -> (f32, i32) {
    let (r, n) = exp_reduce_f32(x);
    (exp_minus_1_reduced_f32(r) + 1.0, n)
}

/// `e^r - 1 = r + r²·P(r)` for the reduced argument r (no cancellation near 0).
#[inline(always)]
fn exp_minus_1_reduced_f32(r: f32) -> f32 {
    fma_f32(exp_poly_f32(r), r * r, r)
}

/// `x = n ln2 + r` with `n = round(x/ln2)` for f32 x in [-104, 89.5] (the product and the
/// rounding in one fma) and `r = x - n·ln2` in two parts (Cody-Waite; `n·0.693359375` and the
/// difference are exact, so the inner fma is the same value in one operation): `(r, n)`.
#[inline(always)]
fn exp_reduce_f32(x: f32) -> (f32, i32) {
    let t = fma_f32(x, core::f32::consts::LOG2_E, ROUND_MAGIC);
    let n = t.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let nf = t - ROUND_MAGIC;
    (
        fma_f32(nf, 2.121_944_4e-4, fma_f32(-nf, 0.693_359_375, x)),
        n,
    )
}

/// Cephes' `expf` polynomial P: `e^r ≈ 1 + r + r²·P(r)` for |r| <= ln2/2. Fused multiply-adds:
/// half the dependent steps of `p * r + c` (the loops are latency-bound).
#[inline(always)]
fn exp_poly_f32(r: f32) -> f32 {
    let mut p = 1.987_569_1e-4f32;
    p = fma_f32(p, r, 1.398_199_9e-3);
    p = fma_f32(p, r, 8.333_452e-3);
    p = fma_f32(p, r, 4.166_579_6e-2);
    p = fma_f32(p, r, 1.666_666_5e-1);
    fma_f32(p, r, 5.000_000_1e-1)
}

/// `y · 2^n` for n in [-252, 128], as two factors `2^h · 2^(n-h)` that are each a normal f32,
/// so a result in the subnormal range is rounded once, and one past f32::MAX is inf.
#[inline(always)]
fn scale_by_pow2_f32(y: f32, n: i32) -> f32 {
    let h = n >> 1;
    let s1 = f32::from_bits(((h + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - h + 127) as u32) << 23);
    y * s1 * s2
}

/// `factor·e^x` for f32, branch-free: `(factor·y)·2^n` with `e^x = y·2^n` and the power of two
/// applied last in two normal factors, so a subnormal result is rounded once (silu's tail,
/// `x·e^x` below x = -86.5). x is clamped to [-120, 89] (below -120 every product with a finite
/// f32 factor rounds to ±0; above, e^x overflows); NaN passes.
#[inline(always)]
pub fn exp_f32_times(x: f32, factor: f32) -> f32 {
    let (y, n) = exp_parts_f32(clamp_nan_passing(x, -120.0, 89.0));
    let r = scale_by_pow2_f32(factor * y, n);
    // `factor·0` below the clamp: ±0, and NaN for an infinite factor (silu(-inf) = -inf·0).
    if x < -120.0 { factor * 0.0 } else { r }
}

/// [`scale_by_pow2_f32`] without a subnormal floating-point operation: on x86 a multiply (or
/// fma, or division) with a subnormal operand or result takes a microcode assist of ~150 cycles
/// per vector, and `exp` of integer data in [-100, 100] ran at 4x its time on normal data
/// (sigmoid 8x). A subnormal result is instead `|y|·2^(n+149)` (normal, below 2^23) plus 2^23:
/// the addition rounds it to an integer exactly as the subnormal result rounds (to nearest
/// even), and that integer is the result's bit pattern (2^23 itself being f32::MIN_POSITIVE's).
/// Normal results are `scale_by_pow2_f32`'s, with the scale of subnormal lanes set to 1.
#[inline(always)]
fn scale_by_pow2_without_assists_f32(y: f32, n: i32) -> f32 {
    let sign = y.to_bits() & 0x8000_0000;
    // The result's biased exponent: 0 or less is subnormal (or zero). (A NaN y, whose `n` is
    // garbage, takes the multiplications, which return it.)
    let biased = ((y.to_bits() >> 23) & 0xff) as i32 + n;
    let subnormal = biased <= 0 && !y.is_nan();
    let normal = scale_by_pow2_f32(y, if subnormal { 0 } else { n });
    // Clamped so that the factor is normal in every lane (below -152 the result is 0 anyway).
    let ns = n.clamp(-152, -126);
    let factor = f32::from_bits(((ns + 149 + 127) as u32) << 23);
    let v = f32::from_bits(y.to_bits() & 0x7fff_ffff) * factor;
    const TWO_23: f32 = 8_388_608.0;
    let q = (v + TWO_23).to_bits() - TWO_23.to_bits();
    if subnormal {
        f32::from_bits(q | sign)
    } else {
        normal
    }
}

/// `1 / (1 + e^-x)`, split on the sign so that `e^` never overflows.
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    let e = exp_f32(-f32::from_bits(x.to_bits() & 0x7fff_ffff));
    let num = if x < 0.0 { e } else { 1.0 };
    num / (1.0 + e)
}

/// SLEEF's `xexpf` (`Sleef_expf16_u10`, PyTorch's `Vectorized<float>::exp`) step for step with
/// its fused multiply-adds, branch-free: `q = rint(x/ln2)`, `s = x - q·ln2` in two fmas, a
/// degree-5 polynomial, `1 + (s + s²·u)` scaled by `2^(q>>1)·2^(q-(q>>1))`; 0 below -104, inf
/// above 100. Within 1 ulp; its bits, not a correctly rounded exp, are what PyTorch's f16/bf16
/// `erf` rounds, so its f32 (16 lanes) replaces an exp in f64 (8 lanes) that gave the same
/// half results.
#[inline(always)]
#[allow(clippy::excessive_precision)] // SLEEF's constants, digit for digit
pub fn exp_f32_sleef(x: f32) -> f32 {
    const L2UF: f32 = 0.693_145_751_953_125;
    const L2LF: f32 = 1.428_606_765_330_187_045e-6;
    // The clamp keeps `q` and both scale factors in range (e^x is 0 below -104 and inf above
    // 100 anyway, as selected below); NaN passes through every step.
    let d = clamp_nan_passing(x, -110.0, 110.0);
    // SLEEF's R_LN2f rounds to LOG2_E's f32.
    let t = d * core::f32::consts::LOG2_E + ROUND_MAGIC;
    let q = t.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let qf = t - ROUND_MAGIC;
    let s = fma_f32(qf, -L2LF, fma_f32(qf, -L2UF, d));
    let mut u = 0.000_198_527_617_612_853_646_278_381f32;
    u = fma_f32(u, s, 0.001_393_043_552_525_341_510_772_71);
    u = fma_f32(u, s, 0.008_333_360_776_305_198_669_433_59);
    u = fma_f32(u, s, 0.041_666_485_369_205_474_853_515_6);
    u = fma_f32(u, s, 0.166_666_671_633_720_397_949_219);
    u = fma_f32(u, s, 0.5);
    let u = scale_by_pow2_f32(1.0 + fma_f32(s * s, u, s), q);
    let u = if x < -104.0 { 0.0 } else { u };
    if x > 100.0 { f32::INFINITY } else { u }
}

/// `mish x = x·tanh(softplus x)` for f32, branch-free, in f32: `tanh(log1p e) = h/(1 + h)`
/// with `e = e^x`, `h = e(1 + e/2)` (one fma), so mish is `x·h/(1 + h)`: one exponential and
/// one division instead of three transcendentals. The quotient is corrected for the rounding of
/// `1 + h` (its error `dl` is exact by Fast2Sum) and of the division (the fma residual), scaled
/// by `1/(1 + h) = 1 - q`; max 3 ulp against the f64 definition. From x = 20 on `h/(1 + h)`
/// rounds to 1 (e is clamped there); below -20 mish is `x·e^x` to within e (the scale `2^n` of
/// `e^x` applied last, so a subnormal result rounds once); below -110 it is -0 (`x·0`: NaN at
/// -inf, as PyTorch's `-inf·tanh(0)`).
#[inline(always)]
pub fn mish_f32(x: f32) -> f32 {
    let w = if x < 20.0 { x } else { 20.0 };
    let w = if w > -110.0 { w } else { -110.0 };
    let (y, n) = exp_parts_f32(w);
    let e = scale_by_pow2_f32(y, n);
    let h = fma_f32(0.5 * e, e, e);
    let d = 1.0 + h;
    let dl = if h > 1.0 {
        (h - d) + 1.0
    } else {
        (1.0 - d) + h
    };
    let q = h / d;
    let q = q + (fma_f32(-q, d, h) - q * dl) * (1.0 - q);
    let r = x * q;
    let tail = scale_by_pow2_f32(x * y, n);
    let r = if x < -20.0 { tail } else { r };
    let r = if x < -110.0 { x * 0.0 } else { r };
    // A NaN input is returned as it is (the same bits in every loop).
    if x.is_nan() { x } else { r }
}

/// `tanh` for f32, branch-free: `m/(m + 2)` with `m = e^2|x| - 1` and the sign of x (SLEEF's
/// form). `m` comes from exp's reduction (`exp_reduce_f32`) and polynomial without forming
/// `e^r`: `e^r - 1 = r + r²P(r)` (no cancellation near 0), then `2^n·(e^r - 1) + (2^n - 1)` in
/// one fma, so one form serves every |x| (the former `1 - 2/(e^2|x| + 1)` needed an odd
/// polynomial below 0.625 beside it, both computed for every lane: ~37 vector operations
/// against ~23). Max 2 ulp over all f32 inputs. 2|x| is clamped at 20 (tanh rounds to 1 from
/// |x| = 9.01; `2^n` stays normal); NaN passes.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let w = 2.0 * ax;
    let w = if w > 20.0 { 20.0 } else { w };
    let (r, n) = exp_reduce_f32(w);
    let er_minus_1 = exp_minus_1_reduced_f32(r);
    let scale = f32::from_bits(((n + 127) as u32) << 23);
    let m = fma_f32(scale, er_minus_1, scale - 1.0);
    let y = m / (m + 2.0);
    f32::from_bits(y.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// Splits a positive finite f32 (normal or subnormal) into `m·2^k`, `m` in [√½, √2), and
/// returns `(m - 1, k)` (`m - 1` is exact). Other inputs give garbage, to be selected away.
#[inline(always)]
fn log_reduce(x: f32) -> (f32, f32) {
    // Subnormals: scale by 2^23 first (the smallest, 2^-149, becomes 2^-126).
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8_388_608.0 } else { x };
    let (f, k) = log_reduce_normal(xs);
    (f, if sub { k - 23.0 } else { k })
}

/// [`log_reduce`] for a positive normal finite `x` (no subnormal scaling): the same values.
#[inline(always)]
fn log_reduce_normal(x: f32) -> (f32, f32) {
    // Adding 1 - √½ (in bits) moves the exponent boundary from 1 to √½ (musl's `logf`).
    let ix = x.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let k = (ix >> 23) as i32 - 127;
    let m = f32::from_bits((ix & 0x007f_ffff) + 0x3f35_04f3);
    (m - 1.0, k as f32)
}

/// Whether `x` is a positive normal finite f32 (false for NaN): the domain of the `_normal`
/// logs, which skip the subnormal scaling and the special cases (-inf, NaN, +inf, 0).
#[inline(always)]
pub fn is_positive_normal_f32(x: f32) -> bool {
    // One unsigned compare: MIN_POSITIVE's bits map to 0, +inf's and above (negative numbers
    // included, their sign bit set) to at least the bound.
    x.to_bits().wrapping_sub(0x0080_0000) < 0x7f80_0000 - 0x0080_0000
}

/// Cephes `logf`'s polynomial: `ln(1 + f) ≈ f - f²/2 + t` for f in [√½ - 1, √2 - 1]; returns
/// `(t, f²)`.
#[inline(always)]
fn log_poly(f: f32) -> (f32, f32) {
    let z = f * f;
    (log_poly_p(f) * f * z, z)
}

/// `ln(1 + f) - f` for f in [√½ - 1, √2 - 1]: `f²·(f·P(f) - ½)`, [`log_poly`]'s terms in two
/// operations after P (one fma for `f·P - ½`, one product) instead of four.
#[inline(always)]
fn log1p_minus_f(f: f32) -> f32 {
    (f * f) * fma_f32(log_poly_p(f), f, -0.5)
}

/// Cephes `logf`'s P (degree 8): `ln(1 + f) ≈ f - f²/2 + f³·P(f)`.
#[inline(always)]
fn log_poly_p(f: f32) -> f32 {
    let mut p = 7.037_683_6e-2f32;
    p = fma_f32(p, f, -1.151_461_031e-1);
    p = fma_f32(p, f, 1.167_699_874e-1);
    p = fma_f32(p, f, -1.242_014_085e-1);
    p = fma_f32(p, f, 1.424_932_279e-1);
    p = fma_f32(p, f, -1.666_805_766e-1);
    p = fma_f32(p, f, 2.000_071_477e-1);
    p = fma_f32(p, f, -2.499_999_399e-1);
    fma_f32(p, f, 3.333_333_117e-1)
}

/// The special cases of the logs, selected over the polynomial result `r`: `log(±0) = -inf`,
/// negative (and -inf) gives NaN, `+inf` and NaN are returned as they are.
#[inline(always)]
fn log_special(x: f32, r: f32) -> f32 {
    let r = if x == 0.0 { f32::NEG_INFINITY } else { r };
    let r = if x < 0.0 { f32::NAN } else { r };
    if x < f32::INFINITY { r } else { x }
}

/// `ln 2` in two parts (Cephes): `LN2_HI` has 9 bits, so `k·LN2_HI` is exact.
const LN2_HI: f32 = 0.693_359_375;
const LN2_LO: f32 = -2.121_944_4e-4;

/// Natural log for f32, branch-free (Cephes `logf`).
#[inline(always)]
pub fn log_f32(x: f32) -> f32 {
    log_special(x, ln_from(log_reduce(x)))
}

/// [`log_f32`] for a positive normal finite `x` ([`is_positive_normal_f32`]): the same bits.
#[inline(always)]
pub fn log_f32_normal(x: f32) -> f32 {
    ln_from(log_reduce_normal(x))
}

/// `ln(2^k (1 + f))`: `k·ln2 + f + y` with `y = ln(1 + f) - f`, the products by the two parts
/// of ln2 inside fmas (`k·LN2_HI` exact either way).
#[inline(always)]
fn ln_from((f, k): (f32, f32)) -> f32 {
    let y = fma_f32(k, LN2_LO, log1p_minus_f(f));
    fma_f32(k, LN2_HI, f + y)
}

/// Base-2 log for f32, branch-free (Cephes `log2f`: `log2(e) - 1` split off so the f terms add
/// in exactly).
#[inline(always)]
pub fn log2_f32(x: f32) -> f32 {
    log_special(x, log2_from(log_reduce(x)))
}

/// [`log2_f32`] for a positive normal finite `x`: the same bits.
#[inline(always)]
pub fn log2_f32_normal(x: f32) -> f32 {
    log2_from(log_reduce_normal(x))
}

/// `log2(2^k (1 + f))`: `k + (f + y)·log2(e)` with `y = ln(1 + f) - f` and `log2(e) = 1 +
/// LOG2EA`, the small terms first and each product inside an fma.
#[inline(always)]
fn log2_from((f, k): (f32, f32)) -> f32 {
    const LOG2EA: f32 = 0.442_695_040_888_963_4;
    let y = log1p_minus_f(f);
    let small = fma_f32(f, LOG2EA, fma_f32(y, LOG2EA, y));
    (small + f) + k
}

/// Base-10 log for f32, branch-free (Cephes `log10f`: `log10(e)` and `log10(2)` in two parts).
#[inline(always)]
pub fn log10_f32(x: f32) -> f32 {
    log_special(x, log10_from(log_reduce(x)))
}

/// [`log10_f32`] for a positive normal finite `x`: the same bits.
#[inline(always)]
pub fn log10_f32_normal(x: f32) -> f32 {
    log10_from(log_reduce_normal(x))
}

/// `log10(2^k (1 + f))`.
#[inline(always)]
fn log10_from((f, k): (f32, f32)) -> f32 {
    const L102A: f32 = 3.007_812_5e-1;
    const L102B: f32 = 2.487_456_639_811_952e-4;
    const L10EA: f32 = 4.335_937_5e-1;
    const L10EB: f32 = 7.007_319_032_518_277e-4;
    let y = log1p_minus_f(f);
    // Cephes' order (smallest terms first), each product inside an fma.
    let r = fma_f32(y, L10EB, k * L102B);
    let r = fma_f32(f, L10EB, r);
    let r = fma_f32(y, L10EA, r);
    let r = fma_f32(f, L10EA, r);
    fma_f32(k, L102A, r)
}

/// `ln(1 + x)` for f32, branch-free: [`log1p_kernel`] plus the special cases.
#[inline(always)]
pub fn log1p_f32(x: f32) -> f32 {
    let r = log1p_kernel(x, false, 0.0);
    // |x| < 2^-24: x itself (also keeps -0.0); -1 gives -inf, below it NaN; +inf and NaN as is.
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let r = if ax < 5.960_464_5e-8 { x } else { r };
    let r = if x == -1.0 { f32::NEG_INFINITY } else { r };
    let r = if x < -1.0 { f32::NAN } else { r };
    if x < f32::INFINITY { r } else { x }
}

/// `ln(1 + t)` for f32 t in [0, 1] (`e^-|x|` in softplus and logsigmoid): `t·P(t)`
/// with `P(t) = ln(1 + t)/t` interpolated at the 11 Chebyshev nodes of [0, 1] (relative error
/// 2^-30; the singularity at t = -1 is far enough for degree 10), no reduction and no division:
/// half the work of [`log1p_f32`]. Within 1 ulp of the f64 `ln_1p` rounded on [0, 1]; ±0 stay
/// as they are. Other inputs: not ln(1 + t).
#[inline(always)]
pub fn log1p_unit_f32(t: f32) -> f32 {
    let mut p = 0.001_986_696_593_653_461_5f32;
    for c in [
        -0.013_187_826_565_578_39,
        0.041_006_573_693_958_395,
        -0.081_880_409_235_828_44,
        0.123_779_958_678_715_11,
        -0.160_876_230_092_957_32,
        0.198_858_202_850_084_51,
        -0.249_864_964_594_099_26,
        0.333_324_975_435_265_2,
        -0.499_999_794_913_912_3,
        0.999_999_999_155_682_3,
    ] {
        p = fma_f32(p, t, c);
    }
    t * p
}

/// `ln(1 + x) + kadd·ln2` (or `ln(x) + kadd·ln2` where `plain`, for x >= 1) for finite f32
/// x > -1 that is not tiny, branch-free: the log kernel on `u = 1 + x` plus the correction
/// `(1 + x - u) / u` for the rounding of u (FreeBSD/musl `log1pf`), `f = x` itself where
/// `u` is in [√½, √2). `kadd` lets a caller take the log of `2^kadd·x` (`hyperbolic`'s
/// inverse functions: `ln 2x` without forming 2x, which could overflow).
#[inline(always)]
pub(super) fn log1p_kernel(x: f32, plain: bool, kadd: f32) -> f32 {
    let u = if plain { x } else { 1.0 + x };
    let iu = u.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let ki = (iu >> 23) as i32 - 127;
    let m = f32::from_bits((iu & 0x007f_ffff) + 0x3f35_04f3);
    // The rounding error of u, exact either way (FreeBSD's two forms); none where plain.
    let c = if ki >= 2 {
        1.0 - (u - x)
    } else {
        x - (u - 1.0)
    };
    let c = if ki == 0 || plain { 0.0 } else { c / u };
    let f = if ki == 0 && !plain { x } else { m - 1.0 };
    let k = ki as f32 + kadd;
    let (t, z) = log_poly(f);
    let y = t + (k * LN2_LO + c) - 0.5 * z;
    f + y + k * LN2_HI
}

/// 2/π in 29-bit pieces (`c_k = bits [29k+1, 29k+29] of 2/π`, as published in fdlibm's
/// `ipio2` table): `x·c_k` is exact in f64 for every f32 x. Seven pieces (203 bits) leave an
/// error below 2^-75 quadrants for |x| < 2^128.
const TWO_OVER_PI: [f64; 7] = [
    0.636_619_770_899_415,
    1.468_166_324_625_208_6e-9,
    2.276_010_067_197_181_6e-18,
    5.881_214_738_773_043_4e-27,
    1.034_686_870_083_621_5e-35,
    3.783_256_351_091_319e-45,
    3.720_474_878_517_739e-53,
];

/// 2^52: adding and subtracting it rounds an f64 in [0, 2^52) to an integer.
const TWO52: f64 = 4_503_599_627_370_496.0;

/// Round to an integer for any f64 magnitude (values from 2^52 up are integers already).
#[inline(always)]
fn rint_f64(y: f64) -> f64 {
    const SIGN: u64 = 1 << 63;
    let a = f64::from_bits(y.to_bits() & !SIGN);
    let r = (a + TWO52) - TWO52;
    let r = if a < TWO52 { r } else { a };
    f64::from_bits(r.to_bits() | (y.to_bits() & SIGN))
}

/// `x·c` reduced mod 4, exactly: the product is exact, `p/4` and `4·n` are exact scalings and
/// `p - 4n` is exact (|p - 4n| <= 2).
#[inline(always)]
fn mul_mod4(x: f64, c: f64) -> f64 {
    let p = x * c;
    p - 4.0 * rint_f64(p * 0.25)
}

/// `c[0] + x·(c[1] + x·(c[2] + ...))` in fused steps (Horner; coefficients in ascending
/// order). The f64 forms' polynomials, written by fdlibm as mul-add pairs: on AVX-512 those
/// loops are bound by the two vector ports, and the fused steps round less.
#[inline(always)]
pub(super) fn horner_f64<const N: usize>(x: f64, c: [f64; N]) -> f64 {
    let mut p = c[N - 1];
    let mut k = N - 1;
    while k > 0 {
        k -= 1;
        p = fma_f64(p, x, c[k]);
    }
    p
}

/// TwoSum: `(a + b, the rounding error)`.
#[inline(always)]
pub(super) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `x = (4j + q)·π/2 + t`: returns `(q, t)` with the low two bits of q the quadrant and
/// |t| <= ~π/4, t to f64 relative precision for every finite f32 x.
#[inline(always)]
fn rem_pio2(x: f32) -> (u32, f64) {
    let xd = x as f64;
    let hi = mul_mod4(xd, TWO_OVER_PI[0]);
    let (hi, e1) = two_sum(hi, mul_mod4(xd, TWO_OVER_PI[1]));
    let (hi, e2) = two_sum(hi, mul_mod4(xd, TWO_OVER_PI[2]));
    let (hi, e3) = two_sum(hi, mul_mod4(xd, TWO_OVER_PI[3]));
    let (hi, e4) = two_sum(hi, mul_mod4(xd, TWO_OVER_PI[4]));
    // |x·c_5|, |x·c_6| < 2^-19 for every f32: they only add to the low part.
    let lo = e1 + e2 + e3 + e4 + xd * TWO_OVER_PI[5] + xd * TWO_OVER_PI[6];
    // |hi| <= 10: round it with the 1.5·2^52 trick, whose low bits are the integer.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let t = hi + MAGIC;
    let q = t.to_bits() as u32;
    let f = (hi - (t - MAGIC)) + lo;
    (q, f * core::f64::consts::FRAC_PI_2)
}

/// FreeBSD/musl `__sindf`: `sin t = t(1 + z(S1 + z(S2 + z(S3 + z·S4))))` on [-π/4, π/4],
/// z = t², |error| < 2^-37.5 relative.
const SIN_K: [f64; 4] = [
    -0.166_666_666_416_265_235_595,
    0.008_333_329_385_889_463_175_6,
    -0.000_198_393_348_360_966_317_347,
    0.000_002_718_311_493_989_821_906_4,
];
/// FreeBSD/musl `__cosdf`: `cos t = 1 + z(C0 + z(C1 + z(C2 + z·C3)))`, |error| < 2^-34.2.
const COS_K: [f64; 4] = [
    -0.499_999_997_251_031_003_120,
    0.041_666_623_323_739_063_189_4,
    -0.001_388_676_377_460_992_946_92,
    0.000_024_390_448_796_277_409_065_4,
];

/// |x| below which sin and cos reduce and evaluate in f32 ([`rem_pio2_f32`]; within 1 ulp
/// there, measured on every input) and tan takes the short f64 reduction: the `_narrow` forms'
/// domain.
pub const TRIG_NARROW_LIMIT_F32: f32 = 65_536.0;

/// |x| below which the f64 short reduction [`rem_pio2_narrow`] holds (n = round(x·2/π) <
/// 2^19, so `n·PIO2_1` is exact; see there): the `_medium` forms, between the narrow limit and
/// this one.
const TRIG_MEDIUM_LIMIT_F32: f32 = 524_288.0;

/// Whether `x` is in the domain of the `_narrow` trig forms (|x| < 2^16; false for inf/NaN).
#[inline(always)]
pub fn trig_narrow_f32(x: f32) -> bool {
    f32::from_bits(x.to_bits() & 0x7fff_ffff) < TRIG_NARROW_LIMIT_F32
}

/// The per-element branch of sin, cos and tan: `narrow` below 2^16, `medium` below 2^19,
/// `wide` from there up (the kernels run `narrow` alone over blocks whose inputs all allow it).
#[inline(always)]
fn by_trig_domain(
    x: f32,
    narrow: impl Fn(f32) -> f32,
    medium: impl Fn(f32) -> f32,
    wide: impl Fn(f32) -> f32,
) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    if ax < TRIG_NARROW_LIMIT_F32 {
        narrow(x)
    } else if ax < TRIG_MEDIUM_LIMIT_F32 {
        medium(x)
    } else {
        wide(x)
    }
}

/// π/2 in three f32 pieces, each the f32 nearest the rest (together π/2 to ~2^-72).
const PIO2_F32: [f32; 3] = [1.570_796_4, -4.371_139e-8, -1.715_124_5e-15];

/// `x = (4j + q)·π/2 + t` for |x| < 2^16, in f32 (16 lanes per AVX-512 vector where the f64
/// reductions have 8): q = round(x·2/π); `x - q·PIO2_F32[0]` is exact (the fma's product is,
/// and the difference is a multiple of 2^-24 below 1 in magnitude), the two smaller pieces
/// follow in fused steps; t is good to about an f32 rounding, relative, even at the inputs
/// closest to a multiple of π/2 (sin and cos from it stay within 1 ulp on all of |x| < 2^16;
/// from 2^16 on 2 ulp, hence the limit).
#[inline(always)]
fn rem_pio2_f32(x: f32) -> (u32, f32) {
    let k = x * core::f32::consts::FRAC_2_PI + ROUND_MAGIC;
    let q = k - ROUND_MAGIC;
    let t = fma_f32(-q, PIO2_F32[0], x);
    let t = fma_f32(-q, PIO2_F32[1], t);
    let t = fma_f32(-q, PIO2_F32[2], t);
    // The low bits of k hold q + 2^22: its low two bits are q's quadrant.
    (k.to_bits(), t)
}

/// [`rem_pio2_f32`] with t as an unevaluated sum `th + tl`, |tl| <= ~ulp(th): the second
/// piece's product `q·PIO2_F32[1]` split exactly (`uh + ul`, one fma), `t0 - uh` by TwoSum,
/// the third piece added to the tail. For tan, whose slope at ±π/4 doubles t's relative error
/// (with the one-f32 t it came out at 2 ulp).
#[inline(always)]
fn rem_pio2_f32_tail(x: f32) -> (u32, f32, f32) {
    let k = x * core::f32::consts::FRAC_2_PI + ROUND_MAGIC;
    let q = k - ROUND_MAGIC;
    let t0 = fma_f32(-q, PIO2_F32[0], x);
    let uh = q * PIO2_F32[1];
    let ul = fma_f32(q, PIO2_F32[1], -uh);
    let (th, e) = two_sum_f32(t0, -uh);
    (k.to_bits(), th, fma_f32(-q, PIO2_F32[2], e - ul))
}

/// TwoSum in f32: `(a + b, the rounding error)`.
#[inline(always)]
pub(super) fn two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `r` for a finite `x`; NaN (`x - x`, one operation: the same bits in every loop) for ±inf
/// and NaN, as the wide trig forms give.
#[inline(always)]
fn nan_unless_finite(x: f32, r: f32) -> f32 {
    if f32::from_bits(x.to_bits() & 0x7fff_ffff) < f32::INFINITY {
        r
    } else {
        x - x
    }
}

/// `x = (4j + q)·π/2 + t` for |x| < 2^19: fdlibm's medium Cody-Waite in two rounds, in f64.
/// `x - n·PIO2_1` is exact (n < 2^19 and PIO2_1's 33 bits: the product is exact; for |x| >= 1
/// both are multiples of 2^-32 and the difference is below 1), the second round's error is
/// relative to t, and π/2 is carried to ~2^-120, so t is good to ~2^-52 relative even at the
/// f32 inputs closest to a multiple of π/2: ~8 operations instead of [`rem_pio2`]'s ~60.
#[inline(always)]
fn rem_pio2_narrow(x: f32) -> (u32, f64) {
    const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00;
    const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
    const PIO2_2T: f64 = 2.022_266_248_795_950_631_54e-21;
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let xd = x as f64;
    let k = xd * core::f64::consts::FRAC_2_PI + MAGIC;
    let n = k - MAGIC;
    let t = fma_f64(-n, PIO2_2T, fma_f64(-n, PIO2_2, xd - n * PIO2_1));
    (k.to_bits() as u32, t)
}

/// `sin t` (`cos = false`) or `cos t` (`cos = true`) for |t| <= ~π/4: musl's `__sindf` and
/// `__cosdf` coefficients in one Horner form `m·(1 + z(K0 + z(K1 + z(K2 + z·K3))))`, z = t²,
/// m = t or 1, the K selected per lane (one evaluation where a vector would otherwise compute
/// both and select). In f64 for the medium and wide forms (rounding ~2^-50, far below the f32
/// result's); in f32 for the narrow ones (the coefficients rounded to f32: the polynomial's
/// error stays far below an f32 rounding on [-π/4, π/4]). `fma` is the type's fused
/// multiply-add.
#[inline(always)]
fn sin_or_cos<R: Real>(t: R, cos: bool, fma: impl Fn(R, R, R) -> R) -> R {
    let k = |s: f64, c: f64| if cos { R::c(c) } else { R::c(s) };
    let z = t * t;
    let p = k(SIN_K[3], COS_K[3]);
    let p = fma(p, z, k(SIN_K[2], COS_K[2]));
    let p = fma(p, z, k(SIN_K[1], COS_K[1]));
    let p = fma(p, z, k(SIN_K[0], COS_K[0]));
    let m = if cos { R::ONE } else { t };
    fma(m, z * p, m)
}

/// `tan(x + y)` (`odd`: `-1/tan(x + y)`) for |x| <= ~π/4, y the tail of x, from `r = R(x²)`
/// of `tan t = t + t³·R(t²)` (the f32 and f64 narrow tans): `tan = x + pl`,
/// `pl = x³·R + y·(1 + x²)` with x³ carried exactly (x², x·x² and their roundings by fmas:
/// with x³ rounded, pl's roundings came to 1.3 ulp at |x| ~ π/4); odd: `-1/(ph + pt)` from the
/// rounded sum and its tail (|x| >= |pl|), one division and a first-order correction. `fma` is
/// the type's fused multiply-add.
#[inline(always)]
pub(super) fn tan_from_poly<R: Real>(x: R, y: R, r: R, odd: bool, fma: impl Fn(R, R, R) -> R) -> R {
    let z = x * x;
    let s = x * z;
    let zl = fma(x, x, -z);
    let sl = fma(x, z, -s);
    let pl = fma(s, r, fma(r, fma(x, zl, sl), fma(y, z, y)));
    let ph = x + pl;
    let pt = pl - (ph - x);
    let q0 = -R::ONE / ph;
    let e = fma(q0, ph, R::ONE);
    let cot = fma(q0, fma(q0, pt, e), q0);
    if odd { cot } else { ph }
}

/// `sin x` from `x = (4j + q)·π/2 + t`.
#[inline(always)]
fn sin_from(x: f32, q: u32, t: f64) -> f32 {
    let r = sin_or_cos(t, q & 1 != 0, fma_f64);
    let r = if q & 2 == 0 { r } else { -r };
    // ±0 keeps its sign.
    if x == 0.0 { x } else { r as f32 }
}

/// `cos x` from `x = (4j + q)·π/2 + t`.
#[inline(always)]
fn cos_from(q: u32, t: f64) -> f32 {
    let r = sin_or_cos(t, q & 1 == 0, fma_f64);
    let r = if q.wrapping_add(1) & 2 == 0 { r } else { -r };
    r as f32
}

/// Sine for f32: [`sin_f32_narrow`] below 2^16, [`sin_f32_medium`] below 2^19,
/// [`sin_f32_wide`] above (a branch per element; the kernels test a whole block first and run
/// the narrow form alone when every input allows, see `Functor::in_narrow_domain`).
#[inline(always)]
pub fn sin_f32(x: f32) -> f32 {
    by_trig_domain(x, sin_f32_narrow, sin_f32_medium, sin_f32_wide)
}

/// Sine for |x| < 2^16, in f32 ([`rem_pio2_f32`]); meaningless above.
#[inline(always)]
pub fn sin_f32_narrow(x: f32) -> f32 {
    let (q, t) = rem_pio2_f32(x);
    let r = sin_or_cos(t, q & 1 != 0, fma_f32);
    let r = if q & 2 == 0 { r } else { -r };
    // ±0 keeps its sign.
    if x == 0.0 { x } else { r }
}

/// Sine for |x| < 2^19 ([`rem_pio2_narrow`], in f64); meaningless above.
#[inline(always)]
pub fn sin_f32_medium(x: f32) -> f32 {
    let (q, t) = rem_pio2_narrow(x);
    sin_from(x, q, t)
}

/// Sine for f32, branch-free on the whole range (the exact reduction, see the module docs).
#[inline(always)]
pub fn sin_f32_wide(x: f32) -> f32 {
    let (q, t) = rem_pio2(x);
    nan_unless_finite(x, sin_from(x, q, t))
}

/// Cosine for f32: [`cos_f32_narrow`] below 2^16, [`cos_f32_medium`] below 2^19,
/// [`cos_f32_wide`] above (as [`sin_f32`]).
#[inline(always)]
pub fn cos_f32(x: f32) -> f32 {
    by_trig_domain(x, cos_f32_narrow, cos_f32_medium, cos_f32_wide)
}

/// Cosine for |x| < 2^16, in f32 ([`rem_pio2_f32`]); meaningless above.
#[inline(always)]
pub fn cos_f32_narrow(x: f32) -> f32 {
    let (q, t) = rem_pio2_f32(x);
    let r = sin_or_cos(t, q & 1 == 0, fma_f32);
    if q.wrapping_add(1) & 2 == 0 { r } else { -r }
}

/// Cosine for |x| < 2^19 ([`rem_pio2_narrow`], in f64); meaningless above.
#[inline(always)]
pub fn cos_f32_medium(x: f32) -> f32 {
    let (q, t) = rem_pio2_narrow(x);
    cos_from(q, t)
}

/// Cosine for f32, branch-free on the whole range (the exact reduction, see the module docs).
#[inline(always)]
pub fn cos_f32_wide(x: f32) -> f32 {
    let (q, t) = rem_pio2(x);
    nan_unless_finite(x, cos_from(q, t))
}

/// `2^x` for f32, branch-free (Cephes `exp2f`: `2^x = 2^n · 2^r`, n = round(x), |r| <= 1/2).
#[inline(always)]
pub fn exp2_f32(x: f32) -> f32 {
    // 2^128 overflows and 2^-150 rounds to 0: the clamp changes no result. NaN propagates.
    let x = clamp_nan_passing(x, -150.0, 128.0);
    let t = x + ROUND_MAGIC;
    let n = t.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let r = x - (t - ROUND_MAGIC);
    let mut p = 1.535_336_188_319_500e-4f32;
    p = fma_f32(p, r, 1.339_887_440_266_574e-3);
    p = fma_f32(p, r, 9.618_437_357_674_640e-3);
    p = fma_f32(p, r, 5.550_332_471_162_809e-2);
    p = fma_f32(p, r, 2.402_264_791_363_012e-1);
    p = fma_f32(p, r, 6.931_472_028_550_421e-1);
    scale_by_pow2_f32(fma_f32(p, r, 1.0), n)
}

/// `e^x - 1` for f32, branch-free, in f32 with fused multiply-adds (16 lanes in AVX-512, 8 in
/// AVX2; the f64 form it replaces ran at half the width and twice the steps):
/// `x = n ln2 + r` (|r| <= ln2/2, Cody-Waite as [`exp_f32`], exact), `e^r - 1` by its Taylor
/// series to degree 8 (truncation < 2^-30 relative, the r² tail one fma from `r`, so small
/// results keep their relative accuracy), then `2^n (e^r - 1) + (2^n - 1)` in one fma, which
/// has no cancellation for n != 0 and is the series itself for n = 0. The fma runs at
/// `2^(n-h)` and the result is scaled by `2^h` (h = n/2), so every factor is a normal f32 up
/// to the overflow threshold and below it to -1. Max error 1 ulp against f64 `expm1` rounded
/// (tests/math_accuracy.rs).
#[inline(always)]
pub fn expm1_f32(x: f32) -> f32 {
    // e^89 - 1 overflows f32 and e^-30 - 1 rounds to -1: the clamp changes no result; NaN
    // passes.
    let xc = clamp_nan_passing(x, -30.0, 89.0);
    let t = xc * core::f32::consts::LOG2_E + ROUND_MAGIC;
    let n = t.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let nf = t - ROUND_MAGIC;
    let r = fma_f32(nf, 2.121_944_4e-4, xc - nf * 0.693_359_375);
    let mut p = 1.0 / 40_320.0f32;
    p = fma_f32(p, r, 1.0 / 5_040.0);
    p = fma_f32(p, r, 1.0 / 720.0);
    p = fma_f32(p, r, 1.0 / 120.0);
    p = fma_f32(p, r, 1.0 / 24.0);
    p = fma_f32(p, r, 1.0 / 6.0);
    p = fma_f32(p, r, 0.5);
    let em1 = fma_f32(p, r * r, r);
    // 2^n·em1 + (2^n - 1) = 2^h·(2^(n-h)·em1 + (2^(n-h) - 2^-h)); n in [-44, 128], so
    // h in [-22, 64] and n - h in [-22, 64]. 2^(n-h) - 2^-h is exact while |n| <= 24 (beyond,
    // the -1 is below the result's rounding).
    let h = n >> 1;
    let pow2 = |k: i32| f32::from_bits(((k + 127) as u32) << 23);
    let s = pow2(n - h);
    let y = fma_f32(s, em1, s - pow2(-h)) * pow2(h);
    // ±0 keeps its sign.
    if x == 0.0 { x } else { y }
}
