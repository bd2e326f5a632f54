//! Files written by NumPy (`np.save`, `np.savez`, `np.savez_compressed`) and by the
//! `safetensors` Python package, loaded with weft and checked against `expected.json` element
//! by element: dtype, shape, every value exactly (NaN as NaN, zeros by their sign bit), the
//! layout (Fortran order is a transposed view), and the refusal of a big-endian file.
//!
//! The fixtures live in tests/fixtures and are made by `python3 tests/fixtures/make_fixtures.py`
//! (see tests/fixtures/README.md for the versions). Each test gathers every disagreement before
//! failing, so one run lists them all.

use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use weft::{DType, DynTensor, Error, Scalar};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn expected() -> Json {
    let path = fixtures().join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn section<'a>(e: &'a Json, key: &str) -> &'a serde_json::Map<String, Json> {
    e[key]
        .as_object()
        .unwrap_or_else(|| panic!("expected.json has no object {key:?}"))
}

/// One element as expected.json writes it.
#[derive(Clone, Copy, Debug)]
enum Want {
    Bool(bool),
    Int(i128),
    Float(f64),
}

fn want_float(v: &Json) -> f64 {
    match v {
        Json::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "-0.0" => -0.0,
            other => panic!("unexpected float string {other:?} in expected.json"),
        },
        _ => v
            .as_f64()
            .unwrap_or_else(|| panic!("not a float in expected.json: {v}")),
    }
}

fn want_values(e: &Json, dtype: DType) -> Vec<Want> {
    e["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|v| {
            if dtype.is_bool() {
                Want::Bool(v.as_bool().expect("a bool value"))
            } else if dtype.is_integer() {
                Want::Int(
                    v.as_i64()
                        .map(i128::from)
                        .or(v.as_u64().map(i128::from))
                        .expect("an integer value"),
                )
            } else {
                Want::Float(want_float(v))
            }
        })
        .collect()
}

/// Exact equality: NaN matches any NaN, every other float by its bits (so -0.0 != 0.0).
fn same_float(got: f64, want: f64) -> bool {
    if want.is_nan() {
        got.is_nan()
    } else {
        got.to_bits() == want.to_bits()
    }
}

fn same_scalar(got: Scalar, want: Want) -> bool {
    match (got, want) {
        (Scalar::Bool(g), Want::Bool(w)) => g == w,
        (Scalar::Int(_) | Scalar::UInt(_), Want::Int(w)) => got.as_i128() == Some(w),
        (Scalar::Float(g), Want::Float(w)) => same_float(g, w),
        _ => false,
    }
}

/// The row-major coordinate of flat index `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

/// Checks `t` against one expected array: dtype, shape, values through `to_vec` (row-major
/// gather) and through `get` at every coordinate. Disagreements are pushed to `bad`.
fn check(label: &str, t: &DynTensor, e: &Json, bad: &mut Vec<String>) {
    let name = e["dtype"].as_str().expect("dtype");
    let dtype = match DType::parse_name(name) {
        Ok(d) => d,
        Err(err) => {
            bad.push(format!(
                "{label}: weft does not parse dtype name {name:?}: {err:?}"
            ));
            return;
        }
    };
    if t.dtype() != dtype || t.dtype().name() != name {
        bad.push(format!("{label}: dtype {} (want {name})", t.dtype()));
        return;
    }
    let shape: Vec<usize> = e["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("a dimension") as usize)
        .collect();
    if t.shape() != shape.as_slice() {
        bad.push(format!("{label}: shape {:?} (want {shape:?})", t.shape()));
        return;
    }
    let want = want_values(e, dtype);
    let numel: usize = shape.iter().product();
    assert_eq!(
        want.len(),
        numel,
        "{label}: expected.json's values vs its shape"
    );
    if t.numel() != numel {
        bad.push(format!("{label}: numel {} (want {numel})", t.numel()));
        return;
    }

    // Row-major values, read in the dtype's own Rust type where that is exact.
    let got: Vec<Scalar> = if dtype.is_bool() {
        t.to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(Scalar::Bool)
            .collect()
    } else if dtype == DType::U64 {
        t.to_vec::<u64>()
            .unwrap()
            .into_iter()
            .map(Scalar::from)
            .collect()
    } else if dtype.is_integer() {
        t.to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(Scalar::Int)
            .collect()
    } else {
        // f16, bf16 and f32 widen to f64 exactly.
        t.to_vec::<f64>()
            .unwrap()
            .into_iter()
            .map(Scalar::Float)
            .collect()
    };
    if got.len() != numel {
        bad.push(format!(
            "{label}: to_vec gave {} values (want {numel})",
            got.len()
        ));
        return;
    }
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        if !same_scalar(g, w) {
            bad.push(format!("{label}: to_vec[{i}] = {g:?}, want {w:?}"));
        }
    }
    // The same through `get` at each coordinate (reads through the view's strides).
    for (i, &w) in want.iter().enumerate() {
        let idx = unravel(i, &shape);
        match t.get(&idx) {
            Ok(g) if same_scalar(g, w) => {}
            Ok(g) => bad.push(format!("{label}: get({idx:?}) = {g:?}, want {w:?}")),
            Err(err) => bad.push(format!("{label}: get({idx:?}) failed: {err}")),
        }
    }
}

