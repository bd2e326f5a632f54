//! Golden-case harness shared by the golden tests: parses `ops.json` (directory from
//! `WEFT_GOLDEN_DIR`, default `../shared/golden`), runs every case through an [`Evaluator`],
//! and judges the result with the comparison rules of the golden README.
//!
//! The evaluator is the only thing a test supplies: `tests/golden_functors.rs` plugs in a
//! naive reference evaluator built on the functors; the real ops layer plugs in the same way.

#![allow(dead_code)]

pub mod reductions;

use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use weft::{DType, Element, Scalar, Value};

/// A tensor operand exactly as stored in the golden file.
#[derive(Clone, Debug)]
pub struct TensorArg {
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// In elements, never negative.
    pub strides: Vec<usize>,
    pub offset: usize,
    /// The whole storage, one exact [`Value`] per element (`F32` for f16/bf16/f32).
    pub storage: Vec<Value>,
}

impl TensorArg {
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The logical elements in row-major order.
    pub fn logical(&self) -> Vec<Value> {
        let n = self.numel();
        let mut out = Vec::with_capacity(n);
        let mut idx = vec![0usize; self.shape.len()];
        for _ in 0..n {
            let pos = self.offset
                + idx
                    .iter()
                    .zip(&self.strides)
                    .map(|(i, s)| i * s)
                    .sum::<usize>();
            out.push(self.storage[pos]);
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                if idx[d] < self.shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        out
    }
}

/// One operand: a tensor or a Python scalar ("wrapped number").
#[derive(Clone, Debug)]
pub enum Operand {
    Tensor(TensorArg),
    Scalar(Scalar),
}

/// The keyword arguments a few ops take.
#[derive(Clone, Debug, Default)]
pub struct Kwargs {
    /// gelu: `approximate == "tanh"`.
    pub gelu_tanh: bool,
    /// clamp bounds (`None` = null).
    pub clamp_min: Option<Scalar>,
    pub clamp_max: Option<Scalar>,
    /// to: the target dtype.
    pub to: Option<DType>,
}

#[derive(Clone, Debug)]
pub enum Expect {
    Values {
        dtype: DType,
        shape: Vec<usize>,
        values: Vec<Value>,
        /// `expect_alt` (cases flagged `torch_path_dependent`): other value lists torch also
        /// produces, same dtype and shape; rule 6 accepts any of them.
        alts: Vec<Vec<Value>>,
    },
    Error {
        category: String,
    },
}

#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    pub op: String,
    pub args: Vec<Operand>,
    pub kwargs: Kwargs,
    pub expect: Expect,
    pub flags: Vec<String>,
}

/// What an evaluator returns for a case that succeeds: dtype, shape and the row-major values.
#[derive(Clone, Debug)]
pub struct Output {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub values: Vec<Value>,
}

/// Runs one case. `Err` means "the op refused" (any error kind), with a message.
pub trait Evaluator {
    fn eval(&self, case: &Case) -> Result<Output, String>;
}

/// The 39 ops of ops.json; a case with any other op is a failure.
pub const OPS_JSON_OPS: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "floor_divide",
    "remainder",
    "pow",
    "maximum",
    "minimum",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "neg",
    "abs",
    "sign",
    "relu",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "logical_not",
    "gelu",
    "clamp",
    "where",
    "masked_fill",
    "to",
];

/// A case file in the ops.json schema and the ops it must hold (its `op_info` must name
/// exactly these). Adding a file (ops_more.json, ...) is one entry here, once the evaluators
/// run its ops.
pub struct CaseFile {
    pub name: &'static str,
    pub ops: &'static [&'static str],
    /// The comparison facts of every op when the file has no `op_info` of its own (its README
    /// section states them for the whole file); `None`: the file must carry `op_info`.
    pub implied_info: Option<ImpliedInfo>,
}

/// One file's comparison rules, the same for all its ops (unsigned.json: exact for integer
/// and bool results, bit-exact for float results).
#[derive(Copy, Clone, Debug)]
pub struct ImpliedInfo {
    pub float_exact: bool,
    pub zero_sign_strict: bool,
    /// The ops that take one operand; the others take two.
    pub unary: &'static [&'static str],
    /// The set writes some 0-d results as shape `[1]`: unsigned.json's NumPy generator does so
    /// for every unary op on a 0-d tensor and for bfloat16 pairs of 0-d tensors (NumPy has no
    /// bfloat16), against its own rule (0-d in, 0-d out, as in PyTorch and NumPy). Accepted
    /// when every tensor operand is 0-d and the result is 0-d; the values still count.
    pub zero_dim_as_one: bool,
}

