//! Soundness of layout arithmetic: programs that used to wrap (release: a layout reaching
//! terabytes "fit" a 16-byte buffer) or panic on overflow (debug) now return `Err`, and
//! printing huge or very deep tensors is fast and needs no deep stack. Every fallible call is
//! wrapped in `catch_unwind` to prove it does not panic (run this in debug too: overflow checks
//! on).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};
use weft::layout::algebra::*;
use weft::layout::{GroupedLayout, print_grouped_layout, print_layout};
use weft::storage::Storage;
use weft::tensor::{compute_stride, identity_tensor};
use weft::{Error, Layout, Tensor};

/// Runs `f`, failing the test if it panics.
fn no_panic<R>(what: &str, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| panic!("{what} panicked"))
}

/// Runs `f` without panicking and expects an error.
fn is_err<R: std::fmt::Debug>(what: &str, f: impl FnOnce() -> Result<R, Error>) {
    let r = no_panic(what, f);
    assert!(r.is_err(), "{what}: expected Err, got {r:?}");
}

fn storage4() -> Storage<f32> {
    Tensor::<f32>::zeros(&[4]).storage().clone()
}

/// A layout whose element count overflows (built unchecked: `contiguous` does not validate).
fn huge() -> Layout {
    Layout::contiguous(&[1 << 40, 1 << 40])
}

#[test]
fn from_parts_rejects_layouts_whose_reach_overflows() {
    is_err("Layout::new 2^80 elements", || {
        Layout::new(vec![1 << 40, 1 << 40], vec![1 << 40, 1], 0)
    });
    is_err("from_parts 2^80 elements", || {
        Tensor::from_parts(storage4(), huge())
    });
    // Extent overflow with a small count: (3 - 1) * 2^62 = 2^63.
    is_err("Layout::new reach 2^63", || {
        Layout::new(vec![3], vec![1 << 62], 0)
    });
    is_err("from_parts offset past isize", || {
        Tensor::from_parts(storage4(), Layout::contiguous(&[1]).with_offset(usize::MAX))
    });
    // The negative and positive spans cancel in wrapping arithmetic; checked, they overflow.
    is_err("Layout::new cancelling spans", || {
        Layout::new(
            vec![2, 2, 2],
            vec![isize::MAX, isize::MAX, isize::MIN + 1],
            0,
        )
    });
    // Valid in elements (2^62 at stride 0) but 2^64 bytes of f32.
    let bytes = Layout::new(vec![1 << 62], vec![0], 0).unwrap();
    is_err("from_parts byte size", || {
        Tensor::from_parts(storage4(), bytes.clone())
    });
    assert!(matches!(
        Tensor::from_parts(storage4(), bytes),
        Err(Error::NumelOverflow { .. })
    ));
    let t = Tensor::<f32>::zeros(&[4]);
    is_err("with_layout 2^80 elements", || t.with_layout(huge()));
    is_err("with_layout past the storage", || {
        t.with_layout(Layout::new(vec![2], vec![4], 0).unwrap())
    });
    assert!(
        t.with_layout(Layout::new(vec![2], vec![3], 0).unwrap())
            .is_ok()
    );
    // extent never overflows; checked_extent says why.
    assert_eq!(
        no_panic("extent", || huge().extent()),
        Some((isize::MIN, isize::MAX))
    );
    is_err("checked_extent", || huge().checked_extent());
    is_err("check_fits", || huge().check_fits(4, 4));
}

#[test]
fn empty_strided_checks_its_storage_size() {
    is_err("empty_strided [2]:[isize::MAX]", || {
        Tensor::<f32>::try_empty_strided(&[2], &[isize::MAX])
    });
    is_err("empty_strided [2^62]:[4]", || {
        Tensor::<f32>::try_empty_strided(&[1 << 62], &[4])
    });
    is_err("empty_strided bytes", || {
        Tensor::<f64>::try_empty_strided(&[2], &[1 << 60])
    });
    let t = Tensor::<f32>::try_empty_strided(&[0], &[isize::MAX]).unwrap();
    assert_eq!(t.numel(), 0);
    let t = Tensor::<f32>::try_empty_strided(&[2, 3], &[1, 2]).unwrap();
    assert_eq!(t.storage().len(), 6);
}

