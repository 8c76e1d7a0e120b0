//! All job state in SQLite: submissions, the loop's records, the event log the output files are
//! rebuilt from, and the run's epoch. A restarted server reads everything back from here.

use crate::model::{JobState, RunRecord, Submission};
use crate::ClusterError;
use blox_core::{Event, GpuId, JobId, JobSpec, RoundSample, Time};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One row of the `jobs` table.
#[derive(Clone, Debug)]
pub struct JobRow {
    /// Submission id (what `submit` prints and `cancel` takes).
    pub id: i64,
    /// Where the job is.
    pub state: JobState,
    /// What was submitted.
    pub submission: Submission,
    /// Submission time, ms since the run's epoch.
    pub submitted_ms: u64,
    /// Whether a user asked to cancel it.
    pub cancel: bool,
    /// The loop's record.
    pub run: RunRecord,
    /// Why this row's state or submission could not be read (or the submission is out of
    /// bounds), if so: the row then carries [`JobState::Failed`] (when its state is unreadable)
    /// or a default submission, and the server fails the job with this reason instead of
    /// refusing to start. See [`Store`].
    pub unreadable: Option<String>,
    /// Fields of the run record that could not be read and were replaced by their defaults
    /// (e.g. `executed (invalid type: null, expected f64)`), if any.
    pub repaired: Option<String>,
}

/// An [`Event`] with owned data, as stored in the event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "kebab-case")]
pub enum StoredEvent {
    /// [`Event::Arrived`].
    Arrived {
        /// ms.
        t: u64,
        /// Arrival sequence.
        seq: u64,
        /// The job.
        spec: JobSpec,
    },
    /// [`Event::Admitted`].
    Admitted {
        /// ms.
        t: u64,
        /// Arrival sequence.
        seq: u64,
        /// Id.
        job: u32,
    },
    /// [`Event::Rejected`].
    Rejected {
        /// ms.
        t: u64,
        /// Arrival sequence.
        seq: u64,
    },
    /// [`Event::Started`].
    Started {
        /// ms.
        t: u64,
        /// Id.
        job: u32,
        /// GPUs.
        gpus: Vec<u32>,
    },
    /// [`Event::Preempted`].
    Preempted {
        /// ms.
        t: u64,
        /// Id.
        job: u32,
    },
    /// [`Event::FirstProgress`].
    FirstProgress {
        /// ms.
        t: u64,
        /// Id.
        job: u32,
    },
    /// [`Event::Completed`].
    Completed {
        /// ms.
        t: u64,
        /// Id.
        job: u32,
    },
    /// [`Event::Round`].
    Round {
        /// ms.
        t: u64,
        /// queue, running, pending admission, free GPUs, demand, preemptions.
        s: (u32, u32, u32, u32, u64, u32),
    },
}

impl StoredEvent {
    /// Capture an event (the `End` event and unknown variants are not stored).
    pub fn capture(e: &Event<'_>) -> Option<StoredEvent> {
        Some(match *e {
            Event::Arrived { time, seq, spec } => StoredEvent::Arrived {
                t: time.0,
                seq,
                spec: spec.clone(),
            },
            Event::Admitted { time, seq, job } => StoredEvent::Admitted {
                t: time.0,
                seq,
                job: job.0,
            },
            Event::Rejected { time, seq } => StoredEvent::Rejected { t: time.0, seq },
            Event::Started {
                time, job, gpus, ..
            } => StoredEvent::Started {
                t: time.0,
                job: job.0,
                gpus: gpus.iter().map(|g| g.0).collect(),
            },
            Event::Preempted { time, job, .. } => StoredEvent::Preempted {
                t: time.0,
                job: job.0,
            },
            Event::FirstProgress { time, job } => StoredEvent::FirstProgress {
                t: time.0,
                job: job.0,
            },
            Event::Completed { time, job } => StoredEvent::Completed {
                t: time.0,
                job: job.0,
            },
            Event::Round(s) => StoredEvent::Round {
                t: s.time.0,
                s: (
                    s.jobs_in_queue,
                    s.jobs_running,
                    s.jobs_pending_admission,
                    s.free_gpus,
                    s.gpu_demand,
                    s.preemptions,
                ),
            },
            _ => return None,
        })
    }

