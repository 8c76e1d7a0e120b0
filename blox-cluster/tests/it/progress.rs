//! Real mode makes progress under every stock policy at its documented settings: a launch is
//! never preempted before its lease (`--min-run`, one round by default) has run, and attained
//! service is the progress the job reported, not the wall time since its process was spawned.
//!
//! Every assertion is about what the server decided and recorded, never about how fast the
//! machine ran the jobs: the lease is checked on the server's own event times (a preemption at
//! least `--min-run` after the launch it stops), service against the iterations the job did.

use crate::common::{attempts, live_job_groups, serial, Server, TempDir};
use blox_cluster::{JobState, Store, StoredEvent};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// What a finished real run recorded, checked.
struct Checked {
    preemptions: u64,
    max_launches: u32,
}

/// Check a finished run of `n` jobs (0.1 s per iteration) with lease `min_run_ms`: every job
/// completed exactly once with all its iterations; every preemption came at least the lease
/// after the launch it stopped; every later attempt resumed past where the one before started
/// (no attempt was stopped before doing any work); attained service is the work done. The
/// figures are printed before anything is asserted, so a failing run still shows them.
fn check(label: &str, state: &Path, n: usize, min_run_ms: u64) -> Checked {
    let store = Store::open(&state.join("state.sqlite")).unwrap();
    let rows = store.jobs().unwrap();
    let mut launched: BTreeMap<u32, u64> = BTreeMap::new();
    let mut completed: BTreeMap<u32, u32> = BTreeMap::new();
    let mut preemptions = 0;
    let mut early = Vec::new();
    for e in store.events().unwrap() {
        match e {
            StoredEvent::Started { t, job, .. } => {
                launched.insert(job, t);
            }
            StoredEvent::Preempted { t, job } => {
                preemptions += 1;
                // A placement stopped before its launch (its GPUs were still draining) stops no
                // process: no lease applies to it.
                if let Some(from) = launched.remove(&job) {
                    if t - from < min_run_ms {
                        early.push((job, t - from));
                    }
                }
            }
            StoredEvent::Completed { job, .. } => *completed.entry(job).or_default() += 1,
            _ => {}
        }
    }
    let max_launches = rows.iter().map(|r| r.run.launches).max().unwrap_or(0);
    let done = rows
        .iter()
        .filter(|r| r.state == JobState::Completed)
        .count();
    eprintln!(
        "progress: {label}: {done}/{} completed, {preemptions} preemptions ({} within the \
         {min_run_ms} ms lease), at most {max_launches} launches per job",
        rows.len(),
        early.len()
    );
    assert_eq!(rows.len(), n, "{label}");
    assert_eq!(completed.len(), n, "{label}: {completed:?}");
    assert!(
        completed.values().all(|&c| c == 1),
        "{label}: a job completed twice: {completed:?}"
    );
    assert!(
        early.is_empty(),
        "{label}: (job, ms after its launch) preempted within the lease: {early:?}"
    );
    for r in &rows {
        assert_eq!(
            r.state,
            JobState::Completed,
            "{label}: job {}: {:?}",
            r.id,
            r.run
        );
        let total = r.submission.total_iterations.unwrap();
        assert_eq!(r.run.iterations, total, "{label}: job {}", r.id);
        let id = r.run.blox_id.unwrap();
        let a = attempts(state, id);
        assert_eq!(a.len() as u32, r.run.launches, "{label}: job {id}: {a:?}");
        for w in a.windows(2) {
            assert!(
                w[1]["start"].as_u64() > w[0]["start"].as_u64(),
                "{label}: job {id}: an attempt was stopped before it did any work: {a:?}"
            );
        }
        // Service is the progress reported: the job's nominal work on its GPUs, exactly; wall
        // time since launch (which counts process start-up) would be more.
        let work = f64::from(r.submission.n_gpus) * total as f64 * 0.1;
        assert!(
            (r.run.attained - work).abs() <= 1e-6 * work,
            "{label}: job {id}: attained {} GPU-s for {work} GPU-s of work",
            r.run.attained
        );
    }
    assert!(live_job_groups(state).is_empty(), "{label}: a job is left");
    Checked {
        preemptions,
        max_launches,
    }
}

