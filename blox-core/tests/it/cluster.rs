//! Tests of `cluster` (the library's `src/cluster.rs`) through the public API.

use blox_core::*;

#[test]
fn parses_nodes_by_gpus() {
    let c: ClusterSpec = "32x4".parse().unwrap();
    assert_eq!(c.total_gpus(), 128);
    assert!("0x4"
        .parse::<ClusterSpec>()
        .unwrap_err()
        .0
        .contains("at least one node"));
    assert!("32"
        .parse::<ClusterSpec>()
        .unwrap_err()
        .0
        .contains("NODESxGPUS"));
    assert!("ax4".parse::<ClusterSpec>().is_err());
}

#[test]
fn parses_typed_groups() {
    let c: ClusterSpec = "2x8:v100, 4x4:k80+1x2".parse().unwrap();
    assert_eq!(c.nodes.len(), 7);
    assert_eq!(c.total_gpus(), 34);
    assert_eq!(c.gpu_types(), vec!["v100", "k80", DEFAULT_GPU_TYPE]);
    assert_eq!(c.gpus_of_type("k80"), 16);
    assert_eq!(c.nodes[2].gpu_type, "k80");
    let e = "2x8:v100,4x4:".parse::<ClusterSpec>().unwrap_err().0;
    assert!(e.contains("GPU type ``"), "{e}");
    let e = "2x8:v100,4y4:k80".parse::<ClusterSpec>().unwrap_err().0;
    assert!(e.contains("no `x` in `4y4:k80`"), "{e}");
    // Specs without types read back the same as before (serde default).
    let json = r#"{"nodes":[{"gpus":4}]}"#;
    let c: ClusterSpec = serde_json::from_str(json).unwrap();
    assert_eq!(c, ClusterSpec::uniform(1, 4));
}

#[test]
fn types_are_counted_and_restrict_the_plan() {
    let mut c = Cluster::new("1x4:v100,2x2:k80".parse().unwrap());
    assert_eq!(c.n_gpu_types(), 2);
    let k80 = c.gpu_type_id("k80").unwrap();
    assert_eq!(c.gpu_type_name(k80), "k80");
    assert_eq!(c.gpu_type(GpuId(5)), k80);
    assert_eq!(c.node_type(NodeId(0)), GpuTypeId(0));
    assert_eq!(c.gpus_of_type(k80), 4);
    c.allocate(JobId(0), &[GpuId(4)]);
    assert_eq!(c.free_of_type(k80), 3);
    assert_eq!(c.free_of_type(GpuTypeId(0)), 4);
    let mut plan = c.free_map();
    plan.restrict(Some(k80));
    assert_eq!(plan.total_free(), 3);
    assert!(!plan.is_free(GpuId(0)), "a V100 reads as taken");
    assert_eq!(plan.free_on_node(NodeId(0)), 0);
    assert_eq!(plan.free_of_node(NodeId(0)).count(), 0);
    assert_eq!(plan.free_of_node(NodeId(1)).count(), 1);
    plan.occupy(&[GpuId(0), GpuId(6)]);
    assert_eq!(plan.total_free(), 2);
    assert_eq!(plan.free_of_type(GpuTypeId(0)), 3);
    plan.restrict(None);
    assert_eq!(plan.total_free(), 5);
    assert_eq!(plan.free_on_node(NodeId(0)), 3);
    c.release(&[GpuId(4)]);
    assert_eq!(c.free_of_type(k80), 4);
}

#[test]
fn unavailable_gpus_are_never_free() {
    let mut c = Cluster::new(ClusterSpec::uniform(2, 4));
    c.allocate(JobId(0), &[GpuId(0), GpuId(1)]);
    for g in c.gpus_of(NodeId(0)) {
        assert!(c.set_available(GpuId(g), false));
    }
    assert!(!c.set_available(GpuId(0), false), "already out");
    assert_eq!(c.available_gpus(), 4);
    assert_eq!(c.available_on_node(NodeId(0)), 0);
    assert_eq!(c.free_gpus(), 4);
    assert_eq!(c.free_on_node(NodeId(0)), 0);
    let mut plan = c.free_map();
    assert_eq!(plan.total_free(), 4);
    assert!(!plan.is_free(GpuId(2)));
    assert_eq!(plan.free_of_node(NodeId(0)).count(), 0);
    plan.release(&[GpuId(0)]);
    assert!(
        !plan.is_free(GpuId(0)),
        "a planned release of an unavailable GPU stays taken"
    );
    // The holder is released by the engine later: still not free.
    c.release(&[GpuId(0), GpuId(1)]);
    assert_eq!(c.free_gpus(), 4);
    assert_eq!(c.owner(GpuId(0)), None);
    for g in c.gpus_of(NodeId(0)) {
        c.set_available(GpuId(g), true);
    }
    assert_eq!(c.free_gpus(), 8);
    assert_eq!(c.available_gpus(), 8);
}

