//! Alibaba GPU cluster 2023 ("openb", FGD paper) pod lists: `openb_pod_list_*.csv[.gz]`.
//!
//! | column | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `name` | text | pod id → `source_id` |
//! | `cpu_milli` | milli-CPU | CPU request → `cpus` = `cpu_milli / 1000` |
//! | `memory_mib` | MiB | memory request → `mem_gb` = `memory_mib / 1024` |
//! | `num_gpu` | GPUs | 0, 1, 2, 4, 8 → `n_gpus` |
//! | `gpu_milli` | milli-GPU | per-GPU share; < 1000 is a fraction of one GPU. `JobSpec` has whole GPUs, so a fractional pod counts as **one GPU** (the share is not kept) |
//! | `gpu_spec` | text | allowed GPU types (`A\|B`), empty = any; not kept |
//! | `qos`, `pod_phase` | text | not kept |
//! | `creation_time` | s | → `arrival` |
//! | `deletion_time` | s | end of the pod |
//! | `scheduled_time` | s | start; **empty** for Pending pods |
//!
//! `work_s` = `deletion_time − scheduled_time` (the time the pod held its resources).
//!
//! Filtered and counted (not GPU jobs, or never ran):
//! - `CPU-only pod`: `num_gpu = 0` (1,088 in the default list);
//! - `never scheduled`: empty `scheduled_time` (the Pending pods that ask for GPUs: 861 in the
//!   default list; Pending CPU-only pods count as CPU-only);
//! - `zero duration`: `deletion_time ≤ scheduled_time`.
//!
//! The `multigpu` variants carry only the five resource columns and no times: reading one is an
//! error naming the missing `creation_time` column.

use super::csvutil::Table;
use super::{secs_to_time, Collector, ReadOptions, Row, TraceRead};
use crate::WorkloadError;
use blox_core::JobSpec;
use std::path::Path;
use std::sync::Arc;

const NEED: &str = "an Alibaba 2023 pod list needs name,cpu_milli,memory_mib,num_gpu,\
                    creation_time,deletion_time,scheduled_time; the multigpu variants have no \
                    times and cannot be replayed";

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let t = Table::new(bytes, origin)?;
    let name = t.require("name", NEED)?;
    let cpu = t.require("cpu_milli", NEED)?;
    let mem = t.require("memory_mib", NEED)?;
    let gpus = t.require("num_gpu", NEED)?;
    let created = t.require("creation_time", NEED)?;
    let deleted = t.require("deletion_time", NEED)?;
    let scheduled = t.require("scheduled_time", NEED)?;
    let mut sink = Collector::new(opts);
    t.for_each(&mut sink, |f| {
        let source_id = f.str(name, "name")?;
        let cpu_milli = f.nonneg(cpu, "cpu_milli")?;
        let mem_mib = f.nonneg(mem, "memory_mib")?;
        let n = f.count(gpus, "num_gpu")?;
        let arrival = secs_to_time(
            f.nonneg(created, "creation_time")?,
            origin,
            f.line,
            "creation_time",
        )?;
        let end = f.secs(deleted, "deletion_time")?;
        let start = match f.opt(Some(scheduled)) {
            Some(_) => Some(f.secs(scheduled, "scheduled_time")?),
            None => None,
        };
        if n == 0 {
            return Ok(Row::Filtered("CPU-only pod"));
        }
        let Some(start) = start else {
            return Ok(Row::Filtered("never scheduled"));
        };
        if end <= start {
            return Ok(Row::Filtered("zero duration"));
        }
        let mut j = JobSpec::new(arrival, n, end - start);
        j.source_id = Some(Arc::from(source_id));
        j.cpus = Some(cpu_milli / 1000.0);
        j.mem_gb = Some(mem_mib / 1024.0);
        Ok(Row::Job(Box::new(j)))
    })?;
    Ok(sink.read)
}
