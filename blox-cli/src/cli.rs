//! The `blox-sim` command line: argument parsing and the commands.

use blox_admission::AdmissionConfig;
use blox_scenario::registry::{Named, Registry};
use blox_scenario::{
    Model, RunReport, Scenario, Semantics, Setting, WorkloadConfig, BLOX_TRACE_JOBS, DEFAULT_LOAD,
};

use blox_placement::PlacementConfig;
use blox_policies::PolicyConfig;
use blox_sim::SimError;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "blox-sim",
    version,
    about = "Simulate deep-learning cluster schedulers composed from Blox components.",
    long_about = "Simulate deep-learning cluster schedulers composed from Blox components.\n\n\
        With no command, compares FIFO, LAS and SRTF on Blox's default workload at a contended \
        load (8 jobs/h on 32x4 GPUs, jobs 3000..4000 tracked, exact semantics) and prints a table.",
    after_help = "Examples:\n  \
        blox-sim\n  \
        blox-sim run --semantics blox --policy las --load 1 --track 3000..4000\n  \
        blox-sim run --trace jobs.csv --trace-format canonical --cluster 16x8 --out results/\n  \
        blox-sim compare --policy fifo,las,srtf --load 6\n\n\
        Exit status: 0 done; 2 bad input (a flag, a value, a file that does not exist, a \
        scenario file or trace that does not read); 1 a run that could not finish (it stalled, \
        a component made an invalid decision, an output could not be written)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario and print its results; with --out, write jobs.csv, summary.json and
    /// timeline.csv.
    Run(RunArgs),
    /// Run several policies on the same workload and print one table.
    Compare(CompareArgs),
    /// Run the cross product of settings in parallel (any flag of `run` may be a comma list;
    /// --load and --seed also take inclusive ranges such as 1..9), resumably, into DIR.
    Sweep(SweepArgs),
    /// Join the finished runs under DIR/runs (e.g. from several shards) into DIR/results.csv
    /// and DIR/results.json.
    Merge(MergeArgs),
    /// Inspect traces: `blox-sim trace stats FILE... --trace-format F`.
    #[command(subcommand)]
    Trace(TraceCommand),
    /// Time the engine: Blox's README configuration (LAS, load 1, jobs 3000..4000, blox
    /// semantics: 48,471 rounds), Blox's Figure 6 sweep, the full ITP trace, and 1,000,000
    /// synthetic jobs on 16,384 GPUs; print the figures (about a minute on 2 cores).
    Bench(BenchArgs),
}

#[derive(Args, Clone, Default)]
struct ScenarioArgs {
    /// Scenario file (TOML or JSON); flags given here override it.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Time semantics: `blox` (Blox's simulator exactly), `exact` (true finish times),
    /// `synergy` (Synergy's simulator: 300 s rounds, everything re-decided each round, whole
    /// iterations credited at allocation; its defaults: --workload synergy-default --load 9
    /// --class-split 20,70,10 --cluster 16x8 with 24 CPUs and 500 GB per node
    /// --placement synergy:mode=tune --track 4000..4999 --seed 42), `tiresias` (the Tiresias
    /// authors' simulator job by job, with its schedules and placements by their own names, or
    /// any engine policy and placement on its clock; `run` and `compare`, on a trace), `gavel`
    /// (Gavel's trace simulator job by job: `run` or `compare` with a gavel --trace, --cluster
    /// of v100/p100/k80, --round, --seed and Gavel's --policy names or any engine policy) or
    /// `pollux` (the Pollux artifact's simulator: its job model, 60 s intervals, and its
    /// policies pollux, optimus and tiresias, or any engine policy on its goodput-aware jobs; `run`
    /// and `compare`, on a pollux --trace) [default: exact].
    #[arg(long, value_name = "blox|exact|synergy|tiresias|gavel|pollux")]
    semantics: Option<Model>,
    /// Synthetic workload: blox-default (Blox's generator, bit-exact), blox-multigpu-trace
    /// (Blox's multi-GPU jobs from a Philly log, with --blox-trace), blox-synthetic (Blox's
    /// trace-free multi-GPU generator), poisson (configurable durations and GPU counts),
    /// dual-load (Blox's bursty workload, intended form) or synergy-default (Synergy's
    /// generator, bit-exact from --seed) [default: blox-default; synergy-default under
    /// --semantics synergy].
    #[arg(long, value_name = "NAME", value_parser = ["blox-default", "blox-multigpu-trace", "blox-synthetic", "poisson", "dual-load", "synergy-default"])]
    workload: Option<String>,
    /// The Philly `cluster_job_log` (JSON, gzip allowed) of --workload blox-multigpu-trace.
    #[arg(long, value_name = "FILE")]
    blox_trace: Option<PathBuf>,
    /// Class split of synergy-default, IMAGE,LANGUAGE,SPEECH in percent [default: 20,70,10].
    #[arg(long, value_name = "I,L,S")]
    class_split: Option<String>,
    /// CPU cores per node [default: 3 per GPU under --semantics synergy, else 16].
    #[arg(long, value_name = "N")]
    node_cpus: Option<u32>,
    /// Host memory per node in GB [default: 62.5 per GPU under --semantics synergy, else 250].
    #[arg(long, value_name = "GB")]
    node_mem: Option<f64>,
    /// Number of jobs of the poisson and dual-load generators and of --resample [default: 10000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count)]
    jobs: Option<usize>,
    /// Durations of the poisson generator: philly-like, constant:S, uniform:LO..HI,
    /// log-uniform:LO..HI, exponential:MEAN [default: philly-like].
    #[arg(long, value_name = "DIST")]
    durations: Option<String>,
    /// GPU counts of the poisson generator: philly (Philly's mix, capped at the cluster), N, or
    /// weights such as 1:0.7,4:0.2,8:0.1 [default: philly].
    #[arg(long, value_name = "DIST")]
    gpus: Option<String>,
    /// Resample the --trace at this many jobs per hour (--jobs jobs, fresh Poisson arrivals).
    #[arg(long, value_name = "JOBS_PER_HOUR", requires = "trace", allow_negative_numbers = true, value_parser = rate)]
    resample: Option<f64>,
    /// Arrival rate of the synthetic workload, jobs per hour [default: 8].
    #[arg(long, value_name = "JOBS_PER_HOUR", allow_negative_numbers = true, value_parser = rate)]
    load: Option<f64>,
    /// Blox's N: durations of the default workload repeat after this many jobs [default: 12000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count)]
    blox_trace_jobs: Option<usize>,
    /// Read jobs from this file instead of generating them; repeat it to merge several files
    /// (e.g. the ten ITP clusters) by arrival. Gzipped files are read transparently.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["workload", "load", "blox_trace_jobs"])]
    trace: Vec<PathBuf>,
    /// Format of --trace: canonical (job_id,arrival_s,n_gpus,duration_s[,model]), philly, itp,
    /// pollux, gavel, tiresias, alibaba2023, helios [default: recognised from the first file's
    /// header (its columns), and said on standard error].
    #[arg(long, value_name = "FORMAT")]
    trace_format: Option<String>,
    /// Count and skip malformed trace lines instead of stopping at the first (the count and the
    /// first errors go to summary.json).
    #[arg(long)]
    skip_bad_lines: bool,
    /// Cluster shape as NODESxGPUS, or typed groups NODESxGPUS:TYPE separated by `,` or `+`
    /// for a heterogeneous cluster (e.g. `2x4:v100,4x4:p100,6x4:k80`) [default: 32x4]. Under
    /// --semantics tiresias: NODESxGPUS (one switch, 64 CPUs and 256 GB per node) or a Tiresias
    /// cluster-spec .csv file [default: Tiresias' 32x8].
    #[arg(long, value_name = "NODESxGPUS[:TYPE],...", allow_hyphen_values = true)]
    cluster: Option<String>,
    /// --semantics tiresias: the cluster as a Tiresias cluster-spec CSV
    /// (`num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node`, one row).
    #[arg(long, value_name = "FILE", conflicts_with = "cluster")]
    cluster_spec: Option<PathBuf>,
    /// Per-model, per-GPU-type throughput table (Gavel's `*_throughputs.json[.gz]`): on a
    /// cluster of several GPU types, jobs run at their model's speed on each type and Gavel
    /// allocates by it [default: for a gavel trace, the table next to it].
    #[arg(long, value_name = "FILE")]
    throughputs: Option<PathBuf>,
    /// The GPU type jobs' work is measured on, for --throughputs and Gavel traces
    /// [default: v100].
    #[arg(long, value_name = "TYPE")]
    reference_gpu_type: Option<String>,
    /// Round length in seconds [default: 300].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = round_secs)]
    round: Option<u64>,
    /// Admission policy: `accept-all`, `load-based:FACTOR` or
    /// `queue-cap:limit=N[,mode=hold|reject]` [default: accept-all].
    #[arg(long, value_name = "POLICY")]
    admission: Option<Named<AdmissionConfig>>,
    /// Placement: scattered (Blox's Place), first-fit, consolidated, topology, resource-aware;
    /// options as `name:key=value,...` (e.g. `consolidated:wait=true,backfill=true`)
    /// [default: scattered]. With --semantics tiresias: Tiresias' yarn, count, random, balance
    /// (default yarn; count under an engine policy), or an engine placement with an engine
    /// policy.
    #[arg(long, value_name = "POLICY")]
    placement: Option<Named<PlacementConfig>>,
    /// Interconnect model: a topology JSON file or a shape (default, dgx, pcie, with options
    /// such as `dgx:rack=8,nic=25,uplink=100`) [default: default, for the cluster shape].
    #[arg(long, value_name = "FILE|SHAPE")]
    topology: Option<String>,
    /// Throughput model: placement (speed depends on where a job runs), policy (Optimus's
    /// scaling model) or constant (Blox's) [default: placement in exact semantics (policy for
    /// optimus), constant in blox].
    #[arg(long, value_name = "MODEL")]
    throughput: Option<crate::ThroughputChoice>,
    /// Tracked job ids FIRST..LAST, inclusive; the run ends when all have completed
    /// [default: 3000..4000 for blox-default, every job for a trace].
    #[arg(long, value_name = "FIRST..LAST", allow_hyphen_values = true)]
    track: Option<String>,
    /// Seed; for blox-default it is CPython's random.seed (1 reproduces Blox) [default: 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = seed)]
    seed: Option<u64>,
    /// Exact semantics: seconds a resumed job spends restoring after a preemption [default: 0].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = seconds)]
    preemption_cost: Option<f64>,
    /// Seconds of waiting before a job is promoted to the starved class; 0 disables
    /// [default: 3600000, Blox's].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = whole_secs)]
    starvation: Option<u64>,
    /// Node events replayed during the run: CSV rows `time_s,node,event[,gpus,type]`, event
    /// join, leave (drain: jobs stopped, progress kept), fail (jobs lose the work since their
    /// last checkpoint) or recover; `gpus[,type]` for a join of a new node (the next id).
    #[arg(long, value_name = "FILE")]
    node_events: Option<PathBuf>,
    /// Seeded random failures of every node (or GPU): `mtbf=HOURS,mttr=HOURS[,scope=node|gpu]`;
    /// needs --max-sim-time (a failure can strike every job before it finishes).
    #[arg(long, value_name = "SPEC")]
    failures: Option<String>,
    /// Autoscaling by queue and utilisation:
    /// `min_nodes=N,max_nodes=M[,low=FRACTION,cooldown=ROUNDS,node=GPUS[:TYPE]]`.
    #[arg(long, value_name = "SPEC")]
    autoscale: Option<String>,
    /// Seconds between a running job's checkpoints: what a failure loses; 0 = nothing
    /// [default: none, a failure loses everything since the job's last (re)start].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    checkpoint_interval: Option<f64>,
    /// End the run with an error once simulated time passes this many seconds (e.g. 86400 for
    /// one simulated day) [default: no limit; required with --failures].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = limit_secs)]
    max_sim_time: Option<f64>,
    /// Exact semantics: take decisions each round (`rounds`) or also at every arrival and
    /// completion (`events`, Tiresias-style) [default: rounds].
    #[arg(long, value_name = "rounds|events")]
    decide: Option<blox_sim::Decide>,
}

