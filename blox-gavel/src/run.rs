//! Gavel's simulation as one call: the clock over Gavel's own mechanism ([`run_gavel`]), or
//! over any engine policy ([`run_gavel_engine`]).

use crate::clock::{
    lookup_throughputs, register_types, simulate, GavelError, GavelOutcome, GavelRounds,
    MicroTaskOutcome,
};
use crate::{Credit, EngineRounds, GavelMechanism, GavelPolicyKind, MechJob, Placement};
use blox_core::{SchedulingPolicy, ThroughputTable};
use blox_workload::{ColocatedThroughputs, GavelTraceJob};
use std::sync::Arc;

/// Gavel's mechanism as the `gavel` time model drives it.
#[derive(Clone, Debug)]
pub struct GavelPreset(pub GavelMechanism);

impl GavelRounds for GavelPreset {
    fn admit(&mut self, j: usize) {
        self.0.admit(j);
    }
    fn credit(&mut self, j: usize, w: usize, steps: u64, exec_s: f64) -> MicroTaskOutcome {
        match self.0.credit(j, w, steps, exec_s) {
            Credit::Progress => MicroTaskOutcome::Progress,
            Credit::Completed => MicroTaskOutcome::Completed,
            Credit::Failed => MicroTaskOutcome::Failed,
            Credit::Dropped => MicroTaskOutcome::Dropped,
        }
    }
    fn force_reset(&mut self) {
        self.0.force_reset();
    }
    fn plan_round(&mut self, clock: f64) -> Vec<(usize, usize)> {
        self.0.plan_round(clock)
    }
    fn done_steps(&self, j: usize) -> u64 {
        self.0.done_steps(j)
    }
    fn is_active(&self, j: usize) -> bool {
        self.0.is_active(j)
    }
    fn solves(&self) -> u64 {
        self.0.solves()
    }
    fn plan(&mut self, clock: f64) -> Vec<Placement> {
        self.0.plan_round_packed(clock)
    }
    fn credit_pair(
        &mut self,
        a: usize,
        b: usize,
        w: usize,
        steps: [u64; 2],
        exec_s: f64,
    ) -> [MicroTaskOutcome; 2] {
        // Trace step counts are far below 2^53.
        let out = self
            .0
            .credit_pair(a, b, w, [steps[0] as f64, steps[1] as f64], exec_s);
        out.map(|c| match c {
            Credit::Progress => MicroTaskOutcome::Progress,
            Credit::Completed => MicroTaskOutcome::Completed,
            Credit::Failed => MicroTaskOutcome::Failed,
            Credit::Dropped => MicroTaskOutcome::Dropped,
        })
    }
    fn fatal(&self) -> Option<String> {
        self.0.fatal().map(str::to_owned)
    }
}

/// Runs Gavel's simulation of `jobs` (trace order) with `table` on `cluster` (GPU type and
/// count; names case-insensitive), policy `policy`, round `round_s` and `seed`.
///
/// # Errors
///
/// Unknown GPU types, a job without a throughput entry (names its line), a job no round can
/// run.
pub fn run_gavel(
    jobs: &[GavelTraceJob],
    table: &ThroughputTable,
    cluster: &[(String, u32)],
    policy: GavelPolicyKind,
    round_s: f64,
    seed: u64,
) -> Result<GavelOutcome, GavelError> {
    run_gavel_colocated(jobs, table, None, cluster, policy, round_s, seed)
}

/// [`run_gavel`] with the table's co-located rates (`colocated`), which the `*_packed`
/// policies need.
///
/// # Errors
///
/// As [`run_gavel`]; a `*_packed` policy without `colocated`; a `*_packed` LP Gavel's HEAD
/// cannot build (mixed scale factors whose rows do not divide, GAVEL-GENERATED §G8.3).
pub fn run_gavel_colocated(
    jobs: &[GavelTraceJob],
    table: &ThroughputTable,
    colocated: Option<Arc<ColocatedThroughputs>>,
    cluster: &[(String, u32)],
    policy: GavelPolicyKind,
    round_s: f64,
    seed: u64,
) -> Result<GavelOutcome, GavelError> {
    let types = register_types(cluster)?;
    let gjobs = lookup_throughputs(jobs, table, &types)?;
    let mech_jobs = gjobs
        .iter()
        .zip(jobs)
        .map(|(j, t)| {
            MechJob::new(
                j.scale_factor,
                j.priority_weight,
                j.total_steps,
                j.arrival_s,
                j.throughput.clone(),
            )
            .with_job_type(t.job_type.clone())
        })
        .collect();
    let mut mech = GavelMechanism::new(policy, &types, round_s, seed, mech_jobs)
        .map_err(|e| GavelError::Config(e.to_string()))?;
    if policy.is_packed() {
        let c = colocated.ok_or_else(|| {
            GavelError::Config(format!(
                "{policy} needs the throughput table's co-located rates (Gavel's                  simulation_throughputs.json has them)"
            ))
        })?;
        mech = mech.with_colocated(c);
    }
    let mut preset = GavelPreset(mech);
    simulate(&gjobs, &types, round_s, &mut preset)
}

/// Runs Gavel's simulation clock of `jobs` (trace order) with `table` on `cluster`, round
/// `round_s` and `seed`, with the engine policy `policy` choosing each round's jobs
/// ([`EngineRounds`]: the fill, crediting and failure rules are in [`crate::any_policy`]'s docs).
///
/// # Errors
///
/// As [`run_gavel`].
pub fn run_gavel_engine<S: SchedulingPolicy>(
    jobs: &[GavelTraceJob],
    table: &ThroughputTable,
    cluster: &[(String, u32)],
    policy: S,
    round_s: f64,
    seed: u64,
) -> Result<GavelOutcome, GavelError> {
    let types = register_types(cluster)?;
    let gjobs = lookup_throughputs(jobs, table, &types)?;
    let mut rounds = EngineRounds::new(policy, jobs, &gjobs, &types, table, round_s, seed)
        .map_err(GavelError::Config)?;
    simulate(&gjobs, &types, round_s, &mut rounds)
}
