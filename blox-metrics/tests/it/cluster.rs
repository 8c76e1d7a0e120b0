//! Tests of `cluster` (the library's `src/cluster.rs`) through the public API.

use blox_core::*;
use blox_core::{JobId, NodeChange, NodeId};
use blox_metrics::*;

#[test]
fn integrates_gpus_in_service() {
    let mut log = ClusterLog::new(32);
    let ch = |t: u64, a: u32, change| Event::NodeChanged {
        time: Time::from_secs(t),
        node: NodeId(0),
        gpu: None,
        change,
        available_gpus: a,
    };
    log.on_event(&ch(3600, 24, NodeChange::Fail));
    log.on_event(&Event::Failed {
        time: Time::from_secs(3600),
        job: JobId(1),
        lost_gpu_s: 800.0,
    });
    log.on_event(&ch(7200, 32, NodeChange::Recover));
    log.on_event(&Event::End {
        time: Time::from_secs(10_800),
    });
    let s = log.stats();
    assert_eq!(s.node_events, 2);
    assert_eq!(s.gpu_hours_available, 32.0 + 24.0 + 32.0);
    assert_eq!(s.lost_gpu_s, 800.0);
    assert_eq!(s.failures_hit, 1);
}
