//! The `blox-cluster` program as a library: `serve` runs the scheduler over a real backend;
//! `submit`, `status`, `cancel` and `nodes` talk to a running server. [`main_with`] runs it
//! with a user's component registry, so a registered policy runs in real mode by its name.

use crate::{
    parse_nodes, read_token, request, ClusterError, HttpLimits, JobLogs, LocalConfig,
    LocalExecutor, LoopConfig, RoundLoop, SlurmConfig, SlurmExecutor, Store,
};
use blox_admission::AdmissionConfig;
use blox_core::{Pipeline, Time};
use blox_placement::PlacementConfig;
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_scenario::{Named, Registry};
use clap::{Args, Parser, Subcommand, ValueEnum};
use nix::sys::signal::Signal;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Run a Blox scheduler over real jobs: local processes (fake or real GPUs) or Slurm.
#[derive(Parser)]
#[command(name = "blox-cluster", version)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the scheduler and its HTTP API (jobs keep running if it stops; a restart adopts them).
    Serve(ServeArgs),
    /// Submit a job: `blox-cluster submit --gpus 2 -- python3 train.py`.
    Submit(SubmitArgs),
    /// Show every job, or one.
    Status {
        #[command(flatten)]
        conn: Conn,
        /// Submission id.
        id: Option<i64>,
    },
    /// Cancel a job (preempted with the grace period if it runs).
    Cancel {
        #[command(flatten)]
        conn: Conn,
        /// Submission id.
        id: i64,
    },
    /// Show nodes, GPUs and which job holds each; or `nodes drain|remove|add NODE` to take a
    /// node out of placement (drain: its jobs stop with the grace period; remove: at once; both
    /// are requeued) or put it back.
    Nodes {
        #[command(flatten)]
        conn: Conn,
        /// `drain`, `remove` or `add`.
        #[arg(value_parser = ["drain", "remove", "add"], requires = "node")]
        action: Option<String>,
        /// The node's name (as `nodes` lists it).
        node: Option<String>,
    },
    /// Internal: copy standard input to a job's log, keeping its last BYTES (run by the local
    /// backend for each rank).
    #[command(hide = true)]
    LogSink {
        /// The cap in bytes (0: none).
        #[arg(long, value_name = "BYTES")]
        max_bytes: u64,
        /// The log file.
        file: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    /// Processes on this machine.
    Local,
    /// One Slurm job per launch (nodes and GPUs from `scontrol show node`; `--nodes` is ignored).
    Slurm,
}

