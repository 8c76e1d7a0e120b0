//! docs/cli.md is the output of tools/gen-cli-docs.sh over this build's `blox-sim --help`
//! texts: a flag added, removed or re-described without regenerating it fails here.

use std::path::Path;
use std::process::Command;

#[test]
fn docs_cli_md_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = Command::new("bash")
        .arg(root.join("tools/gen-cli-docs.sh"))
        .env("BLOX_SIM", env!("CARGO_BIN_EXE_blox-sim"))
        .current_dir(root)
        .output()
        .expect("bash runs tools/gen-cli-docs.sh");
    assert!(
        out.status.success(),
        "tools/gen-cli-docs.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let generated = String::from_utf8(out.stdout).unwrap();
    let committed = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    if generated != committed {
        let line = generated
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(generated.lines().count().min(committed.lines().count()))
            + 1;
        panic!(
            "docs/cli.md is stale (first difference at line {line}); regenerate it with \
             `tools/gen-cli-docs.sh > docs/cli.md`"
        );
    }
}

/// `--help` of `run` names every stock policy, placement and admission kind the serde forms
/// declare (the help's lists are prose; a kind added without them fails here).
#[test]
fn run_help_names_every_stock_component() {
    use blox_core::spec_form::kinds;
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(["run", "--help"])
        .output()
        .expect("blox-sim runs");
    let help = String::from_utf8(out.stdout).unwrap();
    let all = [
        kinds::<blox_policies::PolicyConfig>(),
        kinds::<blox_placement::PlacementConfig>(),
        kinds::<blox_admission::AdmissionConfig>(),
        kinds::<blox_synergy::SynergyPolicyConfig>(),
        kinds::<blox_synergy::SynergyPlacementConfig>(),
    ];
    for kind in all.iter().flatten() {
        assert!(
            help.contains(kind),
            "`blox-sim run --help` does not name `{kind}`"
        );
    }
}
