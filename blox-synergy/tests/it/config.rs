//! Tests of `config` (the library's `src/config.rs`) through the public API.

use blox_core::*;
use blox_policies::PolicyEnv;
use blox_synergy::*;

#[test]
fn the_placement_names_options_and_files() {
    let s: SynergyPlacementConfig = "synergy:mode=fair".parse().unwrap();
    assert_eq!(s.mode(), SynergyMode::Fair);
    assert_eq!(s.to_string(), "synergy:mode=fair");
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json, r#"{"kind":"synergy","mode":"fair"}"#);
    assert_eq!(
        serde_json::to_string(&SynergyPlacementConfig::default()).unwrap(),
        r#"{"kind":"synergy","mode":"tune"}"#
    );
    let d: SynergyPlacementConfig = serde_json::from_str(r#"{"kind":"synergy"}"#).unwrap();
    assert_eq!(d, SynergyPlacementConfig::default());
    assert_eq!(d.to_string(), "synergy");
    let e = serde_json::from_str::<SynergyPlacementConfig>(r#"{"kind":"synergy","x":1}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `x`"), "{e}");
    let err = |s: &str| s.parse::<SynergyPlacementConfig>().unwrap_err().0;
    assert!(err("synergy:mode=opt").contains("matrix"));
    assert!(err("synergy:mode=best").contains("fair, greedy or tune"));
    assert!(err("synergy:speed=1").contains("unknown parameter `speed`"));
    assert!(err("synergy:3").contains("not key=value"));
    assert!(s.build(None).is_ok());
}

#[test]
fn the_policy_name_and_the_semantics_keys() {
    let p: SynergyPolicyConfig = "ftf".parse().unwrap();
    assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"kind":"ftf"}"#);
    let e = serde_json::from_str::<SynergyPolicyConfig>(r#"{"kind":"ftf","y":2}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `y`"), "{e}");
    let env = PolicyEnv::new(None);
    assert_eq!(p.build(&env).unwrap().name(), "synergy-ftf:fair=true");
    let name = |n: &str, m| semantics_policy(n, m).map(|p| p.name());
    assert_eq!(name("ftf", None).as_deref(), Some("synergy-ftf:fair=true"));
    assert_eq!(
        name("ftf", Some(SynergyMode::Tune)).as_deref(),
        Some("synergy-ftf")
    );
    assert_eq!(
        name("las", Some(SynergyMode::Tune)).as_deref(),
        Some("synergy-las:tune=true")
    );
    assert_eq!(
        name("srtf", Some(SynergyMode::Fair)).as_deref(),
        Some("synergy-srtf:fair=true")
    );
    assert_eq!(name("fifo", None).as_deref(), Some("synergy-fifo"));
    assert_eq!(name("themis", None), None);
    assert_eq!(name("tiresias:queues=3", None), None);
}
