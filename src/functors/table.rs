//! The op tables: names, and which dtypes each op accepts and produces. This is the runtime
//! mirror of which `Functor` impls exist (checked against PyTorch's `promotion.json` by
//! `tests/functors.rs`).
//!
//! Binary ops run in a *computation dtype*: the promoted dtype of the operands
//! ([`crate::promotion`]), moved to f32 for ops that only exist for floats (true `div`,
//! `atan2`, `copysign`, `hypot`), then checked against the op's supported set.

use crate::dtype::{Category, DType};
use crate::promotion::promote_types;

macro_rules! op_enum {
    ($(#[$m:meta])* $enum:ident { $($v:ident = $name:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $($v),* }
        impl $enum {
            /// Every op, in declaration order.
            pub const ALL: &'static [$enum] = &[$($enum::$v),*];
            /// PyTorch's name (`floor_divide`, `bitwise_left_shift`, ...).
            pub const fn name(self) -> &'static str {
                match self { $($enum::$v => $name),* }
            }
            /// The op named `name` (PyTorch's spelling).
            pub fn from_name(name: &str) -> Option<$enum> {
                match name { $($name => Some($enum::$v),)* _ => None }
            }
        }
    };
}

op_enum!(
    /// The elementwise binary ops.
    BinaryOp {
        Add = "add", Sub = "sub", Mul = "mul", Div = "div", FloorDivide = "floor_divide",
        Remainder = "remainder", Fmod = "fmod", Pow = "pow", Atan2 = "atan2",
        Maximum = "maximum", Minimum = "minimum",
        Eq = "eq", Ne = "ne", Lt = "lt", Le = "le", Gt = "gt", Ge = "ge",
        LogicalAnd = "logical_and", LogicalOr = "logical_or", LogicalXor = "logical_xor",
        BitwiseAnd = "bitwise_and", BitwiseOr = "bitwise_or", BitwiseXor = "bitwise_xor",
        BitwiseLeftShift = "bitwise_left_shift", BitwiseRightShift = "bitwise_right_shift",
        Copysign = "copysign", Hypot = "hypot",
    }
);

op_enum!(
    /// The elementwise unary ops (without arguments).
    UnaryOp {
        Neg = "neg", Abs = "abs", Sign = "sign", Relu = "relu", Exp = "exp", Expm1 = "expm1",
        Log = "log", Log1p = "log1p", Log2 = "log2", Log10 = "log10", Sqrt = "sqrt",
        Rsqrt = "rsqrt", Reciprocal = "reciprocal", Square = "square", Sin = "sin", Cos = "cos",
        Tan = "tan", Asin = "asin", Acos = "acos", Atan = "atan", Sinh = "sinh", Cosh = "cosh",
        Tanh = "tanh", Sigmoid = "sigmoid", Silu = "silu", Softplus = "softplus", Gelu = "gelu",
        Erf = "erf", Floor = "floor", Ceil = "ceil", Round = "round", Trunc = "trunc",
        Frac = "frac", LogicalNot = "logical_not", BitwiseNot = "bitwise_not", IsNan = "isnan",
        IsInf = "isinf", IsFinite = "isfinite",
    }
);

impl BinaryOp {
    /// Whether the result is bool whatever the inputs (comparisons, logical ops).
    pub const fn is_predicate(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::LogicalAnd
                | BinaryOp::LogicalOr
                | BinaryOp::LogicalXor
        )
    }

    /// Ops that only exist for floats: integer and bool operands are computed in f32.
    pub const fn promotes_int_to_float(self) -> bool {
        matches!(
            self,
            BinaryOp::Div | BinaryOp::Atan2 | BinaryOp::Copysign | BinaryOp::Hypot
        )
    }

    /// Whether an operand of dtype `d` is refused whatever the other is: PyTorch refuses
    /// `sub` with any bool operand (`bool - int8` too).
    pub const fn rejects_operand(self, d: DType) -> bool {
        matches!(self, BinaryOp::Sub) && d.is_bool()
    }

    /// The dtype the functor runs in, given the promoted dtype of the operands; `None` when
    /// the op is not implemented for it.
    pub const fn compute_dtype(self, common: DType) -> Option<DType> {
        let c = if self.promotes_int_to_float() && !common.is_float() {
            DType::DEFAULT_FLOAT
        } else {
            common
        };
        let ok = match self {
            BinaryOp::Sub
            | BinaryOp::FloorDivide
            | BinaryOp::Remainder
            | BinaryOp::Fmod
            | BinaryOp::Pow => !c.is_bool(),
            BinaryOp::BitwiseAnd | BinaryOp::BitwiseOr | BinaryOp::BitwiseXor => !c.is_float(),
            BinaryOp::BitwiseLeftShift | BinaryOp::BitwiseRightShift => c.is_integer(),
            _ => true,
        };
        if ok { Some(c) } else { None }
    }

    /// The result dtype for a computation dtype.
    pub const fn out_dtype(self, compute: DType) -> DType {
        if self.is_predicate() {
            DType::Bool
        } else {
            compute
        }
    }
}

