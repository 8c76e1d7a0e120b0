//! Autoscaling: a policy decides to add or remove nodes; [`Autoscaling`] turns its decisions
//! into join and leave events within Pollux-style bounds (`min_nodes`, `max_nodes`).

use crate::{ClusterEvents, NodeError, NodeEvent, RoundView};
use blox_core::{Cluster, NodeChange, NodeId, NodeSpec, Time};
use std::collections::BTreeSet;

/// What an autoscaler sees each round.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ScaleView<'a> {
    /// The round, cluster and jobs.
    pub round: RoundView<'a>,
    /// Nodes fully in service.
    pub nodes_in_service: u32,
    /// GPUs in service.
    pub available_gpus: u32,
    /// GPUs in service held by jobs.
    pub busy_gpus: u32,
    /// GPUs requested by admitted jobs that are not running (the job table only; jobs waiting
    /// for admission are counted in `round.pending_admission`).
    pub waiting_gpu_demand: u64,
    /// Admitted jobs that are not running.
    pub waiting_jobs: u32,
}

impl ScaleView<'_> {
    /// Busy GPUs over GPUs in service (0 for none in service).
    pub fn utilisation(&self) -> f64 {
        if self.available_gpus == 0 {
            0.0
        } else {
            f64::from(self.busy_gpus) / f64::from(self.available_gpus)
        }
    }
}

/// A decision: how many nodes to add, and which to remove (drain).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScaleDecision {
    /// Nodes to add this round.
    pub add: u32,
    /// Nodes to drain and remove this round, in the order to remove them.
    pub remove: Vec<NodeId>,
}

/// A policy that resizes the cluster. Implement it to let any policy drive the cluster's size;
/// [`Autoscaling`] enforces the bounds and turns decisions into events.
pub trait Autoscaler {
    /// A short name.
    fn name(&self) -> String {
        let full = std::any::type_name::<Self>();
        full.rsplit("::").next().unwrap_or(full).to_owned()
    }

    /// Decide this round's change (an empty decision keeps the cluster as it is).
    fn decide(&mut self, view: &ScaleView<'_>, out: &mut ScaleDecision);
}

/// Bounds on the number of nodes in service (Pollux's `min_nodes`/`max_nodes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Never fewer nodes in service (removals below it are dropped).
    pub min_nodes: u32,
    /// Never more (additions above it are dropped).
    pub max_nodes: u32,
}

/// Drives an [`Autoscaler`] once per round and emits its decisions as events: an addition
/// returns the lowest-numbered node this autoscaler removed earlier, else joins a new node of
/// the template shape; a removal drains the node (its jobs are stopped and requeued, keeping
/// their progress). Only nodes fully in service are removed; the bounds are applied to the
/// count of nodes in service.
pub struct Autoscaling<A> {
    scaler: A,
    bounds: Bounds,
    template: NodeSpec,
    removed: BTreeSet<NodeId>,
    decision: ScaleDecision,
}

impl<A: Autoscaler> Autoscaling<A> {
    /// Drive `scaler` within `bounds`, adding nodes shaped like `template`.
    pub fn new(scaler: A, bounds: Bounds, template: NodeSpec) -> Result<Self, NodeError> {
        if bounds.min_nodes > bounds.max_nodes || bounds.max_nodes == 0 {
            return Err(NodeError::flag(
                "--autoscale",
                format!(
                    "min_nodes={} and max_nodes={}: need 0 < max_nodes and min_nodes ≤ max_nodes",
                    bounds.min_nodes, bounds.max_nodes
                ),
            ));
        }
        Ok(Autoscaling {
            scaler,
            bounds,
            template,
            removed: BTreeSet::new(),
            decision: ScaleDecision::default(),
        })
    }

    /// The autoscaler.
    pub fn scaler(&self) -> &A {
        &self.scaler
    }
}

/// Whether every GPU of a node is in service.
pub fn node_in_service(cluster: &Cluster, node: NodeId) -> bool {
    cluster.available_on_node(node) == cluster.gpus_of(node).len() as u32
}

