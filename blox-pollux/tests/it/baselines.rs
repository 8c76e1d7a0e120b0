//! The artifact's Tiresias and Optimus reproduce the published per-job JCTs exactly.

use blox_pollux::{
    build_jobs, read_workload, Applications, JobSetup, Optimus, PolluxSim, RoundPolicy, SimConfig,
    Tiresias,
};

/// Per-job `(name, JCT)`, sorted by name.
type Jcts = Vec<(String, i64)>;

fn run(w: u32, policy: &str) -> Option<(Jcts, Jcts)> {
    let dir = crate::pollux_dir()?;
    let wl = dir.join(format!("workloads/workload-{w}.csv"));
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
    let want = crate::published(&dir.join("results-jobload"), &format!("{policy}-1.0"), w);
    Some((got, want))
}

fn check(w: u32, policy: &str) {
    let Some((got, want)) = run(w, policy) else {
        return;
    };
    assert_eq!(got.len(), 160);
    let diff: Vec<_> = got.iter().zip(&want).filter(|(a, b)| a != b).collect();
    assert!(
        diff.is_empty(),
        "{policy} workload-{w}: {} jobs differ, e.g. {:?}",
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
