//! The interconnect model: a graph of GPUs, switches, sockets and NICs whose links carry
//! bandwidth, and the bandwidth a job's ring all-reduce gets on a set of GPUs.
//!
//! # Model
//!
//! A [`Topology`] is an undirected graph (petgraph, private to this crate) whose vertices are
//! GPUs, NVLink/NVSwitch fabrics, PCIe switches, CPU sockets, NICs, top-of-rack and spine
//! switches ([`VertexKind`]), and whose links carry a bandwidth in GB/s per direction: what one
//! flow can count on. Builders derate a shared rack uplink to the share of one node
//! (`uplink / nodes in the rack`), the steady state of a busy cluster.
//!
//! The bandwidth between two GPUs is that of the **widest path** between them (the largest, over
//! all paths, of the smallest link on the path). A job of n GPUs runs a ring all-reduce; as NCCL
//! does, the ring is assumed to follow the topology (GPUs of one NVSwitch domain next to each
//! other, then nodes of one rack, …), so each link carries one flow per direction and the ring's
//! **bottleneck bandwidth** is the smallest widest-path bandwidth over its hops.
//!
//! Both are answered from a *domain tree* built once (Kruskal's algorithm on the links in
//! decreasing bandwidth, a "Kruskal reconstruction tree", with equal-bandwidth merges
//! collapsed): each domain is a set of GPUs joined at one bandwidth (an NVSwitch node at
//! 300 GB/s, a rack at 25 GB/s, the cluster at 12.5 GB/s), nested. The widest-path bandwidth of
//! two GPUs is the bandwidth of their smallest common domain, and a ring's bottleneck is the
//! bandwidth of the smallest domain holding all its GPUs. Building costs O(E log E); a query on
//! k GPUs costs O(k·h) for a tree of height h (3 or 4 for the built-in shapes).
//!
//! # File format (JSON)
//!
//! ```json
//! {
//!   "vertices": [
//!     {"id": "g0", "kind": "gpu", "gpu": 0},
//!     {"id": "g1", "kind": "gpu", "gpu": 1},
//!     {"id": "sw", "kind": "nvswitch"}
//!   ],
//!   "links": [
//!     {"a": "g0", "b": "sw", "bandwidth_gb_s": 300.0},
//!     {"a": "g1", "b": "sw", "bandwidth_gb_s": 300.0}
//!   ]
//! }
//! ```
//!
//! Every GPU of the cluster (ids `0..G`, in the cluster's node order) appears exactly once as a
//! `gpu` vertex; all GPUs must be connected. Unknown fields are rejected; errors name the file
//! and the field (`links[3].b`).

use blox_core::{ClusterSpec, ComponentSpec, GpuId};
use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::unionfind::UnionFind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// What a vertex of the interconnect is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VertexKind {
    /// A GPU; carries its cluster-wide id.
    Gpu,
    /// An NVLink switch (or a group of direct NVLinks) joining the GPUs of a node.
    Nvswitch,
    /// A PCIe switch.
    PcieSwitch,
    /// A CPU socket (its root complex; sockets are joined by UPI/xGMI links).
    CpuSocket,
    /// A network interface card.
    Nic,
    /// A top-of-rack switch.
    TorSwitch,
    /// A spine (aggregation) switch joining racks.
    SpineSwitch,
}

/// One vertex of a topology file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VertexSpec {
    /// A unique name, used by links.
    pub id: String,
    /// What it is.
    pub kind: VertexKind,
    /// For `gpu` vertices only: the cluster-wide GPU id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
}

/// One link of a topology file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end (a vertex id).
    pub a: String,
    /// The other end (a vertex id).
    pub b: String,
    /// Bandwidth per direction one flow can count on, in GB/s (positive, finite).
    pub bandwidth_gb_s: f64,
}

/// A topology as data: what a JSON file holds. [`Topology::from_spec`] validates it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// The vertices.
    pub vertices: Vec<VertexSpec>,
    /// The links.
    pub links: Vec<LinkSpec>,
}

