//! Tests of `spec` (the library's `src/spec.rs`) through the public API.

use blox_core::*;

#[test]
fn parses_all_forms() {
    let s = ComponentSpec::parse("fifo", "policy").unwrap();
    assert_eq!((s.name, s.value, s.params.len()), ("fifo", None, 0));
    let s = ComponentSpec::parse("load-based:1.2", "admission").unwrap();
    assert_eq!(s.value, Some("1.2"));
    let s = ComponentSpec::parse("mlfq:queues=2,threshold=3600", "policy").unwrap();
    assert_eq!(s.params, vec![("queues", "2"), ("threshold", "3600")]);
    assert!(ComponentSpec::parse(":x", "policy").is_err());
    assert!(ComponentSpec::parse("a:b=1,c", "policy")
        .unwrap_err()
        .0
        .contains("key=value"));
    assert!(parse_f64("factor", "abc").is_err());
}
