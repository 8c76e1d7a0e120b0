//! Heterogeneous GPUs: a table of each model's throughput on each GPU type
//! ([`ThroughputTable`]), and the throughput model that makes jobs run at their type's speed
//! ([`HeteroSpeed`]).

use crate::cluster::Cluster;
use crate::ids::{GpuId, GpuTypeId};
use crate::job::Job;
use crate::map::FixedMap;
use crate::traits::ThroughputModel;
use std::sync::Arc;

/// One measured rate: a model at a scale factor on a GPU type.
#[derive(Clone, Debug, PartialEq)]
struct Rate {
    gpu_type: String,
    scale: u32,
    rate: f64,
}

/// Isolated throughput of each model, at each GPU count ("scale factor"), on each GPU type, in
/// any unit consistent within a model (Gavel's tables give iterations per second).
///
/// Models are the [`crate::JobSpec::model`] names, types the cluster's GPU type names
/// ([`crate::NodeSpec::gpu_type`]). `blox_workload::GavelThroughputs` reads Gavel's
/// `*_throughputs.json` files into one.
///
/// **Lookup rule** ([`ThroughputTable::rate`]): the entry at the job's exact scale factor, else
/// the one at the largest scale factor below it, else the smallest one above it; no entry for
/// the model on that type gives `None`.
///
/// ```
/// use blox_core::ThroughputTable;
/// let mut t = ThroughputTable::new();
/// t.insert("v100", "ResNet-50", 1, 3.0);
/// t.insert("k80", "ResNet-50", 1, 1.0);
/// assert_eq!(t.rate("k80", "ResNet-50", 2), Some(1.0));
/// assert_eq!(t.speed_factor("ResNet-50", 1, "k80", "v100"), 1.0 / 3.0);
/// // Unknown models and types run at the reference speed.
/// assert_eq!(t.speed_factor("LM", 1, "k80", "v100"), 1.0);
/// assert_eq!(t.gpu_types(), vec!["k80", "v100"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThroughputTable {
    by_model: FixedMap<String, Vec<Rate>>,
    len: usize,
}

