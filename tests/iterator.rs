//! TensorIterator: geometry (broadcast, reorder, coalesce), dtypes, errors, and a proptest
//! that every element is visited exactly once with the right operands, at any thread count.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use weft::storage::Storage;
use weft::{
    DType, DynTensor, ElementBytes, Error, IterConfig, Layout, LoopCost, Scalar, Tensor,
    TensorIterator,
};

// ---------- helpers ----------

fn arange_i64(n: usize) -> Storage<i64> {
    let v: Vec<i64> = (0..n as i64).collect();
    Storage::from_slice(&v)
}

fn zeros_f32(shape: &[usize]) -> DynTensor {
    DynTensor::zeros(DType::F32, shape).unwrap()
}

fn view<T: weft::DynElement>(
    st: &Storage<T>,
    shape: &[usize],
    strides: &[isize],
    offset: usize,
) -> DynTensor {
    let l = Layout::new(shape.to_vec(), strides.to_vec(), offset).unwrap();
    T::wrap(Tensor::from_parts(st.clone(), l).unwrap())
}

fn f32_storage(n: usize) -> Storage<f32> {
    Storage::<f32>::zeroed(n)
}

// ---------- coalescing cases from the issue ----------

#[test]
fn same_shape_contiguous_is_one_dim() {
    let (a, b) = (zeros_f32(&[2, 3, 4]), zeros_f32(&[2, 3, 4]));
    let it = TensorIterator::binary_op(None, &a, &b).unwrap();
    assert_eq!(it.shape(), &[24]);
    assert!(it.is_contiguous() && it.is_trivial_1d() && it.is_fast_setup());
    for i in 0..3 {
        assert_eq!(it.strides(i), &[4]);
        assert_eq!(it.element_strides(i), vec![1]);
    }
    assert_eq!(it.output(0).shape(), &[2, 3, 4]);
    assert!(it.output(0).is_contiguous());
}

#[test]
fn broadcast_last_dim_gives_two_dims() {
    let (a, b) = (zeros_f32(&[2, 3, 4]), zeros_f32(&[4]));
    let it = TensorIterator::binary_op(None, &a, &b).unwrap();
    // fastest first: runs of 4, six of them (the logical [6, 4] in memory order)
    assert_eq!(it.shape(), &[4, 6]);
    assert_eq!(it.strides(0), &[4, 16]);
    assert_eq!(it.strides(1), &[4, 16]);
    assert_eq!(it.strides(2), &[4, 0]);
    assert!(!it.is_contiguous());
    assert_eq!(it.output(0).shape(), &[2, 3, 4]);
}

#[test]
fn broadcast_middle_dim_stays_three_dims() {
    let (a, b) = (zeros_f32(&[2, 3, 4]), zeros_f32(&[2, 1, 4]));
    let it = TensorIterator::binary_op(None, &a, &b).unwrap();
    assert_eq!(it.shape(), &[4, 3, 2]);
    assert_eq!(it.strides(1), &[4, 16, 48]);
    assert_eq!(it.strides(2), &[4, 0, 16]);
}

#[test]
fn transposed_operand_does_not_merge() {
    let a = zeros_f32(&[2, 3]);
    let bt = view(&f32_storage(6), &[2, 3], &[1, 2], 0); // [3,2] transposed
    let it = TensorIterator::binary_op(None, &a, &bt).unwrap();
    assert_eq!(it.shape(), &[3, 2]);
    assert_eq!(it.strides(1), &[4, 12]);
    assert_eq!(it.strides(2), &[8, 4]);
}

#[test]
fn size_one_dims_with_odd_strides_vanish() {
    let a = view(&f32_storage(6), &[2, 1, 3], &[3, 77, 1], 0);
    let b = zeros_f32(&[3]);
    let it = TensorIterator::binary_op(None, &a, &b).unwrap();
    assert_eq!(it.shape(), &[3, 2]);
    assert_eq!(it.strides(1), &[4, 12]);
    assert_eq!(it.strides(2), &[4, 0]);
    // all size 1: one dim of 1
    let c = view(&f32_storage(1), &[1, 1, 1], &[5, -3, 9], 0);
    let d = view(&f32_storage(1), &[1, 1], &[0, 11], 0);
    let it = TensorIterator::binary_op(None, &c, &d).unwrap();
    assert_eq!(it.shape(), &[1]);
    assert_eq!(it.numel(), 1);
}