#[test]
fn nodes_can_be_added() {
    let mut c = Cluster::new(ClusterSpec::uniform(1, 2));
    c.allocate(JobId(0), &[GpuId(1)]);
    let n = c.add_node(NodeSpec::with_gpus(4).of_type("k80"));
    assert_eq!(n, NodeId(1));
    assert_eq!(c.gpus_of(n), 2..6);
    assert_eq!(c.total_gpus(), 6);
    assert_eq!(c.free_gpus(), 5);
    assert_eq!(c.n_gpu_types(), 2);
    assert_eq!(c.gpu_type(GpuId(5)), c.gpu_type_id("k80").unwrap());
    assert_eq!(c.spec().nodes.len(), 2);
    c.allocate(JobId(1), &[GpuId(5)]);
    assert_eq!(c.free_on_node(n), 3);
}

/// The index answers as the walk over nodes does, through allocations, releases, GPUs
/// leaving and returning to service, added nodes and type restrictions.
#[test]
fn free_index_matches_a_walk() {
    fn check(plan: &mut FreeGpus<'_>, n_types: usize) {
        let restrictions: Vec<Option<GpuTypeId>> = std::iter::once(None)
            .chain((0..n_types as u32).map(|t| Some(GpuTypeId(t))))
            .collect();
        for only in restrictions {
            plan.restrict(only);
            let n = plan.n_nodes();
            for from in (0..=n).step_by(23).chain([n - 1, n]) {
                let walk = (from..n)
                    .map(|k| NodeId(k as u32))
                    .find(|&k| plan.free_on_node(k) > 0);
                assert_eq!(
                    plan.next_free_node(NodeId(from as u32)),
                    walk,
                    "from {from}"
                );
                for c in 1..=9 {
                    let walk = (from..n)
                        .map(|k| NodeId(k as u32))
                        .find(|&k| plan.free_on_node(k) == c);
                    assert_eq!(plan.next_node_with_free(NodeId(from as u32), c), walk);
                }
            }
            for need in 1..=9 {
                let walk = (0..n)
                    .map(|k| NodeId(k as u32))
                    .filter(|&k| plan.free_on_node(k) >= need)
                    .min_by_key(|&k| (plan.free_on_node(k), k));
                assert_eq!(plan.best_fit_node(need), walk, "need {need}");
            }
        }
        plan.restrict(None);
    }
    // More than 64 x 64 nodes, so that the summary level has several words.
    let spec: ClusterSpec = "2100x2:a,2100x4:b,30x8:a".parse().unwrap();
    let mut c = Cluster::new(spec);
    let mut x: u64 = 7;
    let mut rand = move |n: u64| {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (x >> 33) % n
    };
    let mut held: Vec<GpuId> = Vec::new();
    for step in 0..6 {
        let total = u64::from(c.total_gpus());
        for _ in 0..3000 {
            let g = GpuId(rand(total) as u32);
            if c.owner(g).is_none() && c.is_available(g) {
                c.allocate(JobId(1), &[g]);
                held.push(g);
            }
        }
        for _ in 0..400 {
            let g = GpuId(rand(total) as u32);
            c.set_available(g, rand(2) == 0);
        }
        let keep = held.split_off(held.len() / 2);
        c.release(&held);
        held = keep;
        if step == 3 {
            c.add_node(NodeSpec::with_gpus(9).of_type("c"));
        }
        let mut plan = c.free_map();
        check(&mut plan, c.n_gpu_types());
        // The plan's own changes keep its index in step.
        let taken: Vec<GpuId> = (0..2000).map(|_| GpuId(rand(total) as u32)).collect();
        plan.occupy(&taken);
        check(&mut plan, c.n_gpu_types());
        plan.release(&taken[..1000]);
        check(&mut plan, c.n_gpu_types());
    }
}

#[test]
fn allocation_tracks_node_counts() {
    let mut c = Cluster::new(ClusterSpec::uniform(2, 4));
    assert_eq!(c.gpus_of(NodeId(1)), 4..8);
    c.allocate(JobId(0), &[GpuId(1), GpuId(5)]);
    assert_eq!(c.free_gpus(), 6);
    assert_eq!(c.free_on_node(NodeId(0)), 3);
    assert_eq!(c.owner(GpuId(5)), Some(JobId(0)));
    let mut plan = c.free_map();
    let free0: Vec<u32> = plan.free_of_node(NodeId(0)).map(|g| g.0).collect();
    assert_eq!(free0, vec![0, 2, 3]);
    plan.occupy(&[GpuId(0)]);
    assert_eq!(plan.free_on_node(NodeId(0)), 2);
    assert_eq!(
        c.free_on_node(NodeId(0)),
        3,
        "the plan never touches the live cluster"
    );
    c.release(&[GpuId(1), GpuId(5)]);
    assert_eq!(c.free_gpus(), 8);
}
