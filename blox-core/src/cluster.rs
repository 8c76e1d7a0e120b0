//! Clusters: their shape ([`ClusterSpec`]), the live GPU table ([`Cluster`]) and a scratch free
//! map ([`FreeGpus`]) that placements work on.
//!
//! **GPU types.** Every node has one GPU type, named by a string (`v100`, `k80`, …;
//! [`DEFAULT_GPU_TYPE`] when the description names none). The live [`Cluster`] numbers the
//! distinct names densely ([`GpuTypeId`], in order of first appearance), and a placement can be
//! asked to use one type only (see [`crate::Allocation::gpu_type`] and
//! [`FreeGpus::restrict`]).
//!
//! **Availability.** A GPU can be *unavailable* (its node left, drained or failed; see the
//! cluster-management crate `blox-nodes`). An unavailable GPU is never free: [`Cluster::free_gpus`],
//! [`Cluster::free_on_node`], [`Cluster::free_of_type`] and the plan from [`Cluster::free_map`]
//! count only available GPUs, so every placement written against them places on available GPUs
//! only, unchanged. [`Cluster::total_gpus`] stays the physical size (GPU ids never move);
//! [`Cluster::available_gpus`] is the capacity a policy can use now. Nodes can also be added
//! ([`Cluster::add_node`]); their GPUs get the next ids.

use crate::ids::{GpuId, GpuTypeId, JobId, NodeId};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// The GPU type of a node whose description names none.
pub const DEFAULT_GPU_TYPE: &str = "gpu";

/// One node: its GPU count and type, and the host resources Synergy-style placements share
/// out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NodeSpec {
    /// GPUs on the node.
    pub gpus: u32,
    /// CPU cores on the node (Blox registers 16 per 4-GPU node; unused by Blox's policies).
    #[serde(default = "NodeSpec::default_cpus")]
    pub cpus: u32,
    /// Host memory in GB.
    #[serde(default = "NodeSpec::default_mem")]
    pub mem_gb: f64,
    /// The type of the node's GPUs (e.g. `v100`); [`DEFAULT_GPU_TYPE`] by default.
    #[serde(default = "NodeSpec::default_type")]
    pub gpu_type: String,
}

impl NodeSpec {
    fn default_cpus() -> u32 {
        16
    }
    fn default_mem() -> f64 {
        250.0
    }
    fn default_type() -> String {
        DEFAULT_GPU_TYPE.to_owned()
    }

    /// A node with `gpus` GPUs of the default type and the default host resources.
    pub fn with_gpus(gpus: u32) -> Self {
        NodeSpec {
            gpus,
            cpus: Self::default_cpus(),
            mem_gb: Self::default_mem(),
            gpu_type: Self::default_type(),
        }
    }

