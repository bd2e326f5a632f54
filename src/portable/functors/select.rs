//! Functors with several operands or a cast: where, masked_fill, lerp, addcmul, cast.

use super::real::Real;
use super::{Functor, HalfFormat};
use crate::element::{Element, convert_value};
use core::marker::PhantomData;
use half::{bf16, f16};

/// `cond ? a : b` over `(bool, T, T)`, any element type.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Where;
impl<T: Element> Functor<(bool, T, T)> for Where {
    type Output = T;
    #[inline(always)]
    fn call(&self, (c, a, b): (bool, T, T)) -> T {
        // A select, not a branch (see `MaskedFill`).
        core::hint::select_unpredictable(c, a, b)
    }
}

/// `mask ? value : x` over `(x, mask)`, any element type.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MaskedFill<T> {
    pub value: T,
}
impl<T: Element> Functor<(T, bool)> for MaskedFill<T> {
    type Output = T;
    #[inline(always)]
    fn call(&self, (x, m): (T, bool)) -> T {
        // A select, not a branch: LLVM made f16/bf16 (16-bit structs) a branch per element
        // (in place: 10x the copy time on a random mask).
        core::hint::select_unpredictable(m, self.value, x)
    }
}

/// PyTorch's lerp formula, chosen on |w| for accuracy at both ends.
#[inline(always)]
fn lerp<R: Real>(a: R, b: R, w: R) -> R {
    if w.abs() < R::HALF {
        a + w * (b - a)
    } else {
        b - (b - a) * (R::ONE - w)
    }
}

/// `lerp(a, b, weight)` with a tensor weight, over `(a, b, w)` (floats).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Lerp;
/// `lerp(a, b, weight)` with a scalar weight, over `(a, b)` (floats; the weight at the
/// computation precision, f32 for f16/bf16).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct LerpScalar {
    pub weight: f64,
}

macro_rules! lerp_impls {
    ($($t:ty: |$x:ident| $to:expr, |$r:ident| $from:expr;)*) => {$(
        impl Functor<($t, $t, $t)> for Lerp {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b, w): ($t, $t, $t)) -> $t {
                let $r = lerp({ let $x = a; $to }, { let $x = b; $to }, { let $x = w; $to });
                $from
            }
        }
        impl Functor<($t, $t)> for LerpScalar {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, b): ($t, $t)) -> $t {
                let w = Real::c(self.weight);
                let $r = lerp({ let $x = a; $to }, { let $x = b; $to }, w);
                $from
            }
        }
    )*};
}
lerp_impls!(
    f32: |x| x, |r| r;
    f64: |x| x, |r| r;
    f16: |x| x.widen(), |r| f16::narrow(r);
    bf16: |x| x.widen(), |r| bf16::narrow(r);
);

/// `a + value * t1 * t2` over `(a, t1, t2)`. `V` is the value's type: the element type, except
/// f32 for f16/bf16 (computed in f32, rounded once, as PyTorch). Integers wrap.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Addcmul<V> {
    pub value: V,
}
macro_rules! addcmul_int {
    ([$($t:ty),*]) => {$(
        impl Functor<($t, $t, $t)> for Addcmul<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, t1, t2): ($t, $t, $t)) -> $t {
                a.wrapping_add(self.value.wrapping_mul(t1).wrapping_mul(t2))
            }
        }
    )*};
}
crate::dtype_types!(int => addcmul_int!());
impl Functor<(f32, f32, f32)> for Addcmul<f32> {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (a, t1, t2): (f32, f32, f32)) -> f32 {
        a + self.value * t1 * t2
    }
}
impl Functor<(f64, f64, f64)> for Addcmul<f64> {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (a, t1, t2): (f64, f64, f64)) -> f64 {
        a + self.value * t1 * t2
    }
}
macro_rules! addcmul_half {
    ($($t:ty),*) => {$(
        impl Functor<($t, $t, $t)> for Addcmul<f32> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (a, t1, t2): ($t, $t, $t)) -> $t {
                <$t>::narrow(a.widen() + self.value * t1.widen() * t2.widen())
            }
        }
    )*};
}
addcmul_half!(f16, bf16);

/// Conversion to `D` from any element type, as `tensor.to(D)` (see [`convert_value`]).
pub struct Cast<D>(PhantomData<fn() -> D>);

impl<D> Cast<D> {
    pub const fn new() -> Self {
        Cast(PhantomData)
    }
}
impl<D> Default for Cast<D> {
    fn default() -> Self {
        Self::new()
    }
}
impl<D> Clone for Cast<D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for Cast<D> {}
impl<D> core::fmt::Debug for Cast<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Cast")
    }
}
impl<S: Element, D: Element> Functor<(S,)> for Cast<D> {
    type Output = D;
    #[inline(always)]
    fn call(&self, (x,): (S,)) -> D {
        convert_value(x)
    }
    const IS_IDENTITY: bool = S::DTYPE as u8 == D::DTYPE as u8;
}