/// An invalid or unreadable topology: where (file, field) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    /// The file, or `<topology>` for in-memory input.
    pub source: String,
    /// The field at fault (e.g. `links[3].b`), when one is.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl TopologyError {
    fn new(field: Option<String>, message: impl Into<String>) -> Self {
        TopologyError {
            source: "<topology>".into(),
            field,
            message: message.into(),
        }
    }

    fn in_file(mut self, path: &Path) -> Self {
        self.source = path.display().to_string();
        self
    }
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "topology `{}`", self.source)?;
        if let Some(field) = &self.field {
            write!(f, ", field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for TopologyError {}

/// The inside of one node, for the builders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeShape {
    /// A DGX-like node: 8 GPUs on an NVSwitch at 300 GB/s (NVLink 3, A100, per direction);
    /// pairs of GPUs on 4 PCIe 4.0 switches (32 GB/s), two per CPU socket; sockets joined at
    /// 40 GB/s (UPI); the NIC on the first PCIe switch.
    Dgx,
    /// A 4-GPU PCIe node: pairs of GPUs on 2 PCIe 3.0 switches (16 GB/s peer to peer), both on
    /// one CPU socket through its root complex (13 GB/s, ~80% of PCIe 3.0 ×16); the NIC on the
    /// socket.
    Pcie4,
    /// `gpus` GPUs on one switch at `link_gb_s` (an NVSwitch), plus a PCIe 4.0 switch (32 GB/s)
    /// to the NIC and the CPU: the default node.
    Switched {
        /// GPUs on the node.
        gpus: u32,
        /// Bandwidth of each GPU's link to the switch, GB/s.
        link_gb_s: f64,
    },
}

impl NodeShape {
    /// GPUs on a node of this shape.
    pub fn gpus(&self) -> u32 {
        match self {
            NodeShape::Dgx => 8,
            NodeShape::Pcie4 => 4,
            NodeShape::Switched { gpus, .. } => *gpus,
        }
    }
}

/// How nodes are networked, for the builders: racks of `rack_size` nodes, each node's NIC on
/// its rack's top-of-rack switch, racks on one spine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fabric {
    /// Nodes per rack.
    pub rack_size: u32,
    /// NIC bandwidth, GB/s.
    pub nic_gb_s: f64,
    /// Total uplink bandwidth of one rack to the spine, GB/s. The link is modelled as the
    /// share of one node: `uplink_gb_s / nodes in the rack`.
    pub uplink_gb_s: f64,
}

impl Default for Fabric {
    /// Racks of 16 nodes, 25 GB/s NICs (200 Gb/s HDR InfiniBand), uplinks oversubscribed 2:1
    /// (200 GB/s per rack, so 12.5 GB/s per node across racks).
    fn default() -> Self {
        Fabric {
            rack_size: 16,
            nic_gb_s: 25.0,
            uplink_gb_s: 200.0,
        }
    }
}

/// Bandwidth of the default node's NVSwitch links, GB/s.
pub const DEFAULT_INTRA_NODE_GB_S: f64 = 300.0;

/// Builds a [`TopologySpec`] piece by piece; GPU ids are given in the order nodes are added.
#[derive(Clone, Debug, Default)]
pub struct TopologyBuilder {
    spec: TopologySpec,
    next_gpu: u32,
    nodes: u32,
    racks: u32,
}

