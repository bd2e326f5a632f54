//! `.safetensors` load/save through the safetensors crate.

use safetensors::tensor::{Dtype, TensorView};
use weft::io::safetensors as st;
use weft::{DType, DynTensor, Error};

fn sample(d: DType, shape: &[usize]) -> DynTensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i as f64 - 2.0) * 0.75).collect();
    DynTensor::from_vec(v, shape).unwrap().to(d)
}

#[test]
fn dtype_names_match_the_table() {
    for d in DType::ALL {
        let s = st::to_safetensors_dtype(d);
        assert_eq!(s.to_string(), d.safetensors_name());
        assert_eq!(st::from_safetensors_dtype(s), Ok(d));
    }
    assert!(st::from_safetensors_dtype(Dtype::U16).is_err());
}

#[test]
fn round_trip_every_dtype_and_layouts() {
    let mut named = Vec::new();
    for d in DType::ALL {
        named.push((format!("{d}_c"), sample(d, &[3, 4])));
        named.push((format!("{d}_t"), sample(d, &[3, 4]).t()));
        named.push((format!("{d}_0d"), sample(d, &[])));
        named.push((format!("{d}_empty"), sample(d, &[0, 2])));
        named.push((
            format!("{d}_step"),
            sample(d, &[6]).slice(0, None, None, -2),
        ));
    }
    let bytes = st::to_bytes(named.iter().map(|(n, t)| (n.as_str(), t))).unwrap();
    let back = st::from_bytes(&bytes).unwrap();
    assert_eq!(back.len(), named.len());
    for (n, t) in &named {
        let b = &back[n];
        assert_eq!(b, t, "{n}");
        assert!(b.is_contiguous());
    }
}

#[test]
fn files_written_by_the_safetensors_crate_load() {
    let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let v = TensorView::new(Dtype::F32, vec![2, 2], &data).unwrap();
    let bytes = safetensors::serialize([("w", v)], None).unwrap();
    let m = st::from_bytes(&bytes).unwrap();
    assert_eq!(m["w"].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(m["w"].shape(), &[2, 2]);
}

#[test]
fn bad_input_is_an_error() {
    let t = sample(DType::F32, &[2]);
    let good = st::to_bytes([("a", &t)]).unwrap();
    let n = u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let u16_file = {
        let v = TensorView::new(Dtype::U16, vec![2], &[0, 0, 1, 0]).unwrap();
        safetensors::serialize([("u", v)], None).unwrap()
    };
    let bool_file = {
        let v = TensorView::new(Dtype::BOOL, vec![2], &[0, 2]).unwrap();
        safetensors::serialize([("b", v)], None).unwrap()
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], ""),
        (
            "header length past the end",
            [&u64::MAX.to_le_bytes()[..], &good[8..]].concat(),
            "",
        ),
        ("truncated header", good[..8 + n / 2].to_vec(), ""),
        ("truncated data", good[..good.len() - 1].to_vec(), ""),
        ("trailing byte", [&good[..], &[0]].concat(), ""),
        (
            "not JSON",
            [&good[..8], &vec![b'x'; n][..], &good[8 + n..]].concat(),
            "",
        ),
        ("unsupported dtype", u16_file, "U16"),
        ("bool byte 2", bool_file, "bool byte"),
    ];
    for (what, bytes, word) in &cases {
        let e = st::from_bytes(bytes).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Format {
                    format: "safetensors",
                    ..
                }
            ),
            "{what}: {e:?}"
        );
        assert!(e.to_string().contains(word), "{what}: {e}");
    }
    let dup = st::to_bytes([("a", &t), ("a", &t)]).unwrap_err();
    assert!(matches!(dup, Error::InvalidArgument { .. }));
}

#[test]
fn files_on_disk() {
    let dir = std::env::temp_dir().join(format!("weft-io-st-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("m.safetensors");
    let a = sample(DType::BF16, &[2, 3]);
    let b = sample(DType::I64, &[4]);
    st::save(&p, [("a", &a), ("b", &b)]).unwrap();
    let m = st::load(&p).unwrap();
    assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(m["a"], a);
    assert_eq!(m["b"], b);
    assert!(matches!(
        st::load(dir.join("nope.safetensors")),
        Err(Error::Io { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
