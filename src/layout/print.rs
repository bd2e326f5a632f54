//! Rendering layouts (and tensors, through [`render_table`]) as tables in CuTe's `print_layout`
//! format, and `Display` for [`Layout`] in CuTe notation, `(4,4):(4,1)`.
//!
//! Mode 0 indexes the rows and mode 1 the columns, as in CuTe. A rank-1 layout is one column,
//! rank 0 a single cell. Rank 3 and more print one 2-D slab per coordinate of the trailing modes
//! (colex order: mode 2 fastest), each after a label line like `(_,_,1)` or `(_,_,0,2)`.

use super::Layout;
use super::algebra::fmt_flat;
use super::coord::colex_to_coord;
use std::fmt;
use std::string::String;

impl fmt::Display for Layout {
    /// `{}`: CuTe notation, `(4,4):(4,1)`, `8:1` for rank 1, a non-zero offset as `+off`.
    /// `{:#}`: the [`print_layout`] table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str(&print_layout(self))
        } else {
            fmt_flat(self, f)
        }
    }
}

/// CuTe's `num_digits`.
fn num_digits(x: usize) -> usize {
    x.to_string().len()
}

/// Tables with more cells than this are summarised (as PyTorch's repr): each axis (rows,
/// columns, slabs) longer than `2 * EDGE` shows its first and last `EDGE` entries around `...`.
const THRESHOLD: usize = 1000;
const EDGE: usize = 3;

/// The indices shown along an axis of `n`; `None` is the `...` between the edges.
fn shown(n: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && n > 2 * EDGE {
        (0..EDGE)
            .map(Some)
            .chain([None])
            .chain((n - EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// Renders a table for `shape` with `header` on the first line and `cell(coord)` in each cell,
/// cells right-aligned to `width` characters (at least the widest cell). The format is CuTe's
/// `print_layout`:
///
/// ```text
/// (4,2):(2,1)
///       0   1
///     +---+---+
///  0  | 0 | 1 |
///     +---+---+
///  ...
/// ```
///
/// Past 1000 cells the table is summarised (3 edge entries per axis around `...`), and `cell` is called only for
/// the cells shown, so a huge layout prints quickly.
pub fn render_table(
    header: &str,
    shape: &[usize],
    width: usize,
    cell: &dyn Fn(&[usize]) -> String,
) -> String {
    let rows = shape.first().copied().unwrap_or(1);
    let cols = shape.get(1).copied().unwrap_or(1);
    let rest: &[usize] = if shape.len() > 2 { &shape[2..] } else { &[] };
    // Saturating: a count past usize (never a valid layout's) just means "summarise".
    let slabs = rest.iter().fold(1usize, |a, &n| a.saturating_mul(n));
    let summarize = rows.saturating_mul(cols).saturating_mul(slabs) > THRESHOLD;
    let (row_ix, col_ix, slab_ix) = (
        shown(rows, summarize),
        shown(cols, summarize),
        shown(slabs, summarize),
    );
    // Cells formatted once, so the width can grow to fit any of them; "..." for a cut.
    let mut cells: Vec<Vec<Vec<String>>> = Vec::with_capacity(slab_ix.len());
    for s in &slab_ix {
        let tail = s.map(|s| colex_to_coord(rest, s));
        let mut slab = Vec::with_capacity(row_ix.len());
        for m in &row_ix {
            let mut row = Vec::with_capacity(col_ix.len());
            for n in &col_ix {
                row.push(match (tail.as_ref(), m, n) {
                    (Some(tail), Some(m), Some(n)) => {
                        let mut c: Vec<usize> = Vec::with_capacity(shape.len());
                        if !shape.is_empty() {
                            c.push(*m);
                        }
                        if shape.len() > 1 {
                            c.push(*n);
                        }
                        c.extend_from_slice(tail);
                        cell(&c)
                    }
                    _ => "...".into(),
                });
            }
            slab.push(row);
        }
        cells.push(slab);
    }
    let w = cells
        .iter()
        .flatten()
        .flatten()
        .map(|c| c.len())
        .max()
        .unwrap_or(0)
        .max(width);
    let delim: String = format!("+{}", "-".repeat(w + 2));
    let mut out = String::new();
    out.push_str(header);
    out.push('\n');
    for (slab, s) in cells.iter().zip(&slab_ix) {
        let Some(s) = s else {
            out.push_str("...\n");
            continue;
        };
        if !rest.is_empty() {
            let tail = colex_to_coord(rest, *s);
            let parts: Vec<String> = tail.iter().map(|c| c.to_string()).collect();
            out.push_str(&format!("(_,_,{})\n", parts.join(",")));
        }
        out.push_str("    ");
        for n in &col_ix {
            match n {
                Some(n) => out.push_str(&format!("  {n:>w$} ")),
                None => out.push_str(&format!("  {:>w$} ", "...")),
            }
        }
        out.push('\n');
        let line = format!("    {}+\n", delim.repeat(col_ix.len()));
        for (row, m) in slab.iter().zip(&row_ix) {
            out.push_str(&line);
            match m {
                Some(m) => out.push_str(&format!("{m:>2}  ")),
                None => out.push_str("... "),
            }
            for c in row {
                out.push_str(&format!("| {c:>w$} "));
            }
            out.push_str("|\n");
        }
        out.push_str(&line);
    }
    out
}

/// The table of a layout's offsets, in CuTe's `print_layout` format (cell width from
/// `num_digits(cosize)`, as CuTe). For a rank-2 layout with offset 0 the output is CuTe's,
/// character for character.
pub fn print_layout(layout: &Layout) -> String {
    // index_of is unchecked: an invalid layout (built unchecked, e.g. `contiguous` of a shape
    // whose size overflows) gets its notation and the reason instead of a table.
    if let Err(e) = layout.checked_extent() {
        return format!("{layout}\n{e}\n");
    }
    render_table(
        &layout.to_string(),
        &layout.shape,
        num_digits(layout.cosize()),
        &|c| layout.index_of(c).to_string(),
    )
}

/// The table of a tensor's values, in the same format as [`print_layout`] (the header line is
/// the dtype and the layout). Values print as in `Display` of their widest form (`1`, `0.5`,
/// `true`).
pub fn print_tensor<T: crate::element::Element>(t: &crate::tensor::Tensor<T>) -> String {
    use crate::element::Value;
    let header = format!("{} {}", T::DTYPE, t.layout());
    render_table(&header, t.shape(), 1, &|c| match t.get(c) {
        Ok(v) => match v.to_value() {
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            Value::F32(x) => x.to_string(),
            Value::F64(x) => x.to_string(),
        },
        Err(_) => "?".into(),
    })
}

/// [`print_layout`] for a grouped layout: top-level mode g is indexed by the colex index of its
/// group, as CuTe prints hierarchical layouts (`print_layout` of `(2,(2,2)):(4,(2,1))` is a 2x4
/// table).
pub fn print_grouped_layout(g: &super::GroupedLayout) -> String {
    let l = g.layout();
    if let Err(e) = l.checked_extent() {
        return format!("{g}\n{e}\n");
    }
    let sizes: Vec<usize> = (0..g.rank())
        .map(|k| l.shape()[g.group_range(k)].iter().product())
        .collect();
    render_table(&g.to_string(), &sizes, num_digits(l.cosize()), &|c| {
        let mut full = Vec::with_capacity(l.ndim());
        for (k, &ck) in c.iter().enumerate() {
            full.extend(colex_to_coord(&l.shape()[g.group_range(k)], ck));
        }
        l.index_of(&full).to_string()
    })
}
