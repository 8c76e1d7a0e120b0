//! A node-event file: `time_s,node,event[,gpus,type]`, one event a row.

use crate::{ClusterEvents, NodeError, NodeEvent, RoundView};
use blox_core::{ClusterSpec, NodeChange, NodeId, NodeSpec, Time, DEFAULT_GPU_TYPE};
use std::path::{Path, PathBuf};

/// Events read from a CSV file, replayed at their times.
///
/// Format: an optional header `time_s,node,event[,gpus,type]`; then one row per event:
/// `time_s` (seconds ≥ 0, fractions allowed, rounded up to the millisecond), `node` (the node's
/// id, from 0, in cluster order), `event` (`join`, `leave`, `fail`, `recover`; `drain` and
/// `remove` mean `leave`, `add` means `join`), and for a `join` of a new node (id = the number
/// of nodes so far) its `gpus` and, optionally, GPU `type`. Blank lines and lines starting with
/// `#` are skipped. Rows may come in any order; equal times keep file order.
///
/// ```
/// use blox_nodes::NodeEventFile;
/// let f = NodeEventFile::parse("time_s,node,event\n3600,0,leave\n7200,0,join\n", "ev.csv".as_ref())
///     .unwrap();
/// assert_eq!(f.events().len(), 2);
/// let e = NodeEventFile::parse("10,0,explode\n", "ev.csv".as_ref()).unwrap_err();
/// assert_eq!(e.to_string(), "ev.csv:1: field `event`: unknown node event `explode` (expected join, leave, fail or recover)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NodeEventFile {
    path: PathBuf,
    events: Vec<NodeEvent>,
    /// The file line of each event.
    lines: Vec<u64>,
    next: usize,
}

