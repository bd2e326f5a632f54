//! `IterConfig::build`: PyTorch's build pipeline (see the module docs for the step list).

use super::config::IterConfig;
use super::overlap;
use super::single;
use super::{NO_OPERAND, Operand, OperandBuf, Owned, Src, StrideBuf, TensorIterator};
use crate::dtype::{Category, DType};
use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::promotion::{OperandKind, ResultTypeState, can_cast};
use crate::small::{DimVec, SmallBuf};

pub(crate) fn invalid(op: &'static str, reason: &str) -> Error {
    Error::InvalidArgument {
        op,
        reason: reason.into(),
    }
}

/// Builds the iterator and hands it to `f` where it was built: a tiny op's iterator is never
/// moved (a move copied the whole iterator, a tenth of a 4-element op). Inlined (see
/// [`general_set_up`]).
#[inline(always)]
pub(crate) fn build_with<'a, R>(
    cfg: &IterConfig<'a>,
    f: impl FnOnce(&mut TensorIterator<'a>) -> Result<R>,
) -> Result<R> {
    let mut it = fresh(cfg);
    set_up(cfg, &mut it)?;
    f(&mut it)
}

/// [`IterConfig::build`]: the built iterator, returned.
pub(crate) fn build<'a>(cfg: &IterConfig<'a>) -> Result<TensorIterator<'a>> {
    let mut it = fresh(cfg);
    set_up(cfg, &mut it)?;
    Ok(it)
}

/// An iterator with no operands and no geometry yet, for [`set_up`].
#[inline(always)]
fn fresh<'a>(cfg: &IterConfig<'a>) -> TensorIterator<'a> {
    TensorIterator {
        name: cfg.name,
        operands: SmallBuf::empty(NO_OPERAND),
        owned: Owned::default(),
        noutputs: cfg.outputs.len(),
        shape: DimVec::empty(0),
        strides: SmallBuf::empty(0),
        base: SmallBuf::empty(core::ptr::null_mut()),
        logical_shape: DimVec::empty(0),
        perm: DimVec::empty(0),
        common_dtype: None,
        numel: 0,
        is_reduction: cfg.is_reduction,
        fast_setup: false,
        borrows: SmallBuf::empty((0, false)),
    }
}

