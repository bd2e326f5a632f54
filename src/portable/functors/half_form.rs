//! f16/bf16 computations written over f32 values, for the ops whose reduced-float results are
//! *not* their f32 results rounded once (`OpFlag::HalfOwnRounding`: PyTorch rounds some of
//! their intermediates to the reduced type, or evaluates another formula).
//!
//! Every other float op runs its f32 functor over f16/bf16 blocks converted to f32 and rounds
//! once on the way out. These ops run the same block path with [`InHalf`]: their half
//! computation ([`HalfOwnForm::call_half`]) over the block's f32 values (exact halves), the
//! intermediate roundings done by [`HalfFormat::round`] on f32 bits (branch-free, so the
//! loops vectorize), the result rounded by the block's output conversion. Their `f16`/`bf16`
//! functors (the GPU's and the reference evaluator's) are that same function, so there is one
//! definition of each.

use half::{bf16, f16};

/// A reduced float format (`f16` or `bf16`) seen from f32: [`Self::round`] is
/// `H::from_f32(v).to_f32()`, bit for bit, without leaving f32 registers.
pub trait HalfFormat: Copy + Send + Sync + 'static {
    /// `v` rounded to the nearest value of the format (ties to even; overflow to infinity;
    /// NaN stays NaN).
    fn round(v: f32) -> f32;
    /// `H::from_f32(v).to_bits()` for a `v` the format holds exactly (branch-free; for the few
    /// ops that work on the format's bits).
    fn bits(v: f32) -> u16;
    /// `H::from_bits(b).to_f32()`, branch-free.
    fn from_bits(b: u16) -> f32;
    /// `self.to_f32()`, branch-free ([`Self::from_bits`]): `half`'s own conversion checks the
    /// CPU's features on every call, which keeps a loop around it scalar.
    fn widen(self) -> f32;
    /// `H::from_f32(v)`, bit for bit (NaN payloads included), branch-free:
    /// [`Self::bits`] of [`Self::round`].
    fn narrow(v: f32) -> Self;
}

/// [`HalfFormat::widen`] and [`HalfFormat::narrow`] of one type, from its three primitives.
macro_rules! widen_narrow {
    ($t:ty) => {
        #[inline(always)]
        fn widen(self) -> f32 {
            <$t as HalfFormat>::from_bits(self.to_bits())
        }
        #[inline(always)]
        fn narrow(v: f32) -> Self {
            <$t>::from_bits(<$t as HalfFormat>::bits(<$t as HalfFormat>::round(v)))
        }
    };
}

impl HalfFormat for bf16 {
    widen_narrow!(bf16);
    #[inline(always)]
    fn round(v: f32) -> f32 {
        // bf16 is the high half of f32: round the low 16 bits away, ties to even. A carry out of
        // the mantissa steps the exponent (the largest values round to infinity, as they must).
        let b = v.to_bits();
        let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1)) & 0xffff_0000;
        if v.is_nan() {
            v
        } else {
            f32::from_bits(rounded)
        }
    }
    #[inline(always)]
    fn bits(v: f32) -> u16 {
        // Exact: the low half of an exact bf16 value is zero (a NaN keeps its high payload and
        // is made quiet, as `half` does).
        let h = (v.to_bits() >> 16) as u16;
        if v.is_nan() { h | 0x0040 } else { h }
    }
    #[inline(always)]
    fn from_bits(b: u16) -> f32 {
        let quiet = if b & 0x7fff > 0x7f80 { 0x0040 } else { 0 };
        f32::from_bits(((b | quiet) as u32) << 16)
    }
}

impl HalfFormat for f16 {
    widen_narrow!(f16);
    #[inline(always)]
    fn round(v: f32) -> f32 {
        const SIGN: u32 = 0x8000_0000;
        let b = v.to_bits();
        let sign = b & SIGN;
        // f16's step for |v| in [2^E, 2^(E+1)) is 2^(E-10), E >= -14 (below: 2^-24, the
        // subnormal step). In [2^(E+13), 2^(E+14)) f32's step is that same 2^(E-10), so adding
        // `c = ±2^(E+13)` (v's sign) rounds v to f16's grid, ties to even (c is an even
        // multiple of the step), and subtracting it is exact. The sign put back keeps -0.
        let e = (b & 0x7f80_0000).max(0x3880_0000);
        let c = f32::from_bits(e.wrapping_add(13 << 23) | sign);
        let r = f32::from_bits(((v + c) - c).to_bits() | sign);
        // From 65520 on, rounding passes the largest f16 (65504): infinity (infinities too,
        // whose `c` is meaningless).
        let inf = f32::from_bits(sign | 0x7f80_0000);
        if v.is_nan() {
            v
        } else if f32::from_bits(b & !SIGN) >= 65520.0 {
            inf
        } else {
            r
        }
    }
    #[inline(always)]
    fn bits(v: f32) -> u16 {
        // Exact for a value f16 holds: rebias a normal's exponent (127 -> 15), scale a
        // subnormal to its integer count of 2^-24 steps; NaN keeps its high payload and is quiet.
        let b = v.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let a = b & 0x7fff_ffff;
        let normal = (a.wrapping_sub(0x3800_0000) >> 13) as u16;
        // A subnormal's count of 2^-24 steps: the low bits of |v| + 0.5, whose step is 2^-24
        // (exact; no float -> int conversion, which would not vectorize).
        let sub = ((f32::from_bits(a) + 0.5).to_bits() - 0x3f00_0000) as u16;
        let special = 0x7c00
            | if a > 0x7f80_0000 {
                0x200 | ((a >> 13) & 0x3ff) as u16
            } else {
                0
            };
        sign | if a >= 0x7f80_0000 {
            special
        } else if a >= 0x3880_0000 {
            normal
        } else {
            sub
        }
    }
    #[inline(always)]
    fn from_bits(h: u16) -> f32 {
        let sign = ((h & 0x8000) as u32) << 16;
        let a = (h & 0x7fff) as u32;
        let normal = f32::from_bits((a << 13) + 0x3800_0000);
        let sub = (a as f32) * 5.960_464_5e-8; // a * 2^-24, exact
        let quiet = if a > 0x7c00 { 0x40_0000 } else { 0 };
        let special = f32::from_bits(0x7f80_0000 | quiet | ((a & 0x3ff) << 13));
        let m = if a >= 0x7c00 {
            special
        } else if a >= 0x0400 {
            normal
        } else {
            sub
        };
        f32::from_bits(m.to_bits() | sign)
    }
}

