//! `.npy` load and save: round trips, files written by hand in NumPy's format, and a table of
//! corrupted files (each must be a clean `Error`, never a panic or a large allocation).

use weft::io::npy::{self, MAX_HEADER_LEN};
use weft::{DType, DynTensor, Error};

fn sample(d: DType, shape: &[usize]) -> DynTensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i as f64 - 3.0) * 1.25).collect();
    DynTensor::from_vec(v, shape).unwrap().to(d)
}

/// A `.npy` file as NumPy lays it out: magic, version, header length, header padded with
/// spaces to a 64-byte boundary and ended by '\n', then `data`.
fn npy_file(major: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let pre = if major == 1 { 10 } else { 12 };
    let hlen = (pre + header.len() + 1).div_ceil(64) * 64 - pre;
    let mut h = header.to_string();
    h.extend(std::iter::repeat_n(' ', hlen - header.len() - 1));
    h.push('\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(hlen as u32).to_le_bytes());
    }
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn load_both(bytes: &[u8]) -> Result<DynTensor, Error> {
    let a = npy::from_bytes(bytes);
    let b = npy::read(&mut &bytes[..]);
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y),
        (Err(_), Err(_)) => {}
        // The stream reader reads one array and leaves what follows; nothing else differs.
        (Err(Error::Format { reason, .. }), Ok(_)) if reason.contains("trailing") => {}
        _ => panic!("from_bytes {a:?} vs read {b:?}"),
    }
    a
}

#[test]
fn round_trip_every_dtype_and_shape() {
    let shapes: &[&[usize]] = &[&[], &[0], &[1], &[5], &[3, 2], &[2, 0, 3], &[2, 3, 4]];
    for d in DType::ALL {
        for &shape in shapes {
            let t = sample(d, shape);
            if d == DType::BF16 {
                let e = npy::to_bytes(&t).unwrap_err();
                assert!(e.to_string().contains("bfloat16"), "{e}");
                continue;
            }
            let bytes = npy::to_bytes(&t).unwrap();
            assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
            let hlen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!((10 + hlen) % 64, 0, "data starts 64-byte aligned");
            assert_eq!(bytes.len(), 10 + hlen + t.numel() * d.size());
            let back = load_both(&bytes).unwrap();
            assert_eq!(back, t, "{d} {shape:?}");
            assert_eq!(back.shape(), shape);
        }
    }
}

#[test]
fn round_trip_layouts() {
    let base = sample(DType::I32, &[4, 6]);
    let views = [
        base.t(),                                    // transposed: saved in Fortran order
        base.slice(1, Some(1), None, 2),             // stepped
        base.slice(0, None, None, -1),               // reversed
        base.select(1, 3),                           // offset, 1-d
        base.narrow(0, 1, 1).expand([3, 6]),         // stride 0
        base.reshape([2, 2, 6]).permute(&[2, 0, 1]), // 3-d permuted
        base.reshape([2, 2, 6]).permute(&[2, 1, 0]), // 3-d reversed: Fortran order
        base.unsqueeze(0),
    ];
    for v in &views {
        let bytes = npy::to_bytes(v).unwrap();
        let back = load_both(&bytes).unwrap();
        assert_eq!(&back, v, "{:?} {:?}", v.shape(), v.strides());
    }
    // A transposed contiguous tensor goes out in Fortran order and comes back as a view.
    let bytes = npy::to_bytes(&base.t()).unwrap();
    assert!(String::from_utf8_lossy(&bytes[10..80]).contains("'fortran_order': True"));
    let back = npy::from_bytes(&bytes).unwrap();
    assert_eq!(back.strides(), &[1, 6]);
    assert!(!back.is_contiguous());
}

