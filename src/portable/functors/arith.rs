//! Arithmetic functors: add, sub, mul, div, floor_divide, remainder, fmod, pow, maximum,
//! minimum, atan2, copysign, hypot, xlogy, logaddexp, fmax, fmin, heaviside, nextafter, gcd,
//! lcm, and the unary neg, abs, sign, square, reciprocal.
//!
//! Integers wrap (two's complement); integer division by zero returns 0 here (the ops layer
//! checks divisors first and reports `Error::ZeroDivision`). Bool add is `or`, bool mul is
//! `and`; bool sub/neg/abs have no impl, as in PyTorch.

// The integer macros stamp one body for signed and unsigned types; `x < 0` is then always
// false for the unsigned ones, which is intended.
#![allow(unused_comparisons, clippy::absurd_extreme_comparisons)]

use super::real::{Real, int_binary_impls, int_unary_impls, real_binary_impls, real_unary_impls};
use super::{Functor, HalfFormat};
use half::{bf16, f16};

macro_rules! unit {
    ($($(#[$m:meta])* $name:ident),* $(,)?) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
    )*};
}

unit!(
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// True division (floats only: the ops layer promotes integers to f32 first).
    Div,
    /// Python floor division (`//`).
    FloorDivide,
    /// Python modulo: the result has the divisor's sign, but a zero result keeps the dividend's.
    Remainder,
    /// C `fmod`: truncated remainder, sign of the dividend.
    Fmod,
    /// `a ** b` with a tensor exponent.
    Pow,
    /// Elementwise max, NaN propagating.
    Maximum,
    /// Elementwise min, NaN propagating.
    Minimum,
    /// `atan2(a, b)` (floats).
    Atan2,
    /// Magnitude of `a`, sign of `b` (floats).
    Copysign,
    /// `sqrt(a² + b²)` without undue overflow (floats).
    Hypot,
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// -1, 0 or 1 (0 for NaN; `sign(-0.0) = +0.0`).
    Sign,
    /// `x * x`.
    Square,
    /// `1 / x` (floats).
    Reciprocal,
);

// ---------------------------------------------------------------- add / sub / mul / div

impl Add {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a + b
    }
}
real_binary_impls!(Add);
int_binary_impls!(Add, int, |a, b| a.wrapping_add(b));
impl Functor<(bool, bool)> for Add {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (a, b): (bool, bool)) -> bool {
        a | b
    }
}

impl Sub {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a - b
    }
}
real_binary_impls!(Sub);
int_binary_impls!(Sub, int, |a, b| a.wrapping_sub(b));

impl Mul {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a * b
    }
}
real_binary_impls!(Mul);
int_binary_impls!(Mul, int, |a, b| a.wrapping_mul(b));
impl Functor<(bool, bool)> for Mul {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (a, b): (bool, bool)) -> bool {
        a & b
    }
}

impl Div {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a / b
    }
}
real_binary_impls!(Div);

// ---------------------------------------------------------------- floor_divide / remainder / fmod

/// Integer division for floor_divide, remainder and fmod, branch-free: `MIN / -1` wraps
/// (`MIN`, remainder 0, as in PyTorch) and `b == 0` gives 0 (the ops layer reports it first).
/// x86 has no vector integer division, so where a float division is exact for the type it
/// takes one: if `a/b` is not an integer it is at least `1/|b|` from one (relatively `1/|a|`),
/// more than a float's half ulp when the float has more significand bits than the integers,
/// so the float quotient's floor is the integer quotient's floor. 8- and 16-bit integers
/// divide in f32 (8 lanes in AVX2, 16 in AVX-512), 32-bit ones in f64; the floor is taken
/// with the round-to-integer constant (no float -> integer conversion, which LLVM does not
/// vectorize when it saturates). 64-bit integers use the instruction, and the f64 division as
/// a narrow form where both magnitudes are below 2^51 (`floor_div_rem_f64`). The same bits on
/// every path.
pub(crate) trait IntDivision: Sized {
    /// `(floor(a / b), a - b·floor(a / b))`: floor_divide and remainder.
    fn floor_div_rem(self, b: Self) -> (Self, Self);
    /// Whether the type has [`Self::floor_div_rem_f64`] as a narrow form (64-bit types).
    const HAS_F64_FORM: bool = false;
    /// Whether [`Self::floor_div_rem_f64`] is exact at `(a, b)`.
    #[inline(always)]
    fn in_f64_form(a: Self, b: Self) -> bool {
        let _ = (a, b);
        false
    }
    /// `floor_div_rem` through one f64 division, for `in_f64_form`'s domain only.
    #[inline(always)]
    fn floor_div_rem_f64(self, b: Self) -> (Self, Self) {
        self.floor_div_rem(b)
    }
    /// `a - b·floor(a / b)`: remainder.
    #[inline(always)]
    fn floor_rem(self, b: Self) -> Self {
        self.floor_div_rem(b).1
    }
    /// `a - b·trunc(a / b)`: fmod (the sign of `a`), from the floored remainder.
    #[inline(always)]
    fn trunc_rem(self, b: Self) -> Self
    where
        Self: Copy + PartialOrd + Default + core::ops::Sub<Output = Self>,
    {
        trunc_from_floor_rem(self, b, self.floor_div_rem(b).1)
    }
}

/// `a - b·trunc(a / b)` from the floored remainder `r` of `a / b`.
#[inline(always)]
fn trunc_from_floor_rem<T>(a: T, b: T, r: T) -> T
where
    T: Copy + PartialOrd + Default + core::ops::Sub<Output = T>,
{
    let zero = T::default();
    // A non-zero floored remainder of a negative quotient is one divisor past the truncated
    // one (never for unsigned types).
    if r != zero && ((a < zero) != (b < zero)) {
        r - b
    } else {
        r
    }
}