#[derive(Args)]
struct ServeArgs {
    /// State folder: SQLite database, token, per-job folders, outputs. One server per folder:
    /// a second one started on it fails, naming the pid of the first (STATE/server.lock).
    #[arg(long, default_value = "blox-state", value_name = "DIR")]
    state: PathBuf,
    /// Address of the HTTP API (loopback by default; port 0 picks a free one, written to
    /// STATE/server.addr).
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDR")]
    listen: String,
    /// Allow a `--listen` address that is not loopback. The bearer token is then the only
    /// protection, and it crosses the network in clear text (plain HTTP).
    #[arg(long)]
    allow_remote: bool,
    /// Backend.
    #[arg(long, value_enum, default_value = "local")]
    backend: Backend,
    /// Local backend: NxG fake nodes (e.g. 2x2) or GPU index lists per node (e.g. 0,1/2,3).
    #[arg(long, default_value = "1x4", value_name = "NODES")]
    nodes: String,
    /// Slurm backend: only nodes of this partition.
    #[arg(long, value_name = "PARTITION")]
    partition: Option<String>,
    /// CPU cores per node.
    #[arg(long, default_value_t = 16)]
    cpus_per_node: u32,
    /// Host memory per node, GB.
    #[arg(long, default_value_t = 64.0)]
    mem_per_node: f64,
    /// Round length in seconds.
    #[arg(
        long,
        default_value_t = 30.0,
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    round: f64,
    /// Admission policy: `accept-all`, `load-based:FACTOR`, `queue-cap:N`, or a registered name.
    #[arg(long, default_value = "accept-all", value_name = "POLICY")]
    admission: Named<AdmissionConfig>,
    /// Scheduling policy: fifo, las, srtf, sjf, tiresias, gavel, themis, … (`name:key=value,...`),
    /// or a name registered by the program that runs this command (`crate::main_with`).
    #[arg(long, default_value = "las", value_name = "POLICY")]
    policy: Named<PolicyConfig>,
    /// Placement: scattered, first-fit, consolidated, topology, resource-aware, …, or a
    /// registered name.
    #[arg(long, default_value = "scattered", value_name = "POLICY")]
    placement: Named<PlacementConfig>,
    /// Seconds between the preemption signal and SIGKILL.
    #[arg(
        long,
        default_value_t = 10.0,
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    grace: f64,
    /// Lease: seconds a launch must have been working (since its `started` line or first
    /// progress report, so process start-up does not count) before the scheduler may preempt
    /// it; until then its stop is deferred and it keeps running. 0 disables leases
    /// [default: one round, --round].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    min_run: Option<f64>,
    /// Preemption signal (TERM, INT, USR1, …).
    #[arg(long, default_value = "TERM", value_name = "SIGNAL")]
    preempt_signal: String,
    /// Seconds of waiting before a job is promoted to the starved class; 0 disables.
    #[arg(long, default_value_t = 3_600_000)]
    starvation: u64,
    /// Output folder [default: STATE/out].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Token file [default: STATE/token, created with mode 0600].
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Milliseconds between two polls of the backend.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    tick_ms: u64,
    /// Exit once every submitted job has ended.
    #[arg(long)]
    exit_when_done: bool,
    /// Local backend: the most bytes kept of each rank's log (STATE/jobs/ID/rankR.log, stdout
    /// and stderr): beyond it the log keeps its last half, after a line counting what was
    /// dropped. 0: no limit. A log that cannot be written (full disk) fails its job, with the
    /// error as the reason; the server goes on.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    log_limit: u64,
    /// HTTP API: connections served at once (one thread each); a connection beyond them is
    /// answered 503 at once.
    #[arg(long, default_value_t = 64, value_name = "N")]
    max_connections: usize,
    /// HTTP API: seconds a client has to send its whole request (and to read the response);
    /// a slower one gets 408 and is disconnected. A client never holds up another.
    #[arg(
        long,
        default_value_t = 10.0,
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    request_timeout: f64,
}

#[derive(Args)]
struct Conn {
    /// State folder of the server (its address and token are read from there).
    #[arg(long, default_value = "blox-state", value_name = "DIR")]
    state: PathBuf,
    /// Server address [default: from STATE/server.addr].
    #[arg(long, value_name = "ADDR")]
    server: Option<String>,
    /// Token file [default: STATE/token].
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
}

#[derive(Args)]
struct SubmitArgs {
    #[command(flatten)]
    conn: Conn,
    /// GPUs.
    #[arg(long)]
    gpus: u32,
    /// Total iterations (1 to 10^12).
    #[arg(long)]
    iterations: Option<u64>,
    /// Seconds per iteration (over 0, at most 1e9; iterations × this at most 1e9 s).
    #[arg(long, value_name = "SECONDS")]
    iteration_time: Option<f64>,
    /// Expected run time in seconds (0 to 1e9).
    #[arg(long, value_name = "SECONDS")]
    duration: Option<f64>,
    /// Model name (one line, at most 256 bytes).
    #[arg(long)]
    model: Option<String>,
    /// CPU cores (over 0, at most 1e6).
    #[arg(long)]
    cpus: Option<f64>,
    /// Host memory, GB (over 0, at most 1e6).
    #[arg(long)]
    mem_gb: Option<f64>,
    /// Name for listings (one line, at most 256 bytes).
    #[arg(long)]
    name: Option<String>,
    /// The command (a shell command line, at most 64 KiB; the server checks every bound before
    /// it stores anything).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

fn parse_signal(s: &str) -> Result<Signal, ClusterError> {
    let name = if s.starts_with("SIG") {
        s.to_string()
    } else {
        format!("SIG{s}")
    };
    name.parse::<Signal>()
        .map_err(|_| ClusterError::Config(format!("--preempt-signal `{s}`: not a signal name")))
}

fn secs(what: &str, s: f64) -> Result<Duration, ClusterError> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| ClusterError::Config(format!("{what} `{s}`: not a number of seconds ≥ 0")))
}