pub const CASE_FILES: &[CaseFile] = &[
    CaseFile {
        name: "ops.json",
        ops: OPS_JSON_OPS,
        implied_info: None,
    },
    CaseFile {
        name: "ops_more.json",
        ops: OPS_MORE_JSON_OPS,
        implied_info: None,
    },
    CaseFile {
        name: "unsigned.json",
        ops: UNSIGNED_JSON_OPS,
        implied_info: Some(ImpliedInfo {
            float_exact: true,
            zero_sign_strict: true,
            unary: &["neg", "abs", "bitwise_not", "to"],
            zero_dim_as_one: true,
        }),
    },
];

/// The ops of unsigned.json (issue 16's u16/u32/u64 cases, computed with NumPy).
pub const UNSIGNED_JSON_OPS: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "floor_divide",
    "remainder",
    "maximum",
    "minimum",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "neg",
    "abs",
    "bitwise_not",
    "to",
];

/// The ops of ops_more.json (issue 12's 55 more elementwise ops).
pub const OPS_MORE_JSON_OPS: &[&str] = &[
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_right_shift",
    "ceil",
    "celu",
    "copysign",
    "cosh",
    "deg2rad",
    "elu",
    "erf",
    "erfc",
    "exp2",
    "expm1",
    "floor",
    "fmax",
    "fmin",
    "fmod",
    "frac",
    "gcd",
    "hardsigmoid",
    "hardswish",
    "heaviside",
    "hypot",
    "isfinite",
    "isinf",
    "isnan",
    "lcm",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logit",
    "logsigmoid",
    "mish",
    "nextafter",
    "rad2deg",
    "reciprocal",
    "round",
    "selu",
    "signbit",
    "silu",
    "sinh",
    "softplus",
    "softsign",
    "square",
    "tan",
    "trunc",
    "xlogy",
];

/// The error categories of ops.json (README "Error category"); any other is a failure.
pub const ERROR_CATEGORIES: &[&str] = &[
    "dtype",
    "shape",
    "zero_division",
    "scalar_overflow",
    "negative_int_power",
    "signature",
    // ops_more.json: another error torch raises (heaviside of two dtypes, ...).
    "other",
];

/// The case flags of the README; any other is a failure.
pub const FLAGS: &[&str] = &[
    "float_to_int_ub",
    "int_wraps",
    "scalar_wraps",
    "torch_path_dependent",
];

/// At most this percentage of a file's cases may be skipped (`float_to_int_ub` cases and
/// `signature` errors the Rust API accepts); more means a damaged case set or a lax evaluator.
pub const MAX_SKIPPED_PERCENT: usize = 5;

#[derive(Copy, Clone, Debug)]
pub struct OpInfo {
    pub arity: usize,
    pub float_exact: bool,
    pub zero_sign_strict: bool,
    /// The case set may write a 0-d result's shape as `[1]` (see [`ImpliedInfo`]).
    pub zero_dim_as_one: bool,
}

pub struct Golden {
    /// The file's name without `.json` (`ops`), as the summary line prints it.
    pub name: String,
    pub cases: Vec<Case>,
    pub op_info: HashMap<String, OpInfo>,
    /// Cases that could not be parsed (`id: reason`): each is a failure.
    pub unparsable: Vec<String>,
    /// Problems with the case set as a whole (counts, ops without cases, ...): each fails the run.
    pub problems: Vec<String>,
}

pub fn golden_dir() -> PathBuf {
    match std::env::var_os("WEFT_GOLDEN_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/golden")),
    }
}

