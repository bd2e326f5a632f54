//! ndarray interop (feature `ndarray`): owned arrays adopted without a copy (any strides and
//! offset), copies from views, `to_ndarray`, and borrowed `ndarray_view`s of every weft layout
//! under the storage's shared borrow.
#![cfg(feature = "ndarray")]

use ndarray::{Array, ArrayD, Axis, Dimension, IxDyn, ShapeBuilder, s};
use weft::half::{bf16, f16};
use weft::layout::Layout;
use weft::storage::Storage;
use weft::{DType, DynElement, DynTensor, Element, Error, Scalar, Tensor};

/// `n` distinct-ish values of `T` (through `Element`'s conversion from i64).
fn values<T: Element>(n: usize) -> Vec<T> {
    (0..n as i64)
        .map(|i| T::from_value(weft::Value::Int(i * 7 % 23 - 11)))
        .collect()
}

/// The tensor adopted `buf` (no copy) and reads as the array did, with its exact strides.
fn check_adopted<T: DynElement, D: ndarray::Dimension>(a: Array<T, D>, buf: *const T, what: &str) {
    let shape = a.shape().to_vec();
    let strides = a.strides().to_vec();
    let logical: Vec<T> = a.iter().copied().collect();
    let t = Tensor::from(a);
    assert_eq!(t.storage().as_ptr(), buf, "{what}: copied");
    assert_eq!(t.shape(), &shape[..], "{what}");
    if !logical.is_empty() {
        assert_eq!(t.strides(), &strides[..], "{what}");
    }
    assert_eq!(t.to_vec(), logical, "{what}");
    for (i, v) in logical.iter().enumerate() {
        let mut coord = vec![0; shape.len()];
        let mut r = i;
        for d in (0..shape.len()).rev() {
            coord[d] = r % shape[d];
            r /= shape[d];
        }
        assert_eq!(t.get(&coord).unwrap(), *v, "{what} at {coord:?}");
    }
}

/// Owned arrays of every layout ndarray makes, each from a `Vec` whose buffer we know.
fn zero_copy_all_layouts<T: DynElement>() {
    let dt = T::DTYPE;
    // Standard (C order).
    let v = values::<T>(12);
    let p = v.as_ptr();
    check_adopted(
        Array::from_shape_vec((3, 4), v).unwrap(),
        p,
        &format!("{dt} standard"),
    );
    // Fortran order, and a standard array with its axes reversed.
    let v = values::<T>(24);
    let p = v.as_ptr();
    check_adopted(
        Array::from_shape_vec((2, 3, 4).f(), v).unwrap(),
        p,
        &format!("{dt} fortran"),
    );
    let v = values::<T>(12);
    let p = v.as_ptr();
    let a = Array::from_shape_vec((3, 4), v).unwrap().reversed_axes();
    assert_eq!(a.strides(), &[1, 4]);
    check_adopted(a, p, &format!("{dt} reversed_axes"));
    // Negative strides: inverted axes (the offset points at the far end of the buffer).
    for axes in [&[0usize][..], &[1], &[0, 1]] {
        let v = values::<T>(12);
        let p = v.as_ptr();
        let mut a = Array::from_shape_vec((3, 4), v).unwrap();
        for &ax in axes {
            a.invert_axis(Axis(ax));
        }
        assert!(a.strides().iter().any(|&s| s < 0));
        check_adopted(a, p, &format!("{dt} invert_axis {axes:?}"));
    }
    // Sliced owned arrays: offsets, steps, negative steps, a collapsed axis.
    let v = values::<T>(60);
    let p = v.as_ptr();
    let mut a = Array::from_shape_vec((3, 4, 5), v).unwrap();
    a.slice_collapse(s![1.., ..;2, 1..4]);
    assert_eq!(a.shape(), &[2, 2, 3]);
    check_adopted(a, p, &format!("{dt} slice_collapse"));
    let v = values::<T>(60);
    let p = v.as_ptr();
    let mut a = Array::from_shape_vec((3, 4, 5), v).unwrap();
    a.slice_collapse(s![..;-2, 2, 1..;-3]);
    check_adopted(a, p, &format!("{dt} slice_collapse negative"));
    // Dynamic dimension, 0-d, empty, one element.
    let v = values::<T>(6);
    let p = v.as_ptr();
    check_adopted(
        ArrayD::from_shape_vec(IxDyn(&[1, 2, 3]), v).unwrap(),
        p,
        &format!("{dt} IxDyn"),
    );
    let v = values::<T>(1);
    let p = v.as_ptr();
    check_adopted(
        ArrayD::from_shape_vec(IxDyn(&[]), v).unwrap(),
        p,
        &format!("{dt} 0-d"),
    );
    let v: Vec<T> = Vec::with_capacity(8);
    let p = v.as_ptr();
    check_adopted(
        Array::from_shape_vec((0, 3), v).unwrap(),
        p,
        &format!("{dt} empty"),
    );
    let v = values::<T>(12);
    let p = v.as_ptr();
    let mut a = Array::from_shape_vec((3, 4), v).unwrap();
    a.slice_collapse(s![1..1, ..]);
    check_adopted(a, p, &format!("{dt} sliced empty"));
    // DynTensor adopts too.
    let v = values::<T>(12);
    let p = v.as_ptr();
    let mut a = Array::from_shape_vec((3, 4), v).unwrap();
    a.invert_axis(Axis(1));
    let logical: Vec<T> = a.iter().copied().collect();
    let d = DynTensor::from(a);
    assert_eq!(d.dtype(), dt);
    assert_eq!(d.storage_ptr(), p.cast::<u8>());
    assert_eq!(d.as_typed::<T>().unwrap().to_vec(), logical);
}

