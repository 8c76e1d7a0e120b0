//! Sweeps: many scenarios from one, run in parallel, resumable and shardable.
//!
//! A [`Sweep`] is a base [`Scenario`] and lists of values for some of its settings; its runs are
//! the cross product, in a fixed order (semantics, cluster, admission, policy, placement, load,
//! seed, with the last varying fastest). Each run has an index in that order and a label, and
//! writes its outputs to `OUT/runs/LABEL/` (`jobs.csv`, `summary.json`, `timeline.csv`, and
//! `run.json` with its index, label and scenario). A run whose `run.json` exists is skipped, so
//! an interrupted sweep resumes where it stopped. `--shard K/N` keeps the runs whose index is
//! `K mod N` (K counted from 0), so N batch tasks (a Slurm job array, a Kubernetes Indexed Job)
//! can share one output folder; [`merge`] then writes the one results table from whatever runs
//! are in the folder, plus `jct_vs_load.svg` when runs differ in load.

use crate::registry::{Named, Registry};
use crate::scenario::write_atomically;
use crate::{Model, Observe, Parsed, PeerRun, RunSettings, Scenario};
use blox_admission::AdmissionConfig;
use blox_placement::PlacementConfig;
use blox_policies::PolicyConfig;
use blox_sim::SimError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most runs a sweep may have: each is built before the first starts.
pub const MAX_SWEEP_RUNS: usize = 100_000;
use std::path::{Path, PathBuf};

/// The lists a sweep crosses. An empty list keeps the base scenario's value.
///
/// Runs under the engine's semantics (`exact`, `blox`, `synergy`) start from [`Sweep::base`];
/// runs under a peer's (`tiresias`, `gavel`, `pollux`) start from [`Sweep::settings`] and cross
/// the clusters, policies, placements and seeds (a peer refuses the lists it does not take,
/// as `run` refuses the flags).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    /// The scenario every engine run starts from.
    pub base: Scenario,
    /// The settings every peer run starts from.
    pub settings: RunSettings,
    /// Semantics to try (empty: the base scenario's).
    pub semantics: Vec<Model>,
    /// Clusters to try (`NODESxGPUS`).
    pub clusters: Vec<String>,
    /// Admission policies to try.
    pub admissions: Vec<Named<AdmissionConfig>>,
    /// Scheduling policies to try.
    pub policies: Vec<Named<PolicyConfig>>,
    /// Placements to try.
    pub placements: Vec<Named<PlacementConfig>>,
    /// Loads (jobs/hour) to try; needs the generated workload.
    pub loads: Vec<f64>,
    /// Seeds to try.
    pub seeds: Vec<u64>,
    /// Random failures to try (`None`: no failures), crossed between load and seed; labels
    /// then end their settings with `-failMTBF-MTTR` or `-nofail`.
    pub failures: Vec<Option<String>>,
    /// Arrival rates (jobs/hour) of Gavel's generated jobs to try (`--semantics gavel
    /// --workload gavel-generated`), crossed between placement and seed; results.csv's `load`
    /// holds the rate.
    pub rates: Vec<f64>,
}

/// One run of a sweep: a scenario under the engine's semantics, or a peer's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRun {
    /// Position in the sweep's order.
    pub index: usize,
    /// A unique, file-name-safe label, e.g. `blox-accept-all-las-scattered-load8-seed1`.
    pub label: String,
    /// The scenario of a run under the engine's semantics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
    /// The settings of a run under a peer's semantics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<RunSettings>,
}

impl SweepRun {
    /// A run from its JSON form (a sweep's `run.json`, a Slurm sweep's plan). Not generic: a
    /// crate that reads runs calls this instead of compiling the scenario's deserialiser again.
    pub fn from_json(v: serde_json::Value) -> Result<SweepRun, serde_json::Error> {
        serde_json::from_value(v)
    }
}

/// One row of the results table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// Position in the sweep's order.
    pub index: usize,
    /// The run's label.
    pub label: String,
    /// Semantics.
    pub semantics: String,
    /// Cluster.
    pub cluster: String,
    /// Admission policy.
    pub admission: String,
    /// Scheduling policy.
    pub policy: String,
    /// Placement policy.
    pub placement: String,
    /// Load in jobs/hour (empty for traces).
    pub load: Option<f64>,
    /// Seed.
    pub seed: u64,
    /// Tracked jobs.
    pub n_tracked: u64,
    /// Mean JCT of tracked jobs, s.
    pub avg_jct_s: f64,
    /// Median JCT, s.
    pub p50_jct_s: f64,
    /// 99th-percentile JCT, s.
    pub p99_jct_s: f64,
    /// Mean responsiveness, s.
    pub avg_responsiveness_s: f64,
    /// Preemptions counted.
    pub preemptions_total: u64,
    /// Makespan of the tracked jobs, s.
    pub makespan_s: f64,
    /// End of the run, s.
    pub end_time_s: f64,
    /// Random failures per node (or GPU) per hour, `1/mtbf`, of a run with failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_rate: Option<f64>,
}