/// Reads `name` from [`golden_dir`]; panics (fails the test) when it is missing or not JSON.
pub fn read_json(name: &str) -> Json {
    read_json_at(&golden_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

pub fn dtype_of(j: &Json) -> Result<DType, String> {
    let s = j
        .as_str()
        .ok_or_else(|| format!("dtype is not a string: {j}"))?;
    DType::from_name(s).ok_or_else(|| format!("unknown dtype {s}"))
}

pub fn f64_of(j: &Json) -> Result<f64, String> {
    match j {
        Json::Number(n) => n.as_f64().ok_or_else(|| format!("bad float {n}")),
        Json::String(s) => match s.as_str() {
            "nan" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => Err(format!("bad float string {s}")),
        },
        _ => Err(format!("bad float {j}")),
    }
}

/// One element of `dtype`, exactly.
pub fn element(j: &Json, dtype: DType) -> Result<Value, String> {
    Ok(match dtype {
        // A bool element may also be written 0 or 1.
        DType::Bool => Value::Bool(match (j.as_bool(), j.as_u64()) {
            (Some(b), _) => b,
            (None, Some(v @ (0 | 1))) => v == 1,
            _ => return Err(format!("bad bool {j}")),
        }),
        d if d.is_integer() => {
            let v = match (j.as_i64(), j.as_u64()) {
                (Some(i), _) => Value::Int(i),
                (None, Some(u)) => Value::UInt(u),
                _ => return Err(format!("bad integer {j}")),
            };
            let (lo, hi) = d.int_range();
            if !(lo..=hi).contains(&v.as_i128().unwrap_or(0)) {
                return Err(format!("{j} is out of range for {d}"));
            }
            // The form `to_value` gives for this dtype (`UInt` for u64, `Int` otherwise).
            weft::with_dtype!(d, T => T::from_value(v).to_value())
        }
        DType::F64 => Value::F64(f64_of(j)?),
        // Values are exact except in a few hand-written cases (`88.7` in a float32 storage),
        // where torch rounded the Python float when it built the tensor: round the same way
        // (f64 -> f32 -> f16/bf16, as c10 does).
        DType::F32 => Value::F32(f64_of(j)? as f32),
        DType::F16 => Value::F32(half::f16::from_f32(f64_of(j)? as f32).to_f32()),
        _ => Value::F32(half::bf16::from_f32(f64_of(j)? as f32).to_f32()),
    })
}

fn usize_list(j: &Json) -> Result<Vec<usize>, String> {
    j.as_array()
        .ok_or_else(|| format!("not a list: {j}"))?
        .iter()
        .map(|v| {
            v.as_u64()
                .map(|u| u as usize)
                .ok_or_else(|| format!("bad size {v}"))
        })
        .collect()
}

fn scalar_of(j: &Json) -> Result<Scalar, String> {
    let v = &j["value"];
    let label = j["type"].as_str().ok_or("scalar without type")?;
    if !matches!(label, "bool" | "int" | "float") {
        return Err(format!("bad scalar type {label}"));
    }
    // A few clamp bounds in ops.json disagree with their label (`"type":"int","value":1.2798`,
    // `"type":"float","value":-3`); the expected dtypes show a bound is a float when either the
    // label or the JSON number says so.
    match v {
        Json::Bool(b) => Ok(Scalar::Bool(*b)),
        Json::Number(n) if label == "int" && n.is_i64() => {
            Ok(Scalar::Int(n.as_i64().ok_or("bad int")?))
        }
        Json::Number(n) if label == "int" && n.is_u64() => {
            Ok(Scalar::from(n.as_u64().ok_or("bad int")?))
        }
        _ => Ok(Scalar::Float(f64_of(v)?)),
    }
}

pub fn operand_of(j: &Json) -> Result<Operand, String> {
    match j["kind"].as_str() {
        Some("scalar") => Ok(Operand::Scalar(scalar_of(j)?)),
        Some("tensor") => {
            let dtype = dtype_of(&j["dtype"])?;
            let shape = usize_list(&j["shape"])?;
            let strides = usize_list(&j["strides"])?;
            if shape.len() != strides.len() {
                return Err("shape and strides differ in length".into());
            }
            let offset = j["offset"].as_u64().ok_or("bad offset")? as usize;
            let storage = j["storage"]
                .as_array()
                .ok_or("storage is not a list")?
                .iter()
                .map(|e| element(e, dtype))
                .collect::<Result<Vec<_>, _>>()?;
            let t = TensorArg {
                dtype,
                shape,
                strides,
                offset,
                storage,
            };
            // Every element of the view must lie in the storage.
            if t.numel() > 0 {
                let last = t.offset
                    + t.shape
                        .iter()
                        .zip(&t.strides)
                        .map(|(n, s)| (n - 1) * s)
                        .sum::<usize>();
                if last >= t.storage.len() {
                    return Err("view reaches outside its storage".into());
                }
            }
            Ok(Operand::Tensor(t))
        }
        k => Err(format!("bad operand kind {k:?}")),
    }
}

fn case_of(j: &Json, ops: &[&str], op_info: &HashMap<String, OpInfo>) -> Result<Case, String> {
    let id = j["id"].as_str().ok_or("missing id")?.to_string();
    let op = j["op"].as_str().ok_or("missing op")?.to_string();
    if !ops.contains(&op.as_str()) {
        return Err(format!("unknown op {op}"));
    }
    if !op_info.contains_key(&op) {
        return Err(format!("op {op} has no op_info"));
    }
    // Ids are `<op>/NNNN` or `<op>/tNN`; casts may be `to/<src>-><dst>` (unsigned.json).
    let named_cast = |n: &str| {
        op == "to"
            && n.split_once("->").is_some_and(|(a, b)| {
                DType::from_name(a).is_some() && DType::from_name(b).is_some()
            })
    };
    match id.split_once('/') {
        Some((p, n))
            if p == op
                && (n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit())
                    || n.len() > 1
                        && n.starts_with('t')
                        && n[1..].bytes().all(|b| b.is_ascii_digit())
                    || named_cast(n)) => {}
        _ => return Err(format!("id {id} is not {op}/NNNN or {op}/tNN")),
    }
    let args = j["args"]
        .as_array()
        .ok_or("missing args")?
        .iter()
        .map(operand_of)
        .collect::<Result<Vec<_>, _>>()?;
    let arity = op_info[&op].arity;
    if args.len() != arity {
        return Err(format!("{} operands, {op} takes {arity}", args.len()));
    }
    let mut kwargs = Kwargs::default();
    if let Some(kw) = j.get("kwargs").and_then(|k| k.as_object()) {
        for (k, v) in kw {
            match (op.as_str(), k.as_str()) {
                ("gelu", "approximate") => {
                    kwargs.gelu_tanh = match v.as_str() {
                        Some("tanh") => true,
                        Some("none") => false,
                        _ => return Err(format!("bad approximate {v}")),
                    }
                }
                ("clamp", "min") => kwargs.clamp_min = bound_of(v)?,
                ("clamp", "max") => kwargs.clamp_max = bound_of(v)?,
                ("to", "dtype") => kwargs.to = Some(dtype_of(v)?),
                _ => return Err(format!("unknown kwarg {k} for {op}")),
            }
        }
    }
    if op == "to" && kwargs.to.is_none() {
        return Err("to without kwargs.dtype".into());
    }
    let flags = match j.get("flags") {
        None => Vec::new(),
        Some(f) => f
            .as_array()
            .ok_or("flags is not a list")?
            .iter()
            .map(|s| s.as_str().map(str::to_string).ok_or("bad flag"))
            .collect::<Result<Vec<_>, _>>()?,
    };
    if let Some(f) = flags.iter().find(|f| !FLAGS.contains(&f.as_str())) {
        return Err(format!("unknown flag {f}"));
    }
    let flagged = |f: &str| flags.iter().any(|g| g == f);
    let expect = match (j.get("expect"), j.get("error")) {
        (Some(e), None) => {
            let dtype = dtype_of(&e["dtype"])?;
            let shape = usize_list(&e["shape"])?;
            let numel = shape.iter().product::<usize>();
            let list = |v: &Json| -> Result<Vec<Value>, String> {
                let values = v
                    .as_array()
                    .ok_or("values is not a list")?
                    .iter()
                    .map(|v| element(v, dtype))
                    .collect::<Result<Vec<_>, _>>()?;
                if values.len() != numel {
                    return Err(format!(
                        "{} values for the expected shape {shape:?}",
                        values.len()
                    ));
                }
                Ok(values)
            };
            let values = list(&e["values"])?;
            // Rule 6: only `torch_path_dependent` cases have (and must have) other answers.
            let alts = match (j.get("expect_alt"), flagged("torch_path_dependent")) {
                (None, false) => Vec::new(),
                (Some(a), true) => {
                    let alts = a
                        .as_array()
                        .ok_or("expect_alt is not a list")?
                        .iter()
                        .map(list)
                        .collect::<Result<Vec<_>, _>>()?;
                    if alts.is_empty() {
                        return Err("torch_path_dependent with an empty expect_alt".into());
                    }
                    alts
                }
                (None, true) => return Err("torch_path_dependent without expect_alt".into()),
                (Some(_), false) => return Err("expect_alt without torch_path_dependent".into()),
            };
            Expect::Values {
                dtype,
                shape,
                values,
                alts,
            }
        }
        (None, Some(e)) => {
            let category = e["category"]
                .as_str()
                .ok_or("error without category")?
                .to_string();
            if !ERROR_CATEGORIES.contains(&category.as_str()) {
                return Err(format!("unknown error category {category}"));
            }
            if flagged("torch_path_dependent") || j.get("expect_alt").is_some() {
                return Err("an error case with expect_alt".into());
            }
            Expect::Error { category }
        }
        _ => return Err("a case needs exactly one of expect and error".into()),
    };
    // Rule 5 skips `float_to_int_ub` cases: the flag must mark a float -> integer conversion
    // (`to` from a float dtype to an integer one, or a float value filled into an integer tensor).
    if flagged("float_to_int_ub") {
        let int = |d: DType| d.is_integer();
        let genuine = match (op.as_str(), args.as_slice()) {
            ("to", [Operand::Tensor(t)]) => t.dtype.is_float() && kwargs.to.is_some_and(int),
            ("masked_fill", [Operand::Tensor(x), _, v]) => {
                int(x.dtype)
                    && match v {
                        Operand::Scalar(s) => s.dtype().is_float(),
                        Operand::Tensor(t) => t.dtype.is_float(),
                    }
            }
            _ => false,
        };
        if !genuine || !matches!(expect, Expect::Values { .. }) {
            return Err("float_to_int_ub on a case without a float -> integer conversion".into());
        }
    }
    Ok(Case {
        id,
        op,
        args,
        kwargs,
        expect,
        flags,
    })
}

fn bound_of(v: &Json) -> Result<Option<Scalar>, String> {
    if v.is_null() {
        return Ok(None);
    }
    match operand_of(v)? {
        Operand::Scalar(s) => Ok(Some(s)),
        Operand::Tensor(_) => Err("tensor clamp bound".into()),
    }
}

pub fn read_json_at(path: &Path) -> Result<Json, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("golden file {} is missing: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: invalid JSON: {e}", path.display()))
}

