//! Tests of `model` (the library's `src/model.rs`) through the public API.

use blox_scenario::*;
use Setting as S;

#[test]
fn names_parse_case_insensitively_and_typos_get_a_suggestion() {
    for m in Model::ALL {
        assert_eq!(m.name().parse::<Model>(), Ok(m));
        assert_eq!(m.name().to_uppercase().parse::<Model>(), Ok(m));
    }
    let e = "tiresas".parse::<Model>().unwrap_err();
    assert!(e.contains("did you mean `tiresias`"), "{e}");
    assert!(
        e.contains("exact, blox, synergy, tiresias, gavel, pollux, sia"),
        "{e}"
    );
    assert!(!"zzzzzz"
        .parse::<Model>()
        .unwrap_err()
        .contains("did you mean"));
}

#[test]
fn a_setting_a_model_does_not_take_is_refused_naming_who_takes_it() {
    assert_eq!(Model::Exact.check(&[S::Cluster, S::Load]), Ok(()));
    let e = Model::Gavel.check(&[S::Cluster, S::Placement]).unwrap_err();
    assert!(
        e.starts_with("--placement has no meaning under --semantics gavel"),
        "{e}"
    );
    assert!(
        e.contains("taken by --semantics exact, blox, synergy, tiresias, pollux"),
        "{e}"
    );
    let e = Model::Exact.check(&[S::ClusterSpec]).unwrap_err();
    assert!(
        e.ends_with("--cluster-spec is taken by --semantics tiresias"),
        "{e}"
    );
    let e = Model::Tiresias.check(&[S::Round, S::Seed]).unwrap_err();
    assert!(e.starts_with("--round, --seed have no meaning"), "{e}");
}

#[test]
fn every_setting_is_taken_by_some_model() {
    for s in Setting::ALL {
        assert!(Model::ALL.iter().any(|m| m.takes(s)), "{}", s.flag());
    }
}
