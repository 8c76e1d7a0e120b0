//! A run's output files are replaced as one unit: after a failed write every file of the
//! previous run is still there, unchanged, and nothing temporary is left behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let bytes = if e.file_type().unwrap().is_dir() {
            b"<dir>".to_vec()
        } else {
            std::fs::read(e.path()).unwrap()
        };
        out.insert(name, bytes);
    }
    out
}

/// The two snapshots hold the same names with the same bytes (differences are named, not
/// printed).
#[track_caller]
fn assert_same(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>, what: &str) {
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(got), names(want), "{what}: the folder's entries");
    let changed: Vec<&String> = got.keys().filter(|k| got[*k] != want[*k]).collect();
    assert!(changed.is_empty(), "{what}: changed files {changed:?}");
}

fn run_args(dir: &Path, seed: &str) -> Vec<String> {
    [
        "run",
        "--workload",
        "poisson",
        "--jobs",
        "300",
        "--load",
        "20",
        "--cluster",
        "4x4",
        "--seed",
        seed,
        "--out",
        dir.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blox-cli-out-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn first_run(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let st = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(run_args(dir, "1"))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let snap = snapshot(dir);
    assert_eq!(
        snap.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "fairness.csv",
            "jct_cdf.csv",
            "jobs.csv",
            "summary.json",
            "timeline.csv",
            "timeline.svg"
        ]
    );
    snap
}

#[test]
fn a_folder_in_a_files_place_changes_nothing() {
    let dir = fresh("dir");
    let mut before = first_run(&dir);
    std::fs::remove_file(dir.join("timeline.csv")).unwrap();
    std::fs::create_dir(dir.join("timeline.csv")).unwrap();
    before.insert("timeline.csv".into(), b"<dir>".to_vec());
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(run_args(&dir, "2"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("timeline.csv") && err.contains("not a regular file"),
        "{err}"
    );
    assert_same(
        &snapshot(&dir),
        &before,
        "the old outputs are all unchanged",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_changes_nothing_and_leaves_no_temporary_file() {
    let dir = fresh("full");
    let before = first_run(&dir);
    // A file-size limit makes every write past 8 blocks fail (EFBIG), as a full disk would.
    let args = run_args(&dir, "2")
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let script = format!(
        "trap '' XFSZ; ulimit -f 8; exec '{}' {args}",
        env!("CARGO_BIN_EXE_blox-sim")
    );
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the write must fail: {err}");
    assert!(err.contains("error:"), "{err}");
    assert_same(
        &snapshot(&dir),
        &before,
        "the old outputs are all unchanged and nothing else is there",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
