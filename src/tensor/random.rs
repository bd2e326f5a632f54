//! A tiny deterministic PRNG (SplitMix64) for seeded random tensors. Not cryptographic; the
//! same seed gives the same tensor on every platform and every run.

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, passes BigCrush, trivially seedable.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with `bits` random mantissa bits (`bits` <= 53), so the value is exactly
    /// representable in a float of that precision and can never round up to 1.
    pub fn next_unit(&mut self, bits: u32) -> f64 {
        let k = self.next_u64() >> (64 - bits);
        k as f64 * (-(bits as f64)).exp2()
    }

    /// Uniform in (0, 1] with 53 bits (safe to take the logarithm of).
    fn next_unit_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (-53f64).exp2()
    }

    /// A pair of independent standard normal values (Box–Muller).
    pub fn next_normal_pair(&mut self) -> (f64, f64) {
        let u1 = self.next_unit_open0();
        let u2 = self.next_unit(53);
        let r = (-2.0 * u1.ln()).sqrt();
        let th = 2.0 * core::f64::consts::PI * u2;
        (r * th.cos(), r * th.sin())
    }

    /// Uniform integer in `[low, high)` (requires `low < high`). Multiply-shift (Lemire) without
    /// rejection: the bias is below 2^-64 * range, irrelevant for test data.
    pub fn next_in_range(&mut self, low: i64, high: i64) -> i64 {
        let range = (high as i128 - low as i128) as u128;
        let r = ((self.next_u64() as u128 * range) >> 64) as i128;
        (low as i128 + r) as i64
    }
}
