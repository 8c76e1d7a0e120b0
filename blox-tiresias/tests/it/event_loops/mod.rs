//! Tiresias' self-contained event loops (`run_sim.py`'s `one_queue_fifo_sim_jobs`,
//! `one_queue_sim_jobs` and `dlas_sim_jobs`, TIRESIAS-SEMANTICS.md §4), written as the original
//! runs them: a **test oracle** for the engine path ([`blox_tiresias::run_tiresias_engine`]), which the
//! tests below check against these loops and both against the specification's vectors.
//!
//! They are compiled for this crate's tests only. They also reproduce two behaviours the engine
//! path refuses: `random` placement under the schedules that call the placement (the original
//! crashes at the first completion, §7.4), and 2D-LAS thresholds that decrease (the original then
//! predicts queue jumps before the current event and its clock goes back; its own thresholds
//! are hard-coded and increase).

mod engine_vs_loops;
mod vectors;

use blox_core::{Event, JobId, JobSpec, MetricSink, RoundSample};
use blox_tiresias::placement::{PeerCluster, PeerScheme, Placement};
use blox_tiresias::policy::{Mlfq, PeerJob, PeerSchedule, PeerStatus};
use blox_tiresias::run::{engine_specs, PeerInput, PeerRun, PeerStop, TiresiasConfig};
use blox_tiresias::time::PeerRow;
use std::collections::{BTreeMap, VecDeque};

/// Whole seconds as the engine's time (negative times, which the original's corner cases
/// produce, clamp to 0), as blox-tiresias converts them.
fn secs(t: i64) -> blox_core::Time {
    blox_core::Time::from_secs(t.max(0) as u64)
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
pub(crate) fn run_tiresias<M: MetricSink>(
    cfg: &TiresiasConfig,
    jobs: &[PeerInput],
    sink: &mut M,
) -> PeerRun {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit_time);
    let inputs: Vec<PeerInput> = order.iter().map(|&i| jobs[i].clone()).collect();
    // The engine path's jobs, in the same (stable, by submission) order.
    let specs = engine_specs(jobs);
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
    PeerRun::new(
        run.rows,
        run.jobs,
        stop,
        run.events,
        end,
        preemptions,
        cfg.scheme == PeerScheme::Count,
    )
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
