//! The single-run set-up: the iterator's answer for the most common small op, decided in one
//! pass over the config. One output (given or allocated), one to three inputs, every given
//! tensor contiguous with one shape, no static shape, not a reduction, and no input on the
//! output's storage other than the identical view (an in-place op): then the whole iteration
//! is one run of `numel` elements in memory order, and only the dtype rules remain.
//!
//! Two consumers: the [`TensorIterator`](super::TensorIterator) build takes this case first
//! ([`flat_operands`], then its own geometry), and the table ops' runners take
//! [`IterConfig::build_single_run`] when the run is also one thread's work, which yields just
//! the operands' addresses and dtypes: a 4-element op then costs what its checks, its
//! allocation and its kernel cost, not an iterator's geometry.

use super::INLINE_OPERANDS;
use super::build::{InputType, compute_types, invalid};
use super::config::IterConfig;
use super::run::{ElementBytes, LoopCost};
use crate::dtype::DType;
use crate::dyn_tensor::{DynTensor, ElementParts, TensorParts};
use crate::error::Result;
use crate::storage::BorrowFlag;

/// The operands of a flat op ([`flat_operands`]).
pub(crate) struct Flat<'a> {
    /// The given output's parts (`None`: to be allocated).
    pub(crate) out: Option<TensorParts<'a>>,
    /// The inputs' parts, in order.
    pub(crate) ins: FlatInputs<'a>,
    /// The common shape and its element count.
    pub(crate) shape: &'a [usize],
    pub(crate) numel: usize,
}

/// Up to three inputs, inline (`len` of the slots used).
pub(crate) struct FlatInputs<'a> {
    parts: [Option<TensorParts<'a>>; INLINE_OPERANDS - 1],
    len: usize,
}

impl<'a, 'b> IntoIterator for &'b FlatInputs<'a> {
    type Item = &'b TensorParts<'a>;
    type IntoIter = core::iter::Flatten<core::slice::Iter<'b, Option<TensorParts<'a>>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.parts[..self.len].iter().flatten()
    }
}

/// The config's operands when they are a flat op (see the module docs), else `None`.
#[inline(always)]
pub(crate) fn flat_operands<'a>(cfg: &IterConfig<'a>) -> Option<Flat<'a>> {
    let (outs, ins) = (&cfg.outputs[..], &cfg.inputs[..]);
    if outs.len() != 1 || !(1..INLINE_OPERANDS).contains(&ins.len()) {
        return None;
    }
    if cfg.static_shape.is_some() || cfg.is_reduction {
        return None;
    }
    let out = outs[0].map(|t| t.parts());
    let first = ins[0].0?.parts();
    let shape = first.layout.shape();
    let flat = |l: &crate::layout::Layout| l.shape() == shape && l.is_contiguous();
    if out.is_some_and(|o| !flat(o.layout)) {
        return None;
    }
    let mut parts = [None; INLINE_OPERANDS - 1];
    for (k, (slot, &(t, _))) in parts.iter_mut().zip(ins).enumerate() {
        let p = if k == 0 { first } else { t?.parts() };
        // An input on the output's storage: only the identical view runs in place here.
        let shared = out.is_some_and(|o| o.same_storage(&p) && o.data != p.data);
        if !flat(p.layout) || shared {
            return None;
        }
        *slot = Some(p);
    }
    Some(Flat {
        out,
        ins: FlatInputs {
            parts,
            len: ins.len(),
        },
        shape,
        // Existing tensors: the element count of their shape cannot overflow.
        numel: shape.iter().product(),
    })
}

impl Flat<'_> {
    /// The common dtype and the dtype of an allocated output (`compute_types`).
    #[inline]
    pub(crate) fn types(&self, cfg: &IterConfig<'_>) -> Result<(Option<DType>, Option<DType>)> {
        // The common case in straight-line code: dimensioned inputs of one dtype `d`, scalars
        // of no higher category (a scalar wins only with a higher one), no integer-to-float
        // promotion of `d`, and a given output (if any) of `d`: every rule of `compute_types`
        // gives `d` and no error.
        let d = self.ins.parts[0].map_or(DType::Bool, |p| p.dtype);
        if !self.shape.is_empty()
            && cfg
                .scalars
                .iter()
                .all(|s| s.dtype().category() <= d.category())
            && (&self.ins).into_iter().all(|p| p.dtype == d)
            && self.out.is_none_or(|o| o.dtype == d)
            && (d.is_float() || !cfg.promote_integer_inputs_to_float)
        {
            return Ok((Some(d), cfg.static_dtype.or(Some(d))));
        }
        let given: &[DType] = match &self.out {
            Some(o) => &[o.dtype][..],
            None => &[],
        };
        let mut ins = [InputType {
            dtype: DType::Bool,
            zero_dim: false,
        }; INLINE_OPERANDS - 1];
        for (slot, p) in ins.iter_mut().zip(&self.ins) {
            *slot = InputType {
                dtype: p.dtype,
                zero_dim: self.shape.is_empty(),
            };
        }
        compute_types(cfg, given, &ins[..self.ins.len])
    }
}

