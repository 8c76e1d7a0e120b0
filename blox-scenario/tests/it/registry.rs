//! Tests of `registry` (the library's `src/registry.rs`) through the public API.

use blox_policies::PolicyConfig;
use blox_scenario::*;

fn from_table(json: &str) -> Result<Named<PolicyConfig>, serde_json::Error> {
    serde_json::from_str(json)
}

/// A table reads as the command line reads the same text, and what it reads survives
/// being written and read again (a fuzzed scenario with `kind = " las"` was a registered
/// component `" las"` that then failed the run and came back from its JSON as `las`).
#[test]
fn a_table_reads_as_the_command_line_and_round_trips() {
    for (table, flag) in [
        (r#"{"kind": " las"}"#, "las"),
        (r#"{"kind": "LAS"}"#, "las"),
        (
            r#"{"kind": " my-policy ", "b": "2", "a": " 1"}"#,
            "my-policy:a=1,b=2",
        ),
        (r#"{"kind": "my-policy", "value": 3}"#, "my-policy:3"),
    ] {
        let named = from_table(table).unwrap();
        assert_eq!(
            named,
            flag.parse::<Named<PolicyConfig>>().unwrap(),
            "{table}"
        );
        let back = from_table(&serde_json::to_string(&named).unwrap()).unwrap();
        assert_eq!(back, named, "{table}");
    }
    assert_eq!(
        from_table(r#"{"kind": " las"}"#).unwrap(),
        Named::Stock(PolicyConfig::Las)
    );
    assert_eq!(
        " my-policy : a = 1 "
            .parse::<Named<PolicyConfig>>()
            .unwrap(),
        Named::Registered("my-policy:a=1".into())
    );
}

/// Specs that have no table form are refused with the reason, not changed on the way.
#[test]
fn specs_without_a_table_form_are_refused() {
    for (spec, why) in [
        ("my-policy:a=1,a=2", "`a` is given twice"),
        ("my-policy:kind=x", "`kind` cannot name a parameter"),
        ("my-policy:value=x", "`value` cannot name a parameter"),
        ("my-policy:=x", "`` cannot name a parameter"),
    ] {
        let e = spec.parse::<Named<PolicyConfig>>().unwrap_err().to_string();
        assert!(e.contains(why), "{spec}: {e}");
    }
}
