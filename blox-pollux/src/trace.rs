//! One application's measurements: step times per placement, the large-cluster scalability
//! points, and per-epoch convergence at each validated batch size (the artifact's
//! `applications.py`, re-implemented from its description in POLLUX-SEMANTICS §2–§3).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::delaunay::Triangulation;
use crate::goodput::{fit_perf_params_with, FitRule, Observation, PerfParams};

/// An error reading an application's trace directory, naming the file, line and field.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceError {
    /// The file that could not be read or parsed.
    pub path: PathBuf,
    /// The 1-based line, or 0 when the whole file is at fault.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path.display(), self.message)
        } else {
            write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// A small numeric CSV: a header and rows of fields, read by column name.
pub(crate) struct Csv {
    pub(crate) path: PathBuf,
    header: Vec<String>,
    pub(crate) rows: Vec<(usize, Vec<String>)>,
}

impl Csv {
    pub(crate) fn read(path: &Path) -> Result<Csv, TraceError> {
        let text = std::fs::read_to_string(path).map_err(|e| TraceError {
            path: path.to_path_buf(),
            line: 0,
            message: format!("cannot read: {e}"),
        })?;
        Csv::parse(path, &text)
    }

    pub(crate) fn parse(path: &Path, text: &str) -> Result<Csv, TraceError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let header = match lines.next() {
            Some((_, h)) => h.split(',').map(|s| s.trim().to_string()).collect(),
            None => {
                return Err(TraceError {
                    path: path.to_path_buf(),
                    line: 0,
                    message: "empty file (expected a header line)".into(),
                })
            }
        };
        let rows = lines
            .map(|(i, l)| (i + 1, l.split(',').map(|s| s.trim().to_string()).collect()))
            .collect();
        Ok(Csv {
            path: path.to_path_buf(),
            header,
            rows,
        })
    }

    pub(crate) fn col(&self, name: &str) -> Result<usize, TraceError> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| TraceError {
                path: self.path.clone(),
                line: 1,
                message: format!("missing column `{name}` in header {:?}", self.header),
            })
    }

    pub(crate) fn field<'a>(
        &self,
        line: usize,
        row: &'a [String],
        col: usize,
        name: &str,
    ) -> Result<&'a str, TraceError> {
        row.get(col).map(String::as_str).ok_or_else(|| TraceError {
            path: self.path.clone(),
            line,
            message: format!("missing field `{name}`"),
        })
    }

    pub(crate) fn f64(
        &self,
        line: usize,
        row: &[String],
        col: usize,
        name: &str,
    ) -> Result<f64, TraceError> {
        let s = self.field(line, row, col, name)?;
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| TraceError {
                path: self.path.clone(),
                line,
                message: format!("field `{name}`: `{s}` is not a finite number"),
            })
    }

    pub(crate) fn u64(
        &self,
        line: usize,
        row: &[String],
        col: usize,
        name: &str,
    ) -> Result<u64, TraceError> {
        let s = self.field(line, row, col, name)?;
        // Pandas writes integer columns as integers; accept `12.0` too.
        let v = s.parse::<u64>().ok().or_else(|| {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.fract() == 0.0 && *v >= 0.0)
                .map(|v| v as u64)
        });
        v.ok_or_else(|| TraceError {
            path: self.path.clone(),
            line,
            message: format!("field `{name}`: `{s}` is not a non-negative integer"),
        })
    }
}

/// Per-epoch convergence measured at one total batch size (`validation-<B>.csv`).
#[derive(Debug, Clone)]
struct Validation {
    batch: u64,
    progress: Vec<f64>,
    iteration: Vec<f64>,
    grad_sqr: Vec<f64>,
    grad_var: Vec<f64>,
}

/// Rows of `placements.csv` for one placement id, sorted by per-GPU batch.
#[derive(Debug, Clone, Default)]
struct PlacementRows {
    local_bsz: Vec<f64>,
    step: Vec<f64>,
    sync: Vec<f64>,
}

/// A step time measurement: `(step_time, sync_time)` in seconds for one optimizer step without
/// gradient accumulation.
pub type StepTime = (f64, f64);

/// Memoised lookups: `(placement, local_bsz) → step time` (the original memoises too).
type StepMemo = BTreeMap<(Vec<u32>, u64), Option<StepTime>>;