/// Make the state folder private: everything the server creates from here on (database, token,
/// job folders, logs, outputs) is readable by its owner only (files 0600, folders 0700), and the
/// state folder itself is set to 0700 if it was looser.
fn private_state(state: &std::path::Path) -> Result<(), ClusterError> {
    use std::os::unix::fs::PermissionsExt;
    nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    std::fs::create_dir_all(state).map_err(|e| ClusterError::io(state, e))?;
    let mode = std::fs::metadata(state)
        .map_err(|e| ClusterError::io(state, e))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(state, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| ClusterError::io(state, e))?;
    }
    Ok(())
}

fn serve(a: ServeArgs, registry: &Registry) -> Result<(), ClusterError> {
    if let Some(warning) = crate::check_listen(&a.listen, a.allow_remote)? {
        eprintln!("blox-cluster: warning: {warning}");
    }
    private_state(&a.state)?;
    // Before anything in the folder is read or written: one server per state folder.
    let _lock = crate::StateLock::acquire(&a.state)?;
    let token_path = a
        .token_file
        .clone()
        .unwrap_or_else(|| a.state.join("token"));
    let token = crate::load_or_create_token(&token_path)?;
    let round = secs("--round", a.round)?;
    if round < Duration::from_millis(100) {
        return Err(ClusterError::Config(
            "--round must be at least 0.1 s".into(),
        ));
    }
    let grace = secs("--grace", a.grace)?;
    let request_timeout = secs("--request-timeout", a.request_timeout)?;
    if request_timeout < Duration::from_millis(100) || a.max_connections == 0 {
        return Err(ClusterError::Config(
            "--request-timeout must be at least 0.1 s and --max-connections at least 1".into(),
        ));
    }
    let min_run = match a.min_run {
        Some(s) => secs("--min-run", s)?,
        None => round,
    };
    let signal = parse_signal(&a.preempt_signal)?;
    let env = PolicyEnv::new(None);
    let cfg_err = |e: blox_core::ConfigError| ClusterError::Config(e.0);
    let scheduler = Pipeline::new(
        registry.build_admission(&a.admission).map_err(cfg_err)?,
        registry.build_policy(&a.policy, &env).map_err(cfg_err)?,
        registry
            .build_placement(&a.placement, None)
            .map_err(cfg_err)?,
    );
    let logs = match a.log_limit {
        0 => JobLogs::Unlimited,
        n if n < crate::MIN_LOG_LIMIT => {
            return Err(ClusterError::Config(format!(
                "--log-limit {n}: at least {} bytes, or 0 for no limit",
                crate::MIN_LOG_LIMIT
            )))
        }
        n => JobLogs::Capped {
            program: std::env::current_exe()
                .map_err(|e| ClusterError::Config(format!("finding this program: {e}")))?,
            max_bytes: n,
        },
    };
    let db = a.state.join("state.sqlite");
    let epoch = Store::open(&db)?.epoch()?;
    let executor: crate::BoxExecutor = match a.backend {
        Backend::Local => Box::new(
            LocalExecutor::new(LocalConfig {
                inventory: parse_nodes(&a.nodes, a.cpus_per_node, a.mem_per_node)
                    .map_err(ClusterError::Config)?,
                jobs_dir: a.state.join("jobs"),
                signal,
                logs,
            })
            .map_err(|e| ClusterError::Exec(e.0))?,
        ),
        Backend::Slurm => Box::new(
            SlurmExecutor::new(SlurmConfig {
                jobs_dir: a.state.join("jobs"),
                signal,
                partition: a.partition.clone(),
            })
            .map_err(|e| ClusterError::Exec(e.0))?,
        ),
    };
    let inventory = executor.inventory().clone();
    let nodes_label = match a.backend {
        Backend::Local => a.nodes.clone(),
        Backend::Slurm => inventory
            .nodes
            .iter()
            .map(|n| format!("{}:{}", n.name, n.gpu_indices.len()))
            .collect::<Vec<_>>()
            .join(","),
    };
    let label = json!({
        "mode": "real",
        "backend": executor.name(),
        "nodes": nodes_label,
        "round_s": a.round,
        "admission": a.admission.to_string(),
        "policy": a.policy.to_string(),
        "placement": a.placement.to_string(),
        "grace_s": a.grace,
        "min_run_s": min_run.as_secs_f64(),
        "preempt_signal": signal.as_str(),
    });
    let cfg = LoopConfig {
        round,
        grace,
        min_run,
        tick: Duration::from_millis(a.tick_ms.clamp(10, 10_000)),
        starvation: (a.starvation > 0).then(|| Time::from_secs(a.starvation)),
        out: a.out.clone().unwrap_or_else(|| a.state.join("out")),
        exit_when_done: a.exit_when_done,
        label,
    };
    let mut rl = RoundLoop::new(cfg, scheduler, executor, &db)?;
    let listener = std::net::TcpListener::bind(a.listen.as_str())
        .map_err(|e| ClusterError::Config(format!("--listen {}: {e}", a.listen)))?;
    let api = crate::Api {
        db: db.clone(),
        token,
        inventory: inventory.clone(),
        epoch,
        limits: HttpLimits {
            max_connections: a.max_connections,
            request_timeout,
        },
    }
    .spawn(listener)?;
    let addr = api.addr().to_string();
    let addr_file = a.state.join("server.addr");
    std::fs::write(&addr_file, format!("{addr}\n")).map_err(|e| ClusterError::io(&addr_file, e))?;
    eprintln!(
        "blox-cluster: serving on http://{addr} ({} GPUs on {} nodes, {})",
        inventory.total_gpus(),
        inventory.nodes.len(),
        db.display()
    );
    let stop = crate::stop_flag()?;
    let result = rl.run(&stop);
    api.shutdown();
    let c = rl.counters();
    eprintln!(
        "blox-cluster: stopped ({} completed, {} failed, {} cancelled, {} preemptions)",
        c.completed, c.failed, c.cancelled, c.preemptions
    );
    result
}

