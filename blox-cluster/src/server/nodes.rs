//! Node availability in real mode: nodes the backend reports down or drained (Slurm's `sinfo`)
//! and nodes an administrator took out (`blox-cluster nodes drain|remove NODE`) leave
//! placement at the next round, before admission; their jobs are stopped and requeued; a node
//! that returns is used again.

use super::Server;
use crate::model::JobState;
use crate::ClusterError;
use crate::Executor;
use blox_core::{Event, GpuId, JobId, NodeChange, NodeId, Time};
use blox_nodes::{apply, NodeEvent};
use std::collections::BTreeMap;
use std::time::Duration;

impl<E: Executor> Server<E> {
    /// Whether any node has changed during this server's run (the outputs then carry the
    /// cluster-management columns and fields).
    pub(super) fn managed(&self) -> bool {
        self.cluster_log.stats().node_events > 0
    }

    /// Bring the cluster's availability up to date: the nodes out of service are the ones the
    /// administrator drained (`drain`: a leave) or removed (`remove`: a failure) and the ones
    /// the backend reports unavailable (a failure: their jobs are gone or going).
    pub(super) fn update_nodes(&mut self, t: Time) -> Result<(), ClusterError> {
        let admin = self.store.node_admin()?;
        let mut want: BTreeMap<NodeId, NodeChange> = BTreeMap::new();
        let mut reported = Vec::new();
        self.exec
            .unavailable_nodes(&mut reported)
            .map_err(|e| ClusterError::Exec(e.0))?;
        for n in reported {
            want.insert(n, NodeChange::Fail);
        }
        let inv = self.exec.inventory();
        for (k, node) in inv.nodes.iter().enumerate() {
            match admin.get(&node.name).map(String::as_str) {
                Some("drain") => {
                    want.entry(NodeId(k as u32)).or_insert(NodeChange::Leave);
                }
                Some(_) => {
                    want.insert(NodeId(k as u32), NodeChange::Fail);
                }
                None => {}
            }
        }
        let back: Vec<(NodeId, NodeChange)> = self
            .down
            .iter()
            .filter(|(n, _)| !want.contains_key(n))
            .map(|(&n, &c)| (n, c))
            .collect();
        for (node, how) in back {
            self.down.remove(&node);
            let change = if how == NodeChange::Leave {
                NodeChange::Join
            } else {
                NodeChange::Recover
            };
            self.node_event(node, change, t)?;
        }
        for (&node, &change) in &want {
            if self.down.contains_key(&node) {
                continue;
            }
            self.down.insert(node, change);
            let hit = self.node_event(node, change, t)?;
            let grace = if change == NodeChange::Leave {
                self.cfg.grace
            } else {
                Duration::ZERO
            };
            for id in hit {
                self.interrupt(id, change, grace, t)?;
            }
            eprintln!(
                "blox-cluster: node {} out of service ({})",
                self.exec.inventory().nodes[node.index()].name,
                if change == NodeChange::Leave {
                    "drained"
                } else {
                    "down or removed"
                }
            );
        }
        Ok(())
    }

    /// Apply one change to the cluster and report it; returns the jobs placed on the node.
    fn node_event(
        &mut self,
        node: NodeId,
        change: NodeChange,
        t: Time,
    ) -> Result<Vec<JobId>, ClusterError> {
        let applied = apply(&mut self.cluster, &NodeEvent::new(t, node, change))
            .map_err(|e| ClusterError::State(e.to_string()))?;
        self.emit(&Event::NodeChanged {
            time: t,
            node,
            gpu: None,
            change,
            available_gpus: self.cluster.available_gpus(),
        });
        Ok(applied.hit)
    }

    /// Stop a job placed on a node that left service, as a preemption does: its GPUs leave the
    /// scheduler's view at once, its launch (if any) is stopped within `grace`, and it waits to
    /// be placed again. It completes only if its own process reports success, so it finishes
    /// exactly once.
    fn interrupt(
        &mut self,
        id: JobId,
        change: NodeChange,
        grace: Duration,
        t: Time,
    ) -> Result<(), ClusterError> {
        self.credit(t);
        self.touched.insert(id);
        let Some(mut job) = self.table.get_mut(id) else {
            return Ok(());
        };
        let gpus: Vec<GpuId> = std::mem::take(&mut job.gpus).to_vec();
        let since = job.last_start.unwrap_or(t);
        if change == NodeChange::Leave {
            job.preemptions += 1;
        }
        drop(job);
        self.cluster.release(&gpus);
        if change == NodeChange::Leave {
            self.counters.preemptions += 1;
            self.emit(&Event::Preempted {
                time: t,
                job: id,
                counted: true,
            });
        } else {
            // Real jobs checkpoint on their own: count the time since the launch as lost.
            let lost_gpu_s = gpus.len() as f64 * t.saturating_sub(since).as_secs_f64();
            self.emit(&Event::Failed {
                time: t,
                job: id,
                lost_gpu_s,
            });
        }
        let mut state = JobState::Waiting;
        if let Some(live) = self.lives.get_mut(&id) {
            state = JobState::Stopping;
            if !live.stopping {
                live.stopping = true;
                self.exec
                    .preempt(id, grace)
                    .map_err(|x| ClusterError::Exec(x.0))?;
            }
        }
        if let Some((_, e)) = self.entry(id) {
            e.state = state;
            e.run.gpus.clear();
            if let Some(l) = &mut e.run.live {
                l.stopping = true;
            }
        }
        Ok(())
    }
}
