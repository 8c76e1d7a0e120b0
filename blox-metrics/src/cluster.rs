//! What cluster management did in a run: node events, GPU-hours in service, work lost to
//! failures.

use blox_core::{Event, MetricSink, Time};
use serde::Serialize;

/// A sink recording node events and failures (see `blox-nodes`).
///
/// GPU-hours in service integrate the number of GPUs in service from `t = 0` to the run's end,
/// as a step function that changes at each [`Event::NodeChanged`].
#[derive(Clone, Debug, Default)]
pub struct ClusterLog {
    available: u32,
    since: Time,
    gpu_ms: u128,
    node_events: u64,
    failures_hit: u64,
    lost_gpu_s: f64,
    end: Option<Time>,
}

/// The figures of a [`ClusterLog`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ClusterStats {
    /// Node events applied (joins, leaves, failures, recoveries).
    pub node_events: u64,
    /// GPU-hours in service from `t = 0` to the end of the run.
    pub gpu_hours_available: f64,
    /// GPU-seconds of work thrown away by failures (GPUs × time since the last checkpoint).
    pub lost_gpu_s: f64,
    /// Interruptions of running jobs by failures (a job hit twice counts twice).
    pub failures_hit: u64,
}

impl ClusterLog {
    /// A log for a cluster that starts with `gpus` GPUs in service.
    pub fn new(gpus: u32) -> Self {
        ClusterLog {
            available: gpus,
            ..ClusterLog::default()
        }
    }

    /// The figures so far (GPU-hours up to the end event, or the last node event).
    pub fn stats(&self) -> ClusterStats {
        let mut ms = self.gpu_ms;
        if let Some(end) = self.end {
            ms += u128::from(self.available) * u128::from(end.saturating_sub(self.since).0);
        }
        ClusterStats {
            node_events: self.node_events,
            gpu_hours_available: ms as f64 / 3_600_000.0,
            lost_gpu_s: self.lost_gpu_s,
            failures_hit: self.failures_hit,
        }
    }

    fn advance(&mut self, t: Time) {
        if t > self.since {
            self.gpu_ms += u128::from(self.available) * u128::from((t - self.since).0);
            self.since = t;
        }
    }
}

impl MetricSink for ClusterLog {
    /// Rounds carry nothing the cluster log needs.
    fn on_rounds(&mut self, _: &blox_core::RoundStretch) {}

    fn on_event(&mut self, event: &Event<'_>) {
        match *event {
            Event::NodeChanged {
                time,
                available_gpus,
                ..
            } => {
                self.advance(time);
                self.available = available_gpus;
                self.node_events += 1;
            }
            Event::Failed { lost_gpu_s, .. } => {
                self.failures_hit += 1;
                self.lost_gpu_s += lost_gpu_s;
            }
            Event::End { time } => self.end = Some(time),
            _ => {}
        }
    }
}
