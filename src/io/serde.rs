//! `Serialize`/`Deserialize` for `Tensor<T>` and `DynTensor` (cargo feature `serde`).
//!
//! # The form
//!
//! A tensor is a struct `Tensor { dtype, shape, data }`:
//!
//! * `dtype`: the dtype's canonical name, as `DType`'s `Display` writes it (`"float32"`,
//!   `"bfloat16"`, `"bool"`, ...). Deserialization reads any name `str::parse::<DType>` reads
//!   (PyTorch's aliases, NumPy type strings, safetensors names);
//! * `shape`: the sizes, a sequence of unsigned integers;
//! * `data`: every element in row-major order, whatever the tensor's layout (transposed,
//!   stepped, reversed and expanded views are gathered, under a shared borrow of the storage,
//!   through `try_to_vec`); bools as booleans, integers as integers, floats as numbers.
//!
//! In JSON: `{"dtype":"float32","shape":[2,2],"data":[1.0,2.0,3.0,4.0]}`. A deserialized
//! tensor is contiguous and owns a fresh storage.
//!
//! # f16 and bf16
//!
//! Human-readable formats (`Serializer::is_human_readable`, e.g. JSON) write an f16/bf16 element
//! as its f32 value (exact: every f16/bf16 is an f32), and read any number back, rounded to the
//! nearest f16/bf16 once (from f64). Other formats (bincode, postcard, ...) use `half`'s own
//! representation, the 16 bits of the element (a newtype struct around a `u16`): exact,
//! NaN payloads included. (`half`'s impls alone would write the bits to JSON as well:
//! `15360` for `1.0`.)
//!
//! # Non-finite floats
//!
//! Non-human-readable formats keep every value, NaN (with its payload) and infinities
//! included. `serde_json` cannot write NaN or infinities: it writes `null` for them, and
//! reading such a `null` back is an error (a float element must be a number), so a JSON round
//! trip of a tensor with non-finite elements fails on the way back instead of inventing values.
//!
//! # Validation
//!
//! Deserialization checks everything and never panics: an unknown dtype name (the error names
//! it), a dtype other than `T` for `Tensor<T>`, a shape whose element count or byte size
//! overflows (`checked_numel`), a `data` length other than the shape's element count, elements
//! of the wrong kind (a number for a bool, `1.5` or `300` for a `u8`, `null`), missing,
//! repeated and unknown fields. Memory is never reserved from an input's claimed length: at
//! most 1 MiB of elements is reserved up front (serde's caution for size hints), the rest
//! grows with the elements actually read, and reading stops at the first element past the
//! shape's count. In a map, `dtype` must come before `data` for `DynTensor` (the elements'
//! type depends on it; `Tensor<T>` knows it already and takes the fields in any order).

use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::element::Element;
use crate::layout::checked_numel;
use crate::tensor::Tensor;
use ::serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeStruct, Serializer};
use ::serde::{Deserialize, Serialize};
use core::fmt;
use core::marker::PhantomData;
use half::{bf16, f16};
use std::any::Any;
use std::vec::Vec;

const NAME: &str = "Tensor";
const FIELDS: &[&str] = &["dtype", "shape", "data"];

/// The most bytes of elements reserved before they are read (serde's own cap for size hints).
const PREALLOC_BYTES: usize = 1 << 20;

/// How one element type is written and read (the ten `Element` types).
trait SerdeElement: Element {
    fn ser<S: Serializer>(self, s: S) -> Result<S::Ok, S::Error>;
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

macro_rules! plain_element {
    ([$($t:ty),*]) => {$(
        impl SerdeElement for $t {
            #[inline]
            fn ser<S: Serializer>(self, s: S) -> Result<S::Ok, S::Error> {
                Serialize::serialize(&self, s)
            }
            #[inline]
            fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t as Deserialize>::deserialize(d)
            }
        }
    )*};
}
crate::dtype_types!(integral => plain_element!());
plain_element!([f32, f64]);

macro_rules! half_element {
    ($($t:ty),*) => {$(
        impl SerdeElement for $t {
            #[inline]
            fn ser<S: Serializer>(self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    // Exact: every f16/bf16 is an f32.
                    s.serialize_f32(self.to_f32())
                } else {
                    // `half`'s form: the bits, exact for every value.
                    Serialize::serialize(&self, s)
                }
            }
            #[inline]
            fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if d.is_human_readable() {
                    // One rounding, from the f64 the number parses to.
                    f64::deserialize(d).map(<$t>::from_f64)
                } else {
                    <$t as Deserialize>::deserialize(d)
                }
            }
        }
    )*};
}
half_element!(f16, bf16);

