//! Test helpers shared by blox-placement's tests and blox-original's tests of Blox's `Place`
//! (which include this file by path).

#![allow(dead_code)]

pub(crate) use blox_core::{
    Cluster, ClusterSpec, Ctx, Decisions, GpuId, Job, JobId, JobSpec, JobTable, PlacementPolicy,
    Schedule, Time,
};

/// A cluster and its job table: jobs listed with the GPUs they run on (empty: waiting), ids in
/// order.
#[derive(Debug)]
pub(crate) struct World {
    pub(crate) cluster: Cluster,
    pub(crate) jobs: JobTable,
}

pub(crate) fn world(spec: ClusterSpec, jobs: Vec<(JobSpec, Vec<u32>)>) -> World {
    let mut cluster = Cluster::new(spec);
    let mut table = JobTable::new();
    for (i, (spec, gpus)) in jobs.into_iter().enumerate() {
        let id = JobId(i as u32);
        let mut job = Job::new(id, spec, Time::ZERO);
        let gpus: Vec<GpuId> = gpus.into_iter().map(GpuId).collect();
        if !gpus.is_empty() {
            cluster.allocate(id, &gpus);
            job.gpus.extend_from_slice(&gpus);
        }
        table.push(job);
    }
    World {
        cluster,
        jobs: table,
    }
}

/// A rigid job of `n` GPUs.
pub(crate) fn rigid(n: u32) -> JobSpec {
    JobSpec::new(Time::ZERO, n, 1000.0)
}

/// An elastic job requesting `n` GPUs.
pub(crate) fn elastic(n: u32) -> JobSpec {
    let mut s = rigid(n);
    s.elastic = true;
    s
}

/// A rigid job of `n` GPUs needing `cpus` cores in all.
pub(crate) fn with_cpus(n: u32, cpus: f64) -> JobSpec {
    let mut s = rigid(n);
    s.cpus = Some(cpus);
    s
}

pub(crate) fn schedule(entries: &[(u32, u32)]) -> Schedule {
    let mut s = Schedule::default();
    for &(j, n) in entries {
        s.push(JobId(j), n);
    }
    s
}

pub(crate) fn run(p: &mut dyn PlacementPolicy, w: &World, sched: &Schedule) -> Decisions {
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &w.cluster, &w.jobs);
    let mut out = Decisions::default();
    p.place(&ctx, sched, &mut out);
    out
}

/// Decisions as plain numbers: stops, then `(job, gpus)` starts.
pub(crate) fn plain(d: &Decisions) -> (Vec<u32>, Vec<(u32, Vec<u32>)>) {
    (
        d.stop.iter().map(|j| j.0).collect(),
        d.start
            .iter()
            .map(|(j, g)| (j.0, g.iter().map(|g| g.0).collect()))
            .collect(),
    )
}

/// One placement, one round: assert the stops and starts.
pub(crate) fn check(
    p: &mut dyn PlacementPolicy,
    w: &World,
    sched: &[(u32, u32)],
    stops: &[u32],
    starts: &[(u32, &[u32])],
) {
    let name = p.name();
    let got = plain(&run(p, w, &schedule(sched)));
    let want = (
        stops.to_vec(),
        starts.iter().map(|(j, g)| (*j, g.to_vec())).collect(),
    );
    assert_eq!(got, want, "{name}");
}
