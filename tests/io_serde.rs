//! `Serialize`/`Deserialize` for `Tensor<T>` and `DynTensor` (feature `serde`): round trips of
//! every dtype and layout through JSON and through a small non-human-readable format, and
//! every malformed input as an `Err`.
#![cfg(feature = "serde")]

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::ser::{self, Impossible, Serialize, SerializeSeq, SerializeStruct, Serializer};
use weft::half::{bf16, f16};
use weft::{DType, DynTensor, Element, Tensor};

// ---------------------------------------------------------------------------------------------
// Layouts and values

/// A 3 x 4 tensor of `d` with distinct small values (finite: JSON has no NaN/inf).
fn base(d: DType) -> DynTensor {
    let v: Vec<f64> = (0..12).map(|i| i as f64 * 1.25 - 4.0).collect();
    DynTensor::from_vec(v, &[3, 4]).unwrap().to(d)
}

/// Views of `base(d)` in every layout class: contiguous, transposed, reversed, stepped with an
/// offset, expanded (stride 0), narrowed (offset), 0-d, empty.
fn layouts(d: DType) -> Vec<(&'static str, DynTensor)> {
    let b = base(d);
    vec![
        ("contiguous", b.share()),
        ("transposed", b.t()),
        ("reversed", b.slice(1, None, None, -1)),
        (
            "stepped",
            b.slice(0, Some(1), None, 2).slice(1, Some(1), None, 2),
        ),
        ("expanded", b.select(0, 1).unsqueeze(0).expand([5, 4])),
        ("offset", b.narrow(1, 1, 2)),
        ("0-d", b.select(0, 2).select(0, 3)),
        ("empty", b.slice(0, Some(2), Some(2), 1)),
        ("empty-3d", b.unsqueeze(0).slice(0, Some(0), Some(0), 1)),
    ]
}

fn same<T: weft::DynElement>(a: &Tensor<T>, b: &Tensor<T>) {
    assert_eq!(a.shape(), b.shape());
    let (va, vb) = (a.to_vec(), b.to_vec());
    assert_eq!(va.len(), vb.len());
    for (x, y) in va.iter().zip(&vb) {
        // Bit-exact for floats (-0.0 included); `==` for the rest.
        assert_eq!(format!("{x:?}"), format!("{y:?}"));
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

#[test]
fn json_form() {
    let t = Tensor::<f32>::from_vec(vec![1.0, 2.5, -3.0, 0.1], &[2, 2]).unwrap();
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"dtype":"float32","shape":[2,2],"data":[1.0,2.5,-3.0,0.1]}"#
    );
    // Any layout is written in row-major order.
    assert_eq!(
        serde_json::to_string(&t.t()).unwrap(),
        r#"{"dtype":"float32","shape":[2,2],"data":[1.0,-3.0,2.5,0.1]}"#
    );
    let b = Tensor::<bool>::from_vec(vec![true, false], &[2]).unwrap();
    assert_eq!(
        serde_json::to_string(&b).unwrap(),
        r#"{"dtype":"bool","shape":[2],"data":[true,false]}"#
    );
    let i = Tensor::<i64>::from_vec(vec![i64::MIN, i64::MAX], &[2, 1]).unwrap();
    assert_eq!(
        serde_json::to_string(&DynTensor::from(i)).unwrap(),
        r#"{"dtype":"int64","shape":[2,1],"data":[-9223372036854775808,9223372036854775807]}"#
    );
    // f16/bf16: their f32 value, not half's bits.
    let h = Tensor::<f16>::from_vec(vec![f16::from_f32(0.1), f16::ONE], &[2]).unwrap();
    assert_eq!(
        serde_json::to_string(&h).unwrap(),
        r#"{"dtype":"float16","shape":[2],"data":[0.099975586,1.0]}"#
    );
    let z = Tensor::<u8>::scalar(7);
    assert_eq!(
        serde_json::to_string(&z).unwrap(),
        r#"{"dtype":"uint8","shape":[],"data":[7]}"#
    );
    // The canonical name of every dtype is its Display form.
    for d in DType::ALL {
        let v: serde_json::Value = serde_json::to_value(base(d)).unwrap();
        assert_eq!(v["dtype"], d.to_string());
    }
}