/// One element, serialized and deserialized by its [`SerdeElement`] impl.
struct El<U>(U);

impl<U: SerdeElement> Serialize for El<U> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.ser(s)
    }
}

impl<'de, U: SerdeElement> Deserialize<'de> for El<U> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        U::de(d).map(El)
    }
}

/// The `data` field: the elements as a sequence.
struct Elems<'a, U>(&'a [U]);

impl<U: SerdeElement> Serialize for Elems<'_, U> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|&x| El(x)))
    }
}

impl<T: Element> Serialize for Tensor<T> {
    /// `{dtype, shape, data}` with the elements in row-major order, any layout (see the
    /// module docs). Fails (with the serializer's error) on a borrow conflict: another thread
    /// writing the storage right now.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ::serde::ser::Error as _;
        let data = self.try_to_vec().map_err(S::Error::custom)?;
        crate::with_dtype!(T::DTYPE, U => {
            // `U` is `T` (same dtype): the downcast is a type check that always succeeds.
            let data = (&data as &dyn Any)
                .downcast_ref::<Vec<U>>()
                .ok_or_else(|| S::Error::custom("weft: element type does not match its dtype"))?;
            let mut st = s.serialize_struct(NAME, 3)?;
            st.serialize_field("dtype", T::DTYPE.name())?;
            st.serialize_field("shape", self.shape())?;
            st.serialize_field("data", &Elems(data))?;
            st.end()
        })
    }
}

impl Serialize for DynTensor {
    /// The typed tensor's form (see [`Tensor`]'s `Serialize`).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::dispatch!(self, t => t.serialize(s))
    }
}

#[derive(Deserialize)]
#[serde(field_identifier)]
enum Field {
    #[serde(rename = "dtype")]
    DType,
    #[serde(rename = "shape")]
    Shape,
    #[serde(rename = "data")]
    Data,
}

/// Reads a dtype name.
struct DTypeSeed;

impl<'de> DeserializeSeed<'de> for DTypeSeed {
    type Value = DType;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<DType, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for DTypeSeed {
    type Value = DType;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a dtype name such as \"float32\"")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<DType, E> {
        v.parse::<DType>().map_err(E::custom)
    }
}

/// Reads the `data` sequence as a `Vec` of `dtype`'s element type (boxed: the caller
/// downcasts it), at most `expected` elements when the shape is known.
struct DataSeed {
    dtype: DType,
    expected: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for DataSeed {
    type Value = Box<dyn Any>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Box<dyn Any>, D::Error> {
        let expected = self.expected;
        crate::with_dtype!(self.dtype, U => {
            let v = d.deserialize_seq(DataVisitor::<U> { expected, _t: PhantomData })?;
            Ok(Box::new(v) as Box<dyn Any>)
        })
    }
}

struct DataVisitor<U> {
    expected: Option<usize>,
    _t: PhantomData<U>,
}

impl<'de, U: SerdeElement> Visitor<'de> for DataVisitor<U> {
    type Value = Vec<U>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of {} elements", U::DTYPE)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<U>, A::Error> {
        let alloc_failed = |n: usize| {
            de::Error::custom(crate::Error::AllocationFailed {
                bytes: n as u128 * size_of::<U>() as u128,
            })
        };
        // Never trust the claimed length: reserve at most PREALLOC_BYTES (and never more than
        // the shape holds); the rest grows with the elements actually read.
        let first = seq
            .size_hint()
            .unwrap_or(0)
            .min(PREALLOC_BYTES / size_of::<U>())
            .min(self.expected.unwrap_or(usize::MAX));
        let mut v: Vec<U> = Vec::new();
        v.try_reserve_exact(first)
            .map_err(|_| alloc_failed(first))?;
        while let Some(El(x)) = seq.next_element::<El<U>>()? {
            if let Some(n) = self.expected
                && v.len() == n
            {
                return Err(de::Error::custom(format!(
                    "data has more elements than the shape's {n}"
                )));
            }
            if v.len() == v.capacity() {
                let more = v.len().max(64);
                v.try_reserve(more)
                    .map_err(|_| alloc_failed(v.len() + more))?;
            }
            v.push(x);
        }
        Ok(v)
    }
}

