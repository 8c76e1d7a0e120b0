//! Same scenario and seed: byte-identical outputs; static and boxed builds agree.

use super::*;
use blox_cli::Scenario;
use blox_original::{Blox, BloxDefaultWorkload};
use blox_policies::Las;
use blox_sim::{Exact, TimeModel};

fn scenario(semantics: Semantics, policy: PolicyConfig) -> Scenario {
    Scenario {
        semantics,
        policy: policy.into(),
        workload: blox_cli::WorkloadConfig::BloxDefault {
            load: 8.0,
            trace_jobs: 12_000,
        },
        track: Some("200..400".into()),
        ..Scenario::default()
    }
}

#[test]
fn same_seed_gives_byte_identical_outputs() {
    for sem in [Semantics::Blox, Semantics::Exact] {
        let a = scenario(sem, PolicyConfig::Las).run().unwrap();
        let b = scenario(sem, PolicyConfig::Las).run().unwrap();
        assert_eq!(a.jobs_csv(), b.jobs_csv());
        assert_eq!(a.timeline_csv(), b.timeline_csv());
        assert_eq!(a.summary_json(), b.summary_json());
        assert!(
            a.outcome.preemptions > 0,
            "the scenario exercises preemption"
        );
    }
}

#[test]
fn another_seed_gives_another_workload() {
    let a = scenario(Semantics::Exact, PolicyConfig::Fifo)
        .run()
        .unwrap();
    let mut s = scenario(Semantics::Exact, PolicyConfig::Fifo);
    s.seed = 2;
    let b = s.run().unwrap();
    assert_ne!(a.jobs_csv(), b.jobs_csv());
}

#[test]
fn files_written_match_the_report_and_rerun_identically() {
    let dir = std::env::temp_dir().join(format!("blox-sim-det-{}", std::process::id()));
    let mut s = scenario(Semantics::Blox, PolicyConfig::Srtf);
    s.out = Some(dir.clone());
    let r = s.run().unwrap();
    let first: Vec<Vec<u8>> = ["jobs.csv", "summary.json", "timeline.csv"]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect();
    assert_eq!(first[0], r.jobs_csv());
    s.run().unwrap();
    for (i, f) in ["jobs.csv", "summary.json", "timeline.csv"]
        .iter()
        .enumerate()
    {
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), first[i], "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn static_and_boxed_builds_give_identical_jobs_csv() {
    let blox = Pipeline::new(
        AcceptAll,
        blox_original::BloxLas::default(),
        blox_original::BloxScattered::new(),
    );
    static_and_boxed_agree(SimConfig::new(Blox::new()), Semantics::Blox, blox);
    let exact = Pipeline::new(AcceptAll, Las::default(), Scattered::new());
    static_and_boxed_agree(SimConfig::new(Exact::new()), Semantics::Exact, exact);
}

/// The static pipeline against the same components built by name through `sem`'s preset.
fn static_and_boxed_agree<Tm: TimeModel + Clone>(
    cfg: SimConfig<Tm>,
    sem: Semantics,
    static_sched: impl blox_core::Scheduler,
) {
    {
        let track = TrackWindow::new(200, 400).unwrap();
        let cfg = cfg.with_track(Some(track));
        let window = Some((JobId(200), JobId(400)));

        let mut sim = Simulator::new(
            cfg.clone(),
            ClusterSpec::uniform(32, 4),
            static_sched,
            ConstantSpeed(1.0),
            JobLog::default(),
        );
        sim.run(&mut BloxDefaultWorkload::new(8.0, 12_000).unwrap())
            .unwrap();
        let mut a = Vec::new();
        blox_metrics::write_jobs_csv(&mut a, sim.sink(), window).unwrap();

        let env = PolicyEnv::new(Some(8.0));
        let reg = blox_cli::Registry::default();
        let boxed: blox_core::BoxPipeline = Pipeline::new(
            AdmissionConfig::AcceptAll.build().unwrap(),
            blox_cli::preset::build_policy(sem, &reg, &PolicyConfig::Las.into(), &env).unwrap(),
            blox_cli::preset::build_placement(sem, &reg, &PlacementConfig::Scattered.into(), None)
                .unwrap(),
        );
        let throughput: blox_core::BoxThroughput = Box::new(ConstantSpeed(1.0));
        let mut sim = Simulator::new(
            cfg,
            ClusterSpec::uniform(32, 4),
            boxed,
            throughput,
            JobLog::default(),
        );
        sim.run(&mut BloxDefaultWorkload::new(8.0, 12_000).unwrap())
            .unwrap();
        let mut b = Vec::new();
        blox_metrics::write_jobs_csv(&mut b, sim.sink(), window).unwrap();
        assert_eq!(a, b, "{sem}");
        assert!(a.len() > 10_000);
    }
}

#[test]
fn every_policy_and_placement_is_deterministic() {
    use blox_placement::PlacementConfig;
    let mut checked = 0;
    // The stock names and the ones the peers add (Synergy's `ftf` and `synergy`).
    let policies = PolicyConfig::NAMES
        .iter()
        .chain(blox_synergy::SynergyPolicyConfig::NAMES);
    for policy in policies {
        let placements = PlacementConfig::NAMES
            .iter()
            .chain(blox_synergy::SynergyPlacementConfig::NAMES);
        for placement in placements {
            let s = Scenario {
                policy: policy.parse().unwrap(),
                placement: placement.parse().unwrap(),
                cluster: "4x4".into(),
                workload: blox_cli::WorkloadConfig::Poisson {
                    load: 6.0,
                    jobs: 120,
                    durations: "log-uniform:600..20000".into(),
                    gpus: "1:0.6,2:0.2,4:0.15,8:0.05".into(),
                },
                ..Scenario::default()
            };
            let a = s
                .run()
                .unwrap_or_else(|e| panic!("{policy}/{placement}: {e}"));
            let b = s.run().unwrap();
            assert_eq!(a.jobs_csv(), b.jobs_csv(), "{policy}/{placement}");
            assert_eq!(a.summary_json(), b.summary_json(), "{policy}/{placement}");
            assert_eq!(
                a.summary.n_completed, 120,
                "{policy}/{placement}: every job completes"
            );
            checked += 1;
        }
    }
    assert!(checked >= 40);
}
