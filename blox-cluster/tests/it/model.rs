//! Tests of `model` (the library's `src/model.rs`) through the public API.

use blox_cluster::*;
use blox_core::*;

fn check(body: &str, field: &str) {
    let e = Submission::from_json(body.as_bytes(), 4).unwrap_err();
    assert_eq!(e.field, field, "{body}: {e}");
}

#[test]
fn validation_names_the_field() {
    check("[1]", "body");
    check("{", "body");
    check(r#"{"n_gpus": 1}"#, "command");
    check(r#"{"command": "", "n_gpus": 1}"#, "command");
    check(r#"{"command": "x"}"#, "n_gpus");
    check(r#"{"command": "x", "n_gpus": 0}"#, "n_gpus");
    check(r#"{"command": "x", "n_gpus": 5}"#, "n_gpus");
    check(r#"{"command": "x", "n_gpus": "2"}"#, "n_gpus");
    check(r#"{"command": "x", "n_gpus": 1, "gpus": 2}"#, "gpus");
    check(r#"{"command": "x", "n_gpus": 1, "cpus": -1}"#, "cpus");
    check(
        r#"{"command": "x", "n_gpus": 1, "total_iterations": 1.5}"#,
        "total_iterations",
    );
    check(
        r#"{"command": "x", "n_gpus": 1, "total_iterations": 1000000000001}"#,
        "total_iterations",
    );
    check(r#"{"command": "x", "n_gpus": 1, "cpus": 1e7}"#, "cpus");
    check(
        r#"{"command": "x", "n_gpus": 1, "mem_gb": 1e300}"#,
        "mem_gb",
    );
    check(
        r#"{"command": "x", "n_gpus": 1, "duration_s": 2e9}"#,
        "duration_s",
    );
    check(
        r#"{"command": "x", "n_gpus": 1, "iteration_time_s": 0}"#,
        "iteration_time_s",
    );
    let long = "x".repeat(MAX_COMMAND_BYTES + 1);
    check(
        &format!(r#"{{"command": "{long}", "n_gpus": 1}}"#),
        "command",
    );
    let fits = "x".repeat(MAX_COMMAND_BYTES);
    assert!(Submission::from_json(
        format!(r#"{{"command": "{fits}", "n_gpus": 1}}"#).as_bytes(),
        4
    )
    .is_ok());
    let s = Submission::from_json(
        br#"{"command": "x", "n_gpus": 2, "total_iterations": 10, "iteration_time_s": 0.5}"#,
        4,
    )
    .unwrap();
    assert_eq!(s.work_s(), 5.0);
    assert_eq!(s.to_spec(Time(7)).n_gpus, 2);
}

/// The submission that used to brick the server: each value within bounds, their product
/// not. The error states the bound; every stored submission passes [`Submission::check`].
#[test]
fn values_out_of_bounds_are_refused_with_their_bounds() {
    let e = Submission::from_json(
        br#"{"command": "true", "n_gpus": 1, "total_iterations": 10, "iteration_time_s": 1e308}"#,
        4,
    )
    .unwrap_err();
    assert_eq!(e.field, "iteration_time_s");
    assert!(e.message.contains("1e9"), "{e}");
    let e = Submission::from_json(
        br#"{"command": "true", "n_gpus": 1, "total_iterations": 1000000, "iteration_time_s": 10000}"#,
        4,
    )
    .unwrap_err();
    assert!(e.message.contains("of work"), "{e}");
    let mut s = Submission::from_json(br#"{"command": "true", "n_gpus": 1}"#, 4).unwrap();
    s.duration_s = Some(f64::INFINITY);
    assert_eq!(s.check().unwrap_err().field, "duration_s");
    s.duration_s = Some(f64::NAN);
    assert_eq!(s.check().unwrap_err().field, "duration_s");
}