fn json_round_trip_typed<T: weft::DynElement>()
where
    Tensor<T>: Serialize + DeserializeOwned,
{
    for (what, v) in layouts(T::DTYPE) {
        let t = v.as_typed::<T>().unwrap();
        let s = serde_json::to_string(t).unwrap();
        let back: Tensor<T> = serde_json::from_str(&s).unwrap();
        assert!(back.is_contiguous(), "{} {what}", T::DTYPE);
        same(&back, t);
        // The same text as a DynTensor.
        let dy: DynTensor = serde_json::from_str(&s).unwrap();
        assert_eq!(dy.dtype(), T::DTYPE);
        same(dy.as_typed::<T>().unwrap(), t);
        // A DynTensor writes the same text.
        assert_eq!(serde_json::to_string(&v).unwrap(), s, "{} {what}", T::DTYPE);
        // serde_json::Value in between (numbers as Value).
        let val = serde_json::to_value(&v).unwrap();
        let back: Tensor<T> = serde_json::from_value(val).unwrap();
        same(&back, t);
    }
}

#[test]
fn json_round_trip_every_dtype_and_layout() {
    json_round_trip_typed::<bool>();
    json_round_trip_typed::<u8>();
    json_round_trip_typed::<i8>();
    json_round_trip_typed::<i16>();
    json_round_trip_typed::<i32>();
    json_round_trip_typed::<i64>();
    json_round_trip_typed::<f16>();
    json_round_trip_typed::<bf16>();
    json_round_trip_typed::<f32>();
    json_round_trip_typed::<f64>();
}

#[test]
fn json_round_trip_dyn_every_dtype_and_layout() {
    for d in DType::ALL {
        for (what, v) in layouts(d) {
            let s = serde_json::to_string(&v).unwrap();
            let back: DynTensor = serde_json::from_str(&s).unwrap();
            assert_eq!(back.dtype(), d);
            assert_eq!(back.shape(), v.shape(), "{d} {what}");
            assert_eq!(
                back.to_bytes().unwrap(),
                v.to_bytes().unwrap(),
                "{d} {what}"
            );
        }
    }
}

/// Every finite f16 and bf16 (all 2 x 63,488 bit patterns) round-trips exactly through JSON
/// as an f32 number; -0.0 keeps its sign.
#[test]
fn json_half_exhaustive() {
    let bits: Vec<u16> = (0..=u16::MAX).collect();
    let h: Vec<f16> = bits
        .iter()
        .map(|&b| f16::from_bits(b))
        .filter(|x| x.is_finite())
        .collect();
    let t = Tensor::<f16>::from_vec(h.clone(), &[h.len()]).unwrap();
    let back: Tensor<f16> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    let got: Vec<u16> = back.to_vec().iter().map(|x| x.to_bits()).collect();
    assert_eq!(got, h.iter().map(|x| x.to_bits()).collect::<Vec<_>>());

    let b: Vec<bf16> = bits
        .iter()
        .map(|&b| bf16::from_bits(b))
        .filter(|x| x.is_finite())
        .collect();
    let t = Tensor::<bf16>::from_vec(b.clone(), &[b.len()]).unwrap();
    let back: Tensor<bf16> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    let got: Vec<u16> = back.to_vec().iter().map(|x| x.to_bits()).collect();
    assert_eq!(got, b.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}

/// Finite f32 and f64 from random bit patterns (every exponent) round-trip exactly through
/// JSON (serde_json's `float_roundtrip`).
#[test]
fn json_f32_f64_bit_exact() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let f: Vec<f32> = (0..200_000)
        .map(|_| f32::from_bits(next() as u32))
        .filter(|x| x.is_finite())
        .chain([
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::EPSILON,
            -0.0,
            1e-45,
        ])
        // Wrong by one ulp when parsed through f64 and then rounded to f32 (serde-rs/json#671).
        .chain([f32::from_bits(0x15ae_43fd), f32::from_bits(0x95ae_43fd)])
        .collect();
    let t = Tensor::<f32>::from_vec(f.clone(), &[f.len()]).unwrap();
    let back: Tensor<f32> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back.to_vec()), bits(&f));

    let g: Vec<f64> = (0..200_000)
        .map(|_| f64::from_bits(next()))
        .filter(|x| x.is_finite())
        .chain([f64::MIN_POSITIVE, f64::MAX, f64::MIN, 5e-324, -0.0])
        .collect();
    let t = Tensor::<f64>::from_vec(g.clone(), &[g.len()]).unwrap();
    let back: Tensor<f64> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back.to_vec()), bits(&g));
}

