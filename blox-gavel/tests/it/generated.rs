//! GAVEL-GENERATED's check values and test vectors (§G2-§G5, §G1.3 and §G9.1).

use blox_core::ThroughputTable;
use blox_gavel::generated::*;
use blox_gavel::GavelPolicyKind;
use blox_workload::{GavelThroughputs, PyRandom};
use std::sync::OnceLock;

fn table() -> &'static ThroughputTable {
    static T: OnceLock<ThroughputTable> = OnceLock::new();
    T.get_or_init(|| {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../traces/gavel/simulation_throughputs.json.gz");
        GavelThroughputs::load(&p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .into_table()
    })
}

fn colocated() -> std::sync::Arc<blox_workload::ColocatedThroughputs> {
    static T: OnceLock<std::sync::Arc<blox_workload::ColocatedThroughputs>> = OnceLock::new();
    T.get_or_init(|| {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../traces/gavel/simulation_throughputs.json.gz");
        std::sync::Arc::new(GavelThroughputs::load(&p).unwrap().colocated().clone())
    })
    .clone()
}

fn cluster(v: u32, p: u32, k: u32) -> Vec<(String, u32)> {
    vec![
        ("v100".to_string(), v),
        ("p100".to_string(), p),
        ("k80".to_string(), k),
    ]
}

#[test]
fn the_streams_give_the_check_values() {
    let mut r2 = PyRandom::new(2);
    let u: Vec<u32> = (0..4).map(|_| r2.next_u32()).collect();
    assert_eq!(u, [4106135923, 3707026329, 4070888059, 3646664648]);
    let mut r2 = PyRandom::new(2);
    let want = [
        0.9560342718892494,
        0.9478274870593494,
        0.05655136772680869,
        0.08487199515892163,
        0.8354988781294496,
        0.7359699890685233,
    ];
    for w in want {
        assert_eq!(r2.random(), w);
    }
    let mut r3 = PyRandom::new(3);
    for w in [
        0.23796462709189137,
        0.5442292252959519,
        0.36995516654807925,
        0.6039200385961945,
    ] {
        assert_eq!(r3.random(), w);
    }
}

/// §G3's first jobs of seed 0: `(template, sf with -m, duration, steps without -m, with -m)`.
const SEED0_JOBS: [(usize, u32, f64, f64, f64); 6] = [
    (2, 8, 68344.35010595087, 1646636.2758419, 17484476.26110642),
    (
        9,
        1,
        31016.60914593223,
        343170.46864225325,
        343170.46864225325,
    ),
    (
        21,
        1,
        2146.6088374387864,
        16034.37819420177,
        16034.37819420177,
    ),
    (
        23,
        1,
        7386.674819745945,
        20989.313058424774,
        20989.313058424774,
    ),
    (14, 4, 6858.69820697011, 748740.885162768, 869104.8688980676),
    (
        11,
        1,
        445845.32667457394,
        3842187.572961124,
        3842187.572961124,
    ),
];

fn steps(d: &JobDraw) -> f64 {
    let (name, _) = GAVEL_JOB_TABLE[d.template];
    d.duration_s * table().exact("v100", name, d.scale_factor).unwrap()
}

