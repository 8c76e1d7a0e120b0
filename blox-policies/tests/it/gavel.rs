use crate::testing::{check_ordering_policy, order, run, Table};
use blox_core::*;
use blox_policies::*;
use proptest::prelude::*;
use std::sync::Arc;

#[test]
fn water_filling_levels() {
    assert_eq!(water_fill(&[], 8.0), Vec::<f64>::new());
    assert_eq!(water_fill(&[8.0, 8.0], 8.0), vec![4.0, 4.0]);
    assert_eq!(
        water_fill(&[2.0, 1.0, 8.0, 4.0], 8.0),
        vec![2.0, 1.0, 2.5, 2.5]
    );
    assert_eq!(water_fill(&[4.0], 0.0), vec![0.0]);
}

#[test]
fn priority_is_allocation_over_received_share() {
    // 4 GPUs, two 4-GPU jobs: x = 1/2 each. At t = 1000, job 0 has run 800 s (f = 0.8,
    // priority 0.625), job 1 200 s (f = 0.2, priority 2.5): job 1 first.
    let t = Table::new(4)
        .job(0, 4, 1e6)
        .served(3200.0, 800.0)
        .job(0, 4, 1e6)
        .served(800.0, 200.0)
        .at(1000);
    let mut g = Gavel::default();
    assert_eq!(order(&mut g, &t), vec![1, 0]);
    assert_eq!(g.allocation(), &[(JobId(0), 0.5), (JobId(1), 0.5)]);
    // A 1-GPU job alongside: level 1.5; it gets x = 1, the 4-GPU jobs x = 1.5/4.
    let t = t.job(900, 1, 1e6).served(50.0, 50.0);
    let mut g = Gavel::default();
    // Job 2: f = 50/100 = 0.5, priority 2; job 1: 0.375 / 0.2 = 1.875; job 0: 0.47.
    assert_eq!(order(&mut g, &t), vec![2, 1, 0]);
    // Starved jobs first whatever their priority.
    let t = t.starved(0);
    assert_eq!(order(&mut g, &t), vec![0, 2, 1]);
}

#[test]
fn lp_agrees_with_water_filling_on_one_type() {
    let demands = [1u32, 2, 4, 8, 8, 2];
    for cap in [1u32, 4, 8, 16, 40] {
        let tput: Vec<Vec<f64>> = demands.iter().map(|_| vec![1.0]).collect();
        let sol = max_min_lp(&tput, &demands, &[cap]).unwrap();
        let d: Vec<f64> = demands.iter().map(|&s| f64::from(s)).collect();
        let wf = water_fill(&d, f64::from(cap));
        let wf_min = wf.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(
            (sol.min_share - wf_min).abs() < 1e-6,
            "cap {cap}: {sol:?} vs {wf:?}"
        );
        let used: f64 = sol
            .fractions
            .iter()
            .zip(&demands)
            .map(|(x, &s)| x[0] * f64::from(s))
            .sum();
        assert!(used <= f64::from(cap) + 1e-6);
    }
}

#[test]
fn lp_is_heterogeneity_aware() {
    // Two types of 1 GPU each. Job 0 runs 4x faster on type 0 and not at all on type 1
    // (T^equal = 2, θ = [2, 0]); job 1 runs equally on both (θ = [1, 1]). Job 1 can reach
    // at most 1 (its time adds up to 1); job 0 reaches it with half of type 0. The optimum
    // is 1, and job 1 must have all of type 1 or share type 0.
    let sol = max_min_lp(&[vec![4.0, 0.0], vec![1.0, 1.0]], &[1, 1], &[1, 1]).unwrap();
    assert!((sol.min_share - 1.0).abs() < 1e-6, "{sol:?}");
    assert!(2.0 * sol.fractions[0][0] >= 1.0 - 1e-6, "{sol:?}");
    assert!(sol.fractions[0][1].abs() < 1e-9, "{sol:?}");
    let x1: f64 = sol.fractions[1].iter().sum();
    assert!((x1 - 1.0).abs() < 1e-6, "{sol:?}");
    // 2 V100s and 6 K80s; a model 3x faster on V100 (θ = [2, 2/3]) and a flat one
    // (θ = [1, 1]), one job each. Equal shares give each 1 V100 + 3 K80s' worth of time
    // spread; the optimum sends the fast model to the V100s (share 2) and gives the flat one
    // all of its time (share 1) on either type: both stages are indifferent to which.
    let sol = max_min_lp(&[vec![3.0, 1.0], vec![1.0, 1.0]], &[1, 1], &[2, 6]).unwrap();
    assert!(sol.fractions[0][0] > 0.99, "{sol:?}");
    assert!((sol.min_share - 1.0).abs() < 1e-6, "{sol:?}");
    let x1: f64 = sol.fractions[1].iter().sum();
    assert!((x1 - 1.0).abs() < 1e-6, "{sol:?}");
    assert!(max_min_lp(&[vec![1.0]], &[1, 2], &[1]).is_err());
    assert!(max_min_lp(&[vec![f64::NAN]], &[1], &[1]).is_err());
}

