//! Criterion: weft's `DynTensor` ops side by side with ndarray 0.16 (`Zip` / operators) on the
//! workloads of `examples/bench_report.rs` that ndarray can express. 1M elements (criterion
//! repeats a lot; the report covers 16M). Run: `cargo bench --bench elementwise`.

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use ndarray::{Array1, Array2, Zip};
use weft::functors::GeluApproximate;
use weft::{DType, DynTensor};

const S: usize = 1024;

fn data(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / u32::MAX as f32 * 8.0 - 4.0
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let (va, vb) = (data(S * S, 1), data(S * S, 2));
    let a = DynTensor::from_vec(va.clone(), &[S, S]).unwrap();
    let b = DynTensor::from_vec(vb.clone(), &[S, S]).unwrap();
    let out = DynTensor::zeros(DType::F32, &[S, S]).unwrap();
    let na = Array2::from_shape_vec((S, S), va).unwrap();
    let nb = Array2::from_shape_vec((S, S), vb).unwrap();
    let mut nout = Array2::<f32>::zeros((S, S));
    let row = DynTensor::from_vec(data(S, 3), &[S]).unwrap();
    let nrow = Array1::from(data(S, 3));

    let mut g = c.benchmark_group("add");
    g.bench_function("weft add_out", |x| x.iter(|| a.add_out(&b, &out)));
    g.bench_function("ndarray Zip", |x| {
        x.iter(|| {
            Zip::from(&mut nout)
                .and(&na)
                .and(&nb)
                .for_each(|o, &p, &q| *o = p + q)
        })
    });
    g.bench_function("weft fresh", |x| x.iter(|| black_box(a.add(&b))));
    g.bench_function("ndarray &a + &b", |x| x.iter(|| black_box(&na + &nb)));
    g.finish();

    let mut g = c.benchmark_group("bcast_add");
    g.bench_function("weft add_out", |x| x.iter(|| a.add_out(&row, &out)));
    g.bench_function("ndarray Zip", |x| {
        x.iter(|| {
            Zip::from(&mut nout)
                .and(&na)
                .and_broadcast(&nrow)
                .for_each(|o, &p, &q| *o = p + q)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("transposed_add");
    let at = a.t();
    g.bench_function("weft add_out", |x| x.iter(|| at.add_out(&b, &out)));
    g.bench_function("ndarray Zip", |x| {
        x.iter(|| {
            Zip::from(&mut nout)
                .and(na.t())
                .and(&nb)
                .for_each(|o, &p, &q| *o = p + q)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("add_scalar");
    g.bench_function("weft add_out", |x| x.iter(|| a.add_out(2.0, &out)));
    g.bench_function("ndarray Zip", |x| {
        x.iter(|| Zip::from(&mut nout).and(&na).for_each(|o, &p| *o = p + 2.0))
    });
    g.finish();

    let mut g = c.benchmark_group("exp");
    g.bench_function("weft exp_out", |x| x.iter(|| a.exp_out(&out)));
    g.bench_function("ndarray Zip f32::exp", |x| {
        x.iter(|| Zip::from(&mut nout).and(&na).for_each(|o, &p| *o = p.exp()))
    });
    g.finish();

    let mut g = c.benchmark_group("gelu");
    g.bench_function("weft gelu (fresh)", |x| {
        x.iter(|| black_box(a.gelu(GeluApproximate::None)))
    });
    g.finish();

    let mut g = c.benchmark_group("tiny_add");
    let (ta, tb) = (
        DynTensor::from_vec(vec![1f32, 2., 3., 4.], &[4]).unwrap(),
        DynTensor::from_vec(vec![0.5f32, 0.25, 0.125, 2.], &[4]).unwrap(),
    );
    let (n4a, n4b) = (
        Array1::from(vec![1f32, 2., 3., 4.]),
        Array1::from(vec![0.5f32, 0.25, 0.125, 2.]),
    );
    g.bench_function("weft DynTensor", |x| {
        x.iter(|| black_box(black_box(&ta).add(&tb)))
    });
    let (xa, xb) = (
        ta.as_typed::<f32>().unwrap().clone(),
        tb.as_typed::<f32>().unwrap().clone(),
    );
    g.bench_function("weft Tensor<f32>", |x| {
        x.iter(|| black_box(black_box(&xa) + &xb))
    });
    g.bench_function("ndarray &a + &b", |x| {
        x.iter(|| black_box(black_box(&n4a) + &n4b))
    });
    g.finish();
}

criterion_group!(elementwise, benches);
criterion_main!(elementwise);