#[test]
fn the_generator_gives_the_check_jobs() {
    for multi in [false, true] {
        let mut g = JobGenerator::new(0, multi, false, None).unwrap();
        for (i, &(k, sf, d, s1, sm)) in SEED0_JOBS.iter().enumerate() {
            let j = g.next_draw();
            assert_eq!(j.template, k, "job {i} (-m {multi})");
            assert_eq!(j.scale_factor, if multi { sf } else { 1 }, "job {i}");
            assert_eq!(j.duration_s, d, "job {i}");
            assert_eq!(steps(&j), if multi { sm } else { s1 }, "job {i}");
            assert_eq!(j.weight, 1.0);
        }
    }
    assert_eq!(GAVEL_JOB_TABLE[2].0, "ResNet-18 (batch size 64)");
    assert_eq!(GAVEL_JOB_TABLE[21].0, "Recommendation (batch size 2048)");
    // Seed 1, -m, without and with priorities (the priority draw shifts the stream).
    let mut g = JobGenerator::new(1, true, false, None).unwrap();
    let want = [
        (
            "Recommendation (batch size 512)",
            6809.010442186965,
            158770.0198661339,
        ),
        ("LM (batch size 10)", 15365.636166931821, 1254629.3145978907),
        ("LM (batch size 10)", 59104.221815278535, 4825956.341822683),
    ];
    for (name, d, s) in want {
        let j = g.next_draw();
        assert_eq!((GAVEL_JOB_TABLE[j.template].0, j.scale_factor), (name, 1));
        assert_eq!((j.duration_s, steps(&j)), (d, s));
    }
    let mut g = JobGenerator::new(1, true, true, None).unwrap();
    let j0 = g.next_draw();
    assert_eq!(
        GAVEL_JOB_TABLE[j0.template].0,
        "Recommendation (batch size 512)"
    );
    assert_eq!(j0.weight, 1.0);
    let j1 = g.next_draw();
    assert_eq!(GAVEL_JOB_TABLE[j1.template].0, "LM (batch size 10)");
    assert_eq!(j1.duration_s, 43790.393791046685);
    g.next_draw();
    g.next_draw();
    let j4 = g.next_draw();
    assert_eq!(
        (GAVEL_JOB_TABLE[j4.template].0, j4.scale_factor, j4.weight),
        ("LM (batch size 80)", 1, 5.0)
    );
    // A fixed duration makes no duration draws.
    let mut g = JobGenerator::new(0, false, false, Some(3600.0)).unwrap();
    let j = g.next_draw();
    assert_eq!(j.duration_s, 3600.0);
}

#[test]
fn arrivals_give_the_check_values() {
    for (lam, want) in [
        (
            1333.3333333333335,
            [
                0.0,
                362.34973764489115,
                1410.0367815245866,
                2025.9891787502038,
                3260.8413992494384,
                4571.177280702231,
            ],
        ),
        (
            3600.0,
            [
                0.0,
                978.344291641206,
                3807.099310116383,
                5470.17078262555,
                8804.271777973483,
                12342.178657896022,
            ],
        ),
    ] {
        let mut s = ArrivalSampler::new(0, lam).unwrap();
        let mut a = 0.0;
        for w in want {
            assert_eq!(a, w, "lambda {lam}");
            a += s.next_gap();
        }
    }
    let mut s = ArrivalSampler::new(0, 0.0).unwrap();
    assert_eq!(s.next_gap(), 0.0);
}

#[test]
fn the_sweeps_lambda_values_are_gavels() {
    let fig8: Vec<(f64, f64)> = rate_lambdas(&linspace(0.0, 6.0, 16));
    let want8 = [
        (0.4, 9000.0),
        (0.8, 4500.0),
        (1.2000000000000002, 2999.9999999999995),
        (1.6, 2250.0),
        (2.0, 1800.0),
        (2.4000000000000004, 1499.9999999999998),
        (2.8000000000000003, 1285.7142857142856),
        (3.2, 1125.0),
        (3.6, 1000.0),
        (4.0, 900.0),
        (4.4, 818.1818181818181),
        (4.800000000000001, 749.9999999999999),
        (5.2, 692.3076923076923),
        (5.6000000000000005, 642.8571428571428),
        (6.0, 600.0),
    ];
    assert_eq!(fig8, want8);
    let want9 = [
        (0.3, 12000.0),
        (0.6, 6000.0),
        (0.8999999999999999, 4000.0000000000005),
        (1.2, 3000.0),
        (1.5, 2400.0),
        (1.7999999999999998, 2000.0000000000002),
        (2.1, 1714.2857142857142),
        (2.4, 1500.0),
        (2.6999999999999997, 1333.3333333333335),
        (3.0, 1200.0),
    ];
    assert_eq!(parse_rates("linspace:0:3:11").unwrap(), want9);
    // The makespan sweep's job counts.
    let n: Vec<f64> = linspace(0.0, 500.0, 6).into_iter().skip(1).collect();
    assert_eq!(n, [100.0, 200.0, 300.0, 400.0, 500.0]);
    assert_eq!(
        parse_rates("0.5, 1").unwrap(),
        [(0.5, 7200.0), (1.0, 3600.0)]
    );
    for bad in [
        "linspace:0:3",
        "linspace:a:3:4",
        "1,0",
        "0",
        "-1",
        "linspace:0:3:0",
    ] {
        assert!(parse_rates(bad).is_err(), "{bad}");
    }
}

