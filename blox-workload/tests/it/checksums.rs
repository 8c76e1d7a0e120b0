//! The shipped data is what `traces/SHA256SUMS` says: every listed file is present with its
//! checksum, and every data file in `traces/` is listed. Only the catalogue (`README.md`), the
//! list itself and `.gitattributes` at the top of `traces/` are not listed; licence files are.
//!
//! This checks the repository's own folder, whatever `$BLOX_TRACES` says: it is about what the
//! repository ships.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The repository's `traces/` folder.
fn shipped() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces"))
}

/// Files of `traces/` that are not data and so not in `SHA256SUMS`.
const UNLISTED: [&str; 3] = ["README.md", "SHA256SUMS", ".gitattributes"];

/// `SHA256SUMS` as `path → lowercase hex digest` (the `sha256sum` format: digest, two spaces
/// or a space and `*`, path relative to `traces/`).
fn listed(dir: &Path) -> BTreeMap<String, String> {
    let path = dir.join("SHA256SUMS");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let (digest, rest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("SHA256SUMS:{n}: no space in {line:?}"));
        let file = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('*'))
            .unwrap_or_else(|| panic!("SHA256SUMS:{n}: expected `DIGEST  PATH`, got {line:?}"));
        assert!(
            digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
            "SHA256SUMS:{n}: {digest:?} is not a SHA-256 digest"
        );
        let old = out.insert(file.to_string(), digest.to_ascii_lowercase());
        assert!(old.is_none(), "SHA256SUMS:{n}: {file} is listed twice");
    }
    out
}

/// Every file under `dir`, as a `/`-separated path relative to `root`.
fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, root, out);
        } else {
            let rel = p.strip_prefix(root).unwrap();
            let parts: Vec<&str> = rel.iter().map(|c| c.to_str().unwrap()).collect();
            out.push(parts.join("/"));
        }
    }
}

fn sha256_hex(path: &Path) -> String {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_shipped_file_matches_sha256sums_and_none_is_unlisted() {
    let dir = shipped();
    assert!(
        dir.is_dir(),
        "the trace folder {} is missing",
        dir.display()
    );
    let want = listed(&dir);
    let mut present = Vec::new();
    walk(&dir, &dir, &mut present);
    present.retain(|f| !UNLISTED.contains(&f.as_str()));
    present.sort();

    let mut problems = Vec::new();
    for (file, digest) in &want {
        let p = dir.join(file);
        if !p.is_file() {
            problems.push(format!("missing: {file}"));
            continue;
        }
        let got = sha256_hex(&p);
        if &got != digest {
            problems.push(format!(
                "altered: {file} (sha256 {got}, SHA256SUMS says {digest})"
            ));
        }
    }
    for file in present.iter().filter(|f| !want.contains_key(*f)) {
        problems.push(format!("extra (not in SHA256SUMS): {file}"));
    }
    assert!(
        problems.is_empty(),
        "{} does not match its SHA256SUMS:\n{}",
        dir.display(),
        problems.join("\n")
    );
    // The catalogue's file count: 193 files (data and licence texts), Sia's data not among them.
    assert_eq!(want.len(), 193);
    assert!(want.keys().all(|f| !f.starts_with("sia/")));
}
