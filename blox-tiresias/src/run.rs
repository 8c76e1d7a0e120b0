//! Tiresias' simulator (SymbioticLab/Tiresias @ 959f9b0, `simulator/run_sim.py`) reproduced
//! job by job (rules in TIRESIAS-SEMANTICS.md): its self-contained event loops
//! ([`run_tiresias`]) and its composition on the engine, the `tiresias` time model
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
use crate::placement::{PeerCluster, PeerScheme, Placement, TiresiasClusterSpec};
use crate::policy::{GittinsTable, Mlfq, PeerJob, PeerPolicy, PeerSchedule, PeerStatus};
use crate::time::{PeerRow, TiresiasTime};
use blox_core::{
    Ctx, Decisions, Event, JobId, JobSpec, MetricSink, PlacementPolicy, RoundSample, Schedule,
    SchedulingPolicy, Time,
};
use blox_sim::{RunOutcome, SimError};
use std::collections::{BTreeMap, VecDeque};
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
    /// completion (its node records lack `mem`) before writing any row.
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

fn secs(t: i64) -> Time {
    Time::from_secs(t.max(0) as u64)
}

/// The shared state of the three loops, and what they report.
struct Run<'a, M: MetricSink> {
    cfg: &'a TiresiasConfig,
    inputs: Vec<PeerInput>,
    specs: Vec<JobSpec>,
    jobs: Vec<PeerJob>,
    placements: Vec<Vec<Placement>>,
    cluster: PeerCluster,
    rows: Vec<PeerRow>,
    sink: &'a mut M,
    events: u64,
    now: i64,
    preemptions_now: u32,
}

impl<M: MetricSink> Run<'_, M> {
    fn arrive(&mut self, j: usize) {
        let (n, s, d) = (
            self.inputs[j].num_gpu,
            self.inputs[j].submit_time,
            self.inputs[j].duration,
        );
        self.jobs[j] = PeerJob::new(n, s, d);
        let spec = &self.specs[j];
        self.sink.on_event(&Event::Arrived {
            time: secs(self.now),
            seq: j as u64,
            spec,
        });
        self.sink.on_event(&Event::Admitted {
            time: secs(self.now),
            seq: j as u64,
            job: JobId(j as u32),
        });
    }

    fn complete(&mut self, j: usize) {
        let job = &self.jobs[j];
        let mut row = PeerRow::new(j, self.inputs[j].job_id.clone(), self.now);
        row.num_gpu = job.num_gpu;
        row.submit_time = job.submit_time;
        row.start_time = job.start_time;
        row.duration = job.duration;
        row.pending_time = job.pending_time;
        row.preempt = job.preempt;
        row.resume = job.resume;
        self.rows.push(row);
        self.sink.on_event(&Event::Completed {
            time: secs(self.now),
            job: JobId(j as u32),
        });
    }

    fn report_start(&mut self, j: usize) {
        let time = secs(self.now);
        let job = JobId(j as u32);
        self.sink.on_event(&Event::Started {
            time,
            job,
            gpus: &[],
            speed: 1.0,
        });
        if self.jobs[j].resume == 1 {
            self.sink.on_event(&Event::FirstProgress { time, job });
        }
    }

    fn report_preempt(&mut self, j: usize) {
        self.preemptions_now += 1;
        self.sink.on_event(&Event::Preempted {
            time: secs(self.now),
            job: JobId(j as u32),
            counted: true,
        });
    }

    /// The per-event sample: waiting and running jobs among `active`, free GPUs, demand.
    fn sample(&mut self, active: impl Iterator<Item = usize>) {
        let (mut waiting, mut running, mut busy, mut demand) = (0u32, 0u32, 0i64, 0u64);
        for j in active {
            let job = &self.jobs[j];
            demand += job.num_gpu.max(0) as u64;
            if job.is_running() {
                running += 1;
                busy += job.num_gpu;
            } else {
                waiting += 1;
            }
        }
        let free = (self.cfg.cluster.total_gpus() - busy).max(0) as u32;
        self.sink.on_event(&Event::Round(RoundSample::new(
            secs(self.now),
            waiting,
            running,
            0,
            free,
            demand,
            self.preemptions_now,
        )));
        self.preemptions_now = 0;
        self.events += 1;
    }
}

