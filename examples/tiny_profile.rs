//! One tiny op in a loop, for profilers: `tiny_profile <case> [count]`, where case is one of
//! `dyn` (DynTensor add), `typed` (`&a + &b`), `typed_scalar` (`&a + 2.0`), `mixed`
//! (i64 + f32), `out` (`add_out`), `unary` (DynTensor `exp`), `inplace` (DynTensor `add_`);
//! `zeros` (a new 4-element tensor) and `share` (a second handle), the parts of an op alone;
//! `contig64k`, `row64k`, `col64k` (`add_out` of [256, 256] f32 with b of [256, 256], [256],
//! [256, 1]: the per-row cost of a cache-resident broadcast). `WEFT_ISA=avx2|baseline` caps the
//! vector ISA (`VectorIsa`'s names). Prints the time per op; under
//! `valgrind --tool=callgrind` divide the instruction count by `count`.
use std::hint::black_box;
use weft::{DType, DynTensor, Tensor};

fn main() {
    let which = std::env::args().nth(1).unwrap_or("dyn".into());
    let n: usize = std::env::args()
        .nth(2)
        .map_or(2_000_000, |s| s.parse().expect("a count"));
    let a = Tensor::<f32>::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let b = Tensor::<f32>::from_vec(vec![0.5f32, 0.25, 0.125, 2.0], &[4]).unwrap();
    let ta = DynTensor::from(a.clone());
    let tb = DynTensor::from(b.clone());
    let ti = DynTensor::from(Tensor::<i64>::from_vec(vec![1i64, 2, 3, 4], &[4]).unwrap());
    let to = DynTensor::zeros(DType::F32, &[4]).unwrap();
    let mut tc = DynTensor::zeros(DType::F32, &[4]).unwrap();
    let big = |shape: &[usize]| {
        let n = shape.iter().product::<usize>();
        let data = (0..n).map(|i| i as f32).collect();
        DynTensor::from(Tensor::<f32>::from_vec(data, shape).unwrap())
    };
    let (m, m_full, m_row, m_col) = (
        big(&[256, 256]),
        big(&[256, 256]),
        big(&[256]),
        big(&[256, 1]),
    );
    let m_out = DynTensor::zeros(DType::F32, &[256, 256]).unwrap();
    if let Some(isa) = std::env::var("WEFT_ISA").ok().and_then(|v| v.parse().ok()) {
        weft::limit_vector_isa(isa);
    }
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        match which.as_str() {
            "dyn" => drop(black_box(black_box(&ta).add(black_box(&tb)))),
            "typed" => drop(black_box(black_box(&a) + black_box(&b))),
            "typed_scalar" => drop(black_box(black_box(&a) + 2.0)),
            "mixed" => drop(black_box(black_box(&ti).add(black_box(&tb)))),
            "out" => black_box(&ta).add_out(black_box(&tb), &to),
            "unary" => drop(black_box(black_box(&ta).exp())),
            "inplace" => black_box(&mut tc).add_(black_box(&tb)),
            // The parts of a fresh-output op alone: a new 4-element tensor, a second handle.
            "zeros" => drop(black_box(Tensor::<f32>::zeros(black_box(&[4])))),
            "share" => drop(black_box(black_box(&a).share())),
            "contig64k" => black_box(&m).add_out(black_box(&m_full), &m_out),
            "row64k" => black_box(&m).add_out(black_box(&m_row), &m_out),
            "col64k" => black_box(&m).add_out(black_box(&m_col), &m_out),
            other => panic!("unknown case {other}"),
        }
    }
    println!("{} ns", t0.elapsed().as_nanos() as f64 / n as f64);
}