/// The Pollux preset's knobs (`run` and `compare`).
#[derive(Args, Default)]
struct PolluxArgs {
    /// Pollux semantics: the applications' trace folder [default: `traces/` beside the
    /// workload's folder, as in the artifact].
    #[arg(long, value_name = "DIR")]
    pollux_traces: Option<PathBuf>,
    /// Pollux semantics: fraction of goodput a distributed job loses on a node shared with
    /// another distributed job [default: 0].
    #[arg(long, value_name = "FRACTION")]
    interference: Option<f64>,
    /// Pollux semantics: let the Pollux policy put several distributed jobs on one node (the
    /// artifact's `noavoid` runs).
    #[arg(long)]
    no_interference_avoidance: bool,
    /// Pollux semantics: generations of the Pollux policy's genetic search [default: 100].
    #[arg(long, value_name = "N")]
    generations: Option<usize>,
}

impl PolluxArgs {
    /// The options, or an error when they are given without `--semantics pollux`.
    fn options(&self, pollux: bool) -> Result<blox_scenario::pollux::PolluxOptions, SimError> {
        if !pollux
            && (self.pollux_traces.is_some()
                || self.interference.is_some()
                || self.no_interference_avoidance
                || self.generations.is_some())
        {
            return Err(SimError::Config(
                "--pollux-traces, --interference, --no-interference-avoidance and --generations \
                 apply to --semantics pollux only"
                    .into(),
            ));
        }
        Ok(blox_scenario::pollux::PolluxOptions {
            traces: self.pollux_traces.clone(),
            interference: self.interference.unwrap_or(0.0),
            no_avoidance: self.no_interference_avoidance,
            generations: self.generations,
        })
    }
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    #[command(flatten)]
    pollux: PolluxArgs,
    /// Scheduling policy: fifo, las, srtf, sjf, tiresias, optimus, gavel (Gavel-style max-min,
    /// alias gavel-style), themis (greedy finish-time fairness, alias ftf-greedy); parameters as
    /// `name:key=value,...`, e.g. `tiresias:queues=2,threshold=3600`. In blox semantics
    /// tiresias and optimus are Blox's versions. With --semantics gavel: Gavel's own fifo,
    /// fifo_perf, max_min_fairness, max_min_fairness_perf, finish_time_fairness_perf (`-` or
    /// `_`), or any engine policy on Gavel's clock (`engine:fifo` is the engine's FIFO)
    /// [default: fifo]. With --semantics tiresias: Tiresias' fifo, sjf, shortest,
    /// shortest-gpu, dlas, dlas-gpu, dlas-gpu-gittins, or any engine policy (Tiresias' name
    /// wins; `engine:fifo`, `engine:sjf` name the engine's).
    #[arg(long, value_name = "POLICY")]
    policy: Option<Named<PolicyConfig>>,
    /// Write jobs.csv, summary.json, timeline.csv, fairness.csv, jct_cdf.csv and timeline.svg
    /// into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Progress on standard error (simulated time, tracked jobs done): auto (when it is a
    /// terminal), always, never [default: auto].
    #[arg(long, value_name = "WHEN", value_parser = ["auto", "always", "never"], default_value = "auto")]
    progress: String,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    #[command(flatten)]
    pollux: PolluxArgs,
    /// Policies to compare, comma-separated (parameters stay with their policy:
    /// `tiresias:queues=2,threshold=3600,las`).
    #[arg(long, value_name = "P1,P2,...", default_value = "fifo,las,srtf")]
    policy: String,
    /// Placements to compare as well (each policy runs with each), comma-separated, e.g.
    /// `synergy:mode=fair,synergy:mode=tune` [default: --placement].
    #[arg(long, value_name = "PL1,PL2,...")]
    placements: Option<String>,
    /// Class splits of synergy-default to compare as well, separated by `/`, e.g.
    /// `20,70,10/33,33,33/50,0,50` (Synergy's Figure 9) [default: --class-split].
    #[arg(long, value_name = "I,L,S/I,L,S/...")]
    class_splits: Option<String>,
    /// Write compare.csv, compare.json and jct_cdf.svg into DIR, and each policy's outputs into
    /// DIR/POLICY/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct SweepArgs {
    /// Scenario file (TOML or JSON) every run starts from.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Semantics to try, e.g. `blox,exact`: `blox`, `exact` or `synergy` (the peer models
    /// `tiresias`, `gavel` and `pollux` are taken by `run` and `compare`).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = sweep_semantics)]
    semantics: Vec<Semantics>,
    /// Loads in jobs/hour: a list and/or inclusive integer ranges, e.g. `1..9` or `2,4.5,8`.
    #[arg(long, value_name = "LIST", allow_negative_numbers = true)]
    load: Option<String>,
    /// Blox's N for the generated workload [default: 12000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count)]
    blox_trace_jobs: Option<usize>,
    /// Read jobs from this file (repeatable) instead of generating them.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["load", "blox_trace_jobs"])]
    trace: Vec<PathBuf>,
    /// Format of --trace [default: canonical].
    #[arg(long, value_name = "FORMAT")]
    trace_format: Option<String>,
    /// Count and skip malformed trace lines.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Clusters to try, e.g. `32x4,16x8`; a heterogeneous one joins its groups with `+`, e.g.
    /// `2x4:v100+6x4:k80`.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    cluster: Vec<String>,
    /// Throughput table for every run (see `run --help`).
    #[arg(long, value_name = "FILE")]
    throughputs: Option<PathBuf>,
    /// Round length in seconds [default: 300].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = round_secs)]
    round: Option<u64>,
    /// Admission policies to try, e.g. `accept-all,load-based:1.2`.
    #[arg(long, value_name = "LIST")]
    admission: Option<String>,
    /// Scheduling policies to try, e.g. `fifo,las,optimus`.
    #[arg(long, value_name = "LIST")]
    policy: Option<String>,
    /// Placements to try.
    #[arg(long, value_name = "LIST")]
    placement: Option<String>,
    /// Interconnect model for every run (see `run --help`).
    #[arg(long, value_name = "FILE|SHAPE")]
    topology: Option<String>,
    /// Throughput model for every run: placement or constant.
    #[arg(long, value_name = "MODEL")]
    throughput: Option<crate::ThroughputChoice>,
    /// Tracked job ids FIRST..LAST for every run.
    #[arg(long, value_name = "FIRST..LAST", allow_hyphen_values = true)]
    track: Option<String>,
    /// Seeds: a list and/or inclusive ranges, e.g. `1..5`.
    #[arg(long, value_name = "LIST", allow_negative_numbers = true)]
    seed: Option<String>,
    /// Exact semantics: preemption cost in seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = seconds)]
    preemption_cost: Option<f64>,
    /// Starvation threshold in seconds; 0 disables.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = whole_secs)]
    starvation: Option<u64>,
    /// Node events for every run (see `run --help`).
    #[arg(long, value_name = "FILE")]
    node_events: Option<PathBuf>,
    /// Random failures to try, separated by `;`, `none` for none, e.g.
    /// `none;mtbf=200,mttr=1;mtbf=50,mttr=1` (writes jct_vs_failure_rate.svg).
    #[arg(long, value_name = "LIST")]
    failures: Option<String>,
    /// Seconds between checkpoints, for every run (see `run --help`).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    checkpoint_interval: Option<f64>,
    /// Stop each run with an error once simulated time passes SECONDS (see `run --help`);
    /// needed with --failures.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = limit_secs)]
    max_sim_time: Option<f64>,
    /// Output folder: runs/LABEL/ per run, results.csv and results.json.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Run only the runs whose index is K mod N (K from 0), e.g. `--shard 0/4`.
    #[arg(long, value_name = "K/N")]
    shard: Option<blox_scenario::sweep::Shard>,
    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = threads)]
    threads: Option<usize>,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Job count, arrival span, GPU-count histogram, duration percentiles and offered load.
    Stats(TraceStatsArgs),
}