#[test]
fn lp_solver_policy_runs_and_respects_capacity() {
    let t = Table::new(8)
        .job(0, 1, 1e6)
        .job(0, 4, 1e6)
        .job(0, 8, 1e6)
        .at(600);
    let mut g = Gavel::new(MaxMinSolver::Lp);
    let out = run(&mut g, &t);
    assert_eq!(out.len(), 3);
    let used: f64 = g
        .allocation()
        .iter()
        .map(|&(id, x)| x * f64::from(t.jobs.get(id).unwrap().n_gpus()))
        .sum();
    assert!(used <= 8.0 + 1e-6);
    let min = g
        .allocation()
        .iter()
        .map(|&(id, x)| x * f64::from(t.jobs.get(id).unwrap().n_gpus()))
        .fold(f64::INFINITY, f64::min);
    assert!(
        (min - 1.0).abs() < 1e-6,
        "the LP's optimum is the smallest share, 1 GPU"
    );
}

/// A model 3x faster on V100 than on K80 (`fast`), one equal on both (`flat`).
fn table() -> Arc<ThroughputTable> {
    let mut t = ThroughputTable::new();
    for s in [1, 2, 4, 8] {
        t.insert("v100", "fast", s, 3.0 * f64::from(s));
        t.insert("k80", "fast", s, f64::from(s));
        t.insert("v100", "flat", s, f64::from(s));
        t.insert("k80", "flat", s, f64::from(s));
    }
    Arc::new(t)
}

fn typed_job(id: u32, n: u32, model: Option<&str>) -> Job {
    let mut spec = blox_core::JobSpec::new(Time::ZERO, n, 1e6);
    spec.model = model.map(Into::into);
    Job::new(JobId(id), spec, Time::ZERO)
}

fn picks(out: &Schedule, c: &Cluster) -> Vec<(u32, String)> {
    out.iter()
        .map(|a| (a.job.0, c.gpu_type_name(a.gpu_type.unwrap()).to_owned()))
        .collect()
}

#[test]
fn heterogeneity_aware_allocation_sends_the_fast_model_to_the_fast_type() {
    // 2 V100s and 6 K80s; two `fast` and two `flat` 1-GPU jobs.
    let cluster = Cluster::new("1x2:v100,1x6:k80".parse().unwrap());
    let mut jobs = blox_core::JobTable::new();
    for (id, m) in [(0, "flat"), (1, "fast"), (2, "flat"), (3, "fast")] {
        jobs.push(typed_job(id, 1, Some(m)));
    }
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
    let mut aware = Gavel::default().with_throughputs(table(), "v100");
    let mut out = Schedule::default();
    aware.schedule(&ctx, &mut out);
    assert_eq!(aware.n_types(), 2);
    let x = aware.allocation_by_type();
    // Rows: job 0 flat, job 1 fast, ... The fast jobs hold the V100s all the time.
    assert!(x[2] > 0.99 && x[6] > 0.99, "{x:?}");
    assert!(x[0] < 1e-6 && x[4] < 1e-6, "{x:?}");
    assert_eq!(
        picks(&out, &cluster),
        vec![
            (0, "k80".into()),
            (1, "v100".into()),
            (2, "k80".into()),
            (3, "v100".into())
        ]
    );
    // Agnostic: every throughput 1, so the V100s go by id.
    let mut agnostic = Gavel::default()
        .with_throughputs(table(), "v100")
        .with_hetero(false);
    let mut out = Schedule::default();
    agnostic.schedule(&ctx, &mut out);
    assert_eq!(agnostic.name(), "gavel(agnostic)");
    let on_v100: Vec<u32> = picks(&out, &cluster)
        .into_iter()
        .filter(|(_, t)| t == "v100")
        .map(|(j, _)| j)
        .collect();
    assert_ne!(on_v100, vec![1, 3], "{out:?}");
}

