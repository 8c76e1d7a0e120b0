//! Fuzz `blox-sim run`'s command line through clap and the checks `run` makes before any
//! work (`blox_cli::check_run_args`): each line of the input is `FLAG VALUE`, given as
//! `--FLAG=VALUE`, for the flags that take no file (a file flag would make the fuzzer read
//! the machine's files). It must never panic, and a command line it accepts is a run that is
//! bounded: its scenario passes every check, its cluster and tracked window build, each
//! component spec reads back from its display, and random failures come with a time bound.
#![no_main]

use blox_core::MAX_CLUSTER_GPUS;
use libfuzzer_sys::fuzz_target;

/// The flags of `run` that take a value and name no file.
const FLAGS: &[&str] = &[
    "semantics",
    "workload",
    "class-split",
    "node-cpus",
    "node-mem",
    "jobs",
    "durations",
    "gpus",
    "load",
    "blox-trace-jobs",
    "cluster",
    "reference-gpu-type",
    "round",
    "admission",
    "policy",
    "placement",
    "topology",
    "throughput",
    "track",
    "seed",
    "preemption-cost",
    "starvation",
    "failures",
    "autoscale",
    "checkpoint-interval",
    "max-sim-time",
    "decide",
    "generations",
    "interference",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut args = Vec::new();
    for line in text.lines().take(32) {
        let (flag, value) = line.split_once(' ').unwrap_or((line, ""));
        if !FLAGS.contains(&flag) {
            return;
        }
        // A topology may name a JSON file.
        if flag == "topology" && value.to_ascii_lowercase().ends_with(".json") {
            return;
        }
        // Clusters above 16,384 GPUs are valid but slow to check (the default topology is
        // built: about 1.5 s at 266,656 GPUs), and a fuzzer that finds one mutates it for
        // ever; their memory is held by blox-placement's
        // `a_node_of_a_hundred_thousand_gpus_builds` and the cluster bounds' tests instead.
        if flag == "cluster"
            && value
                .parse::<blox_core::ClusterSpec>()
                .is_ok_and(|c| c.total_gpus() > 16_384)
        {
            return;
        }
        args.push(format!("--{flag}={value}"));
    }
    let Ok(Some(s)) = blox_cli::check_run_args(&args) else {
        return;
    };
    assert!(s.check().is_ok(), "{args:?}");
    let cluster = s.cluster_spec().expect("a cluster");
    assert!(cluster.total_gpus() >= 1 && cluster.total_gpus() <= MAX_CLUSTER_GPUS);
    s.track_window().expect("a tracked window");
    s.sim_config().expect("an engine configuration");
    // Every run ends: random failures only with a bound on simulated time.
    if s.failure_spec().expect("a failure spec").is_some() {
        assert!(s.max_sim_time_s.is_some(), "{args:?}");
    }
    for shown in [
        s.policy.to_string(),
        s.placement.to_string(),
        s.admission.to_string(),
    ] {
        assert!(!shown.is_empty());
    }
    assert_eq!(s.policy.to_string().parse().ok().as_ref(), Some(&s.policy));
    assert_eq!(
        s.placement.to_string().parse().ok().as_ref(),
        Some(&s.placement)
    );
    assert_eq!(
        s.admission.to_string().parse().ok().as_ref(),
        Some(&s.admission)
    );
});