/// Column-major strides (in elements) of `shape`: what a Fortran-order array has.
fn fortran_strides(shape: &[usize]) -> Vec<isize> {
    let mut acc = 1isize;
    shape
        .iter()
        .map(|&d| {
            let s = acc;
            acc *= d.max(1) as isize;
            s
        })
        .collect()
}

/// A Fortran-order array of 2+ dims must load as the transposed view of a contiguous tensor
/// (column-major strides, reversing the dims gives a contiguous tensor); anything else as a
/// contiguous tensor.
fn check_layout(label: &str, t: &DynTensor, e: &Json, bad: &mut Vec<String>) {
    let fortran = e["fortran_order"].as_bool().unwrap_or(false);
    if fortran && t.ndim() > 1 {
        if t.is_contiguous() {
            bad.push(format!(
                "{label}: Fortran order loaded as a contiguous tensor"
            ));
        }
        let want = fortran_strides(t.shape());
        if t.strides() != want.as_slice() {
            bad.push(format!(
                "{label}: strides {:?} (want column-major {want:?})",
                t.strides()
            ));
        }
        let rev: Vec<isize> = (0..t.ndim() as isize).rev().collect();
        match t.try_permute(&rev) {
            Ok(r) if r.is_contiguous() => {}
            Ok(r) => bad.push(format!(
                "{label}: reversing the dims gives strides {:?}, not contiguous",
                r.strides()
            )),
            Err(err) => bad.push(format!("{label}: permute failed: {err}")),
        }
        // A contiguous copy holds the same row-major values.
        let c = t.contiguous();
        if !c.is_contiguous() || c.to_bytes().unwrap() != t.to_bytes().unwrap() {
            bad.push(format!("{label}: contiguous() changed the values"));
        }
    } else if !t.is_contiguous() {
        bad.push(format!(
            "{label}: C-order data loaded non-contiguous (strides {:?})",
            t.strides()
        ));
    }
}

fn finish(what: &str, bad: Vec<String>) {
    assert!(
        bad.is_empty(),
        "{what}: {} disagreement(s) between weft and the file's writer:\n  {}",
        bad.len(),
        bad.join("\n  ")
    );
}

#[test]
fn npy_files_match_numpy() {
    let e = expected();
    let files = section(&e, "npy");
    assert!(
        files.len() >= 14,
        "expected.json lists {} .npy files",
        files.len()
    );
    let mut bad = Vec::new();
    for (file, want) in files {
        match weft::io::npy::load(fixtures().join(file)) {
            Ok(t) => {
                check(file, &t, want, &mut bad);
                check_layout(file, &t, want, &mut bad);
            }
            Err(err) => bad.push(format!("{file}: load failed: {err}")),
        }
    }
    finish("npy", bad);
}

#[test]
fn npy_every_numpy_dtype_of_weft_is_covered() {
    // One C-order file per weft dtype NumPy has (all but bfloat16).
    let e = expected();
    let files = section(&e, "npy");
    for d in DType::ALL.into_iter().filter(|d| d.numpy_descr().is_some()) {
        let file = format!("{}.npy", d.name());
        let want = files
            .get(&file)
            .unwrap_or_else(|| panic!("no fixture {file}"));
        assert_eq!(want["descr"], d.numpy_descr().unwrap(), "{file}");
        assert_eq!(want["fortran_order"], false, "{file}");
        let t = weft::io::npy::load(fixtures().join(&file)).unwrap();
        assert_eq!(t.dtype(), d, "{file}");
    }
}

#[test]
fn npy_fortran_order_is_a_transposed_view() {
    let e = expected();
    let files = section(&e, "npy");
    let fortran: Vec<_> = files
        .iter()
        .filter(|(_, w)| w["fortran_order"] == true)
        .collect();
    assert!(
        fortran.len() >= 2,
        "the fixtures hold 2-d and 3-d Fortran-order arrays"
    );
    let mut bad = Vec::new();
    for (file, want) in fortran {
        let t = weft::io::npy::load(fixtures().join(file)).unwrap();
        check(file, &t, want, &mut bad);
        check_layout(file, &t, want, &mut bad);
    }
    finish("npy Fortran order", bad);

    // Spelled out for the 3x4 float64 one: np.asfortranarray(arange(12) * 1.5 - 4).reshape(3, 4).
    let t = weft::io::npy::load(fixtures().join("fortran_f64_3x4.npy")).unwrap();
    assert_eq!(t.shape(), &[3, 4]);
    assert_eq!(t.strides(), &[1, 3]);
    assert!(!t.is_contiguous());
    assert_eq!(t.get(&[0, 1]).unwrap(), Scalar::Float(-2.5));
    assert_eq!(t.get(&[1, 0]).unwrap(), Scalar::Float(2.0));
    assert_eq!(t.get(&[2, 3]).unwrap(), Scalar::Float(12.5));
    let row_major: Vec<f64> = (0..12).map(|i| i as f64 * 1.5 - 4.0).collect();
    assert_eq!(t.to_vec::<f64>().unwrap(), row_major);
}

