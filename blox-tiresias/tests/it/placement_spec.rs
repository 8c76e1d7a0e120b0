//! Tests of `placement::spec` (the library's `src/placement/spec.rs`) through the public API.

use blox_tiresias::*;

#[test]
fn shipped_spec_files_parse() {
    let n2g4 =
        "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\r\n1,2,4,40,256\r\n";
    let s = TiresiasClusterSpec::parse(n2g4).unwrap();
    assert_eq!(s, TiresiasClusterSpec::new(1, 2, 4, 40, 256));
    assert_eq!(s.total_gpus(), 8);
    // No trailing newline; columns in another order.
    let s = TiresiasClusterSpec::parse(
        "mem_p_node,num_cpu_p_node,num_gpu_p_node,num_node_p_switch,num_switch\n254,128,4,16,1",
    )
    .unwrap();
    assert_eq!(s, TiresiasClusterSpec::new(1, 16, 4, 128, 254));
}

#[test]
fn bad_specs_name_the_problem() {
    let e = TiresiasClusterSpec::parse("num_switch,num_node_p_switch\n1,2\n").unwrap_err();
    assert!(e.0.contains("num_gpu_p_node"), "{e}");
    let e = TiresiasClusterSpec::parse(
        "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,2,4.5,40,256\n",
    )
    .unwrap_err();
    assert!(
        e.0.contains("line 2") && e.0.contains("num_gpu_p_node"),
        "{e}"
    );
    assert!(TiresiasClusterSpec::from_shape("2x").is_err());
    assert_eq!(
        TiresiasClusterSpec::from_shape("2x4").unwrap(),
        TiresiasClusterSpec::new(1, 2, 4, 64, 256)
    );
}
