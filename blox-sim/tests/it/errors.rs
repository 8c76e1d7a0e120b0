//! Engine-level errors: impossible jobs and stalls.

use super::*;
use blox_sim::SimError;

#[test]
fn a_job_larger_than_the_cluster_is_an_error() {
    // A job asking for more GPUs than the cluster has.
    let e = run_with(
        exact(),
        1,
        4,
        "fifo",
        AdmissionConfig::AcceptAll,
        vec![job(0, 10.0, 8)],
    )
    .unwrap_err();
    assert!(matches!(e, SimError::Config(_)));
    assert!(
        e.to_string()
            .contains("asks for 8 GPUs but the cluster has 4"),
        "{e}"
    );
}

#[test]
fn a_job_that_can_never_be_placed_stalls_with_a_clear_error() {
    // Blox's overshoot: 6 GPUs on 4-GPU nodes is never placeable (4 + 4 = 8 != 6).
    let e = run_with(
        blox(),
        2,
        4,
        "fifo",
        AdmissionConfig::AcceptAll,
        vec![job(0, 10.0, 6)],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("the placement can never start it"), "{e}");
    // In exact semantics it runs.
    let (out, _, _) = run_jobs(exact(), 2, 4, "fifo", vec![job(0, 10.0, 6)]);
    assert_eq!(out.completed, 1);
}
