//! Gavel's generated-jobs mode (GAVEL-GENERATED.md, an addition to GAVEL-SEMANTICS.md): the mode
//! the paper's figures come from. Jobs are drawn from Gavel's generator as the run reaches their
//! Poisson arrivals, a window of job ids is measured, and the same round mechanism as trace
//! mode ([`GavelMechanism`]) schedules them.
//!
//! | piece | what | GAVEL-GENERATED |
//! |---|---|---|
//! | [`GAVEL_JOB_TABLE`], [`JobGenerator`] | the 26 job templates and `utils.generate_job` on `Random(seed + 2)`: scale factor, duration, template, float step count, priority | §G2-§G3 |
//! | [`ArrivalSampler`] | `Random(seed + 3)`, gap `−ln(1 − u) / (1 / λ)` | §G4 |
//! | [`linspace`], [`rate_lambdas`], [`parse_rates`] | the sweeps' rates (`numpy.linspace`, leading 0 dropped) and their exact λ = 3600 / rate | §G1.2 |
//! | [`run_generated`] | the loop: steady-state pre-fill, stop test, idle jumps, lazy generation, float steps and the multi-GPU drop, utilisation | §G5-§G7 |
//! | [`numpy_mean`] | `numpy.mean`'s pairwise summation, so window averages match to the bit | §G7 |

use crate::clock::{register_types, GavelError};
use crate::{Credit, GavelMechanism, GavelPolicyKind, MechJob, Placement};
use blox_core::ThroughputTable;
use blox_workload::{ColocatedThroughputs, PyRandom};
use std::sync::Arc;

/// Gavel's job templates (`job_table.py`) in table order: the model name (the throughput key)
/// and whether the template may run on several GPUs.
pub const GAVEL_JOB_TABLE: [(&str, bool); 26] = [
    ("ResNet-18 (batch size 16)", true),
    ("ResNet-18 (batch size 32)", true),
    ("ResNet-18 (batch size 64)", true),
    ("ResNet-18 (batch size 128)", true),
    ("ResNet-18 (batch size 256)", true),
    ("ResNet-50 (batch size 16)", true),
    ("ResNet-50 (batch size 32)", true),
    ("ResNet-50 (batch size 64)", true),
    ("ResNet-50 (batch size 128)", true),
    ("Transformer (batch size 16)", true),
    ("Transformer (batch size 32)", true),
    ("Transformer (batch size 64)", true),
    ("Transformer (batch size 128)", true),
    ("Transformer (batch size 256)", true),
    ("LM (batch size 5)", true),
    ("LM (batch size 10)", true),
    ("LM (batch size 20)", true),
    ("LM (batch size 40)", true),
    ("LM (batch size 80)", true),
    ("Recommendation (batch size 512)", false),
    ("Recommendation (batch size 1024)", false),
    ("Recommendation (batch size 2048)", false),
    ("Recommendation (batch size 4096)", false),
    ("Recommendation (batch size 8192)", false),
    ("A3C", false),
    ("CycleGAN", false),
];

/// The reference GPU type of the generator's step counts (`reference_worker_type='v100'`).
pub const REFERENCE_TYPE: &str = "v100";

/// What the generator draws for one job, before the throughput lookup.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct JobDraw {
    /// Index into [`GAVEL_JOB_TABLE`].
    pub template: usize,
    /// Scale factor (1 without multi-GPU jobs).
    pub scale_factor: u32,
    /// Duration alone on `scale_factor` V100s (s).
    pub duration_s: f64,
    /// Priority weight (5.0 for 20 % of jobs with priorities, else 1.0).
    pub weight: f64,
}

/// Gavel's job generator (`utils.generate_job`, GAVEL-GENERATED §G3) on its own stream,
/// `Random(seed + 2)`.
#[derive(Clone, Debug)]
pub struct JobGenerator {
    rng: PyRandom,
    multi_gpu: bool,
    priorities: bool,
    fixed_duration: Option<f64>,
}

