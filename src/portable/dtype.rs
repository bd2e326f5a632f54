//! Data types, their categories, and PyTorch's type-promotion lattice as compile-time facts.
//!
//! `no_std`: this module is compiled to PTX by `gpu/kernels` as well.

use core::fmt;

/// THE dtype list: one row per dtype, in `DType as u8` order (PyTorch's `ScalarType` order for
/// its ten classic dtypes, the unsigned u16/u32/u64 after the signed integers, as the golden
/// files list them), one section per [`Category`]. Every dtype -> Rust type table is generated from it: `DType`,
/// `DType::{ALL, size, category}`, `types` and `tokens` (`dtype_type!`, `__gpu_user_type!`),
/// `with_dtype!`, `dispatch!`, the `DynTensor` variants and `DynElement` impls, the groups of
/// `dispatch_dtypes!` and `DTypeSet` (`__dtype_list!`), the kernel list's type lists and
/// `kernel_suffix`. Per-dtype data and code stay by hand: `NAMES` below, the `Element` impls,
/// the promotion table.
///
/// Row: `Variant token: Type, size;`: the `DType` variant; the type token (the Rust type's name:
/// the kernel list's type token and kernel-name suffix); the Rust element type; its size in
/// bytes. The categories are ordered (bool < integer < float), so every named group is a run of
/// sections and keeps this order (the GPU kernel names depend on it).
///
/// `dtype_table!(m)` expands to `m! { () Bool [ROW*] Integer [ROW*] Float [ROW*] }`;
/// `dtype_table!(@with (args) m)` to `m! { (args) ... }`.
#[macro_export]
#[doc(hidden)]
macro_rules! dtype_table {
    (@with ($($args:tt)*) $($m:tt)+) => { $($m)+! { ($($args)*)
        Bool [
            Bool bool: bool, 1;
        ]
        Integer [
            U8 u8: u8, 1;
            I8 i8: i8, 1;
            I16 i16: i16, 2;
            I32 i32: i32, 4;
            I64 i64: i64, 8;
            U16 u16: u16, 2;
            U32 u32: u32, 4;
            U64 u64: u64, 8;
        ]
        Float [
            F16 f16: $crate::half::f16, 2;
            BF16 bf16: $crate::half::bf16, 2;
            F32 f32: f32, 4;
            F64 f64: f64, 8;
        ]
    }};
    ($($m:tt)+) => { $crate::dtype_table! { @with () $($m)+ } };
}

/// The named dtype groups. `__dtype_list! { group; m; args... }` expands to
/// `m! { args... [ROW*] }`: the rows of `dtype_table!` in `group`, in table order. Groups:
/// `all`, `numeric` (no bool), `float`, `integral` (integers and bool), `int` (integers).
/// `__dtype_list! { group {SECTIONS}; m; args... }` is the same with the table's sections
/// already expanded (the kernel list fetches them once: one macro level per op line).
#[macro_export]
#[doc(hidden)]
macro_rules! __dtype_list {
    ($g:ident; $($m:ident)::+; $($args:tt)*) => {
        $crate::dtype_table! { @with ($g; $($m)::+; $($args)*) $crate::__dtype_list }
    };
    (($g:ident; $($m:ident)::+; $($args:tt)*) $($sections:tt)*) => {
        $crate::__dtype_list! { $g {$($sections)*}; $($m)::+; $($args)* }
    };
    (all {Bool [$($b:tt)*] Integer [$($i:tt)*] Float [$($f:tt)*]}; $($m:ident)::+; $($a:tt)*) => {
        $($m)::+! { $($a)* [$($b)* $($i)* $($f)*] }
    };
    (numeric {Bool $b:tt Integer [$($i:tt)*] Float [$($f:tt)*]}; $($m:ident)::+; $($a:tt)*) => {
        $($m)::+! { $($a)* [$($i)* $($f)*] }
    };
    (float {Bool $b:tt Integer $i:tt Float [$($f:tt)*]}; $($m:ident)::+; $($a:tt)*) => {
        $($m)::+! { $($a)* [$($f)*] }
    };
    (integral {Bool [$($b:tt)*] Integer [$($i:tt)*] Float $f:tt}; $($m:ident)::+; $($a:tt)*) => {
        $($m)::+! { $($a)* [$($b)* $($i)*] }
    };
    (int {Bool $b:tt Integer [$($i:tt)*] Float $f:tt}; $($m:ident)::+; $($a:tt)*) => {
        $($m)::+! { $($a)* [$($i)*] }
    };
}

