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
                let v: $t = if <$t>::MIN == 0 && <$t>::BITS == 64 {
                    u64_from_f32_in_range(c) as $t
                } else {
                    // SAFETY: `c` is finite and in [MIN, MAX + 1): truncated toward zero it is
                    // in [MIN, MAX], representable in the target type.
                    unsafe { c.to_int_unchecked() }
                };
                if x >= HI { <$t>::MAX } else if x < LO { <$t>::MIN } else { v }
            }
            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                // As in `from_f32`; the bounds are exact in f64 too.
                const LO: f64 = <$t>::MIN as f64;
                const HI: f64 = <$t>::MAX as f64 + 1.0;
                let c = if (LO..HI).contains(&x) { x } else { 0.0 };
                let v: $t = if <$t>::MIN == 0 && <$t>::BITS == 64 {
                    u64_from_f64_in_range(c) as $t
                } else {
                    // SAFETY: as in `from_f32`.
                    unsafe { c.to_int_unchecked() }
                };
                if x >= HI { <$t>::MAX } else if x < LO { <$t>::MIN } else { v }
            }
        }
    )*};
}
crate::dtype_types!(int => from_float!());

// u64 (the branch above is constant per type): x86 before AVX-512 has no float -> u64
// conversion, and LLVM leaves a loop of unchecked ones scalar (`to(u64)` ran at 2-3.7x the copy
// limit, i64 at 1.0-1.3x; the `2^63 + (c - 2^63)` split through the i64 conversion stayed
// scalar too). Integer arithmetic on the bits does vectorize (AVX2's variable 64-bit shifts):
// the significand with its hidden bit, shifted left or right by the exponent (truncation).

/// `c as u64` for `c` in [0, 2^64) or 0 (after the range select of `from_float!`).
#[inline(always)]
fn u64_from_f64_in_range(c: f64) -> u64 {
    // Without the sign bit: `c` may be -0 (in the range test's [0, 2^64)).
    let bits = c.to_bits() & !(1u64 << 63);
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    // c = m · 2^e (for c = ±0: e = -1075, a shift past every bit).
    let e = ((bits >> 52) as i64) - 1075;
    // e <= 11 for c < 2^64, so the left shift keeps every bit it should.
    let left = m.wrapping_shl(e as u32);
    let right_by = e.unsigned_abs();
    let right = if right_by < 64 { m >> right_by } else { 0 };
    if e >= 0 { left } else { right }
}

/// As [`u64_from_f64_in_range`] for f32 (widened exactly).
#[inline(always)]
fn u64_from_f32_in_range(c: f32) -> u64 {
    u64_from_f64_in_range(c as f64)
}

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

    /// u64 from random bit patterns of both widths (its conversion is integer arithmetic on
    /// the bits, not the instruction).
    #[test]
    fn u64_same_as_the_as_conversion_on_random_bits() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(s);
            assert_eq!(u64::from_f64(x), x as u64, "{x:e}");
            // Also in [0, 2^64): a random significand with an exponent of that range.
            let y = f64::from_bits((s & 0x000f_ffff_ffff_ffff) | ((1023 + (s >> 58)) << 52));
            assert_eq!(u64::from_f64(y), y as u64, "{y:e}");
            let z = f32::from_bits(s as u32);
            assert_eq!(u64::from_f32(z), z as u64, "{z:e}");
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