    /// Hand the event to `f` as a borrowed [`Event`].
    pub fn replay(&self, f: &mut dyn FnMut(&Event<'_>)) {
        match self {
            StoredEvent::Arrived { t, seq, spec } => f(&Event::Arrived {
                time: Time(*t),
                seq: *seq,
                spec,
            }),
            StoredEvent::Admitted { t, seq, job } => f(&Event::Admitted {
                time: Time(*t),
                seq: *seq,
                job: JobId(*job),
            }),
            StoredEvent::Rejected { t, seq } => f(&Event::Rejected {
                time: Time(*t),
                seq: *seq,
            }),
            StoredEvent::Started { t, job, gpus } => {
                let gpus: Vec<GpuId> = gpus.iter().map(|&g| GpuId(g)).collect();
                f(&Event::Started {
                    time: Time(*t),
                    job: JobId(*job),
                    gpus: &gpus,
                    speed: 1.0,
                });
            }
            StoredEvent::Preempted { t, job } => f(&Event::Preempted {
                time: Time(*t),
                job: JobId(*job),
                counted: true,
            }),
            StoredEvent::FirstProgress { t, job } => f(&Event::FirstProgress {
                time: Time(*t),
                job: JobId(*job),
            }),
            StoredEvent::Completed { t, job } => f(&Event::Completed {
                time: Time(*t),
                job: JobId(*job),
            }),
            StoredEvent::Round { t, s } => f(&Event::Round(RoundSample::new(
                Time(*t),
                s.0,
                s.1,
                s.2,
                s.3,
                s.4,
                s.5,
            ))),
        }
    }
}

/// Deserialize `raw` (a JSON object) as a `T`, dropping the fields that do not read: start
/// from `base`, add the fields of `raw` one at a time, keep each one with which a `T` still
/// reads. Returns the value and the dropped fields with their errors (`None` if none was
/// dropped), or `None` if not even `base` reads.
fn salvage<T: serde::de::DeserializeOwned>(
    raw: &serde_json::Value,
    base: serde_json::Map<String, serde_json::Value>,
) -> Option<(T, Option<String>)> {
    use serde_json::Value;
    let mut cur = base;
    let mut dropped = Vec::new();
    if let Value::Object(fields) = raw {
        for (k, v) in fields {
            let mut next = cur.clone();
            next.insert(k.clone(), v.clone());
            match serde_json::from_value::<T>(Value::Object(next.clone())) {
                Ok(_) => cur = next,
                Err(e) => dropped.push(format!("`{k}` ({e})")),
            }
        }
    } else {
        dropped.push("the whole record (not a JSON object)".to_owned());
    }
    let value = serde_json::from_value::<T>(Value::Object(cur)).ok()?;
    Some((value, (!dropped.is_empty()).then(|| dropped.join(", "))))
}

/// A connection to the state database (one per thread).
///
/// Reading never fails on a bad row: a stored state that cannot be read must not keep the
/// server from starting or the API from answering. A job row whose state or submission cannot
/// be read (or whose submission is out of bounds, e.g. written by an older version) is returned
/// with [`JobRow::unreadable`] set, and the server fails that job with the reason; unreadable
/// fields of a run record are replaced by their defaults ([`JobRow::repaired`]); an event of the
/// log that cannot be read is repaired (an arrival keeps its sequence number and what of its job
/// reads) or skipped, and reported ([`Store::events`]).
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

fn db_err(path: &Path) -> impl Fn(rusqlite::Error) -> ClusterError + '_ {
    move |e| ClusterError::State(format!("{}: {e}", path.display()))
}

/// Whether a job in `state` with record `run` holds GPUs (what `GET /v1/nodes` shows).
fn holds_gpus(state: JobState, run: &RunRecord) -> bool {
    !state.is_terminal()
        && (run.live.as_ref().is_some_and(|l| !l.gpus.is_empty()) || !run.gpus.is_empty())
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis() as u64
}

