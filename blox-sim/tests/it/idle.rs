//! Long idle stretches cost O(1): the engine reports rounds it skipped as one stretch and the
//! stock timeline stores it as one entry, however long the wait (issue 18, item 3).

use super::*;
use blox_core::{Event, MetricSink, RoundSample, RoundStretch};

fn one_second<Tm: TimeModel>(cfg: SimConfig<Tm>) -> SimConfig<Tm> {
    cfg.with_round(Time::from_secs(1))
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