impl TopologyBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    fn vertex(&mut self, id: String, kind: VertexKind, gpu: Option<u32>) -> String {
        self.spec.vertices.push(VertexSpec {
            id: id.clone(),
            kind,
            gpu,
        });
        id
    }

    fn link(&mut self, a: &str, b: &str, gb_s: f64) {
        self.spec.links.push(LinkSpec {
            a: a.into(),
            b: b.into(),
            bandwidth_gb_s: gb_s,
        });
    }

    /// Add one node of this shape; returns the id of its NIC vertex (not yet on a network).
    pub fn node(&mut self, shape: NodeShape) -> String {
        let n = self.nodes;
        self.nodes += 1;
        let gpus: Vec<String> = (0..shape.gpus())
            .map(|i| {
                let g = self.next_gpu;
                self.next_gpu += 1;
                self.vertex(format!("n{n}.gpu{i}"), VertexKind::Gpu, Some(g))
            })
            .collect();
        let nic = self.vertex(format!("n{n}.nic"), VertexKind::Nic, None);
        match shape {
            NodeShape::Dgx => {
                let sw = self.vertex(format!("n{n}.nvswitch"), VertexKind::Nvswitch, None);
                let sockets: Vec<String> = (0..2)
                    .map(|s| self.vertex(format!("n{n}.cpu{s}"), VertexKind::CpuSocket, None))
                    .collect();
                self.link(&sockets[0], &sockets[1], 40.0);
                for p in 0..4 {
                    let pcie = self.vertex(format!("n{n}.pcie{p}"), VertexKind::PcieSwitch, None);
                    self.link(&pcie, &sockets[p / 2], 32.0);
                    for g in &gpus[2 * p..2 * p + 2] {
                        self.link(g, &pcie, 32.0);
                    }
                    if p == 0 {
                        self.link(&nic, &pcie, 32.0);
                    }
                }
                for g in &gpus {
                    self.link(g, &sw, 300.0);
                }
            }
            NodeShape::Pcie4 => {
                let cpu = self.vertex(format!("n{n}.cpu0"), VertexKind::CpuSocket, None);
                for p in 0..2 {
                    let pcie = self.vertex(format!("n{n}.pcie{p}"), VertexKind::PcieSwitch, None);
                    self.link(&pcie, &cpu, 13.0);
                    for g in &gpus[2 * p..2 * p + 2] {
                        self.link(g, &pcie, 16.0);
                    }
                }
                self.link(&nic, &cpu, 16.0);
            }
            NodeShape::Switched { link_gb_s, .. } => {
                let sw = self.vertex(format!("n{n}.nvswitch"), VertexKind::Nvswitch, None);
                let pcie = self.vertex(format!("n{n}.pcie0"), VertexKind::PcieSwitch, None);
                let cpu = self.vertex(format!("n{n}.cpu0"), VertexKind::CpuSocket, None);
                for g in &gpus {
                    self.link(g, &sw, link_gb_s);
                    self.link(g, &pcie, 32.0);
                }
                self.link(&pcie, &cpu, 32.0);
                self.link(&nic, &pcie, 32.0);
            }
        }
        nic
    }

    /// Add nodes of these shapes, networked by `fabric`: racks of `fabric.rack_size` nodes in
    /// order, a top-of-rack switch per rack, and a spine when there is more than one rack.
    pub fn racks(&mut self, nodes: &[NodeShape], fabric: &Fabric) -> &mut Self {
        let rack_size = fabric.rack_size.max(1) as usize;
        let multi = nodes.len() > rack_size;
        let spine = multi.then(|| self.vertex("spine".into(), VertexKind::SpineSwitch, None));
        for chunk in nodes.chunks(rack_size) {
            let r = self.racks;
            self.racks += 1;
            let tor = self.vertex(format!("rack{r}.tor"), VertexKind::TorSwitch, None);
            for &shape in chunk {
                let nic = self.node(shape);
                self.link(&nic, &tor, fabric.nic_gb_s);
            }
            if let Some(spine) = &spine {
                let share = fabric.uplink_gb_s / chunk.len() as f64;
                self.link(&tor, spine, share);
            }
        }
        self
    }

    /// The spec built so far.
    pub fn spec(&self) -> &TopologySpec {
        &self.spec
    }

    /// Validate and build.
    pub fn build(&self) -> Result<Topology, TopologyError> {
        Topology::from_spec(&self.spec)
    }
}

const NONE: u32 = u32::MAX;

/// An interconnect: the graph (private) and the domain tree answering bandwidth queries.
///
/// Cloning is cheap enough for a run (it is built once); share it with `Arc` between the
/// placement and the throughput model.
#[derive(Clone, Debug)]
pub struct Topology {
    spec: TopologySpec,
    graph: UnGraph<VertexKind, f64>,
    pub(crate) tree: DomainTree,
}

