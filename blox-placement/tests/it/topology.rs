//! Topology files: a JSON round trip, shapes, and errors that name the file and the field.

use blox_core::{ClusterSpec, GpuId};
use blox_placement::{Fabric, NodeShape, Topology, TopologyBuilder};

fn g(v: &[u32]) -> Vec<GpuId> {
    v.iter().map(|&x| GpuId(x)).collect()
}

#[test]
fn json_round_trip_keeps_every_bandwidth() {
    let mut b = TopologyBuilder::new();
    b.racks(
        &[NodeShape::Dgx, NodeShape::Dgx, NodeShape::Pcie4],
        &Fabric {
            rack_size: 2,
            nic_gb_s: 25.0,
            uplink_gb_s: 20.0,
        },
    );
    let t = b.build().unwrap();
    assert_eq!(t.n_gpus(), 20);
    let back = Topology::from_json(&t.to_json()).unwrap();
    assert_eq!(back.spec(), t.spec());
    for (a, c) in [(0, 1), (0, 8), (0, 16), (16, 17), (16, 18)] {
        assert_eq!(
            back.bandwidth(GpuId(a), GpuId(c)),
            t.bandwidth(GpuId(a), GpuId(c))
        );
    }
    assert_eq!(t.ring_bandwidth(&g(&[0, 7])), 300.0);
    assert_eq!(t.ring_bandwidth(&g(&[0, 8])), 25.0);
    // Across racks: the uplink's share of one node (20 / 1 node in the second rack = 20, 20 / 2
    // = 10 in the first).
    assert_eq!(t.ring_bandwidth(&g(&[0, 16])), 10.0);
    assert_eq!(t.ring_bandwidth(&g(&[16, 17])), 16.0);
    assert_eq!(t.ring_bandwidth(&g(&[16, 18])), 13.0);
}

#[test]
fn a_file_loads_and_errors_name_file_and_field() {
    let dir = std::env::temp_dir().join(format!("blox-topo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.json");
    std::fs::write(
        &ok,
        r#"{"vertices": [{"id": "a", "kind": "gpu", "gpu": 0}, {"id": "b", "kind": "gpu", "gpu": 1},
                         {"id": "sw", "kind": "nvswitch"}],
            "links": [{"a": "a", "b": "sw", "bandwidth_gb_s": 300},
                      {"a": "b", "b": "sw", "bandwidth_gb_s": 150}]}"#,
    )
    .unwrap();
    let t = Topology::load(&ok).unwrap();
    assert_eq!(t.bandwidth(GpuId(0), GpuId(1)), 150.0);
    let cluster = ClusterSpec::uniform(1, 2);
    assert!(Topology::resolve(ok.to_str().unwrap(), &cluster).is_ok());
    let e = Topology::resolve(ok.to_str().unwrap(), &ClusterSpec::uniform(1, 4)).unwrap_err();
    assert!(
        e.to_string().contains("2 GPUs but the cluster has 4"),
        "{e}"
    );

    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"vertices": [{"id": "a", "kind": "gpu", "gpu": 0}], "links": [{"a": "a", "b": "x", "bandwidth_gb_s": 1}]}"#,
            "links[0].b",
            "unknown vertex `x`",
        ),
        (
            r#"{"vertices": [{"id": "a", "kind": "gpu", "gpu": 0}, {"id": "b", "kind": "nic"}], "links": [{"a": "a", "b": "b", "bandwidth_gb_s": -1}]}"#,
            "links[0].bandwidth_gb_s",
            "not a positive number",
        ),
        (
            r#"{"vertices": [{"id": "a", "kind": "gpu"}], "links": []}"#,
            "vertices[0].gpu",
            "no `gpu` id",
        ),
        (
            r#"{"vertices": [{"id": "a", "kind": "gpu", "gpu": 0}, {"id": "a", "kind": "nic"}], "links": []}"#,
            "vertices[1].id",
            "used twice",
        ),
        (
            r#"{"vertices": [{"id": "a", "kind": "gpu", "gpu": 0}, {"id": "b", "kind": "gpu", "gpu": 2}], "links": []}"#,
            "vertices",
            "GPU 1 is missing",
        ),
        (
            r#"{"vertices": [{"id": "a", "kind": "gpu", "gpu": 0}, {"id": "b", "kind": "gpu", "gpu": 1}], "links": []}"#,
            "links",
            "are not connected",
        ),
    ];
    for (i, (text, field, msg)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.json"));
        std::fs::write(&path, text).unwrap();
        let e = Topology::load(&path).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(*field), "{e}");
        assert!(e.to_string().contains(msg), "{e}");
        assert!(e.to_string().contains(&format!("bad{i}.json")), "{e}");
    }
    // Syntax and unknown fields: serde's message with line and column.
    let path = dir.join("typo.json");
    std::fs::write(&path, r#"{"vertices": [], "links": [], "extra": 1}"#).unwrap();
    let e = Topology::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("typo.json") && e.contains("unknown field `extra`"),
        "{e}"
    );
    let e = Topology::load(&dir.join("missing.json"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing.json") && e.contains("cannot read"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shapes_by_name() {
    let c = ClusterSpec::uniform(4, 8);
    let t = Topology::resolve("dgx:rack=2,nic=50,uplink=50", &c).unwrap();
    // A 50 GB/s NIC behind the node's 32 GB/s PCIe switch gives 32 GB/s inside a rack.
    assert_eq!(t.levels(), vec![300.0, 32.0, 25.0]);
    assert!(Topology::resolve("pcie", &c)
        .unwrap_err()
        .to_string()
        .contains("4 GPUs per node but node 0 of the cluster has 8"));
    assert!(Topology::shape("dgx:rack=0", &c).is_err());
    assert!(Topology::shape("dgx:speed=3", &c).is_err());
    assert!(Topology::shape("torus", &c)
        .unwrap_err()
        .to_string()
        .contains("default, dgx, pcie"));
    let d = Topology::resolve("default", &ClusterSpec::uniform(40, 4)).unwrap();
    assert_eq!(d.levels(), vec![300.0, 25.0, 12.5]);
}
