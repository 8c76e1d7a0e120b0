//! Engine policies under Sia's model ([`EnginePolicy`]) on synthetic per-type measurements
//! written by the test (no artifact data needed): FIFO's arrival order on one type per job, a
//! running job left where it fits, LAS's order by attained service, completion and
//! determinism.

use std::path::PathBuf;

use blox_core::SchedulingPolicy;
use blox_policies::{Fifo, Las, Srtf};
use blox_sia::{EnginePolicy, SiaApps, SiaCluster, SiaJob, SiaOutcome, SiaSim};

/// A toy `yolov3` (50 epochs, restart delay 80 s, slowdown 1.2) measured on aws (1, 2 and 4
/// GPUs on a node) and on rtx (1 to 8, twice as fast), in a fresh folder.
fn toy_traces(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blox-sia-engine-{}-{tag}", std::process::id()));
    let app = dir.join("yolov3");
    std::fs::create_dir_all(&app).unwrap();
    for b in [8, 16, 64] {
        let mut v = String::from("progress,iteration,grad_sqr,grad_var\n");
        for e in 0..50 {
            v += &format!("{},{},1.0,2.0\n", 200 * (e + 1), 20 * (e + 1));
        }
        std::fs::write(app.join(format!("validation-{b}.csv")), v).unwrap();
    }
    let mut aws = String::from("local_bsz,step_time,sync_time,placement\n");
    for p in [1, 2, 4] {
        aws += &format!("4,0.2,0.02,{p}\n16,0.5,0.02,{p}\n");
    }
    std::fs::write(app.join("placements-aws.csv"), aws).unwrap();
    let mut rtx = String::from("local_bsz,step_time,sync_time,placement\n");
    for p in [1, 2, 4, 8] {
        rtx += &format!("4,0.1,0.01,{p}\n16,0.25,0.01,{p}\n");
    }
    std::fs::write(app.join("placements-rtx.csv"), rtx).unwrap();
    dir
}

/// Jobs of `gpus` GPUs at batch 32 (fixed, as Sia's Gavel baseline), arriving at `arrivals`
/// (workload order).
fn jobs(apps: &mut SiaApps, arrivals: &[f64], gpus: u32) -> Vec<SiaJob> {
    let app = apps.get("yolov3").unwrap();
    arrivals
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let mut j = SiaJob::new(format!("yolov3-{i}"), app.clone(), t);
            j.target_batch_size = 32;
            j.target_num_replicas = gpus;
            j.fixed_batch = true;
            j
        })
        .collect()
}

/// Per round: each job's (type, GPUs held) after the round's decision.
type Log = Vec<Vec<Option<(usize, u32)>>>;

/// Run `policy` to completion, logging every round's allocations.
fn run<S: SchedulingPolicy>(
    cluster: &SiaCluster,
    jobs: Vec<SiaJob>,
    policy: S,
) -> (SiaSim<EnginePolicy<S>>, Log) {
    let n = jobs.len();
    let p = EnginePolicy::new(policy, cluster, n, 60.0).unwrap();
    let mut sim = SiaSim::new(cluster.clone(), jobs, p, 60);
    let mut log = Vec::new();
    while sim.jobs.iter().any(|j| j.completion_time.is_none()) {
        assert!(sim.now < 1_000_000, "the run does not end");
        sim.step().unwrap();
        let row: Vec<Option<(usize, u32)>> = sim
            .jobs
            .iter()
            .map(|j| {
                let unfinished = j.completion_time.is_none() && j.submission_time <= sim.now as f64;
                (unfinished && !j.placement.is_empty()).then(|| (j.gpu_type.unwrap(), j.replicas()))
            })
            .collect();
        log.push(row);
    }
    (sim, log)
}

/// Every allocation is the job's whole GPU count on one type, within each type's capacity.
fn check_one_type_each(cluster: &SiaCluster, sim_jobs: &[SiaJob], log: &Log) {
    for (r, row) in log.iter().enumerate() {
        let mut used = vec![0; cluster.types.len()];
        for (j, a) in row.iter().enumerate() {
            if let Some((t, g)) = a {
                assert_eq!(*g, sim_jobs[j].target_num_replicas, "round {r} job {j}");
                used[*t] += g;
            }
        }
        for (t, u) in used.iter().enumerate() {
            assert!(
                *u <= cluster.types[t].gpus(),
                "round {r}: type {t} holds {u}"
            );
        }
    }
}

