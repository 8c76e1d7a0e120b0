//! Sia benchmark (`blox-sia`): `sia/round-64`, one round of Sia's simulator on Table 3's
//! 64-GPU heterogeneous cluster (every job stepped, then the Sia policy: goodput matrix,
//! integer program, placement) at the state its loop reaches after 2 simulated hours of philly
//! workload-1.
//!
//! The Sia artifact's data has no licence and is fetched, not shipped (docs/data.md):
//! `BLOX_SIA_DATA` names it. Without it the benchmark prints that it did not run, by name.

use blox_sia::{build_jobs, read_sia_workload, SiaApps, SiaCluster, SiaParams, SiaPolicy, SiaSim};
use criterion::{BatchSize, Criterion};
use std::path::PathBuf;
use std::time::Duration;

fn round(c: &mut Criterion, data: &std::path::Path) {
    let cluster = SiaCluster::default_64();
    let path = data.join("workloads/philly/workload-1.csv");
    let rows = read_sia_workload(&path).expect("philly workload-1 reads");
    let mut apps = SiaApps::new(data.join("traces"), cluster.clone());
    let jobs = build_jobs(&rows, &mut apps, false).expect("the jobs build");
    let policy = SiaPolicy::new(SiaParams::default(), &cluster, jobs.len());
    let mut sim = SiaSim::new(cluster, jobs, policy, 60);
    while sim.now < 7200 {
        sim.step().expect("the warm-up runs");
    }
    let mut group = c.benchmark_group("sia");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("round-64", |b| {
        b.iter_batched(
            || sim.clone(),
            |mut s| {
                s.step().expect("the round runs");
                s
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn main() {
    let Some(data) = std::env::var_os("BLOX_SIA_DATA").map(PathBuf::from) else {
        eprintln!("sia/round-64: NOT RUN (BLOX_SIA_DATA is unset; see docs/data.md)");
        return;
    };
    let mut c = Criterion::default().configure_from_args();
    round(&mut c, &data);
    c.final_summary();
}
