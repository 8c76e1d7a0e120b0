//! The `tiresias` time model: the event loops of the Tiresias authors' simulator
//! (SymbioticLab/Tiresias @ 959f9b0, `simulator/run_sim.py`), reproduced job by job
//! (rules in TIRESIAS-SEMANTICS.md).
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
//! The model reports to any [`MetricSink`] (so `jobs.csv`, `summary.json` and the timeline are
//! the project's usual files) and returns Tiresias' own `job.csv` rows.

use crate::SimError;
use blox_core::{Event, JobId, JobSpec, MetricSink, RoundSample, Time};
use blox_placement::tiresias::{PeerCluster, PeerScheme, Placement, TiresiasClusterSpec};
use blox_policies::tiresias_peer::{
    GittinsTable, Mlfq, PeerJob, PeerPolicy, PeerSchedule, PeerStatus,
};
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

/// One completed job, as a row of Tiresias' `job.csv` (`log.py: job_complete`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerRow {
    /// Index of the job in arrival order (its [`JobId`]).
    pub job: usize,
    /// `job_id` from the trace.
    pub job_id: String,
    /// GPUs.
    pub num_gpu: i64,
    /// Submission.
    pub submit_time: i64,
    /// First start (`None` only for a job logged without ever starting, which the original's
    /// loops never do).
    pub start_time: Option<i64>,
    /// Completion: the event's time.
    pub end_time: i64,
    /// Duration from the trace.
    pub duration: i64,
    /// Seconds spent waiting, as counted.
    pub pending_time: i64,
    /// Preemptions.
    pub preempt: u32,
    /// Starts and resumes.
    pub resume: u32,
}

