//! Example 1: a policy from its own crate (`my-blox-policy`, which depends on `blox-core` only)
//! run by blox-sim through generics, next to SRTF on the same multi-GPU workload.

use blox_admission::AcceptAll;
use blox_core::{ClusterSpec, ConstantSpeed, JobSpec, Pipeline, SchedulingPolicy, Time};
use blox_metrics::{JobLog, Summary};
use blox_placement::Scattered;
use blox_policies::Srtf;
use blox_sim::{JobList, SimConfig, Simulator};
use my_blox_policy::Srsf;

fn run<P: SchedulingPolicy>(policy: P, jobs: &[JobSpec]) -> Summary {
    let scheduler = Pipeline::new(AcceptAll, policy, Scattered::new());
    let mut sim = Simulator::new(
        SimConfig::new(blox_sim::Exact::new()),
        ClusterSpec::uniform(1, 4),
        scheduler,
        ConstantSpeed(1.0),
        JobLog::default(),
    );
    sim.run(&mut JobList::new(jobs.to_vec()))
        .expect("the run succeeds");
    Summary::compute(sim.sink(), None)
}

fn main() {
    // A long 1-GPU job and two short 4-GPU jobs: SRTF (remaining time) runs the long 1-GPU job
    // last only after the short ones are shorter in time; SRSF weighs GPUs, so a 4-GPU job of
    // 2,000 s (8,000 GPU-s) ranks behind a 1-GPU job of 5,000 s.
    let jobs = vec![
        JobSpec::new(Time::ZERO, 1, 5_000.0),
        JobSpec::new(Time::ZERO, 4, 2_000.0),
        JobSpec::new(Time::ZERO, 4, 2_100.0),
    ];
    let srsf = run(Srsf::default(), &jobs);
    let srtf = run(Srtf::default(), &jobs);
    println!(
        "{:<6} {:>12} {:>12}",
        "policy", "avg JCT (s)", "makespan (s)"
    );
    println!(
        "{:<6} {:>12.1} {:>12.1}",
        "srsf", srsf.avg_jct_s, srsf.makespan_s
    );
    println!(
        "{:<6} {:>12.1} {:>12.1}",
        "srtf", srtf.avg_jct_s, srtf.makespan_s
    );
    // SRTF: the 4-GPU jobs first (0-2,000 s, then 2,100-4,200 s: decisions are made every
    // 300 s), the 1-GPU job last (4,200-9,200 s).
    assert_eq!(srtf.avg_jct_s, (2_000.0 + 4_200.0 + 9_200.0) / 3.0);
    // SRSF: the 1-GPU job first (5,000 GPU-s < 8,000); the 4-GPU jobs wait for its GPU
    // (5,100-7,100 s and 7,200-9,300 s).
    assert_eq!(srsf.avg_jct_s, (5_000.0 + 7_100.0 + 9_300.0) / 3.0);
    println!("ok: the crate's policy runs through blox-sim and orders by GPU-time");
}
