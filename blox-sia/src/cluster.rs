//! Sia's heterogeneous cluster (SIA-SEMANTICS §1.1) and the policy's configurations (§6.1).

use std::fmt;

/// One GPU type ("cluster" in the artifact) of a heterogeneous cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuType {
    /// The type's name, as the trace files name it (`aws`, `dgx-ext`, `rtx`, ...).
    pub name: String,
    /// Nodes of this type.
    pub nodes: u32,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// The largest node count physically profiled (`cluster_max_physical_nnodes`): Sia's
    /// configurations span at most this many nodes.
    pub max_physical_nodes: u32,
}

impl GpuType {
    /// GPUs of this type in all.
    pub fn gpus(&self) -> u32 {
        self.nodes * self.gpus_per_node
    }
}

/// The artifact's known types: `(name, GPUs per node, max physically profiled nodes)`
/// (`simulator_config.py`: `cluster_ngpus_per_node`, `cluster_max_physical_nnodes`).
pub const KNOWN_TYPES: [(&str, u32, u32); 6] = [
    ("azure", 8, 5),
    ("aws", 4, 16),
    ("dgx", 8, 2),
    ("dgx-ext", 8, 2),
    ("quad", 4, 1),
    ("rtx", 8, 3),
];

/// A cluster spec that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterError(pub String);

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterError {}

/// A heterogeneous cluster: GPU types **in their order** (the order of configuration indices,
/// of the integer program's columns, of the projection source; never a hash map).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiaCluster {
    /// The types, in order.
    pub types: Vec<GpuType>,
}

/// One configuration of the Sia policy: a GPU type, a node count and a GPU count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Index of the GPU type in [`SiaCluster::types`].
    pub gpu_type: usize,
    /// Nodes spanned.
    pub nodes: u32,
    /// GPUs in all.
    pub gpus: u32,
}

impl SiaCluster {
    /// The Table 3 "Heterogeneous" cluster: aws 6 nodes × 4 T4, dgx-ext 2 × 8 A100, rtx 3 × 8
    /// 2080Ti, in this order (64 GPUs).
    pub fn default_64() -> SiaCluster {
        SiaCluster::from_counts(&[("aws", 6), ("dgx-ext", 2), ("rtx", 3)])
            .expect("the default types are known")
    }

    /// A cluster of the artifact's known types with these node counts, in this order.
    pub fn from_counts(counts: &[(&str, u32)]) -> Result<SiaCluster, ClusterError> {
        let mut types: Vec<GpuType> = Vec::with_capacity(counts.len());
        for &(name, nodes) in counts {
            let Some(&(_, gpn, maxp)) = KNOWN_TYPES.iter().find(|t| t.0 == name) else {
                let known: Vec<&str> = KNOWN_TYPES.iter().map(|t| t.0).collect();
                return Err(ClusterError(format!(
                    "unknown GPU type `{name}` (Sia's types: {})",
                    known.join(", ")
                )));
            };
            if types.iter().any(|t| t.name == name) {
                return Err(ClusterError(format!("GPU type `{name}` given twice")));
            }
            if nodes == 0 || nodes > 4096 {
                return Err(ClusterError(format!(
                    "GPU type `{name}`: {nodes} nodes (1 to 4096)"
                )));
            }
            types.push(GpuType {
                name: name.to_string(),
                nodes,
                gpus_per_node: gpn,
                max_physical_nodes: maxp,
            });
        }
        if types.is_empty() {
            return Err(ClusterError("a cluster needs at least one GPU type".into()));
        }
        Ok(SiaCluster { types })
    }

    /// Every type's node count multiplied by `k` (`--cluster_scale`).
    pub fn scaled(&self, k: u32) -> SiaCluster {
        let mut c = self.clone();
        for t in &mut c.types {
            t.nodes *= k;
        }
        c
    }

    /// GPUs in all.
    pub fn gpus(&self) -> u32 {
        self.types.iter().map(GpuType::gpus).sum()
    }

    /// The index of type `name`.
    pub fn type_index(&self, name: &str) -> Option<usize> {
        self.types.iter().position(|t| t.name == name)
    }

    /// The policy's configurations, indexed globally in type order (`populate_valid_configs`,
    /// §6.1): per type with `N = min(nodes, max physical nodes)`, the single-node sizes 1, 2,
    /// 4, … up to a full node, then whole nodes 2, 3, … up to `N` (at most 64 GPUs).
    pub fn configurations(&self) -> Vec<Config> {
        let mut out = Vec::new();
        for (ti, t) in self.types.iter().enumerate() {
            let n_max = t.nodes.min(t.max_physical_nodes);
            let mut g = 1;
            while g <= t.gpus_per_node && g <= 64 {
                out.push(Config {
                    gpu_type: ti,
                    nodes: 1,
                    gpus: g,
                });
                g *= 2;
            }
            let mut n = 2;
            while n <= n_max && n * t.gpus_per_node <= 64 {
                out.push(Config {
                    gpu_type: ti,
                    nodes: n,
                    gpus: n * t.gpus_per_node,
                });
                n += 1;
            }
        }
        out
    }
}
