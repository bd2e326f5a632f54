//! Every `torch.result_type` entry of promotion.json: tensor-tensor (all four dim/0-d
//! combinations), tensor-scalar (all four orders) and scalar-scalar, plus `promote_types`.
//! (`binary_op_support`/`unary_op_support` belong to the ops layer and are tested there.)

use serde_json::Value as J;
use weft::{DType, OperandKind, promote_types, result_type};

fn golden_dir() -> String {
    std::env::var("WEFT_GOLDEN_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/golden").to_string())
}

fn load(name: &str) -> J {
    let path = format!("{}/{name}", golden_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("cannot parse {path}: {e}"))
}

fn dtype(v: &J) -> DType {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("not a dtype name: {v}"));
    DType::from_name(s).unwrap_or_else(|| panic!("unknown dtype {s}"))
}

/// The dtype a Python scalar carries (bool, int -> i64, float -> f64).
fn scalar_dtype(kind: &str) -> DType {
    match kind {
        "bool" => DType::Bool,
        "int" => DType::I64,
        "float" => DType::F64,
        k => panic!("unknown scalar type {k}"),
    }
}

fn json_scalar_dtype(v: &J) -> DType {
    if v.is_boolean() {
        DType::Bool
    } else if v.is_i64() || v.is_u64() {
        DType::I64
    } else if v.is_f64() {
        DType::F64
    } else {
        panic!("not a scalar: {v}")
    }
}

#[test]
fn promotion_golden() {
    use OperandKind::{Dimensioned as D, Scalar as S, ZeroDim as Z};
    let g = load("promotion.json");
    let mut checked = 0;

    let tt = g["tensor_tensor"].as_array().expect("tensor_tensor");
    assert_eq!(tt.len(), 100);
    for e in tt {
        let (a, b) = (dtype(&e["a"]), dtype(&e["b"]));
        for (col, ka, kb) in [
            ("dim_dim", D, D),
            ("dim_0d", D, Z),
            ("0d_dim", Z, D),
            ("0d_0d", Z, Z),
        ] {
            let want = dtype(&e[col]);
            let got = result_type(&[(a, ka), (b, kb)]);
            assert_eq!(got, Some(want), "{col} {a} {b}");
            checked += 1;
        }
        assert_eq!(
            promote_types(a, b),
            dtype(&e["dim_dim"]),
            "promote_types {a} {b}"
        );
        checked += 1;
    }

    let ts = g["tensor_scalar"].as_array().expect("tensor_scalar");
    assert_eq!(ts.len(), 30);
    for e in ts {
        let t = dtype(&e["dtype"]);
        let s = scalar_dtype(e["scalar_type"].as_str().expect("scalar_type"));
        assert_eq!(
            json_scalar_dtype(&e["scalar"]),
            s,
            "scalar value kind in {e}"
        );
        for (col, ops) in [
            ("dim_scalar", [(t, D), (s, S)]),
            ("scalar_dim", [(s, S), (t, D)]),
            ("0d_scalar", [(t, Z), (s, S)]),
            ("scalar_0d", [(s, S), (t, Z)]),
        ] {
            assert_eq!(result_type(&ops), Some(dtype(&e[col])), "{col} {t} {s:?}");
            checked += 1;
        }
    }

    let ss = g["scalar_scalar"].as_array().expect("scalar_scalar");
    assert_eq!(ss.len(), 9);
    for e in ss {
        let (a, b) = (json_scalar_dtype(&e["a"]), json_scalar_dtype(&e["b"]));
        assert_eq!(
            result_type(&[(a, S), (b, S)]),
            Some(dtype(&e["result"])),
            "scalar_scalar {e}"
        );
        checked += 1;
    }

    println!(
        "promotion: {checked} checked ({} tensor_tensor x4 + promote_types, {} tensor_scalar x4, {} scalar_scalar)",
        tt.len(),
        ts.len(),
        ss.len()
    );
    assert_eq!(checked, 100 * 5 + 30 * 4 + 9);
}
