//! Following a launch's metrics file (JSON lines appended by the job), shared by every backend.

use crate::ExecEvent;
use blox_core::JobId;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

/// The read position in one launch's metrics file and what it has said so far.
#[derive(Debug)]
pub(crate) struct MetricsTail {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
    attempt: u32,
    /// The job wrote its `started` line (its signal handler is in place).
    pub(crate) started: bool,
    /// The last iteration count it reported.
    pub(crate) last_iter: Option<u64>,
}

impl MetricsTail {
    /// Follow `path` for `attempt`, from byte `offset` (lines of earlier attempts are skipped).
    pub(crate) fn new(path: PathBuf, offset: u64, attempt: u32) -> Self {
        MetricsTail {
            path,
            offset,
            partial: Vec::new(),
            attempt,
            started: false,
            last_iter: None,
        }
    }

    /// Follow `path` for `attempt`, from its current end.
    pub(crate) fn from_end(path: PathBuf, attempt: u32) -> Self {
        let offset = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        Self::new(path, offset, attempt)
    }

    /// Read the lines appended since the last call, and report a first `started` and any new
    /// iteration count as events for `job`.
    pub(crate) fn poll(&mut self, job: JobId, out: &mut Vec<ExecEvent>) {
        let was_started = self.started;
        let last = self.last_iter;
        self.read();
        if self.started && !was_started {
            out.push(ExecEvent::Started {
                job,
                attempt: self.attempt,
            });
        }
        if let Some(i) = self.last_iter.filter(|&i| Some(i) != last) {
            out.push(ExecEvent::Progress {
                job,
                attempt: self.attempt,
                iterations: i,
            });
        }
    }

    fn read(&mut self) {
        let Ok(mut f) = fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() {
            return;
        }
        self.offset += buf.len() as u64;
        self.partial.extend_from_slice(&buf);
        while let Some(nl) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=nl).collect();
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) else {
                continue;
            };
            let attempt = v.get("attempt").and_then(|a| a.as_u64());
            if attempt.is_some_and(|a| a != u64::from(self.attempt)) {
                continue;
            }
            if v.get("event").and_then(|e| e.as_str()) == Some("started") {
                self.started = true;
            }
            if let Some(i) = v.get("iter").and_then(|i| i.as_u64()) {
                self.last_iter = Some(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_started_and_progress_of_its_attempt_only() {
        let dir = std::env::temp_dir().join(format!("blox-tail-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.jsonl");
        fs::write(&path, "{\"attempt\":0,\"iter\":5}\n").unwrap();
        let mut t = MetricsTail::from_end(path.clone(), 1);
        let mut out = Vec::new();
        t.poll(JobId(3), &mut out);
        assert!(out.is_empty(), "the earlier attempt's lines are skipped");
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut f, b"{\"attempt\":1,\"event\":\"started\"}\n{\"attempt\":1,\"iter\":7}\n{\"attempt\":1,\"it").unwrap();
        t.poll(JobId(3), &mut out);
        assert_eq!(out.len(), 2);
        assert!(matches!(
            out[0],
            ExecEvent::Started {
                job: JobId(3),
                attempt: 1
            }
        ));
        assert!(matches!(out[1], ExecEvent::Progress { iterations: 7, .. }));
        fs::remove_dir_all(&dir).unwrap();
    }
}
