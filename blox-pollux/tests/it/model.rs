//! The job model's pieces on the real traces: lookup, interpolation, epochs, batch rules, errors.

use std::path::Path;
use std::sync::Arc;

use blox_pollux::{parse_workload, Application, Applications, PolluxJob, RESTART_DELAY};

fn app(name: &str) -> Arc<Application> {
    let dir = crate::pollux_dir();
    Applications::new(dir.join("traces")).get(name).unwrap()
}

#[test]
fn constants_follow_the_artifact_table() {
    let c = app("cifar10");
    assert_eq!(
        (
            c.init_batch_size,
            c.max_batch_size,
            c.min_local_bsz,
            c.max_local_bsz,
            c.max_epochs
        ),
        (128, 4096, 32, 1024, 100)
    );
    let y = app("yolov3");
    assert_eq!(
        (
            y.init_batch_size,
            y.max_batch_size,
            y.min_local_bsz,
            y.max_local_bsz,
            y.max_epochs
        ),
        (8, 512, 4, 8, 50)
    );
    // The final progress target of §2 (≈ init-batch steps).
    assert!(
        (c.progress_for(100) - 39_062.9).abs() < 1.0,
        "{}",
        c.progress_for(100)
    );
}

#[test]
fn lookup_normalises_rotations_and_interpolates_in_batch() {
    let c = app("cifar10");
    // (2,1,2), (1,2,2) and (2,2,1) are one rotation class, `122`.
    let a = c.step_time(&[2, 1, 2], 100).unwrap();
    assert_eq!(a, c.step_time(&[1, 2, 2], 100).unwrap());
    assert_eq!(a, c.step_time(&[2, 2, 1], 100).unwrap());
    // Zero entries are ignored.
    assert_eq!(
        c.step_time(&[4, 0], 64).unwrap(),
        c.step_time(&[4], 64).unwrap()
    );
    // Between measured batches 32 and 45 on one GPU the time is linear.
    let (t32, _) = c.step_time(&[1], 32).unwrap();
    let (t45, _) = c.step_time(&[1], 45).unwrap();
    let (t38, _) = c.step_time(&[1], 38).unwrap();
    assert!((t38 - (t32 + (t45 - t32) * 6.0 / 13.0)).abs() < 1e-12);
    // Outside the measured range: no answer (the original asserts).
    assert!(c.step_time(&[1], 2000).is_none());
}

#[test]
fn large_placements_use_the_3d_interpolation() {
    let c = app("cifar10");
    // A measured scalability point is returned exactly (8 nodes, 32 GPUs, 64 per GPU)...
    let dir = crate::pollux_dir();
    let text = std::fs::read_to_string(dir.join("traces/cifar10/scalability.csv")).unwrap();
    let row = text.lines().find(|l| l.starts_with("8,32,64,")).unwrap();
    let f: Vec<f64> = row.split(',').map(|x| x.parse().unwrap()).collect();
    let got = c.step_time(&[4, 4, 4, 4, 4, 4, 4, 4], 64).unwrap();
    assert!((got.0 - f[3]).abs() < 1e-12 && (got.1 - f[4]).abs() < 1e-12);
    // ...and 5 nodes (never measured) gives what scipy's LinearNDInterpolator gives there (the
    // value Optimus sees for a cifar10 job at batch 4096 offered a 17th GPU).
    let (t5, s5) = c.step_time(&[4, 4, 4, 4, 1], 241).unwrap();
    assert!((t5 - 0.229_649_644_136_428_85).abs() < 1e-12, "{t5}");
    assert!((s5 - 0.035_130_243_020_534_46).abs() < 1e-12, "{s5}");
    // Node count is capped at 16: 20 one-GPU nodes read as 16 nodes with 20 replicas.
    let mut sixteen = vec![2, 2, 2, 2];
    sixteen.extend([1; 12]);
    assert_eq!(c.step_time(&[1; 20], 64), c.step_time(&sixteen, 64));
    assert!(c.step_time(&[1; 20], 64).is_some());
}

#[test]
fn a_job_restarts_then_progresses_and_completes_at_a_rounded_second() {
    let n = app("ncf");
    let mut j = PolluxJob::new("ncf-0".into(), n.clone(), 0);
    j.target_batch_size = Some(32_768);
    j.reallocate(vec![1]);
    assert_eq!(j.rescale_time, RESTART_DELAY);
    assert_eq!(j.num_restarts, Some(0));
    // One GPU above the init batch: at least one accumulation step; 32768 / 2 per micro-batch.
    assert_eq!((j.atomic_bsz, j.accum_steps), (16_384, 1));
    j.step(60, 0.0).unwrap();
    assert_eq!(j.current_time, 60);
    assert_eq!(j.attained_service, 60);
    assert!(j.progress > 0.0);
    let p30 = j.progress;
    let mut t = 60;
    while j.completion_time.is_none() {
        j.step(60, 0.0).unwrap();
        t += 60;
        assert!(t < 1_000_000);
    }
    assert_eq!(j.epoch, 10);
    assert!(j.completion_time.unwrap() <= t && j.completion_time.unwrap() > t - 60);
    assert_eq!(j.current_time, t);
    // The first 30 s of an interval after an allocation are the restart: an imagenet job at its
    // init batch on one GPU (no epoch boundary within 30 s) makes 30 s of progress.
    let im = app("imagenet");
    let mut i = PolluxJob::new("imagenet-0".into(), im.clone(), 0);
    i.target_batch_size = Some(200);
    i.reallocate(vec![1]);
    assert_eq!((i.atomic_bsz, i.accum_steps), (200, 0));
    i.step(60, 0.0).unwrap();
    let (st, _) = im.step_time(&[1], 200).unwrap();
    // scale = 1: gain = 1, rate = 1 / step time.
    assert!(
        (i.progress - 30.0 / st).abs() < 1e-9,
        "{} vs {}",
        i.progress,
        30.0 / st
    );
    let _ = p30;
    // A second allocation counts a restart.
    let mut k = PolluxJob::new("ncf-1".into(), n, 0);
    k.reallocate(vec![1]);
    k.reallocate(vec![]);
    assert!(k.placement.is_empty());
    k.reallocate(vec![1]);
    assert_eq!(k.num_restarts, Some(1));
}

#[test]
fn bad_workload_rows_name_file_line_and_field() {
    let p = Path::new("w.csv");
    let e = parse_workload(
        p,
        "name,time,application,num_replicas,batch_size\na-0,5,cifar10,x,128\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "w.csv:2: field `num_replicas`: `x` is not a non-negative integer"
    );
    let e = parse_workload(p, "name,time,application,batch_size\n").unwrap_err();
    assert!(
        e.to_string().contains("missing column `num_replicas`"),
        "{e}"
    );
    let dir = crate::pollux_dir();
    let rows = parse_workload(
        p,
        "name,time,application,num_replicas,batch_size\nz-0,5,nosuch,1,128\n",
    )
    .unwrap();
    let mut apps = Applications::new(dir.join("traces"));
    let e =
        blox_pollux::build_jobs(p, &rows, &mut apps, blox_pollux::JobSetup::Adaptive).unwrap_err();
    assert!(
        e.to_string().starts_with("w.csv:2: field `application`: "),
        "{e}"
    );
    assert!(
        e.to_string().contains("unknown application `nosuch`"),
        "{e}"
    );
}