/// The number written just before `phrase` in `text` (`"9,107 with values"`).
pub fn number_before(text: &str, phrase: &str) -> Option<usize> {
    let head = text[..text.find(phrase)?].trim_end();
    let word = head
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()?;
    word.replace(',', "").parse().ok()
}

/// What the README in `dir` states about `file` in its table row
/// (`| \`ops.json\` | 9,759 elementwise cases (9,107 with values, 652 expected errors, 299
/// hand-written edge cases) ...`): (total, with values, errors, hand-written), each if stated.
fn readme_counts(dir: &Path, file: &str) -> Option<[Option<usize>; 4]> {
    let readme = std::fs::read_to_string(dir.join("README.md")).ok()?;
    let row = readme
        .lines()
        .find(|l| l.starts_with(&format!("| `{file}` |")))?;
    let cell = row.split('|').nth(2)?.trim();
    let total = cell
        .split_whitespace()
        .next()
        .and_then(|w| w.replace(',', "").parse().ok());
    total?;
    Some([
        total,
        number_before(cell, "with values"),
        number_before(cell, "expected errors"),
        number_before(cell, "hand-written"),
    ])
}

/// Loads and validates a case file in the ops.json schema from `dir`. Never panics on its
/// content: unparsable cases land in `unparsable`, a damaged case set in `problems`.
pub fn load(dir: &Path, file: &str) -> Golden {
    let mut g = Golden {
        name: file.strip_suffix(".json").unwrap_or(file).to_string(),
        cases: Vec::new(),
        op_info: HashMap::new(),
        unparsable: Vec::new(),
        problems: Vec::new(),
    };
    let Some(spec) = CASE_FILES.iter().find(|f| f.name == file) else {
        g.problems
            .push(format!("{file} is not a case file the harness knows"));
        return g;
    };
    let j = match read_json_at(&dir.join(file)) {
        Ok(j) => j,
        Err(e) => {
            g.problems.push(e);
            return g;
        }
    };
    match j["op_info"].as_object() {
        None if let Some(implied) = spec.implied_info => {
            for op in spec.ops {
                let arity = if implied.unary.contains(op) { 1 } else { 2 };
                g.op_info.insert(
                    op.to_string(),
                    OpInfo {
                        arity,
                        float_exact: implied.float_exact,
                        zero_sign_strict: implied.zero_sign_strict,
                        zero_dim_as_one: implied.zero_dim_as_one,
                    },
                );
            }
        }
        None => g.problems.push("missing op_info".into()),
        Some(infos) => {
            for (name, info) in infos {
                if !spec.ops.contains(&name.as_str()) {
                    g.problems.push(format!(
                        "op_info names {name}, an op the harness does not know"
                    ));
                }
                match (
                    info["arity"].as_u64(),
                    info["float_exact"].as_bool(),
                    info["zero_sign_strict"].as_bool(),
                ) {
                    (Some(arity), Some(float_exact), Some(zero_sign_strict)) => {
                        g.op_info.insert(
                            name.clone(),
                            OpInfo {
                                arity: arity as usize,
                                float_exact,
                                zero_sign_strict,
                                zero_dim_as_one: false,
                            },
                        );
                    }
                    _ => g
                        .problems
                        .push(format!("op_info.{name} is incomplete: {info}")),
                }
            }
        }
    }
    for op in spec.ops {
        if !g.op_info.contains_key(*op) {
            g.problems.push(format!("op {op} is missing from op_info"));
        }
    }
    let Some(raw) = j["cases"].as_array() else {
        g.problems.push("missing cases".into());
        return g;
    };
    // Per op: the case numbers of `<op>/NNNN` and of `<op>/tNN`.
    let mut numbers: HashMap<&str, (Vec<usize>, Vec<usize>)> = HashMap::new();
    let mut ids = std::collections::HashSet::new();
    let (mut with_values, mut errors, mut hand) = (0, 0, 0);
    for c in raw {
        let id = c["id"].as_str().unwrap_or("?");
        if !ids.insert(id) {
            g.problems.push(format!("duplicate case id {id}"));
        }
        if let Some((op, n)) = id.split_once('/') {
            let e = numbers.entry(op).or_default();
            if let Some(t) = n.strip_prefix('t') {
                hand += 1;
                e.1.extend(t.parse::<usize>().ok());
            } else {
                e.0.extend(n.parse::<usize>().ok());
            }
        }
        with_values += c.get("expect").is_some() as usize;
        errors += c.get("error").is_some() as usize;
        match case_of(c, spec.ops, &g.op_info) {
            Ok(case) => g.cases.push(case),
            Err(e) => g.unparsable.push(format!("{id}: {e}")),
        }
    }
    let mut ops: Vec<&String> = g.op_info.keys().collect();
    ops.sort();
    for op in ops {
        match numbers.get_mut(op.as_str()) {
            None => g.problems.push(format!("op {op} has no cases")),
            Some((r, t)) => {
                for (kind, v) in [("", r), ("t", t)] {
                    v.sort_unstable();
                    if v.iter().enumerate().any(|(i, &n)| i != n) {
                        g.problems.push(format!(
                            "the {op}/{kind}N cases are not numbered 0..{} (cases missing)",
                            v.len()
                        ));
                    }
                }
            }
        }
    }
    // A count the file states about itself.
    if let Some(meta) = j["meta"].as_object() {
        for key in ["n_cases", "num_cases", "case_count", "count"] {
            if let Some(n) = meta.get(key).and_then(Json::as_u64)
                && n as usize != raw.len()
            {
                g.problems.push(format!(
                    "meta.{key} says {n} cases, the file has {}",
                    raw.len()
                ));
            }
        }
    }
    // The counts the README of the case set states for this file.
    if let Some(stated) = readme_counts(dir, file) {
        let found = [Some(raw.len()), Some(with_values), Some(errors), Some(hand)];
        for ((what, s), f) in [
            "cases",
            "cases with values",
            "error cases",
            "hand-written cases",
        ]
        .iter()
        .zip(stated)
        .zip(found)
        {
            if let (Some(s), Some(f)) = (s, f)
                && s != f
            {
                g.problems
                    .push(format!("README.md states {s} {what}, the file has {f}"));
            }
        }
    }
    g
}

