//! Tests of `error` (the library's `src/error.rs`) through the public API.

use blox_workload::*;

#[test]
fn display_names_file_line_and_field() {
    let e = WorkloadError::input("a.csv", Some(3), Some("num_gpu"), "`x` is not a number");
    assert_eq!(
        e.to_string(),
        "a.csv:3: field `num_gpu`: `x` is not a number"
    );
    let e = WorkloadError::input("a.csv", None, None, "empty");
    assert_eq!(e.to_string(), "a.csv: empty");
    let e = WorkloadError::io("b.csv", std::io::Error::other("gone"));
    assert!(e.is_io());
    assert_eq!(e.to_string(), "b.csv: gone");
    assert!(std::error::Error::source(&e).is_some());
}
