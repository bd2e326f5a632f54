//! Every pair of casts.json through `convert_value` (and through a stride-2 view with `.to()`):
//! exact, floats bitwise (any NaN matches any NaN); `ub_indices` elements are skipped and counted.

use serde_json::Value as J;
use weft::{DType, Element, Tensor, Value, convert_value, with_dtype};

fn golden_dir() -> String {
    std::env::var("WEFT_GOLDEN_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/golden").to_string())
}

/// A JSON element as a value of `T` (exact: golden floats are representable in their dtype).
fn parse<T: Element>(v: &J) -> T {
    let val = match v {
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) if n.is_i64() => Value::Int(n.as_i64().unwrap()),
        J::Number(n) if n.is_u64() => panic!("integer {n} does not fit i64"),
        J::Number(n) => Value::F64(n.as_f64().unwrap()),
        J::String(s) => Value::F64(match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => panic!("bad float string {s}"),
        }),
        _ => panic!("bad element {v}"),
    };
    let t = T::from_value(val);
    // The parse itself must be exact, or the comparison below proves nothing.
    let back = match t.to_value() {
        Value::F32(y) => Some(y as f64),
        Value::F64(y) => Some(y),
        _ => None,
    };
    if let (Value::F64(x), Some(y)) = (val, back) {
        assert!(
            x == y || (x.is_nan() && y.is_nan()),
            "{x} is not exact in {}",
            T::DTYPE
        );
    }
    t
}

/// Exact equality: floats by bits, except that NaN matches NaN.
fn same<T: Element>(a: T, b: T) -> bool {
    match (a.to_value(), b.to_value()) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (x, y) => x == y,
    }
}

fn check_pair<S: weft::DynElement, D: weft::DynElement>(
    pair: &J,
    checked: &mut usize,
    skipped: &mut usize,
) {
    let input: Vec<S> = pair["input"]
        .as_array()
        .expect("input")
        .iter()
        .map(parse)
        .collect();
    let output: Vec<D> = pair["output"]
        .as_array()
        .expect("output")
        .iter()
        .map(parse)
        .collect();
    assert_eq!(input.len(), output.len());
    let ub: Vec<usize> = pair["ub_indices"]
        .as_array()
        .expect("ub_indices")
        .iter()
        .map(|v| v.as_u64().expect("index") as usize)
        .collect();
    let (src, dst) = (S::DTYPE, D::DTYPE);

    // Element by element.
    for (i, (&x, &want)) in input.iter().zip(&output).enumerate() {
        if ub.contains(&i) {
            *skipped += 1;
            continue;
        }
        let got: D = convert_value(x);
        assert!(
            same(got, want),
            "{src}->{dst} [{i}]: {x:?} gave {got:?}, torch {want:?}"
        );
        *checked += 1;
    }

    // Through a stride-2 view: element i sits at storage index 2i, the odd slots hold junk.
    let n = input.len();
    let mut storage = vec![S::ONE; 2 * n];
    for (i, &x) in input.iter().enumerate() {
        storage[2 * i] = x;
    }
    let base = Tensor::from_vec(storage, &[2 * n]).unwrap();
    let view = base.slice(0, None, None, 2);
    assert_eq!(view.strides(), &[2]);
    let converted = view.to::<D>();
    // A cast is a fresh contiguous tensor; `to` the same dtype returns the view itself.
    assert!(converted.is_contiguous() || S::DTYPE == D::DTYPE);
    for (i, (&got, &want)) in converted.to_vec().iter().zip(&output).enumerate() {
        if !ub.contains(&i) {
            assert!(
                same(got, want),
                "strided {src}->{dst} [{i}]: {got:?} vs {want:?}"
            );
        }
    }
    assert_eq!(pair["strided_path_agrees"], J::Bool(true));
}

#[test]
fn casts_golden() {
    let path = format!("{}/casts.json", golden_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let g: J = serde_json::from_str(&text).unwrap_or_else(|e| panic!("cannot parse {path}: {e}"));
    let pairs = g["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 100);
    let (mut checked, mut skipped) = (0, 0);
    let mut seen = std::collections::HashSet::new();
    for pair in pairs {
        let name = |k: &str| {
            let s = pair[k].as_str().expect("dtype name");
            DType::from_name(s).unwrap_or_else(|| panic!("unknown dtype {s}"))
        };
        let (src, dst) = (name("src"), name("dst"));
        assert!(seen.insert((src, dst)), "duplicate pair {src}->{dst}");
        with_dtype!(src, S => with_dtype!(dst, D => check_pair::<S, D>(pair, &mut checked, &mut skipped)));
    }
    println!("casts: {checked} checked, {skipped} ub skipped");
    assert!(checked > 1000);
}