impl NodeEventFile {
    /// Read and parse a file.
    pub fn load(path: &Path) -> Result<Self, NodeError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            NodeError::at(
                Some(path.to_owned()),
                None,
                None,
                format!("cannot read: {e}"),
            )
        })?;
        Self::parse(&text, path)
    }

    /// Parse the text of a file named `path` (used in messages).
    pub fn parse(text: &str, path: &Path) -> Result<Self, NodeError> {
        let mut rows: Vec<(NodeEvent, u64)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i as u64 + 1;
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = l.split(',').map(str::trim).collect();
            if rows.is_empty() && fields[0].eq_ignore_ascii_case("time_s") {
                continue;
            }
            let err = |field: &str, msg: String| {
                NodeError::at(Some(path.to_owned()), Some(line), Some(field), msg)
            };
            if fields.len() < 3 || fields.len() > 5 {
                return Err(NodeError::at(
                    Some(path.to_owned()),
                    Some(line),
                    None,
                    format!(
                        "{} fields; expected time_s,node,event[,gpus,type]",
                        fields.len()
                    ),
                ));
            }
            let secs: f64 = fields[0]
                .parse()
                .map_err(|_| err("time_s", format!("`{}` is not a number", fields[0])))?;
            let time = Time::from_secs_f64_ceil(secs)
                .ok_or_else(|| err("time_s", format!("`{}` is not a time ≥ 0", fields[0])))?;
            let node: u32 = fields[1].parse().map_err(|_| {
                err(
                    "node",
                    format!("`{}` is not a node id (a whole number ≥ 0)", fields[1]),
                )
            })?;
            let change: NodeChange = fields[2].parse().map_err(|m| err("event", m))?;
            let gpus = match fields.get(3).filter(|s| !s.is_empty()) {
                None => None,
                Some(g) => match g.parse::<u32>() {
                    Ok(n) if n > 0 => Some(n),
                    _ => return Err(err("gpus", format!("`{g}` is not a positive whole number"))),
                },
            };
            let ty = fields.get(4).filter(|s| !s.is_empty()).copied();
            if let Some(t) = ty {
                if !t
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                {
                    return Err(err(
                        "type",
                        format!("`{t}` is not a GPU type name (letters, digits, `-`, `_`, `.`)"),
                    ));
                }
            }
            if change != NodeChange::Join && (gpus.is_some() || ty.is_some()) {
                return Err(err(
                    if gpus.is_some() { "gpus" } else { "type" },
                    format!("only a `join` names the node's GPUs (this row is `{change}`)"),
                ));
            }
            if ty.is_some() && gpus.is_none() {
                return Err(err("gpus", "a GPU type needs the GPU count too".into()));
            }
            let mut ev = NodeEvent::new(time, NodeId(node), change)
                .with_origin(format!("{}:{line}", path.display()));
            if let Some(g) = gpus {
                ev = ev.with_spec(NodeSpec::with_gpus(g).of_type(ty.unwrap_or(DEFAULT_GPU_TYPE)));
            }
            rows.push((ev, line));
        }
        rows.sort_by_key(|(e, _)| e.time);
        let (events, lines) = rows.into_iter().unzip();
        Ok(NodeEventFile {
            path: path.to_owned(),
            events,
            lines,
            next: 0,
        })
    }

    /// The events, in time order.
    pub fn events(&self) -> &[NodeEvent] {
        &self.events
    }

    /// Check the events against the cluster they will run on, before the run: every node named
    /// exists (or is the next new node of a `join` with its GPU count), so that a mistake is
    /// reported with its line rather than mid-run.
    pub fn check(&self, cluster: &ClusterSpec) -> Result<(), NodeError> {
        let mut nodes: Vec<NodeSpec> = cluster.nodes.clone();
        let mut total: u64 = nodes.iter().map(|n| u64::from(n.gpus)).sum();
        for (ev, &line) in self.events.iter().zip(&self.lines) {
            let err = |field: &str, msg: String| {
                NodeError::at(Some(self.path.clone()), Some(line), Some(field), msg)
            };
            let n = nodes.len() as u32;
            if ev.node.0 == n && ev.change == NodeChange::Join {
                match &ev.spec {
                    Some(s) => {
                        nodes.push(s.clone());
                        total += u64::from(s.gpus);
                        if total > u64::from(blox_core::MAX_CLUSTER_GPUS)
                            || nodes.len() as u64 > u64::from(blox_core::MAX_CLUSTER_NODES)
                        {
                            return Err(err(
                                "gpus",
                                format!(
                                    "node {n} would make the cluster {} nodes of {total} GPUs, \
                                     above the bound of {} nodes and {} GPUs (what fits in memory)",
                                    nodes.len(),
                                    blox_core::MAX_CLUSTER_NODES,
                                    blox_core::MAX_CLUSTER_GPUS
                                ),
                            ));
                        }
                    }
                    None => {
                        return Err(err(
                            "gpus",
                            format!("node {n} is new (the cluster has {n} nodes so far): give its GPU count"),
                        ))
                    }
                }
                continue;
            }
            if ev.node.0 >= n {
                return Err(err(
                    "node",
                    format!(
                        "node {} does not exist (the cluster has nodes 0..{} at t={} s; a new node takes id {n})",
                        ev.node,
                        n.saturating_sub(1),
                        ev.time
                    ),
                ));
            }
            if let Some(s) = &ev.spec {
                let have = &nodes[ev.node.index()];
                if s.gpus != have.gpus || s.gpu_type != have.gpu_type {
                    return Err(err(
                        "gpus",
                        format!(
                            "node {} exists with {} GPUs of type {}; this row says {} of type {}",
                            ev.node, have.gpus, have.gpu_type, s.gpus, s.gpu_type
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl ClusterEvents for NodeEventFile {
    fn name(&self) -> String {
        format!("node-events:{}", self.path.display())
    }

    fn poll(&mut self, view: &RoundView<'_>, out: &mut Vec<NodeEvent>) -> Result<(), NodeError> {
        while let Some(ev) = self.events.get(self.next) {
            if ev.time > view.time {
                break;
            }
            out.push(ev.clone());
            self.next += 1;
        }
        Ok(())
    }

    fn next_time(&self) -> Option<Time> {
        self.events.get(self.next).map(|e| e.time)
    }
}
