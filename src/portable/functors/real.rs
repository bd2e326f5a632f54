//! `Real`: the float math the functors are written against, for the two opmath types f32 and
//! f64 (f16/bf16 functors compute in f32 and round once). Backed by `libm`, so it is `no_std`
//! and compiles to PTX unchanged.

use super::fastmath as fm;
use super::fastmath::double_trig as dt;
use core::ops::{Add, Div, Mul, Neg, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// f32 or f64 with the libm functions the functors use.
pub trait Real:
    sealed::Sealed
    + Copy
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
    const NAN: Self;
    const INFINITY: Self;
    /// The smallest positive normal value.
    const MIN_POSITIVE: Self;
    /// Rounds an f64 constant to this type (correctly rounded).
    fn c(x: f64) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    /// `exp` with its subnormal results made without a subnormal floating-point operation (on
    /// x86 each costs a microcode assist per vector): the same bits, costlier where the result
    /// is normal. f32 only; f64's is `exp` (its subnormal results start at x < -708).
    fn exp_without_assists(self) -> Self;
    /// Whether `exp(self)` is a normal number or overflows (false for NaN): the domain of
    /// `exp_normal`.
    fn exp_is_normal(self) -> bool;
    /// `exp` where `exp_is_normal` holds (elsewhere unspecified): the same bits, cheaper.
    fn exp_normal(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    /// `ln(1 + x)` for x in [0, 1] only (a polynomial, no reduction: `e^-|x|` terms).
    fn ln_1p_unit(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    /// Whether `self` is a positive normal finite number (false for NaN): the domain of
    /// `ln_normal`, `log2_normal`, `log10_normal`.
    fn is_positive_normal(self) -> bool;
    /// `ln` where `is_positive_normal` holds (elsewhere unspecified): the same bits, without
    /// the subnormal scaling and the special cases.
    fn ln_normal(self) -> Self;
    /// `log2` where `is_positive_normal` holds, as `ln_normal`.
    fn log2_normal(self) -> Self;
    /// `log10` where `is_positive_normal` holds, as `ln_normal`.
    fn log10_normal(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    /// Whether `sin_narrow`, `cos_narrow`, `tan_narrow` hold at `self`: |x| below the bound of
    /// their short argument reduction (f32 2^19, f64 2^20·π/2), where they give exactly the bits
    /// of `sin`, `cos`, `tan` (those are defined as the narrow forms there).
    fn trig_narrow(self) -> bool;
    fn sin_narrow(self) -> Self;
    fn cos_narrow(self) -> Self;
    fn tan_narrow(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn erf(self) -> Self;
    /// `1 - erf(x)`, accurate where erf is near 1.
    fn erfc(self) -> Self;
    /// Whether `erfc_central` holds at `self` (f64 |x| < 1.25, f32 |x| <= 2.8285; false for NaN).
    fn is_erfc_central(self) -> bool;
    /// `erfc` where `is_erfc_central` holds (elsewhere unspecified): the same bits; f64's
    /// without the tails' exps, f32's with `erfcx` as a polynomial (no divisions).
    fn erfc_central(self) -> Self;
    /// `2^x`.
    fn exp2(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    /// Round half to even.
    fn round_even(self) -> Self;
    fn fmod(self, y: Self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn pow(self, y: Self) -> Self;
    /// Whether `pow_narrow` holds at `(self, y)`: a positive finite base and a finite exponent
    /// (f64: a normal base other than 1, an exponent other than 0, ±1, 2 and 0.5), where `pow`
    /// reaches none of its special cases or exact forms.
    fn pow_in_narrow(self, y: Self) -> bool;
    /// `pow` where `pow_in_narrow` holds (elsewhere unspecified): the same bits, without the
    /// tests of the exponent's parity and the special-case selects.
    fn pow_narrow(self, y: Self) -> Self;
    /// Whether `atan2_narrow` holds at `(self, x)`: both finite and not both zero (f64: both
    /// nonzero, `|self/x|` within 2^±64), where `atan2` reaches none of its special cases.
    fn atan2_in_narrow(self, x: Self) -> bool;
    /// `atan2` where `atan2_in_narrow` holds (elsewhere unspecified): the same bits.
    fn atan2_narrow(self, x: Self) -> Self;
    fn hypot(self, y: Self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    /// C `nextafter`: the next representable value from `self` toward `to` (`to` itself when
    /// equal, NaN when either is NaN).
    fn next_after(self, to: Self) -> Self;
    /// `factor·e^self` with the power of two of `e^self` applied last, so that a subnormal
    /// result is rounded once (`exp(self) * factor` rounds a subnormal `e^self` first and loses
    /// its low bits): silu's `x·e^x` tail.
    fn exp_times(self, factor: Self) -> Self;
}

macro_rules! real_impl {
    ($t:ty, $($name:ident = $f:path),* ; $($name2:ident = $f2:path),* ; $($pred:ident = $fp:path),*
     ; $($pred2:ident = $fp2:path),*) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            const NAN: Self = <$t>::NAN;
            const INFINITY: Self = <$t>::INFINITY;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            #[inline(always)]
            fn c(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            #[inline(always)]
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::from_bits(self.to_bits() & !(1 << (<$t>::BITS_M1)))
            }
            $(
                #[inline(always)]
                fn $name(self) -> Self {
                    $f(self)
                }
            )*
            $(
                #[inline(always)]
                fn $name2(self, y: Self) -> Self {
                    $f2(self, y)
                }
            )*
            $(
                #[inline(always)]
                fn $pred2(self, y: Self) -> bool {
                    $fp2(self, y)
                }
            )*
            $(
                #[inline(always)]
                fn $pred(self) -> bool {
                    $fp(self)
                }
            )*
        }
    };
}

trait Bits {
    const BITS_M1: u32;
}
impl Bits for f32 {
    const BITS_M1: u32 = 31;
}
impl Bits for f64 {
    const BITS_M1: u32 = 63;
}

/// `sqrt`, `floor`, `ceil`, `trunc`, `round_even`, `copysign`: the std methods when `std` is
/// on (LLVM intrinsics: `sqrtps`, `roundps`, ..., vectorized by the kernels' loops), libm's
/// software forms in the `no_std` (PTX) build. Both are exact (correctly rounded), so the
/// results are the same bits.
macro_rules! std_or_libm {
    ($($name:ident: $t:ty => $std:ident, $libm:path;)*) => {$(
        #[inline(always)]
        pub(super) fn $name(x: $t) -> $t {
            #[cfg(feature = "std")]
            {
                <$t>::$std(x)
            }
            #[cfg(not(feature = "std"))]
            {
                $libm(x)
            }
        }
    )*};
}
std_or_libm! {
    sqrt_f32: f32 => sqrt, libm::sqrtf;
    floor_f32: f32 => floor, libm::floorf;
    ceil_f32: f32 => ceil, libm::ceilf;
    trunc_f32: f32 => trunc, libm::truncf;
    round_even_f32: f32 => round_ties_even, libm::roundevenf;
    sqrt_f64: f64 => sqrt, libm::sqrt;
    floor_f64: f64 => floor, libm::floor;
    ceil_f64: f64 => ceil, libm::ceil;
    trunc_f64: f64 => trunc, libm::trunc;
    round_even_f64: f64 => round_ties_even, libm::roundeven;
}

/// `copysign` as bit operations (libm's is a call per element; this vectorizes), the same
/// bits: the magnitude of `x`, the sign bit of `s` (NaNs included).
#[inline(always)]
fn copysign_f32(x: f32, s: f32) -> f32 {
    f32::from_bits((x.to_bits() & !(1 << 31)) | (s.to_bits() & (1 << 31)))
}
/// f64's `factor·e^x`: the product after the exp (subnormal f64 results begin at x < -708, where
/// this rounds twice).
#[inline(always)]
fn exp_times_f64(x: f64, factor: f64) -> f64 {
    fm::double::exp_f64(x) * factor
}

#[inline(always)]
fn copysign_f64(x: f64, s: f64) -> f64 {
    f64::from_bits((x.to_bits() & !(1 << 63)) | (s.to_bits() & (1 << 63)))
}

/// C `nextafter` by selects on the bits (libm's branches kept the vector loops scalar: 5.6x the
/// copy limit for f32): the same results, NaN as libm's `x + y`.
macro_rules! next_after_bits {
    ($name:ident, $t:ty, $sign:expr) => {
        #[inline(always)]
        fn $name(x: $t, y: $t) -> $t {
            let xb = x.to_bits();
            let away_from_zero = (x < y) == (x > 0.0);
            let stepped = if away_from_zero {
                xb.wrapping_add(1)
            } else {
                xb.wrapping_sub(1)
            };
            // From a zero: the smallest subnormal with y's sign.
            let from_zero = (y.to_bits() & $sign) | 1;
            let r = <$t>::from_bits(if xb & !$sign == 0 { from_zero } else { stepped });
            if x == y {
                y
            } else if x.is_nan() || y.is_nan() {
                x + y
            } else {
                r
            }
        }
    };
}
next_after_bits!(next_after_f32, f32, 1u32 << 31);
next_after_bits!(next_after_f64, f64, 1u64 << 63);

// The branch-free forms of `fastmath` wherever one exists (every functor written against
// `Real` gets them, mish and softplus as much as exp; the loops vectorize), libm elsewhere:
// f64 sin/cos/tan above 2^20·π/2 (the branch-free general reduction costs more than libm's) and
// f64 erfc outside |x| < 1.25 (fdlibm's branch-free form, all four intervals and two exps in
// every lane, loses to libm's branch per interval when the data sits in one interval; inside,
// blocks take the central form without exps; f64 erf is two polynomials without a tail, faster
// than libm on any data).
real_impl!(f32,
    sqrt = sqrt_f32, exp = fm::exp_f32, exp_without_assists = fm::exp_f32_without_assists,
    exp_normal = fm::exp_f32_normal,
    exp_m1 = fm::expm1_f32, ln = fm::log_f32,
    ln_1p = fm::log1p_f32, ln_1p_unit = fm::log1p_unit_f32, log2 = fm::log2_f32, log10 = fm::log10_f32,
    ln_normal = fm::log_f32_normal, log2_normal = fm::log2_f32_normal,
    log10_normal = fm::log10_f32_normal, sin = fm::sin_f32,
    cos = fm::cos_f32, tan = fm::trig::tan_f32, sin_narrow = fm::sin_f32_narrow,
    cos_narrow = fm::cos_f32_narrow, tan_narrow = fm::trig::tan_f32_narrow, asin = fm::trig::asin_f32,
    acos = fm::trig::acos_f32, atan = fm::trig::atan_f32, sinh = fm::hyperbolic::sinh_f32,
    cosh = fm::hyperbolic::cosh_f32, tanh = fm::tanh_f32, erf = fm::erf::erf_f32,
    erfc = fm::erf::erfc_f32, erfc_central = fm::erf::erfc_f32_central, exp2 = fm::exp2_f32, asinh = fm::hyperbolic::asinh_f32,
    acosh = fm::hyperbolic::acosh_f32, atanh = fm::hyperbolic::atanh_f32, floor = floor_f32,
    ceil = ceil_f32, trunc = trunc_f32, round_even = round_even_f32;
    fmod = fmod_f32, atan2 = fm::trig::atan2_f32, pow = fm::power::pow_f32,
    hypot = fm::power::hypot_f32, copysign = copysign_f32, next_after = next_after_f32,
    exp_times = fm::exp_f32_times, pow_narrow = fm::power::pow_f32_narrow,
    atan2_narrow = fm::trig::atan2_f32_narrow;
    trig_narrow = fm::trig_narrow_f32, exp_is_normal = fm::exp_f32_is_normal,
    is_positive_normal = fm::is_positive_normal_f32, is_erfc_central = fm::erf::erfc_f32_is_central;
    pow_in_narrow = fm::power::pow_f32_in_narrow, atan2_in_narrow = fm::trig::atan2_f32_in_narrow
);
real_impl!(f64,
    sqrt = sqrt_f64, exp = fm::double::exp_f64, exp_without_assists = fm::double::exp_f64,
    exp_normal = fm::double::exp_f64_normal,
    exp_m1 = fm::double::expm1_f64,
    ln = fm::double::log_f64, ln_1p = fm::double::log1p_f64,
    ln_1p_unit = fm::double::log1p_unit_f64, log2 = fm::double_hyp::log2_f64,
    log10 = fm::double_hyp::log10_f64, ln_normal = fm::double::log_f64_normal,
    log2_normal = fm::double_hyp::log2_f64_normal, log10_normal = fm::double_hyp::log10_f64_normal,
    sin = sin_f64, cos = cos_f64, tan = tan_f64,
    sin_narrow = dt::sin_f64_narrow, cos_narrow = dt::cos_f64_narrow,
    tan_narrow = dt::tan_f64_narrow,
    asin = fm::double_trig::asin_f64, acos = fm::double_trig::acos_f64,
    atan = fm::double_trig::atan_f64, sinh = fm::double_hyp::sinh_f64,
    cosh = fm::double_hyp::cosh_f64, tanh = fm::double::tanh_f64,
    erf = fm::double_erf_pow::erf_f64, erfc = libm::erfc,
    erfc_central = fm::double_erf_pow::erfc_f64_central,
    exp2 = fm::double_hyp::exp2_f64, asinh = fm::double_hyp::asinh_f64,
    acosh = fm::double_hyp::acosh_f64, atanh = fm::double_hyp::atanh_f64, floor = floor_f64,
    ceil = ceil_f64, trunc = trunc_f64, round_even = round_even_f64;
    fmod = fmod_f64, atan2 = fm::double_trig::atan2_f64, pow = fm::double_erf_pow::pow_f64,
    hypot = fm::double_erf_pow::hypot_f64, copysign = copysign_f64,
    next_after = next_after_f64, exp_times = exp_times_f64,
    pow_narrow = fm::double_erf_pow::pow_f64_narrow,
    atan2_narrow = fm::double_trig::atan2_f64_narrow;
    trig_narrow = dt::trig_narrow_f64, exp_is_normal = fm::double::exp_f64_is_normal,
    is_positive_normal = fm::double::is_positive_normal_f64,
    is_erfc_central = fm::double_erf_pow::erfc_f64_is_central;
    pow_in_narrow = fm::double_erf_pow::pow_f64_in_narrow,
    atan2_in_narrow = fm::double_trig::atan2_f64_in_narrow
);

/// f64 `sin`, `cos`, `tan` as `Real` has them: the vectorizable narrow forms below 2^20·π/2,
/// libm above (the branch-free general forms pay a Payne-Hanek reduction in every lane, ~5x
/// libm's time).
macro_rules! f64_trig {
    ($($name:ident = $narrow:path, $libm:path;)*) => {$(
        #[inline(always)]
        fn $name(x: f64) -> f64 {
            if dt::trig_narrow_f64(x) { $narrow(x) } else { $libm(x) }
        }
    )*};
}
f64_trig! {
    sin_f64 = dt::sin_f64_narrow, libm::sin;
    cos_f64 = dt::cos_f64_narrow, libm::cos;
    tan_f64 = dt::tan_f64_narrow, libm::tan;
}

/// C `fmod` for one float type, exact (so bit-identical to libm's), with no panic path: libm's
/// generic version has an integer `%` and an `ilog2` whose zero cases its early returns exclude,
/// which LLVM cannot prove, so they became `trap` in the PTX. Same structure: NaN cases as
/// `(x*y)/(x*y)`, then `(num << (ex - ey)) % div` reduced in chunks that fit u64.
macro_rules! fmod_impl {
    ($name:ident, $t:ty, $u:ty, $bits:expr, $sig:expr, $chunk:expr) => {
        #[inline]
        fn $name(x: $t, y: $t) -> $t {
            const SIGN: $u = 1 << ($bits - 1);
            const EXP_MASK: $u = !SIGN & !((1 << $sig) - 1);
            const IMPLICIT: $u = 1 << $sig;
            let sx = x.to_bits() & SIGN;
            let ux = x.to_bits() & !SIGN;
            let uy = y.to_bits() & !SIGN;
            // NaN % _, inf % _, _ % NaN, _ % 0
            if (ux & EXP_MASK == EXP_MASK) | (uy.wrapping_sub(1) & EXP_MASK == EXP_MASK) {
                return (x * y) / (x * y);
            }
            if ux < uy {
                return x;
            }
            // (significand with the implicit bit, exponent past 1); 0 exponent for subnormals
            let sig_exp = |bits: $u| {
                let sat = bits.saturating_sub(IMPLICIT);
                ((bits - (sat & EXP_MASK)) as u64, (sat >> $sig) as u32)
            };
            let (num, ex) = sig_exp(ux);
            let (div, ey) = sig_exp(uy);
            // div > 0 (y is finite and non-zero); rem < div < 2^($sig + 1) keeps `rem << $chunk`
            // inside u64.
            let mut rem = num.checked_rem(div).unwrap_or(0);
            let mut e = ex.wrapping_sub(ey);
            while e > 0 {
                let s = if e < $chunk { e } else { $chunk };
                rem = (rem << s).checked_rem(div).unwrap_or(0);
                e -= s;
            }
            if rem == 0 {
                return <$t>::from_bits(sx);
            }
            let log2 = 63 - rem.leading_zeros();
            let shift = if ey < $sig - log2 { ey } else { $sig - log2 };
            let bits = (rem << shift) + (((ey - shift) as u64) << $sig);
            <$t>::from_bits(sx | bits as $u)
        }
    };
}
fmod_impl!(fmod_f32, f32, u32, 32, 23, 40);
fmod_impl!(fmod_f64, f64, u64, 64, 52, 11);

/// Whether `fmod_f32_narrow(x, y)` is exact: the true `|x / y| < 2^24`, with `y` finite (NaN,
/// infinite `x` and a zero `y` all fail). Without a division: `2^24·|y|` is exact (a power of
/// two; where it overflows to infinity, `|y| > 2^104` and every finite `x` qualifies).
#[inline(always)]
pub(crate) fn fmod_f32_in_narrow(x: f32, y: f32) -> bool {
    x.abs() < y.abs() * 16_777_216.0 && y.is_finite()
}

/// f32 `fmod` where [`fmod_f32_in_narrow`] holds, in f32 without loops or branches (the
/// vector loops run it, 8 lanes in AVX2; the exact integer form above stays scalar; an f64
/// form, 4 lanes and an f64 division, made f32 floor_divide 2x its copy limit).
/// `q0 = trunc(fl(x / y))` is the true quotient's truncation `q` or one further from zero:
/// the rounded quotient is within half an ulp (at most 1/2 below 2^24, and may round up to
/// 2^24 itself), and rounding is monotonic with the integers below 2^24 representable, so it
/// can reach the next integer but never fall below the truncation. `x - q·y` is the exact remainder, representable, so a
/// fused multiply-add gives it exactly; with `q0` one too far the first one holds the
/// remainder minus `y` (nonzero, of the sign opposite to `x`'s, which rounding keeps): then
/// `q0 ∓ 1` (exact below 2^24) and the second one is exact. The sign of `x` is put back on a
/// zero.
#[inline(always)]
pub(crate) fn fmod_f32_narrow(x: f32, y: f32) -> f32 {
    let q0 = trunc_f32(x / y);
    let r0 = fm::fma_f32(-q0, y, x);
    // The quotient's sign (x / y may be +-0, so from the operands' signs).
    let sign = copysign_f32(1.0, x) * copysign_f32(1.0, y);
    let too_far = r0 != 0.0 && (r0 < 0.0) != (x < 0.0);
    let q = if too_far { q0 - sign } else { q0 };
    copysign_f32(fm::fma_f32(-q, y, x), x)
}

/// Stamps `Functor<(T,)>` for f32, f64 (computed natively) and f16, bf16 (computed in f32,
/// rounded once) for a unit or parameter struct with an inherent
/// `fn eval<R: Real>(&self, x: R) -> R`.
macro_rules! real_unary_impls {
    // `f32 => method`: the f32 impl calls the functor's inherent `#[inline(always)] fn
    // method(&self, f32) -> f32` (a vectorizable form from `fastmath`) instead of the generic
    // body; f64 and f16/bf16 (computed in f32 through it) are unchanged. A method, not a
    // closure: a closure carries no `#[inline(always)]`, and one LLVM left out of line was
    // called per element from the AVX2 loop (exact f32 gelu ran at 250 ns per element).
    ($name:ty, f32 => $method:ident) => {
        impl $crate::functors::Functor<(f32,)> for $name {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (x,): (f32,)) -> f32 {
                self.$method(x)
            }
        }
        $crate::functors::real::real_unary_impls!(@rest $name);
    };
    ($name:ty) => {
        impl $crate::functors::Functor<(f32,)> for $name {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (x,): (f32,)) -> f32 {
                self.eval(x)
            }
        }
        $crate::functors::real::real_unary_impls!(@rest $name);
    };
    // `half: sign_bits`: f32 and f64 through `eval`, f16/bf16 on their 16-bit patterns through
    // the functor's inherent `fn sign_bits(&self, u16) -> u16` (`OpFlag::SignBits`: neg, abs).
    ($name:ty, half: sign_bits) => {
        impl $crate::functors::Functor<(f32,)> for $name {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (x,): (f32,)) -> f32 {
                self.eval(x)
            }
        }
        impl $crate::functors::Functor<(f64,)> for $name {
            type Output = f64;
            #[inline(always)]
            fn call(&self, (x,): (f64,)) -> f64 {
                self.eval(x)
            }
        }
        $crate::functors::real::real_unary_impls!(@sign_bits $name, half::f16);
        $crate::functors::real::real_unary_impls!(@sign_bits $name, half::bf16);
    };
    (@sign_bits $name:ty, $h:ty) => {
        impl $crate::functors::Functor<($h,)> for $name {
            type Output = $h;
            #[inline(always)]
            fn call(&self, (x,): ($h,)) -> $h {
                <$h>::from_bits(self.sign_bits(x.to_bits()))
            }
        }
    };
    // `narrow: m, domain: d`: f32 and f64 have the functor's inherent `m` as the narrow form
    // (`Functor::call_narrow`) on the inputs where its inherent `d` holds
    // (`Functor::in_narrow_domain`): the trig functions (their short argument reduction), exp
    // and sigmoid (normal results and intermediates, where they need no subnormal-safe steps),
    // the logs (positive normal inputs: no subnormal scaling, no special cases), f64 erfc
    // (|x| < 1.25: no exps).
    ($name:ty, narrow: $narrow:ident, domain: $domain:ident) => {
        $crate::functors::real::real_unary_impls!(@narrow $name, f32, $narrow, $domain);
        $crate::functors::real::real_unary_impls!(@narrow $name, f64, $narrow, $domain);
        $crate::functors::real::real_unary_impls!(@half $name);
    };
    (@narrow $name:ty, $t:ty, $narrow:ident, $domain:ident) => {
        impl $crate::functors::Functor<($t,)> for $name {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                self.eval(x)
            }
            const HAS_NARROW_DOMAIN: bool = true;
            #[inline(always)]
            fn in_narrow_domain(&self, (x,): ($t,)) -> bool {
                self.$domain(x)
            }
            #[inline(always)]
            fn call_narrow(&self, (x,): ($t,)) -> $t {
                self.$narrow(x)
            }
        }
    };
    (@rest $name:ty) => {
        impl $crate::functors::Functor<(f64,)> for $name {
            type Output = f64;
            #[inline(always)]
            fn call(&self, (x,): (f64,)) -> f64 {
                self.eval(x)
            }
        }
        $crate::functors::real::real_unary_impls!(@half $name);
    };
    (@half $name:ty) => {
        // f16/bf16: the f32 functor, rounded once. Exactly this (checked for every value in
        // tests/half_blocks.rs) lets the kernels run the f32 functor over converted blocks
        // (every op without `OpFlag::HalfOwnRounding`).
        impl $crate::functors::Functor<(half::f16,)> for $name {
            type Output = half::f16;
            #[inline(always)]
            fn call(&self, (x,): (half::f16,)) -> half::f16 {
                half::f16::from_f32(<$name as $crate::functors::Functor<(f32,)>>::call(self, (x.to_f32(),)))
            }
        }
        impl $crate::functors::Functor<(half::bf16,)> for $name {
            type Output = half::bf16;
            #[inline(always)]
            fn call(&self, (x,): (half::bf16,)) -> half::bf16 {
                half::bf16::from_f32(<$name as $crate::functors::Functor<(f32,)>>::call(self, (x.to_f32(),)))
            }
        }
    };
}

/// Binary counterpart of [`real_unary_impls`]: `fn eval<R: Real>(&self, a: R, b: R) -> R`.
macro_rules! real_binary_impls {
    ($name:ty) => {
        impl $crate::functors::Functor<(f32, f32)> for $name {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (a, b): (f32, f32)) -> f32 {
                self.eval(a, b)
            }
        }
        $crate::functors::real::real_binary_impls!(@rest $name);
    };
    // `narrow: m, domain: d`: as `real_unary_impls!`'s, for two arguments (`pow`: a positive
    // base and a finite exponent skip the special cases).
    ($name:ty, narrow: $narrow:ident, domain: $domain:ident) => {
        $crate::functors::real::real_binary_impls!(@narrow $name, f32, $narrow, $domain);
        $crate::functors::real::real_binary_impls!(@narrow $name, f64, $narrow, $domain);
        $crate::functors::real::real_binary_impls!(@half $name);
    };
    (@narrow $name:ty, $t:ty, $narrow:ident, $domain:ident) => {
        impl $crate::functors::Functor<($t, $t)> for $name {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                self.eval(a, b)
            }
            const HAS_NARROW_DOMAIN: bool = true;
            #[inline(always)]
            fn in_narrow_domain(&self, (a, b): ($t, $t)) -> bool {
                self.$domain(a, b)
            }
            #[inline(always)]
            fn call_narrow(&self, (a, b): ($t, $t)) -> $t {
                self.$narrow(a, b)
            }
        }
    };
    // `fmod_narrow`: an op built on `fmod` (`eval_with(a, b, fmod)`) whose f32 form has fmod's
    // narrow domain (`fmod_f32_in_narrow`: one vectorizable loop per block where all pass).
    ($name:ty, fmod_narrow) => {
        impl $crate::functors::Functor<(f32, f32)> for $name {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (a, b): (f32, f32)) -> f32 {
                self.eval_with(a, b, $crate::functors::real::Real::fmod)
            }
            const HAS_NARROW_DOMAIN: bool = true;
            #[inline(always)]
            fn in_narrow_domain(&self, (a, b): (f32, f32)) -> bool {
                $crate::functors::real::fmod_f32_in_narrow(a, b)
            }
            #[inline(always)]
            fn call_narrow(&self, (a, b): (f32, f32)) -> f32 {
                self.eval_with(a, b, $crate::functors::real::fmod_f32_narrow)
            }
        }
        $crate::functors::real::real_binary_impls!(@rest $name);
    };
    // `half: sign_bits`: f32 and f64 through `eval`, f16/bf16 on their 16-bit patterns through
    // the functor's inherent `fn sign_bits(&self, u16, u16) -> u16` (`OpFlag::SignBits`:
    // copysign).
    ($name:ty, half: sign_bits) => {
        impl $crate::functors::Functor<(f32, f32)> for $name {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (a, b): (f32, f32)) -> f32 {
                self.eval(a, b)
            }
        }
        impl $crate::functors::Functor<(f64, f64)> for $name {
            type Output = f64;
            #[inline(always)]
            fn call(&self, (a, b): (f64, f64)) -> f64 {
                self.eval(a, b)
            }
        }
        $crate::functors::real::real_binary_impls!(@sign_bits $name, half::f16);
        $crate::functors::real::real_binary_impls!(@sign_bits $name, half::bf16);
    };
    (@sign_bits $name:ty, $h:ty) => {
        impl $crate::functors::Functor<($h, $h)> for $name {
            type Output = $h;
            #[inline(always)]
            fn call(&self, (a, b): ($h, $h)) -> $h {
                <$h>::from_bits(self.sign_bits(a.to_bits(), b.to_bits()))
            }
        }
    };
    (@rest $name:ty) => {
        impl $crate::functors::Functor<(f64, f64)> for $name {
            type Output = f64;
            #[inline(always)]
            fn call(&self, (a, b): (f64, f64)) -> f64 {
                self.eval(a, b)
            }
        }
        $crate::functors::real::real_binary_impls!(@half $name);
    };
    // f16/bf16: the f32 functor, rounded once (as `real_unary_impls!`'s `@half`).
    (@half $name:ty) => {
        impl $crate::functors::Functor<(half::f16, half::f16)> for $name {
            type Output = half::f16;
            #[inline(always)]
            fn call(&self, (a, b): (half::f16, half::f16)) -> half::f16 {
                half::f16::from_f32(<$name as $crate::functors::Functor<(f32, f32)>>::call(
                    self,
                    (a.to_f32(), b.to_f32()),
                ))
            }
        }
        impl $crate::functors::Functor<(half::bf16, half::bf16)> for $name {
            type Output = half::bf16;
            #[inline(always)]
            fn call(&self, (a, b): (half::bf16, half::bf16)) -> half::bf16 {
                half::bf16::from_f32(<$name as $crate::functors::Functor<(f32, f32)>>::call(
                    self,
                    (a.to_f32(), b.to_f32()),
                ))
            }
        }
    };
}

