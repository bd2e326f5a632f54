//! `Display` like PyTorch's `repr`: nested brackets aligned under `tensor(`, one shared width,
//! torch's float modes (`1.`, `1.5000`, `1.0000e+10`), `...` summaries past 1000 elements
//! (3 edge items per dim), 80-column line wrapping, and a `dtype=torch.*` suffix unless the dtype
//! is a default (f32, i64, bool).

use super::Tensor;
use crate::dtype::DType;
use crate::element::{Element, Value};
use std::fmt;
use std::string::String;
use std::vec::Vec;

const THRESHOLD: usize = 1000;
const EDGE: usize = 3;
const LINEWIDTH: usize = 80;
const PRECISION: usize = 4;

/// A logical element: a float (as f64), an integer, or a bool.
#[derive(Copy, Clone)]
enum Elem {
    F(f64),
    I(i128),
    B(bool),
}

fn elem<T: Element>(v: T) -> Elem {
    match v.to_value() {
        Value::Bool(b) => Elem::B(b),
        Value::Int(i) => Elem::I(i as i128),
        Value::UInt(u) => Elem::I(u as i128),
        Value::F32(x) => Elem::F(x as f64),
        Value::F64(x) => Elem::F(x),
    }
}

/// Python's `'{:.Ne}'` (two-digit signed exponent) from Rust's `{:.Ne}`.
fn sci(x: f64) -> String {
    if !x.is_finite() {
        return nonfinite(x);
    }
    let s = format!("{x:.PRECISION$e}");
    let (mant, exp) = s.split_once('e').expect("exponent");
    let e: i32 = exp.parse().expect("exponent digits");
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn nonfinite(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// torch's `_Formatter`: decides one mode and width from all (summarised) values.
struct Formatter {
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    width: usize,
}

impl Formatter {
    fn new(vals: &[Elem], floating: bool) -> Formatter {
        let mut f = Formatter {
            floating,
            int_mode: true,
            sci_mode: false,
            width: 1,
        };
        if !floating {
            for &v in vals {
                f.width = f.width.max(f.format_raw(v).len());
            }
            return f;
        }
        let nz: Vec<f64> = vals
            .iter()
            .filter_map(|v| match *v {
                Elem::F(x) if x.is_finite() && x != 0.0 => Some(x),
                _ => None,
            })
            .collect();
        if nz.is_empty() {
            return f;
        }
        let min = nz.iter().fold(f64::INFINITY, |m, x| m.min(x.abs()));
        let max = nz.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        f.int_mode = nz.iter().all(|x| x.ceil() == *x);
        let big_range = max / min > 1000.0 || max > 1.0e8;
        f.sci_mode = if f.int_mode {
            big_range
        } else {
            big_range || min < 1.0e-4
        };
        for &x in &nz {
            let len = if f.sci_mode {
                sci(x).len()
            } else if f.int_mode {
                format!("{x:.0}").len() + 1
            } else {
                format!("{x:.PRECISION$}").len()
            };
            f.width = f.width.max(len);
        }
        f
    }

    fn format_raw(&self, v: Elem) -> String {
        match v {
            Elem::B(b) => (if b { "True" } else { "False" }).into(),
            Elem::I(i) => i.to_string(),
            Elem::F(x) if !self.floating => x.to_string(),
            Elem::F(x) if self.sci_mode => sci(x),
            Elem::F(x) if !x.is_finite() => nonfinite(x),
            Elem::F(x) if self.int_mode => format!("{x:.0}."),
            Elem::F(x) => format!("{x:.PRECISION$}"),
        }
    }

    fn format(&self, v: Elem) -> String {
        let s = self.format_raw(v);
        format!("{}{s}", " ".repeat(self.width.saturating_sub(s.len())))
    }
}

/// The elements a repr shows: along each dim all indices, or, when summarising a dim longer
/// than `2 * EDGE`, the first and last `EDGE` (torch's `get_summarized_data`).
struct Shown<'a> {
    shape: &'a [usize],
    summarize: bool,
}

impl Shown<'_> {
    /// Whether dim `d` is cut (gets a `...`).
    fn cut(&self, d: usize) -> bool {
        self.summarize && self.shape[d] > 2 * EDGE
    }
    /// How many indices of dim `d` are shown.
    fn count(&self, d: usize) -> usize {
        if self.cut(d) { 2 * EDGE } else { self.shape[d] }
    }
    /// The index along dim `d` of the `j`-th shown one.
    fn index(&self, d: usize, j: usize) -> usize {
        if self.cut(d) && j >= EDGE {
            self.shape[d] - 2 * EDGE + j
        } else {
            j
        }
    }

    /// The shown elements in row-major order, each read from its own coordinate (never the
    /// whole tensor: a huge broadcast view shows a handful of elements).
    /// `Err` only when another thread is writing the storage (a borrow conflict).
    fn values<T: Element>(&self, t: &Tensor<T>) -> crate::error::Result<Vec<Elem>> {
        let nd = self.shape.len();
        let mut pos = vec![0usize; nd];
        let mut coord: Vec<usize> = (0..nd).map(|d| self.index(d, 0)).collect();
        let mut out = Vec::new();
        loop {
            out.push(elem(t.get(&coord)?));
            // Odometer over the shown positions, the last dim fastest.
            let mut d = nd;
            loop {
                if d == 0 {
                    return Ok(out);
                }
                d -= 1;
                pos[d] += 1;
                if pos[d] < self.count(d) {
                    coord[d] = self.index(d, pos[d]);
                    break;
                }
                pos[d] = 0;
                coord[d] = self.index(d, 0);
            }
        }
    }

    /// One innermost row (the last dim) at `indent`, taking its elements from `vals`.
    fn render_row(
        &self,
        vals: &mut impl Iterator<Item = Elem>,
        indent: usize,
        f: &Formatter,
        out: &mut String,
    ) {
        let last = self.shape.len() - 1;
        let mut data: Vec<String> = (0..self.count(last))
            .map(|_| f.format(vals.next().expect("one value per shown element")))
            .collect();
        if self.cut(last) {
            data.insert(EDGE, " ...".into());
        }
        let per_line = ((LINEWIDTH.saturating_sub(indent)) / (f.width + 2)).max(1);
        let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
        out.push('[');
        out.push_str(&lines.join(&format!(",\n{}", " ".repeat(indent + 1))));
        out.push(']');
    }

    /// torch's `_tensor_str_with_formatter`: nested brackets, rows of dim `k` separated by
    /// `ndim - k - 1` blank lines. Iterative (an explicit position per dim), so a tensor with
    /// 100,000 dims needs no deep stack.
    fn render(&self, vals: &[Elem], indent: usize, f: &Formatter) -> String {
        let nd = self.shape.len();
        let mut vals = vals.iter().copied();
        let mut out = String::new();
        if nd == 0 {
            out.push_str(&f.format(vals.next().expect("a 0-d tensor has one value")));
            return out;
        }
        let mut pos = vec![0usize; nd];
        let mut k = 0; // the dim whose bracket is being written
        let mut entering = true;
        loop {
            if entering {
                if k == nd - 1 {
                    self.render_row(&mut vals, indent + k, f, &mut out);
                    entering = false;
                    if k == 0 {
                        break;
                    }
                    k -= 1;
                } else {
                    out.push('[');
                    pos[k] = 0;
                    k += 1;
                }
                continue;
            }
            // Back in dim k after its pos[k]-th sub-tensor.
            if pos[k] + 1 < self.count(k) {
                let sep = format!(",{}{}", "\n".repeat(nd - k - 1), " ".repeat(indent + k + 1));
                out.push_str(&sep);
                if self.cut(k) && pos[k] + 1 == EDGE {
                    out.push_str("...");
                    out.push_str(&sep);
                }
                pos[k] += 1;
                k += 1;
                entering = true;
            } else {
                out.push(']');
                if k == 0 {
                    break;
                }
                k -= 1;
            }
        }
        out
    }
}

