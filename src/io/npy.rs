//! NumPy's `.npy` format: load and save a [`DynTensor`].
//!
//! A file is the magic `\x93NUMPY`, a version (1.0: a `u16` little-endian header length;
//! 2.0 and 3.0: `u32`), a header (a Python dict literal `{'descr': '<f4', 'fortran_order':
//! False, 'shape': (2, 3), }` padded with spaces and ended by `\n`) and the elements' bytes.
//!
//! Loading accepts every weft dtype NumPy has (bool, uint8, int8, int16, int32, int64,
//! float16, float32, float64; little-endian or byte-order-free descrs), C order (a contiguous
//! tensor) and Fortran order (loaded as the transposed view of a contiguous tensor, no copy),
//! 0-d and empty arrays. Bad input is an [`Error::Format`] naming what is wrong, never a panic:
//! a wrong magic or version, a truncated file, a header length past the end or over
//! [`MAX_HEADER_LEN`], a malformed dict, an unknown or big-endian descr, a shape whose size
//! overflows, data of the wrong length. Nothing is allocated beyond what the input holds.
//!
//! Saving writes version 1.0 (2.0 if the header needs it) in C order, or in Fortran order when
//! the tensor is a transposed contiguous one (so that round trip stays a view); any other
//! layout is gathered in row-major order. bfloat16 is refused: NumPy has no such dtype.

use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::path::Path;
use std::string::String;
use std::vec::Vec;

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The largest header weft reads (64 KiB); NumPy writes a few hundred bytes.
pub const MAX_HEADER_LEN: usize = 64 * 1024;

/// What a `.npy` header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    pub dtype: DType,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

fn bad(reason: impl Into<String>) -> Error {
    Error::Format {
        format: "npy",
        reason: reason.into(),
    }
}

fn io_err(op: &'static str, e: std::io::Error) -> Error {
    Error::Io {
        op,
        reason: e.to_string(),
    }
}

/// The length of the preamble (magic, version, header length) and the header's length, from
/// the first bytes of a file (at least 12 of them, or all there are).
fn preamble(bytes: &[u8]) -> Result<(usize, usize)> {
    if bytes.len() < 10 {
        return Err(bad(format!(
            "truncated: {} bytes, shorter than the 10-byte preamble",
            bytes.len()
        )));
    }
    if &bytes[..6] != MAGIC {
        return Err(bad("not a .npy file: missing the magic \\x93NUMPY"));
    }
    let (pre, len) = match (bytes[6], bytes[7]) {
        (1, 0) => (10, u16::from_le_bytes([bytes[8], bytes[9]]) as usize),
        (2 | 3, 0) => {
            if bytes.len() < 12 {
                return Err(bad(
                    "truncated: the header length of a version 2/3 file is cut off",
                ));
            }
            let l = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            (
                12,
                usize::try_from(l).map_err(|_| bad("header length overflows"))?,
            )
        }
        (major, minor) => return Err(bad(format!("unsupported version {major}.{minor}"))),
    };
    if len > MAX_HEADER_LEN {
        return Err(bad(format!(
            "header of {len} bytes is over the {MAX_HEADER_LEN}-byte limit"
        )));
    }
    Ok((pre, len))
}