impl PeerRow {
    /// `JCT = end − submit`.
    pub fn jct(&self) -> i64 {
        self.end_time - self.submit_time
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
        self.rows.push(PeerRow {
            job: j,
            job_id: self.inputs[j].job_id.clone(),
            num_gpu: job.num_gpu,
            submit_time: job.submit_time,
            start_time: job.start_time,
            end_time: self.now,
            duration: job.duration,
            pending_time: job.pending_time,
            preempt: job.preempt,
            resume: job.resume,
        });
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

/// Tiresias' event loops as a [`TimeModel`](crate::TimeModel) for the engine: decisions at
/// Tiresias' events only (the next arrival, the earliest completion group and, for the 2D-LAS
/// schedules, the predicted queue jump with its quirk), progress credited in whole wall seconds
/// (`executed`; GPU-seconds in `attained_gpu_s`, seconds in `attained_wall_s`), completions at whole seconds, and the
/// phantom completion of a stale completion list. [`run_tiresias_engine`] composes it with
/// Tiresias' components as the scheduler.
///
/// For the jump prediction the model mirrors the policy's queue index of every job (one
/// demotion per decision, from the same facts). It ends the run, like the original, when jobs
/// remain but no arrival and no running job is left. A jump predicted at the current second is
/// taken 1 ms later, in the same whole second (the engine's decision times strictly increase);
/// if such a repeat changed nothing, the original loops for ever, and the model ends the run
/// with [`TiresiasTime::never_ends`] set. A jump before the current time (thresholds that
/// decrease) is taken at the current time, where the original steps back; [`run_tiresias`]
/// reproduces that.
#[derive(Clone, Debug, PartialEq)]
pub struct TiresiasTime {
    /// Queue jumps are events (the 2D-LAS schedules only).
    jumps: bool,
    limits: Vec<i64>,
    gpu_time: bool,
    jobs: Vec<TimeJob>,
    /// The completion list of the next decision, and its time.
    completing: Option<(i64, Vec<JobId>)>,
    /// A completion list written into the arrival event at this time (phantom completion).
    stale: Option<(i64, Vec<JobId>)>,
    /// Set when the next decision must end the run (at this time).
    end_at: Option<i64>,
    never_ends: bool,
    last_decision: i64,
    /// Completed jobs, in completion order (Tiresias' `job.csv`).
    rows: Vec<PeerRow>,
    /// Each job's `job_id`.
    ids: Vec<String>,
    /// Something changed at the current decision (a completion, demotion, start or stop).
    changed: bool,
    /// The current decision repeats the previous one's whole second (a jump predicted at the
    /// current time, taken 1 ms later: the engine's decision times strictly increase).
    same_second: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct TimeJob {
    num_gpu: i64,
    duration: i64,
    executed: i64,
    last_check: i64,
    q: usize,
    running: bool,
    responded: bool,
    /// Seconds counted as waiting (`pending_time`), and starts (`resume`).
    pending: i64,
    starts: u32,
    preempts: u32,
    submit: i64,
    first_start: Option<i64>,
}

impl TiresiasTime {
    /// The model for `policy`: queue jumps (with its thresholds and unit) for the 2D-LAS
    /// schedules; arrivals and completions only for the others.
    pub fn new(policy: &PeerPolicy) -> Option<Self> {
        Some(TiresiasTime {
            jumps: policy.schedule.is_dlas(),
            limits: policy.thresholds.clone(),
            gpu_time: policy.schedule != PeerSchedule::Dlas,
            jobs: Vec::new(),
            completing: None,
            stale: None,
            end_at: None,
            never_ends: false,
            last_decision: 0,
            rows: Vec::new(),
            ids: Vec::new(),
            changed: false,
            same_second: false,
        })
    }

    /// Whether the run ended where the original never terminates.
    pub fn never_ends(&self) -> bool {
        self.never_ends
    }

    /// Job `id`'s `pending_time` (seconds counted as waiting, at event times), `resume`
    /// (starts) and wall seconds run, as Tiresias keeps them; `None` for an unknown id.
    pub fn counters(&self, id: JobId) -> Option<(i64, u32, i64)> {
        self.jobs
            .get(id.index())
            .map(|j| (j.pending, j.starts, j.executed))
    }

    fn service(&self, j: &TimeJob) -> i64 {
        if self.gpu_time {
            j.executed * j.num_gpu
        } else {
            j.executed
        }
    }
}

impl crate::time::TimeModel for TiresiasTime {
    fn name(&self) -> &'static str {
        "tiresias"
    }

    fn begin(&mut self, _round: Time) -> Result<(), SimError> {
        self.jobs.clear();
        self.completing = None;
        self.stale = None;
        self.end_at = None;
        self.never_ends = false;
        self.last_decision = 0;
        self.rows.clear();
        self.ids.clear();
        self.changed = false;
        self.same_second = false;
        Ok(())
    }

    fn admitted(&mut self, job: &blox_core::Job, _now: Time) {
        let spec = &job.spec;
        self.jobs.push(TimeJob {
            num_gpu: i64::from(spec.n_gpus),
            duration: spec.work_s.trunc() as i64,
            executed: 0,
            last_check: spec.arrival.as_secs() as i64,
            q: 0,
            running: false,
            responded: false,
            pending: 0,
            starts: 0,
            preempts: 0,
            submit: spec.arrival.as_secs() as i64,
            first_start: None,
        });
        self.ids.push(
            spec.source_id
                .as_deref()
                .map_or_else(|| job.id.index().to_string(), str::to_string),
        );
    }

    fn advance<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        world: &mut crate::time::World<'_, M>,
    ) -> crate::time::Advance {
        let now = t.as_secs() as i64;
        if let Some(end) = self.end_at {
            return crate::time::Advance::Finished(secs(end));
        }
        self.changed = false;
        if let Some((at, list)) = self.completing.take() {
            if at == now {
                for id in list {
                    self.changed = true;
                    let tj = &mut self.jobs[id.index()];
                    tj.running = false;
                    self.rows.push(PeerRow {
                        job: id.index(),
                        job_id: self.ids[id.index()].clone(),
                        num_gpu: tj.num_gpu,
                        submit_time: tj.submit,
                        start_time: tj.first_start,
                        end_time: now,
                        duration: tj.duration,
                        pending_time: tj.pending,
                        preempt: tj.preempts,
                        resume: tj.starts,
                    });
                    world.complete(id, t);
                }
            }
        }
        // Credit whole seconds since each job's last check; demote running jobs one level.
        let ids: Vec<JobId> = world.jobs().iter().map(|j| j.id).collect();
        for id in ids {
            let tj = &mut self.jobs[id.index()];
            let gap = now - tj.last_check;
            tj.last_check = now;
            if !tj.running {
                tj.pending += gap;
            }
            if tj.running {
                tj.executed += gap;
                let (executed, g) = (tj.executed, tj.num_gpu);
                if let Some(job) = world.jobs_mut().get_mut(id) {
                    job.executed = executed as f64;
                    job.attained_gpu_s += (gap * g) as f64;
                    job.attained_wall_s += gap as f64;
                }
                let tj = self.jobs[id.index()];
                if self.jumps && tj.q < self.limits.len() && self.service(&tj) >= self.limits[tj.q]
                {
                    self.changed = true;
                    self.jobs[id.index()].q += 1;
                }
            }
        }
        if world.tracked_complete() {
            return crate::time::Advance::Finished(t);
        }
        crate::time::Advance::Continue
    }

    fn stopping(&mut self, job: &mut blox_core::Job, _t: Time) {
        let tj = &mut self.jobs[job.id.index()];
        tj.running = false;
        tj.preempts += 1;
        self.changed = true;
    }

    fn started<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        _speed: f64,
        _resumed: bool,
        t: Time,
        world: &mut crate::time::World<'_, M>,
    ) -> Result<(), SimError> {
        self.changed = true;
        let tj = &mut self.jobs[id.index()];
        tj.running = true;
        tj.starts += 1;
        tj.first_start.get_or_insert(t.as_secs() as i64);
        if !tj.responded {
            tj.responded = true;
            world.emit(&Event::FirstProgress { time: t, job: id });
        }
        Ok(())
    }

