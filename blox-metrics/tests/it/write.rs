//! Tests of `write` (the library's `src/write.rs`) through the public API.

use blox_core::{Event, MetricSink, RoundSample, RoundStretch, Time};
use blox_metrics::*;

fn sample(t: u64, queue: u32, free: u32) -> RoundSample {
    RoundSample::new(Time::from_secs(t), queue, 1, 0, free, 1, 0)
}

fn csv(tl: &Timeline) -> String {
    let mut buf = Vec::new();
    write_timeline_csv(&mut buf, tl).unwrap();
    String::from_utf8(buf).unwrap()
}

#[test]
fn a_stretch_is_its_first_and_last_row() {
    let mut tl = Timeline::default();
    tl.on_event(&Event::Round(sample(0, 2, 0)));
    tl.on_rounds(&RoundStretch::new(
        sample(300, 0, 3),
        Time::from_secs(300),
        1_000_000,
    ));
    tl.on_event(&Event::Round(sample(300_000_300, 1, 0)));
    // A stretch of two is written in full, one of one is a plain row.
    tl.on_rounds(&RoundStretch::new(
        sample(300_000_600, 0, 4),
        Time::from_secs(300),
        2,
    ));
    tl.on_rounds(&RoundStretch::new(
        sample(300_001_200, 0, 2),
        Time::from_secs(300),
        1,
    ));
    assert_eq!(tl.round_count(), 1_000_005);
    assert_eq!(tl.stored_len(), 5);
    assert_eq!(
        csv(&tl),
        format!(
            "{TIMELINE_CSV_HEADER}\n0,2,1,0,1,0,0\n300,0,1,3,1,0,0\n300000000,0,1,3,1,0,0\n\
             300000300,1,1,0,1,0,0\n300000600,0,1,4,1,0,0\n300000900,0,1,4,1,0,0\n\
             300001200,0,1,2,1,0,0\n"
        )
    );
}

#[test]
fn without_long_stretches_there_is_one_row_per_round() {
    let mut compact = Timeline::default();
    let mut plain = Timeline::default();
    for (i, t) in [0u64, 300, 900, 1200].into_iter().enumerate() {
        let s = sample(t, i as u32, 1);
        compact.on_event(&Event::Round(s));
        plain.on_event(&Event::Round(s));
    }
    let st = RoundStretch::new(sample(1500, 0, 4), Time::from_secs(300), 2);
    compact.on_rounds(&st);
    for s in st.samples() {
        plain.on_event(&Event::Round(s));
    }
    assert_eq!(csv(&compact), csv(&plain));
    assert_eq!(compact.stored_len(), 5);
    // The two equal rounds fed one by one are merged as the engine's stretch of two is.
    assert_eq!(plain.stored_len(), 5);
}

#[test]
fn equal_processed_rounds_are_one_stretch_and_preemptions_are_never_merged() {
    // A model that decides every round (Synergy's) while nothing changes: a million equal
    // rounds, one entry, two rows.
    let mut tl = Timeline::default();
    for k in 0..1_000_000u64 {
        tl.on_event(&Event::Round(sample(300 * k, 0, 3)));
    }
    assert_eq!((tl.round_count(), tl.stored_len()), (1_000_000, 1));
    assert_eq!(
        csv(&tl),
        format!("{TIMELINE_CSV_HEADER}\n0,0,1,3,1,0,0\n299999700,0,1,3,1,0,0\n")
    );
    // A change of value, or of spacing, starts a new entry; rounds with preemptions are
    // kept one by one, so summing the column over the rows counts every preemption.
    tl.on_event(&Event::Round(sample(300_000_000, 1, 3)));
    tl.on_event(&Event::Round(sample(300_000_900, 1, 3)));
    tl.on_event(&Event::Round(sample(300_001_200, 1, 3)));
    let pre = RoundSample::new(Time::from_secs(300_001_500), 1, 1, 0, 3, 1, 2);
    tl.on_event(&Event::Round(pre));
    let mut again = pre;
    again.time = Time::from_secs(300_001_800);
    tl.on_event(&Event::Round(again));
    assert_eq!(tl.round_count(), 1_000_005);
    assert_eq!(tl.stored_len(), 5);
    let rows: Vec<String> = csv(&tl).lines().skip(3).map(String::from).collect();
    assert_eq!(
        rows,
        [
            "300000000,1,1,3,1,0,0",
            "300000900,1,1,3,1,0,0",
            "300001200,1,1,3,1,0,0",
            "300001500,1,1,3,1,2,0",
            "300001800,1,1,3,1,2,0",
        ]
    );
}
