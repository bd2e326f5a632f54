//! Runtime dtype -> static type dispatch over a *set* of dtypes, so an op is written once and
//! instantiated only for the dtypes its functor supports.

/// The Rust element type of a `DType` variant name.
#[macro_export]
#[doc(hidden)]
macro_rules! dtype_type {
    (Bool) => {
        bool
    };
    (U8) => {
        u8
    };
    (I8) => {
        i8
    };
    (I16) => {
        i16
    };
    (I32) => {
        i32
    };
    (I64) => {
        i64
    };
    (F16) => {
        $crate::half::f16
    };
    (BF16) => {
        $crate::half::bf16
    };
    (F32) => {
        f32
    };
    (F64) => {
        f64
    };
}

/// `dispatch_dtypes!(dtype, [F32, F64, ...], T => body, _ => fallback)`: runs `body` with the type
/// alias `T` bound to the element type of `dtype` when it is in the list, `fallback` otherwise.
/// Named groups: `all`, `numeric` (no bool), `float`, `integral` (ints and bool), `int`.
#[macro_export]
macro_rules! dispatch_dtypes {
    ($d:expr, all, $T:ident => $body:expr, _ => $fb:expr) => {
        $crate::dispatch_dtypes!($d, [Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64], $T => $body, _ => $fb)
    };
    ($d:expr, numeric, $T:ident => $body:expr, _ => $fb:expr) => {
        $crate::dispatch_dtypes!($d, [U8, I8, I16, I32, I64, F16, BF16, F32, F64], $T => $body, _ => $fb)
    };
    ($d:expr, float, $T:ident => $body:expr, _ => $fb:expr) => {
        $crate::dispatch_dtypes!($d, [F16, BF16, F32, F64], $T => $body, _ => $fb)
    };
    ($d:expr, integral, $T:ident => $body:expr, _ => $fb:expr) => {
        $crate::dispatch_dtypes!($d, [Bool, U8, I8, I16, I32, I64], $T => $body, _ => $fb)
    };
    ($d:expr, int, $T:ident => $body:expr, _ => $fb:expr) => {
        $crate::dispatch_dtypes!($d, [U8, I8, I16, I32, I64], $T => $body, _ => $fb)
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
