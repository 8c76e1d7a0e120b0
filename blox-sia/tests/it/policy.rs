//! Tests of `policy` (the library's `src/policy.rs`) through the public API.

use blox_sia::*;

#[test]
fn placement_spreads_single_node_jobs_round_robin() {
    let c = SiaCluster::from_counts(&[("aws", 2), ("rtx", 1)]).unwrap();
    let k = |t, nodes, gpus| {
        Some(Config {
            gpu_type: t,
            nodes,
            gpus,
        })
    };
    // Three 1-GPU aws jobs, one 2-node aws job, one 8-GPU rtx job.
    let picks = [k(0, 1, 1), k(0, 1, 1), None, k(1, 1, 8), k(0, 1, 1)];
    let d = place(&c, &picks).unwrap();
    assert_eq!(d[0], Some((0, vec![0])));
    assert_eq!(d[1], Some((0, vec![1])));
    assert_eq!(d[2], None);
    assert_eq!(d[3], Some((1, vec![0; 8])));
    assert_eq!(d[4], Some((0, vec![0])));
    // The whole-node job goes first (largest), then the small ones from the next node.
    let c3 = SiaCluster::from_counts(&[("aws", 3)]).unwrap();
    let d = place(&c3, &[k(0, 1, 1), k(0, 2, 8)]).unwrap();
    assert_eq!(d[1], Some((0, vec![0, 0, 0, 0, 1, 1, 1, 1])));
    assert_eq!(d[0], Some((0, vec![2])));
    // More GPUs than the type has: an error, not a panic.
    assert!(place(&c, &[k(0, 2, 8), k(0, 1, 1)]).is_err());
}

#[test]
fn placement_tuples_group_consecutive_ids() {
    assert_eq!(placement_tuple(&[0, 0, 1, 1, 1]), [2, 3]);
    assert_eq!(placement_tuple(&[3]), [1]);
    assert!(placement_tuple(&[]).is_empty());
}
