//! Test support: hand-built job tables, proptest strategies over them, and the invariant checks
//! every policy's property tests share.

use blox_core::{
    Cluster, ClusterSpec, Ctx, GpuId, Job, JobId, JobMut, JobSpec, JobTable, Schedule,
    SchedulingPolicy, Time, PRIORITY_STARVED,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A job table, the cluster it lives on and the time of the call.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub(crate) cluster: Cluster,
    pub(crate) jobs: JobTable,
    pub(crate) now: Time,
    next_gpu: u32,
}

impl Table {
    /// An empty table on one node of `gpus` GPUs, at t = 0.
    pub(crate) fn new(gpus: u32) -> Self {
        Table {
            cluster: Cluster::new(ClusterSpec::uniform(1, gpus)),
            jobs: JobTable::new(),
            now: Time::ZERO,
            next_gpu: 0,
        }
    }

    /// Add a rigid job arriving at `arrival` seconds; its id is the next one.
    pub(crate) fn job(mut self, arrival: u64, n_gpus: u32, work_s: f64) -> Self {
        let id = JobId(self.jobs.len() as u32);
        let t = Time::from_secs(arrival);
        self.jobs
            .push(Job::new(id, JobSpec::new(t, n_gpus, work_s), t));
        self
    }

    /// Make the last job elastic.
    pub(crate) fn elastic(mut self) -> Self {
        self.last().spec.elastic = true;
        self
    }

    /// Set the last job's attained service (in GPU-seconds; its wall-clock service is that over
    /// its GPU count) and executed work.
    pub(crate) fn served(mut self, attained_gpu_s: f64, executed: f64) -> Self {
        let mut j = self.last();
        j.attained_gpu_s = attained_gpu_s;
        j.attained_wall_s = attained_gpu_s / f64::from(j.spec.n_gpus.max(1));
        j.executed = executed;
        drop(j);
        self
    }

    /// Set the last job's attained service in wall-clock seconds (its GPU-seconds are that times
    /// its GPU count) and executed work.
    pub(crate) fn served_wall(mut self, attained_wall_s: f64, executed: f64) -> Self {
        let mut j = self.last();
        j.attained_wall_s = attained_wall_s;
        j.attained_gpu_s = attained_wall_s * f64::from(j.spec.n_gpus);
        j.executed = executed;
        drop(j);
        self
    }

    /// Mark job `id` running (on made-up GPUs; policies only ask whether it runs).
    pub(crate) fn running(mut self, id: u32) -> Self {
        let g = self.next_gpu;
        self.next_gpu += 1;
        self.jobs
            .get_mut(JobId(id))
            .expect("job exists")
            .gpus
            .push(GpuId(g));
        self
    }

    /// Move job `id` to the starved class.
    pub(crate) fn starved(mut self, id: u32) -> Self {
        self.jobs.get_mut(JobId(id)).expect("job exists").priority = PRIORITY_STARVED;
        self
    }

    /// Set the time of the call.
    pub(crate) fn at(mut self, secs: u64) -> Self {
        self.now = Time::from_secs(secs);
        self
    }

    fn last(&mut self) -> JobMut<'_> {
        let id = JobId(self.jobs.len() as u32 - 1);
        self.jobs.get_mut(id).expect("a job was added")
    }

    pub(crate) fn ctx(&self) -> Ctx<'_> {
        let r = Time::from_secs(300);
        Ctx::new(
            self.now,
            self.now.as_millis() / r.as_millis(),
            r,
            &self.cluster,
            &self.jobs,
        )
    }
}

/// One call of `policy` on `t`.
pub(crate) fn run(policy: &mut impl SchedulingPolicy, t: &Table) -> Schedule {
    let mut out = Schedule::default();
    policy.schedule(&t.ctx(), &mut out);
    out
}

/// The job ids of one call, in order.
pub(crate) fn order(policy: &mut impl SchedulingPolicy, t: &Table) -> Vec<u32> {
    run(policy, t).iter().map(|a| a.job.0).collect()
}