/// Steps 1-10 into `it` (fresh from [`build_with`]).
#[inline(always)]
fn set_up<'a>(cfg: &IterConfig<'a>, it: &mut TensorIterator<'a>) -> Result<()> {
    let name = cfg.name;
    // 1. flags
    if cfg.outputs.is_empty() && cfg.inputs.is_empty() {
        return Err(invalid(name, "the iterator has no operands"));
    }
    if cfg.outputs.len() + cfg.inputs.len() > u32::MAX as usize {
        return Err(invalid(name, "more than u32::MAX operands"));
    }
    if cfg.static_dtype_misuse {
        return Err(invalid(
            name,
            "check_all_same_dtype(false) must be called before declare_static_dtype(...)",
        ));
    }
    if cfg.promote_integer_inputs_to_float && !cfg.promote_inputs_to_common_dtype {
        return Err(invalid(
            name,
            "promote_integer_inputs_to_float needs promote_inputs_to_common_dtype",
        ));
    }
    if cfg.static_shape.is_some() && cfg.resize_outputs {
        return Err(invalid(
            name,
            "resize_outputs(false) must be called before declare_static_shape(...)",
        ));
    }

    // The common case first: one output, inputs of one shape, everything contiguous.
    if flat_set_up(cfg, it)? {
        return finish(it);
    }

    // Operands: outputs first, each given tensor's parts read once. Undefined outputs are
    // filled in when allocated.
    let nout = cfg.outputs.len();
    let nt = nout + cfg.inputs.len();
    let (operands, owned) = (&mut it.operands, &mut it.owned);
    for o in cfg.outputs.iter() {
        let given = o.map(|t| t.parts());
        operands.push(Operand {
            src: given.map_or(Src::Owned(usize::MAX), Src::Given),
            is_output: true,
            is_const: false,
            allocated: o.is_none(),
            dtype: given.map_or(DType::Bool, |p| p.dtype),
        });
    }
    // 2. memory overlap (overlap.rs): outputs must not overlap themselves or each other; an
    // input that reaches an output's elements in another order is read from a copy. O(1) per
    // pair when the storages differ; a contiguous output cannot overlap itself.
    if cfg.check_mem_overlap {
        for k in 0..nout {
            let Some(out) = operands[k].given() else {
                continue;
            };
            if !out.layout.is_contiguous() {
                overlap::assert_no_internal_overlap(out.layout)?;
            }
            for other in operands[..k].iter().filter_map(|o| o.given()) {
                overlap::assert_outputs_disjoint(&out, &other)?;
            }
        }
    }
    for &(t, is_const) in cfg.inputs.iter() {
        let t = t.expect("inputs are Some");
        let p = t.parts();
        let mut copy = false;
        for k in 0..nout {
            if let Some(out) = operands[k].given() {
                copy |= overlap::output_input_sharing(&out, &p, cfg.check_mem_overlap)?
                    == overlap::Sharing::CopyInput;
            }
        }
        let src = if copy {
            Src::Owned(owned.push(t.try_clone()?))
        } else {
            Src::Given(p)
        };
        operands.push(Operand {
            src,
            is_output: false,
            is_const,
            allocated: false,
            dtype: p.dtype,
        });
    }

    // 3. shape
    let mut all_same_shape = true;
    let shape: DimVec<usize> = if let Some(st) = &cfg.static_shape {
        let (ss, squash_dims) = &**st;
        let mut shape = ss.clone();
        for &d in squash_dims.iter() {
            if d >= shape.len() {
                return Err(Error::IndexOutOfRange {
                    what: "squash dim",
                    index: d as isize,
                    bound: shape.len(),
                    dim: None,
                });
            }
            shape[d] = 1;
        }
        for t in cfg.given_outputs().chain(cfg.input_tensors()) {
            let ok = t.ndim() == ss.len()
                && (0..ss.len()).all(|d| squash_dims.contains(&d) || t.shape()[d] == ss[d]);
            if !ok {
                return Err(Error::ShapeMismatch {
                    op: name,
                    lhs: ss.to_vec(),
                    rhs: t.shape().to_vec(),
                });
            }
        }
        all_same_shape = false;
        shape
    } else {
        // Given outputs take part when they cannot be resized-away (reductions, resize off) or
        // when nothing else gives a shape (`fill_`-like iterators).
        let outs_count = cfg.is_reduction || !cfg.resize_outputs || cfg.inputs.is_empty();
        let mut shape: Option<DimVec<usize>> = None;
        for i in 0..nt {
            let o = &it.operands[i];
            if o.allocated || (o.is_output && !outs_count) {
                continue;
            }
            let t = it.layout(i).shape();
            match &mut shape {
                None => shape = Some(DimVec::from_slice(t, 0)),
                Some(s) if &**s == t => {}
                Some(s) => {
                    all_same_shape = false;
                    *s = broadcast(name, s, t)?;
                }
            }
        }
        shape.ok_or_else(|| {
            invalid(
                name,
                "no inputs: the shape of an allocated output cannot be inferred (declare a static shape)",
            )
        })?
    };
    let numel = checked_numel(&shape, 8)?;

    // 4. given outputs: never broadcast (except in reductions, where they were broadcast above)
    for out in it.operands[..nout].iter().filter_map(|o| o.given()) {
        let out_shape = out.layout.shape();
        if out_shape != &*shape {
            if cfg.static_shape.is_none() && !cfg.is_reduction {
                return Err(Error::OutputShape {
                    op: name,
                    expected: shape.to_vec(),
                    got: out_shape.to_vec(),
                });
            }
            all_same_shape = false;
        }
    }

    // 5. dtypes
    let (common_dtype, out_dtype) = operand_types(cfg, it)?;
    let alloc_dtype = || single::alloc_dtype(cfg, out_dtype);
    let alloc =
        |dtype, shape: &[usize], strides: Option<&[isize]>| cfg.alloc_output(dtype, shape, strides);

    it.base = SmallBuf::filled(nt, core::ptr::null_mut());
    it.logical_shape = shape;
    it.common_dtype = common_dtype;
    it.numel = numel;

    // 6. fast set-up
    if all_same_shape
        && !cfg.is_reduction
        && fast_set_up(it, cfg.enforce_linear_iteration, alloc_dtype, alloc)?
    {
        return finish(it);
    }
    general_set_up(it, cfg, alloc_dtype, alloc)
}

