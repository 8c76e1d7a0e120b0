//! Lazy crediting: when no component reads running jobs' progress, the exact model credits a
//! job only when it stops; every output, and every figure a component reads when it does read,
//! is the same to the bit as with crediting at every decision.

use super::job;
use blox_admission::AcceptAll;
use blox_core::{
    ClusterSpec, ConstantSpeed, Ctx, Event, JobSpec, MetricSink, Pipeline, Schedule,
    SchedulingPolicy, Time,
};
use blox_nodes::{Checkpointing, NodeEventFile};
use blox_placement::Scattered;
use blox_policies::Fifo;
use blox_sim::{Decide, Exact, JobList, SimConfig, Simulator};

/// When the probe says it reads progress.
#[derive(Clone, Copy, Debug)]
enum Reads {
    Always,
    Never,
    /// At every `k`-th call.
    Every(u64),
}

/// (call, job, executed, attained GPU-s, attained wall-s) as bits: what the probe read.
type Seen = (u64, u32, u64, u64, u64);

/// FIFO that records the progress of every job when it says it reads it.
struct Probe {
    fifo: Fifo,
    reads: Reads,
    calls: u64,
    seen: Vec<Seen>,
}

impl SchedulingPolicy for Probe {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        if self.reads_progress() {
            for j in ctx.jobs.iter() {
                self.seen.push((
                    self.calls,
                    j.id.0,
                    j.executed.to_bits(),
                    j.attained_gpu_s.to_bits(),
                    j.attained_wall_s.to_bits(),
                ));
            }
        }
        self.calls += 1;
        self.fifo.schedule(ctx, out);
    }

    fn reads_progress(&self) -> bool {
        match self.reads {
            Reads::Always => true,
            Reads::Never => false,
            Reads::Every(k) => self.calls % k == 0,
        }
    }
}

/// Every event, as text.
#[derive(Default)]
struct Events(Vec<String>);

impl MetricSink for Events {
    fn on_event(&mut self, e: &Event<'_>) {
        self.0.push(format!("{e:?}"));
    }
}

/// 160 jobs of 1 to 8 GPUs and 10 min to 6 h over 20 h, on 4x8 GPUs: busy, with waits past the
/// starvation threshold (so priorities change and placements preempt).
fn workload() -> Vec<JobSpec> {
    (0..160u64)
        .map(|i| {
            let work = 600.0 + ((i * 7919) % 21_000) as f64 + 0.123 * i as f64;
            job(
                i * 450 + (i % 7) * 13,
                work,
                [1, 2, 4, 8, 1, 3][i as usize % 6],
            )
        })
        .collect()
}

const EVENTS: &str =
    "time_s,node,event\n20000,0,fail\n26000,0,recover\n40000,2,leave\n43000,2,join\n";

fn run(reads: Reads, decide: Decide) -> (Vec<String>, Vec<Seen>) {
    let spec = ClusterSpec::uniform(4, 8);
    let file = NodeEventFile::parse(EVENTS, "events.csv".as_ref()).unwrap();
    let cfg = SimConfig::new(
        Exact::new()
            .with_preemption_cost(Time::from_secs(37))
            .with_decide(decide),
    )
    .with_starvation(Some(Time::from_secs(5400)))
    .with_checkpointing(Checkpointing::Every(Time::from_secs(900)));
    let probe = Probe {
        fifo: Fifo::default(),
        reads,
        calls: 0,
        seen: Vec::new(),
    };
    let mut sim = Simulator::new(
        cfg,
        spec,
        Pipeline::new(AcceptAll, probe, Scattered::new()),
        ConstantSpeed(1.3),
        Events::default(),
    )
    .with_cluster_events(Box::new(file));
    sim.run(&mut JobList::new(workload())).unwrap();
    let seen = sim.scheduler().policy.seen.clone();
    (sim.into_sink().0, seen)
}

/// The two event lists are equal (else: the first difference).
fn same(got: &[String], want: &[String], decide: Decide) {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        panic!(
            "{decide:?}: event {i} differs:\n  got  {}\n  want {}",
            got[i], want[i]
        );
    }
    assert_eq!(got.len(), want.len(), "{decide:?}");
}

#[test]
fn lazy_crediting_changes_no_output_and_no_figure_read() {
    for decide in [Decide::Rounds, Decide::Events] {
        let (eager, all) = run(Reads::Always, decide);
        let (lazy, none) = run(Reads::Never, decide);
        let (mixed, some) = run(Reads::Every(3), decide);
        assert!(none.is_empty());
        assert!(
            eager.iter().any(|e| e.starts_with("Preempted")),
            "the run preempts"
        );
        assert!(eager.iter().any(|e| e.starts_with("Failed")), "and fails");
        same(&lazy, &eager, decide);
        same(&mixed, &eager, decide);
        // What the probe read at every third call is what it read then when always reading.
        let want: Vec<_> = all.iter().filter(|s| s.0 % 3 == 0).copied().collect();
        assert!(!some.is_empty());
        assert_eq!(some, want, "{decide:?}");
    }
}
