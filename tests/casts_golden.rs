//! Every pair of casts.json through `convert_value` (and through a stride-2 view with `.to()`):
//! exact, floats bitwise (any NaN matches any NaN). One case per element; `ub_indices` elements
//! are skipped, and each must be a real float -> integer UB conversion (NaN, inf, or out of the
//! target range after truncation), else it fails. Prints `casts: N passed, N failed, N skipped`.

#[path = "golden_harness/mod.rs"]
mod golden;

use serde_json::Value as J;
use weft::{DType, DynTensor, Element, Value, convert_value, with_dtype};

/// Whether converting `x` to `dst` is UB in C++ (float -> integer, NaN/inf/out of range).
fn is_ub(x: Value, dst: DType) -> bool {
    let x = match x {
        Value::F32(x) => x as f64,
        Value::F64(x) => x,
        _ => return false,
    };
    let (lo, hi) = match dst {
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        DType::I16 => (-32768.0, 32767.0),
        DType::I32 => (-2147483648.0, 2147483647.0),
        // 2^63 itself is out of range.
        DType::I64 => (-9223372036854775808.0, 9223372036854774784.0),
        _ => return false,
    };
    let t = x.trunc();
    !(t >= lo && t <= hi)
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
fn same(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (x, y) => x == y,
    }
}

/// A JSON element as an exact value of `dtype`.
fn parse_as(v: &J, dtype: DType) -> Value {
    with_dtype!(dtype, T => parse::<T>(v).to_value())
}

/// `x`, a value of `src`, through `convert_value` to `dst`. The only code generic over both
/// dtypes (169 copies of it): the rest of a pair's check runs on `Value`s and `DynTensor`s, so
/// this test crate compiles in seconds, not minutes.
fn convert_scalar(x: Value, src: DType, dst: DType) -> Value {
    with_dtype!(src, S => with_dtype!(dst, D => convert_value::<S, D>(S::from_value(x)).to_value()))
}

/// `values` (each a value of `dtype`) as a contiguous 1-d tensor of `dtype`.
fn tensor_of(values: &[Value], dtype: DType) -> DynTensor {
    with_dtype!(dtype, T => DynTensor::from_vec::<T>(
        values.iter().map(|&v| T::from_value(v)).collect(),
        &[values.len()],
    ))
    .unwrap()
}

fn check_pair(pair: &J, src: DType, dst: DType, sum: &mut golden::Summary) {
    let elements = |key: &str, dtype: DType| -> Vec<Value> {
        pair[key]
            .as_array()
            .expect(key)
            .iter()
            .map(|v| parse_as(v, dtype))
            .collect()
    };
    let input = elements("input", src);
    let output = elements("output", dst);
    assert_eq!(input.len(), output.len());
    let ub: Vec<usize> = pair["ub_indices"]
        .as_array()
        .expect("ub_indices")
        .iter()
        .map(|v| v.as_u64().expect("index") as usize)
        .collect();

    assert!(
        ub.iter().all(|&i| i < input.len()),
        "{src}->{dst}: ub index out of range"
    );

    // Through a stride-2 view: element i sits at storage index 2i, the odd slots hold junk.
    let n = input.len();
    let one = convert_scalar(Value::Int(1), DType::I64, src);
    let mut storage = vec![one; 2 * n];
    for (i, &x) in input.iter().enumerate() {
        storage[2 * i] = x;
    }
    let base = tensor_of(&storage, src);
    let view = base.slice(0, None, None, 2);
    assert_eq!(view.strides(), &[2]);
    let converted = view.to(dst);
    assert_eq!(converted.dtype(), dst);
    // A cast is a fresh contiguous tensor; `to` the same dtype returns the view itself.
    assert!(converted.is_contiguous() || src == dst);
    let strided = converted.to_values();
    assert_eq!(strided.len(), n);
    assert_eq!(pair["strided_path_agrees"], J::Bool(true));

    // Element by element: each is one case.
    for (i, (&x, &want)) in input.iter().zip(&output).enumerate() {
        let id = format!("{src}->{dst}[{i}]");
        let genuine = is_ub(x, dst);
        let r = if ub.contains(&i) {
            if genuine {
                // UB in torch: only check that weft's conversion runs.
                let _ = convert_scalar(x, src, dst);
                Ok(false)
            } else {
                Err(format!("{x:?} is in ub_indices but converts without UB"))
            }
        } else if genuine {
            Err(format!("{x:?} converts with UB but is not in ub_indices"))
        } else {
            let got = convert_scalar(x, src, dst);
            if !same(got, want) {
                Err(format!("{x:?} gave {got:?}, torch {want:?}"))
            } else if !same(strided[i], want) {
                Err(format!(
                    "strided: {x:?} gave {:?}, torch {want:?}",
                    strided[i]
                ))
            } else {
                Ok(true)
            }
        };
        sum.count(&id, r);
    }
}

#[test]
fn casts_golden() {
    let g = golden::read_json("casts.json");
    let pairs = g["pairs"].as_array().expect("pairs");
    let mut sum = golden::Summary::new("casts");
    let mut seen = std::collections::HashSet::new();
    for pair in pairs {
        let name = |k: &str| {
            let s = pair[k].as_str().expect("dtype name");
            DType::from_name(s).unwrap_or_else(|| panic!("unknown dtype {s}"))
        };
        let (src, dst) = (name("src"), name("dst"));
        assert!(seen.insert((src, dst)), "duplicate pair {src}->{dst}");
        check_pair(pair, src, dst, &mut sum);
    }
    // All 100 ordered pairs of the 10 dtypes (README), each over edge values.
    if seen.len() != 100 {
        sum.problems
            .push(format!("{} dtype pairs, the README states 100", seen.len()));
    }
    if sum.passed < 1000 {
        sum.problems
            .push(format!("only {} elements checked", sum.passed));
    }
    sum.print();
    sum.assert_ok();
}
