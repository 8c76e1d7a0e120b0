//! Tiresias' simulator (SymbioticLab/Tiresias @ 959f9b0, `simulator/run_sim.py`) reproduced
//! job by job (rules in TIRESIAS-SEMANTICS.md): its composition on the engine, the `tiresias` time model
//! ([`TiresiasTime`]) with Tiresias' own schedules and placements
//! ([`run_tiresias_engine`]) or with any engine policy and placement
//! ([`run_on_tiresias_model`], [`SchemePass`]).
//!
//! - **Time** is integer seconds and event-driven: arrivals, completions and (2D-LAS) the
//!   predicted next queue jump; each event runs one full scheduling pass. There are no rounds.
//! - **Progress** is wall-clock seconds; placement, preemption and GPU count never change a
//!   job's speed, and preemption costs nothing.
//! - **Three loop shapes**, chosen by the schedule: `fifo` (non-preemptive, head-of-line
//!   blocking, completions merged into the event list), the preemptive single-list schedules
//!   `sjf`/`shortest`/`shortest-gpu` (re-place everything from an emptied cluster each pass,
//!   back-filling, memory leaking as in the original), and the 2D-LAS schedules
//!   `dlas`/`dlas-gpu`/`dlas-gpu-gittins` (which never call the placement).
//! - **Quirks kept**: the mis-computed queue-jump time, one demotion per event, running jobs
//!   ahead of waiting ones in a queue, `sjf` = fewest GPUs first, the memory leak of `yarn`
//!   placements, and the *phantom completion* (a completion list written into an arrival
//!   event that a queue jump then pre-empts is replayed when that arrival is processed).
//!
//! The composition lives here, not in `blox-sim`, so that the engine depends on no component
//! crate. Runs report to any [`MetricSink`] (so `jobs.csv`, `summary.json` and the timeline are
//! the project's usual files) and return Tiresias' own `job.csv` rows.

use crate::placement::PeerReplace;
use crate::placement::{PeerScheme, TiresiasClusterSpec};
use crate::policy::{GittinsTable, PeerJob, PeerPolicy, PeerSchedule};
use crate::time::{PeerRow, TiresiasTime};
use blox_core::{
    Ctx, Decisions, JobSpec, MetricSink, PlacementPolicy, Schedule, SchedulingPolicy, Time,
};
use blox_sim::{RunOutcome, SimError};
use std::sync::Arc;

/// Header of Tiresias' `job.csv` (`log.py: init_log`); `resume` only with `--scheme=count`.
pub const TIRESIAS_JOB_CSV_HEADER: &str =
    "time,job_id,num_gpu,submit_time,start_time,end_time,executed_time,JCT,duration,pending_time,preempt,resume,promote";

/// One job of a Tiresias trace as the original reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerInput {
    /// `job_id`, only echoed to the output.
    pub job_id: String,
    /// `num_gpu`.
    pub num_gpu: i64,
    /// `submit_time`, whole seconds.
    pub submit_time: i64,
    /// `duration`, truncated toward zero (`int(float(text))`).
    pub duration: i64,
    /// `model_name`, echoed to the project's `jobs.csv` (it never changes times).
    pub model: Option<Arc<str>>,
}

impl PeerInput {
    /// A job from its fields.
    pub fn new(job_id: impl Into<String>, num_gpu: i64, submit_time: i64, duration: i64) -> Self {
        PeerInput {
            job_id: job_id.into(),
            num_gpu,
            submit_time,
            duration,
            model: None,
        }
    }

