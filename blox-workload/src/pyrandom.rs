//! A bit-exact port of the parts of CPython's `random` module that Blox and Gavel use.
//!
//! Blox draws every synthetic quantity from CPython's global `random.Random`, a 32-bit Mersenne
//! Twister (MT19937, Matsumoto & Nishimura, 1998). Reproducing Blox job by job therefore needs the
//! same generator *and* the same reductions CPython applies on top of it (BLOX-SEMANTICS §10.2):
//!
//! | CPython | here |
//! |---|---|
//! | `random.seed(n)` (integer `n`) | [`PyRandom::new`] |
//! | `init_by_array(key)` | [`PyRandom::from_key`] |
//! | `genrand_uint32()` | [`PyRandom::next_u32`] |
//! | `random()` | [`PyRandom::random`] |
//! | `uniform(a, b)` | [`PyRandom::uniform`] |
//! | `getrandbits(k)`, `k <= 32` | [`PyRandom::getrandbits`] |
//! | `randint(a, b)` | [`PyRandom::randint`] |
//! | `_randbelow(n)`, `randrange(n)` | [`PyRandom::randbelow`] |
//! | `shuffle(x)` | [`PyRandom::shuffle`] |
//!
//! Gavel (OSDI 2020) shuffles its GPU-type order with a `random.Random(seed + 5)` each round and
//! its FIFO policy draws `randrange` from `random.Random(seed)` (GAVEL-SEMANTICS §5.1, §6.4), so
//! the port lives here, shared by the simulator and the policies.
//!
//! The code follows the published MT19937 reference algorithm and CPython's documented
//! reductions; every operation is checked against CPython 3.11 in the unit tests.

/// Degree of recurrence: the state holds this many 32-bit words.
const N: usize = 624;
/// Middle word offset of the recurrence.
const M: usize = 397;
/// Coefficients of the rational normal form twist matrix.
const MATRIX_A: u32 = 0x9908_b0df;
/// Most significant bit of a word.
const UPPER_MASK: u32 = 0x8000_0000;
/// The 31 least significant bits of a word.
const LOWER_MASK: u32 = 0x7fff_ffff;

/// A bit-exact port of CPython's `random.Random` (MT19937) for the operations Blox uses.
///
/// Two generators built from the same seed produce identical streams, and each method consumes
/// exactly as many 32-bit outputs as its CPython counterpart, so interleaved calls stay in step
/// with a Python program making the same calls in the same order.
#[derive(Clone, Debug)]
pub struct PyRandom {
    /// The 624-word generator state.
    state: [u32; N],
    /// Index of the next word of `state` to temper; `N` means "twist before the next output".
    index: usize,
}

impl PyRandom {
    /// Equivalent of `random.seed(n)` for a non-negative integer `n`.
    ///
    /// CPython splits `|n|` into 32-bit words, least significant first, and calls
    /// `init_by_array` with them; `n = 0` gives the key `[0]`. So seeds below 2^32 use a one-word
    /// key and larger seeds a two-word key.
    pub fn new(seed: u64) -> Self {
        // Truncation is the point: these are the low and high 32-bit words of the seed.
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        if high == 0 {
            Self::from_key(&[low])
        } else {
            Self::from_key(&[low, high])
        }
    }

