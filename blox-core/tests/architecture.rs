//! Architecture invariants that live in the manifests: a component crate depends on `blox-core`,
//! serde and its own algorithm crates only, so a researcher can add one policy crate and use it;
//! `blox-core` depends on no other blox crate; the engine (`blox-sim`) depends on no component
//! crate (a peer's components are composed with its time model in `blox-cli`).

use std::path::Path;

/// The `[dependencies]` (and target-specific dependencies) of a manifest, by name. Dev- and
/// build-dependencies do not reach a user of the crate and are not listed.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let section = line.trim_matches(|c| c == '[' || c == ']');
            in_deps = section == "dependencies"
                || (section.starts_with("target.") && section.ends_with(".dependencies"));
            // `[dependencies.NAME]` tables name the dependency in the header.
            if let Some(name) = section.strip_prefix("dependencies.") {
                deps.push(name.to_string());
            }
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((name, _)) = line.split_once('=') {
            let name = name.trim().trim_end_matches(".workspace").trim();
            deps.push(name.trim_matches('"').to_string());
        }
    }
    deps
}

fn manifest(krate: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("Cargo.toml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every dependency of `krate` is allowed; returns the offending ones otherwise.
fn check(krate: &str, allowed: &[&str]) -> Result<(), Vec<String>> {
    let bad: Vec<String> = dependencies(&manifest(krate))
        .into_iter()
        .filter(|d| !allowed.contains(&d.as_str()))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad)
    }
}

/// What any component crate may depend on: the core and serde's family.
const COMPONENT_BASE: &[&str] = &["blox-core", "serde", "serde_json"];

#[test]
fn component_crates_depend_on_the_core_serde_and_their_own_algorithm_crates_only() {
    // Each crate's own algorithm crates, named here on purpose: adding one is a design decision.
    let crates: [(&str, &[&str]); 3] = [
        ("blox-admission", &[]),
        ("blox-policies", &["microlp"]),
        ("blox-placement", &["petgraph"]),
    ];
    for (krate, own) in crates {
        let allowed: Vec<&str> = COMPONENT_BASE.iter().chain(own).copied().collect();
        assert_eq!(
            check(krate, &allowed),
            Ok(()),
            "{krate} depends on crates a component crate may not (only blox-core, serde and its \
             own algorithm crates): the engine, the CLI and other blox crates stay out"
        );
    }
}

/// The component crates: the engine may name none of them in its `[dependencies]`.
const COMPONENT_CRATES: &[&str] = &[
    "blox-admission",
    "blox-policies",
    "blox-placement",
    "blox-pollux",
];

#[test]
fn the_engine_depends_on_no_component_crate() {
    let deps = dependencies(&manifest("blox-sim"));
    let components: Vec<&String> = deps
        .iter()
        .filter(|d| COMPONENT_CRATES.contains(&d.as_str()))
        .collect();
    assert!(
        components.is_empty(),
        "blox-sim depends on component crates {components:?}: a peer's components are composed \
         with its time model in blox-cli (or reach the model through a blox-core trait)"
    );
    // What the engine may depend on at all: the core, cluster events, trace reading, serde.
    assert_eq!(
        check(
            "blox-sim",
            &["blox-core", "blox-nodes", "blox-workload", "serde"]
        ),
        Ok(()),
        "blox-sim is the engine only"
    );
}

#[test]
fn the_engine_check_catches_a_component_dependency() {
    let m = "[dependencies]\nblox-core.workspace = true\nblox-policies.workspace = true\n\n\
             [dev-dependencies]\nblox-placement.workspace = true\n";
    let deps = dependencies(m);
    assert_eq!(deps, vec!["blox-core", "blox-policies"]);
    assert!(deps.iter().any(|d| COMPONENT_CRATES.contains(&d.as_str())));
}

#[test]
fn the_core_depends_on_no_other_blox_crate() {
    let deps = dependencies(&manifest("blox-core"));
    let blox: Vec<&String> = deps.iter().filter(|d| d.starts_with("blox")).collect();
    assert!(blox.is_empty(), "blox-core depends on {blox:?}");
    assert!(deps.contains(&"serde".to_string()), "{deps:?}");
}

#[test]
fn the_check_catches_a_forbidden_dependency() {
    let m = "[package]\nname = \"x\"\n\n[dependencies]\nblox-core.workspace = true\n\
             blox-sim = { path = \"../blox-sim\" }\n\n[dev-dependencies]\nproptest = \"1\"\n\n\
             [target.'cfg(unix)'.dependencies]\nnix = \"0.29\"\n\n[dependencies.clap]\nversion = \"4\"\n";
    assert_eq!(
        dependencies(m),
        vec!["blox-core", "blox-sim", "nix", "clap"]
    );
}
