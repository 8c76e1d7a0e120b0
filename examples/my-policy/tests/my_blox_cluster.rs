//! A policy registered by an outside crate runs in real-cluster mode by its name: `serve
//! --policy srsf` on the local backend schedules two real (trivial) jobs to completion, and the
//! run's summary names the policy.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_my-blox-cluster")
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("my-blox-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

fn wait_for(path: &Path, limit: Duration) {
    let t0 = Instant::now();
    while !std::fs::read_to_string(path).is_ok_and(|s| s.ends_with('\n')) {
        assert!(t0.elapsed() < limit, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_registered_policy_schedules_real_jobs() {
    let state = temp("srsf");
    let mut server = Command::new(bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--nodes", "1x2"])
        .args(["--round", "0.2", "--policy", "srsf", "--exit-when-done"])
        .arg("--state")
        .arg(&state)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start my-blox-cluster serve");
    wait_for(&state.join("server.addr"), Duration::from_secs(60));
    for _ in 0..2 {
        let out = Command::new(bin())
            .args(["submit", "--gpus", "1", "--duration", "1", "--state"])
            .arg(&state)
            .args(["--", "true"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = server.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(120) {
            let _ = server.kill();
            panic!("the server did not finish its two jobs in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(server.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(status.success(), "serve failed: {status}: {err}");
    let summary = std::fs::read_to_string(state.join("out/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["config"]["policy"], "srsf", "{summary}");
    let jobs = std::fs::read_to_string(state.join("out/jobs.csv")).unwrap();
    assert_eq!(jobs.lines().count(), 3, "{jobs}");
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn an_unknown_name_is_refused_naming_the_registered_ones() {
    let state = temp("unknown");
    let out = Command::new(bin())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--nodes",
            "1x2",
            "--policy",
            "nosuch",
        ])
        .arg("--state")
        .arg(&state)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown policy `nosuch`") && err.contains("srsf"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&state);
}