/// 8- and 16-bit integers: the quotient in f32, everything else in i32 (see [`IntDivision`]).
macro_rules! int_division_via_f32 {
    ($($t:ty),*) => {$(
        impl IntDivision for $t {
            #[inline(always)]
            fn floor_div_rem(self, b: Self) -> (Self, Self) {
                // b == 0 divides 0 by 1 (selects on the inputs: LLVM turns a select of the
                // results into a branch around the division, and then does not vectorize).
                let (a, d) = if b == 0 { (0, 1) } else { (self as i32, b as i32) };
                let qf = a as f32 / d as f32;
                // |qf| <= 2^16: adding 1.5·2^23 rounds it to an integer held in the low bits.
                let t = qf + ROUND_MAGIC_F32;
                let n = t.to_bits() as i32 - ROUND_MAGIC_F32.to_bits() as i32;
                let q = if t - ROUND_MAGIC_F32 > qf { n - 1 } else { n };
                // `MIN / -1`: q = 2^(k-1) wraps to MIN when narrowed, r = 0.
                (q as $t, (a - q * d) as $t)
            }
        }
    )*};
}
int_division_via_f32!(i8, u8, i16, u16);

/// 32-bit integers: the quotient in f64 (see [`IntDivision`]), the remainder wrapping in the
/// type.
macro_rules! int_division_via_f64 {
    ($($t:ty),*) => {$(
        impl IntDivision for $t {
            #[inline(always)]
            fn floor_div_rem(self, b: Self) -> (Self, Self) {
                const MAGIC: f64 = 6_755_399_441_055_744.0;
                // b == 0 divides 0 by 1 (see the f32 form).
                let (a, d) = if b == 0 { (0, 1) } else { (self, b) };
                let qf = a as f64 / d as f64;
                // |qf| <= 2^32: adding 1.5·2^52 rounds it to an integer held in the low bits.
                let t = qf + MAGIC;
                let n = t.to_bits() as i64 - MAGIC.to_bits() as i64;
                // `MIN / -1`: q = 2^31 wraps to MIN, and MIN - MIN·(-1) wraps to 0.
                let q = (if t - MAGIC > qf { n - 1 } else { n }) as $t;
                (q, a.wrapping_sub(q.wrapping_mul(d)))
            }
        }
    )*};
}
int_division_via_f64!(i32, u32);

/// 64-bit integers: the division instruction (f64 has too few bits for every value), and the
/// f64 quotient of the 32-bit types as the narrow form where |a|, |b| < 2^51: exact there by
/// the argument of [`IntDivision`] (f64's 53 bits), 8 lanes per AVX-512 division instead of an
/// `idiv` per element (i64 floor_divide ran at 2x PyTorch's time). The conversions in and out
/// are the `1.5·2^52` constant's bit tricks (an add each), so AVX2 vectorizes them too.
macro_rules! int_division_native {
    ($($t:ty),*) => {$(
        impl IntDivision for $t {
            const HAS_F64_FORM: bool = true;
            #[inline(always)]
            #[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
            fn in_f64_form(a: Self, b: Self) -> bool {
                // v in [-2^51, 2^51) as one add and one unsigned compare (unsigned types: the
                // compare, v < 2^51; the add would wrap the largest values into range).
                const HALF: u64 = 1 << 51;
                let within = |v: Self| if Self::MIN < 0 {
                    (v as u64).wrapping_add(HALF) < 2 * HALF
                } else {
                    (v as u64) < HALF
                };
                within(a) & within(b)
            }
            #[inline(always)]
            fn floor_div_rem_f64(self, b: Self) -> (Self, Self) {
                const MAGIC: f64 = 6_755_399_441_055_744.0;
                // |v| < 2^51: its bits added to 1.5·2^52's mantissa make 1.5·2^52 + v exactly.
                let to_f64 = |v: Self| f64::from_bits(MAGIC.to_bits().wrapping_add(v as u64)) - MAGIC;
                // b == 0 divides 0 by 1 (see the f32 form).
                let (a, d) = if b == 0 { (0, 1) } else { (self, b) };
                let qf = to_f64(a) / to_f64(d);
                // |qf| < 2^51: adding 1.5·2^52 rounds it to an integer held in the low bits.
                let t = qf + MAGIC;
                let n = t.to_bits().wrapping_sub(MAGIC.to_bits()) as Self;
                let q = if t - MAGIC > qf { n.wrapping_sub(1) } else { n };
                (q, a.wrapping_sub(q.wrapping_mul(d)))
            }
            #[inline(always)]
            fn floor_div_rem(self, b: Self) -> (Self, Self) {
                if b == 0 {
                    return (0, 0);
                }
                let (q, r) = (self.wrapping_div(b), self.wrapping_rem(b));
                if r != 0 && ((r < 0) != (b < 0)) {
                    (q.wrapping_sub(1), r.wrapping_add(b))
                } else {
                    (q, r)
                }
            }
            #[inline(always)]
            fn floor_rem(self, b: Self) -> Self {
                // The remainder alone: one instruction, no quotient.
                let r = self.trunc_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) { r.wrapping_add(b) } else { r }
            }
            #[inline(always)]
            fn trunc_rem(self, b: Self) -> Self {
                // One instruction (`None` for b == 0 and MIN % -1, both 0).
                self.checked_rem(b).unwrap_or(0)
            }
        }
    )*};
}
int_division_native!(i64, u64);

/// `1.5 * 2^23`: adding it rounds an f32 of magnitude < 2^22 to an integer held in the low
/// mantissa bits.
const ROUND_MAGIC_F32: f32 = 12_582_912.0;

/// PyTorch's `div_floor_floating` (numpy's fmod-based floor division).
#[inline(always)]
pub(crate) fn div_floor_real<R: Real>(a: R, b: R) -> R {
    div_floor_with(a, b, R::fmod, |x| x)
}

/// [`div_floor_real`] with the given (exact) `fmod`, every intermediate passed through `round`:
/// the identity in f32/f64, the half type's rounding for f16/bf16 (PyTorch's `Half`/`BFloat16`
/// instantiation rounds each operation). Two of PyTorch's roundings are left out because they
/// are exact: `fmod` of two values of a format is a value of that format, and so is the floor
/// of one (the roundings cost a quarter of the f16 loop).
#[inline(always)]
fn div_floor_with<R: Real>(a: R, b: R, fmod: impl Fn(R, R) -> R, round: impl Fn(R) -> R) -> R {
    if b == R::ZERO {
        return round(a / b);
    }
    let m = fmod(a, b);
    let mut div = round(round(a - m) / b);
    if m != R::ZERO && ((b < R::ZERO) != (m < R::ZERO)) {
        div = round(div - R::ONE);
    }
    if div != R::ZERO {
        let mut fl = div.floor();
        if round(div - fl) > R::HALF {
            fl = round(fl + R::ONE);
        }
        fl
    } else {
        R::ZERO.copysign(round(a / b))
    }
}

