//! Any engine policy under Sia's model: [`EnginePolicy`], a [`HeteroPolicy`] that keeps an
//! engine [`JobTable`] view of Sia's active jobs and fills each of Sia's rounds from the engine
//! policy's [`Schedule`] (as `blox_gavel::EngineRounds` does on Gavel's clock).
//!
//! [`crate::SiaSim`] owns the clock and the job model (60 s rounds by default, restarts and
//! their delays, per-type progress); this adapter replaces only the policy.
//!
//! - **The jobs.** Fixed GPU counts and batches, as Sia's Gavel+TunedJobs baseline (build the
//!   jobs with [`crate::build_jobs`]`(.., fixed_batch = true)`): a job asks for its workload's
//!   `num_replicas` GPUs, all of one type, and runs at its workload's batch.
//! - **The view.** A job enters the table in the first round it is active (ordered by arrival,
//!   then workload index; ids in that order), with `arrival` its submission time, `n_gpus` its
//!   GPU count, `model` its application and `work_s` an oracle estimate: the seconds its epochs
//!   take at its fixed batch on its fastest type (the per-type step rate of the Gavel baseline's
//!   estimate, `gavel::throughput`, times each epoch's statistical gain at that batch). Every
//!   round, before the policy is asked, `attained_gpu_s` is the GPU-seconds the job ran outside
//!   restart delays (the job model's `used_gpu_seconds`: what it actually ran; crediting the
//!   delays too would let LAS swap two jobs every round with neither getting past its delay),
//!   `attained_wall_s` that over its GPU count, and `executed` the part of `work_s` its progress
//!   stands for (epoch by epoch). The jobs that ran in the previous round hold GPUs of their
//!   type and nodes in the view's cluster (Sia's nodes, one view node each, Sia's type names),
//!   so `is_running` and `time_since_scheduled` mean what they mean in the engine.
//! - **The type.** The schedule is walked in order (a job listed twice, with zero GPUs, or not
//!   active is skipped). A job takes its GPU count on ONE type: the type it ran on last round
//!   if that type still has room (no needless migration: every move costs Sia's restart delay,
//!   up to 250 s, so a pin that changes from round to round, as the engine's `gavel` gives
//!   without a throughput table, would keep a job restarting and never progressing); else the
//!   type its entry pins ([`Allocation::gpu_type`](blox_core::Allocation), by name) if that has
//!   room; else the type it runs fastest on (the estimate above) among those with room, ties
//!   to the earlier type in the cluster's order. A job that fits nowhere waits; later entries
//!   are still tried (back-filling).
//! - **The GPUs.** Per type, a job that stays on its type keeps its previous GPUs (so its
//!   placement is unchanged and it does not restart); then the others, larger first (ties in
//!   schedule order), take the first free GPUs in node order (the Gavel baseline's worker
//!   assignment, except that every job that stays is served first, so a new job never takes a
//!   running job's GPUs).

use blox_core::{
    Cluster, ClusterSpec, Ctx, GpuId, GpuTypeId, Job, JobId, JobSpec, JobTable, NodeId, Schedule,
    SchedulingPolicy, Time,
};
use std::sync::Arc;

use crate::cluster::SiaCluster;
use crate::gavel::throughput;
use crate::job::SiaJob;
use crate::policy::Decision;
use crate::sim::{HeteroPolicy, SimError};

/// One job's facts, fixed when it enters the table.
#[derive(Debug, Clone)]
struct Facts {
    id: JobId,
    gpus: u32,
    /// Estimated steps per second on each type (0: cannot run there).
    rates: Vec<f64>,
    /// Progress at each epoch boundary (`bounds[e]`: progress to finish `e` epochs).
    bounds: Vec<f64>,
    /// Seconds at the reference rate to reach each boundary.
    cum: Vec<f64>,
}

