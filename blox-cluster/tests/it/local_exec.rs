//! The local backend on its own: every launch ends exactly once with the command's real status,
//! whatever the command does, and a dead rank ends the whole launch.

use crate::common::{serial, TempDir};
use blox_cluster::{parse_nodes, JobLogs, LocalConfig, LocalExecutor};
use blox_cluster::{ExecEvent, Executor, ExitStatus, Launch};
use blox_core::{GpuId, JobId, JobSpec, Time};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::time::{Duration, Instant};

fn executor(dir: &TempDir) -> LocalExecutor {
    LocalExecutor::new(LocalConfig {
        inventory: parse_nodes("1x2", 8, 32.0).unwrap(),
        jobs_dir: dir.0.join("jobs"),
        signal: Signal::SIGTERM,
        logs: JobLogs::Unlimited,
    })
    .unwrap()
}

/// Poll until the launch of `job` ends (at most `limit`, far above what it needs).
fn wait_exit(exec: &mut LocalExecutor, job: JobId, limit: Duration) -> ExitStatus {
    let t0 = Instant::now();
    let mut evs = Vec::new();
    loop {
        exec.poll(&mut evs).unwrap();
        for e in evs.drain(..) {
            if let ExecEvent::Exited { job: j, status, .. } = e {
                if j == job {
                    return status;
                }
            }
        }
        assert!(t0.elapsed() < limit, "job {job} did not end in {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_command_that_calls_exit_is_recorded_and_not_relaunched_after_a_restart() {
    let _g = serial();
    let dir = TempDir::new("exec-exit");
    let spec = JobSpec::new(Time::ZERO, 1, 10.0);
    let gpus = [GpuId(0)];
    // `exit` used to end the wrapper's own shell before it wrote the exit file.
    let command = "echo hello; exit 7";
    let launch = Launch::new(JobId(3), 0, &spec, command, &gpus, false);
    let mut exec = executor(&dir);
    let handle = exec.launch(&launch).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(3), Duration::from_secs(30)),
        ExitStatus::Code(7)
    );
    let exit_file = dir.0.join("jobs/3/attempt0.rank0.exit");
    assert_eq!(
        std::fs::read_to_string(&exit_file).unwrap().trim(),
        "7",
        "the exit file holds the command's code"
    );
    // A restarted server adopts the ended launch and learns how it ended (not `Lost`, which
    // would requeue and run the finished job again).
    let mut again = executor(&dir);
    assert!(
        again.adopt(&launch, &handle).unwrap(),
        "the launch is adopted"
    );
    assert_eq!(
        wait_exit(&mut again, JobId(3), Duration::from_secs(30)),
        ExitStatus::Code(7)
    );
    // And a command that succeeds via `exit 0` is a success.
    let ok = Launch::new(JobId(4), 0, &spec, "exit 0", &gpus, false);
    exec.launch(&ok).unwrap();
    assert!(wait_exit(&mut exec, JobId(4), Duration::from_secs(30)).success());
    assert_eq!(
        std::fs::read_to_string(dir.0.join("jobs/4/attempt0.rank0.exit"))
            .unwrap()
            .trim(),
        "0"
    );
}

