//! Tiresias' placement schemes over its node bookkeeping (`cluster.py`, `switch.py`,
//! `node.py`; TIRESIAS-SEMANTICS.md §7), including the memory leak of re-placed jobs.

use super::spec::TiresiasClusterSpec;
use blox_core::ConfigError;
use std::fmt;

/// Memory a worker takes on its node (`jobs.py: worker_mem`), GB.
const WORKER_MEM: f64 = 5.0;
/// Memory of a parameter server (`jobs.py: ps_mem`), GB.
const PS_MEM: f64 = 6.0;
/// Memory per worker a parameter server adds (`jobs.py: p_w_mem`), GB.
const PS_MEM_PER_WORKER: f64 = 0.1;

/// A Tiresias placement scheme (`run_sim.py --scheme`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerScheme {
    /// `yarn`: one switch, first-fit nodes, whole nodes for jobs larger than a node; CPU and
    /// memory bookkeeping (with the leak).
    Yarn,
    /// `count`: a free-GPU counter; node boundaries ignored.
    Count,
    /// `random`: unseeded random placement. Under `fifo` and the single-list schedules the
    /// original crashes at the first completion, so no job is ever logged.
    Random,
    /// `balance`: an empty stub in the original; every placement fails.
    Balance,
}

impl PeerScheme {
    /// Every scheme, as documented.
    pub const ALL: [PeerScheme; 4] = [
        PeerScheme::Yarn,
        PeerScheme::Count,
        PeerScheme::Random,
        PeerScheme::Balance,
    ];

    /// Tiresias' name for it.
    pub fn name(self) -> &'static str {
        match self {
            PeerScheme::Yarn => "yarn",
            PeerScheme::Count => "count",
            PeerScheme::Random => "random",
            PeerScheme::Balance => "balance",
        }
    }

    /// Parse a scheme name. Unlike the original (unknown names fall back to `yarn`), an
    /// unknown name is an error.
    pub fn parse(s: &str) -> Result<Self, ConfigError> {
        let s = s.trim();
        PeerScheme::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                ConfigError::new(format!(
                    "unknown placement `{s}` under --semantics tiresias (Tiresias' schemes: yarn, count, random, balance)"
                ))
            })
    }
}

impl fmt::Display for PeerScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one placement took from one node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeTake {
    /// Node index, switch-major (switch 0's nodes first).
    pub node: usize,
    /// GPUs taken.
    pub gpus: i64,
    /// CPUs taken.
    pub cpus: i64,
    /// Memory taken, GB (tenths for cross-node jobs).
    pub mem: f64,
}

/// One successful placement: the nodes of one switch (empty for `count`).
pub type Placement = Vec<NodeTake>;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    free_gpus: i64,
    free_cpus: i64,
    free_mem: f64,
}

/// The cluster's free resources as Tiresias tracks them, and its placement schemes.
///
/// GPUs and CPUs are reset by [`PeerCluster::empty`] before every pass of the preemptive
/// schedules (`cluster.py: empty_infra`); **memory is not**, so every re-placement of a
/// running job takes memory again and only its last placement gives it back at completion
/// (the original's leak, kept: it decides which jobs fit and when the run stops).
#[derive(Clone, Debug, PartialEq)]
pub struct PeerCluster {
    spec: TiresiasClusterSpec,
    scheme: PeerScheme,
    /// The `count` counter (`cluster.free_gpu`).
    free_count: i64,
    nodes: Vec<Node>,
}

impl PeerCluster {
    /// An idle cluster.
    pub fn new(spec: TiresiasClusterSpec, scheme: PeerScheme) -> Self {
        let node = Node {
            free_gpus: spec.gpus_per_node,
            free_cpus: spec.cpus_per_node,
            free_mem: spec.mem_per_node as f64,
        };
        PeerCluster {
            spec,
            scheme,
            free_count: spec.total_gpus(),
            nodes: vec![node; spec.nodes().max(0) as usize],
        }
    }

    /// The spec.
    pub fn spec(&self) -> &TiresiasClusterSpec {
        &self.spec
    }

    /// The scheme.
    pub fn scheme(&self) -> PeerScheme {
        self.scheme
    }

    /// Free GPUs as `cluster.py: check_free_gpu` counts them: the counter for `count`, the
    /// sum over nodes otherwise.
    pub fn free_gpus(&self) -> i64 {
        match self.scheme {
            PeerScheme::Count => self.free_count,
            _ => self.nodes.iter().map(|n| n.free_gpus).sum(),
        }
    }

