//! Every `torch.result_type` entry of promotion.json: tensor-tensor (all four dim/0-d
//! combinations), tensor-scalar (all four orders) and scalar-scalar, plus `promote_types`.
//! (`binary_op_support`/`unary_op_support` belong to the ops layer and are tested there.)
//! Each entry and column is one case; prints `promotion: N passed, N failed, N skipped`.

#[path = "golden_harness/mod.rs"]
mod golden;

use serde_json::Value as J;
use weft::{DType, OperandKind, promote_types, result_type};

/// One case: `got` must equal `want`.
fn check<T: PartialEq + std::fmt::Debug>(s: &mut golden::Summary, id: String, got: T, want: T) {
    let r = if got == want {
        Ok(true)
    } else {
        Err(format!("got {got:?}, torch {want:?}"))
    };
    s.count(&id, r);
}

/// `list` must have the README's `n` entries.
fn expect_len(s: &mut golden::Summary, what: &str, list: &[J], n: usize) {
    if list.len() != n {
        s.problems.push(format!(
            "{what}: {} entries, the README states {n}",
            list.len()
        ));
    }
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
    let g = golden::read_json("promotion.json");
    let mut sum = golden::Summary::new("promotion");

    let tt = g["tensor_tensor"].as_array().expect("tensor_tensor");
    expect_len(&mut sum, "tensor_tensor", tt, 100);
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
            check(&mut sum, format!("{col} {a} {b}"), got, Some(want));
        }
        check(
            &mut sum,
            format!("promote_types {a} {b}"),
            promote_types(a, b),
            dtype(&e["dim_dim"]),
        );
    }

    let ts = g["tensor_scalar"].as_array().expect("tensor_scalar");
    expect_len(&mut sum, "tensor_scalar", ts, 30);
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
            check(
                &mut sum,
                format!("{col} {t} {s:?}"),
                result_type(&ops),
                Some(dtype(&e[col])),
            );
        }
    }

    let ss = g["scalar_scalar"].as_array().expect("scalar_scalar");
    expect_len(&mut sum, "scalar_scalar", ss, 9);
    for e in ss {
        let (a, b) = (json_scalar_dtype(&e["a"]), json_scalar_dtype(&e["b"]));
        check(
            &mut sum,
            format!("scalar_scalar {e}"),
            result_type(&[(a, S), (b, S)]),
            Some(dtype(&e["result"])),
        );
    }

    sum.print();
    sum.assert_ok();
}
