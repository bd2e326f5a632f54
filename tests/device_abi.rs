//! The host/device ABI of kernel arguments, without a GPU:
//!
//! * every kernel of `gpu_kernel_list!` in the committed PTX (`gpu/kernels.ptx.gz`) declares
//!   exactly the parameters a launch pushes: `numel` (`_c`) or the `StridedLayout` (`_s`), the
//!   functor value with its host `size_of`/`align_of` (none for a zero-sized one), one pointer per
//!   operand; and every PTX entry is a listed kernel;
//! * every functor with fields that a kernel takes is laid out by `#[repr(C)]` rules, for every
//!   type it is instantiated with: field offsets, size and alignment computed from the field
//!   types (so host and nvptx64, which agree on the element types, agree on the struct);
//!   `Option<T>` (clamp bounds) is a tag byte (0 = None, 1 = Some) then the value at
//!   `align_of::<T>()`;
//! * the PTX parameter parser on the forms it accepts and refuses.

// `weft::gpu_kernel_list!` nests one macro call per op-table line.
#![recursion_limit = "512"]

use std::collections::HashMap;
use std::mem::offset_of;
use weft::device::KERNELS_PTX;
use weft::device::abi::{Param, check_params, launch_params, ptx_entry_params};
use weft::device::kernel_list::KERNEL_NAMES;
use weft::device::layout::MAX_DIMS;
#[allow(unused_imports)]
use weft::device::layout::{StridedLayout, WithScalar};
use weft::device::reduce::{ReduceDims, ReduceLaunch, ReduceParams, SoftmaxRowsLaunch};
use weft::device::reduce_plan::reduce_kernel_names;
use weft::functors::*;
#[allow(unused_imports)]
use weft::half::{bf16, f16};
use weft::reduce::reducers::SoftmaxApply;

/// One (op, type) of the list: the kernel-name stem, the functor type's name and its parameter,
/// and the number of pointers (output + inputs).
struct HostSig {
    stem: &'static str,
    functor: String,
    param: Param,
    pointers: usize,
}

impl HostSig {
    fn new<F>(stem: &'static str, functor: &str, arity: usize) -> Self {
        HostSig {
            stem,
            functor: functor.replace(' ', ""),
            param: Param::of::<F>(),
            pointers: arity + 1,
        }
    }
}

macro_rules! arity {
    (($a:ty)) => {
        1
    };
    (($a:ty, $b:ty)) => {
        2
    };
    (($a:ty, $b:ty, $c:ty)) => {
        3
    };
}

/// `gpu_kernel_list!` callback: the host signature of every (op, type), binding `T` as the
/// device crate does (`gpu/kernels/src/device.rs`), `WithScalar<F, B>` for `, scalar`.
macro_rules! host_sigs {
    (@push $v:ident;) => {};
    (@push $v:ident; $name:ident ($A:ty, $B:ty) => $F:path, scalar: [$($t:ident),*]; $($rest:tt)*) => {
        $({
            #[allow(dead_code)]
            type T = $t;
            $v.push(HostSig::new::<$F>(concat!(stringify!($name), "_", stringify!($t)), stringify!($F), 2));
            $v.push(HostSig::new::<WithScalar<$F, $B>>(
                concat!(stringify!($name), "_scalar_", stringify!($t)),
                stringify!(WithScalar<$F, $B>),
                1,
            ));
        })*
        host_sigs!(@push $v; $($rest)*);
    };
    (@push $v:ident; $name:ident $args:tt => $F:path: [$($t:ident),*]; $($rest:tt)*) => {
        $({
            #[allow(dead_code)]
            type T = $t;
            $v.push(HostSig::new::<$F>(
                concat!(stringify!($name), "_", stringify!($t)),
                stringify!($F),
                arity!($args),
            ));
        })*
        host_sigs!(@push $v; $($rest)*);
    };
    ($($entries:tt)*) => {{
        let mut v: Vec<HostSig> = Vec::new();
        host_sigs!(@push v; $($entries)*);
        v
    }};
}

