//! Tests of `placement` (the library's `src/placement.rs`) through the public API.

use blox_core::*;
use blox_core::{Cluster, ClusterSpec, Job, JobSpec, JobTable, NodeSpec, Time};
use blox_synergy::*;

/// One node of 4 GPUs, 12 CPUs and 250 GB: the fair share is 3 CPUs and 62.5 GB per GPU.
fn cluster(nodes: usize) -> Cluster {
    let mut n = NodeSpec::with_gpus(4);
    n.cpus = 12;
    n.mem_gb = 250.0;
    Cluster::new(ClusterSpec {
        nodes: vec![n; nodes],
    })
}

fn job(id: u32, cpus: f64, mem: f64, speedup: f64) -> Job {
    let mut s = JobSpec::new(Time::ZERO, 1, 3600.0);
    s.cpus = Some(cpus);
    s.mem_gb = Some(mem);
    s.ideal_speedup = Some(speedup);
    Job::new(JobId(id), s, Time::ZERO)
}

/// J0 res18-like (9 CPUs, ×2.4), J1 mobilenet-like (6 CPUs, ×1.55), J2 a language job
/// (1 CPU, 20 GB), J3 res18-like again; FIFO order.
fn table() -> JobTable {
    let mut t = JobTable::new();
    t.push(job(0, 9.0, 62.5, 2.4));
    t.push(job(1, 6.0, 62.5, 1.55));
    t.push(job(2, 1.0, 20.0, 1.0));
    t.push(job(3, 9.0, 62.5, 2.4));
    t
}

fn run(mode: SynergyMode, cluster: &Cluster, jobs: &JobTable) -> Decisions {
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), cluster, jobs);
    let mut schedule = Schedule::default();
    for j in jobs.iter() {
        schedule.push(j.id, 1);
    }
    let mut out = Decisions::default();
    let mut p = SynergyPlacement::new(mode);
    p.place(&ctx, &schedule, &mut out);
    assert_eq!(p.failures(), 0);
    out
}

fn shares(d: &Decisions) -> Vec<(u32, u32, f64, f64, f64)> {
    d.start
        .iter()
        .zip(&d.host)
        .map(|((j, g), h)| {
            assert_eq!(*j, h.job);
            (j.0, g[0].0, h.cpus, h.mem_gb, h.speedup)
        })
        .collect()
}

#[test]
fn fair_gives_everyone_the_proportional_share_in_gpu_order() {
    let c = cluster(1);
    let d = run(SynergyMode::Fair, &c, &table());
    assert_eq!(
        shares(&d),
        vec![
            (0, 0, 3.0, 62.5, 1.0),
            (1, 1, 3.0, 62.5, 1.0),
            (2, 2, 3.0, 62.5, 1.0),
            (3, 3, 3.0, 62.5, 1.0)
        ]
    );
}

#[test]
fn greedy_skips_what_does_not_fit_and_walks_on() {
    let c = cluster(1);
    let d = run(SynergyMode::Greedy, &c, &table());
    // J1 wants 6 of the 3 CPUs left: skipped; J2 fits; J3 wants 9 of 2: skipped.
    assert_eq!(
        shares(&d),
        vec![(0, 0, 9.0, 62.5, 2.4), (2, 1, 1.0, 20.0, 1.0)]
    );
}

#[test]
fn tune_falls_back_to_fair_share_and_adjusts_peers() {
    let c = cluster(1);
    let d = run(SynergyMode::Tune, &c, &table());
    // J1 falls back to the fair share; J2 finds no CPU left and cuts J0 (the peer with the
    // most CPUs per GPU) to its fair share; J3 then gets the fair share.
    assert_eq!(
        shares(&d),
        vec![
            (0, 0, 3.0, 62.5, 1.0),
            (1, 1, 3.0, 62.5, 1.0),
            (2, 2, 1.0, 20.0, 1.0),
            (3, 3, 3.0, 62.5, 1.0)
        ]
    );
}

#[test]
fn tune_keeps_ideal_when_it_fits_and_first_fits_across_nodes() {
    let c = cluster(2);
    let mut t = JobTable::new();
    // Two alexnet-like jobs (12 CPUs, 125 GB): one per node at their ideal.
    t.push(job(0, 12.0, 125.0, 2.94));
    t.push(job(1, 12.0, 125.0, 2.94));
    t.push(job(2, 1.0, 20.0, 1.0));
    let d = run(SynergyMode::Tune, &c, &t);
    // J1 cannot have node 0 (no CPU left), so it takes GPU 4 on node 1 at its ideal; J2
    // then has no CPU anywhere and cuts J0 (node with fewest free GPUs: both have 3; lowest
    // id wins) to the fair share.
    assert_eq!(
        shares(&d),
        vec![
            (0, 0, 3.0, 62.5, 1.0),
            (1, 4, 12.0, 125.0, 2.94),
            (2, 1, 1.0, 20.0, 1.0)
        ]
    );
}

