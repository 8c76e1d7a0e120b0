//! Architecture invariants that live in the manifests: a component crate depends on `blox-core`,
//! serde and its own algorithm crates only, so a researcher can add one policy crate and use it;
//! `blox-core` depends on no other blox crate; the engine (`blox-sim`) depends on no component
//! crate; and every peer simulator lives in its own crate (the checks at the end).

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
        ("blox-policies", &[]),
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

// ---------------------------------------------------------------------------------------------
// A peer is a crate: every peer simulator's code lives in its own crate, and the generic crates
// (the core, the engine, the role crates, metrics, cluster events, the test kit) name none.

/// The peer crates: one peer simulator each.
const PEER_CRATES: &[&str] = &[
    "blox-original",
    "blox-gavel",
    "blox-tiresias",
    "blox-synergy",
    "blox-pollux",
];

/// The generic crates: no peer simulator's code, names or dependency.
const GENERIC_CRATES: &[&str] = &[
    "blox-core",
    "blox-sim",
    "blox-admission",
    "blox-policies",
    "blox-placement",
    "blox-workload",
    "blox-metrics",
    "blox-nodes",
    "blox-testkit",
];

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, sorted, as paths relative to the repository root.
fn rust_files(dir: &str) -> Vec<String> {
    fn walk(base: &Path, rel: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(base.join(rel)) else {
            return;
        };
        for e in entries.flatten() {
            let rel = rel.join(e.file_name());
            if e.path().is_dir() {
                walk(base, &rel, out);
            } else if rel.extension().is_some_and(|x| x == "rs") {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), Path::new(dir), &mut out);
    out.sort();
    out
}

/// The code of a Rust file without its comments (`//` to the end of the line; doc comments
/// cite the papers the stock components come from, which is fine).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The words of `code` (identifier characters), with their line numbers.
fn words(code: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for w in line.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !w.is_empty() {
                out.push((n + 1, w));
            }
        }
    }
    out
}

/// The names of the top-level public types and constants (`pub struct`, `enum`, `trait`,
/// `const`, `type`) defined in `files` (functions are left out: a preset's `policy` is no name
/// of a peer).
fn public_items(files: &[String]) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        for line in text.lines() {
            // Top-level items only (methods are named through their type).
            if !line.starts_with("pub ") {
                continue;
            }
            let mut it = line.split_whitespace();
            it.next();
            if let (Some(kind), Some(name)) = (it.next(), it.next()) {
                if ["struct", "enum", "trait", "const", "type"].contains(&kind) {
                    let name: String = name
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.insert(name);
                }
            }
        }
    }
    names
}

#[test]
fn no_generic_crate_depends_on_a_peer_crate_even_in_its_tests() {
    for krate in GENERIC_CRATES {
        let text = manifest(krate);
        for peer in PEER_CRATES {
            assert!(
                !text.contains(&format!("{peer}.workspace"))
                    && !text.contains(&format!("{peer} =")),
                "{krate} depends on the peer crate {peer}: peers build on the generic crates, \
                 never the other way"
            );
        }
    }
}

