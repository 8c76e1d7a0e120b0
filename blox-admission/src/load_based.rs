use blox_core::{AdmissionPolicy, Admissions, ConfigError, Ctx, QueuedJob};

/// Blox's load-based admission (`LoadBasedAccept`): admits queued jobs, oldest first, while the
/// GPU demand of the job table stays within `factor × GPUs in service`.
///
/// Each round, with `cap = factor × available_gpus` (a float: 1.2 × 128 = 153.6) and `demand` the
/// GPUs requested by every job in the table (running and waiting):
///
/// ```text
/// added = 0
/// while demand + added <= cap and the queue is not empty: admit the front job, added += its GPUs
/// ```
///
/// The test comes **before** each admission, so the table can overshoot the cap by one job
/// (with 1-GPU jobs on 128 GPUs: 129, 154, 180 and 193 jobs at 1.0×, 1.2×, 1.4× and 1.5×). That
/// is the definition, under every time model. Jobs held in the queue keep their arrival time,
/// so the time they wait here counts in their JCT.
///
/// Cost per round: O(admitted). Ties: arrival order (strict FIFO; no back-filling).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadBased {
    factor: f64,
}

impl LoadBased {
    /// A threshold of `factor × GPUs in service` (all GPUs unless cluster events took some
    /// out); `factor` must be finite and positive.
    pub fn new(factor: f64) -> Result<Self, ConfigError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(ConfigError::new(format!(
                "load-based admission: factor `{factor}` must be a positive number (e.g. 1.2)"
            )));
        }
        Ok(LoadBased { factor })
    }

    /// The threshold factor.
    pub fn factor(&self) -> f64 {
        self.factor
    }
}

impl AdmissionPolicy for LoadBased {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        // GPUs in service: a drained or failed node takes its GPUs out of the threshold.
        let cap = self.factor * f64::from(ctx.cluster.available_gpus());
        let demand = ctx.jobs.gpu_demand();
        let mut added = 0u64;
        for (i, job) in queue.iter().enumerate() {
            if (demand + added) as f64 > cap {
                break;
            }
            out.admit.push(i);
            added += u64::from(job.spec.n_gpus);
        }
    }

    fn name(&self) -> String {
        format!("load-based:{}", self.factor)
    }
}
