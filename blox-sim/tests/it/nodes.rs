//! Cluster events in the round loop: drains, failures, checkpoints, random failures.

use super::job;
use blox_admission::AcceptAll;
use blox_core::{
    ClusterSpec, ConstantSpeed, Event, GpuId, JobSpec, MetricSink, Pipeline, Seed, Time,
};
use blox_metrics::{ClusterLog, JobLog, Timeline};
use blox_nodes::{Checkpointing, FailureSpec, NodeEventFile, RandomFailures};
use blox_placement::Scattered;
use blox_policies::Las;
use blox_sim::{Exact, JobList, RunOutcome, SimConfig, Simulator, TimeModel};

/// Every start: (time, job, GPUs).
#[derive(Default)]
struct Starts(Vec<(Time, u32, Vec<GpuId>)>);

impl MetricSink for Starts {
    fn on_event(&mut self, e: &Event<'_>) {
        if let Event::Started {
            time, job, gpus, ..
        } = e
        {
            self.0.push((*time, job.0, gpus.to_vec()));
        }
    }
}

type Sinks = (JobLog, Timeline, ClusterLog, Starts);

fn workload() -> Vec<JobSpec> {
    // 24 jobs over the first two hours, of 1 to 8 GPUs and 1 to 3 hours each: the 4x8 cluster
    // is busy when node 0 goes.
    (0..24u64)
        .map(|i| {
            job(
                i * 300,
                3600.0 + (i % 3) as f64 * 3600.0,
                [1, 2, 4, 8][i as usize % 4],
            )
        })
        .collect()
}

fn run<Tm: TimeModel>(
    sem: Tm,
    events: &str,
    ckpt: Checkpointing,
    jobs: Vec<JobSpec>,
) -> (RunOutcome, Sinks) {
    let spec = ClusterSpec::uniform(4, 8);
    let file = NodeEventFile::parse(events, "events.csv".as_ref()).unwrap();
    file.check(&spec).unwrap();
    let cfg = SimConfig::new(sem).with_checkpointing(ckpt);
    let sinks: Sinks = (
        JobLog::default(),
        Timeline::default(),
        ClusterLog::new(32),
        Starts::default(),
    );
    let mut sim = Simulator::new(
        cfg,
        spec,
        Pipeline::new(AcceptAll, Las::default(), Scattered::new()),
        ConstantSpeed(1.0),
        sinks,
    )
    .with_cluster_events(Box::new(file));
    let out = sim.run(&mut JobList::new(jobs)).unwrap();
    (out, sim.into_sink())
}

const FAIL_NODE_0: &str = "time_s,node,event\n3600,0,fail\n7200,0,recover\n";
const DRAIN_NODE_0: &str = "time_s,node,event\n3600,0,leave\n7200,0,join\n";

fn node0_unused_in_window(starts: &Starts, jobs: &JobLog) {
    // No start on node 0 (GPUs 0..8) inside [3600, 7200).
    for (t, j, gpus) in &starts.0 {
        if *t >= Time::from_secs(3600) && *t < Time::from_secs(7200) {
            assert!(
                gpus.iter().all(|g| g.0 >= 8),
                "job {j} started on node 0 at {t}"
            );
        }
    }
    // No job held a node-0 GPU across the window: every job that ran there before 3600 was
    // stopped at 3600 (its next start is at or after 3600, or it completed before).
    for r in jobs.admitted() {
        assert!(r.completion.is_some(), "job {:?} completed", r.id);
    }
}

#[test]
fn a_drain_keeps_progress_and_a_failure_loses_it() {
    let (drained, (dlog, _, dcl, dstarts)) = run(
        Exact::new(),
        DRAIN_NODE_0,
        Checkpointing::OnStop,
        workload(),
    );
    let (failed, (flog, _, fcl, _)) =
        run(Exact::new(), FAIL_NODE_0, Checkpointing::OnStop, workload());
    assert_eq!(drained.completed, 24);
    node0_unused_in_window(&dstarts, &dlog);
    assert_eq!(dcl.stats().lost_gpu_s, 0.0);
    assert_eq!(dcl.stats().failures_hit, 0);
    assert!(drained.preemptions > 0, "drained jobs count as preempted");
    assert!(fcl.stats().lost_gpu_s > 0.0);
    let jct = |l: &JobLog| -> f64 {
        l.admitted()
            .map(|r| r.jct().unwrap().as_secs_f64())
            .sum::<f64>()
    };
    assert!(jct(&flog) > jct(&dlog), "lost work costs time");
    assert!(failed.end_time >= drained.end_time);
}

