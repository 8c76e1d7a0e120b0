//! Floating-point sums of a repeated term, exactly as a loop rounds them, without the loop.
//!
//! A simulator that skips idle time must still produce the numbers the per-round loop would:
//! Blox credits a job `R · speed` once per round, and a timeline's time-weighted mean adds one
//! term per round. [`add_repeated`] gives the loop's result, bit for bit, in O(log n) steps, so
//! a stretch of 10^9 rounds costs what one round costs.

/// Below this many additions [`add_repeated`] simply loops.
const SHORT: u64 = 32;

/// [`additions_to_reach`] tries this many additions one by one before it searches.
const LOOP: u64 = 4096;

/// [`additions_to_reach`] starts from an estimate of the count when it is above this many
/// additions (below, the loop is as quick).
const GUESS_ABOVE: u64 = 64;

/// `acc + x + x + … + x` (`n` additions, each rounded to the nearest `f64`, ties to even, as a
/// loop would compute it), in O(log n) steps rather than `n`.
///
/// While the sum stays in one binade `[2^e, 2^(e+1))` of spacing `q`, adding `x = m·q + f`
/// (`0 ≤ f < q`) moves it by exactly `m` spacings when `f < q/2` and `m + 1` when `f > q/2`; at a
/// tie (`f = q/2`) the result is the even neighbour, so once the sum is even it moves by `m`
/// (even `m`) or `m + 1` (odd `m`) every time. Each binade is therefore crossed in one jump
/// plus single steps at its ends, and a sum stuck at `acc + x = acc` stops. A negative term is
/// the mirror image; a start of the other sign than the term (never met in the simulator) is
/// added to one step at a time until it changes sign.
#[inline]
pub fn add_repeated(mut acc: f64, x: f64, n: u64) -> f64 {
    if n <= SHORT {
        // A few additions are cheaper done than reasoned about.
        for _ in 0..n {
            acc += x;
        }
        acc
    } else {
        add_many(acc, x, n)
    }
}

/// [`add_repeated`] for more than [`SHORT`] additions.
fn add_many(mut acc: f64, x: f64, mut n: u64) -> f64 {
    const TOP: u64 = 1 << 53;
    if !(acc.is_finite() && x.is_finite()) || x == 0.0 {
        // Infinities, NaN and zero are fixed points after one addition.
        return acc + x;
    }
    if x < 0.0 {
        // Rounding to nearest is symmetric: the negated sum of the negated terms.
        return -add_many(-acc, -x, n);
    }
    // A negative start is added to one step at a time until the sum is no longer negative.
    while acc < 0.0 && n > 0 {
        acc += x;
        n -= 1;
    }
    while n > 0 {
        if acc < x || !acc.is_finite() {
            if !acc.is_finite() {
                return acc;
            }
            acc += x;
            n -= 1;
            continue;
        }
        // The spacing of acc's binade (subnormals share the lowest normal binade's spacing).
        let exp = acc.to_bits() >> 52;
        let q = if exp >= 53 {
            f64::from_bits((exp - 52) << 52)
        } else {
            f64::from_bits(1u64 << exp.saturating_sub(1))
        };
        let a = (acc / q) as u64;
        let y = x / q;
        let m = y.floor();
        let frac = y - m;
        let m = m as u64;
        let d = if frac < 0.5 {
            m
        } else if frac > 0.5 {
            m + 1
        } else if a % 2 == 0 {
            // A tie from an even sum lands on the even neighbour, and stays even.
            m + m % 2
        } else {
            // A tie from an odd sum: one step makes it even.
            acc += x;
            n -= 1;
            continue;
        };
        if d == 0 {
            return acc;
        }
        // A step stays in the binade while the exact sum is below its top: a + m < 2^53.
        let limit = TOP - 1 - m;
        if a > limit {
            acc += x;
            n -= 1;
            continue;
        }
        let steps = ((limit - a) / d + 1).min(n);
        acc = (a + steps * d) as f64 * q;
        n -= steps;
    }
    acc
}

