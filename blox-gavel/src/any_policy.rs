//! Any engine policy under Gavel's clock: [`EngineRounds`], a [`GavelRounds`] that keeps an
//! engine [`JobTable`] view of Gavel's active jobs and fills each of Gavel's rounds from the
//! policy's [`Schedule`].
//!
//! [`crate::clock`] owns the clock (rounds that end at their slowest micro-task,
//! crediting order, admission at round ends, idle jumps, failures). This adapter replaces only
//! Gavel's scheduler: its policies, accumulators, priorities and stale-job drop.
//!
//! - **The view.** A job enters the table when Gavel admits it (`admitted_at` = the round
//!   boundary, its arrival from the trace), with `work_s` = its steps over its isolated rate on
//!   `v100` (as the engine's Gavel trace reader computes it; the fastest registered type when
//!   the table has no `v100` rate), `model` = its job type and `n_gpus` = its scale factor. A
//!   finished micro-task credits `attained_wall_s += exec`, `attained_gpu_s += exec × scale
//!   factor` and `executed = work_s × done / total` (Gavel's measured execution time, the
//!   same value Gavel's own accumulators take); a failed one credits nothing. The jobs that ran
//!   in the previous round hold GPUs of their type in the view's cluster (one node per
//!   registered type) when the policy is asked, so `is_running` and `time_since_scheduled`
//!   mean what they mean in the engine.
//! - **The fill.** Each round the policy's schedule is walked in order (a job listed twice,
//!   or with zero GPUs, is skipped); a job takes its scale factor's GPUs on the type its entry
//!   pins ([`Allocation::gpu_type`](blox_core::Allocation)) if that type has room and a
//!   non-zero rate for it, otherwise on its fastest type with room, ties broken by Gavel's
//!   shuffled type order (`v100, p100, k80` shuffled every round by a CPython `random` seeded
//!   with `seed + 5`, Gavel's shuffle stream). A job that fits nowhere waits; later entries
//!   are still tried (back-filling).
//! - **Failures and completion** are Gavel's: a micro-task with fewer steps than GPUs (or no
//!   execution time) fails, the fifth failure in a row drops the job, a job completes when its
//!   steps are done.

use crate::clock::{GavelJob, GavelRounds, MicroTaskOutcome};
use crate::{GAVEL_TYPE_ORDER, MAX_FAILED_ATTEMPTS};
use blox_core::{
    Cluster, ClusterSpec, Ctx, GpuId, GpuTypeId, Job, JobId, JobSpec, JobTable, NodeId, Schedule,
    SchedulingPolicy, ThroughputTable, Time,
};
use blox_workload::GavelTraceJob;
use blox_workload::PyRandom;
use std::sync::Arc;

/// One job's facts and Gavel-side counters.
#[derive(Clone, Debug)]
struct Facts {
    spec: JobSpec,
    scale_factor: u32,
    total_steps: u64,
    throughput: Vec<f64>,
    done: u64,
    fail: u32,
    active: bool,
}

/// An engine policy driven by Gavel's clock (see the module docs for the rules).
#[derive(Debug)]
pub struct EngineRounds<S> {
    policy: S,
    jobs: Vec<Facts>,
    /// Registered types' GPU counts, alphabetical.
    counts: Vec<u32>,
    /// The view's cluster type id of each registered type.
    type_ids: Vec<GpuTypeId>,
    /// Registered type indices in Gavel's fill order (v100, p100, k80), shuffled each round.
    fill_order: Vec<usize>,
    shuffler: PyRandom,
    table: JobTable,
    cluster: Cluster,
    /// Admitted since the last round, in id order (they enter the table at its clock).
    pending: Vec<usize>,
    rounds: u64,
    round_s: f64,
    last_clock: f64,
    schedule: Schedule,
}