/// Memoised throughput fits: a profile, as `(nodes, replicas, atomic, step bits, sync bits)` per
/// observation in order, → the fitted parameters.
type FitMemo = BTreeMap<Vec<u64>, PerfParams>;

/// One application of the Pollux artifact, loaded from `traces/<name>/`.
#[derive(Debug)]
pub struct Application {
    /// The application's name (the trace directory's name, e.g. `cifar10`).
    pub name: String,
    /// The smallest validated total batch size; progress is counted in steps of it.
    pub init_batch_size: u64,
    /// The largest validated total batch size.
    pub max_batch_size: u64,
    /// The smallest per-GPU batch measured.
    pub min_local_bsz: u64,
    /// The largest per-GPU batch allowed (measured, or the artifact's override).
    pub max_local_bsz: u64,
    /// Epochs to complete (the artifact's `APPLICATIONS` table).
    pub max_epochs: u32,
    validation: Vec<Validation>,
    placements: BTreeMap<u64, PlacementRows>,
    triangulation: Option<Triangulation>,
    /// Scalability rows `(num_nodes, num_replicas, local_bsz)` with their step times, in file
    /// order.
    scalability: Vec<((u64, u64, u64), StepTime)>,
    /// The 3-D interpolation points of a per-type load (placement means, then scalability
    /// rows), for [`crate::lifted`]; empty otherwise.
    points3d: Vec<[f64; 3]>,
    points3d_values: Vec<StepTime>,
    /// How the throughput model is fitted.
    fit: FitRule,
    /// Sia's lookup: a 1-D query outside a measured placement's batch range gives `(−1, −1)`
    /// instead of no value (SIA-SEMANTICS §2.1).
    minus_one_out_of_range: bool,
    memo: Mutex<StepMemo>,
    fits: Mutex<FitMemo>,
}

/// How [`Application::load_typed`] reads one GPU type's measurements (Sia's per-type traces,
/// SIA-SEMANTICS §2).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TypedLoad<'a> {
    /// The GPU type: the files read are `placements-<type>.csv` and `scalability-<type>.csv`.
    pub gpu_type: &'a str,
    /// How the throughput model is fitted.
    pub fit: FitRule,
}

impl<'a> TypedLoad<'a> {
    /// Load type `gpu_type` with the measured per-GPU range and the throughput fit `fit`.
    pub fn new(gpu_type: &'a str, fit: FitRule) -> TypedLoad<'a> {
        TypedLoad { gpu_type, fit }
    }
}

/// The artifact's per-application overrides (`applications.py`, the `APPLICATIONS` table):
/// epochs to complete, and yolov3's per-GPU batch cap of 8.
pub fn overrides(name: &str) -> Option<(u32, Option<u64>)> {
    match name {
        "bert" => Some((2, None)),
        "cifar10" => Some((100, None)),
        "ncf" => Some((10, None)),
        "imagenet" => Some((90, None)),
        "deepspeech2" => Some((80, None)),
        "yolov3" => Some((50, Some(8))),
        _ => None,
    }
}

/// The six applications of the artifact, in a fixed order.
pub const APPLICATION_NAMES: [&str; 6] = [
    "bert",
    "cifar10",
    "deepspeech2",
    "imagenet",
    "ncf",
    "yolov3",
];

impl Application {
    /// Load `dir` (a `traces/<name>/` directory). Unknown application names use the measured
    /// epoch count (the shortest validation file) and the measured per-GPU range.
    pub fn load(dir: &Path) -> Result<Application, TraceError> {
        Application::load_with(dir, None)
    }

    /// Load one GPU type's measurements of `dir` the way Sia's artifact does (SIA-SEMANTICS
    /// §2): `placements-<type>.csv` and `scalability-<type>.csv` with the shared validation
    /// files; the epoch table of [`overrides`] but no per-GPU cap (Sia does not cap yolov3);
    /// a 1-D lookup outside a placement's measured batch range gives `(−1, −1)` (the
    /// original's `[quirk]`); no 3-D triangulation is shipped for the per-type points: a
    /// placement absent from the type's placements file is interpolated along the scalability
    /// rows of its exact `(nodes, replicas)` if there are any, else in the Delaunay simplex
    /// found by the lifting linear program of `lifted.rs` (SIA-SEMANTICS §13.4).
    pub fn load_typed(dir: &Path, load: TypedLoad<'_>) -> Result<Application, TraceError> {
        Application::load_with(dir, Some(load))
    }