#[test]
fn one_type_shares_only_the_gpus_in_service() {
    // 2 x 4 GPUs, two 4-GPU jobs: x = 1 each; with node 1 out of service, x = 1/2 each
    // (recomputed although the active set did not change).
    let mut cluster = Cluster::new(blox_core::ClusterSpec::uniform(2, 4));
    let mut jobs = blox_core::JobTable::new();
    jobs.push(typed_job(0, 4, None));
    jobs.push(typed_job(1, 4, None));
    let mut g = Gavel::default();
    let mut out = Schedule::default();
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
    g.schedule(&ctx, &mut out);
    assert_eq!(g.allocation(), &[(JobId(0), 1.0), (JobId(1), 1.0)]);
    for gpu in 4..8 {
        cluster.set_available(blox_core::GpuId(gpu), false);
    }
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
    g.schedule(&ctx, &mut out);
    assert_eq!(g.allocation(), &[(JobId(0), 0.5), (JobId(1), 0.5)]);
}

#[test]
fn a_job_is_never_pinned_to_a_type_too_small_for_it() {
    // Two types of 8 GPUs: a 16-GPU job fits only across types, so it is listed unpinned;
    // with an 8-GPU and a 4-GPU type, a 6-GPU job only ever goes on the 8-GPU type.
    for (spec, n, ok) in [
        ("2x4:v100,2x4:k80", 16, None),
        ("1x8:v100,1x4:k80", 6, Some("v100")),
        ("1x4:v100,1x8:k80", 6, Some("k80")),
    ] {
        let cluster = Cluster::new(spec.parse().unwrap());
        let mut jobs = blox_core::JobTable::new();
        // Small jobs first, so they take the pairs of higher priority.
        for id in 0..3 {
            jobs.push(typed_job(id, 1, None));
        }
        jobs.push(typed_job(3, n, None));
        for solver in [MaxMinSolver::WaterFilling, MaxMinSolver::Lp] {
            let mut g = Gavel::new(solver);
            let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
            let mut out = Schedule::default();
            g.schedule(&ctx, &mut out);
            assert_eq!(out.len(), 4, "{spec}: every active job is listed: {out:?}");
            let big = out.iter().find(|a| a.job == JobId(3)).unwrap();
            let ty = big.gpu_type.map(|t| cluster.gpu_type_name(t).to_owned());
            assert_eq!(ty.as_deref(), ok, "{spec} {solver:?}: {out:?}");
            for a in out.iter() {
                if let Some(t) = a.gpu_type {
                    assert!(cluster.gpus_of_type(t) >= a.n_gpus, "{spec}: {out:?}");
                }
            }
        }
    }
}

#[test]
fn typed_rounds_rotate_by_time_received_per_type() {
    // One V100 and one K80, three equal jobs: each should get 1/3 of each type. Round 1:
    // jobs 0 and 1 run (all infinite priority, ties by least received then id); round 2:
    // job 2, which has received nothing, goes first.
    let cluster0 = Cluster::new("1x1:v100,1x1:k80".parse().unwrap());
    let mut jobs = blox_core::JobTable::new();
    for id in 0..3 {
        jobs.push(typed_job(id, 1, None));
    }
    let mut g = Gavel::default();
    let mut out = Schedule::default();
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster0, &jobs);
    g.schedule(&ctx, &mut out);
    for x in g.allocation_by_type() {
        assert!((x - 1.0 / 3.0).abs() < 1e-6, "{:?}", g.allocation_by_type());
    }
    assert_eq!(
        picks(&out, &cluster0),
        vec![(0, "v100".into()), (1, "k80".into()), (2, "v100".into())]
    );
    // Apply round 1: job 0 on GPU 0 (V100), job 1 on GPU 1 (K80), for 300 s.
    let mut cluster = cluster0.clone();
    for (id, gpu) in [(0, 0), (1, 1)] {
        cluster.allocate(JobId(id), &[blox_core::GpuId(gpu)]);
        jobs.get_mut(JobId(id))
            .unwrap()
            .gpus
            .push(blox_core::GpuId(gpu));
    }
    let ctx = Ctx::new(
        Time::from_secs(300),
        1,
        Time::from_secs(300),
        &cluster,
        &jobs,
    );
    let mut out = Schedule::default();
    g.schedule(&ctx, &mut out);
    let p = picks(&out, &cluster);
    assert_eq!(p[0], (2, "v100".into()), "{p:?}");
    assert_eq!(
        p[1],
        (0, "k80".into()),
        "{p:?}: job 0 has had no K80 time yet"
    );
}

