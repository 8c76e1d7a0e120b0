//! A placement-aware [`ThroughputModel`]: a job's speed depends on the bandwidth its GPUs have
//! for the gradient all-reduce.

use crate::topology::Topology;
use blox_core::{Cluster, GpuId, Job, ThroughputModel};
use std::sync::{Arc, OnceLock};

/// What one iteration of a model costs: compute time and the bytes all-reduced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelProfile {
    /// The model's name in the zoo.
    pub name: &'static str,
    /// Seconds of computation per iteration on one GPU (Blox's model zoo, `iter_time`; it does
    /// not change with the GPU count: data parallelism with a fixed per-GPU batch).
    pub iter_time_s: f64,
    /// Parameters, in millions. Gradients are all-reduced in fp32: `4 × params` bytes.
    pub params_m: f64,
}

impl ModelProfile {
    /// Bytes all-reduced per iteration.
    pub fn grad_bytes(&self) -> f64 {
        self.params_m * 1e6 * 4.0
    }

    /// Seconds per iteration on `m` GPUs whose ring has bottleneck bandwidth `bw_gb_s`: compute
    /// plus a ring all-reduce, which sends `2(m−1)/m × bytes` over the bottleneck link.
    pub fn iteration_s(&self, m: u32, bw_gb_s: f64) -> f64 {
        if m < 2 {
            return self.iter_time_s;
        }
        let m = f64::from(m);
        self.iter_time_s + 2.0 * (m - 1.0) / m * self.grad_bytes() / (bw_gb_s * 1e9)
    }
}

/// Blox's model zoo (BLOX-SEMANTICS.md §13.3, `iter_time`) with parameter counts. Sources of
/// the counts: torchvision's model cards (alexnet 61.1 M, resnet18 11.7 M, resnet50 25.6 M,
/// mobilenet_v2 3.5 M, shufflenet_v2_x1_0 2.3 M); GNMT v2 as in MLPerf's reference (≈160 M);
/// Transformer base (Vaswani et al. 2017, Table 3: 65 M); the LSTM language model of PyTorch's
/// `word_language_model` example at its defaults on Wikitext-2, as Gavel uses it (≈14 M);
/// DeepSpeech2 as in `deepspeech.pytorch` (≈38 M); BERT base (Devlin et al. 2019: 110 M); the
/// PyTorch examples' MNIST VAE (≈0.65 M); M5 (Dai et al. 2017: ≈0.5 M). Counts marked ≈ are
/// approximate.
pub const MODEL_ZOO: &[ModelProfile] = &[
    ModelProfile {
        name: "alexnet",
        iter_time_s: 0.6,
        params_m: 61.1,
    },
    ModelProfile {
        name: "res18",
        iter_time_s: 0.64,
        params_m: 11.7,
    },
    ModelProfile {
        name: "res50",
        iter_time_s: 0.78,
        params_m: 25.6,
    },
    ModelProfile {
        name: "mobilenet",
        iter_time_s: 0.71,
        params_m: 3.5,
    },
    ModelProfile {
        name: "shufflenet",
        iter_time_s: 0.615,
        params_m: 2.3,
    },
    ModelProfile {
        name: "gnmt",
        iter_time_s: 0.12,
        params_m: 160.0,
    },
    ModelProfile {
        name: "transformer",
        iter_time_s: 0.67,
        params_m: 65.0,
    },
    ModelProfile {
        name: "lstm",
        iter_time_s: 0.011,
        params_m: 14.0,
    },
    ModelProfile {
        name: "deepspeech",
        iter_time_s: 0.757,
        params_m: 38.0,
    },
    ModelProfile {
        name: "bert",
        iter_time_s: 0.011,
        params_m: 110.0,
    },
    ModelProfile {
        name: "vae",
        iter_time_s: 0.011,
        params_m: 0.65,
    },
    ModelProfile {
        name: "m5",
        iter_time_s: 0.6,
        params_m: 0.5,
    },
];

/// The profile of a job with no known model: Blox's default `iter_time` (1 s) and a
/// ResNet-50-sized gradient (25.6 M parameters).
pub const DEFAULT_PROFILE: ModelProfile = ModelProfile {
    name: "default",
    iter_time_s: 1.0,
    params_m: 25.6,
};