/// The flat set-up, taken before everything else (PyTorch's `fast_set_up` for its most common
/// case; the operands are those of [`single::flat_operands`]): one run of `numel` elements in
/// memory order and the dtype rules, without steps 2-10. `Ok(false)` (the iterator untouched)
/// hands every other case, and every error but the dtype ones, to the general steps.
#[inline(always)]
fn flat_set_up<'a>(cfg: &IterConfig<'a>, it: &mut TensorIterator<'a>) -> Result<bool> {
    let Some(flat) = single::flat_operands(cfg) else {
        return Ok(false);
    };
    let (common_dtype, out_dtype) = flat.types(cfg)?;
    let shape = flat.shape;
    let out = flat.out;
    it.operands.push(Operand {
        src: out.map_or(Src::Owned(usize::MAX), Src::Given),
        is_output: true,
        is_const: false,
        allocated: out.is_none(),
        dtype: out.map_or(DType::Bool, |p| p.dtype),
    });
    for (&(_, is_const), p) in cfg.inputs.iter().zip(&flat.ins) {
        it.operands.push(Operand {
            src: Src::Given(*p),
            is_output: false,
            is_const,
            allocated: false,
            dtype: p.dtype,
        });
    }
    if out.is_none() {
        let dtype = single::alloc_dtype(cfg, out_dtype)?;
        let t = cfg.alloc_output(dtype, shape, None)?;
        it.operands[0].src = Src::Owned(it.owned.push(t));
        it.operands[0].dtype = dtype;
    }
    let nt = it.operands.len();
    it.common_dtype = common_dtype;
    it.numel = flat.numel;
    it.fast_setup = true;
    // In place: the fresh iterator's buffers are empty and inline.
    it.logical_shape.set_slice(shape);
    for d in (0..shape.len()).rev() {
        it.perm.push(d);
    }
    it.base.set_filled(nt, core::ptr::null_mut());
    if !shape.is_empty() {
        it.shape.set_filled(1, flat.numel);
        it.strides.set_filled(nt, 0);
        for (s, o) in it.strides.iter_mut().zip(it.operands.iter()) {
            *s = o.dtype.size() as isize;
        }
    }
    Ok(true)
}

/// Steps 7-10 (strides, reorder, allocation, coalescing) and the borrows, for what the fast
/// set-up does not take. Kept out of line: [`build`] is inlined into its callers so that the
/// iterator is built in place (moving it cost a tenth of a tiny op), and this part is large.
#[inline(never)]
fn general_set_up<'a>(
    it: &mut TensorIterator<'a>,
    cfg: &IterConfig<'a>,
    alloc_dtype: impl Fn() -> Result<DType>,
    alloc: impl Fn(DType, &[usize], Option<&[isize]>) -> Result<DynTensor>,
) -> Result<()> {
    let (nout, nt) = (it.noutputs, it.operands.len());
    let shape = &it.logical_shape.clone();

    // 7. byte strides in logical order, operand-major [op * nd + d]
    let nd = shape.len();
    let mut st = StrideBuf::filled(nt * nd, 0);
    for i in 0..nt {
        if it.operands[i].allocated {
            continue;
        }
        let t = it.layout(i);
        let es = it.operands[i].dtype.size() as isize;
        let off = nd - t.ndim();
        for (k, (&n, &s)) in t.shape().iter().zip(t.strides()).enumerate() {
            let d = off + k;
            st[i * nd + d] = if n == 1 && shape[d] != 1 { 0 } else { s * es };
        }
    }

    // 8. reorder: perm[i] = logical dim at iteration dim i (fastest first)
    let perm = if cfg.enforce_linear_iteration {
        linear_order(nd)
    } else {
        let voters: OperandBuf<Voter> = it
            .operands
            .iter()
            .map(|o| Voter {
                allocated: o.allocated,
                is_output: o.is_output,
            })
            .collect();
        iteration_order(&voters, shape, &st, cfg.is_reduction)
    };
    let mut ishape = DimVec::<usize>::filled(nd, 0);
    let mut istr = StrideBuf::filled(nt * nd, 0);
    for i in 0..nd {
        ishape[i] = shape[perm[i]];
        for op in 0..nt {
            istr[op * nd + i] = st[op * nd + perm[i]];
        }
    }

    // 9. allocate undefined outputs: dense in iteration order, i.e. the inputs' dim order
    for op in 0..nout {
        if !it.operands[op].allocated {
            continue;
        }
        let dtype = alloc_dtype()?;
        let es = dtype.size() as isize;
        let mut lstrides = DimVec::<isize>::filled(nd, 0);
        let mut next = 1isize;
        for i in 0..nd {
            istr[op * nd + i] = next * es;
            lstrides[perm[i]] = next;
            next *= ishape[i].max(1) as isize;
        }
        let t = alloc(dtype, &shape[..], Some(&lstrides[..]))?;
        it.operands[op].src = Src::Owned(it.owned.push(t));
        it.operands[op].dtype = dtype;
    }

    // 10. coalesce
    let packed = coalesce(&mut ishape, &istr, nt);
    it.shape = ishape;
    it.strides = packed;
    it.perm = perm;
    finish(it)
}

