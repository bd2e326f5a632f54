//! The `DynTensor` op methods. For every op `x`: `try_x` returns `Result`, `x` panics with the
//! error's message, `x_` / `try_x_` work in place (the result dtype must cast safely into
//! self's dtype, PyTorch's rule), `x_out` / `try_x_out` write into a given tensor (any view).
//! Binary ops take a tensor or a scalar on the right (`d.add(2.5)`); free functions in this
//! module take a scalar on the left too (`dyn_api::sub(1, &d)`).

use super::{Operand, binary::binary, special, unary::unary};
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::OrPanic;
use crate::error::Result;
use crate::functors::{BinaryOp, GeluApproximate, UnaryOp};
use crate::scalar::Scalar;

#[track_caller]
fn ok<T>(r: Result<T>) -> T {
    r.or_panic()
}

macro_rules! binary_methods {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {
        impl DynTensor {$(
            #[doc = concat!("`", stringify!($name), "(self, other)`; other is a tensor or a scalar.")]
            pub fn $try_name<'a>(&self, other: impl Into<Operand<'a>>) -> Result<DynTensor> {
                binary(BinaryOp::$op, Operand::Tensor(self), other.into(), None)
            }
            #[doc = concat!("`", stringify!($name), "(self, other)`; panics on error (see `", stringify!($try_name), "`).")]
            #[track_caller]
            pub fn $name<'a>(&self, other: impl Into<Operand<'a>>) -> DynTensor {
                ok(self.$try_name(other))
            }
            #[doc = concat!("In-place `", stringify!($name), "`: the result must cast safely to self's dtype.")]
            pub fn $try_inplace<'a>(&mut self, other: impl Into<Operand<'a>>) -> Result<()> {
                let this = self.share();
                binary(BinaryOp::$op, Operand::Tensor(&this), other.into(), Some(&this)).map(|_| ())
            }
            #[doc = concat!("In-place `", stringify!($name), "`; panics on error.")]
            #[track_caller]
            pub fn $inplace<'a>(&mut self, other: impl Into<Operand<'a>>) {
                ok(self.$try_inplace(other))
            }
            #[doc = concat!("`", stringify!($name), "` written into `out` (any view of the result's shape).")]
            pub fn $try_out<'a>(&self, other: impl Into<Operand<'a>>, out: &DynTensor) -> Result<()> {
                binary(BinaryOp::$op, Operand::Tensor(self), other.into(), Some(out)).map(|_| ())
            }
            #[doc = concat!("`", stringify!($name), "` into `out`; panics on error.")]
            #[track_caller]
            pub fn $out<'a>(&self, other: impl Into<Operand<'a>>, out: &DynTensor) {
                ok(self.$try_out(other, out))
            }
        )*}

        $(
            #[doc = concat!("`", stringify!($name), "(a, b)` with a tensor or scalar on either side.")]
            pub fn $name<'a, 'b>(a: impl Into<Operand<'a>>, b: impl Into<Operand<'b>>) -> Result<DynTensor> {
                binary(BinaryOp::$op, a.into(), b.into(), None)
            }
        )*
    };
}

