//! Tests of `checkpoint` (the library's `src/checkpoint.rs`) through the public API.

use blox_core::*;
use blox_nodes::*;

#[test]
fn checkpoints_fall_on_the_interval_since_the_start() {
    let s = Time::from_secs(100);
    let now = Time::from_secs(1_050);
    assert_eq!(Checkpointing::OnStop.last_checkpoint(s, now), s);
    assert_eq!(
        Checkpointing::Every(Time::ZERO).last_checkpoint(s, now),
        now
    );
    assert_eq!(
        Checkpointing::Every(Time::from_secs(300)).last_checkpoint(s, now),
        Time::from_secs(1_000)
    );
    assert_eq!(
        Checkpointing::from_secs(Some(300.0)).unwrap(),
        Checkpointing::Every(Time::from_secs(300))
    );
    assert!(Checkpointing::from_secs(Some(-1.0))
        .unwrap_err()
        .to_string()
        .contains("--checkpoint-interval"));
}