/// Base pointers, and the borrows held until the iterator is dropped: one per storage among
/// the given operands, exclusive when an output is on it (one op whose input and output share
/// a storage is one borrower; `overlap.rs` made reading it in place correct). Tensors the
/// iterator holds itself (allocated outputs, copies) are fresh and unshared: no borrow.
fn finish(it: &mut TensorIterator<'_>) -> Result<()> {
    // The fields apart, each buffer's slice taken once (indexing a `SmallBuf` matches its
    // inline/heap variant each time).
    let TensorIterator {
        name,
        operands,
        owned,
        base,
        borrows,
        ..
    } = it;
    let ops: &[Operand<'_>] = operands;
    for (b, o) in base.iter_mut().zip(ops) {
        *b = match o.src {
            Src::Given(p) => p.data,
            Src::Owned(k) => owned.get(k).data_ptr_bytes(),
        };
    }
    for (i, o) in ops.iter().enumerate() {
        let Some(p) = o.given() else {
            continue;
        };
        let given_on = |u: &Operand<'_>| u.given().is_some_and(|u| u.same_storage(&p));
        if ops[..i].iter().any(given_on) {
            continue; // borrowed with an earlier operand
        }
        let exclusive = ops[i..].iter().any(|u| u.is_output && given_on(u));
        // On a conflict the iterator is dropped, releasing the borrows taken so far.
        p.flag.acquire(name, exclusive)?;
        // `build` refused more than `u32::MAX` operands.
        borrows.push((i as u32, exclusive));
    }
    Ok(())
}

/// NumPy/PyTorch broadcasting of two shapes (`infer_size`): the one implementation, used by
/// the iterator, `allclose` and the device launcher (`crate::iter::broadcast_shapes`).
pub(crate) fn broadcast(name: &'static str, a: &[usize], b: &[usize]) -> Result<DimVec<usize>> {
    let nd = a.len().max(b.len());
    let mut out = DimVec::filled(nd, 0);
    for i in 0..nd {
        let da = if i < nd - a.len() {
            1
        } else {
            a[i - (nd - a.len())]
        };
        let db = if i < nd - b.len() {
            1
        } else {
            b[i - (nd - b.len())]
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::ShapeMismatch {
                op: name,
                lhs: a.to_vec(),
                rhs: b.to_vec(),
            });
        };
    }
    Ok(out)
}

/// PyTorch's `compute_types`: returns (common dtype, dtype for allocated outputs).
#[inline]
pub(crate) fn compute_types(
    cfg: &IterConfig<'_>,
    given_outs: &[DType],
    ins: &[InputType],
) -> Result<(Option<DType>, Option<DType>)> {
    let name = cfg.name;
    let first_in = ins.first().map(|o| o.dtype);
    let differ = ins.iter().any(|o| Some(o.dtype) != first_in);
    if cfg.check_all_same_dtype {
        let expected = first_in.or_else(|| given_outs.first().copied());
        if let Some(e) = expected {
            for got in given_outs
                .iter()
                .copied()
                .chain(ins.iter().map(|o| o.dtype))
            {
                if got != e {
                    return Err(Error::DTypeMismatch {
                        op: name,
                        expected: e,
                        got,
                    });
                }
            }
        }
    }
    let mut common = if differ { None } else { first_in };
    // Promotion of dimensioned tensors of one dtype and nothing else is that dtype.
    let trivial = !differ && cfg.scalars.is_empty() && ins.iter().all(|o| !o.zero_dim);
    if cfg.promote_inputs_to_common_dtype && !trivial {
        let mut st = ResultTypeState::new();
        for o in ins {
            let kind = if o.zero_dim {
                OperandKind::ZeroDim
            } else {
                OperandKind::Dimensioned
            };
            st = st.update(o.dtype, kind);
        }
        for s in cfg.scalars.iter() {
            st = st.update(s.dtype(), OperandKind::Scalar);
        }
        common = st.finish();
    }
    if cfg.promote_integer_inputs_to_float
        && let Some(c) = common
        && c.category() != Category::Float
    {
        common = Some(DType::DEFAULT_FLOAT);
    }
    if cfg.enforce_safe_casting_to_output
        && let Some(c) = common
    {
        for &to in given_outs {
            if !can_cast(c, to) {
                return Err(Error::UnsafeCast {
                    op: name,
                    from: c,
                    to,
                });
            }
        }
    }
    let out_dtype = cfg.static_dtype.or(common);
    Ok((common, out_dtype))
}

