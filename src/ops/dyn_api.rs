//! The `DynTensor` op methods. For every op `x`: `try_x` returns `Result`, `x` panics with the
//! error's message, `x_` / `try_x_` work in place (the result dtype must cast safely into
//! self's dtype, PyTorch's rule), `x_out` / `try_x_out` write into a given tensor (any view).
//! Binary ops take a tensor or a scalar on the right (`d.add(2.5)`); free functions in this
//! module take a scalar on the left too (`dyn_api::sub(1, &d)`).

use super::{Operand, binary::run_binary, fresh, special, unary::run_unary_op};
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
                fresh(stringify!($name), run_binary(BinaryOp::$op, Operand::Tensor(self), other.into(), None))
            }
            #[doc = concat!("`", stringify!($name), "(self, other)`; panics on error (see `", stringify!($try_name), "`).")]
            #[track_caller]
            pub fn $name<'a>(&self, other: impl Into<Operand<'a>>) -> DynTensor {
                ok(self.$try_name(other))
            }
            #[doc = concat!("In-place `", stringify!($name), "`: the result must cast safely to self's dtype.")]
            pub fn $try_inplace<'a>(&mut self, other: impl Into<Operand<'a>>) -> Result<()> {
                let this: &DynTensor = self;
                run_binary(BinaryOp::$op, Operand::Tensor(this), other.into(), Some(this)).map(|_| ())
            }
            #[doc = concat!("In-place `", stringify!($name), "`; panics on error.")]
            #[track_caller]
            pub fn $inplace<'a>(&mut self, other: impl Into<Operand<'a>>) {
                ok(self.$try_inplace(other))
            }
            #[doc = concat!("`", stringify!($name), "` written into `out` (any view of the result's shape).")]
            pub fn $try_out<'a>(&self, other: impl Into<Operand<'a>>, out: &DynTensor) -> Result<()> {
                run_binary(BinaryOp::$op, Operand::Tensor(self), other.into(), Some(out)).map(|_| ())
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
                fresh(stringify!($name), run_binary(BinaryOp::$op, a.into(), b.into(), None))
            }
        )*
    };
}

/// The methods of every binary op of the table.
macro_rules! dyn_binary_methods {
    (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        paste::paste! {
            binary_methods! {$(
                $name, [<try_ $name>], [<$name _>], [<try_ $name _>], [<$name _out>], [<try_ $name _out>] => $Op;
            )*}
        }
    };
}
crate::binary_op_table!(dyn_binary_methods);

macro_rules! unary_methods {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {
        impl DynTensor {$(
            #[doc = concat!("`", stringify!($name), "(self)`.")]
            pub fn $try_name(&self) -> Result<DynTensor> {
                fresh(stringify!($name), run_unary_op(UnaryOp::$op, self, None))
            }
            #[doc = concat!("`", stringify!($name), "(self)`; panics on error.")]
            #[track_caller]
            pub fn $name(&self) -> DynTensor {
                ok(self.$try_name())
            }
            #[doc = concat!("In-place `", stringify!($name), "`.")]
            pub fn $try_inplace(&mut self) -> Result<()> {
                let this: &DynTensor = self;
                run_unary_op(UnaryOp::$op, this, Some(this)).map(|_| ())
            }
            #[doc = concat!("In-place `", stringify!($name), "`; panics on error.")]
            #[track_caller]
            pub fn $inplace(&mut self) {
                ok(self.$try_inplace())
            }
            #[doc = concat!("`", stringify!($name), "` into `out`.")]
            pub fn $try_out(&self, out: &DynTensor) -> Result<()> {
                run_unary_op(UnaryOp::$op, self, Some(out)).map(|_| ())
            }
            #[doc = concat!("`", stringify!($name), "` into `out`; panics on error.")]
            #[track_caller]
            pub fn $out(&self, out: &DynTensor) {
                ok(self.$try_out(out))
            }
        )*}
    };
}

/// The methods of every unary op of the table (but those with `OwnMethods`).
macro_rules! dyn_unary_methods {
    (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        paste::paste! {$(
            dyn_unary_methods!(@line [$($flag)*] $name, [<try_ $name>], [<$name _>], [<try_ $name _>], [<$name _out>], [<try_ $name _out>] => $Op);
        )*}
    };
    (@line [OwnMethods $($flag:ident)*] $($t:tt)*) => {};
    (@line [$($flag:ident)*] $($t:tt)*) => { unary_methods! { $($t)*; } };
}
crate::unary_op_table!(dyn_unary_methods);

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