    /// The same node with GPUs of type `gpu_type`.
    pub fn of_type(mut self, gpu_type: impl Into<String>) -> Self {
        self.gpu_type = gpu_type.into();
        self
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

    /// The distinct GPU type names, in order of first appearance (the order of
    /// [`GpuTypeId`]s).
    pub fn gpu_types(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for n in &self.nodes {
            if !out.contains(&n.gpu_type.as_str()) {
                out.push(&n.gpu_type);
            }
        }
        out
    }

    /// Total GPUs of the type named `gpu_type`.
    pub fn gpus_of_type(&self, gpu_type: &str) -> u32 {
        self.nodes
            .iter()
            .filter(|n| n.gpu_type == gpu_type)
            .map(|n| n.gpus)
            .sum()
    }
}

/// The most GPUs a cluster may have (a `--cluster` or one grown by node events): its state
/// and the engine's per-GPU tables must fit in memory.
pub const MAX_CLUSTER_GPUS: u32 = 1 << 20;

/// The most nodes a cluster may have (131,072 nodes take about 1.4 GB).
pub const MAX_CLUSTER_NODES: u32 = 1 << 17;

/// Error for a cluster written as `NODESxGPUS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterParseError(pub String);

impl fmt::Display for ClusterParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterParseError {}

/// Parses `NODESxGPUS[:TYPE]` groups separated by `,` or `+`, e.g. `32x4` (32 nodes of 4 GPUs
/// of the default type) or `2x8:v100,4x4:k80` (two 8-GPU V100 nodes, then four 4-GPU K80
/// nodes; `2x8:v100+4x4:k80` is the same, for lists that are themselves comma-separated). Both
/// numbers must be positive; a type name is letters, digits, `-`, `_` and `.`.
impl FromStr for ClusterSpec {
    type Err = ClusterParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut nodes = Vec::new();
        let mut total: u64 = 0;
        for group in s.split([',', '+']) {
            let bad = |why: &str| {
                ClusterParseError(format!(
                    "invalid cluster `{s}`: {why} (expected NODESxGPUS[:TYPE] groups separated \
                     by `,` or `+`, e.g. 32x4 or 2x8:v100,4x4:k80)"
                ))
            };
            let (shape, ty) = match group.trim().split_once(':') {
                Some((shape, ty)) => (shape, Some(ty.trim())),
                None => (group.trim(), None),
            };
            let (n, g) = shape
                .trim()
                .split_once(['x', 'X'])
                .ok_or_else(|| bad(&format!("no `x` in `{}`", group.trim())))?;
            let n: u32 = n.trim().parse().map_err(|_| {
                bad(&format!(
                    "NODES `{}` is not a whole number in 1..={MAX_CLUSTER_NODES}",
                    n.trim()
                ))
            })?;
            let g: u32 = g.trim().parse().map_err(|_| {
                bad(&format!(
                    "GPUS `{}` is not a whole number in 1..={MAX_CLUSTER_GPUS}",
                    g.trim()
                ))
            })?;
            if n == 0 || g == 0 {
                return Err(bad(
                    "a cluster needs at least one node and one GPU per node",
                ));
            }
            let ty = match ty {
                None => DEFAULT_GPU_TYPE,
                Some(t)
                    if !t.is_empty()
                        && t.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) =>
                {
                    t
                }
                Some(t) => {
                    return Err(bad(&format!(
                        "GPU type `{t}` is not a name (letters, digits, `-`, `_`, `.`)"
                    )))
                }
            };
            total += u64::from(n) * u64::from(g);
            if total > u64::from(MAX_CLUSTER_GPUS) {
                return Err(bad(&format!(
                    "{total} GPUs or more, above the bound of {MAX_CLUSTER_GPUS} GPUs (what \
                     fits in memory)"
                )));
            }
            if (nodes.len() as u64) + u64::from(n) > u64::from(MAX_CLUSTER_NODES) {
                return Err(bad(&format!(
                    "more than {MAX_CLUSTER_NODES} nodes (the bound of what fits in memory)"
                )));
            }
            nodes.extend((0..n).map(|_| NodeSpec::with_gpus(g).of_type(ty)));
        }
        Ok(ClusterSpec { nodes })
    }
}

/// The live cluster: which job holds each GPU. Components read it through `&Cluster`; only the
/// engine allocates and releases.
#[derive(Clone, Debug)]
pub struct Cluster {
    spec: ClusterSpec,
    /// Per GPU: its node, holder and service state, side by side, so that allocating,
    /// releasing or checking a GPU reads one cache line, not one per array.
    gpus: Vec<GpuSlot>,
    node_first_gpu: Vec<u32>,
    node_free: Vec<u32>,
    free_total: u32,
    type_names: Vec<String>,
    node_type: Vec<GpuTypeId>,
    type_total: Vec<u32>,
    type_free: Vec<u32>,
    /// GPUs taken out of service.
    down_total: u32,
    /// Per GPU: available and held by no job (what a plan starts from).
    free: Vec<bool>,
    /// Nodes with free GPUs, by type and free count.
    index: FreeIndex,
}

impl Cluster {
    /// An idle cluster of this shape.
    pub fn new(spec: ClusterSpec) -> Self {
        let mut gpus = Vec::with_capacity(spec.total_gpus() as usize);
        let mut node_first_gpu = Vec::with_capacity(spec.nodes.len() + 1);
        for (k, node) in spec.nodes.iter().enumerate() {
            node_first_gpu.push(gpus.len() as u32);
            gpus.extend(
                std::iter::repeat(GpuSlot::idle(NodeId(k as u32))).take(node.gpus as usize),
            );
        }
        node_first_gpu.push(gpus.len() as u32);
        let node_free: Vec<u32> = spec.nodes.iter().map(|n| n.gpus).collect();
        let total = gpus.len() as u32;
        let type_names: Vec<String> = spec.gpu_types().into_iter().map(str::to_owned).collect();
        let node_type: Vec<GpuTypeId> = spec
            .nodes
            .iter()
            .map(|n| {
                let k = type_names.iter().position(|t| *t == n.gpu_type);
                GpuTypeId(k.expect("every node's type is listed") as u32)
            })
            .collect();
        let mut type_total = vec![0; type_names.len()];
        for (n, t) in spec.nodes.iter().zip(&node_type) {
            type_total[t.index()] += n.gpus;
        }
        let index = FreeIndex::build(&spec, &node_free, &node_type, type_names.len());
        Cluster {
            spec,
            gpus,
            node_first_gpu,
            node_free,
            free_total: total,
            type_free: type_total.clone(),
            type_total,
            type_names,
            node_type,
            down_total: 0,
            free: vec![true; total as usize],
            index,
        }
    }

