use blox_core::{AdmissionPolicy, Admissions, ConfigError, Ctx, QueuedJob};

/// What [`QueueCap`] does with jobs beyond its limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Overflow {
    /// Keep them in the admission queue until there is room (their wait counts in JCT).
    #[default]
    Hold,
    /// Reject them for good.
    Reject,
}

/// Caps the number of **waiting** jobs in the job table: admits queued jobs, oldest first, while
/// fewer than `limit` admitted jobs are waiting (not running); the rest are held or rejected.
///
/// Running jobs do not count, so a cluster that keeps up admits everything. Cost per round:
/// O(n) to count waiting jobs. Ties: arrival order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueCap {
    limit: u32,
    overflow: Overflow,
}

impl QueueCap {
    /// At most `limit` waiting jobs (≥ 1); `overflow` says what happens to the others.
    pub fn new(limit: u32, overflow: Overflow) -> Result<Self, ConfigError> {
        if limit == 0 {
            return Err(ConfigError::new(
                "queue-cap admission: the limit must be at least 1",
            ));
        }
        Ok(QueueCap { limit, overflow })
    }
}

impl AdmissionPolicy for QueueCap {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        let waiting = ctx.jobs.iter().filter(|j| !j.is_running()).count() as u64;
        let room = u64::from(self.limit).saturating_sub(waiting) as usize;
        let n = room.min(queue.len());
        out.admit.extend(0..n);
        if self.overflow == Overflow::Reject {
            out.reject.extend(n..queue.len());
        }
    }

    fn name(&self) -> String {
        let mode = match self.overflow {
            Overflow::Hold => "hold",
            Overflow::Reject => "reject",
        };
        format!("queue-cap:limit={},mode={mode}", self.limit)
    }
}