    fn next_decision<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        _view: crate::time::NextView,
        next_arrival: Option<Time>,
        world: &crate::time::World<'_, M>,
    ) -> Time {
        let now = t.as_secs() as i64;
        let arrival = next_arrival.map_or(i64::MAX, |a| a.as_secs() as i64);
        let mut end = i64::MAX;
        let mut group: Vec<JobId> = Vec::new();
        let mut jump = i64::MAX;
        for job in world.jobs().iter() {
            let tj = &self.jobs[job.id.index()];
            if !tj.running {
                continue;
            }
            let e = now + tj.duration - tj.executed;
            if e < end {
                end = e;
                group.clear();
                group.push(job.id);
            } else if e == end {
                group.push(job.id);
            }
            if self.jumps && tj.q < self.limits.len() {
                let left = self.limits[tj.q] - tj.executed;
                let j = if self.gpu_time {
                    now + left.div_euclid(tj.num_gpu.max(1))
                } else {
                    now + left
                };
                jump = jump.min(j);
            }
        }
        if arrival == i64::MAX && end == i64::MAX {
            // No arrival and nothing running: the original stops here.
            self.end_at = Some(now);
            return t + Time::from_millis(1);
        }
        if arrival == end {
            self.stale = Some((arrival, group.clone()));
        }
        let soonest = arrival.min(end);
        let next = if soonest > jump {
            self.completing = None;
            jump
        } else if end < arrival {
            self.completing = Some((end, group));
            end
        } else {
            // An arrival event: it carries the list written into it, if any.
            self.completing = self.stale.take().filter(|(at, _)| *at == arrival);
            arrival
        };
        if next <= now {
            // A jump at (or, with thresholds out of order, before) the current second: the
            // original processes a bare event at that time. Taken 1 ms later (same whole
            // second, so nothing is credited). If the previous such event changed nothing, the
            // original repeats it forever.
            if self.same_second && !self.changed {
                self.never_ends = true;
                self.end_at = Some(now);
            }
            self.same_second = true;
            self.completing = None;
            return t + Time::from_millis(1);
        }
        self.same_second = false;
        self.last_decision = next;
        secs(next)
    }

    fn drained_end(&self, t: Time, last_completion: Time) -> Time {
        last_completion.max(t)
    }

    fn admits_oversized(&self) -> bool {
        true
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

/// A Tiresias run through the engine: [`TiresiasTime`] with Tiresias' components as the
/// scheduler ([`PeerDlasPolicy`](blox_policies::tiresias_peer::PeerDlasPolicy) +
/// [`RunSet`](blox_placement::tiresias::RunSet) for the 2D-LAS schedules;
/// [`PeerListOrder`](blox_policies::tiresias_peer::PeerListOrder) +
/// [`PeerFifo`](blox_placement::tiresias::PeerFifo) or
/// [`PeerReplace`](blox_placement::tiresias::PeerReplace) otherwise), accept-all admission and
/// constant speed 1, on `cfg.cluster`'s nodes. Returns the outcome and the model (for its
/// per-job counters). `random` placement is not run here (the original crashes under the
/// schedules that call it; [`run_tiresias`] reproduces that); it is an error.
pub fn run_tiresias_engine<M: MetricSink>(
    cfg: &TiresiasConfig,
    jobs: &[PeerInput],
    sink: M,
) -> Result<(crate::RunOutcome, TiresiasTime, M), SimError> {
    use blox_placement::tiresias::{PeerFifo, PeerReplace, RunSet};
    use blox_policies::tiresias_peer::{PeerDlasPolicy, PeerListOrder};
    let policy = &cfg.policy;
    if cfg.scheme == PeerScheme::Random && !policy.schedule.is_dlas() {
        return Err(SimError::Config(
            "random placement under fifo/sjf/shortest*: the original crashes at the first completion; use the event loop (run_tiresias)".into(),
        ));
    }
    let model = TiresiasTime::new(policy).ok_or_else(|| SimError::Config("no model".into()))?;
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit_time);
    let specs: Vec<JobSpec> = order
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
        .collect();
    let spec = cfg.cluster;
    let nodes = (spec.switches * spec.nodes_per_switch).clamp(0, u32::MAX as i64) as u32;
    let cluster = blox_core::ClusterSpec::uniform(nodes, spec.gpus_per_node.max(0) as u32);
    let sim_cfg = crate::SimConfig::new(model)
        .with_round(Time::from_secs(60))
        .with_starvation(None);
    let mut workload = crate::JobList::new(specs);
    macro_rules! go {
        ($policy:expr, $placement:expr) => {{
            let scheduler = blox_core::Pipeline::new(AdmitAll, $policy, $placement);
            let mut sim = crate::Simulator::new(
                sim_cfg,
                cluster,
                scheduler,
                blox_core::ConstantSpeed(1.0),
                sink,
            );
            let outcome = sim.run(&mut workload)?;
            let model = sim.config().model.clone();
            Ok((outcome, model, sim.into_sink()))
        }};
    }
    if policy.schedule.is_dlas() {
        let p = PeerDlasPolicy::new(policy, cfg.gittins.clone())
            .ok_or_else(|| SimError::Config("not a 2D-LAS schedule".into()))?;
        go!(p, RunSet)
    } else {
        let p = PeerListOrder::new(policy.schedule)
            .ok_or_else(|| SimError::Config("not a single-list schedule".into()))?;
        if policy.schedule == PeerSchedule::Fifo {
            go!(p, PeerFifo::new(spec, cfg.scheme))
        } else {
            go!(p, PeerReplace::new(spec, cfg.scheme))
        }
    }
}