impl JobGenerator {
    /// The generator of a run with Gavel's `--seed` `seed`.
    pub fn new(
        seed: u64,
        multi_gpu: bool,
        priorities: bool,
        fixed_duration: Option<f64>,
    ) -> Result<Self, GavelError> {
        let s = seed
            .checked_add(2)
            .ok_or_else(|| GavelError::Config(format!("seed {seed}: must be below 2^64 - 5")))?;
        Ok(Self {
            rng: PyRandom::new(s),
            multi_gpu,
            priorities,
            fixed_duration,
        })
    }

    /// The next job's draws, in Gavel's order: scale factor (always drawn), duration (two
    /// draws unless fixed), template (5-bit rejection draws until it fits the scale factor),
    /// priority (only with priorities).
    pub fn next_draw(&mut self) -> JobDraw {
        let r = self.rng.random();
        // Boundaries as Gavel writes them: 0.8 exactly gives 2, 0.95 exactly gives 4.
        let mut sf = if (0.7..=0.8).contains(&r) {
            2
        } else if (0.8..=0.95).contains(&r) {
            4
        } else if r >= 0.95 {
            8
        } else {
            1
        };
        let duration_s = match self.fixed_duration {
            Some(d) => d,
            None => {
                let q = self.rng.random();
                let exp = if q >= 0.8 {
                    self.rng.uniform(3.0, 4.0)
                } else {
                    self.rng.uniform(1.5, 3.0)
                };
                // CPython's float `**` is C `pow`; Rust's `powf` calls the same libm.
                60.0 * 10f64.powf(exp)
            }
        };
        if !self.multi_gpu {
            sf = 1;
        }
        let template = loop {
            // 26 templates: 5-bit draws, values ≥ 26 rejected.
            let k = self.rng.randbelow(GAVEL_JOB_TABLE.len() as u32) as usize;
            if sf == 1 || GAVEL_JOB_TABLE[k].1 {
                break k;
            }
        };
        let weight = if self.priorities {
            let p = self.rng.random();
            if (0.0..=0.2).contains(&p) {
                5.0
            } else {
                1.0
            }
        } else {
            1.0
        };
        JobDraw {
            template,
            scale_factor: sf,
            duration_s,
            weight,
        }
    }
}

/// The inter-arrival stream (`Random(seed + 3)`, GAVEL-GENERATED §G4).
#[derive(Clone, Debug)]
pub struct ArrivalSampler {
    rng: PyRandom,
    lambda: f64,
}

impl ArrivalSampler {
    /// Gaps of mean `lambda` seconds (`0` = every job at once, no draws).
    pub fn new(seed: u64, lambda: f64) -> Result<Self, GavelError> {
        let s = seed
            .checked_add(3)
            .ok_or_else(|| GavelError::Config(format!("seed {seed}: must be below 2^64 - 5")))?;
        Ok(Self {
            rng: PyRandom::new(s),
            lambda,
        })
    }

    /// The gap after a job: `−ln(1 − u) / (1 / λ)` **[exact: a division by the reciprocal]**,
    /// or 0 without a draw when λ = 0.
    pub fn next_gap(&mut self) -> f64 {
        if self.lambda == 0.0 {
            return 0.0;
        }
        let u = self.rng.random();
        -(1.0 - u).ln() / (1.0 / self.lambda)
    }
}

/// `numpy.linspace(a, b, n)` (float64): `i · ((b − a)/(n − 1)) + a`, the last value exactly `b`.
pub fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    match n {
        0 => Vec::new(),
        1 => vec![a],
        _ => {
            let step = (b - a) / (n - 1) as f64;
            let mut v: Vec<f64> = (0..n)
                .map(|i| {
                    if step == 0.0 {
                        i as f64 / (n - 1) as f64 * (b - a) + a
                    } else {
                        i as f64 * step + a
                    }
                })
                .collect();
            v[n - 1] = b;
            v
        }
    }
}

