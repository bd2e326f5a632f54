//! Comparison functors (`Output = bool`, every dtype) and the float classification predicates
//! `isnan`, `isinf`, `isfinite`, `signbit`.

use super::Functor;
use half::{bf16, f16};

macro_rules! cmp_op {
    ($($(#[$m:meta])* $name:ident => $op:tt),* $(,)?) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        $crate::dtype_types!(integral => cmp_op!(@impl $name, $op,));
        cmp_op!(@impl $name, $op, [f32, f64]);
        impl Functor<(f16, f16)> for $name {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (a, b): (f16, f16)) -> bool {
                a.to_f32() $op b.to_f32()
            }
        }
        impl Functor<(bf16, bf16)> for $name {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (a, b): (bf16, bf16)) -> bool {
                a.to_f32() $op b.to_f32()
            }
        }
    )*};
    (@impl $name:ident, $op:tt, [$($t:ty),*]) => {$(
        impl Functor<($t, $t)> for $name {
            type Output = bool;
            #[inline(always)]
            #[allow(clippy::bool_comparison)]
            fn call(&self, (a, b): ($t, $t)) -> bool {
                a $op b
            }
        }
    )*};
}

cmp_op!(
    /// `a == b` (NaN is unequal to everything).
    Eq => ==,
    /// `a != b` (true when either is NaN).
    Ne => !=,
    /// `a < b`.
    Lt => <,
    /// `a <= b`.
    Le => <=,
    /// `a > b`.
    Gt => >,
    /// `a >= b`.
    Ge => >=,
);

macro_rules! classify {
    ($($(#[$m:meta])* $name:ident: |$x:ident| $fbody:expr, int = $ival:expr),* $(,)?) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        classify!(@float $name, |$x| $fbody, [f32, f64]);
        impl Functor<(f16,)> for $name {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (x,): (f16,)) -> bool {
                let $x = x.to_f32();
                $fbody
            }
        }
        impl Functor<(bf16,)> for $name {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (x,): (bf16,)) -> bool {
                let $x = x.to_f32();
                $fbody
            }
        }
        $crate::dtype_types!(integral => classify!(@int $name, $ival,));
    )*};
    (@float $name:ident, |$x:ident| $fbody:expr, [$($t:ty),*]) => {$(
        impl Functor<($t,)> for $name {
            type Output = bool;
            #[inline(always)]
            fn call(&self, ($x,): ($t,)) -> bool {
                $fbody
            }
        }
    )*};
    (@int $name:ident, $ival:expr, [$($t:ty),*]) => {$(
        impl Functor<($t,)> for $name {
            type Output = bool;
            #[inline(always)]
            fn call(&self, _: ($t,)) -> bool {
                $ival
            }
            const CONSTANT_RESULT: bool = true;
        }
    )*};
}

classify!(
    /// NaN test (always false for integers and bool).
    IsNan: |x| x.is_nan(), int = false,
    /// ±inf test (always false for integers and bool).
    IsInf: |x| x.is_infinite(), int = false,
    /// Neither NaN nor ±inf (always true for integers and bool).
    IsFinite: |x| x.is_finite(), int = true,
);

/// Sign bit set: true for negative values, `-0.0` and negative NaNs; false for unsigned
/// integers and bool. Output bool, every dtype.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Signbit;
macro_rules! signbit_impls {
    ($($t:ty => |$x:ident| $body:expr, $constant:expr),* $(,)?) => {$(
        impl Functor<($t,)> for Signbit {
            type Output = bool;
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn call(&self, ($x,): ($t,)) -> bool {
                $body
            }
            const CONSTANT_RESULT: bool = $constant;
        }
    )*};
}
macro_rules! signbit_int {
    ([$($t:ty),*]) => {
        // Unsigned types: never negative.
        signbit_impls!($($t => |x| x < 0, <$t>::MIN == 0),*);
    };
}
crate::dtype_types!(int => signbit_int!());
signbit_impls!(
    bool => |_x| false, true,
    f16 => |x| x.is_sign_negative(), false,
    bf16 => |x| x.is_sign_negative(), false,
    f32 => |x| x.is_sign_negative(), false,
    f64 => |x| x.is_sign_negative(), false,
);