/// The f16/bf16 computation of an op with its own reduced-float rounding, over f32 values
/// that are exact `H` values; the result is rounded to `H` by the caller. `Args` is `(f32,)`
/// or `(f32, f32)`.
pub trait HalfOwnForm<Args>: Copy + Send + Sync {
    fn call_half<H: HalfFormat>(&self, args: Args) -> f32;

    /// Whether the kernels run this form over f32 blocks; false where the op's per-element
    /// half functor is faster (it works on the half bits with no conversion: `nextafter`).
    const OVER_F32_BLOCKS: bool = true;

    /// A cheaper form on part of the domain, as [`super::Functor`]'s narrow domain (same
    /// contract: the same bits as `call_half` wherever `in_narrow_domain`).
    const HAS_NARROW_DOMAIN: bool = false;
    #[inline(always)]
    fn in_narrow_domain(&self, _args: Args) -> bool {
        false
    }
    #[inline(always)]
    fn call_half_narrow<H: HalfFormat>(&self, args: Args) -> f32 {
        self.call_half::<H>(args)
    }
}

/// `F`'s `H` computation as an f32 functor, for f32 blocks converted from `H` (the kernels'
/// reduced-float path).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct InHalf<F, H> {
    pub f: F,
    pub format: core::marker::PhantomData<H>,
}

impl<F, H> InHalf<F, H> {
    #[inline(always)]
    pub fn new(f: F) -> Self {
        InHalf {
            f,
            format: core::marker::PhantomData,
        }
    }
}

macro_rules! in_half_functor {
    ($args:ty) => {
        impl<F: HalfOwnForm<$args>, H: HalfFormat> super::Functor<$args> for InHalf<F, H> {
            type Output = f32;
            #[inline(always)]
            fn call(&self, args: $args) -> f32 {
                self.f.call_half::<H>(args)
            }
            const HAS_NARROW_DOMAIN: bool = F::HAS_NARROW_DOMAIN;
            #[inline(always)]
            fn in_narrow_domain(&self, args: $args) -> bool {
                self.f.in_narrow_domain(args)
            }
            #[inline(always)]
            fn call_narrow(&self, args: $args) -> f32 {
                self.f.call_half_narrow::<H>(args)
            }
        }
    };
}
in_half_functor!((f32,));
in_half_functor!((f32, f32));

/// The `f16` and `bf16` functors of an op with a [`HalfOwnForm`]: that form, rounded once more
/// to the type (the one definition the GPU, the reference evaluator and the kernels share).
macro_rules! half_functors_from_own_form {
    ($name:ty, unary) => {
        $crate::functors::half_form::half_functors_from_own_form!(@impl $name, ::half::f16, (x), (::half::f16,), (x.to_f32(),));
        $crate::functors::half_form::half_functors_from_own_form!(@impl $name, ::half::bf16, (x), (::half::bf16,), (x.to_f32(),));
    };
    ($name:ty, binary) => {
        $crate::functors::half_form::half_functors_from_own_form!(@impl $name, ::half::f16, (a, b), (::half::f16, ::half::f16), (a.to_f32(), b.to_f32()));
        $crate::functors::half_form::half_functors_from_own_form!(@impl $name, ::half::bf16, (a, b), (::half::bf16, ::half::bf16), (a.to_f32(), b.to_f32()));
    };
    (@impl $name:ty, $t:ty, ($($a:ident),*), $args:ty, $conv:expr) => {
        impl $crate::functors::Functor<$args> for $name {
            type Output = $t;
            #[inline(always)]
            fn call(&self, ($($a,)*): $args) -> $t {
                <$t>::from_f32($crate::functors::half_form::HalfOwnForm::call_half::<$t>(self, $conv))
            }
        }
    };
}
pub(crate) use half_functors_from_own_form;