/// Gavel's sweep rates (jobs/hour) and their λ = `3600.0 / rate` (s), as
/// `run_sweep_continuous.py` computes them: a leading exact 0.0 is dropped (GAVEL-GENERATED
/// §G1.2). `rate_lambdas(&linspace(0.0, 3.0, 11))` gives Figure 9's ten points.
pub fn rate_lambdas(rates: &[f64]) -> Vec<(f64, f64)> {
    let skip = usize::from(rates.first() == Some(&0.0));
    rates[skip..].iter().map(|&r| (r, 3600.0 / r)).collect()
}

/// Parses a rate list: `linspace:A:B:N` (numpy's, as Gavel's sweeps use it) or
/// comma-separated rates in jobs/hour; returns `(rate, λ)` pairs as [`rate_lambdas`] does.
///
/// # Errors
///
/// Malformed text, a negative or non-finite rate, an empty list.
pub fn parse_rates(text: &str) -> Result<Vec<(f64, f64)>, String> {
    let t = text.trim();
    let rates: Vec<f64> = if let Some(rest) = t.strip_prefix("linspace:") {
        let p: Vec<&str> = rest.split(':').collect();
        if p.len() != 3 {
            return Err(format!(
                "`{text}`: expected linspace:START:STOP:COUNT, e.g. linspace:0:3:11"
            ));
        }
        let num = |s: &str, what: &str| -> Result<f64, String> {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("`{text}`: {what} `{s}` is not a non-negative number"))
        };
        let a = num(p[0], "START")?;
        let b = num(p[1], "STOP")?;
        let n: usize = p[2]
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=10_000).contains(n))
            .ok_or_else(|| format!("`{text}`: COUNT `{}` must be 1 to 10000", p[2]))?;
        linspace(a, b, n)
    } else {
        t.split(',')
            .map(|s| {
                s.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| format!("`{text}`: rate `{s}` is not a non-negative number"))
            })
            .collect::<Result<_, _>>()?
    };
    let out = rate_lambdas(&rates);
    if let Some((r, _)) = out.iter().find(|(r, _)| *r == 0.0) {
        return Err(format!(
            "`{text}`: rate {r} jobs/hour has no mean inter-arrival time (only a leading 0 is \
             dropped, as Gavel's sweep does)"
        ));
    }
    if out.is_empty() {
        return Err(format!("`{text}`: no rate left after dropping a leading 0"));
    }
    Ok(out)
}

/// `numpy.mean` of a float64 array: numpy's pairwise summation (8 accumulators in blocks of at
/// most 128, halves above that, a plain loop below 8 values) divided by the count. `None` for
/// an empty slice.
pub fn numpy_mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| pairwise_sum(v) / v.len() as f64)
}

fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for k in 0..8 {
                r[k] += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// The settings of one generated-jobs run (the driver's flags, GAVEL-GENERATED §G1.1).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GeneratedConfig {
    /// Mean inter-arrival time λ (s); 0 = every job at t = 0 (static mode).
    pub lambda: f64,
    /// Multi-GPU jobs (`-m`).
    pub multi_gpu: bool,
    /// 20 % of jobs get priority weight 5 (`--generate-multi-priority-jobs`).
    pub priorities: bool,
    /// Pre-fill the cluster at t = 0 (`--simulate-steady-state`).
    pub steady_state: bool,
    /// Every job lasts this long on V100s (`-f`); `None` = drawn.
    pub fixed_duration: Option<f64>,
    /// The measured window, job ids `first..=last` (Gavel's `-s first -e last+1`).
    pub window: Option<(usize, usize)>,
    /// Static mode's job count (`num_total_jobs`); only with λ = 0.
    pub jobs: Option<usize>,
    /// Gavel's `--seed`.
    pub seed: u64,
    /// Round length R (s).
    pub round_s: f64,
}

