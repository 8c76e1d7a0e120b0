//! Job logs with a size cap: `blox-cluster log-sink --max-bytes N FILE` copies what a rank
//! writes (its stdout and stderr, through a pipe) to `FILE`, keeping at most `N` bytes: when the
//! file would grow past `N`, it is replaced (write to a temporary file, then rename) by its last
//! `N / 2` bytes, after a line saying how much was dropped. So a job that prints 20 MB leaves a
//! log of at most `N` bytes holding its last output, and never fills the disk with it.
//!
//! The sink is a process of its own (not a thread of the server), so that a job keeps writing
//! its log while the server is stopped or restarted; it runs in a process group of its own, so
//! the preemption signal is not for it, and it ends when every writer of the pipe has ended.
//!
//! If the log cannot be written (a full disk, above all), the sink gives back what it had
//! started to write, prints the error on its stderr and exits with [`SINK_FAILED`]; the local
//! backend then ends the launch and the job fails with that error as its reason.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The sink's exit code when the log could not be written.
pub const SINK_FAILED: i32 = 3;
/// The smallest cap accepted (`--log-limit`), so that a cap always holds some output.
pub const MIN_LOG_LIMIT: u64 = 4096;

/// Copy `input` to the log at `path` until the end of `input`, keeping at most `max_bytes` in
/// the file (`0`: no cap). Returns the first error that kept the log from being written.
pub fn log_sink(path: &Path, max_bytes: u64, mut input: impl Read) -> io::Result<()> {
    let ctx = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut file = open(path).map_err(ctx)?;
    let mut size = file.metadata().map_err(ctx)?.len();
    // What was dropped so far, and the length of the line saying so at the file's start.
    let mut dropped = (0u64, 0u64);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buf[..n];
        if max_bytes > 0 && size + n as u64 > max_bytes {
            let (f, s) =
                compact(path, &mut file, size, chunk, max_bytes, &mut dropped).map_err(ctx)?;
            file = f;
            size = s;
            continue;
        }
        if let Err(e) = file.write_all(chunk) {
            // Give back what was written of the chunk, so the error frees what it took.
            let _ = file.set_len(size);
            return Err(ctx(e));
        }
        size += n as u64;
    }
}

fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Replace the log by a line saying what was dropped and the last `max / 2` bytes of (the log
/// followed by `chunk`). Returns the new file, open for appending, and its size.
fn compact(
    path: &Path,
    file: &mut File,
    size: u64,
    chunk: &[u8],
    max: u64,
    dropped: &mut (u64, u64),
) -> io::Result<(File, u64)> {
    let (total, note_len) = *dropped;
    let keep = max / 2;
    let from_chunk = (chunk.len() as u64).min(keep);
    // The previous note (at the start) is never kept: the new one replaces it.
    let from_file = (keep - from_chunk).min(size.saturating_sub(note_len));
    let mut old = vec![0u8; from_file as usize];
    let mut r = File::open(path)?;
    r.seek(SeekFrom::Start(size - from_file))?;
    r.read_exact(&mut old)?;
    let total =
        total + (size - from_file).saturating_sub(note_len) + (chunk.len() as u64 - from_chunk);
    let note = format!(
        "[blox-cluster: {total} earlier bytes of this log were dropped (log limit {max} bytes)]\n"
    );
    *dropped = (total, note.len() as u64);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let written = (|| {
        let mut t = File::create(&tmp)?;
        t.write_all(note.as_bytes())?;
        t.write_all(&old)?;
        t.write_all(&chunk[chunk.len() - from_chunk as usize..])?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    let _ = file.flush();
    let f = open(path)?;
    let len = f.metadata()?.len();
    Ok((f, len))
}
