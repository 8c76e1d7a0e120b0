//! Every command in README.md and docs/*.md runs.
//!
//! Convention: a fenced block tagged `sh` is run; `console`, `bash`, `text` and every other
//! tag are shown only (real-cluster and Slurm commands, other binaries, runs too long for CI).
//! A `sh` block runs as one bash script with `set -e` in a fresh temporary folder holding a
//! link to the repository's `traces/` (so `--out out/...` and files the block writes land there),
//! with `cargo run --release --bin blox-sim --` and `blox-sim` meaning this build's binary.
//! When a `text` block directly follows a `sh` block, it is that block's output: each of its
//! lines (whitespace runs collapsed; lines with a wall-clock time skipped) must appear in it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Block {
    at: String,
    script: String,
    commands: usize,
    expect: Vec<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn fence(line: &str) -> Option<&str> {
    line.trim_end().strip_prefix("```")
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn blocks_of(rel: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(tag) = fence(lines[i]) else {
            i += 1;
            continue;
        };
        let start = i;
        let mut end = i + 1;
        while end < lines.len() && fence(lines[end]).is_none() {
            end += 1;
        }
        if tag == "sh" {
            let body = &lines[start + 1..end];
            let commands = body
                .iter()
                .enumerate()
                .filter(|(k, l)| {
                    let l = l.trim();
                    !l.is_empty()
                        && !l.starts_with('#')
                        && (*k == 0 || !body[k - 1].trim_end().ends_with('\\'))
                })
                .count();
            let script = body
                .join("\n")
                .replace("cargo run --release --bin blox-sim --", "blox-sim")
                .replace("cargo run --release --bin blox-sim", "blox-sim");
            let mut next = end + 1;
            while next < lines.len() && lines[next].trim().is_empty() {
                next += 1;
            }
            let mut expect = Vec::new();
            if next < lines.len() && fence(lines[next]) == Some("text") {
                let mut k = next + 1;
                while k < lines.len() && fence(lines[k]).is_none() {
                    let l = squash(lines[k]);
                    if !l.is_empty() && !l.contains("wall") {
                        expect.push(l);
                    }
                    k += 1;
                }
            }
            out.push(Block {
                at: format!("{rel}:{}", start + 1),
                script,
                commands,
                expect,
            });
        }
        i = end + 1;
    }
    out
}

fn all_blocks() -> Vec<Block> {
    let root = root();
    let mut files = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .iter()
        .flat_map(|f| blocks_of(f, &std::fs::read_to_string(root.join(f)).unwrap()))
        .collect()
}

fn run(block: &Block, n: usize) -> Result<f64, String> {
    let dir = std::env::temp_dir().join(format!("blox-doc-commands-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("traces"), dir.join("traces")).unwrap();
    let script = format!(
        "set -e\nblox-sim() {{ \"$BLOX_SIM_BIN\" \"$@\"; }}\n{}\n",
        block.script
    );
    let t = Instant::now();
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("BLOX_SIM_BIN", env!("CARGO_BIN_EXE_blox-sim"))
        .env("BLOX_TRACES", root().join("traces"))
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("{}: bash: {e}", block.at))?;
    let secs = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{}: exit {:?}\n{}\n--- stderr\n{}",
            block.at,
            out.status.code(),
            block.script,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let got: Vec<String> = stdout.lines().map(squash).collect();
    for want in &block.expect {
        if !got.iter().any(|g| g == want) {
            return Err(format!(
                "{}: the documented output line\n  {want}\nis not printed; got:\n{stdout}",
                block.at
            ));
        }
    }
    Ok(secs)
}

#[test]
fn every_documented_command_runs() {
    let blocks = all_blocks();
    let commands: usize = blocks.iter().map(|b| b.commands).sum();
    assert!(blocks.len() >= 10, "found only {} sh blocks", blocks.len());
    // Two workers: the blocks are independent and the CI machine has two cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(b) = blocks.get(n) else { break };
                let r = run(b, n);
                results.lock().unwrap().push((b.at.clone(), r));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    for (at, r) in &results {
        match r {
            Ok(secs) => eprintln!("{at}: ok in {secs:.2} s"),
            Err(e) => failures.push(e.clone()),
        }
    }
    eprintln!("{commands} documented commands in {} blocks", blocks.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_block_parser_follows_the_convention() {
    let md = "x\n```sh\n# c\nblox-sim run \\\n  --load 1\ncargo run --release --bin blox-sim\n```\n\n```text\na   b\n1.0 s wall\n```\n```console\nblox-sim serve\n```\n";
    let b = blocks_of("t.md", md);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].at, "t.md:2");
    assert_eq!(b[0].commands, 2);
    assert!(b[0].script.ends_with("\nblox-sim"));
    assert_eq!(b[0].expect, vec!["a b".to_string()]);
}
