//! `IterConfig`: PyTorch's `TensorIteratorConfig` builder, and the named factories.

use super::TensorIterator;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::Result;
use crate::scalar::Scalar;
use crate::small::{DimVec, SmallBuf};

/// The knobs of an iterator, with PyTorch's defaults: `check_mem_overlap`, `resize_outputs` and
/// `check_all_same_dtype` on, everything else off.
///
/// As in PyTorch, `promote_inputs_to_common_dtype(true)` and `cast_common_dtype_to_outputs(true)`
/// also turn `check_all_same_dtype` off (a later `check_all_same_dtype(true)` turns it back on);
/// `declare_static_dtype` needs `check_all_same_dtype(false)` first, `declare_static_shape`
/// needs `resize_outputs(false)`, and `promote_integer_inputs_to_float` needs
/// `promote_inputs_to_common_dtype` (checked in [`IterConfig::build`]).
///
/// The config borrows its tensors (no handle is cloned, nothing is allocated for up to 2
/// outputs, 4 inputs and 2 scalars); the built iterator borrows them for as long as it lives.
pub struct IterConfig<'a> {
    pub(crate) name: &'static str,
    /// `None`: allocate.
    pub(crate) outputs: SmallBuf<Option<&'a DynTensor>, 2>,
    /// (tensor, is_const), in the order added (always `Some`; `None` only fills unused slots).
    pub(crate) inputs: SmallBuf<(Option<&'a DynTensor>, bool), 4>,
    pub(crate) scalars: SmallBuf<Scalar, 2>,
    pub(crate) check_all_same_dtype: bool,
    pub(crate) promote_inputs_to_common_dtype: bool,
    pub(crate) promote_integer_inputs_to_float: bool,
    pub(crate) cast_common_dtype_to_outputs: bool,
    pub(crate) enforce_safe_casting_to_output: bool,
    pub(crate) enforce_linear_iteration: bool,
    pub(crate) resize_outputs: bool,
    pub(crate) check_mem_overlap: bool,
    pub(crate) allow_cpu_scalars: bool,
    pub(crate) is_reduction: bool,
    pub(crate) static_dtype: Option<DType>,
    /// Set when `declare_static_dtype` was called while `check_all_same_dtype` was on.
    pub(crate) static_dtype_misuse: bool,
    /// `declare_static_shape`: (shape, squash dims); boxed, rarely used, keeps the config small.
    pub(crate) static_shape: Option<Box<(DimVec<usize>, DimVec<usize>)>>,
    /// Allocated outputs are left uninitialised ([`IterConfig::set_outputs_written_in_full`]).
    pub(super) outputs_written_in_full: bool,
}

