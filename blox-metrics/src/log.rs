use blox_core::{Cluster, Event, GpuId, JobId, MetricSink, RoundSample, RoundStretch, Time};
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
    /// The GPU types it ran on, as a bit set over the cluster's type ids (bit k = type k);
    /// recorded only by a log built with [`JobLog::with_cluster`].
    pub gpu_type_bits: u64,
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
    /// Type id of each GPU (by [`GpuId`] index), when built [`JobLog::with_cluster`].
    gpu_type: Vec<u8>,
    /// Type names by type id.
    type_names: Vec<String>,
}

impl JobLog {
    /// A log that also records which GPU types each job ran on (the `gpu_types` column of
    /// `jobs.csv`), for `cluster`'s GPUs (at most 64 types are told apart).
    pub fn with_cluster(cluster: &Cluster) -> Self {
        let n = cluster.spec().total_gpus();
        let gpu_type = (0..n)
            .map(|g| cluster.gpu_type(GpuId(g)).0.min(63) as u8)
            .collect();
        let type_names = (0..cluster.n_gpu_types())
            .map(|t| {
                cluster
                    .gpu_type_name(blox_core::GpuTypeId(t as u32))
                    .to_owned()
            })
            .collect();
        JobLog {
            gpu_type,
            type_names,
            ..JobLog::default()
        }
    }

    /// The names of the GPU types `r` ran on, in type-id order (empty if it never started, or
    /// the log was not built [`JobLog::with_cluster`]).
    pub fn gpu_type_names<'a>(&'a self, r: &JobRecord) -> impl Iterator<Item = &'a str> + use<'a> {
        let bits = r.gpu_type_bits;
        self.type_names
            .iter()
            .enumerate()
            .filter(move |(k, _)| bits >> k & 1 == 1)
            .map(|(_, n)| n.as_str())
    }

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
    /// Rounds carry nothing a job record needs.
    fn on_rounds(&mut self, _: &RoundStretch) {}

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
            Event::Started {
                time, job, gpus, ..
            } => {
                let mut bits = 0u64;
                for g in gpus {
                    if let Some(&t) = self.gpu_type.get(g.index()) {
                        bits |= 1 << t;
                    }
                }
                if let Some(r) = self.by_job(job) {
                    r.first_start.get_or_insert(time);
                    r.gpu_type_bits |= bits;
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

/// Records the once-per-round samples, with rounds the engine skipped kept as stretches.
///
/// A stretch of skipped rounds (the state unchanged, reported through
/// [`MetricSink::on_rounds`]) is one stored entry, however many rounds it spans. So is a run of
/// processed rounds whose samples are equal but for their time, evenly spaced and with no
/// preemption: a time model that decides every round (Synergy's, the real-mode server) while
/// nothing changes adds a round to the run's stretch, not an entry. Memory grows with the
/// rounds at which something changed, not with time: one job of 10^9 s at one-second rounds is
/// a handful of entries under every time model. Merging is lossless: [`Timeline::rounds`]
/// expands every round, the same rounds as without it, when a caller wants them one by one; the
/// statistics ([`crate::TimelineStats`], to the bit as over every round), the plot and
/// `timeline.csv` read the stretches directly.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// One sample per entry: a processed round's, or a stretch's first.
    samples: Vec<RoundSample>,
    /// The entries that stand for more than one round, by ascending entry index:
    /// `(index into samples, step, count)`.
    stretches: Vec<(usize, Time, u64)>,
    /// Rounds recorded, stretches counted in full.
    rounds: u64,
}

impl Timeline {
    /// The stored entries in time order, each as a stretch: a processed round is a stretch of
    /// one ([`RoundStretch::single`]). O(entries) to walk.
    pub fn stretches(&self) -> impl Iterator<Item = RoundStretch> + Clone + '_ {
        let mut next = self.stretches.iter().peekable();
        self.samples.iter().enumerate().map(move |(i, s)| {
            match next.next_if(|(at, _, _)| *at == i) {
                Some(&(_, step, count)) => RoundStretch::new(*s, step, count),
                None => RoundStretch::single(*s),
            }
        })
    }

    /// Every round's sample in time order, stretches expanded (O(rounds) to walk, nothing is
    /// allocated).
    pub fn rounds(&self) -> impl Iterator<Item = RoundSample> + '_ {
        self.stretches()
            .flat_map(|st| (0..st.count).map(move |k| st.sample(k)))
    }

    /// Rounds recorded, each round of a stretch counted.
    pub fn round_count(&self) -> u64 {
        self.rounds
    }

    /// Entries stored (processed rounds plus stretches): what the timeline's memory grows
    /// with.
    pub fn stored_len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no round was recorded.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

impl Timeline {
    /// Append `count` rounds from `first`, `step` apart (a single round: `count` 1, any step):
    /// an extension of the last entry when they continue it, else a new entry.
    fn append(&mut self, first: RoundSample, step: Time, count: u64) {
        if count == 0 {
            return;
        }
        self.rounds += count;
        if !self.extend_last(first, step, count) {
            if count > 1 {
                self.stretches.push((self.samples.len(), step, count));
            }
            self.samples.push(first);
        }
    }

    /// Extend the last entry by these rounds if they continue it: the same values, no
    /// preemption, and the entry's spacing (a single entry takes the gap to `first` as its
    /// step). Whether it did.
    fn extend_last(&mut self, first: RoundSample, step: Time, count: u64) -> bool {
        let n = self.samples.len();
        let Some(&last) = self.samples.last() else {
            return false;
        };
        let mut at_last = first;
        at_last.time = last.time;
        if first.preemptions > 0 || at_last != last {
            return false;
        }
        match self.stretches.last_mut().filter(|(at, _, _)| *at + 1 == n) {
            Some((_, s, c)) => {
                let next = RoundStretch::new(last, *s, *c).time_of(*c);
                let continues = (count == 1 || step == *s) && first.time == next;
                if continues {
                    *c += count;
                }
                continues
            }
            None => {
                let gap = first.time.as_millis().saturating_sub(last.time.as_millis());
                let continues = gap > 0 && (count == 1 || step.as_millis() == gap);
                if continues {
                    self.stretches.push((n - 1, Time(gap), count + 1));
                }
                continues
            }
        }
    }
}

impl MetricSink for Timeline {
    fn on_event(&mut self, event: &Event<'_>) {
        if let Event::Round(s) = event {
            self.append(*s, Time::ZERO, 1);
        }
    }

    fn on_rounds(&mut self, stretch: &RoundStretch) {
        self.append(stretch.first, stretch.step, stretch.count);
    }
}