#[test]
fn numpy_mean_sums_pairwise() {
    // Below 8 values a plain loop; from 8 on, 8 accumulators; the two differ in rounding.
    let v: Vec<f64> = (0..20).map(|i| 0.1 * f64::from(i) + 1e-3).collect();
    let mut r = [0.0; 8];
    r.copy_from_slice(&v[..8]);
    for i in (8..16).step_by(8) {
        for k in 0..8 {
            r[k] += v[i + k];
        }
    }
    let mut want = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for x in &v[16..] {
        want += x;
    }
    assert_eq!(numpy_mean(&v), Some(want / 20.0));
    assert_eq!(numpy_mean(&[1.0, 2.0]), Some(1.5));
    assert_eq!(numpy_mean(&[]), None);
}

#[test]
fn steady_state_prefills_the_cluster() {
    // 8:8:8, -m, seed 0: 13 pre-fill jobs, then job 13 at 0 and job 14 at 978.344291641206.
    let cfg = GeneratedConfig::continuous(3600.0, 13, 14, 0)
        .multi_gpu(true)
        .steady_state(true);
    let out = run_generated(table(), &cluster(8, 8, 8), GavelPolicyKind::FifoPerf, &cfg).unwrap();
    for j in &out.jobs[..14] {
        assert_eq!(j.arrival, 0.0, "job {}", j.id);
    }
    assert_eq!(out.jobs[14].arrival, 978.344291641206);
    // Per type (k80, p100, v100), jobs were drawn until the type's 8 GPUs were covered.
    let mut left = [8i64, 8, 8];
    let mut t = 0;
    for j in &out.jobs[..13] {
        while left[t] <= 0 {
            t += 1;
        }
        left[t] -= i64::from(j.scale_factor);
    }
    assert!(left.iter().all(|&l| l <= 0), "{left:?}");
    assert!(out.jobs[13..15]
        .iter()
        .all(|j| j.status == GeneratedStatus::Completed));
}

/// One §G9.1 vector: JCTs of the window, average, utilisation, final clock, rounds, solves,
/// jobs generated.
struct Tv {
    jcts: [f64; 8],
    avg: f64,
    util: f64,
    clock: f64,
    rounds: u64,
    solves: u64,
    jobs: usize,
}

fn tv1(policy: GavelPolicyKind, seed: u64) -> GeneratedOutcome {
    let cfg = GeneratedConfig::continuous(14400.0, 4, 11, seed);
    if policy.is_packed() {
        return run_generated_colocated(
            table(),
            Some(colocated()),
            &cluster(4, 4, 4),
            policy,
            &cfg,
        )
        .unwrap();
    }
    run_generated(table(), &cluster(4, 4, 4), policy, &cfg).unwrap()
}

fn tv2(policy: GavelPolicyKind) -> GeneratedOutcome {
    let cfg = GeneratedConfig::continuous(21600.0, 0, 7, 0)
        .multi_gpu(true)
        .priorities(true);
    run_generated(table(), &cluster(8, 4, 4), policy, &cfg).unwrap()
}

fn window_jcts(o: &GeneratedOutcome) -> Vec<f64> {
    o.measured().map(|j| j.jct.expect("completed")).collect()
}

fn assert_exact(o: &GeneratedOutcome, t: &Tv, what: &str) {
    assert_eq!(window_jcts(o), t.jcts, "{what}: JCTs");
    assert_eq!(o.avg_jct, Some(t.avg), "{what}: average");
    assert_eq!(o.final_clock, t.clock, "{what}: final clock");
    assert_eq!(
        (o.rounds, o.solves),
        (t.rounds, t.solves),
        "{what}: rounds/solves"
    );
    assert_eq!(o.generated(), t.jobs, "{what}: jobs generated");
    // Gavel averages per-GPU ratios (its worker ids are not modelled): equal up to rounding.
    assert!(
        (o.utilization - t.util).abs() <= 1e-12 * t.util,
        "{what}: utilisation {} vs {}",
        o.utilization,
        t.util
    );
}

const TV1_FIFO_PERF_S0: Tv = Tv {
    jcts: [
        6920.775485156693,
        446191.46530320606,
        8543.442670634591,
        5511.154500282428,
        11390.984766112393,
        41884.10783236717,
        43828.77219045951,
        56460.28541837909,
    ],
    avg: 77591.37352082474,
    util: 0.2698781399910764,
    clock: 495698.35851002473,
    rounds: 1378,
    solves: 60,
    jobs: 32,
};

