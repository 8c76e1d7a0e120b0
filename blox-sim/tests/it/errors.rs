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

/// Pins every job to the cluster's last GPU type, whatever its size.
struct PinLast;

impl blox_core::SchedulingPolicy for PinLast {
    fn schedule(&mut self, ctx: &blox_core::Ctx<'_>, out: &mut blox_core::Schedule) {
        let last = blox_core::GpuTypeId(ctx.cluster.n_gpu_types() as u32 - 1);
        for j in ctx.jobs.iter() {
            out.push_on(j.id, j.n_gpus(), last);
        }
    }
}

#[test]
fn a_job_pinned_to_a_type_too_small_for_it_is_an_error_naming_the_policy() {
    // 8 V100s and 4 K80s: a 6-GPU job fits the cluster, but never the K80s it is pinned to.
    let mut sim = Simulator::new(
        exact(),
        "1x8:v100,1x4:k80".parse::<ClusterSpec>().unwrap(),
        Pipeline::new(AcceptAll, PinLast, blox_placement::Consolidated::default()),
        ConstantSpeed(1.0),
        blox_metrics::JobLog::default(),
    );
    let e = sim
        .run(&mut JobList::new(vec![job(0, 10.0, 1), job(0, 10.0, 6)]))
        .unwrap_err();
    assert!(matches!(e, SimError::InvalidDecision { .. }), "{e:?}");
    let e = e.to_string();
    assert!(
        e.contains("job 1 (6 GPUs) is pinned to GPU type `k80`, which has only 4 GPUs"),
        "{e}"
    );
}