impl GeneratedConfig {
    /// Continuous mode: arrivals every `lambda` seconds on average, window `first..=last`.
    pub fn continuous(lambda: f64, first: usize, last: usize, seed: u64) -> Self {
        Self {
            lambda,
            multi_gpu: false,
            priorities: false,
            steady_state: false,
            fixed_duration: None,
            window: Some((first, last)),
            jobs: None,
            seed,
            round_s: 360.0,
        }
    }

    /// Static mode: `jobs` jobs at t = 0, no window (the makespan sweep).
    pub fn static_jobs(jobs: usize, seed: u64) -> Self {
        Self {
            lambda: 0.0,
            window: None,
            jobs: Some(jobs),
            ..Self::continuous(0.0, 0, 0, seed)
        }
    }

    /// With multi-GPU jobs or not.
    pub fn multi_gpu(mut self, on: bool) -> Self {
        self.multi_gpu = on;
        self
    }

    /// With priorities or not.
    pub fn priorities(mut self, on: bool) -> Self {
        self.priorities = on;
        self
    }

    /// With the steady-state pre-fill or not.
    pub fn steady_state(mut self, on: bool) -> Self {
        self.steady_state = on;
        self
    }

    /// With every job's duration fixed.
    pub fn fixed_duration(mut self, d: Option<f64>) -> Self {
        self.fixed_duration = d;
        self
    }

    /// With round length `r` seconds.
    pub fn round(mut self, r: f64) -> Self {
        self.round_s = r;
        self
    }

    /// With a measurement window (also in static mode).
    pub fn window(mut self, w: Option<(usize, usize)>) -> Self {
        self.window = w;
        self
    }

    fn check(&self) -> Result<(), GavelError> {
        let bad = |m: String| Err(GavelError::Config(m));
        if !(self.lambda >= 0.0 && self.lambda.is_finite()) {
            return bad(format!(
                "lambda {}: must be a non-negative number of seconds",
                self.lambda
            ));
        }
        if !(self.round_s > 0.0 && self.round_s.is_finite()) {
            return bad(format!(
                "round length {} s: must be a positive number",
                self.round_s
            ));
        }
        if let Some(d) = self.fixed_duration {
            if !(d > 0.0 && d.is_finite()) {
                return bad(format!("fixed duration {d} s: must be a positive number"));
            }
        }
        if let Some((a, b)) = self.window {
            if a > b {
                return bad(format!("window {a}..{b}: the first id is above the last"));
            }
        }
        match (self.lambda == 0.0, self.jobs, self.window) {
            (true, None, _) => {
                bad("lambda 0 (every job at t = 0) needs a job count: Gavel's static mode".into())
            }
            (true, Some(0), _) => bad("static mode needs at least one job".into()),
            (true, Some(n), Some((_, b))) if b >= n => bad(format!(
                "window ends at job {b} but only {n} jobs are generated: Gavel would never stop"
            )),
            (false, Some(_), _) => bad(
                "a job count is static mode's (lambda 0); continuous mode stops at the window"
                    .into(),
            ),
            (false, None, None) => bad(
                "continuous mode (lambda > 0) needs a window of job ids: it stops when they \
                 have all completed"
                    .into(),
            ),
            _ => Ok(()),
        }
    }
}

/// What became of a generated job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratedStatus {
    /// Completed (has a JCT).
    Completed,
    /// Dropped after five failed micro-tasks (no JCT; counts as done for the stop test).
    Dropped,
    /// Still running or queued when the window completed.
    Unfinished,
}

impl GeneratedStatus {
    /// `completed`, `dropped`, `unfinished`.
    pub fn as_str(self) -> &'static str {
        match self {
            GeneratedStatus::Completed => "completed",
            GeneratedStatus::Dropped => "dropped",
            GeneratedStatus::Unfinished => "unfinished",
        }
    }
}