    /// GPUs in service (total minus the unavailable ones): the capacity policies can use now.
    pub fn available_gpus(&self) -> u32 {
        self.total_gpus() - self.down_total
    }

    /// Whether a GPU is in service.
    pub fn is_available(&self, gpu: GpuId) -> bool {
        !self.gpus[gpu.index()].down
    }

    /// GPUs in service on one node.
    pub fn available_on_node(&self, node: NodeId) -> u32 {
        self.gpus_of(node)
            .filter(|&g| !self.gpus[g as usize].down)
            .count() as u32
    }

    /// Engine-side: take a GPU out of service (`false`) or put it back (`true`). A free GPU
    /// stops (starts) counting as free at once; a held one keeps its holder until the engine
    /// releases it, and is then not free. Returns whether anything changed.
    pub fn set_available(&mut self, gpu: GpuId, available: bool) -> bool {
        let i = gpu.index();
        let slot = &mut self.gpus[i];
        if slot.down != available {
            return false;
        }
        slot.down = !available;
        let (node, held) = (slot.node.index(), slot.owner.is_some());
        let t = self.node_type[node].index();
        if available {
            self.down_total -= 1;
            if !held {
                self.free[i] = true;
                self.node_free[node] += 1;
                self.index
                    .moved(node, t, self.node_free[node] - 1, self.node_free[node]);
                self.type_free[t] += 1;
                self.free_total += 1;
            }
        } else {
            self.down_total += 1;
            if !held {
                self.free[i] = false;
                self.node_free[node] -= 1;
                self.index
                    .moved(node, t, self.node_free[node] + 1, self.node_free[node]);
                self.type_free[t] -= 1;
                self.free_total -= 1;
            }
        }
        true
    }

    /// Engine-side: add a node at the end (its GPUs get the next ids, so existing ids never
    /// move). A new GPU type gets the next [`GpuTypeId`]. Returns the node's id.
    pub fn add_node(&mut self, node: NodeSpec) -> NodeId {
        let id = NodeId(self.spec.nodes.len() as u32);
        let t = match self.type_names.iter().position(|n| *n == node.gpu_type) {
            Some(k) => k,
            None => {
                self.type_names.push(node.gpu_type.clone());
                self.type_total.push(0);
                self.type_free.push(0);
                self.type_names.len() - 1
            }
        };
        let gpus = node.gpus;
        self.gpus
            .extend(std::iter::repeat(GpuSlot::idle(id)).take(gpus as usize));
        self.node_first_gpu.push(self.gpus.len() as u32);
        self.free
            .extend(std::iter::repeat(true).take(gpus as usize));
        self.node_free.push(gpus);
        self.node_type.push(GpuTypeId(t as u32));
        self.type_total[t] += gpus;
        self.type_free[t] += gpus;
        self.free_total += gpus;
        self.spec.nodes.push(node);
        // Rare: the index is rebuilt (a new type or a larger node changes its layout).
        self.index = FreeIndex::build(
            &self.spec,
            &self.node_free,
            &self.node_type,
            self.type_names.len(),
        );
        id
    }

    /// Number of distinct GPU types (at least 1 for a cluster with nodes).
    pub fn n_gpu_types(&self) -> usize {
        self.type_names.len()
    }

    /// The name of a GPU type.
    ///
    /// # Panics
    /// If the id is not one of this cluster's types.
    pub fn gpu_type_name(&self, t: GpuTypeId) -> &str {
        &self.type_names[t.index()]
    }

    /// The id of the type named `name`, if the cluster has it.
    pub fn gpu_type_id(&self, name: &str) -> Option<GpuTypeId> {
        self.type_names
            .iter()
            .position(|t| t == name)
            .map(|k| GpuTypeId(k as u32))
    }

    /// The GPU type of a node.
    pub fn node_type(&self, node: NodeId) -> GpuTypeId {
        self.node_type[node.index()]
    }

