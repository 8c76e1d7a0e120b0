//! Tests of `load_based` (the library's `src/load_based.rs`) through the public API.

use blox_admission::*;
use blox_core::*;
use blox_core::{Cluster, ClusterSpec, GpuId, JobSpec, JobTable, Time};

#[test]
fn the_threshold_counts_only_gpus_in_service() {
    // 2 x 4 GPUs, factor 1.0, ten 1-GPU jobs queued. With every GPU in service nine enter
    // (the test comes before each admission: demand 8 <= 8 still admits a ninth); with
    // node 1 out of service the cap is 4, so five.
    let queue: Vec<QueuedJob> = (0..10)
        .map(|seq| QueuedJob::new(seq, JobSpec::new(Time::ZERO, 1, 1.0)))
        .collect();
    let mut cluster = Cluster::new(ClusterSpec::uniform(2, 4));
    let jobs = JobTable::new();
    let admitted = |cluster: &Cluster| {
        let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), cluster, &jobs);
        let mut out = Admissions::default();
        LoadBased::new(1.0).unwrap().admit(&ctx, &queue, &mut out);
        out.admit.len()
    };
    assert_eq!(admitted(&cluster), 9);
    for g in 4..8 {
        cluster.set_available(GpuId(g), false);
    }
    assert_eq!(admitted(&cluster), 5);
}