#[test]
fn a_dead_rank_stops_the_other_ranks_and_fails_the_launch() {
    let _g = serial();
    let dir = TempDir::new("exec-rank");
    let spec = JobSpec::new(Time::ZERO, 2, 10.0);
    let gpus = [GpuId(0), GpuId(1)];
    // Rank 1 dies at once; rank 0 would run for a minute.
    let command = r#"if [ "$dist_rank" = 1 ]; then exit 5; fi; exec sleep 60"#;
    let launch = Launch::new(JobId(1), 0, &spec, command, &gpus, false);
    let mut exec = executor(&dir);
    exec.launch(&launch).unwrap();
    let pgid: i32 = std::fs::read_to_string(dir.0.join("jobs/1/attempt0.pgid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(1), Duration::from_secs(30)),
        ExitStatus::Code(5),
        "the launch ends with the dead rank's status, long before rank 0's minute"
    );
    // SIGKILL is delivered at once, but the kernel may take a moment to tear the group down.
    let t0 = Instant::now();
    while kill(Pid::from_raw(-pgid), None).is_ok() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "no process of the launch is left: {}",
            std::process::Command::new("ps")
                .args(["-o", "pid,stat,args", "-g", &pgid.to_string()])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn exec_is_recorded_and_a_preempted_command_may_finish_its_checkpoint() {
    let _g = serial();
    let dir = TempDir::new("exec-exec");
    let spec = JobSpec::new(Time::ZERO, 1, 10.0);
    let gpus = [GpuId(0)];
    let mut exec = executor(&dir);
    // `exec` replaces the command's shell, not the wrapper.
    let l = Launch::new(JobId(1), 0, &spec, "exec sh -c 'exit 4'", &gpus, false);
    exec.launch(&l).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(1), Duration::from_secs(30)),
        ExitStatus::Code(4)
    );
    assert_eq!(
        std::fs::read_to_string(dir.0.join("jobs/1/attempt0.rank0.exit"))
            .unwrap()
            .trim(),
        "4"
    );
    // A command that takes a while to save after the signal is waited for (no shell between
    // it and the wrapper dies first and lets the launch end early).
    let command = r#"trap 'sleep 1; echo saved > saved; exit 143' TERM
echo '{"event": "started", "attempt": 0}' >> "$BLOX_METRICS_FILE"
while :; do sleep 0.05; done"#;
    let l = Launch::new(JobId(2), 0, &spec, command, &gpus, false);
    exec.launch(&l).unwrap();
    exec.preempt(JobId(2), Duration::from_secs(20)).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(2), Duration::from_secs(30)),
        ExitStatus::Code(143)
    );
    assert_eq!(
        std::fs::read_to_string(dir.0.join("jobs/2/saved")).unwrap_or_default(),
        "saved\n",
        "the command finished saving before the launch was reported as ended"
    );
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}