    fn load_with(dir: &Path, typed: Option<TypedLoad<'_>>) -> Result<Application, TraceError> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let derr = |m: String| TraceError {
            path: dir.to_path_buf(),
            line: 0,
            message: m,
        };
        let mut validation = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|e| derr(format!("cannot list: {e}")))?;
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for path in files {
            let fname = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let Some(b) = fname
                .as_deref()
                .and_then(|f| f.strip_prefix("validation-"))
                .and_then(|f| f.strip_suffix(".csv"))
            else {
                continue;
            };
            let batch: u64 = b.parse().map_err(|_| TraceError {
                path: path.clone(),
                line: 0,
                message: format!("batch size `{b}` in the file name is not an integer"),
            })?;
            let csv = Csv::read(&path)?;
            let (cp, ci, cs, cv) = (
                csv.col("progress")?,
                csv.col("iteration")?,
                csv.col("grad_sqr")?,
                csv.col("grad_var")?,
            );
            let mut v = Validation {
                batch,
                progress: vec![],
                iteration: vec![],
                grad_sqr: vec![],
                grad_var: vec![],
            };
            for (line, row) in &csv.rows {
                v.progress.push(csv.f64(*line, row, cp, "progress")?);
                v.iteration.push(csv.f64(*line, row, ci, "iteration")?);
                v.grad_sqr.push(csv.f64(*line, row, cs, "grad_sqr")?);
                v.grad_var.push(csv.f64(*line, row, cv, "grad_var")?);
            }
            if v.progress.is_empty() {
                return Err(TraceError {
                    path,
                    line: 0,
                    message: "no rows".into(),
                });
            }
            validation.push(v);
        }
        if validation.is_empty() {
            return Err(derr("no validation-<batch>.csv files".into()));
        }
        validation.sort_by_key(|v| v.batch);