impl Facts {
    /// The estimated seconds of work `progress` stands for.
    fn work_at(&self, progress: f64) -> f64 {
        let n = self.bounds.len();
        for e in 0..n.saturating_sub(1) {
            let (lo, hi) = (self.bounds[e], self.bounds[e + 1]);
            if progress < hi {
                let frac = if hi > lo {
                    ((progress - lo) / (hi - lo)).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                return self.cum[e] + frac * (self.cum[e + 1] - self.cum[e]);
            }
        }
        self.cum.last().copied().unwrap_or(0.0)
    }
}

/// An engine policy run under Sia's model (see the module docs for the rules).
#[derive(Debug)]
pub struct EnginePolicy<S> {
    policy: S,
    name: String,
    interval: f64,
    table: JobTable,
    view: Cluster,
    /// Per Sia type: its first node in the view.
    first_node: Vec<u32>,
    /// Per Sia type: its id in the view.
    view_type: Vec<GpuTypeId>,
    /// Per Sia type: the largest configuration's GPU count (the Gavel estimate's bound).
    largest: Vec<u32>,
    /// Per workload index: the job's facts once it entered the table.
    facts: Vec<Option<Facts>>,
    /// Per table id: the workload index.
    index_of: Vec<usize>,
    /// Per workload index: last round's type and GPUs (worker slots within the type).
    last: Vec<Option<(usize, Vec<u32>)>>,
    rounds: u64,
    last_now: f64,
    schedule: Schedule,
}

fn millis(s: f64) -> Time {
    Time::from_millis((s.max(0.0) * 1000.0).round() as u64)
}

impl<S: SchedulingPolicy> EnginePolicy<S> {
    /// The adapter for `policy` on `cluster` with `jobs` jobs in the workload and rounds of
    /// `interval` seconds.
    pub fn new(
        policy: S,
        cluster: &SiaCluster,
        jobs: usize,
        interval: f64,
    ) -> Result<Self, SimError> {
        let text: Vec<String> = cluster
            .types
            .iter()
            .map(|t| format!("{}x{}:{}", t.nodes, t.gpus_per_node, t.name))
            .collect();
        let spec: ClusterSpec =
            text.join(",")
                .parse()
                .map_err(|e: blox_core::ClusterParseError| {
                    SimError::Policy(crate::ilp::IlpError(format!("engine view's cluster: {e}")))
                })?;
        let view = Cluster::new(spec);
        let mut first_node = Vec::with_capacity(cluster.types.len());
        let mut view_type = Vec::with_capacity(cluster.types.len());
        let mut n = 0;
        for t in &cluster.types {
            first_node.push(n);
            n += t.nodes;
            view_type.push(view.gpu_type_id(&t.name).ok_or_else(|| {
                SimError::Policy(crate::ilp::IlpError(format!(
                    "engine view's cluster lacks type {}",
                    t.name
                )))
            })?);
        }
        let configs = cluster.configurations();
        let largest = (0..cluster.types.len())
            .map(|t| {
                configs
                    .iter()
                    .filter(|c| c.gpu_type == t)
                    .map(|c| c.gpus)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let name = policy.name();
        Ok(EnginePolicy {
            policy,
            name,
            interval,
            table: JobTable::new(),
            view,
            first_node,
            view_type,
            largest,
            facts: vec![None; jobs],
            index_of: Vec::new(),
            last: vec![None; jobs],
            rounds: 0,
            last_now: 0.0,
            schedule: Schedule::default(),
        })
    }

    /// The engine's view of the active jobs (as the policy last saw it, plus this round's
    /// GPUs).
    pub fn table(&self) -> &JobTable {
        &self.table
    }

    /// The estimated work (seconds on the job's fastest type) of workload job `j`, once it
    /// entered the table.
    pub fn work_s(&self, j: usize) -> Option<f64> {
        self.facts
            .get(j)?
            .as_ref()
            .map(|f| f.cum.last().copied().unwrap_or(0.0))
    }

    fn facts_of(&self, job: &SiaJob, cluster: &SiaCluster, id: JobId) -> Result<Facts, SimError> {
        let rates = (0..cluster.types.len())
            .map(|t| throughput(job, cluster, t, self.largest[t]).map(|r| r.max(0.0)))
            .collect::<Result<Vec<f64>, SimError>>()?;
        let best = (0..rates.len())
            .max_by(|&a, &b| rates[a].total_cmp(&rates[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        let rate = rates.get(best).copied().unwrap_or(0.0);
        let app = &job.app.per_type[best];
        let epochs = app.completion_epoch() + 1;
        let bounds: Vec<f64> = (0..=epochs).map(|e| app.progress_for(e)).collect();
        let batch = job.target_batch_size.max(1);
        let scale = batch as f64 / app.init_batch_size.max(1) as f64;
        let mut cum = vec![0.0];
        for e in 0..epochs as usize {
            let (sqr, var) = app.grad_stats(batch, e as u32);
            let gain = (var + sqr) / (var / scale + sqr);
            let gain = if gain.is_finite() && gain > 0.0 {
                gain
            } else {
                1.0
            };
            let span = (bounds[e + 1] - bounds[e]).max(0.0);
            let secs = if rate > 0.0 {
                span / (gain * rate)
            } else {
                f64::INFINITY
            };
            cum.push(cum[e] + secs);
        }
        Ok(Facts {
            id,
            gpus: job.target_num_replicas,
            rates,
            bounds,
            cum,
        })
    }

    fn view_gpus(&self, cluster: &SiaCluster, t: usize, workers: &[u32]) -> Vec<GpuId> {
        let gpn = cluster.types[t].gpus_per_node;
        workers
            .iter()
            .map(|&w| {
                let node = NodeId(self.first_node[t] + w / gpn);
                GpuId(self.view.gpus_of(node).start + w % gpn)
            })
            .collect()
    }

    /// The type job `j` runs on this round, or `None` (the type rule of the module docs).
    fn choose(&self, j: usize, pinned: Option<GpuTypeId>, free: &[u32]) -> Option<usize> {
        let f = self.facts[j].as_ref()?;
        let fits = |t: usize| f.rates[t] > 0.0 && free[t] >= f.gpus;
        if let Some((t, _)) = &self.last[j] {
            if fits(*t) {
                return Some(*t);
            }
        }
        if let Some(t) = pinned.and_then(|p| self.view_type.iter().position(|&v| v == p)) {
            if fits(t) {
                return Some(t);
            }
        }
        (0..free.len())
            .filter(|&t| fits(t))
            .max_by(|&a, &b| f.rates[a].total_cmp(&f.rates[b]).then(b.cmp(&a)))
    }
}

impl<S: SchedulingPolicy> HeteroPolicy for EnginePolicy<S> {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(
        &mut self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        now: f64,
    ) -> Result<Vec<Decision>, SimError> {
        let now_t = millis(now);
        // Completed jobs leave the view.
        let mut is_active = vec![false; jobs.len()];
        for &j in active {
            is_active[j] = true;
        }
        let gone: Vec<(JobId, usize)> = self
            .table
            .iter()
            .map(|job| (job.id, self.index_of[job.id.index()]))
            .filter(|&(_, j)| !is_active[j])
            .collect();
        for (id, j) in gone {
            if let Some(job) = self.table.remove(id) {
                self.view.release(&job.gpus);
            }
            self.last[j] = None;
        }
        // New jobs enter, by arrival then workload index.
        let mut new: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&j| self.facts[j].is_none())
            .collect();
        new.sort_by(|&a, &b| {
            jobs[a]
                .submission_time
                .total_cmp(&jobs[b].submission_time)
                .then(a.cmp(&b))
        });
        for j in new {
            let id = JobId(self.index_of.len() as u32);
            let f = self.facts_of(&jobs[j], cluster, id)?;
            let work = f.cum.last().copied().unwrap_or(0.0);
            let mut spec = JobSpec::new(millis(jobs[j].submission_time), f.gpus, work);
            spec.model = Some(Arc::from(jobs[j].app.name.as_str()));
            spec.source_id = Some(Arc::from(jobs[j].name.as_str()));
            self.table.push(Job::new(id, spec, now_t));
            self.index_of.push(j);
            self.facts[j] = Some(f);
        }
        // Credit what the jobs ran.
        let waited = millis(now - self.last_now);
        for mut job in self.table.iter_progress_mut() {
            let j = self.index_of[job.id.index()];
            let f = self.facts[j].as_ref().expect("entered");
            let held = jobs[j].used_gpu_seconds as f64;
            *job.attained_gpu_s_mut() = held;
            *job.attained_wall_s_mut() = held / f64::from(f.gpus.max(1));
            *job.executed_mut() = f.work_at(jobs[j].progress).min(job.spec.work_s);
            if job.is_running() {
                *job.time_since_scheduled_mut() = Time::ZERO;
            } else {
                *job.time_since_scheduled_mut() += waited;
            }
        }
        self.schedule.clear();
        let ctx = Ctx::new(
            now_t,
            self.rounds,
            millis(self.interval),
            &self.view,
            &self.table,
        );
        self.policy.schedule(&ctx, &mut self.schedule);
        // The type of each job, in schedule order.
        let mut free: Vec<u32> = cluster.types.iter().map(|t| t.gpus()).collect();
        let mut chosen: Vec<Option<usize>> = vec![None; jobs.len()];
        let mut order: Vec<usize> = Vec::new();
        for a in self.schedule.iter() {
            let Some(&j) = self.index_of.get(a.job.index()) else {
                continue;
            };
            if a.n_gpus == 0 || !is_active[j] || chosen[j].is_some() {
                continue;
            }
            if let Some(t) = self.choose(j, a.gpu_type, &free) {
                free[t] -= self.facts[j].as_ref().map_or(0, |f| f.gpus);
                chosen[j] = Some(t);
                order.push(j);
            }
        }
        // The GPUs: jobs staying on their type keep theirs; the others, larger first, take
        // the first free ones.
        let mut taken: Vec<Vec<bool>> = cluster
            .types
            .iter()
            .map(|t| vec![false; t.gpus() as usize])
            .collect();
        let mut workers: Vec<Option<Vec<u32>>> = vec![None; jobs.len()];
        let mut rest = Vec::new();
        for &j in &order {
            let t = chosen[j].expect("chosen");
            match &self.last[j] {
                Some((lt, ws)) if *lt == t && ws.iter().all(|&w| !taken[t][w as usize]) => {
                    for &w in ws {
                        taken[t][w as usize] = true;
                    }
                    workers[j] = Some(ws.clone());
                }
                _ => rest.push(j),
            }
        }
        rest.sort_by_key(|&j| std::cmp::Reverse(self.facts[j].as_ref().map_or(0, |f| f.gpus)));
        for j in rest {
            let t = chosen[j].expect("chosen");
            let k = self.facts[j].as_ref().map_or(0, |f| f.gpus) as usize;
            let ws: Vec<u32> = (0..taken[t].len())
                .filter(|&w| !taken[t][w])
                .take(k)
                .map(|w| w as u32)
                .collect();
            if ws.len() < k {
                return Err(SimError::Policy(crate::ilp::IlpError(format!(
                    "engine fill: {k} GPUs of {} do not fit",
                    cluster.types[t].name
                ))));
            }
            for &w in &ws {
                taken[t][w as usize] = true;
            }
            workers[j] = Some(ws);
        }
        // The view: last round's GPUs back, this round's taken.
        let was_running: Vec<JobId> = self
            .table
            .iter()
            .filter(|j| j.is_running())
            .map(|j| j.id)
            .collect();
        for mut job in self.table.iter_mut() {
            self.view.release(&job.gpus);
            job.gpus.clear();
        }
        for &j in &order {
            let (t, ws) = (
                chosen[j].expect("chosen"),
                workers[j].as_ref().expect("placed"),
            );
            let id = self.facts[j].as_ref().expect("entered").id;
            let gpus = self.view_gpus(cluster, t, ws);
            self.view.allocate(id, &gpus);
            let kept = self.last[j]
                .as_ref()
                .is_some_and(|(lt, lw)| *lt == t && lw == ws);
            if let Some(mut job) = self.table.get_mut(id) {
                job.gpus = gpus.iter().copied().collect();
                job.first_start.get_or_insert(now_t);
                if !kept {
                    job.last_start = Some(now_t);
                }
                job.time_since_scheduled = Time::ZERO;
            }
        }
        for id in was_running {
            let j = self.index_of[id.index()];
            if chosen[j].is_none() {
                if let Some(mut job) = self.table.get_mut(id) {
                    job.preemptions += 1;
                }
            }
        }
        let mut out = Vec::with_capacity(active.len());
        for &j in active {
            let d = chosen[j].zip(workers[j].clone());
            out.push(d.as_ref().map(|(t, ws)| {
                let gpn = cluster.types[*t].gpus_per_node;
                (*t, ws.iter().map(|w| w / gpn).collect())
            }));
            self.last[j] = d;
        }
        self.rounds += 1;
        self.last_now = now;
        Ok(out)
    }
}
