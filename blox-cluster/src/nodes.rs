//! The `--nodes` syntax of the local backend and the launch contract (the environment every
//! rank of a job sees).

use crate::{Inventory, Launch, NodeInfo};
use std::path::Path;

/// Parse `--nodes`: `NxG` (N fake nodes of G GPUs, indices 0..G on each, as on a real multi-node
/// cluster) or explicit GPU index lists per node separated by `/` (e.g. `0,1/2,3`: two nodes of
/// two GPUs each on one machine). Each node gets `cpus` cores and `mem_gb` GB.
pub fn parse_nodes(s: &str, cpus: u32, mem_gb: f64) -> Result<Inventory, String> {
    let s = s.trim();
    let bad = |why: &str| {
        format!("--nodes `{s}`: {why} (expected NxG, e.g. 2x2, or index lists such as 0,1/2,3)")
    };
    let groups: Vec<Vec<u32>> = if let Some((n, g)) = s.split_once(['x', 'X']) {
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        let g: u32 = g
            .trim()
            .parse()
            .map_err(|_| bad("G is not a whole number"))?;
        if n == 0 || g == 0 || n > 4096 || g > 64 {
            return Err(bad("N must be 1..4096 and G 1..64"));
        }
        (0..n).map(|_| (0..g).collect()).collect()
    } else {
        let mut out = Vec::new();
        for part in s.split('/') {
            let mut idx = Vec::new();
            for x in part.split(',') {
                let i: u32 = x
                    .trim()
                    .parse()
                    .map_err(|_| bad(&format!("`{x}` is not a GPU index")))?;
                if idx.contains(&i) {
                    return Err(bad(&format!("GPU index {i} listed twice on one node")));
                }
                idx.push(i);
            }
            out.push(idx);
        }
        out
    };
    if groups.is_empty() || groups.iter().any(Vec::is_empty) {
        return Err(bad("a node without GPUs"));
    }
    Ok(Inventory {
        nodes: groups
            .into_iter()
            .enumerate()
            .map(|(k, g)| NodeInfo::new(format!("n{k}"), "127.0.0.1", g, cpus, mem_gb))
            .collect(),
    })
}

/// The environment of one rank: Blox's variables plus the rendezvous port, the checkpoint
/// folder, the resume flag and the metrics file.
///
/// | variable | value |
/// |---|---|
/// | `job_id` | Blox id (admission order) |
/// | `local_gpu_id` | this rank's GPU device index |
/// | `local_accessible_gpus` | comma-joined device indices of the job's GPUs on this node |
/// | `master_ip_address` | address of rank 0's node |
/// | `world_size`, `dist_rank` | GPUs of the job; this rank (0-based, placement order) |
/// | `CUDA_VISIBLE_DEVICES` | = `local_accessible_gpus` |
/// | `BLOX_LOCAL_RANK` | this rank's position among the job's GPUs on this node |
/// | `BLOX_RDZV_PORT`, `MASTER_ADDR`, `MASTER_PORT`, `RANK`, `WORLD_SIZE`, `LOCAL_RANK` | rendezvous for `torch.distributed` |
/// | `BLOX_CHECKPOINT_DIR` | per-job folder kept across attempts |
/// | `BLOX_RESUME` | `1` when resuming after a preemption |
/// | `BLOX_ATTEMPT` | 0, 1, … |
/// | `BLOX_METRICS_FILE` | per-job JSON-lines file the job appends progress to |
/// | `BLOX_PREEMPT_SIGNAL` | the preemption signal's name, e.g. `SIGTERM` |
/// | `BLOX_NODE` | the node's name |
/// | `BLOX_TOTAL_ITERATIONS`, `BLOX_ITERATION_TIME_S` | when the submission gave them |
#[allow(clippy::too_many_arguments)]
pub fn job_env(
    l: &Launch<'_>,
    node: &str,
    gpu_index: u32,
    node_gpus: &[u32],
    local_rank: u32,
    rank: u32,
    world: u32,
    master: &str,
    port: u16,
    dir: &Path,
    metrics: &Path,
    signal: &str,
) -> Vec<(String, String)> {
    let gpus = node_gpus
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let mut env: Vec<(String, String)> = vec![
        ("job_id".into(), l.job.to_string()),
        ("local_gpu_id".into(), gpu_index.to_string()),
        ("local_accessible_gpus".into(), gpus.clone()),
        ("master_ip_address".into(), master.into()),
        ("world_size".into(), world.to_string()),
        ("dist_rank".into(), rank.to_string()),
        ("CUDA_VISIBLE_DEVICES".into(), gpus),
        ("BLOX_LOCAL_RANK".into(), local_rank.to_string()),
        ("BLOX_RDZV_PORT".into(), port.to_string()),
        ("MASTER_ADDR".into(), master.into()),
        ("MASTER_PORT".into(), port.to_string()),
        ("RANK".into(), rank.to_string()),
        ("WORLD_SIZE".into(), world.to_string()),
        ("LOCAL_RANK".into(), local_rank.to_string()),
        (
            "BLOX_CHECKPOINT_DIR".into(),
            dir.join("checkpoint").display().to_string(),
        ),
        (
            "BLOX_RESUME".into(),
            if l.resume { "1" } else { "0" }.into(),
        ),
        ("BLOX_ATTEMPT".into(), l.attempt.to_string()),
        ("BLOX_METRICS_FILE".into(), metrics.display().to_string()),
        ("BLOX_PREEMPT_SIGNAL".into(), signal.into()),
        ("BLOX_NODE".into(), node.into()),
    ];
    if let Some(n) = l.total_iterations {
        env.push(("BLOX_TOTAL_ITERATIONS".into(), n.to_string()));
    }
    if let Some(t) = l
        .spec
        .work_s
        .is_finite()
        .then_some(())
        .and(l.total_iterations)
        .and_then(|n| (n > 0 && l.spec.work_s > 0.0).then(|| l.spec.work_s / n as f64))
    {
        env.push(("BLOX_ITERATION_TIME_S".into(), format!("{t}")));
    }
    env
}
