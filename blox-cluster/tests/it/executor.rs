//! Tests of `executor` (the library's `src/executor.rs`) through the public API.

use blox_cluster::*;
use blox_core::*;
use std::time::Duration;

fn inv() -> Inventory {
    Inventory {
        nodes: vec![
            NodeInfo::new("n0", "127.0.0.1", vec![0, 1], 8, 16.0),
            NodeInfo::new("n1", "127.0.0.1", vec![2, 3, 5], 8, 16.0),
        ],
    }
}

#[test]
fn locates_and_groups_gpus() {
    let inv = inv();
    assert_eq!(inv.total_gpus(), 5);
    assert_eq!(inv.cluster_spec().nodes[1].gpus, 3);
    assert_eq!(inv.locate(GpuId(4)), Some((NodeId(1), 5)));
    assert_eq!(inv.locate(GpuId(5)), None);
    let l = inv.layout(&[GpuId(3), GpuId(1), GpuId(4)]).unwrap();
    assert_eq!(l.len(), 2);
    assert_eq!((l[0].node, l[0].first_rank), (NodeId(1), 0));
    assert_eq!(l[0].gpu_indices, vec![3, 5]);
    assert_eq!((l[1].node, l[1].gpu_indices.clone()), (NodeId(0), vec![1]));
    assert!(inv.layout(&[GpuId(9)]).is_none());
}

struct Nop(Inventory);
impl Executor for Nop {
    fn inventory(&self) -> &Inventory {
        &self.0
    }
    fn launch(&mut self, _: &Launch<'_>) -> Result<String, ExecError> {
        Ok("h".into())
    }
    fn preempt(&mut self, _: JobId, _: Duration) -> Result<(), ExecError> {
        Ok(())
    }
    fn poll(&mut self, _: &mut Vec<ExecEvent>) -> Result<(), ExecError> {
        Ok(())
    }
}

#[test]
fn boxed_and_borrowed_forward() {
    let mut boxed: BoxExecutor = Box::new(Nop(inv()));
    assert_eq!(boxed.name(), "Nop");
    let spec = JobSpec::new(blox_core::Time::ZERO, 1, 1.0);
    let l = Launch::new(JobId(0), 0, &spec, "true", &[GpuId(0)], false);
    let mut r: &mut dyn Executor = &mut boxed;
    assert_eq!((&mut r).launch(&l).unwrap(), "h");
    assert!(!r.adopt(&l, "h").unwrap());
}
