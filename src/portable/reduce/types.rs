//! Element-type facts of the reductions: accumulation types, the extreme values, and the
//! compile-time result types of the typed API (`Tensor<i32>::sum` is a `Tensor<i64>`).
//! One row per dtype in [`reduce_types!`]; `DType`-level rules in `plan.rs` read the same facts.

use crate::element::Element;
use crate::functors::real::Real;
use half::{bf16, f16};

// The typed API's result types are `DynTensor` elements; the `no_std` (device) build has no
// `DynTensor`, and only needs them to be elements.
#[cfg(feature = "std")]
use crate::DynElement as ResultElement;
#[cfg(not(feature = "std"))]
use crate::element::Element as ResultElement;

/// An accumulator of `sum`/`prod`/`mean`: i64 (wrapping, for bool, u8 and the signed
/// integers), u64 (wrapping, for u16/u32/u64: NumPy's rule, PyTorch has none), f32 (for
/// f16/bf16/f32), f64.
pub trait AccNum: Element {
    fn add(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    /// `self / n` (`mean`; only float accumulators are divided).
    fn div_count(self, n: usize) -> Self;
}

macro_rules! int_acc {
    ($($t:ty),*) => {$(
        impl AccNum for $t {
            #[inline(always)]
            fn add(self, b: $t) -> $t {
                self.wrapping_add(b)
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                self.wrapping_mul(b)
            }
            #[inline(always)]
            fn div_count(self, n: usize) -> $t {
                // (checked: no panic path in the device build)
                self.checked_div(n as $t).unwrap_or(0)
            }
        }
    )*};
}
int_acc!(i64, u64);

/// The float computation types of `var`, `logsumexp` and `softmax`.
pub trait FloatAcc: AccNum {
    fn sub(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn to_f64(self) -> f64;
    fn is_finite_acc(self) -> bool;
    const NEG_INFINITY: Self;
}

macro_rules! float_acc {
    ($t:ty, $exp:expr) => {
        impl AccNum for $t {
            #[inline(always)]
            fn add(self, b: $t) -> $t {
                self + b
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                self * b
            }
            #[inline(always)]
            fn div_count(self, n: usize) -> $t {
                self / n as $t
            }
        }
        impl FloatAcc for $t {
            #[inline(always)]
            fn sub(self, b: $t) -> $t {
                self - b
            }
            #[inline(always)]
            fn div(self, b: $t) -> $t {
                self / b
            }
            #[inline(always)]
            fn exp(self) -> $t {
                $exp(self)
            }
            #[inline(always)]
            fn ln(self) -> $t {
                <$t as Real>::ln(self)
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn is_finite_acc(self) -> bool {
                self.is_finite()
            }
            const NEG_INFINITY: $t = <$t>::NEG_INFINITY;
        }
    };
}
float_acc!(f32, exp_f32);
float_acc!(f64, <f64 as Real>::exp);

/// `e^x` in f32 through the branch-free (vectorizable) polynomial, with the overflow and
/// underflow ends made exact (`exp_f32` clamps its argument, so it never returns inf or 0).
#[inline(always)]
fn exp_f32(x: f32) -> f32 {
    let e = crate::functors::fastmath::exp_f32(x);
    if x > 88.722_84 {
        f32::INFINITY
    } else if x < -103.972_08 {
        0.0
    } else {
        e
    }
}

/// The accumulator of a float `sum`/`prod`/`mean` read as `Self` and written as `O` (a float
/// `dtype=`): f64 when either is f64, else f32 (PyTorch reads the input as it is and
/// accumulates in the wider accumulation type).
pub trait FloatFoldAcc<O> {
    type Acc: AccNum;
}

macro_rules! float_fold_acc {
    ($($t:ty => [$($o:ty: $acc:ty),*];)*) => {$($(
        impl FloatFoldAcc<$o> for $t {
            type Acc = $acc;
        }
    )*)*};
}
float_fold_acc! {
    f16 => [f16: f32, bf16: f32, f32: f32, f64: f64];
    bf16 => [f16: f32, bf16: f32, f32: f32, f64: f64];
    f32 => [f16: f32, bf16: f32, f32: f32, f64: f64];
    f64 => [f16: f64, bf16: f64, f32: f64, f64: f64];
}

/// The order facts of `amax`/`argmax`: the identity of max and min, and NaN.
pub trait Extremum: Element {
    /// The identity of `max` (-inf for floats, `MIN` for integers, false).
    const LOWEST: Self;
    /// The identity of `min`.
    const HIGHEST: Self;
    fn is_nan_elem(self) -> bool;

    /// The maximum (`max`) or minimum of `xs` ignoring NaN, and whether `xs` holds a NaN:
    /// 16 independent lanes of compare-and-select, which vectorize.
    #[inline(always)]
    fn block_extreme(xs: &[Self], max: bool) -> (Self, bool) {
        const L: usize = 16;
        let init = if max { Self::LOWEST } else { Self::HIGHEST };
        // NaNs are caught in lanes of the element type (a select keeps any NaN seen), not in
        // bool lanes, which vectorize poorly.
        let (mut m, mut nan) = ([init; L], [init; L]);
        let mut blocks = xs.chunks_exact(L);
        if max {
            for b in &mut blocks {
                for k in 0..L {
                    m[k] = if b[k] > m[k] { b[k] } else { m[k] };
                    nan[k] = if b[k].is_nan_elem() { b[k] } else { nan[k] };
                }
            }
        } else {
            for b in &mut blocks {
                for k in 0..L {
                    m[k] = if b[k] < m[k] { b[k] } else { m[k] };
                    nan[k] = if b[k].is_nan_elem() { b[k] } else { nan[k] };
                }
            }
        }
        let mut best = init;
        let mut any_nan = nan.iter().any(|x| x.is_nan_elem());
        for &x in m.iter().chain(blocks.remainder()) {
            best = if (max && x > best) || (!max && x < best) {
                x
            } else {
                best
            };
            any_nan |= x.is_nan_elem();
        }
        (best, any_nan)
    }
}

/// Per element type: what its reductions produce (typed API) and accumulate in.
pub trait ReduceElement: Extremum + ResultElement {
    /// `sum`/`prod` result: i64 for bool, u8 and the signed integers, u64 for u16/u32/u64,
    /// the type itself for floats.
    type Sum: ResultElement;
    /// `sum`/`prod`/`mean` accumulator.
    type SumAcc: AccNum;
    /// `any`/`all` result: u8 for u8, bool otherwise.
    type AnyAll: ResultElement;
    /// `logsumexp` result: f32 (the default float dtype) for integers and bool.
    type Lse: ResultElement;
}

/// The float element types: `mean`, `var`, `std`, `softmax` and `log_softmax` exist on
/// `Tensor<T>` only for these (on integers they are compile errors, as they are runtime errors
/// in PyTorch without a float `dtype`).
pub trait ReduceFloat: ReduceElement {
    /// The computation type of `var`/`std` (f64, PyTorch's CPU accumulation type for f32) and
    /// of `logsumexp`/`softmax` (f32 for f16/bf16/f32, f64 for f64).
    type Exp: FloatAcc + ResultElement;
}

macro_rules! reduce_types {
    ($($t:ty: $lo:expr, $hi:expr, nan $nan:expr; sum $sum:ty, $acc:ty; any $any:ty; lse $lse:ty;)*) => {$(
        impl Extremum for $t {
            const LOWEST: $t = $lo;
            const HIGHEST: $t = $hi;
            #[inline(always)]
            #[allow(clippy::redundant_closure_call, clippy::eq_op)]
            fn is_nan_elem(self) -> bool {
                ($nan)(self)
            }
        }
        impl ReduceElement for $t {
            type Sum = $sum;
            type SumAcc = $acc;
            type AnyAll = $any;
            type Lse = $lse;
        }
    )*};
}

reduce_types! {
    bool: false, true, nan |_| false; sum i64, i64; any bool; lse f32;
    u8: u8::MIN, u8::MAX, nan |_| false; sum i64, i64; any u8; lse f32;
    i8: i8::MIN, i8::MAX, nan |_| false; sum i64, i64; any bool; lse f32;
    i16: i16::MIN, i16::MAX, nan |_| false; sum i64, i64; any bool; lse f32;
    i32: i32::MIN, i32::MAX, nan |_| false; sum i64, i64; any bool; lse f32;
    i64: i64::MIN, i64::MAX, nan |_| false; sum i64, i64; any bool; lse f32;
    u16: u16::MIN, u16::MAX, nan |_| false; sum u64, u64; any bool; lse f32;
    u32: u32::MIN, u32::MAX, nan |_| false; sum u64, u64; any bool; lse f32;
    u64: u64::MIN, u64::MAX, nan |_| false; sum u64, u64; any bool; lse f32;
    f16: f16::NEG_INFINITY, f16::INFINITY, nan |x: f16| x.is_nan(); sum f16, f32; any bool; lse f16;
    bf16: bf16::NEG_INFINITY, bf16::INFINITY, nan |x: bf16| x.is_nan(); sum bf16, f32; any bool; lse bf16;
    f32: f32::NEG_INFINITY, f32::INFINITY, nan |x: f32| x.is_nan(); sum f32, f32; any bool; lse f32;
    f64: f64::NEG_INFINITY, f64::INFINITY, nan |x: f64| x.is_nan(); sum f64, f64; any bool; lse f64;
}

impl ReduceFloat for f16 {
    type Exp = f32;
}
impl ReduceFloat for bf16 {
    type Exp = f32;
}
impl ReduceFloat for f32 {
    type Exp = f32;
}
impl ReduceFloat for f64 {
    type Exp = f64;
}
