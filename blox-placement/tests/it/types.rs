//! GPU types: an entry with a type is placed on that type only, by every `exact` placement;
//! a running job on the wrong type moves when the type has room.

use crate::props::{any_world, check_valid, placements};
use crate::{plain, rigid, run, world};
use blox_core::{ClusterSpec, GpuTypeId, JobId, PlacementPolicy, Schedule};
use blox_placement::{Consolidated, FirstFit, ResourceAware, Scattered, TopologyAware};
use proptest::prelude::*;

fn exact_placements() -> Vec<Box<dyn PlacementPolicy>> {
    vec![
        Box::new(Scattered::new()),
        Box::new(FirstFit::default()),
        Box::new(Consolidated::default().with_wait(true)),
        Box::new(ResourceAware::default()),
        Box::new(TopologyAware::default()),
    ]
}

fn typed(entries: &[(u32, u32, Option<u32>)]) -> Schedule {
    let mut s = Schedule::default();
    for &(j, n, t) in entries {
        match t {
            Some(t) => s.push_on(JobId(j), n, GpuTypeId(t)),
            None => s.push(JobId(j), n),
        }
    }
    s
}

/// Two 4-GPU V100 nodes (type 0, GPUs 0..8) and one 4-GPU K80 node (type 1, GPUs 8..12).
fn hetero() -> ClusterSpec {
    "2x4:v100,1x4:k80".parse().unwrap()
}

#[test]
fn a_typed_job_lands_on_its_type() {
    let w = world(hetero(), vec![(rigid(2), vec![]), (rigid(2), vec![])]);
    for mut p in exact_placements() {
        let name = p.name();
        let (stops, starts) = plain(&run(
            p.as_mut(),
            &w,
            &typed(&[(0, 2, Some(1)), (1, 2, None)]),
        ));
        assert!(stops.is_empty(), "{name}");
        assert_eq!(starts.len(), 2, "{name}");
        assert!(
            starts[0].1.iter().all(|&g| (8..12).contains(&g)),
            "{name}: {starts:?}"
        );
    }
}

#[test]
fn a_full_type_does_not_spill_over_and_preempts_only_its_own() {
    // K80s all held by job 0 (below); job 1 (V100) runs too. Job 2 wants 4 K80s: job 0 is the
    // only useful victim; job 1 on V100s is left alone, and job 0 (untyped) restarts on the
    // free V100s.
    let w = world(
        hetero(),
        vec![
            (rigid(4), vec![8, 9, 10, 11]),
            (rigid(4), vec![4, 5, 6, 7]),
            (rigid(4), vec![]),
        ],
    );
    for mut p in exact_placements() {
        let name = p.name();
        let got = plain(&run(
            p.as_mut(),
            &w,
            &typed(&[(2, 4, Some(1)), (0, 4, None), (1, 4, None)]),
        ));
        assert_eq!(got.0, vec![0], "{name}");
        assert_eq!(got.1[0], (2, vec![8, 9, 10, 11]), "{name}");
        assert_eq!(got.1[1], (0, vec![0, 1, 2, 3]), "{name}");
    }
}

#[test]
fn a_running_job_moves_to_its_type_when_there_is_room() {
    let w = world(hetero(), vec![(rigid(2), vec![0, 1]), (rigid(4), vec![])]);
    for mut p in exact_placements() {
        let name = p.name();
        let (stops, starts) = plain(&run(
            p.as_mut(),
            &w,
            &typed(&[(0, 2, Some(1)), (1, 4, Some(0))]),
        ));
        assert_eq!(stops, vec![0], "{name}");
        assert_eq!(starts[0].0, 0, "{name}");
        assert!(starts[0].1.iter().all(|&g| g >= 8), "{name}: {starts:?}");
        assert_eq!(starts[1].0, 1, "{name}");
        assert!(starts[1].1.iter().all(|&g| g < 8), "{name}: {starts:?}");
    }
    // No room on the K80s (job 1 holds them and ranks higher): job 0 stays where it is.
    let w = world(
        hetero(),
        vec![(rigid(2), vec![0, 1]), (rigid(4), vec![8, 9, 10, 11])],
    );
    for mut p in exact_placements() {
        let name = p.name();
        let got = plain(&run(
            p.as_mut(),
            &w,
            &typed(&[(1, 4, Some(1)), (0, 2, Some(1))]),
        ));
        assert_eq!(got, (vec![], vec![]), "{name}");
    }
}

#[test]
fn one_type_clusters_ignore_types() {
    // (Blox's own `Place` ignores types even on several; `blox-original` tests it.)
    let w = world(ClusterSpec::uniform(2, 4), vec![(rigid(2), vec![])]);
    for mut p in exact_placements() {
        let got = plain(&run(p.as_mut(), &w, &typed(&[(0, 2, Some(0))])));
        assert_eq!(got.1.len(), 1);
    }
}

/// The random worlds of `props`, with nodes of up to three types and some entries typed.
fn typed_world() -> impl Strategy<Value = (crate::World, Schedule)> {
    (
        any_world(),
        prop::collection::vec(0usize..3, 6),
        any::<u64>(),
    )
        .prop_map(|((w, sched), types, bits)| {
            let mut spec = w.cluster.spec().clone();
            for (k, n) in spec.nodes.iter_mut().enumerate() {
                n.gpu_type = ["a", "b", "c"][types[k % 6]].to_owned();
            }
            let jobs = w
                .jobs
                .iter()
                .map(|j| (j.spec.clone(), j.gpus.iter().map(|g| g.0).collect()))
                .collect();
            let w = world(spec, jobs);
            let n_types = w.cluster.n_gpu_types() as u64;
            let mut s = Schedule::default();
            for (i, e) in sched.iter().enumerate() {
                let r = bits.rotate_right(2 * i as u32);
                if r & 1 == 1 {
                    s.push_on(e.job, e.n_gpus, GpuTypeId(((r >> 1) % n_types) as u32));
                } else {
                    s.push(e.job, e.n_gpus);
                }
            }
            (w, s)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn typed_entries_stay_on_their_type((w, sched) in typed_world()) {
        for (mut p, blox) in placements(&w) {
            let name = p.name();
            let d = run(p.as_mut(), &w, &sched);
            check_valid(&w, &sched, &d, &name)?;
            let again = run(p.as_mut(), &w, &sched);
            prop_assert_eq!(&d, &again, "{}: not deterministic", name);
            if blox || w.cluster.n_gpu_types() < 2 {
                continue;
            }
            for (id, gpus) in &d.start {
                let entry = sched.iter().find(|e| e.job == *id).unwrap();
                if let Some(t) = entry.gpu_type {
                    for g in gpus {
                        prop_assert_eq!(
                            w.cluster.gpu_type(*g), t,
                            "{}: job {} on GPU {} of another type", name, id, g
                        );
                    }
                }
            }
        }
    }
}
