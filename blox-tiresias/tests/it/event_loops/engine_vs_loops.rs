//! The `tiresias` time model against the test vectors of TIRESIAS-SEMANTICS.md (§11 and the
//! appendix): every job's JCT, the number completed, the makespan and the preemptions.

use super::run_tiresias;
use blox_metrics::JobLog;
use blox_tiresias::placement::{PeerScheme, TiresiasClusterSpec};
use blox_tiresias::policy::{
    GittinsTable, PeerPolicy, PeerSchedule, TIRESIAS_GITTINS_DELTA, TIRESIAS_GITTINS_SAMPLE,
};
use blox_tiresias::run::{PeerInput, PeerRun, TiresiasConfig};
use blox_workload::{parse_trace, ReadOptions, TraceFormat};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One result line of the spec.
pub(crate) struct Vector {
    pub trace: &'static str,
    pub cluster: &'static str,
    pub schedule: &'static str,
    /// `yarn`, `count`, `yarn=count` (both), `(any)` (all four schemes), `[500,1500]` (yarn with
    /// thresholds 500/1500).
    pub placement: &'static str,
    pub n: usize,
    pub makespan: i64,
    pub preemptions: u64,
    pub jcts: &'static [(u32, i64)],
}

/// The repository's `traces/` folder (`$BLOX_TRACES` overrides it); panics naming the YARN
/// sample if it is missing there.
fn traces_dir() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let t = dir.join("tiresias").join(TIRESIAS_GITTINS_SAMPLE);
    assert!(
        t.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        t.display(),
        std::env::var_os("BLOX_TRACES")
    );
    dir
}

/// The shipped YARN sample's table.
fn yarn_table() -> Arc<GittinsTable> {
    static TABLE: OnceLock<Arc<GittinsTable>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let path = traces_dir().join("tiresias").join(TIRESIAS_GITTINS_SAMPLE);
            let text = std::fs::read_to_string(&path).unwrap();
            let t = GittinsTable::parse_csv(&text, TIRESIAS_GITTINS_DELTA).unwrap();
            assert_eq!(t.len(), 1001);
            Arc::new(t)
        })
        .clone()
}

fn inputs(trace: &str) -> Vec<PeerInput> {
    let read = parse_trace(
        trace.as_bytes(),
        Path::new("toy.csv"),
        TraceFormat::Tiresias,
        &ReadOptions::default(),
    )
    .unwrap();
    PeerInput::from_specs(&read.jobs).unwrap()
}

fn cluster(name: &str) -> TiresiasClusterSpec {
    let text = match name {
        "n1g4" => "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\r\n1,1,4,40,256\r\n",
        "n2g4" => "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\r\n1,2,4,40,256\r\n",
        other => panic!("unknown cluster {other}"),
    };
    TiresiasClusterSpec::parse(text).unwrap()
}

/// Run one configuration.
pub(crate) fn simulate(
    trace: &[PeerInput],
    spec: TiresiasClusterSpec,
    policy: &str,
    scheme: PeerScheme,
) -> (PeerRun, JobLog) {
    let policy = PeerPolicy::parse(policy).unwrap();
    let gittins = if policy.schedule == PeerSchedule::DlasGpuGittins {
        Some(yarn_table())
    } else {
        None
    };
    let cfg = TiresiasConfig::new(policy, scheme, spec, gittins).unwrap();
    let mut log = JobLog::default();
    let run = run_tiresias(&cfg, trace, &mut log);
    (run, log)
}

