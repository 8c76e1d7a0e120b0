//! Sia's integer program (SIA-SEMANTICS §6.6) solved exactly by dynamic programming, with a
//! documented tie rule.
//!
//! The program: every active job takes at most one configuration; per GPU type the GPUs of
//! the chosen configurations fit the type's capacity; a pinned job keeps its previous
//! configuration; minimise `Σ A·X + λ_n·(J − Σ X)` (maximise for `p > 0`). It is a
//! multiple-choice knapsack with one capacity per GPU type, so a dynamic program over the
//! GPUs used per type is exact. Utilities are 2-decimal numbers; costs are kept in integers of
//! 10⁻⁴ (`λ_n` is resolved to 10⁻⁴), so optimal values compare exactly and ties are real ties.
//!
//! **Tie rule** (the original returns whichever optimum CBC finds, §6.7, §13.1): jobs in
//! workload order each take, among the choices that keep the total optimal, the first in this
//! order: the previous configuration, then the configurations of the **last** GPU type (in
//! type order) to the first, each type's in index order (size), then no allocation. A new job
//! with equal utilities everywhere therefore lands on the last type that has room. Of the
//! rules tried on the test vectors (§11.1; index order; either, with or without preferring the
//! previous configuration) this one is nearest the original's average JCTs (mean absolute
//! difference 8.7 % against 13.6 % for index order); CBC's own choices follow no simple rule
//! (§11.2).
//!
//! [`solve_cbc`] (feature `cbc`) solves the same program with CBC, the original's solver, on
//! the original's model layout (SIA-SEMANTICS Appendix A); [`IlpSolver`] chooses
//! (`--policy sia:solver=dp|cbc`). Measured on the test vectors (`tests/it/cbc.rs`), CBC
//! reproduces the original better: tva and tvd job for job, 11 of 19 jobs against the DP's 3.

use std::fmt;

use crate::cluster::Config;

/// Which solver takes the program: the exact dynamic program (the default) or CBC, the
/// original's solver, with the model layout of SIA-SEMANTICS Appendix A (feature `cbc`, needs
/// the system's Cbc library: `tools/install-cbc.sh`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum IlpSolver {
    /// [`solve`]: exact, ties by the documented rule.
    #[default]
    Dp,
    /// [`solve_cbc`]: CBC (Debian's 2.10.8) on Appendix A's layout; ties as CBC breaks them.
    Cbc,
}

impl IlpSolver {
    /// Its name on the command line (`--policy sia:solver=NAME`).
    pub fn name(self) -> &'static str {
        match self {
            IlpSolver::Dp => "dp",
            IlpSolver::Cbc => "cbc",
        }
    }

    /// Whether this build can use it (CBC needs the feature `cbc`).
    pub fn available(self) -> bool {
        match self {
            IlpSolver::Dp => true,
            IlpSolver::Cbc => cfg!(feature = "cbc"),
        }
    }
}

impl std::str::FromStr for IlpSolver {
    type Err = IlpError;
    fn from_str(s: &str) -> Result<IlpSolver, IlpError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dp" => Ok(IlpSolver::Dp),
            "cbc" => Ok(IlpSolver::Cbc),
            other => Err(IlpError(format!(
                "unknown ILP solver `{other}` (dp: the exact dynamic program, the default; \
                 cbc: CBC, the original's solver)"
            ))),
        }
    }
}

impl fmt::Display for IlpSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of asking for CBC in a build without it.
pub const CBC_NOT_BUILT: &str = "the CBC solver is not in this build: install Cbc \
    (Debian: `apt-get install coinor-libcbc-dev`, or `tools/install-cbc.sh`) and build with \
    `--features blox-sia/cbc` (blox-cli: `--features cbc`)";

/// Solve the program with `solver`: per job, the chosen configuration or `None`.
pub fn solve_with(
    solver: IlpSolver,
    jobs: &[IlpJob],
    configs: &[Config],
    capacity: &[u32],
    lambda: f64,
    minimize: bool,
) -> Result<Vec<Option<usize>>, IlpError> {
    match solver {
        IlpSolver::Dp => solve(jobs, configs, capacity, lambda, minimize),
        IlpSolver::Cbc => solve_cbc(jobs, configs, capacity, lambda, minimize),
    }
}