/// Stamps `Functor<(T, T)>` (or `(T,)`) for integer types from a closure-like body.
/// `int_binary_impls!(Op, group, |a, b| body)`: `Functor<(T, T)>` with `Output = T` for
/// every type of a dtype group (`int`, `integral`), the body stamped per type.
macro_rules! int_binary_impls {
    ($name:ty, $g:ident, |$a:ident, $b:ident| $body:expr) => {
        $crate::dtype_types!($g => $crate::functors::real::int_binary_impls!($name, |$a, $b| $body;));
    };
    ($name:ty, |$a:ident, $b:ident| $body:expr; [$($t:ty),*]) => {$(
        impl $crate::functors::Functor<($t, $t)> for $name {
            type Output = $t;
            #[inline(always)]
            // One body for signed and unsigned types: `x < 0` is always false for unsigned.
            #[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
            fn call(&self, ($a, $b): ($t, $t)) -> $t {
                $body
            }
        }
    )*};
}

/// `int_unary_impls!(Op, group, |x| body)`: `Functor<(T,)>` with `Output = T` for every
/// type of a dtype group.
macro_rules! int_unary_impls {
    ($name:ty, $g:ident, |$x:ident| $body:expr) => {
        $crate::dtype_types!($g => $crate::functors::real::int_unary_impls!($name, |$x| $body;));
    };
    ($name:ty, |$x:ident| $body:expr; [$($t:ty),*]) => {$(
        impl $crate::functors::Functor<($t,)> for $name {
            type Output = $t;
            #[inline(always)]
            #[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
            fn call(&self, ($x,): ($t,)) -> $t {
                $body
            }
        }
    )*};
}

pub(crate) use {int_binary_impls, int_unary_impls, real_binary_impls, real_unary_impls};
