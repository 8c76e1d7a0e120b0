//! One server per state folder: an exclusive `flock(2)` on `STATE/server.lock`, held for the
//! server's whole life, with the holder's pid written in the file.
//!
//! The lock is the kernel's: it is released when the server exits, however it exits (a crash or
//! SIGKILL included), so a stale lock file never keeps a server from starting. Job processes do
//! not inherit it (the file is opened close-on-exec), so jobs left running by a stopped server
//! do not hold it either.

use crate::ClusterError;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock on a state folder; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct StateLock {
    _lock: Flock<File>,
    path: PathBuf,
}

impl StateLock {
    /// Take the lock on the state folder `state` (which must exist), or fail naming the pid of
    /// the server that holds it.
    pub fn acquire(state: &Path) -> Result<StateLock, ClusterError> {
        let path = state.join("server.lock");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| ClusterError::io(&path, e))?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(mut lock) => {
                let pid = std::process::id();
                lock.set_len(0)
                    .and_then(|()| lock.seek(SeekFrom::Start(0)).map(drop))
                    .and_then(|()| writeln!(*lock, "{pid}"))
                    .map_err(|e| ClusterError::io(&path, e))?;
                Ok(StateLock { _lock: lock, path })
            }
            Err((_, Errno::EWOULDBLOCK)) => {
                let holder = std::fs::read_to_string(&path)
                    .ok()
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .map_or_else(|| "pid unknown".to_owned(), |p| format!("pid {p}"));
                Err(ClusterError::Config(format!(
                    "state folder {} is in use by another blox-cluster server ({holder}, which \
                     holds {}); stop that server first, or give this one another --state",
                    state.display(),
                    path.display()
                )))
            }
            Err((_, e)) => Err(ClusterError::io(&path, format!("cannot lock: {e}"))),
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