#[test]
fn no_generic_crate_names_an_item_only_a_peer_defines() {
    let peer_files: Vec<String> = PEER_CRATES
        .iter()
        .flat_map(|c| rust_files(&format!("{c}/src")))
        .collect();
    let generic_files: Vec<String> = GENERIC_CRATES
        .iter()
        .flat_map(|c| {
            let mut v = rust_files(&format!("{c}/src"));
            v.extend(rust_files(&format!("{c}/tests")));
            v
        })
        .filter(|f| !f.ends_with("architecture.rs"))
        .collect();
    // A name both a peer and a generic crate define (e.g. both have a `Tiresias` policy) is
    // the generic crate's own; so is a name under four letters, and a peer's bare name (it also
    // names a trace format, a paper's algorithm, a stock component).
    let mut generic_items = public_items(&generic_files);
    for bare in ["Blox", "Gavel", "Tiresias", "Synergy", "Pollux"] {
        generic_items.insert(bare.to_string());
    }
    let mut peer_only: std::collections::BTreeSet<String> = public_items(&peer_files)
        .into_iter()
        .filter(|n| n.len() >= 4 && !generic_items.contains(n))
        .collect();
    for peer in PEER_CRATES {
        peer_only.insert(peer.replace('-', "_"));
    }
    let mut found = Vec::new();
    for f in &generic_files {
        let code = code_of(&std::fs::read_to_string(root().join(f)).unwrap());
        for (line, w) in words(&code) {
            if peer_only.contains(w) {
                found.push(format!("{f}:{line}: {w}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "generic crates name peer simulators' items (move the code to the peer's crate):\n{}",
        found.join("\n")
    );
    // The check sees what it is meant to: a peer's item names.
    for item in [
        "TiresiasTime",
        "GavelMechanism",
        "SynergyFtf",
        "SynergyPlacement",
    ] {
        assert!(peer_only.contains(item), "{item}");
    }
}

#[test]
fn the_core_and_the_engine_name_no_peer_simulator_in_code() {
    let peers = ["gavel", "tiresias", "synergy", "pollux", "sia"];
    let mut found = Vec::new();
    for krate in ["blox-core", "blox-sim"] {
        for f in rust_files(&format!("{krate}/src")) {
            let code = code_of(&std::fs::read_to_string(root().join(&f)).unwrap());
            for (line, w) in words(&code) {
                let lower = w.to_lowercase();
                if peers.iter().any(|p| lower.contains(p)) || w == "Semantics" {
                    found.push(format!("{f}:{line}: {w}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_engine_holds_only_its_own_time_model() {
    let files = rust_files("blox-sim/src/time");
    assert_eq!(
        files,
        vec!["blox-sim/src/time/exact.rs", "blox-sim/src/time/mod.rs"],
        "a peer's time model lives in the peer's crate"
    );
}

/// The component author's kit stays small: the five component traits, the scheduler they make
/// and one extension (`PlacementPolicyExt::or_else`). A new trait here is a design decision, not
/// a convenience: raise the bound with a reason in ARCHITECTURE.md.
const CORE_TRAIT_BOUND: usize = 8;

#[test]
fn the_core_has_few_traits() {
    let files = rust_files("blox-core/src");
    let traits: Vec<String> = public_items(&files)
        .into_iter()
        .filter(|name| {
            files.iter().any(|f| {
                std::fs::read_to_string(root().join(f))
                    .unwrap()
                    .contains(&format!("pub trait {name}"))
            })
        })
        .collect();
    assert!(
        traits.len() <= CORE_TRAIT_BOUND,
        "blox-core defines {} public traits ({}), above the bound of {CORE_TRAIT_BOUND}",
        traits.len(),
        traits.join(", ")
    );
    assert!(traits.len() >= 6, "the check finds the traits: {traits:?}");
}

/// The calls that instantiate a run's hot loops (the engine, the peers' loops, a generator's
/// stream, the statistics and the output writers).
const HOT_INSTANCES: &[&str] = &[
    "Simulator::new",
    "SiaSim::new",
    "run_on_tiresias_model",
    "run_tiresias_engine",
    "run_gavel_engine",
    "JobStream::new",
    "RunMetrics::compute",
    "write_jobs_csv",
    "write_timeline_csv",
];

#[test]
fn the_scenario_crate_instantiates_no_hot_loop() {
    // `blox-scenario` is built at -O0 (the release profile): its runs go through `blox-runner`'s
    // non-generic functions, where the hot loops are instantiated and optimised.
    let mut found = Vec::new();
    for f in rust_files("blox-scenario/src") {
        let code = code_of(&std::fs::read_to_string(root().join(&f)).unwrap());
        for (i, line) in code.lines().enumerate() {
            if let Some(call) = HOT_INSTANCES.iter().find(|c| line.contains(*c)) {
                found.push(format!("{f}:{}: {call}", i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "blox-scenario instantiates a hot loop; call a blox-runner function instead:\n{}",
        found.join("\n")
    );
}

/// The workspace's members, from the root manifest.
fn members() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let start = text.find("members = [").expect("a members list");
    let list = &text[start..start + text[start..].find(']').unwrap()];
    list.lines()
        .skip(1)
        .map(|l| {
            code_of(l)
                .trim()
                .trim_end_matches(',')
                .trim_matches('"')
                .to_string()
        })
        .filter(|m| !m.is_empty() && !m.starts_with('#'))
        .collect()
}

/// Where unit tests would be found in `file`: lines that are a test or a test module's
/// attribute.
fn unit_test_lines(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_default();
    code_of(&text)
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start();
            l.starts_with("#[test]")
                || l.starts_with("#[cfg(test)]")
                || l.starts_with("#[cfg(all(test")
        })
        .map(|(i, _)| format!("{file}:{}", i + 1))
        .collect()
}

#[test]
fn targets_built_without_their_unit_tests_have_none() {
    // `test = false` on a library or program spares `cargo test` compiling it a second time to
    // run no test; a unit test added there later would never run, silently. Not here.
    let mut found = Vec::new();
    let mut checked = 0;
    for member in members() {
        let text = manifest(&member);
        let mut section = String::new();
        // (section, name, path, test = false) of each target table.
        let mut targets: Vec<(String, Option<String>, Option<String>, bool)> = Vec::new();
        for line in text.lines() {
            let line = code_of(line).trim().to_string();
            if line.starts_with('[') {
                section = line.trim_matches(|c| c == '[' || c == ']').to_string();
                if section == "lib" || section == "bin" {
                    targets.push((section.clone(), None, None, false));
                }
                continue;
            }
            let Some(t) = targets
                .last_mut()
                .filter(|_| section == "lib" || section == "bin")
            else {
                continue;
            };
            let value = |l: &str| {
                l.split_once('=')
                    .map(|(_, v)| v.trim().trim_matches('"').to_string())
            };
            if line.starts_with("name") {
                t.1 = value(&line);
            } else if line.starts_with("path") {
                t.2 = value(&line);
            } else if line.replace(' ', "") == "test=false" {
                t.3 = true;
            }
        }
        for (kind, name, path, no_tests) in targets {
            if !no_tests {
                continue;
            }
            checked += 1;
            let files = match (kind.as_str(), path, name) {
                ("lib", _, _) => rust_files(&format!("{member}/src")),
                (_, Some(p), _) => vec![format!("{member}/{p}")],
                (_, None, Some(n)) => vec![format!("{member}/src/bin/{n}.rs")],
                _ => vec![format!("{member}/src/main.rs")],
            };
            for f in files {
                found.extend(unit_test_lines(&f));
            }
        }
    }
    assert!(
        checked >= 10,
        "only {checked} targets with `test = false` found: is the parser right?"
    );
    assert!(
        found.is_empty(),
        "unit tests in targets whose manifest says `test = false` (they would never run): move \
         them to tests/ or drop the setting:\n{}",
        found.join("\n")
    );
}