/// An input as dtype promotion sees it.
#[derive(Copy, Clone)]
pub(crate) struct InputType {
    pub(crate) dtype: DType,
    /// A 0-d tensor (weaker than a dimensioned one in promotion).
    pub(crate) zero_dim: bool,
}

/// [`compute_types`] of the iterator's operands.
fn operand_types(
    cfg: &IterConfig<'_>,
    it: &TensorIterator<'_>,
) -> Result<(Option<DType>, Option<DType>)> {
    let nout = cfg.outputs.len();
    let ops = &it.operands[..];
    let given = OperandBuf::from_iter_fill(
        ops[..nout].iter().filter(|o| !o.allocated).map(|o| o.dtype),
        DType::Bool,
    );
    let ins = OperandBuf::from_iter_fill(
        (nout..ops.len()).map(|i| InputType {
            dtype: ops[i].dtype,
            zero_dim: it.layout(i).ndim() == 0,
        }),
        InputType {
            dtype: DType::Bool,
            zero_dim: false,
        },
    );
    compute_types(cfg, &given, &ins)
}

/// PyTorch's `fast_set_up`: every operand has the broadcast shape and either all are
/// contiguous, or (unless linear iteration is enforced) all are non-overlapping-dense with the
/// same strides. Then the iteration is one dim of `numel` in memory order: one flat run, no
/// reorder or coalescing.
fn fast_set_up(
    it: &mut TensorIterator<'_>,
    enforce_linear_iteration: bool,
    alloc_dtype: impl Fn() -> Result<DType>,
    alloc: impl Fn(DType, &[usize], Option<&[isize]>) -> Result<DynTensor>,
) -> Result<bool> {
    let nt = it.operands.len();
    let defined = || (0..nt).filter(|&i| !it.operands[i].allocated);
    let all_contig = defined().all(|i| it.layout(i).is_contiguous());
    // The strides allocated outputs copy (None: contiguous).
    let mut strides: Option<DimVec<isize>> = None;
    if !all_contig {
        if enforce_linear_iteration {
            return Ok(false);
        }
        let mut d = defined();
        let Some(first) = d.next().map(|i| it.layout(i)) else {
            return Ok(false);
        };
        // Negative strides (possible on size-0/1 dims of a dense layout) cannot be
        // allocated by `empty_strided`: leave those to the general path.
        let same_dense = overlap::is_non_overlapping_and_dense(first)
            && first.strides().iter().all(|&s| s >= 0)
            && d.all(|i| it.layout(i).strides() == first.strides());
        if !same_dense {
            return Ok(false);
        }
        strides = Some(first.strides.clone());
    }
    for op in 0..it.noutputs {
        if it.operands[op].allocated {
            let dtype = alloc_dtype()?;
            let shape = &it.logical_shape;
            let t = alloc(dtype, shape, strides.as_deref())?;
            it.operands[op].src = Src::Owned(it.owned.push(t));
            it.operands[op].dtype = dtype;
        }
    }
    let nd = it.logical_shape.len();
    it.fast_setup = true;
    it.perm = DimVec::empty(0);
    for d in (0..nd).rev() {
        it.perm.push(d);
    }
    if nd == 0 {
        it.shape = DimVec::empty(0);
        it.strides = SmallBuf::empty(0);
    } else {
        it.shape = DimVec::filled(1, it.numel);
        it.strides = SmallBuf::filled(nt, 0);
        for op in 0..nt {
            it.strides[op] = it.operands[op].dtype.size() as isize;
        }
    }
    Ok(true)
}