/// Header of `results.csv`.
pub const RESULTS_CSV_HEADER: &str = "index,label,semantics,cluster,admission,policy,placement,load,seed,n_tracked,avg_jct_s,p50_jct_s,p99_jct_s,avg_responsiveness_s,preemptions_total,makespan_s,end_time_s";

fn or_base<T: Clone>(list: &[T], base: T) -> Vec<T> {
    if list.is_empty() {
        vec![base]
    } else {
        list.to_vec()
    }
}

fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

impl Sweep {
    /// Every run, in order.
    pub fn runs(&self) -> Result<Vec<SweepRun>, SimError> {
        let b = &self.base;
        let base_load = b.load();
        if !self.loads.is_empty() && base_load.is_none() {
            return Err(SimError::Config(
                "--load applies to a generated or resampled workload (blox-default, \
                 blox-multigpu-trace, blox-synthetic, poisson, dual-load, --resample), not to a \
                 trace replayed as it is"
                    .into(),
            ));
        }
        let count = [
            self.semantics.len(),
            self.clusters.len(),
            self.admissions.len(),
            self.policies.len(),
            self.placements.len(),
            self.loads.len(),
            self.failures.len(),
            self.seeds.len(),
            self.rates.len(),
        ]
        .iter()
        .fold(1u128, |acc, &n| acc * n.max(1) as u128);
        if count > MAX_SWEEP_RUNS as u128 {
            return Err(SimError::Config(format!(
                "the sweep has {count} runs (the product of its lists' lengths), above the \
                 bound of {MAX_SWEEP_RUNS}"
            )));
        }
        let mut runs = Vec::new();
        for model in or_base(&self.semantics, Model::from(b.semantics)) {
            let Some(sem) = model.engine() else {
                self.peer_runs(model, &mut runs)?;
                continue;
            };
            // A setting for every run that the engine does not take is refused, as `run` does.
            model
                .check(&self.settings.given())
                .map_err(SimError::Config)?;
            if !self.rates.is_empty() {
                return Err(SimError::Config(format!(
                    "--rate is the arrival rate of Gavel's generated jobs (--semantics gavel \
                     --workload gavel-generated); under --semantics {sem} --load sets the rate"
                )));
            }
            for cluster in or_base(&self.clusters, b.cluster.to_string()) {
                for adm in or_base(&self.admissions, b.admission.clone()) {
                    for pol in or_base(&self.policies, b.policy.clone()) {
                        for pla in or_base(&self.placements, b.placement.clone()) {
                            for load in or_base(&self.loads, base_load.unwrap_or(0.0)) {
                                for fail in or_base(
                                    &self.failures,
                                    b.failures.as_ref().map(|f| f.to_string()),
                                ) {
                                    for seed in or_base(&self.seeds, b.seed) {
                                        let mut s = b.clone();
                                        s.semantics = sem;
                                        s.cluster = cluster.as_str().into();
                                        s.admission = adm.clone();
                                        s.policy = pol.clone();
                                        s.placement = pla.clone();
                                        s.seed = seed;
                                        s.set_load(load);
                                        s.failures = fail.as_deref().map(Parsed::new);
                                        let load_part = s
                                            .load()
                                            .map_or_else(String::new, |l| format!("-load{l}"));
                                        let fail_part = if self.failures.is_empty() {
                                            String::new()
                                        } else {
                                            failure_label(fail.as_deref())
                                        };
                                        let label = safe(&format!(
                                        "{sem}-{cluster}-{adm}-{pol}-{pla}{load_part}{fail_part}-seed{seed}"
                                    ));
                                        s.out = None;
                                        runs.push(SweepRun {
                                            index: runs.len(),
                                            label,
                                            scenario: Some(s),
                                            settings: None,
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(runs)
    }
}

impl Sweep {
    /// The runs under peer model `model`: [`Sweep::settings`] with each cluster, policy,
    /// placement and seed; the lists a peer does not take are refused.
    fn peer_runs(&self, model: Model, runs: &mut Vec<SweepRun>) -> Result<(), SimError> {
        for (given, what) in [
            (!self.admissions.is_empty(), "--admission"),
            (!self.loads.is_empty(), "--load"),
            (!self.failures.is_empty(), "--failures"),
        ] {
            if given {
                return Err(SimError::Config(format!(
                    "{what} has no meaning under --semantics {model} in a sweep (its runs cross \
                     --cluster, --policy, --placement and --seed)"
                )));
            }
        }
        let st = &self.settings;
        let some = |v: Option<String>| vec![v];
        let clusters: Vec<Option<String>> = if self.clusters.is_empty() {
            some(st.cluster.clone())
        } else {
            self.clusters.iter().cloned().map(Some).collect()
        };
        let policies: Vec<Option<String>> = if self.policies.is_empty() {
            some(st.policy.clone())
        } else {
            self.policies.iter().map(|p| Some(p.to_string())).collect()
        };
        let placements: Vec<Option<Named<PlacementConfig>>> = if self.placements.is_empty() {
            vec![st.placement.clone()]
        } else {
            self.placements.iter().cloned().map(Some).collect()
        };
        let rates: Vec<Option<f64>> = if self.rates.is_empty() {
            vec![st.rate]
        } else {
            self.rates.iter().copied().map(Some).collect()
        };
        let seeds: Vec<Option<u64>> = if self.seeds.is_empty() {
            vec![st.seed]
        } else {
            self.seeds.iter().copied().map(Some).collect()
        };
        for cluster in &clusters {
            for policy in &policies {
                for placement in &placements {
                    for (rate, seed) in rates.iter().flat_map(|r| seeds.iter().map(move |s| (r, s)))
                    {
                        let mut s = st.clone();
                        s.rate = *rate;
                        s.semantics = Some(model);
                        s.cluster = cluster.clone();
                        s.policy = policy.clone();
                        s.placement = placement.clone();
                        s.seed = *seed;
                        s.out = None;
                        let mut label = format!(
                            "{model}-{}-{}",
                            cluster.as_deref().unwrap_or("default"),
                            policy.as_deref().unwrap_or("default")
                        );
                        if let Some(p) = placement {
                            label.push_str(&format!("-{p}"));
                        }
                        if let Some(r) = rate {
                            label.push_str(&format!("-rate{r}"));
                        }
                        if let Some(seed) = seed {
                            label.push_str(&format!("-seed{seed}"));
                        }
                        runs.push(SweepRun {
                            index: runs.len(),
                            label: safe(&label),
                            scenario: None,
                            settings: Some(s),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// `-failMTBF-MTTR[-gpu]` for a failure spec, `-nofail` for none (a spec that does not parse
/// keeps its text; the run reports the error).
fn failure_label(spec: Option<&str>) -> String {
    match spec.map(str::parse::<blox_nodes::FailureSpec>) {
        None => "-nofail".into(),
        Some(Ok(f)) => {
            let scope = if f.scope == blox_nodes::FailureScope::Gpu {
                "-gpu"
            } else {
                ""
            };
            format!("-fail{}-{}{scope}", f.mtbf_h, f.mttr_h)
        }
        Some(Err(_)) => format!("-fail{}", spec.unwrap_or_default()),
    }
}

/// A deterministic slice `K/N` of a sweep (K from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 0-based.
    pub k: usize,
    /// Number of shards.
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, SimError> {
        let bad = || {
            SimError::Config(format!(
                "invalid shard `{s}` (expected K/N with 0 <= K < N, e.g. 0/4)"
            ))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl Shard {
    /// Whether the run with this index belongs to the shard.
    pub fn contains(&self, index: usize) -> bool {
        index % self.n == self.k
    }
}

/// Run one sweep run into `out/runs/LABEL/`, unless it is already there. Returns whether it ran.
pub fn run_one(run: &SweepRun, out: &Path) -> Result<bool, SimError> {
    run_one_with(run, out, &Registry::default())
}

/// [`run_one`], building registered components through `registry`.
pub fn run_one_with(run: &SweepRun, out: &Path, registry: &Registry) -> Result<bool, SimError> {
    let dir = out.join("runs").join(&run.label);
    let marker = dir.join("run.json");
    if marker.exists() {
        return Ok(false);
    }
    match (&run.scenario, &run.settings) {
        (Some(s), _) => {
            let mut s = s.clone();
            s.out = Some(dir.clone());
            s.run_with(registry)?;
        }
        (None, Some(st)) => {
            let mut st = st.clone();
            st.out = Some(dir.clone());
            let finished = st.prepare(registry)?.run(registry, Observe::quiet())?;
            let row = peer_row(run, &st, &finished);
            let bytes = serde_json::to_vec_pretty(&row).expect("serialising to memory");
            write_atomically(&dir, PEER_ROW_FILE, &bytes)?;
        }
        (None, None) => {
            return Err(SimError::Config(format!(
                "run {} ({}): neither a scenario nor settings",
                run.index, run.label
            )))
        }
    }
    // The marker comes last: a run interrupted before it is run again.
    let bytes = serde_json::to_vec_pretty(run).expect("serialising to memory");
    write_atomically(&dir, "run.json", &bytes)?;
    Ok(true)
}

/// The results row of a run under a peer's semantics, written beside its files (its
/// `summary.json` is the peer's own).
const PEER_ROW_FILE: &str = "sweep_row.json";

fn peer_row(run: &SweepRun, st: &RunSettings, f: &crate::Finished) -> SweepRow {
    let r = f.row();
    SweepRow {
        index: run.index,
        label: run.label.clone(),
        semantics: f.model.to_string(),
        cluster: st.cluster.clone().unwrap_or_default(),
        admission: String::new(),
        policy: st.policy.clone().unwrap_or_default(),
        placement: st
            .placement
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        load: st.rate,
        seed: st.seed.unwrap_or(0),
        n_tracked: r.n_tracked,
        avg_jct_s: r.avg_jct_s,
        p50_jct_s: r.p50_jct_s,
        p99_jct_s: r.p99_jct_s,
        avg_responsiveness_s: f.metrics.statistics.avg_responsiveness_s,
        preemptions_total: f.preemptions,
        makespan_s: r.makespan_s,
        end_time_s: f.end_time_s,
        failure_rate: None,
    }
}

fn row(run: &SweepRun, summary: &serde_json::Value) -> SweepRow {
    let f = |k: &str| {
        summary
            .get(k)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(f64::NAN)
    };
    let stat = |k: &str| {
        summary["statistics"]
            .get(k)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(f64::NAN)
    };
    let s = run.scenario.clone().unwrap_or_default();
    SweepRow {
        index: run.index,
        label: run.label.clone(),
        semantics: s.semantics.to_string(),
        cluster: s.cluster.to_string(),
        admission: s.admission.to_string(),
        policy: s.policy.to_string(),
        placement: s.placement.to_string(),
        load: s.load(),
        seed: s.seed,
        n_tracked: summary["n_tracked"].as_u64().unwrap_or(0),
        avg_jct_s: f("avg_jct_s"),
        p50_jct_s: stat("p50_jct_s"),
        p99_jct_s: stat("p99_jct_s"),
        avg_responsiveness_s: f("avg_responsiveness_s"),
        preemptions_total: summary["preemptions_total"].as_u64().unwrap_or(0),
        makespan_s: f("makespan_s"),
        end_time_s: f("end_time_s"),
        failure_rate: s.failure_spec().ok().flatten().map(|f| f.rate_per_hour()),
    }
}

/// Read every finished run under `out/runs/`, and write `out/results.csv` and
/// `out/results.json` (rows in sweep order). Returns the rows.
pub fn merge(out: &Path) -> Result<Vec<SweepRow>, SimError> {
    let runs_dir = out.join("runs");
    let entries = std::fs::read_dir(&runs_dir).map_err(|e| SimError::io(&runs_dir, e))?;
    let mut rows = Vec::new();
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    for dir in dirs {
        let marker = dir.join("run.json");
        if !marker.exists() {
            continue;
        }
        let read = |p: &Path| -> Result<serde_json::Value, SimError> {
            let text = std::fs::read_to_string(p).map_err(|e| SimError::io(p, e))?;
            serde_json::from_str(&text)
                .map_err(|e| SimError::input(p, Some(e.line() as u64), None, e.to_string()))
        };
        let run = SweepRun::from_json(read(&marker)?)
            .map_err(|e| SimError::input(&marker, None, None, e.to_string()))?;
        let peer_row = dir.join(PEER_ROW_FILE);
        if run.scenario.is_none() && peer_row.exists() {
            let row: SweepRow = serde_json::from_value(read(&peer_row)?)
                .map_err(|e| SimError::input(&peer_row, None, None, e.to_string()))?;
            rows.push(row);
            continue;
        }
        let summary = read(&dir.join("summary.json"))?;
        rows.push(row(&run, &summary));
    }
    rows.sort_by_key(|r| r.index);
    write_results(out, &rows)?;
    Ok(rows)
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_results(out: &Path, rows: &[SweepRow]) -> Result<(), SimError> {
    // Sweeps over failures get one more column; others keep the frozen format.
    let with_failures = rows.iter().any(|r| r.failure_rate.is_some());
    let mut csv = String::from(RESULTS_CSV_HEADER);
    if with_failures {
        csv.push_str(",failure_rate");
    }
    csv.push('\n');
    for r in rows {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{:?},{:?},{:?},{:?},{},{:?},{:?}\n",
            r.index,
            r.label,
            r.semantics,
            r.cluster,
            csv_cell(&r.admission),
            csv_cell(&r.policy),
            csv_cell(&r.placement),
            r.load.map_or_else(String::new, |l| l.to_string()),
            r.seed,
            r.n_tracked,
            r.avg_jct_s,
            r.p50_jct_s,
            r.p99_jct_s,
            r.avg_responsiveness_s,
            r.preemptions_total,
            r.makespan_s,
            r.end_time_s
        ));
        if with_failures {
            csv.pop();
            csv.push_str(&format!(
                ",{}\n",
                r.failure_rate
                    .map_or_else(String::new, |x| format!("{x:?}"))
            ));
        }
    }
    let mut json = serde_json::to_vec_pretty(rows).expect("serialising to memory");
    json.push(b'\n');
    write_atomically(out, "results.csv", csv.as_bytes())?;
    write_atomically(out, "results.json", &json)?;
    // Average JCT against load, one series per setting other than load and seed (the mean
    // over seeds, with the min-max bars and the seed count when a point has several).
    let mut series: BTreeMap<String, BTreeMap<u64, Spread>> = BTreeMap::new();
    for r in rows {
        if let Some(load) = r.load {
            let label = format!(
                "{} {}/{}/{} {}",
                r.semantics, r.admission, r.policy, r.placement, r.cluster
            );
            series
                .entry(label)
                .or_default()
                .entry(load.to_bits())
                .or_default()
                .add(r.avg_jct_s);
        }
    }
    if series.values().any(|s| s.len() > 1) {
        plot_series(
            out,
            "jct_vs_load.svg",
            "Average JCT against load",
            None,
            &series,
        )?;
    }
    over_seeds(out, rows)?;
    if with_failures {
        plot_against_failure_rate(out, rows)?;
    }
    Ok(())
}

/// The mean, min, max and count of one point's values (its runs over seeds).
#[derive(Clone, Copy, Debug)]
struct Spread {
    sum: f64,
    n: u32,
    min: f64,
    max: f64,
}

impl Default for Spread {
    fn default() -> Self {
        Spread {
            sum: 0.0,
            n: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Spread {
    fn add(&mut self, v: f64) {
        self.sum += v;
        self.n += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    fn mean(&self) -> f64 {
        self.sum / f64::from(self.n)
    }
}

/// Writes `name`: one line per series through its points' means; when a point has several
/// runs (seeds), the title says how many and each point gets a min-max bar.
fn plot_series(
    out: &Path,
    name: &str,
    title: &str,
    x_desc: Option<&str>,
    series: &BTreeMap<String, BTreeMap<u64, Spread>>,
) -> Result<(), SimError> {
    let counts = series.values().flat_map(|pts| pts.values().map(|s| s.n));
    let (lo, hi) = counts.fold((u32::MAX, 0), |(a, b), n| (a.min(n), b.max(n)));
    let mut svg = Vec::new();
    let err = |e: blox_metrics::PlotError| SimError::Config(format!("{name}: {e}"));
    if hi > 1 {
        let seeds = if lo == hi {
            format!("{hi}")
        } else {
            format!("{lo}-{hi}")
        };
        let data: Vec<(String, Vec<blox_metrics::SpreadPoint>)> = series
            .iter()
            .map(|(label, pts)| {
                let v = pts
                    .iter()
                    .map(|(x, s)| (f64::from_bits(*x), s.mean(), s.min, s.max))
                    .collect();
                (label.clone(), v)
            })
            .collect();
        let refs: Vec<(&str, &[blox_metrics::SpreadPoint])> = data
            .iter()
            .map(|(l, v)| (l.as_str(), v.as_slice()))
            .collect();
        let title = format!("{title} (mean of {seeds} seeds; bars: min to max)");
        let x = x_desc.unwrap_or("load (jobs per hour)");
        blox_metrics::plot_jct_vs_spread(&mut svg, &title, x, &refs).map_err(err)?;
    } else {
        let data: Vec<(String, Vec<(f64, f64)>)> = series
            .iter()
            .map(|(label, pts)| {
                let v = pts
                    .iter()
                    .map(|(x, s)| (f64::from_bits(*x), s.mean()))
                    .collect();
                (label.clone(), v)
            })
            .collect();
        let refs: Vec<(&str, &[(f64, f64)])> = data
            .iter()
            .map(|(l, v)| (l.as_str(), v.as_slice()))
            .collect();
        match x_desc {
            None => blox_metrics::plot_jct_vs_load(&mut svg, title, &refs),
            Some(x) => blox_metrics::plot_jct_vs(&mut svg, title, x, &refs),
        }
        .map_err(err)?;
    }
    write_atomically(out, name, &svg)
}

/// `results_over_seeds.csv`, when some setting ran with several seeds: one row per setting
/// (everything but the seed) with the number of seeds and the mean, min and max of the average
/// JCT, so a table over seeds says how much they spread.
fn over_seeds(out: &Path, rows: &[SweepRow]) -> Result<(), SimError> {
    let mut groups: BTreeMap<String, (usize, Spread)> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        let key = format!(
            "{},{},{},{},{},{},{}",
            r.semantics,
            r.cluster,
            csv_cell(&r.admission),
            csv_cell(&r.policy),
            csv_cell(&r.placement),
            r.load.map_or_else(String::new, |l| l.to_string()),
            r.failure_rate
                .map_or_else(String::new, |x| format!("{x:?}"))
        );
        let e = groups.entry(key).or_insert((i, Spread::default()));
        e.1.add(r.avg_jct_s);
    }
    if !groups.values().any(|(_, s)| s.n > 1) {
        return Ok(());
    }
    let mut ordered: Vec<(&String, &(usize, Spread))> = groups.iter().collect();
    ordered.sort_by_key(|(_, (first, _))| *first);
    let mut csv = String::from(
        "semantics,cluster,admission,policy,placement,load,failure_rate,n_seeds,mean_avg_jct_s,min_avg_jct_s,max_avg_jct_s\n",
    );
    for (key, (_, s)) in ordered {
        csv.push_str(&format!(
            "{key},{},{:?},{:?},{:?}\n",
            s.n,
            s.mean(),
            s.min,
            s.max
        ));
    }
    write_atomically(out, "results_over_seeds.csv", csv.as_bytes())
}

/// `jct_vs_failure_rate.svg`: average JCT against failures per node-hour (0 for runs without
/// failures), one series per setting other than failures and seed (the mean over seeds, with
/// min-max bars when a point has several).
fn plot_against_failure_rate(out: &Path, rows: &[SweepRow]) -> Result<(), SimError> {
    let mut series: BTreeMap<String, BTreeMap<u64, Spread>> = BTreeMap::new();
    for r in rows {
        let load = r.load.map_or_else(String::new, |l| format!(" load {l}"));
        let label = format!(
            "{} {}/{}/{} {}{load}",
            r.semantics, r.admission, r.policy, r.placement, r.cluster
        );
        series
            .entry(label)
            .or_default()
            .entry(r.failure_rate.unwrap_or(0.0).to_bits())
            .or_default()
            .add(r.avg_jct_s);
    }
    if !series.values().any(|s| s.len() > 1) {
        return Ok(());
    }
    plot_series(
        out,
        "jct_vs_failure_rate.svg",
        "Average JCT against failure rate",
        Some("failures per node-hour (1/MTBF)"),
        &series,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_the_cross_product_in_order_with_unique_labels() {
        let sweep = Sweep {
            policies: vec![PolicyConfig::Fifo.into(), PolicyConfig::Las.into()],
            loads: vec![1.0, 2.0, 3.0],
            ..Sweep::default()
        };
        let runs = sweep.runs().unwrap();
        assert_eq!(runs.len(), 6);
        assert_eq!(
            runs[0].label,
            "exact-32x4-accept-all-fifo-scattered-load1-seed1"
        );
        assert_eq!(runs[4].scenario.as_ref().and_then(|s| s.load()), Some(2.0));
        let mut labels: Vec<_> = runs.iter().map(|r| r.label.clone()).collect();
        labels.dedup();
        assert_eq!(labels.len(), 6);
    }

    #[test]
    fn shards_partition_the_runs() {
        let s: Shard = "1/3".parse().unwrap();
        assert!(s.contains(1) && s.contains(4) && !s.contains(3));
        assert!("3/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }
}