#[test]
fn checkpoints_bound_the_loss() {
    let none = run(Exact::new(), FAIL_NODE_0, Checkpointing::OnStop, workload())
        .1
         .2
        .stats();
    let every = run(
        Exact::new(),
        FAIL_NODE_0,
        Checkpointing::Every(Time::from_secs(600)),
        workload(),
    )
    .1
     .2
    .stats();
    let cont = run(
        Exact::new(),
        FAIL_NODE_0,
        Checkpointing::Every(Time::ZERO),
        workload(),
    )
    .1
     .2
    .stats();
    assert!(none.lost_gpu_s > every.lost_gpu_s, "{none:?} vs {every:?}");
    assert!(every.lost_gpu_s > 0.0);
    assert_eq!(cont.lost_gpu_s, 0.0);
    assert_eq!(none.failures_hit, cont.failures_hit);
    // Each job hit lost less than 600 s per GPU.
    assert!(every.lost_gpu_s < 600.0 * 8.0 * every.failures_hit as f64);
}

#[test]
fn a_failed_job_keeps_its_attained_service_and_redoes_its_work() {
    // One 8-GPU job on node 0 from t=0 for 2 h of work; node 0 fails at 3600 and comes back at
    // 3900; on a 1x8 cluster it must wait for it, then redo the hour it lost.
    let spec = ClusterSpec::uniform(1, 8);
    let file = NodeEventFile::parse("3600,0,fail\n3900,0,recover\n", "e".as_ref()).unwrap();
    // FIFO that records what it sees: (time, attained service, executed) of the job.
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen2 = seen.clone();
    let fifo = blox_core::policy_fn("fifo-watch", move |ctx, out| {
        for j in ctx.jobs.iter() {
            seen2
                .borrow_mut()
                .push((ctx.now, j.attained_gpu_s, j.executed));
            out.push(j.id, j.n_gpus());
        }
    });
    let mut sim = Simulator::new(
        SimConfig::new(Exact::new()),
        spec,
        Pipeline::new(AcceptAll, fifo, Scattered::new()),
        ConstantSpeed(1.0),
        (JobLog::default(), ClusterLog::new(8)),
    )
    .with_cluster_events(Box::new(file));
    let out = sim.run(&mut JobList::new(vec![job(0, 7200.0, 8)])).unwrap();
    // 3600 s run and lost, 300 s down, then 7200 s from scratch.
    assert_eq!(out.end_time, Time::from_secs(3900 + 7200));
    let (log, cl) = sim.into_sink();
    assert_eq!(log.admitted().next().unwrap().failures, 1);
    assert_eq!(cl.stats().lost_gpu_s, 8.0 * 3600.0);
    assert_eq!(out.preemptions, 0, "a failure is not a preemption");
    // At 3600 the policy sees the failed job waiting with its attained service kept (8 GPUs ×
    // 3600 s) and its work back to zero.
    let at = seen
        .borrow()
        .iter()
        .copied()
        .find(|(t, _, _)| *t == Time::from_secs(3600))
        .unwrap();
    assert_eq!(at, (Time::from_secs(3600), 8.0 * 3600.0, 0.0));
}

fn random_run(mtbf_h: f64, seed: u64) -> (RunOutcome, JobLog, ClusterLog) {
    let spec = ClusterSpec::uniform(4, 8);
    let f = RandomFailures::new(
        FailureSpec::new(mtbf_h, 0.5, Default::default()).unwrap(),
        &spec,
        Seed(seed),
    );
    let mut sim = Simulator::new(
        SimConfig::new(Exact::new()),
        spec,
        Pipeline::new(AcceptAll, Las::default(), Scattered::new()),
        ConstantSpeed(1.0),
        (JobLog::default(), ClusterLog::new(32)),
    )
    .with_cluster_events(Box::new(f));
    let out = sim.run(&mut JobList::new(workload())).unwrap();
    let (log, cl) = sim.into_sink();
    (out, log, cl)
}

#[test]
fn random_failures_are_deterministic_and_cost_time() {
    let (a, la, ca) = random_run(5.0, 3);
    let (b, lb, cb) = random_run(5.0, 3);
    assert_eq!(a, b);
    assert_eq!(la.records(), lb.records());
    assert_eq!(ca.stats(), cb.stats());
    assert_eq!(a.completed, 24);
    assert!(ca.stats().node_events > 0);
    let (_, base, _) = random_run(1e9, 3);
    let avg = |l: &JobLog| {
        l.admitted()
            .map(|r| r.jct().unwrap().as_secs_f64())
            .sum::<f64>()
            / 24.0
    };
    assert!(avg(&la) > avg(&base), "{} vs {}", avg(&la), avg(&base));
}
