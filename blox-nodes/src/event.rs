//! Cluster events, the trait of their sources, and how one is applied to a [`Cluster`].

use crate::NodeError;
use blox_core::{Cluster, GpuId, JobId, JobTable, NodeChange, NodeId, NodeSpec, Time};
use std::sync::Arc;

/// One change to the cluster: a node (or one of its GPUs) joins, leaves, fails or recovers.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NodeEvent {
    /// When it happens. The round loop applies it at the first round at or after this time
    /// (Blox's `update_cluster` runs once per round, before admission).
    pub time: Time,
    /// The node.
    pub node: NodeId,
    /// One GPU of the node (its index on the node, from 0) for single-GPU failures; `None`: the
    /// whole node.
    pub gpu: Option<u32>,
    /// What happens.
    pub change: NodeChange,
    /// For a [`NodeChange::Join`] of a node the cluster does not have yet (its id is the next
    /// one): its shape.
    pub spec: Option<NodeSpec>,
    /// Where the event came from (`FILE:LINE`, a source's name), for error messages.
    pub origin: Option<Arc<str>>,
}

impl NodeEvent {
    /// A whole-node event.
    pub fn new(time: Time, node: NodeId, change: NodeChange) -> Self {
        NodeEvent {
            time,
            node,
            gpu: None,
            change,
            spec: None,
            origin: None,
        }
    }

    /// The same event for one GPU of the node.
    pub fn on_gpu(mut self, index: u32) -> Self {
        self.gpu = Some(index);
        self
    }

    /// The same event, joining a new node of this shape.
    pub fn with_spec(mut self, spec: NodeSpec) -> Self {
        self.spec = Some(spec);
        self
    }

    /// The same event, remembering where it came from.
    pub fn with_origin(mut self, origin: impl Into<Arc<str>>) -> Self {
        self.origin = Some(origin.into());
        self
    }
}

/// What a source sees each round: the live cluster and jobs, read-only.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct RoundView<'a> {
    /// The round's time.
    pub time: Time,
    /// The round length.
    pub round: Time,
    /// The cluster, with its current availability.
    pub cluster: &'a Cluster,
    /// The admitted jobs.
    pub jobs: &'a JobTable,
    /// Jobs that arrived and wait for admission.
    pub pending_admission: usize,
}

impl<'a> RoundView<'a> {
    /// A view of one round.
    pub fn new(
        time: Time,
        round: Time,
        cluster: &'a Cluster,
        jobs: &'a JobTable,
        pending_admission: usize,
    ) -> Self {
        RoundView {
            time,
            round,
            cluster,
            jobs,
            pending_admission,
        }
    }
}

/// A source of cluster events, polled by the round loop before admission each round.
///
/// A source must be deterministic: the same run gives the same calls and so the same events.
pub trait ClusterEvents {
    /// A short name for messages.
    fn name(&self) -> String {
        let full = std::any::type_name::<Self>();
        full.rsplit("::").next().unwrap_or(full).to_owned()
    }

    /// Append every event due at or before `view.time` that was not delivered yet, in time
    /// order (equal times in the order they are to be applied).
    fn poll(&mut self, view: &RoundView<'_>, out: &mut Vec<NodeEvent>) -> Result<(), NodeError>;

    /// The time of the next event known in advance, if any, so that a round loop that skips
    /// idle rounds still stops at it. Sources that only react to rounds (autoscalers) return
    /// `None`.
    fn next_time(&self) -> Option<Time>;
}

impl<E: ClusterEvents + ?Sized> ClusterEvents for Box<E> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn poll(&mut self, view: &RoundView<'_>, out: &mut Vec<NodeEvent>) -> Result<(), NodeError> {
        (**self).poll(view, out)
    }
    fn next_time(&self) -> Option<Time> {
        (**self).next_time()
    }
}

/// A boxed source, for runtime composition.
pub type BoxEvents = Box<dyn ClusterEvents + Send>;

/// Several sources as one: each round's events are merged in time order; equal times keep the
/// order of the sources, then each source's own order.
#[derive(Default)]
pub struct EventSources {
    sources: Vec<BoxEvents>,
    scratch: Vec<NodeEvent>,
}

impl EventSources {
    /// No source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a source (after the ones already added).
    pub fn push(&mut self, source: BoxEvents) {
        self.sources.push(source);
    }

    /// Whether there is no source (the cluster never changes).
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }
}

