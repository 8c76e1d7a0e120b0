//! Local backend: a node removed mid-run (its launches killed at once) and later added back.
//! No job is lost or run twice, none starts on the node while it is out, and it is used again.

use crate::common::{live_job_groups, read_jobs_csv, serial, Server, TempDir};
use blox_cluster::{unix_ms, JobState, Store, StoredEvent};
use std::time::{Duration, Instant};

#[test]
fn a_removed_node_loses_no_job_and_is_used_again_when_added() {
    let _serial = serial();
    let dir = TempDir::new("nodes");
    let state = dir.0.join("state");
    let args = [
        "--nodes",
        "2x2",
        "--round",
        "1",
        "--policy",
        "fifo",
        "--grace",
        "5",
        "--exit-when-done",
    ];
    let mut s = Server::start(&state, &args);
    // Ten 1-GPU jobs of 3 s each: four run at once, the rest queue.
    let ids: Vec<i64> = (0..10).map(|_| s.submit(1, 30, 0.1)).collect();
    let store = Store::open(&state.join("state.sqlite")).unwrap();
    let epoch = store.epoch().unwrap();

    // Wait until node n0 (GPUs 0 and 1) runs a job, then remove it.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let nodes = s.call("GET", "/v1/nodes", None).json();
        let busy = nodes["nodes"][0]["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["job"]["state"] == "running");
        if busy {
            break;
        }
        assert!(Instant::now() < deadline, "nothing ran on n0: {nodes}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = s.call("POST", "/v1/nodes/n0/remove", None);
    assert_eq!(r.status, 202, "{}", r.body);
    let removed = unix_ms() - epoch;
    assert_eq!(s.call("POST", "/v1/nodes/n9/remove", None).status, 404);
    assert_eq!(s.call("POST", "/v1/nodes/n0/explode", None).status, 400);
    std::thread::sleep(Duration::from_secs(4));
    let r = s.call("POST", "/v1/nodes/n0/add", None);
    assert_eq!(r.status, 202, "{}", r.body);
    let added = unix_ms() - epoch;
    s.wait_exit(Duration::from_secs(120));

    // Every job completed once, with all its iterations.
    let rows = store.jobs().unwrap();
    assert_eq!(rows.len(), ids.len());
    for r in &rows {
        assert_eq!(r.state, JobState::Completed, "job {}: {:?}", r.id, r.run);
        assert_eq!(r.run.iterations, 30, "job {}", r.id);
    }
    let csv = read_jobs_csv(&state.join("out/jobs.csv"));
    assert_eq!(csv.len(), ids.len());
    assert!(csv.iter().all(|r| r.completion_s.is_some()), "{csv:?}");
    let completed = store
        .events()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, StoredEvent::Completed { .. }))
        .count();
    assert_eq!(completed, ids.len(), "each job completed exactly once");

    // No start on n0 from the round after the removal until it was added back; one after.
    let starts: Vec<(u64, Vec<u32>)> = store
        .events()
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            StoredEvent::Started { t, gpus, .. } => Some((t, gpus)),
            _ => None,
        })
        .collect();
    let on_n0 = |g: &Vec<u32>| g.iter().any(|&x| x < 2);
    for (t, g) in &starts {
        if *t > removed + 1000 && *t < added {
            assert!(!on_n0(g), "a start on n0 at {t} ms while it was out: {g:?}");
        }
    }
    assert!(
        starts.iter().any(|(t, g)| *t >= added && on_n0(g)),
        "n0 was not used again after it was added: {starts:?}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cluster"]["node_events"], 2, "{summary}");
    assert!(
        summary["run"]["failures_hit"].as_u64().unwrap() >= 1,
        "{summary}"
    );
    let timeline = std::fs::read_to_string(state.join("out/timeline.csv")).unwrap();
    assert!(timeline
        .lines()
        .next()
        .unwrap()
        .ends_with(",available_gpus"));
    assert!(
        timeline.lines().any(|l| l.ends_with(",2")),
        "2 GPUs in service at some round"
    );
    assert!(live_job_groups(&state).is_empty(), "no job process is left");
}
