//! # blox-runner
//!
//! The engine and the peers' simulations instantiated over the concrete types that the
//! `blox-sim` command line, the Python package and real mode run (through `blox-scenario`),
//! behind **non-generic** functions.
//!
//! Why a crate of its own: a generic function is compiled and optimised in the crate that
//! instantiates it, and an optimised crate does not share its instances with the crates that use
//! it. With the simulations' hot loops instantiated here (at `-O3`, in four codegen units),
//! `blox-scenario` itself (scenario files, serde, orchestration: no hot loop) is compiled with
//! little optimisation, which is most of a cold release build's time saved.
//!
//! | function | the run it holds |
//! |---|---|
//! | [`run_engine`] | a scenario under `blox`, `exact` or `synergy` semantics, monomorphised once per time model ([`ModelChoice`]) |
//! | [`engine_only`] | `blox-sim bench`'s engine-only scale figure (FIFO, accept-all, scattered as concrete types, no sink) |
//! | [`run_pollux`] | a scenario under the Pollux artifact's semantics |
//! | [`tiresias`], [`gavel`], [`sia`] | the peers' own loops over the components the scenario side builds |
//! | [`workload`], [`output`] | a run's streamed or listed jobs; its statistics and files |
//! | [`progress`] | the progress sink and the time-limit workload wrapper every run goes through |

pub mod output;
pub mod progress;
pub mod workload;

#[cfg(feature = "gavel")]
pub mod gavel;
#[cfg(feature = "sia")]
pub mod sia;
#[cfg(feature = "tiresias")]
pub mod tiresias;

use blox_core::{BoxPipeline, BoxThroughput, ClusterSpec, JobId, Time};
use blox_metrics::{ClusterLog, JobLog, Timeline};
use blox_nodes::BoxEvents;
use blox_original::Blox;
use blox_sim::time::{Exact, TimeModel};
use blox_sim::workload::Workload;
use blox_sim::{RunOutcome, SimConfig, SimError, Simulator};
use blox_synergy::Synergy as SynergyTime;
use progress::{Progress, TimeLimit};

/// The sink of a scenario's run: per-job records, the timeline and the cluster's events, behind
/// the progress display.
pub type RunSink = Progress<(JobLog, Timeline, ClusterLog)>;

/// The workload of every run: the scenario's jobs, ended at `--max-sim-time`.
pub type RunWorkload = TimeLimit<Box<dyn Workload + Send>>;

/// Runs `$body` with `$m` bound to the time model a [`ModelChoice`] holds, monomorphised once
/// per model: the one place the choice of semantics becomes a type.
macro_rules! with_model {
    ($choice:expr, $m:ident => $body:expr) => {
        match $choice {
            ModelChoice::Blox($m) => $body,
            ModelChoice::Exact($m) => $body,
            ModelChoice::Synergy($m) => $body,
        }
    };
}

/// The time model a scenario names (`semantics`): chosen once, then the engine runs
/// monomorphised over it ([`run_engine`]).
///
/// One value per run, so the exact model's size (its finish queue's buffers inline) costs
/// nothing; boxing it would add an indirection to every hook of the time model below.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)]
pub enum ModelChoice {
    /// Blox's simulator exactly.
    Blox(Blox),
    /// True finish times.
    Exact(Exact),
    /// Synergy's simulator.
    Synergy(SynergyTime),
}

