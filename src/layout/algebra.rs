//! CuTe's layout algebra on flat layouts: [`coalesce`], [`composition`], [`complement`],
//! [`logical_divide`] / [`zipped_divide`] (tiling), [`logical_product`], [`right_inverse`] and
//! [`left_inverse`].
//!
//! As in CuTe, a layout is read here as a function of its **colexicographic** linear index (the
//! first mode fastest; see [`crate::layout::coord`] for how that relates to the tensor's
//! row-major index). Results that CuTe writes hierarchically, like `((2,2),3):((24,2),8)`, are
//! returned as a [`GroupedLayout`]: the flat layout `(2,2,3):(24,2,8)` plus the number of modes
//! in each top-level group (`[2, 1]`), which is enough to print CuTe's notation and to slice a
//! group out again.
//!
//! Weft's layouts have an offset and may have negative or zero strides, which CuTe's do not:
//! `composition` carries both through (an error where the result would need a negative
//! offset); `complement`, `right_inverse` and `left_inverse` describe the offset-free part (the
//! offset is ignored) and need non-negative strides.
//!
//! Every fallible function validates its input layouts ([`Layout::checked_extent`]) and builds
//! its result through [`Layout::new`], so a result whose size or reach overflows `isize` is an
//! [`Error`], never a wrapped or panicking computation. The infallible helpers ([`coalesce`],
//! [`right_inverse`]) use checked arithmetic and simply stop merging where it would overflow.

use super::DimVec;
use super::Layout;
use crate::error::{Error, Result};
use std::fmt;
use std::vec::Vec;

/// A flat layout whose modes are grouped one level deep, CuTe's `((a,b),c):((x,y),z)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupedLayout {
    layout: Layout,
    groups: Vec<usize>,
}

impl GroupedLayout {
    /// Groups `layout`'s modes: `groups[g]` consecutive modes form top-level mode g.
    /// Errors unless the groups cover the modes exactly and the layout is valid.
    pub fn new(layout: Layout, groups: Vec<usize>) -> Result<GroupedLayout> {
        let covered = groups.iter().try_fold(0usize, |a, &g| a.checked_add(g));
        if covered != Some(layout.ndim()) {
            return Err(Error::InvalidArgument {
                op: "GroupedLayout::new",
                reason: format!(
                    "groups {groups:?} cover {} modes, the layout has {}",
                    covered.map_or("more than usize::MAX".into(), |c| c.to_string()),
                    layout.ndim()
                ),
            });
        }
        layout.checked_extent()?;
        Ok(GroupedLayout { layout, groups })
    }

    /// Every mode its own group.
    pub fn flat(layout: Layout) -> GroupedLayout {
        let groups = vec![1; layout.ndim()];
        GroupedLayout { layout, groups }
    }

    /// The flat layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn into_layout(self) -> Layout {
        self.layout
    }
    /// Modes per top-level group.
    pub fn groups(&self) -> &[usize] {
        &self.groups
    }
    /// Number of top-level modes.
    pub fn rank(&self) -> usize {
        self.groups.len()
    }

    /// The range of flat modes making up group `g`.
    pub fn group_range(&self, g: usize) -> std::ops::Range<usize> {
        let start: usize = self.groups[..g].iter().sum();
        start..start + self.groups[g]
    }

    /// Top-level mode `g` as its own layout (offset 0), CuTe's `layout<g>(..)`.
    pub fn mode(&self, g: usize) -> Result<Layout> {
        if g >= self.rank() {
            return Err(Error::IndexOutOfRange {
                what: "mode",
                index: g as isize,
                bound: self.rank(),
                dim: None,
            });
        }
        let r = self.group_range(g);
        Ok(Layout {
            shape: self.layout.shape[r.clone()].into(),
            strides: self.layout.strides[r].into(),
            offset: 0,
        })
    }
}

fn write_tuple<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    groups: &[usize],
) -> fmt::Result {
    // One top-level group prints bare (CuTe: an integral-shaped B gives an unwrapped result).
    let top_paren = groups.len() != 1;
    if top_paren {
        write!(f, "(")?;
    }
    let mut k = 0;
    for (gi, &g) in groups.iter().enumerate() {
        if gi > 0 {
            write!(f, ",")?;
        }
        let inner_paren = g != 1;
        if inner_paren {
            write!(f, "(")?;
        }
        for j in 0..g {
            if j > 0 {
                write!(f, ",")?;
            }
            write!(f, "{}", items[k])?;
            k += 1;
        }
        if inner_paren {
            write!(f, ")")?;
        }
    }
    if top_paren {
        write!(f, ")")?;
    }
    Ok(())
}

