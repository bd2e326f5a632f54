//! Every case of the golden `ops.json` (PyTorch 2.15) run through weft's real ops layer:
//! `DynTensor` operands built over the golden storage with the golden strides and offset, the
//! op called through the public API, and the result judged by the README's rules.
//!
//! Prints `ops: N passed, N failed, N skipped`; fails on any failed case (an unknown op or an
//! unparsable case is one), and on a damaged case set (see the harness). A `torch_path_dependent`
//! case passes on `expect` or any `expect_alt` (README rule 6). Skipped: `float_to_int_ub`
//! cases only, and `signature` errors for forms the Rust API deliberately accepts (a scalar for
//! maximum/minimum/logical_*), at most a few percent of the file.

#[path = "golden_harness/mod.rs"]
mod golden;

use golden::{Case, Evaluator, Operand, Output, TensorArg};
use weft::functors::GeluApproximate;
use weft::ops::Operand as Op;
use weft::storage::Storage;
use weft::{DynTensor, Element, Layout, Tensor, with_dtype};

/// A `DynTensor` viewing a storage that holds the golden storage, with its strides and offset.
fn tensor(t: &TensorArg) -> DynTensor {
    with_dtype!(t.dtype, T => {
        let data: Vec<T> = t.storage.iter().map(|&v| T::from_value(v)).collect();
        let layout = Layout::new(
            t.shape.clone(),
            t.strides.iter().map(|&s| s as isize).collect(),
            t.offset,
        )
        .expect("layout");
        let storage = Storage::from_slice(&data);
        DynTensor::from(Tensor::from_parts(storage, layout).expect("view fits its storage"))
    })
}

fn output(d: &DynTensor) -> Output {
    let values = weft::dispatch!(d, t => t.to_vec().into_iter().map(|v| v.to_value()).collect());
    Output {
        dtype: d.dtype(),
        shape: d.shape().to_vec(),
        values,
    }
}

/// Tensors built once per case; operands borrow them.
struct Args {
    tensors: Vec<Option<DynTensor>>,
}

impl Args {
    fn new(case: &Case) -> Args {
        let tensors = case
            .args
            .iter()
            .map(|a| match a {
                Operand::Tensor(t) => Some(tensor(t)),
                Operand::Scalar(_) => None,
            })
            .collect();
        Args { tensors }
    }
    fn op<'a>(&'a self, case: &Case, i: usize) -> Op<'a> {
        match (&case.args[i], &self.tensors[i]) {
            (Operand::Scalar(s), _) => Op::Scalar(*s),
            (_, Some(t)) => Op::Tensor(t),
            _ => unreachable!(),
        }
    }
    fn tensor(&self, i: usize) -> Result<&DynTensor, String> {
        self.tensors[i]
            .as_ref()
            .ok_or_else(|| "expected a tensor operand".to_string())
    }
}

struct Weft;

impl Evaluator for Weft {
    fn eval(&self, case: &Case) -> Result<Output, String> {
        use weft::functors::{BinaryOp, UnaryOp};
        use weft::ops::{binary, special, unary};
        let args = Args::new(case);
        let r = match case.op.as_str() {
            "gelu" => {
                let approx = if case.kwargs.gelu_tanh {
                    GeluApproximate::Tanh
                } else {
                    GeluApproximate::None
                };
                args.tensor(0)?.try_gelu(approx)
            }
            "clamp" => args.tensor(0)?.try_clamp(
                case.kwargs.clamp_min.map(Op::Scalar),
                case.kwargs.clamp_max.map(Op::Scalar),
            ),
            "where" => special::where_(args.tensor(0)?, args.op(case, 1), args.op(case, 2), None),
            "masked_fill" => args
                .tensor(0)?
                .try_masked_fill(args.tensor(1)?, args.op(case, 2)),
            "to" => args
                .tensor(0)?
                .try_to(case.kwargs.to.ok_or("to without dtype")?),
            op => {
                if let Some(u) = UnaryOp::from_name(op) {
                    unary::unary(u, args.tensor(0)?, None)
                } else if let Some(b) = BinaryOp::from_name(op) {
                    binary::binary(b, args.op(case, 0), args.op(case, 1), None)
                } else {
                    return Err(format!("unknown op {op}"));
                }
            }
        };
        r.map(|d| output(&d)).map_err(|e| e.to_string())
    }
}

