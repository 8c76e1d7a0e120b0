//! Writing a run's output files as one unit.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file that could not be written, and why.
#[derive(Debug)]
pub struct FileError {
    /// The file (or folder) at fault.
    pub path: PathBuf,
    /// The operating system's error.
    pub source: std::io::Error,
}

impl FileError {
    fn new(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FileError {
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Write several files into `dir` as one unit: either every one of them is replaced, or none is
/// and the folder holds exactly what it held before, with no temporary file left behind.
///
/// Every target must be absent or a regular file (checked before anything is written). The new
/// contents are written and synced in a fresh hidden staging folder inside `dir` (so the renames
/// stay on one file system); only when all of them are on disk are the old files moved aside and
/// the new ones renamed into place, and any failure in that step moves the old ones back. The
/// staging folder is removed in every case.
pub fn write_all_or_nothing(dir: &Path, files: &[(&str, Vec<u8>)]) -> Result<(), FileError> {
    std::fs::create_dir_all(dir).map_err(|e| FileError::new(dir, e))?;
    remove_stale_staging(dir);
    for (name, _) in files {
        let path = dir.join(name);
        if let Ok(m) = std::fs::symlink_metadata(&path) {
            if !m.is_file() {
                return Err(FileError::new(
                    &path,
                    std::io::Error::other(
                        "exists and is not a regular file; no output file was written",
                    ),
                ));
            }
        }
    }
    let staging = staging_dir(dir)?;
    let result = stage_and_commit(dir, &staging, files);
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// Removes the staging folders that runs killed while writing left in `dir`: those of processes
/// no longer running (where `/proc` tells; elsewhere none is removed).
fn remove_stale_staging(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(".blox-staging-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A new, empty hidden folder in `dir` for staging.
fn staging_dir(dir: &Path) -> Result<PathBuf, FileError> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = dir.join(format!(".blox-staging-{}-{n}", std::process::id()));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(FileError::new(&p, e)),
        }
    }
}

fn stage_and_commit(
    dir: &Path,
    staging: &Path,
    files: &[(&str, Vec<u8>)],
) -> Result<(), FileError> {
    for (name, bytes) in files {
        let p = staging.join(name);
        let mut f = std::fs::File::create(&p).map_err(|e| FileError::new(dir.join(name), e))?;
        f.write_all(bytes)
            .and_then(|()| f.sync_all())
            .map_err(|e| FileError::new(dir.join(name), e))?;
    }
    let old = staging.join("old");
    std::fs::create_dir(&old).map_err(|e| FileError::new(&old, e))?;
    // (name, whether an old file was moved aside, whether the new one is in place)
    let mut done: Vec<(&str, bool, bool)> = Vec::new();
    let mut failure = None;
    for (name, _) in files {
        let target = dir.join(name);
        let moved = match std::fs::rename(&target, old.join(name)) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => {
                failure = Some(FileError::new(&target, e));
                break;
            }
        };
        done.push((name, moved, false));
        if let Err(e) = std::fs::rename(staging.join(name), &target) {
            failure = Some(FileError::new(&target, e));
            break;
        }
        if let Some(last) = done.last_mut() {
            last.2 = true;
        }
    }
    match failure {
        None => {
            // Make the renames durable; a folder that cannot be synced is no error.
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
            Ok(())
        }
        Some(e) => {
            for (name, moved, placed) in done.into_iter().rev() {
                if placed {
                    let _ = std::fs::remove_file(dir.join(name));
                }
                if moved {
                    let _ = std::fs::rename(old.join(name), dir.join(name));
                }
            }
            Err(e)
        }
    }
}