impl fmt::Display for GroupedLayout {
    /// CuTe notation, e.g. `((2,2),3):((24,2),8)`; a non-zero offset is appended as `+off`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tuple(f, &self.layout.shape, &self.groups)?;
        write!(f, ":")?;
        write_tuple(f, &self.layout.strides, &self.groups)?;
        if self.layout.offset != 0 {
            write!(f, "+{}", self.layout.offset)?;
        }
        Ok(())
    }
}

/// Writes a flat layout in CuTe notation: `(4,4):(4,1)`, `8:1` for rank 1, `():()` for rank 0,
/// and a non-zero offset as a `+off` suffix.
pub(crate) fn fmt_flat(l: &Layout, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if l.ndim() == 0 {
        write!(f, "():()")?;
        if l.offset != 0 {
            write!(f, "+{}", l.offset)?;
        }
        return Ok(());
    }
    let groups = vec![1; l.ndim()];
    fmt::Display::fmt(
        &GroupedLayout {
            layout: l.clone(),
            groups,
        },
        f,
    )
}

fn not_representable(op: &'static str, reason: String) -> Error {
    Error::InvalidArgument { op, reason }
}

/// Merges adjacent modes (in colex order, CuTe's `coalesce`): size-1 modes are dropped and
/// `s0:d0 ++ s1:(s0*d0)` becomes `(s0*s1):d0`. The result has the same size, offset and function
/// of the colex index; it is `1:0` when every mode has size 1, and `0:0` when the size is 0.
pub fn coalesce(a: &Layout) -> Layout {
    if a.shape.contains(&0) {
        return Layout {
            shape: DimVec::from_slice(&[0], 0),
            strides: DimVec::from_slice(&[0], 0),
            offset: a.offset,
        };
    }
    let (mut shape, mut strides) = (DimVec::<usize>::empty(0), DimVec::<isize>::empty(0));
    for (&n, &s) in a.shape.iter().zip(&a.strides) {
        if n == 1 {
            continue;
        }
        // Merge only when the arithmetic fits (always, for a valid layout): an unmerged mode
        // is still the same function.
        if let (Some(ln), Some(&ls)) = (shape.last_mut(), strides.last())
            && isize::try_from(*ln).ok().and_then(|l| l.checked_mul(ls)) == Some(s)
            && let Some(merged) = ln.checked_mul(n)
        {
            *ln = merged;
            continue;
        }
        shape.push(n);
        strides.push(s);
    }
    if shape.is_empty() {
        shape.push(1);
        strides.push(0);
    }
    Layout {
        shape,
        strides,
        offset: a.offset,
    }
}

/// The same operation in row-major order (the last mode fastest): it preserves the function of
/// the row-major index, which is what the iterator's dimension coalescing needs. `1:0` / `0:0`
/// as for [`coalesce`].
pub fn coalesce_row_major(a: &Layout) -> Layout {
    let rev = Layout {
        shape: a.shape.iter().rev().copied().collect(),
        strides: a.strides.iter().rev().copied().collect(),
        offset: a.offset,
    };
    let c = coalesce(&rev);
    Layout {
        shape: c.shape.iter().rev().copied().collect(),
        strides: c.strides.iter().rev().copied().collect(),
        offset: c.offset,
    }
}

/// Concatenation `(a, b)` of two layouts; the offsets add. Errors when the result's size or
/// reach overflows.
pub fn concat(a: &Layout, b: &Layout) -> Result<Layout> {
    let offset = a
        .offset
        .checked_add(b.offset)
        .ok_or_else(|| Error::InvalidView {
            reason: format!("concatenating {a} and {b}: the offsets overflow"),
        })?;
    Layout::new(
        a.shape.iter().chain(&b.shape).copied().collect(),
        a.strides.iter().chain(&b.strides).copied().collect(),
        offset,
    )
}

/// A's coalesced modes with their colex prefix products, the mixed radix that composition
/// decomposes B's strides in. The last mode is unbounded (CuTe's extension of A).
struct Radix {
    shape: Vec<u128>,
    stride: Vec<i128>,
}

impl Radix {
    fn new(a: &Layout) -> Result<Radix> {
        let c = coalesce(&a.with_offset(0));
        if c.size() == 0 {
            return Err(not_representable(
                "composition",
                format!("the left layout {a} is empty"),
            ));
        }
        let shape: Vec<u128> = c.shape.iter().map(|&n| n as u128).collect();
        let stride = c.strides.iter().map(|&d| d as i128).collect();
        Ok(Radix { shape, stride })
    }