/// The fewest additions of `x` to `acc` (each rounded, as [`add_repeated`]) after which the sum
/// is at least `target`, with the sum then: `Some((k, sum))`, `k ≥ 1`. `None` when `max`
/// additions do not get there (e.g. `x` too small to move the sum). Usually two calls of
/// [`add_repeated`] and a few additions; O(log k) calls at worst, for an answer `k`.
pub fn additions_to_reach(acc: f64, x: f64, target: f64, max: u64) -> Option<(u64, f64)> {
    if max == 0 {
        return None;
    }
    if x.is_nan() || x <= 0.0 {
        // The sum never grows: the first addition is the best.
        let first = acc + x;
        return (first >= target).then_some((1, first));
    }
    // Start a little short of the count exact arithmetic gives, `(target - acc) / x`: each
    // rounded addition strays from the exact sum by at most half the sum's spacing, so when the
    // term is large against that spacing (a round's credit against a job's work) the loop's
    // count is within a few additions of the quotient. Wherever it is, the count found is the
    // loop's: the sum at the start is the loop's own (`add_repeated`), the additions from there
    // are the loop's, and a start whose sum already reaches the target (a term near the sum's
    // spacing, whose rounding runs ahead of exact arithmetic) is dropped for a count from zero.
    let gap = (target - acc) / x;
    if gap > GUESS_ABOVE as f64 && gap < (1u64 << 53) as f64 {
        let g = gap as u64;
        let from = g - 4 - (g >> 16);
        if from < max {
            let sum = add_repeated(acc, x, from);
            if sum < target {
                return reach_from(from, sum, x, target, max);
            }
        }
    }
    reach_from(0, acc, x, target, max)
}