binary_methods! {
    add, try_add, add_, try_add_, add_out, try_add_out => Add;
    sub, try_sub, sub_, try_sub_, sub_out, try_sub_out => Sub;
    mul, try_mul, mul_, try_mul_, mul_out, try_mul_out => Mul;
    div, try_div, div_, try_div_, div_out, try_div_out => Div;
    floor_divide, try_floor_divide, floor_divide_, try_floor_divide_, floor_divide_out, try_floor_divide_out => FloorDivide;
    remainder, try_remainder, remainder_, try_remainder_, remainder_out, try_remainder_out => Remainder;
    fmod, try_fmod, fmod_, try_fmod_, fmod_out, try_fmod_out => Fmod;
    pow, try_pow, pow_, try_pow_, pow_out, try_pow_out => Pow;
    atan2, try_atan2, atan2_, try_atan2_, atan2_out, try_atan2_out => Atan2;
    maximum, try_maximum, maximum_, try_maximum_, maximum_out, try_maximum_out => Maximum;
    minimum, try_minimum, minimum_, try_minimum_, minimum_out, try_minimum_out => Minimum;
    eq, try_eq, eq_, try_eq_, eq_out, try_eq_out => Eq;
    ne, try_ne, ne_, try_ne_, ne_out, try_ne_out => Ne;
    lt, try_lt, lt_, try_lt_, lt_out, try_lt_out => Lt;
    le, try_le, le_, try_le_, le_out, try_le_out => Le;
    gt, try_gt, gt_, try_gt_, gt_out, try_gt_out => Gt;
    ge, try_ge, ge_, try_ge_, ge_out, try_ge_out => Ge;
    logical_and, try_logical_and, logical_and_, try_logical_and_, logical_and_out, try_logical_and_out => LogicalAnd;
    logical_or, try_logical_or, logical_or_, try_logical_or_, logical_or_out, try_logical_or_out => LogicalOr;
    logical_xor, try_logical_xor, logical_xor_, try_logical_xor_, logical_xor_out, try_logical_xor_out => LogicalXor;
    bitwise_and, try_bitwise_and, bitwise_and_, try_bitwise_and_, bitwise_and_out, try_bitwise_and_out => BitwiseAnd;
    bitwise_or, try_bitwise_or, bitwise_or_, try_bitwise_or_, bitwise_or_out, try_bitwise_or_out => BitwiseOr;
    bitwise_xor, try_bitwise_xor, bitwise_xor_, try_bitwise_xor_, bitwise_xor_out, try_bitwise_xor_out => BitwiseXor;
    bitwise_left_shift, try_bitwise_left_shift, bitwise_left_shift_, try_bitwise_left_shift_, bitwise_left_shift_out, try_bitwise_left_shift_out => BitwiseLeftShift;
    bitwise_right_shift, try_bitwise_right_shift, bitwise_right_shift_, try_bitwise_right_shift_, bitwise_right_shift_out, try_bitwise_right_shift_out => BitwiseRightShift;
    copysign, try_copysign, copysign_, try_copysign_, copysign_out, try_copysign_out => Copysign;
    hypot, try_hypot, hypot_, try_hypot_, hypot_out, try_hypot_out => Hypot;
}

macro_rules! unary_methods {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {
        impl DynTensor {$(
            #[doc = concat!("`", stringify!($name), "(self)`.")]
            pub fn $try_name(&self) -> Result<DynTensor> {
                unary(UnaryOp::$op, self, None)
            }
            #[doc = concat!("`", stringify!($name), "(self)`; panics on error.")]
            #[track_caller]
            pub fn $name(&self) -> DynTensor {
                ok(self.$try_name())
            }
            #[doc = concat!("In-place `", stringify!($name), "`.")]
            pub fn $try_inplace(&mut self) -> Result<()> {
                let this = self.share();
                unary(UnaryOp::$op, &this, Some(&this)).map(|_| ())
            }
            #[doc = concat!("In-place `", stringify!($name), "`; panics on error.")]
            #[track_caller]
            pub fn $inplace(&mut self) {
                ok(self.$try_inplace())
            }
            #[doc = concat!("`", stringify!($name), "` into `out`.")]
            pub fn $try_out(&self, out: &DynTensor) -> Result<()> {
                unary(UnaryOp::$op, self, Some(out)).map(|_| ())
            }
            #[doc = concat!("`", stringify!($name), "` into `out`; panics on error.")]
            #[track_caller]
            pub fn $out(&self, out: &DynTensor) {
                ok(self.$try_out(out))
            }
        )*}
    };
}

