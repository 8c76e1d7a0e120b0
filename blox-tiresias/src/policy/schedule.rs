//! Tiresias' schedules by their own names, with their options (TIRESIAS-SEMANTICS.md §§4–6).

use super::gittins::TIRESIAS_GITTINS_DELTA;
use super::job::PeerJob;
use blox_core::{ComponentSpec, ConfigError};
use std::fmt;
use std::path::PathBuf;

/// The queue limits of the shipped code (`jobs.py: queue_limit`, the two used of
/// `[3250, 7200, 18000]`), in GPU-seconds (`dlas-gpu*`) or seconds (`dlas`).
pub const TIRESIAS_QUEUE_LIMITS: [i64; 2] = [3250, 7200];

/// A Tiresias schedule (`run_sim.py --schedule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerSchedule {
    /// `fifo`: arrival order, non-preemptive, strict head-of-line blocking.
    Fifo,
    /// `sjf`: **fewest GPUs first**, preemptive, back-filling.
    Sjf,
    /// `shortest`: shortest remaining time first (oracle), preemptive.
    Shortest,
    /// `shortest-gpu`: shortest remaining GPU time first (oracle), preemptive.
    ShortestGpu,
    /// `dlas`: discretised LAS on wall seconds.
    Dlas,
    /// `dlas-gpu`: discretised 2D-LAS on GPU-seconds.
    DlasGpu,
    /// `dlas-gpu-gittins`: `dlas-gpu` with each queue ordered by Gittins index.
    DlasGpuGittins,
}

impl PeerSchedule {
    /// Every schedule in scope, in the order of the documentation.
    pub const ALL: [PeerSchedule; 7] = [
        PeerSchedule::Fifo,
        PeerSchedule::Sjf,
        PeerSchedule::Shortest,
        PeerSchedule::ShortestGpu,
        PeerSchedule::Dlas,
        PeerSchedule::DlasGpu,
        PeerSchedule::DlasGpuGittins,
    ];

    /// The name Tiresias gives it.
    pub fn name(self) -> &'static str {
        match self {
            PeerSchedule::Fifo => "fifo",
            PeerSchedule::Sjf => "sjf",
            PeerSchedule::Shortest => "shortest",
            PeerSchedule::ShortestGpu => "shortest-gpu",
            PeerSchedule::Dlas => "dlas",
            PeerSchedule::DlasGpu => "dlas-gpu",
            PeerSchedule::DlasGpuGittins => "dlas-gpu-gittins",
        }
    }

    /// Whether it is one of the three 2D-LAS schemes (which never call the placement).
    pub fn is_dlas(self) -> bool {
        matches!(
            self,
            PeerSchedule::Dlas | PeerSchedule::DlasGpu | PeerSchedule::DlasGpuGittins
        )
    }

    /// Whether it is one of the preemptive single-list schemes (§4.2).
    pub fn is_single_list(self) -> bool {
        matches!(
            self,
            PeerSchedule::Sjf | PeerSchedule::Shortest | PeerSchedule::ShortestGpu
        )
    }

    /// Stably sort a single-list scheme's runnable list by its key (§4.2 rule 7d): `num_gpu`,
    /// `remaining_time` or `remaining_gputime`. Ties keep the list's previous order. Other
    /// schedules leave the list alone.
    pub fn sort_runnable(self, list: &mut [usize], jobs: &[PeerJob]) {
        match self {
            PeerSchedule::Sjf => list.sort_by_key(|&j| jobs[j].num_gpu),
            PeerSchedule::Shortest => list.sort_by_key(|&j| jobs[j].remaining_time),
            PeerSchedule::ShortestGpu => list.sort_by_key(|&j| jobs[j].remaining_gputime),
            _ => {}
        }
    }
}

impl fmt::Display for PeerSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A schedule with its options, as written on the command line: `dlas-gpu`,
/// `dlas-gpu:thresholds=500/1500`, `dlas-gpu-gittins:distribution=FILE,delta=3250`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerPolicy {
    /// The schedule.
    pub schedule: PeerSchedule,
    /// Queue limits for the 2D-LAS schemes, in the order given (default
    /// [`TIRESIAS_QUEUE_LIMITS`]): a job in queue `q` below the last is demoted once its service
    /// reaches `thresholds[q]`; `thresholds.len() + 1` queues.
    pub thresholds: Vec<i64>,
    /// The Gittins sample file for `dlas-gpu-gittins` (`None`: the YARN sample the original
    /// ships, `yarn-gput1000.csv`, found by the caller).
    pub distribution: Option<PathBuf>,
    /// The Gittins quantum Δ in GPU-seconds (default [`TIRESIAS_GITTINS_DELTA`]).
    pub delta: i64,
}

impl PeerPolicy {
    /// A schedule with the shipped code's defaults.
    pub fn new(schedule: PeerSchedule) -> Self {
        PeerPolicy {
            schedule,
            thresholds: TIRESIAS_QUEUE_LIMITS.to_vec(),
            distribution: None,
            delta: TIRESIAS_GITTINS_DELTA,
        }
    }