fn committed_entries() -> HashMap<String, Vec<Param>> {
    let entries = ptx_entry_params(&KERNELS_PTX).expect("the committed PTX parses");
    let n = entries.len();
    let map: HashMap<String, Vec<Param>> = entries.into_iter().collect();
    assert_eq!(map.len(), n, "an entry is defined twice");
    map
}

#[test]
fn every_listed_kernel_declares_what_the_host_pushes() {
    let entries = committed_entries();
    let sigs = weft::gpu_kernel_list!(host_sigs);
    let mut checked = 0;
    let mut by_value: Vec<String> = Vec::new();
    for sig in &sigs {
        for variant in ["c", "s"] {
            let name = format!("{}_{variant}", sig.stem);
            let declared = entries
                .get(&name)
                .unwrap_or_else(|| panic!("{name} is listed but not in gpu/kernels.ptx.gz"));
            let pushed = launch_params(variant, sig.param, sig.pointers);
            if let Err(e) = check_params(&name, declared, &pushed) {
                panic!("{e} (functor {})", sig.functor);
            }
            checked += 1;
        }
        if sig.param.size != 0 {
            by_value.push(sig.functor.clone());
        }
    }
    assert_eq!(checked, KERNEL_NAMES.len());
    // The reduction kernels: the launch argument, then out0, out1, input, scratch (the fused
    // softmax rows: its argument, then out, x).
    let reductions = reduce_kernel_names();
    for name in &reductions {
        let declared = entries
            .get(name)
            .unwrap_or_else(|| panic!("{name} is listed but not in gpu/kernels.ptx.gz"));
        let pushed = if name.starts_with("reduce_softmax_rows_") {
            vec![
                Param::of::<SoftmaxRowsLaunch>(),
                Param::of::<u64>(),
                Param::of::<u64>(),
            ]
        } else {
            let mut v = vec![Param::of::<ReduceLaunch>()];
            v.extend([Param::of::<u64>(); 4]);
            v
        };
        check_params(name, declared, &pushed).unwrap();
    }
    assert_eq!(
        entries.len(),
        KERNEL_NAMES.len() + reductions.len(),
        "the PTX has entries the lists do not declare"
    );
    // Every functor passed by value has its field layout checked below.
    for f in &by_value {
        let base = f
            .trim_start_matches("$crate::functors::")
            .trim_start_matches("$crate::reduce::reducers::")
            .split('<')
            .next()
            .unwrap();
        assert!(
            LAYOUT_CHECKED.contains(&base),
            "{f}: a by-value kernel argument without a layout check in repr_c_layouts"
        );
    }
    eprintln!(
        "{checked} kernels: parameters equal the host's ({} with a by-value functor)",
        by_value.len() * 2
    );
}

/// The functor structs whose layouts `repr_c_layouts` checks (by the list's type name).
const LAYOUT_CHECKED: &[&str] = &[
    "Gelu",
    "LeakyRelu",
    "Clamp",
    "Hardtanh",
    "MulScalarOpmath",
    "DivScalarOpmath",
    "FloorDivideScalarOpmath",
    "PowScalar",
    "MaskedFill",
    "LerpScalar",
    "Addcmul",
    "WithScalar",
    "SoftmaxApply",
];

/// `#[repr(C)]` layout of fields `(size, align)` in order: (offsets, size, align).
fn repr_c(fields: &[(usize, usize)]) -> (Vec<usize>, usize, usize) {
    let (mut off, mut align, mut offsets) = (0usize, 1usize, Vec::new());
    for &(s, a) in fields {
        off = off.next_multiple_of(a);
        offsets.push(off);
        off += s;
        align = align.max(a);
    }
    (offsets, off.next_multiple_of(align), align)
}

