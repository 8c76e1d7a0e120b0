//! The artifact's Tiresias and Optimus reproduce the published per-job JCTs exactly.

use blox_pollux::{
    build_jobs, read_workload, Applications, JobSetup, Optimus, PolluxSim, RoundPolicy, SimConfig,
    Tiresias,
};

/// Per-job `(name, JCT)`, sorted by name.
type Jcts = Vec<(String, i64)>;

/// Workload `w` at job load `load` (`0.5`, `1.0`, `1.5` or `2.0`: the `workloads-LOAD` folder,
/// `workloads` for 1.0) under `policy`, and the published per-job JCTs.
fn run_at(w: u32, policy: &str, load: &str) -> (Jcts, Jcts) {
    let dir = crate::pollux_dir();
    let folder = match load {
        "1.0" => "workloads".to_string(),
        l => format!("workloads-{l}"),
    };
    let wl = dir.join(format!("{folder}/workload-{w}.csv"));
    let rows = read_workload(&wl).unwrap();
    let mut apps = Applications::new(dir.join("traces"));
    let (setup, mut p): (JobSetup, Box<dyn RoundPolicy>) = match policy {
        "tiresias" => (JobSetup::TunedGang, Box::new(Tiresias::new())),
        _ => (JobSetup::TunedBatch, Box::new(Optimus)),
    };
    let jobs = build_jobs(&wl, &rows, &mut apps, setup).unwrap();
    let mut sim = PolluxSim::new(jobs, SimConfig::default());
    let mut got: Vec<(String, i64)> = sim
        .run(&mut p, 1_000_000)
        .unwrap()
        .iter()
        .map(|o| (o.name.clone(), o.jct()))
        .collect();
    got.sort();
    let want = crate::published(&dir.join("results-jobload"), &format!("{policy}-{load}"), w);
    (got, want)
}

fn check(w: u32, policy: &str) {
    check_at(w, policy, "1.0", 160);
}

fn check_at(w: u32, policy: &str, load: &str, jobs: usize) {
    let (got, want) = run_at(w, policy, load);
    assert_eq!(got.len(), jobs);
    assert_eq!(want.len(), jobs);
    let diff: Vec<_> = got.iter().zip(&want).filter(|(a, b)| a != b).collect();
    assert!(
        diff.is_empty(),
        "{policy} workload-{w} at load {load}: {} jobs differ, e.g. {:?}",
        diff.len(),
        &diff[..diff.len().min(5)]
    );
}

#[test]
fn tiresias_reproduces_workload_6_per_job() {
    check(6, "tiresias");
}

#[test]
fn optimus_reproduces_workload_6_per_job() {
    check(6, "optimus");
}

#[test]
fn tiresias_reproduces_workloads_2_and_7_per_job() {
    check(2, "tiresias");
    check(7, "tiresias");
}

#[test]
fn optimus_reproduces_workloads_2_and_7_per_job() {
    // Workload 2 has the most jobs whose Optimus decisions go through the 3-D interpolation.
    check(2, "optimus");
    check(7, "optimus");
}

#[test]
fn both_baselines_reproduce_every_job_at_every_published_load() {
    // Figure 8a's other loads: 80, 240 and 320 jobs per workload, all 8 workloads.
    for (load, jobs) in [("0.5", 80), ("1.5", 240), ("2.0", 320)] {
        for w in 1..=8 {
            check_at(w, "tiresias", load, jobs);
            check_at(w, "optimus", load, jobs);
        }
    }
}