impl FloorDivide {
    #[inline(always)]
    fn eval_with<R: Real>(&self, a: R, b: R, fmod: impl Fn(R, R) -> R) -> R {
        div_floor_with(a, b, fmod, |x| x)
    }
}

// f32: fmod's narrow domain (see `real_binary_impls!`); f64 and the halves below.
impl Functor<(f32, f32)> for FloorDivide {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (a, b): (f32, f32)) -> f32 {
        div_floor_real(a, b)
    }
    const HAS_NARROW_DOMAIN: bool = true;
    #[inline(always)]
    fn in_narrow_domain(&self, (a, b): (f32, f32)) -> bool {
        super::real::fmod_f32_in_narrow(a, b)
    }
    #[inline(always)]
    fn call_narrow(&self, (a, b): (f32, f32)) -> f32 {
        self.eval_with(a, b, super::real::fmod_f32_narrow)
    }
}
impl Functor<(f64, f64)> for FloorDivide {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (a, b): (f64, f64)) -> f64 {
        div_floor_real(a, b)
    }
}

/// PyTorch's `div_floor_floating` instantiated for `c10::Half`/`c10::BFloat16` (its tensor-tensor
/// kernel): every operation, `fmod` included, is computed in f32 and rounded to the half type
/// (`round`), as their arithmetic operators do, so the intermediates lose precision: a bf16
/// `-5 // 0.0123` is -408, where rounding the f32 result once gives -406. (A CPU scalar
/// divisor takes the opmath path instead: `FloorDivideScalarOpmath`, rounded once.) fmod's
/// narrow domain as in f32 (the inputs are exact halves, so the same test).
impl super::HalfOwnForm<(f32, f32)> for FloorDivide {
    #[inline(always)]
    fn call_half<H: super::HalfFormat>(&self, (a, b): (f32, f32)) -> f32 {
        div_floor_with(a, b, Real::fmod, H::round)
    }
    const HAS_NARROW_DOMAIN: bool = true;
    #[inline(always)]
    fn in_narrow_domain(&self, (a, b): (f32, f32)) -> bool {
        super::real::fmod_f32_in_narrow(a, b)
    }
    #[inline(always)]
    fn call_half_narrow<H: super::HalfFormat>(&self, (a, b): (f32, f32)) -> f32 {
        div_floor_with(a, b, super::real::fmod_f32_narrow, H::round)
    }
}
super::half_form::half_functors_from_own_form!(FloorDivide, binary);
/// `Op` on every integer type: `call` is `$body` over [`IntDivision`], the narrow form (64-bit
/// types) `$narrow` of the f64 form's `(quotient, remainder)`.
macro_rules! int_division_impls {
    ($name:ty, |$a:ident, $b:ident| $body:expr, |$qr:ident| $narrow:expr) => {
        $crate::dtype_types!(int => int_division_impls!(@types $name, |$a, $b| $body, |$qr| $narrow;));
    };
    (@types $name:ty, |$a:ident, $b:ident| $body:expr, |$qr:ident| $narrow:expr; [$($t:ty),*]) => {$(
        impl Functor<($t, $t)> for $name {
            type Output = $t;
            #[inline(always)]
            fn call(&self, ($a, $b): ($t, $t)) -> $t {
                $body
            }
            const HAS_NARROW_DOMAIN: bool = <$t as IntDivision>::HAS_F64_FORM;
            #[inline(always)]
            fn in_narrow_domain(&self, (a, b): ($t, $t)) -> bool {
                <$t as IntDivision>::in_f64_form(a, b)
            }
            #[inline(always)]
            #[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
            fn call_narrow(&self, ($a, $b): ($t, $t)) -> $t {
                let $qr = $a.floor_div_rem_f64($b);
                $narrow
            }
        }
    )*};
}

int_division_impls!(FloorDivide, |a, b| a.floor_div_rem(b).0, |qr| qr.0);

impl Remainder {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        self.eval_with(a, b, R::fmod)
    }
    #[inline(always)]
    fn eval_with<R: Real>(&self, a: R, b: R, fmod: impl Fn(R, R) -> R) -> R {
        let m = fmod(a, b);
        if m != R::ZERO && ((b < R::ZERO) != (m < R::ZERO)) {
            m + b
        } else {
            m
        }
    }
}
real_binary_impls!(Remainder, fmod_narrow);
int_division_impls!(Remainder, |a, b| a.floor_rem(b), |qr| qr.1);

impl Fmod {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.fmod(b)
    }
    #[inline(always)]
    fn eval_with<R: Real>(&self, a: R, b: R, fmod: impl Fn(R, R) -> R) -> R {
        fmod(a, b)
    }
}
real_binary_impls!(Fmod, fmod_narrow);
int_division_impls!(Fmod, |a, b| a.trunc_rem(b), |qr| trunc_from_floor_rem(
    a, b, qr.1
));

// ---------------------------------------------------------------- scalar operands at f32 precision

/// `x * s` for f16/bf16 `x` with a CPU scalar second operand kept at f32 precision (PyTorch
/// does not round the scalar to the tensor's dtype here).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MulScalarOpmath {
    pub s: f32,
}
/// `x / s` for f16/bf16 `x`, the scalar at f32 precision.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct DivScalarOpmath {
    pub s: f32,
}
/// `x // s` for f16/bf16 `x`, the scalar at f32 precision.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct FloorDivideScalarOpmath {
    pub s: f32,
}

macro_rules! opmath_scalar {
    ($name:ident, |$x:ident, $s:ident| $body:expr) => {
        impl Functor<(f16,)> for $name {
            type Output = f16;
            #[inline(always)]
            fn call(&self, (x,): (f16,)) -> f16 {
                let ($x, $s) = (x.widen(), self.s);
                f16::narrow($body)
            }
        }
        impl Functor<(bf16,)> for $name {
            type Output = bf16;
            #[inline(always)]
            fn call(&self, (x,): (bf16,)) -> bf16 {
                let ($x, $s) = (x.widen(), self.s);
                bf16::narrow($body)
            }
        }
    };
}
opmath_scalar!(MulScalarOpmath, |x, s| x * s);
opmath_scalar!(DivScalarOpmath, |x, s| x / s);
opmath_scalar!(FloorDivideScalarOpmath, |x, s| div_floor_real(x, s));