impl Store {
    /// Open (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, ClusterError> {
        let err = db_err(path);
        let conn = Connection::open(path).map_err(&err)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(&err)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS jobs (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 state TEXT NOT NULL,
                 submission TEXT NOT NULL,
                 submitted_ms INTEGER NOT NULL,
                 cancel INTEGER NOT NULL DEFAULT 0,
                 run TEXT NOT NULL DEFAULT '{}');
             CREATE TABLE IF NOT EXISTS events (n INTEGER PRIMARY KEY AUTOINCREMENT, ev TEXT NOT NULL);",
        )
        .map_err(&err)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.add_holds_column()?;
        Ok(store)
    }

    /// The `holds` column (1 while a job holds GPUs: a live launch or a placement) and its
    /// index, so that `GET /v1/nodes` reads only those rows, never every job ever submitted.
    /// A database written before the column existed is filled in once here.
    fn add_holds_column(&self) -> Result<(), ClusterError> {
        let has: bool = self
            .conn
            .prepare("SELECT 1 FROM pragma_table_info('jobs') WHERE name = 'holds'")
            .and_then(|mut st| st.exists([]))
            .map_err(self.err())?;
        if !has {
            self.conn
                .execute_batch("ALTER TABLE jobs ADD COLUMN holds INTEGER NOT NULL DEFAULT 0")
                .map_err(self.err())?;
            for row in self.jobs()? {
                self.conn
                    .execute(
                        "UPDATE jobs SET holds = ?2 WHERE id = ?1",
                        params![row.id, holds_gpus(row.state, &row.run)],
                    )
                    .map_err(self.err())?;
            }
        }
        self.conn
            .execute_batch("CREATE INDEX IF NOT EXISTS jobs_holds ON jobs (holds) WHERE holds = 1")
            .map_err(self.err())
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> ClusterError + '_ {
        db_err(&self.path)
    }

    /// A value of the `meta` table.
    pub fn meta(&self, key: &str) -> Result<Option<String>, ClusterError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(self.err())
    }

    /// Nodes an administrator took out of service (`blox-cluster nodes drain|remove NODE`), by
    /// name: `drain` (jobs stopped with the grace period) or `remove` (stopped at once). Kept
    /// in the `meta` table under `node_admin`, so that it survives a restart.
    pub fn node_admin(&self) -> Result<BTreeMap<String, String>, ClusterError> {
        Ok(match self.meta("node_admin")? {
            Some(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                // Unreadable: every node in service (the next `nodes drain|remove|add`
                // rewrites it).
                eprintln!(
                    "blox-cluster: {}: unreadable meta `node_admin` ({e}); every node is taken \
                     to be in service",
                    self.path.display()
                );
                BTreeMap::new()
            }),
            None => BTreeMap::new(),
        })
    }

    /// Take node `name` out of service (`drain` or `remove`), or put it back (`None`).
    pub fn set_node_admin(&self, name: &str, state: Option<&str>) -> Result<(), ClusterError> {
        let mut m = self.node_admin()?;
        match state {
            Some(s) => m.insert(name.to_owned(), s.to_owned()),
            None => m.remove(name),
        };
        let text = serde_json::to_string(&m).map_err(|e| ClusterError::State(e.to_string()))?;
        self.set_meta("node_admin", &text)
    }

    /// Set a value of the `meta` table.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), ClusterError> {
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map(drop)
            .map_err(self.err())
    }

    /// The run's epoch (Unix ms): time 0 of every time the server reports. Set on first use.
    pub fn epoch(&self) -> Result<u64, ClusterError> {
        if let Some(v) = self.meta("epoch_unix_ms")? {
            match v.parse() {
                Ok(e) => return Ok(e),
                Err(_) => eprintln!(
                    "blox-cluster: {}: unreadable epoch `{v}`; the run's time 0 is reset to now",
                    self.path.display()
                ),
            }
        }
        let now = unix_ms();
        self.set_meta("epoch_unix_ms", &now.to_string())?;
        Ok(now)
    }

    /// Insert a submission; returns its id.
    pub fn submit(&self, s: &Submission, submitted_ms: u64) -> Result<i64, ClusterError> {
        let json = serde_json::to_string(s).map_err(|e| ClusterError::State(e.to_string()))?;
        self.conn
            .execute(
                "INSERT INTO jobs (state, submission, submitted_ms) VALUES ('submitted', ?1, ?2)",
                params![json, submitted_ms as i64],
            )
            .map_err(self.err())?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Ask to cancel a job. Returns its state, or `None` if there is no such job.
    pub fn request_cancel(&self, id: i64) -> Result<Option<JobState>, ClusterError> {
        let Some(row) = self.job(id)? else {
            return Ok(None);
        };
        if !row.state.is_terminal() {
            self.conn
                .execute("UPDATE jobs SET cancel = 1 WHERE id = ?1", [id])
                .map_err(self.err())?;
        }
        Ok(Some(row.state))
    }

    fn read_row(
        r: &rusqlite::Row<'_>,
    ) -> rusqlite::Result<(i64, String, String, i64, i64, String)> {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    }

    fn to_row(&self, raw: (i64, String, String, i64, i64, String)) -> Result<JobRow, ClusterError> {
        let (id, state, sub, submitted, cancel, run) = raw;
        let mut unreadable = Vec::new();
        let state = JobState::parse(&state).unwrap_or_else(|| {
            unreadable.push(format!("state `{state}` is not a job state"));
            JobState::Failed
        });
        let submission = match serde_json::from_str::<Submission>(&sub) {
            Ok(s) => match s.check() {
                Ok(()) => s,
                Err(e) => {
                    unreadable.push(format!("submission out of bounds: {e}"));
                    s
                }
            },
            Err(e) => {
                unreadable.push(format!("submission: {e}"));
                Submission::default()
            }
        };
        let (run, repaired) = match serde_json::from_str::<RunRecord>(&run) {
            Ok(r) => (r, None),
            Err(e) => match serde_json::from_str::<serde_json::Value>(&run)
                .ok()
                .and_then(|v| salvage::<RunRecord>(&v, Default::default()))
            {
                Some((r, dropped)) => (r, dropped),
                None => (
                    RunRecord::default(),
                    Some(format!("the whole record ({e})")),
                ),
            },
        };
        Ok(JobRow {
            id,
            state,
            submission,
            submitted_ms: submitted.max(0) as u64,
            cancel: cancel != 0,
            run,
            unreadable: (!unreadable.is_empty()).then(|| unreadable.join("; ")),
            repaired,
        })
    }

    /// Every job, in submission order.
    pub fn jobs(&self) -> Result<Vec<JobRow>, ClusterError> {
        self.select(
            "SELECT id, state, submission, submitted_ms, cancel, run FROM jobs ORDER BY id",
            [],
        )
    }

    /// At most `limit` jobs with ids above `after`, in submission order (one page of the API's
    /// job list).
    pub fn jobs_page(&self, after: i64, limit: u32) -> Result<Vec<JobRow>, ClusterError> {
        self.select(
            "SELECT id, state, submission, submitted_ms, cancel, run FROM jobs WHERE id > ?1 ORDER BY id LIMIT ?2",
            params![after, limit],
        )
    }

    /// The jobs that hold GPUs (a live launch, also while it stops, or a placement), in
    /// submission order: at most a few per GPU, whatever the number of jobs ever submitted.
    pub fn gpu_holders(&self) -> Result<Vec<JobRow>, ClusterError> {
        self.select(
            "SELECT id, state, submission, submitted_ms, cancel, run FROM jobs WHERE holds = 1 ORDER BY id",
            [],
        )
    }

    /// Jobs the loop has not seen yet, in submission order.
    pub fn new_submissions(&self) -> Result<Vec<JobRow>, ClusterError> {
        self.select(
            "SELECT id, state, submission, submitted_ms, cancel, run FROM jobs WHERE state = 'submitted' ORDER BY id",
            [],
        )
    }

    /// Ids of live jobs a user asked to cancel.
    pub fn cancel_requests(&self) -> Result<Vec<i64>, ClusterError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id FROM jobs WHERE cancel = 1 AND state NOT IN ('completed','failed','cancelled','rejected')",
            )
            .map_err(self.err())?;
        let ids = st
            .query_map([], |r| r.get(0))
            .map_err(self.err())?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(self.err())?;
        Ok(ids)
    }

    fn select<P: rusqlite::Params>(&self, sql: &str, p: P) -> Result<Vec<JobRow>, ClusterError> {
        let mut st = self.conn.prepare_cached(sql).map_err(self.err())?;
        let raws = st
            .query_map(p, Self::read_row)
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        raws.into_iter().map(|r| self.to_row(r)).collect()
    }

    /// One job.
    pub fn job(&self, id: i64) -> Result<Option<JobRow>, ClusterError> {
        Ok(self
            .select(
                "SELECT id, state, submission, submitted_ms, cancel, run FROM jobs WHERE id = ?1",
                [id],
            )?
            .pop())
    }

    /// Write the loop's changes (job states and records, new events) in one transaction.
    pub fn commit(
        &mut self,
        jobs: &[(i64, JobState, &RunRecord)],
        events: &[StoredEvent],
    ) -> Result<(), ClusterError> {
        let path = self.path.clone();
        let err = db_err(&path);
        let tx = self.conn.transaction().map_err(&err)?;
        {
            let mut up = tx
                .prepare_cached("UPDATE jobs SET state = ?2, run = ?3, holds = ?4 WHERE id = ?1")
                .map_err(&err)?;
            for (id, state, run) in jobs {
                let json =
                    serde_json::to_string(run).map_err(|e| ClusterError::State(e.to_string()))?;
                up.execute(params![id, state.as_str(), json, holds_gpus(*state, run)])
                    .map_err(&err)?;
            }
            let mut ins = tx
                .prepare_cached("INSERT INTO events (ev) VALUES (?1)")
                .map_err(&err)?;
            for e in events {
                let json =
                    serde_json::to_string(e).map_err(|e| ClusterError::State(e.to_string()))?;
                ins.execute([json]).map_err(&err)?;
            }
        }
        tx.commit().map_err(&err)
    }

    /// The whole event log, in order (what cannot be read of it repaired or skipped, as
    /// [`Store::events_checked`] does).
    pub fn events(&self) -> Result<Vec<StoredEvent>, ClusterError> {
        Ok(self.events_checked()?.0)
    }

    /// The whole event log, in order, and what could not be read of it. An event that does not
    /// read is repaired when it is an arrival whose time and sequence number read (its job keeps
    /// what of it reads: a placeholder of 1 GPU and no known work otherwise), and skipped
    /// otherwise; each is reported (`event N: ...`) in the second list.
    pub fn events_checked(&self) -> Result<(Vec<StoredEvent>, Vec<String>), ClusterError> {
        let mut st = self
            .conn
            .prepare("SELECT n, ev FROM events ORDER BY n")
            .map_err(self.err())?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        let mut out = Vec::with_capacity(rows.len());
        let mut problems = Vec::new();
        for (n, text) in rows {
            match serde_json::from_str::<StoredEvent>(&text) {
                Ok(e) => out.push(e),
                Err(e) => match repair_arrival(&text) {
                    Some((ev, dropped)) => {
                        problems.push(format!(
                            "event {n}: {e}; an arrival, kept without {dropped}"
                        ));
                        out.push(ev);
                    }
                    None => {
                        let head: String = text.chars().take(80).collect();
                        problems.push(format!("event {n} (`{head}`): {e}; skipped"))
                    }
                },
            }
        }
        Ok((out, problems))
    }
}

