//! Cheap logarithms and exponentials with proven error bounds, for lower bounds of the fit's
//! objective that reject a line-search trial without the exact (libm) evaluation.
//!
//! Both are polynomial, branch-light and inlined; neither is ever used for a value the fit
//! returns, only to prove that the exact value would be rejected. [`LN_ERR`] bounds their
//! absolute error with a wide margin (the unit tests check against libm on millions of inputs
//! that the error stays 10 times below it).

/// An upper bound of `|ln_approx(x) − ln(x)|` and of `|ln_1p_exp_neg(z) − ln(1 + e^−z)|`
/// (absolute), on the inputs they accept.
pub(crate) const LN_ERR: f64 = 2e-11;

/// `ln 2` split so that `k · LN2_HI` is exact for `|k| < 2^21` (Cody and Waite).
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// The mantissa bits of √2 (`SQRT_2.to_bits()`'s low 52; a test checks it).
const SQRT2_MANT: u64 = 0x6_a09e_667f_3bcd;

/// The bits of the smallest positive normal float, `f64::MIN_POSITIVE` (a test checks it).
const MIN_NORMAL_BITS: u64 = 0x0010_0000_0000_0000;

/// `ln x` within [`LN_ERR`] for a positive normal finite `x`, `None` otherwise.
#[inline]
pub(crate) fn ln_approx(x: f64) -> Option<f64> {
    const MIN: u64 = MIN_NORMAL_BITS;
    let bits = x.to_bits();
    // Positive, normal and finite in one unsigned comparison.
    if bits.wrapping_sub(MIN) >= f64::INFINITY.to_bits() - MIN {
        return None;
    }
    // x = 2^e · m with m in [√½, √2), without a branch.
    let mant = bits & ((1u64 << 52) - 1);
    let high = u64::from(mant > SQRT2_MANT);
    let m = f64::from_bits(mant | ((1023 - high) << 52));
    let e = ((bits >> 52) + high) as i64 - 1023;
    Some(ln_scaled(m, e as f64))
}

/// `k ln 2 + ln m` for `m` in [√½, √2]: ln m = 2 atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716,
/// and the series to s^13 leaves less than 5e-13.
#[inline(always)]
fn ln_scaled(m: f64, k: f64) -> f64 {
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let s4 = s2 * s2;
    let p = (1.0 + s2 * (1.0 / 3.0))
        + s4 * ((1.0 / 5.0 + s2 * (1.0 / 7.0))
            + s4 * ((1.0 / 9.0 + s2 * (1.0 / 11.0)) + s4 * (1.0 / 13.0)));
    k * LN2_HI + (2.0 * s * p + k * LN2_LO)
}

/// `ln(1 + e^−z)` within [`LN_ERR`] for `z ≥ 0` (infinity included; NaN gives NaN or a
/// finite value, never a panic). Branch-free, so that a loop over many arguments vectorises.
#[inline]
pub(crate) fn ln_1p_exp_neg(z: f64) -> f64 {
    /// Adding and subtracting 1.5 · 2^52 rounds to an integer (ties to even).
    const ROUND: f64 = 6_755_399_441_055_744.0;
    // Beyond 700, e^−z < 1e-304 and so is the logarithm: the clamp changes it by less.
    let y = -z.min(700.0);
    // e^−z = 2^n · e^r, r = −z − n ln 2 in [−0.35, 0.35]; Taylor to r^10 leaves < 3e-13.
    let n = (y * std::f64::consts::LOG2_E + ROUND) - ROUND;
    let r = (y - n * LN2_HI) - n * LN2_LO;
    // Estrin's scheme: shorter dependency chains than Horner's.
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let p01 = 1.0 + r;
    let p23 = 1.0 / 2.0 + r * (1.0 / 6.0);
    let p45 = 1.0 / 24.0 + r * (1.0 / 120.0);
    let p67 = 1.0 / 720.0 + r * (1.0 / 5_040.0);
    let p89 = 1.0 / 40_320.0 + r * (1.0 / 362_880.0);
    let p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67) + r8 * (p89 + r2 * (1.0 / 3_628_800.0));
    // 2^n for n in [−1010, 0] (normal; NaN casts to 0).
    let scale = f64::from_bits(((n as i64 + 1023) as u64) << 52);
    // w = 1 + e^−z in [1, 2] (its rounding costs < 3e-16) as 2^k · m, m in [1, √2).
    let w = 1.0 + p * scale;
    let high = w > std::f64::consts::SQRT_2;
    let m = if high { w * 0.5 } else { w };
    let k = if high { 1.0 } else { 0.0 };
    ln_scaled(m, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn the_constants_are_the_floats_they_stand_for() {
        assert_eq!(
            SQRT2_MANT,
            std::f64::consts::SQRT_2.to_bits() & ((1 << 52) - 1)
        );
        assert_eq!(MIN_NORMAL_BITS, f64::MIN_POSITIVE.to_bits());
        // Cody and Waite's split (fdlibm's ln2_hi, ln2_lo): the high part has 32 significant
        // bits, and the two add up to ln 2.
        assert_eq!(LN2_HI.to_bits(), 0x3fe6_2e42_fee0_0000);
        assert_eq!(LN2_LO.to_bits(), 0x3dea_39ef_3579_3c76);
        assert_eq!(LN2_HI + LN2_LO, std::f64::consts::LN_2);
    }

    #[test]
    fn ln_approx_is_within_a_tenth_of_its_bound() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut worst: f64 = 0.0;
        for i in 0..2_000_000u64 {
            // Random bit patterns over all positive normal floats, and a dense range near 1.
            let x = if i % 2 == 0 {
                f64::from_bits(xorshift(&mut seed) >> 1)
            } else {
                0.25 + 4.0 * (xorshift(&mut seed) >> 11) as f64 / (1u64 << 53) as f64
            };
            match ln_approx(x) {
                Some(v) => worst = worst.max((v - x.ln()).abs()),
                None => assert!(!(x >= f64::MIN_POSITIVE && x.is_finite()), "{x}"),
            }
        }
        for x in [
            f64::MIN_POSITIVE,
            f64::MAX,
            1.0,
            2.0,
            0.5,
            std::f64::consts::SQRT_2,
        ] {
            worst = worst.max((ln_approx(x).unwrap() - x.ln()).abs());
        }

        assert!(worst < LN_ERR / 10.0, "{worst:e}");
        assert_eq!(ln_approx(0.0), None);
        assert_eq!(ln_approx(f64::INFINITY), None);
        assert_eq!(ln_approx(f64::NAN), None);
        assert_eq!(ln_approx(-1.0), None);
    }

    #[test]
    fn ln_1p_exp_neg_is_within_a_tenth_of_its_bound() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut worst: f64 = 0.0;
        for i in 0..2_000_000u64 {
            let unit = (xorshift(&mut seed) >> 11) as f64 / (1u64 << 53) as f64;
            let z = if i % 2 == 0 { 800.0 * unit } else { 3.0 * unit };
            let exact = (-z).exp().ln_1p();
            worst = worst.max((ln_1p_exp_neg(z) - exact).abs());
        }
        for z in [
            0.0,
            1e-300,
            0.3465,
            0.3466,
            700.0,
            700.5,
            1e10,
            f64::INFINITY,
        ] {
            worst = worst.max((ln_1p_exp_neg(z) - (-z).exp().ln_1p()).abs());
        }

        assert!(worst < LN_ERR / 10.0, "{worst:e}");
    }
}
