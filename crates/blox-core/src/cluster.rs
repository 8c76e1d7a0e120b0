//! Clusters: their shape ([`ClusterSpec`]), the live GPU table ([`Cluster`]) and a scratch free
//! map ([`FreeGpus`]) that placements work on.

use crate::ids::{GpuId, JobId, NodeId};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// One node: its GPU count and the host resources Synergy-style placements share out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// GPUs on the node.
    pub gpus: u32,
    /// CPU cores on the node (Blox registers 16 per 4-GPU node; unused by Blox's policies).
    #[serde(default = "NodeSpec::default_cpus")]
    pub cpus: u32,
    /// Host memory in GB.
    #[serde(default = "NodeSpec::default_mem")]
    pub mem_gb: f64,
}

impl NodeSpec {
    fn default_cpus() -> u32 {
        16
    }
    fn default_mem() -> f64 {
        250.0
    }

    /// A node with `gpus` GPUs and the default host resources.
    pub fn with_gpus(gpus: u32) -> Self {
        NodeSpec {
            gpus,
            cpus: Self::default_cpus(),
            mem_gb: Self::default_mem(),
        }
    }
}

/// The shape of a cluster: an ordered list of nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterSpec {
    /// Nodes, in id order.
    pub nodes: Vec<NodeSpec>,
}

impl ClusterSpec {
    /// `nodes` identical nodes of `gpus_per_node` GPUs (Blox's default is 32 × 4).
    pub fn uniform(nodes: u32, gpus_per_node: u32) -> Self {
        ClusterSpec {
            nodes: (0..nodes)
                .map(|_| NodeSpec::with_gpus(gpus_per_node))
                .collect(),
        }
    }

    /// Total GPUs.
    pub fn total_gpus(&self) -> u32 {
        self.nodes.iter().map(|n| n.gpus).sum()
    }
}

/// Error for a cluster written as `NODESxGPUS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterParseError(pub String);

impl fmt::Display for ClusterParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterParseError {}

/// Parses `NODESxGPUS`, e.g. `32x4`. Both numbers must be positive.
impl FromStr for ClusterSpec {
    type Err = ClusterParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| {
            ClusterParseError(format!(
                "invalid cluster `{s}`: {why} (expected NODESxGPUS, e.g. 32x4)"
            ))
        };
        let (n, g) = s
            .trim()
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("no `x`"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad("NODES is not a whole number"))?;
        let g: u32 = g
            .trim()
            .parse()
            .map_err(|_| bad("GPUS is not a whole number"))?;
        if n == 0 || g == 0 {
            return Err(bad(
                "a cluster needs at least one node and one GPU per node",
            ));
        }
        if u64::from(n) * u64::from(g) > 1 << 24 {
            return Err(bad("more than 16,777,216 GPUs"));
        }
        Ok(ClusterSpec::uniform(n, g))
    }
}

/// The live cluster: which job holds each GPU. Components read it through `&Cluster`; only the
/// engine allocates and releases.
#[derive(Clone, Debug)]
pub struct Cluster {
    spec: ClusterSpec,
    gpu_node: Vec<NodeId>,
    node_first_gpu: Vec<u32>,
    owner: Vec<Option<JobId>>,
    node_free: Vec<u32>,
    free_total: u32,
}

impl Cluster {
    /// An idle cluster of this shape.
    pub fn new(spec: ClusterSpec) -> Self {
        let mut gpu_node = Vec::with_capacity(spec.total_gpus() as usize);
        let mut node_first_gpu = Vec::with_capacity(spec.nodes.len() + 1);
        for (k, node) in spec.nodes.iter().enumerate() {
            node_first_gpu.push(gpu_node.len() as u32);
            gpu_node.extend(std::iter::repeat(NodeId(k as u32)).take(node.gpus as usize));
        }
        node_first_gpu.push(gpu_node.len() as u32);
        let node_free = spec.nodes.iter().map(|n| n.gpus).collect();
        let total = gpu_node.len() as u32;
        Cluster {
            spec,
            owner: vec![None; gpu_node.len()],
            gpu_node,
            node_first_gpu,
            node_free,
            free_total: total,
        }
    }

    /// The cluster's shape.
    pub fn spec(&self) -> &ClusterSpec {
        &self.spec
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.spec.nodes.len()
    }

    /// Total GPUs.
    pub fn total_gpus(&self) -> u32 {
        self.gpu_node.len() as u32
    }

    /// Free GPUs in the whole cluster.
    pub fn free_gpus(&self) -> u32 {
        self.free_total
    }

    /// Free GPUs on one node.
    pub fn free_on_node(&self, node: NodeId) -> u32 {
        self.node_free[node.index()]
    }

    /// The node a GPU belongs to.
    pub fn node_of(&self, gpu: GpuId) -> NodeId {
        self.gpu_node[gpu.index()]
    }

