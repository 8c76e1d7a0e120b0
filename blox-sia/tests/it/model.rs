//! Tests of `model` (the library's `src/model.rs`) through the public API.

use blox_sia::*;

#[test]
fn constants_are_the_artifacts() {
    assert_eq!(restart_delay("cifar10"), 50);
    assert_eq!(restart_delay("imagenet"), 250);
    assert_eq!(restart_delay("gpt"), 30);
    assert_eq!(slowdown("cifar10"), 1.8);
    assert_eq!(slowdown("bert"), 1.2);
    assert_eq!(slowdown("gpt_pmp"), 1.0);
    // The penalty table is by job name and differs from the delays.
    assert_eq!(restart_penalty("cifar10-3"), 30.0);
    assert_eq!(restart_penalty("yolov3-0"), 45.0);
    assert_eq!(restart_penalty("deepspeech2-1"), 25.0);
    assert_eq!(restart_penalty("mystery-9"), 30.0);
    assert_eq!(max_local_override("deepspeech2", "rtx"), Some(57));
    assert_eq!(max_local_override("deepspeech2", "aws"), None);
}
