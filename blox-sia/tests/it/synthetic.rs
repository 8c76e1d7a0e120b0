//! Sia's job model and agent on synthetic per-type measurements written by the test (no
//! artifact data needed): the typed load and its quirks, batch choice, restarts and
//! migrations, the slowed progress, per-type fits, the projection and the goodput matrix.

use std::path::PathBuf;

use blox_sia::agent::{estimate, goodput_fn, goodput_row, max_replicas};
use blox_sia::{SiaApps, SiaCluster, SiaJob};

/// A toy `yolov3` (so the artifact's tables apply: 50 epochs, restart delay 80 s, slowdown 1.2,
/// no per-GPU cap) measured on aws and rtx, in a fresh folder.
fn toy_traces(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blox-sia-synth-{}-{tag}", std::process::id()));
    let app = dir.join("yolov3");
    std::fs::create_dir_all(&app).unwrap();
    for b in [8, 16, 64] {
        let mut v = String::from("progress,iteration,grad_sqr,grad_var\n");
        for e in 0..50 {
            v += &format!("{},{},1.0,2.0\n", 100 * (e + 1), 10 * (e + 1));
        }
        std::fs::write(app.join(format!("validation-{b}.csv")), v).unwrap();
    }
    std::fs::write(
        app.join("placements-aws.csv"),
        "local_bsz,step_time,sync_time,placement\n\
         4,0.1,0.01,1\n16,0.4,0.01,1\n\
         4,0.12,0.02,2\n16,0.42,0.02,2\n\
         4,0.2,0.05,11\n8,0.3,0.05,11\n",
    )
    .unwrap();
    std::fs::write(
        app.join("scalability-aws.csv"),
        "num_nodes,num_replicas,local_bsz,step_time,sync_time\n3,3,4,0.3,0.1\n3,3,12,0.5,0.1\n",
    )
    .unwrap();
    std::fs::write(
        app.join("placements-rtx.csv"),
        "local_bsz,step_time,sync_time,placement\n4,0.05,0.01,1\n8,0.1,0.01,1\n",
    )
    .unwrap();
    dir
}

fn cluster() -> SiaCluster {
    SiaCluster::from_counts(&[("aws", 2), ("rtx", 1)]).unwrap()
}