/// serde_json writes `null` for NaN and infinities; reading `null` back is an error.
#[test]
fn json_non_finite_is_null_and_null_is_an_error() {
    let t = Tensor::<f32>::from_vec(vec![f32::NAN, f32::INFINITY, 1.0], &[3]).unwrap();
    let s = serde_json::to_string(&t).unwrap();
    assert_eq!(
        s,
        r#"{"dtype":"float32","shape":[3],"data":[null,null,1.0]}"#
    );
    assert!(serde_json::from_str::<Tensor<f32>>(&s).is_err());
    assert!(serde_json::from_str::<DynTensor>(&s).is_err());
    for d in [DType::F16, DType::BF16, DType::F64] {
        let t = DynTensor::from_vec(vec![f64::NEG_INFINITY, 2.0], &[2])
            .unwrap()
            .to(d);
        let s = serde_json::to_string(&t).unwrap();
        assert!(s.contains("[null,2.0]"), "{s}");
        let e = serde_json::from_str::<DynTensor>(&s)
            .unwrap_err()
            .to_string();
        assert!(e.contains("null"), "{e}");
    }
}

#[test]
fn json_accepts_names_orders_and_integer_floats() {
    // Aliases of the dtype name, fields in any order (dtype before data for DynTensor),
    // integers for floats, f16 rounded once from the number.
    let t: DynTensor =
        serde_json::from_str(r#"{"shape":[2],"dtype":"torch.float","data":[1,2]}"#).unwrap();
    assert_eq!(t.dtype(), DType::F32);
    assert_eq!(t.to_vec::<f32>().unwrap(), [1.0, 2.0]);
    let t: Tensor<f16> =
        serde_json::from_str(r#"{"data":[0.1, 65504],"dtype":"float16","shape":[2]}"#).unwrap();
    assert_eq!(t.to_vec(), [f16::from_f64(0.1), f16::MAX]);
    // A sequence form (what non-self-describing formats use).
    let t: Tensor<i16> = serde_json::from_str(r#"["int16", [3], [1, -2, 3]]"#).unwrap();
    assert_eq!(t.to_vec(), [1, -2, 3]);
    let t: DynTensor = serde_json::from_str(r#"["uint8", [], [255]]"#).unwrap();
    assert_eq!(t.item().unwrap(), weft::Scalar::Int(255));
}

fn json_err<T: DeserializeOwned>(s: &str) -> String {
    match serde_json::from_str::<T>(s) {
        Ok(_) => panic!("accepted {s}"),
        Err(e) => e.to_string(),
    }
}

/// Both `Tensor<f32>` (where the dtype fits) and `DynTensor` refuse `s`; returns DynTensor's
/// message.
fn bad(s: &str) -> String {
    json_err::<Tensor<f32>>(s);
    json_err::<DynTensor>(s)
}

#[test]
fn json_bad_inputs_are_errors() {
    // Unknown dtype: the error names it.
    let e = bad(r#"{"dtype":"float33","shape":[1],"data":[1.0]}"#);
    assert!(e.contains("float33"), "{e}");
    bad(r#"{"dtype":7,"shape":[1],"data":[1.0]}"#);
    bad(r#"{"dtype":">f4","shape":[1],"data":[1.0]}"#);
    // Dtype other than T.
    let e = json_err::<Tensor<f32>>(r#"{"dtype":"float64","shape":[1],"data":[1.0]}"#);
    assert!(e.contains("float32") && e.contains("float64"), "{e}");
    json_err::<Tensor<i32>>(r#"["int64", [1], [1]]"#);
    // Shapes whose element count or byte size overflows.
    let e = bad(r#"{"dtype":"float32","shape":[4294967296,4294967296],"data":[]}"#);
    assert!(e.contains("overflow"), "{e}");
    bad(r#"{"dtype":"float32","shape":[2305843009213693952],"data":[]}"#); // 2^61 * 4 bytes
    bad(r#"{"dtype":"float32","shape":[18446744073709551615],"data":[]}"#);
    bad(r#"{"data":[],"dtype":"float32","shape":[4294967296,4294967296]}"#);
    bad(r#"["float32", [4294967296,4294967296], []]"#);
    bad(r#"{"dtype":"float32","shape":[-1],"data":[]}"#);
    bad(r#"{"dtype":"float32","shape":[1.5],"data":[1.0]}"#);
    bad(r#"{"dtype":"float32","shape":2,"data":[1.0,2.0]}"#);
    // Data length other than the shape's count (more, fewer; shape before or after data).
    let e = bad(r#"{"dtype":"float32","shape":[2,2],"data":[1,2,3]}"#);
    assert!(e.contains('3') && e.contains('4'), "{e}");
    bad(r#"{"dtype":"float32","shape":[2,2],"data":[1,2,3,4,5]}"#);
    bad(r#"{"dtype":"float32","data":[1,2,3],"shape":[2,2]}"#);
    bad(r#"{"dtype":"float32","data":[1,2,3,4,5],"shape":[2,2]}"#);
    bad(r#"{"dtype":"float32","shape":[],"data":[]}"#);
    bad(r#"{"dtype":"float32","shape":[0],"data":[1]}"#);
    bad(r#"["float32", [2], [1]]"#);
    bad(r#"["float32", [2], [1, 2, 3]]"#);
    // A huge shape with a short data list: an error, nothing reserved from the shape.
    bad(r#"{"dtype":"float32","shape":[1099511627776],"data":[1,2]}"#);
    // Elements of the wrong kind.
    bad(r#"{"dtype":"float32","shape":[1],"data":[null]}"#);
    bad(r#"{"dtype":"float32","shape":[1],"data":["1.0"]}"#);
    bad(r#"{"dtype":"float32","shape":[1],"data":[true]}"#);
    bad(r#"{"dtype":"float32","shape":[1],"data":1.0}"#);
    for (d, v) in [
        ("bool", "0"),
        ("bool", "1"),
        ("bool", "\"true\""),
        ("bool", "null"),
        ("uint8", "256"),
        ("uint8", "-1"),
        ("uint8", "1.5"),
        ("int8", "128"),
        ("int16", "40000"),
        ("int32", "2147483648"),
        ("int64", "9223372036854775808"),
        ("int64", "1.0"),
        ("int32", "true"),
        ("float16", "null"),
        ("bfloat16", "\"x\""),
        ("float64", "null"),
    ] {
        let s = format!(r#"{{"dtype":"{d}","shape":[1],"data":[{v}]}}"#);
        json_err::<DynTensor>(&s);
    }
    json_err::<Tensor<bool>>(r#"{"dtype":"bool","shape":[2],"data":[1,0]}"#);
    json_err::<Tensor<u8>>(r#"{"dtype":"uint8","shape":[1],"data":[300]}"#);
    // Missing, repeated, unknown fields; data before dtype for DynTensor; not a struct.
    bad(r#"{"dtype":"float32","shape":[1]}"#);
    bad(r#"{"dtype":"float32","data":[1.0]}"#);
    bad(r#"{"shape":[1],"data":[1.0]}"#);
    bad(r#"{"dtype":"float32","dtype":"float32","shape":[1],"data":[1.0]}"#);
    bad(r#"{"dtype":"float32","shape":[1],"shape":[1],"data":[1.0]}"#);
    bad(r#"{"dtype":"float32","shape":[1],"data":[1.0],"data":[1.0]}"#);
    bad(r#"{"dtype":"float32","shape":[1],"data":[1.0],"strides":[1]}"#);
    let e = json_err::<DynTensor>(r#"{"data":[1.0],"dtype":"float32","shape":[1]}"#);
    assert!(e.contains("before"), "{e}");
    let ok: Tensor<f32> =
        serde_json::from_str(r#"{"data":[1.0],"dtype":"float32","shape":[1]}"#).unwrap();
    assert_eq!(ok.to_vec(), [1.0]);
    bad(r#"["float32", [1]]"#);
    bad(r#"["float32"]"#);
    bad(r#"[]"#);
    bad(r#"["float32", [1], [1.0], 4]"#);
    bad(r#"null"#);
    bad(r#"3"#);
    bad(r#"{"dtype":"float32","shape":[1],"data":[1.0"#);
}

// ---------------------------------------------------------------------------------------------
// A non-human-readable format: a token list, structs as positional sequences (like bincode),
// floats kept as bits.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Bool(bool),
    I64(i64),
    U64(u64),
    F32(u32),
    F64(u64),
    Str(String),
    /// A sequence of this many items (claimed: the reader may be handed a lie).
    Seq(usize),
    Newtype,
}

#[derive(Debug)]
struct TokError(String);
impl std::fmt::Display for TokError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TokError {}
impl ser::Error for TokError {
    fn custom<M: std::fmt::Display>(m: M) -> Self {
        TokError(m.to_string())
    }
}
impl de::Error for TokError {
    fn custom<M: std::fmt::Display>(m: M) -> Self {
        TokError(m.to_string())
    }
}

struct TokSer<'a>(&'a mut Vec<Tok>);

fn unsupported<T>() -> Result<T, TokError> {
    Err(TokError("unsupported by the token format".into()))
}

impl<'a> Serializer for TokSer<'a> {
    type Ok = ();
    type Error = TokError;
    type SerializeSeq = TokSer<'a>;
    type SerializeTuple = Impossible<(), TokError>;
    type SerializeTupleStruct = Impossible<(), TokError>;
    type SerializeTupleVariant = Impossible<(), TokError>;
    type SerializeMap = Impossible<(), TokError>;
    type SerializeStruct = TokSer<'a>;
    type SerializeStructVariant = Impossible<(), TokError>;

    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_bool(self, v: bool) -> Result<(), TokError> {
        self.0.push(Tok::Bool(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), TokError> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i16(self, v: i16) -> Result<(), TokError> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i32(self, v: i32) -> Result<(), TokError> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i64(self, v: i64) -> Result<(), TokError> {
        self.0.push(Tok::I64(v));
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), TokError> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u16(self, v: u16) -> Result<(), TokError> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u32(self, v: u32) -> Result<(), TokError> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u64(self, v: u64) -> Result<(), TokError> {
        self.0.push(Tok::U64(v));
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), TokError> {
        self.0.push(Tok::F32(v.to_bits()));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), TokError> {
        self.0.push(Tok::F64(v.to_bits()));
        Ok(())
    }
    fn serialize_char(self, _: char) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_str(self, v: &str) -> Result<(), TokError> {
        self.0.push(Tok::Str(v.into()));
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_none(self) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_unit(self) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), TokError> {
        self.0.push(Tok::Newtype);
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), TokError> {
        unsupported()
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, TokError> {
        let Some(len) = len else { return unsupported() };
        self.0.push(Tok::Seq(len));
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, TokError> {
        unsupported()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, TokError> {
        unsupported()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, TokError> {
        unsupported()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, TokError> {
        unsupported()
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self, TokError> {
        self.0.push(Tok::Seq(len));
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, TokError> {
        unsupported()
    }
}

impl SerializeSeq for TokSer<'_> {
    type Ok = ();
    type Error = TokError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), TokError> {
        v.serialize(TokSer(self.0))
    }
    fn end(self) -> Result<(), TokError> {
        Ok(())
    }
}

impl SerializeStruct for TokSer<'_> {
    type Ok = ();
    type Error = TokError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        v: &T,
    ) -> Result<(), TokError> {
        v.serialize(TokSer(self.0))
    }
    fn end(self) -> Result<(), TokError> {
        Ok(())
    }
}

struct TokDe<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl<'de> Deserializer<'de> for &mut TokDe<'_> {
    type Error = TokError;
    fn is_human_readable(&self) -> bool {
        false
    }
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, TokError> {
        let t = self
            .toks
            .get(self.pos)
            .cloned()
            .ok_or_else(|| TokError("end of input".into()))?;
        self.pos += 1;
        match t {
            Tok::Bool(b) => v.visit_bool(b),
            Tok::I64(i) => v.visit_i64(i),
            Tok::U64(u) => v.visit_u64(u),
            Tok::F32(b) => v.visit_f32(f32::from_bits(b)),
            Tok::F64(b) => v.visit_f64(f64::from_bits(b)),
            Tok::Str(s) => v.visit_string(s),
            Tok::Seq(n) => v.visit_seq(TokSeq { de: self, left: n }),
            Tok::Newtype => v.visit_newtype_struct(self),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct TokSeq<'a, 'b> {
    de: &'a mut TokDe<'b>,
    left: usize,
}

impl<'de> SeqAccess<'de> for TokSeq<'_, '_> {
    type Error = TokError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, TokError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

fn to_toks<S: Serialize>(v: &S) -> Vec<Tok> {
    let mut out = Vec::new();
    v.serialize(TokSer(&mut out)).unwrap();
    out
}

fn from_toks<T: DeserializeOwned>(toks: &[Tok]) -> Result<T, TokError> {
    let mut de = TokDe { toks, pos: 0 };
    let v = T::deserialize(&mut de)?;
    if de.pos != toks.len() {
        return Err(TokError("trailing tokens".into()));
    }
    Ok(v)
}

#[test]
fn compact_form() {
    let t = Tensor::<f16>::from_vec(vec![f16::ONE, f16::NAN], &[2]).unwrap();
    assert_eq!(
        to_toks(&t),
        [
            Tok::Seq(3),
            Tok::Str("float16".into()),
            Tok::Seq(1),
            Tok::U64(2),
            Tok::Seq(2),
            // half's form: the bits.
            Tok::Newtype,
            Tok::U64(0x3c00),
            Tok::Newtype,
            Tok::U64(f16::NAN.to_bits() as u64),
        ]
    );
}

/// Non-human-readable formats keep every value: NaN payloads, infinities, -0.0, subnormals.
#[test]
fn compact_round_trip_keeps_every_value() {
    let h: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let t = Tensor::<f16>::from_vec(h.clone(), &[256, 256]).unwrap().t();
    let back: Tensor<f16> = from_toks(&to_toks(&t)).unwrap();
    let bits = |v: Vec<f16>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(back.to_vec()), bits(t.to_vec()));

    let b: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
    let t = Tensor::<bf16>::from_vec(b.clone(), &[65536]).unwrap();
    let back: DynTensor = from_toks(&to_toks(&t)).unwrap();
    let got: Vec<u16> = back
        .as_typed::<bf16>()
        .unwrap()
        .to_vec()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    assert_eq!(got, b.iter().map(|x| x.to_bits()).collect::<Vec<_>>());

    let f: Vec<f32> = [
        0x7fc0_0001u32,
        0xffa0_0000,
        0x7f80_0000,
        0xff80_0000,
        0x8000_0000,
        1,
        0x3f80_0000,
    ]
    .into_iter()
    .map(f32::from_bits)
    .collect();
    let t = Tensor::<f32>::from_vec(f.clone(), &[7]).unwrap();
    let back: Tensor<f32> = from_toks(&to_toks(&t)).unwrap();
    let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits32(&back.to_vec()), bits32(&f));

    let g: Vec<f64> = [
        0x7ff8_0000_0000_0123u64,
        0xfff0_0000_0000_0000,
        0x8000_0000_0000_0000,
        1,
    ]
    .into_iter()
    .map(f64::from_bits)
    .collect();
    let t = DynTensor::from_vec(g.clone(), &[2, 2]).unwrap();
    let back: DynTensor = from_toks(&to_toks(&t)).unwrap();
    let bits64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits64(&back.as_typed::<f64>().unwrap().to_vec()),
        bits64(&g)
    );
}

#[test]
fn compact_round_trip_every_dtype_and_layout() {
    for d in DType::ALL {
        for (what, v) in layouts(d) {
            let back: DynTensor = from_toks(&to_toks(&v)).unwrap();
            assert_eq!(back.dtype(), d);
            assert_eq!(back.shape(), v.shape(), "{d} {what}");
            assert_eq!(
                back.to_bytes().unwrap(),
                v.to_bytes().unwrap(),
                "{d} {what}"
            );
        }
    }
}

/// A claimed sequence length is never trusted: a data list that claims 2^40 elements (for a
/// shape that holds that many) but ends after two is an "end of input" error, not an
/// allocation of terabytes (or an allocation failure).
#[test]
fn compact_lying_lengths_are_errors() {
    let toks = [
        Tok::Seq(3),
        Tok::Str("float32".into()),
        Tok::Seq(1),
        Tok::U64(1 << 40),
        Tok::Seq(1 << 40),
        Tok::F32(0),
        Tok::F32(0),
    ];
    let e = from_toks::<Tensor<f32>>(&toks).unwrap_err().to_string();
    assert_eq!(e, "end of input");
    let e = from_toks::<DynTensor>(&toks).unwrap_err().to_string();
    assert_eq!(e, "end of input");
    // A shape list that claims usize::MAX dims.
    let toks = [
        Tok::Seq(3),
        Tok::Str("float32".into()),
        Tok::Seq(usize::MAX),
        Tok::U64(1),
    ];
    assert!(from_toks::<DynTensor>(&toks).is_err());
    // More elements than the shape holds: refused at the first extra one.
    let toks = [
        Tok::Seq(3),
        Tok::Str("int8".into()),
        Tok::Seq(1),
        Tok::U64(1),
        Tok::Seq(usize::MAX),
        Tok::I64(1),
        Tok::I64(2),
    ];
    let e = from_toks::<DynTensor>(&toks).unwrap_err().to_string();
    assert!(e.contains("more elements"), "{e}");
    // Wrong element kinds in the compact form too: f16 is half's form (the bits in a newtype;
    // half also reads a float or a float string), never other text.
    let f16_toks = |t: Tok| {
        vec![
            Tok::Seq(3),
            Tok::Str("float16".into()),
            Tok::Seq(1),
            Tok::U64(1),
            Tok::Seq(1),
            t,
        ]
    };
    assert!(from_toks::<DynTensor>(&f16_toks(Tok::Str("x".into()))).is_err());
    let h: Tensor<f16> = from_toks(&f16_toks(Tok::F32(1.5f32.to_bits()))).unwrap();
    assert_eq!(h.to_vec(), [f16::from_f32(1.5)]);
    let toks = [
        Tok::Seq(3),
        Tok::Str("bool".into()),
        Tok::Seq(1),
        Tok::U64(1),
        Tok::Seq(1),
        Tok::U64(1),
    ];
    assert!(from_toks::<Tensor<bool>>(&toks).is_err());
}

/// Generic code over every `Element` type can serialize and deserialize (no extra bound).
#[test]
fn generic_over_element() {
    fn rt<T: Element>(t: &Tensor<T>) -> Tensor<T> {
        serde_json::from_str(&serde_json::to_string(t).unwrap()).unwrap()
    }
    let t = Tensor::<i32>::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    assert_eq!(rt(&t.t()), t.t());
}