impl<S: SchedulingPolicy> EngineRounds<S> {
    /// The adapter for `policy` over `trace` (Gavel's jobs, trace order) with the clock's
    /// `jobs` (their throughputs on the registered `types`), `table` for the jobs' work in
    /// seconds, round length `round_s` and Gavel's `seed`.
    pub fn new(
        policy: S,
        trace: &[GavelTraceJob],
        jobs: &[GavelJob],
        types: &[(String, u32)],
        table: &ThroughputTable,
        round_s: f64,
        seed: u64,
    ) -> Result<Self, String> {
        let spec_text: Vec<String> = types.iter().map(|(t, c)| format!("1x{c}:{t}")).collect();
        let cluster_spec: ClusterSpec = spec_text
            .join(",")
            .parse()
            .map_err(|e: blox_core::ClusterParseError| e.to_string())?;
        let cluster = Cluster::new(cluster_spec);
        let type_ids = types
            .iter()
            .map(|(t, _)| {
                cluster
                    .gpu_type_id(t)
                    .ok_or_else(|| format!("GPU type `{t}` missing from the view's cluster"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let facts = trace
            .iter()
            .zip(jobs)
            .map(|(t, j)| {
                let rate = table
                    .exact("v100", &t.job_type, t.scale_factor)
                    .filter(|r| r.is_finite() && *r > 0.0)
                    .unwrap_or_else(|| j.throughput.iter().copied().fold(0.0, f64::max));
                let work_s = if rate > 0.0 {
                    j.total_steps as f64 / rate
                } else {
                    f64::INFINITY
                };
                let arrival = Time::from_millis((j.arrival_s * 1000.0).round() as u64);
                let mut spec = JobSpec::new(arrival, j.scale_factor, work_s);
                spec.model = Some(Arc::from(t.job_type.as_str()));
                spec.iterations = Some(j.total_steps);
                Facts {
                    spec,
                    scale_factor: j.scale_factor,
                    total_steps: j.total_steps,
                    throughput: j.throughput.clone(),
                    done: 0,
                    fail: 0,
                    active: false,
                }
            })
            .collect();
        let shuffle_seed = seed
            .checked_add(5)
            .ok_or_else(|| format!("seed {seed}: must be below 2^64 - 5"))?;
        Ok(EngineRounds {
            policy,
            jobs: facts,
            counts: types.iter().map(|(_, c)| *c).collect(),
            type_ids,
            fill_order: GAVEL_TYPE_ORDER
                .iter()
                .filter_map(|t| types.iter().position(|(r, _)| r == t))
                .collect(),
            shuffler: PyRandom::new(shuffle_seed),
            table: JobTable::new(),
            cluster,
            pending: Vec::new(),
            rounds: 0,
            round_s,
            last_clock: 0.0,
            schedule: Schedule::default(),
        })
    }

    /// The policy's name.
    pub fn policy_name(&self) -> String {
        self.policy.name()
    }

    fn remove(&mut self, j: usize) {
        self.jobs[j].active = false;
        if let Some(job) = self.table.remove(JobId(j as u32)) {
            self.cluster.release(&job.gpus);
        }
    }

    /// The registered type job `j` runs on this round, or `None` (the fill rule).
    fn choose(
        &self,
        j: usize,
        pinned: Option<GpuTypeId>,
        free: &[u32],
        rank: &[usize],
    ) -> Option<usize> {
        let f = &self.jobs[j];
        let fits = |w: usize| f.throughput[w] > 0.0 && free[w] >= f.scale_factor;
        if let Some(w) = pinned.and_then(|t| self.type_ids.iter().position(|&id| id == t)) {
            if fits(w) {
                return Some(w);
            }
        }
        (0..self.counts.len())
            .filter(|&w| fits(w))
            .min_by(|&a, &b| {
                f.throughput[b]
                    .partial_cmp(&f.throughput[a])
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(rank[a].cmp(&rank[b]))
            })
    }
}

fn millis(s: f64) -> Time {
    Time::from_millis((s.max(0.0) * 1000.0).round() as u64)
}

impl<S: SchedulingPolicy> GavelRounds for EngineRounds<S> {
    fn admit(&mut self, j: usize) {
        let f = &mut self.jobs[j];
        f.active = true;
        f.done = 0;
        f.fail = 0;
        self.pending.push(j);
    }

    fn credit(&mut self, j: usize, _w: usize, steps: u64, exec_s: f64) -> MicroTaskOutcome {
        let f = &mut self.jobs[j];
        let sf = u64::from(f.scale_factor);
        if steps < sf || exec_s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            f.fail += 1;
            if f.fail >= MAX_FAILED_ATTEMPTS {
                self.remove(j);
                return MicroTaskOutcome::Dropped;
            }
            return MicroTaskOutcome::Failed;
        }
        f.fail = 0;
        f.done += steps;
        let (done, total, work) = (f.done, f.total_steps, f.spec.work_s);
        if let Some(mut job) = self.table.get_mut(JobId(j as u32)) {
            job.attained_wall_s += exec_s;
            job.attained_gpu_s += exec_s * sf as f64;
            job.executed = work * (done.min(total) as f64 / total as f64);
            job.iterations_done = done;
        }
        if done >= total {
            self.remove(j);
            return MicroTaskOutcome::Completed;
        }
        MicroTaskOutcome::Progress
    }

    fn force_reset(&mut self) {}

    fn plan_round(&mut self, clock: f64) -> Vec<(usize, usize)> {
        let now = millis(clock);
        for j in std::mem::take(&mut self.pending) {
            if self.jobs[j].active {
                self.table
                    .push(Job::new(JobId(j as u32), self.jobs[j].spec.clone(), now));
            }
        }
        let waited = millis(clock - self.last_clock);
        for mut job in self.table.iter_progress_mut() {
            if job.is_running() {
                *job.time_since_scheduled_mut() = Time::ZERO;
            } else {
                *job.time_since_scheduled_mut() += waited;
            }
        }
        self.schedule.clear();
        let ctx = Ctx::new(
            now,
            self.rounds,
            millis(self.round_s),
            &self.cluster,
            &self.table,
        );
        self.policy.schedule(&ctx, &mut self.schedule);
        // The previous round's jobs give their GPUs back; the fill decides afresh.
        let was_running: Vec<(JobId, Vec<GpuId>)> = self
            .table
            .iter()
            .filter(|j| j.is_running())
            .map(|j| (j.id, j.gpus.to_vec()))
            .collect();
        for (_, gpus) in &was_running {
            self.cluster.release(gpus);
        }
        for mut job in self.table.iter_mut() {
            job.gpus.clear();
        }
        let mut order = self.fill_order.clone();
        self.shuffler.shuffle(&mut order);
        let mut rank = vec![usize::MAX; self.counts.len()];
        for (r, &w) in order.iter().enumerate() {
            rank[w] = r;
        }
        let mut free = self.counts.clone();
        let mut placed = vec![false; self.jobs.len()];
        let mut plan = Vec::new();
        for a in self.schedule.iter() {
            let j = a.job.index();
            if a.n_gpus == 0 || j >= self.jobs.len() || placed[j] || self.table.get(a.job).is_none()
            {
                continue;
            }
            if let Some(w) = self.choose(j, a.gpu_type, &free, &rank) {
                free[w] -= self.jobs[j].scale_factor;
                placed[j] = true;
                plan.push((j, w));
            }
        }
        for &(j, w) in &plan {
            let id = JobId(j as u32);
            let node = NodeId(w as u32);
            let n = self.jobs[j].scale_factor as usize;
            let gpus: Vec<GpuId> = self
                .cluster
                .gpus_of(node)
                .map(GpuId)
                .filter(|&g| self.cluster.owner(g).is_none())
                .take(n)
                .collect();
            self.cluster.allocate(id, &gpus);
            let resumed = was_running.iter().any(|(r, _)| *r == id);
            if let Some(mut job) = self.table.get_mut(id) {
                job.gpus = gpus.iter().copied().collect();
                job.first_start.get_or_insert(now);
                if !resumed {
                    job.last_start = Some(now);
                }
                job.time_since_scheduled = Time::ZERO;
            }
        }
        for (id, _) in &was_running {
            if !placed[id.index()] {
                if let Some(mut job) = self.table.get_mut(*id) {
                    job.preemptions += 1;
                }
            }
        }
        self.rounds += 1;
        self.last_clock = clock;
        plan
    }

    fn done_steps(&self, j: usize) -> u64 {
        self.jobs[j].done
    }

    fn is_active(&self, j: usize) -> bool {
        self.jobs[j].active
    }

    /// The policy's decisions so far (one per round planned).
    fn solves(&self) -> u64 {
        self.rounds
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{lookup_throughputs, register_types};
    use blox_workload::parse_gavel_trace;
    use std::path::Path;

    /// Lists job 1 first, then every other job in id order; pins job 1 to the type `pin`
    /// names.
    struct PinOne(Option<&'static str>);

    impl SchedulingPolicy for PinOne {
        fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
            let b = JobId(1);
            match self.0.and_then(|t| ctx.cluster.gpu_type_id(t)) {
                Some(t) => out.push_on(b, 1, t),
                None => out.push(b, 1),
            }
            for j in ctx.jobs.iter().filter(|j| j.id != b) {
                out.push(j.id, j.spec.n_gpus);
            }
        }
    }

    /// Three 1-GPU jobs (A, B, C; B twice as fast on k80 as on v100, the others faster on
    /// v100) and one 2-GPU job D, on 1 v100 + 2 k80.
    fn setup(pin: Option<&'static str>) -> EngineRounds<PinOne> {
        // job_type, command, working dir, steps flag, needs data dir, total steps, scale
        // factor, priority weight, SLO, arrival.
        let text = "A\tc\td\t--steps\t1\t1000\t1\t1\t-1\t0\n\
                    B\tc\td\t--steps\t1\t1000\t1\t1\t-1\t0\n\
                    C\tc\td\t--steps\t1\t1000\t1\t1\t-1\t0\n\
                    D\tc\td\t--steps\t1\t1000\t2\t1\t-1\t0\n";
        let trace = parse_gavel_trace(text.as_bytes(), Path::new("t.trace")).unwrap();
        let mut table = ThroughputTable::new();
        for (m, sf, v, k) in [("A", 1, 4.0, 1.0), ("B", 1, 1.0, 2.0), ("C", 1, 3.0, 1.0)] {
            table.insert("v100", m, sf, v);
            table.insert("k80", m, sf, k);
        }
        table.insert("v100", "D", 2, 8.0);
        table.insert("k80", "D", 2, 2.0);
        let types = register_types(&[("v100".into(), 1), ("k80".into(), 2)]).unwrap();
        let jobs = lookup_throughputs(&trace, &table, &types).unwrap();
        let mut r =
            EngineRounds::new(PinOne(pin), &trace, &jobs, &types, &table, 360.0, 0).unwrap();
        for j in 0..4 {
            r.admit(j);
        }
        r
    }

    fn names(r: &EngineRounds<PinOne>, plan: &[(usize, usize)]) -> Vec<(usize, String)> {
        plan.iter()
            .map(|&(j, w)| (j, r.cluster.gpu_type_name(r.type_ids[w]).to_string()))
            .collect()
    }

    #[test]
    fn the_fill_takes_the_fastest_type_with_room_in_schedule_order() {
        let mut r = setup(None);
        let plan = r.plan_round(0.0);
        // B takes its fastest, k80; A the only v100; C's v100 is full, so k80; D (2 GPUs)
        // finds no type with room and waits.
        assert_eq!(
            names(&r, &plan),
            vec![(1, "k80".into()), (0, "v100".into()), (2, "k80".into())]
        );
        // The view: the placed jobs hold GPUs of their type.
        assert!(r.table.get(JobId(0)).unwrap().is_running());
        assert!(!r.table.get(JobId(3)).unwrap().is_running());
        assert_eq!(r.cluster.free_gpus(), 0);
    }

    #[test]
    fn a_pinned_type_is_taken_when_it_has_room() {
        // B pinned to v100 runs there (its slower type); A then finds v100 full: k80.
        let mut r = setup(Some("v100"));
        let plan = r.plan_round(0.0);
        assert_eq!(
            names(&r, &plan),
            vec![(1, "v100".into()), (0, "k80".into()), (2, "k80".into())]
        );
        // A pin to a type the cluster lacks is ignored: the fastest type with room.
        let mut r = setup(Some("p100"));
        let plan = r.plan_round(0.0);
        assert_eq!(names(&r, &plan)[0], (1, "k80".to_string()));
    }

    #[test]
    fn credit_updates_the_engine_view_and_completes_jobs() {
        let mut r = setup(None);
        let _ = r.plan_round(0.0);
        assert_eq!(r.credit(0, 0, 400, 100.0), MicroTaskOutcome::Progress);
        let a = r.table.get(JobId(0)).unwrap();
        assert_eq!((a.attained_wall_s, a.attained_gpu_s), (100.0, 100.0));
        // work = 1000 steps / 4 steps/s on v100 = 250 s; 40% done.
        assert!((a.executed - 100.0).abs() < 1e-9, "{}", a.executed);
        // D (2 GPUs): a micro-task of 1 step fails; five in a row drop it.
        for _ in 0..4 {
            assert_eq!(r.credit(3, 0, 1, 10.0), MicroTaskOutcome::Failed);
        }
        assert_eq!(r.credit(3, 0, 1, 10.0), MicroTaskOutcome::Dropped);
        assert!(!r.is_active(3) && r.table.get(JobId(3)).is_none());
        assert_eq!(r.credit(0, 0, 600, 150.0), MicroTaskOutcome::Completed);
        assert!(!r.is_active(0) && r.table.get(JobId(0)).is_none());
        assert_eq!(r.done_steps(0), 1000);
    }
}
