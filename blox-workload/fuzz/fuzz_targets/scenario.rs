//! Fuzz scenario files (`--scenario FILE`, `.toml` or `.json`) through `Scenario::from_file`,
//! which parses and checks every setting without running anything. The first byte picks the
//! format (even: TOML, odd: JSON), the rest is the file. It must never panic; a scenario it
//! accepts has a cluster, a tracked window, an engine configuration and a failure spec that
//! can be built, and it survives the round trip a run's `summary.json` (JSON) and a saved
//! scenario (TOML) put it through: written and read back, it is the same scenario.
#![no_main]

use blox_core::MAX_CLUSTER_GPUS;
use blox_scenario::Scenario;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A folder of this process's own for the file (relative paths in it resolve there, and
/// nothing is in it to read).
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("blox-fuzz-scenario-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, text)) = data.split_first() else {
        return;
    };
    let path = dir().join(if which % 2 == 0 { "s.toml" } else { "s.json" });
    std::fs::write(&path, text).unwrap();
    let Ok(s) = Scenario::from_file(&path) else {
        return;
    };
    assert!(s.check().is_ok());
    let cluster = s
        .cluster_spec()
        .expect("an accepted scenario has a cluster");
    assert!(cluster.total_gpus() >= 1 && cluster.total_gpus() <= MAX_CLUSTER_GPUS);
    s.track_window()
        .expect("an accepted scenario has a tracked window");
    let _ = s.sim_config();
    if let Some(f) = s
        .failure_spec()
        .expect("an accepted scenario has a failure spec")
    {
        assert_eq!(
            f.to_string().parse::<blox_nodes::FailureSpec>().ok(),
            Some(f)
        );
    }
    if s.node_events.is_none() {
        // Builds random failures and the autoscaler (a node-event file would be read).
        let _ = s.cluster_events();
    }
    // JSON, as `summary.json`'s `config` holds it.
    let json = serde_json::to_string(&s).expect("a scenario serializes to JSON");
    let back: Scenario =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("its JSON is refused: {e}\n{json}"));
    assert_eq!(s, back, "{json}");
    // TOML, as a scenario file.
    if let Ok(toml_text) = toml::to_string(&s) {
        let back: Scenario = toml::from_str(&toml_text)
            .unwrap_or_else(|e| panic!("its TOML is refused: {e}\n{toml_text}"));
        assert_eq!(s, back, "{toml_text}");
    }
});