#[test]
fn stride_zero_dims_merge_with_each_other() {
    let a = zeros_f32(&[2, 3]);
    let s = view(&f32_storage(1), &[2, 3], &[0, 0], 0); // expanded scalar
    let it = TensorIterator::binary_op(None, &a, &s).unwrap();
    assert_eq!(it.shape(), &[6]);
    assert_eq!(it.strides(2), &[0]);
    assert!(it.is_scalar(2));
    // a [3] + [2,1] style: output dense, both inputs broadcast differently -> 2 dims
    let x = zeros_f32(&[3]);
    let y = zeros_f32(&[2, 1]);
    let it = TensorIterator::binary_op(None, &x, &y).unwrap();
    assert_eq!(it.shape(), &[3, 2]);
    assert_eq!(it.strides(1), &[4, 0]);
    assert_eq!(it.strides(2), &[0, 4]);
}

#[test]
fn permuted_input_walks_in_memory_order() {
    // arange(24).reshape(2,3,4).permute(2,0,1): shape [4,2,3], strides (1,12,4)
    let st = arange_i64(24);
    let p = view(&st, &[4, 2, 3], &[1, 12, 4], 0);
    let it = TensorIterator::unary_op(None, &p).unwrap();
    assert_eq!(it.shape(), &[24]);
    assert_eq!(it.strides(0), &[8]);
    assert_eq!(it.strides(1), &[8]);
    // the allocated output follows the input's dim order (like empty_like)
    assert_eq!(it.output(0).shape(), &[4, 2, 3]);
    assert_eq!(it.output(0).strides(), &[1, 12, 4]);
    // and the walk visits storage in order 0, 1, 2, ...
    let mut seen = vec![];
    it.serial_for_each(0..24, |p, s, n| {
        for k in 0..n as isize {
            seen.push(unsafe { *(p[1].offset(k * s[1]) as *const i64) });
        }
    });
    assert_eq!(seen, (0..24).collect::<Vec<i64>>());
}

#[test]
fn permuted_input_slow_path_with_broadcast() {
    // permuted [4,2,3] + a broadcast [3]: not the fast path, still reordered into memory order
    let st = arange_i64(24);
    let p = view(&st, &[4, 2, 3], &[1, 12, 4], 0);
    let b = DynTensor::zeros(DType::I64, &[3]).unwrap();
    let it = TensorIterator::binary_op(None, &p, &b).unwrap();
    assert_eq!(it.perm(), &[0, 2, 1]);
    assert_eq!(it.shape(), &[4, 3, 2]);
    assert_eq!(it.strides(1), &[8, 32, 96]);
    assert_eq!(it.output(0).strides(), &[1, 12, 4]);
}

#[test]
fn transposed_inputs_give_transposed_output() {
    let a = view(&f32_storage(6), &[3, 2], &[1, 3], 0); // a.t() of [2,3]
    let b = view(&f32_storage(6), &[3, 2], &[1, 3], 0);
    let it = TensorIterator::binary_op(None, &a, &b).unwrap();
    assert_eq!(it.output(0).shape(), &[3, 2]);
    assert_eq!(it.output(0).strides(), &[1, 3]);
    assert_eq!(it.shape(), &[6]);
    // same, with a broadcast operand so the slow path decides
    let c = zeros_f32(&[1, 2]);
    let it = TensorIterator::binary_op(None, &a, &c).unwrap();
    assert_eq!(it.output(0).strides(), &[1, 3]);
}

#[test]
fn given_output_layout_decides_order() {
    // a transposed given output comes first and decides the walk
    let out = view(&f32_storage(6), &[2, 3], &[1, 2], 0);
    let a = zeros_f32(&[2, 3]);
    let b = zeros_f32(&[3]);
    let it = TensorIterator::binary_op(Some(&out), &a, &b).unwrap();
    assert_eq!(it.shape(), &[2, 3]);
    assert_eq!(it.strides(0), &[4, 8]);
    assert_eq!(it.strides(1), &[12, 4]);
}

