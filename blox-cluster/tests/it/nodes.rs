//! Tests of `nodes` (the library's `src/nodes.rs`) through the public API.

use blox_cluster::*;

#[test]
fn parses_both_forms() {
    let inv = parse_nodes("2x2", 8, 16.0).unwrap();
    assert_eq!(inv.nodes.len(), 2);
    assert_eq!(inv.nodes[1].gpu_indices, vec![0, 1]);
    let inv = parse_nodes("0,1/2,3", 8, 16.0).unwrap();
    assert_eq!(inv.nodes[1].gpu_indices, vec![2, 3]);
    assert!(parse_nodes("0x2", 8, 16.0).is_err());
    assert!(parse_nodes("0,0", 8, 16.0).unwrap_err().contains("twice"));
    assert!(parse_nodes("a", 8, 16.0).is_err());
}
