//! `ShapeArg`: what `reshape`, `view` and `expand` accept as a shape.
//!
//! A shape is `&[usize]` wherever one is passed, so `a.reshape(b.shape())` works; signed
//! integers are accepted too, for PyTorch's `-1` (inferred by `reshape`/`view`, kept by
//! `expand`): `a.reshape([-1, 3])`, `a.reshape([2, 3])`, `a.reshape(vec![6])`.

use crate::error::{Error, Result};
use std::vec::Vec;

/// One entry of a shape argument.
pub trait ShapeInt: Copy {
    /// The entry as `isize` (`-1` is the only meaningful negative value), `None` when it does
    /// not fit.
    fn to_isize(self) -> Option<isize>;
}

macro_rules! shape_int {
    ($($t:ty),*) => {$(
        impl ShapeInt for $t {
            fn to_isize(self) -> Option<isize> {
                isize::try_from(self).ok()
            }
        }
    )*};
}
shape_int!(usize, isize, i32, i64, u32, u64);

/// A shape: a slice, array or `Vec` of [`ShapeInt`]s, or a reference to one.
pub trait ShapeArg {
    /// The entries as `isize`; an error names the entry that does not fit.
    fn dims(&self) -> Result<Vec<isize>>;
}

fn dims_of<I: ShapeInt>(s: &[I]) -> Result<Vec<isize>> {
    s.iter()
        .enumerate()
        .map(|(i, &d)| {
            d.to_isize().ok_or_else(|| Error::InvalidArgument {
                op: "shape",
                reason: format!("entry {i} of the shape does not fit isize"),
            })
        })
        .collect()
}

impl<I: ShapeInt> ShapeArg for [I] {
    fn dims(&self) -> Result<Vec<isize>> {
        dims_of(self)
    }
}

impl<I: ShapeInt, const N: usize> ShapeArg for [I; N] {
    fn dims(&self) -> Result<Vec<isize>> {
        dims_of(self)
    }
}

impl<I: ShapeInt> ShapeArg for Vec<I> {
    fn dims(&self) -> Result<Vec<isize>> {
        dims_of(self)
    }
}

impl<S: ShapeArg + ?Sized> ShapeArg for &S {
    fn dims(&self) -> Result<Vec<isize>> {
        (**self).dims()
    }
}
