//! # blox-workload
//!
//! Workloads for the Blox toolkit: readers of the published deep-learning cluster traces into
//! one job record ([`blox_core::JobSpec`]), synthetic generators, Blox's model zoo, and trace
//! statistics. It depends on `blox-core` only.
//!
//! ## Readers
//!
//! [`read_trace`] reads one file in a [`TraceFormat`] (gzip detected by its magic bytes, any file
//! name); [`read_traces`] merges several by arrival (stable). Each returns a [`TraceRead`]: the
//! jobs, the malformed lines skipped under [`ReadOptions::skip_bad_lines`], and the well-formed
//! rows deliberately filtered, by reason. Without `skip_bad_lines`, the first malformed line is a
//! [`WorkloadError`] displayed as `FILE:LINE: field `NAME`: message`. No reader panics on any
//! input (a proptest over arbitrary bytes, and cargo-fuzz targets in `fuzz/`, which CI runs
//! with `fuzz/run.sh` from the committed seeds in `fuzz/seeds/`). An arrival, duration or
//! deadline above [`MAX_TRACE_SECONDS`] (10^9 s, about 31.7 years) is a malformed line: the
//! engine could not replay it in bounded time and memory, and no real trace comes near it.
//!
//! | `--trace-format` | source | files | duration from | filtered rows |
//! |---|---|---|---|---|
//! | `canonical` | this toolkit | `job_id,arrival_s,n_gpus,duration_s[,model]` | `duration_s` | none (0 GPUs or 0 s is malformed) |
//! | `philly` | Philly `cluster_job_log` (ATC'19) | JSON array | summed valid attempts; [`PhillyMode::Blox`] applies Blox's filter | no (valid) attempt; Blox: last attempt invalid, outside (1,897.4 s, 600,000 s) |
//! | `itp` | Microsoft ITP / ElasticFlow (ASPLOS'23) | `raw/` and `elasticflow/` CSVs | `duration` | 0 GPUs, 0 s |
//! | `pollux` | Pollux (OSDI'21) | `workload-N.csv`; `traces/philly.csv.gz` | reference GPU-time per application ÷ GPUs; `duration` | 0 GPUs, 0 s |
//! | `gavel` | Gavel (OSDI'20) | `*.trace` TSV | `total_steps` ÷ isolated throughput ([`GavelThroughputs`]) | 0 GPUs, 0 steps |
//! | `tiresias` | Tiresias (NSDI'19) | `60_job.csv` | `duration` | 0 GPUs, 0 s |
//! | `alibaba2023` | Alibaba GPU 2023 / FGD (ATC'23) | `openb_pod_list_*.csv` | `deletion_time − scheduled_time` | CPU-only pods, never scheduled, 0 s |
//! | `helios` | SenseTime Helios (SC'21) | `cluster_log.csv` | `duration` | CPU-only jobs, 0 s |
//!
//! Times are seconds (arrivals rounded up to the engine's millisecond). Formats with wall-clock
//! timestamps (Philly, Pollux `philly.csv`, Helios) count arrivals from the earliest timestamp
//! in the file unless [`ReadOptions::time_origin`] is set. Every reader's module documents the
//! source's columns, units and what is kept: see `read/*.rs` or the items re-exported here.
//!
//! ## Generators and model zoo
//!
//! | item | what | randomness |
//! |---|---|---|
//! | [`PoissonGenerator`] | Poisson arrivals at N jobs/hour; [`DurationDist`] (default Blox/Gavel's Philly-like mix) and [`GpuDist`] (default the Philly GPU mix, [`PHILLY_GPU_COUNTS`]) | streams `workload.poisson.*` |
//! | [`resample`] | a real trace's jobs drawn with replacement, Poisson arrivals at a [`LoadTarget`] (jobs/h or offered GPUs) | `workload.resample.*` |
//! | [`DualLoad`] | the intended form of Blox's bursty "dual load" (BLOX-SEMANTICS §11.2) | `workload.dual.*` |
//! | [`assign_models`] | Blox's model zoo ([`MODEL_ZOO`]: iteration times, CPU/memory sensitivity) onto jobs | `workload.zoo` (random mode) |
//!
//! ## Statistics
//!
//! [`TraceStats::compute`] gives the job count, arrival span, GPU-count histogram, duration
//! percentiles (nearest rank, [`percentile`]) and the offered load in GPUs
//! (Σ `n_gpus × work_s` ÷ arrival span).
//!
//! ## Example
//!
//! ```
//! use blox_workload::{parse_trace, ReadOptions, TraceFormat, TraceStats};
//! use std::path::Path;
//!
//! let csv = "job_id,submission_time,duration,num_gpu\na,0,600,1\nb,100,1200,4\nc,200,0,2";
//! let opts = ReadOptions::default();
//! let read = parse_trace(csv.as_bytes(), Path::new("c.csv"), TraceFormat::Itp, &opts)?;
//! assert_eq!(read.jobs.len(), 2);
//! assert_eq!(read.filtered.get("zero duration"), Some(&1));
//! let stats = TraceStats::compute(&read.jobs, Some(8));
//! // (1·600 + 4·1200) GPU-s over a 100 s arrival span.
//! assert_eq!(stats.offered_load_gpus, Some(54.0));
//!
//! // A malformed line names file, line and field.
//! let bad = "job_id,submission_time,duration,num_gpu\na,0,600,one";
//! let err = parse_trace(bad.as_bytes(), Path::new("c.csv"), TraceFormat::Itp, &opts).unwrap_err();
//! assert_eq!(err.to_string(), "c.csv:2: field `num_gpu`: `one` is not a whole number ≥ 0");
//!
//! // Synthetic: 100 jobs at 6 jobs/hour with Philly-like durations and GPU counts.
//! let poisson = blox_workload::PoissonGenerator::new(
//!     blox_workload::PoissonConfig::new(6.0),
//!     blox_core::Seed(1),
//! )?;
//! let jobs: Vec<_> = poisson.take(100).collect();
//! assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
//! # Ok::<(), blox_workload::WorkloadError>(())
//! ```

mod error;
mod r#gen;
mod pyrandom;
mod read;
mod stats;
mod zoo;

pub use error::WorkloadError;
pub use pyrandom::PyRandom;
pub use r#gen::{
    resample, DualLoad, DualLoadConfig, DurationDist, GpuDist, LoadTarget, PoissonConfig,
    PoissonGenerator, PHILLY_GPU_COUNTS, POISSON_STREAMS,
};
pub use read::{
    decompress, locate_table_path, parse_datetime, parse_gavel, parse_gavel_trace, parse_trace,
    philly_blox_gpu_counts, philly_blox_trace_jobs, pollux_reference_gpu_seconds, read_gavel_trace,
    read_input, read_trace, read_traces, ColocatedThroughputs, GavelThroughputs, GavelTraceJob,
    PhillyMode, ReadOptions, TraceFormat, TraceRead, UnknownFormat, BLOX_PHILLY_MAX_S,
    BLOX_PHILLY_MIN_S, GAVEL_TABLE_NAMES, MAX_DECOMPRESSED_BYTES, MAX_KEPT_BAD_LINES,
    MAX_TRACE_SECONDS, POLLUX_REFERENCE_GPU_SECONDS,
};
pub use stats::{percentile, DurationSummary, TraceStats};
pub use zoo::{
    assign_models, model, ModelProfile, ModelVariant, Task, ZooAssignment, CPU_LEVELS,
    FAIR_MEM_GB_PER_GPU, MODEL_ZOO,
};