/// What the struct visitor reads: the dtype, the shape and the elements (a boxed `Vec` of the
/// dtype's element type), checked against each other.
struct Parsed {
    dtype: DType,
    shape: Vec<usize>,
    data: Box<dyn Any>,
}

struct TensorVisitor {
    /// The dtype `Tensor<T>` needs (`None` for `DynTensor`: any).
    want: Option<DType>,
}

fn check_want<E: de::Error>(want: Option<DType>, got: DType) -> Result<(), E> {
    match want {
        Some(expected) if expected != got => Err(E::custom(crate::Error::DTypeMismatch {
            op: "deserialize Tensor",
            expected,
            got,
        })),
        _ => Ok(()),
    }
}

fn numel<E: de::Error>(shape: &[usize], dtype: DType) -> Result<usize, E> {
    checked_numel(shape, dtype.size()).map_err(E::custom)
}

impl<'de> Visitor<'de> for TensorVisitor {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tensor: struct Tensor { dtype, shape, data }")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        let dtype = seq
            .next_element_seed(DTypeSeed)?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        check_want(self.want, dtype)?;
        let shape: Vec<usize> = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let n = numel(&shape, dtype)?;
        let data = seq
            .next_element_seed(DataSeed {
                dtype,
                expected: Some(n),
            })?
            .ok_or_else(|| de::Error::invalid_length(2, &self))?;
        Ok(Parsed { dtype, shape, data })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut dtype: Option<DType> = None;
        let mut shape: Option<Vec<usize>> = None;
        let mut data: Option<Box<dyn Any>> = None;
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::DType => {
                    if dtype.is_some() {
                        return Err(de::Error::duplicate_field("dtype"));
                    }
                    let d = map.next_value_seed(DTypeSeed)?;
                    check_want(self.want, d)?;
                    dtype = Some(d);
                }
                Field::Shape => {
                    if shape.is_some() {
                        return Err(de::Error::duplicate_field("shape"));
                    }
                    shape = Some(map.next_value()?);
                }
                Field::Data => {
                    if data.is_some() {
                        return Err(de::Error::duplicate_field("data"));
                    }
                    let d = dtype.or(self.want).ok_or_else(|| {
                        de::Error::custom("field `dtype` must come before `data`")
                    })?;
                    let expected = match &shape {
                        Some(s) => Some(numel(s, d)?),
                        None => None,
                    };
                    data = Some(map.next_value_seed(DataSeed { dtype: d, expected })?);
                }
            }
        }
        Ok(Parsed {
            dtype: dtype.ok_or_else(|| de::Error::missing_field("dtype"))?,
            shape: shape.ok_or_else(|| de::Error::missing_field("shape"))?,
            data: data.ok_or_else(|| de::Error::missing_field("data"))?,
        })
    }
}

/// The tensor from checked parts: `data` must be a `Vec<T>` holding exactly the shape's count.
fn finish<T: Element, E: de::Error>(shape: &[usize], data: Box<dyn Any>) -> Result<Tensor<T>, E> {
    let data = data
        .downcast::<Vec<T>>()
        .map_err(|_| E::custom("weft: element type does not match its dtype"))?;
    let n = numel(shape, T::DTYPE)?;
    if data.len() != n {
        return Err(E::custom(format!(
            "data has {} elements, but shape {shape:?} holds {n}",
            data.len()
        )));
    }
    Tensor::from_vec(*data, shape).map_err(E::custom)
}

impl<'de, T: Element> Deserialize<'de> for Tensor<T> {
    /// A contiguous tensor from `{dtype, shape, data}`, every part checked (see the module
    /// docs); `dtype` must be `T`'s.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let p = d.deserialize_struct(
            NAME,
            FIELDS,
            TensorVisitor {
                want: Some(T::DTYPE),
            },
        )?;
        check_want(Some(T::DTYPE), p.dtype)?;
        finish(&p.shape, p.data)
    }
}

impl<'de> Deserialize<'de> for DynTensor {
    /// A contiguous tensor of the named dtype from `{dtype, shape, data}`, every part checked
    /// (see the module docs).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let p = d.deserialize_struct(NAME, FIELDS, TensorVisitor { want: None })?;
        crate::with_dtype!(p.dtype, U => Ok(DynTensor::from(finish::<U, D::Error>(&p.shape, p.data)?)))
    }
}
