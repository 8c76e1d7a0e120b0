//! Integer simulated time.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, or a span of it, in whole **milliseconds** since the start of the
/// run.
///
/// Time in the engine is an integer so that equal times compare equal and runs are bit-for-bit
/// reproducible. A millisecond is fine enough for deep-learning jobs (minutes to weeks) and an
/// `u64` of them spans 584 million years.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

impl Time {
    /// Time zero, the start of every run.
    pub const ZERO: Time = Time(0);
    /// The largest representable time, used as "never".
    pub const MAX: Time = Time(u64::MAX);
    /// Milliseconds in one second.
    pub const MS_PER_S: u64 = 1000;

    /// Whole seconds.
    pub const fn from_secs(s: u64) -> Time {
        Time(s * Self::MS_PER_S)
    }

    /// Milliseconds.
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms)
    }

    /// Fractional seconds, rounded **up** to the next millisecond (a job never finishes early).
    /// Returns `None` for negative, NaN or out-of-range input.
    pub fn from_secs_f64_ceil(s: f64) -> Option<Time> {
        if s.is_nan() || s < 0.0 || !s.is_finite() {
            return None;
        }
        let ms = (s * Self::MS_PER_S as f64).ceil();
        if ms >= u64::MAX as f64 {
            return None;
        }
        Some(Time(ms as u64))
    }

    /// Milliseconds since the start.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Seconds as a float (exact for any time under 2^53 ms).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::MS_PER_S as f64
    }

    /// Whole seconds, rounded down.
    pub const fn as_secs(self) -> u64 {
        self.0 / Self::MS_PER_S
    }

    /// `self - other`, or zero if `other` is later.
    pub const fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }

    /// The first multiple of `step` at or after `self` (`⌈self/step⌉·step`). `step` must be
    /// non-zero.
    pub const fn ceil_to(self, step: Time) -> Time {
        Time(self.0.div_ceil(step.0) * step.0)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0 + rhs.0)
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 += rhs.0;
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}

/// Formats as seconds with at most three decimals and no trailing zeros: `4800`, `35424.348`,
/// `1.5`. This is the form every output file uses, so it is deterministic and round-trips.
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0 / Self::MS_PER_S;
        let ms = self.0 % Self::MS_PER_S;
        if ms == 0 {
            write!(f, "{s}")
        } else if ms % 100 == 0 {
            write!(f, "{s}.{}", ms / 100)
        } else if ms % 10 == 0 {
            write!(f, "{s}.{:02}", ms / 10)
        } else {
            write!(f, "{s}.{ms:03}")
        }
    }
}
