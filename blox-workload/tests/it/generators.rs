//! Generators: rates, determinism, resampling at a target load, the dual-load windows.

use blox_core::{JobSpec, Seed, Time};
use blox_workload::{
    resample, DualLoad, DualLoadConfig, DurationDist, GpuDist, LoadTarget, PoissonConfig,
    PoissonGenerator, TraceStats,
};

fn poisson(cfg: PoissonConfig, seed: u64, n: usize) -> Vec<JobSpec> {
    PoissonGenerator::new(cfg, Seed(seed))
        .unwrap()
        .take(n)
        .collect()
}

fn with_duration(d: DurationDist) -> PoissonConfig {
    let mut c = PoissonConfig::new(1.0);
    c.duration = d;
    c
}

fn with_gpus(g: GpuDist) -> PoissonConfig {
    let mut c = PoissonConfig::new(1.0);
    c.gpus = g;
    c
}

#[test]
fn poisson_rate_distributions_and_determinism() {
    let jobs = poisson(PoissonConfig::new(10.0), 7, 20_000);
    let span_h = jobs.last().unwrap().arrival.as_secs_f64() / 3600.0;
    let rate = jobs.len() as f64 / span_h;
    assert!((rate - 10.0).abs() < 0.3, "{rate}");
    assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    let one = jobs.iter().filter(|j| j.n_gpus == 1).count() as f64 / jobs.len() as f64;
    assert!((one - 76_627.0 / 82_247.0).abs() < 0.01, "{one}");
    assert!(jobs
        .iter()
        .all(|j| (1_897.0..600_001.0).contains(&j.work_s)));
    assert_eq!(jobs, poisson(PoissonConfig::new(10.0), 7, 20_000));
    assert_ne!(jobs[..10], poisson(PoissonConfig::new(10.0), 8, 10)[..]);

    let mut cfg = PoissonConfig::new(2.0);
    cfg.duration = DurationDist::Uniform { lo: 10.0, hi: 20.0 };
    cfg.gpus = GpuDist::Weighted(vec![(2, 1.0), (8, 0.0)]);
    let jobs = poisson(cfg, 1, 500);
    assert!(jobs
        .iter()
        .all(|j| j.n_gpus == 2 && (10.0..20.0).contains(&j.work_s)));

    for cfg in [
        PoissonConfig::new(0.0),
        with_duration(DurationDist::LogUniform { lo: 5.0, hi: 1.0 }),
        with_gpus(GpuDist::Weighted(vec![])),
        with_duration(DurationDist::Empirical(vec![])),
    ] {
        assert!(PoissonGenerator::new(cfg, Seed(1)).is_err());
    }
    let e = PoissonGenerator::new(PoissonConfig::new(-1.0), Seed(1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "<config>: arrival rate must be a finite number of jobs per hour > 0, got -1"
    );
}

#[test]
fn philly_up_to_truncates() {
    let GpuDist::Weighted(w) = GpuDist::philly_up_to(8) else {
        panic!()
    };
    assert_eq!(w.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 2, 4, 8]);
}

#[test]
fn resample_hits_the_target_load() {
    let trace: Vec<JobSpec> = (0..50)
        .map(|i| {
            let mut j = JobSpec::new(
                Time::from_secs(i * 7),
                1 + (i % 4) as u32,
                100.0 + i as f64 * 30.0,
            );
            j.deadline = Some(Time::from_secs(i * 7 + 5_000));
            j
        })
        .collect();
    let out = resample(&trace, LoadTarget::Gpus(32.0), 20_000, Seed(9)).unwrap();
    let s = TraceStats::compute(&out, None);
    let load = s.offered_load_gpus.unwrap();
    assert!((load - 32.0).abs() < 32.0 * 0.05, "{load}");
    for j in &out {
        assert!(trace
            .iter()
            .any(|t| t.n_gpus == j.n_gpus && t.work_s == j.work_s));
        assert_eq!(j.deadline.unwrap().0 - j.arrival.0, 5_000_000);
    }
    assert_eq!(
        out,
        resample(&trace, LoadTarget::Gpus(32.0), 20_000, Seed(9)).unwrap()
    );
    let by_rate = resample(&trace, LoadTarget::JobsPerHour(60.0), 5_000, Seed(1)).unwrap();
    let span_h = by_rate.last().unwrap().arrival.as_secs_f64() / 3600.0;
    assert!((5_000.0 / span_h - 60.0).abs() < 3.0);
    assert!(resample(&[], LoadTarget::Gpus(1.0), 5, Seed(1)).is_err());
    assert!(resample(&trace, LoadTarget::Gpus(f64::NAN), 5, Seed(1)).is_err());
}

#[test]
fn dual_load_bursts_only_inside_windows() {
    let jobs: Vec<JobSpec> = DualLoad::new(DualLoadConfig::new(9.0), Seed(1))
        .unwrap()
        .take_while(|j| j.arrival < Time::from_secs(43_200 * 20))
        .collect();
    assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    let (short, long): (Vec<&JobSpec>, Vec<&JobSpec>) =
        jobs.iter().partition(|j| j.work_s <= 3_600.0);
    assert!(long
        .iter()
        .all(|j| (36_000.0..=86_400.0).contains(&j.work_s)));
    assert!(short.iter().all(|j| (600.0..=3_600.0).contains(&j.work_s)));
    for j in &short {
        let phase = j.arrival.as_secs() % 43_200;
        assert!(
            !(21_600..28_800).contains(&phase),
            "short job at phase {phase}"
        );
    }
    // Base: 9/h over 240 h; short: 36/h over 36,000 of every 43,200 s.
    let hours = 240.0;
    assert!(
        (long.len() as f64 / hours - 9.0).abs() < 0.8,
        "{}",
        long.len()
    );
    let active_h = hours * 36_000.0 / 43_200.0;
    assert!(
        (short.len() as f64 / active_h - 36.0).abs() < 2.0,
        "{}",
        short.len()
    );
    assert!(jobs.iter().all(|j| j.n_gpus == 1 && j.class_id < 5));
    let again: Vec<JobSpec> = DualLoad::new(DualLoadConfig::new(9.0), Seed(1))
        .unwrap()
        .take(jobs.len())
        .collect();
    assert_eq!(again, jobs);
    let mut bad = DualLoadConfig::new(9.0);
    bad.short_s = (10, 5);
    assert!(DualLoad::new(bad, Seed(1)).is_err());
    assert!(DualLoad::new(DualLoadConfig::new(0.0), Seed(1)).is_err());
}