#[test]
fn every_running_job_is_stopped_and_replaced() {
    let mut c = cluster(1);
    let mut t = table();
    t.get_mut(JobId(0)).unwrap().gpus.push(GpuId(3));
    c.allocate(JobId(0), &[GpuId(3)]);
    let d = run(SynergyMode::Fair, &c, &t);
    assert_eq!(d.stop, vec![JobId(0)]);
    assert_eq!(d.start[0], (JobId(0), [GpuId(0)].into_iter().collect()));
    let mut scratch = blox_core::ValidationScratch::default();
    assert!(d.validate(&c, &t, &mut scratch).is_ok());
}

/// Many pseudo-random rounds (Synergy's zoo demands, 1–8 GPUs): no node is over its
/// CPUs, memory or GPUs; under Tune no job gets less than the smaller of its demand and the
/// GPU-proportional share, and no job Greedy would place is left out; under Fair every job
/// gets exactly the proportional share.
#[test]
fn invariants_over_random_rounds() {
    let zoo = [
        (12.0, 125.0, 2.94),
        (9.0, 62.5, 2.4),
        (4.0, 62.5, 1.15),
        (6.0, 62.5, 1.55),
        (1.0, 20.0, 1.0),
        (6.0, 187.5, 2.5),
        (3.0, 62.5, 1.0),
    ];
    let mut x: u64 = 12345;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let mut n8 = NodeSpec::with_gpus(8);
    n8.cpus = 24;
    n8.mem_gb = 500.0;
    let c = Cluster::new(ClusterSpec { nodes: vec![n8; 4] });
    for _ in 0..300 {
        let mut t = JobTable::new();
        let n_jobs = 1 + next(40) as u32;
        for id in 0..n_jobs {
            let (cpu, mem, sp) = zoo[next(zoo.len() as u64) as usize];
            let g = [1, 1, 1, 2, 4, 8][next(6) as usize];
            let mut s = JobSpec::new(Time::ZERO, g, 3600.0);
            let gf = f64::from(g);
            s.cpus = Some((cpu * gf).min(24.0));
            s.mem_gb = Some((mem * gf).min(500.0));
            s.ideal_speedup = Some(sp);
            t.push(Job::new(JobId(id), s, Time::ZERO));
        }
        for mode in [SynergyMode::Fair, SynergyMode::Greedy, SynergyMode::Tune] {
            let d = run(mode, &c, &t);
            let mut cpu = [0.0f64; 4];
            let mut mem = [0.0f64; 4];
            let mut seen = std::collections::BTreeSet::new();
            for ((j, gpus), h) in d.start.iter().zip(&d.host) {
                let job = t.get(*j).unwrap();
                let g = f64::from(job.n_gpus());
                assert_eq!(gpus.len() as u32, job.n_gpus());
                for gpu in gpus {
                    assert!(seen.insert(*gpu), "GPU given twice");
                    let k = c.node_of(*gpu).0 as usize;
                    cpu[k] += h.cpus / g;
                    mem[k] += h.mem_gb / g;
                }
                let (ic, im) = (job.spec.cpus.unwrap(), job.spec.mem_gb.unwrap());
                match mode {
                    SynergyMode::Fair => {
                        assert_eq!((h.cpus, h.mem_gb, h.speedup), (3.0 * g, 62.5 * g, 1.0))
                    }
                    SynergyMode::Greedy => assert_eq!((h.cpus, h.mem_gb), (ic, im)),
                    SynergyMode::Tune => {
                        assert!(h.cpus >= ic.min(3.0 * g) && h.mem_gb >= im.min(62.5 * g));
                        let ideal = h.cpus == ic && h.mem_gb == im;
                        let expect = if ideal {
                            job.spec.ideal_speedup.unwrap()
                        } else {
                            1.0
                        };
                        assert_eq!(h.speedup, expect);
                    }
                }
            }
            for k in 0..4 {
                assert!(
                    cpu[k] <= 24.0 + 1e-9 && mem[k] <= 500.0 + 1e-9,
                    "{mode}: node {k}"
                );
            }
            if mode == SynergyMode::Tune || mode == SynergyMode::Fair {
                // Every job is started while GPUs last (GPU count fits in order).
                let mut free = 32u32;
                let mut expect = 0;
                for j in t.iter() {
                    if j.n_gpus() <= free {
                        free -= j.n_gpus();
                        expect += 1;
                    }
                }
                assert_eq!(d.start.len(), expect, "{mode}");
            }
        }
    }
}

#[test]
fn modes_parse_and_opt_explains_what_is_missing() {
    assert_eq!("greedy".parse::<SynergyMode>(), Ok(SynergyMode::Greedy));
    assert!("opt".parse::<SynergyMode>().unwrap_err().contains("9 x 5"));
    assert!("best".parse::<SynergyMode>().is_err());
}
