//! Small hand-built clusters where the placements must choose differently: the exact GPUs.

use crate::{check, elastic, rigid, with_cpus, world};
use blox_core::{ClusterSpec, NodeSpec};
use blox_placement::{
    Consolidated, Fabric, FirstFit, NodeShape, ResourceAware, Scattered, Topology, TopologyAware,
};
use std::sync::Arc;

/// 3 nodes x 4 GPUs; free: node 0 {2, 3}, node 1 {7}, node 2 {8..11}. Job 2 waits.
fn fragmented(n: u32) -> crate::World {
    world(
        ClusterSpec::uniform(3, 4),
        vec![
            (rigid(2), vec![0, 1]),
            (rigid(3), vec![4, 5, 6]),
            (rigid(n), vec![]),
        ],
    )
}

const ORDER: [(u32, u32); 2] = [(0, 2), (1, 3)];

fn sched(n: u32) -> Vec<(u32, u32)> {
    let mut v = ORDER.to_vec();
    v.push((2, n));
    v
}

#[test]
fn one_gpu_first_fit_takes_the_lowest_consolidated_the_fullest_node() {
    let w = fragmented(1);
    check(&mut FirstFit::default(), &w, &sched(1), &[], &[(2, &[2])]);
    check(&mut Scattered::new(), &w, &sched(1), &[], &[(2, &[2])]);
    check(
        &mut Consolidated::default(),
        &w,
        &sched(1),
        &[],
        &[(2, &[7])],
    );
    check(
        &mut TopologyAware::default(),
        &w,
        &sched(1),
        &[],
        &[(2, &[7])],
    );
    check(
        &mut ResourceAware::default(),
        &w,
        &sched(1),
        &[],
        &[(2, &[7])],
    );
}

#[test]
fn three_gpus_go_on_one_node_unless_first_fit() {
    let w = fragmented(3);
    check(
        &mut FirstFit::default(),
        &w,
        &sched(3),
        &[],
        &[(2, &[2, 3, 7])],
    );
    check(
        &mut Consolidated::default(),
        &w,
        &sched(3),
        &[],
        &[(2, &[8, 9, 10])],
    );
    check(
        &mut TopologyAware::default(),
        &w,
        &sched(3),
        &[],
        &[(2, &[8, 9, 10])],
    );
}

#[test]
fn five_gpus_spread_over_the_fewest_nodes_with_the_best_fitting_remainder() {
    let w = fragmented(5);
    check(
        &mut FirstFit::default(),
        &w,
        &sched(5),
        &[],
        &[(2, &[2, 3, 7, 8, 9])],
    );
    let best = [7, 8, 9, 10, 11];
    check(
        &mut Consolidated::default(),
        &w,
        &sched(5),
        &[],
        &[(2, &best)],
    );
    check(
        &mut TopologyAware::default(),
        &w,
        &sched(5),
        &[],
        &[(2, &best)],
    );
    // Two nodes is the fewest 5 GPUs can have on 4-GPU nodes, so waiting changes nothing...
    check(
        &mut Consolidated::default().with_wait(true),
        &w,
        &sched(5),
        &[],
        &[(2, &best)],
    );
    // ...but 3 GPUs that fit on no single node wait.
    let w = world(
        ClusterSpec::uniform(2, 4),
        vec![
            (rigid(2), vec![0, 1]),
            (rigid(2), vec![4, 5]),
            (rigid(3), vec![]),
        ],
    );
    let s = [(0, 2), (1, 2), (2, 3)];
    check(
        &mut Consolidated::default(),
        &w,
        &s,
        &[],
        &[(2, &[2, 3, 6])],
    );
    let no_preempt = Consolidated::default()
        .with_wait(true)
        .with_preemption(false);
    check(&mut no_preempt.clone(), &w, &s, &[], &[]);
}

#[test]
fn topology_keeps_a_job_inside_one_rack() {
    // 4 nodes x 4 GPUs in racks of 2. Free: node 0 {1, 2, 3}, node 2 {10, 11}, node 3 {14, 15}.
    let topo = Topology::racks(
        NodeShape::Switched {
            gpus: 4,
            link_gb_s: 300.0,
        },
        4,
        &Fabric {
            rack_size: 2,
            nic_gb_s: 25.0,
            uplink_gb_s: 25.0,
        },
    )
    .unwrap();
    assert_eq!(topo.levels(), vec![300.0, 25.0, 12.5]);
    let w = world(
        ClusterSpec::uniform(4, 4),
        vec![
            (rigid(1), vec![0]),
            (rigid(4), vec![4, 5, 6, 7]),
            (rigid(2), vec![8, 9]),
            (rigid(2), vec![12, 13]),
            (rigid(4), vec![]),
        ],
    );
    let s = [(0, 1), (1, 4), (2, 2), (3, 2), (4, 4)];
    // Consolidated: the fullest node (3 free) whole, the remainder on the best fit: two racks.
    check(
        &mut Consolidated::default(),
        &w,
        &s,
        &[],
        &[(4, &[1, 2, 3, 10])],
    );
    // Topology-aware: rack 1 has 4 free at 25 GB/s; across racks it would be 12.5 GB/s.
    let mut t = TopologyAware::new(Some(Arc::new(topo.clone())));
    check(&mut t, &w, &s, &[], &[(4, &[10, 11, 14, 15])]);
    let g = |v: &[u32]| v.iter().map(|&x| blox_core::GpuId(x)).collect::<Vec<_>>();
    assert_eq!(topo.ring_bandwidth(&g(&[1, 2, 3, 10])), 12.5);
    assert_eq!(topo.ring_bandwidth(&g(&[10, 11, 14, 15])), 25.0);
}