#[test]
fn tv1_fifo_perf_is_bit_exact() {
    let o = tv1(GavelPolicyKind::FifoPerf, 0);
    assert_eq!(o.window_start, Some(35217.08711189393));
    assert_exact(&o, &TV1_FIFO_PERF_S0, "TV1 fifo_perf s0");
    let o = tv1(GavelPolicyKind::FifoPerf, 1);
    assert_eq!(o.window_start, Some(15131.495814012642));
    assert_exact(
        &o,
        &Tv {
            jcts: [
                46487.99462473671,
                4192.210570473659,
                29465.041484790578,
                17614.621462784147,
                23460.689626622363,
                453976.87555824773,
                3523.800996174905,
                5449.771525215605,
            ],
            avg: 73021.37573113071,
            util: 0.29845292388721784,
            clock: 557920.7638613926,
            rounds: 1531,
            solves: 73,
            jobs: 40,
        },
        "TV1 fifo_perf s1",
    );
}

#[test]
fn tv2_fifo_perf_with_multi_gpu_jobs_and_priorities_is_bit_exact() {
    let o = tv2(GavelPolicyKind::FifoPerf);
    let sf: Vec<u32> = o.jobs[..8].iter().map(|j| j.scale_factor).collect();
    assert_eq!(sf, [8, 1, 1, 4, 1, 4, 1, 1]);
    let w: Vec<f64> = o.jobs[..8].iter().map(|j| j.weight).collect();
    assert_eq!(w, [1.0, 1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 1.0]);
    assert_exact(
        &o,
        &Tv {
            jcts: [
                68344.35010595094,
                451924.6560744408,
                3319.4288060621657,
                220300.80477871414,
                2031.6787345848643,
                186991.78081327534,
                4295.917744273829,
                284104.81431922235,
            ],
            avg: 152664.17892206556,
            util: 0.5929644019203709,
            clock: 457913.6800241699,
            rounds: 1273,
            solves: 34,
            jobs: 21,
        },
        "TV2 fifo_perf s0",
    );
}

/// The window's JCTs and the average, bit for bit (the vectors record only these).
fn assert_jcts_exact(o: &GeneratedOutcome, jcts: [f64; 8], avg: f64, what: &str) {
    assert_eq!(window_jcts(o), jcts, "{what}: JCTs");
    assert_eq!(o.avg_jct, Some(avg), "{what}: average");
}

/// Tolerance check (§G9.3): same completion order, average within 0.3 %.
fn assert_close(o: &GeneratedOutcome, jcts: [f64; 8], avg: f64, what: &str) {
    let got = window_jcts(o);
    let order = |v: &[f64], arr: &[f64]| {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&a, &b| (v[a] + arr[a]).total_cmp(&(v[b] + arr[b])));
        idx
    };
    let arr: Vec<f64> = o.measured().map(|j| j.arrival).collect();
    assert_eq!(
        order(&got, &arr),
        order(&jcts, &arr),
        "{what}: completion order {got:?}"
    );
    let a = o.avg_jct.unwrap();
    assert!(
        (a - avg).abs() <= 3e-3 * avg,
        "{what}: average {a} vs Gavel's {avg} ({got:?})"
    );
}

#[test]
fn tv1_max_min_fairness_perf_is_bit_exact() {
    // Solved as Gavel's cvxpy + ECOS solves it (blox_gavel's ECOS): both seeds bit for bit (the
    // analytic centre of the optimal face, before, came within the tolerance of assert_close).
    let o = tv1(GavelPolicyKind::MaxMinFairnessPerf, 0);
    assert_jcts_exact(
        &o,
        [
            6920.775485156693,
            451786.19215806335,
            8543.442670634591,
            5511.154500282428,
            11390.984766112393,
            41884.10783236717,
            43828.77219045951,
            56460.28541837909,
        ],
        78290.7143776819,
        "TV1 max_min_fairness_perf s0",
    );
    let o = tv1(GavelPolicyKind::MaxMinFairnessPerf, 1);
    assert_jcts_exact(
        &o,
        [
            46959.461738580714,
            3884.0971660811683,
            28699.720913895602,
            39716.324066794936,
            23524.749128574753,
            463301.8853767465,
            6131.166233805052,
            5513.833379496558,
        ],
        77216.4047504969,
        "TV1 max_min_fairness_perf s1",
    );
}