/// Loads ops.json from [`golden_dir`].
pub fn load_ops() -> Golden {
    load(&golden_dir(), "ops.json")
}

/// (precision p, emin, ulps) of a float dtype.
fn float_params(d: DType) -> (i32, i32, f64, f64) {
    // (p, emin, ULPS, eps)
    match d {
        DType::F16 => (11, -14, 2.0, 2f64.powi(-10)),
        DType::BF16 => (8, -126, 2.0, 2f64.powi(-7)),
        DType::F32 => (24, -126, 4.0, 2f64.powi(-23)),
        _ => (53, -1022, 4.0, 2f64.powi(-52)),
    }
}

fn ulp(v: f64, d: DType) -> f64 {
    let (p, emin, _, _) = float_params(d);
    let e = if v == 0.0 {
        emin
    } else {
        // floor(log2|v|) from the f64 exponent; f64 subnormals fall under emin anyway.
        let bits = ((v.abs().to_bits() >> 52) & 0x7ff) as i32;
        (bits - 1023).max(emin)
    };
    2f64.powi(e - (p - 1))
}

pub fn as_f64(v: Value) -> f64 {
    v.to_f64()
}

/// Compares one element under the README rules; `x` is the input element (gelu's floor).
pub fn element_matches(
    op: &str,
    info: OpInfo,
    dtype: DType,
    got: Value,
    exp: Value,
    x: Option<f64>,
) -> bool {
    if !dtype.is_float() {
        return got == exp;
    }
    let (g, e) = (as_f64(got), as_f64(exp));
    if e.is_nan() || g.is_nan() {
        return e.is_nan() && g.is_nan();
    }
    if e.is_infinite() || g.is_infinite() {
        return g == e;
    }
    if info.float_exact {
        if g != e {
            return false;
        }
        return !(info.zero_sign_strict
            && g == 0.0
            && g.is_sign_negative() != e.is_sign_negative());
    }
    let (_, emin, ulps, eps) = float_params(dtype);
    let floor = if op == "gelu" {
        2.0 * eps * x.map_or(1.0, |x| x.abs().max(1.0))
    } else {
        2f64.powi(emin)
    };
    (g - e).abs() <= ulps * ulp(e, dtype) + floor
}

