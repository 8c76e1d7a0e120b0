//! The `*_packed` variants (GAVEL-GENERATED §G8.3) against §G9.2's trace-mode vectors on the
//! spec's toy traces g3 and g4, and hand-made pair cases.

use blox_core::ThroughputTable;
use blox_gavel::clock::GavelOutcome;
use blox_gavel::*;
use blox_workload::{parse_gavel_trace, ColocatedThroughputs, GavelThroughputs};
use std::path::Path;
use std::sync::{Arc, OnceLock};

fn tables() -> &'static (ThroughputTable, Arc<ColocatedThroughputs>) {
    static T: OnceLock<(ThroughputTable, Arc<ColocatedThroughputs>)> = OnceLock::new();
    T.get_or_init(|| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../traces/gavel/simulation_throughputs.json.gz");
        let g = GavelThroughputs::load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let c = Arc::new(g.colocated().clone());
        (g.into_table(), c)
    })
}

/// GAVEL-SEMANTICS §10's g3 (cluster 1:1:1).
const G3: &str = "Recommendation (batch size 2048)\tcmd\tdir\t--steps\t1\t8000\t1\t1\t-1.000000\t0
ResNet-50 (batch size 64)\tcmd\tdir\t--steps\t1\t3000\t1\t1\t-1.000000\t0
Transformer (batch size 16)\tcmd\tdir\t--steps\t1\t6000\t1\t1\t-1.000000\t0
CycleGAN\tcmd\tdir\t--steps\t1\t2500\t1\t1\t-1.000000\t500
A3C\tcmd\tdir\t--steps\t1\t4000\t1\t1\t-1.000000\t2000
";

/// GAVEL-SEMANTICS §10's g4 (cluster 2:2:2).
const G4: &str = "ResNet-50 (batch size 128)\tcmd\tdir\t--steps\t1\t2500\t2\t1\t-1.000000\t0
LM (batch size 10)\tcmd\tdir\t--steps\t1\t80000\t1\t1\t-1.000000\t0
Recommendation (batch size 1024)\tcmd\tdir\t--steps\t1\t12000\t1\t1\t-1.000000\t0
ResNet-18 (batch size 32)\tcmd\tdir\t--steps\t1\t60000\t2\t1\t-1.000000\t200
Transformer (batch size 128)\tcmd\tdir\t--steps\t1\t3000\t1\t1\t-1.000000\t700
A3C\tcmd\tdir\t--steps\t1\t5000\t1\t1\t-1.000000\t1500
ResNet-50 (batch size 16)\tcmd\tdir\t--steps\t1\t9000\t2\t1\t-1.000000\t3000
";

fn cluster(v: u32, p: u32, k: u32) -> Vec<(String, u32)> {
    vec![
        ("v100".to_string(), v),
        ("p100".to_string(), p),
        ("k80".to_string(), k),
    ]
}

fn run(trace: &str, c: &[(String, u32)], kind: GavelPolicyKind) -> Result<GavelOutcome, String> {
    let (table, coloc) = tables();
    let jobs = parse_gavel_trace(trace.as_bytes(), Path::new("t")).unwrap();
    run_gavel_colocated(&jobs, table, Some(coloc.clone()), c, kind, 360.0, 0)
        .map_err(|e| e.to_string())
}

fn jcts(o: &GavelOutcome) -> Vec<f64> {
    o.jobs.iter().map(|j| j.jct.expect("completed")).collect()
}

/// Spec §10's g3 and g4 `fifo_perf` rows (JCTs, final clock, rounds, solves).
const G3_FIFO_PERF: ([f64; 5], f64, u64, u64) = (
    [
        482.0458384694373,
        682.6288309651269,
        906.4755196739866,
        1260.4359066941038,
        557.4316863754593,
    ],
    2557.4316863754593,
    7,
    3,
);
const G4_FIFO_PERF: ([f64; 7], f64, u64, u64) = (
    [
        592.0554347494847,
        1037.8197326767515,
        390.34067301339024,
        2654.2362985567315,
        2795.915153069711,
        1899.7061567016376,
        1051.7647726151913,
    ],
    4051.7647726151913,
    12,
    4,
);

#[test]
fn g3_and_g4_fifo_packed_are_bit_exact() {
    // §G9.2: "= spec's fifo_perf row" on both traces.
    let o = run(G3, &cluster(1, 1, 1), GavelPolicyKind::FifoPacked).unwrap();
    assert_eq!(jcts(&o), G3_FIFO_PERF.0, "g3 fifo_packed");
    assert_eq!(
        (o.makespan, o.rounds, o.solves),
        (G3_FIFO_PERF.1, G3_FIFO_PERF.2, G3_FIFO_PERF.3)
    );
    let o = run(G4, &cluster(2, 2, 2), GavelPolicyKind::FifoPacked).unwrap();
    assert_eq!(jcts(&o), G4_FIFO_PERF.0, "g4 fifo_packed");
    assert_eq!(
        (o.makespan, o.rounds, o.solves),
        (G4_FIFO_PERF.1, G4_FIFO_PERF.2, G4_FIFO_PERF.3)
    );
}