#[test]
fn enforce_linear_iteration_keeps_logical_order() {
    let p = view(&arange_i64(24), &[4, 2, 3], &[1, 12, 4], 0);
    let it = IterConfig::new()
        .add_owned_output()
        .add_input(&p)
        .enforce_linear_iteration(true)
        .build()
        .unwrap();
    assert!(!it.is_fast_setup());
    assert_eq!(it.perm(), &[2, 1, 0]);
    assert!(it.output(0).is_contiguous());
    let mut seen = vec![];
    it.serial_for_each(0..24, |p, s, n| {
        for k in 0..n as isize {
            seen.push(unsafe { *(p[1].offset(k * s[1]) as *const i64) });
        }
    });
    let expected: Vec<i64> = (0..24)
        .map(|i| p.layout().index_of_linear(i) as i64)
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn negative_strides() {
    // a fully reversed [2,3] coalesces to one dim walked downwards
    let r = view(&f32_storage(6), &[2, 3], &[-3, -1], 5);
    let a = zeros_f32(&[3]);
    let it = TensorIterator::binary_op(None, &r, &a).unwrap();
    assert_eq!(it.shape(), &[3, 2]);
    assert_eq!(it.strides(1), &[-4, -12]);
    let it = TensorIterator::unary_op(None, &r).unwrap();
    assert!(!it.is_fast_setup());
    assert_eq!(it.shape(), &[6]);
    assert_eq!(it.strides(1), &[-4]);
    assert!(it.output(0).is_contiguous());
}

#[test]
fn zero_dim_and_empty() {
    let s = zeros_f32(&[]);
    let it = TensorIterator::binary_op(None, &s, &s).unwrap();
    assert_eq!(it.ndim(), 0);
    assert_eq!(it.numel(), 1);
    assert_eq!(it.output(0).shape(), &[] as &[usize]);
    let mut calls = 0;
    it.serial_for_each(0..1, |_, _, n| {
        assert_eq!(n, 1);
        calls += 1
    });
    assert_eq!(calls, 1);

    let e = zeros_f32(&[2, 0, 3]);
    let b = zeros_f32(&[3]);
    let it = TensorIterator::binary_op(None, &e, &b).unwrap();
    assert_eq!(it.numel(), 0);
    assert_eq!(it.output(0).shape(), &[2, 0, 3]);
    it.for_each(LoopCost::Grain(1), |_, _, _| panic!("no element to visit"));
    // 0-d with a dimensioned tensor
    let it = TensorIterator::binary_op(None, &s, &b).unwrap();
    assert_eq!(it.shape(), &[3]);
    assert_eq!(it.strides(2), &[4]);
    assert_eq!(it.strides(1), &[0]);
}

// ---------- dtypes ----------

#[test]
fn dtypes_and_promotion() {
    let i = DynTensor::zeros(DType::I32, &[3]).unwrap();
    let d0 = DynTensor::zeros(DType::F64, &[]).unwrap();
    let it = TensorIterator::binary_op(None, &i, &d0).unwrap();
    assert_eq!(it.common_dtype(), Some(DType::F64));
    assert_eq!(
        (it.dtype(0), it.dtype(1), it.dtype(2)),
        (DType::F64, DType::I32, DType::F64)
    );
    assert_eq!(it.strides(1), &[4]);
    assert_eq!(it.strides(2), &[0]);

    let h = DynTensor::zeros(DType::F16, &[3]).unwrap();
    let it = TensorIterator::binary_op(None, &h, &d0).unwrap();
    assert_eq!(it.common_dtype(), Some(DType::F16));

    let l = DynTensor::zeros(DType::I64, &[3]).unwrap();
    let it = TensorIterator::binary_float_op(None, &l, &l).unwrap();
    assert_eq!(it.common_dtype(), Some(DType::F32));
    assert_eq!(it.dtype(0), DType::F32);
    assert_eq!(it.dtype(1), DType::I64);

    let it = TensorIterator::comparison_op(None, &i, &l).unwrap();
    assert_eq!(it.common_dtype(), Some(DType::I64));
    assert_eq!(it.dtype(0), DType::Bool);

    let it = TensorIterator::unary_float_op(None, &i).unwrap();
    assert_eq!(
        (it.common_dtype(), it.dtype(0)),
        (Some(DType::F32), DType::F32)
    );

    let it = IterConfig::new()
        .promote_inputs_to_common_dtype(true)
        .add_owned_output()
        .add_input(&i)
        .add_scalar(Scalar::Float(2.5))
        .build()
        .unwrap();
    assert_eq!(it.common_dtype(), Some(DType::F32));
    assert_eq!(it.ntensors(), 2);

    // different input dtypes without promotion: no common dtype
    let it = IterConfig::new()
        .check_all_same_dtype(false)
        .add_input(&i)
        .add_input(&l)
        .build()
        .unwrap();
    assert_eq!(it.common_dtype(), None);
    assert_eq!(it.noutputs(), 0);
}

// ---------- errors ----------

#[test]
fn error_shapes_do_not_broadcast() {
    let e = TensorIterator::binary_op(None, &zeros_f32(&[2, 3]), &zeros_f32(&[4])).err();
    match e {
        Some(Error::ShapeMismatch { lhs, rhs, .. }) => {
            assert_eq!((lhs, rhs), (vec![2, 3], vec![4]));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn error_given_output_wrong_shape() {
    let out = zeros_f32(&[3]);
    let e = TensorIterator::binary_op(Some(&out), &zeros_f32(&[2, 3]), &zeros_f32(&[3])).err();
    assert!(
        matches!(e, Some(Error::OutputShape { ref expected, ref got, .. })
        if expected == &vec![2, 3] && got == &vec![3]),
        "{e:?}"
    );
    // outputs never broadcast, also with resize_outputs(false)
    let e = IterConfig::new()
        .resize_outputs(false)
        .add_output(&out)
        .add_input(&zeros_f32(&[2, 3]))
        .build()
        .err();
    assert!(matches!(e, Some(Error::OutputShape { .. })), "{e:?}");
}

#[test]
fn error_mixed_dtypes_where_forbidden() {
    let a = zeros_f32(&[3]);
    let b = DynTensor::zeros(DType::I64, &[3]).unwrap();
    let e = IterConfig::new()
        .add_owned_output()
        .add_input(&a)
        .add_input(&b)
        .build()
        .err();
    assert!(
        matches!(
            e,
            Some(Error::DTypeMismatch {
                expected: DType::F32,
                got: DType::I64,
                ..
            })
        ),
        "{e:?}"
    );
    let e = TensorIterator::unary_op(Some(&b), &a).err();
    assert!(matches!(e, Some(Error::DTypeMismatch { .. })), "{e:?}");
    // safe casting
    let e = TensorIterator::binary_op(Some(&b), &a, &a).err();
    assert!(
        matches!(
            e,
            Some(Error::UnsafeCast {
                from: DType::F32,
                to: DType::I64,
                ..
            })
        ),
        "{e:?}"
    );
    // without promotion, an allocated output has no dtype
    let e = IterConfig::new()
        .check_all_same_dtype(false)
        .add_owned_output()
        .add_input(&a)
        .add_input(&b)
        .build()
        .err();
    assert!(matches!(e, Some(Error::InvalidArgument { .. })), "{e:?}");
}

#[test]
fn error_no_inputs_and_bad_flags() {
    let e = IterConfig::new().add_owned_output().build().err();
    assert!(matches!(e, Some(Error::InvalidArgument { .. })), "{e:?}");
    let e = IterConfig::new().build().err();
    assert!(matches!(e, Some(Error::InvalidArgument { .. })), "{e:?}");
    let a = zeros_f32(&[3]);
    let e = IterConfig::new()
        .declare_static_dtype(DType::F32)
        .add_input(&a)
        .build()
        .err();
    assert!(matches!(e, Some(Error::InvalidArgument { .. })), "{e:?}");
    let e = IterConfig::new()
        .declare_static_shape(&[3])
        .add_input(&a)
        .build()
        .err();
    assert!(matches!(e, Some(Error::InvalidArgument { .. })), "{e:?}");
    // a nullary op with a given output works without inputs
    let it = TensorIterator::nullary_op(&a).unwrap();
    assert_eq!((it.ntensors(), it.shape()), (1, &[3usize][..]));
}

#[test]
fn error_memory_overlap() {
    let st = f32_storage(8);
    let a = zeros_f32(&[4]);
    // output with internal overlap
    let expanded = view(&st, &[4], &[0], 0);
    let e = TensorIterator::binary_op(Some(&expanded), &a, &a).err();
    assert!(matches!(e, Some(Error::MemoryOverlap { .. })), "{e:?}");
    // partial overlap output / input
    let out = view(&st, &[4], &[1], 0);
    let inp = view(&st, &[4], &[1], 2);
    let e = TensorIterator::binary_op(Some(&out), &inp, &a).err();
    assert!(matches!(e, Some(Error::MemoryOverlap { .. })), "{e:?}");
    // exact alias (in-place) and disjoint halves are fine
    let same = view(&st, &[4], &[1], 0);
    assert!(TensorIterator::binary_op(Some(&out), &same, &a).is_ok());
    let other = view(&st, &[4], &[1], 4);
    assert!(TensorIterator::binary_op(Some(&out), &other, &a).is_ok());
    // the overlap check can be turned off
    assert!(
        IterConfig::new()
            .check_mem_overlap(false)
            .add_output(&out)
            .add_input(&inp)
            .build()
            .is_ok()
    );
}

// ---------- reductions and static shapes ----------

#[test]
fn reduce_op_geometry() {
    let out = zeros_f32(&[2, 1]);
    let a = zeros_f32(&[2, 3]);
    let it = TensorIterator::reduce_op(&out, &a).unwrap();
    assert_eq!(it.shape(), &[3, 2]);
    assert_eq!(it.strides(0), &[0, 4]);
    assert_eq!(it.strides(1), &[4, 12]);
    // reduce over dim 0: reduced dim goes first
    let out = zeros_f32(&[1, 3]);
    let it = TensorIterator::reduce_op(&out, &a).unwrap();
    assert_eq!(it.shape(), &[2, 3]);
    assert_eq!(it.strides(0), &[0, 4]);
    assert_eq!(it.strides(1), &[12, 4]);
}

#[test]
fn static_shape_with_squash() {
    let a = zeros_f32(&[2, 5, 3]);
    let out = zeros_f32(&[2, 5, 3]);
    let it = IterConfig::new()
        .resize_outputs(false)
        .declare_static_shape_squash(&[2, 5, 3], &[1])
        .add_output(&out)
        .add_input(&a)
        .build()
        .unwrap();
    assert_eq!(it.numel(), 6);
    assert_eq!(it.shape(), &[3, 2]);
    assert_eq!(it.strides(1), &[4, 60]);
}

// ---------- running ----------

#[test]
fn errors_come_back_deterministically() {
    let n = 1000usize;
    let v: Vec<i64> = (0..n as i64)
        .map(|i| if i % 97 == 13 { 0 } else { 1 })
        .collect();
    let t: DynTensor = Tensor::from_vec(v, &[10, 100]).unwrap().into();
    let it = TensorIterator::unary_op(None, &t).unwrap();
    for threads in 1..=4 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let r = pool.install(|| {
            it.try_for_each(LoopCost::Grain(7), |p, s, len| {
                for k in 0..len as isize {
                    let x = unsafe { *(p[1].offset(k * s[1]) as *const i64) };
                    if x == 0 {
                        let pos = (p[1] as usize - it.data_ptr(1) as usize) / 8 + k as usize;
                        return Err(Error::ZeroDivision {
                            op: if pos == 13 { "first" } else { "later" },
                        });
                    }
                }
                Ok(())
            })
        });
        assert_eq!(
            r,
            Err(Error::ZeroDivision { op: "first" }),
            "threads {threads}"
        );
    }
}

#[test]
fn long_rows_split_mid_row() {
    // [2, N] with an explicit grain on three threads: pieces that start and end inside rows,
    // covering every element once.
    let t: DynTensor = Tensor::<i32>::zeros(&[2, 5001]).into();
    let b: DynTensor = Tensor::<i32>::zeros(&[1, 5001]).into();
    let it = TensorIterator::binary_op(None, &t, &b).unwrap();
    assert_eq!(it.shape(), &[5001, 2]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let runs = std::sync::Mutex::new(vec![]);
    pool.install(|| {
        it.for_each(LoopCost::Grain(1000), |p, _, n| {
            runs.lock()
                .unwrap()
                .push(((p[0] as usize - it.data_ptr(0) as usize) / 4, n))
        })
    });
    let mut runs = runs.into_inner().unwrap();
    runs.sort();
    // Pieces of 1000 elements (the last takes the remainder): runs end at piece ends and at the
    // row end 5001.
    let mut expected = vec![];
    let mut cuts: Vec<usize> = (0..10).map(|c| c * 1000).chain([5001, 10002]).collect();
    cuts.sort();
    for w in cuts.windows(2) {
        expected.push((w[0], w[1] - w[0]));
    }
    assert_eq!(runs, expected);
}

// ---------- proptest: every element visited exactly once with the right operands ----------

#[derive(Clone, Debug)]
struct OpLayout {
    /// logical shape of the operand (right-aligned against the result shape)
    shape: Vec<usize>,
    perm: Vec<usize>,
    step: Vec<usize>,
    reverse: Vec<bool>,
    expand: Vec<bool>,
    offset: usize,
}

/// Builds a view with the given logical shape over fresh storage: its dims laid out in the
/// order `perm`, each stepped, reversed or expanded (stride 0) as asked, at an offset.
fn make_view(l: &OpLayout, fill_base: i64) -> DynTensor {
    let nd = l.shape.len();
    // physical extents in perm order (outermost first)
    let mut strides = vec![0isize; nd];
    let mut acc = 1usize;
    for &d in l.perm.iter().rev() {
        if l.expand[d] {
            strides[d] = 0;
            continue;
        }
        strides[d] = (acc * l.step[d]) as isize;
        acc *= (l.shape[d] * l.step[d]).max(1);
    }
    let len = acc + l.offset;
    let mut off = l.offset as isize;
    for (d, s) in strides.iter_mut().enumerate() {
        if l.reverse[d] && l.shape[d] > 0 {
            off += (l.shape[d] as isize - 1) * *s;
            *s = -*s;
        }
    }
    let data: Vec<i64> = (0..len as i64).map(|i| fill_base + i).collect();
    let st = Storage::from_slice(&data);
    view(&st, &l.shape, &strides, off as usize)
}

fn layout_strategy(shape: Vec<usize>, allow_expand: bool) -> impl Strategy<Value = OpLayout> {
    let nd = shape.len();
    (
        Just((0..nd).collect::<Vec<_>>()).prop_shuffle(),
        proptest::collection::vec(1usize..=2, nd),
        proptest::collection::vec(any::<bool>(), nd),
        proptest::collection::vec(
            prop::bool::weighted(if allow_expand { 0.2 } else { 0.0 }),
            nd,
        ),
        0usize..3,
    )
        .prop_map(move |(perm, step, reverse, expand, offset)| OpLayout {
            shape: shape.clone(),
            perm,
            step,
            reverse,
            expand,
            offset,
        })
}

#[derive(Clone, Debug)]
struct Case {
    shape: Vec<usize>,
    inputs: Vec<OpLayout>,
    out: Option<OpLayout>,
    threads: usize,
    grain: usize,
    mode: u8,
    linear: bool,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    proptest::collection::vec(0usize..=6, 0..=5).prop_flat_map(|shape| {
        let nd = shape.len();
        // each input: drop some leading dims, set some dims to 1
        let input_shape = (
            0..=nd,
            proptest::collection::vec(prop::bool::weighted(0.3), nd),
        )
            .prop_map({
                let shape = shape.clone();
                move |(drop, ones)| {
                    (drop..nd)
                        .map(|d| if ones[d] { 1 } else { shape[d] })
                        .collect::<Vec<_>>()
                }
            });
        // the first input has the full shape (so the broadcast shape is `shape`), any layout
        let first = layout_strategy(shape.clone(), true);
        let rest = proptest::collection::vec(
            input_shape.prop_flat_map(|s| layout_strategy(s, true)),
            0..=2,
        );
        let inputs = (first, rest).prop_map(|(f, mut r)| {
            r.insert(0, f);
            r
        });
        let out = proptest::option::of(layout_strategy(shape.clone(), false));
        (
            Just(shape),
            inputs,
            out,
            1usize..=4,
            1usize..=40,
            0u8..3,
            prop::bool::weighted(0.15),
        )
            .prop_map(|(shape, inputs, out, threads, grain, mode, linear)| Case {
                shape,
                inputs,
                out,
                threads,
                grain,
                mode,
                linear,
            })
    })
}

/// Every element of a storage, through a 1-d view of all of it.
fn whole_storage(st: &Storage<i64>) -> Vec<i64> {
    view(st, &[st.len()], &[1], 0)
        .as_typed::<i64>()
        .unwrap()
        .to_vec()
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    let ins: Vec<DynTensor> = c
        .inputs
        .iter()
        .enumerate()
        .map(|(k, l)| make_view(l, 1 + k as i64 * 300_000))
        .collect();
    let given = c.out.as_ref().map(|l| {
        // a zeroed storage of the same layout
        let t = make_view(l, 0);
        let st = Storage::<i64>::zeroed(t.as_typed::<i64>().unwrap().storage().len());
        view(&st, t.shape(), t.strides(), t.offset())
    });
    let mut cfg = IterConfig::new().enforce_linear_iteration(c.linear);
    cfg = match &given {
        Some(o) => cfg.add_output(o),
        None => cfg.add_owned_output(),
    };
    for t in &ins {
        cfg = cfg.add_input(t);
    }
    let it = cfg
        .build()
        .map_err(|e| TestCaseError::fail(format!("build: {e}")))?;
    prop_assert_eq!(it.logical_shape(), &c.shape[..]);
    prop_assert_eq!(it.numel(), c.shape.iter().product::<usize>());
    let nin = ins.len();
    // out += a + b * 2^20 + c * 2^40: written twice doubles, never written stays 0
    let kernel = |p: &[*mut u8], s: &[isize], n: usize| {
        for k in 0..n as isize {
            let mut v = 0i64;
            for j in 0..nin {
                let x = unsafe { *(p[1 + j].offset(k * s[1 + j]) as *const i64) };
                v += x << (20 * j);
            }
            unsafe { *(p[0].offset(k * s[0]) as *mut i64) += v };
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(c.threads)
        .build()
        .unwrap();
    pool.install(|| match c.mode {
        0 => it.for_each(LoopCost::Grain(c.grain), kernel),
        1 => it.for_each_2d(LoopCost::Grain(c.grain), |p, s, n0, n1| {
            let nt = p.len();
            let mut q = p.to_vec();
            for _ in 0..n1 {
                kernel(&q, &s[..nt], n0);
                for (k, x) in q.iter_mut().enumerate() {
                    *x = x.wrapping_offset(s[nt + k]);
                }
            }
        }),
        _ => {
            let mid = it.numel() / 3;
            it.serial_for_each(mid..it.numel(), kernel);
            it.serial_for_each(0..mid, kernel);
        }
    });
    let out = it.output(0).as_typed::<i64>().unwrap().share();
    let numel = it.numel();
    drop(it); // releases the storage borrows: the elements can be read now
    prop_assert_eq!(out.shape(), &c.shape[..]);
    let nd = c.shape.len();
    for lin in 0..numel {
        // coordinate in the result shape
        let mut coord = vec![0usize; nd];
        let mut r = lin;
        for d in (0..nd).rev() {
            coord[d] = r % c.shape[d];
            r /= c.shape[d];
        }
        let mut expect = 0i64;
        for (j, t) in ins.iter().enumerate() {
            let l = t.layout();
            let off = nd - l.ndim();
            let tc: Vec<usize> = (0..l.ndim())
                .map(|k| if l.shape()[k] == 1 { 0 } else { coord[off + k] })
                .collect();
            let st = t.as_typed::<i64>().unwrap().storage();
            let x = whole_storage(st)[l.index_of(&tc) as usize];
            expect += x << (20 * j);
        }
        let got = out.get(&coord).unwrap();
        prop_assert_eq!(got, expect, "element {:?}", coord);
    }
    if given.is_some() {
        // nothing outside the output view was written
        let total: i64 = whole_storage(out.storage())
            .iter()
            .copied()
            .map(|x| (x != 0) as i64)
            .sum();
        let inside: i64 = out.to_vec().iter().map(|&x| (x != 0) as i64).sum();
        prop_assert_eq!(total, inside);
    }
    Ok(())
}

#[test]
fn proptest_visits_every_element_once() {
    let config = Config {
        cases: 384,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7u8; 32]));
    runner.run(&case_strategy(), |c| check_case(&c)).unwrap();
}

/// The grains: a memory-bound (`Cheap`) loop's is 256 KiB of its widest operand or 384 KiB of
/// the bytes an element moves (its operands' sizes summed), whichever is fewer, at most 65536
/// elements; the compute classes' are counts of elements; an explicit grain is itself. A loop
/// is serial below two pieces of at least 8192 elements (an explicit grain's pieces are the
/// grain).
#[test]
fn grains_by_cost_and_bytes_moved() {
    let of = |sizes: &[usize]| ElementBytes::of(sizes.iter().copied());
    assert_eq!(
        of(&[4, 4, 1]),
        ElementBytes {
            widest: 4,
            total: 9
        }
    );
    for (sizes, cheap) in [
        (&[1, 1, 1][..], 65536),
        (&[4, 4], 49152),
        (&[4, 4, 4], 32768),
        (&[2, 8], 32768),
        (&[8, 8, 8], 16384),
        (&[16], 16384),
    ] {
        let bytes = of(sizes);
        assert_eq!(LoopCost::Cheap.grain(bytes), cheap, "{sizes:?}");
        assert_eq!(LoopCost::Moderate.grain(bytes), 16384);
        assert_eq!(LoopCost::Expensive.grain(bytes), 2048);
        assert_eq!(LoopCost::Grain(7).grain(bytes), 7);
        assert_eq!(LoopCost::Grain(0).grain(bytes), 1);
    }
    // 64K elements: an f32 add (out and two inputs) splits; a compare into bool and a unary
    // f32 op do not; an f64 unary op and an f64 -> f16 cast do.
    let cheap = |n: usize, sizes: &[usize]| LoopCost::Cheap.is_serial(n, of(sizes));
    assert!(!cheap(65536, &[4, 4, 4]));
    assert!(cheap(65535, &[4, 4, 4]));
    assert!(cheap(65536, &[1, 4, 4]));
    assert!(cheap(65536, &[4, 4]));
    assert!(!cheap(65536, &[8, 8]));
    assert!(!cheap(65536, &[2, 8]));
    // The compute classes: pieces of at least 8192 elements.
    let f32_unary = of(&[4, 4]);
    assert!(LoopCost::Expensive.is_serial(16383, f32_unary));
    assert!(!LoopCost::Expensive.is_serial(16384, f32_unary));
    assert!(LoopCost::Moderate.is_serial(32767, f32_unary));
    assert!(!LoopCost::Moderate.is_serial(32768, f32_unary));
    // An explicit grain is the piece itself.
    assert!(!LoopCost::Grain(1).is_serial(2, f32_unary));
    assert!(LoopCost::Grain(1).is_serial(1, f32_unary));
    assert!(LoopCost::Grain(usize::MAX).is_serial(usize::MAX, f32_unary));
}