/// Parses a header's text (the Python dict literal).
pub fn parse_header(text: &[u8]) -> Result<NpyHeader> {
    let text = std::str::from_utf8(text).map_err(|_| bad("header is not UTF-8 text"))?;
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect(b'{')?;
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string()?;
        p.ws();
        p.expect(b':')?;
        p.ws();
        let dup = match key.as_str() {
            "descr" => descr.replace(p.descr()?).is_some(),
            "fortran_order" => fortran.replace(p.boolean()?).is_some(),
            "shape" => shape.replace(p.tuple()?).is_some(),
            other => return Err(bad(format!("unexpected key {other:?} in the header"))),
        };
        if dup {
            return Err(bad(format!("key {key:?} appears twice in the header")));
        }
        p.ws();
        if p.eat(b'}') {
            break;
        }
        p.expect(b',')?;
    }
    if p.s[p.i..].iter().any(|c| !c.is_ascii_whitespace()) {
        return Err(bad("text after the header's closing brace"));
    }
    let missing = |k: &str| bad(format!("the header has no {k:?}"));
    Ok(NpyHeader {
        dtype: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        self.ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(bad(format!(
                "malformed header: expected '{}' at byte {}",
                c as char, self.i
            )))
        }
    }

    /// A quoted string without escapes ('...' or "...").
    fn string(&mut self) -> Result<String> {
        let q = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => {
                return Err(bad(format!(
                    "malformed header: expected a string at byte {}",
                    self.i
                )));
            }
        };
        let start = self.i + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == q)
            .ok_or_else(|| bad("malformed header: unterminated string"))?;
        self.i = start + len + 1;
        // Slicing at ASCII quotes keeps UTF-8 boundaries.
        Ok(String::from_utf8_lossy(&self.s[start..start + len]).into_owned())
    }

    fn descr(&mut self) -> Result<DType> {
        if self.s.get(self.i) == Some(&b'[') {
            return Err(bad("structured dtypes (a list descr) are not supported"));
        }
        let s = self.string()?;
        npy_dtype(&s)
    }

    fn boolean(&mut self) -> Result<bool> {
        for (word, v) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if self.s[self.i..].starts_with(word) {
                self.i += word.len();
                return Ok(v);
            }
        }
        Err(bad(format!(
            "malformed header: expected True or False at byte {}",
            self.i
        )))
    }

    /// A tuple of non-negative integers: `()`, `(3,)`, `(2, 3)`, `(2, 3,)`.
    fn tuple(&mut self) -> Result<Vec<usize>> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            self.ws();
            if self.eat(b')') {
                return Ok(dims);
            }
            let start = self.i;
            let mut v: usize = 0;
            while let Some(&c) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
                v = v
                    .checked_mul(10)
                    .and_then(|v| v.checked_add((c - b'0') as usize))
                    .ok_or_else(|| bad("a dimension in the shape overflows"))?;
                self.i += 1;
            }
            if self.i == start {
                return Err(bad(format!(
                    "malformed header: expected a dimension at byte {}",
                    self.i
                )));
            }
            self.eat(b'L'); // Python 2's long literals, as old NumPy wrote them
            dims.push(v);
            self.ws();
            if self.eat(b')') {
                return Ok(dims);
            }
            self.expect(b',')?;
        }
    }
}

/// The dtype of a NumPy type string as `.npy` headers write it (`<f4`, `|b1`, `=i8`, `f8`).
pub fn npy_dtype(descr: &str) -> Result<DType> {
    let unknown = || {
        bad(format!(
            "unsupported descr {descr:?} (weft reads bool, uint8, int8, int16, int32, int64, \
             float16, float32, float64)"
        ))
    };
    let code = descr
        .strip_prefix(['<', '>', '=', '|', '!'])
        .unwrap_or(descr);
    match DType::parse_name(descr) {
        // Only NumPy type strings: not `float32` or `F32`, which `parse_name` also takes.
        Ok(d) if d.numpy_descr().is_some_and(|n| &n[1..] == code) => Ok(d),
        Err(crate::dtype::DTypeNameError::BigEndian) => Err(bad(format!(
            "big-endian descr {descr:?} is not supported (save it little-endian: \
             a.astype(a.dtype.newbyteorder('<')))"
        ))),
        _ => Err(unknown()),
    }
}

/// Reads the preamble and header at the start of `bytes`: the header and where the data starts.
pub fn read_header(bytes: &[u8]) -> Result<(NpyHeader, usize)> {
    let (pre, len) = preamble(bytes)?;
    let end = pre + len; // len <= MAX_HEADER_LEN: no overflow
    if bytes.len() < end {
        return Err(bad(format!(
            "truncated: the header runs to byte {end}, the file has {}",
            bytes.len()
        )));
    }
    Ok((parse_header(&bytes[pre..end])?, end))
}

fn data_len(h: &NpyHeader) -> Result<usize> {
    super::byte_len(&h.shape, h.dtype).map_err(|_| {
        bad(format!(
            "shape {:?} of {} overflows: its byte size does not fit isize",
            h.shape, h.dtype
        ))
    })
}

/// The tensor of a header and exactly its data bytes: C order is a contiguous tensor, Fortran
/// order the transposed view of a contiguous tensor of the reversed shape (no copy).
fn build(h: &NpyHeader, data: &[u8]) -> Result<DynTensor> {
    if !h.fortran_order {
        return DynTensor::from_bytes(h.dtype, &h.shape, data);
    }
    let rev: Vec<usize> = h.shape.iter().rev().copied().collect();
    let t = DynTensor::from_bytes(h.dtype, &rev, data)?;
    let perm: Vec<isize> = (0..rev.len() as isize).rev().collect();
    t.try_permute(&perm)
}

