//! Tests of [`crate::ecos`] against cvxpy 1.9.3 + ECOS 2.0.14.

use crate::ecos::{self, ConeProgram, FtfJob, Status};

/// The numbers of `"key":[...]` in a dump line (nested brackets flattened).
fn numbers(line: &str, key: &str) -> Vec<f64> {
    let start = line.find(&format!("\"{key}\":")).expect("key") + key.len() + 3;
    let mut depth = 0;
    let mut end = start;
    for (i, ch) in line[start..].char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    end = start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    line[start..end]
        .split(['[', ']', ','])
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().expect("number"))
        .collect()
}

/// Solves one `BLOX_GAVEL_FTF_DUMP` line: `BLOX_GAVEL_ECOS_PROBLEM=FILE:LINE cargo test -p
/// blox-gavel ecos_dump -- --ignored --nocapture` (with `BLOX_GAVEL_ECOS_TRACE=1` for the
/// iterations); prints the shares, one job a line.
#[test]
#[ignore]
fn ecos_dump() {
    let spec = std::env::var("BLOX_GAVEL_ECOS_PROBLEM").expect("BLOX_GAVEL_ECOS_PROBLEM");
    let (path, line) = spec.rsplit_once(':').expect("FILE:LINE");
    let text = std::fs::read_to_string(path).expect("dump");
    let line = text.lines().nth(line.parse().expect("line")).expect("line");
    let counts = numbers(line, "c");
    let n = counts.len();
    let t = numbers(line, "T");
    let s = numbers(line, "s");
    let since = numbers(line, "since");
    let rem = numbers(line, "rem");
    let d = numbers(line, "D");
    let jobs: Vec<FtfJob<'_>> = (0..s.len())
        .map(|i| FtfJob {
            throughput: &t[i * n..(i + 1) * n],
            scale_factor: s[i],
            since: since[i],
            remaining: rem[i],
            denominator: d[i],
        })
        .collect();
    let prog = ConeProgram::finish_time(&jobs, &counts);
    let sol = ecos::solve(&prog);
    println!("status {:?} iterations {}", sol.status, sol.iterations);
    let m = jobs.len();
    for i in 0..m {
        let row: Vec<String> = (0..n)
            .map(|w| {
                let col = if m == 1 { 1 + w } else { 1 + w * m + i };
                format!("{:?}", sol.x.get(col).copied().unwrap_or(f64::NAN))
            })
            .collect();
        println!("x {}", row.join(" "));
    }
    assert_ne!(sol.status, Status::Failed);
}
