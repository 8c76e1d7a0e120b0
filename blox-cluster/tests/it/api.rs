//! The HTTP API refuses what it must and does what it says.

use crate::common::{Server, TempDir};
use blox_cluster::request;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

#[test]
fn api_validates_authenticates_and_cancels() {
    let dir = TempDir::new("api");
    let state = dir.0.join("state");
    let mut s = Server::start(
        &state,
        &["--nodes", "1x2", "--round", "0.5", "--grace", "2"],
    );
    let mode = std::fs::metadata(state.join("token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the token file is private");

    // No token, wrong token.
    let r = request(&s.addr, "GET", "/v1/jobs", None, None).unwrap();
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("missing bearer token"));
    let body = r#"{"command": "true", "n_gpus": 1}"#;
    let r = request(&s.addr, "POST", "/v1/jobs", None, Some(body)).unwrap();
    assert_eq!(r.status, 401);
    let r = request(&s.addr, "POST", "/v1/jobs", Some("nope"), Some(body)).unwrap();
    assert_eq!(r.status, 401);
    assert!(r.json()["error"]
        .as_str()
        .unwrap()
        .contains("wrong bearer token"));

    // Malformed submissions: 400 naming the field.
    for (body, field) in [
        ("not json", "body"),
        (r#"{"n_gpus": 1}"#, "command"),
        (r#"{"command": "x", "n_gpus": 0}"#, "n_gpus"),
        (r#"{"command": "x", "n_gpus": 3}"#, "n_gpus"),
        (
            r#"{"command": "x", "n_gpus": 1, "total_iterations": -4}"#,
            "total_iterations",
        ),
        (
            r#"{"command": "x", "n_gpus": 1, "colour": "red"}"#,
            "colour",
        ),
    ] {
        let r = s.call("POST", "/v1/jobs", Some(body));
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.json()["field"], field, "{body}: {}", r.body);
        assert!(r.json()["error"].as_str().unwrap().contains(field));
    }
    assert_eq!(s.call("GET", "/v1/nope", None).status, 404);
    assert_eq!(s.call("GET", "/v1/jobs/abc", None).status, 400);
    assert_eq!(s.call("GET", "/v1/jobs/99", None).status, 404);
    assert_eq!(s.call("PUT", "/v1/jobs", None).status, 405);
    // Nothing refused reached the database.
    assert_eq!(
        s.call("GET", "/v1/jobs", None).json()["jobs"]
            .as_array()
            .unwrap()
            .len(),
        0
    );

    // A good job runs; cancelling stops it within the grace period.
    let r = s.call(
        "POST",
        "/v1/jobs",
        Some(r#"{"command": "sleep 60", "n_gpus": 2}"#),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_i64().unwrap();
    let wait_for = |want: &str| {
        let t0 = Instant::now();
        loop {
            let j = s.call("GET", &format!("/v1/jobs/{id}"), None).json();
            if j["state"] == want {
                return j;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "job never {want}: {j}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let j = wait_for("running");
    assert_eq!(j["placement"].as_array().unwrap().len(), 2);
    let nodes = s.call("GET", "/v1/nodes", None).json();
    assert_eq!(nodes["nodes"][0]["gpus"][1]["job"]["id"], id);
    assert_eq!(
        s.call("DELETE", &format!("/v1/jobs/{id}"), None).status,
        202
    );
    wait_for("cancelled");
    assert_eq!(
        s.call("DELETE", &format!("/v1/jobs/{id}"), None).status,
        409
    );
    s.stop();
    assert!(
        crate::common::live_job_groups(&state).is_empty(),
        "no job process is left"
    );
}