#[test]
fn files_laid_out_as_numpy_writes_them() {
    // np.save(f, np.arange(6.).reshape(2, 3))
    let data = f64_bytes(&[0., 1., 2., 3., 4., 5.]);
    let f = npy_file(
        1,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
        &data,
    );
    assert_eq!(f.len(), 128 + 48);
    let t = load_both(&f).unwrap();
    assert_eq!(t.dtype(), DType::F64);
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.to_vec::<f64>().unwrap(), [0., 1., 2., 3., 4., 5.]);
    // np.save(f, np.asfortranarray(np.arange(6.).reshape(2, 3))): the data is column-major.
    let data = f64_bytes(&[0., 3., 1., 4., 2., 5.]);
    let f = npy_file(
        1,
        "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
        &data,
    );
    let t = load_both(&f).unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.strides(), &[1, 2], "a transposed view, not a copy");
    assert_eq!(t.to_vec::<f64>().unwrap(), [0., 1., 2., 3., 4., 5.]);
    // 0-d, 1-d, empty; versions 2.0 and 3.0; other spellings NumPy's parser accepts.
    type Case = (u8, &'static str, Vec<u8>, DType, Vec<usize>);
    let cases: Vec<Case> = vec![
        (
            1,
            "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
            7i64.to_le_bytes().to_vec(),
            DType::I64,
            vec![],
        ),
        (
            1,
            "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
            vec![1, 0, 1],
            DType::Bool,
            vec![3],
        ),
        (
            1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }",
            vec![],
            DType::F32,
            vec![0, 4],
        ),
        (
            1,
            "{'descr': '<f2', 'fortran_order': True, 'shape': (0, 2), }",
            vec![],
            DType::F16,
            vec![0, 2],
        ),
        (
            2,
            "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }",
            vec![7, 8],
            DType::U8,
            vec![2],
        ),
        (
            3,
            "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }",
            vec![255, 1],
            DType::I8,
            vec![2],
        ),
        (
            1,
            "{\"shape\": (2,), \"descr\": \"<i2\", \"fortran_order\": False}",
            vec![1, 0, 2, 0],
            DType::I16,
            vec![2],
        ),
        (
            1,
            "{'descr':'<i4','fortran_order':False,'shape':(1,1)}",
            vec![5, 0, 0, 0],
            DType::I32,
            vec![1, 1],
        ),
        (
            1,
            "{'descr': '=f8', 'fortran_order': False, 'shape': (1L,), }",
            2.5f64.to_le_bytes().to_vec(),
            DType::F64,
            vec![1],
        ),
        (
            1,
            "{'descr': '>u1', 'fortran_order': False, 'shape': (1,), }",
            vec![9],
            DType::U8,
            vec![1],
        ),
    ];
    for (v, h, data, d, shape) in cases {
        let t = load_both(&npy_file(v, h, &data)).unwrap_or_else(|e| panic!("{h}: {e}"));
        assert_eq!(t.dtype(), d, "{h}");
        assert_eq!(t.shape(), &shape[..], "{h}");
        assert_eq!(t.to_bytes().unwrap(), data, "{h}");
    }
}

#[test]
fn a_stream_of_several_arrays() {
    let a = sample(DType::F32, &[2, 2]);
    let b = sample(DType::I64, &[3]);
    let mut buf = Vec::new();
    npy::write(&mut buf, &a).unwrap();
    npy::write(&mut buf, &b).unwrap();
    let mut r = &buf[..];
    assert_eq!(npy::read(&mut r).unwrap(), a);
    assert_eq!(npy::read(&mut r).unwrap(), b);
    assert!(r.is_empty());
    assert!(matches!(npy::read(&mut r), Err(Error::Format { .. })));
}