    /// Free memory of node `i`, GB.
    pub fn free_mem(&self, i: usize) -> f64 {
        self.nodes[i].free_mem
    }

    /// `empty_infra`: every node gets its GPUs and CPUs back and the counter is reset;
    /// memory is kept.
    pub fn empty(&mut self) {
        self.free_count = self.spec.total_gpus();
        for n in &mut self.nodes {
            n.free_gpus = self.spec.gpus_per_node;
            n.free_cpus = self.spec.cpus_per_node;
        }
    }

    /// Try to place a job of `gpus` GPUs; `Some` with what it took on success.
    pub fn place(&mut self, gpus: i64) -> Option<Placement> {
        match self.scheme {
            PeerScheme::Count => {
                if self.free_count >= gpus {
                    self.free_count -= gpus;
                    Some(Vec::new())
                } else {
                    None
                }
            }
            PeerScheme::Balance => None,
            // The time model never asks `random` to place under the schedules that call the
            // placement (the original crashes there); treat it as `yarn` if it does.
            PeerScheme::Yarn | PeerScheme::Random => self.place_yarn(gpus),
        }
    }

    fn place_yarn(&mut self, gpus: i64) -> Option<Placement> {
        let per_switch = self.spec.nodes_per_switch.max(0) as usize;
        for s in 0..self.spec.switches.max(0) as usize {
            let range = s * per_switch..(s + 1) * per_switch;
            let got = if gpus > self.spec.gpus_per_node {
                self.cross_node(range, gpus)
            } else {
                self.single_node(range, gpus)
            };
            if got.is_some() {
                return got;
            }
        }
        None
    }

    /// `switch.py: try_single_node_alloc`: the first node with the GPUs, the CPUs (2 for a
    /// one-GPU job, 6 per GPU otherwise) and a worker's memory.
    fn single_node(&mut self, range: std::ops::Range<usize>, gpus: i64) -> Option<Placement> {
        let cpus = if gpus == 1 { 2 } else { 6 * gpus };
        for i in range {
            let n = &mut self.nodes[i];
            if n.free_gpus >= gpus && n.free_cpus >= cpus && n.free_mem >= WORKER_MEM {
                n.free_gpus -= gpus;
                n.free_cpus -= cpus;
                n.free_mem -= WORKER_MEM;
                return Some(vec![NodeTake {
                    node: i,
                    gpus,
                    cpus,
                    mem: WORKER_MEM,
                }]);
            }
        }
        None
    }

    /// `switch.py: try_cross_node_alloc`: ⌊g / per-node⌋ completely free nodes and, for the
    /// remainder, the first other node with room; each worker with its parameter server's
    /// memory (`6 + 0.1·g + 5` GB per GPU).
    fn cross_node(&mut self, range: std::ops::Range<usize>, gpus: i64) -> Option<Placement> {
        let per_node = self.spec.gpus_per_node;
        let full_needed = (gpus / per_node) as usize;
        let rest = gpus % per_node;
        let rest_cpus = rest * 6;
        let idle_cpus = per_node * 6;
        let ps_mem = PS_MEM + gpus as f64 * PS_MEM_PER_WORKER;
        let w = ps_mem + WORKER_MEM;
        let mut full = Vec::with_capacity(full_needed);
        for i in range.clone() {
            let n = &self.nodes[i];
            if n.free_gpus == per_node
                && n.free_cpus >= idle_cpus
                && n.free_mem >= w * per_node as f64
            {
                full.push(i);
                if full.len() == full_needed {
                    break;
                }
            }
        }
        if full.len() < full_needed {
            return None;
        }
        let mut last = None;
        if rest != 0 {
            last = range.clone().find(|i| {
                let n = &self.nodes[*i];
                !full.contains(i)
                    && n.free_gpus >= rest
                    && n.free_cpus >= rest_cpus
                    && n.free_mem >= w * rest as f64
            });
            last?;
        }
        let mut out = Vec::with_capacity(full.len() + 1);
        for i in full {
            let mem = w * per_node as f64;
            let n = &mut self.nodes[i];
            n.free_gpus -= per_node;
            n.free_cpus -= idle_cpus;
            n.free_mem -= mem;
            out.push(NodeTake {
                node: i,
                gpus: per_node,
                cpus: idle_cpus,
                mem,
            });
        }
        if let Some(i) = last {
            let mem = w * rest as f64;
            let n = &mut self.nodes[i];
            n.free_gpus -= rest;
            n.free_cpus -= rest_cpus;
            n.free_mem -= mem;
            out.push(NodeTake {
                node: i,
                gpus: rest,
                cpus: rest_cpus,
                mem,
            });
        }
        Some(out)
    }

