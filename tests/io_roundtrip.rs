//! Every format round-trips random tensors: every dtype it can hold, any layout (transposed,
//! stepped, reversed, expanded, offset views, 0-d, empty), compared byte for byte (so NaN
//! payloads and -0.0 count).

mod ops_common;

use ops_common::*;
use proptest::prelude::{TestCaseError, any};
use std::collections::BTreeMap;
use weft::io::{npy, npz, safetensors as st};
use weft::{DType, DynTensor};

fn same(what: &str, got: &DynTensor, want: &DynTensor) -> Result<(), TestCaseError> {
    let ok = got.dtype() == want.dtype()
        && got.shape() == want.shape()
        && got.to_bytes().unwrap() == want.to_bytes().unwrap();
    if ok {
        Ok(())
    } else {
        Err(TestCaseError::fail(format!(
            "{what}: got {got:?} for {want:?} (strides {:?}, offset {})",
            want.strides(),
            want.offset()
        )))
    }
}

fn one(map: BTreeMap<String, DynTensor>) -> DynTensor {
    assert_eq!(map.len(), 1);
    map.into_values().next().unwrap()
}

#[test]
fn every_format_round_trips_random_tensors() {
    let dir = std::env::temp_dir().join(format!("weft-io-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.safetensors");
    let mut r = runner(cases(300), 31);
    r.run(&any::<u64>(), |seed| {
        let mut rng = Rng::new(seed);
        let shape = rand_shape(&mut rng);
        let dtype = rng.pick(&DType::ALL);
        let t = rand_arg(&mut rng, dtype, &shape).to_dyn();
        let bytes = t.to_bytes().unwrap();
        same(
            "from_bytes",
            &DynTensor::from_bytes(dtype, &shape, &bytes).unwrap(),
            &t,
        )?;
        same(
            "from_bytes_vec",
            &DynTensor::from_bytes_vec(dtype, &shape, bytes).unwrap(),
            &t,
        )?;
        let named = [("t", &t)];
        let meta = BTreeMap::new();
        same(
            "safetensors bytes",
            &one(st::from_bytes(&st::to_bytes(named, &meta).unwrap()).unwrap()),
            &t,
        )?;
        st::save(&file, named, &meta).unwrap();
        same("safetensors mapped", &one(st::load(&file).unwrap()), &t)?;
        if dtype == DType::BF16 {
            // NumPy has no bfloat16: both NumPy formats refuse it.
            assert!(npy::to_bytes(&t).is_err() && npz::to_bytes(named, false).is_err());
        } else {
            same(
                "npy",
                &npy::from_bytes(&npy::to_bytes(&t).unwrap()).unwrap(),
                &t,
            )?;
            for compressed in [false, true] {
                let z = npz::to_bytes(named, compressed).unwrap();
                same("npz", &one(npz::from_bytes(&z).unwrap()), &t)?;
            }
        }
        #[cfg(feature = "serde")]
        {
            // JSON has no NaN or infinity: such a tensor is an error, never a wrong one.
            match serde_json::to_vec(&t).and_then(|j| serde_json::from_slice::<DynTensor>(&j)) {
                Ok(back) => same("serde_json", &back, &t)?,
                Err(_) => assert!(
                    t.to(DType::F64)
                        .to_vec::<f64>()
                        .unwrap()
                        .iter()
                        .any(|x| !x.is_finite()),
                    "serde_json refused a finite tensor {t:?}"
                ),
            }
        }
        Ok(())
    })
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
