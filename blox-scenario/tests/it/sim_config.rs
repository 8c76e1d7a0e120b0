//! `Scenario::sim_config()` goes straight to `Simulator::new` (a `ModelChoice` is a time model)
//! and gives the same results as the scenario's own run, under every engine semantics.

use blox_core::Pipeline;
use blox_metrics::JobLog;
use blox_scenario::{preset, Registry, Scenario};
use blox_sim::Simulator;

#[test]
fn a_users_simulator_on_sim_config_matches_the_scenarios_own_run() {
    for semantics in ["exact", "blox"] {
        let s: Scenario = toml::from_str(&format!(
            "semantics = \"{semantics}\"\ncluster = \"4x4\"\npolicy = {{ kind = \"las\" }}\n\
             workload = {{ kind = \"poisson\", load = 6.0, jobs = 60 }}"
        ))
        .unwrap();
        let reg = Registry::default();
        let env = s.policy_env().unwrap();
        let scheduler = Pipeline::new(
            reg.build_admission(&s.admission).unwrap(),
            preset::build_policy(s.semantics, &reg, &s.policy, &env).unwrap(),
            preset::build_placement(
                s.semantics,
                &reg,
                &s.placement,
                Some(s.topology_model().unwrap()),
            )
            .unwrap(),
        );
        let mut sim = Simulator::new(
            s.sim_config().unwrap(),
            s.cluster_spec().unwrap(),
            scheduler,
            s.throughput().unwrap(),
            JobLog::default(),
        );
        let outcome = sim.run(&mut s.workload().unwrap()).unwrap();
        let report = s.run_with(&reg).unwrap();
        assert_eq!(outcome.end_time, report.outcome.end_time, "{semantics}");
        assert_eq!(
            outcome.preemptions, report.outcome.preemptions,
            "{semantics}"
        );
        assert_eq!(
            sim.sink().jcts_s(None),
            report.log.jcts_s(None),
            "{semantics}"
        );
    }
}