#[derive(Args)]
struct TraceStatsArgs {
    /// Trace files (merged by arrival).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Their format: canonical, philly, itp, pollux, gavel, tiresias, alibaba2023, helios.
    #[arg(long, value_name = "FORMAT", default_value = "canonical")]
    trace_format: String,
    /// Count and skip malformed lines.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Also give the offered load as a fraction of this cluster's GPUs.
    #[arg(long, value_name = "NODESxGPUS")]
    cluster: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct MergeArgs {
    /// The sweep's output folder.
    #[arg(value_name = "DIR")]
    out: PathBuf,
}

#[derive(Args)]
struct BenchArgs {
    /// How many times to run the README configuration.
    #[arg(long, default_value_t = 10, allow_negative_numbers = true, value_parser = repeat)]
    repeat: u32,
    /// Only the README configuration (skip the sweep, trace and scale figures).
    #[arg(long)]
    quick: bool,
    /// Only the Gavel figure: the 80 seed-0 runs of Gavel's physical-cluster traces in
    /// `--semantics gavel` (needs the traces folder).
    #[arg(long)]
    gavel: bool,
    /// Folder of the traces, for the ITP and Gavel figures [default: $BLOX_TRACES, else traces].
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
}

// Value parsers of the numeric flags: clap names the flag and the value, these say what is
// wrong with it (a negative number included, which clap would otherwise take for a flag).

fn whole(v: &str, what: &str, min: u64, max: u64) -> Result<u64, String> {
    let t = v.trim();
    let n = t.parse::<u64>().ok().or_else(|| {
        t.parse::<f64>()
            .ok()
            .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x < u64::MAX as f64)
            .map(|x| x as u64)
    });
    match n {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ if t.starts_with('-') => Err(format!("must be {what} (it is negative)")),
        _ => Err(format!("must be {what}")),
    }
}

fn real(v: &str, what: &str, ok: impl Fn(f64) -> bool) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && ok(x) => Ok(x),
        Ok(x) if x < 0.0 => Err(format!("must be {what} (it is negative)")),
        _ => Err(format!("must be {what}")),
    }
}

fn job_count(v: &str) -> Result<usize, String> {
    let max = crate::MAX_GENERATED_JOBS as u64;
    whole(v, &format!("a whole number of jobs in 1..={max}"), 1, max).map(|n| n as usize)
}

fn rate(v: &str) -> Result<f64, String> {
    let min = blox_scenario::MIN_LOAD;
    let what = format!(
        "a number of jobs per hour ≥ {min:e} (a mean inter-arrival time of at most 1e9 s, the \
         simulator's time bound)"
    );
    real(v, &what, |x| x >= min)
}

fn round_secs(v: &str) -> Result<u64, String> {
    let max = blox_scenario::MAX_ROUND_SECONDS;
    whole(
        v,
        &format!("a whole number of seconds in 1..={max}"),
        1,
        max,
    )
}

fn whole_secs(v: &str) -> Result<u64, String> {
    whole(v, "a whole number of seconds ≥ 0", 0, u64::MAX / 1000)
}

fn seconds(v: &str) -> Result<f64, String> {
    let max = blox_workload::MAX_TRACE_SECONDS;
    real(v, &format!("a number of seconds in 0..={max:e}"), |x| {
        (0.0..=max).contains(&x)
    })
}

fn limit_secs(v: &str) -> Result<f64, String> {
    let max = blox_workload::MAX_TRACE_SECONDS;
    real(v, &format!("a number of seconds in (0, {max:e}]"), |x| {
        x > 0.0 && x <= max
    })
}

fn seed(v: &str) -> Result<u64, String> {
    whole(
        v,
        &format!("a whole number in 0..={}", u64::MAX),
        0,
        u64::MAX,
    )
}

fn threads(v: &str) -> Result<usize, String> {
    whole(v, "a whole number of threads ≥ 1", 1, 4096).map(|n| n as usize)
}

fn repeat(v: &str) -> Result<u32, String> {
    whole(v, "a whole number ≥ 1", 1, u64::from(u32::MAX)).map(|n| n as u32)
}

/// Run the `blox-sim` command line with the arguments of this process and the stock
/// components.
pub fn main() -> ExitCode {
    main_with(Registry::default())
}

/// Run the `blox-sim` command line with the arguments of this process; names that are not
/// stock components are built through `registry` (in `run`, `compare`, `sweep` and scenario
/// files alike).
///
/// A whole `blox-sim` with one more policy:
///
/// ```no_run
/// use blox_cli::Registry;
/// use blox_policies::Srtf;
///
/// fn main() -> std::process::ExitCode {
///     blox_cli::main_with(
///         Registry::default().policy("my-srtf", |_spec, _env| Ok(Box::new(Srtf::default()))),
///     )
/// }
/// ```
pub fn main_with(registry: Registry) -> ExitCode {
    if let Err(e) = registry.check() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let cli = parse_with_registered_names(&registry);
    let reg = &registry;
    let result = match cli.command {
        None => compare(
            CompareArgs {
                scenario: ScenarioArgs::default(),
                pollux: PolluxArgs::default(),
                policy: "fifo,las,srtf".into(),
                placements: None,
                class_splits: None,
                out: None,
            },
            reg,
        ),
        Some(Command::Run(a)) => run(a, reg),
        Some(Command::Compare(a)) => compare(a, reg),
        Some(Command::Sweep(a)) => sweep(a, reg),
        Some(Command::Merge(a)) => merge(&a.out),
        Some(Command::Trace(TraceCommand::Stats(a))) => trace_stats(a),
        Some(Command::Bench(a)) if a.gavel => {
            blox_scenario::gavel::bench(&crate::bench::traces_dir(a.traces))
        }
        Some(Command::Bench(a)) => crate::bench::bench(a.repeat, a.quick, a.traces),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            // 2: the input is wrong (flags, files named that do not exist, scenario files,
            // traces); 1: a run that could not finish (stalled, an invalid decision, an output
            // that cannot be written). `--help` says so.
            match e {
                SimError::Io { ref source, .. }
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    ExitCode::from(2)
                }
                SimError::Io { .. } | SimError::Stalled(_) | SimError::InvalidDecision { .. } => {
                    ExitCode::from(1)
                }
                _ => ExitCode::from(2),
            }
        }
    }
}

/// Parse the command line, with `--help` of `run`, `compare` and `sweep` listing the names
/// `registry` adds to the stock ones.
fn parse_with_registered_names(registry: &Registry) -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let lists = [
        ("policy", registry.policy_names()),
        ("placement", registry.placement_names()),
        ("placements", registry.placement_names()),
        ("admission", registry.admission_names()),
    ];
    let mut cmd = Cli::command();
    for sub in ["run", "compare", "sweep"] {
        for (arg, names) in &lists {
            if names.is_empty() {
                continue;
            }
            let extra = format!(" Registered by this program: {}.", names.join(", "));
            cmd = cmd.mut_subcommand(sub, |c| {
                if c.get_arguments().any(|a| a.get_id() == *arg) {
                    c.mut_arg(*arg, |a| {
                        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                        a.help(format!("{help}{extra}"))
                    })
                } else {
                    c
                }
            });
        }
    }
    let matches = cmd.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

