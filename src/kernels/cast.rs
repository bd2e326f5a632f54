//! Float -> integer conversions in a form the vector loops compile to conversion instructions.
//!
//! Rust's `x as i32` (truncation toward zero, saturating, NaN -> 0: weft's documented
//! conversion, [`crate::element::convert_value`]) is LLVM's `fptosi.sat`, which the loop
//! vectorizer leaves scalar: `to(i32)` from f32 ran at 4-5x the copy limit and f16/bf16 into
//! bytes at 9-11x. Here the value is first put in range (or 0) by compares and selects, then
//! converted unchecked (`cvttps2dq` and its kin), then the saturated ends selected back: the
//! same results as `as` for every input, bit for bit.

use crate::element::Element;
use crate::functors::Functor;
use core::marker::PhantomData;

/// `as` from f32 and f64 into an integer type, vectorizable.
pub(crate) trait FromFloat: Element {
    fn from_f32(x: f32) -> Self;
    fn from_f64(x: f64) -> Self;
}

macro_rules! from_float {
    ([$($t:ty),*]) => {$(
        impl FromFloat for $t {
            #[inline(always)]
            fn from_f32(x: f32) -> $t {
                // MIN is 0 or -2^(bits-1); MAX + 1 is 2^bits or 2^(bits-1) (`MAX as f32` rounds
                // up to it where it is not exact, and the + 1 is then absorbed): both powers of
                // two, exact in f32.
                const LO: f32 = <$t>::MIN as f32;
                const HI: f32 = <$t>::MAX as f32 + 1.0;
                let c = if (LO..HI).contains(&x) { x } else { 0.0 };
                // SAFETY: `c` is finite and in [MIN, MAX + 1): truncated toward zero it is in
                // [MIN, MAX], representable in the target type.
                let v: $t = unsafe { c.to_int_unchecked() };
                if x >= HI { <$t>::MAX } else if x < LO { <$t>::MIN } else { v }
            }
            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                // As in `from_f32`; the bounds are exact in f64 too.
                const LO: f64 = <$t>::MIN as f64;
                const HI: f64 = <$t>::MAX as f64 + 1.0;
                let c = if (LO..HI).contains(&x) { x } else { 0.0 };
                // SAFETY: as in `from_f32`.
                let v: $t = unsafe { c.to_int_unchecked() };
                if x >= HI { <$t>::MAX } else if x < LO { <$t>::MIN } else { v }
            }
        }
    )*};
}
crate::dtype_types!(int => from_float!());

/// `tensor.to(D)` from f32 or f64 for an integer `D`: [`crate::functors::Cast`]'s results
/// through [`FromFloat`].
pub(crate) struct FloatToInt<D>(PhantomData<fn() -> D>);

impl<D> FloatToInt<D> {
    pub(crate) const fn new() -> Self {
        FloatToInt(PhantomData)
    }
}
impl<D> Clone for FloatToInt<D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for FloatToInt<D> {}

impl<D: FromFloat> Functor<(f32,)> for FloatToInt<D> {
    type Output = D;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> D {
        D::from_f32(x)
    }
}
impl<D: FromFloat> Functor<(f64,)> for FloatToInt<D> {
    type Output = D;
    #[inline(always)]
    fn call(&self, (x,): (f64,)) -> D {
        D::from_f64(x)
    }
}

/// Runs `tensor.to(dd)` / `copy_` over `iter` when it converts a float (`sd`) into an
/// integer type: f32 and f64 directly, f16 and bf16 over f32 blocks (exact widening). `false`
/// (nothing run) for any other pair.
pub(crate) fn run_float_to_int(iter: &crate::iter::TensorIterator, dd: crate::DType) -> bool {
    use crate::DType;
    use crate::iter::LoopCost;
    let sd = iter.dtype(1);
    if !sd.is_float() {
        return false;
    }
    crate::dispatch_dtypes!(dd, int, D => {
        if sd == DType::F64 {
            super::run_blocked(iter, LoopCost::Cheap, super::unary::<f64, FloatToInt<D>>(FloatToInt::new(), dd, sd));
        } else {
            super::run_blocked(iter, LoopCost::Cheap, super::unary::<f32, FloatToInt<D>>(FloatToInt::new(), dd, sd));
        }
        true
    }, _ => false)
}

#[cfg(test)]
mod tests {
    use super::FromFloat;

    fn check<T: FromFloat + PartialEq + core::fmt::Debug>(to32: fn(f32) -> T, to64: fn(f64) -> T) {
        let mut x32: Vec<f32> = vec![
            0.0,
            -0.0,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for e in -2..70 {
            let p = 2f64.powi(e);
            for d in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                for s in [1.0, -1.0] {
                    x32.push((s * (p + d)) as f32);
                    let b = ((s * p) as f32).to_bits();
                    x32.extend([b.wrapping_sub(1), b, b + 1].map(f32::from_bits));
                }
            }
        }
        for &x in &x32 {
            assert_eq!(T::from_f32(x), to32(x), "{x:e}");
            let y = x as f64;
            for z in [
                y,
                y + 0.5,
                y - 0.5,
                y * (1.0 + f64::EPSILON),
                y * (1.0 - f64::EPSILON),
            ] {
                assert_eq!(T::from_f64(z), to64(z), "{z:e}");
            }
        }
    }

    #[test]
    fn same_as_the_as_conversion_at_every_edge() {
        check::<u8>(|x| x as u8, |x| x as u8);
        check::<i8>(|x| x as i8, |x| x as i8);
        check::<i16>(|x| x as i16, |x| x as i16);
        check::<u16>(|x| x as u16, |x| x as u16);
        check::<i32>(|x| x as i32, |x| x as i32);
        check::<u32>(|x| x as u32, |x| x as u32);
        check::<i64>(|x| x as i64, |x| x as i64);
        check::<u64>(|x| x as u64, |x| x as u64);
    }
}
