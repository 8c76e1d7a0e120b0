//! Cluster events under Blox's model: a failed node loses only work, and Blox's model rolls a
//! job back to whole credited rounds.

use super::job;
use blox_admission::AcceptAll;
use blox_core::{ClusterSpec, ConstantSpeed, Event, GpuId, JobSpec, MetricSink, Pipeline, Time};
use blox_metrics::{ClusterLog, JobLog, Timeline};
use blox_nodes::{Checkpointing, NodeEventFile};
use blox_original::Blox;
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
fn node_0_fails_for_an_hour_and_nothing_is_lost_but_work() {
    let runs = [
        (
            "exact",
            run(Exact::new(), FAIL_NODE_0, Checkpointing::OnStop, workload()),
        ),
        (
            "blox",
            run(Blox::new(), FAIL_NODE_0, Checkpointing::OnStop, workload()),
        ),
    ];
    for (sem, (out, (log, timeline, cl, starts))) in runs {
        assert_eq!(out.completed, 24, "{sem}");
        node0_unused_in_window(&starts, &log);
        let s = cl.stats();
        assert_eq!(s.node_events, 2);
        assert!(s.lost_gpu_s > 0.0, "{sem}: jobs ran on node 0");
        assert!(s.failures_hit > 0);
        let failures: u32 = log.admitted().map(|r| r.failures).sum();
        assert_eq!(u64::from(failures), s.failures_hit);
        // GPU-hours in service: 32 GPUs except 8 for one hour.
        let end_h = out.end_time.as_secs_f64() / 3600.0;
        assert!(
            (s.gpu_hours_available - (32.0 * end_h - 8.0)).abs() < 1e-9,
            "{sem}"
        );
        // The timeline records the GPUs in service.
        for smp in timeline.rounds() {
            let want = if smp.time >= Time::from_secs(3600) && smp.time < Time::from_secs(7200) {
                24
            } else {
                32
            };
            assert_eq!(smp.available_gpus, Some(want), "{sem} at {}", smp.time);
            assert!(smp.free_gpus <= want);
        }
    }
}

#[test]
fn blox_semantics_roll_back_to_whole_credited_rounds() {
    let go = |ckpt: Checkpointing| {
        let file = NodeEventFile::parse("3600,0,fail\n3900,0,recover\n", "e".as_ref()).unwrap();
        let mut sim = Simulator::new(
            SimConfig::new(Blox::new()).with_checkpointing(ckpt),
            ClusterSpec::uniform(1, 8),
            Pipeline::new(AcceptAll, Las::default(), Scattered::new()),
            ConstantSpeed(1.0),
            ClusterLog::new(8),
        )
        .with_cluster_events(Box::new(file));
        let out = sim.run(&mut JobList::new(vec![job(0, 7200.0, 8)])).unwrap();
        (out.end_time, sim.into_sink().stats().lost_gpu_s)
    };
    // Started at 0 and credited 300 s a round up to 3600; everything since the start is lost;
    // restarted at 3900, it needs 24 more rounds.
    assert_eq!(
        go(Checkpointing::OnStop),
        (Time::from_secs(3900 + 7200), 8.0 * 3600.0)
    );
    // Checkpoints every 1,000 s: the last one at 3000 keeps the 10 rounds credited by then.
    assert_eq!(
        go(Checkpointing::Every(Time::from_secs(1000))),
        (Time::from_secs(3900 + 4200), 8.0 * 600.0)
    );
    assert_eq!(
        go(Checkpointing::Every(Time::ZERO)),
        (Time::from_secs(3900 + 3600), 0.0)
    );
}