impl ScenarioArgs {
    fn build(&self) -> Result<Scenario, SimError> {
        let mut s = match &self.scenario {
            Some(path) => Scenario::from_file(path)?,
            None => Scenario::default(),
        };
        match self.semantics {
            Some(m @ (Model::Exact | Model::Blox | Model::Synergy)) => {
                s.semantics = m.engine().expect("an engine model")
            }
            // The Pollux preset keeps the scenario's semantics for what it shares (labels);
            // `run` and `compare` dispatch to it after building the scenario.
            Some(Model::Pollux) => {}
            Some(Model::Tiresias) => {
                return Err(SimError::Config(
                    "--semantics tiresias works with `blox-sim run` and `blox-sim compare` (on a \
                     trace)"
                        .into(),
                ))
            }
            Some(Model::Gavel) => {
                return Err(SimError::Config(
                    "--semantics gavel works with `blox-sim run` and `blox-sim compare` (on a \
                     gavel trace)"
                        .into(),
                ))
            }
            None => {}
        }
        if self.cluster_spec.is_some() {
            return Err(SimError::Config(
                "--cluster-spec goes with --semantics tiresias".into(),
            ));
        }
        let jobs = self.jobs.unwrap_or(crate::DEFAULT_GENERATED_JOBS);
        if !self.trace.is_empty() {
            let format = match &self.trace_format {
                Some(f) => f.clone(),
                None => detect_format(&self.trace[0])?,
            };
            s.workload = match self.resample {
                Some(load) => WorkloadConfig::Resample {
                    paths: self.trace.clone(),
                    format,
                    load,
                    jobs,
                },
                None => WorkloadConfig::Trace {
                    paths: self.trace.clone(),
                    format,
                    skip_bad_lines: self.skip_bad_lines,
                },
            };
        } else if self.trace_format.is_some() || self.skip_bad_lines {
            return Err(SimError::Config(
                "--trace-format and --skip-bad-lines need --trace FILE".into(),
            ));
        } else if self.workload.as_deref() == Some("poisson") {
            s.workload = WorkloadConfig::Poisson {
                load: self.load.unwrap_or(DEFAULT_LOAD),
                jobs,
                durations: self
                    .durations
                    .clone()
                    .unwrap_or_else(|| "philly-like".into()),
                gpus: self.gpus.clone().unwrap_or_else(|| "philly".into()),
            };
        } else if self.workload.as_deref() == Some("blox-multigpu-trace") {
            let path = self.blox_trace.clone().ok_or_else(|| {
                SimError::Config(
                    "--workload blox-multigpu-trace needs --blox-trace FILE (a Philly cluster_job_log)"
                        .into(),
                )
            })?;
            s.workload = WorkloadConfig::BloxMultigpuTrace {
                load: self.load.unwrap_or(DEFAULT_LOAD),
                path,
            };
        } else if self.workload.as_deref() == Some("blox-synthetic") {
            s.workload = WorkloadConfig::BloxSynthetic {
                load: self.load.unwrap_or(DEFAULT_LOAD),
            };
        } else if self.workload.as_deref() == Some("synergy-default")
            || (self.workload.is_none()
                && self.scenario.is_none()
                && s.semantics == Semantics::Synergy)
            || self.class_split.is_some()
        {
            let (old_load, old_split) = match &s.workload {
                WorkloadConfig::SynergyDefault { load, class_split } => {
                    (*load, class_split.clone())
                }
                _ => (
                    crate::SYNERGY_LOAD,
                    blox_synergy::ClassSplit::DEFAULT.label(),
                ),
            };
            if self
                .workload
                .as_deref()
                .is_some_and(|w| w != "synergy-default")
            {
                return Err(SimError::Config(
                    "--class-split goes with --workload synergy-default".into(),
                ));
            }
            let class_split = self.class_split.clone().unwrap_or(old_split);
            class_split
                .parse::<blox_synergy::ClassSplit>()
                .map_err(|e| SimError::Config(format!("--class-split: {e}")))?;
            s.workload = WorkloadConfig::SynergyDefault {
                load: self.load.unwrap_or(old_load),
                class_split,
            };
        } else if self.workload.as_deref() == Some("dual-load") {
            s.workload = WorkloadConfig::DualLoad {
                load: self.load.unwrap_or(9.0),
                jobs,
            };
        } else if self.durations.is_some() || self.gpus.is_some() {
            return Err(SimError::Config(
                "--durations and --gpus go with --workload poisson".into(),
            ));
        } else if self.blox_trace.is_some() {
            return Err(SimError::Config(
                "--blox-trace goes with --workload blox-multigpu-trace".into(),
            ));
        } else if self.workload.is_some() || self.load.is_some() || self.blox_trace_jobs.is_some() {
            let (old_load, old_n) = match s.workload {
                WorkloadConfig::BloxDefault { load, trace_jobs } => (load, trace_jobs),
                _ => (DEFAULT_LOAD, BLOX_TRACE_JOBS),
            };
            s.workload = WorkloadConfig::BloxDefault {
                load: self.load.unwrap_or(old_load),
                trace_jobs: self.blox_trace_jobs.unwrap_or(old_n),
            };
        }
        // `--jobs` sizes the finite generators (from a flag or a scenario file); anything else
        // would ignore it.
        if let Some(n) = self.jobs {
            match &mut s.workload {
                WorkloadConfig::Poisson { jobs, .. }
                | WorkloadConfig::DualLoad { jobs, .. }
                | WorkloadConfig::Resample { jobs, .. } => *jobs = n,
                _ => {
                    return Err(SimError::Config(
                        "--jobs sets how many jobs --workload poisson, --workload dual-load and \
                         --resample generate; this workload has no such count (Blox's and \
                         Synergy's generators are endless and --track picks the jobs measured; \
                         a trace has the jobs it has)"
                            .into(),
                    ))
                }
            }
        }
        // Synergy's own defaults under its semantics, unless a scenario file or a flag says
        // otherwise.
        if s.semantics == Semantics::Synergy && self.scenario.is_none() {
            s.cluster = crate::SYNERGY_CLUSTER.into();
            s.seed = crate::SYNERGY_SEED;
            s.placement = PlacementConfig::Synergy {
                mode: blox_placement::SynergyMode::Tune,
            }
            .into();
        }
        if let Some(v) = &self.cluster {
            s.cluster = v.clone();
        }
        if let Some(v) = self.node_cpus {
            s.node_cpus = Some(v);
        }
        if let Some(v) = self.node_mem {
            s.node_mem_gb = Some(v);
        }
        if let Some(v) = &self.throughputs {
            s.throughputs = Some(v.clone());
        }
        if let Some(v) = &self.reference_gpu_type {
            s.reference_gpu_type = v.clone();
        }
        if let Some(v) = self.round {
            s.round_s = v;
        }
        if let Some(v) = &self.admission {
            s.admission = v.clone();
        }
        if let Some(v) = &self.placement {
            s.placement = v.clone();
        }
        if let Some(v) = &self.topology {
            s.topology = Some(v.clone());
        }
        if let Some(v) = self.throughput {
            s.throughput_model = Some(v);
        }
        if let Some(v) = &self.track {
            s.track = Some(v.clone());
        }
        if let Some(v) = self.seed {
            s.seed = v;
        }
        if let Some(v) = self.preemption_cost {
            s.preemption_cost_s = v;
        }
        if let Some(v) = self.starvation {
            s.starvation_s = v;
        }
        if let Some(v) = &self.node_events {
            s.node_events = Some(v.clone());
        }
        if let Some(v) = &self.failures {
            s.failures = Some(v.clone());
        }
        if let Some(v) = &self.autoscale {
            s.autoscale = Some(v.clone());
        }
        if let Some(v) = self.checkpoint_interval {
            s.checkpoint_interval_s = Some(v);
        }
        if let Some(v) = self.decide {
            s.decide = Some(v);
        }
        if let Some(v) = self.max_sim_time {
            s.max_sim_time_s = Some(v);
        }
        // Validate everything up front so that errors come before any work: a bad value is
        // blamed on the flag that set it, else on the scenario file's key.
        s.check()
            .map_err(|bad| match (self.flag_of(bad.key), &self.scenario) {
                (Some(flag), _) => SimError::Config(format!("{flag}: {}", bad.message)),
                (None, Some(file)) => SimError::input(file, None, Some(bad.key), bad.message),
                (None, None) => SimError::Config(format!("{bad}")),
            })?;
        s.cluster_spec()?;
        s.sim_config()?;
        s.topology_model()?;
        s.policy_env()?;
        s.cluster_events()?;
        check_track_selects_jobs(&s)?;
        Ok(s)
    }
}

