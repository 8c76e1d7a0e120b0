use blox_core::*;
use blox_policies::*;

fn all() -> Vec<PolicyConfig> {
    vec![
        PolicyConfig::Fifo,
        PolicyConfig::Las,
        PolicyConfig::Srtf,
        PolicyConfig::Sjf { preemptive: true },
        PolicyConfig::Sjf { preemptive: false },
        PolicyConfig::Tiresias,
        PolicyConfig::TiresiasWith(TiresiasParams {
            thresholds: vec![100.0, 1000.5],
            starvation: Some(1.5),
            gittins: None,
        }),
        PolicyConfig::TiresiasWith(TiresiasParams {
            thresholds: vec![],
            starvation: None,
            gittins: None,
        }),
        PolicyConfig::Optimus,
        PolicyConfig::OptimusWith(OptimusParams {
            parallel_fraction: 0.8,
        }),
        PolicyConfig::Gavel {
            solver: MaxMinSolver::WaterFilling,
            hetero: true,
        },
        PolicyConfig::Gavel {
            solver: MaxMinSolver::Lp,
            hetero: true,
        },
        PolicyConfig::Gavel {
            solver: MaxMinSolver::WaterFilling,
            hetero: false,
        },
        PolicyConfig::Gavel {
            solver: MaxMinSolver::Lp,
            hetero: false,
        },
        PolicyConfig::Themis,
    ]
}

