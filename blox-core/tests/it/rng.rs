//! Tests of `rng` (the library's `src/rng.rs`) through the public API.

use blox_core::*;

#[test]
fn streams_are_deterministic_and_independent() {
    let a1: Vec<u64> = (0..4)
        .map({
            let mut r = Seed(7).stream("arrivals");
            move |_| r.next_u64()
        })
        .collect();
    let a2: Vec<u64> = (0..4)
        .map({
            let mut r = Seed(7).stream("arrivals");
            move |_| r.next_u64()
        })
        .collect();
    let b: Vec<u64> = (0..4)
        .map({
            let mut r = Seed(7).stream("durations");
            move |_| r.next_u64()
        })
        .collect();
    assert_eq!(a1, a2);
    assert_ne!(a1, b);
    let mut r = Seed(1).stream("x");
    for _ in 0..1000 {
        let f = r.next_f64();
        assert!((0.0..1.0).contains(&f));
        assert!(r.below(7) < 7);
    }
}