/// §G9.2's packed LP rows were produced with numpy 1.26 / cvxpy 1.6.7 / ECOS 2.0.12 and are
/// behavioural checks (§G9.3); the central path of [`blox_gavel::packed`] nevertheless lands on
/// them to the bit, so they are asserted exactly.
fn report(what: &str, o: &GavelOutcome, want: &[f64], clock: f64, rs: (u64, u64)) {
    let got = jcts(o);
    let worst = got
        .iter()
        .zip(want)
        .map(|(g, w)| ((g - w) / w).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "{what}: {got:?} clock {} rounds {} solves {}; Gavel {want:?} clock {clock} {rs:?}; \
         worst relative JCT error {worst:.3e}",
        o.makespan, o.rounds, o.solves
    );
    assert_eq!(got, want, "{what}: JCTs");
    assert_eq!(
        (o.makespan, o.rounds, o.solves),
        (clock, rs.0, rs.1),
        "{what}"
    );
}

#[test]
fn g3_packed_lp_vectors_match_gavels() {
    let c = cluster(1, 1, 1);
    let o = run(G3, &c, GavelPolicyKind::MaxMinFairnessPacked).unwrap();
    report(
        "g3 max_min_fairness_packed",
        &o,
        &[
            615.5668404247518,
            990.7409202138338,
            591.9848462571076,
            947.8263884285786,
            557.4316863754593,
        ],
        2557.4316863754593,
        (7, 3),
    );
    let o = run(G3, &c, GavelPolicyKind::FinishTimeFairnessPacked).unwrap();
    report(
        "g3 finish_time_fairness_packed",
        &o,
        &[
            615.5668404247518,
            1136.1644936035989,
            591.9848462571076,
            947.9114725968559,
            557.4316863754593,
        ],
        2557.4316863754593,
        (7, 3),
    );
    let o = run(G3, &c, GavelPolicyKind::MinTotalDurationPacked).unwrap();
    report(
        "g3 min_total_duration_packed",
        &o,
        &[
            749.0551031989028,
            682.6288309651269,
            629.1281144639835,
            784.7254130124306,
            557.4316863754593,
        ],
        2557.4316863754593,
        (6, 3),
    );
}

/// g4 mixes 1- and 2-GPU jobs: at its solves at 0 and 3000 s HEAD's reshape sums rows that
/// straddle jobs (reproduced, see `blox_gavel::packed`), and Gavel's run goes through with them.
/// (Measured: the per-job formulation gives other shares at those solves but the same JCTs, so
/// this vector checks that the run goes through, not which formulation is used.)
#[test]
fn g4_max_min_fairness_packed_reproduces_heads_misaligned_rows() {
    let o = run(G4, &cluster(2, 2, 2), GavelPolicyKind::MaxMinFairnessPacked);
    match o {
        Ok(o) => {
            report(
                "g4 max_min_fairness_packed",
                &o,
                &[
                    1227.8424530472064,
                    979.7721757748991,
                    903.5344036303158,
                    1246.5542890342592,
                    2850.9236684724765,
                    2196.7896079693246,
                    555.8676218323158,
                ],
                3696.7896079693246,
                (7, 3),
            );
        }
        Err(e) => panic!("{e}"),
    }
}

/// Three 1-GPU jobs and a 2-GPU job: L·n = (3·3 + 1)·3 = 30 entries in 4 rows. cvxpy cannot
/// reshape them and Gavel's HEAD crashes; the port stops with an error saying so. The same
/// jobs under `fifo_packed` (no reshape) run.
#[test]
fn mixed_scale_factors_that_do_not_divide_stop_the_lp_packed_run() {
    let trace = "ResNet-18 (batch size 32)\tc\td\t--steps\t1\t3000\t1\t1\t-1\t0
A3C\tc\td\t--steps\t1\t3000\t1\t1\t-1\t0
CycleGAN\tc\td\t--steps\t1\t3000\t1\t1\t-1\t0
ResNet-50 (batch size 128)\tc\td\t--steps\t1\t3000\t2\t1\t-1\t0
";
    for kind in [
        GavelPolicyKind::MaxMinFairnessPacked,
        GavelPolicyKind::FinishTimeFairnessPacked,
        GavelPolicyKind::MinTotalDurationPacked,
    ] {
        let e = run(trace, &cluster(2, 2, 2), kind).unwrap_err();
        assert!(
            e.contains("Invalid reshape dimensions") && e.contains("30 entries in 4 rows"),
            "{kind}: {e}"
        );
    }
    let o = run(trace, &cluster(2, 2, 2), GavelPolicyKind::FifoPacked).unwrap();
    assert_eq!(o.dropped(), 0);
}

/// A made-up table on one V100: A and B run at 1 step/s alone and 0.9 each together, so the
/// pair's normalised throughput is 1.8 > 1.5.
fn pair_tables(together: f64) -> (ThroughputTable, Arc<ColocatedThroughputs>) {
    let mut t = ThroughputTable::new();
    t.insert("v100", "A", 1, 1.0);
    t.insert("v100", "B", 1, 1.0);
    let mut c = ColocatedThroughputs::default();
    c.insert("v100", "A", 1, "B", 1, [together, together]);
    c.insert("v100", "B", 1, "A", 1, [together, together]);
    (t, Arc::new(c))
}