    fn len(&self) -> usize {
        self.shape.len()
    }

    /// Colex digits of v (the last digit unbounded).
    fn digits(&self, mut v: u128) -> Vec<u128> {
        let n = self.len();
        (0..n)
            .map(|k| {
                if k + 1 == n {
                    v
                } else {
                    let c = v % self.shape[k];
                    v /= self.shape[k];
                    c
                }
            })
            .collect()
    }
}

fn overflow(op: &'static str) -> Error {
    Error::InvalidView {
        reason: format!("{op}: the result's size, strides or offset overflow isize"),
    }
}

fn to_isize(v: i128, what: &str) -> Result<isize> {
    isize::try_from(v).map_err(|_| Error::InvalidView {
        reason: format!("{what} {v} overflows isize"),
    })
}

/// Functional composition `R = A ∘ B`, CuTe's `composition(a, b)`: for every colex index
/// `i < b.size()`, `R(i) == A(B(i))`, where A is extended past its size along its last mode
/// ([`Layout::eval_colex_ext`]). The result has one group per mode of B (so every coordinate of
/// B is a coordinate of R) and carries A's offset (and A at B's offset).
///
/// Errors when R is not a layout: B reaches negative indices, a stride of B does not divide
/// through A's shape (CuTe's stride divisibility condition), a mode of B does not fill the modes
/// of A it spans (shape divisibility), or B's modes overlap in A's coordinates so that A(B(i))
/// is not additive in B's modes.
pub fn composition(a: &Layout, b: &Layout) -> Result<GroupedLayout> {
    const OP: &str = "composition";
    // Valid inputs bound every intermediate below (spans fit isize, so products of two fit
    // i128); the few sums that could still grow are checked or saturate.
    a.checked_extent()?;
    b.checked_extent()?;
    if b.size() == 0 {
        return GroupedLayout::new(
            Layout {
                shape: b.shape.clone(),
                strides: DimVec::filled(b.ndim(), 0),
                offset: a.offset,
            },
            vec![1; b.ndim()],
        );
    }
    let ra = Radix::new(a)?;
    let n = ra.len();
    // Reverse negative-stride modes of B: x*e == (t-1)*e + (t-1-x)*|e|; flipped back at the end.
    let mut ob = b.offset as i128;
    let mut flip = vec![false; b.ndim()];
    let mut e_abs = Vec::with_capacity(b.ndim());
    for (j, (&t, &e)) in b.shape.iter().zip(&b.strides).enumerate() {
        if e < 0 && t > 1 {
            ob += (t as i128 - 1) * e as i128;
            flip[j] = true;
        }
        e_abs.push(e.unsigned_abs() as u128);
    }
    if ob < 0 {
        return Err(not_representable(
            OP,
            format!("{b} reaches the negative index {ob}"),
        ));
    }
    // usage[k]: the largest sum of digits B can put into A's mode k; no carries (so A(B(i)) is
    // the sum of A over B's modes) as long as usage[k] < shape[k] for every bounded mode.
    let mut usage = ra.digits(ob as u128);
    let mut offset = a.offset as i128;
    for (k, &c) in usage.iter().enumerate() {
        offset += c as i128 * ra.stride[k];
    }
    let (mut shape, mut strides, mut groups) = (Vec::new(), Vec::<i128>::new(), Vec::new());
    for (j, &t) in b.shape.iter().enumerate() {
        let e = e_abs[j];
        let before = shape.len();
        if t == 1 || e == 0 {
            shape.push(t);
            strides.push(0);
        } else {
            let dig = ra.digits(e);
            let nz: Vec<usize> = (0..n).filter(|&k| dig[k] != 0).collect();
            let tm1 = t as u128 - 1;
            if nz.len() == 1 {
                // "Divide out" e from A's shape, then "mod out" t.
                let (mut k, mut r, mut rem) = (nz[0], dig[nz[0]], t as u128);
                loop {
                    if k + 1 == n || (rem - 1) * r < ra.shape[k] {
                        shape.push(rem as usize);
                        strides.push(r as i128 * ra.stride[k]);
                        usage[k] = usage[k].saturating_add((rem - 1) * r);
                        break;
                    }
                    if ra.shape[k] % r != 0 {
                        return Err(not_representable(
                            OP,
                            format!(
                                "stride {} of {b} does not divide through mode {}:{} of {a} (stride divisibility)",
                                b.strides[j], ra.shape[k], ra.stride[k]
                            ),
                        ));
                    }
                    let t0 = ra.shape[k] / r;
                    if rem % t0 != 0 {
                        return Err(not_representable(
                            OP,
                            format!(
                                "mode {}:{} of {b} does not fill mode {}:{} of {a} (shape divisibility)",
                                t, b.strides[j], ra.shape[k], ra.stride[k]
                            ),
                        ));
                    }
                    shape.push(t0 as usize);
                    strides.push(r as i128 * ra.stride[k]);
                    usage[k] = usage[k].saturating_add((t0 - 1) * r);
                    rem /= t0;
                    k += 1;
                    r = 1;
                    if rem == 1 {
                        break;
                    }
                }
            } else {
                // A stride with several digits stays one mode if x*e never carries.
                let mut s = 0i128;
                for k in 0..n {
                    if k + 1 < n && tm1 * dig[k] >= ra.shape[k] {
                        return Err(not_representable(
                            OP,
                            format!(
                                "stride {} of {b} does not divide through the shape of {a} (stride divisibility)",
                                b.strides[j]
                            ),
                        ));
                    }
                    // Saturating: only bounded modes are checked, and those stay below 2^64.
                    usage[k] = usage[k].saturating_add(tm1 * dig[k]);
                    s = s
                        .checked_add(dig[k] as i128 * ra.stride[k])
                        .ok_or_else(|| overflow(OP))?;
                }
                shape.push(t);
                strides.push(s);
            }
        }
        if flip[j] {
            for m in before..shape.len() {
                offset = (shape[m] as i128 - 1)
                    .checked_mul(strides[m])
                    .and_then(|x| offset.checked_add(x))
                    .ok_or_else(|| overflow(OP))?;
                strides[m] = -strides[m];
            }
        }
        groups.push(shape.len() - before);
    }
    for (k, &u) in usage.iter().enumerate().take(n.saturating_sub(1)) {
        if u >= ra.shape[k] {
            return Err(not_representable(
                OP,
                format!(
                    "the modes of {b} overlap in mode {}:{} of {a}, so {a} o {b} is not a layout",
                    ra.shape[k], ra.stride[k]
                ),
            ));
        }
    }
    let offset = usize::try_from(offset).map_err(|_| {
        not_representable(
            OP,
            format!("{a} o {b} would need a negative offset {offset}"),
        )
    })?;
    let strides = strides
        .into_iter()
        .map(|s| to_isize(s, "composed stride"))
        .collect::<Result<Vec<_>>>()?;
    GroupedLayout::new(Layout::new(shape, strides, offset)?, groups)
}

