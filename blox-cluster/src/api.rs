//! The HTTP API: JSON over HTTP/1.1 on loopback, every request authenticated with a bearer
//! token and validated.
//!
//! | method and path | does |
//! |---|---|
//! | `POST /v1/jobs` | submit (body: [`Submission`] as JSON) → `201 {"id": N}` |
//! | `GET /v1/jobs?limit=N&after=ID` | one page of jobs in id order → `{"jobs": [...], "next_after": ID or null}` (`limit` 1..=1000, default 100; `after` the last id of the previous page, default 0) |
//! | `GET /v1/jobs/N` | one job |
//! | `DELETE /v1/jobs/N` | cancel → `202` |
//! | `GET /v1/nodes` | nodes, GPUs and which job holds each (reads only the jobs that hold GPUs); `admin` is `drain` or `remove` for a node taken out of service |
//! | `POST /v1/nodes/NAME/drain` \| `remove` \| `add` | take a node out of placement (its jobs are stopped with the grace period, or at once) or put it back; applied at the next round |
//!
//! The scheme of `Authorization: Bearer TOKEN` is matched without regard to case (RFC 9110
//! §11.1). The API listens on loopback unless the server is started with `--allow-remote`
//! (see [`check_listen`]): the token is its only protection and it speaks plain HTTP.
//!
//! Errors are `{"error": "...", "field": "..."}` (the field only for a bad submission) with 400
//! (bad request), 401 (missing or wrong token), 404, 405, 408 (request not sent whole within
//! `--request-timeout`), 409 (job already ended), 413 (body over 1 MiB), 431 (head over 16 KiB),
//! 500 (the state database failed, e.g. a full disk), 501 (`Transfer-Encoding`) or 503 (the
//! server already serves `--max-connections` connections).
//!
//! Connections are served by [`crate::http`]: a thread per connection up to
//! `--max-connections`, each request read against a deadline, the token checked before the
//! body is read; each thread takes a database connection from a small pool. The round loop
//! never waits on a client: it reads what the API wrote to SQLite.

use crate::http::{Handler, Head, HttpLimits, HttpServer, Reply};
use crate::model::Submission;
use crate::store::{unix_ms, JobRow, Store};
use crate::ClusterError;
use crate::Inventory;
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Mutex;

const MAX_BODY: u64 = 1 << 20;
/// Jobs per page of `GET /v1/jobs` when the request does not say.
const PAGE_DEFAULT: u32 = 100;
/// The largest page a request may ask for.
const PAGE_MAX: u32 = 1000;

/// Check the `--listen` address: one that is not loopback (e.g. `0.0.0.0`, a LAN address) is
/// refused unless `allow_remote` is set, because the bearer token is then the only thing that
/// protects the jobs and it crosses the network in clear text. Returns a warning to print when a
/// non-loopback address is allowed.
pub fn check_listen(listen: &str, allow_remote: bool) -> Result<Option<String>, ClusterError> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<std::net::SocketAddr> = listen
        .to_socket_addrs()
        .map_err(|e| ClusterError::Config(format!("--listen `{listen}`: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(ClusterError::Config(format!(
            "--listen `{listen}`: the name resolves to no address"
        )));
    }
    if addrs.iter().all(|a| a.ip().is_loopback()) {
        return Ok(None);
    }
    if !allow_remote {
        return Err(ClusterError::Config(format!(
            "--listen `{listen}` is not a loopback address: other machines could reach the API; \
             pass --allow-remote to accept that (the bearer token is then the only protection, \
             sent in clear text over plain HTTP)"
        )));
    }
    Ok(Some(format!(
        "--listen `{listen}` is reachable from other machines: the bearer token is the only \
         protection, sent in clear text over plain HTTP"
    )))
}

/// The token of an `Authorization` header value: the scheme `Bearer` in any case, one or more
/// spaces, then the token.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, rest) = value.trim().split_once([' ', '\t'])?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// `limit` and `after` of a `GET /v1/jobs` query string, or the message of a 400.
fn page_query(query: &str) -> Result<(u32, i64), String> {
    let mut limit = PAGE_DEFAULT;
    let mut after = 0i64;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "limit" => {
                limit = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=PAGE_MAX).contains(n))
                    .ok_or_else(|| {
                        format!("query parameter `limit`: `{v}` is not a whole number in 1..={PAGE_MAX}")
                    })?;
            }
            "after" => {
                after = v.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
                    format!("query parameter `after`: `{v}` is not a job id (a whole number ≥ 0)")
                })?;
            }
            _ => {
                return Err(format!(
                    "unknown query parameter `{k}` (GET /v1/jobs takes `limit` and `after`)"
                ))
            }
        }
    }
    Ok((limit, after))
}

/// What the API needs.
pub struct Api {
    /// The state database.
    pub db: PathBuf,
    /// The bearer token.
    pub token: String,
    /// The nodes (for `GET /v1/nodes` and submission checks).
    pub inventory: Inventory,
    /// The run's epoch (Unix ms).
    pub epoch: u64,
    /// Connections at once and the time a client has to send a request.
    pub limits: HttpLimits,
}

