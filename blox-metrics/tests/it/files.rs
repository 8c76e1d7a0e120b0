//! Tests of `files` (the library's `src/files.rs`) through the public API.

use blox_metrics::*;
use std::path::Path;

fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = std::fs::read(e.path()).unwrap_or_else(|_| b"<dir>".to_vec());
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn replaces_every_file_or_none() {
    let dir = std::env::temp_dir().join(format!("blox-metrics-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write_all_or_nothing(&dir, &[("a.csv", b"1".to_vec()), ("b.json", b"2".to_vec())]).unwrap();
    write_all_or_nothing(&dir, &[("a.csv", b"3".to_vec()), ("b.json", b"4".to_vec())]).unwrap();
    let after = listing(&dir);
    assert_eq!(
        after,
        [
            ("a.csv".into(), b"3".to_vec()),
            ("b.json".into(), b"4".to_vec())
        ]
    );
    // A folder where the second file goes: nothing changes, nothing is left behind.
    std::fs::remove_file(dir.join("b.json")).unwrap();
    std::fs::create_dir(dir.join("b.json")).unwrap();
    let before = listing(&dir);
    let e = write_all_or_nothing(&dir, &[("a.csv", b"5".to_vec()), ("b.json", b"6".to_vec())])
        .unwrap_err();
    assert!(e.path.ends_with("b.json"), "{e}");
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert_eq!(listing(&dir), before);
    std::fs::remove_dir_all(&dir).unwrap();
}