#[test]
fn golden_ops_through_the_ops_layer() {
    golden::run_file(&golden::golden_dir(), "ops.json", &Weft).assert_ok();
}

/// The 55 more ops of issue 12, each one functor and one line of the op table.
#[test]
fn golden_ops_more_through_the_ops_layer() {
    golden::run_file(&golden::golden_dir(), "ops_more.json", &Weft).assert_ok();
}

/// unsigned.json: the u16/u32/u64 cases through the ops layer, and its `promote_types`
/// table (all 169 pairs of dimensioned tensors, each one more counted case) against
/// `weft::promote_types`.
fn run_unsigned(dir: &std::path::Path) -> golden::Summary {
    let file = "unsigned.json";
    let mut s = golden::run_cases(&golden::load(dir, file), &Weft);
    let j = golden::read_json_at(&dir.join(file)).unwrap_or_default();
    // The README states the case count in prose ("1,709 op and cast cases").
    let cases = j["cases"].as_array().map_or(0, Vec::len);
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    if let Some(section) = readme.split("## unsigned.json").nth(1)
        && let Some(n) = golden::number_before(section, "op and cast cases")
        && n != cases
    {
        s.problems.push(format!(
            "README.md states {n} op and cast cases, the file has {cases}"
        ));
    }
    let pairs = j["promote_types"].as_array().cloned().unwrap_or_default();
    if pairs.len() != weft::DType::COUNT * weft::DType::COUNT {
        s.problems.push(format!(
            "promote_types has {} entries, not {}",
            pairs.len(),
            weft::DType::COUNT * weft::DType::COUNT
        ));
    }
    for p in &pairs {
        let names = (0..3)
            .map(|i| golden::dtype_of(&p[i]))
            .collect::<Result<Vec<_>, _>>();
        let id = format!("promote_types/{}", p);
        s.count(
            &id,
            names.and_then(|d| match weft::promote_types(d[0], d[1]) {
                r if r == d[2] => Ok(true),
                r => Err(format!("weft gives {r}")),
            }),
        );
    }
    s.print();
    s
}

#[test]
fn golden_unsigned() {
    run_unsigned(&golden::golden_dir()).assert_ok();
}

/// reductions.json: every case through `weft::reduce::reduce` (the same function every
/// reduction method calls), judged by the README's rules.
fn run_reductions(dir: &std::path::Path) -> golden::Summary {
    use golden::reductions::{self, Dim, Got};
    use weft::{Dims, ReduceArgs, ReduceOp};
    let names: Vec<&str> = ReduceOp::ALL.iter().map(|o| o.name()).collect();
    let mut summary = golden::Summary::new("reductions");
    for case in reductions::load(dir, &names, &mut summary) {
        let op = ReduceOp::from_name(&case.op).expect("load checks op names");
        let mut args = ReduceArgs::new(match &case.dim {
            Dim::All => Dims::All,
            Dim::One(d) => Dims::One(*d),
            Dim::List(l) => Dims::List(l.clone()),
        })
        // `dim: null` for these is torch's full-reduction overload (`torch.sum(x, dtype=..)`,
        // `torch.any(x)`), which has no keepdim; amax/amin take `dim=()`, argmax/var/...
        // `dim=None`, which keep it.
        .keepdim(
            case.keepdim
                && !(matches!(case.dim, Dim::All)
                    && matches!(case.op.as_str(), "sum" | "prod" | "mean" | "any" | "all")),
        );
        if let Some(d) = case.dtype {
            args = args.dtype(d);
        }
        if let Some(c) = case.correction {
            args = args.correction(c);
        }
        let x = tensor(&case.input);
        let got = weft::reduce::reduce(op, &x, &args)
            .map_err(|e| e.to_string())
            .map(|r| {
                let o = output(&r[0]);
                let indices = r
                    .get(1)
                    .map(|i| i.as_typed::<i64>().expect("i64 indices").to_vec());
                Got {
                    dtype: o.dtype,
                    shape: o.shape,
                    values: o.values,
                    indices,
                }
            });
        summary.count(&case.id, reductions::judge(&case, got));
    }
    summary.limit_skips();
    summary.print();
    summary
}