impl ThroughputTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the rate of `model` at `scale` GPUs on `gpu_type` (replacing any earlier one).
    /// A model's rates are kept sorted by type and scale, so equal tables compare equal
    /// whatever order they were filled in.
    pub fn insert(&mut self, gpu_type: &str, model: &str, scale: u32, rate: f64) {
        let rates = self.by_model.get_or_default(model.to_owned());
        match rates.binary_search_by(|r| (r.gpu_type.as_str(), r.scale).cmp(&(gpu_type, scale))) {
            Ok(k) => rates[k].rate = rate,
            Err(k) => {
                rates.insert(
                    k,
                    Rate {
                        gpu_type: gpu_type.to_owned(),
                        scale,
                        rate,
                    },
                );
                self.len += 1;
            }
        }
    }

    /// The rate recorded for exactly this type, model and scale factor.
    pub fn exact(&self, gpu_type: &str, model: &str, scale: u32) -> Option<f64> {
        self.by_model
            .get(model)?
            .iter()
            .find(|r| r.gpu_type == gpu_type && r.scale == scale)
            .map(|r| r.rate)
    }

    /// The rate of `model` on `gpu_type` for a job of `scale` GPUs, by the lookup rule above.
    pub fn rate(&self, gpu_type: &str, model: &str, scale: u32) -> Option<f64> {
        let mut below: Option<&Rate> = None;
        let mut above: Option<&Rate> = None;
        for r in self
            .by_model
            .get(model)?
            .iter()
            .filter(|r| r.gpu_type == gpu_type)
        {
            if r.scale == scale {
                return Some(r.rate);
            }
            if r.scale < scale {
                if below.map_or(true, |b| r.scale > b.scale) {
                    below = Some(r);
                }
            } else if above.map_or(true, |a| r.scale < a.scale) {
                above = Some(r);
            }
        }
        below.or(above).map(|r| r.rate)
    }

    /// How fast `model` at `scale` GPUs runs on `gpu_type` relative to `reference` (the type
    /// its [`crate::JobSpec::work_s`] is measured on): `rate(on) / rate(reference)`. `1.0` when
    /// either rate is missing or not positive, so that unknown models and types run at the
    /// reference speed.
    pub fn speed_factor(&self, model: &str, scale: u32, gpu_type: &str, reference: &str) -> f64 {
        match (
            self.rate(gpu_type, model, scale),
            self.rate(reference, model, scale),
        ) {
            (Some(on), Some(base)) if on > 0.0 && base > 0.0 && on.is_finite() => on / base,
            _ => 1.0,
        }
    }

    /// Whether the table has any rate for `model`.
    pub fn has_model(&self, model: &str) -> bool {
        self.by_model.contains_key(model)
    }

    /// Number of `(type, model, scale)` entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The GPU type names the table mentions, sorted.
    pub fn gpu_types(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .by_model
            .sorted()
            .into_iter()
            .flat_map(|(_, rates)| rates)
            .map(|r| r.gpu_type.as_str())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A [`ThroughputModel`] for heterogeneous clusters: the inner model's speed times the job's
/// speed factor on its GPUs' type ([`ThroughputTable::speed_factor`] against a reference type).
/// A job spanning several types runs at the slowest one's factor (synchronous data parallelism
/// waits for the slowest worker). Jobs without a model, models the table does not know and
/// clusters of one type named as the reference run at the inner speed.
///
/// ```
/// use blox_core::{Cluster, ConstantSpeed, GpuId, HeteroSpeed, Job, JobId, JobSpec,
///                 ThroughputModel, ThroughputTable, Time};
/// use std::sync::Arc;
///
/// let mut t = ThroughputTable::new();
/// t.insert("v100", "ResNet-50", 1, 4.0);
/// t.insert("k80", "ResNet-50", 1, 1.0);
/// let model = HeteroSpeed::new(ConstantSpeed(1.0), Arc::new(t), "v100");
/// let cluster = Cluster::new("1x1:v100,1x1:k80".parse().unwrap());
/// let mut spec = JobSpec::new(Time::ZERO, 1, 100.0);
/// spec.model = Some("ResNet-50".into());
/// let job = Job::new(JobId(0), spec, Time::ZERO);
/// assert_eq!(model.speed(&job, &[GpuId(0)], &cluster), 1.0);
/// assert_eq!(model.speed(&job, &[GpuId(1)], &cluster), 0.25);
/// ```
#[derive(Clone, Debug)]
pub struct HeteroSpeed<M> {
    inner: M,
    table: Arc<ThroughputTable>,
    reference: String,
}

impl<M> HeteroSpeed<M> {
    /// Wrap `inner`; `reference` is the GPU type jobs' work is measured on (Gavel's traces are
    /// read against `v100`).
    pub fn new(inner: M, table: Arc<ThroughputTable>, reference: impl Into<String>) -> Self {
        HeteroSpeed {
            inner,
            table,
            reference: reference.into(),
        }
    }

    /// The table.
    pub fn table(&self) -> &Arc<ThroughputTable> {
        &self.table
    }

    /// The speed factor of `job` on these GPUs: the smallest over their types.
    pub fn factor(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        let Some(model) = job.spec.model.as_deref() else {
            return 1.0;
        };
        // A node's GPUs are contiguous and of one type: look each run of a type up once.
        let mut last: Option<GpuTypeId> = None;
        let mut factor = f64::INFINITY;
        for &g in gpus.iter().filter(|&&g| cluster.contains(g)) {
            let t = cluster.gpu_type(g);
            if last.replace(t) == Some(t) {
                continue;
            }
            let f = self.table.speed_factor(
                model,
                job.spec.n_gpus,
                cluster.gpu_type_name(t),
                &self.reference,
            );
            factor = factor.min(f);
        }
        if factor.is_finite() {
            factor
        } else {
            1.0
        }
    }
}

impl<M: ThroughputModel> ThroughputModel for HeteroSpeed<M> {
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        self.inner.speed(job, gpus, cluster) * self.factor(job, gpus, cluster)
    }

    fn name(&self) -> String {
        format!("hetero({})", self.inner.name())
    }
}
