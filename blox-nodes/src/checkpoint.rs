//! Checkpointing in the job model: how much work a failure throws away.

use crate::NodeError;
use blox_core::Time;

/// How often running jobs checkpoint. A preemption or a drain always checkpoints (the job
/// stops gracefully); a failure loses the work since the last checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Checkpointing {
    /// Jobs checkpoint only when stopped gracefully: a failure loses everything since the job's
    /// last (re)start. The default.
    #[default]
    OnStop,
    /// Every this often since the last (re)start; zero: continuously, so a failure loses
    /// nothing.
    Every(Time),
}

impl Checkpointing {
    /// From `--checkpoint-interval SECONDS` (absent: [`Checkpointing::OnStop`]).
    pub fn from_secs(secs: Option<f64>) -> Result<Self, NodeError> {
        match secs {
            None => Ok(Checkpointing::OnStop),
            Some(s) => Time::from_secs_f64_ceil(s)
                .map(Checkpointing::Every)
                .ok_or_else(|| {
                    NodeError::flag(
                        "--checkpoint-interval",
                        format!("`{s}` is not a number of seconds ≥ 0"),
                    )
                }),
        }
    }

    /// The interval in seconds, as the flag takes it (`None`: on stop only).
    pub fn interval_s(self) -> Option<f64> {
        match self {
            Checkpointing::OnStop => None,
            Checkpointing::Every(t) => Some(t.as_secs_f64()),
        }
    }

    /// The last checkpoint at or before `now` of a job that (re)started at `start`.
    pub fn last_checkpoint(self, start: Time, now: Time) -> Time {
        if now <= start {
            return now;
        }
        match self {
            Checkpointing::OnStop => start,
            Checkpointing::Every(Time::ZERO) => now,
            Checkpointing::Every(c) => {
                let ran = (now - start).as_millis();
                start + Time(ran - ran % c.as_millis())
            }
        }
    }
}