pub(crate) fn check(v: &Vector) {
    let (schemes, policy): (Vec<PeerScheme>, String) = match v.placement {
        "(any)" => (PeerScheme::ALL.to_vec(), v.schedule.to_string()),
        "yarn=count" => (vec![PeerScheme::Yarn, PeerScheme::Count], v.schedule.into()),
        "[500,1500]" => (
            vec![PeerScheme::Yarn],
            format!("{}:thresholds=500/1500", v.schedule),
        ),
        one => (vec![PeerScheme::parse(one).unwrap()], v.schedule.into()),
    };
    let trace = inputs(v.trace);
    for scheme in schemes {
        let (run, log) = simulate(&trace, cluster(v.cluster), &policy, scheme);
        let what = format!("{} {} on {}", policy, scheme, v.cluster);
        let mut got: Vec<(u32, i64)> = run
            .rows
            .iter()
            .map(|r| (r.job_id.parse().unwrap(), r.jct()))
            .collect();
        got.sort_unstable();
        let wrong: Vec<String> = v
            .jcts
            .iter()
            .filter(|want| !got.contains(want))
            .map(|(id, jct)| {
                let had = got.iter().find(|g| g.0 == *id).map(|g| g.1);
                format!("job {id}: want JCT {jct}, got {had:?}")
            })
            .collect();
        assert!(wrong.is_empty(), "{what}: {}", wrong.join("; "));
        assert_eq!(run.rows.len(), v.n, "{what}: jobs completed");
        let mk = run.rows.iter().map(|r| r.end_time).max().unwrap_or(0);
        assert_eq!(mk, v.makespan, "{what}: makespan");
        // As the spec computes it from `job.csv`: over completed jobs.
        let pre: u64 = run.rows.iter().map(|r| u64::from(r.preempt)).sum();
        assert_eq!(pre, v.preemptions, "{what}: preemptions");
        // Through the engine (TimeModel + policy + placement): the same JCT for every job.
        if let Some(engine) = through_engine(&trace, cluster(v.cluster), &policy, scheme) {
            let mut want: Vec<(String, i64)> = run
                .rows
                .iter()
                .map(|r| (r.job_id.clone(), r.jct()))
                .collect();
            want.sort();
            assert_eq!(engine, want, "{what}: through the engine");
        }
        // The project's job log agrees with Tiresias' rows.
        for r in &run.rows {
            let rec = log.records()[r.job].jct().unwrap();
            assert_eq!(
                rec.as_secs() as i64,
                r.jct(),
                "{what}: job log of job {}",
                r.job_id
            );
        }
    }
}

/// A run through the engine ([`run_tiresias_engine`]: `TiresiasTime` with Tiresias'
/// components as the scheduler); per job (source id, JCT in whole seconds), sorted. `None`
/// for `random` under a schedule that calls the placement.
pub(crate) fn through_engine(
    trace: &[PeerInput],
    spec: TiresiasClusterSpec,
    policy: &str,
    scheme: PeerScheme,
) -> Option<Vec<(String, i64)>> {
    use blox_tiresias::run::run_tiresias_engine;
    let policy = PeerPolicy::parse(policy).unwrap();
    if scheme == PeerScheme::Random && !policy.schedule.is_dlas() {
        return None;
    }
    let gittins = if policy.schedule == PeerSchedule::DlasGpuGittins {
        Some(yarn_table())
    } else {
        None
    };
    let cfg = TiresiasConfig::new(policy, scheme, spec, gittins).unwrap();
    let (_, _, log) = run_tiresias_engine(&cfg, trace, JobLog::default()).unwrap();
    let mut out: Vec<(String, i64)> = log
        .records()
        .iter()
        .filter_map(|r| {
            let jct = r.jct()?;
            Some((r.source_id.as_deref()?.to_string(), jct.as_secs() as i64))
        })
        .collect();
    out.sort();
    Some(out)
}

/// §11.2: the jump quirk's worked example.
#[test]
fn jump_quirk_worked_example() {
    let trace = vec![
        PeerInput::new("0", 4, 0, 1500),
        PeerInput::new("1", 4, 10, 100),
    ];
    let spec = cluster("n1g4");
    let (run, _) = simulate(&trace, spec, "dlas-gpu", PeerScheme::Yarn);
    let jcts: Vec<(String, i64, u32)> = run
        .rows
        .iter()
        .map(|r| (r.job_id.clone(), r.jct(), r.preempt))
        .collect();
    // Demoted at 820 (not 813): job 1 runs 820..920, job 0 resumes and ends at 1600.
    assert_eq!(
        jcts,
        vec![("1".to_string(), 910, 0), ("0".to_string(), 1600, 1)]
    );
    let (run, _) = simulate(&trace, spec, "dlas", PeerScheme::Yarn);
    let jcts: Vec<i64> = run.rows.iter().map(|r| r.jct()).collect();
    assert_eq!(jcts, vec![1500, 1590]);
    let engine = through_engine(&trace, spec, "dlas-gpu", PeerScheme::Yarn).unwrap();
    assert_eq!(
        engine,
        vec![("0".to_string(), 1600), ("1".to_string(), 910)]
    );
}

