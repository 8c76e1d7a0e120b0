//! Tests of `float` (the library's `src/float.rs`) through the public API.

use blox_core::*;

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
    let mut rng = blox_core::Seed(18).stream("additions_to_reach");
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
    let mut rng = blox_core::Seed(19).stream("additions_to_reach");
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
    let mut rng = blox_core::Seed(18).stream("add_repeated");
    for _ in 0..3000 {
        let scale =
            |r: &mut blox_core::StreamRng, lo: i32, span: u64| 2f64.powi(lo + r.below(span) as i32);
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
