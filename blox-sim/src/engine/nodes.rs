//! Cluster events in the round loop: applied before admission each round (Blox's
//! `update_cluster`), kept apart from the rest of the engine.

use super::Run;
use crate::SimError;
use blox_core::{Event, JobId, MetricSink, NodeChange, Time};
use blox_nodes::{apply, RoundView};

impl Run<'_> {
    /// Apply every cluster event due at `t`: GPUs leave or return to service; jobs on GPUs that
    /// leave are stopped (a drain keeps their progress and counts as a preemption; a failure
    /// throws away the work since their last checkpoint) and wait in the table.
    pub(super) fn apply_cluster_events<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        sink: &mut M,
    ) -> Result<(), SimError> {
        let Some(events) = self.events.as_deref_mut() else {
            return Ok(());
        };
        self.due.clear();
        {
            let view = RoundView::new(
                t,
                self.cfg.round,
                &self.cluster,
                &self.table,
                self.queue.len(),
            );
            events.poll(&view, &mut self.due).map_err(|e| {
                SimError::Config(format!("cluster events ({}): {e}", events.name()))
            })?;
        }
        let due = std::mem::take(&mut self.due);
        for ev in &due {
            let applied =
                apply(&mut self.cluster, ev).map_err(|e| SimError::Config(e.to_string()))?;
            sink.on_event(&Event::NodeChanged {
                time: t,
                node: applied.node,
                gpu: applied.gpu,
                change: ev.change,
                available_gpus: self.cluster.available_gpus(),
            });
            for &id in &applied.hit {
                self.interrupt(id, ev.change, t, sink);
            }
        }
        self.due = due;
        Ok(())
    }

    /// Stop a running job whose GPUs left service.
    fn interrupt<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        change: NodeChange,
        t: Time,
        sink: &mut M,
    ) {
        let blox = self.blox();
        let r = self.cfg.round;
        let ckpt = self.cfg.checkpointing;
        let Some(job) = self.table.get_mut(id) else {
            return;
        };
        if !job.is_running() {
            return;
        }
        let st = &mut self.state[id.index()];
        st.touched = t;
        let gpus = std::mem::take(&mut job.gpus);
        self.running_jobs -= 1;
        self.cluster.release(&gpus);
        if change == NodeChange::Fail {
            let start = job.last_start.unwrap_or(t);
            let cp = ckpt.last_checkpoint(start, t);
            // Work the job had at its last checkpoint: Blox credits whole rounds after the
            // start; `exact` progresses continuously once restoring is over.
            let done = job.executed - st.executed_at_start;
            let kept = if blox {
                let rounds = (cp - start).as_millis() / r.as_millis();
                r.as_secs_f64() * st.speed * rounds as f64
            } else {
                st.speed * cp.saturating_sub(st.stall_until).as_secs_f64()
            };
            if kept < done {
                job.executed = st.executed_at_start + kept;
            }
            let lost_gpu_s = gpus.len() as f64 * (t - cp).as_secs_f64();
            sink.on_event(&Event::Failed {
                time: t,
                job: id,
                lost_gpu_s,
            });
        } else {
            job.preemptions += 1;
            self.outcome.preemptions += 1;
            sink.on_event(&Event::Preempted {
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
        self.cluster.available_gpus() < self.cluster.total_gpus()
            && self.next_cluster_event().is_some()
    }
}
