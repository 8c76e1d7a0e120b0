//! Synergy's model zoo (OSDI 2022): ten models in three task classes, each with its ideal CPU
//! and memory demand per GPU, its iteration time at the GPU-proportional share and its speed-up
//! when it gets the ideal demand; the job resource model built on it; and Synergy's class-balancing
//! model assignment.
//!
//! Source: `msr-fiddle/synergy` `simulator/models/<name>_1.py` (the `_1` profile serves every
//! GPU count), `jobs/model_zoo.py`, `jobs/task.py` and `jobs/workload.py`
//! (`add_synergy_profile`), as tabulated in SYNERGY-SEMANTICS §2.1–2.3. This is **not** Blox's
//! older table (`blox_workload::MODEL_ZOO`): Synergy has m5, different memory demands (alexnet and
//! shufflenet 125 GB, m5 187.5 GB, the language models 20 GB) and ten models.
//!
//! Only the scalar profile is here; the 9 × 5 normalised-throughput matrices that only
//! Synergy-OPT reads are not.

use std::fmt;
use std::str::FromStr;

/// Synergy's three task classes, in the order its class split is written
/// (`image,language,speech`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SynergyTask {
    /// Image classification (alexnet, res18, res50, mobilenet, shufflenet).
    Image,
    /// Language models (gnmt, transformer, lstm).
    Language,
    /// Speech (m5, deepspeech).
    Speech,
}

impl SynergyTask {
    /// All three, in split order.
    pub const ALL: [SynergyTask; 3] = [
        SynergyTask::Image,
        SynergyTask::Language,
        SynergyTask::Speech,
    ];

    /// The class's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SynergyTask::Image => "image",
            SynergyTask::Language => "language",
            SynergyTask::Speech => "speech",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One model of Synergy's zoo, at the default CPU:GPU ratio of 3.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SynergyModel {
    /// Synergy's class id (its position in the zoo, 0..10).
    pub id: u32,
    /// Model name as Synergy spells it.
    pub name: &'static str,
    /// Task class.
    pub task: SynergyTask,
    /// Ideal CPU cores per GPU.
    pub cpus_per_gpu: f64,
    /// Ideal host memory per GPU, GB.
    pub mem_gb_per_gpu: f64,
    /// Seconds per iteration at the GPU-proportional share (3 CPUs, 62.5 GB per GPU).
    pub iter_time_s: f64,
    /// Speed-up over the GPU-proportional share when the job gets its ideal CPUs and memory.
    pub speedup: f64,
    /// Batch size (informational).
    pub batch: u32,
}

// One table row per call keeps the zoo readable as the spec's table.
#[allow(clippy::too_many_arguments)]
const fn m(
    id: u32,
    name: &'static str,
    task: SynergyTask,
    cpus_per_gpu: f64,
    mem_gb_per_gpu: f64,
    iter_time_s: f64,
    speedup: f64,
    batch: u32,
) -> SynergyModel {
    SynergyModel {
        id,
        name,
        task,
        cpus_per_gpu,
        mem_gb_per_gpu,
        iter_time_s,
        speedup,
        batch,
    }
}

/// The ten models, in Synergy's class-id order (`jobs/model_zoo.py`: image models, then
/// language, then speech), with the values of `simulator/models/*_1.py`.
pub const SYNERGY_ZOO: [SynergyModel; 10] = [
    m(
        0,
        "alexnet",
        SynergyTask::Image,
        12.0,
        125.0,
        0.6,
        2.94,
        512,
    ),
    m(1, "res18", SynergyTask::Image, 9.0, 62.5, 0.64, 2.4, 512),
    m(2, "res50", SynergyTask::Image, 4.0, 62.5, 0.78, 1.15, 512),
    m(
        3,
        "mobilenet",
        SynergyTask::Image,
        6.0,
        62.5,
        0.71,
        1.55,
        512,
    ),
    m(
        4,
        "shufflenet",
        SynergyTask::Image,
        12.0,
        125.0,
        0.615,
        2.89,
        512,
    ),
    m(5, "gnmt", SynergyTask::Language, 1.0, 20.0, 0.12, 1.0, 128),
    m(
        6,
        "transformer",
        SynergyTask::Language,
        1.0,
        20.0,
        0.67,
        1.0,
        128,
    ),
    m(7, "lstm", SynergyTask::Language, 1.0, 20.0, 0.011, 1.0, 20),
    m(8, "m5", SynergyTask::Speech, 6.0, 187.5, 0.6, 2.5, 512),
    m(
        9,
        "deepspeech",
        SynergyTask::Speech,
        3.0,
        62.5,
        0.757,
        1.0,
        20,
    ),
];