/// Without the feature `cbc`: always [`CBC_NOT_BUILT`].
#[cfg(not(feature = "cbc"))]
pub fn solve_cbc(
    _jobs: &[IlpJob],
    _configs: &[Config],
    _capacity: &[u32],
    _lambda: f64,
    _minimize: bool,
) -> Result<Vec<Option<usize>>, IlpError> {
    Err(IlpError(CBC_NOT_BUILT.into()))
}

#[cfg(feature = "cbc")]
pub use crate::ilp_cbc::solve_cbc;

/// One job's row of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct IlpJob {
    /// Utilities `A` per configuration.
    pub utility: Vec<f32>,
    /// The configuration chosen last round, if any.
    pub previous: Option<usize>,
    /// Whether the job must keep `previous` (it is in a restart delay).
    pub pinned: bool,
}

/// Why the program could not be solved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IlpError(pub String);

impl fmt::Display for IlpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IlpError {}

/// Every row has one utility per configuration; a pinned job has a previous configuration.
pub(crate) fn check_rows(jobs: &[IlpJob], configs: &[Config]) -> Result<(), IlpError> {
    for (i, j) in jobs.iter().enumerate() {
        if j.utility.len() != configs.len() {
            return Err(IlpError(format!(
                "job {i}: {} utilities for {} configurations",
                j.utility.len(),
                configs.len()
            )));
        }
        if j.pinned && j.previous.map_or(true, |p| p >= configs.len()) {
            return Err(IlpError(format!(
                "job {i}: pinned without a previous configuration"
            )));
        }
    }
    Ok(())
}

/// The largest state space (product over types of capacity + 1) the exact solver takes.
pub const MAX_STATES: usize = 1 << 22;

