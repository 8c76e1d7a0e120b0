//! Sia's applications: one set of measurements per GPU type (SIA-SEMANTICS §2), the per-model
//! constants of `simulator_config.py` and `applications.py`, and the throughput ratios between
//! types (§3).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use blox_pollux::goodput::FitRule;
use blox_pollux::{Application, TraceError, TypedLoad};

use crate::cluster::SiaCluster;

/// The relative-reduction stop of Sia's throughput fit: `minimize(..., tol=1e-5)`, which
/// L-BFGS-B in scipy 1.10 turns into `ftol = 1e-5` (`goodput.py:200-201`, §4.2, §13.3).
pub const SIA_FTOL: f64 = 1e-5;

/// Sia's throughput fit: one call of scipy 1.10's L-BFGS-B with `tol = 1e-5`, i.e. `ftol` and
/// `gtol` both 1e-5 (§4.2, §13.3), as blox-pollux's port of it runs it.
pub const SIA_FIT: FitRule = FitRule::LbfgsB {
    ftol: SIA_FTOL,
    gtol: SIA_FTOL,
};

/// The calibration slowdown of true progress (`simulator_config.SLOWDOWNS`, §4.1); 1 for a
/// model the table does not name.
pub fn slowdown(model: &str) -> f64 {
    match model {
        "cifar10" => 1.8,
        "imagenet" | "yolov3" | "bert" | "deepspeech2" => 1.2,
        "ncf" => 1.5,
        _ => 1.0,
    }
}

/// The simulated checkpoint-restore delay of a model, seconds (`Application.rescale_time`,
/// §2).
pub fn restart_delay(model: &str) -> i64 {
    match model {
        "cifar10" => 50,
        "deepspeech2" => 25,
        "bert" => 120,
        "yolov3" => 80,
        "imagenet" => 250,
        "ncf" => 15,
        _ => 30,
    }
}

/// The policy's restart penalty, looked up **by job name** (`get_restart_penalty`, §6.4): not
/// the simulated delays of [`restart_delay`] (cifar 30 and yolov3 45 here) `[quirk]`.
pub fn restart_penalty(job_name: &str) -> f64 {
    if job_name.contains("deepspeech") {
        25.0
    } else if job_name.contains("imagenet") {
        250.0
    } else if job_name.contains("cifar") {
        30.0
    } else if job_name.contains("bert") {
        120.0
    } else if job_name.contains("yolov3") {
        45.0
    } else {
        30.0
    }
}

/// The model-wide per-GPU maximum the artifact overrides for one type (`applications.py:51-52`:
/// deepspeech2 on rtx is 57 although the file goes to 80). Only the scheduler's goodput range
/// reads it (§2 †).
pub fn max_local_override(model: &str, gpu_type: &str) -> Option<u64> {
    (model == "deepspeech2" && gpu_type == "rtx").then_some(57)
}

/// One model of Sia's workloads: its measurements on every type of the cluster.
#[derive(Debug)]
pub struct SiaApp {
    /// The model's name (`cifar10`, `bert`, ...).
    pub name: String,
    /// Measurements per type, in the cluster's type order.
    pub per_type: Vec<Arc<Application>>,
    /// One GPU's throughput per type (§3), in type order.
    pub xput1: Vec<f64>,
    /// The type names, in type order.
    pub type_names: Vec<String>,
}

impl SiaApp {
    /// Load `dir` (`traces/<model>/`) for every type of `cluster`.
    pub fn load(dir: &Path, cluster: &SiaCluster) -> Result<SiaApp, TraceError> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut per_type = Vec::with_capacity(cluster.types.len());
        let mut xput1 = Vec::with_capacity(cluster.types.len());
        for t in &cluster.types {
            let app = Application::load_typed(dir, TypedLoad::new(&t.name, SIA_FIT))?;
            let x = app.single_gpu_throughput().ok_or_else(|| TraceError {
                path: dir.join(format!("placements-{}.csv", t.name)),
                line: 0,
                message: "no 1-GPU rows (placement 1): the throughput ratios need them".into(),
            })?;
            xput1.push(x);
            per_type.push(Arc::new(app));
        }
        Ok(SiaApp {
            name,
            per_type,
            xput1,
            type_names: cluster.types.iter().map(|t| t.name.clone()).collect(),
        })
    }

    /// `ratio[model][src][dst] = xput1(src) / xput1(dst)` (§3).
    pub fn ratio(&self, src: usize, dst: usize) -> f64 {
        self.xput1[src] / self.xput1[dst]
    }

    /// The model-wide per-GPU range `(min, max)` on type `t` as the scheduler's goodput
    /// estimate reads it (§5.1), with the artifact's override.
    pub fn model_wide_local_range(&self, t: usize, type_name: &str) -> (u64, u64) {
        let app = &self.per_type[t];
        (
            app.min_local_bsz,
            max_local_override(&self.name, type_name).unwrap_or(app.max_local_bsz),
        )
    }
}

/// The models of a trace directory (`traces/` of Sia's artifact), loaded on demand for one
/// cluster.
#[derive(Debug)]
pub struct SiaApps {
    dir: PathBuf,
    cluster: SiaCluster,
    loaded: BTreeMap<String, Arc<SiaApp>>,
}

impl SiaApps {
    /// Models under `dir` for `cluster`.
    pub fn new(dir: impl Into<PathBuf>, cluster: SiaCluster) -> SiaApps {
        SiaApps {
            dir: dir.into(),
            cluster,
            loaded: BTreeMap::new(),
        }
    }

    /// The cluster the models are loaded for.
    pub fn cluster(&self) -> &SiaCluster {
        &self.cluster
    }

    /// Model `name`, loading it on first use.
    pub fn get(&mut self, name: &str) -> Result<Arc<SiaApp>, TraceError> {
        if let Some(a) = self.loaded.get(name) {
            return Ok(a.clone());
        }
        if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
            return Err(TraceError {
                path: self.dir.clone(),
                line: 0,
                message: format!("`{name}` is not a model name"),
            });
        }
        let app = Arc::new(SiaApp::load(&self.dir.join(name), &self.cluster)?);
        self.loaded.insert(name.to_string(), app.clone());
        Ok(app)
    }
}
