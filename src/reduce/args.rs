//! The arguments of a reduction: which dims ([`Dims`]) and PyTorch's keyword arguments
//! ([`ReduceArgs`]).

use crate::dtype::DType;

/// Which dims a reduction runs over: all of them, or a list (negative dims count from the end;
/// an empty list means all, as in PyTorch).
///
/// `From` conversions: `()` and `Dims::All` for all dims, an `isize`, an array, slice or `Vec`
/// of them, `Option<isize>` (`None` = all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dims {
    All,
    One(isize),
    List(Vec<isize>),
}

impl Dims {
    /// The listed dims, `None` for all.
    pub(crate) fn as_slice(&self) -> Option<&[isize]> {
        match self {
            Dims::All => None,
            Dims::One(d) => Some(core::slice::from_ref(d)),
            Dims::List(l) if l.is_empty() => None,
            Dims::List(l) => Some(l),
        }
    }
}

impl From<()> for Dims {
    fn from(_: ()) -> Dims {
        Dims::All
    }
}
impl From<isize> for Dims {
    fn from(d: isize) -> Dims {
        Dims::One(d)
    }
}
impl From<Option<isize>> for Dims {
    fn from(d: Option<isize>) -> Dims {
        d.map_or(Dims::All, Dims::One)
    }
}
impl From<&[isize]> for Dims {
    fn from(d: &[isize]) -> Dims {
        Dims::List(d.to_vec())
    }
}
impl<const N: usize> From<[isize; N]> for Dims {
    fn from(d: [isize; N]) -> Dims {
        Dims::List(d.to_vec())
    }
}
impl From<Vec<isize>> for Dims {
    fn from(d: Vec<isize>) -> Dims {
        Dims::List(d)
    }
}

/// The arguments of one reduction (PyTorch's keyword arguments).
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceArgs {
    pub dims: Dims,
    pub keepdim: bool,
    /// `sum prod mean softmax log_softmax`: cast the input to this dtype first; it is also the
    /// result dtype.
    pub dtype: Option<DType>,
    /// `var`/`std`: the divisor is `n - correction` (1: Bessel's correction, PyTorch's default).
    pub correction: f64,
}

impl ReduceArgs {
    /// Over `dims`, without keepdim, no dtype, correction 1.
    pub fn new(dims: impl Into<Dims>) -> ReduceArgs {
        ReduceArgs {
            dims: dims.into(),
            keepdim: false,
            dtype: None,
            correction: 1.0,
        }
    }
    pub fn keepdim(mut self, keepdim: bool) -> ReduceArgs {
        self.keepdim = keepdim;
        self
    }
    pub fn dtype(mut self, dtype: DType) -> ReduceArgs {
        self.dtype = Some(dtype);
        self
    }
    pub fn correction(mut self, correction: f64) -> ReduceArgs {
        self.correction = correction;
        self
    }
}
