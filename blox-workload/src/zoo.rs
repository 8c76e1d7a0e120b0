//! Blox's model zoo (BLOX-SEMANTICS §13): per-model iteration times and CPU/memory
//! sensitivities, and ways to assign models to jobs.
//!
//! Source: Blox `workload/model_zoo.py` and the per-model files in `workload/models/` (the
//! Synergy profiles), as tabulated in BLOX-SEMANTICS §13.3. Blox's top-level `models/` copy
//! (which differs for the `_1` variants: an extra 20.83 GB memory column, and a few extra models
//! `bert`, `vae`, `m5`) is not reproduced; none of it affects Blox's default simulation.

use blox_core::{JobSpec, Seed};
use std::sync::Arc;

/// CPU levels (cores per GPU) at which [`ModelVariant::throughput_by_cpus`] is given.
pub const CPU_LEVELS: [u32; 9] = [1, 2, 3, 4, 5, 6, 9, 12, 24];

/// Memory per GPU at fair share, GB (every model's `mem` and `sspeed`).
pub const FAIR_MEM_GB_PER_GPU: f64 = 62.5;

/// Blox's task families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Task {
    /// Image classification.
    Image,
    /// Language models and translation.
    Language,
    /// Speech recognition.
    Speech,
}

/// One model's profile at one GPU count (`<name>_<g>` in Blox).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ModelVariant {
    /// GPUs of this profile.
    pub n_gpus: u32,
    /// Seconds per iteration at fair share (3 CPUs, 62.5 GB per GPU); independent of the GPU
    /// count in Blox's data.
    pub iter_time_s: f64,
    /// Ideal CPUs per GPU.
    pub cpus_per_gpu: f64,
    /// Batch size.
    pub batch: u32,
    /// Speed-up at the ideal CPU count over fair share.
    pub speedup: f64,
    /// Memory per GPU, GB ([`FAIR_MEM_GB_PER_GPU`] for every model).
    pub mem_gb_per_gpu: f64,
    /// Normalised throughput at each of [`CPU_LEVELS`] (0 = infeasible).
    pub throughput_by_cpus: [f64; 9],
}

/// One model of the zoo.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ModelProfile {
    /// Name (`alexnet`, `res18`, …).
    pub name: &'static str,
    /// Blox's `job_class_id`.
    pub class_id: u32,
    /// Task family.
    pub task: Task,
    /// Profiles by GPU count; the first is the 1-GPU one.
    pub variants: &'static [ModelVariant],
}

impl ModelProfile {
    /// The profile for `n_gpus`, falling back to the 1-GPU one when `<name>_<n_gpus>` is
    /// missing (as Blox does).
    pub fn variant(&self, n_gpus: u32) -> &ModelVariant {
        self.variants
            .iter()
            .find(|v| v.n_gpus == n_gpus)
            .unwrap_or(&self.variants[0])
    }
}

const fn v(
    n_gpus: u32,
    iter_time_s: f64,
    cpus_per_gpu: f64,
    batch: u32,
    speedup: f64,
    throughput_by_cpus: [f64; 9],
) -> ModelVariant {
    ModelVariant {
        n_gpus,
        iter_time_s,
        cpus_per_gpu,
        batch,
        speedup,
        mem_gb_per_gpu: FAIR_MEM_GB_PER_GPU,
        throughput_by_cpus,
    }
}

const ONES: [f64; 9] = [1.0; 9];
const ONES_7: [f64; 9] = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0];
const ONES_6: [f64; 9] = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];

