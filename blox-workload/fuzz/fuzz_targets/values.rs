//! Fuzz the value parsers behind the CLI's flags and the scenario keys: durations (`--durations`),
//! GPU counts (`--gpus`), clusters (`--cluster`), `--track`, `--failures`, `--autoscale`,
//! node changes, `--checkpoint-interval`, the component specs `name:key=value` of `--policy`,
//! `--placement` and `--admission` (and their registry lookup), `--class-split`, `--decide`,
//! `--semantics`, `--throughput` and `--shard`. The first byte picks the parser, the rest is
//! the value. None may panic; what one accepts obeys its documented bounds, and each with a
//! display form reads its own display back as the same value.
#![no_main]

use blox_admission::AdmissionConfig;
use blox_core::{ClusterSpec, NodeChange, Seed, MAX_CLUSTER_GPUS, MAX_CLUSTER_NODES};
use blox_nodes::{AutoscaleSpec, Checkpointing, FailureSpec};
use blox_placement::PlacementConfig;
use blox_policies::PolicyConfig;
use blox_scenario::{
    parse_durations, parse_gpus, preset, Model, Named, Registry, Scenario, Semantics,
    ThroughputChoice,
};
use blox_sim::TrackWindow;
use libfuzzer_sys::fuzz_target;
use std::fmt::Debug;
use std::str::FromStr;

/// `s` parses; then its display parses back to the same value.
fn round_trip<T>(s: &str) -> Option<T>
where
    T: FromStr + ToString + PartialEq + Debug,
{
    let v = s.parse::<T>().ok()?;
    let shown = v.to_string();
    match shown.parse::<T>() {
        Ok(again) => assert_eq!(
            v, again,
            "`{s}` shows as `{shown}`, which reads differently"
        ),
        Err(_) => panic!("`{s}` shows as `{shown}`, which is refused"),
    }
    Some(v)
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(s) = std::str::from_utf8(rest) else {
        return;
    };
    let mut rng = Seed(u64::from(which)).stream("fuzz");
    match which % 16 {
        0 => {
            if let Ok(d) = parse_durations(s) {
                assert!(d.validate().is_ok());
                for _ in 0..8 {
                    let x = d.sample(&mut rng);
                    assert!(x.is_finite() && x >= 0.0, "`{s}` drew {x}");
                }
            }
        }
        1 => {
            let max = u32::from(which).max(1);
            if let Ok(g) = parse_gpus(s, max) {
                assert!(g.validate().is_ok());
                for _ in 0..8 {
                    assert!(g.sample(&mut rng) >= 1, "`{s}` drew 0 GPUs");
                }
            }
        }
        2 => {
            if let Ok(c) = s.parse::<ClusterSpec>() {
                assert!(
                    !c.nodes.is_empty() && c.nodes.len() as u64 <= u64::from(MAX_CLUSTER_NODES)
                );
                assert!(c.total_gpus() <= MAX_CLUSTER_GPUS && c.total_gpus() >= 1);
                assert!(c.nodes.iter().all(|n| n.gpus >= 1));
            }
        }
        3 => {
            if let Some(w) = round_trip::<TrackWindow>(s) {
                assert!(w.first <= w.last && w.len() >= 1);
            }
        }
        4 => {
            if let Some(f) = round_trip::<FailureSpec>(s) {
                assert!(f.mtbf_h.is_finite() && f.mtbf_h > 0.0 && f.mttr_h.is_finite());
                assert!(f.mttr_h >= 0.0 && f.rate_per_hour().is_finite());
            }
        }
        5 => {
            if let Ok(a) = s.parse::<AutoscaleSpec>() {
                let cluster: ClusterSpec = "2x4".parse().unwrap();
                let _ = a.build(&cluster);
            }
        }
        6 => {
            round_trip::<NodeChange>(s);
        }
        7 => {
            if let Ok(x) = s.trim().parse::<f64>() {
                if let Ok(c) = Checkpointing::from_secs(Some(x)) {
                    // 0: continuous checkpoints.
                    let i = c.interval_s().expect("an interval");
                    // Rounded up to whole milliseconds (exact below 2^53 ms).
                    assert!(
                        i.is_finite() && i >= 0.0 && i >= x * (1.0 - 1e-12),
                        "{x} gave {i}"
                    );
                }
            }
        }
        8 => {
            // `--policy name:key=value`: parsed, shown, and built under every semantics (the
            // registry lookup: a stock name or a refusal, never a panic).
            if let Some(p) = round_trip::<Named<PolicyConfig>>(s) {
                let reg = Registry::default();
                let env = Scenario::default().policy_env().unwrap();
                for sem in [Semantics::Blox, Semantics::Exact, Semantics::Synergy] {
                    let _ = preset::build_policy(sem, &reg, &p, &env);
                }
            }
        }
        9 => {
            if let Some(p) = round_trip::<Named<PlacementConfig>>(s) {
                let reg = Registry::default();
                for sem in [Semantics::Blox, Semantics::Exact, Semantics::Synergy] {
                    let _ = preset::build_placement(sem, &reg, &p, None);
                }
            }
        }
        10 => {
            if let Some(a) = round_trip::<Named<AdmissionConfig>>(s) {
                let _ = Registry::default().build_admission(&a);
            }
        }
        11 => {
            round_trip::<blox_synergy::ClassSplit>(s);
        }
        12 => {
            round_trip::<blox_sim::Decide>(s);
            round_trip::<Semantics>(s);
        }
        13 => {
            round_trip::<Model>(s);
        }
        14 => {
            let _ = s.parse::<ThroughputChoice>();
        }
        _ => {
            let _ = s.parse::<blox_scenario::sweep::Shard>();
        }
    }
});