#[test]
fn from_array_is_zero_copy_for_every_dtype_and_layout() {
    zero_copy_all_layouts::<bool>();
    zero_copy_all_layouts::<u8>();
    zero_copy_all_layouts::<i8>();
    zero_copy_all_layouts::<i16>();
    zero_copy_all_layouts::<i32>();
    zero_copy_all_layouts::<i64>();
    zero_copy_all_layouts::<f16>();
    zero_copy_all_layouts::<bf16>();
    zero_copy_all_layouts::<f32>();
    zero_copy_all_layouts::<f64>();
}

#[test]
fn adopted_buffer_is_shared_and_writable() {
    let v: Vec<f32> = (0..6).map(|x| x as f32).collect();
    let p = v.as_ptr();
    let mut a = Array::from_shape_vec((2, 3), v).unwrap();
    a.invert_axis(Axis(0));
    let mut t = Tensor::try_from_ndarray(a).unwrap();
    assert_eq!(t.to_vec(), [3.0, 4.0, 5.0, 0.0, 1.0, 2.0]);
    let view = t.share();
    t.try_add_(10.0).unwrap();
    assert_eq!(view.storage().as_ptr(), p);
    assert_eq!(view.to_vec(), [13.0, 14.0, 15.0, 10.0, 11.0, 12.0]);
    // Back to ndarray and again: the values survive.
    let back = view.to_ndarray().unwrap();
    assert_eq!(Tensor::from(back), view);
    drop(t);
    drop(view); // the Vec's buffer is freed through Vec (Miri/ASan would catch a mismatch)
}

