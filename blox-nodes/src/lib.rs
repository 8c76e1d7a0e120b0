//! # blox-nodes
//!
//! Cluster management, the abstraction Blox calls "nodes join and leave": sources of cluster
//! events that the round loop applies before admission each round (Blox's `update_cluster`),
//! and the checkpointing rule that decides what a failure costs.
//!
//! | component | what it does | cost per round | source |
//! |---|---|---|---|
//! | [`NodeEventFile`] | replays `time_s,node,event[,gpus,type]` rows (`--node-events FILE`) | O(events due) | — |
//! | [`RandomFailures`] | every node (or GPU) fails and recovers at exponential times, mean `mtbf` / `mttr` hours, on the seed stream [`FAILURE_STREAM`] (`--failures`) | O(events due · log units) | — |
//! | [`Autoscaling`] + [`Autoscaler`] | a policy adds or removes nodes within `min_nodes`/`max_nodes` (Pollux's bounds) | the policy's | Pollux (OSDI'21) cluster autoscaling |
//! | [`QueueAutoscaler`] | adds nodes for waiting demand, removes an idle node below a utilisation (`--autoscale`) | O(nodes) | — |
//! | [`EventSources`] | several sources merged in time order | Σ sources | — |
//! | [`Checkpointing`] | the last checkpoint before a failure (`--checkpoint-interval`) | O(1) | — |
//!
//! An event is a [`NodeEvent`]: `join` (a new node, or a node returning), `leave` (a drain: the
//! node's jobs are stopped, keeping their progress, and requeued), `fail` (abrupt: they lose the
//! work since their last checkpoint, keep their attained service, and are requeued), `recover`.
//! [`apply`] applies one to a live [`blox_core::Cluster`]: GPUs out of service are never free,
//! so every placement and policy keeps working unchanged on the GPUs in service.
//!
//! ```
//! use blox_core::{Cluster, ClusterSpec, GpuId, JobId, JobTable, NodeChange, NodeId, Time};
//! use blox_nodes::{apply, ClusterEvents, NodeEventFile, RoundView};
//!
//! let mut events = NodeEventFile::parse(
//!     "time_s,node,event\n3600,0,fail\n7200,0,recover\n",
//!     "ev.csv".as_ref(),
//! )
//! .unwrap();
//! let mut cluster = Cluster::new(ClusterSpec::uniform(4, 8));
//! cluster.allocate(JobId(3), &[GpuId(0)]);
//! let jobs = JobTable::new();
//! let mut due = Vec::new();
//! let view = RoundView::new(Time::from_secs(3600), Time::from_secs(300), &cluster, &jobs, 0);
//! events.poll(&view, &mut due).unwrap();
//! assert_eq!(due.len(), 1);
//! let applied = apply(&mut cluster, &due[0]).unwrap();
//! assert_eq!(applied.hit, vec![JobId(3)], "the job on node 0 is hit");
//! assert_eq!(cluster.available_gpus(), 24);
//! assert_eq!(cluster.free_on_node(NodeId(0)), 0);
//! assert_eq!(events.next_time(), Some(Time::from_secs(7200)));
//! ```

mod autoscale;
mod checkpoint;
mod error;
mod event;
mod failures;
mod file;

pub use autoscale::{
    node_in_service, scale_view, AutoscaleSpec, Autoscaler, Autoscaling, Bounds, QueueAutoscaler,
    ScaleDecision, ScaleView,
};
pub use blox_core::NodeChange;
pub use checkpoint::Checkpointing;
pub use error::NodeError;
pub use event::{apply, Applied, BoxEvents, ClusterEvents, EventSources, NodeEvent, RoundView};
pub use failures::{FailureScope, FailureSpec, RandomFailures, FAILURE_STREAM};
pub use file::NodeEventFile;
