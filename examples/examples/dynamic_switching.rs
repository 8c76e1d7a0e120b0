//! Example 3: dynamic policy switching (Blox's Figures 14 and 15), written as a `Scheduler`.
//!
//! Every `EVERY` rounds the scheduler simulates each combination of {FIFO, LAS, SRTF} ×
//! {accept-all, load-based 1.2, load-based 1.4} forward from a copy of the current state, with
//! no new arrivals, and keeps the one with the lowest mean JCT over the jobs it completes (ties
//! go to the first, in that product order, as in Blox's `predict_simulation.py`). The forward
//! simulation is this crate's own engine: every active or queued job becomes a job arriving
//! "now" with its remaining work (a simplification: running jobs restart on fresh GPUs).
//!
//! It is compared with every static choice on Blox's bursty workload (load 9: long base jobs
//! plus bursts of short ones).

use blox_admission::{AcceptAll, LoadBased};
use blox_core::{
    AdmissionPolicy, Admissions, BoxAdmission, BoxScheduling, ClusterSpec, ConstantSpeed, Ctx,
    Decisions, JobSpec, Pipeline, PlacementPolicy, QueuedJob, Schedule, Scheduler,
    SchedulingPolicy, Time,
};
use blox_metrics::{JobLog, Summary};
use blox_original::BloxDualLoad;
use blox_placement::Scattered;
use blox_policies::{Fifo, Las, Srtf};
use blox_sim::{JobList, SimConfig, Simulator};

const NODES: u32 = 8;
const GPUS: u32 = 4;
/// Re-decide every 12 rounds (one hour).
const EVERY: u64 = 12;

/// A named way to build a component.
type Maker<T> = (&'static str, fn() -> T);

fn policies() -> Vec<Maker<BoxScheduling>> {
    vec![
        ("fifo", || Box::new(Fifo::default())),
        ("las", || Box::new(Las::default())),
        ("srtf", || Box::new(Srtf::default())),
    ]
}

fn admissions() -> Vec<Maker<BoxAdmission>> {
    vec![
        ("accept-all", || Box::new(AcceptAll)),
        ("load-based:1.2", || Box::new(LoadBased::new(1.2).unwrap())),
        ("load-based:1.4", || Box::new(LoadBased::new(1.4).unwrap())),
    ]
}

/// Mean JCT of `jobs` (arriving now) under one combination, or 0 if none completes.
fn trial(
    admission: BoxAdmission,
    policy: BoxScheduling,
    jobs: Vec<JobSpec>,
    waited_s: &[f64],
) -> f64 {
    let scheduler = Pipeline::new(admission, policy, Scattered::new());
    let mut sim = Simulator::new(
        SimConfig::new(blox_sim::Exact::new()),
        ClusterSpec::uniform(NODES, GPUS),
        scheduler,
        ConstantSpeed(1.0),
        JobLog::default(),
    );
    if sim.run(&mut JobList::new(jobs)).is_err() {
        return f64::INFINITY;
    }
    let jcts: Vec<f64> = sim
        .sink()
        .records()
        .iter()
        .filter_map(|r| r.jct().map(|t| t.as_secs_f64() + waited_s[r.seq as usize]))
        .collect();
    if jcts.is_empty() {
        0.0
    } else {
        jcts.iter().sum::<f64>() / jcts.len() as f64
    }
}

/// The switching scheduler.
struct Dynamic {
    admission: BoxAdmission,
    policy: BoxScheduling,
    placement: Scattered,
    choice: (usize, usize),
    history: Vec<(usize, usize)>,
    next_decision: u64,
}

impl Dynamic {
    fn new() -> Self {
        Dynamic {
            admission: Box::new(AcceptAll),
            policy: Box::new(Fifo::default()),
            placement: Scattered::new(),
            choice: (0, 0),
            history: Vec::new(),
            next_decision: 0,
        }
    }

    /// Decide at the first call of a round on or after the next decision round.
    fn maybe_choose(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob]) {
        if ctx.round >= self.next_decision {
            self.next_decision = ctx.round + EVERY;
            self.choose(ctx, queue);
        }
    }

    fn choose(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob]) {
        // The state copy: every active and queued job, arriving now with its remaining work.
        let mut jobs = Vec::new();
        let mut waited = Vec::new();
        for j in ctx.jobs.iter() {
            jobs.push(JobSpec::new(
                Time::ZERO,
                j.n_gpus(),
                j.remaining_work().max(1.0),
            ));
            waited.push(ctx.now.saturating_sub(j.arrival()).as_secs_f64());
        }
        for q in queue {
            jobs.push(JobSpec::new(Time::ZERO, q.spec.n_gpus, q.spec.work_s));
            waited.push(ctx.now.saturating_sub(q.spec.arrival).as_secs_f64());
        }
        if jobs.is_empty() {
            return;
        }
        let mut best = (f64::INFINITY, (0, 0));
        for (p, (_, make_p)) in policies().iter().enumerate() {
            for (a, (_, make_a)) in admissions().iter().enumerate() {
                let score = trial(make_a(), make_p(), jobs.clone(), &waited);
                if score < best.0 {
                    best = (score, (p, a));
                }
            }
        }
        if best.1 != self.choice {
            self.choice = best.1;
            self.policy = (policies()[best.1 .0].1)();
            self.admission = (admissions()[best.1 .1].1)();
        }
        self.history.push(self.choice);
    }
}