/// Arrival events (`jobs.py: prepare_job_start_events`): one per distinct submit time, jobs in
/// arrival order.
fn arrival_events(inputs: &[PeerInput]) -> VecDeque<(i64, Vec<usize>)> {
    let mut out: VecDeque<(i64, Vec<usize>)> = VecDeque::new();
    for (j, job) in inputs.iter().enumerate() {
        match out.back_mut() {
            Some((t, list)) if *t == job.submit_time => list.push(j),
            _ => out.push_back((job.submit_time, vec![j])),
        }
    }
    out
}

/// Run `jobs` (any order; stably sorted by submission as the original does) under `cfg`,
/// reporting to `sink`.
pub fn run_tiresias<M: MetricSink>(
    cfg: &TiresiasConfig,
    jobs: &[PeerInput],
    sink: &mut M,
) -> PeerRun {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit_time);
    let inputs: Vec<PeerInput> = order.iter().map(|&i| jobs[i].clone()).collect();
    let specs: Vec<JobSpec> = inputs
        .iter()
        .map(|p| {
            let mut s = JobSpec::new(
                secs(p.submit_time),
                p.num_gpu.clamp(0, u32::MAX as i64) as u32,
                p.duration as f64,
            );
            s.source_id = Some(Arc::from(p.job_id.as_str()));
            s.model = p.model.clone();
            s
        })
        .collect();
    let n = inputs.len();
    let mut run = Run {
        cfg,
        jobs: inputs
            .iter()
            .map(|p| PeerJob::new(p.num_gpu, p.submit_time, p.duration))
            .collect(),
        inputs,
        specs,
        placements: vec![Vec::new(); n],
        cluster: PeerCluster::new(cfg.cluster, cfg.scheme),
        rows: Vec::new(),
        sink,
        events: 0,
        now: 0,
        preemptions_now: 0,
    };
    let schedule = cfg.policy.schedule;
    let stop = if schedule.is_dlas() {
        dlas_loop(&mut run)
    } else if matches!(cfg.scheme, PeerScheme::Random) {
        // The original crashes at the first completion; no row is ever written.
        PeerStop::RandomCrash
    } else if schedule == PeerSchedule::Fifo {
        fifo_loop(&mut run)
    } else {
        single_list_loop(&mut run)
    };
    let end = run.now;
    run.sink.on_event(&Event::End { time: secs(end) });
    let preemptions = run.jobs.iter().map(|j| u64::from(j.preempt)).sum();
    PeerRun {
        rows: run.rows,
        jobs: run.jobs,
        stop,
        events: run.events,
        end_time: end,
        preemptions,
        resume_column: cfg.scheme == PeerScheme::Count,
    }
}

/// §4.1, `one_queue_fifo_sim_jobs`.
fn fifo_loop<M: MetricSink>(run: &mut Run<'_, M>) -> PeerStop {
    // time → (arrivals, completions); one event per time, as `add_job_end_event` merges.
    let mut events: BTreeMap<i64, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for (t, list) in arrival_events(&run.inputs) {
        events.insert(t, (list, Vec::new()));
    }
    let mut pending: Vec<usize> = Vec::new();
    let mut running: Vec<usize> = Vec::new();
    loop {
        if events.is_empty() && pending.is_empty() {
            return PeerStop::AllDone;
        }
        let Some((&now, _)) = events.iter().next() else {
            return PeerStop::NotLargeEnough;
        };
        run.now = now;
        let (arrivals, ends) = events
            .get(&now)
            .map(|(a, e)| (a.clone(), e.clone()))
            .unwrap_or_default();
        for &j in &ends {
            let g = run.jobs[j].num_gpu;
            run.cluster.release(g, &run.placements[j]);
            run.complete(j);
            running.retain(|&r| r != j);
        }
        for &j in &arrivals {
            run.arrive(j);
            pending.push(j);
        }
        if run.cluster.free_gpus() > 0 {
            let mut started = Vec::new();
            for &j in &pending {
                match run.cluster.place(run.jobs[j].num_gpu) {
                    Some(p) => {
                        run.placements[j].push(p);
                        started.push(j);
                    }
                    None => break,
                }
            }
            pending.drain(..started.len());
            for j in started {
                // `remove_from_pending`: running, started now; `resume` is not counted.
                let job = &mut run.jobs[j];
                job.status = PeerStatus::Running;
                job.start_time = Some(now);
                job.pending_time = now - job.submit_time;
                let end = now + job.duration;
                // The current event is still listed: a zero-length job's end joins it and is
                // lost with it, as in the original.
                events.entry(end).or_default().1.push(j);
                running.push(j);
                let (time, id) = (secs(now), JobId(j as u32));
                run.sink.on_event(&Event::Started {
                    time,
                    job: id,
                    gpus: &[],
                    speed: 1.0,
                });
                run.sink.on_event(&Event::FirstProgress { time, job: id });
            }
        }
        events.remove(&now);
        let active: Vec<usize> = pending.iter().chain(&running).copied().collect();
        run.sample(active.into_iter());
    }
}

