//! `RunSettings::engine_scenario_from` and `prepare_from`: a scenario given as data (Python's
//! `scenario=` dict) counts as a given scenario, as a file does.

use blox_scenario::{Model, Prepared, Registry, RunSettings, Scenario, Semantics};

fn base() -> Scenario {
    Scenario {
        cluster: "4x4".into(),
        seed: 9,
        ..Scenario::default()
    }
}

#[test]
fn no_base_is_engine_scenario() {
    let st = RunSettings {
        load: Some(3.0),
        ..RunSettings::default()
    };
    assert_eq!(
        st.engine_scenario_from(None).unwrap(),
        st.engine_scenario().unwrap()
    );
}

#[test]
fn settings_apply_onto_the_base() {
    let st = RunSettings {
        load: Some(5.0),
        round: Some(600),
        ..RunSettings::default()
    };
    let s = st.engine_scenario_from(Some(base())).unwrap();
    assert_eq!((s.cluster.as_str(), s.seed, s.round_s), ("4x4", 9, 600));
    assert_eq!(s.load(), Some(5.0));
}

#[test]
fn a_base_keeps_synergys_defaults_off_as_a_file_does() {
    let st = RunSettings {
        semantics: Some(Model::Synergy),
        ..RunSettings::default()
    };
    // Without a scenario, Synergy's defaults: its cluster and seed.
    let plain = st.engine_scenario().unwrap();
    assert_eq!((plain.cluster.as_str(), plain.seed), ("16x8", 42));
    // With one, the scenario's.
    let s = st.engine_scenario_from(Some(base())).unwrap();
    assert_eq!(s.semantics, Semantics::Synergy);
    assert_eq!((s.cluster.as_str(), s.seed), ("4x4", 9));
}

#[test]
fn a_scenario_given_twice_is_an_error() {
    let st = RunSettings {
        scenario: Some("s.toml".into()),
        ..RunSettings::default()
    };
    let e = st.engine_scenario_from(Some(base())).unwrap_err();
    assert!(e.to_string().contains("given twice"), "{e}");
}

#[test]
fn prepare_from_runs_the_base_and_refuses_it_where_the_model_takes_no_scenario() {
    let st = RunSettings {
        track: Some("0..10".into()),
        ..RunSettings::default()
    };
    match st.prepare_from(Some(base()), &Registry::default()).unwrap() {
        Prepared::Engine(s) => assert_eq!((s.cluster.as_str(), s.seed), ("4x4", 9)),
        other => panic!("expected an engine run, got {other:?}"),
    }
    let tiresias = RunSettings {
        semantics: Some(Model::Tiresias),
        trace: vec!["t.csv".into()],
        ..RunSettings::default()
    };
    let e = tiresias
        .prepare_from(Some(base()), &Registry::default())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("--scenario has no meaning under --semantics tiresias"),
        "{e}"
    );
}