/// `dtype_types!(group => m!(args...))` expands to `m! { args... [T, ...] }`: the Rust
/// element types of a named dtype group (see [`__dtype_list!`]), in table order. Every
/// per-type `impl` list (functor impls, conversions, byte readers) takes its types from here,
/// so a new dtype row reaches all of them.
#[macro_export]
#[doc(hidden)]
macro_rules! dtype_types {
    ($g:ident => $($m:ident)::+ ! ($($args:tt)*)) => {
        $crate::__dtype_list! { $g; $crate::__dtype_types; ($($m)::+) ($($args)*) }
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! __dtype_types {
    (($($m:ident)::+) ($($args:tt)*) [$($V:ident $tok:ident: $T:ty, $s:literal;)*]) => {
        $($m)::+! { $($args)* [$($T),*] }
    };
}

/// The `DType` enum, its per-dtype facts and the type aliases, from the dtype list.
macro_rules! dtype_items {
    (() $($Cat:ident [$($V:ident $t:ident: $T:ty, $size:literal;)*])*) => {
        /// The element types weft stores, in the dtype list's order. Generated from the dtype
        /// list (`dtype_table!`).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum DType {
            $($($V,)*)*
        }

        impl DType {
            /// All dtypes, in `DType as u8` order.
            pub const ALL: [DType; DType::COUNT] = [$($(DType::$V,)*)*];
            /// How many dtypes there are.
            pub const COUNT: usize = [$($(stringify!($V),)*)*].len();

            /// Size of one element in bytes.
            pub const fn size(self) -> usize {
                match self {
                    $($(DType::$V => $size,)*)*
                }
            }

            pub const fn category(self) -> Category {
                match self {
                    $($(DType::$V)|* => Category::$Cat,)*
                }
            }
        }

        /// The Rust element type of each dtype by `DType` variant name (`types::F16`):
        /// what `dtype_type!` names. Generated from the dtype list (`dtype_table!`).
        #[doc(hidden)]
        pub mod types {
            $($(pub type $V = $T;)*)*
        }

        /// The Rust element type of each kernel-list type token (`tokens::f16`): what
        /// `__gpu_user_type!` names. Generated from the dtype list (`dtype_table!`).
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        pub mod tokens {
            $($(pub type $t = super::types::$V;)*)*
        }
    };
}
dtype_table!(dtype_items);

/// The promotion category of a dtype: bool < integer < float.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Bool = 0,
    Integer = 1,
    Float = 2,
}

impl DType {
    /// PyTorch's default floating dtype (what a float Python scalar promotes an integer tensor to).
    pub const DEFAULT_FLOAT: DType = DType::F32;

    /// Index into [`DType::ALL`] and the promotion table.
    pub const fn index(self) -> usize {
        self as usize
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
        self.is_integer() && self.int_range().0 < 0
    }

    /// True for the unsigned integer dtypes (u8, u16, u32, u64).
    pub const fn is_unsigned_integer(self) -> bool {
        self.is_integer() && self.int_range().0 == 0
    }

    /// The value range of an integer dtype as `(min, max)` in `i128` (which holds every
    /// integer dtype's range); bool is `(0, 1)`, floats `(0, 0)`. From the size and the
    /// sign, which the names below fix: `u*` unsigned, `i*` signed.
    pub const fn int_range(self) -> (i128, i128) {
        match self.category() {
            Category::Bool => (0, 1),
            Category::Float => (0, 0),
            Category::Integer => {
                let bits = 8 * self.size() as u32;
                if NAMES[self.index()].rust.as_bytes()[0] == b'u' {
                    (0, (1i128 << bits) - 1)
                } else {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                }
            }
        }
    }

    /// Whether PyTorch defines promotion for this dtype: its ten classic dtypes do; u16, u32
    /// and u64 (which PyTorch stores but does not promote) follow NumPy's rules instead.
    pub const fn has_torch_promotion(self) -> bool {
        !matches!(self, DType::U16 | DType::U32 | DType::U64)
    }