    /// Convert trace jobs read by `blox-workload` (any order): durations are truncated to
    /// whole seconds; a submission time that is not a whole second is an error, as the
    /// original cannot load it. The `job_id` is the source id, else the position.
    pub fn from_specs(specs: &[JobSpec]) -> Result<Vec<PeerInput>, SimError> {
        specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let id = s
                    .source_id
                    .as_deref()
                    .map_or_else(|| i.to_string(), str::to_string);
                if s.arrival.as_millis() % Time::MS_PER_S != 0 {
                    return Err(SimError::Config(format!(
                        "job {id}: submit time {} s is not a whole second; Tiresias' simulator \
                         reads submit_time as an integer (--semantics tiresias)",
                        s.arrival
                    )));
                }
                let mut p = PeerInput::new(
                    id,
                    i64::from(s.n_gpus),
                    s.arrival.as_secs() as i64,
                    s.work_s.trunc() as i64,
                );
                p.model = s.model.clone();
                Ok(p)
            })
            .collect()
    }
}

/// How a Tiresias run is set up: schedule, scheme, cluster and (for `dlas-gpu-gittins`) the
/// Gittins table.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TiresiasConfig {
    /// The schedule with its options.
    pub policy: PeerPolicy,
    /// The placement scheme.
    pub scheme: PeerScheme,
    /// The cluster.
    pub cluster: TiresiasClusterSpec,
    /// The Gittins table; required by `dlas-gpu-gittins`.
    pub gittins: Option<Arc<GittinsTable>>,
}

impl TiresiasConfig {
    /// A configuration; `gittins` is needed for `dlas-gpu-gittins` only.
    pub fn new(
        policy: PeerPolicy,
        scheme: PeerScheme,
        cluster: TiresiasClusterSpec,
        gittins: Option<Arc<GittinsTable>>,
    ) -> Result<Self, SimError> {
        if policy.schedule == PeerSchedule::DlasGpuGittins && gittins.is_none() {
            return Err(SimError::Config(
                "dlas-gpu-gittins needs a Gittins sample (distribution=FILE)".into(),
            ));
        }
        Ok(TiresiasConfig {
            policy,
            scheme,
            cluster,
            gittins,
        })
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PeerStop {
    /// Every job completed.
    AllDone,
    /// Jobs remain but no arrival and no completion is pending (a job larger than the cluster,
    /// `fifo` blocked behind one, or the `yarn` memory leak); the original prints "This
    /// cluster is not large enough to run the job" and stops.
    NotLargeEnough,
    /// `random` placement under a schedule that calls it: the original crashes at its first
    /// completion (its node records lack `mem`) before writing any row. Only the test oracle's
    /// event loops reproduce it; the engine path refuses the set-up.
    RandomCrash,
    /// The original never terminates: a predicted queue jump lies at the current time but
    /// demotes nothing (e.g. `⌊(limit − e)/g⌋ = 0` with service `g·e` still below the limit),
    /// so every following event is the same bare jump. The rows logged until then are kept.
    NeverEnds {
        /// The time the original stays at.
        time: i64,
    },
}

impl PeerStop {
    /// Why the run stopped, in words (the run table's footer and `summary.json`).
    pub fn describe(&self) -> &'static str {
        match self {
            PeerStop::AllDone => "all jobs completed",
            PeerStop::NotLargeEnough => {
                "stopped early: jobs remain that can never be placed (\"This cluster is not large enough to run the job\")"
            }
            PeerStop::RandomCrash => {
                "no job logged: Tiresias' random placement crashes at its first completion under this schedule"
            }
            PeerStop::NeverEnds { .. } => {
                "stopped: the original never terminates here (a predicted queue jump at the current time that demotes nothing repeats forever); rows up to then kept"
            }
        }
    }
}

/// The result of a Tiresias run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PeerRun {
    /// Completed jobs in completion order.
    pub rows: Vec<PeerRow>,
    /// Every job's final state, in arrival order.
    pub jobs: Vec<PeerJob>,
    /// Why it ended.
    pub stop: PeerStop,
    /// Events processed (scheduling passes).
    pub events: u64,
    /// The last event's time.
    pub end_time: i64,
    /// Sum of `preempt` over all jobs.
    pub preemptions: u64,
    /// Whether the scheme's `resume` column is written (`count` only).
    pub resume_column: bool,
}

