//! [`RecordingSink`]: every event of a run, owned, for checkers and assertions.

use blox_core::{Event, JobId, MetricSink, RoundSample, Time};

/// An owned copy of an [`Event`].
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// A job arrived.
    Arrived {
        /// When.
        time: Time,
        /// Arrival sequence number.
        seq: u64,
        /// GPUs requested.
        n_gpus: u32,
        /// Submission time.
        arrival: Time,
    },
    /// A job was admitted.
    Admitted {
        /// When.
        time: Time,
        /// Arrival sequence number.
        seq: u64,
        /// Its id.
        job: JobId,
    },
    /// A job was rejected.
    Rejected {
        /// When.
        time: Time,
        /// Arrival sequence number.
        seq: u64,
    },
    /// A job started on GPUs.
    Started {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
        /// Its GPU ids.
        gpus: Vec<u32>,
    },
    /// A job was stopped.
    Preempted {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
    },
    /// A job completed.
    Completed {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
    },
    /// The round sample.
    Round(RoundSample),
    /// The run ended.
    End {
        /// When.
        time: Time,
    },
}

impl Recorded {
    /// The event's time.
    pub fn time(&self) -> Time {
        match self {
            Recorded::Arrived { time, .. }
            | Recorded::Admitted { time, .. }
            | Recorded::Rejected { time, .. }
            | Recorded::Started { time, .. }
            | Recorded::Preempted { time, .. }
            | Recorded::Completed { time, .. }
            | Recorded::End { time } => *time,
            Recorded::Round(s) => s.time,
        }
    }
}

/// Records every event of a run (except first-progress marks), in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordingSink {
    /// The events, in the order the engine reported them.
    pub events: Vec<Recorded>,
}

impl MetricSink for RecordingSink {
    fn on_event(&mut self, event: &Event<'_>) {
        let r = match *event {
            Event::Arrived { time, seq, spec } => Recorded::Arrived {
                time,
                seq,
                n_gpus: spec.n_gpus,
                arrival: spec.arrival,
            },
            Event::Admitted { time, seq, job } => Recorded::Admitted { time, seq, job },
            Event::Rejected { time, seq } => Recorded::Rejected { time, seq },
            Event::Started {
                time, job, gpus, ..
            } => Recorded::Started {
                time,
                job,
                gpus: gpus.iter().map(|g| g.0).collect(),
            },
            Event::Preempted { time, job, .. } => Recorded::Preempted { time, job },
            Event::Completed { time, job } => Recorded::Completed { time, job },
            Event::Round(s) => Recorded::Round(s),
            Event::End { time } => Recorded::End { time },
            _ => return,
        };
        self.events.push(r);
    }
}
