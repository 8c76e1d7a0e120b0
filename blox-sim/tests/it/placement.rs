//! End-to-end scenarios of the placements with the placement-aware throughput model: where a
//! job is placed changes how fast it runs.

use super::*;
use blox_core::{
    BoxPlacement, Ctx, Event, MetricSink, PlacementPolicy, Schedule, SchedulingPolicy,
};
use blox_placement::{
    Consolidated, PlacementConfig, PlacementSpeed, ResourceAware, Topology, TopologyAware,
};
use std::sync::Arc;

/// Records every start (time s, job, GPUs, speed) and completion (time ms, job).
#[derive(Default)]
struct Starts {
    starts: Vec<(u64, u32, Vec<u32>, f64)>,
    done: Vec<(u64, u32)>,
}

impl MetricSink for Starts {
    fn on_event(&mut self, e: &Event<'_>) {
        match e {
            Event::Started {
                time,
                job,
                gpus,
                speed,
            } => self.starts.push((
                time.as_secs(),
                job.0,
                gpus.iter().map(|g| g.0).collect(),
                *speed,
            )),
            Event::Completed { time, job } => self.done.push((time.as_millis(), job.0)),
            _ => {}
        }
    }
}

fn lstm(arrival: u64, work: f64, gpus: u32) -> JobSpec {
    let mut s = job(arrival, work, gpus);
    s.model = Some("lstm".into());
    s
}

/// Run with FIFO, the given placement and the placement-aware speed on the default topology.
fn run_placed<S: SchedulingPolicy>(
    policy: S,
    placement: impl PlacementPolicy,
    nodes: u32,
    per: u32,
    jobs: Vec<JobSpec>,
) -> Starts {
    let spec = ClusterSpec::uniform(nodes, per);
    let topo = Arc::new(Topology::default_for(&spec));
    let mut sim = Simulator::new(
        exact(),
        spec,
        Pipeline::new(AcceptAll, policy, placement),
        PlacementSpeed::new(Some(topo)),
        Starts::default(),
    );
    sim.run(&mut JobList::new(jobs)).expect("the run succeeds");
    sim.into_sink()
}

fn fifo() -> blox_policies::Fifo {
    blox_policies::Fifo::default()
}

#[test]
fn a_split_job_runs_slower_and_topology_keeps_it_whole() {
    // 2 nodes x 4 GPUs. A 1-GPU job, then a 4-GPU LSTM job (11 ms of compute, 56 MB of
    // gradients per iteration).
    let jobs = || vec![job(0, 10_000.0, 1), lstm(0, 3000.0, 4)];
    let scattered = run_placed(fifo(), Scattered::new(), 2, 4, jobs());
    let s = &scattered.starts;
    assert_eq!(s[0].2, vec![0]);
    assert_eq!(
        s[1].2,
        vec![1, 2, 3, 4],
        "scattered splits it over two nodes"
    );
    // T = 11 ms + 1.5 x 56 MB / 25 GB/s against 11 ms + 1.5 x 56 MB / 300 GB/s.
    let want = (0.011 + 1.5 * 56e6 / 300e9) / (0.011 + 1.5 * 56e6 / 25e9);
    assert!((s[1].3 - want).abs() < 1e-12, "{} vs {want}", s[1].3);
    let end = (3000.0 / want * 1000.0_f64).ceil() as u64;
    assert!(scattered.done.contains(&(end, 1)));

    for placed in [
        run_placed(fifo(), TopologyAware::default(), 2, 4, jobs()),
        run_placed(fifo(), Consolidated::default(), 2, 4, jobs()),
    ] {
        assert_eq!(placed.starts[0].2, vec![0]);
        assert_eq!(placed.starts[1].2, vec![4, 5, 6, 7]);
        assert_eq!(placed.starts[1].3, 1.0);
        assert!(placed.done.contains(&(3_000_000, 1)));
    }
}

#[test]
fn every_placement_by_name_runs_a_multi_gpu_workload() {
    // A small mixed workload on 4 x 4 GPUs; every placement completes it, deterministically.
    let jobs: Vec<JobSpec> = (0..24)
        .map(|i| {
            let mut s = job(
                i * 200,
                1000.0 + 300.0 * (i % 5) as f64,
                [1, 2, 4, 3, 8][i as usize % 5],
            );
            s.class_id = (i % 9) as u32;
            s.cpus = Some(f64::from(s.n_gpus) * [2.0, 4.0, 6.0][i as usize % 3]);
            s
        })
        .collect();
    let mut mean_speed = Vec::new();
    for name in PlacementConfig::NAMES {
        let cfg: PlacementConfig = name.parse().unwrap();
        let once = || {
            let placement: BoxPlacement = cfg.build().unwrap();
            run_placed(fifo(), placement, 4, 4, jobs.clone())
        };
        let a = once();
        let b = once();
        assert_eq!(a.done, b.done, "{name} is deterministic");
        assert_eq!(a.done.len(), 24, "{name} completes every job");
        let multi: Vec<f64> = a
            .starts
            .iter()
            .filter(|s| s.2.len() > 1)
            .map(|s| s.3)
            .collect();
        assert!(
            multi.iter().all(|&v| v > 0.0 && v <= 1.0),
            "{name}: {multi:?}"
        );
        mean_speed.push((name, multi.iter().sum::<f64>() / multi.len() as f64));
    }
    let speed = |n: &str| mean_speed.iter().find(|x| *x.0 == n).unwrap().1;
    assert!(speed("topology") >= speed("scattered"), "{mean_speed:?}");
    assert!(speed("topology") >= speed("first-fit"), "{mean_speed:?}");
}