    /// `cluster.py: release_job_res` for a completed job of `gpus` GPUs and its recorded
    /// placements: the counter gets `gpus` back (capped) under `count`; otherwise each node of
    /// each placement gets its CPUs and GPUs back (each capped at the node's size) and its
    /// memory, stopping after the first node whose CPU or GPU give-back overflowed.
    pub fn release(&mut self, gpus: i64, placements: &[Placement]) {
        if self.scheme == PeerScheme::Count {
            self.free_count = (self.free_count + gpus).min(self.spec.total_gpus());
            return;
        }
        for p in placements {
            for t in p {
                let n = &mut self.nodes[t.node];
                let cpu_ok = n.free_cpus + t.cpus <= self.spec.cpus_per_node;
                n.free_cpus = if cpu_ok {
                    n.free_cpus + t.cpus
                } else {
                    self.spec.cpus_per_node
                };
                let gpu_ok = n.free_gpus + t.gpus <= self.spec.gpus_per_node;
                n.free_gpus = if gpu_ok {
                    n.free_gpus + t.gpus
                } else {
                    self.spec.gpus_per_node
                };
                n.free_mem += t.mem;
                if !(cpu_ok && gpu_ok) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n2g4() -> TiresiasClusterSpec {
        TiresiasClusterSpec::new(1, 2, 4, 40, 256)
    }

    #[test]
    fn yarn_first_fits_nodes_in_order() {
        let mut c = PeerCluster::new(n2g4(), PeerScheme::Yarn);
        let a = c.place(2).unwrap();
        assert_eq!(a[0].node, 0);
        assert_eq!((a[0].cpus, a[0].mem), (12, 5.0));
        let b = c.place(4).unwrap();
        assert_eq!(b[0].node, 1);
        let d = c.place(1).unwrap();
        assert_eq!((d[0].node, d[0].cpus), (0, 2));
        assert_eq!(c.free_gpus(), 1);
        assert!(c.place(2).is_none());
        c.release(4, &[b]);
        assert_eq!(c.free_gpus(), 5);
        assert_eq!(c.free_mem(1), 256.0);
    }

    #[test]
    fn yarn_cross_node_needs_whole_free_nodes_and_ps_memory() {
        let mut c = PeerCluster::new(n2g4(), PeerScheme::Yarn);
        let p = c.place(8).unwrap();
        // w = 6 + 0.8 + 5 = 11.8 GB per GPU: 47.2 per node.
        assert_eq!(p.len(), 2);
        assert!((p[0].mem - 47.2).abs() < 1e-9);
        assert!(c.place(1).is_none());
        c.release(8, &[p]);
        let q = c.place(1).unwrap();
        assert_eq!(q[0].node, 0);
        // A 6-GPU job: one whole node plus 2 GPUs elsewhere; node 0 is not whole now.
        let r = c.place(6).unwrap();
        assert_eq!((r[0].node, r[0].gpus, r[1].node, r[1].gpus), (1, 4, 0, 2));
    }

    #[test]
    fn memory_is_not_reset_between_passes() {
        // 11 GB per node: two passes of a single-node job leave 1 GB; the third fails.
        let mut c = PeerCluster::new(TiresiasClusterSpec::new(1, 1, 4, 40, 11), PeerScheme::Yarn);
        assert!(c.place(1).is_some());
        c.empty();
        assert!(c.place(1).is_some());
        c.empty();
        assert_eq!(c.free_mem(0), 1.0);
        assert!(c.place(1).is_none());
    }

    #[test]
    fn count_ignores_nodes_and_balance_never_places() {
        let mut c = PeerCluster::new(n2g4(), PeerScheme::Count);
        assert!(c.place(6).is_some());
        assert!(c.place(3).is_none());
        c.release(6, &[]);
        c.release(6, &[]);
        assert_eq!(c.free_gpus(), 8); // capped
        let mut b = PeerCluster::new(n2g4(), PeerScheme::Balance);
        assert!(b.place(1).is_none());
        assert!(PeerScheme::parse("greedy").is_err());
    }
}
