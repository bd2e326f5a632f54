//! Host emulation of the GPU kernels: the per-thread bodies that `gpu/kernels` compiles to PTX
//! (`weft::device::layout`) run here over every thread index of small grids, on random layouts
//! (transposed, broadcast, negative strides, offsets), on both index widths and with mixed
//! dtypes, and are compared with a naive reference. Also: `IntDivider` against plain division.

// `weft::gpu_kernel_list!` nests one macro call per op-table line.
#![recursion_limit = "512"]

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use weft::device::layout::{
    ElementLayout, IndexInt, IntDivider, Layout32, Layout64, LayoutError, MAX_DIMS, WithScalar,
    binary_at, binary_contig, contiguous_aligned, contiguous_chunks, grid_stride, ternary_at,
    ternary_contig, unary_at, unary_contig,
};
use weft::functors::{Add as PAdd, Exp as PExp, Neg as PNeg, Where as PWhere};
use weft::half::{bf16, f16};
use weft::{DType, Element, Functor, Value, convert_value, with_dtype};

fn runner(cases: u32) -> TestRunner {
    let seed = [7u8; 32];
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    )
}

// ---------------------------------------------------------------------------------------------
// IntDivider

#[test]
fn int_divider_u32_edges() {
    let ds = [
        1u32, 2, 3, 5, 7, 10, 255, 256, 257, 641, 65535, 65536, 65537,
    ];
    let ns = [
        0u32,
        1,
        2,
        3,
        1000,
        65535,
        65536,
        1 << 31,
        (1 << 31) - 1,
        u32::MAX,
        u32::MAX - 1,
    ];
    let mut all_d: Vec<u32> = ds.to_vec();
    for s in 0..32 {
        let p = 1u32 << s;
        all_d.extend([p, p.wrapping_sub(1).max(1), p.saturating_add(1)]);
    }
    all_d.extend([u32::MAX, u32::MAX - 1, (1 << 31) + 1]);
    for &d in &all_d {
        let div = IntDivider::<u32>::new(d).unwrap();
        for &n in &ns {
            assert_eq!(div.divmod(n), (n / d, n % d), "n={n} d={d}");
        }
    }
    assert!(IntDivider::<u32>::new(0).is_none());
}

#[test]
fn int_divider_u64_edges() {
    let mut all_d: Vec<u64> = vec![1, 3, 7, 10, 641, 6700417, u64::MAX, u64::MAX - 1];
    for s in 0..64 {
        let p = 1u64 << s;
        all_d.extend([p, p.wrapping_sub(1).max(1), p.saturating_add(1)]);
    }
    let ns = [
        0u64,
        1,
        5,
        u32::MAX as u64,
        1 << 32,
        1 << 63,
        u64::MAX,
        u64::MAX - 1,
    ];
    for &d in &all_d {
        let div = IntDivider::<u64>::new(d).unwrap();
        for &n in &ns {
            assert_eq!(div.divmod(n), (n / d, n % d), "n={n} d={d}");
        }
    }
    assert!(IntDivider::<u64>::new(0).is_none());
}

#[test]
fn int_divider_u32_random() {
    let strat = (
        prop_oneof![1u32..64, 1u32..=65536, 1u32..=u32::MAX],
        any::<u32>(),
    );
    runner(20_000)
        .run(&strat, |(d, n)| {
            let div = IntDivider::<u32>::new(d).unwrap();
            prop_assert_eq!(div.divmod(n), (n / d, n % d));
            Ok(())
        })
        .unwrap();
}

