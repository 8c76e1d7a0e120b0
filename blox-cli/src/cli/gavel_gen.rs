//! The flags of Gavel's generated-jobs mode (`--semantics gavel --workload gavel-generated`) and
//! the run they describe (`blox_scenario::gavel_generated`).

use super::ScenarioArgs;
use blox_scenario::gavel_generated::{
    parse_window, ArrivalSetting, GavelGeneratedRun, WORKLOAD_NAME,
};
use blox_scenario::Setting;
use blox_sim::SimError;
use clap::Args;
use std::path::PathBuf;

/// Gavel's generated-jobs mode (`run` and `compare` with `--semantics gavel --workload
/// gavel-generated`).
#[derive(Args, Default)]
pub(super) struct GavelGenArgs {
    /// Gavel generated jobs: mean inter-arrival time in seconds, an exact float (Gavel's `-l`;
    /// 0 = every job at t = 0, static mode, with --jobs N).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = super::seconds, conflicts_with = "rate")]
    lambda: Option<f64>,
    /// Gavel generated jobs: arrival rate in jobs per hour; the mean inter-arrival time is
    /// 3600/rate, computed as Gavel's sweeps compute it.
    #[arg(long, value_name = "JOBS_PER_HOUR", allow_negative_numbers = true, value_parser = super::rate)]
    rate: Option<f64>,
    /// Gavel generated jobs: multi-GPU jobs (Gavel's `--generate-multi-gpu-jobs`).
    #[arg(long)]
    multi_gpu: bool,
    /// Gavel generated jobs: 20 % of jobs get priority weight 5
    /// (`--generate-multi-priority-jobs`).
    #[arg(long)]
    priorities: bool,
    /// Gavel generated jobs: fill the cluster with jobs at t = 0 first
    /// (`--simulate-steady-state`).
    #[arg(long)]
    steady_state: bool,
    /// Gavel generated jobs: every job lasts this long on V100s instead of a drawn duration
    /// (Gavel's `-f`).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = super::limit_secs)]
    fixed_duration: Option<f64>,
}

impl GavelGenArgs {
    /// The settings given.
    pub(super) fn given(&self) -> Vec<Setting> {
        [
            (Setting::Lambda, self.lambda.is_some()),
            (Setting::Rate, self.rate.is_some()),
            (Setting::MultiGpu, self.multi_gpu),
            (Setting::Priorities, self.priorities),
            (Setting::SteadyState, self.steady_state),
            (Setting::FixedDuration, self.fixed_duration.is_some()),
        ]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(s, _)| s)
        .collect()
    }
}

/// Whether the flags ask for the generated mode (`--workload gavel-generated`); any other
/// `--workload` is an error under --semantics gavel, and without it the generated mode's flags
/// are refused (trace mode).
pub(super) fn is_generated(sc: &ScenarioArgs, g: &GavelGenArgs) -> Result<bool, SimError> {
    match sc.workload.as_deref() {
        Some(w) if w.trim() == WORKLOAD_NAME => Ok(true),
        Some(w) => Err(SimError::Config(format!(
            "--workload {w}: under --semantics gavel the only workload is {WORKLOAD_NAME} \
             (Gavel's generated jobs); a Gavel trace is read with --trace"
        ))),
        None => {
            let mut flags: Vec<&str> = g.given().iter().map(|s| s.flag()).collect();
            if sc.jobs.is_some() {
                flags.push("--jobs");
            }
            if sc.track.is_some() {
                flags.push("--track");
            }
            if flags.is_empty() {
                Ok(false)
            } else {
                Err(SimError::Config(format!(
                    "{} {} Gavel's generated-jobs mode: add --workload {WORKLOAD_NAME} (a Gavel \
                     trace run takes --trace, --throughputs, --cluster, --round, --seed)",
                    flags.join(", "),
                    if flags.len() == 1 {
                        "belongs to"
                    } else {
                        "belong to"
                    }
                )))
            }
        }
    }
}

/// The generated-jobs run the flags describe.
pub(super) fn generated_run(
    sc: &ScenarioArgs,
    g: &GavelGenArgs,
    policy: String,
    out: Option<PathBuf>,
) -> Result<GavelGeneratedRun, SimError> {
    if sc.trace_format.is_some() {
        return Err(SimError::Config(format!(
            "--trace-format: --workload {WORKLOAD_NAME} reads no trace"
        )));
    }
    let arrivals = match (g.lambda, g.rate) {
        (Some(l), None) => ArrivalSetting::Lambda(l),
        (None, Some(r)) => ArrivalSetting::Rate(r),
        _ => {
            return Err(SimError::Config(format!(
                "--workload {WORKLOAD_NAME} needs --lambda SECONDS (mean inter-arrival time; 0 = \
                 all jobs at t = 0 with --jobs N) or --rate JOBS_PER_HOUR"
            )))
        }
    };
    let window = sc.track.as_deref().map(parse_window).transpose()?;
    let lambda = arrivals.lambda();
    if lambda > 0.0 && window.is_none() {
        return Err(SimError::Config(
            "--workload gavel-generated with arrivals needs --track FIRST..LAST (job ids, \
             inclusive; Gavel's -s FIRST -e LAST+1): the run ends when they have all completed"
                .into(),
        ));
    }
    if lambda > 0.0 && sc.jobs.is_some() {
        return Err(SimError::Config(
            "--jobs is static mode's job count (--lambda 0); with arrivals the run ends at the \
             --track window"
                .into(),
        ));
    }
    if lambda == 0.0 && sc.jobs.is_none() {
        return Err(SimError::Config(
            "--lambda 0 (every job at t = 0, Gavel's static mode) needs --jobs N".into(),
        ));
    }
    Ok(GavelGeneratedRun {
        throughputs: sc.throughputs.clone(),
        cluster: sc.cluster.clone().ok_or_else(|| {
            SimError::Config(
                "--semantics gavel needs --cluster, e.g. 36:36:36 (V100:P100:K80) or \
                 36x1:v100,36x1:p100,36x1:k80"
                    .into(),
            )
        })?,
        policy,
        arrivals,
        multi_gpu: g.multi_gpu,
        priorities: g.priorities,
        steady_state: g.steady_state,
        fixed_duration: g.fixed_duration,
        window,
        jobs: sc.jobs,
        seed: sc.seed.unwrap_or(0),
        round_s: sc.round.unwrap_or(360),
        out,
    })
}