#[test]
fn golden_reductions() {
    run_reductions(&golden::golden_dir()).assert_ok();
}

/// Damaged copies of ops.json (in a temp dir, through `WEFT_GOLDEN_DIR`-style directories) must
/// make the harness report failure: fewer cases, ops removed, everything flagged as skippable,
/// unknown error categories, exactness flipped with values moved by one ulp, an unparsable case,
/// an unknown op.
mod damaged {
    use super::{Weft, golden};
    use serde_json::{Value as Json, json};
    use std::path::PathBuf;

    fn cases(j: &mut Json) -> &mut Vec<Json> {
        j["cases"].as_array_mut().unwrap()
    }

    /// Writes `j` as ops.json (and the real README.md when `readme`) into a fresh temp dir.
    fn write_set(name: &str, j: &Json, readme: bool) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("weft-golden-damaged-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ops.json"), serde_json::to_string(j).unwrap()).unwrap();
        if readme {
            std::fs::copy(
                golden::golden_dir().join("README.md"),
                dir.join("README.md"),
            )
            .unwrap();
        }
        dir
    }

    fn verdict(name: &str, j: &Json, readme: bool) -> golden::Summary {
        let dir = write_set(name, j, readme);
        let s = golden::run_file(&dir, "ops.json", &Weft);
        std::fs::remove_dir_all(&dir).unwrap();
        s
    }

    /// The neighbour one ulp away (lowest significand bit flipped) of a finite float of `dtype`.
    fn one_ulp(v: f64, dtype: &str) -> f64 {
        match dtype {
            "float64" => f64::from_bits(v.to_bits() ^ 1),
            "float32" => f32::from_bits((v as f32).to_bits() ^ 1) as f64,
            "float16" => half::f16::from_bits(half::f16::from_f64(v).to_bits() ^ 1).to_f64(),
            "bfloat16" => half::bf16::from_bits(half::bf16::from_f64(v).to_bits() ^ 1).to_f64(),
            d => panic!("not a float dtype {d}"),
        }
    }

    fn move_values(list: &mut Json, dtype: &str) {
        for v in list.as_array_mut().unwrap() {
            if let Some(x) = v.as_f64() {
                *v = json!(one_ulp(x, dtype));
            }
        }
    }

    #[test]
    fn damaged_case_sets_fail() {
        let orig = golden::read_json("ops.json");
        let base = verdict("pristine", &orig, true);
        assert!(
            base.problems.is_empty(),
            "the real case set has problems: {:?}",
            base.problems
        );
        let ops_of = |j: &Json| -> Vec<String> {
            let mut ops: Vec<String> = j["op_info"].as_object().unwrap().keys().cloned().collect();
            ops.sort();
            ops
        };
        let mut variants: Vec<(&str, Json, bool)> = Vec::new();

        // One case left.
        let mut j = orig.clone();
        cases(&mut j).truncate(1);
        variants.push(("one case left", j, false));

        // Whole ops removed from the cases (op_info kept), and from op_info too.
        let gone = ["add", "sqrt", "gelu"];
        let mut j = orig.clone();
        cases(&mut j).retain(|c| !gone.contains(&c["op"].as_str().unwrap()));
        variants.push(("ops removed from cases", j.clone(), false));
        for op in gone {
            j["op_info"].as_object_mut().unwrap().remove(op);
        }
        variants.push(("ops removed from cases and op_info", j, false));

        // One case from the middle of an op's numbering; the last one of an op (only the
        // README's stated count shows that).
        let mut j = orig.clone();
        cases(&mut j).retain(|c| c["id"] != "mul/0100");
        variants.push(("mul/0100 removed", j, false));
        let mut j = orig.clone();
        let last = cases(&mut j)
            .iter()
            .filter(|c| c["op"] == "div" && !c["id"].as_str().unwrap().contains("/t"))
            .map(|c| c["id"].clone())
            .max_by_key(|id| id.as_str().unwrap().to_string())
            .unwrap();
        cases(&mut j).retain(|c| c["id"] != last);
        variants.push(("last random div case removed, README present", j, true));

        // Every case flagged float_to_int_ub (skippable).
        let mut j = orig.clone();
        for c in cases(&mut j) {
            let flags = c
                .as_object_mut()
                .unwrap()
                .entry("flags")
                .or_insert(json!([]));
            flags.as_array_mut().unwrap().push(json!("float_to_int_ub"));
        }
        variants.push(("every case flagged float_to_int_ub", j, false));

        // Only the `to` cases that really convert float -> int flagged, from every other file
        // position: still genuine conversions, but far more than a few percent would be skipped.
        let mut j = orig.clone();
        for c in cases(&mut j) {
            if c["op"] == "to" {
                c["flags"] = json!(["float_to_int_ub"]);
                c.as_object_mut().unwrap().remove("expect_alt");
            }
        }
        variants.push(("every `to` case flagged float_to_int_ub", j, false));

        // Error categories replaced by an unknown one.
        let mut j = orig.clone();
        for c in cases(&mut j) {
            if let Some(e) = c.get_mut("error") {
                e["category"] = json!("mystery");
            }
        }
        variants.push(("unknown error categories", j, false));

        // float_exact flipped to true everywhere and every finite float value moved by 1 ulp.
        let mut j = orig.clone();
        for op in ops_of(&orig) {
            j["op_info"][&op]["float_exact"] = json!(true);
        }
        for c in cases(&mut j) {
            let Some(e) = c.get_mut("expect") else {
                continue;
            };
            let dtype = e["dtype"].as_str().unwrap().to_string();
            if dtype.starts_with("float") || dtype == "bfloat16" {
                move_values(&mut e["values"], &dtype);
                if let Some(alts) = c.get_mut("expect_alt") {
                    for a in alts.as_array_mut().unwrap() {
                        move_values(a, &dtype);
                    }
                }
            }
        }
        variants.push(("float_exact true, values moved 1 ulp", j, false));

        // An unparsable case (a string in an int storage) and a case naming an unknown op.
        let mut j = orig.clone();
        let c = cases(&mut j)
            .iter_mut()
            .find(|c| c["op"] == "add" && c["args"][0]["dtype"] == "int32")
            .unwrap();
        c["args"][0]["storage"][0] = json!("junk");
        variants.push(("an unparsable case", j, false));
        let mut j = orig.clone();
        let c = &mut cases(&mut j)[0];
        let n = c["id"]
            .as_str()
            .unwrap()
            .split_once('/')
            .unwrap()
            .1
            .to_string();
        c["op"] = json!("frobnicate");
        c["id"] = json!(format!("frobnicate/{n}"));
        j["op_info"]["frobnicate"] = j["op_info"]["add"].clone();
        variants.push(("a case naming an unknown op", j, false));

        let mut missed = Vec::new();
        for (name, j, readme) in &variants {
            let s = verdict(&name.replace(' ', "_").replace('`', ""), j, *readme);
            let detected = !s.ok() && (!s.problems.is_empty() || s.failed > base.failed);
            println!(
                "damaged ({name}): {}",
                if detected { "detected" } else { "MISSED" }
            );
            if !detected {
                missed.push(*name);
            }
        }
        println!(
            "{} of {} damaged variants detected",
            variants.len() - missed.len(),
            variants.len()
        );
        assert!(missed.is_empty(), "damage not detected: {missed:?}");
    }
}