    /// The GPU type of a GPU.
    pub fn gpu_type(&self, gpu: GpuId) -> GpuTypeId {
        self.node_type[self.gpus[gpu.index()].node.index()]
    }

    /// GPUs of a type in the whole cluster.
    pub fn gpus_of_type(&self, t: GpuTypeId) -> u32 {
        self.type_total[t.index()]
    }

    /// Free GPUs of a type.
    pub fn free_of_type(&self, t: GpuTypeId) -> u32 {
        self.type_free[t.index()]
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
        self.gpus.len() as u32
    }

    /// Free GPUs in the whole cluster (available and held by no job).
    pub fn free_gpus(&self) -> u32 {
        self.free_total
    }

    /// Free GPUs on one node.
    pub fn free_on_node(&self, node: NodeId) -> u32 {
        self.node_free[node.index()]
    }

    /// The node a GPU belongs to.
    pub fn node_of(&self, gpu: GpuId) -> NodeId {
        self.gpus[gpu.index()].node
    }

    /// The GPU ids of a node.
    pub fn gpus_of(&self, node: NodeId) -> Range<u32> {
        self.node_first_gpu[node.index()]..self.node_first_gpu[node.index() + 1]
    }

    /// Which job holds a GPU, if any.
    pub fn owner(&self, gpu: GpuId) -> Option<JobId> {
        self.gpus[gpu.index()].owner
    }

    /// Whether a GPU id exists in this cluster.
    pub fn contains(&self, gpu: GpuId) -> bool {
        gpu.index() < self.gpus.len()
    }

    /// A scratch copy of the free map for a placement to plan on.
    pub fn free_map(&self) -> FreeGpus<'_> {
        FreeGpus {
            free: self.free.clone(),
            node_free: self.node_free.clone(),
            free_total: self.free_total,
            type_free: self.type_free.clone(),
            index: self.index.clone(),
            only: None,
            layout: self,
        }
    }

    /// Engine-side: give `gpus` to `job`.
    ///
    /// # Panics
    /// If a GPU is already held (the engine validates decisions before applying them).
    pub fn allocate(&mut self, job: JobId, gpus: &[GpuId]) {
        for &g in gpus {
            let slot = &mut self.gpus[g.index()];
            assert!(slot.owner.is_none(), "GPU {g} allocated twice");
            assert!(!slot.down, "GPU {g} allocated while unavailable");
            slot.owner = Some(job);
            let node = slot.node.index();
            self.free[g.index()] = false;
            let t = self.node_type[node].index();
            self.node_free[node] -= 1;
            self.index
                .moved(node, t, self.node_free[node] + 1, self.node_free[node]);
            self.type_free[t] -= 1;
        }
        self.free_total -= gpus.len() as u32;
    }

    /// Engine-side: free `gpus`.
    pub fn release(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            let slot = &mut self.gpus[g.index()];
            if slot.owner.take().is_some() && !slot.down {
                let node = slot.node.index();
                self.free[g.index()] = true;
                let t = self.node_type[node].index();
                self.node_free[node] += 1;
                self.index
                    .moved(node, t, self.node_free[node] - 1, self.node_free[node]);
                self.type_free[t] += 1;
                self.free_total += 1;
            }
        }
    }
}

/// One GPU of a [`Cluster`]: its node, its holder and whether it is out of service.
#[derive(Clone, Copy, Debug)]
struct GpuSlot {
    owner: Option<JobId>,
    node: NodeId,
    /// Taken out of service (never free while set).
    down: bool,
}

impl GpuSlot {
    /// A GPU of `node`, in service, held by no job.
    fn idle(node: NodeId) -> Self {
        GpuSlot {
            owner: None,
            node,
            down: false,
        }
    }
}