/// The zoo, indexed by class id (BLOX-SEMANTICS §13.1 and §13.3).
pub const MODEL_ZOO: [ModelProfile; 9] = [
    ModelProfile {
        name: "alexnet",
        class_id: 0,
        task: Task::Image,
        variants: &[
            v(
                1,
                0.6,
                12.0,
                512,
                2.94,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 2.33, 2.94, 2.94],
            ),
            v(
                2,
                0.6,
                9.0,
                512,
                2.33,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 2.33, 0.0, 0.0],
            ),
            v(
                4,
                0.6,
                6.0,
                512,
                1.75,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 0.0, 0.0, 0.0],
            ),
        ],
    },
    ModelProfile {
        name: "res18",
        class_id: 1,
        task: Task::Image,
        variants: &[
            v(
                1,
                0.64,
                9.0,
                512,
                2.4,
                [0.37, 0.72, 1.0, 1.3, 1.53, 1.75, 2.4, 2.4, 2.4],
            ),
            v(
                2,
                0.64,
                9.0,
                512,
                2.4,
                [0.37, 0.72, 1.0, 1.3, 1.53, 1.75, 2.4, 0.0, 0.0],
            ),
            v(
                4,
                0.64,
                6.0,
                512,
                1.75,
                [0.37, 0.72, 1.0, 1.3, 1.53, 1.75, 0.0, 0.0, 0.0],
            ),
        ],
    },
    ModelProfile {
        name: "res50",
        class_id: 2,
        task: Task::Image,
        variants: &[
            v(
                1,
                0.78,
                4.0,
                512,
                1.15,
                [0.4, 0.74, 1.0, 1.15, 1.15, 1.15, 1.15, 1.15, 1.15],
            ),
            v(
                2,
                0.78,
                3.0,
                512,
                1.0,
                [0.4, 0.74, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
            ),
            v(
                4,
                0.78,
                3.0,
                512,
                1.0,
                [0.4, 0.74, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
            ),
        ],
    },
    ModelProfile {
        name: "mobilenet",
        class_id: 3,
        task: Task::Image,
        variants: &[
            v(
                1,
                0.71,
                6.0,
                512,
                1.55,
                [0.37, 0.72, 1.0, 1.3, 1.49, 1.55, 1.55, 1.55, 1.55],
            ),
            v(
                2,
                0.71,
                6.0,
                512,
                1.55,
                [0.37, 0.72, 1.0, 1.3, 1.49, 1.55, 1.55, 0.0, 0.0],
            ),
            v(
                4,
                0.71,
                6.0,
                512,
                1.55,
                [0.37, 0.72, 1.0, 1.3, 1.49, 1.55, 0.0, 0.0, 0.0],
            ),
        ],
    },
    ModelProfile {
        name: "shufflenet",
        class_id: 4,
        task: Task::Image,
        variants: &[
            v(
                1,
                0.615,
                12.0,
                512,
                2.89,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 2.33, 2.89, 2.89],
            ),
            v(
                2,
                0.615,
                9.0,
                512,
                2.33,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 2.33, 0.0, 0.0],
            ),
            v(
                4,
                0.615,
                6.0,
                512,
                1.75,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 0.0, 0.0, 0.0],
            ),
            v(
                12,
                0.615,
                3.0,
                512,
                1.0,
                [0.3, 0.66, 1.0, 1.25, 1.53, 1.75, 0.0, 0.0, 0.0],
            ),
        ],
    },
    ModelProfile {
        name: "gnmt",
        class_id: 5,
        task: Task::Language,
        variants: &[
            v(1, 0.12, 1.0, 128, 1.0, ONES),
            v(2, 0.12, 1.0, 128, 1.0, ONES_7),
            v(4, 0.12, 1.0, 128, 1.0, ONES_6),
        ],
    },
    ModelProfile {
        name: "transformer",
        class_id: 6,
        task: Task::Language,
        variants: &[
            v(1, 0.67, 1.0, 128, 1.0, ONES),
            v(2, 0.67, 1.0, 128, 1.0, ONES_7),
            v(4, 0.67, 1.0, 128, 1.0, ONES_6),
        ],
    },
    ModelProfile {
        name: "lstm",
        class_id: 7,
        task: Task::Language,
        variants: &[
            v(1, 0.011, 1.0, 20, 1.0, ONES),
            v(2, 0.011, 1.0, 20, 1.0, ONES_7),
            v(4, 0.011, 1.0, 20, 1.0, ONES_6),
        ],
    },
    ModelProfile {
        name: "deepspeech",
        class_id: 8,
        task: Task::Speech,
        variants: &[
            v(
                1,
                0.757,
                3.0,
                20,
                1.0,
                [0.3, 0.66, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            ),
            v(
                2,
                0.757,
                3.0,
                20,
                1.0,
                [0.3, 0.66, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
            ),
            v(
                4,
                0.757,
                3.0,
                20,
                1.0,
                [0.3, 0.66, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
            ),
        ],
    },
];

/// The model named `name` (case-sensitive, e.g. `res50`).
pub fn model(name: &str) -> Option<&'static ModelProfile> {
    MODEL_ZOO.iter().find(|m| m.name == name)
}

/// How [`assign_models`] picks a model for each job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZooAssignment {
    /// What Blox actually does (§13.2): job `i` gets class `i mod 5`, so image models only.
    BloxCycle,
    /// Job `i` gets class `i mod 9`: every model in turn.
    RoundRobin,
    /// Uniformly at random over the 9 models, from stream `workload.zoo` of the seed.
    Random(Seed),
}

/// Assigns a zoo model to each job (in slice order): sets `class_id`, `model`, `cpus`
/// (`cpus_per_gpu × n_gpus` of the job's GPU-count variant) and `mem_gb`
/// ([`FAIR_MEM_GB_PER_GPU`] `× n_gpus`). `work_s` is kept: the job's iteration count is then
/// `work_s / iter_time_s`.
pub fn assign_models(jobs: &mut [JobSpec], how: ZooAssignment) {
    let mut rng = match how {
        ZooAssignment::Random(seed) => Some(seed.stream("workload.zoo")),
        _ => None,
    };
    for (i, j) in jobs.iter_mut().enumerate() {
        let class = match (&how, rng.as_mut()) {
            (ZooAssignment::BloxCycle, _) => i % 5,
            (ZooAssignment::Random(_), Some(r)) => r.below(MODEL_ZOO.len() as u64) as usize,
            _ => i % MODEL_ZOO.len(),
        };
        let m = &MODEL_ZOO[class];
        let var = m.variant(j.n_gpus);
        j.class_id = m.class_id;
        j.model = Some(Arc::from(m.name));
        j.cpus = Some(var.cpus_per_gpu * f64::from(j.n_gpus));
        j.mem_gb = Some(var.mem_gb_per_gpu * f64::from(j.n_gpus));
    }
}
