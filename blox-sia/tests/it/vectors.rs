//! The test vectors of SIA-SEMANTICS §11.1 run end to end under the Sia policy, compared per
//! job with the original's JCTs and restarts; and determinism.

use std::path::Path;

use blox_sia::{
    build_jobs, parse_sia_workload, GavelBaseline, SiaApps, SiaParams, SiaPolicy, SiaSim,
};

use crate::data::sia_data;
use crate::replay::vector;

/// The original's per-job Sia JCTs and restarts (§11.1).
pub(crate) fn expected(vec: &str) -> &'static [(&'static str, f64, u32)] {
    match vec {
        "tva" => &[("cifar10-0", 588.0, 3)],
        "tvb" => &[
            ("cifar10-0", 1372.0, 4),
            ("deepspeech2-1", 5401.0, 6),
            ("bert-2", 2607.0, 2),
        ],
        "tvc" => &[
            ("cifar10-0", 2350.0, 4),
            ("bert-1", 2863.0, 4),
            ("cifar10-2", 2294.0, 3),
            ("deepspeech2-3", 4678.0, 8),
            ("cifar10-4", 1842.0, 1),
            ("deepspeech2-5", 4493.0, 6),
        ],
        "tvd" => &[
            ("yolov3-0", 10856.0, 6),
            ("cifar10-1", 596.0, 2),
            ("bert-2", 1083.0, 1),
            ("cifar10-3", 644.0, 3),
            ("deepspeech2-4", 2893.0, 4),
        ],
        "tve" => &[
            ("cifar10-0", 586.0, 3),
            ("bert-1", 1083.0, 1),
            ("deepspeech2-2", 1845.0, 6),
            ("cifar10-3", 626.0, 3),
        ],
        _ => panic!("no vector {vec}"),
    }
}

/// `vec`'s cluster and jobs (Sia's adaptive jobs).
pub(crate) fn sia_jobs(data: &Path, vec: &str) -> (blox_sia::SiaCluster, Vec<blox_sia::SiaJob>) {
    let (cluster, rows) = vector(vec);
    let text = format!("name,time,application,num_replicas,batch_size\n{rows}");
    let w = parse_sia_workload(Path::new("v.csv"), &text).unwrap();
    let mut apps = SiaApps::new(data.join("traces"), cluster.clone());
    let jobs = build_jobs(&w, &mut apps, false).unwrap();
    (cluster, jobs)
}

/// Run `vec` under Sia (Table 3 parameters, 60 s): per job (name, JCT, restarts).
pub(crate) fn run_sia(data: &Path, vec: &str) -> Vec<(String, f64, u32)> {
    let (cluster, jobs) = sia_jobs(data, vec);
    let policy = SiaPolicy::new(SiaParams::default(), &cluster, jobs.len());
    let mut sim = SiaSim::new(cluster, jobs, policy, 60);
    sim.run(1_000_000).unwrap();
    sim.outcomes()
        .iter()
        .map(|o| (o.name.clone(), o.jct(), o.restarts))
        .collect()
}

fn report(data: &Path, vec: &str) -> (f64, f64) {
    let got = run_sia(data, vec);
    let want = expected(vec);
    assert_eq!(got.len(), want.len(), "every job completes");
    let mut lines = Vec::new();
    for ((n, jct, r), (wn, wjct, wr)) in got.iter().zip(want) {
        assert_eq!(n, wn);
        lines.push(format!("{n}: {jct} ({r}) vs {wjct} ({wr})"));
    }
    let avg = got.iter().map(|g| g.1).sum::<f64>() / got.len() as f64;
    let wavg = want.iter().map(|w| w.1).sum::<f64>() / want.len() as f64;
    eprintln!(
        "{vec}: avg JCT {avg:.2} vs {wavg:.2}\n  {}",
        lines.join("\n  ")
    );
    (avg, wavg)
}