/// torch's `_add_suffixes`: `, suffix` on the last line, or on a new line past 80 columns.
fn add_suffixes(body: String, suffixes: &[String], indent: usize) -> String {
    let mut last_line_len = match body.rfind('\n') {
        Some(p) => body.len() - p + 1,
        None => body.len() + 2,
    };
    let mut out = body;
    for s in suffixes {
        if last_line_len + s.len() + 2 > LINEWIDTH {
            out.push_str(&format!(",\n{}{s}", " ".repeat(indent)));
            last_line_len = indent + s.len();
        } else {
            out.push_str(&format!(", {s}"));
            last_line_len += s.len() + 2;
        }
    }
    out.push(')');
    out
}

/// The PyTorch repr of any tensor's elements.
pub(crate) fn render<T: Element>(t: &Tensor<T>) -> String {
    let dtype = T::DTYPE;
    let prefix = "tensor(";
    let indent = prefix.len();
    let mut suffixes = Vec::new();
    let body = if t.numel() == 0 {
        if t.ndim() != 1 {
            let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
            let tuple = if dims.len() == 1 {
                format!("({},)", dims[0])
            } else {
                format!("({})", dims.join(", "))
            };
            suffixes.push(format!("size={tuple}"));
        }
        // An empty tensor shows every non-f32 dtype: there are no elements to tell it.
        if dtype != DType::F32 {
            suffixes.push(format!("dtype=torch.{}", dtype.name()));
        }
        "[]".to_string()
    } else {
        let shown = Shown {
            shape: t.shape(),
            summarize: t.numel() > THRESHOLD,
        };
        let vals = match shown.values(t) {
            Ok(v) => v,
            // Printing never panics: a storage written right now by another thread says so.
            Err(e) => return format!("{prefix}<{e}>)"),
        };
        let f = Formatter::new(&vals, dtype.is_float());
        if !matches!(dtype, DType::F32 | DType::I64 | DType::Bool) {
            suffixes.push(format!("dtype=torch.{}", dtype.name()));
        }
        shown.render(&vals, indent, &f)
    };
    add_suffixes(format!("{prefix}{body}"), &suffixes, indent)
}

impl<T: Element> fmt::Display for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(self))
    }
}

impl<T: Element> fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(self))
    }
}
