//! Pollux benchmarks (`blox-pollux`), on the artifact's workload 6 (160 jobs) on 16x4 GPUs,
//! read from the repository's `traces/pollux` (or `$BLOX_TRACES/pollux`):
//!
//! - `pollux/ga-round`: one decision of the Pollux policy (agent fits, then the genetic search
//!   over 16 nodes) at the state the artifact's loop reaches after 2 simulated hours; the
//!   bulk of a `--semantics pollux --policy pollux` run's CPU time.
//! - `pollux/fit`: one fit of the agent's throughput model (scipy's L-BFGS-B as the artifact
//!   calls it, POLLUX-SEMANTICS §5.1, unmemoised) to the longest profile a job has at that
//!   state; the agent's share of a run under the Pollux policy.
//! - `pollux/tiresias-run`: the whole workload under the artifact's Tiresias+TunedJobs baseline
//!   through the self-contained loop (`PolluxSim`): the job model's cost alone.
//!
//! Without the data (a `$BLOX_TRACES` that lacks it) the benchmarks fail, naming the path.

use blox_core::Seed;
use blox_pollux::goodput::fit_perf_params;
use blox_pollux::{
    build_jobs, read_workload, Applications, JobSetup, PolluxJob, PolluxPolicy, PolluxPolicyConfig,
    PolluxSim, RoundPolicy, SimConfig, Tiresias,
};
use criterion::{BatchSize, Criterion};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

/// The Pollux artifact's folder; panics naming the path if workload 6 is missing there.
fn pollux_dir() -> PathBuf {
    let base = std::env::var_os("BLOX_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")));
    let dir = base.join("pollux");
    let w6 = dir.join("workloads/workload-6.csv");
    assert!(
        w6.is_file(),
        "pollux benchmarks: trace file {} is missing (BLOX_TRACES={:?})",
        w6.display(),
        std::env::var_os("BLOX_TRACES")
    );
    dir
}

/// Workload 6's jobs for `setup`.
fn jobs(dir: &std::path::Path, setup: JobSetup) -> Vec<PolluxJob> {
    let path = dir.join("workloads/workload-6.csv");
    let rows = read_workload(&path).expect("workload 6 reads");
    let mut apps = Applications::new(dir.join("traces"));
    build_jobs(&path, &rows, &mut apps, setup).expect("workload 6 builds")
}

fn config() -> SimConfig {
    let mut c = SimConfig::default();
    c.seed = Seed(1);
    c
}

fn pollux(c: &mut Criterion, dir: &std::path::Path) {
    // Run the artifact's loop to 2 h, then time one decision from that state.
    let mut sim = PolluxSim::new(jobs(dir, JobSetup::Adaptive), config());
    let mut policy = PolluxPolicy::new(PolluxPolicyConfig::default());
    while sim.now < 7200 {
        sim.step(&mut policy).expect("the warm-up runs");
    }
    let (state, allocations, now, round) = (
        sim.jobs.clone(),
        sim.allocations.clone(),
        sim.now,
        sim.round,
    );
    let profile = state
        .iter()
        .map(|j| &j.profile)
        .max_by_key(|p| p.len())
        .expect("workload 6 has jobs")
        .clone();
    let mut group = c.benchmark_group("pollux");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("ga-round", |b| {
        b.iter_batched(
            || {
                let mut s = PolluxSim::new(state.clone(), config());
                s.allocations = allocations.clone();
                s.now = now;
                s.round = round;
                (s, PolluxPolicy::new(PolluxPolicyConfig::default()))
            },
            |(mut s, mut p)| {
                s.step(&mut p).expect("the round runs");
                black_box(s.allocations.len())
            },
            BatchSize::LargeInput,
        );
    });
    group.bench_function("fit", |b| {
        b.iter(|| black_box(fit_perf_params(black_box(&profile))));
    });
    let tiresias_jobs = jobs(dir, JobSetup::TunedGang);
    group.bench_function("tiresias-run", |b| {
        b.iter_batched(
            || {
                (
                    PolluxSim::new(tiresias_jobs.clone(), config()),
                    Tiresias::new(),
                )
            },
            |(mut s, mut p)| {
                let out = s
                    .run(&mut p as &mut dyn RoundPolicy, 100_000)
                    .expect("the run completes");
                black_box(out.len())
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, without the undocumented `pub fn` the
// macro generates (the workspace warns on missing docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    pollux(&mut c, &pollux_dir());
    c.final_summary();
}
