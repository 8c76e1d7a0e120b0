//! Every reader on the real files, checked against the catalogue (`traces/README.md`).

use crate::{read, trace, traces_dir};
use blox_core::Time;
use blox_workload::{
    read_trace, read_traces, GavelThroughputs, ReadOptions, TraceFormat, TraceStats,
    PHILLY_GPU_COUNTS,
};
use std::collections::{BTreeMap, BTreeSet};

const ITP_ROWS: [usize; 10] = [
    1_595, 5_778, 3_011, 15_802, 3_629, 2_396, 12_699, 13_047, 11_134, 260,
];

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

#[test]
fn itp_raw_clusters_row_counts_ranges_and_gpu_hours() {
    let dir = traces_dir();
    let mut inputs = Vec::new();
    for (i, rows) in ITP_ROWS.iter().enumerate() {
        let rel = format!("itp/raw/cluster{:02}.csv", i + 1);
        let r = read(&rel, TraceFormat::Itp);
        assert_eq!(r.jobs.len(), *rows, "{rel}");
        assert_eq!(r.filtered_count() + r.bad_line_count, 0, "{rel}");
        inputs.push((dir.join(rel), TraceFormat::Itp));
    }
    let c1 = read("itp/raw/cluster01.csv", TraceFormat::Itp);
    let j = &c1.jobs[0];
    assert_eq!(
        j.source_id.as_deref(),
        Some("965d744f-0445-c1a8-12af-97e4c536c66e")
    );
    assert_eq!(
        (j.arrival, j.work_s, j.n_gpus),
        (Time::from_secs(1_932_025), 2429.0, 64)
    );
    let s = TraceStats::compute(&c1.jobs, None);
    assert_eq!(secs(s.first_arrival.unwrap()), 1_932_025.0);
    assert_eq!(secs(s.last_arrival.unwrap()), 4_848_400.0);
    let d = s.duration.unwrap();
    assert_eq!((d.min, d.max), (612.0, 144_151.0));
    assert_eq!(*s.gpu_histogram.keys().last().unwrap(), 64);
    assert_eq!(format!("{:.1}", s.gpu_seconds / 3600.0), "22740.1");

    // All ten merged by arrival: 69,351 jobs, 1,632,719.7 GPU-hours.
    let all = read_traces(&inputs, &ReadOptions::default()).unwrap();
    assert_eq!(all.jobs.len(), 69_351);
    assert!(all.jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    let s = TraceStats::compute(&all.jobs, None);
    assert_eq!(format!("{:.1}", s.gpu_seconds / 3600.0), "1632719.7");
    assert_eq!(
        s.gpu_histogram.keys().copied().collect::<Vec<_>>(),
        vec![1, 2, 4, 8, 16, 32, 64]
    );
    assert!(s.duration.unwrap().min >= 600.0);
    let ids: BTreeSet<_> = all.jobs.iter().map(|j| j.source_id.clone()).collect();
    assert_eq!(ids.len(), 69_351, "job ids are unique over the 10 files");
}

#[test]
fn itp_elasticflow_matches_raw_and_keeps_model_and_deadline() {
    for (i, rows) in ITP_ROWS.iter().enumerate() {
        let n = i + 1;
        let rel = if n == 4 || n == 8 {
            format!("itp/elasticflow/cluster{n:02}.csv.gz")
        } else {
            format!("itp/elasticflow/cluster{n:02}.csv")
        };
        let r = read(&rel, TraceFormat::Itp);
        assert_eq!(r.jobs.len(), *rows, "{rel}");
        assert!(r
            .jobs
            .iter()
            .all(|j| j.model.is_some() && j.deadline.is_some()));
        if n == 1 {
            let raw = read("itp/raw/cluster01.csv", TraceFormat::Itp);
            for (a, b) in raw.jobs.iter().zip(&r.jobs) {
                assert_eq!(
                    (&a.source_id, a.arrival, a.work_s, a.n_gpus),
                    (&b.source_id, b.arrival, b.work_s, b.n_gpus)
                );
            }
            assert_eq!(r.jobs[0].model.as_deref(), Some("resnet50"));
            assert_eq!(r.jobs[0].deadline, Some(Time::from_secs(1_933_904)));
        }
    }
    let r = read("itp/elasticflow/195job.csv", TraceFormat::Itp);
    assert_eq!(r.jobs.len(), 195);
    let s = TraceStats::compute(&r.jobs, None);
    assert_eq!(secs(s.first_arrival.unwrap()), 3_715_485.0);
    assert_eq!(secs(s.last_arrival.unwrap()), 3_887_530.0);
    assert_eq!(s.gpu_histogram.keys().next(), Some(&1));
    assert_eq!(s.gpu_histogram.keys().last(), Some(&16));
    assert_eq!(r.jobs[0].model.as_deref(), Some("deepspeech2"));
    let models: BTreeSet<_> = r.jobs.iter().filter_map(|j| j.model.clone()).collect();
    assert!(models.len() <= 6);
}

#[test]
fn pollux_philly_csv_gz_rows_gpus_and_clock() {
    let r = read("pollux/traces/philly.csv.gz", TraceFormat::Pollux);
    // 82,247 rows; the trailing empty record is neither a job nor a bad line.
    assert_eq!(r.jobs.len(), 82_247);
    assert_eq!(r.bad_line_count + r.filtered_count(), 0);
    let s = TraceStats::compute(&r.jobs, None);
    let hist: Vec<(u32, u64)> = s.gpu_histogram.iter().map(|(g, n)| (*g, *n)).collect();
    assert_eq!(
        hist, PHILLY_GPU_COUNTS,
        "philly_gpu_weights_match_the_trace"
    );
    let d = s.duration.unwrap();
    assert_eq!((d.min, d.max), (1.0, 4_628_226.0));
    assert_eq!(r.jobs.iter().filter(|j| j.work_s < 60.0).count(), 7_654);
    // Arrivals from the earliest timestamp 2017-09-04 10:30:41 to 2017-12-22 08:02:11.
    assert_eq!(s.first_arrival, Some(Time::ZERO));
    let span = blox_workload::parse_datetime("2017-12-22 08:02:11").unwrap()
        - blox_workload::parse_datetime("2017-09-04 10:30:41").unwrap();
    assert_eq!(s.span_s, span as f64);
    // Rows are not sorted: the first row (2017-10-09 07:01:55, 66 s) is not the earliest.
    let first = &r.jobs[0];
    assert_eq!(first.work_s, 66.0);
    assert_eq!(first.tenant.as_deref(), Some("11cb48"));
    let origin = blox_workload::parse_datetime("2017-09-04 10:30:41").unwrap();
    let t = blox_workload::parse_datetime("2017-10-09 07:01:55").unwrap() - origin;
    assert_eq!(first.arrival, Time::from_secs(t as u64));
    let mut vcs: BTreeMap<&str, usize> = BTreeMap::new();
    for j in &r.jobs {
        *vcs.entry(j.tenant.as_deref().unwrap()).or_default() += 1;
    }
    assert_eq!(vcs.len(), 15);
    assert_eq!(vcs["6214e9"], 41_226);
}

#[test]
fn pollux_workloads_rows_and_values() {
    let mut min_t = f64::MAX;
    let mut max_t: f64 = 0.0;
    for (dir, rows) in [
        ("workloads", 160),
        ("workloads-realistic", 160),
        ("workloads-0.5", 80),
        ("workloads-1.5", 240),
        ("workloads-2.0", 320),
    ] {
        let mut one_gpu = 0;
        let mut max_gpus = 0;
        for n in 1..=8 {
            let rel = format!("pollux/{dir}/workload-{n}.csv");
            let r = read(&rel, TraceFormat::Pollux);
            assert_eq!(r.jobs.len(), rows, "{rel}");
            for j in &r.jobs {
                min_t = min_t.min(secs(j.arrival));
                max_t = max_t.max(secs(j.arrival));
                assert!(j.elastic);
                let g = blox_workload::pollux_reference_gpu_seconds(j.model.as_deref().unwrap())
                    .unwrap();
                assert!((j.work_s * f64::from(j.n_gpus) - g).abs() < 1e-6);
            }
            one_gpu += r.jobs.iter().filter(|j| j.n_gpus == 1).count();
            max_gpus = max_gpus.max(r.jobs.iter().map(|j| j.n_gpus).max().unwrap());
        }
        match dir {
            "workloads-realistic" => assert_eq!((one_gpu, max_gpus), (1_199, 32)),
            "workloads" => assert!(max_gpus <= 48),
            _ => {}
        }
    }
    assert_eq!((min_t, max_t), (16.0, 28_775.0));
    let w6 = read("pollux/workloads/workload-6.csv", TraceFormat::Pollux);
    let j = &w6.jobs[0];
    assert_eq!(j.source_id.as_deref(), Some("cifar10-0"));
    assert_eq!((j.arrival, j.n_gpus), (Time::from_secs(53), 6));
    assert_eq!(j.model.as_deref(), Some("cifar10"));
}

const GAVEL: [(&str, usize); 8] = [
    ("artifact_evaluation", 15),
    ("debug", 14),
    ("debug_v2", 14),
    ("highmem_test", 8),
    ("max_min_fairness", 96),
    ("medium_test", 20),
    ("minimize_makespan", 100),
    ("small_test", 20),
];

#[test]
fn gavel_traces_rows_arrivals_and_durations() {
    let dir = traces_dir();
    for (name, rows) in GAVEL {
        let rel = format!("gavel/physical_cluster/{name}.trace");
        let r = read(&rel, TraceFormat::Gavel);
        assert_eq!(r.jobs.len(), rows, "{rel}");
        assert!(r.jobs.iter().all(|j| [1, 2, 4].contains(&j.n_gpus)));
        assert!(
            r.jobs.iter().all(|j| j.deadline.is_none()),
            "SLO is -1 everywhere"
        );
        let s = TraceStats::compute(&r.jobs, None);
        if name == "max_min_fairness" {
            assert_eq!(s.first_arrival, Some(Time::ZERO));
            assert_eq!(s.last_arrival, Some(Time::from_secs(46_317)));
        } else {
            assert_eq!(s.last_arrival, Some(Time::ZERO), "{name}");
        }
    }
    let physical =
        GavelThroughputs::load(&dir.join("gavel/physical_cluster_throughputs.json.gz")).unwrap();
    assert_eq!(physical.len(), 83 * 5 + 77);
    // The default table next to a Gavel trace is the simulation one (Gavel's simulator's).
    let table = GavelThroughputs::load(&dir.join("gavel/simulation_throughputs.json.gz")).unwrap();
    assert_eq!(table.len(), 83 * 5 + 77);
    let rate = table
        .isolated("v100", "ResNet-18 (batch size 128)", 4)
        .unwrap();
    let r = read(
        "gavel/physical_cluster/max_min_fairness.trace",
        TraceFormat::Gavel,
    );
    let j = &r.jobs[0];
    assert_eq!(j.model.as_deref(), Some("ResNet-18 (batch size 128)"));
    assert_eq!(j.n_gpus, 4);
    assert_eq!(j.work_s, 925_982.0 / rate);
    // Another worker type gives other durations; k80 has a zero rate for some (job type, scale)
    // pairs, which is a malformed line naming the job type.
    let p = trace("gavel/physical_cluster/max_min_fairness.trace");
    let p100 = ReadOptions::default().with_gavel_worker_type("p100");
    let rp = read_trace(&p, TraceFormat::Gavel, &p100).unwrap();
    assert_eq!(rp.jobs.len(), 96);
    assert!(rp.jobs[0].work_s > j.work_s);
    let k80 = ReadOptions::default().with_gavel_worker_type("k80");
    let e = read_trace(&p, TraceFormat::Gavel, &k80).unwrap_err();
    assert!(e.to_string().ends_with(
        "max_min_fairness.trace:91: field `job_type`: no isolated throughput for (`ResNet-50 (batch size 128)`, 2) on worker type `k80` in the Gavel throughput table"
    ), "{e}");
}

#[test]
fn tiresias_60_jobs_crlf() {
    let r = read("tiresias/60_job.csv", TraceFormat::Tiresias);
    assert_eq!(r.jobs.len(), 60);
    let s = TraceStats::compute(&r.jobs, None);
    assert_eq!(s.first_arrival, Some(Time::ZERO));
    assert_eq!(s.last_arrival, Some(Time::from_secs(1_779)));
    let d = s.duration.unwrap();
    assert_eq!((d.min, d.max), (121.0, 1_800.0));
    assert!(s.gpu_histogram.keys().all(|g| [1, 2, 4, 8].contains(g)));
    let j = &r.jobs[0];
    assert_eq!((j.n_gpus, j.work_s), (1, 164.0));
    assert_eq!(j.model.as_deref(), Some("vgg19"));
    assert_eq!(r.jobs[59].model.as_deref(), Some("inception3"));
}

#[test]
fn alibaba_default_pod_list_filters_cpu_only_and_pending() {
    let r = read(
        "alibaba2023/openb_pod_list_default.csv",
        TraceFormat::Alibaba2023,
    );
    assert_eq!(r.jobs.len() as u64 + r.filtered_count(), 8_152);
    assert_eq!(r.filtered.get("CPU-only pod"), Some(&1_088));
    assert_eq!(r.filtered.get("never scheduled"), Some(&861));
    assert_eq!(r.jobs.len(), 6_203);
    let j = &r.jobs[0];
    assert_eq!(j.source_id.as_deref(), Some("openb-pod-0000"));
    assert_eq!(
        (j.arrival, j.n_gpus, j.work_s),
        (Time::ZERO, 1, 12_537_496.0)
    );
    assert_eq!((j.cpus, j.mem_gb), (Some(12.0), Some(16.0)));
    let s = TraceStats::compute(&r.jobs, None);
    assert_eq!(s.last_arrival, Some(Time::from_secs(12_901_761)));
    assert_eq!(
        s.gpu_histogram.keys().copied().collect::<Vec<_>>(),
        vec![1, 2, 4, 8]
    );
}

#[test]
fn alibaba_variants_row_counts() {
    let variants: [(&str, u64); 18] = [
        ("cpu037", 7_336),
        ("cpu050", 7_439),
        ("cpu072", 7_608),
        ("cpu100", 7_853),
        ("cpu200", 8_832),
        ("cpu235", 9_240),
        ("cpu250", 9_420),
        ("cpu300", 10_094),
        ("gpushare20", 8_152),
        ("gpushare40", 8_152),
        ("gpushare60", 8_152),
        ("gpushare80", 8_152),
        ("gpushare100", 8_152),
        ("gpuspec05", 8_152),
        ("gpuspec10", 8_152),
        ("gpuspec20", 8_152),
        ("gpuspec25", 8_152),
        ("gpuspec33", 8_152),
    ];
    for (v, rows) in variants {
        let rel = format!("alibaba2023/variants/openb_pod_list_{v}.csv.gz");
        let r = read(&rel, TraceFormat::Alibaba2023);
        assert_eq!(r.jobs.len() as u64 + r.filtered_count(), rows, "{rel}");
        assert_eq!(r.bad_line_count, 0);
    }
    // The multigpu variants have no times: a clear error naming the column.
    let p = trace("alibaba2023/variants/openb_pod_list_multigpu20.csv.gz");
    let e = read_trace(&p, TraceFormat::Alibaba2023, &ReadOptions::default()).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "openb_pod_list_multigpu20.csv.gz:1: field `creation_time`: missing column `creation_time` in the header (an Alibaba 2023 pod list needs name,cpu_milli,memory_mib,num_gpu,creation_time,deletion_time,scheduled_time; the multigpu variants have no times and cannot be replayed)"
        ),
        "{e}"
    );
}

#[test]
fn missing_file_under_blox_traces_fails() {
    // The helper fails the test, naming the file, when a trace file is missing.
    let r = std::panic::catch_unwind(|| trace("itp/raw/cluster99.csv"));
    assert!(r.is_err());
}