/// Asserts `$S`'s field offsets, size and alignment are `repr(C)`'s for its field types.
macro_rules! check_repr_c {
    ($S:ty { $($field:ident: $FT:ty),+ $(,)? }) => {{
        let (offsets, size, align) =
            repr_c(&[$((size_of::<$FT>(), align_of::<$FT>())),+]);
        let actual = [$(offset_of!($S, $field)),+];
        let what = stringify!($S);
        assert_eq!(actual.as_slice(), offsets.as_slice(), "{what}: field offsets");
        assert_eq!(size_of::<$S>(), size, "{what}: size");
        assert_eq!(align_of::<$S>(), align, "{what}: align");
        1usize
    }};
}

/// `Option<T>` as rustc lays it out for every element type here, on the host and nvptx64 alike
/// (the same algorithm over the same element sizes and alignments): tag byte 0 (0 = None,
/// 1 = Some), the value at `align_of::<T>()`, size `2 * size_of::<T>()`.
fn check_option<T: Copy + PartialEq + std::fmt::Debug>(v: T) {
    let what = std::any::type_name::<T>();
    assert_eq!(size_of::<Option<T>>(), 2 * size_of::<T>(), "Option<{what}>");
    assert_eq!(align_of::<Option<T>>(), align_of::<T>(), "Option<{what}>");
    let bytes_at = |o: &Option<T>, at: usize, n: usize| -> Vec<u8> {
        // SAFETY: reads initialised bytes only: the tag (byte 0) and, for Some, the value.
        (at..at + n)
            .map(|i| unsafe { (o as *const Option<T> as *const u8).add(i).read() })
            .collect()
    };
    let some = Some(v);
    assert_eq!(bytes_at(&None::<T>, 0, 1), [0], "Option<{what}>: None tag");
    assert_eq!(bytes_at(&some, 0, 1), [1], "Option<{what}>: Some tag");
    // SAFETY: `v` is an element type without padding: all of its bytes are initialised.
    let value: Vec<u8> = (0..size_of::<T>())
        .map(|i| unsafe { (&v as *const T as *const u8).add(i).read() })
        .collect();
    assert_eq!(
        bytes_at(&some, align_of::<T>(), size_of::<T>()),
        value,
        "Option<{what}>: the value at align_of::<T>()"
    );
}

#[test]
fn repr_c_layouts() {
    let mut n = 0;
    n += check_repr_c!(Gelu {
        approximate: GeluApproximate
    });
    assert_eq!(size_of::<GeluApproximate>(), 1);
    assert_eq!(GeluApproximate::None as u8, 0);
    assert_eq!(GeluApproximate::Tanh as u8, 1);
    n += check_repr_c!(LeakyRelu { slope: f64 });
    n += check_repr_c!(MulScalarOpmath { s: f32 });
    n += check_repr_c!(DivScalarOpmath { s: f32 });
    n += check_repr_c!(FloorDivideScalarOpmath { s: f32 });
    n += check_repr_c!(LerpScalar { weight: f64 });
    n += check_repr_c!(Addcmul<f32> { value: f32 }); // the f16/bf16 instantiations
    macro_rules! per_type {
        ($($t:ty = $v:expr),*) => {$(
            n += check_repr_c!(Clamp<$t> { min: Option<$t>, max: Option<$t> });
            check_option::<$t>($v);
            n += check_repr_c!(Hardtanh<$t> { min: $t, max: $t });
            n += check_repr_c!(PowScalar<$t> { exp: $t });
            n += check_repr_c!(MaskedFill<$t> { value: $t });
            n += check_repr_c!(Addcmul<$t> { value: $t });
            // `, scalar` kernels: a zero-sized functor then the scalar (as the host pushes it).
            n += check_repr_c!(WithScalar<Add, $t> { f: Add, rhs: $t });
            assert_eq!(size_of::<WithScalar<Add, $t>>(), size_of::<$t>());
        )*};
    }
    per_type!(
        u8 = 0xa5,
        i8 = -3,
        i16 = -300,
        i32 = -70000,
        i64 = -(1 << 40),
        f16 = f16::from_f32(1.5),
        bf16 = bf16::from_f32(-2.5),
        f32 = 0.1,
        f64 = -0.2
    );
    n += check_repr_c!(MaskedFill<bool> { value: bool });
    n += check_repr_c!(WithScalar<Mul, bool> { f: Mul, rhs: bool });
    n += check_repr_c!(SoftmaxApply { log: bool });
    n += check_repr_c!(ReduceDims {
        ndim: usize,
        shape: [usize; MAX_DIMS],
        input: [isize; MAX_DIMS],
        output: [isize; MAX_DIMS],
    });
    n += check_repr_c!(ReduceParams {
        flag: u32,
        kind: u32,
        mean: u32,
        count: usize,
        correction: f64,
        maxima: u64,
        nmaxima: usize,
    });
    n += check_repr_c!(ReduceLaunch {
        mode: u32,
        reduced: ReduceDims,
        kept: ReduceDims,
        width: usize,
        ostep: isize,
        nchunks: usize,
        params: ReduceParams,
    });
    n += check_repr_c!(SoftmaxRowsLaunch {
        rows: u64,
        n: u64,
        log: u32
    });
    n += check_repr_c!(StridedLayout {
        l32: weft::device::layout::ElementLayout<u32>,
        l64: weft::device::layout::ElementLayout<u64>,
        wide: u32,
    });
    eprintln!("{n} repr(C) layouts checked");
}

