//! End-to-end simulator benchmarks: whole runs of Blox's default workload.
//!
//! - `engine/readme`: Blox's README configuration (LAS, load 1.0 jobs/h, N = 12,000, jobs
//!   3000..4000 tracked, `blox` semantics, 32x4 GPUs, constant speed 1.0, no metric sink).
//!   Throughput is in simulated rounds (idle rounds included: the engine skips them, Blox's
//!   loop does not).
//! - `engine/las-load8`: LAS at load 8 with jobs 100..300 tracked, `blox` semantics: an
//!   overloaded cluster with heavy preemption and a job table in the thousands.
//! - `dispatch/{static,boxed}`: the README run through `Pipeline<AcceptAll, Las, Scattered>` and
//!   through the boxed pipeline the configuration enums build (`BoxPipeline`).
//! - `scaling/{10000,100000}`: the engine's scale series (`blox-sim bench`) at two sizes:
//!   Poisson jobs (Philly-like durations and GPU counts, streamed), FIFO, scattered, `exact`
//!   semantics, constant speed, on a cluster grown with the jobs (per 10,000 jobs 20 nodes of 8
//!   GPUs and 6 jobs/h, so both runs span the same ~22,000 rounds). Throughput is in jobs: a
//!   linear engine does both at the same rate, so a cost that grows faster than the job count
//!   shows as the 100,000-job rate falling behind the 10,000-job one.
//!
//! Each iteration builds a fresh simulator and a fresh copy of the workload (outside the timed
//! part), so iterations are independent and identical.

use blox_admission::{AcceptAll, AdmissionConfig};
use blox_core::{BoxPipeline, ClusterSpec, ConstantSpeed, Pipeline, Scheduler};
use blox_original::{Blox, BloxDefaultWorkload, BloxLas, BloxScattered};
use blox_placement::Scattered;
use blox_policies::Fifo;
use blox_sim::{Exact, JobStream, RunOutcome, SimConfig, Simulator, TrackWindow};
use blox_workload::{PoissonConfig, PoissonGenerator};
use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// A benchmark case: Blox's default workload at `load` (N = 12,000) with `track` tracked, on
/// 32x4 GPUs in `blox` semantics.
struct Case {
    track: TrackWindow,
    workload: BloxDefaultWorkload,
}

impl Case {
    fn new(load: f64, first: u32, last: u32) -> Case {
        Case {
            track: TrackWindow::new(first, last).expect("valid window"),
            workload: BloxDefaultWorkload::new(load, 12_000).expect("valid load"),
        }
    }

    /// A fresh simulator and workload, ready to run.
    fn setup<S: Scheduler>(
        &self,
        scheduler: S,
    ) -> (Simulator<S, ConstantSpeed, (), Blox>, BloxDefaultWorkload) {
        let cfg = SimConfig::new(Blox::new()).with_track(Some(self.track));
        let sim = Simulator::new(
            cfg,
            ClusterSpec::uniform(32, 4),
            scheduler,
            ConstantSpeed(1.0),
            (),
        );
        (sim, self.workload.clone())
    }

    fn run<S: Scheduler>(&self, scheduler: S) -> RunOutcome {
        let (mut sim, mut workload) = self.setup(scheduler);
        sim.run(&mut workload).expect("the run succeeds")
    }
}

fn las() -> Pipeline<AcceptAll, BloxLas, BloxScattered> {
    Pipeline::new(AcceptAll, BloxLas::default(), BloxScattered::new())
}

