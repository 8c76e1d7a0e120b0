//! Tests of `cluster` (the library's `src/cluster.rs`) through the public API.

use blox_sia::*;

#[test]
fn the_default_cluster_is_table_3s() {
    let c = SiaCluster::default_64();
    let names: Vec<&str> = c.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["aws", "dgx-ext", "rtx"]);
    assert_eq!(c.gpus(), 64);
    assert_eq!(
        c.types.iter().map(GpuType::gpus).collect::<Vec<_>>(),
        [24, 16, 24]
    );
    assert_eq!(c.scaled(4).gpus(), 256);
}

#[test]
fn configurations_of_the_default_cluster_are_sections_6_1s() {
    let c = SiaCluster::default_64();
    let got: Vec<(usize, u32, u32)> = c
        .configurations()
        .iter()
        .map(|c| (c.gpu_type, c.nodes, c.gpus))
        .collect();
    #[rustfmt::skip]
    let want = [
        (0, 1, 1), (0, 1, 2), (0, 1, 4), (0, 2, 8), (0, 3, 12), (0, 4, 16), (0, 5, 20), (0, 6, 24),
        (1, 1, 1), (1, 1, 2), (1, 1, 4), (1, 1, 8), (1, 2, 16),
        (2, 1, 1), (2, 1, 2), (2, 1, 4), (2, 1, 8), (2, 2, 16), (2, 3, 24),
    ];
    assert_eq!(got, want);
}

#[test]
fn small_clusters_of_the_test_vectors() {
    // C_S: aws 2 × 4, rtx 1 × 8 → aws (1,1) (1,2) (1,4) (2,8); rtx (1,1) (1,2) (1,4) (1,8).
    let cs = SiaCluster::from_counts(&[("aws", 2), ("rtx", 1)]).unwrap();
    let g: Vec<u32> = cs.configurations().iter().map(|c| c.gpus).collect();
    assert_eq!(g, [1, 2, 4, 8, 1, 2, 4, 8]);
    // C_M: aws 1 × 4, dgx-ext 1 × 8, rtx 1 × 8 → 3 + 4 + 4 configurations.
    let cm = SiaCluster::from_counts(&[("aws", 1), ("dgx-ext", 1), ("rtx", 1)]).unwrap();
    assert_eq!(cm.configurations().len(), 11);
    assert_eq!(cm.gpus(), 20);
}

#[test]
fn bad_specs_are_refused_by_name() {
    let e = SiaCluster::from_counts(&[("h100", 2)]).unwrap_err();
    assert!(e.0.contains("h100") && e.0.contains("aws"), "{e}");
    let e = SiaCluster::from_counts(&[("aws", 1), ("aws", 2)]).unwrap_err();
    assert!(e.0.contains("twice"), "{e}");
    assert!(SiaCluster::from_counts(&[("rtx", 0)]).is_err());
    assert!(SiaCluster::from_counts(&[]).is_err());
}
