//! NumPy's `.npz` archives: a zip of `.npy` files, one per named array.
