//! Golden outputs: a fixed set of small runs of the `blox-sim` program (both semantics, every
//! policy and placement, real traces, a sweep, a comparison), each output file hashed and held
//! against `golden.txt`. Any change to an output byte fails this test; a deliberate change is
//! recorded by rerunning it with `BLOX_GOLDEN_UPDATE=1` and saying why in the commit.
//!
//! The file is self-contained (it only needs the binary under test, `CARGO_BIN_EXE_blox-sim`,
//! and the repository's `traces/`), so it can move with the command line to another crate.
//! Paths that reach outputs (the output folder and the traces folder in `summary.json`) are
//! replaced by placeholders before hashing, so the hashes do not depend on where the test runs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The expected hashes, one `NAME/FILE SIZE HASH` line per output file.
const GOLDEN: &str = "tests/it/golden.txt";

const POLICIES: [&str; 8] = [
    "fifo", "las", "srtf", "sjf", "tiresias", "optimus", "gavel", "themis",
];
const PLACEMENTS: [&str; 5] = [
    "scattered",
    "first-fit",
    "consolidated",
    "topology",
    "resource-aware",
];

/// 64-bit FNV-1a: enough to detect any change, and needs no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The repository's `traces/` folder (`$BLOX_TRACES` overrides it), canonical so that it
/// matches the paths the program writes; panics naming the path if the data is missing.
fn traces() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let t = dir.join("tiresias/60_job.csv");
    assert!(
        t.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        t.display(),
        std::env::var_os("BLOX_TRACES")
    );
    std::fs::canonicalize(&dir).unwrap()
}

/// One run: a name and the program's arguments (without `--out`).
struct Case {
    name: String,
    args: Vec<String>,
    /// The command writes into `--out DIR` (run, compare, sweep).
    cmd: &'static str,
}

