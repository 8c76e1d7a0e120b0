//! Helpers: a temporary state folder, a server process that is always stopped, and a
//! cleanup that kills every job process group the server started.

use blox_cluster::{request, HttpResponse};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Tests that time real jobs run one at a time (the machine has 2 cores).
pub(crate) static SERIAL: Mutex<()> = Mutex::new(());

pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The stub training program's command: the interpreter `python3` names, resolved once, so
/// that a version manager's shim (pyenv's is a bash script, about 70 ms of CPU a run) does not
/// run again for every job launch.
pub(crate) fn stub() -> String {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let python = PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-S", "-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs (the stub job is a Python program)");
        let exe = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(
            out.status.success() && !exe.is_empty(),
            "python3 names no interpreter: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    });
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/train_stub.py");
    format!("{python} -S {}", p.display())
}

/// A temporary folder, removed on drop (after the processes in it are gone).
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("blox-cluster-it-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        kill_jobs(&self.0);
        if std::env::var_os("BLOX_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Kill every process group recorded under `state/jobs/*/attempt*.pgid`.
pub(crate) fn kill_jobs(state: &Path) {
    for pgid in job_pgids(state) {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

pub(crate) fn job_pgids(state: &Path) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(jobs) = std::fs::read_dir(state.join("jobs")) else {
        return out;
    };
    for j in jobs.flatten() {
        for f in std::fs::read_dir(j.path()).into_iter().flatten().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if name.starts_with("attempt") && name.ends_with(".pgid") {
                if let Ok(Ok(p)) =
                    std::fs::read_to_string(f.path()).map(|s| s.trim().parse::<i32>())
                {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Whether any recorded job process group still has a live member.
pub(crate) fn live_job_groups(state: &Path) -> Vec<i32> {
    job_pgids(state)
        .into_iter()
        .filter(|&p| kill(Pid::from_raw(-p), None).is_ok())
        .collect()
}

/// A running `blox-cluster serve`, killed on drop.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: String,
    pub(crate) token: String,
    pub(crate) state: PathBuf,
}

impl Server {
    pub(crate) fn start(state: &Path, extra: &[&str]) -> Server {
        Self::start_with_env(state, extra, &[])
    }

    /// [`Server::start`] with extra environment variables for the server.
    pub(crate) fn start_with_env(
        state: &Path,
        extra: &[&str],
        env: &[(&str, std::ffi::OsString)],
    ) -> Server {
        let addr_file = state.join("server.addr");
        let _ = std::fs::remove_file(&addr_file);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(state.with_extension("serve.log"))
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_blox-cluster"))
            .arg("serve")
            .arg("--state")
            .arg(state)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start blox-cluster serve");
        let mut server = Server {
            child,
            addr: String::new(),
            token: String::new(),
            state: state.to_path_buf(),
        };
        let t0 = Instant::now();
        loop {
            if let Ok(a) = std::fs::read_to_string(&addr_file) {
                if a.ends_with('\n') {
                    server.addr = a.trim().to_string();
                    break;
                }
            }
            if let Ok(Some(st)) = server.child.try_wait() {
                panic!("server exited early: {st}; log: {}", server.log());
            }
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server.token = blox_cluster::read_token(&state.join("token")).unwrap();
        server
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.state.with_extension("serve.log")).unwrap_or_default()
    }

    pub(crate) fn call(&self, method: &str, path: &str, body: Option<&str>) -> HttpResponse {
        self.try_call(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}; log: {}", self.log()))
    }

    /// A request that may fail: the server may exit between a poll and the request.
    pub(crate) fn try_call(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<HttpResponse, String> {
        request(&self.addr, method, path, Some(&self.token), body).map_err(|e| format!("{e:?}"))
    }

    pub(crate) fn submit(&self, n_gpus: u32, iterations: u64, iter_s: f64) -> i64 {
        let body = serde_json::json!({
            "command": stub(),
            "n_gpus": n_gpus,
            "total_iterations": iterations,
            "iteration_time_s": iter_s,
        });
        let r = self.call("POST", "/v1/jobs", Some(&body.to_string()));
        assert_eq!(r.status, 201, "{}", r.body);
        r.json()["id"].as_i64().unwrap()
    }

    /// Wait for the server to exit by itself (`--exit-when-done`).
    pub(crate) fn wait_exit(&mut self, limit: Duration) {
        let t0 = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                assert!(st.success(), "server failed: {st}; log: {}", self.log());
                return;
            }
            assert!(
                t0.elapsed() < limit,
                "server did not finish in {limit:?}; log: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Crash it (SIGKILL): jobs keep running.
    pub(crate) fn crash(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Stop it cleanly (SIGTERM).
    pub(crate) fn stop(&mut self) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(10) {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.crash();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.crash();
    }
}

/// One row of `jobs.csv`.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) id: u32,
    pub(crate) arrival_s: f64,
    pub(crate) n_gpus: u32,
    pub(crate) first_start_s: Option<f64>,
    pub(crate) completion_s: Option<f64>,
    pub(crate) jct_s: Option<f64>,
    pub(crate) preemptions: u32,
    pub(crate) duration_s: f64,
}

pub(crate) fn read_jobs_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    // Runs whose nodes changed add a last `failures` column.
    assert!(
        header == blox_metrics::JOBS_CSV_HEADER
            || header.strip_suffix(",failures") == Some(blox_metrics::JOBS_CSV_HEADER),
        "{header}"
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let opt = |s: &str| (!s.is_empty()).then(|| s.parse::<f64>().unwrap());
            Row {
                id: f[0].parse().unwrap(),
                arrival_s: f[1].parse().unwrap(),
                n_gpus: f[2].parse().unwrap(),
                first_start_s: opt(f[3]),
                completion_s: opt(f[4]),
                jct_s: opt(f[5]),
                preemptions: f[6].parse().unwrap(),
                duration_s: f[8].parse().unwrap(),
            }
        })
        .collect()
}

/// The stub's per-attempt log of job `id`.
pub(crate) fn attempts(state: &Path, id: u32) -> Vec<serde_json::Value> {
    let p = state.join(format!("jobs/{id}/checkpoint/attempts.log"));
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Check a job's attempts (from [`attempts`]): every later attempt resumes, and starts no earlier
/// than the one before; return how many started past iteration 0 (from a checkpoint).
pub(crate) fn resumes_from_checkpoint(id: u32, a: &[serde_json::Value]) -> u32 {
    let mut resumed = 0;
    for w in a.windows(2) {
        assert_eq!(w[1]["resume"], true, "job {id}: a later attempt resumes");
        assert!(
            w[1]["start"].as_u64() >= w[0]["start"].as_u64(),
            "job {id} went backwards"
        );
        if w[1]["start"].as_u64() > Some(0) {
            resumed += 1;
        }
    }
    resumed
}