/// An arrival event whose job does not read, kept with what of it reads (the time and sequence
/// number must read).
fn repair_arrival(text: &str) -> Option<(StoredEvent, String)> {
    use serde_json::{json, Value};
    let v: Value = serde_json::from_str(text).ok()?;
    if v.get("e")?.as_str()? != "arrived" {
        return None;
    }
    let t = v.get("t")?.as_u64()?;
    let seq = v.get("seq")?.as_u64()?;
    let base = json!({"arrival": t, "n_gpus": 1, "work_s": 0.0});
    let Value::Object(base) = base else {
        return None;
    };
    let raw = v.get("spec").cloned().unwrap_or(Value::Null);
    let (spec, dropped) = salvage::<JobSpec>(&raw, base)?;
    Some((
        StoredEvent::Arrived { t, seq, spec },
        dropped.unwrap_or_else(|| "nothing".into()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LiveRecord;

    /// `GET /v1/nodes` reads only the jobs that hold GPUs: with a thousand finished jobs in the
    /// database it reads the two live ones, not every row.
    #[test]
    fn gpu_holders_reads_only_live_jobs_with_gpus() {
        let dir = std::env::temp_dir().join(format!("blox-store-holders-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = Store::open(&dir.join("state.sqlite")).unwrap();
        let sub = Submission::from_json(br#"{"command": "true", "n_gpus": 1}"#, 4).unwrap();
        let done = RunRecord {
            gpus: vec![0],
            ..RunRecord::default()
        };
        let placed = RunRecord {
            gpus: vec![1],
            ..RunRecord::default()
        };
        let stopping = RunRecord {
            live: Some(LiveRecord {
                attempt: 0,
                gpus: vec![2],
                handle: String::new(),
                stopping: true,
            }),
            ..RunRecord::default()
        };
        let waiting = RunRecord::default();
        let mut ids = Vec::new();
        for _ in 0..1003 {
            ids.push(store.submit(&sub, 0).unwrap());
        }
        let mut rows: Vec<(i64, JobState, &RunRecord)> = ids[..1000]
            .iter()
            .map(|&i| (i, JobState::Completed, &done))
            .collect();
        rows.push((ids[1000], JobState::Starting, &placed));
        rows.push((ids[1001], JobState::Waiting, &stopping));
        rows.push((ids[1002], JobState::Waiting, &waiting));
        store.commit(&rows, &[]).unwrap();
        let held: Vec<i64> = store.gpu_holders().unwrap().iter().map(|r| r.id).collect();
        assert_eq!(held, vec![ids[1000], ids[1001]]);
        // The query uses the partial index, not a scan of the table.
        let plan: String = store
            .conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT id FROM jobs WHERE holds = 1 ORDER BY id",
                [],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("jobs_holds"), "{plan}");
        // A page is bounded.
        assert_eq!(store.jobs_page(ids[10], 5).unwrap().len(), 5);
        assert_eq!(store.jobs_page(ids[10], 5).unwrap()[0].id, ids[11]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