fn case(name: impl Into<String>, cmd: &'static str, args: &[&str]) -> Case {
    Case {
        name: name.into(),
        cmd,
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

fn cases(traces: Option<&Path>) -> Vec<Case> {
    let small = ["--load", "4", "--track", "100..150"];
    let mut v = Vec::new();
    for sem in ["blox", "exact"] {
        for p in POLICIES {
            let mut a = vec!["--semantics", sem, "--policy", p];
            a.extend(small);
            v.push(case(format!("{sem}-{p}"), "run", &a));
        }
    }
    // Every placement with a preempting policy, a rigid one and an elastic one.
    for sem in ["blox", "exact"] {
        for pl in PLACEMENTS {
            for p in ["las", "fifo", "optimus"] {
                let mut a = vec![
                    "--semantics",
                    sem,
                    "--policy",
                    p,
                    "--placement",
                    pl,
                    "--cluster",
                    "8x4",
                ];
                a.extend(["--load", "3", "--track", "50..90"]);
                v.push(case(format!("{sem}-{p}-{pl}"), "run", &a));
            }
        }
    }
    v.push(case(
        "exact-srtf-cost",
        "run",
        &[
            "--policy",
            "srtf",
            "--preemption-cost",
            "60",
            "--cluster",
            "8x4",
            "--load",
            "3",
            "--track",
            "40..80",
        ],
    ));
    v.push(case(
        "blox-las-round60-loadbased",
        "run",
        &[
            "--semantics",
            "blox",
            "--policy",
            "las",
            "--round",
            "60",
            "--admission",
            "load-based:1.2",
            "--cluster",
            "8x4",
            "--load",
            "6",
            "--track",
            "40..80",
        ],
    ));
    v.push(case(
        "exact-tiresias-queuecap-poisson",
        "run",
        &[
            "--policy",
            "tiresias:queues=2,threshold=3600",
            "--admission",
            "queue-cap:limit=5",
            "--workload",
            "poisson",
            "--jobs",
            "120",
            "--gpus",
            "1:0.6,2:0.2,4:0.2",
            "--cluster",
            "4x4",
            "--load",
            "10",
            "--seed",
            "7",
        ],
    ));
    v.push(case(
        "exact-gavel-dual-load",
        "run",
        &[
            "--policy",
            "gavel",
            "--workload",
            "dual-load",
            "--jobs",
            "150",
            "--cluster",
            "8x4",
            "--load",
            "8",
        ],
    ));
    v.push(case(
        "compare-exact",
        "compare",
        &[
            "--policy",
            "fifo,las,srtf",
            "--cluster",
            "8x4",
            "--load",
            "3",
            "--track",
            "30..60",
        ],
    ));
    v.push(case(
        "sweep",
        "sweep",
        &[
            "--semantics",
            "blox,exact",
            "--policy",
            "fifo,las",
            "--load",
            "1,2",
            "--cluster",
            "8x4",
            "--track",
            "30..50",
            "--threads",
            "1",
        ],
    ));
    if let Some(t) = traces {
        let tiresias = t.join("tiresias/60_job.csv");
        let tiresias = tiresias.to_str().unwrap();
        for sem in ["blox", "exact"] {
            for p in ["las", "tiresias", "srtf"] {
                v.push(case(
                    format!("trace-tiresias60-{sem}-{p}"),
                    "run",
                    &[
                        "--semantics",
                        sem,
                        "--policy",
                        p,
                        "--trace",
                        tiresias,
                        "--trace-format",
                        "tiresias",
                        "--cluster",
                        "4x8",
                    ],
                ));
            }
        }
        let gavel = t.join("gavel/physical_cluster/small_test.trace");
        let table = t.join("gavel/physical_cluster_throughputs.json.gz");
        for p in ["gavel", "fifo"] {
            v.push(case(
                format!("trace-gavel-small-typed-{p}"),
                "run",
                &[
                    "--policy",
                    p,
                    "--placement",
                    "consolidated",
                    "--trace",
                    gavel.to_str().unwrap(),
                    "--trace-format",
                    "gavel",
                    "--throughputs",
                    table.to_str().unwrap(),
                    "--cluster",
                    "1x4:v100,1x4:p100,1x4:k80",
                ],
            ));
        }
    }
    v
}

/// Every file under `dir`, relative path and normalised bytes, in path order.
fn files(dir: &Path, root: &Path, traces: Option<&Path>, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, root, traces, out);
            continue;
        }
        let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_string();
        let mut text = String::from_utf8(std::fs::read(&p).unwrap()).expect("outputs are UTF-8");
        text = text.replace(root.to_str().unwrap(), "OUT");
        if let Some(t) = traces {
            text = text.replace(t.to_str().unwrap(), "TRACES");
        }
        out.push((rel, text.into_bytes()));
    }
}

#[test]
fn outputs_match_the_recorded_hashes() {
    let traces = traces();
    let base = std::env::temp_dir().join(format!("blox-golden-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let mut got = String::new();
    for c in cases(Some(&traces)) {
        let dir = base.join(&c.name);
        let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
            .arg(c.cmd)
            .args(&c.args)
            .arg("--out")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} failed: {}",
            c.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let mut fs = Vec::new();
        files(&dir, &dir, Some(&traces), &mut fs);
        assert!(!fs.is_empty(), "{} wrote no files", c.name);
        for (rel, bytes) in fs {
            got.push_str(&format!(
                "{}/{} {} {:016x}\n",
                c.name,
                rel,
                bytes.len(),
                fnv1a(&bytes)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&base);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("BLOX_GOLDEN_UPDATE").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).expect("tests/it/golden.txt exists");
    let diff: Vec<String> = want
        .lines()
        .filter(|l| !got.lines().any(|g| g == *l))
        .map(|l| format!("expected {l}"))
        .chain(
            got.lines()
                .filter(|g| !want.lines().any(|l| l == *g))
                .map(|g| format!("got      {g}")),
        )
        .collect();
    assert!(
        diff.is_empty(),
        "{} golden lines differ (rerun with BLOX_GOLDEN_UPDATE=1 only for a deliberate change):\n{}",
        diff.len(),
        diff.join("\n")
    );
}

#[test]
fn the_hash_detects_a_one_byte_change() {
    assert_ne!(fnv1a(b"jobs.csv 1"), fnv1a(b"jobs.csv 2"));
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
}