/// The model of Synergy's zoo with this name, if any.
pub fn synergy_model(name: &str) -> Option<&'static SynergyModel> {
    SYNERGY_ZOO.iter().find(|m| m.name == name)
}

/// One server's size as Synergy's job model reads it (`Cluster.per_server_size`): GPUs, CPU
/// cores and memory in GB. Synergy's default (`configs/default_cluster.ini`) is 8 GPUs, 24 CPUs
/// and 500 GB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServerSize {
    /// GPUs per server.
    pub gpus: u32,
    /// CPU cores per server.
    pub cpus: f64,
    /// Host memory per server, GB.
    pub mem_gb: f64,
}

impl ServerSize {
    /// Synergy's default server: 8 GPUs, 24 CPUs, 500 GB.
    pub const SYNERGY_DEFAULT: ServerSize = ServerSize {
        gpus: 8,
        cpus: 24.0,
        mem_gb: 500.0,
    };

    /// The GPU-proportional CPU share per GPU (3 on the default server).
    pub fn fair_cpus_per_gpu(&self) -> f64 {
        self.cpus / f64::from(self.gpus)
    }

    /// The GPU-proportional memory share per GPU (62.5 GB on the default server).
    pub fn fair_mem_per_gpu(&self) -> f64 {
        self.mem_gb / f64::from(self.gpus)
    }
}

/// What a job of a model and GPU count asks for: ideal CPUs and memory for the whole job, and
/// the speed-up it gets with them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SynergyDemand {
    /// Ideal CPU cores, whole job.
    pub cpus: f64,
    /// Ideal memory in GB, whole job.
    pub mem_gb: f64,
    /// Speed-up over the GPU-proportional share at that demand.
    pub speedup: f64,
}

/// A job's ideal demand, as `Workload.add_synergy_profile` computes it: `n_gpus` × the model's
/// per-GPU ideal, capped at one server. When a demand is capped, the speed-up is re-interpolated
/// on a straight line from 1 at the fair CPU count to the ideal speed-up at the ideal CPU count,
/// evaluated at the (possibly capped) CPU demand; a job wider than a server keeps the fair-share
/// demand of its GPUs and speed-up 1 for each capped resource.
pub fn synergy_demand(model: &SynergyModel, n_gpus: u32, server: ServerSize) -> SynergyDemand {
    let g = f64::from(n_gpus);
    let wide = n_gpus > server.gpus;
    let mut speedup = model.speedup;
    let mut update = false;
    let mut cpus = g * model.cpus_per_gpu;
    if cpus > server.cpus {
        cpus = server.cpus;
        update = true;
        if wide {
            cpus = g * (server.cpus / f64::from(server.gpus));
            speedup = 1.0;
            update = false;
        }
    }
    let mut mem = g * model.mem_gb_per_gpu;
    if mem > server.mem_gb {
        mem = server.mem_gb;
        update = true;
        if wide {
            mem = g * (server.mem_gb / f64::from(server.gpus));
            speedup = 1.0;
            update = false;
        }
    }
    // Synergy's storage demand is 62.5 MB/s per GPU whatever the model (SYNERGY-SEMANTICS §2.1),
    // so on its 500 MB/s, 8-GPU servers it never caps and never changes `update`.
    if update {
        let ideal_cpu = g * model.cpus_per_gpu;
        let fair_cpu = g * (server.cpus / f64::from(server.gpus));
        let cpu_diff = ideal_cpu - fair_cpu;
        if cpu_diff != 0.0 {
            let slope = (speedup - 1.0) / cpu_diff;
            speedup = 1.0 + slope * (cpus - fair_cpu);
        }
    }
    SynergyDemand {
        cpus,
        mem_gb: mem,
        speedup,
    }
}