/// One generated job and its result.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GeneratedJob {
    /// Gavel's job index (generation order).
    pub id: usize,
    /// Job type (template model).
    pub job_type: &'static str,
    /// Scale factor.
    pub scale_factor: u32,
    /// Priority weight.
    pub weight: f64,
    /// Drawn duration on V100s (s).
    pub duration_s: f64,
    /// Total steps (a float).
    pub total_steps: f64,
    /// Arrival (s).
    pub arrival: f64,
    /// Finish of its last micro-task, if completed.
    pub finish: Option<f64>,
    /// JCT (`finish − arrival`), if completed.
    pub jct: Option<f64>,
    /// Completed, dropped or unfinished.
    pub status: GeneratedStatus,
    /// In the measured window.
    pub tracked: bool,
    /// Successful micro-tasks.
    pub micro_tasks: u64,
    /// Pauses: times it had a micro-task in one dispatching iteration and none in the next
    /// while still unfinished (Gavel's simulator does not count them).
    pub preemptions: u64,
}

/// A generated-jobs run's outcome (GAVEL-GENERATED §G7).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GeneratedOutcome {
    /// Every generated job, by id.
    pub jobs: Vec<GeneratedJob>,
    /// Average JCT as Gavel reports it: `numpy.mean` over the window's completed jobs, or over
    /// all completed jobs without a window.
    pub avg_jct: Option<f64>,
    /// The same over weight-1 jobs.
    pub avg_jct_low_priority: Option<f64>,
    /// The same over the other jobs.
    pub avg_jct_high_priority: Option<f64>,
    /// Cluster utilisation over the whole run: busy GPU-seconds (successful micro-tasks, each
    /// credited `finish − round_start` per GPU) / (GPUs × final clock). Gavel averages per-GPU
    /// ratios, which differ from this only in float rounding.
    pub utilization: f64,
    /// Final clock ("Total duration"; the static sweep's makespan).
    pub final_clock: f64,
    /// Arrival of the window's first job.
    pub window_start: Option<f64>,
    /// Iterations that dispatched at least one micro-task.
    pub rounds: u64,
    /// Policy solves.
    pub solves: u64,
}

impl GeneratedOutcome {
    /// Jobs generated.
    pub fn generated(&self) -> usize {
        self.jobs.len()
    }

    /// Final clock − window start (Gavel's "Window duration").
    pub fn window_duration(&self) -> Option<f64> {
        self.window_start.map(|s| self.final_clock - s)
    }

    /// The window's jobs (or all jobs without a window) in id order.
    pub fn measured(&self) -> impl Iterator<Item = &GeneratedJob> {
        let windowed = self.jobs.iter().any(|j| j.tracked);
        self.jobs.iter().filter(move |j| !windowed || j.tracked)
    }
}

#[derive(Clone, Copy, Debug)]
struct Task {
    finish: f64,
    job: usize,
    gpu_type: usize,
    steps: f64,
    /// A co-located pair's second member and its steps.
    partner: Option<(usize, f64)>,
}

impl Task {
    /// Gavel's `JobIdPair` order: single jobs by id before pairs, pairs lexicographically.
    fn id_key(&self) -> (bool, usize, usize) {
        match self.partner {
            None => (false, self.job, 0),
            Some((b, _)) => (true, self.job, b),
        }
    }
}

struct Gen<'a> {
    generator: JobGenerator,
    table: &'a ThroughputTable,
    types: &'a [(String, u32)],
    jobs: Vec<GeneratedJob>,
}

