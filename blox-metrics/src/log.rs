use blox_core::{Event, JobId, MetricSink, RoundSample, Time};
use std::sync::Arc;

/// What happened to one job.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct JobRecord {
    /// Arrival sequence number.
    pub seq: u64,
    /// Admission-order id, once admitted.
    pub id: Option<JobId>,
    /// Submission time.
    pub arrival: Time,
    /// GPUs requested.
    pub n_gpus: u32,
    /// Service demand in seconds at full speed.
    pub work_s: f64,
    /// Model name, if known.
    pub model: Option<Arc<str>>,
    /// Name in the source trace, if any.
    pub source_id: Option<Arc<str>>,
    /// When it was admitted.
    pub admitted: Option<Time>,
    /// Whether admission rejected it.
    pub rejected: bool,
    /// First start.
    pub first_start: Option<Time>,
    /// First progress (the responsiveness point).
    pub first_progress: Option<Time>,
    /// Completion.
    pub completion: Option<Time>,
    /// Preemptions counted.
    pub preemptions: u32,
    /// Times a failure interrupted it (it was requeued each time).
    pub failures: u32,
    /// GPU-seconds of its work thrown away by failures.
    pub lost_gpu_s: f64,
}

impl JobRecord {
    /// Job completion time: completion − arrival.
    pub fn jct(&self) -> Option<Time> {
        self.completion.map(|c| c.saturating_sub(self.arrival))
    }

    /// Responsiveness: first progress − arrival.
    pub fn responsiveness(&self) -> Option<Time> {
        self.first_progress.map(|c| c.saturating_sub(self.arrival))
    }
}

/// Records one [`JobRecord`] per arrived job.
#[derive(Clone, Debug, Default)]
pub struct JobLog {
    records: Vec<JobRecord>,
    by_id: Vec<u64>,
}

impl JobLog {
    /// Every arrived job, in arrival order.
    pub fn records(&self) -> &[JobRecord] {
        &self.records
    }

    /// Admitted jobs in id order.
    pub fn admitted(&self) -> impl Iterator<Item = &JobRecord> + '_ {
        self.by_id.iter().map(|&seq| &self.records[seq as usize])
    }

    /// The record of an admitted job.
    pub fn get(&self, id: JobId) -> Option<&JobRecord> {
        self.by_id
            .get(id.index())
            .map(|&seq| &self.records[seq as usize])
    }

    /// Admitted jobs whose id lies in `window` (inclusive), or every admitted job without one,
    /// in id order: the jobs every statistic of this crate is computed over.
    pub fn tracked(&self, window: Option<(JobId, JobId)>) -> impl Iterator<Item = &JobRecord> + '_ {
        self.admitted().filter(move |r| {
            window.map_or(true, |(a, b)| r.id.is_some_and(|id| id >= a && id <= b))
        })
    }

    /// JCTs in seconds of the tracked jobs that completed, in id order: the input of
    /// [`crate::plot_jct_cdf`] and [`crate::write_jct_cdf_csv`].
    pub fn jcts_s(&self, window: Option<(JobId, JobId)>) -> Vec<f64> {
        self.tracked(window)
            .filter_map(JobRecord::jct)
            .map(|t| t.as_secs_f64())
            .collect()
    }

    fn by_job(&mut self, id: JobId) -> Option<&mut JobRecord> {
        let seq = *self.by_id.get(id.index())?;
        self.records.get_mut(seq as usize)
    }
}

impl MetricSink for JobLog {
    fn on_event(&mut self, event: &Event<'_>) {
        match *event {
            Event::Arrived { seq, spec, .. } => {
                debug_assert_eq!(seq as usize, self.records.len());
                self.records.push(JobRecord {
                    seq,
                    arrival: spec.arrival,
                    n_gpus: spec.n_gpus,
                    work_s: spec.work_s,
                    model: spec.model.clone(),
                    source_id: spec.source_id.clone(),
                    ..JobRecord::default()
                });
            }
            Event::Admitted { time, seq, job } => {
                if let Some(r) = self.records.get_mut(seq as usize) {
                    r.id = Some(job);
                    r.admitted = Some(time);
                }
                debug_assert_eq!(job.index(), self.by_id.len());
                self.by_id.push(seq);
            }
            Event::Rejected { seq, .. } => {
                if let Some(r) = self.records.get_mut(seq as usize) {
                    r.rejected = true;
                }
            }
            Event::Started { time, job, .. } => {
                if let Some(r) = self.by_job(job) {
                    r.first_start.get_or_insert(time);
                }
            }
            Event::Preempted { job, counted, .. } => {
                if let Some(r) = self.by_job(job) {
                    r.preemptions += u32::from(counted);
                }
            }
            Event::Failed {
                job, lost_gpu_s, ..
            } => {
                if let Some(r) = self.by_job(job) {
                    r.failures += 1;
                    r.lost_gpu_s += lost_gpu_s;
                }
            }
            Event::FirstProgress { time, job } => {
                if let Some(r) = self.by_job(job) {
                    r.first_progress.get_or_insert(time);
                }
            }
            Event::Completed { time, job } => {
                if let Some(r) = self.by_job(job) {
                    r.completion = Some(time);
                }
            }
            _ => {}
        }
    }
}

/// Records the once-per-round samples.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    samples: Vec<RoundSample>,
}

impl Timeline {
    /// The samples, in time order.
    pub fn samples(&self) -> &[RoundSample] {
        &self.samples
    }
}

impl MetricSink for Timeline {
    fn on_event(&mut self, event: &Event<'_>) {
        if let Event::Round(s) = event {
            self.samples.push(*s);
        }
    }
}