// ---------------------------------------------------------------- pow

/// Integer `a ** b`, wrapping like PyTorch; a negative exponent gives 1 for `a = 1`, ±1 for
/// `a = -1` and 0 otherwise (the ops layer refuses negative exponents of integer tensors first).
pub(crate) trait IntPow: Sized {
    fn int_pow(self, b: Self) -> Self;
    /// Whether `int_pow_small` applies: `0 <= b < 2^SMALL_EXPONENT_BITS`.
    fn small_exponent(b: Self) -> bool;
    /// `int_pow` for a [`IntPow::small_exponent`]: square-and-multiply over a fixed
    /// `SMALL_EXPONENT_BITS` bits with selects, so the loop over elements vectorizes.
    fn int_pow_small(self, b: Self) -> Self;
}

/// Exponent bits of the 32-bit types' narrow `pow` form (`Pow`'s narrow domain: blocks whose
/// exponents are all in `0..256`). Their general form is a loop with a data-dependent trip
/// count and branches, which stays scalar and mispredicts: an i32 `pow` with exponents 1..7
/// ran at 9x its copy limit.
const SMALL_EXPONENT_BITS: u32 = 8;

macro_rules! int_pow_impls {
    ([$($t:ty),*]) => {$(
        impl IntPow for $t {
            #[inline(always)]
            fn int_pow(self, b: Self) -> Self {
                let a = self;
                // PyTorch's rule for negative exponents; `a == -1` is `a + 1 == 0` (never true
                // for unsigned types).
                let neg = |a: $t, b: $t| -> $t {
                    if a == 1 {
                        1
                    } else if a.wrapping_add(1) == 0 {
                        if b & 1 != 0 { a } else { 1 }
                    } else {
                        0
                    }
                };
                if <$t>::BITS <= 16 {
                    // Square-and-multiply over every bit of the type, a fixed count of
                    // selects, so the loop over elements vectorizes (8- and 16-bit
                    // multiplies are cheap; 32- and 64-bit ones would cost 32-64 steps:
                    // those have `int_pow_small` for the common small exponents).
                    let r = square_and_multiply(a, b, <$t>::BITS);
                    if b < 0 { neg(a, b) } else { r }
                } else if b < 0 {
                    neg(a, b)
                } else {
                    // The wide types' loop stays scalar: branches, early exit.
                    let (mut r, mut p, mut e): ($t, $t, $t) = (1, a, b);
                    while e != 0 {
                        if e & 1 != 0 {
                            r = p.wrapping_mul(r);
                        }
                        e /= 2;
                        p = p.wrapping_mul(p);
                    }
                    r
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
            fn small_exponent(b: Self) -> bool {
                b >= 0 && (b as i128) < (1i128 << SMALL_EXPONENT_BITS)
            }
            #[inline(always)]
            fn int_pow_small(self, b: Self) -> Self {
                // The general loop's products in the same order (wrapping multiplication is
                // associative and commutative: the same bits).
                square_and_multiply(self, b, SMALL_EXPONENT_BITS.min(<$t>::BITS))
            }
        }
    )*};
}
crate::dtype_types!(int => int_pow_impls!());

/// `a ** b` (wrapping) by square-and-multiply over the low `bits` bits of `b`, one select per
/// bit and no branch (exact for `0 <= b < 2^bits`).
#[inline(always)]
fn square_and_multiply<T>(a: T, b: T, bits: u32) -> T
where
    T: Copy + WrappingInt,
{
    let (mut r, mut p) = (T::ONE, a);
    for i in 0..bits {
        r = if b.bit(i) { r.wrapping_mul_(p) } else { r };
        p = p.wrapping_mul_(p);
    }
    r
}

/// The integer operations [`square_and_multiply`] needs, for every integer type.
trait WrappingInt {
    const ONE: Self;
    fn wrapping_mul_(self, o: Self) -> Self;
    fn bit(self, i: u32) -> bool;
}
macro_rules! wrapping_int_impls {
    ([$($t:ty),*]) => {$(
        impl WrappingInt for $t {
            const ONE: Self = 1;
            #[inline(always)]
            fn wrapping_mul_(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn bit(self, i: u32) -> bool {
                (self >> i) & 1 != 0
            }
        }
    )*};
}
crate::dtype_types!(int => wrapping_int_impls!());

impl Pow {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.pow(b)
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, a: R, b: R) -> R {
        a.pow_narrow(b)
    }
    #[inline(always)]
    fn narrow_domain<R: Real>(&self, a: R, b: R) -> bool {
        a.pow_in_narrow(b)
    }
}
real_binary_impls!(Pow, narrow: eval_narrow, domain: narrow_domain);
macro_rules! int_pow_functor_impls {
    ([$($t:ty),*]) => {$(
        impl Functor<($t, $t)> for Pow {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                a.int_pow(b)
            }
            // 8- and 16-bit types vectorize in `call` already; 64-bit multiplies have no AVX2
            // instruction (emulated by three), and the 8-step form measured slower than the
            // loop where a broadcast exponent makes its branches predictable (i64 `a ** b[C]`
            // 47 -> 67 ms), so only the 32-bit types take it.
            const HAS_NARROW_DOMAIN: bool = <$t>::BITS == 32;
            #[inline(always)]
            fn in_narrow_domain(&self, (_, b): ($t, $t)) -> bool {
                <$t as IntPow>::small_exponent(b)
            }
            #[inline(always)]
            fn call_narrow(&self, (a, b): ($t, $t)) -> $t {
                a.int_pow_small(b)
            }
        }
    )*};
}
crate::dtype_types!(int => int_pow_functor_impls!());

/// `x ** exp` with a scalar exponent, with PyTorch's exact fast paths.
///
/// `E` is the type the exponent is held in, the element type (PyTorch converts the scalar
/// exponent to it, with an overflow check the ops layer does): f16 has no fast paths (a real
/// `pow` in f32).
/// f32/f64: `0.5` sqrt, `-0.5` 1/sqrt, `-1` 1/x, `2` x*x, `3` x*x*x, `-2` 1/(x*x).
/// bf16: the same, with every multiplication rounded to bf16 (PyTorch multiplies in bf16).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PowScalar<E> {
    pub exp: E,
}