#[test]
fn slice_with_extreme_steps_and_bounds() {
    let t = Tensor::<i64>::arange(0, 10, 1).unwrap();
    // Python: x[::-sys.maxsize - 1] is [x[-1]] (CPython clamps the step); no negation overflow.
    let r = no_panic("slice step isize::MIN", || {
        t.try_slice(0, None, None, isize::MIN)
    })
    .unwrap();
    assert_eq!(r.to_vec(), vec![9]);
    let r = no_panic("slice step isize::MAX", || {
        t.try_slice(0, None, None, isize::MAX)
    })
    .unwrap();
    assert_eq!(r.to_vec(), vec![0]);
    let r = no_panic("slice huge bounds", || {
        t.try_slice(0, Some(isize::MIN), Some(isize::MAX), 3)
    })
    .unwrap();
    assert_eq!(r.to_vec(), vec![0, 3, 6, 9]);
    let r = no_panic("slice huge bounds, negative step", || {
        t.try_slice(0, Some(isize::MAX), Some(isize::MIN), isize::MIN + 1)
    })
    .unwrap();
    assert_eq!(r.to_vec(), vec![9]);
    // An empty tensor with a huge stride: the new offset overflows, an error (not a wrap).
    let e = Tensor::from_parts(
        storage4(),
        Layout::new(vec![3, 0], vec![isize::MAX, 1], 0).unwrap(),
    )
    .unwrap();
    is_err("slice offset overflow", || e.try_slice(0, Some(2), None, 1));
}

#[test]
fn narrow_select_unsqueeze_do_not_overflow() {
    let t = Tensor::<f32>::zeros(&[4]);
    is_err("narrow len usize::MAX", || t.try_narrow(0, 1, usize::MAX));
    is_err("narrow start isize::MIN", || t.try_narrow(0, isize::MIN, 1));
    is_err("select isize::MIN", || t.try_select(0, isize::MIN));
    let e = Tensor::from_parts(
        storage4(),
        Layout::new(vec![3, 0], vec![isize::MAX, 1], 0).unwrap(),
    )
    .unwrap();
    is_err("narrow offset overflow", || e.try_narrow(0, 2, 1));
    is_err("select offset overflow", || e.try_select(0, 2));
    // unsqueeze's stride 3 * isize::MAX overflows; the new size-1 dim takes stride 1 instead.
    let u = no_panic("unsqueeze", || e.try_unsqueeze(0)).unwrap();
    assert_eq!(u.shape(), &[1, 3, 0]);
    assert!(u.layout().check_fits(4, 4).is_ok());
}

#[test]
fn expand_reshape_flatten_check_their_sizes() {
    let one = Tensor::<f32>::zeros(&[1]);
    is_err("expand 2^126", || one.try_expand([isize::MAX, isize::MAX]));
    is_err("expand bytes", || one.try_expand([isize::MAX]));
    is_err("broadcast_to", || one.try_broadcast_to(&[usize::MAX]));
    let t = Tensor::<f32>::zeros(&[4]);
    is_err("reshape 2^126", || {
        t.try_reshape([isize::MAX, isize::MAX, 0])
    });
    is_err("view inferred", || t.try_view([isize::MAX, isize::MAX, -1]));
    let z = Tensor::<f32>::zeros(&[0, 1 << 40, 1 << 40]);
    is_err("flatten 2^80", || z.try_flatten(1, 2));
    assert_eq!(
        no_panic("compute_stride", || compute_stride(
            &[usize::MAX, 2],
            &[1, 1],
            &[2, usize::MAX]
        )),
        None
    );
    assert!(
        no_panic("compute_stride 0", || {
            compute_stride(&[4], &[1], &[4, 1, 1])
        })
        .is_some()
    );
    // A permuted huge-stride empty tensor stays valid and printable.
    let e = Tensor::from_parts(
        storage4(),
        Layout::new(vec![3, 0], vec![isize::MAX, 1], 0).unwrap(),
    )
    .unwrap();
    assert_eq!(e.permute(&[1, 0]).to_string(), "tensor([], size=(0, 3))");
}