/// The format of `path`, recognised from its header when `--trace-format` is not given, and
/// said on standard error; an error naming the formats that fit when none or several do.
fn detect_format(path: &std::path::Path) -> Result<String, SimError> {
    use blox_workload::TraceFormat;
    let bytes = blox_workload::read_input(path)?;
    match TraceFormat::detect(&bytes) {
        Ok(f) => {
            eprintln!(
                "blox-sim: reading {} as --trace-format {f} (recognised from its header)",
                path.display()
            );
            Ok(f.name().to_string())
        }
        Err(several) if !several.is_empty() => Err(SimError::Config(format!(
            "{}: its header fits several trace formats ({}); say which with --trace-format",
            path.display(),
            several
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        Err(_) => {
            let needs: Vec<String> = TraceFormat::ALL
                .iter()
                .map(|f| match f.required_columns() {
                    [] if *f == TraceFormat::Philly => "philly (JSON)".to_string(),
                    [] => format!("{f} (tab-separated, no header)"),
                    sets => format!(
                        "{f} ({})",
                        sets.iter()
                            .map(|s| s.join(","))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                })
                .collect();
            Err(SimError::Config(format!(
                "{}: its first line fits no trace format; give --trace-format, one of: {}",
                path.display(),
                needs.join("; ")
            )))
        }
    }
}

/// A tracked window past the last job of a generator with a fixed count selects nothing: an
/// error, not a run that reports `tracked 0` and zero JCTs.
fn check_track_selects_jobs(s: &Scenario) -> Result<(), SimError> {
    let n = match &s.workload {
        WorkloadConfig::Poisson { jobs, .. }
        | WorkloadConfig::DualLoad { jobs, .. }
        | WorkloadConfig::Resample { jobs, .. } => *jobs,
        _ => return Ok(()),
    };
    match s.track_window()? {
        Some(w) if w.first as usize >= n => Err(SimError::Config(format!(
            "--track {}..{} selects no job: the workload has {n} jobs (ids 0..{}); use --jobs \
             {} or more, or a window inside it",
            w.first,
            w.last,
            n.saturating_sub(1),
            u64::from(w.last) + 1
        ))),
        _ => Ok(()),
    }
}

impl ScenarioArgs {
    /// The settings given on this command line (with the Pollux knobs of `pollux`).
    fn given(&self, pollux: &PolluxArgs) -> Vec<Setting> {
        let set = [
            (Setting::Scenario, self.scenario.is_some()),
            (Setting::Workload, self.workload.is_some()),
            (Setting::BloxTrace, self.blox_trace.is_some()),
            (Setting::ClassSplit, self.class_split.is_some()),
            (Setting::NodeCpus, self.node_cpus.is_some()),
            (Setting::NodeMem, self.node_mem.is_some()),
            (Setting::Jobs, self.jobs.is_some()),
            (Setting::Durations, self.durations.is_some()),
            (Setting::Gpus, self.gpus.is_some()),
            (Setting::Resample, self.resample.is_some()),
            (Setting::Load, self.load.is_some()),
            (Setting::BloxTraceJobs, self.blox_trace_jobs.is_some()),
            (Setting::Trace, !self.trace.is_empty()),
            (Setting::TraceFormat, self.trace_format.is_some()),
            (Setting::SkipBadLines, self.skip_bad_lines),
            (Setting::Cluster, self.cluster.is_some()),
            (Setting::ClusterSpec, self.cluster_spec.is_some()),
            (Setting::Throughputs, self.throughputs.is_some()),
            (Setting::ReferenceGpuType, self.reference_gpu_type.is_some()),
            (Setting::Round, self.round.is_some()),
            (Setting::Admission, self.admission.is_some()),
            (Setting::Placement, self.placement.is_some()),
            (Setting::Topology, self.topology.is_some()),
            (Setting::Throughput, self.throughput.is_some()),
            (Setting::Track, self.track.is_some()),
            (Setting::Seed, self.seed.is_some()),
            (Setting::PreemptionCost, self.preemption_cost.is_some()),
            (Setting::Starvation, self.starvation.is_some()),
            (Setting::NodeEvents, self.node_events.is_some()),
            (Setting::Failures, self.failures.is_some()),
            (Setting::Autoscale, self.autoscale.is_some()),
            (
                Setting::CheckpointInterval,
                self.checkpoint_interval.is_some(),
            ),
            (Setting::MaxSimTime, self.max_sim_time.is_some()),
            (Setting::Decide, self.decide.is_some()),
            (Setting::PolluxTraces, pollux.pollux_traces.is_some()),
            (Setting::Interference, pollux.interference.is_some()),
            (
                Setting::NoInterferenceAvoidance,
                pollux.no_interference_avoidance,
            ),
            (Setting::Generations, pollux.generations.is_some()),
        ];
        set.into_iter()
            .filter(|(_, on)| *on)
            .map(|(s, _)| s)
            .collect()
    }

    /// The model these flags run under, and the flags it does not take refused.
    fn model(&self, pollux: &PolluxArgs) -> Result<Model, SimError> {
        let model = self.semantics.unwrap_or_default();
        model.check(&self.given(pollux)).map_err(SimError::Config)?;
        Ok(model)
    }

    /// The flag that set the scenario key `key` on this command line, if one did.
    fn flag_of(&self, key: &str) -> Option<&'static str> {
        let given = match key {
            "cluster" => self.cluster.is_some(),
            "round_s" => self.round.is_some(),
            "preemption_cost_s" => self.preemption_cost.is_some() || self.semantics.is_some(),
            "track" => self.track.is_some(),
            "workload.load" => self.load.is_some() || self.resample.is_some(),
            "workload.jobs" => self.jobs.is_some(),
            "workload.trace_jobs" => self.blox_trace_jobs.is_some(),
            "workload.durations" => self.durations.is_some(),
            "workload.gpus" => self.gpus.is_some() || self.cluster.is_some(),
            "workload.format" => self.trace_format.is_some(),
            "workload.paths" => !self.trace.is_empty(),
            "topology" => self.topology.is_some() || self.cluster.is_some(),
            "max_sim_time_s" => self.max_sim_time.is_some(),
            "failures" => self.failures.is_some(),
            "autoscale" => self.autoscale.is_some(),
            _ => false,
        };
        // With no scenario file every value came from a flag or a default.
        if !given && self.scenario.is_some() {
            return None;
        }
        Some(match key {
            "cluster" => "--cluster",
            "round_s" => "--round",
            "preemption_cost_s" => "--preemption-cost",
            "track" => "--track",
            "workload.load" if self.resample.is_some() => "--resample",
            "workload.load" => "--load",
            "workload.jobs" => "--jobs",
            "workload.trace_jobs" => "--blox-trace-jobs",
            "workload.durations" => "--durations",
            "workload.gpus" => "--gpus",
            "workload.format" => "--trace-format",
            "workload.paths" => "--trace",
            "topology" => "--topology",
            "max_sim_time_s" => "--max-sim-time",
            "failures" => "--failures",
            "autoscale" => "--autoscale",
            _ => return None,
        })
    }
}

/// `run --semantics gavel`: checks that only flags Gavel's simulator has are given.
fn gavel_run(a: RunArgs, reg: &Registry) -> Result<(), SimError> {
    let policy = a
        .policy
        .map(|p| p.to_string())
        .unwrap_or_else(|| "fifo".into());
    let run = gavel_settings(&a.scenario, policy, a.out, reg)?;
    blox_scenario::gavel::run_cli(&run)
}

/// `compare --semantics gavel`: each policy on Gavel's clock.
fn gavel_compare(a: &CompareArgs, reg: &Registry) -> Result<(), SimError> {
    if a.placements.is_some() || a.class_splits.is_some() {
        return Err(SimError::Config(
            "--placements and --class-splits do not apply to --semantics gavel (Gavel's round \
             fill is its placement)"
                .into(),
        ));
    }
    let runs = split_specs(&a.policy)
        .into_iter()
        .map(|p| {
            let dir = a.out.as_ref().map(|d| d.join(dir_name(&p)));
            gavel_settings(&a.scenario, p.clone(), dir, reg).map(|r| (p, r))
        })
        .collect::<Result<Vec<_>, _>>()?;
    blox_scenario::gavel::compare_cli(&runs, a.out.as_deref())
}

/// The `--semantics gavel` run the flags describe.
fn gavel_settings(
    sc: &ScenarioArgs,
    policy: String,
    out: Option<PathBuf>,
    reg: &Registry,
) -> Result<blox_scenario::gavel::GavelRun, SimError> {
    // Which flags Gavel's simulator takes is `Model::Gavel`'s data, checked by the caller.
    let trace = match sc.trace.as_slice() {
        [one] => one.clone(),
        _ => {
            return Err(SimError::Config(
                "--semantics gavel needs exactly one --trace FILE (a Gavel *.trace)".into(),
            ))
        }
    };
    if let Some(f) = sc.trace_format.as_deref() {
        if f != "gavel" {
            return Err(SimError::Config(format!(
                "--trace-format {f}: --semantics gavel reads Gavel traces (--trace-format gavel)"
            )));
        }
    }
    let run = blox_scenario::gavel::GavelRun {
        trace,
        throughputs: sc.throughputs.clone(),
        cluster: sc.cluster.clone().ok_or_else(|| {
            SimError::Config(
                "--semantics gavel needs --cluster, e.g. 8x1:v100 or 4x1:v100,4x1:p100,4x1:k80"
                    .into(),
            )
        })?,
        round_s: sc.round.unwrap_or(360),
        seed: sc.seed.unwrap_or(0),
        policy,
        out,
        registry: reg.clone(),
    };
    Ok(run)
}

/// Fails before any work when `dir` cannot be an output folder: it (or a parent) exists and is
/// not a folder, or the folder it would be made in cannot be written.
fn check_out(dir: &std::path::Path) -> Result<(), SimError> {
    let mut at = dir;
    loop {
        match std::fs::metadata(at) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => {
                return Err(SimError::Config(format!(
                    "--out {}: {} exists and is not a folder (nothing was run)",
                    dir.display(),
                    at.display()
                )))
            }
            Err(_) => match at.parent() {
                Some(p) if !p.as_os_str().is_empty() => at = p,
                _ => {
                    at = std::path::Path::new(".");
                    break;
                }
            },
        }
    }
    let probe = at.join(format!(".blox-write-check-{}", std::process::id()));
    std::fs::create_dir(&probe)
        .and_then(|()| std::fs::remove_dir(&probe))
        .map_err(|e| {
            SimError::Config(format!(
                "--out {}: cannot write in {} ({e}; nothing was run)",
                dir.display(),
                at.display()
            ))
        })
}

/// Builds the policy and admission `s` names, so that an unknown name in a list is refused
/// before any run starts (and writes its output).
fn check_names(s: &Scenario, reg: &Registry) -> Result<(), SimError> {
    if s.semantics != Semantics::Synergy {
        let env = s.policy_env()?;
        blox_scenario::preset::build_policy(s.semantics, reg, &s.policy, &env)?;
    }
    reg.build_admission(&s.admission)?;
    Ok(())
}

fn run(a: RunArgs, reg: &Registry) -> Result<(), SimError> {
    if let Some(out) = &a.out {
        check_out(out)?;
    }
    let model = a.scenario.semantics.unwrap_or_default();
    let pollux_opts = a.pollux.options(model == Model::Pollux)?;
    let model = a.scenario.model(&a.pollux)?;
    // The one place a model is chosen: the peers with runs of their own, or the engine's
    // `Driver` (exact, blox, synergy and Pollux's preset).
    let pollux = match model {
        Model::Tiresias => return run_tiresias(a, reg),
        Model::Gavel => return gavel_run(a, reg),
        Model::Pollux => true,
        Model::Exact | Model::Blox | Model::Synergy => false,
    };
    let mut s = a.scenario.build()?;
    if let Some(p) = a.policy {
        s.policy = p;
    }
    if let Some(out) = a.out {
        s.out = Some(out);
    }
    if let Some(out) = &s.out {
        check_out(out)?;
    }
    use blox_scenario::progress::ProgressMode;
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mode = match (a.progress.as_str(), terminal) {
        ("never", _) | ("auto", false) => ProgressMode::Off,
        (_, true) => ProgressMode::Terminal,
        (_, false) => ProgressMode::Lines,
    };
    let started = Instant::now();
    let report = if pollux {
        blox_scenario::pollux::run_observed(&s, &pollux_opts, reg, mode)?
    } else {
        s.run_observed(reg, mode, true)
            .map_err(|e| explain_stall(e, &s))?
    };
    let elapsed = started.elapsed();
    let mut row = report.metrics.row();
    row.preemptions = report.outcome.preemptions;
    print!("{}", blox_metrics::comparison_table(&[row]));
    if let Some(jct) = report.synergy_jct() {
        // Synergy's own report of the tracked jobs' JCTs, in its form (hours).
        print!("\n{}", jct.synergy_lines());
    }
    let label = if pollux {
        format!(
            "pollux {}/{}",
            report.scenario.admission, report.scenario.policy
        )
    } else {
        report.scenario.label()
    };
    println!(
        "\n{} | {} GPUs ({}) | {} | end {} s after {} rounds ({} simulated) | {:.3} s wall",
        label,
        report.scenario.cluster_spec()?.total_gpus(),
        report.scenario.cluster,
        workload_label(&report.scenario),
        report.outcome.end_time,
        report.outcome.rounds,
        report.outcome.rounds_processed,
        elapsed.as_secs_f64()
    );
    if let Some(out) = &report.scenario.out {
        println!(
            "wrote {}/{{jobs.csv,summary.json,timeline.csv}}",
            out.display()
        );
    }
    Ok(())
}

/// The `--semantics tiresias` run the flags describe (for `run` and `compare`): refuses the
/// flags Tiresias' model has no meaning for.
fn tiresias_args(
    sc: &ScenarioArgs,
    policy: Option<String>,
    placement: Option<String>,
    out: Option<PathBuf>,
    reg: &Registry,
) -> Result<blox_scenario::tiresias::TiresiasArgs, SimError> {
    // Which flags Tiresias' simulator takes is `Model::Tiresias`'s data, checked by the caller.
    Ok(blox_scenario::tiresias::TiresiasArgs {
        trace: sc.trace.clone(),
        trace_format: sc.trace_format.clone(),
        skip_bad_lines: sc.skip_bad_lines,
        cluster: sc.cluster.clone(),
        cluster_spec: sc.cluster_spec.clone(),
        policy,
        placement,
        out,
        registry: reg.clone(),
    })
}

/// `run --semantics tiresias`: Tiresias' own model, with its schedules and placements or any
/// engine policy and placement.
fn run_tiresias(a: RunArgs, reg: &Registry) -> Result<(), SimError> {
    let sc = &a.scenario;
    let args = tiresias_args(
        sc,
        a.policy.as_ref().map(|p| p.to_string()),
        sc.placement.as_ref().map(|p| p.to_string()),
        a.out.clone(),
        reg,
    )?;
    let started = Instant::now();
    let r = args.run()?;
    let mut row = r.metrics.row();
    row.preemptions = r.run.rows.iter().map(|r| u64::from(r.preempt)).sum();
    print!("{}", blox_metrics::comparison_table(&[row]));
    println!(
        "\ntiresias {}/{} | {} GPUs (spec {}) | {} of {} jobs completed, {} | mean JCT {:.1} s, \
         makespan {} s | {} events | {:.3} s wall",
        r.policy,
        r.placement,
        r.cluster.total_gpus(),
        r.cluster,
        r.run.rows.len(),
        r.run.jobs.len(),
        r.stop_text(),
        r.avg_jct_s(),
        r.makespan_s(),
        r.run.events,
        started.elapsed().as_secs_f64()
    );
    if let Some(out) = &a.out {
        println!(
            "wrote {}/{{jobs.csv,job.csv,summary.json,timeline.csv,jct_cdf.csv}}",
            out.display()
        );
    }
    Ok(())
}

/// `sweep --semantics`: one of the engine's semantics; a peer's says which commands take it.
fn sweep_semantics(s: &str) -> Result<Semantics, String> {
    let s = s.trim();
    match blox_scenario::peer_semantics_hint(s) {
        Some(hint) => Err(hint),
        None => s.parse(),
    }
}

/// `compare --semantics tiresias`: each policy (Tiresias' schedules or engine policies) with
/// each placement on Tiresias' model, one row each.
fn compare_tiresias(a: &CompareArgs, reg: &Registry) -> Result<(), SimError> {
    if a.class_splits.is_some() {
        return Err(SimError::Config(
            "--class-splits goes with --workload synergy-default, not --semantics tiresias".into(),
        ));
    }
    let policies = split_specs(&a.policy);
    let placements: Vec<Option<String>> = match &a.placements {
        Some(list) => split_specs(list).into_iter().map(Some).collect(),
        None => vec![a.scenario.placement.as_ref().map(|p| p.to_string())],
    };
    let several_placements = placements.len() > 1;
    let out = a.out.clone();
    let mut runs = Vec::new();
    for placement in &placements {
        for p in &policies {
            let name = match (several_placements, placement) {
                (true, Some(pl)) => format!("{p}+{pl}"),
                _ => p.clone(),
            };
            let dir = out.as_ref().map(|d| d.join(dir_name(&name)));
            runs.push(tiresias_args(
                &a.scenario,
                Some(p.clone()),
                placement.clone(),
                dir,
                reg,
            )?);
        }
    }
    let started = Instant::now();
    let results: Vec<Result<blox_scenario::tiresias::TiresiasReport, SimError>> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = runs.iter().map(|r| scope.spawn(move || r.run())).collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a simulation thread panicked"))
                .collect()
        });
    let reports = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let rows: Vec<blox_metrics::ComparisonRow> = reports
        .iter()
        .map(|r| {
            let mut row = r.metrics.row();
            if several_placements {
                row.label = format!("{}+{}", r.policy, r.placement);
            }
            row.preemptions = r.run.rows.iter().map(|x| u64::from(x.preempt)).sum();
            row
        })
        .collect();
    print!("{}", blox_metrics::comparison_table(&rows));
    let first = &reports[0];
    println!(
        "\ntiresias semantics | {} GPUs (spec {}) | {} | {:.2} s wall",
        first.cluster.total_gpus(),
        first.cluster,
        match a.scenario.trace.as_slice() {
            [one] => format!("trace {}", one.display()),
            many => format!("{} trace files", many.len()),
        },
        started.elapsed().as_secs_f64()
    );
    for r in &reports {
        if r.run.rows.len() < r.run.jobs.len() {
            println!(
                "{}/{}: {} of {} jobs completed, {}",
                r.policy,
                r.placement,
                r.run.rows.len(),
                r.run.jobs.len(),
                r.stop_text()
            );
        }
    }
    if let Some(dir) = &out {
        let series: Vec<(&str, &[f64])> = rows
            .iter()
            .zip(&reports)
            .map(|(row, r)| (row.label.as_str(), r.metrics.jcts_s.as_slice()))
            .collect();
        write_comparison(dir, &series, &rows)?;
    }
    Ok(())
}