/// The result of running one case file.
#[derive(Default, Debug)]
pub struct Summary {
    /// The file's name without `.json`.
    pub name: String,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// `id: reason` for every failed case (unparsable cases included).
    pub failures: Vec<String>,
    /// Problems with the case set as a whole; any fails the run.
    pub problems: Vec<String>,
}

impl Summary {
    /// A new summary for the file `name` (without `.json`).
    pub fn new(name: &str) -> Summary {
        Summary {
            name: name.to_string(),
            ..Summary::default()
        }
    }

    /// Counts one case: `Ok(true)` passed, `Ok(false)` skipped, `Err` failed.
    pub fn count(&mut self, id: &str, r: Result<bool, String>) {
        match r {
            Ok(true) => self.passed += 1,
            Ok(false) => self.skipped += 1,
            Err(e) => {
                self.failed += 1;
                self.failures.push(format!("{id}: {e}"));
            }
        }
    }

    /// Fails the run when more than [`MAX_SKIPPED_PERCENT`] of the cases were skipped.
    pub fn limit_skips(&mut self) {
        let total = self.passed + self.failed + self.skipped;
        if self.skipped * 100 > total * MAX_SKIPPED_PERCENT {
            self.problems.push(format!(
                "{} of {total} cases skipped (more than {MAX_SKIPPED_PERCENT}%)",
                self.skipped
            ));
        }
        if total == 0 {
            self.problems.push("no cases".into());
        }
    }

