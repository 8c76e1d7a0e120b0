//! The engine under Blox's model beside the exact one: where the two must differ, and where
//! Blox's quirks (overshoot, wall-clock service, whole credited rounds) show.

use super::*;
use blox_core::JobSpec;
use blox_metrics::TimelineStats;
use blox_sim::TimeModel;

fn one_second<Tm: TimeModel>(cfg: SimConfig<Tm>) -> SimConfig<Tm> {
    cfg.with_round(Time::from_secs(1))
}

fn long_thin_short_wide() -> Vec<JobSpec> {
    vec![job(0, 10_000.0, 1), job(1200, 600.0, 8)]
}

#[test]
fn a_job_that_can_never_be_placed_stalls_with_a_clear_error() {
    // Blox's overshoot: 6 GPUs on 4-GPU nodes is never placeable (4 + 4 = 8 != 6).
    let e = run_with(
        blox(),
        2,
        4,
        "fifo",
        AdmissionConfig::AcceptAll,
        vec![job(0, 10.0, 6)],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("the placement can never start it"), "{e}");
    // In exact semantics it runs.
    let (out, _, _) = run_jobs(exact(), 2, 4, "fifo", vec![job(0, 10.0, 6)]);
    assert_eq!(out.completed, 1);
}

#[test]
fn las_counts_gpu_seconds_in_exact_and_wall_seconds_in_blox() {
    // 1 node x 3 GPUs. A (2 GPUs) and B (1 GPU) run from 0. At 300, C (1 GPU) arrives and goes
    // first. Blox: A and B both have 300 s, so B (higher id) is the bottom victim. Exact: A has
    // 600 GPU-s, B 300, so A is the bottom victim.
    let jobs = vec![job(0, 50_000.0, 2), job(0, 50_000.0, 1), job(300, 600.0, 1)];
    assert_eq!(stops(blox(), 1, 3, "las", jobs.clone()).at(300), vec![1]);
    assert_eq!(stops(exact(), 1, 3, "las", jobs).at(300), vec![0]);
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

#[test]
fn las_wall_clock_versus_gpu_seconds_versus_tiresias_queues() {
    let jobs = long_thin_short_wide();
    // LAS, blox semantics (wall-clock service): at 1200 job 1 (0 s) preempts job 0 (1200 s);
    // it is credited 300 s per round, stays below 1200 and completes at 1800.
    let (_, log, _) = run_jobs(blox(), 1, 8, "las", jobs.clone());
    assert_eq!(secs(rec(&log, 1).completion), Some(1800.0));
    assert_eq!(rec(&log, 0).preemptions, 1);

    // LAS, exact semantics (GPU-seconds): job 1 preempts at 1200, but by 1500 it has 2400
    // GPU-s against job 0's 1200, so job 0 takes the GPUs back and keeps them until its own
    // service passes 2400 (at 3000: 1200 + 1800 s); job 1 then finishes its last 300 s at 3300.
    let s = stops(exact(), 1, 8, "las", jobs.clone());
    assert_eq!(s.0, vec![(1200, 0), (1500, 1), (3000, 0)]);
    let (_, log, _) = run_jobs(exact(), 1, 8, "las", jobs.clone());
    assert_eq!(secs(rec(&log, 1).completion), Some(3300.0));

    // Tiresias (exact, 2 queues at 3600 GPU-s): both start in the top queue, FIFO keeps job 0
    // running until its service reaches 3600 GPU-s at t = 3600; demoted, it yields to job 1,
    // which finishes in the top queue (4800 GPU-s are only counted at the end) at 4200.
    let s = stops(exact(), 1, 8, "tiresias", jobs.clone());
    assert_eq!(s.0, vec![(3600, 0)]);
    let (_, log, _) = run_jobs(exact(), 1, 8, "tiresias", jobs.clone());
    assert_eq!(secs(rec(&log, 1).first_start), Some(3600.0));
    assert_eq!(secs(rec(&log, 1).completion), Some(4200.0));
    assert_eq!(
        secs(rec(&log, 0).completion),
        Some(4200.0 + 10_000.0 - 3600.0)
    );

    // Tiresias with a 1000 GPU-s threshold: job 0 is already demoted at 1200, so job 1 runs at
    // once; after one round it has 2400 GPU-s and is demoted too, and FIFO within the bottom
    // queue gives the GPUs back to job 0 for good: job 1 finishes only after job 0 (10,300),
    // at the next round (10,500) + 300 s.
    let (_, log, _) = run_jobs(exact(), 1, 8, "tiresias:threshold=1000", jobs.clone());
    assert_eq!(secs(rec(&log, 0).completion), Some(10_300.0));
    assert_eq!(secs(rec(&log, 1).completion), Some(10_800.0));

    // The same with starvation promotion (STARVELIMIT multiplier 1): job 1 ran 300 s since
    // its last promotion and was last seen running at 1500, so at 1800 it has waited 300 s,
    // goes back to the top queue, preempts job 0 and finishes its 300 s at 2100.
    let (_, log, _) = run_jobs(
        exact(),
        1,
        8,
        "tiresias:threshold=1000,starvation=1",
        jobs.clone(),
    );
    assert_eq!(secs(rec(&log, 1).completion), Some(2100.0));
    let s = stops(exact(), 1, 8, "tiresias:threshold=1000,starvation=1", jobs);
    assert_eq!(s.0, vec![(1200, 0), (1500, 1), (1800, 0)]);
}

#[test]
fn blox_semantics_keeps_blox_tiresias_and_optimus() {
    // In blox semantics `tiresias` is Blox's, i.e. LAS, job for job.
    let jobs = long_thin_short_wide();
    let (_, a, _) = run_jobs(blox(), 1, 8, "tiresias", jobs.clone());
    let (_, b, _) = run_jobs(blox(), 1, 8, "las", jobs);
    for id in 0..2 {
        assert_eq!(rec(&a, id).completion, rec(&b, id).completion);
        assert_eq!(rec(&a, id).preemptions, rec(&b, id).preemptions);
    }
}
