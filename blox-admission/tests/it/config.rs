//! Tests of `config` (the library's `src/config.rs`) through the public API.

use blox_admission::*;
use blox_core::*;

/// Files and the command line are one form (`blox_core::spec_form`), and a value's text
/// reads back as the same value.
#[test]
fn one_form_for_files_and_the_command_line() {
    assert_eq!(
        spec_form::kinds::<AdmissionConfig>(),
        ["accept-all", "load-based", "queue-cap"]
    );
    for (text, shown) in [
        ("accept-all", "accept-all"),
        ("load-based:1.2", "load-based:1.2"),
        ("load-based:factor=1.2", "load-based:1.2"),
        ("queue-cap:100", "queue-cap:limit=100,mode=hold"),
        (
            "queue-cap:limit=5,mode=reject",
            "queue-cap:limit=5,mode=reject",
        ),
    ] {
        let c: AdmissionConfig = text.parse().unwrap();
        assert_eq!(c.to_string(), shown);
        assert_eq!(shown.parse::<AdmissionConfig>().unwrap(), c);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<AdmissionConfig>(&json).unwrap(), c);
    }
    let e = |s: &str| s.parse::<AdmissionConfig>().unwrap_err().to_string();
    assert_eq!(
        e("queue-cap:mode=hold"),
        "admission `queue-cap`: parameter `limit` is required"
    );
    assert_eq!(
        e("queue-cap:limit=5,mode=drop"),
        "admission `queue-cap`, parameter `mode`: `drop` is not one of: hold, reject"
    );
    assert_eq!(
        e("load-based:x"),
        "admission `load-based`, parameter `factor`: `x` is not a finite number"
    );
    // Bounds are checked when a file is read too, not first when the run is built.
    let bad = serde_json::from_str::<AdmissionConfig>(r#"{"kind":"queue-cap","limit":0}"#);
    assert!(bad.is_err());
}