/// The view an autoscaler gets of a round.
pub fn scale_view<'a>(round: &RoundView<'a>) -> ScaleView<'a> {
    let c = round.cluster;
    let nodes_in_service = (0..c.n_nodes() as u32)
        .filter(|&k| node_in_service(c, NodeId(k)))
        .count() as u32;
    let (mut waiting_gpu_demand, mut waiting_jobs) = (0u64, 0u32);
    for j in round.jobs.iter().filter(|j| !j.is_running()) {
        waiting_gpu_demand += u64::from(j.spec.n_gpus);
        waiting_jobs += 1;
    }
    ScaleView {
        round: *round,
        nodes_in_service,
        available_gpus: c.available_gpus(),
        busy_gpus: c.available_gpus() - c.free_gpus(),
        waiting_gpu_demand,
        waiting_jobs,
    }
}

impl<A: Autoscaler> ClusterEvents for Autoscaling<A> {
    fn name(&self) -> String {
        format!(
            "autoscale:{}(min_nodes={},max_nodes={})",
            self.scaler.name(),
            self.bounds.min_nodes,
            self.bounds.max_nodes
        )
    }

    fn poll(&mut self, view: &RoundView<'_>, out: &mut Vec<NodeEvent>) -> Result<(), NodeError> {
        let sv = scale_view(view);
        self.decision = ScaleDecision::default();
        self.scaler.decide(&sv, &mut self.decision);
        let mut in_service = sv.nodes_in_service;
        let c = view.cluster;
        let mut next_new = c.n_nodes() as u32;
        let origin = format!("autoscaler {}", self.scaler.name());
        for _ in 0..self.decision.add {
            if in_service >= self.bounds.max_nodes {
                break;
            }
            let ev = match self.removed.pop_first() {
                Some(node) => NodeEvent::new(view.time, node, NodeChange::Join),
                None => {
                    next_new += 1;
                    NodeEvent::new(view.time, NodeId(next_new - 1), NodeChange::Join)
                        .with_spec(self.template.clone())
                }
            };
            out.push(ev.with_origin(origin.as_str()));
            in_service += 1;
        }
        let mut seen = BTreeSet::new();
        for &node in &self.decision.remove {
            if in_service <= self.bounds.min_nodes {
                break;
            }
            if node.index() >= c.n_nodes() || !node_in_service(c, node) || !seen.insert(node) {
                continue;
            }
            self.removed.insert(node);
            out.push(
                NodeEvent::new(view.time, node, NodeChange::Leave).with_origin(origin.as_str()),
            );
            in_service -= 1;
        }
        Ok(())
    }

    fn next_time(&self) -> Option<Time> {
        None
    }
}

/// A simple autoscaler: adds enough nodes for the waiting GPU demand that does not fit in the
/// free GPUs, and removes one idle node (no job on it; the highest id first) when utilisation
/// falls below `low`. After any change it waits `cooldown` rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueAutoscaler {
    /// GPUs of a node it adds (to size additions).
    pub gpus_per_node: u32,
    /// Utilisation below which an idle node is removed.
    pub low: f64,
    /// Rounds to wait after a change.
    pub cooldown: u32,
    wait: u32,
}

impl QueueAutoscaler {
    /// Add for queued demand; remove below utilisation `low`; wait `cooldown` rounds after a
    /// change.
    pub fn new(gpus_per_node: u32, low: f64, cooldown: u32) -> Result<Self, NodeError> {
        if gpus_per_node == 0 || !(0.0..=1.0).contains(&low) {
            return Err(NodeError::flag(
                "--autoscale",
                format!("low={low} must lie in [0, 1] and the node size must be positive"),
            ));
        }
        Ok(QueueAutoscaler {
            gpus_per_node,
            low,
            cooldown,
            wait: 0,
        })
    }
}

impl Autoscaler for QueueAutoscaler {
    fn name(&self) -> String {
        "queue".into()
    }

