//! Tiresias' cluster spec: its CSV file (`run_sim.py: parse_cluster_spec`) or a shape.

use std::fmt;
use std::path::Path;

/// The five columns of Tiresias' cluster-spec CSV.
pub const CLUSTER_SPEC_COLUMNS: [&str; 5] = [
    "num_switch",
    "num_node_p_switch",
    "num_gpu_p_node",
    "num_cpu_p_node",
    "mem_p_node",
];

/// CPUs per node when only a shape is given: the original's `--num_cpu_p_node` default.
pub const DEFAULT_CPUS_PER_NODE: i64 = 64;
/// Memory per node (GB) when only a shape is given: the original's `--mem_p_node` default.
pub const DEFAULT_MEM_PER_NODE: i64 = 256;

/// A homogeneous cluster as Tiresias describes it: switches × nodes per switch, each node with
/// the same GPUs, CPUs and memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TiresiasClusterSpec {
    /// Switches (`num_switch`).
    pub switches: i64,
    /// Nodes under each switch (`num_node_p_switch`).
    pub nodes_per_switch: i64,
    /// GPUs per node (`num_gpu_p_node`).
    pub gpus_per_node: i64,
    /// CPUs per node (`num_cpu_p_node`).
    pub cpus_per_node: i64,
    /// Memory per node in GB (`mem_p_node`).
    pub mem_per_node: i64,
}

/// A bad cluster spec: the file (if any), the line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterSpecError(pub String);

impl fmt::Display for ClusterSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterSpecError {}

impl TiresiasClusterSpec {
    /// The cluster of `run_sim.py` without `--cluster_spec` (its flag defaults): 1 switch × 32
    /// nodes × 8 GPUs, 64 CPUs and 256 GB per node.
    pub const DEFAULT: TiresiasClusterSpec = TiresiasClusterSpec {
        switches: 1,
        nodes_per_switch: 32,
        gpus_per_node: 8,
        cpus_per_node: DEFAULT_CPUS_PER_NODE,
        mem_per_node: DEFAULT_MEM_PER_NODE,
    };

    /// A spec from its five numbers.
    pub fn new(
        switches: i64,
        nodes_per_switch: i64,
        gpus_per_node: i64,
        cpus_per_node: i64,
        mem_per_node: i64,
    ) -> Self {
        TiresiasClusterSpec {
            switches,
            nodes_per_switch,
            gpus_per_node,
            cpus_per_node,
            mem_per_node,
        }
    }

    /// `NODESxGPUS`: one switch, the original's default CPUs (64) and memory (256) per node,
    /// i.e. what `run_sim.py --num_node_p_switch=NODES --num_gpu_p_node=GPUS` builds.
    pub fn from_shape(s: &str) -> Result<Self, ClusterSpecError> {
        let bad = || {
            ClusterSpecError(format!(
                "--cluster `{s}`: expected NODESxGPUS (e.g. 2x4) or a Tiresias cluster-spec .csv file"
            ))
        };
        let (n, g) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let n: i64 = n.trim().parse().ok().filter(|v| *v > 0).ok_or_else(bad)?;
        let g: i64 = g.trim().parse().ok().filter(|v| *v > 0).ok_or_else(bad)?;
        Ok(Self::new(
            1,
            n,
            g,
            DEFAULT_CPUS_PER_NODE,
            DEFAULT_MEM_PER_NODE,
        ))
    }

    /// Read a cluster-spec CSV file (e.g. the shipped `n32g4.csv`).
    pub fn read(path: &Path) -> Result<Self, ClusterSpecError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ClusterSpecError(format!("{}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| ClusterSpecError(format!("{}: {}", path.display(), e.0)))
    }

    /// Parse the CSV text: a header naming the five columns (any order; CRLF or LF) and
    /// exactly one data row of whole numbers, GPUs and nodes > 0.
    ///
    /// The original returns without building a cluster when a column is missing (so nothing
    /// ever runs) and keeps the last of several rows; here both are errors.
    pub fn parse(text: &str) -> Result<Self, ClusterSpecError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| ClusterSpecError("the cluster spec is empty".into()))?;
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut cols = [0usize; 5];
        for (k, want) in CLUSTER_SPEC_COLUMNS.iter().enumerate() {
            cols[k] = names.iter().position(|n| n == want).ok_or_else(|| {
                ClusterSpecError(format!(
                    "line 1: no `{want}` column (a Tiresias cluster spec needs {})",
                    CLUSTER_SPEC_COLUMNS.join(",")
                ))
            })?;
        }
        let (line, row) = lines
            .next()
            .ok_or_else(|| ClusterSpecError("no data row after the header".into()))?;
        if let Some((extra, _)) = lines.next() {
            return Err(ClusterSpecError(format!(
                "line {extra}: a cluster spec has exactly one data row"
            )));
        }
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        let mut v = [0i64; 5];
        for (k, want) in CLUSTER_SPEC_COLUMNS.iter().enumerate() {
            let f = fields.get(cols[k]).copied().unwrap_or("");
            let min = if k < 3 { 1 } else { 0 };
            v[k] = f.parse().ok().filter(|x| *x >= min).ok_or_else(|| {
                ClusterSpecError(format!(
                    "line {line}, field `{want}`: `{f}` is not a whole number ≥ {min}"
                ))
            })?;
        }
        Ok(Self::new(v[0], v[1], v[2], v[3], v[4]))
    }

    /// All nodes.
    pub fn nodes(&self) -> i64 {
        self.switches * self.nodes_per_switch
    }

    /// All GPUs (Tiresias' `G`).
    pub fn total_gpus(&self) -> i64 {
        self.nodes() * self.gpus_per_node
    }
}

impl fmt::Display for TiresiasClusterSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},{},{},{},{}",
            self.switches,
            self.nodes_per_switch,
            self.gpus_per_node,
            self.cpus_per_node,
            self.mem_per_node
        )
    }
}
