//! Tests of `topology` (the library's `src/topology.rs`) through the public API.

use blox_core::*;
use blox_placement::*;

fn ids(v: &[u32]) -> Vec<GpuId> {
    v.iter().map(|&g| GpuId(g)).collect()
}

/// A node of many GPUs on one switch builds in memory linear in its GPUs: merging each GPU
/// into the switch's domain by copying the growing list into a new one (and keeping the old
/// allocation) took O(n²) memory, about 40 GB here (found by the `cli_args` fuzz target with
/// `--cluster 1x8:v100,4x66664:k80`, 24 GB).
#[test]
fn a_node_of_a_hundred_thousand_gpus_builds() {
    let t = Topology::default_for(&ClusterSpec::uniform(1, 100_000));
    assert_eq!(t.n_gpus(), 100_000);
    assert_eq!(t.ring_bandwidth(&ids(&[0, 99_999])), 300.0);
    assert_eq!(t.best_ring_bandwidth(100_000), 300.0);
}

#[test]
fn default_topology_has_three_levels() {
    let t = Topology::default_for(&ClusterSpec::uniform(32, 4));
    assert_eq!(t.n_gpus(), 128);
    assert_eq!(t.levels(), vec![300.0, 25.0, 12.5]);
    assert_eq!(t.ring_bandwidth(&ids(&[0, 3])), 300.0);
    assert_eq!(t.ring_bandwidth(&ids(&[0, 4])), 25.0);
    assert_eq!(t.ring_bandwidth(&ids(&[0, 64])), 12.5);
    assert_eq!(t.ring_bandwidth(&ids(&[5])), f64::INFINITY);
    assert_eq!(t.best_ring_bandwidth(4), 300.0);
    assert_eq!(t.best_ring_bandwidth(5), 25.0);
    assert_eq!(t.best_ring_bandwidth(65), 12.5);
}

#[test]
fn dgx_and_pcie_shapes() {
    let t = Topology::racks(NodeShape::Dgx, 2, &Fabric::default()).unwrap();
    assert_eq!(t.levels(), vec![300.0, 25.0]);
    assert_eq!(t.count(VertexKind::Gpu), 16);
    assert_eq!(t.count(VertexKind::PcieSwitch), 8);
    assert_eq!(t.count(VertexKind::CpuSocket), 4);
    assert_eq!(t.count(VertexKind::TorSwitch), 1);
    assert_eq!(t.count(VertexKind::SpineSwitch), 0);
    // Per node: 8 NVSwitch links, 8 GPU-PCIe, 4 PCIe-socket, 1 UPI, 1 NIC-PCIe; + 1 NIC-ToR.
    assert_eq!(t.n_links(), 2 * 23);
    assert_eq!(t.n_vertices(), 2 * (8 + 1 + 1 + 2 + 4) + 1);
    let t = Topology::racks(NodeShape::Pcie4, 2, &Fabric::default()).unwrap();
    // Pairs on a PCIe switch, the node through the root complex, then the network.
    assert_eq!(t.ring_bandwidth(&ids(&[0, 1])), 16.0);
    assert_eq!(t.ring_bandwidth(&ids(&[0, 2])), 13.0);
    assert_eq!(t.ring_bandwidth(&ids(&[0, 4])), 13.0);
    let t = Topology::racks(
        NodeShape::Pcie4,
        2,
        &Fabric {
            nic_gb_s: 12.5,
            ..Fabric::default()
        },
    )
    .unwrap();
    assert_eq!(t.ring_bandwidth(&ids(&[0, 4])), 12.5);
}

#[test]
fn single_gpu_topology() {
    let t = Topology::default_for(&ClusterSpec::uniform(1, 1));
    assert_eq!(t.n_gpus(), 1);
    assert_eq!(t.ring_bandwidth(&ids(&[0])), f64::INFINITY);
}
