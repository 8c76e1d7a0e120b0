//! The bearer token: 32 random bytes from the kernel, hex-encoded, in a file created with mode
//! 0600 (only its owner may read it).

use crate::ClusterError;
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Read the token at `path`, creating it (mode 0600) if it does not exist. An existing file
/// that group or others may read is refused.
pub fn load_or_create(path: &Path) -> Result<String, ClusterError> {
    let io = |e: std::io::Error| ClusterError::io(path, e);
    if path.exists() {
        let mode = std::fs::metadata(path).map_err(io)?.permissions().mode();
        if mode & 0o077 != 0 {
            return Err(ClusterError::Config(format!(
                "{}: token file is readable by others (mode {:o}); run `chmod 600` on it",
                path.display(),
                mode & 0o777
            )));
        }
        return read(path);
    }
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| ClusterError::io(Path::new("/dev/urandom"), e))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io)?;
    writeln!(f, "{token}").map_err(io)?;
    Ok(token)
}

/// Read a token file.
pub fn read(path: &Path) -> Result<String, ClusterError> {
    let t = std::fs::read_to_string(path).map_err(|e| ClusterError::io(path, e))?;
    let t = t.trim().to_string();
    if t.is_empty() {
        return Err(ClusterError::Config(format!(
            "{}: the token file is empty",
            path.display()
        )));
    }
    Ok(t)
}