unary_methods! {
    neg, try_neg, neg_, try_neg_, neg_out, try_neg_out => Neg;
    abs, try_abs, abs_, try_abs_, abs_out, try_abs_out => Abs;
    sign, try_sign, sign_, try_sign_, sign_out, try_sign_out => Sign;
    relu, try_relu, relu_, try_relu_, relu_out, try_relu_out => Relu;
    exp, try_exp, exp_, try_exp_, exp_out, try_exp_out => Exp;
    expm1, try_expm1, expm1_, try_expm1_, expm1_out, try_expm1_out => Expm1;
    log, try_log, log_, try_log_, log_out, try_log_out => Log;
    log1p, try_log1p, log1p_, try_log1p_, log1p_out, try_log1p_out => Log1p;
    log2, try_log2, log2_, try_log2_, log2_out, try_log2_out => Log2;
    log10, try_log10, log10_, try_log10_, log10_out, try_log10_out => Log10;
    sqrt, try_sqrt, sqrt_, try_sqrt_, sqrt_out, try_sqrt_out => Sqrt;
    rsqrt, try_rsqrt, rsqrt_, try_rsqrt_, rsqrt_out, try_rsqrt_out => Rsqrt;
    reciprocal, try_reciprocal, reciprocal_, try_reciprocal_, reciprocal_out, try_reciprocal_out => Reciprocal;
    square, try_square, square_, try_square_, square_out, try_square_out => Square;
    sin, try_sin, sin_, try_sin_, sin_out, try_sin_out => Sin;
    cos, try_cos, cos_, try_cos_, cos_out, try_cos_out => Cos;
    tan, try_tan, tan_, try_tan_, tan_out, try_tan_out => Tan;
    asin, try_asin, asin_, try_asin_, asin_out, try_asin_out => Asin;
    acos, try_acos, acos_, try_acos_, acos_out, try_acos_out => Acos;
    atan, try_atan, atan_, try_atan_, atan_out, try_atan_out => Atan;
    sinh, try_sinh, sinh_, try_sinh_, sinh_out, try_sinh_out => Sinh;
    cosh, try_cosh, cosh_, try_cosh_, cosh_out, try_cosh_out => Cosh;
    tanh, try_tanh, tanh_, try_tanh_, tanh_out, try_tanh_out => Tanh;
    sigmoid, try_sigmoid, sigmoid_, try_sigmoid_, sigmoid_out, try_sigmoid_out => Sigmoid;
    silu, try_silu, silu_, try_silu_, silu_out, try_silu_out => Silu;
    softplus, try_softplus, softplus_, try_softplus_, softplus_out, try_softplus_out => Softplus;
    erf, try_erf, erf_, try_erf_, erf_out, try_erf_out => Erf;
    floor, try_floor, floor_, try_floor_, floor_out, try_floor_out => Floor;
    ceil, try_ceil, ceil_, try_ceil_, ceil_out, try_ceil_out => Ceil;
    round, try_round, round_, try_round_, round_out, try_round_out => Round;
    trunc, try_trunc, trunc_, try_trunc_, trunc_out, try_trunc_out => Trunc;
    frac, try_frac, frac_, try_frac_, frac_out, try_frac_out => Frac;
    logical_not, try_logical_not, logical_not_, try_logical_not_, logical_not_out, try_logical_not_out => LogicalNot;
    bitwise_not, try_bitwise_not, bitwise_not_, try_bitwise_not_, bitwise_not_out, try_bitwise_not_out => BitwiseNot;
    isnan, try_isnan, isnan_, try_isnan_, isnan_out, try_isnan_out => IsNan;
    isinf, try_isinf, isinf_, try_isinf_, isinf_out, try_isinf_out => IsInf;
    isfinite, try_isfinite, isfinite_, try_isfinite_, isfinite_out, try_isfinite_out => IsFinite;
}