#[test]
fn from_views_copy() {
    let a = Array::from_shape_vec((3, 4), (0..12i32).collect()).unwrap();
    let row = a.row(1);
    let cases: Vec<(&str, ndarray::ArrayViewD<'_, i32>)> = vec![
        ("view", a.view().into_dyn()),
        ("transposed", a.t().into_dyn()),
        ("reversed", a.slice(s![..;-1, ..]).into_dyn()),
        ("stepped", a.slice(s![1.., ..;-3]).into_dyn()),
        ("broadcast", row.broadcast((2, 3, 4)).unwrap().into_dyn()),
        ("0-d", a.slice(s![1, 2]).into_dyn()),
        ("empty", a.slice(s![2..2, ..]).into_dyn()),
    ];
    for (what, v) in cases {
        let t = Tensor::from_ndarray_view(&v).unwrap();
        assert!(t.is_contiguous(), "{what}");
        assert_eq!(t.shape(), v.shape(), "{what}");
        assert_eq!(t.to_vec(), v.iter().copied().collect::<Vec<_>>(), "{what}");
        assert_ne!(t.storage().as_ptr(), a.as_ptr(), "{what}");
        assert_eq!(Tensor::from(v.view()), t, "{what}");
    }
    // &Array, ArcArray, CowArray.
    assert_eq!(
        Tensor::from_ndarray_view(&a).unwrap().to_vec(),
        (0..12).collect::<Vec<_>>()
    );
    let arc = a.to_shared();
    assert_eq!(Tensor::from_ndarray_view(&arc).unwrap().shape(), &[3, 4]);
    let cow = ndarray::CowArray::from(a.t());
    assert_eq!(
        Tensor::from_ndarray_view(&cow).unwrap(),
        Tensor::from(a.clone()).t()
    );
}

/// weft layouts of every class, with the values they hold in row-major order.
fn weft_layouts() -> Vec<(&'static str, Tensor<f64>)> {
    let base = Tensor::<f64>::arange(0.0, 60.0, 1.0)
        .unwrap()
        .reshape([3, 4, 5]);
    let m = base.select(0, 1); // [4, 5], offset 20
    vec![
        ("contiguous", base.share()),
        ("transposed", m.t()),
        ("permuted", base.permute(&[2, 0, 1])),
        ("stepped", base.slice(2, Some(1), None, 2)),
        ("reversed", m.slice(0, None, None, -1)),
        (
            "reversed both",
            m.slice(0, None, None, -1).slice(1, None, None, -2),
        ),
        ("reversed transposed", m.slice(1, None, None, -1).t()),
        ("expanded", m.select(0, 2).unsqueeze(0).expand([3, 5])),
        (
            "expanded reversed",
            m.select(1, 3)
                .slice(0, None, None, -1)
                .unsqueeze(1)
                .expand([4, 2]),
        ),
        ("offset", m.narrow(1, 2, 3)),
        ("0-d", m.select(0, 3).select(0, 4)),
        ("one element", m.narrow(0, 3, 1).narrow(1, 4, 1)),
        ("empty", m.slice(0, Some(2), Some(2), 1)),
        ("empty 3-d", base.slice(1, Some(4), None, 1)),
    ]
}

#[test]
fn to_ndarray_every_layout() {
    for (what, t) in weft_layouts() {
        let a = t.to_ndarray().unwrap();
        assert!(a.is_standard_layout(), "{what}");
        assert_eq!(a.shape(), t.shape(), "{what}");
        assert_eq!(
            a.iter().copied().collect::<Vec<_>>(),
            t.try_to_vec().unwrap(),
            "{what}"
        );
        // And back (zero copy of the new array).
        assert_eq!(Tensor::from(a), t, "{what}");
    }
}

#[test]
fn ndarray_view_every_layout() {
    for (what, t) in weft_layouts() {
        let guard = t.ndarray_view().unwrap();
        let v = guard.view();
        assert_eq!(v.shape(), t.shape(), "{what}");
        assert_eq!(
            v.iter().copied().collect::<Vec<_>>(),
            t.try_to_vec().unwrap(),
            "{what}"
        );
        if t.numel() > 0 {
            // The tensor's exact strides, and element 0 where the tensor has it: no copy.
            assert_eq!(v.strides(), t.strides(), "{what}");
            assert_eq!(v.as_ptr(), t.data_ptr(), "{what}");
        }
        // ndarray's own indexing agrees with weft's.
        for (idx, x) in v.indexed_iter() {
            assert_eq!(t.get(idx.slice()).unwrap(), *x, "{what} at {idx:?}");
        }
        // Element-wise ndarray ops work on it (read-only, aliased elements included).
        let doubled = v.mapv(|x| x * 2.0);
        assert_eq!(doubled.len(), t.numel(), "{what}");
        // Shared borrows stack: reading while the view lives is fine.
        assert_eq!(t.to_vec().len(), t.numel());
        let again = t.ndarray_view().unwrap();
        assert_eq!(again.view(), v, "{what}");
    }
}