#[test]
fn resource_aware_skips_a_node_without_cpus() {
    // Node 0's 16 cores: 14 taken by job 0 on 2 GPUs. Job 1 needs 2 GPUs and 8 cores.
    let spec = ClusterSpec {
        nodes: vec![NodeSpec::with_gpus(4), NodeSpec::with_gpus(4)],
    };
    let w = world(
        spec,
        vec![
            (with_cpus(2, 14.0), vec![0, 1]),
            (with_cpus(2, 8.0), vec![]),
        ],
    );
    let s = [(0, 2), (1, 2)];
    check(&mut Consolidated::default(), &w, &s, &[], &[(1, &[2, 3])]);
    check(&mut ResourceAware::default(), &w, &s, &[], &[(1, &[4, 5])]);
    // A job with no stated demand takes the proportional share: 4 cores per GPU here, and
    // node 0 has 2 left.
    let w = world(
        ClusterSpec::uniform(2, 4),
        vec![(with_cpus(2, 14.0), vec![0, 1]), (rigid(1), vec![])],
    );
    check(
        &mut ResourceAware::default(),
        &w,
        &[(0, 2), (1, 1)],
        &[],
        &[(1, &[4])],
    );
}

#[test]
fn failed_preemption_is_rolled_back() {
    // H (high, running on 2, 3), W waits for 4 GPUs, L (low) runs on 0, 1.
    let w = world(
        ClusterSpec::uniform(1, 4),
        vec![
            (rigid(2), vec![0, 1]),
            (rigid(2), vec![2, 3]),
            (rigid(4), vec![]),
        ],
    );
    let s = [(1, 2), (2, 4), (0, 2)];
    check(&mut FirstFit::default(), &w, &s, &[], &[]);
    check(&mut Consolidated::default(), &w, &s, &[], &[]);
    check(&mut TopologyAware::default(), &w, &s, &[], &[]);
    check(&mut Scattered::new(), &w, &s, &[], &[]);
    // When it succeeds, the victims stop and the job starts.
    let s = [(2, 4), (1, 2), (0, 2)];
    check(
        &mut FirstFit::default(),
        &w,
        &s,
        &[0, 1],
        &[(2, &[0, 1, 2, 3])],
    );
    check(
        &mut FirstFit::default().with_preemption(false),
        &w,
        &s,
        &[],
        &[],
    );
}

#[test]
fn back_filling_starts_a_smaller_job_behind_a_blocked_one() {
    let w = world(
        ClusterSpec::uniform(1, 4),
        vec![
            (rigid(2), vec![0, 1]),
            (rigid(4), vec![]),
            (rigid(1), vec![]),
        ],
    );
    let s = [(0, 2), (1, 4), (2, 1)];
    check(&mut FirstFit::default(), &w, &s, &[], &[]);
    check(
        &mut FirstFit::default().with_backfill(true),
        &w,
        &s,
        &[],
        &[(2, &[2])],
    );
    check(
        &mut Scattered::new().with_backfill(true),
        &w,
        &s,
        &[],
        &[(2, &[2])],
    );
    check(
        &mut TopologyAware::default().with_backfill(true),
        &w,
        &s,
        &[],
        &[(2, &[2])],
    );
}

#[test]
fn elastic_jobs_are_resized_on_their_current_gpus() {
    let w = world(
        ClusterSpec::uniform(2, 4),
        vec![(elastic(4), vec![0, 1, 2, 3]), (rigid(1), vec![4])],
    );
    // Shrink to 2: keep the first two.
    check(
        &mut FirstFit::default(),
        &w,
        &[(0, 2), (1, 1)],
        &[0],
        &[(0, &[0, 1])],
    );
    // To 0: stop.
    check(
        &mut Consolidated::default(),
        &w,
        &[(0, 0), (1, 1)],
        &[0],
        &[],
    );
    // Grow to 7: keep its 4, add the 3 free ones.
    check(
        &mut TopologyAware::default(),
        &w,
        &[(0, 7), (1, 1)],
        &[0],
        &[(0, &[0, 1, 2, 3, 5, 6, 7])],
    );
    // Grow to 8: preempt the rigid job below it.
    check(
        &mut FirstFit::default(),
        &w,
        &[(0, 8), (1, 1)],
        &[1, 0],
        &[(0, &[0, 1, 2, 3, 4, 5, 6, 7])],
    );
    // Same count: nothing.
    check(&mut FirstFit::default(), &w, &[(0, 4), (1, 1)], &[], &[]);
    // A grow that cannot happen keeps the job as it is (the rigid job above is not a victim).
    check(&mut FirstFit::default(), &w, &[(1, 1), (0, 8)], &[], &[]);
}