impl std::fmt::Debug for EventSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.sources.iter().map(|s| s.name()))
            .finish()
    }
}

impl ClusterEvents for EventSources {
    fn name(&self) -> String {
        let names: Vec<String> = self.sources.iter().map(|s| s.name()).collect();
        names.join("+")
    }

    fn poll(&mut self, view: &RoundView<'_>, out: &mut Vec<NodeEvent>) -> Result<(), NodeError> {
        self.scratch.clear();
        for s in &mut self.sources {
            s.poll(view, &mut self.scratch)?;
        }
        // Stable: equal times keep source order.
        self.scratch.sort_by_key(|e| e.time);
        out.append(&mut self.scratch);
        Ok(())
    }

    fn next_time(&self) -> Option<Time> {
        self.sources.iter().filter_map(|s| s.next_time()).min()
    }
}

/// What applying one event did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// The node.
    pub node: NodeId,
    /// The one GPU affected, if the event named one.
    pub gpu: Option<GpuId>,
    /// Whether any GPU changed state (an event repeating the current state changes nothing).
    pub changed: bool,
    /// Jobs that held an affected GPU, ascending and once each: the round loop stops them
    /// (drained or failed) and requeues them.
    pub hit: Vec<JobId>,
}

fn origin(ev: &NodeEvent) -> String {
    match &ev.origin {
        Some(o) => format!("{o}: "),
        None => String::new(),
    }
}

/// Apply one event to the live cluster: GPUs leave or return to service, or a new node is
/// added. Jobs holding GPUs that left are listed in [`Applied::hit`] and keep their GPUs until
/// the caller releases them (they never count as free meanwhile).
///
/// Rules: `join` of node `k < nodes` returns it to service; `join` of node `k == nodes` adds a
/// node of the event's shape (an error without one); `leave` and `fail` take the node (or its
/// one GPU) out of service; `recover` returns it. Any other node id is an error naming the
/// event's origin.
pub fn apply(cluster: &mut Cluster, ev: &NodeEvent) -> Result<Applied, NodeError> {
    let n = cluster.n_nodes() as u32;
    if ev.node.0 == n && ev.change == NodeChange::Join && ev.gpu.is_none() {
        let Some(spec) = ev.spec.clone() else {
            return Err(NodeError::Apply(format!(
                "{}join of node {}: the cluster has {n} nodes and a new node needs its GPU count",
                origin(ev),
                ev.node
            )));
        };
        let id = cluster.add_node(spec);
        return Ok(Applied {
            node: id,
            gpu: None,
            changed: true,
            hit: Vec::new(),
        });
    }
    if ev.node.0 >= n {
        return Err(NodeError::Apply(format!(
            "{}{} of node {}: the cluster has nodes 0..{} (a new node must take the next id, {n})",
            origin(ev),
            ev.change,
            ev.node,
            n.saturating_sub(1)
        )));
    }
    let range = cluster.gpus_of(ev.node);
    let gpus: Vec<GpuId> = match ev.gpu {
        None => range.map(GpuId).collect(),
        Some(k) if k < range.len() as u32 => vec![GpuId(range.start + k)],
        Some(k) => {
            return Err(NodeError::Apply(format!(
                "{}{} of GPU {k} of node {}: the node has {} GPUs",
                origin(ev),
                ev.change,
                ev.node,
                range.len()
            )))
        }
    };
    if let (NodeChange::Join, Some(spec)) = (ev.change, &ev.spec) {
        let have = &cluster.spec().nodes[ev.node.index()];
        if spec.gpus != have.gpus || spec.gpu_type != have.gpu_type {
            return Err(NodeError::Apply(format!(
                "{}join of node {} with {} GPUs of type {}: the node exists with {} GPUs of type {}",
                origin(ev),
                ev.node,
                spec.gpus,
                spec.gpu_type,
                have.gpus,
                have.gpu_type
            )));
        }
    }
    let available = !ev.change.removes();
    let mut changed = false;
    let mut hit = Vec::new();
    for &g in &gpus {
        changed |= cluster.set_available(g, available);
        if !available {
            if let Some(j) = cluster.owner(g) {
                hit.push(j);
            }
        }
    }
    hit.sort_unstable();
    hit.dedup();
    Ok(Applied {
        node: ev.node,
        gpu: ev.gpu.map(|k| GpuId(cluster.gpus_of(ev.node).start + k)),
        changed,
        hit,
    })
}