impl PeerRun {
    /// The result of a run through the engine ([`run_tiresias_engine`]), from the model's
    /// own log: completed jobs in completion order, as Tiresias writes them.
    /// `inputs` are the run's jobs (any order): jobs the run never reached are listed too.
    pub fn from_engine(
        model: &TiresiasTime,
        outcome: &crate::RunOutcome,
        scheme: PeerScheme,
        inputs: &[PeerInput],
    ) -> PeerRun {
        let mut order: Vec<&PeerInput> = inputs.iter().collect();
        order.sort_by_key(|p| p.submit_time);
        let mut jobs: Vec<PeerJob> = model
            .jobs
            .iter()
            .map(|t| {
                let mut j = PeerJob::new(t.num_gpu, t.submit, t.duration);
                j.total_executed_time = t.executed;
                j.executed_time = t.executed;
                j.pending_time = t.pending;
                j.preempt = t.preempts;
                j.resume = t.starts;
                j.start_time = t.first_start;
                j.q_id = t.q;
                j
            })
            .collect();
        for p in order.iter().skip(jobs.len()) {
            jobs.push(PeerJob::new(p.num_gpu, p.submit_time, p.duration));
        }
        let end_time = outcome.end_time.as_secs() as i64;
        let rows = model.rows.clone();
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