impl DynTensor {
    /// `clamp(self, min, max)`; bounds are scalars or tensors, at least one given.
    pub fn try_clamp<'a, 'b>(
        &self,
        min: Option<Operand<'a>>,
        max: Option<Operand<'b>>,
    ) -> Result<DynTensor> {
        special::clamp(self, min, max, None)
    }
    #[track_caller]
    pub fn clamp<'a, 'b>(&self, min: Option<Operand<'a>>, max: Option<Operand<'b>>) -> DynTensor {
        ok(self.try_clamp(min, max))
    }
    pub fn try_clamp_<'a, 'b>(
        &mut self,
        min: Option<Operand<'a>>,
        max: Option<Operand<'b>>,
    ) -> Result<()> {
        let this = self.share();
        special::clamp(&this, min, max, Some(&this)).map(|_| ())
    }
    pub fn try_clamp_out<'a, 'b>(
        &self,
        min: Option<Operand<'a>>,
        max: Option<Operand<'b>>,
        out: &DynTensor,
    ) -> Result<()> {
        special::clamp(self, min, max, Some(out)).map(|_| ())
    }
    pub fn try_leaky_relu(&self, negative_slope: f64) -> Result<DynTensor> {
        special::leaky_relu(self, negative_slope, None)
    }
    #[track_caller]
    pub fn leaky_relu(&self, negative_slope: f64) -> DynTensor {
        ok(self.try_leaky_relu(negative_slope))
    }
    pub fn try_leaky_relu_(&mut self, negative_slope: f64) -> Result<()> {
        let this = self.share();
        special::leaky_relu(&this, negative_slope, Some(&this)).map(|_| ())
    }
    pub fn try_hardtanh(
        &self,
        min: impl Into<Scalar>,
        max: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        special::hardtanh(self, min.into(), max.into(), None)
    }
    #[track_caller]
    pub fn hardtanh(&self, min: impl Into<Scalar>, max: impl Into<Scalar>) -> DynTensor {
        ok(self.try_hardtanh(min, max))
    }
    pub fn try_hardtanh_(&mut self, min: impl Into<Scalar>, max: impl Into<Scalar>) -> Result<()> {
        let this = self.share();
        special::hardtanh(&this, min.into(), max.into(), Some(&this)).map(|_| ())
    }
    /// `gelu(self)` exact (erf), or with `GeluApproximate::Tanh`.
    pub fn try_gelu(&self, approximate: GeluApproximate) -> Result<DynTensor> {
        special::gelu(self, approximate, None)
    }
    #[track_caller]
    pub fn gelu(&self, approximate: GeluApproximate) -> DynTensor {
        ok(self.try_gelu(approximate))
    }
    pub fn try_gelu_(&mut self, approximate: GeluApproximate) -> Result<()> {
        let this = self.share();
        special::gelu(&this, approximate, Some(&this)).map(|_| ())
    }
    /// `where(self as cond, a, b)`.
    pub fn try_where<'a, 'b>(
        &self,
        a: impl Into<Operand<'a>>,
        b: impl Into<Operand<'b>>,
    ) -> Result<DynTensor> {
        special::where_(self, a.into(), b.into(), None)
    }
    /// `masked_fill(self, mask, value)` out of place.
    pub fn try_masked_fill<'a>(
        &self,
        mask: &DynTensor,
        value: impl Into<Operand<'a>>,
    ) -> Result<DynTensor> {
        special::masked_fill(self, mask, value.into(), None)
    }
    #[track_caller]
    pub fn masked_fill<'a>(&self, mask: &DynTensor, value: impl Into<Operand<'a>>) -> DynTensor {
        ok(self.try_masked_fill(mask, value))
    }
    /// In-place masked_fill: `mask` must broadcast to self's shape.
    pub fn try_masked_fill_<'a>(
        &mut self,
        mask: &DynTensor,
        value: impl Into<Operand<'a>>,
    ) -> Result<()> {
        let this = self.share();
        special::masked_fill(&this, mask, value.into(), Some(&this)).map(|_| ())
    }
    pub fn try_lerp<'a>(
        &self,
        end: &DynTensor,
        weight: impl Into<Operand<'a>>,
    ) -> Result<DynTensor> {
        special::lerp(self, end, weight.into(), None)
    }
    #[track_caller]
    pub fn lerp<'a>(&self, end: &DynTensor, weight: impl Into<Operand<'a>>) -> DynTensor {
        ok(self.try_lerp(end, weight))
    }
    pub fn try_lerp_<'a>(&mut self, end: &DynTensor, weight: impl Into<Operand<'a>>) -> Result<()> {
        let this = self.share();
        special::lerp(&this, end, weight.into(), Some(&this)).map(|_| ())
    }
    pub fn try_addcmul(
        &self,
        t1: &DynTensor,
        t2: &DynTensor,
        value: impl Into<Scalar>,
    ) -> Result<DynTensor> {
        special::addcmul(self, t1, t2, value.into(), None)
    }
    #[track_caller]
    pub fn addcmul(&self, t1: &DynTensor, t2: &DynTensor, value: impl Into<Scalar>) -> DynTensor {
        ok(self.try_addcmul(t1, t2, value))
    }
    pub fn try_addcmul_(
        &mut self,
        t1: &DynTensor,
        t2: &DynTensor,
        value: impl Into<Scalar>,
    ) -> Result<()> {
        let this = self.share();
        special::addcmul(&this, t1, t2, value.into(), Some(&this)).map(|_| ())
    }
    /// Converts to `dtype` through the iterator (a shared handle when the dtype matches).
    pub fn try_to(&self, dtype: DType) -> Result<DynTensor> {
        special::to_dtype(self, dtype)
    }
    /// Copies `src` into self (broadcasting `src`, converting its dtype).
    pub fn try_copy_(&mut self, src: &DynTensor) -> Result<()> {
        special::copy_into(self, src)
    }
    #[track_caller]
    pub fn copy_(&mut self, src: &DynTensor) {
        ok(self.try_copy_(src))
    }
}

