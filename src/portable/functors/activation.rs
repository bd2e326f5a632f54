//! Activation functors and clamps: relu, sigmoid, silu, softplus, gelu, leaky_relu, hardtanh,
//! clamp, elu, selu, celu, mish, logsigmoid, hardswish, hardsigmoid, softsign, logit.

use super::real::{Real, int_unary_impls, real_unary_impls};
use super::{Functor, HalfFormat};
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
int_unary_impls!(Relu, int, |x| if x < 0 { 0 } else { x });

/// `1 / (1 + e^-x)`, split on the sign of x so that `e^` never overflows. Where `e^-|x|` is
/// subnormal (f32 |x| > 87) it is made without a subnormal floating-point operation and kept
/// out of the division (each such operation costs a microcode assist per vector on x86: f32
/// sigmoid of integers in [-100, 100] ran at 8x its time on normal data); blocks where it is
/// normal run the plain form.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sigmoid;

/// The plain form (`Sigmoid`'s narrow form; also silu's).
#[inline(always)]
fn sigmoid<R: Real>(x: R) -> R {
    sigmoid_of(x, (-x.abs()).exp())
}

/// The sigmoid of `x` from `e = e^-|x|` (<= 1): for x >= 0 the result is 1/(1+e), for x < 0 it
/// is e/(1+e).
#[inline(always)]
fn sigmoid_of<R: Real>(x: R, e: R) -> R {
    let num = if x < R::ZERO { e } else { R::ONE };
    num / (R::ONE + e)
}

impl Sigmoid {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        let e = (-x.abs()).exp_without_assists();
        // A subnormal e is the result itself for x < 0 (1 + e rounds to 1). (A max, not a
        // select on `tiny`: LLVM folds that select into the last one and divides by e again.)
        let tiny = e < R::MIN_POSITIVE;
        let e_normal = if e > R::MIN_POSITIVE {
            e
        } else {
            R::MIN_POSITIVE
        };
        let num = if x < R::ZERO { e_normal } else { R::ONE };
        let r = num / (R::ONE + e);
        if x < R::ZERO && tiny { e } else { r }
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        sigmoid_of(x, (-x.abs()).exp_normal())
    }
    #[inline(always)]
    fn in_narrow<R: Real>(&self, x: R) -> bool {
        (-x.abs()).exp_is_normal()
    }
}
real_unary_impls!(Sigmoid, narrow: eval_narrow, domain: in_narrow);

/// `x * sigmoid(x)`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Silu;
impl Silu {
    /// Where e^x is subnormal (f32 x < -86.5) `x·sigmoid(x)` would multiply a subnormal
    /// sigmoid, rounded already, by x (52 ulp off at -104): there `1 + e^x` is 1 and silu is
    /// `x·e^x`, formed with the power of two last (`Real::exp_times`).
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        let r = x * sigmoid(x);
        if x < R::ZERO && !x.exp_is_normal() {
            x.exp_times(x)
        } else {
            r
        }
    }
    /// Where `e^-|x|` is normal (|x| below ~87 for f32, ~708 for f64), as `Sigmoid`'s narrow
    /// form: the exp without its subnormal handling (the same bits).
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        x * sigmoid_of(x, (-x.abs()).exp_normal())
    }
    #[inline(always)]
    fn in_narrow<R: Real>(&self, x: R) -> bool {
        (-x.abs()).exp_is_normal()
    }
}
real_unary_impls!(Silu, narrow: eval_narrow, domain: in_narrow);

/// Stamps the float functors of a unit struct computed from `x` and `e = e^-|x|` by its
/// inherent `fn from_exp<R: Real>(x: R, e: R) -> R`: with the plain `exp`, and a narrow form
/// with `exp_normal` where `e` is normal (the same bits, without the subnormal handling).
macro_rules! of_exp_neg_abs {
    ($name:ty) => {
        impl $name {
            #[inline(always)]
            fn eval<R: Real>(&self, x: R) -> R {
                Self::from_exp(x, (-x.abs()).exp())
            }
            #[inline(always)]
            fn eval_narrow<R: Real>(&self, x: R) -> R {
                Self::from_exp(x, (-x.abs()).exp_normal())
            }
            #[inline(always)]
            fn in_narrow<R: Real>(&self, x: R) -> bool {
                (-x.abs()).exp_is_normal()
            }
        }
        real_unary_impls!($name, narrow: eval_narrow, domain: in_narrow);
    };
}

