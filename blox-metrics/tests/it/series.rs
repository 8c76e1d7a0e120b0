//! Tests of `series` (the library's `src/series.rs`) through the public API.

use blox_core::*;
use blox_metrics::*;

fn sample(t: u64, queue: u32, free: u32, demand: u64, preempt: u32) -> RoundSample {
    RoundSample::new(Time::from_secs(t), queue, 0, 0, free, demand, preempt)
}

#[test]
fn time_weighted_by_hand() {
    // 10 GPUs. 0–100 s: 2 free (80 %), 100–400 s: 7 free (30 %), sample at 400 s: 0 free.
    let s = [
        sample(0, 4, 2, 12, 1),
        sample(100, 0, 7, 3, 0),
        sample(400, 9, 0, 30, 2),
    ];
    let t = TimelineStats::compute(&s, 10);
    assert_eq!(t.n_samples, 3);
    assert_eq!((t.start_s, t.end_s), (0.0, 400.0));
    // (0.8·100 + 0.3·300) / 400 = 170/400.
    assert_eq!(
        t.mean_utilisation,
        (0.8 * 100_000.0 + 0.3 * 300_000.0) / 400_000.0
    );
    assert_eq!(
        t.mean_busy_gpus,
        (8.0 * 100_000.0 + 3.0 * 300_000.0) / 400_000.0
    );
    assert_eq!(
        t.mean_free_gpus,
        (2.0 * 100_000.0 + 7.0 * 300_000.0) / 400_000.0
    );
    assert_eq!(t.mean_queue_len, 1.0);
    assert_eq!(
        t.mean_gpu_demand,
        (12.0 * 100_000.0 + 3.0 * 300_000.0) / 400_000.0
    );
    assert_eq!(
        (t.max_queue_len, t.max_gpu_demand, t.preemptions),
        (9, 30, 3)
    );

    // 50–200 s: 50 s at 80 % and 100 s at 30 %; only the 100 s sample lies inside.
    let w = TimelineStats::compute_between(&s, 10, Time::from_secs(50), Time::from_secs(200));
    assert_eq!(
        w.mean_utilisation,
        (0.8 * 50_000.0 + 0.3 * 100_000.0) / 150_000.0
    );
    assert_eq!((w.n_samples, w.max_queue_len, w.preemptions), (1, 0, 0));

    // Past the last sample, its values hold: 400–500 s fully busy.
    let e = TimelineStats::compute_between(&s, 10, Time::from_secs(400), Time::from_secs(500));
    assert_eq!(e.mean_utilisation, 1.0);
}

