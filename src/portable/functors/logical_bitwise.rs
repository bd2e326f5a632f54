//! Logical functors (any dtype in, bool out; nonzero and NaN are true) and bitwise functors
//! (integers and bool), including PyTorch's shifts.

// The integer macros stamp one body for signed and unsigned types; `x < 0` is then always
// false for the unsigned ones, which is intended.
#![allow(unused_comparisons, clippy::absurd_extreme_comparisons)]

use super::Functor;
use half::{bf16, f16};

/// Truthiness as PyTorch's `static_cast<bool>`: nonzero, NaN included; `-0.0` is false.
pub trait Truthy: Copy {
    fn truthy(self) -> bool;
    /// `a.truthy() & b.truthy()` (`logical_and`).
    #[inline(always)]
    fn both_truthy(a: Self, b: Self) -> bool {
        a.truthy() & b.truthy()
    }
}
macro_rules! truthy_int {
    ([$($t:ty),*]) => {$(
        impl Truthy for $t {
            #[inline(always)]
            fn truthy(self) -> bool { self != 0 }
        }
    )*};
}
crate::dtype_types!(int => truthy_int!());
impl Truthy for bool {
    #[inline(always)]
    fn truthy(self) -> bool {
        self
    }
}
impl Truthy for f32 {
    #[inline(always)]
    fn truthy(self) -> bool {
        // `x != 0.0` is true for NaN.
        self != 0.0
    }
    /// Both nonzero: the lesser of the magnitudes' bits (the sign shifted out) is nonzero (NaN
    /// bits are). `a != 0 & b != 0` compiles on AVX-512 into a compare of `b` masked by `a`'s,
    /// whose folded load then waits for `a`'s: from memory, `logical_and` ran at 1.5x the time
    /// of `logical_or` (16M f32).
    #[inline(always)]
    fn both_truthy(a: Self, b: Self) -> bool {
        (a.to_bits() << 1).min(b.to_bits() << 1) != 0
    }
}
impl Truthy for f64 {
    #[inline(always)]
    fn truthy(self) -> bool {
        self != 0.0
    }
    /// As f32's.
    #[inline(always)]
    fn both_truthy(a: Self, b: Self) -> bool {
        (a.to_bits() << 1).min(b.to_bits() << 1) != 0
    }
}
impl Truthy for f16 {
    #[inline(always)]
    fn truthy(self) -> bool {
        // Any bit besides the sign set: nonzero or NaN.
        self.to_bits() & 0x7fff != 0
    }
}
impl Truthy for bf16 {
    #[inline(always)]
    fn truthy(self) -> bool {
        self.to_bits() & 0x7fff != 0
    }
}

macro_rules! unit {
    ($($(#[$m:meta])* $name:ident),* $(,)?) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
    )*};
}
unit!(
    /// `a && b` on truthiness.
    LogicalAnd,
    /// `a || b` on truthiness.
    LogicalOr,
    /// `a != b` on truthiness.
    LogicalXor,
    /// `!x` on truthiness (`logical_not(NaN) = false`).
    LogicalNot,
    /// `a & b` (integers, bool).
    BitwiseAnd,
    /// `a | b` (integers, bool).
    BitwiseOr,
    /// `a ^ b` (integers, bool).
    BitwiseXor,
    /// `!x` (integers; logical not for bool).
    BitwiseNot,
    /// `a << b` (integers); a shift that is negative or not less than the bit width gives 0.
    BitwiseLeftShift,
    /// `a >> b` (integers, arithmetic for signed); a negative or too large shift fills with
    /// the sign (0 or -1).
    BitwiseRightShift,
);

macro_rules! logical_impls {
    ([$($t:ty),*]) => {$(
        impl Functor<($t, $t)> for LogicalAnd {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> bool { <$t as Truthy>::both_truthy(a, b) }
        }
        impl Functor<($t, $t)> for LogicalOr {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> bool { a.truthy() | b.truthy() }
        }
        impl Functor<($t, $t)> for LogicalXor {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> bool { a.truthy() ^ b.truthy() }
        }
        impl Functor<($t,)> for LogicalNot {
            type Output = bool;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> bool { !x.truthy() }
        }
    )*};
}
crate::dtype_types!(all => logical_impls!());

macro_rules! bitwise_impls {
    ([$($t:ty),*]) => {$(
        impl Functor<($t, $t)> for BitwiseAnd {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t { a & b }
        }
        impl Functor<($t, $t)> for BitwiseOr {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t { a | b }
        }
        impl Functor<($t, $t)> for BitwiseXor {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t { a ^ b }
        }
        impl Functor<($t,)> for BitwiseNot {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t { !x }
        }
    )*};
}
crate::dtype_types!(integral => bitwise_impls!());

// PyTorch: the shift amount is read as signed (`static_cast<make_signed_t<T>>(b) < 0`), so a
// u8 shift of 200 counts as negative. Left: out of range -> 0. Right: out of range ->
// `a >> max_shift` with max_shift = bits - 1 for signed (sign fill), bits for unsigned (0).
macro_rules! shift_impls {
    ($($t:ty => $s:ty),*) => {$(
        impl Functor<($t, $t)> for BitwiseLeftShift {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                // The amount saturated at BITS (a negative one, read as signed, is huge as
                // u64), applied in two halves, each < BITS: BITS shifts everything out, with no
                // select. With `b out of range ? 0 : a << b`, LLVM's NVPTX backend folded the
                // select into one PTX `shl` (which gives 0 for amounts >= the width) fed only
                // b's low 32 bits, also when the test was on a saturated amount: an i64 shifted
                // by 2^53 + 1 came out shifted by 1 on the GPU (ops_more.json on an H200).
                let s = (b as $s as i64 as u64).min(<$t>::BITS as u64) as u32;
                let half = s / 2;
                a.wrapping_shl(half).wrapping_shl(s - half)
            }
        }
        impl Functor<($t, $t)> for BitwiseRightShift {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                let signed = <$t>::MIN < 0;
                let max_shift = <$t>::BITS as i64 - signed as i64;
                if (b as $s) < 0 || (b as $s as i64) >= max_shift {
                    // Full shift: 0 for unsigned and non-negative, -1 for negative signed.
                    let neg = a < 0;
                    if neg { !0 } else { 0 }
                } else {
                    a.wrapping_shr(b as u32)
                }
            }
        }
    )*};
}
shift_impls!(u8 => i8, i8 => i8, i16 => i16, i32 => i32, i64 => i64, u16 => i16, u32 => i32, u64 => i64);