/// `log(1 + e^x)` with PyTorch's defaults beta = 1, threshold = 20: `x` itself above 20.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Softplus;
impl Softplus {
    /// `max(x, 0) + log(1 + e^-|x|)`: the log's argument is in [1, 2], where a polynomial
    /// serves (`ln_1p_unit`), and e^-|x| never overflows.
    #[inline(always)]
    fn from_exp<R: Real>(x: R, e: R) -> R {
        let m = if x > R::ZERO { x } else { R::ZERO };
        let r = m + e.ln_1p_unit();
        if x > R::c(20.0) { x } else { r }
    }
}
of_exp_neg_abs!(Softplus);

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
/// f32: exact gelu is the vectorizable form, with a narrow form for |x| <= 4 (no divisions);
/// the tanh approximation keeps the generic body (and no narrow domain).
impl Functor<(f32,)> for Gelu {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> f32 {
        match self.approximate {
            GeluApproximate::None => super::fastmath::erf::gelu_f32(x),
            GeluApproximate::Tanh => self.eval(x),
        }
    }
    const HAS_NARROW_DOMAIN: bool = true;
    #[inline(always)]
    fn in_narrow_domain(&self, (x,): (f32,)) -> bool {
        self.approximate == GeluApproximate::None && super::fastmath::erf::gelu_f32_is_near(x)
    }
    #[inline(always)]
    fn call_narrow(&self, (x,): (f32,)) -> f32 {
        super::fastmath::erf::gelu_f32_near(x)
    }
}
real_unary_impls!(@rest Gelu);

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
                <$t>::narrow(clamp_real(
                    x.widen(),
                    self.min.map(|v| v.widen()),
                    self.max.map(|v| v.widen()),
                ))
            }
        }
    )*};
}
clamp_half!(f16, bf16);
macro_rules! clamp_int {
    ([$($t:ty),*]) => {$(
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
crate::dtype_types!(int => clamp_int!());

/// `hardtanh(x) = clamp(x, min, max)` (PyTorch defaults -1, 1).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Hardtanh<T> {
    pub min: T,
    pub max: T,
}

macro_rules! hardtanh_impls {
    ([$($t:ty),*]) => {$(
        impl Functor<($t,)> for Hardtanh<$t> {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                Clamp::new(Some(self.min), Some(self.max)).call((x,))
            }
        }
    )*};
}
crate::dtype_types!(numeric => hardtanh_impls!());

// ---------------------------------------------------------------- elu family

/// `alpha * (e^x - 1)` for `x <= 0`, `x` above, with PyTorch's default `alpha = 1` (`expm1`,
/// accurate near 0). Floats only. Narrow form: blocks of positive inputs skip the `expm1`
/// (the vectorized select computes both sides; PyTorch's kernel skips it per vector too).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Elu;
impl Elu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        if x <= R::ZERO { x.exp_m1() } else { x }
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        x
    }
    /// Where `eval` takes its identity side (NaN is not).
    #[inline(always)]
    fn in_narrow<R: Real>(&self, x: R) -> bool {
        x > R::ZERO
    }
}
real_unary_impls!(Elu, narrow: eval_narrow, domain: in_narrow);

/// `celu(x) = max(0, x) + min(0, alpha * (e^(x/alpha) - 1))` with the default `alpha = 1`, which
/// PyTorch computes as elu: the same values (and narrow form) as [`Elu`]. Floats only.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Celu;
impl Celu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        Elu.eval(x)
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        Elu.eval_narrow(x)
    }
    #[inline(always)]
    fn in_narrow<R: Real>(&self, x: R) -> bool {
        Elu.in_narrow(x)
    }
}
real_unary_impls!(Celu, narrow: eval_narrow, domain: in_narrow);

/// PyTorch's selu constants.
const SELU_ALPHA: f64 = 1.673_263_242_354_377_284_817_042_991_671_7;
const SELU_SCALE: f64 = 1.050_700_987_355_480_493_419_334_985_294_6;