/// The command line and files are one form: the names come from the serde form, and
/// what the command line takes (`queues`, `gittins=true`, `starvation=0`) a file takes too.
#[test]
fn one_form_for_files_and_the_command_line() {
    assert_eq!(spec_form::kinds::<PolicyConfig>(), PolicyConfig::NAMES);
    for (json, text) in [
        (r#"{"kind":"tiresias","queues":3}"#, "tiresias:queues=3"),
        (
            r#"{"kind":"tiresias","gittins":true}"#,
            "tiresias:gittins=on",
        ),
        (r#"{"kind":"tiresias","starvation":0}"#, "tiresias"),
        (
            r#"{"kind":"sjf","preemptive":"no"}"#,
            "sjf:preemptive=false",
        ),
        (r#"{"kind":"gavel-style","solver":"lp"}"#, "gavel:solver=lp"),
    ] {
        let from_file: PolicyConfig = serde_json::from_str(json).unwrap();
        assert_eq!(from_file, text.parse().unwrap(), "{json}");
    }
    // Parameters at their defaults are left out of the text.
    let p: PolicyConfig = "tiresias:thresholds=3600,starvation=2".parse().unwrap();
    assert_eq!(p.to_string(), "tiresias:starvation=2");
}

#[test]
fn gavel_style_and_ftf_greedy_are_aliases() {
    assert_eq!(
        "gavel-style:solver=lp".parse::<PolicyConfig>().unwrap(),
        "gavel:solver=lp".parse::<PolicyConfig>().unwrap()
    );
    assert_eq!(
        "ftf-greedy".parse::<PolicyConfig>().unwrap(),
        PolicyConfig::Themis
    );
}

#[test]
fn files_use_a_kind_tag_and_reject_unknown_fields() {
    let p: PolicyConfig = serde_json::from_str(r#"{"kind": "las"}"#).unwrap();
    assert_eq!(p, PolicyConfig::Las);
    assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"kind":"las"}"#);
    let e = serde_json::from_str::<PolicyConfig>(r#"{"kind": "las", "x": 1}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field `x`"), "{e}");
    assert!(serde_json::from_str::<PolicyConfig>(r#"{"kind": "gavel2"}"#).is_err());
    for kind in ["themis", "tiresias", "optimus", "sjf", "gavel"] {
        let e = serde_json::from_str::<PolicyConfig>(&format!(r#"{{"kind": "{kind}", "x": 1}}"#))
            .unwrap_err();
        assert!(e.to_string().contains("unknown field `x`"), "{kind}: {e}");
    }
}

#[test]
fn every_config_round_trips_through_files_and_the_command_line() {
    for c in all() {
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            serde_json::from_str::<PolicyConfig>(&json).unwrap(),
            c,
            "{json}"
        );
        let s = c.to_string();
        assert_eq!(s.parse::<PolicyConfig>().unwrap(), c, "{s}");
        assert!(s.starts_with(c.as_str()));
    }
    assert_eq!(
        serde_json::to_string(&PolicyConfig::Tiresias).unwrap(),
        r#"{"kind":"tiresias"}"#
    );
    let t: PolicyConfig =
        serde_json::from_str(r#"{"kind":"tiresias","thresholds":[3600]}"#).unwrap();
    assert_eq!(
        t,
        PolicyConfig::Tiresias,
        "defaults normalise to the unit variant"
    );
    let g: PolicyConfig = serde_json::from_str(r#"{"kind":"gavel","solver":"lp"}"#).unwrap();
    assert_eq!(
        g,
        PolicyConfig::Gavel {
            solver: MaxMinSolver::Lp,
            hetero: true
        }
    );
    let g: PolicyConfig = "gavel:hetero=false".parse().unwrap();
    assert_eq!(
        serde_json::to_string(&g).unwrap(),
        r#"{"kind":"gavel","hetero":false}"#
    );
    let bad = serde_json::from_str::<PolicyConfig>(r#"{"kind":"tiresias","thresholds":[5, 1]}"#);
    assert!(bad.unwrap_err().to_string().contains("must increase"));
}

#[test]
fn command_line_parameters() {
    let p = |s: &str| s.parse::<PolicyConfig>();
    assert_eq!(
        p("tiresias:queues=2,threshold=3600").unwrap(),
        PolicyConfig::Tiresias
    );
    assert_eq!(
        p("tiresias:queues=3").unwrap(),
        PolicyConfig::TiresiasWith(TiresiasParams {
            thresholds: vec![3600.0, 36_000.0],
            starvation: None,
            gittins: None,
        })
    );
    assert_eq!(
        p("tiresias:thresholds=10/20,starvation=0").unwrap(),
        PolicyConfig::TiresiasWith(TiresiasParams {
            thresholds: vec![10.0, 20.0],
            starvation: None,
            gittins: None,
        })
    );
    let g = p("tiresias:gittins=true").unwrap();
    assert_eq!(
        g,
        PolicyConfig::TiresiasWith(TiresiasParams {
            gittins: Some(3600.0),
            ..TiresiasParams::default()
        })
    );
    assert_eq!(g.to_string().parse::<PolicyConfig>().unwrap(), g);
    let json = serde_json::to_string(&g).unwrap();
    assert_eq!(serde_json::from_str::<PolicyConfig>(&json).unwrap(), g);
    assert!(p("tiresias:gittins=-5").is_err());
    let env = PolicyEnv::new(None);
    assert_eq!(
        p("tiresias:gittins=1800")
            .unwrap()
            .build(&env)
            .unwrap()
            .name(),
        "tiresias-g"
    );
    assert_eq!(
        p("optimus:parallel_fraction=0.95").unwrap(),
        PolicyConfig::Optimus
    );
    assert_eq!(
        p("sjf:preemptive=no").unwrap(),
        PolicyConfig::Sjf { preemptive: false }
    );
    let err = |s: &str| p(s).unwrap_err().to_string();
    assert!(err("lsa").contains("expected one of: fifo, las, srtf, sjf"));
    assert!(err("fifo:x=1").contains("takes no parameters"));
    assert!(err("tiresias:queues=0").contains("1 to 16"));
    assert!(err("tiresias:queues=2,queues=3").contains("given twice"));
    assert!(err("tiresias:thresholds=1/2,queues=3").contains("not both"));
    assert!(err("tiresias:thresholds=2/1").contains("must increase"));
    assert!(err("tiresias:starvation=abc").contains("not a finite number"));
    assert!(err("optimus:parallel_fraction=2").contains("[0, 1]"));
    assert!(err("optimus:p=0.5").contains("unknown parameter `p`"));
    assert!(err("gavel:solver=simplex").contains("water-filling"));
    assert!(err("sjf:preemptive=maybe").contains("boolean"));
    assert!(err("sjf:3").contains("not key=value"));
}

#[test]
fn every_config_builds_and_optimus_implies_its_model() {
    let env = PolicyEnv::new(None);
    assert_eq!(
        PolicyConfig::Tiresias.build(&env).unwrap().name(),
        "tiresias"
    );
    assert_eq!(
        PolicyConfig::Optimus.throughput_model(&env).unwrap().name(),
        "amdahl(0.95)"
    );
    assert_eq!(
        PolicyConfig::Fifo.throughput_model(&env).unwrap().name(),
        "constant"
    );
    for c in all() {
        assert!(c.build(&env).is_ok(), "{c}");
    }
}