/// [`additions_to_reach`] from `k` additions made (`k < max`), whose sum `sum` is below the
/// target.
fn reach_from(mut k: u64, mut sum: f64, x: f64, target: f64, max: u64) -> Option<(u64, f64)> {
    // Short answers by the loop itself, as Blox computes them: a few thousand additions cost
    // less than the search.
    let stop = max.min(k.saturating_add(LOOP));
    let start = k;
    while k < stop {
        sum += x;
        k += 1;
        if sum >= target {
            return Some((k, sum));
        }
    }
    // Longer ones: from there, double the stride until the sum gets there (the sum never
    // decreases with more additions of a positive x, and once an addition leaves it unchanged
    // it never moves again), then bisect the last stride. The loop has no memory, so each
    // stride continues from the sum reached.
    let mut stride = (k - start).max(1);
    loop {
        if k == max {
            return None;
        }
        let step = stride.min(max - k);
        let next = add_repeated(sum, x, step);
        if next >= target {
            let (mut lo, mut lo_sum, mut hi) = (k, sum, k + step);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let at = add_repeated(lo_sum, x, mid - lo);
                if at >= target {
                    hi = mid;
                } else {
                    (lo, lo_sum) = (mid, at);
                }
            }
            return Some((hi, add_repeated(lo_sum, x, hi - lo)));
        }
        if next == sum {
            return None;
        }
        (k, sum) = (k + step, next);
        stride = stride.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loop `add_repeated` stands for.
    fn add_loop(mut acc: f64, x: f64, n: u64) -> f64 {
        for _ in 0..n {
            acc += x;
        }
        acc
    }

    #[test]
    fn repeated_addition_rounds_as_the_loop_does() {
        // Values a timeline produces: utilisation × round length, counts × milliseconds.
        for (acc, x, n) in [
            (0.0, 0.1, 1_000_000),
            (0.0, 0.3 * 300_000.0, 200_000),
            (12.5, 2.0 / 3.0, 123_457),
            (1e17, 1.0, 1000),                  // below half a spacing: stuck
            (9_007_199_254_740_992.0, 1.0, 10), // a tie from an even sum: stuck
            (9_007_199_254_740_994.0, 3.0, 77), // ties with odd m: moves by 4
            (9_007_199_254_740_996.0, 1.0, 5),
            (0.0, 5e-324, 100_000), // subnormals
            (f64::MAX / 2.0, f64::MAX / 8.0, 10),
            (3.0, 0.0, 9),
        ] {
            let got = add_repeated(acc, x, n);
            let want = add_loop(acc, x, n);
            assert_eq!(got.to_bits(), want.to_bits(), "{acc} + {x} × {n}");
        }
        assert_eq!(add_repeated(1.0, f64::INFINITY, 3), f64::INFINITY);
        assert!(add_repeated(f64::NAN, 1.0, 3).is_nan());
        assert_eq!(add_repeated(7.0, 1.0, 0), 7.0);
        // Negative terms and starts of the other sign.
        for (acc, x, n) in [(0.0, -0.1, 1000), (-5.5, 0.3, 400), (2.0, -0.7, 300)] {
            assert_eq!(
                add_repeated(acc, x, n).to_bits(),
                add_loop(acc, x, n).to_bits(),
                "{acc} + {x} × {n}"
            );
        }
        assert_eq!(additions_to_reach(5.0, -1.0, 3.0, 100), Some((1, 4.0)));
        assert_eq!(additions_to_reach(5.0, -1.0, 4.5, 100), None);
    }

    #[test]
    fn the_first_sum_reaching_a_target() {
        for (acc, x, target) in [
            (0.0, 300.0, 1e9),
            (0.0, 1.0, 1e9),
            (17.25, 0.1, 1234.5),
            (0.0, 0.7 * 300.0, 86_400.0 * 3.0),
        ] {
            let (k, sum) = additions_to_reach(acc, x, target, 1 << 40).unwrap();
            assert_eq!(sum.to_bits(), add_loop(acc, x, k).to_bits());
            assert!(
                sum >= target && add_loop(acc, x, k - 1) < target,
                "{acc} {x} {target}"
            );
        }
        // Past the plain loop's reach, from random starts: the loop's own first count.
        let mut rng = crate::Seed(18).stream("additions_to_reach");
        for _ in 0..40 {
            let acc = rng.next_f64() * 1e6;
            let x = 0.01 + rng.next_f64() * 7.0;
            let k_want = 4000 + rng.below(60_000);
            let target = add_loop(acc, x, k_want);
            let (k, sum) = additions_to_reach(acc, x, target, u64::MAX).unwrap();
            let (mut first, mut at) = (0, acc);
            while at < target {
                at += x;
                first += 1;
            }
            assert_eq!((k, sum.to_bits()), (first, at.to_bits()));
        }
        // Counts of every size, and targets on and just off a sum of the loop, from starts
        // and terms of every scale (sums that round up, down and get stuck included): the
        // loop's own first count, or none within `max`.
        let mut rng = crate::Seed(19).stream("additions_to_reach");
        for case in 0..3000 {
            let acc = rng.next_f64() * 2f64.powi(rng.below(60) as i32 - 10);
            let x = (0.5 + rng.next_f64()) * 2f64.powi(rng.below(50) as i32 - 20);
            let k_want = 1 + rng.below([70, 5000, 20_000][case % 3]);
            let on = add_loop(acc, x, k_want);
            let target = match rng.below(3) {
                0 => on,
                1 => f64::from_bits(on.to_bits() - 1),
                _ => f64::from_bits(on.to_bits() + 1),
            };
            // At least one addition (a target the start already reaches included).
            let (mut first, mut at) = (1u64, acc + x);
            while at < target && first <= 40_000 {
                at += x;
                first += 1;
            }
            let want = (at >= target).then_some((first, at.to_bits()));
            for max in [u64::MAX, first, first.saturating_sub(1).max(1)] {
                let got = additions_to_reach(acc, x, target, max).map(|(k, s)| (k, s.to_bits()));
                let want = want.filter(|w| w.0 <= max);
                assert_eq!(got, want, "{acc} + {x} × k >= {target}, max {max}");
            }
        }
        // A term below half the sum's spacing never gets there.
        assert_eq!(additions_to_reach(1e17, 1.0, 2e17, 1 << 40), None);
        assert_eq!(additions_to_reach(0.0, 1.0, 10.0, 9), None);
        assert_eq!(additions_to_reach(0.0, 1.0, 10.0, 10), Some((10, 10.0)));
    }

    /// Deterministic pseudo-random cases over every scale (no property-test dependency in the
    /// core): bit-identical to the loop.
    #[test]
    fn repeated_addition_is_the_loop_on_many_cases() {
        let mut rng = crate::Seed(18).stream("add_repeated");
        for _ in 0..3000 {
            let scale =
                |r: &mut crate::StreamRng, lo: i32, span: u64| 2f64.powi(lo + r.below(span) as i32);
            let acc = (rng.next_u64() >> 11) as f64 * scale(&mut rng, -60, 120);
            let x = if rng.below(3) == 0 {
                // Few-bit terms near the sum's spacing: ties are common.
                (1 + rng.below(64)) as f64 * 2f64.powi(-6) * (acc / 2f64.powi(52)).max(1e-300)
            } else {
                (1 + (rng.next_u64() >> 11)) as f64 * scale(&mut rng, -80, 120)
            };
            let n = rng.below(5000);
            assert_eq!(
                add_repeated(acc, x, n).to_bits(),
                add_loop(acc, x, n).to_bits(),
                "{acc} + {x} × {n}"
            );
        }
    }
}
