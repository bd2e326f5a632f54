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
    I(i64),
    B(bool),
}

fn elem<T: Element>(v: T) -> Elem {
    match v.to_value() {
        Value::Bool(b) => Elem::B(b),
        Value::Int(i) => Elem::I(i),
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

/// The logical elements of a tensor in row-major order, plus its shape.
struct Flat<'a> {
    vals: &'a [Elem],
    shape: &'a [usize],
}

impl Flat<'_> {
    fn sub(&self, i: usize) -> Flat<'_> {
        let inner: usize = self.shape[1..].iter().product();
        Flat {
            vals: &self.vals[i * inner..(i + 1) * inner],
            shape: &self.shape[1..],
        }
    }

    /// The indices along dim 0 that are printed (all, or the edge items when summarising).
    fn rows(&self, summarize: bool) -> (Vec<usize>, bool) {
        let n = self.shape[0];
        if summarize && n > 2 * EDGE {
            ((0..EDGE).chain(n - EDGE..n).collect(), true)
        } else {
            ((0..n).collect(), false)
        }
    }

    /// torch's `get_summarized_data`: only the elements that will be printed.
    fn summarized(&self, summarize: bool, out: &mut Vec<Elem>) {
        if self.shape.is_empty() {
            out.extend_from_slice(self.vals);
            return;
        }
        for i in self.rows(summarize).0 {
            self.sub(i).summarized(summarize, out);
        }
    }

    fn render(&self, indent: usize, summarize: bool, f: &Formatter) -> String {
        match self.shape.len() {
            0 => f.format(self.vals[0]),
            1 => {
                let (rows, cut) = self.rows(summarize);
                let mut data: Vec<String> = rows.iter().map(|&i| f.format(self.vals[i])).collect();
                if cut {
                    data.insert(EDGE, " ...".into());
                }
                let per_line = ((LINEWIDTH.saturating_sub(indent)) / (f.width + 2)).max(1);
                let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
                format!(
                    "[{}]",
                    lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
                )
            }
            d => {
                let (rows, cut) = self.rows(summarize);
                let mut parts: Vec<String> = rows
                    .iter()
                    .map(|&i| self.sub(i).render(indent + 1, summarize, f))
                    .collect();
                if cut {
                    parts.insert(EDGE, "...".into());
                }
                let sep = format!(",{}{}", "\n".repeat(d - 1), " ".repeat(indent + 1));
                format!("[{}]", parts.join(&sep))
            }
        }
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
        let vals: Vec<Elem> = t.to_vec().into_iter().map(elem).collect();
        let flat = Flat {
            vals: &vals,
            shape: t.shape(),
        };
        let summarize = t.numel() > THRESHOLD;
        let f = if summarize {
            let mut s = Vec::new();
            flat.summarized(true, &mut s);
            Formatter::new(&s, dtype.is_float())
        } else {
            Formatter::new(&vals, dtype.is_float())
        };
        if !matches!(dtype, DType::F32 | DType::I64 | DType::Bool) {
            suffixes.push(format!("dtype=torch.{}", dtype.name()));
        }
        flat.render(indent, summarize, &f)
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