impl Gen<'_> {
    /// Draws the next job, arriving at `arrival`, and adds it to `mech` (not admitted).
    fn make(&mut self, mech: &mut GavelMechanism, arrival: f64) -> Result<usize, GavelError> {
        let d = self.generator.next_draw();
        let (job_type, _) = GAVEL_JOB_TABLE[d.template];
        let id = self.jobs.len();
        let missing = |gpu: &str| GavelError::MissingThroughput {
            job: id,
            line: 0,
            job_type: job_type.to_string(),
            scale_factor: d.scale_factor,
            gpu_type: gpu.to_string(),
        };
        let reference = self
            .table
            .exact(REFERENCE_TYPE, job_type, d.scale_factor)
            .filter(|r| r.is_finite() && *r >= 0.0)
            .ok_or_else(|| missing(REFERENCE_TYPE))?;
        let total_steps = d.duration_s * reference;
        let mut tput = Vec::with_capacity(self.types.len());
        for (t, _) in self.types {
            tput.push(
                self.table
                    .exact(t, job_type, d.scale_factor)
                    .filter(|r| r.is_finite() && *r >= 0.0)
                    .ok_or_else(|| missing(t))?,
            );
        }
        let mj = MechJob::with_float_steps(d.scale_factor, d.weight, total_steps, arrival, tput)
            .with_job_type(job_type);
        let idx = mech
            .push_job(mj)
            .map_err(|e| GavelError::Config(e.to_string()))?;
        debug_assert_eq!(idx, id);
        self.jobs.push(GeneratedJob {
            id,
            job_type,
            scale_factor: d.scale_factor,
            weight: d.weight,
            duration_s: d.duration_s,
            total_steps,
            arrival,
            finish: None,
            jct: None,
            status: GeneratedStatus::Unfinished,
            tracked: false,
            micro_tasks: 0,
            preemptions: 0,
        });
        if total_steps.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            // Gavel asserts `num_steps > 0`: a zero V100 rate cannot define a job's length.
            return Err(GavelError::Config(format!(
                "generated job {id} ({job_type}, {} GPUs): its v100 throughput is 0, so it has \
                 no steps (Gavel's generator asserts they are positive)",
                d.scale_factor
            )));
        }
        Ok(id)
    }
}

/// Runs Gavel's generated-jobs simulation (GAVEL-GENERATED §G5-§G7) of `policy` on `cluster`
/// (GPU type and count, as [`register_types`] takes them) with the throughput `table` (the
/// generator's step counts come from its `v100` rates).
///
/// # Errors
///
/// A bad setting ([`GeneratedConfig`]'s rules: λ = 0 needs a job count, λ > 0 a window), an
/// unknown GPU type, a missing throughput, a window or static job that no GPU type can run
/// (Gavel would loop forever), or a static run that can no longer progress.
pub fn run_generated(
    table: &ThroughputTable,
    cluster: &[(String, u32)],
    policy: GavelPolicyKind,
    cfg: &GeneratedConfig,
) -> Result<GeneratedOutcome, GavelError> {
    run_generated_colocated(table, None, cluster, policy, cfg)
}