/// §4.2, `smallest_first_sim_jobs` / `shortest_first_sim_jobs`.
fn single_list_loop<M: MetricSink>(run: &mut Run<'_, M>) -> PeerStop {
    let schedule = run.cfg.policy.schedule;
    let gputime = schedule == PeerSchedule::ShortestGpu;
    let mut arrivals = arrival_events(&run.inputs);
    let mut end_events: Vec<(i64, Vec<usize>)> = Vec::new();
    let mut runnable: Vec<usize> = Vec::new();
    loop {
        if arrivals.is_empty() && runnable.is_empty() {
            return PeerStop::AllDone;
        }
        if arrivals.is_empty() && end_events.is_empty() {
            return PeerStop::NotLargeEnough;
        }
        let start_t = arrivals.front().map_or(i64::MAX, |e| e.0);
        let end_t = end_events.first().map_or(i64::MAX, |e| e.0);
        let (now, starts, ends) = if end_t < start_t {
            (end_t, Vec::new(), end_events[0].1.clone())
        } else if end_t > start_t {
            let (t, list) = arrivals.pop_front().unwrap_or_default();
            (t, list, Vec::new())
        } else {
            let (t, list) = arrivals.pop_front().unwrap_or_default();
            (t, list, end_events[0].1.clone())
        };
        run.now = now;
        for &j in &ends {
            let g = run.jobs[j].num_gpu;
            run.cluster.release(g, &run.placements[j]);
            run.complete(j);
            runnable.retain(|&r| r != j);
        }
        for &j in &starts {
            run.arrive(j);
            runnable.push(j);
        }
        for &j in &runnable {
            let job = &mut run.jobs[j];
            let running = job.is_running();
            job.credit(now);
            if running {
                job.remaining_time = job.duration - job.total_executed_time;
                if gputime {
                    job.remaining_gputime = job.remaining_time * job.num_gpu;
                }
            }
        }
        schedule.sort_runnable(&mut runnable, &run.jobs);
        run.cluster.empty();
        let (mut started, mut preempted) = (Vec::new(), Vec::new());
        for &j in &runnable {
            if run.jobs[j].is_running() {
                run.placements[j].clear();
            }
            match run.cluster.place(run.jobs[j].num_gpu) {
                Some(p) => {
                    run.placements[j].push(p);
                    let job = &mut run.jobs[j];
                    job.start_time.get_or_insert(now);
                    if !job.is_running() {
                        started.push(j);
                    }
                }
                None => {
                    if run.jobs[j].is_running() {
                        preempted.push(j);
                    }
                }
            }
        }
        for &j in &preempted {
            run.jobs[j].preempt();
            run.report_preempt(j);
        }
        for &j in &started {
            run.jobs[j].start(now);
            run.report_start(j);
        }
        end_events.clear();
        for &j in &runnable {
            let job = &run.jobs[j];
            if job.is_running() {
                let end = now + job.remaining_time;
                match end_events.iter_mut().find(|e| e.0 == end) {
                    Some(e) => e.1.push(j),
                    None => end_events.push((end, vec![j])),
                }
            }
        }
        end_events.sort_by_key(|e| e.0);
        run.sample(runnable.clone().into_iter());
    }
}

/// An arrival event of the 2D-LAS loop, with the completion list a tie may have written into
/// it (the phantom-completion quirk).
struct DlasArrival {
    time: i64,
    jobs: Vec<usize>,
    end_jobs: Option<Vec<usize>>,
}