impl Scheduler for Dynamic {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        self.maybe_choose(ctx, queue);
        self.admission.admit(ctx, queue, out);
    }
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        // Rounds without arrivals reach here without an admission call.
        self.maybe_choose(ctx, &[]);
        self.policy.schedule(ctx, out);
    }
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.placement.place(ctx, schedule, out);
    }
    fn name(&self) -> String {
        "dynamic".into()
    }
}

fn workload() -> Vec<JobSpec> {
    BloxDualLoad::new(9.0)
        .expect("valid load")
        .take(150)
        .map(|j| JobSpec::new(Time::from_secs(j.arrival_s), 1, j.duration_s))
        .collect()
}

fn run<S: Scheduler>(scheduler: S) -> (Summary, Simulator<S, ConstantSpeed, JobLog>) {
    let mut sim = Simulator::new(
        SimConfig::new(blox_sim::Exact::new()),
        ClusterSpec::uniform(NODES, GPUS),
        scheduler,
        ConstantSpeed(1.0),
        JobLog::default(),
    );
    sim.run(&mut JobList::new(workload()))
        .expect("the run succeeds");
    (Summary::compute(sim.sink(), None), sim)
}

fn main() {
    println!(
        "{:<28} {:>12} {:>12}",
        "scheduler", "avg JCT (h)", "p99 JCT (h)"
    );
    let mut statics = Vec::new();
    for (pn, make_p) in policies() {
        for (an, make_a) in admissions() {
            let (s, _) = run(Pipeline::new(make_a(), make_p(), Scattered::new()));
            println!(
                "{:<28} {:>12.2} {:>12.2}",
                format!("{an}/{pn}"),
                s.avg_jct_s / 3600.0,
                s.p99_jct_s / 3600.0
            );
            assert_eq!(s.n_completed, s.n_tracked, "every job completes");
            statics.push((s.avg_jct_s, format!("{an}/{pn}")));
        }
    }
    let (dynamic, sim) = run(Dynamic::new());
    let history = &sim.scheduler().history;
    let switches = history.windows(2).filter(|w| w[0] != w[1]).count();
    println!(
        "{:<28} {:>12.2} {:>12.2}",
        "dynamic",
        dynamic.avg_jct_s / 3600.0,
        dynamic.p99_jct_s / 3600.0
    );
    statics.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (best, best_name) = &statics[0];
    let worst = statics.last().unwrap().0;
    println!(
        "\ndynamic: {:.2} h after {} decisions and {switches} switches; best static {best_name}: {:.2} h; worst static: {:.2} h",
        dynamic.avg_jct_s / 3600.0,
        history.len(),
        best / 3600.0,
        worst / 3600.0
    );
    assert_eq!(
        dynamic.n_completed, dynamic.n_tracked,
        "every job completes"
    );
    assert!(history.len() > 10, "it decided repeatedly");
    assert!(
        dynamic.avg_jct_s < worst,
        "switching beats the worst static choice"
    );
}