/// Which of [`PowScalar`]'s exact forms an exponent takes: 0 `x*x`, 1 `x*x*x`, 2 `sqrt`,
/// 3 `1/sqrt`, 4 `1/x`, 5 `1/(x*x)`, 6 the general `pow`.
#[inline(always)]
pub fn pow_scalar_case<R: Real>(e: R) -> u8 {
    if e == R::c(2.0) {
        0
    } else if e == R::c(3.0) {
        1
    } else if e == R::HALF {
        2
    } else if e == -R::HALF {
        3
    } else if e == -R::ONE {
        4
    } else if e == R::c(-2.0) {
        5
    } else {
        6
    }
}

/// `x ** e` in the form `case` (`pow_scalar_case(e)`) names.
#[inline(always)]
fn pow_in_case<R: Real>(case: u8, x: R, e: R) -> R {
    match case {
        0 => x * x,
        1 => x * x * x,
        2 => x.sqrt(),
        3 => R::ONE / x.sqrt(),
        4 => R::ONE / x,
        5 => R::ONE / (x * x),
        _ => x.pow(e),
    }
}

impl Functor<(f32,)> for PowScalar<f32> {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> f32 {
        pow_in_case(pow_scalar_case(self.exp), x, self.exp)
    }
}
impl Functor<(f64,)> for PowScalar<f64> {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (x,): (f64,)) -> f64 {
        pow_in_case(pow_scalar_case(self.exp), x, self.exp)
    }
}

/// [`PowScalar`] (f32/f64) with the exponent's case ([`pow_scalar_case`]) fixed when the kernel
/// is chosen: the same results, one branch-free loop per case. With the case tested per element
/// the loop stayed scalar (`x ** 1.5` ran at 43x the copy limit, `square` at 2.8x).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PowScalarCase<E, const CASE: u8> {
    pub exp: E,
}

/// The general case (6) of [`PowScalarCase`] over f32 and f64: `pow`'s narrow form where the
/// base and the exponent allow it ([`Real::pow_in_narrow`]).
macro_rules! pow_scalar_case_float {
    ($($t:ty),*) => {$(
        impl<const CASE: u8> Functor<($t,)> for PowScalarCase<$t, CASE> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                pow_in_case(CASE, x, self.exp)
            }
            const HAS_NARROW_DOMAIN: bool = CASE == 6;
            #[inline(always)]
            fn in_narrow_domain(&self, (x,): ($t,)) -> bool {
                x.pow_in_narrow(self.exp)
            }
            #[inline(always)]
            fn call_narrow(&self, (x,): ($t,)) -> $t {
                x.pow_narrow(self.exp)
            }
        }
    )*};
}
pow_scalar_case_float!(f32, f64);

/// `x ** e` of an f16 value in f32 (rounded to f16 by the caller): the f32 `pow` of the
/// tensor-tensor kernel (PyTorch has no exact cases for f16: SLEEF's `powf` over every
/// exponent), whose `x * x` is exact for every f16 `x` (tests/half_blocks.rs), so case 0
/// takes the product.
#[inline(always)]
fn pow_f16_in_case(case: u8, x: f32, e: f32) -> f32 {
    if case == 0 { x * x } else { Real::pow(x, e) }
}

/// `x ** e` of a bf16 value in f32: PyTorch's exact cases with every bf16 multiplication
/// rounded to bf16, the f32 `pow` of the tensor-tensor kernel otherwise.
#[inline(always)]
fn pow_bf16_in_case(case: u8, x: f32, e: f32) -> f32 {
    let r = <bf16 as super::HalfFormat>::round;
    match case {
        0 => x * x,
        1 => r(x * x) * x,
        2 => Real::sqrt(x),
        3 => 1.0 / Real::sqrt(x),
        4 => 1.0 / x,
        5 => 1.0 / r(x * x),
        _ => Real::pow(x, e),
    }
}

/// The f16/bf16 `PowScalar` (per element: the GPU's and the reference's) and `PowScalarCase`
/// over f32 blocks converted from the type (the kernels'), one definition each.
macro_rules! pow_scalar_half {
    ($($t:ident => $in_case:ident if $is_pow:ident),*) => {$(
        impl Functor<($t,)> for PowScalar<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                let e = self.exp.widen();
                $t::narrow($in_case(pow_scalar_case(e), x.widen(), e))
            }
        }
        impl<const CASE: u8> Functor<(f32,)> for PowScalarCase<$t, CASE> {
            type Output = f32;
            #[inline(always)]
            fn call(&self, (x,): (f32,)) -> f32 {
                // The branch-free widening (`half`'s `to_f32` kept f16 `square` scalar: 2.3x
                // its copy limit).
                $in_case(CASE, x, self.exp.widen())
            }
            // The cases that take the f32 `pow`: its narrow form, as the f32 functor's.
            const HAS_NARROW_DOMAIN: bool = $is_pow(CASE);
            #[inline(always)]
            fn in_narrow_domain(&self, (x,): (f32,)) -> bool {
                x.pow_in_narrow(self.exp.widen())
            }
            #[inline(always)]
            fn call_narrow(&self, (x,): (f32,)) -> f32 {
                x.pow_narrow(self.exp.widen())
            }
        }
    )*};
}
/// Whether f16's case `case` is the f32 `pow` (all but `x * x`) ...
const fn f16_case_is_pow(case: u8) -> bool {
    case != 0
}
/// ... and bf16's (the general case alone: the others are PyTorch's bf16 exact forms).
const fn bf16_case_is_pow(case: u8) -> bool {
    case == 6
}
pow_scalar_half!(f16 => pow_f16_in_case if f16_case_is_pow, bf16 => pow_bf16_in_case if bf16_case_is_pow);
/// Integer `PowScalar` (per element: the GPU's and the reference's) and `PowScalarCase`
/// (the kernels': `x*x` and `x*x*x` as their own loops, the rest [`IntPow`]).
macro_rules! pow_scalar_int {
    ([$($t:ty),*]) => {$(
        impl Functor<($t,)> for PowScalar<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                x.int_pow(self.exp)
            }
        }
        impl<const CASE: u8> Functor<($t,)> for PowScalarCase<$t, CASE> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                match CASE {
                    0 => x.wrapping_mul(x),
                    1 => x.wrapping_mul(x).wrapping_mul(x),
                    _ => x.int_pow(self.exp),
                }
            }
        }
    )*};
}
crate::dtype_types!(int => pow_scalar_int!());