/// A class split `image,language,speech` in percent, e.g. `20,70,10` (Synergy's default) or
/// `33,33,33`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassSplit(pub [f64; 3]);

impl ClassSplit {
    /// Synergy's default split, (20, 70, 10).
    pub const DEFAULT: ClassSplit = ClassSplit([20.0, 70.0, 10.0]);

    /// The split written as Synergy's figures name it, e.g. `20,70,10`.
    pub fn label(&self) -> String {
        let f = |x: f64| {
            // Whole numbers without a fraction, while exact (a larger share cast to an integer
            // showed as 9223372036854775807).
            if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
                format!("{}", x as i64)
            } else {
                format!("{x}")
            }
        };
        format!("{},{},{}", f(self.0[0]), f(self.0[1]), f(self.0[2]))
    }
}

impl fmt::Display for ClassSplit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Parses `IMAGE,LANGUAGE,SPEECH` percentages: three non-negative numbers, not all zero.
impl FromStr for ClassSplit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 3 {
            return Err(format!(
                "class split `{s}`: expected three percentages IMAGE,LANGUAGE,SPEECH, e.g. 20,70,10"
            ));
        }
        let mut v = [0.0; 3];
        for (i, p) in parts.iter().enumerate() {
            let x: f64 = p.parse().map_err(|_| {
                format!("class split `{s}`: `{p}` is not a number (expected e.g. 20,70,10)")
            })?;
            if !x.is_finite() || x < 0.0 {
                return Err(format!("class split `{s}`: `{p}` is not a percentage ≥ 0"));
            }
            v[i] = x;
        }
        if v.iter().all(|&x| x == 0.0) {
            return Err(format!("class split `{s}`: all three shares are 0"));
        }
        Ok(ClassSplit(v))
    }
}

/// Synergy's `ModelAssignment.OVERALL`: the task class whose share of all jobs assigned so far
/// is furthest below its target gets the next job; within a class, models take turns
/// (round-robin in zoo order).
///
/// As in `jobs/model_zoo.py` and `jobs/task.py`, a class's priority is `target/100 − share` and
/// is recomputed only when a job is counted (at its arrival in Synergy, which is the same as
/// after each assignment, since the next job is generated when the previous one arrives); before
/// the first job every priority is 0. The class with the highest priority wins; ties go to the
/// earlier class in split order (Python's stable sort, reversed).
#[derive(Clone, Debug)]
pub struct OverallAssigner {
    split: ClassSplit,
    totals: [u64; 3],
    priority: [f64; 3],
    next_model: [usize; 3],
}

impl OverallAssigner {
    /// A fresh assigner for this split.
    pub fn new(split: ClassSplit) -> Self {
        OverallAssigner {
            split,
            totals: [0; 3],
            priority: [0.0; 3],
            next_model: [0; 3],
        }
    }

    /// The model of the next job; counts it.
    pub fn next_model(&mut self) -> &'static SynergyModel {
        let mut best = 0;
        for k in 1..3 {
            if self.priority[k] > self.priority[best] {
                best = k;
            }
        }
        let task = SynergyTask::ALL[best];
        let models: Vec<&'static SynergyModel> =
            SYNERGY_ZOO.iter().filter(|m| m.task == task).collect();
        let model = models[self.next_model[best] % models.len()];
        self.next_model[best] += 1;
        self.count(task);
        model
    }

    fn count(&mut self, task: SynergyTask) {
        self.totals[task.index()] += 1;
        let total: u64 = self.totals.iter().sum();
        for k in 0..3 {
            let share = self.totals[k] as f64 / total as f64;
            self.priority[k] = self.split.0[k] / 100.0 - share;
        }
    }

    /// Jobs assigned so far per class, in split order.
    pub fn totals(&self) -> [u64; 3] {
        self.totals
    }
}
