use crate::policy::blox_srtf_key;
use blox_core::order::{order_by_key, KeyBuf};
use blox_core::{ConfigError, ConstantSpeed, Ctx, Schedule, SchedulingPolicy};

/// The speed table of Blox's Optimus at the EuroSys'24 artifact commit (`0ab0cff`), keyed by the
/// workload's load in jobs per hour: progress per round is multiplied by this factor.
pub const BLOX_OPTIMUS_SPEEDUP: [(u32, f64); 9] = [
    (1, 5.0),
    (2, 3.0),
    (3, 1.4),
    (4, 1.2),
    (5, 1.1),
    (6, 1.0),
    (7, 1.0),
    (8, 1.0),
    (9, 1.0),
];

/// Blox's Optimus, as its public code behaves: SRTF order plus a per-load progress speed-up.
///
/// Blox's `schedulers/optimus.py` orders jobs exactly like SRTF (remaining = work − attained
/// wall-clock service) and its simulator multiplies each round's progress by a hard-coded factor
/// looked up by load ([`BLOX_OPTIMUS_SPEEDUP`]). Attained service still grows by one round per
/// round, so the key overstates the remaining time. Pair the policy with
/// [`BloxOptimus::throughput_model`] to reproduce it. Loads outside the table are an error, as
/// they are a crash in Blox. (The marginal-gain Optimus of the EuroSys'18 paper is a different
/// policy.)
///
/// Ties: lowest id. Cost per round: O(n log n).
#[derive(Clone, Debug)]
pub struct BloxOptimus {
    factor: f64,
    buf: KeyBuf,
}

impl BloxOptimus {
    /// Blox's Optimus at `load` jobs per hour (1, 2, …, 9).
    pub fn new(load: f64) -> Result<Self, ConfigError> {
        let factor = BLOX_OPTIMUS_SPEEDUP
            .iter()
            .find(|&&(l, _)| f64::from(l) == load)
            .map(|&(_, f)| f)
            .ok_or_else(|| {
                ConfigError::new(format!(
                    "Blox's Optimus has no speed-up for load {load}: its artifact table covers \
                     loads 1, 2, 3, 4, 5, 6, 7, 8 and 9 jobs/hour only"
                ))
            })?;
        Ok(BloxOptimus {
            factor,
            buf: KeyBuf::new(),
        })
    }

    /// The progress factor for this load.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// The throughput model that applies the speed-up: a constant speed of [`Self::factor`].
    pub fn throughput_model(&self) -> ConstantSpeed {
        ConstantSpeed(self.factor)
    }
}

impl SchedulingPolicy for BloxOptimus {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, blox_srtf_key);
    }

    fn name(&self) -> String {
        "optimus".into()
    }
}