#[test]
fn tv1_max_min_fairness_is_within_tolerance() {
    let o = tv1(GavelPolicyKind::MaxMinFairness, 0);
    assert_close(
        &o,
        [
            8209.757342785379,
            746434.5742726282,
            11634.505768326599,
            7667.398250640414,
            14981.861307216954,
            79648.64213483148,
            77503.36346948796,
            89616.83738814233,
        ],
        129462.11749175741,
        "TV1 max_min_fairness s0",
    );
    let o = tv1(GavelPolicyKind::MaxMinFairness, 1);
    assert_close(
        &o,
        [
            77212.77065701268,
            4296.283493044515,
            47145.310295477386,
            24754.101207162304,
            36584.29569315979,
            791999.429507653,
            3403.740839106482,
            6790.3315210699075,
        ],
        124023.28290171076,
        "TV1 max_min_fairness s1",
    );
}

#[test]
fn static_mode_runs_every_job_from_t0_and_stops_when_all_are_done() {
    let cfg = GeneratedConfig::static_jobs(30, 0).multi_gpu(true);
    let o = run_generated(table(), &cluster(8, 8, 8), GavelPolicyKind::FifoPerf, &cfg).unwrap();
    assert_eq!(o.generated(), 30);
    assert!(o.jobs.iter().all(|j| j.arrival == 0.0));
    assert!(o
        .jobs
        .iter()
        .all(|j| j.status != GeneratedStatus::Unfinished));
    // Makespan = the final clock = the latest finish (every job arrived at 0).
    let last = o.jobs.iter().filter_map(|j| j.finish).fold(0.0, f64::max);
    assert_eq!(o.final_clock, last);
    let jcts: Vec<f64> = o.jobs.iter().filter_map(|j| j.jct).collect();
    assert_eq!(o.avg_jct, numpy_mean(&jcts));
    // The same jobs as continuous mode draws (the generator does not depend on arrivals).
    let mut g = JobGenerator::new(0, true, false, None).unwrap();
    for j in &o.jobs {
        let d = g.next_draw();
        assert_eq!(
            (j.job_type, j.duration_s),
            (GAVEL_JOB_TABLE[d.template].0, d.duration_s)
        );
    }
    // Same inputs, same outputs.
    let again = run_generated(table(), &cluster(8, 8, 8), GavelPolicyKind::FifoPerf, &cfg).unwrap();
    assert_eq!(o, again);
}

#[test]
fn bad_settings_and_unrunnable_window_jobs_are_errors() {
    let c = cluster(4, 4, 4);
    let t = table();
    let k = GavelPolicyKind::FifoPerf;
    // λ > 0 without a window would never stop; λ = 0 needs a count; window beyond the count.
    let mut cfg = GeneratedConfig::continuous(3600.0, 0, 3, 0).window(None);
    assert!(run_generated(t, &c, k, &cfg).is_err());
    cfg = GeneratedConfig::continuous(0.0, 0, 3, 0);
    assert!(run_generated(t, &c, k, &cfg).is_err());
    cfg = GeneratedConfig::static_jobs(5, 0).window(Some((0, 5)));
    assert!(run_generated(t, &c, k, &cfg).is_err());
    cfg = GeneratedConfig::continuous(3600.0, 3, 2, 0);
    assert!(run_generated(t, &c, k, &cfg).is_err());
    cfg = GeneratedConfig::continuous(-1.0, 0, 2, 0);
    assert!(run_generated(t, &c, k, &cfg).is_err());
    // Seed 0 with -m: job 0 needs 8 GPUs, more than any type of 4:4:4 has: Gavel would wait
    // for it forever.
    cfg = GeneratedConfig::continuous(3600.0, 0, 2, 0).multi_gpu(true);
    let e = run_generated(t, &c, k, &cfg).unwrap_err();
    assert!(e.to_string().contains("loop forever"), "{e}");
}

#[test]
fn tv2_max_sum_throughput_perf_is_bit_exact() {
    let o = tv2(GavelPolicyKind::MaxSumThroughputPerf);
    assert_exact(
        &o,
        &Tv {
            jcts: [
                68344.38616576814,
                544624.8309153813,
                3319.4288060621657,
                234906.63647017308,
                2967.3143577539304,
                165425.83198885957,
                4443.916018116477,
                310474.8383180323,
            ],
            avg: 166813.39788001837,
            util: 0.5875016425145229,
            clock: 550789.6823452121,
            rounds: 1531,
            solves: 52,
            jobs: 27,
        },
        "TV2 max_sum_throughput_perf s0",
    );
}