/// A [`ModelChoice`] is a time model itself: each hook goes to the model it holds, so a
/// scenario's engine configuration feeds [`Simulator::new`] directly (a user's own scheduler
/// under the scenario's semantics). [`run_engine`] matches the choice once instead, so the engine
/// is monomorphised over the model; the results are the same.
impl TimeModel for ModelChoice {
    fn name(&self) -> &'static str {
        with_model!(self, m => m.name())
    }
    fn begin(&mut self, round: Time) -> Result<(), SimError> {
        with_model!(self, m => m.begin(round))
    }
    fn admitted(&mut self, job: &blox_core::Job, now: Time) {
        with_model!(self, m => m.admitted(job, now))
    }
    fn advance<M: blox_core::MetricSink + ?Sized>(
        &mut self,
        t: Time,
        world: &mut blox_sim::time::World<'_, M>,
    ) -> blox_sim::time::Advance {
        with_model!(self, m => m.advance(t, world))
    }
    fn elide_relaunch(&self) -> bool {
        with_model!(self, m => m.elide_relaunch())
    }
    fn decided(&mut self, decisions: &blox_core::Decisions, t: Time) {
        with_model!(self, m => m.decided(decisions, t))
    }
    fn counts_stops(&self) -> bool {
        with_model!(self, m => m.counts_stops())
    }
    fn sample_point(&self) -> blox_sim::time::SamplePoint {
        with_model!(self, m => m.sample_point())
    }
    fn stopping(&mut self, job: &mut blox_core::Job, t: Time) {
        with_model!(self, m => m.stopping(job, t))
    }
    fn rollback(
        &mut self,
        job: &mut blox_core::Job,
        executed_at_start: f64,
        start: Time,
        checkpoint: Time,
        t: Time,
    ) {
        with_model!(self, m => m.rollback(job, executed_at_start, start, checkpoint, t))
    }
    fn started<M: blox_core::MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        speed: f64,
        resumed: bool,
        t: Time,
        world: &mut blox_sim::time::World<'_, M>,
    ) -> Result<(), SimError> {
        with_model!(self, m => m.started(id, speed, resumed, t, world))
    }
    fn next_decision<M: blox_core::MetricSink + ?Sized>(
        &mut self,
        t: Time,
        view: blox_sim::time::NextView,
        next_arrival: Option<Time>,
        world: &blox_sim::time::World<'_, M>,
    ) -> Time {
        with_model!(self, m => m.next_decision(t, view, next_arrival, world))
    }
    fn drained_end(&self, t: Time, last_completion: Time) -> Time {
        with_model!(self, m => m.drained_end(t, last_completion))
    }
    fn admits_oversized(&self) -> bool {
        with_model!(self, m => m.admits_oversized())
    }
    fn rounds(&self, end: Time, round: Time) -> u64 {
        with_model!(self, m => m.rounds(end, round))
    }
}

/// Run one scenario's simulation: the engine monomorphised over the time model `cfg` holds
/// (matched once here), the boxed pipeline, throughput model and cluster events, and the
/// scenario's sink; its outcome and sink.
pub fn run_engine(
    cfg: SimConfig<ModelChoice>,
    cluster: ClusterSpec,
    scheduler: BoxPipeline,
    throughput: BoxThroughput,
    sink: RunSink,
    events: Option<BoxEvents>,
    workload: &mut RunWorkload,
) -> Result<(RunOutcome, RunSink), SimError> {
    with_model!(cfg.model.clone(), m => simulate(
        cfg.with_model(m),
        cluster,
        scheduler,
        throughput,
        sink,
        events,
        workload,
    ))
}

/// Run one simulation under time model `Tm` and return its outcome and sink.
fn simulate<Tm: TimeModel>(
    cfg: SimConfig<Tm>,
    cluster: ClusterSpec,
    scheduler: BoxPipeline,
    throughput: BoxThroughput,
    sink: RunSink,
    events: Option<BoxEvents>,
    workload: &mut RunWorkload,
) -> Result<(RunOutcome, RunSink), SimError> {
    let mut sim = Simulator::new(cfg, cluster, scheduler, throughput, sink);
    if let Some(e) = events {
        sim = sim.with_cluster_events(e);
    }
    let outcome = sim.run(workload)?;
    Ok((outcome, sim.into_sink()))
}

/// `blox-sim bench`'s engine-only scale figure: `jobs` jobs streamed from `generator` through
/// the engine alone in exact semantics, FIFO, accept-all and scattered placement as concrete
/// types, no metric sink.
pub fn engine_only(
    cfg: SimConfig<Exact>,
    cluster: ClusterSpec,
    generator: blox_workload::PoissonGenerator,
    throughput: BoxThroughput,
    jobs: usize,
) -> Result<RunOutcome, SimError> {
    let scheduler = blox_core::Pipeline::new(
        blox_admission::AcceptAll,
        blox_policies::Fifo::default(),
        blox_placement::Scattered::new(),
    );
    let mut sim = Simulator::new(cfg, cluster, scheduler, throughput, ());
    sim.run(&mut blox_sim::JobStream::new(generator, jobs))
}

/// The sink of a run under the Pollux artifact's semantics: per-job records and the timeline,
/// behind the progress display.
#[cfg(feature = "pollux")]
pub type PolluxSink = Progress<(JobLog, Timeline)>;

/// Run a scenario under the Pollux artifact's semantics (its interval model shared with its
/// components): its outcome and sink.
#[cfg(feature = "pollux")]
pub fn run_pollux(
    cfg: SimConfig<blox_pollux::Pollux<blox_pollux::PolluxShared>>,
    cluster: ClusterSpec,
    scheduler: BoxPipeline,
    throughput: BoxThroughput,
    sink: PolluxSink,
    workload: &mut RunWorkload,
) -> Result<(RunOutcome, PolluxSink), SimError> {
    let mut sim = Simulator::new(cfg, cluster, scheduler, throughput, sink);
    let outcome = sim.run(workload)?;
    Ok((outcome, sim.into_sink()))
}