impl PeerRun {
    /// A run from its parts (e.g. one of an oracle's; the engine path builds its own).
    pub fn new(
        rows: Vec<PeerRow>,
        jobs: Vec<PeerJob>,
        stop: PeerStop,
        events: u64,
        end_time: i64,
        preemptions: u64,
        resume_column: bool,
    ) -> Self {
        PeerRun {
            rows,
            jobs,
            stop,
            events,
            end_time,
            preemptions,
            resume_column,
        }
    }

    /// Tiresias' `job.csv` text.
    pub fn job_csv(&self) -> String {
        let mut out = String::new();
        if self.resume_column {
            out.push_str(TIRESIAS_JOB_CSV_HEADER);
        } else {
            out.push_str(&TIRESIAS_JOB_CSV_HEADER.replace(",resume", ""));
        }
        out.push('\n');
        for r in &self.rows {
            let start = r.start_time.unwrap_or(i64::MAX);
            let resume = if self.resume_column {
                format!(",{}", r.resume)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{}{},0\n",
                r.end_time,
                csv_text(&r.job_id),
                r.num_gpu,
                r.submit_time,
                start,
                r.end_time,
                r.end_time - start,
                r.jct(),
                r.duration,
                r.pending_time,
                r.preempt,
                resume
            ));
        }
        out
    }
}

fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(crate) fn secs(t: i64) -> Time {
    Time::from_secs(t.max(0) as u64)
}

/// Tiresias admits every job at its arrival.
#[derive(Clone, Copy, Debug, Default)]
struct AdmitAll;

impl blox_core::AdmissionPolicy for AdmitAll {
    fn admit(
        &mut self,
        _: &blox_core::Ctx<'_>,
        queue: &[blox_core::QueuedJob],
        out: &mut blox_core::Admissions,
    ) {
        out.admit.extend(0..queue.len());
    }

    fn name(&self) -> String {
        "accept-all".into()
    }
}

/// The engine's jobs for `jobs`: stably sorted by submission (as the original reads them),
/// durations and GPU counts as Tiresias keeps them.
pub fn engine_specs(jobs: &[PeerInput]) -> Vec<JobSpec> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit_time);
    order
        .iter()
        .map(|&i| {
            let p = &jobs[i];
            let mut s = JobSpec::new(
                secs(p.submit_time),
                p.num_gpu.clamp(0, u32::MAX as i64) as u32,
                p.duration as f64,
            );
            s.source_id = Some(Arc::from(p.job_id.as_str()));
            s.model = p.model.clone();
            s
        })
        .collect()
}

/// The [`TiresiasTime`] model for one of Tiresias' schedules: queue jumps (with the schedule's
/// thresholds and unit) for the 2D-LAS schedules, arrivals and completions only otherwise.
pub fn peer_model(policy: &PeerPolicy) -> TiresiasTime {
    if policy.schedule.is_dlas() {
        TiresiasTime::with_queue_jumps(
            policy.thresholds.clone(),
            policy.schedule != PeerSchedule::Dlas,
        )
    } else {
        TiresiasTime::events_only()
    }
}

