//! Panicking forms and operators report the caller's line (`#[track_caller]` through weft).

use std::sync::{Arc, Mutex};
use weft::{DynTensor, Tensor};

/// Runs `f`, which must panic, and returns the file of the panic's location.
fn panic_file(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let seen = Arc::new(Mutex::new(String::new()));
    let s2 = seen.clone();
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        *s2.lock().unwrap() = info
            .location()
            .map_or(String::new(), |l| l.file().to_string());
    }));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(prev);
    assert!(r.is_err(), "expected a panic");
    seen.lock().unwrap().clone()
}

#[test]
fn panics_point_at_the_caller() {
    let a = Tensor::<f32>::ones(&[2]);
    let b = Tensor::<f32>::ones(&[3]);
    let here = file!();
    assert_eq!(panic_file(|| drop(&a + &b)), here, "typed operator");
    assert_eq!(panic_file(|| drop(a.add(&b))), here, "typed method");
    assert_eq!(panic_file(|| drop(a.slice(5, None, None, 1))), here, "view");
    assert_eq!(panic_file(|| drop(a.reshape([5]))), here, "reshape");
    let (da, db) = (DynTensor::from(a.share()), DynTensor::from(b.share()));
    assert_eq!(panic_file(|| drop(&da + &db)), here, "dyn operator");
    assert_eq!(panic_file(|| drop(da.mul(&db))), here, "dyn method");
    assert_eq!(
        panic_file(|| {
            let mut x = da.share();
            x.add_(&db)
        }),
        here,
        "dyn in-place"
    );
    assert_eq!(
        panic_file(|| drop(Tensor::<f32>::zeros(&[usize::MAX]))),
        here,
        "constructor"
    );
}
