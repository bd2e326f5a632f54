//! DType names: PyTorch, Rust, NumPy type strings and safetensors, all from one table.

use weft::{DType, Error};

fn parse(s: &str) -> Result<DType, Error> {
    s.parse::<DType>()
}

#[test]
fn every_name_in_the_table_parses_to_its_dtype() {
    for d in DType::ALL {
        let n = d.names();
        let mut all = vec![
            n.torch.to_string(),
            format!("torch.{}", n.torch),
            n.rust.to_string(),
            n.safetensors.to_string(),
        ];
        for a in n.torch_aliases {
            all.push(a.to_string());
            all.push(format!("torch.{a}"));
        }
        if let Some(descr) = n.numpy {
            let code = &descr[1..];
            for prefix in ["=", "<", "|"] {
                all.push(format!("{prefix}{code}"));
            }
        }
        for name in all {
            assert_eq!(parse(&name), Ok(d), "{name}");
            assert_eq!(DType::from_name(&name), Some(d), "{name}");
        }
        assert_eq!(d.to_string(), n.torch);
        assert_eq!(d.to_string().parse::<DType>(), Ok(d));
        assert_eq!(d.name(), n.torch);
    }
}

#[test]
fn the_names_the_issue_lists() {
    use DType::*;
    let cases: &[(&str, DType)] = &[
        ("float32", F32),
        ("torch.float32", F32),
        ("float", F32),
        ("half", F16),
        ("double", F64),
        ("long", I64),
        ("int", I32),
        ("short", I16),
        ("bool", Bool),
        ("uint8", U8),
        ("int8", I8),
        ("bfloat16", BF16),
        ("torch.bfloat16", BF16),
        ("float16", F16),
        ("int16", I16),
        ("int32", I32),
        ("int64", I64),
        ("float64", F64),
        ("torch.long", I64),
        ("<f4", F32),
        ("|b1", Bool),
        ("|u1", U8),
        ("|i1", I8),
        ("<i2", I16),
        ("<i4", I32),
        ("<i8", I64),
        ("<f2", F16),
        ("<f8", F64),
        ("=f4", F32),
        (">u1", U8), // one byte: byte order does not matter
        ("BOOL", Bool),
        ("U8", U8),
        ("I8", I8),
        ("I16", I16),
        ("I32", I32),
        ("I64", I64),
        ("F16", F16),
        ("BF16", BF16),
        ("F32", F32),
        ("F64", F64),
        ("f32", F32),
        ("i8", I8), // Rust's i8; NumPy's int64 is "<i8"
        ("u8", U8),
        ("bf16", BF16),
    ];
    for &(s, d) in cases {
        assert_eq!(parse(s), Ok(d), "{s}");
    }
}

#[test]
fn unknown_and_big_endian_names_are_errors_that_name_the_string() {
    for s in [
        "float128",
        "",
        "Float32",
        "torch.",
        "torch.F32x",
        "<c8",
        "<V2",
        "complex64",
        "<f4 ",
        "uint128",
        "<u16",
        "f",
        "cfloat",
        "f4",
        "b1",
        "i4",
    ] {
        let e = parse(s).unwrap_err();
        assert_eq!(
            e,
            Error::UnknownDType {
                name: s.into(),
                big_endian: false
            },
            "{s}"
        );
        assert!(e.to_string().contains(&format!("{s:?}")), "{e}");
        assert_eq!(DType::from_name(s), None);
    }
    for s in [">f4", ">i8", "!f2", ">f8"] {
        let e = parse(s).unwrap_err();
        assert!(
            matches!(&e, Error::UnknownDType { name, big_endian: true } if name == s),
            "{e:?}"
        );
        assert!(e.to_string().contains("big-endian"), "{e}");
    }
}

#[test]
fn numpy_and_safetensors_names() {
    assert_eq!(DType::F32.numpy_descr(), Some("<f4"));
    assert_eq!(DType::Bool.numpy_descr(), Some("|b1"));
    assert_eq!(DType::BF16.numpy_descr(), None);
    assert_eq!(DType::BF16.safetensors_name(), "BF16");
    assert_eq!(DType::Bool.safetensors_name(), "BOOL");
    // NumPy codes carry the element size.
    for d in DType::ALL {
        if let Some(descr) = d.numpy_descr() {
            assert_eq!(descr[2..].parse::<usize>().unwrap(), d.size(), "{descr}");
        }
    }
}
