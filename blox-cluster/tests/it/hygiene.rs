//! Server hygiene: loopback unless told otherwise, any case of `Bearer`, private state, a paged
//! job list.

use crate::common::{Server, TempDir};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn a_non_loopback_listen_needs_allow_remote() {
    let dir = TempDir::new("remote");
    let out = Command::new(env!("CARGO_BIN_EXE_blox-cluster"))
        .arg("serve")
        .arg("--state")
        .arg(dir.0.join("state"))
        .args(["--listen", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success(), "the server must refuse to start");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--allow-remote") && err.contains("only protection"),
        "{err}"
    );
    assert!(
        !dir.0.join("state").exists(),
        "nothing is created before the check"
    );
}

/// One request with a hand-written `Authorization` header.
fn raw_get(addr: &str, path: &str, auth: &str) -> u16 {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: {auth}\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    raw.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn bearer_in_any_case_private_state_and_a_paged_job_list() {
    let dir = TempDir::new("hygiene");
    let state = dir.0.join("state");
    // A state folder that already exists with loose permissions is tightened.
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut s = Server::start(&state, &["--nodes", "1x2", "--round", "0.2"]);

    for scheme in ["Bearer", "bearer", "BEARER"] {
        let code = raw_get(&s.addr, "/v1/jobs", &format!("{scheme} {}", s.token));
        assert_eq!(code, 200, "scheme `{scheme}`");
    }
    assert_eq!(
        raw_get(&s.addr, "/v1/jobs", &format!("Basic {}", s.token)),
        401
    );

    let ids: Vec<i64> = (0..5)
        .map(|_| {
            let r = s.call(
                "POST",
                "/v1/jobs",
                Some(r#"{"command": "echo hi", "n_gpus": 1}"#),
            );
            assert_eq!(r.status, 201, "{}", r.body);
            r.json()["id"].as_i64().unwrap()
        })
        .collect();
    // Pages of two: 2 + 2 + 1, each pointing at the next, the last at nothing.
    let mut seen = Vec::new();
    let mut after = 0;
    let mut pages = 0;
    loop {
        let p = s
            .call("GET", &format!("/v1/jobs?limit=2&after={after}"), None)
            .json();
        let jobs = p["jobs"].as_array().unwrap();
        assert!(jobs.len() <= 2, "{p}");
        seen.extend(jobs.iter().map(|j| j["id"].as_i64().unwrap()));
        pages += 1;
        match p["next_after"].as_i64() {
            Some(n) => after = n,
            None => break,
        }
    }
    assert_eq!((seen, pages), (ids.clone(), 3));
    let r = s.call("GET", "/v1/jobs?limit=0", None);
    assert_eq!(r.status, 400);
    assert!(r.body.contains("`limit`"), "{}", r.body);
    let all = s.call("GET", "/v1/jobs", None).json();
    assert_eq!(all["jobs"].as_array().unwrap().len(), 5);
    assert!(all["next_after"].is_null());

    // Wait for the jobs to finish, so their folders and logs exist.
    let t0 = Instant::now();
    while !ids
        .iter()
        .all(|id| s.call("GET", &format!("/v1/jobs/{id}"), None).json()["state"] == "completed")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "jobs did not finish"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    s.stop();
    assert_eq!(mode(&state), 0o700, "state folder");
    for f in ["token", "state.sqlite", "server.addr"] {
        assert_eq!(mode(&state.join(f)), 0o600, "{f}");
    }
    let job = state.join("jobs").join("0");
    assert_eq!(mode(&state.join("jobs")), 0o700, "jobs folder");
    assert_eq!(mode(&job), 0o700, "a job's folder");
    assert_eq!(mode(&job.join("rank0.log")), 0o600, "a job's log");
    assert_eq!(mode(&state.join("out")), 0o700, "output folder");
    assert_eq!(
        mode(&state.join("out").join("jobs.csv")),
        0o600,
        "an output"
    );
}