    /// f16 and bf16: stored narrow, computed in f32 ("opmath") and rounded once.
    pub const fn is_reduced_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// The name PyTorch and the golden files use (`float32`, `bfloat16`, ...); `Display` prints it.
    pub const fn name(self) -> &'static str {
        NAMES[self.index()].torch
    }

    /// Every name of this dtype (see [`DTypeNames`]).
    pub const fn names(self) -> &'static DTypeNames {
        &NAMES[self.index()]
    }

    /// The NumPy array-protocol type string as `.npy` headers write it (`<f4`, `|b1`);
    /// `None` for bf16, which NumPy does not have.
    pub const fn numpy_descr(self) -> Option<&'static str> {
        NAMES[self.index()].numpy
    }

    /// The safetensors name (`F32`, `BF16`, `BOOL`, ...).
    pub const fn safetensors_name(self) -> &'static str {
        NAMES[self.index()].safetensors
    }

    /// Parses any name of a dtype (see [`DType::parse_name`]); `None` where that is an error.
    pub fn from_name(name: &str) -> Option<DType> {
        Self::parse_name(name).ok()
    }

    /// Parses any name of a dtype: PyTorch's (`float32`, `torch.float32`, `float`, `half`,
    /// `long`, ...), the Rust spellings (`f32`, `i64`, ...), NumPy type strings (`<f4`, `=f4`,
    /// `|b1`, with the byte-order character; big-endian `>f4` is refused) and safetensors names (`F32`, `BOOL`, ...).
    /// Case-sensitive. All of them come from one table, [`DTypeNames`].
    pub fn parse_name(name: &str) -> Result<DType, DTypeNameError> {
        let plain = name.strip_prefix("torch.").unwrap_or(name);
        for d in DType::ALL {
            let n = d.names();
            if n.torch == plain || n.torch_aliases.contains(&plain) || n.rust == name {
                return Ok(d);
            }
            if n.safetensors == name {
                return Ok(d);
            }
        }
        // NumPy: a byte-order character and the kind + size code. The character is required:
        // a bare `i8` is Rust's i8 above, while NumPy's `i8` is int64.
        let (order, code) = match name.as_bytes().first() {
            Some(&c @ (b'<' | b'>' | b'=' | b'|' | b'!')) => (c, &name[1..]),
            _ => return Err(DTypeNameError::Unknown),
        };
        for d in DType::ALL {
            if let Some(descr) = d.numpy_descr()
                && &descr[1..] == code
            {
                return match order {
                    b'>' | b'!' if d.size() > 1 => Err(DTypeNameError::BigEndian),
                    _ => Ok(d),
                };
            }
        }
        Err(DTypeNameError::Unknown)
    }
}

/// Why a dtype name did not parse.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DTypeNameError {
    /// No dtype has this name.
    Unknown,
    /// A big-endian NumPy type string (`>f4`): weft stores little-endian only.
    BigEndian,
}

/// The names of one dtype in every naming scheme weft reads. One row per dtype in one table
/// (`NAMES`): parsing, printing and the file formats all read it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DTypeNames {
    /// PyTorch's name (`torch.float32` without `torch.`); also what `Display` prints.
    pub torch: &'static str,
    /// PyTorch's other names for it (`float`, `half`, `long`, ...), also accepted after `torch.`.
    pub torch_aliases: &'static [&'static str],
    /// The Rust element type's name.
    pub rust: &'static str,
    /// NumPy's type string in native little-endian form (`<f4`; `|` for one-byte types);
    /// `None`: NumPy has no such dtype.
    pub numpy: Option<&'static str>,
    /// The safetensors name.
    pub safetensors: &'static str,
}

const fn names(
    torch: &'static str,
    torch_aliases: &'static [&'static str],
    rust: &'static str,
    numpy: Option<&'static str>,
    safetensors: &'static str,
) -> DTypeNames {
    DTypeNames {
        torch,
        torch_aliases,
        rust,
        numpy,
        safetensors,
    }
}

/// The one table of dtype names, in `DType as u8` order.
const NAMES: [DTypeNames; DType::COUNT] = [
    names("bool", &[], "bool", Some("|b1"), "BOOL"),
    names("uint8", &[], "u8", Some("|u1"), "U8"),
    names("int8", &[], "i8", Some("|i1"), "I8"),
    names("int16", &["short"], "i16", Some("<i2"), "I16"),
    names("int32", &["int"], "i32", Some("<i4"), "I32"),
    names("int64", &["long"], "i64", Some("<i8"), "I64"),
    names("uint16", &[], "u16", Some("<u2"), "U16"),
    names("uint32", &[], "u32", Some("<u4"), "U32"),
    names("uint64", &[], "u64", Some("<u8"), "U64"),
    names("float16", &["half"], "f16", Some("<f2"), "F16"),
    names("bfloat16", &[], "bf16", None, "BF16"),
    names("float32", &["float"], "f32", Some("<f4"), "F32"),
    names("float64", &["double"], "f64", Some("<f8"), "F64"),
];

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "std")]
impl core::str::FromStr for DType {
    type Err = crate::error::Error;

    /// [`DType::parse_name`], with an [`Error::UnknownDType`](crate::Error::UnknownDType)
    /// that names the string.
    fn from_str(s: &str) -> Result<DType, Self::Err> {
        DType::parse_name(s).map_err(|e| crate::error::Error::UnknownDType {
            name: s.into(),
            big_endian: e == DTypeNameError::BigEndian,
        })
    }
}