fn compare(a: CompareArgs, reg: &Registry) -> Result<(), SimError> {
    let model = a.scenario.semantics.unwrap_or_default();
    let pollux_opts = a.pollux.options(model == Model::Pollux)?;
    let model = a.scenario.model(&a.pollux)?;
    let pollux = match model {
        Model::Tiresias => return compare_tiresias(&a, reg),
        Model::Gavel => return gavel_compare(&a, reg),
        Model::Pollux => true,
        Model::Exact | Model::Blox | Model::Synergy => false,
    };
    let base = a.scenario.build()?;
    let policies: Vec<Named<PolicyConfig>> = parse_list(&Some(a.policy.clone()), "policy")?;
    let mut placements: Vec<Named<PlacementConfig>> = parse_list(&a.placements, "placements")?;
    if placements.is_empty() {
        placements.push(base.placement.clone());
    }
    let splits: Vec<Option<String>> = match &a.class_splits {
        None => vec![None],
        Some(list) => {
            let WorkloadConfig::SynergyDefault { .. } = base.workload else {
                return Err(SimError::Config(
                    "--class-splits goes with --workload synergy-default".into(),
                ));
            };
            list.split('/')
                .map(|x| {
                    x.trim()
                        .parse::<blox_synergy::ClassSplit>()
                        .map(|c| Some(c.label()))
                        .map_err(|e| SimError::Config(format!("--class-splits: {e}")))
                })
                .collect::<Result<_, _>>()?
        }
    };
    let several_placements = placements.len() > 1;
    let mut scenarios: Vec<Scenario> = Vec::new();
    for split in &splits {
        for placement in &placements {
            for p in &policies {
                let mut s = base.clone();
                s.policy = p.clone();
                s.placement = placement.clone();
                if let (Some(split), WorkloadConfig::SynergyDefault { class_split, .. }) =
                    (split, &mut s.workload)
                {
                    *class_split = split.clone();
                }
                let name = if s.semantics == Semantics::Synergy {
                    s.run_name()
                } else if several_placements {
                    format!("{p}+{placement}")
                } else {
                    p.to_string()
                };
                s.out = a
                    .out
                    .as_ref()
                    .or(base.out.as_ref())
                    .map(|d| d.join(dir_name(&name)));
                scenarios.push(s);
            }
        }
    }
    if let Some(dir) = a.out.as_ref().or(base.out.as_ref()) {
        check_out(dir)?;
    }
    if !pollux {
        for s in &scenarios {
            check_names(s, reg)?;
        }
    }
    let started = Instant::now();
    let results: Vec<Result<RunReport, SimError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| {
                // One overload warning for the comparison (every policy sees the same jobs).
                let opts = &pollux_opts;
                scope.spawn(move || {
                    if pollux {
                        blox_scenario::pollux::run(s, opts, reg)
                    } else {
                        s.run_observed(reg, blox_scenario::progress::ProgressMode::Off, i == 0)
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a simulation thread panicked"))
            .collect()
    });
    let reports = results
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| explain_stall(e, &base))?;
    let rows: Vec<blox_metrics::ComparisonRow> = reports
        .iter()
        .map(|r| {
            let mut row = r.metrics.row();
            row.preemptions = r.outcome.preemptions;
            row
        })
        .collect();
    print!("{}", blox_metrics::comparison_table(&rows));
    println!(
        "\n{} semantics | {} GPUs ({}) | {} | admission {} | placement {} | jobs {} tracked | {:.2} s wall",
        if pollux {
            "pollux".to_string()
        } else {
            base.semantics.to_string()
        },
        base.cluster_spec()?.total_gpus(),
        base.cluster,
        workload_label(&base),
        base.admission,
        base.placement,
        base.track_window()?.map_or_else(|| "all".to_string(), |w| w.to_string()),
        started.elapsed().as_secs_f64()
    );
    if let Some(dir) = a.out.as_ref().or(base.out.as_ref()) {
        let series: Vec<(&str, &[f64])> = reports
            .iter()
            .map(|r| (r.metrics.label.as_str(), r.metrics.jcts_s.as_slice()))
            .collect();
        write_comparison(dir, &series, &rows)?;
    }
    Ok(())
}

/// A stall in `blox` semantics with Blox's scattered placement is Blox's own behaviour: say so,
/// and how to run the workload anyway.
fn explain_stall(e: SimError, s: &Scenario) -> SimError {
    let blox_scattered = s.semantics == Semantics::Blox
        && matches!(s.placement.stock(), Some(PlacementConfig::Scattered));
    match e {
        SimError::Stalled(m) if blox_scattered && m.contains("placement can never start") => {
            SimError::Stalled(format!(
            "{m}\n  note: Blox itself stalls here. Its scattered fit takes up to the job's GPU count \
             from each node in turn and succeeds only when the total is exactly the count, so a \
             job such as 12 GPUs on idle 8-GPU nodes (8, then 16) is never placed; and its strict \
             order lets that job block every job behind it. `--semantics exact` (true fits) or \
             `--placement first-fit` runs this workload"
            ))
        }
        other => other,
    }
}

/// Split a comma list of component specs, keeping `key=value` parameters with their component:
/// `tiresias:queues=2,threshold=3600,las` gives `tiresias:queues=2,threshold=3600` and `las`.
fn split_specs(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in s.split(',') {
        match out.last_mut() {
            Some(prev) if part.contains('=') && !part.contains(':') => {
                prev.push(',');
                prev.push_str(part);
            }
            _ => out.push(part.trim().to_string()),
        }
    }
    out
}

fn parse_list<T: std::str::FromStr>(s: &Option<String>, what: &str) -> Result<Vec<T>, SimError>
where
    T::Err: std::fmt::Display,
{
    s.as_deref().map_or(Ok(Vec::new()), |s| {
        split_specs(s)
            .iter()
            .map(|x| {
                x.parse::<T>()
                    .map_err(|e| SimError::Config(format!("--{what}: {e}")))
            })
            .collect()
    })
}

/// The most values one `A..B` range of a sweep may expand to.
const MAX_RANGE_VALUES: u64 = 10_000;

/// `1..9,12,0.5` → 1, 2, …, 9, 12, 0.5.
fn parse_numbers(s: &Option<String>, what: &str) -> Result<Vec<f64>, SimError> {
    let Some(s) = s else { return Ok(Vec::new()) };
    let bad = |x: &str| {
        SimError::Config(format!(
            "--{what}: `{x}` is not a number or an integer range A..B"
        ))
    };
    let mut out = Vec::new();
    for item in s.split(',') {
        let item = item.trim();
        if let Some((a, b)) = item.split_once("..") {
            let a: i64 = a.trim().parse().map_err(|_| bad(item))?;
            let b: i64 = b.trim().parse().map_err(|_| bad(item))?;
            if a > b {
                return Err(SimError::Config(format!(
                    "--{what}: the range `{item}` is reversed (its first value is after its last; \
                     write {b}..{a})"
                )));
            }
            let n = (b as i128 - a as i128 + 1) as u128;
            if n > MAX_RANGE_VALUES as u128 {
                return Err(SimError::Config(format!(
                    "--{what}: the range `{item}` holds {n} values, more than the {MAX_RANGE_VALUES} \
                     a sweep range may hold"
                )));
            }
            out.extend((a..=b).map(|x| x as f64));
        } else {
            let x: f64 = item.parse().map_err(|_| bad(item))?;
            if !x.is_finite() {
                return Err(bad(item));
            }
            out.push(x);
        }
    }
    Ok(out)
}

fn sweep(a: SweepArgs, reg: &Registry) -> Result<(), SimError> {
    use blox_scenario::sweep::{run_one_with, Sweep};
    use rayon::prelude::*;
    let base_args = ScenarioArgs {
        scenario: a.scenario.clone(),
        trace: a.trace.clone(),
        trace_format: a.trace_format.clone(),
        skip_bad_lines: a.skip_bad_lines,
        topology: a.topology.clone(),
        throughput: a.throughput,
        throughputs: a.throughputs.clone(),
        blox_trace_jobs: a.blox_trace_jobs,
        round: a.round,
        track: a.track.clone(),
        preemption_cost: a.preemption_cost,
        starvation: a.starvation,
        node_events: a.node_events.clone(),
        checkpoint_interval: a.checkpoint_interval,
        max_sim_time: a.max_sim_time,
        ..ScenarioArgs::default()
    };
    let base = base_args.build()?;
    let seeds = parse_numbers(&a.seed, "seed")?;
    if seeds.iter().any(|s| *s < 0.0 || s.fract() != 0.0) {
        return Err(SimError::Config("--seed takes whole numbers".into()));
    }
    let sweep = Sweep {
        base,
        semantics: a.semantics.clone(),
        clusters: a.cluster.clone(),
        admissions: parse_list(&a.admission, "admission")?,
        policies: parse_list(&a.policy, "policy")?,
        placements: parse_list(&a.placement, "placement")?,
        loads: parse_numbers(&a.load, "load")?,
        seeds: seeds.iter().map(|&s| s as u64).collect(),
        failures: a
            .failures
            .as_deref()
            .map(|l| {
                l.split(';')
                    .map(str::trim)
                    .map(|f| (f != "none").then(|| f.to_owned()))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let all = sweep.runs()?;
    for r in &all {
        r.scenario.check().map_err(|bad| {
            let flag = match bad.key {
                "workload.load" => "--load",
                "cluster" => "--cluster",
                "failures" => "--failures",
                _ => "",
            };
            if flag.is_empty() {
                SimError::Config(format!("run {} ({}): {bad}", r.index, r.label))
            } else {
                SimError::Config(format!("{flag}: {}", bad.message))
            }
        })?;
        r.scenario.cluster_spec()?;
        r.scenario.sim_config()?;
        r.scenario.failure_spec()?;
        check_names(&r.scenario, reg)
            .map_err(|e| SimError::Config(format!("run {} ({}): {e}", r.index, r.label)))?;
    }
    check_out(&a.out)?;
    let mine: Vec<_> = all
        .iter()
        .filter(|r| a.shard.map_or(true, |s| s.contains(r.index)))
        .collect();
    std::fs::create_dir_all(&a.out).map_err(|e| SimError::io(&a.out, e))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| SimError::Config(format!("--threads: {e}")))?;
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = indicatif::ProgressBar::new(mine.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs, {elapsed} elapsed, ETA {eta} {msg}",
            )
            .expect("a valid template"),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let started = Instant::now();
    let results: Vec<Result<bool, SimError>> = pool.install(|| {
        mine.par_iter()
            .map(|r| {
                let res = run_one_with(r, &a.out, reg)
                    .map_err(|e| SimError::Config(format!("run {} ({}): {e}", r.index, r.label)));
                bar.inc(1);
                res
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut ran = 0;
    let mut skipped = 0;
    let mut failed = Vec::new();
    for r in results {
        match r {
            Ok(true) => ran += 1,
            Ok(false) => skipped += 1,
            Err(e) => failed.push(e),
        }
    }
    let rows = blox_scenario::sweep::merge(&a.out)?;
    print_rows(&rows);
    println!(
        "\n{} runs in this {}: {ran} ran, {skipped} already done, {} failed; {:.2} s wall on {} threads; results in {}/results.csv",
        mine.len(),
        a.shard.map_or_else(|| "sweep".to_string(), |s| format!("shard {}/{}", s.k, s.n)),
        failed.len(),
        started.elapsed().as_secs_f64(),
        pool.current_num_threads(),
        a.out.display()
    );
    if let Some(e) = failed.into_iter().next() {
        return Err(e);
    }
    Ok(())
}

fn trace_stats(a: TraceStatsArgs) -> Result<(), SimError> {
    let format: blox_workload::TraceFormat = a
        .trace_format
        .parse()
        .map_err(|e: blox_workload::UnknownFormat| SimError::Config(e.to_string()))?;
    let total = match &a.cluster {
        Some(c) => Some(
            c.parse::<blox_core::ClusterSpec>()
                .map_err(|e| SimError::Config(e.0))?
                .total_gpus(),
        ),
        None => None,
    };
    let inputs: Vec<_> = a.files.iter().map(|p| (p.clone(), format)).collect();
    let opts = blox_workload::ReadOptions::default().with_skip_bad_lines(a.skip_bad_lines);
    let read = blox_workload::read_traces(&inputs, &opts)?;
    blox_scenario::every_line_bad(&read)?;
    let stats = blox_workload::TraceStats::compute(&read.jobs, total);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&stats).expect("serialising to memory")
        );
    } else {
        print!("{stats}");
        if read.bad_line_count > 0 {
            println!("skipped malformed lines: {}", read.bad_line_count);
            for e in &read.bad_lines {
                println!("  {e}");
            }
        }
        for (why, n) in &read.filtered {
            println!("left out ({why}): {n}");
        }
    }
    Ok(())
}

fn merge(out: &std::path::Path) -> Result<(), SimError> {
    let rows = blox_scenario::sweep::merge(out)?;
    print_rows(&rows);
    println!(
        "\n{} runs merged into {}/results.csv and results.json",
        rows.len(),
        out.display()
    );
    Ok(())
}

fn print_rows(rows: &[blox_scenario::sweep::SweepRow]) {
    println!(
        "{:>5} {:<7} {:<16} {:<10} {:<10} {:>6} {:>5} {:>12} {:>12} {:>12}",
        "index",
        "sem.",
        "admission",
        "policy",
        "placement",
        "load",
        "seed",
        "avg JCT (h)",
        "p99 JCT (h)",
        "preemptions"
    );
    for r in rows {
        println!(
            "{:>5} {:<7} {:<16} {:<10} {:<10} {:>6} {:>5} {:>12.2} {:>12.2} {:>12}",
            r.index,
            r.semantics,
            r.admission,
            r.policy,
            r.placement,
            r.load.map_or_else(|| "-".into(), |l| l.to_string()),
            r.seed,
            r.avg_jct_s / 3600.0,
            r.p99_jct_s / 3600.0,
            r.preemptions_total
        );
    }
}

/// A folder name for a component spec: `tiresias:queues=2` becomes `tiresias-queues-2`.
fn dir_name(spec: &str) -> String {
    spec.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

fn write_comparison(
    dir: &std::path::Path,
    series: &[(&str, &[f64])],
    rows: &[blox_metrics::ComparisonRow],
) -> Result<(), SimError> {
    let io = |e: std::io::Error| SimError::io(dir, e);
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut csv = Vec::new();
    blox_metrics::write_comparison_csv(&mut csv, rows).map_err(io)?;
    let mut json = Vec::new();
    blox_metrics::write_comparison_json(&mut json, rows).map_err(io)?;
    let mut svg = Vec::new();
    blox_metrics::plot_jct_cdf(&mut svg, "JCT CDF of the tracked jobs", series)
        .map_err(|e| SimError::Config(format!("CDF plot: {e}")))?;
    blox_scenario::write_all_or_nothing(
        dir,
        &[
            ("compare.csv", csv),
            ("compare.json", json),
            ("jct_cdf.svg", svg),
        ],
    )?;
    println!(
        "wrote {}/{{compare.csv,compare.json,jct_cdf.svg}} and one folder per policy",
        dir.display()
    );
    Ok(())
}

fn workload_label(s: &Scenario) -> String {
    match &s.workload {
        WorkloadConfig::BloxDefault { load, .. } => {
            format!("blox-default at {load} jobs/h, seed {}", s.seed)
        }
        WorkloadConfig::BloxMultigpuTrace { load, path } => format!(
            "blox-multigpu-trace ({}) at {load} jobs/h, seed {}",
            path.display(),
            s.seed
        ),
        WorkloadConfig::BloxSynthetic { load } => {
            format!("blox-synthetic at {load} jobs/h, seed {}", s.seed)
        }
        WorkloadConfig::Trace { paths, format, .. } => match paths.as_slice() {
            [one] => format!("trace {} ({format})", one.display()),
            many => format!("{} trace files ({format})", many.len()),
        },
        WorkloadConfig::Poisson {
            load,
            jobs,
            durations,
            gpus,
        } => {
            format!("poisson, {jobs} jobs at {load} jobs/h, durations {durations}, GPUs {gpus}, seed {}", s.seed)
        }
        WorkloadConfig::DualLoad { load, jobs } => format!(
            "dual-load, {jobs} jobs at base {load} jobs/h, seed {}",
            s.seed
        ),
        WorkloadConfig::SynergyDefault { load, class_split } => format!(
            "synergy-default at {load} jobs/h, split {class_split}, seed {}",
            s.seed
        ),
        WorkloadConfig::Resample {
            load, jobs, format, ..
        } => {
            format!(
                "{format} trace resampled: {jobs} jobs at {load} jobs/h, seed {}",
                s.seed
            )
        }
    }
}

/// For the fuzz targets (`blox-workload/fuzz`, target `cli_args`), not an API: parse
/// `blox-sim run ARGS` and check it as `run` does before any work (each flag's value, the
/// scenario built from them, the component names), without running or writing anything.
/// `Ok(None)` for the peer semantics whose runs check their own flags (Tiresias, Gavel).
#[doc(hidden)]
pub fn check_run_args(args: &[String]) -> Result<Option<Scenario>, String> {
    use clap::Parser;
    let argv = ["blox-sim".to_string(), "run".to_string()];
    let cli = Cli::try_parse_from(argv.into_iter().chain(args.iter().cloned()))
        .map_err(|e| e.to_string())?;
    let Some(Command::Run(a)) = cli.command else {
        return Err("not a run".into());
    };
    let model = a.scenario.semantics.unwrap_or_default();
    a.pollux
        .options(model == Model::Pollux)
        .map_err(|e| e.to_string())?;
    let model = a.scenario.model(&a.pollux).map_err(|e| e.to_string())?;
    if matches!(model, Model::Tiresias | Model::Gavel) {
        return Ok(None);
    }
    let mut s = a.scenario.build().map_err(|e| e.to_string())?;
    if let Some(p) = a.policy {
        s.policy = p;
    }
    check_names(&s, &Registry::default()).map_err(|e| e.to_string())?;
    Ok(Some(s))
}