    /// Parse `name[:key=value,...]`. Unlike the original (which silently falls back to `fifo`),
    /// an unknown name or option is an error naming the accepted ones.
    pub fn parse(s: &str) -> Result<Self, ConfigError> {
        let spec = ComponentSpec::parse(s, "policy")?;
        let schedule = PeerSchedule::ALL
            .into_iter()
            .find(|p| p.name() == spec.name)
            .ok_or_else(|| {
                let names: Vec<&str> = PeerSchedule::ALL.iter().map(|p| p.name()).collect();
                ConfigError::new(format!(
                    "unknown policy `{}` under --semantics tiresias (Tiresias' schedules: {})",
                    spec.name,
                    names.join(", ")
                ))
            })?;
        let mut out = PeerPolicy::new(schedule);
        if let Some(v) = spec.value {
            return Err(ConfigError::new(format!(
                "policy `{}`: `{v}` needs a key (e.g. thresholds=3250/7200)",
                spec.name
            )));
        }
        for (key, value) in spec.params {
            match key {
                "thresholds" if schedule.is_dlas() => {
                    out.thresholds = parse_thresholds(value)?;
                }
                "distribution" if schedule == PeerSchedule::DlasGpuGittins => {
                    out.distribution = Some(PathBuf::from(value));
                }
                "delta" if schedule == PeerSchedule::DlasGpuGittins => {
                    out.delta = value.parse().ok().filter(|d| *d >= 0).ok_or_else(|| {
                        ConfigError::new(format!(
                            "policy `{}`: delta `{value}` is not a whole number of GPU-seconds ≥ 0",
                            spec.name
                        ))
                    })?;
                }
                _ => {
                    let accepted = match schedule {
                        PeerSchedule::DlasGpuGittins => "thresholds, distribution, delta",
                        s if s.is_dlas() => "thresholds",
                        _ => "none",
                    };
                    return Err(ConfigError::new(format!(
                        "policy `{}` has no option `{key}` (accepted: {accepted})",
                        spec.name
                    )));
                }
            }
        }
        Ok(out)
    }
}

impl fmt::Display for PeerPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.schedule.name())?;
        let mut opts = Vec::new();
        if self.schedule.is_dlas() && self.thresholds != TIRESIAS_QUEUE_LIMITS {
            let t: Vec<String> = self.thresholds.iter().map(|t| t.to_string()).collect();
            opts.push(format!("thresholds={}", t.join("/")));
        }
        if let Some(d) = &self.distribution {
            opts.push(format!("distribution={}", d.display()));
        }
        if self.schedule == PeerSchedule::DlasGpuGittins && self.delta != TIRESIAS_GITTINS_DELTA {
            opts.push(format!("delta={}", self.delta));
        }
        if !opts.is_empty() {
            write!(f, ":{}", opts.join(","))?;
        }
        Ok(())
    }
}

fn parse_thresholds(v: &str) -> Result<Vec<i64>, ConfigError> {
    // Any list of whole numbers ≥ 0, in the order given: the original takes `queue_limit` as
    // written (a descending list is odd but well defined).
    v.split('/')
        .map(|x| x.trim().parse::<i64>().ok().filter(|x| *x >= 0))
        .collect::<Option<Vec<i64>>>()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ConfigError::new(format!(
                "thresholds `{v}`: expected whole numbers ≥ 0 separated by `/` (e.g. 3250/7200)"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_options() {
        let p = PeerPolicy::parse("dlas-gpu").unwrap();
        assert_eq!(p.schedule, PeerSchedule::DlasGpu);
        assert_eq!(p.thresholds, vec![3250, 7200]);
        let p = PeerPolicy::parse("dlas-gpu:thresholds=500/1500").unwrap();
        assert_eq!(p.thresholds, vec![500, 1500]);
        assert_eq!(p.to_string(), "dlas-gpu:thresholds=500/1500");
        let p = PeerPolicy::parse("dlas-gpu-gittins:distribution=x.csv,delta=100").unwrap();
        assert_eq!(p.distribution, Some(PathBuf::from("x.csv")));
        assert_eq!(p.delta, 100);
        assert!(PeerPolicy::parse("las")
            .unwrap_err()
            .0
            .contains("dlas-gpu-gittins"));
        assert!(PeerPolicy::parse("fifo:thresholds=1").is_err());
        assert_eq!(
            PeerPolicy::parse("dlas:thresholds=5/2").unwrap().thresholds,
            [5, 2]
        );
        assert!(PeerPolicy::parse("dlas:thresholds=5/-2").is_err());
        assert!(PeerPolicy::parse("dlas:thresholds=a").is_err());
        assert!(PeerPolicy::parse("dlas:distribution=x").is_err());
    }

    #[test]
    fn sjf_is_fewest_gpus_first_and_stable() {
        let jobs = vec![
            PeerJob::new(4, 0, 10),
            PeerJob::new(1, 0, 500),
            PeerJob::new(4, 0, 1),
            PeerJob::new(1, 0, 20),
        ];
        let mut list = vec![0, 1, 2, 3];
        PeerSchedule::Sjf.sort_runnable(&mut list, &jobs);
        assert_eq!(list, vec![1, 3, 0, 2]);
        let mut list = vec![0, 1, 2, 3];
        PeerSchedule::Shortest.sort_runnable(&mut list, &jobs);
        assert_eq!(list, vec![2, 0, 3, 1]);
        let mut list = vec![0, 1, 2, 3];
        PeerSchedule::ShortestGpu.sort_runnable(&mut list, &jobs);
        assert_eq!(list, vec![2, 3, 0, 1]); // 4, 20, 40, 500 GPU-s
    }
}