#[test]
fn parser_accepts_rustc_forms() {
    let ptx = "\
.version 7.7
// .entry commented_out(
.visible .entry k_c(
\t.param .u64 k_c_param_0,
\t.param .align 4 .b8 k_c_param_1[16],
\t.param .f64 k_c_param_2,
\t.param .u8 k_c_param_3,
\t.param .u16 k_c_param_4,
\t.param .u64 .ptr .align 1 k_c_param_5,
\t.param .u64 .ptr .global .align 16 k_c_param_6
)                                       // @k_c
{
\tret;
}
.entry none()
{
}
.weak .entry split
(
\t.param .b32 a, .param .align 8 .b8 b[720]
)
{
}
.func (.param .b32 func_retval0) helper(
\t.param .b64 x
)
;
";
    let e = ptx_entry_params(ptx).unwrap();
    let p = |size, align| Param { size, align };
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(e[0].0, "k_c");
    assert_eq!(
        e[0].1,
        [
            p(8, 8),
            p(16, 4),
            p(8, 8),
            p(1, 1),
            p(2, 2),
            p(8, 8),
            p(8, 8)
        ]
    );
    assert_eq!((e[1].0.as_str(), e[1].1.len()), ("none", 0));
    assert_eq!(e[2].0, "split");
    assert_eq!(e[2].1, [p(4, 4), p(720, 8)]);
}

#[test]
fn parser_refuses_what_it_cannot_size() {
    for bad in [
        ".entry a(\n.param .pred p\n)\n",
        ".entry a(\n.param .u64 .ptr .align 1 p[2]\n)\n",
        ".entry a(\n.param .align 4 .b8 p[x]\n)\n",
        ".entry a(\n.param .u32\n)\n",
        ".entry a(\n.param .u32 p q\n)\n",
        ".entry a(\n.param .u64 p\n",
        ".entry a(\n.reg .u64 p\n)\n",
    ] {
        assert!(ptx_entry_params(bad).is_err(), "accepted: {bad:?}");
    }
}

#[test]
fn check_params_names_both_lists() {
    let pushed = launch_params("s", Param::of::<f64>(), 3);
    assert_eq!(pushed.len(), 5);
    assert_eq!(pushed[0], Param::of::<StridedLayout>());
    assert!(check_params("k", &pushed, &pushed).is_ok());
    let mut declared = pushed.clone();
    declared[1] = Param { size: 4, align: 4 };
    let e = check_params("k", &declared, &pushed).unwrap_err();
    assert!(e.contains("4B/align 4") && e.contains("8B/align 8"), "{e}");
    // A zero-sized functor has no parameter; one pointer fewer is a mismatch too.
    assert_eq!(launch_params("c", Param::of::<Add>(), 3).len(), 4);
    assert!(check_params("k", &pushed[..4], &pushed).is_err());
}
