//! Finish-time fairness (Themis, NSDI 2020): ρ = shared JCT ÷ isolated JCT per job.

use crate::stats::{jain_index, mean};
use crate::{JobLog, JobRecord};
use blox_core::{JobId, Time};
use serde::Serialize;
use std::io::{self, Write};

/// One job's finish-time fairness.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct JobFairness {
    /// The job.
    pub id: JobId,
    /// GPUs it asked for.
    pub n_gpus: u32,
    /// Its JCT in the shared cluster (completion − arrival), seconds.
    pub jct_s: f64,
    /// Its JCT alone on its requested GPUs, seconds, rounded up to the engine's millisecond.
    pub isolated_s: f64,
    /// `jct_s / isolated_s`: 1 means the job finished as fast as if it had its GPUs to itself;
    /// above 1 it was slowed down by sharing.
    pub rho: f64,
}

/// Finish-time fairness of every tracked, completed job.
///
/// A job is included when it is tracked, completed, and has a positive, finite isolated JCT.
/// The isolated JCT is rounded up to a whole millisecond before dividing, as the engine rounds a
/// finish time, so a job that never waited in `exact` semantics has ρ = 1 exactly rather than
/// 1 + rounding. (In `blox` semantics completions fall on round boundaries, so even an
/// unhindered job usually has ρ slightly above 1.)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fairness {
    jobs: Vec<JobFairness>,
}

/// Aggregate finish-time fairness over a run, as reported in the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FairnessStats {
    /// Jobs with a ρ.
    pub n: u64,
    /// Mean ρ.
    pub mean_rho: f64,
    /// Largest ρ (the worst-treated job).
    pub worst_rho: f64,
    /// Fraction of jobs with ρ > 1 (strictly).
    pub frac_rho_above_1: f64,
    /// Jain's fairness index of the ρ values ([`crate::jain_index`]): 1 when every job was slowed
    /// by the same factor.
    pub jain_rho: f64,
}

impl Fairness {
    /// ρ with the isolated JCT given by `isolated` (seconds; `None`, non-finite or non-positive
    /// means "unknown", and the job is left out). Use this with a placement-aware model of how
    /// fast the job runs alone.
    pub fn compute(
        log: &JobLog,
        window: Option<(JobId, JobId)>,
        mut isolated: impl FnMut(&JobRecord) -> Option<f64>,
    ) -> Fairness {
        let jobs = log
            .tracked(window)
            .filter_map(|r| {
                let id = r.id?;
                let jct = r.jct()?;
                let iso = isolated(r).filter(|x| x.is_finite() && *x > 0.0)?;
                let iso = Time::from_secs_f64_ceil(iso)?.as_millis().max(1);
                Some(JobFairness {
                    id,
                    n_gpus: r.n_gpus,
                    jct_s: jct.as_secs_f64(),
                    isolated_s: Time::from_millis(iso).as_secs_f64(),
                    rho: jct.as_millis() as f64 / iso as f64,
                })
            })
            .collect();
        Fairness { jobs }
    }

    /// ρ with the isolated JCT taken as the job's service demand `work_s`, which is by
    /// definition its run time on its requested GPUs at full speed.
    pub fn by_work(log: &JobLog, window: Option<(JobId, JobId)>) -> Fairness {
        Self::compute(log, window, |r| Some(r.work_s))
    }

    /// The included jobs, in id order.
    pub fn jobs(&self) -> &[JobFairness] {
        &self.jobs
    }

    /// Worst ρ, mean ρ, the fraction above 1 and Jain's index. All zero when no job is included.
    pub fn stats(&self) -> FairnessStats {
        let rhos: Vec<f64> = self.jobs.iter().map(|j| j.rho).collect();
        if rhos.is_empty() {
            return FairnessStats::default();
        }
        let above = rhos.iter().filter(|&&r| r > 1.0).count();
        FairnessStats {
            n: rhos.len() as u64,
            mean_rho: mean(&rhos),
            worst_rho: rhos.iter().copied().fold(f64::MIN, f64::max),
            frac_rho_above_1: above as f64 / rhos.len() as f64,
            jain_rho: jain_index(&rhos),
        }
    }
}

/// Header of `fairness.csv`.
pub const FAIRNESS_CSV_HEADER: &str = "job_id,n_gpus,jct_s,isolated_s,rho";

/// Write `fairness.csv`: one row per job with a ρ, in id order. Columns: `job_id`, `n_gpus`
/// (requested), `jct_s` (shared JCT, seconds), `isolated_s` (JCT alone on its requested GPUs,
/// seconds, rounded up to the millisecond), `rho` (`jct_s / isolated_s`, printed so that it
/// round-trips).
pub fn write_fairness_csv(out: &mut impl Write, fairness: &Fairness) -> io::Result<()> {
    writeln!(out, "{FAIRNESS_CSV_HEADER}")?;
    for j in fairness.jobs() {
        writeln!(
            out,
            "{},{},{},{},{:?}",
            j.id, j.n_gpus, j.jct_s, j.isolated_s, j.rho
        )?;
    }
    Ok(())
}
