//! Activation functors and clamps: relu, sigmoid, silu, softplus, gelu, leaky_relu, hardtanh,
//! clamp.

use super::Functor;
use super::real::{Real, int_unary_impls, real_unary_impls};
use half::{bf16, f16};

/// `max(x, 0)`; `relu(-0.0) = -0.0`, `relu(NaN) = NaN` (integers too, not bool).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Relu;
impl Relu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        if x < R::ZERO { R::ZERO } else { x }
    }
}
real_unary_impls!(Relu);
int_unary_impls!(Relu, [i8, i16, i32, i64], |x| if x < 0 { 0 } else { x });
int_unary_impls!(Relu, [u8], |x| x);

/// `1 / (1 + e^-x)`, split on the sign of x so that `e^` never overflows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sigmoid;

#[inline(always)]
fn sigmoid<R: Real>(x: R) -> R {
    // e = e^-|x| <= 1: for x >= 0 the result is 1/(1+e), for x < 0 it is e/(1+e).
    let e = (-x.abs()).exp();
    let num = if x < R::ZERO { e } else { R::ONE };
    num / (R::ONE + e)
}

impl Sigmoid {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        sigmoid(x)
    }
}
// f32: the vectorizable form (same split on the sign of x).
real_unary_impls!(Sigmoid, f32 => |_: &Sigmoid, x: f32| super::fastmath::sigmoid_f32(x));

/// `x * sigmoid(x)`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Silu;
impl Silu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x * sigmoid(x)
    }
}
real_unary_impls!(Silu);

/// `log(1 + e^x)` with PyTorch's defaults beta = 1, threshold = 20: `x` itself above 20.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Softplus;
impl Softplus {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        if x > R::c(20.0) { x } else { x.exp().ln_1p() }
    }
}
real_unary_impls!(Softplus);

/// Which gelu: exact (erf) or PyTorch's tanh approximation. `#[repr(u8)]` (0 = `None`, 1 = `Tanh`):
/// it is a field of [`Gelu`], a GPU kernel argument.
#[repr(u8)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum GeluApproximate {
    #[default]
    None,
    Tanh,
}

/// gelu, exact `x/2 (1 + erf(x/√2))` or `x/2 (1 + tanh(√(2/π) (x + 0.044715 x³)))`, written as
/// PyTorch writes them (so large negative x gives -0.0 like torch).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Gelu {
    pub approximate: GeluApproximate,
}
impl Gelu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        match self.approximate {
            GeluApproximate::None => {
                let alpha = R::c(core::f64::consts::FRAC_1_SQRT_2);
                x * R::HALF * (R::ONE + (x * alpha).erf())
            }
            GeluApproximate::Tanh => {
                // kBeta = M_SQRT2 * M_2_SQRTPI * 0.5 = sqrt(2/pi)
                let beta =
                    R::c(core::f64::consts::SQRT_2 * core::f64::consts::FRAC_2_SQRT_PI * 0.5);
                let kappa = R::c(0.044715);
                let cube = x * x * x;
                let inner = beta * (x + kappa * cube);
                R::HALF * x * (R::ONE + inner.tanh())
            }
        }
    }
}
// f32 exact gelu: the vectorizable form; the tanh approximation keeps the generic body.
real_unary_impls!(Gelu, f32 => |g: &Gelu, x: f32| match g.approximate {
    GeluApproximate::None => super::fastmath::gelu_erf_f32(x),
    GeluApproximate::Tanh => g.eval(x),
});

/// `x > 0 ? x : x * slope` (floats; the slope is used at the computation precision, f32 for
/// f16/bf16, like PyTorch's opmath).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LeakyRelu {
    pub slope: f64,
}
impl Default for LeakyRelu {
    fn default() -> Self {
        LeakyRelu { slope: 0.01 }
    }
}
impl LeakyRelu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        if x > R::ZERO { x } else { x * R::c(self.slope) }
    }
}
real_unary_impls!(LeakyRelu);

/// `clamp(x, min, max)` with either bound optional. NaN in x or in a bound gives NaN;
/// `min > max` gives `max` (PyTorch's `min(max(x, lo), hi)`).
///
/// A GPU kernel argument (`#[repr(C)]`). The fields are `Option<T>`, whose layout rustc computes
/// alike for the host and nvptx64 (same sizes and alignments of the element types): a tag, then
/// the value at `align_of::<T>()`; `tests/device_abi.rs` pins it.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Clamp<T> {
    pub min: Option<T>,
    pub max: Option<T>,
}

impl<T> Clamp<T> {
    pub const fn new(min: Option<T>, max: Option<T>) -> Self {
        Clamp { min, max }
    }
}

#[inline(always)]
fn clamp_real<R: Real>(x: R, lo: Option<R>, hi: Option<R>) -> R {
    let mut y = x;
    if let Some(lo) = lo {
        // NaN from either side propagates (x + lo is NaN when one is).
        y = if y.is_nan() || lo.is_nan() {
            y + lo
        } else if y < lo {
            lo
        } else {
            y
        };
    }
    if let Some(hi) = hi {
        y = if y.is_nan() || hi.is_nan() {
            y + hi
        } else if y > hi {
            hi
        } else {
            y
        };
    }
    y
}

impl Functor<(f32,)> for Clamp<f32> {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> f32 {
        clamp_real(x, self.min, self.max)
    }
}
impl Functor<(f64,)> for Clamp<f64> {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (x,): (f64,)) -> f64 {
        clamp_real(x, self.min, self.max)
    }
}
macro_rules! clamp_half {
    ($($t:ty),*) => {$(
        impl Functor<($t,)> for Clamp<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                // Exact: the result is x or a bound, all representable.
                <$t>::from_f32(clamp_real(
                    x.to_f32(),
                    self.min.map(|v| v.to_f32()),
                    self.max.map(|v| v.to_f32()),
                ))
            }
        }
    )*};
}
clamp_half!(f16, bf16);
macro_rules! clamp_int {
    ($($t:ty),*) => {$(
        impl Functor<($t,)> for Clamp<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                let mut y = x;
                if let Some(lo) = self.min {
                    y = if y < lo { lo } else { y };
                }
                if let Some(hi) = self.max {
                    y = if y > hi { hi } else { y };
                }
                y
            }
        }
    )*};
}
clamp_int!(u8, i8, i16, i32, i64);

/// `hardtanh(x) = clamp(x, min, max)` (PyTorch defaults -1, 1).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Hardtanh<T> {
    pub min: T,
    pub max: T,
}

macro_rules! hardtanh_impls {
    ($($t:ty),*) => {$(
        impl Functor<($t,)> for Hardtanh<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                Clamp::new(Some(self.min), Some(self.max)).call((x,))
            }
        }
    )*};
}
hardtanh_impls!(u8, i8, i16, i32, i64, f16, bf16, f32, f64);