/// Damaged copies of reductions.json must fail the run: one case left, an op's cases removed,
/// an unknown error category, every exact result (amax/argmax/...) moved by one, a case set
/// whose cases all turned into errors.
#[test]
fn damaged_reduction_sets_fail() {
    use serde_json::{Value as Json, json};
    let orig = golden::read_json("reductions.json");
    let readme = golden::golden_dir().join("README.md");
    let run = |name: &str, j: &Json| {
        let dir =
            std::env::temp_dir().join(format!("weft-red-damaged-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("reductions.json"),
            serde_json::to_string(j).unwrap(),
        )
        .unwrap();
        std::fs::copy(&readme, dir.join("README.md")).unwrap();
        let s = run_reductions(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        s
    };
    assert!(run("pristine", &orig).ok());
    let cases = |j: &mut Json| j["cases"].as_array_mut().unwrap().clone();
    let mut variants: Vec<(&str, Json)> = Vec::new();
    let mut j = orig.clone();
    let first = cases(&mut j)[0].clone();
    j["cases"] = json!([first]);
    variants.push(("one case left", j));
    let mut j = orig.clone();
    let kept: Vec<Json> = cases(&mut j)
        .into_iter()
        .filter(|c| c["op"] != "argmin")
        .collect();
    j["cases"] = json!(kept);
    variants.push(("argmin removed", j));
    let mut j = orig.clone();
    for c in j["cases"].as_array_mut().unwrap() {
        if c.get("error").is_some() {
            c["error"]["category"] = json!("mystery");
        }
    }
    variants.push(("unknown categories", j));
    let mut j = orig.clone();
    for c in j["cases"].as_array_mut().unwrap() {
        if c["op"] == "argmax" && c.get("expect").is_some() {
            for v in c["expect"]["values"].as_array_mut().unwrap() {
                *v = json!(v.as_i64().unwrap() + 1);
            }
        }
    }
    variants.push(("argmax indices moved by one", j));
    let mut j = orig.clone();
    for c in j["cases"].as_array_mut().unwrap() {
        if let Some(e) = c.as_object_mut().unwrap().remove("expect") {
            let _ = e;
            c["error"] = json!({"type": "RuntimeError", "category": "dtype", "msg": ""});
        }
    }
    variants.push(("every case an error", j));
    for (name, j) in &variants {
        let s = run(&name.replace(' ', "_"), j);
        assert!(!s.ok(), "damage not detected: {name}");
    }
}

/// Damaged copies of unsigned.json must fail the run: one case left (the README's stated
/// count), the casts removed, a promotion entry changed, u64 results moved by one, a missing
/// promotion entry.
#[test]
fn damaged_unsigned_sets_fail() {
    use serde_json::{Value as Json, json};
    let orig = golden::read_json("unsigned.json");
    let readme = golden::golden_dir().join("README.md");
    let run = |name: &str, j: &Json| {
        let dir = std::env::temp_dir().join(format!(
            "weft-unsigned-damaged-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("unsigned.json"), serde_json::to_string(j).unwrap()).unwrap();
        std::fs::copy(&readme, dir.join("README.md")).unwrap();
        let s = run_unsigned(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        s
    };
    assert!(run("pristine", &orig).ok());
    let mut variants: Vec<(&str, Json)> = Vec::new();
    let mut j = orig.clone();
    let first = j["cases"][0].clone();
    j["cases"] = json!([first]);
    variants.push(("one case left", j));
    let mut j = orig.clone();
    j["cases"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["op"] != "to");
    variants.push(("casts removed", j));
    let mut j = orig.clone();
    for p in j["promote_types"].as_array_mut().unwrap() {
        if p[0] == "uint16" && p[1] == "int8" {
            p[2] = json!("int16");
        }
    }
    variants.push(("uint16 + int8 said to be int16", j));
    let mut j = orig.clone();
    j["promote_types"].as_array_mut().unwrap().pop();
    variants.push(("a promotion entry missing", j));
    let mut j = orig.clone();
    for c in j["cases"].as_array_mut().unwrap() {
        if c.get("expect").is_some() && c["expect"]["dtype"] == "uint64" {
            for v in c["expect"]["values"].as_array_mut().unwrap() {
                *v = json!(v.as_u64().unwrap().wrapping_add(1));
            }
        }
    }
    variants.push(("u64 results moved by one", j));
    for (name, j) in &variants {
        let s = run(&name.replace(' ', "_"), j);
        assert!(!s.ok(), "damage not detected: {name}");
    }
}