/// The result dtype of `op` on two dimensioned tensors of dtypes `a` and `b`, or `None` when
/// PyTorch refuses the combination (promotion.json's `binary_op_support`).
pub const fn binary_out_dtype(op: BinaryOp, a: DType, b: DType) -> Option<DType> {
    if op.rejects_operand(a) || op.rejects_operand(b) {
        return None;
    }
    match op.compute_dtype(promote_types(a, b)) {
        Some(c) => Some(op.out_dtype(c)),
        None => None,
    }
}

impl UnaryOp {
    /// Whether the result is bool whatever the input.
    pub const fn is_predicate(self) -> bool {
        matches!(
            self,
            UnaryOp::LogicalNot | UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite
        )
    }

    /// Float math that computes integer and bool inputs in f32 (`exp(int) -> f32`).
    pub const fn promotes_int_to_float(self) -> bool {
        matches!(
            self,
            UnaryOp::Exp
                | UnaryOp::Expm1
                | UnaryOp::Log
                | UnaryOp::Log1p
                | UnaryOp::Log2
                | UnaryOp::Log10
                | UnaryOp::Sqrt
                | UnaryOp::Rsqrt
                | UnaryOp::Reciprocal
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tan
                | UnaryOp::Asin
                | UnaryOp::Acos
                | UnaryOp::Atan
                | UnaryOp::Sinh
                | UnaryOp::Cosh
                | UnaryOp::Tanh
                | UnaryOp::Sigmoid
                | UnaryOp::Erf
        )
    }

    /// The dtype the functor runs in for an input of dtype `input`; `None` if not implemented.
    pub const fn compute_dtype(self, input: DType) -> Option<DType> {
        if self.promotes_int_to_float() && !input.is_float() {
            return Some(DType::DEFAULT_FLOAT);
        }
        let ok = match self {
            // Float-only ops without integer promotion (PyTorch raises on integers).
            UnaryOp::Silu | UnaryOp::Softplus | UnaryOp::Gelu | UnaryOp::Frac => input.is_float(),
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Relu
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Trunc => !input.is_bool(),
            UnaryOp::BitwiseNot => !input.is_float(),
            // square is pow(x, 2): bool promotes with the int scalar 2 to int64.
            UnaryOp::Square if input.is_bool() => return Some(DType::I64),
            _ => true,
        };
        if ok { Some(input) } else { None }
    }

    /// The result dtype for a computation dtype.
    pub const fn out_dtype(self, compute: DType) -> DType {
        if self.is_predicate() {
            DType::Bool
        } else {
            compute
        }
    }
}

/// The result dtype of `op` on a tensor of dtype `d`, or `None` when PyTorch refuses it
/// (promotion.json's `unary_op_support`).
pub const fn unary_out_dtype(op: UnaryOp, d: DType) -> Option<DType> {
    match op.compute_dtype(d) {
        Some(c) => Some(op.out_dtype(c)),
        None => None,
    }
}

/// The dtypes `clamp`, `hardtanh`, `leaky_relu`, `lerp`, `addcmul` compute in: clamp and
/// hardtanh take integers and floats (not bool), leaky_relu and lerp floats only,
/// addcmul integers and floats.
pub const fn clamp_supports(compute: DType) -> bool {
    !compute.is_bool()
}

/// Whether the float-only parameterised functors (leaky_relu, lerp, gelu) accept `d`.
pub const fn float_only_supports(d: DType) -> bool {
    matches!(d.category(), Category::Float)
}