/// The nested domains of a topology (see the module docs). Domain ids are dense; the root is
/// the last.
#[derive(Clone, Debug, Default)]
pub(crate) struct DomainTree {
    pub(crate) parent: Vec<u32>,
    pub(crate) bw: Vec<f64>,
    pub(crate) depth: Vec<u32>,
    /// Sub-domains, by ascending first GPU.
    pub(crate) children: Vec<Vec<u32>>,
    /// GPUs directly in the domain (not in a sub-domain), ascending.
    pub(crate) gpus: Vec<Vec<u32>>,
    /// GPUs in the domain and its sub-domains.
    pub(crate) size: Vec<u32>,
    /// Smallest GPU id in the domain.
    pub(crate) first: Vec<u32>,
    /// The smallest domain holding each GPU.
    pub(crate) gpu_dom: Vec<u32>,
    /// `best[n]`: the best ring bandwidth any n GPUs can have (n ≥ 2).
    best: Vec<f64>,
}

impl DomainTree {
    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    fn lca(&self, mut a: u32, mut b: u32) -> u32 {
        while a != b {
            if self.depth[a as usize] >= self.depth[b as usize] {
                a = self.parent[a as usize];
            } else {
                b = self.parent[b as usize];
            }
        }
        a
    }

    /// The smallest domain holding every GPU of the set (which must not be empty).
    pub(crate) fn lca_of(&self, gpus: impl IntoIterator<Item = u32>) -> Option<u32> {
        let mut it = gpus.into_iter();
        let mut d = self.gpu_dom[it.next()? as usize];
        for g in it {
            d = self.lca(d, self.gpu_dom[g as usize]);
        }
        Some(d)
    }
}

enum Item {
    Gpu(u32),
    Dom(u32),
}

impl Topology {
    /// The documented default for a cluster given as `NODESxGPUS` (or any [`ClusterSpec`]): every
    /// node is [`NodeShape::Switched`] with its own GPU count at [`DEFAULT_INTRA_NODE_GB_S`]
    /// (300 GB/s NVSwitch), networked by [`Fabric::default`] (racks of 16 nodes, 25 GB/s NICs,
    /// 12.5 GB/s per node across racks). Ring bandwidths: 300 GB/s inside a node, 25 GB/s inside
    /// a rack, 12.5 GB/s across racks.
    pub fn default_for(cluster: &ClusterSpec) -> Topology {
        let nodes: Vec<NodeShape> = cluster
            .nodes
            .iter()
            .map(|n| NodeShape::Switched {
                gpus: n.gpus,
                link_gb_s: DEFAULT_INTRA_NODE_GB_S,
            })
            .collect();
        let mut b = TopologyBuilder::new();
        b.racks(&nodes, &Fabric::default());
        b.build().expect("the default topology is valid")
    }

    /// Nodes of one shape in racks: `nodes` × [`NodeShape`], networked by `fabric`.
    pub fn racks(shape: NodeShape, nodes: u32, fabric: &Fabric) -> Result<Topology, TopologyError> {
        let shapes = vec![shape; nodes as usize];
        let mut b = TopologyBuilder::new();
        b.racks(&shapes, fabric);
        b.build()
    }

