//! Data types, their categories, and PyTorch's type-promotion lattice as compile-time facts.
//!
//! `no_std`: this module is compiled to PTX by `gpu/kernels` as well.

use core::fmt;

/// The element types weft stores. The order is PyTorch's `ScalarType` order for these ten.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DType {
    Bool = 0,
    U8 = 1,
    I8 = 2,
    I16 = 3,
    I32 = 4,
    I64 = 5,
    F16 = 6,
    BF16 = 7,
    F32 = 8,
    F64 = 9,
}

/// The promotion category of a dtype: bool < integer < float.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Bool = 0,
    Integer = 1,
    Float = 2,
}

impl DType {
    /// All ten dtypes, in `DType as u8` order.
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// PyTorch's default floating dtype (what a float Python scalar promotes an integer tensor to).
    pub const DEFAULT_FLOAT: DType = DType::F32;

    /// Index into [`DType::ALL`] and the promotion table.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    pub const fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Category::Integer,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Float,
        }
    }

    pub const fn is_float(self) -> bool {
        matches!(self.category(), Category::Float)
    }

    pub const fn is_integer(self) -> bool {
        matches!(self.category(), Category::Integer)
    }

    pub const fn is_bool(self) -> bool {
        matches!(self, DType::Bool)
    }

    /// True for the integer dtypes that carry a sign (i8..i64).
    pub const fn is_signed_integer(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// f16 and bf16: stored narrow, computed in f32 ("opmath") and rounded once.
    pub const fn is_reduced_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// The name PyTorch and the golden files use (`float32`, `bfloat16`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// Parses a PyTorch dtype name (also accepts the Rust spellings `f32`, `i64`, ...).
    pub fn from_name(name: &str) -> Option<DType> {
        let d = match name {
            "bool" => DType::Bool,
            "uint8" | "u8" => DType::U8,
            "int8" | "i8" => DType::I8,
            "int16" | "i16" => DType::I16,
            "int32" | "i32" => DType::I32,
            "int64" | "i64" => DType::I64,
            "float16" | "f16" | "half" => DType::F16,
            "bfloat16" | "bf16" => DType::BF16,
            "float32" | "f32" | "float" => DType::F32,
            "float64" | "f64" | "double" => DType::F64,
            _ => return None,
        };
        Some(d)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