/// Sia's test vectors end to end: the average JCT within 25 % of the original's (measured
/// with scipy's L-BFGS-B for the fit: tva +4.9 %, tvb −16.0 %, tvc −0.1 %, tvd −4.2 %,
/// tve +21.4 %; with blox's projected L-BFGS it was +7.0, −8.8, −1.1, −2.2 and +24.5 %).
/// Per-job agreement needs CBC's tie-breaking and the goodput matrix to the last rounding
/// (§11.5, §13.1, §13.3); the figures are printed (`--nocapture`). With CBC (feature `cbc`,
/// `cbc.rs`) tva and tvd match job for job.
#[test]
fn sia_data_vectors_average_jct_within_the_tie_spread() {
    let Some(data) = sia_data("sia_data_vectors_average_jct_within_the_tie_spread") else {
        return;
    };
    for vec in ["tva", "tvb", "tvc", "tvd", "tve"] {
        let (avg, wavg) = report(&data, vec);
        let rel = (avg - wavg).abs() / wavg;
        assert!(
            rel < 0.25,
            "{vec}: average JCT {avg:.1} vs the original's {wavg:.1}"
        );
    }
}

/// The same inputs give the same per-job results.
#[test]
fn sia_data_runs_are_deterministic() {
    let Some(data) = sia_data("sia_data_runs_are_deterministic") else {
        return;
    };
    assert_eq!(run_sia(&data, "tvc"), run_sia(&data, "tvc"));
}

/// The original's per-job Gavel+TunedJobs JCTs and restarts (§11.1).
fn expected_gavel(vec: &str) -> &'static [(&'static str, f64, u32)] {
    match vec {
        "tva" => &[("cifar10-0", 860.0, 0)],
        "tvb" => &[
            ("cifar10-0", 1480.0, 0),
            ("deepspeech2-1", 5213.0, 1),
            ("bert-2", 3110.0, 0),
        ],
        "tvc" => &[
            ("cifar10-0", 2668.0, 3),
            ("bert-1", 4779.0, 5),
            ("cifar10-2", 2830.0, 4),
            ("deepspeech2-3", 6030.0, 3),
            ("cifar10-4", 1970.0, 1),
            ("deepspeech2-5", 10544.0, 9),
        ],
        "tvd" => &[
            ("yolov3-0", 11575.0, 3),
            ("cifar10-1", 722.0, 0),
            ("bert-2", 3033.0, 4),
            ("cifar10-3", 519.0, 0),
            ("deepspeech2-4", 4686.0, 0),
        ],
        "tve" => &[
            ("cifar10-0", 890.0, 0),
            ("bert-1", 1735.0, 0),
            ("deepspeech2-2", 6627.0, 0),
            ("cifar10-3", 1039.0, 0),
        ],
        _ => panic!("no vector {vec}"),
    }
}

/// Run `vec` under Sia's Gavel baseline (360 s).
fn run_gavel(data: &Path, vec: &str) -> Vec<(String, f64, u32)> {
    let (cluster, rows) = vector(vec);
    let text = format!("name,time,application,num_replicas,batch_size\n{rows}");
    let w = parse_sia_workload(Path::new("v.csv"), &text).unwrap();
    let mut apps = SiaApps::new(data.join("traces"), cluster.clone());
    let jobs = build_jobs(&w, &mut apps, true).unwrap();
    let policy = GavelBaseline::new(&cluster, jobs.len(), 360.0);
    let mut sim = SiaSim::new(cluster, jobs, policy, 360);
    sim.run(1_000_000).unwrap();
    sim.outcomes()
        .iter()
        .map(|o| (o.name.clone(), o.jct(), o.restarts))
        .collect()
}

/// Sia's Gavel+TunedJobs baseline on the test vectors: every job's JCT and restarts as the
/// original's.
#[test]
fn sia_data_gavel_vectors_per_job() {
    let Some(data) = sia_data("sia_data_gavel_vectors_per_job") else {
        return;
    };
    let mut bad = Vec::new();
    for vec in ["tva", "tvb", "tvc", "tvd", "tve"] {
        let got = run_gavel(&data, vec);
        for ((n, jct, r), (wn, wjct, wr)) in got.iter().zip(expected_gavel(vec)) {
            assert_eq!(n, wn);
            let line = format!("{vec} {n}: {jct} ({r}) vs {wjct} ({wr})");
            eprintln!("{line}");
            if jct != wjct || r != wr {
                bad.push(line);
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