/// The profile of a job: its model name when the zoo knows it (case-insensitive; aliases
/// `resnet18`, `resnet50`, `mobilenet_v2`, `shufflenet_v2`, a `_<gpus>` suffix ignored);
/// otherwise, with no name, its class id in Blox's numbering (0 alexnet, 1 res18, 2 res50,
/// 3 mobilenet, 4 shufflenet, 5 gnmt, 6 transformer, 7 lstm, 8 deepspeech), which is what
/// Blox's default workload sets; otherwise [`DEFAULT_PROFILE`].
pub fn model_profile(job: &Job) -> ModelProfile {
    match &job.spec.model {
        Some(name) => profile_by_name(name).unwrap_or(DEFAULT_PROFILE),
        None => MODEL_ZOO
            .get(job.spec.class_id as usize)
            .filter(|_| job.spec.class_id <= 8)
            .copied()
            .unwrap_or(DEFAULT_PROFILE),
    }
}

/// A zoo profile by model name (see [`model_profile`] for the accepted spellings).
pub fn profile_by_name(name: &str) -> Option<ModelProfile> {
    let lower = name.trim().to_ascii_lowercase();
    let base = match lower.rsplit_once('_') {
        Some((b, g)) if !g.is_empty() && g.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => lower.as_str(),
    };
    let key = match base {
        "resnet18" | "resnet-18" => "res18",
        "resnet50" | "resnet-50" => "res50",
        "mobilenet_v2" | "mobilenetv2" => "mobilenet",
        "shufflenet_v2" | "shufflenetv2" => "shufflenet",
        other => other,
    };
    MODEL_ZOO.iter().find(|p| p.name == key).copied()
}

/// Placement-aware speed: compute plus a ring all-reduce slowed by the placement's bottleneck
/// bandwidth, relative to the job's requested GPUs in the best placement the topology offers.
///
/// For a job of n requested GPUs running on m GPUs whose ring has bottleneck bandwidth `B`
/// ([`Topology::ring_bandwidth`]), with `T(m, B) = iter_time + 2(m−1)/m × 4·params / B`
/// ([`ModelProfile::iteration_s`]):
///
/// `speed = (m / T(m, B)) / (n / T(n, B*))`, where `B*` is the best ring bandwidth any n GPUs
/// of the topology can have ([`Topology::best_ring_bandwidth`]).
///
/// So a rigid job in the best placement runs at exactly 1.0 (what [`blox_core::JobSpec::work_s`]
/// assumes), slower elsewhere; a 1-GPU job always runs at 1.0; an elastic job scales with the
/// GPUs it gets (fixed per-GPU batch), minus the communication it pays. Without a topology (or
/// with one whose GPU count differs from the cluster's) it uses [`Topology::default_for`] the
/// cluster.
#[derive(Debug, Default)]
pub struct PlacementSpeed {
    topology: Option<Arc<Topology>>,
    fallback: OnceLock<Arc<Topology>>,
}

impl PlacementSpeed {
    /// The model over this topology, or the cluster's default topology when `None`.
    pub fn new(topology: Option<Arc<Topology>>) -> Self {
        PlacementSpeed {
            topology,
            fallback: OnceLock::new(),
        }
    }

    fn topo(&self, cluster: &Cluster) -> &Topology {
        match &self.topology {
            Some(t) if t.n_gpus() == cluster.total_gpus() => t,
            _ => self
                .fallback
                .get_or_init(|| Arc::new(Topology::default_for(cluster.spec()))),
        }
    }

    /// The bottleneck bandwidth these GPUs' ring has, GB/s (infinite for one GPU).
    pub fn ring_bandwidth(&self, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        self.topo(cluster).ring_bandwidth(gpus)
    }
}

impl ThroughputModel for PlacementSpeed {
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        let n = job.spec.n_gpus.max(1);
        let m = gpus.len() as u32;
        if m <= 1 && n == 1 {
            return 1.0;
        }
        let topo = self.topo(cluster);
        let p = model_profile(job);
        let reference = p.iteration_s(n, topo.best_ring_bandwidth(n));
        let actual = p.iteration_s(m, topo.ring_bandwidth(gpus));
        if m == n {
            return reference / actual;
        }
        (f64::from(m) / actual) / (f64::from(n) / reference)
    }

    fn name(&self) -> String {
        "placement".into()
    }
}