impl Default for IterConfig<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> IterConfig<'a> {
    #[inline]
    pub fn new() -> Self {
        IterConfig {
            name: "TensorIterator",
            outputs: SmallBuf::empty(None),
            inputs: SmallBuf::empty((None, false)),
            scalars: SmallBuf::empty(Scalar::Bool(false)),
            check_all_same_dtype: true,
            promote_inputs_to_common_dtype: false,
            promote_integer_inputs_to_float: false,
            cast_common_dtype_to_outputs: false,
            enforce_safe_casting_to_output: false,
            enforce_linear_iteration: false,
            resize_outputs: true,
            check_mem_overlap: true,
            allow_cpu_scalars: false,
            is_reduction: false,
            static_dtype: None,
            static_dtype_misuse: false,
            static_shape: None,
            outputs_written_in_full: false,
        }
    }

    /// The op name used in error messages (default `"TensorIterator"`).
    #[inline]
    pub fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// A given output: written in place, never broadcast (except in reductions), never resized.
    #[inline]
    pub fn add_output(mut self, t: &'a DynTensor) -> Self {
        self.outputs.push(Some(t));
        self
    }
    /// An output the iterator allocates with the broadcast shape, in the inputs' dim order.
    #[inline]
    pub fn add_owned_output(mut self) -> Self {
        self.outputs.push(None);
        self
    }
    #[inline]
    pub fn add_input(mut self, t: &'a DynTensor) -> Self {
        self.inputs.push((Some(t), false));
        self
    }
    #[inline]
    pub fn add_const_input(mut self, t: &'a DynTensor) -> Self {
        self.inputs.push((Some(t), true));
        self
    }
    /// A number that takes part in the common-dtype computation only (with the weakest
    /// priority, `OperandKind::Scalar`); it is not iterated.
    #[inline]
    pub fn add_scalar(mut self, s: Scalar) -> Self {
        self.scalars.push(s);
        self
    }

    #[inline]
    pub fn check_all_same_dtype(mut self, v: bool) -> Self {
        self.check_all_same_dtype = v;
        self
    }
    #[inline]
    pub fn promote_inputs_to_common_dtype(mut self, v: bool) -> Self {
        self.promote_inputs_to_common_dtype = v;
        if v {
            self.check_all_same_dtype = false;
        }
        self
    }
    #[inline]
    pub fn promote_integer_inputs_to_float(mut self, v: bool) -> Self {
        self.promote_integer_inputs_to_float = v;
        self
    }
    #[inline]
    pub fn cast_common_dtype_to_outputs(mut self, v: bool) -> Self {
        self.cast_common_dtype_to_outputs = v;
        if v {
            self.check_all_same_dtype = false;
        }
        self
    }
    #[inline]
    pub fn enforce_safe_casting_to_output(mut self, v: bool) -> Self {
        self.enforce_safe_casting_to_output = v;
        self
    }
    /// Walk the operands in logical (row-major) order: no stride sort, and the fast set-up only
    /// for all-contiguous operands.
    #[inline]
    pub fn enforce_linear_iteration(mut self, v: bool) -> Self {
        self.enforce_linear_iteration = v;
        self
    }
    #[inline]
    pub fn resize_outputs(mut self, v: bool) -> Self {
        self.resize_outputs = v;
        self
    }
    #[inline]
    pub fn check_mem_overlap(mut self, v: bool) -> Self {
        self.check_mem_overlap = v;
        self
    }
    /// Recorded only (weft has one device).
    #[inline]
    pub fn allow_cpu_scalars(mut self, v: bool) -> Self {
        self.allow_cpu_scalars = v;
        self
    }
    /// Outputs may broadcast (stride 0 on reduced dims); reduced dims are walked first.
    #[inline]
    pub fn is_reduction(mut self, v: bool) -> Self {
        self.is_reduction = v;
        self
    }
    /// The dtype of allocated outputs (requires `check_all_same_dtype(false)` first).
    #[inline]
    pub fn declare_static_dtype(mut self, d: DType) -> Self {
        if self.check_all_same_dtype {
            self.static_dtype_misuse = true;
        }
        self.static_dtype = Some(d);
        self
    }
    /// Same as [`IterConfig::declare_static_dtype`] (one device).
    pub fn declare_static_dtype_and_device(self, d: DType) -> Self {
        self.declare_static_dtype(d)
    }
    /// Skip shape inference: every operand must have exactly this shape (requires
    /// `resize_outputs(false)`).
    pub fn declare_static_shape(mut self, shape: &[usize]) -> Self {
        self.static_shape = Some(Box::new((DimVec::from_slice(shape, 0), DimVec::empty(0))));
        self
    }
    /// A static shape whose `squash_dims` are iterated as size 1 (the kernel walks them itself);
    /// operands may have any size there.
    pub fn declare_static_shape_squash(mut self, shape: &[usize], squash_dims: &[usize]) -> Self {
        self.static_shape = Some(Box::new((
            DimVec::from_slice(shape, 0),
            DimVec::from_slice(squash_dims, 0),
        )));
        self
    }

    /// Allocated outputs come uninitialised: no zeroing pass before the op writes them. Only
    /// the crate's ops set this; a user's iterator (whose allocated outputs can be read before
    /// any loop runs) gets zeroed ones.
    ///
    /// # Safety
    /// The caller runs a loop over the built iterator (or single run) that writes every element
    /// of each allocated output before any is read and before the outputs are taken; an error
    /// or panic before that must drop them unread.
    #[inline(always)]
    pub(crate) unsafe fn set_outputs_written_in_full(&mut self) {
        self.outputs_written_in_full = true;
    }

    /// An allocated output of this config: uninitialised under
    /// [`IterConfig::set_outputs_written_in_full`], else zeroed; `strides` `None`: contiguous.
    #[inline]
    pub(super) fn alloc_output(
        &self,
        dtype: DType,
        shape: &[usize],
        strides: Option<&[isize]>,
    ) -> Result<DynTensor> {
        let zeroed = !self.outputs_written_in_full;
        // SAFETY: uninitialised only under `set_outputs_written_in_full`, whose caller writes
        // every element before any is read or the outputs are taken.
        unsafe { DynTensor::alloc_output(dtype, shape, strides, zeroed) }
    }

    #[inline]
    pub fn build(self) -> Result<TensorIterator<'a>> {
        super::build::build(&self)
    }

    /// Builds the iterator and runs `f` on it in place (no move of the iterator: what the
    /// crate's own ops use).
    #[inline(always)]
    pub(crate) fn build_with<R>(
        &self,
        f: impl FnOnce(&mut TensorIterator<'a>) -> Result<R>,
    ) -> Result<R> {
        super::build::build_with(self, f)
    }

    /// The given outputs, in the order added.
    pub(crate) fn given_outputs(&self) -> impl Iterator<Item = &'a DynTensor> + '_ {
        self.outputs.iter().filter_map(|o| *o)
    }

    /// The inputs, in the order added.
    pub(crate) fn input_tensors(&self) -> impl Iterator<Item = &'a DynTensor> + '_ {
        self.inputs.iter().filter_map(|&(t, _)| t)
    }
}