// ---------------------------------------------------------------- maximum / minimum

impl Maximum {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        if a.is_nan() || b.is_nan() {
            a + b
        } else if a > b {
            a
        } else {
            b
        }
    }
}
real_binary_impls!(Maximum);
int_binary_impls!(Maximum, int, |a, b| if a > b { a } else { b });
impl Functor<(bool, bool)> for Maximum {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (a, b): (bool, bool)) -> bool {
        a | b
    }
}

impl Minimum {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        if a.is_nan() || b.is_nan() {
            a + b
        } else if a < b {
            a
        } else {
            b
        }
    }
}
real_binary_impls!(Minimum);
int_binary_impls!(Minimum, int, |a, b| if a < b { a } else { b });
impl Functor<(bool, bool)> for Minimum {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (a, b): (bool, bool)) -> bool {
        a & b
    }
}

// ---------------------------------------------------------------- atan2 / copysign / hypot

impl Atan2 {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.atan2(b)
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, a: R, b: R) -> R {
        a.atan2_narrow(b)
    }
    #[inline(always)]
    fn narrow_domain<R: Real>(&self, a: R, b: R) -> bool {
        a.atan2_in_narrow(b)
    }
}
real_binary_impls!(Atan2, narrow: eval_narrow, domain: narrow_domain);

impl Copysign {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.copysign(b)
    }
    /// f16/bf16: `a`'s magnitude with `b`'s sign bit (PyTorch's `c10::copysign` of halves).
    #[inline(always)]
    fn sign_bits(&self, a: u16, b: u16) -> u16 {
        (a & 0x7fff) | (b & 0x8000)
    }
}
real_binary_impls!(Copysign, half: sign_bits);

impl Hypot {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.hypot(b)
    }
}
real_binary_impls!(Hypot);

// ---------------------------------------------------------------- unary

impl Neg {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        -x
    }
    /// f16/bf16: the sign bit flipped (PyTorch's vectorized half `neg`).
    #[inline(always)]
    fn sign_bits(&self, x: u16) -> u16 {
        x ^ 0x8000
    }
}
real_unary_impls!(Neg, half: sign_bits);
int_unary_impls!(Neg, int, |x| x.wrapping_neg());

impl Abs {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x.abs()
    }
    /// f16/bf16: the sign bit cleared.
    #[inline(always)]
    fn sign_bits(&self, x: u16) -> u16 {
        x & 0x7fff
    }
}
real_unary_impls!(Abs, half: sign_bits);
int_unary_impls!(Abs, int, |x| if x < 0 { x.wrapping_neg() } else { x });

impl Sign {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        // NaN -> 0 and -0.0 -> +0.0, as PyTorch's `(0 < x) - (x < 0)`.
        let p = if R::ZERO < x { R::ONE } else { R::ZERO };
        let n = if x < R::ZERO { R::ONE } else { R::ZERO };
        p - n
    }
}
real_unary_impls!(Sign);
int_unary_impls!(Sign, int, |x| if x > 0 {
    1
} else if x < 0 {
    !0 // -1 (signed types only)
} else {
    0
});
impl Functor<(bool,)> for Sign {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (x,): (bool,)) -> bool {
        x
    }
}

impl Square {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x * x
    }
}
real_unary_impls!(Square);
int_unary_impls!(Square, int, |x| x.wrapping_mul(x));

impl Reciprocal {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        R::ONE / x
    }
}
real_unary_impls!(Reciprocal);

// ---------------------------------------------------------------- xlogy / logaddexp

unit!(
    /// `x * log(y)`, with `xlogy(0, y) = 0` unless `y` is NaN (floats; integer and bool
    /// operands are computed in f32).
    Xlogy,
    /// `log(e^a + e^b)` without overflow: `max + log1p(e^-|a-b|)`, and `a` itself when both are
    /// the same infinity (floats only: PyTorch refuses integer and bool operands).
    Logaddexp,
    /// Elementwise max ignoring NaN (C `fmax`: NaN only when both are NaN); integers as
    /// `maximum`, bool as `or`.
    Fmax,
    /// Elementwise min ignoring NaN (C `fmin`); integers as `minimum`, bool as `and`.
    Fmin,
    /// Step function `heaviside(x, values)`: `values` where `x == 0` (either zero), 1 where
    /// `x > 0`, 0 where `x < 0` or NaN. Every dtype (PyTorch requires both operands to have the
    /// same dtype).
    Heaviside,
    /// C `nextafter(a, b)`: the next representable value after `a` toward `b`. f16/bf16 step
    /// in their own format (not through f32). Floats only.
    Nextafter,
    /// Greatest common divisor, non-negative except where `|MIN|` wraps (`gcd(0, 0) = 0`;
    /// integers only, not bool).
    Gcd,
    /// Least common multiple `|a / gcd(a, b) * b|`, 0 when `gcd` is 0, wrapping like PyTorch
    /// (integers only, not bool).
    Lcm,
);

impl Xlogy {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R, y: R) -> R {
        // PyTorch returns NaN for a NaN `y`; a NaN `x` gives NaN too, the same NaN whichever
        // operand order the compiler picks for the product (NaN bits must not depend on the
        // loop a layout takes).
        if y.is_nan() || x.is_nan() {
            R::NAN
        } else if x == R::ZERO {
            R::ZERO
        } else {
            x * y.ln()
        }
    }
}
real_binary_impls!(Xlogy);