const AB: &str = "A\tc\td\t--steps\t1\t720\t1\t1\t-1\t0
B\tc\td\t--steps\t1\t360\t1\t1\t-1\t0
";

#[test]
fn fifo_packed_co_locates_a_pair_above_the_threshold_and_credits_both_members() {
    let (t, c) = pair_tables(0.9);
    let jobs = parse_gavel_trace(AB.as_bytes(), Path::new("ab")).unwrap();
    let v100 = vec![("v100".to_string(), 1)];
    let o = run_gavel_colocated(
        &jobs,
        &t,
        Some(c.clone()),
        &v100,
        GavelPolicyKind::FifoPacked,
        360.0,
        0,
    )
    .unwrap();
    // fifo_perf puts A on the only GPU and B waits; 0.9/1 + 0.9/1 = 1.8 > 1.5, so (A, B)
    // takes A's V100. Round 1 [0, 360]: 324 steps each (⌊0.9·360⌋). Round 2: A 324 more,
    // B its last 36 (done at 400), the pair's micro-task ends at A's 720: B's JCT is 720
    // (a member completes at the pair's finish). Round 3 (re-solve at 720): A alone, 72 steps
    // at 1/s, done at 792.
    assert_eq!(jcts(&o), [792.0, 720.0]);
    assert_eq!((o.rounds, o.solves), (3, 2));
    assert_eq!(o.jobs[0].micro_tasks, 3);
    assert_eq!(o.jobs[1].micro_tasks, 2);

    // The same pair below the threshold (1.4): strict FIFO, B waits for A.
    let (t, c) = pair_tables(0.7);
    let o = run_gavel_colocated(
        &jobs,
        &t,
        Some(c),
        &v100,
        GavelPolicyKind::FifoPacked,
        360.0,
        0,
    )
    .unwrap();
    let perf = run_gavel(&jobs, &t, &v100, GavelPolicyKind::FifoPerf, 360.0, 0).unwrap();
    assert_eq!(jcts(&o), jcts(&perf));
    assert_eq!(jcts(&o), [720.0, 1080.0]);
}

#[test]
fn the_mechanism_credits_the_pair_once_and_not_its_members() {
    let (_, c) = pair_tables(0.9);
    let types = vec![("v100".to_string(), 1)];
    let jobs = vec![
        MechJob::new(1, 1.0, 720, 0.0, vec![1.0]).with_job_type("A"),
        MechJob::new(1, 1.0, 360, 0.0, vec![1.0]).with_job_type("B"),
    ];
    let mut m = GavelMechanism::new(GavelPolicyKind::FifoPacked, &types, 360.0, 0, jobs)
        .unwrap()
        .with_colocated(c);
    m.admit(0);
    m.admit(1);
    assert_eq!(m.n_pairs(), 1);
    let plan = m.plan_round_packed(0.0);
    assert_eq!(
        plan,
        [Placement::Pair {
            jobs: [0, 1],
            gpu_type: 0,
            throughput: [0.9, 0.9]
        }]
    );
    // The single-job view has nothing to run alone.
    assert_eq!(
        m.credit_pair(0, 1, 0, [324.0, 324.0], 360.0),
        [Credit::Progress, Credit::Progress]
    );
    assert_eq!((m.done_steps(0), m.done_steps(1)), (324, 324));
    // A failed pair micro-task counts toward no failure limit: five in a row drop nobody.
    for _ in 0..6 {
        assert_eq!(
            m.credit_pair(0, 1, 0, [0.0, 36.0], 360.0),
            [Credit::Failed, Credit::Failed]
        );
    }
    assert!(m.is_active(0) && m.is_active(1));
    assert_eq!(
        m.credit_pair(0, 1, 0, [324.0, 36.0], 360.0),
        [Credit::Progress, Credit::Completed]
    );
    assert!(!m.is_active(1));
    assert_eq!(m.n_pairs(), 0, "a pair goes when a member leaves");
}

#[test]
fn packed_names_parse_and_follow_gavels_internal_name_rules() {
    for k in GavelPolicyKind::PACKED {
        assert_eq!(k.as_str().parse::<GavelPolicyKind>().unwrap(), k);
        assert_eq!(
            k.as_str()
                .replace('_', "-")
                .parse::<GavelPolicyKind>()
                .unwrap(),
            k
        );
        assert!(k.is_packed() && k.internal_name().ends_with("_Packing"));
        // `Packing` in the name: the type order is never shuffled.
        assert!(!k.shuffles_types(), "{k}");
    }
    assert!(GavelPolicyKind::FifoPacked.skips_zero_priority());
    assert!(!GavelPolicyKind::MaxMinFairnessPacked.skips_zero_priority());
    assert!(GavelPolicyKind::every()
        .filter(|k| !GavelPolicyKind::PACKED.contains(k))
        .all(|k| !k.is_packed()));
}