    /// The built-in shape names [`Topology::shape`] accepts.
    pub const SHAPES: &'static [&'static str] = &["default", "dgx", "pcie"];

    /// A built-in shape for a cluster: `default` ([`Topology::default_for`]), `dgx` (8-GPU
    /// [`NodeShape::Dgx`] nodes) or `pcie` (4-GPU [`NodeShape::Pcie4`] nodes), optionally with
    /// fabric parameters `rack=N,nic=GB_S,uplink=GB_S` (e.g. `dgx:rack=8,nic=50`). `dgx` and
    /// `pcie` need every node of the cluster to have 8 (resp. 4) GPUs.
    pub fn shape(name: &str, cluster: &ClusterSpec) -> Result<Topology, TopologyError> {
        let bad = |msg: String| TopologyError::new(None, msg);
        let spec = ComponentSpec::parse(name, "topology").map_err(|e| bad(e.0))?;
        let mut fabric = Fabric::default();
        if spec.value.is_some() {
            return Err(bad(format!(
                "topology shape `{}`: parameters are key=value (rack, nic, uplink)",
                spec.name
            )));
        }
        for &(k, v) in &spec.params {
            let num = |what: &str| -> Result<f64, TopologyError> {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| bad(format!("{what}: `{v}` is not a positive number")))
            };
            match k {
                "rack" => {
                    fabric.rack_size = v
                        .parse::<u32>()
                        .ok()
                        .filter(|&r| r > 0)
                        .ok_or_else(|| bad(format!("rack: `{v}` is not a positive integer")))?
                }
                "nic" => fabric.nic_gb_s = num("nic")?,
                "uplink" => fabric.uplink_gb_s = num("uplink")?,
                other => {
                    return Err(bad(format!(
                        "topology shape `{}`: unknown parameter `{other}` (expected rack, nic, \
                         uplink)",
                        spec.name
                    )))
                }
            }
        }
        let fixed = |shape: NodeShape, label: &str| -> Result<Vec<NodeShape>, TopologyError> {
            if let Some((k, n)) = cluster
                .nodes
                .iter()
                .enumerate()
                .find(|(_, n)| n.gpus != shape.gpus())
            {
                return Err(bad(format!(
                    "shape `{label}` has {} GPUs per node but node {k} of the cluster has {}",
                    shape.gpus(),
                    n.gpus
                )));
            }
            Ok(vec![shape; cluster.nodes.len()])
        };
        let nodes = match spec.name {
            "default" => cluster
                .nodes
                .iter()
                .map(|n| NodeShape::Switched {
                    gpus: n.gpus,
                    link_gb_s: DEFAULT_INTRA_NODE_GB_S,
                })
                .collect(),
            "dgx" => fixed(NodeShape::Dgx, "dgx")?,
            "pcie" => fixed(NodeShape::Pcie4, "pcie")?,
            other => {
                return Err(bad(format!(
                    "unknown topology shape `{other}` (expected a file or one of: {})",
                    Self::SHAPES.join(", ")
                )))
            }
        };
        let mut b = TopologyBuilder::new();
        b.racks(&nodes, &fabric);
        b.build()
    }

    /// What the command line's `--topology` takes: a built-in shape name (see
    /// [`Topology::shape`]) or a JSON file; either way checked against the cluster.
    pub fn resolve(arg: &str, cluster: &ClusterSpec) -> Result<Topology, TopologyError> {
        let name = arg.split(':').next().unwrap_or(arg).trim();
        let topo = if Self::SHAPES.contains(&name) {
            Self::shape(arg, cluster)?
        } else {
            Self::load(Path::new(arg))?
        };
        topo.check_cluster(cluster)?;
        Ok(topo)
    }

    /// Read and validate a JSON topology file. Errors name the file and the field.
    pub fn load(path: &Path) -> Result<Topology, TopologyError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            TopologyError::new(None, format!("cannot read the file: {e}")).in_file(path)
        })?;
        Self::from_json(&text).map_err(|e| e.in_file(path))
    }

    /// Parse and validate a JSON topology.
    pub fn from_json(text: &str) -> Result<Topology, TopologyError> {
        let spec: TopologySpec = serde_json::from_str(text).map_err(|e| {
            TopologyError::new(
                None,
                format!("line {} column {}: {e}", e.line(), e.column()),
            )
        })?;
        Self::from_spec(&spec)
    }

    /// The topology as pretty JSON (what [`Topology::from_json`] reads back).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.spec).expect("a topology spec serialises")
    }

    /// The topology as data.
    pub fn spec(&self) -> &TopologySpec {
        &self.spec
    }

    /// Validate a spec and build the domain tree.
    pub fn from_spec(spec: &TopologySpec) -> Result<Topology, TopologyError> {
        let err = |field: String, msg: String| TopologyError::new(Some(field), msg);
        let mut graph: UnGraph<VertexKind, f64> = UnGraph::default();
        let mut names: BTreeMap<&str, NodeIndex> = BTreeMap::new();
        let mut gpu_vertex: BTreeMap<u32, NodeIndex> = BTreeMap::new();
        for (i, v) in spec.vertices.iter().enumerate() {
            if v.id.is_empty() {
                return Err(err(format!("vertices[{i}].id"), "empty vertex id".into()));
            }
            let ix = graph.add_node(v.kind);
            if names.insert(v.id.as_str(), ix).is_some() {
                return Err(err(
                    format!("vertices[{i}].id"),
                    format!("vertex id `{}` is used twice", v.id),
                ));
            }
            match (v.kind, v.gpu) {
                (VertexKind::Gpu, None) => {
                    return Err(err(
                        format!("vertices[{i}].gpu"),
                        format!("GPU vertex `{}` has no `gpu` id", v.id),
                    ))
                }
                (VertexKind::Gpu, Some(g)) => {
                    if gpu_vertex.insert(g, ix).is_some() {
                        return Err(err(
                            format!("vertices[{i}].gpu"),
                            format!("GPU {g} appears twice"),
                        ));
                    }
                }
                (_, Some(_)) => {
                    return Err(err(
                        format!("vertices[{i}].gpu"),
                        format!("vertex `{}` is not a GPU but has a `gpu` id", v.id),
                    ))
                }
                (_, None) => {}
            }
        }
        let n_gpus = gpu_vertex.len() as u32;
        if n_gpus == 0 {
            return Err(err("vertices".into(), "no GPU vertex".into()));
        }
        if let Some((k, &g)) = gpu_vertex.keys().enumerate().find(|&(k, &g)| g != k as u32) {
            return Err(err(
                "vertices".into(),
                format!(
                    "GPU ids must be 0..{n_gpus} without gaps; GPU {k} is missing (next is {g})"
                ),
            ));
        }
        for (i, l) in spec.links.iter().enumerate() {
            let a = *names
                .get(l.a.as_str())
                .ok_or_else(|| err(format!("links[{i}].a"), format!("unknown vertex `{}`", l.a)))?;
            let b = *names
                .get(l.b.as_str())
                .ok_or_else(|| err(format!("links[{i}].b"), format!("unknown vertex `{}`", l.b)))?;
            if a == b {
                return Err(err(
                    format!("links[{i}].b"),
                    format!("link from `{}` to itself", l.a),
                ));
            }
            if !(l.bandwidth_gb_s.is_finite() && l.bandwidth_gb_s > 0.0) {
                return Err(err(
                    format!("links[{i}].bandwidth_gb_s"),
                    format!("bandwidth {} is not a positive number", l.bandwidth_gb_s),
                ));
            }
            graph.add_edge(a, b, l.bandwidth_gb_s);
        }
        let gpu_of: Vec<Option<u32>> = spec.vertices.iter().map(|v| v.gpu).collect();
        let tree = Self::domains(&graph, &gpu_of, n_gpus, spec)?;
        Ok(Topology {
            spec: spec.clone(),
            graph,
            tree,
        })
    }

    /// Kruskal reconstruction tree, compressed and pruned to GPU-holding domains.
    fn domains(
        graph: &UnGraph<VertexKind, f64>,
        gpu_of: &[Option<u32>],
        n_gpus: u32,
        spec: &TopologySpec,
    ) -> Result<DomainTree, TopologyError> {
        let v = graph.node_count();
        let mut edges: Vec<(f64, usize, usize, usize)> = graph
            .edge_indices()
            .map(|e| {
                let (a, b) = graph.edge_endpoints(e).expect("edge exists");
                (graph[e], e.index(), a.index(), b.index())
            })
            .collect();
        // Widest first; ties by the order links were given.
        edges.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut uf = UnionFind::<usize>::new(v);
        // Kruskal tree nodes: 0..v are vertices; internal nodes after.
        let mut top: Vec<usize> = (0..v).collect(); // component representative -> tree node
        let mut k_bw: Vec<f64> = vec![f64::INFINITY; v];
        let mut k_children: Vec<Vec<usize>> = vec![Vec::new(); v];
        for &(w, _, a, b) in &edges {
            let (ra, rb) = (uf.find(a), uf.find(b));
            if ra == rb {
                continue;
            }
            // A tree node of the same bandwidth is merged into the new one: the longer list is
            // kept and the shorter appended (O(n log n) over a node's GPUs; the order of
            // children does not matter, `finish` sorts them), and the merged node's list is
            // taken, not left allocated (appending into a fresh list each time was O(n²) in
            // time and memory for n GPUs on one switch: 24 GB for 4x66664).
            let mut children = Vec::new();
            for t in [top[ra], top[rb]] {
                if t >= v && k_bw[t] == w {
                    let mut c = std::mem::take(&mut k_children[t]);
                    if c.len() > children.len() {
                        std::mem::swap(&mut c, &mut children);
                    }
                    children.append(&mut c);
                } else {
                    children.push(t);
                }
            }
            let id = k_bw.len();
            k_bw.push(w);
            k_children.push(children);
            uf.union(ra, rb);
            top[uf.find(a)] = id;
        }
        // Convert bottom-up (children are always created before their parents).
        let mut item: Vec<Option<Item>> = (0..v)
            .map(|x| gpu_of[x].map(Item::Gpu))
            .chain((v..k_bw.len()).map(|_| None))
            .collect();
        let mut tree = DomainTree::default();
        for k in v..k_bw.len() {
            let mut subs: Vec<u32> = Vec::new();
            let mut gpus: Vec<u32> = Vec::new();
            for &c in &k_children[k] {
                match item[c].take() {
                    Some(Item::Gpu(g)) => gpus.push(g),
                    Some(Item::Dom(d)) => subs.push(d),
                    None => {}
                }
            }
            item[k] = match (subs.len(), gpus.len()) {
                (0, 0) => None,
                (1, 0) => Some(Item::Dom(subs[0])),
                (0, 1) => Some(Item::Gpu(gpus[0])),
                _ => Some(Item::Dom(tree.push(k_bw[k], subs, gpus))),
            };
        }
        let roots: Vec<&Item> = item.iter().flatten().collect();
        if roots.len() > 1 {
            let gpu_in = |it: &Item, tree: &DomainTree| match it {
                Item::Gpu(g) => *g,
                Item::Dom(d) => tree.first[*d as usize],
            };
            let (a, b) = (gpu_in(roots[0], &tree), gpu_in(roots[1], &tree));
            let name = |g: u32| {
                spec.vertices
                    .iter()
                    .find(|v| v.gpu == Some(g))
                    .map_or_else(String::new, |v| v.id.clone())
            };
            return Err(TopologyError::new(
                Some("links".into()),
                format!(
                    "GPU {a} (`{}`) and GPU {b} (`{}`) are not connected",
                    name(a),
                    name(b)
                ),
            ));
        }
        if let Some(Item::Gpu(g)) = roots.first() {
            // A single GPU: one domain holding it.
            tree.push(f64::INFINITY, Vec::new(), vec![*g]);
        }
        tree.finish(n_gpus);
        Ok(tree)
    }

    /// Vertices of the interconnect graph.
    pub fn n_vertices(&self) -> usize {
        self.graph.node_count()
    }

    /// Links of the interconnect graph.
    pub fn n_links(&self) -> usize {
        self.graph.edge_count()
    }

    /// How many vertices of each kind the graph has.
    pub fn count(&self, kind: VertexKind) -> usize {
        self.graph.node_weights().filter(|&&k| k == kind).count()
    }

    /// GPUs in the topology.
    pub fn n_gpus(&self) -> u32 {
        self.tree.gpu_dom.len() as u32
    }

    /// Check that the topology describes this cluster's GPUs (the same count; ids are the
    /// cluster's, in node order).
    pub fn check_cluster(&self, cluster: &ClusterSpec) -> Result<(), TopologyError> {
        if self.n_gpus() != cluster.total_gpus() {
            return Err(TopologyError::new(
                Some("vertices".into()),
                format!(
                    "the topology has {} GPUs but the cluster has {}",
                    self.n_gpus(),
                    cluster.total_gpus()
                ),
            ));
        }
        Ok(())
    }

    /// Widest-path bandwidth between two GPUs, GB/s (infinite for a GPU and itself). GPUs
    /// outside the topology get the slowest bandwidth of the topology.
    pub fn bandwidth(&self, a: GpuId, b: GpuId) -> f64 {
        if a == b {
            return f64::INFINITY;
        }
        self.ring_bandwidth(&[a, b])
    }

    /// Bottleneck bandwidth of a ring all-reduce over these GPUs, GB/s, the ring ordered along
    /// the topology: the bandwidth of the smallest domain holding them all. Infinite for fewer
    /// than two GPUs. GPUs outside the topology get the slowest bandwidth of the topology.
    pub fn ring_bandwidth(&self, gpus: &[GpuId]) -> f64 {
        if gpus.len() < 2 {
            return f64::INFINITY;
        }
        let n = self.n_gpus();
        if gpus.iter().any(|g| g.0 >= n) {
            return self.tree.bw[self.tree.len() - 1];
        }
        let d = self
            .tree
            .lca_of(gpus.iter().map(|g| g.0))
            .expect("not empty");
        self.tree.bw[d as usize]
    }

    /// The best ring bandwidth any `n` GPUs of the topology can have (on an idle cluster), GB/s;
    /// infinite for `n < 2`, the slowest bandwidth for `n` beyond the topology.
    pub fn best_ring_bandwidth(&self, n: u32) -> f64 {
        if n < 2 {
            return f64::INFINITY;
        }
        let best = &self.tree.best;
        best.get(n as usize)
            .copied()
            .unwrap_or(self.tree.bw[self.tree.len() - 1])
    }

    /// The distinct ring bandwidths of the topology's domains, fastest first (e.g. `[300.0,
    /// 25.0, 12.5]` for the default of more than one rack).
    pub fn levels(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.tree.bw.clone();
        v.sort_by(|a, b| b.total_cmp(a));
        v.dedup();
        v
    }
}

