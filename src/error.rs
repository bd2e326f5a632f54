//! The one error type of weft. Every fallible API returns `Result<_, Error>`; operators panic
//! with the same message (`Display`).

use crate::dtype::DType;
use std::fmt;
use std::string::String;
use std::vec::Vec;

pub type Result<T, E = Error> = core::result::Result<T, E>;

#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// Two shapes that do not broadcast against each other.
    ShapeMismatch {
        op: &'static str,
        lhs: Vec<usize>,
        rhs: Vec<usize>,
    },
    /// A given output whose shape is not the broadcast shape (outputs never broadcast).
    OutputShape {
        op: &'static str,
        expected: Vec<usize>,
        got: Vec<usize>,
    },
    /// The number of elements does not match (from_vec, reshape, view).
    NumelMismatch {
        what: &'static str,
        shape: Vec<usize>,
        expected: usize,
        got: usize,
    },
    /// An op that does not support a dtype (or a pair of dtypes).
    UnsupportedDType {
        op: &'static str,
        dtype: DType,
        other: Option<DType>,
    },
    /// A result dtype that cannot be written into the given output (`i64.add_(2.5)`).
    UnsafeCast {
        op: &'static str,
        from: DType,
        to: DType,
    },
    /// Operands of different dtypes where the op requires one dtype.
    DTypeMismatch {
        op: &'static str,
        expected: DType,
        got: DType,
    },
    /// An index or dimension out of range.
    IndexOutOfRange {
        what: &'static str,
        index: isize,
        bound: usize,
        /// The dim the index runs along, where there is one.
        dim: Option<usize>,
    },
    /// A view that reaches outside its storage, or strides that cannot express it.
    InvalidView { reason: String },
    /// Element count or byte extent that does not fit i64.
    NumelOverflow { shape: Vec<usize> },
    /// An output overlaps itself (stride 0 with size > 1) or partially overlaps an input.
    MemoryOverlap { reason: &'static str },
    /// Integer division or remainder by zero (the whole op fails, the output is untouched).
    ZeroDivision { op: &'static str },
    /// A scalar that does not fit the dtype it must be converted to.
    ScalarOverflow {
        op: &'static str,
        value: String,
        dtype: DType,
    },
    /// An integer tensor raised to a negative integer scalar power.
    NegativeIntegerPower,
    /// Wrong use of an API (missing operands, bad arguments, unsupported signature).
    InvalidArgument { op: &'static str, reason: String },
    /// A device problem (no CUDA driver found, kernel launch failure, ...).
    Device { reason: String },
    /// The storage is borrowed in a conflicting way right now: another op (usually on another
    /// thread) writes it while this one reads or writes it, or reads it while this one writes.
    /// weft never waits (no deadlocks); retry once the other op is done.
    BorrowConflict { op: &'static str, write: bool },
    /// The allocator could not provide a buffer of this many bytes (or more than
    /// `isize::MAX` bytes were asked for).
    AllocationFailed { bytes: u128 },
    /// A dtype name no naming scheme knows (or a big-endian NumPy type string).
    UnknownDType { name: String, big_endian: bool },
    /// Reading or writing a file or stream failed (the `std::io::Error`, as text).
    Io { op: &'static str, reason: String },
    /// Malformed input data: a corrupted or truncated `.npy` file, bytes that are not a valid
    /// element (a bool byte other than 0/1), a length that does not match the shape.
    Format {
        format: &'static str,
        reason: String,
    },
}

fn shape_str(s: &[usize]) -> String {
    let parts: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ShapeMismatch { op, lhs, rhs } => write!(
                f,
                "{op}: shapes {} and {} do not broadcast",
                shape_str(lhs),
                shape_str(rhs)
            ),
            Error::OutputShape { op, expected, got } => write!(
                f,
                "{op}: output has shape {} but the result has shape {} (outputs do not broadcast)",
                shape_str(got),
                shape_str(expected)
            ),
            Error::NumelMismatch {
                what,
                shape,
                expected,
                got,
            } => write!(
                f,
                "{what}: shape {} holds {expected} elements, got {got}",
                shape_str(shape)
            ),
            Error::UnsupportedDType {
                op,
                dtype,
                other: None,
            } => {
                write!(f, "{op} is not supported for dtype {dtype}")
            }
            Error::UnsupportedDType {
                op,
                dtype,
                other: Some(o),
            } => {
                write!(f, "{op} is not supported for dtypes {dtype} and {o}")
            }
            Error::UnsafeCast { op, from, to } => write!(
                f,
                "{op}: result type {from} can't be cast to the desired output type {to}"
            ),
            Error::DTypeMismatch { op, expected, got } => {
                write!(f, "{op}: expected dtype {expected}, got {got}")
            }
            Error::IndexOutOfRange {
                what,
                index,
                bound,
                dim: None,
            } => write!(f, "{what} {index} is out of range for size {bound}"),
            Error::IndexOutOfRange {
                what,
                index,
                bound,
                dim: Some(d),
            } => write!(
                f,
                "{what} {index} is out of range for dim {d} of size {bound}"
            ),
            Error::InvalidView { reason } => write!(f, "invalid view: {reason}"),
            Error::NumelOverflow { shape } => write!(
                f,
                "shape {} overflows: its element count or byte size does not fit i64",
                shape_str(shape)
            ),
            Error::MemoryOverlap { reason } => write!(f, "memory overlap: {reason}"),
            Error::ZeroDivision { op } => {
                write!(f, "{op}: ZeroDivisionError (integer division by zero)")
            }
            Error::ScalarOverflow { op, value, dtype } => {
                write!(
                    f,
                    "{op}: value {value} cannot be converted to {dtype} without overflow"
                )
            }
            Error::NegativeIntegerPower => {
                write!(
                    f,
                    "pow: integers to negative integer powers are not allowed"
                )
            }
            Error::InvalidArgument { op, reason } => write!(f, "{op}: {reason}"),
            Error::Device { reason } => write!(f, "device error: {reason}"),
            Error::BorrowConflict { op, write: true } => write!(
                f,
                "{op}: cannot write the storage: another operation is reading or writing it \
                 right now (a tensor shared across threads is written while in use)"
            ),
            Error::BorrowConflict { op, write: false } => write!(
                f,
                "{op}: cannot read the storage: another operation is writing it right now \
                 (a tensor shared across threads is written while in use)"
            ),
            Error::AllocationFailed { bytes } => {
                write!(f, "allocation of {bytes} bytes failed")
            }
            Error::UnknownDType {
                name,
                big_endian: false,
            } => write!(f, "unknown dtype {name:?}"),
            Error::UnknownDType {
                name,
                big_endian: true,
            } => write!(
                f,
                "unsupported dtype {name:?}: big-endian data is not supported (convert it to \
                 little-endian first, e.g. NumPy's `a.astype(a.dtype.newbyteorder('<'))`)"
            ),
            Error::Io { op, reason } => write!(f, "{op}: I/O error: {reason}"),
            Error::Format { format, reason } => write!(f, "invalid {format} data: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

/// The panicking twin of every `try_*` method: panics with the error's message at the
/// caller's line (`#[track_caller]` all the way up, no closure in between).
pub(crate) trait OrPanic<T> {
    #[track_caller]
    fn or_panic(self) -> T;
}

impl<T> OrPanic<T> for Result<T> {
    #[inline]
    fn or_panic(self) -> T {
        match self {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }
}