/// Random job tables: 0–40 jobs on 1–4 nodes of 1–8 GPUs, arrivals increasing with the id,
/// GPU counts at most the cluster's, random service (with many exact ties), some running, some
/// starved, some elastic, and a call time at or after the last arrival.
pub(crate) fn tables() -> impl Strategy<Value = Table> {
    let job = (
        0u64..2_000,                                    // arrival gap
        0usize..4,                                      // GPU-count class
        prop_oneof![Just(600.0), 1.0f64..50_000.0],     // work (ties on purpose)
        prop_oneof![Just(0.0), Just(0.5), 0.0f64..1.0], // served fraction
        any::<bool>(),                                  // running (when GPUs allow)
        0u8..20,                                        // starved if 0
        any::<bool>(),                                  // elastic
    );
    (
        1u32..=4,
        prop_oneof![Just(1u32), Just(4), Just(8)],
        prop::collection::vec(job, 0..40),
        0u64..20_000,
    )
        .prop_map(|(nodes, per, specs, extra)| {
            let mut cluster = Cluster::new(ClusterSpec::uniform(nodes, per));
            let total = cluster.total_gpus();
            let mut jobs = JobTable::new();
            let mut arrival = Time::ZERO;
            for (i, (gap, g, work, frac, run, starve, elastic)) in specs.into_iter().enumerate() {
                arrival += Time::from_secs(gap);
                let n_gpus = [1, 2, 4, 8][g].min(total);
                let id = JobId(i as u32);
                let mut spec = JobSpec::new(arrival, n_gpus, work);
                spec.elastic = elastic;
                let mut job = Job::new(id, spec, arrival);
                job.executed = (work * frac).floor();
                job.attained_wall_s = job.executed;
                job.attained_gpu_s = job.executed * f64::from(n_gpus);
                if starve == 0 {
                    job.priority = PRIORITY_STARVED;
                }
                if run && cluster.free_gpus() >= n_gpus {
                    let mut plan = cluster.free_map();
                    let mut gpus = Vec::new();
                    for k in 0..plan.n_nodes() {
                        let free: Vec<GpuId> =
                            plan.free_of_node(blox_core::NodeId(k as u32)).collect();
                        for g in free {
                            if gpus.len() < n_gpus as usize {
                                gpus.push(g);
                            }
                        }
                    }
                    plan.occupy(&gpus);
                    cluster.allocate(id, &gpus);
                    job.gpus.extend(gpus);
                }
                jobs.push(job);
            }
            Table {
                cluster,
                jobs,
                now: arrival + Time::from_secs(extra),
                next_gpu: 0,
            }
        })
}

/// Every active job exactly once (the kit's checker).
pub(crate) fn check_permutation(out: &Schedule, t: &Table) -> Result<(), TestCaseError> {
    blox_testkit::check_permutation(&t.ctx(), out).map_err(|v| TestCaseError::fail(v.to_string()))
}

/// The invariants of a policy that orders jobs and asks for each job's request: a permutation,
/// request counts, and the same output from a fresh instance and from a second call.
pub(crate) fn check_ordering_policy<P: SchedulingPolicy>(
    make: impl Fn() -> P,
    t: &Table,
) -> Result<(), TestCaseError> {
    let mut p = make();
    let a = run(&mut p, t);
    check_permutation(&a, t)?;
    for e in a.iter() {
        let j = t.jobs.get(e.job).expect("active");
        prop_assert_eq!(
            e.n_gpus,
            j.n_gpus(),
            "ordering policies ask for the request"
        );
    }
    check_deterministic(make, t, &a)?;
    Ok(())
}

/// The same input gives the same output: to a fresh instance, and to the same one called again.
pub(crate) fn check_deterministic<P: SchedulingPolicy>(
    make: impl Fn() -> P,
    t: &Table,
    first: &Schedule,
) -> Result<(), TestCaseError> {
    let mut fresh = make();
    let b = run(&mut fresh, t);
    prop_assert_eq!(first, &b, "fresh instance, same input");
    let c = run(&mut fresh, t);
    prop_assert_eq!(first, &c, "second call, same input");
    Ok(())
}
