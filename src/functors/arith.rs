//! Arithmetic functors: add, sub, mul, div, floor_divide, remainder, fmod, pow, maximum,
//! minimum, atan2, copysign, hypot, and the unary neg, abs, sign, square, reciprocal.
//!
//! Integers wrap (two's complement); integer division by zero returns 0 here (the ops layer
//! checks divisors first and reports `Error::ZeroDivision`). Bool add is `or`, bool mul is
//! `and`; bool sub/neg/abs have no impl, as in PyTorch.

// The integer macros stamp one body for signed and unsigned types; `x < 0` is then always
// false for the unsigned ones, which is intended.
#![allow(unused_comparisons, clippy::absurd_extreme_comparisons)]

use super::Functor;
use super::real::{Real, int_binary_impls, int_unary_impls, real_binary_impls, real_unary_impls};
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
int_binary_impls!(Add, [u8, i8, i16, i32, i64], |a, b| a.wrapping_add(b));
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
int_binary_impls!(Sub, [u8, i8, i16, i32, i64], |a, b| a.wrapping_sub(b));

impl Mul {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a * b
    }
}
real_binary_impls!(Mul);
int_binary_impls!(Mul, [u8, i8, i16, i32, i64], |a, b| a.wrapping_mul(b));
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

/// PyTorch's `div_floor_floating` (numpy's fmod-based floor division).
#[inline(always)]
pub(crate) fn div_floor_real<R: Real>(a: R, b: R) -> R {
    if b == R::ZERO {
        return a / b;
    }
    let m = a.fmod(b);
    let mut div = (a - m) / b;
    if m != R::ZERO && ((b < R::ZERO) != (m < R::ZERO)) {
        div = div - R::ONE;
    }
    if div != R::ZERO {
        let mut fl = div.floor();
        if div - fl > R::HALF {
            fl = fl + R::ONE;
        }
        fl
    } else {
        R::ZERO.copysign(a / b)
    }
}

impl FloorDivide {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        div_floor_real(a, b)
    }
}
real_binary_impls!(FloorDivide);
int_binary_impls!(FloorDivide, [u8, i8, i16, i32, i64], |a, b| {
    if b == 0 {
        0
    } else {
        // MIN / -1 wraps to MIN, as in PyTorch.
        let q = a.wrapping_div(b);
        let r = a.wrapping_rem(b);
        let adjust = r != 0 && ((r < 0) != (b < 0));
        if adjust { q.wrapping_sub(1) } else { q }
    }
});

impl Remainder {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        let m = a.fmod(b);
        if m != R::ZERO && ((b < R::ZERO) != (m < R::ZERO)) {
            m + b
        } else {
            m
        }
    }
}
real_binary_impls!(Remainder);
int_binary_impls!(Remainder, [u8, i8, i16, i32, i64], |a, b| {
    // None for b == 0 (ops layer reports it) and MIN % -1 (which is 0).
    let r = a.checked_rem(b).unwrap_or(0);
    let adjust = r != 0 && ((r < 0) != (b < 0));
    if adjust { r.wrapping_add(b) } else { r }
});

impl Fmod {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.fmod(b)
    }
}
real_binary_impls!(Fmod);
int_binary_impls!(Fmod, [u8, i8, i16, i32, i64], |a, b| a
    .checked_rem(b)
    .unwrap_or(0));

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
                let ($x, $s) = (x.to_f32(), self.s);
                f16::from_f32($body)
            }
        }
        impl Functor<(bf16,)> for $name {
            type Output = bf16;
            #[inline(always)]
            fn call(&self, (x,): (bf16,)) -> bf16 {
                let ($x, $s) = (x.to_f32(), self.s);
                bf16::from_f32($body)
            }
        }
    };
}
opmath_scalar!(MulScalarOpmath, |x, s| x * s);
opmath_scalar!(DivScalarOpmath, |x, s| x / s);
opmath_scalar!(FloorDivideScalarOpmath, |x, s| div_floor_real(x, s));

// ---------------------------------------------------------------- pow