/// Solve the program: per job, the chosen configuration or `None`.
pub fn solve(
    jobs: &[IlpJob],
    configs: &[Config],
    capacity: &[u32],
    lambda: f64,
    minimize: bool,
) -> Result<Vec<Option<usize>>, IlpError> {
    let types = capacity.len();
    // Mixed-radix encoding of the GPUs used per type.
    let mut radix = vec![1usize; types + 1];
    for t in 0..types {
        radix[t + 1] = radix[t]
            .checked_mul(capacity[t] as usize + 1)
            .filter(|&s| s <= MAX_STATES)
            .ok_or_else(|| {
                IlpError(format!(
                    "the cluster is too large for the exact solver (more than {MAX_STATES} \
                     combinations of GPUs used per type)"
                ))
            })?;
    }
    let states = radix[types];
    let lam = (lambda * 1e4).round() as i64;
    let sign = if minimize { 1 } else { -1 };
    // Cost of a choice relative to leaving the job out (which costs λ_n).
    let cost = |a: f32| sign * (((f64::from(a)) * 1e4).round() as i64 - lam);
    let offset = |c: &Config| c.gpus as usize * radix[c.gpu_type];
    let fits = |s: usize, c: &Config| {
        let used = (s / radix[c.gpu_type]) % (capacity[c.gpu_type] as usize + 1);
        used + c.gpus as usize <= capacity[c.gpu_type] as usize
    };
    // Choices of job j in preference order (None = no allocation).
    let choices = |j: &IlpJob| -> Vec<Option<usize>> {
        if j.pinned {
            return vec![j.previous];
        }
        let mut v: Vec<Option<usize>> = Vec::with_capacity(configs.len() + 1);
        if let Some(p) = j.previous {
            v.push(Some(p));
        }
        let mut order: Vec<usize> = (0..configs.len()).collect();
        // Stable: within a type, index order.
        order.sort_by_key(|&c| std::cmp::Reverse(configs[c].gpu_type));
        v.extend(
            order
                .into_iter()
                .filter(|&c| Some(c) != j.previous)
                .map(Some),
        );
        v.push(None);
        v
    };
    check_rows(jobs, configs)?;
    const INF: i64 = i64::MAX / 4;
    // best[j][s]: the least cost of jobs j.. with GPUs `s` already used by jobs before j.
    let mut best = vec![vec![0i64; states]; jobs.len() + 1];
    // Choice by choice (the minimum does not depend on the order they are tried in): a
    // configuration of `g` GPUs of type `t` fits the states with at most `capacity[t] - g` of
    // them in use, whose digit `t` is that small: one run of states in every block of
    // `radix[t + 1]`. A configuration larger than its type never fits.
    for j in (0..jobs.len()).rev() {
        let opts = choices(&jobs[j]);
        let (head, tail) = best.split_at_mut(j + 1);
        let (cur, next) = (&mut head[j], &tail[0]);
        if opts.contains(&None) {
            cur.copy_from_slice(next);
        } else {
            cur.fill(INF);
        }
        for &c in opts.iter().flatten() {
            let cfg = &configs[c];
            let t = cfg.gpu_type;
            let Some(room) = (capacity[t] as usize).checked_sub(cfg.gpus as usize) else {
                continue;
            };
            let (off, run, cost) = (offset(cfg), radix[t] * (room + 1), cost(jobs[j].utility[c]));
            for base in (0..states).step_by(radix[t + 1]) {
                let (cur, next) = (
                    &mut cur[base..base + run],
                    &next[base + off..base + off + run],
                );
                for (b, &n) in cur.iter_mut().zip(next) {
                    let v = if n < INF { n + cost } else { INF };
                    *b = (*b).min(v);
                }
            }
        }
    }
    if best[0][0] >= INF {
        return Err(IlpError(
            "infeasible: the pinned jobs need more GPUs of a type than it has".into(),
        ));
    }
    let mut out = Vec::with_capacity(jobs.len());
    let mut s = 0usize;
    for (j, job) in jobs.iter().enumerate() {
        let target = best[j][s];
        let next = &best[j + 1];
        let pick = choices(job).into_iter().find(|o| match o {
            None => next[s] == target,
            Some(c) => {
                let cfg = &configs[*c];
                fits(s, cfg)
                    && next[s + offset(cfg)] < INF
                    && next[s + offset(cfg)] + cost(job.utility[*c]) == target
            }
        });
        let pick = pick.ok_or_else(|| IlpError(format!("job {j}: no optimal choice")))?;
        if let Some(c) = pick {
            s += offset(&configs[c]);
        }
        out.push(pick);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the random programs: `draw(n)` is in `0..n`.
    fn lcg(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        }
    }

    fn cfg(gpu_type: usize, gpus: u32) -> Config {
        Config {
            gpu_type,
            nodes: 1,
            gpus,
        }
    }

    /// SIA-SEMANTICS Appendix A's micro-example: its configurations and jobs (capacity
    /// `[2, 1]`, λ_n = 1.1).
    fn appendix_a() -> ([Config; 3], [IlpJob; 2]) {
        let configs = [cfg(0, 1), cfg(0, 2), cfg(1, 1)];
        let jobs = [
            IlpJob {
                utility: vec![1.0, 0.71, 1.0],
                previous: Some(2),
                pinned: true,
            },
            IlpJob {
                utility: vec![1.0, 0.5, 0.9],
                previous: None,
                pinned: false,
            },
        ];
        (configs, jobs)
    }

    /// Appendix A's micro-example: CBC returns job 0 → config 2, job 1 → config 1, objective
    /// 1.5 (= −0.7 + 2.2).
    #[test]
    fn appendix_a_micro_example() {
        let (configs, jobs) = appendix_a();
        let x = solve(&jobs, &configs, &[2, 1], 1.1, true).unwrap();
        assert_eq!(x, [Some(2), Some(1)]);
    }

    #[test]
    fn ties_go_to_the_previous_then_the_last_type() {
        let configs = [cfg(0, 1), cfg(1, 1), cfg(2, 1)];
        let new = IlpJob {
            utility: vec![1.0, 1.0, 1.0],
            previous: None,
            pinned: false,
        };
        let x = solve(&[new.clone(), new.clone()], &configs, &[1, 1, 1], 1.1, true).unwrap();
        assert_eq!(x, [Some(2), Some(1)]);
        let kept = IlpJob {
            previous: Some(0),
            ..new.clone()
        };
        let x = solve(&[kept], &configs, &[1, 1, 1], 1.1, true).unwrap();
        assert_eq!(x, [Some(0)]);
    }

    #[test]
    fn a_job_is_left_out_when_every_way_costs_more_than_lambda() {
        // One GPU; the holder is pinned; the newcomer cannot fit.
        let configs = [cfg(0, 1)];
        let holder = IlpJob {
            utility: vec![0.5],
            previous: Some(0),
            pinned: true,
        };
        let new = IlpJob {
            utility: vec![1.0],
            previous: None,
            pinned: false,
        };
        let x = solve(&[holder.clone(), new.clone()], &configs, &[1], 1.1, true).unwrap();
        assert_eq!(x, [Some(0), None]);
        // Unpinned, the holder's utility after its restart factor is 1.2 (> λ): the newcomer
        // (1.0) is better.
        let holder = IlpJob {
            utility: vec![1.2],
            pinned: false,
            ..holder
        };
        let x = solve(&[holder, new], &configs, &[1], 1.1, true).unwrap();
        assert_eq!(x, [None, Some(0)]);
    }

    #[test]
    fn infeasible_pins_and_oversized_clusters_are_errors() {
        let configs = [cfg(0, 2)];
        let pinned = IlpJob {
            utility: vec![0.5],
            previous: Some(0),
            pinned: true,
        };
        assert!(solve(&[pinned.clone(), pinned], &configs, &[2], 1.1, true).is_err());
        let e = solve(&[], &configs, &[4096, 4096, 4096], 1.1, true).unwrap_err();
        assert!(e.0.contains("too large"), "{e}");
    }

    /// Without the feature `cbc`, asking for CBC is an error that says how to get it.
    #[cfg(not(feature = "cbc"))]
    #[test]
    fn cbc_without_the_feature_is_a_clear_error() {
        let e = solve_with(IlpSolver::Cbc, &[], &[cfg(0, 1)], &[1], 1.1, true).unwrap_err();
        assert!(e.0.contains("--features blox-sia/cbc"), "{e}");
        assert!(e.0.contains("coinor-libcbc-dev"), "{e}");
        assert!(!IlpSolver::Cbc.available());
    }

    #[test]
    fn solver_names_parse() {
        assert_eq!("CBC".parse::<IlpSolver>().unwrap(), IlpSolver::Cbc);
        assert_eq!(" dp".parse::<IlpSolver>().unwrap(), IlpSolver::Dp);
        assert!("glpk".parse::<IlpSolver>().is_err());
        assert_eq!(IlpSolver::default().to_string(), "dp");
    }

    /// Appendix A's micro-example through CBC: job 0 → config 2, job 1 → config 1.
    #[cfg(feature = "cbc")]
    #[test]
    fn cbc_appendix_a_micro_example() {
        let (configs, jobs) = appendix_a();
        let x = solve_cbc(&jobs, &configs, &[2, 1], 1.1, true).unwrap();
        assert_eq!(x, [Some(2), Some(1)]);
        assert!(IlpSolver::Cbc.available());
    }

    /// CBC and the dynamic program reach the same optimum value on small random programs
    /// (with previous configurations, pins, both senses), and CBC's answer is feasible.
    #[cfg(feature = "cbc")]
    #[test]
    fn cbc_and_the_dp_agree_on_the_optimum_value() {
        let configs = [
            cfg(0, 1),
            cfg(0, 2),
            cfg(0, 4),
            cfg(1, 1),
            cfg(1, 2),
            cfg(2, 1),
        ];
        let cap = [4u32, 2, 1];
        let mut draw = lcg(777);
        for round in 0..300 {
            let nj = 1 + draw(5) as usize;
            let minimize = round % 5 != 0;
            let mut used = [0u32; 3];
            let jobs: Vec<IlpJob> = (0..nj)
                .map(|_| {
                    let previous = (draw(3) == 0).then(|| draw(configs.len() as u64) as usize);
                    // Pin only where the pins stay feasible.
                    let pinned = previous.is_some_and(|p| {
                        let c = configs[p];
                        let ok = draw(2) == 0 && used[c.gpu_type] + c.gpus <= cap[c.gpu_type];
                        if ok {
                            used[c.gpu_type] += c.gpus;
                        }
                        ok
                    });
                    IlpJob {
                        utility: (0..configs.len())
                            .map(|_| {
                                [0.25f32, 0.5, 0.71, 0.9, 1.0, 1.1, 1.2, 100.0][draw(8) as usize]
                            })
                            .collect(),
                        previous,
                        pinned,
                    }
                })
                .collect();
            let sign = if minimize { 1 } else { -1 };
            let value = |x: &[Option<usize>]| -> i64 {
                x.iter()
                    .zip(&jobs)
                    .map(|(o, j)| {
                        sign * o.map_or(11000, |c| (f64::from(j.utility[c]) * 1e4).round() as i64)
                    })
                    .sum()
            };
            let dp = solve(&jobs, &configs, &cap, 1.1, minimize).unwrap();
            let cbc = solve_cbc(&jobs, &configs, &cap, 1.1, minimize).unwrap();
            let mut use_ = [0u32; 3];
            for (o, j) in cbc.iter().zip(&jobs) {
                if let Some(c) = o {
                    use_[configs[*c].gpu_type] += configs[*c].gpus;
                }
                if j.pinned {
                    assert_eq!(*o, j.previous, "round {round}: a pin is kept");
                }
            }
            assert!(use_.iter().zip(&cap).all(|(u, c)| u <= c), "round {round}");
            assert_eq!(value(&cbc), value(&dp), "round {round}: {cbc:?} vs {dp:?}");
        }
    }

    /// Exhaustive check on small random programs: the DP's objective is the brute-force
    /// optimum.
    #[test]
    fn matches_brute_force_on_small_programs() {
        let configs = [cfg(0, 1), cfg(0, 2), cfg(1, 1), cfg(1, 2), cfg(1, 4)];
        let cap = [2u32, 4];
        let mut draw = lcg(12345);
        for _ in 0..200 {
            let nj = 1 + draw(4) as usize;
            let jobs: Vec<IlpJob> = (0..nj)
                .map(|_| IlpJob {
                    utility: (0..configs.len())
                        .map(|_| [0.3f32, 0.5, 0.8, 1.0, 1.1, 100.0][draw(6) as usize])
                        .collect(),
                    previous: None,
                    pinned: false,
                })
                .collect();
            let x = solve(&jobs, &configs, &cap, 1.1, true).unwrap();
            let value = |x: &[Option<usize>]| -> i64 {
                x.iter()
                    .zip(&jobs)
                    .map(|(o, j)| {
                        o.map_or(11000, |c| (f64::from(j.utility[c]) * 1e4).round() as i64)
                    })
                    .sum()
            };
            let mut best = i64::MAX;
            let total = (configs.len() + 1).pow(nj as u32);
            for mut k in 0..total {
                let mut pick = Vec::new();
                let mut used = [0u32; 2];
                for _ in 0..nj {
                    let o = k % (configs.len() + 1);
                    k /= configs.len() + 1;
                    if o < configs.len() {
                        used[configs[o].gpu_type] += configs[o].gpus;
                        pick.push(Some(o));
                    } else {
                        pick.push(None);
                    }
                }
                if used[0] <= cap[0] && used[1] <= cap[1] {
                    best = best.min(value(&pick));
                }
            }
            assert_eq!(value(&x), best);
        }
    }
}