/// Time whole runs of `make()`'s scheduler on `case`.
fn bench_run<S: Scheduler>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    case: &Case,
    make: impl Fn() -> S,
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            || case.setup(make()),
            // Returning the simulator and workload drops them outside the timing.
            |(mut sim, mut workload)| {
                let outcome = sim.run(&mut workload).expect("the run succeeds");
                (black_box(outcome), sim, workload)
            },
            BatchSize::PerIteration,
        );
    });
}

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    group.warm_up_time(Duration::from_secs(1));

    let readme = Case::new(1.0, 3000, 4000);
    let outcome = readme.run(las());
    assert!(outcome.completed >= readme.track.len());
    eprintln!(
        "engine/readme: {} rounds ({} processed), {} jobs admitted, {} preemptions",
        outcome.rounds, outcome.rounds_processed, outcome.admitted, outcome.preemptions
    );
    group
        .throughput(Throughput::Elements(outcome.rounds))
        .sample_size(20)
        .measurement_time(Duration::from_secs(5));
    bench_run(&mut group, "readme", &readme, las);

    // About a second per run: ten flat samples of one run each.
    let overload = Case::new(8.0, 100, 300);
    let outcome = overload.run(las());
    assert!(outcome.completed >= overload.track.len());
    eprintln!(
        "engine/las-load8: {} rounds ({} processed), {} jobs admitted, {} preemptions",
        outcome.rounds, outcome.rounds_processed, outcome.admitted, outcome.preemptions
    );
    group
        .throughput(Throughput::Elements(outcome.rounds))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(10));
    bench_run(&mut group, "las-load8", &overload, las);
    group.finish();
}

/// The README run, static and boxed. Its job table stays small, so the scheduler calls are
/// cheap and any cost of dynamic dispatch would show.
fn dispatch(c: &mut Criterion) {
    let case = Case::new(1.0, 3000, 4000);
    let boxed = || -> BoxPipeline {
        Pipeline::new(
            AdmissionConfig::AcceptAll.build().expect("builds"),
            Box::new(BloxLas::default()),
            Box::new(BloxScattered::new()),
        )
    };
    // Both forms must do the same work for the comparison to mean anything.
    let outcome = case.run(las());
    assert_eq!(outcome, case.run(boxed()));

    let mut group = c.benchmark_group("dispatch");
    group
        .throughput(Throughput::Elements(outcome.rounds))
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    bench_run(&mut group, "static", &case, las);
    bench_run(&mut group, "boxed", &case, boxed);
    group.finish();
}

/// The scale series' simulator: FIFO, scattered, exact semantics, no metric sink.
type ScalingSim = Simulator<Pipeline<AcceptAll, Fifo, Scattered>, ConstantSpeed, (), Exact>;

/// The scale series' configuration at `jobs` jobs: a fresh simulator and streamed workload.
fn scaling_case(jobs: u32) -> (ScalingSim, JobStream<PoissonGenerator>) {
    let per = jobs / 10_000;
    let cluster = ClusterSpec::uniform(20 * per, 8);
    let mut cfg = PoissonConfig::new(6.0 * f64::from(per));
    cfg.gpus = blox_workload::GpuDist::philly_up_to(cluster.total_gpus());
    let r#gen = PoissonGenerator::new(cfg, blox_core::Seed(1)).expect("valid generator");
    let sim = Simulator::new(
        SimConfig::new(Exact::new()),
        cluster,
        Pipeline::new(AcceptAll, Fifo::default(), Scattered::new()),
        ConstantSpeed(1.0),
        (),
    );
    (sim, JobStream::new(r#gen, jobs as usize))
}

/// Engine scaling: the same load and span at 10,000 and 100,000 jobs (see the module docs).
fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    group
        .warm_up_time(Duration::from_secs(1))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat);
    for jobs in [10_000u32, 100_000] {
        let (mut sim, mut workload) = scaling_case(jobs);
        let outcome = sim.run(&mut workload).expect("the run succeeds");
        assert_eq!(outcome.completed, u64::from(jobs));
        eprintln!(
            "scaling/{jobs}: {} rounds ({} processed)",
            outcome.rounds, outcome.rounds_processed
        );
        group
            .throughput(Throughput::Elements(u64::from(jobs)))
            .measurement_time(Duration::from_secs(if jobs > 10_000 { 20 } else { 5 }));
        group.bench_function(jobs.to_string(), |b| {
            b.iter_batched(
                || scaling_case(jobs),
                |(mut sim, mut workload)| {
                    let outcome = sim.run(&mut workload).expect("the run succeeds");
                    (black_box(outcome), sim, workload)
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, without the undocumented `pub fn` the
// macro generates (the workspace warns on missing docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    engine(&mut c);
    dispatch(&mut c);
    scaling(&mut c);
    c.final_summary();
}