/// Item 6 of issue 25: a command that starts a process with `setsid` (a session and process
/// group of its own) or double-forks a daemon used to leave it running after its job ended:
/// killing the launch's process group does not reach it. The launch's mark in the environment
/// does, and every process carrying it is ended with the launch.
#[test]
fn processes_that_left_the_group_end_with_their_launch() {
    let _g = serial();
    let dir = TempDir::new("exec-setsid");
    let spec = JobSpec::new(Time::ZERO, 1, 10.0);
    let gpus = [GpuId(0)];
    let mut exec = executor(&dir);
    // One escapes with setsid, one is a daemon (double fork, new session, no stdio); the
    // command itself ends at once, successfully.
    let command = r#"setsid sleep 300 & echo $! > escaped.pid
setsid sh -c 'sleep 301 < /dev/null > /dev/null 2>&1 & echo $! > daemon.pid' < /dev/null > /dev/null 2>&1
while [ ! -s daemon.pid ]; do sleep 0.05; done
exit 0"#;
    let l = Launch::new(JobId(1), 0, &spec, command, &gpus, false);
    exec.launch(&l).unwrap();
    assert!(wait_exit(&mut exec, JobId(1), Duration::from_secs(30)).success());
    let job = dir.0.join("jobs/1");
    let pids: Vec<i32> = ["escaped.pid", "daemon.pid"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(job.join(f))
                .unwrap_or_else(|e| panic!("{f}: {e}"))
                .trim()
                .parse()
                .unwrap()
        })
        .collect();
    // SIGKILL is delivered at once; give the kernel time to tear them down.
    let t0 = Instant::now();
    while !pids.iter().all(|&p| gone(p)) {
        if t0.elapsed() > Duration::from_secs(20) {
            for &p in &pids {
                let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
            }
            panic!("a process of the finished launch is still running: {pids:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Poll until `file` exists (at most a minute), returning the events seen meanwhile.
fn poll_until_file(exec: &mut LocalExecutor, file: &std::path::Path) -> Vec<ExecEvent> {
    let t0 = Instant::now();
    let mut evs = Vec::new();
    while !file.exists() {
        exec.poll(&mut evs).unwrap();
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{} never appeared",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    exec.poll(&mut evs).unwrap();
    evs
}

/// Waits until both ranks of job `job` have installed their signal traps (each touches
/// `readyR` in the job's folder once it has), so a preemption never meets a rank before its
/// trap: which rank exits how must not depend on the machine's speed.
fn poll_until_ready(exec: &mut LocalExecutor, dir: &std::path::Path, job: u32) {
    for r in 0..2 {
        poll_until_file(exec, &dir.join(format!("jobs/{job}/ready{r}")));
    }
}

/// Item 5 of issue 25: under LAS a 2-GPU job whose rank 0 finished while rank 1 was being
/// preempted was requeued (rank 1's exit 143 made the launch's status) and ran, and finished,
/// again. A launch being preempted whose rank 0 (the rank that speaks for the job) exited 0 is
/// now complete, whichever came first: the completion seen before the preemption, or the signal
/// sent before rank 0's exit. One whose rank 0 was stopped is preempted, even if another rank
/// got to its end: it resumes from rank 0's checkpoint.
#[test]
fn a_rank_that_finished_makes_a_preempted_launch_complete_in_either_order() {
    let _g = serial();
    let dir = TempDir::new("exec-finish-preempt");
    let spec = JobSpec::new(Time::ZERO, 2, 10.0);
    let gpus = [GpuId(0), GpuId(1)];
    let mut exec = executor(&dir);

    // Order 1: rank 0 finishes, the executor sees it, then the preemption comes; rank 1
    // checkpoints and exits 143 on the signal.
    let command = r#"if [ "$dist_rank" = 0 ]; then exit 0; fi
trap 'exit 143' TERM
touch ready1
echo '{"event": "started", "attempt": 0}' >> "$BLOX_METRICS_FILE"
while :; do sleep 0.05; done"#;
    let l = Launch::new(JobId(1), 0, &spec, command, &gpus, false);
    exec.launch(&l).unwrap();
    poll_until_file(&mut exec, &dir.0.join("jobs/1/ready1"));
    let evs = poll_until_file(&mut exec, &dir.0.join("jobs/1/attempt0.rank0.exit"));
    assert!(
        !evs.iter().any(|e| matches!(e, ExecEvent::Exited { .. })),
        "rank 1 still runs: {evs:?}"
    );
    exec.preempt(JobId(1), Duration::from_secs(30)).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(1), Duration::from_secs(60)),
        ExitStatus::Code(0),
        "rank 0 finished the job: the launch is complete, not preempted"
    );
    assert_eq!(
        std::fs::read_to_string(dir.0.join("jobs/1/attempt0.rank1.exit"))
            .unwrap()
            .trim(),
        "143",
        "rank 1 was stopped by the preemption"
    );

    // Order 2: the preemption signal is sent first; rank 0 then finishes (exit 0) and only
    // after that does rank 1 exit 143.
    let command = r#"if [ "$dist_rank" = 0 ]; then
  trap 'touch term0' TERM
  touch ready0
  echo '{"event": "started", "attempt": 0}' >> "$BLOX_METRICS_FILE"
  while [ ! -f term0 ]; do sleep 0.05; done
  touch done0; exit 0
fi
trap 'while [ ! -f done0 ]; do sleep 0.05; done; exit 143' TERM
touch ready1
while :; do sleep 0.05; done"#;
    let l = Launch::new(JobId(2), 0, &spec, command, &gpus, false);
    exec.launch(&l).unwrap();
    poll_until_ready(&mut exec, &dir.0, 2);
    exec.preempt(JobId(2), Duration::from_secs(30)).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(2), Duration::from_secs(60)),
        ExitStatus::Code(0),
        "rank 0 finished after the signal: still complete"
    );
    assert!(dir.0.join("jobs/2/term0").exists(), "the signal came first");

    // Rank 1 got to its end, rank 0 was stopped before its own: preempted, not complete.
    let command = r#"echo '{"event": "started", "attempt": 0}' >> "$BLOX_METRICS_FILE"
if [ "$dist_rank" = 1 ]; then exit 0; fi
trap 'exit 143' TERM
touch ready0
while :; do sleep 0.05; done"#;
    let l = Launch::new(JobId(4), 0, &spec, command, &gpus, false);
    exec.launch(&l).unwrap();
    poll_until_file(&mut exec, &dir.0.join("jobs/4/attempt0.rank1.exit"));
    poll_until_file(&mut exec, &dir.0.join("jobs/4/ready0"));
    exec.preempt(JobId(4), Duration::from_secs(30)).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(4), Duration::from_secs(60)),
        ExitStatus::Code(143),
        "rank 0 did not finish: the job is requeued"
    );

    // A preempted launch no rank of which finished is preempted (exit 143), as before.
    let command = r#"trap 'exit 143' TERM
touch "ready$dist_rank"
echo '{"event": "started", "attempt": 0}' >> "$BLOX_METRICS_FILE"
while :; do sleep 0.05; done"#;
    let l = Launch::new(JobId(3), 0, &spec, command, &gpus, false);
    exec.launch(&l).unwrap();
    poll_until_ready(&mut exec, &dir.0, 3);
    exec.preempt(JobId(3), Duration::from_secs(30)).unwrap();
    assert_eq!(
        wait_exit(&mut exec, JobId(3), Duration::from_secs(60)),
        ExitStatus::Code(143)
    );
}
