//! Tests of `config` (the library's `src/config.rs`) through the public API.

use blox_core::*;
use blox_placement::*;

#[test]
fn names_options_and_files() {
    let c: PlacementConfig = "consolidated:wait=true".parse().unwrap();
    assert_eq!(
        c,
        PlacementConfig::Consolidated {
            wait: true,
            preempt: true,
            backfill: false
        }
    );
    assert_eq!(c.to_string(), "consolidated:wait=true");
    for name in PlacementConfig::NAMES {
        let c: PlacementConfig = name.parse().unwrap();
        assert_eq!(c.to_string(), *name);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<PlacementConfig>(&json).unwrap(), c);
        assert!(c.build().is_ok());
    }
    assert_eq!(
        "place".parse::<PlacementConfig>().unwrap(),
        PlacementConfig::Scattered
    );
    let t: PlacementConfig = serde_json::from_str(r#"{"kind":"topology"}"#).unwrap();
    assert_eq!(
        t,
        PlacementConfig::Topology {
            preempt: true,
            backfill: false
        }
    );
    assert!(serde_json::from_str::<PlacementConfig>(r#"{"kind":"topology","x":1}"#).is_err());
    assert!(serde_json::from_str::<PlacementConfig>(r#"{"kind":"scattered","x":1}"#).is_err());
    assert!("first-fit:wait=true"
        .parse::<PlacementConfig>()
        .unwrap_err()
        .0
        .contains("wait"));
    assert!("first-fit:backfill=maybe"
        .parse::<PlacementConfig>()
        .is_err());
    assert!("scattered:backfill=true"
        .parse::<PlacementConfig>()
        .is_err());
    assert!("best"
        .parse::<PlacementConfig>()
        .unwrap_err()
        .0
        .contains("first-fit"));
    // One form: the names come from the serde form; aliases read in files too.
    assert_eq!(
        spec_form::kinds::<PlacementConfig>(),
        PlacementConfig::NAMES
    );
    let t: PlacementConfig =
        serde_json::from_str(r#"{"kind":"topology-aware","backfill":"yes"}"#).unwrap();
    assert_eq!(t.to_string(), "topology:backfill=true");
    let f: PlacementConfig = "first-fit:preempt=0".parse().unwrap();
    assert_eq!(f.to_string(), "first-fit:preempt=false");
    assert_eq!(
        "first-fit:wait=true"
            .parse::<PlacementConfig>()
            .unwrap_err()
            .to_string(),
        "placement `first-fit`: unknown parameter `wait` (expected: preempt, backfill)"
    );
}
