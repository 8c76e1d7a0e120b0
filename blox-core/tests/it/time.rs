//! Tests of `time` (the library's `src/time.rs`) through the public API.

use blox_core::*;

#[test]
fn display_trims_zeros() {
    assert_eq!(Time::from_secs(4800).to_string(), "4800");
    assert_eq!(Time(1500).to_string(), "1.5");
    assert_eq!(Time(1050).to_string(), "1.05");
    assert_eq!(Time(35_424_348).to_string(), "35424.348");
    assert_eq!(Time(7).to_string(), "0.007");
}

#[test]
fn ceil_rounding() {
    assert_eq!(
        Time::from_secs(1000).ceil_to(Time::from_secs(300)),
        Time::from_secs(1200)
    );
    assert_eq!(
        Time::from_secs(1200).ceil_to(Time::from_secs(300)),
        Time::from_secs(1200)
    );
    assert_eq!(Time::ZERO.ceil_to(Time::from_secs(300)), Time::ZERO);
    assert_eq!(
        Time::from_secs_f64_ceil(35424.3471980879),
        Some(Time(35_424_348))
    );
    assert_eq!(Time::from_secs_f64_ceil(-1.0), None);
    assert_eq!(Time::from_secs_f64_ceil(f64::NAN), None);
}
