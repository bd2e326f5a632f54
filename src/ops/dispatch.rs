//! Runtime dtype -> static type dispatch over a *set* of dtypes, so an op is written once and
//! instantiated only for the dtypes its functor supports.

/// The Rust element type of a `DType` variant name: `dtype::types`, generated from the dtype
/// list (`dtype_table!`, src/portable/dtype.rs).
#[macro_export]
#[doc(hidden)]
macro_rules! dtype_type {
    ($v:ident) => {
        $crate::dtype::types::$v
    };
}

/// `dispatch_dtypes!(dtype, [F32, F64, ...], T => body, _ => fallback)`: runs `body` with the type
/// alias `T` bound to the element type of `dtype` when it is in the list, `fallback` otherwise.
/// Named groups: `all`, `numeric` (no bool), `float`, `integral` (ints and bool), `int`; their
/// lists come from the dtype list (`__dtype_list!`, src/portable/dtype.rs).
#[macro_export]
macro_rules! dispatch_dtypes {
    (@rows ($d:expr, $T:ident => $body:expr, _ => $fb:expr) [$($V:ident $t:ident: $Ty:ty, $s:literal;)*]) => {
        $crate::dispatch_dtypes!($d, [$($V),*], $T => $body, _ => $fb)
    };
    ($d:expr, $group:ident, $T:ident => $body:expr, _ => $fb:expr) => {
        $crate::__dtype_list! { $group; $crate::dispatch_dtypes; @rows ($d, $T => $body, _ => $fb) }
    };
    ($d:expr, [$($v:ident),* $(,)?], $T:ident => $body:expr, _ => $fb:expr) => {
        match $d {
            $(
                $crate::DType::$v => {
                    type $T = $crate::dtype_type!($v);
                    $body
                }
            )*
            #[allow(unreachable_patterns)]
            _ => $fb,
        }
    };
}

/// `if_half_own_rounding!([flags of a table line] { yes } else { no })`: `yes` for a line
/// flagged `HalfOwnRounding` (its functor has a `functors::HalfOwnForm`), `no` otherwise; lets
/// the table's dispatchers name `InHalf<Op, _>` for those lines only.
#[macro_export]
#[doc(hidden)]
macro_rules! if_half_own_rounding {
    ([HalfOwnRounding $($rest:ident)*] {$($yes:tt)*} else $no:tt) => { $($yes)* };
    ([$other:ident $($rest:ident)*] $yes:tt else $no:tt) => {
        $crate::if_half_own_rounding!([$($rest)*] $yes else $no)
    };
    ([] $yes:tt else {$($no:tt)*}) => { $($no)* };
}
