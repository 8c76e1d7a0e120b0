//! The server survives hostile and careless clients: values out of bounds, a damaged state
//! database, stalled connections, a second server on the same state folder, chatty jobs, full
//! disks, huge commands and jobs that escape their process group.

use crate::common::{Server, TempDir};
use std::path::Path;
use std::time::{Duration, Instant};

/// Poll `GET /v1/jobs/ID` until its state is `want` (at most `limit`, far above what it needs).
pub(crate) fn wait_state(s: &Server, id: i64, want: &str, limit: Duration) -> serde_json::Value {
    let t0 = Instant::now();
    loop {
        let j = s.call("GET", &format!("/v1/jobs/{id}"), None).json();
        if j["state"] == want {
            return j;
        }
        assert!(
            t0.elapsed() < limit,
            "job {id} never {want}: {j}; log: {}",
            s.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn submit_ok(s: &Server, body: &str) -> i64 {
    let r = s.call("POST", "/v1/jobs", Some(body));
    assert_eq!(r.status, 201, "{body}: {}", r.body);
    r.json()["id"].as_i64().unwrap()
}

/// Damage a stopped server's database the way older versions (or a bad disk) could: a job
/// whose submission is out of bounds and whose run record holds `null` numbers, a run record
/// of an ended job with a `null`, an arrival in the event log whose job has `work_s: null`, and
/// an event that is not JSON at all.
fn damage(db: &Path) {
    let c = rusqlite::Connection::open(db).unwrap();
    let next_seq: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM events WHERE ev LIKE '{\"e\":\"arrived\"%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    c.execute(
        "INSERT INTO jobs (state, submission, submitted_ms, run) VALUES ('running', ?1, 5, ?2)",
        [
            r#"{"command":"true","n_gpus":1,"total_iterations":10,"iteration_time_s":1e308}"#,
            r#"{"seq":7,"blox_id":7,"executed":null,"attained":null,"gpus":[0],"launches":1,
               "live":{"attempt":0,"gpus":[0],"handle":"{}","stopping":false}}"#,
        ],
    )
    .unwrap();
    c.execute(
        "UPDATE jobs SET run = json_set(run, '$.attained', json('null')) WHERE id = 1",
        [],
    )
    .unwrap();
    let ev = format!(
        r#"{{"e":"arrived","t":5,"seq":{next_seq},"spec":{{"arrival":5,"n_gpus":1,"work_s":null}}}}"#
    );
    c.execute("INSERT INTO events (ev) VALUES (?1)", [ev])
        .unwrap();
    c.execute("INSERT INTO events (ev) VALUES ('not json at all')", [])
        .unwrap();
}

/// Item 1 of issue 25: `--iteration-time 1e308` used to be accepted, then every job listing
/// answered 500 ("bad run record") and a restarted server refused to start ("event log:
/// invalid type: null"). Every value is now checked against its bounds before it is stored,
/// and a state the server cannot read is reported and skipped, never fatal.
#[test]
fn a_bad_value_is_refused_and_a_damaged_state_does_not_stop_the_server() {
    let dir = TempDir::new("bad-value");
    let state = dir.0.join("state");
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    for (body, field, bound) in [
        (
            r#"{"command": "true", "n_gpus": 1, "total_iterations": 10, "iteration_time_s": 1e308}"#,
            "iteration_time_s",
            "1e9",
        ),
        (
            r#"{"command": "true", "n_gpus": 1, "duration_s": 1e12}"#,
            "duration_s",
            "1e9",
        ),
        (
            r#"{"command": "true", "n_gpus": 1, "total_iterations": 100000000000000}"#,
            "total_iterations",
            "1000000000000",
        ),
        (
            r#"{"command": "true", "n_gpus": 1, "cpus": 1e300}"#,
            "cpus",
            "1e6",
        ),
    ] {
        let r = s.call("POST", "/v1/jobs", Some(body));
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.json()["field"], field, "{}", r.body);
        let msg = r.json()["error"].as_str().unwrap().to_owned();
        assert!(msg.contains(bound), "the error states the bound: {msg}");
    }
    let good = submit_ok(&s, r#"{"command": "true", "n_gpus": 1}"#);
    wait_state(&s, good, "completed", Duration::from_secs(60));
    let listing = s.call("GET", "/v1/jobs", None);
    assert_eq!(listing.status, 200, "{}", listing.body);
    assert_eq!(listing.json()["jobs"].as_array().unwrap().len(), 1);
    s.stop();

    damage(&state.join("state.sqlite"));
    // The server starts, reports what it cannot read, fails the unreadable job and goes on.
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    let jobs = s.call("GET", "/v1/jobs", None);
    assert_eq!(jobs.status, 200, "{}", jobs.body);
    let jobs = jobs.json()["jobs"].as_array().unwrap().clone();
    assert_eq!(jobs.len(), 2, "{jobs:?}");
    assert_eq!(jobs[0]["state"], "completed", "{jobs:?}");
    let bad = &jobs[1];
    assert_eq!(bad["state"], "failed", "{bad}");
    let why = bad["exit_status"].as_str().unwrap();
    assert!(
        why.contains("unreadable") && why.contains("iteration_time_s"),
        "{why}"
    );
    let log = s.log();
    for needle in [
        "kept without `work_s`",
        "(`not json at all`)",
        "marked failed",
        "replaced by defaults",
    ] {
        assert!(
            log.to_lowercase().contains(&needle.to_lowercase()),
            "the log reports `{needle}`: {log}"
        );
    }
    // New work runs as before, with fresh numbers.
    let next = submit_ok(&s, r#"{"command": "true", "n_gpus": 2}"#);
    let j = wait_state(&s, next, "completed", Duration::from_secs(60));
    assert_eq!(j["launches"], 1, "{j}");
    s.stop();
    // And again after a restart: the repairs were written back.
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    assert_eq!(s.call("GET", "/v1/jobs", None).status, 200);
    assert_eq!(
        s.call("GET", &format!("/v1/jobs/{}", bad["id"]), None)
            .json()["state"],
        "failed"
    );
    s.stop();
    let csv = crate::common::read_jobs_csv(&state.join("out/jobs.csv"));
    assert!(
        csv.iter().filter(|r| r.completion_s.is_some()).count() == 2,
        "{csv:?}"
    );
}

/// A connection that sends `data` and then nothing, left open.
pub(crate) fn stall(addr: &str, data: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    c.write_all(data.as_bytes()).unwrap();
    c
}

/// The status code the server finally sends on `c` (it must send one and close: the read
/// timeout is far above any request timeout used here).
pub(crate) fn final_status(mut c: std::net::TcpStream) -> u16 {
    use std::io::Read;
    c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut raw = String::new();
    c.read_to_string(&mut raw)
        .unwrap_or_else(|e| panic!("no answer: {e}"));
    raw.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {raw:?}"))
}

/// Item 2 of issue 25: a `POST /v1/jobs` announcing `Content-Length: 2000` and then silent used
/// to block every other client until it closed, even without a token. The token is now checked
/// before the body is read, each connection has a thread of its own, and a client that does not
/// send its whole request within `--request-timeout` gets 408 and is disconnected.
#[test]
fn a_stalled_client_blocks_nobody_and_is_cut_off() {
    let dir = TempDir::new("stall");
    let state = dir.0.join("state");
    let s = Server::start(
        &state,
        &["--nodes", "1x2", "--round", "0.2", "--request-timeout", "2"],
    );
    let anonymous = stall(
        &s.addr,
        "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n",
    );
    let with_token = stall(
        &s.addr,
        &format!(
            "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
             Content-Length: 2000\r\n\r\n{{\"command\"",
            s.token
        ),
    );
    let half_head = stall(&s.addr, "GET /v1/jobs HTTP/1.1\r\nHost: x\r\n");
    // Every other client is served while they hang (the old server answered nobody; the
    // client's own 30 s read timeout then failed these calls).
    for _ in 0..3 {
        assert_eq!(s.call("GET", "/v1/jobs", None).status, 200);
    }
    let id = submit_ok(&s, r#"{"command": "true", "n_gpus": 1}"#);
    wait_state(&s, id, "completed", Duration::from_secs(60));
    assert_eq!(
        final_status(anonymous),
        401,
        "no token: refused, body unread"
    );
    assert_eq!(final_status(with_token), 408, "the body never came");
    assert_eq!(final_status(half_head), 408, "the head never ended");
    // Nothing of the stalled submission was stored.
    let jobs = s.call("GET", "/v1/jobs", None).json();
    assert_eq!(jobs["jobs"].as_array().unwrap().len(), 1, "{jobs}");
}

/// Connections beyond `--max-connections` are answered 503 at once (never queued behind slow
/// ones), and the server serves again as soon as connections end.
#[test]
fn connections_beyond_the_cap_are_answered_at_once() {
    let dir = TempDir::new("cap");
    let state = dir.0.join("state");
    let s = Server::start(
        &state,
        &[
            "--nodes",
            "1x2",
            "--round",
            "0.2",
            "--max-connections",
            "3",
            "--request-timeout",
            "600",
        ],
    );
    let hogs: Vec<_> = (0..3)
        .map(|_| stall(&s.addr, "GET /v1/jobs HTTP/1.1\r\n"))
        .collect();
    let r = s.call("GET", "/v1/jobs", None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.body.contains("limit of 3 connections"), "{}", r.body);
    drop(hogs);
    let t0 = Instant::now();
    while s.call("GET", "/v1/jobs", None).status != 200 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "connections were never released"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Start `serve` on `state` as a second server and wait (at most a minute) for it to give up;
/// returns its stderr. Panics if it keeps running.
pub(crate) fn second_server(state: &Path) -> String {
    use std::process::{Command, Stdio};
    let err = state.with_extension("second.log");
    let mut c = Command::new(env!("CARGO_BIN_EXE_blox-cluster"))
        .arg("serve")
        .arg("--state")
        .arg(state)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--nodes",
            "1x2",
            "--round",
            "0.2",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = c.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = c.kill();
            let _ = c.wait();
            panic!(
                "a second server on {} kept running: {}",
                state.display(),
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(!status.success(), "the second server must fail: {text}");
    text
}

/// Item 3 of issue 25: `serve --state S` started twice left both running, on one database and
/// one set of jobs. The state folder now belongs to one server (a `flock` held for its life);
/// a second start fails at once, naming the holder's pid, and changes nothing.
#[test]
fn a_second_server_on_the_same_state_is_refused_naming_the_first() {
    let dir = TempDir::new("second");
    let state = dir.0.join("state");
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    let addr_before = std::fs::read_to_string(state.join("server.addr")).unwrap();
    let err = second_server(&state);
    assert!(
        err.contains(&format!("pid {}", s.child.id())) && err.contains("in use"),
        "the error names the first server's pid: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(state.join("server.addr")).unwrap(),
        addr_before,
        "the second server changed nothing"
    );
    let id = submit_ok(&s, r#"{"command": "true", "n_gpus": 1}"#);
    wait_state(&s, id, "completed", Duration::from_secs(60));
    // Once the first server is gone (even killed), the folder can be served again.
    s.crash();
    let s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    assert_eq!(s.call("GET", &format!("/v1/jobs/{id}"), None).status, 200);
}

/// Item 6 of issue 25: a 900 KB command was accepted and then failed at every launch
/// ("Argument list too long": each rank gets the command in one environment variable, which
/// Linux limits to 128 KiB). It is now refused at submission, stating the bound; a command at
/// the bound runs.
#[test]
fn a_command_too_long_to_launch_is_refused_at_submission() {
    let dir = TempDir::new("long-command");
    let state = dir.0.join("state");
    let s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    let huge = format!("true {}", "x".repeat(900 * 1024));
    let body = serde_json::json!({"command": huge, "n_gpus": 1}).to_string();
    let r = s.call("POST", "/v1/jobs", Some(&body));
    assert_eq!(r.status, 400, "{}", &r.body[..r.body.len().min(300)]);
    assert_eq!(r.json()["field"], "command");
    let msg = r.json()["error"].as_str().unwrap().to_owned();
    assert!(
        msg.contains(&blox_cluster::MAX_COMMAND_BYTES.to_string()),
        "{msg}"
    );
    // The longest command accepted launches (a comment pads it to the bound).
    let pad = blox_cluster::MAX_COMMAND_BYTES - "true #".len();
    let longest = format!("true #{}", "x".repeat(pad));
    assert_eq!(longest.len(), blox_cluster::MAX_COMMAND_BYTES);
    let body = serde_json::json!({"command": longest, "n_gpus": 1}).to_string();
    let id = submit_ok(&s, &body);
    let j = wait_state(&s, id, "completed", Duration::from_secs(60));
    assert_eq!(j["exit_status"], "exit 0", "{}", j["exit_status"]);
}

/// Item 4 of issue 25, the log: a job writing 20 MB to stdout wrote a 20 MB log (and filled a
/// nearly full state disk). Each rank's log now keeps its last `--log-limit` bytes.
#[test]
fn a_chatty_job_keeps_only_the_tail_of_its_log() {
    let dir = TempDir::new("chatty");
    let state = dir.0.join("state");
    let s = Server::start(
        &state,
        &["--nodes", "1x2", "--round", "0.2", "--log-limit", "65536"],
    );
    let body = serde_json::json!({
        "command": "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo to-stderr >&2; echo THE-END",
        "n_gpus": 1,
    })
    .to_string();
    let id = submit_ok(&s, &body);
    let j = wait_state(&s, id, "completed", Duration::from_secs(120));
    assert_eq!(j["launches"], 1, "{j}");
    let log = state.join("jobs/0/rank0.log");
    // The sink may still be writing the last lines when the job is reported completed.
    let t0 = Instant::now();
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.ends_with("THE-END\n") {
            break text;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the log never got its last line ({} bytes)",
            text.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(text.len() <= 65536, "log of {} bytes", text.len());
    assert!(
        text.starts_with("[blox-cluster: ") && text.contains("bytes of this log were dropped"),
        "{}",
        &text[..100]
    );
    assert!(text.contains("to-stderr"), "stderr is in the log too");
}

/// Item 4 of issue 25, the full disk: a job's log that cannot be written (here `rank0.log` is
/// `/dev/full`, which answers every write with ENOSPC, as a full disk does) fails that job,
/// with the error as its reason, and the server goes on with the others.
#[test]
fn a_job_whose_log_cannot_be_written_fails_and_the_server_goes_on() {
    let dir = TempDir::new("log-full");
    let state = dir.0.join("state");
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    let job0 = state.join("jobs/0");
    std::fs::create_dir_all(&job0).unwrap();
    std::os::unix::fs::symlink("/dev/full", job0.join("rank0.log")).unwrap();
    let id = submit_ok(
        &s,
        r#"{"command": "echo hello; sleep 30; echo bye", "n_gpus": 1}"#,
    );
    let j = wait_state(&s, id, "failed", Duration::from_secs(60));
    let why = j["exit_status"].as_str().unwrap();
    assert!(
        why.contains("log could not be written") && why.contains("No space left on device"),
        "{why}"
    );
    assert_eq!(j["launches"], 1, "not requeued: {j}");
    let next = submit_ok(&s, r#"{"command": "echo fine", "n_gpus": 2}"#);
    wait_state(&s, next, "completed", Duration::from_secs(60));
    assert!(s.child.try_wait().unwrap().is_none(), "the server runs on");
}

/// Item 4 of issue 25, the state database: a write to SQLite that failed ("database or disk is
/// full") made the server exit, and every restart ran the job again. Now the server keeps the
/// changes in memory, launches nothing new, and writes them once it can. Here the write fails
/// because another process holds the database's write lock longer than the server waits.
#[test]
fn a_state_database_that_cannot_be_written_holds_the_server_instead_of_ending_it() {
    let dir = TempDir::new("db-held");
    let state = dir.0.join("state");
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);
    let a = submit_ok(&s, r#"{"command": "sleep 1", "n_gpus": 1}"#);
    wait_state(&s, a, "running", Duration::from_secs(60));
    let db = rusqlite::Connection::open(state.join("state.sqlite")).unwrap();
    db.execute_batch("BEGIN IMMEDIATE").unwrap();
    // While the lock is held the job ends, and the server cannot record it.
    let t0 = Instant::now();
    while !s.log().contains("kept in memory") {
        assert!(
            s.child.try_wait().unwrap().is_none(),
            "the server ended: {}",
            s.log()
        );
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no failed write was reported: {}",
            s.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(s.call("GET", "/v1/jobs", None).status, 200, "reads go on");
    db.execute_batch("ROLLBACK").unwrap();
    let j = wait_state(&s, a, "completed", Duration::from_secs(120));
    assert_eq!(j["launches"], 1, "{j}");
    assert!(s.log().contains("written again"), "{}", s.log());
    let b = submit_ok(&s, r#"{"command": "true", "n_gpus": 2}"#);
    wait_state(&s, b, "completed", Duration::from_secs(60));
    assert!(s.child.try_wait().unwrap().is_none(), "the server runs on");
}

/// How many times job `blox_id`'s training finished (its `done` reports).
fn finishes(state: &Path, blox_id: u64) -> usize {
    std::fs::read_to_string(state.join(format!("jobs/{blox_id}/metrics.jsonl")))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(r#""event": "done""#))
        .count()
}

/// Issue 25 end to end: while real jobs run under LAS (preempting and resuming), the server
/// gets values out of bounds, clients that stall (with and without a token) and a second
/// server on its state folder. It refuses each, serves everyone else throughout, and every
/// accepted job finishes exactly once; after a restart nothing is run again.
#[test]
fn the_server_survives_hostile_clients_with_nothing_lost_or_run_twice() {
    let _g = crate::common::serial();
    let dir = TempDir::new("hostile-e2e");
    let state = dir.0.join("state");
    let args = [
        "--nodes",
        "1x4",
        "--round",
        "0.3",
        "--policy",
        "las",
        "--grace",
        "30",
        "--request-timeout",
        "3",
    ];
    let mut s = Server::start(&state, &args);
    let mut accepted = Vec::new();
    for k in 0..4u32 {
        accepted.push(s.submit(1 + k % 2, 30, 0.05));
    }
    // 1. Values out of bounds, and a command too long to launch.
    for body in [
        r#"{"command": "true", "n_gpus": 1, "total_iterations": 10, "iteration_time_s": 1e308}"#,
        r#"{"command": "true", "n_gpus": 1, "duration_s": -1}"#,
        r#"{"command": "true", "n_gpus": 1, "mem_gb": 1e400}"#,
    ] {
        let r = s.call("POST", "/v1/jobs", Some(body));
        assert_eq!(r.status, 400, "{body}: {}", r.body);
    }
    let huge = serde_json::json!({"command": "x".repeat(900 * 1024), "n_gpus": 1}).to_string();
    assert_eq!(s.call("POST", "/v1/jobs", Some(&huge)).status, 400);
    // 2. Stalled clients, with and without the token; everyone else is served meanwhile.
    let anonymous = stall(
        &s.addr,
        "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n",
    );
    let with_token = stall(
        &s.addr,
        &format!(
            "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
             Content-Length: 2000\r\n\r\n{{\"command\": \"true\", ",
            s.token
        ),
    );
    accepted.push(s.submit(2, 30, 0.05));
    assert_eq!(s.call("GET", "/v1/jobs", None).status, 200);
    // 3. A second server on the same state folder.
    let err = second_server(&state);
    assert!(err.contains(&format!("pid {}", s.child.id())), "{err}");
    accepted.push(s.submit(1, 30, 0.05));

    assert_eq!(final_status(anonymous), 401);
    assert_eq!(final_status(with_token), 408);
    for &id in &accepted {
        wait_state(&s, id, "completed", Duration::from_secs(300));
    }
    let jobs = s.call("GET", "/v1/jobs", None).json()["jobs"]
        .as_array()
        .unwrap()
        .clone();
    let ids: Vec<i64> = jobs.iter().map(|j| j["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, accepted, "exactly the accepted jobs, none refused");
    let mut launches = 0;
    for j in &jobs {
        let b = j["blox_id"].as_u64().unwrap();
        assert_eq!(finishes(&state, b), 1, "job {b} finished exactly once: {j}");
        launches += j["launches"].as_u64().unwrap();
    }
    assert!(s.child.try_wait().unwrap().is_none(), "the server runs on");
    s.stop();
    let csv = crate::common::read_jobs_csv(&state.join("out/jobs.csv"));
    assert_eq!(csv.len(), accepted.len(), "{csv:?}");
    assert!(csv.iter().all(|r| r.completion_s.is_some()), "{csv:?}");

    // A restart finds everything as it was and runs nothing again.
    let mut s = Server::start(&state, &args);
    std::thread::sleep(Duration::from_millis(1000));
    let again = s.call("GET", "/v1/jobs", None).json()["jobs"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(again.len(), accepted.len());
    let launches_after: u64 = again
        .iter()
        .map(|j| {
            assert_eq!(j["state"], "completed", "{j}");
            j["launches"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(launches_after, launches, "nothing launched again");
    for j in &again {
        assert_eq!(finishes(&state, j["blox_id"].as_u64().unwrap()), 1);
    }
    s.stop();
    assert!(
        crate::common::live_job_groups(&state).is_empty(),
        "no job process is left"
    );
}

/// A job that reported its last iteration and is then ended by the stop signal while it exits
/// (here: it never exits by itself, so the preemption's signal ends it) has done its work: it
/// completes, once, and is not launched again. (CPython restores the default SIGTERM action
/// while it shuts down, so a stub stopped at that moment died by the signal and was requeued,
/// finishing twice.)
#[test]
fn a_job_stopped_after_its_last_iteration_completes_once() {
    let _g = crate::common::serial();
    let dir = TempDir::new("stopped-after-done");
    let state = dir.0.join("state");
    let args = [
        "--nodes",
        "1x1",
        "--round",
        "1",
        "--policy",
        "las",
        "--grace",
        "5",
        "--min-run",
        "1",
    ];
    let mut s = Server::start(&state, &args);
    // Says it started, reports all 5 iterations, then waits to be stopped.
    let body = serde_json::json!({
        "command": "printf '{\"event\":\"started\"}\\n{\"iter\":5,\"event\":\"done\"}\\n' \
                    >> \"$BLOX_METRICS_FILE\"; exec sleep 600",
        "n_gpus": 1,
        "total_iterations": 5,
        "iteration_time_s": 2.0,
    });
    let first = submit_ok(&s, &body.to_string());
    let j = wait_state(&s, first, "running", Duration::from_secs(60));
    let t0 = Instant::now();
    while s.call("GET", &format!("/v1/jobs/{first}"), None).json()["iterations"] != 5 {
        assert!(t0.elapsed() < Duration::from_secs(60), "no progress: {j}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A job with less attained service takes the one GPU: LAS stops the first.
    let second = s.submit(1, 3, 0.1);
    let done = wait_state(&s, first, "completed", Duration::from_secs(120));
    assert_eq!(
        done["launches"], 1,
        "launched again after its work was done: {done}"
    );
    // The stop was issued (and counted), and its signal is what ended it.
    assert_eq!(done["exit_status"], "exit 143", "{done}");
    assert_eq!(done["iterations"], 5, "{done}");
    wait_state(&s, second, "completed", Duration::from_secs(120));
    s.stop();
}