/// Nodes with free GPUs, by GPU type and by free count: how a plan finds the next node with
/// room, or the lowest node with exactly `c` free GPUs, without walking the nodes one by one.
///
/// One set of nodes per (group, count): a group is a GPU type, plus one group for every type
/// together when the cluster has several; count 0 stands for "at least one free GPU", count
/// `c` ≥ 1 for "exactly `c` free". Each set is a two-level bit set (a bit per node, and a
/// bit per non-empty word of 64 nodes), stored flat so that copying the index for a plan is
/// two allocations. Updating a node's free count is O(1); a query is O(1) within its word of
/// 64 nodes and a scan of one bit per 64 nodes beyond.
#[derive(Clone, Debug, Default)]
struct FreeIndex {
    /// Largest GPU count of a node: free counts range over `0..=max`.
    max: u32,
    /// GPU types; with more than one, group `n_types` is every type together.
    n_types: usize,
    /// Words per set (one bit per node).
    wlen: usize,
    /// Summary words per set (one bit per word).
    slen: usize,
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl FreeIndex {
    /// The index of a cluster whose nodes have these free counts and types.
    fn build(
        spec: &ClusterSpec,
        node_free: &[u32],
        node_type: &[GpuTypeId],
        n_types: usize,
    ) -> Self {
        let max = spec.nodes.iter().map(|n| n.gpus).max().unwrap_or(0);
        let groups = if n_types > 1 { n_types + 1 } else { 1 };
        let sets = groups * (max as usize + 1);
        let wlen = node_free.len().div_ceil(64).max(1);
        let slen = wlen.div_ceil(64);
        let mut index = FreeIndex {
            max,
            n_types,
            wlen,
            slen,
            words: vec![0; sets * wlen],
            summary: vec![0; sets * slen],
        };
        for (k, (&free, t)) in node_free.iter().zip(node_type).enumerate() {
            index.moved(k, t.index(), 0, free);
        }
        index
    }

    /// The set of a group (`Some(type)` or every type) and count.
    fn set(&self, only: Option<GpuTypeId>, count: u32) -> usize {
        let group = match only {
            Some(t) => t.index(),
            None if self.n_types > 1 => self.n_types,
            None => 0,
        };
        group * (self.max as usize + 1) + count as usize
    }

    fn insert(&mut self, set: usize, node: usize) {
        let w = node / 64;
        self.words[set * self.wlen + w] |= 1 << (node % 64);
        self.summary[set * self.slen + w / 64] |= 1 << (w % 64);
    }

    fn remove(&mut self, set: usize, node: usize) {
        let w = node / 64;
        let word = &mut self.words[set * self.wlen + w];
        *word &= !(1 << (node % 64));
        if *word == 0 {
            self.summary[set * self.slen + w / 64] &= !(1 << (w % 64));
        }
    }

    /// Node `node` (of type `t`) went from `from` to `to` free GPUs.
    #[inline]
    fn moved(&mut self, node: usize, t: usize, from: u32, to: u32) {
        let groups: &[Option<GpuTypeId>] = if self.n_types > 1 {
            &[Some(GpuTypeId(t as u32)), None]
        } else {
            &[None]
        };
        for &g in groups {
            if from > 0 {
                self.remove(self.set(g, from), node);
            }
            if to > 0 {
                self.insert(self.set(g, to), node);
            }
            if (from == 0) != (to == 0) {
                let any = self.set(g, 0);
                if to > 0 {
                    self.insert(any, node);
                } else {
                    self.remove(any, node);
                }
            }
        }
    }

    /// The lowest node at or after `from` in the set of (`only`, `count`).
    fn next(&self, from: usize, only: Option<GpuTypeId>, count: u32) -> Option<usize> {
        let set = self.set(only, count);
        let words = &self.words[set * self.wlen..(set + 1) * self.wlen];
        let w = from / 64;
        let first = words.get(w)? & (!0u64 << (from % 64));
        if first != 0 {
            return Some(w * 64 + first.trailing_zeros() as usize);
        }
        // The next non-empty word after `w`, through the summary.
        let summary = &self.summary[set * self.slen..(set + 1) * self.slen];
        let next = w + 1;
        let mut s = next / 64;
        let mut mask = !0u64 << (next % 64);
        while let Some(&bits) = summary.get(s) {
            let bits = bits & mask;
            if bits != 0 {
                let w = s * 64 + bits.trailing_zeros() as usize;
                return Some(w * 64 + words[w].trailing_zeros() as usize);
            }
            s += 1;
            mask = !0;
        }
        None
    }
}

/// A placement's scratch copy of the free map: free and occupy GPUs while planning, without
/// touching the live cluster.
///
/// A plan can be **restricted** to one GPU type ([`FreeGpus::restrict`]): while it is, GPUs of
/// other types read as taken (`is_free`, `free_on_node`, `free_of_node` and `total_free` see
/// only that type), so any placement written against these accessors places on that type
/// only. Occupying and releasing always work on every GPU.
#[derive(Clone, Debug)]
pub struct FreeGpus<'a> {
    free: Vec<bool>,
    node_free: Vec<u32>,
    free_total: u32,
    type_free: Vec<u32>,
    index: FreeIndex,
    only: Option<GpuTypeId>,
    layout: &'a Cluster,
}