    fn decide(&mut self, view: &ScaleView<'_>, out: &mut ScaleDecision) {
        if self.wait > 0 {
            self.wait -= 1;
            return;
        }
        let free = u64::from(view.available_gpus - view.busy_gpus);
        if view.waiting_gpu_demand > free {
            let short = view.waiting_gpu_demand - free;
            out.add = short
                .div_ceil(u64::from(self.gpus_per_node))
                .min(u64::from(u32::MAX)) as u32;
        } else if view.waiting_jobs == 0 && view.utilisation() < self.low {
            let c = view.round.cluster;
            let idle = (0..c.n_nodes() as u32)
                .rev()
                .map(NodeId)
                .find(|&n| node_in_service(c, n) && c.free_on_node(n) == c.gpus_of(n).len() as u32);
            out.remove.extend(idle);
        }
        if out.add > 0 || !out.remove.is_empty() {
            self.wait = self.cooldown;
        }
    }
}

/// `--autoscale min_nodes=N,max_nodes=M[,low=FRACTION,cooldown=ROUNDS,node=GPUS[:TYPE]]`: the
/// [`QueueAutoscaler`] within bounds, adding nodes of `node` GPUs (default: the shape of the
/// cluster's last node), removing idle ones below utilisation `low` (default 0.5), waiting
/// `cooldown` rounds after a change (default 1).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AutoscaleSpec {
    /// The bounds.
    pub bounds: Bounds,
    /// Utilisation below which an idle node is removed.
    pub low: f64,
    /// Rounds to wait after a change.
    pub cooldown: u32,
    /// The shape of added nodes; `None`: the cluster's last node.
    pub node: Option<NodeSpec>,
}

impl AutoscaleSpec {
    /// Build the event source for a cluster of this shape.
    pub fn build(
        &self,
        cluster: &blox_core::ClusterSpec,
    ) -> Result<Autoscaling<QueueAutoscaler>, NodeError> {
        let template =
            match &self.node {
                Some(n) => n.clone(),
                None => cluster.nodes.last().cloned().ok_or_else(|| {
                    NodeError::flag("--autoscale", "the cluster has no node to copy")
                })?,
            };
        let scaler = QueueAutoscaler::new(template.gpus, self.low, self.cooldown)?;
        Autoscaling::new(scaler, self.bounds, template)
    }
}

impl std::str::FromStr for AutoscaleSpec {
    type Err = NodeError;
    fn from_str(s: &str) -> Result<Self, NodeError> {
        let bad = |m: String| NodeError::flag("--autoscale", m);
        let (mut min, mut max, mut low, mut cooldown, mut node) = (None, None, 0.5, 1, None);
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("`{part}` is not KEY=VALUE")))?;
            let (k, v) = (k.trim(), v.trim());
            let whole = |v: &str| {
                v.parse::<u32>()
                    .map_err(|_| bad(format!("{k}=`{v}` is not a whole number")))
            };
            match k {
                "min_nodes" => min = Some(whole(v)?),
                "max_nodes" => max = Some(whole(v)?),
                "cooldown" => cooldown = whole(v)?,
                "low" => {
                    low = v
                        .parse::<f64>()
                        .ok()
                        .filter(|x| (0.0..=1.0).contains(x))
                        .ok_or_else(|| bad(format!("low=`{v}` is not a fraction in [0, 1]")))?
                }
                "node" => {
                    let (g, ty) = match v.split_once(':') {
                        Some((g, t)) => (g, Some(t)),
                        None => (v, None),
                    };
                    let g = whole(g)?;
                    if g == 0 {
                        return Err(bad("node=0: a node needs GPUs".into()));
                    }
                    let mut n = NodeSpec::with_gpus(g);
                    if let Some(t) = ty {
                        n = n.of_type(t);
                    }
                    node = Some(n);
                }
                o => {
                    return Err(bad(format!(
                        "unknown key `{o}` (expected min_nodes, max_nodes, low, cooldown, node)"
                    )))
                }
            }
        }
        let need = |x: Option<u32>, k: &str| x.ok_or_else(|| bad(format!("`{k}=N` is missing")));
        let bounds = Bounds {
            min_nodes: need(min, "min_nodes")?,
            max_nodes: need(max, "max_nodes")?,
        };
        if bounds.min_nodes > bounds.max_nodes || bounds.max_nodes == 0 {
            return Err(bad(format!(
                "min_nodes={} and max_nodes={}: need 0 < max_nodes and min_nodes ≤ max_nodes",
                bounds.min_nodes, bounds.max_nodes
            )));
        }
        Ok(AutoscaleSpec {
            bounds,
            low,
            cooldown,
            node,
        })
    }
}