    /// Prints the failures, the problems and `<file>: N passed, N failed, N skipped`.
    pub fn print(&self) {
        for f in self.failures.iter().take(60) {
            eprintln!("FAIL {}/{f}", self.name);
        }
        if self.failures.len() > 60 {
            eprintln!("... {} more failures", self.failures.len() - 60);
        }
        for p in &self.problems {
            eprintln!("DAMAGED {}: {p}", self.name);
        }
        println!(
            "{}: {} passed, {} failed, {} skipped",
            self.name, self.passed, self.failed, self.skipped
        );
    }

    /// No failed case and no problem with the case set.
    pub fn ok(&self) -> bool {
        self.failed == 0 && self.problems.is_empty()
    }

    /// Panics (fails the test) unless [`Summary::ok`].
    pub fn assert_ok(&self) {
        assert!(
            self.ok(),
            "{}: {} golden cases failed, case set problems: {:?}; first failures: {:#?}",
            self.name,
            self.failed,
            self.problems,
            &self.failures[..self.failures.len().min(20)]
        );
    }
}

fn fmt_v(v: Value) -> String {
    match v {
        Value::F32(x) => format!("{x:?}"),
        Value::F64(x) => format!("{x:?}"),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
    }
}

/// The elements of `got` that do not match `want` under rules 3-4: index and `[i] got .. expected ..`.
fn mismatches(
    case: &Case,
    info: OpInfo,
    dtype: DType,
    got: &[Value],
    want: &[Value],
    xs: Option<&[Value]>,
) -> Vec<(usize, String)> {
    let mut bad = Vec::new();
    for (i, (&g, &e)) in got.iter().zip(want).enumerate() {
        let x = xs.map(|xs| as_f64(xs[i]));
        if !element_matches(&case.op, info, dtype, g, e, x)
            && !correctly_rounded(&case.op, dtype, g, x)
        {
            bad.push((i, format!("[{i}] got {} expected {}", fmt_v(g), fmt_v(e))));
        }
    }
    bad
}

/// The case with every NaN of its float tensor inputs negated; `None` when it has none.
fn with_negative_nans(case: &Case) -> Option<Case> {
    let mut c = case.clone();
    let mut any = false;
    for a in &mut c.args {
        if let Operand::Tensor(t) = a {
            for v in &mut t.storage {
                match v {
                    Value::F32(x) if x.is_nan() => (*x, any) = (-f32::NAN, true),
                    Value::F64(x) if x.is_nan() => (*x, any) = (-f64::NAN, true),
                    _ => {}
                }
            }
        }
    }
    any.then_some(c)
}

/// The exactness rule's other side: `float_exact` means correctly rounded, and a value that
/// *is* the correctly rounded result passes even where torch's vectorized path is 1 ulp off
/// (its contiguous f32 sqrt, VML-style, is not always correctly rounded). Checked where the
/// exact result is computable here: sqrt into f32/f16/bf16, from the input rounded to the
/// result dtype, through f64 (53 >= 2 * 24 + 2 bits: rounding twice is exact for sqrt).
fn correctly_rounded(op: &str, dtype: DType, got: Value, x: Option<f64>) -> bool {
    let Some(x) = x else { return false };
    let round = |v: f64| match dtype {
        DType::F32 => Some(v as f32 as f64),
        DType::F16 => Some(half::f16::from_f64(v).to_f64()),
        DType::BF16 => Some(half::bf16::from_f64(v).to_f64()),
        _ => None,
    };
    match (op, round(x)) {
        ("sqrt", Some(xr)) => round(xr.sqrt()) == Some(as_f64(got)) && as_f64(got) > 0.0,
        _ => false,
    }
}

