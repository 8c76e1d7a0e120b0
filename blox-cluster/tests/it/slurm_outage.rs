//! Slurm backend: a `slurmctld` that stops answering for a few seconds (`squeue` and `sinfo`
//! fail, as when it is busy with a failing node) is waited out: the server keeps running, no
//! launch is taken to have ended, and every job completes exactly once. Gated on `BLOX_SLURM=1`
//! like `slurm_e2e`.

use crate::common::{serial, Server, TempDir};
use crate::slurm_e2e::{sh, SlurmJobs};
use blox_cluster::{JobState, Store, StoredEvent};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

#[test]
fn slurm_outage_is_waited_out() {
    if std::env::var("BLOX_SLURM").as_deref() != Ok("1") {
        eprintln!("slurm_outage: skipped (set BLOX_SLURM=1 with ci/slurm-up.sh's cluster running)");
        return;
    }
    let _serial = serial();
    let dir = TempDir::new("slurm-outage");
    let state = dir.0.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let _jobs = SlurmJobs(std::fs::canonicalize(&state).unwrap());

    // `squeue` and `sinfo` that fail while the flag file exists, as Slurm's own do when
    // slurmctld does not answer in time.
    let shims = dir.0.join("bin");
    std::fs::create_dir_all(&shims).unwrap();
    let flag = dir.0.join("outage");
    for cmd in ["squeue", "sinfo"] {
        let real = sh("sh", &["-c", &format!("command -v {cmd}")]).unwrap();
        let script = format!(
            "#!/bin/sh\nif [ -e '{}' ]; then\n  echo '{cmd}: error: Socket timed out on send/recv operation' >&2\n  exit 1\nfi\nexec '{}' \"$@\"\n",
            flag.display(),
            real.trim()
        );
        let path = shims.join(cmd);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut path = std::ffi::OsString::from(&shims);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());

    let args = [
        "--backend",
        "slurm",
        "--round",
        "1",
        "--policy",
        "fifo",
        "--exit-when-done",
    ];
    let mut s = Server::start_with_env(&state, &args, &[("PATH", path)]);
    // Four 2-GPU jobs of 4 s: all run at once.
    let ids: Vec<i64> = (0..4).map(|_| s.submit(2, 40, 0.1)).collect();

    // Once a job's stub is working, Slurm "stops answering" for 3 s.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let jobs = s.call("GET", "/v1/jobs", None).json();
        let working = jobs["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["state"] == "running" && j["iterations"].as_u64() > Some(3));
        if working {
            break;
        }
        assert!(Instant::now() < deadline, "nothing ran; log: {}", s.log());
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::write(&flag, "").unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "the server stopped during the outage; log: {}",
        s.log()
    );
    std::fs::remove_file(&flag).unwrap();
    s.wait_exit(Duration::from_secs(120));

    let log = s.log();
    assert!(log.contains("retrying for up to 60 s"), "{log}");
    assert!(log.contains("Slurm answers again"), "{log}");
    let store = Store::open(&state.join("state.sqlite")).unwrap();
    let rows = store.jobs().unwrap();
    assert_eq!(rows.len(), ids.len());
    for r in &rows {
        assert_eq!(r.state, JobState::Completed, "job {}: {:?}", r.id, r.run);
        assert_eq!(r.run.iterations, 40, "job {}", r.id);
        assert_eq!(
            r.run.launches, 1,
            "job {} was launched again: {:?}",
            r.id, r.run
        );
    }
    let completed = store
        .events()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, StoredEvent::Completed { .. }))
        .count();
    assert_eq!(completed, ids.len(), "each job completed exactly once");
}