/// By-mode composition with a tiler `<B_0, B_1, ...>`: top-level mode g of `a` is composed with
/// `tiler[g]`; modes past the tiler are kept. Each result group is that composition, flattened.
pub fn composition_by_mode(a: &GroupedLayout, tiler: &[Layout]) -> Result<GroupedLayout> {
    if tiler.len() > a.rank() {
        return Err(Error::InvalidArgument {
            op: "composition_by_mode",
            reason: format!(
                "tiler has {} modes, layout {a} has {}",
                tiler.len(),
                a.rank()
            ),
        });
    }
    let mut out = Layout {
        shape: DimVec::empty(0),
        strides: DimVec::empty(0),
        offset: a.layout.offset,
    };
    let mut groups = Vec::new();
    for g in 0..a.rank() {
        let m = a.mode(g)?;
        let r = match tiler.get(g) {
            Some(t) => composition(&m, t)?.into_layout(),
            None => m,
        };
        groups.push(r.ndim());
        out = concat(&out, &r)?;
    }
    GroupedLayout::new(out, groups)
}

/// CuTe's `complement(a, cotarget)`: the ordered layout R (positive, increasing strides) of the
/// "repetitions" of `a`, such that `(a, R)` is injective and its image covers `[0, cotarget)`;
/// `R(i)` for `i >= 1` is never in the image of `a`. `a`'s offset is ignored.
///
/// Errors when `a` has a negative stride, is not injective (a zero stride on a mode of size > 1,
/// or overlapping modes), or leaves holes that a layout cannot fill (a stride not divisible by
/// the extent of the smaller modes, CuTe's divisibility condition).
pub fn complement(a: &Layout, cotarget: usize) -> Result<Layout> {
    const OP: &str = "complement";
    a.checked_extent()?;
    let mut modes: Vec<(usize, usize)> = Vec::new();
    for (&n, &s) in a.shape.iter().zip(&a.strides) {
        if n <= 1 {
            continue;
        }
        if s <= 0 {
            return Err(not_representable(
                OP,
                format!(
                    "{a} has stride {s} on a mode of size {n} (needs positive strides, injective)"
                ),
            ));
        }
        modes.push((n, s as usize));
    }
    modes.sort_by_key(|&(n, s)| (s, n));
    let (mut shape, mut strides) = (Vec::new(), Vec::new());
    let mut cur = 1usize;
    for (n, s) in modes {
        if s % cur != 0 {
            return Err(not_representable(
                OP,
                format!(
                    "{a} is not injective or leaves a hole of stride {s} not divisible by {cur}"
                ),
            ));
        }
        shape.push(s / cur);
        strides.push(cur as isize);
        cur = s.checked_mul(n).ok_or(Error::NumelOverflow {
            shape: a.shape.to_vec(),
        })?;
    }
    shape.push(cotarget.div_ceil(cur));
    strides.push(isize::try_from(cur).map_err(|_| overflow(OP))?);
    Ok(coalesce(&Layout::new(shape, strides, 0)?))
}

