//! Tests of `peer_components` (the library's `src/peer_components.rs`) through the public API.

use blox_placement::PlacementConfig;
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_scenario::{Named, Registry};

#[test]
fn a_peer_name_is_a_stock_name_in_every_form() {
    let p: Named<PlacementConfig> = "SYNERGY:mode=proportional".parse().unwrap();
    assert_eq!(p, Named::Peer("synergy:mode=fair".into()));
    assert!(!p.is_registered() && p.stock().is_none());
    assert_eq!(p.to_string(), "synergy:mode=fair");
    let d: Named<PlacementConfig> = "synergy:mode=tune".parse().unwrap();
    assert_eq!(
        d.to_string(),
        "synergy",
        "defaults are left out of the label"
    );
    let json = serde_json::to_string(&d).unwrap();
    assert_eq!(json, r#"{"kind":"synergy","mode":"tune"}"#);
    assert_eq!(
        serde_json::from_str::<Named<PlacementConfig>>(&json).unwrap(),
        d
    );
    let e = serde_json::from_str::<Named<PlacementConfig>>(r#"{"kind":"synergy","x":1}"#);
    assert!(e.unwrap_err().to_string().contains("unknown field `x`"));
    let f: Named<PolicyConfig> = "Ftf".parse().unwrap();
    assert_eq!(f, Named::Peer("ftf".into()));
    assert_eq!(serde_json::to_string(&f).unwrap(), r#"{"kind":"ftf"}"#);
    let e = "ftf:x=1".parse::<Named<PolicyConfig>>().unwrap_err();
    assert!(e.to_string().contains("takes no parameters"), "{e}");
    let e = "synergy:mode=opt"
        .parse::<Named<PlacementConfig>>()
        .unwrap_err();
    assert!(e.to_string().contains("matrix"), "{e}");
}

#[test]
fn a_peer_name_is_built_listed_and_not_registrable() {
    let reg = Registry::default();
    let env = PolicyEnv::new(None);
    let f: Named<PolicyConfig> = "ftf".parse().unwrap();
    assert_eq!(
        reg.build_policy(&f, &env).unwrap().name(),
        "synergy-ftf:fair=true"
    );
    let p: Named<PlacementConfig> = "synergy:mode=greedy".parse().unwrap();
    assert_eq!(
        reg.build_placement(&p, None).unwrap().name(),
        "synergy:mode=greedy"
    );
    let typo: Named<PolicyConfig> = "ftff".parse().unwrap();
    let Err(e) = reg.build_policy(&typo, &env) else {
        panic!("a typo builds")
    };
    assert!(
        e.to_string().contains("themis, ftf); did you mean `ftf`?"),
        "{e}"
    );
    let typo: Named<PlacementConfig> = "synergyy".parse().unwrap();
    let Err(e) = reg.build_placement(&typo, None) else {
        panic!("a typo builds")
    };
    assert!(e.to_string().contains("resource-aware, synergy)"), "{e}");
    for r in [
        Registry::default().policy("ftf", |_, _| Ok(Box::new(blox_policies::Fifo::default()))),
        Registry::default().placement("synergy", |_, _| {
            Ok(Box::new(blox_placement::Scattered::new()))
        }),
    ] {
        let e = r.check().unwrap_err().to_string();
        assert!(e.contains("is a stock name"), "{e}");
    }
}
