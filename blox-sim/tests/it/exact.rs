//! `exact` semantics: true finish times, GPU-second service, preemption cost.

use super::*;

#[test]
fn a_job_finishes_at_its_true_finish_time() {
    let (out, log, _) = run_jobs(exact(), 1, 4, "fifo", vec![job(1000, 1000.0, 1)]);
    let r = rec(&log, 0);
    assert_eq!(secs(r.first_start), Some(1200.0));
    assert_eq!(secs(r.completion), Some(2200.0));
    assert_eq!(
        r.responsiveness().unwrap().as_secs_f64(),
        200.0,
        "time to first start"
    );
    assert_eq!(out.end_time, Time::from_secs(2200));
    // Fractions are kept to the millisecond, rounded up.
    let (_, log, _) = run_jobs(exact(), 1, 4, "fifo", vec![job(0, 35_424.347_198_087_9, 1)]);
    assert_eq!(rec(&log, 0).completion, Some(Time(35_424_348)));
}

#[test]
fn freed_gpus_are_used_at_the_next_round() {
    // One GPU: job 0 finishes at 100 s and frees it; job 1 starts at the next decision, 300 s.
    let (_, log, _) = run_jobs(
        exact(),
        1,
        1,
        "fifo",
        vec![job(0, 100.0, 1), job(0, 50.0, 1)],
    );
    assert_eq!(secs(rec(&log, 0).completion), Some(100.0));
    assert_eq!(secs(rec(&log, 1).first_start), Some(300.0));
    assert_eq!(secs(rec(&log, 1).completion), Some(350.0));
}

#[test]
fn preemption_cost_delays_a_resumed_job() {
    // 1 GPU, LAS. Job 0 (1000 s) runs from 0; job 1 (300 s) arrives at 300 with less service,
    // preempts it and finishes at 600. Job 0 resumes at 600 with 700 s left.
    let jobs = vec![job(0, 1000.0, 1), job(300, 300.0, 1)];
    let (_, log, _) = run_jobs(exact(), 1, 1, "las", jobs.clone());
    assert_eq!(secs(rec(&log, 1).completion), Some(600.0));
    assert_eq!(secs(rec(&log, 0).completion), Some(1300.0));
    assert_eq!(rec(&log, 0).preemptions, 1);
    let cfg = exact().with_preemption_cost(Time::from_secs(100));
    let (_, log, _) = run_jobs(cfg, 1, 1, "las", jobs);
    assert_eq!(
        secs(rec(&log, 0).completion),
        Some(1400.0),
        "100 s restoring before progress"
    );
}

#[test]
fn every_job_of_a_finite_trace_finishes() {
    let jobs: Vec<_> = (0..200u64)
        .map(|i| {
            job(
                i * 97 % 5000,
                100.0 + (i * 7919 % 9000) as f64,
                1 + (i % 4) as u32,
            )
        })
        .collect();
    for policy in ["fifo", "las", "srtf"] {
        let (out, log, _) = run_jobs(exact(), 4, 4, policy, jobs.clone());
        assert_eq!(out.arrived, 200);
        assert_eq!(out.completed, 200, "{policy}");
        for r in log.records() {
            let jct = r.jct().unwrap().as_secs_f64();
            assert!(
                jct >= r.work_s - 1e-3,
                "{policy}: job {:?} jct {jct} < work {}",
                r.id,
                r.work_s
            );
        }
        assert_eq!(
            out.end_time,
            log.records()
                .iter()
                .filter_map(|r| r.completion)
                .max()
                .unwrap()
        );
    }
}

#[test]
fn event_decisions_start_jobs_at_arrivals_and_completions() {
    // One GPU. Job 0 (100 s) arrives at 10 s, job 1 (50 s) at 20 s. With decisions each round
    // job 0 waits for the round at 300 s; with event decisions it starts on arrival, and job 1
    // starts the moment job 0 completes.
    let jobs = vec![job(10, 100.0, 1), job(20, 50.0, 1)];
    let (out, log, _) = run_jobs(exact(), 1, 1, "fifo", jobs.clone());
    assert_eq!(secs(rec(&log, 0).first_start), Some(300.0));
    assert_eq!(secs(rec(&log, 1).first_start), Some(600.0));
    assert_eq!(out.end_time, Time::from_secs(650));
    let events = exact().with_decide(blox_sim::Decide::Events);
    let (out, log, timeline) = run_jobs(events, 1, 1, "fifo", jobs);
    assert_eq!(secs(rec(&log, 0).first_start), Some(10.0));
    assert_eq!(secs(rec(&log, 0).completion), Some(110.0));
    assert_eq!(secs(rec(&log, 1).first_start), Some(110.0));
    assert_eq!(secs(rec(&log, 1).completion), Some(160.0));
    assert_eq!(out.end_time, Time::from_secs(160));
    // One decision at 0 (empty), one per arrival and one per completion that frees the GPU.
    let times: Vec<f64> = timeline.rounds().map(|s| s.time.as_secs_f64()).collect();
    assert_eq!(times, vec![0.0, 10.0, 20.0, 110.0]);
}

#[test]
fn event_decisions_keep_round_boundaries_while_jobs_wait() {
    // Two 1-GPU jobs on one GPU under LAS: while job 1 waits, decisions still happen at every
    // round boundary (300, 600, ...), where LAS may swap them, as well as at events.
    let jobs = vec![job(0, 1000.0, 1), job(5, 1000.0, 1)];
    let events = exact().with_decide(blox_sim::Decide::Events);
    let (_, _, timeline) = run_jobs(events, 1, 1, "las", jobs);
    let times: Vec<u64> = timeline.rounds().map(|s| s.time.as_millis()).collect();
    assert_eq!(&times[..3], &[0, 5_000, 300_000]);
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
}