    /// The GPU ids of a node.
    pub fn gpus_of(&self, node: NodeId) -> Range<u32> {
        self.node_first_gpu[node.index()]..self.node_first_gpu[node.index() + 1]
    }

    /// Which job holds a GPU, if any.
    pub fn owner(&self, gpu: GpuId) -> Option<JobId> {
        self.owner[gpu.index()]
    }

    /// Whether a GPU id exists in this cluster.
    pub fn contains(&self, gpu: GpuId) -> bool {
        gpu.index() < self.owner.len()
    }

    /// A scratch copy of the free map for a placement to plan on.
    pub fn free_map(&self) -> FreeGpus<'_> {
        FreeGpus {
            free: self.owner.iter().map(Option::is_none).collect(),
            node_free: self.node_free.clone(),
            free_total: self.free_total,
            layout: self,
        }
    }

    /// Engine-side: give `gpus` to `job`.
    ///
    /// # Panics
    /// If a GPU is already held (the engine validates decisions before applying them).
    pub fn allocate(&mut self, job: JobId, gpus: &[GpuId]) {
        for &g in gpus {
            let slot = &mut self.owner[g.index()];
            assert!(slot.is_none(), "GPU {g} allocated twice");
            *slot = Some(job);
            self.node_free[self.gpu_node[g.index()].index()] -= 1;
        }
        self.free_total -= gpus.len() as u32;
    }

    /// Engine-side: free `gpus`.
    pub fn release(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            let slot = &mut self.owner[g.index()];
            if slot.take().is_some() {
                self.node_free[self.gpu_node[g.index()].index()] += 1;
                self.free_total += 1;
            }
        }
    }
}

/// A placement's scratch copy of the free map: free and occupy GPUs while planning, without
/// touching the live cluster.
#[derive(Clone, Debug)]
pub struct FreeGpus<'a> {
    free: Vec<bool>,
    node_free: Vec<u32>,
    free_total: u32,
    layout: &'a Cluster,
}

impl FreeGpus<'_> {
    /// Whether a GPU is free in the plan.
    pub fn is_free(&self, gpu: GpuId) -> bool {
        self.free[gpu.index()]
    }

    /// Free GPUs on a node in the plan.
    pub fn free_on_node(&self, node: NodeId) -> u32 {
        self.node_free[node.index()]
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.node_free.len()
    }

    /// Free GPUs of a node in ascending id order.
    pub fn free_of_node(&self, node: NodeId) -> impl Iterator<Item = GpuId> + '_ {
        self.layout
            .gpus_of(node)
            .filter(move |&g| self.free[g as usize])
            .map(GpuId)
    }

    /// Mark GPUs used in the plan.
    pub fn occupy(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            if std::mem::replace(&mut self.free[g.index()], false) {
                self.node_free[self.layout.gpu_node[g.index()].index()] -= 1;
                self.free_total -= 1;
            }
        }
    }

    /// Mark GPUs free in the plan.
    pub fn release(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            if !std::mem::replace(&mut self.free[g.index()], true) {
                self.node_free[self.layout.gpu_node[g.index()].index()] += 1;
                self.free_total += 1;
            }
        }
    }

    /// Total free GPUs in the plan.
    pub fn total_free(&self) -> u32 {
        self.free_total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nodes_by_gpus() {
        let c: ClusterSpec = "32x4".parse().unwrap();
        assert_eq!(c.total_gpus(), 128);
        assert!("0x4"
            .parse::<ClusterSpec>()
            .unwrap_err()
            .0
            .contains("at least one node"));
        assert!("32"
            .parse::<ClusterSpec>()
            .unwrap_err()
            .0
            .contains("NODESxGPUS"));
        assert!("ax4".parse::<ClusterSpec>().is_err());
    }

    #[test]
    fn allocation_tracks_node_counts() {
        let mut c = Cluster::new(ClusterSpec::uniform(2, 4));
        assert_eq!(c.gpus_of(NodeId(1)), 4..8);
        c.allocate(JobId(0), &[GpuId(1), GpuId(5)]);
        assert_eq!(c.free_gpus(), 6);
        assert_eq!(c.free_on_node(NodeId(0)), 3);
        assert_eq!(c.owner(GpuId(5)), Some(JobId(0)));
        let mut plan = c.free_map();
        let free0: Vec<u32> = plan.free_of_node(NodeId(0)).map(|g| g.0).collect();
        assert_eq!(free0, vec![0, 2, 3]);
        plan.occupy(&[GpuId(0)]);
        assert_eq!(plan.free_on_node(NodeId(0)), 2);
        assert_eq!(
            c.free_on_node(NodeId(0)),
            3,
            "the plan never touches the live cluster"
        );
        c.release(&[GpuId(1), GpuId(5)]);
        assert_eq!(c.free_gpus(), 8);
    }
}
