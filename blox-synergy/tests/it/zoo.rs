//! Tests of `zoo` (the library's `src/zoo.rs`) through the public API.

use blox_synergy::*;

#[test]
fn a_class_split_reads_back_from_its_label() {
    // Found by the fuzz target `values`: a huge share showed as i64::MAX.
    for text in [
        "20,70,10",
        "33.5,33,33",
        "20,70,144444444444444444444444444444444444444444444444",
    ] {
        let split: ClassSplit = text.parse().unwrap();
        assert_eq!(
            split.label().parse::<ClassSplit>().unwrap(),
            split,
            "{text}"
        );
    }
    assert_eq!(ClassSplit::DEFAULT.label(), "20,70,10");
}

#[test]
fn zoo_matches_the_spec_table() {
    assert_eq!(SYNERGY_ZOO.len(), 10);
    let res18 = synergy_model("res18").unwrap();
    assert_eq!(
        (
            res18.cpus_per_gpu,
            res18.mem_gb_per_gpu,
            res18.iter_time_s,
            res18.speedup
        ),
        (9.0, 62.5, 0.64, 2.4)
    );
    let m5 = synergy_model("m5").unwrap();
    assert_eq!((m5.mem_gb_per_gpu, m5.speedup), (187.5, 2.5));
    for (i, m) in SYNERGY_ZOO.iter().enumerate() {
        assert_eq!(m.id as usize, i);
    }
    assert!(synergy_model("resnet50").is_none());
}

#[test]
fn demand_is_capped_at_one_server_with_interpolated_speedup() {
    let s = ServerSize::SYNERGY_DEFAULT;
    let alex = synergy_model("alexnet").unwrap();
    let d1 = synergy_demand(alex, 1, s);
    assert_eq!((d1.cpus, d1.mem_gb, d1.speedup), (12.0, 125.0, 2.94));
    // 4 GPUs: 48 CPUs capped at 24 and 500 GB fits exactly; speed-up on the line from
    // (12 fair CPUs, 1) to (48 ideal CPUs, 2.94) at 24 CPUs.
    let d4 = synergy_demand(alex, 4, s);
    assert_eq!((d4.cpus, d4.mem_gb), (24.0, 500.0));
    let expect = 1.0 + (2.94 - 1.0) / (48.0 - 12.0) * (24.0 - 12.0);
    assert_eq!(d4.speedup, expect);
    // 16 GPUs: wider than a server, fair-share demand and speed-up 1.
    let d16 = synergy_demand(alex, 16, s);
    assert_eq!((d16.cpus, d16.mem_gb, d16.speedup), (48.0, 1000.0, 1.0));
    let lstm = synergy_model("lstm").unwrap();
    let l = synergy_demand(lstm, 2, s);
    assert_eq!((l.cpus, l.mem_gb, l.speedup), (2.0, 40.0, 1.0));
}

#[test]
fn split_parses_and_rejects_bad_input() {
    assert_eq!(
        "20,70,10".parse::<ClassSplit>().unwrap(),
        ClassSplit::DEFAULT
    );
    assert_eq!(ClassSplit::DEFAULT.label(), "20,70,10");
    assert!("20,70".parse::<ClassSplit>().unwrap_err().contains("three"));
    assert!("a,1,1".parse::<ClassSplit>().unwrap_err().contains("`a`"));
    assert!("0,0,0".parse::<ClassSplit>().is_err());
    assert!("-1,50,50".parse::<ClassSplit>().is_err());
}

#[test]
fn overall_assignment_balances_classes_round_robin_inside() {
    let mut a = OverallAssigner::new(ClassSplit::DEFAULT);
    let names: Vec<&str> = (0..10).map(|_| a.next_model().name).collect();
    // Job 0: every priority is 0, so image (first in split order). Then the class furthest
    // below its share, round-robin inside a class (checked against CPython's stable
    // reversed sort over the same priorities).
    assert_eq!(
        names,
        [
            "alexnet",
            "gnmt",
            "transformer",
            "m5",
            "lstm",
            "gnmt",
            "res18",
            "transformer",
            "lstm",
            "gnmt"
        ]
    );
    assert_eq!(a.totals().iter().sum::<u64>(), 10);
    let mut b = OverallAssigner::new(ClassSplit::DEFAULT);
    for _ in 0..10_000 {
        b.next_model();
    }
    assert_eq!(b.totals(), [2000, 7000, 1000]);
    let mut c = OverallAssigner::new("50,0,50".parse().unwrap());
    for _ in 0..100 {
        assert_ne!(c.next_model().task, SynergyTask::Language);
    }
}
