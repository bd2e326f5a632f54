//! reductions.json (README section "reductions.json"): parsing, validation of the case set and
//! the comparison rules. Shares the operand and element parsing of the ops.json harness.

use super::{
    Operand, Summary, TensorArg, as_f64 as f, dtype_of, element, f64_of, number_before, operand_of,
    read_json_at,
};
use serde_json::Value as Json;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use weft::{DType, Value};

/// The error categories of reductions.json.
pub const CATEGORIES: &[&str] = &["dim", "dtype", "empty"];

#[derive(Clone, Debug)]
pub enum Dim {
    All,
    One(isize),
    List(Vec<isize>),
}

#[derive(Clone, Debug)]
pub struct Expected {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub values: Vec<Value>,
    /// Per-value absolute tolerance (float results of the summing ops).
    pub atol: Option<Vec<f64>>,
    /// `max_dim`/`min_dim`.
    pub indices: Option<Vec<i64>>,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    pub op: String,
    pub input: TensorArg,
    pub dim: Dim,
    pub keepdim: bool,
    pub dtype: Option<DType>,
    pub correction: Option<f64>,
    /// `Err(category)` for an error case.
    pub expect: Result<Expected, String>,
}

/// What an evaluator returns: the results (values; indices for `max_dim`/`min_dim`).
pub struct Got {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub values: Vec<Value>,
    pub indices: Option<Vec<i64>>,
}

fn list<'a>(j: &'a Json, what: &str) -> Result<&'a Vec<Json>, String> {
    j.as_array().ok_or_else(|| format!("{what} is not a list"))
}