/// The loop `add_repeated` stands for.
fn add_loop(mut acc: f64, x: f64, n: u64) -> f64 {
    for _ in 0..n {
        acc += x;
    }
    acc
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Random sums, addends and counts, addends from every scale: `blox_core::add_repeated`
    /// is bit-identical to the loop.
    #[test]
    fn repeated_addition_is_the_loop(
        acc_m in 0u64..1 << 53, acc_e in -60i32..60, x_m in 1u64..1 << 53, x_e in -80i32..40,
        n in 0u64..20_000,
    ) {
        let acc = acc_m as f64 * 2f64.powi(acc_e);
        let x = x_m as f64 * 2f64.powi(x_e);
        proptest::prop_assert_eq!(add_repeated(acc, x, n).to_bits(), add_loop(acc, x, n).to_bits());
    }

    /// Few-bit addends at the scale of the sum's spacing, where ties are common.
    #[test]
    fn repeated_addition_at_ties_is_the_loop(
        acc in 0u64..1 << 12, x_m in 1u64..64, x_e in -6i32..0, n in 0u64..5_000,
    ) {
        let acc = (acc as f64 + 9_007_199_254_740_992.0) * 0.5;
        let x = x_m as f64 * 2f64.powi(x_e);
        proptest::prop_assert_eq!(add_repeated(acc, x, n).to_bits(), add_loop(acc, x, n).to_bits());
    }

    /// Statistics over stretches equal, to the bit, those over the per-round expansion, for
    /// any window (cutting stretches anywhere), stretches of any length and step, cluster
    /// management or not.
    #[test]
    fn stretches_weigh_as_their_rounds(
        parts in proptest::collection::vec(
            (0u64..5_000, 1u64..40, 0u32..7, 0u32..9, 0u64..40, 0u32..3, 0u32..5, proptest::bool::ANY, 0u64..3),
            1..12,
        ),
        win in (0u64..400_000, 0u64..400_000),
    ) {
        let mut stretches = Vec::new();
        let mut t = 0u64;
        for (gap, count, queue, free, demand, pre, step_s, managed, avail_off) in parts {
            t += gap;
            let step = Time::from_millis(1000 * u64::from(step_s));
            let mut s = RoundSample::new(Time::from_millis(t), queue, 1, 0, free, demand, pre);
            if managed {
                s = s.with_available_gpus(8 - avail_off as u32);
            }
            let count = if step_s == 0 { count.min(3) } else { count };
            let st = RoundStretch::new(s, step, count);
            t = st.last().time.as_millis() + 1 + gap % 700;
            stretches.push(st);
        }
        let rounds: Vec<RoundSample> = stretches.iter().flat_map(|s| s.samples()).collect();
        let (a, b) = (Time::from_millis(win.0.min(win.1)), Time::from_millis(win.0.max(win.1)));
        let got = TimelineStats::of_stretches_between(stretches.iter().copied(), 8, a, b);
        let want = TimelineStats::compute_between(&rounds, 8, a, b);
        proptest::prop_assert_eq!(got, want);
        let mut tl = blox_metrics::Timeline::default();
        for st in &stretches {
            blox_core::MetricSink::on_rounds(&mut tl, st);
        }
        proptest::prop_assert_eq!(TimelineStats::of_timeline(&tl, 8), TimelineStats::compute(&rounds, 8));
        proptest::prop_assert!(tl.stored_len() <= stretches.len());
        proptest::prop_assert_eq!(tl.rounds().collect::<Vec<_>>(), rounds.clone());
        // Fed round by round, as a model that decides every round reports them, the
        // timeline merges equal rounds back into stretches: the same rounds, the same
        // statistics, and no more entries than stretches (rounds with preemptions, or at one
        // time, apart).
        let mut one_by_one = blox_metrics::Timeline::default();
        for s in &rounds {
            blox_core::MetricSink::on_event(&mut one_by_one, &blox_core::Event::Round(*s));
        }
        proptest::prop_assert_eq!(one_by_one.rounds().collect::<Vec<_>>(), rounds.clone());
        proptest::prop_assert_eq!(TimelineStats::of_timeline(&one_by_one, 8), TimelineStats::compute(&rounds, 8));
        let bound: usize = stretches
            .iter()
            .map(|st| if st.first.preemptions > 0 || st.step == Time::ZERO { st.count as usize } else { 1 })
            .sum();
        proptest::prop_assert!(one_by_one.stored_len() <= bound);
    }
}

#[test]
fn degenerate_timelines() {
    assert_eq!(TimelineStats::compute(&[], 8).mean_utilisation, 0.0);
    assert_eq!(TimelineStats::compute(&[], 8).total_gpus, 8);
    // One sample: plain mean. 8 GPUs, 2 free: 75 %.
    let one = TimelineStats::compute(&[sample(5, 1, 2, 6, 0)], 8);
    assert_eq!(
        (one.mean_utilisation, one.mean_queue_len, one.n_samples),
        (0.75, 1.0, 1)
    );
    // More free GPUs than the cluster has (a wrong total): no negative utilisation.
    assert_eq!(utilisation(&sample(0, 0, 9, 0, 0), 8), 0.0);
    assert_eq!(utilisation(&sample(0, 0, 0, 0, 0), 0), 0.0);
}