impl<'a> TensorIterator<'a> {
    fn binary_config(
        out: Option<&'a DynTensor>,
        a: &'a DynTensor,
        b: &'a DynTensor,
    ) -> IterConfig<'a> {
        let c = IterConfig::new()
            .check_mem_overlap(true)
            .allow_cpu_scalars(true)
            .promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true);
        with_out(c, out).add_const_input(a).add_const_input(b)
    }

    /// `add`, `mul`, ...: promotion, cast to the output, safe casting to a given output.
    pub fn binary_op(
        out: Option<&'a DynTensor>,
        a: &'a DynTensor,
        b: &'a DynTensor,
    ) -> Result<Self> {
        Self::binary_config(out, a, b).name("binary_op").build()
    }

    /// `div`, `atan2`, ...: as `binary_op`, and integer inputs compute in the default float.
    pub fn binary_float_op(
        out: Option<&'a DynTensor>,
        a: &'a DynTensor,
        b: &'a DynTensor,
    ) -> Result<Self> {
        Self::binary_config(out, a, b)
            .promote_integer_inputs_to_float(true)
            .name("binary_float_op")
            .build()
    }

    /// `eq`, `lt`, ...: promotion; an allocated output is bool; a given non-bool output gets the
    /// cast flag (a bool output does not: kernels write bool directly).
    pub fn comparison_op(
        out: Option<&'a DynTensor>,
        a: &'a DynTensor,
        b: &'a DynTensor,
    ) -> Result<Self> {
        let mut c = IterConfig::new()
            .check_mem_overlap(true)
            .allow_cpu_scalars(true)
            .promote_inputs_to_common_dtype(true);
        c = with_out(c, out).add_const_input(a).add_const_input(b);
        match out {
            None => c = c.declare_static_dtype(DType::Bool),
            Some(o) if o.dtype() != DType::Bool => c = c.cast_common_dtype_to_outputs(true),
            Some(_) => {}
        }
        c.name("comparison_op").build()
    }

    /// `neg`, `abs`, ...: one dtype for all operands.
    pub fn unary_op(out: Option<&'a DynTensor>, a: &'a DynTensor) -> Result<Self> {
        let c = IterConfig::new()
            .check_mem_overlap(true)
            .cast_common_dtype_to_outputs(false)
            .enforce_safe_casting_to_output(false)
            .check_all_same_dtype(true);
        with_out(c, out).add_const_input(a).name("unary_op").build()
    }

    /// `exp`, `sin`, ...: integer inputs compute in the default float.
    pub fn unary_float_op(out: Option<&'a DynTensor>, a: &'a DynTensor) -> Result<Self> {
        let c = IterConfig::new()
            .check_mem_overlap(true)
            .promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true)
            .promote_integer_inputs_to_float(true);
        with_out(c, out)
            .add_const_input(a)
            .name("unary_float_op")
            .build()
    }

    /// `fill_`, `arange` into `out`: one given output, no inputs.
    pub fn nullary_op(out: &'a DynTensor) -> Result<Self> {
        IterConfig::new()
            .check_mem_overlap(true)
            .check_all_same_dtype(false)
            .add_output(out)
            .resize_outputs(false)
            .name("nullary_op")
            .build()
    }

    /// The geometry of a reduction of `a` into `out` (keepdim shape: size 1 on reduced dims,
    /// which get stride 0 and are walked first).
    pub fn reduce_op(out: &'a DynTensor, a: &'a DynTensor) -> Result<Self> {
        IterConfig::new()
            .check_mem_overlap(false)
            .add_output(out)
            .add_const_input(a)
            .resize_outputs(false)
            .is_reduction(true)
            .promote_inputs_to_common_dtype(true)
            .name("reduce_op")
            .build()
    }
}

fn with_out<'a>(c: IterConfig<'a>, out: Option<&'a DynTensor>) -> IterConfig<'a> {
    match out {
        Some(o) => c.add_output(o),
        None => c.add_owned_output(),
    }
}
