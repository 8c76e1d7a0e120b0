//! A job as Tiresias' simulator keeps it (TIRESIAS-SEMANTICS.md §3; `jobs.py: add_job`,
//! `move_to_runnable`): integer seconds, wall-clock progress, no speed model.

/// Whether a runnable job holds GPUs after the last scheduling pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerStatus {
    /// Waiting (never started, or preempted).
    Pending,
    /// Running since the last pass.
    Running,
}

/// One job's state in Tiresias' event loops. Times are integer seconds, as in the original;
/// they are signed because the original's arithmetic is (a mis-predicted queue jump can, in
/// corner cases, lie before the current event, and the original then credits a negative gap).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PeerJob {
    /// GPUs requested (`num_gpu`).
    pub num_gpu: i64,
    /// Submission time (`submit_time`).
    pub submit_time: i64,
    /// Run time in seconds (`duration`, already truncated toward zero).
    pub duration: i64,
    /// Pending or running.
    pub status: PeerStatus,
    /// First start, once started.
    pub start_time: Option<i64>,
    /// Wall seconds run so far (`total_executed_time`): the job's progress.
    pub total_executed_time: i64,
    /// Wall seconds run for the queue (`executed_time`); equal to the above here, as no scheme
    /// in scope promotes.
    pub executed_time: i64,
    /// Time of the last update (`last_check_time`); the submission time on arrival.
    pub last_check_time: i64,
    /// Seconds spent waiting (`pending_time`).
    pub pending_time: i64,
    /// `duration − total_executed_time` as of the last update (single-list loops).
    pub remaining_time: i64,
    /// `remaining_time × num_gpu` (`shortest-gpu`).
    pub remaining_gputime: i64,
    /// Queue index (2D-LAS).
    pub q_id: usize,
    /// Gittins index (`dlas-gpu-gittins`).
    pub rank: f64,
    /// Times preempted.
    pub preempt: u32,
    /// Times started or resumed.
    pub resume: u32,
}

impl PeerJob {
    /// A job entering the runnable list at its submission (`move_to_runnable`): pending, no
    /// progress, `remaining_time = duration`.
    pub fn new(num_gpu: i64, submit_time: i64, duration: i64) -> Self {
        PeerJob {
            num_gpu,
            submit_time,
            duration,
            status: PeerStatus::Pending,
            start_time: None,
            total_executed_time: 0,
            executed_time: 0,
            last_check_time: submit_time,
            pending_time: 0,
            remaining_time: duration,
            remaining_gputime: duration * num_gpu,
            q_id: 0,
            rank: 0.0,
            preempt: 0,
            resume: 0,
        }
    }

    /// Whether the job runs.
    pub fn is_running(&self) -> bool {
        self.status == PeerStatus::Running
    }

    /// Credit the time since the last update at `now` (`int(now − last_check_time)`): to
    /// progress if running, to waiting if pending.
    pub fn credit(&mut self, now: i64) {
        let gap = now - self.last_check_time;
        match self.status {
            PeerStatus::Running => {
                self.total_executed_time += gap;
                self.executed_time += gap;
            }
            PeerStatus::Pending => self.pending_time += gap,
        }
        self.last_check_time = now;
    }

    /// A pending job is started by a pass at `now`.
    pub fn start(&mut self, now: i64) {
        self.status = PeerStatus::Running;
        self.resume += 1;
        self.start_time.get_or_insert(now);
    }

    /// A running job is stopped by a pass.
    pub fn preempt(&mut self) {
        self.status = PeerStatus::Pending;
        self.preempt += 1;
    }
}