/// Judges one case; `Ok(true)` passed, `Ok(false)` skipped, `Err` failed with a reason.
/// Skipped are only `float_to_int_ub` cases (that ran without an error) and `signature` errors
/// the Rust API accepts.
pub fn judge(case: &Case, info: OpInfo, ev: &dyn Evaluator) -> Result<bool, String> {
    let got = ev.eval(case);
    let ub = case.flags.iter().any(|f| f == "float_to_int_ub");
    match &case.expect {
        Expect::Error { category } => match got {
            Err(_) => Ok(true),
            // The Rust API may deliberately accept what Python's signature refuses.
            Ok(_) if category == "signature" => Ok(false),
            Ok(o) => Err(format!(
                "expected a {category} error, got dtype {} shape {:?}",
                o.dtype, o.shape
            )),
        },
        Expect::Values {
            dtype,
            shape,
            values,
            alts,
        } => {
            let o = got.map_err(|e| format!("unexpected error: {e}"))?;
            if ub {
                return Ok(false); // ran without an error; the values are UB in torch.
            }
            if o.dtype != *dtype {
                return Err(format!("dtype {} != expected {dtype}", o.dtype));
            }
            let all_zero_dim = case.args.iter().all(|a| match a {
                Operand::Tensor(t) => t.shape.is_empty(),
                Operand::Scalar(_) => true,
            });
            let written_as_one =
                info.zero_dim_as_one && all_zero_dim && o.shape.is_empty() && shape == &[1];
            if o.shape != *shape && !written_as_one {
                return Err(format!("shape {:?} != expected {shape:?}", o.shape));
            }
            if o.values.len() != values.len() {
                return Err(format!(
                    "{} values, expected {}",
                    o.values.len(),
                    values.len()
                ));
            }
            let xs = match (case.op.as_str(), &case.args[0]) {
                ("gelu" | "sqrt", Operand::Tensor(t)) => Some(t.logical()),
                _ => None,
            };
            let xs = xs.as_deref();
            let mut bad = mismatches(case, info, *dtype, &o.values, values, xs);
            // Rule 6: a torch_path_dependent case may match any of torch's other answers.
            if bad.is_empty()
                || alts
                    .iter()
                    .any(|alt| mismatches(case, info, *dtype, &o.values, alt, xs).is_empty())
            {
                return Ok(true);
            }
            // An input NaN is written "nan" whatever its sign bit, yet a few results depend on
            // that bit (copysign's sign operand, signbit): an element also passes when it
            // matches with the input NaNs read as -NaN (the README ignores the sign of NaN).
            if let Some(neg) = with_negative_nans(case)
                && let Ok(o2) = ev.eval(&neg)
                && o2.values.len() == values.len()
            {
                let bad2 = mismatches(case, info, *dtype, &o2.values, values, xs);
                bad.retain(|(i, _)| bad2.iter().any(|(j, _)| j == i));
                if bad.is_empty() {
                    return Ok(true);
                }
            }
            let n = bad.len();
            let mut bad: Vec<String> = bad.into_iter().map(|(_, m)| m).collect();
            bad.truncate(4);
            let alt = if alts.is_empty() {
                String::new()
            } else {
                format!(" (nor any of {} expect_alt)", alts.len())
            };
            Err(format!("{n} values differ{alt}: {}", bad.join(", ")))
        }
    }
}

/// Runs every case of a loaded file and prints `<file>: N passed, N failed, N skipped`.
/// Unparsable cases count as failed; the load's problems and too many skips are `problems`.
pub fn run(golden: &Golden, ev: &dyn Evaluator) -> Summary {
    let s = run_cases(golden, ev);
    s.print();
    s
}

/// [`run`] without the printing (the caller adds more checks first).
pub fn run_cases(golden: &Golden, ev: &dyn Evaluator) -> Summary {
    let mut s = Summary::new(&golden.name);
    s.problems = golden.problems.clone();
    for u in &golden.unparsable {
        s.failed += 1;
        s.failures.push(format!("unparsable case {u}"));
    }
    for case in &golden.cases {
        let info = golden.op_info[&case.op];
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| judge(case, info, ev)))
            .unwrap_or_else(|_| Err("panicked".to_string()));
        s.count(&case.id, r);
    }
    s.limit_skips();
    s
}

/// Loads `file` (a [`CASE_FILES`] entry) from `dir`, validates it and runs every case.
pub fn run_file(dir: &Path, file: &str, ev: &dyn Evaluator) -> Summary {
    run(&load(dir, file), ev)
}
