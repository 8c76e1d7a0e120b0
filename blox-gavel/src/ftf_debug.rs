//! Diagnostics for `finish_time_fairness_perf`'s solves (GAVEL-SEMANTICS §6.3), off unless an
//! environment variable asks for them:
//!
//! - `BLOX_GAVEL_FTF_DUMP=FILE`: every solve appends one JSON line to `FILE`: job ids, `T`
//!   (throughput per job and type, alphabetical types), `s` (scale factors), `c` (GPUs per
//!   type), `since`, `rem`, `cum` (cumulative isolated time), `iso` (isolated throughput),
//!   `D` (`cum + rem / iso`) and `x`, this solver's shares (before Gavel's clipping; absent
//!   when it found none). `tools/ref/ftf_ecos.py` solves these lines with cvxpy + ECOS.
//! - `BLOX_GAVEL_FTF_ORACLE=COMMAND`: the shares come from `COMMAND` (run once through `sh -c`
//!   and kept open) instead: it reads one such line (without `x`) per solve on its standard
//!   input and answers one line, the shares with rows separated by `;` and values by `,`, or
//!   `null` for "no value" (Gavel's isolated fallback). `tools/ref/ftf_ecos.py` is such an
//!   oracle: with it a run makes Gavel's own ECOS choices, which is how the solver's
//!   non-convergence on large multi-type programs was found.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// One finish-time-fairness program, as the policy built it.
pub(crate) struct Problem<'a> {
    pub(crate) ids: Vec<u32>,
    pub(crate) throughput: Vec<&'a [f64]>,
    pub(crate) scale_factor: Vec<u32>,
    pub(crate) counts: &'a [u32],
    pub(crate) since: Vec<f64>,
    pub(crate) remaining: Vec<f64>,
    pub(crate) cum_iso: Vec<f64>,
    pub(crate) iso: Vec<f64>,
    pub(crate) denominator: Vec<f64>,
}

/// `[a,b,c]` with Rust's shortest round-trip float digits (valid JSON for finite values).
fn list<T: std::fmt::Debug>(v: &[T]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", parts.join(","))
}

impl Problem<'_> {
    fn json(&self, x: Option<&[Vec<f64>]>) -> String {
        let t: Vec<String> = self.throughput.iter().map(|r| list(r)).collect();
        let mut s = format!(
            "{{\"ids\":{},\"T\":[{}],\"s\":{},\"c\":{},\"since\":{},\"rem\":{},\"cum\":{},\
             \"iso\":{},\"D\":{}",
            list(&self.ids),
            t.join(","),
            list(&self.scale_factor),
            list(self.counts),
            list(&self.since),
            list(&self.remaining),
            list(&self.cum_iso),
            list(&self.iso),
            list(&self.denominator)
        );
        if let Some(x) = x {
            let rows: Vec<String> = x.iter().map(|r| list(r)).collect();
            s += &format!(",\"x\":[{}]", rows.join(","));
        }
        s + "}"
    }
}

type Oracle = (Child, ChildStdin, BufReader<ChildStdout>);
static ORACLE: Mutex<Option<Oracle>> = Mutex::new(None);

/// Dumps the solve if asked, and returns the oracle's answer if one is configured (`None`: no
/// oracle; `Some(None)`: the oracle found no value). Diagnostics only: I/O failures panic.
pub(crate) fn hook(p: &Problem<'_>, ours: Option<&[Vec<f64>]>) -> Option<Option<Vec<Vec<f64>>>> {
    if let Some(path) = std::env::var_os("BLOX_GAVEL_FTF_DUMP") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("BLOX_GAVEL_FTF_DUMP: cannot open the file");
        writeln!(f, "{}", p.json(ours)).expect("BLOX_GAVEL_FTF_DUMP: cannot write");
    }
    let cmd = std::env::var("BLOX_GAVEL_FTF_ORACLE").ok()?;
    let mut guard = ORACLE.lock().unwrap_or_else(|e| e.into_inner());
    let (_, stdin, stdout) = guard.get_or_insert_with(|| {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("BLOX_GAVEL_FTF_ORACLE: cannot start the command");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        (child, stdin, stdout)
    });
    writeln!(stdin, "{}", p.json(None)).expect("BLOX_GAVEL_FTF_ORACLE: cannot write");
    stdin.flush().expect("BLOX_GAVEL_FTF_ORACLE: cannot write");
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .expect("BLOX_GAVEL_FTF_ORACLE: cannot read");
    let line = line.trim();
    if line == "null" {
        return Some(None);
    }
    let rows = line
        .split(';')
        .map(|r| {
            r.split(',')
                .map(|v| {
                    v.parse::<f64>()
                        .expect("BLOX_GAVEL_FTF_ORACLE: not a number")
                })
                .collect()
        })
        .collect();
    Some(Some(rows))
}