impl FreeGpus<'_> {
    /// Whether a node is visible under the current restriction.
    fn visible(&self, node: NodeId) -> bool {
        self.only
            .map_or(true, |t| self.layout.node_type[node.index()] == t)
    }

    /// See only GPUs of type `t` (`None`: every type) until the next call.
    pub fn restrict(&mut self, t: Option<GpuTypeId>) {
        self.only = t;
    }

    /// The current restriction.
    pub fn restriction(&self) -> Option<GpuTypeId> {
        self.only
    }

    /// Whether a GPU is free in the plan (and of the restricted type, if any).
    pub fn is_free(&self, gpu: GpuId) -> bool {
        self.free[gpu.index()] && self.visible(self.layout.node_of(gpu))
    }

    /// Free GPUs on a node in the plan (0 for a node of another type than the restriction).
    pub fn free_on_node(&self, node: NodeId) -> u32 {
        if self.visible(node) {
            self.node_free[node.index()]
        } else {
            0
        }
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.node_free.len()
    }

    /// Free GPUs of a node in ascending id order (none for a node of another type than the
    /// restriction).
    pub fn free_of_node(&self, node: NodeId) -> impl Iterator<Item = GpuId> + '_ {
        let range = if self.visible(node) {
            self.layout.gpus_of(node)
        } else {
            0..0
        };
        range.filter(move |&g| self.free[g as usize]).map(GpuId)
    }

    /// The lowest node at or after `from` with a free GPU in the plan (of the restricted type,
    /// if any): what walking `free_on_node` up from `from` finds first, without the walk
    /// (O(1) for the next node of a word of 64, a scan of one bit per 64 nodes beyond).
    pub fn next_free_node(&self, from: NodeId) -> Option<NodeId> {
        self.index
            .next(from.index(), self.only, 0)
            .map(|k| NodeId(k as u32))
    }

    /// The lowest node at or after `from` with exactly `count` free GPUs in the plan (of the
    /// restricted type, if any; `count` ≥ 1), found through the index by free count.
    pub fn next_node_with_free(&self, from: NodeId, count: u32) -> Option<NodeId> {
        if count == 0 {
            return (from.index()..self.n_nodes())
                .find(|&k| self.free_on_node(NodeId(k as u32)) == 0)
                .map(|k| NodeId(k as u32));
        }
        if count > self.index.max {
            return None;
        }
        self.index
            .next(from.index(), self.only, count)
            .map(|k| NodeId(k as u32))
    }

    /// The node a job of `need` GPUs fits best on: the fewest free GPUs that are at least
    /// `need`, ties by the lowest node id (of the restricted type, if any), through the index
    /// by free count; `None` when no node has `need` free.
    pub fn best_fit_node(&self, need: u32) -> Option<NodeId> {
        (need.max(1)..=self.index.max).find_map(|c| self.next_node_with_free(NodeId(0), c))
    }

    /// Mark GPUs used in the plan.
    pub fn occupy(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            if std::mem::replace(&mut self.free[g.index()], false) {
                let node = self.layout.node_of(g).index();
                let t = self.layout.node_type[node].index();
                self.node_free[node] -= 1;
                self.index
                    .moved(node, t, self.node_free[node] + 1, self.node_free[node]);
                self.type_free[t] -= 1;
                self.free_total -= 1;
            }
        }
    }

    /// Mark GPUs free in the plan (an unavailable GPU stays taken).
    pub fn release(&mut self, gpus: &[GpuId]) {
        for &g in gpus {
            if !self.layout.is_available(g) {
                continue;
            }
            if !std::mem::replace(&mut self.free[g.index()], true) {
                let node = self.layout.node_of(g).index();
                let t = self.layout.node_type[node].index();
                self.node_free[node] += 1;
                self.index
                    .moved(node, t, self.node_free[node] - 1, self.node_free[node]);
                self.type_free[t] += 1;
                self.free_total += 1;
            }
        }
    }

    /// Total free GPUs in the plan (of the restricted type, if any).
    pub fn total_free(&self) -> u32 {
        match self.only {
            Some(t) => self.type_free[t.index()],
            None => self.free_total,
        }
    }

    /// Free GPUs of type `t` in the plan, whatever the restriction.
    pub fn free_of_type(&self, t: GpuTypeId) -> u32 {
        self.type_free[t.index()]
    }
}
