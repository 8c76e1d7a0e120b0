//! The `gavel` time model and Gavel's policies against Gavel's own test vectors
//! (GAVEL-SEMANTICS §10 and appendix B), per job at full precision.

use super::gavel_vectors::{Vector, TRACES, VECTORS};
use blox_cli::gavel::run_gavel;
use blox_core::ThroughputTable;
use blox_policies::gavel_osdi::GavelPolicyKind;
use blox_sim::time::gavel::GavelOutcome;
use blox_workload::{parse_gavel_trace, GavelThroughputs};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn traces_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces"),
    };
    let t = dir.join("gavel/simulation_throughputs.json.gz");
    if t.exists() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("BLOX_TRACES").is_none(),
            "BLOX_TRACES is set but has no {}",
            t.display()
        );
        None
    }
}

/// Gavel's `simulation_throughputs.json`, loaded once.
pub(crate) fn sim_table() -> Option<&'static ThroughputTable> {
    static TABLE: OnceLock<Option<ThroughputTable>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let dir = traces_dir()?;
            let t = GavelThroughputs::load(&dir.join("gavel/simulation_throughputs.json.gz"))
                .expect("the simulation table parses");
            Some(t.into_table())
        })
        .as_ref()
}

pub(crate) fn cluster(vpk: [u32; 3]) -> Vec<(String, u32)> {
    ["v100", "p100", "k80"]
        .iter()
        .zip(vpk)
        .map(|(t, c)| (t.to_string(), c))
        .collect()
}

fn run_vector(v: &Vector, table: &ThroughputTable) -> GavelOutcome {
    let (name, policy, seed, round, ..) = *v;
    let (_, vpk, text) = TRACES.iter().find(|t| t.0 == name).unwrap();
    let jobs = parse_gavel_trace(text.as_bytes(), Path::new(name)).unwrap();
    let kind = policy.parse::<GavelPolicyKind>().unwrap();
    run_gavel(&jobs, table, &cluster(*vpk), kind, round, seed).unwrap()
}

/// Runs every vector and returns `(vector, outcome)` pairs that are not bit-identical.
fn mismatches(select: impl Fn(&Vector) -> bool) -> Vec<String> {
    let Some(table) = sim_table() else {
        return Vec::new();
    };
    let mut bad = Vec::new();
    let mut checked = 0;
    for v in VECTORS.iter().filter(|v| select(v)) {
        checked += 1;
        let out = run_vector(v, table);
        let got: Vec<Option<f64>> = out.jobs.iter().map(|j| j.jct).collect();
        let counts_ok = (v.6 == 0 || out.rounds == v.6) && (v.7 == 0 || out.solves == v.7);
        if got != v.4 || out.makespan != v.5 || !counts_ok {
            bad.push(format!(
                "{} {} seed {} R {}: got {got:?} makespan {} rounds {} solves {}; expected {:?} \
                 makespan {} rounds {} solves {}",
                v.0, v.1, v.2, v.3, out.makespan, out.rounds, out.solves, v.4, v.5, v.6, v.7
            ));
        }
    }
    assert!(checked > 0, "no vector selected");
    bad
}

/// ECOS's own last-digit noise decides the 1/3-1/3-1/3 ties of `max_min_fairness` on g3
/// (GAVEL-SEMANTICS B.3: no other solver reproduces it); those two vectors are tolerance checks.
fn is_ecos_noise_tie(v: &Vector) -> bool {
    v.0 == "g3" && v.1 == "max_min_fairness"
}

#[test]
fn fifo_vectors_are_bit_exact() {
    let bad = mismatches(|v| v.1.starts_with("fifo"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn convex_program_vectors_are_bit_exact() {
    let bad = mismatches(|v| !v.1.starts_with("fifo") && !is_ecos_noise_tie(v));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn g3_max_min_fairness_ties_are_within_tolerance() {
    let Some(table) = sim_table() else { return };
    for v in VECTORS.iter().filter(|v| is_ecos_noise_tie(v)) {
        let out = run_vector(v, table);
        // The last job (A3C, arriving alone at 2000 s) is not part of the tie: exact.
        assert_eq!(out.jobs[4].jct, v.4[4], "{v:?}");
        assert_eq!(out.makespan, v.5, "{v:?}");
        for (g, e) in out.jobs.iter().zip(v.4) {
            let (g, e) = (g.jct.unwrap(), e.unwrap());
            assert!((g - e).abs() < 400.0, "{v:?}: job {g} vs {e}");
        }
    }
}

#[test]
fn hyphenated_policy_names_are_the_same_policy() {
    let Some(table) = sim_table() else { return };
    let v = VECTORS
        .iter()
        .find(|v| v.0 == "g4" && v.1 == "max_min_fairness_perf")
        .unwrap();
    let (_, vpk, text) = TRACES.iter().find(|t| t.0 == "g4").unwrap();
    let jobs = parse_gavel_trace(text.as_bytes(), Path::new("g4")).unwrap();
    let kind: GavelPolicyKind = "Max-Min-Fairness-Perf".parse().unwrap();
    let out = run_gavel(&jobs, table, &cluster(*vpk), kind, 360.0, 0).unwrap();
    let got: Vec<Option<f64>> = out.jobs.iter().map(|j| j.jct).collect();
    assert_eq!(got, v.4);
}

#[test]
fn g6_drops_job_0_after_five_failed_micro_tasks() {
    let Some(table) = sim_table() else { return };
    let v = VECTORS
        .iter()
        .find(|v| v.0 == "g6" && v.1 == "fifo")
        .unwrap();
    let out = run_vector(v, table);
    assert_eq!(out.dropped(), 1);
    assert_eq!(out.jobs[0].jct, None);
    // The average is over completed jobs only (Gavel's get_average_jct).
    let avg = (v.4[1].unwrap() + v.4[2].unwrap() + v.4[3].unwrap()) / 3.0;
    assert_eq!(out.avg_jct(), Some(avg));
    // Every job records the GPU types it ran on.
    assert!(out.jobs.iter().all(|j| j.gpu_types == ["v100"]));
}

#[test]
fn a_single_type_cluster_consumes_no_shuffle_draws_and_seeds_do_not_matter() {
    let Some(table) = sim_table() else { return };
    for v in VECTORS.iter().filter(|v| v.0 == "g2" && v.3 == 360.0) {
        let mut other = *v;
        other.2 = 7;
        let a = run_vector(v, table);
        let b = run_vector(&other, table);
        assert_eq!(a, b, "{} {}", v.0, v.1);
    }
}