#[test]
fn typed_loads_read_each_types_files_with_sias_rules() {
    let dir = toy_traces("load");
    let mut apps = SiaApps::new(&dir, cluster());
    let m = apps.get("yolov3").unwrap();
    let aws = &m.per_type[0];
    // 1-D interpolation inside a measured placement.
    let (st, sy) = aws.step_time(&[1], 10).unwrap();
    assert!((st - 0.25).abs() < 1e-12 && (sy - 0.01).abs() < 1e-12);
    // Outside its batch range: (−1, −1), the original's quirk.
    assert_eq!(aws.step_time(&[1], 32), Some((-1.0, -1.0)));
    // 3 nodes are not in the placements file: the scalability rows of (3, 3).
    let (st, _) = aws.step_time(&[1, 1, 1], 8).unwrap();
    assert!((st - 0.4).abs() < 1e-12);
    // Placement-specific per-GPU maxima; unmeasured: scalability rows with n ≥ 3, r ≥ 3.
    assert_eq!(aws.max_local_bsz_at(&[1, 1]), Some(8));
    assert_eq!(aws.max_local_bsz_at(&[2]), Some(16));
    assert_eq!(aws.max_local_bsz_at(&[1, 1, 1]), Some(12));
    // Memory correction: the largest per-GPU batch of any 2-GPU placement.
    assert_eq!(aws.max_local_bsz_for_replicas(2), Some(16));
    assert_eq!(aws.max_local_bsz_for_replicas(4), None);
    // No yolov3 cap of 8 under Sia; epochs from the artifact's table.
    assert_eq!(aws.max_local_bsz, 16);
    assert_eq!(aws.max_epochs, 50);
    // Throughput ratios from the 1-GPU rows: aws 16/0.4 = 40, rtx 8/0.1 = 80.
    assert_eq!(m.xput1, [40.0, 80.0]);
    assert_eq!(m.ratio(1, 0), 2.0);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_jobs_runs_restarts_and_migrations() {
    let dir = toy_traces("job");
    let mut apps = SiaApps::new(&dir, cluster());
    let mut j = SiaJob::new("yolov3-0".into(), apps.get("yolov3").unwrap(), 0.0);
    j.target_batch_size = 64;
    // First allocation: aws (2,), no fit yet → fixed M = max(init 8, 4 × 2) = 8.
    j.migrate(Some(0), vec![2]);
    assert_eq!(
        (j.num_restarts, j.batch_size(), j.atomic_bsz),
        (Some(0), 8, 4)
    );
    assert_eq!(j.rescale_time, 80);
    assert!(j.scaling_underway());
    // 80 s restart, then 10 s at 0.12 s/step, slowed by 1.2 (gain 1 at the initial batch).
    j.step(90).unwrap();
    assert!(
        (j.progress - 10.0 / 0.12 / 1.2).abs() < 1e-9,
        "{}",
        j.progress
    );
    assert_eq!((j.wasted_gpu_seconds, j.used_gpu_seconds), (160, 20));
    assert_eq!(j.profiles[0].len(), 1);
    assert!(j.perf_params[0].is_some() && j.perf_params[1].is_none());
    assert!(!j.scaling_underway());
    // The same tuple costs nothing; another restarts.
    j.reallocate(vec![2]);
    assert_eq!(j.num_restarts, Some(0));
    j.reallocate(vec![1, 1]);
    assert_eq!(j.num_restarts, Some(1));
    // Preemption: no counter change, no placement.
    j.migrate(None, vec![]);
    assert_eq!(
        (j.num_restarts, j.replicas(), j.gpu_type),
        (Some(1), 0, None)
    );
    let before = j.progress;
    j.step(60).unwrap();
    assert_eq!(j.progress, before, "a preempted job makes no progress");
    // To rtx: a migration restarts, from the fixed initial batch (no rtx fit yet).
    j.migrate(Some(1), vec![1]);
    assert_eq!(
        (j.num_restarts, j.gpu_type, j.batch_size()),
        (Some(2), Some(1), 8)
    );
    j.step(200).unwrap();
    assert!(j.perf_params[1].is_some());
    // Every later batch stays within the type's measured per-GPU range.
    assert!((4..=8).contains(&j.atomic_bsz), "{}", j.atomic_bsz);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn goodput_rows_are_blind_then_projected_and_normalised() {
    let dir = toy_traces("agent");
    let c = cluster();
    let configs = c.configurations();
    let mut apps = SiaApps::new(&dir, c.clone());
    let mut j = SiaJob::new("yolov3-0".into(), apps.get("yolov3").unwrap(), 0.0);
    j.target_batch_size = 64;
    // Never run: 1 on each type's 1-GPU configuration, 1e-4 elsewhere.
    let row = goodput_row(&j, &c, &configs);
    for (cfg, g) in configs.iter().zip(&row) {
        assert_eq!(*g, if cfg.gpus == 1 { 1.0 } else { 1e-4 }, "{cfg:?}");
    }
    assert_eq!(max_replicas(&j, &c), 1);
    j.migrate(Some(0), vec![2]);
    j.step(120).unwrap();
    // Ran on aws with 2 GPUs: the cap doubles to 4 (and 64 // 4 = 16 does not bind).
    assert_eq!(max_replicas(&j, &c), 4);
    // rtx has no model: projected from aws with xput1(rtx) / xput1(aws) = 2.
    let f = goodput_fn(&j, &c, 0).unwrap();
    let rtx1 = configs
        .iter()
        .position(|k| k.gpu_type == 1 && k.gpus == 1)
        .unwrap();
    assert_eq!(estimate(&j, &c, &configs[rtx1]), Some(f.best(1, 1) * 2.0));
    let row = goodput_row(&j, &c, &configs);
    // Normalised: the smallest valid entry is 1; configurations above the cap stay 1e-4.
    let valid: Vec<f32> = row.iter().copied().filter(|&g| g > 1e-4).collect();
    assert_eq!(valid.iter().copied().fold(f32::INFINITY, f32::min), 1.0);
    for (cfg, g) in configs.iter().zip(&row) {
        if cfg.gpus > 4 {
            assert_eq!(*g, 1e-4, "{cfg:?}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