/// A job as the API shows it.
pub fn job_json(row: &JobRow, inventory: &Inventory) -> Value {
    let r = &row.run;
    let placement: Vec<Value> = r
        .gpus
        .iter()
        .filter_map(|&g| inventory.locate(blox_core::GpuId(g)))
        .map(|(n, idx)| json!({"node": inventory.nodes[n.index()].name, "gpu": idx}))
        .collect();
    let mut v = json!({
        "id": row.id,
        "blox_id": r.blox_id,
        "state": row.state.as_str(),
        "cancel_requested": row.cancel,
        "submission": row.submission,
        "submitted_s": row.submitted_ms as f64 / 1000.0,
        "gpus": r.gpus,
        "placement": placement,
        "iterations": r.iterations,
        "executed_s": r.executed,
        "attained_gpu_s": r.attained,
        "preemptions": r.preemptions,
        "launches": r.launches,
        "first_start_s": r.first_start_ms.map(|t| t as f64 / 1000.0),
        "completion_s": r.completion_ms.map(|t| t as f64 / 1000.0),
        "exit_status": r.exit_status,
    });
    if let Some(why) = &row.unreadable {
        v["unreadable"] = why.as_str().into();
    }
    v
}

fn error(code: u16, msg: &str) -> Reply {
    (code, json!({ "error": msg }))
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from timings.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The running HTTP API; [`ApiServer::shutdown`] stops it.
pub struct ApiServer(HttpServer);

impl ApiServer {
    /// The address it listens on (with the port chosen when `--listen` asked for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.0.addr()
    }

    /// Stop accepting connections.
    pub fn shutdown(self) {
        self.0.shutdown();
    }
}

/// The API with its pool of database connections (one per connection being served, reused).
struct Served {
    api: Api,
    stores: Mutex<Vec<Store>>,
}

impl Served {
    fn with_store(&self, f: impl FnOnce(&Store) -> Reply) -> Reply {
        let pooled = self.stores.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let store = match pooled {
            Some(s) => s,
            None => match Store::open(&self.api.db) {
                Ok(s) => s,
                Err(e) => return error(500, &e.to_string()),
            },
        };
        let r = f(&store);
        self.stores
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(store);
        r
    }
}

impl Handler for Served {
    fn authorize(&self, head: &Head) -> Result<(), Reply> {
        match head.header("authorization") {
            None => Err(error(
                401,
                "missing bearer token (send `Authorization: Bearer TOKEN`)",
            )),
            Some(a) => {
                let given = bearer(a).unwrap_or("");
                if same(given.as_bytes(), self.api.token.as_bytes()) {
                    Ok(())
                } else {
                    Err(error(401, "wrong bearer token"))
                }
            }
        }
    }

    fn max_body(&self, _: &Head) -> u64 {
        MAX_BODY
    }

    fn handle(&self, head: &Head, body: &[u8]) -> Reply {
        self.with_store(|store| self.api.handle(store, &head.method, &head.target, body))
    }
}

impl Api {
    /// Serve requests on `listener` (threads of their own) until [`ApiServer::shutdown`].
    pub fn spawn(self, listener: TcpListener) -> Result<ApiServer, ClusterError> {
        // Check the database once now, so that a bad path fails at start.
        let first = Store::open(&self.db)?;
        let limits = self.limits.clone();
        let served = Served {
            api: self,
            stores: Mutex::new(vec![first]),
        };
        HttpServer::spawn(listener, served, limits)
            .map(ApiServer)
            .map_err(|e| ClusterError::Config(format!("HTTP API: {e}")))
    }