/// The dtype of an allocated output, or the error when none could be inferred.
pub(crate) fn alloc_dtype(cfg: &IterConfig<'_>, out_dtype: Option<DType>) -> Result<DType> {
    out_dtype.ok_or_else(|| {
        invalid(
            cfg.name,
            "cannot infer the dtype of an allocated output (inputs of different dtypes without promotion, or no inputs)",
        )
    })
}

/// A flat op small enough for one thread, set up: operand `i`'s element 0 (`ptrs[i]`, outputs
/// first) and dtype, the element count, and the storage borrows, held until it is dropped
/// (exclusive on the output's storage, shared on the other inputs' storages).
pub(crate) struct SingleRun<'a> {
    pub(crate) ptrs: [*mut u8; INLINE_OPERANDS],
    pub(crate) dtypes: [DType; INLINE_OPERANDS],
    /// Operands in use (the output and the inputs).
    pub(crate) nt: usize,
    pub(crate) numel: usize,
    pub(crate) common_dtype: Option<DType>,
    allocated: Option<DynTensor>,
    held: [Option<(&'a BorrowFlag, bool)>; INLINE_OPERANDS],
}

impl<'a> IterConfig<'a> {
    /// The single-run set-up (module docs) when it applies and the run has at most `grain`
    /// elements (one thread's work); `Ok(None)` hands the op to [`IterConfig::build_with`].
    /// Its errors are the ones the full build gives for the same operands. Inlined: the run
    /// is built in its caller's frame (returning it moved its 300 bytes).
    #[inline(always)]
    pub(crate) fn build_single_run(&self, cost: LoopCost) -> Result<Option<SingleRun<'a>>> {
        let Some(flat) = flat_operands(self) else {
            return Ok(None);
        };
        if flat.numel == 0 {
            return Ok(None);
        }
        // (The full build gives the same errors.)
        let (common_dtype, out_dtype) = flat.types(self)?;
        let bytes = || {
            let out = flat.out.map(|o| o.dtype).or(out_dtype);
            let ins = (&flat.ins).into_iter().map(|p| p.dtype.size());
            ElementBytes::of(ins.chain([out.map_or(1, DType::size)]))
        };
        if !is_serial(flat.numel, cost, bytes) {
            return Ok(None);
        }
        let mut run = SingleRun {
            ptrs: [core::ptr::null_mut(); INLINE_OPERANDS],
            dtypes: [DType::Bool; INLINE_OPERANDS],
            nt: 1 + flat.ins.len,
            numel: flat.numel,
            common_dtype,
            allocated: None,
            held: [None; INLINE_OPERANDS],
        };
        match flat.out {
            Some(o) => {
                (run.ptrs[0], run.dtypes[0]) = (o.data, o.dtype);
                o.flag.acquire(self.name, true)?;
                run.held[0] = Some((o.flag, true));
            }
            None => {
                let dtype = alloc_dtype(self, out_dtype)?;
                let t = self.alloc_output(dtype, flat.shape, None)?;
                (run.ptrs[0], run.dtypes[0]) = (t.data_ptr_bytes(), dtype);
                run.allocated = Some(t);
            }
        }
        for (k, p) in (&flat.ins).into_iter().enumerate() {
            run.acquire_input(self.name, k + 1, p)?;
        }
        Ok(Some(run))
    }
}

/// A flat op of `N` inputs (one or two), tested straight from the tensors (no config): inputs
/// of one shape and at least one element, contiguous, and the
/// output (when given) of that shape, contiguous, and no input on its storage other than the
/// identical view. The dtypes are the
/// caller's (`ops::binary`'s and `ops::unary`'s flat tiers: dimensioned tensors promote by the
/// promotion table alone).
pub(crate) struct FlatOperands<'a, const N: usize> {
    pub(crate) out: Option<ElementParts<'a>>,
    pub(crate) ins: [ElementParts<'a>; N],
    pub(crate) numel: usize,
}

/// Whether `numel` elements are one thread's work for a loop of `cost` moving `bytes()` bytes
/// per element ([`LoopCost::is_serial`]), called only past the bound for any flat op: tiny ops
/// skip it.
#[inline(always)]
fn is_serial(numel: usize, cost: LoopCost, bytes: impl FnOnce() -> ElementBytes) -> bool {
    cost.is_serial_for_any_flat_op(numel) || cost.is_serial(numel, bytes())
}

impl<const N: usize> FlatOperands<'_, N> {
    /// Whether the op is one thread's work for a loop of `cost` writing `out_dtype`
    /// ([`LoopCost::is_serial`]): the flat tiers run only then.
    #[inline(always)]
    pub(crate) fn is_serial(&self, cost: LoopCost, out_dtype: DType) -> bool {
        let ins = self.ins.iter().map(|p| p.dtype.size());
        let bytes = || ElementBytes::of(ins.chain([out_dtype.size()]));
        is_serial(self.numel, cost, bytes)
    }
}