#[test]
fn int_divider_u64_random() {
    let strat = (
        prop_oneof![1u64..64, 1u64..=u32::MAX as u64, 1u64..=u64::MAX],
        any::<u64>(),
    );
    runner(20_000)
        .run(&strat, |(d, n)| {
            let div = IntDivider::<u64>::new(d).unwrap();
            prop_assert_eq!(div.divmod(n), (n / d, n % d));
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Layout construction and offsets

/// Byte offsets by the definition: row-major coordinates of `linear` times byte strides.
fn naive_offsets(shape: &[usize], strides: &[Vec<isize>], linear: u64) -> Vec<i128> {
    let mut rem = linear;
    let mut off = vec![0i128; strides.len()];
    for d in (0..shape.len()).rev() {
        let c = rem % shape[d] as u64;
        rem /= shape[d] as u64;
        for (k, s) in strides.iter().enumerate() {
            off[k] += c as i128 * s[d] as i128;
        }
    }
    off
}

fn check_offsets<I: IndexInt>(l: &ElementLayout<I>, shape: &[usize], strides: &[Vec<isize>]) {
    let numel: u64 = shape.iter().map(|&n| n as u64).product();
    let probe = [0, 1, numel / 3, numel / 2, numel.saturating_sub(1)];
    for &i in probe.iter().filter(|&&i| i < numel) {
        let got = l.offsets::<4>(I::from_u64_trunc(i));
        let want = naive_offsets(shape, strides, i);
        for k in 0..strides.len() {
            assert_eq!(
                got[k] as i128, want[k],
                "operand {k} element {i} of {shape:?} {strides:?}"
            );
        }
    }
}

#[test]
fn layout_offsets_match_definition_for_random_strides() {
    // Up to 8 dims, any strides (big ones included): both widths agree with the definition
    // whenever they accept the layout, and u32 refuses exactly when an offset does not fit.
    let strat = prop::collection::vec((1usize..6, -3_000_000_000i64..3_000_000_000), 0..=8);
    runner(2000)
        .run(&(strat, 0usize..4), |(dims, seed)| {
            let shape: Vec<usize> = dims.iter().map(|d| d.0).collect();
            let strides: Vec<Vec<isize>> = (0..3)
                .map(|k| {
                    dims.iter()
                        .enumerate()
                        .map(|(i, d)| {
                            let s = d.1 as isize;
                            // mix small, zero and big strides per operand
                            match (k + i + seed) % 4 {
                                0 => s,
                                1 => s % 1000,
                                2 => 0,
                                _ => -(s % 100),
                            }
                        })
                        .collect()
                })
                .collect();
            let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
            let dts = [DType::F32; 3];
            let l64 = Layout64::new(&shape, &refs, &dts).unwrap();
            check_offsets(&l64, &shape, &strides);
            let fits32 = (0..3).all(|k| {
                let (mut lo, mut hi) = (0i128, 0i128);
                for d in 0..shape.len() {
                    let span = (shape[d] as i128 - 1) * strides[k][d] as i128;
                    if span < 0 { lo += span } else { hi += span }
                }
                lo >= i32::MIN as i128 && hi <= i32::MAX as i128
            });
            match Layout32::new(&shape, &refs, &dts) {
                Ok(l32) => {
                    prop_assert!(fits32);
                    check_offsets(&l32, &shape, &strides);
                }
                Err(e) => {
                    prop_assert_eq!(e, LayoutError::IndexOverflow);
                    prop_assert!(!fits32);
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn layout_coalesces_and_refuses_too_many_dims() {
    // A contiguous 4-D loop is one dim; size-1 dims vanish.
    let shape = [2usize, 1, 3, 4];
    let s: Vec<isize> = vec![48, 48, 16, 4];
    let l = Layout32::new(&shape, &[&s, &s], &[DType::F32, DType::F32]).unwrap();
    assert_eq!(l.ndim, 1);
    assert_eq!(l.dims[0].divisor, 24);
    // A transposed operand keeps two dims.
    let t: Vec<isize> = vec![4, 4, 8, 24 * 4];
    let l = Layout32::new(&[2, 1, 3, 4], &[&s, &t], &[DType::F32, DType::F32]).unwrap();
    assert!(l.ndim >= 2);
    // 12 dims that cannot merge (stride 3 * size) are refused: more than MAX_DIMS remain.
    let shape = [2usize; 12];
    let odd: Vec<isize> = (0..12).map(|d| 3isize.pow(d as u32 + 1)).collect();
    let e = Layout64::new(&shape, &[&odd], &[DType::U8]).unwrap_err();
    assert_eq!(e, LayoutError::TooManyDims { ndim: 12 });
    // 12 dims of which only 8 remain after coalescing are accepted.
    let mut s = vec![0isize; 12];
    let mut acc = 1isize;
    for d in (0..12).rev() {
        s[d] = acc;
        acc *= if d % 3 == 0 { 5 } else { 2 }; // every third boundary breaks contiguity
    }
    let l = Layout64::new(&shape, &[&s], &[DType::U8]).unwrap();
    assert!(l.ndim as usize <= MAX_DIMS);
    // Operand-count and rank errors.
    assert_eq!(
        Layout32::new(&[2], &[], &[]).unwrap_err(),
        LayoutError::Operands { noperands: 0 }
    );
    let one: Vec<isize> = vec![1];
    assert_eq!(
        Layout32::new(&[2, 2], &[&one], &[DType::U8]).unwrap_err(),
        LayoutError::StrideRank { operand: 0 }
    );
    // Empty loops: numel 0, nothing to index.
    let z: Vec<isize> = vec![4, 4];
    let l = Layout32::new(&[0, 5], &[&z], &[DType::F32]).unwrap();
    assert_eq!((l.numel, l.ndim), (0, 0));
    // The element count itself must fit the width.
    let big: Vec<isize> = vec![0, 0];
    assert_eq!(
        Layout32::new(&[1 << 20, 1 << 13], &[&big], &[DType::U8]).unwrap_err(),
        LayoutError::IndexOverflow
    );
    assert!(Layout64::new(&[1 << 20, 1 << 13], &[&big], &[DType::U8]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Buffers and views for the emulated launches

/// SplitMix64: deterministic test data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A 16-byte aligned byte buffer holding elements of a runtime dtype.
struct Buf {
    words: Vec<u128>,
    dtype: DType,
    len: usize,
}

impl Buf {
    fn new(dtype: DType, len: usize) -> Buf {
        Buf {
            words: vec![0; (len * dtype.size()).div_ceil(16) + 1],
            dtype,
            len,
        }
    }
    fn random(dtype: DType, len: usize, rng: &mut Rng) -> Buf {
        let mut b = Buf::new(dtype, len);
        for i in 0..len {
            let r = rng.next();
            let v = match dtype {
                DType::Bool => Value::Bool(r & 1 == 1),
                d if d.is_float() => Value::F64(((r % 20001) as f64 - 10000.0) / 64.0),
                _ => Value::Int(r as i64),
            };
            b.set(i, v);
        }
        b
    }
    fn ptr(&self) -> *const u8 {
        self.words.as_ptr() as *const u8
    }
    fn mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }
    fn get(&self, i: usize) -> Value {
        assert!(i < self.len);
        with_dtype!(self.dtype, T => {
            // SAFETY: i < len, buffer holds len elements of T, aligned.
            let x: T = unsafe { (self.ptr() as *const T).add(i).read() };
            x.to_value()
        })
    }
    fn set(&mut self, i: usize, v: Value) {
        assert!(i < self.len);
        with_dtype!(self.dtype, T => {
            // SAFETY: as in get.
            unsafe { (self.mut_ptr() as *mut T).add(i).write(T::from_value(v)) }
        })
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: the words are initialised plain data.
        unsafe { std::slice::from_raw_parts(self.ptr(), self.len * self.dtype.size()) }
    }
}

/// A view: shape (already broadcast to the loop's), element strides, element offset.
#[derive(Clone, Debug)]
struct View {
    strides: Vec<isize>,
    offset: usize,
}

impl View {
    fn index(&self, shape: &[usize], linear: usize) -> usize {
        let mut rem = linear;
        let mut off = self.offset as isize;
        for d in (0..shape.len()).rev() {
            off += (rem % shape[d]) as isize * self.strides[d];
            rem /= shape[d];
        }
        off as usize
    }
    fn byte_strides(&self, dtype: DType) -> Vec<isize> {
        self.strides
            .iter()
            .map(|s| s * dtype.size() as isize)
            .collect()
    }
}

/// A random input view over `shape`: a permuted dense buffer, some dims broadcast (stride 0),
/// some flipped (negative stride), at a random offset. Returns (buffer length, view).
fn random_input_view(shape: &[usize], rng: &mut Rng) -> (usize, View) {
    let nd = shape.len();
    // Dense strides in a random dim order; broadcast dims take no room.
    let mut order: Vec<usize> = (0..nd).collect();
    for i in (1..nd).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let bcast: Vec<bool> = (0..nd).map(|_| rng.below(4) == 0).collect();
    let mut strides = vec![0isize; nd];
    let mut acc = 1isize;
    for &d in order.iter().rev() {
        if !bcast[d] {
            strides[d] = acc;
            acc *= shape[d] as isize;
        }
    }
    // Flip some dims: start at their far end.
    let mut offset = rng.below(5) as isize;
    for d in 0..nd {
        if !bcast[d] && shape[d] > 1 && rng.below(3) == 0 {
            offset += (shape[d] as isize - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    let len = (offset + acc + 3) as usize;
    (
        len,
        View {
            strides,
            offset: offset as usize,
        },
    )
}

/// The output view: a dense permutation of the loop (no self-overlap), maybe flipped.
fn random_output_view(shape: &[usize], rng: &mut Rng) -> (usize, View) {
    let nd = shape.len();
    let mut order: Vec<usize> = (0..nd).collect();
    if rng.below(2) == 0 {
        for i in (1..nd).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    let mut strides = vec![0isize; nd];
    let mut acc = 1isize;
    for &d in order.iter().rev() {
        strides[d] = acc;
        acc *= shape[d] as isize;
    }
    let mut offset = rng.below(3) as isize;
    for d in 0..nd {
        if shape[d] > 1 && rng.below(4) == 0 {
            offset += (shape[d] as isize - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    (
        (offset + acc) as usize,
        View {
            strides,
            offset: offset as usize,
        },
    )
}

fn random_shape(rng: &mut Rng) -> Vec<usize> {
    let nd = rng.below(6) as usize;
    (0..nd).map(|_| 1 + rng.below(5) as usize).collect()
}

const GRIDS: [u64; 4] = [1, 3, 32, 1000];

/// Runs the strided per-thread body on every thread of a `nthreads` grid.
fn emulate<I: IndexInt>(nthreads: u64, l: &ElementLayout<I>, mut body: impl FnMut(I)) {
    for tid in 0..nthreads {
        grid_stride(tid, nthreads, l.numel, &mut body);
    }
}

/// Reference: compute every output element by the definition, in `Value`s converted to the
/// kernel's static types and back (what the casting kernels do).
fn reference(
    shape: &[usize],
    out: &mut Buf,
    out_view: &View,
    ins: &[(&Buf, &View)],
    f: impl Fn(&[Value]) -> Value,
) {
    let numel: usize = shape.iter().product();
    for i in 0..numel {
        let args: Vec<Value> = ins.iter().map(|(b, v)| b.get(v.index(shape, i))).collect();
        out.set(out_view.index(shape, i), f(&args));
    }
}

fn conv<T: Element>(v: Value) -> T {
    T::from_value(v)
}

/// Random binary launches of `F` computing in `(A, A)`, operands of dtypes `da`, `db`, `dout`
/// (CAST when any differs from the static types), on both index widths.
fn run_binary_case<F, A>(f: F, da: DType, db: DType, dout: DType, rng: &mut Rng)
where
    F: Functor<(A, A)>,
    F::Output: Element,
    A: Element,
{
    let cast = da != A::DTYPE || db != A::DTYPE || dout != <F::Output>::DTYPE;
    let shape = random_shape(rng);
    let (la, va) = random_input_view(&shape, rng);
    let (lb, vb) = random_input_view(&shape, rng);
    let (lo, vo) = random_output_view(&shape, rng);
    let a = Buf::random(da, la, rng);
    let b = Buf::random(db, lb, rng);
    let mut want = Buf::new(dout, lo);
    reference(&shape, &mut want, &vo, &[(&a, &va), (&b, &vb)], |x| {
        f.call((conv::<A>(x[0]), conv::<A>(x[1]))).to_value()
    });
    let (sa, sb, so) = (
        va.byte_strides(da),
        vb.byte_strides(db),
        vo.byte_strides(dout),
    );
    let refs: [&[isize]; 3] = [&so, &sa, &sb];
    let dts = [dout, da, db];
    for (w, &nt) in GRIDS.iter().enumerate() {
        let mut out = Buf::new(dout, lo);
        let po = out.mut_ptr().wrapping_add(vo.offset * dout.size());
        let pa = a.ptr().wrapping_add(va.offset * da.size());
        let pb = b.ptr().wrapping_add(vb.offset * db.size());
        // SAFETY (all calls): the layouts describe views that lie inside the buffers.
        if w % 2 == 0 {
            let l = Layout32::new(&shape, &refs, &dts).unwrap();
            if cast {
                emulate(nt, &l, |i| unsafe {
                    binary_at::<F, A, A, u32>(&f, &l, po, pa, pb, i)
                });
            } else {
                emulate(nt, &l, |i| unsafe {
                    binary_at::<F, A, A, u32>(&f, &l, po, pa, pb, i)
                });
            }
        } else {
            let l = Layout64::new(&shape, &refs, &dts).unwrap();
            if cast {
                emulate(nt, &l, |i| unsafe {
                    binary_at::<F, A, A, u64>(&f, &l, po, pa, pb, i)
                });
            } else {
                emulate(nt, &l, |i| unsafe {
                    binary_at::<F, A, A, u64>(&f, &l, po, pa, pb, i)
                });
            }
        }
        assert_eq!(
            out.bytes(),
            want.bytes(),
            "{}: shape {shape:?} a {va:?} b {vb:?} out {vo:?} grid {nt}",
            std::any::type_name::<A>()
        );
    }
}

#[test]
fn binary_strided_same_dtypes() {
    let mut rng = Rng(1);
    for _ in 0..60 {
        run_binary_case::<_, f32>(PAdd, DType::F32, DType::F32, DType::F32, &mut rng);
        run_binary_case::<_, f64>(PAdd, DType::F64, DType::F64, DType::F64, &mut rng);
        run_binary_case::<_, i64>(PAdd, DType::I64, DType::I64, DType::I64, &mut rng);
        run_binary_case::<_, u8>(PAdd, DType::U8, DType::U8, DType::U8, &mut rng);
        run_binary_case::<_, i16>(PAdd, DType::I16, DType::I16, DType::I16, &mut rng);
        run_binary_case::<_, f16>(PAdd, DType::F16, DType::F16, DType::F16, &mut rng);
        run_binary_case::<_, bf16>(PAdd, DType::BF16, DType::BF16, DType::BF16, &mut rng);
        run_binary_case::<_, bool>(PAdd, DType::Bool, DType::Bool, DType::Bool, &mut rng);
    }
}

#[test]
fn binary_strided_mixed_dtypes_cast_while_loading() {
    let mut rng = Rng(2);
    for _ in 0..40 {
        // int64 + float32 -> float32 (the promoted type computes; inputs cast on load)
        run_binary_case::<_, f32>(PAdd, DType::I64, DType::F32, DType::F32, &mut rng);
        // float16 + float32 computed in f32, written to f64 (cast on store)
        run_binary_case::<_, f32>(PAdd, DType::F16, DType::F32, DType::F64, &mut rng);
        // bool + uint8 -> int16 in i16
        run_binary_case::<_, i16>(PAdd, DType::Bool, DType::U8, DType::I16, &mut rng);
        // bf16 + int32 computed in f64, stored as bf16
        run_binary_case::<_, f64>(PAdd, DType::BF16, DType::I32, DType::BF16, &mut rng);
        // float64 -> int8 saturating conversions on load
        run_binary_case::<_, i8>(PAdd, DType::F64, DType::I8, DType::I8, &mut rng);
    }
}

fn run_unary_case<F, A>(f: F, da: DType, dout: DType, rng: &mut Rng)
where
    F: Functor<(A,)>,
    F::Output: Element,
    A: Element,
{
    let cast = da != A::DTYPE || dout != <F::Output>::DTYPE;
    let shape = random_shape(rng);
    let (la, va) = random_input_view(&shape, rng);
    let (lo, vo) = random_output_view(&shape, rng);
    let a = Buf::random(da, la, rng);
    let mut want = Buf::new(dout, lo);
    reference(&shape, &mut want, &vo, &[(&a, &va)], |x| {
        f.call((conv::<A>(x[0]),)).to_value()
    });
    let (sa, so) = (va.byte_strides(da), vo.byte_strides(dout));
    let refs: [&[isize]; 2] = [&so, &sa];
    let dts = [dout, da];
    for (w, &nt) in GRIDS.iter().enumerate() {
        let mut out = Buf::new(dout, lo);
        let po = out.mut_ptr().wrapping_add(vo.offset * dout.size());
        let pa = a.ptr().wrapping_add(va.offset * da.size());
        // SAFETY (all calls): the layouts describe views inside the buffers.
        match (w % 2 == 0, cast) {
            (true, false) => {
                let l = Layout32::new(&shape, &refs, &dts).unwrap();
                emulate(nt, &l, |i| unsafe {
                    unary_at::<F, A, u32>(&f, &l, po, pa, i)
                });
            }
            (true, true) => {
                let l = Layout32::new(&shape, &refs, &dts).unwrap();
                emulate(nt, &l, |i| unsafe {
                    unary_at::<F, A, u32>(&f, &l, po, pa, i)
                });
            }
            (false, false) => {
                let l = Layout64::new(&shape, &refs, &dts).unwrap();
                emulate(nt, &l, |i| unsafe {
                    unary_at::<F, A, u64>(&f, &l, po, pa, i)
                });
            }
            (false, true) => {
                let l = Layout64::new(&shape, &refs, &dts).unwrap();
                emulate(nt, &l, |i| unsafe {
                    unary_at::<F, A, u64>(&f, &l, po, pa, i)
                });
            }
        }
        assert_eq!(
            out.bytes(),
            want.bytes(),
            "shape {shape:?} a {va:?} out {vo:?} grid {nt}"
        );
    }
}

#[test]
fn unary_strided_and_scalar_functors() {
    let mut rng = Rng(3);
    for _ in 0..50 {
        run_unary_case::<_, f32>(PExp, DType::F32, DType::F32, &mut rng);
        run_unary_case::<_, bf16>(PExp, DType::BF16, DType::BF16, &mut rng);
        run_unary_case::<_, i32>(PNeg, DType::I32, DType::I32, &mut rng);
        run_unary_case::<_, f64>(PNeg, DType::I64, DType::F32, &mut rng);
        // A scalar captured in the functor value (what add_scalar_* kernels take as argument).
        run_unary_case::<_, f32>(
            WithScalar {
                f: PAdd,
                rhs: 0.1f32,
            },
            DType::F32,
            DType::F32,
            &mut rng,
        );
        run_unary_case::<_, f32>(
            WithScalar {
                f: PAdd,
                rhs: -3.5f32,
            },
            DType::I64,
            DType::F32,
            &mut rng,
        );
        run_unary_case::<_, i64>(
            WithScalar {
                f: PAdd,
                rhs: i64::MAX,
            },
            DType::I64,
            DType::I64,
            &mut rng,
        );
    }
}

#[test]
fn ternary_where_strided() {
    let mut rng = Rng(4);
    for _ in 0..60 {
        let shape = random_shape(&mut rng);
        let mixed = rng.below(2) == 0;
        let (dc, da, db, dout) = if mixed {
            (DType::U8, DType::I32, DType::F16, DType::F64)
        } else {
            (DType::Bool, DType::F32, DType::F32, DType::F32)
        };
        let (lc, vc) = random_input_view(&shape, &mut rng);
        let (la, va) = random_input_view(&shape, &mut rng);
        let (lb, vb) = random_input_view(&shape, &mut rng);
        let (lo, vo) = random_output_view(&shape, &mut rng);
        let c = Buf::random(dc, lc, &mut rng);
        let a = Buf::random(da, la, &mut rng);
        let b = Buf::random(db, lb, &mut rng);
        let mut want = Buf::new(dout, lo);
        reference(
            &shape,
            &mut want,
            &vo,
            &[(&c, &vc), (&a, &va), (&b, &vb)],
            |x| {
                PWhere
                    .call((conv::<bool>(x[0]), conv::<f32>(x[1]), conv::<f32>(x[2])))
                    .to_value()
            },
        );
        let (sc, sa, sb, so) = (
            vc.byte_strides(dc),
            va.byte_strides(da),
            vb.byte_strides(db),
            vo.byte_strides(dout),
        );
        let refs: [&[isize]; 4] = [&so, &sc, &sa, &sb];
        let dts = [dout, dc, da, db];
        for &nt in &GRIDS {
            let mut out = Buf::new(dout, lo);
            let po = out.mut_ptr().wrapping_add(vo.offset * dout.size());
            let pc = c.ptr().wrapping_add(vc.offset * dc.size());
            let pa = a.ptr().wrapping_add(va.offset * da.size());
            let pb = b.ptr().wrapping_add(vb.offset * db.size());
            let l = Layout64::new(&shape, &refs, &dts).unwrap();
            // SAFETY: views inside the buffers.
            if mixed {
                emulate(nt, &l, |i| unsafe {
                    ternary_at::<PWhere, bool, f32, f32, u64>(&PWhere, &l, po, pc, pa, pb, i)
                });
            } else {
                emulate(nt, &l, |i| unsafe {
                    ternary_at::<PWhere, bool, f32, f32, u64>(&PWhere, &l, po, pc, pa, pb, i)
                });
            }
            assert_eq!(out.bytes(), want.bytes(), "shape {shape:?} grid {nt}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The contiguous (16-byte vector) path

fn contig_binary<F, A>(f: F, rng: &mut Rng)
where
    F: Functor<(A, A)>,
    F::Output: Element,
    A: Element,
{
    let (da, dout) = (A::DTYPE, <F::Output>::DTYPE);
    for n in (0..70).chain([255, 256, 257, 1000]) {
        let a = Buf::random(da, n, rng);
        let b = Buf::random(da, n, rng);
        let mut want = Buf::new(dout, n);
        for i in 0..n {
            want.set(
                i,
                f.call((conv::<A>(a.get(i)), conv::<A>(b.get(i))))
                    .to_value(),
            );
        }
        let sizes = [dout.size(), da.size(), da.size()];
        for &nt in &GRIDS {
            let mut out = Buf::new(dout, n);
            let ptrs = [
                (out.mut_ptr() as usize, dout.size()),
                (a.ptr() as usize, da.size()),
                (b.ptr() as usize, da.size()),
            ];
            assert!(contiguous_aligned(&ptrs));
            let chunks = contiguous_chunks(n as u64, &sizes);
            let po = out.mut_ptr();
            for tid in 0..nt.min(chunks.max(1)) {
                // SAFETY: dense, 16-byte aligned buffers of n elements.
                unsafe {
                    binary_contig::<F, A, A>(
                        tid,
                        nt.min(chunks.max(1)),
                        n as u64,
                        &f,
                        po,
                        a.ptr(),
                        b.ptr(),
                    )
                };
            }
            assert_eq!(
                out.bytes(),
                want.bytes(),
                "{} n={n} grid {nt}",
                std::any::type_name::<A>()
            );
        }
    }
}

#[test]
fn contiguous_vector_path_binary() {
    let mut rng = Rng(5);
    contig_binary::<_, f32>(PAdd, &mut rng);
    contig_binary::<_, f64>(PAdd, &mut rng);
    contig_binary::<_, f16>(PAdd, &mut rng);
    contig_binary::<_, bf16>(PAdd, &mut rng);
    contig_binary::<_, u8>(PAdd, &mut rng);
    contig_binary::<_, i16>(PAdd, &mut rng);
    contig_binary::<_, i64>(PAdd, &mut rng);
    contig_binary::<_, bool>(PAdd, &mut rng);
}

#[test]
fn contiguous_vector_path_unary_and_ternary() {
    let mut rng = Rng(6);
    for n in (0..40).chain([511, 512, 513]) {
        // unary exp(f32) and a scalar functor on u8
        let a = Buf::random(DType::F32, n, &mut rng);
        let mut want = Buf::new(DType::F32, n);
        for i in 0..n {
            want.set(i, PExp.call((conv::<f32>(a.get(i)),)).to_value());
        }
        let mut out = Buf::new(DType::F32, n);
        let po = out.mut_ptr();
        for tid in 0..3 {
            // SAFETY: dense aligned buffers of n elements.
            unsafe { unary_contig::<PExp, f32>(tid, 3, n as u64, &PExp, po, a.ptr()) };
        }
        assert_eq!(out.bytes(), want.bytes(), "exp n={n}");

        let s = WithScalar {
            f: PAdd,
            rhs: 200u8,
        };
        let a = Buf::random(DType::U8, n, &mut rng);
        let mut want = Buf::new(DType::U8, n);
        for i in 0..n {
            want.set(i, s.call((conv::<u8>(a.get(i)),)).to_value());
        }
        let mut out = Buf::new(DType::U8, n);
        let po = out.mut_ptr();
        for tid in 0..2 {
            // SAFETY: as above.
            unsafe { unary_contig::<_, u8>(tid, 2, n as u64, &s, po, a.ptr()) };
        }
        assert_eq!(out.bytes(), want.bytes(), "add_scalar u8 n={n}");

        // where(bool, f64, f64): 1-byte and 8-byte operands in one chunk
        let c = Buf::random(DType::Bool, n, &mut rng);
        let x = Buf::random(DType::F64, n, &mut rng);
        let y = Buf::random(DType::F64, n, &mut rng);
        let mut want = Buf::new(DType::F64, n);
        for i in 0..n {
            let v = PWhere.call((
                conv::<bool>(c.get(i)),
                conv::<f64>(x.get(i)),
                conv::<f64>(y.get(i)),
            ));
            want.set(i, v.to_value());
        }
        let mut out = Buf::new(DType::F64, n);
        let po = out.mut_ptr();
        for tid in 0..5 {
            // SAFETY: as above.
            unsafe {
                ternary_contig::<PWhere, bool, f64, f64>(
                    tid,
                    5,
                    n as u64,
                    &PWhere,
                    po,
                    c.ptr(),
                    x.ptr(),
                    y.ptr(),
                )
            };
        }
        assert_eq!(out.bytes(), want.bytes(), "where n={n}");
    }
}

#[test]
fn contiguous_alignment_rule() {
    // f32: 4 per thread, so each base must be 16-byte aligned; u8 + f64: 2 per thread.
    assert!(contiguous_aligned(&[(64, 4), (128, 4)]));
    assert!(!contiguous_aligned(&[(64, 4), (132, 4)]));
    assert!(contiguous_aligned(&[(2, 1), (16, 8)]));
    assert!(!contiguous_aligned(&[(1, 1), (16, 8)]));
    assert_eq!(contiguous_chunks(10, &[4, 4, 4]), 3);
    assert_eq!(contiguous_chunks(10, &[1, 8]), 5);
}

#[test]
fn cast_loads_follow_convert_value() {
    // load_cast/store_cast are convert_value for every (source, target) pair.
    let samples = [
        Value::Bool(true),
        Value::Int(-3),
        Value::Int(300),
        Value::F64(-2.75),
        Value::F64(1e10),
    ];
    for &src in &DType::ALL {
        for &v in &samples {
            let mut b = Buf::new(src, 1);
            b.set(0, v);
            let stored = b.get(0);
            with_dtype!(src, S => {
                let s: S = S::from_value(stored);
                // SAFETY: b holds one element of dtype src.
                let got: f64 = unsafe { weft::device::layout::load_cast::<f64>(b.ptr(), src as u8) };
                assert_eq!(got.to_bits(), convert_value::<S, f64>(s).to_bits(), "{src}");
                let got: i16 = unsafe { weft::device::layout::load_cast::<i16>(b.ptr(), src as u8) };
                assert_eq!(got, convert_value::<S, i16>(s), "{src}");
                let mut o = Buf::new(src, 1);
                // SAFETY: o holds one element of dtype src.
                unsafe { weft::device::layout::store_cast::<f32>(o.mut_ptr(), -7.5f32, src as u8) };
                assert_eq!(o.get(0), convert_value::<f32, S>(-7.5).to_value(), "{src}");
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The real kernels: the entry points of `gpu/kernels` for a representative set of ops of
// `gpu_kernel_list!` (the same functor types and argument tuples, read from the list itself),
// launched the way `CudaContext::launch` does (same contiguous/strided choice, functor passed as
// bytes, 32-bit layout when it fits, 64-bit forced too) on random views, and compared bit for
// bit with the CPU ops layer (`weft::ops`, the `DynTensor` ops).

use std::collections::HashMap;
use std::sync::LazyLock;
use weft::device::elementwise_plan::{self, DeviceOperand};
use weft::device::kernel_list::{KERNEL_NAMES, kernel_suffix};
use weft::device::layout::{
    Outlined, StridedLayout, binary_strided, ternary_strided, unary_strided,
};
use weft::functors::{self as fx, BinaryOp, GeluApproximate, UnaryOp};
use weft::ops::Operand;
use weft::{DynTensor, Scalar};

type ContigFn = unsafe fn(u64, u64, u64, *const u8, *mut u8, &[*const u8]);
type StridedFn = unsafe fn(u64, u64, &StridedLayout, *const u8, *mut u8, &[*const u8]);

/// One (op, type) of the list: its two entry points, taking the functor as the bytes the host
/// pushes as the kernel argument.
struct EmuKernel {
    fsize: usize,
    contig: ContigFn,
    strided: StridedFn,
}

/// Reads the functor argument as the kernel does (its bytes, copied by the driver) and wraps it
/// in `Outlined` (one shared non-inlined call, as the expensive kernels do; same results).
///
/// # Safety
/// `f` points at a value of `F` (possibly unaligned).
unsafe fn functor_arg<F: Copy>(f: *const u8) -> Outlined<F, true> {
    // SAFETY: caller.
    Outlined(unsafe { f.cast::<F>().read_unaligned() })
}

macro_rules! emu_arity {
    ($ctor:ident, $contig:ident, $strided:ident, ($($A:ident $k:tt),+)) => {
        impl EmuKernel {
            fn $ctor<F, $($A),+>() -> EmuKernel
            where
                F: Functor<($($A,)+)> + Copy,
                F::Output: Element,
                $($A: Element),+
            {
                unsafe fn c<F, $($A),+>(tid: u64, nt: u64, n: u64, f: *const u8, out: *mut u8, ins: &[*const u8])
                where F: Functor<($($A,)+)> + Copy, F::Output: Element, $($A: Element),+
                {
                    // SAFETY: caller (the emulated launch) passes dense aligned buffers.
                    unsafe {
                        let f = functor_arg::<F>(f);
                        weft::device::layout::$contig::<_, $($A),+>(tid, nt, n, &f, out, $(ins[$k]),+)
                    }
                }
                unsafe fn s<F, $($A),+>(tid: u64, nt: u64, l: &StridedLayout, f: *const u8, out: *mut u8, ins: &[*const u8])
                where F: Functor<($($A,)+)> + Copy, F::Output: Element, $($A: Element),+
                {
                    // SAFETY: caller: the layout describes the buffers.
                    unsafe {
                        let f = functor_arg::<F>(f);
                        $strided::<_, $($A),+>(tid, nt, l, &f, out, $(ins[$k]),+)
                    }
                }
                EmuKernel { fsize: size_of::<F>(), contig: c::<F, $($A),+>, strided: s::<F, $($A),+> }
            }
        }
    };
}
emu_arity!(unary, unary_contig, unary_strided, (A 0));
emu_arity!(binary, binary_contig, binary_strided, (A 0, B 1));
emu_arity!(ternary, ternary_contig, ternary_strided, (A 0, B 1, C 2));

/// The emulated kernels, keyed `{op}_{t}`: the ops below, every type the list gives them.
static KERNELS: LazyLock<HashMap<String, EmuKernel>> = LazyLock::new(|| {
    let mut m: HashMap<String, EmuKernel> = HashMap::new();
    let mut reg = |name: &str, k: EmuKernel| {
        assert!(
            KERNEL_NAMES.contains(&format!("{name}_c").as_str()),
            "{name}"
        );
        assert!(
            KERNEL_NAMES.contains(&format!("{name}_s").as_str()),
            "{name}"
        );
        m.insert(name.to_string(), k);
    };
    macro_rules! selected {
        ($n:expr, $body:tt) => {
            selected!(@ $n, $body, "add" "sub" "mul" "div" "floor_divide" "remainder" "fmod"
                "pow" "atan2" "maximum" "minimum" "eq" "lt" "logical_and" "bitwise_and"
                "bitwise_left_shift" "copysign" "mul_scalar_opmath" "div_scalar_opmath"
                "floor_divide_scalar_opmath" "pow_scalar" "neg" "abs" "sign" "exp" "log1p"
                "sigmoid" "gelu" "round" "isnan" "logical_not" "clamp" "leaky_relu" "hardtanh"
                "where" "masked_fill" "lerp" "lerp_scalar" "addcmul" "copy"
                "xlogy" "nextafter" "gcd" "heaviside" "signbit" "erf" "hardswish" "softsign"
                "softmax_apply")
        };
        (@ $n:expr, {$($b:tt)*}, ) => {};
        (@ $n:expr, {$($b:tt)*}, $first:tt $($more:tt)*) => {
            if $n == $first { $($b)* }
            selected!(@ $n, {$($b)*}, $($more)*);
        };
    }
    macro_rules! kernel {
        (($A:ty), $F:path) => {
            EmuKernel::unary::<$F, $A>()
        };
        (($A:ty, $B:ty), $F:path) => {
            EmuKernel::binary::<$F, $A, $B>()
        };
        (($A:ty, $B:ty, $C:ty), $F:path) => {
            EmuKernel::ternary::<$F, $A, $B, $C>()
        };
    }
    macro_rules! entries {
        () => {};
        ($n:ident ($A:ty, $B:ty) => $F:path, scalar: [$($t:ident),*]; $($rest:tt)*) => {
            selected!(stringify!($n), {$({
                #[allow(dead_code)]
                type T = $t;
                reg(concat!(stringify!($n), "_", stringify!($t)), EmuKernel::binary::<$F, $A, $B>());
                reg(concat!(stringify!($n), "_scalar_", stringify!($t)), EmuKernel::unary::<WithScalar<$F, $B>, $A>());
            })*});
            entries!($($rest)*);
        };
        ($n:ident $args:tt => $F:path: [$($t:ident),*]; $($rest:tt)*) => {
            selected!(stringify!($n), {$({
                #[allow(dead_code)]
                type T = $t;
                reg(concat!(stringify!($n), "_", stringify!($t)), kernel!($args, $F));
            })*});
            entries!($($rest)*);
        };
    }
    weft::gpu_kernel_list!(entries);
    m
});

fn tensor_bytes(t: &DynTensor) -> Vec<u8> {
    let t = t.contiguous();
    // SAFETY: a contiguous tensor's numel elements start at its data pointer.
    unsafe { std::slice::from_raw_parts(t.data_ptr_bytes(), t.numel() * t.dtype().size()) }.to_vec()
}

fn bcast_shape(shapes: &[&[usize]]) -> Vec<usize> {
    let nd = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; nd];
    for s in shapes {
        for (i, &n) in s.iter().enumerate() {
            let d = nd - s.len() + i;
            if out[d] == 1 {
                out[d] = n;
            } else {
                assert!(n == 1 || n == out[d], "shapes {shapes:?}");
            }
        }
    }
    out
}

/// The device result `got` equals the CPU's `want`: shape, dtype and bytes.
fn assert_same(what: &str, got: &DynTensor, want: &DynTensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert!(tensor_bytes(got) == tensor_bytes(want), "{what}: values");
}

/// Kernel `{op}_{kt}` with functor value `f`, output dtype `out_dtype`, kernel input types
/// `types[1..]`, run on the host: `_c` when the device would (same dtypes, dense, aligned),
/// and `_s` with the host's layout and with a forced 64-bit one, each over every thread of
/// several grids. Every run must give the same bytes; the output is returned.
#[allow(clippy::too_many_arguments)]
fn emu_run<F: Copy>(
    op: &str,
    kt: DType,
    f: F,
    types: &[DType],
    out_dtype: DType,
    inputs: &[&DynTensor],
    also: Option<&[usize]>,
) -> DynTensor {
    let name = format!("{op}_{}", kernel_suffix(kt));
    let k = KERNELS
        .get(&name)
        .unwrap_or_else(|| panic!("{name} is not emulated"));
    assert_eq!(size_of::<F>(), k.fsize, "{name}: functor argument size");
    let mut shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
    if let Some(s) = also {
        shapes.push(s);
    }
    let shape = bcast_shape(&shapes);
    let fresh = || DynTensor::zeros(out_dtype, &shape).unwrap();
    let numel: usize = shape.iter().product();
    if numel == 0 {
        return fresh();
    }
    let ctx = |what: &str| {
        format!(
            "{name} {what}: inputs {:?}",
            inputs
                .iter()
                .map(|t| (
                    t.dtype(),
                    t.shape().to_vec(),
                    t.strides().to_vec(),
                    t.offset()
                ))
                .collect::<Vec<_>>()
        )
    };
    let byte_strides = |t: &DynTensor| -> Vec<isize> {
        let (s, st) = (t.shape(), t.strides());
        let lead = shape.len() - s.len();
        (0..shape.len())
            .map(|d| {
                if d < lead || s[d - lead] == 1 {
                    0
                } else {
                    st[d - lead] * t.dtype().size() as isize
                }
            })
            .collect()
    };
    let out_strides = byte_strides(&fresh());
    let mut strides = vec![out_strides];
    strides.extend(inputs.iter().map(|t| byte_strides(t)));
    let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
    let mut dtypes = vec![out_dtype];
    dtypes.extend(inputs.iter().map(|t| t.dtype()));
    let ins: Vec<*const u8> = inputs
        .iter()
        .map(|t| t.data_ptr_bytes() as *const u8)
        .collect();
    let fp = (&f as *const F).cast::<u8>();

    // The strided kernel with the host's layout over the first grid is the result; every other
    // path and grid must agree with it.
    let host = StridedLayout::new(&shape, &refs, &dtypes).unwrap();
    let mut layouts = vec![host];
    if !host.is_wide() {
        layouts.push(StridedLayout {
            l32: Layout32::empty(),
            l64: Layout64::new(&shape, &refs, &dtypes).unwrap(),
            wide: 1,
        });
    }
    let mut result: Option<(DynTensor, Vec<u8>)> = None;
    let mut check = |out: DynTensor, what: String| match &result {
        None => {
            let bytes = tensor_bytes(&out);
            result = Some((out, bytes));
        }
        Some((_, want)) => assert!(tensor_bytes(&out) == *want, "{}", ctx(&what)),
    };
    for l in &layouts {
        for &nt in &GRIDS {
            let out = fresh();
            for tid in 0..nt {
                // SAFETY: the layout describes the views, which lie inside their buffers.
                unsafe { (k.strided)(tid, nt, l, fp, out.data_ptr_bytes(), &ins) };
            }
            check(out, format!("_s wide={} grid {nt}", l.wide));
        }
    }
    let same = dtypes == types;
    let dense = inputs
        .iter()
        .all(|t| t.shape() == shape.as_slice() && t.is_contiguous());
    let probe = fresh();
    let mut ptrs = vec![(probe.data_ptr_bytes() as usize, out_dtype.size())];
    ptrs.extend(
        ins.iter()
            .zip(&types[1..])
            .map(|(&p, d)| (p as usize, d.size())),
    );
    if same && dense && contiguous_aligned(&ptrs) {
        let sizes: Vec<usize> = types.iter().map(|d| d.size()).collect();
        let chunks = contiguous_chunks(numel as u64, &sizes);
        for &nt in &GRIDS {
            let out = fresh();
            ptrs[0].0 = out.data_ptr_bytes() as usize;
            if !contiguous_aligned(&ptrs) {
                continue;
            }
            let nt = nt.min(chunks);
            for tid in 0..nt {
                // SAFETY: dense buffers of numel elements of the kernel's types, aligned.
                unsafe { (k.contig)(tid, nt, numel as u64, fp, out.data_ptr_bytes(), &ins) };
            }
            check(out, format!("_c grid {nt}"));
        }
    }
    result.expect("at least one launch").0
}

// ----- random views

fn random_value(dtype: DType, rng: &mut Rng) -> Value {
    let r = rng.next();
    match dtype {
        DType::Bool => Value::Bool(r & 1 == 1),
        d if d.is_float() => Value::F64(match r % 16 {
            0 => [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -0.0,
                0.0,
                1e300,
                -7e-310,
                65504.0,
            ][(r >> 8) as usize % 8],
            1 => ((r >> 8) % 41) as f64 - 20.0,
            _ => (((r >> 8) % 40001) as f64 - 20000.0) / 128.0,
        }),
        _ => Value::Int(match r % 4 {
            0 => r as i64,
            _ => ((r >> 8) % 41) as i64 - 20,
        }),
    }
}

/// A tensor of logical `shape`: a random permutation of a padded buffer, narrowed (an offset),
/// maybe reversed along a dim (negative stride), with some size-1 dims expanded (broadcast).
fn random_tensor(dtype: DType, shape: &[usize], rng: &mut Rng) -> DynTensor {
    let nd = shape.len();
    let bcast: Vec<bool> = (0..nd).map(|d| shape[d] > 1 && rng.below(5) == 0).collect();
    let mut perm: Vec<usize> = (0..nd).collect();
    if rng.below(2) == 0 {
        for i in (1..nd).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    let pads: Vec<usize> = (0..nd).map(|_| rng.below(2) as usize).collect();
    let base_shape: Vec<usize> = perm
        .iter()
        .map(|&d| if bcast[d] { 1 } else { shape[d] } + pads[d])
        .collect();
    let n: usize = base_shape.iter().product();
    let vals: Vec<Value> = (0..n).map(|_| random_value(dtype, rng)).collect();
    let mut t = with_dtype!(dtype, T => DynTensor::from_vec::<T>(vals.iter().map(|&v| T::from_value(v)).collect(), &base_shape).unwrap());
    for (i, &d) in perm.iter().enumerate() {
        let len = if bcast[d] { 1 } else { shape[d] };
        t = t.narrow(i as isize, pads[d] as isize, len);
    }
    let mut inv = vec![0isize; nd];
    for (i, &d) in perm.iter().enumerate() {
        inv[d] = i as isize;
    }
    t = t.permute(&inv);
    for d in 0..nd {
        if !bcast[d] && shape[d] > 1 && rng.below(4) == 0 {
            t = t.slice(d as isize, None, None, -1);
        }
    }
    if bcast.iter().any(|&b| b) {
        let s: Vec<isize> = shape.iter().map(|&n| n as isize).collect();
        t = t.expand(&s);
    }
    assert_eq!(t.shape(), shape);
    t
}

/// A contiguous tensor (the `_c` path) or a random view, with a shape that broadcasts to `shape`.
fn operand(dtype: DType, shape: &[usize], rng: &mut Rng) -> DynTensor {
    let mut s = shape.to_vec();
    match rng.below(4) {
        0 => return random_tensor(dtype, &s, rng).contiguous(),
        1 if !s.is_empty() => {
            // broadcast by rank and by size-1 dims (right-aligned)
            let drop = rng.below(s.len() as u64 + 1) as usize;
            s.drain(..drop);
            for n in s.iter_mut() {
                if rng.below(3) == 0 {
                    *n = 1;
                }
            }
        }
        _ => {}
    }
    random_tensor(dtype, &s, rng)
}

fn random_loop_shape(rng: &mut Rng) -> Vec<usize> {
    let nd = rng.below(5) as usize;
    (0..nd).map(|_| 1 + rng.below(6) as usize).collect()
}

// ----- the device ops' launch decisions: the real planner (`weft::device::elementwise_plan`,
// the code `CudaTensor`'s methods run) over the emulated launcher (`Emu::launch`)

/// The host backend of the elementwise device ops (its launches run every path and grid).
const EMU: Emu = Emu { grid: 0 };

fn dev(o: Operand) -> DeviceOperand<DynTensor> {
    match o {
        Operand::Tensor(t) => DeviceOperand::Tensor(t),
        Operand::Scalar(s) => DeviceOperand::Scalar(s),
    }
}

/// The device result equals the CPU's (`Ok` both, same bytes) or both refuse the op.
fn agree(what: &str, device: weft::Result<DynTensor>, cpu: weft::Result<DynTensor>) -> bool {
    match (device, cpu) {
        (Ok(got), Ok(want)) => {
            assert_same(what, &got, &want);
            true
        }
        (Err(_), Err(_)) => false,
        (got, want) => panic!(
            "{what}: device {:?}, CPU {:?}",
            got.map(|t| t.shape().to_vec()),
            want.map(|t| t.shape().to_vec())
        ),
    }
}

/// `op(a, b)` as `device::ops::binary` launches it against the CPU op; whether it ran.
fn emu_binary(op: BinaryOp, a: &DynTensor, b: Operand) -> bool {
    let cpu = weft::ops::binary::binary(op, Operand::Tensor(a), b, None);
    let device = elementwise_plan::binary(&EMU, op, DeviceOperand::Tensor(a), dev(b));
    agree(op.name(), device, cpu)
}

const ALL: [DType; DType::COUNT] = DType::ALL;

fn pick(rng: &mut Rng, from: &[DType]) -> DType {
    from[rng.below(from.len() as u64) as usize]
}

#[test]
fn real_binary_kernels_match_cpu_ops() {
    let ops = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::FloorDivide,
        BinaryOp::Remainder,
        BinaryOp::Fmod,
        BinaryOp::Pow,
        BinaryOp::Atan2,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Eq,
        BinaryOp::Lt,
        BinaryOp::LogicalAnd,
        BinaryOp::BitwiseAnd,
        BinaryOp::BitwiseLeftShift,
        BinaryOp::Copysign,
        BinaryOp::Xlogy,
        BinaryOp::Nextafter,
        BinaryOp::Gcd,
        BinaryOp::Heaviside,
    ];
    let mut rng = Rng(11);
    let (mut ran, mut refused) = (0, 0);
    for round in 0..12 {
        for &op in &ops {
            let shape = random_loop_shape(&mut rng);
            // Same dtype half the time (the `_c` path and the plain kernels), else mixed.
            let da = pick(&mut rng, &ALL);
            let db = if round % 2 == 0 {
                da
            } else {
                pick(&mut rng, &ALL)
            };
            let a = operand(da, &shape, &mut rng);
            let b_t = operand(db, &shape, &mut rng);
            let s = match rng.below(3) {
                0 => Scalar::Int(rng.below(7) as i64 - 3),
                1 => Scalar::Float((rng.below(41) as f64 - 20.0) / 8.0),
                _ => Scalar::Bool(true),
            };
            let one = random_tensor(db, &[], &mut rng); // a 0-d rhs: the CPU-scalar special cases
            for b in [
                Operand::Tensor(&b_t),
                Operand::Scalar(s),
                Operand::Tensor(&one),
            ] {
                if emu_binary(op, &a, b) {
                    ran += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    assert!(ran > 300, "ran {ran}, refused {refused}");
}

#[test]
fn real_opmath_and_pow_scalar_kernels_match_cpu_ops() {
    let mut rng = Rng(12);
    for _ in 0..25 {
        let shape = random_loop_shape(&mut rng);
        for d in [DType::F16, DType::BF16] {
            let a = operand(d, &shape, &mut rng);
            let s = Scalar::Float((rng.below(2001) as f64 - 1000.0) / 7.0);
            for op in [BinaryOp::Mul, BinaryOp::Div, BinaryOp::FloorDivide] {
                for b in [Operand::Scalar(s), Operand::Scalar(Scalar::Int(3))] {
                    assert!(emu_binary(op, &a, b));
                }
            }
        }
        for d in [
            DType::U8,
            DType::I16,
            DType::I64,
            DType::F16,
            DType::BF16,
            DType::F32,
            DType::F64,
        ] {
            let a = operand(d, &shape, &mut rng);
            for e in [
                Scalar::Int(0),
                Scalar::Int(1),
                Scalar::Int(2),
                Scalar::Int(3),
                Scalar::Float(0.5),
                Scalar::Float(-1.0),
                Scalar::Float(2.0),
            ] {
                emu_binary(BinaryOp::Pow, &a, Operand::Scalar(e));
            }
        }
    }
}

#[test]
fn real_unary_kernels_match_cpu_ops() {
    let ops = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Sign,
        UnaryOp::Exp,
        UnaryOp::Log1p,
        UnaryOp::Sigmoid,
        UnaryOp::Round,
        UnaryOp::IsNan,
        UnaryOp::LogicalNot,
        UnaryOp::Signbit,
        UnaryOp::Erf,
        UnaryOp::Hardswish,
        UnaryOp::Softsign,
    ];
    let mut rng = Rng(13);
    let mut ran = 0;
    for _ in 0..15 {
        for &op in &ops {
            let shape = random_loop_shape(&mut rng);
            let d = pick(&mut rng, &ALL);
            let a = operand(d, &shape, &mut rng);
            let cpu = weft::ops::unary::unary(op, &a, None);
            if agree(op.name(), elementwise_plan::unary(&EMU, op, &a), cpu) {
                ran += 1;
            }
        }
        // gelu (both forms) and the copy kernels (every `to(dtype)`)
        let shape = random_loop_shape(&mut rng);
        for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
            let a = operand(d, &shape, &mut rng);
            for approximate in [GeluApproximate::None, GeluApproximate::Tanh] {
                let device = elementwise_plan::gelu(&EMU, &a, approximate);
                assert!(agree("gelu", device, a.try_gelu(approximate)));
            }
        }
        let src = pick(&mut rng, &ALL);
        let a = operand(src, &shape, &mut rng);
        for &dst in &ALL {
            let want = weft::ops::special::to_dtype(&a, dst).map(|w| w.contiguous());
            assert!(agree("to", elementwise_plan::to(&EMU, &a, dst), want));
        }
    }
    assert!(ran > 80, "ran {ran}");
}

#[test]
fn real_where_kernels_match_cpu_ops() {
    let mut rng = Rng(14);
    let (mut ran, mut refused) = (0, 0);
    for round in 0..40 {
        let shape = random_loop_shape(&mut rng);
        // u8 conditions too (PyTorch's deprecated form: nonzero is true), and a wrong dtype
        let dc = [DType::Bool, DType::Bool, DType::U8, DType::I32][round % 4];
        let cond = operand(dc, &shape, &mut rng);
        let da = pick(&mut rng, &ALL);
        let db = if round % 2 == 0 {
            da
        } else {
            pick(&mut rng, &ALL)
        };
        let a = operand(da, &shape, &mut rng);
        let b = operand(db, &shape, &mut rng);
        // 1000 does not fit an 8-bit computation dtype: refused by both
        for bo in [
            Operand::Tensor(&b),
            Operand::Scalar(Scalar::Float(2.5)),
            Operand::Scalar(Scalar::Int(1000)),
        ] {
            let cpu = weft::ops::special::where_(&cond, Operand::Tensor(&a), bo, None);
            let device = elementwise_plan::where_(&EMU, &cond, DeviceOperand::Tensor(&a), dev(bo));
            if agree("where", device, cpu) {
                ran += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(ran > 60 && refused > 20, "ran {ran}, refused {refused}");
}

#[test]
fn panic_free_fmod_is_bit_identical_to_libm() {
    // weft's fmod (src/portable/functors/real.rs, used by fmod/remainder/floor_divide on floats) against
    // libm's on random bit patterns and on edge values, f32 and f64.
    let f = fx::Fmod;
    let edge64 = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        3.0,
        1e-310,
        -4.9e-324,
        1e308,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        7.25,
        -1e-5,
    ];
    let mut rng = Rng(15);
    let mut pairs: Vec<(f64, f64)> = edge64
        .iter()
        .flat_map(|&x| edge64.iter().map(move |&y| (x, y)))
        .collect();
    for _ in 0..200_000 {
        let (a, b) = (rng.next(), rng.next());
        let x = f64::from_bits(a);
        // half the time a divisor of similar magnitude (short reductions), else any bits
        let y = if b & 1 == 0 {
            f64::from_bits(a ^ (b & 0x000F_FFFF_FFFF_FFFF) ^ ((b >> 60) << 52))
        } else {
            f64::from_bits(b)
        };
        pairs.push((x, y));
    }
    for &(x, y) in &pairs {
        let got: f64 = f.call((x, y));
        let want = libm::fmod(x, y);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "f64 fmod({x:e}, {y:e}) = {got:e}, libm {want:e}"
        );
        let (x32, y32) = (
            f32::from_bits((x.to_bits() >> 32) as u32),
            f32::from_bits(y.to_bits() as u32),
        );
        for (x, y) in [
            (x as f32, y as f32),
            (x32, y32),
            (
                x32,
                f32::from_bits(x32.to_bits() ^ (y.to_bits() as u32 & 0x807F_FFFF)),
            ),
        ] {
            let got: f32 = f.call((x, y));
            let want = libm::fmodf(x, y);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "f32 fmod({x:e}, {y:e}) = {got:e}, libm {want:e}"
            );
        }
    }
}

#[test]
fn real_special_kernels_match_cpu_ops() {
    let mut rng = Rng(16);
    let numeric: Vec<DType> = ALL.iter().copied().filter(|d| *d != DType::Bool).collect();
    let floats = [DType::F16, DType::BF16, DType::F32, DType::F64];
    let (mut ran, mut refused) = (0, 0);
    for _ in 0..30 {
        let shape = random_loop_shape(&mut rng);
        let d = pick(&mut rng, &numeric);
        let x = operand(d, &shape, &mut rng);
        // clamp: scalar bounds (promotion, integer bounds dropped), tensor bounds, mixed
        let lo_t = operand(pick(&mut rng, &numeric), &shape, &mut rng);
        let hi_t = operand(pick(&mut rng, &numeric), &shape, &mut rng);
        let lo = Scalar::Int(rng.below(21) as i64 - 10);
        let hi = Scalar::Float((rng.below(41) as f64 - 20.0) / 3.0);
        let bounds: [(Option<Operand>, Option<Operand>); 8] = [
            (Some(Operand::Scalar(lo)), None),
            (None, Some(Operand::Scalar(hi))),
            (
                Some(Operand::Scalar(lo)),
                Some(Operand::Scalar(Scalar::Int(5))),
            ),
            (
                Some(Operand::Scalar(Scalar::Int(-1000))),
                Some(Operand::Scalar(Scalar::Int(1000))),
            ),
            (Some(Operand::Tensor(&lo_t)), None),
            (None, Some(Operand::Tensor(&hi_t))),
            (
                Some(Operand::Tensor(&lo_t)),
                Some(Operand::Scalar(Scalar::Int(7))),
            ),
            (Some(Operand::Scalar(lo)), Some(Operand::Tensor(&hi_t))),
        ];
        let both = (Some(Operand::Tensor(&lo_t)), Some(Operand::Tensor(&hi_t)));
        for (mi, ma) in bounds.into_iter().chain([both]) {
            let cpu = weft::ops::special::clamp(&x, mi, ma, None);
            let device = elementwise_plan::clamp(&EMU, &x, mi.map(dev), ma.map(dev));
            if agree("clamp", device, cpu) {
                ran += 1;
            } else {
                refused += 1;
            }
        }
        // hardtanh
        let (lo, hi) = (Scalar::Float(-2.5), Scalar::Int(3));
        let device = elementwise_plan::hardtanh(&EMU, &x, lo, hi);
        assert!(agree("hardtanh", device, x.try_hardtanh(-2.5, 3)));
        // masked_fill (any dtype, mask broadcasting with x); a negative fill does not fit
        // u16/u32/u64 (only u8 wraps, PyTorch's rule): an error on both
        let dm = pick(&mut rng, &ALL);
        let xm = operand(dm, &shape, &mut rng);
        let mask = operand(DType::Bool, &shape, &mut rng);
        let v = Scalar::Int(rng.below(7) as i64 - 3);
        let cpu = weft::ops::special::masked_fill(&xm, &mask, Operand::Scalar(v), None);
        let device = elementwise_plan::masked_fill(&EMU, &xm, &mask, DeviceOperand::Scalar(v));
        assert_eq!(agree("masked_fill", device, cpu), v.fits(dm));
        // lerp, scalar and tensor weight
        let df = pick(&mut rng, &floats);
        let (a, b, w) = (
            operand(df, &shape, &mut rng),
            operand(df, &shape, &mut rng),
            operand(df, &shape, &mut rng),
        );
        let ws = Scalar::Float((rng.below(9) as f64 - 2.0) / 4.0);
        for weight in [Operand::Scalar(ws), Operand::Tensor(&w)] {
            let cpu = weft::ops::special::lerp(&a, &b, weight, None);
            let device = elementwise_plan::lerp(&EMU, &a, &b, dev(weight));
            assert!(agree("lerp", device, cpu));
        }
        // addcmul, mixed dtypes promoted together
        let (d1, d2) = (pick(&mut rng, &numeric), pick(&mut rng, &numeric));
        let (t1, t2) = (operand(d1, &shape, &mut rng), operand(d2, &shape, &mut rng));
        for value in [Scalar::Int(3), Scalar::Float(0.5)] {
            let cpu = weft::ops::special::addcmul(&x, &t1, &t2, value, None);
            let device = elementwise_plan::addcmul(&EMU, &x, &t1, &t2, value);
            if agree("addcmul", device, cpu) {
                ran += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(ran > 150, "ran {ran}, refused {refused}");
}

// ---------------------------------------------------------------------------------------------
// Device reductions: the real planner (`weft::device::reduce_plan::reduce`, the code
// `CudaTensor::try_reduce` runs) behind a host backend whose launches run the reduction
// kernels' bodies (`reduce_body` of every family of `gpu_reduce_list!`) over every thread of
// the grid CUDA would launch, and of small grids; compared bit for bit with the CPU reductions.

use std::sync::atomic::{AtomicUsize, Ordering};
use weft::device::backend::DeviceBackend;
use weft::device::reduce::{
    ReduceLaunch, ReduceMode, SoftmaxRowsLaunch, reduce_body, softmax_rows_body,
};
use weft::device::reduce_plan::{self, reduce_kernel_names};
use weft::{Dims, ReduceArgs, ReduceOp};

type ReduceFn = unsafe fn(u64, u64, &ReduceLaunch, &[*mut u8; 2], *const u8, *mut u8);

/// Every reduction kernel body, by kernel name.
static REDUCE_KERNELS: LazyLock<HashMap<String, ReduceFn>> = LazyLock::new(|| {
    let mut m: HashMap<String, ReduceFn> = HashMap::new();
    macro_rules! reg {
        ($m:ident $family:ident ($R:ty) [$($tok:ident $T:ty),*]) => {$({
            #[allow(dead_code)]
            type T = $T;
            $m.insert(
                concat!("reduce_", stringify!($family), "_", stringify!($tok)).to_string(),
                reduce_body::<$R> as ReduceFn,
            );
        })*};
    }
    weft::gpu_reduce_list!(reg!(m));
    m
});

/// Launches per [`ReduceMode`] (coverage of the loop shapes).
static MODES: [AtomicUsize; 5] = [const { AtomicUsize::new(0) }; 5];

/// The host backend: `grid` threads per launch (0: CUDA's, 256-thread blocks covering every
/// item).
struct Emu {
    grid: u64,
}

impl Emu {
    fn threads(&self, items: u64) -> u64 {
        if self.grid == 0 {
            items.div_ceil(256).max(1) * 256
        } else {
            self.grid
        }
    }
}

impl DeviceBackend for Emu {
    type Tensor = DynTensor;
    fn share(&self, t: &DynTensor) -> DynTensor {
        t.share()
    }
    fn dtype(&self, t: &DynTensor) -> DType {
        t.dtype()
    }
    fn shape<'a>(&self, t: &'a DynTensor) -> &'a [usize] {
        t.shape()
    }
    fn strides<'a>(&self, t: &'a DynTensor) -> &'a [isize] {
        t.strides()
    }
    fn is_contiguous(&self, t: &DynTensor) -> bool {
        t.is_contiguous()
    }
    fn zeros(&self, dtype: DType, shape: &[usize]) -> weft::Result<DynTensor> {
        DynTensor::zeros(dtype, shape)
    }
    fn to_contiguous(&self, t: &DynTensor, dtype: DType) -> weft::Result<DynTensor> {
        // The device's `copy` kernel: a row-major copy converted element by element.
        let c = t.contiguous().to(dtype);
        assert!(c.is_contiguous());
        Ok(c)
    }
    fn permute(&self, t: &DynTensor, dims: &[usize]) -> weft::Result<DynTensor> {
        let d: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
        t.try_permute(&d)
    }
    fn reshape(&self, t: &DynTensor, shape: &[usize]) -> weft::Result<DynTensor> {
        assert!(t.is_contiguous());
        t.try_view(shape)
    }
    fn address(&self, t: &DynTensor) -> u64 {
        t.data_ptr_bytes() as u64
    }
    unsafe fn launch<F: Copy>(
        &self,
        op: &str,
        kt: DType,
        f: F,
        types: &[DType],
        out_dtype: DType,
        inputs: &[&DynTensor],
        also: Option<&[usize]>,
    ) -> weft::Result<DynTensor> {
        Ok(emu_run(op, kt, f, types, out_dtype, inputs, also))
    }
    fn scalar_tensor(&self, s: Scalar, dtype: DType) -> weft::Result<DynTensor> {
        Ok(DynTensor::scalar(dtype, s))
    }
    fn to_host(&self, t: &DynTensor) -> weft::Result<DynTensor> {
        Ok(t.share())
    }
    unsafe fn launch_reduce(
        &self,
        name: &str,
        l: &ReduceLaunch,
        threads: u64,
        outs: &[&DynTensor],
        input: &DynTensor,
        scratch: Option<&DynTensor>,
    ) -> weft::Result<()> {
        let f = REDUCE_KERNELS
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not a listed reduction kernel"));
        MODES[l.mode as usize].fetch_add(1, Ordering::Relaxed);
        assert!(threads as usize >= l.items().min(1), "{name}: no threads");
        for o in outs {
            assert!(o.is_contiguous());
        }
        let o = [
            outs[0].data_ptr_bytes(),
            outs.get(1)
                .map_or(std::ptr::null_mut(), |t| t.data_ptr_bytes()),
        ];
        let sp = scratch.map_or(std::ptr::null_mut(), |t| t.data_ptr_bytes());
        let nt = self.threads(threads);
        for tid in 0..nt {
            // SAFETY: the planner's launch over live host tensors (the backend contract).
            unsafe { f(tid, nt, l, &o, input.data_ptr_bytes(), sp) };
        }
        Ok(())
    }
    unsafe fn launch_softmax_rows(
        &self,
        name: &str,
        rows: u64,
        n: u64,
        log: bool,
        out: &DynTensor,
        x: &DynTensor,
    ) -> weft::Result<()> {
        let l = SoftmaxRowsLaunch {
            rows,
            n,
            log: log as u32,
        };
        let nt = self.threads(rows);
        for tid in 0..nt {
            // SAFETY: contiguous buffers of rows * n elements of the kernel's type.
            unsafe {
                match name {
                    "reduce_softmax_rows_f32" => softmax_rows_body::<f32>(
                        tid,
                        nt,
                        &l,
                        out.data_ptr_bytes(),
                        x.data_ptr_bytes(),
                    ),
                    "reduce_softmax_rows_f64" => softmax_rows_body::<f64>(
                        tid,
                        nt,
                        &l,
                        out.data_ptr_bytes(),
                        x.data_ptr_bytes(),
                    ),
                    _ => panic!("{name} is not a listed kernel"),
                }
            }
        }
        Ok(())
    }
    fn softmax_apply(
        &self,
        x: &DynTensor,
        maxima: &DynTensor,
        factors: &DynTensor,
        log: bool,
    ) -> weft::Result<DynTensor> {
        // `CudaContext::launch("softmax_apply", ...)`: the strided kernel (the row values
        // broadcast), operands at their runtime dtypes.
        let name = format!("softmax_apply_{}", kernel_suffix(x.dtype()));
        let k = KERNELS.get(&name).expect("softmax_apply is emulated");
        let f = weft::reduce::reducers::SoftmaxApply { log };
        assert_eq!(size_of_val(&f), k.fsize);
        let shape = x.shape().to_vec();
        let out = DynTensor::zeros(x.dtype(), &shape)?;
        let ops = [&out, x, maxima, factors];
        let strides: Vec<Vec<isize>> = ops
            .iter()
            .map(|t| {
                (0..shape.len())
                    .map(|d| {
                        if t.shape()[d] == 1 {
                            0
                        } else {
                            t.strides()[d] * t.dtype().size() as isize
                        }
                    })
                    .collect()
            })
            .collect();
        let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
        let dtypes: Vec<DType> = ops.iter().map(|t| t.dtype()).collect();
        let l = StridedLayout::new(&shape, &refs, &dtypes).unwrap();
        let ins: Vec<*const u8> = ops[1..]
            .iter()
            .map(|t| t.data_ptr_bytes() as *const u8)
            .collect();
        let nt = self.threads(out.numel() as u64);
        for tid in 0..nt {
            // SAFETY: the layout describes the four views.
            unsafe {
                (k.strided)(
                    tid,
                    nt,
                    &l,
                    (&f as *const weft::reduce::reducers::SoftmaxApply).cast(),
                    out.data_ptr_bytes(),
                    &ins,
                )
            };
        }
        Ok(out)
    }
}

fn random_reduce_args(op: ReduceOp, nd: usize, rng: &mut Rng) -> ReduceArgs {
    let dim = |rng: &mut Rng| rng.below(2 * nd.max(1) as u64) as isize - nd.max(1) as isize;
    let dims = match rng.below(3) {
        0 if !op.is_elementwise() => Dims::All,
        1 if !op.is_elementwise()
            && !matches!(
                op,
                ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::MaxDim | ReduceOp::MinDim
            ) =>
        {
            let mut l: Vec<isize> = (0..nd as isize).filter(|_| rng.below(2) == 0).collect();
            if l.len() > 1 && rng.below(8) == 0 {
                l.push(l[0]); // repeated: an error on both
            }
            Dims::List(l)
        }
        _ => Dims::One(dim(rng)),
    };
    let mut a = ReduceArgs::new(dims).keepdim(rng.below(2) == 0);
    if op.takes_dtype() && rng.below(3) == 0 {
        a = a.dtype(DType::ALL[rng.below(DType::COUNT as u64) as usize]);
    }
    if matches!(op, ReduceOp::Var | ReduceOp::Std) {
        a = a.correction([0.0, 1.0, 2.5, 7.0][rng.below(4) as usize]);
    }
    a
}

fn random_reduce_shape(rng: &mut Rng) -> Vec<usize> {
    match rng.below(10) {
        // Long reductions (chunked) and long outer ones.
        0 => vec![1 + rng.below(3) as usize, 16384 + rng.below(30000) as usize],
        1 => vec![17000 + rng.below(20000) as usize, 1 + rng.below(4) as usize],
        2 => vec![2 + rng.below(300) as usize, 2 + rng.below(300) as usize],
        _ => {
            let nd = rng.below(5) as usize;
            (0..nd)
                .map(|_| {
                    if rng.below(12) == 0 {
                        0
                    } else {
                        1 + rng.below(7) as usize
                    }
                })
                .collect()
        }
    }
}

/// The values' bits, every NaN as one NaN: a NaN's payload and sign are not portable (a GPU
/// returns its canonical NaN; x86 keeps an operand's payload, and LLVM may commute the
/// operands), so "bit for bit" means every bit of every other value and NaN where NaN.
fn same_bits(t: &DynTensor) -> Vec<(u8, u64)> {
    t.contiguous()
        .to_values()
        .into_iter()
        .map(|v| match v {
            Value::F32(x) if x.is_nan() => (9, 0),
            Value::F64(x) if x.is_nan() => (9, 0),
            Value::F32(x) => (3, x.to_bits() as u64),
            Value::F64(x) => (4, x.to_bits()),
            Value::Bool(b) => (0, b as u64),
            Value::Int(i) => (1, i as u64),
            Value::UInt(u) => (2, u),
        })
        .collect()
}

#[test]
fn device_reductions_match_the_cpu_bit_for_bit() {
    let mut rng = Rng(0x4ed0_c7e5);
    let (mut compared, mut errors) = (0usize, 0usize);
    for case in 0..2000 {
        let op = ReduceOp::ALL[rng.below(ReduceOp::ALL.len() as u64) as usize];
        let dtype = DType::ALL[rng.below(DType::COUNT as u64) as usize];
        let shape = random_reduce_shape(&mut rng);
        let x = random_tensor(dtype, &shape, &mut rng);
        let args = random_reduce_args(op, shape.len(), &mut rng);
        let emu = Emu {
            grid: [0, 1, 7, 300][rng.below(4) as usize],
        };
        let what = format!(
            "case {case}: {} of {dtype} {:?} strides {:?} offset {}, {args:?}, grid {}",
            op.name(),
            x.shape(),
            x.strides(),
            x.offset(),
            emu.grid
        );
        let cpu = weft::reduce::reduce(op, &x, &args);
        let dev = reduce_plan::reduce(&emu, op, &x, &args);
        match (cpu, dev) {
            (Ok(c), Ok(d)) => {
                assert_eq!(c.len(), d.len(), "{what}");
                for (c, d) in c.iter().zip(&d) {
                    assert_eq!(c.dtype(), d.dtype(), "{what}");
                    assert_eq!(c.shape(), d.shape(), "{what}");
                    let (cv, dv) = (same_bits(c), same_bits(d));
                    if let Some(i) = (0..cv.len()).find(|&i| cv[i] != dv[i]) {
                        panic!(
                            "{what}: element {i}: cpu {:?}, device {:?}",
                            c.contiguous().to_values()[i],
                            d.contiguous().to_values()[i]
                        );
                    }
                }
                compared += 1;
            }
            (Err(c), Err(d)) => {
                assert_eq!(c.to_string(), d.to_string(), "{what}");
                errors += 1;
            }
            (c, d) => panic!(
                "{what}: cpu {:?}, device {:?}",
                c.map(|_| ()),
                d.map(|_| ())
            ),
        }
    }
    let modes: Vec<usize> = MODES.iter().map(|m| m.load(Ordering::Relaxed)).collect();
    eprintln!(
        "{compared} reductions equal bit for bit, {errors} errors equal; launches per mode {modes:?}"
    );
    for (m, &n) in modes.iter().enumerate() {
        assert!(n >= 30, "mode {m} ran {n} times: {modes:?}");
    }
    assert!(compared >= 1000 && errors >= 100, "{compared} {errors}");
}

#[test]
fn every_reduction_kernel_is_listed_once_with_its_state_layout() {
    let names = reduce_kernel_names();
    let unique: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
    for n in &names {
        if n.starts_with("reduce_softmax_rows_") {
            continue;
        }
        assert!(REDUCE_KERNELS.contains_key(n), "{n}");
        let acc = reduce_plan::acc_layout(n).unwrap();
        assert!(acc.size > 0 && acc.align <= 8, "{n}: {acc:?}");
    }
    assert_eq!(REDUCE_KERNELS.len() + 2, names.len());
    assert!(ReduceMode::Empty as u32 == 4);
}