fn connect(c: &Conn) -> Result<(String, String), ClusterError> {
    let addr = match &c.server {
        Some(s) => s.clone(),
        None => {
            let f = c.state.join("server.addr");
            std::fs::read_to_string(&f)
                .map_err(|e| {
                    ClusterError::io(&f, format!("{e} (is the server running? or pass --server)"))
                })?
                .trim()
                .to_string()
        }
    };
    let token = read_token(
        &c.token_file
            .clone()
            .unwrap_or_else(|| c.state.join("token")),
    )?;
    Ok((addr, token))
}

fn call(c: &Conn, method: &str, path: &str, body: Option<&str>) -> Result<Value, ClusterError> {
    let (addr, token) = connect(c)?;
    let r = request(&addr, method, path, Some(&token), body)?;
    let v = r.json();
    if r.status >= 400 {
        let msg = v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or(&r.body)
            .to_string();
        return Err(ClusterError::Client(format!(
            "{} {path}: {} {msg}",
            method, r.status
        )));
    }
    Ok(v)
}

fn print(v: &Value) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

fn run(cli: Cli, registry: &Registry) -> Result<(), ClusterError> {
    match cli.cmd {
        Cmd::LogSink { max_bytes, file } => {
            crate::log_sink(&file, max_bytes, std::io::stdin().lock())
                .map_err(|e| ClusterError::Io(format!("{e}")))
        }
        Cmd::Serve(a) => serve(a, registry),
        Cmd::Submit(s) => {
            let mut body = json!({ "command": s.command.join(" "), "n_gpus": s.gpus });
            let m = body.as_object_mut().expect("object");
            let opt = |v: Option<Value>| v.unwrap_or(Value::Null);
            m.insert(
                "total_iterations".into(),
                opt(s.iterations.map(Value::from)),
            );
            m.insert(
                "iteration_time_s".into(),
                opt(s.iteration_time.map(Value::from)),
            );
            m.insert("duration_s".into(), opt(s.duration.map(Value::from)));
            m.insert("model".into(), opt(s.model.map(Value::from)));
            m.insert("cpus".into(), opt(s.cpus.map(Value::from)));
            m.insert("mem_gb".into(), opt(s.mem_gb.map(Value::from)));
            m.insert("name".into(), opt(s.name.map(Value::from)));
            print(&call(&s.conn, "POST", "/v1/jobs", Some(&body.to_string()))?);
            Ok(())
        }
        Cmd::Status { conn, id: Some(i) } => {
            print(&call(&conn, "GET", &format!("/v1/jobs/{i}"), None)?);
            Ok(())
        }
        Cmd::Status { conn, id: None } => {
            // Every job, one page at a time.
            let mut jobs = Vec::new();
            let mut after = 0i64;
            loop {
                let page = call(
                    &conn,
                    "GET",
                    &format!("/v1/jobs?limit=1000&after={after}"),
                    None,
                )?;
                if let Some(a) = page["jobs"].as_array() {
                    jobs.extend(a.iter().cloned());
                }
                match page["next_after"].as_i64() {
                    Some(n) => after = n,
                    None => break,
                }
            }
            print(&json!({ "jobs": jobs }));
            Ok(())
        }
        Cmd::Cancel { conn, id } => {
            print(&call(&conn, "DELETE", &format!("/v1/jobs/{id}"), None)?);
            Ok(())
        }
        Cmd::Nodes { conn, action, node } => {
            match (action, node) {
                (Some(a), Some(n)) => {
                    print(&call(&conn, "POST", &format!("/v1/nodes/{n}/{a}"), None)?)
                }
                _ => print(&call(&conn, "GET", "/v1/nodes", None)?),
            }
            Ok(())
        }
    }
}

/// The `blox-cluster` program with the stock components.
pub fn main() -> ExitCode {
    main_with(Registry::default())
}

/// The `blox-cluster` program with `registry`'s components usable by name in `serve`
/// (`--policy`, `--placement`, `--admission`), as `blox_cli::main_with` does for `blox-sim`
/// (`examples/my-policy/src/bin/my-blox-cluster.rs` is this program, built and tested):
///
/// ```text
/// fn main() -> std::process::ExitCode {
///     let registry = blox_scenario::Registry::default()
///         .policy("my-srtf", |_spec, _env| Ok(Box::new(blox_policies::Srtf::default())));
///     crate::main_with(registry)
/// }
/// ```
pub fn main_with(registry: Registry) -> ExitCode {
    if let Err(e) = registry.check() {
        eprintln!("blox-cluster: {e}");
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    let sink = matches!(cli.cmd, Cmd::LogSink { .. });
    match run(cli, &registry) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if sink => {
            // The local backend reads this line as the reason the job failed.
            eprintln!("{e}");
            ExitCode::from(crate::SINK_FAILED as u8)
        }
        Err(e) => {
            eprintln!("blox-cluster: {e}");
            ExitCode::FAILURE
        }
    }
}
