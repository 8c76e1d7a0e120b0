//! Cluster events at each decision: applied after the time model's advance and before admission
//! (Blox's `update_cluster`), kept apart from the rest of the engine.

use super::Run;
use crate::time::TimeModel;
use crate::SimError;
use blox_core::{Event, JobId, MetricSink, NodeChange, ThroughputModel, Time};
use blox_nodes::{apply, RoundView};

impl<Tm: TimeModel, T: ThroughputModel + ?Sized, M: MetricSink + ?Sized> Run<'_, Tm, T, M> {
    /// Apply every cluster event due at `t`: GPUs leave or return to service; jobs on GPUs that
    /// leave are stopped (a drain keeps their progress and counts as a preemption; a failure
    /// throws away the work since their last checkpoint) and wait in the table.
    pub(super) fn apply_cluster_events(&mut self, t: Time) -> Result<(), SimError> {
        let Some(events) = self.events.as_deref_mut() else {
            return Ok(());
        };
        self.due.clear();
        {
            let view = RoundView::new(
                t,
                self.core.round,
                &self.core.cluster,
                &self.core.table,
                self.queue.len(),
            );
            events.poll(&view, &mut self.due).map_err(|e| {
                SimError::Config(format!("cluster events ({}): {e}", events.name()))
            })?;
        }
        let due = std::mem::take(&mut self.due);
        for ev in &due {
            let applied =
                apply(&mut self.core.cluster, ev).map_err(|e| SimError::Config(e.to_string()))?;
            self.sink.on_event(&Event::NodeChanged {
                time: t,
                node: applied.node,
                gpu: applied.gpu,
                change: ev.change,
                available_gpus: self.core.cluster.available_gpus(),
            });
            for &id in &applied.hit {
                self.interrupt(id, ev.change, t);
            }
        }
        self.due = due;
        Ok(())
    }

    /// Stop a running job whose GPUs left service.
    fn interrupt(&mut self, id: JobId, change: NodeChange, t: Time) {
        let Some(mut job) = self.core.table.get_mut(id) else {
            return;
        };
        if !job.is_running() {
            return;
        }
        let st = &mut self.state[id];
        st.touched = t;
        self.model.stopping(&mut job, t);
        if change == NodeChange::Fail {
            let start = job.last_start.unwrap_or(t);
            let cp = self.checkpointing.last_checkpoint(start, t);
            self.model
                .rollback(&mut job, st.executed_at_start, start, cp, t);
            let lost_gpu_s = job.gpus.len() as f64 * (t - cp).as_secs_f64();
            let gpus = std::mem::take(&mut job.gpus);
            self.core.running_jobs -= 1;
            self.core.cluster.release(&gpus);
            self.sink.on_event(&Event::Failed {
                time: t,
                job: id,
                lost_gpu_s,
            });
        } else {
            let gpus = std::mem::take(&mut job.gpus);
            job.preemptions += 1;
            self.core.running_jobs -= 1;
            self.core.cluster.release(&gpus);
            self.core.outcome.preemptions += 1;
            self.sink.on_event(&Event::Preempted {
                time: t,
                job: id,
                counted: true,
            });
        }
    }

    /// The next cluster event known in advance.
    pub(super) fn next_cluster_event(&self) -> Option<Time> {
        self.events.as_deref().and_then(|e| e.next_time())
    }

    /// Whether jobs may be waiting for GPUs that are out of service and due to come back: the
    /// run is then not stalled.
    pub(super) fn waits_for_cluster(&self) -> bool {
        self.core.cluster.available_gpus() < self.core.cluster.total_gpus()
            && self.next_cluster_event().is_some()
    }
}