fn case_of(j: &Json, ops: &[&str]) -> Result<Case, String> {
    let id = j["id"].as_str().ok_or("missing id")?.to_string();
    let op = j["op"].as_str().ok_or("missing op")?.to_string();
    if !ops.contains(&op.as_str()) {
        return Err(format!("unknown op {op}"));
    }
    let args = list(&j["args"], "args")?;
    if args.len() != 1 {
        return Err("expects one operand".into());
    }
    let input = match operand_of(&args[0])? {
        Operand::Tensor(t) => t,
        Operand::Scalar(_) => return Err("the operand is not a tensor".into()),
    };
    let kw = &j["kwargs"];
    let dim = match &kw["dim"] {
        Json::Null => Dim::All,
        Json::Number(n) => Dim::One(n.as_i64().ok_or("bad dim")? as isize),
        Json::Array(a) => Dim::List(
            a.iter()
                .map(|d| d.as_i64().map(|d| d as isize).ok_or("bad dim in list"))
                .collect::<Result<_, _>>()?,
        ),
        d => return Err(format!("bad dim {d}")),
    };
    let keepdim = match &kw["keepdim"] {
        Json::Null => false,
        Json::Bool(b) => *b,
        k => return Err(format!("bad keepdim {k}")),
    };
    let dtype = match &kw["dtype"] {
        Json::Null => None,
        d => Some(dtype_of(d)?),
    };
    let correction = match &kw["correction"] {
        Json::Null => None,
        c => Some(c.as_f64().ok_or("bad correction")?),
    };
    let expect = match (j.get("expect"), j.get("error")) {
        (Some(e), None) => {
            let dtype = dtype_of(&e["dtype"])?;
            let shape = list(&e["shape"], "shape")?
                .iter()
                .map(|v| v.as_u64().map(|v| v as usize).ok_or("bad size"))
                .collect::<Result<Vec<_>, _>>()?;
            let values = list(&e["values"], "values")?
                .iter()
                .map(|v| element(v, dtype))
                .collect::<Result<Vec<_>, _>>()?;
            if values.len() != shape.iter().product::<usize>() {
                return Err("values do not fill the shape".into());
            }
            let atol = match e.get("atol") {
                None => None,
                Some(a) => Some(
                    list(a, "atol")?
                        .iter()
                        .map(f64_of)
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            if atol.as_ref().is_some_and(|a| a.len() != values.len()) {
                return Err("atol and values differ in length".into());
            }
            let indices = match j.get("expect_indices") {
                None => None,
                Some(i) => {
                    let i = i.get("values").unwrap_or(i);
                    Some(
                        list(i, "expect_indices")?
                            .iter()
                            .map(|v| v.as_i64().ok_or("bad index"))
                            .collect::<Result<Vec<_>, _>>()?,
                    )
                }
            };
            if matches!(op.as_str(), "max_dim" | "min_dim") != indices.is_some() {
                return Err("expect_indices present iff the op is max_dim/min_dim".into());
            }
            Ok(Expected {
                dtype,
                shape,
                values,
                atol,
                indices,
            })
        }
        (None, Some(e)) => {
            let c = e["category"].as_str().ok_or("error without category")?;
            if !CATEGORIES.contains(&c) {
                return Err(format!("unknown error category {c}"));
            }
            Err(c.to_string())
        }
        _ => return Err("needs exactly one of expect and error".into()),
    };
    Ok(Case {
        id,
        op,
        input,
        dim,
        keepdim,
        dtype,
        correction,
        expect,
    })
}

/// The cases of reductions.json in `dir`, and the problems of the case set as a whole (a
/// count that differs from the README's, an op without cases, an op the harness does not know,
/// duplicate ids). Unparsable cases are failures in the summary.
pub fn load(dir: &Path, ops: &[&str], summary: &mut Summary) -> Vec<Case> {
    let j = match read_json_at(&dir.join("reductions.json")) {
        Ok(j) => j,
        Err(e) => {
            summary.problems.push(e);
            return Vec::new();
        }
    };
    let Some(raw) = j["cases"].as_array() else {
        summary.problems.push("missing cases".into());
        return Vec::new();
    };
    match j["ops"].as_array() {
        None => summary.problems.push("missing ops list".into()),
        Some(listed) => {
            for o in listed {
                let o = o.as_str().unwrap_or("?");
                if !ops.contains(&o) {
                    summary.problems.push(format!(
                        "the file lists op {o}, which the harness does not know"
                    ));
                }
            }
        }
    }
    let mut cases = Vec::new();
    let mut ids = HashSet::new();
    let mut per_op: HashMap<String, usize> = HashMap::new();
    for c in raw {
        let id = c["id"].as_str().unwrap_or("?").to_string();
        if !ids.insert(id.clone()) {
            summary.problems.push(format!("duplicate case id {id}"));
        }
        match case_of(c, ops) {
            Ok(case) => {
                *per_op.entry(case.op.clone()).or_default() += 1;
                cases.push(case);
            }
            Err(e) => summary.count(&id, Err(format!("unparsable: {e}"))),
        }
    }
    for op in ops {
        if per_op.get(*op).copied().unwrap_or(0) == 0 {
            summary.problems.push(format!("op {op} has no cases"));
        }
    }
    if let Ok(readme) = std::fs::read_to_string(dir.join("README.md"))
        && let Some(start) = readme.find("## reductions.json")
    {
        let section = &readme[start..];
        let section = &section[..section[2..].find("\n## ").map_or(section.len(), |e| e + 2)];
        if let Some(n) = number_before(section, " cases:")
            && n != raw.len()
        {
            summary.problems.push(format!(
                "README.md states {n} cases, the file has {}",
                raw.len()
            ));
        }
    }
    cases
}

/// Judges one case by the README's rules: integer, bool and index results exactly; float
/// results of the extreme-value ops bit-exactly (zero sign ignored); other floats NaN ⇔ NaN,
/// infinities exactly, otherwise within the value's `atol`.
pub fn judge(case: &Case, got: Result<Got, String>) -> Result<bool, String> {
    if float_to_int_ub(case) && got.is_ok() {
        return Ok(false);
    }
    let want = match &case.expect {
        Err(category) => {
            return match got {
                Err(_) => Ok(true),
                Ok(g) => Err(format!(
                    "expected a {category} error, got dtype {} shape {:?}",
                    g.dtype, g.shape
                )),
            };
        }
        Ok(w) => w,
    };
    let g = got.map_err(|e| format!("unexpected error: {e}"))?;
    if g.dtype != want.dtype {
        return Err(format!("dtype {} expected {}", g.dtype, want.dtype));
    }
    if g.shape != want.shape {
        return Err(format!("shape {:?} expected {:?}", g.shape, want.shape));
    }
    if g.values.len() != want.values.len() {
        return Err("wrong number of values".into());
    }
    if g.indices != want.indices {
        return Err(format!(
            "indices {:?} expected {:?}",
            g.indices, want.indices
        ));
    }
    let exact = matches!(case.op.as_str(), "amax" | "amin" | "max_dim" | "min_dim");
    for (i, (&gv, &wv)) in g.values.iter().zip(&want.values).enumerate() {
        let ok = if !want.dtype.is_float() {
            gv == wv
        } else {
            let (x, y) = (f(gv), f(wv));
            if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() || exact {
                x == y
            } else {
                let tol = want.atol.as_ref().map_or(0.0, |a| a[i]);
                (x - y).abs() <= tol
            }
        };
        if !ok {
            return Err(format!("[{i}] got {gv:?} expected {wv:?}"));
        }
    }
    Ok(true)
}

/// A float input cast to an integer `dtype` where some value (NaN, or out of the integer's
/// range) has no defined conversion: undefined behaviour in torch's C++ (ops.json flags such
/// cases `float_to_int_ub`); weft saturates. Judged as skipped when weft runs it.
fn float_to_int_ub(case: &Case) -> bool {
    let Some(to) = case.dtype else { return false };
    if !case.input.dtype.is_float() || to.is_float() || to == DType::Bool {
        return false;
    }
    let (lo, hi) = match to {
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        DType::I16 => (-32768.0, 32767.0),
        DType::I32 => (-2147483648.0, 2147483647.0),
        _ => (-9223372036854775808.0, 9223372036854775807.0),
    };
    case.input
        .logical()
        .into_iter()
        .map(f)
        .any(|v| v.is_nan() || v.trunc() < lo || v.trunc() >= hi + 1.0)
}
