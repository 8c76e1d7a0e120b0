//! What a component sees when it is called: [`Ctx`].

use crate::cluster::Cluster;
use crate::job::JobTable;
use crate::time::Time;

/// Read-only context handed to every component call: the time, the cluster and the job table.
///
/// Components cannot change anything through it; they return decisions as data.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Ctx<'a> {
    /// The current round's time.
    pub now: Time,
    /// The round number (0, 1, …); `now = round × round_len` in round-driven runs.
    pub round: u64,
    /// The round length.
    pub round_len: Time,
    /// The live cluster.
    pub cluster: &'a Cluster,
    /// The active jobs, in id order.
    pub jobs: &'a JobTable,
}

impl<'a> Ctx<'a> {
    /// Engine-side constructor.
    pub fn new(
        now: Time,
        round: u64,
        round_len: Time,
        cluster: &'a Cluster,
        jobs: &'a JobTable,
    ) -> Self {
        Ctx {
            now,
            round,
            round_len,
            cluster,
            jobs,
        }
    }
}
