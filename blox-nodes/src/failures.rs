//! Seeded random failures: every node (or GPU) fails and recovers at exponentially distributed
//! times.

use crate::{ClusterEvents, NodeError, NodeEvent, RoundView};
use blox_core::{ClusterSpec, NodeChange, NodeId, Seed, StreamRng, Time};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

/// The name of the seed stream random failures draw from.
pub const FAILURE_STREAM: &str = "cluster-failures";

/// What fails at random.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureScope {
    /// Whole nodes (every GPU of the node at once).
    #[default]
    Node,
    /// Single GPUs.
    Gpu,
}

/// `--failures mtbf=HOURS,mttr=HOURS[,scope=node|gpu]`: each unit (node or GPU) runs for an
/// exponentially distributed time of mean `mtbf`, is down for one of mean `mttr`, and so on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct FailureSpec {
    /// Mean time between failures of one unit, hours.
    pub mtbf_h: f64,
    /// Mean time to repair, hours.
    pub mttr_h: f64,
    /// What fails.
    #[serde(default)]
    pub scope: FailureScope,
}

impl FailureSpec {
    /// A spec; both means must be positive and finite.
    pub fn new(mtbf_h: f64, mttr_h: f64, scope: FailureScope) -> Result<Self, NodeError> {
        for (k, v) in [("mtbf", mtbf_h), ("mttr", mttr_h)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(NodeError::flag(
                    "--failures",
                    format!("{k}={v}: a mean time must be a positive number of hours"),
                ));
            }
            // The clock holds about 5·10^12 h (u64 ms) and a draw reaches ~37 times its mean:
            // beyond 10^9 h a draw can overflow the clock.
            let max_h = 1e9;
            if v > max_h {
                return Err(NodeError::flag(
                    "--failures",
                    format!(
                        "{k}={v}: a mean time must be at most {max_h:.0} hours (a draw must fit \
                         the simulator's clock)"
                    ),
                ));
            }
        }
        Ok(FailureSpec {
            mtbf_h,
            mttr_h,
            scope,
        })
    }

    /// Failures per unit per hour (`1/mtbf`), the axis of a failure-rate sweep.
    pub fn rate_per_hour(&self) -> f64 {
        1.0 / self.mtbf_h
    }
}

impl fmt::Display for FailureSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mtbf={},mttr={}", self.mtbf_h, self.mttr_h)?;
        if self.scope == FailureScope::Gpu {
            f.write_str(",scope=gpu")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for FailureSpec {
    type Err = NodeError;
    fn from_str(s: &str) -> Result<Self, NodeError> {
        let bad = |m: String| NodeError::flag("--failures", m);
        let (mut mtbf, mut mttr, mut scope) = (None, None, FailureScope::Node);
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                bad(format!(
                    "`{part}` is not KEY=VALUE (expected mtbf=HOURS,mttr=HOURS[,scope=node|gpu])"
                ))
            })?;
            let num = |v: &str| {
                v.trim()
                    .parse::<f64>()
                    .map_err(|_| bad(format!("{k}=`{v}` is not a number of hours")))
            };
            match k.trim() {
                "mtbf" => mtbf = Some(num(v)?),
                "mttr" => mttr = Some(num(v)?),
                "scope" => {
                    scope = match v.trim() {
                        "node" => FailureScope::Node,
                        "gpu" => FailureScope::Gpu,
                        o => return Err(bad(format!("scope=`{o}` (expected node or gpu)"))),
                    }
                }
                o => {
                    return Err(bad(format!(
                        "unknown key `{o}` (expected mtbf, mttr and scope)"
                    )))
                }
            }
        }
        let need = |x: Option<f64>, k: &str| {
            x.ok_or_else(|| bad(format!("`{k}=HOURS` is missing (in `{s}`)")))
        };
        FailureSpec::new(need(mtbf, "mtbf")?, need(mttr, "mttr")?, scope)
    }
}

/// Random failures of the nodes (or GPUs) a cluster starts with, drawn from the seed stream
/// [`FAILURE_STREAM`]: deterministic for a seed. Units are numbered in cluster order (nodes; or
/// GPUs node by node). Each unit's first failure time is drawn in unit order when the source is
/// built; each later duration is drawn when the previous transition is emitted, in time order
/// (ties by unit), so the sequence never depends on when the round loop polls. Nodes added to
/// the cluster later do not fail at random.
///
/// Durations are exponential (inverse transform, `-mean·ln(1-u)`), rounded up to the
/// millisecond and at least 1 ms.
#[derive(Clone, Debug)]
pub struct RandomFailures {
    spec: FailureSpec,
    rng: StreamRng,
    /// (node, GPU index on the node) of each unit.
    units: Vec<(NodeId, Option<u32>)>,
    /// Whether each unit is down.
    down: Vec<bool>,
    /// (time of the unit's next transition, unit).
    next: BinaryHeap<Reverse<(Time, u32)>>,
}

impl RandomFailures {
    /// Failures of `cluster`'s units, seeded with `seed`.
    pub fn new(spec: FailureSpec, cluster: &ClusterSpec, seed: Seed) -> Self {
        let mut units = Vec::new();
        for (k, n) in cluster.nodes.iter().enumerate() {
            match spec.scope {
                FailureScope::Node => units.push((NodeId(k as u32), None)),
                FailureScope::Gpu => units.extend((0..n.gpus).map(|g| (NodeId(k as u32), Some(g)))),
            }
        }
        let mut rng = seed.stream(FAILURE_STREAM);
        let mut next = BinaryHeap::with_capacity(units.len());
        for u in 0..units.len() {
            let t = draw(&mut rng, spec.mtbf_h);
            next.push(Reverse((t, u as u32)));
        }
        RandomFailures {
            spec,
            rng,
            down: vec![false; units.len()],
            units,
            next,
        }
    }

    /// The spec.
    pub fn spec(&self) -> FailureSpec {
        self.spec
    }
}

fn draw(rng: &mut StreamRng, mean_h: f64) -> Time {
    let u = rng.next_f64();
    let secs = -mean_h * 3600.0 * (1.0 - u).ln();
    Time::from_secs_f64_ceil(secs)
        .unwrap_or(Time::MAX)
        .max(Time(1))
}

impl ClusterEvents for RandomFailures {
    fn name(&self) -> String {
        format!("failures:{}", self.spec)
    }

    fn poll(&mut self, view: &RoundView<'_>, out: &mut Vec<NodeEvent>) -> Result<(), NodeError> {
        while let Some(&Reverse((t, u))) = self.next.peek() {
            if t > view.time {
                break;
            }
            self.next.pop();
            let k = u as usize;
            let was_down = self.down[k];
            self.down[k] = !was_down;
            let (node, gpu) = self.units[k];
            let change = if was_down {
                NodeChange::Recover
            } else {
                NodeChange::Fail
            };
            let mut ev = NodeEvent::new(t, node, change).with_origin("random failures");
            if let Some(g) = gpu {
                ev = ev.on_gpu(g);
            }
            out.push(ev);
            let mean = if was_down {
                self.spec.mtbf_h
            } else {
                self.spec.mttr_h
            };
            let d = draw(&mut self.rng, mean);
            self.next
                .push(Reverse((t.0.checked_add(d.0).map_or(Time::MAX, Time), u)));
        }
        Ok(())
    }

    fn next_time(&self) -> Option<Time> {
        self.next.peek().map(|Reverse((t, _))| *t)
    }
}