    /// `init_by_array(key)`, the MT19937 seeding by an array of 32-bit words.
    ///
    /// An empty key is treated as `[0]`, which is what CPython passes for `seed(0)` (CPython
    /// itself never passes an empty key).
    pub fn from_key(key: &[u32]) -> Self {
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mut state = Self::init_genrand(19_650_218).state;

        let mut i = 1usize;
        let mut j = 0usize;
        for _ in 0..N.max(key.len()) {
            let prev = state[i - 1];
            // `j as u32` wraps exactly as CPython's `(uint32_t)j` cast does.
            state[i] = (state[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                state[0] = state[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = state[i - 1];
            // `i < N`, so the cast is lossless.
            state[i] = (state[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                state[0] = state[N - 1];
                i = 1;
            }
        }
        // The most significant bit is set so that the state is never all zero.
        state[0] = 0x8000_0000;
        Self { state, index: N }
    }

    /// `init_genrand(s)`: the linear-congruential fill that `init_by_array` starts from.
    fn init_genrand(seed: u32) -> Self {
        let mut state = [0u32; N];
        state[0] = seed;
        for i in 1..N {
            let prev = state[i - 1];
            // `i < N`, so the cast is lossless.
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Self { state, index: N }
    }

    /// Regenerates all `N` state words (the MT19937 "twist").
    fn twist(&mut self) {
        // Indexing modulo `N` in one loop is equivalent to the reference's three loops: words
        // below `kk` have already been regenerated, exactly as in the reference.
        for kk in 0..N {
            let y = (self.state[kk] & UPPER_MASK) | (self.state[(kk + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 0 { 0 } else { MATRIX_A };
            self.state[kk] = self.state[(kk + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// One raw 32-bit output (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        // Tempering.
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `random()`: a float in `[0, 1)` with 53 random bits, from two 32-bit outputs.
    ///
    /// `a = next >> 5`, `b = next >> 6`, result `(a * 67108864 + b) / 2^53`. Every step is exact
    /// in `f64`.
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `uniform(lo, hi)` = `lo + (hi - lo) * random()`, evaluated in that order.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.random()
    }

    /// `getrandbits(k)` for `k <= 32`: `next_u32() >> (32 - k)`, one 32-bit output.
    ///
    /// `k = 0` returns 0 without consuming an output, as CPython 3.9+ does.
    ///
    /// # Panics
    ///
    /// If `k > 32` (the result would not fit the return type; callers pass constants).
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        assert!(k <= 32, "PyRandom::getrandbits: k = {k} exceeds 32");
        if k == 0 {
            return 0;
        }
        self.next_u32() >> (32 - k)
    }

    /// `getrandbits(k)` for `1 <= k <= 128`, assembled as CPython does for `k > 32`: one 32-bit
    /// output per word, least significant word first, the last (most significant) word keeping
    /// only its top `k mod 32` bits when `k` is not a multiple of 32.
    fn getrandbits_wide(&mut self, k: u32) -> u128 {
        debug_assert!((1..=128).contains(&k));
        let mut result = 0u128;
        let mut remaining = k;
        let mut shift = 0u32;
        while remaining > 0 {
            let mut word = self.next_u32();
            if remaining < 32 {
                word >>= 32 - remaining;
            }
            result |= u128::from(word) << shift;
            shift += 32;
            remaining = remaining.saturating_sub(32);
        }
        result
    }

    /// `randint(lo, hi)`: a uniform integer in `[lo, hi]`, both ends included.
    ///
    /// CPython computes `lo + _randbelow_with_getrandbits(n)` with `n = hi - lo + 1`:
    /// `k = n.bit_length()` (of `n` itself, not `n - 1`), then draws `getrandbits(k)` until the
    /// draw is below `n`. For example `randint(0, 8)` uses `k = 4`, `randint(600, 3600)` `k = 12`
    /// and `randint(36000, 86400)` `k = 16`. Each attempt consumes one 32-bit output when
    /// `k <= 32` (`n < 2^32`) and `ceil(k / 32)` outputs beyond, assembled as CPython's
    /// `getrandbits(k)` does (least significant word first), so any `i64` range is supported,
    /// including `n = 2^32` (`k = 33`) and the full `i64` range.
    ///
    /// # Panics
    ///
    /// If `hi < lo` (CPython raises `ValueError`; callers pass constants).
    pub fn randint(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(
            hi >= lo,
            "PyRandom::randint: empty range ({lo}, {hi}): hi must be >= lo"
        );
        // `hi >= lo`, so the width is in [1, 2^64] and fits a u128.
        let n = (i128::from(hi) - i128::from(lo) + 1) as u128;
        let k = u128::BITS - n.leading_zeros();
        let mut r = self.getrandbits_wide(k);
        while r >= n {
            r = self.getrandbits_wide(k);
        }
        // `r < n`, so `lo + r <= hi` fits an i64.
        (i128::from(lo) + r as i128) as i64
    }

    /// `_randbelow(n)` (and `randrange(n)`): a uniform integer in `[0, n)`.
    ///
    /// `k = n.bit_length()`, then `getrandbits(k)` until the draw is below `n`; every attempt
    /// consumes one 32-bit output, so `n = 1` still draws once (as CPython does).
    ///
    /// # Panics
    ///
    /// If `n == 0` (CPython raises `ValueError`; callers pass non-empty lengths).
    pub fn randbelow(&mut self, n: u32) -> u32 {
        assert!(n > 0, "PyRandom::randbelow: n must be positive");
        let k = u32::BITS - n.leading_zeros();
        let mut r = self.getrandbits(k);
        while r >= n {
            r = self.getrandbits(k);
        }
        r
    }

    /// `shuffle(x)` in place, CPython 3.11's algorithm: for `i` from `len - 1` down to 1, swap
    /// `x[i]` with `x[randbelow(i + 1)]`. A list of 0 or 1 items consumes nothing.
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            // Slices longer than u32::MAX are not shuffled by anything here.
            let j = self.randbelow(u32::try_from(i + 1).unwrap_or(u32::MAX)) as usize;
            x.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PyRandom;

    /// Bit length of `n`, as Python's `int.bit_length`.
    fn bit_length(n: u64) -> u32 {
        u64::BITS - n.leading_zeros()
    }

    #[test]
    fn reference_mt19937_init_by_array() {
        // The reference implementation's published check: key [0x123, 0x234, 0x345, 0x456].
        let mut rng = PyRandom::from_key(&[0x123, 0x234, 0x345, 0x456]);
        let first: Vec<u32> = (0..5).map(|_| rng.next_u32()).collect();
        assert_eq!(
            first,
            [
                1_067_595_299,
                955_945_823,
                477_289_528,
                4_107_218_783,
                4_228_976_476
            ]
        );
    }

    #[test]
    fn seed_1_random_matches_blox_check_values() {
        let mut rng = PyRandom::new(1);
        assert_eq!(rng.random(), 0.13436424411240122);
        assert_eq!(rng.random(), 0.8474337369372327);
        assert_eq!(rng.random(), 0.763774618976614);
    }

    #[test]
    fn seed_1_raw_outputs_match_cpython() {
        // CPython: r = random.Random(1); [r.getrandbits(32) for _ in range(5)]
        let mut rng = PyRandom::new(1);
        let first: Vec<u32> = (0..5).map(|_| rng.next_u32()).collect();
        assert_eq!(
            first,
            [
                577_090_037,
                2_444_712_010,
                3_639_700_191,
                3_445_702_192,
                3_280_387_012
            ]
        );
    }

    #[test]
    fn seed_0_is_key_zero() {
        let mut a = PyRandom::new(0);
        let mut b = PyRandom::from_key(&[0]);
        let mut c = PyRandom::from_key(&[]);
        for _ in 0..1000 {
            let x = a.next_u32();
            assert_eq!(x, b.next_u32());
            assert_eq!(x, c.next_u32());
        }
        // CPython: random.Random(0).random()
        assert_eq!(PyRandom::new(0).random(), 0.8444218515250481);
    }

    #[test]
    fn two_word_seed_matches_cpython() {
        // CPython 3.11: r = random.Random(123456789012), then five calls of each operation.
        let mut rng = PyRandom::new(123_456_789_012);
        let randint: Vec<i64> = (0..5).map(|_| rng.randint(0, 8)).collect();
        assert_eq!(randint, [6, 0, 4, 2, 6]);
        let bits: Vec<u32> = (0..5).map(|_| rng.getrandbits(7)).collect();
        assert_eq!(bits, [25, 18, 105, 98, 57]);
        let random: Vec<f64> = (0..5).map(|_| rng.random()).collect();
        assert_eq!(
            random,
            [
                0.2271035980085191,
                0.8735682715098345,
                0.391984230392731,
                0.3931409415008388,
                0.5274880691849281,
            ]
        );
        assert_eq!(
            PyRandom::new(123_456_789_012).next_u32(),
            PyRandom::from_key(&[0xbe99_1a14, 0x1c]).next_u32()
        );
    }

    #[test]
    fn seed_1_operations_match_cpython() {
        // CPython 3.11: r = random.Random(1), then five calls of each operation in this order.
        let mut rng = PyRandom::new(1);
        let a: Vec<i64> = (0..5).map(|_| rng.randint(600, 3600)).collect();
        assert_eq!(a, [1150, 2931, 858, 1644, 1082]);
        let b: Vec<i64> = (0..5).map(|_| rng.randint(36_000, 86_400)).collect();
        assert_eq!(b, [68_468, 85_870, 65_457, 66_949, 78_702]);
        let c: Vec<f64> = (0..3).map(|_| rng.uniform(1.5, 3.0)).collect();
        assert_eq!(
            c,
            [2.0694228349855917, 1.8149322095572158, 2.2317849847862212]
        );
        let d: Vec<u32> = (0..3).map(|_| rng.getrandbits(32)).collect();
        assert_eq!(d, [3_836_767_462, 3_589_583_794, 1_674_216_077]);
    }

    #[test]
    fn randint_wide_ranges_match_cpython() {
        // CPython 3.11: r = random.Random(7); r.randint(0, 2**32 - 1); r.randint(0, 2**32);
        // r.randint(-2**63, 2**63 - 1); r.randint(5, 5)
        let mut rng = PyRandom::new(7);
        assert_eq!(rng.randint(0, (1 << 32) - 1), 647_892_279);
        assert_eq!(rng.randint(0, 1 << 32), 2_795_742_288);
        assert_eq!(rng.randint(i64::MIN, i64::MAX), -8_531_699_129_511_414_324);
        assert_eq!(rng.randint(5, 5), 5);
    }

    #[test]
    fn randint_bit_counts() {
        // k = bit_length(n) with n = hi - lo + 1, as in `_randbelow_with_getrandbits`.
        assert_eq!(bit_length(8 + 1), 4);
        assert_eq!(bit_length(3600 - 600 + 1), 12);
        assert_eq!(bit_length(86_400 - 36_000 + 1), 16);
        // And randint really draws getrandbits(k) with those k, rejecting draws >= n.
        for (lo, hi, k) in [(0i64, 8i64, 4u32), (600, 3600, 12), (36_000, 86_400, 16)] {
            let n = u32::try_from(hi - lo + 1).unwrap();
            let mut a = PyRandom::new(1);
            let mut b = PyRandom::new(1);
            for _ in 0..2000 {
                let mut r = b.getrandbits(k);
                while r >= n {
                    r = b.getrandbits(k);
                }
                assert_eq!(a.randint(lo, hi), lo + i64::from(r));
            }
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    fn gavel_appendix_a_check_values() {
        // GAVEL-SEMANTICS appendix A.
        let mut r = PyRandom::new(0);
        let first: Vec<u32> = (0..6).map(|_| r.next_u32()).collect();
        assert_eq!(
            first,
            [3626764237, 1654615998, 3255389356, 3823568514, 1806341205, 173879092]
        );
        let mut r = PyRandom::new(0);
        let three: Vec<u32> = (0..8).map(|_| r.randbelow(3)).collect();
        assert_eq!(three, [1, 1, 0, 1, 2, 1, 1, 1]);
        let mut r = PyRandom::new(0);
        let two: Vec<u32> = (0..8).map(|_| r.randbelow(2)).collect();
        assert_eq!(two, [1, 1, 0, 1, 1, 1, 1, 1]);
        let mut r = PyRandom::new(5);
        let first: Vec<u32> = (0..6).map(|_| r.next_u32()).collect();
        assert_eq!(
            first,
            [2675342405, 1097127993, 3185950873, 1539898300, 3415330359, 2965446622]
        );
        let mut r = PyRandom::new(5);
        let orders: Vec<[&str; 3]> = (0..6)
            .map(|_| {
                let mut x = ["v100", "p100", "k80"];
                r.shuffle(&mut x);
                x
            })
            .collect();
        assert_eq!(
            orders,
            [
                ["v100", "p100", "k80"],
                ["v100", "p100", "k80"],
                ["p100", "v100", "k80"],
                ["k80", "v100", "p100"],
                ["p100", "v100", "k80"],
                ["p100", "k80", "v100"],
            ]
        );
        let mut r = PyRandom::new(5);
        let pairs: Vec<[char; 2]> = (0..6)
            .map(|_| {
                let mut x = ['v', 'p'];
                r.shuffle(&mut x);
                x
            })
            .collect();
        assert_eq!(
            pairs,
            [
                ['v', 'p'],
                ['v', 'p'],
                ['p', 'v'],
                ['v', 'p'],
                ['p', 'v'],
                ['p', 'v']
            ]
        );
        // One item: no draws.
        let mut a = PyRandom::new(5);
        let mut b = PyRandom::new(5);
        a.shuffle(&mut [1]);
        assert_eq!(a.next_u32(), b.next_u32());
    }

    #[test]
    fn getrandbits_zero_consumes_nothing() {
        let mut a = PyRandom::new(1);
        let mut b = PyRandom::new(1);
        assert_eq!(a.getrandbits(0), 0);
        assert_eq!(a.next_u32(), b.next_u32());
    }

    #[test]
    #[should_panic(expected = "empty range")]
    fn randint_rejects_empty_range() {
        PyRandom::new(1).randint(3, 2);
    }
}