/// Appendix: the phantom completion. Job 4 (8 GPUs, 700 s) is logged complete at 2000 after
/// only 387 s of service.
#[test]
fn phantom_completion() {
    let jobs = [
        (0, 4, 0, 1800),
        (1, 2, 0, 600),
        (2, 1, 0, 5000),
        (3, 3, 100, 900),
        (4, 8, 200, 700),
        (5, 1, 200, 300),
        (6, 2, 400, 2500),
        (7, 1, 400, 1200),
        (8, 4, 1000, 400),
        (9, 2, 1000, 1000),
        (10, 1, 2000, 100),
        (11, 3, 2500, 1500),
    ];
    let text: String = std::iter::once(
        "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n".to_string(),
    )
    .chain(
        jobs.iter()
            .map(|(id, g, s, d)| format!("{id},{g},{s},100,resnet50,{d},10\n")),
    )
    .collect();
    let trace = inputs(&text);
    let (run, _) = simulate(
        &trace,
        cluster("n2g4"),
        "dlas-gpu-gittins:thresholds=800/2400",
        PeerScheme::Yarn,
    );
    let r4 = run.rows.iter().find(|r| r.job_id == "4").unwrap();
    assert_eq!((r4.end_time, r4.jct()), (2000, 1800));
    let served = run.jobs[r4.job].total_executed_time;
    assert_eq!(
        served, 387,
        "job 4 ran {served} s before its phantom completion"
    );
    // The same through the engine (TimeModel, policy, placement), for every job.
    let engine = through_engine(
        &trace,
        cluster("n2g4"),
        "dlas-gpu-gittins:thresholds=800/2400",
        PeerScheme::Yarn,
    )
    .unwrap();
    let mut want: Vec<(String, i64)> = run
        .rows
        .iter()
        .map(|r| (r.job_id.clone(), r.jct()))
        .collect();
    want.sort();
    assert_eq!(engine, want);
    assert!(engine.contains(&("4".to_string(), 1800)));
}

/// A queue limit below the job's GPU count: the original predicts a jump `⌊1/4⌋ = 0` s away
/// that never demotes, and loops forever at the same time; the model stops and says so.
#[test]
fn zero_second_jump_never_ends() {
    use blox_tiresias::run::PeerStop;
    let trace = vec![
        PeerInput::new("0", 1, 0, 50),
        PeerInput::new("1", 4, 10, 100),
    ];
    let (run, _) = simulate(
        &trace,
        cluster("n1g4"),
        "dlas-gpu:thresholds=1/2",
        PeerScheme::Count,
    );
    // Job 0 (1 GPU) is demoted at 1 and 2 (exact jumps for one GPU); job 1 arrives at 10 in
    // Q0, pre-empts it, and gets a jump predicted at 10 + ⌊1/4⌋ = 10 that never fires.
    assert_eq!(run.stop, PeerStop::NeverEnds { time: 10 });
    assert!(run.rows.is_empty());
    assert_eq!(run.jobs[0].q_id, 2);
    assert_eq!(run.jobs[0].preempt, 1);
}

/// Tiresias' 60-job trace (from the repository's `traces/`): the 2D-LAS schedules
/// through the engine ([`TiresiasTime`]) give every job the JCT of the self-contained loop, on
/// 8, 16 and 128 GPUs, with the default and custom thresholds.
#[test]
fn sixty_jobs_engine_equals_event_loop() {
    let dir = traces_dir();
    let bytes = std::fs::read(dir.join("tiresias/60_job.csv")).unwrap();
    let read = parse_trace(
        &bytes,
        Path::new("60_job.csv"),
        TraceFormat::Tiresias,
        &ReadOptions::default(),
    )
    .unwrap();
    let trace = PeerInput::from_specs(&read.jobs).unwrap();
    let mut compared = 0;
    for nodes in [2, 4, 32] {
        let spec = TiresiasClusterSpec::from_shape(&format!("{nodes}x4")).unwrap();
        for schedule in ["dlas", "dlas-gpu", "dlas-gpu-gittins"] {
            for opts in ["", ":thresholds=500/1500", ":thresholds=100/200/300"] {
                let policy = format!("{schedule}{opts}");
                let (run, _) = simulate(&trace, spec, &policy, PeerScheme::Yarn);
                let mut want: Vec<(String, i64)> = run
                    .rows
                    .iter()
                    .map(|r| (r.job_id.clone(), r.jct()))
                    .collect();
                want.sort();
                assert_eq!(want.len(), 60, "{policy} on {nodes}x4");
                let got = through_engine(&trace, spec, &policy, PeerScheme::Yarn).unwrap();
                assert_eq!(got, want, "{policy} on {nodes}x4");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 27);
}