proptest! {
    #[test]
    fn invariants(t in crate::testing::tables()) {
        check_ordering_policy(Gavel::default, &t)?;
        let mut g = Gavel::default();
        run(&mut g, &t);
        let cap = f64::from(t.cluster.total_gpus());
        let mut used = 0.0;
        for &(id, x) in g.allocation() {
            prop_assert!((0.0..=1.0).contains(&x), "x = {x}");
            used += x * f64::from(t.jobs.get(id).unwrap().n_gpus());
        }
        prop_assert!(used <= cap * (1.0 + 1e-12) + 1e-9, "allocations {used} > {cap}");
    }

    #[test]
    fn typed_invariants(
        t in crate::testing::tables(),
        types in prop::collection::vec(0usize..3, 4),
        models in prop::collection::vec(0usize..3, 40),
    ) {
        // The same random tables on nodes of up to three types, jobs of three kinds.
        let mut spec = t.cluster.spec().clone();
        for (k, n) in spec.nodes.iter_mut().enumerate() {
            n.gpu_type = ["v100", "p100", "k80"][types[k % 4]].to_owned();
        }
        let mut cluster = Cluster::new(spec);
        let mut jobs = blox_core::JobTable::new();
        for (i, j) in t.jobs.iter().enumerate() {
            let mut j = j.clone();
            j.spec.model = [Some("fast"), Some("flat"), None][models[i]].map(Into::into);
            if j.is_running() {
                cluster.allocate(j.id, &j.gpus);
            }
            jobs.push(j);
        }
        let ctx = Ctx::new(t.now, 0, Time::from_secs(300), &cluster, &jobs);
        let make = || Gavel::new(MaxMinSolver::Lp).with_throughputs(table(), "v100");
        let mut g = make();
        let mut a = Schedule::default();
        g.schedule(&ctx, &mut a);
        let mut ids: Vec<JobId> = a.iter().map(|e| e.job).collect();
        ids.sort_unstable();
        let want: Vec<JobId> = jobs.iter().map(|j| j.id).collect();
        prop_assert_eq!(ids, want);
        let k_types = cluster.n_gpu_types();
        for e in a.iter() {
            prop_assert_eq!(e.n_gpus, jobs.get(e.job).unwrap().n_gpus());
            if k_types > 1 {
                // Pinned to a type that can hold it; unpinned only when no type can.
                let largest = (0..k_types)
                    .map(|k| cluster.gpus_of_type(GpuTypeId(k as u32)))
                    .max()
                    .unwrap();
                match e.gpu_type {
                    Some(t) => prop_assert!(
                        t.index() < k_types && cluster.gpus_of_type(t) >= e.n_gpus
                    ),
                    None => prop_assert!(e.n_gpus > largest),
                }
            }
        }
        let mut b = Schedule::default();
        make().schedule(&ctx, &mut b);
        prop_assert_eq!(&a, &b, "deterministic");
        if k_types > 1 {
            let x = g.allocation_by_type();
            for k in 0..k_types {
                let used: f64 = jobs.iter().enumerate()
                    .map(|(i, j)| x[i * k_types + k] * f64::from(j.n_gpus()))
                    .sum();
                let cap = f64::from(cluster.gpus_of_type(GpuTypeId(k as u32)));
                prop_assert!(used <= cap + 1e-6, "type {k}: {used} > {cap}");
            }
            for row in x.chunks(k_types) {
                prop_assert!(row.iter().sum::<f64>() <= 1.0 + 1e-6);
            }
        }
    }

    #[test]
    fn lp_optimum_matches_water_filling(
        demands in prop::collection::vec(prop_oneof![Just(1u32), Just(2), Just(4), Just(8)], 1..12),
        cap in 1u32..40,
    ) {
        let tput: Vec<Vec<f64>> = demands.iter().map(|_| vec![1.0]).collect();
        let sol = max_min_lp(&tput, &demands, &[cap]).unwrap();
        let d: Vec<f64> = demands.iter().map(|&s| f64::from(s)).collect();
        let wf = water_fill(&d, f64::from(cap));
        let wf_min = wf.iter().copied().fold(f64::INFINITY, f64::min);
        prop_assert!((sol.min_share - wf_min).abs() < 1e-6);
        let used: f64 = wf.iter().sum();
        prop_assert!(used <= f64::from(cap) + 1e-9);
    }
}