/// CuTe's `logical_divide(a, tiler) = a ∘ (tiler, complement(tiler, a.size()))`: group 0 holds
/// the tile (the elements the tiler selects), group 1 iterates over the tiles.
pub fn logical_divide(a: &Layout, tiler: &Layout) -> Result<GroupedLayout> {
    a.checked_extent()?;
    let c = complement(tiler, a.size())?;
    let bc = concat(tiler, &c)?;
    let r = composition(a, &bc)?;
    let tile_modes: usize = r.groups[..tiler.ndim()].iter().sum();
    let n = r.layout.ndim();
    GroupedLayout::new(r.into_layout(), vec![tile_modes, n - tile_modes])
}

/// By-mode logical divide with a tiler `<B_0, B_1, ...>` over the top-level modes of `a`, flattened in
/// CuTe's `zipped_divide` order: group 0 is the tile `(TileM, TileN, ...)`, group 1 the tiles
/// `(RestM, RestN, ..., L, ...)` (modes of `a` past the tiler). Group 0 equals
/// `composition_by_mode(a, tiler)`.
pub fn zipped_divide(a: &GroupedLayout, tiler: &[Layout]) -> Result<GroupedLayout> {
    if tiler.len() > a.rank() {
        return Err(Error::InvalidArgument {
            op: "zipped_divide",
            reason: format!(
                "tiler has {} modes, layout {a} has {}",
                tiler.len(),
                a.rank()
            ),
        });
    }
    let mut tile = Layout {
        shape: DimVec::empty(0),
        strides: DimVec::empty(0),
        offset: a.layout.offset,
    };
    let mut rest = Layout {
        shape: DimVec::empty(0),
        strides: DimVec::empty(0),
        offset: 0,
    };
    for g in 0..a.rank() {
        let m = a.mode(g)?;
        match tiler.get(g) {
            Some(t) => {
                let d = logical_divide(&m, t)?;
                tile = concat(&tile, &d.mode(0)?.with_offset(d.layout.offset))?;
                rest = concat(&rest, &d.mode(1)?)?;
            }
            None => rest = concat(&rest, &m)?,
        }
    }
    let nt = tile.ndim();
    let nr = rest.ndim();
    GroupedLayout::new(concat(&tile, &rest)?, vec![nt, nr])
}

/// Splits a layout into contiguous tiles of `tile` (one extent per mode, each dividing that
/// mode): `zipped_divide` with tiler `<t_0:1, t_1:1, ...>`. The flat result has shape
/// `(t_0, ..., t_{r-1}, n_0/t_0, ..., n_{r-1}/t_{r-1})`: first the coordinate inside a tile,
/// then the tile's coordinate. Strides of the tile modes are `a`'s, the tile grid's are
/// `t_k * stride_k`.
pub fn tile(a: &Layout, tile: &[usize]) -> Result<Layout> {
    a.checked_extent()?;
    if tile.len() != a.ndim() {
        return Err(Error::InvalidArgument {
            op: "tile",
            reason: format!(
                "tile has {} extents, layout {a} has {} modes",
                tile.len(),
                a.ndim()
            ),
        });
    }
    let mut shape = Vec::with_capacity(2 * tile.len());
    let mut strides = Vec::with_capacity(2 * tile.len());
    for (k, &t) in tile.iter().enumerate() {
        if t == 0 || !a.shape[k].is_multiple_of(t) {
            return Err(Error::InvalidArgument {
                op: "tile",
                reason: format!(
                    "tile extent {t} does not divide mode {k} of size {}",
                    a.shape[k]
                ),
            });
        }
        shape.push(t);
        strides.push(a.strides[k]);
    }
    for (k, &t) in tile.iter().enumerate() {
        shape.push(a.shape[k] / t);
        strides.push(to_isize(
            t as i128 * a.strides[k] as i128,
            "tile grid stride",
        )?);
    }
    Layout::new(shape, strides, a.offset)
}