/// [`run_generated`] with the table's co-located rates (`colocated`), which the `*_packed`
/// policies need.
///
/// # Errors
///
/// As [`run_generated`]; a `*_packed` policy without `colocated`; a `*_packed` LP Gavel's
/// HEAD cannot build (mixed scale factors whose rows do not divide, GAVEL-GENERATED §G8.3).
pub fn run_generated_colocated(
    table: &ThroughputTable,
    colocated: Option<Arc<ColocatedThroughputs>>,
    cluster: &[(String, u32)],
    policy: GavelPolicyKind,
    cfg: &GeneratedConfig,
) -> Result<GeneratedOutcome, GavelError> {
    cfg.check()?;
    let types = register_types(cluster)?;
    let n_gpus: f64 = types.iter().map(|(_, c)| f64::from(*c)).sum();
    let round_s = cfg.round_s;
    let mut mech = GavelMechanism::new(policy, &types, round_s, cfg.seed, Vec::new())
        .map_err(|e| GavelError::Config(e.to_string()))?;
    if policy.is_packed() {
        let c = colocated.ok_or_else(|| {
            GavelError::Config(format!(
                "{policy} needs the throughput table's co-located rates (Gavel's \
                 simulation_throughputs.json has them)"
            ))
        })?;
        mech = mech.with_colocated(c);
    }
    let mut g = Gen {
        generator: JobGenerator::new(cfg.seed, cfg.multi_gpu, cfg.priorities, cfg.fixed_duration)?,
        table,
        types: &types,
        jobs: Vec::new(),
    };
    let mut arrivals = ArrivalSampler::new(cfg.seed, cfg.lambda)?;
    let window = cfg.window;
    let in_window = |id: usize| window.is_some_and(|(a, b)| (a..=b).contains(&id));
    let window_size = window.map_or(0, |(a, b)| b - a + 1);
    let static_n = cfg.jobs;
    let mut window_done = 0usize;
    let mut remaining = static_n.unwrap_or(0);
    let mut window_start = None;
    // A job no GPU type can run never completes: fatal if the stop test waits for it.
    let admit_new = |g: &mut Gen<'_>,
                     mech: &mut GavelMechanism,
                     arrival: f64,
                     window_start: &mut Option<f64>|
     -> Result<(), GavelError> {
        let id = g.make(mech, arrival)?;
        let runnable = types
            .iter()
            .enumerate()
            .any(|(w, (_, c))| *c >= g.jobs[id].scale_factor && mech.job(id).throughput[w] > 0.0);
        if in_window(id) {
            g.jobs[id].tracked = true;
            if window.is_some_and(|(a, _)| a == id) {
                *window_start = Some(arrival);
            }
        }
        if !runnable && (in_window(id) || static_n.is_some()) {
            return Err(GavelError::Stuck {
                clock: arrival,
                jobs: vec![id],
            });
        }
        mech.admit(id);
        Ok(())
    };

    // §G5: steady-state pre-fill, alphabetical types, arrival 0, no inter-arrival draws.
    if cfg.steady_state {
        for (_, count) in &types {
            let mut left = i64::from(*count);
            while left > 0 {
                admit_new(&mut g, &mut mech, 0.0, &mut window_start)?;
                left -= i64::from(g.jobs[g.jobs.len() - 1].scale_factor);
            }
        }
    }

    let mut clock = 0.0;
    let mut round_start = 0.0;
    let mut round_end: Option<f64> = None;
    let mut running: Vec<Task> = Vec::new();
    let mut pending = 0.0;
    let mut rounds = 0u64;
    let mut busy = 0.0;
    let mut pauses = crate::clock::Pauses::default();
    loop {
        // §G6.2: the stop test; no forced reset.
        if window.is_some() {
            if window_done == window_size {
                break;
            }
        } else if remaining == 0 {
            break;
        }
        // Advance the clock, or jump to the pending arrival.
        let mx = running
            .iter()
            .map(|t| t.finish)
            .fold(f64::NEG_INFINITY, f64::max);
        if !running.is_empty() && mx > 0.0 {
            if let Some(end) = round_end {
                round_start = end;
            }
            round_end = Some(mx);
            clock = mx;
        } else {
            clock = pending;
        }
        // Credit, latest finish first, ties by lower id.
        running.sort_by(|a, b| {
            b.finish
                .partial_cmp(&a.finish)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.id_key().cmp(&b.id_key()))
        });
        for t in running.drain(..) {
            let exec = t.finish - round_start;
            if let Some((b, b_steps)) = t.partner {
                let out = mech.credit_pair(t.job, b, t.gpu_type, [t.steps, b_steps], exec);
                if out[0] != Credit::Failed {
                    // Each GPU of the pair is busy for the execution time, once.
                    busy += exec * f64::from(g.jobs[t.job].scale_factor);
                }
                for (m, c) in [t.job, b].into_iter().zip(out) {
                    let j = &mut g.jobs[m];
                    if matches!(c, Credit::Progress | Credit::Completed) {
                        j.micro_tasks += 1;
                    }
                    if c == Credit::Completed {
                        j.finish = Some(t.finish);
                        j.jct = Some(t.finish - j.arrival);
                        j.status = GeneratedStatus::Completed;
                        remaining = remaining.saturating_sub(1);
                        if j.tracked {
                            window_done += 1;
                        }
                    }
                }
                continue;
            }
            let j = &mut g.jobs[t.job];
            let done = match mech.credit_steps(t.job, t.gpu_type, t.steps, exec) {
                Credit::Progress => {
                    j.micro_tasks += 1;
                    busy += exec * f64::from(j.scale_factor);
                    false
                }
                Credit::Completed => {
                    j.micro_tasks += 1;
                    busy += exec * f64::from(j.scale_factor);
                    j.finish = Some(t.finish);
                    j.jct = Some(t.finish - j.arrival);
                    j.status = GeneratedStatus::Completed;
                    true
                }
                Credit::Failed => false,
                Credit::Dropped => {
                    j.status = GeneratedStatus::Dropped;
                    true
                }
            };
            if done {
                remaining = remaining.saturating_sub(1);
                if j.tracked {
                    window_done += 1;
                }
            }
        }
        // §G6.3: generate and admit while the pending arrival is due.
        while pending <= clock && static_n.map_or(true, |n| g.jobs.len() < n) {
            admit_new(&mut g, &mut mech, pending, &mut window_start)?;
            pending += arrivals.next_gap();
        }
        let plan = mech.plan_round_packed(clock);
        if let Some(e) = mech.fatal() {
            return Err(GavelError::Config(e.to_owned()));
        }
        pauses.dispatch(
            plan.iter().flat_map(Placement::jobs),
            |j| mech.is_active(j),
            |j| g.jobs[j].preemptions += 1,
        );
        let steps_at = |mech: &GavelMechanism, j: usize, t: f64| -> f64 {
            let left = mech.remaining_steps(j);
            // Python's int() of a positive float truncates toward zero.
            let full = (t * round_s).trunc();
            if left < full {
                left
            } else {
                full
            }
        };
        for p in plan {
            match p {
                Placement::Single {
                    job: j,
                    gpu_type: w,
                } => {
                    let t = mech.job(j).throughput[w];
                    let steps = steps_at(&mech, j, t);
                    running.push(Task {
                        finish: clock + steps / t,
                        job: j,
                        gpu_type: w,
                        steps,
                        partner: None,
                    });
                }
                Placement::Pair {
                    jobs: [a, b],
                    gpu_type: w,
                    throughput: [ta, tb],
                } => {
                    let (sa, sb) = (steps_at(&mech, a, ta), steps_at(&mech, b, tb));
                    let finish = (clock + sa / ta).max(clock + sb / tb).max(clock);
                    running.push(Task {
                        finish,
                        job: a,
                        gpu_type: w,
                        steps: sa,
                        partner: Some((b, sb)),
                    });
                }
            }
        }
        if running.is_empty() {
            if static_n.is_some() && remaining > 0 {
                // Gavel would set the clock back to its pending arrival, 0, and spin.
                let left: Vec<usize> = (0..g.jobs.len()).filter(|&j| mech.is_active(j)).collect();
                return Err(GavelError::Stuck { clock, jobs: left });
            }
        } else {
            rounds += 1;
        }
    }
    let jobs = g.jobs;
    let measured: Vec<&GeneratedJob> = {
        let windowed = window.is_some();
        jobs.iter().filter(|j| !windowed || j.tracked).collect()
    };
    let mean_of = |keep: &dyn Fn(&GeneratedJob) -> bool| {
        let v: Vec<f64> = measured
            .iter()
            .filter(|j| keep(j))
            .filter_map(|j| j.jct)
            .collect();
        numpy_mean(&v)
    };
    let avg_jct = mean_of(&|_| true);
    let avg_jct_low_priority = mean_of(&|j| j.weight == 1.0);
    let avg_jct_high_priority = mean_of(&|j| j.weight != 1.0);
    let utilization = if clock > 0.0 {
        busy / clock / n_gpus
    } else {
        0.0
    };
    Ok(GeneratedOutcome {
        jobs,
        avg_jct,
        avg_jct_low_priority,
        avg_jct_high_priority,
        utilization,
        final_clock: clock,
        window_start,
        rounds,
        solves: mech.solves(),
    })
}