/// Run `jobs` through the engine on Tiresias' model: `model` as the time model, `policy` and
/// `placement` as the scheduler, accept-all admission and constant speed 1, on `spec`'s nodes
/// (its switches × nodes per switch, each with its GPUs). Any engine policy and placement run
/// here; [`run_tiresias_engine`] passes Tiresias' own. Returns the outcome, the model (for its
/// per-job counters and Tiresias' rows) and the sink.
pub fn run_on_tiresias_model<S, P, M>(
    model: TiresiasTime,
    spec: TiresiasClusterSpec,
    jobs: &[PeerInput],
    policy: S,
    placement: P,
    sink: M,
) -> Result<(RunOutcome, TiresiasTime, M), SimError>
where
    S: SchedulingPolicy,
    P: PlacementPolicy,
    M: MetricSink,
{
    let nodes = (spec.switches * spec.nodes_per_switch).clamp(0, u32::MAX as i64) as u32;
    let cluster = blox_core::ClusterSpec::uniform(nodes, spec.gpus_per_node.max(0) as u32);
    let sim_cfg = blox_sim::SimConfig::new(model)
        .with_round(Time::from_secs(60))
        .with_starvation(None);
    let mut workload = blox_sim::JobList::new(engine_specs(jobs));
    let scheduler = blox_core::Pipeline::new(AdmitAll, policy, placement);
    let mut sim = blox_sim::Simulator::new(
        sim_cfg,
        cluster,
        scheduler,
        blox_core::ConstantSpeed(1.0),
        sink,
    );
    let outcome = sim.run(&mut workload)?;
    let model = sim.config().model.clone();
    Ok((outcome, model, sim.into_sink()))
}

/// A Tiresias run through the engine: [`TiresiasTime`] with Tiresias' components as the
/// scheduler ([`PeerDlasPolicy`](crate::policy::PeerDlasPolicy) +
/// [`RunSet`](crate::placement::RunSet) for the 2D-LAS schedules;
/// [`PeerListOrder`](crate::policy::PeerListOrder) +
/// [`PeerFifo`](crate::placement::PeerFifo) or
/// [`PeerReplace`] otherwise), accept-all admission and
/// constant speed 1, on `cfg.cluster`'s nodes. Returns the outcome and the model (for its
/// per-job counters).
///
/// Two set-ups are errors, as the engine cannot run what the original does with them:
/// `random` placement under the schedules that call the placement (the original crashes at
/// the first completion, before writing any row; TIRESIAS-SEMANTICS §7.4), and 2D-LAS
/// thresholds that decrease (the original then predicts queue jumps before the current event
/// and its clock goes back; its own thresholds are hard-coded and increase). This crate's
/// tests reproduce both on the original's self-contained event loops, kept as a test oracle.
pub fn run_tiresias_engine<M: MetricSink>(
    cfg: &TiresiasConfig,
    jobs: &[PeerInput],
    sink: M,
) -> Result<(RunOutcome, TiresiasTime, M), SimError> {
    use crate::placement::{PeerFifo, RunSet};
    use crate::policy::{PeerDlasPolicy, PeerListOrder};
    let policy = &cfg.policy;
    if cfg.scheme == PeerScheme::Random && !policy.schedule.is_dlas() {
        return Err(SimError::Config(
            "--placement random under fifo, sjf and shortest*: Tiresias' random placement \
             crashes at the first completion, before writing any row (TIRESIAS-SEMANTICS \
             §7.4); use yarn, count or balance, or a 2D-LAS schedule (dlas, dlas-gpu, \
             dlas-gpu-gittins), under which random behaves as count"
                .into(),
        ));
    }
    if policy.schedule.is_dlas() && policy.thresholds.windows(2).any(|w| w[0] > w[1]) {
        return Err(SimError::Config(format!(
            "--policy {policy}: the thresholds decrease; Tiresias then predicts queue jumps \
             before the current event and its clock goes back, which the engine does not do \
             (the original's own thresholds, 3250/7200, increase): give them in increasing order"
        )));
    }
    let model = peer_model(policy);
    let spec = cfg.cluster;
    if policy.schedule.is_dlas() {
        let p = PeerDlasPolicy::new(policy, cfg.gittins.clone())
            .ok_or_else(|| SimError::Config("not a 2D-LAS schedule".into()))?;
        run_on_tiresias_model(model, spec, jobs, p, RunSet, sink)
    } else {
        let p = PeerListOrder::new(policy.schedule)
            .ok_or_else(|| SimError::Config("not a single-list schedule".into()))?;
        if policy.schedule == PeerSchedule::Fifo {
            run_on_tiresias_model(model, spec, jobs, p, PeerFifo::new(spec, cfg.scheme), sink)
        } else {
            run_on_tiresias_model(
                model,
                spec,
                jobs,
                p,
                PeerReplace::new(spec, cfg.scheme),
                sink,
            )
        }
    }
}

