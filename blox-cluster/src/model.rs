//! What the server stores about a job: the submission as the user sent it ([`Submission`]) and
//! the loop's record of its life ([`RunRecord`]).

use blox_core::{JobSpec, Time};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// A job as submitted: a command, a GPU count, and optional facts about it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// The shell command each rank runs.
    pub command: String,
    /// GPUs the job needs (rigid).
    pub n_gpus: u32,
    /// Total training iterations, when known (passed to the job as `BLOX_TOTAL_ITERATIONS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_iterations: Option<u64>,
    /// Seconds per iteration, when known (passed as `BLOX_ITERATION_TIME_S`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration_time_s: Option<f64>,
    /// Expected run time on its GPUs, when known (otherwise iterations × iteration time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// CPU cores the whole job needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<f64>,
    /// Host memory the whole job needs, in GB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_gb: Option<f64>,
    /// A free-form name for listings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A submission that failed validation: which field, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The offending field (`body` for the document as a whole).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for FieldError {}

/// A number as an error shows it: plain, or in scientific notation when very large or small.
fn show(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-6..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn bad(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

const FIELDS: &[&str] = &[
    "command",
    "n_gpus",
    "total_iterations",
    "iteration_time_s",
    "duration_s",
    "model",
    "cpus",
    "mem_gb",
    "name",
];

/// The longest command accepted, in bytes. Each rank receives the command in one environment
/// variable, and Linux refuses (`Argument list too long`) any single variable over 128 KiB at
/// launch; 64 KiB leaves room for the rest of the launch's environment.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// The largest number of iterations accepted.
pub const MAX_ITERATIONS: u64 = 1_000_000_000_000;
/// The longest time accepted, in seconds (about 31.7 years): the bound of `iteration_time_s`,
/// `duration_s` and of the work they imply (`duration_s`, or iterations × iteration time).
pub const MAX_SECONDS: f64 = 1e9;
/// The most CPU cores a job may ask for.
pub const MAX_CPUS: f64 = 1e6;
/// The most host memory a job may ask for, in GB.
pub const MAX_MEM_GB: f64 = 1e6;
/// The longest `model` or `name`, in bytes.
pub const MAX_TEXT_BYTES: usize = 256;

impl Submission {
    /// Parse and validate a JSON body against a cluster of `total_gpus` GPUs. Every error names
    /// its field and, for a value out of bounds, the bounds (see [`Submission::check`]).
    pub fn from_json(body: &[u8], total_gpus: u32) -> Result<Submission, FieldError> {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| bad("body", format!("not valid JSON: {e}")))?;
        let Value::Object(map) = v else {
            return Err(bad("body", "expected a JSON object"));
        };
        if let Some(k) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(bad(
                k,
                format!("unknown field (expected one of: {})", FIELDS.join(", ")),
            ));
        }
        let command = match map.get("command") {
            None | Some(Value::Null) => return Err(bad("command", "missing")),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(bad("command", "must be a string")),
        };
        let n_gpus = match map.get("n_gpus") {
            None | Some(Value::Null) => return Err(bad("n_gpus", "missing")),
            Some(v) => v
                .as_u64()
                .filter(|&n| n >= 1 && n <= u64::from(u32::MAX))
                .ok_or_else(|| bad("n_gpus", "must be a whole number ≥ 1"))?,
        };
        if n_gpus > u64::from(total_gpus) {
            return Err(bad(
                "n_gpus",
                format!("{n_gpus} GPUs requested but the cluster has {total_gpus}"),
            ));
        }
        let total_iterations = match map.get("total_iterations") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().filter(|&n| n >= 1).ok_or_else(|| {
                bad(
                    "total_iterations",
                    format!("must be a whole number in 1..={MAX_ITERATIONS}"),
                )
            })?),
        };
        let num = |k: &str| -> Result<Option<f64>, FieldError> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_f64()
                    .map(Some)
                    .ok_or_else(|| bad(k, "must be a number")),
            }
        };
        let text = |k: &str| -> Result<Option<String>, FieldError> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(k, "must be a string")),
            }
        };
        let sub = Submission {
            command,
            n_gpus: n_gpus as u32,
            total_iterations,
            iteration_time_s: num("iteration_time_s")?,
            duration_s: num("duration_s")?,
            model: text("model")?,
            cpus: num("cpus")?,
            mem_gb: num("mem_gb")?,
            name: text("name")?,
        };
        sub.check()?;
        Ok(sub)
    }

    /// Check every value against its bounds (the cluster's size aside): what the API enforces
    /// before anything is stored, and what the server checks again when it reads a stored
    /// submission back. The bounds, named in each error:
    ///
    /// | field | bounds |
    /// |---|---|
    /// | `command` | 1 to [`MAX_COMMAND_BYTES`] bytes, not blank, no NUL |
    /// | `n_gpus` | ≥ 1 (and at most the cluster's GPUs, checked by [`Submission::from_json`]) |
    /// | `total_iterations` | 1 to [`MAX_ITERATIONS`] |
    /// | `iteration_time_s` | a finite number in (0, [`MAX_SECONDS`]] |
    /// | `duration_s` | a finite number in [0, [`MAX_SECONDS`]] |
    /// | the work (`duration_s`, else iterations × iteration time) | at most [`MAX_SECONDS`] |
    /// | `cpus` | a finite number in (0, [`MAX_CPUS`]] |
    /// | `mem_gb` | a finite number in (0, [`MAX_MEM_GB`]] |
    /// | `model`, `name` | one line of at most [`MAX_TEXT_BYTES`] bytes, no NUL |
    pub fn check(&self) -> Result<(), FieldError> {
        let c = &self.command;
        if c.trim().is_empty() {
            return Err(bad("command", "must not be empty"));
        }
        if c.contains('\0') {
            return Err(bad("command", "must not contain NUL"));
        }
        if c.len() > MAX_COMMAND_BYTES {
            return Err(bad(
                "command",
                format!(
                    "{} bytes is over the limit of {MAX_COMMAND_BYTES} bytes (each rank gets the \
                     command in one environment variable; put a long script in a file and run \
                     that)",
                    c.len()
                ),
            ));
        }
        if self.n_gpus == 0 {
            return Err(bad("n_gpus", "must be a whole number ≥ 1"));
        }
        if let Some(n) = self.total_iterations {
            if !(1..=MAX_ITERATIONS).contains(&n) {
                return Err(bad(
                    "total_iterations",
                    format!("{n} is not a whole number in 1..={MAX_ITERATIONS}"),
                ));
            }
        }
        let range = |k: &str, v: Option<f64>, zero_ok: bool, max: f64, unit: &str| {
            let Some(x) = v else { return Ok(()) };
            let low_ok = x > 0.0 || (zero_ok && x == 0.0);
            if x.is_finite() && low_ok && x <= max {
                return Ok(());
            }
            let open = if zero_ok { '[' } else { '(' };
            Err(bad(
                k,
                format!(
                    "{} is not a finite number in {open}0, {max:e}]{unit}",
                    show(x)
                ),
            ))
        };
        range(
            "iteration_time_s",
            self.iteration_time_s,
            false,
            MAX_SECONDS,
            " seconds",
        )?;
        range("duration_s", self.duration_s, true, MAX_SECONDS, " seconds")?;
        range("cpus", self.cpus, false, MAX_CPUS, " cores")?;
        range("mem_gb", self.mem_gb, false, MAX_MEM_GB, " GB")?;
        if self.duration_s.is_none() {
            if let (Some(n), Some(t)) = (self.total_iterations, self.iteration_time_s) {
                let work = n as f64 * t;
                if !work.is_finite() || work > MAX_SECONDS {
                    return Err(bad(
                        "iteration_time_s",
                        format!(
                            "total_iterations × iteration_time_s = {n} × {} = {} s is over \
                             the limit of {MAX_SECONDS:e} s of work",
                            show(t),
                            show(work)
                        ),
                    ));
                }
            }
        }
        for (k, v) in [("model", &self.model), ("name", &self.name)] {
            if let Some(s) = v {
                if s.len() > MAX_TEXT_BYTES || s.contains(['\0', '\n']) {
                    return Err(bad(
                        k,
                        format!("must be one line of at most {MAX_TEXT_BYTES} bytes"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The service demand the scheduler sees: `duration_s`, else iterations × iteration time,
    /// else 0 (unknown).
    pub fn work_s(&self) -> f64 {
        match (
            self.duration_s,
            self.total_iterations,
            self.iteration_time_s,
        ) {
            (Some(d), _, _) => d,
            (None, Some(n), Some(t)) => n as f64 * t,
            _ => 0.0,
        }
    }

    /// The canonical job record, arriving at `arrival`.
    pub fn to_spec(&self, arrival: Time) -> JobSpec {
        let mut spec = JobSpec::new(arrival, self.n_gpus, self.work_s());
        spec.model = self.model.as_deref().map(Arc::from);
        spec.source_id = self.name.as_deref().map(Arc::from);
        spec.cpus = self.cpus;
        spec.mem_gb = self.mem_gb;
        spec
    }
}

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobState {
    /// Accepted by the API, not yet seen by the loop.
    Submitted,
    /// Arrived; waiting for admission.
    Queued,
    /// Admitted; waiting for GPUs.
    Waiting,
    /// Placed; its launch waits for the GPUs' previous holders to exit.
    Starting,
    /// Launched.
    Running,
    /// Asked to stop (preempted); its process has not exited yet.
    Stopping,
    /// Finished with exit code 0.
    Completed,
    /// Exited with an error.
    Failed,
    /// Cancelled by a user.
    Cancelled,
    /// Rejected by admission.
    Rejected,
}

impl JobState {
    /// The name used in the API and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Submitted => "submitted",
            JobState::Queued => "queued",
            JobState::Waiting => "waiting",
            JobState::Starting => "starting",
            JobState::Running => "running",
            JobState::Stopping => "stopping",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
            JobState::Rejected => "rejected",
        }
    }

    /// Parse a name written by [`JobState::as_str`].
    pub fn parse(s: &str) -> Option<JobState> {
        Some(match s {
            "submitted" => JobState::Submitted,
            "queued" => JobState::Queued,
            "waiting" => JobState::Waiting,
            "starting" => JobState::Starting,
            "running" => JobState::Running,
            "stopping" => JobState::Stopping,
            "completed" => JobState::Completed,
            "failed" => JobState::Failed,
            "cancelled" => JobState::Cancelled,
            "rejected" => JobState::Rejected,
            _ => return None,
        })
    }

    /// Whether the job's life is over.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            JobState::Completed | JobState::Failed | JobState::Cancelled | JobState::Rejected
        )
    }
}

/// A launch the executor is (or was, before a restart) running.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveRecord {
    /// Attempt number.
    pub attempt: u32,
    /// Global GPU ids it holds, in rank order.
    pub gpus: Vec<u32>,
    /// The executor's handle.
    pub handle: String,
    /// Whether it was asked to stop.
    pub stopping: bool,
}

/// The loop's record of a job, stored as JSON beside the submission.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRecord {
    /// Arrival sequence number.
    pub seq: Option<u64>,
    /// Admission-order id (Blox's `job_id`).
    pub blox_id: Option<u32>,
    /// When it was admitted (ms since the run's epoch).
    pub admitted_ms: Option<u64>,
    /// GPUs the placement gave it (global ids, rank order); empty when waiting.
    pub gpus: Vec<u32>,
    /// Work done, in seconds at full speed.
    pub executed: f64,
    /// Attained service in GPU-seconds.
    pub attained: f64,
    /// Attained service in wall-clock seconds (absent in state written before it was kept: then
    /// derived from `attained` over the requested GPUs on recovery).
    pub attained_wall: Option<f64>,
    /// Iterations reported.
    pub iterations: u64,
    /// Preemptions.
    pub preemptions: u32,
    /// Starvation class.
    pub priority: u32,
    /// Waiting time since last scheduled, ms.
    pub time_since_scheduled_ms: u64,
    /// First start (ms since epoch).
    pub first_start_ms: Option<u64>,
    /// Last start (ms since epoch).
    pub last_start_ms: Option<u64>,
    /// Launches made so far (the next attempt number).
    pub launches: u32,
    /// The live launch, if any.
    pub live: Option<LiveRecord>,
    /// How the last launch ended.
    pub exit_status: Option<String>,
    /// When it completed (ms since epoch).
    pub completion_ms: Option<u64>,
}
