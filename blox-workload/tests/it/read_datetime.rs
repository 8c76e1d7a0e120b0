//! Tests of `read::datetime` (the library's `src/read/datetime.rs`) through the public API.

use blox_workload::*;

#[test]
fn parses_known_instants() {
    assert_eq!(parse_datetime("1970-01-01 00:00:00"), Some(0));
    // `date -u -d '2017-10-09 07:01:55' +%s`
    assert_eq!(parse_datetime("2017-10-09 07:01:55"), Some(1_507_532_515));
    assert_eq!(parse_datetime("2020-02-29T12:00:00.5"), Some(1_582_977_600));
    for bad in [
        "",
        "2017-10-09",
        "2017-13-01 00:00:00",
        "2017-02-29 00:00:00",
        "2017-10-09 24:00:00",
        "None",
        "2017-10-09 07:01:5x",
        "+017-10-09 07:01:55",
    ] {
        assert_eq!(parse_datetime(bad), None, "{bad}");
    }
}
