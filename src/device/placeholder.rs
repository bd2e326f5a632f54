//! TEMPORARY stand-in functors for the GPU kernel list, until the real ones land in
//! `src/functors/`. After merging: point `gpu_kernel_list!` (src/device/kernel_list.rs) at
//! `$crate::functors::*`, delete this file and its `mod` line, regenerate the PTX.
//!
//! They follow the functor conventions: integers wrap, f16/bf16 compute in f32 and round once.
#![doc(hidden)]

use crate::functors::Functor;
use half::{bf16, f16};

/// `a + b` (placeholder).
#[derive(Copy, Clone, Debug, Default)]
pub struct PAdd;
/// `-a` (placeholder).
#[derive(Copy, Clone, Debug, Default)]
pub struct PNeg;
/// `cond ? a : b` (placeholder).
#[derive(Copy, Clone, Debug, Default)]
pub struct PWhere;
/// `exp(a)` (placeholder; libm, so host and device run the same algorithm).
#[derive(Copy, Clone, Debug, Default)]
pub struct PExp;

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        impl Functor<($t, $t)> for PAdd {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t { a.wrapping_add(b) }
        }
        impl Functor<($t,)> for PNeg {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a,): ($t,)) -> $t { a.wrapping_neg() }
        }
    )*};
}
int_ops!(u8, i8, i16, i32, i64);

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl Functor<($t, $t)> for PAdd {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t { a + b }
        }
        impl Functor<($t,)> for PNeg {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a,): ($t,)) -> $t { -a }
        }
    )*};
}
float_ops!(f32, f64);

macro_rules! half_ops {
    ($($t:ty),*) => {$(
        impl Functor<($t, $t)> for PAdd {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t { <$t>::from_f32(a.to_f32() + b.to_f32()) }
        }
        impl Functor<($t,)> for PNeg {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a,): ($t,)) -> $t { -a }
        }
        impl Functor<($t,)> for PExp {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a,): ($t,)) -> $t { <$t>::from_f32(libm::expf(a.to_f32())) }
        }
    )*};
}
half_ops!(f16, bf16);

impl Functor<(bool, bool)> for PAdd {
    type Output = bool;
    #[inline(always)]
    fn call(&self, (a, b): (bool, bool)) -> bool {
        a | b
    }
}
impl Functor<(f32,)> for PExp {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (a,): (f32,)) -> f32 {
        libm::expf(a)
    }
}
impl Functor<(f64,)> for PExp {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (a,): (f64,)) -> f64 {
        libm::exp(a)
    }
}
impl<T: Copy> Functor<(bool, T, T)> for PWhere {
    type Output = T;
    #[inline(always)]
    fn call(&self, (c, a, b): (bool, T, T)) -> T {
        if c { a } else { b }
    }
}
