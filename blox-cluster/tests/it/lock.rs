//! Tests of `lock` (the library's `src/lock.rs`) through the public API.

use blox_cluster::*;

#[test]
fn a_second_lock_fails_naming_the_holder_and_a_released_one_is_taken_again() {
    let dir = std::env::temp_dir().join(format!("blox-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let first = StateLock::acquire(&dir).unwrap();
    assert_eq!(
        std::fs::read_to_string(first.path()).unwrap().trim(),
        std::process::id().to_string()
    );
    // flock locks belong to the open file: a second open in the same process conflicts too.
    let e = StateLock::acquire(&dir).unwrap_err().to_string();
    assert!(
        e.contains(&format!("pid {}", std::process::id())) && e.contains("in use"),
        "{e}"
    );
    drop(first);
    StateLock::acquire(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
