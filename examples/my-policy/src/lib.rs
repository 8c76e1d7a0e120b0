//! A scheduling policy in its own crate, written against `blox-core` alone: shortest remaining
//! *service* first (remaining work × GPUs, the SRSF of the Tiresias paper), starved jobs first,
//! ties by the lowest id.
//!
//! ```
//! use blox_core::SchedulingPolicy;
//! assert_eq!(my_blox_policy::Srsf::default().name(), "srsf");
//! ```

use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Shortest remaining service first: ascending `(starvation class, remaining work × GPUs, id)`.
#[derive(Clone, Debug, Default)]
pub struct Srsf {
    keys: Vec<(u32, f64, blox_core::JobId, u32)>,
}

impl SchedulingPolicy for Srsf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        self.keys.clear();
        for j in ctx.jobs.iter() {
            let service = j.remaining_work() * f64::from(j.n_gpus());
            self.keys.push((j.priority, service, j.id, j.n_gpus()));
        }
        self.keys
            .sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        for &(_, _, id, n) in &self.keys {
            out.push(id, n);
        }
    }

    fn name(&self) -> String {
        "srsf".into()
    }
}
