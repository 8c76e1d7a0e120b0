//! Local backend end to end: 8 stub jobs on 2 fake nodes x 2 GPUs, LAS, 2-second rounds, a
//! server crash and restart in the middle.

use crate::common::{
    attempts, live_job_groups, read_jobs_csv, resumes_from_checkpoint, serial, Server, TempDir,
};
use blox_cluster::{JobState, Store};
use std::time::{Duration, Instant};

/// (GPUs, iterations) of the 8 jobs; 0.1 s per iteration.
pub(crate) const JOBS: [(u32, u64); 8] = [
    (1, 40),
    (2, 30),
    (1, 50),
    (1, 30),
    (2, 40),
    (1, 60),
    (2, 30),
    (1, 40),
];

#[test]
fn local_backend_preempts_resumes_and_survives_a_restart() {
    let _serial = serial();
    let t0 = Instant::now();
    let dir = TempDir::new("e2e");
    let state = dir.0.join("state");
    // A lease (`--min-run`) shorter than the default round: these jobs run 3 to 6 s, and a
    // preemption after a whole round of work would often come as the job is finishing, leaving
    // nothing to resume. Leases themselves are tested in `progress`.
    let args = [
        "--nodes",
        "2x2",
        "--round",
        "2",
        "--policy",
        "las",
        "--grace",
        "5",
        "--min-run",
        "1",
        "--exit-when-done",
    ];
    let mut s = Server::start(&state, &args);
    let ids: Vec<i64> = JOBS.iter().map(|&(g, n)| s.submit(g, n, 0.1)).collect();
    assert_eq!(ids.len(), 8);

    // Crash the server once a preemption has happened and some jobs still run.
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let jobs = s.call("GET", "/v1/jobs", None).json();
        let jobs = jobs["jobs"].as_array().unwrap().clone();
        let preempted = jobs.iter().any(|j| j["preemptions"].as_u64() > Some(0));
        let running = jobs.iter().filter(|j| j["state"] == "running").count();
        if preempted && running > 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no preemption happened: {jobs:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    s.crash();
    // Jobs run on without a server for a moment.
    std::thread::sleep(Duration::from_millis(1500));
    let mut s = Server::start(&state, &args);
    s.wait_exit(Duration::from_secs(120));

    // No job lost: every submission completed, exactly once, in the database and in jobs.csv.
    let store = Store::open(&state.join("state.sqlite")).unwrap();
    let rows = store.jobs().unwrap();
    assert_eq!(rows.len(), 8);
    for r in &rows {
        assert_eq!(r.state, JobState::Completed, "job {}: {:?}", r.id, r.run);
        assert_eq!(
            r.run.iterations,
            r.submission.total_iterations.unwrap(),
            "job {}",
            r.id
        );
    }
    let csv = read_jobs_csv(&state.join("out/jobs.csv"));
    assert_eq!(csv.len(), 8);
    assert!(csv.iter().all(|r| r.completion_s.is_some()), "{csv:?}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["n_tracked"], 8);
    assert!(
        summary["run"]["adopted"].as_u64().unwrap() > 0,
        "the restart adopted running jobs: {summary}"
    );
    let timeline = std::fs::read_to_string(state.join("out/timeline.csv")).unwrap();
    assert!(timeline.lines().count() > 5);

    // Preemptions happened, and preempted jobs resumed from their checkpoint.
    let preempted: Vec<_> = csv.iter().filter(|r| r.preemptions > 0).collect();
    assert!(!preempted.is_empty(), "LAS preempted nobody: {csv:?}");
    let mut resumed_from_checkpoint = 0;
    for r in &csv {
        let a = attempts(&state, r.id);
        assert!(!a.is_empty(), "job {} never started", r.id);
        // The contract each attempt saw.
        for at in &a {
            let env = &at["env"];
            assert_eq!(env["job_id"], r.id.to_string());
            assert_eq!(env["world_size"], r.n_gpus.to_string());
            assert_eq!(env["dist_rank"], "0");
            assert_eq!(env["CUDA_VISIBLE_DEVICES"], env["local_accessible_gpus"]);
            assert!(
                env["BLOX_RDZV_PORT"]
                    .as_str()
                    .unwrap()
                    .parse::<u16>()
                    .unwrap()
                    > 0
            );
            let visible = env["CUDA_VISIBLE_DEVICES"]
                .as_str()
                .unwrap()
                .split(',')
                .count() as u32;
            assert!(visible <= r.n_gpus);
        }
        resumed_from_checkpoint += resumes_from_checkpoint(r.id, &a);
    }
    assert!(
        resumed_from_checkpoint > 0,
        "no job resumed from a checkpoint"
    );
    assert!(live_job_groups(&state).is_empty(), "no job process is left");
    eprintln!(
        "e2e: {} preemptions over {} jobs, {} resumes from a checkpoint, {:.1} s",
        csv.iter().map(|r| r.preemptions).sum::<u32>(),
        preempted.len(),
        resumed_from_checkpoint,
        t0.elapsed().as_secs_f64()
    );
}