#[test]
fn ndarray_view_every_dtype() {
    for d in DType::ALL {
        let t = DynTensor::from_vec((0..12).map(|i| i as f64).collect(), &[3, 4])
            .unwrap()
            .to(d)
            .slice(1, None, None, -1)
            .t();
        weft::dispatch!(&t, t => {
            let g = t.ndarray_view().unwrap();
            assert_eq!(g.view().iter().copied().collect::<Vec<_>>(), t.to_vec(), "{d}");
            assert_eq!(g.view().strides(), t.strides(), "{d}");
        });
    }
}

#[test]
fn ndarray_view_edge_layouts() {
    // A length-1 dim may carry any stride, isize::MIN included (ndarray cannot negate that
    // one: the view gives it stride 0, which reads the same element).
    let s = Storage::from_slice(&[1.0f32, 2.0, 3.0]);
    let t =
        Tensor::from_parts(s, Layout::new(vec![1, 3], vec![isize::MIN, 1], 0).unwrap()).unwrap();
    let g = t.ndarray_view().unwrap();
    assert_eq!(
        g.view().iter().copied().collect::<Vec<_>>(),
        [1.0, 2.0, 3.0]
    );
    let s = Storage::from_slice(&[1.0f32, 2.0, 3.0]);
    let t = Tensor::from_parts(s, Layout::new(vec![1, 3], vec![-7, -1], 2).unwrap()).unwrap();
    let g = t.ndarray_view().unwrap();
    assert_eq!(g.view().strides(), &[-7, -1]);
    assert_eq!(
        g.view().iter().copied().collect::<Vec<_>>(),
        [3.0, 2.0, 1.0]
    );
    // An empty tensor whose other dims multiply past isize::MAX: fine in weft, not in
    // ndarray: an error, no panic.
    let e = Tensor::<f32>::zeros(&[0, 1 << 40, 1 << 40]);
    assert!(matches!(e.ndarray_view(), Err(Error::InvalidView { .. })));
    assert!(e.to_ndarray().is_err());
    // An empty tensor with a far offset: nothing is pointed to.
    let s = Storage::from_slice(&[1.0f32]);
    let t =
        Tensor::from_parts(s, Layout::new(vec![2, 0], vec![-1000, 5], 1 << 40).unwrap()).unwrap();
    let g = t.ndarray_view().unwrap();
    assert_eq!(g.view().shape(), &[2, 0]);
}

#[test]
fn writes_are_refused_while_a_view_lives() {
    let t = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let guard = t.ndarray_view().unwrap();
    let conflict = |r: weft::Result<()>| {
        assert!(
            matches!(r, Err(Error::BorrowConflict { write: true, .. })),
            "{r:?}"
        );
    };
    // Through another handle, another view, the DynTensor API, and `set`.
    let mut w = t.share();
    conflict(w.try_add_(1.0));
    let mut tv = t.t();
    conflict(tv.try_mul_(2.0));
    conflict(w.set(&[0, 0], 9.0));
    conflict(w.try_copy_(&Tensor::<f32>::zeros(&[2, 2])));
    let mut d = DynTensor::from(t.share());
    conflict(d.try_fill_(Scalar::Float(0.0)));
    // From another thread too.
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut w = t.share();
            conflict(w.try_add_(1.0));
        });
    });
    // Nothing was written.
    assert_eq!(
        guard.view().iter().copied().collect::<Vec<_>>(),
        [1.0, 2.0, 3.0, 4.0]
    );
    drop(guard);
    // Once the view is gone, writes go through.
    w.try_add_(1.0).unwrap();
    assert_eq!(t.to_vec(), [2.0, 3.0, 4.0, 5.0]);
}