/// CuTe's `logical_product(a, b) = (a, complement(a, size(a) * cosize(b)) ∘ b)`: group 0 is `a`,
/// group 1 places a copy of `a` at each element of `b`.
pub fn logical_product(a: &Layout, b: &Layout) -> Result<GroupedLayout> {
    const OP: &str = "logical_product";
    a.checked_extent()?;
    b.checked_extent()?;
    let cotarget = a
        .size()
        .checked_mul(b.cosize().max(1))
        .ok_or_else(|| overflow(OP))?;
    let c = complement(a, cotarget)?;
    let r = composition(&c, b)?.into_layout();
    let offset = a.offset.checked_add(r.offset).ok_or_else(|| overflow(OP))?;
    let both = concat(&a.with_offset(0), &r.with_offset(0))?;
    GroupedLayout::new(
        Layout::from_dims(both.shape, both.strides, offset)?,
        vec![a.ndim(), r.ndim()],
    )
}

/// CuTe's `right_inverse`: the largest compact layout R with `a(R(i)) == a.offset + i` for every
/// `i < R.size()` (colex indices on both sides). Built from the modes of `a` whose strides are
/// 1, s0*d0, ... in increasing order; modes with negative or zero strides never take part. Always
/// exists: at worst `1:0` (only `i = 0`, which `a` maps to its offset), and `0:0` for an empty
/// `a`. CuTe starts its fold from `1:0` for every layout, but an empty `a` has no coordinate 0,
/// so `1:0` would leave its domain; the empty layout is the (vacuous) right inverse there.
pub fn right_inverse(a: &Layout) -> Layout {
    let c = coalesce(&a.with_offset(0));
    if c.shape.contains(&0) {
        return c; // 0:0
    }
    // Colex prefix products of c: the domain index where each mode starts (None past isize,
    // which a valid layout never reaches).
    let mut prefix = Vec::with_capacity(c.ndim());
    let mut p = Some(1isize);
    for &n in &c.shape {
        prefix.push(p);
        p = p.and_then(|p| p.checked_mul(isize::try_from(n).ok()?));
    }
    let mut order: Vec<usize> = (0..c.ndim()).filter(|&k| c.strides[k] > 0).collect();
    order.sort_by_key(|&k| c.strides[k]);
    let (mut shape, mut strides) = (Vec::new(), Vec::new());
    let mut cur = Some(1isize);
    for k in order {
        let Some(pk) = prefix[k] else { break };
        if Some(c.strides[k]) != cur {
            break;
        }
        shape.push(c.shape[k]);
        strides.push(pk);
        cur = cur.and_then(|cur| cur.checked_mul(isize::try_from(c.shape[k]).ok()?));
    }
    coalesce(&Layout {
        shape: shape.into(),
        strides: strides.into(),
        offset: 0,
    })
}

/// CuTe's `left_inverse`: a layout L with `L(a(i) - a.offset) == i` for every colex `i <
/// a.size()`, namely `right_inverse((a, complement(a)))`. Errors when `a` is not injective or
/// has no complement (see [`complement`]).
pub fn left_inverse(a: &Layout) -> Result<Layout> {
    a.checked_extent()?;
    let a0 = a.with_offset(0);
    let full = concat(&a0, &complement(&a0, a0.cosize())?)?;
    Ok(right_inverse(&full))
}

impl Layout {
    /// [`coalesce`] as a method.
    pub fn coalesce(&self) -> Layout {
        coalesce(self)
    }
    /// [`composition`] flattened: `self ∘ b`.
    pub fn compose(&self, b: &Layout) -> Result<Layout> {
        Ok(composition(self, b)?.into_layout())
    }
    /// [`complement`] as a method.
    pub fn complement(&self, cotarget: usize) -> Result<Layout> {
        complement(self, cotarget)
    }
    /// [`right_inverse`] as a method.
    pub fn right_inverse(&self) -> Layout {
        right_inverse(self)
    }
}