/// The README's configuration (`serve --nodes 2x2 --round 2 --policy las`, every other flag at
/// its default but `--grace`), with 20 short jobs: LAS's round robin used to preempt every
/// launch at the next round, however little of it had run.
#[test]
fn las_at_the_readme_configuration_finishes_every_job_with_bounded_preemptions() {
    let _serial = serial();
    let dir = TempDir::new("progress-las");
    let state = dir.0.join("state");
    let args = [
        "--nodes",
        "2x2",
        "--round",
        "2",
        "--policy",
        "las",
        "--grace",
        "5",
        "--exit-when-done",
    ];
    let mut s = Server::start(&state, &args);
    let jobs: Vec<(u32, u64)> = (0..20u64)
        .map(|i| (if i % 3 == 1 { 2 } else { 1 }, 15 + (i * 7) % 26))
        .collect();
    for &(g, n) in &jobs {
        s.submit(g, n, 0.1);
    }
    s.wait_exit(Duration::from_secs(300));
    let c = check("LAS, 20 jobs", &state, jobs.len(), 2000);
    // LAS wanted the first launches' GPUs back at the next round (the jobs waiting had no
    // service yet), within the launches' leases: the leases kept them running.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("out/summary.json")).unwrap())
            .unwrap();
    let kept = summary["run"]["lease_kept"].as_u64();
    eprintln!("progress: LAS, 20 jobs: {kept:?} stops deferred by leases");
    assert!(kept > Some(0), "no lease ever deferred a stop: {summary}");
    // Loose sanity bounds, far from what a lease allows (each job has at most 4 s of nominal
    // work, and a preempted launch first worked a whole 2 s lease): the machine-independent
    // bound is the lease itself, checked on every preemption above.
    assert!(
        c.max_launches <= 8,
        "a job was launched {} times",
        c.max_launches
    );
    assert!(
        c.preemptions <= 2 * jobs.len() as u64,
        "{} preemptions of {} jobs",
        c.preemptions,
        jobs.len()
    );
}

/// Every stock policy, with eight jobs each (more than the 4 GPUs hold, so the preemptive
/// policies preempt), at the documented defaults (`--round 2`, lease one
/// round). The servers run side by side: nothing here depends on timing.
#[test]
fn every_stock_policy_finishes_every_job_and_respects_the_lease() {
    let _serial = serial();
    let policies = [
        "fifo", "las", "srtf", "sjf", "tiresias", "gavel", "themis", "ftf", "optimus",
    ];
    let jobs: [(u32, u64); 8] = [
        (1, 30),
        (2, 20),
        (1, 40),
        (2, 25),
        (1, 15),
        (1, 35),
        (2, 10),
        (1, 20),
    ];
    let dirs: Vec<TempDir> = policies
        .iter()
        .map(|p| TempDir::new(&format!("progress-{p}")))
        .collect();
    let mut servers: Vec<Server> = policies
        .iter()
        .zip(&dirs)
        .map(|(p, d)| {
            let s = Server::start(
                &d.0.join("state"),
                &[
                    "--nodes",
                    "2x2",
                    "--round",
                    "2",
                    "--policy",
                    p,
                    "--grace",
                    "5",
                    "--exit-when-done",
                ],
            );
            for &(g, n) in &jobs {
                s.submit(g, n, 0.1);
            }
            s
        })
        .collect();
    for s in &mut servers {
        s.wait_exit(Duration::from_secs(300));
    }
    for (p, d) in policies.iter().zip(&dirs) {
        check(p, &d.0.join("state"), jobs.len(), 2000);
    }
}

/// A bad lease is refused with the flag named (a negative number included, which the argument
/// parser would otherwise take for an unknown flag).
#[test]
fn a_bad_min_run_is_refused_naming_the_flag() {
    let dir = TempDir::new("progress-flag");
    for (value, says) in [("-1", "--min-run `-1`"), ("abc", "--min-run")] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox-cluster"))
            .arg("serve")
            .arg("--state")
            .arg(dir.0.join("state"))
            .args(["--listen", "127.0.0.1:0", "--min-run", value])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{value}: {err}");
        assert!(err.contains(says), "{value}: {err}");
    }
}