/// `scale * (x > 0 ? x : alpha * (e^x - 1))` with PyTorch's constants, computed as its elu
/// kernel does: `expm1(x) * (alpha * scale)` (the product rounded to the computation type) or
/// `x * scale`. Floats only. Narrow form: `x * scale` on blocks of positive inputs, as [`Elu`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Selu;
impl Selu {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        if x <= R::ZERO {
            x.exp_m1() * (R::c(SELU_ALPHA) * R::c(SELU_SCALE))
        } else {
            self.eval_narrow(x)
        }
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        x * R::c(SELU_SCALE)
    }
    #[inline(always)]
    fn in_narrow<R: Real>(&self, x: R) -> bool {
        Elu.in_narrow(x)
    }
}
real_unary_impls!(Selu, narrow: eval_narrow, domain: in_narrow);

// ---------------------------------------------------------------- smooth activations

/// `x * tanh(softplus(x))`, as PyTorch: `x * tanh(log1p(e^x))` (no threshold). Floats only.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Mish;
impl Mish {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        // tanh(log1p(u)) = ((1+u)² - 1)/((1+u)² + 1): x·n/(n + 2), n = e^x(e^x + 2), one
        // exponential instead of three transcendentals; from x = 20 on n/(n + 2) rounds to 1.
        let cap = R::c(20.0);
        let e = (if x < cap { x } else { cap }).exp();
        let n = e * (e + R::c(2.0));
        x * (n / (n + R::c(2.0)))
    }
}
impl Mish {
    /// f32: the same formula in f32 with the quotient corrected for its roundings
    /// (`fastmath::mish_f32`).
    #[inline(always)]
    fn eval_f32(&self, x: f32) -> f32 {
        super::fastmath::mish_f32(x)
    }
}
real_unary_impls!(Mish, f32 => eval_f32);

/// `log(sigmoid(x))`, PyTorch's stable form `min(x, 0) - log1p(e^-|x|)`. Floats only.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Logsigmoid;
impl Logsigmoid {
    #[inline(always)]
    fn from_exp<R: Real>(x: R, e: R) -> R {
        let m = if x < R::ZERO { x } else { R::ZERO };
        m - e.ln_1p_unit()
    }
}
of_exp_neg_abs!(Logsigmoid);

// ---------------------------------------------------------------- piecewise-linear

/// `min(max(t, 0), 6)` with NaN passing through (as `std::min(std::max(..))` and the vector
/// `minimum`/`maximum` do).
#[inline(always)]
fn relu6<R: Real>(t: R) -> R {
    if t < R::ZERO {
        R::ZERO
    } else if t > R::c(6.0) {
        R::c(6.0)
    } else {
        t
    }
}

/// `x * min(max(x + 3, 0), 6) / 6`, in that order. Floats only.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Hardswish;
impl Hardswish {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x * relu6(x + R::c(3.0)) / R::c(6.0)
    }
}
real_unary_impls!(Hardswish);

/// `min(max(x + 3, 0), 6) / 6`. Floats only.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Hardsigmoid;
impl Hardsigmoid {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        relu6(x + R::c(3.0)) / R::c(6.0)
    }
}
real_unary_impls!(Hardsigmoid);

/// `x / (1 + |x|)`. PyTorch computes it in Python as `x / (x.abs() + 1)`: two tensor ops, so
/// f16/bf16 round `|x| + 1` to their format before dividing (the f16/bf16 impls do the same).
/// Integer inputs: see the `(int,)` impls, which return f32; bool is refused (no `abs`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Softsign;
impl Softsign {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x / (x.abs() + R::ONE)
    }
}

/// `log(x / (1 - x))` as PyTorch computes logit without `eps` (and `+inf` at exactly 1):
/// not `log(x) - log1p(-x)`, which differs by a few ulp near 0.5. f16/bf16 round every step
/// to their format, as PyTorch's `Half`/`BFloat16` arithmetic does.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Logit;
impl Logit {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        // Computed for every x, then selected: a branch around `ln` kept the f64 loop scalar
        // (9.7x its copy limit). At x = 1 the quotient is +inf and `ln` gives +inf too; the
        // select says so for any `ln`.
        let l = (x / (R::ONE - x)).ln();
        if x == R::ONE { R::INFINITY } else { l }
    }
    /// Whether `MIN_POSITIVE <= x < 1`: the quotient is then positive, normal and finite, and
    /// `eval`'s `ln` is `ln_normal` (no subnormal scaling, no special-case selects).
    #[inline(always)]
    fn narrow_domain<R: Real>(&self, x: R) -> bool {
        x >= R::MIN_POSITIVE && x < R::ONE
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        (x / (R::ONE - x)).ln_normal()
    }
}

