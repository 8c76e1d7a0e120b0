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