#[test]
fn tv1_min_total_duration_perf_is_bit_exact() {
    // A constant objective: Gavel's answer is the feasible point ECOS reports (§G9.3), which
    // blox_gavel's ECOS reproduces here bit for bit (the analytic centre of the feasible set,
    // before, came within the tolerance of assert_close).
    let o = tv1(GavelPolicyKind::MinTotalDurationPerf, 0);
    assert_jcts_exact(
        &o,
        [
            6920.775485156693,
            446337.4835286232,
            8543.442670634591,
            5511.154500282428,
            11390.984766112393,
            41884.10783236717,
            43828.77219045951,
            56460.28541837909,
        ],
        77609.62579900188,
        "TV1 min_total_duration_perf s0",
    );
}

/// A held-out run of the original (c4fa400's generated-jobs driver, unmodified, run by us
/// with cvxpy 1.6.7 / numpy 1.26: `-c 8:8:8 -l 3600 -s 20 -e 40 -m --simulate-steady-state
/// --seed 1 -p fifo_perf`): window JCTs as Gavel's `_job_completion_times` holds them, the
/// final clock, 1,451 rounds, and "average JCT=93613.985719, utilization=0.917034". It caught
/// `fifo_perf` assigning a job whose best free type runs it at 0 steps/s (ResNet-50, batch 128,
/// on 4 K80s), which idled those GPUs.
#[test]
fn held_out_steady_state_fifo_perf_run_is_bit_exact() {
    let cfg = GeneratedConfig::continuous(3600.0, 20, 39, 1)
        .multi_gpu(true)
        .steady_state(true);
    let o = run_generated(table(), &cluster(8, 8, 8), GavelPolicyKind::FifoPerf, &cfg).unwrap();
    let want = [
        48685.20900531124,
        43752.68601213565,
        153768.75996486627,
        78061.65004840048,
        52695.99203217056,
        506884.8516236471,
        97920.03536115236,
        79868.08463529153,
        47154.06632580509,
        49216.222969130315,
        52826.6336490051,
        63017.90612967986,
        52368.28962605157,
        67317.13680570929,
        75148.71921588338,
        62918.99160233619,
        59519.32140310809,
        43763.5869710259,
        79466.74287940003,
        157924.82811317273,
    ];
    assert_eq!(window_jcts(&o), want);
    assert_eq!(o.final_clock, 521994.0113814068);
    assert_eq!(o.rounds, 1451);
    let avg = o.avg_jct.unwrap();
    assert!((avg - 93613.985719).abs() < 5e-7, "{avg}");
    assert!((o.utilization - 0.917034).abs() < 5e-7, "{}", o.utilization);
}

#[test]
fn tv1_fifo_packed_is_bit_exact() {
    // §G9.1: no pair ever beats the 1.5 threshold, so the run is TV1 fifo_perf s0 to the bit,
    // with the pairs' candidate entries, accounting and stale drops in place.
    let o = tv1(GavelPolicyKind::FifoPacked, 0);
    assert_eq!(o.window_start, Some(35217.08711189393));
    assert_exact(&o, &TV1_FIFO_PERF_S0, "TV1 fifo_packed s0");
}

#[test]
fn tv1_max_min_fairness_packed_is_within_tolerance() {
    // §G9.1 (numpy 1.26, cvxpy 1.6.7, ECOS 2.0.12): a behavioural check (§G9.3).
    let o = tv1(GavelPolicyKind::MaxMinFairnessPacked, 0);
    let want = [
        7085.127987613218,
        455343.3801179344,
        8543.450061224408,
        5511.161890872245,
        11390.99215670221,
        41999.56705527341,
        43828.779581049326,
        56460.292808968894,
    ];
    eprintln!(
        "TV1 max_min_fairness_packed s0: {:?} avg {:?} util {} clock {} rounds {} solves {} jobs {}",
        window_jcts(&o),
        o.avg_jct,
        o.utilization,
        o.final_clock,
        o.rounds,
        o.solves,
        o.generated()
    );
    assert_close(
        &o,
        want,
        78770.34395745475,
        "TV1 max_min_fairness_packed s0",
    );
}
