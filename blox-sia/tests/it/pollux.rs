//! Sia's heterogeneity-unaware Pollux baseline (SIA-SEMANTICS §7.2) on the test vector tve:
//! every job completes, a seed gives the same run twice, and the average JCT lies in a band
//! around the original's (§11.6, random and unseeded: a distribution, not a target).

use std::path::Path;

use blox_core::Seed;
use blox_sia::{build_jobs, parse_sia_workload, PolluxUnaware, SiaApps, SiaSim};

use crate::data::sia_data;
use crate::replay::vector;

/// Run `vec` under the unaware Pollux baseline (p = −1, 60 s) with `seed`: per job (name,
/// JCT, restarts, GPU-seconds).
pub(crate) fn run_pollux(data: &Path, vec: &str, seed: u64) -> Vec<(String, f64, u32, i64)> {
    let (cluster, rows) = vector(vec);
    let text = format!("name,time,application,num_replicas,batch_size\n{rows}");
    let w = parse_sia_workload(Path::new("v.csv"), &text).unwrap();
    let mut apps = SiaApps::new(data.join("traces"), cluster.clone());
    let mut jobs = build_jobs(&w, &mut apps, false).unwrap();
    for j in &mut jobs {
        j.unaware = true;
    }
    let policy = PolluxUnaware::new(&cluster, -1.0, Seed(seed)).unwrap();
    let mut sim = SiaSim::new(cluster, jobs, policy, 60);
    sim.run(1_000_000).unwrap();
    sim.outcomes()
        .iter()
        .map(|o| (o.name.clone(), o.jct(), o.restarts, o.gpu_seconds))
        .collect()
}

/// tve (C_64) under `--policy pollux`, seed 1: all four jobs complete, the same seed gives the
/// same jobs, and the average JCT is within [0.5, 1.5] × the original's one run (1962.5 s,
/// §11.6). The band: the baseline is random (the original's two tvb runs differ by 5 % on
/// average, 22 % on one job) and the reference is a single draw; seeds 1–16 here give
/// 1543–2346 s (mean 1988 s, seed 1 2326 s), i.e. −21 % to +20 %, so a band of ±50 % keeps
/// every seed measured; narrower would test the draw, not the model.

#[test]
fn sia_data_pollux_tve_completes_deterministically_in_band() {
    let Some(data) = sia_data("sia_data_pollux_tve_completes_deterministically_in_band") else {
        return;
    };
    let a = run_pollux(&data, "tve", 1);
    assert_eq!(a.len(), 4, "every job completes: {a:?}");
    let b = run_pollux(&data, "tve", 1);
    assert_eq!(a, b, "same seed, same run");
    let avg = a.iter().map(|g| g.1).sum::<f64>() / a.len() as f64;
    eprintln!("tve pollux seed 1: avg JCT {avg:.2} (original 1962.50): {a:?}");
    assert!(
        (0.5 * 1962.5..=1.5 * 1962.5).contains(&avg),
        "average JCT {avg:.1} vs the original's 1962.5"
    );
}