/// Integer power by squaring, wrapping; PyTorch's rule for negative exponents: 0, except
/// base 1 (gives 1) and base -1 (gives ±1 by parity).
macro_rules! powi {
    ($a:expr, $b:expr) => {{
        let (mut a, mut b) = ($a, $b);
        let neg = b < 0;
        if neg {
            if a == 1 {
                1
            } else if a.wrapping_add(1) == 0 {
                // a == -1 (signed types only: unsigned never takes this branch).
                if b & 1 != 0 { a } else { 1 }
            } else {
                0
            }
        } else {
            let mut r = 1;
            while b != 0 {
                if b & 1 != 0 {
                    r = a.wrapping_mul(r);
                }
                b /= 2;
                a = a.wrapping_mul(a);
            }
            r
        }
    }};
}

impl Pow {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.pow(b)
    }
}
real_binary_impls!(Pow);
int_binary_impls!(Pow, [u8, i8, i16, i32, i64], |a, b| powi!(a, b));

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

#[inline(always)]
fn pow_fast<R: Real>(x: R, e: R) -> R {
    if e == R::c(2.0) {
        x * x
    } else if e == R::c(3.0) {
        x * x * x
    } else if e == R::HALF {
        x.sqrt()
    } else if e == -R::HALF {
        R::ONE / x.sqrt()
    } else if e == -R::ONE {
        R::ONE / x
    } else if e == R::c(-2.0) {
        R::ONE / (x * x)
    } else {
        x.pow(e)
    }
}

impl Functor<(f32,)> for PowScalar<f32> {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> f32 {
        pow_fast(x, self.exp)
    }
}
impl Functor<(f64,)> for PowScalar<f64> {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (x,): (f64,)) -> f64 {
        pow_fast(x, self.exp)
    }
}
impl Functor<(f16,)> for PowScalar<f16> {
    type Output = f16;
    #[inline(always)]
    fn call(&self, (x,): (f16,)) -> f16 {
        f16::from_f32(libm::powf(x.to_f32(), self.exp.to_f32()))
    }
}
impl Functor<(bf16,)> for PowScalar<bf16> {
    type Output = bf16;
    #[inline(always)]
    fn call(&self, (x,): (bf16,)) -> bf16 {
        let e = self.exp.to_f32();
        let r = |v: f32| bf16::from_f32(v).to_f32();
        let xf = x.to_f32();
        let v = if e == 2.0 {
            xf * xf
        } else if e == 3.0 {
            r(xf * xf) * xf
        } else if e == 0.5 {
            libm::sqrtf(xf)
        } else if e == -0.5 {
            1.0 / libm::sqrtf(xf)
        } else if e == -1.0 {
            1.0 / xf
        } else if e == -2.0 {
            1.0 / r(xf * xf)
        } else {
            libm::powf(xf, e)
        };
        bf16::from_f32(v)
    }
}
macro_rules! pow_scalar_int {
    ($($t:ty),*) => {$(
        impl Functor<($t,)> for PowScalar<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                powi!(x, self.exp)
            }
        }
    )*};
}
pow_scalar_int!(u8, i8, i16, i32, i64);

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
int_binary_impls!(Maximum, [u8, i8, i16, i32, i64], |a, b| if a > b {
    a
} else {
    b
});
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
int_binary_impls!(Minimum, [u8, i8, i16, i32, i64], |a, b| if a < b {
    a
} else {
    b
});
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
}
real_binary_impls!(Atan2);

impl Copysign {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, b: R) -> R {
        a.copysign(b)
    }
}
real_binary_impls!(Copysign);

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
}
real_unary_impls!(Neg);
int_unary_impls!(Neg, [u8, i8, i16, i32, i64], |x| x.wrapping_neg());

impl Abs {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x.abs()
    }
}
real_unary_impls!(Abs);
int_unary_impls!(Abs, [i8, i16, i32, i64], |x| x.wrapping_abs());
int_unary_impls!(Abs, [u8], |x| x);

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
int_unary_impls!(Sign, [i8, i16, i32, i64], |x| x.signum());
int_unary_impls!(Sign, [u8], |x| (x != 0) as u8);
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
int_unary_impls!(Square, [u8, i8, i16, i32, i64], |x| x.wrapping_mul(x));

impl Reciprocal {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        R::ONE / x
    }
}
real_unary_impls!(Reciprocal);
