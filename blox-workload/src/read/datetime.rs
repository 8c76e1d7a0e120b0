//! Wall-clock timestamps `YYYY-MM-DD HH:MM:SS` (no time zone), as in Philly, Pollux's
//! `philly.csv` and Helios.

/// Parses `YYYY-MM-DD HH:MM:SS` (a `T` may separate date and time; fractional seconds are
/// dropped) into seconds since 1970-01-01 00:00:00 on the same naive clock. The traces give no
/// time zone, so none is applied: only differences between timestamps matter. Returns `None`
/// for anything else, including impossible dates such as `2017-02-30`.
pub fn parse_datetime(s: &str) -> Option<i64> {
    let s = s.trim();
    let b = s.as_bytes();
    if b.len() < 19 || !s.is_char_boundary(19) {
        return None;
    }
    let (main, rest) = s.split_at(19);
    if !(rest.is_empty()
        || (rest.starts_with('.') && rest[1..].bytes().all(|c| c.is_ascii_digit())))
    {
        return None;
    }
    if !main.is_ascii() {
        return None;
    }
    let mb = main.as_bytes();
    if mb[4] != b'-'
        || mb[7] != b'-'
        || !(mb[10] == b' ' || mb[10] == b'T')
        || mb[13] != b':'
        || mb[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = &main[r];
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60
    {
        return None;
    }
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