impl DomainTree {
    fn push(&mut self, bw: f64, subs: Vec<u32>, gpus: Vec<u32>) -> u32 {
        let id = self.parent.len() as u32;
        for &s in &subs {
            self.parent[s as usize] = id;
        }
        self.parent.push(NONE);
        self.bw.push(bw);
        self.depth.push(0);
        self.children.push(subs);
        self.gpus.push(gpus);
        self.size.push(0);
        self.first.push(0);
        let d = id as usize;
        let mut first = u32::MAX;
        let mut size = self.gpus[d].len() as u32;
        for &g in &self.gpus[d] {
            first = first.min(g);
        }
        for &s in &self.children[d] {
            first = first.min(self.first[s as usize]);
            size += self.size[s as usize];
        }
        self.first[d] = first;
        self.size[d] = size;
        id
    }

    fn finish(&mut self, n_gpus: u32) {
        let n = self.len();
        // Depths: the root is last and parents come after children, so walk backwards.
        for d in (0..n).rev() {
            let p = self.parent[d];
            self.depth[d] = if p == NONE {
                0
            } else {
                self.depth[p as usize] + 1
            };
        }
        let first = self.first.clone();
        self.gpu_dom = vec![NONE; n_gpus as usize];
        for d in 0..n {
            self.children[d].sort_by_key(|&c| first[c as usize]);
            self.gpus[d].sort_unstable();
            for &g in &self.gpus[d] {
                self.gpu_dom[g as usize] = d as u32;
            }
        }
        let mut best = vec![0.0f64; n_gpus as usize + 1];
        for d in 0..n {
            let s = self.size[d] as usize;
            best[s] = best[s].max(self.bw[d]);
        }
        for s in (0..n_gpus as usize).rev() {
            best[s] = best[s].max(best[s + 1]);
        }
        self.best = best;
    }
}