fn first_round(log: &Log, j: usize) -> usize {
    log.iter()
        .position(|row| row[j].is_some())
        .expect("the job ran")
}

#[test]
fn fifo_runs_jobs_in_arrival_order_one_type_each_and_leaves_running_jobs_where_they_fit() {
    let dir = toy_traces("fifo");
    // 4 aws GPUs and 8 rtx GPUs: three 4-GPU jobs at a time.
    let cluster = SiaCluster::from_counts(&[("aws", 1), ("rtx", 1)]).unwrap();
    let mut apps = SiaApps::new(&dir, cluster.clone());
    // Workload order is not arrival order: arrivals 0 s (job 1), 1 s (3), 2 s (4), 3 s (2),
    // 4 s (0), 5 s (5).
    let arrivals = [4.0, 0.0, 3.0, 1.0, 2.0, 5.0];
    let (sim, log) = run(&cluster, jobs(&mut apps, &arrivals, 4), Fifo::default());
    check_one_type_each(&cluster, &sim.jobs, &log);
    let by_arrival = [1, 3, 4, 2, 0, 5];
    // Every round, the running jobs are the earliest arrived of the unfinished ones.
    for (r, row) in log.iter().enumerate() {
        let mut waiting_seen = false;
        for &j in &by_arrival {
            let unfinished = sim.jobs[j]
                .completion_time
                .map_or(true, |c| c > 60 * (r as i64 + 1));
            if !unfinished {
                continue;
            }
            match row[j] {
                Some(_) => assert!(!waiting_seen, "round {r}: job {j} runs past a waiting one"),
                None => waiting_seen = true,
            }
        }
    }
    // Start rounds follow arrivals.
    let starts: Vec<usize> = by_arrival.iter().map(|&j| first_round(&log, j)).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    // The first two take the faster rtx, the third the aws node that is left.
    assert_eq!(log[0][1].unwrap().0, 1);
    assert_eq!(log[0][3].unwrap().0, 1);
    assert_eq!(log[0][4].unwrap().0, 0);
    // Job 4 is never moved to rtx when rtx frees up: it still fits on aws, so no restart.
    assert!(log.iter().filter_map(|row| row[4]).all(|(t, _)| t == 0));
    assert!(starts[3] > starts[2], "job 2 waited for a finished job");
    for j in &sim.jobs {
        assert_eq!(j.num_restarts, Some(0), "{}: no needless restart", j.name);
        assert!(j.completion_time.is_some());
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn las_runs_the_job_with_the_least_attained_service() {
    let dir = toy_traces("las");
    // One aws node: one 4-GPU job at a time.
    let cluster = SiaCluster::from_counts(&[("aws", 1)]).unwrap();
    let mut apps = SiaApps::new(&dir, cluster.clone());
    let js = jobs(&mut apps, &[0.0, 0.0], 4);
    let p = EnginePolicy::new(Las::default(), &cluster, 2, 60.0).unwrap();
    let mut sim = SiaSim::new(cluster.clone(), js, p, 60);
    let mut ran = [0usize; 2];
    let mut rounds = 0;
    while sim.jobs.iter().all(|j| j.completion_time.is_none()) {
        sim.step().unwrap();
        rounds += 1;
        assert!(rounds < 10_000, "the run does not end");
        if sim.jobs.iter().any(|j| j.completion_time.is_some()) {
            break;
        }
        // The job chosen had no more service (GPU-seconds run) than the other; ties: the
        // earlier id.
        let t = sim.policy.table();
        let jobs: Vec<_> = t.iter().collect();
        assert_eq!(jobs.len(), 2);
        let running: Vec<_> = jobs.iter().filter(|j| j.is_running()).collect();
        assert_eq!(running.len(), 1, "round {rounds}");
        let other = jobs.iter().find(|j| !j.is_running()).unwrap();
        let r = running[0];
        assert!(
            r.attained_gpu_s < other.attained_gpu_s
                || (r.attained_gpu_s == other.attained_gpu_s && r.id < other.id),
            "round {rounds}: {} ({}) ran before {} ({})",
            r.id,
            r.attained_gpu_s,
            other.id,
            other.attained_gpu_s
        );
        ran[r.id.index()] += 1;
    }
    // Both ran before either finished (FIFO would run one to its end first).
    assert!(ran[0] > 1 && ran[1] > 1, "{ran:?}");
    // Each swap restarts the job that resumes.
    assert!(sim.jobs.iter().all(|j| j.num_restarts.unwrap_or(0) > 0));
    while sim.jobs.iter().any(|j| j.completion_time.is_none()) {
        sim.step().unwrap();
        rounds += 1;
        assert!(rounds < 20_000, "the run does not end");
    }
    let _ = std::fs::remove_dir_all(dir);
}

fn outcomes<S: SchedulingPolicy>(
    dir: &std::path::Path,
    cluster: &SiaCluster,
    gpus: u32,
    policy: S,
) -> Vec<SiaOutcome> {
    let mut apps = SiaApps::new(dir, cluster.clone());
    let arrivals: Vec<f64> = (0..8).map(|i| f64::from(i) * 40.0).collect();
    let (sim, log) = run(cluster, jobs(&mut apps, &arrivals, gpus), policy);
    check_one_type_each(cluster, &sim.jobs, &log);
    sim.outcomes()
}

#[test]
fn every_job_completes_and_a_run_repeats_exactly() {
    let dir = toy_traces("repeat");
    let cluster = SiaCluster::from_counts(&[("aws", 1), ("rtx", 1)]).unwrap();
    for gpus in [1, 2, 4] {
        let runs: [Vec<SiaOutcome>; 3] = [
            outcomes(&dir, &cluster, gpus, Fifo::default()),
            outcomes(&dir, &cluster, gpus, Las::default()),
            outcomes(&dir, &cluster, gpus, Srtf::default()),
        ];
        for (name, o) in ["fifo", "las", "srtf"].iter().zip(&runs) {
            assert_eq!(o.len(), 8, "{name}, {gpus} GPUs: every job completes");
        }
        assert_eq!(runs[0], outcomes(&dir, &cluster, gpus, Fifo::default()));
        assert_eq!(runs[1], outcomes(&dir, &cluster, gpus, Las::default()));
        assert_eq!(runs[2], outcomes(&dir, &cluster, gpus, Srtf::default()));
        if gpus == 4 {
            // Contention: LAS shares out, FIFO does not.
            assert_ne!(runs[0], runs[1]);
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Pins every job to aws on even rounds and to rtx on odd ones (a pin that changes each round).
#[derive(Default)]
struct FlipPins {
    round: u64,
}

impl SchedulingPolicy for FlipPins {
    fn schedule(&mut self, ctx: &blox_core::Ctx<'_>, out: &mut blox_core::Schedule) {
        let t = if self.round % 2 == 0 { "aws" } else { "rtx" };
        let t = ctx
            .cluster
            .gpu_type_id(t)
            .expect("the view has Sia's type names");
        for j in ctx.jobs.iter() {
            out.push_on(j.id, j.spec.n_gpus, t);
        }
        self.round += 1;
    }
}

#[test]
fn a_pin_places_a_new_job_but_does_not_move_a_running_one() {
    let dir = toy_traces("pins");
    let cluster = SiaCluster::from_counts(&[("aws", 1), ("rtx", 1)]).unwrap();
    let mut apps = SiaApps::new(&dir, cluster.clone());
    let (sim, log) = run(
        &cluster,
        jobs(&mut apps, &[0.0, 0.0], 4),
        FlipPins::default(),
    );
    check_one_type_each(&cluster, &sim.jobs, &log);
    // First round, pinned to aws: job 0 takes aws (its slower type: the pin wins over the
    // fastest type), job 1 finds aws full and takes rtx.
    assert_eq!(log[0][0], Some((0, 4)));
    assert_eq!(log[0][1], Some((1, 4)));
    // Later pins to the other type do not move them: no restart, every job completes.
    assert!(log.iter().filter_map(|row| row[0]).all(|(t, _)| t == 0));
    assert!(log.iter().filter_map(|row| row[1]).all(|(t, _)| t == 1));
    for j in &sim.jobs {
        assert_eq!(j.num_restarts, Some(0), "{}", j.name);
        assert!(j.completion_time.is_some());
    }
    let _ = std::fs::remove_dir_all(dir);
}