impl Logaddexp {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        if a.is_nan() || b.is_nan() {
            // One NaN whatever the operands' NaN bits and the operand order the vectorizer
            // picks for `a - b` (contiguous and strided loops must agree bit for bit).
            R::NAN
        } else if a.is_infinite() && a == b {
            a
        } else {
            Self::finite(a, b, R::exp)
        }
    }
    /// `max(a, b) + ln(1 + e^-|a - b|)` with `exp` for e^. The full `ln_1p`, not
    /// `ln_1p_unit`: m and the log cancel when a and b are near -ln 2 apart, and the result
    /// must round as PyTorch's correctly rounded log1p does.
    #[inline(always)]
    fn finite<R: Real>(a: R, b: R, exp: impl Fn(R) -> R) -> R {
        let m = if a < b { b } else { a };
        m + exp(-(a - b).abs()).ln_1p()
    }
    /// Whether both operands are finite and `e^-|a - b|` is normal: `eval`'s last branch, with
    /// `exp_normal` (no subnormal steps) for `exp`, gives its bits there.
    #[inline(always)]
    fn narrow_domain<R: Real>(&self, a: R, b: R) -> bool {
        a.abs() < R::INFINITY && b.abs() < R::INFINITY && (-(a - b).abs()).exp_is_normal()
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, a: R, b: R) -> R {
        Self::finite(a, b, R::exp_normal)
    }
}
real_binary_impls!(Logaddexp, narrow: eval_narrow, domain: narrow_domain);

// ---------------------------------------------------------------- fmax / fmin

impl Fmax {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        if a.is_nan() || (a < b) { b } else { a }
    }
}
real_binary_impls!(Fmax);
// Integers and bool have no NaN: `fmax` is `maximum` there.
int_binary_impls!(Fmax, integral, |a, b| Maximum.call((a, b)));

impl Fmin {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        if a.is_nan() || (b < a) { b } else { a }
    }
}
real_binary_impls!(Fmin);
// Integers and bool have no NaN: `fmin` is `minimum` there.
int_binary_impls!(Fmin, integral, |a, b| Minimum.call((a, b)));

// ---------------------------------------------------------------- heaviside

impl Heaviside {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R, v: R) -> R {
        // PyTorch's `x == 0 ? v : (x > 0)`: NaN is 0.
        if x == R::ZERO {
            v
        } else if x > R::ZERO {
            R::ONE
        } else {
            R::ZERO
        }
    }
}
real_binary_impls!(Heaviside);
int_binary_impls!(Heaviside, int, |x, v| if x == 0 { v } else { (x > 0) as _ });
impl Functor<(bool, bool)> for Heaviside {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (x, v): (bool, bool)) -> bool {
        x | v
    }
}

// ---------------------------------------------------------------- nextafter

impl Nextafter {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.next_after(b)
    }
}
impl Functor<(f32, f32)> for Nextafter {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (a, b): (f32, f32)) -> f32 {
        self.eval(a, b)
    }
}
impl Functor<(f64, f64)> for Nextafter {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (a, b): (f64, f64)) -> f64 {
        self.eval(a, b)
    }
}

/// `nextafter` on the bits of a 16-bit float (f16 or bf16: sign in bit 15, the magnitude
/// ordered as the 15 low bits), as c10's reduced-float `nextafter`, for non-NaN operands; by
/// selects (the loops vectorize).
#[inline(always)]
fn next_after_bits16(ux: u16, uy: u16) -> u16 {
    const SIGN: u16 = 0x8000;
    let (ax, ay) = (ux & !SIGN, uy & !SIGN);
    // From a zero: `to` itself when it is a zero too, else the smallest subnormal with its sign.
    let from_zero = if ay == 0 { uy } else { (uy & SIGN) | 1 };
    let toward_zero = ax > ay || (ux ^ uy) & SIGN != 0;
    let stepped = if toward_zero {
        ux.wrapping_sub(1)
    } else {
        ux.wrapping_add(1)
    };
    if ux == uy {
        uy
    } else if ax == 0 {
        from_zero
    } else {
        stepped
    }
}

// f16/bf16 per element on the bits: faster than through f32 blocks (no conversions at all).
macro_rules! nextafter_half {
    ($($t:ty),*) => {$(
        impl Functor<($t, $t)> for Nextafter {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                if a.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else {
                    <$t>::from_bits(next_after_bits16(a.to_bits(), b.to_bits()))
                }
            }
        }
    )*};
}
nextafter_half!(f16, bf16);
impl super::HalfOwnForm<(f32, f32)> for Nextafter {
    #[inline(always)]
    fn call_half<H: super::HalfFormat>(&self, (a, b): (f32, f32)) -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else {
            H::from_bits(next_after_bits16(H::bits(a), H::bits(b)))
        }
    }
    // Measured: 2-3x slower over f32 blocks than the functors above over the half elements.
    const OVER_F32_BLOCKS: bool = false;
}

// ---------------------------------------------------------------- gcd / lcm

/// PyTorch's `calc_gcd` in the element type: `|a|`, `|b|` (wrapping: `|MIN| = MIN`), then
/// Euclid with C's truncating `%`.
macro_rules! gcd_body {
    ($a:expr, $b:expr, $abs:expr) => {{
        let mut a = ($abs)($a);
        let mut b = ($abs)($b);
        while a != 0 {
            let c = a;
            // C `%` (truncating); `MIN % -1` is 0.
            a = b.checked_rem(a).unwrap_or(0);
            b = c;
        }
        b
    }};
}

/// Euclid on 8-bit integers, vectorizable: PyTorch's loop (`a, b = b % a, a` while `a != 0`)
/// run for a fixed `STEPS` with selects, on the magnitudes in f32 (exact: below 2^17, the
/// floored quotient of an f32 division is the integer one, see [`IntDivision`]). By Lamé's
/// theorem the loop ends within 12 steps for 8-bit magnitudes (the consecutive Fibonacci
/// numbers are the worst), one more if the first step only swaps, so `STEPS` = 13 changes
/// nothing once `a` is 0. (16-bit types would need 24 steps, every one a division: measured
/// no faster than the data-dependent loop with the division instruction, which they keep.) `a`, `b` are PyTorch's `|a|`, `|b|` in the
/// element type, widened: negative only for `MIN` (`|MIN|` wraps). C's `%` takes the sign of
/// its dividend, so each value carries the sign of the one two places before it; the sign
/// flags ride along with the swaps and the result gets the sign of the value it ends on.
#[inline(always)]
fn gcd_small<const STEPS: usize>(a: i32, b: i32) -> i32 {
    let (mut neg_a, mut neg_b) = (a < 0, b < 0);
    let (mut a, mut b) = (a.wrapping_abs() as f32, b.wrapping_abs() as f32);
    for _ in 0..STEPS {
        let live = a != 0.0;
        let d = if live { a } else { 1.0 };
        let q = b / d;
        // floor(q) by the round-to-integer constant (q < 2^17), then b - floor(q)·d: exact.
        let n = (q + ROUND_MAGIC_F32) - ROUND_MAGIC_F32;
        let fl = if n > q { n - 1.0 } else { n };
        let r = b - fl * d;
        let (na, nb) = if live { (r, a) } else { (a, b) };
        let (nna, nnb) = if live { (neg_b, neg_a) } else { (neg_a, neg_b) };
        (a, b, neg_a, neg_b) = (na, nb, nna, nnb);
    }
    let g = (b + ROUND_MAGIC_F32).to_bits() as i32 - ROUND_MAGIC_F32.to_bits() as i32;
    if neg_b { -g } else { g }
}