/// Merges neighbouring iteration dims (fastest first) that every operand walks as one:
/// `ishape` is shortened in place; `istr` holds byte strides operand-major
/// (`[op * nd + d]`, `nd` the length of `ishape` on entry). Returns the strides of the merged
/// dims, operand-major.
pub(crate) fn coalesce(ishape: &mut DimVec<usize>, istr: &[isize], nt: usize) -> StrideBuf {
    let nd = ishape.len();
    let mut istr = StrideBuf::from_slice(istr, 0);
    let mut prev = 0usize;
    for d in 1..nd {
        let (n0, n1) = (ishape[prev], ishape[d]);
        let can = n0 == 1
            || n1 == 1
            || (0..nt).all(|op| n0 as isize * istr[op * nd + prev] == istr[op * nd + d]);
        if can {
            if n0 == 1 {
                for op in 0..nt {
                    istr[op * nd + prev] = istr[op * nd + d];
                }
            }
            ishape[prev] *= n1;
        } else {
            prev += 1;
            if prev != d {
                for op in 0..nt {
                    istr[op * nd + prev] = istr[op * nd + d];
                }
                ishape[prev] = n1;
            }
        }
    }
    let cd = if nd == 0 { 0 } else { prev + 1 };
    ishape.truncate(cd);
    let mut packed = StrideBuf::filled(nt * cd, 0);
    for op in 0..nt {
        packed[op * cd..(op + 1) * cd].copy_from_slice(&istr[op * nd..op * nd + cd]);
    }
    packed
}

/// The iteration order (fastest first) the iterator takes for a unary op over an input of
/// `shape` and `strides` whose output it allocates (`to(dtype)`, ...): only the input votes
/// ([`reorder`]); the allocated output is dense in this order (step 9 of the build). Fast
/// set-up (a dense input) gives the same order.
pub(crate) fn alloc_order(shape: &[usize], strides: &[isize]) -> DimVec<usize> {
    let nd = shape.len();
    let mut st = SmallBuf::<isize, 32>::filled(2 * nd, 0);
    st[nd..].copy_from_slice(strides);
    let voters = [
        Voter {
            allocated: true,
            is_output: true,
        },
        Voter::default(),
    ];
    iteration_order(&voters, shape, &st, false)
}

/// The dims in row-major order, fastest first: `perm[i]` is the logical dim at iteration dim
/// `i`.
fn linear_order(nd: usize) -> DimVec<usize> {
    let mut perm = DimVec::<usize>::empty(0);
    for d in (0..nd).rev() {
        perm.push(d);
    }
    perm
}

/// The iteration order of operands with byte strides `st` (operand-major, one voter per
/// operand): [`linear_order`] sorted by [`reorder`].
pub(crate) fn iteration_order(
    voters: &[Voter],
    shape: &[usize],
    st: &[isize],
    is_reduction: bool,
) -> DimVec<usize> {
    let nd = shape.len();
    let mut perm = linear_order(nd);
    if nd > 1 {
        reorder(voters, shape, st, nd, is_reduction, &mut perm);
    }
    perm
}

/// An operand's say in the dim order.
#[derive(Copy, Clone, Default)]
pub(crate) struct Voter {
    /// Allocated outputs do not vote.
    pub(crate) allocated: bool,
    /// In reductions, an output's reduced (stride-0) dims go first.
    pub(crate) is_output: bool,
}

/// PyTorch's `reorder_dimensions`: an insertion sort of the dims, fastest (smallest |stride|)
/// first. The first operand whose strides decide (non-zero, unequal) wins; equal non-zero
/// strides prefer the smaller dim inner; allocated outputs do not vote; in reductions the
/// outputs' reduced (stride-0) dims go first.
fn reorder(
    ops: &[Voter],
    shape: &[usize],
    st: &[isize],
    nd: usize,
    is_reduction: bool,
    perm: &mut [usize],
) {
    let should_swap = |dim0: usize, dim1: usize| -> i32 {
        for (i, op) in ops.iter().enumerate() {
            if op.allocated {
                continue;
            }
            let s0 = st[i * nd + dim0];
            let s1 = st[i * nd + dim1];
            if is_reduction && op.is_output && ((s0 == 0) != (s1 == 0)) {
                return if s1 == 0 { 1 } else { -1 };
            }
            if s0 == 0 || s1 == 0 {
                continue;
            }
            let (a0, a1) = (s0.unsigned_abs(), s1.unsigned_abs());
            if a0 < a1 {
                return -1;
            }
            // A larger stride, or an equal one on a larger dim, goes outside.
            if a0 > a1 || shape[dim0] > shape[dim1] {
                return 1;
            }
        }
        0
    };
    for i in 1..nd {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            let c = should_swap(perm[dim0], perm[dim1]);
            if c > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if c < 0 {
                break;
            }
        }
    }
}
