//! Fuzz the real-cluster server's HTTP request reader (`blox-cluster`, `http.rs`) without a
//! socket: the first byte picks the size of the pieces the bytes arrive in, the rest is what a
//! client sends. It must never panic; what it reads must not depend on how the bytes were cut
//! (but for a request followed by more data than its `Content-Length`, which only a piece
//! holding both can show); a request it accepts is well formed and, written out again, reads
//! back the same; a `POST /v1/jobs` body goes on to the submission check, whose accepted
//! submissions pass their own check and read back the same from their JSON.
#![no_main]

use blox_cluster::http_fuzzing::{read_request, Outcome, Request};
use blox_cluster::Submission;
use libfuzzer_sys::fuzz_target;

const MAX_BODY: u64 = 4096;
/// `http.rs`'s limits on the head.
const MAX_HEAD: usize = 16 * 1024;
const MAX_HEADERS: usize = 64;

fn extra_data(o: &Outcome) -> bool {
    matches!(o, Outcome::Refused(400, v)
        if v["error"].as_str().is_some_and(|e| e.starts_with("more data than Content-Length")))
}

fn write_out(r: &Request) -> Vec<u8> {
    let mut out = format!("{} {} HTTP/1.1\r\n", r.method, r.target).into_bytes();
    for (k, v) in &r.headers {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&r.body);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let piece = usize::from(cut) + 1;
    let (whole, c1) = read_request(bytes, usize::MAX, MAX_BODY);
    let (byte_by_byte, c2) = read_request(bytes, 1, MAX_BODY);
    let (pieces, c3) = read_request(bytes, piece, MAX_BODY);
    assert!(c1 <= 1 && c2 <= 1 && c3 <= 1);
    // One byte at a time never holds more than the head: never the extra-data refusal.
    assert!(!extra_data(&byte_by_byte), "{byte_by_byte:?}");
    for other in [&whole, &pieces] {
        if !extra_data(other) {
            assert_eq!(other, &byte_by_byte, "the outcome depends on the pieces");
        }
    }
    let Outcome::Read(r) = byte_by_byte else {
        return;
    };
    assert!(!r.method.is_empty() && !r.method.contains([' ', '\r', '\n']));
    assert!(r.target.starts_with('/') && !r.target.contains([' ', '\r']));
    assert!(r.headers.len() <= MAX_HEADERS);
    for (k, v) in &r.headers {
        assert!(!k.is_empty() && !k.contains([' ', '\t', ':']) && *k == k.to_ascii_lowercase());
        assert_eq!(v.trim(), v);
        assert!(!v.contains("\r\n"));
    }
    assert!(r.headers.iter().all(|(k, _)| k != "transfer-encoding"));
    assert!(r.body.len() as u64 <= MAX_BODY);
    let declared = r
        .headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(0, |(_, v)| v.parse::<usize>().unwrap());
    assert_eq!(r.body.len(), declared);
    // Written out again (`HTTP/1.1`, `name: value`), it reads back the same, when its head
    // still fits.
    let again = write_out(&r);
    if again.len() - r.body.len() <= MAX_HEAD {
        let (back, _) = read_request(&again, 1, MAX_BODY);
        assert_eq!(
            back,
            Outcome::Read(r.clone()),
            "{:?}",
            String::from_utf8_lossy(&again)
        );
    }
    if r.method == "POST" && r.target.trim_end_matches('/') == "/v1/jobs" {
        if let Ok(sub) = Submission::from_json(&r.body, 64) {
            assert!(sub.check().is_ok(), "{sub:?}");
            let json = serde_json::to_vec(&sub).unwrap();
            let back = Submission::from_json(&json, 64)
                .unwrap_or_else(|e| panic!("its JSON is refused: {e}: {sub:?}"));
            assert_eq!(back, sub);
        }
    }
});
