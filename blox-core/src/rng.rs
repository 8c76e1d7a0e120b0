//! Seeded, named random streams.
//!
//! One seed per run; every component that needs randomness asks for its own stream by name, so a
//! new draw in one component never shifts another's.

/// A run's seed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Seed(pub u64);

impl Seed {
    /// An independent stream for `name`: the same seed and name always give the same stream.
    pub fn stream(self, name: &str) -> StreamRng {
        // FNV-1a of the name, mixed with the seed through SplitMix64.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut sm = self.0 ^ h.rotate_left(17);
        let mut s = [0u64; 4];
        for x in &mut s {
            *x = splitmix64(&mut sm);
        }
        StreamRng { s }
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A xoshiro256** generator (Blackman and Vigna, 2018): small, fast, and the same on every
/// platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamRng {
    s: [u64; 4],
}

impl StreamRng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform float in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `[0, n)` (Lemire's nearly divisionless method, unbiased). `n` must be
    /// non-zero.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }
}