/// Tiresias' placement scheme under any engine policy: the preemptive single-list pass of
/// `sjf`/`shortest` ([`PeerReplace`]: every pass re-places the schedule's jobs, in the
/// policy's order, from an emptied cluster by the scheme's rules, back-filling, memory
/// leaking as in the original) fed with the policy's [`Schedule`]. A running job the schedule
/// leaves out (or gives no GPUs) is stopped, as a job that fails to fit is; jobs are rigid, so
/// an entry's GPU count is read only as "run" (non-zero) or "do not run" (zero).
#[derive(Clone, Debug)]
pub struct SchemePass {
    inner: PeerReplace,
    listed: Schedule,
}

impl SchemePass {
    /// The pass on this cluster with this scheme (`random` is refused by the caller: the
    /// original crashes under the schedules that call it).
    pub fn new(spec: TiresiasClusterSpec, scheme: PeerScheme) -> Self {
        SchemePass {
            inner: PeerReplace::new(spec, scheme),
            listed: Schedule::default(),
        }
    }
}

impl PlacementPolicy for SchemePass {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.listed.clear();
        let mut seen = vec![false; ctx.jobs.iter().map(|j| j.id.index() + 1).max().unwrap_or(0)];
        for a in schedule.iter() {
            let Some(job) = ctx.jobs.get(a.job) else {
                continue;
            };
            if a.n_gpus == 0 || seen[job.id.index()] {
                continue;
            }
            seen[job.id.index()] = true;
            self.listed.push(a.job, job.spec.n_gpus);
        }
        for job in ctx.jobs.iter() {
            if job.is_running() && !seen[job.id.index()] {
                out.stop.push(job.id);
            }
        }
        self.inner.place(ctx, &self.listed, out);
    }

    fn name(&self) -> String {
        self.inner.name()
    }
}

impl PeerRun {
    /// The result of a run through the engine ([`run_tiresias_engine`]), from the model's
    /// own log: completed jobs in completion order, as Tiresias writes them.
    /// `inputs` are the run's jobs (any order): jobs the run never reached are listed too.
    pub fn from_engine(
        model: &TiresiasTime,
        outcome: &RunOutcome,
        scheme: PeerScheme,
        inputs: &[PeerInput],
    ) -> PeerRun {
        let mut order: Vec<&PeerInput> = inputs.iter().collect();
        order.sort_by_key(|p| p.submit_time);
        let mut jobs: Vec<PeerJob> = model
            .job_states()
            .map(|t| {
                let mut j = PeerJob::new(t.num_gpu, t.submit_time, t.duration);
                j.total_executed_time = t.executed;
                j.executed_time = t.executed;
                j.pending_time = t.pending_time;
                j.preempt = t.preempt;
                j.resume = t.resume;
                j.start_time = t.start_time;
                j.q_id = t.queue;
                j
            })
            .collect();
        for p in order.iter().skip(jobs.len()) {
            jobs.push(PeerJob::new(p.num_gpu, p.submit_time, p.duration));
        }
        let end_time = outcome.end_time.as_secs() as i64;
        let rows = model.rows().to_vec();
        let stop = if model.never_ends() {
            PeerStop::NeverEnds { time: end_time }
        } else if rows.len() < jobs.len() {
            PeerStop::NotLargeEnough
        } else {
            PeerStop::AllDone
        };
        let preemptions = jobs.iter().map(|j| u64::from(j.preempt)).sum();
        PeerRun {
            rows,
            jobs,
            stop,
            events: outcome.rounds_processed,
            end_time,
            preemptions,
            resume_column: scheme == PeerScheme::Count,
        }
    }
}