/// `a / g` for a divisor `g` of `a` (|a| <= 2^16): exact in f32, to an integer by the
/// round-to-integer constant (no saturating float -> integer conversion: it does not vectorize).
#[inline(always)]
fn exact_quotient_small(a: i32, g: i32) -> i32 {
    let q = a as f32 / g as f32;
    (q + ROUND_MAGIC_F32).to_bits() as i32 - ROUND_MAGIC_F32.to_bits() as i32
}

/// Gcd and lcm for one integer type `$t` with its `abs`. `$w` is the type C++ computes
/// `a / g * b` in: `int` for the types narrower than it (integer promotion, so `abs` sees the
/// unwrapped product and only the store truncates), the type itself otherwise (wrapping).
/// A per-type list, not a dtype group: `$w` and `$abs` are per-type facts of C's arithmetic.
/// `small STEPS`: 8-bit types, through [`gcd_small`] (vectorizes); the wider ones run
/// PyTorch's loop with the division instruction, and [`gcd_small`] as their narrow form
/// (`Functor::in_narrow_domain`) on blocks where every magnitude is at most 255 (the same
/// bits: it is PyTorch's loop, run to its end; measured 5x faster on i32 data in [-100, 100]).
macro_rules! gcd_lcm_int {
    ($($t:ty => $w:ty, $abs:expr $(, small $steps:literal)?);* $(;)?) => {$(
        impl Functor<($t, $t)> for Gcd {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                gcd_lcm_int!(@gcd $t, $abs, a, b $(, $steps)?)
            }
            gcd_lcm_int!(@narrow_gcd $t, $abs $(, $steps)?);
        }
        impl Functor<($t, $t)> for Lcm {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                let g: $t = gcd_lcm_int!(@gcd $t, $abs, a, b $(, $steps)?);
                let q: $w = gcd_lcm_int!(@quotient $w, a, g $(, $steps)?);
                gcd_lcm_int!(@lcm $t, $w, q, b, g)
            }
            gcd_lcm_int!(@narrow_lcm $t, $w, $abs $(, $steps)?);
        }
    )*};
    (@gcd $t:ty, $abs:expr, $a:ident, $b:ident, $steps:literal) => {
        gcd_small::<$steps>(($abs)($a) as i32, ($abs)($b) as i32) as $t
    };
    (@gcd $t:ty, $abs:expr, $a:ident, $b:ident) => {
        gcd_body!($a, $b, $abs)
    };
    (@quotient $w:ty, $a:ident, $g:ident, $steps:literal) => {
        exact_quotient_small($a as i32, if $g == 0 { 1 } else { $g as i32 }) as $w
    };
    (@quotient $w:ty, $a:ident, $g:ident) => {
        ($a as $w).wrapping_div(if $g == 0 { 1 } else { $g as $w })
    };
    // `|q·b|` in C's arithmetic of `$w` (wrapping), stored as `$t`; 0 where `g == 0` (only
    // for a == b == 0, where `q` is garbage).
    (@lcm $t:ty, $w:ty, $q:ident, $b:ident, $g:ident) => {{
        let p = $q.wrapping_mul($b as $w);
        let p = (if p < 0 { p.wrapping_neg() } else { p }) as $t;
        if $g == 0 { 0 } else { p }
    }};
    // 8-bit types: `call` is already the vectorized form.
    (@narrow_gcd $t:ty, $abs:expr, $steps:literal) => {};
    (@narrow_lcm $t:ty, $w:ty, $abs:expr, $steps:literal) => {};
    // The narrow domain of both: every magnitude at most 255.
    (@small_domain $t:ty, $abs:expr) => {
        const HAS_NARROW_DOMAIN: bool = true;
        #[inline(always)]
        fn in_narrow_domain(&self, (a, b): ($t, $t)) -> bool {
            small_magnitudes(($abs)(a) as u64, ($abs)(b) as u64)
        }
    };
    (@narrow_gcd $t:ty, $abs:expr) => {
        gcd_lcm_int!(@small_domain $t, $abs);
        #[inline(always)]
        fn call_narrow(&self, (a, b): ($t, $t)) -> $t {
            gcd_lcm_int!(@gcd $t, $abs, a, b, 13)
        }
    };
    (@narrow_lcm $t:ty, $w:ty, $abs:expr) => {
        gcd_lcm_int!(@small_domain $t, $abs);
        #[inline(always)]
        fn call_narrow(&self, (a, b): ($t, $t)) -> $t {
            let g: $t = gcd_lcm_int!(@gcd $t, $abs, a, b, 13);
            let q: $w = gcd_lcm_int!(@quotient $w, a, g, 13);
            gcd_lcm_int!(@lcm $t, $w, q, b, g)
        }
    };
}

/// Whether both magnitudes are at most 255 (the domain of the 13-step [`gcd_small`]). The
/// magnitudes are `abs` in the element type, so a signed `MIN` (negative) is out.
#[inline(always)]
fn small_magnitudes(a: u64, b: u64) -> bool {
    (a <= 255) & (b <= 255)
}
gcd_lcm_int!(
    u8 => i32, |x: u8| x, small 13;
    i8 => i32, |x: i8| x.wrapping_abs(), small 13;
    i16 => i32, |x: i16| x.wrapping_abs();
    i32 => i32, |x: i32| x.wrapping_abs();
    i64 => i64, |x: i64| x.wrapping_abs();
    // No PyTorch counterpart: NumPy's `a / g * b` in the type itself (wrapping).
    u16 => u32, |x: u16| x;
    u32 => u32, |x: u32| x;
    u64 => u64, |x: u64| x;
);
