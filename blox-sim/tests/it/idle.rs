//! Long idle stretches cost O(1): the engine reports rounds it skipped as one stretch and the
//! stock timeline stores it as one entry, however long the wait (issue 18, item 3).

use super::*;
use blox_core::{Event, MetricSink, RoundSample, RoundStretch};
use blox_metrics::TimelineStats;

fn one_second<Tm: TimeModel>(cfg: SimConfig<Tm>) -> SimConfig<Tm> {
    cfg.with_round(Time::from_secs(1))
}

#[test]
fn a_ten_million_second_job_at_one_second_rounds_is_a_handful_of_entries() {
    for (name, (out, _, tl)) in [
        (
            "exact",
            run_jobs(one_second(exact()), 1, 1, "fifo", vec![job(0, 1e7, 1)]),
        ),
        (
            "blox",
            run_jobs(one_second(blox()), 1, 1, "fifo", vec![job(0, 1e7, 1)]),
        ),
    ] {
        // Every round up to the end is in the timeline (the final round takes no sample) ...
        let end = out.end_time.as_secs();
        assert!(end >= 10_000_000, "{name}: {end}");
        assert_eq!(tl.round_count(), end, "{name}");
        // ... but only the processed rounds and one stretch are stored.
        assert!(tl.stored_len() <= 4, "{name}: {} entries", tl.stored_len());
        let longest = tl.stretches().map(|s| s.count).max().unwrap();
        assert!(longest >= 9_999_990, "{name}: {longest}");
        let stats = TimelineStats::of_timeline(&tl, 1);
        assert_eq!(stats.n_samples, end, "{name}");
        // Busy from the job's start (0 s, or 1 s in Blox, which first sees it a round later).
        assert!(stats.mean_utilisation >= 1.0 - 1e-6, "{name}");
    }
}

#[test]
fn the_longest_valid_job_and_the_latest_valid_arrival_run_in_constant_space() {
    // 10^9 s, the largest time a trace may hold, at one-second rounds: 10^9 rounds.
    let (out, log, tl) = run_jobs(one_second(exact()), 1, 1, "fifo", vec![job(0, 1e9, 1)]);
    assert_eq!(out.end_time, Time::from_secs(1_000_000_000));
    assert_eq!(tl.round_count(), 1_000_000_000);
    assert!(tl.stored_len() <= 4, "{} entries", tl.stored_len());
    assert_eq!(
        rec(&log, 0).completion,
        Some(Time::from_secs(1_000_000_000))
    );
    // A job that arrives at 10^9 s on an idle cluster.
    let (out, log, tl) = run_jobs(
        one_second(blox()),
        1,
        1,
        "fifo",
        vec![job(1_000_000_000, 10.0, 1)],
    );
    assert!(out.end_time >= Time::from_secs(1_000_000_010));
    assert!(tl.round_count() >= 1_000_000_000);
    assert!(tl.stored_len() <= 20, "{} entries", tl.stored_len());
    assert_eq!(rec(&log, 0).arrival, Time::from_secs(1_000_000_000));
    let stats = TimelineStats::of_timeline(&tl, 1);
    assert!(stats.mean_utilisation > 0.0 && stats.mean_utilisation < 1e-6);
}

/// A sink written against `on_event` alone, as third-party sinks are: it must still see one
/// `Round` per round, skipped ones included, through `on_rounds`' default.
#[derive(Default)]
struct RoundTimes(Vec<Time>);

impl MetricSink for RoundTimes {
    fn on_event(&mut self, e: &Event<'_>) {
        if let Event::Round(s) = e {
            self.0.push(s.time);
        }
    }
}

/// Counts calls, to see a stretch arrive as one.
#[derive(Default)]
struct Stretches(Vec<RoundStretch>, u64);

impl MetricSink for Stretches {
    fn on_event(&mut self, e: &Event<'_>) {
        if matches!(e, Event::Round(_)) {
            self.1 += 1;
        }
    }
    fn on_rounds(&mut self, s: &RoundStretch) {
        self.0.push(*s);
    }
}

#[test]
fn sinks_without_on_rounds_see_every_round() {
    // One job runs 0–50 s, the next arrives at 200 s: rounds 1..199 are skipped.
    let jobs = vec![job(0, 50.0, 1), job(200, 30.0, 1)];
    let run = |sink| {
        let (policy, placement) = preset(&one_second(exact()), "fifo");
        let mut sim = Simulator::new(
            one_second(exact()),
            ClusterSpec::uniform(1, 1),
            Pipeline::new(AcceptAll, policy, placement),
            ConstantSpeed(1.0),
            sink,
        );
        sim.run(&mut JobList::new(jobs.clone())).unwrap();
        sim.into_sink()
    };
    let (times, timeline, stretches) = run((
        RoundTimes::default(),
        Timeline::default(),
        Stretches::default(),
    ));
    let expanded: Vec<Time> = timeline.rounds().map(|s: RoundSample| s.time).collect();
    assert_eq!(times.0, expanded);
    // Every second from 0 to the last sample, each once.
    let last = times.0.last().unwrap().as_secs();
    assert!(last >= 229, "{last}");
    assert_eq!(times.0, (0..=last).map(Time::from_secs).collect::<Vec<_>>());
    // The skipped seconds came as few stretches, not one call per round.
    let skipped: u64 = stretches.0.iter().map(|s| s.count).sum();
    assert!(stretches.0.len() <= 4, "{:?}", stretches.0);
    assert_eq!(skipped + stretches.1, last + 1);
    assert!(timeline.stored_len() < 20, "{}", timeline.stored_len());
}
