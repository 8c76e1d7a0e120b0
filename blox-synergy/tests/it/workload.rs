//! Tests of `workload` (the library's `src/workload.rs`) through the public API.

use blox_synergy::*;
use blox_workload::PyRandom;

fn r#gen() -> SynergyGenerator {
    SynergyGenerator::new(9.0, ClassSplit::DEFAULT, ServerSize::SYNERGY_DEFAULT, 42).unwrap()
}

#[test]
fn streams_follow_cpython_draw_for_draw() {
    // Recompute the first jobs from two independent seed-42 streams, in the documented
    // order, and compare with the generator.
    let mut parse = PyRandom::new(42);
    let mut sim = PyRandom::new(42);
    let mut t = 0u64;
    for job in r#gen().take(50) {
        let long = parse.random() >= 0.8;
        let e = if long {
            parse.uniform(3.0, 4.0)
        } else {
            parse.uniform(1.5, 3.0)
        };
        let d = 60.0 * 10f64.powf(e);
        assert_eq!(job.duration_s, d);
        let u = sim.random();
        t += ((-(1.0 - u).ln() / 9.0) * 60.0 * 60.0).ceil() as u64;
        assert_eq!(job.arrival_s, t);
        let c = sim.randint(0, 9);
        assert!((0..10).contains(&c));
        assert_eq!(job.iterations, (d / job.iter_time_s) as u64);
        assert!((1897.0..600_001.0).contains(&d));
    }
}

#[test]
fn first_jobs_match_cpython() {
    // Computed with CPython 3 `random.Random(42)` (two instances) by the rules above:
    // (arrival s, repr(duration), iterations) of jobs 0..8.
    let expect: [(u64, f64, u64, &str); 8] = [
        (409, 2068.5564791406746, 3447, "alexnet"),
        (951, 4101.732724304978, 34181, "gnmt"),
        (1053, 19642.668237323694, 29317, "transformer"),
        (1505, 73297.65541563455, 122162, "m5"),
        (1542, 2103.0378037555397, 191185, "lstm"),
        (1555, 10868.86470058194, 90573, "gnmt"),
        (1654, 3770.5762390214836, 5891, "res18"),
        (2023, 12461.3034347379, 18598, "transformer"),
    ];
    for (job, (arr, d, it, model)) in r#gen().zip(expect) {
        assert_eq!(
            (job.arrival_s, job.duration_s, job.iterations, job.model),
            (arr, d, it, model)
        );
    }
}

#[test]
fn same_seed_same_jobs_other_seed_other_jobs() {
    let a: Vec<SynergyJob> = r#gen().take(200).collect();
    let b: Vec<SynergyJob> = r#gen().take(200).collect();
    assert_eq!(a, b);
    let c: Vec<SynergyJob> =
        SynergyGenerator::new(9.0, ClassSplit::DEFAULT, ServerSize::SYNERGY_DEFAULT, 7)
            .unwrap()
            .take(200)
            .collect();
    assert_ne!(a, c);
    // Arrivals never go backwards; the class split is held.
    assert!(a.windows(2).all(|w| w[0].arrival_s <= w[1].arrival_s));
    let lang = a
        .iter()
        .filter(|j| ["gnmt", "transformer", "lstm"].contains(&j.model))
        .count();
    assert_eq!(lang, 140);
}

#[test]
fn spec_carries_the_resource_model() {
    let j = r#gen().next().unwrap();
    let s = j.to_spec();
    assert_eq!(s.n_gpus, 1);
    assert_eq!(s.model.as_deref(), Some("alexnet"));
    assert_eq!(
        (s.cpus, s.mem_gb, s.ideal_speedup),
        (Some(12.0), Some(125.0), Some(2.94))
    );
    assert_eq!(s.iterations, Some(j.iterations));
    assert_eq!(s.iter_time_s, Some(0.6));
    assert!(
        SynergyGenerator::new(0.0, ClassSplit::DEFAULT, ServerSize::SYNERGY_DEFAULT, 1).is_err()
    );
}