        let suffix = typed.map_or(String::new(), |t| format!("-{}", t.gpu_type));
        let ppath = dir.join(format!("placements{suffix}.csv"));
        let csv = Csv::read(&ppath)?;
        let (cpl, cb, cst, csy) = (
            csv.col("placement")?,
            csv.col("local_bsz")?,
            csv.col("step_time")?,
            csv.col("sync_time")?,
        );
        let mut placements: BTreeMap<u64, Vec<(f64, f64, f64)>> = BTreeMap::new();
        for (line, row) in &csv.rows {
            let p = csv.u64(*line, row, cpl, "placement")?;
            if p == 0 || p.to_string().contains('0') {
                return Err(TraceError {
                    path: ppath.clone(),
                    line: *line,
                    message: format!("field `placement`: `{p}` must be GPU counts 1-9 per node"),
                });
            }
            let b = csv.u64(*line, row, cb, "local_bsz")? as f64;
            let st = csv.f64(*line, row, cst, "step_time")?;
            let sy = csv.f64(*line, row, csy, "sync_time")?;
            placements.entry(p).or_default().push((b, st, sy));
        }
        if placements.is_empty() {
            return Err(TraceError {
                path: ppath,
                line: 0,
                message: "no rows".into(),
            });
        }
        let mut min_local = u64::MAX;
        let mut max_local = 0;
        // The 3-D interpolation points: per-(nodes, replicas, local_bsz) means of placements,
        // then every scalability row (in file order).
        let mut groups: BTreeMap<(u64, u64, u64), (f64, f64, u32)> = BTreeMap::new();
        let placements: BTreeMap<u64, PlacementRows> = placements
            .into_iter()
            .map(|(p, mut rows)| {
                rows.sort_by(|a, b| a.0.total_cmp(&b.0));
                let digits: Vec<u64> = p.to_string().bytes().map(|c| u64::from(c - b'0')).collect();
                let (n, r) = (digits.len() as u64, digits.iter().sum::<u64>());
                let mut pr = PlacementRows::default();
                for (b, st, sy) in rows {
                    min_local = min_local.min(b as u64);
                    max_local = max_local.max(b as u64);
                    let g = groups.entry((n, r, b as u64)).or_insert((0.0, 0.0, 0));
                    g.0 += st;
                    g.1 += sy;
                    g.2 += 1;
                    pr.local_bsz.push(b);
                    pr.step.push(st);
                    pr.sync.push(sy);
                }
                (p, pr)
            })
            .collect();
        let mut points: Vec<([u64; 3], StepTime)> = groups
            .into_iter()
            .map(|((n, r, b), (st, sy, c))| ([n, r, b], (st / f64::from(c), sy / f64::from(c))))
            .collect();
        let mut scalability = Vec::new();
        let spath = dir.join(format!("scalability{suffix}.csv"));
        if spath.exists() {
            let csv = Csv::read(&spath)?;
            let (cn, cr, cb, cst, csy) = (
                csv.col("num_nodes")?,
                csv.col("num_replicas")?,
                csv.col("local_bsz")?,
                csv.col("step_time")?,
                csv.col("sync_time")?,
            );
            for (line, row) in &csv.rows {
                let key = [
                    csv.u64(*line, row, cn, "num_nodes")?,
                    csv.u64(*line, row, cr, "num_replicas")?,
                    csv.u64(*line, row, cb, "local_bsz")?,
                ];
                let st = (
                    csv.f64(*line, row, cst, "step_time")?,
                    csv.f64(*line, row, csy, "sync_time")?,
                );
                scalability.push(((key[0], key[1], key[2]), st));
                points.push((
                    key,
                    (
                        csv.f64(*line, row, cst, "step_time")?,
                        csv.f64(*line, row, csy, "sync_time")?,
                    ),
                ));
            }
        }
        let (points3d, points3d_values): (Vec<[f64; 3]>, Vec<StepTime>) = match typed {
            Some(_) => points
                .iter()
                .map(|(k, v)| ([k[0].min(16) as f64, k[1] as f64, k[2] as f64], *v))
                .unzip(),
            None => (Vec::new(), Vec::new()),
        };
        let triangulation = match typed {
            Some(_) => None,
            None => Triangulation::for_application(&name, &points)
                .map_err(|m| derr(format!("interpolation points: {m}")))?,
        };
        let (max_epochs, local_cap) = overrides(&name).unwrap_or((
            validation
                .iter()
                .map(|v| v.progress.len())
                .min()
                .unwrap_or(0) as u32,
            None,
        ));
        // Sia does not cap yolov3's per-GPU batch (SIA-SEMANTICS §2).
        let local_cap = local_cap.filter(|_| typed.is_none());
        let app = Application {
            init_batch_size: validation[0].batch,
            max_batch_size: validation[validation.len() - 1].batch,
            min_local_bsz: min_local,
            max_local_bsz: local_cap.unwrap_or(max_local),
            max_epochs,
            name,
            validation,
            placements,
            triangulation,
            scalability,
            points3d,
            points3d_values,
            fit: typed.map_or(FitRule::POLLUX, |t| t.fit),
            minus_one_out_of_range: typed.is_some(),
            memo: Mutex::new(BTreeMap::new()),
            fits: Mutex::new(BTreeMap::new()),
        };
        if let Some(v) = app
            .validation
            .iter()
            .find(|v| v.progress.len() < app.max_epochs as usize)
        {
            return Err(derr(format!(
                "validation-{}.csv has {} rows, fewer than the {} epochs to complete",
                v.batch,
                v.progress.len(),
                app.max_epochs
            )));
        }
        Ok(app)
    }

    /// The epoch index after which the job is complete (`max_epochs − 1`; no application of the
    /// artifact has a target metric).
    pub fn completion_epoch(&self) -> u32 {
        self.max_epochs.saturating_sub(1)
    }

    /// Progress (in init-batch steps) needed to finish `epoch` epochs: the minimum over batch
    /// sizes of the `progress` column at row `epoch − 1`.
    pub fn progress_for(&self, epoch: u32) -> f64 {
        if epoch == 0 {
            return 0.0;
        }
        let i = epoch as usize - 1;
        self.validation
            .iter()
            .map(|v| v.progress[i.min(v.progress.len() - 1)])
            .fold(f64::INFINITY, f64::min)
    }

    fn bracket(&self, batch: u64) -> Option<(&Validation, &Validation)> {
        let mut lo = None;
        let mut hi = None;
        for v in &self.validation {
            if v.batch <= batch {
                lo = Some(v);
            }
            if v.batch >= batch {
                hi = Some(v);
                break;
            }
        }
        Some((lo?, hi?))
    }

    fn interp(&self, batch: u64, epoch: u32, col: impl Fn(&Validation) -> &Vec<f64>) -> f64 {
        let (lo, hi) = self.bracket(batch).unwrap_or_else(|| {
            // Outside the validated range: clamp (the original asserts; every caller keeps
            // batch sizes inside by construction).
            let v = if batch < self.init_batch_size {
                &self.validation[0]
            } else {
                &self.validation[self.validation.len() - 1]
            };
            (v, v)
        });
        let e = epoch as usize;
        let lv = col(lo)[e.min(col(lo).len() - 1)];
        let uv = col(hi)[e.min(col(hi).len() - 1)];
        if lo.batch == hi.batch {
            return lv;
        }
        let b = batch as f64;
        ((b - lo.batch as f64) * uv + (hi.batch as f64 - b) * lv) / (hi.batch - lo.batch) as f64
    }

    /// The gradient statistics `(sqr, var)` during `epoch` at total batch `batch`, linearly
    /// interpolated between the two validated batch sizes that bracket it.
    pub fn grad_stats(&self, batch: u64, epoch: u32) -> (f64, f64) {
        (
            self.interp(batch, epoch, |v| &v.grad_sqr),
            self.interp(batch, epoch, |v| &v.grad_var),
        )
    }

    /// Iterations done after completing `epoch` at total batch `batch` (interpolated like
    /// [`Application::grad_stats`]); Optimus's oracle.
    pub fn iteration(&self, batch: u64, epoch: u32) -> f64 {
        self.interp(batch, epoch, |v| &v.iteration)
    }

    /// The measured step time of `placement` (GPUs per node; zeros ignored) at per-GPU batch
    /// `local_bsz`, or `None` outside the measurements (the original's assertion). Placements of
    /// at most four nodes come from `placements.csv` after rotation normalisation, interpolated
    /// in `local_bsz`; larger ones from the 3-D interpolation of §3.
    pub fn step_time(&self, placement: &[u32], local_bsz: u64) -> Option<StepTime> {
        let p: Vec<u32> = placement.iter().copied().filter(|&g| g > 0).collect();
        if p.is_empty() {
            return None;
        }
        let key = (p, local_bsz);
        if let Some(v) = self.memo.lock().ok().and_then(|m| m.get(&key).copied()) {
            return v;
        }
        let v = self.lookup(&key.0, local_bsz);
        if let Ok(mut m) = self.memo.lock() {
            m.insert(key, v);
        }
        v
    }

    /// [`fit_perf_params`](crate::goodput::fit_perf_params) of `profile`, memoised: the fit is a function of the profile alone
    /// (bit for bit), and jobs of one application often observe the same configurations in the
    /// same order (about 40 % of workload 6's fits under the Pollux policy repeat an earlier one).
    pub fn fit_perf_params(&self, profile: &[Observation]) -> PerfParams {
        let key: Vec<u64> = profile
            .iter()
            .flat_map(|&((n, r, b), (st, sy))| {
                [u64::from(n), u64::from(r), b, st.to_bits(), sy.to_bits()]
            })
            .collect();
        if let Some(p) = self.fits.lock().ok().and_then(|m| m.get(&key).copied()) {
            return p;
        }
        let p = fit_perf_params_with(profile, self.fit);
        if let Ok(mut m) = self.fits.lock() {
            m.insert(key, p);
        }
        p
    }

    /// The placements-file id of `p` (GPUs per node): its lexicographically smallest rotation
    /// read as a decimal number; `None` with a count above 9.
    fn placement_id(p: &[u32]) -> Option<u64> {
        let best = (0..p.len())
            .map(|i| p[i..].iter().chain(&p[..i]).copied().collect::<Vec<u32>>())
            .min()?;
        best.iter().try_fold(0u64, |acc, &d| {
            if d > 9 {
                None
            } else {
                acc.checked_mul(10)?.checked_add(u64::from(d))
            }
        })
    }

    /// The largest per-GPU batch measured for `placement` (GPUs per node; zeros ignored): the
    /// largest `local_bsz` of its placement class, or for an unmeasured placement of `n` nodes
    /// and `r` replicas the largest `local_bsz` among scalability rows with at least `n` nodes
    /// and `r` replicas (Sia's `get_max_local_bsz`, SIA-SEMANTICS §2.1). `None` if neither has
    /// a row.
    pub fn max_local_bsz_at(&self, placement: &[u32]) -> Option<u64> {
        let p: Vec<u32> = placement.iter().copied().filter(|&g| g > 0).collect();
        if let Some(rows) = Application::placement_id(&p).and_then(|id| self.placements.get(&id)) {
            return rows.local_bsz.last().map(|&b| b as u64);
        }
        let n = p.len() as u64;
        let r: u64 = p.iter().map(|&g| u64::from(g)).sum();
        self.scalability
            .iter()
            .filter(|&&((sn, sr, _), _)| sn >= n && sr >= r)
            .map(|&((_, _, b), _)| b)
            .max()
    }

    /// The largest per-GPU batch among placements-file rows whose placement has `replicas`
    /// GPUs in all, or `None` if no row has that count (Sia's memory correction, §4.3.3).
    pub fn max_local_bsz_for_replicas(&self, replicas: u32) -> Option<u64> {
        self.placements
            .iter()
            .filter(|&(&id, _)| {
                id.to_string()
                    .bytes()
                    .map(|c| u32::from(c - b'0'))
                    .sum::<u32>()
                    == replicas
            })
            .filter_map(|(_, rows)| rows.local_bsz.last().map(|&b| b as u64))
            .max()
    }

    /// One GPU's throughput as Sia's throughput ratios read it (SIA-SEMANTICS §3): the largest
    /// `local_bsz` among the 1-replica rows of the placements file over the largest `step_time`
    /// among the same rows (the two maxima taken independently); `None` without such rows.
    pub fn single_gpu_throughput(&self) -> Option<f64> {
        let rows = self.placements.get(&1)?;
        let b = rows
            .local_bsz
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let t = rows.step.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (t > 0.0).then(|| b / t)
    }

    /// Sia's per-type lookup of a placement absent from the placements file: linear in
    /// `local_bsz` between the scalability rows measured at exactly `(nodes, replicas)`. The
    /// original's 3-D Delaunay interpolation gives the same value wherever those rows' segments
    /// are edges of qhull's triangulation (SIA-SEMANTICS §13.4); `None` when no row has that
    /// `(nodes, replicas)` or `x` is outside their range (e.g. aws (5, 20)).
    fn scalability_line(&self, nodes: u64, replicas: u64, x: f64) -> Option<StepTime> {
        let mut rows: Vec<(f64, StepTime)> = self
            .scalability
            .iter()
            .filter(|((n, r, _), _)| *n == nodes && *r == replicas)
            .map(|&((_, _, b), st)| (b as f64, st))
            .collect();
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        rows.dedup_by(|a, b| a.0 == b.0);
        let (first, last) = (rows.first()?.0, rows.last()?.0);
        if x < first || x > last {
            return None;
        }
        if rows.len() == 1 {
            return Some(rows[0].1);
        }
        let idx = rows.partition_point(|r| r.0 < x).clamp(1, rows.len() - 1);
        let ((x0, (s0, y0)), (x1, (s1, y1))) = (rows[idx - 1], rows[idx]);
        let f = |a: f64, b: f64| (b - a) / (x1 - x0) * (x - x0) + a;
        Some((f(s0, s1), f(y0, y1)))
    }

    fn lookup(&self, p: &[u32], local_bsz: u64) -> Option<StepTime> {
        let id = Application::placement_id(p);
        let x = local_bsz as f64;
        if let Some(rows) = id.and_then(|id| self.placements.get(&id)) {
            let xs = &rows.local_bsz;
            if xs.is_empty() || x < xs[0] || x > xs[xs.len() - 1] {
                return self.minus_one_out_of_range.then_some((-1.0, -1.0));
            }
            if xs.len() == 1 {
                return Some((rows.step[0], rows.sync[0]));
            }
            // scipy's interp1d: the interval found by a left search, clipped to [1, n − 1].
            let idx = xs.partition_point(|&v| v < x).clamp(1, xs.len() - 1);
            let (lo, hi) = (idx - 1, idx);
            let dx = xs[hi] - xs[lo];
            let f = |y: &[f64]| (y[hi] - y[lo]) / dx * (x - xs[lo]) + y[lo];
            return Some((f(&rows.step), f(&rows.sync)));
        }
        let nodes = (p.len() as u64).min(16);
        let replicas: u64 = p.iter().map(|&g| u64::from(g)).sum();
        if self.minus_one_out_of_range {
            return self.scalability_line(nodes, replicas, x).or_else(|| {
                crate::lifted::interpolate(
                    &self.points3d,
                    &self.points3d_values,
                    [nodes as f64, replicas as f64, x],
                )
            });
        }
        self.triangulation
            .as_ref()?
            .interpolate([nodes as f64, replicas as f64, x])
    }
}