/// A tensor from the whole contents of a `.npy` file. The data must be exactly as long as the
/// header's shape and dtype say (trailing bytes are an error).
pub fn from_bytes(bytes: &[u8]) -> Result<DynTensor> {
    let (h, start) = read_header(bytes)?;
    let want = data_len(&h)?;
    let have = bytes.len() - start;
    if have != want {
        return Err(bad(format!(
            "{}: shape {:?} of {} needs {want} data bytes, the file has {have}",
            if have < want {
                "truncated"
            } else {
                "trailing bytes"
            },
            h.shape,
            h.dtype
        )));
    }
    build(&h, &bytes[start..])
}

/// Reads one array from a stream (which may hold more after it, as `np.save` appends to a file
/// handle). Reads at most the header limit plus the data the header announces; a stream that
/// ends early is an error, and memory grows only with the bytes actually read.
pub fn read<R: Read>(r: &mut R) -> Result<DynTensor> {
    let mut head = vec![0u8; 10];
    read_exact(r, &mut head)?;
    if head[..6] == MAGIC[..] && matches!(head[6], 2 | 3) {
        let mut more = [0u8; 2];
        read_exact(r, &mut more)?;
        head.extend_from_slice(&more);
    }
    let (_, len) = preamble(&head)?;
    let mut text = vec![0u8; len];
    read_exact(r, &mut text)?;
    let h = parse_header(&text)?;
    let want = data_len(&h)?;
    let mut data = Vec::new();
    r.take(want as u64)
        .read_to_end(&mut data)
        .map_err(|e| io_err("read", e))?;
    if data.len() != want {
        return Err(bad(format!(
            "truncated: shape {:?} of {} needs {want} data bytes, the stream has {}",
            h.shape,
            h.dtype,
            data.len()
        )));
    }
    build(&h, &data)
}

fn read_exact<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<()> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad("truncated: the stream ends inside the header"),
        _ => io_err("read", e),
    })
}

/// Loads a `.npy` file (read whole, then decoded once into the tensor's storage).
pub fn load(path: impl AsRef<Path>) -> Result<DynTensor> {
    let path = path.as_ref();
    let bytes = super::read_file("load_npy", path)?;
    from_bytes(&bytes)
}

/// The `.npy` bytes of a tensor (see the module docs for the order written).
pub fn to_bytes(t: &DynTensor) -> Result<Vec<u8>> {
    let descr = t
        .dtype()
        .numpy_descr()
        .ok_or_else(|| Error::UnsupportedDType {
            op: "save_npy (NumPy has no bfloat16; convert to float32 first)",
            dtype: t.dtype(),
            other: None,
        })?;
    // A transposed contiguous tensor is written in Fortran order, as NumPy does for its
    // F-contiguous arrays: no gather, and it loads back as the same kind of view.
    let perm: Vec<isize> = (0..t.ndim() as isize).rev().collect();
    let rev = t.try_permute(&perm)?;
    let fortran = t.ndim() > 1 && !t.is_contiguous() && rev.is_contiguous();
    let data = if fortran {
        rev.to_bytes()?
    } else {
        t.to_bytes()?
    };
    let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let order = if fortran { "True" } else { "False" };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    // Pad with spaces so the data starts on a 64-byte boundary, then end with '\n'. Version
    // 1.0 while the padded header's length fits its u16, else 2.0 (a u32 length).
    let padded = |pre: usize| (pre + header.len() + 1).div_ceil(64) * 64 - pre;
    let (pre, hlen) = if padded(10) <= u16::MAX as usize {
        (10, padded(10))
    } else {
        (12, padded(12))
    };
    header.extend(std::iter::repeat_n(' ', hlen - header.len() - 1));
    header.push('\n');
    let total = pre + hlen;
    let mut out = Vec::new();
    out.try_reserve_exact(total + data.len())
        .map_err(|_| Error::AllocationFailed {
            bytes: (total + data.len()) as u128,
        })?;
    out.extend_from_slice(MAGIC);
    if pre == 10 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        let len = u32::try_from(hlen).map_err(|_| bad("header too long"))?;
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    debug_assert_eq!(out.len() % 64, 0);
    out.extend_from_slice(&data);
    Ok(out)
}

/// Writes a tensor in `.npy` format to a stream.
pub fn write<W: Write>(w: &mut W, t: &DynTensor) -> Result<()> {
    let bytes = to_bytes(t)?;
    w.write_all(&bytes).map_err(|e| io_err("write", e))
}

/// Saves a tensor to a `.npy` file (any layout; see the module docs).
pub fn save(path: impl AsRef<Path>, t: &DynTensor) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_bytes(t)?;
    super::write_file("save_npy", path, &bytes)
}