/// The [`FlatOperands`] of `out = op(ins...)` (any size: see [`FlatOperands::is_serial`]), or
/// `None`.
#[inline(always)]
pub(crate) fn flat_operands_of<'a, const N: usize>(
    ins: [ElementParts<'a>; N],
    out: Option<ElementParts<'a>>,
) -> Option<FlatOperands<'a, N>> {
    let shape = ins[0].layout.shape();
    // Compared element by element: a slice `!=` calls `memcmp`, a tenth of a tiny op's checks.
    let same_shape =
        |s: &[usize]| s.len() == shape.len() && s.iter().zip(shape).all(|(x, y)| x == y);
    if !ins[1..].iter().all(|p| same_shape(p.layout.shape())) {
        return None;
    }
    // Existing tensors: the element count of their shape cannot overflow.
    let numel: usize = shape.iter().product();
    if numel == 0 || !ins.iter().all(|p| p.layout.is_contiguous()) {
        return None;
    }
    if let Some(o) = out {
        // Same shape and contiguous: an input on the output's storage at the same address is
        // the identical view (in place); at another it overlaps partially or not at all, which
        // the iterator's overlap check decides.
        let shared = |p: &ElementParts| o.same_storage(p) && o.data != p.data;
        if !same_shape(o.layout.shape()) || !o.layout.is_contiguous() || ins.iter().any(shared) {
            return None;
        }
    }
    Some(FlatOperands { out, ins, numel })
}

impl<'a> SingleRun<'a> {
    /// An empty single run of `N` inputs over `flat`'s `numel` elements, to be set up in place
    /// by [`SingleRun::take_flat`] (built where it is used: returning a set-up run in a
    /// `Result` moved its ~200 bytes).
    #[inline(always)]
    pub(crate) fn for_flat<const N: usize>(
        flat: &FlatOperands<'a, N>,
        common_dtype: DType,
    ) -> Self {
        SingleRun {
            ptrs: [core::ptr::null_mut(); INLINE_OPERANDS],
            dtypes: [DType::Bool; INLINE_OPERANDS],
            nt: 1 + N,
            numel: flat.numel,
            common_dtype: Some(common_dtype),
            allocated: None,
            held: [None; INLINE_OPERANDS],
        }
    }

    /// Sets up the run of [`FlatOperands`] into their given output or a fresh uninitialised one
    /// of `out_dtype`: the output's exclusive borrow and the inputs' shared ones taken (named
    /// `name` in a conflict's error; on an error the run is dropped, releasing them).
    ///
    /// # Safety
    /// [`IterConfig::set_outputs_written_in_full`]'s contract: the caller writes every element
    /// of an allocated output before [`SingleRun::take_output`] (or drops the run unread).
    #[inline(always)]
    pub(crate) unsafe fn take_flat<const N: usize>(
        &mut self,
        name: &'static str,
        flat: &FlatOperands<'a, N>,
        out_dtype: DType,
    ) -> Result<()> {
        match flat.out {
            Some(o) => {
                (self.ptrs[0], self.dtypes[0]) = (o.data, o.dtype);
                o.flag.acquire(name, true)?;
                self.held[0] = Some((o.flag, true));
            }
            None => {
                let shape = flat.ins[0].layout.shape();
                // SAFETY: the caller's contract.
                let t = unsafe { DynTensor::uninit_in(&mut self.allocated, out_dtype, shape)? };
                (self.ptrs[0], self.dtypes[0]) = (t.data_ptr_bytes(), out_dtype);
            }
        }
        for (k, p) in flat.ins.iter().enumerate() {
            self.acquire_input(name, k + 1, p)?;
        }
        Ok(())
    }

    /// Records input operand `i` and takes its storage's shared borrow, unless an operand
    /// before it holds that storage's borrow already (the output's exclusive one covers an
    /// in-place input). On a conflict the caller drops `self`, releasing the borrows so far.
    #[inline(always)]
    fn acquire_input(&mut self, name: &'static str, i: usize, p: &ElementParts<'a>) -> Result<()> {
        (self.ptrs[i], self.dtypes[i]) = (p.data, p.dtype);
        let taken = self.held[..i]
            .iter()
            .flatten()
            .any(|&(f, _)| core::ptr::eq(f, p.flag));
        if !taken {
            p.flag.acquire(name, false)?;
            self.held[i] = Some((p.flag, false));
        }
        Ok(())
    }
}

impl SingleRun<'_> {
    /// Every operand's byte stride along the run (its element size), `nt` of them.
    #[inline]
    pub(crate) fn strides(&self) -> [isize; INLINE_OPERANDS] {
        self.dtypes.map(|d| d.size() as isize)
    }

    /// The allocated output (`None` when the run wrote into a given one), the borrows
    /// released.
    #[inline]
    pub(crate) fn take_output(&mut self) -> Option<DynTensor> {
        self.release();
        self.allocated.take()
    }

    fn release(&mut self) {
        for (flag, exclusive) in self.held.iter_mut().filter_map(Option::take) {
            flag.release(exclusive);
        }
    }
}

impl Drop for SingleRun<'_> {
    fn drop(&mut self) {
        self.release();
    }
}