#[test]
fn resource_aware_places_where_the_cpus_are() {
    // Node 0's 16 cores all go to job 0 (2 GPUs); job 1 (2 GPUs, 8 cores) must go to node 1.
    let mut a = job(0, 1000.0, 2);
    a.cpus = Some(16.0);
    let mut b = job(0, 1000.0, 2);
    b.cpus = Some(8.0);
    let cons = run_placed(
        fifo(),
        Consolidated::default(),
        2,
        4,
        vec![a.clone(), b.clone()],
    );
    assert_eq!(cons.starts[1].2, vec![2, 3]);
    let ra = run_placed(fifo(), ResourceAware::default(), 2, 4, vec![a, b]);
    assert_eq!(ra.starts[1].2, vec![4, 5]);
}

/// Gives an elastic job its request while it is alone and half of it once another job waits.
struct HalfWhenShared;

impl SchedulingPolicy for HalfWhenShared {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let shared = ctx.jobs.len() > 1;
        for j in ctx.jobs.iter() {
            let n = if j.spec.elastic && shared {
                j.spec.n_gpus / 2
            } else {
                j.spec.n_gpus
            };
            out.push(j.id, n);
        }
    }
}

#[test]
fn an_elastic_job_is_shrunk_in_place_and_slows_down() {
    // 1 node x 4 GPUs: an elastic 4-GPU ResNet-50 job alone, then a 2-GPU job at 300 s.
    let mut e = job(0, 6000.0, 4);
    e.model = Some("resnet50".into());
    e.elastic = true;
    let r = run_placed(
        HalfWhenShared,
        TopologyAware::default(),
        1,
        4,
        vec![e, job(300, 600.0, 2)],
    );
    let s = &r.starts;
    assert_eq!(
        (s[0].0, s[0].1, s[0].2.clone(), s[0].3),
        (0, 0, vec![0, 1, 2, 3], 1.0)
    );
    // At 300 s it is stopped and restarted on its first two GPUs; the new job gets the others.
    assert_eq!((s[1].0, s[1].1, s[1].2.clone()), (300, 0, vec![0, 1]));
    assert!(
        s[1].3 > 0.5 && s[1].3 < 0.51,
        "half the GPUs, a little less communication"
    );
    assert_eq!((s[2].0, s[2].1, s[2].2.clone()), (300, 1, vec![2, 3]));
    // When the small job finishes (at 900 s) the elastic job grows back on the next round.
    assert_eq!(
        (s[3].0, s[3].1, s[3].2.clone(), s[3].3),
        (900, 0, vec![0, 1, 2, 3], 1.0)
    );
}

/// Records the ring bandwidth of every multi-GPU start.
struct Bandwidths {
    topo: Arc<Topology>,
    log: blox_metrics::JobLog,
    bw: Vec<f64>,
}

impl MetricSink for Bandwidths {
    fn on_event(&mut self, e: &Event<'_>) {
        if let Event::Started { gpus, .. } = e {
            if gpus.len() > 1 {
                self.bw.push(self.topo.ring_bandwidth(gpus));
            }
        }
        self.log.on_event(e);
    }
}

/// A multi-GPU workload: 400 jobs, one every 150 s on average, sizes 1/2/4/8 GPUs (Philly-like:
/// 60/15/15/10%), the nine model classes of Blox's zoo in turn, 10 min to 6 h of work.
fn multi_gpu_workload() -> Vec<JobSpec> {
    let mut rng = blox_core::Seed(7).stream("test/placement-workload");
    let mut t = 0;
    (0..400u32)
        .map(|i| {
            t += rng.below(300);
            let n = match rng.below(100) {
                0..=59 => 1,
                60..=74 => 2,
                75..=89 => 4,
                _ => 8,
            };
            let mut s = job(t, 600.0 + rng.next_f64() * 21_000.0, n);
            s.class_id = i % 9;
            s
        })
        .collect()
}

#[test]
fn placements_compared_on_a_multi_gpu_workload() {
    // The workload above on the default 32 x 4 topology (300 GB/s in a node, 25 GB/s in a rack
    // of 16 nodes, 12.5 GB/s across racks), FIFO, exact semantics, placement-aware speed.
    let spec = ClusterSpec::uniform(32, 4);
    let topo = Arc::new(Topology::default_for(&spec));
    let mut rows = Vec::new();
    for name in ["scattered", "first-fit", "consolidated", "topology"] {
        let placement = name
            .parse::<PlacementConfig>()
            .unwrap()
            .build_with(Some(topo.clone()))
            .unwrap();
        let mut sim = Simulator::new(
            exact(),
            spec.clone(),
            Pipeline::new(AcceptAll, fifo(), placement),
            PlacementSpeed::new(Some(topo.clone())),
            Bandwidths {
                topo: topo.clone(),
                log: blox_metrics::JobLog::default(),
                bw: Vec::new(),
            },
        );
        sim.run(&mut JobList::new(multi_gpu_workload())).unwrap();
        let sink = sim.into_sink();
        let summary = blox_metrics::Summary::compute(&sink.log, None);
        let mean_bw = sink.bw.iter().sum::<f64>() / sink.bw.len().max(1) as f64;
        rows.push((name, summary.avg_jct_s, mean_bw, sink.bw.len()));
    }
    for r in &rows {
        println!(
            "{:>12}: avg JCT {:>8.1} s, mean ring bandwidth {:>6.1} GB/s over {} multi-GPU starts",
            r.0, r.1, r.2, r.3
        );
    }
    let row = |n: &str| rows.iter().find(|r| r.0 == n).unwrap();
    assert!(row("topology").2 > row("scattered").2, "{rows:?}");
    assert!(row("topology").1 < row("scattered").1, "{rows:?}");
}
