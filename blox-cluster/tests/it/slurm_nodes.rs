//! Slurm backend: a node set DRAIN with `scontrol` mid-run leaves placement (its jobs are
//! stopped and requeued), no job starts there while it is drained, every job completes exactly
//! once, and the node is used again once resumed. Gated on `BLOX_SLURM=1` like `slurm_e2e`.

use crate::common::{read_jobs_csv, serial, Server, TempDir};
use crate::slurm_e2e::{sh, NodeGuard, SlurmJobs};
use blox_cluster::{unix_ms, JobState, Store, StoredEvent};
use std::time::{Duration, Instant};

#[test]
fn a_drained_slurm_node_leaves_placement_and_returns() {
    if std::env::var("BLOX_SLURM").as_deref() != Ok("1") {
        eprintln!("slurm_nodes: skipped (set BLOX_SLURM=1 with ci/slurm-up.sh's cluster running)");
        return;
    }
    let _serial = serial();
    let dir = TempDir::new("slurm-nodes");
    let state = dir.0.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let _jobs = SlurmJobs(std::fs::canonicalize(&state).unwrap());
    let args = [
        "--backend",
        "slurm",
        "--round",
        "1",
        "--policy",
        "fifo",
        "--grace",
        "5",
        "--exit-when-done",
    ];
    let mut s = Server::start(&state, &args);
    // Twelve 2-GPU jobs of 3 s: eight run at once on 4 nodes of 4 GPUs, four queue.
    let mut ids: Vec<i64> = (0..12).map(|_| s.submit(2, 30, 0.1)).collect();
    let store = Store::open(&state.join("state.sqlite")).unwrap();
    let epoch = store.epoch().unwrap();
    let inventory: Vec<String> = s.call("GET", "/v1/nodes", None).json()["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap().to_string())
        .collect();

    // Drain the node of the first running job whose stub has started.
    let deadline = Instant::now() + Duration::from_secs(60);
    let node = loop {
        let jobs = s.call("GET", "/v1/jobs", None).json();
        let v = jobs["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["state"] == "running" && j["iterations"].as_u64() > Some(3))
            .cloned();
        if let Some(v) = v {
            break v["placement"][0]["node"].as_str().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "nothing ran; log: {}", s.log());
        std::thread::sleep(Duration::from_millis(100));
    };
    let k = inventory.iter().position(|n| *n == node).unwrap() as u32;
    let mut guard = NodeGuard(Some(node.clone()));
    sh(
        "scontrol",
        &[
            "update",
            &format!("nodename={node}"),
            "state=drain",
            "reason=blox-test",
        ],
    )
    .unwrap();
    let drained = unix_ms() - epoch;
    std::thread::sleep(Duration::from_secs(6));
    sh(
        "scontrol",
        &["update", &format!("nodename={node}"), "state=resume"],
    )
    .unwrap();
    guard.0 = None;
    let resumed = unix_ms() - epoch;
    // Eight more 2-GPU jobs want every GPU: the resumed node must take some.
    ids.extend((0..8).map(|_| s.submit(2, 30, 0.1)));
    s.wait_exit(Duration::from_secs(180));

    let rows = store.jobs().unwrap();
    assert_eq!(rows.len(), ids.len());
    for r in &rows {
        assert_eq!(r.state, JobState::Completed, "job {}: {:?}", r.id, r.run);
        assert_eq!(r.run.iterations, 30, "job {}", r.id);
    }
    let events = store.events().unwrap();
    let completed = events
        .iter()
        .filter(|e| matches!(e, StoredEvent::Completed { .. }))
        .count();
    assert_eq!(completed, ids.len(), "each job completed exactly once");
    let csv = read_jobs_csv(&state.join("out/jobs.csv"));
    assert!(csv.iter().all(|r| r.completion_s.is_some()), "{csv:?}");
    // 4 GPUs a node, in inventory order: GPU g is on node g / 4.
    let on_node = |g: &[u32]| g.iter().any(|&x| x / 4 == k);
    let starts: Vec<(u64, Vec<u32>)> = events
        .into_iter()
        .filter_map(|e| match e {
            StoredEvent::Started { t, gpus, .. } => Some((t, gpus)),
            _ => None,
        })
        .collect();
    for (t, g) in &starts {
        // One round (and one sinfo) after the drain until the resume.
        if *t > drained + 1500 && *t < resumed {
            assert!(
                !on_node(g),
                "a start on {node} at {t} ms while drained: {g:?}"
            );
        }
    }
    assert!(
        starts.iter().any(|(t, g)| *t >= resumed && on_node(g)),
        "{node} was not used again after its resume: {starts:?}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cluster"]["node_events"], 2, "{summary}");
    // The job on the node when Slurm drained it was stopped: Slurm's DRAIN is read from sinfo
    // as the node leaving with its jobs (a failure hit); a start whose GPUs were still being
    // freed counts as a preemption. Which of the two a run shows depends on timing.
    let hit = summary["run"]["preemptions"].as_u64().unwrap()
        + summary["run"]["failures_hit"].as_u64().unwrap();
    assert!(hit >= 1, "{summary}");
}
