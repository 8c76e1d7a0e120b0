use crate::testing::{check_deterministic, check_permutation, run, Table};
use blox_core::*;
use blox_policies::*;
use proptest::prelude::*;

fn alloc(p: &mut Optimus, t: &Table) -> Vec<(u32, u32)> {
    run(p, t).iter().map(|a| (a.job.0, a.n_gpus)).collect()
}

#[test]
fn rigid_jobs_get_their_request_or_nothing_shortest_first() {
    // 8 GPUs. Remaining: job 0 (4 GPUs) 5000 s, job 1 (8 GPUs) 100 s, job 2 (2 GPUs) 300 s.
    let t = Table::new(8)
        .job(0, 4, 5000.0)
        .job(0, 8, 100.0)
        .job(0, 2, 300.0);
    // Job 1 takes all 8 GPUs; the others wait with 0.
    assert_eq!(
        alloc(&mut Optimus::default(), &t),
        vec![(1, 8), (2, 0), (0, 0)]
    );
    // With 10 GPUs job 2 fits beside job 1; job 0 does not fit in what is left and gets
    // nothing rather than fewer GPUs than it asked for.
    let t = Table::new(10)
        .job(0, 4, 5000.0)
        .job(0, 8, 100.0)
        .job(0, 2, 300.0);
    assert_eq!(
        alloc(&mut Optimus::default(), &t),
        vec![(1, 8), (2, 2), (0, 0)]
    );
}

#[test]
fn spare_gpus_go_to_the_largest_fall_in_remaining_time() {
    // Equal speed-up curves: the job with more remaining work gains more per GPU, until its
    // gain drops below the other's.
    let t = Table::new(6)
        .job(0, 1, 1000.0)
        .elastic()
        .job(0, 1, 4000.0)
        .elastic();
    let got = alloc(&mut Optimus::default(), &t);
    assert_eq!(got, vec![(0, 2), (1, 4)]);
    // Check against brute force over all splits: the chosen split minimises the sum of
    // remaining times.
    let p = Optimus::default();
    let jobs: Vec<&Job> = t.jobs.iter().collect();
    let cost = |a: u32, b: u32| p.remaining_time(jobs[0], a) + p.remaining_time(jobs[1], b);
    let best = (1..6).map(|a| cost(a, 6 - a)).fold(f64::INFINITY, f64::min);
    assert!((cost(2, 4) - best).abs() < 1e-9);
    // Perfect scaling with equal work: ties break by the lowest id.
    let t = Table::new(3)
        .job(0, 1, 1000.0)
        .elastic()
        .job(0, 1, 1000.0)
        .elastic();
    let mut linear = Optimus::with_model(Amdahl::new(1.0).unwrap());
    let got: Vec<(u32, u32)> = run(&mut linear, &t)
        .iter()
        .map(|a| (a.job.0, a.n_gpus))
        .collect();
    assert_eq!(got, vec![(0, 2), (1, 1)]);
}

#[test]
fn finished_work_gains_nothing() {
    let t = Table::new(4)
        .job(0, 1, 100.0)
        .elastic()
        .served(100.0, 100.0);
    assert_eq!(alloc(&mut Optimus::default(), &t), vec![(0, 1)]);
}

proptest! {
    #[test]
    fn invariants(t in crate::testing::tables()) {
        let mut p = Optimus::default();
        let out = run(&mut p, &t);
        check_permutation(&out, &t)?;
        let total: u64 = out.iter().map(|a| u64::from(a.n_gpus)).sum();
        prop_assert!(total <= u64::from(t.cluster.total_gpus()), "over capacity: {}", total);
        let mut seen_zero = false;
        for a in out.iter() {
            let j = t.jobs.get(a.job).unwrap();
            if !j.spec.elastic {
                prop_assert!(a.n_gpus == 0 || a.n_gpus == j.n_gpus(), "rigid job resized");
            }
            prop_assert!(!(seen_zero && a.n_gpus > 0), "allocated jobs come first");
            seen_zero |= a.n_gpus == 0;
        }
        // Work-conserving for elastic jobs: GPUs are left idle only when no elastic job
        // was allocated (Amdahl's gains never reach zero).
        let any_elastic = out.iter().any(|a| a.n_gpus > 0 && t.jobs.get(a.job).unwrap().spec.elastic
            && t.jobs.get(a.job).unwrap().remaining_work() > 0.0);
        if any_elastic {
            prop_assert_eq!(total, u64::from(t.cluster.total_gpus()));
        }
        check_deterministic(Optimus::default, &t, &out)?;
    }
}