/// f32 and f64 through `eval`; f16/bf16 with each step rounded to the format (`$r`:
/// [`HalfFormat::round`](super::HalfFormat::round)), as PyTorch's `Half`/`BFloat16` operators do.
///
/// With `narrow: |x, r| form`, the functor's inherent `narrow_domain` and `eval_narrow` are
/// the f32/f64 narrow form and `form` the halves' (on the same domain, tested on the f32 value
/// of the half input).
macro_rules! stepwise_half_impls {
    ($name:ty, |$x:ident, $r:ident| $body:expr) => {
        $crate::functors::activation::stepwise_half_impls!(@float $name, f32);
        $crate::functors::activation::stepwise_half_impls!(@float $name, f64);
        impl super::HalfOwnForm<(f32,)> for $name {
            #[inline(always)]
            fn call_half<H: super::HalfFormat>(&self, ($x,): (f32,)) -> f32 {
                let $r = H::round;
                $body
            }
        }
        super::half_form::half_functors_from_own_form!($name, unary);
    };
    ($name:ty, |$x:ident, $r:ident| $body:expr, narrow: |$nx:ident, $nr:ident| $narrow:expr) => {
        $crate::functors::real::real_unary_impls!(@narrow $name, f32, eval_narrow, narrow_domain);
        $crate::functors::real::real_unary_impls!(@narrow $name, f64, eval_narrow, narrow_domain);
        impl super::HalfOwnForm<(f32,)> for $name {
            #[inline(always)]
            fn call_half<H: super::HalfFormat>(&self, ($x,): (f32,)) -> f32 {
                let $r = H::round;
                $body
            }
            const HAS_NARROW_DOMAIN: bool = true;
            #[inline(always)]
            fn in_narrow_domain(&self, (x,): (f32,)) -> bool {
                self.narrow_domain(x)
            }
            #[inline(always)]
            fn call_half_narrow<H: super::HalfFormat>(&self, ($nx,): (f32,)) -> f32 {
                let $nr = H::round;
                $narrow
            }
        }
        super::half_form::half_functors_from_own_form!($name, unary);
    };
    (@float $name:ty, $t:ty) => {
        impl Functor<($t,)> for $name {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                self.eval(x)
            }
        }
    };
}
pub(crate) use stepwise_half_impls;
stepwise_half_impls!(Softsign, |x, r| x / r(x.abs() + 1.0));
stepwise_half_impls!(Logit, |x, r| if x == 1.0 {
    f32::INFINITY
} else {
    super::real::Real::ln(r(x / r(1.0 - x)))
}, narrow: |x, r| super::real::Real::ln_normal(r(x / r(1.0 - x))));

/// Integer softsign, exactly PyTorch's `x / (x.abs() + 1)` on an integer tensor: `|x| + 1` in
/// the integer type (wrapping: `|MIN| + 1 = MIN + 1`, `255u8 + 1 = 0`), then a true division
/// of the two converted to f32. Output f32 (`softsign(int) -> float32`).
macro_rules! softsign_int {
    ($($t:ty => |$x:ident| $denom:expr),* $(,)?) => {$(
        impl Functor<($t,)> for Softsign {
            type Output = f32;
            #[inline(always)]
            fn call(&self, ($x,): ($t,)) -> f32 {
                $x as f32 / ($denom) as f32
            }
        }
    )*};
}
softsign_int!(
    u8 => |x| x.wrapping_add(1),
    i8 => |x| x.wrapping_abs().wrapping_add(1),
    i16 => |x| x.wrapping_abs().wrapping_add(1),
    i32 => |x| x.wrapping_abs().wrapping_add(1),
    i64 => |x| x.wrapping_abs().wrapping_add(1),
);