#[test]
fn npy_big_endian_is_refused_naming_the_descr() {
    let e = expected();
    let files = section(&e, "npy_errors");
    assert!(!files.is_empty());
    for (file, want) in files {
        let descr = want["descr"].as_str().unwrap();
        assert!(descr.starts_with('>'), "{file}: {descr}");
        let err = match weft::io::npy::load(fixtures().join(file)) {
            Ok(t) => panic!(
                "{file}: the big-endian {descr} file loaded as {} {:?}: {:?}",
                t.dtype(),
                t.shape(),
                t.to_vec::<f64>()
            ),
            Err(err) => err,
        };
        assert!(
            matches!(err, Error::Format { .. } | Error::UnknownDType { .. }),
            "{file}: unexpected error kind {err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(descr),
            "{file}: the error does not name {descr}: {msg}"
        );
    }
}

fn check_npz(file: &str, compression: &str) {
    let e = expected();
    let want = &section(&e, "npz")[file];
    assert_eq!(want["compression"], compression, "{file}");
    let arrays = want["arrays"].as_object().unwrap();
    let got: BTreeMap<String, DynTensor> = match weft::io::npz::load(fixtures().join(file)) {
        Ok(m) => m,
        Err(err) => panic!("{file}: load failed: {err}"),
    };
    let mut bad = Vec::new();
    let want_names: BTreeSet<&str> = arrays.keys().map(String::as_str).collect();
    let got_names: BTreeSet<&str> = got.keys().map(String::as_str).collect();
    if want_names != got_names {
        bad.push(format!("{file}: names {got_names:?} (want {want_names:?})"));
    }
    for (name, w) in arrays {
        let label = format!("{file}[{name}]");
        match got.get(name) {
            Some(t) => {
                check(&label, t, w, &mut bad);
                check_layout(&label, t, w, &mut bad);
            }
            None => bad.push(format!("{label}: missing")),
        }
    }
    finish(file, bad);
}

#[test]
fn npz_savez_stored_matches_numpy() {
    check_npz("savez_stored.npz", "stored");
}

#[test]
fn npz_savez_compressed_matches_numpy() {
    check_npz("savez_compressed.npz", "deflated");
}

#[test]
fn safetensors_file_matches_python_safetensors() {
    let file = "all_dtypes.safetensors";
    let e = expected();
    let want = &section(&e, "safetensors")[file];
    let tensors = want["tensors"].as_object().unwrap();
    let path = fixtures().join(file);
    let got = weft::io::safetensors::load(&path).unwrap();
    let mut bad = Vec::new();
    let want_names: BTreeSet<&str> = tensors.keys().map(String::as_str).collect();
    let got_names: BTreeSet<&str> = got.keys().map(String::as_str).collect();
    if want_names != got_names {
        bad.push(format!("names {got_names:?} (want {want_names:?})"));
    }
    for (name, w) in tensors {
        let label = format!("{file}[{name}]");
        let Some(t) = got.get(name) else {
            bad.push(format!("{label}: missing"));
            continue;
        };
        check(&label, t, w, &mut bad);
        check_layout(&label, t, w, &mut bad);
        let st = w["safetensors_dtype"].as_str().unwrap();
        if t.dtype().safetensors_name() != st {
            bad.push(format!(
                "{label}: dtype {} is {} in safetensors, the file says {st}",
                t.dtype(),
                t.dtype().safetensors_name()
            ));
        }
    }
    // Every weft dtype is in the file.
    let dtypes: BTreeSet<DType> = got.values().map(|t| t.dtype()).collect();
    for d in DType::ALL {
        if !dtypes.contains(&d) {
            bad.push(format!("no {d} tensor in the file"));
        }
    }
    finish(file, bad);

    // The fixture's metadata, through weft.
    let (_, meta) = weft::io::safetensors::load_with_metadata(&path).unwrap();
    let meta: serde_json::Map<String, Json> = meta
        .into_iter()
        .map(|(k, v)| (k, Json::String(v)))
        .collect();
    assert_eq!(Json::Object(meta), want["metadata"]);
}

#[test]
fn expected_json_covers_every_fixture_file() {
    let e = expected();
    for key in ["python", "numpy", "safetensors"] {
        assert!(e["generator"][key].is_string(), "generator.{key}");
    }
    let mut listed = BTreeSet::new();
    for sec in ["npy", "npy_errors", "npz", "safetensors"] {
        listed.extend(section(&e, sec).keys().cloned());
    }
    let on_disk: BTreeSet<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|f| f.unwrap().file_name().into_string().unwrap())
        .filter(|n| {
            [".npy", ".npz", ".safetensors"]
                .iter()
                .any(|x| n.ends_with(x))
        })
        .collect();
    assert_eq!(on_disk, listed);
}