#[test]
fn algebra_returns_errors_instead_of_overflowing() {
    let big = Layout::new(vec![1 << 31, 1 << 31], vec![1, 1 << 31], 0).unwrap();
    let col = Layout::col_major(&[1 << 40, 1 << 40]); // unchecked, overflows
    let small = Layout::new(vec![4], vec![1], 0).unwrap();
    let wide = Layout::new(vec![2], vec![isize::MAX], 0).unwrap();
    is_err("composition invalid a", || composition(&huge(), &small));
    is_err("composition invalid b", || composition(&small, &col));
    is_err("composition stride overflow", || {
        composition(&Layout::new(vec![4], vec![2], 0).unwrap(), &wide)
    });
    is_err("compose", || small.compose(&huge()));
    is_err("logical_divide invalid", || logical_divide(&huge(), &small));
    is_err("logical_divide invalid tiler", || {
        logical_divide(&small, &col)
    });
    is_err("logical_product size * cosize", || {
        logical_product(&big, &small)
    });
    is_err("logical_product invalid", || {
        logical_product(&small, &huge())
    });
    is_err("left_inverse", || left_inverse(&col));
    is_err("complement invalid", || complement(&huge(), 4));
    is_err("complement huge cotarget", || {
        complement(&small, usize::MAX)
    });
    is_err("zipped_divide", || {
        zipped_divide(&GroupedLayout::flat(huge()), std::slice::from_ref(&small))
    });
    is_err("composition_by_mode", || {
        composition_by_mode(&GroupedLayout::flat(huge()), std::slice::from_ref(&small))
    });
    is_err("GroupedLayout::new groups overflow", || {
        GroupedLayout::new(small.clone(), vec![usize::MAX, 2])
    });
    is_err("GroupedLayout::new invalid layout", || {
        GroupedLayout::new(huge(), vec![2])
    });
    is_err("tile", || tile(&huge(), &[1, 1]));
    is_err("concat offsets", || {
        concat(&small.with_offset(usize::MAX), &small.with_offset(1))
    });
    is_err("concat reach", || concat(&wide, &wide));
    // The infallible helpers never panic, even on unchecked layouts.
    no_panic("coalesce", || coalesce(&huge()));
    no_panic("coalesce col", || coalesce(&col));
    no_panic("coalesce_row_major", || coalesce_row_major(&huge()));
    no_panic("right_inverse", || right_inverse(&huge()));
    no_panic("right_inverse col", || right_inverse(&col));
    no_panic("cosize", || huge().cosize());
    no_panic("size", || huge().size());
    no_panic("eval_colex_ext", || col.eval_colex_ext(usize::MAX));
    // Valid big layouts still work.
    assert_eq!(coalesce(&big).to_string(), "4611686018427387904:1");
    assert_eq!(right_inverse(&big).to_string(), "4611686018427387904:1");
}

#[test]
fn right_inverse_of_an_empty_layout_stays_in_its_domain() {
    let empty = Layout::new(vec![0], vec![1], 0).unwrap();
    let r = right_inverse(&empty);
    assert_eq!(r.size(), 0, "{r}");
    assert_eq!(r.to_string(), "0:0");
    let r = right_inverse(&Layout::new(vec![3, 0], vec![1, 3], 5).unwrap());
    assert_eq!(r.size(), 0);
}

#[test]
fn identity_tensor_coordinates_do_not_overflow() {
    let id = identity_tensor(&[4]);
    let t = id.tile(&[usize::MAX]).unwrap();
    is_err("identity tile twice", || t.tile(&[2, 2]));
    let t2 = id.tile(&[1 << 40]).unwrap();
    is_err("identity at", || {
        t2.tile(&[1, 1 << 40])
            .and_then(|t| t.at(&[None, None, None, Some((1 << 24) - 1)]))
    });
}

#[test]
fn printing_100k_dims_needs_no_deep_stack() {
    let s = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let t = Tensor::<f32>::zeros(&[1; 100_000]);
            let s = t.to_string();
            let _ = format!("{}", t.layout());
            s
        })
        .unwrap()
        .join()
        .expect("printing a 100,000-dim tensor");
    assert!(s.starts_with("tensor([[[["));
    assert_eq!(s.matches('[').count(), 100_000);
    assert!(s.contains("[0.]"));
    assert!(s.ends_with("]])"));
}

#[test]
fn printing_a_huge_broadcast_view_reads_only_the_shown_elements() {
    let start = Instant::now();
    let t = Tensor::<f32>::zeros(&[1]).expand([0xFFFF_FFFE_usize]);
    assert_eq!(t.to_string(), "tensor([0., 0., 0.,  ..., 0., 0., 0.])");
    let m = Tensor::<i64>::arange(0, 4, 1)
        .unwrap()
        .reshape([2, 2])
        .expand([1 << 20, 1 << 20, 2, 2]);
    let s = m.to_string();
    assert!(s.len() < 2000, "{s}");
    assert!(s.contains("..."));
    // print_layout summarises too, calling index_of only for the cells shown.
    let big = Layout::new(vec![1 << 30, 1 << 30, 3], vec![1, 1 << 30, 1 << 60], 0).unwrap();
    let p = print_layout(&big);
    assert!(p.len() < 10_000 && p.contains("..."), "{p}");
    assert!(p.contains("|          0 |") || p.contains("| 0 |") || p.contains(" 0 |"));
    let g = GroupedLayout::new(big, vec![1, 2]).unwrap();
    assert!(print_grouped_layout(&g).contains("..."));
    // An invalid layout prints its notation and the reason, never a wrapped table.
    let h = no_panic("print_layout invalid", || print_layout(&huge()));
    assert!(h.contains("overflow"), "{h}");
    assert!(start.elapsed() < Duration::from_secs(20));
}