/// `where(cond, a, b)` with tensors or scalars for `a` and `b`.
pub fn where_<'a, 'b>(
    cond: &DynTensor,
    a: impl Into<Operand<'a>>,
    b: impl Into<Operand<'b>>,
) -> Result<DynTensor> {
    special::where_(cond, a.into(), b.into(), None)
}

impl std::ops::Neg for &DynTensor {
    type Output = DynTensor;
    #[track_caller]
    fn neg(self) -> DynTensor {
        self.neg()
    }
}

impl std::ops::Not for &DynTensor {
    type Output = DynTensor;
    /// `!t`: logical not for bool, bitwise not for integers (PyTorch's `~`).
    #[track_caller]
    fn not(self) -> DynTensor {
        if self.dtype() == DType::Bool {
            self.logical_not()
        } else {
            self.bitwise_not()
        }
    }
}

macro_rules! dyn_operators {
    ($($Trait:ident, $method:ident, $Assign:ident, $assign:ident => $call:ident, $call_:ident;)*) => {$(
        impl<'a, R: Into<Operand<'a>>> std::ops::$Trait<R> for &DynTensor {
            type Output = DynTensor;
            #[track_caller]
            fn $method(self, rhs: R) -> DynTensor {
                DynTensor::$call(self, rhs)
            }
        }
        impl<'a, R: Into<Operand<'a>>> std::ops::$Assign<R> for DynTensor {
            #[track_caller]
            fn $assign(&mut self, rhs: R) {
                self.$call_(rhs)
            }
        }
    )*};
}

dyn_operators! {
    Add, add, AddAssign, add_assign => add, add_;
    Sub, sub, SubAssign, sub_assign => sub, sub_;
    Mul, mul, MulAssign, mul_assign => mul, mul_;
    Div, div, DivAssign, div_assign => div, div_;
    Rem, rem, RemAssign, rem_assign => remainder, remainder_;
    BitAnd, bitand, BitAndAssign, bitand_assign => bitwise_and, bitwise_and_;
    BitOr, bitor, BitOrAssign, bitor_assign => bitwise_or, bitwise_or_;
    BitXor, bitxor, BitXorAssign, bitxor_assign => bitwise_xor, bitwise_xor_;
    Shl, shl, ShlAssign, shl_assign => bitwise_left_shift, bitwise_left_shift_;
    Shr, shr, ShrAssign, shr_assign => bitwise_right_shift, bitwise_right_shift_;
}
