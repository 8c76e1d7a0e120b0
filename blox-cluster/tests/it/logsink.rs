//! Tests of `logsink` (the library's `src/logsink.rs`) through the public API.

use blox_cluster::*;
use std::fs::{self};
use std::io::Write;
use std::path::Path;

#[test]
fn keeps_the_tail_within_the_cap() {
    let dir = std::env::temp_dir().join(format!("blox-sink-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let log = dir.join("rank0.log");
    fs::write(&log, "from an earlier attempt\n").unwrap();
    let mut text = Vec::new();
    for i in 0..200_000 {
        writeln!(text, "line {i}").unwrap();
    }
    log_sink(&log, 8192, &text[..]).unwrap();
    let out = fs::read_to_string(&log).unwrap();
    assert!(out.len() as u64 <= 8192, "{}", out.len());
    assert!(out.ends_with("line 199999\n"), "the tail is kept");
    assert!(out.starts_with("[blox-cluster: "), "{}", &out[..80]);
    let dropped: u64 = out[15..].split(' ').next().unwrap().parse().unwrap();
    let body = out.split_once('\n').unwrap().1;
    assert_eq!(
        dropped + body.len() as u64,
        text.len() as u64 + 24,
        "every byte is kept or counted as dropped"
    );
    assert!(!dir.join(".rank0.log.tmp").exists());
    // No cap: everything.
    let all = dir.join("all.log");
    log_sink(&all, 0, &text[..]).unwrap();
    assert_eq!(fs::read(&all).unwrap(), text);
    // A full disk is an error that names the file.
    let e = log_sink(Path::new("/dev/full"), 0, &b"x"[..]).unwrap_err();
    assert!(e.to_string().contains("/dev/full"), "{e}");
    let _ = fs::remove_dir_all(&dir);
}