/// §4.3, `dlas_sim_jobs`.
fn dlas_loop<M: MetricSink>(run: &mut Run<'_, M>) -> PeerStop {
    let policy = &run.cfg.policy;
    let gputime = policy.schedule != PeerSchedule::Dlas;
    let gittins = match (policy.schedule, &run.cfg.gittins) {
        (PeerSchedule::DlasGpuGittins, Some(t)) => Some(t.clone()),
        _ => None,
    };
    let total = run.cfg.cluster.total_gpus();
    let mut mlfq = Mlfq::new(&policy.thresholds, gputime);
    let mut arrivals: VecDeque<DlasArrival> = arrival_events(&run.inputs)
        .into_iter()
        .map(|(time, jobs)| DlasArrival {
            time,
            jobs,
            end_jobs: None,
        })
        .collect();
    let mut end_event: Option<(i64, Vec<usize>)> = None;
    let mut next_jump = i64::MAX;
    let mut runnable: Vec<usize> = Vec::new();
    let mut last_time = i64::MIN;
    loop {
        if arrivals.is_empty() && runnable.is_empty() {
            return PeerStop::AllDone;
        }
        if arrivals.is_empty() && end_event.is_none() {
            return PeerStop::NotLargeEnough;
        }
        let start_t = arrivals.front().map_or(i64::MAX, |e| e.time);
        let end_t = end_event.as_ref().map_or(i64::MAX, |e| e.0);
        // Which event: the completion group, the arrival, or both (the list is written into
        // the arrival event, where it stays if a jump comes first).
        let mut is_arrival = end_t >= start_t;
        let mut now = end_t.min(start_t);
        if end_t == start_t {
            if let (Some(a), Some(e)) = (arrivals.front_mut(), &end_event) {
                a.end_jobs = Some(e.1.clone());
            }
        }
        let mut bare = false;
        if now > next_jump {
            now = next_jump;
            bare = true;
            is_arrival = false;
        }
        run.now = now;
        let ends: Vec<usize> = if bare {
            Vec::new()
        } else if is_arrival {
            arrivals
                .front()
                .and_then(|a| a.end_jobs.clone())
                .unwrap_or_default()
        } else {
            end_event.as_ref().map(|e| e.1.clone()).unwrap_or_default()
        };
        for &j in &ends {
            run.complete(j);
            runnable.retain(|&r| r != j);
            mlfq.remove(j, &run.jobs[j]);
        }
        if is_arrival {
            if let Some(a) = arrivals.pop_front() {
                for &j in &a.jobs {
                    run.arrive(j);
                    runnable.push(j);
                    mlfq.admit(j, &mut run.jobs[j]);
                }
            }
        }
        let mut demoted = false;
        for &j in &runnable {
            let job = &mut run.jobs[j];
            let running = job.is_running();
            job.credit(now);
            if running {
                demoted |= mlfq.check_demotion(j, job);
            }
            if let Some(t) = &gittins {
                Mlfq::rank(t, job);
            }
        }
        let (mut started, mut preempted) = (Vec::new(), Vec::new());
        mlfq.pass(
            now,
            total,
            &mut run.jobs,
            gittins.is_some(),
            &mut started,
            &mut preempted,
        );
        if bare && now == last_time && !demoted && started.is_empty() && preempted.is_empty() {
            // Nothing changed at the same time: the next event is this one again, forever.
            return PeerStop::NeverEnds { time: now };
        }
        last_time = now;
        for &j in &preempted {
            run.report_preempt(j);
        }
        for &j in &started {
            run.report_start(j);
        }
        end_event = None;
        for &j in &runnable {
            let job = &run.jobs[j];
            if job.is_running() {
                let end = now + job.duration - job.total_executed_time;
                match &mut end_event {
                    Some((t, list)) if *t == end => list.push(j),
                    Some((t, _)) if *t < end => {}
                    _ => end_event = Some((end, vec![j])),
                }
            }
        }
        next_jump = mlfq
            .next_jump(now, &runnable, &run.jobs)
            .unwrap_or(i64::MAX);
        run.sample(runnable.clone().into_iter());
    }
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
fn engine_specs(jobs: &[PeerInput]) -> Vec<JobSpec> {
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
/// scheduler ([`PeerDlasPolicy`](blox_policies::tiresias_peer::PeerDlasPolicy) +
/// [`RunSet`](blox_placement::tiresias::RunSet) for the 2D-LAS schedules;
/// [`PeerListOrder`](blox_policies::tiresias_peer::PeerListOrder) +
/// [`PeerFifo`](blox_placement::tiresias::PeerFifo) or
/// [`PeerReplace`] otherwise), accept-all admission and
/// constant speed 1, on `cfg.cluster`'s nodes. Returns the outcome and the model (for its
/// per-job counters). `random` placement is not run here (the original crashes under the
/// schedules that call it; [`run_tiresias`] reproduces that); it is an error.
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
            "random placement under fifo/sjf/shortest*: the original crashes at the first completion; use the event loop (run_tiresias)".into(),
        ));
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
