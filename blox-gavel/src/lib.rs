//! # blox-gavel
//!
//! Gavel (Narayanan et al., OSDI 2020) as its own trace simulator runs it, one peer in one
//! crate: the clock, the policies by Gavel's names and the round mechanism, rule for rule
//! after `GAVEL-SEMANTICS.md` (stanford-futuredata/gavel @ c4fa400, `scheduler/`), and an
//! adapter that runs any engine policy under Gavel's clock. `blox-sim run --semantics gavel`
//! is this crate.
//!
//! | piece | what | GAVEL-SEMANTICS |
//! |---|---|---|
//! | [`GavelPolicyKind`] | `fifo`, `fifo_perf`, `max_min_fairness`, `max_min_fairness_perf`, `finish_time_fairness_perf`; GAVEL-GENERATED's additions, including the space-sharing `*_packed` variants | §6, §G8 |
//! | [`GavelPolicy`] | a policy with its state across solves (FIFO's sticky assignment and `Random(seed)`, finish-time fairness's isolated-time bookkeeping) | §6.3-§6.5 |
//! | [`GavelMechanism`] | re-solve cadence (1,920 s, initial-value and forced-reset rules), per-job/per-type time accumulators with R/2 pseudo-counts, priorities and deficits, the seeded type shuffle (`Random(seed + 5)`), the greedy fill, the stale-job drop, micro-task failures | §2.3-§5 |
//!
//! | [`Placement`], `packed` | the `*_packed` variants: same-scale-factor pairs at their co-located rates, `fifo_packed`'s 1.5 rule, the LP variants over singles and pairs with HEAD's reshape reproduced | GAVEL-GENERATED §G8.3 |
//! | [`generated`] | generated-jobs mode: Gavel's job generator and Poisson arrivals, a window of job ids, steady state, the sweeps' exact λ values | GAVEL-GENERATED |
//! | [`clock`] | the clock: rounds that end at their latest micro-task, crediting order, admission at round ends, idle jumps, failures, JCTs, generic over [`GavelRounds`] | §2 |
//! | [`EngineRounds`] | any engine [`SchedulingPolicy`](blox_core::SchedulingPolicy) on Gavel's clock: an engine job table credited from the micro-tasks, each round filled from the policy's schedule | — |
//!
//! **Why Gavel keeps its own clock.** The engine's [`Time`](blox_core::Time) is integer
//! milliseconds; Gavel's JCTs are f64 seconds produced by rounds that end at their slowest
//! micro-task (`clock + steps / throughput`), which integer milliseconds cannot carry to the
//! bit. Gavel is therefore the one peer whose loop is not the engine's `Driver`: the clock is
//! [`clock::simulate`], chosen by the CLI in the same single match as every other peer.
//!
//! **Which optimum the convex programs pick.** Gavel's programs rarely have a unique optimum,
//! and the optimal point chosen decides the round priorities, so it moves completion times.
//! `max_min_fairness_perf`, `finish_time_fairness[_perf]`, `max_sum_throughput_perf` and
//! `min_total_duration[_perf]` (its bisection's feasibility decisions and the point kept) are
//! solved as Gavel solves them: ECOS's algorithm on the cone program cvxpy hands ECOS (the
//! `ecos` notes below), which stops where ECOS stops, up to rounding. The heterogeneity-agnostic
//! `max_min_fairness`, and `max_min_fairness_perf` on one GPU type, are solved by a small
//! structured interior-point method (the `barrier` notes) to the analytic centre of the
//! optimal face: a job's split across types, or the order among jobs whose coefficients tie up
//! to rounding, is free there, ECOS picks it by its last-digit noise, and the centre matches
//! Gavel's runs more often. Ties ECOS breaks by that noise (e.g. three equal 1/3 shares on
//! GAVEL-SEMANTICS's g3) are not reproducible by any other solver.
//!
//! The stock `blox_policies::Gavel` policy ("Gavel-style max-min") is a different,
//! engine-native adaptation; it does not follow these rules.

pub mod any_policy;
mod barrier;
pub mod clock;
mod ecos;
#[cfg(test)]
mod ecos_tests;
mod ftf_debug;
pub mod generated;
mod mechanism;
mod packed;
mod policy;
mod run;

pub use mechanism::{
    Credit, GavelMechanism, MechJob, Placement, GAVEL_TYPE_ORDER, MAX_FAILED_ATTEMPTS,
    RESET_INTERVAL_S,
};
pub use packed::PACKING_THRESHOLD;
pub use policy::{isolated_shares, GavelPolicy, GavelPolicyKind, SolveJob, SolvePair};

pub use any_policy::EngineRounds;
pub use clock::{GavelJob, GavelRounds, MicroTaskOutcome};
pub use run::{run_gavel, run_gavel_colocated, run_gavel_engine, GavelPreset};
