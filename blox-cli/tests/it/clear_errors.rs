//! Bad input on the command line and in scenario files gives a message that says what is wrong
//! and where: the flag, or the file, line and key.

use std::path::Path;
use std::process::Command;

fn blox_sim_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("blox-cli-err-{}-{name}", std::process::id()))
}

#[test]
fn negative_numbers_are_values_with_a_reason() {
    let d = temp("neg");
    for (flag, value, what) in [
        ("--load", "-3", "jobs per hour ≥"),
        ("--round", "-5", "seconds in 1..="),
        ("--seed", "-1", "whole number in 0..="),
        ("--preemption-cost", "-2", "seconds"),
        ("--jobs", "-10", "jobs"),
        ("--starvation", "-1", "seconds ≥ 0"),
    ] {
        let (code, _, err) = blox_sim_in(&d, &["run", flag, value]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(
            err.contains(&format!("'{value}' for '{flag}"))
                && err.contains(what)
                && err.contains("negative"),
            "{flag} {value}: {err}"
        );
        assert!(!err.contains("unexpected argument"), "{err}");
    }
    let (code, _, err) = blox_sim_in(&d, &["run", "--jobs", "0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("'0' for '--jobs") && err.contains("1..="),
        "{err}"
    );
}

#[test]
fn scenario_errors_name_the_file_line_and_key() {
    let d = temp("keys");
    for (body, line, key) in [
        (
            "cluster = \"2x2\"\nworkload = { kind = \"poisson\", load = -2.0 }\n",
            2,
            "workload.load",
        ),
        ("seed = 3\nround_s = 0\n", 2, "round_s"),
        (
            "[workload]\nkind = \"dual-load\"\nload = 0.0\n",
            3,
            "workload.load",
        ),
        (
            "workload = { kind = \"poisson\", load = 1.0, durations = \"constant:-1\" }\n",
            1,
            "workload.durations",
        ),
        ("track = \"9..1\"\n", 1, "track"),
    ] {
        std::fs::write(d.join("s.toml"), body).unwrap();
        let (code, _, err) = blox_sim_in(&d, &["run", "--scenario", "s.toml"]);
        assert_eq!(code, 2, "{body}: {err}");
        let want = format!("s.toml:{line}: field `{key}`: ");
        assert!(err.contains(&want), "{body}: want `{want}`, got {err}");
        assert!(!err.contains("<config>") && !err.contains("--"), "{err}");
    }
    // The same value given as a flag is blamed on the flag.
    std::fs::write(d.join("s.toml"), "seed = 3\n").unwrap();
    let (_, _, err) = blox_sim_in(&d, &["run", "--scenario", "s.toml", "--track", "9..1"]);
    assert!(err.contains("--track: "), "{err}");
    // JSON too.
    std::fs::write(d.join("s.json"), "{\n  \"seed\": 1,\n  \"round_s\": 0\n}\n").unwrap();
    let (_, _, err) = blox_sim_in(&d, &["run", "--scenario", "s.json"]);
    assert!(err.contains("s.json:3: field `round_s`: "), "{err}");
}

#[test]
fn only_toml_and_json_scenarios_are_read() {
    let d = temp("yaml");
    for name in ["s.yaml", "s.yml", "scenario"] {
        std::fs::write(d.join(name), "seed = 2\n").unwrap();
        let (code, _, err) = blox_sim_in(&d, &["run", "--scenario", name]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains(&format!("{name}: unsupported scenario format")),
            "{name}: {err}"
        );
    }
}

#[test]
fn relative_trace_paths_resolve_against_the_scenarios_folder() {
    let d = temp("rel");
    std::fs::create_dir_all(d.join("exp")).unwrap();
    std::fs::write(
        d.join("exp/jobs.csv"),
        "job_id,arrival_s,n_gpus,duration_s\na,0,1,100\nb,10,1,50\n",
    )
    .unwrap();
    std::fs::write(
        d.join("exp/s.toml"),
        "cluster = \"1x1\"\nworkload = { kind = \"trace\", path = \"jobs.csv\" }\n",
    )
    .unwrap();
    let out = d.join("out");
    let (code, _, err) = blox_sim_in(
        &d,
        &[
            "run",
            "--scenario",
            "exp/s.toml",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    assert_eq!(jobs.lines().count(), 3, "{jobs}");
}

#[test]
fn a_trace_with_every_line_bad_is_an_error_even_when_skipping() {
    let d = temp("allbad");
    std::fs::write(
        d.join("bad.csv"),
        "job_id,arrival_s,n_gpus,duration_s\na,x,1,1\nb,0,0,1\n",
    )
    .unwrap();
    for args in [
        &["run", "--trace", "bad.csv", "--skip-bad-lines"][..],
        &["trace", "stats", "bad.csv", "--skip-bad-lines"][..],
    ] {
        let (code, _, err) = blox_sim_in(&d, args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            err.contains("every job line of the trace is malformed (2 skipped")
                && err.contains("bad.csv:2: field `arrival_s`"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn sweep_ranges_that_are_reversed_or_huge_say_so() {
    let d = temp("ranges");
    let out = d.join("o");
    let o = out.to_str().unwrap();
    let (code, _, err) = blox_sim_in(&d, &["sweep", "--load", "9..1", "--out", o]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`9..1` is reversed") && err.contains("1..9"),
        "{err}"
    );
    let (_, _, err) = blox_sim_in(&d, &["sweep", "--seed", "1..99999999", "--out", o]);
    assert!(
        err.contains("--seed: the range `1..99999999` holds 99999999 values"),
        "{err}"
    );
    let (_, _, err) = blox_sim_in(&d, &["sweep", "--load", "-3", "--out", o]);
    assert!(
        err.contains("--load: `-3` is not a number of jobs per hour > 0"),
        "{err}"
    );
    assert!(!out.exists(), "nothing was run");
}

#[test]
fn sweep_load_varies_every_generated_workload() {
    let d = temp("sweepload");
    for (name, kind) in [("p.toml", "poisson"), ("d.toml", "dual-load")] {
        std::fs::write(
            d.join(name),
            format!(
                "cluster = \"2x2\"\nworkload = {{ kind = \"{kind}\", load = 1.0, jobs = 20 }}\n"
            ),
        )
        .unwrap();
        let out = d.join(kind);
        let (code, _, err) = blox_sim_in(
            &d,
            &[
                "sweep",
                "--scenario",
                name,
                "--load",
                "1,2.5",
                "--out",
                out.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 0, "{kind}: {err}");
        let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
        let loads: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(7).unwrap())
            .collect();
        assert_eq!(loads, ["1", "2.5"], "{kind}: {csv}");
        // The runs differ: the load reached the generator.
        let a = std::fs::read(
            out.join("runs")
                .join("exact-2x2-accept-all-fifo-scattered-load1-seed1")
                .join("jobs.csv"),
        );
        assert!(a.is_ok(), "{kind}: run folder for load 1");
        let rows: Vec<&str> = csv.lines().skip(1).collect();
        assert_ne!(
            rows[0].split(',').nth(10),
            rows[1].split(',').nth(10),
            "{kind}: average JCT differs with load"
        );
    }
}

#[test]
fn a_peer_semantics_where_only_the_engines_are_taken_names_the_commands_that_take_it() {
    let d = temp("peer");
    for (file, text, name) in [
        ("s.toml", "semantics = \"gavel\"\n", "gavel"),
        ("s.json", "{\"semantics\": \"pollux\"}", "pollux"),
    ] {
        std::fs::write(d.join(file), text).unwrap();
        let (code, _, err) = blox_sim_in(&d, &["run", "--scenario", file]);
        assert_ne!(code, 0, "{err}");
        assert!(
            err.contains(&format!("{file}:1"))
                && err.contains(&format!("blox-sim run --semantics {name}"))
                && err.contains(&format!("blox-sim sweep --semantics {name}")),
            "{err}"
        );
    }
    // Any other unknown name keeps the plain message.
    std::fs::write(d.join("t.toml"), "semantics = \"gavl\"\n").unwrap();
    let (_, _, err) = blox_sim_in(&d, &["run", "--scenario", "t.toml"]);
    assert!(
        err.contains("unknown variant `gavl`") && !err.contains("peer"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// Each semantics takes the flags its model has a meaning for (`blox_scenario::Model`'s data);
/// any other flag is refused before anything runs, naming the semantics that take it. These
/// flags were silently ignored before.
#[test]
fn a_flag_the_semantics_does_not_take_is_refused_naming_who_takes_it() {
    let d = temp("takes");
    let gavel = env!("CARGO_MANIFEST_DIR").to_string()
        + "/../traces/gavel/physical_cluster/artifact_evaluation.trace";
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--trace",
                &gavel,
                "--cluster",
                "2x1:v100",
                "--node-events",
                "e.csv",
            ],
            "--node-events has no meaning under --semantics gavel",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--trace",
                &gavel,
                "--cluster",
                "2x1:v100",
                "--max-sim-time",
                "100",
            ],
            "--max-sim-time is taken by --semantics exact, blox, synergy",
        ),
        (
            &["run", "--cluster-spec", "spec.csv"],
            "--cluster-spec is taken by --semantics tiresias",
        ),
        (
            &[
                "compare",
                "--semantics",
                "Tiresias",
                "--policy",
                "fifo,las",
                "--seed",
                "3",
                "--round",
                "60",
            ],
            "--round, --seed have no meaning under --semantics tiresias",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = blox_sim_in(&d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} ran: {out}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A misspelt semantics gets a suggestion.
    let (code, _, err) = blox_sim_in(&d, &["run", "--semantics", "gavle"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `gavel`"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Flags that used to be accepted and ignored, or runs that measured nothing, are errors.
#[test]
fn jobs_without_a_count_and_an_empty_tracked_window_are_errors() {
    let d = temp("silent");
    let (code, out, err) = blox_sim_in(&d, &["run", "--jobs", "100"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--jobs sets how many jobs"), "{err}");
    let args = [
        "run",
        "--workload",
        "poisson",
        "--jobs",
        "100",
        "--track",
        "3000..4000",
    ];
    let (code, out, err) = blox_sim_in(&d, &args);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("--track 3000..4000 selects no job: the workload has 100 jobs"),
        "{err}"
    );
    // Inside the workload it runs.
    let args = [
        "run",
        "--workload",
        "poisson",
        "--jobs",
        "100",
        "--track",
        "10..20",
        "--load",
        "4",
    ];
    let (code, _, err) = blox_sim_in(&d, &args);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Without `--trace-format` a trace is recognised from its header (and the program says which
/// format it read), or refused naming the formats and their columns.
#[test]
fn a_trace_without_its_format_is_recognised_or_refused_with_the_formats() {
    let d = temp("detect");
    let itp = env!("CARGO_MANIFEST_DIR").to_string() + "/../traces/itp/raw/cluster01.csv";
    let args = ["run", "--trace", &itp, "--cluster", "8x8"];
    let (code, out, err) = blox_sim_in(&d, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("as --trace-format itp (recognised from its header)"),
        "{err}"
    );
    assert!(out.contains("fifo"), "{out}");
    std::fs::write(d.join("odd.csv"), "a,b,c\n1,2,3\n").unwrap();
    let (code, _, err) = blox_sim_in(&d, &["run", "--trace", "odd.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("odd.csv: its first line fits no trace format"),
        "{err}"
    );
    assert!(
        err.contains("canonical (job_id,arrival_s,n_gpus,duration_s)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Component names: stock ones are case-insensitive, a typo gets a suggestion, and a peer's own
/// policy named without its semantics says which `--semantics` takes it.
#[test]
fn component_names_are_forgiving_and_helpful() {
    let d = temp("names");
    let (code, out, err) = blox_sim_in(
        &d,
        &[
            "run",
            "--policy",
            "LAS",
            "--jobs",
            "20",
            "--workload",
            "poisson",
            "--load",
            "4",
            "--track",
            "0..19",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("las"), "{out}");
    let (code, _, err) = blox_sim_in(&d, &["run", "--policy", "srft"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did you mean `srtf`?"), "{err}");
    let (code, _, err) = blox_sim_in(&d, &["run", "--policy", "max_min_fairness_perf"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("add --semantics gavel"), "{err}");
    let (code, _, err) = blox_sim_in(&d, &["run", "--policy", "dlas-gpu"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("add --semantics tiresias"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