#[test]
fn files_on_disk() {
    let dir = std::env::temp_dir().join(format!("weft-io-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("a.npy");
    let t = sample(DType::F16, &[3, 4]).t();
    npy::save(&p, &t).unwrap();
    assert_eq!(npy::load(&p).unwrap(), t);
    let e = npy::load(dir.join("missing.npy")).unwrap_err();
    assert!(matches!(&e, Error::Io { op: "load_npy", .. }), "{e:?}");
    assert!(e.to_string().contains("missing.npy"));
    let e = npy::save(dir.join("no/such/dir.npy"), &t).unwrap_err();
    assert!(matches!(e, Error::Io { op: "save_npy", .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Each corrupted variant of a good file, with a word its error message must contain.
fn corrupted() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let good_h = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
    let data = f64_bytes(&[0., 1., 2., 3., 4., 5.]);
    let good = npy_file(1, good_h, &data);
    let with_header = |h: &str| npy_file(1, h, &data);
    let mut v: Vec<(&'static str, Vec<u8>, &'static str)> = vec![
        ("empty file", vec![], "truncated"),
        ("5 bytes", good[..5].to_vec(), "truncated"),
        ("wrong magic", [b"\x93NUMPZ", &good[6..]].concat(), "magic"),
        ("text file", b"hello world, not an array".to_vec(), "magic"),
        (
            "version 4.0",
            [&good[..6], &[4, 0], &good[8..]].concat(),
            "version",
        ),
        (
            "version 1.1",
            [&good[..6], &[1, 1], &good[8..]].concat(),
            "version",
        ),
        (
            "version 0.0",
            [&good[..6], &[0, 0], &good[8..]].concat(),
            "version",
        ),
        (
            "v2 length cut off",
            [&good[..6], &[2, 0, 1]].concat(),
            "truncated",
        ),
        (
            "header length past the end",
            [&good[..8], &60000u16.to_le_bytes(), &good[10..]].concat(),
            "truncated",
        ),
        (
            "header over 64 KiB",
            [
                &good[..6],
                &[2, 0],
                &(MAX_HEADER_LEN as u32 + 1).to_le_bytes(),
                &good[10..],
            ]
            .concat(),
            "limit",
        ),
        (
            "header length 4 GiB",
            [&good[..6], &[2, 0], &u32::MAX.to_le_bytes(), &good[10..]].concat(),
            "limit",
        ),
        ("header cut off", good[..50].to_vec(), "truncated"),
        (
            "data cut off by one byte",
            good[..good.len() - 1].to_vec(),
            "truncated",
        ),
        ("no data", good[..128].to_vec(), "truncated"),
        ("trailing byte", [&good[..], &[0]].concat(), "trailing"),
        (
            "header length zero",
            [&good[..8], &[0, 0], &good[10..]].concat(),
            "expected '{'",
        ),
        (
            "unknown descr",
            with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }"),
            "<c8",
        ),
        (
            "big-endian descr",
            with_header("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }"),
            "big-endian",
        ),
        (
            "bfloat16 as void",
            with_header("{'descr': '<V2', 'fortran_order': False, 'shape': (2, 3), }"),
            "<V2",
        ),
        (
            "torch name as descr",
            with_header("{'descr': 'float64', 'fortran_order': False, 'shape': (2, 3), }"),
            "float64",
        ),
        (
            "complex 64",
            with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }"),
            "<c8",
        ),
        (
            "structured descr",
            with_header("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2, 3), }"),
            "structured",
        ),
        (
            "descr not a string",
            with_header("{'descr': 8, 'fortran_order': False, 'shape': (2, 3), }"),
            "string",
        ),
        (
            "missing shape",
            with_header("{'descr': '<f8', 'fortran_order': False, }"),
            "shape",
        ),
        (
            "missing descr",
            with_header("{'fortran_order': False, 'shape': (2, 3), }"),
            "descr",
        ),
        (
            "missing fortran_order",
            with_header("{'descr': '<f8', 'shape': (2, 3), }"),
            "fortran_order",
        ),
        (
            "extra key",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}"),
            "unexpected key",
        ),
        (
            "duplicate key",
            with_header(
                "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
            ),
            "twice",
        ),
        (
            "fortran_order not a bool",
            with_header("{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 3), }"),
            "True or False",
        ),
        (
            "shape a list",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': [2, 3], }"),
            "expected '('",
        ),
        (
            "negative dim",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 3), }"),
            "dimension",
        ),
        (
            "float dim",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0, 3), }"),
            "expected ','",
        ),
        (
            "dim with 30 digits",
            with_header(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999999999999999999999,), }",
            ),
            "overflows",
        ),
        (
            "shape product overflows",
            with_header(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
            ),
            "overflows",
        ),
        (
            "byte size overflows",
            with_header(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }",
            ),
            "overflows",
        ),
        (
            "huge shape, tiny data",
            with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"),
            "truncated",
        ),
        (
            "shape of the wrong size",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"),
            "trailing",
        ),
        (
            "shape too large",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }"),
            "truncated",
        ),
        (
            "unterminated string",
            with_header("{'descr: '<f8', 'fortran_order': False, 'shape': (2, 3), }"),
            "expected ':'",
        ),
        (
            "unterminated string at the end",
            with_header("{'descr"),
            "unterminated",
        ),
        (
            "no closing brace",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), "),
            "string",
        ),
        (
            "no opening brace",
            with_header("'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"),
            "expected '{'",
        ),
        (
            "text after the brace",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } x"),
            "after",
        ),
        (
            "unclosed tuple",
            with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3"),
            "expected ','",
        ),
        (
            "not UTF-8",
            {
                let mut f = good.clone();
                f[12] = 0xff;
                f
            },
            "UTF-8",
        ),
        (
            "bool byte 2",
            npy_file(
                1,
                "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                &[0, 1, 2],
            ),
            "bool byte",
        ),
    ];
    // Every prefix of the good file is truncated.
    for cut in [6, 8, 9, 10, 11, 64, 127, 129, 150, 175] {
        v.push(("prefix", good[..cut].to_vec(), "truncated"));
    }
    v
}

#[test]
fn corrupted_files_are_clean_errors() {
    let cases = corrupted();
    assert!(cases.len() >= 55, "{}", cases.len());
    for (what, bytes, word) in &cases {
        let e = match load_both(bytes) {
            Ok(t) => panic!("{what}: loaded {t:?}"),
            Err(e) => e,
        };
        assert!(
            matches!(e, Error::Format { .. }),
            "{what}: not a format error: {e:?}"
        );
        assert!(e.to_string().contains(word), "{what}: {e}");
    }
    println!("{} corrupted variants", cases.len());
}

#[test]
fn every_truncation_and_seeded_byte_flips_never_panic() {
    let t = sample(DType::I16, &[3, 5]).t();
    let good = npy::to_bytes(&t).unwrap();
    for cut in 0..good.len() {
        assert!(load_both(&good[..cut]).is_err(), "prefix {cut}");
    }
    // Flip bytes of the preamble and header (seeded): Ok or Err, never a panic.
    let mut s: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut errors = 0;
    for _ in 0..3000 {
        let mut f = good.clone();
        for _ in 0..1 + next() % 3 {
            let i = (next() % 128) as usize;
            f[i] = next() as u8;
        }
        if load_both(&f).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 1000, "{errors}");
}