    fn handle(&self, store: &Store, method: &str, url: &str, body: &[u8]) -> Reply {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let path = path.trim_end_matches('/');
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let result = match (method, parts.as_slice()) {
            ("POST", ["v1", "jobs"]) => {
                match Submission::from_json(body, self.inventory.total_gpus()) {
                    Err(e) => {
                        let msg = e.to_string();
                        return (400, json!({"error": msg, "field": e.field}));
                    }
                    Ok(sub) => {
                        let t = unix_ms().saturating_sub(self.epoch);
                        store.submit(&sub, t).map(|id| (201, json!({ "id": id })))
                    }
                }
            }
            ("GET", ["v1", "jobs"]) => {
                let (limit, after) = match page_query(query) {
                    Ok(p) => p,
                    Err(msg) => return error(400, &msg),
                };
                store.jobs_page(after, limit + 1).map(|mut rows| {
                    let more = rows.len() > limit as usize;
                    rows.truncate(limit as usize);
                    let next = more.then(|| rows.last().map(|r| r.id)).flatten();
                    let jobs: Vec<Value> =
                        rows.iter().map(|r| job_json(r, &self.inventory)).collect();
                    (200, json!({ "jobs": jobs, "next_after": next }))
                })
            }
            (m, ["v1", "jobs", id]) => {
                let Ok(id) = id.parse::<i64>() else {
                    return error(400, &format!("job id `{id}` is not a number"));
                };
                match m {
                    "GET" => store.job(id).map(|row| match row {
                        Some(r) => (200, job_json(&r, &self.inventory)),
                        None => (404, json!({ "error": format!("no job {id}") })),
                    }),
                    "DELETE" => store.request_cancel(id).map(|st| match st {
                        None => (404, json!({ "error": format!("no job {id}") })),
                        Some(s) if s.is_terminal() => (
                            409,
                            json!({ "error": format!("job {id} has already ended ({})", s.as_str()) }),
                        ),
                        Some(_) => (202, json!({ "id": id, "cancel_requested": true })),
                    }),
                    _ => Ok((405, json!({ "error": "use GET or DELETE on /v1/jobs/ID" }))),
                }
            }
            ("GET", ["v1", "nodes"]) => store
                .gpu_holders()
                .and_then(|rows| Ok((200, self.nodes_json(&rows, &store.node_admin()?)))),
            ("POST", ["v1", "nodes", name, action]) => {
                if !self.inventory.nodes.iter().any(|n| n.name == *name) {
                    return error(404, &format!("no node `{name}`"));
                }
                let state = match *action {
                    "drain" => Some("drain"),
                    "remove" => Some("remove"),
                    "add" => None,
                    other => {
                        return error(
                            400,
                            &format!(
                                "unknown node action `{other}` (expected drain, remove or add)"
                            ),
                        )
                    }
                };
                store.set_node_admin(name, state).map(|()| {
                    (
                        202,
                        json!({"node": name, "admin": state.unwrap_or("in service")}),
                    )
                })
            }
            (_, ["v1", "jobs"]) | (_, ["v1", "nodes"]) => Ok((
                405,
                json!({ "error": format!("method not allowed on {path}") }),
            )),
            _ => Ok((404, json!({ "error": format!("no such endpoint: {path}") }))),
        };
        result.unwrap_or_else(|e| error(500, &e.to_string()))
    }

    fn nodes_json(
        &self,
        rows: &[JobRow],
        admin: &std::collections::BTreeMap<String, String>,
    ) -> Value {
        // Who holds each GPU: the live launch (also while stopping), else the placement.
        let mut holder: std::collections::BTreeMap<u32, Value> = Default::default();
        for r in rows.iter().filter(|r| !r.state.is_terminal()) {
            let gpus = r.run.live.as_ref().map_or(&r.run.gpus, |l| &l.gpus);
            for &g in gpus {
                holder.insert(
                    g,
                    json!({"id": r.id, "blox_id": r.run.blox_id, "state": r.state.as_str()}),
                );
            }
        }
        let mut first = 0u32;
        let nodes: Vec<Value> = self
            .inventory
            .nodes
            .iter()
            .map(|n| {
                let gpus: Vec<Value> = n
                    .gpu_indices
                    .iter()
                    .enumerate()
                    .map(|(i, &idx)| {
                        let g = first + i as u32;
                        json!({"gpu_id": g, "index": idx, "job": holder.get(&g)})
                    })
                    .collect();
                first += n.gpu_indices.len() as u32;
                json!({"name": n.name, "address": n.address, "cpus": n.cpus, "mem_gb": n.mem_gb, "admin": admin.get(&n.name), "gpus": gpus})
            })
            .collect();
        json!({ "nodes": nodes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for h in ["Bearer abc", "bearer abc", "BEARER  abc ", "BeArEr\tabc"] {
            assert_eq!(bearer(h), Some("abc"), "{h}");
        }
        for h in ["Basic abc", "Bearer", "Bearer ", "Bearerabc", "abc"] {
            assert_eq!(bearer(h), None, "{h}");
        }
    }

    #[test]
    fn pages_are_bounded_and_bad_queries_named() {
        assert_eq!(page_query(""), Ok((PAGE_DEFAULT, 0)));
        assert_eq!(page_query("limit=5&after=12"), Ok((5, 12)));
        for (q, name) in [
            ("limit=0", "`limit`"),
            ("limit=1001", "`limit`"),
            ("limit=x", "`limit`"),
            ("after=-1", "`after`"),
            ("colour=red", "`colour`"),
        ] {
            assert!(page_query(q).unwrap_err().contains(name), "{q}");
        }
    }

    #[test]
    fn only_loopback_listens_without_allow_remote() {
        assert_eq!(check_listen("127.0.0.1:0", false).unwrap(), None);
        assert_eq!(check_listen("[::1]:0", false).unwrap(), None);
        let e = check_listen("0.0.0.0:0", false).unwrap_err().to_string();
        assert!(e.contains("--allow-remote") && e.contains("0.0.0.0"), "{e}");
        let w = check_listen("0.0.0.0:0", true).unwrap().unwrap();
        assert!(w.contains("only protection"), "{w}");
        assert!(check_listen("not an address", false).is_err());
    }
}
